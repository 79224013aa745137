// ScenarioSpec: filled by flags or by a JSON object with the same names, resolved with every
// default in one place, every input error collected and reported together.
#include "io/scenario_spec.hpp"

#include "roofline/analysis.hpp"
#include "roofline/errors.hpp"
#include "roofline/quant.hpp"
#include "roofline/training_memory.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sstream>

using namespace roofline;

namespace {

const io::PresetRegistry& registry() {
  static const io::PresetRegistry reg({});
  return reg;
}

constexpr unsigned kDecodeGroups = io::kModelOverrides | io::kGpu | io::kGpuMemory | io::kDevices | io::kBatch |
                                   io::kContext | io::kWeights | io::kKvDtype | io::kComputeDtype | io::kReserve |
                                   io::kMfu | io::kBwEfficiency | io::kFlopsBasis | io::kDecodeBytes;

io::Resolved resolve_json(const char* text, unsigned groups = kDecodeGroups) {
  io::ScenarioSpec spec;
  io::Diagnostics diag;
  io::fill_from_json(nlohmann::json::parse(text), groups, "decode", spec, diag);
  diag.check();
  std::istringstream in;
  return io::resolve(spec, registry(), in, true);
}

io::Resolved resolve_flags(const std::vector<std::pair<const char*, const char*>>& flags) {
  io::ScenarioSpec spec;
  spec.model = "llama3-8b";
  io::Diagnostics diag;
  for (const auto& [name, value] : flags) {
    for (const io::InputDef& d : io::input_defs()) {
      if (std::string(d.name) == name) io::set_input(spec, d, value, diag);
    }
  }
  diag.check();
  std::istringstream in;
  return io::resolve(spec, registry(), in, true);
}

}  // namespace

TEST_CASE("a JSON object fills the spec as the flags do", "[spec]") {
  const io::Resolved j =
      resolve_json(R"({"model":"llama3-8b","gpu":"h100-sxm","batch":32,"context":8192,"kv_dtype":"fp8"})");
  const io::Resolved f =
      resolve_flags({{"gpu", "h100-sxm"}, {"batch", "32"}, {"context", "8192"}, {"kv-dtype", "fp8"}});
  const DecodeResult a = analyze_decode(j.scenario);
  const DecodeResult b = analyze_decode(f.scenario);
  CHECK(j.scenario.workload.batch == 32);
  CHECK(j.scenario.workload.kv_dtype == DType::fp8);
  CHECK(a.step.t_step == b.step.t_step);
  CHECK(a.step.bytes == b.step.bytes);
  // Strings with units and multipliers are read as on the command line.
  const io::Resolved k = resolve_json(R"({"model":"llama3-8b","gpu":"h100-sxm","context":"8Ki","reserve":"10%"})");
  CHECK(k.scenario.workload.context == 8192);
  CHECK(k.scenario.workload.reserve.base() == 0.1 * 0x1p30 * 80);
}

TEST_CASE("a model may be an inline config object", "[spec]") {
  const io::Resolved r = resolve_json(
      R"({"model":{"model_type":"llama","hidden_size":4096,"num_hidden_layers":32,"num_attention_heads":32,
          "num_key_value_heads":8,"intermediate_size":14336,"vocab_size":128256,"max_position_embeddings":8192},
          "gpu":"h100-sxm"})");
  CHECK(r.scenario.counts.total == 8'030'261'248);
}

TEST_CASE("JSON inputs: unknown keys and inputs of another command are errors, all reported", "[spec]") {
  io::ScenarioSpec spec;
  io::Diagnostics diag;
  io::fill_from_json(nlohmann::json::parse(R"({"model":"llama3-8b","batchsize":3,"tokens":"1T","batch":0})"),
                     kDecodeGroups, "decode", spec, diag);
  REQUIRE_THROWS_WITH(diag.check(),
                      "--batch: \"0\" must be at least 1\n"
                      "unknown option --batchsize; did you mean --batch?\n"
                      "--tokens does not apply to decode");
}

TEST_CASE("resolve collects every input error before it throws", "[spec]") {
  io::ScenarioSpec spec;
  spec.model = "llama3-8b";
  spec.gpu_memory = units::Bytes{0.0};
  spec.mfu = 0.5;
  std::istringstream in;
  // No --gpu: the capacity override and the mfu both need one, and both are named.
  REQUIRE_THROWS_WITH(io::resolve(spec, registry(), in, false), "--gpu-memory: needs --gpu\n--mfu: needs --gpu");
}

