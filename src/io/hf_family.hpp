// Internal to the Hugging Face importer: what one family's reader needs, and the tables of
// families. Each group of families lives in its own source file with its own table, so a family
// is added by one function and one table row; import_hf_config() walks every table.
#pragma once

#include "io/preset_json.hpp"

#include "roofline/model_config.hpp"

#include <cstdint>
#include <span>

namespace roofline::io::hf {

// The HF reader is the preset reader (null means absent, whole floats are integers) without
// finish(): a config.json carries many keys that do not change the arithmetic.
using Cfg = ObjectReader;

struct Family {
  const char* model_type;
  void (*import)(const Cfg&, ModelConfig&);
};

// `a * b` and `a + b` for defaults derived before validate() has bounded their inputs: they
// saturate instead of overflowing, and validate() then reports the field as out of range.
std::int64_t saturating_mul(std::int64_t a, std::int64_t b);
std::int64_t saturating_add(std::int64_t a, std::int64_t b);

// Fields every Llama-like family shares: width, depth, heads, GQA, explicit head_dim, FFN, vocab,
// attention_bias (q, k, v and o) and mlp_bias; RMSNorm, gated MLP, RoPE, two norms per layer.
void read_llama_like(const Cfg& c, ModelConfig& m, bool tie_default);
// sliding_window applied to every layer, as Mistral v0.1, Mixtral, Phi-3 and StarCoder2 do.
void read_uniform_window(const Cfg& c, ModelConfig& m);
// layer_types (sliding_attention / full_attention) as (sliding_window, global_every), or refused.
void read_layer_types(const Cfg& c, ModelConfig& m);

/// The families known since the importer's first release (hf_import.cpp).
std::span<const Family> classic_families();
/// Hybrid and state-space families: Mamba, Mamba-2, Nemotron-H, Granite 4.0, Qwen3-Next, Jamba, Bamba
/// (hf_families_hybrid.cpp).
std::span<const Family> hybrid_families();

}  // namespace roofline::io::hf
