// The numeric range (issue 11): from a 1,000-parameter toy to a 100 T-parameter model, context 0 to
// 10 M tokens, batch to 10^6, 10^5 devices, capacities and rates from 1 to 10^30. Every command at
// every end either answers with finite, correctly signed numbers (no nan/inf, no wrapped 64-bit
// integer) or refuses in one line per error with exit 1 or 2 and nothing on stdout.
#include "cli/app.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using Args = std::vector<std::string>;

struct Run {
  int code = 0;
  std::string out;
  std::string err;
};

Run run(const Args& args, const std::string& stdin_text = "") {
  std::istringstream in(stdin_text);
  std::ostringstream out;
  std::ostringstream err;
  Run r;
  r.code = roofline::cli::run_cli(args, in, out, err, {});
  r.out = out.str();
  r.err = err.str();
  return r;
}

std::string joined(const Args& args) {
  std::string s;
  for (const std::string& a : args) s += (s.empty() ? "" : " ") + a;
  return s;
}

Args operator+(Args a, const Args& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// A 1,000-parameter toy (984: V d twice, 4 d^2 attention, 3 d d_ff MLP, 3 norms of d) and a
// 100 T-parameter dense model, both as flags on a preset; a 100 T MoE on a MoE preset; a toy given
// as a Hugging Face config on stdin.
const Args kToy = {"llama3-8b", "--layers",   "1", "--hidden", "8", "--heads", "1", "--kv-heads",
                   "1",         "--head-dim", "8", "--ffn",    "8", "--vocab", "32"};
const Args k100T = {"llama3-8b", "--layers",   "1664", "--hidden", "65536",  "--heads", "512",   "--kv-heads",
                    "8",         "--head-dim", "128",  "--ffn",    "262144", "--vocab", "262144"};
const Args k100TMoe = {"mixtral-8x7b", "--layers",   "512", "--hidden",     "16384", "--heads",
                       "128",          "--kv-heads", "8",   "--head-dim",   "128",   "--experts",
                       "512",          "--top-k",    "8",   "--expert-ffn", "8192"};
const Args kStdin = {"-"};
const std::string kToyConfig =
    R"({"model_type":"llama","hidden_size":8,"intermediate_size":8,"num_hidden_layers":1,)"
    R"("num_attention_heads":2,"num_key_value_heads":1,"vocab_size":32,"max_position_embeddings":64,)"
    R"("tie_word_embeddings":true})";

struct Model {
  const char* name;
  Args args;
  std::string stdin_text;
};

const std::vector<Model> kModels = {
    {"toy", kToy, ""},
    {"toy on stdin", kStdin, kToyConfig},
    {"100T dense", k100T, ""},
    {"100T MoE", k100TMoe, ""},
    {"deepseek-v3 (MLA)", {"deepseek-v3"}, ""},
    {"gemma2-9b (windowed)", {"gemma2-9b"}, ""},
    {"jamba (hybrid)", {"jamba-v0.1"}, ""},
};

// Wrapped 64-bit integers as any renderer would print them, grouped or not.
const std::regex kWrapped(R"(18,?446,?744,?07|9,?223,?372,?036,?854,?775,?80[0-9])");
// AMD's "Infinity Fabric", an interconnect's name in the presets, is not a number.
const std::regex kNonFinite(R"(\b(nan|inf|infinity)\b(?! fabric))", std::regex::icase);

// JSON keys of counts that cannot be negative.
bool count_key(const std::string& k) {
  for (const char* suffix : {"_tokens", "_sequences", "_params", "devices", "_count", "batch", "groups", "steps"}) {
    const std::string s(suffix);
    if (k.size() >= s.size() && k.compare(k.size() - s.size(), s.size(), s) == 0) return true;
  }
  return false;
}

void check_json_numbers(const nlohmann::json& j, const std::string& key) {
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) check_json_numbers(v, k);
  } else if (j.is_array()) {
    for (const auto& v : j) check_json_numbers(v, key);
  } else if (j.is_number_float()) {
    INFO(key << " = " << j.dump());
    CHECK(std::isfinite(j.get<double>()));
  } else if (j.is_number_unsigned()) {
    INFO(key << " = " << j.dump());
    CHECK(j.get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX));
  } else if (j.is_number_integer() && count_key(key)) {
    INFO(key << " = " << j.dump());
    CHECK(j.get<std::int64_t>() >= 0);
  }
}

