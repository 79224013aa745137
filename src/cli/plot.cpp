// roofline plot: every accelerator of the --gpu list, every batch (or concurrency) of the list, each
// point resolved by resolve_point() and analysed by the same analyze_* the single commands call, so
// a point on the picture is the decode, prefill, layer, memory or serve command at that point.
#include "cli/plot.hpp"

#include "cli/command.hpp"
#include "format/plot_charts.hpp"
#include "io/quantity_parse.hpp"

#include "roofline/analysis.hpp"
#include "roofline/errors.hpp"
#include "roofline/roofline_points.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "text/enum_table.hpp"
#include "text/user_text.hpp"

namespace roofline::cli {
namespace {

namespace plot = format::plot;

const io::InputDef& input_named(std::string_view name) { return *io::input_def(name); }

// The pictures plot draws: --kind's names, declared once (its check, its help's list, the code).
enum class Kind { roofline, memory, train, decode, serve, load };
constexpr text::EnumTable<Kind, 6> kKinds = {std::pair{"roofline", Kind::roofline}, std::pair{"memory", Kind::memory},
                                             std::pair{"train", Kind::train},       std::pair{"decode", Kind::decode},
                                             std::pair{"serve", Kind::serve},       std::pair{"load", Kind::load}};

// --kind as given: CLI11 checks it against kKinds, so it is one of them.
Kind kind_of(const PlotRequest& req) { return text::find_enum(kKinds, req.options.kind).value_or(Kind::roofline); }

// The inputs each kind reads beyond the model, the accelerator and the types: a flag of another
// kind would change nothing, so it is named instead of ignored.
void check_kind_flags(const PlotRequest& req, const io::ScenarioSpec& spec) {
  const std::string& kind = req.options.kind;
  const auto listed = [&](std::string_view name) {
    return std::any_of(req.axes.begin(), req.axes.end(), [&](const io::SweepAxis& a) { return name == a.def->name; });
  };
  io::Diagnostics diag;
  const auto only = [&](bool given, const char* flag, const char* kinds) {
    if (given) diag.usage(fmt::format("--{}: applies to plot --kind {}, not --kind {}", flag, kinds, kind));
  };
  const Kind k = kind_of(req);
  const bool load = k == Kind::load;
  const bool serve = k == Kind::serve || load;
  const bool roofline = k == Kind::roofline;
  const bool train = k == Kind::train;
  if (load) only(spec.concurrency.has_value() || listed("concurrency"), "concurrency", "serve");
  for (const std::string& name : req.given) {
    if (!load && input_named(name).group == io::kLoad) only(true, input_named(name).name, "load");
  }
  if (!serve) {
    only(spec.output.has_value() || listed("output"), "output", "serve");
    only(spec.concurrency.has_value() || listed("concurrency"), "concurrency", "serve");
    only(spec.kv_block.has_value(), "kv-block", "serve");
    only(spec.shared_prefix.has_value(), "shared-prefix", "serve");
    only(spec.tpot_target.has_value(), "tpot", "serve");
    only(spec.ttft_target.has_value(), "ttft", "serve");
  }
  if (!roofline && !serve) {
    only(spec.prompt.has_value() || listed("prompt"), "prompt", "roofline or serve");
    only(spec.attention.has_value(), "attention", "roofline or serve");
    only(spec.lm_head.has_value(), "lm-head", "roofline or serve");
  }
  if (serve || train) only(spec.context.has_value() || listed("context"), "context", "roofline, memory or decode");
  if (train) {
    only(spec.batch.has_value() || listed("batch"), "batch", "roofline, memory or decode (train: --micro-batch)");
    only(spec.kv_dtype.has_value(), "kv-dtype", "roofline, memory, decode or serve");
  }
  // The training inputs draw only the training bars; --model-flops and --hfu change no memory.
  for (const std::string& name : req.given) {
    const io::InputDef& def = input_named(name);
    if (def.group != io::kTrain && def.group != io::kCp) continue;
    if (!train) {
      only(true, def.name, "train");
    } else if (name == "best-layout") {
      diag.usage(
          "--best-layout: plot --kind train draws memory along the micro-batches given; train --best-layout "
          "chooses the layout");
    } else if (name == "model-flops" || name == "hfu") {
      diag.usage(
          fmt::format("--{}: changes no memory; plot --kind train draws memory (train --{} uses it)", name, name));
    }
  }
  only(!roofline && !req.options.gemm.empty(), "gemm", "roofline");
  diag.check();
}

// The values along the picture's x: the list given, one value, or the kind's default.
struct Values {
  const io::InputDef* def = nullptr;
  std::vector<std::string> texts;
};

Values x_values(const PlotRequest& req, const io::ScenarioSpec& spec) {
  const Kind k = kind_of(req);
  const bool serve = k == Kind::serve;
  const bool train = k == Kind::train;
  const bool load = k == Kind::load;
  const char* flag = load ? "rate" : serve ? "concurrency" : train ? "micro-batch" : "batch";
  Values v{&input_named(flag), {}};
  for (const io::SweepAxis& a : req.axes) {
    if (a.def != v.def) {
      throw UsageError(fmt::format("--{}: plot --kind {} takes a list on --{} only; give --{} one value", a.def->name,
                                   req.options.kind, flag, a.def->name));
    }
    v.texts = a.texts;
  }
  if (!v.texts.empty()) return v;
  if (load) {
    // One rate given, or the default ladder 1, 2, 4, ... 64 requests a second.
    if (spec.rate) {
      v.texts = {fmt::format("{}", *spec.rate)};
    } else {
      for (const std::int64_t n : io::expand_counts("1..64*2")) v.texts.push_back(std::to_string(n));
    }
    return v;
  }
  const std::optional<std::int64_t> given = serve ? spec.concurrency : train ? spec.micro_batch : spec.batch;
  if (given) {
    v.texts = {std::to_string(*given)};
  } else if (k == Kind::roofline) {
    v.texts = {"1", "8", "64", "512"};
  } else if (k == Kind::memory || train) {
    v.texts = {"1"};
  } else {
    for (const std::int64_t n : io::expand_counts("1..1024*2")) v.texts.push_back(std::to_string(n));
  }
  return v;
}

GemmInputs parse_gemm(const std::string& text, DType dtype) {
  GemmInputs g;
  g.dtype = dtype;
  std::vector<double*> dims = {&g.m, &g.n, &g.k};
  std::size_t at = 0;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    const std::size_t comma = text.find(',', at);
    if ((comma == std::string::npos) != (i == 2)) {
      throw InputError("--gemm: " + text::quote(text) + " is not M,N,K, e.g. 4096,4096,4096");
    }
    const std::string part = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    std::int64_t v = 0;
    try {
      v = io::parse_count(part);
    } catch (const InputError& e) {
      throw InputError("--gemm: " + std::string(e.what()));
    }
    if (v < 1) throw InputError("--gemm: " + text::quote(part) + " must be at least 1");
    *dims[i] = static_cast<double>(v);
    at = comma + 1;
  }
  return g;
}

// A point's own problem, each line prefixed with the point: "at --batch 4096: ...".
void resolve_at(const Values& x, std::size_t i, io::ScenarioSpec& spec, io::Resolved& r, bool training) {
  x.def->set(spec, x.texts[i]);
  const auto prefixed = [&](const Error& e) {
    std::istringstream lines(e.what());
    std::string line;
    std::string out;
    while (std::getline(lines, line)) {
      out += (out.empty() ? "" : "\n") + fmt::format("at --{} {}: {}", x.def->name, x.texts[i], line);
    }
    return out;
  };
  try {
    io::resolve_point(spec, r, training);
  } catch (const UsageError& e) {
    throw UsageError(prefixed(e));
  } catch (const InputError& e) {
    throw InputError(prefixed(e));
  }
}

void add_warnings(const io::Resolved& r, std::vector<std::string>& out) {
  for (const std::string& w : r.warnings) {
    if (std::find(out.begin(), out.end(), w) == out.end()) out.push_back(w);
  }
}

}  // namespace

