// The charts of `roofline plot`, from analysis results. Coordinates are result members; ranges and
// labels are the only things decided here.
#include "format/plot_charts.hpp"

#include "roofline/dtype.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <unordered_map>

namespace roofline::format::plot {
namespace {

std::string show(double v, Unit u, UnitSystem units = UnitSystem::si) { return display(Value{v}, u, units); }

// A point's place and mark, for finding the points that coincide.
struct PointKey {
  double x;
  double y;
  Mark mark;
  bool operator==(const PointKey&) const = default;
};
struct PointKeyHash {
  std::size_t operator()(const PointKey& k) const {
    const std::size_t h = std::hash<double>{}(k.x) * 1'000'003U ^ std::hash<double>{}(k.y);
    return h * 31U + static_cast<std::size_t>(k.mark);
  }
};

// "8 x NVIDIA H100 SXM5 80GB" for a group of ideal devices.
std::string device_name(const std::string& display_name, std::int64_t devices) {
  return devices > 1 ? grouped(devices) + " x " + display_name : display_name;
}

// The accelerators of a title: "A", "A and B", "A, B and C".
std::string joined_names(const std::vector<std::string>& names) {
  std::string s;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) s += i + 1 == names.size() ? " and " : ", ";
    s += names[i];
  }
  return s;
}

std::string types_line(const Subject& r) {
  const Workload& w = r.scenario.workload;
  return fmt::format("weights {}, KV {}, compute {}", w.weight_format, dtype_name(w.kv_dtype),
                     dtype_name(w.compute_dtype));
}

// Positive finite values only: the range of a log axis.
struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = 0.0;
  void add(double v) {
    if (!(v > 0.0) || !std::isfinite(v)) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  [[nodiscard]] bool empty() const { return hi == 0.0; }
};

std::string point_label(const RooflinePoint& p) {
  switch (p.kind) {
    case PointKind::decode:
      return "decode B=" + grouped(p.batch);
    case PointKind::prefill:
      return p.batch > 1 ? fmt::format("prefill {} x {}", grouped(p.batch), grouped(p.prompt))
                         : "prefill S=" + grouped(p.prompt);
    case PointKind::train:
      return fmt::format("train {} x {}", grouped(p.batch), grouped(p.prompt));
    case PointKind::gemm:
      return fmt::format("GEMM {}x{}x{}", p.gemm.m, p.gemm.n, p.gemm.k);
    case PointKind::layer_op:
      return std::string(p.op_name);
  }
  return {};
}

Mark mark_of(PointKind k) {
  switch (k) {
    case PointKind::decode:
      return Mark::circle;
    case PointKind::prefill:
      return Mark::square;
    case PointKind::train:
      return Mark::triangle_down;
    case PointKind::gemm:
      return Mark::diamond;
    case PointKind::layer_op:
      return Mark::triangle;
  }
  return Mark::circle;
}

// Data types that share a roof: "bf16, fp16".
struct Roof {
  std::string types;
  DtypeCeiling ceiling;
  bool compute = false;
};

std::vector<Roof> roofs_of(const RooflineCeilings& r) {
  std::vector<Roof> out;
  for (const DtypeCeiling& c : r.ceilings) {
    auto same = std::find_if(out.begin(), out.end(), [&](const Roof& o) { return o.ceiling.peak == c.peak; });
    if (same == out.end()) {
      out.push_back({std::string(dtype_name(c.dtype)), c, c.dtype == r.compute_dtype});
    } else {
      same->types += ", " + std::string(dtype_name(c.dtype));
      same->compute = same->compute || c.dtype == r.compute_dtype;
    }
  }
  return out;
}

}  // namespace

