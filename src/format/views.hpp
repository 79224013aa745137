// Views: one per result, each a field table over (resolved inputs, result). Commands compose them.
#pragma once

#include "format/field.hpp"
#include "format/report.hpp"
#include "format/subject.hpp"

#include "roofline/analysis.hpp"
#include "roofline/answers.hpp"

namespace roofline::format {

/// A report with the headline, the inputs echo, the CSV identity columns, notes and warnings.
/// Only the inputs the command reads (in.reads) are shown; the JSON echo is in.inputs.
Report start_report(const char* command, const Subject& in, const ViewOptions& view);

void add_params(Report& rep, const Subject& in, const ParamsResult& r, const ViewOptions& view, bool tables);
void add_flops(Report& rep, const Subject& in, const FlopsResult& r, const ViewOptions& view);
void add_kv(Report& rep, const Subject& in, const KvResult& r, const ViewOptions& view, bool tables);
void add_elementwise(Report& rep, const Subject& in, const ElementwiseResult& r, const ViewOptions& view);
void add_hardware(Report& rep, const Subject& in, const HardwareResult& r, const ViewOptions& view);
void add_capacity(Report& rep, const Subject& in, const CapacityResult& r, const ViewOptions& view);
void add_decode(Report& rep, const Subject& in, const DecodeResult& r, const ViewOptions& view);
void add_prefill(Report& rep, const Subject& in, const PrefillResult& r, const ViewOptions& view);
void add_serve(Report& rep, const Subject& in, const ServeResult& r, const ViewOptions& view);
void add_deployment(Report& rep, const Subject& in, const DeploymentResult& r, const ViewOptions& view);
void add_plan(Report& rep, const std::vector<PlanOption>& options, const PlanInputs& in, const ViewOptions& view);
void add_speculative(Report& rep, const Subject& in, const SpeculativeResult& r, const ViewOptions& view);
void add_load(Report& rep, const Subject& in, const LoadResult& r, const ViewOptions& view);
void add_train(Report& rep, const Subject& in, const TrainResult& r, const ViewOptions& view);
/// train --compute-budget: the budget sized under every fit (section compute_optimal, table scaling_fits).
void add_compute_optimal(Report& rep, const Subject& in, const SizedBudget& b, const ViewOptions& view);
/// train --best-layout: the search's best layout, what it held and tried, and the runner-ups.
void add_layout_search(Report& rep, const Subject& in, const LayoutSearch& s, const ViewOptions& view);
/// layer: the pass's totals (unfused and fused), one table per layer kind and one for the head.
void add_layer(Report& rep, const Subject& in, const LayerResult& r, const ViewOptions& view);
/// serve through an explicit layout: its steady state (section "steady_state_layout").
void add_layout_steady(Report& rep, const Subject& in, const LayoutSteadyState& r, const ViewOptions& view);
/// "the KV budget", "the TPOT target", ...: what limits a server's concurrency.
std::string serve_limit_name(ServeLimit l);

/// "none", "selective" or "full": a recomputation as train's tables print it.
std::string recompute_name(Recompute r);
/// The same subject read at another scenario (train --best-layout: the layout the search chose).
Subject with_scenario(const Subject& given, const Scenario& at);
/// A bandwidth as the notes print it ("450.0 GB/s").
std::string rate_text(units::BytesPerSecond b);
/// Where a collective group's members sit on a topology and what each link gives it.
std::string group_placement_text(const Topology& t, const GroupLinks& g, std::string_view what);
/// The group's bus bandwidth with its numbers: 2(n-1)/n / max(2(k-1)/k / B_in, 2(m-1)/m / (k B_out)).
std::string bus_bandwidth_text(const GroupLinks& g);
/// The verdict: the command's one fit and its basis (section "fit").
void add_fit(Report& rep, const Fit& fit, const ViewOptions& view);
/// "pooled", "per_device" or "training", as the fit section's basis reads.
const char* fit_basis_name(FitBasis b);
/// The notes about the model itself (multi-token-prediction layers, checkpoint tensors).
void add_model_notes(Report& rep, const Subject& in);

// --- sweeps: a compact row per point ------------------------------------------------------------

/// A column of a sweep table after its axes: `key` is the single run's "section.key" in JSON and
/// CSV, and the cell is that field's own value. The columns are the fields flagged for the sweep
/// (in_sweep), in the order the command's sweep_figures() reads the tables.
struct SweepColumn {
  std::string key;
  const char* label;
};

/// The figures a sweep table shows of one point, with what the sweep's notes need.
struct SweepFigures {
  const std::vector<SweepColumn>* columns = nullptr;  ///< the command's columns (the same at every point)
  std::vector<Cell> cells;                            ///< one per column
  std::optional<Fit> fit;                             ///< the answer's verdict, for --require-fit
  std::optional<bool> compute_bound;                  ///< decode without a layout: the step is compute-bound
  std::vector<std::string> warnings;                  ///< the ones a view adds to the inputs' warnings
  /// decode: where the step turns compute-bound and how many sequences the KV budget holds.
  struct Knee {
    std::int64_t context = 0;
    bool has_peak = false;
    std::optional<std::int64_t> compute_bound_batch;
    std::optional<std::int64_t> kv_batch_cap;  ///< nullopt: no KV at this context, so no cap
  };
  std::optional<Knee> knee;
  /// The knee's compute-bound batch is wanted (a table's notes and marks); a streamed line shows
  /// none, so its analysis skips the searches.
  bool knee_wanted = true;
};

/// A sweep table's cells from field tables: every field that carries the table's bit, in order.
/// The columns are recorded by the first walk of each table's bit that completes (a walk that throws
/// records none) and are the same at every point (a table a point lacks gives n/a cells: none()).
class SweepCells {
 public:
  SweepCells(unsigned bit, SweepFigures& f);
  ~SweepCells();
  SweepCells(const SweepCells&) = delete;
  SweepCells& operator=(const SweepCells&) = delete;
  SweepCells(SweepCells&&) = delete;
  SweepCells& operator=(SweepCells&&) = delete;
  template <typename C>
  SweepCells& add(const char* section, const std::vector<Field<C>>& fields, const C& c) {
    for (const Field<C>& field : fields) {
      if ((field.sweep & bit_) == 0U) continue;
      f_.cells.push_back(cell_of(field, c));
      if (recording_) record(section, field.key, field.column, field.layout_column);
    }
    return *this;
  }
  template <typename C>
  SweepCells& none(const char* section, const std::vector<Field<C>>& fields) {
    for (const Field<C>& field : fields) {
      if ((field.sweep & bit_) == 0U) continue;
      f_.cells.emplace_back();
      if (recording_) record(section, field.key, field.column, field.layout_column);
    }
    return *this;
  }

