// Closed forms that replace loops: layer windows (O(1) per-layer sums), the generation sum
// (O(1) in the output length), and counts that saturate instead of overflowing.
//
// Each closed form is checked against the loop it replaced, kept here as the reference.
#include "roofline/checked.hpp"
#include "roofline/decode.hpp"
#include "roofline/flops.hpp"
#include "roofline/memory.hpp"
#include "roofline/misc.hpp"
#include "roofline/params.hpp"
#include "roofline/roofline.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "seed_models.hpp"

using namespace roofline;
using namespace roofline::test_models;
using Catch::Matchers::WithinRel;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
const Machine kH100{units::tflop_per_s(989.4), units::tb_per_s(3.35)};

// --- Models ---------------------------------------------------------------------------------

/// Gemma-2-like: a sliding window on every other layer (global_every = 2).
ModelConfig gemma2_like(std::int64_t window) {
  ModelConfig m = llama3_8b();
  m.sliding_window = window;
  m.global_every = 2;
  return m;
}

/// Mistral-7B-v0.1-like: every layer slides (global_every = 0).
ModelConfig mistral_like(std::int64_t window) {
  ModelConfig m = llama3_8b(32'000);
  m.sliding_window = window;
  m.global_every = 0;
  return m;
}

/// Mixtral 8x7B (config.json): GQA 32/8, 8 experts of 14336, top-2.
ModelConfig mixtral() {
  ModelConfig m = llama3_8b(32'000);
  m.moe.n_experts = 8;
  m.moe.top_k = 2;
  m.moe.d_ff_expert = 14'336;
  return m;
}

/// DeepSeek-V2-Lite-like (config.json): MLA (d_c 512, d_R 64, nope 128, v 128, no q rank), 64 routed
/// experts top-6 of 1408, 2 shared, first layer dense.
ModelConfig deepseek_v2_lite() {
  ModelConfig m;
  m.name = "deepseek-v2-lite";
  m.n_layers = 27;
  m.d_model = 2048;
  m.n_heads = 16;
  m.n_kv_heads = 16;
  m.head_dim = 128;
  m.d_ff = 10'944;
  m.vocab_size = 102'400;
  m.mla = {.q_lora_rank = 0, .kv_lora_rank = 512, .qk_rope_head_dim = 64, .qk_nope_head_dim = 128, .v_head_dim = 128};
  m.moe.n_experts = 64;
  m.moe.top_k = 6;
  m.moe.d_ff_expert = 1408;
  m.moe.n_shared_experts = 2;
  m.moe.d_ff_shared = 1408;
  m.moe.first_dense_layers = 1;
  return m;
}

// --- The loops the closed forms replaced ----------------------------------------------------

double ref_keys(const ModelConfig& m, double context) {
  double keys = 0.0;
  for (std::int64_t i = 0; i < m.n_layers; ++i) {
    keys += m.is_sliding_layer(i) ? std::min(context, static_cast<double>(m.sliding_window)) : context;
  }
  return keys;
}

double ref_prefill_pairs(const ModelConfig& m, double s, AttentionMode mode) {
  double pairs = 0.0;
  for (std::int64_t i = 0; i < m.n_layers; ++i) {
    pairs += attention_pairs(s, m.is_sliding_layer(i) ? m.sliding_window : 0, mode);
  }
  return pairs;
}

struct RefGeneration {
  double total = 0.0;
  double first = 0.0;
  double last = 0.0;
  double compute_bound = 0.0;
};

// sum_{i<O} t_step(T = S + i), one decode_step per token.
RefGeneration ref_generation(const ModelConfig& m, const ParamCounts& c, const Workload& w, Machine hw) {
  RefGeneration r;
  Workload step = w;
  for (std::int64_t i = 0; i < w.output; ++i) {
    step.context = w.prompt + i;
    const DecodeStep d = decode_step(m, c, step, hw);
    r.total += d.t_step.base();
    if (i == 0) r.first = d.t_step.base();
    r.last = d.t_step.base();
    if (d.bound == Bound::compute) r.compute_bound += 1.0;
  }
  return r;
}

}  // namespace

// ============================================================================================
// Layer windows
// ============================================================================================

TEST_CASE("layer windows: L_g = floor(L / g), L_s = L - L_g, as counting every layer [S000-eq1.1]", "[layers]") {
  struct Row {
    const char* label;
    std::int64_t layers, window, global_every;
    LayerWindows expected;
  };
  const std::vector<Row> rows = {
      {"llama: no window", 32, 0, 0, {32, 0, 0}},
      {"mistral-7b-v0.1: every layer slides", 32, 4096, 0, {0, 32, 4096}},
      {"gemma-2-9b: alternating", 42, 4096, 2, {21, 21, 4096}},
      {"gemma-3-27b: 5 local to 1 global", 62, 1024, 6, {10, 52, 1024}},
      {"global_every = 1: no layer slides", 12, 512, 1, {12, 0, 512}},
      {"global_every > L: every layer slides", 5, 512, 8, {0, 5, 512}},
  };
  for (const Row& r : rows) {
    INFO(r.label);
    ModelConfig m = llama3_8b();
    m.n_layers = r.layers;
    m.sliding_window = r.window;
    m.global_every = r.global_every;
    const LayerWindows lw = layer_windows(m);
    CHECK(lw.global_layers == r.expected.global_layers);
    CHECK(lw.sliding_layers == r.expected.sliding_layers);
    CHECK(lw.window == r.expected.window);
  }
  CHECK(layer_windows(gemma2_like(4096)).sliding_layers == 16);
  STATIC_REQUIRE(attended_keys(LayerWindows{.global_layers = 21, .sliding_layers = 21, .window = 4096}, 8192.0) ==
                 21.0 * 8192 + 21.0 * 4096);
}

TEST_CASE("layer windows agree with is_sliding_layer for every L, g and W", "[layers]") {
  for (std::int64_t layers = 1; layers <= 70; ++layers) {
    for (std::int64_t g = 0; g <= 9; ++g) {
      for (std::int64_t window : {std::int64_t{0}, std::int64_t{1}, std::int64_t{4096}}) {
        ModelConfig m = llama3_8b();
        m.n_layers = layers;
        m.sliding_window = window;
        m.global_every = g;
        std::int64_t sliding = 0;
        for (std::int64_t i = 0; i < layers; ++i) sliding += m.is_sliding_layer(i) ? 1 : 0;
        CAPTURE(layers, g, window);
        const LayerWindows lw = layer_windows(m);
        REQUIRE(lw.sliding_layers == sliding);
        REQUIRE(lw.global_layers == layers - sliding);
        for (double t : {0.0, 1.0, 4095.0, 4096.0, 4097.0, 131072.0}) REQUIRE(attended_keys(lw, t) == ref_keys(m, t));
      }
    }
  }
}

TEST_CASE("per-layer sums in O(1) equal the per-layer loops bit for bit [S000-eq1.1] [S003-2.3] [S003-2.4]",
          "[layers]") {
  const std::vector<ModelConfig> models = {llama3_8b(),        llama2_7b(),    gpt3_175b(),       gemma2_like(4096),
                                           mistral_like(4096), gemma2_like(1), deepseek_v2_lite()};
  for (const ModelConfig& m : models) {
    const double per_key = static_cast<double>(kv_elements_per_token_layer(m)) * 2.0;
    const double a = attention_flops_per_pair(m);
    for (double t : {0.0, 1.0, 1000.0, 4096.0, 4097.0, 8192.0, 131072.0}) {
      CAPTURE(m.name, m.sliding_window, m.global_every, t);
      CHECK(kv_bytes_per_sequence(m, t, 2.0).base() == per_key * ref_keys(m, t));
      CHECK(attention_flops_decode_token(m, t).base() == a * ref_keys(m, t));
      for (AttentionMode mode : {AttentionMode::causal, AttentionMode::full}) {
        CHECK(attention_flops_prefill(m, t, mode).base() == a * ref_prefill_pairs(m, t, mode));
      }
    }
  }
}

TEST_CASE("longest context with windows: the largest T with B M_KV(T) <= free [S003-3.4]", "[layers]") {
  const ModelConfig m = gemma2_like(4096);
  const double per_key = static_cast<double>(kv_elements_per_token_layer(m)) * 2.0;  // 4096 B
  // T > W: M_KV(T) = per_key (16 T + 16 W); at 10,000 tokens 16 (10,000 + 4,096) keys.
  const units::Bytes free{per_key * 16.0 * (10'000.0 + 4096.0)};
  CHECK(max_context(m, free, 1, 2.0) == 10'000);
  CHECK(max_context(m, free - units::Bytes{1.0}, 1, 2.0) == 9'999);
  // Below the window every layer grows: 32 T.
  CHECK(max_context(m, units::Bytes{per_key * 32.0 * 1000.0}, 1, 2.0) == 1000);
  // A huge budget is capped, not overflowed.
  CHECK(max_context(m, units::Bytes{1e300}, std::int64_t{1} << 62, 2.0) == std::int64_t{1} << 40);
}

// ============================================================================================
// Generation time in closed form
// ============================================================================================

TEST_CASE("generation time in closed form equals the per-token loop [S003-2.5]", "[generation]") {
  struct Row {
    const char* label;
    ModelConfig model;
    std::int64_t batch, prompt, output;
    Machine hw;
    bool crosses_window = false;  ///< prompt < W < prompt + output
    bool switches = false;        ///< some steps memory-bound and some compute-bound
  };
  // A machine whose ridge (1 FLOP/B) is below the attention's FLOP per KV byte, so a long context
  // turns the step compute-bound (the opposite switch of a GPU's).
  const Machine slow_peak{units::flop_per_s(1.0e12), units::bytes_per_s(1.0e12)};
  const Machine no_peak{units::FlopPerSecond{kInf}, units::tb_per_s(3.35)};
  const std::vector<Row> rows = {
      {"dense MHA, memory-bound", llama2_7b(), 1, 1000, 700, kH100},
      {"dense GQA, compute-bound then memory-bound", llama3_8b(), 512, 0, 400, kH100, false, true},
      {"dense GQA, memory-bound then compute-bound (ridge 1)", llama3_8b(), 1, 0, 3000, slow_peak, false, true},
      {"dense, unknown peak (memory side only)", llama3_8b(), 8, 100, 300, no_peak},
      {"gemma-2-like, crossing the window", gemma2_like(256), 1, 100, 400, kH100, true},
      {"gemma-2-like, crossing the window and the switch", gemma2_like(256), 600, 100, 400, kH100, true, true},
      {"gemma-2-like, switch past the window (ridge 1)", gemma2_like(1000), 1, 0, 3000, slow_peak, true, true},
      {"mistral-like all sliding, crossing the window", mistral_like(256), 1, 200, 300, kH100, true},
      {"mistral-like all sliding, window and switch", mistral_like(256), 900, 0, 400, kH100, true, true},
      {"mistral-like, prompt past the window", mistral_like(256), 4, 1000, 50, kH100},
      {"MLA + MoE (DeepSeek-V2-Lite-like)", deepseek_v2_lite(), 4, 500, 400, kH100},
      {"MLA + MoE, compute-bound then memory-bound", deepseek_v2_lite(), 2048, 0, 1500, kH100, false, true},
      {"MoE (Mixtral), expected experts", mixtral(), 16, 300, 300, kH100},
      {"MoE (Mixtral), compute-bound then memory-bound", mixtral(), 2048, 0, 400, kH100, false, true},
  };
  for (const Row& r : rows) {
    INFO(r.label);
    const ParamCounts c = count_params(r.model);
    const Workload w{.batch = r.batch, .prompt = r.prompt, .output = r.output};
    const RefGeneration ref = ref_generation(r.model, c, w, r.hw);
    const GenerationTime g = generation_timing(r.model, c, w, r.hw);
    CHECK_THAT(g.total.base(), WithinRel(ref.total, 1e-12));
    CHECK_THAT(generation_time(r.model, c, w, r.hw).base(), WithinRel(ref.total, 1e-12));
    CHECK_THAT(g.mean_step.base(), WithinRel(ref.total / static_cast<double>(r.output), 1e-12));
    CHECK_THAT(g.first_step.base(), WithinRel(ref.first, 1e-12));
    CHECK_THAT(g.last_step.base(), WithinRel(ref.last, 1e-12));
    CHECK(g.compute_bound_steps == ref.compute_bound);
    // The row exercises what its label says.
    const double window = static_cast<double>(r.model.sliding_window);
    CHECK(r.crosses_window ==
          (window > static_cast<double>(r.prompt) && window < static_cast<double>(r.prompt + r.output)));
    CHECK(r.switches == (ref.compute_bound > 0.0 && ref.compute_bound < static_cast<double>(r.output)));
  }
}

TEST_CASE("generation time: exact sums for a billion-fold output [S003-2.5]", "[generation]") {
  const double o = 1e15;
  Workload w{.batch = 1, .prompt = 1000, .output = static_cast<std::int64_t>(o)};
  w.decode_bytes = DecodeBytes::all_weights;
  SECTION("dense, memory-bound: (O W + k (O S + O (O - 1) / 2)) / BW") {
    ModelConfig m = llama3_8b();
    const ParamCounts c = count_params(m);
    const Machine no_peak{units::FlopPerSecond{kInf}, units::tb_per_s(3.35)};
    const double weights = 2.0 * static_cast<double>(c.total);
    const double k = kv_bytes_per_token(m, 2.0).base();
    const double expected = (o * weights + k * (o * 1000.0 + o * (o - 1.0) / 2.0)) / 3.35e12;
    const GenerationTime g = generation_timing(m, c, w, no_peak);
    CHECK_THAT(g.total.base(), WithinRel(expected, 1e-12));
    CHECK_THAT(g.last_step.base(), WithinRel((weights + k * (1000.0 + o - 1.0)) / 3.35e12, 1e-12));
    CHECK(g.compute_bound_steps == 0.0);
  }
  SECTION("all layers sliding, past the window: every step the same, O t(W)") {
    const ModelConfig m = mistral_like(256);
    const ParamCounts c = count_params(m);
    const double weights = 2.0 * static_cast<double>(c.total);
    const double cache = kv_bytes_per_token(m, 2.0).base() * 256.0;
    const GenerationTime g = generation_timing(m, c, w, kH100);
    CHECK_THAT(g.total.base(), WithinRel(o * (weights + cache) / 3.35e12, 1e-12));
    CHECK(g.first_step == g.last_step);
  }
}

TEST_CASE("generation time: extreme counts stay finite (token arithmetic in double)", "[generation]") {
  const ModelConfig m = gemma2_like(4096);
  const ParamCounts c = count_params(m);
  // S + O = 2^63 + 2^62 - 1 > INT64_MAX: nothing is summed in int64.
  const Workload w{
      .batch = 1, .prompt = std::int64_t{1} << 62, .output = (std::int64_t{1} << 62) + ((std::int64_t{1} << 62) - 1)};
  const GenerationTime g = generation_timing(m, c, w, kH100);
  REQUIRE(std::isfinite(g.total.base()));
  const double o = static_cast<double>(w.output);
  CHECK(g.first_step <= g.last_step);
  CHECK(g.total.base() >= o * g.first_step.base() * (1.0 - 1e-12));
  CHECK(g.total.base() <= o * g.last_step.base() * (1.0 + 1e-12));
  // Nothing to generate.
  CHECK(generation_timing(m, c, Workload{.output = 0}, kH100).total.base() == 0.0);
  CHECK(generation_timing(m, c, Workload{.output = -5}, kH100).last_step.base() == 0.0);
  // The serve path at 10^15 output tokens: no timing, just a call that returns.
  CHECK(generation_time(deepseek_v2_lite(), count_params(deepseek_v2_lite()),
                        Workload{.batch = 64, .prompt = 4096, .output = 1'000'000'000'000'000}, kH100)
            .base() > 0.0);
}

// ============================================================================================
// Roofline time in decode and prefill, counts that saturate
// ============================================================================================

TEST_CASE("decode and prefill with an unknown (infinite) peak give the memory time [WI09]", "[roofline]") {
  const ModelConfig m = llama3_8b();
  const ParamCounts c = count_params(m);
  const Machine no_peak{units::FlopPerSecond{kInf}, units::tb_per_s(3.35)};
  const Workload w{.batch = 4, .context = 1000, .prompt = 2048};
  const DecodeStep d = decode_step(m, c, w, no_peak);
  CHECK(d.t_compute.base() == 0.0);
  CHECK(d.t_step == d.t_memory);
  CHECK(d.t_step == roofline_time(d.flops, d.bytes, no_peak.peak, no_peak.bandwidth));
  CHECK(d.bound == Bound::memory);
  const PrefillPass p = prefill_pass(m, c, w, no_peak);
  CHECK(p.t_floor == p.t_memory);
  CHECK(p.bound == Bound::memory);
  // With a peak, the same primitives as the gemm command.
  const DecodeStep h = decode_step(m, c, w, kH100);
  CHECK(h.t_step == roofline_time(h.flops, h.bytes, kH100.peak, kH100.bandwidth));
  CHECK(h.bound == bound_of(h.flops, h.bytes, kH100.peak, kH100.bandwidth));
}

TEST_CASE("concurrency saturates instead of overflowing [S003-3.4]", "[memory]") {
  const units::Bytes weights{137953296384.0};
  const units::Bytes kv{1342177280.0};
  CHECK(max_concurrency(units::gb(192), weights, {}, kv) == 40);
  // R5: 1e300 B of memory printed -9223372036854775808.
  CHECK(max_concurrency(units::Bytes{1e300}, weights, {}, kv) == kMaxCount);
  CHECK(max_concurrency(units::Bytes{kInf}, weights, {}, kv) == kMaxCount);
  // No KV at this context: unbounded, unless nothing is free.
  CHECK_FALSE(max_concurrency(units::gb(192), weights, {}, units::Bytes{}).has_value());
  CHECK(max_concurrency(units::gb(100), weights, {}, units::Bytes{}) == 0);
  // The reserve comes out of the budget, as free_memory says.
  CHECK(max_concurrency(units::gb(192), weights, units::Bytes{54046703616.0 - 39.0 * 1342177280.0}, kv) == 39);
  CHECK(devices_for_weights(units::Bytes{1e300}, units::Bytes{1.0}) == kMaxCount);
  CHECK(devices_for_weights(units::gb(140), units::gb(80)) == 2);
  STATIC_REQUIRE(saturated_count(-1.0) == 0);
  STATIC_REQUIRE(saturated_count(std::numeric_limits<double>::quiet_NaN()) == 0);
  STATIC_REQUIRE(saturated_count(41.9) == 41);
  STATIC_REQUIRE(saturated_count(9.3e18) == kMaxCount);
}

// ============================================================================================
// MoE: experts by field; the compute-bound batch
// ============================================================================================

TEST_CASE("routed experts are a field of the layer kind, not a component name [SH17]", "[params]") {
  const ParamCounts c = count_params(deepseek_v2_lite());
  REQUIRE(c.layer_kinds.size() == 2);
  CHECK(c.layer_kinds[0].routed_experts_params == 0);  // the dense first layer
  CHECK(c.layer_kinds[1].routed_experts_params == 64 * 3 * 2048 * 1408);
  const ParamCounts x = count_params(mixtral());
  CHECK(x.layer_kinds.at(0).routed_experts_params == std::int64_t{8} * 3 * 4096 * 14'336);
}

TEST_CASE("MoE compute-bound batch: the bisection lands on the first compute-bound batch [S003-2.4]", "[decode]") {
  // B F/P >= (W(B) + B M_KV)/BW is monotone in B because W(B)/B falls (W is concave in B), so
  // doubling and bisection find the first B.
  for (const ModelConfig& m : {mixtral(), deepseek_v2_lite()}) {
    const ParamCounts c = count_params(m);
    for (std::int64_t context : {0, 256}) {
      Workload w{.context = context};
      const auto b = decode_compute_bound_batch(m, c, w, kH100);
      CAPTURE(m.name, context);
      REQUIRE(b.has_value());
      w.batch = *b - 1;
      CHECK(decode_step(m, c, w, kH100).bound == Bound::memory);
      w.batch = *b;
      CHECK(decode_step(m, c, w, kH100).bound == Bound::compute);
      w.batch = *b + 1;
      CHECK(decode_step(m, c, w, kH100).bound == Bound::compute);
    }
  }
  // Without a peak nothing is compute-bound: none, after at most 31 + 30 steps.
  CHECK_FALSE(decode_compute_bound_batch(mixtral(), count_params(mixtral()), Workload{},
                                         Machine{units::FlopPerSecond{kInf}, units::tb_per_s(3.35)})
                  .has_value());
}
