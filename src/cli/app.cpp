// The command table and the one catch site. main() forwards here; tests call it in-process.
// run_cli is a list of passes: split the global flags from the command, check the command's flags,
// parse them, resolve the scenario, analyze, render, write.
#include "cli/app.hpp"

#include "cli/batch.hpp"
#include "cli/command.hpp"
#include "cli/completion.hpp"
#include "cli/plot.hpp"
#include "cli/sweep.hpp"
#include "format/compare.hpp"
#include "format/views.hpp"
#include "io/preset_registry.hpp"
#include "io/quantity_parse.hpp"
#include "io/scenario_spec.hpp"
#include "io/sweep.hpp"

#include "roofline/analysis.hpp"
#include "roofline/checked.hpp"
#include "roofline/errors.hpp"
#include "roofline/version.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <fstream>
#include <iostream>
#include <new>
#include <optional>
#include <span>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

#include "text/user_text.hpp"

namespace roofline::cli {
namespace {

using io::InputGroup;

struct GlobalOptions {
  std::string format = "table";
  bool explain = false;
  std::string units = "si";
  std::string color = "auto";
  std::vector<std::string> preset_dirs;
  bool quiet = false;
  bool no_header = false;
  bool brief = false;
  bool yes = false;
};

const char* kMainFooter =
    "Examples:\n"
    "  roofline report llama3-8b --gpu h100-sxm\n"
    "  roofline kv llama2-70b --context 4096 --kv-dtype fp8\n"
    "  roofline params mixtral-8x7b --format json\n"
    "  roofline gpus\n"
    "\n"
    "MODEL is a preset (roofline models --names), a preset file, a Hugging Face config.json, or - for stdin.\n"
    "Sizes and rates take units: 80GiB, 3.35TB/s, 989.4TFLOP/s; counts take k/M (x1000) or Ki/Mi (x1024).\n"
    "Workload flags take lists and ranges, one row per point: --batch 1,8,32 --context 1k..128k*2.\n"
    "Exit codes: 0 ok (a result such as \"does not fit\" is data), 1 bad input, 2 bad usage,\n"
    "3 the capacity check failed under --require-fit, 70 internal error (a bug; please report it).\n"
    "See man roofline and docs/ for every formula and its source.";

// The options of the whole run, declared once: CLI11's options, pass 1's skipping of them and pass
// 2's checks read this table. A default is the GlobalOptions member's initial value.
struct GlobalDef {
  const char* name;
  const char* short_name;  ///< "q" for -q, or nullptr
  const char* value_name;  ///< "" for a switch
  std::span<const char* const> choices;
  const char* help;
  std::string GlobalOptions::*text = nullptr;
  bool GlobalOptions::*on = nullptr;
  std::vector<std::string> GlobalOptions::*list = nullptr;
};

constexpr std::array<const char*, 6> kFormats = {"table", "json", "jsonl", "csv", "markdown", "svg"};
constexpr std::array<const char*, 2> kUnitSystems = {"si", "iec"};
constexpr std::array<const char*, 3> kColorWhens = {"auto", "always", "never"};

constexpr std::array kGlobals = {
    GlobalDef{"format", nullptr, "FORMAT", kFormats,
              "table, json, jsonl (one line a document, a sweep's point a line), csv or markdown; svg for plot",
              &GlobalOptions::format},
    GlobalDef{"explain",
              nullptr,
              "",
              {},
              "Show every formula with its values substituted and its source",
              nullptr,
              &GlobalOptions::explain},
    GlobalDef{"brief",
              nullptr,
              "",
              {},
              "The one-screen answer: the command's headline figures (table, markdown or csv)",
              nullptr,
              &GlobalOptions::brief},
    GlobalDef{"units", nullptr, "SYSTEM", kUnitSystems,
              "si (GB = 10^9) or iec (GiB = 2^30) for byte sizes; bandwidth stays decimal", &GlobalOptions::units},
    GlobalDef{"color", nullptr, "WHEN", kColorWhens, "auto, always or never", &GlobalOptions::color},
    GlobalDef{"preset-dir",
              nullptr,
              "DIR",
              {},
              "Extra preset directory with models/ and gpus/ (repeatable)",
              nullptr,
              nullptr,
              &GlobalOptions::preset_dirs},
    GlobalDef{"quiet", "q", "", {}, "Silence warnings", nullptr, &GlobalOptions::quiet},
    GlobalDef{"no-header",
              nullptr,
              "",
              {},
              "CSV without its header line, for concatenating runs",
              nullptr,
              &GlobalOptions::no_header},
    GlobalDef{"yes",
              nullptr,
              "",
              {},
              "Run a sweep of more than 10 million points (it asks otherwise)",
              nullptr,
              &GlobalOptions::yes},
};

// A global option's row by its spelling on the line (--format, -q), or nullptr.
const GlobalDef* global_spelled(std::string_view flag) {
  for (const GlobalDef& d : kGlobals) {
    if (flag.size() > 2 && flag.substr(0, 2) == "--" && flag.substr(2) == d.name) return &d;
    if (d.short_name != nullptr && flag.size() == 2 && flag[0] == '-' && flag.substr(1) == d.short_name) return &d;
  }
  return nullptr;
}

// CLI11's own switches, beside the table's.
constexpr std::array kHelpVersion = {"--help", "-h", "--version", "-V"};

bool is_help_or_version(std::string_view flag) {
  return std::find(kHelpVersion.begin(), kHelpVersion.end(), flag) != kHelpVersion.end();
}

// Every spelling of a global option, for "did you mean" and "does not apply".
std::vector<std::string> global_spellings() {
  std::vector<std::string> all;
  for (const GlobalDef& d : kGlobals) {
    all.push_back(std::string("--") + d.name);
    if (d.short_name != nullptr) all.push_back(std::string("-") + d.short_name);
  }
  all.insert(all.end(), kHelpVersion.begin(), kHelpVersion.end());
  return all;
}

std::string choice_list(std::span<const char* const> choices) {
  std::string s;
  for (const char* c : choices) s += (s.empty() ? "" : ", ") + std::string(c);
  return s;
}

// The long option names a command line types (`--name` or `--name=value`), for an app that holds
// only those: CLI11 checks each new option against every other, so an app of every option of a
// command costs more than the command's work. An option the line does not name cannot match a word
// of it, so the lean app parses the line as the full one does; help, version and every error are
// answered by the full app (parse_args).
class Typed {
 public:
  explicit Typed(const std::vector<std::string>& args) {
    for (const std::string& a : args) {
      if (a == "--") break;
      if (a.size() > 2 && a.compare(0, 2, "--") == 0) names_.push_back(std::string_view(a).substr(2, a.find('=') - 2));
    }
  }
  [[nodiscard]] bool has(std::string_view name) const {
    return std::find(names_.begin(), names_.end(), name) != names_.end();
  }

