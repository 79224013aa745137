// Decode bytes for MoE and embeddings, the compute-bound batch, the longest context.
#include "roofline/decode.hpp"

#include "roofline/flops.hpp"
#include "roofline/memory.hpp"
#include "roofline/params.hpp"

#include <catch2/catch.hpp>

#include <cmath>

#include "seed_models.hpp"

using namespace roofline;
using Catch::Matchers::WithinRel;

namespace {
// Mixtral 8x7B dimensions (config.json): 32 layers, d 4096, GQA 32/8, 8 experts of 14336, top-2.
ModelConfig mixtral() {
  ModelConfig m;
  m.n_layers = 32;
  m.d_model = 4096;
  m.n_heads = 32;
  m.n_kv_heads = 8;
  m.head_dim = 128;
  m.d_ff = 14336;
  m.vocab_size = 32000;
  m.moe.n_experts = 8;
  m.moe.top_k = 2;
  m.moe.d_ff_expert = 14336;
  return m;
}
}  // namespace

TEST_CASE("expected experts touched: E (1 - (1 - k/E)^n) [SH17]", "[decode]") {
  CHECK_THAT(expected_experts_touched(8, 2, 1), WithinRel(2.0, 1e-12));
  CHECK_THAT(expected_experts_touched(8, 2, 2), WithinRel(8.0 * (1.0 - 0.75 * 0.75), 1e-12));  // 3.5
  CHECK_THAT(expected_experts_touched(256, 8, 1e6), WithinRel(256.0, 1e-12));
}

TEST_CASE("MoE decode reads top-k experts at batch 1 and all of them at large batch", "[decode]") {
  const ModelConfig m = mixtral();
  const ParamCounts c = count_params(m);
  const double embed_saved = static_cast<double>(c.embedding) - static_cast<double>(m.d_model);
  // Batch 1: the active parameters minus the embedding rows not gathered.
  CHECK_THAT(params_read(m, c, 1, DecodeBytes::touched, MoeDecodeBytes::expected),
             WithinRel(static_cast<double>(c.active) - embed_saved, 1e-12));
  CHECK_THAT(params_read(m, c, 1, DecodeBytes::touched, MoeDecodeBytes::top_k),
             WithinRel(static_cast<double>(c.active) - embed_saved, 1e-12));
  CHECK_THAT(params_read(m, c, 1, DecodeBytes::touched, MoeDecodeBytes::all_experts),
             WithinRel(static_cast<double>(c.total) - embed_saved, 1e-12));
  CHECK_THAT(params_read(m, c, 1, DecodeBytes::all_weights, MoeDecodeBytes::expected),
             WithinRel(static_cast<double>(c.total), 1e-12));
  // 4096 tokens touch every expert to within (3/4)^4096 of certainty.
  const double big = params_read(m, c, 4096, DecodeBytes::touched, MoeDecodeBytes::expected);
  CHECK_THAT(big, WithinRel(static_cast<double>(c.total) - static_cast<double>(c.embedding) + 4096.0 * 4096.0, 1e-12));
}

TEST_CASE(
    "zero-computation experts: a token reaches k_e = k (1 - s) FFN experts, which sets the active count and "
    "the expert reads [LC25]",
    "[decode][moe]") {
  // Table-driven: Mixtral's widths with 8 zero experts beside the 8 FFN experts and top-4 routing.
  struct Row {
    double share;
    double k_e;  // expected FFN experts a token
    double tokens;
  };
  ModelConfig base = mixtral();
  base.moe.top_k = 4;
  base.moe.zero_experts = 8;
  const std::int64_t one = 3LL * 4096 * 14336;  // one FFN expert's gate, up and down
  for (const Row& r : {Row{0.0, 4.0, 1}, Row{0.5, 2.0, 1}, Row{0.5, 2.0, 4}, Row{0.75, 1.0, 3}}) {
    INFO("share " << r.share << ", " << r.tokens << " tokens");
    ModelConfig m = base;
    m.moe.zero_share = r.share;
    CHECK(m.moe.ffn_experts_per_token() == r.k_e);
    const ParamCounts c = count_params(m);
    // The router scores the 16 outputs; its size and the total do not depend on the share.
    CHECK(c.total == count_params(base).total);
    // Active: 32 layers of k_e experts instead of k.
    CHECK(c.active == count_params(base).active - static_cast<std::int64_t>((4.0 - r.k_e) * 32) * one);
    // Reads: E (1 - (1 - k_e/E)^n) of the 8 FFN experts a layer.
    const double touched = 8.0 * (1.0 - std::pow(1.0 - r.k_e / 8.0, r.tokens));
    const double all = params_read(m, c, r.tokens, DecodeBytes::touched, MoeDecodeBytes::all_experts);
    CHECK_THAT(params_read(m, c, r.tokens, DecodeBytes::touched, MoeDecodeBytes::expected),
               WithinRel(all - 32.0 * static_cast<double>(one) * (8.0 - touched), 1e-12));
  }
  CHECK(count_params(base).total - count_params(mixtral()).total == 32LL * 4096 * 8);  // the 8 more router rows
}

