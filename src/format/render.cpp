#include "format/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace roofline::format {

std::string render_json(const Report& r, bool explain, bool one_line = false);  // report.cpp

namespace {

// Display width in code points, so "µs" aligns like "ms".
std::size_t width(const std::string& s) {
  std::size_t n = 0;
  for (const char c : s) n += (static_cast<unsigned char>(c) & 0xC0U) != 0x80U ? 1 : 0;
  return n;
}

std::string pad_right(const std::string& s, std::size_t w) { return s + std::string(w - std::min(w, width(s)), ' '); }
std::string pad_left(const std::string& s, std::size_t w) { return std::string(w - std::min(w, width(s)), ' ') + s; }

bool numeric(const Value& v) { return std::holds_alternative<std::int64_t>(v) || std::holds_alternative<double>(v); }

// The table as people see it: machine-only columns dropped.
Table visible(const Table& t) {
  Table v{t.key, t.title, {}, {}, t.row_units, t.key_columns};  // key columns are never machine-only
  std::vector<std::size_t> keep;
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    if (!t.columns[c].machine_only) {
      keep.push_back(c);
      v.columns.push_back(t.columns[c]);
    }
  }
  for (const auto& row : t.rows) {
    std::vector<Value> cells;
    for (std::size_t c : keep) cells.push_back(c < row.size() ? row[c] : Value{});
    v.rows.push_back(std::move(cells));
  }
  return v;
}

std::string wrap(const std::string& text, const std::string& first, const std::string& rest, std::size_t limit) {
  std::string out;
  std::string line = first;
  bool empty = true;  // no word on this line yet
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find(' ', pos);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(pos, end - pos);
    if (!empty && width(line) + 1 + width(word) > limit) {
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += line + "\n";
      line = rest;
      empty = true;
    }
    if (!empty) line += " ";
    line += word;
    empty = false;
    pos = end + 1;
  }
  return out + line + "\n";
}

// A value as display() shows it, and a cost with the currency --price named ("2,400.00 USD").
std::string shown(const Value& v, Unit u, UnitSystem units, const std::string& currency) {
  std::string text = display(v, u, units);
  // n/a (an unknown or an infinite cost) has no currency.
  const auto* d = std::get_if<double>(&v);
  const bool amount = std::holds_alternative<std::int64_t>(v) || (d != nullptr && std::isfinite(*d));
  if (u == Unit::money && !currency.empty() && amount) text += " " + currency;
  return text;
}

std::string bold(const std::string& s, bool color) { return color ? "\033[1m" + s + "\033[0m" : s; }

