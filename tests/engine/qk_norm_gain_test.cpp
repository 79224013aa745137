// q/k norms that carry a gain only while the layer norms carry a bias (ModelConfig::
// qk_norm_gain_only, issue 10): StableLM 2's qk_layernorm, formulas.md §5 count_params.
#include "roofline/model_config.hpp"
#include "roofline/params.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace roofline;

namespace {

std::int64_t qk_part(const ModelConfig& m) {
  for (const ParamComponent& p : count_params(m).layer_kinds.front().parts) {
    if (p.id == "qk_norm") return p.count;
  }
  return 0;
}

ModelConfig layer(NormKind norm, QkNorm qk, bool gain_only) {
  ModelConfig m;
  m.n_layers = 1;
  m.d_model = 2048;
  m.n_heads = 32;
  m.n_kv_heads = 8;
  m.head_dim = 64;
  m.d_ff = 5632;
  m.vocab_size = 1000;
  m.norm = norm;
  m.qk_norm = qk;
  m.qk_norm_gain_only = gain_only;
  return m;
}

struct Row {
  NormKind norm;
  QkNorm qk;
  bool gain_only;
  std::int64_t expected;
  const char* source;
};

}  // namespace

TEST_CASE("qk_norm = norm_qk(2 d_h) or norm_qk(w_q + w_kv); norm_qk is gain-only with qk_norm_gain_only",
          "[params][qk_norm]") {
  // w_q = 32 x 64 = 2048, w_kv = 8 x 64 = 512, d_h = 64.
  const Row rows[] = {
      // StableLmLayerNormPerHead(bias=False): h + h_kv LayerNorms of d_h, weight only (modeling_stablelm.py)
      {NormKind::layernorm, QkNorm::full_width, true, 2048 + 512, "HF modeling_stablelm.py, qk_layernorm"},
      // the same layout with the layer norm's kind: weight and bias
      {NormKind::layernorm, QkNorm::full_width, false, 2 * (2048 + 512), "formulas.md §5, norm(w_q + w_kv)"},
      // Qwen3: RMSNorm over d_h for q and for k, shared by the heads
      {NormKind::rmsnorm, QkNorm::per_head, false, 2 * 64, "HF modeling_qwen3.py q_norm/k_norm"},
      {NormKind::rmsnorm, QkNorm::per_head, true, 2 * 64, "gain-only changes nothing for RMSNorm"},
      {NormKind::layernorm, QkNorm::per_head, true, 2 * 64, "per head, gain only"},
  };
  for (const Row& r : rows) {
    INFO(r.source);
    CHECK(qk_part(layer(r.norm, r.qk, r.gain_only)) == r.expected);
  }
}

TEST_CASE("validate: qk_norm_gain_only without q/k norms is reported", "[validate][qk_norm]") {
  const auto problems = validate(layer(NormKind::layernorm, QkNorm::none, true));
  REQUIRE(problems.size() == 1);
  CHECK(problems.front() == "qk_norm_gain_only: needs qk_norm per_head or full_width");
  CHECK(validate(layer(NormKind::layernorm, QkNorm::full_width, true)).empty());
}
