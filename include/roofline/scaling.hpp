// Compute-optimal sizing: the parameters and tokens a FLOP budget buys under a scaling law's fit.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace roofline {

/// A parametric loss fit L(N, D) = E + A / N^alpha + B / D^beta, N parameters, D tokens  [HO22 eq. 2]
struct LossFit {
  std::string_view name;  ///< --scaling-fit NAME
  double e, a, b, alpha, beta;
  std::string_view source;  ///< citation key and place
};

/// Hoffmann et al.'s Approach 3 at the unrounded values of the paper's TeX source (eq. 10 prints
/// E = 1.69, A = 406.4, B = 410.7, 0.34, 0.28; rounded, they give a = 0.452, not the printed 0.46,
/// and 32B, not Fig. 4's 40B, at Gopher's budget)  [HO22 App. D.2] [BE24 §2]
inline constexpr LossFit kHoffmann22{"hoffmann22", 1.693374,  406.4010,       410.7228,
                                     0.33917084,   0.2849083, "HO22 App. D.2"};
/// Besiroglu et al.'s refit of the same data  [BE24 Table 1]
inline constexpr LossFit kBesiroglu24{"besiroglu24", 1.8172, 482.01, 2085.43, 0.3478, 0.3658, "BE24 Table 1"};
inline constexpr std::array<LossFit, 2> kLossFits{kHoffmann22, kBesiroglu24};

/// The tokens a parameter of the rule of thumb (Chinchilla: 70B parameters on 1.4T tokens)  [HO22 Table 3]
inline constexpr double kChinchillaTokensPerParam = 20.0;

/// A compute-optimal allocation of a budget C = 6 N D.
struct ComputeOptimal {
  double params = 0.0;
  double tokens = 0.0;
  std::optional<double> loss;  ///< the fit's predicted loss (nats a token); none for a rule
};

/// What sizes a budget: one of the fits, or the rule of thumb.
enum class ScalingFit { hoffmann22, besiroglu24, tokens20 };
inline constexpr std::size_t kScalingFits = 3;

/// A budget sized under every fit and the rule, `chosen` the one the run takes.
struct SizedBudget {
  double budget_flops = 0.0;
  ScalingFit chosen = ScalingFit::hoffmann22;
  std::array<ComputeOptimal, kScalingFits> rows{};  ///< in ScalingFit order
  [[nodiscard]] const ComputeOptimal& sized() const { return rows[static_cast<std::size_t>(chosen)]; }
};

/// The budget under kHoffmann22, kBesiroglu24 and 20 tokens a parameter, each as a run takes it:
/// N rounded to a whole parameter, D = C / 6N rounded to a whole token, the loss at those.
SizedBudget size_budget(double budget_flops, ScalingFit chosen);

/// L(N, D) = E + A / N^alpha + B / D^beta  [HO22 eq. 2]
double fit_loss(const LossFit& f, double params, double tokens);

/// N_opt = G (C/6)^a, D_opt = G^-1 (C/6)^b, G = (alpha A / (beta B))^(1/(alpha + beta)),
/// a = beta / (alpha + beta), b = alpha / (alpha + beta)  [HO22 eq. 4]
ComputeOptimal compute_optimal(const LossFit& f, double budget_flops);

/// D = r N under C = 6 N D: N = sqrt(C / (6 r))  [HO22 Table 3] [KA20 §2.1]
ComputeOptimal tokens_per_param_rule(double budget_flops, double tokens_per_param);

}  // namespace roofline
