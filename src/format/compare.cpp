#include "format/compare.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace roofline::format {

nlohmann::json results_json(const Report& r, nlohmann::json* formulas);  // report.cpp

namespace {

// A table fits the width (COLUMNS, 100 when unset); the ratio columns are the first to go.

std::size_t width(const std::string& s) {
  std::size_t n = 0;
  for (const char c : s) n += (static_cast<unsigned char>(c) & 0xC0U) != 0x80U ? 1 : 0;
  return n;
}

std::optional<double> number_of(const Value& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&v)) {
    if (std::isfinite(*d)) return *d;
  }
  return std::nullopt;
}

const Section* find_section(const Report& r, std::string_view key) {
  const auto s = std::find_if(r.sections.begin(), r.sections.end(), [&](const Section& x) { return x.key == key; });
  return s == r.sections.end() ? nullptr : &*s;
}

const Row* find_row(const Section* s, std::string_view key) {
  if (s == nullptr) return nullptr;
  const auto row = std::find_if(s->rows.begin(), s->rows.end(), [&](const Row& x) { return x.key == key; });
  return row == s->rows.end() || row->absent ? nullptr : &*row;
}

// A section's title or a row's label as the columns share it: the one text; else the part before
// ": " or " (" where the columns differ after it ("Accelerator: NVIDIA H100 SXM5 80GB" and
// "Accelerator: AMD Instinct MI300X" are "Accelerator", "per dense layer (x32)" and "(x80)" are "per
// dense layer"); else the words they start with and an ellipsis ("per sequence at ...").
std::string shared_text(const std::vector<std::string>& texts) {
  if (texts.empty()) return {};
  const std::string& first = texts.front();
  const auto all = [&](const auto& same) { return std::all_of(texts.begin(), texts.end(), same); };
  if (all([&](const std::string& t) { return t == first; })) return first;
  const auto stem = [](const std::string& t) { return t.substr(0, std::min(t.find(": "), t.find(" ("))); };
  const std::string s = stem(first);
  if (s.size() < first.size() && all([&](const std::string& t) { return stem(t) == s; })) return s;
  std::size_t common = 0;  // the length of the whole words every text starts with
  for (std::size_t i = 0; i <= first.size(); ++i) {
    const bool boundary = i == first.size() || first[i] == ' ';
    if (!all([&](const std::string& t) { return t.size() >= i && t.compare(0, i, first, 0, i) == 0; })) break;
    if (boundary && all([&](const std::string& t) { return t.size() == i || t[i] == ' '; })) common = i;
  }
  return common == 0 ? first : first.substr(0, common) + " ...";
}

using Key = std::pair<std::string, std::string>;  // section, row

// Every row of the columns once, in the order the reports print them.
std::vector<Key> merged_keys(const Comparison& c) {
  std::vector<Key> keys;
  for (const ComparedColumn& col : c.columns) {
    std::size_t at = 0;  // a row this column adds goes after the row it follows here
    for (const Section& s : col.report.sections) {
      for (const Row& row : s.rows) {
        // Under --brief, the question's brief rows (a brief row absent here stays a row: n/a).
        if (c.brief != nullptr ? (row.brief & c.brief->bit) == 0U : row.absent) continue;
        const Key k{s.key, std::string(row.key)};
        const auto it = std::find(keys.begin(), keys.end(), k);
        if (it != keys.end()) {
          at = static_cast<std::size_t>(it - keys.begin()) + 1;
        } else {
          keys.insert(keys.begin() + static_cast<std::ptrdiff_t>(at), k);
          ++at;
        }
      }
    }
  }
  return keys;
}

// --- the inputs that identify a column (the single command's CSV identity columns) ----------------

struct InputRow {
  std::string key;  ///< the single CSV's column: "batch", "context_tokens"
  std::string label;
  Unit unit = Unit::text;
  std::vector<Value> values;  ///< one per column
  [[nodiscard]] bool same() const {
    return std::all_of(values.begin(), values.end(), [&](const Value& v) { return v == values.front(); });
  }
};

struct InputLabel {
  const char* key;
  const char* label;
  Unit unit;
};
constexpr InputLabel kInputLabels[] = {{"model", "model", Unit::text},
                                       {"gpu", "accelerator", Unit::text},
                                       {"devices", "devices", Unit::count},
                                       {"batch", "batch", Unit::count},
                                       {"context_tokens", "context", Unit::tokens},
                                       {"prompt_tokens", "prompt", Unit::tokens},
                                       {"output_tokens", "output", Unit::tokens},
                                       {"weight_format", "weights", Unit::text},
                                       {"kv_dtype", "KV cache", Unit::text}};

