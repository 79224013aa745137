#include "io/quantity_parse.hpp"

#include "io/text.hpp"

#include "roofline/errors.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace roofline::io {
namespace {

// Each kind of quantity is a base unit that takes the prefixes of units::kPrefixes ("K" is
// read as "k", as in "KB"); FLOP rates and power take decimal prefixes only.
struct UnitKind {
  std::array<std::string_view, 4> bases{};  ///< empty entries unused
  bool binary = false;                      ///< Ki, Mi, ... allowed
};
constexpr UnitKind kSizes{{"B"}, true};
constexpr UnitKind kRates{{"B/s"}, true};
constexpr UnitKind kFlopRates{{"FLOP/s", "FLOPS", "OP/s", "OPS"}, false};
constexpr UnitKind kWatts{{"W"}, false};

// The prefix of `unit` in `kind` (the no-prefix entry for a bare base unit), or nullptr when it is
// not one of its units.
const units::Prefix* unit_prefix(const UnitKind& kind, std::string_view unit) {
  static constexpr units::Prefix kNone{"", 0, 0, 1.0};
  for (std::string_view base : kind.bases) {
    if (base.empty() || !unit.ends_with(base)) continue;
    std::string_view prefix = unit.substr(0, unit.size() - base.size());
    if (prefix.empty()) return &kNone;
    if (prefix == "K") prefix = "k";
    for (const units::Prefix& p : units::kPrefixes) {
      if (p.symbol == prefix && (kind.binary || p.exp2 == 0)) return &p;
    }
  }
  return nullptr;
}

double unit_scale(const UnitKind& kind, std::string_view unit) {
  const units::Prefix* p = unit_prefix(kind, unit);
  return p != nullptr ? p->scale : 0.0;
}

// The unit of `kind` that `unit` spells in another case ("gb" for "GB"), for a suggestion. A
// lower-case b beside a capital ("Gb", "Gib") spells bits, and m is milli, not mega: no suggestion.
std::string case_fix(const UnitKind& kind, std::string_view unit) {
  const bool has_capital = std::any_of(unit.begin(), unit.end(), [](char ch) { return ch >= 'A' && ch <= 'Z'; });
  if ((has_capital && unit.find('b') != std::string_view::npos) || unit.starts_with("m")) return {};
  const auto lower = [](std::string_view x) {
    std::string l(x);
    for (char& ch : l) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return l;
  };
  for (std::string_view base : kind.bases) {
    if (base.empty()) continue;
    std::vector<std::string> spellings = {std::string(base)};
    for (const units::Prefix& p : units::kPrefixes) {
      if (kind.binary || p.exp2 == 0) spellings.push_back(std::string(p.symbol) + std::string(base));
    }
    for (const std::string& candidate : spellings) {
      if (lower(candidate) == lower(unit)) return candidate;
    }
  }
  return {};
}

// User text echoed in a message: quoted, escaped and cut (io/user_text.hpp).
std::string quoted(std::string_view s) { return quote(s); }

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// A value outside double range: "too small" when its exponent is negative (1e-400) or it has no
// non-zero digit before the point, "too large" otherwise (1e400, 400 nines).
std::string_view out_of_range_word(std::string_view number) {
  const auto e = number.find_first_of("eE");
  if (e != std::string_view::npos) return e + 1 < number.size() && number[e + 1] == '-' ? "too small" : "too large";
  for (char ch : number) {
    if (ch == '.') break;
    if (ch >= '1' && ch <= '9') return "too large";
  }
  return "too small";
}

struct Number {
  double value = 0.0;
  std::string_view digits;  ///< the number's own text, e.g. "238.3" or "1e6"
  std::string_view rest;    ///< what follows it, trimmed: the unit or multiplier
};

// Reads the leading number of "3.35 TB/s". `expected` completes `"x" is not a number...`.
Number read_number(std::string_view text, std::string_view expected) {
  const std::string_view s = trim(text);
  double v = 0.0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || (ec != std::errc() && ec != std::errc::result_out_of_range)) {
    throw InputError(quoted(text) + " is not a number" + std::string(expected));
  }
  const std::string_view digits(s.data(), static_cast<std::size_t>(ptr - s.data()));
  if (ec == std::errc::result_out_of_range)
    throw InputError(quoted(text) + " is " + std::string(out_of_range_word(digits)));
  if (!std::isfinite(v)) throw InputError(quoted(text) + " is not a finite number");
  return {v, digits, trim(std::string_view(ptr, static_cast<std::size_t>(s.data() + s.size() - ptr)))};
}

