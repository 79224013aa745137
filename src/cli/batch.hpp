// batch: a JSON Lines stream of plans. Each input line is a JSON object naming a command and its
// inputs by their flag names ({"command":"decode","model":"llama3-8b","gpu":"h100-sxm","batch":32});
// each output line is that command's results with the input's line number, in input order. A bad
// line is an error line with the message the CLI would print, and the stream goes on.
#pragma once

#include "format/report.hpp"
#include "io/preset_registry.hpp"
#include "io/scenario_spec.hpp"

#include <functional>
#include <iosfwd>
#include <optional>
#include <string_view>
#include <vector>

namespace roofline::cli {

/// A command as batch runs it: the same steps run_cli takes between the flags and the report.
struct BatchAnswer {
  format::Report report;
  std::optional<bool> fits;  ///< what "require-fit" checks, as --require-fit does
};

struct BatchCommand {
  std::string_view name;
  unsigned groups = 0;  ///< the inputs it reads (io::InputGroup bits)
  bool needs_gpu = false;
  bool training = false;
  /// run_cli's last checks and adjustments before resolving (a --gpu list, layer's --tokens).
  std::function<io::ScenarioSpec(const io::ScenarioSpec&)> prepare;
  /// The command's report on the resolved scenario, and its fit verdict (none without a capacity check).
  std::function<BatchAnswer(const io::ScenarioSpec&, const io::Resolved&)> run;
};

/// Answers every line of `lines` on `out`, one line each; the model and accelerator of each distinct
/// set of fixed inputs are resolved once. Returns 0 when every line was answered, 1 when any failed,
/// else 3 when a line's "require-fit" check failed (that line's answer carries "exit_code": 3).
int run_batch(const std::vector<BatchCommand>& commands, std::istream& lines, std::ostream& out,
              const io::PresetRegistry& reg);

}  // namespace roofline::cli