Chart roofline_chart(const Subject& first, const std::vector<RooflineSeries>& gpus) {
  Chart c;
  std::vector<std::string> names;
  for (const RooflineSeries& g : gpus) names.push_back(device_name(g.roof.display_name, g.roof.devices));
  c.title = "Roofline: " + first.model_label + " on " + joined_names(names);
  // The ranges: every point on the log axes, every ridge and roof.
  Range xr;
  Range yr;
  for (const RooflineSeries& g : gpus) {
    for (const DtypeCeiling& d : g.roof.ceilings) {
      xr.add(d.ridge.base());
      yr.add(d.peak.base());
    }
    for (const RooflinePoint& p : g.points) {
      if (!(p.intensity.base() > 0.0) || !(p.attainable.base() > 0.0)) continue;
      xr.add(p.intensity.base());
      yr.add(p.attainable.base());
    }
  }
  if (xr.empty()) xr.add(1.0);
  if (yr.empty()) yr.add(1e12);
  c.x = log_axis("arithmetic intensity (FLOP/B)", xr.lo / 1.5, xr.hi * 3.0);
  c.y = log_axis("attainable TFLOP/s", yr.lo / 1.5, yr.hi * 1.6, 1e12);

  for (std::size_t gi = 0; gi < gpus.size(); ++gi) {
    const RooflineSeries& g = gpus[gi];
    const int col = static_cast<int>(gi);
    const std::vector<Roof> roofs = roofs_of(g.roof);
    // The bandwidth slope P = I BW, from the axis to the highest roof's ridge (or across without one).
    double slope_end = roofs.empty() ? c.x.max : 0.0;
    for (const Roof& r : roofs) slope_end = std::max(slope_end, r.ceiling.ridge.base());
    const units::FlopPerSecond at_min = units::FlopPerByte{c.x.min} * g.roof.bandwidth;
    const units::FlopPerSecond at_end = units::FlopPerByte{slope_end} * g.roof.bandwidth;
    c.series.push_back(
        {{{c.x.min, at_min.base()}, {slope_end, at_end.base()}}, col, false, false, Mark::none, false, "", ""});
    std::string compute_roof;
    for (const Roof& r : roofs) {
      const double ridge = r.ceiling.ridge.base();
      const double peak = r.ceiling.peak.base();
      Series s{{{ridge, peak}, {c.x.max, peak}},
               col,
               !r.compute,
               !r.compute,
               Mark::none,
               false,
               r.types + " " + show(peak, Unit::flop_per_s),
               r.compute ? g.roof.name + " " + r.types : (gi == 0 ? r.types : "")};
      c.series.push_back(s);
      c.points.push_back({ridge, peak, col, Mark::cross, false, "", col});
      if (r.compute) {
        // The compute type's ridge, dropped to the axis and labelled.
        c.series.push_back({{{ridge, c.y.min}, {ridge, peak}}, col, true, true, Mark::none, false, "", ""});
        c.points.back().label = "ridge " + show(ridge, Unit::flop_per_byte);
        compute_roof =
            fmt::format("{} {}\nridge {}", r.types, show(peak, Unit::flop_per_s), show(ridge, Unit::flop_per_byte));
      }
    }
    if (compute_roof.empty()) {
      c.notes.push_back(
          fmt::format("{} has no published {} peak: its points sit on the bandwidth slope alone "
                      "(--compute-dtype picks another roof)",
                      names[gi], dtype_name(g.roof.compute_dtype)));
    }
    c.legend.push_back({names[gi] + "\n" + show(g.roof.bandwidth.base(), Unit::bytes_per_s) +
                            (compute_roof.empty() ? "\nno published peak for the compute type" : "\n" + compute_roof),
                        col, Mark::none, true, false, false, -1});
  }
  // The workloads on each roofline; labelled on the first, and one label where several coincide.
  // Coinciding points are found by hash and a label names at most kMergedLabels of them, so n
  // points cost about n, not n^2 (N6); at most kMaxLabels points are labelled, the rest are marks.
  constexpr std::size_t kMergedLabels = 4;
  constexpr std::size_t kMaxLabels = 200;
  std::vector<std::string> zero;
  std::size_t labelled = 0;
  std::size_t unlabelled = 0;
  for (std::size_t gi = 0; gi < gpus.size(); ++gi) {
    const int col = static_cast<int>(gi);
    std::vector<Point> placed;
    std::vector<std::size_t> merged;  // the labels each placed point names
    std::unordered_map<PointKey, std::size_t, PointKeyHash> at;
    for (const RooflinePoint& p : gpus[gi].points) {
      if (!(p.intensity.base() > 0.0) || !(p.attainable.base() > 0.0)) {
        const std::string n(p.op_name);
        if (gi == 0 && std::find(zero.begin(), zero.end(), n) == zero.end()) zero.push_back(n);
        continue;
      }
      std::string label = gi == 0 ? point_label(p) : "";
      const auto [same, added] =
          at.try_emplace({p.intensity.base(), p.attainable.base(), mark_of(p.kind)}, placed.size());
      if (!added) {
        Point& q = placed[same->second];
        if (label.empty() || q.label.empty() || q.label.find(label) != std::string::npos) continue;
        if (++merged[same->second] < kMergedLabels) {
          q.label += ", " + label;
        } else if (merged[same->second] == kMergedLabels) {
          q.label += ", ...";
        }
        continue;
      }
      if (!label.empty() && labelled++ >= kMaxLabels) {
        label.clear();
        ++unlabelled;
      }
      placed.push_back({p.intensity.base(), p.attainable.base(), col, mark_of(p.kind), gi % 2 == 1, label, -1});
      merged.push_back(1);
    }
    c.points.insert(c.points.end(), placed.begin(), placed.end());
  }
  if (unlabelled > 0) {
    c.notes.push_back(fmt::format("the first {} points are labelled; {} more are marks without a label", kMaxLabels,
                                  grouped(static_cast<std::int64_t>(unlabelled))));
  }
  // What the marks are, from the first accelerator's points, in a fixed order.
  std::string workload;
  const std::vector<RooflinePoint> none;
  const std::vector<RooflinePoint>& shown = gpus.empty() ? none : gpus.front().points;
  for (const PointKind kind :
       {PointKind::decode, PointKind::prefill, PointKind::train, PointKind::layer_op, PointKind::gemm}) {
    const auto p = std::find_if(shown.begin(), shown.end(), [&](const RooflinePoint& q) { return q.kind == kind; });
    if (p == shown.end()) continue;
    switch (kind) {
      case PointKind::decode:
        c.legend.push_back({"decode step, context " + grouped(p->context), -1, Mark::circle, false, false, false, -1});
        workload += "decode at context " + grouped(p->context) + "; ";
        break;
      case PointKind::prefill:
        c.legend.push_back({"prefill of the prompt", -1, Mark::square, false, false, false, -1});
        workload += "prefill of " + grouped(p->prompt) + " tokens; ";
        break;
      case PointKind::train:
        c.legend.push_back(
            {"training micro-batch's weight\nGEMMs (b x s tokens)", -1, Mark::triangle_down, false, false, false, -1});
        break;
      case PointKind::layer_op:
        c.legend.push_back({"layer 0's operators, decode\nbatch " + grouped(p->batch) + ", not fused", -1,
                            Mark::triangle, false, false, false, -1});
        break;
      case PointKind::gemm:
        c.legend.push_back({"GEMM (M x N x K)", -1, Mark::diamond, false, false, false, -1});
        break;
    }
  }
  c.legend.push_back({"ridge point", -1, Mark::cross, false, false, false, -1});
  if (gpus.size() > 1) c.legend.push_back({"hollow: the second accelerator", -1, Mark::circle, false, false, true, -1});
  c.subtitle = workload + types_line(first);
  if (!zero.empty()) {
    std::string list;
    for (const std::string& z : zero) list += (list.empty() ? "" : ", ") + z;
    c.notes.push_back("no FLOPs counted, so intensity 0 (off a log axis): " + list +
                      "; each moves its bytes at the bandwidth");
  }
  c.notes.push_back(
      "attainable = min(peak, intensity x bandwidth) on each accelerator; ceilings, not measurements "
      "(docs/formulas.md, "
      "WI09)");
  return c;
}

