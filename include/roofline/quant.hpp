// Weight formats: plain data types and named group-wise quantization formats, and the policy that
// picks the compute data type (which dense peak applies) from the weight format.
#pragma once

#include "roofline/dtype.hpp"
#include "roofline/memory.hpp"

#include <array>
#include <optional>
#include <string_view>

namespace roofline {

/// A named weight storage format: bits per weight with the scales included.
struct WeightFormat {
  std::string_view name;  ///< "bf16", "int4-g128", "q4_k", ...
  double bits = 16.0;     ///< storage bits per weight, scales included
  DType storage = DType::bf16;
  bool weight_only = false;  ///< group-wise weight-only quantization: dequantized into a float matmul
};

/// Group-wise formats: b + 16/g bits (one fp16 scale per g weights) [GPTQ23]; GGUF k-quants use
/// llama.cpp's published bits per weight (super-blocks with 6-bit scales and mins) [GGUF].
inline constexpr std::array kNamedWeightFormats = {
    WeightFormat{"int4-g128", grouped_weight_bits(4, 16, 128), DType::int4, true},
    WeightFormat{"int4-g64", grouped_weight_bits(4, 16, 64), DType::int4, true},
    WeightFormat{"int4-g32", grouped_weight_bits(4, 16, 32), DType::int4, true},
    WeightFormat{"int8-g128", grouped_weight_bits(8, 16, 128), DType::int8, true},
    WeightFormat{"q4_0", grouped_weight_bits(4, 16, 32), DType::int4, true},
    WeightFormat{"q8_0", grouped_weight_bits(8, 16, 32), DType::int8, true},
    WeightFormat{"q4_k", 4.5, DType::int4, true},
    WeightFormat{"q5_k", 5.5, DType::int8, true},
    WeightFormat{"q6_k", 6.5625, DType::int8, true},
};

/// The plain format of a data type: dtype_bits(t) bits, named after the type.
constexpr WeightFormat plain_weight_format(DType t) { return {dtype_name(t), dtype_bits(t), t, false}; }

/// A named quantization format, exact name.
constexpr std::optional<WeightFormat> named_weight_format(std::string_view name) {
  for (const WeightFormat& f : kNamedWeightFormats) {
    if (f.name == name) return f;
  }
  return std::nullopt;
}

/// Compute dtype policy: 4-bit weights and weight-only formats are dequantized into a bf16
/// matmul; every other type computes in itself.
constexpr DType default_compute_dtype(const WeightFormat& f) {
  if (f.weight_only || f.storage == DType::int4 || f.storage == DType::fp4) return DType::bf16;
  return f.storage;
}

}  // namespace roofline
