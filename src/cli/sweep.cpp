// The sweep loop: pass 1 resolves and analyses every point (its problems stop the sweep before any
// output) and keeps what the table and the notes need; a table or Markdown is then rendered whole,
// and JSON and CSV run each point's single-run report in pass 2 and stream as they go.
#include "cli/sweep.hpp"

#include "format/field.hpp"
#include "format/jsonl.hpp"
#include "format/sweep.hpp"
#include "format/views.hpp"

#include "roofline/analysis.hpp"
#include "roofline/errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>
#include <sstream>
#include <unordered_set>

namespace roofline::cli {
namespace {

using format::grouped;
using format::SweepFigures;
using format::Value;

// The grid of the axes as an odometer: the last axis moves fastest, and moving sets in the spec
// only the inputs that changed, each through its flag's own parser.
class Grid {
 public:
  explicit Grid(const std::vector<io::SweepAxis>& axes) : axes_(axes), at_(axes.size(), 0) {}

  void first(io::ScenarioSpec& spec) {
    std::fill(at_.begin(), at_.end(), 0);
    for (const io::SweepAxis& a : axes_) set(spec, a, 0);
  }

  void next(io::ScenarioSpec& spec) {
    for (std::size_t i = axes_.size(); i-- > 0;) {
      const io::SweepAxis& a = axes_[i];
      at_[i] = at_[i] + 1 < a.texts.size() ? at_[i] + 1 : 0;
      set(spec, a, at_[i]);
      if (at_[i] != 0) return;
    }
  }

  [[nodiscard]] std::size_t size() const { return axes_.size(); }
  [[nodiscard]] std::size_t at(std::size_t axis) const { return at_[axis]; }
  [[nodiscard]] std::size_t length(std::size_t axis) const { return axes_[axis].texts.size(); }
  [[nodiscard]] const char* name(std::size_t axis) const { return axes_[axis].def->name; }

  [[nodiscard]] Value value(std::size_t axis) const {
    const io::SweepAxis& a = axes_[axis];
    if (!a.counts.empty()) return a.counts[at_[axis]];
    return a.texts[at_[axis]];
  }

  [[nodiscard]] format::SweepPoint point() const {
    format::SweepPoint p;
    for (std::size_t i = 0; i < axes_.size(); ++i) p.emplace_back(name(i), value(i));
    return p;
  }

  /// "--batch 32 --context 8192": the point as flags, for errors.
  [[nodiscard]] std::string flags() const {
    std::string s;
    for (std::size_t i = 0; i < axes_.size(); ++i) {
      s += (i == 0 ? "--" : " --") + std::string(name(i)) + " " + axes_[i].texts[at_[i]];
    }
    return s;
  }

 private:
  // An axis at its i-th value, recorded as given so a point's inputs echo is that point's.
  static void set(io::ScenarioSpec& spec, const io::SweepAxis& a, std::size_t i) {
    a.def->set(spec, a.texts[i]);
    io::record_given(spec, *a.def, a.texts[i]);
  }

  const std::vector<io::SweepAxis>& axes_;
  std::vector<std::size_t> at_;
};

// A point's own problem, each line prefixed with the point: "at --tp 3: --gpus: 8 devices ...".
void resolve_at(const Grid& grid, const Command& cmd, const io::ScenarioSpec& spec, io::Resolved& r) {
  const auto prefixed = [&](const Error& e) {
    std::istringstream lines(e.what());
    std::string line;
    std::string out;
    while (std::getline(lines, line)) out += (out.empty() ? "" : "\n") + ("at " + grid.flags() + ": ") + line;
    return out;
  };
  try {
    io::resolve_point(cmd.prepare != nullptr ? cmd.prepare(spec) : spec, r, cmd.training());
  } catch (const UsageError& e) {
    throw UsageError(prefixed(e));
  } catch (const InputError& e) {
    throw InputError(prefixed(e));
  }
}

// Distinct messages in order of first appearance, at most kShown kept, the rest counted.
class Distinct {
 public:
  void add(const std::string& m) {
    if (seen_.size() >= kShown && seen_.count(m) == 0) {
      ++more_;
      if (more_ < kCounted) seen_.insert(m);
      return;
    }
    if (seen_.insert(m).second) kept_.push_back(m);
  }
  [[nodiscard]] std::vector<std::string> list(const char* what) const {
    std::vector<std::string> v = kept_;
    if (more_ > 0) v.push_back(fmt::format("and {} more {} like these, from other points", grouped(more_), what));
    return v;
  }

