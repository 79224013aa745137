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

const LayerKindParams* kind_params(const ParamCounts& c, bool moe) {
  for (const LayerKindParams& k : c.layer_kinds) {
    if (k.moe == moe) return &k;
  }
  return nullptr;
}

// The rows of one pass, built in execution order. Every row's FLOPs are 2 per parameter per token
// (the engine's FLOP convention); bytes are weights at b_w, activations at b, the cache at b_kv.
class OpList {
 public:
  explicit OpList(const LayerPass& p) : p_(p) {}

  // A matmul: `flop_params` multiplied per token, `weight_params` read, in -> out wide per token.
  LayerOp& matmul(std::string_view id, std::string_view name, double flop_params, double weight_params, double in,
                  double out) {
    LayerOp& op = add(id, name, OpKind::matmul, flop_params, weight_params);
    op.activation_bytes = matmul_activation_bytes_per_token(in, out, p_.activation_bytes) * p_.tokens;
    return op;
  }

  // An elementwise operator moving `per_token` bytes (norms also read their gains); fusion folds
  // its traffic into the neighbouring matmul.
  LayerOp& elementwise(std::string_view id, std::string_view name, OpKind kind, units::Bytes per_token,
                       double params = 0.0) {
    LayerOp& op = add(id, name, kind, params, params);
    if (p_.fused) {
      op.fused_away = true;
    } else {
      op.activation_bytes = per_token * p_.tokens;
    }
    return op;
  }

