// Hostile input, bounded (issue 11): the one JSON reader's limits (depth, duplicate keys, NUL and
// trailing bytes, UTF-8, numbers), per-layer lists read only after the depth is bounded, preset
// directories that cannot be read, and user text echoed escaped and cut. Each case tagged [Rn]
// is a finding of the 2026-11-30 reliability review.
#include "io/hf_family.hpp"
#include "io/hf_import.hpp"
#include "io/preset_json.hpp"
#include "io/preset_registry.hpp"

#include "roofline/errors.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "io_test_support.hpp"
#include "text/user_text.hpp"

using namespace roofline;
using namespace roofline::io;
using nlohmann::json;
using roofline_test::TempDir;

namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

// True when `s` holds no byte a terminal would act on and nothing but UTF-8.
bool printable_line(const std::string& s) {
  for (const char ch : s) {
    const auto u = static_cast<unsigned char>(ch);
    if (u < 0x20 || u == 0x7F) return false;
  }
  return is_utf8(s);
}

std::string llama_config() { return roofline_test::slurp(roofline_test::hf_fixture("llama3-8b")); }

ModelPreset load_text(const std::string& text) {
  const PresetRegistry r({});
  std::istringstream in(text);
  return r.load_model("-", in);
}

}  // namespace

TEST_CASE("json: bytes after a NUL byte are not ignored", "[io][hostile][R16]") {
  const std::string text = llama_config() + std::string(1, '\0') + "this is not json {{{";
  REQUIRE_THROWS_WITH(load_text(text), "<stdin>: invalid JSON: a NUL byte at offset " +
                                           std::to_string(llama_config().size()) + "; JSON text has none");
  REQUIRE_THROWS_WITH(parse_json_text(std::string("{}\0", 3), "n.json"),
                      "n.json: invalid JSON: a NUL byte at offset 2; JSON text has none");
  // Bytes after the document without a NUL were refused already; they still are.
  REQUIRE_THROWS_WITH(parse_json_text("{} x", "t.json"),
                      Catch::StartsWith("t.json: invalid JSON: parse error at line 1, column 4:") &&
                          Catch::Contains("expected end of input"));
  // An escaped NUL inside a string is JSON.
  CHECK(parse_json_text(R"({"a": "x\u0000y"})", "s.json").at("a").get<std::string>().size() == 3);
}

TEST_CASE("json: a duplicate key is refused with its pointer", "[io][hostile][R10]") {
  std::string text = llama_config();
  text.insert(text.rfind('}'), R"(, "hidden_size": 8192, "num_hidden_layers": 64)");
  REQUIRE_THROWS_WITH(load_text(text), "<stdin>: /hidden_size: duplicate key; each key may appear once in an object");
  REQUIRE_THROWS_WITH(parse_json_text(R"({"x": {"b": [1, {"c": 1, "c": 2}]}})", "d.json"),
                      "d.json: /x/b/1/c: duplicate key; each key may appear once in an object");
  // A key with '/' or '~' is written as a JSON pointer writes it; control characters escaped.
  REQUIRE_THROWS_WITH(parse_json_text("{\"a/b~\\n\": 1, \"a/b~\\n\": 2}", "e.json"),
                      "e.json: /a~1b~0\\n: duplicate key; each key may appear once in an object");
  // The same key in two objects is not a duplicate.
  CHECK(parse_json_text(R"({"a": {"k": 1}, "b": {"k": 2}})", "ok.json").at("b").at("k") == 2);
  // A GPU preset with a second memory_capacity (the review's example) is refused too.
  const TempDir dir;
  std::string gpu = roofline_test::slurp(roofline_test::source_path("presets/gpus/h100-sxm.json"));
  gpu.insert(gpu.rfind('}'), R"(, "memory_capacity": "1 B")");
  const std::string path = dir.write("h100-twice.json", gpu);
  REQUIRE_THROWS_WITH(PresetRegistry({}).load_gpu(path),
                      path + ": /memory_capacity: duplicate key; each key may appear once in an object");
}

