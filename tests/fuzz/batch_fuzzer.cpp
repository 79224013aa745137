// JSONL plan lines: the bytes are `roofline batch`'s stdin, run in process through run_cli. Checks:
// the CLI's output contract (fuzz_common.hpp), exit 0, 1 or 3 with nothing on stderr but warnings, and
// stdout one JSON object per non-blank input line at most, each with its "line" number. Inputs that
// could name a file outside the sandbox directory are not run.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using roofline::fuzz::finding;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (roofline::fuzz::reaches_outside(text)) return 0;
  const roofline::fuzz::CliRun r = roofline::fuzz::run_cli_sandboxed({"batch"}, text);
  roofline::fuzz::check_contract(r, text);
  if (r.code == -1) return 0;
  const std::string all = "exit " + std::to_string(r.code) + "\n--- stdout\n" + r.out + "\n--- stderr\n" + r.err;
  // 3: a line's "require-fit" did not fit and no line failed (N11).
  if (r.code != 0 && r.code != 1 && r.code != 3) finding("batch exits with neither 0, 1 nor 3", all);
  if (r.err.find("roofline: error:") != std::string::npos) finding("batch writes an error on stderr", all);
  std::size_t lines_in = 0;
  for (char c : text) lines_in += c == '\n' ? 1 : 0;
  std::size_t lines_out = 0;
  std::size_t start = 0;
  while (start < r.out.size()) {
    const std::size_t end = r.out.find('\n', start);
    if (end == std::string::npos) finding("batch's output does not end with a newline", all);
    const std::string line = r.out.substr(start, end - start);
    start = end + 1;
    ++lines_out;
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception&) {
      finding("a batch output line is not JSON", all);
    }
    if (!j.is_object() || !j.contains("line") || !j["line"].is_number_unsigned()) {
      finding("a batch output line is not an object with its line number", all);
    }
  }
  if (lines_out > lines_in + 1) finding("batch answers more lines than it was given", all);
  return 0;
}
