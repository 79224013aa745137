#pragma once

#include <string_view>
#include <vector>

namespace roofline::io {

struct EmbeddedPreset {
  std::string_view kind;       ///< "models", "gpus" or "systems"
  std::string_view name;       ///< file stem
  std::string_view path;       ///< path in the source tree, for messages
  std::string_view text;       ///< the JSON text
  std::string_view aliases;    ///< its "aliases", each followed by '\n', read at build time
  bool aliases_known = false;  ///< false: the build could not read them; the registry parses the text
};

const std::vector<EmbeddedPreset>& embedded_presets();

}  // namespace roofline::io
