// Findings of the 2026-11-30 reliability review whose fixes landed before issue 11 and had no test
// of their own (R2, R7, R17). Each case would fail on the reviewed code (f5c855e): the reproducers
// are the review's.
#include "io/hf_import.hpp"
#include "io/preset_registry.hpp"
#include "io/quantity_parse.hpp"

#include "roofline/errors.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <streambuf>
#include <string>
#include <vector>

using namespace roofline;
using namespace roofline::io;

namespace {

// An endless stream of zero bytes, as `roofline params - < /dev/zero` reads.
struct Zeros : std::streambuf {
  std::vector<char> block = std::vector<char>(1 << 16, '\0');
  int_type underflow() override {
    setg(block.data(), block.data(), block.data() + block.size());
    return 0;
  }
};

nlohmann::json gpt2_config() {
  std::ifstream f(std::string(ROOFLINE_SOURCE_DIR) + "/tests/fixtures/hf/gpt2.config.json");
  return nlohmann::json::parse(f);
}

}  // namespace

TEST_CASE("R2: device files are refused unread and an endless stream stops at the cap", "[io][R2]") {
  // Before: /dev/zero was read until the kernel killed the process.
  REQUIRE_THROWS_WITH(read_file("/dev/zero"), "/dev/zero: not a regular file, expected a JSON file");
  Zeros zeros;
  std::istream in(&zeros);
  REQUIRE_THROWS_WITH(read_stream(in, "<stdin>"), "<stdin>: larger than 64 MiB; a preset or config.json is a few kB");
}

TEST_CASE("R7: GPT-2's causal-mask note past 2^63 elements says so instead of wrapping", "[io][R7]") {
  // Before: "per layer, -9223372036854775808 elements" (signed overflow of 32,768 x 2^24 x 2^24).
  nlohmann::json c = gpt2_config();
  c["n_layer"] = 32768;
  c["n_positions"] = 16777216;
  c["n_ctx"] = 16777216;
  std::vector<std::string> notes;
  const ModelConfig m = import_hf_config(c, "gpt2-note.json", "", &notes);
  CHECK(m.n_layers == 32768);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("more than 2^63 elements") != std::string::npos);
  CHECK(notes[0].find('-') == notes[0].find("-mask"));  // the only '-' is causal-mask's
  // The 4 x d_model defaults are not derived from a width out of range: the range error comes first.
  nlohmann::json wide = gpt2_config();
  wide["n_embd"] = std::int64_t{1} << 61;
  REQUIRE_THROWS_WITH(import_hf_config(wide, "wide.json"),
                      Catch::Contains("2305843009213693952 is out of range; allowed 1 to 16777216"));
}

TEST_CASE("R17: counts are read as integers, exactly, and the stated limit is the enforced one", "[io][R17]") {
  // Before: read through a double, so 2^53 + 1 became 2^53 and 2^62 + 1 was accepted as 2^62.
  CHECK(parse_count("9007199254740993") == 9007199254740993);
  CHECK(parse_count("4611686018427387904") == 4611686018427387904);
  REQUIRE_THROWS_WITH(parse_count("4611686018427387905"), Catch::Contains("too large (at most 2^62)"));
  // A percentage is a fraction, not a rate.
  REQUIRE_THROWS(parse_rate_count("50%"));
}
