#include "roofline/decode.hpp"

#include "roofline/flops.hpp"
#include "roofline/memory.hpp"

#include <algorithm>
#include <cmath>

namespace roofline {

double expected_experts_touched(double experts, double top_k, double tokens) {
  if (experts <= 0.0) return 0.0;
  return experts * (1.0 - std::pow(1.0 - top_k / experts, tokens));
}

double params_read(const ModelConfig& m, const ParamCounts& c, double tokens, DecodeBytes mode,
                   MoeDecodeBytes moe_mode) {
  double p = static_cast<double>(c.total);
  if (mode == DecodeBytes::all_weights) return p;
  const double d = static_cast<double>(m.d_model);
  const double e = static_cast<double>(m.embed_proj_dim > 0 ? m.embed_proj_dim : m.d_model);
  const double vocab = static_cast<double>(m.vocab_size);
  // The input gather reads one row per token; a tied table is read whole by the head anyway.
  if (!m.tied_embeddings) p -= static_cast<double>(c.embedding) - std::min(tokens, vocab) * e;
  if (c.positions > 0) {
    p -= static_cast<double>(c.positions) - std::min(tokens, static_cast<double>(m.learned_positions)) * d;
  }
  if (m.moe.enabled() && moe_mode != MoeDecodeBytes::all_experts) {
    for (const LayerKindParams& k : c.layer_kinds) {
      if (!k.moe) continue;
      const double experts_total = static_cast<double>(k.routed_experts_params);
      const double n = static_cast<double>(m.moe.n_experts);
      const double k_top = static_cast<double>(m.moe.top_k);
      const double touched =
          moe_mode == MoeDecodeBytes::top_k ? std::min(n, k_top) : expected_experts_touched(n, k_top, tokens);
      p -= static_cast<double>(k.n_layers) * experts_total * (1.0 - touched / n);
    }
  }
  return p;
}

DecodeStep decode_step(const ModelConfig& m, const ParamCounts& c, const Workload& w, Machine hw) {
  DecodeStep s;
  const double batch = static_cast<double>(w.batch);
  const double context = static_cast<double>(w.context);
  s.params_read = params_read(m, c, batch, w.decode_bytes, w.moe_decode);
  s.weight_bytes = weight_bytes(s.params_read, w.weight_bits);
  s.kv_bytes = kv_bytes_per_sequence(m, context, dtype_bytes(w.kv_dtype)) * batch;
  s.bytes = s.weight_bytes + s.kv_bytes;
  s.flops = (forward_flops_per_token(c, w.basis) + attention_flops_decode_token(m, context)) * batch;
  s.t_memory = s.bytes / hw.bandwidth;
  s.t_compute = s.flops / hw.peak;  // 0 under an unknown (infinite) peak: the memory side alone
  s.t_step = roofline_time(s.flops, s.bytes, hw.peak, hw.bandwidth);
  s.bound = bound_of(s.flops, s.bytes, hw.peak, hw.bandwidth);
  s.tokens_per_s_per_sequence = 1.0 / s.t_step.base();
  s.tokens_per_s = batch / s.t_step.base();
  s.utilisation = s.t_compute / s.t_step;
  s.intensity = s.flops / s.bytes;
  return s;
}

std::optional<std::int64_t> decode_compute_bound_batch(const ModelConfig& m, const ParamCounts& c, const Workload& w,
                                                       Machine hw) {
  Workload probe = w;
  const auto compute_bound = [&](std::int64_t b) {
    probe.batch = b;
    return decode_step(m, c, probe, hw).bound == Bound::compute;
  };
  constexpr std::int64_t kMax = std::int64_t{1} << 30;
  std::int64_t hi = 1;
  while (hi < kMax && !compute_bound(hi)) hi *= 2;
  if (!compute_bound(hi)) return std::nullopt;
  std::int64_t lo = hi / 2;  // memory-bound (or 0)
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    (compute_bound(mid) ? hi : lo) = mid;
  }
  return hi;
}

units::Seconds generation_time(const ModelConfig& m, const ParamCounts& c, const Workload& w, Machine hw) {
  Workload step = w;
  units::Seconds total{};
  for (std::int64_t i = 0; i < w.output; ++i) {
    step.context = w.prompt + i;
    total += decode_step(m, c, step, hw).t_step;
  }
  return total;
}

PrefillPass prefill_pass(const ModelConfig& m, const ParamCounts& c, const Workload& w, Machine hw) {
  PrefillPass p;
  const double batch = static_cast<double>(w.batch);
  const double s = static_cast<double>(w.prompt);
  p.flops = prefill_flops(m, c, s, w.basis, w.lm_head, w.attention) * batch;
  p.attention_flops = attention_flops_prefill(m, s, w.attention) * batch;
  p.weight_bytes = weight_bytes(params_read(m, c, batch * s, w.decode_bytes, w.moe_decode), w.weight_bits);
  p.kv_written = kv_bytes_per_sequence(m, s, dtype_bytes(w.kv_dtype)) * batch;
  p.bytes = p.weight_bytes + p.kv_written;
  p.intensity = p.flops / p.bytes;
  p.t_compute = p.flops / hw.peak;
  p.t_memory = p.bytes / hw.bandwidth;
  p.t_floor = roofline_time(p.flops, p.bytes, hw.peak, hw.bandwidth);
  p.bound = bound_of(p.flops, p.bytes, hw.peak, hw.bandwidth);
  return p;
}

}  // namespace roofline
