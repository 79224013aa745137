// Weight storage formats and their exact bits per weight (values, block scales, zero points), the
// classes of weights a format is assigned to, and a layout: one format per class (issue 23).
// Pure data and constexpr arithmetic; no model, no I/O.
#pragma once

#include "roofline/dtype.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace roofline {

/// Effective bits per weight of a format with one scale per group: bits + scale_bits / group
/// (int4 with fp16 scales per 128 weights: 4 + 16/128 = 4.125)  [GPTQ23]
constexpr double grouped_weight_bits(double bits, double scale_bits, double group) { return bits + scale_bits / group; }

/// With a zero point of z bits beside each group's scale: b + (s + z) / g (AWQ and GPTQ checkpoints
/// pack a 4-bit zero per group and output channel beside an fp16 scale: 4 + 20/128)  [AWQ24] [GPTQ23]
constexpr double zero_point_weight_bits(double bits, double scale_bits, double zero_bits, double group) {
  return bits + (scale_bits + zero_bits) / group;
}

/// A 2-D block of r x c weights sharing one scale: b + s / (r c) (DeepSeek-V3's FP8 weights: one
/// fp32 scale per 128 x 128 block, 8 + 32/16384)  [DSV3-3.3]
constexpr double block2d_weight_bits(double bits, double scale_bits, double rows, double cols) {
  return bits + scale_bits / (rows * cols);
}

/// A ggml block of n weights stored in B bytes: 8 B / n bits per weight (q4_0: 18 B per 32 = 4.5;
/// q4_K: 144 B per 256 = 4.5)  [GGUF]
constexpr double gguf_block_bits(double block_bytes, double weights) { return 8.0 * block_bytes / weights; }

/// A named weight storage format: bits per weight with the scales included.
struct WeightFormat {
  std::string_view name;  ///< "bf16", "mxfp4", "fp8-block128", "q4_k", ...
  double bits = 16.0;     ///< storage bits per weight, scales and zero points included
  DType storage = DType::bf16;
  bool weight_only = false;  ///< group-wise weight-only quantization: dequantized into a float matmul
  bool operator==(const WeightFormat&) const = default;
};

