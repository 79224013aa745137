// Roofline primitives: ridge point, GEMM intensity, attainable rate, bound, Amdahl.
#pragma once

#include "roofline/units.hpp"

#include <algorithm>
#include <cstdint>

namespace roofline {

enum class Bound { memory, compute };

/// ridge = P_peak / B_peak  [WI09]
constexpr units::FlopPerByte ridge_point(units::FlopPerSecond peak, units::BytesPerSecond bw) { return peak / bw; }

/// F = 2mnk for C(m x n) = A(m x k) B(k x n)  [S002-intensity]
constexpr units::Flop gemm_flops(double m, double n, double k) { return units::Flop{2.0 * m * n * k}; }

/// Q = b (mk + kn + mn): read A and B once, write C once  [S002-intensity]
constexpr units::Bytes gemm_bytes(double m, double n, double k, double b) {
  return units::Bytes{b * (m * k + k * n + m * n)};
}

/// I = 2mnk / (b (mk + kn + mn))  [S002-intensity]
constexpr units::FlopPerByte gemm_intensity(double m, double n, double k, double b) {
  return gemm_flops(m, n, k) / gemm_bytes(m, n, k, b);
}

/// I = n^2 / (3 b n^2) = 1/(3b): elementwise add of two n x n tensors  [S002-intensity]
constexpr units::FlopPerByte elementwise_add_intensity(double b) { return units::FlopPerByte{1.0 / (3.0 * b)}; }

/// P_att = min(P_peak, I * B_peak)  [WI09]
constexpr units::FlopPerSecond attainable(units::FlopPerSecond peak, units::BytesPerSecond bw,
                                          units::FlopPerByte intensity) {
  return std::min(peak, intensity * bw);
}

/// t = max(F / P_peak, Q / B_peak), perfect overlap  [WI09]
constexpr units::Seconds roofline_time(units::Flop f, units::Bytes q, units::FlopPerSecond peak,
                                       units::BytesPerSecond bw) {
  return std::max(f / peak, q / bw);
}

/// Memory-bound when F / P_peak < Q / B_peak, i.e. I < ridge  [WI09]
constexpr Bound bound_of(units::Flop f, units::Bytes q, units::FlopPerSecond peak, units::BytesPerSecond bw) {
  return f / peak >= q / bw ? Bound::compute : Bound::memory;
}

/// I(T) = T d / (d + 2T): T tokens through a d x d bf16 projection  [S003-2.4]
constexpr units::FlopPerByte projection_intensity(double tokens, double d) {
  return units::FlopPerByte{tokens * d / (d + 2.0 * tokens)};
}

/// T* = ridge d / (d - 2 ridge): tokens where a d x d bf16 projection reaches the ridge;
/// returns 0 when d <= 2 ridge (the projection never reaches it)  [S003-2.4]
constexpr double projection_compute_bound_tokens(double d, units::FlopPerByte ridge) {
  const double r = ridge.base();
  return d > 2.0 * r ? r * d / (d - 2.0 * r) : 0.0;
}

/// S = 1 / ((1 - f) + f / k)  [AM67]
constexpr double amdahl_speedup(double f, double k) { return 1.0 / ((1.0 - f) + f / k); }

/// S_max = 1 / (1 - f), k -> infinity  [AM67]
constexpr double amdahl_limit(double f) { return 1.0 / (1.0 - f); }

}  // namespace roofline
