// One pure analysis per question. Each takes a resolved Scenario and returns a plain result that
// holds every number its command prints, as typed quantities, plus the operands its formulas used,
// so a view can print the formula with the values substituted without computing anything.
#pragma once

#include "roofline/decode.hpp"
#include "roofline/dtype.hpp"
#include "roofline/flops.hpp"
#include "roofline/layer_ops.hpp"
#include "roofline/scenario.hpp"
#include "roofline/units.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace roofline {

// --- params ------------------------------------------------------------------------------------

struct WeightsAtDtype {
  DType dtype = DType::bf16;
  double bits = 16.0;
  units::Bytes bytes{};
};

struct ParamsResult {
  const ParamCounts* counts = nullptr;  ///< the scenario's counts (every count the view prints)
  double main_layer_over_d2 = 0.0;      ///< P_layer / d² of the most common layer kind
  std::int64_t main_layer_params = 0;   ///< P_layer of that kind
  std::int64_t embedding_width = 0;     ///< e: embed_proj_dim or d
  bool published_applies = false;       ///< a published count exists and the model is unmodified
  bool published_matches = false;
  // Weights at the scenario's format, and the training state rule of thumb.
  units::Bytes weight_bytes{};
  units::Bytes training_state_bytes{};
  double training_state_bytes_per_param = 0.0;
  std::vector<WeightsAtDtype> weights_by_dtype;
};
ParamsResult analyze_params(const Scenario& s);

// --- flops -------------------------------------------------------------------------------------

struct FlopsResult {
  std::array<std::int64_t, 3> basis_params{};      ///< N per FlopBasis (physical, non-embedding, all-params)
  std::array<units::Flop, 3> forward_per_token{};  ///< 2 N per basis
  FlopBasis basis = FlopBasis::physical;
  units::Flop forward{};  ///< under the chosen basis
  units::Flop training_per_token{};
  units::Flop recompute_per_token{};
  std::int64_t vocab = 0;       ///< V
  std::int64_t head_width = 0;  ///< e
  units::Flop lm_head_per_token{};
  double flops_per_pair = 0.0;  ///< a = 2 (w_qk + w_v)
  std::int64_t context = 0;     ///< T
  double attended_keys = 0.0;   ///< sum_l min(T, W_l)
  units::Flop attention_per_decode_token{};
  std::int64_t prompt = 0;  ///< S
  PrefillFlopTerms prefill;
  double mean_layer_matrix_params = 0.0;  ///< P̄: mean weight-matrix parameters per layer a token uses
  std::int64_t layers = 0;
  units::Fraction attention_share{};
  units::Tokens crossover_causal{};
  units::Tokens crossover_full{};
};
FlopsResult analyze_flops(const Scenario& s);

// --- kv ----------------------------------------------------------------------------------------

/// Layers that share an attention kind (global or sliding), for the per-layer layout.
struct KvLayerGroup {
  bool sliding = false;
  std::int64_t layers = 0;  ///< how many
  std::int64_t first = 0;   ///< first layer index
  std::int64_t last = 0;    ///< last layer index
  std::int64_t every = 1;   ///< 1: a contiguous run; k: every k-th layer from `first`
  std::int64_t window = 0;  ///< tokens (sliding only)
  units::Bytes bytes_per_token_per_layer{};
};

struct KvResult {
  bool mla = false;
  std::int64_t elements_per_token_per_layer = 0;
  double bytes_per_element = 0.0;
  units::Bytes per_token{};
  std::int64_t context = 0;    ///< T
  double cached_tokens = 0.0;  ///< sum_l min(T, W_l)
  units::Bytes per_sequence{};
  std::int64_t batch = 1;
  units::Bytes batch_bytes{};
  std::optional<units::Bytes> per_token_mha;  ///< the same model with h_kv = h (GQA/MQA only)
  std::optional<units::Ratio> mha_ratio;      ///< h / h_kv
  std::vector<KvLayerGroup> layout;
  // A hybrid's recurrent state (issue 10): constant per sequence, part of per_sequence.
  std::int64_t attention_layers = 0;  ///< layers holding KV
  std::int64_t state_layers = 0;      ///< layers holding a recurrent state
  std::int64_t state_elements = 0;    ///< per sequence, summed over the state layers
  units::Bytes state_per_sequence{};  ///< M_S = b x state_elements
  /// The recurrent state's declared dtype (its conv part stays in the KV dtype); unset: the KV dtype.
  std::optional<DType> state_dtype;
  std::int64_t recurrent_elements = 0;  ///< the recurrent part of state_elements
};
KvResult analyze_kv(const Scenario& s);

