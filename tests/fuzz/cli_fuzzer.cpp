// The whole CLI in process: the bytes are the arguments, separated by NUL bytes, then a 0x01 byte
// and standard input. run_cli runs with string streams in a sandbox directory (fuzz_common.hpp).
// Checks: the output contract (exit code, one prefixed line per message on stderr, nothing on stdout
// after an error, no nan, inf or wrapped integer in an answer). Arguments that would write a file
// (-o, --svg), add a preset directory or name a path outside the sandbox are not run, nor are
// sweeps of more than 64 values on one flag (a sweep of 10^12 points is the product as designed).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args;
  std::string stdin_text;
  roofline::fuzz::split_input(data, size, args, stdin_text);
  if (!roofline::fuzz::args_allowed(args)) return 0;
  // batch reads plans from stdin, and a plan names files.
  if (roofline::fuzz::reaches_outside(stdin_text)) {
    for (const std::string& a : args) {
      if (a.find("batch") != std::string::npos) return 0;
    }
  }
  const roofline::fuzz::CliRun r = roofline::fuzz::run_cli_sandboxed(args, stdin_text);
  roofline::fuzz::check_contract(r, std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