Chart memory_chart(const Subject& first, const std::vector<MemorySeries>& gpus, UnitSystem units) {
  Chart c;
  std::vector<std::string> names;
  for (const MemorySeries& g : gpus) {
    names.push_back(device_name(g.gpu, g.checks.empty() ? 1 : g.checks.front().devices));
  }
  c.title = "Memory: " + first.model_label + " on " + joined_names(names);
  const std::int64_t context = gpus.empty() || gpus.front().checks.empty() ? 0 : gpus.front().checks.front().context;
  c.subtitle = "KV cache at context " + grouped(context) + " tokens a sequence; " + types_line(first);
  double most = 0.0;
  bool several = false;
  for (const MemorySeries& g : gpus) {
    several = several || g.checks.size() > 1;
    for (const MemoryBreakdown& m : g.checks) most = std::max({most, m.capacity.base(), m.required.base()});
  }
  const double unit = units == UnitSystem::iec ? 1024.0 * 1024.0 * 1024.0 : 1e9;
  c.x = linear_axis(units == UnitSystem::iec ? "memory (GiB)" : "memory (GB)", most, unit);
  for (std::size_t gi = 0; gi < gpus.size(); ++gi) {
    for (const MemoryBreakdown& m : gpus[gi].checks) {
      Bar b;
      b.label = gpus[gi].gpu + (several ? " B=" + grouped(m.batch) : "");
      b.colour = static_cast<int>(gi);
      b.limit = m.capacity.base();
      b.segments = {{"weights", m.weights.base(), 0}, {"KV cache", m.kv.base(), 1}, {"reserve", m.reserve.base(), 2}};
      if (m.unused.base() > 0.0) b.segments.push_back({"free", m.unused.base(), 3});
      b.note = fmt::format("weights {} + KV {} + reserve {} = {} of {}: {}", show(m.weights.base(), Unit::bytes, units),
                           show(m.kv.base(), Unit::bytes, units), show(m.reserve.base(), Unit::bytes, units),
                           show(m.required.base(), Unit::bytes, units), show(m.capacity.base(), Unit::bytes, units),
                           m.fits ? "fits, " + show(m.unused.base(), Unit::bytes, units) + " free"
                                  : "does not fit, over by " + show(-m.unused.base(), Unit::bytes, units));
      c.bars.push_back(b);
    }
  }
  c.legend = {{"weights", -1, Mark::none, false, false, false, 0},
              {"KV cache", -1, Mark::none, false, false, false, 1},
              {"reserve", -1, Mark::none, false, false, false, 2},
              {"free", -1, Mark::none, false, false, false, 3}};
  c.notes.push_back("the bar's mark is the capacity of all devices; a bar past it does not fit");
  return c;
}

