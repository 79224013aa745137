// gpt_oss and llama4_text (issue 10): the text-model fixtures reproduce published-special-text.tsv
// exactly (the gpt-oss rows are in published-special.tsv, checked with every other fixture in
// hf_import_test.cpp), and each trap in FAMILY-NOTES-special.md has its own test.
#include "io/hf_import.hpp"
#include "io/preset_json.hpp"
#include "io/preset_registry.hpp"

#include "roofline/errors.hpp"
#include "roofline/memory.hpp"
#include "roofline/params.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "io_test_support.hpp"

using namespace roofline;
using namespace roofline::io;
using nlohmann::json;
using roofline_test::hf_fixture;

namespace {

using roofline_test::fixture_json;

ModelConfig import_json(const json& j) { return import_hf_config(j, "config.json"); }
ModelConfig import_fixture(const std::string& preset) { return import_json(fixture_json(preset)); }

const LayerKindParams& kind(const ParamCounts& c, bool moe) {
  for (const LayerKindParams& k : c.layer_kinds) {
    if (k.moe == moe) return k;
  }
  FAIL("no layer kind with moe = " << moe);
  return c.layer_kinds.front();
}

bool has_kind(const ParamCounts& c, bool moe) {
  for (const LayerKindParams& k : c.layer_kinds) {
    if (k.moe == moe) return true;
  }
  return false;
}

std::int64_t part(const LayerKindParams& k, std::string_view id) {
  for (const ParamComponent& p : k.parts) {
    if (p.id == id) return p.count;
  }
  return 0;
}

double kv_per_sequence(const ModelConfig& m, double context) { return kv_bytes_per_sequence(m, context, 2.0).base(); }

constexpr std::int64_t kScoutText = 107'769'861'120;
constexpr std::int64_t kMaverickText = 400'711'848'960;

}  // namespace

TEST_CASE("io: the Llama 4 text-model fixtures reproduce published-special-text.tsv exactly", "[io][hf][special]") {
  const auto rows = roofline_test::read_tsv("published-special-text.tsv");
  REQUIRE(rows.size() == 2);
  for (const auto& row : rows) {
    const std::string preset = row.at("preset");
    INFO(preset << " (" << row.file << ":" << row.line << ")");
    const std::string path = hf_fixture(preset);
    const ModelPreset p = model_from_json(fixture_json(preset), path, preset);
    CHECK(p.input_format == InputFormat::hf_config);
    CHECK(p.config.family == row.at("model_type"));
    const ParamCounts c = count_params(p.config);
    CHECK(c.total == roofline_test::digits_to_int(row.at("expected_params")));
    CHECK(c.active == roofline_test::digits_to_int(row.at("expected_active_params")));
    // The checkpoint holds the text model plus the same vision tower and projector (871,932,416).
    CHECK(roofline_test::digits_to_int(row.at("checkpoint_total")) - c.total == 871'932'416);
  }
}

