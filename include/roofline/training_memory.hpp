// Training on a cluster: model-state bytes per optimizer recipe, ZeRO/FSDP sharding, parameters
// per device under tensor/pipeline/expert parallelism, communication volumes and Megatron FLOPs.
#pragma once

#include "roofline/params.hpp"
#include "roofline/units.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace roofline {

// --- Optimizer and precision recipes ----------------------------------------------------------

enum class OptimizerRecipe {
  mixed_adam,             ///< bf16/fp16 w and g, fp32 master + m + v: 2 + 2 + 12 = 16
  mixed_adam_fp32_grads,  ///< as mixed_adam with fp32 gradients: 2 + 4 + 12 = 18
  bf16_adam_fp32_master,  ///< bf16 w and g, fp32 master 4 + fp32 m, v 8: 2 + 2 + 12 = 16
  bf16_adam,              ///< pure bf16, no master copy, bf16 m and v: 2 + 2 + 4 = 8
  adam_8bit,              ///< bf16 w and g, fp32 master, block-wise 8-bit m and v: 2 + 2 + 4 + 2(1 + 4/2048)
  adam_8bit_no_master,    ///< bf16 w and g updated in place, block-wise 8-bit m and v: 2 + 2 + 2(1 + 4/2048)
  sgd_momentum,           ///< bf16 w and g, fp32 master + fp32 momentum: 2 + 2 + 4 + 4 = 12
  adafactor_factored,     ///< bf16 w and g, fp32 master, factored v neglected: 2 + 2 + 4 (+ O(r + c))
};

/// Bytes per parameter of the three model states of one recipe  [RA20 §3.1]
struct RecipeBytes {
  OptimizerRecipe id{};
  std::string_view name;      ///< the CLI spelling
  double weights = 0.0;       ///< w: the weights the forward pass reads
  double gradients = 0.0;     ///< g
  double optimizer = 0.0;     ///< o (ZeRO's K): master weights + moments (+ quantisation scales)
  std::string_view citation;  ///< key of docs/formulas.md §2, with section
  bool fp32_master = true;    ///< the update runs on an fp32 master copy of the weights
  [[nodiscard]] constexpr double total() const { return weights + gradients + optimizer; }
};

/// Block size of the 8-bit optimizer states  [DE22 §2]
inline constexpr double k8BitStateBlock = 2048.0;

/// Bytes per parameter of n block-wise quantised states: n (q + s/B), q bytes per code, s bytes
/// per block scale  [DE22 §2]
constexpr double blockwise_state_bytes(double states, double code_bytes, double scale_bytes, double block) {
  return states * (code_bytes + scale_bytes / block);
}

inline constexpr std::array kOptimizerRecipes = {
    RecipeBytes{OptimizerRecipe::mixed_adam, "mixed-adam", 2.0, 2.0, 4.0 + 4.0 + 4.0, "RA20 §3.1"},
    RecipeBytes{OptimizerRecipe::mixed_adam_fp32_grads, "mixed-adam-fp32-grads", 2.0, 4.0, 12.0, "RA20 §3.1"},
    RecipeBytes{OptimizerRecipe::bf16_adam_fp32_master, "bf16-adam-fp32-master", 2.0, 2.0, 4.0 + 8.0, "RA20 §3.1"},
    RecipeBytes{OptimizerRecipe::bf16_adam, "bf16-adam", 2.0, 2.0, 2.0 + 2.0, "RA20 §3.1", false},
    RecipeBytes{OptimizerRecipe::adam_8bit, "adam-8bit", 2.0, 2.0,
                4.0 + blockwise_state_bytes(2.0, 1.0, 4.0, k8BitStateBlock), "DE22 §2"},
    RecipeBytes{OptimizerRecipe::adam_8bit_no_master, "adam-8bit-no-master", 2.0, 2.0,
                blockwise_state_bytes(2.0, 1.0, 4.0, k8BitStateBlock), "DE22 §2", false},
    RecipeBytes{OptimizerRecipe::sgd_momentum, "sgd-momentum", 2.0, 2.0, 4.0 + 4.0, "RA20 §3.1; DE22 §1"},
    RecipeBytes{OptimizerRecipe::adafactor_factored, "adafactor", 2.0, 2.0, 4.0, "SS18 §3"},
};

/// The row of kOptimizerRecipes for `r`.
const RecipeBytes& recipe_bytes(OptimizerRecipe r);

/// The recipe spelled `name` (kOptimizerRecipes[i].name), none when unknown.
std::optional<OptimizerRecipe> recipe_named(std::string_view name);

/// A weight matrix shape (rows x cols) and how many matrices of it the model holds.
struct MatrixShape {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t count = 1;
};

