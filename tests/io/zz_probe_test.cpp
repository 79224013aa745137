#define JSON_DIAGNOSTICS 1
#include <catch2/catch.hpp>
#include <iostream>
#include <sstream>
#include "io/preset_registry.hpp"
#include "io/preset_json.hpp"
#include "roofline/params.hpp"
using namespace roofline::io;
TEST_CASE("probe") {
  PresetRegistry r({});
  std::vector<std::string> g, m;
  for (auto* e : r.entries(PresetKind::gpu)) g.push_back(e->name);
  for (auto* e : r.entries(PresetKind::model)) m.push_back(e->name);
  for (auto s : {"h10", "h100", "h100-sx", "mi300", "llama3-8", "lama3-8b", "gpt", "zzzzzz", "a100"}) {
    std::cout << s << " gpu-> '" << did_you_mean(s, g) << "' model-> '" << did_you_mean(s, m) << "'\n";
  }
  std::istringstream in;
  for (auto s : {"h10", "h100", "mi300", "zzzz", "a100", "h100-sxm5"}) {
    try { auto h = r.load_gpu(s); std::cout << s << " loads " << h.name << "\n"; } catch (std::exception& e) { std::cout << e.what() << "\n"; }
  }
  for (auto s : {"llama3-8", "lama3-8b", "zzzz", "gemma3-27"}) {
    try { auto p = r.load_model(s, in); std::cout << s << " loads " << p.config.name << "\n"; } catch (std::exception& e) { std::cout << e.what() << "\n"; }
  }
}
