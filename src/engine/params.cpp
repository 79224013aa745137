#include "roofline/params.hpp"

#include "roofline/checked.hpp"
#include "roofline/layer_stack.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace roofline {
namespace {

using i64 = std::int64_t;

// An overflow already named by the innermost `counting`.
struct NamedOverflow : OverflowError {
  using OverflowError::OverflowError;
};

// Runs f; an exact count overflowing inside it is reported as what overflowed (the innermost
// name wins).
template <class F>
auto counting(const char* what, F&& f) {
  try {
    return f();
  } catch (const NamedOverflow&) {
    throw;
  } catch (const OverflowError&) {
    throw NamedOverflow(std::string("integer overflow: ") + what + " exceed 2^63 - 1");
  }
}

// Parameters in one norm of width w: RMSNorm has a gain, LayerNorm a gain and a bias.
i64 norm_params(NormKind k, i64 w) {
  switch (k) {
    case NormKind::rmsnorm:
      return w;
    case NormKind::layernorm_nobias:
      return w;
    case NormKind::layernorm:
      return checked_mul(2, w);
    case NormKind::nonparametric:
      return 0;
  }
  return 0;
}

i64 mlp_matrices(MlpKind k) { return k == MlpKind::gated ? 3 : 2; }

class LayerBuilder {
 public:
  explicit LayerBuilder(LayerKindParams& out) : out_(out) {}
  void add(std::string_view id, i64 count, i64 active, bool matrix, i64 vectors = 0) {
    if (count == 0) return;
    out_.parts.push_back({id, count, active, matrix, vectors});
    out_.total = checked_add(out_.total, count);
    out_.active = checked_add(out_.active, active);
    if (matrix) {
      out_.matrix_total = checked_add(out_.matrix_total, count);
      out_.matrix_active = checked_add(out_.matrix_active, active);
    }
  }
  void add(std::string_view id, i64 count, bool matrix) { add(id, count, count, matrix); }

