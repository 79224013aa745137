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
  // A decoded text token reads the language model only: a wrapper's vision tower is not read.
  double p = static_cast<double>(c.total - c.vision);
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
      const double k_top = m.moe.ffn_experts_per_token();
      const double touched =
          moe_mode == MoeDecodeBytes::top_k ? std::min(n, k_top) : expected_experts_touched(n, k_top, tokens);
      p -= static_cast<double>(k.n_layers) * experts_total * (1.0 - touched / n);
    }
  }
  return p;
}

units::Bytes weights_read_bytes(const ModelConfig& m, const ParamCounts& c, double tokens, const Workload& w) {
  const WeightLayout& l = w.weights;
  if (l.uniform()) return weight_bytes(params_read(m, c, tokens, w.decode_bytes, w.moe_decode), w.weight_bits);
  // params_read's terms, each in its class: the language model whole, less the table rows the
  // gather skips and the experts no token routes to.
  double b = stored_weight_bytes(c, l) - l.bytes(WeightClass::vision, static_cast<double>(c.vision));
  if (w.decode_bytes == DecodeBytes::all_weights) return units::Bytes{b};
  const double d = static_cast<double>(m.d_model);
  const double e = static_cast<double>(m.embed_proj_dim > 0 ? m.embed_proj_dim : m.d_model);
  const double vocab = static_cast<double>(m.vocab_size);
  if (!m.tied_embeddings)
    b -= l.bytes(WeightClass::embedding, static_cast<double>(c.embedding) - std::min(tokens, vocab) * e);
  if (c.positions > 0) {
    b -= l.bytes(WeightClass::embedding,
                 static_cast<double>(c.positions) - std::min(tokens, static_cast<double>(m.learned_positions)) * d);
  }
  if (m.moe.enabled() && w.moe_decode != MoeDecodeBytes::all_experts) {
    const double n = static_cast<double>(m.moe.n_experts);
    const double k_top = m.moe.ffn_experts_per_token();
    const double touched =
        w.moe_decode == MoeDecodeBytes::top_k ? std::min(n, k_top) : expected_experts_touched(n, k_top, tokens);
    for (const LayerKindParams& k : c.layer_kinds) {
      for (const ParamComponent& p : k.parts) {
        if (!k.moe || p.id != "experts") continue;
        b -=
            static_cast<double>(k.n_layers) * component_bytes(p, static_cast<double>(p.count) * (1.0 - touched / n), l);
      }
    }
  }
  return units::Bytes{b};
}

units::Bytes stored_weights(const ParamCounts& c, const Workload& w) {
  if (w.weights.uniform()) return weight_bytes(static_cast<double>(c.total), w.weight_bits);
  return units::Bytes{stored_weight_bytes(c, w.weights)};
}

namespace {
DeviceParams in_bytes(DeviceParams p, double bits) {
  return {.first_stage = weight_bytes(p.first_stage, bits).base(),
          .last_stage = weight_bytes(p.last_stage, bits).base()};
}
}  // namespace

DeviceParams weights_per_device(const ParamCounts& c, ParallelDegrees d, const Workload& w) {
  if (w.weights.uniform()) return in_bytes(params_per_device(c, d), w.weight_bits);
  return params_per_device(c, d, &w.weights);
}

DeviceParams weights_read_per_device(const ModelConfig& m, const ParamCounts& c, ParallelDegrees d, double tokens,
                                     double expert_tokens, const Workload& w) {
  if (w.weights.uniform()) {
    return in_bytes(params_read_per_device(m, c, d, tokens, expert_tokens, w.decode_bytes, w.moe_decode),
                    w.weight_bits);
  }
  return params_read_per_device(m, c, d, tokens, expert_tokens, w.decode_bytes, w.moe_decode, &w.weights);
}

