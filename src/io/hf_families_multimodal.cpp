// Multimodal wrappers: gemma3, gemma4, mistral3, qwen2_vl, qwen2_5_vl, llava, mllama, llama4. The text
// model is read by its own family's reader from text_config (over the text class's defaults where
// the wrapper's text_config omits a key); the vision tower and projector go to ModelConfig::vision,
// counted by the engine (count_vision). Facts per wrapper: docs/hf-import.md, "Multimodal wrappers";
// tests/fixtures/hf/FAMILY-NOTES-multimodal.md.
#include "io/hf_family.hpp"
#include "io/text.hpp"

#include "roofline/errors.hpp"

#include <algorithm>
#include <array>
#include <string>

namespace roofline::io::hf {

using nlohmann::json;

namespace {

using i64 = std::int64_t;

// The text class's defaults for keys a wrapper's text_config omits (configuration_<type>.py);
// gemma3_text's reader applies its own. Types without an entry get no defaults.
json text_class_defaults(std::string_view type) {
  if (type == "llama") {  // LlamaConfig
    return {{"vocab_size", 32000},         {"hidden_size", 4096},       {"intermediate_size", 11008},
            {"num_hidden_layers", 32},     {"num_attention_heads", 32}, {"max_position_embeddings", 2048},
            {"tie_word_embeddings", false}};
  }
  if (type == "mistral") {  // MistralConfig
    return {{"vocab_size", 32000},        {"hidden_size", 4096},
            {"intermediate_size", 14336}, {"num_hidden_layers", 32},
            {"num_attention_heads", 32},  {"num_key_value_heads", 8},
            {"sliding_window", 4096},     {"max_position_embeddings", 131072}};
  }
  if (type == "qwen2_vl_text" || type == "qwen2_5_vl_text") {  // Qwen2VLTextConfig, Qwen2_5_VLTextConfig
    return {{"vocab_size", 152064},
            {"hidden_size", 8192},
            {"intermediate_size", 29568},
            {"num_hidden_layers", 80},
            {"num_attention_heads", 64},
            {"num_key_value_heads", 8},
            {"max_position_embeddings", 32768}};
  }
  if (type == "qwen3_vl_text") {  // Qwen3VLTextConfig
    return {{"vocab_size", 151936},
            {"hidden_size", 4096},
            {"intermediate_size", 22016},
            {"num_hidden_layers", 32},
            {"num_attention_heads", 32},
            {"num_key_value_heads", 32},
            {"head_dim", 128},
            {"max_position_embeddings", 128000}};
  }
  if (type == "qwen3_vl_moe_text") {  // Qwen3VLMoeTextConfig (head_dim: hidden_size / heads)
    return {{"vocab_size", 151936},
            {"hidden_size", 2048},
            {"intermediate_size", 5632},
            {"num_hidden_layers", 24},
            {"num_attention_heads", 16},
            {"num_key_value_heads", 16},
            {"moe_intermediate_size", 1408},
            {"num_experts_per_tok", 4},
            {"num_experts", 60},
            {"decoder_sparse_step", 1},
            {"max_position_embeddings", 128000}};
  }
  if (type == "mllama_text_model") {  // MllamaTextConfig
    return {{"vocab_size", 128256},
            {"hidden_size", 4096},
            {"intermediate_size", 14336},
            {"num_hidden_layers", 40},
            {"num_attention_heads", 32},
            {"num_key_value_heads", 8},
            {"max_position_embeddings", 131072},
            {"cross_attention_layers", {3, 8, 13, 18, 23, 28, 33, 38}}};
  }
  return json::object();
}

// The reader of a text model_type: the nested text configs of Qwen2-VL/2.5-VL are Qwen2 models.
std::string reader_type(const std::string& type) {
  if (type == "qwen2_vl_text" || type == "qwen2_5_vl_text") return "qwen2";
  if (type == "qwen3_vl_text") return "qwen3";
  if (type == "qwen3_vl_moe_text") return "qwen3_moe";
  return type;
}

bool is_wrapper(const Family* f);
void import_mllama_text(const Cfg& c, ModelConfig& m);

// text_config over the text class's defaults, read by the text model_type's family. `fallback`
// is the wrapper's default text config when text_config is absent; a present text_config takes
// only its model_type from it (transformers builds the text class from the dict: class defaults).
void import_text(const Cfg& c, ModelConfig& m, const json& fallback) {
  json text = c.has("text_config") ? json::object() : fallback;
  std::string pointer = c.path("text_config");
  if (c.has("text_config")) {
    const json& t = c.raw("text_config");
    if (!t.is_object()) c.fail("text_config", "expected an object");
    for (const auto& [k, v] : t.items()) text[k] = v;
  }
  if (!text.contains("model_type")) text["model_type"] = fallback.value("model_type", "");
  const std::string type = text["model_type"].is_string() ? text["model_type"].get<std::string>() : "";
  json merged = text_class_defaults(type);
  for (const auto& [k, v] : text.items()) merged[k] = v;
  const Cfg tc(merged, c.where(), pointer);
  if (type == "mllama_text_model") {
    import_mllama_text(tc, m);
    return;
  }
  const Family* f = find_any_family(reader_type(type));
  if (f == nullptr || is_wrapper(f)) {
    tc.fail("model_type", "the text model " + quote(type) + " of this wrapper is not a supported model_type");
  }
  f->import(tc, m);
}

// Qwen2-VL and Qwen2.5-VL configs saved before the text_config split keep the text model's keys at
// the top level: the wrapper object is then the text config, read as a Qwen2 model (every size key
// is present in those configs; a missing one is reported, not defaulted).
void import_qwen_vl_text(const Cfg& c, ModelConfig& m, const char* text_type) {
  if (c.has("text_config")) {
    import_text(c, m, {{"model_type", text_type}});
    return;
  }
  find_any_family("qwen2")->import(c, m);
}

void import_gemma3(const Cfg& c, ModelConfig& m) {
  import_text(c, m, {{"model_type", "gemma3_text"}});
  m.vision = read_wrapper_vision(c, "gemma3", m.d_model);
}

// Mistral3Config without a text_config builds Mistral Small 3.1's text model.
void import_mistral3(const Cfg& c, ModelConfig& m) {
  const json small = {{"model_type", "mistral"},
                      {"head_dim", 128},
                      {"hidden_size", 5120},
                      {"intermediate_size", 32768},
                      {"max_position_embeddings", 131072},
                      {"num_attention_heads", 32},
                      {"num_hidden_layers", 40},
                      {"num_key_value_heads", 8},
                      {"sliding_window", nullptr},
                      {"vocab_size", 131072}};
  import_text(c, m, small);
  m.vision = read_wrapper_vision(c, "mistral3", m.d_model);
}

void import_qwen2_vl(const Cfg& c, ModelConfig& m) {
  import_qwen_vl_text(c, m, "qwen2_vl_text");
  m.vision = read_wrapper_vision(c, "qwen2_vl", m.d_model);
}

void import_qwen2_5_vl(const Cfg& c, ModelConfig& m) {
  import_qwen_vl_text(c, m, "qwen2_5_vl_text");
  m.vision = read_wrapper_vision(c, "qwen2_5_vl", m.d_model);
}

// Qwen3.5 / Qwen3.6 (Qwen3_5ForConditionalGeneration, Qwen3_5MoeForConditionalGeneration): the
// text model from text_config (qwen3_5_text / qwen3_5_moe_text: Qwen3-Next's gated DeltaNet and
// gated attention stack), the vision tower Qwen3-VL's without deepstack, its merger in the tower.
void import_qwen_wrapper(const Cfg& c, ModelConfig& m, const char* text_type, const char* wrapper) {
  import_text(c, m, {{"model_type", text_type}});
  // A tie written on the wrapper alone applies to the text model (PreTrainedConfig's kwarg).
  const bool text_tie =
      c.has("text_config") && c.raw("text_config").is_object() && c.raw("text_config").contains("tie_word_embeddings");
  if (!text_tie && c.has("tie_word_embeddings")) m.tied_embeddings = c.boolean("tie_word_embeddings", false);
  m.vision = read_wrapper_vision(c, wrapper, m.d_model);
}

void import_qwen3_5(const Cfg& c, ModelConfig& m) { import_qwen_wrapper(c, m, "qwen3_5_text", "qwen3_5"); }

void import_qwen3_5_moe(const Cfg& c, ModelConfig& m) { import_qwen_wrapper(c, m, "qwen3_5_moe_text", "qwen3_5_moe"); }

// Qwen3-VL (Qwen3VLForConditionalGeneration, Qwen3VLMoeForConditionalGeneration): Qwen3's and
// Qwen3-MoE's text model from text_config (interleaved M-RoPE and the deepstack additions hold no
// weights), the tie as Qwen3.5's, the tower with its merger and deepstack mergers.
void import_qwen3_vl(const Cfg& c, ModelConfig& m) { import_qwen_wrapper(c, m, "qwen3_vl_text", "qwen3_vl"); }

void import_qwen3_vl_moe(const Cfg& c, ModelConfig& m) {
  import_qwen_wrapper(c, m, "qwen3_vl_moe_text", "qwen3_vl_moe");
}

// Kimi K2.5 (KimiK25ForConditionalGeneration, remote code): Kimi K2's DeepSeek-V3 text model from
// text_config and a MoonViT tower with its patch-merger projector into the text width.
void import_kimi_k25(const Cfg& c, ModelConfig& m) {
  import_text(c, m, {{"model_type", "deepseek_v3"}});
  m.vision = read_wrapper_vision(c, "kimi_k25", m.d_model);
}

// Gemma 4 (Gemma4ForConditionalGeneration): the gemma4_text model from text_config and the
// Gemma 4 vision encoder with its embed_vision projection. The audio tower of the small models
// (gemma4_audio) is not counted: a non-null audio_config is refused.
void import_gemma4(const Cfg& c, ModelConfig& m) {
  if (c.has("audio_config") && !c.raw("audio_config").is_null()) {
    c.unsupported("audio_config", "the Gemma 4 audio tower (gemma4_audio)");
  }
  import_text(c, m, {{"model_type", "gemma4_text"}});
  m.vision = read_wrapper_vision(c, "gemma4", m.d_model);
}

void import_llava(const Cfg& c, ModelConfig& m) {
  import_text(c, m, {{"model_type", "llama"}});
  m.vision = read_wrapper_vision(c, "llava", m.d_model);
}

// MllamaTextModel: num_hidden_layers counts the cross-attention layers too (cross_attention_layers
// lists their indices); embed_tokens has vocab_size + 8 rows, the head vocab_size.
void import_mllama_text(const Cfg& c, ModelConfig& m) {
  read_llama_like(c, m, false);
  if (!c.has("cross_attention_layers")) c.fail("cross_attention_layers", "missing required field");
  const json& x = c.raw("cross_attention_layers");
  if (!x.is_array()) c.fail("cross_attention_layers", "expected an array of layer indices");
  for (const json& i : x) {
    if (!i.is_number_integer() || i.get<i64>() < 0 || i.get<i64>() >= m.n_layers) {
      c.fail("cross_attention_layers", "expected layer indices below num_hidden_layers, got " + describe_json(i));
    }
  }
  m.cross_attention_layers = static_cast<i64>(x.size());
  m.n_layers -= m.cross_attention_layers;
  m.extra_embedding_rows = 8;
}

void import_mllama(const Cfg& c, ModelConfig& m) {
  import_text(c, m, {{"model_type", "mllama_text_model"}});
  m.vision = read_wrapper_vision(c, "mllama", m.d_model);
}

// Llama 4's text model is llama4_text, read by its own family where the build has it.
void import_llama4(const Cfg& c, ModelConfig& m) {
  import_text(c, m, {{"model_type", "llama4_text"}});
  m.vision = read_wrapper_vision(c, "llama4", m.d_model);
}

// ---- vision towers ----

// vision_feature_layer: one index, or a list of layers concatenated into the projector's input.
i64 feature_layers(const Cfg& c) {
  if (!c.has("vision_feature_layer")) return 1;
  const json& v = c.raw("vision_feature_layer");
  if (v.is_array()) {
    if (v.empty()) c.fail("vision_feature_layer", "expected a layer index or a non-empty list");
    return static_cast<i64>(v.size());
  }
  if (!v.is_number_integer()) c.fail("vision_feature_layer", "expected a layer index or a list of them");
  return 1;  // one layer, counted from the end when negative (LLaVA's -2)
}

// The vision tower's model_type: vision_config's, else the wrapper's default tower.
std::string tower_type(const Cfg& vc, const char* fallback) { return vc.str("model_type", fallback); }

void read_clip(const Cfg& vc, VisionConfig& v) {  // CLIPVisionConfig defaults
  v.tower = VisionTower::clip;
  v.d = vc.integer("hidden_size", 768);
  v.d_ff = vc.integer("intermediate_size", 3072);
  v.n_layers = vc.integer("num_hidden_layers", 12);
  v.image_size = vc.integer("image_size", 224);
  v.patch = vc.integer("patch_size", 32);
  v.channels = vc.integer("num_channels", 3);
}

void read_siglip(const Cfg& vc, VisionConfig& v) {  // SiglipVisionConfig defaults
  v.tower = VisionTower::siglip;
  v.d = vc.integer("hidden_size", 768);
  v.d_ff = vc.integer("intermediate_size", 3072);
  v.n_layers = vc.integer("num_hidden_layers", 12);
  v.image_size = vc.integer("image_size", 224);
  v.patch = vc.integer("patch_size", 16);
  v.channels = vc.integer("num_channels", 3);
  // The multihead-attention-pooling head (vision_use_head, default true) is not counted: refused.
  if (vc.boolean("vision_use_head", true)) {
    vc.unsupported("vision_use_head", "a SigLIP tower with its pooling head");
  }
}

void read_pixtral(const Cfg& vc, VisionConfig& v) {  // PixtralVisionConfig defaults
  v.tower = VisionTower::pixtral;
  v.d = vc.integer("hidden_size", 1024);
  v.d_ff = vc.integer("intermediate_size", 4096);
  v.n_layers = vc.integer("num_hidden_layers", 24);
  v.image_size = vc.integer("image_size", 1024);
  v.patch = vc.integer("patch_size", 16);
  v.channels = vc.integer("num_channels", 3);
  const i64 heads = vc.integer("num_attention_heads", 16);
  if (heads <= 0) vc.fail("num_attention_heads", "must be positive");
  if (vc.integer("head_dim", v.d / heads) * heads != v.d) {
    vc.unsupported("head_dim", "a Pixtral tower whose heads x head_dim is not hidden_size");
  }
}

// Qwen2VLVisionConfig: embed_dim is the tower width, hidden_size the merger's output.
void read_qwen2_vl(const Cfg& vc, VisionConfig& v) {
  v.tower = VisionTower::qwen2_vl;
  v.d = vc.integer("embed_dim", 1280);
  v.d_ff = saturating_mul(v.d, vc.integer("mlp_ratio", 4));
  v.n_layers = vc.integer("depth", 32);
  v.out_dim = vc.integer("hidden_size", 3584);
  v.patch = vc.integer("patch_size", 14);
  v.channels = vc.integer_any({"in_channels", "in_chans"}, 3);
  v.temporal_patch = vc.integer("temporal_patch_size", 2);
  v.merge = vc.integer("spatial_merge_size", 2);
}

// The keys Qwen2.5-VL's and Qwen3.5's vision configs share: hidden_size the tower width,
// intermediate_size, depth, out_hidden_size the merger's output, the patch and merge sizes; the
// class defaults as given.
struct QwenVisionDefaults {
  std::int64_t d, d_ff, layers, out, patch;
};
void read_qwen_vision_widths(const Cfg& vc, VisionConfig& v, QwenVisionDefaults x) {
  v.d = vc.integer("hidden_size", x.d);
  v.d_ff = vc.integer("intermediate_size", x.d_ff);
  v.n_layers = vc.integer("depth", x.layers);
  v.out_dim = vc.integer("out_hidden_size", x.out);
  v.patch = vc.integer("patch_size", x.patch);
  v.channels = vc.integer_any({"in_channels", "in_chans"}, 3);
  v.temporal_patch = vc.integer("temporal_patch_size", 2);
  v.merge = vc.integer("spatial_merge_size", 2);
}

// Qwen2_5_VLVisionConfig: hidden_size is the tower width, out_hidden_size the merger's output.
void read_qwen2_5_vl(const Cfg& vc, VisionConfig& v) {
  v.tower = VisionTower::qwen2_5_vl;
  read_qwen_vision_widths(vc, v, {.d = 3584, .d_ff = 3420, .layers = 32, .out = 3584, .patch = 14});
}

// Qwen3VLVisionConfig: hidden_size the tower width, out_hidden_size the merger's output,
// num_position_embeddings the learned position table, one deepstack merger per entry of
// deepstack_visual_indexes (block indices below depth).
void read_qwen3_vl_vision(const Cfg& vc, VisionConfig& v) {
  v.tower = VisionTower::qwen3_vl;
  read_qwen_vision_widths(vc, v, {.d = 1152, .d_ff = 4304, .layers = 27, .out = 3584, .patch = 16});
  v.position_embeddings = vc.integer("num_position_embeddings", 2304);
  v.deepstack_mergers = 3;  // the class default [8, 16, 24]
  if (!vc.has("deepstack_visual_indexes")) return;
  const json& ds = vc.raw("deepstack_visual_indexes");
  if (!ds.is_array()) vc.fail("deepstack_visual_indexes", "expected an array of block indices");
  for (const json& i : ds) {
    if (!i.is_number_integer() || i.get<i64>() < 0 || i.get<i64>() >= v.n_layers) {
      vc.fail("deepstack_visual_indexes", "expected block indices from 0 to depth - 1, got " + describe_json(i));
    }
  }
  v.deepstack_mergers = static_cast<i64>(ds.size());
}

// Qwen3_5VisionConfig (Qwen3-VL's ViT without deepstack): as Qwen3-VL's with no deepstack
// mergers; a deepstack_visual_indexes list is refused, not counted as zero.
void read_qwen3_5_vision(const Cfg& vc, VisionConfig& v) {
  if (vc.has("deepstack_visual_indexes")) {
    const json& ds = vc.raw("deepstack_visual_indexes");
    if (!ds.is_array()) vc.fail("deepstack_visual_indexes", "expected an array of layer indices");
    if (!ds.empty()) vc.unsupported("deepstack_visual_indexes", "deepstack mergers in a Qwen3.5 tower");
  }
  read_qwen3_vl_vision(vc, v);
  v.deepstack_mergers = 0;
}

// Kimi K2.5's vision_config (KimiK25VisionConfig, vLLM's copy of the remote class): MoonViT of
// vt_num_hidden_layers blocks of vt_hidden_size, vt_intermediate_size, patch_size, a learned
// init_pos_emb_height x init_pos_emb_width position table, merged merge_kernel_size into the
// "patchmerger" projector.
void read_moonvit(const Cfg& vc, VisionConfig& v) {
  v.tower = VisionTower::moonvit;
  v.d = vc.integer("vt_hidden_size", 1152);
  v.d_ff = vc.integer("vt_intermediate_size", 4304);
  v.n_layers = vc.integer("vt_num_hidden_layers", 27);
  v.patch = vc.integer("patch_size", 14);
  v.channels = 3;
  v.position_embeddings = saturating_mul(vc.integer("init_pos_emb_height", 64), vc.integer("init_pos_emb_width", 64));
  v.merge = 2;
  if (vc.has("merge_kernel_size")) {
    const json& k = vc.raw("merge_kernel_size");
    if (!k.is_array() || k.size() != 2 || !k[0].is_number_integer() || k[0] != k[1] || k[0].get<i64>() < 1 ||
        k[0].get<i64>() > 64) {
      vc.fail("merge_kernel_size", "expected a square kernel [m, m], m from 1 to 64");
    }
    v.merge = k[0].get<i64>();
  }
  if (vc.str("mm_projector_type", "patchmerger") != "patchmerger") {
    vc.unsupported("mm_projector_type", "a projector other than Kimi's patchmerger");
  }
}

// Gemma4VisionConfig defaults: a ViT of hidden_size with q/k norms over head_dim and two learned
// position tables of position_embedding_size rows. use_clipped_linears stores four clipping
// scalars per linear that no published total we hold confirms: refused, not guessed.
void read_gemma4_vision(const Cfg& vc, VisionConfig& v) {
  v.tower = VisionTower::gemma4;
  v.d = vc.integer("hidden_size", 768);
  v.d_ff = vc.integer("intermediate_size", 3072);
  v.n_layers = vc.integer("num_hidden_layers", 16);
  v.heads = vc.integer("num_attention_heads", 12);
  v.head_dim = vc.integer("head_dim", 64);
  v.patch = vc.integer("patch_size", 16);
  v.channels = 3;
  v.position_embeddings = vc.integer("position_embedding_size", 10240);
  v.standardize = vc.boolean("standardize", false);
  if (vc.integer("num_key_value_heads", v.heads) != v.heads) {
    vc.unsupported("num_key_value_heads", "a Gemma 4 vision tower with fewer KV heads than heads");
  }
  if (vc.boolean("attention_bias", false)) vc.unsupported("attention_bias", "biases in the Gemma 4 vision tower");
  if (vc.boolean("use_clipped_linears", false)) {
    vc.unsupported("use_clipped_linears", "the clipping buffers of the small Gemma 4 vision towers");
  }
}

void read_mllama(const Cfg& vc, VisionConfig& v) {  // MllamaVisionConfig defaults
  v.tower = VisionTower::mllama;
  v.d = vc.integer("hidden_size", 1280);
  v.d_ff = vc.integer("intermediate_size", 5120);
  v.n_layers = vc.integer("num_hidden_layers", 32);
  v.global_layers = vc.integer("num_global_layers", 8);
  v.image_size = vc.integer("image_size", 448);
  v.patch = vc.integer("patch_size", 14);
  v.channels = vc.integer("num_channels", 3);
  v.max_tiles = vc.integer("max_num_tiles", 4);
  v.output_dim = vc.integer("vision_output_dim", 7680);
  // Tile embeddings have max_aspect_ratio_id + 1 rows, max_aspect_ratio_id = len(supported_aspect_ratios).
  i64 ratios = 8;  // the default list [[1,1],[1,2],[1,3],[1,4],[2,1],[2,2],[3,1],[4,1]]
  if (vc.has("supported_aspect_ratios")) {
    const json& r = vc.raw("supported_aspect_ratios");
    if (!r.is_array()) vc.fail("supported_aspect_ratios", "expected a list of [w, h] pairs");
    ratios = static_cast<i64>(r.size());
  }
  v.aspect_ratios = ratios + 1;
}

// Llama4VisionConfig: every size key is required (the published configs state them).
void read_llama4(const Cfg& vc, VisionConfig& v) {
  v.tower = VisionTower::llama4;
  v.d = vc.integer("hidden_size");
  v.d_ff = vc.integer("intermediate_size");
  v.n_layers = vc.integer("num_hidden_layers");
  v.image_size = vc.integer("image_size");
  v.patch = vc.integer("patch_size");
  v.channels = vc.integer("num_channels", 3);
  v.adapter_in = vc.integer("projector_input_dim");
  v.adapter_out = vc.integer("projector_output_dim");
  v.output_dim = vc.integer("vision_output_dim");
}

// One wrapper's tower: its vision_config model_type (or the wrapper's default tower type).
struct WrapperVision {
  const char* wrapper;
  const char* default_tower;
  VisionProjector projector;
};

constexpr std::array kWrapperVision = {WrapperVision{"gemma3", "siglip_vision_model", VisionProjector::gemma3},
                                       WrapperVision{"mistral3", "pixtral", VisionProjector::mistral3},
                                       WrapperVision{"qwen2_vl", "qwen2_vl", VisionProjector::none},
                                       WrapperVision{"qwen2_5_vl", "qwen2_5_vl", VisionProjector::none},
                                       WrapperVision{"qwen3_5", "qwen3_5_vision", VisionProjector::none},
                                       WrapperVision{"qwen3_5_moe", "qwen3_5_vision", VisionProjector::none},
                                       WrapperVision{"qwen3_vl", "qwen3_vl", VisionProjector::none},
                                       WrapperVision{"qwen3_vl_moe", "qwen3_vl", VisionProjector::none},
                                       WrapperVision{"kimi_k25", "kimi_k25_vision", VisionProjector::kimi},
                                       WrapperVision{"gemma4", "gemma4_vision", VisionProjector::gemma4},
                                       WrapperVision{"llava", "clip_vision_model", VisionProjector::llava},
                                       WrapperVision{"mllama", "mllama_vision_model", VisionProjector::mllama},
                                       WrapperVision{"llama4", "llama4_vision_model", VisionProjector::llama4}};

struct TowerReader {
  const char* model_type;
  void (*read)(const Cfg&, VisionConfig&);
};

constexpr std::array kTowers = {TowerReader{"clip_vision_model", read_clip},
                                TowerReader{"siglip_vision_model", read_siglip},
                                TowerReader{"pixtral", read_pixtral},
                                TowerReader{"qwen2_vl", read_qwen2_vl},
                                TowerReader{"qwen2_5_vl", read_qwen2_5_vl},
                                TowerReader{"mllama_vision_model", read_mllama},
                                TowerReader{"llama4_vision_model", read_llama4},
                                TowerReader{"qwen3_5_vision", read_qwen3_5_vision},
                                TowerReader{"qwen3_vl", read_qwen3_vl_vision},
                                TowerReader{"kimi_k25_vision", read_moonvit},
                                TowerReader{"gemma4_vision", read_gemma4_vision}};

}  // namespace

VisionConfig read_wrapper_vision(const Cfg& c, std::string_view model_type, std::int64_t text_width) {
  const WrapperVision* w = nullptr;
  for (const WrapperVision& x : kWrapperVision) {
    if (model_type == x.wrapper) w = &x;
  }
  VisionConfig v;
  if (w == nullptr) return v;
  const json empty = json::object();
  if (c.has("vision_config") && !c.raw("vision_config").is_object()) c.fail("vision_config", "expected an object");
  const json& raw = c.has("vision_config") ? c.raw("vision_config") : empty;
  const Cfg vc(raw, c.where(), c.path("vision_config"));
  // Qwen2-VL's vision_config carries no model_type in published configs; the wrapper's is its own.
  // Qwen3.5's early checkpoints name the tower after the wrapper ("qwen3_5"), which
  // Qwen3_5Config rewrites to qwen3_5_vision; the MoE wrapper's is qwen3_5_moe_vision.
  std::string type = tower_type(vc, w->default_tower);
  if (type == "qwen3_5" || type == "qwen3_5_moe" || type == "qwen3_5_moe_vision") type = "qwen3_5_vision";
  // Qwen3-VL-MoE's tower is Qwen3-VL's: "qwen3_vl_moe" in 4.57 configs, qwen3_vl_moe_vision in v5.
  if (type == "qwen3_vl_moe" || type == "qwen3_vl_moe_vision" || type == "qwen3_vl_vision") type = "qwen3_vl";
  const TowerReader* reader = nullptr;
  for (const TowerReader& t : kTowers) {
    if (type == t.model_type) reader = &t;
  }
  const bool qwen = w->projector == VisionProjector::none;
  if (reader == nullptr || (qwen && type != w->default_tower)) {
    v.uncounted = type;  // named in the output as not counted
    return v;
  }
  reader->read(vc, v);
  v.projector = w->projector;
  if (!qwen) v.out_dim = text_width;
  if (w->projector == VisionProjector::llava) {
    v.feature_layers = feature_layers(c);
    v.projector_bias = c.boolean("multimodal_projector_bias", true);
  } else if (w->projector == VisionProjector::mistral3) {
    v.feature_layers = feature_layers(c);
    v.projector_bias = c.boolean("multimodal_projector_bias", false);
    v.merge = c.integer("spatial_merge_size", 2);
  }
  return v;
}

namespace {

constexpr std::array kMultimodal = {Family{"gemma3", import_gemma3},
                                    Family{"mistral3", import_mistral3},
                                    Family{"qwen2_vl", import_qwen2_vl},
                                    Family{"qwen2_5_vl", import_qwen2_5_vl},
                                    Family{"llava", import_llava},
                                    Family{"mllama", import_mllama},
                                    Family{"llama4", import_llama4},
                                    Family{"qwen3_5", import_qwen3_5},
                                    Family{"qwen3_5_moe", import_qwen3_5_moe},
                                    Family{"qwen3_vl", import_qwen3_vl},
                                    Family{"qwen3_vl_moe", import_qwen3_vl_moe},
                                    Family{"kimi_k25", import_kimi_k25},
                                    Family{"gemma4", import_gemma4}};

bool is_wrapper(const Family* f) {
  return std::ranges::any_of(kMultimodal,
                             [&](const Family& w) { return std::string_view(w.model_type) == f->model_type; });
}

}  // namespace

std::span<const Family> multimodal_families() { return kMultimodal; }

}  // namespace roofline::io::hf
