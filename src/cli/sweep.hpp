// Sweeps: a command at every point of the grid of its swept inputs (io/sweep.hpp), written as one
// table, one JSON document or one CSV. Each point is resolved and analysed by the single run's own
// code: the point's values go through their flags' parsers into the spec, io::resolve_point()
// resolves them on the model and accelerator resolve_fixed() resolved once, and the command's
// analysis and views do the rest, so a row equals the single run at that point.
#pragma once

#include "cli/command.hpp"
#include "format/report.hpp"
#include "io/preset_registry.hpp"
#include "io/sweep.hpp"

#include <functional>
#include <iosfwd>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace roofline::cli {

/// Where and how a sweep writes.
struct SweepOutput {
  std::ostream& out;
  std::ostream& err;
  format::RenderOptions render;
  bool quiet = false;
  bool require_fit = false;
  bool yes = false;       ///< --yes: run a sweep past kAskAbove points
  bool progress = false;  ///< stderr is a terminal: show the points done on it
};

/// A sweep of more points than this asks for --yes before it runs.
inline constexpr std::int64_t kAskAbove = 10'000'000;
/// A table or Markdown sweep aligns its columns over every row, so it holds them all (about 1.5 kB a
/// row): past this many rows it asks for --yes, and CSV and JSON Lines stream in constant memory.
inline constexpr std::int64_t kAskAboveTable = 100'000;

/// Runs `cmd` at every point of the grid of `axes`, the first axis the outermost loop; `req.spec`
/// holds the inputs that do not vary. A row is the command's cells (Command::cells) or its run, and
/// --require-fit reads each point's verdict. Every point is resolved and checked before anything is written, and
/// a point's problem names the point. Returns the exit code: 3 when --require-fit is given and a
/// point does not fit.
int run_sweep(const Command& cmd, Request& req, const std::vector<io::SweepAxis>& axes, const io::PresetRegistry& reg,
              std::istream& in, const SweepOutput& output);

}  // namespace roofline::cli