 private:
  static constexpr std::size_t kShown = 10;
  // Distinct messages remembered for the count; past it each further one counts (an upper bound).
  static constexpr std::int64_t kCounted = 100000;
  std::unordered_set<std::string> seen_;
  std::vector<std::string> kept_;
  std::int64_t more_ = 0;
};

// Every point's verdict, together: the sweep fits when each point does; one unknown makes it unknown.
class Verdicts {
 public:
  void add(const std::optional<Fit>& fit) {
    if (!fit) return;
    if (!all_) {
      all_ = fit;
    } else if (all_->fits && (!fit->fits || !*fit->fits)) {
      all_->fits = fit->fits;
    }
  }
  [[nodiscard]] const std::optional<Fit>& all() const { return all_; }

 private:
  std::optional<Fit> all_;
};

// What pass 1 learns: the rows of a table, the warnings and notes, the fit verdicts, the knee.
struct Pass1 {
  std::vector<std::vector<Value>> rows;  ///< axes, then figures (table and Markdown only)
  const std::vector<format::SweepColumn>* columns = nullptr;
  std::vector<format::Unit> units;  ///< of the figures
  Distinct warnings;
  Distinct notes;  ///< the points' own notes from resolve (devices, defaults)
  Verdicts verdicts;
  std::vector<std::string> knee_notes;
  std::vector<std::string> marks;  ///< per row: "knee", "last fit" or ""
};

// Decode's knee, per value of the other axes: the first row that is compute-bound and the last
// row that fits before one that does not, and the note with the engine's exact figures.
struct KneeGroup {
  std::optional<SweepFigures::Knee> knee;
  std::string where;
  std::optional<std::size_t> first_compute_row;
  std::optional<std::size_t> last_fit_row;
  bool unfit_after_fit = false;
};

class KneeTracker {
 public:
  KneeTracker(const Grid& grid, std::int64_t points) : grid_(grid), points_(static_cast<std::size_t>(points)) {
    for (std::size_t i = 0; i < grid.size(); ++i) {
      if (std::string_view(grid.name(i)) == "batch") batch_ = i;
    }
  }

  void add(std::size_t row, const SweepFigures& f, bool tabular) {
    if (!batch_ || !f.knee) return;
    if (groups_.empty()) groups_.resize(points_ / grid_.length(*batch_));  // one per value of the other axes
    std::size_t id = 0;
    for (std::size_t i = 0; i < grid_.size(); ++i) {
      if (i != *batch_) id = id * grid_.length(i) + grid_.at(i);
    }
    KneeGroup& g = groups_[id];
    if (!g.knee) {
      g.knee = f.knee;
      g.where = where(*f.knee);
    }
    if (!tabular) return;
    if (!g.first_compute_row && f.compute_bound.value_or(false)) g.first_compute_row = row;
    if (f.fit && f.fit->fits.value_or(false)) {
      g.last_fit_row = row;
      g.unfit_after_fit = false;
    } else if (g.last_fit_row) {
      g.unfit_after_fit = true;
    }
  }

