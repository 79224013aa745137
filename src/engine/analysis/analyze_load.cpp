// serve --rate: the server simulated on the command's step model (the ideal device of `serve`),
// and the highest rate whose p99 latencies meet the targets.
#include "roofline/analysis/serving.hpp"
#include "roofline/decode.hpp"
#include "roofline/flops.hpp"
#include "roofline/memory.hpp"
#include "roofline/parallel.hpp"
#include "roofline/roofline.hpp"
#include "roofline/scenario.hpp"
#include "roofline/server_sim.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

namespace roofline {

namespace {

// A decode token's cost at context T as two slopes about the window W: c0 + c_lo min(T, W) +
// c_hi max(0, T - W), read off the engine's own function at 0, W and 2W (no window: at 0 and 2^20).
struct Slopes {
  double at0 = 0.0, lo = 0.0, hi = 0.0;
};

template <typename F>
Slopes slopes_of(F f, std::int64_t window, bool has_window) {
  Slopes s;
  s.at0 = f(0.0);
  const double w = has_window ? static_cast<double>(window) : 1048576.0;
  s.lo = (f(w) - s.at0) / w;
  s.hi = has_window ? (f(2.0 * w) - f(w)) / w : s.lo;
  return s;
}

double at(const Slopes& s, double n, double lo, double hi) { return s.at0 * n + s.lo * lo + s.hi * hi; }

// W: the attention's window (DSA's top-k), else the cache's sliding window; 0 for none.
std::int64_t window_of(const ModelConfig& m) {
  const LayerWindows attn = attention_windows(m);
  return attn.window > 0 ? attn.window : layer_windows(m).window;
}

class ScenarioStepModel final : public StepModel {
 public:
  ScenarioStepModel(const Scenario& s, double overhead)
      : s_(s),
        overhead_(overhead),
        machine_(effective_machine(s)),
        kv_(s.workload.cache_bytes()),
        window_(window_of(s.model)),
        has_window_(window_ > 0),
        token_flops_(forward_flops_per_token(s.counts, s.workload.basis).base()) {
    const ModelConfig& m = s.model;
    attention_ = slopes_of([&](double t) { return attention_flops_decode_token(m, t).base(); }, window_, has_window_);
    kv_read_ = slopes_of([&](double t) { return kv_read_bytes_per_sequence(m, t, kv_).base(); }, window_, has_window_);
    if (s.workload.lm_head == LmHeadPositions::last) head_ = 2.0 * static_cast<double>(s.counts.head_matmul);
    per_token_ = kv_bytes_per_token(m, kv_).base();
    state_ = kv_bytes_per_sequence(m, 0.0, kv_).base();
    const CapacityResult cap = analyze_capacity(s);
    pool_ = cap.free.base();
    if (s.deployment.explicit_layout) {
      // One replica on its layout: the device's own rates, and the pool its binding device's free
      // memory holds at its cache share.
      layout_ = true;
      const HardwareConfig& hw = s.accelerator->hw;
      machine_ = Machine{.peak = device_peak(s).value_or(units::FlopPerSecond{HUGE_VAL}) * s.workload.mfu,
                         .bandwidth = hw.memory_bandwidth * s.workload.bw_efficiency};
      devices_ = static_cast<double>(s.deployment.tensor * s.deployment.pipeline);
      stages_ = static_cast<double>(s.deployment.pipeline);
      Scenario one = s;
      one.workload.batch = 1;
      one.workload.context = 4096;
      const DeploymentResult d = analyze_deployment(one, false);
      cache_share_ = d.kv_per_sequence.base() > 0.0 ? d.kv_per_sequence_per_device / d.kv_per_sequence : 0.0;
      const double free = (d.capacity_per_device - d.weights_per_device - d.reserve_per_device).base();
      pool_ = cache_share_ > 0.0 ? std::max(0.0, free) / cache_share_ : 0.0;
    }
  }

