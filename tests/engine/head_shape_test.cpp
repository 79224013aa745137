// Global layers of their own head shape (Gemma 4, issue 22): the global layers' d_h and h_kv, and
// with attention_k_eq_v no v_proj while the cache still holds K and V. Hand-counted on a tiny model
// from the shapes Gemma 4's modeling code builds (q_proj h d_h, k_proj h_kv d_h, v_proj absent when
// K = V, q/k norms of d_h) and M_KV(T) = b sum_l 2 h_kv,l d_h,l min(T, W_l)  [HFT-gemma4] [S000-eq1.1]
#include "roofline/decode.hpp"
#include "roofline/flops.hpp"
#include "roofline/layer_ops.hpp"
#include "roofline/layer_stack.hpp"
#include "roofline/lora.hpp"
#include "roofline/memory.hpp"
#include "roofline/params.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace roofline;

namespace {

// d = 16, L = 6 (5 sliding of window 4, the sixth global), V = 10, d_ff = 8, gated; h = 4 query
// heads; sliding layers 2 KV heads of 4, the global layer 1 KV head of 8 with K = V.
ModelConfig tiny_gemma4() {
  ModelConfig m;
  m.n_layers = 6;
  m.d_model = 16;
  m.n_heads = 4;
  m.n_kv_heads = 2;
  m.head_dim = 4;
  m.d_ff = 8;
  m.vocab_size = 10;
  m.tied_embeddings = true;
  m.norms_per_layer = 4;
  m.qk_norm = QkNorm::per_head;
  m.sliding_window = 4;
  m.global_every = 6;
  m.layer_scalar = true;
  m.global_attention = {.head_dim = 8, .n_kv_heads = 1, .k_eq_v = true};
  return m;
}

}  // namespace

TEST_CASE("head shape: the global kind has its own d_h and h_kv and no v_proj [HFT-gemma4]", "[engine][gemma4]") {
  const ModelConfig m = tiny_gemma4();
  REQUIRE(validate(m).empty());
  const LayerStack s = layer_stack(m);
  REQUIRE(s.kinds.size() == 2);
  CHECK(s.kinds[0].sliding);
  CHECK(s.kinds[0].head_dim == 4);
  CHECK(s.kinds[0].kv_heads == 2);
  CHECK(s.kinds[0].value_proj);
  CHECK(!s.kinds[1].sliding);
  CHECK(s.kinds[1].own_shape);
  CHECK(s.kinds[1].head_dim == 8);
  CHECK(s.kinds[1].kv_heads == 1);
  CHECK(!s.kinds[1].value_proj);
  // Sliding layer: q 16 x 16, k and v 16 x 8, o 16 x 16, q/k norms 8, MLP 3 x 16 x 8, 4 norms,
  // the scalar: 256 + 128 + 128 + 256 + 8 + 384 + 64 + 1 = 1,225. Global: q 16 x 32, k 16 x 8,
  // o 32 x 16, norms 16: 512 + 128 + 512 + 16 + 384 + 64 + 1 = 1,617.
  const ParamCounts c = count_params(m);
  REQUIRE(c.layer_kinds.size() == 2);
  CHECK(c.layer_kinds[0].total == 1225);
  CHECK(c.layer_kinds[0].n_layers == 5);
  CHECK(c.layer_kinds[1].total == 1617);
  CHECK(c.layer_kinds[1].global_shape);
  CHECK(c.total == 5 * 1225 + 1617 + 10 * 16 + 16);
}

TEST_CASE("head shape: KV and attention FLOPs sum the spans with their own widths [HFT-gemma4] [S003-2.4]",
          "[engine][gemma4]") {
  const ModelConfig m = tiny_gemma4();
  // e_s = 2 x 2 x 4 = 16 per sliding layer, e_g = 2 x 1 x 8 = 16 (K and V both cached); a_s = 4 h d_h = 64,
  // a_g = 128 per (query, key) pair.
  struct Row {
    double context;
    double kv_elements;  // 5 x 16 x min(T, 4) + 16 x T
    double flops;        // 5 x 64 x min(T, 4) + 128 x T
  };
  for (const Row& r : {Row{1, 80 + 16, 320 + 128}, Row{4, 320 + 64, 1280 + 512}, Row{100, 320 + 1600, 1280 + 12800}}) {
    CAPTURE(r.context);
    CHECK(kv_bytes_per_sequence(m, r.context, 2.0).base() == 2.0 * r.kv_elements);
    CHECK(kv_read_bytes_per_sequence(m, r.context, 2.0).base() == 2.0 * r.kv_elements);
    CHECK(attention_flops_decode_token(m, r.context).base() == r.flops);
  }
  CHECK(kv_bytes_per_token(m, 1.0).base() == 5 * 16 + 16);
  // Causal prefill of S = 10: sliding pairs S W - W^2 / 2 = 32 a layer, global S^2 / 2 = 50.
  CHECK(attention_flops_prefill(m, 10.0, AttentionMode::causal).base() == 5 * 64 * 32.0 + 128 * 50.0);
  // max_context inverts the cache: 1,000 elements of budget at b = 1 hold T with 320 + 16 T <= 1,000.
  CHECK(max_context(m, units::Bytes{1000.0}, 1, 1.0) == 42);
}

TEST_CASE("head shape: a generation's closed form is the sum of its decode steps across the window [S003-2.5]",
          "[engine][gemma4]") {
  const ModelConfig m = tiny_gemma4();
  const ParamCounts c = count_params(m);
  for (const double peak : {1e3, 1e5, 1e9}) {
    CAPTURE(peak);
    const Machine hw{.peak = units::FlopPerSecond{peak}, .bandwidth = units::BytesPerSecond{1e4}};
    const Workload w{.batch = 2, .prompt = 2, .output = 12};
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

TEST_CASE("head shape: layer rows, LoRA targets and validation follow the kind [HFT-gemma4]", "[engine][gemma4]") {
  const ModelConfig m = tiny_gemma4();
  const ParamCounts c = count_params(m);
  Workload w{.batch = 1, .prompt = 10};
  const LayerPass p = layer_pass(w, Phase::prefill, false);
  const LayerStack s = layer_stack(m);
  // The global layer has no v_proj row; in a prefill of 10 tokens its k_proj writes K and V (2 x 8
  // elements a token, 2 bytes each).
  bool v_proj = false;
  double kv_written = 0.0;
  for (const LayerOp& op : layer_ops(m, c, s.kinds[1], p)) {
    v_proj = v_proj || op.id == "v_proj";
    if (op.id == "k_proj") kv_written = op.kv_bytes.base();
  }
  CHECK(!v_proj);
  CHECK(kv_written == 10 * 2.0 * 8 * 2.0);
  // LoRA of rank 1 on q and v: sliding q 16 + 16, v 16 + 8 over 5 layers; the global q 16 + 32, no v.
  const LoraParams lora = lora_params(m, LoraTargets::q | LoraTargets::v, 1);
  CHECK(lora.total == 5 * (32 + 24) + 48);
  // A global shape beside MLA, or whose KV heads do not divide the query heads, is refused.
  ModelConfig mla = m;
  mla.mla = {.q_lora_rank = 0, .kv_lora_rank = 4, .qk_rope_head_dim = 2, .qk_nope_head_dim = 2, .v_head_dim = 4};
  CHECK(!validate(mla).empty());
  ModelConfig odd = m;
  odd.global_attention.n_kv_heads = 3;
  const std::vector<std::string> e = validate(odd);
  REQUIRE(e.size() == 1);
  CHECK(e[0] == "global_attention.n_kv_heads: 3 does not divide n_heads 4");
}
