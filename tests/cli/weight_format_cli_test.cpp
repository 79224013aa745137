// Checkpoints sized as published (issue 23): gpt-oss's MXFP4 experts and DeepSeek-V3's FP8 blocks
// by default, --weight-format for the other layouts, and a layout of a different format per class
// that layer's rows, decode and prefill read alike for every preset.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "cli_run.hpp"

namespace {

using Run = roofline_test::CliRun;

Run run(const std::vector<std::string>& args) { return roofline_test::run_cli(args); }

nlohmann::json json_of(std::vector<std::string> args) {
  args.insert(args.end(), {"--format", "json", "-q"});
  const Run r = run(args);
  INFO(r.err);
  REQUIRE(r.code == 0);
  return nlohmann::json::parse(r.out);
}

bool close(double got, double want) { return std::fabs(got - want) <= 1e-9 * std::max(std::fabs(want), 1e-300); }

}  // namespace

TEST_CASE("memory gpt-oss-120b --gpu h100 fits one device at the published checkpoint's size", "[weights][published]") {
  const nlohmann::json j = json_of({"memory", "gpt-oss-120b", "--gpu", "h100"});
  const nlohmann::json& cap = j.at("results").at("capacity");
  // MXFP4 experts (4.25 bits) and bf16 rest: the params view's checkpoint row, which sums the
  // block-scaled expert matrices one by one (OCP23 §5.3, OA25 §2.1).
  const nlohmann::json params = json_of({"params", "gpt-oss-120b"}).at("results").at("weights");
  CHECK(cap.at("weight_bytes") == params.at("checkpoint_bytes"));
  CHECK(cap.at("weight_bytes") == 65248815744);
  CHECK(cap.at("fits") == true);
  CHECK(cap.at("devices_needed") == 1);
  const nlohmann::json& w = j.at("inputs").at("workload");
  CHECK(w.at("weights_published") == true);
  CHECK(w.at("weights").at("experts") == "mxfp4");
  CHECK(w.at("weights").at("attention") == "bf16");
  CHECK(w.at("compute_dtype") == "bf16");  // MXFP4 dequantizes into bf16 on an H100
  const Run table = run({"memory", "gpt-oss-120b", "--gpu", "h100"});
  CHECK_THAT(table.out, Catch::Matchers::Contains("weights as published: mxfp4 experts; bf16 rest"));

  // The same model at bf16: 116,829,156,672 x 2 B, three H100s.
  const nlohmann::json bf16 = json_of({"memory", "gpt-oss-120b", "--gpu", "h100", "--weight-format", "bf16"});
  CHECK(bf16.at("results").at("capacity").at("weight_bytes") == 2 * 116829156672);
  CHECK(bf16.at("results").at("capacity").at("fits") == false);
  CHECK(bf16.at("results").at("capacity").at("devices_needed") == 3);
  CHECK(bf16.at("inputs").at("workload").at("weights_published") == false);
  // --dtype keeps its meaning: every weight at that type.
  const nlohmann::json fp8 = json_of({"memory", "gpt-oss-120b", "--gpu", "h100", "--dtype", "fp8"});
  CHECK(fp8.at("results").at("capacity").at("weight_bytes") == 116829156672);
  // gpt-oss-20b: the checkpoint index's total_size, 13,761,264,768 B (preset source).
  CHECK(json_of({"params", "gpt-oss-20b"}).at("results").at("weights").at("weight_bytes") == 13761264768);
}