DeviceParams params_read_per_device(const ModelConfig& m, const ParamCounts& c, ParallelDegrees d, double tokens,
                                    double expert_tokens, DecodeBytes mode, MoeDecodeBytes moe_mode,
                                    const WeightLayout* bytes) {
  const auto t = static_cast<double>(d.tensor);
  const auto in = [&](WeightClass k, double n) { return bytes ? bytes->bytes(k, n) : n; };
  // A wrapper's vision tower sits on the first stage (params_per_device) but a text token skips it.
  const double vision = in(WeightClass::vision, static_cast<double>(c.vision) / t);
  if (mode == DecodeBytes::all_weights) {
    DeviceParams r = params_per_device(c, d, bytes);
    r.first_stage -= vision;
    if (d.pipeline == 1) r.last_stage = r.first_stage;
    return r;
  }
  if (m.moe.enabled() && moe_mode != MoeDecodeBytes::all_experts) {
    const double n = static_cast<double>(m.moe.n_experts);
    const double k = m.moe.ffn_experts_per_token();
    const double touched =
        moe_mode == MoeDecodeBytes::top_k ? std::min(n, k) : expected_experts_touched(n, k, expert_tokens);
    d.expert_share = n > 0.0 ? touched / n : 1.0;
  }
  DeviceParams r = params_per_device(c, d, bytes);
  double skipped = vision;
  if (!m.tied_embeddings) {
    const double e = static_cast<double>(m.embed_proj_dim > 0 ? m.embed_proj_dim : m.d_model);
    const double held = static_cast<double>(c.embedding) / t;
    skipped +=
        in(WeightClass::embedding, std::max(0.0, held - std::min(tokens, static_cast<double>(m.vocab_size)) / t * e));
  }
  if (c.positions > 0) {  // learned positions: replicated, n rows read
    const double rows = std::min(tokens, static_cast<double>(m.learned_positions));
    skipped += in(WeightClass::embedding,
                  std::max(0.0, static_cast<double>(c.positions) - rows * static_cast<double>(m.d_model)));
  }
  r.first_stage -= skipped;
  if (d.pipeline == 1) r.last_stage = r.first_stage;
  return r;
}

DecodeStep decode_step(const ModelConfig& m, const ParamCounts& c, const Workload& w, Machine hw) {
  return verification_step(m, c, w, hw, 1.0);
}

DecodeStep verification_step(const ModelConfig& m, const ParamCounts& c, const Workload& w, Machine hw,
                             double tokens_per_sequence) {
  DecodeStep s;
  const double batch = static_cast<double>(w.batch);
  const double context = static_cast<double>(w.context);
  const double tokens = batch * tokens_per_sequence;
  s.params_read = params_read(m, c, tokens, w.decode_bytes, w.moe_decode);
  // params_read once: a uniform layout's bytes are its N_read b_w / 8.
  s.weight_bytes =
      w.weights.uniform() ? weight_bytes(s.params_read, w.weight_bits) : weights_read_bytes(m, c, tokens, w);
  s.kv_bytes = kv_read_bytes_per_sequence(m, context, w.cache_bytes()) * batch;
  s.bytes = s.weight_bytes + s.kv_bytes;
  s.flops = (forward_flops_per_token(c, w.basis) + attention_flops_decode_token(m, context)) * tokens;
  s.t_memory = s.bytes / hw.bandwidth;
  s.t_compute = s.flops / hw.peak;  // 0 under an unknown (infinite) peak: the memory side alone
  s.t_step = roofline_time(s.flops, s.bytes, hw.peak, hw.bandwidth);
  s.bound = bound_of(s.flops, s.bytes, hw.peak, hw.bandwidth);
  s.tokens_per_s_per_sequence = tokens_per_sequence / s.t_step.base();
  s.tokens_per_s = tokens / s.t_step.base();
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
  // Compute-bound at B stays so at every larger B (the weights read grow slower than B), so a
  // step memory-bound at the largest batch is memory-bound at all of them.
  if (!compute_bound(kMax)) return std::nullopt;
  std::int64_t hi = 1;
  while (hi < kMax && !compute_bound(hi)) hi *= 2;
  std::int64_t lo = hi / 2;  // memory-bound (or 0)
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    (compute_bound(mid) ? hi : lo) = mid;
  }
  return hi;
}

