// Hybrid and state-space layers (issue 10): the parameters of each mixer and its recurrent state,
// hand-counted on tiny configs from the reference modules' tensor shapes, and the cache as two
// terms (KV per token over the attention layers, state per sequence) through memory and decode.
#include "roofline/decode.hpp"
#include "roofline/flops.hpp"
#include "roofline/memory.hpp"
#include "roofline/params.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace roofline;
using Catch::Matchers::WithinRel;

namespace {

constexpr LayerMix kMamba1{.attention = false, .state = StateMixer::mamba1, .ffn = LayerFfn::none};
constexpr LayerMix kMamba2{.attention = false, .state = StateMixer::mamba2, .ffn = LayerFfn::none};
constexpr LayerMix kDelta{.attention = false, .state = StateMixer::gated_deltanet, .ffn = LayerFfn::none};
constexpr LayerMix kAttn{.attention = true, .state = StateMixer::none, .ffn = LayerFfn::none};

// d = 8, V = 10; attention h = 2, h_kv = 1, d_h = 4; Mamba d_i = 16, N = 2, k_conv = 3, R = 2,
// Mamba-2 H = 4, P = 4, g = 1; DeltaNet h_k = 2, h_v = 4, d_k = 2, d_v = 3, k_conv = 3.
ModelConfig tiny(std::vector<LayerMix> layers) {
  ModelConfig m;
  m.n_layers = static_cast<std::int64_t>(layers.size());
  m.d_model = 8;
  m.n_heads = 2;
  m.n_kv_heads = 1;
  m.head_dim = 4;
  m.vocab_size = 10;
  m.position = PositionKind::none;
  m.hybrid.layers = std::move(layers);
  SsmConfig& s = m.hybrid.ssm;
  s.d_inner = 16;
  s.d_state = 2;
  s.d_conv = 3;
  s.dt_rank = 2;
  s.n_heads = 4;
  s.head_dim = 4;
  s.n_groups = 1;
  m.hybrid.deltanet = {.n_key_heads = 2, .n_value_heads = 4, .key_head_dim = 2, .value_head_dim = 3, .conv_kernel = 3};
  return m;
}

}  // namespace

TEST_CASE("hybrid mixers: parameters per layer from the reference tensor shapes [GU23] [DAO24] [YANG24]",
          "[hybrid][params]") {
  struct Row {
    const char* label;
    ModelConfig model;
    std::int64_t layer_params;
  };
  ModelConfig jamba_like = tiny({kMamba1});
  jamba_like.hybrid.ssm.dt_norms = true;
  ModelConfig biased = tiny({kMamba2});
  biased.hybrid.ssm.proj_bias = true;
  ModelConfig gated_attn = tiny({kAttn});
  gated_attn.hybrid.attn_output_gate = true;
  const std::vector<Row> rows = {
      // MambaMixer: in_proj 8x32 + conv1d 16x3 + x_proj 16x(2+4) + dt_proj 2x16+16 + A_log 16x2 + D 16
      // + out_proj 16x8 + conv bias 16 + block norm 8.
      {"Mamba-1", tiny({kMamba1}), 256 + 48 + 96 + 48 + 32 + 16 + 128 + 16 + 8},
      {"Mamba-1 with Jamba's dt/B/C norms (R + 2N)", jamba_like, 648 + 2 + 4},
      // Mamba2Mixer: conv channels 16 + 2x1x2 = 20; in_proj 8x(16 + 20 + 4) + conv1d 20x3 + dt_bias/A_log/D
      // 3x4 + gated norm 16 + out_proj 16x8 + conv bias 20 + block norm 8.
      {"Mamba-2", tiny({kMamba2}), 320 + 60 + 12 + 16 + 128 + 20 + 8},
      {"Mamba-2 with in_proj/out_proj biases (40 + 8)", biased, 564 + 40 + 8},
      // Gated DeltaNet: K = 4, V = 12; in_proj_qkvz 8x32 + in_proj_ba 8x8 + conv1d 20x3 + dt_bias/A_log 8
      // + norm 3 + out_proj 12x8 + block norm 8.
      {"Gated DeltaNet", tiny({kDelta}), 256 + 64 + 60 + 8 + 3 + 96 + 8},
      // Attention only: q 8x8, k 8x4, v 8x4, o 8x8, one norm; Qwen3-Next's gate adds another 8x8.
      {"attention-only block", tiny({kAttn}), 64 + 32 + 32 + 64 + 8},
      {"attention with the output gate", gated_attn, 200 + 64},
  };
  for (const Row& r : rows) {
    INFO(r.label);
    const ParamCounts c = count_params(r.model);
    REQUIRE(c.layer_kinds.size() == 1);
    CHECK(c.layer_kinds[0].total == r.layer_params);
    // Embedding 10x8, untied head 10x8, final norm 8.
    CHECK(c.total == r.layer_params + 80 + 80 + 8);
  }
}

