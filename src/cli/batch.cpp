#include "cli/batch.hpp"

#include "cli/command.hpp"
#include "format/field.hpp"
#include "format/jsonl.hpp"
#include "io/preset_registry.hpp"

#include "roofline/errors.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <istream>
#include <new>
#include <optional>
#include <ostream>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "text/user_text.hpp"

namespace roofline::cli {
namespace {

// Buffered output, written in 1 MiB pieces: a stream of 100,000 answers is not 100,000 writes.
class Out {
 public:
  explicit Out(std::ostream& out) : out_(out) {}
  std::string& buf() { return buf_; }
  void maybe_flush() {
    if (buf_.size() >= kChunk) flush();
  }
  void flush() {
    out_ << buf_;
    out_.flush();
    buf_.clear();
    if (!out_) throw std::ios_base::failure("write");
  }

 private:
  static constexpr std::size_t kChunk = std::size_t{1} << 20;
  std::ostream& out_;
  std::string buf_;
};

// The inputs resolve_fixed reads (everything but the sweepable workload inputs, which
// resolve_point sets at every point), as one key: lines that share them share the resolution.
bool is_point_input(const std::string& key) {
  static const std::unordered_set<std::string> point = [] {
    std::unordered_set<std::string> names;
    for (const io::InputDef& d : io::input_defs()) {
      if (d.sweep == io::Sweep::none) continue;
      std::string name = d.name;
      names.insert(name);
      std::replace(name.begin(), name.end(), '-', '_');
      names.insert(name);
    }
    return names;
  }();
  return point.count(key) != 0;
}

std::string fixed_key(const nlohmann::json& line, const Command& cmd) {
  std::string key = cmd.needs_gpu ? "g" : "-";
  for (const auto& [name, value] : line.items()) {
    if (name == "command" || is_point_input(name)) continue;
    key += '\x1f';
    key += name;
    if (value.is_string()) {
      // A string by its length and bytes (a name may hold any byte): no serializer for the common case.
      const std::string& text = value.get_ref<const std::string&>();
      key += "=s";
      key += std::to_string(text.size());
      key += ':';
      key += text;
    } else {
      key += '=';
      key += value.dump();
    }
  }
  return key;
}

// The commands a line may name: the model commands, plot excepted (its answer is a picture).
bool batched(const Command& c) { return c.stage == Stage::model && (c.own & kOwnPlot) == 0U; }

const Command& command_of(const nlohmann::json& line) {
  if (!line.is_object()) throw InputError("a line is a JSON object of a command and its inputs");
  const auto c = line.find("command");
  if (c == line.end() || !c->is_string()) {
    throw UsageError("/command: each line names its command, e.g. {\"command\":\"decode\", ...}");
  }
  const std::string name = c->get<std::string>();
  const Command* cmd = command_named(name);
  if (cmd != nullptr && batched(*cmd)) return *cmd;
  std::string allowed;
  for (const Command& b : commands()) {
    if (batched(b)) allowed += (allowed.empty() ? "" : ", ") + std::string(b.name);
  }
  throw UsageError("/command: " + text::quote(name) + " is not a command batch runs; allowed: " + allowed);
}

void answer(std::string& out, std::int64_t line_no, const Command& cmd, const format::Report& r, int exit_code) {
  fmt::format_to(std::back_inserter(out), "{{\"line\":{},\"command\":", line_no);
  format::append_json_string(out, cmd.name);
  out += ",\"results\":";
  format::append_results_json(out, r);
  out += ",\"notes\":";
  format::append_json_strings(out, r.notes);
  out += ",\"warnings\":";
  format::append_json_strings(out, r.warnings);
  if (exit_code != 0) fmt::format_to(std::back_inserter(out), ",\"exit_code\":{}", exit_code);
  out += "}\n";
}

// std::getline with a cap: a line longer than `cap` bytes (/dev/zero, a file without newlines)
// sets `too_long` and stops reading, so it cannot exhaust memory. False at the end of input.
bool read_line(std::istream& in, std::string& line, std::size_t cap, bool& too_long) {
  line.clear();
  std::streambuf* buf = in.rdbuf();
  for (;;) {
    const int ch = buf->sbumpc();
    if (ch == std::char_traits<char>::eof()) {
      in.setstate(std::ios::eofbit);
      return !line.empty();
    }
    if (ch == '\n') return true;
    if (line.size() >= cap) {
      too_long = true;
      return true;
    }
    line.push_back(static_cast<char>(ch));
  }
}

// The resolutions of the most recent distinct fixed inputs, at most kCapacity of them: lines that
// share a model and accelerator share one, and a stream of distinct ones (a swept reserve, inline
// configs) holds a bounded number instead of one per line (N7). The least recently used goes.
class ResolutionCache {
 public:
  static constexpr std::size_t kCapacity = 64;
  io::Resolved* find(const std::string& key) {
    const auto at = entries_.find(key);
    if (at == entries_.end()) return nullptr;
    at->second.last_use = ++clock_;
    return &at->second.resolved;
  }
  io::Resolved& add(const std::string& key, io::Resolved r) {
    if (entries_.size() >= kCapacity) {
      const auto oldest = std::min_element(entries_.begin(), entries_.end(), [](const auto& a, const auto& b) {
        return a.second.last_use < b.second.last_use;
      });
      entries_.erase(oldest);
    }
    return entries_.insert_or_assign(key, Entry{std::move(r), ++clock_}).first->second.resolved;
  }
  void clear() { entries_.clear(); }

