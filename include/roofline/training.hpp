// Training basics: state bytes, total compute, time to train, MFU/HFU.
#pragma once

#include "roofline/activations.hpp"
#include "roofline/units.hpp"

namespace roofline {

/// Mixed-precision Adam: 2 (weights) + 2 (grads) + 4 (fp32 master) + 4 (m) + 4 (v) = 16 B/param
/// [RA20 §3.1]
inline constexpr double kMixedAdamBytesPerParam = 2.0 + 2.0 + 4.0 + 4.0 + 4.0;

/// ZeRO's K: optimizer-state bytes per parameter (master, m, v) = 12  [RA20 §3.1]
inline constexpr double kMixedAdamOptimizerBytesPerParam = 12.0;

/// M_state = k N  [RA20 §3.1]
constexpr units::Bytes training_state_bytes(double params, double bytes_per_param) {
  return units::Bytes{params * bytes_per_param};
}

/// C = 6 N D  [KA20 §2.1]
constexpr units::Flop training_compute(double params, double tokens) { return units::Flop{6.0 * params * tokens}; }

/// T = C / (G X), X the achieved FLOP/s of one device  [S000-1.4] [S003-2.2]
constexpr units::Seconds time_to_train(units::Flop compute, double devices, units::FlopPerSecond achieved_per_device) {
  return compute / (achieved_per_device * devices);
}

/// FLOPs executed per token of a step whose weight FLOPs are C_step (6N; LoRA 4N + 6N_lora) and
/// forward C_fwd: C_step + 3 A + recomputation (selective A, full C_fwd + A)  [KO22 §5] [HU21 §4.2]
constexpr units::Flop executed_step_flops(units::Flop step, units::Flop forward, units::Flop attention, Recompute r) {
  const units::Flop base = step + attention * 3.0;
  switch (r) {
    case Recompute::none:
      return base;
    case Recompute::selective:
      return base + attention;
    case Recompute::full:
      return base + forward + attention;
  }
  return base;
}

/// FLOPs executed per training token: 3 C_fwd + recomputation (selective: the attention core's
/// forward A; full: C_fwd + A), attention in the training pass counted as 3 A  [KO22 §5] [CH22 App. B]
constexpr units::Flop executed_training_flops(units::Flop forward, units::Flop attention, Recompute r) {
  return executed_step_flops(forward * 3.0, forward, attention, r);
}

/// PaLM's model FLOPs per token, attention included: 6 N + 12 L H Q T  [CH22 App. B]
constexpr units::Flop palm_model_flops_per_token(double params, double layers, double heads, double head_dim,
                                                 double seq) {
  return units::Flop{6.0 * params + 12.0 * layers * heads * head_dim * seq};
}

/// Which FLOPs count as the model's for MFU and for a step time at a stated MFU.
enum class ModelFlopsConvention {
  six_n,     ///< 6 N per token  [KA20 §2.1]
  palm,      ///< 6 N + 12 L H Q T per token  [CH22 App. B]
  megatron,  ///< 72 B s L h^2 (1 + s/(6h) + V/(12 h L)) per step  [NA21 §5.1]
};

/// MFU = 6 N tokens_per_s / (G P_peak)  [CH22 App. B]
constexpr double model_flops_utilisation(double params, double tokens_per_s, double devices,
                                         units::FlopPerSecond peak) {
  return 6.0 * params * tokens_per_s / (devices * peak.base());
}

/// HFU = 8 N tokens_per_s / (G P_peak) with full recomputation  [CH22 App. B] [KO22]
constexpr double hardware_flops_utilisation(double params, double tokens_per_s, double devices,
                                            units::FlopPerSecond peak, bool full_recompute) {
  return (full_recompute ? 8.0 : 6.0) * params * tokens_per_s / (devices * peak.base());
}

}  // namespace roofline
