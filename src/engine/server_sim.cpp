// The server simulation: arrivals, the scheduler's steps, and the latency distributions.
#include "roofline/server_sim.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <optional>
#include <queue>
#include <utility>
#include <vector>

namespace roofline {

namespace {

// xoshiro256** seeded by splitmix64: the same stream on every platform, unlike <random>'s
// distributions  [BV18]
class Random {
 public:
  explicit Random(std::uint64_t seed) {
    for (std::uint64_t& w : s_) {
      seed += 0x9e3779b97f4a7c15ULL;
      std::uint64_t z = seed;
      z = (z ^ (z >> 30U)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27U)) * 0x94d049bb133111ebULL;
      w = z ^ (z >> 31U);
    }
  }
  std::uint64_t next() {
    const std::uint64_t out = rotl(s_[1] * 5U, 7) * 9U;
    const std::uint64_t t = s_[1] << 17U;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return out;
  }
  /// Uniform on (0, 1): never 0, so log() is finite.
  double open01() { return (static_cast<double>(next() >> 11U) + 0.5) * 0x1.0p-53; }
  double exponential(double mean) { return -std::log(open01()) * mean; }
  double normal() {  // Box–Muller
    const double r = std::sqrt(-2.0 * std::log(open01()));
    return r * std::cos(2.0 * 3.14159265358979323846 * open01());
  }
  /// Gamma of shape k and scale 1: Marsaglia and Tsang's method, boosted below k = 1 by
  /// G(k) = G(k + 1) U^(1/k)  [MT00]
  double gamma(double k) {
    if (k >= 1.0) return gamma_at_least_one(k);
    return gamma_at_least_one(k + 1.0) * std::pow(open01(), 1.0 / k);
  }

 private:
  double gamma_at_least_one(double k) {
    const double d = k - 1.0 / 3.0;
    const double c = 1.0 / std::sqrt(9.0 * d);
    for (;;) {  // accepts with probability above 0.95 each try
      const double x = normal();
      const double v0 = 1.0 + c * x;
      if (v0 <= 0.0) continue;
      const double v = v0 * v0 * v0;
      const double u = open01();
      if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
    }
  }

  static std::uint64_t rotl(std::uint64_t x, int k) {
    return (x << static_cast<unsigned>(k)) | (x >> static_cast<unsigned>(64 - k));
  }
  std::array<std::uint64_t, 4> s_{};
};

std::int64_t sample_length(const LengthSpec& l, Random& rng) {
  double v = l.mean;
  switch (l.dist) {
    case LengthDist::fixed:
      break;
    case LengthDist::uniform: {
      const auto span = static_cast<double>(l.hi - l.lo + 1);
      v = static_cast<double>(l.lo) + std::floor(rng.open01() * span);
      break;
    }
    case LengthDist::lognormal: {
      const double mu = std::log(l.mean) - 0.5 * l.sigma * l.sigma;
      v = std::round(std::exp(mu + l.sigma * rng.normal()));
      break;
    }
  }
  // Capped so a tail draw stays a count: 2^40 tokens is beyond every cache.
  return static_cast<std::int64_t>(std::clamp(v, 1.0, 0x1.0p40));
}

enum class Phase : std::uint8_t { pending, waiting, prefill, decode, done };

struct Request {
  double arrival = 0.0;
  std::int64_t prompt = 1, output = 1;
  std::int64_t computed = 0;  ///< tokens in the cache (prefill phase)
  std::int64_t gen = 0;       ///< tokens emitted (prefill phase)
  double first_token = 0.0, last_token = 0.0, finish = 0.0;
  double queued_at = 0.0;  ///< when it last joined the waiting queue
  double first_scheduled = -1.0;
  // Decode phase: at step k the cache holds t0 + (k - k0) tokens and gen0 + (k - k0) are emitted.
  std::int64_t k0 = 0, t0 = 0, gen0 = 0;
  std::uint32_t epoch = 0;  ///< bumped when it leaves the decode group, so stale events are skipped
  std::int64_t user = -1;   ///< closed loop: whose request
  Phase phase = Phase::pending;
  bool measured = false;
  bool running = false;
  double held = 0.0;  ///< bytes of the pool it holds
};

struct Event {
  std::int64_t step;
  std::size_t id;
  std::uint32_t epoch;
  bool operator>(const Event& o) const { return step > o.step; }
};
using EventQueue = std::priority_queue<Event, std::vector<Event>, std::greater<>>;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return a <= 0 ? 0 : (a + b - 1) / b; }

