// Inference on a parallel layout: memory per device, the fit of the binding device, and a decode
// step through the pipeline stages with the tensor-parallel all-reduces and stage hand-offs.
#include "roofline/analysis/serving.hpp"
#include "roofline/checked.hpp"
#include "roofline/decode.hpp"
#include "roofline/flops.hpp"
#include "roofline/memory.hpp"
#include "roofline/misc.hpp"
#include "roofline/parallel.hpp"
#include "roofline/roofline.hpp"
#include "roofline/training_memory.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace roofline {
namespace {

// One sequence's cache in its two parts: the attention layers' KV at the context and a
// state-space mixer's recurrent state.
struct SequenceCache {
  units::Bytes attention;
  units::Bytes state;
  /// The part of `attention` in Gemma 4's global layers, which split over their own KV heads.
  units::Bytes global_shape{};
};

SequenceCache sequence_cache(const Scenario& s) {
  const ModelConfig& m = s.model;
  const CacheBytes b = s.workload.cache_bytes();
  const auto t = static_cast<double>(s.workload.context);
  SequenceCache c{.attention = attention_kv_bytes_per_sequence(m, t, b), .state = state_bytes_per_sequence(m, b)};
  if (m.global_attention.enabled())
    c.global_shape = units::Bytes{attention_spans(m, layer_windows(m)).global_elements * t * b.kv};
  return c;
}

// Weights and the cache shares of one device of the layout t x p (e expert ranks).
struct DeviceMemory {
  DeviceParams params;
  DeviceParams stage_bytes;  // the weights each stage's device holds, in bytes
  units::Bytes weights;
  double kv_share = 0.0;     // of the attention KV; 0 without attention heads
  double state_share = 0.0;  // of the recurrent state
  units::Bytes cache;        // of one sequence
};

// Serving with expert parallelism keeps experts whole, E/e a device; without it, t splits each.
ParallelDegrees serving_degrees(std::int64_t t, std::int64_t p, std::int64_t e) {
  return {.tensor = t, .pipeline = p, .expert = e, .expert_tensor = e > 1 ? 1 : 0};
}

DeviceMemory device_memory(const Scenario& s, std::int64_t t, std::int64_t p, std::int64_t e,
                           const SequenceCache& cache) {
  const ModelConfig& m = s.model;
  DeviceMemory d;
  d.params = params_per_device(s.counts, serving_degrees(t, p, e));
  d.stage_bytes = weights_per_device(s.counts, serving_degrees(t, p, e), s.workload);
  d.weights = units::Bytes{d.stage_bytes.most_loaded()};
  // MLA's latent is one head that every tensor rank keeps whole; a pure state-space model has none.
  const double heads = m.mla.enabled() ? 1.0 : static_cast<double>(m.n_kv_heads);
  const auto td = static_cast<double>(t);
  const auto pd = static_cast<double>(p);
  if (heads > 0.0) d.kv_share = kv_share_per_rank(heads, td) / pd;
  d.state_share = state_share_per_rank(td) / pd;
  d.cache = cache_per_sequence_per_device(cache.attention - cache.global_shape, cache.state, heads, td, pd);
  if (cache.global_shape.base() > 0.0) {  // Gemma 4: the global layers' own KV heads
    const auto global_heads = static_cast<double>(global_head_shape(m).kv_heads);
    d.cache += cache_per_sequence_per_device(cache.global_shape, units::Bytes{}, global_heads, td, pd);
  }
  return d;
}

// The search splits experts by tensor parallelism (e = 1): t x p alone decides the fit.
bool fits_on(const Scenario& s, std::int64_t t, std::int64_t p, const SequenceCache& cache) {
  const DeviceMemory d = device_memory(s, t, p, 1, cache);
  const units::Bytes need = d.weights + d.cache * static_cast<double>(s.workload.batch) + s.workload.reserve;
  return need <= s.accelerator->hw.memory_capacity;
}

// The least t p that fits, t within a scale-up domain (a pure state-space model has no attention
// heads: t = 1).
std::optional<DeploymentResult::Layout> smallest_fitting_layout(const Scenario& s, const SequenceCache& cache) {
  const ModelConfig& m = s.model;
  const std::int64_t domain = s.accelerator->system.domain;
  for (const LayoutCandidate& c : tensor_pipeline_layouts(m, std::max<std::int64_t>(1, m.n_heads) * m.n_layers)) {
    if (c.tensor > domain) continue;  // a tensor group stays inside one scale-up domain
    if (fits_on(s, c.tensor, c.pipeline, cache)) return DeploymentResult::Layout{c.tensor, c.pipeline};
  }
  return std::nullopt;
}

}  // namespace