// --- capacity ------------------------------------------------------------------------------------

struct CapacityResult {
  units::Bytes device_capacity{};
  std::int64_t devices = 1;
  units::Bytes capacity{};  ///< all devices
  CapacitySource source = CapacitySource::device;
  units::Bytes weights{};
  units::Bytes reserve_per_device{};
  units::Bytes reserve{};  ///< all devices
  units::Bytes free{};     ///< C - M_w - R; negative when the weights do not fit
  std::int64_t batch = 1;
  std::int64_t context = 0;
  units::Bytes kv_per_sequence{};
  units::Bytes required{};  ///< M_w + R + B M_KV(T)
  bool fits = false;
  std::optional<units::Sequences> max_sequences;  ///< nullopt: unbounded (no KV at this context)
  std::optional<units::Bytes> kv_per_sequence_mha;
  std::optional<units::Sequences> max_sequences_mha;
  units::TokenCount max_context{};
  bool max_context_beyond_trained = false;
  std::optional<std::int64_t> devices_needed;  ///< nullopt: the reserve leaves nothing on a device
};
/// Capacity at the scenario's batch and context.
CapacityResult analyze_capacity(const Scenario& s);

// --- hardware ----------------------------------------------------------------------------------

struct HardwareResult {
  std::string name;
  std::string display_name;
  std::int64_t devices = 1;
  units::Bytes device_capacity{};
  CapacitySource source = CapacitySource::device;
  units::BytesPerSecond device_bandwidth{};
  DType compute_dtype = DType::bf16;
  std::optional<units::FlopPerSecond> device_peak;
  std::optional<units::FlopPerByte> ridge;
  Machine machine;       ///< effective rates of all devices
  bool derated = false;  ///< mfu or bandwidth efficiency below 1
  double mfu = 1.0;
  double bw_efficiency = 1.0;
};
HardwareResult analyze_hardware(const Scenario& s);

// --- decode --------------------------------------------------------------------------------------

struct DecodeResult {
  Machine machine;
  bool has_peak = false;
  std::int64_t batch = 1;
  std::int64_t context = 0;
  DecodeStep step;
  units::Flop forward_per_token{};    ///< C_fwd under the basis
  units::Flop attention_per_token{};  ///< a sum_l min(T, W_l)
  DecodeStep touched_no_kv;           ///< batch 1, no KV, weights actually read
  DecodeStep all_weights_no_kv;       ///< batch 1, no KV, every weight (the whiteboard rule)
  std::optional<std::int64_t> compute_bound_batch;
  std::optional<std::int64_t> compute_bound_batch_no_kv;
  std::optional<units::FlopPerByte> ridge;  ///< effective P / BW
  std::optional<units::Tokens> projection_compute_bound_tokens;
  CapacityResult capacity;  ///< at this batch and context
};
/// What analyze_decode computes beyond the step: the two compute-bound batch searches cost most of
/// it, and a sweep's streamed lines do not show them.
struct DecodeOptions {
  bool searches = true;
};
DecodeResult analyze_decode(const Scenario& s, DecodeOptions o = {});

// --- prefill -------------------------------------------------------------------------------------

struct PrefillResult {
  Machine machine;
  bool has_peak = false;
  std::int64_t batch = 1;
  std::int64_t prompt = 0;
  PrefillPass pass;
  units::Fraction attention_share{};
  std::optional<units::Ratio> ridge_ratio;  ///< I / I*
  units::Bytes score_matrix_bytes{};        ///< one layer, one sequence, unfused
  double activation_bytes = 2.0;
  units::Seconds decode_step_at_prompt{};  ///< t_step(T = S), batch 1
  std::optional<units::Ratio> decode_prefill_ratio;
  CapacityResult capacity;  ///< at this batch, context = prompt
};
PrefillResult analyze_prefill(const Scenario& s);

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
  double expert_tokens = 0.0;            ///< n_e = B max(1, e/t): tokens a device's routed experts see
  double params_read_per_device = 0.0;   ///< the binding stage's read: experts in the share n_e touches
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
  double tokens_per_s = 0.0;  ///< all d replicas
  units::BytesPerSecond link{};
  units::Seconds latency{};
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

