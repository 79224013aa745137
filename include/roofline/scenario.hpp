// Scenario: one fully resolved question (model, counts, accelerator, deployment, workload), the
// input of every analyze_* function. Built by io::resolve(), which holds every default.
#pragma once

#include "roofline/activations.hpp"
#include "roofline/decode.hpp"
#include "roofline/hardware_config.hpp"
#include "roofline/lora.hpp"
#include "roofline/model_config.hpp"
#include "roofline/params.hpp"
#include "roofline/scaling.hpp"
#include "roofline/server_sim.hpp"
#include "roofline/topology.hpp"
#include "roofline/training.hpp"
#include "roofline/training_memory.hpp"
#include "roofline/workload.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace roofline {

/// The collectives' latency: NCCL's protocol costs on the topology (baseLat and hwLat, the cheaper
/// of LL and Simple), or --link-latency per step with no fixed cost.
enum class LinkLatencySource { nccl, flag };

/// How the devices are used. Today G devices act as one ideal device: capacities and rates add
/// and communication is free, so time results are lower bounds. Later issues add the tensor,
/// pipeline, data and expert parallel degrees here.
struct Deployment {
  std::int64_t devices = 1;   ///< G = t c p d (training); one ideal device for inference (D13)
  std::int64_t tensor = 1;    ///< t
  std::int64_t pipeline = 1;  ///< p
  std::int64_t context = 1;   ///< c: context-parallel ranks each sequence is split over (training)
  std::int64_t data = 1;      ///< d
  std::int64_t expert = 1;    ///< e (MoE experts split over e ranks)
  bool sequence_parallel = false;
  bool explicit_layout = false;   ///< inference with --tp/--pp/--dp/--ep: a real layout, not one ideal device
  units::Seconds link_latency{};  ///< per hop of a collective (0: bandwidth only)
  LinkLatencySource link_latency_source = LinkLatencySource::nccl;
  double link_efficiency = 1.0;    ///< achieved / peak link bandwidth in collectives
  std::int64_t micro_batches = 1;  ///< M: batches in flight through a serving pipeline
};

enum class CapacitySource { device, override_bytes };

/// The accelerator as this scenario uses it: the preset with every override applied.
struct Accelerator {
  HardwareConfig hw;
  CapacitySource capacity_source = CapacitySource::device;
  Topology system;  ///< the scale-up domains and the network the devices sit in
};

/// Fine-tuning with low-rank adapters: the base frozen (QLoRA: its linear layers in NF4).
struct FineTuning {
  std::int64_t rank = 8;                  ///< r
  LoraTargets targets = LoraTargets::qv;  ///< which matrices get adapters
  bool qlora = false;                     ///< the frozen base in NF4 with double quantisation
};

/// Training inputs: C = 6ND, time to train, MFU and HFU (flops), and the recipe of `train`.
/// train --best-layout: search the layouts and recipes of the devices; each flag the user gave
/// (true here) holds its degree or recipe fixed at the resolved value.
struct LayoutSearchRequest {
  bool tensor = false, context = false, pipeline = false, expert = false, data = false;
  bool micro_batch = false, zero = false, recompute = false;
  std::int64_t global_batch = 0;  ///< B, held whatever the layout
};

struct TrainingInputs {
  std::optional<std::int64_t> tokens;           ///< D
  std::optional<double> measured_tokens_per_s;  ///< of the whole job
  ZeroStage zero = ZeroStage::none;
  OptimizerRecipe recipe = OptimizerRecipe::mixed_adam;
  std::int64_t micro_batch = 1;  ///< b, sequences per micro-batch
  std::int64_t seq_len = 0;      ///< s
  std::int64_t grad_accum = 1;   ///< m, micro-batches per step and data-parallel rank
  Recompute recompute = Recompute::none;
  std::int64_t recompute_every = 1;           ///< k: full recomputation checkpoints one layer in k
  std::int64_t pipeline_chunks = 1;           ///< v: model chunks per device (1: 1F1B, > 1: interleaved)
  std::vector<std::int64_t> pipeline_layers;  ///< --pp-layers: layers per stage (empty: balanced_stage_layers)
  std::int64_t shard_group = 0;               ///< N_s: ZeRO shards within groups of this many data ranks (0: all d)
  ModelFlopsConvention model_flops = ModelFlopsConvention::six_n;
  std::optional<double> hfu;                   ///< a stated HFU: the step time on executed FLOPs
  std::optional<double> measured_step_time_s;  ///< a measured step time, for MFU and HFU
  std::optional<FineTuning> lora;              ///< none: full training
  bool flash_attention = true;
  bool dropout = false;
  std::optional<double> price_per_device_hour;       ///< in the user's currency
  std::optional<LayoutSearchRequest> layout_search;  ///< --best-layout
  /// --compute-budget: the budget sized under every fit; the model is the chosen fit's N, D = C / 6N
  std::optional<SizedBudget> budget;
};

