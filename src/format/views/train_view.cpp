// train: the layout, memory per device term by term, compute, time and cost, and communication.
#include "format/field.hpp"
#include "format/views.hpp"

#include <nlohmann/json.hpp>

#include <array>
#include <cmath>
#include <utility>

#include "text/names.hpp"

namespace roofline::format {
namespace {

struct T {
  const Subject& in;
  const TrainResult& r;
  [[nodiscard]] const TrainingInputs& t() const { return in.scenario.training; }
};

bool architecture(const T& x) { return x.in.scenario.architecture; }

bool pipelined(const T& x) { return x.r.pipeline > 1; }
bool context(const T& x) { return x.r.context > 1 && architecture(x); }
bool lora(const T& x) { return x.r.lora; }
bool sharded_in_groups(const T& x) { return x.r.zero == ZeroStage::os_g_p && x.r.shard_group < x.r.data * x.r.context; }
bool has_floor(const T& x) { return x.r.step_floor.has_value(); }
bool full_training(const T& x) { return architecture(x) && !x.r.lora; }

// A parameter count that divides evenly prints as a count, otherwise as the quotient it is.
Cell count_or_number(double v) {
  return std::fabs(v) < 0x1p53 && v == std::floor(v) ? cell(static_cast<std::int64_t>(v)) : number(v);
}

std::string fine_tuning_name(const T& x) {
  if (!x.r.lora) return "";
  std::string targets;
  for (const LoraTargetName& t : kLoraMatrixTargets) {
    if (t.target != LoraTargets::experts && has_target(x.t().lora->targets, t.target)) {
      targets += (targets.empty() ? "" : ",") + std::string(t.name);
    }
  }
  if ((x.t().lora->targets & LoraTargets::all) == LoraTargets::all) targets = "all linear";
  return fmt::format("{} r={} on {}", x.t().lora->qlora ? "QLoRA" : "LoRA", x.r.adapters.rank, targets);
}

// The model FLOPs per token as substituted: 6 x N, or (4 x N + 6 x N_lora).
std::string per_token_flops(const T& x) {
  if (!x.r.lora) return fmt::format("6 x {}", num(x.r.params));
  return fmt::format("(4 x {} + 6 x {})", num(x.r.params), grouped(x.r.adapters.active));
}
// The tokens of a sequence one rank holds: s, or s / c under context parallelism.
std::string seq_text(const T& x) {
  if (x.r.context <= 1) return std::to_string(x.t().seq_len);
  return fmt::format("{} / {}", x.t().seq_len, x.r.context);
}

// Layers per stage as --pp-layers takes them, runs folded: 7,8*14,7.
std::string stage_layers_text(const std::vector<std::int64_t>& stages) {
  std::string out;
  for (std::size_t i = 0; i < stages.size();) {
    std::size_t j = i;
    while (j < stages.size() && stages[j] == stages[i]) ++j;
    out += (out.empty() ? "" : ",") + std::to_string(stages[i]) + (j - i > 1 ? "*" + std::to_string(j - i) : "");
    i = j;
  }
  return out;
}

std::string stage_layers_note(const T& x) {
  if (!x.t().pipeline_layers.empty()) return "--pp-layers";
  const std::int64_t layers = x.in.scenario.model.n_layers;
  if (layers % x.r.pipeline == 0) return "equal";
  return fmt::format("balanced: the {} extra layers on the middle stages", layers % x.r.pipeline);
}

const std::vector<Field<T>> kLayout = {
    {"devices", "devices G = t c p d", "NA21", "G = t c p d", [](const T& x) { return cell(x.r.devices); },
     [](const T& x) { return fmt::format("{} x {} x {} x {}", x.r.tensor, x.r.context, x.r.pipeline, x.r.data); }},
    {"tensor_parallel", "tensor parallel t", "", "", [](const T& x) { return cell(x.r.tensor); }, nullptr,
     [](const T& x) { return std::string(x.r.sequence_parallel ? "with sequence parallelism" : ""); }},
    {"pipeline_parallel", "pipeline stages p", "", "", [](const T& x) { return cell(x.r.pipeline); }},
    {"pipeline_stage_layers", "layers per stage", "DU24-3.3.2",
     "--pp-layers, or L/p each; when p does not divide L, floor(L/p) on the first and last stages and the L mod p "
     "extra on the middle ones",
     [](const T& x) { return cell(stage_layers_text(x.r.stage_layers)); }, nullptr, stage_layers_note,
     [](const T& x) { return x.r.pipeline > 1 && architecture(x); }},
    {"pipeline_chunks", "model chunks per device v", "NA21-2.2", "", [](const T& x) { return cell(x.r.chunks); },
     nullptr, [](const T& x) { return std::string(x.r.chunks > 1 ? "interleaved" : "1F1B"); },
     [](const T& x) { return x.r.pipeline > 1; }},
    {"context_parallel", "context parallel c", "LI23-3", "", [](const T& x) { return cell(x.r.context); }, nullptr,
     [](const T& x) {
       return fmt::format("ring attention: {} / {} = {} tokens of each sequence a rank", x.t().seq_len, x.r.context,
                          x.t().seq_len / x.r.context);
     },
     [](const T& x) { return x.r.context > 1; }},
    {"data_parallel", "data parallel d", "", "", [](const T& x) { return cell(x.r.data); }},
    {"expert_parallel", "expert parallel e", "", "", [](const T& x) { return cell(x.r.expert); }, nullptr, nullptr,
     [](const T& x) { return x.in.scenario.model.moe.enabled(); }},
    {"zero_stage", "ZeRO stage", "", "", [](const T& x) { return cell(static_cast<std::int64_t>(x.r.zero)); }},
    {"shard_group", "ZeRO shard group N_s", "", "", [](const T& x) { return cell(x.r.shard_group); }, nullptr,
     [](const T& x) { return fmt::format("{} groups, replicated", x.r.data * x.r.context / x.r.shard_group); },
     [](const T& x) { return x.r.shard_group < x.r.data * x.r.context; }},
    {"optimizer", "optimizer and precision", "", "", [](const T& x) { return cell(std::string(x.r.recipe->name)); }},
    {"fine_tuning", "fine-tuning", "", "", [](const T& x) { return cell(fine_tuning_name(x)); }, nullptr, nullptr,
     lora},
    {"global_batch_sequences", "global batch", "NA21", "B = b m d",
     [](const T& x) { return cell(units::Sequences{x.r.global_batch}); },
     [](const T& x) { return fmt::format("{} x {} x {}", x.t().micro_batch, x.t().grad_accum, x.r.data); }},
    {"tokens_per_step", "tokens per step", "NA21", "B s",
     [](const T& x) { return cell(units::Tokens{x.r.tokens_per_step}); },
     [](const T& x) { return fmt::format("{} x {}", x.r.global_batch, x.t().seq_len); }},
};

bool zero3(const T& x) { return x.r.zero == ZeroStage::os_g_p && architecture(x); }

// A verdict on memory that leaves the unknown activations out says so in its label (N14).
std::string without_activations(const T& x, const char* label) {
  return x.r.activations_known ? std::string(label) : std::string(label) + ", activations excluded";
}
bool full_recompute(const T& x) { return x.t().recompute == Recompute::full && architecture(x); }

// ---- One layer's activations, term by term (KO22 §4.1, generalised) -------------------------

// The symbols of the per-layer terms, as the engine used them.
struct LayerSymbols {
  std::int64_t s = 0, s_local = 0, b = 0, h = 0, a = 0, t = 1, rep = 1, w_q = 0, w_k = 0, w_v = 0, w_o = 0, f = 0,
               k = 0;
  std::int64_t norms = 0, latents = 0;
  double e = 2.0;
};

LayerSymbols layer_symbols(const T& x) {
  const ModelConfig& m = x.in.scenario.model;
  const bool moe = x.r.layer_terms_moe;
  LayerSymbols y;
  y.s = x.t().seq_len;
  y.s_local = x.t().seq_len / x.r.context;  // context parallelism: the s/c tokens a rank holds
  y.b = x.t().micro_batch;
  y.h = m.d_model;
  y.a = m.n_heads;
  y.t = x.r.tensor;
  y.rep = x.r.sequence_parallel ? x.r.tensor : 1;
  y.norms = m.norms_per_layer;
  const LayerWidths w = layer_widths(m, moe);
  y.w_q = w.w_q;
  y.w_k = w.w_k;
  y.w_v = w.w_v;
  y.w_o = w.w_o;
  y.latents = w.latents;
  y.k = w.k;
  y.f = w.f;
  y.e = dtype_bytes(x.in.scenario.workload.activation_dtype);
  return y;
}

// "s x b x width x bytes / split", the shape of most terms.
std::string sbw(const T& x, std::int64_t width, double bytes, std::int64_t split) {
  const LayerSymbols y = layer_symbols(x);
  return fmt::format("{} x {} x {} x {} / {}", y.s_local, y.b, width, num(bytes), split);
}

// "a x s x s x b x bytes / t", the score-matrix terms.
std::string scores(const T& x, double bytes) {
  const LayerSymbols y = layer_symbols(x);
  return fmt::format("{} x {} x {} x {} x {} / {}", y.a, y.s, y.s_local, y.b, num(bytes), y.t);
}

template <units::Bytes LayerActivations::*Member>
bool term_present(const T& x) {
  return architecture(x) && (x.r.layer_terms.*Member).base() > 0.0;
}

template <units::Bytes LayerActivations::*Member>
Cell term_value(const T& x) {
  return cell(x.r.layer_terms.*Member);
}

const std::vector<Field<T>> kLayerTerms = {
    {"norm_inputs_bytes", "norm inputs", "KO22-4.1", "n_norm s b h e / (t with SP)",
     term_value<&LayerActivations::norm_inputs>,
     [](const T& x) {
       return fmt::format("{} x {}", layer_symbols(x).norms,
                          sbw(x, x.in.scenario.model.d_model, layer_symbols(x).e, layer_symbols(x).rep));
     },
     nullptr, term_present<&LayerActivations::norm_inputs>},
    {"attention_input_bytes", "Q/K/V projection input", "KO22-4.1", "s b h e / (t with SP)",
     term_value<&LayerActivations::attn_input>,
     [](const T& x) { return sbw(x, layer_symbols(x).h, layer_symbols(x).e, layer_symbols(x).rep); }, nullptr,
     term_present<&LayerActivations::attn_input>},
    {"mla_latent_bytes", "MLA latents and their norms", "DS24-2.1", "s b (2 r_q + 2 d_c + d_R) e / (t with SP)",
     term_value<&LayerActivations::mla_latents>,
     [](const T& x) { return sbw(x, layer_symbols(x).latents, layer_symbols(x).e, layer_symbols(x).rep); }, nullptr,
     term_present<&LayerActivations::mla_latents>},
    {"qk_norm_input_bytes", "q/k norm inputs", "KO22-4.1", "s b (w_q + w_k) e / t",
     term_value<&LayerActivations::qk_norm_inputs>,
     [](const T& x) {
       const LayerSymbols y = layer_symbols(x);
       return sbw(x, y.w_q + y.w_k, y.e, y.t);
     },
     nullptr, term_present<&LayerActivations::qk_norm_inputs>},
    {"query_bytes", "queries", "KO22-4.1", "s b w_q e / t (KO22: 2sbh)", term_value<&LayerActivations::query>,
     [](const T& x) { return sbw(x, layer_symbols(x).w_q, layer_symbols(x).e, layer_symbols(x).t); }, nullptr,
     term_present<&LayerActivations::query>},
    {"key_bytes", "keys", "KO22-4.1", "s b w_k e / t (GQA: h_kv d_h)", term_value<&LayerActivations::key>,
     [](const T& x) { return sbw(x, layer_symbols(x).w_k, layer_symbols(x).e, layer_symbols(x).t); }, nullptr,
     term_present<&LayerActivations::key>},
    {"value_bytes", "values", "KO22-4.1", "s b w_v e / t", term_value<&LayerActivations::value>,
     [](const T& x) { return sbw(x, layer_symbols(x).w_v, layer_symbols(x).e, layer_symbols(x).t); }, nullptr,
     term_present<&LayerActivations::value>},
    {"softmax_output_bytes", "softmax output", "KO22-4.1", "a s² b e / t (KO22: 2as²b)",
     term_value<&LayerActivations::softmax_output>, [](const T& x) { return scores(x, layer_symbols(x).e); }, nullptr,
     term_present<&LayerActivations::softmax_output>},
    {"softmax_dropout_mask_bytes", "softmax dropout mask", "KO22-4.1", "a s² b m / t (KO22: as²b)",
     term_value<&LayerActivations::softmax_dropout_mask>, [](const T& x) { return scores(x, 1.0); }, nullptr,
     term_present<&LayerActivations::softmax_dropout_mask>},
    {"softmax_dropout_output_bytes", "softmax dropout output", "KO22-4.1", "a s² b e / t (KO22: 2as²b)",
     term_value<&LayerActivations::softmax_dropout_output>, [](const T& x) { return scores(x, layer_symbols(x).e); },
     nullptr, term_present<&LayerActivations::softmax_dropout_output>},
    {"softmax_stats_bytes", "flash attention log-sum-exp", "DA22", "4 a s b / t (fp32)",
     term_value<&LayerActivations::softmax_stats>,
     [](const T& x) {
       const LayerSymbols y = layer_symbols(x);
       return fmt::format("4 x {} x {} x {} / {}", y.a, y.s_local, y.b, y.t);
     },
     nullptr, term_present<&LayerActivations::softmax_stats>},
    {"attention_output_bytes", "attention output (o_proj input)", "KO22-4.1", "s b w_o e / t (KO22: 2sbh)",
     term_value<&LayerActivations::attn_output>,
     [](const T& x) { return sbw(x, layer_symbols(x).w_o, layer_symbols(x).e, layer_symbols(x).t); }, nullptr,
     term_present<&LayerActivations::attn_output>},
    {"attention_dropout_mask_bytes", "attention dropout mask", "KO22-4.1", "s b h m / (t with SP) (KO22: sbh)",
     term_value<&LayerActivations::attn_dropout_mask>,
     [](const T& x) { return sbw(x, layer_symbols(x).h, 1.0, layer_symbols(x).rep); }, nullptr,
     term_present<&LayerActivations::attn_dropout_mask>},
    {"mlp_input_bytes", "MLP input", "KO22-4.1", "s b h e / (t with SP) (KO22: 2sbh)",
     term_value<&LayerActivations::mlp_input>,
     [](const T& x) { return sbw(x, layer_symbols(x).h, layer_symbols(x).e, layer_symbols(x).rep); }, nullptr,
     term_present<&LayerActivations::mlp_input>},
    {"moe_dispatched_input_bytes", "inputs dispatched to the k experts", "SH17", "k s b h e / (t with SP)",
     term_value<&LayerActivations::moe_dispatched_input>,
     [](const T& x) {
       const LayerSymbols y = layer_symbols(x);
       return fmt::format("{} x {}", y.k, sbw(x, y.h, y.e, y.rep));
     },
     nullptr, term_present<&LayerActivations::moe_dispatched_input>},
    {"mlp_gate_output_bytes", "MLP gate output", "KO22-4.1", "s b f e / t, f the width a token passes",
     term_value<&LayerActivations::mlp_gate_output>,
     [](const T& x) { return sbw(x, layer_symbols(x).f, layer_symbols(x).e, layer_symbols(x).t); }, nullptr,
     term_present<&LayerActivations::mlp_gate_output>},
    {"mlp_up_output_bytes", "MLP up output", "KO22-4.1", "s b f e / t (KO22: 8sbh)",
     term_value<&LayerActivations::mlp_up_output>,
     [](const T& x) { return sbw(x, layer_symbols(x).f, layer_symbols(x).e, layer_symbols(x).t); }, nullptr,
     term_present<&LayerActivations::mlp_up_output>},
    {"mlp_activation_output_bytes", "MLP activation output", "KO22-4.1", "s b f e / t (KO22: 8sbh)",
     term_value<&LayerActivations::mlp_activation_output>,
     [](const T& x) { return sbw(x, layer_symbols(x).f, layer_symbols(x).e, layer_symbols(x).t); }, nullptr,
     term_present<&LayerActivations::mlp_activation_output>},
    {"mlp_dropout_mask_bytes", "MLP dropout mask", "KO22-4.1", "s b h m / (t with SP) (KO22: sbh)",
     term_value<&LayerActivations::mlp_dropout_mask>,
     [](const T& x) { return sbw(x, layer_symbols(x).h, 1.0, layer_symbols(x).rep); }, nullptr,
     term_present<&LayerActivations::mlp_dropout_mask>},
    {"layer_input_bytes", "layer input (checkpoint)", "KO22-5", "s b h e / (t with SP) (KO22: 2sbh)",
     term_value<&LayerActivations::layer_input>,
     [](const T& x) { return sbw(x, layer_symbols(x).h, layer_symbols(x).e, layer_symbols(x).rep); }, nullptr,
     term_present<&LayerActivations::layer_input>},
    {"layer_bytes", "the layer", "KO22-4.1", "the sum of its terms",
     [](const T& x) { return cell(x.r.layer_terms.total()); },
     [](const T& x) {
       const LayerActivations& l = x.r.layer_terms;
       std::string sum;
       for (const units::Bytes v : {l.norm_inputs,
                                    l.attn_input,
                                    l.mla_latents,
                                    l.qk_norm_inputs,
                                    l.query,
                                    l.key,
                                    l.value,
                                    l.softmax_output,
                                    l.softmax_dropout_mask,
                                    l.softmax_dropout_output,
                                    l.softmax_stats,
                                    l.attn_output,
                                    l.attn_dropout_mask,
                                    l.mlp_input,
                                    l.moe_dispatched_input,
                                    l.mlp_gate_output,
                                    l.mlp_up_output,
                                    l.mlp_activation_output,
                                    l.mlp_dropout_mask,
                                    l.layer_input}) {
         if (v.base() > 0.0) sum += (sum.empty() ? "" : " + ") + num(v);
       }
       return sum;
     },
     nullptr, architecture},
    {"adapter_activation_bytes", "LoRA x A products, mean per layer", "HU21-4.1", "s b r e n_act / L",
     [](const T& x) { return cell(x.r.adapter_activations_per_layer); }, nullptr, nullptr,
     [](const T& x) { return x.r.adapter_activations_per_layer.base() > 0.0; }},
};

const std::vector<Field<T>> kMemory = {
    {"params_per_device", "parameters on the most loaded device", "NA21",
     "max(first, middle, last stage): its layers' matrices / t, experts / (e t), embedding first, head last",
     [](const T& x) { return cell(static_cast<std::int64_t>(x.r.device_params)); },
     [](const T& x) {
       if (x.r.stage_params.middle_stage > 0.0) {
         return fmt::format("max(max({}, {}), {})", num(x.r.stage_params.first_stage),
                            num(x.r.stage_params.middle_stage), num(x.r.stage_params.last_stage));
       }
       return fmt::format("max({}, {})", num(x.r.stage_params.first_stage), num(x.r.stage_params.last_stage));
     }},
    {"adapter_params", "adapter parameters (trainable)", "HU21-4.1", "N_lora = sum r (d_in + d_out) per adapted matrix",
     [](const T& x) { return cell(x.r.adapters.total); }, nullptr,
     [](const T& x) { return fmt::format("{} matrices", grouped(x.r.adapters.adapted_matrices)); }, lora},
    {"adapter_params_per_device", "adapter parameters on the device", "HU21-4.1", "Psi = N_lora / (t p)",
     [](const T& x) { return count_or_number(x.r.adapter_params); },
     [](const T& x) { return fmt::format("{} / ({} x {})", grouped(x.r.adapters.total), x.r.tensor, x.r.pipeline); },
     nullptr, lora},
    {"frozen_base_bytes", "frozen base on the device", "DE23-3",
     "(N_q b_q / 8 + N_o 2) x Psi_dev / N (/ d under ZeRO-3)", [](const T& x) { return cell(x.r.base_bytes); },
     [](const T& x) {
       return fmt::format("({} x {} / 8 + {} x 2) x {} / {} / {}", grouped(x.r.frozen_base.quantised_params),
                          num(x.r.base_bits), grouped(x.r.frozen_base.other_params), num(x.r.device_params),
                          grouped(x.in.scenario.counts.total), x.r.zero == ZeroStage::os_g_p ? x.r.data : 1);
     },
     [](const T& x) { return std::string(x.t().lora->qlora ? "NF4, double quant" : "16-bit"); }, lora},
    {"weight_bytes", "weights", "RA20-3.1",
     "w Psi (/ N_s under ZeRO-3, N_s = d or the shard group); LoRA: + the frozen base",
     [](const T& x) { return cell(x.r.states.weights); }},
    {"gradient_bytes", "gradients", "RA20-3.1", "g Psi (/ N_s under ZeRO-2, 3)",
     [](const T& x) { return cell(x.r.states.gradients); }},
    {"optimizer_state_bytes", "optimizer states", "RA20-3.1", "o Psi (/ N_s under ZeRO-1, 2, 3)",
     [](const T& x) { return cell(x.r.states.optimizer); }},
    {"model_state_bytes", "model states", "RA20-5", "weights + gradients + optimizer states",
     [](const T& x) { return cell(x.r.states.total()); },
     [](const T& x) {
       return fmt::format("{} + {} + {}", num(x.r.states.weights), num(x.r.states.gradients),
                          num(x.r.states.optimizer));
     }},
    {"zero3_gathered_bytes", "ZeRO-3 gathered unit + prefetched", "ZH23-3.2", "(1 + f) Psi_unit w, f = 1",
     [](const T& x) { return cell(x.r.zero3_live.gathered_params); },
     [](const T& x) { return fmt::format("2 x {} x {}", num(x.r.unit_params), num(x.r.recipe->weights)); }, nullptr,
     zero3},
    {"zero3_unsharded_gradient_bytes", "ZeRO-3 one unit's gradients whole", "ZH23-3.2", "Psi_unit g",
     [](const T& x) { return cell(x.r.zero3_live.unsharded_grads); },
     [](const T& x) { return fmt::format("{} x {}", num(x.r.unit_params), num(x.r.recipe->gradients)); }, nullptr,
     zero3},
    {"activation_bytes_per_layer", "activations per layer, one micro-batch", "KO22",
     "KO22 Table 2, generalised (GQA, gated MLP, flash attention, dropout)",
     [](const T& x) { return cell(x.r.activations_per_layer); },
     [](const T& x) {
       return fmt::format("({} x {} + {} x {}) / {} + {}", num(x.r.dense_layers), num(x.r.dense_layer_bytes),
                          num(x.r.moe_layers), num(x.r.moe_layer_bytes), x.in.scenario.model.n_layers,
                          num(x.r.adapter_activations_per_layer));
     },
     [](const T& x) { return "recompute " + recompute_name(x.t().recompute); }, architecture},
    {"activation_bytes_first_stage", "", "KO22-4.2.3",
     "M_layer x kept layers x in flight; kept = L_0, the stage's layers (full, every k: ceil(L_0 / k)); in flight "
     "1F1B p, interleaved p (1 + (p - 1)/(p v))",
     [](const T& x) { return cell(x.r.activations_first_stage); },
     [](const T& x) {
       return fmt::format("{} x {} x {}", num(x.r.activations_per_layer), num(x.r.kept_layers), num(x.r.in_flight));
     },
     nullptr, architecture,
     [](const T& x) {
       return x.r.pipeline > 1 ? fmt::format("activations, first stage ({} in flight)", num(x.r.in_flight))
                               : std::string("activations of the layers");
     }},
    {"embedding_activation_bytes", "embedding dropout masks", "KO22-4.3",
     "s b h m / (t with SP) x in flight; 0 without dropout", [](const T& x) { return cell(x.r.embedding_activations); },
     [](const T& x) {
       return fmt::format("{} x {} x {} x 1 / {} x {}", seq_text(x), x.t().micro_batch, x.in.scenario.model.d_model,
                          x.r.sequence_parallel ? x.r.tensor : 1, num(x.r.in_flight));
     },
     nullptr, [](const T& x) { return architecture(x) && x.t().dropout; }},
    {"activation_bytes_last_stage", "", "KO22-4.2.3", "M_layer x kept layers x in flight on the last stage",
     [](const T& x) { return cell(x.r.activations_last_stage); },
     [](const T& x) {
       return fmt::format("{} x {} x {}", num(x.r.activations_per_layer), num(x.r.kept_layers_last),
                          num(x.r.in_flight_last));
     },
     nullptr, [](const T& x) { return architecture(x) && pipelined(x); },
     [](const T& x) { return fmt::format("activations, last stage ({} in flight)", num(x.r.in_flight_last)); }},
    {"activation_bytes_middle_stage", "", "KO22-4.2.3",
     "M_layer x kept layers x in flight on stage i: 1F1B p - i; the largest middle stage, shown when it binds",
     [](const T& x) { return cell(x.r.activations_middle_stage); },
     [](const T& x) {
       return fmt::format("{} x {} x {}", num(x.r.activations_per_layer), num(x.r.kept_layers_middle),
                          num(x.r.in_flight_middle));
     },
     nullptr, [](const T& x) { return architecture(x) && x.r.middle_stage_binds; },
     [](const T& x) {
       return fmt::format("activations, stage {} ({} layers, {} in flight)", x.r.middle_stage,
                          x.r.stage_layers[static_cast<std::size_t>(x.r.middle_stage)], num(x.r.in_flight_middle));
     }},
    {"recompute_working_set_bytes", "recomputed layers, one micro-batch", "KO22-5",
     "k layers rebuilt with nothing recomputed, max over layer kinds M_layer(none) x min(k, L/p)",
     [](const T& x) { return cell(x.r.recompute_working_set); }, nullptr,
     [](const T& x) { return fmt::format("checkpoint every {} layers", x.t().recompute_every); }, full_recompute},
    {"logits_bytes", "logits and loss, last stage", "KO22-4.3", "s b V e / t + 4 s b V / t",
     [](const T& x) { return cell(x.r.logits.total()); },
     [](const T& x) { return fmt::format("{} + {}", num(x.r.logits.logits), num(x.r.logits.loss_fp32)); }, nullptr,
     architecture},
    {"activation_bytes", "activations of the binding stage", "KO22",
     "first: layers + embedding + working set (+ logits when p = 1); last: layers + logits + working set; a middle "
     "stage: layers + working set; the largest",
     [](const T& x) { return cell(x.r.activations_known ? std::optional(x.r.activations) : std::nullopt); },
     [](const T& x) {
       if (x.r.middle_stage_binds) {
         return fmt::format("{} + {}", num(x.r.activations_middle_stage), num(x.r.recompute_working_set));
       }
       if (x.r.first_stage_binds) {
         return fmt::format("{} + {} + {} + {}", num(x.r.activations_first_stage), num(x.r.embedding_activations),
                            num(x.r.recompute_working_set),
                            num(x.r.pipeline == 1 ? x.r.logits.total() : units::Bytes{}));
       }
       return fmt::format("{} + {} + {}", num(x.r.activations_last_stage), num(x.r.logits.total()),
                          num(x.r.recompute_working_set));
     },
     [](const T& x) {
       if (!x.r.activations_known) return std::string("unknown: no layers");
       if (x.r.middle_stage_binds) return fmt::format("stage {}", x.r.middle_stage);
       return std::string(x.r.pipeline == 1 ? "" : x.r.first_stage_binds ? "first stage" : "last stage");
     }},
    {"activations_counted", "activations counted in the total", "KO22",
     "the model's layers are known (KO22's per-layer terms need them; not --params N alone)",
     [](const T& x) { return cell(x.r.activations_known); }, nullptr,
     [](const T& x) { return std::string(x.r.activations_known ? "" : "the total, fit and headroom exclude them"); }},
    {"optimizer_temporary_bytes", "optimizer step fp32 gradient copy", "MI18-3",
     "4 Psi_o when g < 4 B and the recipe keeps an fp32 master, Psi_o = Psi (/ d from ZeRO-1)",
     [](const T& x) { return cell(x.r.optimizer_temporary); },
     [](const T& x) { return fmt::format("4 x {}", num(x.r.optimizer_params)); }, nullptr,
     [](const T& x) { return x.r.optimizer_temporary.base() > 0.0; }},
    {"reserve_bytes", "reserve", "", "", [](const T& x) { return cell(x.r.reserve); }},
    in_sweep<T>(
        kSweepTrains, "memory/device",
        in_brief<T>(kBriefTrain, {"total_bytes", "total per device", "RA20-5",
                                  "model states + max(activations + ZeRO-3 buffers, optimizer temporary) + reserve",
                                  [](const T& x) { return cell(x.r.total); },
                                  [](const T& x) {
                                    return fmt::format("{} + max({} + {}, {}) + {}", num(x.r.states.total()),
                                                       num(x.r.activations), num(x.r.zero3_live.total()),
                                                       num(x.r.optimizer_temporary), num(x.r.reserve));
                                  },
                                  [](const T& x) {
                                    if (!x.r.activations_known) return std::string("states, optimizer step, reserve");
                                    return std::string(x.r.optimizer_binds ? "optimizer step binds" : "");
                                  },
                                  nullptr, [](const T& x) { return without_activations(x, "total per device"); }})),
    {"capacity_bytes", "capacity per device", "", "", [](const T& x) { return cell(x.r.capacity); }},
    {"fits", "fits", "RA20-5", "total <= C", [](const T& x) { return cell(x.r.fits); },
     [](const T& x) { return fmt::format("{} <= {}", num(x.r.total), num(x.r.capacity)); }, nullptr, nullptr,
     [](const T& x) { return without_activations(x, "fits"); }},
    {"headroom_bytes", "headroom", "RA20-5", "C - total", [](const T& x) { return cell(x.r.headroom); },
     [](const T& x) { return fmt::format("{} - {}", num(x.r.capacity), num(x.r.total)); }, nullptr, nullptr,
     [](const T& x) { return without_activations(x, "headroom"); }},
    {"max_micro_batch_sequences", "largest micro-batch that fits", "KO22", "largest b with total(b) <= C",
     [](const T& x) {
       return cell(x.r.max_micro_batch ? std::optional(units::Sequences{*x.r.max_micro_batch}) : std::nullopt);
     }},
    {"max_seq_len_tokens", "longest sequence that fits", "KO22", "largest s with total(s) <= C",
     [](const T& x) {
       return cell(x.r.max_seq_len ? std::optional(units::TokenCount{*x.r.max_seq_len}) : std::nullopt);
     }},
    in_brief<T>(
        kBriefTrain,
        {"smallest_fitting_layout", "smallest t x p x d that fits", "NA21", "least t p over the same G with total <= C",
         [](const T& x) {
           if (!x.r.smallest_fitting_layout) return cell(std::optional<std::string>());
           const auto& l = *x.r.smallest_fitting_layout;
           return cell(fmt::format("{} x {} x {}", l.tensor, l.pipeline, l.data));
         },
         nullptr, [](const T& x) { return std::string(x.r.activations_known ? "" : "activations excluded"); }}),
};

std::string convention_name(const T& x) {
  return x.r.lora ? std::string("4n+6n_lora") : std::string(text::name_of(x.r.convention));
}

std::string step_time_label(const T& x) {
  switch (x.r.basis) {
    case StepTimeBasis::mfu:
      return fmt::format("step time at {} % MFU ({})", num(x.r.utilisation * 100.0), convention_name(x));
    case StepTimeBasis::hfu:
      return fmt::format("step time at {} % HFU (executed FLOPs)", num(x.r.utilisation * 100.0));
    case StepTimeBasis::measured_step:
      return "step time (measured)";
    case StepTimeBasis::measured_tokens_s:
      return "step time at the measured tokens/s";
  }
  return "step time";
}

std::string peak_text(const T& x) {
  const auto peak = device_peak(x.in.scenario);
  return peak ? num(*peak) : std::string("n/a");
}

const std::vector<Field<T>> kCompute = {
    {"model_flop_per_step", "", "KA20-2.1", "6 N B s; LoRA (4 N + 6 N_lora) B s",
     [](const T& x) { return cell(x.r.model_flops_per_step); },
     [](const T& x) { return fmt::format("{} x {}", per_token_flops(x), num(x.r.tokens_per_step)); }, nullptr, nullptr,
     [](const T& x) {
       return std::string(x.r.lora ? "model FLOPs per step (4N + 6N_lora)" : "model FLOPs per step (6N)");
     }},
    {"model_flop_per_token", "", "KA20-2.1", "6 N; LoRA 4 N + 6 N_lora",
     [](const T& x) { return cell(x.r.model_flops_per_token); }, [](const T& x) { return per_token_flops(x); }, nullptr,
     nullptr, [](const T& x) { return std::string(x.r.lora ? "  per token (4N + 6N_lora)" : "  per token (6N)"); }},
    {"palm_flop_per_step", "model FLOPs per step (PaLM)", "CH22-B", "(6 N + 12 L H Q s) B s",
     [](const T& x) { return cell(x.r.palm_flops_per_step); },
     [](const T& x) {
       const ModelConfig& m = x.in.scenario.model;
       if (m.global_attention.enabled()) {  // Gemma 4: 12 H (L_s Q + L_g Q_g) s
         const LayerWindows lw = layer_windows(m);
         return fmt::format("(6 x {} + 12 x {} x ({} x {} + {} x {}) x {}) x {}", num(x.r.params), m.n_heads,
                            lw.sliding_layers, m.head_dim, lw.global_layers, global_head_shape(m).head_dim,
                            x.t().seq_len, num(x.r.tokens_per_step));
       }
       return fmt::format("(6 x {} + 12 x {} x {} x {} x {}) x {}", num(x.r.params), m.n_layers, m.n_heads, m.head_dim,
                          x.t().seq_len, num(x.r.tokens_per_step));
     },
     nullptr, architecture},
    {"megatron_flop_per_step", "Megatron FLOPs per step", "NA21-5.1",
     "72 B s L h² (1 + s/(6h) + V/(12 h L)); 96 B s L h² (1 + s/(6h) + V/(16 h L)) with full recomputation",
     [](const T& x) { return cell(x.r.megatron_flops_per_step); },
     [](const T& x) {
       const ModelConfig& m = x.in.scenario.model;
       const bool full = x.t().recompute == Recompute::full;
       return fmt::format("{} x {} x {} x {} x {} x {} x (1 + {}/(6 x {}) + {}/({} x {} x {}))", full ? 96 : 72,
                          x.r.global_batch, x.t().seq_len, m.n_layers, m.d_model, m.d_model, x.t().seq_len, m.d_model,
                          m.vocab_size, full ? 16 : 12, m.d_model, m.n_layers);
     },
     nullptr, full_training},
    {"hardware_flop_per_step", "executed FLOPs per step", "KO22",
     "(3 (C_fwd + A) + recomputation: selective A, full C_fwd + A) B s, A the causal attention core",
     [](const T& x) { return cell(x.r.hardware_flops_per_step); },
     [](const T& x) {
       const auto a = x.r.attention_flops_per_token;
       std::string again;
       if (x.t().recompute == Recompute::selective) again = fmt::format(" + {}", num(a));
       if (x.t().recompute == Recompute::full)
         again = fmt::format(" + {} + {}", num(x.r.forward_flops_per_token), num(a));
       return fmt::format("({} + 3 x {}{}) x {}", num(x.r.model_flops_per_token), num(a), again,
                          num(x.r.tokens_per_step));
     },
     [](const T& x) { return "recompute " + recompute_name(x.t().recompute); }},
    {"hardware_flop_per_token", "  per token", "KO22", "executed FLOPs per step / (B s)",
     [](const T& x) { return cell(x.r.hardware_flops_per_step / x.r.tokens_per_step); },
     [](const T& x) { return fmt::format("{} / {}", num(x.r.hardware_flops_per_step), num(x.r.tokens_per_step)); }},
    {"mfu_convention", "model FLOPs for MFU", "CH22-B",
     "6n: 6 N; palm: 6 N + 12 L H Q s; megatron: the 72 form; fine-tuning: 4 N + 6 N_lora",
     [](const T& x) { return cell(convention_name(x)); }},
    in_sweep<T>(
        kSweepTrains, "step time",
        in_brief<T>(
            kBriefTrain,
            {"step_time_s", "", "S000-1.4",
             "mfu: F_model / (G P_peak mfu); hfu: F_executed / (G P_peak hfu); measured: t, or B s / tokens_per_s",
             [](const T& x) { return cell(x.r.step_time); },
             [](const T& x) {
               switch (x.r.basis) {
                 case StepTimeBasis::mfu:
                   return fmt::format("{} / ({} x {} x {})", num(x.r.convention_flops_per_step), num(x.r.devices),
                                      peak_text(x), num(x.r.utilisation));
                 case StepTimeBasis::hfu:
                   return fmt::format("{} / ({} x {} x {})", num(x.r.hardware_flops_per_step), num(x.r.devices),
                                      peak_text(x), num(x.r.utilisation));
                 case StepTimeBasis::measured_step:
                   return num(*x.r.step_time);
                 case StepTimeBasis::measured_tokens_s:
                   return fmt::format("{} / {}", num(x.r.tokens_per_step), num(*x.r.measured_tokens_per_s));
               }
               return std::string();
             },
             nullptr, nullptr, step_time_label})),
    {"tokens_per_s", "tokens/s (measured step time)", "S000-1.4", "B s / t_step",
     [](const T& x) { return cell(units::PerSecond{x.r.measured_tokens_per_s.value_or(0.0)}); },
     [](const T& x) { return fmt::format("{} / {}", num(x.r.tokens_per_step), num(*x.r.step_time)); }, nullptr,
     [](const T& x) { return x.r.basis == StepTimeBasis::measured_step; }},
    {"model_flops_utilisation_fraction", "", "CH22-B", "MFU = F_model / (B s) x tokens_per_s / (G P_peak)",
     [](const T& x) { return cell(x.r.mfu_measured); },
     [](const T& x) {
       return fmt::format("{} / {} x {} / ({} x {})", num(x.r.convention_flops_per_step), num(x.r.tokens_per_step),
                          num(*x.r.measured_tokens_per_s), num(x.r.devices), peak_text(x));
     },
     nullptr, [](const T& x) { return x.r.mfu_measured.has_value(); },
     [](const T& x) {
       return fmt::format("MFU ({}) at {} tokens/s", convention_name(x), num(*x.r.measured_tokens_per_s));
     }},
    {"hardware_flops_utilisation_fraction", "HFU (recomputation done)", "CH22-B",
     "HFU = F_executed / (B s) x tokens_per_s / (G P_peak)", [](const T& x) { return cell(x.r.hfu_measured); },
     [](const T& x) {
       return fmt::format("{} / {} x {} / ({} x {})", num(x.r.hardware_flops_per_step), num(x.r.tokens_per_step),
                          num(*x.r.measured_tokens_per_s), num(x.r.devices), peak_text(x));
     },
     nullptr, [](const T& x) { return x.r.hfu_measured.has_value(); }},
    {"training_compute_flop", "", "KA20-2.1", "C = 6 N D; LoRA (4 N + 6 N_lora) D",
     [](const T& x) { return cell(x.r.training_compute); },
     [](const T& x) { return fmt::format("{} x {}", per_token_flops(x), num(*x.t().tokens)); }, nullptr,
     [](const T& x) { return x.r.training_compute.has_value(); },
     [](const T& x) { return fmt::format("training compute, {} tokens", grouped(*x.t().tokens)); }},
    {"steps", "steps", "S000-1.4", "ceil(D / (B s))",
     [](const T& x) { return cell(static_cast<std::int64_t>(x.r.steps.value_or(0.0))); }, nullptr, nullptr,
     [](const T& x) { return x.r.steps.has_value(); }},
    in_sweep<T>(
        kSweepTrains, "time to train",
        in_brief<T>(
            kBriefTrain,
            {"time_to_train_s", "", "S000-1.4", "steps x step time", [](const T& x) { return cell(x.r.time_to_train); },
             [](const T& x) { return fmt::format("{} x {}", num(*x.r.steps), num(*x.r.step_time)); }, nullptr,
             [](const T& x) { return x.r.time_to_train.has_value(); },
             [](const T& x) { return fmt::format("time to train {} tokens", grouped(*x.t().tokens)); }})),
    {"device_hours", "device-hours", "S000-1.4", "G t / 3600",
     [](const T& x) { return number(x.r.device_hours.value_or(0.0)); },
     [](const T& x) { return fmt::format("{} x {} / 3600", num(x.r.devices), num(*x.r.time_to_train)); }, nullptr,
     [](const T& x) { return x.r.device_hours.has_value(); }},
    in_brief<T>(
        kBriefTrain,
        {"cost", "cost", "S000-1.4", "device-hours x price", [](const T& x) { return money(x.r.cost.value_or(0.0)); },
         [](const T& x) { return fmt::format("{} x {}", num(*x.r.device_hours), num(*x.t().price_per_device_hour)); },
         nullptr, [](const T& x) { return x.r.cost.has_value(); }}),
    {"optimizer_step_bytes", "optimizer step memory traffic", "RA20-3.1",
     "Psi_o (g + 2 o + w): read g and o, write o and w", [](const T& x) { return cell(x.r.optimizer_step_bytes); },
     [](const T& x) {
       return fmt::format("{} x ({} + 2 x {} + {})", num(x.r.optimizer_params), num(x.r.recipe->gradients),
                          num(x.r.recipe->optimizer), num(x.r.recipe->weights));
     }},
    {"optimizer_step_time_s", "  at memory bandwidth", "WI09", "bytes / BW_mem",
     [](const T& x) { return cell(x.r.optimizer_step_time); },
     [](const T& x) {
       return x.r.optimizer_step_time ? fmt::format("{} / {}", num(x.r.optimizer_step_bytes), num(x.r.memory_bandwidth))
                                      : std::string();
     }},
};

// What a collective's V bytes cost: V / B_eff + latency, B_eff the group's bus bandwidth at the
// protocol's share (what the time less its latency says).
std::string link_time(units::Bytes bytes, const std::optional<units::Seconds>& time, units::Seconds latency) {
  if (!time || bytes.base() <= 0.0) return time ? std::string("0") : std::string();
  const units::Seconds transfer = *time - latency;
  const units::BytesPerSecond eff{transfer.base() > 0.0 ? bytes.base() / transfer.base() : 0.0};
  return fmt::format("{} / {} + {}", num(bytes), num(eff), num(latency));
}

const Topology& topology(const T& x) { return x.in.scenario.accelerator->system; }

// The tier a group's collectives end on: the scale-out network when it spans domains.
std::string over(const T& x, const GroupLinks& g) {
  const Topology& t = topology(x);
  const Link& l = g.spans && t.has_across ? t.across : t.inside;
  return std::string(l.kind == LinkKind::pcie ? "  over " : "  over the ") + std::string(link_kind_name(l.kind));
}

// Where a group's members sit and what each link gives.
std::string placement(const T& x, const GroupLinks& g, const char* what) {
  return group_placement_text(topology(x), g, what);
}

bool on_topology(const T& x) {
  return x.in.scenario.accelerator.has_value() && x.in.scenario.accelerator->system.inside.bandwidth.base() > 0.0;
}
bool on_torus(const T& x) { return on_topology(x) && !topology(x).torus.empty(); }

constexpr const char* kOverFormula =
    "V / B_eff + latency: the group's hierarchical ring (reduce-scatter inside, all-reduce of M/k across, "
    "all-gather inside), NCCL's fixed and per-step costs, the cheaper of its LL and Simple protocols";
constexpr const char* kBusFormula =
    "B_bus = 2 (n - 1)/n / max(2 (k - 1)/k / B_in, 2 (m - 1)/m / (k B_out)), k members a domain, m domains";

const std::vector<Field<T>> kComm = {
    {"dp_allreduce_bytes", "", "RA20-7",
     "2 (N_s - 1)/N_s Psi g (ZeRO-3: 1.5x), Psi the trained parameters, N_s = d or the shard group (x c with context "
     "parallelism); LoRA under ZeRO-3: "
     "+ 2 (d - 1)/d M_base "
     "(gathered forward and backward)",
     [](const T& x) { return cell(x.r.dp_allreduce_bytes); },
     [](const T& x) {
       const bool z3 = x.r.zero == ZeroStage::os_g_p;
       std::string text =
           fmt::format("{}2 x ({} - 1)/{} x {} x {}", z3 ? "1.5 x " : "", x.r.shard_group, x.r.shard_group,
                       num(x.r.lora ? x.r.adapter_params : x.r.device_params), num(x.r.recipe->gradients));
       if (x.r.lora && z3) {
         text += fmt::format(" + 2 x ({} - 1)/{} x {}", x.r.shard_group, x.r.shard_group,
                             num(x.r.base_bytes * static_cast<double>(x.r.shard_group)));
       }
       return text;
     },
     nullptr, nullptr,
     [](const T& x) {
       return std::string(x.r.zero == ZeroStage::os_g_p ? "ZeRO-3 gathers and scatters per step"
                                                        : "gradient all-reduce per step");
     }},
    {"dp_allreduce_time_s", "  over the link", "NC24", kOverFormula,
     [](const T& x) { return cell(x.r.dp_allreduce_time); },
     [](const T& x) { return link_time(x.r.dp_allreduce_bytes, x.r.dp_allreduce_time, x.r.dp_latency); },
     [](const T& x) { return placement(x, x.r.dp_links, "the data-parallel group"); }, nullptr,
     [](const T& x) { return on_topology(x) ? over(x, x.r.dp_links) : std::string("  over the link"); }},
    {"dp_bus_bandwidth_bytes_per_s", "  bus bandwidth", "NC24", kBusFormula,
     [](const T& x) { return cell(x.r.dp_links.bus_bandwidth); },
     [](const T& x) { return bus_bandwidth_text(x.r.dp_links); }, nullptr,
     [](const T& x) { return on_topology(x) && !on_torus(x) && x.r.dp_links.placement.ranks > 1.0; }},
    {"cross_group_allreduce_bytes", "gradient shard across groups", "ZH23",
     "2 (R - 1)/R (Psi / N_s) g, R = d / N_s groups", [](const T& x) { return cell(x.r.cross_group_bytes); },
     [](const T& x) {
       const std::int64_t groups = x.r.data * x.r.context / x.r.shard_group;
       return fmt::format("2 x ({} - 1)/{} x {} / {} x {}", groups, groups,
                          num(x.r.lora ? x.r.adapter_params : x.r.device_params), x.r.shard_group,
                          num(x.r.recipe->gradients));
     },
     nullptr, sharded_in_groups},
    {"cross_group_allreduce_time_s", "  over the link", "NC24", kOverFormula,
     [](const T& x) { return cell(x.r.cross_group_time); },
     [](const T& x) { return link_time(x.r.cross_group_bytes, x.r.cross_group_time, x.r.cross_latency); },
     [](const T& x) { return placement(x, x.r.cross_links, "the groups' shards"); }, sharded_in_groups,
     [](const T& x) { return on_topology(x) ? over(x, x.r.cross_links) : std::string("  over the link"); }},
    {"tp_bytes", "tensor-parallel traffic per step", "KO22-4.2.2",
     "4 x 2 (t - 1)/t s b h e per layer and micro-batch (x 1.5 with full recomputation)",
     [](const T& x) { return cell(x.r.tp_bytes); },
     [](const T& x) {
       return fmt::format("4 x 2 x ({} - 1)/{} x {} x {} x {} x {} x {} x {}{}", x.r.tensor, x.r.tensor, seq_text(x),
                          x.t().micro_batch, x.in.scenario.model.d_model,
                          num(dtype_bytes(x.in.scenario.workload.activation_dtype)), num(x.r.max_stage_layers),
                          x.t().grad_accum, x.t().recompute == Recompute::full ? " x 1.5" : "");
     }},
    {"tp_time_s", "  over the link", "NC24", kOverFormula, [](const T& x) { return cell(x.r.tp_time); },
     [](const T& x) { return link_time(x.r.tp_bytes, x.r.tp_time, x.r.tp_latency); },
     [](const T& x) {
       return placement(x, x.r.tp_links, "the tensor-parallel group") +
              fmt::format("; {} collectives a step, {} of it latency", num(x.r.tp_collectives),
                          display(x.r.tp_latency.base(), Unit::seconds, UnitSystem::si));
     },
     nullptr, [](const T& x) { return on_topology(x) ? over(x, x.r.tp_links) : std::string("  over the link"); }},
    {"tp_bus_bandwidth_bytes_per_s", "  bus bandwidth", "NC24", kBusFormula,
     [](const T& x) { return cell(x.r.tp_links.bus_bandwidth); },
     [](const T& x) { return bus_bandwidth_text(x.r.tp_links); }, nullptr,
     [](const T& x) { return on_topology(x) && !on_torus(x) && x.r.tensor > 1; }},
    {"tp_ridge_flop_per_byte", "  interconnect ridge", "WI09", "P_peak / B_bus: FLOPs a byte all-reduced must pay for",
     [](const T& x) {
       return cell(units::FlopPerByte{interconnect_ridge(*device_peak(x.in.scenario), x.r.tp_links.bus_bandwidth)});
     },
     [](const T& x) { return fmt::format("{} / {}", peak_text(x), num(x.r.tp_links.bus_bandwidth)); },
     [](const T&) {
       return std::string(
           "tensor parallelism stays compute-bound while the matmuls do more FLOPs per byte they "
           "all-reduce than this");
     },
     [](const T& x) {
       return on_topology(x) && x.r.tensor > 1 && device_peak(x.in.scenario).has_value() &&
              x.r.tp_links.bus_bandwidth.base() > 0.0;
     }},
    {"tp_flop_per_byte", "  FLOPs per byte all-reduced", "KO22-4.2.2",
     "F_executed / (G V_TP): a device's FLOPs a step over its tensor-parallel bytes",
     [](const T& x) {
       return cell(units::FlopPerByte{x.r.hardware_flops_per_step.base() / static_cast<double>(x.r.devices) /
                                      x.r.tp_bytes.base()});
     },
     [](const T& x) {
       return fmt::format("{} / ({} x {})", num(x.r.hardware_flops_per_step), num(x.r.devices), num(x.r.tp_bytes));
     },
     nullptr, [](const T& x) { return on_topology(x) && x.r.tensor > 1 && x.r.tp_bytes.base() > 0.0; }},
    {"pp_bytes", "pipeline sends per step", "NA21-4.1", "2 v m s b h e (/ t with SP)",
     [](const T& x) { return cell(x.r.pp_bytes); },
     [](const T& x) {
       return fmt::format("2 x {} x {} x {} x {} x {} x {} / {}", x.r.chunks, x.t().grad_accum, seq_text(x),
                          x.t().micro_batch, x.in.scenario.model.d_model,
                          num(dtype_bytes(x.in.scenario.workload.activation_dtype)),
                          x.r.sequence_parallel ? x.r.tensor : 1);
     },
     nullptr, pipelined},
    {"pp_time_s", "  over the link", "NC24", "V / (B_link share) + sends x latency: each hand-off one send",
     [](const T& x) { return cell(x.r.pp_time); },
     [](const T& x) { return link_time(x.r.pp_bytes, x.r.pp_time, x.r.pp_latency); },
     [](const T& x) {
       if (!on_topology(x)) return std::string();
       return fmt::format("{} sends a step at {}; stage neighbours are {} = {} ranks apart, {}", num(x.r.pp_sends),
                          rate_text(x.r.pp_link), x.r.context > 1 ? "t c d" : "t d",
                          x.r.tensor * x.r.context * x.r.data, x.r.pp_spans ? "in different domains" : "in one domain");
     },
     pipelined,
     [](const T& x) {
       if (!on_topology(x)) return std::string("  over the link");
       return std::string(x.r.pp_kind == LinkKind::pcie ? "  over " : "  over the ") +
              std::string(link_kind_name(x.r.pp_kind));
     }},
    {"ep_bytes", "expert all-to-all per step", "LE21", "4 k s b h e (e_p - 1)/e_p per MoE layer and micro-batch",
     [](const T& x) { return cell(x.r.ep_bytes); },
     [](const T& x) {
       return fmt::format("4 x {} x {} x {} x {} x {} x ({} - 1)/{} x {} x {}", x.in.scenario.model.moe.top_k,
                          seq_text(x), x.t().micro_batch, x.in.scenario.model.d_model,
                          num(dtype_bytes(x.in.scenario.workload.activation_dtype)), x.r.expert, x.r.expert,
                          num(x.r.moe_layers_per_stage), x.t().grad_accum);
     },
     [](const T& x) { return fmt::format("{} MoE layers a stage", num(x.r.moe_layers_per_stage)); },
     [](const T& x) { return x.r.expert > 1; }},
    {"ep_time_s", "  over the link", "LE21",
     "V / B_eff + latency: max((k - 1)/n M / B_in, (n - k)/n M / B_out) an all-to-all, the links at once",
     [](const T& x) { return cell(x.r.ep_time); },
     [](const T& x) { return link_time(x.r.ep_bytes, x.r.ep_time, x.r.ep_latency); },
     [](const T& x) { return placement(x, x.r.ep_links, "the expert-parallel group"); },
     [](const T& x) { return x.r.expert > 1; },
     [](const T& x) { return on_topology(x) ? over(x, x.r.ep_links) : std::string("  over the link"); }},
    {"cp_bytes", "context-parallel K, V ring per step", "LI23-3",
     "3 (c - 1) (4 with full recomputation) sends of (s/c) b (w_k + w_v) e / min(t, h_kv) per attention layer and "
     "micro-batch",
     [](const T& x) { return cell(x.r.cp_bytes); },
     [](const T& x) { return fmt::format("{} x {}", num(x.r.cp_sends), num(x.r.cp_block_bytes)); },
     [](const T& x) { return fmt::format("{} sends a step, one K, V block each", num(x.r.cp_sends)); }, context},
    {"cp_time_s", "  over the link", "NC24", "V / B_link + sends x latency: each ring step one send",
     [](const T& x) { return cell(x.r.cp_time); },
     [](const T& x) { return link_time(x.r.cp_bytes, x.r.cp_time, x.r.cp_latency); },
     [](const T& x) { return placement(x, x.r.cp_links, "the context-parallel ring"); },
     [](const T& x) { return context(x) && on_topology(x); }, [](const T& x) { return over(x, x.r.cp_links); }},
    {"cp_attention_time_s", "  attention core it overlaps", "LI23-3",
     "A x (3, or 4 with recomputation) x tokens / (G P_peak): each block's send hides behind the core on the last",
     [](const T& x) { return cell(x.r.cp_attention_time); }, nullptr, nullptr,
     [](const T& x) { return context(x) && x.r.cp_attention_time.has_value(); }},
    {"cp_exposed_s", "  exposed", "LI23-3", "max(0, t_CP - t_attn)", [](const T& x) { return cell(x.r.cp_exposed); },
     [](const T& x) {
       return fmt::format("max(0, {:.9g} - {:.9g})", x.r.cp_time->base(), x.r.cp_attention_time->base());
     },
     nullptr, [](const T& x) { return context(x) && x.r.cp_exposed.has_value(); }},
    {"pipeline_bubble_fraction", "pipeline bubble, share of the step", "NA21-2.2", "(p - 1) / (v m + p - 1)",
     [](const T& x) { return cell(units::Fraction{x.r.bubble_fraction}); },
     [](const T& x) {
       return fmt::format("({} - 1) / ({} x {} + {} - 1)", x.r.pipeline, x.r.chunks, x.t().grad_accum, x.r.pipeline);
     }},
    {"pipeline_bubble_overhead_fraction", "  over the ideal time (Megatron)", "NA21-2.2", "(p - 1) / (v m)",
     [](const T& x) { return cell(units::Fraction{x.r.bubble_overhead}); },
     [](const T& x) { return fmt::format("({} - 1) / ({} x {})", x.r.pipeline, x.r.chunks, x.t().grad_accum); },
     [](const T&) {
       return std::string("the convention of Megatron-LM and the Llama 3 report: bubble time over the ideal time");
     }},
    {"compute_time_at_peak_s", "compute at the peak", "WI09", "t_compute = F_executed / (G P_peak)",
     [](const T& x) { return cell(x.r.compute_time); },
     [](const T& x) {
       return fmt::format("{} / ({} x {})", num(x.r.hardware_flops_per_step), num(x.r.devices), peak_text(x));
     },
     nullptr, has_floor},
    {"stage_imbalance", "slowest stage over the mean", "DU24-3.3.2",
     "max_i W_i / (sum_i W_i / p), W_i = 2 N_active of stage i's layers + their attention core (+ 2 V h, the head, "
     "on the last)",
     [](const T& x) { return cell(units::Ratio{x.r.stage_imbalance}); }, nullptr,
     [](const T&) { return std::string("a pipeline steps at its slowest stage's pace"); },
     [](const T& x) { return has_floor(x) && pipelined(x); }},
    {"slowest_stage_compute_s", "  compute of the slowest stage", "DU24-3.3.2", "t_stage = t_compute x imbalance",
     [](const T& x) { return cell(x.r.slowest_stage_compute); },
     [](const T& x) { return fmt::format("{} x {}", num(*x.r.compute_time), num(x.r.stage_imbalance)); }, nullptr,
     [](const T& x) { return has_floor(x) && pipelined(x); }},
    {"exposed_comm_s", "communication not hidden", "NA21-2.3",
     "t_TP + t_EP + t_PP + t_CP,exposed + max(0, t_DP - t_bwd), t_bwd = 2/3 t_stage: data-parallel collectives "
     "overlap the backward, the rest is on the critical path",
     [](const T& x) { return cell(x.r.exposed_comm); },
     [](const T& x) {
       const units::Seconds dp = *x.r.dp_allreduce_time + x.r.cross_group_time.value_or(units::Seconds{});
       // The two terms of the difference at 9 digits: they may nearly cancel.
       return fmt::format("{} + {} + {} + {} + max(0, {:.9g} - {:.9g})", num(*x.r.tp_time), num(*x.r.ep_time),
                          num(*x.r.pp_time), num(x.r.cp_exposed.value_or(units::Seconds{})), dp.base(),
                          x.r.backward_time->base());
     },
     nullptr, has_floor},
    {"dp_comm_bound_batch_sequences", "  smallest batch that hides it", "RA20-7",
     "B_d* = B_d x t_DP / t_bwd: the backward grows with the batch a replica computes, t_DP does not",
     [](const T& x) { return number(*x.r.dp_bound_batch); },
     [](const T& x) {
       const units::Seconds dp = *x.r.dp_allreduce_time + x.r.cross_group_time.value_or(units::Seconds{});
       return fmt::format("{} x {:.9g} / {:.9g}",
                          num(static_cast<double>(x.r.global_batch) / static_cast<double>(x.r.data)), dp.base(),
                          x.r.backward_time->base());
     },
     [](const T& x) {
       return fmt::format(
           "sequences a data-parallel replica computes per step ({} now) below which the "
           "gradient collectives outlast the backward and the step turns communication-bound",
           num(static_cast<double>(x.r.global_batch) / static_cast<double>(x.r.data)));
     },
     [](const T& x) { return has_floor(x) && x.r.dp_bound_batch.has_value(); }},
    in_sweep<T>(kSweepTrains, "step floor",
                in_brief<T>(kBriefTrain, {"step_time_floor_s", "step time floor", "NA21-2.2",
                                          "t_stage (1 + (p - 1)/(v m)) + t_exposed + t_optimizer",
                                          [](const T& x) { return cell(x.r.step_floor); },
                                          [](const T& x) {
                                            return fmt::format("{} x (1 + {}) + {} + {}",
                                                               num(*x.r.slowest_stage_compute),
                                                               num(x.r.bubble_overhead), num(*x.r.exposed_comm),
                                                               num(*x.r.optimizer_step_time));
                                          },
                                          nullptr, has_floor})),
    in_sweep<T>(
        kSweepTrains, "MFU ceiling",
        in_brief<T>(kBriefTrain, {"mfu_ceiling_fraction", "MFU ceiling", "CH22-B", "F_model / (G P_peak t_floor)",
                                  [](const T& x) { return cell(x.r.mfu_ceiling); },
                                  [](const T& x) {
                                    return fmt::format("{} / ({} x {} x {})", num(x.r.convention_flops_per_step),
                                                       num(x.r.devices), peak_text(x), num(*x.r.step_floor));
                                  },
                                  nullptr, has_floor})),
};

}  // namespace

// The training inputs as resolved, every default filled in, for scripts (inputs.training).
nlohmann::json training_inputs(const TrainingInputs& t, const std::string& currency) {
  const auto opt = [](const auto& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
  nlohmann::json lora;
  if (t.lora) {
    lora = {{"rank", t.lora->rank}, {"qlora", t.lora->qlora}};
    nlohmann::json targets = nlohmann::json::array();
    for (const LoraTargetName& n : kLoraMatrixTargets) {
      if (has_target(t.lora->targets, n.target)) targets.push_back(n.name);
    }
    lora["targets"] = targets;
  }
  return {{"micro_batch", t.micro_batch},
          {"seq_tokens", t.seq_len},
          {"grad_accum", t.grad_accum},
          {"zero_stage", static_cast<int>(t.zero)},
          {"optimizer", recipe_bytes(t.recipe).name},
          {"recompute", recompute_name(t.recompute)},
          {"recompute_every", t.recompute_every},
          {"pipeline_chunks", t.pipeline_chunks},
          {"shard_group", t.shard_group > 0 ? nlohmann::json(t.shard_group) : nlohmann::json()},
          {"flash_attention", t.flash_attention},
          {"dropout", t.dropout},
          {"model_flops", text::name_of(t.model_flops)},
          {"hfu", opt(t.hfu)},
          {"measured_step_time_s", opt(t.measured_step_time_s)},
          {"price_per_device_hour", opt(t.price_per_device_hour)},
          {"currency", currency.empty() ? nlohmann::json() : nlohmann::json(currency)},
          {"lora", lora},
          {"compute_budget_flops", t.budget ? nlohmann::json(t.budget->budget_flops) : nlohmann::json()},
          {"scaling_fit", t.budget ? nlohmann::json(text::name_of(t.budget->chosen)) : nlohmann::json()}};
}

void train_warnings(const TrainResult& r, const TrainingInputs& in, std::vector<std::string>& warnings) {
  if (r.state_mixer_layers > 0.0) {
    warnings.push_back(
        fmt::format("activations: the state mixers of {} layers (Mamba, DeltaNet, short conv, lightning attention) are "
                    "not counted; the activation memory is a lower bound",
                    num(r.state_mixer_layers)));
  }
  if (!r.mfu_measured || !(r.mfu_measured->base() > 1.0)) return;
  // The flag that was given, and the MFU as a number only when it is one: a rate of 1e308 tokens/s
  // gives an infinite MFU, which the tables print as n/a and a warning must not print as inf (N16).
  const double percent = r.mfu_measured->base() * 100.0;
  const std::string mfu = std::isfinite(percent) ? num(percent) + " %" : "more than 10^308 %";
  const std::string given = in.measured_step_time_s
                                ? fmt::format("--measured-step-time {} s", num(*in.measured_step_time_s))
                                : fmt::format("--measured-tokens-per-s {}", num(*r.measured_tokens_per_s));
  warnings.push_back(
      fmt::format("{} is faster than the devices' peak (MFU {}): check the rate and --gpus", given, mfu));
}

void sweep_figures(const Subject& given, const TrainAnswer& a, SweepFigures& f) {
  const TrainResult& r = a.train;
  // --best-layout: the row is the best layout's, as the full report is.
  const Subject in = with_scenario(given, a.searched ? *a.searched : given.scenario);
  const T x{in, r};
  SweepCells s(a.search ? kSweepTrainSearch : kSweepTrain, f);
  if (a.search) add_layout_search_cells(s, in, *a.search);
  s.add("train_memory", kMemory, x).add("train_compute", kCompute, x).add("train_comm", kComm, x);
  sweep_cells(s, a.fit);
  f.fit = a.fit;
  f.warnings.clear();
  train_warnings(r, in.scenario.training, f.warnings);
}

void add_train(Report& rep, const Subject& in, const TrainResult& r, const ViewOptions& view) {
  const T x{in, r};
  if (r.cost) rep.notes.push_back(currency_note(rep.currency));
  if (rep.inputs) {
    nlohmann::json inputs = *rep.inputs;
    inputs["training"] = training_inputs(in.scenario.training, in.currency);
    rep.inputs = std::make_shared<const nlohmann::json>(std::move(inputs));
  }
  rep.sections.push_back(make_section("layout", "Layout", kLayout, x, view));
  rep.sections.push_back(make_section("train_memory", "Memory per device", kMemory, x, view));
  if (in.scenario.architecture) {
    rep.sections.push_back(make_section("train_layer_activations",
                                        r.layer_terms_moe ? "Activations of one MoE layer, one micro-batch"
                                                          : "Activations of one layer, one micro-batch",
                                        kLayerTerms, x, view));
  }
  rep.sections.push_back(make_section("train_compute", "Compute, time and cost", kCompute, x, view));
  rep.sections.push_back(make_section("train_comm", "Communication per step, and what overlaps", kComm, x, view));
  train_warnings(r, in.scenario.training, rep.warnings);
  rep.notes.emplace_back(
      "the step time is the compute at the stated utilisation, which (measured end to end) already holds the "
      "communication, the bubble and the optimizer step; the step time floor adds them to the compute at the peak "
      "instead, data-parallel collectives hidden behind the backward and the rest on the critical path");
}

// --brief: memory per device and the fit, the step, the time and cost to train, the MFU ceiling.
const Brief kTrainBrief{"train", kBriefTrain};

}  // namespace roofline::format
