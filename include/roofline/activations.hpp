// Training activations: the bytes a layer keeps from its forward pass for the backward pass.
// Korthikanti et al.'s Table 2 exactly, a per-term generalisation to real models (GQA/MQA, MLA,
// gated MLPs, MoE, RMSNorm, no dropout, flash attention), the logits and the loss, and the first
// pipeline stage under 1F1B. Symbols as in KO22: s sequence length, b micro-batch, h hidden width,
// a attention heads, t tensor-parallel size, all in 16-bit activations unless a byte size is given.
#pragma once

#include "roofline/layer_stack.hpp"
#include "roofline/model_config.hpp"
#include "roofline/units.hpp"

#include <cstdint>

namespace roofline {

// ---- KO22 Table 2: activation bytes per transformer layer (16-bit activations) ---------------
// Products are taken in double: s*b*h*a*s passes 2^63 for long contexts.

/// sbh (34 + 5as/h), no parallelism  [KO22 Table 2, eq. 1]
constexpr units::Bytes ko22_layer_activations(double s, double b, double h, double a) {
  return units::Bytes{s * b * h * (34.0 + 5.0 * a * s / h)};
}

/// sbh (10 + 24/t + 5as/(ht)), tensor parallel  [KO22 Table 2, eq. 2]
constexpr units::Bytes ko22_layer_activations_tp(double s, double b, double h, double a, double t) {
  return units::Bytes{s * b * h * (10.0 + 24.0 / t + 5.0 * a * s / (h * t))};
}

/// sbh (34/t + 5as/(ht)), tensor + sequence parallel  [KO22 Table 2, eq. 4]
constexpr units::Bytes ko22_layer_activations_tp_sp(double s, double b, double h, double a, double t) {
  return units::Bytes{s * b * h * (34.0 / t + 5.0 * a * s / (h * t))};
}

/// sbh (10 + 24/t), tensor parallel + selective activation recomputation  [KO22 Table 2]
constexpr units::Bytes ko22_layer_activations_tp_selective(double s, double b, double h, double t) {
  return units::Bytes{s * b * h * (10.0 + 24.0 / t)};
}

/// sbh (34/t), tensor + sequence parallel + selective activation recomputation  [KO22 Table 2]
constexpr units::Bytes ko22_layer_activations_tp_sp_selective(double s, double b, double h, double t) {
  return units::Bytes{s * b * h * (34.0 / t)};
}

/// 2 sbh, full activation recomputation (only the layer input is kept)  [KO22 Table 2]
constexpr units::Bytes ko22_layer_activations_full_recompute(double s, double b, double h) {
  return units::Bytes{2.0 * s * b * h};
}

// ---- The generalised per-layer breakdown ---------------------------------------------------------

enum class Recompute { none, selective, full };

/// How one micro-batch is trained: the inputs of layer_activations.
struct ActivationOptions {
  double seq_len = 0.0;          ///< s, tokens per sequence
  double micro_batch = 1.0;      ///< b, sequences per micro-batch
  double tensor_parallel = 1.0;  ///< t
  /// c: context parallelism splits each sequence over c ranks, s/c of its tokens a rank (ring
  /// attention: a rank's s/c queries see all s keys)  [LI23 §3]
  double context_parallel = 1.0;
  bool sequence_parallel = false;
  bool flash_attention = false;
  bool dropout = false;  ///< attention-probability, attention-output and MLP-output dropout
  Recompute recompute = Recompute::none;
  double bytes_per_element = 2.0;   ///< activation dtype (2: bf16/fp16)
  double dropout_mask_bytes = 1.0;  ///< one byte per mask element
};

/// The widths of one layer's tensors the backward keeps, per token: w_q = h d_h, w_k = w_v = h_kv d_h,
/// w_o = w_q (MLA: w_q = w_k = h (d_nope + d_R), w_v = w_o = h d_v, latents 2 r_q + 2 d_c + d_R);
/// f = d_ff, or in an MoE layer k d_fe + E_s d_fs; k the routed copies (0 in a dense layer)  [KO22 §4.1] [DS24]
struct LayerWidths {
  std::int64_t w_q = 0, w_k = 0, w_v = 0, w_o = 0;
  std::int64_t latents = 0;  ///< MLA only
  std::int64_t f = 0;
  std::int64_t k = 0;
};
LayerWidths layer_widths(const ModelConfig& m, bool moe_layer);
/// The same for attention of head shape `shape` (a Gemma 4 global layer's own).
LayerWidths layer_widths(const ModelConfig& m, bool moe_layer, HeadShape shape);

/// Bytes one layer keeps for its backward, per device, term by term (docs/formulas.md, "Training
/// activations", gives each coefficient and its origin in KO22 §4.1). A term a configuration does
/// not have is 0. "Replicated" terms are divided by t only under sequence parallelism.
struct LayerActivations {
  units::Bytes norm_inputs;             ///< n_norm s b h e: each norm keeps its input (replicated)
  units::Bytes attn_input;              ///< s b h e: norm output, input of the Q/K/V projections (replicated)
  units::Bytes mla_latents;             ///< MLA: s b (2 r_q + 2 d_c + d_R) e, the latents and their norm outputs
  units::Bytes qk_norm_inputs;          ///< q/k norms: s b (w_q + w_k) e / t
  units::Bytes query;                   ///< s b w_q e / t (MLA: h (d_nope + d_R))
  units::Bytes key;                     ///< s b w_k e / t (GQA/MQA: h_kv d_h; MLA: h (d_nope + d_R))
  units::Bytes value;                   ///< s b w_v e / t (GQA/MQA: h_kv d_h; MLA: h d_v)
  units::Bytes softmax_output;          ///< a s^2 b e / t (not with flash attention)
  units::Bytes softmax_dropout_mask;    ///< a s^2 b m / t (dropout on, no flash attention)
  units::Bytes softmax_dropout_output;  ///< a s^2 b e / t (dropout on, no flash attention)
  units::Bytes softmax_stats;           ///< flash attention: 4 a s b / t (fp32 log-sum-exp)
  units::Bytes attn_output;             ///< s b w_o e / t: input of o_proj (w_o = h d_h, MLA h d_v)
  units::Bytes attn_dropout_mask;       ///< s b h m (replicated; dropout on)
  units::Bytes mlp_input;               ///< s b h e: norm output, input of up/gate (replicated; 0 in a parallel block)
  units::Bytes moe_dispatched_input;    ///< MoE: k s b h e, the input copy each routed expert keeps (replicated)
  units::Bytes mlp_gate_output;         ///< gated: s b f e / t
  units::Bytes mlp_up_output;           ///< s b f e / t (plain: the GeLU input)
  units::Bytes mlp_activation_output;   ///< s b f e / t: the input of down_proj
  units::Bytes mlp_dropout_mask;        ///< s b h m (replicated; dropout on)
  units::Bytes layer_input;             ///< full recomputation: s b h e, the checkpointed residual stream

