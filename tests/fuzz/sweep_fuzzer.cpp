// Ranges and lists (io/sweep.hpp): the first byte picks a sweepable input (--batch, --context,
// --kv-dtype, ...), the rest is its text. Checks: only the project's errors escape, with non-empty
// messages of one line each; an axis without an error has between 1 and a million values, each a
// count in [0, 2^62] for a count input, whose text reads back as that count; a range a..b (step or
// factor) ascends strictly; sweep_points of two copies of the axis is their product or an error.
#include "io/quantity_parse.hpp"
#include "io/scenario_spec.hpp"
#include "io/sweep.hpp"

#include "roofline/checked.hpp"
#include "roofline/errors.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_common.hpp"

namespace {

using roofline::fuzz::finding;

const std::vector<const roofline::io::InputDef*>& sweepable() {
  static const std::vector<const roofline::io::InputDef*> defs = [] {
    std::vector<const roofline::io::InputDef*> d;
    for (const auto& def : roofline::io::input_defs()) {
      if (def.sweep != roofline::io::Sweep::none) d.push_back(&def);
    }
    return d;
  }();
  return defs;
}

void check_axis(const roofline::io::InputDef& def, const std::string& text) {
  namespace io = roofline::io;
  io::Diagnostics diag;
  const io::SweepAxis axis = io::sweep_axis(def, text, diag);
  if (!diag.empty()) {
    try {
      diag.check();
      finding("Diagnostics::check did not throw", text);
    } catch (const roofline::Error& e) {
      roofline::fuzz::check_message(e.what(), false);
    }
    return;
  }
  const std::string where = std::string("--") + def.name + " " + text;
  if (axis.texts.empty()) finding("an axis without an error has no values", where);
  if (static_cast<std::int64_t>(axis.texts.size()) > io::kMaxSweepPoints) finding("an axis over the limit", where);
  if (def.sweep == io::Sweep::counts) {
    if (axis.counts.size() != axis.texts.size()) finding("counts and texts differ in length", where);
    // At most about 4,096 values are read back: a legal axis of 10^6 values otherwise costs the
    // harness seconds under ASan (a campaign's timeout, not a finding of the code).
    const std::size_t stride = axis.counts.size() / 4096 + 1;
    for (std::size_t i = 0; i < axis.counts.size(); i += stride) {
      const std::int64_t c = axis.counts[i];
      if (c < 0 || c > (std::int64_t{1} << 62)) finding("a count out of [0, 2^62]", where);
      if (io::parse_count(axis.texts[i]) != c) finding("a value's text does not read back as its count", where);
    }
    // A range alone (no list) ascends strictly.
    if (text.find(',') == std::string::npos && text.find("..") != std::string::npos) {
      for (std::size_t i = 1; i < axis.counts.size(); ++i) {
        if (axis.counts[i] <= axis.counts[i - 1]) finding("a range does not ascend", where);
      }
    }
  }
  if (axis.texts.size() <= 1000) {
    try {
      const std::int64_t n = io::sweep_points({axis, axis});
      const auto k = static_cast<std::int64_t>(axis.texts.size());
      if (n != k * k) finding("sweep_points is not the product of the axes", where);
    } catch (const roofline::Error& e) {
      roofline::fuzz::check_message(e.what(), true);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  namespace io = roofline::io;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  const io::InputDef& def = *sweepable()[data[0] % sweepable().size()];
  try {
    (void)io::is_sweep_text(text);
    // A legal axis of up to 10^6 values costs seconds under ASan: the whole axis is built only
    // when its values are at most 4,096 (expand_counts names a larger one); ctest's replay and the
    // CLI harness build the large ones.
    if (def.sweep == io::Sweep::counts) {
      try {
        const auto values = io::expand_counts(text, 4096);
        if (values.size() > 4096) finding("expand_counts passed its limit", text);
      } catch (const roofline::Error& e) {
        roofline::fuzz::check_message(e.what(), true);
        if (std::string_view(e.what()).find(" values; ") != std::string_view::npos) return 0;
      }
    }
    check_axis(def, text);
    if (def.sweep == io::Sweep::names) (void)io::expand_names(text);
  } catch (const roofline::Error& e) {
    roofline::fuzz::check_message(e.what(), true);
  } catch (const roofline::OverflowError& e) {
    roofline::fuzz::check_message(e.what(), true);
  }
  return 0;
}
