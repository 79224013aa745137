#include "roofline/memory.hpp"

#include "roofline/flops.hpp"
#include "roofline/misc.hpp"

#include <algorithm>
#include <cmath>

namespace roofline {

std::int64_t kv_elements_per_token_layer(const ModelConfig& m) {
  return attention_kv_elements_per_token_layer(m) + indexer_elements_per_token_layer(m);
}

std::int64_t attention_kv_elements_per_token_layer(const ModelConfig& m) {
  return attention_kv_elements_per_token_layer(m, model_head_shape(m));
}

std::int64_t attention_kv_elements_per_token_layer(const ModelConfig& m, HeadShape shape) {
  if (m.mla.enabled()) return m.mla.kv_lora_rank + m.mla.qk_rope_head_dim;
  return 2 * shape.kv_heads * shape.head_dim;
}

double AttentionSpans::elements(double context) const {
  const double sliding = windows.sliding_layers > 0 ? std::min(context, static_cast<double>(windows.window)) : 0.0;
  return global_elements * context + sliding_elements * sliding;
}

double AttentionSpans::flops(double context) const {
  const double sliding = windows.sliding_layers > 0 ? std::min(context, static_cast<double>(windows.window)) : 0.0;
  return global_flops * context + sliding_flops * sliding;
}

AttentionSpans attention_spans(const ModelConfig& m, const LayerWindows& lw) {
  const double global = static_cast<double>(lw.global_layers);
  const double sliding = static_cast<double>(lw.sliding_layers);
  const HeadShape own = global_head_shape(m);
  return {.windows = lw,
          .global_elements = global * static_cast<double>(attention_kv_elements_per_token_layer(m, own)),
          .sliding_elements = sliding * static_cast<double>(attention_kv_elements_per_token_layer(m)),
          .global_flops = global * attention_flops_per_pair(m, own),
          .sliding_flops = sliding * attention_flops_per_pair(m)};
}

std::int64_t indexer_elements_per_token_layer(const ModelConfig& m) {
  return m.indexer.enabled() ? m.indexer.head_dim : 0;
}

LayerWindows attention_windows(const ModelConfig& m) {
  const LayerWindows lw = layer_windows(m);
  if (!m.indexer.enabled()) return lw;  // validate() refuses an indexer beside a window
  return {.global_layers = 0, .sliding_layers = lw.global_layers + lw.sliding_layers, .window = m.indexer.topk};
}

units::Bytes kv_bytes_per_token(const ModelConfig& m, CacheBytes kv_bytes_per_element) {
  const AttentionSpans spans = attention_spans(m, layer_windows(m));
  const double index = static_cast<double>(indexer_elements_per_token_layer(m) * m.attention_layers());
  return units::Bytes{(spans.global_elements + spans.sliding_elements + index) * kv_bytes_per_element.kv};
}

// ---- Hybrid and state-space layers (issue 10) -------------------------------------------------
std::int64_t state_elements_per_layer(const ModelConfig& m, StateMixer k) {
  const SsmConfig& s = m.hybrid.ssm;
  const DeltaNetConfig& g = m.hybrid.deltanet;
  switch (k) {
    case StateMixer::none:
      return 0;
    case StateMixer::mamba1:  // HF MambaCache: conv [d_i, k_conv], ssm [d_i, N]
      return s.d_inner * s.d_conv + s.d_inner * s.d_state;
    case StateMixer::mamba2:  // HF Mamba2Cache: conv [d_i + 2gN, k_conv], ssm [H, P, N]
      return (s.d_inner + 2 * s.n_groups * s.d_state) * s.d_conv + s.n_heads * s.head_dim * s.d_state;
    case StateMixer::gated_deltanet:  // HF Qwen3-Next cache: conv [2 h_k d_k + h_v d_v, k_conv], state [h_v, d_k, d_v]
      return (2 * g.n_key_heads * g.key_head_dim + g.n_value_heads * g.value_head_dim) * g.conv_kernel +
             g.n_value_heads * g.key_head_dim * g.value_head_dim;
    case StateMixer::short_conv:  // HF Lfm2HybridConvCache: conv [d, L_cache]
      return m.d_model * m.hybrid.conv.l_cache;
    case StateMixer::lightning:  // HF MiniMaxCache: linear_cache [h, d_h, d_h]
      return m.n_heads * m.head_dim * m.head_dim;
  }
  return 0;
}

std::int64_t recurrent_elements_per_layer(const ModelConfig& m, StateMixer k) {
  const SsmConfig& s = m.hybrid.ssm;
  const DeltaNetConfig& g = m.hybrid.deltanet;
  switch (k) {
    case StateMixer::none:
      return 0;
    case StateMixer::mamba1:
      return s.d_inner * s.d_state;
    case StateMixer::mamba2:
      return s.n_heads * s.head_dim * s.d_state;
    case StateMixer::gated_deltanet:
      return g.n_value_heads * g.key_head_dim * g.value_head_dim;
    case StateMixer::short_conv:
      return 0;
    case StateMixer::lightning:
      return m.n_heads * m.head_dim * m.head_dim;
  }
  return 0;
}

LayerStateBytes state_bytes_per_layer(const ModelConfig& m, StateMixer k, CacheBytes kv_bytes_per_element) {
  const double state_bytes = m.hybrid.state_dtype ? dtype_bytes(*m.hybrid.state_dtype) : kv_bytes_per_element.state;
  const auto recurrent = static_cast<double>(recurrent_elements_per_layer(m, k));
  const auto conv = static_cast<double>(state_elements_per_layer(m, k)) - recurrent;
  return {.conv = units::Bytes{conv * kv_bytes_per_element.state}, .recurrent = units::Bytes{recurrent * state_bytes}};
}

units::Bytes state_bytes_per_sequence(const ModelConfig& m, CacheBytes kv_bytes_per_element) {
  units::Bytes bytes{};
  for (const LayerMix& mix : m.hybrid.layers) {
    const LayerStateBytes layer = state_bytes_per_layer(m, mix.state, kv_bytes_per_element);
    bytes += layer.conv + layer.recurrent;
  }
  return bytes;
}
// ---- end hybrid --------------------------------------------------------------------------------

units::Bytes attention_kv_bytes_per_sequence(const ModelConfig& m, double context, CacheBytes kv_bytes_per_element) {
  const LayerWindows lw = layer_windows(m);
  const double index = static_cast<double>(indexer_elements_per_token_layer(m)) * attended_keys(lw, context);
  return units::Bytes{(attention_spans(m, lw).elements(context) + index) * kv_bytes_per_element.kv};
}

units::Bytes kv_bytes_per_sequence(const ModelConfig& m, double context, CacheBytes kv_bytes_per_element) {
  return attention_kv_bytes_per_sequence(m, context, kv_bytes_per_element) +
         state_bytes_per_sequence(m, kv_bytes_per_element);
}

units::Bytes kv_read_bytes_per_sequence(const ModelConfig& m, double context, CacheBytes kv_bytes_per_element) {
  if (!m.indexer.enabled()) return kv_bytes_per_sequence(m, context, kv_bytes_per_element);
  const double attended = attention_spans(m, attention_windows(m)).elements(context);
  const double scored =
      static_cast<double>(indexer_elements_per_token_layer(m)) * attended_keys(layer_windows(m), context);
  return units::Bytes{(attended + scored) * kv_bytes_per_element.kv} +
         state_bytes_per_sequence(m, kv_bytes_per_element);
}

std::optional<std::int64_t> max_concurrency(units::Bytes capacity, units::Bytes weights, units::Bytes reserve,
                                            units::Bytes kv_per_sequence) {
  const units::Bytes free = free_memory(capacity, weights, reserve);
  if (!(free.base() > 0.0)) return 0;
  if (!(kv_per_sequence.base() > 0.0)) return std::nullopt;
  return saturated_count(std::floor(free / kv_per_sequence));
}

std::int64_t max_context(const ModelConfig& m, units::Bytes free_bytes, std::int64_t batch,
                         CacheBytes kv_bytes_per_element) {
  const auto fits = [&](std::int64_t t) {
    return static_cast<double>(batch) * kv_bytes_per_sequence(m, static_cast<double>(t), kv_bytes_per_element).base() <=
           free_bytes.base();
  };
  constexpr std::int64_t kCap = std::int64_t{1} << 40;
  if (batch <= 0 || !fits(1)) return 0;
  if (fits(kCap)) return kCap;  // every layer slides: the cache stops growing
  // The answer is where the (monotone) test turns false. Bracket it from the estimate in real
  // numbers, widening the step each time, then bisect: a few tests instead of 40, the same answer.
  // In elements: E T + E_s W above the window (E = E_g + E_i, the global layers' and the indexer's),
  // (E + E_s) T below; a guess only, the bisection decides.
  const LayerWindows lw = layer_windows(m);
  const AttentionSpans spans = attention_spans(m, lw);
  const double budget = free_bytes.base() / (static_cast<double>(batch) * kv_bytes_per_element.kv);
  const double growing =
      spans.global_elements + static_cast<double>(indexer_elements_per_token_layer(m) * m.attention_layers());
  const double sliding = spans.sliding_elements;
  const double window = static_cast<double>(lw.window);
  const double estimate = growing > 0.0 && budget >= (growing + sliding) * window
                              ? (budget - sliding * window) / growing
                              : budget / (growing + sliding);
  const std::int64_t guess = std::isfinite(estimate) ? std::clamp(static_cast<std::int64_t>(std::min(estimate, 0x1p41)),
                                                                  std::int64_t{1}, kCap - 1)
                                                     : kCap / 2;
  std::int64_t lo = 1;     // fits
  std::int64_t hi = kCap;  // does not fit
  std::int64_t step = 1;
  if (fits(guess)) {
    lo = guess;
    while (lo + step < kCap && fits(lo + step)) {
      lo += step;
      step *= 2;
    }
    hi = std::min(lo + step, kCap);
  } else {
    hi = guess;
    while (hi - step > 1 && !fits(hi - step)) {
      hi -= step;
      step *= 2;
    }
    lo = std::max<std::int64_t>(hi - step, 1);
  }
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
