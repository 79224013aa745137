// Hugging Face config.json import: every fixture in tests/fixtures/hf reproduces expected_params
// (and the computed active count) of published-group*.tsv exactly, and each family trap listed
// in FAMILY-NOTES-group*.md has its own test.
#include "io/hf_import.hpp"

#include "io/preset_json.hpp"
#include "io/preset_registry.hpp"

#include "roofline/errors.hpp"
#include "roofline/memory.hpp"
#include "roofline/params.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "io_test_support.hpp"

using namespace roofline;
using namespace roofline::io;
using nlohmann::json;
using roofline_test::hf_fixture;

namespace {

using roofline_test::fixture_json;
using roofline_test::import_fixture;

ModelConfig import_json(const json& j) { return import_hf_config(j, "config.json"); }

std::int64_t part(const LayerKindParams& k, std::string_view id) {
  for (const ParamComponent& p : k.parts) {
    if (p.id == id) return p.count;
  }
  return 0;
}

/// Parameters of the named component summed over every layer of every kind.
std::int64_t part_all_layers(const ParamCounts& c, std::string_view id) {
  std::int64_t s = 0;
  for (const LayerKindParams& k : c.layer_kinds) s += k.n_layers * part(k, id);
  return s;
}

bool has_part(const ParamCounts& c, std::string_view id) {
  for (const LayerKindParams& k : c.layer_kinds) {
    for (const ParamComponent& p : k.parts) {
      if (p.id == id) return true;
    }
  }
  return false;
}

std::string unsupported_tail() { return "supported model_type values: " + supported_model_types(); }

}  // namespace

TEST_CASE("io: every HF fixture imports to expected_params exactly", "[io][hf]") {
  const auto rows = roofline_test::published_rows();
  REQUIRE(rows.size() == 161);  // group 1 (with mistral-7b-v0.3) and 2, + moe 13, dense 15, presets 33, special 2,
                                // multimodal 9, hybrid 10, 2025-26 families 22
  int imported = 0;
  for (const auto& row : rows) {
    const std::string preset = row.at("preset");
    INFO(preset << " (" << row.file << ":" << row.line << ")");
    const std::string path = hf_fixture(preset);
    if (!std::filesystem::exists(path)) {
      // Paper-only models (GPT-3, Gopher, Chinchilla, PaLM, MT-NLG, OPT-175B) have no published
      // config or checkpoint: their presets are built from the papers' tables, with no HF repo.
      CHECK(row.at("hf_repo").empty());
      continue;
    }
    ModelPreset p;
    REQUIRE_NOTHROW(p = model_from_json(parse_json_text(read_file(path), path), path, preset));
    CHECK(p.input_format == InputFormat::hf_config);
    CHECK(p.config.name == preset);
    CHECK(p.config.family == (row.at("model_type") == "RefinedWeb" ? "falcon" : row.at("model_type")));
    const ParamCounts c = count_params(p.config);
    const std::int64_t expected = roofline_test::digits_to_int(row.at("expected_params"));
    CHECK(c.total == expected);
    const std::int64_t active = roofline_test::expected_active(row.at("expected_active_params"));
    CHECK(c.active == (active < 0 ? expected : active));
    if (p.config.moe.enabled()) CHECK(c.active < c.total);
    ++imported;
  }
  CHECK(imported == 146);
}

TEST_CASE("io: an exact checkpoint total is never below the count, and equals it with nothing excluded", "[io][hf]") {
  // checkpoint_total_kind says what checkpoint_total is: exact (a published integer for that repo),
  // derived (from a sibling, a file size or a quoted count), rounded (a page figure), none.
  int exact = 0;
  for (const auto& row : roofline_test::published_rows()) {
    const std::string preset = row.at("preset");
    const std::string kind = row.at("checkpoint_total_kind");
    INFO(preset << " (" << row.file << ":" << row.line << ") kind " << kind);
    CHECK((kind == "exact" || kind == "derived" || kind == "rounded" || kind == "none"));
    if (kind != "exact") continue;
    ++exact;
    const std::int64_t total = roofline_test::digits_to_int(row.at("checkpoint_total"));
    const std::int64_t expected = roofline_test::digits_to_int(row.at("expected_params"));
    CHECK(total >= expected);
    if (row.at("non_parameter_tensors") == "none") CHECK(total == expected);
  }
  CHECK(exact == 102);
}

