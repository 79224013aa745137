// Table display: at most four significant digits, separators for counts, token counts as
// integers, negative and huge numbers printed as what they are.
#include "format/report.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>

using roofline::format::display;
using roofline::format::sig4;
using roofline::format::Unit;
using roofline::format::UnitSystem;
using roofline::format::Value;

TEST_CASE("sig4 keeps four significant digits when rounding carries", "[display]") {
  CHECK(sig4(999.96) == "1000");
  CHECK(sig4(9.9996) == "10.00");
  CHECK(sig4(0.99996) == "1.000");
  CHECK(sig4(123456.0) == "123,500");
  CHECK(sig4(1234.4) == "1234");
  CHECK(sig4(1e7) == "1e+07");
}

TEST_CASE("byte sizes never show five digits; bandwidth stays decimal under --units iec", "[display]") {
  CHECK(display(Value{999.96}, Unit::bytes, UnitSystem::si) == "1.000 kB");
  CHECK(display(Value{85899345920.0}, Unit::bytes, UnitSystem::iec) == "80.00 GiB");
  CHECK(display(Value{3.35e12}, Unit::bytes_per_s, UnitSystem::iec) == "3.350 TB/s");
}

TEST_CASE("counts group their digits; tokens are whole; negatives keep their sign", "[display]") {
  CHECK(display(Value{std::int64_t{8030261248}}, Unit::count, UnitSystem::si) == "8,030,261,248");
  CHECK(display(Value{345.1}, Unit::tokens, UnitSystem::si) == "345 tokens");
  CHECK(display(Value{26624.0}, Unit::tokens, UnitSystem::si) == "26,624 tokens");
  CHECK(display(Value{std::int64_t{-1234567}}, Unit::count, UnitSystem::si) == "-1,234,567");
  CHECK(display(Value{std::int64_t{65}}, Unit::sequences, UnitSystem::si) == "65 seq");
  // Past 1e15 a count falls back to significant digits instead of wrapping (reliability R8).
  CHECK(display(Value{5.18e289}, Unit::per_s, UnitSystem::si) == "5.18e+289 tok/s");
  CHECK(display(Value{std::numeric_limits<double>::infinity()}, Unit::seconds, UnitSystem::si) == "n/a");
  CHECK(display(Value{}, Unit::bytes, UnitSystem::si) == "n/a");
}