// Weighted samples (value, count): percentiles as if each value appeared `count` times.
struct Weighted {
  std::vector<std::pair<double, double>> v;
  double total = 0.0;
  double sum = 0.0;
  void add(double x, double w) {
    if (w <= 0.0) return;
    v.emplace_back(x, w);
    total += w;
    sum += x * w;
  }
};

double weighted_rank(const std::vector<std::pair<double, double>>& sorted, double rank) {
  double seen = 0.0;
  for (const auto& [x, w] : sorted) {
    seen += w;
    if (rank < seen) return x;
  }
  return sorted.empty() ? 0.0 : sorted.back().first;
}

double weighted_percentile(const std::vector<std::pair<double, double>>& sorted, double total, double q) {
  const double h = (total - 1.0) * q;
  const double lo = std::floor(h);
  const double a = weighted_rank(sorted, lo);
  const double b = weighted_rank(sorted, std::min(total - 1.0, lo + 1.0));
  return a + (h - lo) * (b - a);
}

// The 95 % order-statistic interval of p99: the r-th and s-th smallest of n, r = floor(n p - z
// sqrt(n p (1 - p))), s = ceil(n p + z sqrt(n p (1 - p))), z = 1.96 (1-based ranks); none when s > n  [CO99]
std::optional<std::pair<double, double>> p99_ranks(double n) {
  const double mid = n * 0.99;
  const double half = 1.96 * std::sqrt(n * 0.99 * 0.01);
  const double r = std::floor(mid - half);
  const double s = std::ceil(mid + half);
  if (r < 1.0 || s > n) return std::nullopt;
  return std::pair{r - 1.0, s - 1.0};
}

LatencyDistribution distribution(std::vector<double> x) {
  LatencyDistribution d;
  d.samples = static_cast<std::int64_t>(x.size());
  if (x.empty()) return d;
  std::sort(x.begin(), x.end());
  double sum = 0.0;
  for (double v : x) sum += v;
  d.mean = sum / static_cast<double>(x.size());
  d.p50 = percentile_sorted(x, 0.50);
  d.p90 = percentile_sorted(x, 0.90);
  d.p95 = percentile_sorted(x, 0.95);
  d.p99 = percentile_sorted(x, 0.99);
  if (const auto ranks = p99_ranks(static_cast<double>(x.size()))) {
    d.p99_interval = true;
    d.p99_lo = x[static_cast<std::size_t>(ranks->first)];
    d.p99_hi = x[static_cast<std::size_t>(ranks->second)];
  }
  return d;
}

LatencyDistribution distribution(Weighted w) {
  LatencyDistribution d;
  d.samples = static_cast<std::int64_t>(std::llround(w.total));
  if (w.v.empty()) return d;
  std::sort(w.v.begin(), w.v.end());
  d.mean = w.sum / w.total;
  d.p50 = weighted_percentile(w.v, w.total, 0.50);
  d.p90 = weighted_percentile(w.v, w.total, 0.90);
  d.p95 = weighted_percentile(w.v, w.total, 0.95);
  d.p99 = weighted_percentile(w.v, w.total, 0.99);
  if (const auto ranks = p99_ranks(w.total)) {
    d.p99_interval = true;
    d.p99_lo = weighted_rank(w.v, ranks->first);
    d.p99_hi = weighted_rank(w.v, ranks->second);
  }
  return d;
}

