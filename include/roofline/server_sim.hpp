// A continuous-batching server simulated step by step on a step-time model (issue 25): arrivals,
// a token budget with chunked prefill, paged KV blocks, preemption by recompute, and the latency
// distributions a benchmark of a real server reports. Pure: the step model says what a step costs.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace roofline {

enum class ArrivalProcess {
  poisson,  ///< exponential gaps at rate λ
  gamma,    ///< gamma gaps of mean 1/λ and a coefficient of variation cv (shape 1/cv²)
  closed,   ///< U users, each sending its next request a think time after its last one finished
  trace,    ///< the given arrival times and lengths
};

enum class LengthDist { fixed, uniform, lognormal };

/// A prompt or output length: fixed at `mean`, uniform on [lo, hi], or log-normal of mean `mean` and
/// log-scale σ (μ = ln mean - σ²/2), rounded to a whole token, at least 1.
struct LengthSpec {
  LengthDist dist = LengthDist::fixed;
  double mean = 1.0;
  std::int64_t lo = 1, hi = 1;
  double sigma = 0.0;
};

struct TraceRequest {
  double arrival_s = 0.0;
  std::int64_t prompt = 1;
  std::int64_t output = 1;
};

/// What a simulated server sees and how it schedules: the load, and vLLM's scheduler in the manner
/// of its V1 engine (running requests first, then waiting ones first come first served, each
/// taking min(tokens it needs, budget left); the most recently admitted request preempted by
/// recompute when the cache is full)  [KW23] [VL25]
struct LoadSpec {
  ArrivalProcess arrivals = ArrivalProcess::poisson;
  double rate = 1.0;  ///< λ, requests/s (poisson, gamma); +inf: every request at t = 0
  double cv = 1.0;    ///< gamma: the gaps' coefficient of variation
  std::int64_t users = 1;
  double think_s = 0.0;  ///< closed: mean of an exponential think time (0: none)
  std::vector<TraceRequest> trace;
  LengthSpec prompt, output;
  std::int64_t requests = 1000;  ///< simulated (trace: its length)
  std::uint64_t seed = 0;
  double left_out_share = 0.1;       ///< of the requests, left out at the start (warm-up) and the end (drain) each
  std::int64_t token_budget = 8192;  ///< tokens a step computes at most (max_num_batched_tokens)
  std::int64_t max_seqs = 1024;      ///< sequences running at once (max_num_seqs)
  std::int64_t block = 16;           ///< tokens per KV block
  std::int64_t shared_prefix = 0;    ///< P: the first P tokens of every prompt, cached once and never recomputed
  std::optional<double> ttft_target_s, tpot_target_s;  ///< goodput: requests meeting both
  /// The server's capacity in requests/s where the caller knows it in closed form (serve's steady
  /// state at the most sequences), echoed in the run; it decides nothing.
  std::optional<double> capacity_requests_per_s;
};

/// The work of one step: decoding sequences at their contexts, and prefill chunks.
struct StepWork {
  std::int64_t decodes = 0;     ///< sequences decoding one token each
  std::int64_t context_lo = 0;  ///< Σ min(T_i, W) over them (T_i the tokens cached before the step)
  std::int64_t context_hi = 0;  ///< Σ max(0, T_i - W)
  std::int64_t tokens = 0;      ///< decode tokens + prefill tokens
  double chunk_flops = 0.0;     ///< the prefill chunks' FLOPs (StepModel::chunk_flops summed)
  double chunk_bytes = 0.0;     ///< their cache reads and writes (StepModel::chunk_bytes summed)
};

/// What a step costs and what a sequence holds, for the simulator.
class StepModel {
 public:
  StepModel() = default;
  StepModel(const StepModel&) = default;
  StepModel(StepModel&&) = default;
  StepModel& operator=(const StepModel&) = default;
  StepModel& operator=(StepModel&&) = default;
  virtual ~StepModel() = default;
  /// W: the context past which a decode token's cost grows at the second slope (no window: a huge W).
  [[nodiscard]] virtual std::int64_t window() const { return std::numeric_limits<std::int64_t>::max() / 4; }
  /// FLOPs of prefilling positions [a, b) of a sequence; `last` when b ends the prefill (its head).
  [[nodiscard]] virtual double chunk_flops(std::int64_t a, std::int64_t b, bool last) const = 0;
  /// Bytes the chunk reads from and writes to the cache (the cache of [0, a) read, [a, b) written).
  [[nodiscard]] virtual double chunk_bytes(std::int64_t a, std::int64_t b) const = 0;
  /// Seconds one step takes.
  [[nodiscard]] virtual double step_time(const StepWork& w) const = 0;
  /// The KV pool: bytes for blocks and per-sequence state; one block's bytes; a sequence's state.
  [[nodiscard]] virtual double pool_bytes() const = 0;
  [[nodiscard]] virtual double block_bytes(std::int64_t block) const = 0;
  [[nodiscard]] virtual double state_bytes() const { return 0.0; }
};