 private:
  std::vector<std::string_view> names_;
};

// Whether an app holds the option `--name`: every option for the full app (only == nullptr); one
// with a short name always, since the lean app's check reads long names only.
bool holds(const Typed* only, std::string_view name, const char* short_name) {
  return only == nullptr || short_name != nullptr || only->has(name);
}

void add_global_options(CLI::App* app, GlobalOptions& g, const Typed* only = nullptr) {
  const GlobalOptions defaults;
  for (const GlobalDef& d : kGlobals) {
    if (!holds(only, d.name, d.short_name)) continue;
    std::string names = std::string("--") + d.name;
    if (d.short_name != nullptr) names = std::string("-") + d.short_name + "," + names;
    std::string help = d.help;
    CLI::Option* o = nullptr;
    if (d.on != nullptr) {
      o = app->add_flag(names, g.*d.on, help);
    } else if (d.list != nullptr) {
      o = app->add_option(names, g.*d.list, help)->type_name(d.value_name);
    } else {
      help += " [default: " + defaults.*d.text + "]";
      o = app->add_option(names, g.*d.text, help)->type_name(d.value_name);
    }
    if (!d.choices.empty()) o->check(CLI::IsMember(std::vector<std::string>(d.choices.begin(), d.choices.end())));
    o->group("Global");
  }
}

const char* group_title(InputGroup g) {
  switch (g) {
    case io::kModelOverrides:
      return "Model overrides";
    case io::kParamsOnly:
    case io::kStrict:
      return "Model";
    case io::kGpu:
    case io::kGpuMemory:
    case io::kDevices:
      return "Accelerator";
    case io::kFlopsBasis:
    case io::kAttentionMode:
    case io::kLmHead:
    case io::kDecodeBytes:
      return "Conventions";
    case io::kTraining:
    case io::kTokens:
    case io::kTrain:
      return "Training";
    case io::kParallel:
    case io::kLink:
    case io::kSystem:
    case io::kCp:
      return "Parallelism";
    case io::kLoad:
      return "Load (serve --rate)";
    default:
      return "Workload";
  }
}

// The value storage for one command's inputs, bound to CLI11.
struct Bound {
  const io::InputDef* def;
  std::string value;                ///< a single-valued option
  std::vector<std::string> values;  ///< a repeatable option
  int count = 0;                    ///< a switch
  CLI::Option* option = nullptr;    ///< CLI11's option (the CLI11 path only)
  std::size_t given = 0;            ///< times the flag was given
  std::size_t first = SIZE_MAX;     ///< where among the parsed options it was first given (sweep axis order)
};

std::vector<std::string> preset_dirs(const GlobalOptions& g, const Env& env) {
  std::vector<std::string> dirs;
  std::string p = env.preset_path;
  std::size_t start = 0;
  while (!p.empty() && start <= p.size()) {
    const std::size_t end = p.find(':', start);
    const std::string d = p.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!d.empty()) dirs.push_back(d);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  dirs.insert(dirs.end(), g.preset_dirs.begin(), g.preset_dirs.end());
  return dirs;
}

format::RenderOptions render_options(const GlobalOptions& g, const Env& env) {
  format::RenderOptions o;
  if (g.format == "json") o.format = format::OutputFormat::json;
  if (g.format == "csv") o.format = format::OutputFormat::csv;
  if (g.format == "markdown") o.format = format::OutputFormat::markdown;
  if (g.format == "jsonl") o.format = format::OutputFormat::jsonl;
  o.units = g.units == "iec" ? format::UnitSystem::iec : format::UnitSystem::si;
  o.explain = g.explain;
  o.csv_header = !g.no_header;
  // Tables follow COLUMNS, not the tty: a script's output stays the same in any terminal.
  if (env.columns_variable > 0) o.width = static_cast<std::size_t>(std::clamp(env.columns_variable, 40, 1000));
  const bool auto_color = (env.stdout_is_tty || env.clicolor_force) && !env.term_dumb && !env.no_color;
  o.color = o.format == format::OutputFormat::table && (g.color == "always" || (g.color == "auto" && auto_color));
  return o;
}

// Pass 1: the command is the first word that is neither a global option nor a global option's value.
const Command* find_command(const std::vector<std::string>& args, std::size_t& index) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const std::string flag = a.substr(0, a.find('='));
    if (const GlobalDef* d = global_spelled(flag)) {
      if (*d->value_name != '\0' && a.find('=') == std::string::npos) ++i;  // skip its value
      continue;
    }
    if (is_help_or_version(flag)) continue;
    if (!a.empty() && a[0] == '-') {
      const std::string guess = io::did_you_mean(flag, global_spellings());
      throw UsageError(
          "unknown option " + flag +
          (guess.empty() ? "; give a command first, see roofline --help" : "; did you mean " + guess + "?"));
    }
    if (const Command* c = command_named(a)) {
      index = i;
      return c;
    }
    std::vector<std::string> names;
    for (const Command& c : commands()) names.emplace_back(c.name);
    const std::string guess = io::did_you_mean(a, names);
    throw UsageError("unknown command " + text::quote(a) +
                     (guess.empty() ? "; see roofline --help" : "; did you mean \"" + guess + "\"?"));
  }
  return nullptr;
}