enum class Expect { answers, refuses, either };

// Runs one command line in one format and checks the output contract. Returns the exit code.
int check(const Model& m, const Args& command, const Args& rest, const std::string& format,
          Expect expect = Expect::answers) {
  Args args = Args{command} + m.args + rest;
  if (!format.empty()) args = args + Args{"--format", format};
  const Run r = run(args, m.stdin_text);
  INFO(m.name << ": roofline " << joined(args) << "\nexit " << r.code << "\nstderr: " << r.err
              << "\nstdout: " << r.out.substr(0, 2000));
  if (expect == Expect::answers) CHECK(r.code == 0);
  if (expect == Expect::refuses) CHECK(r.code != 0);
  if (r.code == 0) {
    CHECK_FALSE(std::regex_search(r.out, kNonFinite));
    CHECK_FALSE(std::regex_search(r.out, kWrapped));
    CHECK_FALSE(r.out.empty());
    if (format == "json") {
      nlohmann::json j;
      REQUIRE_NOTHROW(j = nlohmann::json::parse(r.out));
      check_json_numbers(j, "");
    }
  } else {
    CHECK((r.code == 1 || r.code == 2));
    CHECK(r.out.empty());
    // One line per error, each a roofline error, none of them blank or a continuation.
    REQUIRE_FALSE(r.err.empty());
    CHECK(r.err.back() == '\n');
    std::istringstream lines(r.err);
    std::string line;
    while (std::getline(lines, line)) {
      CHECK(line.rfind("roofline: error: ", 0) == 0);
      CHECK(line.size() < 400);
    }
  }
  return r.code;
}

const std::vector<std::string> kFormats = {"table", "json", "csv"};

// The capacities and rates at both ends and crossed.
const std::vector<Args> kMachines = {
    {"--gpu-memory", "1e30B", "--gpu-bandwidth", "1e30B/s", "--gpu-peak", "1e30FLOP/s"},
    {"--gpu-memory", "1B", "--gpu-bandwidth", "1B/s", "--gpu-peak", "1FLOP/s"},
    {"--gpu-bandwidth", "1e30B/s", "--gpu-peak", "1FLOP/s"},
    {"--gpu-bandwidth", "1B/s", "--gpu-peak", "1e30FLOP/s"},
};

// The workload ends, per command (each command takes only its own flags).
const std::vector<Args> kDecodeLoads = {
    {"--batch", "1e6", "--context", "10M", "--gpus", "1e5"},
    {"--batch", "1", "--context", "0"},
    {"--batch", "1e6", "--context", "0", "--gpus", "1"},
};

}  // namespace

TEST_CASE("the toy and the 100 T models are what they say", "[range]") {
  const Run toy = run(Args{"params"} + kToy + Args{"--format", "json"});
  REQUIRE(toy.code == 0);
  CHECK(nlohmann::json::parse(toy.out).at("results").at("params").at("total_params") == 984);
  for (const Args& big : {k100T, k100TMoe}) {
    const Run r = run(Args{"params"} + big + Args{"--format", "json"});
    REQUIRE(r.code == 0);
    const auto total = nlohmann::json::parse(r.out).at("results").at("params").at("total_params").get<std::int64_t>();
    CHECK(total >= 100'000'000'000'000);
    CHECK(total < 250'000'000'000'000);
  }
}

TEST_CASE("model-only commands over the range answer in every format", "[range]") {
  for (const Model& m : kModels) {
    for (const std::string& f : kFormats) {
      check(m, {"params"}, {}, f);
      check(m, {"flops"}, {"--context", "10M"}, f);
      check(m, {"flops"}, {"--context", "0"}, f);
      check(m, {"kv"}, {"--batch", "1e6", "--context", "10M"}, f);
      check(m, {"kv"}, {"--batch", "1", "--context", "0"}, f);
    }
  }
}

