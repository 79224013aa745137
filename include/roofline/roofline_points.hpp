// What a picture of the roofline shows, as numbers: each data type's roof of an accelerator, the
// workloads placed on it, and a capacity split into its terms. Every coordinate is read from an
// analyze_* result (a point's intensity is the F / Q its analysis stored) and composed here, in
// the engine, so the plot code only draws.
#pragma once

#include "roofline/analysis.hpp"
#include "roofline/dtype.hpp"
#include "roofline/roofline.hpp"
#include "roofline/scenario.hpp"
#include "roofline/units.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace roofline {

/// One data type's flat roof on the effective machine.
struct DtypeCeiling {
  DType dtype = DType::bf16;
  units::FlopPerSecond peak{};  ///< G P_dtype mfu
  units::FlopPerByte ridge{};   ///< peak / BW: where the bandwidth slope meets this roof
};

/// An accelerator's roofline: the bandwidth slope and one roof per data type with a published peak.
struct RooflineCeilings {
  std::string name;
  std::string display_name;
  std::int64_t devices = 1;
  DType compute_dtype = DType::bf16;   ///< the roof the workload points are placed under
  units::BytesPerSecond bandwidth{};   ///< G B_peak eta_bw: the slope P = I BW
  std::vector<DtypeCeiling> ceilings;  ///< in kAllDTypes order; only the data types with a peak
};

/// Each data type's roof of the scenario's machine: P_d = G P_peak,d mfu, ridge_d = P_d / BW,
/// BW = G B_peak eta_bw; the scenario needs an accelerator  [WI09] [D13]
RooflineCeilings analyze_ceilings(const Scenario& s);

/// What a point on the roofline is.
enum class PointKind { decode, prefill, train, gemm, layer_op };

/// One workload on the roofline of its result's machine.
struct RooflinePoint {
  PointKind kind = PointKind::decode;
  std::int64_t batch = 1;    ///< decode and prefill: B
  std::int64_t context = 0;  ///< decode: T
  std::int64_t prompt = 0;   ///< prefill: S
  GemmInputs gemm;           ///< gemm: M, N, K
  std::string_view op_id;    ///< layer_op: the operator's stable key
  std::string_view op_name;  ///< layer_op: its name as the layer table prints it
  OpKind op_kind = OpKind::matmul;
  units::Flop flops{};
  units::Bytes bytes{};
  units::FlopPerByte intensity{};     ///< the result's I = F / Q
  units::FlopPerSecond attainable{};  ///< min(P, I BW) on the result's machine
  Bound bound = Bound::memory;
};

/// A decode step on its roofline: I = the step's F / Q, P_att = min(P, I BW)  [WI09] [S003-2.5]
RooflinePoint decode_point(const DecodeResult& r);

/// A prefill pass on its roofline: I = the pass's F / Q, P_att = min(P, I BW)  [WI09] [S004]
RooflinePoint prefill_point(const PrefillResult& r);

/// A GEMM on the roofline of `machine`: I = 2mnk / (b (mk + kn + mn)) from the result,
/// P_att = min(P, I BW)  [WI09] [S002-intensity]
RooflinePoint gemm_point(const GemmResult& r, Machine machine);

/// A training micro-batch of b x s tokens on its roofline: the weight GEMMs of every layer and the
/// head at M = b s. The forward GEMM (M x K)(K x N), the data-gradient GEMM (M x N)(N x K) and the
/// weight-gradient GEMM (K x M)(M x N) permute the same three sizes, so each has F = 2MNK and
/// Q = b(MK + KN + MN), and the step's I = sum F / sum Q over a prefill-phase layer result of
/// b x s tokens, unfused, with the head at all b s positions (a prefill's is at the last only)
/// [S002-intensity] [KA20 §2.1]
RooflinePoint train_point(const LayerResult& r);

/// The operators of the first layer kind whose traffic is not a weight read (norms, RoPE,
/// softmax, activation, residual adds, MoE combine; and the attention core, QK^T and attention x V,
/// which read the cache), each at its I = F / Q and P_att = min(P, I BW). Operators with no
/// FLOPs counted have I = 0 and are kept, for a caller to name  [WI09] [S003-3.3]
std::vector<RooflinePoint> layer_op_points(const LayerResult& r);

/// The KV term of inference memory: B M_KV(T)  [S003-3.4]
constexpr units::Bytes batch_kv_bytes(units::Bytes kv_per_sequence, double batch) { return kv_per_sequence * batch; }

/// Capacity left after inference memory: C - (M_w + R + B M_KV(T)); negative when it does not fit  [S003-3.4]
constexpr units::Bytes unused_bytes(units::Bytes capacity, units::Bytes required) { return capacity - required; }

/// A capacity split into its terms: weights, the batch's KV cache, the reserve, and what is left.
struct MemoryBreakdown {
  units::Bytes capacity{};   ///< C, all devices
  units::Bytes weights{};    ///< M_w
  units::Bytes kv{};         ///< B M_KV(T)
  units::Bytes reserve{};    ///< R, all devices
  units::Bytes required{};   ///< M_w + R + B M_KV(T)
  units::Bytes unused{};     ///< C - required (negative: over capacity by that much)
  std::int64_t devices = 1;  ///< G: capacity and reserve are of all of them
  std::int64_t batch = 1;
  std::int64_t context = 0;
  bool fits = false;
};

/// The terms of a capacity check, each read from the result; KV = B M_KV(T), unused = C - M  [S003-3.4]
MemoryBreakdown memory_breakdown(const CapacityResult& c);

/// A training device's memory split into its terms: the model states (weights, gradients,
/// optimizer states), the larger of the forward-backward working set (activations and ZeRO-3's
/// gathered buffers) and the optimizer step's temporary, the reserve, and what is left.
struct TrainMemoryBreakdown {
  units::Bytes capacity{};             ///< C of one device
  units::Bytes weights{};              ///< w Psi (sharded as the ZeRO stage says)
  units::Bytes gradients{};            ///< g Psi
  units::Bytes optimizer{};            ///< o Psi
  units::Bytes working{};              ///< max(A + B_z3, T_opt)
  bool working_is_activations = true;  ///< A + B_z3 is the larger (else the optimizer temporary)
  units::Bytes reserve{};              ///< R
  units::Bytes required{};             ///< the device's total M
  units::Bytes unused{};               ///< C - M (negative: over capacity by that much)
  std::int64_t devices = 1;
  bool fits = false;
};

/// The terms of a training device's memory, each read from the result:
/// M = (w + g + o) Psi + max(A + B_z3, T_opt) + R, unused = C - M  [RA20 §5] [KO22 §4]
TrainMemoryBreakdown train_memory_breakdown(const TrainResult& t);

}  // namespace roofline
