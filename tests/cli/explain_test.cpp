// --explain: every derived number carries its formula, the values substituted, and a source; and
// the substituted arithmetic evaluates to the value printed beside it.
#include "cli/app.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cctype>
#include <cmath>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>

namespace {

nlohmann::json run_json(std::vector<std::string> args) {
  args.insert(args.end(), {"--format", "json", "--explain", "-q"});
  std::istringstream in;
  std::ostringstream out;
  std::ostringstream err;
  INFO(err.str());
  REQUIRE(roofline::cli::run_cli(args, in, out, err, {}) == 0);
  return nlohmann::json::parse(out.str());
}

// Test-only evaluator of the substituted arithmetic: numbers (1,234.5, 6.2e+12), + - x * /,
// parentheses, a ^ b (binding tighter than x and /), max, min, floor, ceil, sqrt, and one <= comparison
// (1 or 0).
class Arithmetic {
 public:
  explicit Arithmetic(std::string s) : s_(std::move(s)) {}
  double evaluate() {
    double v = sum();
    skip();
    if (s_.compare(i_, 2, "<=") == 0) {
      i_ += 2;
      v = v <= sum() ? 1.0 : 0.0;
    } else if (s_.compare(i_, 1, "<") == 0) {
      i_ += 1;
      v = v < sum() ? 1.0 : 0.0;
    }
    skip();
    if (i_ != s_.size()) throw std::runtime_error("unexpected text at " + s_.substr(i_));
    return v;
  }