  [[nodiscard]] std::int64_t window() const override {
    return has_window_ ? window_ : std::numeric_limits<std::int64_t>::max() / 4;
  }
  [[nodiscard]] double chunk_flops(std::int64_t a, std::int64_t b, bool last) const override {
    return body(b) - body(a) + (last ? head_ : 0.0);
  }
  [[nodiscard]] double chunk_bytes(std::int64_t a, std::int64_t b) const override {
    const ModelConfig& m = s_.model;
    const double read = a > 0 ? kv_read_bytes_per_sequence(m, static_cast<double>(a), kv_).base() : 0.0;
    const double before = a > 0 ? kv_bytes_per_sequence(m, static_cast<double>(a), kv_).base() : 0.0;
    return read + kv_bytes_per_sequence(m, static_cast<double>(b), kv_).base() - before;
  }
  [[nodiscard]] double step_time(const StepWork& w) const override {
    const auto n = static_cast<double>(w.decodes);
    const auto lo = static_cast<double>(w.context_lo);
    const auto hi = static_cast<double>(w.context_hi);
    const double flops = n * token_flops_ + at(attention_, n, lo, hi) + w.chunk_flops;
    const double cache = at(kv_read_, n, lo, hi) + w.chunk_bytes;
    if (!layout_) {
      return roofline_time(units::Flop{flops}, units::Bytes{weights(w.tokens) + cache}, machine_.peak,
                           machine_.bandwidth)
                 .base() +
             overhead_;
    }
    // Through the layout: the binding device computes F / (t p) and reads its weights and its share
    // of the cache; each stage all-reduces (and all-to-alls) the step's tokens, then hands them on.
    const LayoutTerms& l = layout_terms(w.tokens);
    const double stage = roofline_time(units::Flop{flops / devices_}, units::Bytes{l.weights + cache * cache_share_},
                                       machine_.peak, machine_.bandwidth)
                             .base();
    return pipeline_latency(stages_, units::Seconds{stage + l.collectives}, units::Seconds{l.hop}).base() + overhead_;
  }
  [[nodiscard]] double pool_bytes() const override { return pool_; }
  [[nodiscard]] double block_bytes(std::int64_t block) const override {
    return static_cast<double>(block) * per_token_;
  }
  [[nodiscard]] double state_bytes() const override { return state_; }

 private:
  // F_pre(x) without its one last-position head: the part a chunk ending before x shares.
  [[nodiscard]] double body(std::int64_t x) const {
    if (x <= 0) return 0.0;
    const Workload& w = s_.workload;
    return prefill_flops(s_.model, s_.counts, static_cast<double>(x), w.basis, w.lm_head, w.attention).base() - head_;
  }
  // Weights a step of n tokens reads, memoised: at most the token budget's distinct counts.
  [[nodiscard]] double weights(std::int64_t n) const {
    const auto i = static_cast<std::size_t>(std::max<std::int64_t>(0, n));
    if (i >= memo_.size()) memo_.resize(i + 1, -1.0);
    if (memo_[i] < 0.0) memo_[i] = weights_read_bytes(s_.model, s_.counts, static_cast<double>(i), s_.workload).base();
    return memo_[i];
  }

  struct LayoutTerms {
    double weights = -1.0;     ///< bytes the binding device reads for n tokens
    double collectives = 0.0;  ///< one stage's all-reduces and all-to-alls of n tokens
    double hop = 0.0;          ///< one stage hand-off of n tokens
  };
  // The layout's token-dependent terms at n tokens, memoised: its decode step at batch n.
  [[nodiscard]] const LayoutTerms& layout_terms(std::int64_t n) const {
    const auto i = static_cast<std::size_t>(std::max<std::int64_t>(1, n));
    if (i >= layout_memo_.size()) layout_memo_.resize(i + 1);
    LayoutTerms& t = layout_memo_[i];
    if (t.weights < 0.0) {
      Scenario at = s_;
      at.workload.batch = static_cast<std::int64_t>(i);
      at.workload.context = 0;
      const DeploymentResult d = analyze_deployment(at, false);
      t.weights = d.weights_read_per_device.base();
      t.collectives = (d.t_allreduce + d.t_alltoall).base();
      t.hop = d.t_hop.base();
    }
    return t;
  }

