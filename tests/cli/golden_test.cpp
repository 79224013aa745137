// Golden JSON: tests/golden/<case>.args runs through run_cli in-process; the output must equal
// <case>.json in structure and strings, numbers within 1e-12 relative. ROOFLINE_UPDATE_GOLDEN=1
// rewrites the files; review the diff like code.
#include "cli/app.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::vector<std::string> split_args(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream s(line);
  std::string w;
  while (s >> w) out.push_back(w);
  return out;
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// Compares two JSON values: structure and strings exactly, numbers within 1e-12 relative.
void compare(const json& got, const json& want, const std::string& where) {
  INFO(where);
  if (want.is_number() && got.is_number()) {
    const double a = got.get<double>();
    const double b = want.get<double>();
    CHECK(std::fabs(a - b) <= 1e-12 * std::max(std::fabs(a), std::fabs(b)));
    return;
  }
  REQUIRE(got.type() == want.type());
  if (want.is_object()) {
    for (const auto& [k, v] : want.items()) {
      INFO("missing key " << where << "/" << k);
      REQUIRE(got.contains(k));
      compare(got.at(k), v, where + "/" + k);
    }
    for (const auto& [k, v] : got.items()) {
      INFO("unexpected key " << where << "/" << k);
      CHECK(want.contains(k));
    }
  } else if (want.is_array()) {
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < want.size(); ++i) compare(got.at(i), want.at(i), where + "/" + std::to_string(i));
  } else {
    CHECK(got == want);
  }
}

}  // namespace

TEST_CASE("golden JSON outputs", "[golden]") {
  const fs::path dir = fs::path(ROOFLINE_SOURCE_DIR) / "tests" / "golden";
  std::vector<fs::path> cases;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".args") cases.push_back(e.path());
  }
  std::sort(cases.begin(), cases.end());
  REQUIRE(cases.size() >= 20);
  const bool update = std::getenv("ROOFLINE_UPDATE_GOLDEN") != nullptr;
  for (const fs::path& args_file : cases) {
    const std::string name = args_file.stem().string();
    // One section per case, so a failing case does not hide the others.
    DYNAMIC_SECTION("golden case " << name) {
      std::vector<std::string> args = split_args(slurp(args_file));
      args.emplace_back("--format");
      args.emplace_back("json");
      std::istringstream in;
      std::ostringstream out;
      std::ostringstream err;
      const int code = roofline::cli::run_cli(args, in, out, err, {});
      INFO(err.str());
      REQUIRE(code == 0);
      const json got = json::parse(out.str());
      fs::path want_file = args_file;
      want_file.replace_extension(".json");
      if (update) {
        std::ofstream(want_file) << got.dump(2) << "\n";
        continue;
      }
      REQUIRE(fs::exists(want_file));
      compare(got, json::parse(slurp(want_file)), "");
    }
  }
}