namespace {

// t(j) = a + b j over the integers j of one stretch of steps.
struct Affine {
  double a = 0.0;
  double b = 0.0;
  // sum_{j0 <= j < j1} (a + b j) = n a + b n (j0 + j1 - 1) / 2, n = j1 - j0
  [[nodiscard]] double sum(double j0, double j1) const {
    const double n = j1 - j0;
    return n > 0.0 ? n * a + b * (n * (j0 + j1 - 1.0) / 2.0) : 0.0;
  }
};

// One decode step at context T as lines in T: with the spans of attention_windows (E_g, E_s
// elements and A_g, A_s FLOPs per key over the global and sliding layers) and y = L_a T, the keys
// a DSA indexer scores,
// t_mem = (W + B M_S + B b_kv (E_g T + E_s min(T, W)) + B b_kv d_I y) / BW (M_S: a hybrid's
// recurrent state) and t_comp = B (C_fwd + A_g T + A_s min(T, W) + i y) / P. The weights read
// depend on B only, so they are the same at every step of a generation.
struct StepLine {
  double a = 0.0;        ///< the step at T = 0
  double global = 0.0;   ///< per token of context, the global layers
  double sliding = 0.0;  ///< per token of context under the window, the sliding layers
  double scored = 0.0;   ///< per key the indexer scores
};

struct StepLines {
  StepLine memory;
  StepLine compute;
  double scoring_layers = 0.0;  ///< L_a with an indexer, else 0
  double window = 0.0;          ///< W, 0 without sliding layers
};

StepLines step_lines(const ModelConfig& m, const ParamCounts& c, const Workload& w, Machine hw) {
  const double batch = static_cast<double>(w.batch);
  const double bw = hw.bandwidth.base();
  const double peak = hw.peak.base();  // infinite when unknown: the compute line is then 0
  const double weights = weights_read_bytes(m, c, batch, w).base();
  const CacheBytes cache = w.cache_bytes();
  const double b_kv = cache.kv;
  const AttentionSpans spans = attention_spans(m, attention_windows(m));
  // A hybrid's recurrent state is read at every step, whatever the context (issue 10).
  const double state = state_bytes_per_sequence(m, cache).base();
  return {.memory = {.a = (weights + batch * state) / bw,
                     .global = batch * spans.global_elements * b_kv / bw,
                     .sliding = batch * spans.sliding_elements * b_kv / bw,
                     .scored = batch * static_cast<double>(indexer_elements_per_token_layer(m)) * b_kv / bw},
          .compute = {.a = batch * forward_flops_per_token(c, w.basis).base() / peak,
                      .global = batch * spans.global_flops / peak,
                      .sliding = batch * spans.sliding_flops / peak,
                      .scored = batch * indexer_flops_per_pair(m) / peak},
          .scoring_layers = m.indexer.enabled() ? static_cast<double>(m.attention_layers()) : 0.0,
          .window = spans.windows.sliding_layers > 0 ? static_cast<double>(spans.windows.window) : 0.0};
}

// A line in the step offset j = T - t0 over a stretch below the window (the sliding layers grow)
// or at or above it (they hold W keys), r the keys scored per token of context.
Affine in_steps(const StepLine& line, bool below_window, double window, double r, double t0) {
  const double slope = line.global + (below_window ? line.sliding : 0.0) + line.scored * r;
  const double fixed = below_window ? 0.0 : line.sliding * window;
  return {.a = line.a + fixed + slope * t0, .b = slope};
}

double step_at(const StepLine& line, double window, double r, double t) {
  const double sliding = window > 0.0 ? std::min(t, window) : 0.0;
  return line.a + line.global * t + line.sliding * sliding + line.scored * r * t;
}

struct StretchSum {
  double total = 0.0;
  double compute_bound = 0.0;
};

// sum_{0 <= j < n} max(mem(j), comp(j)). comp - mem is affine, so the max changes branch at most
// once, at j* = (mem.a - comp.a) / (comp.b - mem.b); a tie counts as compute-bound, as bound_of.
StretchSum sum_of_max(Affine mem, Affine comp, double n) {
  const double slope = comp.b - mem.b;
  const double gap = comp.a - mem.a;  // comp(0) - mem(0)
  double first_compute = 0.0;         // compute-bound on [first_compute, last_compute)
  double last_compute = 0.0;
  if (slope == 0.0) {
    last_compute = gap >= 0.0 ? n : 0.0;
  } else {
    const double cross = -gap / slope;
    if (slope > 0.0) {
      first_compute = std::clamp(std::ceil(cross), 0.0, n);
      last_compute = n;
    } else {
      last_compute = std::clamp(std::floor(cross) + 1.0, 0.0, n);
    }
  }
  const double compute_steps = last_compute - first_compute;
  return {.total = mem.sum(0.0, first_compute) + comp.sum(first_compute, last_compute) + mem.sum(last_compute, n),
          .compute_bound = compute_steps};
}

}  // namespace

