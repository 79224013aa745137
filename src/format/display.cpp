#include "format/report.hpp"

#include "roofline/units.hpp"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

namespace roofline::format {
namespace {

// Display prefixes from the one table of scales (units::kPrefixes), largest first.
struct Prefix {
  double scale;
  std::string_view name;
};

template <bool Binary>
constexpr auto prefixes() {
  std::array<Prefix, 6> out{};
  std::size_t n = 0;
  for (auto it = units::kPrefixes.rbegin(); it != units::kPrefixes.rend(); ++it) {
    if ((it->exp2 != 0) == Binary) out.at(n++) = {it->scale, it->symbol};
  }
  out.at(n) = {1.0, ""};
  return out;
}

constexpr auto kSi = prefixes<false>();
constexpr auto kIec = prefixes<true>();

template <std::size_t N>
std::string with_prefix(double x, const std::array<Prefix, N>& table, const char* unit) {
  // Past peta, scientific notation reads better than exa/zetta prefixes (papers write 8.4e22 FLOP).
  if (std::fabs(x) >= 0.9995e18) return fmt::format("{:.4g} {}", x, unit);
  for (const Prefix& p : table) {
    if (std::fabs(x) >= p.scale * 0.9995 || p.scale == 1.0) {
      return sig4(x / p.scale) + " " + std::string(p.name) + unit;
    }
  }
  return sig4(x) + " " + unit;
}

std::string seconds_text(double s) {
  const double a = std::fabs(s);
  if (!std::isfinite(s)) return "n/a";
  if (a == 0.0) return "0 s";
  if (a < 0.9995e-6) return sig4(s * 1e9) + " ns";
  if (a < 0.9995e-3) return sig4(s * 1e6) + " µs";
  if (a < 0.9995) return sig4(s * 1e3) + " ms";
  if (a < units::kSecondsPerDay) return sig4(s) + " s";
  const double days = s / units::kSecondsPerDay;
  // Days are never in e-notation: from 1,000 up, whole days with separators.
  return (std::fabs(days) >= 1000.0 ? grouped_number(days) : sig4(days)) + " days";
}

std::string grouped_unsigned(std::uint64_t v) { return fmt::format("{}", fmt::group_digits(v)); }

}  // namespace

// fmt 9.1 (Debian 12) groups a negative integer's two's complement as if it were unsigned:
// group_digits(-5) is "18,446,744,073,709,551,611" (fmtlib/fmt#3891, fixed upstream in 10.x). So
// the digits are always grouped from the magnitude, as an unsigned value, and the sign is ours.
std::string grouped(std::int64_t v) {
  if (v >= 0) return grouped_unsigned(static_cast<std::uint64_t>(v));
  // -(v + 1) + 1 is the magnitude without overflowing at INT64_MIN.
  return "-" + grouped_unsigned(static_cast<std::uint64_t>(-(v + 1)) + 1U);
}

std::string grouped_number(double x) {
  // Past 1e15 a double no longer holds every unit and llround would overflow past 2^63:
  // four significant digits say what the value is.
  if (!std::isfinite(x) || std::fabs(x) >= 1e15) return sig4(x);
  return grouped(static_cast<std::int64_t>(std::llround(x)));
}

std::string sig4(double x) {
  if (x == 0.0) return "0";
  if (!std::isfinite(x)) return "n/a";
  const double a = std::fabs(x);
  if (a >= 1e6 || a < 1e-3) return fmt::format("{:.4g}", x);
  int digits = static_cast<int>(std::floor(std::log10(a))) + 1;  // before the point
  // Rounding can carry into a new digit (999.96 -> 1000.0): then one decimal fewer.
  if (std::fabs(std::round(x * std::pow(10.0, std::max(0, 4 - digits))) / std::pow(10.0, std::max(0, 4 - digits))) >=
      std::pow(10.0, digits)) {
    ++digits;
  }
  if (digits >= 4) {
    // A number in [1e3, 1e6) to the unit, with separators from 1,000 up: rounded to four
    // significant digits a larger one would end in zeros that read as an exact count (117,079.4
    // device-hours as "117,100").
    return grouped(static_cast<std::int64_t>(std::llround(x)));
  }
  // A compiled format: every figure of a table and every note goes through here.
  return fmt::format(FMT_COMPILE("{:.{}f}"), x, std::max(0, 4 - digits));
}

std::string display(const Value& v, Unit u, UnitSystem units) {
  if (std::holds_alternative<std::monostate>(v)) return "n/a";
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "yes" : "no";
  if (const auto* i = std::get_if<std::int64_t>(&v)) {
    switch (u) {
      case Unit::tokens:
        return grouped(*i) + " tokens";
      case Unit::sequences:
        return grouped(*i) + " seq";
      case Unit::count:
      case Unit::none:
      case Unit::text:
      case Unit::boolean:
        return grouped(*i);
      default:
        break;
    }
  }
  const double x =
      std::holds_alternative<std::int64_t>(v) ? static_cast<double>(std::get<std::int64_t>(v)) : std::get<double>(v);
  switch (u) {
    case Unit::count:
      return x == std::floor(x) || std::fabs(x) >= 1e4 ? grouped_number(x) : sig4(x);
    case Unit::sequences:
      return grouped_number(x) + " seq";
    case Unit::bytes:
      return units == UnitSystem::iec ? with_prefix(x, kIec, "B") : with_prefix(x, kSi, "B");
    case Unit::bytes_per_s:
      // Bandwidth is decimal whatever --units says: datasheets and links quote GB/s and TB/s.
      return with_prefix(x, kSi, "B/s");
    case Unit::flop:
      return with_prefix(x, kSi, "FLOP");
    case Unit::flop_per_s:
      return with_prefix(x, kSi, "FLOP/s");
    case Unit::flop_per_byte:
      return sig4(x) + " FLOP/B";
    case Unit::seconds:
      return seconds_text(x);
    case Unit::per_s:
      return (std::fabs(x) >= 1e4 ? grouped_number(x) : sig4(x)) + " tok/s";
    case Unit::tokens:
      return grouped_number(x) + " tokens";
    case Unit::fraction:
      return sig4(x * 100.0) + " %";
    case Unit::ratio:
      return sig4(x) + "x";
    case Unit::watts:
      return sig4(x) + " W";
    case Unit::money:
      // Money is never in e-notation: whole units with separators from 1,000, cents below.
      return std::fabs(x) >= 1000.0 ? grouped_number(x) : fmt::format("{:.2f}", x);
    case Unit::none:
      // A plain number from 1,000 up has thousands separators, never e-notation.
      if (std::fabs(x) >= 1000.0) return grouped_number(x);
      return sig4(x);
    case Unit::text:
    case Unit::boolean:
      return sig4(x);
  }
  return sig4(x);
}

}  // namespace roofline::format
