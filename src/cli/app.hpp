// run_cli: the whole program behind a function, so tests run it in-process.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace roofline::cli {

/// What the process environment says about colour and presets.
struct Env {
  bool stdout_is_tty = false;
  bool stderr_is_tty = false;   ///< a long sweep shows its progress there
  bool no_color = false;        ///< NO_COLOR is set
  bool clicolor_force = false;  ///< CLICOLOR_FORCE is set and not "0"
  bool term_dumb = false;
  std::string preset_path;   ///< ROOFLINE_PRESET_PATH (colon-separated)
  int columns = 0;           ///< the terminal's width (COLUMNS, else the tty's); 0: unknown, 80 is used
  int columns_variable = 0;  ///< COLUMNS alone, for the table view's width (100 when 0)
};

/// What parsing `args` fills (the command, its MODEL or FILE, the global options, each flag given
/// with its values and parse position), parsed by a lean app (the options the line types) or the
/// full one; "CLI11: ..." when CLI11 refuses the line. For tests: both must say the same.
std::string parse_summary(const std::vector<std::string>& args, bool lean);

/// The man page's option index (docs/roofline.1.md, "OPTION INDEX"): every option of every command
/// once, as Markdown, from the table --help and the completions read: its names, its value, its help
/// with its default, and the commands that take it.
std::string option_index_markdown();

/// Exit code of an internal error (a bug): EX_SOFTWARE from sysexits.h.
inline constexpr int kInternalErrorExit = 70;

/// Parses args (without argv[0]), runs the command, writes results to out and diagnostics to err.
/// Returns the exit code: 0 ok, 1 input error, 2 usage error, 3 --require-fit failed, 70 internal error.
int run_cli(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err,
            const Env& env);

}  // namespace roofline::cli
