// Weight formats and layouts (issue 23): each format's bits per weight from its specification's
// storage, the class each parameter component belongs to, and the bytes of a tiny MoE model with
// biases under a layout, counted by hand.
#include "roofline/weight_format.hpp"

#include "roofline/decode.hpp"
#include "roofline/params.hpp"
#include "roofline/training_memory.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace roofline;

TEST_CASE("each weight format stores its specification's bits per weight", "[weights][formats]") {
  struct Row {
    const char* name;
    double bits;
    const char* source;
  };
  const Row rows[] = {
      // group-wise int with an fp16 scale per g [GPTQ23]; AWQ/GPTQ packing adds a 4-bit zero per group [AWQ24]
      {"int4-g128", 4.0 + 16.0 / 128.0, "GPTQ23"},
      {"int4-g64", 4.25, "GPTQ23"},
      {"int4-g32", 4.5, "GPTQ23"},
      {"int8-g128", 8.125, "GPTQ23"},
      {"awq-g128", 4.15625, "AWQ24: qweight 4 bits, qzeros 4 bits and fp16 scales per group of 128"},
      {"awq-g64", 4.3125, "AWQ24"},
      {"gptq-g128", 4.15625, "GPTQ23: qzeros packed at the weight width"},
      {"gptq-int8-g128", 8.0 + 24.0 / 128.0, "GPTQ23"},
      // OCP MX v1.0 §5: 32 elements share one E8M0 (8-bit) scale; MXFP4 elements E2M1, MXFP8 E4M3
      {"mxfp4", 4.25, "OCP23 §5.3"},
      {"mxfp8", 8.25, "OCP23 §5.3"},
      // NVFP4: 16 E2M1 values share an E4M3 scale (the fp32 per-tensor scale left out)
      {"nvfp4", 4.5, "NV25"},
      // DeepSeek-V3: one fp32 scale per 128 x 128 block of E4M3 weights
      {"fp8-block128", 8.0 + 32.0 / 16384.0, "DSV3 §3.3"},
      // ggml-common.h block structs: bytes per block of 32 or QK_K = 256 weights
      {"q4_0", 18.0 * 8.0 / 32.0, "GGUF block_q4_0: fp16 d + 16 B"},
      {"q4_1", 5.0, "GGUF block_q4_1: fp16 d, m + 16 B"},
      {"q5_0", 5.5, "GGUF block_q5_0: fp16 d + qh[4] + qs[16]"},
      {"q5_1", 6.0, "GGUF block_q5_1: 24 B per 32"},
      {"q8_0", 8.5, "GGUF block_q8_0: 34 B per 32"},
      {"q2_k", 2.625, "GGUF block_q2_K: 84 B per 256"},
      {"q3_k", 3.4375, "GGUF block_q3_K: 110 B per 256"},
      {"q4_k", 4.5, "GGUF block_q4_K: 144 B per 256"},
      {"q5_k", 5.5, "GGUF block_q5_K: 176 B per 256"},
      {"q6_k", 6.5625, "GGUF block_q6_K: 210 B per 256"},
      {"tq1_0", 1.6875, "GGUF block_tq1_0: 54 B per 256 (5 trits a byte)"},
      {"tq2_0", 2.0625, "GGUF block_tq2_0: 66 B per 256"},
  };
  for (const Row& r : rows) {
    CAPTURE(r.name, r.source);
    const auto f = named_weight_format(r.name);
    REQUIRE(f.has_value());
    CHECK(f->bits == r.bits);
  }
  CHECK(std::size(rows) == kNamedWeightFormats.size());
  CHECK_FALSE(named_weight_format("int3-g7").has_value());
  // Formats with their own math compute in it; weight-only and 4-bit ones dequantize into bf16.
  CHECK(default_compute_dtype(*named_weight_format("fp8-block128")) == DType::fp8);
  CHECK(default_compute_dtype(*named_weight_format("mxfp8")) == DType::fp8);
  CHECK(default_compute_dtype(*named_weight_format("mxfp4")) == DType::bf16);
  CHECK(default_compute_dtype(*named_weight_format("awq-g128")) == DType::bf16);
}