 private:
  struct Entry {
    io::Resolved resolved;
    std::uint64_t last_use = 0;
  };
  std::unordered_map<std::string, Entry> entries_;
  std::uint64_t clock_ = 0;
};

void error_line(std::string& out, std::int64_t line_no, std::string_view message, int exit_code) {
  fmt::format_to(std::back_inserter(out), "{{\"line\":{},\"error\":", line_no);
  format::append_json_string(out, message);
  fmt::format_to(std::back_inserter(out), ",\"exit_code\":{}}}\n", exit_code);
}

}  // namespace

int run_batch(std::istream& lines, std::ostream& out, const io::PresetRegistry& reg) {
  Out o(out);
  ResolutionCache resolved;
  std::istringstream no_stdin;
  std::string text;
  std::int64_t line_no = 0;
  bool failed = false;
  bool did_not_fit = false;
  bool too_long = false;
  while (read_line(lines, text, io::kMaxInputBytes, too_long)) {
    ++line_no;
    if (too_long) {
      // The rest of the line may never end: stop here.
      error_line(o.buf(), line_no, "longer than 64 MiB; a plan is one line of JSON", 1);
      failed = true;
      break;
    }
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;  // blank lines are skipped
    try {
      // The project's one JSON reader: depth, duplicate keys, NUL and trailing bytes checked.
      const io::DrainedJson parsed(io::parse_json_text(text, ""));  // the answer names its line
      const nlohmann::json& line = parsed.value;
      const Command& cmd = command_of(line);
      io::ScenarioSpec spec;
      io::Diagnostics diag;
      io::fill_from_json(line, cmd.groups, cmd.name, spec, diag);
      diag.check();
      spec.uses_system = (cmd.groups & io::kSystem) != 0U;  // as prepared() sets it for a command line
      if (spec.model == "-")
        throw UsageError("model \"-\": batch reads its lines from stdin; give a file or a config object");
      // The spec the command resolves: its own adjustment, or the line's spec itself (no copy).
      std::optional<io::ScenarioSpec> adjusted;
      if (cmd.prepare != nullptr) adjusted = cmd.prepare(spec);
      const io::ScenarioSpec& to_resolve = adjusted ? *adjusted : spec;
      const std::string key = fixed_key(line, cmd);
      io::Resolved* at = resolved.find(key);
      if (at == nullptr) {
        io::Resolved r = io::resolve_fixed(to_resolve, reg, no_stdin, cmd.needs_gpu);
        at = &resolved.add(key, std::move(r));
      }
      // The cached resolution is reused in place, as a sweep reuses it: resolve_point sets every
      // input of the point again.
      io::resolve_point(to_resolve, *at, cmd.training());
      const bool require_fit = spec.require_fit;
      Request req;
      req.reg = &reg;
      req.spec = std::move(spec);  // to_resolve is not read past here
      req.groups = cmd.groups;
      req.view = {.values_only = true,
                  .echo_inputs = false,
                  .csv_inputs = false};  // an answer is values: no labels or formulas
      const Run a = cmd.run(req, at);
      // "require-fit": as --require-fit, a usage error without a capacity check, else the answer
      // and exit code 3 when it does not fit (N11: it was accepted and ignored).
      const bool misfit = require_fit && require_fit_exit(cmd, a.fit) == 3;
      answer(o.buf(), line_no, cmd, a.report, misfit ? 3 : 0);
      did_not_fit = did_not_fit || misfit;
    } catch (const std::bad_alloc&) {
      // Out of memory on this line (a huge inline config under a memory limit): the line's
      // error, not an internal one; the cache goes, and the stream goes on (N7).
      resolved.clear();
      error_line(o.buf(), line_no, "out of memory answering this line; it needs more memory than this process may use",
                 1);
      failed = true;
    } catch (const Error& e) {
      error_line(o.buf(), line_no, e.what(), e.exit_code());
      failed = true;
    } catch (const OverflowError& e) {
      error_line(o.buf(), line_no, std::string(e.what()) + "; the inputs are too large to count exactly", 1);
      failed = true;
    }
    o.maybe_flush();
  }
  o.flush();
  return failed ? 1 : did_not_fit ? 3 : 0;
}

}  // namespace roofline::cli
