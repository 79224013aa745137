// DeepSeek Sparse Attention (DSA, DeepSeek-V3.2, issue 22): the lightning indexer's weights, its
// key cache beside the MLA latent, and decode and prefill attention over the top k selected keys
// while the indexer scores every cached one. Hand-counted on a tiny MLA model from the indexer's
// tensor shapes (wq_b, wk, k_norm, weights_proj) and I_ts = sum_j w_tj ReLU(q_tj . k_s)  [DS25]
#include "roofline/decode.hpp"
#include "roofline/flops.hpp"
#include "roofline/layer_stack.hpp"
#include "roofline/memory.hpp"
#include "roofline/params.hpp"
#include "roofline/training_memory.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace roofline;

namespace {

// d = 16, L = 3, V = 10, d_ff = 8; MLA h = 2, q rank 8, kv rank 4, rope 2, nope 3, v 3; indexer
// H_I = 2, d_I = 4, top k = 5.
ModelConfig tiny_dsa() {
  ModelConfig m;
  m.n_layers = 3;
  m.d_model = 16;
  m.n_heads = 2;
  m.n_kv_heads = 2;
  m.head_dim = 5;
  m.d_ff = 8;
  m.vocab_size = 10;
  m.mla = {.q_lora_rank = 8, .kv_lora_rank = 4, .qk_rope_head_dim = 2, .qk_nope_head_dim = 3, .v_head_dim = 3};
  m.indexer = {.n_heads = 2, .head_dim = 4, .topk = 5};
  return m;
}

ModelConfig dense_of(ModelConfig m) {
  m.indexer = {};
  return m;
}

}  // namespace

TEST_CASE("dsa: the indexer's parameters, per layer, by hand [DS25]", "[engine][dsa]") {
  const ModelConfig m = tiny_dsa();
  REQUIRE(validate(m).empty());
  // wq_b q_rank x H_I d_I = 8 x 8 = 64, wk d x d_I = 64, k_norm LayerNorm 2 d_I = 8 (gain and bias
  // whatever the model's norm), weights_proj d x H_I = 32: 168 a layer.
  const ParamCounts c = count_params(m);
  REQUIRE(c.layer_kinds.size() == 1);
  std::int64_t indexer = 0;
  for (const ParamComponent& p : c.layer_kinds[0].parts) {
    if (p.id == "indexer_wq") CHECK(p.count == 64);
    if (p.id == "indexer_wk") CHECK(p.count == 64);
    if (p.id == "indexer_k_norm") CHECK(p.count == 8);
    if (p.id == "indexer_weights") CHECK(p.count == 32);
    if (std::string(p.id).rfind("indexer_", 0) == 0) indexer += p.count;
  }
  CHECK(indexer == 168);
  CHECK(c.total - count_params(dense_of(m)).total == 3 * 168);
  // The indexer runs for every token: active too.
  CHECK(c.active - count_params(dense_of(m)).active == 3 * 168);
  // Without a q rank the indexer's query comes from the hidden state: wq d x H_I d_I = 128.
  ModelConfig plain_q = m;
  plain_q.mla.q_lora_rank = 0;
  CHECK(count_params(plain_q).total - count_params(dense_of(plain_q)).total == 3 * (128 + 64 + 8 + 32));
}

TEST_CASE("dsa: the cache holds the indexer key beside the latent; a step reads the top k [DS25]", "[engine][dsa]") {
  const ModelConfig m = tiny_dsa();
  CHECK(attention_kv_elements_per_token_layer(m) == 6);  // d_c + d_R = 4 + 2
  CHECK(indexer_elements_per_token_layer(m) == 4);
  CHECK(kv_elements_per_token_layer(m) == 10);
  CHECK(kv_bytes_per_token(m, 2.0).base() == 3 * 10 * 2);
  // Held at T = 100: 3 layers x 10 x 100 x 2 B = 6,000 B.
  CHECK(kv_bytes_per_sequence(m, 100.0, 2.0).base() == 6000.0);
  // Read by one step at T = 100: 3 x (6 x min(100, 5) + 4 x 100) x 2 B = 2,580 B.
  CHECK(kv_read_bytes_per_sequence(m, 100.0, 2.0).base() == 2580.0);
  // Below k every cached key is attended: the read is the cache.
  CHECK(kv_read_bytes_per_sequence(m, 3.0, 2.0).base() == kv_bytes_per_sequence(m, 3.0, 2.0).base());
  // Dense attention reads what it holds.
  CHECK(kv_read_bytes_per_sequence(dense_of(m), 100.0, 2.0).base() ==
        kv_bytes_per_sequence(dense_of(m), 100.0, 2.0).base());
  const LayerWindows aw = attention_windows(m);
  CHECK(aw.global_layers == 0);
  CHECK(aw.sliding_layers == 3);
  CHECK(aw.window == 5);
  // The stack's kind carries k; the cached span is the whole context.
  const LayerStack s = layer_stack(m);
  REQUIRE(s.kinds.size() == 1);
  CHECK(s.kinds[0].topk == 5);
  CHECK(s.kinds[0].window == 0);
}

