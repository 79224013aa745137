// HardwareConfig: one accelerator (per chip / per GPU package).
#pragma once

#include "roofline/dtype.hpp"
#include "roofline/units.hpp"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace roofline {

struct HardwareConfig {
  std::string name;
  std::string display_name;
  std::string vendor;
  units::Bytes memory_capacity{};            ///< real bytes of the device
  units::BytesPerSecond memory_bandwidth{};  ///< peak HBM/DRAM bandwidth
  /// Dense peak per dtype, indexed by DType; empty where the part has no native path.
  std::array<std::optional<units::FlopPerSecond>, kAllDTypes.size()> peak{};
  std::string interconnect_name;                   ///< scale-up fabric ("" if none)
  units::BytesPerSecond interconnect_bandwidth{};  ///< per direction
  std::int64_t interconnect_links = 0;
  units::Seconds interconnect_latency{};  ///< alpha: per hop of a ring collective; 0 when not known
  int pcie_generation = 0;                ///< the host link's PCIe generation; 0 when not given
  int pcie_lanes = 0;
  std::optional<bool> pcie_peer_to_peer;  ///< cards may reach each other over PCIe; none: not known
  std::string system;                     ///< the system preset this accelerator usually sits in ("" none)
  double power_watts = 0.0;               ///< TDP; 0 when not published
  units::Bytes l2_cache{};                ///< last-level on-chip cache; 0 when not given
  std::vector<std::string> aliases;
  std::string source;
  std::string notes;

  [[nodiscard]] std::optional<units::FlopPerSecond> peak_for(DType t) const {
    return peak.at(static_cast<std::size_t>(t));
  }
  void set_peak(DType t, units::FlopPerSecond v) { peak.at(static_cast<std::size_t>(t)) = v; }
};

/// Every problem with a hardware config (empty when valid).
std::vector<std::string> validate(const HardwareConfig& h);

}  // namespace roofline
