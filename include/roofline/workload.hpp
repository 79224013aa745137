// Workload: what is run on the model and hardware, and which conventions apply.
#pragma once

#include "roofline/dtype.hpp"
#include "roofline/units.hpp"
#include "roofline/weight_format.hpp"

#include <cstdint>
#include <string_view>

namespace roofline {

/// FLOP-per-token basis (product.md Conventions).
enum class FlopBasis {
  physical,       ///< every weight a token multiplies, lm_head in, input gather out
  non_embedding,  ///< 2N with N non-embedding (Kaplan et al. 2020)
  all_params      ///< 2N_total (the whiteboard rule, seed 004)
};
enum class AttentionMode { causal, full };
enum class LmHeadPositions { last, all };
/// Bytes a decode step reads for weights.
enum class DecodeBytes { touched, all_weights };
/// MoE experts a decode step reads.
enum class MoeDecodeBytes { expected, all_experts, top_k };

/// Bytes per cached element: `kv` of the attention cache (its format's bits / 8, scales in) and
/// `state` of a hybrid's conv and recurrent state (the KV data type: a KV format does not change
/// it; a declared state_dtype wins for the recurrent part). A plain number is both.
struct CacheBytes {
  double kv = 2.0;
  double state = 2.0;
  constexpr CacheBytes(double b) : kv(b), state(b) {}  // NOLINT(google-explicit-constructor): a dtype's bytes
  constexpr CacheBytes(double kv_bytes, double state_bytes) : kv(kv_bytes), state(state_bytes) {}
};

struct Workload {
  std::int64_t batch = 1;                   ///< sequences decoded together
  std::int64_t context = 0;                 ///< tokens already in the KV cache (decode)
  std::int64_t prompt = 2048;               ///< prefill tokens
  std::int64_t output = 256;                ///< generated tokens (serve)
  double weight_bits = 16.0;                ///< storage bits per weight, scales included
  DType weight_dtype = DType::bf16;         ///< storage type of the weights
  std::string_view weight_format = "bf16";  ///< the weight type by name: a dtype or a named format (q4_k)
  /// The format of each weight class: uniform at weight_format unless a layout is published or given;
  /// then weight_bits is the whole model's mean, M_w 8 / N.
  WeightLayout weights = WeightLayout::all(plain_weight_format(DType::bf16));
  bool weights_published = false;  ///< weights is the published checkpoint's layout (the default)
  DType kv_dtype = DType::bf16;
  double kv_bits = 16.0;                ///< bits per cached element, scales included (--kv-format)
  std::string_view kv_format = "bf16";  ///< the KV cache's format by name: a dtype or a scaled format
  [[nodiscard]] constexpr CacheBytes cache_bytes() const { return {kv_bits / 8.0, dtype_bits(kv_dtype) / 8.0}; }
  DType compute_dtype = DType::bf16;     ///< which dense peak applies
  DType activation_dtype = DType::bf16;  ///< activations (elementwise traffic, score matrix)
  units::Bytes reserve{};                ///< runtime reserve per device, subtracted from its capacity
  double bw_efficiency = 1.0;            ///< achieved / peak bandwidth
  double mfu = 1.0;                      ///< achieved / peak FLOP/s
  FlopBasis basis = FlopBasis::physical;
  AttentionMode attention = AttentionMode::causal;
  LmHeadPositions lm_head = LmHeadPositions::last;
  DecodeBytes decode_bytes = DecodeBytes::touched;
  MoeDecodeBytes moe_decode = MoeDecodeBytes::expected;
};

}  // namespace roofline