TEST_CASE("io: gpt_oss: biases on q, k, v, o, the router and every expert", "[io][hf][special][gpt_oss][trap]") {
  const ModelConfig m = import_fixture("gpt-oss-120b");
  CHECK(m.qkv_bias);
  CHECK(m.o_bias);
  CHECK(m.moe.router_bias);
  CHECK(m.mlp_bias);
  const ParamCounts c = count_params(m);
  const LayerKindParams& k = kind(c, true);
  CHECK(part(k, "attn_bias") == 4096 + 512 + 512 + 2880);  // q 64x64, k and v 8x64, o d
  CHECK(part(k, "router_bias") == 128);
  // One expert: gate_up 2880 x 5760 + its 5760 bias, down 2880 x 2880 + its 2880 bias.
  CHECK(part(k, "experts") == 128LL * (3LL * 2880 * 2880 + 2 * 2880 + 2880));
  CHECK(c.total == 116'829'156'672);
  // attention_bias false (a variant, not a published model) drops 36 x 8,000.
  json j = fixture_json("gpt-oss-120b");
  j["attention_bias"] = false;
  CHECK(count_params(import_json(j)).total == 116'829'156'672 - 36LL * 8000);
  // GptOssConfig's default is true: without the key the biases stay.
  j.erase("attention_bias");
  CHECK(count_params(import_json(j)).total == 116'829'156'672);
}

TEST_CASE("io: gpt_oss: one attention sink per query head per layer", "[io][hf][special][gpt_oss][trap]") {
  const ModelConfig m = import_fixture("gpt-oss-20b");
  CHECK(m.attention_sinks);
  const ParamCounts c = count_params(m);
  CHECK(part(kind(c, true), "attn_sinks") == 64);  // self_attn.sinks [64]
  CHECK(c.total == 20'914'757'184);
  ModelConfig without = m;
  without.attention_sinks = false;
  CHECK(c.total - count_params(without).total == 24LL * 64);
  // GptOssConfig maps num_experts onto num_local_experts (attribute_map); absent, the default is 128.
  json j = fixture_json("gpt-oss-20b");
  j.erase("num_local_experts");
  j["num_experts"] = 32;
  CHECK(count_params(import_json(j)).total == 20'914'757'184);
  j.erase("num_experts");
  CHECK(import_json(j).moe.n_experts == 128);
}

TEST_CASE("io: gpt_oss: layer_types alternate a 128-token window and full attention",
          "[io][hf][special][gpt_oss][trap]") {
  const ModelConfig m = import_fixture("gpt-oss-120b");
  CHECK(m.sliding_window == 128);
  CHECK(m.global_every == 2);
  const LayerWindows lw = layer_windows(m);
  CHECK(lw.global_layers == 18);
  CHECK(lw.sliding_layers == 18);
  // KV per token (context under the window): 36 layers x 2 x 8 x 64 x 2 B.
  CHECK(kv_bytes_per_token(m, 2.0).base() == 36.0 * 2048);
  // At 8,192 tokens: 18 full layers hold 8,192 tokens, 18 sliding layers 128.
  CHECK(kv_per_sequence(m, 8192.0) == (18.0 * 8192 + 18.0 * 128) * 2048);
  // Without layer_types GptOssConfig alternates the same way (sliding first).
  json j = fixture_json("gpt-oss-120b");
  j.erase("layer_types");
  CHECK(import_json(j).global_every == 2);
  CHECK(kv_per_sequence(import_json(j), 8192.0) == kv_per_sequence(m, 8192.0));
  // gpt-oss-20b: 24 layers, 12 of each.
  CHECK(kv_per_sequence(import_fixture("gpt-oss-20b"), 131072.0) == (12.0 * 131072 + 12.0 * 128) * 2048);
}

TEST_CASE("io: gpt_oss: the MXFP4 checkpoint stores 4.25 bits per expert weight, not 16",
          "[io][hf][special][gpt_oss][trap][mxfp4]") {
  const ModelConfig m20 = import_fixture("gpt-oss-20b");
  CHECK(m20.expert_storage.value_bits == 4);
  CHECK(m20.expert_storage.scale_bits == 8);
  CHECK(m20.expert_storage.block == 32);
  const ParamCounts c20 = count_params(m20);
  CHECK(c20.expert_matrix_params == 24LL * 32 * 3 * 2880 * 2880);
  // model.safetensors.index.json of openai/gpt-oss-20b: "total_size": 13761264768.
  CHECK(c20.checkpoint_bytes == 13'761'264'768);
  CHECK(c20.checkpoint_bytes < 2 * c20.total);
  // gpt-oss-120b: 65,248,815,744 B = 60.77 GiB (model card: 60.8 GiB).
  const ParamCounts c120 = count_params(import_fixture("gpt-oss-120b"));
  CHECK(c120.checkpoint_bytes == 65'248'815'744);
  // A dequantized (bf16) copy has no quantization_config: every tensor alike, nothing to report.
  json j = fixture_json("gpt-oss-20b");
  j.erase("quantization_config");
  const ParamCounts bf16 = count_params(import_json(j));
  CHECK(bf16.total == c20.total);
  CHECK(bf16.checkpoint_bytes == 0);
}

TEST_CASE("io: gpt_oss: the model card's active count leaves out the embedding", "[io][hf][special][gpt_oss][trap]") {
  // Model card Table 1: 3.61B and 5.13B active; roofline's active includes the 201,088 x 2,880
  // input table (the head is counted in both).
  const ParamCounts c20 = count_params(import_fixture("gpt-oss-20b"));
  CHECK(c20.active == 4'187'440'704);
  CHECK(c20.active - c20.embedding == 3'608'307'264);
  const ParamCounts c120 = count_params(import_fixture("gpt-oss-120b"));
  CHECK(c120.active == 5'711'982'912);
  CHECK(c120.active - c120.embedding == 5'132'849'472);
}

TEST_CASE("io: llama4_text: intermediate_size_mlp is ignored when every layer is MoE (Scout)",
          "[io][hf][special][llama4][trap]") {
  json scout = fixture_json("llama4-scout-17b-16e-text");
  CHECK_FALSE(has_kind(count_params(import_json(scout)), false));
  scout["intermediate_size_mlp"] = 1;
  CHECK(count_params(import_json(scout)).total == kScoutText);
  // Maverick's 24 dense layers use it: 3 x 5120 x 16384 each.
  json maverick = fixture_json("llama4-maverick-17b-128e-text");
  const ParamCounts c = count_params(import_json(maverick));
  CHECK(kind(c, false).n_layers == 24);
  CHECK(part(kind(c, false), "gate_proj") == 5120LL * 16384);
  maverick["intermediate_size_mlp"] = 8192;
  CHECK(count_params(import_json(maverick)).total == kMaverickText - 24LL * 3 * 5120 * 8192);
}

TEST_CASE("io: llama4_text: MoE layers interleave with dense ones and carry one shared expert",
          "[io][hf][special][llama4][trap]") {
  const ModelConfig m = import_fixture("llama4-maverick-17b-128e-text");
  CHECK(m.moe.layer_freq == 2);
  CHECK_FALSE(m.is_moe_layer(0));
  CHECK(m.is_moe_layer(1));
  const ParamCounts c = count_params(m);
  const LayerKindParams& moe = kind(c, true);
  CHECK(moe.n_layers == 24);
  CHECK(part(moe, "shared_experts") == 3LL * 5120 * 8192);
  CHECK(part(moe, "router") == 5120LL * 128);
  CHECK(part(moe, "router_bias") == 0);
  CHECK(c.total == kMaverickText);
  CHECK(c.active == 17'184'691'200);  // top-1 routed + the shared expert
  // moe_layers, when given, overrides interleave_moe_layer_step.
  json j = fixture_json("llama4-maverick-17b-128e-text");
  j["interleave_moe_layer_step"] = 1;
  std::vector<int> odd;
  for (int i = 1; i < 48; i += 2) odd.push_back(i);
  j["moe_layers"] = odd;
  CHECK(count_params(import_json(j)).total == kMaverickText);
  // A layout the engine cannot represent is refused, not approximated.
  j["moe_layers"] = {0, 1, 5};
  CHECK_THROWS_AS(import_json(j), InputError);
  // An empty list: no MoE layer, every layer a dense MLP of intermediate_size_mlp.
  j["moe_layers"] = json::array();
  const ModelConfig dense = import_json(j);
  CHECK_FALSE(dense.moe.enabled());
  CHECK(count_params(dense).layer_kinds.at(0).n_layers == 48);
  // Scout lists all 48 layers: every layer is MoE.
  CHECK(import_fixture("llama4-scout-17b-16e-text").moe.layer_freq == 1);
}

TEST_CASE("io: llama4_text: chunked attention on RoPE layers, a global NoPE layer every fourth",
          "[io][hf][special][llama4][trap][kv]") {
  const ModelConfig m = import_fixture("llama4-scout-17b-16e-text");
  CHECK(m.sliding_window == 8192);
  CHECK(m.global_every == 4);
  const LayerWindows lw = layer_windows(m);
  CHECK(lw.global_layers == 12);
  CHECK(lw.sliding_layers == 36);
  // KV per token: 48 layers x 2 x 8 x 128 x 2 B; chunked layers cache at most 8,192 tokens.
  CHECK(kv_bytes_per_token(m, 2.0).base() == 48.0 * 4096);
  CHECK(kv_per_sequence(m, 4096.0) == 48.0 * 4096 * 4096);
  CHECK(kv_per_sequence(m, 32768.0) == (12.0 * 32768 + 36.0 * 8192) * 4096);
  // Maverick omits no_rope_layers: Llama4TextConfig's interval of 4 gives the same layout.
  const ModelConfig mav = import_fixture("llama4-maverick-17b-128e-text");
  CHECK(mav.global_every == 4);
  CHECK(kv_per_sequence(mav, 32768.0) == kv_per_sequence(m, 32768.0));
  // layer_types (newer saves) says the same in words.
  json j = fixture_json("llama4-scout-17b-16e-text");
  std::vector<std::string> types;
  for (int i = 0; i < 48; ++i) types.emplace_back((i + 1) % 4 == 0 ? "full_attention" : "chunked_attention");
  j["layer_types"] = types;
  CHECK(import_json(j).global_every == 4);
}

TEST_CASE("io: llama4_text: use_qk_norm is an L2 norm without parameters", "[io][hf][special][llama4][trap]") {
  json j = fixture_json("llama4-scout-17b-16e-text");
  REQUIRE(j.at("use_qk_norm") == true);
  const ModelConfig m = import_json(j);
  CHECK(m.qk_norm == QkNorm::none);
  CHECK(part(kind(count_params(m), true), "qk_norm") == 0);
  j["use_qk_norm"] = false;
  CHECK(count_params(import_json(j)).total == kScoutText);
}

TEST_CASE("params: attention sinks and block-scaled expert bytes [OA25 §2.1] [OCP23 §5.3]", "[params][special]") {
  struct Row {
    const char* id;
    std::int64_t rows, cols;
    std::int64_t bytes;
    const char* source;
  };
  const ExpertStorage mxfp4{.value_bits = 4, .scale_bits = 8, .block = 32, .other_bits = 16};
  const Row rows[] = {
      // gpt-oss gate_up_proj_blocks [5760, 90, 16] + scales [5760, 90] per expert: 17 B per 32 weights.
      {"gpt_oss_gate_up", 5760, 2880, 5760LL * 90 * 17, "OA25 §2.1: MXFP4, 4.25 bits per parameter"},
      {"gpt_oss_down", 2880, 2880, 2880LL * 90 * 17, "OA25 §2.1"},
      {"partial_block", 1, 33, 2 * 17, "OCP23 §5.3: a partial block still stores a whole block and its scale"},
  };
  for (const Row& r : rows) {
    INFO(r.id << " [" << r.source << "]");
    CHECK(block_scaled_matrix_bytes(r.rows, r.cols, mxfp4) == r.bytes);
  }
  // checkpoint_bytes: (N - W_e) x 2 + W_e x 4.25 / 8 on the published configs.
  struct Ckpt {
    const char* preset;
    std::int64_t bytes;
  };
  for (const Ckpt& x : {Ckpt{"gpt-oss-20b", 13'761'264'768}, Ckpt{"gpt-oss-120b", 65'248'815'744}}) {
    INFO(x.preset);
    const ModelConfig m = import_fixture(x.preset);
    const ParamCounts c = count_params(m);
    CHECK(checkpoint_bytes(m, c) == x.bytes);
    CHECK(x.bytes == (c.total - c.expert_matrix_params) * 2 + c.expert_matrix_params / 32 * 17);
  }
}

TEST_CASE("validate: expert_storage needs a MoE model and whole bytes", "[params][special][validate]") {
  ModelConfig m = import_fixture("gpt-oss-20b");
  REQUIRE(validate(m).empty());
  ModelConfig odd = m;
  odd.expert_storage.value_bits = 3;  // 32 x 3 bits fill whole bytes, 8-bit scales too: accepted
  CHECK(validate(odd).empty());
  odd.expert_storage.block = 7;  // 7 x 3 = 21 bits: a block does not end on a byte
  REQUIRE(validate(odd).size() == 1);
  CHECK(validate(odd).front() ==
        "expert_storage: a block's values, its scale and the other tensors must fill whole bytes");
  ModelConfig dense = import_fixture("gpt-oss-20b");
  dense.moe = MoeConfig{};
  dense.d_ff = 2880;
  REQUIRE_FALSE(validate(dense).empty());
  CHECK(validate(dense).front() == "expert_storage: block-scaled experts need a MoE model");
}