class Server {
 public:
  Server(const StepModel& m, const LoadSpec& s)
      : m_(m),
        s_(s),
        rng_(s.seed),
        window_(std::max<std::int64_t>(1, m.window())),
        block_(std::max<std::int64_t>(1, s.block)),
        prefix_(std::max<std::int64_t>(0, s.shared_prefix)),
        block_bytes_(m.block_bytes(block_)),
        state_bytes_(m.state_bytes()),
        pool_(m.pool_bytes()),
        used_(static_cast<double>(ceil_div(prefix_, block_)) * block_bytes_) {
    residue_.assign(static_cast<std::size_t>(block_), 0);
    r_.pool_tokens = block_bytes_ > 0.0 ? static_cast<std::int64_t>((pool_ - used_) / block_bytes_) * block_ : 0;
  }

  LoadRun run() {
    make_requests();
    if (r_.unservable_tokens > 0) return r_;
    const auto n = static_cast<std::int64_t>(reqs_.size());
    const std::int64_t left = static_cast<std::int64_t>(std::floor(s_.left_out_share * static_cast<double>(n)));
    first_measured_ = left;
    end_measured_ = std::max(left + 1, n - left);
    for (std::int64_t i = first_measured_; i < end_measured_ && i < n; ++i)
      reqs_[static_cast<std::size_t>(i)].measured = true;
    loop();
    finish_run();
    return r_;
  }

 private:
  void make_requests() {
    const bool closed = s_.arrivals == ArrivalProcess::closed;
    const std::int64_t n =
        s_.arrivals == ArrivalProcess::trace ? static_cast<std::int64_t>(s_.trace.size()) : s_.requests;
    reqs_.resize(static_cast<std::size_t>(std::max<std::int64_t>(0, n)));
    double t = 0.0;
    for (std::size_t i = 0; i < reqs_.size(); ++i) {
      Request& q = reqs_[i];
      if (s_.arrivals == ArrivalProcess::trace) {
        q.arrival = s_.trace[i].arrival_s;
        q.prompt = s_.trace[i].prompt;
        q.output = s_.trace[i].output;
      } else {
        // Every prompt begins with the shared prefix, so a drawn length is at least its P tokens.
        q.prompt = std::max(sample_length(s_.prompt, rng_), prefix_);
        q.output = sample_length(s_.output, rng_);
        if (s_.arrivals == ArrivalProcess::poisson && std::isfinite(s_.rate)) t += rng_.exponential(1.0 / s_.rate);
        if (s_.arrivals == ArrivalProcess::gamma && std::isfinite(s_.rate)) {
          const double shape = 1.0 / (s_.cv * s_.cv);
          t += rng_.gamma(shape) / (shape * s_.rate);
        }
        q.arrival = t;
      }
      const std::int64_t whole = q.prompt + q.output - cached(q);
      const double need = state_bytes_ + static_cast<double>(ceil_div(whole, block_)) * block_bytes_;
      if (used_ + need > pool_) r_.unservable_tokens = std::max(r_.unservable_tokens, q.prompt + q.output);
    }
    if (s_.arrivals == ArrivalProcess::trace) {
      std::stable_sort(reqs_.begin(), reqs_.end(),
                       [](const Request& a, const Request& b) { return a.arrival < b.arrival; });
    }
    if (closed) {
      // Each user's first request after one think time; the rest follow completions.
      const std::int64_t users = std::min<std::int64_t>(s_.users, n);
      for (std::int64_t u = 0; u < users; ++u) {
        Request& q = reqs_[static_cast<std::size_t>(u)];
        q.user = u;
        q.arrival = s_.think_s > 0.0 ? rng_.exponential(s_.think_s) : 0.0;
        pending_.emplace(q.arrival, static_cast<std::size_t>(u));
      }
      next_unissued_ = static_cast<std::size_t>(users);
    } else {
      for (std::size_t i = 0; i < reqs_.size(); ++i) pending_.emplace(reqs_[i].arrival, i);
      next_unissued_ = reqs_.size();
    }
  }

