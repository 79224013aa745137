// roofline plot: the command's own options, and the run that resolves the scenario on every
// accelerator of the --gpu list at every batch (or concurrency) of its list, analyses each point as
// the single commands do, builds the chart (format/plot_charts.hpp) and renders it.
#pragma once

#include "format/plot.hpp"
#include "format/report.hpp"
#include "io/preset_registry.hpp"
#include "io/scenario_spec.hpp"
#include "io/sweep.hpp"

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace roofline::cli {

/// plot's options beyond the scenario's inputs.
struct PlotOptions {
  std::string kind = "roofline";  ///< roofline, memory, decode or serve
  std::string svg_file;           ///< -o/--svg FILE: write SVG there ("-": standard output)
  bool svg_file_given = false;    ///< -o was given (an empty name is an error, not "no file")
  std::string gemm;               ///< --gemm M,N,K: a GEMM on the roofline
};

/// Everything plot needs besides the spec and the scenario.
struct PlotRequest {
  PlotOptions options;
  bool svg = false;  ///< SVG (--format svg or -o), else the terminal picture
  format::plot::TermOptions term;
  format::UnitSystem units = format::UnitSystem::si;
  std::vector<io::SweepAxis> axes;  ///< the lists given: --batch, --concurrency (serve), --micro-batch (train)
  std::vector<std::string> given;   ///< every input flag given, by name, for the checks of each kind
};

/// What a plot run produced: the picture as text, and the warnings of its points.
struct PlotOutput {
  format::plot::Chart chart;
  std::string text;
  std::vector<std::string> warnings;
};

/// Adds plot's own options (--kind, -o/--svg, --gemm) to its subcommand.
void add_plot_options(CLI::App* sub, PlotOptions& o);

/// plot's own long flags, for the flag check.
const std::vector<std::string>& plot_flags();

/// The chart of `req` and its rendering. `first` is the scenario resolved on the first accelerator
/// of spec.gpu (a comma list); the others are resolved on it as plan does. Throws UsageError for a
/// flag the kind does not read or a list on another input, InputError for a bad --gemm or a point's
/// problem (named by the point).
PlotOutput plot_picture(const PlotRequest& req, io::ScenarioSpec spec, const io::Resolved& first,
                        const io::PresetRegistry& reg);

}  // namespace roofline::cli