/// A latency's distribution over the measured requests: percentiles interpolated linearly between
/// order statistics (numpy's default)  [HY96]; p99's order-statistic interval at 95 %, ranks
/// n p ± 1.96 sqrt(n p (1 - p)), which assumes independent requests  [CO99]
struct LatencyDistribution {
  std::int64_t samples = 0;
  double mean = 0.0, p50 = 0.0, p90 = 0.0, p95 = 0.0, p99 = 0.0;
  bool p99_interval = false;  ///< false: too few samples (s > n) for the interval
  double p99_lo = 0.0, p99_hi = 0.0;
};

struct LoadRun {
  std::int64_t requests = 0;  ///< simulated
  std::int64_t measured = 0;  ///< after the warm-up and before the drain
  double window_s = 0.0;      ///< from the first measured arrival to the first drain arrival
  LatencyDistribution ttft, tpot, tpot_with_first, itl, e2e, queue_wait;
  double offered_rate = 0.0;  ///< arrivals/s in the window
  // As vLLM's benchmark counts them: every completion over the run's duration, from the first
  // arrival to the last completion.
  double run_duration_s = 0.0;
  double requests_per_s = 0.0;
  double output_tokens_per_s = 0.0, input_tokens_per_s = 0.0;
  double goodput = 0.0;     ///< requests meeting both targets, per second of the run
  double good_share = 0.0;  ///< of the measured requests
  double mean_waiting = 0.0, mean_running = 0.0, mean_in_system = 0.0;  ///< time averages over the run
  std::int64_t max_waiting = 0, max_running = 0;
  double mean_kv_use = 0.0, max_kv_use = 0.0;  ///< of the pool
  std::int64_t preemptions = 0;
  std::int64_t recomputed_tokens = 0;
  std::int64_t steps = 0;
  double duration_s = 0.0;               ///< the whole run
  double mean_sojourn_s = 0.0;           ///< over every request: finish - arrival
  double arrival_rate_run = 0.0;         ///< requests / duration
  double prefix_hit_share = 0.0;         ///< of prompt tokens, served from the prefix cache
  double capacity_requests_per_s = 0.0;  ///< the spec's closed-form capacity, echoed (0: none)
  /// Over the arrival window's second half (past the start-up): completions below 0.95 of the
  /// arrivals (20 or more), so the number in the system grows with the run: no steady state
  bool saturated = false;
  double second_half_arrivals = 0.0, second_half_completions = 0.0;
  double backlog_share = 0.0;          ///< of the window's arrivals, not completed in it (a transient or saturation)
  bool thrashing = false;              ///< preemptions recomputed more than 20x the workload's tokens; stopped
  std::int64_t unservable_tokens = 0;  ///< a request whose whole cache exceeds the pool alone (not run)
  std::int64_t pool_tokens = 0;        ///< the pool in tokens of cache, for that message
  std::int64_t unfinished = 0;         ///< requests not completed (thrashing stops the run)
  double held_at_end_bytes = 0.0;      ///< the pool still held at the end beside the prefix (0: nothing leaked)
};

/// Simulates the server: every step's work as the scheduler forms it, its time from the model.
/// Open arrivals are saturated when the window's second half completes under 0.95 of its arrivals.
/// A step's cost is O(prefill chunks + events), independent of the decoding batch: the decode
/// contexts' sums, their block needs and window crossings are kept incrementally  (derived)
LoadRun simulate_server(const StepModel& model, const LoadSpec& spec);

/// Percentile q in [0, 1] of sorted values, linear between order statistics: x_(h) at h = (n - 1) q
double percentile_sorted(const std::vector<double>& sorted, double q);

/// M/D/1: the mean wait in queue of Poisson arrivals at λ to one server of fixed service D,
/// W_q = ρ D / (2 (1 - ρ)), ρ = λ D < 1 (Pollaczek–Khinchine)  [CO81]
constexpr double md1_mean_wait(double rate, double service) {
  const double rho = rate * service;
  return rho * service / (2.0 * (1.0 - rho));
}

}  // namespace roofline