// compare's questions: the commands whose results are figures in sections (layer's operator tables,
// plan's fleet and plot's picture are not, nor the listings).
std::vector<std::string> compare_questions() {
  std::vector<std::string> q;
  for (const Command& c : commands()) {
    if (c.comparable) q.emplace_back(c.name);
  }
  return q;
}

std::string question_list() {
  std::string s;
  for (const std::string& q : compare_questions()) s += (s.empty() ? "" : ", ") + q;
  return s;
}

// Pass 1 for compare: the question is its first word that is not a global option or a global
// option's value (nullptr for compare --help).
const Command* compare_question(const std::vector<std::string>& args, std::size_t at) {
  const std::string usage = "roofline compare QUESTION MODEL[,MODEL...] [--gpu GPU[,GPU...]] [its flags]";
  std::size_t i = at + 1;
  for (; i < args.size(); ++i) {
    const std::string flag = args[i].substr(0, args[i].find('='));
    if (flag == "--help" || flag == "-h") return nullptr;
    if (const GlobalDef* d = global_spelled(flag)) {
      if (*d->value_name != '\0' && args[i].find('=') == std::string::npos) ++i;  // its value
      continue;
    }
    if (!is_help_or_version(flag)) break;
  }
  if (i >= args.size() || args[i].rfind('-', 0) == 0) {
    throw UsageError("compare: the question comes first: " + usage + "; questions: " + question_list());
  }
  const std::string& q = args[i];
  const Command* asked = command_named(q);
  if (asked == nullptr || !asked->comparable) {
    const bool command = asked != nullptr;
    const std::string guess = io::did_you_mean(q, compare_questions());
    throw UsageError("compare: " + text::quote(q) + " is not a question it compares" +
                     (command ? " (its results are not a column of figures)" : "") + "; " +
                     (guess.empty() ? "questions: " + question_list() : "did you mean \"" + guess + "\"?"));
  }
  return asked;
}

// --brief: the command's headline rows, for people and for a CSV row. JSON keeps every key its schema
// requires, so a brief subset there would be a second schema; a sweep's table is compact already.
void check_brief(const Command& cmd, const Request& inv, const GlobalOptions& g, bool sweep) {
  if (!g.brief) return;
  const Command& q = inv.question != nullptr ? *inv.question : cmd;
  const format::Brief* b = q.brief;
  if (b == nullptr) {
    std::string have;
    for (const Command& c : commands()) {
      if (c.brief != nullptr) have += std::string(c.name) + ", ";
    }
    throw UsageError(std::string("--brief: ") + q.name + " has no brief answer; " + have.substr(0, have.size() - 2) +
                     " and compare have one");
  }
  if (g.format == "json" || g.format == "jsonl") {
    throw UsageError("--brief --format " + g.format + ": JSON holds every key of its schema, " + std::string(q.name) +
                     "'s brief rows among them; --brief prints table, markdown or csv");
  }
  if (sweep) {
    throw UsageError("--brief: a sweep's table is already one compact row per point; give one value per flag");
  }
}

// compare --explain: the formulas are each column's, in its JSON document; the table sets the values
// side by side.
void check_compare(const Command& cmd, const GlobalOptions& g, bool sweep) {
  if (cmd.stage != Stage::compare) return;
  if (g.explain && g.format != "json" && g.format != "jsonl") {
    throw UsageError("--explain: compare's " + g.format +
                     " sets figures side by side; --format json holds each column's formulas, and the single command "
                     "with --explain shows one");
  }
  if (sweep) {
    throw UsageError("compare: a list or range on a workload flag is a sweep; compare takes one value per flag");
  }
}

// Pass 2: every flag after the command is one the command reads; a flag of another command or a
// typo gets its own message before CLI11 sees it.
void check_flags(const Command& cmd, const std::vector<std::string>& args, std::size_t from) {
  std::vector<std::string> own;
  for (const io::InputDef& d : io::input_defs()) {
    if ((d.group & cmd.groups) != 0U) own.push_back(std::string("--") + d.name);
  }
  const std::vector<std::string> globals = global_spellings();
  // A completion script has no format, units or colour: completion takes no global option.
  if (cmd.stage != Stage::completion) own.insert(own.end(), globals.begin(), globals.end());
  if (cmd.stage == Stage::completion) own.emplace_back("--help");
  if (cmd.stage == Stage::gemm) own.insert(own.end(), {"--dtype", "--gpu"});
  if (cmd.stage == Stage::listing) own.emplace_back("--names");
  if ((cmd.own & kOwnFamily) != 0U) own.emplace_back("--family");
  if ((cmd.own & kOwnPlot) != 0U) own.insert(own.end(), plot_flags().begin(), plot_flags().end());
  for (std::size_t i = from; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") break;
    if (a.size() < 3 || a.rfind("--", 0) != 0) continue;
    const std::string flag = a.substr(0, a.find('='));
    if (std::find(own.begin(), own.end(), flag) != own.end()) continue;
    const std::string bare = flag.substr(2);
    const bool elsewhere = std::any_of(io::input_defs().begin(), io::input_defs().end(),
                                       [&](const io::InputDef& d) { return bare == d.name; }) ||
                           flag == "--names" || std::find(globals.begin(), globals.end(), flag) != globals.end() ||
                           std::find(plot_flags().begin(), plot_flags().end(), flag) != plot_flags().end();
    if (elsewhere) {
      throw UsageError(flag + " does not apply to " + cmd.name + "; see roofline " + cmd.name + " --help");
    }
    const std::string guess = io::did_you_mean(flag, own);
    throw UsageError(
        "unknown option " + flag +
        (guess.empty() ? "; see roofline " + std::string(cmd.name) + " --help" : "; did you mean " + guess + "?"));
  }
}

// compare's QUESTION comes before the question's MODEL; without a question (compare --help) MODEL
// is listed for the help alone.
void add_compare_positionals(CLI::App* sub, Request& inv) {
  sub->add_option("QUESTION", inv.question_word, "The command whose question to compare: " + question_list())
      ->required()
      ->type_name("");
  if (inv.question == nullptr) {
    sub->add_option("MODEL", inv.spec.model,
                    "Models, comma-separated (several on one --gpu), or one model (on several --gpu)")
        ->type_name("");
  }
}

