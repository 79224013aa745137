// The roofline as numbers for a picture: each data type's roof and ridge of the effective machine
// [WI09] [D13], workloads placed at their result's F / Q and min(P, I BW), and a capacity split into
// weights, KV, reserve and what is left [S003-3.4]. On ModelConfig and HardwareConfig literals.
#include "roofline/roofline_points.hpp"

#include <catch2/catch.hpp>

#include "seed_models.hpp"

using namespace roofline;
using Catch::Matchers::WithinRel;

namespace {

HardwareConfig h100() {
  HardwareConfig h;
  h.name = "h100";
  h.display_name = "H100";
  h.memory_capacity = units::gib(80);
  h.memory_bandwidth = units::tb_per_s(3.35);
  h.set_peak(DType::fp64, units::tflop_per_s(34));
  h.set_peak(DType::bf16, units::tflop_per_s(989.4));
  h.set_peak(DType::fp8, units::tflop_per_s(1978.9));
  return h;
}

Scenario llama3_8b_on_h100(Workload w, std::int64_t devices = 1) {
  Scenario s;
  s.model = roofline::test_models::llama3_8b();
  s.counts = count_params(s.model);
  s.accelerator = Accelerator{h100(), CapacitySource::device, {}};
  s.deployment.devices = devices;
  s.workload = w;
  return s;
}

}  // namespace

TEST_CASE("ceilings: a roof per data type with a peak, ridge = P / BW on the effective machine [WI09]",
          "[roofline_points]") {
  const RooflineCeilings r = analyze_ceilings(llama3_8b_on_h100(Workload{}));
  REQUIRE(r.ceilings.size() == 3);
  CHECK(r.ceilings[0].dtype == DType::fp64);
  CHECK(r.ceilings[1].dtype == DType::bf16);
  CHECK(r.ceilings[2].dtype == DType::fp8);
  CHECK(r.compute_dtype == DType::bf16);
  CHECK_THAT(r.bandwidth.base(), WithinRel(3.35e12, 1e-15));
  // Williams et al.'s ridge; seed 003's 295.3 FLOP/B for the H100 in bf16.
  CHECK_THAT(r.ceilings[1].ridge.base(), WithinRel(989.4e12 / 3.35e12, 1e-15));
  CHECK_THAT(r.ceilings[2].ridge.base(), WithinRel(1978.9e12 / 3.35e12, 1e-15));
  CHECK_THAT(r.ceilings[0].peak.base(), WithinRel(34e12, 1e-15));
  // Four ideal devices at 50 % MFU and 80 % of the bandwidth: both sides scale, the ridge by 0.5 / 0.8.
  const RooflineCeilings d = analyze_ceilings(llama3_8b_on_h100(Workload{.bw_efficiency = 0.8, .mfu = 0.5}, 4));
  CHECK_THAT(d.ceilings[1].peak.base(), WithinRel(4 * 0.5 * 989.4e12, 1e-15));
  CHECK_THAT(d.bandwidth.base(), WithinRel(4 * 0.8 * 3.35e12, 1e-15));
  CHECK_THAT(d.ceilings[1].ridge.base(), WithinRel(989.4e12 * 0.5 / (3.35e12 * 0.8), 1e-15));
}

TEST_CASE("points: the result's intensity, attainable = min(P, I BW) [WI09]", "[roofline_points]") {
  const Scenario s = llama3_8b_on_h100(Workload{.batch = 8, .context = 4096});
  const DecodeResult d = analyze_decode(s);
  const RooflinePoint p = decode_point(d);
  CHECK(p.kind == PointKind::decode);
  CHECK(p.batch == 8);
  CHECK(p.context == 4096);
  CHECK(p.intensity.base() == d.step.intensity.base());
  CHECK_THAT(p.attainable.base(), WithinRel(p.intensity.base() * 3.35e12, 1e-15));  // memory-bound
  // The point's height is the step's rate: F / max(F/P, Q/BW).
  CHECK_THAT(p.attainable.base(), WithinRel(d.step.flops.base() / d.step.t_step.base(), 1e-12));
  // Prefill of 2,048 tokens is past the ridge: at the peak.
  const RooflinePoint f = prefill_point(analyze_prefill(s));
  CHECK(f.intensity.base() > 989.4e12 / 3.35e12);
  CHECK_THAT(f.attainable.base(), WithinRel(989.4e12, 1e-15));
  CHECK(f.bound == Bound::compute);
  // A square bf16 GEMM: I = n/3; one of 96 x 96 x 96 is memory-bound at 32 FLOP/B.
  const Machine m = analyze_hardware(s).machine;
  const RooflinePoint g =
      gemm_point(analyze_gemm({.m = 96, .n = 96, .k = 96, .dtype = DType::bf16}, s.accelerator->hw), m);
  CHECK_THAT(g.intensity.base(), WithinRel(32.0, 1e-15));
  CHECK_THAT(g.attainable.base(), WithinRel(32.0 * 3.35e12, 1e-15));
  CHECK(g.bound == Bound::memory);
}

