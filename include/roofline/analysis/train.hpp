// The analyses of training on a cluster (roofline/analysis.hpp has them all).
#pragma once

#include "roofline/analysis/device.hpp"
#include "roofline/decode.hpp"
#include "roofline/dtype.hpp"
#include "roofline/flops.hpp"
#include "roofline/layer_ops.hpp"
#include "roofline/layer_stack.hpp"
#include "roofline/scenario.hpp"
#include "roofline/topology.hpp"
#include "roofline/units.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace roofline {

// --- train ---------------------------------------------------------------------------------------

/// What the step time of `train` is computed from.
enum class StepTimeBasis {
  mfu,                ///< model FLOPs (the convention's) / (G P mfu)
  hfu,                ///< executed FLOPs / (G P hfu)
  measured_step,      ///< --measured-step-time
  measured_tokens_s,  ///< tokens per step / --measured-tokens-per-s
};

struct TrainResult {
  // Layout.
  std::int64_t devices = 1, tensor = 1, pipeline = 1, data = 1, expert = 1, context = 1;
  std::int64_t chunks = 1;       ///< v, model chunks per device
  std::int64_t shard_group = 1;  ///< N_s, the ranks ZeRO shards over (d, or a node's group; x c)
  const RecipeBytes* recipe = nullptr;
  // Fine-tuning with adapters (zero without).
  LoraParams adapters;          ///< model-wide adapter parameters
  FrozenBaseBytes frozen_base;  ///< model-wide frozen weights
  double base_bits = 16.0;      ///< bits per frozen matrix parameter (QLoRA 4.127)
  double adapter_params = 0.0;  ///< adapters on the most loaded device, N_lora / (t p)
  units::Bytes base_bytes{};    ///< the device's share of the frozen base (/ d under ZeRO-3)
  units::Bytes adapter_activations_per_layer{};
  // Memory of the most loaded device.
  DeviceParams stage_params;   ///< parameters on the first and the last pipeline stage
  double device_params = 0.0;  ///< the larger
  ModelStateBytes states;
  double unit_params = 0.0;                ///< ZeRO-3: the largest unit gathered whole
  Zero3LiveBytes zero3_live;               ///< ZeRO-3: gathered and unsharded buffers (0 otherwise)
  double layers_per_stage = 0.0;           ///< L / p, the mean
  std::vector<std::int64_t> stage_layers;  ///< layers on each stage, first to last (--pp-layers or balanced)
  double max_stage_layers = 0.0;           ///< the most a stage holds: its tensor collectives pace the step
  double kept_layers = 0.0;       ///< first stage's layers whose activations are kept (full, every k: ceil(L_0 / k))
  double kept_layers_last = 0.0;  ///< the same on the last stage
  /// The middle stage whose activations are the largest (uneven stages: one layer more than the
  /// ends, p - i micro-batches in flight); binds only when above both ends.
  std::int64_t middle_stage = 0;
  double kept_layers_middle = 0.0, in_flight_middle = 0.0;
  units::Bytes activations_middle_stage{};
  bool middle_stage_binds = false;
  double stage_imbalance = 1.0;          ///< the slowest stage's FLOPs over the mean stage's
  units::Bytes activations_per_layer{};  ///< mean over the layers, one micro-batch
  LayerActivations layer_terms;          ///< one layer (an MoE layer when the model has them), term by term
  units::Bytes dense_layer_bytes{};      ///< one dense layer, one micro-batch
  units::Bytes moe_layer_bytes{};        ///< one MoE layer, one micro-batch
  double dense_layers = 0.0, moe_layers = 0.0;
  /// Layers with a state mixer (Mamba, DeltaNet, short conv, lightning), whose mixer tensors the
  /// activations do not count: the activation memory is then a lower bound, and says so.
  double state_mixer_layers = 0.0;
  double in_flight = 1.0;       ///< micro-batches the first stage holds (1F1B: p)
  double in_flight_last = 1.0;  ///< on the last stage (1F1B: 1)
  units::Bytes activations_first_stage{};
  units::Bytes embedding_activations{};  ///< first stage, all micro-batches in flight
  units::Bytes activations_last_stage{};
  units::Bytes recompute_working_set{};  ///< full recomputation: k layers rebuilt, one micro-batch
  LogitsActivations logits;              ///< on the last stage
  units::Bytes activations{};            ///< the binding stage's activations and logits
  /// False for a model known by its parameter count alone: it has no layers, so its activations
  /// are unknown (left at 0), and total, fits and headroom count everything but them.
  bool activations_known = true;
  units::Bytes forward_backward{};     ///< activations + ZeRO-3 live buffers
  double optimizer_params = 0.0;       ///< Psi_o, the parameters this device updates
  units::Bytes optimizer_temporary{};  ///< the optimizer step's fp32 gradient copy
  units::Bytes reserve{};
  units::Bytes total{};  ///< states + max(activations + live buffers, optimizer temporary) + reserve
  units::Bytes capacity{};
  units::Bytes headroom{};  ///< capacity - total (negative when it does not fit)
  // Compute.
  std::int64_t global_batch = 1;            ///< b m d sequences per step
  double tokens_per_step = 0.0;             ///< global batch x s
  std::int64_t params = 0;                  ///< N under the FLOP basis
  units::Flop model_flops_per_step{};       ///< 6 N tokens (LoRA: (4 N + 6 N_lora) tokens)
  units::Flop model_flops_per_token{};      ///< 6 N (LoRA: 4 N + 6 N_lora)
  units::Flop palm_flops_per_step{};        ///< (6 N + 12 L H Q s) tokens
  units::Flop hardware_flops_per_step{};    ///< 6N + the recomputation done (selective: attention core; full: 2N + it)
  units::Flop attention_flops_per_token{};  ///< the forward attention core at s, causal
  units::Flop forward_flops_per_token{};    ///< 2N (+ 2N_lora): what full recomputation repeats
  units::Flop megatron_flops_per_step{};    ///< 72 (96 with full recomputation) B s L h^2 (...)
  units::Flop megatron_model_flops_per_step{};  ///< the 72 form whatever the recomputation
  units::Flop convention_flops_per_step{};      ///< the model FLOPs MFU counts, under the convention
  double utilisation = 1.0;                     ///< the stated MFU or HFU of the basis
  std::optional<units::Seconds> step_time;
  std::optional<double> measured_tokens_per_s;  ///< given, or tokens per step / measured step time
  std::optional<units::Fraction> mfu_measured;  ///< convention FLOPs per token x tps / (G P)
  std::optional<units::Fraction> hfu_measured;  ///< executed FLOPs per token x tps / (G P)
  std::optional<units::Flop> training_compute;  ///< C = 6 N D
  std::optional<double> steps;                  ///< D / tokens per step
  std::optional<units::Seconds> time_to_train;
  std::optional<double> device_hours;
  std::optional<double> cost;
  // The optimizer step, a bandwidth-bound phase.
  units::Bytes optimizer_step_bytes{};
  std::optional<units::Seconds> optimizer_step_time;
  units::BytesPerSecond memory_bandwidth{};
  // Communication per step.
  units::Bytes dp_allreduce_bytes{};  ///< gradient all-reduce per device (ZeRO-3: 1.5x), within N_s
  units::Bytes cross_group_bytes{};   ///< ZeRO-3 in groups: the shard's all-reduce across the d / N_s groups
  std::optional<units::Seconds> cross_group_time;
  std::optional<units::Seconds> dp_allreduce_time;
  units::Bytes tp_bytes{};  ///< tensor-parallel traffic per device per step
  std::optional<units::Seconds> tp_time;
  units::Bytes pp_bytes{};  ///< pipeline sends and receives per device per step
  std::optional<units::Seconds> pp_time;
  double moe_layers_per_stage = 0.0;
  units::Bytes ep_bytes{};  ///< expert-parallel all-to-all per device per step
  std::optional<units::Seconds> ep_time;
  units::Bytes cp_block_bytes{};  ///< one K, V block of ring attention
  double cp_sends = 0.0;          ///< ring sends per step and device
  units::Bytes cp_bytes{};        ///< context-parallel K, V traffic per device per step
  std::optional<units::Seconds> cp_time;
  std::optional<units::Seconds> cp_attention_time;  ///< the attention core it overlaps
  std::optional<units::Seconds> cp_exposed;         ///< max(0, t_CP - t_attn)
  GroupLinks cp_links;
  units::Seconds cp_latency{};
  double bubble_fraction = 0.0;  ///< (p - 1) / (v m + p - 1)
  double bubble_overhead = 0.0;  ///< (p - 1) / (v m), of the compute time
  // The step-time floor: compute at the peak, the bubble, what does not overlap.
  std::optional<units::Seconds> compute_time;           ///< executed FLOPs / (G P_peak)
  std::optional<units::Seconds> slowest_stage_compute;  ///< compute_time x stage_imbalance: what the pipeline paces
  std::optional<units::Seconds> backward_time;          ///< 2/3 of it: what the data-parallel collectives hide behind
  std::optional<units::Seconds> exposed_comm;           ///< t_TP + t_EP + t_PP + max(0, t_DP - t_bwd)
  /// Sequences a data-parallel rank computes per step below which t_DP outlasts t_bwd (d c > 1).
  std::optional<double> dp_bound_batch;
  std::optional<units::Seconds> step_floor;
  std::optional<units::Fraction> mfu_ceiling;  ///< convention FLOPs / (G P t_floor)
  units::BytesPerSecond link{};                ///< interconnect per direction (the scale-up or PCIe link)
  // Where each group sits on the topology (Megatron's rank order: tensor innermost, then data,
  // then pipeline), and the bandwidth its collectives see.
  GroupLinks tp_links, dp_links, cross_links, ep_links;
  units::BytesPerSecond pp_link{};  ///< the link a stage hand-off crosses
  LinkKind pp_kind = LinkKind::scale_up;
  bool pp_spans = false;        ///< stage neighbours sit in different domains
  double tp_collectives = 0.0;  ///< all-reduces (or reduce-scatter + all-gather pairs) per step
  double pp_sends = 0.0;        ///< sends per step and device
  double ep_alltoalls = 0.0;    ///< all-to-alls per step
  units::Seconds tp_latency{}, dp_latency{}, cross_latency{}, pp_latency{},
      ep_latency{};  ///< their fixed and per-step parts
  std::string_view tp_protocol, dp_protocol;
  // What would fit on these devices.
  std::optional<std::int64_t> max_micro_batch;  ///< largest b that fits (none: not even 1)
  std::optional<std::int64_t> max_seq_len;      ///< longest s that fits at this b
  struct Layout {
    std::int64_t tensor = 1, pipeline = 1, data = 1;
  };
  std::optional<Layout> smallest_fitting_layout;  ///< least t p over the same G that fits
  // Flags and enumerations, together (no padding between the doubles above).
  bool sequence_parallel = false;
  ZeroStage zero = ZeroStage::none;
  bool lora = false;
  bool layer_terms_moe = false;
  bool first_stage_binds = true;
  bool optimizer_binds = false;  ///< the optimizer step, not the backward, is the peak
  bool fits = false;
  ModelFlopsConvention convention = ModelFlopsConvention::six_n;
  StepTimeBasis basis = StepTimeBasis::mfu;
};
TrainResult analyze_train(const Scenario& s);
/// One layout's analysis without the fit searches: what the layout search times.
TrainResult analyze_train_layout(const Scenario& s);
/// The most loaded device's memory and whether it fits, computing nothing else: the searches' probe.
struct TrainFitProbe {
  bool fits = false;
  units::Bytes total{};
};
/// `kinds` is layer_kinds(s.model), which a search computes once for all its probes.
TrainFitProbe train_fits(const Scenario& s, std::span<const LayerKind> kinds);

