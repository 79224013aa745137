// Hybrid and state-space families (issue 10): Mamba, Mamba-2, Nemotron-H, Granite 4.0-H,
// Qwen3-Next, Jamba, Bamba, Falcon-H1. Each reader fills ModelConfig::hybrid with one LayerMix
// per layer and the mixer's widths; the class defaults and traps are in
// tests/fixtures/hf/FAMILY-NOTES-hybrid.md and docs/hf-import.md.
#include "io/hf_family.hpp"
#include "io/text.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

namespace roofline::io::hf {
namespace {

using nlohmann::json;
using i64 = std::int64_t;

constexpr LayerMix kAttention{.attention = true, .state = StateMixer::none, .ffn = LayerFfn::dense};

LayerMix mix(bool attention, StateMixer state, LayerFfn ffn) {
  return {.attention = attention, .state = state, .ffn = ffn};
}

// ceil(a / b) for the "auto" dt rank, b > 0.
i64 ceil_div(i64 a, i64 b) { return (a + b - 1) / b; }

// A key that may be an integer or the string "auto" (Mamba's time_step_rank, Jamba's
// mamba_dt_rank, Bamba's mamba_d_head): the integer, or `fallback` for "auto" or absent.
i64 integer_or_auto(const Cfg& c, const char* key, i64 fallback) {
  if (!c.has(key)) return fallback;
  const json& v = c.raw(key);
  if (v.is_string()) {
    if (v.get<std::string>() != "auto") c.fail(key, "expected an integer or \"auto\"");
    return fallback;
  }
  return c.integer(key);
}

// A declared recurrent-state dtype (Nemotron-H's mamba_ssm_cache_dtype, which vLLM applies to the
// SSM state, not the conv state): float32 / bfloat16 / float16; "auto" or absent: the KV dtype.
void read_state_dtype(const Cfg& c, const char* key, ModelConfig& m) {
  const std::string t = c.str(key, "auto");
  if (t == "auto") return;
  if (t == "float32") {
    m.hybrid.state_dtype = DType::fp32;
  } else if (t == "bfloat16") {
    m.hybrid.state_dtype = DType::bf16;
  } else if (t == "float16") {
    m.hybrid.state_dtype = DType::fp16;
  } else {
    c.fail(key, "unknown dtype " + quote(t) + "; expected auto, float32, bfloat16 or float16");
  }
}

// A list of layer-type strings, one per layer, mapped through `kind` (which fails on unknown ones).
template <class F>
std::vector<LayerMix> read_type_list(const Cfg& c, const char* key, i64 n_layers, F kind) {
  const json& t = c.raw(key);
  if (!t.is_array() || static_cast<i64>(t.size()) != n_layers) {
    c.fail(key, "expected an array of " + std::to_string(n_layers) + " strings");
  }
  std::vector<LayerMix> out;
  for (const json& s : t) {
    if (!s.is_string()) c.fail(key, "expected an array of strings, found " + describe_json(s));
    out.push_back(kind(s.get<std::string>()));
  }
  return out;
}

// The layers a list of indices names (Bamba's attn_layer_indices, LFM2's full_attn_idxs) become
// `kind`; an index outside the model is refused.
void set_listed_layers(const Cfg& c, const char* key, const LayerMix& kind, std::vector<LayerMix>& layers) {
  const json& idx = c.raw(key);
  if (!idx.is_array()) c.fail(key, "expected an array of layer indices");
  for (const json& v : idx) {
    if (!v.is_number_integer() || v.get<i64>() < 0 || v.get<i64>() >= static_cast<i64>(layers.size())) {
      c.fail(key, "layer index " + describe_json(v) + " is out of range");
    }
    layers[v.get<std::size_t>()] = kind;
  }
}

// Attention and the dense width shared by the hybrids built on Llama-style attention.
void read_attention(const Cfg& c, ModelConfig& m) {
  m.n_heads = c.integer("num_attention_heads");
  if (m.n_heads == 0) c.fail("num_attention_heads", "must be positive");
  m.n_kv_heads = c.integer("num_key_value_heads", kDeriveFromHeads);
  const bool bias = c.boolean("attention_bias", false);
  m.qkv_bias = bias;
  m.o_bias = bias;
}

void common_defaults(ModelConfig& m) {
  m.norm = NormKind::rmsnorm;
  m.mlp = MlpKind::gated;
  m.final_norm = true;
  m.sliding_window = 0;
}

// ---- Mamba (MambaConfig: hidden 768, state 16, 32 layers, conv 4, expand 2, time_step_rank
// "auto" = ceil(d / 16), use_bias false, use_conv_bias true, vocab 50280, tied) --------------------
void import_mamba(const Cfg& c, ModelConfig& m) {
  common_defaults(m);
  m.d_model = c.integer("hidden_size", 768);
  m.n_layers = c.integer("num_hidden_layers", 32);
  m.vocab_size = c.integer("vocab_size", 50280);
  m.tied_embeddings = c.boolean("tie_word_embeddings", true);
  m.n_heads = 0;
  m.n_kv_heads = 0;
  m.head_dim = 0;
  m.position = PositionKind::none;
  SsmConfig& s = m.hybrid.ssm;
  s.d_inner = saturating_mul(c.integer("expand", 2), m.d_model);
  if (c.has("intermediate_size")) s.d_inner = c.integer("intermediate_size");
  s.d_state = c.integer("state_size", 16);
  s.d_conv = c.integer("conv_kernel", 4);
  s.dt_rank = integer_or_auto(c, "time_step_rank", ceil_div(m.d_model, 16));
  s.conv_bias = c.boolean("use_conv_bias", true);
  s.proj_bias = c.boolean("use_bias", false);
  s.gated_norm = false;
  check_layer_count(c, m.n_layers);  // before any per-layer list (R3)
  m.hybrid.layers.assign(static_cast<std::size_t>(m.n_layers), mix(false, StateMixer::mamba1, LayerFfn::none));
}

// Mamba-2 mixer widths under the given key spellings; d_inner = n_heads x head_dim.
struct Mamba2Keys {
  const char* n_heads;
  const char* head_dim;
  const char* d_state;
  const char* n_groups;
  const char* d_conv;
  const char* chunk;
  const char* conv_bias;
  const char* proj_bias;
};

void read_mamba2(const Cfg& c, ModelConfig& m, const Mamba2Keys& k, i64 heads_default, i64 expand) {
  SsmConfig& s = m.hybrid.ssm;
  s.n_heads = c.integer(k.n_heads, heads_default);
  s.d_inner = saturating_mul(expand, m.d_model);
  s.head_dim = integer_or_auto(c, k.head_dim, s.n_heads > 0 ? s.d_inner / s.n_heads : 0);
  s.d_inner = saturating_mul(s.n_heads, s.head_dim);
  s.d_state = c.integer(k.d_state, 128);
  s.n_groups = c.integer(k.n_groups, 1);
  s.d_conv = c.integer(k.d_conv, 4);
  s.chunk = c.integer(k.chunk, 256);
  s.conv_bias = c.boolean(k.conv_bias, true);
  s.proj_bias = c.boolean(k.proj_bias, false);
  s.gated_norm = true;
}

// ---- Mamba-2 (Mamba2Config: num_heads 128, head_dim 64, hidden 4096, state 128, 64 layers,
// n_groups 8, conv 4, expand 2, chunk 256, use_bias false, use_conv_bias true, vocab 32768,
// untied). Mamba2Mixer takes d_i = expand x d and num_heads from the config; they must agree. ---
void import_mamba2(const Cfg& c, ModelConfig& m) {
  common_defaults(m);
  m.d_model = c.integer("hidden_size", 4096);
  m.n_layers = c.integer("num_hidden_layers", 64);
  m.vocab_size = c.integer("vocab_size", 32768);
  m.tied_embeddings = c.boolean("tie_word_embeddings", false);
  m.n_heads = 0;
  m.n_kv_heads = 0;
  m.head_dim = 0;
  m.position = PositionKind::none;
  SsmConfig& s = m.hybrid.ssm;
  s.n_heads = c.integer("num_heads", 128);
  s.head_dim = c.integer("head_dim", 64);
  s.d_inner = saturating_mul(c.integer("expand", 2), m.d_model);
  if (saturating_mul(s.n_heads, s.head_dim) != s.d_inner) {
    c.fail("num_heads", "num_heads x head_dim (" + std::to_string(saturating_mul(s.n_heads, s.head_dim)) +
                            ") must equal expand x hidden_size (" + std::to_string(s.d_inner) + ")");
  }
  s.d_state = c.integer("state_size", 128);
  s.n_groups = c.integer("n_groups", 8);
  s.d_conv = c.integer("conv_kernel", 4);
  s.chunk = c.integer("chunk_size", 256);
  s.conv_bias = c.boolean("use_conv_bias", true);
  s.proj_bias = c.boolean("use_bias", false);
  s.gated_norm = true;
  check_layer_count(c, m.n_layers);  // before any per-layer list (R3)
  m.hybrid.layers.assign(static_cast<std::size_t>(m.n_layers), mix(false, StateMixer::mamba2, LayerFfn::none));
}

// ---- Nemotron-H: one mixer per block (M Mamba-2, * attention, - squared-ReLU MLP, E MoE of
// squared-ReLU experts: Nemotron 3), one norm each.
LayerMix nemotron_layer(const Cfg& c, const char* key, char ch) {
  switch (ch) {
    case 'M':
      return mix(false, StateMixer::mamba2, LayerFfn::none);
    case '*':
      return mix(true, StateMixer::none, LayerFfn::none);
    case '-':
      return mix(false, StateMixer::none, LayerFfn::dense);
    case 'E':
      return mix(false, StateMixer::none, LayerFfn::moe);
    default:
      c.fail(key, "unknown block " + quote(std::string(1, ch)) + "; expected M, *, - or E");
  }
}

void import_nemotron_h(const Cfg& c, ModelConfig& m) {
  common_defaults(m);
  m.d_model = c.integer("hidden_size", 4096);
  m.vocab_size = c.integer("vocab_size", 131072);
  m.tied_embeddings = c.boolean("tie_word_embeddings", false);
  m.max_seq_len = c.integer("max_position_embeddings", 0);
  read_attention(c, m);
  m.head_dim = c.integer_any({"head_dim", "attention_head_dim"}, kDeriveFromHeads);
  m.d_ff = c.integer("intermediate_size", 21504);
  m.mlp = MlpKind::plain;  // relu2: up_proj and down_proj only
  m.mlp_bias = c.boolean("mlp_bias", false);
  m.position = PositionKind::rope;
  std::vector<LayerMix> layers;
  if (c.has("hybrid_override_pattern")) {
    for (char ch : c.str("hybrid_override_pattern")) layers.push_back(nemotron_layer(c, "hybrid_override_pattern", ch));
  } else {
    const char* key = c.has("layers_block_type") ? "layers_block_type" : "layer_types";
    layers = read_type_list(c, key, static_cast<i64>(c.raw(key).size()), [&](const std::string& t) {
      if (t == "mamba" || t == "linear_attention") return nemotron_layer(c, key, 'M');
      if (t == "attention" || t == "full_attention") return nemotron_layer(c, key, '*');
      if (t == "mlp") return nemotron_layer(c, key, '-');
      if (t == "moe") return nemotron_layer(c, key, 'E');
      c.fail(key, "unknown layer type " + quote(t));
    });
  }
  m.n_layers = static_cast<i64>(layers.size());
  if (const auto n = c.opt_integer("num_hidden_layers"); n && *n != m.n_layers) {
    c.fail("num_hidden_layers", std::to_string(*n) + " does not match the " + std::to_string(m.n_layers) +
                                    " blocks of hybrid_override_pattern");
  }
  m.hybrid.layers = std::move(layers);
  // NemotronHMamba2Mixer: d_i = mamba_num_heads x mamba_head_dim (expand is not used); in_proj and
  // out_proj take use_bias, conv1d use_conv_bias; the older mamba_* spellings are accepted.
  SsmConfig& s = m.hybrid.ssm;
  s.n_heads = c.integer("mamba_num_heads", 128);
  s.head_dim = c.integer("mamba_head_dim", 64);
  s.d_inner = saturating_mul(s.n_heads, s.head_dim);
  s.d_state = c.integer("ssm_state_size", 128);
  s.n_groups = c.integer_any({"n_groups", "mamba_n_groups"}, 8);
  s.d_conv = c.integer_any({"conv_kernel", "mamba_d_conv"}, 4);
  s.chunk = c.integer_any({"chunk_size", "mamba_chunk_size"}, 128);
  s.conv_bias = c.boolean(c.has("use_conv_bias") ? "use_conv_bias" : "mamba_conv_bias", true);
  s.proj_bias = c.boolean("use_bias", false);
  s.gated_norm = true;
  read_state_dtype(c, "mamba_ssm_cache_dtype", m);
  // NemotronHMOE (Nemotron 3): n_routed_experts squared-ReLU experts (up_proj, down_proj) of
  // moe_intermediate_size, n_shared_experts of moe_shared_expert_intermediate_size, and
  // NemotronHTopkRouter's d x E weight with its e_score_correction_bias.
  const bool moe = std::any_of(m.hybrid.layers.begin(), m.hybrid.layers.end(),
                               [](const LayerMix& x) { return x.ffn == LayerFfn::moe; });
  if (moe) {
    m.moe.n_experts = c.integer("n_routed_experts");
    m.moe.top_k = c.integer("num_experts_per_tok");
    m.moe.d_ff_expert = c.integer("moe_intermediate_size");
    m.moe.n_shared_experts = c.integer("n_shared_experts", 1);
    m.moe.d_ff_shared = c.integer("moe_shared_expert_intermediate_size", m.moe.d_ff_expert);
    m.moe.correction_bias = true;
  }
  if (c.integer("num_nextn_predict_layers", 0) > 0) {
    c.unsupported("num_nextn_predict_layers", "Nemotron-H's MTP layers (mtp_layers_block_type), not modelled yet");
  }
}

// The Mamba-2 keys of Granite 4.0-H and Bamba, every one prefixed mamba_.
constexpr Mamba2Keys kMambaPrefixedKeys = {.n_heads = "mamba_n_heads",
                                           .head_dim = "mamba_d_head",
                                           .d_state = "mamba_d_state",
                                           .n_groups = "mamba_n_groups",
                                           .d_conv = "mamba_d_conv",
                                           .chunk = "mamba_chunk_size",
                                           .conv_bias = "mamba_conv_bias",
                                           .proj_bias = "mamba_proj_bias"};

// ---- Granite 4.0 (granitemoehybrid): layer_types mamba / attention; every layer has the shared
// MLP (gated, shared_intermediate_size) and, with num_local_experts > 0, the MoE beside it. -----
void import_granitemoehybrid(const Cfg& c, ModelConfig& m) {
  common_defaults(m);
  m.d_model = c.integer("hidden_size", 1024);
  m.n_layers = c.integer("num_hidden_layers", 8);
  m.vocab_size = c.integer("vocab_size", 32000);
  m.tied_embeddings = c.boolean("tie_word_embeddings", false);
  m.max_seq_len = c.integer("max_position_embeddings", 0);
  read_attention(c, m);
  m.head_dim = kDeriveFromHeads;  // GraniteMoeSharedAttention: hidden_size / num_attention_heads
  m.position = c.str("position_embedding_type", "nope") == "rope" ? PositionKind::rope : PositionKind::none;
  const i64 shared = c.integer("shared_intermediate_size", 1024);
  const i64 experts = c.integer("num_local_experts", 8);
  LayerFfn ffn = LayerFfn::dense;
  if (experts > 0) {
    m.moe.n_experts = experts;
    m.moe.top_k = c.integer("num_experts_per_tok", 2);
    m.moe.d_ff_expert = c.integer("intermediate_size", 2048);
    if (shared > 0) {
      m.moe.n_shared_experts = 1;
      m.moe.d_ff_shared = shared;
    }
    ffn = LayerFfn::moe;
  } else {
    m.d_ff = shared;  // the dense variants (granite-4.0-micro): the shared MLP is the whole FFN
  }
  if (c.has("layer_types")) {
    m.hybrid.layers = read_type_list(c, "layer_types", m.n_layers, [&](const std::string& t) {
      if (t == "mamba") return mix(false, StateMixer::mamba2, ffn);
      if (t == "attention") return mix(true, StateMixer::none, ffn);
      c.fail("layer_types", "unknown layer type " + quote(t) + "; expected mamba or attention");
    });
  } else {
    check_layer_count(c, m.n_layers);  // before any per-layer list (R3)
    m.hybrid.layers.assign(static_cast<std::size_t>(m.n_layers), mix(true, StateMixer::none, ffn));
  }
  // The Bamba mixer: d_i = mamba_expand x d, mamba_d_head "auto" = d_i / mamba_n_heads.
  read_mamba2(c, m, kMambaPrefixedKeys, 128, c.integer("mamba_expand", 2));
}

// ---- Bamba: Mamba-2 layers except attn_layer_indices; gated MLP on every layer. -------------
void import_bamba(const Cfg& c, ModelConfig& m) {
  read_llama_like(c, m, false);
  m.sliding_window = 0;
  m.head_dim = kDeriveFromHeads;     // BambaAttention: hidden_size / num_attention_heads
  check_layer_count(c, m.n_layers);  // before any per-layer list (R3)
  m.hybrid.layers.assign(static_cast<std::size_t>(m.n_layers), mix(false, StateMixer::mamba2, LayerFfn::dense));
  if (c.has("attn_layer_indices")) set_listed_layers(c, "attn_layer_indices", kAttention, m.hybrid.layers);
  read_mamba2(c, m, kMambaPrefixedKeys, 128, c.integer("mamba_expand", 2));
}

// ---- Qwen3-Next: linear_attention (Gated DeltaNet) / full_attention (gated, q/k norms) layers,
// full every full_attention_interval; MoE with one gated shared expert. -------------------------
// Every interval-th layer is full attention: 1 to L, else no layer would be (N21 named the heads).
i64 full_attention_interval(const Cfg& c, i64 layers) {
  const i64 interval = c.integer("full_attention_interval", 4);
  if (interval < 1) c.fail("full_attention_interval", "must be at least 1");
  if (interval > layers) {
    c.fail("full_attention_interval", std::to_string(interval) + " is more than the " + std::to_string(layers) +
                                          " layers: no layer would be a full-attention layer");
  }
  return interval;
}

void import_qwen3_next(const Cfg& c, ModelConfig& m) {
  read_llama_like(c, m, false);
  m.sliding_window = 0;
  m.qk_norm = QkNorm::per_head;
  m.hybrid.attn_output_gate = true;
  const i64 interval = full_attention_interval(c, m.n_layers);
  m.moe.n_experts = c.integer("num_experts", 512);
  const i64 step = c.integer("decoder_sparse_step", 1);
  if (step < 1) c.fail("decoder_sparse_step", "must be at least 1");
  check_layer_count(c, m.n_layers);  // before any per-layer list (R3)
  std::vector<bool> dense(static_cast<std::size_t>(m.n_layers), false);
  if (c.has("mlp_only_layers")) {
    const json& l = c.raw("mlp_only_layers");
    if (!l.is_array()) c.fail("mlp_only_layers", "expected an array of layer indices");
    for (const json& v : l) {
      if (!v.is_number_integer() || v.get<i64>() < 0 || v.get<i64>() >= m.n_layers) {
        c.fail("mlp_only_layers", "layer index " + describe_json(v) + " is out of range");
      }
      dense[v.get<std::size_t>()] = true;
    }
  }
  const auto ffn = [&](i64 i) {
    const bool moe = m.moe.n_experts > 0 && !dense[static_cast<std::size_t>(i)] && (i + 1) % step == 0;
    return moe ? LayerFfn::moe : LayerFfn::dense;
  };
  if (c.has("layer_types")) {
    i64 i = 0;
    m.hybrid.layers = read_type_list(c, "layer_types", m.n_layers, [&](const std::string& t) {
      const LayerFfn f = ffn(i++);
      if (t == "linear_attention") return mix(false, StateMixer::gated_deltanet, f);
      if (t == "full_attention") return mix(true, StateMixer::none, f);
      c.fail("layer_types", "unknown layer type " + quote(t) + "; expected linear_attention or full_attention");
    });
  } else {
    for (i64 i = 0; i < m.n_layers; ++i) {
      const bool full = (i + 1) % interval == 0;
      m.hybrid.layers.push_back(mix(full, full ? StateMixer::none : StateMixer::gated_deltanet, ffn(i)));
    }
  }
  if (m.moe.n_experts > 0) {
    m.moe.top_k = c.integer("num_experts_per_tok", 10);
    m.moe.d_ff_expert = c.integer("moe_intermediate_size", 512);
    const i64 shared = c.integer("shared_expert_intermediate_size", 512);
    if (shared > 0) {
      m.moe.n_shared_experts = 1;
      m.moe.d_ff_shared = shared;
      m.moe.shared_expert_gate = true;
    }
  }
  // The checkpoint ships mtp.* (one module unless num_nextn_predict_layers says otherwise), which
  // Qwen3NextForCausalLM does not load: counted, named and excluded.
  m.mtp_layers = c.integer("num_nextn_predict_layers", 1);
  m.mtp_vocab_tables = 0;
  DeltaNetConfig& g = m.hybrid.deltanet;
  g.n_key_heads = c.integer("linear_num_key_heads", 16);
  g.n_value_heads = c.integer("linear_num_value_heads", 32);
  g.key_head_dim = c.integer("linear_key_head_dim", 128);
  g.value_head_dim = c.integer("linear_value_head_dim", 128);
  g.conv_kernel = c.integer("linear_conv_kernel_dim", 4);
}

// Qwen3.5 / Qwen3.6 text models (Qwen3_5TextConfig, Qwen3_5MoeTextConfig, subclasses of
// Qwen3NextConfig): Qwen3-Next's layers (gated DeltaNet with in_proj_qkv / in_proj_z / in_proj_b /
// in_proj_a, the same widths as Qwen3-Next's fused in_proj_qkvz and in_proj_ba; output-gated full
// attention every full_attention_interval layers). The dense class deletes the MoE keys (a gated
// MLP of intermediate_size in every layer); the MoE class deletes intermediate_size, mlp_only_layers
// and decoder_sparse_step (MoE in every layer: experts, a gated shared expert). The checkpoint's
// mtp.* modules (mtp_num_hidden_layers; they read the model's embedding and head unless
// mtp_use_dedicated_embeddings) are counted and excluded.
// What both Qwen3.5 text classes share: the keys the class deletes are refused as written (`c`),
// the layers read as Qwen3-Next's over the class's defaults (`d`), the MTP modules counted.
void read_qwen3_5_text(const Cfg& c, const Cfg& d, ModelConfig& m, const char* deleted) {
  for (const char* key : {"decoder_sparse_step", "mlp_only_layers"}) {
    if (c.has(key)) d.unsupported(key, deleted);
  }
  import_qwen3_next(d, m);
  m.mtp_layers = d.integer("mtp_num_hidden_layers", 0);
  if (d.boolean("mtp_use_dedicated_embeddings", false)) {
    d.unsupported("mtp_use_dedicated_embeddings", "MTP modules with their own embedding and head");
  }
}

void import_qwen3_5_text(const Cfg& c, ModelConfig& m) {
  static const json kDefaults = {{"vocab_size", 248320},
                                 {"hidden_size", 4096},
                                 {"intermediate_size", 12288},
                                 {"num_hidden_layers", 32},
                                 {"num_attention_heads", 16},
                                 {"num_key_value_heads", 4},
                                 {"head_dim", 256},
                                 {"max_position_embeddings", 32768},
                                 {"tie_word_embeddings", false},
                                 {"num_experts", 0}};
  const Cfg d = c.with_defaults(kDefaults);
  // The dense class has no experts: num_experts 0 is the class's, never a written key.
  if (c.has("num_experts"))
    d.unsupported("num_experts", "in a dense Qwen3.5 text model (qwen3_5_moe_text has experts)");
  read_qwen3_5_text(c, d, m, "in a dense Qwen3.5 text model");
}

void import_qwen3_5_moe_text(const Cfg& c, ModelConfig& m) {
  static const json kDefaults = {{"vocab_size", 248320},
                                 {"hidden_size", 2048},
                                 {"num_hidden_layers", 40},
                                 {"num_attention_heads", 16},
                                 {"num_key_value_heads", 2},
                                 {"head_dim", 256},
                                 {"num_experts", 256},
                                 {"num_experts_per_tok", 8},
                                 {"moe_intermediate_size", 512},
                                 {"shared_expert_intermediate_size", 512},
                                 {"max_position_embeddings", 32768},
                                 {"tie_word_embeddings", false},
                                 {"intermediate_size", 0}};  // the class deletes it: no dense MLP
  const Cfg d = c.with_defaults(kDefaults);
  read_qwen3_5_text(c, d, m, "in a Qwen3.5 MoE text model, which has MoE in every layer");
}

// One entry of block_configs: the layer's mix (attention or not, a dense FFN of its own width or
// none); the KV-head count of its attention must be the one every attention layer shares.
LayerMix read_nas_block(const Cfg& c, const json& block, std::size_t i, const ModelConfig& m,
                        std::optional<i64>& kv_heads) {
  if (!block.is_object()) c.fail("block_configs", "entry " + std::to_string(i) + " is not an object");
  const Cfg layer(block, c.where(), c.path("block_configs") + "/" + std::to_string(i));
  const json empty = json::object();
  const Cfg attention(layer.has("attention") ? layer.raw("attention") : empty, c.where(), layer.path("attention"));
  const Cfg ffn(layer.has("ffn") ? layer.raw("ffn") : empty, c.where(), layer.path("ffn"));
  for (const Cfg* part : {&attention, &ffn}) {
    if (part->boolean("replace_with_linear", false)) {
      part->unsupported("replace_with_linear", "a sublayer replaced by one linear");
    }
    if (part->has("sparsify")) part->unsupported("sparsify", "sparsified sublayers");
  }
  for (const char* key : {"window_length", "num_sink_tokens"}) {
    if (attention.has(key)) attention.unsupported(key, "windowed or sink attention in a NAS layer");
  }
  LayerMix mix{.attention = !attention.boolean("no_op", false), .state = StateMixer::none, .ffn = LayerFfn::none};
  if (mix.attention) {
    const i64 group = attention.integer("n_heads_in_group");
    if (group < 1 || m.n_heads % group != 0) {
      attention.fail("n_heads_in_group", "must divide num_attention_heads (" + std::to_string(m.n_heads) + ")");
    }
    const i64 kv = m.n_heads / group;
    if (kv_heads && *kv_heads != kv) {
      attention.unsupported("n_heads_in_group", "attention layers of different KV-head counts (" +
                                                    std::to_string(*kv_heads) + " and " + std::to_string(kv) + ")");
    }
    kv_heads = kv;
  }
  if (!ffn.boolean("no_op", false)) {
    const std::optional<double> mult = ffn.opt_number("ffn_mult");
    if (!mult || !(*mult > 0.0 && *mult <= 1024.0)) ffn.fail("ffn_mult", "must be above 0 and at most 1024");
    const auto f = static_cast<i64>(2.0 * *mult * static_cast<double>(m.d_model) / 3.0);
    mix.ffn = LayerFfn::dense;
    mix.d_ff = (f + 255) / 256 * 256;
  }
  return mix;
}

// Llama-Nemotron Super / Ultra (nemotron-nas: DeciLMForCausalLM, remote code): a Llama whose layers
// a neural architecture search pruned one by one, written in block_configs. Per layer, attention is
// absent (no_op: no weights, no input_layernorm) or GQA with num_attention_heads / n_heads_in_group
// KV heads; the FFN is absent (no_op: no weights, no post_attention_layernorm) or a gated SiLU MLP
// of intermediate width ffn_mult x d: int(2 ffn_mult d / 3) rounded up to a multiple of 256
// (block_config.py's _ffn_mult_to_intermediate_size). No biases; untied head. Linear replacements
// and attention layers of different KV-head counts are refused, not approximated.
void import_nemotron_nas(const Cfg& c, ModelConfig& m) {
  m.d_model = c.integer("hidden_size");
  m.n_layers = c.integer("num_hidden_layers");
  m.n_heads = c.integer("num_attention_heads");
  m.vocab_size = c.integer("vocab_size");
  m.max_seq_len = c.integer("max_position_embeddings", 0);
  m.tied_embeddings = c.boolean("tie_word_embeddings", false);
  if (c.boolean("attention_bias", false)) c.unsupported("attention_bias", "biases in a NAS model");
  if (c.boolean("mlp_bias", false)) c.unsupported("mlp_bias", "biases in a NAS model");
  if (m.n_heads < 1) c.fail("num_attention_heads", "must be at least 1");
  m.head_dim = c.integer("head_dim", m.d_model / m.n_heads);
  check_layer_count(c, m.n_layers);
  const json& blocks = c.raw("block_configs");
  if (!blocks.is_array() || static_cast<i64>(blocks.size()) != m.n_layers) {
    c.fail("block_configs", "expected an array of " + std::to_string(m.n_layers) + " layer objects");
  }
  std::optional<i64> kv_heads;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const LayerMix mix = read_nas_block(c, blocks[i], i, m, kv_heads);
    m.hybrid.layers.push_back(mix);
  }
  m.n_kv_heads = kv_heads.value_or(m.n_heads);
  // The model's d_ff: the first FFN's (the headline says the widths vary; each layer keeps its own).
  for (const LayerMix& x : m.hybrid.layers) {
    if (x.ffn == LayerFfn::dense) {
      m.d_ff = x.d_ff;
      break;
    }
  }
}

// MiniMax-Text-01 and MiniMax-M1 (remote code MiniMaxText01ForCausalLM / MiniMaxM1ForCausalLM,
// model_type minimax_text_01 / minimax_m1; transformers' MiniMaxForCausalLM, model_type minimax):
// lightning-attention layers (attn_type_list 0, or layer_types "linear_attention") and softmax GQA
// layers (1, "full_attention"), each with a Mixtral MoE block (num_local_experts experts of
// intermediate_size, top num_experts_per_tok, a bias-free router) and two RMSNorms; the
// lightning layer's widths are the attention's (h heads of head_dim). A shared expert
// (shared_intermediate_size > 0) is refused. The alpha/beta residual factors and postnorm change
// no count.
void import_minimax(const Cfg& c, ModelConfig& m) {
  static const json kMiniMaxConfig = {
      {"vocab_size", 32000},     {"hidden_size", 4096},       {"intermediate_size", 14336},
      {"num_hidden_layers", 32}, {"num_attention_heads", 32}, {"num_key_value_heads", 8},
      {"num_local_experts", 8},  {"num_experts_per_tok", 2},  {"max_position_embeddings", 131072}};
  static const json kNone = json::object();
  // The in-library class has defaults; the remote-code configs are read as written.
  const bool native = c.has("model_type") && c.raw("model_type") == "minimax";
  const Cfg d = c.with_defaults(native ? kMiniMaxConfig : kNone);
  read_llama_like(d, m, false);
  m.sliding_window = 0;
  if (d.integer("shared_intermediate_size", 0) > 0) {
    d.unsupported("shared_intermediate_size", "MiniMax's shared MLP and its coefficient gate");
  }
  m.moe.n_experts = d.integer("num_local_experts");
  m.moe.top_k = d.integer("num_experts_per_tok");
  m.moe.d_ff_expert = m.d_ff;
  check_layer_count(d, m.n_layers);
  constexpr LayerMix kLightning{.attention = false, .state = StateMixer::lightning, .ffn = LayerFfn::moe};
  constexpr LayerMix kSoftmax{.attention = true, .state = StateMixer::none, .ffn = LayerFfn::moe};
  if (d.has("attn_type_list")) {
    const json& types = d.raw("attn_type_list");
    if (!types.is_array() || static_cast<i64>(types.size()) != m.n_layers) {
      d.fail("attn_type_list", "expected an array of " + std::to_string(m.n_layers) + " entries, 0 or 1");
    }
    for (const json& t : types) {
      if (t != 0 && t != 1) d.fail("attn_type_list", describe_json(t) + " is not 0 (lightning) or 1 (softmax)");
      m.hybrid.layers.push_back(t == 1 ? kSoftmax : kLightning);
    }
  } else if (d.has("layer_types")) {
    m.hybrid.layers = read_type_list(d, "layer_types", m.n_layers, [&](const std::string& t) {
      if (t == "linear_attention") return kLightning;
      if (t == "full_attention") return kSoftmax;
      d.fail("layer_types", "unknown layer type " + quote(t) + "; expected linear_attention or full_attention");
    });
  } else if (native) {  // MiniMaxConfig: full attention at even layers, lightning at odd ones
    for (i64 i = 0; i < m.n_layers; ++i) m.hybrid.layers.push_back((i + 1) % 2 != 0 ? kSoftmax : kLightning);
  } else {
    d.fail("attn_type_list", "missing: which layers are lightning (0) and which softmax (1)");
  }
}

// ---- Jamba: Mamba-1 with dt/B/C RMSNorms; attention where i % attn_layer_period ==
// attn_layer_offset, MoE where i % expert_layer_period == expert_layer_offset. -----------------
void import_jamba(const Cfg& c, ModelConfig& m) {
  read_llama_like(c, m, false);
  m.sliding_window = 0;
  m.position = PositionKind::none;  // JambaAttention has no rotary embedding
  // JambaAttention and JambaMLP hard-code bias=False, whatever attention_bias / mlp_bias say.
  m.qkv_bias = false;
  m.o_bias = false;
  m.mlp_bias = false;
  m.head_dim = kDeriveFromHeads;
  const i64 attn_period = c.integer("attn_layer_period", 8);
  const i64 attn_offset = c.integer("attn_layer_offset", 4);
  const i64 expert_period = c.integer("expert_layer_period", 2);
  const i64 expert_offset = c.integer("expert_layer_offset", 1);
  if (attn_period < 1) c.fail("attn_layer_period", "must be at least 1");
  if (expert_period < 1) c.fail("expert_layer_period", "must be at least 1");
  // An offset past its period selects no layer: the field that did it is named, not the heads of a
  // model left without attention layers (N21).
  if (attn_offset < 0 || attn_offset >= attn_period) {
    c.fail("attn_layer_offset", std::to_string(attn_offset) + " is not in 0 to attn_layer_period - 1 = " +
                                    std::to_string(attn_period - 1) + ": no layer would be an attention layer");
  }
  if (expert_offset < 0 || expert_offset >= expert_period) {
    c.fail("expert_layer_offset", std::to_string(expert_offset) + " is not in 0 to expert_layer_period - 1 = " +
                                      std::to_string(expert_period - 1) + ": no layer would be an MoE layer");
  }
  const i64 experts = c.integer("num_experts", 16);
  if (experts > 1) {
    m.moe.n_experts = experts;
    m.moe.top_k = c.integer("num_experts_per_tok", 2);
    m.moe.d_ff_expert = m.d_ff;
  }
  check_layer_count(c, m.n_layers);  // before any per-layer list (R3)
  for (i64 i = 0; i < m.n_layers; ++i) {
    const bool attention = i % attn_period == attn_offset;
    const bool moe = experts > 1 && i % expert_period == expert_offset;
    m.hybrid.layers.push_back(
        mix(attention, attention ? StateMixer::none : StateMixer::mamba1, moe ? LayerFfn::moe : LayerFfn::dense));
  }
  SsmConfig& s = m.hybrid.ssm;
  s.d_inner = saturating_mul(c.integer("mamba_expand", 2), m.d_model);
  s.d_state = c.integer("mamba_d_state", 16);
  s.d_conv = c.integer("mamba_d_conv", 4);
  s.dt_rank = integer_or_auto(c, "mamba_dt_rank", ceil_div(m.d_model, 16));
  s.conv_bias = c.boolean("mamba_conv_bias", true);
  s.proj_bias = c.boolean("mamba_proj_bias", false);
  s.gated_norm = false;
  s.dt_norms = true;
}

// ---- Falcon-H1 (FalconH1Config: vocab 128000, untied, hidden 4096, intermediate 14336, 32 layers,
// 32/8 heads, mamba_d_ssm 1024 (required here), mamba_n_heads 128, mamba_d_head "auto", mamba_n_groups 1,
// mamba_d_state 256, mamba_d_conv 4, mamba_conv_bias true, mamba_proj_bias false, mamba_rms_norm
// false, projectors_bias false). Every layer runs attention and Mamba-2 side by side (one shared
// input norm) and a gated MLP (pre_ff_layernorm). --------------------------------------------
void import_falcon_h1(const Cfg& c, ModelConfig& m) {
  common_defaults(m);
  m.d_model = c.integer("hidden_size", 4096);
  m.n_layers = c.integer("num_hidden_layers", 32);
  m.vocab_size = c.integer("vocab_size", 128000);
  m.tied_embeddings = c.boolean("tie_word_embeddings", false);
  m.max_seq_len = c.integer("max_position_embeddings", 8192);
  m.d_ff = c.integer("intermediate_size", 14336);
  m.n_heads = c.integer("num_attention_heads", 32);
  if (m.n_heads == 0) c.fail("num_attention_heads", "must be positive");
  m.n_kv_heads = c.integer("num_key_value_heads", 8);
  // FalconH1Attention is LlamaAttention: head_dim from the config when given (12 x 128 in the 7B,
  // not 3072 / 12), else d / h; attention_bias on q/k/v/o, mlp_bias on the gated MLP.
  m.head_dim = c.integer("head_dim", kDeriveFromHeads);
  const bool attention_bias = c.boolean("attention_bias", false);
  m.qkv_bias = attention_bias;
  m.o_bias = attention_bias;
  m.mlp_bias = c.boolean("mlp_bias", false);
  m.position = PositionKind::rope;
  check_layer_count(c, m.n_layers);  // before any per-layer list (R3)
  m.hybrid.layers.assign(static_cast<std::size_t>(m.n_layers), mix(true, StateMixer::mamba2, LayerFfn::dense));
  // FalconH1Mixer: d_i = mamba_d_ssm (expand x d only when mamba_d_ssm is null), mamba_d_head "auto"
  // = d_i / mamba_n_heads; in_proj bias mamba_proj_bias, out_proj bias projectors_bias; the gated
  // RMSNorm exists only with mamba_rms_norm. The mup_vector is a non-persistent buffer.
  SsmConfig& s = m.hybrid.ssm;
  // Absent means the class default 1024 but null means mamba_expand x d, and a null key reads as
  // absent here: the width is required rather than guessed (every published config writes it).
  if (!c.has("mamba_d_ssm")) {
    c.unsupported("mamba_d_ssm", "absent or null (the class reads 1024 or mamba_expand x hidden_size); give the width");
  }
  s.d_inner = c.integer("mamba_d_ssm");
  s.n_heads = c.integer("mamba_n_heads", 128);
  if (s.n_heads <= 0) c.fail("mamba_n_heads", "must be positive");
  s.head_dim = integer_or_auto(c, "mamba_d_head", s.d_inner / s.n_heads);
  if (saturating_mul(s.n_heads, s.head_dim) != s.d_inner) {
    c.fail("mamba_d_head", "mamba_n_heads x mamba_d_head (" + std::to_string(saturating_mul(s.n_heads, s.head_dim)) +
                               ") must equal the Mamba width mamba_d_ssm (" + std::to_string(s.d_inner) + ")");
  }
  s.d_state = c.integer("mamba_d_state", 256);
  s.n_groups = c.integer("mamba_n_groups", 1);
  s.d_conv = c.integer("mamba_d_conv", 4);
  s.chunk = c.integer("mamba_chunk_size", 256);
  s.conv_bias = c.boolean("mamba_conv_bias", true);
  s.proj_bias = c.boolean("mamba_proj_bias", false);
  s.out_proj_bias = c.boolean("projectors_bias", false);
  s.gated_norm = c.boolean("mamba_rms_norm", false);
}

void read_lfm2_layers(const Cfg& d, ModelConfig& m);

// LFM2 / LFM2.5 (Lfm2Config, transformers): layers are "conv" (Lfm2ShortConv: in_proj d -> 3d,
// depthwise conv1d of conv_L_cache, out_proj; conv_bias on all three) or "full_attention" (GQA of
// d/h, per-head q/k RMSNorm, no biases), each with a gated MLP and two RMSNorms; a final norm
// (embedding_norm) and a head tied by class default. The MLP width is adjusted as Lfm2MLP does:
// f' = multiple_of x ceil(int(multiplier x int(2f/3)) / multiple_of) when block_auto_adjust_ff_dim.
// Without layer_types, full_attn_idxs places attention; without either, every layer attends.
void import_lfm2(const Cfg& c, ModelConfig& m) {
  static const json kDefaults = {{"vocab_size", 65536},
                                 {"hidden_size", 2560},
                                 {"intermediate_size", 12288},
                                 {"num_hidden_layers", 32},
                                 {"num_attention_heads", 32},
                                 {"num_key_value_heads", 8},
                                 {"max_position_embeddings", 128000},
                                 {"conv_L_cache", 3}};
  const Cfg d = c.with_defaults(kDefaults);
  read_llama_like(d, m, true);
  // The original LFM2 key names the class still accepts.
  if (d.has("block_ff_dim")) m.d_ff = d.integer("block_ff_dim");
  if (d.has("tie_embedding")) m.tied_embeddings = d.boolean("tie_embedding", true);
  m.qk_norm = QkNorm::per_head;
  m.qkv_bias = m.o_bias = m.mlp_bias = false;
  m.head_dim = kDeriveFromHeads;
  if (d.boolean("block_auto_adjust_ff_dim", true)) {
    const i64 multiple = d.integer("block_multiple_of", 256);
    if (multiple < 1) d.fail("block_multiple_of", "must be at least 1");
    if (m.d_ff > (i64{1} << 40)) d.fail("intermediate_size", "is out of range; allowed 1 to 2^40");
    i64 f = 2 * m.d_ff / 3;
    if (auto mult = d.opt_number("block_ffn_dim_multiplier")) {
      if (!(*mult > 0.0 && *mult <= 64.0)) d.fail("block_ffn_dim_multiplier", "must be above 0 and at most 64");
      f = static_cast<i64>(*mult * static_cast<double>(f));
    }
    m.d_ff = multiple * ((f + multiple - 1) / multiple);
  }
  read_lfm2_layers(d, m);
}

// LFM2-MoE (Lfm2MoeConfig, transformers): LFM2's conv and attention layers, the first
// num_dense_layers with a gated MLP of intermediate_size as written (no 2/3 adjustment), the rest
// with a sparse MoE block: num_experts gated experts of moe_intermediate_size, top
// num_experts_per_tok, a bias-free router d -> E and the expert_bias (E, fp32, stored in the
// checkpoint) when use_expert_bias. Defaults are the class's (the LFM2-8B-A1B widths, 32 layers).
void import_lfm2_moe(const Cfg& c, ModelConfig& m) {
  static const json kDefaults = {{"vocab_size", 65536},       {"hidden_size", 2048},
                                 {"intermediate_size", 7168}, {"moe_intermediate_size", 1792},
                                 {"num_hidden_layers", 32},   {"num_attention_heads", 32},
                                 {"num_key_value_heads", 8},  {"max_position_embeddings", 128000},
                                 {"conv_L_cache", 3},         {"num_dense_layers", 2},
                                 {"num_experts", 32},         {"num_experts_per_tok", 4}};
  const Cfg d = c.with_defaults(kDefaults);
  read_llama_like(d, m, true);
  if (d.has("tie_embedding")) m.tied_embeddings = d.boolean("tie_embedding", true);
  m.qk_norm = QkNorm::per_head;
  m.qkv_bias = m.o_bias = m.mlp_bias = false;
  if (!d.has("head_dim")) m.head_dim = kDeriveFromHeads;
  m.moe.n_experts = d.integer("num_experts");
  m.moe.top_k = d.integer("num_experts_per_tok");
  m.moe.d_ff_expert = d.integer("moe_intermediate_size");
  m.moe.correction_bias = d.boolean("use_expert_bias", true);
  read_lfm2_layers(d, m);
  const i64 dense = d.integer("num_dense_layers");
  if (dense < 0 || dense > m.n_layers) {
    d.fail("num_dense_layers", "is out of range; allowed 0 to num_hidden_layers (" + std::to_string(m.n_layers) + ")");
  }
  for (std::size_t i = static_cast<std::size_t>(dense); i < m.hybrid.layers.size(); ++i) {
    m.hybrid.layers[i].ffn = LayerFfn::moe;
  }
}

// LFM2's layer list: conv or full_attention per layer from layer_types, else the attention layers
// listed in full_attn_idxs among conv ones, else attention everywhere; each with a dense FFN.
void read_lfm2_layers(const Cfg& d, ModelConfig& m) {
  m.hybrid.conv.l_cache = d.integer("conv_L_cache", 3);
  m.hybrid.conv.bias = d.boolean("conv_bias", false);
  check_layer_count(d, m.n_layers);
  constexpr LayerMix kConv{.attention = false, .state = StateMixer::short_conv, .ffn = LayerFfn::dense};
  if (d.has("layer_types")) {
    m.hybrid.layers = read_type_list(d, "layer_types", m.n_layers, [&](const std::string& t) {
      if (t == "conv") return kConv;
      if (t == "full_attention") return kAttention;
      d.fail("layer_types", "unknown layer type " + quote(t) + "; expected conv or full_attention");
    });
  } else {
    m.hybrid.layers.assign(static_cast<std::size_t>(m.n_layers), d.has("full_attn_idxs") ? kConv : kAttention);
    if (d.has("full_attn_idxs")) set_listed_layers(d, "full_attn_idxs", kAttention, m.hybrid.layers);
  }
}

constexpr std::array kFamilies = {Family{"mamba", import_mamba},
                                  Family{"mamba2", import_mamba2},
                                  Family{"nemotron_h", import_nemotron_h},
                                  Family{"granitemoehybrid", import_granitemoehybrid},
                                  Family{"bamba", import_bamba},
                                  Family{"qwen3_next", import_qwen3_next},
                                  Family{"jamba", import_jamba},
                                  Family{"falcon_h1", import_falcon_h1},
                                  Family{"lfm2", import_lfm2},
                                  Family{"lfm2_moe", import_lfm2_moe},
                                  Family{"qwen3_5_text", import_qwen3_5_text},
                                  Family{"qwen3_5_moe_text", import_qwen3_5_moe_text},
                                  Family{"nemotron-nas", import_nemotron_nas},
                                  Family{"minimax_m1", import_minimax},
                                  Family{"minimax_text_01", import_minimax},
                                  Family{"minimax", import_minimax}};

}  // namespace

std::span<const Family> hybrid_families() { return kFamilies; }

}  // namespace roofline::io::hf
