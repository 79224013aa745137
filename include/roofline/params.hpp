// Exact parameter counts: per matrix, per layer kind, embedding, lm_head, total, active (MoE).
#pragma once

#include "roofline/model_config.hpp"
#include "roofline/weight_format.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace roofline {

/// One named tensor group inside a layer. `active` is what one token multiplies (MoE top-k).
struct ParamComponent {
  std::string_view id;      ///< e.g. "q_proj", "experts", "norms"
  std::int64_t count = 0;   ///< parameters stored
  std::int64_t active = 0;  ///< parameters one token uses
  bool matrix = true;       ///< a weight matrix (2 FLOP per weight per token) vs a vector
  /// Of `count`, the vectors inside a matrix component: the experts' and shared experts' biases
  /// (gpt-oss), which a quantized checkpoint stores as vectors (WeightClass::vectors).
  std::int64_t vectors = 0;
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
  /// Gemma 4's global layers: their attention has its own head shape (ModelConfig::global_attention).
  bool global_shape = false;
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
  /// Bytes the published checkpoint stores when its experts are block-scaled (gpt-oss MXFP4);
  /// 0 when every tensor is stored alike (then the bytes are N b_w / 8 at the chosen format).
  std::int64_t checkpoint_bytes = 0;
  std::int64_t expert_matrix_params = 0;  ///< routed-expert weight matrices over all layers (W_e)
  /// Multimodal wrappers: vision tower + projector. In `total` (stored, loaded), not in `active`,
  /// `non_embedding` or the layers: a decoded text token does not read them.
  std::int64_t vision = 0;
  std::int64_t vision_tower = 0;      ///< of which the encoder (with Qwen's merger)
  std::int64_t vision_projector = 0;  ///< of which the projector into the text width
  /// mllama's cross-attention layers (ModelConfig::cross_attention_layers), all of them: in
  /// non_embedding, total and active, not in `blocks` or `layer_kinds`.
  std::int64_t cross_attention = 0;
  std::int64_t cross_attention_layer = 0;  ///< one of them: P_layer + 2 norm(d_h) + 2 gates
  /// One of them by component (n_layers = cross_attention_layers; total = cross_attention_layer):
  /// a dense layer's parts plus "cross_qk_norm" (2 norm(d_h)) and "cross_gates" (2).
  LayerKindParams cross_attention_kind;
};

/// Parameter count of every tensor of `m` (seed 000 Table 1.1, generalised). [S000-T1.1]
ParamCounts count_params(const ModelConfig& m);

/// Bytes of a rows x cols matrix stored block-scaled along its input (cols) dimension:
/// rows ceil(cols / B) (B b_v + b_s) / 8  [OCP23 §5.3] [OA25 §2.1]
std::int64_t block_scaled_matrix_bytes(std::int64_t rows, std::int64_t cols, const ExpertStorage& s);

/// Stored bytes of a checkpoint with block-scaled routed experts: (N - W_e) b_o / 8 + sum over the
/// expert matrices of block_scaled_matrix_bytes  [OCP23 §5.3] [OA25 §2.1]
std::int64_t checkpoint_bytes(const ModelConfig& m, const ParamCounts& c);
/// Active parameters under the conventions vendors' cards use: `physical` (roofline's: every
/// parameter a token's forward pass uses, the input table included), without the input table
/// (and learned positions): N_active - V e - n_pos d when untied (the gpt-oss and DeepSeek-V2-Lite cards:
/// 5.13B for gpt-oss-120b), and without the output head too: - V e once more (a tied table is
/// the head: it leaves once)  [OA25 §2.1]
struct ActiveConventions {
  std::int64_t physical = 0;
  std::int64_t without_embedding = 0;
  std::int64_t without_embedding_or_head = 0;
};
ActiveConventions active_conventions(const ModelConfig& m, const ParamCounts& c);

/// Bytes of the parameters `c` counts with each weight class in its format of `l`: the sum over
/// the components of n_c b_c / 8, a component's vectors at the vectors' format  [S000-1.3]
double stored_weight_bytes(const ParamCounts& c, const WeightLayout& l);

/// Bytes of one layer kind's parameters (per layer) in the layout, as stored_weight_bytes sums them.
double layer_kind_bytes(const LayerKindParams& k, const WeightLayout& l);

/// Bytes of `n` parameters of component `p` (a share of its count), its vectors at the vectors' format.
double component_bytes(const ParamComponent& p, double n, const WeightLayout& l);

/// ---- Vision (multimodal wrappers; vision.cpp) ----
struct VisionParams {
  std::int64_t tower = 0;
  std::int64_t projector = 0;
};
/// Parameters of a vision tower and its projector, per tensor as each family's reference
/// implementation builds them (docs/formulas.md, "Vision towers"). Zero for VisionTower::none.
VisionParams count_vision(const VisionConfig& v);
/// Problems with a vision config (empty when valid or absent).
std::vector<std::string> vision_problems(const VisionConfig& v);
/// ---- end of the vision block ----

/// A model known only by its parameter count N (the whiteboard "a 70B model"): total = active =
/// non-embedding = N, no embedding, head or layers, so every FLOP basis counts 2N  [KA20 §2.1]
ParamCounts counts_of_total(std::int64_t n);

/// Per-layer parameters of the textbook MHA layer with a 2-matrix FFN: (4+2m)d^2. [S003-2.1]
constexpr std::int64_t textbook_layer_params(std::int64_t d, std::int64_t m) { return (4 + 2 * m) * d * d; }

}  // namespace roofline