  // --- the decode group, kept as sums ------------------------------------------------------------
  [[nodiscard]] std::int64_t ctx_at(const Request& q, std::int64_t k) const { return q.t0 + (k - q.k0); }
  [[nodiscard]] std::size_t residue_of(const Request& q) const {
    // It needs a block at step k when its private tokens (T - P_q, P_q the prefix it found cached)
    // fill the blocks it has: (T - P_q) % k_b == 0.
    const std::int64_t r = ((q.t0 - cached(q) - q.k0) % block_ + block_) % block_;
    return static_cast<std::size_t>(r);
  }

  void enter_decode(std::size_t id, std::int64_t k) {
    Request& q = reqs_[id];
    q.phase = Phase::decode;
    q.k0 = k;
    q.t0 = q.computed;
    q.gen0 = q.gen;
    ++q.epoch;
    ++n_dec_;
    if (q.measured) ++n_dec_measured_;
    sum_t_ += q.t0;
    sum_lo_ += std::min(q.t0, window_);
    if (q.t0 < window_) {
      ++n_below_;
      crossings_.push({k + (window_ - q.t0), id, q.epoch});
    }
    ++residue_[residue_of(q)];
    finishes_.push({k + (q.output - q.gen0) - 1, id, q.epoch});
  }

  // Leaves the decode group before step k, carrying its cache and emitted count into the request.
  void leave_decode(std::size_t id, std::int64_t k) {
    Request& q = reqs_[id];
    const std::int64_t t = ctx_at(q, k);
    sum_t_ -= t;
    sum_lo_ -= std::min(t, window_);
    if (t < window_) --n_below_;
    --residue_[residue_of(q)];
    --n_dec_;
    if (q.measured) --n_dec_measured_;
    q.computed = t;
    q.gen = q.gen0 + (k - q.k0);
    q.held = bytes_for(q, t);
    ++q.epoch;
    // Preempted after this step's blocks were taken: give back the one it took.
    if (k == alloc_step_ && residue_of(q) == alloc_residue_) used_ -= block_bytes_;
  }

  /// The prefix a request finds cached: P, less the last prompt token, whose logits it needs.
  [[nodiscard]] std::int64_t cached(const Request& q) const { return std::min(prefix_, q.prompt - 1); }

  /// What a request holding `tokens` in its cache takes from the pool: its state and the blocks of
  /// the tokens past the prefix it found cached.
  [[nodiscard]] double bytes_for(const Request& q, std::int64_t tokens) const {
    return state_bytes_ + static_cast<double>(ceil_div(tokens - cached(q), block_)) * block_bytes_;
  }

  void preempt_last(std::int64_t k) {
    while (!running_.empty()) {
      const std::size_t id = running_.back();
      running_.pop_back();
      Request& q = reqs_[id];
      if (!q.running) continue;
      if (q.phase == Phase::decode) leave_decode(id, k);
      r_.recomputed_tokens += q.computed - cached(q);
      used_ -= q.held;
      q.held = 0.0;
      q.running = false;
      q.computed = cached(q);
      q.phase = Phase::waiting;
      q.queued_at = now_;
      waiting_.push_front(id);
      --n_running_;
      ++r_.preemptions;
      preempted_ = true;
      return;
    }
  }

  void admit_arrivals() {
    while (!pending_.empty() && pending_.top().first <= now_) {
      const std::size_t id = pending_.top().second;
      pending_.pop();
      Request& q = reqs_[id];
      q.phase = Phase::waiting;
      q.queued_at = q.arrival;
      q.computed = cached(q);
      waiting_.push_back(id);
      area_waiting_ += now_ - q.arrival;  // it waited since its arrival for the step to end
      if (static_cast<std::int64_t>(id) == first_measured_) window_start_ = q.arrival;
      if (static_cast<std::int64_t>(id) == end_measured_) window_end_ = q.arrival;
    }
  }

  struct Chunk {
    std::size_t id;
    std::int64_t take;
  };

  // Decoders needing a block this step; the newest running request preempted while the pool is short.
  void allocate_decode_blocks(std::int64_t k) {
    const auto due = static_cast<std::size_t>(((-k) % block_ + block_) % block_);
    while (n_running_ > 0 && used_ + static_cast<double>(residue_[due]) * block_bytes_ > pool_) preempt_last(k);
    used_ += static_cast<double>(residue_[due]) * block_bytes_;
    alloc_step_ = k;
    alloc_residue_ = due;
  }

