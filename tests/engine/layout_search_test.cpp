// train --best-layout (issue 24 part 4): the search against an exhaustive enumeration of every
// layout and recipe on a small system, and its pruning rules against direct evaluations.
#include "roofline/analysis.hpp"

#include <catch2/catch.hpp>

#include <limits>

#include "seed_models.hpp"

using namespace roofline;

namespace {

// Two HGX H100-like domains of 8 (NVLink 450 GB/s inside, 50 GB/s a device across).
Scenario on_two_nodes(ModelConfig m, double capacity_gib, std::int64_t global_batch, std::int64_t seq = 8192) {
  Scenario s;
  s.counts = count_params(m);
  s.model = std::move(m);
  HardwareConfig h;
  h.name = "h100";
  h.memory_capacity = units::gib(capacity_gib);
  h.memory_bandwidth = units::tb_per_s(3.35);
  h.set_peak(DType::bf16, units::tflop_per_s(989.4));
  Topology topo;
  topo.source = TopologySource::flags;
  topo.domain = 8;
  topo.devices_per_node = 8;
  topo.inside = {LinkKind::scale_up, "nvlink", units::BytesPerSecond{450e9}};
  topo.has_across = true;
  topo.across = {LinkKind::scale_out, "ib", units::BytesPerSecond{50e9}};
  s.accelerator = Accelerator{h, CapacitySource::device, topo};
  s.deployment.devices = 16;
  s.deployment.data = 16;
  s.training.seq_len = seq;
  s.training.grad_accum = global_batch / 16;
  s.training.layout_search = LayoutSearchRequest{.global_batch = global_batch};
  return s;
}

// Every layout the search may choose, every recipe, timed directly: the smallest floor that fits.
double exhaustive_best(const Scenario& s) {
  const std::int64_t g = s.deployment.devices;
  const std::int64_t batch = s.training.layout_search->global_batch;
  double best = std::numeric_limits<double>::infinity();
  for (std::int64_t t : {1, 2, 4, 8}) {  // the heads' divisors within a domain of 8
    for (std::int64_t c = 1; c <= g / t; ++c) {
      if ((g / t) % c != 0 || (c > 1 && s.training.seq_len % (2 * c) != 0)) continue;
      for (std::int64_t p = 1; p <= g / (t * c) && p <= s.model.n_layers; ++p) {
        if ((g / (t * c)) % p != 0) continue;
        const std::int64_t d = g / (t * c * p);
        if (batch % d != 0) continue;
        for (std::int64_t b = 1; b <= batch / d; ++b) {
          if ((batch / d) % b != 0) continue;
          for (Recompute rc : {Recompute::none, Recompute::selective, Recompute::full}) {
            for (int z = 0; z <= 3; ++z) {
              const TrainLayout l{.tensor = t,
                                  .context = c,
                                  .pipeline = p,
                                  .data = d,
                                  .expert = 1,
                                  .micro_batch = b,
                                  .grad_accum = batch / (b * d),
                                  .sequence_parallel = t > 1,
                                  .zero = static_cast<ZeroStage>(z),
                                  .recompute = rc};
              const TrainResult r = analyze_train_layout(at_layout(s, l));
              if (r.fits && r.step_floor) best = std::min(best, r.step_floor->base());
            }
          }
        }
      }
    }
  }
  return best;
}

}  // namespace

TEST_CASE("best layout: the search finds the exhaustive enumeration's fastest fitting floor [NA21 §3] [RA20 §5]",
          "[analysis][layout-search]") {
  // Llama 3 8B, s = 8192, on 16 devices: at 80 GiB a light recipe fits; at 24 GiB only sharded
  // states and recomputation do, which exercises the ZeRO and recomputation pruning.
  for (const double gib : {80.0, 24.0}) {
    INFO(gib << " GiB a device");
    const Scenario s = on_two_nodes(roofline::test_models::llama3_8b(), gib, 32);
    const LayoutSearch found = search_train_layouts(s);
    REQUIRE_FALSE(found.ranked.empty());
    const double exhaustive = exhaustive_best(s);
    CHECK(found.ranked.front().step_floor.base() == exhaustive);
    // The best layout, evaluated directly, is what the search ranked.
    const TrainResult at = analyze_train_layout(at_layout(s, found.ranked.front().layout));
    CHECK(at.fits);
    CHECK(at.step_floor->base() == found.ranked.front().step_floor.base());
    // Runner-ups are slower or tie, and each names the floor part that grew the most.
    for (std::size_t i = 1; i < found.ranked.size(); ++i) {
      CHECK(found.ranked[i].step_floor >= found.ranked[i - 1].step_floor);
      if (found.ranked[i].loses_on) CHECK(found.ranked[i].loss.base() > 0.0);
    }
  }
}

TEST_CASE("best layout: ZeRO-1 and -2 never slow a step, so the smallest stage >= 1 that fits is timed [RA20 §7]",
          "[analysis][layout-search]") {
  // The pruning's premise: ZeRO-1 and -2 move what plain data parallelism moves (2 Psi a rank)
  // and update Psi / N_d parameters, so their floors are equal and at most ZeRO-0's.
  // d = 16 across both domains, one 1024-token sequence a rank: too little compute to hide
  // ZeRO-3's extra gathers behind.
  const Scenario s = on_two_nodes(roofline::test_models::llama3_8b(), 1000.0, 16, 1024);
  TrainLayout l{.data = 16, .micro_batch = 1, .grad_accum = 1};
  const auto floor_at = [&](ZeroStage z) {
    l.zero = z;
    return analyze_train_layout(at_layout(s, l)).step_floor->base();
  };
  const double z0 = floor_at(ZeroStage::none);
  const double z1 = floor_at(ZeroStage::os);
  CHECK(z1 < z0);  // the optimizer step updates a sixteenth of the parameters
  CHECK(floor_at(ZeroStage::os_g) == z1);
  CHECK(floor_at(ZeroStage::os_g_p) > z1);  // 1.5x the traffic, beyond what the backward hides here
}

TEST_CASE("best layout: held flags keep their value; a batch no layout splits finds nothing",
          "[analysis][layout-search]") {
  Scenario s = on_two_nodes(roofline::test_models::llama3_8b(), 80.0, 32);
  s.deployment.tensor = 4;
  s.deployment.data = 4;
  s.training.grad_accum = 8;
  s.training.layout_search->tensor = true;
  s.training.recompute = Recompute::full;
  s.training.layout_search->recompute = true;
  const LayoutSearch held = search_train_layouts(s);
  REQUIRE_FALSE(held.ranked.empty());
  for (const RankedLayout& r : held.ranked) {
    CHECK(r.layout.tensor == 4);
    CHECK(r.layout.recompute == Recompute::full);
  }
  // A global batch of 3 sequences splits over d in {1, 3} only; with c = p = 1 held, 16 devices and
  // t <= 8 leave d in {2, 4, 8, 16}: nothing is enumerated.
  Scenario odd = on_two_nodes(roofline::test_models::llama3_8b(), 80.0, 16);
  odd.training.layout_search->global_batch = 3;
  odd.training.layout_search->context = true;
  odd.training.layout_search->pipeline = true;
  const LayoutSearch none = search_train_layouts(odd);
  CHECK(none.layouts == 0);
  CHECK(none.ranked.empty());
  CHECK_FALSE(none.closest.has_value());
}
