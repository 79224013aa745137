// Inference on a parallel layout: the KV share of a tensor rank, collectives with latency, the
// pipeline's latency, and a layout's memory and decode step checked by hand.
#include "roofline/parallel.hpp"

#include "roofline/analysis.hpp"
#include "roofline/decode.hpp"
#include "roofline/topology.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "seed_models.hpp"

using namespace roofline;
using Catch::Matchers::WithinRel;

namespace {

/// Mixtral 8x7B's shape (config.json): GQA 32/8, 8 experts of 14,336, top-2, V = 32,000 untied.
ModelConfig mixtral_shape() {
  ModelConfig m = test_models::llama3_8b(32'000);
  m.moe.n_experts = 8;
  m.moe.top_k = 2;
  m.moe.d_ff_expert = 14'336;
  return m;
}

Scenario on_h100(const ModelConfig& m) {
  Scenario s;
  s.model = m;
  s.counts = count_params(m);
  HardwareConfig h;
  h.name = "h100";
  h.memory_capacity = units::Bytes{85'899'345'920.0};
  h.memory_bandwidth = units::BytesPerSecond{3.35e12};
  h.interconnect_bandwidth = units::BytesPerSecond{450e9};
  h.set_peak(DType::bf16, units::FlopPerSecond{989.4e12});
  s.accelerator = Accelerator{h, CapacitySource::device,
                              flat_topology({LinkKind::scale_up, "NVLink 4", h.interconnect_bandwidth}, "flat")};
  return s;
}

}  // namespace

TEST_CASE("the KV share of a tensor rank stops falling at h_kv [SH19-3]", "[parallel]") {
  struct Row {
    double kv_heads, t, share;
    const char* why;
  };
  const Row rows[] = {
      {8, 1, 1.0, "one rank holds it all"},
      {8, 4, 0.25, "GQA heads split: 2 of 8 per rank"},
      {8, 8, 0.125, "one head per rank"},
      {8, 16, 0.125, "16 ranks, 8 heads: each rank a copy of one head"},
      {1, 8, 1.0, "MQA (or MLA's latent): every rank keeps the one head"},
  };
  for (const Row& r : rows) {
    INFO(r.why);
    CHECK(kv_share_per_rank(r.kv_heads, r.t) == r.share);
  }
}

TEST_CASE("ring all-reduce with latency: 2 (t - 1) alpha + 2 (t - 1)/t M / BW [TH05-4] [PY09-3]", "[parallel]") {
  const units::BytesPerSecond link{450e9};
  // 262,144 B over 4 ranks at 450 GB/s: 1.5 x 262,144 / 450e9 = 873.8 ns; with 5 us hops, + 30 us.
  CHECK_THAT(ring_allreduce_time(units::Bytes{262'144}, 4, link, units::Seconds{}).base(),
             WithinRel(1.5 * 262'144 / 450e9, 1e-12));
  CHECK_THAT(ring_allreduce_time(units::Bytes{262'144}, 4, link, units::Seconds{5e-6}).base(),
             WithinRel(30e-6 + 1.5 * 262'144 / 450e9, 1e-12));
  CHECK(ring_allreduce_time(units::Bytes{262'144}, 1, link, units::Seconds{5e-6}).base() == 0.0);  // no peers
  // A pipeline of 4 stages of 2 ms with 10 us hops: 8.03 ms.
  CHECK_THAT(pipeline_latency(4, units::Seconds{2e-3}, units::Seconds{10e-6}).base(), WithinRel(8.03e-3, 1e-12));
  CHECK_THAT(point_to_point_time(units::Bytes{450e3}, link, units::Seconds{5e-6}).base(), WithinRel(6e-6, 1e-12));
}

TEST_CASE("Llama 3 70B on 4 H100s by tensor parallelism, by hand [SH19-3] [S003-3.4]", "[parallel]") {
  ModelConfig m = test_models::llama2_70b();  // the 70B shape: 80 layers, d = 8192, 64 heads, 8 KV heads, d_ff 28672
  m.vocab_size = 128'256;
  Scenario s = on_h100(m);
  s.deployment = {.devices = 4, .tensor = 4, .pipeline = 1, .data = 1, .explicit_layout = true};
  s.workload.batch = 16;
  s.workload.context = 8000;
  s.deployment.link_latency_source = LinkLatencySource::flag;  // --link-latency 0: bandwidth only, as S003 works it
  const DeploymentResult r = analyze_deployment(s);
  // A layer's matrices 855,638,016 / 4 + its two norms 16,384 = 213,925,888, x 80 = 17,114,071,040;
  // the embedding and the head 1,050,673,152 / 4 each; the final norm 8,192: 17,639,415,808.
  CHECK(r.stage_params.most_loaded() == 17'639'415'808.0);
  CHECK(r.weights_per_device.base() == 2.0 * 17'639'415'808.0);
  // 80 x 2 x 8 x 128 x 2 B x 8000 = 2,621,440,000 B a sequence; a quarter on each rank.
  CHECK(r.kv_per_sequence_per_device.base() == 655'360'000.0);
  // (85,899,345,920 - 35,278,831,616) / 655,360,000 = 77.2
  CHECK(r.max_sequences == 77);
  CHECK(r.fits);
  // 2 all-reduces a layer of 16 x 8192 x 2 B: 160 x 1.5 x 262,144 / 450e9.
  CHECK_THAT(r.t_allreduce.base(), WithinRel(160.0 * 1.5 * 262'144 / 450e9, 1e-12));
  CHECK(r.smallest_fitting.has_value());
  CHECK(r.smallest_fitting->tensor * r.smallest_fitting->pipeline == 4);
  // With NCCL's costs [NC24]: 6 NVLink steps; LL 6.6 + 6 x 0.6 us + 4 x 0.8738 us = 13.695 us beats
  // Simple's 8.4 + 6 x 3.4 + 0.8738 = 29.67 us, 160 times.
  s.deployment.link_latency_source = LinkLatencySource::nccl;
  const DeploymentResult n = analyze_deployment(s);
  CHECK_THAT(n.t_allreduce.base(), WithinRel(160.0 * (10.2e-6 + 4.0 * 1.5 * 262'144 / 450e9), 1e-9));
  CHECK(n.protocol == "LL");
}

TEST_CASE("plan: every layout's groups and devices follow from the users per group [S003-3.6]", "[parallel]") {
  Scenario s = on_h100(test_models::llama3_8b());
  s.workload.context = 8192;
  s.workload.prompt = 2048;
  PlanInputs in;
  in.users = 1000;
  in.tokens_per_s_per_user = 20.0;
  in.price_per_device_hour = 2.0;
  const std::vector<PlanRow> rows = analyze_plan(s, in);
  REQUIRE(!rows.empty());
  REQUIRE(rows.front().feasible());
  for (const PlanRow& r : rows) {
    INFO(r.tensor << " x " << r.pipeline);
    if (!r.feasible()) continue;
    CHECK(r.groups == (1000 + r.concurrency - 1) / r.concurrency);
    CHECK(r.devices == r.groups * r.tensor * r.pipeline);
    CHECK(r.step.base() <= 0.05);  // 1 / 20 tokens/s
    CHECK(*r.cost_per_hour == 2.0 * static_cast<double>(r.devices));
  }
  // One H100 at 8k: (85,899,345,920 - 16,060,522,496) / (8192 x 131,072) = 65.04 sequences.
  const auto single =
      std::find_if(rows.begin(), rows.end(), [](const PlanRow& r) { return r.tensor * r.pipeline == 1; });
  REQUIRE(single != rows.end());
  CHECK(single->kv_sequences == 65);
  // Rows are ordered: feasible first, then by devices.
  for (std::size_t i = 1; i < rows.size(); ++i) {
    if (rows[i - 1].feasible() && rows[i].feasible()) CHECK(rows[i - 1].devices <= rows[i].devices);
  }
}

TEST_CASE("decode through a pipeline with M batches in flight: max(M, p) slots a token [NA21-2.2]", "[parallel]") {
  struct Row {
    double m, p, interval_slots, idle;
  };
  const Row rows[] = {{1, 4, 4, 0.75}, {2, 4, 4, 0.5}, {4, 4, 4, 0.0}, {8, 4, 8, 0.0}, {1, 1, 1, 0.0}};
  for (const Row& r : rows) {
    INFO("M = " << r.m << ", p = " << r.p);
    CHECK(pipelined_decode_interval(r.m, r.p, units::Seconds{1e-3}).base() == r.interval_slots * 1e-3);
    CHECK(pipelined_decode_idle(r.m, r.p) == r.idle);
  }
}

TEST_CASE("a serving device's decode read: one device reads params_read's figure [S004] [SH17]", "[parallel]") {
  const ModelConfig m = mixtral_shape();
  const ParamCounts c = count_params(m);
  for (const double n : {1.0, 8.0, 64.0}) {
    INFO(n << " tokens");
    CHECK_THAT(params_read_per_device(m, c, {}, n, n, DecodeBytes::touched, MoeDecodeBytes::expected).most_loaded(),
               WithinRel(params_read(m, c, n, DecodeBytes::touched, MoeDecodeBytes::expected), 1e-12));
  }
  // --decode-bytes all: what the device holds.
  CHECK(params_read_per_device(m, c, {.tensor = 2}, 1, 1, DecodeBytes::all_weights, MoeDecodeBytes::expected)
            .first_stage == params_per_device(c, {.tensor = 2}).first_stage);
}

TEST_CASE("DP attention + EP: whole experts on e devices see the tokens of e replicas [SH17] [LE21]", "[parallel]") {
  Scenario s = on_h100(mixtral_shape());
  s.deployment = {.devices = 8, .tensor = 1, .pipeline = 1, .data = 8, .expert = 8, .explicit_layout = true};
  s.workload.batch = 4;
  s.workload.context = 4096;
  const DeploymentResult r = analyze_deployment(s);
  CHECK(r.attention_data_parallel);
  CHECK(r.expert_tokens == 32.0);  // 4 a replica x 8 replicas
  // A device holds one whole expert a layer (3 x 4096 x 14,336 = 176,160,768), 32 layers; everything else whole.
  const ParamCounts& c = s.counts;
  double experts = 0.0;
  for (const LayerKindParams& k : c.layer_kinds) experts += static_cast<double>(k.n_layers * k.routed_experts_params);
  CHECK(experts == 32.0 * 8.0 * 176'160'768.0);
  CHECK(r.stage_params.most_loaded() == static_cast<double>(c.total) - experts * 7.0 / 8.0);
  // 32 tokens touch 8 (1 - (3/4)^32) of 8 experts; the gather reads 4 of the 32,000 table rows.
  const double share = 1.0 - std::pow(0.75, 32.0);
  const double read = r.stage_params.most_loaded() - experts / 8.0 * (1.0 - share) - (32'000.0 - 4.0) * 4096.0;
  CHECK_THAT(r.params_read_per_device, WithinRel(read, 1e-12));
  // Each MoE layer sends k B d 2 B (e - 1)/e = 2 x 4 x 4096 x 2 x 7/8 = 57,344 B out and back.
  CHECK(r.alltoall_bytes.base() == 57'344.0);
  CHECK(r.alltoalls_per_stage == 64.0);
  // Tensor-parallel replicas (t = 2, d = 4) with e = 4: an expert group spans 2 replicas, each of the
  // t ranks sends half its replica's tokens.
  s.deployment = {.devices = 8, .tensor = 2, .pipeline = 1, .data = 4, .expert = 4, .explicit_layout = true};
  const DeploymentResult tp = analyze_deployment(s);
  CHECK(tp.attention_data_parallel);
  CHECK(tp.expert_tokens == 8.0);
  CHECK(tp.alltoall_bytes.base() == 2.0 * 4 * 4096 * 2 * 0.75 / 2.0);
  // EP within a replica (t = 4, e = 4): the replica's own tokens.
  s.deployment = {.devices = 4, .tensor = 4, .pipeline = 1, .data = 1, .expert = 4, .explicit_layout = true};
  const DeploymentResult within = analyze_deployment(s);
  CHECK_FALSE(within.attention_data_parallel);
  CHECK(within.expert_tokens == 4.0);
}

TEST_CASE("plan: pipelines keep p micro-batches in flight, MoE adds DP attention + EP groups [NA21-2.2]",
          "[parallel]") {
  Scenario s = on_h100(mixtral_shape());
  s.workload.context = 8192;
  s.workload.prompt = 2048;
  PlanInputs in;
  in.users = 5000;
  in.tokens_per_s_per_user = 20.0;
  const std::vector<PlanRow> rows = analyze_plan(s, in);
  bool saw_ep = false;
  bool saw_pipeline = false;
  for (const PlanRow& r : rows) {
    INFO(r.tensor << " x " << r.pipeline << " x " << r.data << ", e = " << r.expert);
    if (r.expert > 1) {
      saw_ep = true;
      CHECK(r.data == r.expert);
      CHECK(r.tensor * r.pipeline == 1);
      CHECK(8 % r.expert == 0);
    }
    CHECK(r.micro_batches == r.pipeline);
    saw_pipeline = saw_pipeline || r.pipeline > 1;
    if (!r.feasible()) continue;
    CHECK(r.concurrency == r.micro_batches * r.data * r.batch);
    CHECK(r.devices == r.groups * r.tensor * r.pipeline * r.data);
    CHECK(r.step.base() <= 0.05);
    // The interval at n is the layout's own: the same probe through analyze_deployment.
    Scenario probe = s;
    probe.deployment = {.devices = r.group_devices(),
                        .tensor = r.tensor,
                        .pipeline = r.pipeline,
                        .data = r.data,
                        .expert = r.expert,
                        .explicit_layout = true,
                        .micro_batches = r.micro_batches};
    probe.workload.batch = r.batch;
    CHECK(analyze_deployment(probe, false).interval.base() == r.step.base());
  }
  CHECK(saw_ep);
  CHECK(saw_pipeline);
}

namespace {

/// Mamba 2.8B's shape (state-spaces/mamba-2.8b-hf config.json): 64 Mamba-1 layers, d = 2560,
/// d_i = 5120, N = 16, k_conv = 4, R = 160, V = 50,280 tied; no attention (h = h_kv = 0).
ModelConfig mamba_2_8b_shape() {
  ModelConfig m;
  m.name = "mamba-2.8b";
  m.family = "mamba";
  m.n_layers = 64;
  m.d_model = 2560;
  m.vocab_size = 50'280;
  m.tied_embeddings = true;
  m.position = PositionKind::none;
  m.hybrid.layers.assign(64, LayerMix{.attention = false, .state = StateMixer::mamba1, .ffn = LayerFfn::none});
  m.hybrid.ssm.d_inner = 5120;
  m.hybrid.ssm.d_state = 16;
  m.hybrid.ssm.d_conv = 4;
  m.hybrid.ssm.dt_rank = 160;
  m.hybrid.ssm.gated_norm = false;
  return m;
}

}  // namespace

TEST_CASE("a sequence's cache on a device: KV over min(t, h_kv), the state over t [SH19-3] [DAO24-8.1]",
          "[parallel][N3]") {
  struct Row {
    double kv, state, kv_heads, t, p, expected;
    const char* why;
  };
  const Row rows[] = {
      {0, 13'107'200, 0, 1, 1, 13'107'200, "pure Mamba on one device: the whole state (no 1/0 from h_kv = 0)"},
      {0, 13'107'200, 0, 2, 1, 6'553'600, "pure Mamba, t = 2: half the channels' state a rank"},
      {0, 13'107'200, 0, 1, 2, 6'553'600, "pure Mamba, p = 2: half the layers' state a stage"},
      {0, 13'107'200, 0, 4, 2, 1'638'400, "pure Mamba, t = 4, p = 2"},
      {4'096, 0, 8, 4, 1, 1'024, "attention only: the KV share of 4 ranks, 2 of 8 heads each"},
      {4'096, 512, 8, 2, 1, 2'048 + 256, "hybrid, t = 2: both halve"},
      {4'096, 512, 8, 16, 1, 512 + 32, "hybrid, t = 16 > h_kv = 8: KV copies stop at 1/8, the state splits 16 ways"},
      {4'096, 512, 1, 8, 2, (4'096 + 512 / 8.0) / 2, "MLA-style one head: KV whole on every rank, the state / t"},
  };
  for (const Row& r : rows) {
    INFO(r.why);
    const units::Bytes got =
        cache_per_sequence_per_device(units::Bytes{r.kv}, units::Bytes{r.state}, r.kv_heads, r.t, r.p);
    CHECK(std::isfinite(got.base()));
    CHECK(got.base() == r.expected);
  }
  CHECK(state_share_per_rank(1) == 1.0);
  CHECK(state_share_per_rank(8) == 0.125);
}

TEST_CASE("N3: a pure state-space model on a layout holds its state per device, not 1/0 of it", "[parallel][N3]") {
  const ModelConfig m = mamba_2_8b_shape();
  Scenario s = on_h100(m);
  s.workload.context = 4096;
  s.workload.batch = 1;
  // 64 layers x (5120 x 4 conv + 5120 x 16 SSM) elements x 2 B = 13,107,200 B a sequence, whatever T is.
  constexpr double kState = 64.0 * (5120.0 * 4 + 5120.0 * 16) * 2.0;
  const CapacityResult ideal = analyze_capacity(s);
  REQUIRE(ideal.kv_per_sequence.base() == kState);
  REQUIRE(ideal.max_sequences.has_value());

  struct Row {
    std::int64_t t, p;
  };
  for (const Row l : {Row{1, 1}, Row{2, 1}, Row{1, 2}, Row{2, 2}, Row{4, 1}}) {
    INFO("t = " << l.t << ", p = " << l.p);
    s.deployment = {.devices = l.t * l.p, .tensor = l.t, .pipeline = l.p, .data = 1, .explicit_layout = true};
    const DeploymentResult r = analyze_deployment(s);
    const auto tp = static_cast<double>(l.t * l.p);
    CHECK(r.state_per_sequence.base() == kState);
    CHECK(r.kv_attention_per_sequence.base() == 0.0);
    CHECK(r.kv_share == 0.0);  // no attention heads to share
    CHECK(r.state_share == 1.0 / tp);
    CHECK(r.kv_per_sequence_per_device.base() == kState / tp);
    CHECK(std::isfinite(r.required_per_device.base()));
    CHECK(r.required_per_device == r.weights_per_device + r.kv_per_sequence_per_device);
    CHECK(r.fits == (r.required_per_device <= r.capacity_per_device));
    CHECK(r.fits);
    REQUIRE(r.max_sequences.has_value());
    CHECK(*r.max_sequences == static_cast<std::int64_t>(std::floor((r.capacity_per_device - r.weights_per_device) /
                                                                   r.kv_per_sequence_per_device)));
    CHECK(std::isfinite(r.t_step.base()));
    CHECK(r.tokens_per_s > 0.0);
    REQUIRE(r.smallest_fitting.has_value());
    CHECK(r.smallest_fitting->tensor * r.smallest_fitting->pipeline == 1);
    // One device of the layout 1 x 1 is the ideal device: the same sequences.
    if (l.t * l.p == 1) CHECK(*r.max_sequences == static_cast<std::int64_t>(ideal.max_sequences->base()));
  }
}

TEST_CASE("N3: plan serves a pure state-space model on its layouts", "[parallel][N3]") {
  Scenario s = on_h100(mamba_2_8b_shape());
  s.workload.context = 4096;
  s.workload.prompt = 2048;
  PlanInputs in;
  in.users = 100;
  in.tokens_per_s_per_user = 30.0;
  const std::vector<PlanRow> rows = analyze_plan(s, in);
  REQUIRE(!rows.empty());
  for (const PlanRow& r : rows) {
    INFO(r.tensor << " x " << r.pipeline);
    CHECK(r.limit != PlanLimit::infeasible_memory);
    CHECK(r.tensor == 1);  // no attention heads: the layouts split the layers only
  }
  CHECK(rows.front().feasible());
  CHECK(rows.front().devices == 1);
}

TEST_CASE("state-space widths a tensor-parallel degree must divide [DAO24-8.1]", "[parallel][N3]") {
  const std::vector<StateSplit> mamba = state_tensor_splits(mamba_2_8b_shape());
  REQUIRE(mamba.size() == 1);
  CHECK(mamba[0].count == 5120);
  CHECK(std::string(mamba[0].what) == "Mamba channels");
  CHECK(state_tensor_splits(test_models::llama3_8b()).empty());
  // The layouts a search weighs divide them: only t = 1 here (no attention heads), p | 64.
  for (const LayoutCandidate& c : tensor_pipeline_layouts(mamba_2_8b_shape(), 64)) {
    CHECK(c.tensor == 1);
    CHECK(64 % c.pipeline == 0);
  }
}