TEST_CASE("dsa: attention FLOPs over the top k plus the indexer over every key [DS25] [S003-2.3]", "[engine][dsa]") {
  const ModelConfig m = tiny_dsa();
  // Indexer per pair 2 H_I (d_I + 1) = 20; MLA per pair 2 h (d_nope + d_R + d_v) = 32.
  CHECK(indexer_flops_per_pair(m) == 20.0);
  CHECK(attention_flops_per_pair(m) == 32.0);
  CHECK(indexer_flops_per_pair(dense_of(m)) == 0.0);
  // Decode at T = 100: 32 x 3 x 5 + 20 x 3 x 100 = 480 + 6,000.
  CHECK(attention_flops_decode_token(m, 100.0).base() == 6480.0);
  // Causal prefill of S = 10: the attention pairs each query with min(i, 5) keys, S W - W^2 / 2
  // = 37.5 a layer; the indexer scores S^2 / 2 = 50 pairs a layer: 32 x 3 x 37.5 + 20 x 3 x 50.
  CHECK(attention_flops_prefill(m, 10.0, AttentionMode::causal).base() == 3600.0 + 3000.0);
  // Full (bidirectional) pairs: S min(S, k) = 50 and S^2 = 100.
  CHECK(attention_flops_prefill(m, 10.0, AttentionMode::full).base() == 32.0 * 3 * 50 + 20.0 * 3 * 100);
}

TEST_CASE("dsa: a generation's closed form is the sum of its decode steps, across k [DS25] [S003-2.5]",
          "[engine][dsa]") {
  const ModelConfig m = tiny_dsa();
  const ParamCounts c = count_params(m);
  // A machine where the steps change bound inside the generation: the attention's share grows.
  for (const double peak : {1e3, 1e5, 1e9}) {
    CAPTURE(peak);
    const Machine hw{.peak = units::FlopPerSecond{peak}, .bandwidth = units::BytesPerSecond{1e4}};
    Workload w{.batch = 2, .prompt = 2, .output = 12};
    const GenerationTime g = generation_timing(m, c, w, hw);
    double brute = 0.0;
    for (std::int64_t i = 0; i < w.output; ++i) {
      Workload step = w;
      step.context = w.prompt + i;
      brute += decode_step(m, c, step, hw).t_step.base();
    }
    CHECK(g.total.base() == Approx(brute).epsilon(1e-12));
  }
}

TEST_CASE("dsa: validate names the indexer's fields and what it does not model", "[engine][dsa]") {
  ModelConfig m = tiny_dsa();
  m.sliding_window = 4;
  const std::vector<std::string> e = validate(m);
  REQUIRE(e.size() == 1);
  CHECK(e[0] == "indexer: sparse attention with a sliding window is not modelled");
  ModelConfig no_heads = tiny_dsa();
  no_heads.indexer.n_heads = 0;
  CHECK(validate(no_heads) == std::vector<std::string>{"indexer.n_heads: 0 is out of range; allowed 1 to 16777216"});
  ModelConfig no_k = tiny_dsa();
  no_k.indexer.topk = 0;
  CHECK(validate(no_k) ==
        std::vector<std::string>{"indexer.n_heads/head_dim: an indexer needs indexer.topk (1 or more)"});
}

TEST_CASE("dsa: tensor parallelism splits the attention, not the indexer, which every rank holds [DS25]",
          "[engine][dsa][parallel]") {
  const ModelConfig m = tiny_dsa();
  const ParamCounts c = count_params(m);
  const ParamCounts dense = count_params(dense_of(m));
  const ParallelDegrees t2{.tensor = 2};
  // The indexer's 168 parameters a layer (matrices 160, k_norm 8) stay whole on each of 2 ranks.
  CHECK(params_per_device(c, t2).first_stage - params_per_device(dense, t2).first_stage == 3.0 * 168);
  CHECK(params_per_device(c, {}).first_stage - params_per_device(dense, {}).first_stage == 3.0 * 168);
}
