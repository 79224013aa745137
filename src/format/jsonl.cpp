#include "format/jsonl.hpp"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>

namespace roofline::format {
namespace {

// Counts of bytes, parameters, tokens and sequences are integers whenever they are whole.
bool integral_unit(Unit u) { return u == Unit::bytes || u == Unit::count || u == Unit::tokens || u == Unit::sequences; }

// The length of the UTF-8 sequence at s[i], or 0 when it is not one.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  std::size_t n = 0;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0U) != 0x80U) return 0;
  }
  const auto c1 = static_cast<unsigned char>(s[i + 1]);
  if (c == 0xE0 && c1 < 0xA0) return 0;   // overlong
  if (c == 0xED && c1 >= 0xA0) return 0;  // surrogates
  if (c == 0xF0 && c1 < 0x90) return 0;   // overlong
  if (c == 0xF4 && c1 >= 0x90) return 0;  // past U+10FFFF
  return n;
}

}  // namespace

void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  // Most text needs no escape: copy the run up to the first byte that does (a table lookup a byte).
  static constexpr std::array<bool, 256> kPlain = [] {
    std::array<bool, 256> t{};
    for (std::size_t c = 0x20; c < 0x80; ++c) t[c] = c != '"' && c != '\\';
    return t;
  }();
  // Eight bytes at a time first: a word with no byte below 0x20, at or above 0x80, '"' or '\\'.
  const auto has_zero_byte = [](std::uint64_t v) {
    return ((v - 0x0101010101010101ULL) & ~v & 0x8080808080808080ULL) != 0;
  };
  std::size_t plain = 0;
  while (plain + 8 <= s.size()) {
    std::uint64_t w = 0;
    std::memcpy(&w, s.data() + plain, 8);
    const bool control_or_high =
        ((w - 0x2020202020202020ULL) & ~w & 0x8080808080808080ULL) != 0 || (w & 0x8080808080808080ULL) != 0;
    if (control_or_high || has_zero_byte(w ^ 0x2222222222222222ULL) || has_zero_byte(w ^ 0x5C5C5C5C5C5C5C5CULL)) break;
    plain += 8;
  }
  while (plain < s.size() && kPlain[static_cast<unsigned char>(s[plain])]) ++plain;
  out.append(s.substr(0, plain));
  for (std::size_t i = plain; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const std::size_t n = utf8_length(s, i);
      if (n == 0) {
        out += "\\ufffd";
        ++i;
      } else {
        out.append(s.substr(i, n));
        i += n;
      }
      continue;
    }
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (c < 0x20) {
          fmt::format_to(std::back_inserter(out), "\\u{:04x}", c);
        } else {
          out += static_cast<char>(c);
        }
    }
    ++i;
  }
  out += '"';
}

namespace {

void append_integer(std::string& out, std::int64_t v) {
  std::array<char, 24> buf{};
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  out.append(buf.data(), r.ptr);
}

// The shortest text that reads back as the same double, always with a '.' or an exponent.
void append_double(std::string& out, double v) {
  std::array<char, 32> buf{};
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  const std::string_view text(buf.data(), static_cast<std::size_t>(r.ptr - buf.data()));
  out += text;
  if (text.find_first_of(".e") == std::string_view::npos) out += ".0";
}

}  // namespace

void append_json_value(std::string& out, const Value& v, Unit u) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) {
    append_integer(out, *i);
  } else if (const auto* d = std::get_if<double>(&v)) {
    if (!std::isfinite(*d)) {
      out += "null";
    } else if (integral_unit(u) && std::fabs(*d) < 0x1p53 && *d == std::floor(*d)) {
      append_integer(out, static_cast<std::int64_t>(*d));
    } else {
      append_double(out, *d);
    }
  } else if (const auto* b = std::get_if<bool>(&v)) {
    out += *b ? "true" : "false";
  } else if (const auto* s = std::get_if<std::string>(&v)) {
    append_json_string(out, *s);
  } else {
    out += "null";
  }
}

