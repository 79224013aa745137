// Every built-in model reports on an accelerator and every accelerator hosts a model: exit 0,
// valid JSON, the model's total equal to its published count, and no negative sizes or rates
// (except the free memory of a model that does not fit, which is reported as a shortfall).
#include "cli/app.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sstream>

namespace {

std::vector<std::string> names(const char* command) {
  std::istringstream in;
  std::ostringstream out;
  std::ostringstream err;
  REQUIRE(roofline::cli::run_cli({command, "--names"}, in, out, err, {}) == 0);
  std::vector<std::string> v;
  std::istringstream s(out.str());
  std::string line;
  while (std::getline(s, line)) v.push_back(line);
  return v;
}

nlohmann::json report(const std::string& model, const std::string& gpu) {
  std::istringstream in;
  std::ostringstream out;
  std::ostringstream err;
  const int code = roofline::cli::run_cli({"report", model, "--gpu", gpu, "--format", "json", "-q"}, in, out, err, {});
  INFO(err.str());
  REQUIRE(code == 0);
  return nlohmann::json::parse(out.str());
}

void check_sane(const nlohmann::json& j) {
  for (const auto& [section, rows] : j.at("results").items()) {
    if (!rows.is_object()) continue;
    for (const auto& [key, v] : rows.items()) {
      INFO(section << "." << key);
      // Free memory goes negative when the weights alone do not fit: then "fits" must say no.
      if (key == "free_for_kv_bytes") {
        if (v.get<double>() < 0.0) CHECK(rows.at("fits") == false);
        continue;
      }
      if (v.is_number()) CHECK(v.get<double>() >= 0.0);
    }
  }
  const auto& p = j.at("results").at("params");
  if (p.contains("published_params")) CHECK(p.at("published_params") == p.at("total_params"));
}

}  // namespace

TEST_CASE("every model preset reports on H100 SXM", "[smoke]") {
  const auto models = names("models");
  CHECK(models.size() >= 30);
  for (const std::string& m : models) {
    INFO("model " << m);
    check_sane(report(m, "h100-sxm"));
  }
}

TEST_CASE("every accelerator preset hosts Llama 3 8B", "[smoke]") {
  const auto gpus = names("gpus");
  CHECK(gpus.size() >= 25);
  for (const std::string& g : gpus) {
    INFO("gpu " << g);
    const nlohmann::json j = report("llama3-8b", g);
    check_sane(j);
    CHECK(j.at("results").at("decode").at("decode_tokens_per_s").get<double>() > 0.0);
  }
}
