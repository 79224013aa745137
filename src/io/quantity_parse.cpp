#include "io/quantity_parse.hpp"

#include "roofline/errors.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <string>
#include <utility>

namespace roofline::io {
namespace {

struct UnitScale {
  std::string_view unit;
  double scale;
};

constexpr std::array kSizes = {UnitScale{"B", 1.0},      UnitScale{"kB", 1e3},     UnitScale{"KB", 1e3},
                               UnitScale{"MB", 1e6},     UnitScale{"GB", 1e9},     UnitScale{"TB", 1e12},
                               UnitScale{"PB", 1e15},    UnitScale{"KiB", 0x1p10}, UnitScale{"MiB", 0x1p20},
                               UnitScale{"GiB", 0x1p30}, UnitScale{"TiB", 0x1p40}, UnitScale{"PiB", 0x1p50}};
constexpr std::array kRates = {UnitScale{"B/s", 1.0},      UnitScale{"kB/s", 1e3},     UnitScale{"KB/s", 1e3},
                               UnitScale{"MB/s", 1e6},     UnitScale{"GB/s", 1e9},     UnitScale{"TB/s", 1e12},
                               UnitScale{"KiB/s", 0x1p10}, UnitScale{"MiB/s", 0x1p20}, UnitScale{"GiB/s", 0x1p30},
                               UnitScale{"TiB/s", 0x1p40}, UnitScale{"PB/s", 1e15}};
constexpr std::array kFlopRates = {UnitScale{"FLOP/s", 1.0},   UnitScale{"GFLOP/s", 1e9}, UnitScale{"TFLOP/s", 1e12},
                                   UnitScale{"PFLOP/s", 1e15}, UnitScale{"FLOPS", 1.0},   UnitScale{"GFLOPS", 1e9},
                                   UnitScale{"TFLOPS", 1e12},  UnitScale{"PFLOPS", 1e15}, UnitScale{"OP/s", 1.0},
                                   UnitScale{"GOP/s", 1e9},    UnitScale{"TOP/s", 1e12},  UnitScale{"POP/s", 1e15},
                                   UnitScale{"TOPS", 1e12},    UnitScale{"POPS", 1e15}};
constexpr std::array kWatts = {UnitScale{"W", 1.0}, UnitScale{"kW", 1e3}};
constexpr std::array kCounts = {UnitScale{"", 1.0},      UnitScale{"k", 1e3},     UnitScale{"K", 1e3},
                                UnitScale{"M", 1e6},     UnitScale{"G", 1e9},     UnitScale{"B", 1e9},
                                UnitScale{"T", 1e12},    UnitScale{"Ki", 0x1p10}, UnitScale{"Mi", 0x1p20},
                                UnitScale{"Gi", 0x1p30}, UnitScale{"Ti", 0x1p40}};

std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Splits "3.35 TB/s" into 3.35 and "TB/s"; throws when there is no number.
std::pair<double, std::string_view> split(std::string_view text, std::string_view example) {
  const std::string_view s = trim(text);
  double v = 0.0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || s.empty()) {
    throw InputError(quoted(text) + " is not a number with a unit; expected a value such as " + quoted(example));
  }
  if (!std::isfinite(v)) throw InputError(quoted(text) + " is not a finite number");
  return {v, trim(std::string_view(ptr, static_cast<std::size_t>(s.data() + s.size() - ptr)))};
}

template <std::size_t N>
const UnitScale* find(const std::array<UnitScale, N>& table, std::string_view unit) {
  for (const UnitScale& u : table) {
    if (u.unit == unit) return &u;
  }
  return nullptr;
}

// Names the kind a wrong unit belongs to, for "is a size, expected a rate" messages.
std::string_view kind_of(std::string_view unit) {
  if (find(kSizes, unit)) return "a size";
  if (find(kRates, unit)) return "a bandwidth";
  if (find(kFlopRates, unit)) return "a compute rate";
  if (find(kWatts, unit)) return "a power";
  return "";
}

template <std::size_t N>
double parse_with(std::string_view text, const std::array<UnitScale, N>& table, std::string_view what,
                  std::string_view example) {
  const auto [v, unit] = split(text, example);
  if (unit.empty()) {
    throw InputError(quoted(text) + " has no unit; expected " + std::string(what) + " such as " + quoted(example));
  }
  const UnitScale* u = find(table, unit);
  if (u == nullptr) {
    const std::string_view other = kind_of(unit);
    if (!other.empty()) {
      throw InputError(quoted(text) + " is " + std::string(other) + ", expected " + std::string(what) + " such as " +
                       quoted(example));
    }
    throw InputError(quoted(text) + ": unknown unit " + quoted(unit) + "; expected " + std::string(what) + " such as " +
                     quoted(example));
  }
  if (v < 0.0) throw InputError(quoted(text) + " is negative; expected " + std::string(what));
  if (!std::isfinite(v * u->scale)) throw InputError(quoted(text) + " is too large");
  return v * u->scale;
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
  const auto [v, unit] = split(text, "8Ki");
  const UnitScale* u = find(kCounts, unit);
  if (u == nullptr) {
    throw InputError(quoted(text) + ": unknown multiplier " + quoted(unit) +
                     "; allowed k/K M G/B T (powers of 1000) or Ki Mi Gi Ti (powers of 1024)");
  }
  const double n = v * u->scale;
  if (n < 0.0 || n != std::floor(n) || n > 0x1p62) {
    throw InputError(quoted(text) + " is not a whole number of at most 2^62");
  }
  return static_cast<std::int64_t>(n);
}

double parse_fraction(std::string_view text) {
  const auto [v, unit] = split(text, "0.8");
  if (unit.empty()) return v;
  if (unit == "%") return v / 100.0;
  throw InputError(quoted(text) + " is not a fraction; expected a value such as \"0.8\" or \"80%\"");
}

}  // namespace roofline::io
