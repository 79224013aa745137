// Import of Hugging Face config.json files as published.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "roofline/model_config.hpp"

namespace roofline::io {

/// Reads every field of a HF config that changes the arithmetic; class defaults where absent.
/// Throws InputError for unsupported model types or values the engine cannot represent.
ModelConfig import_hf_config(const nlohmann::json& j, std::string_view where);

/// Comma-separated list of supported model_type values, for messages and --help.
std::string supported_model_types();

}  // namespace roofline::io
