// Every example shown in --help and in README.md runs, succeeds and prints an answer without nan or
// inf, errors on stderr, or a JSON form that does not parse: a documented command that fails is a
// bug in the docs or the code.
#include "cli/app.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace {

struct Result {
  int code;
  std::string out;
  std::string err;
};

Result run(const std::vector<std::string>& args) {
  std::istringstream in;
  std::ostringstream out;
  std::ostringstream err;
  const int code = roofline::cli::run_cli(args, in, out, err, {});
  return {code, out.str(), err.str()};
}

std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> w;
  std::istringstream s(line);
  std::string x;
  while (s >> x) w.push_back(x);
  return w;
}

// Lines of the form "  roofline ..." (help footers) or "roofline ..." (README code blocks).
std::vector<std::string> example_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream s(text);
  std::string line;
  const std::regex example(R"(^\s*(\$ )?roofline (.*)$)");
  std::smatch m;
  while (std::getline(s, line)) {
    if (std::regex_match(line, m, example)) lines.push_back(m[2]);
  }
  return lines;
}

void run_example(const std::string& line) {
  INFO("example: roofline " << line);
  if (line.find('|') != std::string::npos || line.find('<') != std::string::npos) return;  // shell plumbing
  // An example that saves its output (roofline completion bash > FILE) runs without the redirection.
  std::vector<std::string> args = words(line.substr(0, line.find(" > ")));
  // A picture written to a file (plot -o FILE) goes to a scratch directory, and the file is its output.
  const auto o = std::find(args.begin(), args.end(), "-o");
  if (o != args.end() && o + 1 != args.end()) {
    const std::filesystem::path file = std::filesystem::temp_directory_path() / ("roofline-example-" + *(o + 1));
    *(o + 1) = file.string();
    const Result r = run(args);
    INFO(r.err);
    CHECK(r.code == 0);
    CHECK(std::filesystem::file_size(file) > 0);
    std::filesystem::remove(file);
    return;
  }
  const Result r = run(args);
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(!r.out.empty());
  // A documented answer is a number, never nan or inf; stderr holds warnings at most.
  const std::regex not_a_number(R"((^|[^A-Za-z])(nan|inf)([^A-Za-z]|$))", std::regex::icase);
  CHECK_FALSE(std::regex_search(r.out, not_a_number));
  std::istringstream err(r.err);
  for (std::string e; std::getline(err, e);) CHECK(e.rfind("roofline: warning: ", 0) == 0);
  // The same answer as JSON is one document with its results (where the command writes JSON).
  const bool json_command = std::find_if(args.begin(), args.end(), [](const std::string& a) {
                              return a == "completion" || a == "plot" || a == "batch" || a == "--format" ||
                                     a.rfind("--format=", 0) == 0 || a == "--brief";
                            }) == args.end();
  if (json_command) {
    std::vector<std::string> as_json = args;
    as_json.insert(as_json.end(), {"--format", "json"});
    const Result j = run(as_json);
    INFO(j.err);
    CHECK(j.code == 0);
    const nlohmann::json doc = nlohmann::json::parse(j.out, nullptr, false);
    CHECK_FALSE(doc.is_discarded());
    if (doc.is_object() && !doc.contains("models") && !doc.contains("gpus")) CHECK(doc.contains("results"));
  }
}

}  // namespace

TEST_CASE("every --help example runs", "[examples]") {
  // From the repository root, where the fixture paths of the examples resolve.
  std::filesystem::current_path(ROOFLINE_SOURCE_DIR);
  std::vector<std::string> helps = {"--help"};
  for (const char* cmd : {"report", "params", "flops", "kv", "memory", "decode", "prefill", "serve", "layer", "train",
                          "plan", "gemm", "plot", "batch", "completion", "compare"}) {
    helps.push_back(std::string(cmd) + " --help");
  }
  std::size_t examples = 0;
  for (const std::string& h : helps) {
    const Result r = run(words(h));
    REQUIRE(r.code == 0);
    for (const std::string& line : example_lines(r.out)) {
      run_example(line);
      ++examples;
    }
  }
  CHECK(examples >= 12);
}

TEST_CASE("every README example runs", "[examples]") {
  // The README's examples are run from the repository root, where its fixture paths resolve.
  std::filesystem::current_path(ROOFLINE_SOURCE_DIR);
  std::ifstream f(std::string(ROOFLINE_SOURCE_DIR) + "/README.md");
  REQUIRE(f.good());
  std::ostringstream s;
  s << f.rdbuf();
  const auto lines = example_lines(s.str());
  CHECK(lines.size() >= 5);
  for (const std::string& line : lines) run_example(line);
}
