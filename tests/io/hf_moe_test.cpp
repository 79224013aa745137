// The mixture-of-experts families of hf_families_moe.cpp: one named test per trap listed in
// tests/fixtures/hf/FAMILY-NOTES-moe.md. Totals come from published-moe.tsv (the fixture loop in
// hf_import_test.cpp checks every row); here each trap is isolated so a wrong rule fails by name.
#include "io/hf_import.hpp"
#include "io/preset_json.hpp"
#include "io/preset_registry.hpp"

#include "roofline/errors.hpp"
#include "roofline/layer_stack.hpp"
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

json fixture(const std::string& preset) {
  const std::string path = hf_fixture(preset);
  return parse_json_text(read_file(path), path);
}

ModelConfig import_json(const json& j) { return import_hf_config(j, "config.json"); }

std::int64_t part(const LayerKindParams& k, std::string_view id) {
  for (const ParamComponent& p : k.parts) {
    if (p.id == id) return p.count;
  }
  return 0;
}

const LayerKindParams& moe_kind(const ParamCounts& c) {
  for (const LayerKindParams& k : c.layer_kinds) {
    if (k.moe) return k;
  }
  FAIL("no MoE layer kind");
  return c.layer_kinds.front();
}

}  // namespace

TEST_CASE("moe: the new model types are listed as supported", "[io][hf][moe]") {
  const std::string s = supported_model_types();
  for (const char* t :
       {"granitemoe", "granitemoeshared", "olmoe", "phimoe", "ernie4_5_moe", "glm4_moe", "minimax_m2", "kimi_k2"}) {
    INFO(t);
    CHECK(s.find(t) != std::string::npos);
  }
}