TEST_CASE("a tied embedding is read whole by the head", "[decode]") {
  ModelConfig m = mixtral();
  m.moe = {};
  m.tied_embeddings = true;
  const ParamCounts c = count_params(m);
  CHECK(params_read(m, c, 1, DecodeBytes::touched, MoeDecodeBytes::expected) == static_cast<double>(c.total));
}

TEST_CASE("decode turns compute-bound at the batch where B F/P = W/BW (weights only)", "[decode]") {
  ModelConfig m = mixtral();
  m.moe = {};
  const ParamCounts c = count_params(m);
  Workload w;
  w.context = 0;
  w.decode_bytes = DecodeBytes::all_weights;
  const Machine hw{units::tflop_per_s(989.4), units::tb_per_s(3.35)};
  const auto b = decode_compute_bound_batch(m, c, w, hw);
  REQUIRE(b.has_value());
  // Smallest B with B * 2 N_phys / P >= 2 N / BW.
  const double n_phys = 2.0 * static_cast<double>(flop_params(c, FlopBasis::physical));
  const double exact = (2.0 * static_cast<double>(c.total) / 3.35e12) / (n_phys / 989.4e12);
  CHECK(*b == static_cast<std::int64_t>(std::ceil(exact)));
  w.batch = *b - 1;
  CHECK(decode_step(m, c, w, hw).bound == Bound::memory);
  w.batch = *b;
  CHECK(decode_step(m, c, w, hw).bound == Bound::compute);
}

TEST_CASE("longest context: the largest T with B M_KV(T) <= free", "[memory]") {
  ModelConfig m = mixtral();
  const double per_token = kv_bytes_per_token(m, 2.0).base();  // 131,072 B
  CHECK(max_context(m, units::Bytes{per_token * 1000.0}, 1, 2.0) == 1000);
  CHECK(max_context(m, units::Bytes{per_token * 1000.0 - 1.0}, 1, 2.0) == 999);
  CHECK(max_context(m, units::Bytes{per_token * 1000.0}, 4, 2.0) == 250);
  CHECK(max_context(m, units::Bytes{per_token / 2.0}, 1, 2.0) == 0);
  // Every layer sliding: the cache stops growing at the window, so any context fits.
  m.sliding_window = 4096;
  m.global_every = 0;
  CHECK(max_context(m, units::Bytes{per_token * 4096.0}, 1, 2.0) == std::int64_t{1} << 40);
}

TEST_CASE("concurrency floors and reports zero when nothing is free [S003-3.4]", "[memory]") {
  CHECK(max_concurrency(units::gb(192), units::Bytes{137953296384.0}, {}, units::Bytes{1342177280.0}) == 40);
  CHECK(max_concurrency(units::gb(100), units::gb(120), {}, units::gb(1)) == 0);
}

