// The analyses compose the formulas: each row checks one composed figure against a value derived
// by hand from the cited source, on a ModelConfig literal (no preset files).
#include "roofline/analysis.hpp"

#include "roofline/quant.hpp"
#include "roofline/training.hpp"

#include <catch2/catch.hpp>

#include <cmath>

#include "h100_fixture.hpp"
#include "seed_models.hpp"

using namespace roofline;
using Catch::Matchers::WithinRel;

namespace {

using roofline_test::h100;

Scenario on_h100(ModelConfig m, Workload w, std::int64_t devices = 1) {
  Scenario s;
  s.counts = count_params(m);
  s.model = std::move(m);
  s.accelerator = Accelerator{h100(), CapacitySource::device, {}};
  s.deployment.devices = devices;
  s.workload = w;
  return s;
}

}  // namespace

TEST_CASE("deployment: G ideal devices add capacity, reserve and rates [D13]", "[analysis]") {
  const Scenario s = on_h100(roofline::test_models::llama3_8b(),
                             Workload{.reserve = units::gib(2), .bw_efficiency = 0.8, .mfu = 0.5}, 4);
  CHECK(total_capacity(s).base() == 4.0 * 80.0 * 0x1p30);
  CHECK(total_reserve(s).base() == 4.0 * 2.0 * 0x1p30);
  const Machine m = effective_machine(s);
  CHECK_THAT(m.bandwidth.base(), WithinRel(4 * 0.8 * 3.35e12, 1e-15));
  CHECK_THAT(m.peak.base(), WithinRel(4 * 0.5 * 989.4e12, 1e-15));
}

