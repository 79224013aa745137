#include "io/sweep.hpp"

#include "io/quantity_parse.hpp"
#include "io/text.hpp"

#include "roofline/errors.hpp"

namespace roofline::io {
namespace {

std::string quoted(std::string_view s) { return quote(s); }

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// "1,000,000": counts in messages read as the tables print them.
std::string grouped(std::int64_t v) {
  std::string digits = std::to_string(v);
  std::string out;
  const std::size_t n = digits.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0 && (n - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// The items of a comma-separated list, trimmed; an empty one is an error.
std::vector<std::string_view> items_of(std::string_view text) {
  std::vector<std::string_view> items;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string_view item = trim(text.substr(start, comma == std::string_view::npos ? comma : comma - start));
    if (item.empty()) throw InputError(quoted(text) + " has an empty item; separate values with single commas");
    items.push_back(item);
    if (comma == std::string_view::npos) return items;
    start = comma + 1;
  }
}

// One range: first, first + step, ... (additive) or first, first x step, ... (geometric), up to last.
struct Range {
  std::int64_t first = 0;
  std::int64_t last = 0;
  std::int64_t step = 1;
  bool geometric = false;

  [[nodiscard]] std::int64_t size() const {
    if (!geometric) return (last - first) / step + 1;
    std::int64_t n = 1;
    // v step <= last, in integers: v <= floor(last / step).
    for (std::int64_t v = first; v <= last / step; v *= step) ++n;
    return n;
  }
};

// Where a step begins in "b+k" or "b*k": the '*', or a '+' that is not an exponent's sign (1e+3).
std::size_t step_position(std::string_view end) {
  const std::size_t star = end.find('*');
  if (star != std::string_view::npos) return star;
  for (std::size_t i = 1; i < end.size(); ++i) {
    if (end[i] == '+' && end[i - 1] != 'e' && end[i - 1] != 'E') return i;
  }
  return std::string_view::npos;
}

Range parse_range(std::string_view item) {
  const std::size_t dots = item.find("..");
  const std::string_view from = trim(item.substr(0, dots));
  std::string_view to = trim(item.substr(dots + 2));
  if (to.find("..") != std::string_view::npos) throw InputError(quoted(item) + " has more than one \"..\"");
  if (from.empty() || to.empty() || to.front() == '+' || to.front() == '*') {
    throw InputError(quoted(item) + ": a range needs both ends, as in \"1..64\"");
  }
  Range r;
  const std::size_t op = step_position(to);
  if (op != std::string_view::npos) {
    r.geometric = to[op] == '*';
    const std::string_view step = trim(to.substr(op + 1));
    if (step.empty()) throw InputError(quoted(item) + ": a step needs a value, as in \"1..64+8\" or \"1..1024*2\"");
    r.step = parse_count(step);
    to = trim(to.substr(0, op));
  }
  r.first = parse_count(from);
  r.last = parse_count(to);
  if (r.last < r.first) {
    throw InputError(quoted(item) + " runs downwards; write a range from its smaller end, as in \"1..64\"");
  }
  if (!r.geometric && r.step < 1) throw InputError(quoted(item) + ": the step must be at least 1");
  if (r.geometric && r.step < 2) throw InputError(quoted(item) + ": the factor must be at least 2");
  if (r.geometric && r.first < 1) throw InputError(quoted(item) + ": a geometric range starts at 1 or more");
  return r;
}

std::string too_many(std::string_view text, std::int64_t n) {
  return quoted(text) + " has " + grouped(n) + " values; a sweep has at most " + grouped(kMaxSweepPoints) + " points";
}

}  // namespace

bool is_sweep_text(std::string_view text) {
  return text.find(',') != std::string_view::npos || text.find("..") != std::string_view::npos;
}

std::vector<std::int64_t> expand_counts(std::string_view text, std::int64_t limit) {
  // Parse every item and count the values before making any, so "1..1T" fails at once.
  std::vector<Range> ranges;
  std::int64_t total = 0;
  for (const std::string_view item : items_of(text)) {
    Range r;
    if (item.find("..") != std::string_view::npos) {
      r = parse_range(item);
    } else {
      r.first = r.last = parse_count(item);
    }
    total += r.size();  // each size is below 2^62 and the sum stops at the limit
    if (total > limit) throw InputError(too_many(text, total));
    ranges.push_back(r);
  }
  std::vector<std::int64_t> values;
  values.reserve(static_cast<std::size_t>(total));
  for (const Range& r : ranges) {
    const std::int64_t n = r.size();
    std::int64_t v = r.first;
    for (std::int64_t i = 0; i < n; ++i) {
      values.push_back(v);
      if (i + 1 < n) v = r.geometric ? v * r.step : v + r.step;
    }
  }
  return values;
}

// A list of numbers as their texts, each range of whole numbers expanded: "0.5,1..8*2" gives
// 0.5, 1, 2, 4, 8 (each value then read by its input's own parser).
std::vector<std::string> expand_numbers(std::string_view text) {
  std::vector<std::string> out;
  for (const std::string_view item : items_of(text)) {
    if (item.find("..") == std::string_view::npos) {
      out.emplace_back(item);
    } else {
      for (const std::int64_t v : expand_counts(item)) out.push_back(std::to_string(v));
    }
    if (static_cast<std::int64_t>(out.size()) > kMaxSweepPoints) {
      throw InputError(too_many(text, static_cast<std::int64_t>(out.size())));
    }
  }
  return out;
}

std::vector<std::string> expand_names(std::string_view text) {
  std::vector<std::string> names;
  for (const std::string_view item : items_of(text)) {
    if (item.find("..") != std::string_view::npos) {
      throw InputError(quoted(item) + " is a range; this input takes a list of names, as in \"bf16,fp8\"");
    }
    names.emplace_back(item);
  }
  if (static_cast<std::int64_t>(names.size()) > kMaxSweepPoints) {
    throw InputError(too_many(text, static_cast<std::int64_t>(names.size())));
  }
  return names;
}

SweepAxis sweep_axis(const InputDef& def, std::string_view text, Diagnostics& diag) {
  SweepAxis axis;
  axis.def = &def;
  bool ok = false;
  diag.capture(std::string("--") + def.name, [&] {
    if (def.sweep == Sweep::counts) {
      axis.counts = expand_counts(text);
      axis.texts.reserve(axis.counts.size());
      for (const std::int64_t v : axis.counts) axis.texts.push_back(std::to_string(v));
    } else if (def.sweep == Sweep::numbers) {
      axis.texts = expand_numbers(text);
    } else {
      axis.texts = expand_names(text);
    }
    // Each value as one run reads it: "--batch 0..8" fails on 0 as "--batch 0" does.
    ScenarioSpec scratch;
    for (const std::string& t : axis.texts) def.set(scratch, t);
    ok = true;
  });
  if (!ok) {
    axis.texts.clear();
    axis.counts.clear();
  }
  return axis;
}

std::int64_t sweep_points(const std::vector<SweepAxis>& axes, std::int64_t limit) {
  std::int64_t points = 1;
  bool overflow = false;
  std::string flags;
  std::string sizes;
  for (const SweepAxis& a : axes) {
    const auto n = static_cast<std::int64_t>(a.texts.size());
    flags += (flags.empty() ? "--" : " x --") + std::string(a.def->name);
    sizes += (sizes.empty() ? "" : " x ") + grouped(n);
    if (!overflow) overflow = __builtin_mul_overflow(points, n, &points);
  }
  if (overflow || points > limit) {
    std::string why = " points; a sweep has at most " + grouped(limit);
    if (limit < kMaxStreamedPoints) why += " (--format jsonl or csv streams up to " + grouped(kMaxStreamedPoints) + ")";
    throw InputError(flags + ": " + sizes + (overflow ? std::string() : " = " + grouped(points)) + why);
  }
  return points;
}

}  // namespace roofline::io
