// Import of Hugging Face config.json files as published.
#pragma once

#include "roofline/model_config.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace roofline::io {

/// Reads every field of a HF config that changes the arithmetic; class defaults where absent.
/// Throws InputError for unsupported model types or values the engine cannot represent.
/// `where` names the file, `pointer` the config's JSON pointer inside it ("" or "/hf_config").
/// Every value is validated before anything is derived from it in a message. `checkpoint_notes`,
/// when given, receives notes on checkpoint tensors that are not parameters (ModelPreset's).
ModelConfig import_hf_config(const nlohmann::json& j, std::string_view where, std::string_view pointer = "",
                             std::vector<std::string>* checkpoint_notes = nullptr);

/// Comma-separated list of supported model_type values, for messages and --help.
std::string supported_model_types();

}  // namespace roofline::io
