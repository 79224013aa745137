// Field tables: a view is a list of fields, each naming its key, label, formula and source, reading
// its value from a typed result member (the display unit comes from the member's type), and
// building its substitution only under --explain from the operands the engine stored.
#pragma once

#include "format/report.hpp"

#include "roofline/misc.hpp"
#include "roofline/units.hpp"
#include "roofline/workload.hpp"

#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace roofline::format {

/// A value with the display unit its type implies.
struct Cell {
  Value value;
  Unit unit = Unit::none;
};

inline Cell cell(units::Bytes v) { return {v.base(), Unit::bytes}; }
inline Cell cell(units::Flop v) { return {v.base(), Unit::flop}; }
inline Cell cell(units::Seconds v) { return {v.base(), Unit::seconds}; }
inline Cell cell(units::FlopPerSecond v) { return {v.base(), Unit::flop_per_s}; }
inline Cell cell(units::BytesPerSecond v) { return {v.base(), Unit::bytes_per_s}; }
inline Cell cell(units::FlopPerByte v) { return {v.base(), Unit::flop_per_byte}; }
inline Cell cell(units::PerSecond v) { return {v.base(), Unit::per_s}; }
inline Cell cell(units::Tokens v) { return {v.base(), Unit::tokens}; }
inline Cell cell(units::TokenCount v) { return {v.base(), Unit::tokens}; }
inline Cell cell(units::Sequences v) { return {v.base(), Unit::sequences}; }
inline Cell cell(units::Fraction v) { return {v.base(), Unit::fraction}; }
inline Cell cell(units::Ratio v) { return {v.base(), Unit::ratio}; }
inline Cell cell(units::Watts v) { return {v.base(), Unit::watts}; }
inline Cell cell(std::int64_t v) { return {v, Unit::count}; }
inline Cell cell(bool v) { return {v, Unit::boolean}; }
inline Cell cell(std::string v) { return {std::move(v), Unit::text}; }
/// A plain number (a quotient such as P_layer / d²).
inline Cell number(double v) { return {v, Unit::none}; }
/// A cost, in the currency --price was given in.
inline constexpr const char* kCurrencyNote =
    "costs are in the currency of --price, per device-hour; roofline assumes none and converts none";
inline Cell money(double v) { return {v, Unit::money}; }
/// The note under a cost: the currency --price named, or that it named none.
inline std::string currency_note(const std::string& currency) {
  return currency.empty() ? std::string(kCurrencyNote)
                          : "costs are in " + currency + ", as --price gave it per device-hour; roofline converts none";
}

/// An unknown value keeps the unit its type would have had; it prints as n/a and JSON null.
template <typename T>
Cell cell(const std::optional<T>& v) {
  if (v) return cell(*v);
  Cell c = cell(T{});
  c.value = std::monostate{};
  return c;
}

/// One row of a view over context C.
template <typename C>
struct Field {
  const char* key;         ///< JSON key with its unit suffix
  const char* label;       ///< table label; label_fn overrides it
  const char* formula_id;  ///< citation key in docs/formulas.md ("" for inputs echoed)
  const char* formula;     ///< the formula in the source's symbols
  Cell (*value)(const C&);
  std::string (*substitute)(const C&) = nullptr;  ///< the formula with the operands the engine used
  std::string (*note)(const C&) = nullptr;
  bool (*present)(const C&) = nullptr;  ///< nullptr: always
  std::string (*label_fn)(const C&) = nullptr;
  unsigned brief = 0;                   ///< the commands whose --brief shows this row (kBrief bits)
  unsigned sweep = 0;                   ///< the sweep tables that show this row as a column (kSweep bits)
  const char* column = nullptr;         ///< the column's label in a sweep table
  const char* layout_column = nullptr;  ///< its label under an explicit layout, where it differs
};

/// The sweep tables that show a row as a column: one bit per command, and one per command under
/// an explicit layout where its columns are the layout's (in_sweep).
enum SweepOf : unsigned {
  kSweepReport = 1U << 0U,
  kSweepParams = 1U << 1U,
  kSweepFlops = 1U << 2U,
  kSweepKv = 1U << 3U,
  kSweepMemory = 1U << 4U,
  kSweepMemoryLayout = 1U << 5U,
  kSweepDecode = 1U << 6U,
  kSweepDecodeLayout = 1U << 7U,
  kSweepPrefill = 1U << 8U,
  kSweepServe = 1U << 9U,
  kSweepServeLayout = 1U << 10U,
  kSweepTrain = 1U << 11U,
  kSweepTrainSearch = 1U << 12U,  ///< train --best-layout: the layout each point chose, then train's
  kSweepPrefillCp = 1U << 13U,    ///< prefill --cp: the group's floor, not the pooled ideal device's
  kSweepServeLoad = 1U << 14U,    ///< serve --rate: the simulated server's percentiles and throughput
};
inline constexpr unsigned kSweepTables = 15;
/// Train's columns, with and without --best-layout.
inline constexpr unsigned kSweepTrains = kSweepTrain | kSweepTrainSearch;
inline constexpr unsigned kSweepLayouts = kSweepMemoryLayout | kSweepDecodeLayout | kSweepServeLayout;

