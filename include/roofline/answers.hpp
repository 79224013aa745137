// One answer per command that composes analyses: which analyses it runs, at which context, and
// which fit verdict is its own. Every mode (a single run, a sweep row, --brief, a batch line, a
// compare column, a plot point, --require-fit) reads the command's answer, so none of them can
// pick another verdict or drop the layout. Answers hold results; they compute nothing of their own.
#pragma once

#include "roofline/analysis.hpp"

#include <optional>
#include <vector>

namespace roofline {

/// What a fit verdict compares.
enum class FitBasis {
  pooled,      ///< the weights, KV and reserve against every device's capacity, as one pool
  per_device,  ///< the binding device of an explicit layout (--tp/--pp/--ep) against its capacity
  training,    ///< a training device's states, activations and reserve against its capacity
};

/// A command's one capacity verdict: whether it fits (unknown where a term cannot be counted:
/// training a model known by its parameter count alone, when the rest fits), and on which basis.
struct Fit {
  std::optional<bool> fits;
  FitBasis basis = FitBasis::pooled;
  units::Bytes required{};  ///< what the basis needs (a training model without layers: its activations excluded)
  units::Bytes capacity{};  ///< what it has: every device's, the binding device's, a training device's
  bool activations_excluded = false;  ///< training a model without layers: required leaves them out
};

/// report: the model's figures, and on an accelerator the decode and prefill floors and the fit.
struct ReportAnswer {
  ParamsResult params;
  FlopsResult flops;
  KvResult kv;
  ElementwiseResult elementwise;
  std::optional<HardwareResult> hardware;  ///< these four with an accelerator only
  std::optional<DecodeResult> decode;
  std::optional<PrefillResult> prefill;
  std::optional<CapacityResult> capacity;
  std::optional<Fit> fit;  ///< none without an accelerator
};
ReportAnswer answer_report(const Scenario& s);

/// memory: the pooled capacity, and the layout's per-device memory where one is given.
struct MemoryAnswer {
  CapacityResult capacity;
  std::optional<DeploymentResult> layout;  ///< at the scenario's batch and context
  Fit fit;                                 ///< the layout's where there is one
};
MemoryAnswer answer_memory(const Scenario& s);

/// decode: the step on the ideal device, through the layout where one is given, and speculation.
struct DecodeAnswer {
  HardwareResult hardware;
  DecodeResult decode;
  std::optional<DeploymentResult> layout;
  std::optional<SpeculativeResult> speculative;  ///< at the scenario's context
  Fit fit;
};
DecodeAnswer answer_decode(const Scenario& s, DecodeOptions o = {});

/// prefill: the pass and its fit at context = prompt.
struct PrefillAnswer {
  HardwareResult hardware;
  PrefillResult prefill;
  Fit fit;
};
PrefillAnswer answer_prefill(const Scenario& s);

/// serve: a request's floors and the server's steady state; the layout holds each request's whole
/// cache (T = S + O), and speculation runs at the generation's mean cache (S + O/2).
struct ServeAnswer {
  ServeResult serve;
  std::optional<DeploymentResult> layout;  ///< at T = S + O and the request batch
  /// The server's steady state through the layout: with a layout, its headline TPOT and rate
  /// (none when the targets allow no sequence); `serve.steady` stays the ideal device's.
  std::optional<LayoutSteadyState> layout_steady;
  std::optional<SpeculativeResult> speculative;
  std::optional<LoadResult> load;  ///< --rate: the server simulated under the load
  Fit fit;
};
ServeAnswer answer_serve(const Scenario& s);

/// train: the step, memory and cost on the cluster; its fit is the training device's (unknown for
/// a model without layers whose other terms fit: its activations are not counted).
struct TrainAnswer {
  TrainResult train;
  Fit fit;
  /// --best-layout: the search, and the scenario at its best layout (what `train` analysed); none
  /// when nothing fits, and then `train` is the resolved layout's analysis.
  std::optional<LayoutSearch> search;
  std::optional<Scenario> searched;
};
TrainAnswer answer_train(const Scenario& s);

/// layer: the operators of one layer of each kind on the accelerator.
struct LayerAnswer {
  HardwareResult hardware;
  LayerResult layer;
};
LayerAnswer answer_layer(const Scenario& s, LayerQuery q);

/// plan: every layout of every accelerator (each scenario is the model on one of them, named by
/// its preset), feasible first, then the cheapest, then the fewest devices.
std::vector<PlanOption> answer_plan(const std::vector<const Scenario*>& on, const PlanInputs& in);

}  // namespace roofline
