// validate(): every problem with a config at once, so a user fixes them in one pass.
#include "roofline/hardware_config.hpp"
#include "roofline/model_config.hpp"
#include "roofline/params.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

namespace roofline {
namespace {

// Widths above 2^24 and layer counts above 2^16 are far past any real model. The bounds do not
// keep every exact count below 2^63 (2^16 MoE layers x 2^16 experts x 3 x 2^24 x 2^26 is about
// 2^100): count_params does its products with checked_mul/checked_add, which throw OverflowError
// naming the count that overflowed.
constexpr std::int64_t kMaxWidth = std::int64_t{1} << 24;
constexpr std::int64_t kMaxLayers = std::int64_t{1} << 16;
constexpr std::int64_t kMaxVocab = std::int64_t{1} << 26;

void need(std::vector<std::string>& out, bool ok, std::string msg) {
  if (!ok) out.push_back(std::move(msg));
}

void in_range(std::vector<std::string>& out, const char* field, std::int64_t v, std::int64_t lo, std::int64_t hi) {
  need(out, v >= lo && v <= hi,
       std::string(field) + ": " + std::to_string(v) + " is out of range; allowed " + std::to_string(lo) + " to " +
           std::to_string(hi));
}

// ---- Hybrid and state-space layers (issue 10) -------------------------------------------------
void validate_hybrid(const ModelConfig& m, std::vector<std::string>& e) {
  const HybridConfig& h = m.hybrid;
  need(e, std::cmp_equal(h.layers.size(), m.n_layers),
       "hybrid.layers: " + std::to_string(h.layers.size()) + " entries for " + std::to_string(m.n_layers) + " layers");
  need(e, m.sliding_window == 0, "sliding_window: not supported in a hybrid model");
  const auto uses = [&](StateMixer k) {
    return std::any_of(h.layers.begin(), h.layers.end(), [&](const LayerMix& x) { return x.state == k; });
  };
  if (uses(StateMixer::mamba1) || uses(StateMixer::mamba2)) {
    in_range(e, "hybrid.ssm.d_inner", h.ssm.d_inner, 1, kMaxWidth);
    in_range(e, "hybrid.ssm.d_state", h.ssm.d_state, 1, kMaxWidth);
    in_range(e, "hybrid.ssm.d_conv", h.ssm.d_conv, 1, 1024);
  }
  if (uses(StateMixer::mamba1)) in_range(e, "hybrid.ssm.dt_rank", h.ssm.dt_rank, 1, kMaxWidth);
  if (uses(StateMixer::mamba2)) {
    in_range(e, "hybrid.ssm.n_heads", h.ssm.n_heads, 1, kMaxWidth);
    in_range(e, "hybrid.ssm.head_dim", h.ssm.head_dim, 1, kMaxWidth);
    in_range(e, "hybrid.ssm.n_groups", h.ssm.n_groups, 1, kMaxWidth);
    need(e, h.ssm.n_heads * h.ssm.head_dim == h.ssm.d_inner, "hybrid.ssm: n_heads x head_dim must equal d_inner");
  }
  if (uses(StateMixer::gated_deltanet)) {
    in_range(e, "hybrid.deltanet.n_key_heads", h.deltanet.n_key_heads, 1, kMaxWidth);
    in_range(e, "hybrid.deltanet.n_value_heads", h.deltanet.n_value_heads, 1, kMaxWidth);
    in_range(e, "hybrid.deltanet.key_head_dim", h.deltanet.key_head_dim, 1, kMaxWidth);
    in_range(e, "hybrid.deltanet.value_head_dim", h.deltanet.value_head_dim, 1, kMaxWidth);
    in_range(e, "hybrid.deltanet.conv_kernel", h.deltanet.conv_kernel, 1, 1024);
  }
  if (uses(StateMixer::short_conv)) in_range(e, "hybrid.conv.l_cache", h.conv.l_cache, 1, 1024);
  for (const LayerMix& x : h.layers) {
    if (x.d_ff != 0) {
      in_range(e, "hybrid.layers d_ff", x.d_ff, 1, std::int64_t{1} << 26);
      need(e, x.ffn == LayerFfn::dense, "hybrid.layers: an FFN width on a layer without a dense FFN");
    }
  }
  const bool moe =
      std::any_of(h.layers.begin(), h.layers.end(), [](const LayerMix& x) { return x.ffn == LayerFfn::moe; });
  need(e, !moe || m.moe.enabled(), "hybrid.layers: a MoE layer without moe.n_experts");
}
// ---- end hybrid --------------------------------------------------------------------------------

// The MoE block's counts and the zero-computation experts' routing share.
void validate_moe(const ModelConfig& m, std::vector<std::string>& e) {
  if (m.moe.enabled()) {
    in_range(e, "moe.n_experts", m.moe.n_experts, 1, 1 << 16);
    in_range(e, "moe.zero_experts", m.moe.zero_experts, 0, 1 << 16);
    in_range(e, "moe.top_k", m.moe.top_k, 1, m.moe.router_outputs());
    in_range(e, "moe.d_ff_expert", m.moe.d_ff_expert, 1, std::int64_t{1} << 26);
    in_range(e, "moe.n_shared_experts", m.moe.n_shared_experts, 0, 1 << 16);
    if (m.moe.n_shared_experts > 0) in_range(e, "moe.d_ff_shared", m.moe.d_ff_shared, 1, std::int64_t{1} << 26);
    in_range(e, "moe.first_dense_layers", m.moe.first_dense_layers, 0, m.n_layers);
    in_range(e, "moe.layer_freq", m.moe.layer_freq, 1, kMaxLayers);
  }
  need(e, m.moe.zero_share >= 0.0 && m.moe.zero_share < 1.0,
       "moe.zero_share: " + std::to_string(m.moe.zero_share) + " is out of range; allowed 0 to below 1");
  need(e, m.moe.zero_share == 0.0 || (m.moe.enabled() && m.moe.zero_experts > 0),
       "moe.zero_share: the model has no zero-computation experts (moe.zero_experts) to route a share to");
  in_range(e, "moe.extra_norms", m.moe.extra_norms, 0, 8);
  need(e, m.moe.enabled() || (!m.moe.router_scales && m.moe.extra_norms == 0),
       "moe.router_scales/extra_norms: need a MoE model (moe.n_experts)");
}

bool has_dense_layer(const ModelConfig& m) {
  if (m.hybrid.enabled()) {
    return std::any_of(m.hybrid.layers.begin(), m.hybrid.layers.end(),
                       [](const LayerMix& x) { return x.ffn == LayerFfn::dense; });
  }
  return !m.moe.enabled() || m.moe.first_dense_layers > 0 || m.moe.layer_freq > 1;
}

// Gemma 4's global layers: their own head width and KV heads, in a plain (not MLA, not hybrid)
// attention stack; with K = V there are no value biases to place.
void validate_global_attention(const ModelConfig& m, std::vector<std::string>& e) {
  const GlobalAttentionShape& g = m.global_attention;
  in_range(e, "global_attention.head_dim", g.head_dim, 0, kMaxWidth);
  in_range(e, "global_attention.n_kv_heads", g.n_kv_heads, 0, kMaxWidth);
  if (!g.enabled()) return;
  need(e, !m.mla.enabled() && !m.hybrid.enabled() && m.cross_attention_layers == 0,
       "global_attention: a global layer shape needs plain attention layers (not MLA, hybrid or cross-attention)");
  need(e, !m.indexer.enabled(), "global_attention: not modelled with a sparse-attention indexer");
  need(e, !(g.k_eq_v && m.qkv_bias), "global_attention.k_eq_v: not modelled with qkv_bias");
  if (g.n_kv_heads > 0 && m.n_heads > 0) {
    need(e, g.n_kv_heads <= m.n_heads && m.n_heads % g.n_kv_heads == 0,
         "global_attention.n_kv_heads: " + std::to_string(g.n_kv_heads) + " does not divide n_heads " +
             std::to_string(m.n_heads));
  }
}

}  // namespace

std::vector<std::string> validate(const ModelConfig& m) {
  std::vector<std::string> e;
  in_range(e, "n_layers", m.n_layers, 1, kMaxLayers);
  in_range(e, "d_model", m.d_model, 1, kMaxWidth);
  if (m.hybrid.enabled()) validate_hybrid(m, e);
  if (m.hybrid.enabled() && m.attention_layers() == 0) {
    need(e, m.n_heads == 0 && m.n_kv_heads == 0 && m.head_dim == 0,
         "n_heads/n_kv_heads/head_dim: a model without attention layers has no heads");
    in_range(e, "vocab_size", m.vocab_size, 1, kMaxVocab);
    if (has_dense_layer(m)) in_range(e, "d_ff", m.d_ff, 1, std::int64_t{1} << 26);
    return e;
  }
  in_range(e, "n_heads", m.n_heads, 1, kMaxWidth);
  in_range(e, "vocab_size", m.vocab_size, 1, kMaxVocab);
  in_range(e, "norms_per_layer", m.norms_per_layer, 0, 8);
  in_range(e, "max_seq_len", m.max_seq_len, 0, std::int64_t{1} << 40);
  in_range(e, "learned_positions", m.learned_positions, 0, std::int64_t{1} << 24);
  in_range(e, "embed_proj_dim", m.embed_proj_dim, 0, kMaxWidth);
  in_range(e, "sliding_window", m.sliding_window, 0, std::int64_t{1} << 40);
  in_range(e, "global_every", m.global_every, 0, kMaxLayers);
  in_range(e, "mtp_layers", m.mtp_layers, 0, 64);
  if (m.mla.enabled()) {
    in_range(e, "mla.kv_lora_rank", m.mla.kv_lora_rank, 1, kMaxWidth);
    in_range(e, "mla.q_lora_rank", m.mla.q_lora_rank, 0, kMaxWidth);
    in_range(e, "mla.qk_rope_head_dim", m.mla.qk_rope_head_dim, 0, kMaxWidth);
    in_range(e, "mla.qk_nope_head_dim", m.mla.qk_nope_head_dim, 0, kMaxWidth);
    in_range(e, "mla.v_head_dim", m.mla.v_head_dim, 1, kMaxWidth);
    need(e, !m.qkv_bias && !m.o_bias, "qkv_bias/o_bias: not supported with MLA attention");
  } else {
    in_range(e, "n_kv_heads", m.n_kv_heads, 1, kMaxWidth);
    in_range(e, "head_dim", m.head_dim, 1, kMaxWidth);
    if (m.n_kv_heads > m.n_heads && m.n_heads > 0) {
      need(e, false,
           "n_kv_heads: " + std::to_string(m.n_kv_heads) + " is more than n_heads " + std::to_string(m.n_heads) +
               "; each KV head serves one or more query heads");
    } else {
      need(e, m.n_kv_heads <= 0 || m.n_heads % m.n_kv_heads == 0,
           "n_kv_heads: " + std::to_string(m.n_kv_heads) + " does not divide n_heads " + std::to_string(m.n_heads));
    }
  }
  if (m.indexer.enabled()) {
    in_range(e, "indexer.n_heads", m.indexer.n_heads, 1, kMaxWidth);
    in_range(e, "indexer.head_dim", m.indexer.head_dim, 1, kMaxWidth);
    in_range(e, "indexer.topk", m.indexer.topk, 1, std::int64_t{1} << 40);
    need(e, m.sliding_window == 0, "indexer: sparse attention with a sliding window is not modelled");
    need(e, !m.hybrid.enabled(), "indexer: sparse attention in a hybrid stack is not modelled");
  } else {
    need(e, m.indexer.n_heads == 0 && m.indexer.head_dim == 0,
         "indexer.n_heads/head_dim: an indexer needs indexer.topk (1 or more)");
  }
  if (has_dense_layer(m)) in_range(e, "d_ff", m.d_ff, 1, std::int64_t{1} << 26);
  validate_moe(m, e);
  validate_global_attention(m, e);
  need(e, !m.qk_norm_gain_only || m.qk_norm != QkNorm::none, "qk_norm_gain_only: needs qk_norm per_head or full_width");
  // gpt-oss (issue 10): the published checkpoint's block-scaled experts.
  if (m.expert_storage.enabled()) {
    const ExpertStorage& s = m.expert_storage;
    need(e, m.moe.enabled(), "expert_storage: block-scaled experts need a MoE model");
    in_range(e, "expert_storage.value_bits", s.value_bits, 1, 16);
    in_range(e, "expert_storage.scale_bits", s.scale_bits, 0, 32);
    in_range(e, "expert_storage.block", s.block, 1, 1 << 16);
    in_range(e, "expert_storage.other_bits", s.other_bits, 8, 32);
    const bool bounded = s.block >= 1 && s.block <= (1 << 16) && s.value_bits >= 1 && s.value_bits <= 16;
    need(e, !bounded || (s.block * s.value_bits % 8 == 0 && s.scale_bits % 8 == 0 && s.other_bits % 8 == 0),
         "expert_storage: a block's values, its scale and the other tensors must fill whole bytes");
  }
  // Multimodal wrappers: the vision tower's fields (vision.cpp).
  for (std::string& p : vision_problems(m.vision)) e.push_back(std::move(p));
  in_range(e, "cross_attention_layers", m.cross_attention_layers, 0, kMaxLayers);
  in_range(e, "extra_embedding_rows", m.extra_embedding_rows, 0, kMaxVocab);
  need(e, m.cross_attention_layers == 0 || !m.moe.enabled(), "cross_attention_layers: only with dense layers");
  return e;
}

std::vector<std::string> validate(const HardwareConfig& h) {
  std::vector<std::string> e;
  const auto positive = [&](const char* field, double v) {
    need(e, std::isfinite(v) && v > 0.0, std::string(field) + ": must be a positive finite value");
  };
  positive("memory_capacity", h.memory_capacity.base());
  positive("memory_bandwidth", h.memory_bandwidth.base());
  for (DType t : kAllDTypes) {
    if (auto p = h.peak_for(t)) {
      positive(("peak/" + std::string(dtype_name(t))).c_str(), p->base());
    }
  }
  return e;
}

}  // namespace roofline
