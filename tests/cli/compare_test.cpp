// compare: every column is the single command run for that accelerator or model (its JSON results,
// inputs and notes key by key, and its CSV values), every ratio is that column's number over the
// first column's, and bad input is one line with a non-zero exit.
#include "cli/app.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <sstream>

namespace {

struct Result {
  int code;
  std::string out;
  std::string err;
};

Result run(std::vector<std::string> args, const std::string& stdin_text = "") {
  std::istringstream in(stdin_text);
  std::ostringstream out;
  std::ostringstream err;
  const int code = roofline::cli::run_cli(args, in, out, err, {});
  return {code, out.str(), err.str()};
}

std::string run_ok(std::vector<std::string> args, const std::string& stdin_text = "") {
  const Result r = run(std::move(args), stdin_text);
  INFO(r.err);
  REQUIRE(r.code == 0);
  return r.out;
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> items;
  std::string item;
  std::istringstream s(text);
  while (std::getline(s, item, sep)) items.push_back(item);
  return items;
}

// One CSV line's cells: quoted cells may hold commas, and an empty last cell is a cell.
std::vector<std::string> csv_cells(const std::string& line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted && ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      cells.back() += '"';
      ++i;
    } else if (ch == '"') {
      quoted = !quoted;
    } else if (ch == ',' && !quoted) {
      cells.emplace_back();
    } else {
      cells.back() += ch;
    }
  }
  return cells;
}

// A compare case: the question, the models and the accelerators (one of them a list), the flags.
struct Case {
  std::string question;
  std::string models;
  std::string gpus;  ///< empty: no --gpu
  std::vector<std::string> flags;
};

const std::vector<Case>& cases() {
  static const std::vector<Case> rows = {
      {"decode", "llama3-8b", "h100-sxm,h200-sxm,mi300x", {"--batch", "32"}},
      {"decode", "llama3-70b", "h100-sxm,mi300x", {"--gpus", "2", "--draft", "llama3-8b", "--context", "4k"}},
      {"decode", "llama3-8b,llama2-7b,mixtral-8x7b", "h100-sxm", {"--batch", "8"}},
      {"report", "llama3-70b", "a100,h100-sxm,mi300x", {}},
      {"report", "llama3-8b,deepseek-v3", "", {}},
      {"params", "llama3-8b,llama3-70b,mixtral-8x7b", "", {"--dtype", "fp8"}},
      {"flops", "llama3-8b,gpt3-175b", "", {"--prompt", "4096"}},
      {"kv", "llama3-8b,llama2-7b,gemma2-9b", "", {"--context", "32k"}},
      {"memory", "llama2-70b", "mi300x,h200-sxm", {"--context", "4096", "--tp", "2", "--gpus", "2"}},
      {"memory", "llama3-8b,llama3-70b", "h100-sxm", {"--reserve", "10%"}},
      {"prefill", "qwen2.5-72b", "mi300x,h100-sxm", {"--prompt", "8k"}},
      {"serve", "llama3-8b", "h100-sxm,mi300x", {"--prompt", "1024", "--output", "256", "--tpot", "20ms"}},
      {"train", "llama3-70b", "h100-sxm,mi300x", {"--gpus", "64", "--tp", "8", "--tokens", "15T", "--price", "2.5"}},
  };
  return rows;
}

std::vector<std::string> compare_args(const Case& c) {
  std::vector<std::string> args = {"compare", c.question, c.models};
  if (!c.gpus.empty()) args.insert(args.end(), {"--gpu", c.gpus});
  args.insert(args.end(), c.flags.begin(), c.flags.end());
  return args;
}

// The single command for column i of a case.
std::vector<std::string> single_args(const Case& c, std::size_t i) {
  const bool by_gpu = c.gpus.find(',') != std::string::npos;
  std::vector<std::string> args = {c.question, by_gpu ? c.models : split(c.models, ',').at(i)};
  if (!c.gpus.empty()) args.insert(args.end(), {"--gpu", by_gpu ? split(c.gpus, ',').at(i) : c.gpus});
  args.insert(args.end(), c.flags.begin(), c.flags.end());
  return args;
}