TEST_CASE("a parameter component's weight class", "[weights][classes]") {
  struct Row {
    const char* id;
    bool matrix;
    WeightClass cls;
  };
  const Row rows[] = {
      {"q_proj", true, WeightClass::attention},
      {"kv_a_proj", true, WeightClass::attention},
      {"in_proj", true, WeightClass::attention},  // a state-space mixer's
      {"conv1d", true, WeightClass::attention},
      {"indexer_wq", true, WeightClass::attention},
      {"indexer_weights", true, WeightClass::router},  // bf16 in DeepSeek-V3.2's FP8 checkpoint
      {"gate_proj", true, WeightClass::ffn},
      {"down_proj", true, WeightClass::ffn},
      {"experts", true, WeightClass::experts},
      {"experts_up_proj", true, WeightClass::experts},  // a layer operator's row
      {"shared_experts", true, WeightClass::shared_experts},
      {"shared_down_proj", true, WeightClass::shared_experts},
      {"router", true, WeightClass::router},
      {"shared_expert_gate", true, WeightClass::router},
      {"lm_head", true, WeightClass::head},
      {"embedding", true, WeightClass::embedding},
      {"norms", false, WeightClass::vectors},
      {"attn_bias", false, WeightClass::vectors},
      {"conv_bias", true, WeightClass::vectors},  // LFM2's conv biases, counted with the matrices
  };
  for (const Row& r : rows) {
    CAPTURE(r.id);
    CHECK(weight_class_of(r.id, r.matrix) == r.cls);
  }
  for (WeightClass c : kAllWeightClasses) CHECK(weight_class_from_name(weight_class_name(c)) == c);
}

namespace {

// d = 8, L = 2, h = 2 of d_h 4, one KV head, V = 10 untied; every layer MoE with E = 4 gated
// experts of width 4 with biases, top-2.
ModelConfig tiny_moe() {
  ModelConfig m;
  m.n_layers = 2;
  m.d_model = 8;
  m.n_heads = 2;
  m.n_kv_heads = 1;
  m.head_dim = 4;
  m.d_ff = 4;
  m.vocab_size = 10;
  m.mlp_bias = true;
  m.moe.n_experts = 4;
  m.moe.top_k = 2;
  m.moe.d_ff_expert = 4;
  return m;
}

}  // namespace

TEST_CASE("a layout sizes each class at its format, the experts' biases as vectors", "[weights][layout]") {
  const ModelConfig m = tiny_moe();
  REQUIRE(validate(m).empty());
  const ParamCounts c = count_params(m);
  // Per layer: attention q 64 + k 32 + v 32 + o 64 = 192; norms 16; router 32; experts 4 x (96
  // matrices + 16 biases) = 448. Two layers 1,376; embedding 80, head 80, final norm 8.
  REQUIRE(c.total == 1544);
  const WeightLayout bf16 = WeightLayout::all(plain_weight_format(DType::bf16));
  CHECK(stored_weight_bytes(c, bf16) == 2.0 * 1544);
  CHECK(bf16.uniform());

  WeightLayout l = bf16;
  l.set(WeightClass::experts, *named_weight_format("mxfp4"));
  CHECK_FALSE(l.uniform());
  // Expert matrices 2 x 384 = 768 at 4.25 bits = 408 B; the other 776 parameters at 2 B.
  CHECK(stored_weight_bytes(c, l) == 408.0 + 1552.0);

  Workload w;
  w.weights = l;
  w.weight_bits = stored_weight_bytes(c, l) * 8.0 / 1544.0;
  // One token: the gather reads 1 row of 8 (72 rows' 144 B skipped); the top-2 of 4 experts reach
  // E (1 - (1 - k/E)^1) = 2, so half of each layer's experts is skipped: 192 matrix weights at
  // 4.25 bits (102 B) and 32 biases (64 B) a layer.
  CHECK(weights_read_bytes(m, c, 1.0, w).base() == 1960.0 - 144.0 - 2.0 * (102.0 + 64.0));
  // A uniform layout is N_read b_w / 8 as before.
  Workload u;
  CHECK(weights_read_bytes(m, c, 1.0, u).base() ==
        params_read(m, c, 1.0, DecodeBytes::touched, MoeDecodeBytes::expected) * 2.0);
  // One device of t = 2: attention matrices and experts split, the router, norms and biases whole,
  // the table and head split by vocabulary.
  const DeviceParams held = params_per_device(c, {.tensor = 2}, &l);
  const double per_layer = 192.0 * 2.0 / 2.0 + 16.0 * 2.0 + 32.0 * 2.0 + (384.0 * 4.25 / 8.0 + 64.0 * 2.0) / 2.0;
  CHECK(held.first_stage == 2.0 * per_layer + 80.0 * 2.0 / 2.0 + 8.0 * 2.0 + 80.0 * 2.0 / 2.0);
  CHECK(params_per_device(c, {.tensor = 2}).first_stage ==
        params_per_device(c, {.tensor = 2}, &bf16).first_stage / 2.0);
}
