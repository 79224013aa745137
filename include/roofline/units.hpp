// Strong quantity types. A value enters by naming its unit and leaves by naming it again.
// Dimensions are (bytes, flop, seconds) exponents; only a closed set of dimensions exists, so
// Bytes + Seconds and Flop / BytesPerSecond do not compile.
#pragma once

#include <compare>
#include <cstdint>

namespace roofline::units {

template <int B, int F, int S>
struct Quantity;

namespace detail {
// The closed set of dimensions the calculator needs. Anything else is a formula mistake.
template <int B, int F, int S>
inline constexpr bool allowed = (B == 1 && F == 0 && S == 0)      // bytes
                                || (B == 0 && F == 1 && S == 0)   // flop
                                || (B == 0 && F == 0 && S == 1)   // seconds
                                || (B == 0 && F == 1 && S == -1)  // flop/s
                                || (B == 1 && F == 0 && S == -1)  // bytes/s
                                || (B == -1 && F == 1 && S == 0)  // flop/byte
                                || (B == 0 && F == 0 && S == -1)  // 1/s (tokens/s, steps/s)
                                || (B == 0 && F == 0 && S == 0);  // dimensionless
}  // namespace detail

/// A double tagged with its dimension. Base units only: B, FLOP, s.
template <int B, int F, int S>
struct Quantity {
  static_assert(detail::allowed<B, F, S>, "quantity of this dimension is not part of roofline");
  double value = 0.0;

  constexpr Quantity() = default;
  constexpr explicit Quantity(double v) : value(v) {}

  /// The value in base units (B, FLOP, s and their ratios).
  [[nodiscard]] constexpr double base() const { return value; }
  /// The value divided by a scale, e.g. in(1e9) gives GB from Bytes.
  [[nodiscard]] constexpr double in(double scale) const { return value / scale; }

  constexpr Quantity& operator+=(Quantity o) {
    value += o.value;
    return *this;
  }
  constexpr Quantity& operator-=(Quantity o) {
    value -= o.value;
    return *this;
  }
  friend constexpr Quantity operator+(Quantity a, Quantity b) { return Quantity{a.value + b.value}; }
  friend constexpr Quantity operator-(Quantity a, Quantity b) { return Quantity{a.value - b.value}; }
  friend constexpr Quantity operator*(Quantity a, double k) { return Quantity{a.value * k}; }
  friend constexpr Quantity operator*(double k, Quantity a) { return Quantity{a.value * k}; }
  friend constexpr Quantity operator/(Quantity a, double k) { return Quantity{a.value / k}; }
  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 false positive on a defaulted <=>.
  friend constexpr auto operator<=>(Quantity a, Quantity b) = default;
};

/// Quotient of two quantities; a dimensionless result is a plain double.
template <int B1, int F1, int S1, int B2, int F2, int S2>
requires detail::allowed<B1 - B2, F1 - F2, S1 - S2>
constexpr auto operator/(Quantity<B1, F1, S1> a, Quantity<B2, F2, S2> b) {
  if constexpr (B1 == B2 && F1 == F2 && S1 == S2) {
    return a.value / b.value;
  } else {
    return Quantity<B1 - B2, F1 - F2, S1 - S2>{a.value / b.value};
  }
}

template <int B1, int F1, int S1, int B2, int F2, int S2>
requires detail::allowed<B1 + B2, F1 + F2, S1 + S2>
constexpr auto operator*(Quantity<B1, F1, S1> a, Quantity<B2, F2, S2> b) {
  if constexpr (B1 + B2 == 0 && F1 + F2 == 0 && S1 + S2 == 0) {
    return a.value * b.value;
  } else {
    return Quantity<B1 + B2, F1 + F2, S1 + S2>{a.value * b.value};
  }
}

using Bytes = Quantity<1, 0, 0>;
using Flop = Quantity<0, 1, 0>;
using Seconds = Quantity<0, 0, 1>;
using FlopPerSecond = Quantity<0, 1, -1>;
using BytesPerSecond = Quantity<1, 0, -1>;
using FlopPerByte = Quantity<-1, 1, 0>;
using PerSecond = Quantity<0, 0, -1>;

// Scales. GB is 10^9 and GiB is 2^30, always.
inline constexpr double kKB = 1e3;
inline constexpr double kMB = 1e6;
inline constexpr double kGB = 1e9;
inline constexpr double kTB = 1e12;
inline constexpr double kKiB = 1024.0;
inline constexpr double kMiB = 1024.0 * 1024.0;
inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
inline constexpr double kTiB = 1024.0 * 1024.0 * 1024.0 * 1024.0;
inline constexpr double kGiga = 1e9;
inline constexpr double kTera = 1e12;
inline constexpr double kPeta = 1e15;
inline constexpr double kSecondsPerDay = 86400.0;

constexpr Bytes bytes(double v) { return Bytes{v}; }
constexpr Bytes gb(double v) { return Bytes{v * kGB}; }
constexpr Bytes gib(double v) { return Bytes{v * kGiB}; }
constexpr Flop flop(double v) { return Flop{v}; }
constexpr Seconds seconds(double v) { return Seconds{v}; }
constexpr FlopPerSecond flop_per_s(double v) { return FlopPerSecond{v}; }
constexpr FlopPerSecond tflop_per_s(double v) { return FlopPerSecond{v * kTera}; }
constexpr BytesPerSecond bytes_per_s(double v) { return BytesPerSecond{v}; }
constexpr BytesPerSecond tb_per_s(double v) { return BytesPerSecond{v * kTB}; }
constexpr BytesPerSecond gb_per_s(double v) { return BytesPerSecond{v * kGB}; }
constexpr FlopPerByte flop_per_byte(double v) { return FlopPerByte{v}; }
constexpr PerSecond per_s(double v) { return PerSecond{v}; }

/// Dimensionless amounts the field confuses with one another: each is its own type so a result
/// member says what it counts, and a view takes the display unit from the member's type.
template <typename Tag, typename Rep>
struct Amount {
  Rep value{};
  constexpr Amount() = default;
  constexpr explicit Amount(Rep v) : value(v) {}
  [[nodiscard]] constexpr Rep base() const { return value; }
  friend constexpr auto operator<=>(Amount a, Amount b) = default;
};

using Tokens = Amount<struct TokensTag, double>;                ///< a real-valued token count (a crossover)
using TokenCount = Amount<struct TokenCountTag, std::int64_t>;  ///< a whole number of tokens
using Sequences = Amount<struct SequencesTag, std::int64_t>;    ///< concurrent sequences
using Fraction = Amount<struct FractionTag, double>;            ///< a share in [0, 1]
using Ratio = Amount<struct RatioTag, double>;                  ///< a quotient of like quantities ("x")
using Watts = Amount<struct WattsTag, double>;

}  // namespace roofline::units
