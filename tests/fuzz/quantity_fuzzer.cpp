// Quantities: the first byte picks a parser (the eight of io/quantity_parse.hpp, then every input's
// own setter from io::input_defs(): dtypes, enums, switches), the rest is the text. Checks: only
// InputError, UsageError or OverflowError escape, each a non-empty one-line message; a parsed value
// is finite and in its documented range; a count written as plain digits is read exactly.
#include "io/quantity_parse.hpp"
#include "io/scenario_spec.hpp"

#include "roofline/checked.hpp"
#include "roofline/errors.hpp"

#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_common.hpp"

namespace {

using roofline::fuzz::finding;

void in_range(double v, double lo, bool lo_open, const std::string& text, const char* what) {
  if (!std::isfinite(v) || v < lo || (lo_open && v == lo)) {
    finding(std::string(what) + " out of its range", "\"" + text + "\" -> " + std::to_string(v));
  }
}

void count(const std::string& text) {
  const std::int64_t n = roofline::io::parse_count(text);
  if (n < 0 || n > (std::int64_t{1} << 62)) finding("parse_count out of [0, 2^62]", text + " -> " + std::to_string(n));
  // Plain digits (with the blanks the parser trims) are read exactly.
  const std::size_t b = text.find_first_not_of(" \t");
  const std::size_t e = text.find_last_not_of(" \t");
  if (b == std::string::npos) return;
  const std::string digits = text.substr(b, e - b + 1);
  if (digits.find_first_not_of("0123456789") != std::string::npos) return;
  std::int64_t exact = 0;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), exact);
  if (ec == std::errc{} && ptr == digits.data() + digits.size() && exact != n) {
    finding("parse_count is not exact", text + " -> " + std::to_string(n));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  namespace io = roofline::io;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  const auto& defs = io::input_defs();
  constexpr std::size_t kParsers = 8;
  const std::size_t which = data[0] % (kParsers + defs.size());
  try {
    switch (which) {
      case 0:
        in_range(io::parse_bytes(text).base(), 0.0, false, text, "parse_bytes");
        break;
      case 1:
        in_range(io::parse_bandwidth(text).base(), 0.0, false, text, "parse_bandwidth");
        break;
      case 2:
        in_range(io::parse_flop_rate(text).base(), 0.0, false, text, "parse_flop_rate");
        break;
      case 3:
        in_range(io::parse_watts(text), 0.0, false, text, "parse_watts");
        break;
      case 4:
        count(text);
        break;
      case 5:
        in_range(io::parse_rate_count(text), 0.0, true, text, "parse_rate_count");
        break;
      case 6:
        in_range(io::parse_fraction(text), -HUGE_VAL, false, text, "parse_fraction");
        break;
      case 7:
        in_range(io::parse_seconds(text), 0.0, true, text, "parse_seconds");
        break;
      default: {
        const io::InputDef& def = defs[which - kParsers];
        if (def.set == nullptr) return 0;
        io::ScenarioSpec spec;
        def.set(spec, text);
      }
    }
  } catch (const roofline::Error& e) {
    roofline::fuzz::check_message(e.what(), true);
  } catch (const roofline::OverflowError& e) {
    roofline::fuzz::check_message(e.what(), true);
  }
  return 0;
}