 private:
  void record(const char* section, const char* key, const char* label, const char* layout_label);
  unsigned bit_;
  SweepFigures& f_;
  std::vector<SweepColumn>* columns_;  ///< the bit's columns, kept for the process
  bool recording_ = false;             ///< none kept yet: this walk records them
  std::vector<SweepColumn> recorded_;
};

/// train --best-layout's sweep columns: the layout and recipe each point chose.
void add_layout_search_cells(SweepCells& s, const Subject& in, const LayoutSearch& search);

/// The cells other views' sweeps read: the KV cache, a layout, a layout's steady state, the verdict.
void sweep_cells(SweepCells& s, const Subject& in, const KvResult& r);
void sweep_cells(SweepCells& s, const Subject& in, const DeploymentResult& r);
void sweep_cells(SweepCells& s, const Subject& in, const std::optional<LayoutSteadyState>& r);
void sweep_cells(SweepCells& s, const Subject& in, const LoadResult& r);
void sweep_cells(SweepCells& s, const Fit& fit);
void sweep_cells(SweepCells& s, const std::optional<Fit>& fit);  ///< n/a cells without a verdict

void sweep_figures(const Subject& in, const ParamsResult& r, SweepFigures& f);
void sweep_figures(const Subject& in, const FlopsResult& r, SweepFigures& f);
void sweep_figures(const Subject& in, const KvResult& r, SweepFigures& f);
// The commands whose answer has a fit: the "fits" column and f.fits are the answer's verdict, and
// under an explicit layout the columns are the layout's (its step, its memory per device).
void sweep_figures(const Subject& in, const MemoryAnswer& a, SweepFigures& f);
void sweep_figures(const Subject& in, const DecodeAnswer& a, SweepFigures& f);
void sweep_figures(const Subject& in, const PrefillAnswer& a, SweepFigures& f);
void sweep_figures(const Subject& in, const ServeAnswer& a, SweepFigures& f);
void sweep_figures(const Subject& in, const TrainAnswer& a, SweepFigures& f);
/// report: the KV per sequence, and with an accelerator the decode step, its rate, the TTFT floor
/// and the fit (n/a without one).
void sweep_figures(const Subject& in, const ReportAnswer& a, SweepFigures& f);

/// Warnings a training result raises (a measured rate past the peak), for add_train and sweeps.
void train_warnings(const TrainResult& r, const TrainingInputs& in, std::vector<std::string>& warnings);

// --- --brief: the one-screen answer ------------------------------------------------------------

/// A command's headline figures: the rows of its full report whose field carries the command's bit
/// (Field::brief, set where the field is declared, as `in_brief(kBriefX, {...})`). brief() copies
/// those rows, so a brief value, its label, note and --explain text are the full output's own.
struct Brief {
  const char* command;
  unsigned bit;  ///< one of the kBrief bits
};

extern const Brief kReportBrief;   // device_views.cpp
extern const Brief kMemoryBrief;   // device_views.cpp
extern const Brief kDecodeBrief;   // device_views.cpp
extern const Brief kPrefillBrief;  // device_views.cpp
extern const Brief kServeBrief;    // device_views.cpp
extern const Brief kParamsBrief;   // params_view.cpp
extern const Brief kFlopsBrief;    // flops_view.cpp
extern const Brief kKvBrief;       // kv_view.cpp
extern const Brief kTrainBrief;    // train_view.cpp
extern const Brief kLayerBrief;    // layer_view.cpp
extern const Brief kGemmBrief;     // listing_views.cpp

/// The full report cut to the brief's rows, in the report's order (a section's rows under its
/// title), compact and without notes. A section the report does not hold (report without --gpu has
/// no decode section) is left out; a row absent for this model stays absent (an empty CSV cell).
Report brief(const Report& full, const Brief& b);

Report gemm_report(const GemmResult& r, const std::optional<HardwareConfig>& gpu, std::string_view gpu_requested,
                   const ViewOptions& view);
}  // namespace roofline::format