TEST_CASE("train point: the weight GEMMs of a b x s micro-batch, sum F / sum Q [S002-intensity]", "[roofline_points]") {
  // Llama 3 8B, one sequence of 4,096 tokens: per layer the matrices hold sum NK = 218,103,808
  // weights and sum (K + N) = 81,920 (q 8,192, k and v 5,120 each, o 8,192, gate, up and down
  // 18,432 each); the head 4,096 x 128,256. F = 2 M sum NK; Q = 2 B (sum NK + M sum (K + N)).
  const Scenario s = llama3_8b_on_h100(Workload{.batch = 1, .prompt = 4096});
  const RooflinePoint p = train_point(analyze_layer(s, {.phase = Phase::prefill, .fused = false}));
  const double nk = 32.0 * 218'103'808 + 4096.0 * 128'256;
  const double kn = 32.0 * 81'920 + (4096.0 + 128'256);
  CHECK(p.kind == PointKind::train);
  CHECK(p.prompt == 4096);
  CHECK_THAT(p.flops.base(), WithinRel(2.0 * 4096 * nk, 1e-15));
  CHECK_THAT(p.bytes.base(), WithinRel(2.0 * (nk + 4096 * kn), 1e-15));
  CHECK_THAT(p.intensity.base(), WithinRel(61'478'161'874'944.0 / 37'568'380'928.0, 1e-12));  // 1,636 FLOP/B
  CHECK(p.bound == Bound::compute);
  CHECK_THAT(p.attainable.base(), WithinRel(989.4e12, 1e-15));
}

TEST_CASE("layer points: the first layer's operators that read no weights, each at its F / Q", "[roofline_points]") {
  const LayerResult r = analyze_layer(llama3_8b_on_h100(Workload{.batch = 1, .context = 8000}), {});
  const std::vector<RooflinePoint> ops = layer_op_points(r);
  // Llama: two norms, RoPE, QK^T, softmax, attention x V, act(gate) x up, two residual adds.
  REQUIRE(ops.size() == 9);
  for (const RooflinePoint& p : ops) {
    CAPTURE(p.op_id);
    CHECK(p.op_kind != OpKind::matmul);
    CHECK_THAT(p.attainable.base(), WithinRel(p.intensity.base() * 3.35e12, 1e-12));
  }
  // RMSNorm: 2d FLOPs over d weights + d in + d out, all bf16: 2d / 6d.
  CHECK_THAT(ops.front().intensity.base(), WithinRel(1.0 / 3.0, 1e-12));
}

TEST_CASE("memory breakdown: weights + B M_KV(T) + R, and C minus their sum [S003-3.4]", "[roofline_points]") {
  const CapacityResult c = analyze_capacity(llama3_8b_on_h100(Workload{.batch = 64, .context = 8192}));
  const MemoryBreakdown m = memory_breakdown(c);
  // 131,072 B of KV a token (32 layers x 2 x 8 x 128 x 2 B) x 8,192 tokens x 64 sequences.
  CHECK(m.kv.base() == 131072.0 * 8192.0 * 64.0);
  CHECK(m.weights.base() == c.weights.base());
  CHECK(m.required.base() == (m.weights + m.kv + m.reserve).base());
  CHECK(m.unused.base() == 80.0 * 0x1p30 - m.required.base());
  CHECK(m.fits);
  const MemoryBreakdown over =
      memory_breakdown(analyze_capacity(llama3_8b_on_h100(Workload{.batch = 512, .context = 8192})));
  CHECK_FALSE(over.fits);
  CHECK(over.unused.base() < 0.0);
}

TEST_CASE("train memory breakdown: (w + g + o) Psi + max(A + B_z3, T_opt) + R [RA20 §5] [KO22 §4]",
          "[roofline_points]") {
  // Llama 3 8B on 8 H100s, d = 8, s = 8192: ZeRO-0 mixed Adam holds 2 + 2 + 12 bytes a parameter.
  Scenario s = llama3_8b_on_h100(Workload{}, 8);
  s.deployment.data = 8;
  s.training.seq_len = 8192;
  for (const ZeroStage z : {ZeroStage::none, ZeroStage::os_g_p}) {
    CAPTURE(static_cast<int>(z));
    s.training.zero = z;
    const TrainResult t = analyze_train(s);
    const TrainMemoryBreakdown m = train_memory_breakdown(t);
    const double shard = z == ZeroStage::none ? 1.0 : 8.0;
    CHECK(m.weights.base() == 2.0 * 8'030'261'248.0 / shard);
    CHECK(m.gradients.base() == 2.0 * 8'030'261'248.0 / shard);
    CHECK(m.optimizer.base() == 12.0 * 8'030'261'248.0 / shard);
    CHECK(m.working.base() == std::max(t.forward_backward.base(), t.optimizer_temporary.base()));
    // The terms are the device's total, and the capacity less them is what is left.
    CHECK_THAT((m.weights + m.gradients + m.optimizer + m.working + m.reserve).base(),
               WithinRel(t.total.base(), 1e-15));
    CHECK(m.unused.base() == t.capacity.base() - t.total.base());
    CHECK(m.fits == t.fits);
  }
}