TEST_CASE("report, memory and decode over the range answer in every format", "[range]") {
  for (const Model& m : kModels) {
    for (const Args& machine : kMachines) {
      for (const Args& load : kDecodeLoads) {
        for (const std::string& f : kFormats) {
          for (const char* cmd : {"report", "memory", "decode"}) {
            const Args rest = Args{"--gpu", "h100-sxm"} + machine + load;
            // report has no --tp and no device layout; the others take the same flags.
            check(m, {cmd}, rest, f);
          }
        }
      }
    }
  }
}

TEST_CASE("prefill, serve and layer over the range answer in every format", "[range]") {
  for (const Model& m : kModels) {
    for (const Args& machine : kMachines) {
      for (const std::string& f : kFormats) {
        const Args gpu = Args{"--gpu", "h100-sxm"} + machine;
        check(m, {"prefill"}, gpu + Args{"--prompt", "10M", "--batch", "1e6", "--gpus", "1e5"}, f);
        check(m, {"prefill"}, gpu + Args{"--prompt", "1", "--batch", "1"}, f);
        check(m, {"serve"}, gpu + Args{"--prompt", "10M", "--output", "10M", "--batch", "1e6", "--gpus", "1e5"}, f);
        check(m, {"serve"}, gpu + Args{"--prompt", "1", "--output", "1", "--batch", "1"}, f);
        check(m, {"serve"}, gpu + Args{"--prompt", "10M", "--output", "1", "--concurrency", "1e6"}, f);
        Args layer_gpu = Args{"--gpu", "h100-sxm"};
        for (std::size_t i = 0; i < machine.size(); i += 2) {
          if (machine[i] != "--gpu-memory") layer_gpu = layer_gpu + Args{machine[i], machine[i + 1]};
        }
        check(m, {"layer"}, layer_gpu + Args{"--phase", "decode", "--batch", "1e6", "--context", "10M"}, f);
        check(m, {"layer"}, layer_gpu + Args{"--phase", "prefill", "--prompt", "10M", "--gpus", "1e5"}, f);
        check(m, {"layer"}, layer_gpu + Args{"--phase", "decode", "--batch", "1", "--context", "0"}, f);
      }
    }
  }
}

TEST_CASE("train and plan over the range answer in every format", "[range]") {
  for (const Model& m : kModels) {
    for (const Args& machine : kMachines) {
      for (const std::string& f : kFormats) {
        const Args gpu = Args{"--gpu", "h100-sxm"} + machine;
        check(m, {"train"}, gpu + Args{"--gpus", "1e5", "--seq", "10M", "--tokens", "4e18", "--price", "1e30"}, f);
        check(m, {"train"}, gpu + Args{"--gpus", "1", "--seq", "1", "--tokens", "1", "--price", "1"}, f);
        check(m, {"plan"}, gpu + Args{"--users", "4e18", "--tokens-per-s", "1e30", "--price", "1e30"}, f);
        check(m, {"plan"}, gpu + Args{"--users", "1", "--tokens-per-s", "1", "--price", "1"}, f);
        check(m, {"plan"}, gpu + Args{"--users", "4e18", "--tokens-per-s", "1", "--price", "1"}, f, Expect::either);
      }
    }
  }
}

TEST_CASE("gemm, plot and compare over the range", "[range]") {
  const Model none{"no model", {}, ""};
  for (const std::string& f : kFormats) {
    for (const char* gpu : {"h100-sxm", "b200"}) {
      check(none, {"gemm", "1", "1", "1"}, {"--gpu", gpu}, f);
      check(none, {"gemm", "1e6", "1e6", "1e6"}, {"--gpu", gpu}, f);
      check(none, {"gemm", "4e18", "4e18", "4e18"}, {"--gpu", gpu}, f);
    }
    check(none, {"gemm", "4e18", "1", "4e18"}, {}, f);
  }
  for (const Model& m : kModels) {
    for (const Args& machine : kMachines) {
      for (const char* f : {"", "svg"}) {
        check(m, {"plot"}, Args{"--gpu", "h100-sxm"} + machine + Args{"--batch", "1e6", "--context", "10M"}, f);
        check(m, {"plot"}, Args{"--gpu", "h100-sxm"} + machine + Args{"--batch", "1", "--context", "0"}, f);
      }
    }
    if (!m.stdin_text.empty()) continue;  // compare takes models by name
    for (const std::string& f : kFormats) {
      for (const char* q : {"report", "memory", "decode", "serve"}) {
        const Model one{m.name, {}, ""};
        const Args load = std::string(q) == "serve" ? Args{"--prompt", "10M", "--output", "10M"}
                                                    : Args{"--batch", "1e6", "--context", "10M"};
        check(one, {"compare", q}, m.args + Args{"--gpu", "h100-sxm,mi300x", "--gpu-memory", "1e30B"} + load, f);
        check(one, {"compare", q}, m.args + Args{"--gpu", "h100-sxm,mi300x", "--gpu-memory", "1B"}, f);
      }
    }
  }
}

