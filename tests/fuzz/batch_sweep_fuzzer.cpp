// Sweep syntax inside batch lines: the bytes are up to 8 plan lines separated by '\n'. A line's
// first byte picks the command and the model; the rest is fields separated by NUL, each a byte that
// picks a sweepable input (io::input_defs() with a Sweep) and its value text ("1..64*2", "8,16",
// "32"). A batch line never sweeps: a list or a range there is refused ("is a list; give one
// value", cli/batch.cpp, io::set_input). Checks, beyond the CLI contract: exactly one output line
// per non-blank input line, in order, each a JSON object with its "line"; an error line's
// "exit_code" is 1 or 2, an answer's absent or 3; a line with a list or a range is an error naming
// that input; and a line of single values that the CLI refuses as flags (run_cli with --name=value)
// is refused by batch too. An empty field list is sent as a blank line, which has no answer.
#include "io/scenario_spec.hpp"
#include "io/sweep.hpp"

#include <nlohmann/json.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fuzz_common.hpp"

namespace {

using roofline::fuzz::finding;
namespace io = roofline::io;

struct Command {
  const char* name;
  bool gpu;  // given g.json or a GPU preset
};
constexpr std::array<Command, 10> kCommands = {{{"decode", true},
                                                {"prefill", true},
                                                {"serve", true},
                                                {"memory", true},
                                                {"report", true},
                                                {"train", true},
                                                {"layer", true},
                                                {"kv", false},
                                                {"flops", false},
                                                {"params", false}}};
constexpr std::array<std::pair<const char*, const char*>, 3> kModels = {
    {{"m.json", "g.json"}, {"llama3-8b", "h100-sxm"}, {"mixtral-8x7b", "mi300x"}}};

const std::vector<const io::InputDef*>& sweepable() {
  static const std::vector<const io::InputDef*> defs = [] {
    std::vector<const io::InputDef*> v;
    for (const io::InputDef& d : io::input_defs()) {
      if (d.sweep != io::Sweep::none) v.push_back(&d);
    }
    return v;
  }();
  return defs;
}

// A JSON string of any bytes: quotes, backslashes and control bytes escaped, the rest raw (bytes
// that are not UTF-8 make the line invalid JSON, which batch reports as the line's error).
void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20) {
      std::array<char, 8> buf{};
      std::snprintf(buf.data(), buf.size(), "\\u%04x", c);
      out += buf.data();
    } else {
      out += ch;
    }
  }
  out += '"';
}

