// Exact parameter counts: per matrix, per layer kind, embedding, lm_head, total, active (MoE).
#pragma once

#include "roofline/model_config.hpp"

#include <cstdint>
#include <string_view>
#include <vector>

namespace roofline {

/// One named tensor group inside a layer. `active` is what one token multiplies (MoE top-k).
struct ParamComponent {
  std::string_view id;      ///< e.g. "q_proj", "experts", "norms"
  std::int64_t count = 0;   ///< parameters stored
  std::int64_t active = 0;  ///< parameters one token uses
  bool matrix = true;       ///< a weight matrix (2 FLOP per weight per token) vs a vector
};

/// A kind of layer (dense or MoE) and how many layers have it.
struct LayerKindParams {
  bool moe = false;
  std::int64_t n_layers = 0;
  std::vector<ParamComponent> parts;
  std::int64_t total = 0;          ///< per layer
  std::int64_t active = 0;         ///< per layer, per token
  std::int64_t matrix_total = 0;   ///< per layer, weight matrices only
  std::int64_t matrix_active = 0;  ///< per layer, weight matrices one token multiplies
  /// Per layer, parameters of the routed experts, E P_expert (the part "experts"; 0 in a dense
  /// kind). What MoE decode reads only in part: params_read scales it by experts touched / E.
  std::int64_t routed_experts_params = 0;
  LayerMix mix;  ///< a hybrid's layer kind: its mixers and FFN (issue 10); default for a transformer
};

struct ParamCounts {
  std::vector<LayerKindParams> layer_kinds;  ///< dense first, then MoE (a hybrid: by first layer); none empty
  std::int64_t embedding = 0;                ///< V*e input table (e = embed_proj_dim or d)
  std::int64_t positions = 0;                ///< learned position table
  std::int64_t embedding_norm = 0;           ///< BLOOM's norm after the embedding
  std::int64_t embed_proj = 0;               ///< OPT-350m project_in + project_out
  std::int64_t final_norm = 0;
  std::int64_t lm_head = 0;         ///< stored head params (0 when tied), bias included
  std::int64_t lm_head_weight = 0;  ///< stored head matrix (0 when tied)
  std::int64_t blocks = 0;          ///< sum over all layers
  std::int64_t blocks_active = 0;   ///< sum over all layers, per token
  std::int64_t non_embedding = 0;   ///< blocks + norms + projections (Kaplan's N)
  std::int64_t total = 0;           ///< what the checkpoint holds as parameters
  std::int64_t active = 0;          ///< per token (= total for dense)
  std::int64_t mtp_excluded = 0;    ///< multi-token-prediction layers, stored but excluded
  std::int64_t head_matmul = 0;     ///< V*e: weights of the head matmul, whether tied or untied
};

/// Parameter count of every tensor of `m` (seed 000 Table 1.1, generalised). [S000-T1.1]
ParamCounts count_params(const ModelConfig& m);

/// A model known only by its parameter count N (the whiteboard "a 70B model"): total = active =
/// non-embedding = N, no embedding, head or layers, so every FLOP basis counts 2N  [KA20 §2.1]
ParamCounts counts_of_total(std::int64_t n);

/// Per-layer parameters of the textbook MHA layer with a 2-matrix FFN: (4+2m)d^2. [S003-2.1]
constexpr std::int64_t textbook_layer_params(std::int64_t d, std::int64_t m) { return (4 + 2 * m) * d * d; }

}  // namespace roofline
