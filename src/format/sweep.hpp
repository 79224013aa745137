// A sweep's documents, one point at a time so a large sweep streams: the JSON document (its
// results an array of points, each the single run's sections) and the CSV rows (the single run's
// columns after the swept inputs). Tables and Markdown are a Report with one table (cli/sweep.cpp).
#pragma once

#include "format/report.hpp"
#include "format/views.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace roofline::format {

/// A point: each swept input's flag name and its value there, in the order of the axes.
using SweepPoint = std::vector<std::pair<std::string, Value>>;

/// The JSON document of a sweep around its points: `head` runs up to the opening of the results
/// array and `tail` from its closing; keys stay sorted as in a single run's document. `first` is
/// the first point's report, whose inputs the document echoes.
struct SweepJsonFrame {
  std::string head;
  std::string tail;
};
SweepJsonFrame sweep_json_frame(const Report& first, const std::vector<std::string>& axes, std::int64_t points,
                                const std::vector<std::string>& notes, const std::vector<std::string>& warnings);

/// One element of the results array, indented for it, without a separator: the point, the single
/// run's results, and its notes after the first `skip_notes` (the document holds those once).
std::string sweep_json_point(const SweepPoint& point, const Report& r, std::size_t skip_notes, bool explain = false);

/// One CSV row of a sweep: a `point.<flag>` column per swept input, then the single run's columns;
/// the header line first when `header`.
std::string sweep_csv_row(const SweepPoint& point, const Report& r, bool header);

/// The note under a decode sweep for one value of the other axes (`where`, e.g. "context 8,192"):
/// the batch from which the step is compute-bound and the batch the KV budget holds.
std::string knee_note(const std::string& where, const SweepFigures::Knee& k);

}  // namespace roofline::format
