#include "roofline/misc.hpp"

#include "roofline/checked.hpp"

#include <cmath>

namespace roofline {

std::vector<std::int64_t> contiguous_strides(std::span<const std::int64_t> shape) {
  std::vector<std::int64_t> strides(shape.size(), 1);
  std::int64_t inner = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    strides[i] = inner;
    inner = checked_mul(inner, shape[i]);
  }
  return strides;
}

double uniform_logits_cross_entropy(double classes) { return std::log(classes); }

std::int64_t devices_for_weights(units::Bytes weights, units::Bytes capacity_per_device) {
  return saturated_count(std::ceil(weights / capacity_per_device));
}

}  // namespace roofline
