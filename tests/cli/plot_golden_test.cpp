// Golden SVGs: tests/golden/svg/<case>.args runs through run_cli in-process with --format svg, and the
// output must equal <case>.svg byte for byte (the renderer writes every coordinate with one decimal,
// so a chart gives the same bytes everywhere). To regenerate after a deliberate change:
//   ROOFLINE_UPDATE_GOLDEN=1 ctest --test-dir build/dev -R "golden SVG|roofline-example"
// and review the pictures (and the diff) like code.
#include "cli/app.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("golden SVG pictures", "[plot][golden]") {
  const fs::path dir = fs::path(ROOFLINE_SOURCE_DIR) / "tests" / "golden" / "svg";
  std::vector<fs::path> cases;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".args") cases.push_back(e.path());
  }
  std::sort(cases.begin(), cases.end());
  REQUIRE(cases.size() >= 2);
  const bool update = std::getenv("ROOFLINE_UPDATE_GOLDEN") != nullptr;
  for (const fs::path& args_file : cases) {
    DYNAMIC_SECTION("golden SVG " << args_file.stem().string()) {
      std::vector<std::string> args;
      std::istringstream words(slurp(args_file));
      std::string w;
      while (words >> w) args.push_back(w);
      args.insert(args.end(), {"--format", "svg"});
      std::istringstream in;
      std::ostringstream out;
      std::ostringstream err;
      const int code = roofline::cli::run_cli(args, in, out, err, {});
      INFO(err.str());
      REQUIRE(code == 0);
      fs::path golden = args_file;
      golden.replace_extension(".svg");
      if (update) {
        std::ofstream(golden, std::ios::binary) << out.str();
        continue;
      }
      REQUIRE(fs::exists(golden));
      const std::string want = slurp(golden);
      // The first differing line, for a readable failure.
      if (out.str() != want) {
        std::istringstream a(out.str());
        std::istringstream b(want);
        std::string la;
        std::string lb;
        int line = 1;
        while (std::getline(a, la) && std::getline(b, lb) && la == lb) ++line;
        FAIL_CHECK(golden.filename().string() << " differs at line " << line << "\n got: " << la << "\nwant: " << lb);
      }
    }
  }
}

TEST_CASE("docs/roofline-example.svg is the done-when command's picture", "[plot][golden]") {
  // README shows it: roofline plot llama3-8b --gpu h100-sxm,mi300x --batch 1,8,64,512 -o roofline.svg
  const fs::path docs = fs::path(ROOFLINE_SOURCE_DIR) / "docs" / "roofline-example.svg";
  std::istringstream in;
  std::ostringstream out;
  std::ostringstream err;
  REQUIRE(roofline::cli::run_cli(
              {"plot", "llama3-8b", "--gpu", "h100-sxm,mi300x", "--batch", "1,8,64,512", "--format", "svg"}, in, out,
              err, {}) == 0);
  if (std::getenv("ROOFLINE_UPDATE_GOLDEN") != nullptr) std::ofstream(docs, std::ios::binary) << out.str();
  const bool current = slurp(docs) == out.str();
  INFO("docs/roofline-example.svg is out of date: ROOFLINE_UPDATE_GOLDEN=1 rewrites it");
  CHECK(current);
}
