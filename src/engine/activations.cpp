#include "roofline/activations.hpp"

#include "roofline/layer_stack.hpp"

#include <cstdint>

namespace roofline {

units::Bytes LayerActivations::total() const {
  return norm_inputs + attn_input + mla_latents + qk_norm_inputs + query + key + value + softmax_output +
         softmax_dropout_mask + softmax_dropout_output + softmax_stats + attn_output + attn_dropout_mask + mlp_input +
         moe_dispatched_input + mlp_gate_output + mlp_up_output + mlp_activation_output + mlp_dropout_mask +
         layer_input;
}

LayerWidths layer_widths(const ModelConfig& m, bool moe_layer) {
  return layer_widths(m, moe_layer, model_head_shape(m));
}

LayerWidths layer_widths(const ModelConfig& m, bool moe_layer, HeadShape shape) {
  LayerWidths w;
  w.w_q = m.n_heads * shape.head_dim;
  w.w_k = shape.kv_heads * shape.head_dim;
  w.w_v = w.w_k;
  w.w_o = w.w_q;
  if (m.mla.enabled()) {
    w.w_q = m.n_heads * (m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim);
    w.w_k = w.w_q;
    w.w_v = m.n_heads * m.mla.v_head_dim;
    w.w_o = w.w_v;
    w.latents = 2 * m.mla.q_lora_rank + 2 * m.mla.kv_lora_rank + m.mla.qk_rope_head_dim;
  }
  const bool moe = moe_layer && m.moe.enabled();
  w.k = moe ? m.moe.top_k : 0;
  w.f = moe ? m.moe.top_k * m.moe.d_ff_expert + m.moe.n_shared_experts * m.moe.d_ff_shared : m.d_ff;
  return w;
}

namespace {

// The attention sublayer's terms of one layer: its input, the q/k norms' inputs, Q, K, V, the core
// (the scores and their dropout, or flash attention's statistics), the output and its dropout mask.
// The sizes every term is a product of: s, b, h, t, e, the mask's bytes, s b, and rep, the split of
// the tensors outside the tensor-parallel regions (t with sequence parallelism, else 1)  [KO22 §4.2.2]
struct Dims {
  double s, b, h, t, e, mask, sb, rep;
};
Dims dims_of(const ModelConfig& m, const ActivationOptions& o) {
  const double t = o.tensor_parallel;
  return {.s = o.seq_len,
          .b = o.micro_batch,
          .h = static_cast<double>(m.d_model),
          .t = t,
          .e = o.bytes_per_element,
          .mask = o.dropout_mask_bytes,
          .sb = o.seq_len * o.micro_batch / o.context_parallel,  // the tokens this rank holds
          .rep = o.sequence_parallel ? t : 1.0};
}

void add_attention_terms(const ModelConfig& m, const ActivationOptions& o, const LayerWidths& widths,
                         LayerActivations& r) {
  const auto [s, b, h, t, e, mask, sb, rep] = dims_of(m, o);
  const double a = static_cast<double>(m.n_heads);
  const auto w_q = static_cast<double>(widths.w_q);
  const auto w_k = static_cast<double>(widths.w_k);
  const auto w_v = static_cast<double>(widths.w_v);
  const auto w_o = static_cast<double>(widths.w_o);
  if (m.mla.enabled()) r.mla_latents = units::Bytes{sb * static_cast<double>(widths.latents) * e / rep};
  r.attn_input = units::Bytes{sb * h * e / rep};
  if (m.qk_norm != QkNorm::none) r.qk_norm_inputs = units::Bytes{sb * (w_q + w_k) * e / t};
  r.query = units::Bytes{sb * w_q * e / t};
  r.key = units::Bytes{sb * w_k * e / t};
  r.value = units::Bytes{sb * w_v * e / t};

  // The attention core: what selective recomputation drops  [KO22 §5].
  if (o.recompute == Recompute::none) {
    if (o.flash_attention) {
      r.softmax_stats = units::Bytes{4.0 * a * sb / t};  // fp32 log-sum-exp per head and token [DA22]
    } else {
      const double scores = a * s * sb / t;  // this rank's queries against all s keys
      r.softmax_output = units::Bytes{scores * e};
      if (o.dropout) {
        r.softmax_dropout_mask = units::Bytes{scores * mask};
        r.softmax_dropout_output = units::Bytes{scores * e};
      }
    }
  }
  r.attn_output = units::Bytes{sb * w_o * e / t};
  if (o.dropout) r.attn_dropout_mask = units::Bytes{sb * h * mask / rep};
}

}  // namespace

LayerActivations layer_activations(const ModelConfig& m, const ActivationOptions& o, const LayerKind& kind) {
  const bool moe_layer = kind.mix.ffn == LayerFfn::moe;
  // Outside the tensor-parallel regions (norms, dropout, the inputs of attention and MLP) every
  // rank keeps the whole tensor, unless sequence parallelism splits it along s  [KO22 §4.2.2].
  const auto [s, b, h, t, e, mask, sb, rep] = dims_of(m, o);

  LayerActivations r;
  if (o.recompute == Recompute::full) {
    r.layer_input = units::Bytes{sb * h * e / rep};
    return r;
  }

  // Widths of the attention tensors the backward needs.
  const LayerWidths widths = kind.mix.attention
                                 ? layer_widths(m, moe_layer, {.head_dim = kind.head_dim, .kv_heads = kind.kv_heads})
                                 : layer_widths(m, moe_layer);
  r.norm_inputs = units::Bytes{static_cast<double>(kind.norms) * sb * h * e / rep};
  if (kind.mix.attention) add_attention_terms(m, o, widths, r);
  if (kind.mix.ffn == LayerFfn::none) return r;

  // MLP: f is the width one token passes through; MoE: k routed experts and the shared experts.
  const auto f = static_cast<double>(moe_layer ? widths.f : kind.mix.ffn_width(m.d_ff));
  if (!m.parallel_block) r.mlp_input = units::Bytes{sb * h * e / rep};
  if (widths.k > 0) r.moe_dispatched_input = units::Bytes{static_cast<double>(widths.k) * sb * h * e / rep};
  if (m.mlp == MlpKind::gated) r.mlp_gate_output = units::Bytes{sb * f * e / t};
  r.mlp_up_output = units::Bytes{sb * f * e / t};
  r.mlp_activation_output = units::Bytes{sb * f * e / t};
  if (o.dropout) r.mlp_dropout_mask = units::Bytes{sb * h * mask / rep};
  return r;
}

LayerActivations layer_activations(const ModelConfig& m, const ActivationOptions& o, bool moe_layer) {
  const bool moe = moe_layer && m.moe.enabled();
  return layer_activations(
      m, o,
      layer_kind_of(m, {.attention = true, .state = StateMixer::none, .ffn = moe ? LayerFfn::moe : LayerFfn::dense}));
}

units::Bytes model_layer_activations(const ModelConfig& m, const ActivationOptions& o) {
  units::Bytes sum{};
  for (const LayerKind& k : layer_kinds(m)) {
    if (k.cross_attention) continue;  // the L decoder layers, as before mllama's kind
    sum += layer_activations(m, o, k).total() * static_cast<double>(k.layers);
  }
  return sum;
}

}  // namespace roofline