Chart train_memory_chart(const Subject& first, const std::vector<TrainMemorySeries>& gpus, UnitSystem units) {
  Chart c;
  std::vector<std::string> names;
  for (const TrainMemorySeries& g : gpus) {
    names.push_back(device_name(g.gpu, g.checks.empty() ? 1 : g.checks.front().second.devices));
  }
  c.title = "Training memory per device: " + first.model_label + " on " + joined_names(names);
  const TrainingInputs& t = first.scenario.training;
  c.subtitle = fmt::format("t {} x p {} x d {}, ZeRO {}, sequence {} tokens; {}", first.scenario.deployment.tensor,
                           first.scenario.deployment.pipeline, first.scenario.deployment.data, static_cast<int>(t.zero),
                           grouped(t.seq_len), types_line(first));
  double most = 0.0;
  bool several = false;
  for (const TrainMemorySeries& g : gpus) {
    several = several || g.checks.size() > 1;
    for (const auto& [b, m] : g.checks) most = std::max({most, m.capacity.base(), m.required.base()});
  }
  const double unit = units == UnitSystem::iec ? 1024.0 * 1024.0 * 1024.0 : 1e9;
  c.x = linear_axis(units == UnitSystem::iec ? "memory per device (GiB)" : "memory per device (GB)", most, unit);
  const auto bytes = [&](units::Bytes v) { return show(v.base(), Unit::bytes, units); };
  bool optimizer_step = false;
  for (std::size_t gi = 0; gi < gpus.size(); ++gi) {
    for (const auto& [b, m] : gpus[gi].checks) {
      Bar bar;
      bar.label = gpus[gi].gpu + (several ? " b=" + grouped(b) : "");
      bar.colour = static_cast<int>(gi);
      bar.limit = m.capacity.base();
      const char* working = m.working_is_activations ? "activations" : "optimizer step";
      optimizer_step = optimizer_step || !m.working_is_activations;
      bar.segments = {{"weights", m.weights.base(), 0},
                      {"gradients", m.gradients.base(), 4},
                      {"optimizer", m.optimizer.base(), 5},
                      {working, m.working.base(), 1},
                      {"reserve", m.reserve.base(), 2}};
      if (m.unused.base() > 0.0) bar.segments.push_back({"free", m.unused.base(), 3});
      bar.note = fmt::format("weights {} + gradients {} + optimizer {} + {} {} + reserve {} = {} of {}: {}",
                             bytes(m.weights), bytes(m.gradients), bytes(m.optimizer), working, bytes(m.working),
                             bytes(m.reserve), bytes(m.required), bytes(m.capacity),
                             m.fits ? "fits, " + bytes(m.unused) + " free"
                                    : "does not fit, over by " + bytes(units::Bytes{-m.unused.base()}));
      c.bars.push_back(bar);
    }
  }
  c.legend = {{"weights", -1, Mark::none, false, false, false, 0},
              {"gradients", -1, Mark::none, false, false, false, 4},
              {"optimizer states", -1, Mark::none, false, false, false, 5},
              {"activations", -1, Mark::none, false, false, false, 1},
              {"reserve", -1, Mark::none, false, false, false, 2},
              {"free", -1, Mark::none, false, false, false, 3}};
  c.notes.push_back("the bar's mark is one device's capacity; a bar past it does not fit");
  if (optimizer_step) {
    c.notes.push_back(
        "\"optimizer step\": its fp32 gradient copy is larger than the activations, so it is the peak's working set");
  }
  return c;
}

