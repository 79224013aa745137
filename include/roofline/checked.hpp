// Overflow-checked integer arithmetic for exact counts. Overflow is reported, never silent.
#pragma once

#include <cstdint>
#include <stdexcept>

namespace roofline {

/// Thrown when an exact count does not fit in 64 bits; the CLI reports it as an input error.
struct OverflowError : std::overflow_error {
  using std::overflow_error::overflow_error;
};

inline std::int64_t checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) throw OverflowError("integer overflow in a parameter or byte count");
  return r;
}

inline std::int64_t checked_add(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) throw OverflowError("integer overflow in a parameter or byte count");
  return r;
}

inline std::int64_t checked_mul(std::int64_t a, std::int64_t b, std::int64_t c) {
  return checked_mul(checked_mul(a, b), c);
}

}  // namespace roofline
