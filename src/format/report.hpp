// Report: the one result model of every command, rendered as a table, JSON, CSV or Markdown.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace roofline::format {

/// How a value is displayed; JSON always carries base SI units, named by the key's suffix.
enum class Unit {
  none,   ///< plain number
  count,  ///< exact integer (parameters, elements)
  bytes,
  bytes_per_s,
  flop,
  flop_per_s,
  flop_per_byte,
  seconds,
  per_s,  ///< tokens/s
  tokens,
  sequences,
  fraction,  ///< shown as a percentage
  ratio,     ///< shown as "x"
  watts,
  money,  ///< a cost in --price's currency: separators from 1,000 up, cents below
  text,
  boolean,
};

using Value = std::variant<std::monostate, std::int64_t, double, bool, std::string>;

/// The key, citation and formula are the field table's own text, static for the program's life
/// (a batch line builds dozens of rows, so they are not copied).
struct Row {
  std::string_view key;  ///< JSON key with the unit suffix, e.g. "kv_cache_bytes_per_token"
  std::string label;     ///< table label
  Value value;
  Unit unit = Unit::none;
  std::string_view formula_id;  ///< citation key, e.g. "S000-eq1.1"
  std::string_view formula;     ///< the formula in the source's symbols
  std::string substituted;      ///< the formula with values substituted, for --explain
  std::string note;             ///< short text beside the value
  /// Not applicable to this model or run: left out of the table and JSON, an empty CSV cell, so
  /// the CSV rows of a loop over models keep one set of columns.
  bool absent = false;
  unsigned brief = 0;  ///< the commands whose --brief shows it (its field's bits)
};

struct Section {
  std::string key;
  std::string title;
  std::vector<Row> rows;
};

struct Column {
  std::string key;
  std::string label;
  Unit unit = Unit::none;
  bool machine_only = false;  ///< in JSON and CSV, left out of the table and Markdown views
  bool right = false;         ///< every cell right-aligned in the table, text too (else numbers only)
};

struct Table {
  std::string key;
  std::string title;
  std::vector<Column> columns;
  std::vector<std::vector<Value>> rows;
  /// One per row, or empty: a cell in a column of Unit::none shows in its row's unit (compare's rows
  /// are figures of different units, its columns accelerators or models).
  std::vector<Unit> row_units = {};
  /// The leading columns that name a row (a sweep's axes, a plan's accelerator): a table wider than
  /// the width is shown in blocks of columns, each led by these.
  std::size_t key_columns = 1;
};

/// The unit a table cell is shown in: its column's, or its row's where the column has none.
inline Unit cell_unit(const Table& t, std::size_t row, std::size_t column) {
  const Unit u = t.columns[column].unit;
  return u == Unit::none && row < t.row_units.size() ? t.row_units[row] : u;
}

struct Report {
  std::string command;
  std::string headline;                          ///< lines describing the inputs, for the table view
  std::shared_ptr<const nlohmann::json> inputs;  ///< the resolved inputs echoed in JSON
  /// Identifying columns of the one flat CSV row (model, accelerator, workload inputs).
  std::vector<std::pair<std::string, Value>> csv_inputs;
  std::vector<Section> sections;
  std::vector<Table> tables;
  std::vector<std::string> notes;
  std::vector<std::string> warnings;  ///< also printed on stderr
  /// --brief: the table runs the sections together (each title, then its rows, no blank line) and
  /// Markdown makes them one table with a row per title, so the answer fits one screen.
  bool compact = false;
  std::string currency;  ///< shown beside each cost in a table and Markdown ("" when --price named none)
};

enum class UnitSystem { si, iec };
enum class OutputFormat { table, json, csv, markdown, jsonl };

struct RenderOptions {
  OutputFormat format = OutputFormat::table;
  UnitSystem units = UnitSystem::si;
  bool explain = false;
  bool color = false;
  bool csv_header = true;  ///< --no-header omits it, so a shell loop's rows concatenate
  /// The table view's width (COLUMNS; 100 when unset): the headline, the notes beside values, the
  /// notes and --explain wrap to it. A table of columns is kept whole.
  std::size_t width = 100;
};

inline constexpr int kSchemaVersion = 1;

/// Renders a report; the string ends with a newline. No I/O.
std::string render(const Report& r, const RenderOptions& o);

/// Human display of one value: thousands separators for counts, at most 4 significant digits with a
/// decimal (si) or binary (iec, byte sizes only; bandwidth stays decimal) prefix for measures.
std::string display(const Value& v, Unit u, UnitSystem units);

/// A whole number with thousands separators and its sign: "-1,234,567". Never fmt::group_digits
/// on a signed value directly (fmt 9.1 prints a negative one as its unsigned two's complement).
std::string grouped(std::int64_t v);

/// A number rounded to a whole one with separators; past 1e15 (or not finite) sig4's notation,
/// never a wrapped 64-bit integer.
std::string grouped_number(double x);

/// At most 4 significant digits, fixed notation, no exponent for |x| in [1e-3, 1e6).
std::string sig4(double x);

}  // namespace roofline::format
