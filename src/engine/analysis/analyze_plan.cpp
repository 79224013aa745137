// A fleet for a user load: for each layout of one accelerator, the sequences a group serves
// within its KV budget and the step target, the groups and devices the load needs, the cost.
#include "roofline/analysis.hpp"
#include "roofline/flops.hpp"
#include "roofline/misc.hpp"
#include "roofline/roofline.hpp"

#include <algorithm>
#include <cmath>

namespace roofline {
namespace {

// The group's decode step at batch n: the layout's step with its communication.
units::Seconds step_at(Scenario& probe, std::int64_t n) {
  probe.workload.batch = n;
  return analyze_deployment(probe, false).t_step;
}

// A prompt's prefill floor on t x p: the p stages run in turn, each on t devices:
// max(F / (t P), Q / (t BW))  [S004] (derived)
units::Seconds prefill_floor(const Scenario& s, std::int64_t t) {
  const Workload& w = s.workload;
  const double prompt = static_cast<double>(w.prompt);
  const units::Flop f = prefill_flops(s.model, s.counts, prompt, w.basis, w.lm_head, w.attention);
  const units::Bytes q{static_cast<double>(s.counts.total) * w.weight_bits / 8.0};
  const auto devices = static_cast<double>(t);
  const HardwareConfig& hw = s.accelerator->hw;
  const units::FlopPerSecond peak = device_peak(s).value_or(units::FlopPerSecond{HUGE_VAL}) * (w.mfu * devices);
  return roofline_time(f, q, peak, hw.memory_bandwidth * (w.bw_efficiency * devices));
}

// The most sequences, up to `cap`, whose step meets the target: the step grows with n.
std::int64_t most_within(Scenario& probe, std::int64_t cap, units::Seconds target) {
  std::int64_t lo = 1;
  std::int64_t hi = cap;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo + 1) / 2;
    if (step_at(probe, mid) <= target) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

// One layout t x p: why it cannot serve, or its users per group, groups, devices and cost.
PlanRow plan_row(const Scenario& s, const PlanInputs& in, std::int64_t t, std::int64_t p, units::Seconds target) {
  Scenario probe = s;
  probe.deployment = {.devices = t * p,
                      .tensor = t,
                      .pipeline = p,
                      .data = 1,
                      .expert = 1,
                      .explicit_layout = true,
                      .link_latency = s.deployment.link_latency};
  probe.workload.batch = 1;
  PlanRow row;
  row.tensor = t;
  row.pipeline = p;
  row.target = target;
  const DeploymentResult one = analyze_deployment(probe, false);
  row.kv_sequences = one.max_sequences;
  row.ttft = prefill_floor(probe, t);
  const std::int64_t cap = one.max_sequences.value_or(kMaxCount);
  if (cap < 1) {
    row.limit = PlanLimit::infeasible_memory;
    return row;
  }
  if (in.ttft_s && row.ttft.base() > *in.ttft_s) {
    row.limit = PlanLimit::infeasible_ttft;
    return row;
  }
  if (one.t_step > target) {
    row.limit = PlanLimit::infeasible_rate;
    row.step = one.t_step;
    return row;
  }
  const std::int64_t n = most_within(probe, std::min<std::int64_t>(cap, in.users), target);
  row.concurrency = n;
  row.limit = n == in.users ? PlanLimit::load : n == cap ? PlanLimit::kv_budget : PlanLimit::step_target;
  row.step = step_at(probe, n);
  row.tokens_per_s_group = static_cast<double>(n) / row.step.base();
  row.groups = (in.users + n - 1) / n;  // ceil(users / n)
  row.devices = row.groups * t * p;
  if (in.price_per_device_hour) {
    row.cost_per_hour = static_cast<double>(row.devices) * *in.price_per_device_hour;
    const double tokens_per_hour = static_cast<double>(in.users) * in.tokens_per_s_per_user * 3600.0;
    row.cost_per_million_tokens = *row.cost_per_hour / tokens_per_hour * 1e6;
  }
  return row;
}

}  // namespace

std::vector<PlanRow> analyze_plan(const Scenario& s, const PlanInputs& in) {
  const ModelConfig& m = s.model;
  std::vector<PlanRow> rows;
  const units::Seconds rate_step{1.0 / in.tokens_per_s_per_user};
  const units::Seconds target = in.tpot_s ? std::min(rate_step, units::Seconds{*in.tpot_s}) : rate_step;
  for (const LayoutCandidate& c : tensor_pipeline_layouts(m, in.max_group_devices)) {
    rows.push_back(plan_row(s, in, c.tensor, c.pipeline, target));
  }
  // Feasible layouts first, the fewest devices (the cheapest) first, then the smaller group.
  std::stable_sort(rows.begin(), rows.end(), [](const PlanRow& a, const PlanRow& b) {
    if (a.feasible() != b.feasible()) return a.feasible();
    if (a.devices != b.devices) return a.devices < b.devices;
    return a.tensor * a.pipeline < b.tensor * b.pipeline;
  });
  return rows;
}

}  // namespace roofline
