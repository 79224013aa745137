#include "roofline/memory.hpp"

#include "roofline/misc.hpp"

#include <algorithm>
#include <cmath>

namespace roofline {

std::int64_t kv_elements_per_token_layer(const ModelConfig& m) {
  if (m.mla.enabled()) return m.mla.kv_lora_rank + m.mla.qk_rope_head_dim;
  return 2 * m.n_kv_heads * m.head_dim;
}

units::Bytes kv_bytes_per_token(const ModelConfig& m, double kv_bytes_per_element) {
  const double per_layer = static_cast<double>(kv_elements_per_token_layer(m)) * kv_bytes_per_element;
  return units::Bytes{per_layer * static_cast<double>(m.n_layers)};
}

units::Bytes kv_bytes_per_sequence(const ModelConfig& m, double context, double kv_bytes_per_element) {
  const double per_layer = static_cast<double>(kv_elements_per_token_layer(m)) * kv_bytes_per_element;
  return units::Bytes{per_layer * attended_keys(layer_windows(m), context)};
}

std::optional<std::int64_t> max_concurrency(units::Bytes capacity, units::Bytes weights, units::Bytes reserve,
                                            units::Bytes kv_per_sequence) {
  const units::Bytes free = free_memory(capacity, weights, reserve);
  if (!(free.base() > 0.0)) return 0;
  if (!(kv_per_sequence.base() > 0.0)) return std::nullopt;
  return saturated_count(std::floor(free / kv_per_sequence));
}

std::int64_t max_context(const ModelConfig& m, units::Bytes free_bytes, std::int64_t batch,
                         double kv_bytes_per_element) {
  const auto fits = [&](std::int64_t t) {
    return static_cast<double>(batch) * kv_bytes_per_sequence(m, static_cast<double>(t), kv_bytes_per_element).base() <=
           free_bytes.base();
  };
  constexpr std::int64_t kCap = std::int64_t{1} << 40;
  if (batch <= 0 || !fits(1)) return 0;
  if (fits(kCap)) return kCap;  // every layer slides: the cache stops growing
  std::int64_t lo = 1;          // fits
  std::int64_t hi = kCap;       // does not fit
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

units::Bytes elementwise_bytes_per_token_layer(const ModelConfig& m, double b) {
  const double d = static_cast<double>(m.d_model);
  const double wq = static_cast<double>(m.n_heads * m.head_dim);
  const double wkv = static_cast<double>(m.n_kv_heads * m.head_dim);
  double f = static_cast<double>(m.d_ff);
  if (m.moe.enabled()) {
    f = static_cast<double>(m.moe.top_k * m.moe.d_ff_expert + m.moe.n_shared_experts * m.moe.d_ff_shared);
  }
  const units::Bytes norms = norm_bytes_per_token(d, b) * static_cast<double>(m.norms_per_layer);
  const units::Bytes rope = m.position == PositionKind::rope ? rope_bytes_per_token(wq, wkv, b) : units::Bytes{};
  const units::Bytes residuals = residual_add_bytes_per_token(d, b) * 2.0;  // after attention and after the MLP
  const units::Bytes act =
      m.mlp == MlpKind::gated ? gated_activation_bytes_per_token(f, b) : plain_activation_bytes_per_token(f, b);
  return norms + rope + residuals + act;
}

double fusion_crossover_tokens(units::Bytes layer_weight_bytes, units::Bytes ew_per_token) {
  return layer_weight_bytes / ew_per_token;
}

}  // namespace roofline
