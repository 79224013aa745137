#include "roofline/scenario.hpp"

#include <algorithm>
#include <cmath>

namespace roofline {

std::optional<units::FlopPerSecond> device_peak(const Scenario& s) {
  if (!s.accelerator) return std::nullopt;
  const auto peak = s.accelerator->hw.peak_for(s.workload.compute_dtype);
  if (!peak || peak->base() <= 0.0) return std::nullopt;
  return peak;
}

units::Bytes total_capacity(const Scenario& s) {
  if (!s.accelerator) return units::Bytes{};
  return s.accelerator->hw.memory_capacity * static_cast<double>(s.deployment.devices);
}

units::Bytes total_reserve(const Scenario& s) { return s.workload.reserve * static_cast<double>(s.deployment.devices); }

Machine effective_machine(const Scenario& s) {
  Machine m;
  if (!s.accelerator) return m;
  const double g = static_cast<double>(s.deployment.devices);
  m.bandwidth = s.accelerator->hw.memory_bandwidth * (s.workload.bw_efficiency * g);
  const auto peak = device_peak(s);
  m.peak = peak ? *peak * (s.workload.mfu * g) : units::FlopPerSecond{HUGE_VAL};
  return m;
}

}  // namespace roofline

namespace roofline {

std::optional<std::int64_t> devices_to_fit(units::Bytes need, units::Bytes usable_per_device) {
  if (usable_per_device.base() <= 0.0) return std::nullopt;
  const double g = std::ceil(need / usable_per_device);
  constexpr double kMax = 0x1p62;
  return static_cast<std::int64_t>(std::clamp(g, 1.0, kMax));
}

}  // namespace roofline