std::vector<InputRow> input_rows(const Comparison& c) {
  std::vector<InputRow> rows;
  for (std::size_t i = 0; i < c.columns.size(); ++i) {
    for (const auto& input : c.columns[i].report.csv_inputs) {
      const std::string& key = input.first;
      const Value& value = input.second;
      auto it = std::find_if(rows.begin(), rows.end(), [&](const InputRow& r) { return r.key == key; });
      if (it == rows.end()) {
        InputRow r{key, key, std::holds_alternative<bool>(value) ? Unit::boolean : Unit::text, {}};
        for (const InputLabel& l : kInputLabels) {
          if (key == l.key) {
            r.label = l.label;
            r.unit = l.unit;
          }
        }
        r.values.resize(c.columns.size());
        rows.push_back(std::move(r));
        it = rows.end() - 1;
      }
      it->values[i] = value;
    }
  }
  return rows;
}

const char* axis_key(CompareAxis a) { return a == CompareAxis::gpu ? "gpu" : "model"; }

std::string names(const Comparison& c) {
  std::string s;
  for (const ComparedColumn& col : c.columns) s += (s.empty() ? "" : ", ") + col.name;
  return s;
}

// "compare decode: llama3-8b on h100-sxm, mi300x", then the inputs every column shares.
std::string headline(const Comparison& c, const std::vector<InputRow>& inputs, UnitSystem units) {
  const auto input = [&](const char* key) {
    const auto it = std::find_if(inputs.begin(), inputs.end(), [&](const InputRow& r) { return r.key == key; });
    return it != inputs.end() && it->same() ? display(it->values.front(), it->unit, units) : std::string();
  };
  std::string line = "compare " + c.question + ": ";
  if (c.axis == CompareAxis::gpu) {
    line += input("model") + " on " + names(c);
  } else {
    line += names(c);
    const std::string gpu = input("gpu");
    if (!gpu.empty() && gpu != "n/a") line += " on " + gpu;
  }
  std::string shared;
  for (const InputRow& r : inputs) {
    if (r.key == "model" || r.key == "gpu" || !r.same()) continue;
    shared += (shared.empty() ? "" : ", ") + r.label + " " + display(r.values.front(), r.unit, units);
  }
  return shared.empty() ? line : line + "\n" + shared;
}

Value ratio_cell(const ComparedRow& row, std::size_t i) {
  if (!number_of(row.values[i])) return std::string();
  if (row.ratios[i]) return *row.ratios[i];
  return std::monostate{};
}

