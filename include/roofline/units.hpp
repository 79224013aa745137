// Strong quantity types. A value enters by naming its unit and leaves by naming it again.
// Dimensions are (bytes, flop, seconds) exponents; only a closed set of dimensions exists, so
// Bytes + Seconds and Flop / BytesPerSecond do not compile.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <string_view>

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

/// A decimal (10^3n) or binary (2^10n) prefix. kPrefixes is the one table of scales: the quantity
/// parser, the presets and the display all read it. GB is 10^9 and GiB is 2^30, always.
struct Prefix {
  std::string_view symbol;
  int exp10;  ///< scale = 10^exp10 x 2^exp2, kept as exponents so counts scale exactly
  int exp2;
  double scale;
};

inline constexpr std::array kPrefixes = {
    Prefix{"k", 3, 0, 1e3},      Prefix{"M", 6, 0, 1e6},      Prefix{"G", 9, 0, 1e9},      Prefix{"T", 12, 0, 1e12},
    Prefix{"P", 15, 0, 1e15},    Prefix{"Ki", 0, 10, 0x1p10}, Prefix{"Mi", 0, 20, 0x1p20}, Prefix{"Gi", 0, 30, 0x1p30},
    Prefix{"Ti", 0, 40, 0x1p40}, Prefix{"Pi", 0, 50, 0x1p50}};

/// The scale of a prefix symbol, 0 when there is none.
constexpr double prefix_scale(std::string_view symbol) {
  for (const Prefix& p : kPrefixes) {
    if (p.symbol == symbol) return p.scale;
  }
  return 0.0;
}

inline constexpr double kKB = prefix_scale("k");
inline constexpr double kMB = prefix_scale("M");
inline constexpr double kGB = prefix_scale("G");
inline constexpr double kTB = prefix_scale("T");
inline constexpr double kKiB = prefix_scale("Ki");
inline constexpr double kMiB = prefix_scale("Mi");
inline constexpr double kGiB = prefix_scale("Gi");
inline constexpr double kTiB = prefix_scale("Ti");
inline constexpr double kTera = prefix_scale("T");
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
