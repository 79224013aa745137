// Decode and prefill on the roofline: bytes, FLOPs, floors, token-rate ceilings.
#pragma once

#include "roofline/model_config.hpp"
#include "roofline/params.hpp"
#include "roofline/roofline.hpp"
#include "roofline/training_memory.hpp"
#include "roofline/units.hpp"
#include "roofline/workload.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

namespace roofline {

/// Effective machine rates (peak times efficiency) used by the time formulas.
struct Machine {
  units::FlopPerSecond peak{};
  units::BytesPerSecond bandwidth{};
};

/// Expected distinct experts, of E, that n tokens routed top-k touch: E (1 - (1 - k/E)^n)
/// (uniform routing)  [SH17]
double expected_experts_touched(double experts, double top_k, double tokens);

/// Parameters a forward pass over n tokens reads from memory:
/// touched: N - V e + min(n, V) e for an untied table (a tied one is read whole by the head),
/// learned positions min(n, n_pos) rows, MoE experts as expected_experts_touched;
/// all_weights: N  [S003-2.5] [S004]
double params_read(const ModelConfig& m, const ParamCounts& c, double tokens, DecodeBytes mode,
                   MoeDecodeBytes moe_mode);

/// Bytes of the weights such a pass reads, each class at its format of `w.weights`: params_read's
/// sum with each term at its class's b_c / 8 (N b_w / 8 when the layout is uniform)  [S000-1.3] [S004]
units::Bytes weights_read_bytes(const ModelConfig& m, const ParamCounts& c, double tokens, const Workload& w);

/// Bytes of the stored weights, each class at its format: N b_w / 8 when uniform  [S000-1.3]
units::Bytes stored_weights(const ParamCounts& c, const Workload& w);

/// Bytes each stage's device holds (params_per_device, each class at its format)  [NA21]
DeviceParams weights_per_device(const ParamCounts& c, ParallelDegrees d, const Workload& w);

/// Weights one device of a serving layout reads in a decode step of n tokens whose routed experts
/// see n_e tokens: Psi_dev with the routed experts in the share E_touched(n_e) / E, less the rows of
/// an untied table (V / t on the device) that the gather of n / t rows skips  [S004] [SH17] [NA21]
/// With `bytes`, the same in bytes, each class at its format.
DeviceParams params_read_per_device(const ModelConfig& m, const ParamCounts& c, ParallelDegrees d, double tokens,
                                    double expert_tokens, DecodeBytes mode, MoeDecodeBytes moe_mode,
                                    const WeightLayout* bytes = nullptr);

/// Bytes of params_read_per_device, each class at its format  [S004] [NA21]
DeviceParams weights_read_per_device(const ModelConfig& m, const ParamCounts& c, ParallelDegrees d, double tokens,
                                     double expert_tokens, const Workload& w);

struct DecodeStep {
  double params_read = 0.0;     ///< weights read per step (expected, MoE)
  units::Bytes weight_bytes{};  ///< params_read b_w
  units::Bytes kv_bytes{};      ///< B M_KV(T): the cache read at the context
  units::Bytes bytes{};         ///< weight_bytes + kv_bytes
  units::Flop flops{};          ///< B (C_fwd + attention at T)
  units::Seconds t_memory{};
  units::Seconds t_compute{};
  units::Seconds t_step{};  ///< max(t_memory, t_compute)
  Bound bound = Bound::memory;
  double tokens_per_s_per_sequence = 0.0;  ///< 1 / t_step
  double tokens_per_s = 0.0;               ///< B / t_step
  double utilisation = 0.0;                ///< t_compute / t_step
  units::FlopPerByte intensity{};          ///< flops / bytes
};

/// One decode step of B sequences at context T:
/// t = max(B C_tok / P, (N_read b_w + B M_KV(T)) / BW)  [S003-2.5] [S004]
DecodeStep decode_step(const ModelConfig& m, const ParamCounts& c, const Workload& w, Machine hw);

/// A step in which each of B sequences scores q tokens at context T (speculative verification,
/// q = γ + 1): the weights read once for B q tokens, the cache read once per sequence, F = B q
/// (C_fwd + attention at T); q = 1 is decode_step  [LE23 §3] [S003-2.5]
DecodeStep verification_step(const ModelConfig& m, const ParamCounts& c, const Workload& w, Machine hw,
                             double tokens_per_sequence);

/// Expected tokens one target step yields with γ drafted tokens accepted independently with
/// probability α: (1 - α^(γ+1)) / (1 - α), γ + 1 at α = 1  [LE23 §3.1, eq. 1]
inline double speculative_tokens_per_step(double alpha, double gamma) {
  if (alpha >= 1.0) return gamma + 1.0;
  // α^(γ+1) in one pow: γ may be any count up to 2^62, and a loop over it never ends (N1)
  return (1.0 - std::pow(alpha, gamma + 1.0)) / (1.0 - alpha);
}

/// Leviathan et al.'s walltime improvement with a draft costing c target steps and verification
/// as cheap as one step: (1 - α^(γ+1)) / ((1 - α)(γ c + 1))  [LE23 §3.3, Theorem 3.8]
inline double speculative_speedup_bound(double alpha, double gamma, double cost_ratio) {
  return speculative_tokens_per_step(alpha, gamma) / (gamma * cost_ratio + 1.0);
}

/// Smallest batch at which the decode step is compute-bound; nullopt if none up to 2^30 (the KV
/// read grows with B as fast as the FLOPs)  [S003-2.4]
std::optional<std::int64_t> decode_compute_bound_batch(const ModelConfig& m, const ParamCounts& c, const Workload& w,
                                                       Machine hw);

/// The decode steps of one generation, O tokens after an S-token prompt (all zero when O <= 0).
struct GenerationTime {
  units::Seconds total{};            ///< sum_{i<O} t_step(T = S + i)
  units::Seconds mean_step{};        ///< total / O: the TPOT floor
  units::Seconds first_step{};       ///< t_step(S)
  units::Seconds last_step{};        ///< t_step(S + O - 1), the last step summed
  double compute_bound_steps = 0.0;  ///< steps with F/P >= Q/BW (a count; a double, as O + S may pass 2^63)
};

/// Time to generate O tokens after an S-token prompt, each step reading the cache as long as it is
/// then: sum_{i<O} t_step(T = S + i), t_step = max(t_mem, t_comp), both affine in T between window
/// boundaries, so summed per segment and branch as arithmetic series; O(1) in O and L  [S003-2.5]
GenerationTime generation_timing(const ModelConfig& m, const ParamCounts& c, const Workload& w, Machine hw);

/// generation_timing(...).total: sum_{i<O} t_step(T = S + i)  [S003-2.5]
units::Seconds generation_time(const ModelConfig& m, const ParamCounts& c, const Workload& w, Machine hw);

struct PrefillPass {
  units::Flop flops{};
  units::Flop attention_flops{};
  units::Bytes weight_bytes{};
  units::Bytes kv_written{};
  units::Bytes bytes{};
  units::FlopPerByte intensity{};
  units::Seconds t_compute{};
  units::Seconds t_memory{};
  units::Seconds t_floor{};  ///< the TTFT floor
  Bound bound = Bound::compute;
};

/// Prefill of B prompts of S tokens: F = B F_prefill(S), Q = N_read b_w + B M_KV(S),
/// t = max(F/P, Q/BW)  [S004]
PrefillPass prefill_pass(const ModelConfig& m, const ParamCounts& c, const Workload& w, Machine hw);

/// Ring attention in a prefill: each attention layer a rank receives the K, V block of each of the
/// other c - 1 ranks once; a window of W tokens needs at most ceil(W / (s/c)) of them, so
/// n_blk = min(c - 1, ceil(W c / s)) (W = 0: no window)  [LI23 §3] (derived)
constexpr double cp_prefill_blocks(double c, double local_tokens, double window) {
  const double all = c - 1.0;
  if (window <= 0.0 || local_tokens <= 0.0) return all;
  const double q = window / local_tokens;
  const auto whole = static_cast<double>(static_cast<std::int64_t>(q));
  return std::min(all, whole < q ? whole + 1.0 : whole);
}

/// A context-parallel prefill's floor on one rank: max(F/(c P), (N b_w + M_KV/c)/BW) + max(0, t_ring -
/// t_attn), the ring's sends overlapping the attention core  [LI23 §3] (derived)
constexpr units::Seconds cp_prefill_floor(units::Seconds compute, units::Seconds memory, units::Seconds exposed) {
  return (compute > memory ? compute : memory) + exposed;
}

/// Paged KV: a cache of T tokens occupies ceil(T / k) blocks of k tokens: k ceil(T / k) (k <= 1:
/// T)  [KW23 §4.2]
constexpr double paged_tokens(double tokens, double block) {
  if (block <= 1.0) return tokens;
  const double blocks = static_cast<double>(static_cast<std::int64_t>(tokens / block));
  return block * (blocks * block < tokens ? blocks + 1.0 : blocks);
}

/// Continuous batching at steady state: N sequences in flight, each an S-token prompt (P of it a
/// cached prefix shared by all) and O output tokens.
struct SteadyState {
  double concurrency = 0.0;     ///< N
  double mean_context = 0.0;    ///< S + O/2, the mean cache a decoding sequence reads
  double prefill_tokens = 0.0;  ///< N (S - P) / O: the arrivals' prompts, chunked into each step
  units::Flop decode_flops{};   ///< N (C_fwd + attention at S + O/2)
  units::Flop prefill_flops{};  ///< (N / O) (F_prefill(S) - F_prefill(P))
  units::Flop flops{};
  units::Bytes weight_bytes{};  ///< weights read for N + N (S - P)/O tokens
  units::Bytes kv_read{};       ///< N M_KV(S + O/2)
  units::Bytes kv_written{};    ///< the prefill tokens' cache
  units::Bytes bytes{};
  units::Seconds t_memory{};
  units::Seconds t_compute{};
  units::Seconds t_step{};  ///< the TPOT every user sees
  Bound bound = Bound::memory;
  double tokens_per_s_per_user = 0.0;  ///< 1 / t_step
  double tokens_per_s = 0.0;           ///< N / t_step
  double requests_per_s = 0.0;         ///< N / (O t_step)
};

/// One step of a server at steady state: F = N (C_fwd + A(S + O/2)) + (N/O) (F_pre(S) - F_pre(P)),
/// Q = N_read b_w + N M_KV(S + O/2) + the prefill's KV writes, t = max(F/P, Q/BW); each sequence
/// finishes after O steps, so N/O requests arrive per step and their prompts share it (chunked
/// prefill)  [KW23] [S003-2.5] (derived)
SteadyState steady_state(const ModelConfig& m, const ParamCounts& c, const Workload& w, Machine hw, double concurrency,
                         double shared_prefix);

/// Mean time per output token: TPOT = (1/O) sum_{i<O} t_step(S + i); with no output, the step at
/// the longest cache  [S003-2.5]
constexpr units::Seconds mean_time_per_output_token(units::Seconds generation, std::int64_t output,
                                                    units::Seconds last_step) {
  return output > 0 ? generation / static_cast<double>(output) : last_step;
}

/// Cost of a decode token against a prefill token: t_step(T = S) / (t_prefill / (B S))  [S004]
constexpr double decode_prefill_cost_ratio(units::Seconds decode_step, units::Seconds prefill, double tokens) {
  return decode_step / (prefill / tokens);
}

}  // namespace roofline
