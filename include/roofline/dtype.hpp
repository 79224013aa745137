// Data types: names, storage bits per element.
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace roofline {

/// Numeric formats a tensor can be stored or computed in.
enum class DType { fp64, fp32, tf32, bf16, fp16, fp8, int8, int4, fp4 };

inline constexpr std::array kAllDTypes = {DType::fp64, DType::fp32, DType::tf32, DType::bf16, DType::fp16,
                                          DType::fp8,  DType::int8, DType::int4, DType::fp4};

/// Storage bits per element (tf32 is stored as fp32).
constexpr double dtype_bits(DType t) {
  switch (t) {
    case DType::fp64:
      return 64.0;
    case DType::fp32:
      return 32.0;
    case DType::tf32:
      return 32.0;
    case DType::bf16:
      return 16.0;
    case DType::fp16:
      return 16.0;
    case DType::fp8:
      return 8.0;
    case DType::int8:
      return 8.0;
    case DType::int4:
      return 4.0;
    case DType::fp4:
      return 4.0;
  }
  return 0.0;
}

constexpr double dtype_bytes(DType t) { return dtype_bits(t) / 8.0; }

constexpr std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::fp64:
      return "fp64";
    case DType::fp32:
      return "fp32";
    case DType::tf32:
      return "tf32";
    case DType::bf16:
      return "bf16";
    case DType::fp16:
      return "fp16";
    case DType::fp8:
      return "fp8";
    case DType::int8:
      return "int8";
    case DType::int4:
      return "int4";
    case DType::fp4:
      return "fp4";
  }
  return "?";
}

/// Exact, case-sensitive lookup; callers lower-case user input first.
constexpr std::optional<DType> dtype_from_name(std::string_view s) {
  for (DType t : kAllDTypes) {
    if (dtype_name(t) == s) return t;
  }
  return std::nullopt;
}

}  // namespace roofline