/// Adafactor's optimizer-state bytes: b_v (sum over matrices of (r + c) + N_vec) + b_m N (if β1 > 0),
/// the factored second moment of an r x c matrix being r + c values, a vector's being full  [SS18 §3]
units::Bytes adafactor_state_bytes(std::span<const MatrixShape> matrices, double vector_params, double state_bytes,
                                   double momentum_bytes);

// --- ZeRO sharding of model states ------------------------------------------------------------

enum class ZeroStage : int { none = 0, os = 1, os_g = 2, os_g_p = 3 };

/// Model-state bytes on one device, each term on its own.
struct ModelStateBytes {
  units::Bytes weights;
  units::Bytes gradients;
  units::Bytes optimizer;
  [[nodiscard]] constexpr units::Bytes total() const { return weights + gradients + optimizer; }
};

/// Stage 0: (w + g + o) Psi; 1: (w + g) Psi + o Psi/N_d; 2: w Psi + (g + o) Psi/N_d;
/// 3: (w + g + o) Psi/N_d, Psi the parameters this device holds  [RA20 §5, Fig. 1]
ModelStateBytes zero_model_states(double params, const RecipeBytes& recipe, ZeroStage stage, double dp);

/// A PyTorch FSDP sharding strategy and the ZeRO stage it applies.
struct FsdpStrategy {
  std::string_view name;    ///< the CLI spelling
  std::string_view torch;   ///< torch.distributed.fsdp.ShardingStrategy member
  ZeroStage stage{};        ///< the stage over the shard group
  bool node_group = false;  ///< N_d is the shard group (one node), replicated across groups
};

/// full-shard = 3, shard-grad-op = 2, no-shard = 0 (DDP), hybrid = 3 within a node's group  [ZH23]
inline constexpr std::array kFsdpStrategies = {
    FsdpStrategy{"full-shard", "FULL_SHARD", ZeroStage::os_g_p, false},
    FsdpStrategy{"shard-grad-op", "SHARD_GRAD_OP", ZeroStage::os_g, false},
    FsdpStrategy{"no-shard", "NO_SHARD", ZeroStage::none, false},
    FsdpStrategy{"hybrid", "HYBRID_SHARD", ZeroStage::os_g_p, true},
};

/// The FSDP strategy spelled `name`, none when unknown.
std::optional<FsdpStrategy> fsdp_strategy(std::string_view name);

// --- Parameters per device under tensor, pipeline and expert parallelism ----------------------

struct ParallelDegrees {
  std::int64_t tensor = 1;    ///< t
  std::int64_t pipeline = 1;  ///< p
  std::int64_t expert = 1;    ///< e (routed experts only)
  /// t_e: ranks each routed expert is split over; 0 means t (Megatron's training layout). Serving
  /// with expert parallelism keeps experts whole (t_e = 1).
  std::int64_t expert_tensor = 0;
  /// Share of the routed experts counted: 1 for what a device holds; a decode step reads the share
  /// its tokens touch.
  double expert_share = 1.0;
  /// Layers on each of the p stages, first to last (empty: ⌈L/p⌉ on the first and the last).
  std::span<const std::int64_t> stage_layers{};
};

/// Layers on each of p pipeline stages: L/p each when p divides L; otherwise the r = L mod p extra
/// layers go to the middle stages, the first and the last (which hold the embedding and the head)
/// keeping ⌊L/p⌋ (126 layers on 16 stages: 7, 14 x 8, 7), and when r = p - 1 the first takes one  [DU24 §3.3.2]
std::vector<std::int64_t> balanced_stage_layers(std::int64_t layers, std::int64_t p);

/// Parameters one device of the first, the last and the largest middle pipeline stage holds.
struct DeviceParams {
  double first_stage = 0.0;   ///< its layers + embedding (+ the head when p = 1)
  double last_stage = 0.0;    ///< its layers + final norm + head
  double middle_stage = 0.0;  ///< the largest stage between them (0 when p <= 2)
  [[nodiscard]] constexpr double most_loaded() const {
    const double ends = first_stage > last_stage ? first_stage : last_stage;
    return middle_stage > ends ? middle_stage : ends;
  }
};

/// Psi_dev = max(first, last): matrices / t (routed experts / (e t_e), times their share), norms, biases, router
/// replicated; ⌈L/p⌉ layers per stage; embedding (/t) on the first, head (/t) on the last  [NA21 §2] [SH19 §3]
/// With `bytes`, the same in bytes: each component at its class's format (params.hpp component_bytes).
DeviceParams params_per_device(const ParamCounts& c, ParallelDegrees d, const WeightLayout* bytes = nullptr);