std::string render_table(const Report& r, const RenderOptions& o) {
  std::string out;
  if (!r.headline.empty()) {
    // Each headline line wraps at the width, at its spaces.
    std::string head;
    std::size_t start = 0;
    while (start <= r.headline.size()) {
      std::size_t end = r.headline.find('\n', start);
      if (end == std::string::npos) end = r.headline.size();
      const std::string line = r.headline.substr(start, end - start);
      head += width(line) > o.width ? wrap(line, "", "", o.width) : line + "\n";
      start = end + 1;
    }
    head.pop_back();
    out += bold(head, o.color) + "\n";
  }
  std::size_t label_w = 0;
  std::size_t value_w = 0;
  for (const Section& s : r.sections) {
    for (const Row& row : s.rows) {
      if (row.absent) continue;
      label_w = std::max(label_w, width(row.label));
      value_w = std::max(value_w, width(shown(row.value, row.unit, o.units, r.currency)));
    }
  }
  for (std::size_t i = 0; i < r.sections.size(); ++i) {
    const Section& s = r.sections[i];
    // Compact (--brief): a title without a visible row is left out, and no blank line between sections.
    if (r.compact && std::all_of(s.rows.begin(), s.rows.end(), [](const Row& row) { return row.absent; })) continue;
    out += (r.compact && i > 0 ? "" : "\n") + bold(s.title, o.color) + "\n";
    for (const Row& row : s.rows) {
      if (row.absent) continue;
      const std::string v = shown(row.value, row.unit, o.units, r.currency);
      std::string line = "  " + pad_right(row.label, label_w) + "  " + pad_left(v, value_w);
      if (!row.note.empty()) {
        // A note past the width wraps under itself.
        const std::size_t at = width(line) + 2;
        if (at + width(row.note) > o.width && at + 20 <= o.width) {
          line = wrap(row.note, line + "  ", std::string(at, ' '), o.width);
          line.pop_back();
        } else if (at + width(row.note) > o.width) {
          // No room beside the value: the note goes under the row, indented.
          line += "\n" + wrap(row.note, "      ", "      ", o.width);
          line.pop_back();
        } else {
          line += "  " + row.note;
        }
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += line + "\n";
      if (o.explain && !row.formula.empty()) {
        // Under the value, wrapped to the table width: "= formula = substitution  [source]".
        std::string text(row.formula);
        if (!row.substituted.empty()) text += " = " + row.substituted;
        if (!row.formula_id.empty()) text += fmt::format("  [{}]", row.formula_id);
        const std::string indent(std::min<std::size_t>(label_w + 4, 40), ' ');
        out += wrap(text, indent + "= ", indent + "  ", o.width);
      }
    }
  }
  for (const Table& full : r.tables) {
    const Table t = visible(full);
    out += "\n" + bold(t.title, o.color) + "\n";
    std::vector<std::size_t> w(t.columns.size());
    std::vector<std::vector<std::string>> cells;
    for (std::size_t c = 0; c < t.columns.size(); ++c) w[c] = width(t.columns[c].label);
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      const auto& row = t.rows[i];
      std::vector<std::string> line;
      for (std::size_t c = 0; c < t.columns.size(); ++c) {
        line.push_back(c < row.size() ? shown(row[c], cell_unit(t, i, c), o.units, r.currency) : "");
        w[c] = std::max(w[c], width(line.back()));
      }
      cells.push_back(std::move(line));
    }
    // One line of the columns `shown`: numbers (and right-aligned columns) to the right.
    const auto emit = [&](const std::vector<std::size_t>& shown, const std::vector<std::string>& line,
                          const std::vector<Value>* vals) {
      std::string s = " ";
      for (const std::size_t c : shown) {
        const bool right = vals != nullptr && c < vals->size() && (numeric((*vals)[c]) || t.columns[c].right);
        s += " " + (right ? pad_left(line[c], w[c]) : pad_right(line[c], w[c]));
      }
      while (!s.empty() && s.back() == ' ') s.pop_back();
      out += s + "\n";
    };
    std::vector<std::string> header;
    for (const Column& c : t.columns) header.push_back(c.label);
    // Wider than the width (COLUMNS): blocks of columns, each led by the key columns, so no column
    // is cut and a row stays readable; each block holds at least one more column.
    const std::size_t keys = std::min(t.key_columns, t.columns.size());
    std::size_t key_width = 1;
    for (std::size_t c = 0; c < keys; ++c) key_width += 1 + w[c];
    std::size_t next = keys;
    do {
      std::vector<std::size_t> shown(keys);
      for (std::size_t c = 0; c < keys; ++c) shown[c] = c;
      std::size_t used = key_width;
      while (next < t.columns.size() && (shown.size() == keys || used + 1 + w[next] <= o.width)) {
        used += 1 + w[next];
        shown.push_back(next++);
      }
      if (shown.size() > keys && shown[keys] != keys) out += "\n";  // a block after the first
      emit(shown, header, nullptr);
      for (std::size_t i = 0; i < cells.size(); ++i) emit(shown, cells[i], &t.rows[i]);
    } while (next < t.columns.size());
  }
  if (!r.notes.empty()) {
    out += "\n" + bold("Notes", o.color) + "\n";
    for (const std::string& n : r.notes) out += wrap(n, "  - ", "    ", o.width);
  }
  return out;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string raw_value(const Value& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) return std::isfinite(*d) ? fmt::format("{}", *d) : "";
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  return "";
}

