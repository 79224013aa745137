// The worked examples' datasheet facts, read from the built-in presets (the engine's own tests
// cannot read them: they link the engine alone).
#include "io/preset_registry.hpp"

#include "roofline/units.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

using namespace roofline;

TEST_CASE(
    "worked example h100_l2: the h100-sxm preset's L2 is the datasheet's 50 MB [S004 'Where the roofline lies "
    "to you']",
    "[worked-examples]") {
  // The row of tests/fixtures/worked-examples.tsv, so the figure checked is the fixture's.
  std::ifstream tsv(ROOFLINE_SOURCE_DIR "/tests/fixtures/worked-examples.tsv");
  std::string line;
  bool found = false;
  while (std::getline(tsv, line)) {
    if (line.rfind("h100_l2\t", 0) == 0) found = line.find("\t50 MB\t") != std::string::npos;
  }
  REQUIRE(found);
  CHECK(io::PresetRegistry({}).load_gpu("h100-sxm").l2_cache.in(units::kMB) == 50.0);
}
