// The one strict JSON reader (native presets and HF configs alike), the shared enum name tables,
// the shared head defaults, and extreme configs that must end in a clean InputError: these run
// under the ASan+UBSan preset, where any overflow before validation fails the test.
#include "io/hf_import.hpp"
#include "io/preset_json.hpp"
#include "io/preset_registry.hpp"

#include "roofline/errors.hpp"
#include "roofline/params.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "text/names.hpp"

using namespace roofline;
using namespace roofline::io;
using nlohmann::json;

namespace {

json tiny_preset() {
  return json::parse(R"({"name": "tiny", "source": "t",
    "architecture": {"n_layers": 2, "d_model": 64, "n_heads": 4, "d_ff": 256, "vocab_size": 1000}})");
}

ModelPreset load(const json& j) { return model_from_json(j, "m.json", "m"); }

json llama() {
  return json::parse(R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2,
    "num_attention_heads": 4, "intermediate_size": 256, "vocab_size": 1000})");
}

}  // namespace

TEST_CASE("io: integers: negative and >= 2^63 are refused the same way in presets and HF configs",
          "[io][reader][errors]") {
  json p = tiny_preset();
  p["published_params"] = 18446744073709551615ULL;  // used to wrap to -1
  REQUIRE_THROWS_WITH(load(p), "m.json: /published_params: 18446744073709551615 is too large (at most 2^63 - 1)");
  p["published_params"] = 9223372036854775808ULL;  // used to become INT64_MIN
  REQUIRE_THROWS_WITH(load(p), "m.json: /published_params: 9223372036854775808 is too large (at most 2^63 - 1)");
  p["published_params"] = -1234567;
  REQUIRE_THROWS_WITH(load(p), "m.json: /published_params: must not be negative, got -1234567");
  p["published_params"] = 0;
  REQUIRE_THROWS_WITH(load(p), "m.json: /published_params: must be at least 1, got 0");
  p["published_params"] = 9223372036854775807LL;
  CHECK(*load(p).published_params == 9223372036854775807LL);

  p = tiny_preset();
  p["architecture"]["sliding_window"] = 18446744073709551615ULL;
  REQUIRE_THROWS_WITH(load(p),
                      "m.json: /architecture/sliding_window: 18446744073709551615 is too large (at most 2^63 - 1)");
  p["architecture"]["sliding_window"] = -1;
  REQUIRE_THROWS_WITH(load(p), "m.json: /architecture/sliding_window: must not be negative, got -1");
  p["architecture"]["sliding_window"] = -1.0;
  REQUIRE_THROWS_WITH(load(p), "m.json: /architecture/sliding_window: must not be negative, got -1.0");

  json h = llama();
  h["hidden_size"] = 18446744073709551615ULL;  // used to say "must not be negative, got 18446744073709551615"
  REQUIRE_THROWS_WITH(load(h), "m.json: /hidden_size: 18446744073709551615 is too large (at most 2^63 - 1)");
  h["hidden_size"] = 1e19;
  REQUIRE_THROWS_WITH(load(h), "m.json: /hidden_size: 1e+19 is too large (at most 2^63 - 1)");
  h["hidden_size"] = nullptr;  // null is absent in both formats
  REQUIRE_THROWS_WITH(load(h), "m.json: /hidden_size: missing required field");
}