TEST_CASE("memory deepseek-v3 --gpu h200 --gpus 8 fits in the published FP8", "[weights][published]") {
  const nlohmann::json j = json_of({"memory", "deepseek-v3", "--gpu", "h200", "--gpus", "8"});
  const nlohmann::json& cap = j.at("results").at("capacity");
  // quantization_config fp8, weight_block_size [128, 128]: the 669,065,609,216 weights of the
  // attention, dense FFN, expert and shared-expert matrices at 8 + 32/16384 bits, the router,
  // embedding, head and norms (1,960,809,984) at bf16  [DSV3 §3.3]
  CHECK(close(cap.at("weight_bytes").get<double>(), 669065609216.0 * (1.0 + 4.0 / 16384.0) + 1960809984.0 * 2.0));
  CHECK(cap.at("fits") == true);
  CHECK(j.at("inputs").at("workload").at("compute_dtype") == "fp8");
  const nlohmann::json bf16 =
      json_of({"memory", "deepseek-v3", "--gpu", "h200", "--gpus", "8", "--weight-format", "bf16"});
  CHECK(bf16.at("results").at("capacity").at("fits") == false);
  CHECK(bf16.at("results").at("capacity").at("devices_needed") == 9);
  // A class list changes the classes it names over the published layout.
  const nlohmann::json mixed = json_of({"memory", "deepseek-v3", "--gpu", "h200", "--weight-format", "experts=mxfp4"});
  const nlohmann::json& mw = mixed.at("inputs").at("workload");
  CHECK(mw.at("weights").at("experts") == "mxfp4");
  CHECK(mw.at("weights").at("attention") == "fp8-block128");
  CHECK(mw.at("weights").at("router") == "bf16");
  CHECK(mw.at("weights_published") == false);
  CHECK(mw.at("weight_format") == "per class");
  // rest= sets every class the list does not name.
  const nlohmann::json rest =
      json_of({"memory", "llama3-8b", "--gpu", "h100", "--weight-format", "ffn=q4_k,rest=q8_0"});
  CHECK(rest.at("inputs").at("workload").at("weights").at("ffn") == "q4_k");
  CHECK(rest.at("inputs").at("workload").at("weights").at("vectors") == "q8_0");
  // "published" on a model that declares nothing is bf16, as the default is.
  CHECK(
      json_of({"params", "llama3-8b", "--weight-format", "published"}).at("results").at("weights").at("weight_bytes") ==
      json_of({"params", "llama3-8b"}).at("results").at("weights").at("weight_bytes"));
}

TEST_CASE("a layout of a format per class: layer's rows are decode's and prefill's weights for every preset",
          "[weights][layer]") {
  // Every class at its own format, so a row counted in the wrong class shows.
  const std::string layout =
      "embedding=q8_0,attention=fp8,ffn=int4-g128,experts=mxfp4,shared-experts=q6_k,router=fp16,head=q4_k,"
      "vectors=fp32,vision=int8";
  const Run names = run({"models", "--names"});
  REQUIRE(names.code == 0);
  std::istringstream s(names.out);
  std::string m;
  int models = 0;
  while (std::getline(s, m)) {
    CAPTURE(m);
    ++models;
    const std::vector<std::string> step = {m,           "--gpu", "h100-sxm",        "--batch", "2",
                                           "--context", "4096",  "--weight-format", layout};
    std::vector<std::string> args = {"layer"};
    args.insert(args.end(), step.begin(), step.end());
    const double layer = json_of(args).at("results").at("layer").at("weight_bytes").get<double>();
    args[0] = "decode";
    const double decode = json_of(args).at("results").at("decode").at("weight_bytes_per_step").get<double>();
    CHECK(close(layer, decode));
    const std::vector<std::string> pass = {m, "--gpu", "mi300x", "--prompt", "1000", "--weight-format", layout};
    args = {"layer"};
    args.insert(args.end(), pass.begin(), pass.end());
    args.insert(args.end(), {"--phase", "prefill"});
    const double layer_p = json_of(args).at("results").at("layer").at("weight_bytes").get<double>();
    args = {"prefill"};
    args.insert(args.end(), pass.begin(), pass.end());
    const double prefill = json_of(args).at("results").at("prefill").at("prefill_weight_bytes").get<double>();
    CHECK(close(layer_p, prefill));
  }
  CHECK(models >= 100);
}