/// The named formats beyond the plain data types. Per-tensor scales (fp8's, NVFP4's fp32 second
/// level) add 4 bytes a tensor and are left out of the bits per weight (docs/formulas.md).
inline constexpr std::array kNamedWeightFormats = {
    // Group-wise integer formats with fp16 scales [GPTQ23]; with packed zero points [AWQ24].
    WeightFormat{"int4-g128", grouped_weight_bits(4, 16, 128), DType::int4, true},
    WeightFormat{"int4-g64", grouped_weight_bits(4, 16, 64), DType::int4, true},
    WeightFormat{"int4-g32", grouped_weight_bits(4, 16, 32), DType::int4, true},
    WeightFormat{"int8-g128", grouped_weight_bits(8, 16, 128), DType::int8, true},
    WeightFormat{"awq-g128", zero_point_weight_bits(4, 16, 4, 128), DType::int4, true},
    WeightFormat{"awq-g64", zero_point_weight_bits(4, 16, 4, 64), DType::int4, true},
    WeightFormat{"gptq-g128", zero_point_weight_bits(4, 16, 4, 128), DType::int4, true},
    WeightFormat{"gptq-int8-g128", zero_point_weight_bits(8, 16, 8, 128), DType::int8, true},
    // OCP Microscaling: 32 elements share one E8M0 scale [OCP23]; NVFP4: 16 share an E4M3 [NV25].
    WeightFormat{"mxfp4", grouped_weight_bits(4, 8, 32), DType::fp4, false},
    WeightFormat{"mxfp8", grouped_weight_bits(8, 8, 32), DType::fp8, false},
    WeightFormat{"nvfp4", grouped_weight_bits(4, 8, 16), DType::fp4, false},
    // FP8 E4M3 with one fp32 scale per 128 x 128 block, as DeepSeek-V3 ships it [DSV3-3.3].
    WeightFormat{"fp8-block128", block2d_weight_bits(8, 32, 128, 128), DType::fp8, false},
    // ggml blocks [GGUF]: q4_0 {d; qs[16]}, q4_1 {d, m; qs[16]}, q5_0 {d; qh[4]; qs[16]},
    // q5_1 {d, m; qh[4]; qs[16]}, q8_0 {d; qs[32]} per 32; the k-quants and ternary per 256.
    WeightFormat{"q4_0", gguf_block_bits(18, 32), DType::int4, true},
    WeightFormat{"q4_1", gguf_block_bits(20, 32), DType::int4, true},
    WeightFormat{"q5_0", gguf_block_bits(22, 32), DType::int8, true},
    WeightFormat{"q5_1", gguf_block_bits(24, 32), DType::int8, true},
    WeightFormat{"q8_0", gguf_block_bits(34, 32), DType::int8, true},
    WeightFormat{"q2_k", gguf_block_bits(84, 256), DType::int4, true},
    WeightFormat{"q3_k", gguf_block_bits(110, 256), DType::int4, true},
    WeightFormat{"q4_k", gguf_block_bits(144, 256), DType::int4, true},
    WeightFormat{"q5_k", gguf_block_bits(176, 256), DType::int8, true},
    WeightFormat{"q6_k", gguf_block_bits(210, 256), DType::int8, true},
    WeightFormat{"tq1_0", gguf_block_bits(54, 256), DType::int4, true},
    WeightFormat{"tq2_0", gguf_block_bits(66, 256), DType::int4, true},
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

/// A KV-cache storage format: b value bits and s bits of scales (and zero points) shared by a
/// group of g cached elements, or by one cached vector (a head's d_h elements of one token, MLA's
/// latent) when g is 0: b + s / g bits per element  [KIVI24] [GPTQ23]
struct KvFormat {
  std::string_view name;
  double value_bits = 8.0;
  double scale_bits = 0.0;
  double group = 0.0;  ///< elements per scale; 0: one scale per cached vector
  DType storage = DType::fp8;
  [[nodiscard]] constexpr double bits(double vector_width) const {
    const double g = group > 0.0 ? group : vector_width;
    return g > 0.0 ? value_bits + scale_bits / g : value_bits;
  }
};

/// fp8 with an fp32 scale per token and head (8 + 32/d_h); int8 and int4 with an fp16 scale and an
/// fp16 zero per token and head, as LMDeploy quantizes its cache; KIVI's asymmetric groups (fp16
/// scale and zero per g elements)  [KIVI24]
inline constexpr std::array kKvFormats = {
    KvFormat{"fp8-token", 8, 32, 0, DType::fp8},    KvFormat{"int8-token", 8, 32, 0, DType::int8},
    KvFormat{"int4-token", 4, 32, 0, DType::int4},  KvFormat{"int8-g64", 8, 32, 64, DType::int8},
    KvFormat{"int4-g32", 4, 32, 32, DType::int4},   KvFormat{"int4-g64", 4, 32, 64, DType::int4},
    KvFormat{"int4-g128", 4, 32, 128, DType::int4}, KvFormat{"int2-g32", 2, 32, 32, DType::int4},
    KvFormat{"int2-g128", 2, 32, 128, DType::int4},
};

constexpr std::optional<KvFormat> named_kv_format(std::string_view name) {
  for (const KvFormat& f : kKvFormats) {
    if (f.name == name) return f;
  }
  return std::nullopt;
}

/// The classes of weights a format is assigned to. Quantized checkpoints quantize matrices only:
/// every vector (norm gains, biases, sinks, scalars) is of class `vectors`, whatever layer holds it.
enum class WeightClass : std::uint8_t {
  embedding,       ///< the token (and position) tables
  attention,       ///< the token mixers' matrices: attention, MLA, indexer, state-space, convolution
  ffn,             ///< dense feed-forward matrices
  experts,         ///< routed experts' matrices
  shared_experts,  ///< shared experts' matrices
  router,          ///< the router and the shared-expert gate
  head,            ///< the untied output head
  vectors,         ///< norm gains, biases, sinks, scalars
  vision,          ///< a multimodal wrapper's vision tower and projector
};
inline constexpr std::size_t kWeightClasses = 9;
inline constexpr std::array kAllWeightClasses = {
    WeightClass::embedding, WeightClass::attention,      WeightClass::ffn,
    WeightClass::experts,   WeightClass::shared_experts, WeightClass::router,
    WeightClass::head,      WeightClass::vectors,        WeightClass::vision};

constexpr std::string_view weight_class_name(WeightClass c) {
  constexpr std::array<std::string_view, kWeightClasses> names = {
      "embedding", "attention", "ffn", "experts", "shared-experts", "router", "head", "vectors", "vision"};
  return names[static_cast<std::size_t>(c)];
}

constexpr std::optional<WeightClass> weight_class_from_name(std::string_view s) {
  for (WeightClass c : kAllWeightClasses) {
    if (weight_class_name(c) == s) return c;
  }
  return std::nullopt;
}

/// One format per weight class. uniform(): every class alike, the whole model at one format (what
/// --dtype and --weight-bits give, and the whiteboard's N b_w / 8).
struct WeightLayout {
  std::array<WeightFormat, kWeightClasses> formats{};
  bool mixed = false;  ///< some class differs from another (kept by all() and set(): uniform() is O(1))

  static constexpr WeightLayout all(const WeightFormat& f) {
    WeightLayout l;
    l.formats.fill(f);
    return l;
  }
  [[nodiscard]] constexpr const WeightFormat& of(WeightClass c) const { return formats[static_cast<std::size_t>(c)]; }
  constexpr void set(WeightClass c, const WeightFormat& f) {
    formats[static_cast<std::size_t>(c)] = f;
    mixed = false;
    for (const WeightFormat& x : formats) mixed = mixed || !(x == formats[0]);
  }
  [[nodiscard]] constexpr double bits(WeightClass c) const { return of(c).bits; }
  /// Bytes of n weights of class c: n b_c / 8.
  [[nodiscard]] constexpr double bytes(WeightClass c, double n) const { return n * bits(c) / 8.0; }
  [[nodiscard]] constexpr bool uniform() const { return !mixed; }
  bool operator==(const WeightLayout&) const = default;
};

/// The class of a parameter component (count_params's ids, layer operators' ids): the router and
/// shared-expert gate, the dense FFN's and the experts' matrices by name, every other matrix the
/// mixer's; a vector is `vectors`.
constexpr WeightClass weight_class_of(std::string_view id, bool matrix) {
  if (!matrix) return WeightClass::vectors;
  // DSA's indexer weights_proj scores like a router and is stored like one (bf16 beside FP8 wq_b
  // and wk in DeepSeek-V3.2's checkpoint: its scale count closes only so, FAMILY-NOTES-2025.md).
  if (id == "router" || id == "shared_expert_gate" || id == "indexer_weights") return WeightClass::router;
  if (id == "experts" || id.starts_with("experts_")) return WeightClass::experts;
  if (id == "shared_experts" || id.starts_with("shared_")) {
    return WeightClass::shared_experts;
  }
  if (id == "gate_proj" || id == "up_proj" || id == "down_proj") return WeightClass::ffn;
  if (id == "lm_head") return WeightClass::head;
  if (id == "embedding" || id == "project_in" || id == "project_out") return WeightClass::embedding;
  if (id == "conv_bias") return WeightClass::vectors;
  return WeightClass::attention;
}

}  // namespace roofline
