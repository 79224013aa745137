// layer against decode and prefill through the command line, as a script reads them: for every
// model preset the JSON totals are the pass command's FLOPs, weight and KV bytes and floor, and no
// number in the document is negative (N2); without a peak for the compute type the prefill's
// whole-pass floor is null, as prefill's TTFT floor is (N15).
#include "cli/app.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string run(const std::vector<std::string>& args) {
  std::istringstream in;
  std::ostringstream out;
  std::ostringstream err;
  const int code = roofline::cli::run_cli(args, in, out, err, {});
  INFO(err.str());
  REQUIRE(code == 0);
  return out.str();
}

nlohmann::json results(std::vector<std::string> args) {
  args.insert(args.end(), {"--format", "json", "-q"});
  return nlohmann::json::parse(run(args)).at("results");
}

std::vector<std::string> model_names() {
  std::vector<std::string> v;
  std::istringstream s(run({"models", "--names"}));
  std::string line;
  while (std::getline(s, line)) v.push_back(line);
  return v;
}

bool close(const nlohmann::json& got, const nlohmann::json& want) {
  if (got.is_null() || want.is_null()) return got.is_null() && want.is_null();
  const double g = got.get<double>();
  const double w = want.get<double>();
  return std::fabs(g - w) <= 1e-9 * std::max(std::fabs(w), 1e-300);
}

// Every number anywhere in the layer document: a count of work, traffic or time, never negative.
void check_not_negative(const nlohmann::json& j, const std::string& where) {
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) check_not_negative(v, where + "." + k);
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) check_not_negative(j[i], where + "[" + std::to_string(i) + "]");
  } else if (j.is_number()) {
    INFO(where);
    CHECK(j.get<double>() >= 0.0);
  }
}

}  // namespace

TEST_CASE("layer --format json: every model preset's totals are decode's and prefill's, nothing negative [N2]",
          "[layer][N2]") {
  const std::vector<std::string> models = model_names();
  REQUIRE(models.size() >= 100);
  for (const std::string& m : models) {
    CAPTURE(m);
    const std::vector<std::string> step = {m, "--gpu", "h100-sxm", "--batch", "2", "--context", "4096"};
    std::vector<std::string> args = {"layer"};
    args.insert(args.end(), step.begin(), step.end());
    const nlohmann::json layer = results(args);
    args[0] = "decode";
    const nlohmann::json decode = results(args).at("decode");
    const nlohmann::json& l = layer.at("layer");
    CHECK(close(l.at("flop"), decode.at("flop_per_step")));
    CHECK(close(l.at("weight_bytes"), decode.at("weight_bytes_per_step")));
    CHECK(close(l.at("kv_bytes"), decode.at("kv_bytes_per_step")));
    CHECK(close(l.at("whole_pass_time_s"), decode.at("step_time_s")));
    check_not_negative(layer, m + " decode");

    const std::vector<std::string> pass = {m, "--gpu", "mi300x", "--batch", "3", "--prompt", "1000"};
    args = {"layer"};
    args.insert(args.end(), pass.begin(), pass.end());
    args.insert(args.end(), {"--phase", "prefill"});
    const nlohmann::json layer_p = results(args);
    args = {"prefill"};
    args.insert(args.end(), pass.begin(), pass.end());
    const nlohmann::json prefill = results(args).at("prefill");
    const nlohmann::json& lp = layer_p.at("layer");
    CHECK(close(lp.at("flop"), prefill.at("prefill_flop")));
    CHECK(close(lp.at("weight_bytes"), prefill.at("prefill_weight_bytes")));
    CHECK(close(lp.at("kv_bytes"), prefill.at("prefill_kv_written_bytes")));
    CHECK(close(lp.at("whole_pass_time_s"), prefill.at("ttft_floor_s")));
    check_not_negative(layer_p, m + " prefill");
  }
}

TEST_CASE("layer --phase prefill with no peak for the compute type: the whole-pass floor is null, as prefill's [N15]",
          "[layer][N15]") {
  // Gaudi 2 publishes no fp32 peak: prefill's TTFT floor is null, and so is layer's whole pass.
  const std::vector<std::string> pass = {"starcoder2-15b", "--gpu", "gaudi2", "--dtype", "fp32"};
  std::vector<std::string> args = {"layer"};
  args.insert(args.end(), pass.begin(), pass.end());
  args.insert(args.end(), {"--phase", "prefill"});
  const nlohmann::json layer = results(args);
  args = {"prefill"};
  args.insert(args.end(), pass.begin(), pass.end());
  const nlohmann::json prefill = results(args);
  CHECK(prefill.at("prefill").at("ttft_floor_s").is_null());
  CHECK(layer.at("layer").at("whole_pass_time_s").is_null());
  CHECK(layer.at("hardware").at("peak_flop_per_s").is_null());
  // The rest of the pass is still counted, and the operators' memory-side floors are still summed.
  CHECK(layer.at("layer").at("flop").get<double>() > 0.0);
  CHECK(layer.at("layer").at("time_unfused_s").get<double>() > 0.0);
  // The table says n/a where the JSON says null.
  args = {"layer"};
  args.insert(args.end(), pass.begin(), pass.end());
  args.insert(args.end(), {"--phase", "prefill"});
  const std::string table = run(args);
  CHECK_THAT(table, Catch::Matchers::Contains("one roofline for the whole prefill          n/a"));

  // A decode step keeps decode's floor, the memory side alone, which decode prints too.
  args = {"layer"};
  args.insert(args.end(), pass.begin(), pass.end());
  const nlohmann::json layer_d = results(args);
  args[0] = "decode";
  const nlohmann::json decode = results(args);
  CHECK(decode.at("decode").at("compute_time_s").is_null());
  REQUIRE(layer_d.at("layer").at("whole_pass_time_s").is_number());
  CHECK(close(layer_d.at("layer").at("whole_pass_time_s"), decode.at("decode").at("step_time_s")));

  // With a peak (bf16 on the same device) the floor is prefill's again, a number.
  const std::vector<std::string> bf16 = {"starcoder2-15b", "--gpu", "gaudi2", "--phase", "prefill"};
  args = {"layer"};
  args.insert(args.end(), bf16.begin(), bf16.end());
  const nlohmann::json with_peak = results(args);
  const nlohmann::json prefill_peak = results({"prefill", "starcoder2-15b", "--gpu", "gaudi2"});
  REQUIRE(with_peak.at("layer").at("whole_pass_time_s").is_number());
  CHECK(close(with_peak.at("layer").at("whole_pass_time_s"), prefill_peak.at("prefill").at("ttft_floor_s")));
}
