// Hugging Face families that need engine features of their own (issue 10): gpt-oss (attention
// sinks, biases on every projection, the router and the experts, MXFP4 experts in the published
// checkpoint) and the Llama 4 text model (interleaved MoE and dense layers, a shared expert,
// chunked local attention on RoPE layers and NoPE global layers). Facts per family:
// docs/hf-import.md, tests/fixtures/hf/FAMILY-NOTES-special.md.
#include "io/hf_family.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

namespace roofline::io::hf {
namespace {

using nlohmann::json;
using i64 = std::int64_t;

// GptOssConfig: every class default below is the gpt-oss-120b shape.
void import_gpt_oss(const Cfg& c, ModelConfig& m) {
  m.d_model = c.integer("hidden_size", 2880);
  m.n_layers = c.integer("num_hidden_layers", 36);
  m.n_heads = c.integer("num_attention_heads", 64);
  m.n_kv_heads = c.integer("num_key_value_heads", kDeriveFromHeads);
  m.head_dim = c.integer("head_dim", 64);
  m.vocab_size = c.integer("vocab_size", 201088);
  m.max_seq_len = c.integer("max_position_embeddings", 131072);
  m.tied_embeddings = c.boolean("tie_word_embeddings", false);
  m.mlp = MlpKind::gated;  // gate_up_proj (d -> 2f, interleaved gate and up), down_proj (f -> d)
  m.norm = NormKind::rmsnorm;
  m.norms_per_layer = 2;
  m.position = PositionKind::rope;
  // GptOssAttention: attention_bias (default true) on q, k, v and o; one sink per query head.
  const bool attention_bias = c.boolean("attention_bias", true);
  m.qkv_bias = attention_bias;
  m.o_bias = attention_bias;
  m.attention_sinks = true;
  // GptOssExperts: gate_up_proj_bias (2f) and down_proj_bias (d) per expert, i.e. the gated FFN's
  // biases; GptOssTopKRouter: a d x E linear with an E bias. Every layer is MoE.
  m.moe.n_experts = c.integer_any({"num_local_experts", "num_experts"}, 128);  // attribute_map alias
  m.moe.top_k = c.integer("num_experts_per_tok", 4);
  m.moe.d_ff_expert = c.integer("intermediate_size", 2880);
  m.moe.router_bias = true;
  m.mlp_bias = true;
  m.d_ff = m.moe.d_ff_expert;
  // layer_types default: sliding on even layers, full on odd ones (window 128).
  m.sliding_window = c.integer("sliding_window", 128);
  m.global_every = 2;
  read_layer_types(c, m);
  // The published checkpoint stores the experts' matrices as MXFP4 (quant_method "mxfp4"):
  // *_blocks (two E2M1 values a byte) and *_scales (one E8M0 byte per 32 inputs); the rest bf16.
  if (c.has("quantization_config")) {
    const Cfg q(c.raw("quantization_config"), c.where(), c.path("quantization_config"));
    if (q.str("quant_method", "") == "mxfp4") {
      m.expert_storage = {.value_bits = 4, .scale_bits = 8, .block = 32, .other_bits = 16};
    }
  }
}

// The period p of an explicit moe_layers list, which must be [p-1, 2p-1, ...] below n_layers;
// n_layers + 1 for an empty list (no MoE layer). Anything else is refused.
i64 moe_layers_period(const Cfg& c, const json& l, i64 n_layers) {
  if (!l.is_array()) c.fail("moe_layers", "expected an array of layer indices");
  check_layer_count(c, n_layers);
  if (l.empty()) return n_layers + 1;
  const json& first = l.front();
  const i64 period =
      first.is_number_integer() && first.get<i64>() >= 0 && first.get<i64>() < n_layers ? first.get<i64>() + 1 : 0;
  std::vector<i64> want;
  for (i64 i = period - 1; period > 0 && i < n_layers; i += period) want.push_back(i);
  bool ok = period > 0 && l.size() == want.size();
  for (std::size_t k = 0; ok && k < want.size(); ++k) ok = l[k].is_number_integer() && l[k].get<i64>() == want[k];
  if (!ok) c.unsupported("moe_layers", "MoE layers other than every p-th layer " + describe_json(l));
  return period;
}

// Llama4TextConfig.moe_layers, else range(step - 1, L, step) from interleave_moe_layer_step: MoE on
// the layers with (i+1) % p == 0, which MoeConfig::layer_freq represents; none: a dense model.
void read_llama4_moe_layers(const Cfg& c, ModelConfig& m) {
  const i64 step = c.integer("interleave_moe_layer_step", 1);
  if (step < 1) c.fail("interleave_moe_layer_step", "must be at least 1");
  const i64 period = c.has("moe_layers") ? moe_layers_period(c, c.raw("moe_layers"), m.n_layers) : step;
  if (period > m.n_layers) {
    m.moe = MoeConfig{};
    return;
  }
  m.moe.layer_freq = period;
}

// layer_types as newer saves write it: "chunked_attention" or "full_attention" per layer.
std::vector<bool> chunked_from_layer_types(const Cfg& c, i64 n_layers) {
  const json& t = c.raw("layer_types");
  if (!t.is_array() || static_cast<i64>(t.size()) != n_layers) {
    c.fail("layer_types", "expected an array of " + std::to_string(n_layers) + " strings");
  }
  std::vector<bool> chunked;
  for (const json& s : t) {
    const std::string v = s.is_string() ? s.get<std::string>() : "";
    if (v != "chunked_attention" && v != "full_attention") {
      c.unsupported("layer_types", "layer type " + describe_json(s) + " is not chunked_attention or full_attention");
    }
    chunked.push_back(v == "chunked_attention");
  }
  return chunked;
}

// no_rope_layers: 1 = a RoPE layer (chunked), 0 = a NoPE layer (global); at least n_layers flags.
std::vector<bool> chunked_from_no_rope(const Cfg& c, i64 n_layers) {
  const json& l = c.raw("no_rope_layers");
  if (!l.is_array() || static_cast<i64>(l.size()) < n_layers) {
    c.fail("no_rope_layers", "expected an array of at least " + std::to_string(n_layers) + " 0/1 flags");
  }
  std::vector<bool> chunked;
  for (i64 i = 0; i < n_layers; ++i) {
    const json& v = l[static_cast<std::size_t>(i)];
    if (!v.is_number_integer() || (v.get<i64>() != 0 && v.get<i64>() != 1)) {
      c.fail("no_rope_layers", "expected 0 or 1, got " + describe_json(v));
    }
    chunked.push_back(v.get<i64>() == 1);
  }
  return chunked;
}

// Which layers attend in chunks: layer_types when given, else no_rope_layers (an empty list counts
// as absent, as in the class), else a NoPE layer every no_rope_layer_interval layers.
std::vector<bool> llama4_chunked_layers(const Cfg& c, i64 n_layers) {
  check_layer_count(c, n_layers);
  if (c.has("layer_types")) return chunked_from_layer_types(c, n_layers);
  if (c.has("no_rope_layers") && !c.raw("no_rope_layers").empty()) return chunked_from_no_rope(c, n_layers);
  const i64 interval = c.integer("no_rope_layer_interval", 4);
  if (interval < 1) c.fail("no_rope_layer_interval", "must be at least 1");
  std::vector<bool> chunked;
  for (i64 i = 0; i < n_layers; ++i) chunked.push_back((i + 1) % interval != 0);
  return chunked;
}

// Llama4TextConfig (the text_config of Llama 4 Scout and Maverick, or Llama4ForCausalLM).
void import_llama4_text(const Cfg& c, ModelConfig& m) {
  m.d_model = c.integer("hidden_size", 5120);
  m.n_layers = c.integer("num_hidden_layers", 48);
  m.n_heads = c.integer("num_attention_heads", 40);
  m.n_kv_heads = c.integer("num_key_value_heads", 8);
  m.head_dim = c.integer("head_dim", 128);
  m.vocab_size = c.integer("vocab_size", 202048);
  m.max_seq_len = c.integer("max_position_embeddings", 131072);
  m.tied_embeddings = c.boolean("tie_word_embeddings", false);
  m.mlp = MlpKind::gated;
  m.norm = NormKind::rmsnorm;
  m.norms_per_layer = 2;
  m.position = PositionKind::rope;
  const bool attention_bias = c.boolean("attention_bias", false);
  m.qkv_bias = attention_bias;
  m.o_bias = attention_bias;
  // use_qk_norm is Llama4TextL2Norm: no parameters, so it changes no count.
  m.qk_norm = QkNorm::none;
  // Dense layers are Llama4TextMLP(intermediate_size_mlp); MoE layers hold E routed experts and
  // one shared expert, both of width intermediate_size, and a d x E router without bias.
  m.d_ff = c.integer("intermediate_size_mlp", 16384);
  m.moe.n_experts = c.integer("num_local_experts", 16);
  m.moe.top_k = c.integer("num_experts_per_tok", 1);
  m.moe.d_ff_expert = c.integer("intermediate_size", 8192);
  m.moe.n_shared_experts = 1;
  m.moe.d_ff_shared = m.moe.d_ff_expert;
  read_llama4_moe_layers(c, m);
  // Chunked attention (RoPE layers) caches at most attention_chunk_size tokens, as a sliding
  // window of that size does; the NoPE layers attend to the whole context.
  const std::vector<bool> chunked = llama4_chunked_layers(c, m.n_layers);
  const bool any_chunked = std::find(chunked.begin(), chunked.end(), true) != chunked.end();
  const i64 chunk = c.integer("attention_chunk_size", 8192);
  if (!any_chunked) {
    m.sliding_window = 0;
    return;
  }
  if (chunk <= 0) c.fail("attention_chunk_size", "chunked layers need a positive chunk size");
  const i64 period = global_period(chunked);
  if (period < 0) c.unsupported("no_rope_layers", "the chunked/global layer layout is not periodic");
  m.sliding_window = chunk;
  m.global_every = period;
}

constexpr std::array kFamilies = {Family{"gpt_oss", import_gpt_oss}, Family{"llama4_text", import_llama4_text}};

}  // namespace

std::span<const Family> special_2026_families() { return kFamilies; }

}  // namespace roofline::io::hf
