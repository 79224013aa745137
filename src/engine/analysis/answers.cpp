// The commands' answers: each composes the analyses its command shows and names its one fit.
// Under an explicit layout (--tp/--pp/--ep) the verdict is the binding device's, never the pooled
// capacity's: the pool fits whenever the sum of the devices does, a layout only when each does.
#include "roofline/answers.hpp"

#include <algorithm>

namespace roofline {
namespace {

// fits = required <= capacity, on the basis's own terms  [S003-3.4]
Fit pooled(const CapacityResult& c) { return {c.fits, FitBasis::pooled, c.required, c.capacity}; }
Fit per_device(const DeploymentResult& d) {
  return {d.fits, FitBasis::per_device, d.required_per_device, d.capacity_per_device};
}

}  // namespace

ReportAnswer answer_report(const Scenario& s) {
  ReportAnswer a;
  a.params = analyze_params(s);
  a.flops = analyze_flops(s);
  a.kv = analyze_kv(s);
  a.elementwise = analyze_elementwise(s);
  if (s.accelerator) {
    a.hardware = analyze_hardware(s);
    a.decode = analyze_decode(s);
    a.prefill = analyze_prefill(s);
    a.capacity = analyze_capacity(s);
    a.fit = pooled(*a.capacity);
  }
  return a;
}

MemoryAnswer answer_memory(const Scenario& s) {
  MemoryAnswer a;
  a.capacity = analyze_capacity(s);
  a.fit = pooled(a.capacity);
  if (s.deployment.explicit_layout) {
    a.layout = analyze_deployment(s);
    a.fit = per_device(*a.layout);
  }
  return a;
}

DecodeAnswer answer_decode(const Scenario& s, DecodeOptions o) {
  DecodeAnswer a;
  a.hardware = analyze_hardware(s);
  a.decode = analyze_decode(s, o);
  a.fit = pooled(a.decode.capacity);
  if (s.deployment.explicit_layout) {
    a.layout = analyze_deployment(s);
    a.fit = per_device(*a.layout);
  }
  if (s.speculation) a.speculative = analyze_speculative(s, s.workload.context);
  return a;
}

PrefillAnswer answer_prefill(const Scenario& s) {
  PrefillAnswer a;
  a.hardware = analyze_hardware(s);
  a.prefill = analyze_prefill(s);
  a.fit = pooled(a.prefill.capacity);
  // A context-parallel group holds the weights whole on each rank: the rank's fit binds.
  if (const std::optional<ContextParallelPrefill>& cp = a.prefill.cp) {
    a.fit = {cp->fits, FitBasis::per_device, cp->required, cp->capacity};
  }
  return a;
}

ServeAnswer answer_serve(const Scenario& s) {
  ServeAnswer a;
  a.serve = analyze_serve(s);
  a.fit = pooled(a.serve.capacity);
  if (s.deployment.explicit_layout) {
    // The layout holds each request's whole cache, prompt and output: S + O.
    Scenario at = s;
    at.workload.context = a.serve.capacity.context;
    a.layout = analyze_deployment(at);
    a.fit = per_device(*a.layout);
    a.layout_steady = analyze_layout_steady(s, a.serve);
  }
  if (s.speculation) {
    // At the mean cache of the generation, S + O/2.
    const Workload& w = s.workload;
    a.speculative = analyze_speculative(s, w.prompt + w.output / 2);
  }
  if (s.serving.load) a.load = analyze_load(s);
  return a;
}

TrainAnswer answer_train(const Scenario& s) {
  TrainAnswer a;
  if (s.training.layout_search) {
    a.search = search_train_layouts(s);
    if (!a.search->ranked.empty()) {
      a.searched = at_layout(s, a.search->ranked.front().layout);
    } else if (a.search->closest) {
      a.searched = at_layout(s, *a.search->closest);  // nothing fits: the nearest miss, shown not fitting
    }
  }
  a.train = analyze_train(a.searched ? *a.searched : s);
  // Without layers the activations are not counted: a total that fits without them says nothing.
  a.fit.basis = FitBasis::training;
  a.fit.required = a.train.total;
  a.fit.capacity = a.train.capacity;
  a.fit.activations_excluded = !a.train.activations_known;
  if (a.train.activations_known || !a.train.fits) a.fit.fits = a.train.fits;
  return a;
}

LayerAnswer answer_layer(const Scenario& s, LayerQuery q) {
  LayerAnswer a;
  a.hardware = analyze_hardware(s);
  a.layer = analyze_layer(s, q);
  return a;
}

std::vector<PlanOption> answer_plan(const std::vector<const Scenario*>& on, const PlanInputs& in) {
  std::vector<PlanOption> options;
  for (const Scenario* s : on) {
    for (const PlanRow& row : analyze_plan(*s, in)) options.push_back({s->accelerator->hw.name, row});
  }
  std::stable_sort(options.begin(), options.end(), [](const PlanOption& a, const PlanOption& b) {
    if (a.row.feasible() != b.row.feasible()) return a.row.feasible();
    if (a.row.cost_per_hour && b.row.cost_per_hour && *a.row.cost_per_hour != *b.row.cost_per_hour) {
      return *a.row.cost_per_hour < *b.row.cost_per_hour;
    }
    return a.row.devices < b.row.devices;
  });
  return options;
}

}  // namespace roofline