TEST_CASE("json: nesting deeper than 64 levels is one short line", "[io][hostile][R1]") {
  const auto nested = [](std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); };
  CHECK(parse_json_text(nested(kMaxJsonDepth), "ok.json").is_array());
  const std::string pointer65 = [] {
    std::string p;
    for (int i = 0; i < 64; ++i) p += "/0";
    return p.substr(0, kEchoLimit) + "...";
  }();
  REQUIRE_THROWS_WITH(parse_json_text(nested(kMaxJsonDepth + 1), "deep.json"),
                      "deep.json: " + pointer65 + ": nested deeper than 64 levels; roofline's inputs need a few");
  // The review's reproducer: 100,000 levels in a typed field, a segfault in dump() once.
  const std::string deep = R"({"model_type":"llama","hidden_size":)" + nested(100000) + "}";
  const std::string message = error_of([&] { load_text(deep); });
  CHECK_THAT(message, Catch::StartsWith("<stdin>: /hidden_size/0/0/0/") &&
                          Catch::EndsWith("...: nested deeper than 64 levels; roofline's inputs need a few"));
  CHECK(message.size() < 200);
  // Objects count as levels too, and the pointer names their keys.
  REQUIRE_THROWS_WITH(parse_json_text(R"({"a": {"b": )" + nested(63) + "}}", "o.json"),
                      Catch::StartsWith("o.json: /a/b/0/0/") && Catch::Contains("nested deeper than 64"));
}

TEST_CASE("json: a number out of double range names its field", "[io][hostile][R11]") {
  REQUIRE_THROWS_WITH(load_text(R"({"model_type":"llama","hidden_size":1e400})"),
                      "<stdin>: /hidden_size: 1e400 is out of range for a number (at most about 1.8e308 in magnitude)");
  REQUIRE_THROWS_WITH(parse_json_text(R"({"a": [1, -1e999]})", "n.json"),
                      "n.json: /a/1: -1e999 is out of range for a number (at most about 1.8e308 in magnitude)");
  REQUIRE_THROWS_WITH(parse_json_text("1e999", "top.json"),
                      "top.json: /: 1e999 is out of range for a number (at most about 1.8e308 in magnitude)");
  REQUIRE_THROWS_AS(parse_json_text("2e308", "n.json"), InputError);
}

TEST_CASE("json: bytes that are not UTF-8 are refused and never echoed raw", "[io][hostile][R15]") {
  const std::string message = error_of([] { parse_json_text("{\"x\xff\": 1}", "u.json"); });
  CHECK_THAT(message, Catch::StartsWith("u.json: invalid JSON: parse error at line 1, column 4:") &&
                          Catch::Contains("ill-formed UTF-8 byte; last read: '\"x\\xff'"));
  CHECK(printable_line(message));
  const std::string outside = error_of([] { parse_json_text("{\"a\": \x1b[31m}", "c.json"); });
  CHECK(printable_line(outside));
  CHECK_THAT(outside, Catch::Contains("invalid JSON"));
}

TEST_CASE("json: counts above 2^53 are exact; floats there and integers from 2^63 are refused", "[io][hostile][R9]") {
  json p = json::parse(R"({"name": "tiny", "source": "t",
    "architecture": {"n_layers": 2, "d_model": 64, "n_heads": 4, "d_ff": 256, "vocab_size": 1000}})");
  // 2^53 + 1 read through the project's reader, as a file gives it.
  std::string text = p.dump();
  text.insert(text.size() - 1, R"(,"published_params":9007199254740993)");
  CHECK(*model_from_json(parse_json_text(text, "m.json"), "m.json", "tiny").published_params == 9007199254740993LL);
  text = p.dump();
  text.insert(text.size() - 1, R"(,"published_params":9007199254740993.0)");
  REQUIRE_THROWS_WITH(model_from_json(parse_json_text(text, "m.json"), "m.json", "tiny"),
                      "m.json: /published_params: 9.007199254740992e+15 is not exact as a decimal or exponent; write "
                      "the integer's digits");
  // 2^53 as a float may have been any of two integers; just below it a float is exact.
  p["published_params"] = 9007199254740992.0;
  REQUIRE_THROWS_WITH(model_from_json(p, "m.json", "tiny"), Catch::Contains("is not exact as a decimal or exponent"));
  p["published_params"] = 9007199254740991.0;
  CHECK(*model_from_json(p, "m.json", "tiny").published_params == 9007199254740991LL);
  p.erase("published_params");
  text = p.dump();
  text.insert(text.size() - 1, R"(,"published_params":18446744073709551616)");  // 2^64: a float to nlohmann
  REQUIRE_THROWS_WITH(model_from_json(parse_json_text(text, "m.json"), "m.json", "tiny"),
                      "m.json: /published_params: 1.8446744073709552e+19 is too large (at most 2^63 - 1)");
  // An HF count at 2^53 + 1 reaches validate() exact, not rounded to 2^53.
  REQUIRE_THROWS_WITH(load_text(R"({"model_type":"llama","hidden_size":64,"num_hidden_layers":2,
    "num_attention_heads":4,"intermediate_size":256,"vocab_size":9007199254740993})"),
                      Catch::Contains("vocab_size: 9007199254740993 is out of range"));
}

