// Axes of a chart: whole decades on a log axis, 1-2-5 steps on a linear one, and tick labels that
// read as people write them (0.1, 1, 10, 100, 1k).
#include "format/plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace roofline::format::plot {
namespace {

// The decimal exponent of a power-of-ten label scale (1e12 -> 12).
int scale_exponent(double label_scale) { return static_cast<int>(std::lround(std::log10(label_scale))); }

// m x 10^k as text: 1k, 20k, 5M above a thousand, 0.05 below one; 1e30 past a million G and
// 1e-9 below a millionth (10^k past 2^63 does not fit the integer the prefixes are printed from).
std::string mantissa_text(int m, int k) {
  if (k >= 15 || k < -6) return fmt::format("{}e{}", m, k);
  if (k >= 9) return fmt::format("{}G", m * static_cast<long long>(std::pow(10.0, k - 9)));
  if (k >= 6) return fmt::format("{}M", m * static_cast<long long>(std::pow(10.0, k - 6)));
  if (k >= 3) return fmt::format("{}k", m * static_cast<long long>(std::pow(10.0, k - 3)));
  if (k >= 0) return fmt::format("{}", m * static_cast<long long>(std::pow(10.0, k)));
  return fmt::format("{:.{}f}", m * std::pow(10.0, k), -k);
}

// A tick of a log axis as (mantissa, exponent): v = m 10^e with m in 1..9.
std::pair<int, int> decompose(double v) {
  int e = static_cast<int>(std::floor(std::log10(v) + 1e-9));
  int m = static_cast<int>(std::lround(v / std::pow(10.0, e)));
  if (m >= 10) {
    m /= 10;
    ++e;
  }
  return {m, e};
}

double nice_step(double span) {
  const double raw = span / 5.0;
  const double e = std::floor(std::log10(raw));
  const double base = std::pow(10.0, e);
  for (const double m : {1.0, 2.0, 5.0}) {
    if (m * base >= raw) return m * base;
  }
  return 10.0 * base;
}

}  // namespace

Axis log_axis(std::string title, double lo, double hi, double label_scale) {
  Axis a;
  a.title = std::move(title);
  a.scale = Scale::log;
  a.label_scale = label_scale;
  if (!(lo > 0.0) || !std::isfinite(lo)) lo = 1.0;
  if (!(hi > 0.0) || !std::isfinite(hi)) hi = lo * 10.0;
  if (hi < lo) std::swap(lo, hi);
  int from = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
  int to = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
  if (to <= from) to = from + 1;
  a.min = std::pow(10.0, from);
  a.max = std::pow(10.0, to);
  return a;
}

Axis linear_axis(std::string title, double hi, double label_scale) {
  Axis a;
  a.title = std::move(title);
  a.scale = Scale::linear;
  a.label_scale = label_scale;
  if (!(hi > 0.0) || !std::isfinite(hi)) hi = label_scale;
  const double step = nice_step(hi / label_scale);
  a.min = 0.0;
  a.max = std::ceil(hi / label_scale / step - 1e-9) * step * label_scale;
  return a;
}

std::vector<double> ticks(const Axis& a) {
  std::vector<double> out;
  if (a.scale == Scale::linear) {
    // Steps of 1, 2 or 5 in the unit the labels read (GB, GiB, ms).
    const double step = nice_step((a.max - a.min) / a.label_scale) * a.label_scale;
    for (int i = 0; a.min + i * step <= a.max * (1.0 + 1e-9); ++i) out.push_back(a.min + i * step);
    return out;
  }
  const int from = decompose(a.min).second;
  const int to = decompose(a.max).second;
  const bool fine = to - from <= 2;
  for (int e = from; e <= to; ++e) {
    const double base = std::pow(10.0, e);
    out.push_back(base);
    if (fine && e < to) {
      out.push_back(2.0 * base);
      out.push_back(5.0 * base);
    }
  }
  return out;
}

bool major_tick(const Axis& a, double v) { return a.scale == Scale::linear || decompose(v).first == 1; }

std::string tick_label(const Axis& a, double v) {
  const int s = scale_exponent(a.label_scale);
  if (a.scale == Scale::log) {
    const auto [m, e] = decompose(v);
    return mantissa_text(m, e - s);
  }
  if (v == 0.0) return "0";
  const double step = nice_step((a.max - a.min) / a.label_scale);
  const int e = static_cast<int>(std::floor(std::log10(step) + 1e-9));
  const double shown = v / a.label_scale;
  return fmt::format("{:.{}f}", shown, std::max(0, -e));
}

double position(const Axis& a, double v) {
  if (a.scale == Scale::linear) return (v - a.min) / (a.max - a.min);
  if (!(v > 0.0)) return -1.0;
  return (std::log10(v) - std::log10(a.min)) / (std::log10(a.max) - std::log10(a.min));
}

}  // namespace roofline::format::plot
