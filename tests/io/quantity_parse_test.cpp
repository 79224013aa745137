// io::parse_* round trips and the exact text of every error, so a CLI user or preset author
// reads the same message the test pins down. GB is 10^9 and GiB 2^30, never confused.
#include "io/quantity_parse.hpp"

#include "roofline/errors.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

using namespace roofline;
using roofline::io::parse_bandwidth;
using roofline::io::parse_bytes;
using roofline::io::parse_count;
using roofline::io::parse_flop_rate;
using roofline::io::parse_fraction;
using roofline::io::parse_rate_count;
using roofline::io::parse_watts;

namespace {

struct Case {
  const char* text;
  double expected;
};

// One relative ulp-scale tolerance for decimal mantissas (3.35 is not a binary fraction).
Approx near(double v) { return Approx(v).epsilon(1e-15).margin(0.0); }

}  // namespace

TEST_CASE("io: parse_bytes: decimal and binary sizes", "[io][quantity]") {
  const std::vector<Case> cases = {
      {"80 GiB", 80.0 * 1073741824.0},
      {"80GiB", 85'899'345'920.0},
      {"80GB", 80e9},
      {"80 GB", 80'000'000'000.0},
      {"192e9 B", 192e9},
      {"1 B", 1.0},
      {"1 kB", 1e3},
      {"1 KB", 1e3},
      {"1 MB", 1e6},
      {"1 TB", 1e12},
      {"1 PB", 1e15},
      {"1 KiB", 1024.0},
      {"1 MiB", 1048576.0},
      {"1 TiB", 1099511627776.0},
      {"1 PiB", 1125899906842624.0},
      {"0.5 GiB", 536870912.0},
      {"  16 GiB\t", 17179869184.0},
      {"0 GB", 0.0},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    CHECK(parse_bytes(c.text).base() == c.expected);
  }
}

TEST_CASE("io: GB and GiB are never confused", "[io][quantity]") {
  CHECK(parse_bytes("80 GiB").base() == 85'899'345'920.0);
  CHECK(parse_bytes("80 GB").base() == 80'000'000'000.0);
  CHECK(parse_bytes("80 GiB").base() != parse_bytes("80 GB").base());
  CHECK(parse_bytes("1 TiB").base() / parse_bytes("1 TB").base() == Approx(1.099511627776));
  CHECK(parse_bandwidth("1 GiB/s").base() == 1073741824.0);
  CHECK(parse_bandwidth("1 GB/s").base() == 1e9);
  // Counts: k is 1000, Ki is 1024.
  CHECK(parse_count("8k") == 8000);
  CHECK(parse_count("8Ki") == 8192);
}

TEST_CASE("io: parse_bandwidth: B/s through TiB/s", "[io][quantity]") {
  const std::vector<Case> cases = {
      {"3.35 TB/s", 3.35e12},   {"819 GB/s", 819e9},    {"1.2 TiB/s", 1.2 * 1099511627776.0},
      {"2.039 TB/s", 2.039e12}, {"5.3 TB/s", 5.3e12},   {"1 B/s", 1.0},
      {"1 kB/s", 1e3},          {"1 KB/s", 1e3},        {"1 MB/s", 1e6},
      {"1 KiB/s", 1024.0},      {"1 MiB/s", 1048576.0}, {"450GB/s", 450e9},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    CHECK(parse_bandwidth(c.text).base() == near(c.expected));
  }
}

TEST_CASE("io: parse_flop_rate: FLOP/s, FLOPS and integer OP/s spellings", "[io][quantity]") {
  const std::vector<Case> cases = {
      {"989.4 TFLOP/s", 989.4e12},
      {"2.5 PFLOP/s", 2.5e15},
      {"1978.9 TOP/s", 1978.9e12},
      {"1 FLOP/s", 1.0},
      {"312 GFLOP/s", 312e9},
      {"1 FLOPS", 1.0},
      {"7 GFLOPS", 7e9},
      {"989.4 TFLOPS", 989.4e12},
      {"1 PFLOPS", 1e15},
      {"5 OP/s", 5.0},
      {"5 GOP/s", 5e9},
      {"1 POP/s", 1e15},
      {"624 TOPS", 624e12},
      {"2 POPS", 2e15},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    CHECK(parse_flop_rate(c.text).base() == near(c.expected));
  }
}

TEST_CASE("io: parse_watts: W and kW", "[io][quantity]") {
  CHECK(parse_watts("700 W") == 700.0);
  CHECK(parse_watts("700W") == 700.0);
  CHECK(parse_watts("1.2 kW") == near(1200.0));
}

TEST_CASE("io: parse_count: decimal and binary multipliers, whole numbers only", "[io][quantity]") {
  struct CountCase {
    const char* text;
    std::int64_t expected;
  };
  const std::vector<CountCase> cases = {
      {"8k", 8000},
      {"8K", 8000},
      {"8Ki", 8192},
      {"8 Ki", 8192},
      {"2T", 2'000'000'000'000},
      {"7B", 7'000'000'000},  // B is billions for counts ("7B parameters"), not bytes
      {"3M", 3'000'000},
      {"1G", 1'000'000'000},
      {"1Mi", 1'048'576},
      {"1Gi", 1'073'741'824},
      {"1Ti", 1'099'511'627'776},
      {"1.5k", 1500},
      {"4096", 4096},
      {"0", 0},
      {"1e3", 1000},
  };
  for (const CountCase& c : cases) {
    INFO(c.text);
    CHECK(parse_count(c.text) == c.expected);
  }
  CHECK(parse_count("4Gi") == std::int64_t{1} << 32);
}

TEST_CASE("io: parse_fraction: plain or percent", "[io][quantity]") {
  CHECK(parse_fraction("0.8") == 0.8);
  CHECK(parse_fraction("80%") == near(0.8));
  CHECK(parse_fraction("80 %") == near(0.8));
  CHECK(parse_fraction("1") == 1.0);
  CHECK(parse_fraction("0") == 0.0);
  // No range check here: callers (--mfu, --bw-efficiency) bound it; --weight-bits reuses it.
  CHECK(parse_fraction("4.125") == 4.125);
  CHECK(parse_fraction("150%") == near(1.5));
}

TEST_CASE("io: quantity errors: exact messages", "[io][quantity][errors]") {
  SECTION("no number") {
    REQUIRE_THROWS_WITH(parse_bytes(""), "\"\" is not a number with a unit; expected a value such as \"80 GiB\"");
    REQUIRE_THROWS_WITH(parse_bytes("GiB"), "\"GiB\" is not a number with a unit; expected a value such as \"80 GiB\"");
    REQUIRE_THROWS_WITH(parse_bandwidth("fast"),
                        "\"fast\" is not a number with a unit; expected a value such as \"3.35 TB/s\"");
    REQUIRE_THROWS_WITH(parse_flop_rate("TFLOP/s"),
                        "\"TFLOP/s\" is not a number with a unit; expected a value such as \"989.4 TFLOP/s\"");
    REQUIRE_THROWS_WITH(parse_watts("W"), "\"W\" is not a number with a unit; expected a value such as \"700 W\"");
    REQUIRE_THROWS_WITH(parse_bytes("+80 GiB"),
                        "\"+80 GiB\" is not a number with a unit; expected a value such as \"80 GiB\"");
    // Counts and fractions need no unit, so their wording does not ask for one.
    REQUIRE_THROWS_WITH(parse_count("many"), "\"many\" is not a number; expected a count such as \"8k\" or \"8Ki\"");
    REQUIRE_THROWS_WITH(parse_fraction("most"),
                        "\"most\" is not a number; expected a value such as \"0.8\" or \"80%\"");
  }
  SECTION("not finite") {
    REQUIRE_THROWS_WITH(parse_bytes("inf GB"), "\"inf GB\" is not a finite number");
    REQUIRE_THROWS_WITH(parse_bandwidth("nan TB/s"), "\"nan TB/s\" is not a finite number");
    REQUIRE_THROWS_WITH(parse_count("inf"), "\"inf\" is not a finite number");
  }
  SECTION("no unit") {
    REQUIRE_THROWS_WITH(parse_bytes("80"), "\"80\" has no unit; expected a size such as \"80 GiB\"");
    REQUIRE_THROWS_WITH(parse_bandwidth("3.35"), "\"3.35\" has no unit; expected a bandwidth such as \"3.35 TB/s\"");
    REQUIRE_THROWS_WITH(parse_flop_rate("989.4"),
                        "\"989.4\" has no unit; expected a compute rate such as \"989.4 TFLOP/s\"");
    REQUIRE_THROWS_WITH(parse_watts("700"), "\"700\" has no unit; expected a power such as \"700 W\"");
  }
  SECTION("wrong kind of unit") {
    REQUIRE_THROWS_WITH(parse_bandwidth("3.35 TB"),
                        "\"3.35 TB\" is a size, expected a bandwidth such as \"3.35 TB/s\"");
    REQUIRE_THROWS_WITH(parse_bytes("3.35 TB/s"), "\"3.35 TB/s\" is a bandwidth, expected a size such as \"80 GiB\"");
    REQUIRE_THROWS_WITH(parse_bytes("700 W"), "\"700 W\" is a power, expected a size such as \"80 GiB\"");
    REQUIRE_THROWS_WITH(parse_bytes("989.4 TFLOP/s"),
                        "\"989.4 TFLOP/s\" is a compute rate, expected a size such as \"80 GiB\"");
    REQUIRE_THROWS_WITH(parse_flop_rate("3.35 TB/s"),
                        "\"3.35 TB/s\" is a bandwidth, expected a compute rate such as \"989.4 TFLOP/s\"");
    REQUIRE_THROWS_WITH(parse_flop_rate("80 GiB"),
                        "\"80 GiB\" is a size, expected a compute rate such as \"989.4 TFLOP/s\"");
    REQUIRE_THROWS_WITH(parse_bandwidth("989.4 TFLOP/s"),
                        "\"989.4 TFLOP/s\" is a compute rate, expected a bandwidth such as \"3.35 TB/s\"");
    REQUIRE_THROWS_WITH(parse_watts("80 GiB"), "\"80 GiB\" is a size, expected a power such as \"700 W\"");
    REQUIRE_THROWS_WITH(parse_watts("1 TB/s"), "\"1 TB/s\" is a bandwidth, expected a power such as \"700 W\"");
  }
  SECTION("unknown unit (units are case-sensitive)") {
    REQUIRE_THROWS_WITH(parse_bytes("80 gib"), "\"80 gib\": unknown unit \"gib\"; did you mean \"GiB\"?");
    REQUIRE_THROWS_WITH(parse_bytes("80 Gb"), "\"80 Gb\": unknown unit \"Gb\"; expected a size such as \"80 GiB\"");
    REQUIRE_THROWS_WITH(parse_bandwidth("3.35 TB/sec"),
                        "\"3.35 TB/sec\": unknown unit \"TB/sec\"; expected a bandwidth such as \"3.35 TB/s\"");
    REQUIRE_THROWS_WITH(parse_flop_rate("989.4 TF"),
                        "\"989.4 TF\": unknown unit \"TF\"; expected a compute rate such as \"989.4 TFLOP/s\"");
    REQUIRE_THROWS_WITH(parse_watts("700 mW"), "\"700 mW\": unknown unit \"mW\"; expected a power such as \"700 W\"");
    CHECK(parse_bandwidth("1 PB/s").base() == 1e15);
    REQUIRE_THROWS_WITH(parse_bandwidth("1 EB/s"),
                        "\"1 EB/s\": unknown unit \"EB/s\"; expected a bandwidth such as \"3.35 TB/s\"");
  }
  SECTION("negative") {
    REQUIRE_THROWS_WITH(parse_bytes("-1 GB"), "\"-1 GB\" is negative; expected a size");
    REQUIRE_THROWS_WITH(parse_bandwidth("-3.35 TB/s"), "\"-3.35 TB/s\" is negative; expected a bandwidth");
    REQUIRE_THROWS_WITH(parse_flop_rate("-1 TFLOP/s"), "\"-1 TFLOP/s\" is negative; expected a compute rate");
    REQUIRE_THROWS_WITH(parse_watts("-700 W"), "\"-700 W\" is negative; expected a power");
  }
  SECTION("counts: unknown multiplier, fractional, negative, too large") {
    REQUIRE_THROWS_WITH(parse_count("8x"),
                        "\"8x\": unknown multiplier \"x\"; allowed k/K M G/B T P (powers of 1000) or Ki Mi Gi Ti Pi "
                        "(powers of 1024)");
    REQUIRE_THROWS_WITH(parse_count("8 KiB"),
                        "\"8 KiB\": unknown multiplier \"KiB\"; allowed k/K M G/B T P (powers of 1000) or Ki Mi Gi "
                        "Ti Pi (powers of 1024)");
    REQUIRE_THROWS_WITH(parse_count("1.5"), "\"1.5\" is not a whole number");
    REQUIRE_THROWS_WITH(parse_count("0.5k1"),
                        "\"0.5k1\": unknown multiplier \"k1\"; allowed k/K M G/B T P (powers of 1000) or Ki Mi Gi "
                        "Ti Pi (powers of 1024)");
    REQUIRE_THROWS_WITH(parse_count("1.0001k"), "\"1.0001k\" is not a whole number");
    REQUIRE_THROWS_WITH(parse_count("-1"), "\"-1\" is negative");
    REQUIRE_THROWS_WITH(parse_count("8Ti8"),
                        "\"8Ti8\": unknown multiplier \"Ti8\"; allowed k/K M G/B T P (powers of 1000) or Ki Mi Gi "
                        "Ti Pi (powers of 1024)");
    REQUIRE_THROWS_WITH(parse_count("5e18"), "\"5e18\" is too large (at most 2^62)");
  }
  SECTION("fractions") {
    REQUIRE_THROWS_WITH(parse_fraction("0.8x"),
                        "\"0.8x\" is not a fraction; expected a value such as \"0.8\" or \"80%\"");
    REQUIRE_THROWS_WITH(parse_fraction("80 percent"),
                        "\"80 percent\" is not a fraction; expected a value such as \"0.8\" or \"80%\"");
  }
}

TEST_CASE("io: quantity errors are InputError (exit code 1)", "[io][quantity][errors]") {
  REQUIRE_THROWS_AS(parse_bandwidth("3.35 TB"), InputError);
  REQUIRE_THROWS_AS(parse_count("1.5"), InputError);
  try {
    (void)parse_bytes("80");
    FAIL("no throw");
  } catch (const Error& e) {
    CHECK(e.exit_code() == 1);
  }
}

// Each wrong count says what is wrong with it (new-user review item 19, reliability R15/R17).
TEST_CASE("io: parse_count: one message per kind of wrong", "[io][quantity][errors]") {
  REQUIRE_THROWS_WITH(parse_count("-5"), "\"-5\" is negative");
  REQUIRE_THROWS_WITH(parse_count("-5k"), "\"-5k\" is negative");
  REQUIRE_THROWS_WITH(parse_count("-1.5"), "\"-1.5\" is negative");
  REQUIRE_THROWS_WITH(parse_count("1e30"), "\"1e30\" is too large (at most 2^62)");
  REQUIRE_THROWS_WITH(parse_count("4611686018427387905"), "\"4611686018427387905\" is too large (at most 2^62)");
  REQUIRE_THROWS_WITH(parse_count("99999999999999999999"), "\"99999999999999999999\" is too large (at most 2^62)");
  REQUIRE_THROWS_WITH(
      parse_count("8Ti8Ti"),
      "\"8Ti8Ti\": unknown multiplier \"Ti8Ti\"; allowed k/K M G/B T P (powers of 1000) or Ki Mi Gi Ti Pi "
      "(powers of 1024)");
  REQUIRE_THROWS_WITH(parse_count("5000000Ti"), "\"5000000Ti\" is too large (at most 2^62)");
  REQUIRE_THROWS_WITH(parse_count("4096.5"), "\"4096.5\" is not a whole number");
  REQUIRE_THROWS_WITH(parse_count("abc"), "\"abc\" is not a number; expected a count such as \"8k\" or \"8Ki\"");
  // Outside double range: too large or too small, not "not a number".
  REQUIRE_THROWS_WITH(parse_count("1e400"), "\"1e400\" is too large");
  REQUIRE_THROWS_WITH(parse_count("1e-400"), "\"1e-400\" is too small");
  REQUIRE_THROWS_WITH(parse_bytes("1e400 B"), "\"1e400 B\" is too large");
  REQUIRE_THROWS_WITH(parse_fraction("1e-400"), "\"1e-400\" is too small");
  REQUIRE_THROWS_WITH(parse_bandwidth("1e999 TB/s"), "\"1e999 TB/s\" is too large");
}

TEST_CASE("io: parse_count: integers are exact up to 2^62", "[io][quantity]") {
  CHECK(parse_count("9007199254740993") == 9'007'199'254'740'993);  // 2^53 + 1, lost through a double
  CHECK(parse_count("4611686018427387904") == std::int64_t{1} << 62);
  CHECK(parse_count("4194304Ti") == std::int64_t{1} << 62);
  CHECK(parse_count("4611686k") == 4'611'686'000);
  // Decimal mantissas are scaled at their exponent, not by a rounded product.
  CHECK(parse_count("238.3k") == 238'300);
  CHECK(parse_count("2.3k") == 2'300);
  CHECK(parse_count("0.1M") == 100'000);
  CHECK(parse_count("1.5e3k") == 1'500'000);
  CHECK(parse_count("1e+3") == 1000);
  CHECK(parse_count("0.5Ki") == 512);
  CHECK(parse_count("-0") == 0);
}

TEST_CASE("io: parse_rate_count: a positive rate with count multipliers", "[io][quantity]") {
  CHECK(parse_rate_count("4M") == 4e6);
  CHECK(parse_rate_count("238.3k") == 238300.0);
  CHECK(parse_rate_count("1e6") == 1e6);
  CHECK(parse_rate_count("50000") == 50000.0);
  CHECK(parse_rate_count("0.5") == 0.5);
  CHECK(parse_rate_count("2Ki") == 2048.0);
  CHECK(parse_rate_count(" 1.5 T ") == 1.5e12);
  REQUIRE_THROWS_WITH(parse_rate_count("50%"), "\"50%\" is a percentage, expected a rate such as \"4M\"");
  REQUIRE_THROWS_WITH(parse_rate_count("0"), "\"0\" is zero; expected a rate such as \"4M\"");
  REQUIRE_THROWS_WITH(parse_rate_count("-4M"), "\"-4M\" is negative; expected a rate such as \"4M\"");
  REQUIRE_THROWS_WITH(parse_rate_count("fast"), "\"fast\" is not a number; expected a rate such as \"4M\"");
  REQUIRE_THROWS_WITH(parse_rate_count("4 tok/s"),
                      "\"4 tok/s\": unknown multiplier \"tok/s\"; allowed k/K M G/B T P (powers of 1000) or Ki Mi Gi "
                      "Ti Pi (powers of 1024)");
  REQUIRE_THROWS_WITH(parse_rate_count("1e400"), "\"1e400\" is too large");
  REQUIRE_THROWS_WITH(parse_rate_count("1e300T"), "\"1e300T\" is too large");
  REQUIRE_THROWS_WITH(parse_rate_count("inf"), "\"inf\" is not a finite number");
}

TEST_CASE("units take the prefixes of the one scale table", "[quantity]") {
  CHECK(roofline::io::parse_bytes("1 PiB").base() == 1125899906842624.0);
  CHECK(roofline::io::parse_bytes("2 KB").base() == 2000.0);
  CHECK(roofline::io::parse_flop_rate("1.5 PFLOP/s").base() == 1.5e15);
  // Compute rates and power take decimal prefixes only.
  REQUIRE_THROWS_WITH(roofline::io::parse_flop_rate("1 TiFLOP/s"),
                      "\"1 TiFLOP/s\": unknown unit \"TiFLOP/s\"; expected a compute rate such as \"989.4 TFLOP/s\"");
}

TEST_CASE("a unit in the wrong case gets a suggestion; decimal scales are exact", "[quantity]") {
  REQUIRE_THROWS_WITH(roofline::io::parse_bytes("80gb"), "\"80gb\": unknown unit \"gb\"; did you mean \"GB\"?");
  REQUIRE_THROWS_WITH(roofline::io::parse_bandwidth("3.35 tb/s"),
                      "\"3.35 tb/s\": unknown unit \"tb/s\"; did you mean \"TB/s\"?");
  // 2.039 x 1e12 in double is 2039000000000.0002; the parser reads 2039e9 exactly.
  CHECK(roofline::io::parse_bandwidth("2.039 TB/s").base() == 2039000000000.0);
  CHECK(roofline::io::parse_flop_rate("989.4 TFLOP/s").base() == 989400000000000.0);
}

TEST_CASE("io: parse_seconds: s, ms, us, min and h; positive; never bare", "[io][quantity]") {
  struct Row {
    const char* text;
    double seconds;
  };
  const Row rows[] = {{"1.2s", 1.2}, {"850ms", 0.85}, {"20us", 20e-6}, {"2min", 120}, {"2h", 7200.0}, {" 3 s", 3.0}};
  for (const Row& r : rows) {
    INFO(r.text);
    CHECK_THAT(roofline::io::parse_seconds(r.text), Catch::Matchers::WithinRel(r.seconds, 1e-15));
  }
  for (const char* bad : {"0s", "-1s", "2days", "s", "", "1.2"}) {
    INFO(bad);
    CHECK_THROWS_AS(roofline::io::parse_seconds(bad), InputError);
  }
  // A bare time is refused like a bare size, with the unit it most likely meant (walkthrough
  // 2026-12-01: --tpot 20 was read as 20 s).
  CHECK_THROWS_WITH(roofline::io::parse_seconds("20"),
                    "\"20\" has no unit; did you mean \"20ms\"? A duration takes s, ms, us, min or h");
  CHECK_THROWS_WITH(roofline::io::parse_seconds("0.05"),
                    Catch::Matchers::StartsWith("\"0.05\" has no unit; did you mean \"0.05s\"?"));
}