TEST_CASE("moe: glm4_moe: dense prefix, shared expert, correction bias, MTP layer excluded", "[io][hf][moe][glm]") {
  const ModelConfig m = import_json(fixture("glm-4.5"));
  CHECK(m.moe.first_dense_layers == 3);
  CHECK(m.moe.n_shared_experts == 1);
  CHECK(m.moe.d_ff_shared == 1536);
  CHECK(m.moe.correction_bias);
  CHECK(m.mtp_layers == 1);
  const ParamCounts c = count_params(m);
  REQUIRE(c.layer_kinds.size() == 2);
  CHECK(c.layer_kinds[0].n_layers == 3);
  CHECK(part(c.layer_kinds[0], "gate_proj") == 5120LL * 12288);  // dense layers use intermediate_size
  CHECK(c.layer_kinds[1].n_layers == 89);
  CHECK(part(c.layer_kinds[1], "router_correction_bias") == 160);
  CHECK(part(c.layer_kinds[1], "shared_experts") == 3LL * 5120 * 1536);
  // published-moe.tsv:2: layer 92 = one MoE layer + eh_proj + 3 norms + its own embedding and head.
  CHECK(c.mtp_excluded == 5'539'962'272);
  CHECK(c.total == 352'797'829'024);
  CHECK(c.total + c.mtp_excluded == 358'337'791'296);  // the checkpoint's safetensors total
  // Air: one dense layer, MTP layer 46.
  const ParamCounts air = count_params(import_json(fixture("glm-4.5-air")));
  CHECK(air.layer_kinds[0].n_layers == 1);
  CHECK(air.total + air.mtp_excluded == 110'468'824'832);
}

TEST_CASE("moe: glm4_moe: attention_bias is on q, k and v only; o_proj has none", "[io][hf][moe][glm][trap]") {
  const ModelConfig m = import_json(fixture("glm-4.5"));
  CHECK(m.qkv_bias);
  CHECK_FALSE(m.o_bias);
  const ParamCounts c = count_params(m);
  // 96 x 128 + 2 x 8 x 128 = 14,336; an o bias would add hidden (5120).
  CHECK(part(c.layer_kinds[0], "attn_bias") == 14'336);
  json j = fixture("glm-4.5");
  j["attention_bias"] = false;
  CHECK(count_params(import_json(j)).total == c.total - 92 * 14'336);
}

TEST_CASE("moe: glm4_moe: use_qk_norm adds per-head q/k norms (GLM-4.5 yes, Air no)", "[io][hf][moe][glm][trap]") {
  const ParamCounts c = count_params(import_json(fixture("glm-4.5")));
  CHECK(part(c.layer_kinds[1], "qk_norm") == 256);  // q_norm + k_norm over head_dim 128
  const ModelConfig air = import_json(fixture("glm-4.5-air"));
  CHECK(air.qk_norm == QkNorm::none);
  json j = fixture("glm-4.5-air");
  j["use_qk_norm"] = true;
  CHECK(count_params(import_json(j)).total == count_params(air).total + 46 * 256);
}

TEST_CASE("moe: olmoe: q/k norms span the whole projection width", "[io][hf][moe][olmoe][trap]") {
  const ModelConfig m = import_json(fixture("olmoe-1b-7b"));
  CHECK(m.qk_norm == QkNorm::full_width);
  const ParamCounts c = count_params(m);
  REQUIRE(c.layer_kinds.size() == 1);
  CHECK(c.layer_kinds[0].moe);
  // q_norm over hidden 2048 + k_norm over 16 x 128 = 4096 per layer (per head would be 256).
  CHECK(part(c.layer_kinds[0], "qk_norm") == 4096);
  CHECK(c.total == 6'919'161'856);
}

TEST_CASE("moe: phimoe: LayerNorm with bias, o_proj bias and an lm_head bias", "[io][hf][moe][phimoe][trap]") {
  const ModelConfig m = import_json(fixture("phi-3.5-moe"));
  CHECK(m.norm == NormKind::layernorm);
  CHECK(m.qkv_bias);
  CHECK(m.o_bias);
  CHECK(m.lm_head_bias);
  CHECK(m.sliding_window == 131'072);
  const ParamCounts c = count_params(m);
  CHECK(part(c.layer_kinds[0], "norms") == 2 * 2 * 4096);                // weight and bias, two per layer
  CHECK(part(c.layer_kinds[0], "attn_bias") == 4096 + 2 * 1024 + 4096);  // q, k, v and o
  CHECK(c.lm_head == 32'064LL * 4096 + 32'064);
  CHECK(c.final_norm == 2 * 4096);
  json j = fixture("phi-3.5-moe");
  j.erase("lm_head_bias");  // PhimoeConfig's default is false
  CHECK(count_params(import_json(j)).total == c.total - 32'064);
}

TEST_CASE("moe: granitemoe: intermediate_size is the expert width; multipliers change nothing",
          "[io][hf][moe][granite][trap]") {
  const ModelConfig m = import_json(fixture("granite-3.1-3b-a800m"));
  CHECK(m.moe.n_experts == 40);
  CHECK(m.moe.d_ff_expert == 512);
  CHECK(m.tied_embeddings);
  const ParamCounts c = count_params(m);
  REQUIRE(c.layer_kinds.size() == 1);
  CHECK(part(c.layer_kinds[0], "experts") == 40LL * 3 * 1536 * 512);
  CHECK(c.total == 3'298'793'472);
  json j = fixture("granite-3.1-3b-a800m");
  j["embedding_multiplier"] = 1.0;
  j["logits_scaling"] = 1.0;
  j["residual_multiplier"] = 1.0;
  j["attention_multiplier"] = 1.0;
  CHECK(count_params(import_json(j)).total == c.total);
  j.erase("tie_word_embeddings");  // GraniteMoeConfig: untied by default
  CHECK(count_params(import_json(j)).total == c.total + 49'155LL * 1536);
}

TEST_CASE("moe: granitemoeshared: shared_intermediate_size adds one gated shared MLP", "[io][hf][moe][granite]") {
  json j = fixture("granite-3.1-3b-a800m");
  j["model_type"] = "granitemoeshared";
  const std::int64_t base = count_params(import_json(j)).total;
  CHECK(base == 3'298'793'472);  // shared_intermediate_size absent: 0, no shared expert
  j["shared_intermediate_size"] = 1024;
  const ParamCounts c = count_params(import_json(j));
  CHECK(part(c.layer_kinds[0], "shared_experts") == 3LL * 1536 * 1024);
  CHECK(c.total == base + 32 * 3LL * 1536 * 1024);
}

TEST_CASE("moe: ernie4_5_moe: moe_layer_start_index, one wide shared MLP, moe_statics bias",
          "[io][hf][moe][ernie][trap]") {
  const ModelConfig m = import_json(fixture("ernie-4.5-21b-a3b"));
  CHECK(m.moe.first_dense_layers == 1);
  CHECK(m.moe.n_shared_experts == 1);
  CHECK(m.moe.d_ff_shared == 2 * 1536);
  CHECK(m.moe.correction_bias);
  CHECK(m.tied_embeddings);
  const ParamCounts c = count_params(m);
  REQUIRE(c.layer_kinds.size() == 2);
  CHECK(c.layer_kinds[0].n_layers == 1);
  CHECK(c.layer_kinds[1].n_layers == 27);
  CHECK(part(c.layer_kinds[1], "router_correction_bias") == 64);
  CHECK(c.total == 21'825'437'888);
  // Interval 2 from start 1: layers 1, 3, ..., 27 are MoE (14), the rest dense.
  json j = fixture("ernie-4.5-21b-a3b");
  j["moe_layer_interval"] = 2;
  CHECK(moe_kind(count_params(import_json(j))).n_layers == 14);
  // A MoE run that stops before the last layer is not representable: refused by name.
  j = fixture("ernie-4.5-21b-a3b");
  j["moe_layer_end_index"] = 20;
  CHECK_THROWS_WITH(import_json(j), Catch::Contains("moe_layer_end_index"));
}

TEST_CASE("moe: ernie4_5_moe: use_bias puts a bias on every linear, lm_head included", "[io][hf][moe][ernie][trap]") {
  json j = fixture("ernie-4.5-21b-a3b");
  j["use_bias"] = true;
  j["tie_word_embeddings"] = false;
  const ModelConfig m = import_json(j);
  CHECK(m.qkv_bias);
  CHECK(m.o_bias);
  CHECK(m.mlp_bias);
  CHECK(m.lm_head_bias);
  CHECK(count_params(m).lm_head == 103'424LL * 2560 + 103'424);
}

TEST_CASE("moe: minimax_m2: full-width q/k norms, routing bias, declared MTP not shipped",
          "[io][hf][moe][minimax][trap]") {
  const ModelConfig m = import_json(fixture("minimax-m2"));
  CHECK(m.qk_norm == QkNorm::full_width);
  CHECK(m.moe.correction_bias);
  CHECK(m.mtp_layers == 0);  // num_mtp_modules 3 in the config; the checkpoint has none
  const ParamCounts c = count_params(m);
  CHECK(c.mtp_excluded == 0);
  REQUIRE(c.layer_kinds.size() == 1);
  CHECK(part(c.layer_kinds[0], "qk_norm") == 48 * 128 + 8 * 128);  // 7,168, not 2 x 128
  CHECK(part(c.layer_kinds[0], "router_correction_bias") == 256);
  CHECK(c.total == 228'689'764'864);  // = the published checkpoint total
  json j = fixture("minimax-m2");
  j["use_routing_bias"] = false;
  CHECK(count_params(import_json(j)).total == c.total - 62 * 256);
  j["qk_norm_type"] = "per_head";
  CHECK_THROWS_WITH(import_json(j), Catch::Contains("qk_norm_type"));
}

TEST_CASE("moe: minimax_m2: MiniMaxM2Config's defaults are the M2, norms and routing bias included",
          "[io][hf][moe][minimax][trap]") {
  // transformers' class has no use_qk_norm / use_routing_bias switch: the q/k norms and the
  // correction-bias buffer always exist, and every default is the published M2's value.
  CHECK(count_params(import_json(json{{"model_type", "minimax_m2"}})).total == 228'689'764'864);
  json j = fixture("minimax-m2");
  j.erase("use_qk_norm");
  j.erase("use_routing_bias");
  j.erase("qk_norm_type");
  CHECK(count_params(import_json(j)).total == 228'689'764'864);
  j["use_qk_norm"] = false;  // remote-code switch written false: no q/k norms
  CHECK(count_params(import_json(j)).total == 228'689'764'864 - 62 * 7'168);
}

TEST_CASE("moe: kimi_k2 is the DeepSeek-V3 architecture under its own model_type", "[io][hf][moe][kimi][trap]") {
  json j = fixture("kimi-k2");
  const ModelConfig k = import_json(j);
  CHECK(k.family == "kimi_k2");
  CHECK(k.mla.enabled());
  CHECK(k.moe.n_experts == 384);
  CHECK(k.moe.first_dense_layers == 1);
  CHECK(k.moe.correction_bias);
  CHECK(k.mtp_layers == 0);
  const ParamCounts c = count_params(k);
  CHECK(c.total == 1'026'408'232'448);
  j["model_type"] = "deepseek_v3";
  CHECK(count_params(import_json(j)).total == c.total);
}

TEST_CASE("moe: kimi-k2's HF total is our count plus 3,416 BF16 non-parameter elements", "[io][hf][moe][kimi]") {
  // HF API safetensors of moonshotai/Kimi-K2-Instruct: {F8_E4M3 1,023,893,241,856, F32 23,040,
  // BF16 2,514,970,968}, total 1,026,408,235,864 (weight_scale_inv not in it); published-moe.tsv.
  const ParamCounts c = count_params(import_json(fixture("kimi-k2")));
  std::int64_t fp8 = 0;  // every linear of attention and MLP is stored FP8 (128x128 block scales)
  std::int64_t f32 = 0;  // the router correction bias is F32
  for (const LayerKindParams& k : c.layer_kinds) {
    for (const char* id : {"q_a_proj", "q_b_proj", "kv_a_proj", "kv_b_proj", "o_proj", "gate_proj", "up_proj",
                           "down_proj", "experts", "shared_experts"}) {
      fp8 += k.n_layers * part(k, id);
    }
    f32 += k.n_layers * part(k, "router_correction_bias");
  }
  CHECK(fp8 == 1'023'893'241'856);
  CHECK(f32 == 23'040);
  const std::int64_t bf16 = c.total - fp8 - f32;  // embeddings, head, norms, router weights
  CHECK(bf16 == 2'514'970'968 - 3'416);
  // 3,416 = 61 x 56 divides by no weight dimension: a per-layer buffer, excluded. The index
  // total_size, 1,029,173,256,720 B, is FP8 + 2 BF16 + 4 (F32 + 62,495,192 scales) + 2 x 3,416.
  CHECK(fp8 + 2 * (bf16 + 3'416) + 4 * (f32 + 62'495'192) == 1'029'173'256'720);
  for (const auto& row : roofline_test::read_tsv("published-moe.tsv")) {
    if (row.at("preset") != "kimi-k2") continue;
    CHECK(roofline_test::digits_to_int(row.at("checkpoint_total")) == c.total + 3'416);
  }
}

TEST_CASE("moe: deepseek-r1's checkpoint total is the model plus its MTP layer", "[io][hf][moe][deepseek]") {
  const ParamCounts c = count_params(import_json(fixture("deepseek-r1")));
  CHECK(c.total == 671'026'419'200);
  CHECK(c.total + c.mtp_excluded == 684'489'845'504);  // published-moe.tsv:10
}

TEST_CASE("moe: KV cache per token of the new families", "[io][hf][moe][kv]") {
  // 2 (K and V) x layers x kv_heads x head_dim x 2 bytes; MTP layers hold no cache of the model.
  CHECK(kv_bytes_per_token(import_json(fixture("glm-4.5")), 2.0).base() == 2.0 * 92 * 8 * 128 * 2);
  CHECK(kv_bytes_per_token(import_json(fixture("minimax-m2")), 2.0).base() == 2.0 * 62 * 8 * 128 * 2);
  CHECK(kv_bytes_per_token(import_json(fixture("olmoe-1b-7b")), 2.0).base() == 2.0 * 16 * 16 * 128 * 2);
  // Kimi K2 caches MLA's latent: (kv_lora_rank + rope dim) per layer.
  CHECK(kv_bytes_per_token(import_json(fixture("kimi-k2")), 2.0).base() == 61.0 * (512 + 64) * 2);
}

TEST_CASE("moe: hunyuan_v1_moe: a shared MLP in every layer, per-head q/k norms, uniform per-layer lists",
          "[io][hf][moe][hunyuan][trap]") {
  const ModelConfig m = import_json(fixture("hunyuan-a13b"));
  CHECK(m.moe.n_experts == 64);
  CHECK(m.moe.top_k == 8);  // moe_topk is a list of 32 eights
  CHECK(m.moe.n_shared_experts == 1);
  CHECK(m.moe.d_ff_shared == 3072);
  CHECK(m.qk_norm == QkNorm::per_head);
  CHECK(m.tied_embeddings);
  const ParamCounts c = count_params(m);
  REQUIRE(c.layer_kinds.size() == 1);
  CHECK(part(c.layer_kinds[0], "shared_experts") == 3LL * 4096 * 3072);
  CHECK(part(c.layer_kinds[0], "qk_norm") == 256);
  CHECK(c.total == 80'393'183'232);
  json j = fixture("hunyuan-a13b");
  j["moe_topk"][5] = 4;
  CHECK_THROWS_WITH(import_json(j), Catch::Contains("moe_topk"));
  j = fixture("hunyuan-a13b");
  j["use_cla"] = true;
  CHECK_THROWS_WITH(import_json(j), Catch::Contains("use_cla"));
  j = fixture("hunyuan-a13b");
  j["moe_intermediate_size"] = 1536;
  CHECK_THROWS_WITH(import_json(j), Catch::Contains("moe_intermediate_size"));
}

TEST_CASE("moe: declared-but-uncounted MTP modules are said in the notes", "[io][hf][moe][notes]") {
  const auto notes_of = [](const std::string& preset) {
    std::vector<std::string> notes;
    (void)import_hf_config(fixture(preset), "config.json", "", &notes);
    std::string all;
    for (const std::string& n : notes) all += n + "\n";
    return all;
  };
  CHECK_THAT(notes_of("minimax-m2"), Catch::Contains("num_mtp_modules 3 declared by the config"));
  CHECK_THAT(notes_of("minimax-m2"), Catch::Contains("quantization_config present"));
  CHECK_THAT(notes_of("ernie-4.5-21b-a3b"), Catch::Contains("mtp_*"));
  // GLM's MTP layer is counted and excluded through ParamCounts::mtp_excluded, not a note.
  CHECK_THAT(notes_of("glm-4.5"), !Catch::Contains("MTP"));
}

TEST_CASE("moe: glm4_moe_lite is DeepSeek-V3's MLA over Glm4MoeLiteConfig's own defaults",
          "[io][hf][moe][glm4_moe_lite][trap]") {
  // published-2025.tsv:4: llama.cpp's n_params of the GGUF (the MTP layer not converted).
  json j = fixture("glm-4.7-flash");
  const ModelConfig m = import_json(j);
  CHECK(m.family == "glm4_moe_lite");
  CHECK(m.mla.enabled());
  CHECK(m.moe.first_dense_layers == 1);
  CHECK(m.mtp_layers == 1);
  const ParamCounts c = count_params(m);
  CHECK(c.total == 29'943'393'920);
  CHECK(c.active == 3'896'766'080);
  CHECK(c.mtp_excluded == 1'278'094'656);
  // MLA caches the latent and the rope key: 47 x (512 + 64) x 2 B (mlx-lm's cache, a public test).
  CHECK(kv_bytes_per_token(m, 2.0).base() == 47.0 * 576 * 2);
  // The class defaults are GLM-4.7-Flash's own: a config of the shape keys alone counts the same.
  json bare = {{"model_type", "glm4_moe_lite"}, {"num_nextn_predict_layers", 1}};
  CHECK(count_params(import_json(bare)).total == c.total);
  // The class reads mlp_layer_types, not first_k_dense_replace (DeepSeek's key is ignored).
  json first3 = j;
  first3["first_k_dense_replace"] = 3;
  CHECK(import_json(first3).moe.first_dense_layers == 1);
  json types = j;
  types["mlp_layer_types"] = json::array();
  for (int i = 0; i < 47; ++i) types["mlp_layer_types"].push_back(i < 3 ? "dense" : "sparse");
  CHECK(import_json(types).moe.first_dense_layers == 3);
  types["mlp_layer_types"][10] = "dense";  // a dense layer among MoE layers: not representable
  REQUIRE_THROWS_AS(import_json(types), InputError);
  types["mlp_layer_types"].erase(46);
  REQUIRE_THROWS_AS(import_json(types), InputError);
}

TEST_CASE("moe: bailing_moe: Ling 2.0's fused qkv, q/k norms and expert bias; V1 without them",
          "[io][hf][moe][bailing][trap]") {
  // published-2025.tsv:5: the HF safetensors count of inclusionAI/Ling-mini-2.0.
  json j = fixture("ling-mini-2.0");
  const ModelConfig m = import_json(j);
  CHECK(m.qk_norm == QkNorm::per_head);
  CHECK(m.moe.correction_bias);
  CHECK(m.moe.first_dense_layers == 1);
  const ParamCounts c = count_params(m);
  CHECK(c.total == 16'255'643'392);
  CHECK(c.active == 1'432'973'056);
  // The fused query_key_value counts as q, k and v: (16 + 2 x 4) x 128 x 2048.
  CHECK(part(c.layer_kinds.front(), "q_proj") + part(c.layer_kinds.front(), "k_proj") +
            part(c.layer_kinds.front(), "v_proj") ==
        (16LL + 2 * 4) * 128 * 2048);
  // GQA cache: 2 x 4 x 128 x 2 B per layer, every layer.
  CHECK(kv_bytes_per_token(m, 2.0).base() == 20.0 * 2 * 4 * 128 * 2);
  // BailingMoeForCausalLM (Ling 1.x): no q/k norms, no expert bias: 20 x 256 + 19 x 256 fewer.
  json v1 = j;
  v1["architectures"] = json::array({"BailingMoeForCausalLM"});
  CHECK(count_params(import_json(v1)).total == c.total - 20LL * 2 * 128 - 19LL * 256);
  // A V2 config must state the two switches; an MTP module or a second shared width is refused.
  json silent = j;
  silent.erase("use_qk_norm");
  REQUIRE_THROWS_AS(import_json(silent), InputError);
  json mtp = j;
  mtp["num_nextn_predict_layers"] = 1;
  REQUIRE_THROWS_AS(import_json(mtp), InputError);
  json wide = j;
  wide["moe_shared_expert_intermediate_size"] = 1024;
  REQUIRE_THROWS_AS(import_json(wide), InputError);
}

TEST_CASE("moe: deepseek_v32: DeepSeek-V3 with a lightning indexer on every layer, its key cached [DS25]",
          "[io][hf][moe][deepseek][dsa]") {
  json j = fixture("deepseek-v3.2");
  const ModelConfig m = import_json(j);
  CHECK(m.family == "deepseek_v32");
  CHECK(m.indexer.n_heads == 64);
  CHECK(m.indexer.head_dim == 128);
  CHECK(m.indexer.topk == 2048);
  const ParamCounts c = count_params(m);
  // published-2025.tsv:8: 685,396,921,376 stored = 671,877,944,064 + MTP 13,477,385,728 + FP8
  // scales 41,591,584 (a public header audit of the checkpoint).
  CHECK(c.total == 671'877'944'064);
  CHECK(c.mtp_excluded == 13'477'385'728);
  CHECK(c.total + c.mtp_excluded + 41'591'584 == 685'396'921'376);
  // One indexer: wq_b 1536 x 8192, wk 7168 x 128, k_norm 2 x 128, weights_proj 7168 x 64.
  const LayerKindParams& k = moe_kind(c);
  CHECK(part(k, "indexer_wq") == 1536LL * 8192);
  CHECK(part(k, "indexer_wk") == 7168LL * 128);
  CHECK(part(k, "indexer_k_norm") == 256);
  CHECK(part(k, "indexer_weights") == 7168LL * 64);
  // Everything else is DeepSeek-V3's: the same config under deepseek_v3 counts 61 indexers fewer.
  json v3 = j;
  v3["model_type"] = "deepseek_v3";
  CHECK(count_params(import_json(v3)).total == 671'026'419'200);
  CHECK(c.total - 671'026'419'200 == 61LL * 13'959'424);
  // Cache per token: 61 x (512 + 64 + 128) x 2 B; a decode step at 131,072 tokens reads the
  // indexer keys of all of them and the latent of the top 2,048 only.
  CHECK(kv_bytes_per_token(m, 2.0).base() == 61.0 * 704 * 2);
  CHECK(kv_read_bytes_per_sequence(m, 131072.0, 2.0).base() == 61.0 * (128 * 131072.0 + 576 * 2048.0) * 2);
  CHECK(kv_bytes_per_sequence(m, 131072.0, 2.0).base() == 61.0 * 704 * 131072.0 * 2);
  // Missing indexer keys are named; shared indexers (GLM-5.2's index_topk_freq) are refused.
  json no_k = j;
  no_k.erase("index_topk");
  REQUIRE_THROWS_WITH(import_json(no_k), Catch::Contains("index_topk"));
  json shared = j;
  shared["index_topk_freq"] = 4;
  REQUIRE_THROWS_WITH(import_json(shared), Catch::Contains("index_topk_freq"));
}

TEST_CASE("moe: glm_moe_dsa: GLM-5.1 is DeepSeek-V3.2's layout; its MTP layer reads the model's embedding",
          "[io][hf][moe][glm][dsa]") {
  json j = fixture("glm-5.1");
  const ModelConfig m = import_json(j);
  CHECK(m.family == "glm_moe_dsa");
  CHECK(m.indexer.n_heads == 32);
  CHECK(m.indexer.topk == 2048);
  CHECK(m.moe.first_dense_layers == 3);
  CHECK(m.mtp_vocab_tables == 0);
  const ParamCounts c = count_params(m);
  // published-2025.tsv:9: 753,864,139,008 stored = 743,911,218,432 + the MTP layer 9,952,920,576,
  // which holds no embedding or head copies (a public report of the checkpoint's tensors).
  CHECK(c.total == 743'911'218'432);
  CHECK(c.mtp_excluded == 9'952'920'576);
  CHECK(c.total + c.mtp_excluded == 753'864'139'008);
  // One indexer: wq_b 2048 x 4096, wk 6144 x 128, k_norm 256, weights_proj 6144 x 32 = 9,371,904.
  const LayerKindParams& k = moe_kind(c);
  CHECK(part(k, "indexer_wq") + part(k, "indexer_wk") + part(k, "indexer_k_norm") + part(k, "indexer_weights") ==
        9'371'904);
  // With its own embedding and head copies (DeepSeek's layout) the MTP layer would be 2 V d more.
  ModelConfig copies = m;
  copies.mtp_vocab_tables = 2;
  CHECK(count_params(copies).mtp_excluded == c.mtp_excluded + 2LL * 154880 * 6144);
  CHECK(count_params(copies).total == c.total);
  // KV per token: 78 x (512 + 64 + 128) x 2 B.
  CHECK(kv_bytes_per_token(m, 2.0).base() == 78.0 * 704 * 2);
  // transformers writes indexer_types and mlp_layer_types when it saves the config: all "full"
  // indexers and 3 dense layers read the same; a "shared" indexer (GLM-5.2) is refused.
  json saved = j;
  saved["indexer_types"] = json::array();
  saved["mlp_layer_types"] = json::array();
  for (int i = 0; i < 78; ++i) {
    saved["indexer_types"].push_back("full");
    saved["mlp_layer_types"].push_back(i < 3 ? "dense" : "sparse");
  }
  CHECK(count_params(import_json(saved)).total == c.total);
  saved["indexer_types"][5] = "shared";
  REQUIRE_THROWS_WITH(import_json(saved), Catch::Contains("indexer_types"));
  json freq = j;
  freq["index_topk_freq"] = 4;
  REQUIRE_THROWS_WITH(import_json(freq), Catch::Contains("index_topk_freq"));
}

TEST_CASE(
    "moe: longcat_flash: two MLA sublayers a block, a shortcut MoE with zero-computation experts, MTP "
    "excluded [LC25]",
    "[io][hf][moe][longcat]") {
  const ModelConfig m = import_json(fixture("longcat-flash"));
  CHECK(m.family == "longcat_flash");
  CHECK(m.n_layers == 56);  // 28 blocks of two sublayers
  CHECK(m.moe.zero_experts == 256);
  CHECK(m.moe.router_outputs() == 768);
  CHECK(m.moe.ffn_experts_per_token() == Approx(8.0));
  const ParamCounts c = count_params(m);
  // published-2025.tsv:21: 561,862,880,256 stored = the model 560,664,980,480 + model.mtp.*
  // 1,197,899,776 (its own embedding 131,072 x 6144, eh_proj 6144 x 12288, four norms and a final
  // one, one MLA sublayer with a dense MLP of 12288).
  CHECK(c.total == 560'664'980'480);
  CHECK(c.mtp_excluded == 1'197'899'776);
  CHECK(c.total + c.mtp_excluded == 561'862'880'256);
  CHECK(c.mtp_excluded == 131072LL * 6144 + 6144LL * 12288 + 5 * 6144 + 90'572'800 + 226'492'416);
  // A block: 2 MLA of 90,572,800, 2 dense MLPs of 226,492,416, the MoE (512 experts of 37,748,736,
  // router 6144 x 768, correction bias 768) and 4 RMSNorms: 19,966,227,200.
  const LayerKindParams& k = moe_kind(c);
  CHECK(k.n_layers == 28);
  CHECK(part(k, "router") == 6144LL * 768);
  CHECK(part(k, "router_correction_bias") == 768);
  CHECK(part(k, "experts") == 512LL * 37'748'736);
  CHECK(c.blocks == 28LL * 19'966'227'200);
  // The MoE sublayers are the even ones (the MoE branches off the first attention of a block).
  const LayerStack s = layer_stack(m);
  CHECK(s.kinds.front().moe);
  CHECK(s.kinds.front().first == 0);
  CHECK(s.kinds.front().every == 2);
  // KV per token: 56 MLA caches of kv_lora_rank + rope 576 elements, bf16.
  CHECK(kv_bytes_per_token(m, 2.0).base() == 56.0 * 576 * 2);
  // Active is an expectation: the non-expert parameters (embedding and head included) plus
  // k (1 - s) FFN experts of 37,748,736 in each of 28 MoE sublayers. The report's range 18.6B to
  // 31.3B and ~27B average count one vocabulary table: 0, 12 and 8 experts.
  const std::int64_t fixed = c.active - 8LL * 28 * 37'748'736;
  CHECK(fixed - 805'306'368 == 18'693'794'816);                           // 18.6B at 0 FFN experts
  CHECK(fixed - 805'306'368 + 12LL * 28 * 37'748'736 == 31'377'370'112);  // 31.3B at 12
  CHECK(fixed - 805'306'368 + 8LL * 28 * 37'748'736 == 27'149'511'680);   // ~27B at 8
  ModelConfig none = m;
  none.moe.zero_share = 0.0;
  CHECK(count_params(none).active == fixed + 12LL * 28 * 37'748'736);
  ModelConfig half = m;
  half.moe.zero_share = 0.5;
  CHECK(count_params(half).active == fixed + 6LL * 28 * 37'748'736);
  // The stack's count does not depend on the share; the totals stay exact.
  CHECK(count_params(half).total == c.total);
  // Refused: a layer count that is not two sublayers a block, zero experts other than identity.
  json j = fixture("longcat-flash");
  j["num_hidden_layers"] = 28;
  REQUIRE_THROWS_WITH(import_json(j), Catch::Contains("num_hidden_layers"));
  json other = fixture("longcat-flash");
  other["zero_expert_type"] = "constant";
  REQUIRE_THROWS_WITH(import_json(other), Catch::Contains("zero_expert_type"));
  // transformers' own save writes num_hidden_layers = 2 num_layers: the same model.
  json saved = fixture("longcat-flash");
  saved["num_hidden_layers"] = 56;
  CHECK(count_params(import_json(saved)).total == c.total);
}
