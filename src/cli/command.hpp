// The command table: one row per command declares everything the pipeline needs to know about it
// (what to prepare before its run, its inputs, whether it takes an accelerator list, whether compare
// can ask it, its brief, its run and its sweep cells), as ninja's Tool table does. A plain array,
// no registration and no virtual hierarchy: commands() is the whole list.
#pragma once

#include "cli/plot.hpp"
#include "format/compare.hpp"
#include "format/report.hpp"
#include "format/views.hpp"
#include "io/preset_registry.hpp"
#include "io/scenario_spec.hpp"

#include "roofline/answers.hpp"

#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace roofline::cli {

/// What the pipeline prepares before a command runs.
enum class Stage {
  model,       ///< a resolved scenario (MODEL, the flags of its groups); sweeps and batch lines
  gemm,        ///< gemm's M N K and its own --dtype and --gpu
  listing,     ///< the preset registry (gpus, models)
  completion,  ///< nothing but its SHELL
  batch,       ///< a stream of lines, each a model command
  compare,     ///< another command's question, at each item of a list
};

/// Options a command reads beyond the input table's groups.
enum Own : unsigned {
  kOwnNone = 0,
  kOwnNames = 1U << 0,   ///< --names (the listings)
  kOwnFamily = 1U << 1,  ///< --family (models)
  kOwnPlot = 1U << 2,    ///< --kind, -o/--svg, --gemm (plot)
};

struct Command;

/// The inputs of one invocation after parsing.
struct Request {
  const io::PresetRegistry* reg = nullptr;
  io::ScenarioSpec spec;
  std::vector<std::string> gemm_dims;
  std::string gemm_dtype = "bf16";
  std::string shell;       ///< completion's SHELL
  std::string batch_file;  ///< batch's FILE ("" or "-": stdin)
  bool names = false;
  std::string family;  ///< models --family
  bool family_given = false;
  format::ViewOptions view;           ///< --explain, and what a machine reader leaves unbuilt
  std::uint64_t groups = 0;           ///< the command's input groups
  PlotRequest plot;                   ///< plot's own options, lists and terminal
  const Command* question = nullptr;  ///< compare: the command whose question it asks
  std::string question_word;          ///< compare's QUESTION as given
  bool brief = false;                 ///< --brief
  std::istream* in = nullptr;         ///< stdin, for compare's columns (MODEL -)
};

/// What a command's run produced: the report, and the answer's verdict where it has one.
struct Run {
  format::Report report;
  std::optional<Fit> fit;
  std::string text;                                   ///< plain text instead of a report (--names, plot's picture)
  std::optional<format::Comparison> comparison = {};  ///< compare's columns, rendered in place of the report
};

struct Command {
  const char* name;
  const char* help;
  Stage stage;
  std::uint64_t groups;  ///< the inputs this command reads (io::InputGroup bits)
  bool needs_gpu;
  bool gpu_list;               ///< --gpu takes a list of accelerators (plan, plot); compare takes one as its axis
  bool comparable;             ///< compare can ask its question: its results are figures in sections
  unsigned own;                ///< Own bits
  const format::Brief* brief;  ///< its --brief rows; nullptr: none
  /// The spec the command resolves, from the one given: checks and adjustments before resolve;
  /// nullptr: the spec as given.
  io::ScenarioSpec (*prepare)(const io::ScenarioSpec&);
  Run (*run)(Request&, const io::Resolved*);
  /// A sweep row: its answer's compact figures and verdict; nullptr: no sweep table (JSON and CSV
  /// hold the single runs' sections).
  void (*cells)(const io::Resolved&, format::SweepFigures&);
  const char* examples;

  [[nodiscard]] bool training() const { return (groups & io::kTrain) != 0U; }
};

/// Every command, in the order --help lists them.
std::span<const Command> commands();

/// The command of this name, or nullptr.
const Command* command_named(std::string_view name);

/// What the views show of a resolved run: its scenario, name, notes and warnings, the inputs a
/// command of `groups` reads, and their JSON echo (from `spec`, as given) when `view` wants it.
format::Subject subject(const io::Resolved& in, const io::ScenarioSpec& spec, std::uint64_t groups,
                        const format::ViewOptions& view);

/// The same without an inputs echo or the inputs read: what a sweep row's cells and a chart show.
format::Subject subject(const io::Resolved& in);

/// The spec `cmd` resolves from the one given (Command::prepare).
io::ScenarioSpec prepared(const Command& cmd, const io::ScenarioSpec& given);

/// --require-fit on a verdict: 3 when it does not fit, 0 when it does; a UsageError when the
/// command has no verdict (no accelerator) or its verdict is unknown.
int require_fit_exit(const Command& cmd, const std::optional<Fit>& fit);

}  // namespace roofline::cli
