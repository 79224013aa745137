// Dense families of 2024-2026 (src/io/hf_families_dense.cpp): one named test per trap listed in
// tests/fixtures/hf/FAMILY-NOTES-dense.md. The fixture totals themselves are checked by the
// fixture loop in hf_import_test.cpp (published-dense.tsv).
#include "io/hf_import.hpp"
#include "io/preset_json.hpp"
#include "io/preset_registry.hpp"

#include "roofline/errors.hpp"
#include "roofline/memory.hpp"
#include "roofline/params.hpp"

#include <catch2/catch.hpp>

#include <string>

#include "io_test_support.hpp"

using namespace roofline;
using namespace roofline::io;
using nlohmann::json;

namespace {

json dense_fixture(const std::string& preset) {
  const std::string path = roofline_test::hf_fixture(preset);
  return parse_json_text(read_file(path), path);
}

ModelConfig dense_import(const json& j) { return import_hf_config(j, "config.json"); }

std::int64_t dense_total(const json& j) { return count_params(dense_import(j)).total; }

/// Parameters of the named component in one layer of the first (here: the only) layer kind.
std::int64_t dense_part(const ModelConfig& m, std::string_view id) {
  const ParamCounts c = count_params(m);
  for (const ParamComponent& p : c.layer_kinds.front().parts) {
    if (p.id == id) return p.count;
  }
  return 0;
}

}  // namespace