// compare's help: MODEL and --gpu take lists, and a list on another flag is no sweep there.
void compare_help(CLI::App* sub, const std::vector<Bound>& bound) {
  sub->get_option("MODEL")->description(
      "Models, comma-separated (several on one --gpu), or one model (on several --gpu)");
  for (const Bound& b : bound) {
    if (b.option == nullptr) continue;  // not held by a lean app
    std::string help = b.option->get_description();
    for (const std::string tail : {"; a list or range sweeps it", "; a list sweeps it"}) {
      if (help.size() >= tail.size() && help.compare(help.size() - tail.size(), tail.size(), tail) == 0) {
        help.resize(help.size() - tail.size());
      }
    }
    if (std::string(b.def->name) == "gpu") help = "Accelerators, comma-separated (several for one model), or one";
    b.option->description(help);
  }
}

// The value storage of the inputs a command reads: those of its groups.
std::vector<Bound> command_inputs(const Command& cmd) {
  std::vector<Bound> bound;
  bound.reserve(io::input_defs().size());
  for (const io::InputDef& d : io::input_defs()) {
    if ((d.group & cmd.groups) == 0U) continue;
    Bound& b = bound.emplace_back();
    b.def = &d;
  }
  return bound;
}

bool is_command_name(std::string_view word) { return command_named(word) != nullptr; }

// One flag of a line as pass 2 reads it: its value's name ("" for a switch), whether it may be
// given again, whether a list sweeps it, and its choices.
struct FlagShape {
  std::string_view value_name;
  bool repeatable = false;
  bool sweeps = false;
  std::span<const char* const> choices;
};

// Pass 2, the words: the mistakes of a model command's or batch's line that the command's tables
// name better than CLI11 would (a flag without its value, a flag given twice, a global option's
// value outside its choices, a second MODEL, a long option spelled with one dash). A line it does
// not follow to its end (a value that starts with '-', a list option's further words) is left to
// CLI11 from there on: this check fills nothing, the parse does.
class WordCheck {
 public:
  WordCheck(const Command& cmd, const std::vector<std::string>& args, std::size_t at)
      : cmd_(cmd),
        args_(args),
        at_(at),
        inputs_(cmd.stage == Stage::model ? command_inputs(cmd) : std::vector<Bound>{}) {}

  // Every word in turn, until one that CLI11 reads from there on.
  void run() {
    for (std::size_t i = 0; i < args_.size(); ++i) {
      if (i == at_) continue;
      const std::string& a = args_[i];
      if (a == "--" || is_help_or_version(a)) return;
      const bool go_on = a.size() < 3 || a.compare(0, 2, "--") != 0 ? bare(i) : flag(i);
      if (!go_on) return;
    }
  }

 private:
  [[nodiscard]] std::optional<FlagShape> shape(std::string_view name) const {
    for (const Bound& b : inputs_) {
      if (name == b.def->name) {
        return FlagShape{b.def->value_name, b.def->repeatable, b.def->sweep != io::Sweep::none, {}};
      }
    }
    if (const GlobalDef* d = global_spelled("--" + std::string(name))) {
      return FlagShape{d->value_name, d->list != nullptr, false, d->choices};
    }
    return std::nullopt;
  }

  // A word without "--": a long option spelled with one dash, MODEL, or a second MODEL.
  bool bare(std::size_t i) {
    const std::string& a = args_[i];
    const auto letter = [&](std::size_t k) { return std::isalpha(static_cast<unsigned char>(a[k])) != 0; };
    if (a.size() > 2 && a[0] == '-' && letter(1) && letter(2)) {
      const std::string_view rest = std::string_view(a).substr(1, a.find('=') - 1);
      if (shape(rest) && global_spelled(a) == nullptr) {
        throw UsageError("unknown option " + text::quote(a) + "; did you mean --" + std::string(rest) + "?");
      }
    }
    if (i < at_ || a.empty() || a[0] == '-' || is_command_name(a)) return false;
    if (positional_ && cmd_.stage == Stage::model) {
      throw UsageError(
          "a second MODEL " + text::quote(a) + "; " + cmd_.name + " takes one model" +
          (cmd_.comparable ? "; roofline compare " + std::string(cmd_.name) + " A,B sets several side by side" : ""));
    }
    positional_ = true;
    return true;
  }

  // A "--flag" or "--flag=value": given once, with its value, within its choices.
  bool flag(std::size_t& i) {
    const std::string& a = args_[i];
    const std::size_t eq = a.find('=');
    const std::string_view name = std::string_view(a).substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    const std::optional<FlagShape> f = shape(name);
    if (!f) return false;                    // check_flags has named it, or it is CLI11's
    if (f->value_name.empty()) return true;  // a switch
    const std::string flag = "--" + std::string(name);
    if (!f->repeatable && std::find(seen_.begin(), seen_.end(), name) != seen_.end()) {
      throw UsageError(flag + " is given twice; give it once" +
                       (f->sweeps ? ", or a list to sweep it (" + flag + " A,B)" : ""));
    }
    seen_.push_back(name);
    std::string value;
    if (eq != std::string::npos) {
      value = a.substr(eq + 1);
      if (value.empty()) throw UsageError(flag + "= has no value; give " + flag + " " + std::string(f->value_name));
    } else {
      if (i + 1 >= args_.size() || i + 1 == at_ || args_[i + 1].rfind("--", 0) == 0) {
        throw UsageError(flag + " needs a value (" + std::string(f->value_name) + ")");
      }
      value = args_[++i];
      if (value.empty() || value[0] == '-') return false;  // CLI11's to read
      const bool more = i + 1 < args_.size() && (args_[i + 1].empty() || args_[i + 1][0] != '-');
      if (f->repeatable && more) return false;  // a list option takes the next words too
    }
    if (!f->choices.empty() && std::find(f->choices.begin(), f->choices.end(), value) == f->choices.end()) {
      throw UsageError(flag + ": " + text::quote(value) + " is not one of: " + choice_list(f->choices));
    }
    return true;
  }