  void finish(Pass1& p) const {
    constexpr std::size_t kNotes = 8;
    std::size_t shown = 0;
    for (const KneeGroup& g : groups_) {
      if (!g.knee) continue;
      if (shown++ < kNotes) p.knee_notes.push_back(format::knee_note(g.where, *g.knee));
      if (p.marks.empty()) continue;
      if (g.first_compute_row) p.marks[*g.first_compute_row] = "knee";
      if (g.last_fit_row && g.unfit_after_fit) {
        std::string& m = p.marks[*g.last_fit_row];
        m += m.empty() ? "last fit" : ", last fit";
      }
    }
    if (shown > kNotes) {
      p.knee_notes.push_back(fmt::format("and {} more values of the other inputs; sweep fewer to see each knee",
                                         grouped(static_cast<std::int64_t>(shown - kNotes))));
    }
  }

 private:
  // "context 8,192, kv-dtype fp8": the other axes' values, the context first when it is fixed.
  [[nodiscard]] std::string where(const SweepFigures::Knee& k) const {
    std::string s;
    bool context_swept = false;
    for (std::size_t i = 0; i < grid_.size(); ++i) {
      if (i == *batch_) continue;
      const Value v = grid_.value(i);
      const auto* n = std::get_if<std::int64_t>(&v);
      s += (s.empty() ? "" : ", ") + std::string(grid_.name(i)) + " " +
           (n != nullptr ? grouped(*n) : std::get<std::string>(v));
      context_swept = context_swept || std::string_view(grid_.name(i)) == "context";
    }
    if (!context_swept) s = "context " + grouped(k.context) + (s.empty() ? "" : ", ") + s;
    return s;
  }

