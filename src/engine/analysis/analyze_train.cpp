// Training on a cluster: memory per device, compute, time, cost and communication per step.
#include "roofline/analysis/serving.hpp"
#include "roofline/analysis/train.hpp"
#include "roofline/checked.hpp"
#include "roofline/flops.hpp"
#include "roofline/parallel.hpp"
#include "roofline/training.hpp"

#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

namespace roofline {

namespace {

// Model FLOPs per step under the convention MFU counts.
units::Flop convention_flops(const TrainResult& r) {
  switch (r.convention) {
    case ModelFlopsConvention::six_n:
      return r.model_flops_per_step;
    case ModelFlopsConvention::palm:
      return r.palm_flops_per_step;
    case ModelFlopsConvention::megatron:
      return r.megatron_model_flops_per_step;
  }
  return r.model_flops_per_step;
}

// The ranks ZeRO shards over and the gradients are reduced across: the data ranks (or a shard
// group of them) times the context-parallel ranks, which hold the same weights  [LI23 §3]
std::int64_t gradient_group(const Scenario& s) {
  const std::int64_t data = s.training.shard_group > 0 ? s.training.shard_group : s.deployment.data;
  return checked_mul(data, s.deployment.context);
}

// Layers on each stage: --pp-layers, or the balanced default.
std::vector<std::int64_t> stage_layers_of(const Scenario& s) {
  const std::vector<std::int64_t>& given = s.training.pipeline_layers;
  if (given.size() == static_cast<std::size_t>(s.deployment.pipeline)) return given;
  return balanced_stage_layers(s.model.n_layers, s.deployment.pipeline);
}

// FLOPs per token of each stage: 2 x its layers' active parameters (the kinds in ParamCounts'
// order) + the mean attention core per layer, and the head's matmul on the last.
std::vector<double> stage_work(const Scenario& s, const TrainResult& r) {
  std::vector<double> work;
  work.reserve(r.stage_layers.size());
  const double layers = static_cast<double>(std::max<std::int64_t>(1, s.model.n_layers));
  const double attention = r.attention_flops_per_token.base() / layers;
  std::int64_t begin = 0;
  for (const std::int64_t n : r.stage_layers) {
    const std::int64_t end = begin + n;
    double w = attention * static_cast<double>(n);
    std::int64_t first = 0;
    for (const LayerKindParams& k : s.counts.layer_kinds) {
      const std::int64_t last = first + k.n_layers;
      const std::int64_t overlap = std::max<std::int64_t>(0, std::min(last, end) - std::max(first, begin));
      w += 2.0 * static_cast<double>(overlap) * static_cast<double>(k.active);
      first = last;
    }
    work.push_back(w);
    begin = end;
  }
  if (!work.empty()) work.back() += 2.0 * static_cast<double>(s.counts.head_matmul);
  return work;
}

// Model states of the most loaded device: its parameters (or, fine-tuning, its adapters and its
// share of the frozen base), sharded by ZeRO over d or a shard group; ZeRO-3's live buffers.
void model_states(const Scenario& s, TrainResult& r) {
  const ModelConfig& m = s.model;
  const Deployment& dep = s.deployment;
  const TrainingInputs& in = s.training;
  const Workload& w = s.workload;
  const ParallelDegrees degrees{
      .tensor = dep.tensor, .pipeline = dep.pipeline, .expert = dep.expert, .stage_layers = r.stage_layers};
  r.stage_params = params_per_device(s.counts, degrees);
  r.device_params = r.stage_params.most_loaded();
  // ZeRO shards over the data ranks, or within groups of them (FSDP's hybrid sharding).
  const auto d = static_cast<double>(gradient_group(s));
  if (in.lora && s.architecture) {
    // Adapters train under the recipe; the frozen base has no gradient or optimizer state, and
    // the device holds the share of it its parameters are (ZeRO-3 shards it too)  [HU21 §4.2] [DE23 §3]
    r.lora = true;
    r.adapters = lora_params(m, in.lora->targets, in.lora->rank);
    r.base_bits = in.lora->qlora ? nf4_bits_per_param(true) : w.weight_bits;
    r.frozen_base = frozen_base_bytes(s.counts, r.base_bits, 2.0);
    const double share = r.device_params / static_cast<double>(s.counts.total);
    // Whole bytes: a fractional share of 4.127-bit blocks still occupies the byte it starts.
    r.base_bytes =
        units::Bytes{std::ceil((r.frozen_base.bytes * share / (in.zero == ZeroStage::os_g_p ? d : 1.0)).base())};
    r.adapter_params = static_cast<double>(r.adapters.total) / static_cast<double>(dep.tensor * dep.pipeline);
    r.states = zero_model_states(r.adapter_params, *r.recipe, in.zero, d);
    r.states.weights += r.base_bytes;
  } else {
    r.states = zero_model_states(r.device_params, *r.recipe, in.zero, d);
  }
  if (in.zero == ZeroStage::os_g_p && s.architecture) {
    r.unit_params = largest_unit_params(s.counts, degrees);
    r.zero3_live = zero3_live_bytes(r.unit_params, r.recipe->weights, r.recipe->gradients, 1.0);
  }
}

// Over the stack's kinds: dense_layer_bytes and moe_layer_bytes are the means over the kinds
// without and with experts (one value each for a uniform transformer), and the layers with a state
// mixer, whose tensors the activations leave out, are counted for the warning.
void layer_kind_activations(const ModelConfig& m, std::span<const LayerKind> kinds, const ActivationOptions& opts,
                            TrainResult& r) {
  units::Bytes dense_sum{};
  units::Bytes moe_sum{};
  for (const LayerKind& kind : kinds) {
    if (kind.cross_attention) continue;  // the L decoder layers, as before mllama's kind
    const auto n = static_cast<double>(kind.layers);
    const units::Bytes bytes = layer_activations(m, opts, kind).total() * n;
    if (kind.mix.ffn == LayerFfn::moe) {
      r.moe_layers += n;
      moe_sum += bytes;
    } else {
      r.dense_layers += n;
      dense_sum += bytes;
    }
    if (kind.mix.state != StateMixer::none) r.state_mixer_layers += n;
  }
  if (r.dense_layers > 0.0) r.dense_layer_bytes = dense_sum / r.dense_layers;
  if (r.moe_layers > 0.0) r.moe_layer_bytes = moe_sum / r.moe_layers;
}

// `kinds`: layer_kinds(s.model), computed once by the callers that probe many layouts.
void memory(const Scenario& s, std::span<const LayerKind> kinds, TrainResult& r) {
  const ModelConfig& m = s.model;
  const Deployment& dep = s.deployment;
  const TrainingInputs& in = s.training;
  const Workload& w = s.workload;
  model_states(s, r);
  const auto d = static_cast<double>(gradient_group(s));

  // Activations: rank 0 keeps the most micro-batches in flight, the last rank the logits.
  const double t = static_cast<double>(dep.tensor);
  const double p = static_cast<double>(dep.pipeline);
  const double v = static_cast<double>(in.pipeline_chunks);
  ActivationOptions opts{.seq_len = static_cast<double>(in.seq_len),
                         .micro_batch = static_cast<double>(in.micro_batch),
                         .tensor_parallel = t,
                         .context_parallel = static_cast<double>(dep.context),
                         .sequence_parallel = dep.sequence_parallel,
                         .flash_attention = in.flash_attention,
                         .dropout = in.dropout,
                         .recompute = in.recompute,
                         .bytes_per_element = dtype_bytes(w.activation_dtype)};
  const bool full = in.recompute == Recompute::full;
  r.layers_per_stage = static_cast<double>(m.n_layers) / p;
  const double k = full ? static_cast<double>(in.recompute_every) : 1.0;
  const auto kept = [&](std::int64_t layers) {
    const auto n = static_cast<double>(layers);
    return full ? std::ceil(n / k) : n;
  };
  r.max_stage_layers = static_cast<double>(*std::max_element(r.stage_layers.begin(), r.stage_layers.end()));
  r.kept_layers = kept(r.stage_layers.front());
  r.kept_layers_last = kept(r.stage_layers.back());
  // A model known only by N has no layers: its activations are unknown, left at zero and said so
  // (the total, the fit and the headroom then exclude them).
  r.activations_known = s.architecture;
  if (s.architecture) {
    const auto layers = static_cast<double>(m.n_layers);
    layer_kind_activations(m, kinds, opts, r);
    // sum over the layers / L  [KO22 §4.1]
    r.activations_per_layer = (r.dense_layer_bytes * r.dense_layers + r.moe_layer_bytes * r.moe_layers) / layers;
    r.layer_terms_moe = m.moe.enabled();
    r.layer_terms = layer_activations(m, opts, r.layer_terms_moe);
    if (r.lora) {  // each adapted matrix keeps its rank-r product x A  [HU21 §4.1]
      const LoraRunOptions lo{.seq_len = opts.seq_len / opts.context_parallel,
                              .micro_batch = opts.micro_batch,
                              .bytes_per_element = opts.bytes_per_element,
                              .recompute = in.recompute};
      r.adapter_activations_per_layer = lora_adapter_activations(r.adapters, lo) / layers;
      r.activations_per_layer += r.adapter_activations_per_layer;
    }
    if (full) {  // the backward rebuilds k layers of one micro-batch at a time, the largest kind bounding
      ActivationOptions stored = opts;
      stored.recompute = Recompute::none;
      const units::Bytes largest =
          std::max(layer_activations(m, stored, false).total(), layer_activations(m, stored, m.moe.enabled()).total());
      r.recompute_working_set = largest * std::min(k, r.max_stage_layers);
    }
  }
  r.in_flight = pipeline_in_flight(p, v, 0.0);
  r.in_flight_last = pipeline_in_flight(p, v, p - 1.0);
  r.activations_first_stage = activations_first_stage(r.activations_per_layer, r.kept_layers, r.in_flight);
  r.activations_last_stage = activations_first_stage(r.activations_per_layer, r.kept_layers_last, r.in_flight_last);
  // A middle stage holds p - i micro-batches of its own layers: with uneven stages one of them can
  // hold more than the first.
  for (std::size_t i = 1; i + 1 < r.stage_layers.size(); ++i) {
    const double flight = pipeline_in_flight(p, v, static_cast<double>(i));
    const units::Bytes held = activations_first_stage(r.activations_per_layer, kept(r.stage_layers[i]), flight);
    if (held > r.activations_middle_stage) {
      r.activations_middle_stage = held;
      r.middle_stage = static_cast<std::int64_t>(i);
      r.kept_layers_middle = kept(r.stage_layers[i]);
      r.in_flight_middle = flight;
    }
  }
  const double split = dep.sequence_parallel ? t : 1.0;
  if (s.architecture) {
    r.embedding_activations =
        embedding_activations(opts.seq_len / opts.context_parallel, opts.micro_batch, static_cast<double>(m.d_model),
                              opts.dropout_mask_bytes, in.dropout, split) *
        r.in_flight;
  }
  r.logits = logits_activations(opts.seq_len / opts.context_parallel, opts.micro_batch,
                                static_cast<double>(m.vocab_size), opts.bytes_per_element, t);
  const units::Bytes first = r.activations_first_stage + r.embedding_activations + r.recompute_working_set +
                             (dep.pipeline == 1 ? r.logits.total() : units::Bytes{});
  const units::Bytes last = r.activations_last_stage + r.logits.total() + r.recompute_working_set;
  const units::Bytes middle = r.activations_middle_stage + r.recompute_working_set;
  r.middle_stage_binds = r.middle_stage > 0 && middle > first && middle > last;
  r.first_stage_binds = dep.pipeline == 1 || (first >= last && !r.middle_stage_binds);
  r.activations = r.middle_stage_binds ? middle : r.first_stage_binds ? first : last;
  r.forward_backward = r.activations + r.zero3_live.total();

  // The optimizer step runs after the backward has freed the activations.
  const double trained = r.lora ? r.adapter_params : r.device_params;
  r.optimizer_params = in.zero >= ZeroStage::os ? trained / d : trained;
  r.optimizer_temporary =
      optimizer_step_temporary_bytes(r.optimizer_params, r.recipe->gradients, r.recipe->fp32_master);
  r.optimizer_binds = r.optimizer_temporary > r.forward_backward;
  r.reserve = w.reserve;
  r.total = r.states.total() + std::max(r.forward_backward, r.optimizer_temporary) + r.reserve;
  r.capacity = s.accelerator ? s.accelerator->hw.memory_capacity : units::Bytes{};
  r.fits = r.total <= r.capacity;
  r.headroom = r.capacity - r.total;
}

void compute(const Scenario& s, TrainResult& r) {
  const ModelConfig& m = s.model;
  const Deployment& dep = s.deployment;
  const TrainingInputs& in = s.training;
  const Workload& w = s.workload;
  const auto seq = static_cast<double>(in.seq_len);
  r.global_batch = in.micro_batch * in.grad_accum * dep.data;
  r.tokens_per_step = static_cast<double>(r.global_batch) * seq;
  r.params = flop_params(s.counts, w.basis);
  const double n = static_cast<double>(r.params);
  r.model_flops_per_token =
      r.lora ? lora_training_flops_per_token(n, static_cast<double>(r.adapters.active)) : units::Flop{6.0 * n};
  r.model_flops_per_step = r.model_flops_per_token * r.tokens_per_step;
  // Executed FLOPs: selective recomputation repeats the attention core's forward, full
  // recomputation the whole forward (2N + the attention core)  [KO22 §5] [CH22 App. B]
  r.attention_flops_per_token =
      s.architecture ? attention_flops_prefill(m, seq, AttentionMode::causal) / seq : units::Flop{};
  r.forward_flops_per_token =
      forward_flops_per_token(s.counts, w.basis) + units::Flop{2.0 * static_cast<double>(r.adapters.active)};
  if (s.architecture && dep.pipeline > 1) r.stage_imbalance = stage_imbalance(stage_work(s, r));
  r.hardware_flops_per_step = executed_step_flops(r.model_flops_per_token, r.forward_flops_per_token,
                                                  r.attention_flops_per_token, in.recompute) *
                              r.tokens_per_step;
  if (s.architecture) {  // a model known only by N has no layers or width for these forms
    const auto layers = static_cast<double>(m.n_layers);
    const auto heads = static_cast<double>(m.n_heads);
    // L Q, or Gemma 4's sum over its layers L_s Q + L_g Q_g (its global layers' own head width)
    const LayerWindows lw = layer_windows(m);
    const double head_dims =
        m.global_attention.enabled()
            ? static_cast<double>(lw.sliding_layers * m.head_dim + lw.global_layers * global_head_shape(m).head_dim)
            : layers * static_cast<double>(m.head_dim);
    r.palm_flops_per_step = palm_model_flops_per_token(n, 1.0, heads, head_dims, seq) * r.tokens_per_step;
    const auto batch = static_cast<double>(r.global_batch);
    const auto hidden = static_cast<double>(m.d_model);
    const auto vocab = static_cast<double>(m.vocab_size);
    r.megatron_flops_per_step =
        megatron_flops_per_iteration(batch, seq, layers, hidden, vocab, in.recompute == Recompute::full);
    r.megatron_model_flops_per_step = megatron_flops_per_iteration(batch, seq, layers, hidden, vocab, false);
  }
  r.convention = in.model_flops;
  r.convention_flops_per_step = convention_flops(r);
  if (in.tokens) r.training_compute = r.model_flops_per_token * static_cast<double>(*in.tokens);

  // The step time: measured, or the FLOPs of the basis at a stated utilisation.
  const auto g = static_cast<double>(dep.devices);
  const auto peak = device_peak(s);
  if (in.measured_step_time_s) {
    r.basis = StepTimeBasis::measured_step;
    r.step_time = units::Seconds{*in.measured_step_time_s};
    r.measured_tokens_per_s = r.tokens_per_step / *in.measured_step_time_s;
  } else if (in.measured_tokens_per_s) {
    r.basis = StepTimeBasis::measured_tokens_s;
    r.measured_tokens_per_s = in.measured_tokens_per_s;
    r.step_time = units::Seconds{r.tokens_per_step / *in.measured_tokens_per_s};
  } else if (peak && in.hfu) {
    r.basis = StepTimeBasis::hfu;
    r.utilisation = *in.hfu;
    r.step_time = time_to_train(r.hardware_flops_per_step, g, *peak * *in.hfu);
  } else if (peak) {
    r.basis = StepTimeBasis::mfu;
    r.utilisation = w.mfu;
    r.step_time = time_to_train(r.convention_flops_per_step, g, *peak * w.mfu);
  }
  if (peak && r.measured_tokens_per_s) {
    // FLOPs per token times tokens per second is the achieved rate of the whole job  [CH22 App. B]
    const double tps = *r.measured_tokens_per_s;
    r.mfu_measured =
        units::Fraction{(r.convention_flops_per_step / r.tokens_per_step).base() * tps / (peak->base() * g)};
    r.hfu_measured = units::Fraction{(r.hardware_flops_per_step / r.tokens_per_step).base() * tps / (peak->base() * g)};
  }
  if (r.step_time && in.tokens) {
    r.steps = std::ceil(static_cast<double>(*in.tokens) / r.tokens_per_step);
    r.time_to_train = *r.step_time * *r.steps;
    r.device_hours = r.time_to_train->base() / 3600.0 * g;
    if (in.price_per_device_hour) r.cost = *r.device_hours * *in.price_per_device_hour;
  }
  // The optimizer step reads and writes every state of the parameters it updates.
  r.optimizer_step_bytes =
      optimizer_step_bytes(r.optimizer_params, r.recipe->weights, r.recipe->gradients, r.recipe->optimizer);
  if (s.accelerator && s.accelerator->hw.memory_bandwidth.base() > 0.0) {
    r.memory_bandwidth = s.accelerator->hw.memory_bandwidth;
    r.optimizer_step_time = r.optimizer_step_bytes / r.memory_bandwidth;
  }
}

// The all-reduce message a ring volume V over n ranks stands for: M = V n / (2 (n - 1)).
units::Bytes allreduce_message(units::Bytes volume, double n) {
  return n > 1.0 ? volume * (n / (2.0 * (n - 1.0))) : units::Bytes{};
}

LatencyModel latency_model(const Deployment& dep) {
  if (dep.link_latency_source == LinkLatencySource::flag) return {false, dep.link_latency};
  return {};
}

// Each group's collectives on the system's topology. Megatron orders ranks tensor first, then
// data, then pipeline: a tensor group is t consecutive ranks, a data-parallel group's members are
// t apart, and stage neighbours t d apart; expert groups lie within the data-parallel ranks  [NA21 §3]
void place_on_topology(const Scenario& s, TrainResult& r, double repeat) {
  const Deployment& dep = s.deployment;
  const TrainingInputs& in = s.training;
  const Topology& topo = s.accelerator->system;
  const LatencyModel lat = latency_model(dep);
  const double eff = dep.link_efficiency;
  const std::int64_t t = dep.tensor;
  const std::int64_t d = dep.data;
  r.link = topo.inside.bandwidth;
  r.tp_links = group_links(topo, t, 1, eff);
  r.dp_links = group_links(topo, r.shard_group, t, eff);
  r.ep_links = group_links(topo, dep.expert, t, eff);
  const double micro = static_cast<double>(in.grad_accum);
  // Tensor parallelism: 4 collectives of s b h elements per layer and micro-batch (6 with full
  // recomputation); a sequence-parallel reduce-scatter + all-gather pair moves what one all-reduce does.
  r.tp_collectives = 4.0 * r.max_stage_layers * micro * repeat;
  const double per_tp = r.tp_collectives > 0.0 ? 1.0 / r.tp_collectives : 0.0;
  const CollectiveTime tp =
      allreduce_time(topo, r.tp_links, allreduce_message(r.tp_bytes * per_tp, static_cast<double>(t)), lat);
  r.tp_time = tp.time * r.tp_collectives;
  r.tp_latency = tp.latency * r.tp_collectives;
  r.tp_protocol = tp.protocol;
  // Data parallelism: the gradients' (or ZeRO-3's) traffic as all-reduces of its message, one per step.
  const CollectiveTime dp = allreduce_time(
      topo, r.dp_links, allreduce_message(r.dp_allreduce_bytes, static_cast<double>(r.shard_group)), lat);
  r.dp_allreduce_time = dp.time;
  r.dp_latency = dp.latency;
  r.dp_protocol = dp.protocol;
  r.cross_group_time = units::Seconds{};
  if (r.cross_group_bytes.base() > 0.0) {
    const std::int64_t groups = checked_mul(d, dep.context) / r.shard_group;
    r.cross_links = group_links(topo, groups, t * r.shard_group, eff);
    const CollectiveTime cross =
        allreduce_time(topo, r.cross_links, allreduce_message(r.cross_group_bytes, static_cast<double>(groups)), lat);
    r.cross_group_time = cross.time;
    r.cross_latency = cross.latency;
  }
  // Pipeline hand-offs: 2 v m sends a step; neighbours t d ranks apart share a domain only when
  // the whole pipeline does.
  r.pp_time = units::Seconds{};
  if (dep.pipeline > 1) {
    r.pp_spans = checked_mul(checked_mul(checked_mul(t, dep.context), d), dep.pipeline) > topo.domain;
    r.pp_kind = r.pp_spans && topo.has_across ? topo.across.kind : topo.inside.kind;
    r.pp_link = (r.pp_spans && topo.has_across ? topo.across.bandwidth : topo.inside.bandwidth) * eff;
    // A mesh links a pair by one of its D - 1 peer links.
    if (!r.pp_spans && topo.mesh) r.pp_link = mesh_group_bandwidth(r.pp_link, 2.0, static_cast<double>(topo.domain));
    r.pp_sends = 2.0 * static_cast<double>(in.pipeline_chunks) * micro;
    const CollectiveTime one = send_time(r.pp_kind, r.pp_link, r.pp_bytes / r.pp_sends, lat);
    r.pp_time = one.time * r.pp_sends;
    r.pp_latency = one.latency * r.pp_sends;
  }
  // Context parallelism: the ring's c ranks t apart; each send one K, V (or dK, dV) block.
  if (r.cp_sends > 0.0) {
    r.cp_links = group_links(topo, dep.context, t, eff);
    const CollectiveTime one = ring_send_time(topo, r.cp_links, r.cp_block_bytes, lat);
    r.cp_time = one.time * r.cp_sends;
    r.cp_latency = one.latency * r.cp_sends;
  }
  // Expert parallelism: 4 all-to-alls per MoE layer and micro-batch, k s b h e bytes a member each.
  r.ep_time = units::Seconds{};
  if (r.ep_bytes.base() > 0.0) {
    r.ep_alltoalls = 4.0 * r.moe_layers_per_stage * micro;
    const double e = static_cast<double>(dep.expert);
    const units::Bytes per = r.ep_bytes / r.ep_alltoalls * (e / (e - 1.0));
    const CollectiveTime one = alltoall_time(r.ep_links, per, lat);
    r.ep_time = one.time * r.ep_alltoalls;
    r.ep_latency = one.latency * r.ep_alltoalls;
  }
}

// Ring attention's K, V blocks: s/c tokens of each attention layer's keys and values a rank (its
// share of the heads under t), 3 (c - 1) sends per layer and micro-batch (4 (c - 1) with full
// recomputation), on the slowest stage's attention layers.
void context_parallel_traffic(const Scenario& s, TrainResult& r, double local_seq) {
  const ModelConfig& m = s.model;
  const Deployment& dep = s.deployment;
  double attention_layers = 0.0;
  for (const LayerKind& k : layer_kinds(m)) {
    if (k.mix.attention && !k.cross_attention) attention_layers += static_cast<double>(k.layers);
  }
  const LayerWidths w = layer_widths(m, false);
  const auto t = static_cast<double>(dep.tensor);
  const double share = m.mla.enabled() ? 1.0 / t : kv_share_per_rank(static_cast<double>(m.n_kv_heads), t);
  r.cp_block_bytes =
      cp_kv_block_bytes(local_seq, static_cast<double>(s.training.micro_batch), static_cast<double>(w.w_k + w.w_v),
                        dtype_bytes(s.workload.activation_dtype), share);
  const double per_stage =
      r.max_stage_layers * attention_layers / static_cast<double>(std::max<std::int64_t>(1, m.n_layers));
  r.cp_sends = cp_ring_sends(static_cast<double>(dep.context), s.training.recompute == Recompute::full) * per_stage *
               static_cast<double>(s.training.grad_accum);
  r.cp_bytes = r.cp_block_bytes * r.cp_sends;
}
// The batch a data-parallel replica needs for its collectives to hide behind the backward; none
// without data ranks or without collectives.
std::optional<double> dp_bound(const Deployment& dep, const TrainResult& r, units::Seconds dp) {
  if (dep.data * dep.context <= 1 || !(dp.base() > 0.0) || !(r.backward_time->base() > 0.0)) return std::nullopt;
  const double per_replica = static_cast<double>(r.global_batch) / static_cast<double>(dep.data);
  return dp_comm_bound_batch(per_replica, dp, *r.backward_time);
}

void communication(const Scenario& s, TrainResult& r) {
  const ModelConfig& m = s.model;
  const Deployment& dep = s.deployment;
  const TrainingInputs& in = s.training;
  const double t = static_cast<double>(dep.tensor);
  const double p = static_cast<double>(dep.pipeline);
  const double micro_batches = static_cast<double>(in.grad_accum);
  const double c = static_cast<double>(dep.context);
  const double seq = static_cast<double>(in.seq_len) / c;  // the tokens of a sequence a rank holds
  const double b = static_cast<double>(in.micro_batch);
  const double h = static_cast<double>(m.d_model);
  const double e = dtype_bytes(s.workload.activation_dtype);
  const double grad_bytes = r.recipe->gradients;
  const double d = static_cast<double>(r.shard_group);
  const double trained = r.lora ? r.adapter_params : r.device_params;
  r.dp_allreduce_bytes = in.zero == ZeroStage::os_g_p ? zero3_step_bytes(trained, grad_bytes, d)
                                                      : dp_gradient_allreduce_bytes(trained, grad_bytes, d);
  // ZeRO-3 also gathers the frozen base, in the forward and again in the backward.
  if (r.lora && in.zero == ZeroStage::os_g_p) {
    r.dp_allreduce_bytes += ring_reduce_scatter_bytes(r.base_bytes * d, d) * 2.0;
  }
  // Sharded in groups, ZeRO-3's shard of the gradients is all-reduced across the groups.
  const double data_ranks = static_cast<double>(dep.data) * c;
  if (in.zero == ZeroStage::os_g_p && d < data_ranks) {
    r.cross_group_bytes = dp_gradient_allreduce_bytes(trained / d, grad_bytes, data_ranks / d);
  }
  // Full recomputation repeats the forward's two all-reduces per layer: 6 instead of 4.
  const double repeat = in.recompute == Recompute::full ? 1.5 : 1.0;
  r.tp_bytes = tp_bytes_per_layer(seq, b, h, e, t) * (r.max_stage_layers * micro_batches * repeat);
  if (dep.pipeline > 1) {
    const double split = dep.sequence_parallel ? t : 1.0;
    r.pp_bytes = pp_p2p_bytes(seq, b, h, e, micro_batches, static_cast<double>(in.pipeline_chunks), split);
  }
  if (m.moe.enabled() && dep.expert > 1) {
    std::int64_t moe_layers = 0;
    for (std::int64_t i = 0; i < m.n_layers; ++i) moe_layers += m.is_moe_layer(i) ? 1 : 0;
    r.moe_layers_per_stage = static_cast<double>(moe_layers) / p;
    r.ep_bytes =
        ep_alltoall_bytes_per_layer(seq, b, static_cast<double>(m.moe.top_k), h, e, static_cast<double>(dep.expert)) *
        (r.moe_layers_per_stage * micro_batches);
  }
  if (dep.context > 1 && s.architecture) context_parallel_traffic(s, r, seq);
  if (s.accelerator && s.accelerator->system.inside.bandwidth.base() > 0.0) place_on_topology(s, r, repeat);
  r.bubble_fraction = pipeline_bubble_fraction(p, micro_batches, static_cast<double>(in.pipeline_chunks));
  r.bubble_overhead = pipeline_bubble_overhead(p, micro_batches, static_cast<double>(in.pipeline_chunks));
  // The floor of a step: the executed FLOPs at the peak, the bubble, and the communication the
  // backward cannot hide; needs a peak, the link and the memory bandwidth.
  const auto peak = device_peak(s);
  if (peak && r.dp_allreduce_time && r.optimizer_step_time) {
    const double g = static_cast<double>(dep.devices);
    r.compute_time = r.hardware_flops_per_step / (*peak * g);
    r.slowest_stage_compute = *r.compute_time * r.stage_imbalance;
    r.backward_time = *r.slowest_stage_compute * (2.0 / 3.0);
    const units::Seconds dp = *r.dp_allreduce_time + r.cross_group_time.value_or(units::Seconds{});
    if (r.cp_time) {  // ring attention sends the next block while the attention core runs on this one
      const double executed = in.recompute == Recompute::none ? 3.0 : 4.0;
      r.cp_attention_time = r.attention_flops_per_token * (executed * r.tokens_per_step) / (*peak * g);
      r.cp_exposed = cp_exposed_time(*r.cp_time, *r.cp_attention_time);
    }
    r.dp_bound_batch = dp_bound(dep, r, dp);
    r.exposed_comm = exposed_comm_time(*r.tp_time + *r.ep_time + *r.pp_time + r.cp_exposed.value_or(units::Seconds{}),
                                       dp, *r.backward_time);
    r.step_floor =
        step_time_floor(*r.slowest_stage_compute, r.bubble_overhead, *r.exposed_comm, *r.optimizer_step_time);
    r.mfu_ceiling = units::Fraction{(r.convention_flops_per_step / (*peak * g)) / *r.step_floor};
  }
}

TrainResult train_at(const Scenario& s, std::span<const LayerKind> kinds) {
  const Deployment& dep = s.deployment;
  TrainResult r;
  r.devices = dep.devices;
  r.tensor = dep.tensor;
  r.pipeline = dep.pipeline;
  r.data = dep.data;
  r.expert = dep.expert;
  r.chunks = s.training.pipeline_chunks;
  r.context = dep.context;
  r.shard_group = gradient_group(s);
  r.sequence_parallel = dep.sequence_parallel;
  r.zero = s.training.zero;
  r.recipe = &recipe_bytes(s.training.recipe);
  r.stage_layers = stage_layers_of(s);
  memory(s, kinds, r);
  compute(s, r);
  communication(s, r);
  return r;
}

// Only the memory: what the fit searches probe.
bool fits_at(const Scenario& s, std::span<const LayerKind> kinds) {
  TrainResult r;
  r.recipe = &recipe_bytes(s.training.recipe);
  r.stage_layers = stage_layers_of(s);
  memory(s, kinds, r);
  return r.fits;
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
std::optional<std::int64_t> largest_fitting_input(const Scenario& s, std::span<const LayerKind> kinds, int cap_log2) {
  Scenario probe = s;
  return largest_fitting(
      [&](std::int64_t v) {
        probe.training.*Field = v;
        return fits_at(probe, kinds);
      },
      cap_log2);
}

}  // namespace

TrainResult analyze_train_layout(const Scenario& s) { return train_at(s, layer_kinds(s.model)); }

TrainFitProbe train_fits(const Scenario& s, std::span<const LayerKind> kinds) {
  TrainResult r;
  r.recipe = &recipe_bytes(s.training.recipe);
  r.stage_layers = stage_layers_of(s);
  memory(s, kinds, r);
  return {r.fits, r.total};
}

TrainResult analyze_train(const Scenario& s) {
  const std::vector<LayerKind> kinds = layer_kinds(s.model);
  TrainResult r = train_at(s, kinds);
  // A model known only by N has no activations: no batch or length limit can be said.
  if (s.architecture) {
    r.max_micro_batch = largest_fitting_input<&TrainingInputs::micro_batch>(s, kinds, 20);
    r.max_seq_len = largest_fitting_input<&TrainingInputs::seq_len>(s, kinds, 24);
  }
  // The smallest model-parallel size t p that fits (fewest devices per replica; among those, KV
  // heads split rather than replicated, then the fewest pipeline stages). The candidates divide
  // the heads and the layers, so the search stays bounded whatever G is.
  Scenario probe = s;
  probe.training.pipeline_layers.clear();  // each candidate p takes its balanced stages
  const std::int64_t g = s.deployment.devices;
  const std::int64_t v = s.training.pipeline_chunks;
  std::optional<TrainResult::Layout> best;
  // A tensor group stays inside one scale-up domain: its all-reduces are on the critical path.
  const std::int64_t domain = s.accelerator ? s.accelerator->system.domain : g;
  for (const LayoutCandidate& c : tensor_pipeline_layouts(s.model, g)) {
    const std::int64_t tp = c.tensor * c.pipeline;
    if (g % tp != 0 || (c.pipeline > 1 && s.model.n_layers % (c.pipeline * v) != 0)) continue;
    if (c.tensor > domain) continue;
    probe.deployment.tensor = c.tensor;
    probe.deployment.pipeline = c.pipeline;
    probe.deployment.data = g / tp;
    if (fits_at(probe, kinds)) {
      best = TrainResult::Layout{c.tensor, c.pipeline, g / tp};
      break;
    }
  }
  r.smallest_fitting_layout = best;
  return r;
}

}  // namespace roofline