// Count multipliers are the prefixes (k/K M G T P, Ki Mi Gi Ti Pi), plus "B" for billions.
const units::Prefix* find_multiplier(std::string_view text, std::string_view name) {
  static constexpr units::Prefix kNone{"", 0, 0, 1.0};
  if (name.empty()) return &kNone;
  if (name == "K") name = "k";
  if (name == "B") name = "G";
  for (const units::Prefix& p : units::kPrefixes) {
    if (p.symbol == name) return &p;
  }
  throw InputError(quoted(text) + ": unknown multiplier " + quoted(name) +
                   "; allowed k/K M G/B T P (powers of 1000) or Ki Mi Gi Ti Pi (powers of 1024)");
}

// n x 10^exp10 x 2^exp2 without the rounding of a double product: "238.3k" is re-read as
// "238.3e3", and a power of two scales exactly.
double scaled(const Number& n, const units::Prefix& m, std::string_view text) {
  double v = n.value;
  if (m.exp10 != 0) {
    std::string_view base = n.digits;
    long exp = 0;
    const auto e = base.find_first_of("eE");
    if (e != std::string_view::npos) {
      std::string_view ex = base.substr(e + 1);
      if (!ex.empty() && ex.front() == '+') ex.remove_prefix(1);
      // An exponent past any double's (or past a long's) is out of range whatever the multiplier:
      // clamped, so that adding the multiplier's cannot overflow (the quantity fuzzer's finding).
      constexpr long kFar = 100000;
      if (std::from_chars(ex.data(), ex.data() + ex.size(), exp).ec == std::errc::result_out_of_range) {
        exp = ex.starts_with('-') ? -kFar : kFar;
      }
      exp = std::clamp(exp, -kFar, kFar);
      base = base.substr(0, e);
    }
    const std::string shifted = std::string(base) + "e" + std::to_string(exp + m.exp10);
    const auto [ptr, ec] = std::from_chars(shifted.data(), shifted.data() + shifted.size(), v);
    if (ec == std::errc::result_out_of_range) {
      throw InputError(quoted(text) + " is " + std::string(out_of_range_word(shifted)));
    }
  }
  v = std::ldexp(v, m.exp2);
  if (!std::isfinite(v)) throw InputError(quoted(text) + " is too large");
  return v;
}

// Names the kind a wrong unit belongs to, for "is a size, expected a rate" messages.
std::string_view kind_of(std::string_view unit) {
  if (unit_scale(kSizes, unit) > 0.0) return "a size";
  if (unit_scale(kRates, unit) > 0.0) return "a bandwidth";
  if (unit_scale(kFlopRates, unit) > 0.0) return "a compute rate";
  if (unit_scale(kWatts, unit) > 0.0) return "a power";
  return "";
}

double parse_with(std::string_view text, const UnitKind& kind, std::string_view what, std::string_view example) {
  const Number n = read_number(text, " with a unit; expected a value such as " + quoted(example));
  const std::string_view unit = n.rest;
  if (unit.empty()) {
    throw InputError(quoted(text) + " has no unit; expected " + std::string(what) + " such as " + quoted(example));
  }
  const units::Prefix* prefix = unit_prefix(kind, unit);
  if (prefix == nullptr) {
    const std::string_view other = kind_of(unit);
    if (!other.empty()) {
      throw InputError(quoted(text) + " is " + std::string(other) + ", expected " + std::string(what) + " such as " +
                       quoted(example));
    }
    const std::string fix = case_fix(kind, unit);
    if (!fix.empty())
      throw InputError(quoted(text) + ": unknown unit " + quoted(unit) + "; did you mean " + quoted(fix) + "?");
    throw InputError(quoted(text) + ": unknown unit " + quoted(unit) + "; expected " + std::string(what) + " such as " +
                     quoted(example));
  }
  if (n.value < 0.0) throw InputError(quoted(text) + " is negative; expected " + std::string(what));
  // Scaled exactly: "2.039 TB/s" is 2039e9 B/s, not 2.039 x 1e12 with its rounding.
  return scaled(n, *prefix, text);
}

}  // namespace

units::Bytes parse_bytes(std::string_view text) { return units::Bytes{parse_with(text, kSizes, "a size", "80 GiB")}; }