std::vector<StateSplit> state_tensor_splits(const ModelConfig& m) {
  bool mamba1 = false;
  bool mamba2 = false;
  bool deltanet = false;
  bool short_conv = false;
  bool lightning = false;
  for (const LayerMix& mix : m.hybrid.layers) {
    lightning = lightning || mix.state == StateMixer::lightning;
    short_conv = short_conv || mix.state == StateMixer::short_conv;
    mamba1 = mamba1 || mix.state == StateMixer::mamba1;
    mamba2 = mamba2 || mix.state == StateMixer::mamba2;
    deltanet = deltanet || mix.state == StateMixer::gated_deltanet;
  }
  std::vector<StateSplit> out;
  if (mamba1) out.push_back({m.hybrid.ssm.d_inner, "Mamba channels"});
  if (mamba2) out.push_back({m.hybrid.ssm.n_heads, "Mamba-2 heads"});
  if (short_conv) out.push_back({m.d_model, "short-conv channels"});
  if (lightning) out.push_back({m.n_heads, "lightning-attention heads"});
  if (deltanet) {
    out.push_back({m.hybrid.deltanet.n_key_heads, "Gated DeltaNet key heads"});
    out.push_back({m.hybrid.deltanet.n_value_heads, "Gated DeltaNet value heads"});
  }
  return out;
}

std::vector<LayoutCandidate> tensor_pipeline_layouts(const ModelConfig& m, std::int64_t max_devices) {
  const std::int64_t heads = std::max<std::int64_t>(1, m.n_heads);
  const std::int64_t layers = std::max<std::int64_t>(1, m.n_layers);
  const std::int64_t kv_heads = std::max<std::int64_t>(1, m.n_kv_heads);
  const std::int64_t global_kv_heads = std::max<std::int64_t>(1, global_head_shape(m).kv_heads);  // Gemma 4's own
  const std::vector<StateSplit> state = state_tensor_splits(m);
  std::vector<LayoutCandidate> out;
  for (std::int64_t t = 1; t <= heads && t <= max_devices; ++t) {
    if (heads % t != 0) continue;
    if (std::any_of(state.begin(), state.end(), [t](const StateSplit& x) { return x.count % t != 0; })) continue;
    const bool splits = m.mla.enabled() || (kv_heads % t == 0 && global_kv_heads % t == 0);
    const bool replicas =
        (kv_heads % t == 0 || t % kv_heads == 0) && (global_kv_heads % t == 0 || t % global_kv_heads == 0);
    if (!splits && !replicas) continue;
    for (std::int64_t p = 1; p <= layers && t * p <= max_devices; ++p) {
      if (layers % p == 0) out.push_back({t, p, !splits});
    }
  }
  std::sort(out.begin(), out.end(), [](const LayoutCandidate& a, const LayoutCandidate& b) {
    if (a.tensor * a.pipeline != b.tensor * b.pipeline) return a.tensor * a.pipeline < b.tensor * b.pipeline;
    if (a.replicates_kv != b.replicates_kv) return !a.replicates_kv;
    return a.pipeline < b.pipeline;
  });
  return out;
}

