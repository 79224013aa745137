// The analyses of serving: a server at steady state, a layout of devices, a fleet for a user load
// (roofline/analysis.hpp has them all).
#pragma once

#include "roofline/analysis/device.hpp"
#include "roofline/decode.hpp"
#include "roofline/dtype.hpp"
#include "roofline/flops.hpp"
#include "roofline/layer_ops.hpp"
#include "roofline/scenario.hpp"
#include "roofline/server_sim.hpp"
#include "roofline/topology.hpp"
#include "roofline/units.hpp"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace roofline {

// --- serve ---------------------------------------------------------------------------------------

/// What limits the concurrency of a server.
enum class ServeLimit { kv_budget, tpot_target, ttft_target, none };

/// A server's concurrency: the KV budget's, lowered by the TPOT target's where that is less, and
/// none when the TTFT floor misses its target; with what limits it.
struct AllowedConcurrency {
  std::int64_t sequences = 0;
  ServeLimit limit = ServeLimit::none;
};
AllowedConcurrency allowed_concurrency(std::int64_t kv_budget, std::optional<std::int64_t> by_tpot, bool ttft_met);

struct ServeResult {
  // A server at steady state.
  std::int64_t kv_block = 1;
  double paged_tokens = 0.0;                         ///< S + O - P rounded up to whole blocks
  units::Bytes kv_per_sequence_paged{};              ///< M_KV(paged tokens), private to a sequence
  units::Bytes shared_prefix_kv{};                   ///< M_KV(paged P), stored once
  std::optional<std::int64_t> max_concurrency;       ///< the KV budget, paged, at full length
  std::optional<std::int64_t> max_concurrency_tpot;  ///< the most sequences whose step meets --tpot
  bool ttft_met = true;                              ///< the TTFT floor meets --ttft
  ServeLimit limit = ServeLimit::none;
  std::optional<SteadyState> steady;                  ///< at the given concurrency, or the most allowed
  std::optional<double> prefill_replicas_per_decode;  ///< disaggregated: requests/s x one prompt's TTFT floor
  CapacityResult capacity;                            ///< at T = S + O, the longest cache a request reaches
  bool has_peak = false;
  std::int64_t batch = 1;
  std::int64_t prompt = 0;
  std::int64_t output = 0;
  PrefillPass prefill;
  units::Seconds decode_time{};  ///< sum_{i<O} t_step(T = S + i)
  units::Seconds tpot{};         ///< mean over the output
  DecodeStep last_step;          ///< the step at T = S + O
  units::Seconds tpot_last{};    ///< t_step(T = S + O)
  units::Seconds e2e{};
  units::PerSecond output_tokens_per_s{};  ///< B / t_step(S + O)
  std::optional<std::int64_t> full_batch;  ///< the most sequences that fit at S + O
  std::optional<units::Seconds> tpot_full;
  std::optional<units::PerSecond> output_tokens_per_s_full;
};
ServeResult analyze_serve(const Scenario& s);

// --- serve --rate (a server under load) -----------------------------------------------------------

/// The simulated server's step model on the scenario's ideal device: a step of n tokens reads the
/// weights n tokens touch, each decoding sequence's cache at its context and each prefill chunk's
/// earlier cache, and computes C_fwd a decode token plus its attention and each chunk's
/// F_pre(b) - F_pre(a): t = max(F/P, Q/BW) + t_overhead; the pool is C - M_w - R, blocks of k
/// tokens at M_KV per token, a hybrid's state per sequence  [KW23] [VL25] [S003-2.5] (derived)
std::unique_ptr<StepModel> scenario_step_model(const Scenario& s, double step_overhead_s);

struct LoadResult {
  LoadSpec spec;
  double step_overhead_s = 0.0;
  units::Bytes pool_bytes{};   ///< C - M_w - R: the cache pool of the ideal device
  units::Bytes block_bytes{};  ///< k M_KV per token
  LoadRun run;
  std::optional<double> saturation_rate;  ///< the highest rate whose p99s meet the targets
  double capacity_sequences = 0.0;        ///< N of the closed-form capacity: min(KV budget, --max-seqs)
};
/// The server of `serve` simulated under the scenario's load (serving.load), and with targets the
/// highest rate that meets them at p99 (bisection under one seed)  (derived)
LoadResult analyze_load(const Scenario& s);

// --- deployment (inference on a parallel layout) --------------------------------------------------

