// FLOPs per token (forward, training, recompute), attention FLOPs, prefill FLOPs, crossover.
#pragma once

#include "roofline/model_config.hpp"
#include "roofline/params.hpp"
#include "roofline/units.hpp"
#include "roofline/workload.hpp"

#include <cstdint>

namespace roofline {

/// Parameters entering the FLOP count under a basis (MoE: active parameters).
/// physical: N_active - V e (gather) - positions - head_stored + V e (the head multiplies every
///   token even when tied); biases and norm gains ride along at 2 FLOP each   [KA20 §2.1]
/// non_embedding: N_active without embedding, positions and head                [KA20 §2.1]
/// all_params: N_active                                                          [S004]
std::int64_t flop_params(const ParamCounts& c, FlopBasis basis);

/// C_fwd = 2 N_basis per token, attention term excluded  [KA20 §2.1]
units::Flop forward_flops_per_token(const ParamCounts& c, FlopBasis basis);

/// C_train = 6 N per token: forward 2N + backward 4N  [KA20 §2.1]
constexpr units::Flop training_flops_per_token(units::Flop forward) { return forward * 3.0; }

/// C_recompute = 8 N per token: full activation recomputation repeats the forward  [KO22]
constexpr units::Flop recompute_flops_per_token(units::Flop forward) { return forward * 4.0; }

/// Query-key and attention-value FLOPs for one (query, key) pair in one layer:
/// a = 2 (w_qk + w_v), w = h d_h for standard attention  [S003-2.3]
double attention_flops_per_pair(const ModelConfig& m);

/// The same for an attention layer of head shape `shape`: 2 (h d_h + h d_h)  [S003-2.3]
double attention_flops_per_pair(const ModelConfig& m, HeadShape shape);

/// A DSA layer's indexer, per (query, cached key) pair: I_ts = sum_j w_tj ReLU(q_tj . k_s) costs
/// 2 H_I d_I for the dot products and 2 H_I for the weighting, 2 H_I (d_I + 1); 0 for dense attention  [DS25]
double indexer_flops_per_pair(const ModelConfig& m);

/// Query-key pairs of an S-token prefill in a layer with window W (0 = global):
/// full S min(S,W); causal S^2/2 (S <= W) or S W - W^2/2  [S003-2.3] [S004]
double attention_pairs(double s, std::int64_t window, AttentionMode mode);

/// Attention FLOPs of an S-token prefill, all layers: sum_l a pairs_l(S) = a (L_g pairs(S, inf) +
/// L_s pairs(S, W)), O(1) (causal, global: 2 L S^2 d; full: 4 L S^2 d); a DSA model's layers pair each
/// query with its top k, a L pairs(S, k), and score every earlier key, + i L pairs(S, inf)
/// (i = indexer_flops_per_pair)  [S003-2.3] [S004] [DS25]
units::Flop attention_flops_prefill(const ModelConfig& m, double s, AttentionMode mode);

/// Attention FLOPs of one decode token against T cached tokens: sum_l a min(T, W_l)
/// = a (L_g T + L_s min(T, W)), O(1); DSA: a L min(T, k) + i L T  [S003-2.4] [DS25]
units::Flop attention_flops_decode_token(const ModelConfig& m, double context);

/// The terms of an S-token prefill: F = S (C_fwd - H) + n_head H + A(S).
struct PrefillFlopTerms {
  double tokens = 0.0;                   ///< S
  units::Flop per_token_without_head{};  ///< C_fwd - H
  units::Flop head{};                    ///< H = 2 V e where the basis counts the head, else 0
  double head_positions = 0.0;           ///< n_head: 1 (last position) or S (all)
  units::Flop attention{};               ///< A(S)
  units::Flop total{};
};

/// F = S (C_fwd - H) + n_head H + A(S), H = 2 V e, n_head = 1 (last) or S (all)  [S004]
PrefillFlopTerms prefill_flop_terms(const ModelConfig& m, const ParamCounts& c, double s, FlopBasis basis,
                                    LmHeadPositions head, AttentionMode mode);

/// Prefill FLOPs of S tokens: S (C_fwd - 2 V d) + n_head 2 V d + attention, n_head = 1 (last) or S
/// (head term only where the basis has it)  [S004]
units::Flop prefill_flops(const ModelConfig& m, const ParamCounts& c, double s, FlopBasis basis, LmHeadPositions head,
                          AttentionMode mode);

/// Crossover context where attention FLOPs equal projection FLOPs per layer:
/// full N* = 2 P_layer / a = P_layer/(2d); causal N* = 4 P_layer / a = P_layer/d  [S003-2.3]
/// 0 for a model without attention, where no such length exists.
double attention_crossover_tokens(const ModelConfig& m, const ParamCounts& c, AttentionMode mode);

/// P̄: mean weight-matrix parameters one token multiplies per layer, over all L layers  [S003-2.3]
double mean_layer_matrix_params(const ModelConfig& m, const ParamCounts& c);

/// Attention share of layer FLOPs in an S-token prefill: A / (A + 2 S P_blocks)  [S003-2.3]
double attention_share(const ModelConfig& m, const ParamCounts& c, double s, AttentionMode mode);

}  // namespace roofline