TEST_CASE("hf: per-layer lists are read after the depth is bounded, in linear time", "[io][hostile][R3]") {
  json c = json::parse(roofline_test::slurp(roofline_test::hf_fixture("gemma2-9b")));
  // The review's 200,000-layer legal pattern: minutes of period search before validation once.
  const std::size_t n = 200000;
  c["num_hidden_layers"] = n;
  json types = json::array();
  for (std::size_t i = 0; i + 1 < n; ++i) types.push_back("sliding_attention");
  types.push_back("full_attention");
  c["layer_types"] = types;
  REQUIRE_THROWS_WITH(model_from_json(c, "g.json", "g"),
                      "g.json: /num_hidden_layers: 200000 is out of range; allowed 1 to 65536");
  // At the bound, the one global layer at the end is a period of 65,536, found in one pass.
  c["num_hidden_layers"] = 65536;
  types.erase(types.begin(), types.begin() + static_cast<std::ptrdiff_t>(n - 65536));
  c["layer_types"] = types;
  const ModelConfig m = model_from_json(c, "g.json", "g").config;
  CHECK(m.global_every == 65536);
  CHECK(m.n_layers == 65536);
  // Hybrid and chunked families built a list per layer before validate(): 10^15 layers hung
  // (jamba, llama4) or ran out of memory (mamba, qwen3_next).
  for (const char* family : {"jamba-v0.1", "llama4-scout-17b-16e-text", "mamba-2.8b", "qwen3-next-80b-a3b"}) {
    INFO(family);
    json h = json::parse(roofline_test::slurp(roofline_test::hf_fixture(family)));
    h["num_hidden_layers"] = 1000000000000000LL;
    for (const char* key : {"layer_types", "no_rope_layers", "moe_layers"}) h.erase(key);
    REQUIRE_THROWS_WITH(model_from_json(h, "h.json", "h"),
                        "h.json: /num_hidden_layers: 1000000000000000 is out of range; allowed 1 to 65536");
  }
}

TEST_CASE("hf: the one-pass period agrees with every layout", "[io][hostile]") {
  const auto layout = [](std::size_t n, std::int64_t p) {
    std::vector<bool> local(n);
    for (std::size_t i = 0; i < n; ++i) local[i] = !(p > 0 && static_cast<std::int64_t>(i + 1) % p == 0);
    return local;
  };
  CHECK(hf::global_period(layout(12, 0)) == 0);  // all sliding
  CHECK(hf::global_period(layout(12, 2)) == 2);
  CHECK(hf::global_period(layout(12, 6)) == 6);
  CHECK(hf::global_period(layout(13, 6)) == 6);  // a partial last period
  CHECK(hf::global_period(layout(12, 12)) == 12);
  CHECK(hf::global_period(layout(5, 1)) == -1);  // all global: not a sliding layout
  std::vector<bool> broken = layout(12, 3);
  broken[10] = false;  // an extra global layer
  CHECK(hf::global_period(broken) == -1);
  broken = layout(12, 3);
  broken[8] = true;  // a missing one
  CHECK(hf::global_period(broken) == -1);
}