struct DeploymentResult {
  std::int64_t tensor = 1, pipeline = 1, data = 1, expert = 1, devices = 1;
  DeviceParams stage_params;      ///< parameters of a first- and a last-stage device
  bool last_stage_binds = false;  ///< the last stage holds more (the head)
  units::Bytes weights_per_device{};
  double kv_share = 1.0;       ///< of one sequence's attention KV a device holds: (1/p) (1 / min(t, h_kv)); 0 without
                               ///< attention heads
  double state_share = 1.0;    ///< of one sequence's recurrent state a device holds: 1 / (t p)
  bool kv_replicated = false;  ///< t > h_kv: ranks hold copies of a KV head
  units::Bytes kv_attention_per_sequence{};   ///< M_KV,attn(T): the attention layers' part of M_KV(T)
  units::Bytes state_per_sequence{};          ///< M_S: the state-space layers' part, constant in T
  units::Bytes kv_per_sequence{};             ///< M_KV(T) of the whole model
  units::Bytes kv_per_sequence_per_device{};  ///< (M_KV,attn(T) kv_share + M_S state_share)
  units::Bytes capacity_per_device{};
  units::Bytes reserve_per_device{};
  units::Bytes required_per_device{};  ///< weights + B kv per device + reserve
  bool fits = false;
  std::optional<std::int64_t> max_sequences;  ///< per replica
  std::int64_t batch = 1;                     ///< sequences per replica
  std::int64_t context = 0;                   ///< T, the cache each sequence holds
  // Decode, one token per sequence, through the p stages.
  double experts_per_device = 0.0;       ///< E/e whole routed experts a layer (--ep), 0 when t splits them
  bool attention_data_parallel = false;  ///< e > t: an expert group spans e/t replicas (DP attention + EP)
  bool hop_spans = false;                ///< stage neighbours sit in different domains
  LinkKind hop_kind = LinkKind::scale_up;
  double expert_tokens = 0.0;           ///< n_e = B max(1, e/t): tokens a device's routed experts see
  double params_read_per_device = 0.0;  ///< the binding stage's read: experts in the share n_e touches
  units::Bytes weights_read_per_device{};
  double params_read_share = 1.0;  ///< params read / params stored (MoE experts touched, embedding rows)
  units::Flop flops_per_device{};
  units::Bytes bytes_per_device{};
  units::Seconds t_compute{};
  units::Seconds t_memory{};
  units::Seconds t_stage{};           ///< max of the two, one stage
  units::Bytes allreduce_bytes{};     ///< one all-reduce: B d e
  double allreduces_per_stage = 0.0;  ///< 2 per layer
  units::Seconds t_allreduce{};       ///< all of one stage's
  units::Bytes alltoall_bytes{};      ///< one MoE layer's dispatch or combine: k B d e (e_p - 1)/e_p / t
  double alltoalls_per_stage = 0.0;   ///< 2 per MoE layer of a stage
  units::Seconds t_alltoall{};        ///< all of one stage's
  units::Bytes hop_bytes{};           ///< one stage hand-off: B d e
  units::Seconds t_hop{};
  units::Seconds t_step{};         ///< p (t_stage + t_allreduce + t_alltoall) + (p - 1) t_hop
  double comm_share = 0.0;         ///< communication / step
  std::int64_t micro_batches = 1;  ///< M batches in flight (each holds its cache on every stage)
  double layers_per_stage = 0.0;
  units::Bytes first_stage_required{};  ///< first-stage weights + M B kv + R
  units::Bytes last_stage_required{};   ///< last-stage weights + M B kv + R
  units::Seconds slot{};                ///< t_stage + t_all-reduce + t_all-to-all + t_hop
  units::Seconds interval{};            ///< a batch's token interval with M in flight: max(M, p) slots
  double idle_share = 0.0;              ///< 1 - M / max(M, p)
  double tokens_per_s_pipelined = 0.0;  ///< M B / interval, one replica
  double tokens_per_s_replica = 0.0;
  double tokens_per_s = 0.0;     ///< all d replicas
  units::BytesPerSecond link{};  ///< the tensor-parallel group's bus bandwidth
  units::Seconds latency{};      ///< one all-reduce's fixed and per-step cost
  GroupLinks tp_links, ep_links;
  units::BytesPerSecond hop_link{};  ///< the link a stage hand-off crosses
  units::Seconds alltoall_latency{}, hop_latency{};
  std::string_view protocol;  ///< the all-reduce's NCCL protocol, or "α per step"
  struct Layout {
    std::int64_t tensor = 1, pipeline = 1;
  };
  std::optional<Layout> smallest_fitting;  ///< least t p with t | h (KV heads split first), p | L
};
/// A tensor x pipeline split a model allows.
struct LayoutCandidate {
  std::int64_t tensor = 1, pipeline = 1;
  bool replicates_kv = false;  ///< t > h_kv: ranks keep copies of a KV head
};

/// A width of a state-space mixer that tensor parallelism splits, as its matrices and its state split.
struct StateSplit {
  std::int64_t count = 0;  ///< Mamba's d_i channels, Mamba-2's H heads, Gated DeltaNet's h_k or h_v heads
  const char* what = "";   ///< "Mamba channels", "Mamba-2 heads", ...
};

/// The widths t must divide for the model's state mixers to split over t ranks; none without one.
std::vector<StateSplit> state_tensor_splits(const ModelConfig& m);

/// Every t x p with t | h (KV heads split over t, or t a multiple of h_kv so each rank copies one;
/// MLA's latent always splits; t dividing every state_tensor_splits width), p | L and t p <= max_devices, in the order
/// the searches want: the fewest devices, KV heads split before replicated, then the fewest stages. Divisors only, so a
/// few hundred at most; a model known by N alone allows 1 x 1.
std::vector<LayoutCandidate> tensor_pipeline_layouts(const ModelConfig& m, std::int64_t max_devices);

