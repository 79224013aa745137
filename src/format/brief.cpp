// --brief: a command's full report cut to its headline rows. The rows are copied, never rebuilt,
// so a brief value is the full output's value; each command's keys are declared beside its view.
#include "format/views.hpp"

#include <algorithm>

namespace roofline::format {

Report brief(const Report& full, const Brief& b) {
  Report r;
  r.command = full.command;
  r.headline = full.headline;
  r.inputs = full.inputs;
  r.csv_inputs = full.csv_inputs;
  r.warnings = full.warnings;
  r.compact = true;
  for (const std::string_view key : b.keys) {
    const std::size_t dot = key.find('.');
    const std::string_view section = key.substr(0, dot);
    const std::string_view row_key = key.substr(dot + 1);
    const auto s =
        std::find_if(full.sections.begin(), full.sections.end(), [&](const Section& x) { return x.key == section; });
    if (s == full.sections.end()) continue;
    const auto row = std::find_if(s->rows.begin(), s->rows.end(), [&](const Row& x) { return x.key == row_key; });
    if (row == s->rows.end()) continue;
    if (r.sections.empty() || r.sections.back().key != s->key) r.sections.push_back({s->key, s->title, {}});
    r.sections.back().rows.push_back(*row);
  }
  return r;
}

}  // namespace roofline::format
