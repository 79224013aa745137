// The simulated server against closed forms on synthetic step models with known answers: M/D/1
// under Poisson arrivals, Little's law, a closed loop's throughput, saturation, preemption, and
// the same seed giving the same run.
#include "roofline/server_sim.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace roofline;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

// Every step takes D plus c per decode, whatever else it holds; a pool of `pool` bytes, a byte a token.
class FixedStep final : public StepModel {
 public:
  FixedStep(double step, double per_decode, double pool) : d_(step), c_(per_decode), pool_(pool) {}
  [[nodiscard]] double chunk_flops(std::int64_t, std::int64_t, bool) const override { return 0.0; }
  [[nodiscard]] double chunk_bytes(std::int64_t, std::int64_t) const override { return 0.0; }
  [[nodiscard]] double step_time(const StepWork& w) const override { return d_ + c_ * static_cast<double>(w.decodes); }
  [[nodiscard]] double pool_bytes() const override { return pool_; }
  [[nodiscard]] double block_bytes(std::int64_t block) const override { return static_cast<double>(block); }

 private:
  double d_, c_, pool_;
};

LoadSpec one_token_requests(double rate, std::int64_t n) {
  LoadSpec s;
  s.rate = rate;
  s.requests = n;
  s.prompt.mean = 100;
  s.output.mean = 1;  // the prefill's token ends it: service is one step
  s.max_seqs = 1;
  s.token_budget = 100;
  return s;
}

}  // namespace

TEST_CASE("M/D/1: one server of fixed service under Poisson arrivals waits rho D / (2 (1 - rho)) [CO81]", "[load]") {
  const double d = 0.010;
  const FixedStep model(d, 0.0, 1e12);
  for (const double rho : {0.3, 0.6, 0.8}) {
    const double rate = rho / d;
    const LoadRun run = simulate_server(model, one_token_requests(rate, 200000));
    CAPTURE(rho);
    REQUIRE_FALSE(run.saturated);
    // A request waits for the queue ahead and for the step in progress to end: the M/D/1 wait.
    const double wq = md1_mean_wait(rate, d);
    CHECK_THAT(run.ttft.mean, WithinRel(wq + d, 0.03));
    CHECK_THAT(run.mean_in_system, WithinRel(run.arrival_rate_run * run.mean_sojourn_s, 1e-9));  // Little [LI61]
    CHECK_THAT(run.requests_per_s, WithinRel(rate, 0.03));
  }
}

TEST_CASE("Little's law L = lambda W holds on every run, open and closed [LI61]", "[load]") {
  const FixedStep model(0.004, 0.0001, 2e5);
  LoadSpec open;
  open.rate = 50;
  open.requests = 3000;
  open.prompt = {.dist = LengthDist::lognormal, .mean = 800, .sigma = 0.8};
  open.output = {.dist = LengthDist::uniform, .lo = 10, .hi = 400};
  open.token_budget = 1024;
  open.max_seqs = 64;
  LoadSpec closed = open;
  closed.arrivals = ArrivalProcess::closed;
  closed.users = 32;
  closed.think_s = 0.5;
  LoadSpec bursty = open;
  bursty.arrivals = ArrivalProcess::gamma;
  bursty.cv = 3.0;
  for (const LoadSpec& s : {open, closed, bursty}) {
    const LoadRun run = simulate_server(model, s);
    CAPTURE(static_cast<int>(s.arrivals));
    REQUIRE(run.unfinished == 0);
    CHECK_THAT(run.mean_in_system, WithinRel(run.arrival_rate_run * run.mean_sojourn_s, 1e-9));
  }
}

TEST_CASE("a closed loop of N users with no think time keeps N running: throughput N / (O t_step)", "[load]") {
  // Decode-only after the first step: each step D + c N, every user's request O tokens.
  const double d = 0.002;
  const double c = 0.0001;
  const FixedStep model(d, c, 1e12);
  LoadSpec s;
  s.arrivals = ArrivalProcess::closed;
  s.users = 16;
  s.requests = 4000;
  s.prompt.mean = 10;
  s.output.mean = 100;
  s.max_seqs = 16;
  s.token_budget = 1024;
  const LoadRun run = simulate_server(model, s);
  REQUIRE(run.unfinished == 0);
  // A request: a prefill step, then 99 decode steps, beside 15 others (prefills share steps).
  const double per_request = 100.0 * (d + c * 16.0);
  CHECK_THAT(run.requests_per_s, WithinRel(16.0 / per_request, 0.03));
  CHECK_THAT(run.mean_running, WithinRel(16.0, 0.02));
}

TEST_CASE("past its capacity a server reports saturation, not a latency", "[load]") {
  const FixedStep model(0.010, 0.0, 1e12);
  const LoadRun below = simulate_server(model, one_token_requests(80.0, 5000));
  const LoadRun above = simulate_server(model, one_token_requests(120.0, 5000));  // capacity 100/s
  CHECK_FALSE(below.saturated);
  CHECK(above.saturated);
  CHECK_THAT(above.requests_per_s, WithinRel(100.0, 0.01));
  // Every request at once: completions at the server's capacity.
  const LoadRun flood = simulate_server(model, one_token_requests(HUGE_VAL, 1000));
  CHECK_THAT(flood.requests_per_s, WithinRel(100.0, 1e-9));
}