// CSV: one flat table per command. A model command writes one row: the inputs that identify it
// (model, accelerator, workload) and every result as `section.key`, so the rows of a shell loop
// concatenate into one table (--no-header drops the header). Listings write one row per preset.
// Per-matrix and per-layer tables are in the JSON only.
std::string render_csv(const Report& r, bool header) {
  std::string names;
  std::string values;
  bool first = true;
  const auto add = [&](const std::string& name, const Value& v) {
    names += (first ? "" : ",") + csv_field(name);
    values += (first ? "" : ",") + csv_field(raw_value(v));
    first = false;
  };
  if (!r.sections.empty()) {
    for (const auto& [key, v] : r.csv_inputs) add(key, v);
    for (const Section& s : r.sections) {
      for (const Row& row : s.rows) add(fmt::format("{}.{}", s.key, row.key), row.value);
    }
    return (header ? names + "\n" : std::string()) + values + "\n";
  }
  std::string out;
  for (const Table& t : r.tables) {
    if (header) {
      std::string line;
      for (const Column& c : t.columns) line += (line.empty() ? "" : ",") + c.key;
      out += line + "\n";
    }
    for (const auto& row : t.rows) {
      std::string line;
      for (std::size_t c = 0; c < t.columns.size(); ++c) {
        line += (c == 0 ? "" : ",") + csv_field(c < row.size() ? raw_value(row[c]) : "");
      }
      out += line + "\n";
    }
  }
  return out;
}

std::string md_cell(std::string s) {
  std::string o;
  for (char c : s) o += c == '|' ? std::string("\\|") : std::string(1, c);
  return o;
}

std::string render_markdown(const Report& r, const RenderOptions& o) {
  std::string out;
  if (!r.headline.empty()) {
    // First line bold (the model and accelerator), the conventions line plain.
    const auto nl = r.headline.find('\n');
    out += "**" + md_cell(r.headline.substr(0, nl)) + "**\n";
    if (nl != std::string::npos) out += "\n" + md_cell(r.headline.substr(nl + 1)) + "\n";
  }
  for (std::size_t i = 0; i < r.sections.size(); ++i) {
    const Section& s = r.sections[i];
    if (r.compact) {
      // One table for every section, a row for each title that has a visible row under it.
      if (i == 0) out += "\n| quantity | value | note |\n|---|---:|---|\n";
      if (std::any_of(s.rows.begin(), s.rows.end(), [](const Row& row) { return !row.absent; })) {
        out += "| **" + md_cell(s.title) + "** | | |\n";
      }
    } else {
      out += "\n### " + s.title + "\n\n| quantity | value | note |\n|---|---:|---|\n";
    }
    for (const Row& row : s.rows) {
      if (row.absent) continue;
      std::string note = row.note;
      if (o.explain && !row.formula.empty()) {
        note += fmt::format("{}{} = {} [{}]", note.empty() ? "" : "; ", row.formula, row.substituted, row.formula_id);
      }
      out += "| " + md_cell(row.label) + " | " + md_cell(shown(row.value, row.unit, o.units, r.currency)) + " | " +
             md_cell(note) + " |\n";
    }
  }
  for (const Table& full : r.tables) {
    const Table t = visible(full);
    out += "\n### " + t.title + "\n\n|";
    std::string rule = "|";
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
      out += " " + md_cell(t.columns[c].label) + " |";
      // Numbers right-aligned, as the table view sets them: a column whose cells are numbers.
      bool right = t.columns[c].right;
      for (std::size_t i = 0; i < t.rows.size() && !right; ++i) right = c < t.rows[i].size() && numeric(t.rows[i][c]);
      rule += right ? "---:|" : "---|";
    }
    out += "\n" + rule + "\n";
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      const auto& row = t.rows[i];
      out += "|";
      for (std::size_t c = 0; c < t.columns.size(); ++c) {
        out += " " + md_cell(c < row.size() ? shown(row[c], cell_unit(t, i, c), o.units, r.currency) : "") + " |";
      }
      out += "\n";
    }
  }
  if (!r.notes.empty()) {
    out += "\n";
    for (const std::string& n : r.notes) out += "- " + md_cell(n) + "\n";
  }
  return out;
}

}  // namespace

std::string render(const Report& r, const RenderOptions& o) {
  switch (o.format) {
    case OutputFormat::table:
      return render_table(r, o);
    case OutputFormat::json:
      return render_json(r, o.explain);
    case OutputFormat::csv:
      return render_csv(r, o.csv_header);
    case OutputFormat::markdown:
      return render_markdown(r, o);
    case OutputFormat::jsonl:
      return render_json(r, o.explain, true);
  }
  return {};
}

}  // namespace roofline::format
