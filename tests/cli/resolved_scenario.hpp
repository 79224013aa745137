// A scenario resolved from flag-name/value pairs as the CLI resolves them (the built-in presets), for
// the tests that call the command table and the engine answers on one point.
#pragma once

#include "io/preset_registry.hpp"
#include "io/scenario_spec.hpp"

#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace roofline::test {

inline io::Resolved resolved(const std::vector<std::pair<const char*, const char*>>& flags, bool training = false) {
  static const io::PresetRegistry reg({});
  io::ScenarioSpec spec;
  io::Diagnostics diag;
  for (const auto& [name, value] : flags) {
    if (std::string(name) == "model") {
      spec.model = value;
      continue;
    }
    for (const io::InputDef& d : io::input_defs()) {
      if (std::string(d.name) == name) io::set_input(spec, d, value, diag);
    }
  }
  diag.check();
  std::istringstream in;
  return io::resolve(spec, reg, in, false, training);
}

}  // namespace roofline::test