// --- train --best-layout ----------------------------------------------------------------------------

/// One point of the search: the degrees (G = t c p d, e within d), the batch split of the global
/// batch B = b m d, and the recipe.
struct TrainLayout {
  std::int64_t tensor = 1, context = 1, pipeline = 1, data = 1, expert = 1;
  std::int64_t micro_batch = 1, grad_accum = 1;
  bool sequence_parallel = false;
  ZeroStage zero = ZeroStage::none;
  Recompute recompute = Recompute::none;
};

/// The step floor's parts, which sum to it: t_floor = compute + imbalance + bubble + tp + ep + pp + cp
/// + dp + optimizer (dp and cp: what the backward and the attention core leave exposed).
enum class FloorPart { compute, imbalance, bubble, tensor, expert, pipeline, context, data, optimizer };
inline constexpr std::size_t kFloorParts = 9;

struct RankedLayout {
  TrainLayout layout;
  units::Seconds step_floor{};
  units::Fraction mfu_ceiling{};
  units::Bytes total{};  ///< per device
  std::array<units::Seconds, kFloorParts> parts{};
  /// Against the best: the part that grew the most, and by how much (the best, and a layout whose
  /// floor ties it: none).
  std::optional<FloorPart> loses_on;
  units::Seconds loss{};
};