  // Running requests still prefilling, oldest first, each taking min(what it needs, budget left).
  void continue_prefills(std::int64_t k, std::int64_t& budget, std::vector<Chunk>& chunks) {
    for (std::size_t i = 0; i < prefilling_.size() && budget > 0; ++i) {
      const std::size_t id = prefilling_[i];
      Request& q = reqs_[id];
      if (!q.running || q.phase != Phase::prefill) continue;
      const std::int64_t take = std::min(q.prompt + q.gen - q.computed, budget);
      const double more = bytes_for(q, q.computed + take) - q.held;
      while (used_ + more > pool_ && q.running) preempt_last(k);
      if (!q.running) continue;
      used_ += more;
      q.held += more;
      chunks.push_back({id, take});
      budget -= take;
    }
  }

  // Waiting requests, first come first served, while nothing was preempted this step; the first that
  // finds no room stops the admissions (head of line).
  void admit_waiting(std::int64_t& budget, std::vector<Chunk>& chunks) {
    while (!preempted_ && budget > 0 && n_running_ < s_.max_seqs && !waiting_.empty()) {
      const std::size_t id = waiting_.front();
      Request& q = reqs_[id];
      const std::int64_t take = std::min(q.prompt + q.gen - q.computed, budget);
      const double need = bytes_for(q, q.computed + take);
      if (used_ + need > pool_) break;
      waiting_.pop_front();
      used_ += need;
      q.held = need;
      q.running = true;
      q.phase = Phase::prefill;
      if (q.first_scheduled < 0.0) q.first_scheduled = now_;
      ++n_running_;
      running_.push_back(id);
      prefilling_.push_back(id);
      chunks.push_back({id, take});
      budget -= take;
    }
  }

  [[nodiscard]] StepWork work_of(const std::vector<Chunk>& chunks) const {
    StepWork w;
    w.decodes = n_dec_;
    w.context_lo = sum_lo_;
    w.context_hi = sum_t_ - sum_lo_;
    w.tokens = n_dec_;
    for (const Chunk& c : chunks) {
      const Request& q = reqs_[c.id];
      const bool last = q.computed + c.take == q.prompt + q.gen;
      w.chunk_flops += m_.chunk_flops(q.computed, q.computed + c.take, last);
      w.chunk_bytes += m_.chunk_bytes(q.computed, q.computed + c.take);
      w.tokens += c.take;
    }
    return w;
  }

  // After step k: the decoders' sums advance, their window crossings and finishes take effect.
  void advance_decoders(std::int64_t k) {
    sum_t_ += n_dec_;
    sum_lo_ += n_below_;
    const std::int64_t next = k + 1;
    while (!crossings_.empty() && crossings_.top().step <= next) {
      const Event e = crossings_.top();
      crossings_.pop();
      if (reqs_[e.id].epoch == e.epoch && reqs_[e.id].phase == Phase::decode) --n_below_;
    }
    while (!finishes_.empty() && finishes_.top().step <= k) {
      const Event e = finishes_.top();
      finishes_.pop();
      const Request& q = reqs_[e.id];
      if (q.epoch != e.epoch || q.phase != Phase::decode) continue;
      leave_decode(e.id, next);
      complete(e.id);
    }
  }

  // After step k: each chunk's tokens are cached; a prefill that completes emits a token.
  void finish_chunks(std::int64_t k, const std::vector<Chunk>& chunks) {
    for (const Chunk& c : chunks) {
      Request& q = reqs_[c.id];
      if (!q.running) continue;
      q.computed += c.take;
      if (q.computed < q.prompt + q.gen) continue;
      if (q.gen == 0) {
        q.first_token = now_;
      } else {
        itl_.add(now_ - q.last_token, q.measured ? 1.0 : 0.0);  // across a preemption
      }
      q.last_token = now_;
      ++q.gen;
      if (q.gen >= q.output) {
        complete(c.id);
      } else {
        enter_decode(c.id, k + 1);
      }
    }
    std::erase_if(prefilling_, [&](std::size_t id) { return reqs_[id].phase != Phase::prefill || !reqs_[id].running; });
    if (running_.size() > 64 && running_.size() > 2 * static_cast<std::size_t>(n_running_)) {
      std::erase_if(running_, [&](std::size_t id) { return !reqs_[id].running; });
    }
  }