/// Psi_unit: the largest unit one device gathers whole under ZeRO-3/FSDP, a layer's share
/// (matrices / t, routed experts / (e t), vectors replicated) or the embedding or head (/ t)  [ZH23 §3.2]
double largest_unit_params(const ParamCounts& c, ParallelDegrees d);

// --- Communication ----------------------------------------------------------------------------

/// Ring all-reduce, bytes each device sends: 2 (N - 1)/N M  [PY09 §3] [RA20 §7.1]
constexpr units::Bytes ring_allreduce_bytes(units::Bytes message, double n) { return message * (2.0 * (n - 1.0) / n); }

/// Ring reduce-scatter or all-gather, bytes each device sends: (N - 1)/N M  [PY09 §3] [RA20 §7.2.1]
constexpr units::Bytes ring_reduce_scatter_bytes(units::Bytes message, double n) { return message * ((n - 1.0) / n); }

/// Data-parallel gradient all-reduce per step and device: 2 (N_d - 1)/N_d Psi b_g  [RA20 §7.1]
constexpr units::Bytes dp_gradient_allreduce_bytes(double params, double grad_bytes, double dp) {
  return ring_allreduce_bytes(units::Bytes{params * grad_bytes}, dp);
}

/// ZeRO-3 per step and device: 1.5 x data parallelism's, 3 (N_d - 1)/N_d Psi b  [RA20 §7.2.2]
constexpr units::Bytes zero3_step_bytes(double params, double bytes, double dp) {
  return dp_gradient_allreduce_bytes(params, bytes, dp) * 1.5;
}

/// Tensor-parallel bytes per layer and step, each device: 4 all-reduces (2 forward, 2 backward) of
/// s b h elements, 4 . 2 (t - 1)/t s b h b_a; the same with sequence parallelism, whose all-gather +
/// reduce-scatter pairs move what an all-reduce moves  [NA21 §2.3] [KO22 §4.2.2]
constexpr units::Bytes tp_bytes_per_layer(double seq, double micro_batch, double hidden, double act_bytes, double t) {
  return ring_allreduce_bytes(units::Bytes{seq * micro_batch * hidden * act_bytes}, t) * 4.0;
}

/// Pipeline bubble over ideal time: (p - 1)/(v m), v model chunks per device (1: 1F1B)  [NA21 §2.2]
constexpr double pipeline_bubble_overhead(double p, double micro_batches, double chunks) {
  return (p - 1.0) / (chunks * micro_batches);
}

/// Share of the step spent in the bubble: (p - 1)/(v m + p - 1)  [NA21 §2.2]
constexpr double pipeline_bubble_fraction(double p, double micro_batches, double chunks) {
  return (p - 1.0) / (chunks * micro_batches + p - 1.0);
}

/// Pipeline point-to-point bytes per step and device: each of the m micro-batches sends its
/// s b h activations forward and receives their gradient back at each of the v chunk boundaries,
/// 2 v m s b h e (/ t with sequence parallelism: Megatron's scatter-gather)  [NA21 §4.1]
constexpr units::Bytes pp_p2p_bytes(double seq, double micro_batch, double hidden, double act_bytes,
                                    double micro_batches, double chunks, double split) {
  return units::Bytes{2.0 * chunks * micro_batches * seq * micro_batch * hidden * act_bytes / split};
}

/// Expert-parallel all-to-all bytes per MoE layer and micro-batch, each device: the k routed copies
/// of its s b tokens' h-wide states leave for other ranks ((e - 1)/e of them) to dispatch and
/// again to combine, forward and backward: 4 k s b h e_b (e - 1)/e  [LE21]
constexpr units::Bytes ep_alltoall_bytes_per_layer(double seq, double micro_batch, double top_k, double hidden,
                                                   double act_bytes, double ep) {
  return units::Bytes{4.0 * top_k * seq * micro_batch * hidden * act_bytes * (ep - 1.0) / ep};
}

/// ZeRO-3/FSDP buffers live during the forward and backward passes, each term on its own.
struct Zero3LiveBytes {
  units::Bytes gathered_params;  ///< the unit being computed and the one prefetched, unsharded
  units::Bytes unsharded_grads;  ///< one unit's full gradients before their reduce-scatter
  [[nodiscard]] constexpr units::Bytes total() const { return gathered_params + unsharded_grads; }
};

/// (1 + f) Psi_unit w + Psi_unit g: the unit (one layer) computing and f prefetched ones are
/// gathered whole, and one unit's gradients exist whole before the reduce-scatter  [ZH23 §3.2]
constexpr Zero3LiveBytes zero3_live_bytes(double unit_params, double weight_bytes, double grad_bytes,
                                          double prefetched_units) {
  return {.gathered_params = units::Bytes{(1.0 + prefetched_units) * unit_params * weight_bytes},
          .unsharded_grads = units::Bytes{unit_params * grad_bytes}};
}