units::BytesPerSecond parse_bandwidth(std::string_view text) {
  return units::BytesPerSecond{parse_with(text, kRates, "a bandwidth", "3.35 TB/s")};
}

units::FlopPerSecond parse_flop_rate(std::string_view text) {
  return units::FlopPerSecond{parse_with(text, kFlopRates, "a compute rate", "989.4 TFLOP/s")};
}

double parse_watts(std::string_view text) { return parse_with(text, kWatts, "a power", "700 W"); }

std::int64_t parse_count(std::string_view text) {
  constexpr std::int64_t kMax = std::int64_t{1} << 62;
  const std::string too_large = quoted(text) + " is too large (at most 2^62)";
  const std::string_view s = trim(text);
  // Integers are read as integers, so counts above 2^53 stay exact and 2^62 is the real bound.
  std::int64_t i = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), i);
  const bool decimal_follows = ptr != s.data() + s.size() && (*ptr == '.' || *ptr == 'e' || *ptr == 'E');
  if (ec == std::errc() && !decimal_follows) {
    const units::Prefix* m =
        find_multiplier(text, trim(std::string_view(ptr, static_cast<std::size_t>(s.data() + s.size() - ptr))));
    if (i < 0) throw InputError(quoted(text) + " is negative");
    std::int64_t factor = std::int64_t{1} << m->exp2;
    for (int k = 0; k < m->exp10; ++k) factor *= 10;
    std::int64_t n = 0;
    if (__builtin_mul_overflow(i, factor, &n) || n > kMax) throw InputError(too_large);
    return n;
  }
  const Number num = read_number(text, "; expected a count such as \"8k\" or \"8Ki\"");
  const units::Prefix* m = find_multiplier(text, num.rest);
  if (num.value < 0.0) throw InputError(quoted(text) + " is negative");
  const double n = scaled(num, *m, text);
  if (n > 0x1p62) throw InputError(too_large);
  if (n != std::floor(n)) throw InputError(quoted(text) + " is not a whole number");
  return static_cast<std::int64_t>(n);
}

namespace {

// A positive number with the count multipliers; `example` ends each refusal.
double positive_scaled(std::string_view text, const std::string& example) {
  const Number num = read_number(text, "; " + example);
  if (num.rest == "%") throw InputError(quoted(text) + " is a percentage, " + example);
  const units::Prefix* m = find_multiplier(text, num.rest);
  if (num.value < 0.0) throw InputError(quoted(text) + " is negative; " + example);
  const double n = scaled(num, *m, text);
  if (!(n > 0.0)) throw InputError(quoted(text) + " is zero; " + example);
  return n;
}

}  // namespace

double parse_rate_count(std::string_view text) { return positive_scaled(text, "expected a rate such as \"4M\""); }

double parse_flop_count(std::string_view text) {
  return positive_scaled(text, "expected a FLOP count such as \"5.76e23\"");
}

double parse_fraction(std::string_view text) {
  const Number num = read_number(text, "; expected a value such as \"0.8\" or \"80%\"");
  if (num.rest.empty()) return num.value;
  if (num.rest == "%") return num.value / 100.0;
  throw InputError(quoted(text) + " is not a fraction; expected a value such as \"0.8\" or \"80%\"");
}

double parse_seconds(std::string_view text) {
  const std::string expected = "; expected a duration such as \"1.2s\", \"850ms\" or \"2h\"";
  const Number num = read_number(text, expected);
  // A bare number is a mistake, as a bare size is: "--tpot 20" meant 20 ms, not 20 s.
  if (num.rest.empty()) {
    const std::string bare(trim(text));
    throw InputError(quoted(text) + " has no unit; did you mean " + quoted(bare + (num.value >= 1.0 ? "ms" : "s")) +
                     "? A duration takes s, ms, us, min or h");
  }
  constexpr std::array kUnits = {std::pair{"s", 1.0}, std::pair{"ms", 1e-3}, std::pair{"us", 1e-6},
                                 std::pair{"min", 60.0}, std::pair{"h", 3600.0}};
  for (const auto& [unit, scale] : kUnits) {
    if (num.rest != unit) continue;
    if (!(num.value > 0.0)) throw InputError(quoted(text) + " must be a positive duration");
    return num.value * scale;
  }
  throw InputError(quoted(text) + ": unknown unit " + quoted(num.rest) + expected);
}

}  // namespace roofline::io
