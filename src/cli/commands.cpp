// Every command: its row in the table, and its run (its engine answer and the views that show it)
// and sweep cells. A run composes nothing itself: answer_x (roofline/answers.hpp) decides which
// analyses run and which verdict counts, and every mode reads that answer.
#include "cli/command.hpp"
#include "cli/listings.hpp"
#include "format/compare.hpp"
#include "format/views.hpp"
#include "io/quantity_parse.hpp"

#include "roofline/answers.hpp"
#include "roofline/errors.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>

#include "text/user_text.hpp"

namespace roofline::cli {

Run run_completion(Request& req, const io::Resolved*);  // app.cpp: the completion spec is CLI11's

format::Subject subject(const io::Resolved& in, const io::ScenarioSpec& spec, std::uint64_t groups,
                        const format::ViewOptions& view) {
  const auto reads = [&](std::uint64_t g) { return (groups & g) != 0U; };
  return {in.scenario,
          in.model_label,
          in.notes,
          in.warnings,
          view.echo_inputs ? std::make_shared<const nlohmann::json>(io::inputs_json(spec, in, groups)) : nullptr,
          {.gpu = reads(io::kGpu),
           .devices = reads(io::kDevices),
           .batch = reads(io::kBatch),
           .context = reads(io::kContext),
           .prompt = reads(io::kPrompt),
           .output = reads(io::kOutput),
           .weights = reads(io::kWeights),
           .kv_dtype = reads(io::kKvDtype),
           .compute_dtype = reads(io::kComputeDtype),
           .flops_basis = reads(io::kFlopsBasis),
           .attention = reads(io::kAttentionMode),
           .lm_head = reads(io::kLmHead),
           .decode_bytes = reads(io::kDecodeBytes)},
          spec.price_currency};
}

format::Subject subject(const io::Resolved& in) { return {in.scenario, in.model_label, in.notes, in.warnings}; }

namespace {

// The model's inputs: the architecture overrides and --strict (refuse a generic reading).
constexpr unsigned kModelInputs = io::kModelOverrides | io::kStrict;

constexpr unsigned kWorkloadOnGpu = io::kGpu | io::kGpuMemory | io::kDevices | io::kBatch | io::kWeights |
                                    io::kKvDtype | io::kComputeDtype | io::kReserve | io::kMfu | io::kBwEfficiency |
                                    io::kFlopsBasis | io::kDecodeBytes | io::kRequireFit | kModelInputs;

Run started(const char* command, const format::Subject& s, const Request& req) {
  return {format::start_report(command, s, req.view), std::nullopt, {}};
}

// --- the model commands ---------------------------------------------------------------------------

Run run_report(Request& req, const io::Resolved* in) {
  const ReportAnswer a = answer_report(in->scenario);
  const format::Subject s = subject(*in, req.spec, req.groups, req.view);
  Run o = started("report", s, req);
  format::add_params(o.report, s, a.params, req.view, false);
  format::add_flops(o.report, s, a.flops, req.view);
  format::add_kv(o.report, s, a.kv, req.view, false);
  format::add_elementwise(o.report, s, a.elementwise, req.view);
  if (a.hardware) format::add_hardware(o.report, s, *a.hardware, req.view);
  if (a.decode) format::add_decode(o.report, s, *a.decode, req.view);
  if (a.prefill) format::add_prefill(o.report, s, *a.prefill, req.view);
  if (a.capacity) format::add_capacity(o.report, s, *a.capacity, req.view);
  if (a.fit) format::add_fit(o.report, *a.fit, req.view);
  o.fit = a.fit;
  format::add_model_notes(o.report, s);
  o.report.notes.emplace_back(
      "ceilings and floors: perfect overlap, no launch overhead, full published bandwidth and peak "
      "unless --bw-efficiency/--mfu say otherwise");
  return o;
}

Run run_params(Request& req, const io::Resolved* in) {
  const format::Subject s = subject(*in, req.spec, req.groups, req.view);
  Run o = started("params", s, req);
  format::add_params(o.report, s, analyze_params(in->scenario), req.view, true);
  format::add_model_notes(o.report, s);
  return o;
}

Run run_flops(Request& req, const io::Resolved* in) {
  const format::Subject s = subject(*in, req.spec, req.groups, req.view);
  Run o = started("flops", s, req);
  format::add_flops(o.report, s, analyze_flops(in->scenario), req.view);
  return o;
}

Run run_kv(Request& req, const io::Resolved* in) {
  const format::Subject s = subject(*in, req.spec, req.groups, req.view);
  Run o = started("kv", s, req);
  format::add_kv(o.report, s, analyze_kv(in->scenario), req.view, true);
  return o;
}

Run run_memory(Request& req, const io::Resolved* in) {
  const MemoryAnswer a = answer_memory(in->scenario);
  const format::Subject s = subject(*in, req.spec, req.groups, req.view);
  Run o = started("memory", s, req);
  format::add_capacity(o.report, s, a.capacity, req.view);
  if (a.layout) format::add_deployment(o.report, s, *a.layout, req.view);
  format::add_fit(o.report, a.fit, req.view);
  o.fit = a.fit;
  return o;
}

Run run_decode(Request& req, const io::Resolved* in) {
  const DecodeAnswer a = answer_decode(in->scenario);
  const format::Subject s = subject(*in, req.spec, req.groups, req.view);
  Run o = started("decode", s, req);
  format::add_hardware(o.report, s, a.hardware, req.view);
  format::add_decode(o.report, s, a.decode, req.view);
  if (a.layout) format::add_deployment(o.report, s, *a.layout, req.view);
  if (a.speculative) format::add_speculative(o.report, s, *a.speculative, req.view);
  format::add_fit(o.report, a.fit, req.view);
  o.fit = a.fit;
  return o;
}

Run run_prefill(Request& req, const io::Resolved* in) {
  const PrefillAnswer a = answer_prefill(in->scenario);
  const format::Subject s = subject(*in, req.spec, req.groups, req.view);
  Run o = started("prefill", s, req);
  format::add_hardware(o.report, s, a.hardware, req.view);
  format::add_prefill(o.report, s, a.prefill, req.view);
  format::add_fit(o.report, a.fit, req.view);
  o.fit = a.fit;
  return o;
}

// A simulated server that cannot run its load is an error of the input, before any output.
const LoadResult& checked_load(const LoadResult& l) {
  if (!(l.pool_bytes.base() > 0.0)) {
    throw InputError("--rate: the weights and the reserve leave no cache on the device; a server cannot run");
  }
  if (l.run.unservable_tokens > 0) {
    throw InputError("--prompt/--output: a request of " + format::grouped(l.run.unservable_tokens) +
                     " tokens needs more cache than the pool holds (" + format::grouped(l.run.pool_tokens) +
                     " tokens); shorten it or add devices");
  }
  if (l.run.unfinished > 0 && !l.run.thrashing) {
    throw std::logic_error("simulated server stalled with " + std::to_string(l.run.unfinished) + " requests left");
  }
  return l;
}

Run run_serve(Request& req, const io::Resolved* in) {
  const ServeAnswer a = answer_serve(in->scenario);
  const format::Subject s = subject(*in, req.spec, req.groups, req.view);
  Run o = started("serve", s, req);
  format::add_serve(o.report, s, a.serve, req.view);
  if (a.layout) {
    format::add_deployment(o.report, s, *a.layout, req.view);
    if (a.layout_steady) {
      format::add_layout_steady(o.report, s, *a.layout_steady, req.view);
    } else {
      o.report.notes.emplace_back(
          "through the layout, the KV budget and the targets allow no sequence: no steady state");
    }
  }
  if (a.speculative) format::add_speculative(o.report, s, *a.speculative, req.view);
  if (a.load) format::add_load(o.report, s, checked_load(*a.load), req.view);
  format::add_fit(o.report, a.fit, req.view);
  o.fit = a.fit;
  return o;
}

Run run_train(Request& req, const io::Resolved* in) {
  const TrainAnswer a = answer_train(in->scenario);
  if (a.search && a.search->ranked.empty() && !a.search->closest) {
    throw InputError("--best-layout: no layout of " + std::to_string(in->scenario.deployment.devices) +
                     " devices splits the global batch of " + std::to_string(a.search->global_batch) +
                     " sequences with the flags held; give --global-batch a multiple of the data-parallel degree");
  }
  const format::Subject given = subject(*in, req.spec, req.groups, req.view);
  // --best-layout: every section reads the scenario at the layout the search chose.
  const format::Subject s = format::with_scenario(given, a.searched ? *a.searched : in->scenario);
  Run o = started("train", s, req);
  if (s.scenario.training.budget) format::add_compute_optimal(o.report, s, *s.scenario.training.budget, req.view);
  if (a.search) format::add_layout_search(o.report, s, *a.search, req.view);
  format::add_train(o.report, s, a.train, req.view);
  format::add_fit(o.report, a.fit, req.view);
  o.fit = a.fit;
  return o;
}

// A flag of the other phase would change nothing: name it instead of ignoring it.
void check_phase_flags(const io::ScenarioSpec& spec, Phase phase) {
  io::Diagnostics diag;
  if (phase == Phase::decode) {
    if (spec.prompt) diag.usage("--prompt: applies to --phase prefill; a decode step attends over --context");
    if (spec.lm_head) diag.usage("--lm-head: applies to --phase prefill; a decode step runs the head on each token");
    if (spec.attention) diag.usage("--attention: applies to --phase prefill; a decode step has one query");
  } else if (spec.context) {
    diag.usage("--context: applies to --phase decode; a prefill attends over its --prompt tokens");
  }
  diag.check();
}

Run run_layer(Request& req, const io::Resolved* in) {
  const LayerQuery q{.phase = req.spec.phase.value_or(LayerQuery{}.phase), .fused = req.spec.fused};
  check_phase_flags(req.spec, q.phase);
  const LayerAnswer a = answer_layer(in->scenario, q);
  const format::Subject s = subject(*in, req.spec, req.groups, req.view);
  Run o = started("layer", s, req);
  format::add_hardware(o.report, s, a.hardware, req.view);
  format::add_layer(o.report, s, a.layer, req.view);
  return o;
}

// plan: every accelerator of the --gpu list, the first resolved with the model, the others on it.
Run run_plan(Request& req, const io::Resolved* in) {
  const io::ScenarioSpec& spec = req.spec;
  if (!spec.users || !spec.tokens_per_s_per_user) {
    throw UsageError("plan needs --users N and --tokens-per-s RATE (each user's decode rate)");
  }
  const PlanInputs plan{.users = *spec.users,
                        .tokens_per_s_per_user = *spec.tokens_per_s_per_user,
                        .tpot_s = spec.tpot_target,
                        .ttft_s = spec.ttft_target,
                        .price_per_device_hour = spec.price};
  const std::vector<std::string> gpus = text::split_names(spec.gpu, "--gpu");
  std::vector<io::Resolved> others;
  others.reserve(gpus.size());
  std::vector<const Scenario*> on{&in->scenario};
  for (std::size_t i = 1; i < gpus.size(); ++i) {
    io::ScenarioSpec one = spec;
    one.gpu = gpus[i];
    others.push_back(io::resolve_on_gpu(*in, one, *req.reg));
    on.push_back(&others.back().scenario);
  }
  // One accelerator under two names (h100-sxm,h100) would be planned twice, its rows side by side.
  for (std::size_t i = 1; i < on.size(); ++i) {
    for (std::size_t k = 0; k < i; ++k) {
      const std::string& name = on[i]->accelerator->hw.name;
      if (on[k]->accelerator->hw.name == name) {
        throw UsageError("--gpu: " + text::quote(gpus[k]) + " and " + text::quote(gpus[i]) +
                         " are the same accelerator (" + name + ")");  // as compare says
      }
    }
  }
  const format::Subject s = subject(*in, req.spec, req.groups, req.view);
  Run o = started("plan", s, req);
  format::add_plan(o.report, answer_plan(on, plan), plan, req.view);
  return o;
}

Run run_plot(Request& req, const io::Resolved* in) {
  PlotOutput p = plot_picture(req.plot, req.spec, *in, *req.reg);
  Run o{{}, std::nullopt, std::move(p.text)};
  o.report.warnings = std::move(p.warnings);
  return o;
}

// compare: the question's own run at each accelerator or model of the list, each resolved as the
// single command resolves it, so a column is exactly what that command prints; its verdict is every
// column's.
Run run_compare(Request& req, const io::Resolved*) {
  const Command& q = *req.question;
  const std::vector<std::string> models = text::split_names(req.spec.model, "MODEL");
  const std::vector<std::string> gpus = text::split_names(req.spec.gpu, "--gpu");
  if (models.size() > 1 && gpus.size() > 1) {
    throw UsageError(
        fmt::format("compare: {} models and {} accelerators; compare one list at a time (several models on "
                    "one --gpu, or one model on several)",
                    models.size(), gpus.size()));
  }
  if (models.size() < 2 && gpus.size() < 2) {
    throw UsageError(std::string("compare: one column; give two or more models (MODEL,MODEL)") +
                     ((q.groups & io::kGpu) != 0U ? " or accelerators (--gpu A,B)" : ""));
  }
  const bool by_gpu = gpus.size() > 1;
  const std::string where = by_gpu ? "--gpu" : "MODEL";
  const std::vector<std::string>& items = by_gpu ? gpus : models;
  // A model from stdin is read once; each column reads its own copy.
  const bool from_stdin = std::find(models.begin(), models.end(), "-") != models.end();
  std::string stdin_text;
  if (from_stdin) {
    std::ostringstream s;
    s << req.in->rdbuf();
    stdin_text = s.str();
  }
  format::Comparison c{
      q.name, by_gpu ? format::CompareAxis::gpu : format::CompareAxis::model, {}, req.brief ? q.brief : nullptr};
  Run out{{}, std::nullopt, {}};
  for (std::size_t i = 0; i < items.size(); ++i) {
    io::ScenarioSpec one = req.spec;
    if (by_gpu) {
      one.gpu = items[i];
      io::record_given(one, *io::input_def("gpu"), items[i]);  // the column's own, in its inputs echo
    } else {
      one.model = items[i];
    }
    std::istringstream copy(stdin_text);
    const io::Resolved r =
        io::resolve(prepared(q, one), *req.reg, from_stdin ? copy : *req.in, q.needs_gpu, q.training());
    // The column's run reads its own spec: its inputs echo names its model or accelerator alone.
    Request column = req;
    column.spec = std::move(one);
    Run col = q.run(column, &r);
    std::string name = by_gpu ? r.scenario.accelerator->hw.name : r.scenario.model.name;
    for (std::size_t k = 0; k < c.columns.size(); ++k) {
      if (c.columns[k].name == name) {
        throw UsageError(fmt::format("{}: \"{}\" and \"{}\" are the same {} ({})", where, items[k], items[i],
                                     by_gpu ? "accelerator" : "model", name));
      }
    }
    // The comparison fits when every column does; one unknown makes it unknown.
    if (col.fit) {
      if (!out.fit) {
        out.fit = col.fit;
      } else if (out.fit->fits && (!col.fit->fits || !*col.fit->fits)) {
        out.fit->fits = col.fit->fits;
      }
    }
    c.columns.push_back({std::move(name), std::move(col.report)});
  }
  out.report.warnings = format::compared_messages(c, &format::Report::warnings);
  out.comparison = std::move(c);
  return out;
}

// --- the commands without a scenario ---------------------------------------------------------------

Run run_gemm(Request& req, const io::Resolved*) {
  GemmInputs g;
  const char* names[] = {"M", "N", "K"};
  double* dims[] = {&g.m, &g.n, &g.k};
  io::Diagnostics diag;
  for (std::size_t i = 0; i < 3; ++i) {
    diag.capture(names[i], [&] {
      const std::int64_t v = io::parse_count(req.gemm_dims.at(i));
      if (v < 1) throw InputError("must be at least 1");
      *dims[i] = static_cast<double>(v);
    });
  }
  diag.capture("--dtype", [&] { g.dtype = io::parse_dtype(req.gemm_dtype); });
  std::optional<HardwareConfig> hw;
  if (!req.spec.gpu.empty()) diag.capture("", [&] { hw = req.reg->load_gpu(req.spec.gpu); });
  diag.check();
  return {format::gemm_report(analyze_gemm(g, hw), hw, req.spec.gpu, req.view), std::nullopt, {}};
}

std::string names_text(const io::PresetRegistry& reg, io::PresetKind kind) {
  std::string text;
  for (const io::PresetEntry* e : reg.entries(kind)) text += e->name + "\n";
  return text;
}

Run run_gpus(Request& req, const io::Resolved*) {
  if (req.names) return {{}, std::nullopt, names_text(*req.reg, io::PresetKind::gpu)};
  return {gpus_report(*req.reg), std::nullopt, {}};
}

Run run_systems(Request& req, const io::Resolved*) {
  if (req.names) return {{}, std::nullopt, names_text(*req.reg, io::PresetKind::system)};
  return {systems_report(*req.reg), std::nullopt, {}};
}

Run run_models(Request& req, const io::Resolved*) {
  // An empty --family is a mistake, not "every family" (N25).
  if (req.family_given && req.family.empty()) {
    throw UsageError("--family: \"\" names no family; give a model type (qwen3, llama) or the start of a name (gpt3)");
  }
  if (req.names && req.family.empty()) return {{}, std::nullopt, names_text(*req.reg, io::PresetKind::model)};
  if (req.names) {
    std::string text;
    for (const auto& one : model_presets(*req.reg, req.family)) text += one.first->name + "\n";
    return {{}, std::nullopt, text};
  }
  return {models_report(*req.reg, req.family), std::nullopt, {}};
}

// --- prepare: the spec a command resolves ----------------------------------------------------------

// plan and plot take a --gpu list and resolve on its first (their runs add the others).
io::ScenarioSpec on_first_gpu(const io::ScenarioSpec& given) {
  io::ScenarioSpec spec = given;
  text::split_names(spec.gpu, "--gpu");
  spec.gpu = spec.gpu.substr(0, spec.gpu.find(','));
  return spec;
}

// layer's --tokens is a prefill's prompt, or a decode step's one token.
io::ScenarioSpec layer_tokens(const io::ScenarioSpec& given) {
  io::ScenarioSpec spec = given;
  if (spec.tokens) {
    if (spec.phase.value_or(LayerQuery{}.phase) == Phase::decode) {
      if (*spec.tokens != 1) {
        throw UsageError("--tokens: a decode step scores 1 token per sequence; --phase prefill takes a prompt");
      }
    } else if (spec.prompt) {
      throw UsageError("--tokens and --prompt: give the prefill's prompt once");
    } else {
      spec.prompt = spec.tokens;
    }
  }
  return spec;
}

// --- cells: a sweep row read from the command's answer --------------------------------------------

void report_cells(const io::Resolved& in, format::SweepFigures& f) {
  format::sweep_figures(subject(in), answer_report(in.scenario), f);
}
void params_cells(const io::Resolved& in, format::SweepFigures& f) {
  format::sweep_figures(subject(in), analyze_params(in.scenario), f);
}
void flops_cells(const io::Resolved& in, format::SweepFigures& f) {
  format::sweep_figures(subject(in), analyze_flops(in.scenario), f);
}
void kv_cells(const io::Resolved& in, format::SweepFigures& f) {
  format::sweep_figures(subject(in), analyze_kv(in.scenario), f);
}
void memory_cells(const io::Resolved& in, format::SweepFigures& f) {
  format::sweep_figures(subject(in), answer_memory(in.scenario), f);
}
void decode_cells(const io::Resolved& in, format::SweepFigures& f) {
  format::sweep_figures(subject(in), answer_decode(in.scenario, {.searches = f.knee_wanted}), f);
}
void prefill_cells(const io::Resolved& in, format::SweepFigures& f) {
  format::sweep_figures(subject(in), answer_prefill(in.scenario), f);
}
void serve_cells(const io::Resolved& in, format::SweepFigures& f) {
  format::sweep_figures(subject(in), answer_serve(in.scenario), f);
}
void train_cells(const io::Resolved& in, format::SweepFigures& f) {
  format::sweep_figures(subject(in), answer_train(in.scenario), f);
}

// Every command: its inputs are the groups it names, and nothing else.
const Command kCommands[] = {
    {"report", "The whole picture for one model on one accelerator", Stage::model,
     kWorkloadOnGpu | io::kContext | io::kPrompt | io::kAttentionMode | io::kLmHead, false, false, true, kOwnNone,
     &format::kReportBrief, nullptr, run_report, report_cells,
     "  roofline report llama3-8b --gpu h100-sxm\n"
     "  roofline report llama2-70b --gpu mi300x --batch 32 --context 4096\n"},
    {"params", "Parameter breakdown: per matrix, per layer, embedding, lm_head, total, active", Stage::model,
     kModelInputs | io::kWeights | io::kParamsOnly, false, false, true, kOwnNone, &format::kParamsBrief, nullptr,
     run_params, params_cells,
     "  roofline params llama3-8b\n"
     "  roofline params mixtral-8x7b --format json\n"},
    {"flops", "FLOPs per token under each basis, attention at a context, prefill, crossover", Stage::model,
     kModelInputs | io::kParamsOnly | io::kContext | io::kPrompt | io::kFlopsBasis | io::kAttentionMode | io::kLmHead |
         io::kWeights,
     false, false, true, kOwnNone, &format::kFlopsBrief, nullptr, run_flops, flops_cells,
     "  roofline flops llama3-8b --prompt 2048\n"
     "  roofline flops llama3-8b --flops-basis non-embedding\n"},
    {"kv", "KV cache per token, sequence and batch, per-layer layout, any KV dtype", Stage::model,
     kModelInputs | io::kContext | io::kBatch | io::kKvDtype, false, false, true, kOwnNone, &format::kKvBrief, nullptr,
     run_kv, kv_cells, "  roofline kv llama2-70b --context 4096 --kv-dtype fp8\n"},
    {"memory", "Weights + KV + reserve against capacity: fits, longest context, most sequences", Stage::model,
     kModelInputs | io::kGpu | io::kGpuMemory | io::kDevices | io::kBatch | io::kContext | io::kWeights | io::kKvDtype |
         io::kReserve | io::kRequireFit | io::kParallel | io::kLink | io::kSystem,
     true, false, true, kOwnNone, &format::kMemoryBrief, nullptr, run_memory, memory_cells,
     "  roofline memory llama2-70b --gpu mi300x --context 4096 --batch 32\n"},
    {"decode", "Decode step floor, token-rate ceilings, bound, utilisation, compute-bound batch", Stage::model,
     kWorkloadOnGpu | io::kContext | io::kSpeculative | io::kParallel | io::kLink | io::kSystem, true, false, true,
     kOwnNone, &format::kDecodeBrief, nullptr, run_decode, decode_cells,
     "  roofline decode llama3-8b --gpu mi300x --batch 32 --context 8192\n"},
    {"prefill", "Prefill FLOPs, bytes, intensity and time floor (TTFT floor)", Stage::model,
     kWorkloadOnGpu | io::kPrompt | io::kAttentionMode | io::kLmHead | io::kCp | io::kLink | io::kSystem, true, false,
     true, kOwnNone, &format::kPrefillBrief, nullptr, run_prefill, prefill_cells,
     "  roofline prefill llama3-8b --gpu h100-sxm --prompt 2048\n"
     "  roofline prefill llama3-70b --gpu h100-sxm --cp 8 --prompt 131072\n"},
    {"serve", "A request's TTFT, TPOT and end-to-end floors, sized at its prompt + output tokens", Stage::model,
     kWorkloadOnGpu | io::kPrompt | io::kOutput | io::kAttentionMode | io::kLmHead | io::kSpeculative | io::kServing |
         io::kTargets | io::kParallel | io::kLink | io::kSystem | io::kLoad,
     true, false, true, kOwnNone, &format::kServeBrief, nullptr, run_serve, serve_cells,
     "  roofline serve llama3-8b --gpu h100-sxm --prompt 1024 --output 256\n"
     "  roofline serve llama3-8b --gpu h100-sxm --rate 20 --ttft 500ms --tpot 50ms\n"},
    {"layer", "One layer operator by operator: FLOPs, bytes, intensity, bound and time of each, unfused and fused",
     Stage::model,
     kModelInputs | io::kGpu | io::kDevices | io::kBatch | io::kContext | io::kPrompt | io::kWeights | io::kKvDtype |
         io::kComputeDtype | io::kMfu | io::kBwEfficiency | io::kAttentionMode | io::kLmHead | io::kDecodeBytes |
         io::kLayer | io::kTokens,
     true, false, false, kOwnNone, &format::kLayerBrief, layer_tokens, run_layer, nullptr,
     "  roofline layer llama3-8b --gpu h100-sxm --phase decode --batch 1 --context 8k\n"
     "  roofline layer mixtral-8x7b --gpu h100-sxm --phase prefill --prompt 2048 --fused\n"},
    {"train", "Training on a cluster: memory per device, compute, time, cost and communication", Stage::model,
     kModelInputs | io::kParamsOnly | io::kGpu | io::kGpuMemory | io::kDevices | io::kComputeDtype | io::kReserve |
         io::kMfu | io::kFlopsBasis | io::kTrain | io::kParallel | io::kTraining | io::kRequireFit | io::kPrice |
         io::kTokens | io::kSystem | io::kCp,
     true, false, true, kOwnNone, &format::kTrainBrief, nullptr, run_train, train_cells,
     "  roofline train llama3-70b --gpu h100-sxm --gpus 64 --tp 8 --zero 1 --seq 8192 --recompute selective "
     "--tokens 15T --mfu 0.4 --price 2.5\n"
     "  roofline train llama2-7b --gpu a100-80gb-sxm --gpus 64 --zero 3\n"},
    {"plan", "A fleet for a user load: every layout of each accelerator, the devices and the cost, cheapest first",
     Stage::model,
     kModelInputs | io::kGpu | io::kGpuMemory | io::kWeights | io::kKvDtype | io::kComputeDtype | io::kReserve |
         io::kMfu | io::kBwEfficiency | io::kContext | io::kPrompt | io::kTargets | io::kPlan | io::kPrice |
         io::kSystem,
     true, true, false, kOwnNone, nullptr, on_first_gpu, run_plan, nullptr,
     "  roofline plan mixtral-8x7b --gpu h200-sxm --users 10000 --tokens-per-s 30 --context 8k --tpot 50ms\n"
     "  roofline plan llama3-70b --gpu h100-sxm,h200-sxm,mi300x --users 1000 --tokens-per-s 20 --price 2.5\n"},
    {"plot", "The roofline as a picture (SVG or the terminal): roofs, workloads, memory bars, sweep curves",
     Stage::model,
     kModelInputs | io::kGpu | io::kGpuMemory | io::kDevices | io::kBatch | io::kContext | io::kPrompt | io::kOutput |
         io::kWeights | io::kKvDtype | io::kComputeDtype | io::kReserve | io::kMfu | io::kBwEfficiency |
         io::kFlopsBasis | io::kAttentionMode | io::kLmHead | io::kDecodeBytes | io::kServing | io::kTargets |
         io::kParallel | io::kTrain | io::kCp | io::kLoad,
     true, true, false, kOwnPlot, nullptr, on_first_gpu, run_plot, nullptr,
     "  roofline plot llama3-8b --gpu h100-sxm,mi300x --batch 1,8,64,512\n"
     "  roofline plot llama3-8b --gpu h100-sxm --kind memory --batch 1,64,512 --context 8k\n"
     "  roofline plot llama3-70b --gpu h100-sxm --gpus 4 --kind decode --format svg\n"
     "  roofline plot llama3-70b --gpu h100-sxm,mi300x --gpus 64 --tp 8 --zero 1 --seq 8192 --kind train\n"
     "Lists: --batch [default: 1,8,64,512 for roofline, 1..1024*2 for decode], --concurrency for --kind serve\n"
     "[default: 1..1024*2], --micro-batch for --kind train [default: 1]; -o FILE or --format svg writes SVG,\n"
     "otherwise the picture is drawn for the terminal.\n"},
    {"compare", "Two or more accelerators or models side by side on one question, each with its ratio to the first",
     Stage::compare, 0, false, false, false, kOwnNone, nullptr, nullptr, run_compare, nullptr,
     "  roofline compare decode llama3-8b --gpu h100-sxm,h200-sxm,mi300x --batch 32\n"
     "  roofline compare params llama3-8b,llama3-70b,mixtral-8x7b\n"
     "  roofline compare report llama3-70b --gpu h100-sxm,mi300x --brief\n"
     "QUESTION is report, params, flops, kv, memory, decode, prefill, serve or train, and takes that command's\n"
     "flags; one list, of models (MODEL,MODEL) or of accelerators (--gpu A,B). Ratios are each column over the\n"
     "first.\n"},
    {"gemm", "Intensity, attainable FLOP/s and bound of one matrix multiply", Stage::gemm, 0, false, false, false,
     kOwnNone, &format::kGemmBrief, nullptr, run_gemm, nullptr,
     "  roofline gemm 4096 4096 4096 --gpu h100-sxm\n"
     "  roofline gemm 1 4096 4096 --dtype fp8\n"},
    {"gpus", "Accelerator presets with ridge points per dtype", Stage::listing, 0, false, false, false, kOwnNames,
     nullptr, nullptr, run_gpus, nullptr,
     "  roofline gpus\n"
     "  roofline gpus --format json\n"},
    {"systems", "System presets: scale-up domains, their links and the network between them", Stage::listing, 0, false,
     false, false, kOwnNames, nullptr, nullptr, run_systems, nullptr,
     "  roofline systems\n"
     "  roofline systems --format json\n"},
    {"models", "Model presets with their parameter counts", Stage::listing, 0, false, false, false,
     kOwnNames | kOwnFamily, nullptr, nullptr, run_models, nullptr,
     "  roofline models\n"
     "  roofline models --family qwen3\n"
     "  roofline models --names\n"},
    {"batch", "A JSON Lines stream of plans: a command and its inputs a line in, its results a line out", Stage::batch,
     0, false, false, false, kOwnNone, nullptr, nullptr, nullptr, nullptr,
     "  roofline batch tests/fixtures/plans.jsonl\n"
     "  echo '{\"command\":\"decode\",\"model\":\"llama3-8b\",\"gpu\":\"h100-sxm\",\"batch\":32}' | roofline batch\n"},
    {"completion", "Shell completion script for bash, zsh or fish, generated from this command table",
     Stage::completion, 0, false, false, false, kOwnNone, nullptr, nullptr, run_completion, nullptr,
     "  roofline completion bash > ~/.local/share/bash-completion/completions/roofline\n"
     "  roofline completion zsh > ~/.zsh/completions/_roofline\n"
     "  roofline completion fish > ~/.config/fish/completions/roofline.fish\n"},
};

}  // namespace

std::span<const Command> commands() { return kCommands; }

const Command* command_named(std::string_view name) {
  for (const Command& c : kCommands) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

io::ScenarioSpec prepared(const Command& cmd, const io::ScenarioSpec& given) {
  io::ScenarioSpec spec = cmd.prepare != nullptr ? cmd.prepare(given) : given;
  // A command that never lays devices out (report, prefill, layer) loads no system preset.
  spec.uses_system = (cmd.groups & io::kSystem) != 0U;
  return spec;
}

int require_fit_exit(const Command& cmd, const std::optional<Fit>& fit) {
  if (!fit) throw UsageError("--require-fit: " + std::string(cmd.name) + " has no capacity check without --gpu");
  if (!fit->fits) {
    throw UsageError(
        "--require-fit: whether it fits is unknown: a model known by its parameter count alone has "
        "no layers, so its activations are not counted; give a preset or a config");
  }
  return *fit->fits ? 0 : 3;
}

}  // namespace roofline::cli
