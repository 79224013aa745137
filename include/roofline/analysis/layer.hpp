// The analyses of one layer operator by operator, and one matrix multiply (roofline/analysis.hpp has them all).
#pragma once

#include "roofline/analysis/device.hpp"
#include "roofline/decode.hpp"
#include "roofline/dtype.hpp"
#include "roofline/flops.hpp"
#include "roofline/layer_ops.hpp"
#include "roofline/scenario.hpp"
#include "roofline/units.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace roofline {

// --- layer ---------------------------------------------------------------------------------------

/// Which pass `layer` follows operator by operator, and whether its rows are fused.
struct LayerQuery {
  Phase phase = Phase::decode;
  bool fused = false;  ///< the rows with flash attention and the elementwise operators fused
};

/// One operator on the roofline of the effective machine.
struct LayerOpResult {
  LayerOp op;
  units::Bytes bytes{};                         ///< weights + activations + KV
  std::optional<units::FlopPerByte> intensity;  ///< F / Q; none when fusion left nothing to move
  units::Seconds time{};                        ///< max(F/P, Q/BW)
  Bound bound = Bound::memory;
  units::Fraction share{};  ///< of the time of its layer (or of the head)
};

/// Sums over the operators of one layer, of the head, or of the whole pass.
struct LayerTotals {
  units::Flop flops{};
  units::Bytes weight_bytes{};
  units::Bytes kv_bytes{};
  units::Bytes activation_bytes{};  ///< unfused
  units::Bytes activation_bytes_fused{};
  units::Seconds time{};  ///< the operators' floors summed, unfused
  units::Seconds time_fused{};
};

struct LayerSection {
  LayerKind kind;  ///< the layers the rows describe (the head: one)
  bool head = false;
  std::vector<LayerOpResult> ops;  ///< unfused, or fused under LayerQuery::fused
  LayerTotals totals;              ///< one layer of this kind (the head once)
};

struct LayerResult {
  LayerQuery query;
  LayerPass pass;
  Machine machine;
  bool has_peak = false;
  std::optional<units::FlopPerByte> ridge;  ///< effective P / BW
  std::int64_t batch = 1;
  std::int64_t prompt = 0;
  std::int64_t context = 0;
  double experts_read = 0.0;         ///< routed experts one MoE layer reads in this pass (0: dense)
  std::vector<LayerSection> layers;  ///< one per layer kind, in order of first layer
  LayerSection head;
  LayerTotals totals;  ///< sum_kinds L_k x (one layer) + the head
  units::Bytes bytes_unfused{};
  units::Bytes bytes_fused{};
  double fusion_traffic_ratio = 1.0;  ///< Q_unfused / Q_fused
  // The same pass as decode_step / prefill_pass count it, one roofline for the whole pass: its
  // FLOPs and weight + KV bytes are the totals' (the test holds them equal).
  units::Flop whole_flops{};
  units::Bytes whole_bytes{};
  units::Seconds whole_t_compute{};
  units::Seconds whole_t_memory{};
  /// The pass's floor as its command gives it: decode_step's t_step (the memory side alone without
  /// a peak, as decode prints it); prefill_pass's t_floor, none without a peak (prefill's TTFT floor
  /// is then n/a: N15).
  std::optional<units::Seconds> whole_time;
  Bound whole_bound = Bound::memory;
};
/// Every layer kind and the head, operator by operator, each at t = max(F/P, Q/BW) on the effective
/// machine; FLOPs on the physical basis, the pass of LayerQuery at the workload's batch, prompt or
/// context; totals sum_k L_k (one layer) + head  [WI09] [S003-2.5] [S004]
LayerResult analyze_layer(const Scenario& s, LayerQuery q);

// --- gemm ----------------------------------------------------------------------------------------

struct GemmInputs {
  double m = 0.0;
  double n = 0.0;
  double k = 0.0;
  DType dtype = DType::bf16;
};

struct GemmResult {
  GemmInputs in;
  double element_bytes = 2.0;
  units::Flop flops{};
  units::Bytes bytes{};
  units::FlopPerByte intensity{};
  std::optional<units::FlopPerSecond> peak;
  units::BytesPerSecond bandwidth{};
  std::optional<units::FlopPerByte> ridge;
  std::optional<units::FlopPerSecond> attainable;
  std::optional<units::Seconds> time;
  std::optional<Bound> bound;
};
GemmResult analyze_gemm(const GemmInputs& g, const std::optional<HardwareConfig>& gpu);

}  // namespace roofline