  // One scheduler step at index k; false when nothing could run and no arrival is left.
  bool step(std::int64_t k, std::vector<Chunk>& chunks) {
    preempted_ = false;
    chunks.clear();
    std::int64_t budget = s_.token_budget;
    allocate_decode_blocks(k);
    budget -= n_dec_;
    continue_prefills(k, budget, chunks);
    admit_waiting(budget, chunks);
    std::erase_if(chunks, [&](const Chunk& c) { return !reqs_[c.id].running; });
    if (n_dec_ == 0 && chunks.empty()) {
      // Nothing could run: every request fits alone, so only an arrival can change that.
      if (pending_.empty()) return false;
      idle(pending_.top().first - now_);
      return true;
    }
    const double dt = m_.step_time(work_of(chunks));
    account(dt);
    now_ += dt;
    ++r_.steps;
    itl_.add(dt, static_cast<double>(n_dec_measured_));  // each decoder's gap is the step
    advance_decoders(k);
    finish_chunks(k, chunks);
    return true;
  }

  void loop() {
    double total_tokens = 0.0;
    for (const Request& q : reqs_) total_tokens += static_cast<double>(q.prompt + q.output);
    std::int64_t k = 0;
    std::vector<Chunk> chunks;
    while (done_ < reqs_.size()) {
      admit_arrivals();
      if (n_running_ == 0 && waiting_.empty()) {
        if (pending_.empty()) break;  // cannot happen: every request is pending, waiting or running
        idle(pending_.top().first - now_);
        continue;
      }
      const std::int64_t before = r_.steps;
      if (!step(k, chunks)) break;
      if (r_.steps > before) ++k;
      if (static_cast<double>(r_.recomputed_tokens) > 20.0 * total_tokens) {
        r_.thrashing = true;
        break;
      }
    }
  }

  [[nodiscard]] bool in_window() const { return now_ >= window_start_ && now_ <= window_end_; }

  void idle(double dt) {
    if (dt > 0.0) account(dt);
    now_ += std::max(0.0, dt);
  }

  void account(double dt) {
    const auto waiting = static_cast<double>(waiting_.size());
    const auto running = static_cast<double>(n_running_);
    // Arrivals the step has not yet seen are in the system too: they wait for its end.
    area_waiting_ += waiting * dt;
    area_running_ += running * dt;
    area_kv_ += (pool_ > 0.0 ? used_ / pool_ : 0.0) * dt;
    r_.max_kv_use = std::max(r_.max_kv_use, pool_ > 0.0 ? used_ / pool_ : 0.0);
    r_.max_waiting = std::max<std::int64_t>(r_.max_waiting, static_cast<std::int64_t>(waiting_.size()));
    r_.max_running = std::max(r_.max_running, n_running_);
  }

  void complete(std::size_t id) {
    Request& q = reqs_[id];
    q.phase = Phase::done;
    q.finish = now_;
    if (q.running) {
      used_ -= q.held;
      q.held = 0.0;
      q.running = false;
      --n_running_;
    }
    ++done_;
    if (in_window()) window_done_ += 1.0;
    // Closed loop: the user thinks, then sends the next request.
    if (q.user >= 0 && next_unissued_ < reqs_.size()) {
      Request& n = reqs_[next_unissued_];
      n.user = q.user;
      n.arrival = now_ + (s_.think_s > 0.0 ? rng_.exponential(s_.think_s) : 0.0);
      pending_.emplace(n.arrival, next_unissued_);
      ++next_unissued_;
    }
  }

