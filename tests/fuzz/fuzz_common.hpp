// Shared pieces of the libFuzzer harnesses (docs/reliability.md, "Fuzzing"): the contract every
// harness checks, and run_cli in a sandbox that never writes a file and reads files only from a
// temporary directory of its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace roofline::fuzz {

/// A broken contract: prints what broke and the evidence to stderr, then aborts (libFuzzer saves
/// the input as a crash).
[[noreturn]] void finding(std::string_view what, std::string_view evidence);

/// The text of an answer must hold no number that is not one: "nan", "inf" or "infinity" as whole
/// words (any case), or a wrapped 64-bit integer (18,446,744,07..., 9,223,372,036,854,775,80x and
/// their ungrouped forms). A word or digit run that `input` itself contains is not checked, since an
/// answer may echo a name the input gave. Returns what was found, or "" when the text is clean.
std::string bad_number(std::string_view text, std::string_view input);

/// Whether `text` (an argument or stdin) could name a file outside the sandbox directory: an
/// absolute path, a parent directory, or a JSON escape that could spell either.
bool reaches_outside(std::string_view text);

/// A temporary directory /tmp/roofline-fuzz-NAME-XXXXXX, made on construction and removed with
/// everything in it on destruction (a harness keeps one for the process).
struct TempDir {
  std::string dir;
  explicit TempDir(std::string_view name);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  TempDir(TempDir&&) = delete;
  TempDir& operator=(TempDir&&) = delete;
};

/// One in-process run of the CLI.
struct CliRun {
  int code = 0;
  std::string out;
  std::string err;
};

/// run_cli(args) with `stdin_text` as standard input, string streams for stdout and stderr, no
/// environment (no ROOFLINE_PRESET_PATH: the embedded presets only) and the working directory set
/// to the sandbox while it runs (a few small model, GPU and plan files: m.json, g.json, p.jsonl).
CliRun run_cli_sandboxed(const std::vector<std::string>& args, std::string_view stdin_text);

/// Whether args may run in the sandbox: no flag that writes a file (-o, --svg) or adds a preset
/// directory (--preset-dir), no argument that reaches outside the sandbox, no argument of more
/// than 4 KiB. Refused inputs are simply not run.
bool args_allowed(const std::vector<std::string>& args);

/// The output contract of one run (docs/reliability.md, "Fuzzing"):
/// - the exit code is 0, 1, 2 or 3 (70 is an internal error; anything else is not a code we give);
/// - every stderr line is "roofline: error: ..." or "roofline: warning: ...", with no control
///   character but the newline ending it (ROOFLINE_FUZZ_ALLOW_CONTROL=1 lets them pass);
/// - an error on stderr leaves stdout empty, and a failure with an empty stdout says why on stderr;
/// - stdout holds no nan, inf or wrapped integer (bad_number), and a stream's error records aside.
void check_contract(const CliRun& r, std::string_view input);

/// An error message of an in-process parser: not empty, no raw control character (set
/// ROOFLINE_FUZZ_ALLOW_CONTROL=1 to let them pass), and no newline when `one_line` (likewise).
void check_message(std::string_view message, bool one_line);

/// Splits fuzz bytes into arguments and stdin: arguments are separated by NUL bytes, and the first
/// 0x01 byte ends them (what follows is stdin).
void split_input(const std::uint8_t* data, std::size_t size, std::vector<std::string>& args, std::string& stdin_text);

}  // namespace roofline::fuzz