Chart decode_chart(const Subject& first, const std::vector<DecodeCurve>& gpus) {
  Chart c;
  std::vector<std::string> names;
  for (const DecodeCurve& g : gpus) {
    names.push_back(device_name(g.gpu, g.steps.empty() ? 1 : g.steps.front().capacity.devices));
  }
  c.title = "Decode: " + first.model_label + " on " + joined_names(names);
  Range xr;
  Range yr;
  std::int64_t context = 0;
  for (const DecodeCurve& g : gpus) {
    for (const DecodeResult& d : g.steps) {
      xr.add(static_cast<double>(d.batch));
      yr.add(d.step.tokens_per_s);
      yr.add(d.step.tokens_per_s_per_sequence);
      context = d.context;
    }
  }
  c.subtitle = "context " + grouped(context) + " tokens; " + types_line(first);
  c.x = log_axis("batch (sequences per step)", xr.empty() ? 1.0 : xr.lo, xr.empty() ? 10.0 : xr.hi);
  c.y = log_axis("tokens/s", yr.empty() ? 1.0 : yr.lo / 1.3, yr.empty() ? 10.0 : yr.hi * 1.3);
  bool unfit = false;
  for (std::size_t gi = 0; gi < gpus.size(); ++gi) {
    const int col = static_cast<int>(gi);
    Series all{{}, col, false, false, Mark::none, false, "", ""};
    Series one{{}, col, true, true, Mark::none, false, "", ""};
    for (const DecodeResult& d : gpus[gi].steps) {
      const auto b = static_cast<double>(d.batch);
      all.xy.emplace_back(b, d.step.tokens_per_s);
      one.xy.emplace_back(b, d.step.tokens_per_s_per_sequence);
      c.points.push_back({b, d.step.tokens_per_s, col, Mark::circle, !d.capacity.fits, "", -1});
      unfit = unfit || !d.capacity.fits;
    }
    if (!all.xy.empty()) {
      all.short_label = gpus[gi].gpu;
      c.series.push_back(all);
      c.series.push_back(one);
    }
    if (!gpus[gi].steps.empty()) {
      const DecodeResult& d = gpus[gi].steps.front();
      std::string knee = d.compute_bound_batch ? "compute-bound from batch " + grouped(*d.compute_bound_batch)
                                               : "memory-bound at every batch";
      std::string cap =
          d.capacity.max_sequences
              ? "the KV budget holds " + grouped(static_cast<std::int64_t>(d.capacity.max_sequences->base()))
              : "no KV at this context";
      c.legend.push_back({names[gi] + "\n" + knee + "\n" + cap, col, Mark::none, true, false, false, -1});
    }
  }
  c.legend.push_back({"all sequences (aggregate tokens/s)", -1, Mark::circle, true, false, false, -1});
  c.legend.push_back({"one sequence", -1, Mark::none, true, true, false, -1});
  if (unfit) c.legend.push_back({"does not fit (weights + KV)", -1, Mark::circle, false, false, true, -1});
  c.notes.push_back("each point is the decode command at that batch: tokens/s ceilings, not measurements");
  return c;
}

