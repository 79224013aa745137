// Shell completion scripts (`roofline completion bash|zsh|fish`), generated from the CLI as it is
// built: the command table's subcommands, the options each one accepts, and what their values can
// be. A new command, flag or choice appears in the scripts without editing them.
#pragma once

#include <array>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace roofline::cli {

/// What a shell offers for a value.
enum class Complete : unsigned char {
  nothing,      ///< free text: a count, a size, a rate
  words,        ///< one of `words`
  models,       ///< a model preset (from `roofline models --names`), `words`, or a *.json file
  gpus,         ///< an accelerator preset (from `roofline gpus --names`) or a *.json file
  directories,  ///< a directory
  files,        ///< any file (a file to write)
};

/// The value of an option or a positional argument.
struct ValueSpec {
  Complete what = Complete::nothing;
  std::vector<std::string> words;
  bool list = false;  ///< a comma list: the element after the last comma completes
  std::string name;   ///< N, DTYPE, MODEL: shown while a shell completes the value

  friend bool operator==(const ValueSpec&, const ValueSpec&) = default;
};

struct OptionSpec {
  std::vector<std::string> names;  ///< "-b", "--batch"
  std::string help;
  bool takes_value = false;
  bool repeatable = false;
  ValueSpec value;
};

struct CommandSpec {
  std::string name;
  std::string help;
  std::vector<OptionSpec> options;     ///< every option it accepts, the global ones included
  std::vector<ValueSpec> positionals;  ///< in order (MODEL; M N K; SHELL)
};

/// The whole command line: the options before the command, and the commands.
struct CompletionSpec {
  std::vector<OptionSpec> global;
  std::vector<CommandSpec> commands;
};

/// The shells `roofline completion` writes for.
inline constexpr std::array kShells = {"bash", "zsh", "fish"};

/// What a value can be: `command` is empty for an option before the command.
using ValueLookup = std::function<ValueSpec(std::string_view command, const CLI::Option& option)>;

/// Walks a CLI11 app whose subcommands have all their options: the app's own options are the global
/// ones, each subcommand a command. Hidden options (no group) are left out. Where `values` offers
/// nothing for an option, the choices of its CLI11 check (IsMember) are its words, and a value named
/// FILE or DIR completes paths.
CompletionSpec completion_spec(const CLI::App& app, const ValueLookup& values);

/// The completion script for `shell` (one of kShells).
std::string completion_script(std::string_view shell, const CompletionSpec& spec);

}  // namespace roofline::cli