void add_plot_options(CLI::App* sub, PlotOptions& o) {
  const char* grp = "Picture";
  sub->add_option(
         "--kind", o.kind,
         "What to draw: roofline (workloads on each accelerator's roofs), memory (capacity bars), train (a training "
         "device's memory bars, per --micro-batch), decode (tokens/s against --batch), serve (TPOT against "
         "--concurrency) or load (a simulated server's TTFT and TPOT p50 and p99 against --rate) [default: roofline]")
      ->check(CLI::IsMember(text::canonical_names(kKinds)))
      ->type_name("KIND")
      ->group(grp);
  sub->add_option("-o,--svg", o.svg_file,
                  "Write the picture as an SVG file, in place when it is whole (- or --format svg: to stdout)")
      ->type_name("FILE")
      ->each([&o](const std::string&) { o.svg_file_given = true; })
      ->group(grp);
  sub->add_option("--gemm", o.gemm, "Place a GEMM C(M x N) = A(M x K) B(K x N) on the roofline, as M,N,K")
      ->type_name("M,N,K")
      ->group(grp);
}

const std::vector<std::string>& plot_flags() {
  static const std::vector<std::string> flags = {"--kind", "--svg", "--gemm"};
  return flags;
}

PlotOutput plot_picture(const PlotRequest& req, io::ScenarioSpec spec, const io::Resolved& first,
                        const io::PresetRegistry& reg) {
  check_kind_flags(req, spec);
  const Values x = x_values(req, spec);
  std::optional<GemmInputs> gemm;
  if (!req.options.gemm.empty()) gemm = parse_gemm(req.options.gemm, first.scenario.workload.compute_dtype);
  PlotOutput out;
  add_warnings(first, out.warnings);
  // Every accelerator of the list: the first is resolved with the model, the others on it.
  std::vector<io::Resolved> gpus;
  const std::vector<std::string> spellings = text::split_names(spec.gpu, "--gpu");  // each as the list spelled it
  for (std::size_t i = 0; i < spellings.size(); ++i) {
    io::ScenarioSpec one = spec;
    one.gpu = spellings[i];
    gpus.push_back(i == 0 ? first : io::resolve_on_gpu(first, one, reg));
    // One accelerator under two names would be drawn twice: refused, as plan and compare do.
    const std::string& name = gpus.back().scenario.accelerator->hw.name;
    for (std::size_t j = 0; j + 1 < gpus.size(); ++j) {
      if (gpus[j].scenario.accelerator->hw.name == name) {
        throw UsageError("--gpu: " + text::quote(spellings[j]) + " and " + text::quote(one.gpu) +
                         " are the same accelerator (" + name + ")");
      }
    }
  }
  const Kind kind = kind_of(req);
  std::vector<plot::RooflineSeries> roofs;
  std::vector<plot::MemorySeries> bars;
  std::vector<plot::DecodeCurve> decodes;
  std::vector<plot::ServeCurve> serves;
  std::vector<plot::LoadCurve> loads;
  std::vector<plot::TrainMemorySeries> trains;
  const bool train = kind == Kind::train;
  for (io::Resolved& r : gpus) {
    const std::string& name = r.scenario.accelerator->hw.name;
    plot::RooflineSeries roof;
    plot::MemorySeries memory{name, {}};
    plot::DecodeCurve decode{name, {}};
    plot::ServeCurve serve{name, {}};
    plot::TrainMemorySeries trained{name, {}};
    plot::LoadCurve loaded{name, {}};
    for (std::size_t i = 0; i < x.texts.size(); ++i) {
      resolve_at(x, i, spec, r, train);
      add_warnings(r, out.warnings);
      const Scenario& s = r.scenario;
      if (kind == Kind::roofline) {
        if (i == 0) {
          // The prefill, the layer's operators and a GEMM at the first batch; the roofs once.
          roof.roof = analyze_ceilings(s);
          roof.points.push_back(prefill_point(analyze_prefill(s)));
          roof.points.push_back(train_point(analyze_layer(s, {.phase = Phase::prefill, .fused = false})));
          for (const RooflinePoint& p : layer_op_points(analyze_layer(s, {.phase = Phase::decode, .fused = false}))) {
            roof.points.push_back(p);
          }
          if (gemm) {
            roof.points.push_back(gemm_point(analyze_gemm(*gemm, s.accelerator->hw), analyze_hardware(s).machine));
          }
        }
        roof.points.push_back(decode_point(analyze_decode(s)));
      } else if (kind == Kind::memory) {
        memory.checks.push_back(memory_breakdown(analyze_capacity(s)));
      } else if (train) {
        trained.checks.emplace_back(s.training.micro_batch, train_memory_breakdown(analyze_train(s)));
      } else if (kind == Kind::decode) {
        decode.steps.push_back(analyze_decode(s));
      } else if (kind == Kind::load) {
        if (!s.serving.load) throw UsageError("plot --kind load: needs --rate (a list or range draws each)");
        loaded.points.push_back(analyze_load(s));
      } else {
        serve.points.push_back(analyze_serve(s));
      }
    }
    roofs.push_back(std::move(roof));
    bars.push_back(std::move(memory));
    decodes.push_back(std::move(decode));
    serves.push_back(std::move(serve));
    trains.push_back(std::move(trained));
    loads.push_back(std::move(loaded));
  }
  if (kind == Kind::roofline) {
    out.chart = plot::roofline_chart(subject(first), roofs);
  } else if (kind == Kind::memory) {
    out.chart = plot::memory_chart(subject(first), bars, req.units);
  } else if (train) {
    out.chart = plot::train_memory_chart(subject(gpus.front()), trains, req.units);
  } else if (kind == Kind::decode) {
    out.chart = plot::decode_chart(subject(first), decodes);
  } else if (kind == Kind::load) {
    out.chart = plot::load_chart(subject(first), loads);
  } else {
    out.chart = plot::serve_chart(subject(first), serves);
  }
  out.text = req.svg ? plot::render_svg(out.chart) : plot::render_terminal(out.chart, req.term);
  return out;
}

}  // namespace roofline::cli