Chart serve_chart(const Subject& first, const std::vector<ServeCurve>& gpus) {
  Chart c;
  std::vector<std::string> names;
  for (const ServeCurve& g : gpus) {
    names.push_back(device_name(g.gpu, g.points.empty() ? 1 : g.points.front().capacity.devices));
  }
  c.title = "Serving: " + first.model_label + " on " + joined_names(names);
  const Workload& w = first.scenario.workload;
  c.subtitle = fmt::format("prompt {}, output {} tokens, continuous batching at steady state; {}", grouped(w.prompt),
                           grouped(w.output), types_line(first));
  Range xr;
  Range yr;
  std::optional<double> target = first.scenario.serving.tpot_target_s;
  if (target) yr.add(*target);
  for (const ServeCurve& g : gpus) {
    for (const ServeResult& s : g.points) {
      if (!s.steady) continue;
      xr.add(s.steady->concurrency);
      yr.add(s.steady->t_step.base());
    }
  }
  c.x = log_axis("sequences in flight (concurrency)", xr.empty() ? 1.0 : xr.lo, xr.empty() ? 10.0 : xr.hi);
  c.y = log_axis("time per output token (ms)", yr.empty() ? 1e-3 : yr.lo / 1.3, yr.empty() ? 1e-2 : yr.hi * 1.3, 1e-3);
  bool past = false;
  for (std::size_t gi = 0; gi < gpus.size(); ++gi) {
    const int col = static_cast<int>(gi);
    Series line{{}, col, false, false, Mark::none, false, "", gpus[gi].gpu};
    for (const ServeResult& s : gpus[gi].points) {
      if (!s.steady) continue;
      const bool beyond = s.max_concurrency && s.steady->concurrency > static_cast<double>(*s.max_concurrency);
      line.xy.emplace_back(s.steady->concurrency, s.steady->t_step.base());
      c.points.push_back({s.steady->concurrency, s.steady->t_step.base(), col, Mark::circle, beyond, "", -1});
      past = past || beyond;
    }
    if (!line.xy.empty()) c.series.push_back(line);
    if (!gpus[gi].points.empty()) {
      const ServeResult& s = gpus[gi].points.front();
      c.legend.push_back({names[gi] + "\n" +
                              (s.max_concurrency ? "the KV budget holds " + grouped(*s.max_concurrency) + " sequences"
                                                 : "no KV budget"),
                          col, Mark::circle, true, false, false, -1});
    }
  }
  if (target) {
    c.series.push_back({{{c.x.min, *target}, {c.x.max, *target}},
                        -1,
                        true,
                        true,
                        Mark::none,
                        false,
                        "TPOT target " + show(*target, Unit::seconds),
                        "target"});
  }
  if (past) c.legend.push_back({"past the KV budget", -1, Mark::circle, false, false, true, -1});
  c.notes.push_back("each point is serve --concurrency N: the steady-state step every user sees (a floor)");
  return c;
}

