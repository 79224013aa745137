// Native presets: the first byte picks a model preset (even) or a GPU preset (odd), the rest is the
// file. parse_json_text, then model_from_json or hardware_from_json. Checks: only the project's
// errors escape, with non-empty messages; a model passes validate(), its parameter count is
// positive, and its architecture written back as JSON (architecture_to_json) reads back to the same
// count; a GPU passes validate().
#include "io/preset_json.hpp"
#include "io/preset_registry.hpp"

#include "roofline/checked.hpp"
#include "roofline/errors.hpp"
#include "roofline/hardware_config.hpp"
#include "roofline/model_config.hpp"
#include "roofline/params.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_common.hpp"

namespace {

using roofline::fuzz::finding;

void check_model(const roofline::io::ModelPreset& p, std::string_view input) {
  const roofline::ModelConfig& m = p.config;
  if (const auto problems = roofline::validate(m); !problems.empty()) {
    finding("a model preset fails validate(): " + problems.front(), input);
  }
  try {
    const roofline::ParamCounts c = roofline::count_params(m);
    if (c.total <= 0 || c.active <= 0 || c.active > c.total) {
      finding("parameter counts out of range: total " + std::to_string(c.total), input);
    }
    roofline::ModelConfig back = m;
    roofline::io::architecture_from_json(roofline::io::architecture_to_json(m), "round trip", back);
    if (roofline::count_params(back).total != c.total) finding("architecture_to_json does not read back", input);
  } catch (const roofline::OverflowError& e) {
    roofline::fuzz::check_message(e.what(), true);
  }
}

void check_gpu(const roofline::HardwareConfig& h, std::string_view input) {
  if (const auto problems = roofline::validate(h); !problems.empty()) {
    finding("a GPU preset fails validate(): " + problems.front(), input);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    const nlohmann::json j = roofline::io::parse_json_text(text, "preset.json");
    if (data[0] % 2 == 0) {
      check_model(roofline::io::model_from_json(j, "preset.json", "fuzz"), text);
    } else {
      check_gpu(roofline::io::hardware_from_json(j, "gpu.json"), text);
    }
  } catch (const roofline::Error& e) {
    roofline::fuzz::check_message(e.what(), false);
  } catch (const roofline::OverflowError& e) {
    roofline::fuzz::check_message(e.what(), true);
  }
  return 0;
}