TEST_CASE("preset dirs: a symlink loop or an unreadable directory is an error", "[io][hostile][R14]") {
  const TempDir dir;
  std::filesystem::create_directory_symlink("models", dir.str() + "/models");  // models -> models: ELOOP
  REQUIRE_THROWS_WITH(PresetRegistry({dir.str()}),
                      "--preset-dir: \"" + dir.str() + "/models\": Too many levels of symbolic links");
  // A model path that is a symlink loop says so, not "unknown preset".
  const std::string loop = dir.str() + "/loop";
  std::filesystem::create_symlink("loop", loop);
  REQUIRE_THROWS_WITH(PresetRegistry({}).load_model(loop, std::cin), loop + ": Too many levels of symbolic links");
  // A preset directory that is a file is not silently skipped.
  const TempDir file_dir;
  file_dir.write("gpus", "not a directory");
  REQUIRE_THROWS_WITH(PresetRegistry({file_dir.str()}),
                      "--preset-dir: \"" + file_dir.str() + "/gpus\" is not a directory");

  const TempDir locked;
  locked.write("models/x.json", "{}");
  std::filesystem::permissions(locked.str(), std::filesystem::perms::none);
  const bool readable_anyway = ::access((locked.str() + "/models").c_str(), R_OK) == 0;  // root
  if (readable_anyway) {
    WARN("running as root: a chmod 000 directory stays readable; the e2e case hostile_unreadable_dir checks it");
  } else {
    REQUIRE_THROWS_WITH(PresetRegistry({locked.str()}),
                        "--preset-dir: \"" + locked.str() + "/models\": Permission denied");
  }
  std::filesystem::permissions(locked.str(), std::filesystem::perms::owner_all);
}

TEST_CASE("preset dirs: ROOFLINE_PRESET_PATH errors name it", "[io][hostile][R15]") {
  REQUIRE_THROWS_WITH(PresetRegistry({"/nonexistent"}, 1), "ROOFLINE_PRESET_PATH: \"/nonexistent\" is not a directory");
  REQUIRE_THROWS_WITH(PresetRegistry({"/tmp", "/nonexistent"}, 1), "--preset-dir: \"/nonexistent\" is not a directory");
}

TEST_CASE("preset dirs: file names that are not printable text are refused", "[io][hostile][R12]") {
  const TempDir dir;
  const std::string tiny = R"({"name": "x", "source": "t",
    "architecture": {"n_layers": 2, "d_model": 64, "n_heads": 4, "d_ff": 256, "vocab_size": 1000}})";
  dir.write("models/x\xff.json", tiny);
  REQUIRE_THROWS_WITH(
      PresetRegistry({dir.str()}),
      dir.str() + "/models/x\\xff.json: \"x\\xff\" is not a preset name; " + std::string(kPresetNameRule));
  const TempDir esc;
  esc.write("gpus/a\x1b[2Jb.json", "{}");
  REQUIRE_THROWS_WITH(
      PresetRegistry({esc.str()}),
      esc.str() + "/gpus/a\\x1b[2Jb.json: \"a\\x1b[2Jb\" is not a preset name; " + std::string(kPresetNameRule));
  // A config given by a path with such a name is read; its label and origin are escaped.
  const TempDir path_dir;
  const std::string path = path_dir.write("p\xff.json", llama_config());
  const ModelPreset p = PresetRegistry({}).load_model(path, std::cin);
  CHECK(p.config.name == "p\\xff");
  CHECK(is_utf8(p.origin));
}

// A preset name reaches the shells' completion, comma lists and command lines: the reliability
// review ran a command named by a preset file (N5: bash's compgen -W expanded "$(touch X)") and saw
// "a b" offered as two words (N27). Names are now a safe word, and a file with any other name is
// refused with the rule (docs/presets.md).
TEST_CASE("preset dirs: a name that a shell would expand, split or glob is refused", "[io][hostile][N5][N27]") {
  const std::string tiny = R"({"name": "%", "source": "t",
    "architecture": {"n_layers": 2, "d_model": 64, "n_heads": 4, "d_ff": 256, "vocab_size": 1000}})";
  for (const std::string& name :
       std::vector<std::string>{"$(touch X)", "`touch X`", "a b", "x,y", "-rf", ".hidden", "a;b", "a*", "~x", "x'y",
                                "caf\xc3\xa9", std::string(101, 'a')}) {
    INFO(name);
    CHECK_FALSE(is_preset_name(name));
    const TempDir dir;
    dir.write("models/" + name + ".json", tiny);
    REQUIRE_THROWS_WITH(PresetRegistry({dir.str()}), display_path(dir.str() + "/models/" + name + ".json") + ": " +
                                                         quote(name) + " is not a preset name; " +
                                                         std::string(kPresetNameRule));
  }
  for (const std::string& name :
       std::vector<std::string>{"llama3-8b", "Qwen2.5-0.5B", "x_y+z", "9b", std::string(100, 'a')}) {
    CHECK(is_preset_name(name));
  }
  CHECK(is_preset_alias("meta-llama/Meta-Llama-3-8B"));
  CHECK_FALSE(is_preset_alias("a/b/c"));
  CHECK_FALSE(is_preset_alias("a b"));
  CHECK_FALSE(is_preset_alias("/x"));
  // Every built-in name and alias keeps the rule.
  const PresetRegistry builtins({});
  for (const PresetKind kind : {PresetKind::model, PresetKind::gpu}) {
    for (const PresetEntry* e : builtins.entries(kind)) {
      INFO(e->name);
      CHECK(is_preset_name(e->name));
      for (const std::string& a : builtins.aliases(*e)) CHECK(is_preset_alias(a));
    }
  }
}

