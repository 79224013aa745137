// Inference on a parallel layout: memory of the binding device and its fit, and a decode step
// through the stages with the tensor-parallel all-reduces and the stage hand-offs.
#include "format/field.hpp"
#include "format/views.hpp"

#include <cmath>

namespace roofline::format {
namespace {

struct D {
  const Subject& in;
  const DeploymentResult& r;
};

bool pipelined(const D& x) { return x.r.pipeline > 1; }
bool linked(const D& x) { return x.in.scenario.accelerator->system.inside.bandwidth.base() > 0.0; }
// A pure state-space model has no attention heads and so no attention KV to share.
bool attention_kv(const D& x) {
  const ModelConfig& m = x.in.scenario.model;
  return m.attention_layers() > 0 && (m.mla.enabled() || m.n_kv_heads > 0);
}
bool has_state(const D& x) { return x.r.state_per_sequence.base() > 0.0; }

std::string latency_note(LinkLatencySource source, units::Seconds alpha) {
  if (source == LinkLatencySource::flag) {
    return alpha.base() == 0.0 ? "bandwidth only: --link-latency 0" : "latency: --link-latency per step, no fixed cost";
  }
  return "latency: NCCL's fixed and per-step costs, the cheaper of its LL and Simple protocols";
}

// count x (V / B_eff + latency) for `count` collectives of V bytes each taking `total / count`.
std::string per_collective(double count, units::Bytes volume, units::Seconds total, units::Seconds latency) {
  const units::Seconds one = count > 0.0 ? total / count : units::Seconds{};
  const units::Seconds transfer = one - latency;
  const units::BytesPerSecond eff{transfer.base() > 0.0 ? volume.base() / transfer.base() : 0.0};
  return fmt::format("{} x ({} / {} + {})", num(count), num(volume), num(eff), num(latency));
}

std::string group_note(const D& x, const GroupLinks& g, const char* what) {
  return group_placement_text(x.in.scenario.accelerator->system, g, what);
}

const std::vector<Field<D>> kDeployment = {
    {"layout", "layout t x p x d", "NA21", "G = t p d",
     [](const D& x) { return cell(fmt::format("{} x {} x {}", x.r.tensor, x.r.pipeline, x.r.data)); }, nullptr,
     [](const D& x) { return fmt::format("{} devices", grouped(x.r.devices)); }},
    {"expert_parallel", "expert parallel e", "", "", [](const D& x) { return cell(x.r.expert); }, nullptr,
     [](const D& x) {
       if (x.r.expert == 1) return std::string("experts split over t");
       return x.r.attention_data_parallel ? fmt::format("DP attention x {} + EP", x.r.expert / x.r.tensor)
                                          : std::string("whole experts within a replica");
     },
     [](const D& x) { return x.in.scenario.model.moe.enabled(); }},
    {"experts_per_device", "  routed experts per device", "LE21", "E / e, whole, each layer",
     [](const D& x) { return number(x.r.experts_per_device); },
     [](const D& x) { return fmt::format("{} / {}", x.in.scenario.model.moe.n_experts, x.r.expert); }, nullptr,
     [](const D& x) { return x.r.experts_per_device > 0.0; }},
    {"params_per_device", "parameters on the binding device", "NA21",
     "max(first, last stage): layers / t / p, routed experts / e whole (--ep) or / t, embedding first, head last",
     [](const D& x) { return cell(static_cast<std::int64_t>(x.r.stage_params.most_loaded())); },
     [](const D& x) {
       return fmt::format("max({}, {})", num(x.r.stage_params.first_stage), num(x.r.stage_params.last_stage));
     },
     [](const D& x) { return std::string(x.r.last_stage_binds ? "last stage (the head)" : "first stage"); }},
    {"weight_bytes_per_device", "weights per device", "S000-1.3", "Psi_dev b_w",
     [](const D& x) { return cell(x.r.weights_per_device); },
     [](const D& x) {
       const double n = x.r.stage_params.most_loaded();
       return fmt::format("{} x {} / 8", num(n), num(shown_bits(x.in.scenario.workload, n, x.r.weights_per_device)));
     }},
    {"kv_share_per_device", "share of a sequence's KV per device", "SH19-3", "(1/p) / min(t, h_kv)",
     [](const D& x) { return number(x.r.kv_share); },
     [](const D& x) {
       const ModelConfig& m = x.in.scenario.model;
       return fmt::format("(1 / {}) / min({}, {})", x.r.pipeline, x.r.tensor, m.mla.enabled() ? 1 : m.n_kv_heads);
     },
     [](const D& x) {
       if (x.in.scenario.model.mla.enabled()) return std::string("MLA latent: every rank keeps it whole");
       return std::string(x.r.kv_replicated ? "KV heads replicated: t > h_kv" : "KV heads split over t");
     },
     attention_kv},
    {"state_share_per_device", "share of a sequence's state per device", "DAO24-8.1", "1 / (t p)",
     [](const D& x) { return number(x.r.state_share); },
     [](const D& x) { return fmt::format("1 / ({} x {})", x.r.tensor, x.r.pipeline); },
     [](const D&) { return std::string("SSM heads split over t"); }, has_state},
    {"kv_bytes_per_sequence_per_device", "KV per sequence per device", "S000-eq1.1",
     "M_KV,attn(T) x KV share + M_S x state share", [](const D& x) { return cell(x.r.kv_per_sequence_per_device); },
     [](const D& x) {
       const std::string kv = fmt::format("{} x {}", num(x.r.kv_attention_per_sequence), num(x.r.kv_share));
       const std::string state = fmt::format("{} x {}", num(x.r.state_per_sequence), num(x.r.state_share));
       if (!has_state(x)) return kv;
       return attention_kv(x) ? kv + " + " + state : state;
     },
     nullptr, nullptr,
     [](const D& x) {
       if (!has_state(x)) return std::string("KV per sequence per device");
       return std::string(attention_kv(x) ? "KV and state per sequence per device" : "state per sequence per device");
     }},
    in_sweep<D>(kSweepMemoryLayout | kSweepDecodeLayout | kSweepServeLayout, "needed per device",
                in_brief<D>(kBriefMemory,
                            {"required_bytes_per_device", "needed per device", "S003-3.4", "M_w,dev + M B M_KV,dev + R",
                             [](const D& x) { return cell(x.r.required_per_device); },
                             [](const D& x) {
                               return fmt::format("{} + {} x {} x {} + {}", num(x.r.weights_per_device),
                                                  x.r.micro_batches, x.r.batch, num(x.r.kv_per_sequence_per_device),
                                                  num(x.r.reserve_per_device));
                             },
                             [](const D& x) {
                               return x.r.micro_batches > 1 ? fmt::format("{} batches of {} in flight",
                                                                          x.r.micro_batches, grouped(x.r.batch))
                                                            : fmt::format("batch {} per replica", grouped(x.r.batch));
                             }})),
    {"layers_per_stage", "layers per stage", "NA21-2.2", "L / p",
     [](const D& x) { return number(x.r.layers_per_stage); },
     [](const D& x) { return fmt::format("{} / {}", x.in.scenario.model.n_layers, x.r.pipeline); }, nullptr, pipelined},
    {"first_stage_required_bytes", "  first stage needs", "S003-3.4", "M_w,first + M B M_KV,dev + R",
     [](const D& x) { return cell(x.r.first_stage_required); }, nullptr,
     [](const D&) { return std::string("the embedding"); }, pipelined},
    {"last_stage_required_bytes", "  last stage needs", "S003-3.4", "M_w,last + M B M_KV,dev + R",
     [](const D& x) { return cell(x.r.last_stage_required); }, nullptr,
     [](const D&) { return std::string("the head"); }, pipelined},
    {"capacity_bytes_per_device", "capacity per device", "", "",
     [](const D& x) { return cell(x.r.capacity_per_device); }},
    {"fits_per_device", "fits on every device", "S003-3.4", "needed <= C", [](const D& x) { return cell(x.r.fits); },
     [](const D& x) { return fmt::format("{} <= {}", num(x.r.required_per_device), num(x.r.capacity_per_device)); }},
    in_sweep<D>(kSweepMemoryLayout, "most sequences per replica",
                {"max_sequences_per_replica", "most sequences per replica", "S003-3.4",
                 "max(0, floor((C - M_w,dev - R) / M_KV,dev))",
                 [](const D& x) {
                   return cell(x.r.max_sequences ? std::optional(units::Sequences{*x.r.max_sequences}) : std::nullopt);
                 },
                 [](const D& x) {
                   return capped(x.r.max_sequences,
                                 fmt::format("max(0, floor(({} - {} - {}) / {}))", num(x.r.capacity_per_device),
                                             num(x.r.weights_per_device), num(x.r.reserve_per_device),
                                             num(x.r.kv_per_sequence_per_device)));
                 },
                 [](const D& x) { return std::string(saturated(x.r.max_sequences) ? kSaturatedNote : ""); }}),
    in_sweep<D>(
        kSweepMemoryLayout, "smallest t x p that fits",
        {"smallest_fitting_layout", "smallest t x p that fits", "NA21", "least t p with t | h, p | L and needed <= C",
         [](const D& x) {
           if (!x.r.smallest_fitting) return cell(std::optional<std::string>());
           return cell(fmt::format("{} x {}", x.r.smallest_fitting->tensor, x.r.smallest_fitting->pipeline));
         }}),
    {"stage_flop", "decode FLOPs per device", "S003-2.5", "B (C_fwd + A(T)) / (t p)",
     [](const D& x) { return cell(x.r.flops_per_device); }},
    {"expert_tokens", "tokens a device's experts see", "SH17", "n_e = B max(1, e / t)",
     [](const D& x) { return number(x.r.expert_tokens); },
     [](const D& x) { return fmt::format("{} x max(1, {} / {})", x.r.batch, x.r.expert, x.r.tensor); }, nullptr,
     [](const D& x) { return x.in.scenario.model.moe.enabled(); }},
    {"weights_read_bytes_per_device", "decode weights read per device", "S004",
     "Psi_dev,read b_w: routed experts in the share E (1 - (1 - k/E)^n_e) / E, the gathered table rows",
     [](const D& x) { return cell(x.r.weights_read_per_device); },
     [](const D& x) {
       const double n = x.r.params_read_per_device;
       return fmt::format("{} x {} / 8", num(n),
                          num(shown_bits(x.in.scenario.workload, n, x.r.weights_read_per_device)));
     },
     [](const D& x) { return fmt::format("{:.4g} % of the weights held", 100.0 * x.r.params_read_share); }},
    {"stage_bytes", "decode bytes per device", "S003-2.5", "Q_w,dev + B M_KV,dev",
     [](const D& x) { return cell(x.r.bytes_per_device); },
     [](const D& x) {
       return fmt::format("{} + {} x {}", num(x.r.weights_read_per_device), x.r.batch,
                          num(x.r.kv_per_sequence_per_device));
     }},
    {"stage_time_s", "one stage's step", "S003-2.5", "max(Q_dev / BW, F_dev / P)",
     [](const D& x) { return cell(x.r.t_stage); },
     [](const D& x) { return fmt::format("max({}, {})", num(x.r.t_memory), num(x.r.t_compute)); }},
    {"allreduce_bytes", "one tensor-parallel all-reduce", "SH19-3", "B d e, 2 per layer",
     [](const D& x) { return cell(x.r.allreduce_bytes); }, nullptr, nullptr, [](const D& x) { return x.r.tensor > 1; }},
    {"allreduce_time_s", "  a stage's all-reduces", "NC24",
     "2 L/p (2 (t - 1)/t M / B_eff + latency): the group's ring on the topology, B_eff its bus bandwidth (x "
     "--link-efficiency) at the protocol's share",
     [](const D& x) { return cell(x.r.t_allreduce); },
     [](const D& x) {
       return per_collective(
           x.r.allreduces_per_stage,
           x.r.allreduce_bytes * (2.0 * (static_cast<double>(x.r.tensor) - 1.0) / static_cast<double>(x.r.tensor)),
           x.r.t_allreduce, x.r.latency);
     },
     [](const D& x) {
       return group_note(x, x.r.tp_links, "the tensor-parallel group") + "; on the critical path, not hidden";
     },
     [](const D& x) { return x.r.tensor > 1 && linked(x); }},
    {"tp_bus_bandwidth_bytes_per_s", "    bus bandwidth", "NC24",
     "B_bus = 2 (n - 1)/n / max(2 (k - 1)/k / B_in, 2 (m - 1)/m / (k B_out)), k members a domain, m domains",
     [](const D& x) { return cell(x.r.link); }, [](const D& x) { return bus_bandwidth_text(x.r.tp_links); }, nullptr,
     [](const D& x) { return x.r.tensor > 1 && linked(x) && x.in.scenario.accelerator->system.torus.empty(); }},
    {"alltoall_time_s", "  a stage's expert all-to-alls", "LE21",
     "2 L_moe/p (V / B_eff + latency): max((k - 1)/n M / B_in, (n - k)/n M / B_out), the links at once",
     [](const D& x) { return cell(x.r.t_alltoall); },
     [](const D& x) {
       return per_collective(x.r.alltoalls_per_stage, x.r.alltoall_bytes, x.r.t_alltoall, x.r.alltoall_latency);
     },
     [](const D& x) { return group_note(x, x.r.ep_links, "the expert-parallel group"); },
     [](const D& x) { return x.r.expert > 1 && linked(x); }},
    {"hop_time_s", "stage hand-off", "NC24", "B d e / B_eff + latency, over the link stage neighbours share",
     [](const D& x) { return cell(x.r.t_hop); },
     [](const D& x) { return per_collective(1.0, x.r.hop_bytes, x.r.t_hop, x.r.hop_latency); },
     [](const D& x) {
       return fmt::format("over the {} at {}: neighbours are t = {} ranks apart, {}", link_kind_name(x.r.hop_kind),
                          rate_text(x.r.hop_link), x.r.tensor,
                          x.r.hop_spans ? "the pipeline spans domains" : "the pipeline in one domain");
     },
     [](const D& x) { return pipelined(x) && linked(x); }},
    in_sweep<D>(kSweepDecodeLayout | kSweepServeLayout, "step through the layout",
                in_brief<D>(kBriefDecode, {"step_time_s", "decode step through the layout", "NA21-2.2",
                                           "p (t_stage + t_all-reduce + t_all-to-all) + (p - 1) t_hop",
                                           [](const D& x) { return cell(x.r.t_step); },
                                           [](const D& x) {
                                             return fmt::format("{} x ({} + {} + {}) + ({} - 1) x {}", x.r.pipeline,
                                                                num(x.r.t_stage), num(x.r.t_allreduce),
                                                                num(x.r.t_alltoall), x.r.pipeline, num(x.r.t_hop));
                                           },
                                           [](const D& x) {
                                             if (x.r.protocol == "bandwidth only (ICI)")
                                               return std::string("bandwidth only: ICI has no NCCL costs");
                                             return latency_note(x.in.scenario.deployment.link_latency_source,
                                                                 x.r.latency);
                                           }})),
    in_sweep<D>(kSweepDecodeLayout, "communication share",
                {"comm_share_fraction", "  communication share", "TH05-4",
                 "(p (t_all-reduce + t_all-to-all) + (p - 1) t_hop) / t_step",
                 [](const D& x) { return cell(units::Fraction{x.r.comm_share}); }}),
    {"tokens_per_s_replica", "tokens/s per replica", "S003-2.5", "B / t_step",
     [](const D& x) { return cell(units::PerSecond{x.r.tokens_per_s_replica}); },
     [](const D& x) { return fmt::format("{} / {}", x.r.batch, num(x.r.t_step)); }},
    in_sweep<D>(kSweepDecodeLayout, "tokens/s, all replicas",
                in_brief<D>(kBriefDecode, {"tokens_per_s", "tokens/s, all replicas", "S003-2.5", "d B / t_step",
                                           [](const D& x) { return cell(units::PerSecond{x.r.tokens_per_s}); },
                                           [](const D& x) {
                                             return fmt::format("{} x {}", x.r.data, num(x.r.tokens_per_s_replica));
                                           }})),
    {"micro_batches", "batches in flight M", "", "", [](const D& x) { return cell(x.r.micro_batches); }, nullptr,
     nullptr, pipelined},
    {"pipelined_interval_s", "  a batch's token interval", "NA21-2.2", "max(M, p) (t_stage + t_comm + t_hop)",
     [](const D& x) { return cell(x.r.interval); },
     [](const D& x) {
       return fmt::format("max({}, {}) x ({} + {} + {} + {})", x.r.micro_batches, x.r.pipeline, num(x.r.t_stage),
                          num(x.r.t_allreduce), num(x.r.t_alltoall), num(x.r.t_hop));
     },
     nullptr, pipelined},
    {"pipelined_idle_fraction", "  each stage idle", "NA21-2.2", "1 - M / max(M, p)",
     [](const D& x) { return cell(units::Fraction{x.r.idle_share}); },
     [](const D& x) { return fmt::format("1 - {} / max({}, {})", x.r.micro_batches, x.r.micro_batches, x.r.pipeline); },
     nullptr, pipelined},
    {"pipelined_tokens_per_s", "  tokens/s per replica, M in flight", "S003-2.5", "M B / interval",
     [](const D& x) { return cell(units::PerSecond{x.r.tokens_per_s_pipelined}); },
     [](const D& x) { return fmt::format("{} x {} / {}", x.r.micro_batches, x.r.batch, num(x.r.interval)); }, nullptr,
     pipelined},
};

// --- serve's steady state through the layout -------------------------------------------------------

struct L {
  const Subject& in;
  const LayoutSteadyState& r;
};

const std::vector<Field<L>> kLayoutSteady = {
    {"max_concurrency_sequences", "most sequences the layout holds", "S003-3.4",
     "d x max(0, floor((C_dev - M_w,dev - R) / M_KV,dev(S + O)))",
     [](const L& x) {
       return cell(x.r.max_concurrency ? std::optional(units::Sequences{*x.r.max_concurrency}) : std::nullopt);
     }},
    {"max_concurrency_tpot_sequences", "most sequences meeting the TPOT target", "KW23",
     "largest N with t_step,layout(N) <= TPOT target",
     [](const L& x) {
       return cell(x.r.max_concurrency_tpot ? std::optional(units::Sequences{*x.r.max_concurrency_tpot})
                                            : std::nullopt);
     },
     nullptr, nullptr, [](const L& x) { return x.in.scenario.serving.tpot_target_s.has_value(); }},
    {"concurrency_limit", "concurrency limited by", "", "",
     [](const L& x) { return cell(serve_limit_name(x.r.limit)); }},
    in_sweep<L>(
        kSweepServeLayout, "steady sequences",
        in_brief<L>(kBriefServe,
                    {"concurrency_sequences", "sequences in flight N", "", "",
                     [](const L& x) { return cell(units::Sequences{saturated_count(x.r.concurrency)}); }, nullptr,
                     [](const L& x) {
                       return std::string(x.in.scenario.serving.concurrency ? "--concurrency" : "the most allowed");
                     }})),
    {"sequences_per_replica", "sequences per replica n", "NA21", "N / d",
     [](const L& x) { return number(x.r.per_replica); },
     [](const L& x) { return fmt::format("{} / {}", num(x.r.concurrency), x.in.scenario.deployment.data); }},
    {"step_tokens", "tokens a step carries", "KW23", "n + n (S - P) / O",
     [](const L& x) { return cell(units::Tokens{x.r.step_tokens}); },
     [](const L& x) { return fmt::format("{} + {}", num(x.r.per_replica), num(x.r.replica.prefill_tokens)); }},
    {"flop_per_device", "FLOPs per device", "S003-2.5", "F_replica / (t p)",
     [](const L& x) { return cell(x.r.flops_per_device); },
     [](const L& x) {
       const Deployment& d = x.in.scenario.deployment;
       return fmt::format("{} / ({} x {})", num(x.r.replica.flops), d.tensor, d.pipeline);
     }},
    {"bytes_per_device", "bytes per device", "S003-2.5", "Q_w,dev + (n M_KV(S + O/2) + KV written) x share",
     [](const L& x) { return cell(x.r.bytes_per_device); },
     [](const L& x) {
       return fmt::format("{} + ({} + {}) x {}", num(x.r.weights_read_per_device), num(x.r.replica.kv_read),
                          num(x.r.replica.kv_written), num(x.r.cache_share));
     }},
    {"stage_time_s", "one stage's step", "S003-2.5", "max(F_dev / P, Q_dev / BW)",
     [](const L& x) { return cell(x.r.t_stage); },
     [](const L& x) {
       return fmt::format("max({} / {}, {} / {})", num(x.r.flops_per_device), num(x.r.device.peak),
                          num(x.r.bytes_per_device), num(x.r.device.bandwidth));
     },
     nullptr, [](const L& x) { return std::isfinite(x.r.device.peak.base()); }},
    {"allreduce_time_s", "  a stage's all-reduces", "TH05-4", "2 L / p ring all-reduces of the step's tokens",
     [](const L& x) { return cell(x.r.t_allreduce); }},
    in_sweep<L>(kSweepServeLayout, "steady TPOT",
                in_brief<L>(kBriefServe, {"steady_tpot_s", "TPOT every user sees, through the layout", "NA21-2.2",
                                          "p (t_stage + t_all-reduce + t_all-to-all) + (p - 1) t_hop",
                                          [](const L& x) { return cell(x.r.t_step); },
                                          [](const L& x) {
                                            const auto p = x.in.scenario.deployment.pipeline;
                                            return fmt::format("{} x ({} + {} + {}) + {} x {}", p, num(x.r.t_stage),
                                                               num(x.r.t_allreduce), num(x.r.t_alltoall), p - 1,
                                                               num(x.r.t_hop));
                                          }})),
    in_sweep<L>(kSweepServeLayout, "steady tokens/s",
                in_brief<L>(kBriefServe, {"steady_tokens_per_s", "output tokens/s, all users", "S003-2.5", "N / t_step",
                                          [](const L& x) { return cell(units::PerSecond{x.r.tokens_per_s}); },
                                          [](const L& x) {
                                            return fmt::format("{} / {}", num(x.r.concurrency), num(x.r.t_step));
                                          }})),
    {"requests_per_s", "requests/s", "S003-2.5", "N / (O t_step)",
     [](const L& x) { return number(x.r.requests_per_s); },
     [](const L& x) {
       return fmt::format("{} / ({} x {})", num(x.r.concurrency),
                          std::max<std::int64_t>(1, x.in.scenario.workload.output), num(x.r.t_step));
     }},
};

}  // namespace

void add_layout_steady(Report& rep, const Subject& in, const LayoutSteadyState& r, const ViewOptions& view) {
  const Deployment& d = in.scenario.deployment;
  rep.sections.push_back(
      make_section("steady_state_layout",
                   fmt::format("A server at steady state through the layout {} x {} x {} (continuous batching)",
                               d.tensor, d.pipeline, d.data),
                   kLayoutSteady, L{in, r}, view));
}

void sweep_cells(SweepCells& s, const Subject& in, const std::optional<LayoutSteadyState>& r) {
  if (r) {
    s.add("steady_state_layout", kLayoutSteady, L{in, *r});
  } else {
    s.none("steady_state_layout", kLayoutSteady);
  }
}

void sweep_cells(SweepCells& s, const Subject& in, const DeploymentResult& r) {
  s.add("deployment", kDeployment, D{in, r});
}

void add_deployment(Report& rep, const Subject& in, const DeploymentResult& r, const ViewOptions& view) {
  rep.sections.push_back(make_section("deployment",
                                      fmt::format("On the layout {} x {} x {} (batch {} per replica, context {})",
                                                  r.tensor, r.pipeline, r.data, grouped(r.batch), grouped(r.context)),
                                      kDeployment, D{in, r}, view));
  rep.notes.emplace_back(
      "the sections above treat the devices as one ideal device (a bound); the layout section divides the work "
      "as the layout does, with its communication");
}

}  // namespace roofline::format