namespace {

// A serving layout's collectives on the system's topology: the tensor group is t consecutive
// ranks, the expert group e, and stage neighbours t ranks apart, sharing a domain only when the
// whole pipeline does.
void on_topology(const Scenario& s, DeploymentResult& r) {
  const Deployment& dep = s.deployment;
  const Topology& topo = s.accelerator->system;
  const LatencyModel lat =
      dep.link_latency_source == LinkLatencySource::flag ? LatencyModel{false, dep.link_latency} : LatencyModel{};
  const double eff = dep.link_efficiency;
  r.tp_links = group_links(topo, dep.tensor, 1, eff);
  r.link = r.tp_links.bus_bandwidth;
  const CollectiveTime ar = allreduce_time(topo, r.tp_links, r.allreduce_bytes, lat);
  r.latency = ar.latency;
  r.protocol = ar.protocol;
  r.t_allreduce = ar.time * r.allreduces_per_stage;
  if (r.alltoalls_per_stage > 0.0) {
    r.ep_links = group_links(topo, dep.expert, 1, eff);
    const auto e = static_cast<double>(dep.expert);
    // The all-to-all's message a member: what it sends away, (e - 1)/e of it, over (e - 1)/e.
    const CollectiveTime a2a = alltoall_time(r.ep_links, r.alltoall_bytes * (e / (e - 1.0)), lat);
    r.alltoall_latency = a2a.latency;
    r.t_alltoall = a2a.time * r.alltoalls_per_stage;
  }
  if (dep.pipeline > 1) {
    r.hop_spans = checked_mul(dep.tensor, dep.pipeline) > topo.domain;
    r.hop_kind = r.hop_spans && topo.has_across ? topo.across.kind : topo.inside.kind;
    r.hop_link = (r.hop_spans && topo.has_across ? topo.across.bandwidth : topo.inside.bandwidth) * eff;
    if (!r.hop_spans && topo.mesh) r.hop_link = mesh_group_bandwidth(r.hop_link, 2.0, static_cast<double>(topo.domain));
    const CollectiveTime hop = send_time(r.hop_kind, r.hop_link, r.hop_bytes, lat);
    r.hop_latency = hop.latency;
    r.t_hop = hop.time;
  }
}

}  // namespace

