#include "format/report.hpp"

#include <nlohmann/json.hpp>

#include <cmath>

namespace roofline::format {

namespace {

// Counts of bytes, parameters, tokens and sequences are integers in JSON whenever they are whole.
bool integral_unit(Unit u) { return u == Unit::bytes || u == Unit::count || u == Unit::tokens || u == Unit::sequences; }

nlohmann::json value_json(const Value& v, Unit u) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
  if (const auto* d = std::get_if<double>(&v)) {
    // The contract: never NaN or infinity; an undefined measure is null.
    if (!std::isfinite(*d)) return nullptr;
    if (integral_unit(u) && std::fabs(*d) < 0x1p53 && *d == std::floor(*d)) {
      return static_cast<std::int64_t>(*d);
    }
    return *d;
  }
  if (const auto* b = std::get_if<bool>(&v)) return *b;
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  return nullptr;
}

}  // namespace

nlohmann::json results_json(const Report& r, nlohmann::json* formulas) {
  nlohmann::json results = nlohmann::json::object();
  for (const Section& s : r.sections) {
    nlohmann::json sec = nlohmann::json::object();
    for (const Row& row : s.rows) {
      if (row.absent) continue;
      sec[row.key] = value_json(row.value, row.unit);
      if (formulas != nullptr && !row.formula.empty()) {
        (*formulas)[s.key + "." + std::string(row.key)] = {
            {"formula", row.formula}, {"substituted", row.substituted}, {"source", row.formula_id}};
      }
    }
    results[s.key] = std::move(sec);
  }
  for (const Table& t : r.tables) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& cells : t.rows) {
      nlohmann::json o = nlohmann::json::object();
      for (std::size_t c = 0; c < t.columns.size() && c < cells.size(); ++c) {
        o[t.columns[c].key] = value_json(cells[c], t.columns[c].unit);
      }
      rows.push_back(std::move(o));
    }
    results[t.key] = std::move(rows);
  }
  return results;
}

std::string render_json(const Report& r, bool explain, bool one_line) {
  nlohmann::json j;
  j["schema_version"] = kSchemaVersion;
  j["command"] = r.command;
  j["inputs"] = r.inputs ? *r.inputs : nlohmann::json::object();
  nlohmann::json formulas = nlohmann::json::object();
  j["results"] = results_json(r, explain ? &formulas : nullptr);
  j["notes"] = r.notes;
  j["warnings"] = r.warnings;
  if (explain) j["explain"] = std::move(formulas);
  // Invalid UTF-8 in a user's file name or preset text is replaced, never an internal error.
  // JSON Lines: the same document on one line.
  return j.dump(one_line ? -1 : 2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace roofline::format