TEST_CASE("a model without attention has no attention crossover length (0, not a division by zero) [S003-2.3]",
          "[hybrid]") {
  ModelConfig m = tiny({kMamba1, kMamba1});
  m.n_heads = 0;
  m.n_kv_heads = 0;
  m.head_dim = 0;
  const ParamCounts c = count_params(m);
  CHECK(attention_crossover_tokens(m, c, AttentionMode::causal) == 0.0);
  CHECK(attention_crossover_tokens(m, c, AttentionMode::full) == 0.0);
  // With attention the crossover is 4 P / a, positive.
  CHECK(attention_crossover_tokens(tiny({kAttn, kMamba1}), count_params(tiny({kAttn, kMamba1})),
                                   AttentionMode::causal) > 0.0);
}

TEST_CASE("hybrid state: elements per layer from the reference cache shapes [GU23] [DAO24] [YANG24]",
          "[hybrid][state]") {
  struct Row {
    const char* label;
    StateMixer kind;
    std::int64_t elements;
  };
  const ModelConfig m = tiny({kMamba1});
  const std::vector<Row> rows = {
      // MambaCache: conv [d_i, k_conv] + ssm [d_i, N].
      {"Mamba-1", StateMixer::mamba1, 16 * 3 + 16 * 2},
      // Mamba2Cache: conv [d_i + 2gN, k_conv] + ssm [H, P, N].
      {"Mamba-2", StateMixer::mamba2, 20 * 3 + 4 * 4 * 2},
      // Qwen3-Next: conv [2 h_k d_k + h_v d_v, k_conv] + recurrent [h_v, d_k, d_v].
      {"Gated DeltaNet", StateMixer::gated_deltanet, 20 * 3 + 4 * 2 * 3},
      {"attention (KV, not state)", StateMixer::none, 0},
  };
  for (const Row& r : rows) {
    INFO(r.label);
    CHECK(state_elements_per_layer(m, r.kind) == r.elements);
  }
}

TEST_CASE("hybrid state: bytes per layer, the conv state at b and the recurrent state at b_s [GU23] [DAO24] [YANG24]",
          "[hybrid][state][N2]") {
  struct Row {
    const char* label;
    StateMixer kind;
    bool fp32_state;  ///< the config declares a float32 recurrent state (Nemotron-H's mamba_ssm_cache_dtype)
    double conv;      ///< bytes
    double recurrent;
  };
  const std::vector<Row> rows = {
      // Mamba-1: conv [16, 3] = 48 elements at 2 B; ssm [16, 2] = 32 at 2 B, or at 4 B when declared.
      {"Mamba-1", StateMixer::mamba1, false, 96, 64},
      {"Mamba-1, fp32 state", StateMixer::mamba1, true, 96, 128},
      // Mamba-2: conv [20, 3] = 60; ssm [4, 4, 2] = 32.
      {"Mamba-2", StateMixer::mamba2, false, 120, 64},
      {"Mamba-2, fp32 state", StateMixer::mamba2, true, 120, 128},
      // Gated DeltaNet: conv [20, 3] = 60; recurrent [4, 2, 3] = 24.
      {"Gated DeltaNet", StateMixer::gated_deltanet, false, 120, 48},
      {"Gated DeltaNet, fp32 state", StateMixer::gated_deltanet, true, 120, 96},
      {"attention (no state)", StateMixer::none, true, 0, 0},
  };
  for (const Row& r : rows) {
    INFO(r.label);
    ModelConfig m = tiny({kMamba1});
    if (r.fp32_state) m.hybrid.state_dtype = DType::fp32;
    const LayerStateBytes b = state_bytes_per_layer(m, r.kind, 2.0);
    CHECK(b.conv.base() == r.conv);
    CHECK(b.recurrent.base() == r.recurrent);
  }
  // M_S is their sum over the state layers: (120 + 64) + (120 + 48) at b = b_s = 2.
  CHECK(state_bytes_per_sequence(tiny({kAttn, kMamba2, kAttn, kDelta}), 2.0).base() == 184.0 + 168.0);
}