 private:
  LayerKindParams& out_;
};

// DSA's lightning indexer (DeepSeek-V3.2 §2.1): wq_b r -> H_I d_I (r = q_lora_rank, else d), wk
// d -> d_I, k_norm a LayerNorm (gain and bias) of d_I, weights_proj d -> H_I  [DS25]
void add_indexer(const ModelConfig& m, LayerBuilder& b) {
  const SparseIndexerConfig& x = m.indexer;
  if (!x.enabled()) return;
  const i64 d = m.d_model;
  const i64 q_in = m.mla.q_lora_rank > 0 ? m.mla.q_lora_rank : d;
  b.add("indexer_wq", checked_mul(q_in, x.n_heads, x.head_dim), true);
  b.add("indexer_wk", checked_mul(d, x.head_dim), true);
  b.add("indexer_k_norm", norm_params(NormKind::layernorm, x.head_dim), false);
  b.add("indexer_weights", checked_mul(d, x.n_heads), true);
}

// Attention block of one layer of `kind`: q/k/v/o (or MLA's low-rank projections), biases, q/k
// norms, over the kind's head shape (a Gemma 4 global layer: its own d_h and h_kv, and no v_proj
// when K = V).
void add_attention(const ModelConfig& m, const LayerKind& kind, LayerBuilder& b) {
  const i64 d = m.d_model;
  const i64 h = m.n_heads;
  if (m.mla.enabled()) {
    // DeepSeek-V2 §2.1: c_Q = W_DQ h, q = W_UQ c_Q; [c_KV; k_R] = W_DKV h; [k_C; v] = W_UKV c_KV.
    const MlaConfig& a = m.mla;
    const i64 qk_head = a.qk_nope_head_dim + a.qk_rope_head_dim;
    if (a.q_lora_rank > 0) {
      b.add("q_a_proj", checked_mul(d, a.q_lora_rank), true);
      b.add("q_a_norm", norm_params(m.norm, a.q_lora_rank), false);
      b.add("q_b_proj", checked_mul(a.q_lora_rank, h, qk_head), true);
    } else {
      b.add("q_proj", checked_mul(d, h, qk_head), true);
    }
    b.add("kv_a_proj", checked_mul(d, a.kv_lora_rank + a.qk_rope_head_dim), true);
    b.add("kv_a_norm", norm_params(m.norm, a.kv_lora_rank), false);
    b.add("kv_b_proj", checked_mul(a.kv_lora_rank, h, a.qk_nope_head_dim + a.v_head_dim), true);
    b.add("o_proj", checked_mul(h, a.v_head_dim, d), true);
    return;
  }
  const i64 q_width = checked_mul(h, kind.head_dim);
  const i64 kv_width = checked_mul(kind.kv_heads, kind.head_dim);
  const i64 kv_projections = kind.value_proj ? 2 : 1;
  b.add("q_proj", checked_mul(d, q_width), true);
  b.add("k_proj", checked_mul(d, kv_width), true);
  if (kind.value_proj) b.add("v_proj", checked_mul(d, kv_width), true);
  b.add("o_proj", checked_mul(q_width, d), true);
  i64 bias = 0;
  if (m.qkv_bias) bias = checked_add(q_width, checked_mul(kv_projections, kv_width));
  if (m.o_bias) bias = checked_add(bias, d);
  b.add("attn_bias", bias, false);
  // qk_norm = norm_qk(2 d_h) per head or norm_qk(w_q + w_kv) full width, norm_qk = gain only
  // when qk_norm_gain_only (StableLM 2 qk_layernorm) else the layer norm  [formulas.md §5]
  const NormKind qk_kind = m.qk_norm_gain_only ? NormKind::layernorm_nobias : m.norm;
  switch (m.qk_norm) {
    case QkNorm::none:
      break;
    case QkNorm::per_head:
      b.add("qk_norm", norm_params(qk_kind, 2 * kind.head_dim), false);
      break;
    case QkNorm::full_width:
      b.add("qk_norm", norm_params(qk_kind, q_width + kv_width), false);
      break;
  }
}

// One FFN of intermediate width f: gate/up/down (gated) or up/down (plain), optional biases.
// Biases of one FFN of width f: (n - 1) f on gate/up and d on down when the MLP has biases.
i64 ffn_bias_params(const ModelConfig& m, i64 f) {
  return m.mlp_bias ? checked_add(checked_mul(mlp_matrices(m.mlp) - 1, f), m.d_model) : 0;
}

i64 ffn_params(const ModelConfig& m, i64 f) {
  return checked_add(checked_mul(mlp_matrices(m.mlp), m.d_model, f), ffn_bias_params(m, f));
}

void add_dense_mlp(const ModelConfig& m, i64 f, LayerBuilder& b) {
  const i64 d = m.d_model;
  if (m.mlp == MlpKind::gated) {
    b.add("gate_proj", checked_mul(d, f), true);
  }
  b.add("up_proj", checked_mul(d, f), true);
  b.add("down_proj", checked_mul(f, d), true);
  if (m.mlp_bias) b.add("mlp_bias", checked_add(checked_mul(mlp_matrices(m.mlp) - 1, f), d), false);
}

// Returns the parameters of the routed experts (E P_expert).
i64 add_moe_mlp(const ModelConfig& m, LayerBuilder& b) {
  const MoeConfig& e = m.moe;
  const i64 d = m.d_model;
  // Router: a d x E linear (Shazeer et al. 2017); DeepSeek-V3 adds a per-expert correction bias.
  b.add("router", checked_mul(d, e.router_outputs()), true);
  if (e.router_bias) b.add("router_bias", e.router_outputs(), false);
  if (e.correction_bias) b.add("router_correction_bias", e.router_outputs(), false);
  // Gemma 4: router.scale (d) on the weightless input norm and router.per_expert_scale (E)
  if (e.router_scales) b.add("router_scales", checked_add(d, e.n_experts), false);
  const i64 one = counting("the parameters of one MoE expert", [&] { return ffn_params(m, e.d_ff_expert); });
  const i64 routed = counting("the parameters of the MoE experts", [&] { return checked_mul(e.n_experts, one); });
  // With zero-computation experts a token reaches k_e = k (1 - s) FFN experts on average: the
  // expected active count, rounded to a parameter.
  const i64 active = e.zero_experts > 0 ? std::llround(e.ffn_experts_per_token() * static_cast<double>(one))
                                        : checked_mul(e.top_k, one);
  b.add("experts", routed, active, true, checked_mul(e.n_experts, ffn_bias_params(m, e.d_ff_expert)));
  if (e.n_shared_experts > 0) {
    const i64 shared = checked_mul(e.n_shared_experts, ffn_params(m, e.d_ff_shared));
    b.add("shared_experts", shared, shared, true, checked_mul(e.n_shared_experts, ffn_bias_params(m, e.d_ff_shared)));
  }
  if (e.shared_expert_gate) b.add("shared_expert_gate", d, true);
  return routed;
}

// Attention sinks (gpt-oss): one learned logit per query head, added to the softmax's
// denominator: P_sinks = h  [OA25 §2.1]
i64 attention_sink_params(const ModelConfig& m) { return m.n_heads; }

// ---- Hybrid and state-space layers (issue 10) -------------------------------------------------

// Mamba-1 mixer (Gu & Dao 2023 §3; HF MambaMixer): in_proj d -> 2 d_i, depthwise conv1d
// (d_i k_conv + d_i bias), x_proj d_i -> R + 2N, dt_proj R -> d_i with bias, A_log d_i N, D d_i,
// out_proj d_i -> d; Jamba adds RMSNorms on dt (R), B and C (N each).  [GU23]
void add_mamba1(const ModelConfig& m, LayerBuilder& b) {
  const SsmConfig& s = m.hybrid.ssm;
  const i64 d = m.d_model;
  const i64 di = s.d_inner;
  b.add("in_proj", checked_mul(d, 2 * di), true);
  b.add("conv1d", checked_mul(di, s.d_conv), true);
  b.add("x_proj", checked_mul(di, s.dt_rank + 2 * s.d_state), true);
  b.add("dt_proj", checked_add(checked_mul(s.dt_rank, di), di), true);
  b.add("A_log", checked_mul(di, s.d_state), false);
  b.add("D", di, false);
  b.add("out_proj", checked_mul(di, d), true);
  i64 bias = s.conv_bias ? di : 0;
  if (s.proj_bias) bias = checked_add(bias, checked_add(2 * di, d));
  b.add("ssm_bias", bias, false);
  if (s.dt_norms) b.add("dt_b_c_norms", s.dt_rank + 2 * s.d_state, false);
}

// Mamba-2 mixer (Dao & Gu 2024 §7; HF Mamba2Mixer): conv channels c = d_i + 2 g N; in_proj
// d -> d_i + c + H (z, xBC, dt), depthwise conv1d c k_conv (+ c bias), dt_bias, A_log, D (H
// each), gated RMSNorm d_i (optional in Falcon-H1), out_proj d_i -> d.  [DAO24]
void add_mamba2(const ModelConfig& m, LayerBuilder& b) {
  const SsmConfig& s = m.hybrid.ssm;
  const i64 d = m.d_model;
  const i64 conv = checked_add(s.d_inner, checked_mul(2, s.n_groups, s.d_state));
  const i64 in_width = checked_add(checked_add(s.d_inner, conv), s.n_heads);
  b.add("in_proj", checked_mul(d, in_width), true);
  b.add("conv1d", checked_mul(conv, s.d_conv), true);
  b.add("dt_bias_A_log_D", checked_mul(3, s.n_heads), false);
  if (s.gated_norm) b.add("ssm_norm", s.d_inner, false);
  b.add("out_proj", checked_mul(s.d_inner, d), true);
  i64 bias = s.conv_bias ? conv : 0;
  if (s.proj_bias) bias = checked_add(bias, in_width);
  if (s.out_proj_bias.value_or(s.proj_bias)) bias = checked_add(bias, d);
  b.add("ssm_bias", bias, false);
}

// Gated DeltaNet (Yang et al. 2024; HF Qwen3NextGatedDeltaNet): key width K = h_k d_k, value
// width V = h_v d_v; in_proj_qkvz d -> 2K + 2V, in_proj_ba d -> 2 h_v, depthwise conv1d over
// 2K + V channels (no bias), dt_bias and A_log (h_v each), gated RMSNorm d_v, out_proj V -> d.
// [YANG24]
void add_gated_deltanet(const ModelConfig& m, LayerBuilder& b) {
  const DeltaNetConfig& g = m.hybrid.deltanet;
  const i64 d = m.d_model;
  const i64 k = checked_mul(g.n_key_heads, g.key_head_dim);
  const i64 v = checked_mul(g.n_value_heads, g.value_head_dim);
  b.add("in_proj_qkvz", checked_mul(d, checked_add(checked_mul(2, k), checked_mul(2, v))), true);
  b.add("in_proj_ba", checked_mul(d, 2 * g.n_value_heads), true);
  b.add("conv1d", checked_mul(checked_add(checked_mul(2, k), v), g.conv_kernel), true);
  b.add("dt_bias_A_log", 2 * g.n_value_heads, false);
  b.add("delta_norm", g.value_head_dim, false);
  b.add("out_proj", checked_mul(v, d), true);
}

// LFM2's gated short convolution (HF Lfm2ShortConv): in_proj d -> 3d, a depthwise conv1d of d
// channels and kernel L, out_proj d -> d; with conv_bias, 3d + d + d biases.  [LFM2]
void add_short_conv(const ModelConfig& m, LayerBuilder& b) {
  const ShortConvConfig& s = m.hybrid.conv;
  const i64 d = m.d_model;
  b.add("in_proj", checked_mul(3, d, d), true);
  b.add("conv1d", checked_mul(d, s.l_cache), true);
  b.add("out_proj", checked_mul(d, d), true);
  if (s.bias) b.add("conv_bias", checked_mul(5, d), true);
}

// MiniMax lightning attention (MiniMax-01 §2.2, HF MiniMaxLightningAttention): qkv_proj d -> 3 h d_h,
// output_gate d -> h d_h, an RMSNorm of h d_h, out_proj h d_h -> d; no biases, no positions  [MM25]
void add_lightning(const ModelConfig& m, LayerBuilder& b) {
  const i64 d = m.d_model;
  const i64 w = checked_mul(m.n_heads, m.head_dim);
  b.add("qkv_proj", checked_mul(d, 3, w), true);
  b.add("output_gate", checked_mul(d, w), true);
  b.add("lightning_norm", norm_params(m.norm, w), false);
  b.add("out_proj", checked_mul(w, d), true);
}

// One kind of layer: its mixers (attention, a state mixer, or both side by side), its FFN (dense,
// MoE or none) and its norms, as the stack's kind describes it.
LayerKindParams layer_params(const ModelConfig& m, const LayerKind& kind, i64 n_layers) {
  const LayerMix& mix = kind.mix;
  LayerKindParams k;
  k.moe = mix.ffn == LayerFfn::moe;
  k.n_layers = n_layers;
  k.mix = mix;
  k.global_shape = kind.own_shape;
  LayerBuilder b(k);
  if (mix.attention) {
    counting("the attention parameters of one layer", [&] {
      add_attention(m, kind, b);
      add_indexer(m, b);
      // Qwen3-Next: q_proj emits [q; gate], a second d x h d_h.
      if (kind.output_gate) b.add("attn_gate", checked_mul(m.d_model, m.n_heads, kind.head_dim), true);
    });
    if (kind.sinks) b.add("attn_sinks", attention_sink_params(m), false);
  }
  counting("the state-space parameters of one layer", [&] {
    switch (mix.state) {
      case StateMixer::none:
        break;
      case StateMixer::mamba1:
        add_mamba1(m, b);
        break;
      case StateMixer::mamba2:
        add_mamba2(m, b);
        break;
      case StateMixer::gated_deltanet:
        add_gated_deltanet(m, b);
        break;
      case StateMixer::short_conv:
        add_short_conv(m, b);
        break;
      case StateMixer::lightning:
        add_lightning(m, b);
        break;
    }
  });
  if (mix.ffn == LayerFfn::moe) {
    k.routed_experts_params = counting("the MoE parameters of one layer", [&] { return add_moe_mlp(m, b); });
  } else if (mix.ffn == LayerFfn::dense) {
    counting("the MLP parameters of one layer", [&] { add_dense_mlp(m, mix.ffn_width(m.d_ff), b); });
  }
  counting("the parameters of one layer",
           [&] { b.add("norms", checked_mul(kind.norms, norm_params(m.norm, m.d_model)), false); });
  if (kind.scalars > 0) b.add("layer_scalar", kind.scalars, false);
  return k;
}

// The stack's kinds as count_params groups them: by mix and attention shape (a window alone changes
// no parameter), in order of each group's first layer; mllama's cross-attention kind apart.
void stack_layer_kinds(const ModelConfig& m, const LayerStack& stack, ParamCounts& c) {
  for (const LayerKind& kind : stack.kinds) {
    if (kind.cross_attention) continue;
    auto it = std::find_if(c.layer_kinds.begin(), c.layer_kinds.end(), [&](const LayerKindParams& k) {
      return k.mix == kind.mix && k.global_shape == kind.own_shape;
    });
    if (it == c.layer_kinds.end()) {
      c.layer_kinds.push_back(layer_params(m, kind, kind.layers));
    } else {
      it->n_layers += kind.layers;
    }
  }
}
// ---- end hybrid --------------------------------------------------------------------------------

// Embedding, positions, projections, head, final norm, and the totals over them.
void count_outside_layers(const ModelConfig& m, ParamCounts& c, i64 d, i64 e) {
  c.embedding = checked_mul(checked_add(m.vocab_size, m.extra_embedding_rows), e);
  c.positions = checked_mul(m.learned_positions, d);
  c.embedding_norm = m.embedding_norm ? norm_params(m.norm, d) : 0;
  c.embed_proj = m.embed_proj_dim > 0 ? checked_mul(2, e, d) : 0;
  c.final_norm = m.final_norm ? norm_params(m.norm, d) : 0;
  c.head_matmul = checked_mul(m.vocab_size, e);
  c.lm_head_weight = m.tied_embeddings ? 0 : c.head_matmul;
  c.lm_head = c.lm_head_weight;
  if (m.lm_head_bias) c.lm_head = checked_add(c.lm_head, m.vocab_size);

  c.non_embedding = checked_add(checked_add(c.blocks, c.final_norm), checked_add(c.embedding_norm, c.embed_proj));
  c.total = checked_add(checked_add(c.non_embedding, c.embedding), checked_add(c.positions, c.lm_head));
  c.active = c.total - c.blocks + c.blocks_active;
}

// DeepSeek-V3 §2.2: each MTP module stores mtp_vocab_tables vocabulary tables (its own embedding
// and head: 2), norms for the hidden state and the embedding, a 2d -> d projection and one full
// layer (MoE as the model's, dense in LongCat-Flash's).
void count_mtp(const ModelConfig& m, ParamCounts& c) {
  const i64 d = m.d_model;
  const bool moe = m.moe.enabled() && !m.mtp_dense;
  const LayerMix full{.attention = true, .state = StateMixer::none, .ffn = moe ? LayerFfn::moe : LayerFfn::dense};
  const LayerKindParams mtp_layer = layer_params(m, layer_kind_of(m, full), 1);
  i64 one = checked_add(mtp_layer.total, checked_mul(3, norm_params(m.norm, d)));
  one = checked_add(one, checked_mul(2, d, d));
  // Qwen3-Next mtp.*: one full-attention layer, pre-fc norms for the hidden state and the
  // embedding, fc 2d -> d and a final norm; the embedding and head are the model's own, as GLM-5's.
  one = checked_add(one, checked_mul(m.mtp_vocab_tables, c.head_matmul));
  c.mtp_excluded = checked_mul(m.mtp_layers, one);
}

}  // namespace

