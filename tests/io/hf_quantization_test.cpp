// A config.json's quantization_config is the published checkpoint's weight layout (issue 23):
// AWQ and GPTQ int4 groups with their zero points, FP8 blocks, MXFP4 experts, compressed-tensors
// int4 experts; a method roofline does not read leaves bf16 and says so in a note.
#include "io/hf_import.hpp"
#include "io/preset_json.hpp"
#include "io/preset_registry.hpp"

#include "roofline/params.hpp"
#include "roofline/weight_format.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "io_test_support.hpp"

using namespace roofline;
using namespace roofline::io;
using nlohmann::json;
using roofline_test::fixture_json;

namespace {

ModelConfig with_quantization(const json& q, std::vector<std::string>* notes = nullptr, const char* dtype = "float16") {
  json j = fixture_json("llama3-70b");
  j["quantization_config"] = q;
  j["torch_dtype"] = dtype;
  return import_hf_config(j, "config.json", "", notes);
}

}  // namespace

TEST_CASE("an AWQ config is sized at its group-quantized bits, the float tensors at torch_dtype",
          "[weights][hf][awq]") {
  // AutoAWQ's GEMM checkpoints (e.g. the Llama 3.1 70B AWQ-INT4 ones): bits 4, group_size 128,
  // zero_point true: 4-bit values, a 4-bit zero and an fp16 scale per group of 128  [AWQ24]
  const ModelConfig m = with_quantization(
      {{"quant_method", "awq"}, {"bits", 4}, {"group_size", 128}, {"zero_point", true}, {"version", "gemm"}});
  REQUIRE(m.published_weights.has_value());
  const WeightLayout& l = *m.published_weights;
  CHECK(l.of(WeightClass::attention).name == "awq-g128");
  CHECK(l.of(WeightClass::ffn).name == "awq-g128");
  CHECK(l.of(WeightClass::embedding).name == "fp16");
  CHECK(l.of(WeightClass::head).name == "fp16");
  CHECK(l.of(WeightClass::vectors).name == "fp16");
  const ParamCounts c = count_params(m);
  REQUIRE(c.total == 70553706496);
  // Llama 3 70B: embedding and head 128,256 x 8,192 each, norms 161 x 8,192; the rest matrices.
  const double table = 128256.0 * 8192.0;
  const double norms = (80.0 * 2.0 + 1.0) * 8192.0;
  const double matrices = static_cast<double>(c.total) - 2.0 * table - norms;
  CHECK(stored_weight_bytes(c, l) == matrices * 4.15625 / 8.0 + (2.0 * table + norms) * 2.0);
  CHECK(stored_weight_bytes(c, l) < 0.3 * 2.0 * static_cast<double>(c.total));  // not 141.1 GB

  // GPTQ of 8 bits; symmetric AWQ without zero points is the plain int4 group format.
  CHECK(with_quantization({{"quant_method", "gptq"}, {"bits", 8}, {"group_size", 128}})
            .published_weights->of(WeightClass::ffn)
            .name == "gptq-int8-g128");
  CHECK(with_quantization({{"quant_method", "awq"}, {"bits", 4}, {"group_size", 64}, {"zero_point", false}})
            .published_weights->of(WeightClass::ffn)
            .name == "int4-g64");
  // FP8 blocks of 128 x 128 on every matrix of the blocks; bf16 rest.
  const ModelConfig fp8 =
      with_quantization({{"quant_method", "fp8"}, {"weight_block_size", {128, 128}}}, nullptr, "bfloat16");
  CHECK(fp8.published_weights->of(WeightClass::attention).name == "fp8-block128");
  CHECK(fp8.published_weights->of(WeightClass::embedding).name == "bf16");
}

TEST_CASE("a quantization_config roofline does not read is sized at bf16 and named in a note", "[weights][hf]") {
  std::vector<std::string> notes;
  const ModelConfig m = with_quantization({{"quant_method", "bitsandbytes"}, {"load_in_4bit", true}}, &notes);
  CHECK_FALSE(m.published_weights.has_value());
  bool named = false;
  for (const std::string& n : notes) named = named || n.find("quant_method \"bitsandbytes\"") != std::string::npos;
  CHECK(named);
  // An FP8 block other than 128 x 128, or a GPTQ group roofline has no format for, likewise.
  CHECK_FALSE(with_quantization({{"quant_method", "fp8"}, {"weight_block_size", {64, 64}}}).published_weights);
  CHECK_FALSE(with_quantization({{"quant_method", "gptq"}, {"bits", 3}, {"group_size", 128}}).published_weights);
  // compressed-tensors with an ignore pattern roofline cannot place leaves the layout unknown.
  const json ct = {
      {"quant_method", "compressed-tensors"},
      {"config_groups",
       {{"group_0",
         {{"targets", {"Linear"}},
          {"weights",
           {{"num_bits", 4}, {"group_size", 32}, {"strategy", "group"}, {"symmetric", true}, {"type", "int"}}}}}}},
      {"ignore", {"lm_head", "re:.*vision.*"}}};
  CHECK_FALSE(with_quantization(ct).published_weights);
  json kimi = ct;
  kimi["ignore"] = {"lm_head", "re:.*self_attn.*", "re:.*shared_experts.*", "re:.*mlp\\.(gate|up|gate_up|down)_proj.*"};
  // Kimi K2.5's patterns on a dense model: only the routed experts (none here) are int4.
  const WeightLayout l = *with_quantization(kimi).published_weights;
  CHECK(l.of(WeightClass::experts).name == "int4-g32");
  CHECK(l.of(WeightClass::attention).name == "fp16");
  CHECK(l.of(WeightClass::ffn).name == "fp16");
}
