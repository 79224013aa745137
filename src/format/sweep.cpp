#include "format/sweep.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace roofline::format {

nlohmann::json results_json(const Report& r, nlohmann::json* formulas);  // report.cpp

namespace {

constexpr auto kReplace = nlohmann::json::error_handler_t::replace;

nlohmann::json point_json(const SweepPoint& point) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, value] : point) {
    if (const auto* i = std::get_if<std::int64_t>(&value)) {
      j[name] = *i;
    } else if (const auto* s = std::get_if<std::string>(&value)) {
      j[name] = *s;
    } else {
      j[name] = nullptr;
    }
  }
  return j;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string csv_text(const Value& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (const auto* s = std::get_if<std::string>(&v)) return csv_field(*s);
  return "";
}

}  // namespace

SweepJsonFrame sweep_json_frame(const Report& first, const std::vector<std::string>& axes, std::int64_t points,
                                const std::vector<std::string>& notes, const std::vector<std::string>& warnings) {
  nlohmann::json j;
  j["schema_version"] = kSchemaVersion;
  j["command"] = first.command;
  j["inputs"] = first.inputs ? *first.inputs : nlohmann::json::object();
  j["sweep"] = {{"axes", axes}, {"points", points}};
  j["results"] = nlohmann::json::array();
  j["notes"] = notes;
  j["warnings"] = warnings;
  const std::string text = j.dump(2, ' ', false, kReplace) + "\n";
  // The empty array is the one place the points go: the only "results" key at the top level.
  const std::string slot = "\n  \"results\": []";
  const std::size_t at = text.find(slot);
  return {text.substr(0, at + slot.size() - 1), text.substr(at + slot.size() - 1)};
}

std::string sweep_json_point(const SweepPoint& point, const Report& r, std::size_t skip_notes, bool explain) {
  nlohmann::json j;
  j["point"] = point_json(point);
  nlohmann::json formulas = nlohmann::json::object();
  j["results"] = results_json(r, explain ? &formulas : nullptr);
  if (explain) j["explain"] = std::move(formulas);
  const auto first_note = r.notes.begin() + static_cast<std::ptrdiff_t>(std::min(skip_notes, r.notes.size()));
  j["notes"] = std::vector<std::string>(first_note, r.notes.end());
  // At the depth of an element of the top-level results array: four spaces.
  const std::string text = j.dump(2, ' ', false, kReplace);
  std::string out = "    ";
  out.reserve(text.size() + text.size() / 8);
  for (const char c : text) {
    out += c;
    if (c == '\n') out += "    ";
  }
  return out;
}

std::string sweep_csv_row(const SweepPoint& point, const Report& r, bool header) {
  std::string names;
  std::string values;
  for (const auto& [name, value] : point) {
    names += "point." + name + ",";
    values += csv_text(value) + ",";
  }
  RenderOptions o;
  o.format = OutputFormat::csv;
  o.csv_header = header;
  const std::string run = render(r, o);  // "header\nrow\n" or "row\n"
  if (!header) return values + run;
  const std::size_t nl = run.find('\n');
  return names + run.substr(0, nl + 1) + values + run.substr(nl + 1);
}

std::string knee_note(const std::string& where, const SweepFigures::Knee& k) {
  std::string knee;
  if (!k.has_peak) {
    knee = "no compute-bound batch (no dense peak for the compute dtype)";
  } else if (!k.compute_bound_batch) {
    knee = "memory-bound at any batch (the KV read grows as fast as the FLOPs)";
  } else {
    knee = "compute-bound from batch " + grouped(*k.compute_bound_batch);
  }
  std::string cap;
  if (!k.kv_batch_cap) {
    cap = "no KV at this context, so no KV cap on the batch";
  } else if (*k.kv_batch_cap == 0) {
    cap = "the KV budget holds no sequence (the weights leave no room)";
  } else {
    cap = "the KV budget caps the batch at " + grouped(*k.kv_batch_cap);
    if (k.compute_bound_batch && *k.kv_batch_cap < *k.compute_bound_batch) {
      cap += ", below the knee: the step stays memory-bound on this capacity";
    }
  }
  return where + ": " + knee + "; " + cap;
}

}  // namespace roofline::format
