// LoRA and QLoRA fine-tuning: which matrices carry adapters, the adapters' trainable parameters,
// the frozen base in 16 bits or in NF4 with double quantisation, the memory of one device of a
// LoRA run and the FLOPs of a LoRA step. Symbols as in docs/formulas.md §11a: r rank, d_in x d_out
// an adapted matrix (HU21 writes W0 in R^{d x k}), N the base's FLOP parameters, N_lora the adapter
// parameters, n_act the adapted matrices a token passes through over all layers, s sequence length,
// b micro-batch, e bytes per activation element.
#pragma once

#include "roofline/activations.hpp"
#include "roofline/model_config.hpp"
#include "roofline/params.hpp"
#include "roofline/units.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace roofline {

// ---- Targets -------------------------------------------------------------------------------------

/// The adaptable matrices of a decoder layer, as a bitmask. MLA models: q is q_proj (or q_a_proj and
/// q_b_proj), k and v are kv_a_proj and kv_b_proj (adapted once when either is selected), o is o_proj.
/// `experts`: the MLP targets also adapt every routed and shared expert's matrices of MoE layers.
enum class LoraTargets : std::uint8_t {
  none = 0,
  q = 1U << 0U,
  k = 1U << 1U,
  v = 1U << 2U,
  o = 1U << 3U,
  gate = 1U << 4U,  ///< gated MLPs only; a plain MLP has no gate matrix
  up = 1U << 5U,
  down = 1U << 6U,
  experts = 1U << 7U,
  qv = q | v,                        ///< Hugging Face PEFT's default for Llama-family models
  attention = q | k | v | o,         ///< every attention projection
  mlp = gate | up | down | experts,  ///< every MLP matrix, the experts' included
  all = attention | mlp,             ///< every linear layer inside the blocks (QLoRA's recipe)  [DE23 §4]
};

constexpr LoraTargets operator|(LoraTargets a, LoraTargets b) {
  return static_cast<LoraTargets>(static_cast<std::uint8_t>(a) | static_cast<std::uint8_t>(b));
}
constexpr LoraTargets operator&(LoraTargets a, LoraTargets b) {
  return static_cast<LoraTargets>(static_cast<std::uint8_t>(a) & static_cast<std::uint8_t>(b));
}
/// True when `set` holds any matrix of `t`.
constexpr bool has_target(LoraTargets set, LoraTargets t) { return (set & t) != LoraTargets::none; }

/// The matrices of a layer by name, in layer order, and the experts' switch.
struct LoraTargetName {
  std::string_view name;
  LoraTargets target{};
};
inline constexpr std::array kLoraMatrixTargets = {
    LoraTargetName{"q", LoraTargets::q},       LoraTargetName{"k", LoraTargets::k},
    LoraTargetName{"v", LoraTargets::v},       LoraTargetName{"o", LoraTargets::o},
    LoraTargetName{"gate", LoraTargets::gate}, LoraTargetName{"up", LoraTargets::up},
    LoraTargetName{"down", LoraTargets::down}, LoraTargetName{"experts", LoraTargets::experts},
};
/// The named sets; the single matrices are kLoraMatrixTargets (experts is not a name: it follows
/// the MLP matrices unless the list says kLoraNoExperts).
inline constexpr std::array kLoraTargetSets = {
    LoraTargetName{"qv", LoraTargets::qv},
    LoraTargetName{"attention", LoraTargets::attention},
    LoraTargetName{"mlp", LoraTargets::mlp},
    LoraTargetName{"all", LoraTargets::all},
};
inline constexpr std::string_view kLoraNoExperts = "no-experts";

/// A comma list of q, k, v, o, gate, up, down and the set names qv, attention, mlp, all; naming an
/// MLP matrix adapts the experts' too unless `no-experts` is in the list. None when the list is
/// empty, has an unknown or empty name, or selects nothing.
std::optional<LoraTargets> parse_lora_targets(std::string_view list);

// ---- Trainable parameters ------------------------------------------------------------------------

/// One shape of adapted matrix and how many the model holds.
struct LoraMatrix {
  std::string_view name;             ///< "q_proj", "experts.gate_proj", "shared_experts.down_proj", ...
  LoraTargets target{};              ///< the target that selects it
  std::int64_t d_in = 0;             ///< the matrix maps d_in -> d_out
  std::int64_t d_out = 0;            ///< A is d_in x r, B is r x d_out
  std::int64_t matrices = 0;         ///< adapted matrices of this shape over all layers
  std::int64_t active_matrices = 0;  ///< of them, the ones one token passes through (top-k experts)
  std::int64_t params = 0;           ///< matrices r (d_in + d_out)
  std::int64_t active_params = 0;    ///< active_matrices r (d_in + d_out)
};

