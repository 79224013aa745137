// Multimodal wrappers (gemma3, mistral3, qwen2_vl, qwen2_5_vl, llava, mllama, llama4): the text
// model through its own family, the vision tower and projector counted as their own component.
// Totals: tests/fixtures/hf/published-multimodal.tsv (the fixture loop in hf_import_test.cpp checks
// every row); each trap of FAMILY-NOTES-multimodal.md has its own case here.
#include "io/hf_family.hpp"
#include "io/hf_import.hpp"
#include "io/preset_json.hpp"
#include "io/preset_registry.hpp"

#include "roofline/decode.hpp"
#include "roofline/errors.hpp"
#include "roofline/memory.hpp"
#include "roofline/params.hpp"
#include "roofline/training_memory.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <tuple>
#include <vector>

#include "io_test_support.hpp"

using namespace roofline;
using namespace roofline::io;
using nlohmann::json;
using roofline_test::hf_fixture;

namespace {

using roofline_test::fixture_json;

ModelConfig import_json(const json& j, std::vector<std::string>* notes = nullptr) {
  return import_hf_config(j, "config.json", "", notes);
}

ModelConfig import_fixture(const std::string& preset) { return import_json(fixture_json(preset)); }

/// The vision part of a wrapper fixture, read without its text model (which may not be supported).
VisionConfig vision_of(const std::string& preset, std::int64_t text_width) {
  const json j = fixture_json(preset);
  const hf::Cfg c(j, "config.json", "");
  return hf::read_wrapper_vision(c, j.at("model_type").get<std::string>(), text_width);
}

}  // namespace

TEST_CASE("multimodal: wrappers are accepted and listed as supported", "[io][hf][multimodal]") {
  const std::string s = supported_model_types();
  for (const char* t : {"gemma3", "mistral3", "qwen2_vl", "qwen2_5_vl", "llava", "mllama", "llama4"}) {
    INFO(t);
    CHECK(s.find(std::string(", ") + t) != std::string::npos);
  }
}

