// A fleet for a user load: for each layout of one accelerator, the sequences a group serves
// within its KV budget and the step target, the groups and devices the load needs, the cost.
#include "roofline/analysis/serving.hpp"
#include "roofline/checked.hpp"
#include "roofline/decode.hpp"
#include "roofline/flops.hpp"
#include "roofline/misc.hpp"
#include "roofline/roofline.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace roofline {
namespace {

// The interval between a user's tokens with batch n per micro-batch (per replica): the layout's
// decode step with its collectives, M micro-batches in flight through p stages.
units::Seconds step_at(Scenario& probe, std::int64_t n) {
  probe.workload.batch = n;
  return analyze_deployment(probe, false).interval;
}

// A prompt's prefill floor on the n devices that hold one replica's weights (t x p, or the e of an
// expert group): the stages run in turn: max(F / (n P), Q / (n BW))  [S004] (derived)
units::Seconds prefill_floor(const Scenario& s, std::int64_t devices) {
  const Workload& w = s.workload;
  const double prompt = static_cast<double>(w.prompt);
  const units::Flop f = prefill_flops(s.model, s.counts, prompt, w.basis, w.lm_head, w.attention);
  const units::Bytes q = stored_weights(s.counts, w);
  const auto n = static_cast<double>(devices);
  const HardwareConfig& hw = s.accelerator->hw;
  const units::FlopPerSecond peak = device_peak(s).value_or(units::FlopPerSecond{HUGE_VAL}) * (w.mfu * n);
  return roofline_time(f, q, peak, hw.memory_bandwidth * (w.bw_efficiency * n));
}

// The most sequences, up to `cap`, whose step meets the target: the step grows with n.
std::int64_t most_within(Scenario& probe, std::int64_t cap, units::Seconds target) {
  return largest_where(1, cap, [&](std::int64_t n) { return step_at(probe, n) <= target; });
}

// One group layout: why it cannot serve, or its users per group, groups, devices and cost. A
// pipeline keeps p micro-batches in flight; DP attention + EP serves d replicas' batches.
PlanRow plan_row(const Scenario& s, const PlanInputs& in, PlanRow row) {
  const std::int64_t group_devices = row.tensor * row.pipeline * row.data;
  Scenario probe = s;
  probe.deployment = {.devices = group_devices,
                      .tensor = row.tensor,
                      .pipeline = row.pipeline,
                      .data = row.data,
                      .expert = row.expert,
                      .explicit_layout = true,
                      .link_latency = s.deployment.link_latency,
                      .link_latency_source = s.deployment.link_latency_source,
                      .micro_batches = row.micro_batches};
  probe.workload.batch = 1;
  // Sequences per batch a group serves at once: M micro-batches, or d replicas' batches.
  const std::int64_t batches = row.micro_batches * row.data;
  const DeploymentResult one = analyze_deployment(probe, false);
  // d replicas' budgets; saturates at kMaxCount like max_concurrency (2^62 x d passes 2^63).
  row.kv_sequences =
      one.max_sequences
          ? std::optional(saturated_count(static_cast<double>(*one.max_sequences) * static_cast<double>(row.data)))
          : std::nullopt;
  row.ttft = prefill_floor(probe, group_devices);
  const std::int64_t cap = one.max_sequences.value_or(kMaxCount) / row.micro_batches;
  if (cap < 1) {
    row.limit = PlanLimit::infeasible_memory;
    return row;
  }
  if (in.ttft_s && row.ttft.base() > *in.ttft_s) {
    row.limit = PlanLimit::infeasible_ttft;
    return row;
  }
  const units::Seconds first = step_at(probe, 1);
  if (first > row.target) {
    row.limit = PlanLimit::infeasible_rate;
    row.step = first;
    return row;
  }
  const std::int64_t wanted = (in.users + batches - 1) / batches;  // ceil(users / batches)
  const std::int64_t n = most_within(probe, std::min<std::int64_t>(cap, wanted), row.target);
  row.batch = n;
  row.concurrency = n * batches;
  row.limit = n == wanted ? PlanLimit::load : n == cap ? PlanLimit::kv_budget : PlanLimit::step_target;
  row.step = step_at(probe, n);
  row.tokens_per_s_group = static_cast<double>(row.concurrency) / row.step.base();
  row.groups = (in.users + row.concurrency - 1) / row.concurrency;  // ceil(users / N)
  if (__builtin_mul_overflow(row.groups, group_devices, &row.devices)) {
    throw OverflowError("plan: " + std::to_string(row.groups) + " groups of " + std::to_string(group_devices) +
                        " devices each is more than 2^63 devices");
  }
  if (in.price_per_device_hour) {
    row.cost_per_hour = static_cast<double>(row.devices) * *in.price_per_device_hour;
    const double tokens_per_hour = static_cast<double>(in.users) * in.tokens_per_s_per_user * 3600.0;
    row.cost_per_million_tokens = *row.cost_per_hour / tokens_per_hour * 1e6;
  }
  return row;
}

// The group layouts a plan weighs: every t x p with t within a domain (a pipeline with p micro-batches in flight), and
// for MoE, attention data-parallel over d = e devices with the experts whole on e ranks, e | E.
std::vector<PlanRow> group_layouts(const ModelConfig& m, std::int64_t max_devices, units::Seconds target,
                                   std::int64_t domain) {
  std::vector<PlanRow> out;
  for (const LayoutCandidate& c : tensor_pipeline_layouts(m, max_devices)) {
    // A tensor group's all-reduces are on every step's critical path: it stays in one scale-up domain.
    if (c.tensor > domain) continue;
    PlanRow& row = out.emplace_back();
    row.tensor = c.tensor;
    row.pipeline = c.pipeline;
    row.micro_batches = c.pipeline;
    row.target = target;
  }
  if (m.moe.enabled()) {
    for (std::int64_t e = 2; e <= std::min(m.moe.n_experts, max_devices); ++e) {
      if (m.moe.n_experts % e != 0) continue;
      PlanRow& row = out.emplace_back();
      row.data = e;
      row.expert = e;
      row.target = target;
    }
  }
  return out;
}

}  // namespace

std::vector<PlanRow> analyze_plan(const Scenario& s, const PlanInputs& in) {
  const ModelConfig& m = s.model;
  std::vector<PlanRow> rows;
  const units::Seconds rate_step{1.0 / in.tokens_per_s_per_user};
  const units::Seconds target = in.tpot_s ? std::min(rate_step, units::Seconds{*in.tpot_s}) : rate_step;
  const std::int64_t domain = s.accelerator->system.domain;
  for (const PlanRow& layout : group_layouts(m, in.max_group_devices, target, domain)) {
    rows.push_back(plan_row(s, in, layout));
  }
  // Feasible layouts first, the fewest devices (the cheapest) first, then the smaller group.
  std::stable_sort(rows.begin(), rows.end(), [](const PlanRow& a, const PlanRow& b) {
    if (a.feasible() != b.feasible()) return a.feasible();
    if (a.devices != b.devices) return a.devices < b.devices;
    return a.group_devices() < b.group_devices();
  });
  return rows;
}

}  // namespace roofline