  const Grid& grid_;
  std::size_t points_;
  std::optional<std::size_t> batch_;
  std::vector<KneeGroup> groups_;
};

// Pass 1: every point resolved and analysed, in grid order.
Pass1 check_points(const Command& cmd, Request& req, io::ScenarioSpec& spec, Grid& grid, std::int64_t points,
                   io::Resolved& r, bool tabular) {
  Pass1 p;
  KneeTracker knee(grid, points);
  SweepFigures f;
  grid.first(spec);
  if (tabular) p.rows.reserve(static_cast<std::size_t>(points));
  for (std::int64_t i = 0; i < points; ++i) {
    if (i > 0) grid.next(spec);
    resolve_at(grid, cmd, spec, r);
    for (const std::string& w : r.warnings) p.warnings.add(w);
    for (std::size_t n = r.fixed_notes; n < r.notes.size(); ++n) p.notes.add(r.notes[n]);
    if (cmd.cells != nullptr) {
      f.fit.reset();
      f.knee.reset();
      f.compute_bound.reset();
      f.warnings.clear();
      cmd.cells(r, f);
      for (const std::string& w : f.warnings) p.warnings.add(w);
      p.verdicts.add(f.fit);
    } else {
      const format::ViewOptions saved = req.view;
      req.view.echo_inputs = false;
      const Run run = cmd.run(req, &r);
      req.view = saved;
      for (std::size_t w = r.warnings.size(); w < run.report.warnings.size(); ++w)
        p.warnings.add(run.report.warnings[w]);
      p.verdicts.add(run.fit);
    }
    if (cmd.cells == nullptr) continue;
    knee.add(static_cast<std::size_t>(i), f, tabular);
    if (!tabular) continue;
    if (p.columns == nullptr) {
      p.columns = f.columns;
      for (const format::Cell& c : f.cells) p.units.push_back(c.unit);
    }
    std::vector<Value> row;
    row.reserve(grid.size() + f.cells.size());
    for (std::size_t a = 0; a < grid.size(); ++a) row.push_back(grid.value(a));
    for (format::Cell& c : f.cells) row.push_back(std::move(c.value));
    p.rows.push_back(std::move(row));
  }
  if (tabular) p.marks.assign(p.rows.size(), std::string());
  knee.finish(p);
  return p;
}

std::string axes_text(const std::vector<io::SweepAxis>& axes) {
  std::string s;
  for (const io::SweepAxis& a : axes) s += (s.empty() ? "--" : " x --") + std::string(a.def->name);
  return s;
}

// The table and Markdown: the headline of the inputs that do not vary, one row per point, notes.
std::string render_table(const Command& cmd, const std::vector<io::SweepAxis>& axes, const io::Resolved& first,
                         Pass1& p, const format::RenderOptions& o) {
  // The headline names what every point shares: the swept types and devices are in the rows.
  std::uint64_t groups = cmd.groups;
  io::Resolved shared = first;
  for (const io::SweepAxis& a : axes) {
    if (a.def->group == io::kWeights || a.def->group == io::kKvDtype) groups &= ~static_cast<unsigned>(a.def->group);
    if (a.def->group == io::kDevices) shared.scenario.deployment.devices = 1;
  }
  const format::ViewOptions view{.echo_inputs = false};
  const format::Report head =
      format::start_report(std::string(cmd.name).c_str(), subject(shared, {}, groups, view), view);
  format::Report rep;
  rep.command = head.command;
  rep.headline = head.headline;
  format::Table t;
  t.key = "sweep";
  t.key_columns = axes.size();  // a block of a wide table is led by the point's values
  t.title = fmt::format("{} points over {}", grouped(static_cast<std::int64_t>(p.rows.size())), axes_text(axes));
  for (const io::SweepAxis& a : axes) {
    t.columns.push_back({a.def->name, a.def->name, a.counts.empty() ? format::Unit::text : format::Unit::count});
  }
  for (std::size_t c = 0; c < p.columns->size(); ++c) {
    t.columns.push_back({(*p.columns)[c].key, (*p.columns)[c].label, p.units[c]});
  }
  const bool marked = std::any_of(p.marks.begin(), p.marks.end(), [](const std::string& m) { return !m.empty(); });
  if (marked) t.columns.push_back({"mark", "", format::Unit::text});
  t.rows = std::move(p.rows);
  if (marked) {
    for (std::size_t i = 0; i < t.rows.size(); ++i) t.rows[i].emplace_back(p.marks[i]);
  }
  rep.tables.push_back(std::move(t));
  rep.notes.assign(first.notes.begin(), first.notes.begin() + static_cast<std::ptrdiff_t>(first.fixed_notes));
  for (const std::string& n : p.notes.list("notes")) rep.notes.push_back(n);
  for (const std::string& n : p.knee_notes) rep.notes.push_back(n);
  if (marked) {
    rep.notes.emplace_back(
        "knee marks the first row whose step is compute-bound, last fit the last row whose weights and KV fit");
  }
  return format::render(rep, o);
}

// A table explains each point in full: beyond this many, JSON is the form that scales.
constexpr std::int64_t kMaxExplainedPoints = 64;

// Writes as it goes: a sweep of a million points is never held whole.
class Stream {
 public:
  explicit Stream(std::ostream& out) : out_(out) {}
  void add(const std::string& s) {
    buf_ += s;
    if (buf_.size() >= kChunk) flush();
  }
  void flush() {
    out_ << buf_;
    out_.flush();  // a full disk shows only when the stream's buffer is written
    buf_.clear();
    if (!out_) throw std::ios_base::failure("write");
  }