TEST_CASE("a full cache preempts the newest request, which recomputes and still finishes", "[load]") {
  // A pool of 40 blocks of 16 tokens; 8 requests of 100 + 200 tokens need 19 blocks each.
  const FixedStep model(0.001, 0.0, 40.0 * 16.0);
  LoadSpec s;
  s.rate = HUGE_VAL;
  s.requests = 8;
  s.prompt.mean = 100;
  s.output.mean = 200;
  s.token_budget = 2048;
  s.left_out_share = 0.0;
  const LoadRun run = simulate_server(model, s);
  CHECK(run.unfinished == 0);
  CHECK(run.measured == 8);
  CHECK(run.preemptions > 0);
  CHECK(run.recomputed_tokens > 0);
  CHECK(run.max_kv_use <= 1.0);
  // A request whose whole cache exceeds the pool is refused, not run.
  s.output.mean = 600;
  CHECK(simulate_server(model, s).unservable_tokens == 700);
}

TEST_CASE("the same seed gives the same run; another seed another", "[load]") {
  const FixedStep model(0.004, 0.0001, 1e6);
  LoadSpec s;
  s.rate = 60;
  s.requests = 2000;
  s.prompt = {.dist = LengthDist::lognormal, .mean = 500, .sigma = 1.0};
  s.output = {.dist = LengthDist::lognormal, .mean = 100, .sigma = 1.0};
  const LoadRun a = simulate_server(model, s);
  const LoadRun b = simulate_server(model, s);
  CHECK(a.ttft.p99 == b.ttft.p99);
  CHECK(a.e2e.mean == b.e2e.mean);
  s.seed = 7;
  CHECK(simulate_server(model, s).e2e.mean != a.e2e.mean);
}

TEST_CASE("gamma gaps of cv 1 are exponential; the lengths have their means", "[load]") {
  // With a very cheap step every request is served at once: arrivals/s in the window is the rate.
  const FixedStep model(1e-7, 0.0, 1e15);
  LoadSpec s;
  s.rate = 10;
  s.requests = 50000;
  s.arrivals = ArrivalProcess::gamma;
  s.cv = 2.0;
  s.prompt = {.dist = LengthDist::lognormal, .mean = 1000, .sigma = 0.5};
  s.output = {.dist = LengthDist::uniform, .lo = 1, .hi = 9};
  const LoadRun run = simulate_server(model, s);
  CHECK_THAT(run.offered_rate, WithinRel(10.0, 0.05));
  CHECK_THAT(run.input_tokens_per_s / run.offered_rate, WithinRel(1000.0, 0.03));
  CHECK_THAT(run.output_tokens_per_s / run.offered_rate, WithinRel(5.0, 0.03));
}

TEST_CASE("percentiles interpolate linearly between order statistics [HY96]", "[load]") {
  const std::vector<double> x = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  CHECK_THAT(percentile_sorted(x, 0.5), WithinAbs(5.5, 1e-12));
  CHECK_THAT(percentile_sorted(x, 0.99), WithinAbs(9.91, 1e-12));
  CHECK_THAT(percentile_sorted(x, 0.0), WithinAbs(1.0, 1e-12));
}

namespace {

// FixedStep with a window: decode costs read min(T, W) and the rest apart (the sums the sim keeps).
class WindowStep final : public StepModel {
 public:
  explicit WindowStep(double pool) : pool_(pool) {}
  [[nodiscard]] std::int64_t window() const override { return 300; }
  [[nodiscard]] double chunk_flops(std::int64_t a, std::int64_t b, bool) const override {
    return static_cast<double>(b - a);
  }
  [[nodiscard]] double chunk_bytes(std::int64_t, std::int64_t) const override { return 0.0; }
  [[nodiscard]] double step_time(const StepWork& w) const override {
    return 1e-3 + 1e-6 * (static_cast<double>(w.context_lo) + 0.5 * static_cast<double>(w.context_hi)) +
           1e-6 * w.chunk_flops;
  }
  [[nodiscard]] double pool_bytes() const override { return pool_; }
  [[nodiscard]] double block_bytes(std::int64_t block) const override { return static_cast<double>(block); }
  [[nodiscard]] double state_bytes() const override { return 8.0; }

 private:
  double pool_;
};

}  // namespace

TEST_CASE("the pool is whole again after every run: no block leaks through preemption, prefixes or windows", "[load]") {
  // A pool of 30,000 tokens under long, varied requests: preemptions, a shared prefix shorter and
  // longer than some prompts' own part, a window crossed mid-decode.
  for (const std::int64_t prefix : {0, 64, 500}) {
    for (const double rate : {20.0, 200.0, HUGE_VAL}) {
      const WindowStep model(30000.0);
      LoadSpec s;
      s.rate = rate;
      s.requests = 400;
      s.prompt = {.dist = LengthDist::lognormal, .mean = 600, .sigma = 0.9};
      s.output = {.dist = LengthDist::uniform, .lo = 1, .hi = 700};
      s.token_budget = 512;
      s.max_seqs = 64;
      s.block = 16;
      s.shared_prefix = prefix;
      const LoadRun run = simulate_server(model, s);
      CAPTURE(prefix, rate);
      REQUIRE(run.unservable_tokens == 0);
      CHECK(run.unfinished == 0);
      if (!std::isfinite(rate)) CHECK(run.preemptions > 0);  // all at once: the pool runs short
      CHECK(run.held_at_end_bytes == 0.0);
      CHECK(run.max_kv_use <= 1.0);
    }
  }
}