TEST_CASE("io: error text never dumps a deep value (R1)", "[io][reader][errors]") {
  // 100,000 levels: serializing this recursed once per level and overflowed the stack.
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  json h = json::parse(R"({"model_type": "llama", "hidden_size": )" + deep + "}");
  REQUIRE_THROWS_WITH(load(h), "m.json: /hidden_size: expected an integer, got an array");
  json p = json::parse(R"({"name": "d", "source": "s", "architecture": {"n_layers": {"a": )" + deep + "}}}");
  REQUIRE_THROWS_WITH(load(p), "m.json: /architecture/n_layers: expected an integer, got an object");
  p = tiny_preset();
  p["name"] = std::string(1000, 'x');
  p["display_name"] = 7;
  REQUIRE_THROWS_WITH(load(p), "m.json: /display_name: expected a string, got 7");
  p["display_name"] = json::array({std::string(200, 'y')});
  REQUIRE_THROWS_WITH(load(p), "m.json: /display_name: expected a string, got [\"" + std::string(55, 'y') + "...");
  json q = json::parse(R"({"model_type": "qwen3_moe", "hidden_size": 64, "num_hidden_layers": 2,
    "num_attention_heads": 4, "intermediate_size": 256, "vocab_size": 1000, "num_experts": 4,
    "num_experts_per_tok": 2, "moe_intermediate_size": 64})");
  q["mlp_only_layers"] = json::array({0, deep.size()});
  REQUIRE_THROWS_WITH(load(q),
                      "m.json: /mlp_only_layers: dense layers other than a leading run [0,200000]; roofline cannot "
                      "represent this, so it refuses rather than guess");
  CHECK(describe_json(json::parse(deep)) == "an array");
  CHECK(describe_json(json(std::string(100, 'z'))) == "\"" + std::string(56, 'z') + "...");
  CHECK(describe_json(json::array({1, 2, 3})) == "[1,2,3]");
  CHECK(describe_json(json::object({{"a", 1}})) == "{\"a\":1}");
}

TEST_CASE("io: names: one table per enum, canonical names out, flag spellings accepted in files", "[io][names]") {
  CHECK(std::string(name_of(NormKind::layernorm_nobias)) == "layernorm_nobias");
  CHECK(std::string(name_of(NormKind::nonparametric)) == "nonparametric");
  CHECK(find_enum(kNormKindNames, "layernorm-nobias") == NormKind::layernorm_nobias);
  CHECK(find_enum(kNormKindNames, "none") == NormKind::nonparametric);
  CHECK(find_enum(kQkNormNames, "per-head") == QkNorm::per_head);
  CHECK(std::string(name_of(InputFormat::hf_config)) == "hf_config");
  CHECK(std::string(name_of(InputFormat::flags)) == "flags");
  CHECK(std::string(name_of(PositionKind::alibi)) == "alibi");
  CHECK(std::string(name_of(MlpKind::plain)) == "plain");
  // Messages list canonical names only.
  CHECK(not_one_of("x", kNormKindNames) == "\"x\" is not one of: rmsnorm, layernorm, layernorm_nobias, nonparametric");
  json p = tiny_preset();
  p["architecture"]["norm"] = "none";
  const ModelPreset m = load(p);
  CHECK(m.config.norm == NormKind::nonparametric);
  CHECK(architecture_to_json(m.config).at("norm") == "nonparametric");
  CHECK(m.input_format == InputFormat::preset);
}

TEST_CASE("io: head defaults: one rule for presets, HF configs and flags", "[io][defaults]") {
  ModelConfig m;
  m.d_model = 4096;
  m.n_heads = 32;
  m.n_kv_heads = kDeriveFromHeads;
  m.head_dim = kDeriveFromHeads;
  apply_head_defaults(m);
  CHECK(m.n_kv_heads == 32);
  CHECK(m.head_dim == 128);
  m.n_kv_heads = 8;
  m.head_dim = 256;
  apply_head_defaults(m);  // given values stay
  CHECK(m.n_kv_heads == 8);
  CHECK(m.head_dim == 256);
  m.n_heads = 0;
  m.head_dim = kDeriveFromHeads;
  apply_head_defaults(m);
  CHECK(m.head_dim == 0);  // validate() reports it; no division by zero

  // Every family without an explicit value gets the same defaults.
  for (const char* type : {"gpt2", "gptj", "bloom", "falcon", "opt", "gpt_neox", "llama"}) {
    INFO(type);
    json j = {{"model_type", type},
              {"n_embd", 64},
              {"hidden_size", 64},
              {"n_layer", 2},
              {"n_head", 4},
              {"num_hidden_layers", 2},
              {"num_attention_heads", 4},
              {"vocab_size", 100},
              {"n_positions", 32},
              {"max_position_embeddings", 32},
              {"ffn_dim", 256},
              {"intermediate_size", 256}};
    if (std::string(type) == "falcon") j["multi_query"] = false;
    const ModelConfig c = import_hf_config(j, "c.json");
    CHECK(c.head_dim == 16);
    CHECK(c.n_kv_heads == 4);
  }
}

