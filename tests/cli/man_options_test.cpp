// The man page's option index is generated from the table that --help and the completions read
// (cli::option_index_markdown): docs/roofline.1.md holds it between two markers, and this test
// fails when a flag, its value, its help or its default changes without the page. Regenerate with
// ROOFLINE_UPDATE_MAN=1 ./build/dev/tests/roofline_cli_tests "[man]", then the roff page as the
// README says (Documentation).
#include "cli/app.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace {

const std::string kPage = std::string(ROOFLINE_SOURCE_DIR) + "/docs/roofline.1.md";
const std::string kBegin =
    "<!-- option index: generated from the input table; see tests/cli/man_options_test.cpp -->\n";
const std::string kEnd = "<!-- end of the option index -->\n";

std::string read(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("the man page's option index is the input table's", "[man]") {
  std::string page = read(kPage);
  const std::size_t begin = page.find(kBegin);
  const std::size_t end = page.find(kEnd);
  REQUIRE(begin != std::string::npos);
  REQUIRE(end != std::string::npos);
  const std::size_t from = begin + kBegin.size();
  const std::string generated = roofline::cli::option_index_markdown();
  if (std::getenv("ROOFLINE_UPDATE_MAN") != nullptr) {
    page.replace(from, end - from, generated);
    std::ofstream(kPage, std::ios::binary) << page;
  }
  CHECK(page.substr(from, end - from) == generated);
  // Every input's flag is in it, with its generated default where it has one.
  CHECK(generated.find("**\\--batch** *N*\n:   Sequences per step [default: 1]") != std::string::npos);
  CHECK(generated.find("**\\--zero** *STAGE*") != std::string::npos);
}