// Table and Markdown: a title row per section, a row per figure; a ratio column after each column
// but the first while the table fits 100 columns.
Report table_report(const Comparison& c, const std::vector<ComparedRow>& rows, const RenderOptions& o) {
  const std::vector<InputRow> inputs = input_rows(c);
  const std::size_t n = c.columns.size();
  Report r;
  r.command = "compare";
  r.headline = headline(c, inputs, o.units);
  // --brief: the figures alone, as a single command's brief.
  if (c.brief == nullptr) r.notes = compared_messages(c, &Report::notes);
  r.warnings = compared_messages(c, &Report::warnings);
  const std::string currency = c.columns.empty() ? std::string() : c.columns.front().report.currency;
  r.currency = currency;
  struct Line {
    std::string label;
    Unit unit;
    std::vector<Value> values;
    std::vector<Value> ratios;
  };
  std::vector<Line> lines;
  // Markdown collapses a cell's leading spaces: its titles are bold instead of its rows indented.
  const bool md = o.format == OutputFormat::markdown;
  const std::string indent = md ? "" : "  ";
  const auto title = [&](const std::string& t) {
    lines.push_back({md ? "**" + t + "**" : t, Unit::text, std::vector<Value>(n, std::string()),
                     std::vector<Value>(n, std::string())});
  };
  // The inputs that differ between columns (besides the one the columns are), say a context each
  // model defaults to.
  bool first_input = true;
  for (const InputRow& in : inputs) {
    if (in.key == axis_key(c.axis) || in.same()) continue;
    if (first_input) title("Inputs");
    first_input = false;
    lines.push_back({indent + in.label, in.unit, in.values, std::vector<Value>(n, std::string())});
  }
  std::string section;
  for (const ComparedRow& row : rows) {
    if (row.section != section || lines.empty()) title(row.title);
    section = row.section;
    Line l{indent + row.label, row.unit, row.values, {}};
    for (std::size_t i = 0; i < n; ++i) l.ratios.push_back(ratio_cell(row, i));
    lines.push_back(std::move(l));
  }
  // The table of some of the columns, with or without their ratios to the first column.
  const auto build = [&](const std::vector<std::size_t>& which, bool ratios) {
    Table t;
    t.key = "compare";
    t.title = c.question + (ratios ? ", each column's ratio to " + c.columns.front().name : "");
    if (which.size() < n) {
      t.title += fmt::format(" (columns {} to {} of {})", which.front() + 1, which.back() + 1, n);
    }
    t.columns.push_back({"figure", md ? "figure" : "", Unit::text});
    for (const std::size_t i : which) {
      t.columns.push_back({c.columns[i].name, c.columns[i].name, Unit::none, false, true});
      if (ratios && i > 0) t.columns.push_back({"ratio", "ratio", Unit::ratio, false, true});
    }
    for (const Line& l : lines) {
      std::vector<Value> cells{l.label};
      for (const std::size_t i : which) {
        cells.push_back(l.values[i]);
        if (ratios && i > 0) cells.push_back(l.ratios[i]);
      }
      t.rows.push_back(std::move(cells));
      t.row_units.push_back(l.unit);
    }
    return t;
  };
  // Whether a table fits the width (COLUMNS, 100 when unset) as render() draws it.
  RenderOptions plain = o;
  plain.color = false;
  plain.width = std::size_t{1} << 20U;  // drawn whole, not in blocks of columns, to measure it
  const auto fits = [&](const Table& t) {
    Report table;
    table.tables = {t};
    table.currency = currency;
    const std::string text = render(table, plain);
    std::size_t start = 0;
    while (start < text.size()) {
      const std::size_t end = std::min(text.find('\n', start), text.size());
      if (width(text.substr(start, end - start)) > o.width) return false;
      start = end + 1;
    }
    return true;
  };
  std::vector<std::size_t> all(n);
  for (std::size_t i = 0; i < n; ++i) all[i] = i;
  r.tables.push_back(build(all, true));
  // Markdown has no width; the terminal's table drops the ratios to fit 100 columns, and past that
  // shows the columns a few at a time, each table with the figures' labels.
  if (o.format != OutputFormat::table || fits(r.tables.back())) return r;
  r.notes.push_back(
      fmt::format("the ratios to {} are left out to fit 100 columns; --format csv, markdown or json holds them",
                  c.columns.front().name));
  r.tables.back() = build(all, false);
  if (fits(r.tables.back())) return r;
  r.tables.clear();
  std::vector<std::size_t> group;
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<std::size_t> wider = group;
    wider.push_back(i);
    if (!group.empty() && !fits(build(wider, false))) {
      r.tables.push_back(build(group, false));
      wider = {i};
    }
    group = std::move(wider);
  }
  r.tables.push_back(build(group, false));
  return r;
}

// CSV: a row per input and per figure, keyed as the single command's CSV columns, then a column per
// accelerator or model and a ratio column per column after the first.
Report csv_report(const Comparison& c, const std::vector<ComparedRow>& rows) {
  const std::size_t n = c.columns.size();
  Table t;
  t.key = "compare";
  t.columns = {{"key", "key", Unit::text}, {"label", "label", Unit::text}};
  for (const ComparedColumn& col : c.columns) t.columns.push_back({col.name, col.name, Unit::none});
  for (std::size_t i = 1; i < n; ++i) {
    t.columns.push_back({c.columns[i].name + "/" + c.columns.front().name, "ratio", Unit::ratio});
  }
  for (const InputRow& in : input_rows(c)) {
    std::vector<Value> cells{in.key, in.label};
    cells.insert(cells.end(), in.values.begin(), in.values.end());
    cells.resize(t.columns.size(), std::monostate{});
    t.rows.push_back(std::move(cells));
  }
  for (const ComparedRow& row : rows) {
    std::vector<Value> cells{row.section + "." + row.key, row.label};
    cells.insert(cells.end(), row.values.begin(), row.values.end());
    for (std::size_t i = 1; i < n; ++i) {
      cells.push_back(row.ratios[i] ? Value{*row.ratios[i]} : Value{});
    }
    t.rows.push_back(std::move(cells));
  }
  Report r;
  r.command = "compare";
  r.tables.push_back(std::move(t));
  return r;
}