// Extreme values that used to reach int64 arithmetic before validation (code review §2.10,
// reliability R7). Each must be a clean InputError; under UBSan an overflow would abort instead.
TEST_CASE("io: extreme HF configs end in an InputError, never in overflow", "[io][hf][extreme]") {
  struct Row {
    const char* why;
    const char* config;
    std::string message;
  };
  const std::vector<Row> rows = {
      {"gpt2 mask note: n_layers x n_positions^2",
       R"({"model_type":"gpt2","n_embd":768,"n_layer":12,"n_head":12,"vocab_size":50257,"n_positions":4294967296})",
       "c.json: learned_positions: 4294967296 is out of range; allowed 0 to 16777216"},
      {"gpt2 n_inner default 4 x n_embd",
       R"({"model_type":"gpt2","n_embd":4611686018427387904,"n_layer":1,"n_head":1,"vocab_size":8,"n_positions":8})",
       "c.json: d_model: 4611686018427387904 is out of range; allowed 1 to 16777216"},
      {"gptj n_inner default",
       R"({"model_type":"gptj","n_embd":4611686018427387904,"n_layer":1,"n_head":1,"vocab_size":8})",
       "c.json: d_model: 4611686018427387904 is out of range; allowed 1 to 16777216"},
      {"bloom d_ff = 4 x hidden",
       R"({"model_type":"bloom","hidden_size":9223372036854775807,"n_layer":1,"n_head":1,"vocab_size":8})",
       "c.json: d_model: 9223372036854775807 is out of range; allowed 1 to 16777216"},
      {"falcon ffn_hidden_size default",
       R"({"model_type":"falcon","hidden_size":4611686018427387904,"num_hidden_layers":1,"num_attention_heads":1,"vocab_size":8})",
       "c.json: d_model: 4611686018427387904 is out of range; allowed 1 to 16777216"},
      {"opt learned positions + 2",
       R"({"model_type":"opt","hidden_size":64,"num_hidden_layers":1,"num_attention_heads":4,"ffn_dim":64,"vocab_size":8,"max_position_embeddings":9223372036854775807})",
       "c.json: max_seq_len: 9223372036854775807 is out of range; allowed 0 to 1099511627776"},
      {"deepseek head_dim = nope + rope",
       R"({"model_type":"deepseek_v3","hidden_size":64,"num_hidden_layers":1,"num_attention_heads":4,"intermediate_size":64,"vocab_size":8,"kv_lora_rank":8,"qk_rope_head_dim":9223372036854775807,"qk_nope_head_dim":9223372036854775807,"v_head_dim":8})",
       "c.json: mla.qk_rope_head_dim: 9223372036854775807 is out of range; allowed 0 to 16777216"},
      {"llama d_model / n_heads with n_heads 0",
       R"({"model_type":"llama","hidden_size":64,"num_hidden_layers":1,"num_attention_heads":0,"intermediate_size":64,"vocab_size":8})",
       "c.json: /num_attention_heads: must be positive"},
      {"dbrx n_heads 0",
       R"({"model_type":"dbrx","d_model":64,"n_layers":1,"n_heads":0,"vocab_size":8,"attn_config":{},"ffn_config":{}})",
       "c.json: n_heads: 0 is out of range; allowed 1 to 16777216"},
      {"kv heads 0",
       R"({"model_type":"llama","hidden_size":64,"num_hidden_layers":1,"num_attention_heads":4,"num_key_value_heads":0,"intermediate_size":64,"vocab_size":8})",
       "c.json: n_kv_heads: 0 is out of range; allowed 1 to 16777216"},
      {"unsigned beyond int64",
       R"({"model_type":"llama","hidden_size":18446744073709551615,"num_hidden_layers":1,"num_attention_heads":4,"intermediate_size":64,"vocab_size":8})",
       "c.json: /hidden_size: 18446744073709551615 is too large (at most 2^63 - 1)"},
      {"layer_types longer than any model",
       R"({"model_type":"gemma2","hidden_size":64,"num_hidden_layers":9223372036854775807,"num_attention_heads":4,"intermediate_size":64,"vocab_size":8,"layer_types":["full_attention"]})",
       "c.json: /num_hidden_layers: 9223372036854775807 is out of range; allowed 1 to 65536"},
  };
  for (const Row& r : rows) {
    INFO(r.why);
    const json j = json::parse(r.config);
    REQUIRE_THROWS_AS(import_hf_config(j, "c.json"), InputError);
    REQUIRE_THROWS_WITH(import_hf_config(j, "c.json"), r.message);
  }
}