  const Command& cmd_;
  const std::vector<std::string>& args_;
  std::size_t at_;
  std::vector<Bound> inputs_;
  std::vector<std::string_view> seen_;
  bool positional_ = false;
};

void check_words(const Command& cmd, const std::vector<std::string>& args, std::size_t at) {
  if ((cmd.stage != Stage::model && cmd.stage != Stage::batch) || (cmd.own & kOwnPlot) != 0U) return;
  WordCheck(cmd, args, at).run();
}

// Pass 3 (setup): the command's own options, in its groups (those the line types: only), plus the
// global ones.
std::vector<Bound> add_command_options(const Command& cmd, CLI::App* sub, Request& inv, const Typed* only = nullptr) {
  io::ScenarioSpec& spec = inv.spec;
  std::vector<Bound> bound;
  if (cmd.stage == Stage::model) {
    sub->add_option("MODEL", spec.model, "Preset name or alias, preset file, Hugging Face config.json, or - for stdin")
        ->type_name("");
  }
  if (cmd.stage == Stage::gemm) {
    inv.gemm_dims.resize(3);
    sub->add_option("M", inv.gemm_dims[0], "Rows of A and C: C(M x N) = A(M x K) B(K x N)")->required()->type_name("");
    sub->add_option("N", inv.gemm_dims[1], "Columns of B and C")->required()->type_name("");
    sub->add_option("K", inv.gemm_dims[2], "The shared dimension")->required()->type_name("");
    sub->add_option("--dtype", inv.gemm_dtype, "Element type [default: bf16]")->type_name("DTYPE");
    sub->add_option("--gpu", spec.gpu, "Accelerator for ridge, attainable rate and bound")->type_name("GPU");
    return bound;
  }
  if (cmd.stage == Stage::listing) {
    sub->add_flag("--names", inv.names, "Bare names, one per line (for scripts and completion)");
    if ((cmd.own & kOwnFamily) != 0U) {
      sub->add_option("--family", inv.family,
                      "Only this family: a model type (qwen3, llama, palm) or the start of a name (gpt3), any case")
          ->type_name("FAMILY")
          ->each([&inv](const std::string&) { inv.family_given = true; });
    }
    return bound;
  }
  if (cmd.stage == Stage::completion) {
    sub->add_option("SHELL", inv.shell, "bash, zsh or fish")->required()->type_name("");
    return bound;
  }
  if (cmd.stage == Stage::batch) {
    sub->add_option("FILE", inv.batch_file, "JSON Lines of plans; - or none for stdin")->type_name("");
    return bound;
  }
  bound = command_inputs(cmd);
  for (Bound& b : bound) {
    const io::InputDef& d = *b.def;
    if (!holds(only, d.name, d.short_name)) continue;
    std::string help = io::input_help(d);
    if (d.sweep == io::Sweep::counts || d.sweep == io::Sweep::numbers) help += "; a list or range sweeps it";
    if (d.sweep == io::Sweep::names) help += "; a list sweeps it";
    std::string names = std::string("--") + d.name;
    if (d.short_name != nullptr) names = std::string("-") + d.short_name + "," + names;
    if (*d.value_name == '\0') {
      b.option = sub->add_flag(names, b.count, help);
    } else if (d.repeatable) {
      b.option = sub->add_option(names, b.values, help)->type_name(d.value_name);
    } else {
      b.option = sub->add_option(names, b.value, help)->type_name(d.value_name);
    }
    b.option->group(group_title(d.group));
  }
  return bound;
}

// The main app before its commands: the global options are added by the caller.
void setup_main_app(CLI::App& app) {
  app.set_version_flag("-V,--version", "roofline " ROOFLINE_VERSION_LONG);
  app.footer(kMainFooter);
  app.require_subcommand(1);
}

// What a shell completes for the value of `option` in `command` ("" before the command): an
// input's hint and choices (io::InputDef), the positional arguments. Other options' choices come
// from their CLI11 checks, and FILE and DIR values complete paths (completion_spec).
ValueSpec completion_value(std::string_view command, const CLI::Option& option) {
  const std::string name = option.get_single_name();
  const bool compare = command == "compare";  // its MODEL and --gpu take lists
  if (!option.nonpositional()) {
    if (name == "QUESTION") return {Complete::words, compare_questions(), false, name};
    if (name == "MODEL" && compare) return {Complete::models, {}, true, name};  // a comma list of models
    if (name == "MODEL") return {Complete::models, {"-"}, false, name};
    if (name == "SHELL") return {Complete::words, {kShells.begin(), kShells.end()}, false, name};
    return {Complete::nothing, {}, false, name};
  }
  const auto def = std::find_if(io::input_defs().begin(), io::input_defs().end(),
                                [&](const io::InputDef& d) { return name == d.name; });
  if (def == io::input_defs().end()) return {};
  const Command* cmd = command_named(command);
  // Whether the command reads the input itself (gemm's own --dtype and --gpu take one value);
  // compare reads its questions' inputs.
  const bool owned = compare || (cmd != nullptr && (def->group & cmd->groups) != 0U);
  ValueSpec v;
  if (def->choices != nullptr) v.words = def->choices();
  switch (def->hint) {
    case io::ValueHint::text:
      break;
    case io::ValueHint::choice:
      v.what = Complete::words;
      v.list = owned && def->sweep == io::Sweep::names;
      break;
    case io::ValueHint::list:
      v.what = Complete::words;
      v.list = true;
      break;
    case io::ValueHint::model:
      v.what = Complete::models;
      break;
    case io::ValueHint::gpu:
      v.what = Complete::gpus;
      v.list = owned && (compare || cmd->gpu_list);  // these take a list of accelerators
      break;
  }
  return v;
}

