#include "text/user_text.hpp"

#include "roofline/errors.hpp"

#include <algorithm>
#include <cstdint>

namespace roofline::text {
namespace {

// The length of the UTF-8 sequence at s[i] and its code point, or 0 when the bytes there are
// not valid UTF-8.
std::size_t utf8_at(std::string_view s, std::size_t i, std::uint32_t& cp) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  std::size_t n = 0;
  std::uint32_t min = 0;
  if (c < 0x80) {
    cp = c;
    return 1;
  }
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
    cp = c & 0x1FU;
    min = 0x80;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    cp = c & 0x0FU;
    min = 0x800;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    cp = c & 0x07U;
    min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xC0U) != 0x80U) return 0;
    cp = (cp << 6U) | (b(k) & 0x3FU);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

// Code points that change how a terminal shows what follows: C1 controls, line and paragraph
// separators, bidirectional embeddings, overrides and isolates.
bool invisible_control(std::uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029 || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

void hex(std::string& out, const char* prefix, std::uint32_t v, int digits) {
  static constexpr std::string_view kDigits = "0123456789abcdef";
  out += prefix;
  for (int d = digits - 1; d >= 0; --d) out += kDigits[(v >> (4U * static_cast<unsigned>(d))) & 0xFU];
}

// Appends `s` escaped; `quotes` escapes '"' and '\\' too. Stops once `out` grows past `limit`
// bytes of escaped text and reports whether it stopped early.
bool append_escaped(std::string& out, std::string_view s, bool quotes, std::size_t limit) {
  const std::size_t start = out.size();
  for (std::size_t i = 0; i < s.size();) {
    if (out.size() - start >= limit) return true;
    std::uint32_t cp = 0;
    const std::size_t n = utf8_at(s, i, cp);
    if (n == 0) {
      hex(out, "\\x", static_cast<unsigned char>(s[i]), 2);
      ++i;
      continue;
    }
    if (cp == '\n') {
      out += "\\n";
    } else if (cp == '\r') {
      out += "\\r";
    } else if (cp == '\t') {
      out += "\\t";
    } else if (quotes && (cp == '"' || cp == '\\')) {
      out += '\\';
      out += static_cast<char>(cp);
    } else if (cp < 0x20 || cp == 0x7F) {
      hex(out, "\\x", cp, 2);
    } else if (invisible_control(cp)) {
      hex(out, "\\u", cp, 4);
    } else {
      out.append(s.substr(i, n));
    }
    i += n;
  }
  return false;
}

}  // namespace

std::string quote(std::string_view s, std::size_t limit) {
  std::string out = "\"";
  if (append_escaped(out, s, true, limit)) out += "...";
  out += '"';
  return out;
}

std::string escape(std::string_view s, std::size_t limit) {
  std::string out;
  if (append_escaped(out, s, true, limit)) out += "...";
  return out;
}

std::string display_path(std::string_view path) {
  constexpr std::size_t kHead = 40;
  constexpr std::size_t kTail = 77;
  std::string out;
  append_escaped(out, path, false, std::string::npos);
  if (out.size() > kHead + kTail + 3) out = out.substr(0, kHead) + "..." + out.substr(out.size() - kTail);
  return out;
}

std::string printable(std::string_view message) {
  constexpr std::size_t kMessageLimit = 4096;
  std::string out;
  out.reserve(message.size());
  if (append_escaped(out, message, false, kMessageLimit)) out += "...";
  return out;
}

bool is_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    std::uint32_t cp = 0;
    const std::size_t n = utf8_at(s, i, cp);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::vector<std::string> split_names(const std::string& list, const std::string& where) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = list.find(',', start);
    items.push_back(list.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (items.size() < 2) return items;
  if (std::all_of(items.begin(), items.end(), [](const std::string& i) { return i.empty(); })) {
    throw UsageError(where + ": " + quote(list) + " names no " + (where == "--gpu" ? "accelerator" : "model"));
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (items[i].empty()) throw UsageError(where + ": an empty name in " + quote(list));
    if (std::find(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(i), items[i]) !=
        items.begin() + static_cast<std::ptrdiff_t>(i)) {
      throw UsageError(where + ": " + quote(items[i]) + " is given twice");
    }
  }
  return items;
}

}  // namespace roofline::text