  // vLLM's goodput: TTFT and TPOT ((E2E - TTFT)/(O - 1), 0 for one token) within their targets  [VL25]
  [[nodiscard]] bool meets_targets(const Request& q) const {
    const double t1 = q.first_token - q.arrival;
    const double per = q.output > 1 ? (q.finish - q.first_token) / static_cast<double>(q.output - 1) : 0.0;
    return (!s_.ttft_target_s || t1 <= *s_.ttft_target_s) && (!s_.tpot_target_s || per <= *s_.tpot_target_s);
  }

  // The measured requests' latency distributions, and the share meeting the targets.
  void latencies() {
    std::vector<double> ttft;
    std::vector<double> tpot;
    std::vector<double> tpot1;
    std::vector<double> e2e;
    std::vector<double> wait;
    std::int64_t good = 0;
    for (const Request& q : reqs_) {
      if (q.phase != Phase::done || !q.measured) continue;
      const double t1 = q.first_token - q.arrival;
      const double all = q.finish - q.arrival;
      ttft.push_back(t1);
      e2e.push_back(all);
      tpot1.push_back(all / static_cast<double>(q.output));
      wait.push_back(q.first_scheduled - q.arrival);
      if (q.output > 1) tpot.push_back((all - t1) / static_cast<double>(q.output - 1));
      if (meets_targets(q)) ++good;
    }
    r_.measured = static_cast<std::int64_t>(ttft.size());
    r_.good_share = r_.measured > 0 ? static_cast<double>(good) / static_cast<double>(r_.measured) : 0.0;
    r_.ttft = distribution(std::move(ttft));
    r_.tpot = distribution(std::move(tpot));
    r_.tpot_with_first = distribution(std::move(tpot1));
    r_.e2e = distribution(std::move(e2e));
    r_.queue_wait = distribution(std::move(wait));
    r_.itl = distribution(std::move(itl_));
  }

  // Throughput as vLLM's benchmark counts it: every completed request over the run's duration,
  // from the first arrival to the last completion (ramp-up and drain included).
  void throughput() {
    double first_arrival = HUGE_VAL;
    double last_finish = 0.0;
    double out = 0.0;
    double in = 0.0;
    std::int64_t completed = 0;
    std::int64_t good = 0;
    for (const Request& q : reqs_) {
      if (q.phase != Phase::done) continue;
      first_arrival = std::min(first_arrival, q.arrival);
      last_finish = std::max(last_finish, q.finish);
      out += static_cast<double>(q.output);
      in += static_cast<double>(q.prompt);
      ++completed;
      if (meets_targets(q)) ++good;
    }
    const double duration = last_finish - first_arrival;
    if (completed == 0 || !(duration > 0.0)) return;
    r_.run_duration_s = duration;
    r_.requests_per_s = static_cast<double>(completed) / duration;
    r_.output_tokens_per_s = out / duration;
    r_.input_tokens_per_s = in / duration;
    r_.goodput = static_cast<double>(good) / duration;
  }

  // Time averages over the run, Little's operands, and the prefix cache's share of prompt tokens.
  void time_averages() {
    const std::size_t n = reqs_.size();
    double sojourn = 0.0;
    double prompt_tokens = 0.0;
    double hit = 0.0;
    for (const Request& q : reqs_) {
      prompt_tokens += static_cast<double>(q.prompt);
      hit += static_cast<double>(cached(q));
      if (q.phase == Phase::done) sojourn += q.finish - q.arrival;
    }
    if (now_ > 0.0) {
      r_.mean_waiting = area_waiting_ / now_;
      r_.mean_running = area_running_ / now_;
      r_.mean_in_system = (area_waiting_ + area_running_) / now_;
      r_.mean_kv_use = area_kv_ / now_;
      r_.arrival_rate_run = static_cast<double>(n) / now_;
    }
    r_.mean_sojourn_s = n > 0 ? sojourn / static_cast<double>(n) : 0.0;
    r_.prefix_hit_share = prompt_tokens > 0.0 ? hit / prompt_tokens : 0.0;
  }