  const Scenario& s_;
  double overhead_ = 0.0;
  bool layout_ = false;
  double devices_ = 1.0, stages_ = 1.0, cache_share_ = 1.0;
  mutable std::vector<LayoutTerms> layout_memo_;
  Machine machine_;
  CacheBytes kv_{1.0, 1.0};
  std::int64_t window_ = 0;
  bool has_window_ = false;
  double token_flops_ = 0.0, head_ = 0.0, per_token_ = 0.0, state_ = 0.0, pool_ = 0.0;
  Slopes attention_, kv_read_;
  mutable std::vector<double> memo_;
};

}  // namespace

LoadResult analyze_load(const Scenario& s) {
  const LoadInputs& in = *s.serving.load;
  LoadResult r;
  r.spec = in.spec;
  r.step_overhead_s = in.step_overhead_s;
  const ScenarioStepModel model(s, in.step_overhead_s);
  r.pool_bytes = units::Bytes{model.pool_bytes()};
  r.block_bytes = units::Bytes{model.block_bytes(in.spec.block)};
  // The capacity in closed form: serve's steady state at the most sequences the KV budget and
  // --max-seqs allow, N / (O (t_step + t_overhead)), at the mean prompt and output.
  LoadSpec spec = in.spec;
  const ServeResult serve = analyze_serve(s);
  if (serve.max_concurrency && *serve.max_concurrency >= 1) {
    const auto n = static_cast<double>(std::min(*serve.max_concurrency, in.spec.max_seqs));
    Workload w = s.workload;
    w.prompt = static_cast<std::int64_t>(std::llround(in.spec.prompt.mean));
    w.output = static_cast<std::int64_t>(std::llround(in.spec.output.mean));
    const SteadyState at = steady_state(s.model, s.counts, w, effective_machine(s), n,
                                        static_cast<double>(std::min(in.spec.shared_prefix, w.prompt)));
    r.capacity_sequences = n;
    spec.capacity_requests_per_s = n / (std::max(1.0, in.spec.output.mean) * (at.t_step.base() + in.step_overhead_s));
  }
  r.run = simulate_server(model, spec);
  const bool open = in.spec.arrivals == ArrivalProcess::poisson || in.spec.arrivals == ArrivalProcess::gamma;
  if (!in.search_saturation || !open || r.run.unservable_tokens > 0) return r;
  // The highest rate whose p99 TTFT and TPOT meet the targets and that does not saturate: bisection
  // on the rate under one seed, so the arrivals scale with 1/λ and the p99s move with the rate.
  const auto meets = [&](double rate) {
    LoadSpec at = spec;
    at.rate = rate;
    const LoadRun run = simulate_server(model, at);
    return !run.saturated && (!in.spec.ttft_target_s || run.ttft.p99 <= *in.spec.ttft_target_s) &&
           (!in.spec.tpot_target_s || run.tpot.p99 <= *in.spec.tpot_target_s);
  };
  double lo = 0.0;
  // The closed-form capacity bounds the simulated one from above.
  double hi = r.run.capacity_requests_per_s;
  if (!(hi > 0.0)) return r;
  if (meets(hi)) {
    r.saturation_rate = hi;
    return r;
  }
  for (int i = 0; i < 14; ++i) {
    const double mid = 0.5 * (lo + hi);
    (meets(mid) ? lo : hi) = mid;
  }
  r.saturation_rate = lo;
  return r;
}

std::unique_ptr<StepModel> scenario_step_model(const Scenario& s, double step_overhead_s) {
  return std::make_unique<ScenarioStepModel>(s, step_overhead_s);
}

}  // namespace roofline