// --- speculative decoding ----------------------------------------------------------------------

struct SpeculativeResult {
  std::int64_t context = 0;       ///< T, the cache the steps read
  double acceptance = 0.0;        ///< α
  double draft_len = 0.0;         ///< γ
  DecodeStep target;              ///< one ordinary step: B sequences, one token each
  DecodeStep draft;               ///< one draft step at the same B and T
  DecodeStep verify;              ///< the target scoring γ + 1 tokens per sequence
  double acceptance_power = 0.0;  ///< α^(γ+1): the chance all γ drafts are accepted
  double expected_tokens = 1.0;   ///< (1 - α^(γ+1)) / (1 - α)
  double draft_params = 0.0;      ///< parameters the draft stores (self-draft: the MTP modules)
  units::Seconds cycle{};         ///< γ t_draft + t_verify
  units::Seconds tpot{};          ///< cycle / expected tokens
  double speedup = 1.0;           ///< t_target / tpot
  double cost_ratio = 0.0;        ///< c = t_draft / t_target
  double speedup_bound = 1.0;     ///< Leviathan's (1 - α^(γ+1)) / ((1 - α)(γ c + 1))
  units::Bytes draft_weight_bytes{};
  units::Bytes draft_kv_bytes{};  ///< B sequences at T
};
/// Speculative decoding at context T: draft steps, the verification step, the expected tokens and
/// the speedup  [LE23]
SpeculativeResult analyze_speculative(const Scenario& s, std::int64_t context);

// --- elementwise ---------------------------------------------------------------------------------

struct ElementwiseResult {
  double activation_bytes = 2.0;
  units::Bytes per_token_per_layer{};
  units::Bytes layer_weight_bytes{};  ///< mean weight matrices of one layer at the weight format
  units::Tokens crossover{};
  units::Fraction share_at_one_token{};
};
ElementwiseResult analyze_elementwise(const Scenario& s);

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
  std::int64_t devices = 1, tensor = 1, pipeline = 1, data = 1, expert = 1;
  std::int64_t chunks = 1;       ///< v, model chunks per device
  std::int64_t shard_group = 1;  ///< N_s, the data ranks ZeRO shards over (d, or a node's group)
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
  double unit_params = 0.0;   ///< ZeRO-3: the largest unit gathered whole
  Zero3LiveBytes zero3_live;  ///< ZeRO-3: gathered and unsharded buffers (0 otherwise)
  double layers_per_stage = 0.0;
  double kept_layers = 0.0;              ///< layers per stage whose activations are kept (full, every k: ceil(L/p / k))
  units::Bytes activations_per_layer{};  ///< mean over the layers, one micro-batch
  LayerActivations layer_terms;          ///< one layer (an MoE layer when the model has them), term by term
  units::Bytes dense_layer_bytes{};      ///< one dense layer, one micro-batch
  units::Bytes moe_layer_bytes{};        ///< one MoE layer, one micro-batch
  double dense_layers = 0.0, moe_layers = 0.0;
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
  double bubble_fraction = 0.0;  ///< (p - 1) / (v m + p - 1)
  double bubble_overhead = 0.0;  ///< (p - 1) / (v m), of the compute time
  // The step-time floor: compute at the peak, the bubble, what does not overlap.
  std::optional<units::Seconds> compute_time;   ///< executed FLOPs / (G P_peak)
  std::optional<units::Seconds> backward_time;  ///< 2/3 of it: what the data-parallel collectives hide behind
  std::optional<units::Seconds> exposed_comm;   ///< t_TP + t_EP + t_PP + max(0, t_DP - t_bwd)
  std::optional<units::Seconds> step_floor;
  std::optional<units::Fraction> mfu_ceiling;  ///< convention FLOPs / (G P t_floor)
  units::BytesPerSecond link{};                ///< interconnect per direction
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