DeploymentResult analyze_deployment(const Scenario& s, bool search_smallest) {
  const ModelConfig& m = s.model;
  const Workload& w = s.workload;
  const Deployment& dep = s.deployment;
  const HardwareConfig& hw = s.accelerator->hw;
  DeploymentResult r;
  r.tensor = dep.tensor;
  r.pipeline = dep.pipeline;
  r.data = dep.data;
  r.expert = dep.expert;
  r.devices = dep.devices;
  r.batch = w.batch;
  r.context = w.context;
  const auto t = static_cast<double>(dep.tensor);
  const auto p = static_cast<double>(dep.pipeline);
  const auto batch = static_cast<double>(w.batch);

  // Memory of the binding device.
  const SequenceCache cache = sequence_cache(s);
  const DeviceMemory d = device_memory(s, dep.tensor, dep.pipeline, dep.expert, cache);
  r.stage_params = d.params;
  r.last_stage_binds = d.params.last_stage > d.params.first_stage;
  r.weights_per_device = d.weights;
  r.kv_share = d.kv_share;
  r.state_share = d.state_share;
  r.kv_replicated =
      !m.mla.enabled() && m.n_kv_heads > 0 && (dep.tensor > m.n_kv_heads || dep.tensor > global_head_shape(m).kv_heads);
  r.kv_attention_per_sequence = cache.attention;
  r.state_per_sequence = cache.state;
  r.kv_per_sequence = cache.attention + cache.state;
  r.kv_per_sequence_per_device = d.cache;
  r.capacity_per_device = hw.memory_capacity;
  r.reserve_per_device = w.reserve;
  // Every batch in flight keeps its cache on every stage.
  r.micro_batches = dep.micro_batches;
  const auto in_flight = batch * static_cast<double>(dep.micro_batches);
  r.layers_per_stage = static_cast<double>(m.n_layers) / p;
  const units::Bytes kv_held = r.kv_per_sequence_per_device * in_flight + r.reserve_per_device;
  r.first_stage_required = units::Bytes{d.stage_bytes.first_stage} + kv_held;
  r.last_stage_required = units::Bytes{d.stage_bytes.last_stage} + kv_held;
  r.required_per_device = r.weights_per_device + r.kv_per_sequence_per_device * in_flight + r.reserve_per_device;
  r.fits = r.required_per_device <= r.capacity_per_device;
  r.max_sequences =
      max_concurrency(r.capacity_per_device, r.weights_per_device, r.reserve_per_device, r.kv_per_sequence_per_device);

  // Decode: each stage reads its weights (in the share a batch touches) and its cache, computes
  // its 1/(t p) of the FLOPs, and all-reduces twice per layer; the batch then hops to the next.
  const Machine machine{.peak = device_peak(s).value_or(units::FlopPerSecond{HUGE_VAL}) * w.mfu,
                        .bandwidth = hw.memory_bandwidth * w.bw_efficiency};
  // An expert group of e ranks spans e/t replicas when e > t: their attention runs data-parallel
  // and every replica's tokens reach the group's experts.
  const auto e = static_cast<double>(dep.expert);
  r.attention_data_parallel = m.moe.enabled() && dep.expert > dep.tensor;
  if (m.moe.enabled() && dep.expert > 1) r.experts_per_device = static_cast<double>(m.moe.n_experts) / e;
  r.expert_tokens = batch * std::max(1.0, e / t);
  const DeviceParams read = params_read_per_device(m, s.counts, serving_degrees(dep.tensor, dep.pipeline, dep.expert),
                                                   batch, r.expert_tokens, w.decode_bytes, w.moe_decode);
  r.params_read_per_device = read.most_loaded();
  r.weights_read_per_device =
      units::Bytes{weights_read_per_device(m, s.counts, serving_degrees(dep.tensor, dep.pipeline, dep.expert), batch,
                                           r.expert_tokens, w)
                       .most_loaded()};
  r.params_read_share = r.params_read_per_device / d.params.most_loaded();
  r.flops_per_device =
      (forward_flops_per_token(s.counts, w.basis) + attention_flops_decode_token(m, static_cast<double>(w.context))) *
      (batch / (t * p));
  r.bytes_per_device = r.weights_read_per_device + r.kv_per_sequence_per_device * batch;
  r.t_compute = r.flops_per_device / machine.peak;
  r.t_memory = r.bytes_per_device / machine.bandwidth;
  r.t_stage = roofline_time(r.flops_per_device, r.bytes_per_device, machine.peak, machine.bandwidth);

  const units::Bytes activation{batch * static_cast<double>(m.d_model) * dtype_bytes(w.activation_dtype)};
  r.allreduce_bytes = activation;
  r.allreduces_per_stage = 2.0 * static_cast<double>(m.n_layers) / p;
  r.hop_bytes = activation;
  // Expert parallelism: each MoE layer sends the k routed copies of every token away and back,
  // (e - 1)/e of them to other ranks; the t ranks of a replica each send 1/t of its tokens  [LE21]
  if (m.moe.enabled() && dep.expert > 1) {
    double moe_layers = 0.0;
    for (std::int64_t i = 0; i < m.n_layers; ++i) moe_layers += m.is_moe_layer(i) ? 1.0 : 0.0;
    r.alltoall_bytes = activation * (static_cast<double>(m.moe.top_k) * (e - 1.0) / e / t);
    r.alltoalls_per_stage = 2.0 * moe_layers / p;
  }
  if (s.accelerator->system.inside.bandwidth.base() > 0.0) on_topology(s, r);
  r.t_step = pipeline_latency(p, r.t_stage + r.t_allreduce + r.t_alltoall, r.t_hop);
  r.comm_share = (((r.t_allreduce + r.t_alltoall) * p + r.t_hop * (p - 1.0)) / r.t_step);
  r.tokens_per_s_replica = batch / r.t_step.base();
  // M batches in flight keep the stages busy once M >= p.
  const auto mb = static_cast<double>(dep.micro_batches);
  r.slot = r.t_stage + r.t_allreduce + r.t_alltoall + r.t_hop;
  r.interval = pipelined_decode_interval(mb, p, r.slot);
  r.idle_share = pipelined_decode_idle(mb, p);
  r.tokens_per_s_pipelined = mb * batch / r.interval.base();
  r.tokens_per_s = r.tokens_per_s_replica * static_cast<double>(dep.data);

  if (search_smallest) r.smallest_fitting = smallest_fitting_layout(s, cache);
  return r;
}