TEST_CASE("generation time sums each step over the growing cache [S003-2.5]", "[decode]") {
  ModelConfig m = mixtral();
  m.moe = {};
  const ParamCounts c = count_params(m);
  Workload w;
  w.prompt = 1000;
  w.output = 100;
  w.decode_bytes = DecodeBytes::all_weights;
  const Machine hw{units::tflop_per_s(989.4), units::tb_per_s(3.35)};
  // Memory-bound at batch 1: t(T) = (W + k T) / BW, so the sum is (O W + k (O S + O (O - 1) / 2)) / BW.
  const double weights = 2.0 * static_cast<double>(c.total);
  const double k = kv_bytes_per_token(m, 2.0).base();
  const double expected = (100.0 * weights + k * (100.0 * 1000.0 + 100.0 * 99.0 / 2.0)) / 3.35e12;
  CHECK_THAT(generation_time(m, c, w, hw).base(), WithinRel(expected, 1e-12));
  w.output = 0;
  CHECK(generation_time(m, c, w, hw).base() == 0.0);
}

TEST_CASE("inference memory M_w + R + B M_KV(T) [S003-3.4]: Llama-2-70B on a 192 GB MI300X holds 40 sequences",
          "[memory]") {
  // Seed 003 §5.2: fp16 weights 137.95 GB, 54.05 GB left for KV, 1.34 GB a 4,096-token sequence
  // (GQA), so 40 concurrent. The weights and KV come from the model, not from the seed's figures.
  const ModelConfig m = test_models::llama2_70b();
  const units::Bytes weights{static_cast<double>(count_params(m).total) * 2.0};
  const units::Bytes kv = kv_bytes_per_sequence(m, 4096.0, 2.0);
  CHECK(std::round(weights.in(units::kGB)*100.0) / 100.0 == 137.95);
  CHECK(std::round(kv.in(units::kGB)*100.0) / 100.0 == 1.34);
  const units::Bytes capacity = units::gb(192);
  CHECK(inference_bytes(weights, units::Bytes{0.0}, kv, 40.0) <= capacity);
  CHECK(inference_bytes(weights, units::Bytes{0.0}, kv, 41.0) > capacity);
  // A 2 GB reserve leaves 52.05 GB for KV: 38 sequences of 1.342 GB (52.05 / 1.342 = 38.8).
  CHECK(inference_bytes(weights, units::gb(2), kv, 38.0) <= capacity);
  CHECK(inference_bytes(weights, units::gb(2), kv, 39.0) > capacity);
}

TEST_CASE("8 GiB of int8 KV: 8,192 tokens of 64 layers of width 8,192 (scaling-book transformers.md)", "[memory]") {
  // 2 (K and V) x 8192 tokens x 64 layers x 8192 x 1 byte, through the KV function.
  const ModelConfig m = test_models::with_layers(test_models::textbook(8192), 64);
  CHECK(kv_bytes_per_sequence(m, 8192.0, 1.0).base() == units::gib(8).base());
}

TEST_CASE("speculative decoding: expected tokens per target step and Leviathan's bound [LE23-3.1] [LE23-3.8]",
          "[decode]") {
  struct Row {
    double alpha, gamma, tokens;
    const char* why;
  };
  const Row rows[] = {
      {0.8, 4, 3.3616, "(1 - 0.8^5) / 0.2 = 0.67232 / 0.2"}, {0.5, 2, 1.75, "(1 - 0.125) / 0.5"},
      {1.0, 3, 4.0, "every draft accepted: γ + 1"},          {0.0, 5, 1.0, "nothing accepted: the target's own token"},
      {0.9, 1, 1.9, "(1 - 0.81) / 0.1, one MTP module"},
  };
  for (const Row& r : rows) {
    INFO(r.why);
    CHECK_THAT(speculative_tokens_per_step(r.alpha, r.gamma), Catch::Matchers::WithinRel(r.tokens, 1e-12));
  }
  // A free draft (c = 0) bounds the speedup by the expected tokens; c = 0.1, γ = 4: 3.3616 / 1.4.
  CHECK(speculative_speedup_bound(0.8, 4, 0.0) == speculative_tokens_per_step(0.8, 4));
  CHECK_THAT(speculative_speedup_bound(0.8, 4, 0.1), Catch::Matchers::WithinRel(3.3616 / 1.4, 1e-12));
}

