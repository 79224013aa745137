// One decoder layer operator by operator: the FLOPs, weight, activation and KV bytes of every
// operator of a prefill or decode pass, in execution order. The counts come from count_params's
// components and the attention, KV and recurrent-state functions the whole-model commands use,
// split by operator, so the rows of every layer kind (attention, Mamba, Gated DeltaNet, mllama's
// cross-attention; dense, MoE or no FFN) plus the head sum to what decode_step and prefill_pass count.
#pragma once

#include "roofline/layer_stack.hpp"
#include "roofline/model_config.hpp"
#include "roofline/params.hpp"
#include "roofline/units.hpp"
#include "roofline/workload.hpp"

#include <cstdint>
#include <string_view>
#include <vector>

namespace roofline {

enum class Phase { prefill, decode };

/// What an operator is, which decides what fusion removes.
enum class OpKind {
  matmul,      ///< weights x activations (projections, experts, router, lm_head)
  attention,   ///< activations x keys or values (QK^T, attention x V): no weights
  norm,        ///< RMSNorm / LayerNorm: elementwise
  rope,        ///< rotary position embedding: elementwise
  softmax,     ///< over the score matrix
  activation,  ///< act(gate) x up, or act(up)
  residual,    ///< residual add
  combine,     ///< MoE: the weighted sum of the k expert outputs
  gather,      ///< the input embedding rows
  conv,        ///< a state mixer's depthwise causal conv1d: reads (decode) or writes (prefill) the conv state
  scan,        ///< a state mixer's recurrence (selective scan, SSD, gated delta rule): the recurrent state
};

/// One operator of one layer (or of the head) for one pass.
struct LayerOp {
  std::string_view id;    ///< stable key: "q_proj", "attention_scores", "residual_ffn", ...
  std::string_view name;  ///< as the table prints it
  OpKind kind = OpKind::matmul;
  double flop_params = 0.0;         ///< parameters one pass multiplies per token (2 FLOP each); attention: 0
  double weight_params = 0.0;       ///< parameters read (MoE experts: those the pass touches)
  units::Flop flops{};              ///< 2 flop_params n, or the attention core
  units::Bytes weight_bytes{};      ///< weight_params b_w
  units::Bytes activation_bytes{};  ///< activations read and written (what decode and prefill keep on chip)
  units::Bytes kv_bytes{};          ///< cache (or recurrent state) read (decode) or written (prefill)
  bool fused_away = false;          ///< traffic removed by fusion (the row is present, its bytes 0)
};

/// The tokens, sizes and conventions of one pass through a layer.
struct LayerPass {
  Phase phase = Phase::decode;
  bool fused = false;
  double sequences = 1.0;    ///< B
  double queries = 1.0;      ///< per sequence: S (prefill) or 1 (decode)
  double tokens = 1.0;       ///< n = B x queries, the rows every projection multiplies
  double context = 0.0;      ///< keys cached per sequence before the pass: T (decode), 0 (prefill)
  double head_tokens = 1.0;  ///< positions the lm_head multiplies: B, or B S with --lm-head all
  double weight_bits = 16.0;
  WeightLayout weights = WeightLayout::all(plain_weight_format(DType::bf16));  ///< each class's format
  double activation_bytes = 2.0;                                               ///< b
  double kv_bytes = 2.0;                                                       ///< b_kv
  double state_bytes = 2.0;  ///< a hybrid's conv and recurrent state per element (the KV dtype)
  AttentionMode attention = AttentionMode::causal;
  DecodeBytes decode_bytes = DecodeBytes::touched;
  MoeDecodeBytes moe_decode = MoeDecodeBytes::expected;
};

/// The pass a workload describes: prefill n = B S over a fresh cache, decode n = B at context T,
/// the head on B positions (B S under --lm-head all, prefill only)  [S004] [S003-2.5]
LayerPass layer_pass(const Workload& w, Phase phase, bool fused);

/// Query-key FLOPs per (query, key) pair of one layer: 2 w_qk, w_qk = h d_h, MLA h (d_nope + d_R)  [S003-2.3]
double attention_score_flops_per_pair(const ModelConfig& m);
/// The same for a layer of `kind`'s head width, or of head width d_h  [S003-2.3]
double attention_score_flops_per_pair(const ModelConfig& m, const LayerKind& kind);
double attention_score_flops_per_pair(const ModelConfig& m, std::int64_t head_dim);

/// Attention-value FLOPs per pair of one layer: 2 w_v, w_v = h d_h, MLA h d_v  [S003-2.3]
double attention_value_flops_per_pair(const ModelConfig& m);
/// The same for a layer of `kind`'s head width, or of head width d_h  [S003-2.3]
double attention_value_flops_per_pair(const ModelConfig& m, const LayerKind& kind);
double attention_value_flops_per_pair(const ModelConfig& m, std::int64_t head_dim);

/// Keys this layer caches at context T: min(T, W_l)  [S000-eq1.1]
double layer_cached_keys(const LayerKind& kind, double context);

/// Keys one query of this layer attends at context T: min(T, W_l), and of a sparse (DSA) layer
/// min(T, k)  [S000-eq1.1] [DS25]
double layer_attended_keys(const LayerKind& kind, double context);

/// Scores of one layer and sequence, unfused: h q k b (prefill q = k = S is S003's h S^2 b)  [S003-3.2]
constexpr units::Bytes score_bytes(double heads, double queries, double keys, double b) {
  return units::Bytes{heads * queries * keys * b};
}

/// Activations a matmul moves per token: read its input, write its output, (in + out) b; also any
/// operator that reads an in-wide input and writes an out-wide output once (conv1d, a scan)  [S002-intensity]
constexpr units::Bytes matmul_activation_bytes_per_token(double in, double out, double b) {
  return units::Bytes{(in + out) * b};
}

/// Embedding gather per token: write the e-wide row, e b (reading it is weight traffic)  [S003-2.5]
constexpr units::Bytes embedding_gather_bytes_per_token(double e, double b) { return units::Bytes{e * b}; }

/// MoE combine per token: read the k expert outputs and the shared experts' (s = 0 or 1), write
/// their weighted sum: (k + s + 1) d b  [SH17]
constexpr units::Bytes expert_combine_bytes_per_token(double k, double shared_outputs, double d, double b) {
  return units::Bytes{(k + shared_outputs + 1.0) * d * b};
}

/// Routed experts one MoE layer reads for n tokens, the factor params_read applies to E P_expert:
/// E (all-weights or all-experts), min(E, k) (top-k), E (1 - (1 - k/E)^n) (expected)  [S003-2.5] [SH17]
double experts_read(const ModelConfig& m, double tokens, DecodeBytes mode, MoeDecodeBytes moe_mode);

/// The operators of one layer of `kind`, in execution order: norms, Q/K/V (MLA: q_a/q_b, kv_a/kv_b),
/// RoPE, QK^T, softmax, attention x V, O, residual, FFN (MoE: router, routed and shared experts,
/// combine), residual. A hybrid's state mixer: Mamba-1 in_proj, conv1d, x_proj, dt_proj, the
/// selective scan, the z gate, out_proj; Mamba-2 in_proj, conv1d, the SSD scan, the gated norm,
/// out_proj; Gated DeltaNet in_proj_qkvz, in_proj_ba, conv1d, the delta rule, the gated norm,
/// out_proj; every FLOP 2 per parameter per token, the conv and recurrent state (state_bytes_per_layer)
/// in the KV column. mllama's cross-attention layers: the projections, q/k norms, gated residuals
/// and MLP, no attention core (the pass has no image tokens). Parameters from count_params's
/// components; attention FLOPs 2 w pairs (prefill: attention_pairs(S, W_l), decode: min(T, W_l));
/// elementwise bytes from misc.hpp
/// [S003-2.3] [S003-3.2] [S003-3.3] [S002-intensity] [DA22] [GU23] [DAO24] [YANG24]
std::vector<LayerOp> layer_ops(const ModelConfig& m, const ParamCounts& c, const LayerKind& kind, const LayerPass& p);

/// Elementwise bytes one token moves through a layer, unfused, the mean over the L layers: the
/// norm, RoPE, activation, residual-add and MoE combine rows of layer_ops at one decode token, so
/// report's per-layer figure and layer's rows are one model  [S003-3.3]
units::Bytes mean_layer_elementwise_bytes_per_token(const ModelConfig& m, const ParamCounts& c, double b);

/// The operators outside the layers, once: embedding gather (and positions), embedding norm,
/// projections in/out, final norm, lm_head on the head positions  [S003-2.5] [S004]
std::vector<LayerOp> head_ops(const ModelConfig& m, const ParamCounts& c, const LayerPass& p);

}  // namespace roofline
