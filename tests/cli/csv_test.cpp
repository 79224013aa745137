// CSV: one flat table per command, so the rows of a shell loop over models and accelerators
// share one header, whatever each model has (MoE, MLA, learned positions).
#include "cli/app.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>

namespace {

std::string csv(std::vector<std::string> args) {
  args.insert(args.end(), {"--format", "csv", "-q"});
  std::istringstream in;
  std::ostringstream out;
  std::ostringstream err;
  REQUIRE(roofline::cli::run_cli(args, in, out, err, {}) == 0);
  return out.str();
}

std::string header(const std::string& text) { return text.substr(0, text.find('\n')); }

std::size_t lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

std::size_t fields(const std::string& line) {
  return static_cast<std::size_t>(std::count(line.begin(), line.end(), ',')) + 1;
}

}  // namespace

TEST_CASE("a command's CSV has one header whatever the model", "[csv]") {
  for (const char* command : {"params", "report", "memory", "decode", "serve"}) {
    INFO(command);
    const bool gpu = std::string(command) != "params";
    const auto run = [&](const char* model, const char* device) {
      std::vector<std::string> args = {command, model};
      if (gpu) args.insert(args.end(), {"--gpu", device});
      return csv(args);
    };
    const std::string dense = run("llama3-8b", "h100-sxm");
    const std::string moe_mla = run("deepseek-v3", "mi355x");
    const std::string learned = run("gpt2", "a10");
    CHECK(header(dense) == header(moe_mla));
    CHECK(header(dense) == header(learned));
    // One header line and one row, with as many fields as the header.
    CHECK(lines(dense) == 2);
    const std::string row = dense.substr(dense.find('\n') + 1);
    CHECK(fields(row.substr(0, row.size() - 1)) == fields(header(dense)));
  }
}
