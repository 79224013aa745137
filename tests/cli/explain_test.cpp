// --explain: every derived number carries its formula, the values substituted, and a source.
#include "cli/app.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <set>
#include <sstream>

namespace {

nlohmann::json run_json(std::vector<std::string> args) {
  args.insert(args.end(), {"--format", "json", "--explain"});
  std::istringstream in;
  std::ostringstream out;
  std::ostringstream err;
  REQUIRE(roofline::cli::run_cli(args, in, out, err, {}) == 0);
  return nlohmann::json::parse(out.str());
}

}  // namespace

TEST_CASE("every derived result has an explanation", "[explain]") {
  // Inputs echoed as results (not derived) are the only rows without a formula.
  const std::set<std::string> inputs = {
      "capacity.capacity_bytes",        "capacity.reserve_bytes",   "hardware.memory_bandwidth_bytes_per_s",
      "hardware.memory_capacity_bytes", "hardware.peak_flop_per_s", "params.published_params"};
  const std::vector<std::vector<std::string>> commands = {
      {"report", "llama3-8b", "--gpu", "h100-sxm"},
      {"report", "deepseek-v3", "--gpu", "mi355x", "--train-tokens", "1T", "--measured-tokens-per-s", "1e6"},
      {"serve", "mixtral-8x7b", "--gpu", "h200-sxm"},
      {"flops", "gpt2", "--gpu", "a100-80gb-sxm", "--train-tokens", "1T", "--measured-tokens-per-s", "1e5"},
      {"gemm", "1", "4096", "4096", "--gpu", "mi300x"},
  };
  for (const auto& args : commands) {
    const nlohmann::json j = run_json(args);
    for (const auto& [section, rows] : j.at("results").items()) {
      if (!rows.is_object()) continue;
      for (const auto& [key, value] : rows.items()) {
        const std::string id = section + "." + key;
        if (inputs.count(id) != 0) continue;
        INFO(args.front() << " " << args.at(1) << ": " << id);
        REQUIRE(j.at("explain").contains(id));
        const auto& e = j.at("explain").at(id);
        CHECK(!e.at("formula").get<std::string>().empty());
        CHECK(!e.at("source").get<std::string>().empty());
      }
    }
  }
}