TEST_CASE("every default lives in resolve()", "[spec]") {
  const io::Resolved r = resolve_flags({{"gpu", "h100-sxm"}});
  const Workload& w = r.scenario.workload;
  CHECK(w.batch == 1);
  CHECK(w.context == 8192);  // the model's trained context
  CHECK(w.prompt == 2048);
  CHECK(w.output == 256);
  CHECK(w.weight_format == "bf16");
  CHECK(w.compute_dtype == DType::bf16);
  CHECK(r.scenario.deployment.devices == 1);
  // A group-quantized format names itself and computes in bf16.
  const io::Resolved q = resolve_flags({{"gpu", "h100-sxm"}, {"weight-bits", "q4_k"}});
  CHECK(q.scenario.workload.weight_format == "q4_k");
  CHECK(q.scenario.workload.weight_bits == 4.5);
  CHECK(q.scenario.workload.compute_dtype == DType::bf16);
  // fp8 weights compute in fp8; int4 weights in bf16.
  CHECK(resolve_flags({{"gpu", "h100-sxm"}, {"dtype", "fp8"}}).scenario.workload.compute_dtype == DType::fp8);
  CHECK(resolve_flags({{"gpu", "h100-sxm"}, {"dtype", "int4"}}).scenario.workload.compute_dtype == DType::bf16);
}

TEST_CASE("an override on a preset makes a modified model that compares with nothing published", "[spec]") {
  const io::Resolved r = resolve_flags({{"gpu", "h100-sxm"}, {"layers", "40"}});
  CHECK(r.scenario.provenance.modified);
  CHECK(r.model_label == "llama3-8b modified: --layers 40");
  CHECK(r.warnings.empty());
  const ParamsResult p = analyze_params(r.scenario);
  CHECK_FALSE(p.published_applies);
}

// Shell completion offers an input's choices (roofline completion): each must be a value the input
// takes, or the scripts would suggest an error.
TEST_CASE("every completion choice of an input is a value it accepts", "[spec][completion]") {
  std::size_t inputs_with_choices = 0;
  for (const io::InputDef& d : io::input_defs()) {
    INFO("--" << d.name);
    const bool chooses = d.hint == io::ValueHint::choice || d.hint == io::ValueHint::list;
    CHECK((!chooses || d.choices != nullptr));
    if (d.choices == nullptr) continue;
    ++inputs_with_choices;
    const std::vector<std::string> words = d.choices();
    CHECK_FALSE(words.empty());
    // A choice is a value alone; a list's elements make a value together (no-experts selects nothing alone).
    std::vector<std::string> values = words;
    if (d.hint == io::ValueHint::list) {
      values = {""};
      for (const std::string& w : words) values[0] += (values[0].empty() ? "" : ",") + w;
    }
    for (const std::string& v : values) {
      INFO(v);
      io::ScenarioSpec spec;
      io::Diagnostics diag;
      io::set_input(spec, d, v, diag);
      CHECK(diag.empty());
    }
    // And the input refuses what is not a choice, so the check above means something.
    if (d.hint != io::ValueHint::model) {
      io::ScenarioSpec spec;
      io::Diagnostics diag;
      io::set_input(spec, d, "no-such-choice", diag);
      CHECK_FALSE(diag.empty());
    }
  }
  // mlp, norm, dtype, weight-bits, kv-dtype, compute-dtype, draft, phase, zero, fsdp, optimizer,
  // recompute, model-flops, lora-targets, flops-basis, attention, lm-head, decode-bytes, moe-decode,
  // scaling-fit.
  CHECK(inputs_with_choices == 22);
}

TEST_CASE("completion choices list every value of the tables the parsers read", "[spec][completion]") {
  const auto choices = [](const char* name) {
    for (const io::InputDef& d : io::input_defs()) {
      if (d.name == std::string(name)) return d.choices();
    }
    FAIL("no input " << name);
    return std::vector<std::string>{};
  };
  using V = std::vector<std::string>;
  CHECK(choices("kv-dtype") == V{"fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "int4", "fp4"});
  CHECK(choices("recompute") == V{"none", "selective", "full"});
  // One canonical name per value: layernorm-nobias and none are accepted spellings, not offered.
  CHECK(choices("norm") == V{"rmsnorm", "layernorm", "layernorm_nobias", "nonparametric"});
  CHECK(choices("optimizer").size() == kOptimizerRecipes.size());
  CHECK(choices("weight-bits").size() == kNamedWeightFormats.size());
  CHECK(choices("lora-targets") ==
        V{"q", "k", "v", "o", "gate", "up", "down", "qv", "attention", "mlp", "all", "no-experts"});
  CHECK(choices("draft") == V{"mtp"});
}
