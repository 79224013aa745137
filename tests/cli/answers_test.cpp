// The commands' answers (roofline/answers.hpp) on resolved scenarios: which verdict counts, and
// serve's steady state through a layout against the closed forms it is built from.
#include "roofline/answers.hpp"

#include "cli/command.hpp"
#include "io/preset_registry.hpp"
#include "io/scenario_spec.hpp"

#include "roofline/decode.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>

#include "resolved_scenario.hpp"

using namespace roofline;

using test::resolved;

TEST_CASE("the verdict's basis: pooled without a layout, per device with one, training for train", "[answers]") {
  const io::Resolved pooled = resolved({{"model", "llama3-70b"}, {"gpu", "h100-sxm"}, {"gpus", "2"}});
  const DecodeAnswer d = answer_decode(pooled.scenario);
  CHECK(d.fit.basis == FitBasis::pooled);
  CHECK(d.fit.fits == std::optional<bool>(d.decode.capacity.fits));
  CHECK(d.fit.required == d.decode.capacity.required);
  CHECK_FALSE(d.layout.has_value());

  const io::Resolved layout = resolved({{"model", "llama3-70b"}, {"gpu", "h100-sxm"}, {"tp", "2"}});
  const DecodeAnswer l = answer_decode(layout.scenario);
  REQUIRE(l.layout.has_value());
  CHECK(l.fit.basis == FitBasis::per_device);
  CHECK(l.fit.fits == std::optional<bool>(l.layout->fits));
  CHECK(l.fit.required == l.layout->required_per_device);
  CHECK(l.fit.capacity == l.layout->capacity_per_device);
}

TEST_CASE("serve's steady state through a 1 x 1 x 1 layout is the ideal device's", "[answers]") {
  // t = p = d = 1: no collective, the whole cache and every weight on the one device, so the step
  // through the layout is steady_state's own t = max(F/P, Q/BW) at the same N  [KW23] (derived)
  const io::Resolved r = resolved({{"model", "llama3-8b"}, {"gpu", "h100-sxm"}, {"tp", "1"}, {"concurrency", "64"}});
  REQUIRE(r.scenario.deployment.explicit_layout);
  const ServeAnswer a = answer_serve(r.scenario);
  REQUIRE(a.serve.steady.has_value());
  REQUIRE(a.layout_steady.has_value());
  const LayoutSteadyState& ls = *a.layout_steady;
  CHECK(ls.concurrency == 64.0);
  CHECK(ls.per_replica == 64.0);
  CHECK(ls.cache_share == 1.0);
  CHECK(ls.t_allreduce.base() == 0.0);
  CHECK(ls.flops_per_device.base() == Approx(a.serve.steady->flops.base()).epsilon(1e-12));
  CHECK(ls.bytes_per_device.base() == Approx(a.serve.steady->bytes.base()).epsilon(1e-12));
  CHECK(ls.t_step.base() == Approx(a.serve.steady->t_step.base()).epsilon(1e-12));
  CHECK(ls.tokens_per_s == Approx(a.serve.steady->tokens_per_s).epsilon(1e-12));
}

TEST_CASE("serve's steady state through t = 4: a quarter of the FLOPs a device, plus the all-reduces", "[answers]") {
  // Llama 3 70B on 4 H100s: each device computes F/4 of the replica's step, holds a quarter of each
  // sequence's KV (8 KV heads over 4 ranks) and all-reduces the step's tokens 2 L times; the TPOT
  // is the stage's step plus them, above the ideal device's (the all-reduces were missing from it,
  // code review 2026-12-01, bug 3).
  const io::Resolved r = resolved({{"model", "llama3-70b"}, {"gpu", "h100-sxm"}, {"tp", "4"}, {"concurrency", "128"}});
  const ServeAnswer a = answer_serve(r.scenario);
  REQUIRE(a.layout_steady.has_value());
  const LayoutSteadyState& ls = *a.layout_steady;
  CHECK(ls.per_replica == 128.0);
  CHECK(ls.cache_share == 0.25);
  CHECK(ls.flops_per_device.base() == Approx(ls.replica.flops.base() / 4.0).epsilon(1e-12));
  CHECK(ls.bytes_per_device.base() ==
        Approx(ls.weights_read_per_device.base() + (ls.replica.kv_read + ls.replica.kv_written).base() * 0.25)
            .epsilon(1e-12));
  CHECK(ls.t_allreduce.base() > 0.0);
  CHECK(ls.t_step.base() == Approx(ls.t_stage.base() + ls.t_allreduce.base()).epsilon(1e-12));
  REQUIRE(a.serve.steady.has_value());
  CHECK(ls.t_step.base() > a.serve.steady->t_step.base());
  CHECK(ls.tokens_per_s == Approx(128.0 / ls.t_step.base()).epsilon(1e-12));
}

TEST_CASE("serve through a layout: its TPOT target search finds the most sequences whose step meets it", "[answers]") {
  const io::Resolved r = resolved({{"model", "llama3-70b"}, {"gpu", "h100-sxm"}, {"tp", "4"}, {"tpot", "40ms"}});
  const ServeAnswer a = answer_serve(r.scenario);
  REQUIRE(a.layout_steady.has_value());
  const LayoutSteadyState& ls = *a.layout_steady;
  REQUIRE(ls.max_concurrency_tpot.has_value());
  CHECK(ls.t_step.base() <= 0.040);
  CHECK(ls.limit == ServeLimit::tpot_target);
  // One more sequence misses the target.
  io::Resolved more = r;
  more.scenario.serving.concurrency = *ls.max_concurrency_tpot + 1;
  const ServeAnswer b = answer_serve(more.scenario);
  REQUIRE(b.layout_steady.has_value());
  CHECK(b.layout_steady->t_step.base() > 0.040);
}

TEST_CASE("serve through a layout at --concurrency 2^62: the step's tokens saturate, never wrap", "[answers]") {
  // 2^62 sequences and their prompt chunks are more tokens than an int64 holds: the all-reduces are
  // those of 2^62 tokens (the saturated count), not of a wrapped or undefined one.
  const io::Resolved r =
      resolved({{"model", "llama3-70b"}, {"gpu", "h100-sxm"}, {"tp", "4"}, {"concurrency", "4611686018427387904"}});
  const ServeAnswer a = answer_serve(r.scenario);
  REQUIRE(a.layout_steady.has_value());
  const LayoutSteadyState& ls = *a.layout_steady;
  CHECK(ls.step_tokens > 4e18);
  const io::Resolved small =
      resolved({{"model", "llama3-70b"}, {"gpu", "h100-sxm"}, {"tp", "4"}, {"concurrency", "64"}});
  const LayoutSteadyState one = *answer_serve(small.scenario).layout_steady;
  // The all-reduces scale with the tokens: 2^62 / ~580 tokens is beyond 10^15 times more.
  CHECK(ls.t_allreduce.base() > one.t_allreduce.base() * 1e15);
  CHECK(std::isfinite(ls.t_step.base()));
}