// α^(γ+1) was a loop of γ + 1 multiplications, so --draft-len 1e18 never returned (reliability
// review 2026-12-01, N1); for γ → ∞ the expected tokens tend to 1 / (1 - α)  [LE23-3.1]
TEST_CASE("speculative tokens per step at a draft length of 2^62 answer at once", "[decode][N1]") {
  CHECK_THAT(speculative_tokens_per_step(0.8, 1e18), Catch::Matchers::WithinRel(5.0, 1e-12));
  CHECK_THAT(speculative_tokens_per_step(0.5, 4611686018427387904.0), Catch::Matchers::WithinRel(2.0, 1e-12));
  CHECK(speculative_speedup_bound(0.8, 1e18, 1.0) < 1e-17);  // γ c + 1 = 10^18 + 1 target steps a cycle
}

TEST_CASE("a verification step reads the weights and the cache once and multiplies the FLOPs [LE23-3]", "[decode]") {
  const ModelConfig m = test_models::llama3_8b();
  const ParamCounts c = count_params(m);
  Workload w;
  w.batch = 8;
  w.context = 4096;
  const Machine hw{.peak = units::FlopPerSecond{989.4e12}, .bandwidth = units::BytesPerSecond{3.35e12}};
  const DecodeStep one = decode_step(m, c, w, hw);
  const DecodeStep same = verification_step(m, c, w, hw, 1.0);
  CHECK(same.bytes == one.bytes);
  CHECK(same.flops == one.flops);
  const DecodeStep five = verification_step(m, c, w, hw, 5.0);
  // A dense model reads the same weights for 40 tokens as for 8 (the untied table's rows aside:
  // 32 more rows of 4096 at 2 B), and the same cache; the FLOPs are five times.
  CHECK(five.kv_bytes == one.kv_bytes);
  CHECK(five.weight_bytes.base() == one.weight_bytes.base() + 32.0 * 4096 * 2);
  CHECK(five.flops.base() == 5.0 * one.flops.base());
}

TEST_CASE("paged KV: a cache occupies whole blocks [KW23-4.2]", "[decode]") {
  struct Row {
    double tokens, block, paged;
  };
  const Row rows[] = {{1280, 16, 1280}, {1281, 16, 1296}, {1, 16, 16}, {0, 16, 0}, {1000, 1, 1000}, {4097, 256, 4352}};
  for (const Row& r : rows) {
    INFO(r.tokens << " tokens in blocks of " << r.block);
    CHECK(paged_tokens(r.tokens, r.block) == r.paged);
  }
}

TEST_CASE("a server at steady state: N decode tokens at S + O/2 and N (S - P)/O prompt tokens a step [KW23]",
          "[decode]") {
  const ModelConfig m = test_models::llama3_8b();
  const ParamCounts c = count_params(m);
  Workload w;
  w.prompt = 1024;
  w.output = 256;
  const Machine hw{.peak = units::FlopPerSecond{989.4e12}, .bandwidth = units::BytesPerSecond{3.35e12}};
  const SteadyState s = steady_state(m, c, w, hw, 64, 0);
  CHECK(s.mean_context == 1152.0);   // 1024 + 256/2
  CHECK(s.prefill_tokens == 256.0);  // 64 x 1024 / 256
  // The decode part is a decode step of 64 sequences at 1,152 tokens.
  Workload d = w;
  d.batch = 64;
  d.context = 1152;
  const DecodeStep step = decode_step(m, c, d, hw);
  CHECK(s.decode_flops == step.flops);
  CHECK(s.kv_read == step.kv_bytes);
  // The prompt part is a quarter of a prompt's prefill FLOPs per sequence: 64/256 prefills a step.
  CHECK(s.prefill_flops.base() == 0.25 * prefill_flops(m, c, 1024, w.basis, w.lm_head, w.attention).base());
  // A 512-token shared prefix halves the prompt tokens a step and removes its prefill.
  const SteadyState shared = steady_state(m, c, w, hw, 64, 512);
  CHECK(shared.prefill_tokens == 128.0);
  CHECK(shared.prefill_flops < s.prefill_flops);
  CHECK(s.tokens_per_s == 64.0 / s.t_step.base());
  CHECK(s.requests_per_s == s.tokens_per_s / 256.0);
}