GenerationTime generation_timing(const ModelConfig& m, const ParamCounts& c, const Workload& w, Machine hw) {
  GenerationTime g;
  if (w.output <= 0) return g;
  const StepLines lines = step_lines(m, c, w, hw);
  const double r = lines.scoring_layers;
  const double window = lines.window;
  // Token arithmetic in double: S + O may pass 2^63.
  const double start = static_cast<double>(w.prompt);
  const double end = start + static_cast<double>(w.output);  // exclusive
  // On [from, to) all layers grow below the window; at or above it only global ones.
  const auto stretch = [&](double from, double to, bool below_window) {
    if (to <= from) return;
    const StretchSum s = sum_of_max(in_steps(lines.memory, below_window, window, r, from),
                                    in_steps(lines.compute, below_window, window, r, from), to - from);
    g.total += units::Seconds{s.total};
    g.compute_bound_steps += s.compute_bound;
  };
  if (window > 0.0) {
    stretch(start, std::min(end, window), true);
    stretch(std::max(start, window), end, false);
  } else {
    stretch(start, end, true);
  }
  const auto step = [&](double t) {
    return units::Seconds{std::max(step_at(lines.memory, window, r, t), step_at(lines.compute, window, r, t))};
  };
  g.first_step = step(start);
  g.last_step = step(end - 1.0);
  g.mean_step = g.total / static_cast<double>(w.output);
  return g;
}

units::Seconds generation_time(const ModelConfig& m, const ParamCounts& c, const Workload& w, Machine hw) {
  return generation_timing(m, c, w, hw).total;
}

PrefillPass prefill_pass(const ModelConfig& m, const ParamCounts& c, const Workload& w, Machine hw) {
  PrefillPass p;
  const double batch = static_cast<double>(w.batch);
  const double s = static_cast<double>(w.prompt);
  p.flops = prefill_flops(m, c, s, w.basis, w.lm_head, w.attention) * batch;
  p.attention_flops = attention_flops_prefill(m, s, w.attention) * batch;
  p.weight_bytes = weights_read_bytes(m, c, batch * s, w);
  p.kv_written = kv_bytes_per_sequence(m, s, w.cache_bytes()) * batch;
  p.bytes = p.weight_bytes + p.kv_written;
  p.intensity = p.flops / p.bytes;
  p.t_compute = p.flops / hw.peak;
  p.t_memory = p.bytes / hw.bandwidth;
  p.t_floor = roofline_time(p.flops, p.bytes, hw.peak, hw.bandwidth);
  p.bound = bound_of(p.flops, p.bytes, hw.peak, hw.bandwidth);
  return p;
}

SteadyState steady_state(const ModelConfig& m, const ParamCounts& c, const Workload& w, Machine hw, double concurrency,
                         double shared_prefix) {
  SteadyState r;
  const double n = concurrency;
  const double s = static_cast<double>(w.prompt);
  const double o = std::max(1.0, static_cast<double>(w.output));
  const double p = std::min(shared_prefix, s);
  r.concurrency = n;
  r.mean_context = s + static_cast<double>(w.output) / 2.0;
  r.prefill_tokens = n * (s - p) / o;
  r.decode_flops = (forward_flops_per_token(c, w.basis) + attention_flops_decode_token(m, r.mean_context)) * n;
  // A cached prefix is not prefilled again; with the head on the last position only, both passes
  // count one head, which the request still needs.
  units::Flop per_request = prefill_flops(m, c, s, w.basis, w.lm_head, w.attention);
  if (p > 0.0) {
    per_request -= prefill_flops(m, c, p, w.basis, w.lm_head, w.attention);
    if (w.lm_head == LmHeadPositions::last) per_request += units::Flop{2.0 * static_cast<double>(c.head_matmul)};
  }
  r.prefill_flops = per_request * (n / o);
  r.flops = r.decode_flops + r.prefill_flops;
  r.weight_bytes = weights_read_bytes(m, c, n + r.prefill_tokens, w);
  const CacheBytes kv = w.cache_bytes();
  r.kv_read = kv_read_bytes_per_sequence(m, r.mean_context, kv) * n;
  r.kv_written = kv_bytes_per_token(m, kv) * r.prefill_tokens;
  r.bytes = r.weight_bytes + r.kv_read + r.kv_written;
  r.t_memory = r.bytes / hw.bandwidth;
  r.t_compute = r.flops / hw.peak;
  r.t_step = roofline_time(r.flops, r.bytes, hw.peak, hw.bandwidth);
  r.bound = bound_of(r.flops, r.bytes, hw.peak, hw.bandwidth);
  r.tokens_per_s_per_user = 1.0 / r.t_step.base();
  r.tokens_per_s = n / r.t_step.base();
  r.requests_per_s = r.tokens_per_s / o;
  return r;
}

}  // namespace roofline
