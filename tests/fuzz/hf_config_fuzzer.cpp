// Hugging Face config.json import: the bytes are the file. parse_json_text, then import_hf_config,
// then the engine's parameter count of what was imported. Checks: only the project's errors escape,
// with non-empty messages (one line each); an imported model passes validate() and its counts are
// non-negative, with total = non-embedding + the embedding tables + vision.
#include "io/hf_import.hpp"
#include "io/preset_registry.hpp"

#include "roofline/checked.hpp"
#include "roofline/errors.hpp"
#include "roofline/model_config.hpp"
#include "roofline/params.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_common.hpp"

namespace {

using roofline::fuzz::finding;

void check_counts(const roofline::ModelConfig& m, std::string_view input) {
  if (const auto problems = roofline::validate(m); !problems.empty()) {
    finding("an imported model fails validate(): " + problems.front(), input);
  }
  try {
    const roofline::ParamCounts c = roofline::count_params(m);
    if (c.total <= 0 || c.active <= 0 || c.active > c.total || c.non_embedding < 0 || c.embedding < 0 || c.blocks < 0 ||
        c.lm_head < 0) {
      finding(
          "parameter counts out of range: total " + std::to_string(c.total) + ", active " + std::to_string(c.active),
          input);
    }
  } catch (const roofline::OverflowError& e) {
    roofline::fuzz::check_message(e.what(), true);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const nlohmann::json j = roofline::io::parse_json_text(text, "config.json");
    std::vector<std::string> notes;
    const roofline::ModelConfig m = roofline::io::import_hf_config(j, "config.json", "", &notes);
    check_counts(m, text);
  } catch (const roofline::Error& e) {
    roofline::fuzz::check_message(e.what(), false);
  } catch (const roofline::OverflowError& e) {
    roofline::fuzz::check_message(e.what(), true);
  }
  return 0;
}