std::size_t columns_of(const Case& c) {
  return std::max(split(c.models, ',').size(), split(c.gpus.empty() ? "x" : c.gpus, ',').size());
}

std::vector<std::string> with(std::vector<std::string> args, std::initializer_list<std::string> more) {
  args.insert(args.end(), more);
  return args;
}

}  // namespace

TEST_CASE("each compare column is the single command's JSON, key by key", "[compare]") {
  for (const Case& c : cases()) {
    const std::vector<std::string> args = compare_args(c);
    INFO("roofline compare " << c.question << " " << c.models << " --gpu " << c.gpus);
    const nlohmann::json doc = nlohmann::json::parse(run_ok(with(args, {"--format", "json", "-q"})));
    CHECK(doc.at("command") == "compare");
    CHECK(doc.at("inputs").at("question") == c.question);
    const nlohmann::json& columns = doc.at("results");
    REQUIRE(columns.size() == columns_of(c));
    for (std::size_t i = 0; i < columns.size(); ++i) {
      const nlohmann::json single = nlohmann::json::parse(run_ok(with(single_args(c, i), {"--format", "json", "-q"})));
      INFO("column " << i << ": " << columns[i].at("column"));
      CHECK(doc.at("inputs").at("columns").at(i) == columns[i].at("column"));
      // The results, inputs and notes are the single run's, every key and value alike.
      for (const auto& [section, rows] : single.at("results").items()) {
        if (!rows.is_object()) continue;  // a table (kv's layers): whole, below
        for (const auto& [key, value] : rows.items()) {
          INFO(section << "." << key);
          CHECK(columns[i].at("results").at(section).at(key) == value);
        }
      }
      CHECK(columns[i].at("results") == single.at("results"));
      CHECK(columns[i].at("inputs") == single.at("inputs"));
      CHECK(columns[i].at("notes") == single.at("notes"));
      // Each ratio is this column's number over the first column's, and every number has one.
      CHECK(columns[i].contains("ratios") == (i > 0));
      if (i == 0) continue;
      const nlohmann::json& first = columns[0].at("results");
      std::size_t numbers = 0;
      for (const auto& [section, rows] : columns[i].at("results").items()) {
        if (!rows.is_object()) continue;  // a table (params' components): not a figure
        for (const auto& [key, value] : rows.items()) {
          if (!value.is_number()) continue;
          ++numbers;
          INFO(section << "." << key);
          const nlohmann::json& ratio = columns[i].at("ratios").at(section).at(key);
          const nlohmann::json base =
              first.contains(section) && first.at(section).contains(key) ? first.at(section).at(key) : nlohmann::json();
          if (base.is_number() && base.get<double>() != 0.0) {
            CHECK(ratio.get<double>() == value.get<double>() / base.get<double>());
          } else {
            CHECK(ratio.is_null());
          }
        }
      }
      std::size_t ratios = 0;
      for (const auto& [section, rows] : columns[i].at("ratios").items()) ratios += rows.size();
      CHECK(ratios == numbers);
    }
  }
}

TEST_CASE("each compare CSV column holds the single command's CSV values", "[compare]") {
  for (const Case& c : cases()) {
    INFO("roofline compare " << c.question << " " << c.models << " --gpu " << c.gpus);
    const std::vector<std::string> lines = split(run_ok(with(compare_args(c), {"--format", "csv", "-q"})), '\n');
    const std::vector<std::string> header = csv_cells(lines.at(0));
    const std::size_t n = columns_of(c);
    REQUIRE(header.size() == 2 + n + (n - 1));
    CHECK(header[0] == "key");
    CHECK(header[2 + n] == header[3] + "/" + header[2]);
    std::map<std::string, std::vector<std::string>> rows;  // key -> the row's cells
    for (std::size_t l = 1; l < lines.size(); ++l) {
      const std::vector<std::string> cells = csv_cells(lines[l]);
      REQUIRE(cells.size() == header.size());
      rows[cells[0]] = cells;
    }
    for (std::size_t i = 0; i < n; ++i) {
      const std::vector<std::string> single = split(run_ok(with(single_args(c, i), {"--format", "csv", "-q"})), '\n');
      const std::vector<std::string> keys = csv_cells(single.at(0));
      const std::vector<std::string> values = csv_cells(single.at(1));
      REQUIRE(keys.size() == values.size());
      for (std::size_t k = 0; k < keys.size(); ++k) {
        INFO("column " << i << " " << keys[k]);
        if (rows.count(keys[k]) == 0) {
          CHECK(values[k].empty());  // a row absent for every column is no row of the comparison
          continue;
        }
        CHECK(rows.at(keys[k]).at(2 + i) == values[k]);
      }
    }
  }
}

