// An H100 SXM as the engine tests build it (no preset file): 80 GiB, 3.35 TB/s, 989.4 TFLOP/s of
// dense bf16 (NVIDIA H100 datasheet). Shared by the engine's and the presets' test areas.
#pragma once

#include "roofline/dtype.hpp"
#include "roofline/hardware_config.hpp"
#include "roofline/units.hpp"

namespace roofline_test {

inline roofline::HardwareConfig h100() {
  roofline::HardwareConfig h;
  h.name = "h100";
  h.memory_capacity = roofline::units::gib(80);
  h.memory_bandwidth = roofline::units::tb_per_s(3.35);
  h.set_peak(roofline::DType::bf16, roofline::units::tflop_per_s(989.4));
  return h;
}

}  // namespace roofline_test
