#include "roofline/layer_ops.hpp"

#include "roofline/decode.hpp"
#include "roofline/dtype.hpp"
#include "roofline/flops.hpp"
#include "roofline/memory.hpp"
#include "roofline/misc.hpp"

#include <algorithm>

namespace roofline {
namespace {

double as_double(std::int64_t v) { return static_cast<double>(v); }

// A component of count_params's layer kind: stored and per-token parameters (0 when absent).
struct Part {
  double count = 0.0;
  double active = 0.0;
};

Part part(const LayerKindParams& k, std::string_view id) {
  for (const ParamComponent& p : k.parts) {
    if (p.id == id) return {as_double(p.count), as_double(p.active)};
  }
  return {};
}

// count_params's kind for a layer kind: a transformer's by its FFN, a hybrid's by its mix, mllama's
// cross-attention layers their own.
const LayerKindParams* kind_params(const ModelConfig& m, const ParamCounts& c, const LayerKind& kind) {
  if (kind.cross_attention) return c.cross_attention_kind.n_layers > 0 ? &c.cross_attention_kind : nullptr;
  for (const LayerKindParams& k : c.layer_kinds) {
    if (m.hybrid.enabled() ? k.mix == kind.mix : k.moe == kind.moe && k.global_shape == kind.own_shape) return &k;
  }
  return nullptr;
}

// Weight bytes of a row: n b_w / 8 under a uniform layout; else n at its class's format with the
// folded vectors at theirs, as stored_weight_bytes counts the components  [S000-1.3]
units::Bytes op_weight_bytes(const LayerPass& p, WeightClass cls, double n, double vectors) {
  if (p.weights.uniform()) return weight_bytes(n, p.weight_bits);
  return units::Bytes{p.weights.bytes(cls, n - vectors) + p.weights.bytes(WeightClass::vectors, vectors)};
}

// The rows of one pass, built in execution order. Every row's FLOPs are 2 per parameter per token
// (the engine's FLOP convention); bytes are weights at b_w, activations at b, the cache at b_kv.
class OpList {
 public:
  explicit OpList(const LayerPass& p) : p_(p) {}

  // A matmul: `flop_params` multiplied per token, `weight_params` read, in -> out wide per token.
  // `vectors`: of weight_params, the biases folded into the row (stored at the vectors' format).
  LayerOp& matmul(std::string_view id, std::string_view name, double flop_params, double weight_params, double in,
                  double out, double vectors = 0.0) {
    LayerOp& op = add(id, name, OpKind::matmul, flop_params, weight_params, weight_class_of(id, true), vectors);
    op.activation_bytes = matmul_activation_bytes_per_token(in, out, p_.activation_bytes) * p_.tokens;
    return op;
  }

  // An elementwise operator moving `per_token` bytes (norms also read their gains); fusion folds
  // its traffic into the neighbouring matmul.
  LayerOp& elementwise(std::string_view id, std::string_view name, OpKind kind, units::Bytes per_token,
                       double params = 0.0) {
    LayerOp& op = add(id, name, kind, params, params, WeightClass::vectors, 0.0);
    if (p_.fused) {
      op.fused_away = true;
    } else {
      op.activation_bytes = per_token * p_.tokens;
    }
    return op;
  }

  // A state mixer's conv1d or scan: `params` multiplied per token (2 FLOP each, as flop_params
  // counts them), an in-wide input read and an out-wide output written per token, and its part of
  // the layer's state per sequence, read in a decode step and written once by a prefill  [S004]
  // `vectors`: of params, the vectors (a conv's bias, a scan's A, D and dt bias).
  LayerOp& mixer(std::string_view id, std::string_view name, OpKind kind, double params, double in, double out,
                 units::Bytes state_per_sequence, double vectors = 0.0) {
    LayerOp& op = add(id, name, kind, params, params, WeightClass::attention, vectors);
    op.activation_bytes = matmul_activation_bytes_per_token(in, out, p_.activation_bytes) * p_.tokens;
    op.kv_bytes = state_per_sequence * p_.sequences;
    return op;
  }

  // An operator with no weights: the attention core (its FLOPs given, not 2 per parameter).
  LayerOp& core(std::string_view id, std::string_view name, OpKind kind, units::Flop flops) {
    LayerOp& op = add(id, name, kind, 0.0, 0.0, weight_class_of(id, true), 0.0);
    op.flops = flops;
    return op;
  }

  // The prefill writes the cache from a K or V projection: of its n outputs of `width`, the B
  // min(S, W_l) the layer keeps go to the cache at b_kv instead of the activations  [S004]
  void writes_cache(LayerOp& op, double width, double kept_per_sequence) const {
    if (p_.phase != Phase::prefill) return;
    const double kept = p_.sequences * kept_per_sequence;
    op.activation_bytes -= units::Bytes{kept * width * p_.activation_bytes};
    op.kv_bytes += units::Bytes{kept * width * p_.kv_bytes};
  }

  // A prefill's cache write of `width` elements a kept token that no activation stands for (Gemma
  // 4's K = V layers: k_proj's output is cached as K and, normed, as V).
  void adds_cache(LayerOp& op, double width, double kept_per_sequence) const {
    if (p_.phase != Phase::prefill) return;
    op.kv_bytes += units::Bytes{p_.sequences * kept_per_sequence * width * p_.kv_bytes};
  }

  [[nodiscard]] const LayerPass& pass() const { return p_; }
  std::vector<LayerOp> take() { return std::move(ops_); }

 private:
  LayerOp& add(std::string_view id, std::string_view name, OpKind kind, double flop_params, double weight_params,
               WeightClass cls, double vectors) {
    LayerOp op;
    op.id = id;
    op.name = name;
    op.kind = kind;
    op.flop_params = flop_params;
    op.weight_params = weight_params;
    op.flops = units::Flop{2.0 * flop_params * p_.tokens};
    op.weight_bytes = op_weight_bytes(p_, cls, weight_params, vectors);
    ops_.push_back(op);
    return ops_.back();
  }