/// A field the given sweep tables show as a column labelled `column` (`layout_column` under an
/// explicit layout, when given).
template <typename C>
Field<C> in_sweep(unsigned sweeps, const char* column, Field<C> f, const char* layout_column = nullptr) {
  f.sweep = sweeps;
  f.column = column;
  f.layout_column = layout_column;
  return f;
}

/// The commands whose --brief shows a row: one bit each, set on the row's field (in_brief).
enum BriefOf : unsigned {
  kBriefReport = 1U << 0U,
  kBriefMemory = 1U << 1U,
  kBriefDecode = 1U << 2U,
  kBriefPrefill = 1U << 3U,
  kBriefServe = 1U << 4U,
  kBriefParams = 1U << 5U,
  kBriefFlops = 1U << 6U,
  kBriefKv = 1U << 7U,
  kBriefTrain = 1U << 8U,
  kBriefLayer = 1U << 9U,
  kBriefGemm = 1U << 10U,
};

/// A field the given commands' --brief shows.
template <typename C>
Field<C> in_brief(unsigned commands, Field<C> f) {
  f.brief = commands;
  return f;
}

/// How a view builds its rows, passed explicitly to every view: `explain` adds the substituted
/// formulas; `values_only` (batch, a sweep's streamed lines and CSV) skips what only a person reads
/// (labels, notes beside values, formulas, the headline), the values being the same; `echo_inputs`
/// puts the resolved inputs into the report (JSON documents read them; a table never does).
struct ViewOptions {
  bool explain = false;
  bool values_only = false;
  bool echo_inputs = true;
  bool csv_inputs = true;  ///< the inputs a CSV row and a compare column lead with (batch writes neither)
};

/// Appends a field table's rows to a section; substitutions only under view.explain.
template <typename C>
void append_fields(Section& s, const std::vector<Field<C>>& fields, const C& c, const ViewOptions& view) {
  for (const Field<C>& f : fields) {
    // Built in place: a Row is seven strings and a value, and a batch line makes dozens.
    Row& row = s.rows.emplace_back();
    row.key = f.key;
    row.brief = f.brief;
    if (f.present != nullptr && !f.present(c)) {
      row.absent = true;
      continue;
    }
    Cell v = f.value(c);
    row.value = std::move(v.value);
    row.unit = v.unit;
    if (view.values_only) continue;
    row.label = f.label_fn != nullptr ? f.label_fn(c) : std::string(f.label);
    row.formula_id = f.formula_id;
    row.formula = f.formula;
    // A value that is n/a (null) has its formula but no substitution: the operands that made it n/a
    // (a zero divisor, a missing peak) do not evaluate to anything (the property suite's NEW-1, NEW-2).
    if (view.explain && f.substitute != nullptr && !std::holds_alternative<std::monostate>(row.value)) {
      row.substituted = f.substitute(c);
    }
    if (f.note != nullptr) row.note = f.note(c);
  }
}

/// Builds a section from a field table, with room for `more` rows appended after it.
template <typename C>
Section make_section(std::string key, std::string title, const std::vector<Field<C>>& fields, const C& c,
                     const ViewOptions& view, std::size_t more = 0) {
  Section s;
  s.key = std::move(key);
  s.title = std::move(title);
  s.rows.reserve(fields.size() + more);
  append_fields(s, fields, c, view);
  return s;
}

/// One field's cell for context c, as make_section would show it (no value where it is absent).
template <typename C>
Cell cell_of(const Field<C>& f, const C& c) {
  if (f.present != nullptr && !f.present(c)) return {};
  return f.value(c);
}

/// A number for a substituted formula: whole numbers exact with separators, others to 6
/// significant digits, so the substituted arithmetic evaluates to the printed value.
inline std::string num(double v) {
  if (std::fabs(v) < 1e15 && v == std::floor(v)) {
    return grouped(static_cast<std::int64_t>(v));
  }
  return fmt::format("{:.6g}", v);
}
inline std::string num(std::int64_t v) { return grouped(v); }

/// The weights' format as the output names it: "bf16", or a layout by class ("as published:
/// mxfp4 experts; bf16 rest"), the format most classes share last as the rest.
std::string weights_text(const Workload& w);

/// The b_w an --explain substitution shows for `params` weights held in `bytes`: the format's bits,
/// or under a layout of several formats their mean over those weights, 8 M / N.
inline double shown_bits(const Workload& w, double params, units::Bytes bytes) {
  if (w.weights.uniform() || !(params > 0.0)) return w.weight_bits;
  return bytes.base() * 8.0 / params;
}
template <int B, int F, int S>
std::string num(units::Quantity<B, F, S> q) {
  return num(q.base());
}
template <typename T, typename R>
std::string num(units::Amount<T, R> a) {
  return num(a.base());
}

/// A count the engine saturated at kMaxCount (2^62, R5) is a floor: its substitution shows the cap
/// it hit, so the explained arithmetic still equals the value, and its note says so.
inline constexpr const char* kSaturatedNote = "at least: saturated at 2^62";
inline std::optional<std::int64_t> count_of(const std::optional<units::Sequences>& n) {
  return n ? std::optional(n->base()) : std::nullopt;
}
inline bool saturated(const std::optional<std::int64_t>& n) { return n && *n >= kMaxCount; }
inline std::string capped(const std::optional<std::int64_t>& n, const std::string& quotient) {
  return saturated(n) ? fmt::format("min({}, {})", num(kMaxCount), quotient) : quotient;
}

}  // namespace roofline::format
