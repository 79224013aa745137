// Inference memory: weights, KV cache, concurrency under a budget, elementwise traffic.
#pragma once

#include "roofline/model_config.hpp"
#include "roofline/params.hpp"
#include "roofline/units.hpp"
#include "roofline/weight_format.hpp"
#include "roofline/workload.hpp"

#include <cstdint>
#include <optional>

namespace roofline {

/// M_w = N b_w, b_w = bits / 8 (scales included in bits)  [S000-1.3]
constexpr units::Bytes weight_bytes(double params, double bits_per_weight) {
  return units::Bytes{params * bits_per_weight / 8.0};
}

/// KV elements one token adds to one layer: 2 h_kv d_h, or MLA's d_c + d_rope, plus a sparse
/// layer's indexer key d_I  [S000-eq1.1] [DS24] [DS25]
std::int64_t kv_elements_per_token_layer(const ModelConfig& m);

/// The attention's own share of it: 2 h_kv d_h, or d_c + d_rope (no indexer key)  [S000-eq1.1] [DS24]
std::int64_t attention_kv_elements_per_token_layer(const ModelConfig& m);

/// The same for an attention layer of head shape `shape`: 2 h_kv d_h (MLA: d_c + d_rope)  [S000-eq1.1]
std::int64_t attention_kv_elements_per_token_layer(const ModelConfig& m, HeadShape shape);

/// Attention layers split by span with their summed costs per key: E_g = sum of e_l over the L_g
/// global layers (cached elements per key; Gemma 4's of their own head shape), E_s over the L_s
/// sliding ones; A_g, A_s the FLOPs per (query, key) pair likewise. O(1).
struct AttentionSpans {
  LayerWindows windows;
  double global_elements = 0.0;   ///< E_g
  double sliding_elements = 0.0;  ///< E_s
  double global_flops = 0.0;      ///< A_g
  double sliding_flops = 0.0;     ///< A_s
  /// sum_l e_l min(T, W_l) = E_g T + E_s min(T, W)  [S000-eq1.1]
  [[nodiscard]] double elements(double context) const;
  /// sum_l a_l min(T, W_l) = A_g T + A_s min(T, W)  [S003-2.4]
  [[nodiscard]] double flops(double context) const;
};

/// The spans of `lw` (layer_windows or attention_windows of m) with their costs per key.
AttentionSpans attention_spans(const ModelConfig& m, const LayerWindows& lw);

/// The indexer key a DSA layer caches per token: d_I (0 for dense attention)  [DS25]
std::int64_t indexer_elements_per_token_layer(const ModelConfig& m);

/// The spans the attention core reads: layer_windows, except that every layer of a sparse-attention
/// (DSA) model reads min(T, k) selected keys, k = index_topk, however many it caches  [DS25]
LayerWindows attention_windows(const ModelConfig& m);

/// M_KV per token = b sum_l (2 h_kv,l d_h,l + d_I) over the attention layers (context under every
/// window)  [S000-eq1.1] [DS25]
units::Bytes kv_bytes_per_token(const ModelConfig& m, CacheBytes kv_bytes_per_element);

// ---- Hybrid and state-space layers (issue 10) -------------------------------------------------
/// Recurrent-state elements one sequence holds in one layer of mixer k: Mamba-1 d_i k_conv + d_i N;
/// Mamba-2 (d_i + 2 g N) k_conv + H P N; Gated DeltaNet (2 h_k d_k + h_v d_v) k_conv + h_v d_k d_v;
/// 0 without a state mixer  [GU23] [DAO24] [YANG24]
std::int64_t state_elements_per_layer(const ModelConfig& m, StateMixer k);

/// The recurrent part of S_l (no conv state): Mamba-1 d_i N, Mamba-2 H P N, Gated DeltaNet
/// h_v d_k d_v  [GU23] [DAO24] [YANG24]
std::int64_t recurrent_elements_per_layer(const ModelConfig& m, StateMixer k);

/// The state one sequence holds in one layer of mixer k, in bytes: the conv state b (S_l - R_l) and the
/// recurrent state b_s R_l, b_s the declared state dtype (HybridConfig::state_dtype), else b  [GU23] [DAO24] [YANG24]
struct LayerStateBytes {
  units::Bytes conv{};       ///< b (S_l - R_l)
  units::Bytes recurrent{};  ///< b_s R_l
};
LayerStateBytes state_bytes_per_layer(const ModelConfig& m, StateMixer k, CacheBytes kv_bytes_per_element);

/// M_S per sequence = sum_l (b (S_l - R_l) + b_s R_l) over the state layers, constant in T: the conv
/// state in the KV dtype (b), the recurrent state R_l in the model's declared state dtype b_s
/// (HybridConfig::state_dtype), else b  [GU23] [DAO24] [YANG24]
units::Bytes state_bytes_per_sequence(const ModelConfig& m, CacheBytes kv_bytes_per_element);
// ---- end hybrid --------------------------------------------------------------------------------

/// The attention layers' KV of one sequence: M_KV,attn(T) = b sum_l 2 h_kv d_h min(T, W_l), 0 without
/// attention, O(1) through layer_windows  [S000-eq1.1]
units::Bytes attention_kv_bytes_per_sequence(const ModelConfig& m, double context, CacheBytes kv_bytes_per_element);

/// Cache per sequence M_KV(T) = b sum_l 2 h_kv d_h min(T, W_l) + M_S = 2 h_kv d_h b (L_g T + L_s min(T, W))
/// + M_S: the attention layers' KV plus a hybrid's recurrent state (state_bytes_per_sequence), O(1)
/// through layer_windows  [S000-eq1.1] [DAO24]
units::Bytes kv_bytes_per_sequence(const ModelConfig& m, double context, CacheBytes kv_bytes_per_element);

/// The cache one decode step reads for one sequence: the cache itself (kv_bytes_per_sequence), except
/// that a DSA layer reads its indexer keys for all T tokens and its attention cache for the top
/// k only: b (d_I L_a T + (d_c + d_R) L_a min(T, k)) + M_S  [DS25]
units::Bytes kv_read_bytes_per_sequence(const ModelConfig& m, double context, CacheBytes kv_bytes_per_element);

/// Inference memory of a batch: M = M_w + R + B M_KV(T)  [S003-3.4]
constexpr units::Bytes inference_bytes(units::Bytes weights, units::Bytes reserve, units::Bytes kv_per_sequence,
                                       double batch) {
  return weights + reserve + kv_per_sequence * batch;
}

/// Sequences that fit: floor(F / M_KV(T)), F = free_memory(C, M_w, R) = C - M_w - R; 0 when
/// F <= 0; nullopt when M_KV(T) = 0 < F (unbounded); saturates at kMaxCount = 2^62  [S003-3.4]
std::optional<std::int64_t> max_concurrency(units::Bytes capacity, units::Bytes weights, units::Bytes reserve,
                                            units::Bytes kv_per_sequence);

/// Longest context T with B M_KV(T) <= C - M_w - R (0 if none; capped at 2^40 tokens)  [S003-3.4]
std::int64_t max_context(const ModelConfig& m, units::Bytes free_bytes, std::int64_t batch,
                         CacheBytes kv_bytes_per_element);

/// Unfused attention score matrix of one layer and sequence: h N^2 b  [S003-3.2]
constexpr units::Bytes score_matrix_bytes(double heads, double tokens, double b) {
  return units::Bytes{heads * tokens * tokens * b};
}

/// Elementwise traffic per token per layer, unfused: b (n_norm 2d + 2(w_q + w_kv) + 6d + n f),
/// n_norm norms per layer, RoPE term only with rotary positions, n = 3 gated / 2 plain, f = d_ff
/// (MoE: k d_ff_expert + shared widths). Llama: 2d + 2(d + d_kv) + 3d + 2d + 3 d_ff + 3d  [S003-3.3]
units::Bytes elementwise_bytes_per_token_layer(const ModelConfig& m, double b);

/// Tokens per pass where elementwise traffic equals the layer's weight read: W_layer / e  [S003-3.3]
double fusion_crossover_tokens(units::Bytes layer_weight_bytes, units::Bytes ew_per_token);

}  // namespace roofline