  const LayerPass& p_;
  std::vector<LayerOp> ops_;
};

// The widths the attention core reads and writes per token, and the cache it reads per key.
struct AttentionWidths {
  double query = 0.0;         ///< Q per token
  double key = 0.0;           ///< K per key, as the prefill reads it back
  double value = 0.0;         ///< V per key, as the prefill reads it back
  double output = 0.0;        ///< O per token
  double cache_scores = 0.0;  ///< cache elements QK^T reads per key (decode)
  double cache_values = 0.0;  ///< cache elements attention x V reads per key (decode)
};

AttentionWidths attention_widths(const ModelConfig& m, const LayerKind& kind) {
  const double h = as_double(m.n_heads);
  const HeadShape shape{.head_dim = kind.head_dim, .kv_heads = kind.kv_heads};
  const double e_kv = as_double(attention_kv_elements_per_token_layer(m, shape));
  if (m.mla.enabled()) {
    // DS24 §2.1: per head [k_nope; k_rope] with k_rope shared, v up-projected; the cache holds the
    // latent and the rope key, read once for the scores (the values come from the same latent).
    const MlaConfig& a = m.mla;
    return {.query = h * as_double(a.qk_nope_head_dim + a.qk_rope_head_dim),
            .key = h * as_double(a.qk_nope_head_dim) + as_double(a.qk_rope_head_dim),
            .value = h * as_double(a.v_head_dim),
            .output = h * as_double(a.v_head_dim),
            .cache_scores = e_kv,
            .cache_values = 0.0};
  }
  const double kv = as_double(kind.kv_heads * kind.head_dim);
  return {.query = h * as_double(kind.head_dim),
          .key = kv,
          .value = kv,
          .output = h * as_double(kind.head_dim),
          .cache_scores = e_kv / 2.0,
          .cache_values = e_kv / 2.0};
}

// Q, K, V of standard attention, with their biases and the q/k norms. mllama's cross-attention
// layers write no cache (their keys and values come from the image), rotate nothing and carry
// their own per-head q/k norms.
void add_qkv(const ModelConfig& m, const LayerKindParams& k, const LayerKind& kind, OpList& ops) {
  const LayerPass& p = ops.pass();
  const double d = as_double(m.d_model);
  const double wq = as_double(m.n_heads * kind.head_dim);
  const double wkv = as_double(kind.kv_heads * kind.head_dim);
  const double kept = layer_cached_keys(kind, p.queries);
  // attn_bias = (w_q + 2 w_kv if qkv_bias) + (d if o_bias): each projection takes its own.
  const double qkv_bias = m.qkv_bias ? 1.0 : 0.0;
  const Part q = part(k, "q_proj");
  const Part kp = part(k, "k_proj");
  const Part v = part(k, "v_proj");
  ops.matmul("q_proj", "q_proj", q.active + qkv_bias * wq, q.count + qkv_bias * wq, d, wq, qkv_bias * wq);
  LayerOp& k_proj =
      ops.matmul("k_proj", "k_proj", kp.active + qkv_bias * wkv, kp.count + qkv_bias * wkv, d, wkv, qkv_bias * wkv);
  // Gemma 4's K = V layers: no v_proj; k_proj's output is cached twice, as K and (normed) as V.
  if (!kind.cross_attention) ops.writes_cache(k_proj, wkv, kept);
  if (!kind.cross_attention && !kind.value_proj) ops.adds_cache(k_proj, wkv, kept);
  if (kind.value_proj) {
    LayerOp& v_proj =
        ops.matmul("v_proj", "v_proj", v.active + qkv_bias * wkv, v.count + qkv_bias * wkv, d, wkv, qkv_bias * wkv);
    if (!kind.cross_attention) ops.writes_cache(v_proj, wkv, kept);
  }
  const Part qk = part(k, kind.cross_attention ? "cross_qk_norm" : "qk_norm");
  if (m.qk_norm != QkNorm::none || kind.cross_attention) {
    ops.elementwise("qk_norm", "q/k norm", OpKind::norm, norm_bytes_per_token(wq + wkv, p.activation_bytes), qk.active);
  }
  if (m.position == PositionKind::rope && !kind.cross_attention) {
    ops.elementwise("rope", "RoPE (q, k)", OpKind::rope, rope_bytes_per_token(wq, wkv, p.activation_bytes));
  }
}

// MLA's low-rank projections (DS24 §2.1): q_a, its norm, q_b (or q_proj); kv_a (the cache entry),
// its norm, kv_b; RoPE on the rope part of each query head and the one shared rope key.
void add_mla_projections(const ModelConfig& m, const LayerKindParams& k, const LayerKind& kind, OpList& ops) {
  const LayerPass& p = ops.pass();
  const MlaConfig& a = m.mla;
  const double d = as_double(m.d_model);
  const double h = as_double(m.n_heads);
  const double q_width = h * as_double(a.qk_nope_head_dim + a.qk_rope_head_dim);
  if (a.q_lora_rank > 0) {
    const double r = as_double(a.q_lora_rank);
    const Part qa = part(k, "q_a_proj");
    const Part qb = part(k, "q_b_proj");
    ops.matmul("q_a_proj", "q_a_proj", qa.active, qa.count, d, r);
    ops.elementwise("q_a_norm", "q_a_norm", OpKind::norm, norm_bytes_per_token(r, p.activation_bytes),
                    part(k, "q_a_norm").active);
    ops.matmul("q_b_proj", "q_b_proj", qb.active, qb.count, r, q_width);
  } else {
    const Part q = part(k, "q_proj");
    ops.matmul("q_proj", "q_proj", q.active, q.count, d, q_width);
  }
  const double latent = as_double(a.kv_lora_rank);
  const double cache = as_double(attention_kv_elements_per_token_layer(m));  // d_c + d_R
  const Part kva = part(k, "kv_a_proj");
  const Part kvb = part(k, "kv_b_proj");
  ops.writes_cache(ops.matmul("kv_a_proj", "kv_a_proj", kva.active, kva.count, d, cache), cache,
                   layer_cached_keys(kind, p.queries));
  ops.elementwise("kv_a_norm", "kv_a_norm", OpKind::norm, norm_bytes_per_token(latent, p.activation_bytes),
                  part(k, "kv_a_norm").active);
  ops.matmul("kv_b_proj", "kv_b_proj", kvb.active, kvb.count, latent, h * as_double(a.qk_nope_head_dim + a.v_head_dim));
  if (m.position == PositionKind::rope) {
    const double rope = as_double(a.qk_rope_head_dim);
    ops.elementwise("rope", "RoPE (q, k)", OpKind::rope, rope_bytes_per_token(h * rope, rope, p.activation_bytes));
  }
}

// DSA's lightning indexer (DeepSeek-V3.2 §2.1): its query from the q latent (wq_b), its one key
// per token (wk, then k_norm and RoPE on the rope part; the key is the indexer cache entry), the
// head weights (weights_proj), and the scores of the query against every cached key, from which
// the top k go to the attention core. Prefill: S queries against the causal pairs; decode: one
// query against all T cached keys, the cache read d_I per key  [DS25]
void add_indexer(const ModelConfig& m, const LayerKindParams& k, const LayerKind& kind, OpList& ops) {
  const SparseIndexerConfig& x = m.indexer;
  if (!x.enabled()) return;
  const LayerPass& p = ops.pass();
  const double d = as_double(m.d_model);
  const double heads = as_double(x.n_heads);
  const double width = as_double(x.head_dim);
  const double q_in = m.mla.q_lora_rank > 0 ? as_double(m.mla.q_lora_rank) : d;
  const Part wq = part(k, "indexer_wq");
  const Part wk = part(k, "indexer_wk");
  const Part weights = part(k, "indexer_weights");
  ops.matmul("indexer_wq", "indexer wq_b", wq.active, wq.count, q_in, heads * width);
  ops.writes_cache(ops.matmul("indexer_wk", "indexer wk", wk.active, wk.count, d, width), width,
                   layer_cached_keys(kind, p.queries));
  ops.elementwise("indexer_k_norm", "indexer k_norm", OpKind::norm, norm_bytes_per_token(width, p.activation_bytes),
                  part(k, "indexer_k_norm").active);
  if (m.position == PositionKind::rope && m.mla.qk_rope_head_dim > 0) {
    const double rope = as_double(m.mla.qk_rope_head_dim);
    ops.elementwise("indexer_rope", "indexer RoPE (q, k)", OpKind::rope,
                    rope_bytes_per_token(heads * rope, rope, p.activation_bytes));
  }
  ops.matmul("indexer_weights", "indexer weights_proj", weights.active, weights.count, d, heads);
  const bool prefill = p.phase == Phase::prefill;
  const double keys = prefill ? p.queries : layer_cached_keys(kind, p.context);
  const double pairs = prefill ? attention_pairs(p.queries, 0, p.attention) : keys;
  LayerOp& scores = ops.core("indexer_scores", "indexer scores + top-k", OpKind::attention,
                             units::Flop{p.sequences * indexer_flops_per_pair(m) * pairs});
  scores.activation_bytes = units::Bytes{p.tokens * (heads * width + heads) * p.activation_bytes};
  if (prefill) scores.activation_bytes += units::Bytes{p.sequences * keys * width * p.activation_bytes};
  if (!prefill) scores.kv_bytes = units::Bytes{p.sequences * keys * width * p.kv_bytes};
}

// QK^T, softmax, attention x V. Prefill: S queries against the S keys the projections wrote,
// pairs as attention_pairs; decode: one query against min(T, W_l) cached keys. Unfused, the
// scores make a round trip through memory; fused (flash attention) they never leave the chip.
// gpt-oss's sinks (one logit per head, `sink_params`) are read by the softmax  [OA25 §2.1]
void add_attention_core(const ModelConfig& m, const LayerKind& kind, double sink_params, OpList& ops) {
  const LayerPass& p = ops.pass();
  const AttentionWidths w = attention_widths(m, kind);
  const double b = p.activation_bytes;
  const double h = as_double(m.n_heads);
  const bool prefill = p.phase == Phase::prefill;
  const double keys = prefill ? p.queries : layer_attended_keys(kind, p.context);
  const double pairs =
      prefill ? attention_pairs(p.queries, kind.topk > 0 ? kind.topk : kind.window, p.attention) : keys;
  const units::Bytes scores = score_bytes(h, p.queries, keys, b) * p.sequences;

  LayerOp& qk = ops.core("attention_scores", "QK^T", OpKind::attention,
                         units::Flop{p.sequences * attention_score_flops_per_pair(m, kind) * pairs});
  qk.activation_bytes = units::Bytes{p.tokens * w.query * b};
  if (prefill) qk.activation_bytes += units::Bytes{p.sequences * keys * w.key * b};
  if (!prefill) qk.kv_bytes = units::Bytes{p.sequences * keys * w.cache_scores * p.kv_bytes};
  if (!p.fused) qk.activation_bytes += scores;

  LayerOp& sm = ops.elementwise("softmax", sink_params > 0.0 ? "softmax + sinks" : "softmax", OpKind::softmax,
                                units::Bytes{}, sink_params);
  if (p.fused) {
    sm.fused_away = true;
  } else {
    sm.activation_bytes = scores * 2.0;  // read and write each score
  }

  LayerOp& av = ops.core("attention_values", "attention x V", OpKind::attention,
                         units::Flop{p.sequences * attention_value_flops_per_pair(m, kind) * pairs});
  av.activation_bytes = units::Bytes{p.tokens * w.output * b};
  if (prefill) av.activation_bytes += units::Bytes{p.sequences * keys * w.value * b};
  if (!prefill) av.kv_bytes = units::Bytes{p.sequences * keys * w.cache_values * p.kv_bytes};
  if (!p.fused) av.activation_bytes += scores;
}

void add_o_proj(const ModelConfig& m, const LayerKindParams& k, const LayerKind& kind, OpList& ops) {
  const Part o = part(k, "o_proj");
  // The o bias is what attn_bias holds beyond the q, k and v biases (MLA has none).
  const double wq = as_double(m.n_heads * kind.head_dim);
  const double wkv = as_double(kind.kv_heads * kind.head_dim);
  const double o_bias = m.mla.enabled() ? 0.0 : part(k, "attn_bias").count - (m.qkv_bias ? wq + 2.0 * wkv : 0.0);
  const double in = attention_widths(m, kind).output;
  ops.matmul("o_proj", "o_proj", o.active + o_bias, o.count + o_bias, in, as_double(m.d_model), o_bias);
}

// One FFN of intermediate width f x `copies` (dense: 1 copy; experts: their share), its rows
// prefixed. `per_copy` is one FFN's parameters (matrices and biases); `flop_copies` and
// `read_copies` how many a token multiplies and how many the pass reads.
struct FfnShape {
  std::string_view gate_id, up_id, act_id, down_id;
  std::string_view gate_name, up_name, act_name, down_name;
  double width = 0.0;        ///< f of one FFN
  double per_copy = 0.0;     ///< parameters of one FFN, biases included
  double flop_copies = 1.0;  ///< FFNs one token passes through (k routed experts)
  double read_copies = 1.0;  ///< FFNs the pass reads (experts touched)
};

void add_ffn(const ModelConfig& m, const FfnShape& s, OpList& ops) {
  const LayerPass& p = ops.pass();
  const double d = as_double(m.d_model);
  const double bias = m.mlp_bias ? s.width : 0.0;
  const double in_proj = d * s.width + bias;  // gate or up of one FFN
  const bool gated = m.mlp == MlpKind::gated;
  const double down = s.per_copy - in_proj * (gated ? 2.0 : 1.0);
  const double wide = s.flop_copies * s.width;  // what one token's activations span
  const double k = s.flop_copies;
  if (gated)
    ops.matmul(s.gate_id, s.gate_name, k * in_proj, s.read_copies * in_proj, k * d, wide, s.read_copies * bias);
  ops.matmul(s.up_id, s.up_name, k * in_proj, s.read_copies * in_proj, k * d, wide, s.read_copies * bias);
  ops.elementwise(s.act_id, s.act_name, OpKind::activation,
                  gated ? gated_activation_bytes_per_token(wide, p.activation_bytes)
                        : plain_activation_bytes_per_token(wide, p.activation_bytes));
  ops.matmul(s.down_id, s.down_name, k * down, s.read_copies * down, wide, k * d, m.mlp_bias ? s.read_copies * d : 0.0);
}

void add_dense_ffn(const ModelConfig& m, const LayerKindParams& k, OpList& ops) {
  const bool gated = m.mlp == MlpKind::gated;
  const double per_copy =
      part(k, "gate_proj").count + part(k, "up_proj").count + part(k, "down_proj").count + part(k, "mlp_bias").count;
  add_ffn(m,
          {.gate_id = "gate_proj",
           .up_id = "up_proj",
           .act_id = "activation",
           .down_id = "down_proj",
           .gate_name = "gate_proj",
           .up_name = "up_proj",
           .act_name = gated ? "act(gate) x up" : "act(up)",
           .down_name = "down_proj",
           .width = as_double(k.mix.ffn_width(m.d_ff)),
           .per_copy = per_copy},
          ops);
}

// Router, the k routed experts (the pass reads the experts it touches), shared experts, their
// gate, and the combine of the expert outputs  [SH17] [DS24]
void add_moe_ffn(const ModelConfig& m, const LayerKindParams& k, OpList& ops) {
  const LayerPass& p = ops.pass();
  const MoeConfig& e = m.moe;
  const double d = as_double(m.d_model);
  const bool gated = m.mlp == MlpKind::gated;
  const Part router = part(k, "router");
  const double router_vectors = part(k, "router_bias").count + part(k, "router_correction_bias").count +
                                part(k, "router_scales").count;  // Gemma 4: the input and per-expert scales
  ops.matmul("router", "router", router.active + router_vectors, router.count + router_vectors, d,
             as_double(e.n_experts), router_vectors);
  const Part experts = part(k, "experts");
  add_ffn(m,
          {.gate_id = "experts_gate_proj",
           .up_id = "experts_up_proj",
           .act_id = "experts_activation",
           .down_id = "experts_down_proj",
           .gate_name = "experts gate_proj",
           .up_name = "experts up_proj",
           .act_name = gated ? "experts act x up" : "experts act(up)",
           .down_name = "experts down_proj",
           .width = as_double(e.d_ff_expert),
           .per_copy = experts.count / as_double(e.n_experts),
           .flop_copies = e.ffn_experts_per_token(),  // zero-computation experts compute nothing
           .read_copies = experts_read(m, p.tokens, p.decode_bytes, p.moe_decode)},
          ops);
  const Part shared = part(k, "shared_experts");
  if (e.n_shared_experts > 0) {
    // E_s shared experts act as one FFN of width E_s d_fs.
    add_ffn(m,
            {.gate_id = "shared_gate_proj",
             .up_id = "shared_up_proj",
             .act_id = "shared_activation",
             .down_id = "shared_down_proj",
             .gate_name = "shared gate_proj",
             .up_name = "shared up_proj",
             .act_name = gated ? "shared act x up" : "shared act(up)",
             .down_name = "shared down_proj",
             .width = as_double(e.n_shared_experts * e.d_ff_shared),
             .per_copy = shared.count},
            ops);
  }
  if (e.shared_expert_gate) {
    const Part g = part(k, "shared_expert_gate");
    ops.matmul("shared_expert_gate", "shared expert gate", g.active, g.count, d, 1.0);
  }
  ops.elementwise(
      "expert_combine", "expert combine", OpKind::combine,
      expert_combine_bytes_per_token(as_double(e.top_k), e.n_shared_experts > 0 ? 1.0 : 0.0, d, p.activation_bytes));
}

// The layer's norms in their places: 1 input; 2 input + post-attention (Llama's FFN input norm);
// 4 Gemma 2's input, post-attention, pre-FFN and post-FFN; more ride as one extra row.
struct NormPlan {
  double gains = 0.0;  ///< parameters of one norm
  std::int64_t count = 0;
};

void add_norm(OpList& ops, std::string_view id, std::string_view name, const NormPlan& n, double d,
              double copies = 1.0) {
  ops.elementwise(id, name, OpKind::norm, norm_bytes_per_token(d, ops.pass().activation_bytes) * copies,
                  n.gains * copies);
}

// ---- Hybrid and state-space layers (issue 10, N2) ----------------------------------------------
// The mixers' rows split count_params's components (params.cpp add_mamba1 / add_mamba2 /
// add_gated_deltanet): every FLOP is 2 per parameter per token, as flop_params counts them (the
// scan rows carry A_log, D and dt_bias; the arithmetic of the state update itself is counted by
// no command), and the state is state_bytes_per_layer's: the conv state in conv1d's KV column,
// the recurrent state in the scan's.

// Mamba-1 (GU23 §3.4, HF MambaMixer): in_proj d -> [x; z] 2 d_i, conv1d over d_i, x_proj d_i ->
// [dt; B; C] R + 2N (Jamba: RMSNorms on dt, B, C), dt_proj R -> d_i, the selective scan reading x,
// dt (d_i each), B and C (N each) and writing y, y act(z), out_proj d_i -> d. ssm_bias holds the
// conv bias d_i and, with proj_bias, in_proj's 2 d_i and out_proj's d.
void add_mamba1(const ModelConfig& m, const LayerKindParams& k, OpList& ops) {
  const LayerPass& p = ops.pass();
  const SsmConfig& s = m.hybrid.ssm;
  const double d = as_double(m.d_model);
  const double di = as_double(s.d_inner);
  const double n = as_double(s.d_state);
  const double r = as_double(s.dt_rank);
  const double conv_bias = s.conv_bias ? di : 0.0;
  const double in_bias = s.proj_bias ? 2.0 * di : 0.0;
  const double out_bias = part(k, "ssm_bias").count - conv_bias - in_bias;
  const LayerStateBytes state = state_bytes_per_layer(m, StateMixer::mamba1, CacheBytes{p.kv_bytes, p.state_bytes});
  const Part in = part(k, "in_proj");
  ops.matmul("in_proj", "in_proj (x, z)", in.active + in_bias, in.count + in_bias, d, 2.0 * di, in_bias);
  ops.mixer("conv1d", "conv1d", OpKind::conv, part(k, "conv1d").active + conv_bias, di, di, state.conv, conv_bias);
  const Part x = part(k, "x_proj");
  ops.matmul("x_proj", "x_proj (dt, B, C)", x.active, x.count, di, r + 2.0 * n);
  if (s.dt_norms) {
    ops.elementwise("dt_b_c_norms", "dt/B/C norms", OpKind::norm, norm_bytes_per_token(r + 2.0 * n, p.activation_bytes),
                    part(k, "dt_b_c_norms").active);
  }
  const Part dt = part(k, "dt_proj");
  ops.matmul("dt_proj", "dt_proj", dt.active, dt.count, r, di);
  const double a_d = part(k, "A_log").active + part(k, "D").active;
  ops.mixer("selective_scan", "selective scan (A, D)", OpKind::scan, a_d, 2.0 * di + 2.0 * n, di, state.recurrent, a_d);
  ops.elementwise("ssm_gate", "y x act(z)", OpKind::activation,
                  gated_activation_bytes_per_token(di, p.activation_bytes));
  const Part out = part(k, "out_proj");
  ops.matmul("out_proj", "out_proj", out.active + out_bias, out.count + out_bias, di, d, out_bias);
}

// Mamba-2 (DAO24 §7, HF Mamba2Mixer): in_proj d -> [z; xBC; dt] d_i + c + H with c = d_i + 2gN,
// conv1d over the c channels, the SSD scan reading x (d_i), B and C (2gN) and dt (H) and writing y,
// the gated RMSNorm of y by z (or y act(z) without it), out_proj d_i -> d. ssm_bias holds the conv
// bias c, in_proj's d_i + c + H with proj_bias, and out_proj's d (Falcon-H1: projectors_bias).
void add_mamba2(const ModelConfig& m, const LayerKindParams& k, OpList& ops) {
  const LayerPass& p = ops.pass();
  const SsmConfig& s = m.hybrid.ssm;
  const double d = as_double(m.d_model);
  const double di = as_double(s.d_inner);
  const double h = as_double(s.n_heads);
  const double c = di + 2.0 * as_double(s.n_groups) * as_double(s.d_state);
  const double in_width = di + c + h;
  const double conv_bias = s.conv_bias ? c : 0.0;
  const double in_bias = s.proj_bias ? in_width : 0.0;
  const double out_bias = part(k, "ssm_bias").count - conv_bias - in_bias;
  const LayerStateBytes state = state_bytes_per_layer(m, StateMixer::mamba2, CacheBytes{p.kv_bytes, p.state_bytes});
  const Part in = part(k, "in_proj");
  ops.matmul("in_proj", "in_proj (z, xBC, dt)", in.active + in_bias, in.count + in_bias, d, in_width, in_bias);
  ops.mixer("conv1d", "conv1d", OpKind::conv, part(k, "conv1d").active + conv_bias, c, c, state.conv, conv_bias);
  const double a_d = part(k, "dt_bias_A_log_D").active;
  ops.mixer("ssd_scan", "SSD scan (A, D, dt bias)", OpKind::scan, a_d, c + h, di, state.recurrent, a_d);
  if (s.gated_norm) {
    ops.elementwise("ssm_norm", "gated norm (y, z)", OpKind::norm,
                    gated_activation_bytes_per_token(di, p.activation_bytes), part(k, "ssm_norm").active);
  } else {
    ops.elementwise("ssm_gate", "y x act(z)", OpKind::activation,
                    gated_activation_bytes_per_token(di, p.activation_bytes));
  }
  const Part out = part(k, "out_proj");
  ops.matmul("out_proj", "out_proj", out.active + out_bias, out.count + out_bias, di, d, out_bias);
}

// Gated DeltaNet (YANG24, HF Qwen3NextGatedDeltaNet) with K = h_k d_k, V = h_v d_v: in_proj_qkvz
// d -> 2K + 2V, in_proj_ba d -> 2 h_v, conv1d over q, k, v (2K + V), the gated delta rule reading
// q, k, v, beta and the decay (h_v each) and writing o (V), the gated RMSNorm of o by z, out_proj
// V -> d. No biases.
void add_gated_deltanet(const ModelConfig& m, const LayerKindParams& k, OpList& ops) {
  const LayerPass& p = ops.pass();
  const DeltaNetConfig& g = m.hybrid.deltanet;
  const double d = as_double(m.d_model);
  const double hv = as_double(g.n_value_heads);
  const double kw = as_double(g.n_key_heads) * as_double(g.key_head_dim);
  const double vw = hv * as_double(g.value_head_dim);
  const LayerStateBytes state =
      state_bytes_per_layer(m, StateMixer::gated_deltanet, CacheBytes{p.kv_bytes, p.state_bytes});
  const Part qkvz = part(k, "in_proj_qkvz");
  ops.matmul("in_proj_qkvz", "in_proj_qkvz", qkvz.active, qkvz.count, d, 2.0 * kw + 2.0 * vw);
  const Part ba = part(k, "in_proj_ba");
  ops.matmul("in_proj_ba", "in_proj_ba (beta, decay)", ba.active, ba.count, d, 2.0 * hv);
  ops.mixer("conv1d", "conv1d", OpKind::conv, part(k, "conv1d").active, 2.0 * kw + vw, 2.0 * kw + vw, state.conv);
  const double a_dt = part(k, "dt_bias_A_log").active;
  ops.mixer("delta_rule", "gated delta rule (A, dt bias)", OpKind::scan, a_dt, 2.0 * kw + vw + 2.0 * hv, vw,
            state.recurrent, a_dt);
  ops.elementwise("delta_norm", "gated norm (o, z)", OpKind::norm,
                  gated_activation_bytes_per_token(vw, p.activation_bytes), part(k, "delta_norm").active);
  const Part out = part(k, "out_proj");
  ops.matmul("out_proj", "out_proj", out.active, out.count, vw, d);
}

// LFM2's gated short convolution (LFM2, HF Lfm2ShortConv): in_proj d -> [B; C; x] 3d, B x, the
// depthwise causal conv1d over d channels reading its cache of L tokens, C times its output,
// out_proj d -> d. conv_bias's 5d biases go with out_proj's row.
void add_short_conv(const ModelConfig& m, const LayerKindParams& k, OpList& ops) {
  const LayerPass& p = ops.pass();
  const double d = as_double(m.d_model);
  const LayerStateBytes state = state_bytes_per_layer(m, StateMixer::short_conv, CacheBytes{p.kv_bytes, p.state_bytes});
  const Part in = part(k, "in_proj");
  ops.matmul("in_proj", "in_proj (B, C, x)", in.active, in.count, d, 3.0 * d);
  ops.elementwise("conv_input_gate", "B x", OpKind::activation,
                  gated_activation_bytes_per_token(d, p.activation_bytes));
  ops.mixer("conv1d", "conv1d", OpKind::conv, part(k, "conv1d").active, d, d, state.conv);
  ops.elementwise("conv_output_gate", "C x conv", OpKind::activation,
                  gated_activation_bytes_per_token(d, p.activation_bytes));
  const Part out = part(k, "out_proj");
  const Part bias = part(k, "conv_bias");
  ops.matmul("out_proj", "out_proj", out.active + bias.active, out.count + bias.count, d, d, bias.count);
}

// MiniMax lightning attention (MM25 §2.2, HF MiniMaxLightningAttention): qkv_proj d -> 3 h d_h and
// its SiLU, the decayed linear attention reading q, k, v and writing o (h d_h) against its [h, d_h,
// d_h] state, the RMSNorm of o, output_gate d -> h d_h and sigmoid(gate) x o, out_proj h d_h -> d.
void add_lightning(const ModelConfig& m, const LayerKindParams& k, OpList& ops) {
  const LayerPass& p = ops.pass();
  const double d = as_double(m.d_model);
  const double w = as_double(m.n_heads) * as_double(m.head_dim);
  const LayerStateBytes state = state_bytes_per_layer(m, StateMixer::lightning, CacheBytes{p.kv_bytes, p.state_bytes});
  const Part qkv = part(k, "qkv_proj");
  ops.matmul("qkv_proj", "qkv_proj", qkv.active, qkv.count, d, 3.0 * w);
  ops.elementwise("qkv_act", "SiLU(q, k, v)", OpKind::activation,
                  plain_activation_bytes_per_token(3.0 * w, p.activation_bytes));
  ops.mixer("lightning_scan", "lightning attention (decayed kv state)", OpKind::scan, 0.0, 3.0 * w, w, state.recurrent);
  ops.elementwise("lightning_norm", "norm (o)", OpKind::norm, norm_bytes_per_token(w, p.activation_bytes),
                  part(k, "lightning_norm").active);
  const Part gate = part(k, "output_gate");
  ops.matmul("output_gate", "output_gate", gate.active, gate.count, d, w);
  ops.elementwise("lightning_gate", "sigmoid(gate) x o", OpKind::activation,
                  gated_activation_bytes_per_token(w, p.activation_bytes));
  const Part out = part(k, "out_proj");
  ops.matmul("out_proj", "out_proj", out.active, out.count, w, d);
}

// Attention as a hybrid's mixer: Q/K/V, RoPE and the core as in a transformer; Qwen3-Next's q_proj
// also emits a gate of h d_h (the part "attn_gate") that scales the attention output by
// sigmoid(gate) before o_proj: read the gate and O, write O  [S003-3.3]
void add_attention_mixer(const ModelConfig& m, const LayerKindParams& k, const LayerKind& kind, OpList& ops) {
  const LayerPass& p = ops.pass();
  if (m.mla.enabled()) {
    add_mla_projections(m, k, kind, ops);
  } else {
    add_qkv(m, k, kind, ops);
  }
  const Part gate = part(k, "attn_gate");
  const double wq = as_double(m.n_heads * kind.head_dim);
  if (gate.count > 0.0)
    ops.matmul("attn_gate", "attn_gate (q_proj's gate)", gate.active, gate.count, as_double(m.d_model), wq);
  add_attention_core(m, kind, part(k, "attn_sinks").active, ops);
  if (gate.count > 0.0) {
    ops.elementwise("output_gate", "O x sigmoid(gate)", OpKind::activation,
                    gated_activation_bytes_per_token(wq, p.activation_bytes));
  }
  add_o_proj(m, k, kind, ops);
}

// One hybrid layer (params.cpp hybrid_layer_kind): a pre-norm, the mixers (attention, a state
// mixer, or both side by side, their outputs added: Falcon-H1), a residual add; then a pre-norm,
// the FFN (dense or MoE) and a residual add. A sublayer the layer lacks has no rows.
void add_hybrid_layer(const ModelConfig& m, const LayerKindParams& k, const LayerKind& kind, OpList& ops) {
  const LayerPass& p = ops.pass();
  const LayerMix& mix = kind.mix;
  const double d = as_double(m.d_model);
  const bool mixer = mix.attention || mix.state != StateMixer::none;
  const bool ffn = mix.ffn != LayerFfn::none;
  const std::int64_t count = (mixer ? 1 : 0) + (ffn ? 1 : 0);
  const NormPlan norms{.gains = count > 0 ? part(k, "norms").active / as_double(count) : 0.0, .count = count};
  if (mixer) {
    add_norm(ops, "input_norm", "input norm", norms, d);
    if (mix.attention) add_attention_mixer(m, k, kind, ops);
    switch (mix.state) {
      case StateMixer::none:
        break;
      case StateMixer::mamba1:
        add_mamba1(m, k, ops);
        break;
      case StateMixer::mamba2:
        add_mamba2(m, k, ops);
        break;
      case StateMixer::gated_deltanet:
        add_gated_deltanet(m, k, ops);
        break;
      case StateMixer::short_conv:
        add_short_conv(m, k, ops);
        break;
      case StateMixer::lightning:
        add_lightning(m, k, ops);
        break;
    }
    if (mix.attention && mix.state != StateMixer::none) {
      ops.elementwise("mixer_sum", "attention + state outputs", OpKind::residual,
                      residual_add_bytes_per_token(d, p.activation_bytes));
    }
    ops.elementwise(mix.state == StateMixer::none ? "residual_attention" : "residual_mixer", "residual add",
                    OpKind::residual, residual_add_bytes_per_token(d, p.activation_bytes));
  }
  if (ffn) {
    if (mixer) {
      add_norm(ops, "pre_ffn_norm", "pre-FFN norm", norms, d);
    } else {
      add_norm(ops, "input_norm", "input norm", norms, d);
    }
    if (mix.ffn == LayerFfn::moe) {
      add_moe_ffn(m, k, ops);
    } else {
      add_dense_ffn(m, k, ops);
    }
    ops.elementwise("residual_ffn", "residual add", OpKind::residual,
                    residual_add_bytes_per_token(d, p.activation_bytes));
  }
}

}  // namespace

LayerPass layer_pass(const Workload& w, Phase phase, bool fused) {
  LayerPass p;
  p.phase = phase;
  p.fused = fused;
  p.sequences = static_cast<double>(w.batch);
  p.queries = phase == Phase::prefill ? static_cast<double>(w.prompt) : 1.0;
  p.tokens = p.sequences * p.queries;
  p.context = phase == Phase::decode ? static_cast<double>(w.context) : 0.0;
  const double head_positions = phase == Phase::prefill && w.lm_head == LmHeadPositions::all ? p.queries : 1.0;
  p.head_tokens = p.sequences * head_positions;
  p.weight_bits = w.weight_bits;
  p.weights = w.weights;
  p.activation_bytes = dtype_bytes(w.activation_dtype);
  p.kv_bytes = w.cache_bytes().kv;
  p.state_bytes = w.cache_bytes().state;
  p.attention = w.attention;
  p.decode_bytes = w.decode_bytes;
  p.moe_decode = w.moe_decode;
  return p;
}

double attention_score_flops_per_pair(const ModelConfig& m) { return attention_score_flops_per_pair(m, m.head_dim); }

double attention_score_flops_per_pair(const ModelConfig& m, const LayerKind& kind) {
  return attention_score_flops_per_pair(m, kind.head_dim);
}

double attention_score_flops_per_pair(const ModelConfig& m, std::int64_t head_dim) {
  const double h = as_double(m.n_heads);
  if (m.mla.enabled()) return 2.0 * h * as_double(m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim);
  return 2.0 * h * as_double(head_dim);
}

double attention_value_flops_per_pair(const ModelConfig& m) { return attention_value_flops_per_pair(m, m.head_dim); }

double attention_value_flops_per_pair(const ModelConfig& m, const LayerKind& kind) {
  return attention_value_flops_per_pair(m, kind.head_dim);
}

double attention_value_flops_per_pair(const ModelConfig& m, std::int64_t head_dim) {
  const double h = as_double(m.n_heads);
  if (m.mla.enabled()) return 2.0 * h * as_double(m.mla.v_head_dim);
  return 2.0 * h * as_double(head_dim);
}

double layer_cached_keys(const LayerKind& kind, double context) {
  const LayerWindows one{
      .global_layers = kind.sliding ? 0 : 1, .sliding_layers = kind.sliding ? 1 : 0, .window = kind.window};
  return attended_keys(one, context);
}

double layer_attended_keys(const LayerKind& kind, double context) {
  const double cached = layer_cached_keys(kind, context);
  return kind.topk > 0 ? std::min(cached, as_double(kind.topk)) : cached;
}

double experts_read(const ModelConfig& m, double tokens, DecodeBytes mode, MoeDecodeBytes moe_mode) {
  const double e = as_double(m.moe.n_experts);
  const double k = m.moe.ffn_experts_per_token();
  if (mode == DecodeBytes::all_weights || moe_mode == MoeDecodeBytes::all_experts) return e;
  if (moe_mode == MoeDecodeBytes::top_k) return std::min(e, k);
  return expected_experts_touched(e, k, tokens);
}

std::vector<LayerOp> layer_ops(const ModelConfig& m, const ParamCounts& c, const LayerKind& kind, const LayerPass& p) {
  OpList ops(p);
  const LayerKindParams* k = kind_params(m, c, kind);
  if (k == nullptr) return {};
  if (m.hybrid.enabled()) {
    add_hybrid_layer(m, *k, kind, ops);
    return ops.take();
  }
  const double d = as_double(m.d_model);
  // kind.norms: the model's per layer, plus a Gemma 4 MoE layer's three (the "extra norms" row)
  const NormPlan norms{.gains = kind.norms > 0 ? part(*k, "norms").active / as_double(kind.norms) : 0.0,
                       .count = kind.norms};
  // mllama's cross-attention layers gate each sublayer's output by tanh(g) before its residual add:
  // one scalar a residual.
  const double gate = kind.cross_attention ? part(*k, "cross_gates").active / 2.0 : 0.0;
  const std::string_view residual_name = kind.cross_attention ? "gated residual add" : "residual add";
  if (norms.count >= 1) add_norm(ops, "input_norm", "input norm", norms, d);
  if (m.mla.enabled()) {
    add_mla_projections(m, *k, kind, ops);
  } else {
    add_qkv(m, *k, kind, ops);
  }
  if (!kind.cross_attention) add_indexer(m, *k, kind, ops);
  // A cross-attention layer attends to the image's keys and values, which a text pass does not
  // hold: no attention core (decode and prefill count none).
  if (!kind.cross_attention) add_attention_core(m, kind, part(*k, "attn_sinks").active, ops);
  add_o_proj(m, *k, kind, ops);
  if (norms.count >= 3) add_norm(ops, "post_attention_norm", "post-attention norm", norms, d);
  ops.elementwise("residual_attention", residual_name, OpKind::residual,
                  residual_add_bytes_per_token(d, p.activation_bytes), gate);
  if (norms.count == 2) add_norm(ops, "post_attention_norm", "post-attention norm", norms, d);
  if (norms.count >= 3) add_norm(ops, "pre_ffn_norm", "pre-FFN norm", norms, d);
  if (kind.moe) {
    add_moe_ffn(m, *k, ops);
  } else {
    add_dense_ffn(m, *k, ops);
  }
  if (norms.count >= 4) add_norm(ops, "post_ffn_norm", "post-FFN norm", norms, d);
  if (norms.count >= 5) add_norm(ops, "extra_norms", "extra norms", norms, d, as_double(norms.count - 4));
  // Gemma 4's layer_scalar: the layer's output times one stored scalar (read d, write d)
  if (kind.scalars > 0) {
    ops.elementwise("layer_scalar", "layer scalar", OpKind::activation,
                    plain_activation_bytes_per_token(d, p.activation_bytes), part(*k, "layer_scalar").active);
  }
  ops.elementwise("residual_ffn", residual_name, OpKind::residual, residual_add_bytes_per_token(d, p.activation_bytes),
                  gate);
  return ops.take();
}

std::vector<LayerOp> head_ops(const ModelConfig& m, const ParamCounts& c, const LayerPass& p) {
  OpList ops(p);
  const double d = as_double(m.d_model);
  const double e = as_double(m.embed_proj_dim > 0 ? m.embed_proj_dim : m.d_model);
  const double vocab = as_double(m.vocab_size);
  const bool all = p.decode_bytes == DecodeBytes::all_weights;
  // The gather reads one row per token (params_read's touched rows); a tied table is read whole
  // by the head, so its rows are counted there.
  double rows = 0.0;
  if (!m.tied_embeddings) rows += all ? as_double(c.embedding) : std::min(p.tokens, vocab) * e;
  if (c.positions > 0) {
    rows += all ? as_double(c.positions) : std::min(p.tokens, as_double(m.learned_positions)) * d;
  }
  LayerOp& gather = ops.core("embedding", "embedding gather", OpKind::gather, units::Flop{});
  gather.weight_params = rows;
  gather.weight_bytes = op_weight_bytes(p, WeightClass::embedding, rows, 0.0);
  gather.activation_bytes = embedding_gather_bytes_per_token(e, p.activation_bytes) * p.tokens;
  if (m.embedding_norm) {
    ops.elementwise("embedding_norm", "embedding norm", OpKind::norm, norm_bytes_per_token(d, p.activation_bytes),
                    as_double(c.embedding_norm));
  }
  const double proj = as_double(c.embed_proj) / 2.0;  // project_in and project_out, e x d each
  if (c.embed_proj > 0) ops.matmul("project_in", "project_in", proj, proj, e, d);
  if (m.final_norm) {
    ops.elementwise("final_norm", "final norm", OpKind::norm, norm_bytes_per_token(d, p.activation_bytes),
                    as_double(c.final_norm));
  }
  if (c.embed_proj > 0) ops.matmul("project_out", "project_out", proj, proj, d, e);
  // The head matmul runs on the head positions; its bias rides on every token, as prefill_flops
  // counts it (the bias is part of C_fwd - H).
  const double bias = as_double(c.lm_head - c.lm_head_weight);
  const double matrix = as_double(c.head_matmul);
  LayerOp& head =
      ops.core("lm_head", "lm_head", OpKind::matmul, units::Flop{2.0 * matrix * p.head_tokens + 2.0 * bias * p.tokens});
  head.flop_params = matrix + bias;
  head.weight_params = as_double(c.lm_head) + (m.tied_embeddings ? as_double(c.embedding) : 0.0);
  // A tied head reads the table (class embedding); an untied one its matrix, its bias a vector.
  head.weight_bytes = m.tied_embeddings ? op_weight_bytes(p, WeightClass::embedding, head.weight_params, bias)
                                        : op_weight_bytes(p, WeightClass::head, head.weight_params, bias);
  head.activation_bytes = matmul_activation_bytes_per_token(e, vocab, p.activation_bytes) * p.head_tokens;
  return ops.take();
}

units::Bytes mean_layer_elementwise_bytes_per_token(const ModelConfig& m, const ParamCounts& c, double b) {
  LayerPass one;
  one.activation_bytes = b;
  double sum = 0.0;
  double layers = 0.0;
  for (const LayerKind& kind : layer_kinds(m)) {
    if (kind.cross_attention) continue;  // the mean over the L decoder layers, as before mllama's kind
    double per_layer = 0.0;
    for (const LayerOp& op : layer_ops(m, c, kind, one)) {
      const bool elementwise = op.kind == OpKind::norm || op.kind == OpKind::rope || op.kind == OpKind::activation ||
                               op.kind == OpKind::residual || op.kind == OpKind::combine;
      if (elementwise) per_layer += op.activation_bytes.base();
    }
    sum += per_layer * as_double(kind.layers);
    layers += as_double(kind.layers);
  }
  return units::Bytes{layers > 0.0 ? sum / layers : 0.0};
}

}  // namespace roofline
