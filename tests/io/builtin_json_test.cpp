// The built-in presets' reader (src/io/builtin_json.cpp) against the hardened one: on every
// embedded preset, and on documents at the edges of what it reads, it builds the same document
// with the same number types, or declines and leaves the text to parse_json_text.
#include "io/builtin_json.hpp"

#include "io/embedded_presets.hpp"
#include "io/preset_registry.hpp"

#include "roofline/errors.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace roofline::io;
using nlohmann::json;

namespace {

// Equal values and equal types all the way down: json's operator== takes 5u == 5 == 5.0.
bool same(const json& a, const json& b) {
  if (a.type() != b.type()) return false;
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (!b.contains(it.key()) || !same(it.value(), b.at(it.key()))) return false;
    }
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!same(a[i], b[i])) return false;
    }
    return true;
  }
  return a == b;
}

}  // namespace

TEST_CASE("builtin json: every embedded preset reads to the hardened reader's document", "[io][reader][builtin]") {
  std::size_t read = 0;
  for (const EmbeddedPreset& p : embedded_presets()) {
    INFO(p.path);
    const std::optional<json> fast = read_builtin_json(p.text);
    REQUIRE(fast.has_value());  // no built-in needs the fallback: each takes the cheap path
    CHECK(same(*fast, parse_json_text(p.text, p.path)));
    ++read;
  }
  CHECK(read == embedded_presets().size());
  CHECK(read > 200);
}

TEST_CASE("builtin json: documents it reads are nlohmann's, number types included", "[io][reader][builtin]") {
  const char* docs[] = {
      R"({"a": 1, "b": -7, "c": 2.5, "d": 1e3, "e": -0.25E-2, "f": 0})",
      R"([true, false, null, "x", [], {}, [[1], {"k": [2, 3]}]])",
      "  \n\t{\r\n\"s\" : \"a\\\"b\\\\c\\/d\\ne\\tf\" }  \n",
      R"({"unicode": "2 × 4 – 8 µs"})",
      R"({"big": 999999999999999999, "neg": -999999999999999999})",
      R"({"sci": 1.7976931348623157e308, "tiny": 5e-324, "third": 0.1})",
      R"("just a string")",
      "12",
  };
  for (const char* d : docs) {
    INFO(d);
    const std::optional<json> fast = read_builtin_json(d);
    REQUIRE(fast.has_value());
    CHECK(same(*fast, parse_json_text(d, "t.json")));
  }
  const std::optional<json> n = read_builtin_json(R"({"u": 5, "i": -5, "f": 5.0})");
  REQUIRE(n.has_value());
  CHECK(n->at("u").is_number_unsigned());
  CHECK(n->at("i").is_number_integer());
  CHECK_FALSE(n->at("i").is_number_unsigned());
  CHECK(n->at("f").is_number_float());
}

TEST_CASE("builtin json: what it leaves to the hardened reader", "[io][reader][builtin]") {
  const std::string deep = std::string(kMaxJsonDepth + 1, '[') + std::string(kMaxJsonDepth + 1, ']');
  const std::string at_limit = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  CHECK(read_builtin_json(at_limit).has_value());
  struct Row {
    std::string text;
    bool valid;  // the hardened reader accepts it
  };
  const Row rows[] = {
      {R"({"a": "\u00b5"})", true},             // \u escapes are the hardened reader's
      {R"({"a": 1234567890123456789})", true},  // 19 digits
      {R"({"a": -0})", true},
      {R"({"a": 1, "a": 2})", false},  // duplicate key
      {deep, false},
      {R"({"a": 1} x)", false},  // bytes after the document
      {R"({"a": 1e400})", false},
      {R"({"a": 01})", false},
      {R"({"a": .5})", false},
      {R"({"a": 1.})", false},
      {R"({"a": tru})", false},
      {R"({"a": "x)", false},
      {"{\"a\": \"\x01\"}", false},
      {R"({"a" 1})", false},
      {R"([1, 2,])", false},
      {"", false},
  };
  for (const Row& r : rows) {
    INFO(r.text);
    CHECK_FALSE(read_builtin_json(r.text).has_value());
    if (r.valid) {
      CHECK(same(parse_builtin_json(r.text, "t.json"), parse_json_text(r.text, "t.json")));
    } else {
      CHECK_THROWS_AS(parse_builtin_json(r.text, "t.json"), roofline::InputError);
    }
  }
}
