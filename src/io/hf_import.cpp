// Hugging Face config.json -> ModelConfig. One function per family reads the keys that change
// the arithmetic and applies that model class's defaults where a key is absent; anything the
// engine cannot represent is an error, never a guess. Facts per family: docs/hf-import.md.
#include "io/hf_import.hpp"

#include "io/hf_family.hpp"
#include "io/preset_json.hpp"
#include "io/text.hpp"

#include "roofline/errors.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <string>

namespace roofline::io {

using nlohmann::json;

namespace hf {

using i64 = std::int64_t;

i64 saturating_mul(i64 a, i64 b) {
  i64 r = 0;
  return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}
i64 saturating_add(i64 a, i64 b) {
  i64 r = 0;
  return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

// Fields every Llama-like family shares: width, depth, heads, GQA, explicit head_dim, FFN, vocab.
void read_llama_like(const Cfg& c, ModelConfig& m, bool tie_default) {
  m.d_model = c.integer("hidden_size");
  m.n_layers = c.integer("num_hidden_layers");
  m.n_heads = c.integer("num_attention_heads");
  m.n_kv_heads = c.integer("num_key_value_heads", kDeriveFromHeads);
  if (m.n_heads == 0) c.fail("num_attention_heads", "must be positive");
  m.head_dim = c.integer("head_dim", kDeriveFromHeads);
  m.d_ff = c.integer("intermediate_size");
  m.vocab_size = c.integer("vocab_size");
  m.max_seq_len = c.integer("max_position_embeddings", 0);
  m.tied_embeddings = c.boolean("tie_word_embeddings", tie_default);
  m.mlp = MlpKind::gated;
  m.norm = NormKind::rmsnorm;
  m.norms_per_layer = 2;
  m.position = PositionKind::rope;
  // LlamaAttention puts attention_bias on q, k, v and o alike; mlp_bias on gate, up and down.
  const bool attention_bias = c.boolean("attention_bias", false);
  m.qkv_bias = attention_bias;
  m.o_bias = attention_bias;
  m.mlp_bias = c.boolean("mlp_bias", false);
}

// sliding_window applied to every layer, as Mistral v0.1, Mixtral, Phi-3 and StarCoder2 do.
void read_uniform_window(const Cfg& c, ModelConfig& m) {
  m.sliding_window = c.integer("sliding_window", 0);
  m.global_every = 0;
}

void check_layer_count(const Cfg& c, i64 n_layers) {
  if (n_layers < 1 || n_layers > kMaxLayerTypes) {
    c.fail("num_hidden_layers",
           std::to_string(n_layers) + " is out of range; allowed 1 to " + std::to_string(kMaxLayerTypes));
  }
}

// Newer configs list layer_types; turn the list into (window, global_every) or refuse it.
void read_layer_types(const Cfg& c, ModelConfig& m) {
  if (!c.has("layer_types")) return;
  const json& t = c.raw("layer_types");
  check_layer_count(c, m.n_layers);  // sizes first: the list is as long as the model is deep (R3)
  if (!t.is_array() || static_cast<i64>(t.size()) != m.n_layers) {
    c.fail("layer_types", "expected an array of " + std::to_string(m.n_layers) + " strings");
  }
  std::vector<bool> sliding;
  for (const json& s : t) {
    const std::string v = s.is_string() ? s.get<std::string>() : "";
    if (v == "sliding_attention") {
      sliding.push_back(true);
    } else if (v == "full_attention") {
      sliding.push_back(false);
    } else {
      c.unsupported("layer_types", "layer type " + describe_json(s) + " is not sliding_attention or full_attention");
    }
  }
  const bool any_sliding = std::find(sliding.begin(), sliding.end(), true) != sliding.end();
  if (!any_sliding) {
    m.sliding_window = 0;
    return;
  }
  if (m.sliding_window <= 0) c.fail("sliding_window", "layer_types has sliding layers but no window");
  const i64 p = global_period(sliding);
  if (p < 0) c.unsupported("layer_types", "the sliding/global layout is not periodic");
  m.global_every = p;
}

// One pass: the first global layer fixes the only period that can fit, and a second pass checks
// it. (Trying every period was quadratic: 200,000 layers took minutes, R3.)
i64 global_period(const std::vector<bool>& local) {
  const auto first_global = std::find(local.begin(), local.end(), false);
  const i64 p = first_global == local.end() ? 0 : static_cast<i64>(first_global - local.begin()) + 1;
  if (p == 1) return -1;  // every layer global is not a sliding layout
  for (std::size_t i = 0; i < local.size(); ++i) {
    const bool global = p > 0 && static_cast<i64>(i + 1) % p == 0;
    if (local[i] == global) return -1;
  }
  return p;
}

namespace {

void import_llama(const Cfg& c, ModelConfig& m) { read_llama_like(c, m, false); }

void import_mistral(const Cfg& c, ModelConfig& m) {
  read_llama_like(c, m, false);
  read_uniform_window(c, m);
}

void import_mixtral(const Cfg& c, ModelConfig& m) {
  read_llama_like(c, m, false);
  read_uniform_window(c, m);
  m.moe.n_experts = c.integer("num_local_experts");
  m.moe.top_k = c.integer("num_experts_per_tok");
  m.moe.d_ff_expert = m.d_ff;
}

void read_qwen_window(const Cfg& c, ModelConfig& m) {
  if (c.boolean("use_sliding_window", false)) {
    const i64 max_window_layers = c.integer("max_window_layers", m.n_layers);
    if (max_window_layers < m.n_layers) {
      c.unsupported("use_sliding_window", "sliding attention on layers >= max_window_layers only");
    }
  }
  m.sliding_window = 0;
}

// Qwen2 / Qwen2-MoE put biases on q, k and v only.
void import_qwen2(const Cfg& c, ModelConfig& m) {
  read_llama_like(c, m, false);
  m.qkv_bias = true;
  m.o_bias = false;
  read_qwen_window(c, m);
}

// Qwen MoE layers: (i+1) % decoder_sparse_step == 0 and i not in mlp_only_layers.
void read_qwen_moe(const Cfg& c, ModelConfig& m) {
  m.moe.n_experts = c.integer("num_experts");
  m.moe.top_k = c.integer("num_experts_per_tok");
  m.moe.d_ff_expert = c.integer("moe_intermediate_size");
  m.moe.layer_freq = c.integer("decoder_sparse_step", 1);
  if (c.has("mlp_only_layers")) {
    const json& l = c.raw("mlp_only_layers");
    if (!l.is_array()) c.fail("mlp_only_layers", "expected an array of layer indices");
    // Only a leading run of dense layers maps onto first_dense_layers.
    i64 run = 0;
    for (const json& v : l) {
      if (!v.is_number_integer() || v.get<i64>() != run) {
        c.unsupported("mlp_only_layers", "dense layers other than a leading run " + describe_json(l));
      }
      ++run;
    }
    m.moe.first_dense_layers = run;
  }
  if (m.moe.layer_freq < 1) c.fail("decoder_sparse_step", "must be at least 1");
}

void import_qwen2_moe(const Cfg& c, ModelConfig& m) {
  import_qwen2(c, m);
  read_qwen_moe(c, m);
  const i64 shared = c.integer("shared_expert_intermediate_size", 0);
  if (shared > 0) {
    m.moe.n_shared_experts = 1;
    m.moe.d_ff_shared = shared;
    m.moe.shared_expert_gate = true;
  }
}

void import_qwen3(const Cfg& c, ModelConfig& m) {
  read_llama_like(c, m, false);
  m.qk_norm = QkNorm::per_head;
  read_qwen_window(c, m);
}

void import_qwen3_moe(const Cfg& c, ModelConfig& m) {
  import_qwen3(c, m);
  read_qwen_moe(c, m);
}

void import_gemma(const Cfg& c, ModelConfig& m) { read_llama_like(c, m, true); }

// Gemma 2: four norms per layer, layers alternate sliding (even) and global (odd).
void import_gemma2(const Cfg& c, ModelConfig& m) {
  read_llama_like(c, m, true);
  m.norms_per_layer = 4;
  m.sliding_window = c.integer("sliding_window", 4096);
  m.global_every = 2;
  read_layer_types(c, m);
}

// Gemma 3 text: four norms, per-head q/k norms, 5 sliding layers then 1 global. The text_config
// inside multimodal wrappers often omits fields, so Gemma3TextConfig's defaults matter here.
void import_gemma3_text(const Cfg& c, ModelConfig& m) {
  m.d_model = c.integer("hidden_size", 2304);
  m.n_layers = c.integer("num_hidden_layers", 26);
  m.n_heads = c.integer("num_attention_heads", 8);
  m.n_kv_heads = c.integer("num_key_value_heads", 4);
  m.head_dim = c.integer("head_dim", 256);
  m.d_ff = c.integer("intermediate_size", 9216);
  m.vocab_size = c.integer("vocab_size", 262208);
  m.max_seq_len = c.integer("max_position_embeddings", 131072);
  m.tied_embeddings = c.boolean("tie_word_embeddings", true);
  const bool attention_bias = c.boolean("attention_bias", false);
  m.qkv_bias = attention_bias;
  m.o_bias = attention_bias;
  m.norms_per_layer = 4;
  m.qk_norm = QkNorm::per_head;
  m.sliding_window = c.integer("sliding_window", 4096);
  m.global_every = c.integer("sliding_window_pattern", 6);
  read_layer_types(c, m);
}

// Gemma 4 text (Gemma4TextConfig): Gemma 3's sandwich layers and per-head q/k norms, a stored
// layer_scalar per layer, and global layers of their own shape: global_head_dim, and with
// attention_k_eq_v num_global_key_value_heads and no v_proj. enable_moe_block keeps the dense MLP
// (counted as one shared expert) beside num_experts routed experts of moe_intermediate_size, with
// the router's two scales and three more norms. Per-layer embeddings (hidden_size_per_layer_input)
// and KV sharing (num_kv_shared_layers), the E2B/E4B features, are refused.
void import_gemma4_text(const Cfg& c, ModelConfig& m) {
  m.d_model = c.integer("hidden_size", 2304);
  m.n_layers = c.integer("num_hidden_layers", 30);
  m.n_heads = c.integer("num_attention_heads", 8);
  m.n_kv_heads = c.integer("num_key_value_heads", 4);
  m.head_dim = c.integer("head_dim", 256);
  m.d_ff = c.integer("intermediate_size", 9216);
  m.vocab_size = c.integer("vocab_size", 262144);
  m.max_seq_len = c.integer("max_position_embeddings", 131072);
  m.tied_embeddings = c.boolean("tie_word_embeddings", true);
  if (c.boolean("attention_bias", false)) c.unsupported("attention_bias", "biases in Gemma 4 attention");
  if (c.integer("hidden_size_per_layer_input", 256) != 0) {
    c.unsupported("hidden_size_per_layer_input", "Gemma 4 per-layer embeddings (the E2B/E4B models)");
  }
  if (c.integer("num_kv_shared_layers", 0) != 0) {
    c.unsupported("num_kv_shared_layers", "Gemma 4 KV sharing across layers (the E2B/E4B models)");
  }
  if (c.has("per_layer_config")) c.unsupported("per_layer_config", "a per-layer Gemma 4 configuration");
  m.norms_per_layer = 4;
  m.qk_norm = QkNorm::per_head;
  m.layer_scalar = true;
  m.global_attention.head_dim = c.integer("global_head_dim", 512);
  m.global_attention.k_eq_v = c.boolean("attention_k_eq_v", false);
  if (m.global_attention.k_eq_v) m.global_attention.n_kv_heads = c.integer("num_global_key_value_heads", m.n_kv_heads);
  m.sliding_window = c.integer("sliding_window", 512);
  if (c.has("layer_types")) {
    read_layer_types(c, m);
  } else if (m.n_layers % 6 != 0) {  // the default 5:1 pattern with the last layer forced global
    c.unsupported("layer_types", "the default pattern with the last of " + std::to_string(m.n_layers) +
                                     " layers forced global (not periodic)");
  } else {
    m.global_every = 6;
  }
  if (c.boolean("enable_moe_block", false)) {
    m.moe.n_experts = c.integer("num_experts");
    m.moe.top_k = c.integer("top_k_experts");
    m.moe.d_ff_expert = c.integer("moe_intermediate_size");
    m.moe.n_shared_experts = 1;
    m.moe.d_ff_shared = m.d_ff;
    m.moe.router_scales = true;
    m.moe.extra_norms = 3;
  }
}

void import_phi3(const Cfg& c, ModelConfig& m) {
  read_llama_like(c, m, false);
  read_uniform_window(c, m);
}

// Cohere: one LayerNorm without bias per (parallel) layer, tied head, optional q/k LayerNorms
// over (heads, head_dim), i.e. full width.
void import_cohere(const Cfg& c, ModelConfig& m) {
  read_llama_like(c, m, true);
  m.norm = NormKind::layernorm_nobias;
  m.norms_per_layer = 1;
  m.parallel_block = true;
  if (c.boolean("use_qk_norm", false)) m.qk_norm = QkNorm::full_width;
}

// DBRX: fused Wqkv without bias, LayerNorms without bias, 16 fine-grained experts (w1, v1, w2).
void import_dbrx(const Cfg& c, ModelConfig& m) {
  m.d_model = c.integer("d_model");
  m.n_layers = c.integer("n_layers");
  m.n_heads = c.integer("n_heads");
  m.vocab_size = c.integer("vocab_size");
  m.max_seq_len = c.integer("max_seq_len", 0);
  m.tied_embeddings = c.boolean("tie_word_embeddings", false);
  m.norm = NormKind::layernorm_nobias;
  m.norms_per_layer = 2;
  m.mlp = MlpKind::gated;
  if (!c.has("attn_config")) c.fail("attn_config", "missing required field");
  if (!c.has("ffn_config")) c.fail("ffn_config", "missing required field");
  const Cfg attn(c.raw("attn_config"), c.where(), c.path("attn_config"));
  const Cfg ffn(c.raw("ffn_config"), c.where(), c.path("ffn_config"));
  m.n_kv_heads = attn.integer("kv_n_heads", 1);
  m.moe.n_experts = ffn.integer("moe_num_experts", 4);
  m.moe.top_k = ffn.integer("moe_top_k", 1);
  m.moe.d_ff_expert = ffn.integer("ffn_hidden_size", 3584);
  m.d_ff = m.moe.d_ff_expert;
}

// DeepSeek-V2/V3: MLA attention, first_k_dense_replace dense layers, routed + shared experts.
void import_deepseek(const Cfg& c, ModelConfig& m, bool v3) {
  m.d_model = c.integer("hidden_size");
  m.n_layers = c.integer("num_hidden_layers");
  m.n_heads = c.integer("num_attention_heads");
  m.d_ff = c.integer("intermediate_size");
  m.vocab_size = c.integer("vocab_size");
  m.max_seq_len = c.integer("max_position_embeddings", 0);
  m.tied_embeddings = c.boolean("tie_word_embeddings", false);
  if (c.boolean("attention_bias", false)) c.unsupported("attention_bias", "biases with MLA");
  m.mla.q_lora_rank = c.integer("q_lora_rank", 0);
  m.mla.kv_lora_rank = c.integer("kv_lora_rank");
  m.mla.qk_rope_head_dim = c.integer("qk_rope_head_dim");
  m.mla.qk_nope_head_dim = c.integer("qk_nope_head_dim");
  m.mla.v_head_dim = c.integer("v_head_dim");
  m.head_dim = saturating_add(m.mla.qk_nope_head_dim, m.mla.qk_rope_head_dim);
  if (c.has("n_routed_experts")) {
    m.moe.n_experts = c.integer("n_routed_experts");
    m.moe.top_k = c.integer("num_experts_per_tok");
    m.moe.d_ff_expert = c.integer("moe_intermediate_size");
    m.moe.n_shared_experts = c.integer("n_shared_experts", 0);
    m.moe.d_ff_shared = m.moe.d_ff_expert;
    m.moe.first_dense_layers = c.integer("first_k_dense_replace", 0);
    if (c.integer("moe_layer_freq", 1) != 1) {
      c.unsupported("moe_layer_freq", "MoE layers interleaved by layer_idx % freq");
    }
    m.moe.correction_bias = v3;
  }
  if (v3) m.mtp_layers = c.integer("num_nextn_predict_layers", 0);
}

void import_phi(const Cfg& c, ModelConfig& m) {
  read_llama_like(c, m, false);
  m.mlp = MlpKind::plain;
  m.norm = NormKind::layernorm;
  m.norms_per_layer = 1;
  m.parallel_block = true;
  m.qkv_bias = true;
  m.o_bias = true;
  m.mlp_bias = true;
  m.lm_head_bias = true;
  if (c.boolean("qk_layernorm", false)) m.qk_norm = QkNorm::per_head;
}

// GPT-2: c_attn/c_proj/c_fc with biases, learned positions, LayerNorm, tied head.
void import_gpt2(const Cfg& c, ModelConfig& m) {
  m.d_model = c.integer_any({"n_embd", "hidden_size"});
  m.n_layers = c.integer_any({"n_layer", "num_hidden_layers"});
  m.n_heads = c.integer_any({"n_head", "num_attention_heads"});
  m.d_ff = c.integer("n_inner", saturating_mul(4, m.d_model));
  m.vocab_size = c.integer("vocab_size");
  m.max_seq_len = c.integer_any({"n_positions", "n_ctx", "max_position_embeddings"});
  m.learned_positions = m.max_seq_len;
  m.position = PositionKind::learned;
  m.mlp = MlpKind::plain;
  m.norm = NormKind::layernorm;
  m.qkv_bias = m.o_bias = m.mlp_bias = true;
  m.tied_embeddings = c.boolean("tie_word_embeddings", true);
}

void import_gpt_neox(const Cfg& c, ModelConfig& m) {
  m.d_model = c.integer("hidden_size");
  m.n_layers = c.integer("num_hidden_layers");
  m.n_heads = c.integer("num_attention_heads");
  m.d_ff = c.integer("intermediate_size");
  m.vocab_size = c.integer("vocab_size");
  m.max_seq_len = c.integer("max_position_embeddings", 0);
  m.tied_embeddings = c.boolean("tie_word_embeddings", false);
  m.mlp = MlpKind::plain;
  m.norm = NormKind::layernorm;
  m.norms_per_layer = 2;  // input_layernorm and post_attention_layernorm, parallel or not
  m.parallel_block = c.boolean("use_parallel_residual", true);
  const bool bias = c.boolean("attention_bias", true);
  m.qkv_bias = m.o_bias = bias;
  m.mlp_bias = true;
}

void import_gptj(const Cfg& c, ModelConfig& m) {
  m.d_model = c.integer("n_embd");
  m.n_layers = c.integer("n_layer");
  m.n_heads = c.integer("n_head");
  m.d_ff = c.integer("n_inner", saturating_mul(4, m.d_model));
  m.vocab_size = c.integer("vocab_size");
  m.max_seq_len = c.integer("n_positions", 0);
  m.tied_embeddings = c.boolean("tie_word_embeddings", false);
  m.mlp = MlpKind::plain;
  m.norm = NormKind::layernorm;
  m.norms_per_layer = 1;
  m.parallel_block = true;
  m.mlp_bias = true;
  m.lm_head_bias = true;
}

// OPT: learned positions with 2 extra rows, optional project_in/out, optional final norm.
void import_opt(const Cfg& c, ModelConfig& m) {
  m.d_model = c.integer("hidden_size");
  m.n_layers = c.integer("num_hidden_layers");
  m.n_heads = c.integer("num_attention_heads");
  m.d_ff = c.integer("ffn_dim");
  m.vocab_size = c.integer("vocab_size");
  m.max_seq_len = c.integer("max_position_embeddings");
  m.learned_positions = saturating_add(m.max_seq_len, 2);  // OPTLearnedPositionalEmbedding offset of 2
  m.position = PositionKind::learned;
  m.mlp = MlpKind::plain;
  const bool affine = c.boolean("layer_norm_elementwise_affine", true);
  m.norm = affine ? NormKind::layernorm : NormKind::nonparametric;
  const bool bias = c.boolean("enable_bias", true);
  m.qkv_bias = m.o_bias = m.mlp_bias = bias;
  m.tied_embeddings = c.boolean("tie_word_embeddings", true);
  const i64 proj = c.integer("word_embed_proj_dim", m.d_model);
  if (proj != m.d_model) m.embed_proj_dim = proj;
  m.final_norm = c.boolean("do_layer_norm_before", true) && !c.boolean("_remove_final_layer_norm", false);
}

void import_bloom(const Cfg& c, ModelConfig& m) {
  m.d_model = c.integer_any({"hidden_size", "n_embed"});
  m.n_layers = c.integer_any({"n_layer", "num_hidden_layers"});
  m.n_heads = c.integer_any({"n_head", "num_attention_heads"});
  m.d_ff = saturating_mul(4, m.d_model);
  m.vocab_size = c.integer("vocab_size");
  m.position = PositionKind::alibi;
  m.mlp = MlpKind::plain;
  m.norm = NormKind::layernorm;
  m.embedding_norm = true;
  m.qkv_bias = m.o_bias = m.mlp_bias = true;
  m.tied_embeddings = c.boolean("tie_word_embeddings", true);
}

// Falcon: fused query_key_value sized by the layout (MQA, GQA or MHA); one or two LayerNorms.
void import_falcon(const Cfg& c, ModelConfig& m) {
  m.d_model = c.integer_any({"hidden_size", "n_embed"});
  m.n_layers = c.integer_any({"num_hidden_layers", "n_layer"});
  m.n_heads = c.integer_any({"num_attention_heads", "n_head"});
  m.vocab_size = c.integer("vocab_size");
  m.max_seq_len = c.integer("max_position_embeddings", 0);
  const bool new_arch = c.boolean("new_decoder_architecture", false);
  const bool multi_query = c.boolean("multi_query", true);
  if (new_arch) {
    m.n_kv_heads = c.integer_any({"num_kv_heads", "n_head_kv"}, kDeriveFromHeads);
  } else {
    m.n_kv_heads = multi_query ? 1 : kDeriveFromHeads;
  }
  m.d_ff = c.integer("ffn_hidden_size", saturating_mul(4, m.d_model));
  m.mlp = MlpKind::plain;
  m.norm = NormKind::layernorm;
  m.parallel_block = c.boolean("parallel_attn", true);
  if (new_arch) {
    m.norms_per_layer = c.integer("num_ln_in_parallel_attn", 2);
  } else {
    m.norms_per_layer = m.parallel_block ? 1 : 2;
  }
  const bool bias = c.boolean("bias", false);
  m.qkv_bias = m.o_bias = m.mlp_bias = bias;
  m.position = c.boolean("alibi", false) ? PositionKind::alibi : PositionKind::rope;
  m.tied_embeddings = c.boolean("tie_word_embeddings", true);
}

// OLMo: LayerNorm without any parameters, no biases.
void import_olmo(const Cfg& c, ModelConfig& m) {
  read_llama_like(c, m, false);
  m.norm = NormKind::nonparametric;
}

// OLMo 2: RMSNorm after attention and MLP, q/k norms over the full projection width.
void import_olmo2(const Cfg& c, ModelConfig& m) {
  read_llama_like(c, m, false);
  m.qk_norm = QkNorm::full_width;
}

void import_starcoder2(const Cfg& c, ModelConfig& m) {
  read_llama_like(c, m, true);
  read_uniform_window(c, m);
  m.mlp = MlpKind::plain;
  m.norm = NormKind::layernorm;
  const bool bias = c.boolean("use_bias", true);
  m.qkv_bias = m.o_bias = m.mlp_bias = bias;
}

void import_deepseek_v2(const Cfg& c, ModelConfig& m) { import_deepseek(c, m, false); }
void import_deepseek_v3(const Cfg& c, ModelConfig& m) { import_deepseek(c, m, true); }

constexpr std::array kFamilies = {Family{"llama", import_llama},
                                  Family{"mistral", import_mistral},
                                  Family{"mixtral", import_mixtral},
                                  Family{"qwen2", import_qwen2},
                                  Family{"qwen2_moe", import_qwen2_moe},
                                  Family{"qwen3", import_qwen3},
                                  Family{"qwen3_moe", import_qwen3_moe},
                                  Family{"gemma", import_gemma},
                                  Family{"gemma2", import_gemma2},
                                  Family{"gemma3_text", import_gemma3_text},
                                  Family{"gemma4_text", import_gemma4_text},
                                  Family{"phi", import_phi},
                                  Family{"phi3", import_phi3},
                                  Family{"gpt2", import_gpt2},
                                  Family{"gpt_neox", import_gpt_neox},
                                  Family{"gptj", import_gptj},
                                  Family{"opt", import_opt},
                                  Family{"bloom", import_bloom},
                                  Family{"falcon", import_falcon},
                                  Family{"RefinedWeb", import_falcon},
                                  Family{"RefinedWebModel", import_falcon},
                                  Family{"olmo", import_olmo},
                                  Family{"olmo2", import_olmo2},
                                  Family{"starcoder2", import_starcoder2},
                                  Family{"cohere", import_cohere},
                                  Family{"dbrx", import_dbrx},
                                  Family{"deepseek_v2", import_deepseek_v2},
                                  Family{"deepseek_v3", import_deepseek_v3}};

}  // namespace

std::span<const Family> classic_families() { return kFamilies; }

}  // namespace hf

namespace {

using hf::Cfg;
using hf::Family;
using i64 = std::int64_t;

// Every table of families, walked in order by import_hf_config() and supported_model_types().
const std::array kFamilyTables = {
    hf::classic_families(),      hf::moe_2026_families(),   hf::dense_2026_families(),
    hf::special_2026_families(), hf::multimodal_families(), hf::hybrid_families(),
};

struct Refused {
  const char* model_type;
  const char* why;
};

constexpr std::array kRefused = {
    Refused{"falcon_mamba", "a state-space model"}, Refused{"rwkv", "a recurrent (RWKV) model"},
    Refused{"zamba", "a hybrid state-space model"}, Refused{"zamba2", "a hybrid state-space model"},
    Refused{"t5", "an encoder-decoder model"},      Refused{"mt5", "an encoder-decoder model"},
    Refused{"umt5", "an encoder-decoder model"},    Refused{"bart", "an encoder-decoder model"},
    Refused{"mbart", "an encoder-decoder model"},   Refused{"whisper", "an encoder-decoder model"},
    Refused{"pegasus", "an encoder-decoder model"}, Refused{"marian", "an encoder-decoder model"},
    Refused{"bert", "an encoder-only model"},       Refused{"roberta", "an encoder-only model"},
    Refused{"llava_next", "a multimodal wrapper"},  Refused{"paligemma", "a multimodal wrapper"},
    Refused{"idefics2", "a multimodal wrapper"},    Refused{"idefics3", "a multimodal wrapper"},
    Refused{"pixtral", "a multimodal wrapper"}};

}  // namespace

std::string supported_model_types() {
  std::string s;
  for (const auto& table : kFamilyTables) {
    for (const Family& f : table) {
      if (std::string_view(f.model_type).starts_with("Refined")) continue;
      s += s.empty() ? f.model_type : std::string(", ") + f.model_type;
    }
  }
  return s;
}

namespace {

// Tensors some checkpoints store that are not parameters. Written after validate(), so every
// product here works on bounded values; the mask count is still checked, as 2^15 layers of
// 2^24 x 2^24 positions pass validate() and would not fit in 64 bits.
// The float type of a checkpoint's unquantized tensors: torch_dtype (or dtype) float16 is fp16,
// float32 fp32, anything else bf16.
WeightFormat float_format(const Cfg& c) {
  const std::string t = c.has("torch_dtype") ? c.str("torch_dtype", "") : c.str("dtype", "");
  if (t == "float16") return plain_weight_format(DType::fp16);
  if (t == "float32") return plain_weight_format(DType::fp32);
  return plain_weight_format(DType::bf16);
}

// The quantized format a quantization_config names, or why roofline cannot tell it.
struct QuantRead {
  std::optional<WeightFormat> format;
  std::vector<WeightClass> classes{WeightClass::attention, WeightClass::ffn, WeightClass::experts,
                                   WeightClass::shared_experts};
  std::string why;  ///< set when format is empty
};

std::optional<WeightFormat> group_format(std::string_view method, std::int64_t bits, std::int64_t group, bool zeros) {
  if (bits != 4 && bits != 8) return std::nullopt;
  const std::string name = std::string(method) + (bits == 8 ? "-int8" : "") + "-g" + std::to_string(group);
  if (!zeros) return named_weight_format("int" + std::to_string(bits) + "-g" + std::to_string(group));
  return named_weight_format(name);
}

// compressed-tensors' ignore list: the patterns Kimi K2.5's checkpoint names, each leaving a class
// unquantized; any other pattern leaves the layout unknown.
bool apply_ignore(const nlohmann::json& ignore, QuantRead& r) {
  for (const nlohmann::json& p : ignore) {
    if (!p.is_string()) return false;
    const std::string s = p.get<std::string>();
    std::optional<WeightClass> off;
    if (s == "lm_head") off = WeightClass::head;
    if (s == "re:.*self_attn.*") off = WeightClass::attention;
    if (s == "re:.*shared_experts.*") off = WeightClass::shared_experts;
    if (s == "re:.*mlp\\.(gate|up|gate_up|down)_proj.*") off = WeightClass::ffn;
    if (!off) return false;
    std::erase(r.classes, *off);
  }
  return true;
}

QuantRead read_quantization(const Cfg& q) {
  QuantRead r;
  const std::string method = q.str("quant_method", "");
  if (method == "fp8") {
    // DeepSeek-V3 / R1 / V3.2, Kimi K2, MiniMax-M2: every Linear of the blocks in E4M3 with one fp32
    // scale per weight_block_size block; the router, embedding, head and vectors stay float.
    const nlohmann::json* b = q.has("weight_block_size") ? &q.raw("weight_block_size") : nullptr;
    if (b == nullptr || b->is_null()) {
      r.format = plain_weight_format(DType::fp8);
    } else if (*b == nlohmann::json::array({128, 128})) {
      r.format = named_weight_format("fp8-block128");
    } else {
      r.why = "fp8 with weight_block_size " + b->dump() + " (roofline knows [128, 128] and per-tensor)";
    }
  } else if (method == "mxfp4") {
    // gpt-oss: the routed experts in MXFP4; modules_to_not_convert keeps attention, router,
    // embedding and head in bf16.
    r.format = named_weight_format("mxfp4");
    r.classes = {WeightClass::experts};
  } else if (method == "awq" || method == "gptq") {
    const std::int64_t bits = q.integer("bits", 4);
    const std::int64_t group = q.integer("group_size", 128);
    const bool zeros = method == "gptq" || q.boolean("zero_point", true);
    r.format = group_format(method, bits, group, zeros);
    if (!r.format) r.why = method + " with bits " + std::to_string(bits) + " and group_size " + std::to_string(group);
  } else if (method == "compressed-tensors" && q.has("config_groups")) {
    const nlohmann::json& groups = q.raw("config_groups");
    const nlohmann::json* w =
        groups.is_object() && groups.size() == 1 && groups.begin()->is_object() && groups.begin()->contains("weights")
            ? &(*groups.begin())["weights"]
            : nullptr;
    const bool int_group = w != nullptr && w->is_object() && w->value("type", "") == "int" &&
                           w->value("strategy", "") == "group" && w->value("symmetric", false);
    if (int_group) {
      r.format = named_weight_format("int" + std::to_string(w->value("num_bits", 0)) + "-g" +
                                     std::to_string(w->value("group_size", 0)));
    }
    if (r.format && q.has("ignore") && !apply_ignore(q.raw("ignore"), r)) r.format.reset();
    if (!r.format) r.why = "compressed-tensors config_groups or ignore patterns other than Kimi K2.5's";
  } else {
    r.why = "quant_method " + quote(method);
  }
  return r;
}

std::vector<std::string> checkpoint_notes(const Cfg& c, const ModelConfig& m) {
  std::vector<std::string> notes;
  if (m.family == "gpt2") {
    i64 elements = 0;
    const bool fits = !__builtin_mul_overflow(m.max_seq_len, m.max_seq_len, &elements) &&
                      !__builtin_mul_overflow(elements, m.n_layers, &elements);
    notes.push_back("attn.bias causal-mask buffers (1 x 1 x n_positions x n_positions per layer, " +
                    (fits ? std::to_string(elements) : std::string("more than 2^63")) +
                    " elements) are stored in some checkpoints; not parameters, excluded");
  } else if (m.family == "gpt_neox") {
    notes.emplace_back(
        "rotary_emb.inv_freq and attention.bias/masked_bias buffers appear in some checkpoints; not "
        "parameters, excluded");
  } else if (m.family == "gptj") {
    notes.emplace_back(
        "attn.bias/masked_bias causal-mask buffers appear in some checkpoints; not parameters, excluded");
  }
  if (m.position == PositionKind::rope) {
    notes.emplace_back("rotary inv_freq buffers are computed, not learned; excluded where a checkpoint stores them");
  }
  // Multi-token-prediction layers are not noted here: ParamCounts::mtp_excluded carries them.
  // MTP modules a config declares but roofline does not count (hf_families_moe.cpp).
  if (m.family == "minimax_m2" && c.integer("num_mtp_modules", 0) > 0) {
    notes.push_back("num_mtp_modules " + std::to_string(c.integer("num_mtp_modules", 0)) +
                    " declared by the config: the published checkpoint holds no MTP tensors; none counted or "
                    "excluded");
  } else if (m.family == "ernie4_5_moe" && c.integer("num_nextn_predict_layers", 0) > 0) {
    notes.emplace_back(
        "num_nextn_predict_layers: MTP weights (mtp_*) a checkpoint may store are not loaded by "
        "Ernie4_5_MoeForCausalLM; not counted");
  }
  // Multimodal wrappers: a vision tower roofline does not count is named, never silently dropped.
  if (!m.vision.uncounted.empty()) {
    notes.push_back("vision tower " + quote(m.vision.uncounted) + " of this " + m.family +
                    " wrapper is not counted (roofline counts clip_vision_model, siglip_vision_model, pixtral, "
                    "qwen2_vl, qwen2_5_vl, mllama_vision_model, llama4_vision_model): the total is the text "
                    "model's and the projector's is left out too");
  }
  if (c.has("quantization_config")) {
    notes.emplace_back(
        "quantization_config present: scale tensors (e.g. FP8 weight_scale_inv) stored beside the "
        "weights are not parameters; excluded");
    const QuantRead q = read_quantization(Cfg(c.raw("quantization_config"), c.where(), c.path("quantization_config")));
    if (!q.format) {
      notes.push_back("quantization_config: " + q.why +
                      " is not a format roofline reads: the weights are sized at bf16 unless --weight-format "
                      "gives theirs");
    }
  }
  return notes;
}

}  // namespace

namespace {

const Family* find_family(std::span<const Family> table, std::string_view type) {
  for (const Family& f : table) {
    if (type == f.model_type) return &f;
  }
  return nullptr;
}

}  // namespace

const Family* hf::find_any_family(std::string_view model_type) {
  for (const auto& table : kFamilyTables) {
    if (const Family* f = find_family(table, model_type)) return f;
  }
  return nullptr;
}

namespace {

// An unknown model_type: the generic reading when every key of the config is one it reads or one
// that changes no count; otherwise refused with the keys it does not understand.
void read_generic(const Cfg& c, const std::string& type, ModelConfig& m) {
  const auto refuse = [&](const std::string& why) {
    throw InputError(c.where() + ": " + c.path("model_type") + ": " + quote(type) + " is not supported" + why +
                     "; supported model_type values: " + supported_model_types());
  };
  // A wrapper of an unknown type whose language model is a text_config: that is what to pass.
  if (c.has("text_config") && !c.has("hidden_size")) {
    refuse("; it wraps a text_config: pass that (e.g. jq .text_config config.json) for the language model");
  }
  std::string missing;
  for (const char* key :
       {"hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "vocab_size"}) {
    if (!c.has(key)) missing += (missing.empty() ? "" : ", ") + std::string(key);
  }
  if (!missing.empty()) {
    refuse(
        ", and the generic decoder reading needs hidden_size, num_hidden_layers, num_attention_heads, "
        "intermediate_size and vocab_size (missing " +
        missing + ")");
  }
  hf::import_generic(c, m);
  std::vector<std::string> unknown;
  for (std::string& key : c.unread()) {
    if (!hf::generic_ignorable(key)) unknown.push_back(std::move(key));
  }
  if (unknown.empty()) return;
  std::string list;
  const std::size_t shown = std::min<std::size_t>(unknown.size(), 12);
  for (std::size_t i = 0; i < shown; ++i) list += (i == 0 ? "" : ", ") + unknown[i];
  if (shown < unknown.size()) list += ", ... (" + std::to_string(unknown.size()) + " in all)";
  refuse(", and the generic decoder reading does not understand its keys " + list);
}

}  // namespace

ModelConfig import_hf_config(const json& j, std::string_view where, std::string_view pointer,
                             std::vector<std::string>* notes, bool* generic) {
  const Cfg c(j, std::string(where), std::string(pointer));
  std::string type = c.str("model_type", "");
  if (type.empty()) c.fail("model_type", "missing; roofline reads the architecture from model_type");
  for (const Refused& r : kRefused) {
    if (type == r.model_type) {
      std::string hint = "supported model_type values: " + supported_model_types();
      if (std::string_view(r.why) == "a multimodal wrapper" && c.has("text_config")) {
        hint = "pass its text_config (e.g. jq .text_config config.json) for the language model; " + hint;
      }
      throw InputError(std::string(where) + ": " + c.path("model_type") + ": " + quote(type) + " is " + r.why +
                       ", which roofline does not model; " + hint);
    }
  }
  const Family* f = hf::find_any_family(type);
  ModelConfig m;
  m.family = type.starts_with("Refined") ? "falcon" : type;
  m.n_kv_heads = kDeriveFromHeads;
  m.head_dim = kDeriveFromHeads;
  if (f != nullptr) {
    f->import(c, m);
  } else {
    read_generic(c, type, m);
  }
  apply_head_defaults(m);
  if (c.has("quantization_config") && c.raw("quantization_config").is_object()) {
    const QuantRead q = read_quantization(Cfg(c.raw("quantization_config"), c.where(), c.path("quantization_config")));
    if (q.format) {
      WeightLayout l = WeightLayout::all(float_format(c));
      for (WeightClass k : q.classes) l.set(k, *q.format);
      m.published_weights = l;
    }
  }
  const auto problems = validate(m);
  if (!problems.empty()) {
    const std::string at = pointer.empty() ? std::string() : ": " + std::string(pointer);
    throw InputError(std::string(where) + at + ": " + problems.front());
  }
  if (notes != nullptr) {
    *notes = checkpoint_notes(c, m);
    if (f == nullptr) notes->insert(notes->begin(), generic_note(type));
  }
  if (generic != nullptr) *generic = f == nullptr;
  return m;
}

std::string generic_note(std::string_view model_type) {
  return "model_type " + quote(model_type) +
         " is not a family roofline knows: counted by the generic decoder reading (the Llama layout of its "
         "standard keys: RMSNorm, a gated MLP, RoPE, biases only where attention_bias and mlp_bias say), exact "
         "only if the model is built that way; --strict refuses it";
}

}  // namespace roofline::io
