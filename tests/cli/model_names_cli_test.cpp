// Model names as people paste them (issue 23 part 5): the repo ids of Instruct and -it fine-tunes
// and of FP8 / AWQ / GPTQ uploads resolve to their base preset, with a note saying so and the
// weights the storage word names; an unknown org/name says where roofline looked.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "cli_run.hpp"

namespace {

using Run = roofline_test::CliRun;

Run run(const std::vector<std::string>& args) { return roofline_test::run_cli(args); }

nlohmann::json json_of(const std::string& model) {
  const Run r = run({"params", model, "--format", "json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  return nlohmann::json::parse(r.out);
}

bool has_note(const nlohmann::json& j, const std::string& text) {
  for (const auto& n : j.at("notes")) {
    if (n.get<std::string>().find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("the Instruct and -it repo ids people paste resolve to their base architecture", "[names]") {
  struct Row {
    const char* id;
    const char* preset;
    std::int64_t total;  // the base checkpoint's published total (the preset's source)
  };
  const Row rows[] = {
      {"meta-llama/Llama-3.1-70B-Instruct", "llama3.1-70b", 70553706496},
      {"Qwen/Qwen2.5-72B-Instruct", "qwen2.5-72b", 72706203648},
      {"mistralai/Mistral-7B-Instruct-v0.3", "mistral-7b-v0.3", 7248023552},
      {"google/gemma-2-9b-it", "gemma2-9b", 9241705984},
      {"meta-llama/Llama-3.1-405B-Instruct-FP8", "llama3.1-405b", 405853388800},
  };
  for (const Row& r : rows) {
    CAPTURE(r.id);
    const nlohmann::json j = json_of(r.id);
    CHECK(j.at("inputs").at("model").at("name") == r.preset);
    CHECK(j.at("results").at("params").at("total_params") == r.total);
    CHECK(has_note(j, std::string("MODEL ") + r.id + " read as " + r.preset));
  }
  // The storage word sets the weights: FP8 matrices, bf16 rest, as published.
  const nlohmann::json fp8 = json_of("meta-llama/Llama-3.1-405B-Instruct-FP8");
  const nlohmann::json& w = fp8.at("inputs").at("workload");
  CHECK(w.at("weights_published") == true);
  CHECK(w.at("weights").at("ffn") == "fp8");
  CHECK(w.at("weights").at("embedding") == "bf16");
  CHECK(has_note(fp8, "weights as the name says: fp8 matrices"));
  const nlohmann::json gptq = json_of("Qwen/Qwen2.5-72B-Instruct-GPTQ-Int4");
  CHECK(gptq.at("inputs").at("workload").at("weights").at("attention") == "gptq-g128");
  CHECK(json_of("Qwen/Qwen2.5-7B-Instruct-AWQ").at("inputs").at("workload").at("weights").at("ffn") == "awq-g128");
  // A base name without such words is an alias as before, with no note of a variant.
  CHECK_FALSE(has_note(json_of("meta-llama/Llama-3.1-70B"), "read as"));
}

TEST_CASE("an unknown org/name says where roofline looked, with the family's presets", "[names]") {
  const Run r = run({"params", "mistralai/Mistral-9B-Instruct"});
  CHECK(r.code == 1);
  CHECK(r.out.empty());
  CHECK_THAT(r.err,
             Catch::Matchers::Contains("is no preset, alias or file; roofline looked in the local Hugging Face cache"));
  CHECK_THAT(r.err, Catch::Matchers::Contains("mistral-7b"));
}
