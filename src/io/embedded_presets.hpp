#pragma once

#include <string_view>
#include <vector>

namespace roofline::io {

struct EmbeddedPreset {
  std::string_view kind;  ///< "models" or "gpus"
  std::string_view name;  ///< file stem
  std::string_view path;  ///< path in the source tree, for messages
  std::string_view text;  ///< the JSON text
};

const std::vector<EmbeddedPreset>& embedded_presets();

}  // namespace roofline::io