/// Inference on the layout t x p (x d replicas, e expert ranks) at the scenario's batch (per
/// replica) and context: per-device memory and fit, and the decode step with its collectives
DeploymentResult analyze_deployment(const Scenario& s, bool search_smallest = true);

/// A server at steady state through an explicit layout t x p x d: N sequences over d replicas,
/// n = N/d each, with their arrivals' prompt chunks; the binding device holds 1/(t p) of a
/// replica's FLOPs and its share of the weights read and of the cache, and each stage all-reduces
/// its tokens.
struct LayoutSteadyState {
  double concurrency = 0.0;                          ///< N, all replicas
  double per_replica = 0.0;                          ///< n = N / d
  std::optional<std::int64_t> max_concurrency;       ///< d x the most sequences a replica holds at S + O
  std::optional<std::int64_t> max_concurrency_tpot;  ///< the most whose step through the layout meets --tpot
  ServeLimit limit = ServeLimit::none;
  Machine device;            ///< one device's effective peak and bandwidth
  SteadyState replica;       ///< one replica's step as one ideal device: its FLOPs, reads and writes
  double step_tokens = 0.0;  ///< n + n (S - P) / O tokens each step carries through the layers
  double cache_share = 1.0;  ///< of a sequence's cache the binding device holds
  units::Flop flops_per_device{};
  units::Bytes weights_read_per_device{};
  units::Bytes bytes_per_device{};  ///< weights read + (KV read + KV written) x share
  units::Seconds t_stage{};         ///< max(F_dev / P, Q_dev / BW)
  units::Seconds t_allreduce{};     ///< one stage's, for the step's tokens
  units::Seconds t_alltoall{};
  units::Seconds t_hop{};
  units::Seconds t_step{};      ///< p (t_stage + t_all-reduce + t_all-to-all) + (p - 1) t_hop: the TPOT every user sees
  double tokens_per_s = 0.0;    ///< N / t_step
  double requests_per_s = 0.0;  ///< N / (O t_step)
};

/// serve's steady state through the scenario's explicit layout: the concurrency the layout's KV
/// budget and the TPOT target allow (or --concurrency), and its step  [KW23] [NA21-2.2] (derived)
std::optional<LayoutSteadyState> analyze_layout_steady(const Scenario& s, const ServeResult& ideal);

// --- plan (a fleet for a user load) -------------------------------------------------------------

struct PlanInputs {
  std::int64_t users = 1;              ///< concurrent users
  double tokens_per_s_per_user = 1.0;  ///< R: each user's decode rate
  std::optional<double> tpot_s;        ///< a stricter TPOT target than 1/R
  std::optional<double> ttft_s;        ///< the TTFT floor must meet it
  std::optional<double> price_per_device_hour;
  std::int64_t max_group_devices = 64;  ///< t p at most
};

enum class PlanLimit { load, kv_budget, step_target, infeasible_memory, infeasible_rate, infeasible_ttft };

struct PlanRow {
  std::int64_t tensor = 1, pipeline = 1;
  std::int64_t data = 1;                     ///< d replicas in a group: DP attention with their experts on e ranks
  std::int64_t expert = 1;                   ///< e
  std::int64_t micro_batches = 1;            ///< M = p batches in flight through a pipeline
  std::optional<std::int64_t> kv_sequences;  ///< the most sequences a group's KV budget holds
  std::int64_t batch = 0;                    ///< n: sequences per micro-batch (per replica)
  std::int64_t concurrency = 0;              ///< sequences a group serves within the targets: M d n
  PlanLimit limit = PlanLimit::kv_budget;
  units::Seconds step{};    ///< the decode step at that concurrency (the TPOT users see)
  units::Seconds target{};  ///< min(1/R, TPOT target)
  units::Seconds ttft{};    ///< a prompt's prefill floor on the group
  double tokens_per_s_group = 0.0;
  std::int64_t groups = 0;   ///< ceil(users / concurrency)
  std::int64_t devices = 0;  ///< groups t p d
  std::optional<double> cost_per_hour;
  std::optional<double> cost_per_million_tokens;
  [[nodiscard]] std::int64_t group_devices() const { return tensor * pipeline * data; }
  [[nodiscard]] bool feasible() const {
    return limit == PlanLimit::load || limit == PlanLimit::kv_budget || limit == PlanLimit::step_target;
  }
};

/// A plan row and the accelerator it is for.
struct PlanOption {
  std::string gpu;
  PlanRow row;
};

/// Every group layout of one accelerator for a user load (t x p with t | h, p | L, t p <= the cap
/// and M = p micro-batches in flight; for MoE, DP attention over d = e devices with whole experts,
/// e | E): the most sequences a group serves within the KV budget and the step target, the groups
/// and devices the load needs, and the cost  [S003-3.6] (derived)
std::vector<PlanRow> analyze_plan(const Scenario& s, const PlanInputs& in);

}  // namespace roofline
