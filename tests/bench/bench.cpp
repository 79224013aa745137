// roofline_bench: throughput of the engine and of whole in-process commands.
// Run: ./build/release-bench/tests/bench/roofline_bench  (see docs/performance.md)
#include "cli/app.hpp"
#include "cli/command.hpp"
#include "format/views.hpp"
#include "io/preset_registry.hpp"
#include "io/scenario_spec.hpp"

#include "roofline/analysis.hpp"
#include "roofline/analysis/train.hpp"
#include "roofline/decode.hpp"
#include "roofline/memory.hpp"
#include "roofline/params.hpp"

#include <chrono>
#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace roofline;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Keeps the optimiser from dropping work whose result is otherwise unused.
volatile double g_sink = 0.0;

}  // namespace

int main() {
  const io::PresetRegistry reg({});
  std::istringstream no_stdin;
  const io::ModelPreset p = reg.load_model("llama3-8b", no_stdin);
  const HardwareConfig h = reg.load_gpu("h100-sxm");
  const ParamCounts c = count_params(p.config);
  const Machine hw{*h.peak_for(DType::bf16), h.memory_bandwidth};

  // 1. A decode sweep: batch x context points, each a full decode_step (weights, KV, FLOPs, bound).
  {
    Workload w;
    std::int64_t points = 0;
    const auto t0 = Clock::now();
    for (std::int64_t b = 1; b <= 1000; ++b) {
      for (std::int64_t t = 0; t < 1000; ++t) {
        w.batch = b;
        w.context = t * 128;
        g_sink = g_sink + decode_step(p.config, c, w, hw).tokens_per_s;
        ++points;
      }
    }
    const double s = seconds_since(t0);
    std::printf("decode sweep: %lld points in %.3f s = %.2f M points/s\n", static_cast<long long>(points), s,
                static_cast<double>(points) / s / 1e6);
  }

  // 2. Exact parameter counts of a model (the params command's engine work).
  {
    const int n = 200000;
    const auto t0 = Clock::now();
    for (int i = 0; i < n; ++i) g_sink = g_sink + static_cast<double>(count_params(p.config).total);
    const double s = seconds_since(t0);
    std::printf("count_params: %.2f M models/s\n", n / s / 1e6);
  }

  // 3. The typed core per point: a resolved scenario, analyze_decode (step, whiteboard ceilings,
  //    compute-bound batches, capacity), as a sweep or a JSONL stream will call it.
  {
    io::ScenarioSpec spec;
    spec.model = "llama3-8b";
    spec.gpu = "h100-sxm";
    io::Resolved r = io::resolve(spec, reg, no_stdin, true);
    const int n = 200000;
    const auto t0 = Clock::now();
    for (int i = 0; i < n; ++i) {
      r.scenario.workload.batch = 1 + i % 256;
      g_sink = g_sink + analyze_decode(r.scenario).step.tokens_per_s;
    }
    const double s = seconds_since(t0);
    std::printf("analyze_decode: %.2f M scenarios/s\n", n / s / 1e6);
  }

  // 4. Sweeps, as cli/sweep.cpp evaluates each point: the point's value through its flag's parser,
  //    resolve_point() on the scenario resolve_fixed() made once, the analysis, the table's cells.
  {
    const auto def = [](const char* name) -> const io::InputDef& {
      for (const io::InputDef& d : io::input_defs()) {
        if (std::string(d.name) == name) return d;
      }
      throw std::logic_error(name);
    };
    const io::InputDef& batch = def("batch");
    const io::InputDef& context = def("context");
    std::vector<std::string> texts;
    for (int i = 1; i <= 1000; ++i) texts.push_back(std::to_string(i));
    const auto sweep = [&](const char* label, bool training, auto&& figures) {
      io::ScenarioSpec spec;
      spec.model = "llama3-8b";
      spec.gpu = "h100-sxm";
      batch.set(spec, "1");
      context.set(spec, "1");
      io::Resolved r = io::resolve_fixed(spec, reg, no_stdin, true);
      format::SweepFigures f;
      std::int64_t points = 0;
      const auto t0 = Clock::now();
      for (const std::string& t : texts) {
        context.set(spec, t);
        for (const std::string& b : texts) {
          batch.set(spec, b);
          io::resolve_point(spec, r, training);
          figures(r, f);
          g_sink = g_sink + static_cast<double>(f.cells.size());
          ++points;
        }
      }
      const double s = seconds_since(t0);
      std::printf("sweep %s: %lld points in %.3f s = %.2f M points/s\n", label, static_cast<long long>(points), s,
                  static_cast<double>(points) / s / 1e6);
    };
    sweep("kv (batch x context)", false, cli::command_named("kv")->cells);
    sweep("memory (batch x context)", false, cli::command_named("memory")->cells);
    sweep("decode (batch x context)", false, cli::command_named("decode")->cells);
  }

  // 5. Whole sweeps in-process, from the flags to the text written.
  const std::vector<std::pair<std::vector<std::string>, int>> sweeps = {
      {{"decode", "llama3-8b", "--gpu", "h100-sxm", "--batch", "1..1000", "--context", "0..99k+1k"}, 3},
      {{"memory", "llama3-8b", "--gpu", "h100-sxm", "--batch", "1..1000", "--context", "0..99k+1k"}, 3},
      {{"decode", "llama3-8b", "--gpu", "h100-sxm", "--batch", "1..100", "--context", "0..9k+1k", "--format", "json"},
       1},
      // Streamed: a line a point as it is computed (issue 9's million points a second).
      {{"decode", "llama3-8b", "--gpu", "h100-sxm", "--batch", "1..1000", "--context", "0..999k+1k", "--format",
        "jsonl"},
       1},
      {{"memory", "llama3-8b", "--gpu", "h100-sxm", "--batch", "1..1000", "--context", "0..999k+1k", "--format",
        "jsonl"},
       1},
      {{"decode", "llama3-8b", "--gpu", "h100-sxm", "--batch", "1..1000", "--context", "0..999k+1k", "--format", "csv"},
       1},
      {{"memory", "llama3-8b", "--gpu", "h100-sxm", "--batch", "1..1000", "--context", "0..999k+1k", "--format", "csv"},
       1},
  };
  for (const auto& [args, n] : sweeps) {
    std::size_t bytes = 0;
    int failures = 0;
    const auto t0 = Clock::now();
    for (int i = 0; i < n; ++i) {
      std::istringstream in;
      std::ostringstream out;
      std::ostringstream err;
      failures += roofline::cli::run_cli(args, in, out, err, {}) != 0 ? 1 : 0;
      bytes = out.str().size();
    }
    const double s = seconds_since(t0) / n;
    std::string line;
    for (const std::string& a : args) line += " " + a;
    std::printf("run_cli%s: %.3f s, %.1f MB written%s\n", line.c_str(), s, static_cast<double>(bytes) / 1e6,
                failures > 0 ? " FAILED" : "");
  }

  // 6. batch: 100,000 JSON lines of decode and memory plans (a model and an accelerator, each line
  //    its own batch and context), answered a line each (issue 9's 100,000 plans a second).
  for (const char* command : {"decode", "memory"}) {
    std::string lines;
    const char* gpus[] = {"h100-sxm", "mi300x"};
    for (int i = 0; i < 100000; ++i) {
      lines += std::string("{\"command\":\"") + command + "\",\"model\":\"llama3-8b\",\"gpu\":\"" + gpus[i % 2] +
               "\",\"batch\":" + std::to_string(1 + i % 512) + ",\"context\":" + std::to_string(1024 + 7 * i) + "}\n";
    }
    std::istringstream in(lines);
    std::ostringstream out;
    std::ostringstream err;
    const auto t0 = Clock::now();
    const int code = roofline::cli::run_cli({"batch"}, in, out, err, {});
    const double s = seconds_since(t0);
    std::printf("batch of 100,000 %s plans: %.3f s = %.0f plans/s, %.1f MB written%s\n", command, s, 100000 / s,
                static_cast<double>(out.str().size()) / 1e6, code != 0 ? " FAILED" : "");
  }

  // 7. Whole commands in-process: parse flags, load presets, resolve, analyze, render JSON.
  const std::vector<std::vector<std::string>> commands = {
      {"params", "llama3-8b", "--format", "json"},
      {"decode", "llama3-8b", "--gpu", "h100-sxm", "--format", "json"},
      {"report", "llama3-8b", "--gpu", "h100-sxm", "--format", "json"},
  };
  for (const auto& args : commands) {
    const int n = 2000;
    int failures = 0;
    const auto t0 = Clock::now();
    for (int i = 0; i < n; ++i) {
      std::istringstream in;
      std::ostringstream out;
      std::ostringstream err;
      failures += roofline::cli::run_cli(args, in, out, err, {}) != 0 ? 1 : 0;
      g_sink = g_sink + static_cast<double>(out.str().size());
    }
    const double s = seconds_since(t0);
    std::printf("run_cli %s --format json: %.1f us per command (%.0f commands/s)%s\n", args.front().c_str(),
                s / n * 1e6, n / s, failures > 0 ? " FAILED" : "");
  }

  // 8. train --best-layout on 1,024 H100s (issue 24: under 50 ms of CPU): the engine's search from
  //    a resolved scenario, every t x c x p x d x e, micro-batch and recipe.
  for (const char* model : {"llama3-70b", "llama3.1-405b", "deepseek-v3"}) {
    io::ScenarioSpec spec;
    spec.model = model;
    spec.gpu = "h100-sxm";
    spec.devices = 1024;
    spec.seq = 8192;
    spec.global_batch = 1024;
    spec.best_layout = true;
    const io::Resolved r = io::resolve(spec, reg, no_stdin, true, true);
    const int n = 10;
    LayoutSearch found;
    const auto t0 = Clock::now();
    for (int i = 0; i < n; ++i) found = search_train_layouts(r.scenario);
    const double s = seconds_since(t0) / n;
    g_sink = g_sink + static_cast<double>(found.ranked.size());
    std::printf("search_train_layouts %s on 1,024 H100s: %.1f ms (%lld layouts, %lld memory probes, %lld timed)\n",
                model, s * 1e3, static_cast<long long>(found.layouts), static_cast<long long>(found.probes),
                static_cast<long long>(found.timed));
  }

  // 9. serve --rate (issue 25: 100,000 requests of 1k prompt / 256 output on one H100 under 1 CPU-s,
  //    a saturation search under 5): the simulated server on serve's step model.
  {
    io::ScenarioSpec spec;
    spec.model = "llama3-8b";
    spec.gpu = "h100-sxm";
    spec.prompt = 1024;
    spec.output = 256;
    spec.rate = 40.0;
    spec.requests = 100000;
    io::Resolved r = io::resolve(spec, reg, no_stdin, true);
    auto t0 = Clock::now();
    LoadResult run = analyze_load(r.scenario);
    double s = seconds_since(t0);
    std::printf(
        "serve --rate 40, 100,000 requests (and the capacity run beside it): %.3f s, %lld steps, p99 TTFT "
        "%.4g s\n",
        s, static_cast<long long>(run.run.steps), run.run.ttft.p99);
    r.scenario.serving.load->spec.requests = 1000;
    r.scenario.serving.load->spec.ttft_target_s = 0.5;
    r.scenario.serving.load->spec.tpot_target_s = 0.05;
    r.scenario.serving.load->search_saturation = true;
    t0 = Clock::now();
    run = analyze_load(r.scenario);
    s = seconds_since(t0);
    std::printf(
        "serve --rate 40 --ttft 500ms --tpot 50ms, 1,000 requests, the saturation search: %.3f s (%.4g req/s)\n", s,
        run.saturation_rate.value_or(0.0));
  }
  return 0;
}
