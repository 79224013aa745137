// The charts `roofline plot` draws, built from analysis results: every coordinate is a member of an
// engine result (roofline/roofline_points.hpp composes the roofline's), and every figure in a label
// is that member shown by display(). Nothing here computes a quantity.
#pragma once

#include "format/plot.hpp"
#include "format/report.hpp"
#include "format/subject.hpp"

#include "roofline/analysis.hpp"
#include "roofline/roofline_points.hpp"

#include <optional>
#include <vector>

namespace roofline::format::plot {

/// One accelerator's roofline and the workloads placed on it (the same workloads on each).
struct RooflineSeries {
  RooflineCeilings roof;
  std::vector<RooflinePoint> points;
};

/// The roofline of one or several accelerators: the bandwidth slope, a roof per data type (the
/// compute type's solid, the others dashed), the ridge points, and the points on each. Points are
/// labelled once (on the first accelerator); operators with no FLOPs are named in a note.
/// `first` is the scenario on the first accelerator, for the title and the workload line.
Chart roofline_chart(const Subject& first, const std::vector<RooflineSeries>& gpus);

/// One accelerator's capacity checks (one per batch).
struct MemorySeries {
  std::string gpu;  ///< preset name
  std::vector<MemoryBreakdown> checks;
};

/// A stacked bar per accelerator and batch: weights, KV cache, reserve and what is left, against the
/// capacity.
Chart memory_chart(const Subject& first, const std::vector<MemorySeries>& gpus, UnitSystem units);

/// One accelerator's training memory per device, one breakdown per micro-batch size.
struct TrainMemorySeries {
  std::string gpu;                                                    ///< preset name
  std::vector<std::pair<std::int64_t, TrainMemoryBreakdown>> checks;  ///< (micro-batch b, its device)
};

/// A stacked bar per accelerator and micro-batch, one device's memory in training: weights,
/// gradients, optimizer states, activations (or the optimizer step's temporary, whichever is
/// larger), reserve and what is left, against one device's capacity.
Chart train_memory_chart(const Subject& first, const std::vector<TrainMemorySeries>& gpus, UnitSystem units);

/// One accelerator's decode steps at each batch.
struct DecodeCurve {
  std::string gpu;
  std::vector<DecodeResult> steps;
};

/// Decode tokens/s against the batch: the aggregate (solid) and per-sequence (dashed) ceilings;
/// hollow marks where the weights and the batch's KV do not fit.
Chart decode_chart(const Subject& first, const std::vector<DecodeCurve>& gpus);

/// One accelerator's server at each concurrency.
struct ServeCurve {
  std::string gpu;
  std::vector<ServeResult> points;  ///< each with its steady state
};

/// A server's TPOT against the sequences in flight (continuous batching at steady state); hollow
/// marks past the KV budget; the --tpot target as a line.
Chart serve_chart(const Subject& first, const std::vector<ServeCurve>& gpus);

/// One accelerator's simulated server at each request rate (serve --rate).
struct LoadCurve {
  std::string gpu;
  std::vector<LoadResult> points;
};

/// TTFT and TPOT at p50 (solid) and p99 (dashed) against the request rate; a saturated rate has no
/// latency and is marked on the axis; the --ttft and --tpot targets as lines.
Chart load_chart(const Subject& first, const std::vector<LoadCurve>& gpus);

}  // namespace roofline::format::plot
