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
/// An unknown model_type whose keys are all ones the generic decoder reading understands (or ones
/// that change no count) is read by it: `generic`, when given, is set true, and the notes start with
/// generic_note(); a config with other keys is refused with the list of them.
ModelConfig import_hf_config(const nlohmann::json& j, std::string_view where, std::string_view pointer = "",
                             std::vector<std::string>* checkpoint_notes = nullptr, bool* generic = nullptr);

/// The note every output of a generically read model carries: which model_type, what the reading
/// assumes, and that --strict refuses it.
std::string generic_note(std::string_view model_type);

/// Comma-separated list of supported model_type values, for messages and --help.
std::string supported_model_types();

}  // namespace roofline::io