TEST_CASE("multimodal: the vision part is in total and weights, not in active or a decode step's reads",
          "[io][hf][multimodal][decode]") {
  const ModelConfig m = import_fixture("gemma3-4b");
  const ParamCounts c = count_params(m);
  CHECK(c.total == 4'300'079'472);                    // published-multimodal.tsv:2
  CHECK(c.vision == 419'816'304);                     // SigLIP 416,866,032 + projector 2,950,272
  CHECK(c.active == 3'880'263'168);                   // the text model
  CHECK(c.non_embedding == c.blocks + c.final_norm);  // no vision in Kaplan's N
  CHECK(c.total - c.vision == c.active);              // dense: active is the text model whole
  // A decode step reads the text model: the tied table is read whole by the head, no vision.
  CHECK(params_read(m, c, 1.0, DecodeBytes::all_weights, MoeDecodeBytes::expected) == 3'880'263'168.0);
  CHECK(params_read(m, c, 1.0, DecodeBytes::touched, MoeDecodeBytes::expected) == 3'880'263'168.0);
  // The weights a device holds include it (first stage, split t ways); its decode reads do not.
  const DeviceParams held = params_per_device(c, ParallelDegrees{});
  CHECK(held.first_stage == 4'300'079'472.0);
  const DeviceParams read =
      params_read_per_device(m, c, ParallelDegrees{}, 1.0, 1.0, DecodeBytes::all_weights, MoeDecodeBytes::expected);
  CHECK(read.first_stage == 3'880'263'168.0);
  CHECK(read.last_stage == 3'880'263'168.0);
  ParallelDegrees tp2;
  tp2.tensor = 2;
  CHECK(
      params_per_device(c, tp2).first_stage -
          params_per_device(count_params(import_json(fixture_json("gemma3-4b").at("text_config"))), tp2).first_stage ==
      419'816'304.0 / 2.0);
}

TEST_CASE("multimodal: gemma3: SigLIP without its head, projector = soft-emb RMSNorm + d_v x d matrix",
          "[io][hf][multimodal][gemma3][trap]") {
  for (const auto& [preset, d, total] :
       std::vector<std::tuple<std::string, std::int64_t, std::int64_t>>{{"gemma3-4b", 2560, 4'300'079'472},
                                                                        {"gemma3-12b", 3840, 12'187'325'040},
                                                                        {"gemma3-27b", 5376, 27'432'406'640}}) {
    INFO(preset);
    const ModelConfig m = import_fixture(preset);
    CHECK(m.family == "gemma3");
    CHECK(m.d_model == d);
    CHECK(m.vision.tower == VisionTower::siglip);
    const ParamCounts c = count_params(m);
    // patch conv with bias 588 x 1152 + 1152, 4096 positions, 27 layers of 15,239,504, post-LN 2304.
    CHECK(c.vision_tower == 416'866'032);
    CHECK(c.vision_projector == 1152 + 1152 * d);  // mm_soft_emb_norm + mm_input_projection_weight
    CHECK(c.total == total);
  }
  // SiglipVisionConfig's vision_use_head defaults to true; the pooling head is refused, not guessed.
  json j = fixture_json("gemma3-4b");
  j["vision_config"].erase("vision_use_head");
  REQUIRE_THROWS_AS(import_json(j), InputError);
  REQUIRE_THROWS_WITH(import_json(j), Catch::Contains("/vision_config/vision_use_head"));
}

TEST_CASE("multimodal: mistral3: Pixtral tower (RMSNorms, gated MLP, no biases) and a patch-merger projector",
          "[io][hf][multimodal][mistral3][trap]") {
  const ModelConfig m = import_fixture("mistral-small-3.1-24b");
  CHECK(m.family == "mistral3");
  CHECK(m.head_dim == 128);      // explicit head_dim: 32 x 128 = 4096 != 5120
  CHECK(m.sliding_window == 0);  // sliding_window null
  const ParamCounts c = count_params(m);
  // conv 602,112 + ln_pre 1,024 + 24 x (4 x 1024² + 3 x 1024 x 4096 + 2 x 1024).
  CHECK(c.vision_tower == 403'305'472);
  // norm 1,024 + merger 4 x 1024 x 1024 + linear_1 1024 x 5120 + linear_2 5120², no biases.
  CHECK(c.vision_projector == 35'652'608);
  CHECK(c.total == 24'011'361'280);
  CHECK(c.active == 23'572'403'200);
  // multimodal_projector_bias adds the two biases; a list of feature layers widens linear_1.
  json j = fixture_json("mistral-small-3.1-24b");
  j["multimodal_projector_bias"] = true;
  CHECK(count_params(import_json(j)).vision_projector == 35'652'608 + 2 * 5120);
  j["multimodal_projector_bias"] = false;
  j["vision_feature_layer"] = {-1, -2};
  CHECK(count_params(import_json(j)).vision_projector == 35'652'608 + 1024 * 5120);
  // Without text_config the class builds Mistral Small 3.1's text model; a text_config that omits
  // a key gets MistralConfig's default instead (vocab 32000), not the wrapper's.
  json bare = fixture_json("mistral-small-3.1-24b");
  bare.erase("text_config");
  CHECK(count_params(import_json(bare)).total == 24'011'361'280);
  json partial = fixture_json("mistral-small-3.1-24b");
  partial["text_config"].erase("vocab_size");
  CHECK(import_json(partial).vocab_size == 32000);
}

TEST_CASE("multimodal: qwen2_vl: text keys at the top level, Conv3d patch embed without bias, LayerNorm merger",
          "[io][hf][multimodal][qwen2_vl][trap]") {
  const ModelConfig m = import_fixture("qwen2-vl-7b");
  CHECK(m.family == "qwen2_vl");
  CHECK(m.qkv_bias);  // the text model is a Qwen2: q/k/v biases
  CHECK_FALSE(m.o_bias);
  CHECK(m.vision.d == 1280);        // embed_dim is the tower width...
  CHECK(m.vision.out_dim == 3584);  // ...hidden_size the merger's output
  CHECK(m.vision.d_ff == 5120);     // mlp_ratio 4
  const ParamCounts c = count_params(m);
  // Conv3d 3 x 2 x 14 x 14 x 1280 = 1,505,280; 32 blocks of 19,677,440; merger 44,575,744.
  CHECK(c.vision_tower == 1'505'280 + 32 * 19'677'440 + 44'575'744);
  CHECK(c.vision_projector == 0);  // the merger is part of the tower (visual.merger)
  CHECK(c.total == 8'291'375'616);
  CHECK(c.active == 7'615'616'512);  // = qwen2.5-7b
}

TEST_CASE("multimodal: qwen2_5_vl: RMSNorms and a gated MLP with biases; nested text_config reads the same",
          "[io][hf][multimodal][qwen2_5_vl][trap]") {
  const json top = fixture_json("qwen2.5-vl-7b");
  const ParamCounts c = count_params(import_json(top));
  CHECK(c.vision == 676'550'144);  // the `visual` module's parameter count
  CHECK(c.total == 8'292'166'656);
  // Newer saves nest the text model as text_config (model_type qwen2_5_vl_text): same count.
  json nested = {{"model_type", "qwen2_5_vl"}, {"vision_config", top.at("vision_config")}};
  json text = {{"model_type", "qwen2_5_vl_text"}};
  for (const char* k : {"hidden_size", "intermediate_size", "num_attention_heads", "num_hidden_layers",
                        "num_key_value_heads", "vocab_size", "tie_word_embeddings", "max_position_embeddings"}) {
    text[k] = top.at(k);
  }
  nested["text_config"] = text;
  CHECK(count_params(import_json(nested)).total == 8'292'166'656);
  // The text class's defaults fill what text_config omits (Qwen2_5_VLTextConfig: the 72B sizes).
  nested["text_config"] = {{"model_type", "qwen2_5_vl_text"}};
  const ModelConfig d = import_json(nested);
  CHECK(d.d_model == 8192);
  CHECK(d.n_layers == 80);
  CHECK(d.vocab_size == 152064);
}

TEST_CASE("multimodal: llava: text_config omits the sizes (LlamaConfig defaults); CLIP keeps its unused last layer",
          "[io][hf][multimodal][llava][trap]") {
  const ModelConfig m = import_fixture("llava-1.5-7b");
  CHECK(m.family == "llava");
  CHECK(m.d_model == 4096);      // LlamaConfig default
  CHECK(m.n_layers == 32);       // LlamaConfig default
  CHECK(m.d_ff == 11008);        // LlamaConfig default
  CHECK(m.vocab_size == 32064);  // the wrapper's text_config: 32000 + image and pad tokens, padded
  CHECK(m.max_seq_len == 4096);
  const ParamCounts c = count_params(m);
  // vision_feature_layer -2 reads layer 23 of 24, but the checkpoint stores all 24 and post_layernorm.
  CHECK(m.vision.n_layers == 24);
  CHECK(c.vision_tower == 303'507'456);
  CHECK(c.vision_projector == 1024 * 4096 + 4096 + 4096 * 4096 + 4096);
  CHECK(c.total == 7'063'427'072);
  CHECK(c.active == 6'738'939'904);
}

TEST_CASE("multimodal: mllama: cross-attention layers are a text-side layer kind without per-token KV",
          "[io][hf][multimodal][mllama][trap]") {
  const ModelConfig m = import_fixture("llama3.2-11b-vision");
  CHECK(m.family == "mllama");
  CHECK(m.n_layers == 32);               // self-attention layers: 40 - 8
  CHECK(m.cross_attention_layers == 8);  // cross_attention_layers [3, 8, ..., 38]
  CHECK(m.extra_embedding_rows == 8);    // embed_tokens holds vocab_size + 8 rows
  const ParamCounts c = count_params(m);
  CHECK(c.embedding == 128'264 * 4096);
  CHECK(c.lm_head == 128'256 * 4096);
  // Each cross layer: the dense layer 218,112,000 + q_norm/k_norm 2 x 128 + two scalar gates.
  CHECK(c.cross_attention == 8 * 218'112'258);
  CHECK(c.active == 9'775'192'080);
  // Vision: 19 scalar gates (position, 2 tile embeddings, 8 global layers x 2) make the tower odd.
  CHECK(c.vision_tower == 863'567'379);
  CHECK(c.vision_projector == 7680 * 4096 + 4096);
  CHECK(c.total == 10'670'220'835);
  // KV per token: the 32 self-attention layers only (the cross layers attend to the image).
  CHECK(kv_bytes_per_token(m, 2.0).base() == 32.0 * 2 * 8 * 128 * 2);
}

TEST_CASE("multimodal: llama4: the vision model and projector counted alone; the text model is llama4_text's",
          "[io][hf][multimodal][llama4][trap]") {
  for (const std::string preset : {"llama4-scout", "llama4-maverick"}) {
    INFO(preset);
    const VisionConfig v = vision_of(preset, 5120);
    REQUIRE(v.tower == VisionTower::llama4);
    const VisionParams p = count_vision(v);
    // unfold linear 588 x 1408, class 1408, 577 positions, 2 LayerNorms, 34 layers of 23,807,872,
    // adapter fc1 5632 x 4096 + fc2 4096 x 4096 (no biases).
    CHECK(p.tower == 850'960'896);
    CHECK(p.projector == 4096 * 5120);  // linear_1 without bias
  }
  // The wrapper hands text_config to llama4_text; the vision part is the same in Scout and
  // Maverick, and their totals are the published checkpoints' (published-multimodal.tsv:9-10, also
  // in the fixture loop of hf_import_test.cpp and the presets_test table).
  const auto rows = roofline_test::read_tsv("published-multimodal.tsv");
  int llama4 = 0;
  for (const auto& row : rows) {
    if (row.at("model_type") != "llama4") continue;
    INFO(row.at("preset"));
    const ParamCounts c = count_params(import_fixture(row.at("preset")));
    CHECK(c.vision == 871'932'416);
    CHECK(c.total == roofline_test::digits_to_int(row.at("expected_params")));
    CHECK(c.active == roofline_test::digits_to_int(row.at("expected_active_params")));
    // What is left is the text model, as llama4_text counts its text_config alone
    // (published-special-text.tsv: 107,769,861,120 and 400,711,848,960).
    CHECK(c.total - c.vision == (row.at("preset") == "llama4-scout" ? 107'769'861'120 : 400'711'848'960));
    ++llama4;
  }
  CHECK(llama4 == 2);
}

TEST_CASE("multimodal: an unknown vision tower is named as not counted; the text model still imports",
          "[io][hf][multimodal][trap]") {
  json j = fixture_json("llava-1.5-7b");
  j["vision_config"]["model_type"] = "dinov2";
  std::vector<std::string> notes;
  const ModelConfig m = import_json(j, &notes);
  CHECK_FALSE(m.vision.counted());
  CHECK(m.vision.uncounted == "dinov2");
  const ParamCounts c = count_params(m);
  CHECK(c.vision == 0);
  CHECK(c.total == 6'738'939'904);
  bool named = false;
  for (const std::string& n : notes) named = named || n.find("vision tower \"dinov2\"") != std::string::npos;
  CHECK(named);
}

TEST_CASE("multimodal: a wrapper's text_config that is itself a wrapper, or unknown, is refused by name",
          "[io][hf][multimodal][refused]") {
  const json nested = {{"model_type", "llava"}, {"text_config", {{"model_type", "gemma3"}}}};
  REQUIRE_THROWS_WITH(import_json(nested),
                      "config.json: /text_config/model_type: the text model \"gemma3\" of this wrapper is not a "
                      "supported model_type");
  const json unknown = {{"model_type", "gemma3"}, {"text_config", {{"model_type", "foo"}}}};
  REQUIRE_THROWS_WITH(import_json(unknown), Catch::Contains("the text model \"foo\""));
  // Wrappers roofline does not read are still refused with the text_config hint.
  const json next = {{"model_type", "llava_next"}, {"text_config", {{"model_type", "llama"}}}};
  REQUIRE_THROWS_WITH(import_json(next), Catch::Contains("\"llava_next\" is a multimodal wrapper"));
}

TEST_CASE("multimodal: count_vision per tower kind, from the reference implementations' shapes", "[engine][vision]") {
  // Table-driven: each row's tower built by hand, its count from the tensor shapes of the family's
  // modeling file (HFT), written out.
  struct Row {
    const char* what;
    VisionConfig v;
    std::int64_t tower;
    std::int64_t projector;
  };
  auto base = [](VisionTower t, VisionProjector p, std::int64_t layers, std::int64_t d, std::int64_t f,
                 std::int64_t patch, std::int64_t image) {
    VisionConfig v;
    v.tower = t;
    v.projector = p;
    v.n_layers = layers;
    v.d = d;
    v.d_ff = f;
    v.patch = patch;
    v.image_size = image;
    v.out_dim = 8;
    return v;
  };
  // A 1-layer CLIP of width 4, MLP 8, 2x2 patches of a 4x4 image (4 patches):
  // conv 3*4*4 = 48, class 4, positions 5*4 = 20, pre+post LN 16, layer 4*(16+4) + 2*4*8 + 8 + 4 + 16 = 172.
  const std::vector<Row> rows = {
      {"clip", base(VisionTower::clip, VisionProjector::llava, 1, 4, 8, 2, 4), 48 + 4 + 20 + 16 + 172,
       4 * 8 + 8 + 8 * 8 + 8},
      // SigLIP: conv with bias 48 + 4, positions 4*4 = 16, layer 172, post LN 8; gemma3 projector 4 + 4*8.
      {"siglip", base(VisionTower::siglip, VisionProjector::gemma3, 1, 4, 8, 2, 4), 52 + 16 + 172 + 8, 4 + 32},
      // Pixtral: conv 48, ln_pre 4, layer 4*16 + 3*4*8 + 8 = 168; mistral3 projector (merge 1, no bias):
      // norm 4 + merger 16 + linear_1 4*8 + linear_2 64.
      {"pixtral",
       [&] {
         VisionConfig v = base(VisionTower::pixtral, VisionProjector::mistral3, 1, 4, 8, 2, 4);
         v.projector_bias = false;
         return v;
       }(),
       48 + 4 + 168, 4 + 16 + 32 + 64},
      // Qwen2-VL (t = 2, merge 1): Conv3d 3*2*4*4 = 96, layer 4d + 4(d²+d) + 2df + f + d = 16 + 80 + 76,
      // merger LayerNorm 8 + 4² + 4 + 4*8 + 8 = 68 (part of the tower, no projector).
      {"qwen2_vl",
       [&] {
         VisionConfig v = base(VisionTower::qwen2_vl, VisionProjector::none, 1, 4, 8, 2, 4);
         v.temporal_patch = 2;
         return v;
       }(),
       96 + 172 + 68, 0},
      // Qwen2.5-VL: RMSNorms 2d, gated MLP with biases 3df + 2f + d = 116, merger RMSNorm 4 + 60.
      {"qwen2_5_vl",
       [&] {
         VisionConfig v = base(VisionTower::qwen2_5_vl, VisionProjector::none, 1, 4, 8, 2, 4);
         v.temporal_patch = 2;
         return v;
       }(),
       96 + 8 + 80 + 116 + 64, 0},
      // Qwen3-VL (t = 2, merge 2, 3 positions, 2 deepstack mergers): Qwen2-VL's conv 96 + layer 172,
      // conv bias 4, positions 3*4 = 12, merger LayerNorm 8 + 16² + 16 + 16*8 + 8 = 416, each
      // deepstack merger the same MLP with a LayerNorm of m²d = 16: 32 + 408 = 440.
      {"qwen3_vl",
       [&] {
         VisionConfig v = base(VisionTower::qwen3_vl, VisionProjector::none, 1, 4, 8, 2, 4);
         v.temporal_patch = 2;
         v.merge = 2;
         v.position_embeddings = 3;
         v.deepstack_mergers = 2;
         return v;
       }(),
       96 + 172 + 4 + 12 + 416 + 2 * 440, 0},
      // Mllama, T = 2 tiles, R = 3 rows: conv 48 + class 4, gated positions 1 + 5*4, tile positions
      // 3*2*5*4 = 120, pre/post tile 2 (3*2*4 + 1) = 50, LayerNorms 16, a local layer 64 + 76 + 16 = 156,
      // a global one 158; projector 6*8 + 8.
      {"mllama",
       [&] {
         VisionConfig v = base(VisionTower::mllama, VisionProjector::mllama, 1, 4, 8, 2, 4);
         v.global_layers = 1;
         v.max_tiles = 2;
         v.aspect_ratios = 3;
         v.output_dim = 6;
         return v;
       }(),
       52 + 21 + 120 + 50 + 16 + 156 + 158, 6 * 8 + 8},
      // Llama 4: unfold 48, class 4, positions 20, LayerNorms 16, layer 172, adapter 8*6 + 5*5;
      // projector 5*8 without bias.
      {"llama4",
       [&] {
         VisionConfig v = base(VisionTower::llama4, VisionProjector::llama4, 1, 4, 8, 2, 4);
         v.adapter_in = 6;
         v.adapter_out = 5;
         v.output_dim = 5;
         return v;
       }(),
       48 + 4 + 20 + 16 + 172 + 48 + 25, 40},
  };
  for (const Row& r : rows) {
    INFO(r.what);
    const VisionParams p = count_vision(r.v);
    CHECK(p.tower == r.tower);
    CHECK(p.projector == r.projector);
  }
  CHECK(count_vision(VisionConfig{}).tower == 0);
  // validate() reports a vision field out of range by its name, like the text model's.
  json j = fixture_json("gemma3-4b");
  j["vision_config"]["hidden_size"] = 0;
  REQUIRE_THROWS_WITH(import_json(j), "config.json: vision.d: 0 is out of range; allowed 1 to 16777216");
}

TEST_CASE("multimodal: qwen3_5 and qwen3_5_moe: Qwen3-Next's stack, Qwen3-VL's tower without deepstack, MTP excluded",
          "[io][hf][multimodal][qwen3_5]") {
  struct Row {
    const char* preset;
    std::int64_t text;    // language model, embedding and head included
    std::int64_t vision;  // tower with its merger
    std::int64_t mtp;
    std::int64_t stored;  // the safetensors total (published-2025.tsv:11-13)
  };
  for (const Row& r : {Row{"qwen3.5-27b", 26'895'998'464, 460'730'096, 424'699'392, 27'781'427'952},
                       Row{"qwen3.5-35b-a3b", 34'660'610'688, 446'571'248, 844'640'768, 35'951'822'704},
                       Row{"qwen3.5-397b-a17b", 396'346'350'336, 456'010'480, 6'595'568'128, 403'397'928'944}}) {
    INFO(r.preset);
    const ModelConfig m = import_fixture(r.preset);
    const ParamCounts c = count_params(m);
    CHECK(m.vision.tower == VisionTower::qwen3_vl);
    CHECK(c.vision == r.vision);
    CHECK(c.total == r.text + r.vision);
    CHECK(c.mtp_excluded == r.mtp);
    CHECK(c.total + c.mtp_excluded == r.stored);
    // Every fourth layer is full attention (with a KV cache), the rest gated DeltaNet.
    CHECK(m.attention_layers() * 4 == m.n_layers);
    CHECK(m.hybrid.attn_output_gate);
  }
  // The 397B's split is published: language 396,346,350,336, vision 456,010,480, MTP 6,595,568,128.
  // Its tower: patch conv 1152 x 3 x 2 x 16 x 16 + bias, positions 2304 x 1152, 27 blocks of
  // 15,239,504, merger LayerNorm 2 x 1152 + 4608^2 + 4608 + 4608 x 4096 + 4096.
  const std::int64_t tower =
      1152LL * 1536 + 1152 + 2304LL * 1152 + 27LL * 15'239'504 + 2 * 1152 + 4608LL * 4608 + 4608 + 4608LL * 4096 + 4096;
  CHECK(tower == 456'010'480);
  // The text model alone (Qwen3_5MoeForCausalLM's) is the language count.
  json j = fixture_json("qwen3.5-397b-a17b");
  CHECK(count_params(import_json(j.at("text_config"))).total == 396'346'350'336);
  // Early checkpoints name the tower "qwen3_5"; Qwen3_5Config rewrites it to qwen3_5_vision.
  json renamed = j;
  renamed["vision_config"]["model_type"] = "qwen3_5_vision";
  CHECK(count_params(import_json(renamed)).vision == 456'010'480);
  // Qwen3-VL's deepstack mergers are refused, not counted as nothing.
  json deepstack = j;
  deepstack["vision_config"]["deepstack_visual_indexes"] = json::array({8, 16, 24});
  REQUIRE_THROWS_WITH(import_json(deepstack), Catch::Contains("deepstack_visual_indexes"));
  // The dense text class has no experts; MTP modules with their own embeddings are refused.
  json dense = fixture_json("qwen3.5-27b");
  dense["text_config"]["num_experts"] = 8;
  REQUIRE_THROWS_WITH(import_json(dense), Catch::Contains("num_experts"));
  json dedicated = fixture_json("qwen3.5-27b");
  dedicated["text_config"]["mtp_use_dedicated_embeddings"] = true;
  REQUIRE_THROWS_WITH(import_json(dedicated), Catch::Contains("mtp_use_dedicated_embeddings"));
}

TEST_CASE("multimodal: qwen3_vl and qwen3_vl_moe: Qwen3's text models and a tower with deepstack mergers",
          "[io][hf][multimodal][qwen3_vl]") {
  struct Row {
    const char* preset;
    std::int64_t text;    // language model, embedding and head included
    std::int64_t vision;  // tower, merger and deepstack mergers
    std::int64_t kv;      // bytes per token at bf16: 2 L h_kv d_h 2
  };
  // published-2025.tsv:18-20: the checkpoints' totals, to the parameter.
  for (const Row& r : {Row{"qwen3-vl-8b", 8'190'735'360, 576'388'336, 147'456},
                       Row{"qwen3-vl-30b-a3b", 30'532'122'624, 538'631'408, 98'304},
                       Row{"qwen3-vl-235b-a22b", 235'093'634'560, 576'388'336, 192'512}}) {
    INFO(r.preset);
    const ModelConfig m = import_fixture(r.preset);
    const ParamCounts c = count_params(m);
    CHECK(m.vision.tower == VisionTower::qwen3_vl);
    CHECK(m.vision.deepstack_mergers == 3);
    CHECK(c.vision == r.vision);
    CHECK(c.total == r.text + r.vision);
    CHECK(!m.tied_embeddings);
    CHECK(kv_bytes_per_token(m, 2.0).base() == static_cast<double>(r.kv));
  }
  // The 8B's tower as its checkpoint lists it: patch conv 1,770,624, positions 2,654,208, 27 blocks
  // 411,466,608, merger 40,119,040 (LayerNorm of 1152 before the merge), 3 deepstack mergers of
  // 40,125,952 each (their LayerNorm of 4608 after it).
  const std::int64_t merger = 2 * 1152 + 4608LL * 4608 + 4608 + 4608LL * 4096 + 4096;
  const std::int64_t deepstack = 2 * 4608 + 4608LL * 4608 + 4608 + 4608LL * 4096 + 4096;
  CHECK(merger == 40'119'040);
  CHECK(3 * deepstack == 120'377'856);
  CHECK(1'770'624 + 2'654'208 + 411'466'608 + merger + 3 * deepstack == 576'388'336);
  // The text model alone is Qwen3's: Qwen3-30B-A3B's HF total.
  json j = fixture_json("qwen3-vl-30b-a3b");
  json text = j.at("text_config");
  text["model_type"] = "qwen3_moe";
  CHECK(count_params(import_json(text)).total == 30'532'122'624);
  // The deepstack list sets the mergers; one index past the tower is refused.
  json fewer = j;
  fewer["vision_config"]["deepstack_visual_indexes"] = json::array({8});
  CHECK(count_params(import_json(fewer)).vision ==
        538'631'408 - 2 * (2 * 4608 + 4608LL * 4608 + 4608 + 4608LL * 2048 + 2048));
  json past = j;
  past["vision_config"]["deepstack_visual_indexes"] = json::array({8, 27});
  REQUIRE_THROWS_WITH(import_json(past), Catch::Contains("deepstack_visual_indexes"));
  // The v5 tower names map to the same tower.
  json v5 = j;
  v5["vision_config"]["model_type"] = "qwen3_vl_moe_vision";
  CHECK(count_params(import_json(v5)).vision == 538'631'408);
}

TEST_CASE("multimodal: kimi_k25: Kimi K2's text model, a MoonViT tower and its patch-merger projector [MS26]",
          "[io][hf][multimodal][kimi]") {
  // published-2025.tsv:17: text 1,026,408,232,448 + MoonViT 416,866,032 + projector 54,277,888.
  const ModelConfig m = import_fixture("kimi-k2.5");
  CHECK(m.vision.tower == VisionTower::moonvit);
  CHECK(m.vision.projector == VisionProjector::kimi);
  const ParamCounts c = count_params(m);
  CHECK(c.vision_tower == 416'866'032);
  CHECK(c.vision_projector == 54'277'888);
  CHECK(c.total == 1'026'879'376'368);
  CHECK(c.total - c.vision == 1'026'408'232'448);  // Kimi K2's text model, as kimi-k2 counts it
  // The tower by hand: patch conv 1152 x 3 x 14 x 14 + bias, a 64 x 64 x 1152 position table, 27
  // blocks of 15,239,504 (two LayerNorms, biased qkv 3456 x 1152 and output, fc 4304 both ways
  // with biases), a final LayerNorm; the projector LayerNorm 2 x 1152 + 4608^2 + 4608 + 4608 x
  // 7168 + 7168.
  CHECK(1152LL * 3 * 14 * 14 + 1152 + 64LL * 64 * 1152 + 27LL * 15'239'504 + 2 * 1152 == 416'866'032);
  CHECK(2 * 1152 + 4608LL * 4608 + 4608 + 4608LL * 7168 + 7168 == 54'277'888);
  // The checkpoint's stored elements (a public listing of its tensors): the routed experts packed
  // 8 int4 an int32, one bf16 scale per group of 32, a weight_shape [2] per packed tensor.
  std::int64_t experts = 0;
  for (const LayerKindParams& k : c.layer_kinds) {
    for (const ParamComponent& p : k.parts) {
      if (p.id == "experts") experts += p.count * k.n_layers;
    }
  }
  CHECK(experts == 384LL * 3 * 7168 * 2048 * 60);
  CHECK((c.total - experts) + experts / 8 + experts / 32 + 2 * 384 * 3 * 60 == 170'738'182'128);
  // Another projector type is refused, not counted as the patch merger.
  json j = fixture_json("kimi-k2.5");
  j["vision_config"]["mm_projector_type"] = "mlp";
  REQUIRE_THROWS_WITH(import_json(j), Catch::Contains("mm_projector_type"));
}

TEST_CASE("multimodal: gemma4: global layers of their own head shape, K = V, the MoE beside the dense MLP",
          "[io][hf][multimodal][gemma4]") {
  struct Row {
    const char* preset;
    std::int64_t sliding_layer;  // per layer, as the checkpoint's tensors sum
    std::int64_t global_layer;
    std::int64_t text;       // language model, embedding included (tied head)
    std::int64_t projector;  // embed_vision.embedding_projection: 1152 x d
    std::int64_t kv;         // bytes per token at bf16: (L_s 2 h_kv d_h + L_g 2 h_kv,g d_h,g) 2
  };
  // published-2025.tsv:22-23: the HF safetensors totals, to the parameter.
  for (const Row& r : {Row{"gemma-4-31b", 478'959'105, 534'009'857, 30'697'345'340, 6'193'152,
                           (50 * 2 * 16 * 256 + 10 * 2 * 4 * 512) * 2},
                       Row{"gemma-4-26b-a4b", 814'094'977, 828'513'409, 25'233'141'790, 3'244'032,
                           (25 * 2 * 8 * 256 + 5 * 2 * 2 * 512) * 2}}) {
    INFO(r.preset);
    const ModelConfig m = import_fixture(r.preset);
    const ParamCounts c = count_params(m);
    REQUIRE(c.layer_kinds.size() == 2);
    CHECK(!c.layer_kinds[0].global_shape);
    CHECK(c.layer_kinds[0].total == r.sliding_layer);
    CHECK(c.layer_kinds[1].global_shape);
    CHECK(c.layer_kinds[1].total == r.global_layer);
    CHECK(c.vision_tower == 569'550'384);  // the tower alone, as a public extraction of it verifies
    CHECK(c.vision_projector == r.projector);
    CHECK(c.total == r.text + 569'550'384 + r.projector);
    CHECK(kv_bytes_per_token(m, 2.0).base() == static_cast<double>(r.kv));
  }
  // The 31B's global layer by tensor: q 5376 x 32 x 512 and o back, q_norm and k_norm of 512, k
  // 5376 x 4 x 512 and no v_proj, the GeGLU MLP 3 x 5376 x 21504, four norms, the layer scalar.
  CHECK(2 * 5376LL * 32 * 512 + 2 * 512 + 5376LL * 4 * 512 + 3 * 5376LL * 21504 + 4 * 5376 + 1 == 534'009'857);
  // The 26B's MoE beside its dense MLP: router 2816 x 128, its scales 2816 + 128, the experts
  // 128 x 3 x 2816 x 704, and three more norms; the sliding layer's attention is the rest.
  const std::int64_t moe = 2816LL * 128 + 2816 + 128 + 128LL * 3 * 2816 * 704 + 3 * 2816;
  CHECK(2 * 2816LL * 16 * 256 + 2 * 256 + 2 * 2816LL * 8 * 256 + 3 * 2816LL * 2112 + 4 * 2816 + 1 + moe == 814'094'977);
  // The cache holds the sliding layers' last 1024 tokens and every global layer's: at 32,768 tokens
  // (50 x 8,192 x 1,024 + 10 x 4,096 x 32,768) x 2 bytes.
  const ModelConfig m31 = import_fixture("gemma-4-31b");
  CHECK(kv_bytes_per_sequence(m31, 32768.0, 2.0).base() == (50.0 * 8192 * 1024 + 10.0 * 4096 * 32768) * 2.0);
  // Without K = V the global layers have a v_proj of their own and num_key_value_heads KV heads.
  json separate = fixture_json("gemma-4-31b");
  separate["text_config"]["attention_k_eq_v"] = false;
  const ModelConfig sv = import_json(separate);
  CHECK(count_params(sv).total == 31'273'088'876 + 10 * (5376LL * 16 * 512 * 2 - 5376LL * 4 * 512));
  CHECK(kv_bytes_per_token(sv, 2.0).base() == (50.0 * 2 * 16 * 256 + 10.0 * 2 * 16 * 512) * 2.0);
  // The E2B/E4B features and the audio tower are refused, not guessed.
  for (const auto& [key, value] :
       {std::pair<const char*, json>{"hidden_size_per_layer_input", 256}, {"num_kv_shared_layers", 18}}) {
    json j = fixture_json("gemma-4-31b");
    j["text_config"][key] = value;
    REQUIRE_THROWS_WITH(import_json(j), Catch::Contains(key));
  }
  json ple_default = fixture_json("gemma-4-31b");
  ple_default["text_config"].erase("hidden_size_per_layer_input");  // Gemma4TextConfig's default: 256
  REQUIRE_THROWS_WITH(import_json(ple_default), Catch::Contains("hidden_size_per_layer_input"));
  json audio = fixture_json("gemma-4-31b");
  audio["audio_config"] = {{"model_type", "gemma4_audio"}};
  REQUIRE_THROWS_WITH(import_json(audio), Catch::Contains("audio_config"));
  json clipped = fixture_json("gemma-4-31b");
  clipped["vision_config"]["use_clipped_linears"] = true;
  REQUIRE_THROWS_WITH(import_json(clipped), Catch::Contains("use_clipped_linears"));
  // A default layer pattern whose forced-global last layer breaks the 5:1 period is refused.
  json odd = fixture_json("gemma-4-31b");
  odd["text_config"].erase("layer_types");
  odd["text_config"]["num_hidden_layers"] = 62;
  REQUIRE_THROWS_WITH(import_json(odd), Catch::Contains("layer_types"));
}
