// train: the layout, memory per device term by term, compute, time and cost, and communication.
#include "format/field.hpp"
#include "format/views.hpp"

namespace roofline::format {
namespace {

struct T {
  const io::Resolved& in;
  const TrainResult& r;
  [[nodiscard]] const TrainingInputs& t() const { return in.scenario.training; }
};

bool architecture(const T& x) { return x.in.scenario.architecture; }

std::string recompute_name(Recompute r) {
  switch (r) {
    case Recompute::none:
      return "none";
    case Recompute::selective:
      return "selective";
    case Recompute::full:
      return "full";
  }
  return "?";
}

const std::vector<Field<T>> kLayout = {
    {"devices", "devices G = t p d", "NA21", "G = t p d", [](const T& x) { return cell(x.r.devices); },
     [](const T& x) { return fmt::format("{} x {} x {}", x.r.tensor, x.r.pipeline, x.r.data); }},
    {"tensor_parallel", "tensor parallel t", "", "", [](const T& x) { return cell(x.r.tensor); }, nullptr,
     [](const T& x) { return std::string(x.r.sequence_parallel ? "with sequence parallelism" : ""); }},
    {"pipeline_parallel", "pipeline stages p", "", "", [](const T& x) { return cell(x.r.pipeline); }},
    {"data_parallel", "data parallel d", "", "", [](const T& x) { return cell(x.r.data); }},
    {"expert_parallel", "expert parallel e", "", "", [](const T& x) { return cell(x.r.expert); }, nullptr, nullptr,
     [](const T& x) { return x.in.scenario.model.moe.enabled(); }},
    {"zero_stage", "ZeRO stage", "", "", [](const T& x) { return cell(static_cast<std::int64_t>(x.r.zero)); }},
    {"optimizer", "optimizer and precision", "", "", [](const T& x) { return cell(std::string(x.r.recipe->name)); }},
    {"global_batch_sequences", "global batch", "NA21", "B = b m d",
     [](const T& x) { return cell(units::Sequences{x.r.global_batch}); },
     [](const T& x) { return fmt::format("{} x {} x {}", x.t().micro_batch, x.t().grad_accum, x.r.data); }},
    {"tokens_per_step", "tokens per step", "NA21", "B s",
     [](const T& x) { return cell(units::Tokens{x.r.tokens_per_step}); },
     [](const T& x) { return fmt::format("{} x {}", x.r.global_batch, x.t().seq_len); }},
};

const std::vector<Field<T>> kMemory = {
    {"params_per_device", "parameters on the most loaded device", "NA21",
     "max(first, last stage): layers / t / p, experts / (e t), embedding first, head last",
     [](const T& x) { return cell(static_cast<std::int64_t>(x.r.device_params)); }},
    {"weight_bytes", "weights", "RA20-3.1", "w Psi (/ d under ZeRO-3)",
     [](const T& x) { return cell(x.r.states.weights); }},
    {"gradient_bytes", "gradients", "RA20-3.1", "g Psi (/ d under ZeRO-2, 3)",
     [](const T& x) { return cell(x.r.states.gradients); }},
    {"optimizer_state_bytes", "optimizer states", "RA20-3.1", "o Psi (/ d under ZeRO-1, 2, 3)",
     [](const T& x) { return cell(x.r.states.optimizer); }},
    {"model_state_bytes", "model states", "RA20-5", "weights + gradients + optimizer states",
     [](const T& x) { return cell(x.r.states.total()); },
     [](const T& x) {
       return fmt::format("{} + {} + {}", num(x.r.states.weights), num(x.r.states.gradients),
                          num(x.r.states.optimizer));
     }},
    {"activation_bytes_per_layer", "activations per layer, one micro-batch", "KO22",
     "KO22 Table 2, generalised (GQA, gated MLP, flash attention, dropout)",
     [](const T& x) { return cell(x.r.activations_per_layer); }, nullptr,
     [](const T& x) { return "recompute " + recompute_name(x.t().recompute); }, architecture},
    {"activation_bytes_first_stage", "activations, first stage (p in flight)", "KO22", "M_layer (L / p) p",
     [](const T& x) { return cell(x.r.activations_first_stage); },
     [](const T& x) {
       return fmt::format("{} x {} x {}", num(x.r.activations_per_layer), num(x.r.layers_per_stage),
                          num(x.r.in_flight));
     },
     nullptr, architecture},
    {"logits_bytes", "logits and loss, last stage", "KO22", "s b V e / t + 4 s b V / t",
     [](const T& x) { return cell(x.r.logits.total()); },
     [](const T& x) { return fmt::format("{} + {}", num(x.r.logits.logits), num(x.r.logits.loss_fp32)); }, nullptr,
     architecture},
    {"activation_bytes", "activations of the binding stage", "KO22", "max(first stage, last stage + logits)",
     [](const T& x) { return cell(x.r.activations); },
     [](const T& x) {
       return fmt::format("max({}, {} + {})", num(x.r.pipeline > 1 ? x.r.activations_first_stage : units::Bytes{}),
                          num(x.r.activations_last_stage), num(x.r.logits.total()));
     },
     [](const T& x) { return std::string(x.r.first_stage_binds ? "first stage" : "last stage"); }},
    {"reserve_bytes", "reserve", "", "", [](const T& x) { return cell(x.r.reserve); }},
    {"total_bytes", "total per device", "RA20-5", "model states + activations + reserve",
     [](const T& x) { return cell(x.r.total); },
     [](const T& x) {
       return fmt::format("{} + {} + {}", num(x.r.states.total()), num(x.r.activations), num(x.r.reserve));
     }},
    {"capacity_bytes", "capacity per device", "", "", [](const T& x) { return cell(x.r.capacity); }},
    {"fits", "fits", "RA20-5", "total <= C", [](const T& x) { return cell(x.r.fits); },
     [](const T& x) { return fmt::format("{} <= {}", num(x.r.total), num(x.r.capacity)); }},
    {"headroom_bytes", "headroom", "RA20-5", "C - total", [](const T& x) { return cell(x.r.headroom); },
     [](const T& x) { return fmt::format("{} - {}", num(x.r.capacity), num(x.r.total)); }},
    {"max_micro_batch_sequences", "largest micro-batch that fits", "KO22", "largest b with total(b) <= C",
     [](const T& x) {
       return cell(x.r.max_micro_batch ? std::optional(units::Sequences{*x.r.max_micro_batch}) : std::nullopt);
     }},
    {"max_seq_len_tokens", "longest sequence that fits", "KO22", "largest s with total(s) <= C",
     [](const T& x) {
       return cell(x.r.max_seq_len ? std::optional(units::TokenCount{*x.r.max_seq_len}) : std::nullopt);
     }},
    {"smallest_fitting_layout", "smallest t x p x d that fits", "NA21", "least t p over the same G with total <= C",
     [](const T& x) {
       if (!x.r.smallest_fitting_layout) return cell(std::optional<std::string>());
       const auto& l = *x.r.smallest_fitting_layout;
       return cell(fmt::format("{} x {} x {}", l.tensor, l.pipeline, l.data));
     }},
};

const std::vector<Field<T>> kCompute = {
    {"model_flop_per_step", "model FLOPs per step (6N)", "KA20-2.1", "6 N B s",
     [](const T& x) { return cell(x.r.model_flops_per_step); },
     [](const T& x) { return fmt::format("6 x {} x {}", num(x.r.params), num(x.r.tokens_per_step)); }},
    {"hardware_flop_per_step", "executed FLOPs per step", "KO22",
     "(3 (C_fwd + A) + recomputation: selective A, full C_fwd + A) B s, A the causal attention core",
     [](const T& x) { return cell(x.r.hardware_flops_per_step); }, nullptr,
     [](const T& x) { return "recompute " + recompute_name(x.t().recompute); }},
    {"megatron_flop_per_step", "Megatron FLOPs per step", "NA21",
     "72 B s L h² (1 + s/(6h) + V/(12 h L)); 96 B s L h² (...) with full recomputation",
     [](const T& x) { return cell(x.r.megatron_flops_per_step); }, nullptr, nullptr,
     [](const T& x) { return x.in.scenario.architecture; }},
    {"step_time_s", "", "S000-1.4", "t = 6 N B s / (G P_peak mfu)", [](const T& x) { return cell(x.r.step_time); },
     [](const T& x) {
       const auto peak = device_peak(x.in.scenario);
       return peak ? fmt::format("{} / ({} x {} x {})", num(x.r.model_flops_per_step), num(x.r.devices), num(*peak),
                                 num(x.r.mfu))
                   : std::string();
     },
     nullptr, nullptr, [](const T& x) { return fmt::format("step time at {} % mfu", num(x.r.mfu * 100.0)); }},
    {"model_flops_utilisation_fraction", "", "CH22-B", "MFU = 6 N tokens_per_s / (G P_peak)",
     [](const T& x) { return cell(x.r.mfu_measured); },
     [](const T& x) {
       const auto peak = device_peak(x.in.scenario);
       return fmt::format("6 x {} x {} / ({} x {})", num(x.r.params), num(*x.r.measured_tokens_per_s), num(x.r.devices),
                          peak ? num(*peak) : std::string("n/a"));
     },
     nullptr, [](const T& x) { return x.r.mfu_measured.has_value(); },
     [](const T& x) { return fmt::format("MFU at {} tokens/s", num(*x.r.measured_tokens_per_s)); }},
    {"hardware_flops_utilisation_fraction", "HFU (recomputation done)", "CH22-B",
     "HFU = executed FLOPs per token x tokens_per_s / (G P_peak)", [](const T& x) { return cell(x.r.hfu_measured); },
     [](const T& x) {
       const auto peak = device_peak(x.in.scenario);
       return fmt::format("{} / {} x {} / ({} x {})", num(x.r.hardware_flops_per_step), num(x.r.tokens_per_step),
                          num(*x.r.measured_tokens_per_s), num(x.r.devices), peak ? num(*peak) : std::string("n/a"));
     },
     nullptr, [](const T& x) { return x.r.hfu_measured.has_value(); }},
    {"training_compute_flop", "", "KA20-2.1", "C = 6 N D", [](const T& x) { return cell(x.r.training_compute); },
     [](const T& x) { return fmt::format("6 x {} x {}", num(x.r.params), num(*x.t().tokens)); }, nullptr,
     [](const T& x) { return x.r.training_compute.has_value(); },
     [](const T& x) { return fmt::format("training compute, {} tokens", grouped(*x.t().tokens)); }},
    {"steps", "steps", "S000-1.4", "ceil(D / (B s))",
     [](const T& x) { return cell(static_cast<std::int64_t>(x.r.steps.value_or(0.0))); }, nullptr, nullptr,
     [](const T& x) { return x.r.steps.has_value(); }},
    {"time_to_train_s", "", "S000-1.4", "steps x step time", [](const T& x) { return cell(x.r.time_to_train); },
     [](const T& x) { return fmt::format("{} x {}", num(*x.r.steps), num(*x.r.step_time)); }, nullptr,
     [](const T& x) { return x.r.time_to_train.has_value(); },
     [](const T& x) { return fmt::format("time to train {} tokens", grouped(*x.t().tokens)); }},
    {"device_hours", "device-hours", "S000-1.4", "G t / 3600",
     [](const T& x) { return number(x.r.device_hours.value_or(0.0)); },
     [](const T& x) { return fmt::format("{} x {} / 3600", num(x.r.devices), num(*x.r.time_to_train)); }, nullptr,
     [](const T& x) { return x.r.device_hours.has_value(); }},
    {"cost", "cost", "S000-1.4", "device-hours x price", [](const T& x) { return number(x.r.cost.value_or(0.0)); },
     [](const T& x) { return fmt::format("{} x {}", num(*x.r.device_hours), num(*x.t().price_per_device_hour)); },
     nullptr, [](const T& x) { return x.r.cost.has_value(); }},
};

const std::vector<Field<T>> kComm = {
    {"dp_allreduce_bytes", "", "RA20-7", "2 (d - 1)/d Psi g (ZeRO-3: 1.5x)",
     [](const T& x) { return cell(x.r.dp_allreduce_bytes); }, nullptr, nullptr, nullptr,
     [](const T& x) {
       return std::string(x.r.zero == ZeroStage::os_g_p ? "ZeRO-3 gathers and scatters per step"
                                                        : "gradient all-reduce per step");
     }},
    {"dp_allreduce_time_s", "  over the link", "PY09", "bytes / BW_link",
     [](const T& x) { return cell(x.r.dp_allreduce_time); },
     [](const T& x) {
       return x.r.dp_allreduce_time ? fmt::format("{} / {}", num(x.r.dp_allreduce_bytes), num(x.r.link))
                                    : std::string();
     }},
    {"tp_bytes", "tensor-parallel traffic per step", "KO22", "4 x 2 (t - 1)/t s b h e per layer and micro-batch",
     [](const T& x) { return cell(x.r.tp_bytes); }},
    {"tp_time_s", "  over the link", "PY09", "bytes / BW_link", [](const T& x) { return cell(x.r.tp_time); },
     [](const T& x) { return x.r.tp_time ? fmt::format("{} / {}", num(x.r.tp_bytes), num(x.r.link)) : std::string(); }},
    {"pipeline_bubble_fraction", "pipeline bubble", "NA21", "(p - 1) / (m + p - 1)",
     [](const T& x) { return cell(units::Fraction{x.r.bubble_fraction}); },
     [](const T& x) { return fmt::format("({} - 1) / ({} + {} - 1)", x.r.pipeline, x.t().grad_accum, x.r.pipeline); }},
};

}  // namespace

void add_train(Report& rep, const io::Resolved& in, const TrainResult& r, bool explain) {
  const T x{in, r};
  rep.sections.push_back(make_section("layout", "Layout", kLayout, x, explain));
  rep.sections.push_back(make_section("train_memory", "Memory per device", kMemory, x, explain));
  rep.sections.push_back(make_section("train_compute", "Compute, time and cost", kCompute, x, explain));
  rep.sections.push_back(make_section("train_comm", "Communication per step", kComm, x, explain));
  if (r.mfu_measured && r.mfu_measured->base() > 1.0) {
    rep.warnings.push_back(
        fmt::format("--measured-tokens-per-s {} is faster than the devices' peak (MFU {} %): check the rate and --gpus",
                    num(*r.measured_tokens_per_s), num(r.mfu_measured->base() * 100.0)));
  }
  rep.notes.emplace_back(
      "times assume the stated mfu on model FLOPs (6N per token) and no overlap loss; communication is "
      "sized, not added to the step time");
}

}  // namespace roofline::format