namespace {

// The first value under `key` anywhere in a JSON document.
const nlohmann::json* find_key(const nlohmann::json& j, const std::string& key) {
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) {
      if (k == key) return &v;
      if (const nlohmann::json* f = find_key(v, key)) return f;
    }
  } else if (j.is_array()) {
    for (const auto& v : j) {
      if (const nlohmann::json* f = find_key(v, key)) return f;
    }
  }
  return nullptr;
}

nlohmann::json json_of(const Args& args) {
  const Run r = run(args + Args{"--format", "json", "-q"});
  INFO(joined(args) << "\n" << r.err);
  REQUIRE(r.code == 0);
  return nlohmann::json::parse(r.out);
}

}  // namespace

TEST_CASE("serve --output 1e18 answers at once, in closed form", "[R4][range]") {
  // The per-token loop ran 10^18 decode steps (killed after 30 s); ctest's timeout catches a return.
  const nlohmann::json j = json_of({"serve", "llama3-8b", "--gpu", "h100-sxm", "--output", "1e18"});
  const nlohmann::json* tpot = find_key(j, "tpot_floor_s");
  const nlohmann::json* e2e = find_key(j, "e2e_floor_s");
  REQUIRE(tpot != nullptr);
  REQUIRE(e2e != nullptr);
  // The mean step over 10^18 tokens whose cache grows to 10^18: finite, positive, and the
  // end-to-end time is at least the output times the mean step.
  CHECK(tpot->get<double>() > 0.0);
  CHECK(e2e->get<double>() >= 1e18 * tpot->get<double>() * 0.999);
  CHECK(std::isfinite(e2e->get<double>()));
}

TEST_CASE("concurrency past 2^63 saturates at 2^62 instead of wrapping", "[R5][range]") {
  constexpr std::int64_t kMax = std::int64_t{1} << 62;
  for (const Args& args : {Args{"memory", "llama3-8b", "--gpu", "h100-sxm", "--gpu-memory", "1e300B"},
                           Args{"report", "llama3-8b", "--gpu", "h100-sxm", "--gpus", "1e18"}}) {
    INFO(joined(args));
    const nlohmann::json j = json_of(args);
    const nlohmann::json* n = find_key(j, "max_concurrent_sequences");
    REQUIRE(n != nullptr);
    CHECK(n->get<std::int64_t>() == kMax);
    const Run table = run(args);
    CHECK(table.out.find("4,611,686,018,427,387,904 seq") != std::string::npos);
    CHECK_FALSE(std::regex_search(table.out, kWrapped));
  }
}

TEST_CASE("prefill's prompt x batch past 2^63 keeps the decode/prefill ratio positive", "[R6][range]") {
  // 4e12 x 4e12 overflowed int64: the ratio printed as -4.461e-05x.
  const nlohmann::json j =
      json_of({"prefill", "llama3-8b", "--gpu", "h100-sxm", "--prompt", "4e12", "--batch", "4e12"});
  const nlohmann::json* ratio = find_key(j, "decode_vs_prefill_cost_ratio");
  REQUIRE(ratio != nullptr);
  // t_decode(T = S) / (t_prefill / (S B)): the prefill of 1.6e25 tokens at a floor of ... per
  // token makes one decode step cost far more than one prefill token.
  CHECK(ratio->get<double>() > 1.0);
  const Run table = run({"prefill", "llama3-8b", "--gpu", "h100-sxm", "--prompt", "4e12", "--batch", "4e12", "-q"});
  CHECK(table.out.find("-4.4") == std::string::npos);
}

