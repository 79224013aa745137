// Parameter counts against seed 000 Table 1.1 (Llama-3-8B) and the textbook layer of seed 003.
#include "roofline/params.hpp"

#include "roofline/checked.hpp"

#include <catch2/catch.hpp>

#include "seed_models.hpp"

using namespace roofline;
using roofline::test_models::llama3_8b;

namespace {

std::int64_t part(const LayerKindParams& k, std::string_view id) {
  for (const auto& p : k.parts) {
    if (p.id == id) return p.count;
  }
  return -1;
}
}  // namespace

TEST_CASE("Llama-3-8B per-matrix counts, seed 000 Table 1.1", "[params]") {
  const ParamCounts c = count_params(llama3_8b());
  REQUIRE(c.layer_kinds.size() == 1);
  const LayerKindParams& l = c.layer_kinds[0];
  CHECK(part(l, "q_proj") == 16'777'216);
  CHECK(part(l, "k_proj") == 4'194'304);
  CHECK(part(l, "v_proj") == 4'194'304);
  CHECK(part(l, "o_proj") == 16'777'216);
  CHECK(part(l, "gate_proj") + part(l, "up_proj") == 117'440'512);
  CHECK(part(l, "down_proj") == 58'720'256);
  CHECK(part(l, "norms") == 8'192);
  CHECK(l.total == 218'112'000);
  CHECK(c.blocks == 6'979'584'000);
  CHECK(c.embedding == 525'336'576);
  CHECK(c.lm_head == 525'336'576);
  CHECK(c.total == 8'030'261'248);
}

TEST_CASE("tying the head removes V*d", "[params]") {
  ModelConfig m = llama3_8b();
  m.tied_embeddings = true;
  CHECK(count_params(m).total == 8'030'261'248 - 525'336'576);
}

TEST_CASE("overflow in an exact count is reported, not wrapped", "[params]") {
  ModelConfig m = llama3_8b();
  m.d_model = std::int64_t{1} << 40;
  m.d_ff = std::int64_t{1} << 40;
  CHECK_THROWS_AS(count_params(m), OverflowError);
  CHECK_THROWS_WITH(count_params(m), "integer overflow: the MLP parameters of one layer exceed 2^63 - 1");
}

TEST_CASE("an overflow names the product: E experts of 3 d d_fe at validate's bounds", "[params]") {
  // validate() allows 2^16 experts, d = 2^24 and d_fe = 2^26: 2^16 x 3 x 2^50 is about 2^67.6.
  ModelConfig m = llama3_8b();
  m.d_model = std::int64_t{1} << 24;
  m.moe.n_experts = std::int64_t{1} << 16;
  m.moe.top_k = 1;
  m.moe.d_ff_expert = std::int64_t{1} << 26;
  CHECK_THROWS_WITH(count_params(m), "integer overflow: the parameters of the MoE experts exceed 2^63 - 1");
}