  // An operator with no weights: the attention core (its FLOPs given, not 2 per parameter).
  LayerOp& core(std::string_view id, std::string_view name, OpKind kind, units::Flop flops) {
    LayerOp& op = add(id, name, kind, 0.0, 0.0);
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

  [[nodiscard]] const LayerPass& pass() const { return p_; }
  std::vector<LayerOp> take() { return std::move(ops_); }

 private:
  LayerOp& add(std::string_view id, std::string_view name, OpKind kind, double flop_params, double weight_params) {
    LayerOp op;
    op.id = id;
    op.name = name;
    op.kind = kind;
    op.flop_params = flop_params;
    op.weight_params = weight_params;
    op.flops = units::Flop{2.0 * flop_params * p_.tokens};
    op.weight_bytes = weight_bytes(weight_params, p_.weight_bits);
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

AttentionWidths attention_widths(const ModelConfig& m) {
  const double h = as_double(m.n_heads);
  const double e_kv = as_double(kv_elements_per_token_layer(m));
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
  const double kv = as_double(m.n_kv_heads * m.head_dim);
  return {.query = h * as_double(m.head_dim),
          .key = kv,
          .value = kv,
          .output = h * as_double(m.head_dim),
          .cache_scores = e_kv / 2.0,
          .cache_values = e_kv / 2.0};
}

// Q, K, V of standard attention, with their biases and the q/k norms.
void add_qkv(const ModelConfig& m, const LayerKindParams& k, const LayerKind& kind, OpList& ops) {
  const LayerPass& p = ops.pass();
  const double d = as_double(m.d_model);
  const double wq = as_double(m.n_heads * m.head_dim);
  const double wkv = as_double(m.n_kv_heads * m.head_dim);
  const double kept = layer_attended_keys(kind, p.queries);
  // attn_bias = (w_q + 2 w_kv if qkv_bias) + (d if o_bias): each projection takes its own.
  const double qkv_bias = m.qkv_bias ? 1.0 : 0.0;
  const Part q = part(k, "q_proj");
  const Part kp = part(k, "k_proj");
  const Part v = part(k, "v_proj");
  ops.matmul("q_proj", "q_proj", q.active + qkv_bias * wq, q.count + qkv_bias * wq, d, wq);
  ops.writes_cache(ops.matmul("k_proj", "k_proj", kp.active + qkv_bias * wkv, kp.count + qkv_bias * wkv, d, wkv), wkv,
                   kept);
  ops.writes_cache(ops.matmul("v_proj", "v_proj", v.active + qkv_bias * wkv, v.count + qkv_bias * wkv, d, wkv), wkv,
                   kept);
  const Part qk = part(k, "qk_norm");
  if (m.qk_norm != QkNorm::none) {
    ops.elementwise("qk_norm", "q/k norm", OpKind::norm, norm_bytes_per_token(wq + wkv, p.activation_bytes), qk.active);
  }
  if (m.position == PositionKind::rope) {
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
  const double cache = as_double(kv_elements_per_token_layer(m));  // d_c + d_R
  const Part kva = part(k, "kv_a_proj");
  const Part kvb = part(k, "kv_b_proj");
  ops.writes_cache(ops.matmul("kv_a_proj", "kv_a_proj", kva.active, kva.count, d, cache), cache,
                   layer_attended_keys(kind, p.queries));
  ops.elementwise("kv_a_norm", "kv_a_norm", OpKind::norm, norm_bytes_per_token(latent, p.activation_bytes),
                  part(k, "kv_a_norm").active);
  ops.matmul("kv_b_proj", "kv_b_proj", kvb.active, kvb.count, latent, h * as_double(a.qk_nope_head_dim + a.v_head_dim));
  if (m.position == PositionKind::rope) {
    const double rope = as_double(a.qk_rope_head_dim);
    ops.elementwise("rope", "RoPE (q, k)", OpKind::rope, rope_bytes_per_token(h * rope, rope, p.activation_bytes));
  }
}

// QK^T, softmax, attention x V. Prefill: S queries against the S keys the projections wrote,
// pairs as attention_pairs; decode: one query against min(T, W_l) cached keys. Unfused, the
// scores make a round trip through memory; fused (flash attention) they never leave the chip.
// gpt-oss's sinks (one logit per head, `sink_params`) are read by the softmax  [OA25 §2.1]
void add_attention_core(const ModelConfig& m, const LayerKind& kind, double sink_params, OpList& ops) {
  const LayerPass& p = ops.pass();
  const AttentionWidths w = attention_widths(m);
  const double b = p.activation_bytes;
  const double h = as_double(m.n_heads);
  const bool prefill = p.phase == Phase::prefill;
  const double keys = prefill ? p.queries : layer_attended_keys(kind, p.context);
  const double pairs = prefill ? attention_pairs(p.queries, kind.window, p.attention) : keys;
  const units::Bytes scores = score_bytes(h, p.queries, keys, b) * p.sequences;

  LayerOp& qk = ops.core("attention_scores", "QK^T", OpKind::attention,
                         units::Flop{p.sequences * attention_score_flops_per_pair(m) * pairs});
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
                         units::Flop{p.sequences * attention_value_flops_per_pair(m) * pairs});
  av.activation_bytes = units::Bytes{p.tokens * w.output * b};
  if (prefill) av.activation_bytes += units::Bytes{p.sequences * keys * w.value * b};
  if (!prefill) av.kv_bytes = units::Bytes{p.sequences * keys * w.cache_values * p.kv_bytes};
  if (!p.fused) av.activation_bytes += scores;
}

void add_o_proj(const ModelConfig& m, const LayerKindParams& k, OpList& ops) {
  const Part o = part(k, "o_proj");
  // The o bias is what attn_bias holds beyond the q, k and v biases (MLA has none).
  const double wq = as_double(m.n_heads * m.head_dim);
  const double wkv = as_double(m.n_kv_heads * m.head_dim);
  const double o_bias = m.mla.enabled() ? 0.0 : part(k, "attn_bias").count - (m.qkv_bias ? wq + 2.0 * wkv : 0.0);
  const double in = attention_widths(m).output;
  ops.matmul("o_proj", "o_proj", o.active + o_bias, o.count + o_bias, in, as_double(m.d_model));
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
  if (gated) ops.matmul(s.gate_id, s.gate_name, k * in_proj, s.read_copies * in_proj, k * d, wide);
  ops.matmul(s.up_id, s.up_name, k * in_proj, s.read_copies * in_proj, k * d, wide);
  ops.elementwise(s.act_id, s.act_name, OpKind::activation,
                  gated ? gated_activation_bytes_per_token(wide, p.activation_bytes)
                        : plain_activation_bytes_per_token(wide, p.activation_bytes));
  ops.matmul(s.down_id, s.down_name, k * down, s.read_copies * down, wide, k * d);
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
           .width = as_double(m.d_ff),
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
  const double router_vectors = part(k, "router_bias").count + part(k, "router_correction_bias").count;
  ops.matmul("router", "router", router.active + router_vectors, router.count + router_vectors, d,
             as_double(e.n_experts));
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
           .flop_copies = as_double(e.top_k),
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
  p.activation_bytes = dtype_bytes(w.activation_dtype);
  p.kv_bytes = dtype_bytes(w.kv_dtype);
  p.attention = w.attention;
  p.decode_bytes = w.decode_bytes;
  p.moe_decode = w.moe_decode;
  return p;
}

std::vector<LayerKind> layer_kinds(const ModelConfig& m) {
  std::vector<LayerKind> kinds;
  for (std::int64_t i = 0; i < m.n_layers; ++i) {
    const bool moe = m.is_moe_layer(i);
    const bool sliding = m.is_sliding_layer(i);
    auto it = std::find_if(kinds.begin(), kinds.end(),
                           [&](const LayerKind& k) { return k.moe == moe && k.sliding == sliding; });
    if (it == kinds.end()) {
      kinds.push_back({.moe = moe,
                       .sliding = sliding,
                       .layers = 1,
                       .first = i,
                       .last = i,
                       .every = 1,
                       .window = sliding ? m.sliding_window : 0});
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
  return kinds;
}

double attention_score_flops_per_pair(const ModelConfig& m) {
  const double h = as_double(m.n_heads);
  if (m.mla.enabled()) return 2.0 * h * as_double(m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim);
  return 2.0 * h * as_double(m.head_dim);
}

double attention_value_flops_per_pair(const ModelConfig& m) {
  const double h = as_double(m.n_heads);
  if (m.mla.enabled()) return 2.0 * h * as_double(m.mla.v_head_dim);
  return 2.0 * h * as_double(m.head_dim);
}

double layer_attended_keys(const LayerKind& kind, double context) {
  const LayerWindows one{
      .global_layers = kind.sliding ? 0 : 1, .sliding_layers = kind.sliding ? 1 : 0, .window = kind.window};
  return attended_keys(one, context);
}

double experts_read(const ModelConfig& m, double tokens, DecodeBytes mode, MoeDecodeBytes moe_mode) {
  const double e = as_double(m.moe.n_experts);
  const double k = as_double(m.moe.top_k);
  if (mode == DecodeBytes::all_weights || moe_mode == MoeDecodeBytes::all_experts) return e;
  if (moe_mode == MoeDecodeBytes::top_k) return std::min(e, k);
  return expected_experts_touched(e, k, tokens);
}

std::vector<LayerOp> layer_ops(const ModelConfig& m, const ParamCounts& c, const LayerKind& kind, const LayerPass& p) {
  OpList ops(p);
  const LayerKindParams* k = kind_params(c, kind.moe);
  if (k == nullptr) return {};
  const double d = as_double(m.d_model);
  const NormPlan norms{.gains = m.norms_per_layer > 0 ? part(*k, "norms").active / as_double(m.norms_per_layer) : 0.0,
                       .count = m.norms_per_layer};
  if (norms.count >= 1) add_norm(ops, "input_norm", "input norm", norms, d);
  if (m.mla.enabled()) {
    add_mla_projections(m, *k, kind, ops);
  } else {
    add_qkv(m, *k, kind, ops);
  }
  add_attention_core(m, kind, part(*k, "attn_sinks").active, ops);
  add_o_proj(m, *k, ops);
  if (norms.count >= 3) add_norm(ops, "post_attention_norm", "post-attention norm", norms, d);
  ops.elementwise("residual_attention", "residual add", OpKind::residual,
                  residual_add_bytes_per_token(d, p.activation_bytes));
  if (norms.count == 2) add_norm(ops, "post_attention_norm", "post-attention norm", norms, d);
  if (norms.count >= 3) add_norm(ops, "pre_ffn_norm", "pre-FFN norm", norms, d);
  if (kind.moe) {
    add_moe_ffn(m, *k, ops);
  } else {
    add_dense_ffn(m, *k, ops);
  }
  if (norms.count >= 4) add_norm(ops, "post_ffn_norm", "post-FFN norm", norms, d);
  if (norms.count >= 5) add_norm(ops, "extra_norms", "extra norms", norms, d, as_double(norms.count - 4));
  ops.elementwise("residual_ffn", "residual add", OpKind::residual,
                  residual_add_bytes_per_token(d, p.activation_bytes));
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
  gather.weight_bytes = weight_bytes(rows, p.weight_bits);
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
  head.weight_bytes = weight_bytes(head.weight_params, p.weight_bits);
  head.activation_bytes = matmul_activation_bytes_per_token(e, vocab, p.activation_bytes) * p.head_tokens;
  return ops.take();
}

units::Bytes mean_layer_elementwise_bytes_per_token(const ModelConfig& m, const ParamCounts& c, double b) {
  LayerPass one;
  one.activation_bytes = b;
  double sum = 0.0;
  double layers = 0.0;
  for (const LayerKind& kind : layer_kinds(m)) {
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