TEST_CASE("a rate past 2^63 prints as itself, not as a wrapped integer", "[R8][range]") {
  const Run r = run(
      {"decode", "llama3-8b", "--gpu", "h100-sxm", "--gpu-peak", "1e300FLOP/s", "--gpu-bandwidth", "1e300B/s", "-q"});
  REQUIRE(r.code == 0);
  CHECK(r.out.find("5.18e+289 tok/s") != std::string::npos);
  CHECK_FALSE(std::regex_search(r.out, kWrapped));
  const Run gpus = run({"report", "llama3-8b", "--gpu", "h100-sxm", "--gpus", "1e18", "-q"});
  REQUIRE(gpus.code == 0);
  CHECK_FALSE(std::regex_search(gpus.out, kWrapped));
}

TEST_CASE("plan with a 1e30 B device saturates the KV budget instead of wrapping it", "[range]") {
  // 2^62 sequences per replica x 2 replicas passed 2^63: kv_sequences printed -9223372036854775808.
  const nlohmann::json j = json_of({"plan", "mixtral-8x7b", "--gpu", "h100-sxm", "--users", "1", "--tokens-per-s", "1",
                                    "--gpu-memory", "1e30B", "--gpu-bandwidth", "1e30B/s", "--gpu-peak", "1e30FLOP/s"});
  std::size_t rows = 0;
  for (const auto& row : j.at("results").at("plan")) {
    if (row.at("kv_sequences").is_null()) continue;
    CHECK(row.at("kv_sequences").get<std::int64_t>() > 0);
    ++rows;
  }
  CHECK(rows >= 2);
}

TEST_CASE("plan refuses a fleet of more than 2^63 devices instead of wrapping the count", "[range]") {
  // One domain of 1,024 (--domain-size) lets 16-way tensor groups in: 3 users each.
  const Run r = run({"plan", "deepseek-v3", "--gpu", "h100-sxm", "--users", "4e18", "--tokens-per-s", "1", "--price",
                     "1", "--domain-size", "1024"});
  CHECK(r.code == 1);
  CHECK(r.out.empty());
  CHECK(r.err.rfind("roofline: error: plan: ", 0) == 0);
  CHECK(r.err.find("devices each is more than 2^63 devices") != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

TEST_CASE("link bandwidths from 1 B/s to 1e30 B/s on a parallel layout", "[range]") {
  // The link is a preset field (no flag): an accelerator file with the link at each end.
  const auto dir = std::filesystem::temp_directory_path() / ("roofline-range-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const Model model{"llama3-70b", {"llama3-70b"}, ""};
  for (const char* link : {"1 B/s", "1e30 B/s"}) {
    for (const char* memory : {"1 B", "1e30 B"}) {
      const auto path = dir / "gpu.json";
      {
        std::ofstream f(path);
        f << R"({"name":"range-gpu","display_name":"range","vendor":"test","memory_capacity":")" << memory
          << R"(","memory_bandwidth":"3.35 TB/s","peak":{"bf16":"989.4 TFLOP/s"},)"
          << R"("interconnect":{"name":"link","bandwidth_per_direction":")" << link
          << R"(","links":1,"latency":"1 us"},"source":"test"})";
      }
      for (const std::string& f : kFormats) {
        const Args gpu = {"--gpu", path.string()};
        check(model, {"decode"}, gpu + Args{"--tp", "8", "--pp", "2", "--batch", "1e6", "--context", "10M"}, f);
        check(model, {"memory"}, gpu + Args{"--tp", "8", "--context", "10M"}, f);
        check(model, {"serve"}, gpu + Args{"--tp", "4", "--prompt", "10M", "--output", "10M"}, f);
        check(model, {"train"},
              gpu + Args{"--gpus", "1e5", "--tp", "8", "--pp", "4", "--zero", "3", "--tokens", "4e18"}, f);
        check(model, {"plan"}, gpu + Args{"--users", "1e6", "--tokens-per-s", "30"}, f);
      }
    }
  }
  std::filesystem::remove_all(dir);
}
