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
  CHECK(sig4(999.96) == "1,000");
  CHECK(sig4(9.9996) == "10.00");
  CHECK(sig4(0.99996) == "1.000");
  // From 10^3 to 10^6 a value is shown to the unit with separators: four significant digits would end in zeros that
  // read as an exact count (the reliability review's "device-hours 117,100" for 117,079.4).
  CHECK(sig4(123456.0) == "123,456");
  CHECK(sig4(117079.4) == "117,079");
  CHECK(sig4(99999.6) == "100,000");
  CHECK(sig4(12638.4) == "12,638");
  CHECK(sig4(1234.4) == "1,234");  // separators from 1,000 up (issue 21, P1)
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

TEST_CASE("grouped digits keep the sign under fmt 9.1 and never wrap", "[display][R8]") {
  using roofline::format::grouped;
  using roofline::format::grouped_number;
  // fmt 9.1's group_digits(-5) is "18,446,744,073,709,551,611".
  CHECK(grouped(-5) == "-5");
  CHECK(grouped(-1234567) == "-1,234,567");
  CHECK(grouped(std::numeric_limits<std::int64_t>::min()) == "-9,223,372,036,854,775,808");
  CHECK(grouped(std::numeric_limits<std::int64_t>::max()) == "9,223,372,036,854,775,807");
  CHECK(grouped(0) == "0");
  // llround past 2^63 gave INT64_MIN: 5.18e289 tok/s printed 9,223,372,036,854,775,808.
  CHECK(grouped_number(5.18e289) == "5.18e+289");
  CHECK(grouped_number(-5.18e289) == "-5.18e+289");
  CHECK(grouped_number(-123456.4) == "-123,456");
  CHECK(grouped_number(std::numeric_limits<double>::quiet_NaN()) == "n/a");
  CHECK(display(Value{-5.0}, Unit::count, UnitSystem::si) == "-5");
  CHECK(display(Value{-1e20}, Unit::tokens, UnitSystem::si) == "-1e+20 tokens");
}