 private:
  static constexpr std::size_t kChunk = std::size_t{1} << 20;
  std::ostream& out_;
  std::string buf_;
};

// Pass 2 for JSON and CSV: each point's single-run report, rendered and written in turn.
void write_points(const Command& cmd, Request& req, const std::vector<io::SweepAxis>& axes, io::ScenarioSpec& spec,
                  Grid& grid, std::int64_t points, io::Resolved& r, const Pass1& p, const SweepOutput& output) {
  Stream s(output.out);
  const bool json = output.render.format == format::OutputFormat::json;
  // CSV and JSON carry keys and values: the labels, notes beside values and formulas a person reads
  // are left unbuilt, unless --explain asks for the formulas.
  const format::ViewOptions saved = req.view;
  req.view.values_only = !output.render.explain;
  std::string tail;
  grid.first(spec);
  for (std::int64_t i = 0; i < points; ++i) {
    if (i > 0) grid.next(spec);
    resolve_at(grid, cmd, spec, r);
    req.view.echo_inputs = json && i == 0;  // the document echoes the first point's inputs, once
    const format::Report report = cmd.run(req, &r).report;
    if (!json) {
      s.add(format::sweep_csv_row(grid.point(), report, i == 0 && output.render.csv_header));
      continue;
    }
    if (i == 0) {
      std::vector<std::string> names;
      for (const io::SweepAxis& a : axes) names.emplace_back(a.def->name);
      std::vector<std::string> notes(r.notes.begin(), r.notes.begin() + static_cast<std::ptrdiff_t>(r.fixed_notes));
      notes.insert(notes.end(), p.knee_notes.begin(), p.knee_notes.end());
      format::SweepJsonFrame frame =
          format::sweep_json_frame(report, names, points, notes, p.warnings.list("warnings"));
      s.add(frame.head + "\n");
      tail = "\n  " + frame.tail;
    }
    s.add(format::sweep_json_point(grid.point(), report, r.fixed_notes, output.render.explain) +
          (i + 1 < points ? ",\n" : ""));
  }
  req.view = saved;
  s.add(tail);
  s.flush();
}

// A table with --explain: after the sweep's rows, each point's own report with its formulas, as
// the point run alone prints it (CSV, like a single run's, carries values only).
void explain_points(const Command& cmd, Request& req, io::ScenarioSpec& spec, Grid& grid, std::int64_t points,
                    io::Resolved& r, const format::RenderOptions& render, Stream& s) {
  grid.first(spec);
  for (std::int64_t i = 0; i < points; ++i) {
    if (i > 0) grid.next(spec);
    resolve_at(grid, cmd, spec, r);
    const format::Report report = cmd.run(req, &r).report;
    const std::string heading = fmt::format("Point {} of {}: {}", grouped(i + 1), grouped(points), grid.flags());
    s.add(render.format == format::OutputFormat::markdown ? "\n## " + heading + "\n\n" : "\n" + heading + "\n\n");
    s.add(format::render(report, render));
  }
}

// "\rroofline: 1,048,576 of 10,000,000 points" on a terminal's stderr, overwritten in place.
class Progress {
 public:
  Progress(std::ostream& err, bool on, std::int64_t points) : err_(err), on_(on), points_(points) {}
  void at(std::int64_t done) {
    if (!on_ || (done & kEvery) != 0) return;
    err_ << "\rroofline: " << grouped(done) << " of " << grouped(points_) << " points" << std::flush;
    shown_ = true;
  }
  void done() {
    if (shown_) err_ << "\r\033[K" << std::flush;
  }

 private:
  static constexpr std::int64_t kEvery = (std::int64_t{1} << 18) - 1;
  std::ostream& err_;
  bool on_;
  std::int64_t points_;
  bool shown_ = false;
};

// CSV's rows carry the figures too: the header names the point's axes (point.NAME), the figure
// keys and a last `error` column, empty on a point that answered. Until a point answers, the
// figure columns are unknown: the failed points before it wait, then follow the header.
class CsvRows {
 public:
  CsvRows(const Grid& grid, bool header) : grid_(grid), header_(header) {}

  void figures(std::string& line, const std::vector<Value>& point, const SweepFigures& f) {
    if (columns_ == nullptr) {
      columns_ = f.columns;
      if (header_) line += header_line();
      for (const std::string& p : pending_) line += p;
      pending_.clear();
    }
    append_point(line, point);
    for (const format::Cell& c : f.cells) {
      line += ',';
      format::append_csv_value(line, c.value);
    }
    line += ",\n";
  }

  void error(std::string& line, const std::vector<Value>& point, std::string_view message) {
    std::string row;
    append_point(row, point);
    const std::size_t n = columns_ != nullptr ? columns_->size() : 0;
    row.append(n, ',');
    row += ',';
    format::append_csv_value(row, std::string(message));
    row += '\n';
    if (columns_ != nullptr) {
      line += row;
    } else {
      pending_.push_back(std::move(row));
    }
  }

