// The one parser for quantities with units, shared by the CLI and the preset loader.
#pragma once

#include "roofline/units.hpp"

#include <cstdint>
#include <string_view>

namespace roofline::io {

enum class QuantityKind { bytes, bandwidth, flop_rate, count, power, flop };

/// "80 GiB", "80GB", "192e9 B". Throws InputError naming what was expected.
units::Bytes parse_bytes(std::string_view text);
/// "3.35 TB/s", "819 GB/s", "1.2 TiB/s".
units::BytesPerSecond parse_bandwidth(std::string_view text);
/// "989.4 TFLOP/s", "2.5 PFLOP/s", "1978.9 TOP/s".
units::FlopPerSecond parse_flop_rate(std::string_view text);
/// "700 W", "1.2 kW".
double parse_watts(std::string_view text);
/// Counts with decimal (k, M, G, T) or binary (Ki, Mi, Gi, Ti) multipliers: "8k" = 8000,
/// "8Ki" = 8192, "2T" = 2e12. Must be a whole number in [0, 2^62]; integers are read exactly.
std::int64_t parse_count(std::string_view text);
/// A positive rate with the count multipliers: "4M" = 4e6, "238.3k", "1e6", "50000", "2Ki".
/// Refuses percentages ("50%"), zero and negative values.
double parse_rate_count(std::string_view text);
/// A positive FLOP count with the count multipliers: "5.76e23", "1e24", "3.8e25", "100E" (10^20).
double parse_flop_count(std::string_view text);
/// A plain fraction or percentage: "0.8", "80%".
double parse_fraction(std::string_view text);

/// A duration in seconds: "1.2s", "850ms", "20us", "2min", "2h"; positive, with its unit (a bare
/// number is refused, with the unit it most likely meant).
double parse_seconds(std::string_view text);

}  // namespace roofline::io
