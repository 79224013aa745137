// batch: a JSON Lines stream of plans. Each input line is a JSON object naming a command and its
// inputs by their flag names ({"command":"decode","model":"llama3-8b","gpu":"h100-sxm","batch":32});
// each output line is that command's results with the input's line number, in input order. A bad
// line is an error line with the message the CLI would print, and the stream goes on.
#pragma once

#include "io/preset_registry.hpp"
#include "io/scenario_spec.hpp"

#include <functional>
#include <iosfwd>
#include <optional>
#include <string_view>
#include <vector>

namespace roofline::cli {

/// Answers every line of `lines` on `out`, one line each, by the model commands of the table
/// (commands(), plot excepted: its answer is a picture) without --explain; the model and accelerator of each distinct
/// set of fixed inputs are resolved once. Returns 0 when every line was answered, 1 when any failed,
/// else 3 when a line's "require-fit" check failed (that line's answer carries "exit_code": 3).
int run_batch(std::istream& lines, std::ostream& out, const io::PresetRegistry& reg);

}  // namespace roofline::cli
