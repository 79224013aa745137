#include "format/report.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>

namespace roofline::format {
namespace {

struct Prefix {
  double scale;
  const char* name;
};

constexpr std::array kSi = {Prefix{1e15, "P"}, Prefix{1e12, "T"}, Prefix{1e9, "G"},
                            Prefix{1e6, "M"},  Prefix{1e3, "k"},  Prefix{1.0, ""}};
constexpr std::array kSiBytes = {Prefix{1e15, "P"}, Prefix{1e12, "T"}, Prefix{1e9, "G"},
                                 Prefix{1e6, "M"},  Prefix{1e3, "k"},  Prefix{1.0, ""}};
constexpr std::array kIec = {Prefix{0x1p50, "Pi"}, Prefix{0x1p40, "Ti"}, Prefix{0x1p30, "Gi"},
                             Prefix{0x1p20, "Mi"}, Prefix{0x1p10, "Ki"}, Prefix{1.0, ""}};

template <std::size_t N>
std::string with_prefix(double x, const std::array<Prefix, N>& table, const char* unit) {
  // Past peta, scientific notation reads better than exa/zetta prefixes (papers write 8.4e22 FLOP).
  if (std::fabs(x) >= 0.9995e18) return fmt::format("{:.4g} {}", x, unit);
  for (const Prefix& p : table) {
    if (std::fabs(x) >= p.scale * 0.9995 || p.scale == 1.0) {
      return sig4(x / p.scale) + " " + p.name + unit;
    }
  }
  return sig4(x) + " " + unit;
}

std::string seconds_text(double s) {
  const double a = std::fabs(s);
  if (a == 0.0) return "0 s";
  if (a < 0.9995e-6) return sig4(s * 1e9) + " ns";
  if (a < 0.9995e-3) return sig4(s * 1e6) + " µs";
  if (a < 0.9995) return sig4(s * 1e3) + " ms";
  if (a < 86400.0) return sig4(s) + " s";
  return sig4(s / 86400.0) + " days";
}

std::string grouped(double x) { return fmt::format("{}", fmt::group_digits(static_cast<long long>(std::llround(x)))); }

}  // namespace

std::string sig4(double x) {
  if (x == 0.0) return "0";
  if (!std::isfinite(x)) return "n/a";
  const double a = std::fabs(x);
  if (a >= 1e6 || a < 1e-3) return fmt::format("{:.4g}", x);
  const int digits = static_cast<int>(std::floor(std::log10(a))) + 1;  // before the point
  const int decimals = std::max(0, 4 - digits);
  std::string s = fmt::format("{:.{}f}", x, decimals);
  return s;
}

std::string display(const Value& v, Unit u, UnitSystem units) {
  if (std::holds_alternative<std::monostate>(v)) return "n/a";
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "yes" : "no";
  const double x =
      std::holds_alternative<std::int64_t>(v) ? static_cast<double>(std::get<std::int64_t>(v)) : std::get<double>(v);
  switch (u) {
    case Unit::count:
      if (std::holds_alternative<std::int64_t>(v)) {
        return fmt::format("{}", fmt::group_digits(std::get<std::int64_t>(v)));
      }
      return std::fabs(x) >= 1e4 ? grouped(x) : sig4(x);
    case Unit::bytes:
      return units == UnitSystem::iec ? with_prefix(x, kIec, "B") : with_prefix(x, kSiBytes, "B");
    case Unit::bytes_iec:
      return with_prefix(x, kIec, "B");
    case Unit::bytes_per_s:
      return units == UnitSystem::iec ? with_prefix(x, kIec, "B/s") : with_prefix(x, kSi, "B/s");
    case Unit::flop:
      return with_prefix(x, kSi, "FLOP");
    case Unit::flop_per_s:
      return with_prefix(x, kSi, "FLOP/s");
    case Unit::flop_per_byte:
      return sig4(x) + " FLOP/B";
    case Unit::seconds:
      return seconds_text(x);
    case Unit::per_s:
      return (std::fabs(x) >= 1e4 ? grouped(x) : sig4(x)) + " tok/s";
    case Unit::tokens:
      if (std::holds_alternative<std::int64_t>(v)) {
        return fmt::format("{} tokens", fmt::group_digits(std::get<std::int64_t>(v)));
      }
      return (std::fabs(x) >= 1e4 ? grouped(x) : sig4(x)) + " tokens";
    case Unit::sequences:
      if (std::holds_alternative<std::int64_t>(v)) {
        return fmt::format("{}", fmt::group_digits(std::get<std::int64_t>(v)));
      }
      return sig4(x);
    case Unit::fraction:
      return sig4(x * 100.0) + " %";
    case Unit::ratio:
      return sig4(x) + "x";
    case Unit::days:
      return sig4(x) + " days";
    case Unit::watts:
      return sig4(x) + " W";
    case Unit::none:
    case Unit::text:
    case Unit::boolean:
      if (std::holds_alternative<std::int64_t>(v)) {
        return fmt::format("{}", fmt::group_digits(std::get<std::int64_t>(v)));
      }
      return sig4(x);
  }
  return sig4(x);
}

}  // namespace roofline::format