TEST_CASE("compare's table fits 100 columns, names the columns and marks ratios", "[compare]") {
  const std::string out = run_ok({"compare", "decode", "llama3-8b", "--gpu", "h100-sxm,mi300x", "--batch", "32"});
  CHECK(out.find("compare decode: llama3-8b on h100-sxm, mi300x\n") == 0);
  CHECK(out.find("batch 32, context 8,192 tokens") != std::string::npos);
  CHECK(out.find("decode, each column's ratio to h100-sxm") != std::string::npos);
  // The step floor: 14.74 ms on the H100, 9.315 ms on the MI300X, 0.6321x (3.35 / 5.3 TB/s).
  CHECK(out.find("step floor") != std::string::npos);
  CHECK(out.find("14.74 ms") != std::string::npos);
  CHECK(out.find("9.315 ms 0.6321x") != std::string::npos);
  // Three accelerators and the full decode: the ratios give way to fit 100 columns, and say so.
  const std::string three = run_ok({"compare", "decode", "llama3-8b", "--gpu", "h100-sxm,h200-sxm,mi300x"});
  CHECK(three.find("the ratios to h100-sxm are left out to fit 100 columns") != std::string::npos);
  CHECK(three.find("\n                                            h100-sxm      h200-sxm      mi300x\n") !=
        std::string::npos);
  // The same in Markdown keeps them.
  const std::string md =
      run_ok({"compare", "decode", "llama3-8b", "--gpu", "h100-sxm,h200-sxm,mi300x", "--format", "markdown"});
  CHECK(md.find("| figure | h100-sxm | h200-sxm | ratio | mi300x | ratio |") != std::string::npos);
  CHECK(md.find("| **Decode (batch 1, context 8,192)** |") != std::string::npos);
}

TEST_CASE("compare shows an input the columns differ in, and shared labels", "[compare]") {
  // Llama 2 7B defaults to its 4,096-token context, Llama 3 8B to 8,192.
  const std::string out = run_ok({"compare", "kv", "llama3-8b,llama2-7b"});
  CHECK(out.find("  Inputs\n    context                      8,192 tokens 4,096 tokens\n") != std::string::npos);
  CHECK(out.find("per sequence at ...") != std::string::npos);
  // A section titled by the accelerator is titled by what the columns share.
  const std::string gpus = run_ok({"compare", "decode", "llama3-8b", "--gpu", "h100-sxm,mi300x"});
  CHECK(gpus.find("\n  Accelerator\n") != std::string::npos);
}

TEST_CASE("compare reads a model from stdin once, for every accelerator", "[compare]") {
  std::ifstream f(std::string(ROOFLINE_SOURCE_DIR) + "/tests/fixtures/hf/llama3-8b.config.json");
  std::stringstream config;
  config << f.rdbuf();
  const nlohmann::json doc = nlohmann::json::parse(
      run_ok({"compare", "decode", "-", "--gpu", "h100-sxm,mi300x", "--format", "json"}, config.str()));
  const nlohmann::json single =
      nlohmann::json::parse(run_ok({"decode", "-", "--gpu", "mi300x", "--format", "json"}, config.str()));
  CHECK(doc.at("results").at(1).at("results") == single.at("results"));
}

