// train --compute-budget: the parameters and tokens a FLOP budget buys under each scaling fit, and
// the one that sized the run.
#include "format/field.hpp"
#include "format/views.hpp"

#include <fmt/format.h>

#include <string>

#include "text/names.hpp"

namespace roofline::format {
namespace {

struct B {
  const SizedBudget& b;
  const Subject& in;
  [[nodiscard]] double params() const { return b.sized().params; }
  [[nodiscard]] double tokens() const { return b.sized().tokens; }
  [[nodiscard]] bool rule() const { return b.chosen == ScalingFit::tokens20; }
  [[nodiscard]] const LossFit& fit() const { return b.chosen == ScalingFit::besiroglu24 ? kBesiroglu24 : kHoffmann22; }
};

std::string fit_name(ScalingFit f) { return std::string(text::name_of(f)); }

const char* fit_source(ScalingFit f) {
  switch (f) {
    case ScalingFit::hoffmann22:
      return "HO22 eq. 4, Approach 3 (App. D.2's fit at its unrounded values)";
    case ScalingFit::besiroglu24:
      return "BE24's refit of HO22's Approach 3 data";
    case ScalingFit::tokens20:
      return "20 tokens a parameter (Chinchilla: 70B on 1.4T; HO22 Table 3)";
  }
  return "";
}

const std::vector<Field<B>> kBudget = {
    {"budget_flops", "compute budget C", "KA20-2.1", "C = 6 N D",
     [](const B& x) { return cell(units::Flop{x.b.budget_flops}); }},
    {"scaling_fit", "sized by", "HO22-3.3", "", [](const B& x) { return cell(fit_name(x.b.chosen)); }, nullptr,
     [](const B& x) { return std::string(fit_source(x.b.chosen)); }},
    {"params_count", "compute-optimal parameters N", "HO22-3.3",
     "N_opt = G (C/6)^a, G = (alpha A / (beta B))^(1/(alpha + beta)), a = beta / (alpha + beta); the rule: "
     "N = sqrt(C / (6 r))",
     [](const B& x) { return cell(static_cast<std::int64_t>(x.params())); },
     [](const B& x) {
       if (x.rule()) return fmt::format("sqrt({:.9g} / (6 x {}))", x.b.budget_flops, kChinchillaTokensPerParam);
       const LossFit& f = x.fit();
       return fmt::format("({} x {} / ({} x {}))^(1/{}) x ({:.9g} / 6)^{:.9g}", f.alpha, f.a, f.beta, f.b,
                          f.alpha + f.beta, x.b.budget_flops, f.beta / (f.alpha + f.beta));
     },
     [](const B&) { return std::string("rounded to a whole parameter"); }},
    {"tokens", "training tokens D", "KA20-2.1", "D = C / (6 N)",
     [](const B& x) { return cell(units::TokenCount{static_cast<std::int64_t>(x.tokens())}); },
     [](const B& x) { return fmt::format("{:.9g} / (6 x {})", x.b.budget_flops, x.params()); },
     [](const B&) { return std::string("the budget's tokens for N, rounded to a whole token"); }},
    {"tokens_per_param", "tokens a parameter", "HO22-3.3", "D / N",
     [](const B& x) { return number(x.tokens() / x.params()); }},
    {"predicted_loss", "the fit's loss at N, D", "HO22-3.3", "L = E + A / N^alpha + B / D^beta",
     [](const B& x) {
       Cell c = number(x.b.sized().loss.value_or(0.0));
       if (!x.b.sized().loss) c.value = std::monostate{};
       return c;
     },
     [](const B& x) {
       const LossFit& f = x.fit();
       return fmt::format("{} + {} / {}^{} + {} / {}^{}", f.e, f.a, x.params(), f.alpha, f.b, x.tokens(), f.beta);
     },
     [](const B& x) {
       return x.rule() ? std::string("a rule of thumb predicts no loss")
                       : std::string(
                             "nats a token on the fit's own data (MassiveText); not comparable across "
                             "datasets or tokenizers");
     }},
};

}  // namespace

void add_compute_optimal(Report& rep, const Subject& in, const SizedBudget& b, const ViewOptions& view) {
  const B x{b, in};
  rep.sections.push_back(make_section("compute_optimal", "Compute-optimal size", kBudget, x, view));
  Table t{"scaling_fits",
          "The budget under each fit",
          {{"fit", "fit", Unit::text},
           {"params", "parameters", Unit::count},
           {"tokens", "tokens", Unit::tokens},
           {"tokens_per_param", "tokens/param", Unit::none},
           {"predicted_loss", "loss", Unit::none},
           {"source", "source", Unit::text}},
          {}};
  for (std::size_t i = 0; i < kScalingFits; ++i) {
    const auto f = static_cast<ScalingFit>(i);
    const ComputeOptimal& o = b.rows[i];
    t.rows.push_back({fit_name(f) + (f == b.chosen ? " (sizes the run)" : ""), static_cast<std::int64_t>(o.params),
                      static_cast<std::int64_t>(o.tokens), o.tokens / o.params, o.loss ? Value{*o.loss} : Value{},
                      std::string(fit_source(f))});
  }
  rep.tables.push_back(std::move(t));
  rep.notes.emplace_back(
      "--compute-budget: the model is known by its parameter count alone (the chosen fit's N) and trains on D = C / 6N "
      "tokens, so its time and cost below are C / (G P_peak MFU); the fits disagree by their exponents, "
      "and Approach 3's printed constants were refit by BE24");
}

}  // namespace roofline::format