// The whole CLI, every command with all its options, as the completion scripts see it.
CompletionSpec full_completion_spec() {
  CLI::App app{"", "roofline"};
  setup_main_app(app);
  GlobalOptions g;
  add_global_options(&app, g);
  // The options' storage, alive as long as the app.
  std::deque<Request> invocations;
  std::deque<std::vector<Bound>> bound;
  for (const Command& c : commands()) {
    CLI::App* sub = app.add_subcommand(c.name, c.help);
    Request& inv = invocations.emplace_back();
    // compare: its question and models, and the options of every question it asks.
    Command reads = c;
    if (c.stage == Stage::compare) {
      add_compare_positionals(sub, inv);
      for (const Command& q : commands()) {
        if (q.comparable) reads.groups |= q.groups;
      }
    }
    bound.push_back(add_command_options(reads, sub, inv));
    if ((c.own & kOwnPlot) != 0U) add_plot_options(sub, inv.plot.options);
    if (c.stage != Stage::completion) add_global_options(sub, g);
  }
  return completion_spec(app, completion_value);
}

}  // namespace

std::string option_index_markdown() {
  const CompletionSpec spec = full_completion_spec();
  // Every option once, in the order the commands' helps list them, with the commands that take it
  // (compare takes its question's, and says so in its own help).
  struct Entry {
    const OptionSpec* option;
    std::vector<std::string> commands;
  };
  std::vector<Entry> entries;
  for (const CommandSpec& c : spec.commands) {
    if (c.name == "compare") continue;
    for (const OptionSpec& o : c.options) {
      const auto same = [&](const Entry& e) { return e.option->names == o.names; };
      auto e = std::find_if(entries.begin(), entries.end(), same);
      if (e == entries.end()) e = entries.insert(entries.end(), Entry{&o, {}});
      e->commands.push_back(c.name);
    }
  }
  std::string md;
  for (const Entry& e : entries) {
    std::string names;
    for (const std::string& n : e.option->names) {
      names += (names.empty() ? "" : ", ") + std::string("**") + (n.rfind("--", 0) == 0 ? "\\" : "") + n + "**";
      if (e.option->takes_value && !e.option->value.name.empty()) names += " *" + e.option->value.name + "*";
    }
    const bool everywhere = e.commands.size() + 1 == spec.commands.size();
    std::string where;
    for (const std::string& c : e.commands) where += (where.empty() ? "" : ", ") + c;
    md += names + "\n:   " + e.option->help + " (" + (everywhere ? std::string("every command") : where) + ")\n\n";
  }
  return md;
}

Run run_completion(Request& inv, const io::Resolved*) {
  return {{}, std::nullopt, completion_script(inv.shell, full_completion_spec())};
}

namespace {

// The swept inputs in the order their flags were given: the first is the outermost loop.
void order_axes(std::vector<io::SweepAxis>& axes, const std::vector<Bound>& bound) {
  const auto position = [&](const io::SweepAxis& a) {
    return std::find_if(bound.begin(), bound.end(), [&](const Bound& x) { return x.def == a.def; })->first;
  };
  std::stable_sort(axes.begin(), axes.end(),
                   [&](const io::SweepAxis& x, const io::SweepAxis& y) { return position(x) < position(y); });
}

// batch FILE: a regular file or stdin ("-" or none).
int run_batch_input(const std::string& file, std::istream& in, std::ostream& out, const io::PresetRegistry& reg) {
  if (file.empty() || file == "-") return run_batch(in, out, reg);
  io::check_input_file(file);  // a FIFO or a device would block or never end
  std::ifstream f(file, std::ios::binary);
  if (!f) throw InputError(text::display_path(file) + ": cannot open file: " + std::strerror(errno));
  return run_batch(f, out, reg);
}

// --format svg is a picture: plot's only; plot draws a picture or nothing.
void check_format(const Command& cmd, const GlobalOptions& g, const PlotRequest& plot) {
  if ((cmd.own & kOwnPlot) == 0U) {
    if (g.format == "svg") {
      throw UsageError("--format svg: only plot draws pictures; " + std::string(cmd.name) +
                       " writes table, json, csv or markdown");
    }
    return;
  }
  if (g.format != "table" && g.format != "svg") {
    throw UsageError("--format " + g.format +
                     ": plot draws a picture, in the terminal (table) or as svg; the numbers are in decode, prefill, "
                     "layer, memory and serve --format " +
                     g.format);
  }
  if (g.explain) throw UsageError("--explain: plot shows no formulas; decode, prefill and layer --explain do");
  if (plot.options.svg_file_given && plot.options.svg_file.empty()) {
    throw UsageError("-o: \"\" names no file; give a path, or - for standard output");  // N23
  }
  if (g.format == "svg" && !plot.options.svg_file.empty()) {
    throw UsageError("--format svg and -o " + plot.options.svg_file + ": give one (-o writes the file)");
  }
}

// plot -o: the rendered picture to its file, whole; a failure is one line and exit 1.
// -o FILE: the whole text, or nothing. A regular file (or a new one) is written to a temporary file
// beside it and renamed over it, so a reader, a second run or a run killed mid-write never leaves a
// torn picture under the name (N10); a FIFO or a device is written in place, as a shell redirect
// would. A failure says why (N20).
bool write_file(const std::string& path, const std::string& text, std::ostream& err) {
  const auto fail = [&](int code) {
    err << "roofline: error: -o " << text::display_path(path) << ": cannot write the file: " << std::strerror(code)
        << "\n";
    return false;
  };
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) return fail(EISDIR);
    std::ofstream f(path, std::ios::binary);
    if (f) f << text << std::flush;
    return f ? true : fail(errno != 0 ? errno : EIO);
  }
  const std::size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  std::string tmp = (slash == std::string::npos ? "" : dir) + ".roofline-XXXXXX";
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) return fail(errno);
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);  // the mode a new file gets from a redirect, not mkstemp's 0600
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int code = n < 0 ? errno : EIO;
      ::close(fd);
      ::unlink(tmp.c_str());
      return fail(code);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0 || ::rename(tmp.c_str(), path.c_str()) != 0) {
    const int code = errno;
    ::unlink(tmp.c_str());
    return fail(code);
  }
  return true;
}

void warn(std::ostream& err, const GlobalOptions& g, const std::string& msg) {
  if (!g.quiet) err << "roofline: warning: " << msg << "\n";
}