TEST_CASE("io: a GPT-2 config at the validate() bounds gets a note without overflow", "[io][hf][extreme]") {
  // 2^15 layers of 2^24 x 2^24 positions pass validate(); their mask buffers exceed 2^63 elements.
  const json j = json::parse(
      R"({"model_type":"gpt2","n_embd":64,"n_layer":32768,"n_head":4,"vocab_size":8,"n_positions":16777216})");
  std::vector<std::string> notes;
  const ModelConfig m = import_hf_config(j, "c.json", "", &notes);
  CHECK(m.learned_positions == 16777216);
  REQUIRE_FALSE(notes.empty());
  CHECK(notes.front() ==
        "attn.bias causal-mask buffers (1 x 1 x n_positions x n_positions per layer, more than 2^63 elements) are "
        "stored in some checkpoints; not parameters, excluded");
}

// N13 (reliability review 2026-12-01): a literal that underflowed to 0 (1e-400) was read as 0, a
// valid count in a batch line, where the command line refuses "--context 1e-400" as too small.
TEST_CASE("io: a number that underflows to 0 is refused with its field; a written zero is 0", "[io][reader][N13]") {
  REQUIRE_THROWS_WITH(parse_json_text(R"({"context": 1e-400})", "f"),
                      "f: /context: 1e-400 is too small for a number (it underflows to 0)");
  REQUIRE_THROWS_WITH(parse_json_text(R"({"a": [0.5, -3e-330]})", "f"),
                      "f: /a/1: -3e-330 is too small for a number (it underflows to 0)");
  CHECK(parse_json_text(R"({"a": 0.0})", "f").at("a") == 0.0);
  CHECK(parse_json_text(R"({"a": 0e-400})", "f").at("a") == 0.0);  // zero digits: zero, not an underflow
  CHECK(parse_json_text(R"({"a": 1e-300})", "f").at("a") == 1e-300);
}

// N7: a document of a million one-byte values builds a tree of tens of megabytes; the reader stops
// at kMaxJsonValues instead of building it.
TEST_CASE("io: a document of more than a million values is refused as it is read", "[io][reader][N7]") {
  std::string many = "{\"x\": [";
  for (std::size_t i = 0; i < kMaxJsonValues; ++i) many += i == 0 ? "1" : ",1";
  many += "]}";
  REQUIRE_THROWS_WITH(parse_json_text(many, "f"),
                      "f: /x/999998: more than 1000000 values; roofline's inputs have a few thousand");
  // The limit itself (the object, the array and 999,998 numbers) is read.
  std::string fewer = "{\"x\": [1";
  for (std::size_t i = 1; i < kMaxJsonValues - 2; ++i) fewer += ",1";
  fewer += "]}";
  CHECK(parse_json_text(fewer, "f").at("x").size() == kMaxJsonValues - 2);
}
