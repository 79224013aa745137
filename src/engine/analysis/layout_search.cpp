// train --best-layout: every layout of G devices (t x c x p x d, e within d), every split of the
// global batch into micro-batches, and the recipe (recomputation, ZeRO stage, sequence
// parallelism) each needs to fit, ranked by the step floor.
#include "roofline/analysis/serving.hpp"
#include "roofline/analysis/train.hpp"

#include <algorithm>
#include <array>
#include <numeric>
#include <vector>

namespace roofline {
namespace {

std::vector<std::int64_t> divisors(std::int64_t n) {
  std::vector<std::int64_t> small;
  std::vector<std::int64_t> large;
  for (std::int64_t i = 1; i * i <= n; ++i) {
    if (n % i != 0) continue;
    small.push_back(i);
    if (i != n / i) large.push_back(n / i);
  }
  small.insert(small.end(), large.rbegin(), large.rend());
  return small;
}

// The tensor degrees the model splits over (heads, KV heads split or replicated, state channels),
// within a scale-up domain: a tensor group's all-reduces sit on the critical path  [NA21 §3.2]
std::vector<std::int64_t> tensor_degrees(const Scenario& s) {
  const std::int64_t g = s.deployment.devices;
  if (s.training.layout_search->tensor) return {s.deployment.tensor};
  const std::int64_t domain = s.accelerator ? s.accelerator->system.domain : g;
  std::vector<std::int64_t> out;
  for (const LayoutCandidate& c : tensor_pipeline_layouts(s.model, g)) {
    if (c.pipeline == 1 && c.tensor <= domain && g % c.tensor == 0) out.push_back(c.tensor);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Context degrees: c divides G / t and splits the sequence into 2c equal chunks.
std::vector<std::int64_t> context_degrees(const Scenario& s, std::int64_t rest) {
  if (s.training.layout_search->context) return {s.deployment.context};
  std::vector<std::int64_t> out;
  for (const std::int64_t c : divisors(rest)) {
    if (c == 1 || s.training.seq_len % (2 * c) == 0) out.push_back(c);
  }
  return out;
}

// Pipeline degrees: p divides G / (t c), at most L stages (uneven when p does not divide L); the
// interleaved schedule needs L / (p v) whole chunks.
std::vector<std::int64_t> pipeline_degrees(const Scenario& s, std::int64_t rest) {
  if (s.training.layout_search->pipeline) return {s.deployment.pipeline};
  const std::int64_t v = s.training.pipeline_chunks;
  std::vector<std::int64_t> out;
  for (const std::int64_t p : divisors(rest)) {
    if (p > s.model.n_layers) break;
    if (v > 1 && (p == 1 || s.model.n_layers % (p * v) != 0)) continue;
    out.push_back(p);
  }
  return out;
}

// Expert degrees: e divides the routed experts and the data ranks it lies within.
std::vector<std::int64_t> expert_degrees(const Scenario& s, std::int64_t d) {
  if (s.training.layout_search->expert) return {s.deployment.expert};
  if (!s.model.moe.enabled()) return {1};
  std::vector<std::int64_t> out;
  for (const std::int64_t e : divisors(std::gcd(d, s.model.moe.n_experts))) out.push_back(e);
  return out;
}

std::array<units::Seconds, kFloorParts> floor_parts(const TrainResult& r) {
  std::array<units::Seconds, kFloorParts> p{};
  const auto at = [&p](FloorPart f) -> units::Seconds& { return p[static_cast<std::size_t>(f)]; };
  at(FloorPart::compute) = *r.compute_time;
  at(FloorPart::imbalance) = *r.slowest_stage_compute - *r.compute_time;
  at(FloorPart::bubble) = *r.slowest_stage_compute * r.bubble_overhead;
  at(FloorPart::tensor) = *r.tp_time;
  at(FloorPart::expert) = *r.ep_time;
  at(FloorPart::pipeline) = *r.pp_time;
  at(FloorPart::context) = r.cp_exposed.value_or(units::Seconds{});
  units::Seconds critical{};
  for (const FloorPart f : {FloorPart::tensor, FloorPart::expert, FloorPart::pipeline, FloorPart::context}) {
    critical += at(f);
  }
  at(FloorPart::data) = *r.exposed_comm - critical;
  at(FloorPart::optimizer) = *r.optimizer_step_time;
  return p;
}

struct Search {
  const Scenario& base;
  LayoutSearch out;
  std::vector<RankedLayout> timed;  // the best recipe of each t x c x p x d x e point so far
  Scenario probe;
  std::vector<LayerKind> kinds;  // the model's, once for every probe

  explicit Search(const Scenario& s) : base(s), probe(s), kinds(layer_kinds(s.model)) {}

  bool fits(const TrainLayout& l) {
    ++out.probes;
    set_layout(probe, base, l);
    const TrainFitProbe f = train_fits(probe, kinds);
    if (!f.fits && (!out.closest || f.total < out.closest_total)) {
      out.closest = l;
      out.closest_total = f.total;
    }
    return f.fits;
  }

  // The smallest ZeRO stage from `from` on that fits this recipe, or none. Memory grows with the
  // micro-batch, so a larger b starts where the smaller one stopped (kDead: nothing fits).
  static constexpr int kDead = 4;
  std::optional<ZeroStage> smallest_zero(TrainLayout l, int& from) {
    const LayoutSearchRequest& held = *base.training.layout_search;
    if (from == kDead) return std::nullopt;
    if (held.zero) {
      if (fits(l)) return l.zero;
      from = kDead;
      return std::nullopt;
    }
    const int last = l.data * l.context == 1 ? 0 : 3;  // one rank shards nothing
    for (int z = from; z <= last; ++z) {
      l.zero = static_cast<ZeroStage>(z);
      if (fits(l)) {
        from = z;
        return l.zero;
      }
    }
    from = kDead;
    return std::nullopt;
  }

  void time(const TrainLayout& l, std::vector<RankedLayout>& point) {
    ++out.timed;
    set_layout(probe, base, l);
    const TrainResult r = analyze_train_layout(probe);
    if (!r.step_floor || !r.mfu_ceiling) return;
    point.push_back({l, *r.step_floor, *r.mfu_ceiling, r.total, floor_parts(r), std::nullopt, {}});
  }

  // One point: each recomputation in turn with the smallest ZeRO stage that fits it. ZeRO-1 and -2
  // move the bytes plain data parallelism does and shorten the optimizer step, so the smallest
  // stage >= 1 is the one to time; ZeRO-3 moves 1.5x, so a heavier recomputation that fits
  // without it is tried too, and a point stops at the first recipe that fits with ZeRO <= 2.
  bool point(TrainLayout l, std::vector<RankedLayout>& best, std::array<int, 3>& from) {
    const LayoutSearchRequest& held = *base.training.layout_search;
    const std::vector<Recompute> modes =
        held.recompute ? std::vector<Recompute>{l.recompute}
                       : std::vector<Recompute>{Recompute::none, Recompute::selective, Recompute::full};
    bool any = false;
    for (const Recompute mode : modes) {
      l.recompute = mode;
      const std::optional<ZeroStage> z = smallest_zero(l, from[static_cast<std::size_t>(mode)]);
      if (!z) continue;
      any = true;
      l.zero = *z;
      if (!held.zero && l.zero == ZeroStage::none && l.data * l.context > 1) l.zero = ZeroStage::os;
      time(l, best);
      if (l.zero != ZeroStage::os_g_p) break;
    }
    return any;
  }

  void layout(std::int64_t t, std::int64_t c, std::int64_t p, std::int64_t e) {
    const std::int64_t d = base.deployment.devices / (t * c * p);
    const std::int64_t batch = out.global_batch;
    if (batch % d != 0) return;
    const LayoutSearchRequest& held = *base.training.layout_search;
    const std::int64_t v = base.training.pipeline_chunks;
    std::vector<RankedLayout> found;
    std::array<int, 3> from{};  // per recomputation mode: the ZeRO stage the last b needed
    for (const std::int64_t b : divisors(batch / d)) {
      if (held.micro_batch && b != base.training.micro_batch) continue;
      const std::int64_t m = batch / (b * d);
      if (v > 1 && m % p != 0) continue;
      ++out.layouts;
      const TrainLayout l{.tensor = t,
                          .context = c,
                          .pipeline = p,
                          .data = d,
                          .expert = e,
                          .micro_batch = b,
                          .grad_accum = m,
                          .sequence_parallel = t > 1 || base.deployment.sequence_parallel,
                          .zero = base.training.zero,
                          .recompute = base.training.recompute};
      if (!point(l, found, from)) break;  // a larger micro-batch needs more memory still
      ++out.fitting;
    }
    const auto fastest = std::min_element(found.begin(), found.end(), [](const RankedLayout& a, const RankedLayout& b) {
      return a.step_floor < b.step_floor;
    });
    if (fastest != found.end()) timed.push_back(*fastest);
  }
};

// Why each runner-up loses: the part of its floor that grew the most over the best's.
void label_losses(std::vector<RankedLayout>& ranked) {
  for (std::size_t i = 1; i < ranked.size(); ++i) {
    std::size_t worst = 0;
    units::Seconds most{};
    for (std::size_t k = 0; k < kFloorParts; ++k) {
      const units::Seconds grew = ranked[i].parts[k] - ranked[0].parts[k];
      if (grew > most) {
        most = grew;
        worst = k;
      }
    }
    // Within a part in 10^9 of the best's floor it ties (the same floor, another split).
    if (ranked[i].step_floor - ranked[0].step_floor <= ranked[0].step_floor * 1e-9) continue;
    ranked[i].loses_on = static_cast<FloorPart>(worst);
    ranked[i].loss = most;
  }
}

}  // namespace

Scenario at_layout(const Scenario& s, const TrainLayout& l) {
  Scenario at = s;
  set_layout(at, s, l);
  return at;
}

void set_layout(Scenario& at, const Scenario& s, const TrainLayout& l) {
  Deployment& dep = at.deployment;
  dep.tensor = l.tensor;
  dep.context = l.context;
  dep.pipeline = l.pipeline;
  dep.data = l.data;
  dep.expert = l.expert;
  dep.sequence_parallel = l.sequence_parallel;
  TrainingInputs& t = at.training;
  t.micro_batch = l.micro_batch;
  t.grad_accum = l.grad_accum;
  t.zero = l.zero;
  t.recompute = l.recompute;
  // Each pipeline degree takes its balanced stages, unless the user's --pp-layers held it.
  if (s.training.pipeline_layers.size() != static_cast<std::size_t>(l.pipeline)) t.pipeline_layers.clear();
}

LayoutSearch search_train_layouts(const Scenario& s) {
  Search search(s);
  search.out.held = *s.training.layout_search;
  search.out.global_batch = search.out.held.global_batch;
  const std::int64_t g = s.deployment.devices;
  if (!s.architecture) return search.out;
  for (const std::int64_t t : tensor_degrees(s)) {
    for (const std::int64_t c : context_degrees(s, g / t)) {
      if ((g / t) % c != 0) continue;
      for (const std::int64_t p : pipeline_degrees(s, g / (t * c))) {
        if ((g / (t * c)) % p != 0) continue;
        const std::int64_t d = g / (t * c * p);
        if (search.out.held.data && d != s.deployment.data) continue;
        for (const std::int64_t e : expert_degrees(s, d)) search.layout(t, c, p, e);
      }
    }
  }
  std::vector<RankedLayout>& ranked = search.timed;
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const RankedLayout& a, const RankedLayout& b) { return a.step_floor < b.step_floor; });
  if (ranked.size() > kRankedLayouts) ranked.resize(kRankedLayouts);
  label_losses(ranked);
  search.out.ranked = std::move(ranked);
  if (!search.out.ranked.empty()) search.out.closest.reset();
  return search.out;
}

}  // namespace roofline