  // Saturated: over the window's second half, past the start-up, completions fall short of
  // arrivals by more than 5 %, so the number in the system grows with the run.
  void saturation(double window, double arrived) {
    r_.backlog_share =
        arrived > 0.0 && std::isfinite(window_start_) ? std::max(0.0, 1.0 - window_done_ / arrived) : 0.0;
    double arrived2 = 0.0;
    double done2 = 0.0;
    if (std::isfinite(window_start_) && window > 0.0) {
      const double mid = 0.5 * (window_start_ + window_end_);
      for (const Request& q : reqs_) {
        if (q.arrival >= mid && q.arrival < window_end_) arrived2 += 1.0;
        if (q.phase == Phase::done && q.finish >= mid && q.finish < window_end_) done2 += 1.0;
      }
    }
    r_.second_half_arrivals = arrived2;
    r_.second_half_completions = done2;
    const bool open = s_.arrivals == ArrivalProcess::poisson || s_.arrivals == ArrivalProcess::gamma;
    r_.saturated = r_.thrashing || (open && std::isfinite(s_.rate) && arrived2 >= 20.0 && done2 < 0.95 * arrived2);
  }

  void finish_run() {
    // Every request done, the pool holds the prefix's blocks alone: what is left beside them leaked.
    r_.held_at_end_bytes = used_ - static_cast<double>(ceil_div(prefix_, block_)) * block_bytes_;
    r_.requests = static_cast<std::int64_t>(reqs_.size());
    r_.duration_s = now_;
    r_.unfinished = static_cast<std::int64_t>(reqs_.size() - done_);
    latencies();
    throughput();
    time_averages();
    if (!std::isfinite(window_end_)) window_end_ = now_;
    const double window = std::isfinite(window_start_) ? window_end_ - window_start_ : 0.0;
    const auto arrived = static_cast<double>(end_measured_ - first_measured_);
    r_.window_s = window;
    if (window > 0.0) r_.offered_rate = arrived / window;
    saturation(window, arrived);
  }

  const StepModel& m_;
  const LoadSpec& s_;
  Random rng_;
  LoadRun r_;
  std::vector<Request> reqs_;
  std::priority_queue<std::pair<double, std::size_t>, std::vector<std::pair<double, std::size_t>>, std::greater<>>
      pending_;
  std::size_t next_unissued_ = 0;
  std::deque<std::size_t> waiting_;
  std::vector<std::size_t> running_;     ///< in admission order (lazy: finished entries skipped)
  std::vector<std::size_t> prefilling_;  ///< running and still prefilling, in admission order
  std::int64_t n_running_ = 0;
  std::size_t done_ = 0;
  // The decode group's sums.
  std::int64_t n_dec_ = 0, n_dec_measured_ = 0, n_below_ = 0, sum_t_ = 0, sum_lo_ = 0;
  std::vector<std::int64_t> residue_;
  EventQueue crossings_, finishes_;
  std::int64_t window_ = 0, block_ = 1, prefix_ = 0;
  double block_bytes_ = 0.0, state_bytes_ = 0.0, pool_ = 0.0, used_ = 0.0;
  double now_ = 0.0;
  bool preempted_ = false;
  Weighted itl_;
  std::int64_t first_measured_ = 0, end_measured_ = 0;
  double window_start_ = std::numeric_limits<double>::infinity(), window_end_ = std::numeric_limits<double>::infinity();
  double window_done_ = 0.0;
  double area_waiting_ = 0.0, area_running_ = 0.0, area_kv_ = 0.0;
  std::int64_t alloc_step_ = -1;
  std::size_t alloc_residue_ = 0;
};

}  // namespace

double percentile_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0.0;
  const double h = static_cast<double>(sorted.size() - 1) * q;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(sorted.size() - 1, lo + 1);
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

LoadRun simulate_server(const StepModel& model, const LoadSpec& spec) {
  LoadRun run = Server(model, spec).run();
  run.capacity_requests_per_s = spec.capacity_requests_per_s.value_or(0.0);
  return run;
}

}  // namespace roofline