ParamCounts count_params(const ModelConfig& m) {
  ParamCounts c;
  const LayerStack stack = layer_stack(m);
  stack_layer_kinds(m, stack, c);
  counting("the parameters summed over the layers", [&] {
    for (const LayerKindParams& k : c.layer_kinds) {
      c.blocks = checked_add(c.blocks, checked_mul(k.n_layers, k.total));
      c.blocks_active = checked_add(c.blocks_active, checked_mul(k.n_layers, k.active));
    }
  });

  const i64 d = m.d_model;
  const i64 e = m.embed_proj_dim > 0 ? m.embed_proj_dim : d;  // width of the token table
  counting("the embedding, head or total parameters", [&] { count_outside_layers(m, c, d, e); });

  if (m.mtp_layers > 0) counting("the parameters of the multi-token-prediction modules", [&] { count_mtp(m, c); });
  i64 n_moe = 0;  // MoE layers, of either layout
  for (const LayerKindParams& k : c.layer_kinds) n_moe += k.moe ? k.n_layers : 0;
  if (m.expert_storage.enabled() && n_moe > 0) {
    counting("the stored bytes of the checkpoint", [&] {
      // W_e = L_moe E n d d_fe: the routed experts' weight matrices, biases excluded.
      c.expert_matrix_params = checked_mul(checked_mul(n_moe, m.moe.n_experts),
                                           checked_mul(mlp_matrices(m.mlp), m.d_model, m.moe.d_ff_expert));
      c.checkpoint_bytes = checkpoint_bytes(m, c);
    });
  }

  // mllama: each cross-attention layer is a dense layer plus per-head q/k norms and two scalar gates.
  for (const LayerKind& kind : stack.kinds) {
    if (!kind.cross_attention) continue;
    counting("the parameters of the cross-attention layers", [&] {
      LayerKindParams x = layer_params(m, kind, kind.layers);
      LayerBuilder b(x);
      b.add("cross_qk_norm", checked_mul(2, norm_params(m.norm, m.head_dim)), false);
      b.add("cross_gates", 2, false);
      const i64 one = x.total;
      c.cross_attention_kind = std::move(x);
      c.cross_attention_layer = one;
      c.cross_attention = checked_mul(kind.layers, one);
      c.non_embedding = checked_add(c.non_embedding, c.cross_attention);
      c.total = checked_add(c.total, c.cross_attention);
      c.active = checked_add(c.active, c.cross_attention);
    });
  }

  // Multimodal wrappers: the vision tower and projector are stored and loaded (total) but not
  // read by a decoded text token (active, non_embedding and the layers leave them out).
  if (m.vision.counted()) {
    const VisionParams v = count_vision(m.vision);
    c.vision_tower = v.tower;
    c.vision_projector = v.projector;
    c.vision = checked_add(v.tower, v.projector);
    c.total = counting("the total parameters", [&] { return checked_add(c.total, c.vision); });
  }
  return c;
}

