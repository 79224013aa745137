// Small formulas the seed documents use outside the transformer arithmetic.
#pragma once

#include "roofline/units.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace roofline {

// --- Tensors --------------------------------------------------------------------------------

/// Payload of a contiguous tensor: numel b = (prod shape) b  [S000-1.2]
constexpr units::Bytes tensor_payload_bytes(std::span<const std::int64_t> shape, double element_bytes) {
  double numel = 1.0;
  for (const std::int64_t s : shape) {
    numel *= static_cast<double>(s);
  }
  return units::Bytes{numel * element_bytes};
}

/// Row-major (contiguous) strides in elements: stride[i] = prod shape[i+1:]  [S000-1.2]
std::vector<std::int64_t> contiguous_strides(std::span<const std::int64_t> shape);

/// Mean cross-entropy of all-equal logits over C classes: ln C  [S000-1.5]
double uniform_logits_cross_entropy(double classes);

// --- Counts -----------------------------------------------------------------------------------

/// Largest count the engine returns from a floating-point quotient: 2^62, the cap the CLI's
/// count parser puts on input counts. Beyond it a count means "more than anyone can use".
inline constexpr std::int64_t kMaxCount = std::int64_t{1} << 62;

/// A non-negative count computed in double, as an integer without UB: truncates; NaN and v <= 0
/// give 0, v >= 2^62 (and +inf) gives kMaxCount.
constexpr std::int64_t saturated_count(double v) {
  if (!(v > 0.0)) return 0;
  if (v >= static_cast<double>(kMaxCount)) return kMaxCount;
  return static_cast<std::int64_t>(v);
}

/// The largest n in [lo, hi] for which holds(n), where holds is true up to some n and false after
/// (a step that grows with the batch against a target); lo when none above lo holds, so the caller
/// checks holds(lo) where lo itself may fail. A bisection: log2(hi - lo) calls.
template <typename Holds>
constexpr std::int64_t largest_where(std::int64_t lo, std::int64_t hi, Holds holds) {
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo + 1) / 2;
    if (holds(mid)) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

// --- Memory budget ----------------------------------------------------------------------------

/// Memory left for the KV cache: C - M_w - R (negative when the weights do not fit)  [S003-3.4]
constexpr units::Bytes free_memory(units::Bytes capacity, units::Bytes weights, units::Bytes reserve) {
  return capacity - weights - reserve;
}

/// Devices needed to hold the weights alone: ceil(M_w / C), saturating at 2^62  [S003-3.6]
std::int64_t devices_for_weights(units::Bytes weights, units::Bytes capacity_per_device);

// --- Elementwise traffic per token, unfused (read inputs once, write output once) ---------------

/// Norm (RMSNorm or LayerNorm) over width d: read d, write d -> 2 d b  [S003-3.3]
constexpr units::Bytes norm_bytes_per_token(double d, double b) { return units::Bytes{2.0 * d * b}; }

/// RoPE on Q and K: read and write w_q + w_kv -> 2 (w_q + w_kv) b  [S003-3.3]
constexpr units::Bytes rope_bytes_per_token(double w_q, double w_kv, double b) {
  return units::Bytes{2.0 * (w_q + w_kv) * b};
}

/// Residual add: read 2 d, write d -> 3 d b  [S003-3.3]
constexpr units::Bytes residual_add_bytes_per_token(double d, double b) { return units::Bytes{3.0 * d * b}; }

/// Gated activation (SwiGLU): read gate and up, write d_ff -> 3 d_ff b  [S003-3.3]
constexpr units::Bytes gated_activation_bytes_per_token(double d_ff, double b) { return units::Bytes{3.0 * d_ff * b}; }

/// Plain activation (GELU) on one token: read d_ff, write d_ff: 2 d_ff b  [S003-3.3]
constexpr units::Bytes plain_activation_bytes_per_token(double d_ff, double b) { return units::Bytes{2.0 * d_ff * b}; }

/// Elementwise share of a pass's traffic: T e / (W + T e)  [S003-3.3]
constexpr double elementwise_traffic_share(units::Bytes layer_weight_bytes, units::Bytes ew_per_token, double tokens) {
  return tokens * ew_per_token.base() / (layer_weight_bytes.base() + tokens * ew_per_token.base());
}

/// Speedup of a memory-bound region from fusion: Q_unfused / Q_fused  [S002-fusion]
constexpr double fusion_speedup(units::Bytes unfused, units::Bytes fused) { return unfused / fused; }

// --- Architecture -----------------------------------------------------------------------------

/// FFN width giving P_ffn parameters with n matrices of d x d_ff: d_ff = P_ffn / (n d)
/// (a gated FFN at the parameters of a plain 4d MLP: 8d/3)  [S003-3.5]
constexpr double iso_param_d_ff(double ffn_params, double d, double matrices) { return ffn_params / (matrices * d); }

// --- Hardware and comparisons -----------------------------------------------------------------

/// Marketing peak with 2:4 structured sparsity: 2 P_dense (never for ridge or MFU)  [S004]
constexpr units::FlopPerSecond structured_sparsity_peak(units::FlopPerSecond dense) { return dense * 2.0; }

/// Relative change from a to b: (b - a) / a  [S003-3.6]
constexpr double relative_change(double from, double to) { return (to - from) / from; }

// --- Distributed training ---------------------------------------------------------------------

/// Data-parallel gradient all-reduce volume per step, in elements: 2 Psi  [RA20 §7.1]
constexpr double dp_allreduce_volume(double params) { return 2.0 * params; }

/// ZeRO-3 (P_os+g+p) volume per step, in elements: 3 Psi  [RA20 §7.2.2]
constexpr double zero3_comm_volume(double params) { return 3.0 * params; }

}  // namespace roofline
