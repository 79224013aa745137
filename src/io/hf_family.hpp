// Internal to the Hugging Face importer: what one family's reader needs, and the tables of
// families. Each group of families lives in its own source file with its own table, so a family
// is added by one function and one table row; import_hf_config() walks every table.
#pragma once

#include "io/preset_json.hpp"

#include "roofline/model_config.hpp"

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

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
// num_hidden_layers is checked against kMaxLayerTypes before the list is read.
void read_layer_types(const Cfg& c, ModelConfig& m);
// validate()'s bound on n_layers, checked before a per-layer list is read.
inline constexpr std::int64_t kMaxLayerTypes = std::int64_t{1} << 16;
// num_hidden_layers within validate()'s bound (1 to kMaxLayerTypes), checked before any list or
// loop with one entry per layer: 10^15 layers would otherwise hang or exhaust memory (R3).
void check_layer_count(const Cfg& c, std::int64_t n_layers);
// The period p with layer i global exactly when (i+1) % p == 0 (0: every layer local), or -1 when
// the layout has none; linear in the number of layers.
std::int64_t global_period(const std::vector<bool>& local);

/// The families known since the importer's first release (hf_import.cpp).
std::span<const Family> classic_families();
/// Hybrid and state-space families: Mamba, Mamba-2, Nemotron-H, Granite 4.0, Qwen3-Next, Jamba, Bamba,
/// Falcon-H1 (hf_families_hybrid.cpp).
std::span<const Family> hybrid_families();

/// Mixture-of-experts families of 2024-2026: granitemoe, olmoe, phimoe, ernie4_5_moe, glm4_moe,
/// minimax_m2, kimi_k2, hunyuan_v1_moe (hf_families_moe.cpp).
std::span<const Family> moe_2026_families();
/// Dense families of 2024-2026: granite, smollm3, internlm2/3, cohere2, stablelm, exaone(4),
/// ernie4_5, hunyuan_v1_dense, nemotron, ministral, glm, glm4 (hf_families_dense.cpp).
std::span<const Family> dense_2026_families();
/// gpt_oss and llama4_text: attention sinks, MXFP4 experts, chunked attention (hf_families_special.cpp).
std::span<const Family> special_2026_families();
/// The generic decoder reading of an unknown model_type (hf_generic.cpp): the Llama layout of the
/// standard keys, MoE and layer-type keys included.
void import_generic(const Cfg& c, ModelConfig& m);
/// A key the generic reading may leave unread: it changes no count (token ids, norm epsilons,
/// rotary settings, dropout, the runtime's flags).
bool generic_ignorable(std::string_view key);
/// ---- Multimodal wrappers (hf_families_multimodal.cpp) ----
/// gemma3, mistral3, qwen2_vl, qwen2_5_vl, llava, mllama, llama4: the text model through its own
/// family's reader, the vision tower into ModelConfig::vision.
std::span<const Family> multimodal_families();
/// The family of a model_type in every table (hf_import.cpp's kFamilyTables); null when unknown.
const Family* find_any_family(std::string_view model_type);
/// A wrapper's (`c`) vision tower and projector from its vision_config (and projector keys), with
/// `text_width` the width the projector maps into. VisionTower::none with `uncounted` set when the
/// tower's model_type is not one roofline counts.
VisionConfig read_wrapper_vision(const Cfg& c, std::string_view model_type, std::int64_t text_width);
/// ---- end of the multimodal block ----

}  // namespace roofline::io::hf