/// The adapters of a model: one row per shape, rows with no matrix omitted.
struct LoraParams {
  std::int64_t rank = 0;                     ///< r
  std::vector<LoraMatrix> matrices;          ///< attention, then the dense MLP, routed and shared experts
  std::int64_t adapted_matrices = 0;         ///< sum of matrices
  std::int64_t active_adapted_matrices = 0;  ///< sum of active_matrices
  std::int64_t total = 0;                    ///< N_lora: trainable parameters stored
  std::int64_t active = 0;                   ///< trainable parameters one token multiplies
};

/// r (d + k) per adapted d x k matrix: A is d x r, B is r x k  [HU21 §4.1]
constexpr std::int64_t lora_matrix_params(std::int64_t rank, std::int64_t d_in, std::int64_t d_out) {
  return rank * (d_in + d_out);
}

/// N_lora = sum over adapted matrices of r (d_in + d_out), each matrix at its real shape  [HU21 §4.1]
LoraParams lora_params(const ModelConfig& m, LoraTargets targets, std::int64_t rank);

// ---- The frozen base -----------------------------------------------------------------------------

/// First-level NF4 block: one absmax constant per 64 weights  [DE23 §3]
inline constexpr double kNf4Block = 64.0;
/// Second-level block of double quantisation: one fp32 constant per 256 first-level constants  [DE23 §3]
inline constexpr double kNf4DoubleQuantBlock = 256.0;

/// 4 + 32/64 = 4.5 bits per parameter; double quantisation 4 + 8/64 + 32/(64 x 256) = 4.127  [DE23 §3]
constexpr double nf4_bits_per_param(bool double_quant) {
  return double_quant ? 4.0 + 8.0 / kNf4Block + 32.0 / (kNf4Block * kNf4DoubleQuantBlock) : 4.0 + 32.0 / kNf4Block;
}

/// The frozen base's weight bytes, split by what is quantised.
struct FrozenBaseBytes {
  std::int64_t quantised_params = 0;  ///< N_q: weight matrices inside the layers (router excluded)
  std::int64_t other_params = 0;      ///< N_o: embedding, head, norms, biases, router, projections
  units::Bytes bytes;                 ///< N_q b_q/8 + N_o b_o
};

/// M_base = N_q b_q/8 + N_o b_o, model-wide (QLoRA: b_q = 4.127, b_o = 2; LoRA: 16 and 2)  [DE23 §3]
FrozenBaseBytes frozen_base_bytes(const ParamCounts& c, double matrix_bits, double other_bytes);

// ---- Memory of a LoRA run ------------------------------------------------------------------------

/// One micro-batch of a LoRA run. The adapters' recipe bytes default to mixed-precision Adam
/// (kOptimizerRecipes' mixed-adam: 2 + 2 + 12); pass another RecipeBytes' three fields.
struct LoraRunOptions {
  double seq_len = 0.0;            ///< s
  double micro_batch = 1.0;        ///< b
  double bytes_per_element = 2.0;  ///< e, activation dtype
  Recompute recompute = Recompute::none;
  double weight_bytes = 2.0;      ///< w per adapter parameter
  double gradient_bytes = 2.0;    ///< g per adapter parameter
  double optimizer_bytes = 12.0;  ///< o per adapter parameter (master + moments)
};

/// s b r e n_act: x A, kept for B's weight gradient, per adapted matrix a token passes  (derived) [HU21 §4.1]
units::Bytes lora_adapter_activations(const LoraParams& p, const LoraRunOptions& o);

/// The memory of one device holding the whole model (a data-parallel replica), term by term.
struct LoraMemory {
  units::Bytes base_weights;         ///< frozen: no gradient, no optimizer state
  units::Bytes adapter_weights;      ///< w N_lora
  units::Bytes adapter_gradients;    ///< g N_lora
  units::Bytes adapter_optimizer;    ///< o N_lora (QLoRA's paged states counted on the device)
  units::Bytes adapter_activations;  ///< lora_adapter_activations
  units::Bytes base_activations;     ///< the caller's: full fine-tuning's activations, an upper bound
  [[nodiscard]] constexpr units::Bytes total() const {
    return base_weights + adapter_weights + adapter_gradients + adapter_optimizer + adapter_activations +
           base_activations;
  }
};

/// M = M_base + (w + g + o) N_lora + s b r e n_act + M_act(base)  (derived) [HU21 §4.2] [DE23 §3]
LoraMemory lora_memory(const FrozenBaseBytes& base, const LoraParams& p, const LoraRunOptions& o,
                       units::Bytes base_activations);

// ---- Compute -------------------------------------------------------------------------------------

/// C = 4N + 6N_lora per token: 2N + 2N_lora forward, 2N + 4N_lora backward (base frozen)  (derived) [HU21 §4.2]
constexpr units::Flop lora_training_flops_per_token(double base_params, double lora_active_params) {
  return units::Flop{4.0 * base_params + 6.0 * lora_active_params};
}

}  // namespace roofline
