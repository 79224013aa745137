// Compute-optimal sizing under a parametric loss fit, and the fixed tokens-per-parameter rule.
#include "roofline/scaling.hpp"

#include <cmath>

namespace roofline {

double fit_loss(const LossFit& f, double params, double tokens) {
  return f.e + f.a / std::pow(params, f.alpha) + f.b / std::pow(tokens, f.beta);
}

ComputeOptimal compute_optimal(const LossFit& f, double budget_flops) {
  const double sum = f.alpha + f.beta;
  const double g = std::pow((f.alpha * f.a) / (f.beta * f.b), 1.0 / sum);
  const double c6 = budget_flops / 6.0;
  ComputeOptimal o;
  o.params = g * std::pow(c6, f.beta / sum);
  o.tokens = std::pow(c6, f.alpha / sum) / g;
  o.loss = fit_loss(f, o.params, o.tokens);
  return o;
}

ComputeOptimal tokens_per_param_rule(double budget_flops, double tokens_per_param) {
  ComputeOptimal o;
  o.params = std::sqrt(budget_flops / (6.0 * tokens_per_param));
  o.tokens = tokens_per_param * o.params;
  return o;
}

namespace {

// As a run takes it: whole parameters, and the budget's whole tokens for them, D = C / 6N.
ComputeOptimal as_run(ComputeOptimal o, double budget_flops, const LossFit* f) {
  o.params = std::round(o.params);
  o.tokens = o.params >= 1.0 ? std::round(budget_flops / (6.0 * o.params)) : 0.0;
  if (f != nullptr && o.params >= 1.0 && o.tokens >= 1.0) o.loss = fit_loss(*f, o.params, o.tokens);
  return o;
}

}  // namespace

SizedBudget size_budget(double budget_flops, ScalingFit chosen) {
  SizedBudget s;
  s.budget_flops = budget_flops;
  s.chosen = chosen;
  const auto at = [&s](ScalingFit f) -> ComputeOptimal& { return s.rows[static_cast<std::size_t>(f)]; };
  at(ScalingFit::hoffmann22) = as_run(compute_optimal(kHoffmann22, budget_flops), budget_flops, &kHoffmann22);
  at(ScalingFit::besiroglu24) = as_run(compute_optimal(kBesiroglu24, budget_flops), budget_flops, &kBesiroglu24);
  at(ScalingFit::tokens20) =
      as_run(tokens_per_param_rule(budget_flops, kChinchillaTokensPerParam), budget_flops, nullptr);
  return s;
}

}  // namespace roofline