/// Bytes the optimizer step moves through device memory: it reads the gradients and the optimizer
/// states, writes the states back and writes the weights, Psi_o (g + 2 o + w), Psi_o the
/// parameters this device updates (Psi / N_d from ZeRO-1 on)  [RA20 §3.1] (derived)
constexpr units::Bytes optimizer_step_bytes(double updated_params, double weight_bytes, double grad_bytes,
                                            double optimizer_bytes) {
  return units::Bytes{updated_params * (grad_bytes + 2.0 * optimizer_bytes + weight_bytes)};
}

/// The optimizer step's temporary: the 16-bit gradient shard upcast to fp32 for an fp32 update,
/// 4 Psi_o when the gradients are narrower than 4 B and the recipe keeps an fp32 master; 0 otherwise
/// [MI18 §3]
constexpr units::Bytes optimizer_step_temporary_bytes(double updated_params, double grad_bytes, bool fp32_master) {
  return fp32_master && grad_bytes < 4.0 ? units::Bytes{4.0 * updated_params} : units::Bytes{};
}

/// Communication a step cannot hide: the data-parallel collectives overlap the backward (bucketed
/// as they are produced), so only what outlasts it is exposed; tensor, expert and pipeline transfers
/// sit on the critical path: t_TP + t_EP + t_PP + max(0, t_DP - t_bwd)  [NA21 §2.3] [RA20 §7] (derived)
constexpr units::Seconds exposed_comm_time(units::Seconds critical, units::Seconds dp, units::Seconds backward) {
  const units::Seconds hidden_excess = dp > backward ? dp - backward : units::Seconds{};
  return critical + hidden_excess;
}

/// The data-parallel batch (sequences a rank computes per step) below which its collectives
/// outlast the backward: the backward is linear in the batch at a fixed s and t_DP is not, so
/// B_d* = B_d x t_DP / t_bwd  [RA20 §7] (derived)
constexpr double dp_comm_bound_batch(double batch_per_rank, units::Seconds dp, units::Seconds backward) {
  return batch_per_rank * (dp / backward);
}

/// One K, V block of ring attention: M_blk = (s/c) b (w_k + w_v) e x share, share = 1/min(t, h_kv), the
/// keys and values of a rank's s/c tokens in one layer  [LI23 §3]
constexpr units::Bytes cp_kv_block_bytes(double local_seq, double b, double kv_width, double e, double share) {
  return units::Bytes{local_seq * b * kv_width * e * share};
}

/// Ring attention's sends per layer and micro-batch: (c - 1) K, V blocks forward; (c - 1) K, V and
/// (c - 1) dK, dV blocks backward; full recomputation repeats the forward's: 3 (c - 1), or 4 (c - 1)  [LI23 §3]
/// (derived)
constexpr double cp_ring_sends(double c, bool full_recompute) { return (full_recompute ? 4.0 : 3.0) * (c - 1.0); }

/// Ring attention overlaps each block's send with the attention core on the block before it: only
/// what outlasts the core is exposed, max(0, t_CP - t_attn)  [LI23 §3]
constexpr units::Seconds cp_exposed_time(units::Seconds ring, units::Seconds attention) {
  return ring > attention ? ring - attention : units::Seconds{};
}

/// A pipeline steps at the pace of its slowest stage: imbalance = max_i W_i / (sum_i W_i / p), W_i
/// the FLOPs of stage i (its layers; the head on the last); 1 for balanced stages  [DU24 §3.3.2] (derived)
double stage_imbalance(std::span<const double> stage_work);

/// Step-time floor at the peak: t = t_compute (1 + (p - 1)/(v m)) + t_exposed + t_optimizer, the
/// compute the executed FLOPs at G P, the bubble on top, then what does not overlap  [NA21 §2.2] (derived)
constexpr units::Seconds step_time_floor(units::Seconds compute, double bubble_overhead, units::Seconds exposed,
                                         units::Seconds optimizer) {
  return compute * (1.0 + bubble_overhead) + exposed + optimizer;
}

/// t = bytes / link bandwidth per direction  [PY09 §3]
constexpr units::Seconds comm_time(units::Bytes bytes, units::BytesPerSecond link) { return bytes / link; }

// --- Compute ----------------------------------------------------------------------------------

/// F = 72 B s L h^2 (1 + s/(6h) + V/(12 h L)); with full recomputation
/// F = 96 B s L h^2 (1 + s/(6h) + V/(16 h L))  [NA21 §5.1]
units::Flop megatron_flops_per_iteration(double batch, double seq, double layers, double hidden, double vocab,
                                         bool full_recompute);

}  // namespace roofline