Chart load_chart(const Subject& first, const std::vector<LoadCurve>& gpus) {
  Chart c;
  std::vector<std::string> names;
  for (const LoadCurve& g : gpus) names.push_back(g.gpu);
  c.title = "Under load: " + first.model_label + " on " + joined_names(names);
  const Workload& w = first.scenario.workload;
  c.subtitle = fmt::format("prompt {}, output {} tokens, simulated continuous batching; {}", grouped(w.prompt),
                           grouped(w.output), types_line(first));
  Range xr;
  Range yr;
  const LoadSpec* spec = nullptr;
  for (const LoadCurve& g : gpus) {
    for (const LoadResult& r : g.points) {
      spec = &r.spec;
      xr.add(r.spec.rate);
      if (r.run.saturated || r.run.measured == 0) continue;
      for (const double v : {r.run.ttft.p50, r.run.ttft.p99, r.run.tpot.p50, r.run.tpot.p99}) {
        if (v > 0.0) yr.add(v);
      }
    }
  }
  if (spec && spec->ttft_target_s) yr.add(*spec->ttft_target_s);
  if (spec && spec->tpot_target_s) yr.add(*spec->tpot_target_s);
  c.x = log_axis("requests a second", xr.empty() ? 1.0 : xr.lo, xr.empty() ? 10.0 : xr.hi);
  c.y = log_axis("latency (ms)", yr.empty() ? 1e-3 : yr.lo / 1.3, yr.empty() ? 1e-2 : yr.hi * 1.3, 1e-3);
  bool saturated = false;
  for (std::size_t gi = 0; gi < gpus.size(); ++gi) {
    const int col = static_cast<int>(gi);
    // TTFT with circles, TPOT with squares; p50 solid, p99 dashed.
    struct Metric {
      double LatencyDistribution::*q;
      const LatencyDistribution LoadRun::*d;
      Mark mark;
      bool dashed;
    };
    constexpr std::array<Metric, 4> kMetrics = {{{&LatencyDistribution::p50, &LoadRun::ttft, Mark::circle, false},
                                                 {&LatencyDistribution::p99, &LoadRun::ttft, Mark::circle, true},
                                                 {&LatencyDistribution::p50, &LoadRun::tpot, Mark::square, false},
                                                 {&LatencyDistribution::p99, &LoadRun::tpot, Mark::square, true}}};
    for (const Metric& m : kMetrics) {
      // One label an accelerator, at the end of its TTFT p50 line.
      const bool first_line = &m == kMetrics.data();
      Series line{{}, col, m.dashed, false, m.mark, false, "", first_line ? gpus[gi].gpu : std::string()};
      for (const LoadResult& r : gpus[gi].points) {
        if (r.run.saturated || r.run.measured == 0) continue;
        const double v = (r.run.*m.d).*m.q;
        if (v > 0.0) line.xy.emplace_back(r.spec.rate, v);
      }
      if (!line.xy.empty()) c.series.push_back(line);
    }
    for (const LoadResult& r : gpus[gi].points) {
      if (!r.run.saturated) continue;
      saturated = true;
      c.points.push_back({r.spec.rate, c.y.min, col, Mark::cross, false, "", -1});
    }
    c.legend.push_back({names[gi], col, Mark::none, true, false, false, -1});
  }
  c.legend.push_back({"TTFT", -1, Mark::circle, false, false, false, -1});
  c.legend.push_back({"TPOT", -1, Mark::square, false, false, false, -1});
  c.legend.push_back({"p50", -1, Mark::none, true, false, false, -1});
  c.legend.push_back({"p99", -1, Mark::none, true, true, false, -1});
  if (saturated) c.legend.push_back({"saturated: no steady state", -1, Mark::cross, false, false, false, -1});
  const auto target = [&](std::optional<double> t, const char* what) {
    if (!t) return;
    c.series.push_back({{{c.x.min, *t}, {c.x.max, *t}},
                        -1,
                        true,
                        true,
                        Mark::none,
                        false,
                        fmt::format("{} target {}", what, show(*t, Unit::seconds)),
                        fmt::format("{} target", what)});
  };
  if (spec) {
    target(spec->ttft_target_s, "TTFT");
    target(spec->tpot_target_s, "TPOT");
  }
  c.notes.push_back("each point is serve --rate R: a simulated server's percentiles over its measured requests");
  return c;
}

}  // namespace roofline::format::plot