  // The points that all failed: a header without figure columns, then their rows.
  void finish(std::string& line) {
    if (columns_ != nullptr) return;
    static const std::vector<format::SweepColumn> kNone;
    columns_ = &kNone;
    if (header_) line += header_line();
    for (const std::string& p : pending_) line += p;
    pending_.clear();
  }

 private:
  void append_point(std::string& line, const std::vector<Value>& point) const {
    for (std::size_t a = 0; a < point.size(); ++a) {
      if (a > 0) line += ',';
      format::append_csv_value(line, point[a]);
    }
  }
  [[nodiscard]] std::string header_line() const {
    std::string h;
    for (std::size_t a = 0; a < grid_.size(); ++a) h += (a > 0 ? ",point." : "point.") + std::string(grid_.name(a));
    for (const format::SweepColumn& c : *columns_) h += "," + std::string(c.key);
    return h + ",error\n";
  }

  const Grid& grid_;
  bool header_;
  const std::vector<format::SweepColumn>* columns_ = nullptr;
  std::vector<std::string> pending_;
};

// --format jsonl, and CSV for a command with sweep figures: each point's line as soon as it is
// computed, the sweep's figures (the table's columns; a jsonl command without them gives its whole
// results), in constant memory. A point's problem is its own line ({"point": ..., "error": ...},
// or the CSV row's error column) and the stream goes on; the exit code says so. A problem at the
// first point stops the sweep before anything is written, as a single run's would: it is most
// often in the inputs every point shares.
int stream_lines(const Command& cmd, Request& req, io::ScenarioSpec& spec, Grid& grid, std::int64_t points,
                 io::Resolved& r, const SweepOutput& output) {
  Stream s(output.out);
  Progress progress(output.err, output.progress, points);
  Distinct warnings;
  SweepFigures f;
  std::string line;
  bool failed = false;
  Verdicts verdicts;
  // A line carries values: no labels, notes, formulas or inputs echo to build.
  req.view.values_only = true;
  req.view.echo_inputs = false;
  f.knee_wanted = false;  // no knee notes or marks in a stream
  std::optional<CsvRows> csv;
  if (output.render.format == format::OutputFormat::csv) csv.emplace(grid, output.render.csv_header);
  format::SweepLineKeys keys;
  std::vector<Value> point(grid.size());
  for (std::size_t a = 0; a < grid.size(); ++a) keys.axes.push_back(format::json_key(grid.name(a)));
  grid.first(spec);
  for (std::int64_t i = 0; i < points; ++i) {
    if (i > 0) grid.next(spec);
    line.clear();
    for (std::size_t a = 0; a < grid.size(); ++a) point[a] = grid.value(a);
    try {
      resolve_at(grid, cmd, spec, r);
      for (const std::string& w : r.warnings) warnings.add(w);
      if (cmd.cells != nullptr) {
        f.fit.reset();
        f.knee.reset();
        f.compute_bound.reset();
        f.warnings.clear();
        cmd.cells(r, f);
        for (const std::string& w : f.warnings) warnings.add(w);
        if (csv) {
          csv->figures(line, point, f);
        } else {
          if (keys.columns != f.columns) {
            keys.columns = f.columns;
            keys.figures.clear();
            for (const format::SweepColumn& c : *f.columns) keys.figures.push_back(format::json_key(c.key));
          }
          format::append_sweep_jsonl(line, keys, point, f.cells);
        }
        verdicts.add(f.fit);
      } else {
        const Run run = cmd.run(req, &r);
        format::append_sweep_jsonl_results(line, grid.point(), run.report);
        verdicts.add(run.fit);
      }
    } catch (const Error& e) {
      if (i == 0) throw;  // nothing written yet: a problem at the first point is the sweep's own
      if (csv) {
        csv->error(line, point, e.what());
      } else {
        format::append_sweep_jsonl_error(line, grid.point(), e.what());
      }
      failed = true;
    }
    s.add(line);
    progress.at(i + 1);
  }
  if (csv) {
    line.clear();
    csv->finish(line);
    s.add(line);
  }
  s.flush();
  progress.done();
  if (!output.quiet) {
    for (const std::string& w : warnings.list("warnings")) output.err << "roofline: warning: " << w << "\n";
  }
  if (failed) return 1;
  return output.require_fit ? require_fit_exit(cmd, verdicts.all()) : 0;
}

}  // namespace

int run_sweep(const Command& cmd, Request& req, const std::vector<io::SweepAxis>& axes, const io::PresetRegistry& reg,
              std::istream& in, const SweepOutput& output) {
  const bool streamed =
      output.render.format == format::OutputFormat::jsonl || output.render.format == format::OutputFormat::csv;
  const std::int64_t points = io::sweep_points(axes, streamed ? io::kMaxStreamedPoints : io::kMaxSweepPoints);
  if (points > kAskAbove && !output.yes) {
    throw UsageError("a sweep of " + grouped(points) + " points writes " + grouped(points) +
                     " rows; add --yes to run it");
  }
  io::ScenarioSpec& spec = req.spec;
  const bool tabular =
      output.render.format == format::OutputFormat::table || output.render.format == format::OutputFormat::markdown;
  if (tabular && points > kAskAboveTable && !output.yes) {
    throw UsageError("a table of " + grouped(points) + " rows is held whole to align its columns (about 1.5 kB a " +
                     "row); add --yes to run it, or use --format csv or jsonl, which stream in constant memory");
  }
  if (output.render.explain && output.render.format == format::OutputFormat::jsonl) {
    // A streamed line carries the table's figures, not their formulas: refused, not ignored.
    throw UsageError(
        "--explain: a JSON Lines sweep streams the table's figures without formulas; --format json "
        "gives each point its formulas");
  }
  if (output.render.explain && tabular && points > kMaxExplainedPoints) {
    throw UsageError("--explain with a sweep of " + grouped(points) + " points: a table explains " +
                     grouped(kMaxExplainedPoints) + " points at most; use --format json, where each point carries " +
                     "its formulas");
  }
  if (tabular && cmd.cells == nullptr) {
    throw UsageError("a sweep of " + std::string(cmd.name) + " has no table yet; use --format csv or --format json");
  }
  // The model and the accelerator do not change from point to point: resolved once.
  Grid grid(axes);
  grid.first(spec);
  io::Resolved r = io::resolve_fixed(prepared(cmd, spec), reg, in, cmd.needs_gpu);
  if (output.render.format == format::OutputFormat::jsonl ||
      (output.render.format == format::OutputFormat::csv && cmd.cells != nullptr)) {
    try {
      return stream_lines(cmd, req, spec, grid, points, r, output);
    } catch (const std::ios_base::failure&) {
      output.err << "roofline: error: writing the output failed (disk full or stdout closed?)\n";
      return 1;
    }
  }
  Pass1 p = check_points(cmd, req, spec, grid, points, r, tabular);
  const int exit_code = output.require_fit ? require_fit_exit(cmd, p.verdicts.all()) : 0;
  if (!output.quiet) {
    for (const std::string& w : p.warnings.list("warnings")) output.err << "roofline: warning: " << w << "\n";
  }
  try {
    if (tabular) {
      grid.first(spec);
      resolve_at(grid, cmd, spec, r);  // the first point, for the headline and the fixed notes
      Stream s(output.out);
      s.add(render_table(cmd, axes, r, p, output.render));
      if (output.render.explain) explain_points(cmd, req, spec, grid, points, r, output.render, s);
      s.flush();
    } else {
      write_points(cmd, req, axes, spec, grid, points, r, p, output);
    }
  } catch (const std::ios_base::failure&) {
    output.err << "roofline: error: writing the output failed (disk full or stdout closed?)\n";
    return 1;
  }
  return exit_code;
}

}  // namespace roofline::cli
