// The one catch site tells input errors (1), usage errors (2) and internal errors (70) apart.
#include "cli/app.hpp"

#include <catch2/catch.hpp>

#include <sstream>
#include <stdexcept>

namespace {

// A stream buffer that fails the way a bug would: with an exception that is no roofline::Error.
struct ThrowingBuffer : std::streambuf {
  int_type underflow() override { throw std::logic_error("broken invariant"); }
};

}  // namespace

TEST_CASE("an exception that is not an input error is reported as internal, exit 70", "[errors]") {
  ThrowingBuffer buf;
  std::istream in(&buf);
  in.exceptions(std::ios::badbit);  // rethrow what the buffer throws
  std::ostringstream out;
  std::ostringstream err;
  const int code = roofline::cli::run_cli({"params", "-"}, in, out, err, {});
  CHECK(code == roofline::cli::kInternalErrorExit);
  CHECK(err.str() == "roofline: internal error: broken invariant; please report it\n");
  CHECK(out.str().empty());
}

TEST_CASE("input and usage errors keep their codes and print one line each", "[errors]") {
  std::istringstream in;
  std::ostringstream out;
  std::ostringstream err;
  CHECK(roofline::cli::run_cli({"kv", "llama3-8b", "--context", "-5", "--batch", "x"}, in, out, err, {}) == 1);
  CHECK(err.str() ==
        "roofline: error: --batch: \"x\" is not a number; expected a count such as \"8k\" or \"8Ki\"\n"
        "roofline: error: --context: \"-5\" is negative\n");
  std::ostringstream err2;
  CHECK(roofline::cli::run_cli({"kv", "llama3-8b", "--kv-dtype", "fp9"}, in, out, err2, {}) == 2);
  CHECK(out.str().empty());
}
