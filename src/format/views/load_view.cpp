// serve --rate: the simulated server's latency distributions, throughput, goodput, queues and
// cache, and the rate at which it saturates.
#include "format/field.hpp"
#include "format/views.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>
#include <utility>

namespace roofline::format {
namespace {

struct L {
  const Subject& in;
  const LoadResult& r;
};

bool unsaturated(const L& x) { return !x.r.run.saturated && x.r.run.measured > 0; }
bool has_targets(const L& x) { return unsaturated(x) && (x.r.spec.ttft_target_s || x.r.spec.tpot_target_s); }
bool has_prefix(const L& x) { return x.r.spec.shared_prefix > 0; }
bool has_run(const L& x) { return x.r.run.run_duration_s > 0.0; }

template <LatencyDistribution LoadRun::*M, double LatencyDistribution::*Q>
Cell stat(const L& x) {
  return cell(units::Seconds{(x.r.run.*M).*Q});
}

std::string p99_note(const LatencyDistribution& d) {
  if (!d.p99_interval) {
    return fmt::format("{} samples: too few for a 95 % interval of p99 (about 400 needed)", grouped(d.samples));
  }
  return fmt::format("95 % interval {} to {}, {} samples", display(d.p99_lo, Unit::seconds, UnitSystem::si),
                     display(d.p99_hi, Unit::seconds, UnitSystem::si), grouped(d.samples));
}

const std::vector<Field<L>> kLoadRows = {
    {"load_requests_measured", "requests measured", "VL25", "arrivals after the warm-up and before the drain",
     [](const L& x) { return cell(x.r.run.measured); }, nullptr,
     [](const L& x) {
       const std::int64_t left = (x.r.run.requests - x.r.run.measured) / 2;
       if (left == 0) return fmt::format("of {} simulated; none left out", grouped(x.r.run.requests));
       return fmt::format("of {} simulated; the first and last {} left out", grouped(x.r.run.requests), grouped(left));
     }},
    {"load_window_s", "arrival window", "VL25", "first drain arrival - first measured arrival",
     [](const L& x) { return cell(units::Seconds{x.r.run.window_s}); }},
    {"load_saturated", "saturated", "LI61", "second half of the window: completions < 0.95 arrivals",
     [](const L& x) { return cell(x.r.run.saturated); },
     [](const L& x) {
       return fmt::format("{:.9g} < 0.95 x {:.9g}", x.r.run.second_half_completions, x.r.run.second_half_arrivals);
     },
     [](const L& x) {
       return std::string(x.r.run.saturated ? "no steady state: the queue grows with the run, so no latency is shown"
                                            : "");
     },
     [](const L& x) { return x.r.run.second_half_arrivals >= 20.0; }},
    {"load_offered_rate_per_s", "arrivals/s", "VL25", "arrivals in the window / window",
     [](const L& x) { return number(x.r.run.offered_rate); }, nullptr, nullptr,
     [](const L& x) { return x.r.run.offered_rate > 0.0; }},
    {"load_requests_per_s", "completions/s", "VL25", "completed / (last completion - first arrival)",
     [](const L& x) { return number(x.r.run.requests_per_s); }, nullptr, nullptr, has_run},
    {"load_output_tokens_per_s", "output tokens/s", "VL25", "output tokens / (last completion - first arrival)",
     [](const L& x) { return cell(units::PerSecond{x.r.run.output_tokens_per_s}); }, nullptr, nullptr, has_run},
    {"load_input_tokens_per_s", "prompt tokens/s", "VL25", "prompt tokens / (last completion - first arrival)",
     [](const L& x) { return cell(units::PerSecond{x.r.run.input_tokens_per_s}); }, nullptr, nullptr, has_run},
    {"load_goodput_per_s", "goodput, requests/s", "VL25",
     "completed meeting --ttft and --tpot / (last completion - first arrival)",
     [](const L& x) { return number(x.r.run.goodput); }, nullptr, nullptr, has_targets},
    {"load_good_fraction", "  of the requests", "VL25", "good / measured",
     [](const L& x) { return cell(units::Fraction{x.r.run.good_share}); }, nullptr, nullptr, has_targets},
    {"load_ttft_mean_s", "TTFT mean", "KW23", "time of the first token - arrival",
     stat<&LoadRun::ttft, &LatencyDistribution::mean>, nullptr, nullptr, unsaturated},
    {"load_ttft_p50_s", "  TTFT p50", "HY96", "linear between order statistics",
     stat<&LoadRun::ttft, &LatencyDistribution::p50>, nullptr, nullptr, unsaturated},
    {"load_ttft_p90_s", "  TTFT p90", "HY96", "linear between order statistics",
     stat<&LoadRun::ttft, &LatencyDistribution::p90>, nullptr, nullptr, unsaturated},
    {"load_ttft_p95_s", "  TTFT p95", "HY96", "linear between order statistics",
     stat<&LoadRun::ttft, &LatencyDistribution::p95>, nullptr, nullptr, unsaturated},
    {"load_ttft_p99_s", "  TTFT p99", "HY96", "linear between order statistics",
     stat<&LoadRun::ttft, &LatencyDistribution::p99>, nullptr, [](const L& x) { return p99_note(x.r.run.ttft); },
     unsaturated},
    {"load_tpot_mean_s", "TPOT mean", "VL25", "(E2E - TTFT) / (O - 1), requests with O > 1",
     stat<&LoadRun::tpot, &LatencyDistribution::mean>, nullptr, nullptr, unsaturated},
    {"load_tpot_p50_s", "  TPOT p50", "HY96", "linear between order statistics",
     stat<&LoadRun::tpot, &LatencyDistribution::p50>, nullptr, nullptr, unsaturated},
    {"load_tpot_p90_s", "  TPOT p90", "HY96", "linear between order statistics",
     stat<&LoadRun::tpot, &LatencyDistribution::p90>, nullptr, nullptr, unsaturated},
    {"load_tpot_p95_s", "  TPOT p95", "HY96", "linear between order statistics",
     stat<&LoadRun::tpot, &LatencyDistribution::p95>, nullptr, nullptr, unsaturated},
    {"load_tpot_p99_s", "  TPOT p99", "HY96", "linear between order statistics",
     stat<&LoadRun::tpot, &LatencyDistribution::p99>, nullptr, [](const L& x) { return p99_note(x.r.run.tpot); },
     unsaturated},
    {"load_itl_mean_s", "inter-token latency mean", "VL25", "the gap before each token after the first",
     stat<&LoadRun::itl, &LatencyDistribution::mean>, nullptr, nullptr, unsaturated},
    {"load_itl_p50_s", "  ITL p50", "HY96", "linear between order statistics",
     stat<&LoadRun::itl, &LatencyDistribution::p50>, nullptr, nullptr, unsaturated},
    {"load_itl_p90_s", "  ITL p90", "HY96", "linear between order statistics",
     stat<&LoadRun::itl, &LatencyDistribution::p90>, nullptr, nullptr, unsaturated},
    {"load_itl_p95_s", "  ITL p95", "HY96", "linear between order statistics",
     stat<&LoadRun::itl, &LatencyDistribution::p95>, nullptr, nullptr, unsaturated},
    {"load_itl_p99_s", "  ITL p99", "HY96", "linear between order statistics",
     stat<&LoadRun::itl, &LatencyDistribution::p99>, nullptr, [](const L& x) { return p99_note(x.r.run.itl); },
     unsaturated},
    {"load_e2e_mean_s", "end to end mean", "VL25", "time of the last token - arrival",
     stat<&LoadRun::e2e, &LatencyDistribution::mean>, nullptr, nullptr, unsaturated},
    {"load_e2e_p50_s", "  E2E p50", "HY96", "linear between order statistics",
     stat<&LoadRun::e2e, &LatencyDistribution::p50>, nullptr, nullptr, unsaturated},
    {"load_e2e_p90_s", "  E2E p90", "HY96", "linear between order statistics",
     stat<&LoadRun::e2e, &LatencyDistribution::p90>, nullptr, nullptr, unsaturated},
    {"load_e2e_p95_s", "  E2E p95", "HY96", "linear between order statistics",
     stat<&LoadRun::e2e, &LatencyDistribution::p95>, nullptr, nullptr, unsaturated},
    {"load_e2e_p99_s", "  E2E p99", "HY96", "linear between order statistics",
     stat<&LoadRun::e2e, &LatencyDistribution::p99>, nullptr, [](const L& x) { return p99_note(x.r.run.e2e); },
     unsaturated},
    {"load_tpot_with_first_mean_s", "E2E / O mean", "VL25", "end to end / output tokens, the first token in",
     stat<&LoadRun::tpot_with_first, &LatencyDistribution::mean>, nullptr,
     [](const L&) { return std::string("TPOT's other convention"); }, unsaturated},
    {"load_queue_wait_mean_s", "queue wait mean", "KW23", "first scheduled - arrival",
     stat<&LoadRun::queue_wait, &LatencyDistribution::mean>, nullptr, nullptr, unsaturated},
    {"load_queue_wait_p99_s", "  queue wait p99", "HY96", "linear between order statistics",
     stat<&LoadRun::queue_wait, &LatencyDistribution::p99>, nullptr, nullptr, unsaturated},
    {"load_mean_waiting", "waiting, time mean", "LI61", "integral of the waiting count dt / T",
     [](const L& x) { return number(x.r.run.mean_waiting); }, nullptr,
     [](const L& x) { return fmt::format("at most {} at a step's start", grouped(x.r.run.max_waiting)); }},
    {"load_mean_running", "running, time mean", "LI61", "integral of the running count dt / T",
     [](const L& x) { return number(x.r.run.mean_running); }, nullptr,
     [](const L& x) { return fmt::format("at most {}", grouped(x.r.run.max_running)); }},
    {"load_littles_law_ratio", "Little's law L / (λ W)", "LI61", "L / (λ W) = 1 in a stable run",
     [](const L& x) {
       const double lw = x.r.run.arrival_rate_run * x.r.run.mean_sojourn_s;
       return number(lw > 0.0 ? x.r.run.mean_in_system / lw : 0.0);
     },
     [](const L& x) {
       return fmt::format("{:.6g} / ({:.6g} x {:.6g})", x.r.run.mean_in_system, x.r.run.arrival_rate_run,
                          x.r.run.mean_sojourn_s);
     },
     [](const L&) { return std::string("over the whole run; arrivals join at the next step"); }},
    {"load_kv_use_mean_fraction", "cache in use, time mean", "KW23", "integral of the blocks held dt / (T pool)",
     [](const L& x) { return cell(units::Fraction{x.r.run.mean_kv_use}); }, nullptr,
     [](const L& x) { return fmt::format("at most {:.1f} %", 100.0 * x.r.run.max_kv_use); }},
    {"load_cache_pool_bytes", "cache pool", "S003-3.4", "C - M_w - R", [](const L& x) { return cell(x.r.pool_bytes); },
     nullptr,
     [](const L& x) {
       return fmt::format("{} tokens in blocks of {}", grouped(x.r.run.pool_tokens), grouped(x.r.spec.block));
     }},
    {"load_preemptions", "preemptions", "VL25", "recompute: the newest running request freed",
     [](const L& x) { return cell(x.r.run.preemptions); }, nullptr,
     [](const L& x) { return fmt::format("{} tokens computed again", grouped(x.r.run.recomputed_tokens)); }},
    {"load_prefix_hit_fraction", "prompt tokens from the prefix cache", "KW23", "min(P, S - 1) / S",
     [](const L& x) { return cell(units::Fraction{x.r.run.prefix_hit_share}); }, nullptr, nullptr, has_prefix},
    {"load_steps", "steps simulated", "KW23", "one a scheduler iteration",
     [](const L& x) { return cell(x.r.run.steps); }},
    {"load_capacity_requests_per_s", "steady-state capacity, requests/s", "KW23", "N / (O (t_step + t_overhead))",
     [](const L& x) { return number(x.r.run.capacity_requests_per_s); }, nullptr,
     [](const L& x) {
       return fmt::format(
           "at N = {:.0f} sequences, one step of mean work: an upper bound (steps that alternate "
           "between memory- and compute-bound lose the overlap)",
           x.r.capacity_sequences);
     },
     [](const L& x) { return x.r.run.capacity_requests_per_s > 0.0; }},
    {"load_saturation_rate_per_s", "highest rate meeting the p99 targets", "VL25", "bisection on the rate, one seed",
     [](const L& x) { return number(x.r.saturation_rate.value_or(0.0)); }, nullptr,
     [](const L&) { return std::string("requests/s: p99 TTFT and TPOT within --ttft and --tpot, unsaturated"); },
     [](const L& x) { return x.r.saturation_rate.has_value(); }},
};

// The rows a rate sweep shows as columns, in the table's order.
std::vector<Field<L>> swept(std::vector<Field<L>> rows) {
  constexpr std::array<std::pair<std::string_view, const char*>, 8> kColumns = {{{"load_saturated", "saturated"},
                                                                                 {"load_requests_per_s", "req/s"},
                                                                                 {"load_output_tokens_per_s", "output"},
                                                                                 {"load_goodput_per_s", "goodput"},
                                                                                 {"load_ttft_p50_s", "TTFT p50"},
                                                                                 {"load_ttft_p99_s", "TTFT p99"},
                                                                                 {"load_tpot_p50_s", "TPOT p50"},
                                                                                 {"load_tpot_p99_s", "TPOT p99"}}};
  // serve --rate --brief: whether it saturated, the p99s, goodput.
  constexpr std::array<std::string_view, 5> kBrief = {"load_saturated", "load_ttft_p99_s", "load_tpot_p99_s",
                                                      "load_requests_per_s", "load_goodput_per_s"};
  for (Field<L>& f : rows) {
    for (const auto& [key, column] : kColumns) {
      if (key != f.key) continue;
      f.sweep |= kSweepServeLoad;
      f.column = column;
    }
    if (std::find(kBrief.begin(), kBrief.end(), std::string_view(f.key)) != kBrief.end()) f.brief |= kBriefServe;
  }
  return rows;
}

const std::vector<Field<L>> kLoad = swept(kLoadRows);

std::string arrivals_text(const LoadSpec& s) {
  const std::string rate = std::isfinite(s.rate) ? fmt::format("{:.6g}/s", s.rate) : std::string("once (--rate all)");
  switch (s.arrivals) {
    case ArrivalProcess::poisson:
      return "Poisson arrivals at " + rate;
    case ArrivalProcess::gamma:
      return fmt::format("gamma arrivals (cv {:.3g}) at {}", s.cv, rate);
    case ArrivalProcess::closed:
      return fmt::format("{} closed-loop users, think {:.3g} s", grouped(s.users), s.think_s);
    case ArrivalProcess::trace:
      return "a trace's arrivals";
  }
  return {};
}

}  // namespace

void sweep_cells(SweepCells& s, const Subject& in, const LoadResult& r) { s.add("load", kLoad, L{in, r}); }

void add_load(Report& rep, const Subject& in, const LoadResult& r, const ViewOptions& view) {
  const L x{in, r};
  rep.sections.push_back(make_section("load", "Under load (simulated)", kLoad, x, view));
  rep.notes.push_back(fmt::format("the simulated load: {}, {} requests, seed {}", arrivals_text(r.spec),
                                  grouped(r.run.requests), r.spec.seed));
  rep.notes.emplace_back(
      "throughput and goodput count every completed request over the run, from the first arrival to the last "
      "completion, as vLLM's benchmark does; the latencies count the measured requests");
  rep.notes.push_back(fmt::format(
      "simulated server: continuous batching, at most {} sequences and {} tokens a step (decodes first, then prefill "
      "chunks first come first served), KV blocks of {} tokens, preemption by recompute of the newest request; each "
      "step's time is its roofline floor{}",
      grouped(r.spec.max_seqs), grouped(r.spec.token_budget), grouped(r.spec.block),
      r.step_overhead_s > 0.0
          ? fmt::format(" plus {:.4g} s of overhead (--step-overhead), so latencies are floors only as far as that "
                        "overhead is",
                        r.step_overhead_s)
          : std::string(" with no per-step overhead (--step-overhead), so latencies are lower bounds")));
  if (!r.run.saturated && r.run.measured > 0 && r.run.window_s < 3.0 * r.run.e2e.mean) {
    rep.notes.push_back(fmt::format(
        "the arrival window ({}) is shorter than three mean end-to-end latencies ({}): the run ends before the server "
        "reaches steady state, so its figures describe a start-up; raise --requests",
        display(r.run.window_s, Unit::seconds, UnitSystem::si),
        display(3.0 * r.run.e2e.mean, Unit::seconds, UnitSystem::si)));
  } else if (!r.run.saturated && r.run.backlog_share > 0.05) {
    rep.notes.push_back(fmt::format(
        "{:.1f} % of the measured window's arrivals were still in the system at its end: the run may not have reached "
        "steady state (more --requests gives steadier figures)",
        100.0 * r.run.backlog_share));
  }
  if (in.scenario.model.sliding_window > 0) {
    rep.notes.emplace_back(
        "the simulated cache pool holds every layer's blocks for the whole context, sliding-window layers too");
  }
}

}  // namespace roofline::format
