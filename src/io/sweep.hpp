// Sweep syntax: a list or a range on a workload input ("--batch 1,8,32", "--context 1k..128k*2")
// makes the command a sweep, one run per point of the grid of every swept input. This file only
// parses; the run loop is cli/sweep.cpp.
//
//   list      a,b,c            the values in the order given (repeats kept)
//   range     a..b             a, a+1, ..., b
//             a..b+k           a, a+k, a+2k, ... up to b (b itself only when the steps reach it)
//             a..b*k           a, a k, a k², ... up to b; k a whole factor of at least 2, a at least 1
//   mixed     1,2,4..1024*2    items of a list may be ranges
//
// Every end, step and factor is a count as the flag takes it (parse_count: 8k = 8000, 8Ki = 8192).
// Inputs marked Sweep::names (data types) take lists only.
#pragma once

#include "io/scenario_spec.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace roofline::io {

/// The most points one sweep may have: the product of its axes' lengths, and each axis alone.
inline constexpr std::int64_t kMaxSweepPoints = 1'000'000;

/// Whether a flag's text is a sweep (it has a comma or "..") rather than one value.
bool is_sweep_text(std::string_view text);

/// The counts a sweep of counts names, in order. Throws InputError (without the flag's name) for an
/// empty item, a range with a missing end, a decreasing range, a zero step, a factor below 2, a
/// geometric range from 0, or more than `limit` values.
std::vector<std::int64_t> expand_counts(std::string_view text, std::int64_t limit = kMaxSweepPoints);

/// The names of a list ("bf16,fp8"), trimmed. Throws InputError for an empty item or a range.
std::vector<std::string> expand_names(std::string_view text);
/// A list of numbers as texts, ranges of whole numbers expanded ("0.5,1..8*2"); throws InputError.
std::vector<std::string> expand_numbers(std::string_view text);

/// One swept input: its definition, and each value as the text the flag takes alone ("1000", "fp8").
struct SweepAxis {
  const InputDef* def = nullptr;
  std::vector<std::string> texts;
  std::vector<std::int64_t> counts;  ///< the values of a Sweep::counts input; empty for names
};

/// Expands `text` for `def` (a sweepable input) and checks every value with the input's own parser,
/// as one run would. Errors are recorded under "--name" and leave the axis empty.
SweepAxis sweep_axis(const InputDef& def, std::string_view text, Diagnostics& diag);

/// The most points of a sweep streamed as it is computed (--format jsonl or csv): at a million
/// points a second, about 12 days.
inline constexpr std::int64_t kMaxStreamedPoints = 1'000'000'000'000;

/// The points of the grid of `axes`. Throws InputError naming the flags and the count when it
/// passes `limit` (kMaxSweepPoints for a sweep held whole, kMaxStreamedPoints for a stream).
std::int64_t sweep_points(const std::vector<SweepAxis>& axes, std::int64_t limit = kMaxSweepPoints);

}  // namespace roofline::io