// --- layer ---------------------------------------------------------------------------------------

/// Which pass `layer` follows operator by operator, and whether its rows are fused.
struct LayerQuery {
  Phase phase = Phase::decode;
  bool fused = false;  ///< the rows with flash attention and the elementwise operators fused
};

/// One operator on the roofline of the effective machine.
struct LayerOpResult {
  LayerOp op;
  units::Bytes bytes{};                         ///< weights + activations + KV
  std::optional<units::FlopPerByte> intensity;  ///< F / Q; none when fusion left nothing to move
  units::Seconds time{};                        ///< max(F/P, Q/BW)
  Bound bound = Bound::memory;
  units::Fraction share{};  ///< of the time of its layer (or of the head)
};

/// Sums over the operators of one layer, of the head, or of the whole pass.
struct LayerTotals {
  units::Flop flops{};
  units::Bytes weight_bytes{};
  units::Bytes kv_bytes{};
  units::Bytes activation_bytes{};  ///< unfused
  units::Bytes activation_bytes_fused{};
  units::Seconds time{};  ///< the operators' floors summed, unfused
  units::Seconds time_fused{};
};

struct LayerSection {
  LayerKind kind;  ///< the layers the rows describe (the head: one)
  bool head = false;
  std::vector<LayerOpResult> ops;  ///< unfused, or fused under LayerQuery::fused
  LayerTotals totals;              ///< one layer of this kind (the head once)
};

struct LayerResult {
  LayerQuery query;
  LayerPass pass;
  Machine machine;
  bool has_peak = false;
  std::optional<units::FlopPerByte> ridge;  ///< effective P / BW
  std::int64_t batch = 1;
  std::int64_t prompt = 0;
  std::int64_t context = 0;
  double experts_read = 0.0;         ///< routed experts one MoE layer reads in this pass (0: dense)
  std::vector<LayerSection> layers;  ///< one per layer kind, in order of first layer
  LayerSection head;
  LayerTotals totals;  ///< sum_kinds L_k x (one layer) + the head
  units::Bytes bytes_unfused{};
  units::Bytes bytes_fused{};
  double fusion_traffic_ratio = 1.0;  ///< Q_unfused / Q_fused
  // The same pass as decode_step / prefill_pass count it, one roofline for the whole pass: its
  // FLOPs and weight + KV bytes are the totals' (the test holds them equal).
  units::Flop whole_flops{};
  units::Bytes whole_bytes{};
  units::Seconds whole_t_compute{};
  units::Seconds whole_t_memory{};
  /// The pass's floor as its command gives it: decode_step's t_step (the memory side alone without
  /// a peak, as decode prints it); prefill_pass's t_floor, none without a peak (prefill's TTFT floor
  /// is then n/a: N15).
  std::optional<units::Seconds> whole_time;
  Bound whole_bound = Bound::memory;
};
/// Every layer kind and the head, operator by operator, each at t = max(F/P, Q/BW) on the effective
/// machine; FLOPs on the physical basis, the pass of LayerQuery at the workload's batch, prompt or
/// context; totals sum_k L_k (one layer) + head  [WI09] [S003-2.5] [S004]
LayerResult analyze_layer(const Scenario& s, LayerQuery q);

// --- gemm ----------------------------------------------------------------------------------------

struct GemmInputs {
  double m = 0.0;
  double n = 0.0;
  double k = 0.0;
  DType dtype = DType::bf16;
};

struct GemmResult {
  GemmInputs in;
  double element_bytes = 2.0;
  units::Flop flops{};
  units::Bytes bytes{};
  units::FlopPerByte intensity{};
  std::optional<units::FlopPerSecond> peak;
  units::BytesPerSecond bandwidth{};
  std::optional<units::FlopPerByte> ridge;
  std::optional<units::FlopPerSecond> attainable;
  std::optional<units::Seconds> time;
  std::optional<Bound> bound;
};
GemmResult analyze_gemm(const GemmInputs& g, const std::optional<HardwareConfig>& gpu);

}  // namespace roofline