namespace {

// One step through the layout at N sequences: the replica's work as steady_state counts it, split
// over its t p devices, with the tensor-parallel all-reduces and the hand-offs of the step's tokens.
LayoutSteadyState layout_step(const Scenario& s, double n_all, double prefix) {
  const ModelConfig& m = s.model;
  const Workload& w = s.workload;
  const Deployment& dep = s.deployment;
  const HardwareConfig& hw = s.accelerator->hw;
  const auto t = static_cast<double>(dep.tensor);
  const auto p = static_cast<double>(dep.pipeline);
  LayoutSteadyState r;
  r.concurrency = n_all;
  r.per_replica = n_all / static_cast<double>(dep.data);
  const Machine device{.peak = device_peak(s).value_or(units::FlopPerSecond{HUGE_VAL}) * w.mfu,
                       .bandwidth = hw.memory_bandwidth * w.bw_efficiency};
  r.device = device;
  r.replica = steady_state(m, s.counts, w, device, r.per_replica, prefix);
  r.step_tokens = r.per_replica + r.replica.prefill_tokens;
  // The token-proportional parts (weights touched, all-reduces, all-to-alls, hand-offs) are the
  // layout's decode step at the step's tokens, rounded up to whole tokens, at the mean cache.
  Scenario at = s;
  // Saturated, not cast: --concurrency 2^62 carries more tokens than an int64 holds.
  at.workload.batch = std::max<std::int64_t>(1, saturated_count(std::ceil(r.step_tokens)));
  at.workload.context = saturated_count(std::ceil(r.replica.mean_context));
  const DeploymentResult d = analyze_deployment(at, false);
  r.cache_share = d.kv_per_sequence.base() > 0.0 ? d.kv_per_sequence_per_device / d.kv_per_sequence : 0.0;
  r.flops_per_device = r.replica.flops / (t * p);
  r.weights_read_per_device = d.weights_read_per_device;
  r.bytes_per_device = r.weights_read_per_device + (r.replica.kv_read + r.replica.kv_written) * r.cache_share;
  r.t_stage = roofline_time(r.flops_per_device, r.bytes_per_device, device.peak, device.bandwidth);
  r.t_allreduce = d.t_allreduce;
  r.t_alltoall = d.t_alltoall;
  r.t_hop = d.t_hop;
  r.t_step = pipeline_latency(p, r.t_stage + r.t_allreduce + r.t_alltoall, r.t_hop);
  r.tokens_per_s = n_all / r.t_step.base();
  r.requests_per_s = r.tokens_per_s / std::max(1.0, static_cast<double>(w.output));
  return r;
}

}  // namespace

std::optional<LayoutSteadyState> analyze_layout_steady(const Scenario& s, const ServeResult& ideal) {
  const Workload& w = s.workload;
  const ServingInputs& in = s.serving;
  const auto prefix = static_cast<double>(std::min(in.shared_prefix, w.prompt));
  // The KV budget: the most sequences a replica's devices hold at the longest cache, S + O.
  Scenario longest = s;
  longest.workload.context = ideal.capacity.context;
  const DeploymentResult full = analyze_deployment(longest, false);
  std::optional<std::int64_t> cap;
  if (full.max_sequences) cap = checked_mul(*full.max_sequences, s.deployment.data);
  const std::int64_t budget = cap.value_or(0);
  const auto meets = [&](std::int64_t n) {
    return layout_step(s, static_cast<double>(n), prefix).t_step.base() <= *in.tpot_target_s;
  };
  std::optional<std::int64_t> by_tpot;
  if (in.tpot_target_s && budget >= 1) {
    by_tpot = largest_where(0, budget, [&](std::int64_t n) { return n == 0 || meets(n); });
  }
  const AllowedConcurrency allowed = allowed_concurrency(budget, by_tpot, ideal.ttft_met);
  const std::int64_t n = in.concurrency.value_or(allowed.sequences);
  if (n < 1) return std::nullopt;
  LayoutSteadyState r = layout_step(s, static_cast<double>(n), prefix);
  r.max_concurrency = cap;
  r.max_concurrency_tpot = by_tpot;
  r.limit = allowed.limit;
  return r;
}

}  // namespace roofline
