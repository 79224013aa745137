// compare: one question answered for several accelerators or models, side by side. Each column is
// the single command's own Report for that accelerator or model; a row is one of its fields, a cell
// that field's value in that column, and a ratio is a column's number over the first column's.
// Nothing is computed here but those quotients.
#pragma once

#include "format/report.hpp"
#include "format/views.hpp"

#include <optional>
#include <string>
#include <vector>

namespace roofline::format {

/// The list the columns come from: several accelerators for one model, or several models.
enum class CompareAxis { gpu, model };

struct ComparedColumn {
  std::string name;  ///< the column's header: the accelerator's or the model's preset name
  Report report;     ///< the single command's report for this column, as that command prints it
};

struct Comparison {
  std::string question;  ///< the command compared ("decode")
  CompareAxis axis = CompareAxis::gpu;
  std::vector<ComparedColumn> columns;  ///< two or more; the ratios are over the first
  const Brief* brief = nullptr;         ///< --brief: only the question's headline rows
};

/// One figure across the columns.
struct ComparedRow {
  std::string section;  ///< the section's key in the single command's results
  std::string title;    ///< the section's title, as the columns share it
  std::string key;      ///< the row's key in that section
  std::string label;    ///< its label, as the columns share it (see shared_text in compare.cpp)
  Unit unit = Unit::none;
  std::vector<Value> values;                  ///< one per column; monostate where a column lacks the row
  std::vector<std::optional<double>> ratios;  ///< one per column: its number over the first column's
};

/// The figures, each row once in the order the single reports print them (a row only some columns
/// have is placed after the row it follows there); under --brief, the brief's rows in its order.
std::vector<ComparedRow> compared_rows(const Comparison& c);

/// The columns' notes or warnings: one every column has once, any other prefixed by its column's name.
std::vector<std::string> compared_messages(const Comparison& c, std::vector<std::string> Report::*member);

/// The comparison in a format: table and Markdown a row per figure and a column per accelerator or
/// model with each column's ratio beside it; CSV the same with keys; JSON an array of the single
/// commands' results, each with its ratios (docs/json.md). No I/O.
std::string render(const Comparison& c, const RenderOptions& o);

}  // namespace roofline::format