// One line per message (collected errors are several), each with the prefix; control characters
// and bytes that are not UTF-8 escaped, whatever the message echoes.
void print_error(std::ostream& err, const std::string& what) {
  std::istringstream lines(what);
  std::string line;
  while (std::getline(lines, line)) err << "roofline: error: " << text::printable(line) << "\n";
}

// Passes 2 and 3 on `app`: the command's flags checked, its options and the global ones added (only
// those the line types, for a lean app), and the line parsed. Throws CLI11's ParseError for help,
// the version and a syntax error, and Error for a flag the command does not read.
void parse_line(CLI::App& app, const std::vector<std::string>& args, std::size_t at, GlobalOptions& g, Request& inv,
                std::vector<Bound>& bound, const Command* cmd, const Typed* only) {
  setup_main_app(app);
  add_global_options(&app, g, only);
  // Every command is listed in --help; only the one named gets its options (a lean app: only it).
  for (const Command& c : commands()) {
    if (only != nullptr && &c != cmd) continue;
    CLI::App* sub = app.add_subcommand(c.name, c.help);
    if (only == nullptr) sub->footer(std::string("Examples:\n") + c.examples);
    if (&c != cmd) continue;
    // compare asks another command's question, and reads that command's flags.
    inv.question = c.stage == Stage::compare ? compare_question(args, at) : nullptr;
    const Command& reads = inv.question != nullptr ? *inv.question : c;
    if (c.stage == Stage::compare) add_compare_positionals(sub, inv);
    // Pass 2: the command reads only its own flags; any other is named before CLI11 sees it.
    check_flags(reads, args, at + 1);
    check_words(c, args, at);
    bound = add_command_options(reads, sub, inv, only);
    if (c.stage == Stage::compare && inv.question != nullptr) compare_help(sub, bound);
    if ((c.own & kOwnPlot) != 0U) add_plot_options(sub, inv.plot.options);
    if (c.stage != Stage::completion) add_global_options(sub, g, only);
  }
  // Pass 3: syntax.
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  app.parse(reversed);
  const std::vector<CLI::Option*>& order = app.get_subcommand(cmd->name)->parse_order();
  for (Bound& b : bound) {
    if (b.option == nullptr) continue;  // not on the line
    b.given = b.option->count();
    const auto at_first = std::find(order.begin(), order.end(), b.option);
    if (at_first != order.end()) b.first = static_cast<std::size_t>(at_first - order.begin());
  }
}

// Passes 1 to 3, through CLI11: a lean app holding the options the line types parses a line that
// is right; help, the version and a mistake are answered by the app of every option, with CLI11's
// own words. Returns the exit code when it answered (help, version, an error), nullopt to run the
// command.
std::optional<int> parse_args(const std::vector<std::string>& args, GlobalOptions& g, Request& inv,
                              std::vector<Bound>& bound, const Command*& cmd, std::ostream& out, std::ostream& err) {
  const char* about = "roofline: size LLMs and place their workloads on the roofline of real accelerators";
  try {
    // Pass 1: the command, found past the global options and their values.
    std::size_t at = 0;
    cmd = find_command(args, at);
    if (cmd != nullptr) {
      const Typed typed(args);
      CLI::App lean{about, "roofline"};
      try {
        parse_line(lean, args, at, g, inv, bound, cmd, &typed);
        return std::nullopt;
      } catch (const CLI::ParseError&) {
        g = GlobalOptions{};  // the full app parses it again, and says what it is
        inv = Request{};
        bound.clear();
      }
    }
    CLI::App app{about, "roofline"};
    try {
      parse_line(app, args, at, g, inv, bound, cmd, nullptr);
    } catch (const CLI::ParseError& e) {
      if (e.get_exit_code() == 0) {
        // --help and --version: to stdout, exit 0.
        std::ostringstream o;
        std::ostringstream ignored;
        app.exit(e, o, ignored);
        out << o.str();
        return 0;
      }
      std::string msg = e.what();
      while (!msg.empty() && msg.back() == '\n') msg.pop_back();
      std::replace(msg.begin(), msg.end(), '\n', ' ');
      err << "roofline: error: " << text::printable(msg) << "; see roofline "
          << (cmd != nullptr ? std::string(cmd->name) + " " : "") << "--help\n";
      return 2;
    }
  } catch (const Error& e) {
    print_error(err, e.what());
    return e.exit_code();
  }
  return std::nullopt;
}

}  // namespace

std::string parse_summary(const std::vector<std::string>& args, bool lean) {
  GlobalOptions g;
  Request inv;
  std::vector<Bound> bound;
  std::size_t at = 0;
  const Command* cmd = find_command(args, at);
  if (cmd == nullptr) return "no command";
  const Typed typed(args);
  CLI::App app{"", "roofline"};
  try {
    parse_line(app, args, at, g, inv, bound, cmd, lean ? &typed : nullptr);
  } catch (const CLI::ParseError& e) {
    return std::string("CLI11: ") + e.what();
  }
  std::string s = fmt::format(
      "{} model={} file={} question={} format={} units={} color={} explain={} brief={} "
      "quiet={} no_header={} yes={} dirs={}",
      cmd->name, inv.spec.model, inv.batch_file, inv.question_word, g.format, g.units, g.color, g.explain, g.brief,
      g.quiet, g.no_header, g.yes, fmt::join(g.preset_dirs, "|"));
  for (const Bound& b : bound) {
    if (b.given == 0) continue;
    s += fmt::format(" --{}={}[{}]#{}@{}", b.def->name, b.value, fmt::join(b.values, "|"), b.count, b.first);
  }
  return s;
}

namespace {

// The words people type for help and the version: `roofline help [COMMAND]` is `roofline
// [COMMAND] --help`, `roofline version` is `roofline --version`.
std::vector<std::string> spelled_out(const std::vector<std::string>& given) {
  std::vector<std::string> args = given;
  if (!args.empty() && args.front() == "help") {
    args.erase(args.begin());
    args.emplace_back("--help");
  } else if (args.size() == 1 && args.front() == "version") {
    args.front() = "--version";
  }
  return args;
}

}  // namespace

