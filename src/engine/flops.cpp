#include "roofline/flops.hpp"

#include "roofline/memory.hpp"

#include <algorithm>

namespace roofline {

std::int64_t flop_params(const ParamCounts& c, FlopBasis basis) {
  switch (basis) {
    case FlopBasis::physical:
      // The head multiplies every token even when it shares storage with the embedding.
      return c.active - c.embedding - c.positions - c.lm_head_weight + c.head_matmul;
    case FlopBasis::non_embedding:
      return c.non_embedding - c.blocks + c.blocks_active;
    case FlopBasis::all_params:
      return c.active;
  }
  return c.active;
}

units::Flop forward_flops_per_token(const ParamCounts& c, FlopBasis basis) {
  return units::Flop{2.0 * static_cast<double>(flop_params(c, basis))};
}

double attention_flops_per_pair(const ModelConfig& m) { return attention_flops_per_pair(m, model_head_shape(m)); }

double attention_flops_per_pair(const ModelConfig& m, HeadShape shape) {
  const double h = static_cast<double>(m.n_heads);
  if (m.mla.enabled()) {
    const double qk = h * static_cast<double>(m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim);
    const double v = h * static_cast<double>(m.mla.v_head_dim);
    return 2.0 * (qk + v);
  }
  const double w = h * static_cast<double>(shape.head_dim);
  return 2.0 * (w + w);
}

double indexer_flops_per_pair(const ModelConfig& m) {
  if (!m.indexer.enabled()) return 0.0;
  return 2.0 * static_cast<double>(m.indexer.n_heads) * static_cast<double>(m.indexer.head_dim + 1);
}

double attention_pairs(double s, std::int64_t window, AttentionMode mode) {
  const double w = window > 0 ? static_cast<double>(window) : s;
  if (mode == AttentionMode::full) return s * std::min(s, w);
  if (s <= w) return s * s / 2.0;
  return s * w - w * w / 2.0;
}

units::Flop attention_flops_prefill(const ModelConfig& m, double s, AttentionMode mode) {
  const AttentionSpans spans = attention_spans(m, attention_windows(m));
  double flops = spans.global_flops * attention_pairs(s, 0, mode);
  if (spans.windows.sliding_layers > 0) flops += spans.sliding_flops * attention_pairs(s, spans.windows.window, mode);
  const double scored = static_cast<double>(m.attention_layers()) * attention_pairs(s, 0, mode);
  return units::Flop{flops + (m.indexer.enabled() ? indexer_flops_per_pair(m) * scored : 0.0)};
}

units::Flop attention_flops_decode_token(const ModelConfig& m, double context) {
  const double scored =
      m.indexer.enabled() ? indexer_flops_per_pair(m) * attended_keys(layer_windows(m), context) : 0.0;
  return units::Flop{attention_spans(m, attention_windows(m)).flops(context) + scored};
}

PrefillFlopTerms prefill_flop_terms(const ModelConfig& m, const ParamCounts& c, double s, FlopBasis basis,
                                    LmHeadPositions head, AttentionMode mode) {
  PrefillFlopTerms t;
  t.tokens = s;
  // Every basis but non-embedding carries the head in its per-token count; serving engines
  // run the head on the last position only.
  t.head = units::Flop{basis == FlopBasis::non_embedding ? 0.0 : 2.0 * static_cast<double>(c.head_matmul)};
  t.per_token_without_head = forward_flops_per_token(c, basis) - t.head;
  t.head_positions = head == LmHeadPositions::all ? s : std::min(s, 1.0);
  t.attention = attention_flops_prefill(m, s, mode);
  t.total = t.per_token_without_head * s + t.head * t.head_positions + t.attention;
  return t;
}

units::Flop prefill_flops(const ModelConfig& m, const ParamCounts& c, double s, FlopBasis basis, LmHeadPositions head,
                          AttentionMode mode) {
  return prefill_flop_terms(m, c, s, basis, head, mode).total;
}

double mean_layer_matrix_params(const ModelConfig& m, const ParamCounts& c) {
  double sum = 0.0;
  for (const LayerKindParams& k : c.layer_kinds) {
    sum += static_cast<double>(k.n_layers) * static_cast<double>(k.matrix_active);
  }
  return m.n_layers > 0 ? sum / static_cast<double>(m.n_layers) : 0.0;
}

double attention_crossover_tokens(const ModelConfig& m, const ParamCounts& c, AttentionMode mode) {
  const double p = mean_layer_matrix_params(m, c);
  // a per layer, the mean over the attention layers (Gemma 4's global layers have their own)
  const AttentionSpans spans = attention_spans(m, layer_windows(m));
  const double layers = static_cast<double>(m.attention_layers());
  const double a = layers > 0.0 ? (spans.global_flops + spans.sliding_flops) / layers : 0.0;
  if (!(a > 0.0)) return 0.0;  // no attention (Mamba): the projections are all there is
  return (mode == AttentionMode::full ? 2.0 : 4.0) * p / a;
}

double attention_share(const ModelConfig& m, const ParamCounts& c, double s, AttentionMode mode) {
  const double attn = attention_flops_prefill(m, s, mode).base();
  const double proj = 2.0 * s * mean_layer_matrix_params(m, c) * static_cast<double>(m.n_layers);
  return attn / (attn + proj);
}

}  // namespace roofline