// JSON: the single commands' documents as an array, each with its ratios over the first.
std::string render_json(const Comparison& c, const std::vector<ComparedRow>& rows, bool explain, bool one_line) {
  nlohmann::json j;
  j["schema_version"] = kSchemaVersion;
  j["command"] = "compare";
  nlohmann::json columns = nlohmann::json::array();
  for (const ComparedColumn& col : c.columns) columns.push_back(col.name);
  j["inputs"] = {{"question", c.question}, {"axis", axis_key(c.axis)}, {"columns", columns}};
  nlohmann::json results = nlohmann::json::array();
  for (std::size_t i = 0; i < c.columns.size(); ++i) {
    const Report& r = c.columns[i].report;
    nlohmann::json formulas = nlohmann::json::object();
    nlohmann::json col;
    col["column"] = c.columns[i].name;
    col["inputs"] = r.inputs ? *r.inputs : nlohmann::json::object();
    col["results"] = results_json(r, explain ? &formulas : nullptr);
    col["notes"] = r.notes;
    if (explain) col["explain"] = std::move(formulas);
    if (i > 0) {
      nlohmann::json ratios = nlohmann::json::object();
      for (const ComparedRow& row : rows) {
        if (!number_of(row.values[i])) continue;
        ratios[row.section][row.key] = row.ratios[i] ? nlohmann::json(*row.ratios[i]) : nlohmann::json();
      }
      col["ratios"] = std::move(ratios);
    }
    results.push_back(std::move(col));
  }
  j["results"] = std::move(results);
  j["notes"] = {fmt::format("ratios: each column's numbers over the first column's ({}); null where that is 0",
                            c.columns.front().name)};
  j["warnings"] = compared_messages(c, &Report::warnings);
  return j.dump(one_line ? -1 : 2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace

std::vector<ComparedRow> compared_rows(const Comparison& c) {
  std::vector<ComparedRow> rows;
  for (const auto& [section, key] : merged_keys(c)) {
    ComparedRow out{section, {}, key, {}, Unit::none, {}, {}};
    std::vector<std::string> titles;
    std::vector<std::string> labels;
    for (const ComparedColumn& col : c.columns) {
      const Section* s = find_section(col.report, section);
      const Row* row = find_row(s, key);
      if (s != nullptr) titles.push_back(s->title);
      if (row != nullptr && labels.empty()) out.unit = row->unit;
      if (row != nullptr) labels.push_back(row->label);
      out.values.push_back(row != nullptr ? row->value : Value{});
    }
    if (labels.empty()) continue;  // a brief row no column has (report without --gpu has no decode)
    out.title = shared_text(titles);
    out.label = shared_text(labels);
    const std::optional<double> first = number_of(out.values.front());
    for (const Value& v : out.values) {
      const std::optional<double> x = number_of(v);
      out.ratios.push_back(x && first && *first != 0.0 ? std::optional(*x / *first) : std::nullopt);
    }
    rows.push_back(std::move(out));
  }
  return rows;
}

std::vector<std::string> compared_messages(const Comparison& c, std::vector<std::string> Report::*member) {
  std::vector<std::string> out;
  std::vector<std::string> seen;
  for (const ComparedColumn& col : c.columns) {
    for (const std::string& m : col.report.*member) {
      if (std::find(seen.begin(), seen.end(), m) != seen.end()) continue;
      seen.push_back(m);
      const bool everywhere = std::all_of(c.columns.begin(), c.columns.end(), [&](const ComparedColumn& x) {
        return std::find((x.report.*member).begin(), (x.report.*member).end(), m) != (x.report.*member).end();
      });
      if (everywhere) {
        out.push_back(m);
        continue;
      }
      for (const ComparedColumn& x : c.columns) {
        if (std::find((x.report.*member).begin(), (x.report.*member).end(), m) != (x.report.*member).end()) {
          out.push_back(x.name + ": " + m);
        }
      }
    }
  }
  return out;
}

std::string render(const Comparison& c, const RenderOptions& o) {
  const std::vector<ComparedRow> rows = compared_rows(c);
  switch (o.format) {
    case OutputFormat::json:
    case OutputFormat::jsonl:  // the same document on one line
      return render_json(c, rows, o.explain, o.format == OutputFormat::jsonl);
    case OutputFormat::csv:
      return render(csv_report(c, rows), o);
    case OutputFormat::table:
    case OutputFormat::markdown:
      return render(table_report(c, rows, o), o);
  }
  return {};
}

}  // namespace roofline::format