TEST_CASE("hybrid cache: KV per token over the attention layers, plus the state per sequence [S000-eq1.1] [DAO24]",
          "[hybrid][state][memory]") {
  // Layers: attention, Mamba-2, attention, DeltaNet. KV 2 x 1 x 4 = 8 elements per token per attention
  // layer; state 92 + 84 elements.
  const ModelConfig m = tiny({kAttn, kMamba2, kAttn, kDelta});
  CHECK(m.attention_layers() == 2);
  CHECK(layer_windows(m).global_layers == 2);
  CHECK(kv_bytes_per_token(m, 2.0).base() == 2 * 8 * 2);
  CHECK(state_bytes_per_sequence(m, 2.0).base() == (92 + 84) * 2);
  for (double t : {0.0, 1.0, 1000.0, 1e9}) {
    INFO(t);
    CHECK(kv_bytes_per_sequence(m, t, 2.0).base() == 32.0 * t + 352.0);
  }
  // Concurrency: floor(free / (KV(T) + S)).
  const units::Bytes per_seq = kv_bytes_per_sequence(m, 100.0, 2.0);  // 3,200 + 352
  CHECK(max_concurrency(units::Bytes{1e6}, units::Bytes{0.0}, units::Bytes{0.0}, per_seq) == 281);
  // Longest context for a batch of 4 in 1e6 B: 4 (32 T + 352) <= 1e6 -> T = 7801.
  CHECK(max_context(m, units::Bytes{1e6}, 4, 2.0) == 7801);
  // A model without attention: the cache is the state alone, at any context.
  const ModelConfig ssm = tiny({kMamba2, kMamba2});
  CHECK(kv_bytes_per_token(ssm, 2.0).base() == 0.0);
  CHECK(max_context(ssm, units::Bytes{1e6}, 4, 2.0) == std::int64_t{1} << 40);
  CHECK(max_context(ssm, units::Bytes{1000}, 4, 2.0) == 0);  // 4 x 368 B do not fit
}

TEST_CASE("hybrid decode: each step reads the state; the closed-form generation sum agrees step by step",
          "[hybrid][decode]") {
  const ModelConfig m = tiny({kAttn, kMamba2, kAttn, kDelta});
  const ParamCounts c = count_params(m);
  const Machine hw{units::tflop_per_s(1e-9), units::tb_per_s(1e-9)};  // slow: the ridge sits near 1 FLOP/B
  const Workload w{.batch = 3, .context = 500, .prompt = 500, .output = 50};
  const DecodeStep s = decode_step(m, c, w, hw);
  CHECK(s.kv_bytes.base() == 3.0 * (32.0 * 500 + 352.0));
  double total = 0.0;
  Workload step = w;
  for (std::int64_t i = 0; i < w.output; ++i) {
    step.context = w.prompt + i;
    total += decode_step(m, c, step, hw).t_step.base();
  }
  const GenerationTime g = generation_timing(m, c, w, hw);
  CHECK_THAT(g.total.base(), WithinRel(total, 1e-12));
  CHECK_THAT(g.first_step.base(), WithinRel(s.t_step.base(), 1e-12));
}
