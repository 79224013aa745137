// Sweeps: every point equals the single run at that point, in CSV (every column), in JSON (every
// result), and in the table's compact figures (each the single run's own field); the grid runs
// the first flag given as the outermost loop.
#include "cli/app.hpp"
#include "cli/command.hpp"
#include "format/views.hpp"

#include "roofline/analysis.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>

#include "resolved_scenario.hpp"

using namespace roofline;

namespace {

std::string run_ok(std::vector<std::string> args) {
  args.emplace_back("-q");
  std::istringstream in;
  std::ostringstream out;
  std::ostringstream err;
  const int code = cli::run_cli(args, in, out, err, {});
  INFO(err.str());
  REQUIRE(code == 0);
  return out.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream s(text);
  std::string line;
  while (std::getline(s, line)) lines.push_back(line);
  return lines;
}

// The fields of one CSV line (quoted fields unquoted; a line holds no quoted newline here).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      out.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

struct Sweep {
  std::vector<std::string> command;  ///< the fixed part
  std::string flag;
  std::vector<std::string> values;
};

const std::vector<Sweep>& sweeps() {
  static const std::vector<Sweep> rows = {
      {{"decode", "llama3-8b", "--gpu", "h100-sxm"}, "--batch", {"1", "8", "32", "512"}},
      {{"decode", "llama2-70b", "--gpu", "mi300x", "--gpu-memory", "192GB", "--context", "4096"},
       "--batch",
       {"1", "32"}},
      {{"decode", "mixtral-8x7b", "--gpu", "h200-sxm", "--batch", "16"}, "--context", {"0", "1000", "32768"}},
      {{"decode", "llama3-8b", "--gpu", "h100-sxm", "--gpu-peak", "500TFLOP/s"}, "--dtype", {"fp8", "bf16"}},
      {{"serve", "llama3-8b", "--gpu", "h100-sxm"}, "--prompt", {"128", "2048", "8192"}},
      {{"serve", "llama3-8b", "--gpu", "h100-sxm", "--prompt", "1024"}, "--concurrency", {"1", "64", "512"}},
      {{"serve", "llama3-70b", "--gpu", "h100", "--gpus", "2"}, "--output", {"1", "256", "4096"}},
      {{"memory", "llama2-70b", "--gpu", "mi300x", "--context", "4096"}, "--batch", {"8", "64"}},
      {{"memory", "gemma2-9b", "--gpu", "l4", "--reserve", "10%"}, "--kv-dtype", {"bf16", "fp8"}},
      {{"prefill", "qwen2.5-72b", "--gpu", "mi300x"}, "--prompt", {"1", "2048"}},
      {{"train", "llama3-70b", "--gpu", "h100-sxm", "--gpus", "64", "--seq", "4096"}, "--tp", {"1", "4", "8"}},
      {{"train", "llama3-8b", "--gpu", "h100-sxm", "--zero", "3", "--tokens", "1T"}, "--gpus", {"8", "16"}},
      {{"train", "mixtral-8x7b", "--gpu", "h100-sxm", "--gpus", "16", "--ep", "8"}, "--micro-batch", {"1", "4"}},
      {{"kv", "deepseek-v3"}, "--context", {"1", "163840"}},
      {{"flops", "gpt3-175b"}, "--prompt", {"1", "2048"}},
      {{"report", "llama3-8b", "--gpu", "a100-80gb-sxm"}, "--batch", {"1", "64"}},
      {{"params", "llama3-8b"}, "--dtype", {"bf16", "int4"}},
  };
  return rows;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

}  // namespace

TEST_CASE("a sweep's CSV rows hold the single runs' values of its figures, one row a point", "[sweep]") {
  for (const Sweep& s : sweeps()) {
    std::vector<std::string> args = s.command;
    args.insert(args.end(), {s.flag, joined(s.values), "--format", "csv"});
    INFO(joined(args));
    const std::vector<std::string> rows = lines_of(run_ok(args));
    REQUIRE(rows.size() == s.values.size() + 1);
    const std::vector<std::string> header = csv_fields(rows[0]);
    REQUIRE(header.size() > 2);
    CHECK(header.front() == "point." + s.flag.substr(2));
    CHECK(header.back() == "error");
    for (std::size_t i = 0; i < s.values.size(); ++i) {
      std::vector<std::string> single = s.command;
      single.insert(single.end(), {s.flag, s.values[i], "--format", "csv"});
      const std::vector<std::string> one = lines_of(run_ok(single));
      REQUIRE(one.size() == 2);
      const std::vector<std::string> keys = csv_fields(one[0]);
      const std::vector<std::string> values = csv_fields(one[1]);
      const std::vector<std::string> row = csv_fields(rows[i + 1]);
      REQUIRE(row.size() == header.size());
      CHECK(row.front() == s.values[i]);
      CHECK(row.back().empty());
      // Each figure column is the single run's column of the same key, character for character;
      // a figure the single run leaves out (not applicable) is empty.
      for (std::size_t c = 1; c + 1 < header.size(); ++c) {
        INFO(header[c]);
        const auto at = std::find(keys.begin(), keys.end(), header[c]);
        CHECK(row[c] == (at == keys.end() ? std::string() : values.at(static_cast<std::size_t>(at - keys.begin()))));
      }
    }
  }
}

TEST_CASE("a streamed CSV sweep gives a failed point its error column and goes on", "[sweep]") {
  std::istringstream in;
  std::ostringstream out;
  std::ostringstream err;
  const int code =
      cli::run_cli({"decode", "llama3-8b", "--gpu", "h100-sxm", "--tp", "1,3,2", "--format", "csv"}, in, out, err, {});
  CHECK(code == 1);
  const std::vector<std::string> rows = lines_of(out.str());
  REQUIRE(rows.size() == 5);  // the header, tp 1, tp 3's two-line quoted message, tp 2
  const std::vector<std::string> header = csv_fields(rows[0]);
  CHECK(header.back() == "error");
  CHECK(csv_fields(rows[1]).back().empty());
  CHECK(rows[2] ==
        "3" + std::string(header.size() - 2, ',') + ",\"at --tp 3: --tp: the 32 query heads do not split over 3 ranks");
  CHECK(rows[3] == "at --tp 3: --tp: the 8 KV heads neither split over nor replicate across 3 ranks\"");
  CHECK(rows[4].starts_with("2,"));
  // A problem at the first point is the whole sweep's: one error, nothing on stdout.
  std::ostringstream out2;
  std::ostringstream err2;
  CHECK(cli::run_cli({"decode", "llama3-8b", "--gpu", "h100-sxm", "--tp", "3,1", "--format", "csv"}, in, out2, err2,
                     {}) != 0);
  CHECK(out2.str().empty());
  CHECK(err2.str().starts_with("roofline: error: at --tp 3: --tp: the 32 query heads do not split over 3 ranks\n"));
}

TEST_CASE("a sweep's JSON points hold the single runs' results", "[sweep]") {
  for (const Sweep& s : sweeps()) {
    std::vector<std::string> args = s.command;
    args.insert(args.end(), {s.flag, joined(s.values), "--format", "json"});
    INFO(joined(args));
    const nlohmann::json doc = nlohmann::json::parse(run_ok(args));
    CHECK(doc.at("schema_version") == 1);
    CHECK(doc.at("command") == s.command.front());
    CHECK(doc.at("sweep").at("axes") == nlohmann::json::array({s.flag.substr(2)}));
    CHECK(doc.at("sweep").at("points") == s.values.size());
    REQUIRE(doc.at("results").size() == s.values.size());
    for (std::size_t i = 0; i < s.values.size(); ++i) {
      std::vector<std::string> single = s.command;
      single.insert(single.end(), {s.flag, s.values[i], "--format", "json"});
      const nlohmann::json one = nlohmann::json::parse(run_ok(single));
      const nlohmann::json& point = doc.at("results").at(i);
      CHECK(point.at("results") == one.at("results"));
      const nlohmann::json& value = point.at("point").at(s.flag.substr(2));
      CHECK((value.is_number() ? std::to_string(value.get<std::int64_t>()) : value.get<std::string>()) == s.values[i]);
      // The document's notes and the point's own make the single run's, the fixed ones once.
      const nlohmann::json& notes = one.at("notes");
      for (const auto& n : point.at("notes")) CHECK(std::find(notes.begin(), notes.end(), n) != notes.end());
      if (i == 0) CHECK(doc.at("inputs") == one.at("inputs"));
    }
  }
}

TEST_CASE("a sweep's JSON lines hold the single runs' values, one line a point", "[sweep]") {
  for (const Sweep& s : sweeps()) {
    std::vector<std::string> args = s.command;
    args.insert(args.end(), {s.flag, joined(s.values), "--format", "jsonl"});
    INFO(joined(args));
    const std::vector<std::string> lines = lines_of(run_ok(args));
    REQUIRE(lines.size() == s.values.size());
    for (std::size_t i = 0; i < s.values.size(); ++i) {
      std::vector<std::string> single = s.command;
      single.insert(single.end(), {s.flag, s.values[i], "--format", "json"});
      const nlohmann::json one = nlohmann::json::parse(run_ok(single)).at("results");
      const nlohmann::json line = nlohmann::json::parse(lines[i]);
      const nlohmann::json& value = line.at("point").at(s.flag.substr(2));
      CHECK((value.is_number() ? std::to_string(value.get<std::int64_t>()) : value.get<std::string>()) == s.values[i]);
      // "section.key": the single run's value, exactly (the figures, or the whole results).
      if (line.contains("results")) {
        CHECK(line.at("results") == one);
        continue;
      }
      REQUIRE(!line.at("figures").empty());
      for (const auto& [key, v] : line.at("figures").items()) {
        const std::size_t dot = key.find('.');
        const nlohmann::json& section = one.at(key.substr(0, dot));
        INFO(key);
        // A figure the single run leaves out (not applicable) keeps its column as null.
        if (!section.contains(key.substr(dot + 1))) {
          CHECK(v.is_null());
          continue;
        }
        CHECK(v == section.at(key.substr(dot + 1)));
      }
    }
  }
}

TEST_CASE("a grid runs the first flag given as the outermost loop", "[sweep]") {
  const auto first_columns = [](const std::vector<std::string>& args) {
    std::vector<std::string> out;
    const std::vector<std::string> rows = lines_of(run_ok(args));
    for (const std::string& r : rows) out.push_back(r.substr(0, r.find(',', r.find(',') + 1)));
    return out;
  };
  CHECK(first_columns({"kv", "llama3-8b", "--batch", "1,2", "--context", "0,1k", "--format", "csv"}) ==
        std::vector<std::string>{"point.batch,point.context", "1,0", "1,1000", "2,0", "2,1000"});
  CHECK(first_columns({"kv", "llama3-8b", "--context", "0,1k", "--batch", "1,2", "--format", "csv"}) ==
        std::vector<std::string>{"point.context,point.batch", "0,1", "0,2", "1000,1", "1000,2"});
  // --no-header drops the header line only.
  CHECK(lines_of(run_ok({"kv", "llama3-8b", "--batch", "1..3", "--format", "csv", "--no-header"})).size() == 3);
}

namespace {

// The row with key `key` ("section.row") in a report.
const format::Row* row_of(const format::Report& r, const std::string& key) {
  const std::string section = key.substr(0, key.find('.'));
  const std::string name = key.substr(key.find('.') + 1);
  for (const format::Section& s : r.sections) {
    if (s.key != section) continue;
    for (const format::Row& row : s.rows) {
      if (row.key == name) return &row;
    }
  }
  return nullptr;
}

void check_figures(const format::SweepFigures& f, const format::Report& single) {
  REQUIRE(f.columns != nullptr);
  REQUIRE(f.cells.size() == f.columns->size());
  for (std::size_t c = 0; c < f.cells.size(); ++c) {
    const std::string key = (*f.columns)[c].key;
    INFO(key);
    const format::Row* row = row_of(single, key);
    if (row == nullptr || row->absent) {  // a section the run does not print (report without --gpu)
      CHECK(std::holds_alternative<std::monostate>(f.cells[c].value));
    } else {
      CHECK(f.cells[c].value == row->value);
      CHECK(f.cells[c].unit == row->unit);
    }
  }
}

using test::resolved;

}  // namespace

TEST_CASE("a sweep row is the command's own run: its cells are the run's fields and its verdict the run's", "[sweep]") {
  // The command table's cells and run over one resolved point: no composition restated here. The
  // layouts are where a row once read the pooled fit and the ideal device's step (code review
  // 2026-12-01, bugs 1 and 2).
  struct Case {
    const char* command;
    std::vector<std::pair<const char*, const char*>> flags;
  };
  const std::vector<Case> cases = {
      {"decode", {{"model", "llama3-8b"}, {"gpu", "h100-sxm"}, {"batch", "512"}, {"context", "0"}}},
      {"decode", {{"model", "llama3-70b"}, {"gpu", "h100-sxm"}, {"tp", "4"}, {"batch", "16"}}},
      {"prefill", {{"model", "deepseek-v3"}, {"gpu", "mi355x"}, {"prompt", "4096"}}},
      {"memory", {{"model", "llama3-70b"}, {"gpu", "h100-sxm"}, {"tp", "16"}, {"batch", "1000"}, {"context", "2304"}}},
      {"memory", {{"model", "mixtral-8x7b"}, {"gpu", "h100-sxm"}, {"batch", "8"}}},
      {"serve", {{"model", "llama3-70b"}, {"gpu", "h100-sxm"}, {"tp", "4"}, {"batch", "32"}}},
      {"serve", {{"model", "llama3-8b"}, {"gpu", "h100-sxm"}, {"concurrency", "64"}}},
      {"report", {{"model", "llama3-8b"}, {"gpu", "h100-sxm"}}},
      {"report", {{"model", "llama3-8b"}}},
      {"kv", {{"model", "gemma2-9b"}, {"context", "8192"}}},
      {"flops", {{"model", "llama3-8b"}, {"prompt", "2048"}}},
      {"params", {{"model", "mixtral-8x7b"}}},
  };
  for (const Case& c : cases) {
    const cli::Command* cmd = cli::command_named(c.command);
    REQUIRE(cmd != nullptr);
    REQUIRE(cmd->cells != nullptr);
    const io::Resolved r = resolved(c.flags);
    INFO(c.command << " " << r.scenario.model.name);
    cli::Request req;
    req.groups = cmd->groups;
    const cli::Run run = cmd->run(req, &r);
    format::SweepFigures f;
    cmd->cells(r, f);
    check_figures(f, run.report);
    CHECK(f.fit.has_value() == run.fit.has_value());
    if (f.fit && run.fit) {
      CHECK(f.fit->fits == run.fit->fits);
      CHECK(f.fit->basis == run.fit->basis);
    }
  }
}

TEST_CASE("the verdict on a layout is the binding device's in every mode of the answer", "[sweep]") {
  // Llama 3 70B at batch 1,000 on 16 H100s: the pool holds it, each device of t = 16 does not.
  const io::Resolved r =
      resolved({{"model", "llama3-70b"}, {"gpu", "h100-sxm"}, {"tp", "16"}, {"batch", "1000"}, {"context", "2304"}});
  const MemoryAnswer a = answer_memory(r.scenario);
  CHECK(a.capacity.fits);
  REQUIRE(a.layout.has_value());
  CHECK_FALSE(a.layout->fits);
  CHECK(a.fit.basis == FitBasis::per_device);
  REQUIRE(a.fit.fits.has_value());
  CHECK_FALSE(*a.fit.fits);
  format::SweepFigures f;
  cli::command_named("memory")->cells(r, f);
  REQUIRE(f.fit.has_value());
  CHECK(f.fit->fits == std::optional<bool>(false));
}

TEST_CASE("a decode sweep's table marks the knee and the last fit, and says where they are", "[sweep]") {
  const std::string table = run_ok({"decode", "llama3-8b", "--gpu", "h100-sxm", "--context", "0,1k", "--batch",
                                    "1..1024*4", "--format", "markdown"});
  CHECK(table.find("| 0 | 1,024 |") != std::string::npos);
  CHECK(table.find("compute | yes | knee |") != std::string::npos);
  CHECK(table.find("| yes | last fit |") != std::string::npos);
  CHECK(table.find("- context 0: compute-bound from batch 296; no KV at this context, so no KV cap on the batch") !=
        std::string::npos);
  CHECK(table.find("- context 1,000: memory-bound at any batch (the KV read grows as fast as the FLOPs); the KV "
                   "budget caps the batch at 532") != std::string::npos);
}
