// gpus and models: the preset listings. They read the preset registry (io), so they live here
// rather than in format, which shows what it is given.
#pragma once

#include "format/report.hpp"
#include "io/preset_registry.hpp"

#include <string_view>
#include <utility>
#include <vector>

namespace roofline::cli {

format::Report gpus_report(const io::PresetRegistry& reg);
/// The system presets: each one's domains, links and their ridge points (issue 24).
format::Report systems_report(const io::PresetRegistry& reg);
/// The model presets of FAMILY: those whose model family (qwen3, llama, palm) or whose name starts
/// with it (gpt3, qwen3 also takes qwen3-30b-a3b), in any case; every one for "". A family that
/// matches nothing is a UsageError naming the families there are.
std::vector<std::pair<const io::PresetEntry*, io::ModelPreset>> model_presets(const io::PresetRegistry& reg,
                                                                              std::string_view family);
format::Report models_report(const io::PresetRegistry& reg, std::string_view family = {});

}  // namespace roofline::cli
