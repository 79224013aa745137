// --brief: a command's full report cut to its headline rows. The rows are copied, never rebuilt,
// so a brief value is the full output's value; each row's field says which commands' brief shows it.
#include "format/views.hpp"

namespace roofline::format {

Report brief(const Report& full, const Brief& b) {
  Report r;
  r.command = full.command;
  r.headline = full.headline;
  r.inputs = full.inputs;
  r.csv_inputs = full.csv_inputs;
  r.warnings = full.warnings;
  r.currency = full.currency;
  r.compact = true;
  for (const Section& s : full.sections) {
    for (const Row& row : s.rows) {
      if ((row.brief & b.bit) == 0U) continue;
      if (r.sections.empty() || r.sections.back().key != s.key) r.sections.push_back({s.key, s.title, {}});
      r.sections.back().rows.push_back(row);
    }
  }
  return r;
}

}  // namespace roofline::format
