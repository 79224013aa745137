// The analyses of one accelerator (or ideal devices): capacity, the machine, decode, prefill, speculation
// (roofline/analysis.hpp has them all).
#pragma once

#include "roofline/analysis/model.hpp"
#include "roofline/decode.hpp"
#include "roofline/dtype.hpp"
#include "roofline/flops.hpp"
#include "roofline/layer_ops.hpp"
#include "roofline/scenario.hpp"
#include "roofline/topology.hpp"
#include "roofline/units.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace roofline {

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

/// A prefill on a context-parallel group (--cp c): each of the c ranks holds the whole weights and
/// s/c tokens of every prompt (2c chunks, two a rank, so that the causal attention's work is even),
/// and ring attention passes each attention layer's K, V blocks around the group  [LI23 §3]
struct ContextParallelPrefill {
  std::int64_t ranks = 1;
  double local_tokens = 0.0;  ///< s/c of each prompt
  Machine rank;               ///< one device: P and BW
  units::Flop flops{};        ///< F/c a rank
  units::Bytes bytes{};       ///< N b_w + M_KV/c a rank
  units::Bytes kv{};          ///< M_KV/c: the cache a rank keeps
  units::Bytes required{};    ///< the weights, the cache share and the reserve a device
  units::Bytes capacity{};    ///< a device's
  bool fits = false;
  units::Seconds t_compute{};
  units::Seconds t_memory{};
  double attention_layers = 0.0;
  units::Bytes block{};  ///< one K, V block: s/c tokens of one layer
  double blocks = 0.0;   ///< blocks a rank receives, over all attention layers
  GroupLinks links;
  units::Seconds ring{};  ///< n_blk sends of one block
  units::Seconds ring_latency{};
  units::Seconds attention{};  ///< the attention core a rank computes, which the sends overlap
  units::Seconds exposed{};    ///< max(0, ring - attention)
  units::Seconds t_floor{};
  units::Seconds one_device{};  ///< the same prefill on one device
};

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
  /// --cp c on a device with a peak: the group's prefill, each rank's share and the ring.
  std::optional<ContextParallelPrefill> cp;
};
PrefillResult analyze_prefill(const Scenario& s);
/// The prefill of s's prompts on its context-parallel group of s.deployment.context devices;
/// nullopt for c = 1 or without a peak (the overlap needs the attention's time).
std::optional<ContextParallelPrefill> context_parallel_prefill(const Scenario& s, const PrefillPass& pooled);

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

}  // namespace roofline