// N26: a user preset whose alias is a built-in's name loaded without a word and never resolved
// (the built-in's name was found first); a preset file whose "name" differs from its file stem
// loaded under the stem when it wrapped an "hf_config".
TEST_CASE("preset dirs: an alias that is a built-in name, and a name that is not the file's, are errors",
          "[io][hostile][N26]") {
  const TempDir dir;
  const std::string path = dir.write("models/mine.json", R"({"name": "mine", "source": "t", "aliases": ["llama3-8b"],
    "architecture": {"n_layers": 2, "d_model": 64, "n_heads": 4, "d_ff": 256, "vocab_size": 1000}})");
  REQUIRE_THROWS_WITH(PresetRegistry({dir.str()}),
                      path + ": /aliases: \"llama3-8b\" is already the name of preset \"llama3-8b\" (builtin)");
  const TempDir other;
  const std::string wrapped = other.write("models/other.json", R"({"name": "wrongname", "source": "t",
    "hf_config": )" + llama_config() + "}");
  const PresetRegistry r({other.str()});
  std::istringstream no_stdin;
  REQUIRE_THROWS_WITH(r.load_model("other", no_stdin),
                      wrapped + ": /name: \"wrongname\" must equal the file name \"other\"");
}

TEST_CASE("messages: user text is quoted, escaped and cut", "[io][hostile][R15]") {
  CHECK(quote("llama3-8b") == "\"llama3-8b\"");
  CHECK(quote("no\nsuch\x1b[31m\xff\"\\") == R"("no\nsuch\x1b[31m\xff\"\\")");
  CHECK(quote("caf\xc3\xa9") == "\"caf\xc3\xa9\"");  // UTF-8 text is kept
  CHECK(quote("\xc2\x9b"
              "2J\xe2\x80\xae") == R"("\u009b2J\u202e")");  // C1 CSI, right-to-left override
  CHECK(quote("\xc0\xaf") == R"("\xc0\xaf")");              // overlong '/'
  CHECK(quote(std::string(200, 'x')) == "\"" + std::string(80, 'x') + "...\"");
  CHECK(printable("a \"quoted\" line\nand \x1b[2J\xff") == "a \"quoted\" line\\nand \\x1b[2J\\xff");
  CHECK(printable(std::string(10000, 'y')).size() == 4096 + 3);
  CHECK(display_path("dir/x.json") == "dir/x.json");
  const std::string long_path = std::string(100, 'd') + "/" + std::string(100, 'e') + "/config.json";
  CHECK(display_path(long_path) == std::string(40, 'd') + "..." + long_path.substr(long_path.size() - 77));

  const PresetRegistry r({});
  REQUIRE_THROWS_WITH(r.load_model("no\nsuch\x1b[2J", std::cin),
                      Catch::StartsWith("MODEL: unknown preset \"no\\nsuch\\x1b[2J\""));
  const std::string huge(120000, 'z');
  const std::string message = error_of([&] { (void)r.load_gpu(huge); });
  CHECK(message.size() < 200);
  CHECK_THAT(message, Catch::StartsWith("--gpu: unknown preset \"" + std::string(80, 'z') + "...\""));
}