TEST_CASE("io: gemma3-27b: the multimodal wrapper is read whole, its vision tower its own line", "[io][hf][gemma3]") {
  // tests/fixtures/hf/gemma3-27b.config.json is Gemma3ForConditionalGeneration (model_type gemma3).
  const ModelConfig m = import_fixture("gemma3-27b");
  CHECK(m.family == "gemma3");
  CHECK(m.vocab_size == 262208);  // Gemma3TextConfig default; the wrapper's text_config omits it
  CHECK(m.tied_embeddings);
  const ParamCounts c = count_params(m);
  // published-group1.tsv:26: checkpoint 27,432,406,640 = text 27,009,346,304 + vision 423,060,336.
  CHECK(c.total == 27'432'406'640);
  CHECK(c.vision == 423'060'336);
  CHECK(c.active == 27'009'346'304);  // a decoded token reads the text model only
  // Its text_config alone still imports as the text model.
  const json j = fixture_json("gemma3-27b");
  const ModelConfig text = import_hf_config(j.at("text_config"), "config.json: /text_config");
  CHECK(count_params(text).total == 27'009'346'304);
}

TEST_CASE("io: Gemma is tied by class default when tie_word_embeddings is absent; Llama is not",
          "[io][hf][trap][tie]") {
  // gemma-7b.config.json omits the key, as save_pretrained does for a tied Gemma (group-1 notes §1).
  json gemma = fixture_json("gemma-7b");
  REQUIRE_FALSE(gemma.contains("tie_word_embeddings"));
  const std::int64_t absent = count_params(import_json(gemma)).total;
  CHECK(absent == 8'537'680'896);
  gemma["tie_word_embeddings"] = true;
  CHECK(count_params(import_json(gemma)).total == absent);
  gemma["tie_word_embeddings"] = false;
  CHECK(count_params(import_json(gemma)).total == absent + 786'432'000);  // 256000 x 3072

  // gemma2-9b and the gemma3 text config behave the same (class default true).
  json gemma2 = fixture_json("gemma2-9b");
  gemma2.erase("tie_word_embeddings");
  CHECK(import_json(gemma2).tied_embeddings);
  CHECK(count_params(import_json(gemma2)).total == 9'241'705'984);

  // llama3-8b.config.json writes false; without the key LlamaConfig's default (false) applies.
  json llama = fixture_json("llama3-8b");
  REQUIRE(llama.at("tie_word_embeddings") == false);
  llama.erase("tie_word_embeddings");
  CHECK_FALSE(import_json(llama).tied_embeddings);
  CHECK(count_params(import_json(llama)).total == 8'030'261'248);
  llama["tie_word_embeddings"] = true;
  CHECK(count_params(import_json(llama)).total == 8'030'261'248 - 525'336'576);
}

TEST_CASE("io: explicit head_dim: gemma-7b has 16 heads x 256 = 4096 != d_model 3072", "[io][hf][trap]") {
  json j = fixture_json("gemma-7b");
  const ModelConfig m = import_json(j);
  CHECK(m.d_model == 3072);
  CHECK(m.n_heads == 16);
  CHECK(m.head_dim == 256);
  const ParamCounts c = count_params(m);
  CHECK(part(c.layer_kinds.at(0), "q_proj") == 3072LL * 4096);
  CHECK(part(c.layer_kinds.at(0), "o_proj") == 4096LL * 3072);
  // Dropping the key would fall back to d/h = 192 and lose 28 x 4 x 3072 x 16 x 64 parameters.
  j.erase("head_dim");
  CHECK(import_json(j).head_dim == 192);
  CHECK(count_params(import_json(j)).total == 8'537'680'896 - 28LL * 4 * 3072 * 16 * 64);
  // qwen3-30b-a3b (group-1 notes): head_dim 128 vs d/h = 64.
  CHECK(import_fixture("qwen3-30b-a3b").head_dim == 128);
}

TEST_CASE("io: OPT's learned positions have max_position_embeddings + 2 rows", "[io][hf][trap]") {
  // opt-125m.config.json: max_position_embeddings 2048, hidden 768.
  const ModelConfig m = import_fixture("opt-125m");
  CHECK(m.learned_positions == 2050);
  CHECK(count_params(m).positions == 2050LL * 768);
  CHECK(count_params(m).total == 125'239'296);
  // opt-350m: word_embed_proj_dim 512 != 1024 adds project_in/out; post-LN drops the final norm.
  const ModelConfig m350 = import_fixture("opt-350m");
  CHECK(m350.embed_proj_dim == 512);
  CHECK_FALSE(m350.final_norm);
  CHECK(count_params(m350).embed_proj == 2LL * 512 * 1024);
  CHECK(count_params(m350).embedding == 50272LL * 512);
}

TEST_CASE("io: padded vocabulary: pythia-6.9b stores 50432 rows, not the tokenizer's 50277", "[io][hf][trap]") {
  const ModelConfig m = import_fixture("pythia-6.9b");
  CHECK(m.vocab_size == 50432);
  const ParamCounts c = count_params(m);
  CHECK(c.embedding == 50432LL * 4096);
  CHECK(c.lm_head == 50432LL * 4096);  // untied embed_out
  CHECK(c.total == 6'857'302'016);
  // The paper-style figure with 50304 rows (group-2 notes §4) is 2 x 128 x 4096 smaller.
  CHECK(c.total - 2LL * 128 * 4096 == 6'856'253'440);
  CHECK(import_fixture("gpt-j-6b").vocab_size == 50400);
}

TEST_CASE("io: lm_head bias: phi-2 and gpt-j-6b add V to the untied head", "[io][hf][trap]") {
  {
    const ModelConfig m = import_fixture("phi-2");  // V 51200, d 2560
    CHECK(m.lm_head_bias);
    CHECK_FALSE(m.tied_embeddings);
    const ParamCounts c = count_params(m);
    CHECK(c.lm_head_weight == 51200LL * 2560);
    CHECK(c.lm_head == 51200LL * 2560 + 51200);
    CHECK(c.total == 2'779'683'840);
  }
  {
    const ModelConfig m = import_fixture("gpt-j-6b");  // V 50400, d 4096
    CHECK(m.lm_head_bias);
    const ParamCounts c = count_params(m);
    CHECK(c.lm_head == 50400LL * 4096 + 50400);
    CHECK_FALSE(m.qkv_bias);  // GPT-J's q/k/v/out projections have no bias
    CHECK(c.total == 6'050'882'784);
  }
}

TEST_CASE("io: Qwen2 biases are on q, k and v only (qwen2.5-7b: 129,024)", "[io][hf][trap]") {
  const ModelConfig m = import_fixture("qwen2.5-7b");
  CHECK(m.qkv_bias);
  CHECK_FALSE(m.o_bias);
  const ParamCounts c = count_params(m);
  // q 28 x 128 + k, v 2 x 4 x 128 = 4608 per layer, 28 layers.
  CHECK(part(c.layer_kinds.at(0), "attn_bias") == 4608);
  CHECK(part_all_layers(c, "attn_bias") == 129'024);
  // There is no attention_bias key to turn them off: writing one changes nothing.
  json j = fixture_json("qwen2.5-7b");
  j["attention_bias"] = false;
  CHECK(count_params(import_json(j)).total == 7'615'616'512);
}

TEST_CASE("io: OLMo's LayerNorms have no parameters", "[io][hf][trap]") {
  for (const char* preset : {"olmo-1b", "olmo-7b"}) {
    INFO(preset);
    const ModelConfig m = import_fixture(preset);
    CHECK(m.norm == NormKind::nonparametric);
    const ParamCounts c = count_params(m);
    CHECK(c.final_norm == 0);
    CHECK_FALSE(has_part(c, "norms"));
  }
  CHECK(import_fixture("olmo-1b").tied_embeddings);
  CHECK_FALSE(import_fixture("olmo-7b").tied_embeddings);
}

TEST_CASE("io: DeepSeek-V3: first dense layers, MTP layer excluded, correction bias counted",
          "[io][hf][trap][deepseek]") {
  const ModelConfig m = import_fixture("deepseek-v3");
  CHECK(m.moe.first_dense_layers == 3);
  CHECK(m.mtp_layers == 1);
  CHECK(m.moe.correction_bias);
  const ParamCounts c = count_params(m);
  REQUIRE(c.layer_kinds.size() == 2);
  CHECK_FALSE(c.layer_kinds[0].moe);
  CHECK(c.layer_kinds[0].n_layers == 3);
  CHECK(c.layer_kinds[1].moe);
  CHECK(c.layer_kinds[1].n_layers == 58);
  CHECK(part(c.layer_kinds[0], "gate_proj") == 7168LL * 18432);  // dense layers use intermediate_size
  // published-group1.tsv:32 non_parameter_tensors: the MTP module is 13,463,426,304 elements.
  CHECK(c.mtp_excluded == 13'463'426'304);
  CHECK(c.total == 671'026'419'200);
  // e_score_correction_bias: 256 per MoE layer, 58 x 256 = 14,848 (group-1 notes, deepseek).
  CHECK(part(c.layer_kinds[1], "router_correction_bias") == 256);
  CHECK(part_all_layers(c, "router_correction_bias") == 14'848);
  ModelConfig no_bias = m;
  no_bias.moe.correction_bias = false;
  CHECK(count_params(no_bias).total == c.total - 14'848);
  // DeepSeek-V2 has no correction bias and no MTP layer.
  const ModelConfig v2 = import_fixture("deepseek-v2-lite");
  CHECK_FALSE(v2.moe.correction_bias);
  CHECK(v2.mtp_layers == 0);
  CHECK(v2.mla.q_lora_rank == 0);  // q_lora_rank null: plain q_proj
  CHECK(count_params(v2).mtp_excluded == 0);
}

TEST_CASE("io: Gemma 2/3 have four norms per layer, Gemma 1 two", "[io][hf][trap]") {
  const ModelConfig g2 = import_fixture("gemma2-9b");  // d 3584
  CHECK(g2.norms_per_layer == 4);
  CHECK(part(count_params(g2).layer_kinds.at(0), "norms") == 4LL * 3584);
  const ModelConfig g3 = import_fixture("gemma3-1b");
  CHECK(g3.norms_per_layer == 4);
  CHECK(g3.qk_norm == QkNorm::per_head);
  CHECK(import_fixture("gemma-7b").norms_per_layer == 2);
}

TEST_CASE("io: q/k norms: qwen3 per head (2 x d_h), olmo2 full width", "[io][hf][trap]") {
  {
    const ModelConfig m = import_fixture("qwen3-8b");  // head_dim 128, 36 layers
    CHECK(m.qk_norm == QkNorm::per_head);
    const ParamCounts c = count_params(m);
    CHECK(part(c.layer_kinds.at(0), "qk_norm") == 256);
    CHECK(part_all_layers(c, "qk_norm") == 9'216);  // group-1 notes: qwen3-8b 9,216
    CHECK(c.total == 8'190'735'360);
  }
  {
    const ModelConfig m = import_fixture("olmo2-7b");  // 32 heads, 32 kv heads, head_dim 128
    CHECK(m.qk_norm == QkNorm::full_width);
    CHECK(part(count_params(m).layer_kinds.at(0), "qk_norm") == 4096 + 4096);
  }
  // qwen3_moe shares the rule.
  CHECK(part(count_params(import_fixture("qwen3-30b-a3b")).layer_kinds.at(0), "qk_norm") == 256);
}

TEST_CASE("io: KV cache per token: GQA and MLA", "[io][hf][kv]") {
  // llama3-8b: 32 layers x 2 x 8 kv heads x 128 x 2 B.
  CHECK(kv_bytes_per_token(import_fixture("llama3-8b"), 2.0).base() == 131'072.0);
  // deepseek-v3 MLA: 61 x (kv_lora_rank 512 + rope 64) x 2 B; the 128 KV heads do not enter.
  const ModelConfig ds = import_fixture("deepseek-v3");
  CHECK(kv_elements_per_token_layer(ds) == 576);
  CHECK(kv_bytes_per_token(ds, 2.0).base() == 70'272.0);
}

TEST_CASE("io: KV cache with sliding windows: mistral-7b uniform, gemma2-9b alternating", "[io][hf][kv]") {
  {
    const ModelConfig m = import_fixture("mistral-7b");
    CHECK(m.sliding_window == 4096);
    CHECK(m.global_every == 0);
    const double at_4k = kv_bytes_per_sequence(m, 4096.0, 2.0).base();
    CHECK(kv_bytes_per_sequence(m, 8192.0, 2.0).base() == at_4k);
    CHECK(at_4k == 4096.0 * 131'072.0);
    CHECK(kv_bytes_per_sequence(m, 1000.0, 2.0).base() == 1000.0 * 131'072.0);
  }
  {
    const ModelConfig m = import_fixture("gemma2-9b");  // 42 layers, 8 kv heads x 256
    CHECK(m.sliding_window == 4096);
    CHECK(m.global_every == 2);
    CHECK(m.is_sliding_layer(0));
    CHECK_FALSE(m.is_sliding_layer(1));
    const double per_token_layer = 2.0 * 8 * 256 * 2.0;
    CHECK(kv_bytes_per_sequence(m, 8192.0, 2.0).base() == (21.0 * 8192 + 21.0 * 4096) * per_token_layer);
    CHECK(kv_bytes_per_sequence(m, 4096.0, 2.0).base() == 42.0 * 4096 * per_token_layer);
  }
  {
    // qwen2.5-7b: use_sliding_window false, so sliding_window 131072 is ignored.
    CHECK(import_fixture("qwen2.5-7b").sliding_window == 0);
  }
}

TEST_CASE("io: layer_types lists become (window, global_every) or are refused", "[io][hf][window]") {
  json j = fixture_json("gemma2-9b");
  json types = json::array();
  for (int i = 0; i < 42; ++i) types.push_back(i % 2 == 0 ? "sliding_attention" : "full_attention");
  j["layer_types"] = types;
  CHECK(import_json(j).global_every == 2);
  types[2] = "full_attention";
  j["layer_types"] = types;
  REQUIRE_THROWS_WITH(import_json(j),
                      "config.json: /layer_types: the sliding/global layout is not periodic; roofline cannot "
                      "represent this, so it refuses rather than guess");
  j["layer_types"] = json::array({"full_attention"});
  REQUIRE_THROWS_WITH(import_json(j), "config.json: /layer_types: expected an array of 42 strings");
}

TEST_CASE("io: unsupported model types are refused naming the type and the supported list", "[io][hf][refused]") {
  const std::string tail = unsupported_tail();
  CHECK(tail.find("llama, mistral, mixtral") != std::string::npos);
  CHECK(tail.find("deepseek_v3") != std::string::npos);
  CHECK(tail.find("RefinedWeb") == std::string::npos);  // accepted spellings, not listed
  struct Refusal {
    json config;
    std::string message;
  };
  const std::vector<Refusal> cases = {
      {{{"model_type", "falcon_mamba"}, {"hidden_size", 768}},
       "config.json: /model_type: \"falcon_mamba\" is a state-space model, which roofline does not model; " + tail},
      {{{"model_type", "t5"}, {"d_model", 512}},
       "config.json: /model_type: \"t5\" is an encoder-decoder model, which roofline does not model; " + tail},
      {{{"model_type", "llava_next"}, {"architectures", {"LlavaNextForConditionalGeneration"}}},
       "config.json: /model_type: \"llava_next\" is a multimodal wrapper, which roofline does not model; " + tail},
      {{{"model_type", "llava_next"}, {"text_config", {{"model_type", "llama"}}}},
       "config.json: /model_type: \"llava_next\" is a multimodal wrapper, which roofline does not model; pass its "
       "text_config (e.g. jq .text_config config.json) for the language model; " +
           tail},
      {{{"model_type", "bert"}},
       "config.json: /model_type: \"bert\" is an encoder-only model, which roofline does not model; " + tail},
      {{{"model_type", "foo"}},
       "config.json: /model_type: \"foo\" is not supported, and the generic decoder reading needs hidden_size, "
       "num_hidden_layers, num_attention_heads, intermediate_size and vocab_size (missing hidden_size, "
       "num_hidden_layers, num_attention_heads, intermediate_size, vocab_size); " +
           tail},
      {{{"architectures", {"FooForCausalLM"}}},
       "config.json: /model_type: missing; roofline reads the architecture from model_type"},
  };
  for (const Refusal& r : cases) {
    INFO(r.config.dump());
    REQUIRE_THROWS_AS(import_json(r.config), InputError);
    REQUIRE_THROWS_WITH(import_json(r.config), r.message);
  }
}

TEST_CASE("io: an invented model_type with only the standard keys is read by the generic decoder reading, labelled",
          "[io][hf][generic]") {
  // Llama 3 8B's published config.json under a model_type no family has: the generic reading is
  // the Llama layout, so the count is Meta's 8,030,261,248 (the llama3-8b preset's published total).
  json j = fixture_json("llama3-8b");
  j["model_type"] = "acme_lm";
  j["architectures"] = {"AcmeForCausalLM"};
  std::vector<std::string> notes;
  bool generic = false;
  const ModelConfig m = import_hf_config(j, "config.json", "", &notes, &generic);
  CHECK(generic);
  CHECK(m.family == "acme_lm");
  CHECK(count_params(m).total == 8030261248);
  REQUIRE(!notes.empty());
  CHECK(notes.front() == generic_note("acme_lm"));
  CHECK(notes.front().find("--strict refuses it") != std::string::npos);
  // A known family is never generic.
  bool known = true;
  (void)import_hf_config(fixture_json("llama3-8b"), "config.json", "", nullptr, &known);
  CHECK(!known);
  // Mixtral's keys under an invented type: the MoE keys are read too (Mistral AI's 46,702,792,704).
  json moe = fixture_json("mixtral-8x7b");
  moe["model_type"] = "acme_moe";
  CHECK(count_params(import_hf_config(moe, "config.json")).total == 46702792704);
}

TEST_CASE("io: an invented model_type with keys the generic reading does not understand is refused, naming them",
          "[io][hf][generic]") {
  json j = fixture_json("llama3-8b");
  j["model_type"] = "acme_lm";
  j["num_nextn_predict_layers"] = 1;
  j["block_configs"] = json::array();
  const std::string tail = unsupported_tail();
  REQUIRE_THROWS_WITH(import_json(j),
                      "config.json: /model_type: \"acme_lm\" is not supported, and the generic "
                      "decoder reading does not understand its keys block_configs, "
                      "num_nextn_predict_layers; " +
                          tail);
  json act = fixture_json("llama3-8b");
  act["model_type"] = "acme_lm";
  act["hidden_act"] = "relu2";
  REQUIRE_THROWS_WITH(import_json(act), Catch::Contains("/hidden_act: \"relu2\" is not an activation the generic "
                                                        "reading takes for a gated MLP"));
  // A wrapper of an unknown type (an invented acme_vl) points at its text_config.
  const json wrapper = {
      {"model_type", "acme_vl"}, {"text_config", fixture_json("kimi-k2")}, {"vision_config", json::object()}};
  REQUIRE_THROWS_WITH(import_json(wrapper),
                      "config.json: /model_type: \"acme_vl\" is not supported; it wraps a "
                      "text_config: pass that (e.g. jq .text_config config.json) for the "
                      "language model; " +
                          tail);
  CHECK(count_params(import_json(wrapper.at("text_config"))).total == 1'026'408'232'448);
}

TEST_CASE("io: a missing or mistyped required field names its JSON pointer", "[io][hf][errors]") {
  json j = fixture_json("llama3-8b");
  j.erase("hidden_size");
  REQUIRE_THROWS_WITH(import_json(j), "config.json: /hidden_size: missing required field");
  // Through model_from_json the file name leads the message.
  REQUIRE_THROWS_WITH(model_from_json(j, "llama.json", "llama"), "llama.json: /hidden_size: missing required field");

  j = fixture_json("llama3-8b");
  j["num_hidden_layers"] = "32";
  REQUIRE_THROWS_WITH(import_json(j), "config.json: /num_hidden_layers: expected an integer, got \"32\"");
  j["num_hidden_layers"] = 32.0;  // whole floats are accepted, as the preset reader accepts them
  CHECK(import_json(j).n_layers == 32);
  j["num_hidden_layers"] = 32.5;
  REQUIRE_THROWS_WITH(import_json(j), "config.json: /num_hidden_layers: expected an integer, got 32.5");
  j["num_hidden_layers"] = -1;
  REQUIRE_THROWS_WITH(import_json(j), "config.json: /num_hidden_layers: must not be negative, got -1");
  j["num_hidden_layers"] = 32;
  j["tie_word_embeddings"] = "no";
  REQUIRE_THROWS_WITH(import_json(j), "config.json: /tie_word_embeddings: expected true or false, got \"no\"");
  j["tie_word_embeddings"] = false;
  j["num_key_value_heads"] = 5;
  REQUIRE_THROWS_WITH(import_json(j), "config.json: n_kv_heads: 5 does not divide n_heads 32");
  j["num_key_value_heads"] = 8;
  j["num_attention_heads"] = 0;
  REQUIRE_THROWS_WITH(import_json(j), "config.json: /num_attention_heads: must be positive");

  json dbrx = fixture_json("dbrx");
  dbrx.at("attn_config")["kv_n_heads"] = "8";
  REQUIRE_THROWS_WITH(import_json(dbrx), "config.json: /attn_config/kv_n_heads: expected an integer, got \"8\"");
  dbrx.erase("ffn_config");
  REQUIRE_THROWS_WITH(import_json(dbrx), "config.json: /ffn_config: missing required field");
}

TEST_CASE("io: qwen2 sliding window on a subset of layers is refused", "[io][hf][refused]") {
  json j = fixture_json("qwen2.5-7b");  // 28 layers
  j["use_sliding_window"] = true;
  j["max_window_layers"] = 21;
  REQUIRE_THROWS_AS(import_json(j), InputError);
  REQUIRE_THROWS_WITH(import_json(j),
                      "config.json: /use_sliding_window: sliding attention on layers >= max_window_layers "
                      "only; roofline cannot represent this, so it refuses rather than guess");
  // max_window_layers == num_hidden_layers: no layer slides, so the config is plain full attention.
  j["max_window_layers"] = 28;
  CHECK(import_json(j).sliding_window == 0);
  CHECK(count_params(import_json(j)).total == 7'615'616'512);
}

TEST_CASE("io: other refusals the engine cannot represent", "[io][hf][refused]") {
  json ds = fixture_json("deepseek-v3");
  ds["moe_layer_freq"] = 2;
  REQUIRE_THROWS_WITH(import_json(ds),
                      "config.json: /moe_layer_freq: MoE layers interleaved by layer_idx % freq; roofline cannot "
                      "represent this, so it refuses rather than guess");
  ds["moe_layer_freq"] = 1;
  ds["attention_bias"] = true;
  REQUIRE_THROWS_WITH(import_json(ds),
                      "config.json: /attention_bias: biases with MLA; roofline cannot represent this, so it "
                      "refuses rather than guess");

  json q = fixture_json("qwen3-30b-a3b");
  q["mlp_only_layers"] = json::array({0, 5});
  REQUIRE_THROWS_WITH(import_json(q),
                      "config.json: /mlp_only_layers: dense layers other than a leading run [0,5]; roofline "
                      "cannot represent this, so it refuses rather than guess");
  q["mlp_only_layers"] = json::array({0, 1});
  const ModelConfig m = import_json(q);
  CHECK(m.moe.first_dense_layers == 2);
  CHECK(count_params(m).layer_kinds.at(0).n_layers == 2);
}

TEST_CASE("io: non-parameter buffers are named, not counted", "[io][hf]") {
  const auto notes_of = [](const std::string& preset) {
    const std::string path = hf_fixture(preset);
    return model_from_json(parse_json_text(read_file(path), path), path, preset).checkpoint_notes;
  };
  const auto has_note = [](const std::vector<std::string>& notes, std::string_view needle) {
    return std::any_of(notes.begin(), notes.end(),
                       [&](const std::string& n) { return n.find(needle) != std::string::npos; });
  };
  CHECK(has_note(notes_of("gpt2"), "attn.bias causal-mask buffers"));
  CHECK(has_note(notes_of("gpt2"), "12582912 elements"));  // published-group2.tsv:2
  CHECK(has_note(notes_of("llama2-7b"), "rotary inv_freq"));
  CHECK(has_note(notes_of("deepseek-v3"), "quantization_config present"));
  // The MTP layers are reported once, from ParamCounts::mtp_excluded, not as a checkpoint note.
  CHECK_FALSE(has_note(notes_of("deepseek-v3"), "multi-token-prediction"));
  CHECK(count_params(import_fixture("deepseek-v3")).mtp_excluded > 0);
  // The notes live with the preset, not in the engine's config; the importer fills them on request.
  std::vector<std::string> notes;
  (void)import_hf_config(fixture_json("gpt-j-6b"), "config.json", "", &notes);
  CHECK(has_note(notes, "attn.bias/masked_bias"));
}
