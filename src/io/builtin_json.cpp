// The reader of the built-in presets' text: the JSON the binary embeds, which the preset tests
// parse with the hardened reader too and compare (tests/io/builtin_json_test.cpp). It reads the
// plain JSON the presets are written in, builds the same document nlohmann's reader builds, and
// declines (returns nullopt) on anything else: a \u escape, a number it cannot read exactly, a
// duplicate key, a nesting deeper than the hardened reader's. The caller then reads the text with
// parse_json_text, whose messages name the position. It costs about a tenth of the hardened reader,
// whose lexer copies each byte of a token one at a time (docs/performance.md, issue 24's budget).
#include "io/builtin_json.hpp"

#include "io/preset_registry.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>

namespace roofline::io {
namespace {

class BuiltinReader {
 public:
  explicit BuiltinReader(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {}

  // Without recursion: the containers open on the way down, at most kMaxJsonDepth of them as in
  // parse_json_text, each a node of its parent that nothing moves while it is open.
  bool document(nlohmann::json& root) {
    nlohmann::json* slot = &root;
    for (;;) {
      skip_space();
      if (p_ == end_) return false;
      if (*p_ == '{' || *p_ == '[') {
        const Step opened = open(*slot);
        if (opened == Step::bad) return false;
        if (opened == Step::next_member) {
          slot = member(*open_[depth_ - 1]);
          if (slot == nullptr) return false;
          continue;
        }
      } else if (!scalar(*slot)) {
        return false;
      }
      const Step after = after_value();
      if (after != Step::next_member) return after == Step::done;
      slot = member(*open_[depth_ - 1]);
      if (slot == nullptr) return false;
    }
  }

 private:
  enum class Step { bad, done, next_member };

  // At '{' or '[': the empty container is a whole value (done); else it stays open for its first
  // member (next_member).
  Step open(nlohmann::json& slot) {
    if (depth_ == open_.size()) return Step::bad;
    const char close = *p_ == '{' ? '}' : ']';
    slot = close == '}' ? nlohmann::json::object() : nlohmann::json::array();
    ++p_;
    skip_space();
    if (p_ != end_ && *p_ == close) {
      ++p_;
      return Step::done;
    }
    open_[depth_++] = &slot;
    return Step::next_member;
  }

  // After a value: close the containers that end here; then the document ends (done, with no bytes
  // after it) or a comma leads to the open container's next member.
  Step after_value() {
    for (;;) {
      skip_space();
      if (depth_ == 0) return p_ == end_ ? Step::done : Step::bad;
      if (p_ == end_) return Step::bad;
      if (*p_ != (open_[depth_ - 1]->is_object() ? '}' : ']')) break;
      ++p_;
      --depth_;
    }
    if (*p_ != ',') return Step::bad;
    ++p_;
    return Step::next_member;
  }

  void skip_space() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\t' || *p_ == '\r')) ++p_;
  }

  bool literal(std::string_view word) {
    if (static_cast<std::size_t>(end_ - p_) < word.size() || std::string_view(p_, word.size()) != word) return false;
    p_ += word.size();
    return true;
  }

  // The slot of a container's next member: an array's new last element, or an object's value
  // after its key and colon; nullptr on a malformed or duplicate key.
  nlohmann::json* member(nlohmann::json& container) {
    if (container.is_array()) {
      container.push_back(nullptr);
      return &container.back();
    }
    skip_space();
    if (p_ == end_ || *p_ != '"') return nullptr;
    key_.clear();
    if (!string(key_) || container.contains(key_)) return nullptr;
    skip_space();
    if (p_ == end_ || *p_ != ':') return nullptr;
    ++p_;
    return &container[key_];
  }

  bool scalar(nlohmann::json& out) {
    switch (*p_) {
      case '"': {
        std::string s;
        if (!string(s)) return false;
        out = std::move(s);
        return true;
      }
      case 't':
        out = true;
        return literal("true");
      case 'f':
        out = false;
        return literal("false");
      case 'n':
        out = nullptr;
        return literal("null");
      default:
        return number(out);
    }
  }

  // The bytes up to the closing quote; the escapes the presets use, and no \u (declined).
  bool string(std::string& out) {
    ++p_;  // the opening quote
    for (;;) {
      const char* run = p_;
      while (p_ != end_ && *p_ != '"' && *p_ != '\\' && static_cast<unsigned char>(*p_) >= 0x20) ++p_;
      out.append(run, p_);
      if (p_ == end_ || static_cast<unsigned char>(*p_) < 0x20) return false;
      if (*p_ == '"') {
        ++p_;
        return true;
      }
      if (++p_ == end_) return false;
      const char e = *p_++;
      if (e == '"' || e == '\\' || e == '/') {
        out.push_back(e);
      } else if (e == 'n') {
        out.push_back('\n');
      } else if (e == 't') {
        out.push_back('\t');
      } else {
        return false;
      }
    }
  }

  std::size_t digits() {
    const char* from = p_;
    while (p_ != end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    return static_cast<std::size_t>(p_ - from);
  }

  // JSON's number: nlohmann's types (an unsigned integer, a negative one, or a double), and only
  // what reads exactly here: integers of up to 18 digits, doubles as from_chars rounds them (as
  // strtod does, to nearest).
  bool number(nlohmann::json& out) {
    const char* start = p_;
    const bool negative = *p_ == '-';
    if (negative) ++p_;
    const char* whole = p_;
    const std::size_t n = digits();
    if (n == 0 || (n > 1 && *whole == '0')) return false;
    const char* whole_end = p_;
    bool integral = true;
    if (p_ != end_ && *p_ == '.') {
      integral = false;
      ++p_;
      if (digits() == 0) return false;
    }
    if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
      integral = false;
      ++p_;
      if (p_ != end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (digits() == 0) return false;
    }
    if (!integral) return floating(start, out);
    if (n > 18 || (negative && *whole == '0')) return false;
    std::uint64_t v = 0;
    for (const char* c = whole; c != whole_end; ++c) v = v * 10 + static_cast<std::uint64_t>(*c - '0');
    if (negative) {
      out = -static_cast<std::int64_t>(v);
    } else {
      out = v;
    }
    return true;
  }

  bool floating(const char* start, nlohmann::json& out) const {
    double d = 0.0;
    const auto [ptr, ec] = std::from_chars(start, p_, d);
    if (ec != std::errc() || ptr != p_ || !std::isfinite(d)) return false;
    out = d;
    return true;
  }

  const char* p_;
  const char* end_;
  std::array<nlohmann::json*, kMaxJsonDepth> open_{};
  std::size_t depth_ = 0;
  std::string key_;
};

}  // namespace

std::optional<nlohmann::json> read_builtin_json(std::string_view text) {
  nlohmann::json out;
  BuiltinReader reader(text);
  if (!reader.document(out)) return std::nullopt;
  return out;
}

nlohmann::json parse_builtin_json(std::string_view text, std::string_view where) {
  if (std::optional<nlohmann::json> j = read_builtin_json(text)) return std::move(*j);
  return parse_json_text(text, where);
}

}  // namespace roofline::io