void append_csv_value(std::string& out, const Value& v) {
  if (const auto* s = std::get_if<std::string>(&v)) {
    if (s->find_first_of(",\"\n\r") == std::string::npos) {
      out += *s;
      return;
    }
    out += '"';
    for (const char c : *s) {
      if (c == '"') out += '"';
      out += c;
    }
    out += '"';
    return;
  }
  if (const auto* i = std::get_if<std::int64_t>(&v)) {
    append_integer(out, *i);
  } else if (const auto* d = std::get_if<double>(&v)) {
    // As a single run's CSV writes it (render.cpp raw_value): fmt's shortest round-trip text.
    // Formatted into a stack buffer by a compiled format: the same text, without parsing "{}"
    // and growing the string through an appender at every point of a streamed sweep.
    if (std::isfinite(*d)) {
      char buf[32];
      const char* end = fmt::format_to(buf, FMT_COMPILE("{}"), *d);
      out.append(buf, static_cast<std::size_t>(end - buf));
    }
  } else if (const auto* b = std::get_if<bool>(&v)) {
    out += *b ? "true" : "false";
  }
}

void append_results_json(std::string& out, const Report& r) {
  out += '{';
  bool first_key = true;
  const auto key = [&](std::string_view k) {
    if (!first_key) out += ',';
    first_key = false;
    append_json_string(out, k);
    out += ':';
  };
  for (const Section& s : r.sections) {
    key(s.key);
    out += '{';
    bool first = true;
    for (const Row& row : s.rows) {
      if (row.absent) continue;
      if (!first) out += ',';
      first = false;
      append_json_string(out, row.key);
      out += ':';
      append_json_value(out, row.value, row.unit);
    }
    out += '}';
  }
  for (const Table& t : r.tables) {
    key(t.key);
    out += '[';
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      if (i > 0) out += ',';
      out += '{';
      const auto& cells = t.rows[i];
      for (std::size_t c = 0; c < t.columns.size() && c < cells.size(); ++c) {
        if (c > 0) out += ',';
        append_json_string(out, t.columns[c].key);
        out += ':';
        append_json_value(out, cells[c], t.columns[c].unit);
      }
      out += '}';
    }
    out += ']';
  }
  out += '}';
}

void append_json_strings(std::string& out, const std::vector<std::string>& v) {
  out += '[';
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i > 0) out += ',';
    append_json_string(out, v[i]);
  }
  out += ']';
}

namespace {

void append_point(std::string& out, const SweepPoint& point) {
  out += "{\"point\":{";
  for (std::size_t i = 0; i < point.size(); ++i) {
    if (i > 0) out += ',';
    append_json_string(out, point[i].first);
    out += ':';
    append_json_value(out, point[i].second, Unit::count);
  }
  out += '}';
}

}  // namespace

void append_sweep_jsonl_results(std::string& out, const SweepPoint& point, const Report& r) {
  append_point(out, point);
  out += ",\"results\":";
  append_results_json(out, r);
  out += "}\n";
}

void append_sweep_jsonl_error(std::string& out, const SweepPoint& point, std::string_view message) {
  append_point(out, point);
  out += ",\"error\":";
  append_json_string(out, message);
  out += "}\n";
}

void append_sweep_jsonl(std::string& out, const SweepPoint& point, const SweepFigures& f) {
  append_point(out, point);
  out += ",\"figures\":{";
  for (std::size_t c = 0; c < f.cells.size(); ++c) {
    if (c > 0) out += ',';
    append_json_string(out, (*f.columns)[c].key);
    out += ':';
    append_json_value(out, f.cells[c].value, f.cells[c].unit);
  }
  out += "}}\n";
}

std::string json_key(std::string_view key) {
  std::string out;
  append_json_string(out, key);
  out += ':';
  return out;
}

void append_sweep_jsonl(std::string& out, const SweepLineKeys& keys, const std::vector<Value>& point,
                        const std::vector<Cell>& cells) {
  out += "{\"point\":{";
  for (std::size_t i = 0; i < point.size(); ++i) {
    if (i > 0) out += ',';
    out += keys.axes[i];
    append_json_value(out, point[i], Unit::count);
  }
  out += "},\"figures\":{";
  for (std::size_t c = 0; c < cells.size(); ++c) {
    if (c > 0) out += ',';
    out += keys.figures[c];
    append_json_value(out, cells[c].value, cells[c].unit);
  }
  out += "}}\n";
}

}  // namespace roofline::format
