// Training on a cluster: memory per device, compute, time, cost and communication per step.
#include "roofline/analysis.hpp"
#include "roofline/flops.hpp"
#include "roofline/training.hpp"

#include <algorithm>
#include <cmath>

namespace roofline {

namespace {

TrainResult train_at(const Scenario& s) {
  const ModelConfig& m = s.model;
  const Deployment& dep = s.deployment;
  const TrainingInputs& in = s.training;
  const Workload& w = s.workload;
  TrainResult r;
  r.devices = dep.devices;
  r.tensor = dep.tensor;
  r.pipeline = dep.pipeline;
  r.data = dep.data;
  r.expert = dep.expert;
  r.sequence_parallel = dep.sequence_parallel;
  r.zero = in.zero;
  r.recipe = &recipe_bytes(in.recipe);

  // Model states of the most loaded device: its parameters, sharded by ZeRO over d.
  r.stage_params = params_per_device(s.counts, {.tensor = dep.tensor, .pipeline = dep.pipeline, .expert = dep.expert});
  r.device_params = r.stage_params.most_loaded();
  r.states = zero_model_states(r.device_params, *r.recipe, in.zero, static_cast<double>(dep.data));

  // Activations: the first stage keeps p micro-batches in flight (1F1B), the last keeps one
  // and the logits.
  const double t = static_cast<double>(dep.tensor);
  const double p = static_cast<double>(dep.pipeline);
  const ActivationOptions opts{.seq_len = static_cast<double>(in.seq_len),
                               .micro_batch = static_cast<double>(in.micro_batch),
                               .tensor_parallel = t,
                               .sequence_parallel = dep.sequence_parallel,
                               .flash_attention = in.flash_attention,
                               .dropout = in.dropout,
                               .recompute = in.recompute,
                               .bytes_per_element = dtype_bytes(w.activation_dtype)};
  r.layers_per_stage = static_cast<double>(m.n_layers) / p;
  // A model known only by N has no layers: its activations are unknown and left at zero.
  if (s.architecture) r.activations_per_layer = model_layer_activations(m, opts) / static_cast<double>(m.n_layers);
  r.in_flight = p;
  r.activations_first_stage = activations_first_stage(r.activations_per_layer, r.layers_per_stage, p);
  r.activations_last_stage = activations_first_stage(r.activations_per_layer, r.layers_per_stage, 1.0);
  r.logits =
      logits_activations(opts.seq_len, opts.micro_batch, static_cast<double>(m.vocab_size), opts.bytes_per_element, t);
  const units::Bytes last = r.activations_last_stage + r.logits.total();
  const units::Bytes first = dep.pipeline > 1 ? r.activations_first_stage : last;
  r.first_stage_binds = dep.pipeline > 1 && first >= last;
  r.activations = std::max(first, last);
  r.reserve = w.reserve;
  r.total = r.states.total() + r.activations + r.reserve;
  r.capacity = s.accelerator ? s.accelerator->hw.memory_capacity : units::Bytes{};
  r.fits = r.total <= r.capacity;
  r.headroom = r.capacity - r.total;

  // Compute per step: 6N per token of model FLOPs (8N executed under full recomputation).
  r.global_batch = in.micro_batch * in.grad_accum * dep.data;
  r.tokens_per_step = static_cast<double>(r.global_batch) * static_cast<double>(in.seq_len);
  r.params = flop_params(s.counts, w.basis);
  const double n = static_cast<double>(r.params);
  r.model_flops_per_step = training_compute(n, r.tokens_per_step);
  // Executed FLOPs: selective recomputation repeats the attention core's forward, full
  // recomputation the whole forward (2N + the attention core)  [KO22 §5] [CH22 App. B]
  r.attention_flops_per_token =
      s.architecture ? attention_flops_prefill(m, static_cast<double>(in.seq_len), AttentionMode::causal) /
                           static_cast<double>(in.seq_len)
                     : units::Flop{};
  r.hardware_flops_per_step =
      executed_training_flops(forward_flops_per_token(s.counts, w.basis), r.attention_flops_per_token, in.recompute) *
      r.tokens_per_step;
  if (s.architecture) {  // a model known only by N has no layers or width for Megatron's form
    r.megatron_flops_per_step = megatron_flops_per_iteration(
        static_cast<double>(r.global_batch), static_cast<double>(in.seq_len), static_cast<double>(m.n_layers),
        static_cast<double>(m.d_model), static_cast<double>(m.vocab_size), in.recompute == Recompute::full);
  }
  r.mfu = w.mfu;
  if (in.tokens) r.training_compute = training_compute(n, static_cast<double>(*in.tokens));
  if (const auto peak = device_peak(s); peak && in.measured_tokens_per_s) {
    const double g = static_cast<double>(dep.devices);
    r.measured_tokens_per_s = in.measured_tokens_per_s;
    r.mfu_measured = units::Fraction{model_flops_utilisation(n, *in.measured_tokens_per_s, g, *peak)};
    // Executed FLOPs per token times tokens per second is the achieved rate of the whole job.
    const units::FlopPerSecond executed{(r.hardware_flops_per_step / r.tokens_per_step).base() *
                                        *in.measured_tokens_per_s};
    r.hfu_measured = units::Fraction{executed / (*peak * g)};
  }
  if (const auto peak = device_peak(s)) {
    r.step_time = time_to_train(r.model_flops_per_step, static_cast<double>(dep.devices), *peak * w.mfu);
    if (in.tokens) {
      r.steps = std::ceil(static_cast<double>(*in.tokens) / r.tokens_per_step);
      r.time_to_train = *r.step_time * *r.steps;
      r.device_hours = r.time_to_train->base() / 3600.0 * static_cast<double>(dep.devices);
      if (in.price_per_device_hour) r.cost = *r.device_hours * *in.price_per_device_hour;
    }
  }

  // Communication per step over the accelerator's link (per direction).
  const double grad_bytes = r.recipe->gradients;
  r.dp_allreduce_bytes = in.zero == ZeroStage::os_g_p
                             ? zero3_step_bytes(r.device_params, grad_bytes, static_cast<double>(dep.data))
                             : dp_gradient_allreduce_bytes(r.device_params, grad_bytes, static_cast<double>(dep.data));
  r.tp_bytes =
      tp_bytes_per_layer(opts.seq_len, opts.micro_batch, static_cast<double>(m.d_model), opts.bytes_per_element, t) *
      (r.layers_per_stage * static_cast<double>(in.grad_accum));
  if (s.accelerator && s.accelerator->hw.interconnect_bandwidth.base() > 0.0) {
    r.link = s.accelerator->hw.interconnect_bandwidth;
    r.dp_allreduce_time = comm_time(r.dp_allreduce_bytes, r.link);
    r.tp_time = comm_time(r.tp_bytes, r.link);
  }
  r.bubble_fraction = pipeline_bubble_fraction(p, static_cast<double>(in.grad_accum), 1.0);
  return r;
}

// Largest value in [1, 2^cap_log2] for which fits(v) holds, fits being monotone; none if not 1.
template <typename F>
std::optional<std::int64_t> largest_fitting(F fits, int cap_log2) {
  if (!fits(1)) return std::nullopt;
  std::int64_t lo = 1;
  std::int64_t hi = 2;
  const std::int64_t cap = std::int64_t{1} << cap_log2;
  while (hi <= cap && fits(hi)) {
    lo = hi;
    hi *= 2;
  }
  if (hi > cap) return lo;
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

// The largest value of one training input (micro-batch, sequence length) that still fits.
template <std::int64_t TrainingInputs::*Field>
std::optional<std::int64_t> largest_fitting_input(const Scenario& s, int cap_log2) {
  Scenario probe = s;
  return largest_fitting(
      [&](std::int64_t v) {
        probe.training.*Field = v;
        return train_at(probe).fits;
      },
      cap_log2);
}

// A layout t x p x d over the same G that the model's heads, layers and experts allow.
bool allowed(const ModelConfig& m, std::int64_t t, std::int64_t p) {
  if (m.n_heads % t != 0 || m.n_layers % p != 0) return false;
  return m.mla.enabled() || m.n_kv_heads % t == 0 || t % m.n_kv_heads == 0;
}

}  // namespace

TrainResult analyze_train(const Scenario& s) {
  TrainResult r = train_at(s);
  r.max_micro_batch = largest_fitting_input<&TrainingInputs::micro_batch>(s, 20);
  r.max_seq_len = largest_fitting_input<&TrainingInputs::seq_len>(s, 24);
  // The smallest model-parallel size t p that fits (fewest devices per replica; among those, KV
  // heads split rather than replicated, then the fewest pipeline stages).
  Scenario probe = s;
  const std::int64_t g = s.deployment.devices;
  std::optional<TrainResult::Layout> best;
  // t divides the heads and p the layers, so t p never needs to pass heads x layers: the search
  // stays bounded whatever G is.
  const std::int64_t limit =
      std::min(g, std::max<std::int64_t>(1, s.model.n_heads) * std::max<std::int64_t>(1, s.model.n_layers));
  for (std::int64_t tp = 1; tp <= limit && !best; ++tp) {
    if (g % tp != 0) continue;
    // Splitting the KV heads before replicating them, then the larger t (fewer pipeline stages).
    for (const bool replicate : {false, true}) {
      for (std::int64_t t = tp; t >= 1 && !best; --t) {
        const std::int64_t p = tp / t;
        if (tp % t != 0 || !allowed(s.model, t, p)) continue;
        const bool splits_kv = s.model.mla.enabled() || s.model.n_kv_heads % t == 0;
        if (splits_kv == replicate) continue;
        probe.deployment.tensor = t;
        probe.deployment.pipeline = p;
        probe.deployment.data = g / tp;
        if (train_at(probe).fits) best = TrainResult::Layout{t, p, g / tp};
      }
      if (best) break;
    }
  }
  r.smallest_fitting_layout = best;
  return r;
}

}  // namespace roofline
