// Unit safety: conversions checked at compile time, and the dimensions that must not mix do not.
#include "roofline/units.hpp"

#include "roofline/dtype.hpp"
#include "roofline/roofline.hpp"

#include <catch2/catch.hpp>

using namespace roofline;
using namespace roofline::units;

// GB is 10^9 and GiB is 2^30, always.
static_assert(gb(1).base() == 1e9);
static_assert(gib(1).base() == 1073741824.0);
static_assert(gib(256.0 / 1024.0).base() == 268435456.0);  // seed 000: 256 MiB
static_assert(tb_per_s(3.35).base() == 3.35e12);
static_assert(tflop_per_s(989.4).base() == 989.4e12);

// Quotients carry their dimension; same-dimension quotients are plain numbers.
static_assert(std::is_same_v<decltype(Flop{} / Bytes{}), FlopPerByte>);
static_assert(std::is_same_v<decltype(Bytes{} / BytesPerSecond{}), Seconds>);
static_assert(std::is_same_v<decltype(Flop{} / FlopPerSecond{}), Seconds>);
static_assert(std::is_same_v<decltype(FlopPerSecond{} / BytesPerSecond{}), FlopPerByte>);
static_assert(std::is_same_v<decltype(Bytes{} / Bytes{}), double>);
static_assert(std::is_same_v<decltype(FlopPerByte{} * BytesPerSecond{}), FlopPerSecond>);

// What must not compile: adding different dimensions, and quotients outside the closed set.
template <typename A, typename B>
concept Addable = requires(A a, B b) {
  a + b;
};
template <typename A, typename B>
concept Divisible = requires(A a, B b) {
  a / b;
};
static_assert(Addable<Bytes, Bytes>);
static_assert(!Addable<Bytes, Seconds>);
static_assert(!Addable<Flop, Bytes>);
static_assert(!Addable<FlopPerSecond, BytesPerSecond>);
static_assert(!Divisible<Flop, BytesPerSecond>);
static_assert(!Divisible<Seconds, Bytes>);

// Ridge point of seed roofline.md's example: 1.97e14 / 8.2e11 = 240.24 FLOP/B.
static_assert(ridge_point(flop_per_s(1.97e14), bytes_per_s(8.2e11)).base() > 240.24 &&
              ridge_point(flop_per_s(1.97e14), bytes_per_s(8.2e11)).base() < 240.25);

static_assert(dtype_bits(DType::bf16) == 16.0 && dtype_bits(DType::int4) == 4.0 && dtype_bits(DType::fp8) == 8.0);
static_assert(dtype_from_name("fp8") == DType::fp8 && !dtype_from_name("fp7").has_value());

TEST_CASE("dtype names round-trip", "[units]") {
  for (DType t : kAllDTypes) CHECK(dtype_from_name(dtype_name(t)) == t);
}

// The one table of scales: decimal prefixes are powers of 1000, binary ones powers of 1024.
static_assert(roofline::units::kGB == 1e9);
static_assert(roofline::units::kGiB == 1073741824.0);
static_assert(roofline::units::prefix_scale("P") == 1e15);
static_assert(roofline::units::prefix_scale("Pi") == 1125899906842624.0);
static_assert(roofline::units::prefix_scale("X") == 0.0);