bool plain_digits(std::string_view s) {
  if (s.empty() || s.size() > 15 || (s.size() > 1 && s[0] == '0')) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

struct Line {
  bool blank = true;
  const Command* cmd = nullptr;
  std::size_t model = 0;
  std::vector<std::pair<const io::InputDef*, std::string>> values;
  std::string json;
  bool ascii = true;
};

Line make_line(std::string_view bytes) {
  Line l;
  if (bytes.empty()) {
    l.json = "  \t";
    return l;
  }
  l.blank = false;
  const auto sel = static_cast<unsigned char>(bytes[0]);
  l.cmd = &kCommands[sel % kCommands.size()];
  l.model = (sel / kCommands.size()) % kModels.size();
  l.json = "{\"command\":\"" + std::string(l.cmd->name) + "\",\"model\":\"" + kModels[l.model].first + "\"";
  if (l.cmd->gpu) l.json += ",\"gpu\":\"" + std::string(kModels[l.model].second) + "\"";
  std::string_view rest = bytes.substr(1);
  while (!rest.empty() && l.values.size() < 6) {
    const std::size_t end = rest.find('\0');
    const std::string_view field = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    if (field.empty()) continue;
    const auto pick = static_cast<unsigned char>(field[0]);
    const io::InputDef* def = sweepable()[(pick & 0x7f) % sweepable().size()];
    bool twice = false;
    for (const auto& v : l.values) twice = twice || v.first == def;
    if (twice) continue;  // an input given twice is its own error; keep lines comparable
    const std::string value(field.substr(1));
    for (char c : value) l.ascii = l.ascii && static_cast<unsigned char>(c) < 0x80;
    l.json += ",\"" + std::string(def->name) + "\":";
    if ((pick & 0x80) != 0 && plain_digits(value)) {
      l.json += value;  // a JSON number, which batch reads as its digits
    } else {
      append_json_string(l.json, value);
    }
    l.values.emplace_back(def, value);
  }
  l.json += "}";
  return l;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::vector<Line> lines;
  std::string text;
  for (std::size_t at = 0; at <= bytes.size() && lines.size() < 8;) {
    std::size_t end = bytes.find('\n', at);
    if (end == std::string_view::npos) end = bytes.size();
    lines.push_back(make_line(bytes.substr(at, end - at)));
    text += lines.back().json + "\n";
    at = end + 1;
  }
  if (roofline::fuzz::reaches_outside(text)) return 0;
  const roofline::fuzz::CliRun r = roofline::fuzz::run_cli_sandboxed({"batch"}, text);
  roofline::fuzz::check_contract(r, text);
  if (r.code == -1) return 0;
  const std::string all =
      "--- stdin\n" + text + "exit " + std::to_string(r.code) + "\n--- stdout\n" + r.out + "\n--- stderr\n" + r.err;
  if (r.code != 0 && r.code != 1 && r.code != 3) finding("batch exits with neither 0, 1 nor 3", all);
  if (!r.err.empty()) finding("batch writes on stderr", all);

  std::size_t at = 0;
  std::size_t line_no = 0;
  for (const Line& l : lines) {
    ++line_no;
    if (l.blank) continue;
    const std::size_t end = r.out.find('\n', at);
    if (end == std::string::npos) finding("batch answers fewer lines than it was given", all);
    const std::string out_line = r.out.substr(at, end - at);
    at = end + 1;
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(out_line);
    } catch (const nlohmann::json::exception&) {
      finding("a batch output line is not JSON", all);
    }
    if (!j.is_object() || !j.contains("line") || !j["line"].is_number_unsigned()) {
      finding("a batch output line is not an object with its line number", all);
    }
    if (j["line"].get<std::size_t>() != line_no) finding("a batch answer has the wrong line number", all);
    const bool error = j.contains("error");
    if (error) {
      if (!j["error"].is_string() || j["error"].get<std::string>().empty()) finding("an empty batch error", all);
      if (!j.contains("exit_code") || (j["exit_code"] != 1 && j["exit_code"] != 2)) {
        finding("a batch error line's exit_code is not 1 or 2", all);
      }
    } else if (j.contains("exit_code") && j["exit_code"] != 3) {
      finding("a batch answer's exit_code is not 3", all);
    }
    // A list or a range never sweeps in a line: the line is an error naming the input.
    bool single = true;
    for (const auto& [def, value] : l.values) {
      if (!io::is_sweep_text(value)) continue;
      single = false;
      if (!error) finding("a batch line with a list or a range is answered", all);
      if (l.ascii && j["error"].get<std::string>().find("--" + std::string(def->name)) == std::string::npos) {
        finding("a batch line's list or range error does not name its input", all);
      }
    }
    if (!single || error || !l.ascii) continue;
    // The same single values as flags: what the CLI refuses, batch must refuse.
    std::vector<std::string> args = {l.cmd->name, kModels[l.model].first, "--format=json"};
    if (l.cmd->gpu) args.push_back(std::string("--gpu=") + kModels[l.model].second);
    for (const auto& [def, value] : l.values) args.push_back("--" + std::string(def->name) + "=" + value);
    if (!roofline::fuzz::args_allowed(args)) continue;
    const roofline::fuzz::CliRun c = roofline::fuzz::run_cli_sandboxed(args, "");
    roofline::fuzz::check_contract(c, text);
    if (c.code == 1 || c.code == 2) {
      std::string cli;
      for (const std::string& a : args) cli += a + " ";
      finding("the CLI refuses a line's values that batch answers",
              all + "\n--- the CLI: " + cli + "\nexit " + std::to_string(c.code) + "\n" + c.err);
    }
  }
  if (at != r.out.size()) finding("batch answers more lines than it was given", all);
  return 0;
}
