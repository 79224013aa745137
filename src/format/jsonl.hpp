// JSON Lines: one compact JSON document a line, written straight into a string (no DOM), for the
// streams that must keep up with the engine: a sweep's points (--format jsonl) and batch's
// answers. The values follow render_json's rules: counts of bytes, parameters, tokens and
// sequences are integers when whole, a non-finite number is null, text is valid UTF-8.
#pragma once

#include "format/report.hpp"
#include "format/sweep.hpp"
#include "format/views.hpp"

#include <string>
#include <string_view>

namespace roofline::format {

/// Appends s as a JSON string: quotes, escapes, and U+FFFD for bytes that are not UTF-8.
void append_json_string(std::string& out, std::string_view s);

/// Appends one value as render_json writes it.
void append_json_value(std::string& out, const Value& v, Unit u);

/// Appends one value as a CSV field, as a single run's CSV writes it: numbers in their shortest
/// round-trip text, a non-finite or absent value empty, text quoted when it holds a comma, quote or
/// newline.
void append_csv_value(std::string& out, const Value& v);

/// Appends the report's results object: {"section":{"key":value,...},...,"table":[{...},...]}.
void append_results_json(std::string& out, const Report& r);

/// Appends a JSON array of strings.
void append_json_strings(std::string& out, const std::vector<std::string>& v);

/// One sweep point as a line: {"point":{axis:value,...},"figures":{key:value,...}}\n.
void append_sweep_jsonl(std::string& out, const SweepPoint& point, const SweepFigures& f);

/// The same line at a million a second: the keys escaped once, as "key": (see SweepLineKeys).
struct SweepLineKeys {
  std::vector<std::string> axes;     ///< "name": per axis
  std::vector<std::string> figures;  ///< "key": per figure column
  const std::vector<SweepColumn>* columns = nullptr;
};
std::string json_key(std::string_view key);
void append_sweep_jsonl(std::string& out, const SweepLineKeys& keys, const std::vector<Value>& point,
                        const std::vector<Cell>& cells);

/// A point whose command has no sweep figures: {"point":{...},"results":{...}}\n.
void append_sweep_jsonl_results(std::string& out, const SweepPoint& point, const Report& r);

/// A point that failed: {"point":{...},"error":"message"}\n.
void append_sweep_jsonl_error(std::string& out, const SweepPoint& point, std::string_view message);

}  // namespace roofline::format