TEST_CASE("io: dense fixtures reproduce published-dense.tsv", "[io][hf][dense]") {
  // The same rows run in the fixture loop of hf_import_test.cpp; here each family is named.
  CHECK(dense_total(dense_fixture("granite-3.3-2b")) == 2'533'539'840);
  CHECK(dense_total(dense_fixture("granite-3.3-8b")) == 8'170'864'640);
  CHECK(dense_total(dense_fixture("smollm3-3b")) == 3'075'098'624);
  CHECK(dense_total(dense_fixture("internlm2.5-7b")) == 7'737'708'544);
  CHECK(dense_total(dense_fixture("internlm3-8b")) == 8'804'241'408);
  CHECK(dense_total(dense_fixture("command-r7b")) == 8'028'033'024);
  CHECK(dense_total(dense_fixture("stablelm-2-1.6b")) == 1'644'515'328);
  CHECK(dense_total(dense_fixture("exaone-3.5-7.8b")) == 7'818'448'896);
  CHECK(dense_total(dense_fixture("ernie-4.5-0.3b")) == 360'748'032);
  CHECK(dense_total(dense_fixture("hunyuan-7b")) == 7'504'568'320);
  CHECK(dense_total(dense_fixture("nemotron-mini-4b")) == 4'190'509'056);
  CHECK(dense_total(dense_fixture("ministral-8b")) == 8'019'808'256);
  CHECK(dense_total(dense_fixture("glm-4-9b-0414")) == 9'400'279'040);
  CHECK(dense_total(dense_fixture("mistral-nemo-12b")) == 12'247'782'400);
  CHECK(dense_total(dense_fixture("mistral-small-24b")) == 23'572'403'200);
}

TEST_CASE("io: granite: the four multipliers change no count; untied by class default", "[io][hf][dense][granite]") {
  json j = dense_fixture("granite-3.3-8b");
  const std::int64_t published = dense_total(j);
  for (const char* k : {"embedding_multiplier", "residual_multiplier", "attention_multiplier", "logits_scaling"}) {
    json changed = j;
    changed[k] = 1.0;
    CHECK(dense_total(changed) == published);
    changed.erase(k);
    CHECK(dense_total(changed) == published);
  }
  // The config writes tie_word_embeddings true; GraniteConfig's own default is false.
  REQUIRE(j.at("tie_word_embeddings") == true);
  j.erase("tie_word_embeddings");
  CHECK_FALSE(dense_import(j).tied_embeddings);
  CHECK(dense_total(j) == published + 49'159LL * 4096);
}

TEST_CASE("io: smollm3: NoPE layers change no count; tied by class default; windows on NoPE layers refused",
          "[io][hf][dense][smollm3]") {
  json j = dense_fixture("smollm3-3b");
  const std::int64_t published = dense_total(j);
  json all_rope = j;
  all_rope["no_rope_layers"] = json::array();
  for (int i = 0; i < 36; ++i) all_rope["no_rope_layers"].push_back(1);
  all_rope["no_rope_layer_interval"] = 1000;
  CHECK(dense_total(all_rope) == published);
  CHECK(kv_bytes_per_token(dense_import(all_rope), 2.0).base() == kv_bytes_per_token(dense_import(j), 2.0).base());

  json untied_key = j;
  REQUIRE_FALSE(untied_key.contains("tie_word_embeddings"));  // SmolLM3Config default: true
  CHECK(dense_import(untied_key).tied_embeddings);
  untied_key["tie_word_embeddings"] = false;
  CHECK(dense_total(untied_key) == published + 128'256LL * 2048);

  // Without layer_types, use_sliding_window slides the NoPE layers only: not representable.
  json windowed = j;
  windowed.erase("layer_types");
  windowed["use_sliding_window"] = true;
  windowed["sliding_window"] = 4096;
  REQUIRE_THROWS_AS(dense_import(windowed), InputError);
  windowed["use_sliding_window"] = false;
  CHECK(dense_import(windowed).sliding_window == 0);
}

TEST_CASE("io: internlm2: fused wqkv counts as q, k, v; `bias` defaults to TRUE on wqkv and wo only",
          "[io][hf][dense][internlm2]") {
  json j = dense_fixture("internlm2.5-7b");
  const ModelConfig m = dense_import(j);
  CHECK(dense_part(m, "q_proj") + dense_part(m, "k_proj") + dense_part(m, "v_proj") == 4096LL * (4096 + 2 * 1024));
  CHECK(m.head_dim == 128);
  const std::int64_t published = count_params(m).total;
  REQUIRE(j.at("bias") == false);
  j.erase("bias");  // InternLM2Config(bias=True)
  const ModelConfig biased = dense_import(j);
  CHECK(biased.qkv_bias);
  CHECK(biased.o_bias);
  CHECK_FALSE(biased.mlp_bias);
  CHECK(count_params(biased).total == published + 32LL * ((4096 + 2 * 1024) + 4096));
}

TEST_CASE("io: internlm3: qkv_bias on q/k/v, `bias` on o_proj and all three MLP linears",
          "[io][hf][dense][internlm3]") {
  json j = dense_fixture("internlm3-8b");
  const std::int64_t published = dense_total(j);
  json qkv = j;
  qkv["qkv_bias"] = true;
  CHECK(dense_total(qkv) == published + 48LL * (4096 + 2 * 256));
  json bias = j;
  bias["bias"] = true;
  CHECK(dense_total(bias) == published + 48LL * (4096 + (2 * 10'240 + 4096)));
}

TEST_CASE("io: cohere2: sliding_window_pattern 4 or layer_types; parallel block, one bias-free LayerNorm, tied",
          "[io][hf][dense][cohere2]") {
  json j = dense_fixture("command-r7b");
  const ModelConfig m = dense_import(j);
  CHECK(m.sliding_window == 4096);
  CHECK(m.global_every == 4);
  CHECK(layer_windows(m).global_layers == 8);
  CHECK(layer_windows(m).sliding_layers == 24);
  CHECK(m.parallel_block);
  CHECK(m.norms_per_layer == 1);
  CHECK(m.norm == NormKind::layernorm_nobias);
  CHECK(m.tied_embeddings);  // the config omits the key; Cohere2Config's default is true
  // 2 h_kv d_h b per layer per token: 2 * 8 * 128 * 2 bytes * 32 layers.
  CHECK(kv_bytes_per_token(m, 2.0).base() == 131'072.0);
  // Past the window only the 8 global layers keep growing.
  CHECK(kv_bytes_per_sequence(m, 8192.0, 2.0).base() == 4096.0 * 8 * 8192.0 + 4096.0 * 24 * 4096.0);

  json listed = j;
  listed.erase("sliding_window_pattern");
  listed["layer_types"] = json::array();
  for (int i = 0; i < 32; ++i)
    listed["layer_types"].push_back((i + 1) % 4 != 0 ? "sliding_attention" : "full_attention");
  CHECK(dense_import(listed).global_every == 4);
  CHECK(dense_total(listed) == dense_total(j));
  json no_pattern = j;
  no_pattern.erase("sliding_window_pattern");  // Cohere2Config's fallback is 4
  CHECK(dense_import(no_pattern).global_every == 4);
}

TEST_CASE("io: stablelm: LayerNorm with bias, q/k/v biases only, parallel residual drops a norm",
          "[io][hf][dense][stablelm]") {
  json j = dense_fixture("stablelm-2-1.6b");
  const ModelConfig m = dense_import(j);
  CHECK(m.norm == NormKind::layernorm);
  CHECK(dense_part(m, "norms") == 2 * 2 * 2048);
  CHECK(dense_part(m, "attn_bias") == 3 * 2048);  // o_proj has none
  const std::int64_t published = count_params(m).total;
  json parallel = j;
  parallel["use_parallel_residual"] = true;
  CHECK(dense_total(parallel) == published - 24LL * 2 * 2048);
  json no_bias = j;
  no_bias["use_qkv_bias"] = false;
  CHECK(dense_total(no_bias) == published - 24LL * 3 * 2048);
}

TEST_CASE("io: stablelm: qk_layernorm adds (h + h_kv) d_h gains, no biases, under LayerNorms with bias",
          "[io][hf][dense][stablelm]") {
  json j = dense_fixture("stablelm-2-1.6b");
  const std::int64_t published = dense_total(j);
  j["qk_layernorm"] = true;  // StableLM 2 12B's setting
  const ModelConfig m = dense_import(j);
  CHECK(m.qk_norm == QkNorm::full_width);
  CHECK(m.qk_norm_gain_only);
  CHECK(dense_part(m, "qk_norm") == (32 + 32) * 64);
  CHECK(count_params(m).total == published + 24LL * (32 + 32) * 64);
  // A native preset keeps the field: architecture_to_json writes it, architecture_from_json reads it.
  const json a = architecture_to_json(m);
  REQUIRE(a.at("qk_norm_gain_only") == true);
  ModelConfig back;
  architecture_from_json(a, "test", back);
  CHECK(back.qk_norm_gain_only);
  CHECK_FALSE(architecture_to_json(dense_import(dense_fixture("stablelm-2-1.6b"))).contains("qk_norm_gain_only"));
}

TEST_CASE("io: exaone: num_layers, intermediate_size 4d and a tied head by class default", "[io][hf][dense][exaone]") {
  json j = dense_fixture("exaone-3.5-7.8b");
  REQUIRE(j.contains("num_layers"));
  REQUIRE_FALSE(j.contains("num_hidden_layers"));
  CHECK(dense_import(j).n_layers == 32);
  const std::int64_t published = dense_total(j);
  json tied = j;
  tied.erase("tie_word_embeddings");  // ExaoneConfig(tie_word_embeddings=True)
  CHECK(dense_total(tied) == published - 102'400LL * 4096);
  json no_ff = j;
  no_ff.erase("intermediate_size");
  CHECK(dense_import(no_ff).d_ff == 4 * 4096);
}

TEST_CASE("io: ernie4_5: head_dim defaults to 128 (not d/h = 64); use_bias reaches every linear",
          "[io][hf][dense][ernie4_5]") {
  json j = dense_fixture("ernie-4.5-0.3b");
  const std::int64_t published = dense_total(j);
  json no_hd = j;
  no_hd.erase("head_dim");
  CHECK(dense_import(no_hd).head_dim == 128);
  CHECK(dense_total(no_hd) == published);
  json bias = j;
  bias["use_bias"] = true;
  // q 2048 + k 256 + v 256 + o 1024; gate 3072 + up 3072 + down 1024.
  CHECK(dense_total(bias) == published + 18LL * ((2048 + 256 + 256 + 1024) + (3072 + 3072 + 1024)));
  json tied = j;
  tied.erase("tie_word_embeddings");
  CHECK(dense_total(tied) == published);  // Ernie4_5Config(tie_word_embeddings=True)
}

TEST_CASE("io: hunyuan_v1_dense: q/k norms always built; MLP never biased", "[io][hf][dense][hunyuan]") {
  json j = dense_fixture("hunyuan-7b");
  const ModelConfig m = dense_import(j);
  CHECK(m.qk_norm == QkNorm::per_head);
  CHECK(dense_part(m, "qk_norm") == 2 * 128);
  const std::int64_t published = count_params(m).total;
  json off = j;
  off["use_qk_norm"] = false;  // not read by HunYuanDenseV1Attention
  CHECK(dense_total(off) == published);
  json mlp = j;
  mlp["mlp_bias"] = true;  // HunYuanDenseV1MLP hard-codes bias=False
  CHECK(dense_total(mlp) == published);
  json attn = j;
  attn["attention_bias"] = true;  // LlamaAttention: q, k, v and o
  CHECK(dense_total(attn) == published + 32LL * (4096 + 2 * 1024 + 4096));
}

TEST_CASE("io: nemotron: squared-ReLU MLP without a gate, LayerNorm1P with bias, kv_channels not read",
          "[io][hf][dense][nemotron]") {
  json j = dense_fixture("nemotron-mini-4b");
  const ModelConfig m = dense_import(j);
  CHECK(m.mlp == MlpKind::plain);
  CHECK(dense_part(m, "gate_proj") == 0);
  CHECK(dense_part(m, "up_proj") == 3072LL * 9216);
  CHECK(dense_part(m, "norms") == 2 * 2 * 3072);
  CHECK(count_params(m).final_norm == 2 * 3072);
  // head_dim comes from head_dim or d / h; Megatron's kv_channels is ignored by NemotronConfig.
  json kv = j;
  kv["kv_channels"] = 64;
  CHECK(dense_import(kv).head_dim == 128);
  json hd = j;
  hd["head_dim"] = 64;
  CHECK(dense_import(hd).head_dim == 64);
}

TEST_CASE("io: ministral: the ministral model_type, layer_types, and the published mistral-typed config agree",
          "[io][hf][dense][ministral]") {
  json j = dense_fixture("ministral-8b");
  REQUIRE(j.at("model_type") == "mistral");  // Ministral-8B-Instruct-2410 ships a mistral config
  const std::int64_t published = dense_total(j);
  json typed = j;
  typed["model_type"] = "ministral";
  CHECK(dense_total(typed) == published);
  CHECK(dense_import(typed).family == "ministral");
  CHECK(dense_import(typed).sliding_window == 32768);
  CHECK(dense_import(typed).global_every == 0);
  typed["layer_types"] = json::array();
  for (int i = 0; i < 36; ++i) typed["layer_types"].push_back(i % 2 == 0 ? "sliding_attention" : "full_attention");
  typed["sliding_window"] = 4096;
  const ModelConfig alternating = dense_import(typed);
  CHECK(alternating.global_every == 2);
  CHECK(layer_windows(alternating).global_layers == 18);
  CHECK(count_params(alternating).total == published);
}

TEST_CASE("io: glm4: four RMSNorms per layer; attention_bias defaults to true and skips o_proj; glm has two",
          "[io][hf][dense][glm4]") {
  json j = dense_fixture("glm-4-9b-0414");
  const ModelConfig m = dense_import(j);
  CHECK(m.norms_per_layer == 4);
  CHECK(dense_part(m, "attn_bias") == 4096 + 2 * 256);
  const std::int64_t published = count_params(m).total;
  json absent = j;
  absent.erase("attention_bias");
  CHECK(dense_total(absent) == published);
  json glm = j;
  glm["model_type"] = "glm";  // GLM-4-9B-chat-hf: no post-sublayer norms
  CHECK(dense_total(glm) == published - 40LL * 2 * 4096);
}

TEST_CASE("io: mistral with explicit head_dim: Nemo and Small 3 use 128, not d/h = 160", "[io][hf][dense][mistral]") {
  for (const char* preset : {"mistral-nemo-12b", "mistral-small-24b"}) {
    INFO(preset);
    json j = dense_fixture(preset);
    const ModelConfig m = dense_import(j);
    CHECK(m.head_dim == 128);
    CHECK(dense_part(m, "q_proj") == 5120LL * 32 * 128);
    CHECK(dense_part(m, "o_proj") == 32LL * 128 * 5120);
    CHECK(m.sliding_window == 0);  // sliding_window null: every layer global
    // 2 * 8 kv heads * 128 * 2 bytes * 40 layers
    CHECK(kv_bytes_per_token(m, 2.0).base() == 163'840.0);
    json derived = j;
    derived.erase("head_dim");
    CHECK(dense_import(derived).head_dim == 160);
    CHECK(dense_total(derived) == dense_total(j) + 40LL * 2 * 5120 * 32 * 32 + 40LL * 2 * 5120 * 8 * 32);
  }
}

TEST_CASE("io: exaone4: post-norms only, per-head q/k norms, sliding_window_pattern as an L/G string",
          "[io][hf][dense][exaone4]") {
  // A config shaped like EXAONE-4.0-32B (not a checked published fixture; see the dense notes).
  json j = {{"model_type", "exaone4"},          {"hidden_size", 5120},         {"num_hidden_layers", 64},
            {"num_attention_heads", 40},        {"num_key_value_heads", 8},    {"head_dim", 128},
            {"intermediate_size", 27392},       {"vocab_size", 102400},        {"sliding_window", 4096},
            {"sliding_window_pattern", "LLLG"}, {"tie_word_embeddings", false}};
  const ModelConfig m = dense_import(j);
  CHECK(m.global_every == 4);
  CHECK(m.sliding_window == 4096);
  CHECK(layer_windows(m).global_layers == 16);
  CHECK(dense_part(m, "qk_norm") == 2 * 128);
  CHECK(dense_part(m, "norms") == 2 * 5120);
  // 64 x (q 5120*5120 + k, v 5120*1024 + o 5120*5120 + 256 + 3*5120*27392 + 2*5120) + 2 V d + d
  CHECK(count_params(m).total == 32'003'216'384);
  json as_int = j;
  as_int["sliding_window_pattern"] = 4;  // the integer form, also the class default
  CHECK(dense_import(as_int).global_every == 4);
  as_int.erase("sliding_window_pattern");
  CHECK(dense_import(as_int).global_every == 4);
  json listed = j;
  listed["layer_types"] = json::array();
  for (int i = 0; i < 64; ++i) listed["layer_types"].push_back(i % 2 == 0 ? "sliding_attention" : "full_attention");
  CHECK(dense_import(listed).global_every == 2);  // layer_types wins over the pattern
  json odd = j;
  odd["sliding_window_pattern"] = "LGLG";
  REQUIRE_THROWS_AS(dense_import(odd), InputError);
  REQUIRE_THROWS_WITH(dense_import(odd), Catch::Contains("sliding_window_pattern"));
}

TEST_CASE("io: olmo3: OLMo 2's count plus a 4096 window on three layers of four, by class default",
          "[io][hf][dense][olmo3]") {
  // published-2025.tsv:2-3: the checkpoints' totals, to the parameter.
  const json j = dense_fixture("olmo3-7b");
  CHECK(dense_total(j) == 7'298'011'136);
  CHECK(dense_total(dense_fixture("olmo3-32b")) == 32'233'522'176);
  const ModelConfig m = dense_import(j);
  CHECK(m.sliding_window == 4096);
  CHECK(m.global_every == 4);
  // q_norm and k_norm span the projections (h d_h and h_kv d_h), as in OLMo 2; the 32B's GQA
  // makes k_norm 8 x 128 wide: 5120 + 1024.
  CHECK(dense_part(m, "qk_norm") == 4096 + 4096);
  CHECK(dense_part(dense_import(dense_fixture("olmo3-32b")), "qk_norm") == 5120 + 1024);
  // Olmo3Config(sliding_window=4096, layer_types=None): the config's own layout is the default.
  json defaults = j;
  defaults.erase("layer_types");
  defaults.erase("sliding_window");
  const ModelConfig d = dense_import(defaults);
  CHECK(d.sliding_window == 4096);
  CHECK(d.global_every == 4);
  // KV at 65,536 tokens: 8 full layers hold every token, 24 sliding layers 4,096; 2 h_kv d_h x 2 B.
  const std::int64_t per_layer_token = 2LL * 32 * 128 * 2;
  CHECK(kv_bytes_per_sequence(m, 65'536, 2.0).base() ==
        static_cast<double>(per_layer_token * (8LL * 65'536 + 24LL * 4096)));
  // All-full layer_types is OLMo 2's cache: every layer holds every token.
  json full = j;
  for (auto& t : full["layer_types"]) t = "full_attention";
  CHECK(dense_import(full).sliding_window == 0);
  CHECK(dense_total(full) == 7'298'011'136);
}