TEST_CASE("params names the active count of each convention the vendors' cards use", "[active]") {
  struct Row {
    const char* model;
    std::int64_t physical, without_embedding, without_embedding_or_head;
    const char* card;
  };
  const Row rows[] = {
      // gpt-oss card Table 1 (OA25 §2.1): 5.13B and 3.61B active, the embedding left out
      {"gpt-oss-120b", 5711982912, 5711982912 - 579133440, 5711982912 - 2 * 579133440, "5.13B"},
      {"gpt-oss-20b", 4187440704, 4187440704 - 579133440, 4187440704 - 2 * 579133440, "3.61B"},
      // DeepSeek-V2-Lite card: 2.4B activated, 102,400 x 2,048 table left out
      {"deepseek-v2-lite", 2661150208, 2661150208 - 209715200, 2661150208 - 2 * 209715200, "2.4B"},
  };
  for (const Row& r : rows) {
    CAPTURE(r.model, r.card);
    const nlohmann::json p = json_of({"params", r.model}).at("results").at("params");
    CHECK(p.at("active_params") == r.physical);
    CHECK(p.at("active_params_without_embedding") == r.without_embedding);
    CHECK(p.at("active_params_without_embedding_or_head") == r.without_embedding_or_head);
  }
}

TEST_CASE("the KV format: a cache format's bits with its scales; a hybrid's state stays at the KV dtype",
          "[kv-format]") {
  const auto kv = [](std::vector<std::string> args) { return json_of(std::move(args)).at("results").at("kv"); };
  // Llama 3 8B: 32 layers x 2,048 elements a token.
  // KIVI's groups: 4 bits + an fp16 scale and zero per 64 = 4.5 bits  [KIVI24]
  CHECK(kv({"kv", "llama3-8b", "--kv-format", "int4-g64"}).at("kv_cache_bytes_per_token") == 32 * 2048 * 4.5 / 8);
  // fp8 with an fp32 scale per token and head of d_h = 128: 8.25 bits
  CHECK(kv({"kv", "llama3-8b", "--kv-format", "fp8-token"}).at("kv_cache_bytes_per_token") == 32 * 2048 * 8.25 / 8);
  // A number of bits, no scale.
  CHECK(kv({"kv", "llama3-8b", "--kv-format", "6"}).at("kv_cache_bytes_per_token") == 32 * 2048 * 6 / 8);
  // MLA's latent is one vector of d_c + d_R = 576: DeepSeek-V3's 61 layers x (576 + 4) B.
  CHECK(kv({"kv", "deepseek-v3", "--kv-format", "fp8-token"}).at("kv_cache_bytes_per_token") == 61 * 580);
  // Falcon-H1: the attention cache at 5 bits (int4-g32), the state as at bf16.
  const nlohmann::json h = kv({"kv", "falcon-h1-7b", "--kv-format", "int4-g32"});
  const nlohmann::json b = kv({"kv", "falcon-h1-7b"});
  CHECK(h.at("kv_cache_bytes_per_token").get<double>() == b.at("kv_cache_bytes_per_token").get<double>() * 5.0 / 16.0);
  CHECK(h.at("state_bytes_per_sequence") == b.at("state_bytes_per_sequence"));
  const nlohmann::json in = json_of({"kv", "llama3-8b", "--kv-format", "int4-g64"}).at("inputs").at("workload");
  CHECK(in.at("kv_format") == "int4-g64");
  CHECK(in.at("kv_bits") == 4.5);
  CHECK(in.at("kv_dtype") == "bf16");
  // decode reads the cache at its format.
  const double step =
      json_of({"decode", "llama3-8b", "--gpu", "h100-sxm", "--kv-format", "int4-g64", "--context", "4096"})
          .at("results")
          .at("decode")
          .at("kv_bytes_per_step")
          .get<double>();
  CHECK(step == 4096.0 * 32 * 2048 * 4.5 / 8);
}
