// append_json_string checks eight bytes at a time before it looks at single bytes: every byte that
// needs an escape, at every offset across the eight-byte words, must still be escaped, and the
// text must read back as what was written (or U+FFFD where the bytes are not UTF-8).
#include "format/jsonl.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

namespace {

std::string written(const std::string& s) {
  std::string out;
  roofline::format::append_json_string(out, s);
  return out;
}

}  // namespace

TEST_CASE("a JSON string escapes each special byte wherever it falls in an eight-byte word", "[json]") {
  const std::string specials[] = {"\"", "\\", "\n", "\t", std::string(1, '\0'), "\x01", "\x1f", "\x7f", "é", "µs", "→"};
  for (const std::string& special : specials) {
    for (std::size_t before = 0; before < 17; ++before) {
      for (const std::size_t after : {std::size_t{0}, std::size_t{3}, std::size_t{9}}) {
        const std::string s = std::string(before, 'a') + special + std::string(after, 'z');
        INFO("offset " << before << ", byte " << static_cast<int>(static_cast<unsigned char>(special[0])));
        const std::string out = written(s);
        CHECK(nlohmann::json::parse(out).get<std::string>() == s);
        // No raw control byte, quote or backslash inside the quotes but as part of an escape.
        CHECK(out.find('\n') == std::string::npos);
        CHECK(out.find('\0') == std::string::npos);
      }
    }
  }
}

TEST_CASE("bytes that are not UTF-8 are written as U+FFFD, at any offset", "[json]") {
  for (std::size_t before = 0; before < 17; ++before) {
    const std::string s = std::string(before, 'k') + "\xff" + "tail";
    CHECK(nlohmann::json::parse(written(s)).get<std::string>() == std::string(before, 'k') + "\xEF\xBF\xBDtail");
  }
}

TEST_CASE("plain text is copied as it is", "[json]") {
  const std::string key = "decode_tokens_per_s_per_sequence";
  CHECK(written(key) == "\"" + key + "\"");
  CHECK(written("") == "\"\"");
}