int run_cli(const std::vector<std::string>& given, std::istream& in, std::ostream& out, std::ostream& err,
            const Env& env) {
  const std::vector<std::string> args = spelled_out(given);
  GlobalOptions g;
  Request inv;
  std::vector<Bound> bound;
  const Command* cmd = nullptr;
  if (const std::optional<int> answered = parse_args(args, g, inv, bound, cmd, out, err)) return *answered;

  try {
    // Pass 4: the preset registry (files are parsed only when a command asks for them).
    const std::vector<std::string> dirs = preset_dirs(g, env);
    const io::PresetRegistry reg(dirs, dirs.size() - g.preset_dirs.size());  // the first ones from the environment
    inv.reg = &reg;
    inv.view.explain = g.explain;
    // Only a JSON document echoes the inputs; a table, CSV or markdown never reads them.
    inv.view.echo_inputs = g.format == "json" || g.format == "jsonl";
    inv.brief = g.brief;
    inv.in = &in;
    inv.groups = inv.question != nullptr ? inv.question->groups : cmd->groups;
    // Pass 5: flags into the typed spec, every error collected; a list or a range on a workload
    // input is a sweep axis instead (io/sweep.hpp).
    io::Diagnostics diag;
    std::vector<io::SweepAxis> axes;
    for (const Bound& b : bound) {
      for (const std::string& v : b.values) io::set_input(inv.spec, *b.def, v, diag);
      if (b.count > 0) io::set_input(inv.spec, *b.def, "", diag);
      if (!b.values.empty() || b.count != 0 || b.given == 0) continue;
      if (b.def->sweep != io::Sweep::none && io::is_sweep_text(b.value)) {
        axes.push_back(io::sweep_axis(*b.def, b.value, diag));
      } else {
        io::set_input(inv.spec, *b.def, b.value, diag);
      }
    }
    diag.check();
    check_format(*cmd, g, inv.plot);
    check_compare(*cmd, g, !axes.empty());
    check_brief(*cmd, inv, g, !axes.empty() && (cmd->own & kOwnPlot) == 0U);
    if ((cmd->own & kOwnPlot) != 0U) {
      // plot draws its lists as one picture: no sweep.
      order_axes(axes, bound);
      // A list of rates makes a simulated server (plot --kind load): the scenario resolves at the first.
      for (const io::SweepAxis& a : axes) {
        if (std::string_view(a.def->name) == "rate" && !a.texts.empty()) a.def->set(inv.spec, a.texts.front());
      }
      inv.plot.axes = std::move(axes);
      axes.clear();
      for (const Bound& b : bound) {
        if (b.given > 0) inv.plot.given.emplace_back(b.def->name);
      }
      inv.plot.svg = g.format == "svg" || !inv.plot.options.svg_file.empty();
      inv.plot.units = render_options(g, env).units;
      inv.plot.term = {.columns = env.columns > 0 ? env.columns : 80, .color = render_options(g, env).color};
    }
    // batch: passes 5 to 8 for every line of its input (cli/batch.cpp).
    if (cmd->stage == Stage::batch) {
      if (g.format != "table" && g.format != "jsonl") {
        throw UsageError("--format " + g.format + ": batch writes JSON Lines, one answer a line");
      }
      if (g.explain) throw UsageError("--explain: batch answers with values; run one plan alone to explain it");
      try {
        return run_batch_input(inv.batch_file, in, out, reg);
      } catch (const std::ios_base::failure&) {
        err << "roofline: error: writing the output failed (disk full or stdout closed?)\n";
        return 1;
      }
    }
    // A sweep: passes 6 to 8 at every point (cli/sweep.cpp).
    if (!axes.empty()) {
      order_axes(axes, bound);
      return run_sweep(*cmd, inv, axes, reg, in,
                       {out, err, render_options(g, env), g.quiet, inv.spec.require_fit, g.yes, env.stderr_is_tty});
    }
    // Pass 6: resolve the scenario: presets, overrides, every default.
    std::optional<io::Resolved> resolved;
    if (cmd->stage == Stage::model) {
      resolved = io::resolve(prepared(*cmd, inv.spec), reg, in, cmd->needs_gpu, cmd->training());
    }
    // Pass 7: analyze and build the view.
    const Run o = cmd->run(inv, resolved ? &*resolved : nullptr);
    // Warnings: the inputs' (from resolve) and the results' (from the views), on stderr and in JSON.
    for (const std::string& w : o.report.warnings) warn(err, g, w);
    // Pass 8: render everything, then write: output is never partial.
    std::string text = o.text;
    if (o.comparison) {
      text = format::render(*o.comparison, render_options(g, env));
    } else if (text.empty()) {
      text = format::render(g.brief ? format::brief(o.report, *cmd->brief) : o.report, render_options(g, env));
    }
    const int exit_code = inv.spec.require_fit ? require_fit_exit(*cmd, o.fit) : 0;
    // plot -o: the picture goes to its file.
    if (!inv.plot.options.svg_file.empty() && inv.plot.options.svg_file != "-") {
      return write_file(inv.plot.options.svg_file, text, err) ? exit_code : 1;
    }
    out << text;
    out.flush();
    if (!out) {
      err << "roofline: error: writing the output failed (disk full or stdout closed?)\n";
      return 1;
    }
    return exit_code;
  } catch (const Error& e) {
    print_error(err, e.what());
    return e.exit_code();
  } catch (const OverflowError& e) {
    err << "roofline: error: " << text::printable(e.what()) << "; the inputs are too large to count exactly\n";
    return 1;
  } catch (const std::bad_alloc&) {
    // The input asks for more memory than the process may use (a limit such as ulimit -v): an
    // error of the input's size, not a bug (N7).
    err << "roofline: error: out of memory: the input needs more memory than this process may use\n";
    return 1;
  } catch (const std::exception& e) {
    // Anything else is a bug, not bad input: say so, with its own exit code.
    err << "roofline: internal error: " << text::printable(e.what()) << "; please report it\n";
    return kInternalErrorExit;
  }
}

}  // namespace roofline::cli