 private:
  void skip() {
    while (i_ < s_.size() && s_[i_] == ' ') ++i_;
  }
  bool eat(char c) {
    skip();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  double sum() {
    double v = product();
    for (;;) {
      if (eat('+')) {
        v += product();
      } else if (eat('-')) {
        v -= product();
      } else {
        return v;
      }
    }
  }
  double product() {
    double v = power();
    for (;;) {
      if (eat('x') || eat('*')) {
        v *= power();
      } else if (eat('/')) {
        v /= power();
      } else {
        return v;
      }
    }
  }
  double power() {
    const double base = factor();
    return eat('^') ? std::pow(base, power()) : base;
  }
  double factor() {
    skip();
    if (eat('-')) return -factor();
    if (eat('(')) {
      const double v = sum();
      if (!eat(')')) throw std::runtime_error("missing ) in " + s_);
      return v;
    }
    for (const char* f : {"max", "min", "floor", "ceil", "sqrt"}) {
      const std::string name(f);
      if (s_.compare(i_, name.size(), name) == 0) {
        i_ += name.size();
        if (!eat('(')) throw std::runtime_error("missing ( after " + name);
        const double a = sum();
        double b = 0.0;
        if (name == "max" || name == "min") {
          if (!eat(',')) throw std::runtime_error("missing , in " + name);
          b = sum();
        }
        if (!eat(')')) throw std::runtime_error("missing ) after " + name);
        if (name == "max") return std::max(a, b);
        if (name == "min") return std::min(a, b);
        if (name == "sqrt") return std::sqrt(a);
        return name == "floor" ? std::floor(a) : std::ceil(a);
      }
    }
    std::string digits;
    while (i_ < s_.size() &&
           (std::isdigit(static_cast<unsigned char>(s_[i_])) != 0 || s_[i_] == ',' || s_[i_] == '.' || s_[i_] == 'e' ||
            ((s_[i_] == '+' || s_[i_] == '-') && !digits.empty() && digits.back() == 'e'))) {
      // A comma followed by a space separates max/min arguments; inside a number it groups digits.
      if (s_[i_] == ',' && (i_ + 1 >= s_.size() || s_[i_ + 1] == ' ')) break;
      if (s_[i_] != ',') digits += s_[i_];
      ++i_;
    }
    if (digits.empty()) throw std::runtime_error("expected a number at " + s_.substr(i_));
    return std::stod(digits);
  }
  std::string s_;
  std::size_t i_ = 0;
};

// Every substitution of one output evaluates to its value: numbers to 1e-5 relative (operands
// carry 6 significant digits), booleans exactly; a null value has no substitution.
void check_substitutions(const nlohmann::json& j, const std::string& what) {
  std::size_t checked = 0;
  for (const auto& [id, e] : j.at("explain").items()) {
    const std::string sub = e.at("substituted").get<std::string>();
    const auto dot = id.find('.');
    const nlohmann::json& v = j.at("results").at(id.substr(0, dot)).at(id.substr(dot + 1));
    INFO(what << ": " << id << " = " << e.at("formula").get<std::string>() << " = " << sub << " -> " << v.dump());
    if (v.is_null()) {
      CHECK(sub.empty());
      continue;
    }
    if (sub.empty() || v.is_string()) continue;
    const double got = Arithmetic(sub).evaluate();
    if (v.is_boolean()) {
      CHECK((got != 0.0) == v.get<bool>());
    } else {
      const double want = v.get<double>();
      CHECK(std::fabs(got - want) <= 1e-5 * std::max(std::fabs(want), 1e-300) + 1e-300);
    }
    ++checked;
  }
  CHECK(checked >= 3);
}

const std::vector<std::vector<std::string>> kCommands = {
    {"report", "llama3-8b", "--gpu", "h100-sxm"},
    {"report", "deepseek-v3", "--gpu", "mi355x", "--gpus", "8"},
    {"report", "gemma2-9b", "--gpu", "h200-sxm", "--context", "8192", "--batch", "4"},
    {"report", "mixtral-8x7b", "--gpu", "a100-80gb-sxm", "--weight-bits", "q4_k", "--bw-efficiency", "0.8"},
    {"report", "llama2-7b", "--gpu", "v100-sxm2-32gb"},
    {"memory", "llama2-70b", "--gpu", "h100-sxm", "--reserve", "10%"},
    {"serve", "mixtral-8x7b", "--gpu", "h200-sxm", "--prompt", "4096", "--output", "8192"},
    {"serve", "gemma2-9b", "--gpu", "l4", "--prompt", "1000", "--output", "20000"},
    {"decode", "llama3-70b", "--gpu", "h100-sxm", "--batch", "64", "--context", "4096"},
    {"prefill", "qwen2.5-72b", "--gpu", "mi300x", "--batch", "8"},
    {"prefill", "llama3-8b", "--gpu", "h100-sxm", "--cp", "16", "--prompt", "131072"},
    {"prefill", "gemma2-9b", "--gpu", "h100-sxm", "--cp", "8", "--prompt", "65536", "--batch", "2"},
    {"flops", "gpt2", "--flops-basis", "non-embedding"},
    {"train", "gpt2", "--gpu", "a100-80gb-sxm", "--gpus", "64", "--tokens", "1T", "--measured-tokens-per-s", "1e5",
     "--recompute", "full"},
    {"kv", "deepseek-v3", "--context", "32Ki", "--batch", "16"},
    {"decode", "llama3-70b", "--gpu", "h100-sxm", "--tp", "4", "--pp", "2", "--micro-batches", "2", "--batch", "16"},
    {"serve", "llama3-8b", "--gpu", "h100-sxm", "--tpot", "20ms", "--draft", "llama3-8b", "--concurrency", "64"},
    {"decode", "mixtral-8x7b", "--gpu", "h100-sxm", "--tp", "2", "--ep", "4", "--gpus", "8", "--batch", "32",
     "--context", "4k", "--link-latency", "5us"},
    {"serve", "llama3-8b", "--gpu", "h100-sxm", "--prompt", "1024", "--output", "256", "--tpot", "20ms",
     "--shared-prefix", "512", "--ttft", "1s"},
    {"plan", "llama3-70b", "--gpu", "h100-sxm,h200-sxm,mi300x", "--users", "1000", "--tokens-per-s", "20", "--price",
     "2.5"},
    {"decode", "llama3-70b", "--gpu", "h100-sxm", "--gpus", "16", "--tp", "4", "--pp", "2", "--batch", "16",
     "--context", "8k", "--link-latency", "5us"},
    {"memory", "deepseek-v3", "--gpu", "h200-sxm", "--tp", "8", "--ep", "1", "--context", "32k"},
    {"serve", "llama3-70b", "--gpu", "h100-sxm", "--tp", "2", "--prompt", "4k", "--output", "512", "--batch", "8"},
    {"serve", "llama3-70b", "--gpu", "h100-sxm", "--tp", "4", "--pp", "2", "--tpot", "60ms", "--prompt", "2k",
     "--output", "256"},
    {"decode", "llama3-70b", "--gpu", "h100-sxm", "--gpus", "2", "--batch", "8", "--context", "4k", "--draft",
     "llama3-8b", "--acceptance", "0.8"},
    {"serve", "deepseek-v3", "--gpu", "h200-sxm", "--gpus", "8", "--draft", "mtp", "--acceptance", "0.9"},
    // The numeric range (issue 11): saturated counts, 1e30 machines, a 10^5-device, 10 M-token run.
    {"memory", "llama3-8b", "--gpu", "h100-sxm", "--gpu-memory", "1e300B"},
    {"report", "llama3-8b", "--gpu", "h100-sxm", "--gpus", "1e5", "--batch", "1e6", "--context", "10M"},
    {"decode", "llama3-8b", "--gpu", "h100-sxm", "--gpu-peak", "1e30FLOP/s", "--gpu-bandwidth", "1e30B/s"},
    {"report", "llama3-8b", "--gpu", "h100-sxm", "--gpu-memory", "1B", "--gpu-bandwidth", "1B/s", "--gpu-peak",
     "1FLOP/s"},
    {"serve", "gemma2-9b", "--gpu", "h100-sxm", "--gpu-memory", "1e30B", "--prompt", "10M", "--output", "10M"},
    {"plan", "mixtral-8x7b", "--gpu", "h100-sxm", "--users", "1", "--tokens-per-s", "1", "--gpu-memory", "1e30B"},
    {"decode", "llama3-70b", "--gpu", "h100-sxm", "--tp", "2", "--gpu-memory", "1e300B", "--batch", "8"},
    {"serve", "llama3-8b", "--gpu", "h100-sxm", "--gpu-memory", "1e300B", "--output", "1e18"},
    {"params", "opt-350m"},
    {"params", "gpt-oss-120b"},  // checkpoint_bytes: MXFP4 experts + bf16 rest
    // Issue 10: hybrid caches (KV + recurrent state), vision towers, chunked attention.
    {"kv", "qwen3-next-80b-a3b", "--context", "128k", "--batch", "4"},
    // N3: a layout's cache per device, the state alone (pure Mamba) and KV + state (a hybrid past h_kv).
    {"decode", "mamba-2.8b", "--gpu", "h100-sxm", "--tp", "2", "--pp", "2", "--batch", "4"},
    {"memory", "jamba-v0.1", "--gpu", "h100-sxm", "--tp", "16", "--context", "8k"},
    {"decode", "jamba-v0.1", "--gpu", "h100-sxm", "--gpus", "2", "--batch", "8", "--context", "256k"},
    {"memory", "falcon-h1-7b", "--gpu", "h100-sxm", "--context", "32k", "--batch", "16"},
    {"serve", "nemotron-h-8b", "--gpu", "h100-sxm", "--prompt", "2k", "--output", "256"},
    // Issue 25: the simulated server, with targets (the saturation search) and past its capacity.
    {"serve", "llama3-8b", "--gpu", "h100-sxm", "--rate", "5", "--ttft", "500ms", "--tpot", "50ms", "--shared-prefix",
     "100", "--requests", "300"},
    {"serve", "llama3-8b", "--gpu", "h100-sxm", "--rate", "40", "--requests", "300"},
    {"params", "llama3.2-11b-vision"},
    {"decode", "llama4-scout", "--gpu", "h200-sxm", "--gpus", "2", "--batch", "4", "--context", "32k"},
    {"gemm", "1", "4096", "4096", "--gpu", "mi300x"},
    {"layer", "llama3-8b", "--gpu", "h100-sxm", "--phase", "decode", "--batch", "1", "--context", "8k"},
    {"layer", "deepseek-v3", "--gpu", "h200-sxm", "--phase", "prefill", "--prompt", "4096", "--fused"},
    {"layer", "gemma2-9b", "--gpu", "l4", "--gpus", "2", "--mfu", "0.5", "--batch", "8", "--context", "8192"},
    {"layer", "mixtral-8x7b", "--gpu", "a100-80gb-sxm", "--phase", "prefill", "--prompt", "1024", "--lm-head", "all",
     "--attention", "full"},
    // N2, N15: a hybrid's kinds (Mamba-2, MLP-only, attention-only), mllama's cross-attention layers, no fp32 peak.
    {"layer", "nemotron-h-8b", "--gpu", "h100-sxm", "--phase", "prefill", "--prompt", "2048"},
    {"layer", "llama3.2-11b-vision", "--gpu", "h100-sxm", "--batch", "4", "--context", "1"},
    {"layer", "starcoder2-15b", "--gpu", "gaudi2", "--phase", "prefill", "--dtype", "fp32"},
    {"train", "llama3-70b", "--gpu",       "h100-sxm",  "--gpus",   "64",  "--tp",  "8",   "--zero",  "1",
     "--seq", "8192",       "--recompute", "selective", "--tokens", "15T", "--mfu", "0.4", "--price", "2.5"},
    {"train", "mixtral-8x7b", "--gpu", "h200-sxm", "--gpus", "32", "--tp", "2", "--pp", "2", "--ep", "8", "--sp",
     "--grad-accum", "16", "--zero", "3"},
    // Issue 24 part 4: the compute-optimal size under each fit, and the best layout's report.
    {"train", "--compute-budget", "5.76e23", "--gpu", "h100-sxm", "--gpus", "1024", "--zero", "3"},
    {"train", "--compute-budget", "5.76e23", "--scaling-fit", "besiroglu24", "--gpu", "h100-sxm", "--gpus", "64"},
    {"train", "--compute-budget", "5.88e23", "--scaling-fit", "20-tokens", "--gpu", "h100-sxm", "--gpus", "64"},
    {"train", "llama3-70b", "--gpu", "h100-sxm", "--gpus", "64", "--seq", "8192", "--global-batch", "64",
     "--best-layout"},
    {"train",
     "llama3-70b",
     "--gpu",
     "h100-sxm",
     "--gpus",
     "64",
     "--tp",
     "8",
     "--pp",
     "4",
     "--pp-chunks",
     "2",
     "--grad-accum",
     "8",
     "--zero",
     "3",
     "--seq",
     "8192",
     "--recompute",
     "full",
     "--recompute-every",
     "2",
     "--dropout",
     "--hfu",
     "0.5",
     "--model-flops",
     "palm",
     "--tokens",
     "2T"},
    {"train",
     "llama3-8b",
     "--gpu",
     "h100-sxm",
     "--gpus",
     "16",
     "--pp",
     "2",
     "--grad-accum",
     "4",
     "--model-flops",
     "megatron",
     "--measured-step-time",
     "2.5s",
     "--tokens",
     "1T",
     "--price",
     "2",
     "--optimizer",
     "bf16-adam",
     "--no-flash-attention"},
    {"train", "llama3-8b", "--gpu", "a100-80gb-sxm", "--gpus", "8", "--lora", "16", "--lora-targets", "attention",
     "--zero", "3", "--tokens", "1B", "--measured-tokens-per-s", "20k"},
    {"train", "llama3-70b", "--gpu", "h100-sxm", "--gpus", "64", "--fsdp", "hybrid", "--seq", "4096"},
    {"train", "mixtral-8x7b", "--gpu", "h100-sxm", "--gpus", "4", "--tp", "2", "--qlora", "--seq", "4096",
     "--recompute", "full", "--tokens", "1B", "--price", "3"},
};

}  // namespace

TEST_CASE("every derived result has an explanation", "[explain]") {
  // Inputs echoed as results (not derived) are the only rows without a formula.
  const std::set<std::string> inputs = {
      "capacity.capacity_per_device_bytes", "hardware.memory_bandwidth_bytes_per_s", "hardware.memory_capacity_bytes",
      "hardware.peak_flop_per_s", "hardware.devices", "params.published_params", "layout.tensor_parallel",
      "layout.pipeline_parallel", "layout.pipeline_chunks", "layout.fine_tuning", "steady_state.concurrency_limit",
      "plan_best.gpu", "plan_best.layout", "deployment.capacity_bytes_per_device", "deployment.expert_parallel",
      "deployment.micro_batches", "steady_state.kv_block_tokens", "steady_state.concurrency_sequences",
      "speculative.draft", "speculative.acceptance_fraction", "speculative.draft_len_tokens", "layout.shard_group",
      "layout.data_parallel", "layout.expert_parallel", "layout.zero_stage", "layout.optimizer",
      "train_memory.reserve_bytes", "train_memory.capacity_bytes", "fit.basis", "steady_state_layout.concurrency_limit",
      "steady_state_layout.concurrency_sequences",
      // Inputs and the search's own counts (not formulas): --scaling-fit, the
      // flags --best-layout held, how many points it tried.
      "layout.context_parallel", "context_parallel.cp_ranks", "context_parallel.cp_capacity_per_device_bytes",
      "compute_optimal.scaling_fit", "layout_search.held", "layout_search.global_batch_sequences",
      "layout_search.layouts_enumerated", "layout_search.memory_probes", "layout_search.layouts_fitting",
      "layout_search.recipes_timed"};
  for (const auto& args : kCommands) {
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

TEST_CASE("every --explain substitution evaluates to its value", "[explain]") {
  for (const auto& args : kCommands) {
    std::string what;
    for (const std::string& a : args) what += a + " ";
    check_substitutions(run_json(args), what);
  }
}

TEST_CASE("the substitution evaluator is itself right", "[explain]") {
  CHECK(Arithmetic("2 x 3 + 4").evaluate() == 10.0);
  CHECK(Arithmetic("1,234 + 6.5e+3").evaluate() == 7734.0);
  CHECK(Arithmetic("max(0, floor((10 - 25) / 3))").evaluate() == 0.0);
  CHECK(Arithmetic("ceil(7 / 2) <= 4").evaluate() == 1.0);
  CHECK(Arithmetic("min(2, 3) x (1 - 0.5)").evaluate() == 1.0);
  CHECK_THROWS(Arithmetic("2 GB").evaluate());
}

TEST_CASE("a sweep's JSON explains every point, and each point's substitutions evaluate to its values",
          "[explain][sweep]") {
  const std::vector<std::string> args = {"serve",    "llama3-70b", "--gpu",    "h100-sxm", "--tp",    "2",
                                         "--prompt", "4k",         "--output", "512",      "--batch", "1,8,32"};
  const nlohmann::json j = run_json(args);
  REQUIRE(j.at("results").is_array());
  REQUIRE(j.at("results").size() == 3);
  for (const auto& point : j.at("results")) {
    const nlohmann::json one = {{"results", point.at("results")}, {"explain", point.at("explain")}};
    check_substitutions(one, "serve sweep at " + point.at("point").dump());
  }
}

TEST_CASE("every --explain substitution evaluates to its value on generated models", "[explain][property]") {
  // A seeded generator of architectures given as model flags on a preset (dense MHA, GQA, MoE on a
  // MoE preset, sliding windows), each through the commands that explain the most.
  std::mt19937_64 rng(20261130);
  const auto pick = [&rng](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  for (int i = 0; i < 24; ++i) {
    const int kind = i % 4;  // 0 dense, 1 GQA, 2 MoE, 3 windowed
    const std::int64_t head_dim = std::int64_t{16} << pick(0, 3);
    const std::int64_t kv_heads = std::int64_t{1} << pick(0, 3);
    const std::int64_t heads = kind == 0 ? kv_heads : kv_heads * (std::int64_t{2} << pick(0, 2));
    std::vector<std::string> model = {kind == 2 ? "mixtral-8x7b" : "llama3-8b",
                                      "--layers",
                                      std::to_string(pick(1, 40)),
                                      "--hidden",
                                      std::to_string(64 * pick(1, 64)),
                                      "--heads",
                                      std::to_string(heads),
                                      "--kv-heads",
                                      std::to_string(kv_heads),
                                      "--head-dim",
                                      std::to_string(head_dim),
                                      "--vocab",
                                      std::to_string(pick(32, 150'000))};
    if (kind == 2) {
      const std::int64_t experts = std::int64_t{4} << pick(0, 3);
      model.insert(model.end(), {"--experts", std::to_string(experts), "--top-k", std::to_string(pick(1, 4)),
                                 "--expert-ffn", std::to_string(32 * pick(1, 256))});
    } else {
      model.insert(model.end(), {"--ffn", std::to_string(32 * pick(1, 512))});
    }
    if (kind == 3) {
      model.insert(model.end(),
                   {"--window", std::to_string(128 << pick(0, 4)), "--global-every", std::to_string(pick(1, 6))});
    }
    const std::string batch = std::to_string(pick(1, 256));
    const std::string context = std::to_string(pick(0, 65'536));
    const std::vector<std::vector<std::string>> commands = {
        {"report", "--gpu", "h100-sxm", "--batch", batch, "--context", context},
        {"memory", "--gpu", "mi300x", "--batch", batch, "--context", context},
        {"decode", "--gpu", "h200-sxm", "--gpus", "2", "--batch", batch, "--context", context},
        {"serve", "--gpu", "h100-sxm", "--prompt", context == "0" ? "1" : context, "--output", "512"},
        {"kv", "--batch", batch, "--context", context},
        {"flops", "--context", context},
    };
    for (const auto& c : commands) {
      std::vector<std::string> args = {c.front()};
      args.insert(args.end(), model.begin(), model.end());
      args.insert(args.end(), c.begin() + 1, c.end());
      std::string what;
      for (const std::string& a : args) what += a + " ";
      check_substitutions(run_json(args), what);
    }
  }
}

// Found by the property suite (NEW-1, NEW-2 in its first run): a value that is n/a kept a
// substitution that does not evaluate, a division by a zero KV share or "x n/a x" for a missing peak.
// An n/a value has its formula and no substitution, as capacity's null concurrency always had.
TEST_CASE("a value that is n/a has its formula and no substitution", "[explain][property-finding]") {
  const nlohmann::json memory = run_json({"memory", "gpt-j-6b", "--gpu", "rtx-4080", "--context", "0", "--tp", "1"});
  CHECK(memory.at("results").at("deployment").at("max_sequences_per_replica").is_null());
  const nlohmann::json& seq = memory.at("explain").at("deployment.max_sequences_per_replica");
  CHECK(seq.at("formula") == "max(0, floor((C - M_w,dev - R) / M_KV,dev))");
  CHECK(seq.at("substituted") == "");
  const nlohmann::json train = run_json({"train", "palm-8b", "--gpu", "m3-max"});
  CHECK(train.at("results").at("train_compute").at("step_time_s").is_null());
  CHECK(train.at("explain").at("train_compute.step_time_s").at("substituted") == "");
  // A value that is there keeps its substitution.
  CHECK_FALSE(memory.at("explain").at("capacity.capacity_bytes").at("substituted").get<std::string>().empty());
}
