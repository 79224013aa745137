#include "roofline/layer_stack.hpp"

#include <algorithm>

namespace roofline {

std::int64_t LayerStack::layers() const {
  std::int64_t n = 0;
  for (const LayerKind& k : kinds) n += k.layers;
  return n;
}

namespace {

// What a kind's layers carry beside their mix, from the model's flags: the flags are read here
// once, so the formulas over the stack read kinds.
void add_features(const ModelConfig& m, LayerKind& k) {
  const bool mixer = k.mix.attention || k.mix.state != StateMixer::none;
  k.norms = m.hybrid.enabled() ? (mixer ? 1 : 0) + (k.mix.ffn != LayerFfn::none ? 1 : 0) : m.norms_per_layer;
  k.sinks = k.mix.attention && m.attention_sinks;
  k.output_gate = k.mix.attention && m.hybrid.attn_output_gate;
  k.topk = k.mix.attention && m.indexer.enabled() ? m.indexer.topk : 0;
  k.scalars = m.layer_scalar ? 1 : 0;
  if (m.moe.extra_norms > 0 && k.mix.ffn == LayerFfn::moe) k.norms += m.moe.extra_norms;
  const bool own = k.mix.attention && !k.sliding && !k.cross_attention && m.global_attention.enabled();
  const HeadShape shape = own ? global_head_shape(m) : model_head_shape(m);
  k.head_dim = k.mix.attention ? shape.head_dim : 0;
  k.kv_heads = k.mix.attention ? shape.kv_heads : 0;
  k.value_proj = !(own && m.global_attention.k_eq_v);
  k.own_shape = own;
}

}  // namespace

LayerKind layer_kind_of(const ModelConfig& m, const LayerMix& mix) {
  LayerKind k{.moe = mix.ffn == LayerFfn::moe, .mix = mix, .layers = 1};
  add_features(m, k);
  return k;
}

LayerStack layer_stack(const ModelConfig& m) {
  LayerStack s;
  std::vector<LayerKind>& kinds = s.kinds;
  for (std::int64_t i = 0; i < m.n_layers; ++i) {
    const bool moe = m.is_moe_layer(i);
    const bool sliding = m.is_sliding_layer(i);
    const LayerMix mix =
        m.hybrid.enabled()
            ? m.hybrid.layers[static_cast<std::size_t>(i)]
            : LayerMix{.attention = true, .state = StateMixer::none, .ffn = moe ? LayerFfn::moe : LayerFfn::dense};
    auto it = std::find_if(kinds.begin(), kinds.end(),
                           [&](const LayerKind& k) { return k.mix == mix && k.sliding == sliding; });
    const auto index = static_cast<std::size_t>(it - kinds.begin());
    if (!s.runs.empty() && s.runs.back().kind == index) {
      ++s.runs.back().count;
    } else {
      s.runs.push_back({.kind = index, .first = i, .count = 1});
    }
    if (it == kinds.end()) {
      kinds.push_back({.moe = moe,
                       .sliding = sliding,
                       .mix = mix,
                       .layers = 1,
                       .first = i,
                       .last = i,
                       .every = 1,
                       .window = sliding ? m.sliding_window : 0});
      add_features(m, kinds.back());
      continue;
    }
    const std::int64_t step = i - it->last;
    if (it->layers == 1) {
      it->every = step;
    } else if (it->every != step) {
      it->every = 0;
    }
    it->last = i;
    ++it->layers;
  }
  if (m.cross_attention_layers > 0) {
    kinds.push_back({.mix = {.attention = true, .state = StateMixer::none, .ffn = LayerFfn::dense},
                     .cross_attention = true,
                     .layers = m.cross_attention_layers,
                     .every = 0});
    add_features(m, kinds.back());
  }
  return s;
}

std::vector<LayerKind> layer_kinds(const ModelConfig& m) { return layer_stack(m).kinds; }

}  // namespace roofline
