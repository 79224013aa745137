// One name table per enum that preset files, flags and the JSON echo share. The first entry for a
// value is its canonical name: the one written to JSON output and preset files, and the one listed
// in "is not one of" messages. Later entries for the same value are accepted spellings, so
// `--norm none` and `"norm": "nonparametric"` mean the same thing in a flag and in a file.
#pragma once

#include "roofline/layer_ops.hpp"
#include "roofline/model_config.hpp"
#include "roofline/scenario.hpp"
#include "roofline/training.hpp"
#include "roofline/workload.hpp"

#include <array>
#include <string>
#include <string_view>
#include <utility>

#include "text/enum_table.hpp"

namespace roofline::text {

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
    std::pair{"mllama", VisionTower::mllama},     std::pair{"llama4", VisionTower::llama4},
    std::pair{"qwen3_vl", VisionTower::qwen3_vl}, std::pair{"moonvit", VisionTower::moonvit},
    std::pair{"gemma4", VisionTower::gemma4}};
inline constexpr std::array kVisionProjectorNames = {
    std::pair{"none", VisionProjector::none},         std::pair{"llava", VisionProjector::llava},
    std::pair{"mistral3", VisionProjector::mistral3}, std::pair{"gemma3", VisionProjector::gemma3},
    std::pair{"mllama", VisionProjector::mllama},     std::pair{"llama4", VisionProjector::llama4},
    std::pair{"kimi", VisionProjector::kimi},         std::pair{"gemma4", VisionProjector::gemma4}};
inline const char* name_of(VisionTower v) { return enum_name(v, kVisionTowerNames); }
inline const char* name_of(VisionProjector v) { return enum_name(v, kVisionProjectorNames); }

// ---- conventions and workload choices: the flags' values and the JSON echo ----
inline constexpr std::array kScalingFitNames = {std::pair{"hoffmann22", ScalingFit::hoffmann22},
                                                std::pair{"besiroglu24", ScalingFit::besiroglu24},
                                                std::pair{"20-tokens", ScalingFit::tokens20}};

inline constexpr std::array kModelFlopsNames = {std::pair{"6n", ModelFlopsConvention::six_n},
                                                std::pair{"palm", ModelFlopsConvention::palm},
                                                std::pair{"megatron", ModelFlopsConvention::megatron}};
inline constexpr std::array kFlopBasisNames = {std::pair{"physical", FlopBasis::physical},
                                               std::pair{"non-embedding", FlopBasis::non_embedding},
                                               std::pair{"all-params", FlopBasis::all_params}};
inline constexpr std::array kAttentionModeNames = {std::pair{"causal", AttentionMode::causal},
                                                   std::pair{"full", AttentionMode::full}};
inline constexpr std::array kLmHeadNames = {std::pair{"last", LmHeadPositions::last},
                                            std::pair{"all", LmHeadPositions::all}};
inline constexpr std::array kDecodeBytesNames = {std::pair{"touched", DecodeBytes::touched},
                                                 std::pair{"all-weights", DecodeBytes::all_weights}};
inline constexpr std::array kMoeDecodeNames = {std::pair{"expected", MoeDecodeBytes::expected},
                                               std::pair{"all-experts", MoeDecodeBytes::all_experts},
                                               std::pair{"top-k", MoeDecodeBytes::top_k}};
inline constexpr std::array kPhaseNames = {std::pair{"prefill", Phase::prefill}, std::pair{"decode", Phase::decode}};
inline constexpr std::array kCapacitySourceNames = {std::pair{"device", CapacitySource::device},
                                                    std::pair{"override", CapacitySource::override_bytes}};

inline std::string_view name_of(FlopBasis v) { return enum_name(v, kFlopBasisNames); }
inline std::string_view name_of(ModelFlopsConvention v) { return enum_name(v, kModelFlopsNames); }
inline std::string_view name_of(ScalingFit v) { return enum_name(v, kScalingFitNames); }
inline std::string_view name_of(AttentionMode v) { return enum_name(v, kAttentionModeNames); }
inline std::string_view name_of(LmHeadPositions v) { return enum_name(v, kLmHeadNames); }
inline std::string_view name_of(DecodeBytes v) { return enum_name(v, kDecodeBytesNames); }
inline std::string_view name_of(MoeDecodeBytes v) { return enum_name(v, kMoeDecodeNames); }
inline std::string_view name_of(CapacitySource v) { return enum_name(v, kCapacitySourceNames); }
inline std::string_view name_of(Phase v) { return enum_name(v, kPhaseNames); }

/// A hybrid layer kind as its "+"-joined parts ("mamba2", "attention+moe"), as the JSON writes it.
std::string layer_mix_name(const LayerMix& x);

/// One layer kind as `models` lists it: its attention (MHA, GQA, MQA, MLA, cross-attention; a
/// window as "(sliding W)"), a state mixer after "|" (Mamba-1, Mamba-2, GatedDeltaNet), then
/// "+dense" or "+MoE" for its FFN: "GQA(sliding 1024)+dense", "Mamba-2", "GQA|Mamba-2+dense".
std::string layer_kind_name(const ModelConfig& m, const LayerKind& k);
/// The stack in one line, "3 x MLA+dense, 58 x MLA+MoE": each kind's count and name, in order of
/// its first layer.
std::string stack_summary(const ModelConfig& m, const LayerStack& s);

}  // namespace roofline::text