/// serve --rate: the load and scheduler of a simulated server, and its per-step overhead.
struct LoadInputs {
  LoadSpec spec;
  double step_overhead_s = 0.0;
  bool search_saturation = false;  ///< with targets: the highest rate that meets them
};

/// A server at steady state (serve): continuous batching, paged KV, a shared prefix, targets.
struct ServingInputs {
  std::optional<std::int64_t> concurrency;  ///< N; none: the most that fit
  std::int64_t kv_block = 16;               ///< tokens per KV block (vLLM's default); 1: unpaged
  std::int64_t shared_prefix = 0;           ///< P: prompt tokens every request shares, cached once
  std::optional<double> tpot_target_s;
  std::optional<double> ttft_target_s;
  std::optional<LoadInputs> load;  ///< serve --rate: the server simulated under this load
};

/// Speculative decoding: a draft proposes γ tokens, the target verifies them in one step.
struct Speculation {
  ModelConfig draft;  ///< the draft model (self-drafting: the model's MTP modules as a model)
  ParamCounts draft_counts;
  bool self_draft = false;  ///< --draft mtp: the model's multi-token-prediction modules draft
  double acceptance = 0.8;  ///< α
  bool acceptance_assumed = true;
  std::int64_t draft_len = 4;  ///< γ
};

/// Where the model came from, for the published-count check.
/// What a checkpoint's files store, read from their headers (safetensors): tensors, elements and
/// bytes, by stored dtype. Elements are what the files hold (a packed int4 tensor's int32 words,
/// scale tensors), not parameters.
struct StoredDtype {
  std::string dtype;  ///< as the file names it: "BF16", "F8_E4M3", "U8", ...
  std::int64_t tensors = 0;
  std::int64_t elements = 0;
  std::int64_t bytes = 0;
};
struct StoredCheckpoint {
  std::string path;        ///< the directory or file read
  std::int64_t files = 0;  ///< safetensors files whose headers were read
  std::int64_t tensors = 0;
  std::int64_t elements = 0;
  std::int64_t bytes = 0;
  std::vector<StoredDtype> by_dtype;  ///< in the order first seen
};

struct Provenance {
  std::optional<std::int64_t> published_params;
  std::optional<StoredCheckpoint> stored;  ///< a checkpoint on disk: what its files hold
  bool modified = false;                   ///< a preset with architecture overrides: nothing published applies
};

struct Scenario {
  ModelConfig model;
  ParamCounts counts;
  /// False for a model known only by its parameter count (--params 70B): no layers, no cache,
  /// and only the results that need N alone.
  bool architecture = true;
  Provenance provenance;
  std::optional<Accelerator> accelerator;
  Deployment deployment;
  Workload workload;
  TrainingInputs training;
  std::optional<Speculation> speculation;  ///< decode and serve with --draft
  ServingInputs serving;
};

/// Dense peak of one device for the compute dtype; nullopt without an accelerator or a published peak.
std::optional<units::FlopPerSecond> device_peak(const Scenario& s);

/// C = G C_device: N ideal devices hold what one holds, N times  [deployment, D13]
units::Bytes total_capacity(const Scenario& s);

/// R = G R_device: the reserve applies on every device  [deployment, D13]
units::Bytes total_reserve(const Scenario& s);

/// Effective rates of the deployment: P = G P_peak mfu, BW = G B_peak eta_bw  [WI09] [D13]
/// An unknown peak is infinite, so the memory side stays exact; results mark the compute side unknown.
Machine effective_machine(const Scenario& s);

/// Ideal devices the weights and KV need: G* = ceil((M_w + B M_KV(T)) / (C - R)) per device;
/// nullopt when the reserve leaves nothing on a device  [S003-3.6] [D13]
std::optional<std::int64_t> devices_to_fit(units::Bytes need, units::Bytes usable_per_device);

}  // namespace roofline
