// The analyses of the model alone: parameters, FLOPs, KV and state, elementwise traffic (roofline/analysis.hpp has them
// all).
#pragma once

#include "roofline/decode.hpp"
#include "roofline/dtype.hpp"
#include "roofline/flops.hpp"
#include "roofline/layer_ops.hpp"
#include "roofline/scenario.hpp"
#include "roofline/units.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace roofline {

// --- params ------------------------------------------------------------------------------------

struct WeightsAtDtype {
  DType dtype = DType::bf16;
  double bits = 16.0;
  units::Bytes bytes{};
};

struct ParamsResult {
  const ParamCounts* counts = nullptr;  ///< the scenario's counts (every count the view prints)
  double main_layer_over_d2 = 0.0;      ///< P_layer / d² of the most common layer kind
  std::int64_t main_layer_params = 0;   ///< P_layer of that kind
  std::int64_t embedding_width = 0;     ///< e: embed_proj_dim or d
  bool published_applies = false;       ///< a published count exists and the model is unmodified
  bool published_matches = false;
  // Weights at the scenario's format, and the training state rule of thumb.
  units::Bytes weight_bytes{};
  units::Bytes training_state_bytes{};
  double training_state_bytes_per_param = 0.0;
  std::vector<WeightsAtDtype> weights_by_dtype;
};
ParamsResult analyze_params(const Scenario& s);

// --- flops -------------------------------------------------------------------------------------

struct FlopsResult {
  std::array<std::int64_t, 3> basis_params{};      ///< N per FlopBasis (physical, non-embedding, all-params)
  std::array<units::Flop, 3> forward_per_token{};  ///< 2 N per basis
  FlopBasis basis = FlopBasis::physical;
  units::Flop forward{};  ///< under the chosen basis
  units::Flop training_per_token{};
  units::Flop recompute_per_token{};
  std::int64_t vocab = 0;       ///< V
  std::int64_t head_width = 0;  ///< e
  units::Flop lm_head_per_token{};
  double flops_per_pair = 0.0;  ///< a = 2 (w_qk + w_v)
  std::int64_t context = 0;     ///< T
  double attended_keys = 0.0;   ///< sum_l min(T, W_l)
  units::Flop attention_per_decode_token{};
  std::int64_t prompt = 0;  ///< S
  PrefillFlopTerms prefill;
  double mean_layer_matrix_params = 0.0;  ///< P̄: mean weight-matrix parameters per layer a token uses
  std::int64_t layers = 0;
  units::Fraction attention_share{};
  units::Tokens crossover_causal{};
  units::Tokens crossover_full{};
};
FlopsResult analyze_flops(const Scenario& s);

// --- kv ----------------------------------------------------------------------------------------

/// Layers that share an attention kind (global or sliding), for the per-layer layout.
struct KvLayerGroup {
  bool sliding = false;
  std::int64_t layers = 0;  ///< how many
  std::int64_t first = 0;   ///< first layer index
  std::int64_t last = 0;    ///< last layer index
  std::int64_t every = 1;   ///< 1: a contiguous run; k: every k-th layer from `first`
  std::int64_t window = 0;  ///< tokens (sliding only)
  units::Bytes bytes_per_token_per_layer{};
};

struct KvResult {
  bool mla = false;
  std::int64_t elements_per_token_per_layer = 0;
  double bytes_per_element = 0.0;
  double state_bytes_per_element = 0.0;  ///< a hybrid's conv and recurrent state: the KV dtype, not its format
  units::Bytes per_token{};
  std::int64_t context = 0;    ///< T
  double cached_tokens = 0.0;  ///< sum_l min(T, W_l)
  units::Bytes per_sequence{};
  std::int64_t batch = 1;
  units::Bytes batch_bytes{};
  std::optional<units::Bytes> per_token_mha;  ///< the same model with h_kv = h (GQA/MQA only)
  std::optional<units::Ratio> mha_ratio;      ///< h / h_kv
  std::vector<KvLayerGroup> layout;
  // A hybrid's recurrent state (issue 10): constant per sequence, part of per_sequence.
  std::int64_t attention_layers = 0;  ///< layers holding KV
  std::int64_t state_layers = 0;      ///< layers holding a recurrent state
  std::int64_t state_elements = 0;    ///< per sequence, summed over the state layers
  units::Bytes state_per_sequence{};  ///< M_S = b x state_elements
  /// The recurrent state's declared dtype (its conv part stays in the KV dtype); unset: the KV dtype.
  std::optional<DType> state_dtype;
  std::int64_t recurrent_elements = 0;  ///< the recurrent part of state_elements
  /// Gemma 4's global layers, of their own head shape: their count L_g and elements per token per
  /// layer (0 when the model has no global_attention; then every layer has the model's).
  std::int64_t global_layers = 0;
  std::int64_t global_elements_per_token_per_layer = 0;
};
KvResult analyze_kv(const Scenario& s);

// --- elementwise ---------------------------------------------------------------------------------

struct ElementwiseResult {
  double activation_bytes = 2.0;
  units::Bytes per_token_per_layer{};
  units::Bytes layer_weight_bytes{};  ///< mean weight matrices of one layer at the weight format
  units::Tokens crossover{};
  units::Fraction share_at_one_token{};
};
ElementwiseResult analyze_elementwise(const Scenario& s);

}  // namespace roofline