TEST_CASE("devices to fit: ceil((M_w + B M_KV) / (C - R)) [S003-3.6]", "[analysis]") {
  // Llama 2 70B in bf16 (137.96 GB) with no KV on 80 GiB devices: 2; with a 79 GiB reserve, none fit.
  CHECK(devices_to_fit(units::Bytes{137'953'296'384.0}, units::gib(80)) == 2);
  CHECK(devices_to_fit(units::Bytes{3.0 * 0x1p30}, units::gib(1)) == 3);
  CHECK(devices_to_fit(units::Bytes{3.0 * 0x1p30 + 1.0}, units::gib(1)) == 4);
  CHECK_FALSE(devices_to_fit(units::gib(1), units::Bytes{0.0}).has_value());
}

TEST_CASE("capacity: the seed's 40 and 5 concurrent sequences on 192e9 bytes [S003-3.4]", "[analysis]") {
  Scenario s = on_h100(roofline::test_models::llama2_70b(), Workload{.batch = 1, .context = 4096});
  s.accelerator->hw.memory_capacity = units::gb(192);
  s.accelerator->capacity_source = CapacitySource::override_bytes;
  const CapacityResult c = analyze_capacity(s);
  REQUIRE(c.max_sequences);
  CHECK(c.max_sequences->base() == 40);
  CHECK(c.max_sequences_mha->base() == 5);
  CHECK(c.fits);
  CHECK(c.devices_needed == 1);
  // A negative free memory clamps to zero sequences and says it does not fit.
  s.accelerator->hw.memory_capacity = units::gb(100);
  const CapacityResult small = analyze_capacity(s);
  CHECK(small.free.base() < 0.0);
  CHECK(small.max_sequences->base() == 0);
  CHECK_FALSE(small.fits);
  CHECK(small.devices_needed == 2);
}

TEST_CASE("mean time per output token and the decode/prefill ratio [S003-2.5] [S004]", "[analysis]") {
  CHECK(mean_time_per_output_token(units::seconds(2.56), 256, units::seconds(1.0)).base() == 0.01);
  CHECK(mean_time_per_output_token(units::seconds(0.0), 0, units::seconds(0.02)).base() == 0.02);
  // A 5 ms decode step against a 30 ms prefill of 2,048 tokens: 5e-3 / (30e-3 / 2048) = 341.33.
  CHECK_THAT(decode_prefill_cost_ratio(units::seconds(5e-3), units::seconds(30e-3), 2048.0),
             WithinRel(5e-3 * 2048.0 / 30e-3, 1e-15));
}

TEST_CASE("prefill FLOP terms sum to prefill_flops [S004]", "[analysis]") {
  const ModelConfig m = roofline::test_models::llama3_8b();
  const ParamCounts c = count_params(m);
  const PrefillFlopTerms t =
      prefill_flop_terms(m, c, 2048.0, FlopBasis::physical, LmHeadPositions::last, AttentionMode::causal);
  // Llama 3 8B: head 2 V d = 2 x 128,256 x 4,096; physical C_fwd = 2 x 7,504,924,672.
  CHECK(t.head.base() == 2.0 * 128'256.0 * 4096.0);
  CHECK(t.per_token_without_head.base() == 2.0 * 7'504'924'672.0 - t.head.base());
  CHECK(t.head_positions == 1.0);
  CHECK(t.total.base() ==
        prefill_flops(m, c, 2048.0, FlopBasis::physical, LmHeadPositions::last, AttentionMode::causal).base());
}

TEST_CASE("mean layer matrix parameters: dense-then-MoE layers average over all L [S003-2.3]", "[analysis]") {
  // L = 4, one dense layer first; d = 8, h = h_kv = 2, d_h = 4, gated d_ff = 16; 4 experts of 8, top-1.
  // Attention 4 x 8 x 8 = 256. Dense MLP 3 x 8 x 16 = 384 -> 640. MoE: router 8 x 4 = 32 and one
  // expert 3 x 8 x 8 = 192 -> 480. Mean (640 + 3 x 480) / 4 = 520.
  ModelConfig m;
  m.n_layers = 4;
  m.d_model = 8;
  m.n_heads = 2;
  m.n_kv_heads = 2;
  m.head_dim = 4;
  m.d_ff = 16;
  m.vocab_size = 10;
  m.moe.n_experts = 4;
  m.moe.top_k = 1;
  m.moe.d_ff_expert = 8;
  m.moe.first_dense_layers = 1;
  CHECK(mean_layer_matrix_params(m, count_params(m)) == 520.0);
}

TEST_CASE("weight formats and the compute dtype policy [GPTQ23] [GGUF]", "[analysis]") {
  CHECK(named_weight_format("int4-g128")->bits == 4.125);
  CHECK(named_weight_format("q4_k")->bits == 4.5);
  CHECK(named_weight_format("q6_k")->bits == 6.5625);
  CHECK_FALSE(named_weight_format("q3_x").has_value());
  CHECK(default_compute_dtype(plain_weight_format(DType::fp8)) == DType::fp8);
  CHECK(default_compute_dtype(plain_weight_format(DType::int8)) == DType::int8);
  CHECK(default_compute_dtype(plain_weight_format(DType::int4)) == DType::bf16);
  CHECK(default_compute_dtype(plain_weight_format(DType::fp4)) == DType::bf16);
  CHECK(default_compute_dtype(*named_weight_format("int8-g128")) == DType::bf16);
}

TEST_CASE("serve sums the decode steps in closed form at any output length [S003-2.5]", "[analysis]") {
  const Scenario s =
      on_h100(roofline::test_models::llama3_8b(), Workload{.batch = 1, .prompt = 1024, .output = 1'000'000'000'000});
  const ServeResult r = analyze_serve(s);
  CHECK(std::isfinite(r.decode_time.base()));
  CHECK(r.tpot.base() > 0.0);
  CHECK(r.capacity.context == 1'000'000'001'024);
  CHECK_FALSE(r.capacity.fits);
}

TEST_CASE("decode without a published peak keeps the memory side exact", "[analysis]") {
  Scenario s = on_h100(roofline::test_models::llama3_8b(), Workload{.batch = 1, .context = 0});
  s.accelerator->hw.peak = {};
  const DecodeResult d = analyze_decode(s);
  CHECK_FALSE(d.has_peak);
  CHECK_FALSE(d.compute_bound_batch.has_value());
  CHECK(d.step.t_step == d.step.t_memory);
  CHECK(d.step.t_compute.base() == 0.0);
}

TEST_CASE("decode without its searches: the same step, fit and ceilings, no compute-bound batches", "[analysis]") {
  const Scenario s = on_h100(roofline::test_models::llama3_8b(), Workload{.batch = 64, .context = 512});
  const DecodeResult full = analyze_decode(s);
  const DecodeResult quick = analyze_decode(s, {.searches = false});
  REQUIRE(full.compute_bound_batch_no_kv.has_value());  // 296 at this ridge: the searches ran
  CHECK_FALSE(quick.compute_bound_batch.has_value());
  CHECK_FALSE(quick.compute_bound_batch_no_kv.has_value());
  CHECK(quick.step.t_step == full.step.t_step);
  CHECK(quick.step.bytes == full.step.bytes);
  CHECK(quick.touched_no_kv.tokens_per_s == full.touched_no_kv.tokens_per_s);
  CHECK(quick.capacity.fits == full.capacity.fits);
  CHECK(quick.capacity.max_sequences == full.capacity.max_sequences);
  CHECK(quick.ridge == full.ridge);
}

TEST_CASE("a model known only by N: every basis counts 2N, 6ND for training [KA20 §2.1]", "[analysis]") {
  const ParamCounts c = counts_of_total(70'000'000'000);
  for (FlopBasis b : {FlopBasis::physical, FlopBasis::non_embedding, FlopBasis::all_params}) {
    CHECK(flop_params(c, b) == 70'000'000'000);
  }
  CHECK(forward_flops_per_token(c, FlopBasis::physical).base() == 1.4e11);
  CHECK(training_compute(7e10, 2e12).base() == 8.4e23);
  Scenario s;
  s.counts = c;
  s.architecture = false;
  const FlopsResult f = analyze_flops(s);
  CHECK(f.crossover_causal.base() == 0.0);  // left at zero: the view leaves it out
  CHECK(f.prefill.total.base() == 2048.0 * 1.4e11);
}

TEST_CASE("train: states, activations and compute of a data-parallel run [RA20] [KO22] [KA20]", "[analysis]") {
  // Llama 3 8B on 8 devices, d = 8, ZeRO-0, mixed Adam: 16 B x 8,030,261,248 per device; s = 8192,
  // b = 1, m = 1: 65,536 tokens per step and 6 x 7,504,924,672 x 65,536 model FLOPs.
  Scenario s = on_h100(roofline::test_models::llama3_8b(), Workload{}, 8);
  s.deployment.data = 8;
  s.training.seq_len = 8192;
  const TrainResult r = analyze_train(s);
  CHECK(r.device_params == 8'030'261'248.0);
  CHECK(r.states.total().base() == 16.0 * 8'030'261'248.0);
  CHECK(r.tokens_per_step == 65'536.0);
  CHECK(r.model_flops_per_step.base() == 6.0 * 7'504'924'672.0 * 65'536.0);
  CHECK(r.total == r.states.total() + r.activations);
  CHECK_FALSE(r.fits);  // 128.5 GB of states alone on an 80 GiB device
  // ZeRO-3 over the 8 ranks divides every state by 8.
  s.training.zero = ZeroStage::os_g_p;
  CHECK(analyze_train(s).states.total().base() == 2.0 * 8'030'261'248.0);
  // Step time at 40 % of 8 x 989.4 TFLOP/s.
  s.workload.mfu = 0.4;
  CHECK_THAT(analyze_train(s).step_time->base(),
             WithinRel(6.0 * 7'504'924'672.0 * 65'536.0 / (8 * 0.4 * 989.4e12), 1e-12));
}

TEST_CASE("train: what would fit on the same devices", "[analysis]") {
  // Llama 3 8B on 8 H100s, ZeRO-0: 128.5 GB of states per device never fit with d = 8; the
  // smallest layout that fits shards the model over tensor ranks, and the searches agree with a
  // direct evaluation at their answers.
  Scenario s = on_h100(roofline::test_models::llama3_8b(), Workload{}, 8);
  s.deployment.data = 8;
  s.training.seq_len = 8192;
  const TrainResult r = analyze_train(s);
  CHECK_FALSE(r.fits);
  CHECK_FALSE(r.max_micro_batch.has_value());
  REQUIRE(r.smallest_fitting_layout.has_value());
  const auto l = *r.smallest_fitting_layout;
  CHECK(l.tensor * l.pipeline * l.data == 8);
  Scenario fit = s;
  fit.deployment.tensor = l.tensor;
  fit.deployment.pipeline = l.pipeline;
  fit.deployment.data = l.data;
  CHECK(analyze_train(fit).fits);
  // With ZeRO-3 over 8 ranks it fits as is; the largest micro-batch fits and one more does not.
  s.training.zero = ZeroStage::os_g_p;
  const TrainResult z = analyze_train(s);
  REQUIRE(z.max_micro_batch.has_value());
  Scenario at = s;
  at.training.micro_batch = *z.max_micro_batch;
  CHECK(analyze_train(at).fits);
  at.training.micro_batch = *z.max_micro_batch + 1;
  CHECK_FALSE(analyze_train(at).fits);
}

TEST_CASE("executed training FLOPs per token follow the recomputation done [KO22 §5] [CH22 App. B]", "[analysis]") {
  const units::Flop c{100.0};
  const units::Flop a{10.0};
  CHECK(executed_training_flops(c, a, Recompute::none).base() == 330.0);       // 3 (C + A)
  CHECK(executed_training_flops(c, a, Recompute::selective).base() == 340.0);  // + A
  CHECK(executed_training_flops(c, a, Recompute::full).base() == 440.0);       // + C + A: 4 (C + A)
  // Without attention, full recomputation is the 8N of a 2N forward.
  CHECK(executed_training_flops(units::Flop{2.0}, units::Flop{0.0}, Recompute::full).base() == 8.0);
}

TEST_CASE("executed FLOPs of any step: C_step + 3 A + the recomputation done [KO22 §5] [HU21 §4.2]", "[analysis]") {
  const units::Flop a{10.0};
  struct Row {
    double step, forward;
    Recompute r;
    double executed;
    const char* why;
  };
  const Row rows[] = {
      {300, 100, Recompute::none, 330, "full training: 6N = 3 C_fwd, as executed_training_flops"},
      {300, 100, Recompute::full, 440, "full training, full recomputation: + C_fwd + A"},
      // LoRA, N = 50, N_lora = 1: step 4 x 50 + 6 x 1 = 206, forward 2 x 50 + 2 x 1 = 102.
      {206, 102, Recompute::none, 236, "LoRA: 4N + 6N_lora + 3A"},
      {206, 102, Recompute::selective, 246, "LoRA, selective: + A"},
      {206, 102, Recompute::full, 348, "LoRA, full: + (2N + 2N_lora) + A"},
  };
  for (const Row& r : rows) {
    INFO(r.why);
    CHECK(executed_step_flops(units::Flop{r.step}, units::Flop{r.forward}, a, r.r).base() == r.executed);
  }
  for (const Recompute r : {Recompute::none, Recompute::selective, Recompute::full}) {
    CHECK(executed_step_flops(units::Flop{300}, units::Flop{100}, a, r) ==
          executed_training_flops(units::Flop{100}, a, r));
  }
}

TEST_CASE("PaLM's model FLOPs per token: 6N + 12 L H Q T [CH22 App. B]", "[analysis]") {
  // PaLM 540B: N = 540.35e9, L = 118, H = 48, Q = 256, T = 2048: 3.242e12 + 3.563e10 = 3.278e12 FLOP;
  // at 238.3K tokens/s on 6144 chips of 275 TFLOP/s that is the printed 46.2 % MFU.
  const units::Flop f = palm_model_flops_per_token(540.35e9, 118, 48, 256, 2048);
  CHECK(f.base() == 6.0 * 540.35e9 + 12.0 * 118 * 48 * 256 * 2048);
  CHECK(std::round(f.base() * 238'300.0 / (6144.0 * 275e12) * 1000.0) == 462.0);
}