i64 block_scaled_matrix_bytes(i64 rows, i64 cols, const ExpertStorage& s) {
  const i64 blocks = (cols + s.block - 1) / s.block;
  return checked_mul(checked_mul(rows, blocks), (s.block * s.value_bits + s.scale_bits) / 8);
}

i64 checkpoint_bytes(const ModelConfig& m, const ParamCounts& c) {
  const ExpertStorage& s = m.expert_storage;
  if (!s.enabled() || s.block <= 0) return 0;  // validate() reports a block of 0
  const i64 d = m.d_model;
  const i64 f = m.moe.d_ff_expert;
  // One expert: gate and up are f x d (input d), down is d x f (input f).
  i64 one = checked_mul(mlp_matrices(m.mlp) - 1, block_scaled_matrix_bytes(f, d, s));
  one = checked_add(one, block_scaled_matrix_bytes(d, f, s));
  i64 moe_layers = 0;
  for (const LayerKindParams& k : c.layer_kinds) {
    if (k.moe) moe_layers += k.n_layers;
  }
  const i64 experts = checked_mul(checked_mul(moe_layers, m.moe.n_experts), one);
  return checked_add(checked_mul(c.total - c.expert_matrix_params, s.other_bits) / 8, experts);
}

ActiveConventions active_conventions(const ModelConfig& m, const ParamCounts& c) {
  ActiveConventions a;
  a.physical = c.active;
  // A tied table is the head's matrix: a token multiplies it, so only the head convention drops it.
  const i64 input = m.tied_embeddings ? c.positions : checked_add(c.embedding, c.positions);
  a.without_embedding = c.active - input;
  a.without_embedding_or_head = a.without_embedding - c.head_matmul;
  return a;
}

