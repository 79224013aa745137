// The reader of the built-in presets' JSON (src/io/builtin_json.cpp); every other JSON roofline
// reads goes through parse_json_text.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string_view>

namespace roofline::io {

/// The document nlohmann's reader builds from `text`, or nullopt where `text` holds what this
/// reader leaves to parse_json_text: a \u escape, an integer of more than 18 digits, -0, a
/// duplicate key, nesting deeper than kMaxJsonDepth, or anything that is not JSON.
std::optional<nlohmann::json> read_builtin_json(std::string_view text);

/// read_builtin_json, else parse_json_text(text, where): the same document, or its InputError.
nlohmann::json parse_builtin_json(std::string_view text, std::string_view where);

}  // namespace roofline::io