  /// The sum of every term.
  [[nodiscard]] units::Bytes total() const;
};

/// Per-layer activation bytes of a dense layer (moe_layer = false) or an MoE layer: KO22 §4.1's
/// 11sbh + 5as^2b (attention) + 19sbh (MLP) + 4sbh (norms), generalised term by term; reduces to
/// Table 2 for MHA, a plain d_ff = 4h MLP, two LayerNorms, dropout on, no flash attention
/// [KO22 §4.1, Table 2] [DA22]
LayerActivations layer_activations(const ModelConfig& m, const ActivationOptions& o, bool moe_layer);

/// The same for one layer kind of the stack: its norms, the attention terms only in a kind with
/// attention, the MLP terms only in one with an FFN (at its own width); a state mixer's tensors
/// (Mamba, DeltaNet, short conv, lightning) are not counted, a lower bound for such a kind
/// [KO22 §4.1]
LayerActivations layer_activations(const ModelConfig& m, const ActivationOptions& o, const LayerKind& kind);

/// Activation bytes of every layer of the model: sum over the stack's kinds of count x
/// layer_activations(kind)  [KO22 §4.1]
units::Bytes model_layer_activations(const ModelConfig& m, const ActivationOptions& o);

// ---- Logits and loss ----------------------------------------------------------------------------

/// The output head's activations for one micro-batch, per device.
struct LogitsActivations {
  units::Bytes logits;     ///< s b V e / t: the head's output in the compute dtype (derived)
  units::Bytes loss_fp32;  ///< 4 s b V / t: the fp32 logits the softmax cross-entropy keeps [KO22 §4.3]
  [[nodiscard]] constexpr units::Bytes total() const { return logits + loss_fp32; }
};

/// s b V e / t + 4 s b V / t; t = 1 when the head is not vocab-parallel  [KO22 §4.3] (derived)
constexpr LogitsActivations logits_activations(double s, double b, double vocab, double bytes_per_element, double t) {
  return {.logits = units::Bytes{s * b * vocab * bytes_per_element / t},
          .loss_fp32 = units::Bytes{s * b * vocab * 4.0 / t}};
}

// ---- Pipeline parallelism -----------------------------------------------------------------------

/// 1F1B: the first stage keeps p micro-batches in flight: M_layer (L/p) p  [KO22 §4.2.3] [NA21]
constexpr units::Bytes activations_first_stage(units::Bytes per_layer, double layers_per_stage, double p) {
  return per_layer * (layers_per_stage * p);
}

/// Micro-batches whose activations pipeline rank r (0 first) holds at its peak, in units of its
/// whole stage: 1F1B p - r; interleaved with v chunks per device (2 (p - r - 1) + (v - 1) p + 1)/v,
/// which is p (1 + (p - 1)/(p v)) on the first rank  [NA21 §2.2] [KO22 §4.2.3]
constexpr double pipeline_in_flight(double p, double v, double rank) {
  if (v <= 1.0) return p - rank;
  return (2.0 * (p - rank - 1.0) + (v - 1.0) * p + 1.0) / v;
}

/// Embedding-layer activations of one micro-batch: the input dropout's mask, s b h m (/ t with
/// sequence parallelism); nothing without dropout (the lookup's backward needs only the ids)  [KO22 §4.3]
constexpr units::Bytes embedding_activations(double s, double b, double h, double mask_bytes, bool dropout,
                                             double split) {
  return dropout ? units::Bytes{s * b * h * mask_bytes / split} : units::Bytes{};
}

}  // namespace roofline