TEST_CASE("compare --require-fit fails when any column does not fit", "[compare]") {
  CHECK(run({"compare", "decode", "llama3-70b", "--gpu", "mi300x,h200-sxm", "--require-fit", "-q"}).code == 0);
  CHECK(run({"compare", "decode", "llama3-70b", "--gpu", "mi300x,h100-sxm", "--require-fit", "-q"}).code == 3);
}

TEST_CASE("compare's bad input: one line and a non-zero exit", "[compare]") {
  struct Bad {
    std::vector<std::string> args;
    int code;
    std::string message;
  };
  const std::vector<Bad> bad = {
      {{"compare"},
       2,
       "compare: the question comes first: roofline compare QUESTION MODEL[,MODEL...] [--gpu GPU[,GPU...]] [its "
       "flags]; questions: report, params, flops, kv, memory, decode, prefill, serve, train"},
      {{"compare", "decod", "llama3-8b"},
       2,
       "compare: \"decod\" is not a question it compares; did you mean \"decode\"?"},
      {{"compare", "layer", "llama3-8b", "--gpu", "h100-sxm,mi300x"},
       2,
       "compare: \"layer\" is not a question it compares (its results are not a column of figures); questions: "
       "report, params, flops, kv, memory, decode, prefill, serve, train"},
      {{"compare", "decode", "llama3-8b,llama3-70b", "--gpu", "h100-sxm,mi300x"},
       2,
       "compare: 2 models and 2 accelerators; compare one list at a time (several models on one --gpu, or one model on "
       "several)"},
      {{"compare", "decode", "llama3-8b", "--gpu", "h100-sxm"},
       2,
       "compare: one column; give two or more models (MODEL,MODEL) or accelerators (--gpu A,B)"},
      {{"compare", "params", "llama3-8b"}, 2, "compare: one column; give two or more models (MODEL,MODEL)"},
      {{"compare", "params", "llama3-8b,llama3-70b", "--gpu", "h100-sxm"},
       2,
       "--gpu does not apply to params; see roofline params --help"},
      {{"compare", "decode", "llama3-8b", "--gpu", "h100-sxm,h100-sxm"}, 2, "--gpu: \"h100-sxm\" is given twice"},
      {{"compare", "decode", "llama3-8b", "--gpu", "h100,h100-sxm"},
       2,
       "--gpu: \"h100\" and \"h100-sxm\" are the same accelerator (h100-sxm)"},
      {{"compare", "kv", "llama3-8b,,llama2-7b"}, 2, "MODEL: an empty name in \"llama3-8b,,llama2-7b\""},
      {{"compare", "decode", "llama3-8b", "--gpu", "h100-sxm,mi300x", "--batch", "1,8"},
       2,
       "compare: a list or range on a workload flag is a sweep; compare takes one value per flag"},
      {{"compare", "decode", "llama3-8b", "--gpu", "h100-sxm,mi300x", "--explain"},
       2,
       "--explain: compare's table sets figures side by side; --format json holds each column's formulas, and the "
       "single command with --explain shows one"},
      {{"compare", "decode", "llama3-8b", "--gpu", "h100-sxm,h10"},
       1,
       "--gpu: unknown preset \"h10\"; did you mean one of: h100-nvl, h100-pcie, h100-sxm?"},
      {{"compare", "kv", "llama3-8b,llama3-8"}, 1, "MODEL: unknown preset \"llama3-8\"; did you mean \"llama3-8b\"?"},
  };
  for (const Bad& b : bad) {
    const Result r = run(b.args);
    INFO(r.err);
    CHECK(r.code == b.code);
    CHECK(r.err == "roofline: error: " + b.message + "\n");
    CHECK(r.out.empty());
  }
}

TEST_CASE("compare --explain in JSON: each column's formulas, as its single command's", "[compare]") {
  const nlohmann::json doc =
      nlohmann::json::parse(run_ok({"compare", "kv", "llama3-8b,llama2-7b", "--explain", "--format", "json"}));
  const nlohmann::json single = nlohmann::json::parse(run_ok({"kv", "llama2-7b", "--explain", "--format", "json"}));
  CHECK(doc.at("results").at(1).at("explain") == single.at("explain"));
}
