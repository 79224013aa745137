// One name table per enum that preset files, flags and the JSON echo share. The first entry for a
// value is its canonical name: the one written to JSON output and preset files, and the one listed
// in "is not one of" messages. Later entries for the same value are accepted spellings, so
// `--norm none` and `"norm": "nonparametric"` mean the same thing in a flag and in a file.
#pragma once

#include "io/enum_table.hpp"

#include "roofline/model_config.hpp"

#include <array>
#include <utility>

namespace roofline::io {

/// How a model reached roofline: a native preset ("architecture"), a Hugging Face config.json
/// (bare or under "hf_config"), or architecture flags alone.
enum class InputFormat { preset, hf_config, flags };

inline constexpr std::array kMlpKindNames = {std::pair{"gated", MlpKind::gated}, std::pair{"plain", MlpKind::plain}};

inline constexpr std::array kNormKindNames = {
    std::pair{"rmsnorm", NormKind::rmsnorm},
    std::pair{"layernorm", NormKind::layernorm},
    std::pair{"layernorm_nobias", NormKind::layernorm_nobias},
    std::pair{"nonparametric", NormKind::nonparametric},
    std::pair{"layernorm-nobias", NormKind::layernorm_nobias},  // flag spelling
    std::pair{"none", NormKind::nonparametric},                 // flag spelling
};

inline constexpr std::array kQkNormNames = {
    std::pair{"none", QkNorm::none},
    std::pair{"per_head", QkNorm::per_head},
    std::pair{"full_width", QkNorm::full_width},
    std::pair{"per-head", QkNorm::per_head},
    std::pair{"full-width", QkNorm::full_width},
};

inline constexpr std::array kPositionKindNames = {
    std::pair{"rope", PositionKind::rope}, std::pair{"learned", PositionKind::learned},
    std::pair{"alibi", PositionKind::alibi}, std::pair{"none", PositionKind::none}};

inline constexpr std::array kInputFormatNames = {std::pair{"preset", InputFormat::preset},
                                                 std::pair{"hf_config", InputFormat::hf_config},
                                                 std::pair{"flags", InputFormat::flags}};

/// Canonical names, as written to JSON and preset files.
inline const char* name_of(MlpKind v) { return enum_name(v, kMlpKindNames); }
inline const char* name_of(NormKind v) { return enum_name(v, kNormKindNames); }
inline const char* name_of(QkNorm v) { return enum_name(v, kQkNormNames); }
inline const char* name_of(PositionKind v) { return enum_name(v, kPositionKindNames); }
inline const char* name_of(InputFormat v) { return enum_name(v, kInputFormatNames); }

// ---- multimodal wrappers: ModelConfig::vision in the native architecture object ----
inline constexpr std::array kVisionTowerNames = {
    std::pair{"none", VisionTower::none},         std::pair{"clip", VisionTower::clip},
    std::pair{"siglip", VisionTower::siglip},     std::pair{"pixtral", VisionTower::pixtral},
    std::pair{"qwen2_vl", VisionTower::qwen2_vl}, std::pair{"qwen2_5_vl", VisionTower::qwen2_5_vl},
    std::pair{"mllama", VisionTower::mllama},     std::pair{"llama4", VisionTower::llama4}};
inline constexpr std::array kVisionProjectorNames = {
    std::pair{"none", VisionProjector::none},         std::pair{"llava", VisionProjector::llava},
    std::pair{"mistral3", VisionProjector::mistral3}, std::pair{"gemma3", VisionProjector::gemma3},
    std::pair{"mllama", VisionProjector::mllama},     std::pair{"llama4", VisionProjector::llama4}};
inline const char* name_of(VisionTower v) { return enum_name(v, kVisionTowerNames); }
inline const char* name_of(VisionProjector v) { return enum_name(v, kVisionProjectorNames); }

}  // namespace roofline::io