double component_bytes(const ParamComponent& p, double n, const WeightLayout& l) {
  const double count = static_cast<double>(p.count);
  const double vectors = count > 0.0 ? n * static_cast<double>(p.vectors) / count : 0.0;
  return l.bytes(weight_class_of(p.id, p.matrix), n - vectors) + l.bytes(WeightClass::vectors, vectors);
}

double layer_kind_bytes(const LayerKindParams& k, const WeightLayout& l) {
  double sum = 0.0;
  for (const ParamComponent& p : k.parts) sum += component_bytes(p, static_cast<double>(p.count), l);
  return sum;
}

double stored_weight_bytes(const ParamCounts& c, const WeightLayout& l) {
  const auto n = [](i64 x) { return static_cast<double>(x); };
  if (c.layer_kinds.empty() && c.cross_attention == 0) {  // a model known by its count alone
    return l.bytes(WeightClass::attention, n(c.total));
  }
  double sum = 0.0;
  for (const LayerKindParams& k : c.layer_kinds) sum += n(k.n_layers) * layer_kind_bytes(k, l);
  if (c.cross_attention > 0) sum += n(c.cross_attention_kind.n_layers) * layer_kind_bytes(c.cross_attention_kind, l);
  sum += l.bytes(WeightClass::embedding, n(c.embedding + c.positions + c.embed_proj));
  sum += l.bytes(WeightClass::vectors, n(c.embedding_norm + c.final_norm + c.lm_head - c.lm_head_weight));
  sum += l.bytes(WeightClass::head, n(c.lm_head_weight));
  sum += l.bytes(WeightClass::vision, n(c.vision));
  return sum;
}

ParamCounts counts_of_total(std::int64_t n) {
  ParamCounts c;
  c.blocks = n;
  c.blocks_active = n;
  c.non_embedding = n;
  c.total = n;
  c.active = n;
  return c;
}

}  // namespace roofline
