// Analyses on an accelerator: hardware, capacity, decode, prefill, serve, gemm.
#include "roofline/activations.hpp"
#include "roofline/analysis/layer.hpp"
#include "roofline/analysis/serving.hpp"
#include "roofline/flops.hpp"
#include "roofline/layer_stack.hpp"
#include "roofline/memory.hpp"
#include "roofline/misc.hpp"
#include "roofline/roofline.hpp"
#include "roofline/topology.hpp"
#include "roofline/training_memory.hpp"

#include <algorithm>
#include <cmath>

namespace roofline {
namespace {

CapacityResult capacity_at(const Scenario& s, std::int64_t batch, std::int64_t context) {
  const ModelConfig& m = s.model;
  const Workload& w = s.workload;
  CapacityResult r;
  if (s.accelerator) {
    r.device_capacity = s.accelerator->hw.memory_capacity;
    r.source = s.accelerator->capacity_source;
  }
  r.devices = s.deployment.devices;
  r.capacity = total_capacity(s);
  r.weights = stored_weights(s.counts, w);
  r.reserve_per_device = w.reserve;
  r.reserve = total_reserve(s);
  r.free = free_memory(r.capacity, r.weights, r.reserve);
  r.batch = batch;
  r.context = context;
  const CacheBytes b = w.cache_bytes();
  r.kv_per_sequence = kv_bytes_per_sequence(m, static_cast<double>(context), b);
  r.required = inference_bytes(r.weights, r.reserve, r.kv_per_sequence, static_cast<double>(batch));
  r.fits = r.required <= r.capacity;
  if (const auto n = max_concurrency(r.capacity, r.weights, r.reserve, r.kv_per_sequence)) {
    r.max_sequences = units::Sequences{*n};
  }
  if (r.max_sequences && !m.mla.enabled() && m.n_kv_heads != m.n_heads) {
    ModelConfig mha = m;
    mha.n_kv_heads = m.n_heads;
    r.kv_per_sequence_mha = kv_bytes_per_sequence(mha, static_cast<double>(context), b);
    if (const auto n = max_concurrency(r.capacity, r.weights, r.reserve, *r.kv_per_sequence_mha)) {
      r.max_sequences_mha = units::Sequences{*n};
    }
  }
  r.max_context = units::TokenCount{max_context(m, r.free, batch, b)};
  r.max_context_beyond_trained = m.max_seq_len > 0 && r.max_context.base() > m.max_seq_len;
  const units::Bytes kv_batch = r.kv_per_sequence * static_cast<double>(batch);
  r.devices_needed = devices_to_fit(r.weights + kv_batch, r.device_capacity - r.reserve_per_device);
  return r;
}

}  // namespace

CapacityResult analyze_capacity(const Scenario& s) { return capacity_at(s, s.workload.batch, s.workload.context); }

HardwareResult analyze_hardware(const Scenario& s) {
  HardwareResult r;
  const HardwareConfig& h = s.accelerator->hw;
  r.name = h.name;
  r.display_name = h.display_name;
  r.devices = s.deployment.devices;
  r.device_capacity = h.memory_capacity;
  r.source = s.accelerator->capacity_source;
  r.device_bandwidth = h.memory_bandwidth;
  r.compute_dtype = s.workload.compute_dtype;
  r.device_peak = device_peak(s);
  if (r.device_peak) r.ridge = ridge_point(*r.device_peak, h.memory_bandwidth);
  r.machine = effective_machine(s);
  r.mfu = s.workload.mfu;
  r.bw_efficiency = s.workload.bw_efficiency;
  r.derated = r.mfu < 1.0 || r.bw_efficiency < 1.0;
  return r;
}

DecodeResult analyze_decode(const Scenario& s, DecodeOptions o) {
  const ModelConfig& m = s.model;
  const Workload& w = s.workload;
  DecodeResult r;
  r.machine = effective_machine(s);
  r.has_peak = device_peak(s).has_value();
  r.batch = w.batch;
  r.context = w.context;
  r.step = decode_step(m, s.counts, w, r.machine);
  r.forward_per_token = forward_flops_per_token(s.counts, w.basis);
  r.attention_per_token = attention_flops_decode_token(m, static_cast<double>(w.context));
  // The two whiteboard ceilings beside the physical one: one sequence, weights only.
  Workload w0 = w;
  w0.batch = 1;
  w0.context = 0;
  r.touched_no_kv = decode_step(m, s.counts, w0, r.machine);
  w0.decode_bytes = DecodeBytes::all_weights;
  r.all_weights_no_kv = decode_step(m, s.counts, w0, r.machine);
  if (r.has_peak) {
    if (o.searches) {
      r.compute_bound_batch = decode_compute_bound_batch(m, s.counts, w, r.machine);
      Workload wk = w;
      wk.context = 0;
      r.compute_bound_batch_no_kv = decode_compute_bound_batch(m, s.counts, wk, r.machine);
    }
    r.ridge = ridge_point(r.machine.peak, r.machine.bandwidth);
    const double t = projection_compute_bound_tokens(static_cast<double>(m.d_model), *r.ridge);
    if (t > 0.0) r.projection_compute_bound_tokens = units::Tokens{t};
  }
  r.capacity = capacity_at(s, w.batch, w.context);
  return r;
}

std::optional<ContextParallelPrefill> context_parallel_prefill(const Scenario& s, const PrefillPass& pooled) {
  const Deployment& dep = s.deployment;
  if (dep.context <= 1 || !s.accelerator || !device_peak(s)) return std::nullopt;
  const ModelConfig& m = s.model;
  const Workload& w = s.workload;
  ContextParallelPrefill r;
  r.ranks = dep.context;
  const auto c = static_cast<double>(dep.context);
  const Machine all = effective_machine(s);
  const auto g = static_cast<double>(dep.devices);
  r.rank = Machine{all.peak / g, all.bandwidth / g};
  r.local_tokens = static_cast<double>(w.prompt) / c;
  // Every rank runs every layer on its s/c tokens: the FLOPs split c ways (the 2c chunks even the
  // causal attention's), the weights are read whole, the cache written is the rank's share.
  r.flops = pooled.flops / c;
  r.kv = pooled.kv_written / c;
  r.bytes = pooled.weight_bytes + r.kv;
  r.t_compute = r.flops / r.rank.peak;
  r.t_memory = r.bytes / r.rank.bandwidth;
  const CapacityResult cap = capacity_at(s, w.batch, w.prompt);
  r.capacity = cap.device_capacity;
  r.required = cap.weights + r.kv + cap.reserve_per_device;
  r.fits = r.required <= r.capacity;
  // The ring: each attention layer's blocks of s/c tokens' keys and values, in the activations' dtype.
  const LayerWidths widths = layer_widths(m, false);
  r.block = cp_kv_block_bytes(r.local_tokens, static_cast<double>(w.batch),
                              static_cast<double>(widths.w_k + widths.w_v), dtype_bytes(w.activation_dtype), 1.0);
  for (const LayerKind& k : layer_kinds(m)) {
    if (!k.mix.attention || k.cross_attention) continue;
    const auto n = static_cast<double>(k.layers);
    r.attention_layers += n;
    r.blocks += n * cp_prefill_blocks(c, r.local_tokens, static_cast<double>(k.window));
  }
  const Topology& topo = s.accelerator->system;
  const LatencyModel lat =
      dep.link_latency_source == LinkLatencySource::flag ? LatencyModel{false, dep.link_latency} : LatencyModel{};
  r.links = group_links(topo, dep.context, 1, dep.link_efficiency);
  const CollectiveTime one = ring_send_time(topo, r.links, r.block, lat);
  r.ring = one.time * r.blocks;
  r.ring_latency = one.latency * r.blocks;
  r.attention = pooled.attention_flops / c / r.rank.peak;
  r.exposed = cp_exposed_time(r.ring, r.attention);
  r.t_floor = cp_prefill_floor(r.t_compute, r.t_memory, r.exposed);
  r.one_device = prefill_pass(m, s.counts, w, r.rank).t_floor;
  return r;
}

PrefillResult analyze_prefill(const Scenario& s) {
  const ModelConfig& m = s.model;
  const Workload& w = s.workload;
  PrefillResult r;
  r.machine = effective_machine(s);
  r.has_peak = device_peak(s).has_value();
  r.batch = w.batch;
  r.prompt = w.prompt;
  r.pass = prefill_pass(m, s.counts, w, r.machine);
  r.attention_share = units::Fraction{r.pass.attention_flops / r.pass.flops};
  r.activation_bytes = dtype_bytes(w.activation_dtype);
  r.score_matrix_bytes =
      score_matrix_bytes(static_cast<double>(m.n_heads), static_cast<double>(w.prompt), r.activation_bytes);
  if (r.has_peak) {
    r.ridge_ratio = units::Ratio{r.pass.intensity / ridge_point(r.machine.peak, r.machine.bandwidth)};
    Workload w1 = w;
    w1.batch = 1;
    w1.context = w.prompt;  // the first decode step after this prompt
    r.decode_step_at_prompt = decode_step(m, s.counts, w1, r.machine).t_step;
    // Products of counts in double: prompt x batch can pass 2^63.
    const double tokens = static_cast<double>(w.prompt) * static_cast<double>(w.batch);
    r.decode_prefill_ratio = units::Ratio{decode_prefill_cost_ratio(r.decode_step_at_prompt, r.pass.t_floor, tokens)};
  }
  r.capacity = capacity_at(s, w.batch, w.prompt);
  r.cp = context_parallel_prefill(s, r.pass);
  return r;
}

AllowedConcurrency allowed_concurrency(std::int64_t kv_budget, std::optional<std::int64_t> by_tpot, bool ttft_met) {
  AllowedConcurrency a{kv_budget, kv_budget >= 1 ? ServeLimit::kv_budget : ServeLimit::none};
  if (by_tpot && *by_tpot < a.sequences) a = {*by_tpot, ServeLimit::tpot_target};
  if (!ttft_met) a = {0, ServeLimit::ttft_target};
  return a;
}

namespace {

// The server at steady state: the KV budget in paged blocks with the shared prefix stored once,
// the concurrency the targets allow, and the step at the concurrency asked for (or the most
// allowed).
void serve_steady_state(const Scenario& s, Machine machine, std::int64_t longest, ServeResult& r) {
  const ModelConfig& m = s.model;
  const Workload& w = s.workload;
  const ServingInputs& in = s.serving;
  const CacheBytes kv = w.cache_bytes();
  const auto prefix = static_cast<double>(std::min(in.shared_prefix, w.prompt));
  r.kv_block = in.kv_block;
  r.paged_tokens = paged_tokens(static_cast<double>(longest) - prefix, static_cast<double>(in.kv_block));
  r.kv_per_sequence_paged = kv_bytes_per_sequence(m, r.paged_tokens, kv);
  r.shared_prefix_kv = kv_bytes_per_sequence(m, paged_tokens(prefix, static_cast<double>(in.kv_block)), kv);
  const units::Bytes reserve = r.capacity.reserve + r.shared_prefix_kv;
  r.max_concurrency = max_concurrency(r.capacity.capacity, r.capacity.weights, reserve, r.kv_per_sequence_paged);
  const auto step_at = [&](double n) { return steady_state(m, s.counts, w, machine, n, prefix); };
  r.ttft_met = !in.ttft_target_s || r.prefill.t_floor.base() <= *in.ttft_target_s;
  // The most sequences whose step meets the TPOT target: the step grows with N.
  const std::int64_t cap = r.max_concurrency.value_or(0);
  if (in.tpot_target_s && cap >= 1) {
    const auto meets = [&](std::int64_t n) {
      return step_at(static_cast<double>(n)).t_step.base() <= *in.tpot_target_s;
    };
    r.max_concurrency_tpot = largest_where(0, cap, [&](std::int64_t n) { return n == 0 || meets(n); });
  }
  const AllowedConcurrency allowed = allowed_concurrency(cap, r.max_concurrency_tpot, r.ttft_met);
  r.limit = allowed.limit;
  const std::int64_t n = in.concurrency.value_or(allowed.sequences);
  if (n >= 1) {
    r.steady = step_at(static_cast<double>(n));
    // Disaggregated: prompts on their own devices, as many replicas as the arrivals keep busy, each
    // prompt taking its floor: requests/s x TTFT floor (prefill is compute-bound, so linear)  (derived)
    if (r.has_peak) r.prefill_replicas_per_decode = r.steady->requests_per_s * r.prefill.t_floor.base();
  }
}

}  // namespace

ServeResult analyze_serve(const Scenario& s) {
  const ModelConfig& m = s.model;
  const Workload& w = s.workload;
  ServeResult r;
  const Machine machine = effective_machine(s);
  r.has_peak = device_peak(s).has_value();
  r.batch = w.batch;
  r.prompt = w.prompt;
  r.output = w.output;
  // Capacity and latency at the same token counts: the cache a request reaches at its last token.
  const std::int64_t longest = w.output > kMaxCount - w.prompt ? kMaxCount : w.prompt + w.output;
  r.capacity = capacity_at(s, w.batch, longest);
  r.prefill = prefill_pass(m, s.counts, w, machine);
  r.decode_time = generation_timing(m, s.counts, w, machine).total;
  Workload last = w;
  last.context = longest;
  r.last_step = decode_step(m, s.counts, last, machine);
  const DecodeStep& step = r.last_step;
  r.tpot_last = step.t_step;
  r.tpot = mean_time_per_output_token(r.decode_time, w.output, r.tpot_last);
  r.e2e = r.prefill.t_floor + r.decode_time;
  r.output_tokens_per_s = units::PerSecond{step.tokens_per_s};
  if (r.capacity.max_sequences && r.capacity.max_sequences->base() >= 1) {
    Workload full = w;
    full.batch = r.capacity.max_sequences->base();
    r.full_batch = full.batch;
    const units::Seconds generation = generation_timing(m, s.counts, full, machine).total;
    full.context = longest;
    const DecodeStep full_step = decode_step(m, s.counts, full, machine);
    r.tpot_full = mean_time_per_output_token(generation, w.output, full_step.t_step);
    r.output_tokens_per_s_full = units::PerSecond{full_step.tokens_per_s};
  }
  serve_steady_state(s, machine, longest, r);
  return r;
}

SpeculativeResult analyze_speculative(const Scenario& s, std::int64_t context) {
  const Speculation& spec = *s.speculation;
  const Machine machine = effective_machine(s);
  SpeculativeResult r;
  r.context = context;
  r.acceptance = spec.acceptance;
  r.draft_len = static_cast<double>(spec.draft_len);
  Workload w = s.workload;
  w.context = context;
  r.target = decode_step(s.model, s.counts, w, machine);
  r.draft = decode_step(spec.draft, spec.draft_counts, w, machine);
  r.verify = verification_step(s.model, s.counts, w, machine, r.draft_len + 1.0);
  r.expected_tokens = speculative_tokens_per_step(r.acceptance, r.draft_len);
  r.acceptance_power = std::pow(r.acceptance, r.draft_len + 1.0);
  r.cycle = r.draft.t_step * r.draft_len + r.verify.t_step;  // γ t_draft + t_verify  [LE23 §3.3]
  r.tpot = r.cycle / r.expected_tokens;
  r.speedup = r.target.t_step / r.tpot;
  r.cost_ratio = r.draft.t_step / r.target.t_step;
  r.speedup_bound = speculative_speedup_bound(r.acceptance, r.draft_len, r.cost_ratio);
  // A self-draft's MTP modules are stored beside the model (and share its embedding and head).
  r.draft_params = static_cast<double>(spec.self_draft ? s.counts.mtp_excluded : spec.draft_counts.total);
  r.draft_weight_bytes =
      spec.self_draft ? weight_bytes(r.draft_params, w.weight_bits) : stored_weights(spec.draft_counts, w);
  r.draft_kv_bytes =
      kv_bytes_per_sequence(spec.draft, static_cast<double>(context), w.cache_bytes()) * static_cast<double>(w.batch);
  return r;
}

GemmResult analyze_gemm(const GemmInputs& g, const std::optional<HardwareConfig>& gpu) {
  GemmResult r;
  r.in = g;
  r.element_bytes = dtype_bytes(g.dtype);
  r.flops = gemm_flops(g.m, g.n, g.k);
  r.bytes = gemm_bytes(g.m, g.n, g.k, r.element_bytes);
  r.intensity = r.flops / r.bytes;
  if (!gpu) return r;
  r.bandwidth = gpu->memory_bandwidth;
  r.peak = gpu->peak_for(g.dtype);
  if (!r.peak) return r;
  r.ridge = ridge_point(*r.peak, r.bandwidth);
  r.attainable = attainable(*r.peak, r.bandwidth, r.intensity);
  r.time = roofline_time(r.flops, r.bytes, *r.peak, r.bandwidth);
  r.bound = bound_of(r.flops, r.bytes, *r.peak, r.bandwidth);
  return r;
}

}  // namespace roofline
