// Dense families of 2024-2026 (issue 10): Granite 3, SmolLM3, InternLM 2/2.5/3, Command R7B,
// StableLM 2, EXAONE 3.x, ERNIE 4.5, Hunyuan dense, Nemotron(-4/Minitron), Ministral, GLM-4.
// Class defaults, biases and traps per family: tests/fixtures/hf/FAMILY-NOTES-dense.md.
#include "io/hf_family.hpp"

#include <array>
#include <string>

namespace roofline::io::hf {
namespace {

using nlohmann::json;

// GraniteConfig is LlamaConfig plus embedding_multiplier, residual_multiplier,
// attention_multiplier and logits_scaling: scalars on activations, no weights. Untied by class
// default; the published Granite 3.x configs write tie_word_embeddings true.
void import_granite(const Cfg& c, ModelConfig& m) { read_llama_like(c, m, false); }

// SmolLM3: a Llama layout, tied by class default. no_rope_layers (or no_rope_layer_interval,
// default 4) only chooses which layers skip RoPE; the NoPE layers have the same weights and the
// same KV cache. use_sliding_window puts the window on the NoPE layers only, a layout the engine
// does not represent, so it is refused unless layer_types says otherwise.
void import_smollm3(const Cfg& c, ModelConfig& m) {
  read_llama_like(c, m, true);
  m.sliding_window = c.integer("sliding_window", 0);
  m.global_every = 0;
  if (c.has("layer_types")) {
    read_layer_types(c, m);
    return;
  }
  if (c.boolean("use_sliding_window", false) && m.sliding_window > 0) {
    c.unsupported("use_sliding_window", "a sliding window on the NoPE layers only");
  }
  m.sliding_window = 0;
}

// InternLM2 / 2.5 (remote code): fused wqkv of d x (h + 2 h_kv) d_h (the same count as q, k,
// v), wo, feed_forward w1/w3/w2. `bias` (class default TRUE) puts biases on wqkv and wo only;
// the MLP never has one. head_dim is d / h (no head_dim key).
void import_internlm2(const Cfg& c, ModelConfig& m) {
  m.d_model = c.integer("hidden_size");
  m.n_layers = c.integer("num_hidden_layers");
  m.n_heads = c.integer("num_attention_heads");
  m.n_kv_heads = c.integer("num_key_value_heads", kDeriveFromHeads);
  m.d_ff = c.integer("intermediate_size");
  m.vocab_size = c.integer("vocab_size");
  m.max_seq_len = c.integer("max_position_embeddings", 0);
  m.tied_embeddings = c.boolean("tie_word_embeddings", false);
  const bool bias = c.boolean("bias", true);
  m.qkv_bias = bias;
  m.o_bias = bias;
  m.mlp_bias = false;
}

// InternLM3 (remote code): q/k/v carry `qkv_bias`; o_proj AND gate/up/down carry `bias`.
void import_internlm3(const Cfg& c, ModelConfig& m) {
  read_llama_like(c, m, false);
  m.qkv_bias = c.boolean("qkv_bias", false);
  const bool bias = c.boolean("bias", false);
  m.o_bias = bias;
  m.mlp_bias = bias;
}

// Cohere2 (Command R7B): Cohere's parallel block with one bias-free LayerNorm, tied head, and
// sliding layers: layer_types, or the older sliding_window_pattern (default 4: three sliding
// layers, then one global layer without RoPE). No q/k norms in this class.
void import_cohere2(const Cfg& c, ModelConfig& m) {
  read_llama_like(c, m, true);
  m.head_dim = kDeriveFromHeads;  // Cohere2Config overwrites head_dim with d / h
  m.norm = NormKind::layernorm_nobias;
  m.norms_per_layer = 1;
  m.parallel_block = true;
  m.sliding_window = c.integer("sliding_window", 4096);
  m.global_every = c.integer("sliding_window_pattern", 4);
  if (m.global_every == 1) m.sliding_window = 0;  // every layer global
  read_layer_types(c, m);
}

// StableLM (2): LayerNorm WITH bias, q/k/v biases from use_qkv_bias, o_proj never biased,
// partial rotary (no weights). use_parallel_residual drops the second LayerNorm. qk_layernorm
// adds one bias-free LayerNorm of d_h per query head and per KV head: (h + h_kv) d_h gains.
void import_stablelm(const Cfg& c, ModelConfig& m) {
  m.d_model = c.integer("hidden_size", 2560);
  m.n_layers = c.integer("num_hidden_layers", 32);
  m.n_heads = c.integer("num_attention_heads", 32);
  m.n_kv_heads = c.integer("num_key_value_heads", 32);
  m.d_ff = c.integer("intermediate_size", 6912);
  m.vocab_size = c.integer("vocab_size", 50304);
  m.max_seq_len = c.integer("max_position_embeddings", 4096);
  m.tied_embeddings = c.boolean("tie_word_embeddings", false);
  m.norm = NormKind::layernorm;
  m.qkv_bias = c.boolean("use_qkv_bias", false);
  m.o_bias = false;
  m.parallel_block = c.boolean("use_parallel_residual", false);
  m.norms_per_layer = m.parallel_block ? 1 : 2;
  if (c.boolean("qk_layernorm", false)) {
    m.qk_norm = QkNorm::full_width;  // one d_h LayerNorm per query head and per KV head
    m.qk_norm_gain_only = true;      // StableLmLayerNormPerHead: LayerNorm(bias=False)
  }
}

// EXAONE 3.0 / 3.5 (remote code): num_layers (num_hidden_layers is its alias), intermediate_size
// defaulting to 4 d, RMSNorm, no biases, tied by class default (the 7.8B and 32B configs write
// false, the 2.4B true).
void import_exaone(const Cfg& c, ModelConfig& m) {
  m.d_model = c.integer("hidden_size");
  m.n_layers = c.integer_any({"num_layers", "num_hidden_layers"});
  m.n_heads = c.integer("num_attention_heads");
  m.n_kv_heads = c.integer("num_key_value_heads", kDeriveFromHeads);
  m.head_dim = c.integer("head_dim", kDeriveFromHeads);
  m.d_ff = c.integer("intermediate_size", saturating_mul(4, m.d_model));
  m.vocab_size = c.integer("vocab_size");
  m.max_seq_len = c.integer("max_position_embeddings", 0);
  m.tied_embeddings = c.boolean("tie_word_embeddings", true);
}

// EXAONE 4.0 (Exaone4Config, transformers): post-sublayer RMSNorms only (post_attention and
// post_feedforward: still two per layer), per-head q/k RMSNorms, no biases, untied by class
// default. Sliding layers: layer_types, else sliding_window_pattern as an integer p (layer i
// global when (i+1) % p == 0, class default 4) or a string of L/G such as "LLLG". (A null
// sliding_window reads as absent here; the class needs layer_types then, which decide.)
void import_exaone4(const Cfg& c, ModelConfig& m) {
  read_llama_like(c, m, false);
  m.qk_norm = QkNorm::per_head;
  m.sliding_window = c.integer("sliding_window", 4096);
  m.global_every = 4;
  if (c.has("sliding_window_pattern")) {
    const json& p = c.raw("sliding_window_pattern");
    if (p.is_string()) {
      // "L...LG": one global layer closing each period of p layers.
      const std::string s = p.get<std::string>();
      const bool ok = !s.empty() && s.back() == 'G' && s.find('G') == s.size() - 1 &&
                      s.find_first_not_of("LG") == std::string::npos;
      if (!ok) c.unsupported("sliding_window_pattern", "pattern " + describe_json(p) + " is not L...LG");
      m.global_every = static_cast<std::int64_t>(s.size());
    } else {
      m.global_every = c.integer("sliding_window_pattern");
    }
  }
  read_layer_types(c, m);
}

// ERNIE 4.5 dense: Ernie4_5Config defaults are the 0.3B model, including head_dim 128 (not
// d / h = 64) and a tied head; use_bias puts a bias on q, k, v, o and every MLP linear.
void import_ernie4_5(const Cfg& c, ModelConfig& m) {
  m.d_model = c.integer("hidden_size", 1024);
  m.n_layers = c.integer("num_hidden_layers", 18);
  m.n_heads = c.integer("num_attention_heads", 16);
  m.n_kv_heads = c.integer("num_key_value_heads", 2);
  m.head_dim = c.integer("head_dim", 128);
  m.d_ff = c.integer("intermediate_size", 3072);
  m.vocab_size = c.integer("vocab_size", 103424);
  m.max_seq_len = c.integer("max_position_embeddings", 131072);
  m.tied_embeddings = c.boolean("tie_word_embeddings", true);
  const bool bias = c.boolean("use_bias", false);
  m.qkv_bias = m.o_bias = m.mlp_bias = bias;
}

// Hunyuan dense V1: Llama attention (attention_bias on q, k, v, o) with query_layernorm and
// key_layernorm over head_dim built unconditionally (use_qk_norm is not read by the class), MLP
// without biases whatever mlp_bias says, untied by class default.
void import_hunyuan_v1_dense(const Cfg& c, ModelConfig& m) {
  read_llama_like(c, m, false);
  m.mlp_bias = false;
  m.qk_norm = QkNorm::per_head;
}

// Nemotron (Nemotron-4, Minitron, Nemotron-Mini): squared-ReLU MLP with up and down only,
// LayerNorm1P (a LayerNorm with weight and bias), partial rotary; attention_bias on q, k, v, o
// and mlp_bias on up/down. head_dim is read; kv_channels (Megatron's name) is not.
void import_nemotron(const Cfg& c, ModelConfig& m) {
  read_llama_like(c, m, false);
  m.mlp = MlpKind::plain;
  m.norm = NormKind::layernorm;
}

// Ministral: MistralConfig's keys; the attention has no biases; layer_types (sliding_attention /
// full_attention) sets the layout, otherwise every layer slides when sliding_window is set.
void import_ministral(const Cfg& c, ModelConfig& m) {
  read_llama_like(c, m, false);
  m.qkv_bias = m.o_bias = m.mlp_bias = false;
  read_uniform_window(c, m);
  read_layer_types(c, m);
}

// GLM (GLM-4-9B-chat-hf) and GLM-4-0414: q/k/v biases from attention_bias (class default TRUE),
// o_proj never biased, fused gate_up_proj (the count of gate + up), head_dim default 128,
// partial rotary. glm4 adds post_self_attn_layernorm and post_mlp_layernorm: four RMSNorms.
void read_glm(const Cfg& c, ModelConfig& m) {
  m.d_model = c.integer("hidden_size", 4096);
  m.n_layers = c.integer("num_hidden_layers", 40);
  m.n_heads = c.integer("num_attention_heads", 32);
  m.n_kv_heads = c.integer("num_key_value_heads", 2);
  m.head_dim = c.integer("head_dim", 128);
  m.d_ff = c.integer("intermediate_size", 13696);
  m.vocab_size = c.integer("vocab_size", 151552);
  m.max_seq_len = c.integer("max_position_embeddings", 131072);
  m.tied_embeddings = c.boolean("tie_word_embeddings", false);
  m.qkv_bias = c.boolean("attention_bias", true);
  m.o_bias = false;
}

void import_glm(const Cfg& c, ModelConfig& m) { read_glm(c, m); }

void import_glm4(const Cfg& c, ModelConfig& m) {
  read_glm(c, m);
  m.norms_per_layer = 4;
}

// OLMo 3 (Olmo3Config extends Olmo2Config): OLMo 2's layout (post-norms, q/k RMSNorm over the
// full projection widths, untied) with sliding attention. sliding_window defaults to 4096 and
// layer_types, when absent, to three sliding layers then one full: full where (i + 1) mod 4 = 0.
void import_olmo3(const Cfg& c, ModelConfig& m) {
  read_llama_like(c, m, false);
  m.qk_norm = QkNorm::full_width;
  m.sliding_window = c.integer("sliding_window", 4096);
  m.global_every = 4;
  read_layer_types(c, m);
}

constexpr std::array kDense = {Family{"granite", import_granite},
                               Family{"smollm3", import_smollm3},
                               Family{"internlm2", import_internlm2},
                               Family{"internlm3", import_internlm3},
                               Family{"cohere2", import_cohere2},
                               Family{"stablelm", import_stablelm},
                               Family{"exaone", import_exaone},
                               Family{"exaone4", import_exaone4},
                               Family{"ernie4_5", import_ernie4_5},
                               Family{"hunyuan_v1_dense", import_hunyuan_v1_dense},
                               Family{"nemotron", import_nemotron},
                               Family{"ministral", import_ministral},
                               Family{"glm", import_glm},
                               Family{"glm4", import_glm4},
                               Family{"olmo3", import_olmo3}};

}  // namespace

std::span<const Family> dense_2026_families() { return kDense; }

}  // namespace roofline::io::hf
