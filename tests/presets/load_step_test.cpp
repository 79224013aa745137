// serve --rate's step model against the closed-form floors it must reproduce, over every model
// preset: a step of B decodes at context T is decode_step's, a whole prompt in one chunk is
// prefill_pass's, and one request alone takes prefill + the decode steps of its other tokens.
#include "io/preset_registry.hpp"
#include "io/scenario_spec.hpp"

#include "roofline/analysis/serving.hpp"
#include "roofline/decode.hpp"
#include "roofline/params.hpp"
#include "roofline/scenario.hpp"
#include "roofline/server_sim.hpp"

#include <catch2/catch.hpp>

#include <sstream>

#include "../engine/h100_fixture.hpp"

using namespace roofline;
using Catch::Matchers::WithinRel;

namespace {

using roofline_test::h100;

// Decodes at one context T: the window splits it into min(T, W) and the rest.
StepWork decodes_at(const StepModel& m, std::int64_t batch, std::int64_t t) {
  const std::int64_t w = m.window();
  return {.decodes = batch,
          .context_lo = batch * std::min(t, w),
          .context_hi = batch * std::max<std::int64_t>(0, t - w),
          .tokens = batch};
}

}  // namespace

TEST_CASE("serve --rate: the simulated step is decode_step's and prefill_pass's, for every preset", "[load]") {
  const io::PresetRegistry registry({});
  for (const io::PresetEntry* entry : registry.entries(io::PresetKind::model)) {
    Scenario s;
    s.model = registry.parse_model(*entry).config;
    s.counts = count_params(s.model);
    s.accelerator = Accelerator{h100(), CapacitySource::device, {}};
    const Machine hw = effective_machine(s);
    const auto model = scenario_step_model(s, 0.0);
    for (const std::int64_t batch : {1, 7, 64}) {
      // Both sides of a window (4,096 in most windowed presets) and a long context.
      for (const std::int64_t t : {1, 100, 4095, 4096, 4097, 9000, 131072}) {
        CAPTURE(entry->name, batch, t);
        Workload w = s.workload;
        w.batch = batch;
        w.context = t;
        const DecodeStep d = decode_step(s.model, s.counts, w, hw);
        CHECK_THAT(model->step_time(decodes_at(*model, batch, t)), WithinRel(d.t_step.base(), 1e-9));
      }
    }
    for (const std::int64_t prompt : {1, 512, 8192}) {
      CAPTURE(entry->name, prompt);
      Workload w = s.workload;
      w.prompt = prompt;
      const PrefillPass p = prefill_pass(s.model, s.counts, w, hw);
      const StepWork chunk{.tokens = prompt,
                           .chunk_flops = model->chunk_flops(0, prompt, true),
                           .chunk_bytes = model->chunk_bytes(0, prompt)};
      CHECK_THAT(model->step_time(chunk), WithinRel(p.t_floor.base(), 1e-9));
      // Two chunks compute what one does: F_pre(S) split at S/2.
      if (prompt >= 2) {
        const std::int64_t half = prompt / 2;
        CHECK_THAT(model->chunk_flops(0, half, false) + model->chunk_flops(half, prompt, true),
                   WithinRel(p.flops.base(), 1e-9));
      }
    }
  }
}

TEST_CASE("serve --rate: one request alone takes its prefill and O - 1 decode steps (zero load)", "[load]") {
  const io::PresetRegistry registry({});
  std::istringstream none;
  for (const char* name : {"llama3-8b", "gemma2-9b", "mixtral-8x7b", "deepseek-v3"}) {
    Scenario s;
    s.model = registry.load_model(name, none).config;
    s.counts = count_params(s.model);
    Accelerator a{h100(), CapacitySource::device, {}};
    a.hw.memory_capacity = units::Bytes{1e13};  // every model's weights fit, with room for its cache
    s.accelerator = a;
    s.workload.prompt = 1000;
    s.workload.output = 50;
    const Machine hw = effective_machine(s);
    const auto model = scenario_step_model(s, 0.0);
    LoadSpec spec;
    spec.requests = 1;
    spec.left_out_share = 0.0;
    spec.prompt.mean = 1000;
    spec.output.mean = 50;
    const LoadRun run = simulate_server(*model, spec);
    CAPTURE(name);
    REQUIRE(run.measured == 1);
    const double ttft = prefill_pass(s.model, s.counts, s.workload, hw).t_floor.base();
    Workload rest = s.workload;
    rest.output = 49;  // the prefill emits the first token; 49 steps at T = S ... S + 48 the rest
    const double decode = generation_time(s.model, s.counts, rest, hw).base();
    CHECK_THAT(run.ttft.mean, WithinRel(ttft, 1e-9));
    CHECK_THAT(run.e2e.mean, WithinRel(ttft + decode, 1e-9));
    CHECK_THAT(run.tpot.mean, WithinRel(decode / 49.0, 1e-9));
  }
}

TEST_CASE("serve --rate on a layout: B decodes at T take the layout's decode step", "[load]") {
  const io::PresetRegistry registry({});
  struct Layout {
    const char* model;
    std::int64_t tp, pp;
  };
  for (const Layout& l : {Layout{"llama3-70b", 4, 1}, Layout{"llama3-70b", 2, 2}, Layout{"mixtral-8x7b", 2, 1},
                          Layout{"qwen3-32b", 8, 1}}) {
    for (const std::int64_t batch : {1, 16, 200}) {
      for (const std::int64_t t : {100, 4096, 20000}) {
        io::ScenarioSpec spec;
        spec.model = l.model;
        spec.gpu = "h100-sxm";
        spec.tp = l.tp;
        spec.pp = l.pp;
        spec.batch = batch;
        spec.context = t;
        std::istringstream none;
        const io::Resolved r = io::resolve(spec, registry, none, true);
        CAPTURE(l.model, l.tp, l.pp, batch, t);
        const DeploymentResult d = analyze_deployment(r.scenario, false);
        const auto model = scenario_step_model(r.scenario, 0.0);
        CHECK_THAT(model->step_time(decodes_at(*model, batch, t)), WithinRel(d.t_step.base(), 1e-9));
      }
    }
  }
}