struct LayoutSearch {
  LayoutSearchRequest held;  ///< what the user fixed
  std::int64_t global_batch = 0;
  std::int64_t layouts = 0;  ///< t x c x p x d x e x b points enumerated
  std::int64_t probes = 0;   ///< memory probes (a recipe tried on a point)
  std::int64_t fitting = 0;  ///< points some recipe fits
  std::int64_t timed = 0;    ///< (point, recipe) pairs timed
  std::vector<RankedLayout>
      ranked;  ///< the best recipe of each t x c x p x d x e, fastest first; at most kRankedLayouts
  /// When nothing fits: the probe that needed the least memory, and what it needed.
  std::optional<TrainLayout> closest;
  units::Bytes closest_total{};
};
inline constexpr std::size_t kRankedLayouts = 8;

/// The fastest step floor (the highest MFU ceiling) that fits, over every layout of G devices and
/// recipe the held flags leave free  [NA21 §3] [KO22 §5] [RA20 §5]
LayoutSearch search_train_layouts(const Scenario& s);
/// The scenario at a layout the search chose.
Scenario at_layout(const Scenario& s, const TrainLayout& l);
/// The same in place: `at` a copy of `s`, its layout and recipe set to l (the search's probes).
void set_layout(Scenario& at, const Scenario& s, const TrainLayout& l);

}  // namespace roofline
