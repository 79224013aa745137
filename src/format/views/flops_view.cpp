// flops: FLOPs per token under each basis, attention, prefill, crossovers, training compute.
#include "format/field.hpp"
#include "format/views.hpp"

#include "text/names.hpp"

namespace roofline::format {
namespace {

struct F {
  const Subject& in;
  const FlopsResult& r;
  [[nodiscard]] std::int64_t n(FlopBasis b) const { return r.basis_params.at(static_cast<std::size_t>(b)); }
  [[nodiscard]] units::Flop fwd(FlopBasis b) const { return r.forward_per_token.at(static_cast<std::size_t>(b)); }
};

bool architecture(const F& f) { return f.in.scenario.architecture; }
// A crossover length exists only where attention does (not in a pure state-space model).
bool attends(const F& f) { return architecture(f) && f.r.flops_per_pair > 0.0; }

std::string basis_label(const F& f) { return std::string(text::name_of(f.r.basis)); }

const std::vector<Field<F>> kFlops = {
    in_sweep<F>(kSweepFlops, "forward/token",
                in_brief<F>(kBriefFlops,
                            {"forward_flop_per_token", "forward per token (physical)", "KA20-2.1",
                             "C_fwd = 2 (N_active - V e - n_pos d - head + V e)",
                             [](const F& f) { return cell(f.fwd(FlopBasis::physical)); },
                             [](const F& f) { return "2 x " + num(f.n(FlopBasis::physical)); },
                             [](const F& f) { return std::string(architecture(f) ? "head in, gather out" : ""); }})),
    {"forward_flop_per_token_non_embedding", "forward per token (2N, non-embedding)", "KA20-2.1", "C_fwd = 2 N",
     [](const F& f) { return cell(f.fwd(FlopBasis::non_embedding)); },
     [](const F& f) { return "2 x " + num(f.n(FlopBasis::non_embedding)); },
     [](const F&) { return std::string("Kaplan et al. 2020"); }},
    {"forward_flop_per_token_all_params", "forward per token (2N_total)", "S004", "C_fwd = 2 N_total",
     [](const F& f) { return cell(f.fwd(FlopBasis::all_params)); },
     [](const F& f) { return "2 x " + num(f.n(FlopBasis::all_params)); },
     [](const F&) { return std::string("whiteboard rule"); }},
    in_brief<F>(kBriefFlops, {"training_flop_per_token", "", "KA20-2.1", "C_train = 3 C_fwd = 6 N",
                              [](const F& f) { return cell(f.r.training_per_token); },
                              [](const F& f) { return "3 x " + num(f.r.forward); }, nullptr, nullptr,
                              [](const F& f) { return "training per token (6N, " + basis_label(f) + ")"; }}),
    {"recompute_flop_per_token", "", "KO22", "C = 4 C_fwd = 8 N",
     [](const F& f) { return cell(f.r.recompute_per_token); }, [](const F& f) { return "4 x " + num(f.r.forward); },
     nullptr, nullptr, [](const F& f) { return "full recompute (8N, " + basis_label(f) + ")"; }},
    {"lm_head_flop_per_token", "lm_head per token", "S003-6", "2 V e",
     [](const F& f) { return cell(f.r.lm_head_per_token); },
     [](const F& f) { return fmt::format("2 x {} x {}", num(f.r.vocab), num(f.r.head_width)); }, nullptr, architecture},
    in_sweep<F>(kSweepFlops, "attention/token",
                {"attention_flop_per_token_at_context", "", "S003-2.4", "a sum_l min(T, W_l), a = 2 (w_qk + w_v)",
                 [](const F& f) { return cell(f.r.attention_per_decode_token); },
                 [](const F& f) { return fmt::format("{} x {}", num(f.r.flops_per_pair), num(f.r.attended_keys)); },
                 nullptr, architecture,
                 [](const F& f) { return fmt::format("attention per decode token at T={}", grouped(f.r.context)); }}),
    in_sweep<F>(kSweepFlops, "prefill",
                in_brief<F>(kBriefFlops,
                            {"prefill_flop", "", "S004", "S (C_fwd - H) + n_head H + A(S)",
                             [](const F& f) { return cell(f.r.prefill.total); },
                             [](const F& f) {
                               const PrefillFlopTerms& t = f.r.prefill;
                               return fmt::format("{} x {} + {} x {} + {}", num(t.tokens),
                                                  num(t.per_token_without_head), num(t.head_positions), num(t.head),
                                                  num(t.attention));
                             },
                             nullptr, nullptr,
                             [](const F& f) { return fmt::format("prefill of {} tokens", grouped(f.r.prompt)); }})),
    {"prefill_attention_flop", "  of which attention", "S004", "A(S) = a sum_l pairs_l(S)",
     [](const F& f) { return cell(f.r.prefill.attention); },
     [](const F& f) {
       return fmt::format("{} x {}", num(f.r.flops_per_pair),
                          num(f.r.flops_per_pair > 0.0 ? f.r.prefill.attention.base() / f.r.flops_per_pair : 0.0));
     },
     nullptr, architecture},
    in_sweep<F>(kSweepFlops, "attention share",
                {"attention_share_fraction", "attention share of layer FLOPs", "S003-2.3", "A / (A + 2 S P̄ L)",
                 [](const F& f) { return cell(f.r.attention_share); },
                 [](const F& f) {
                   return fmt::format("{} / ({} + 2 x {} x {} x {})", num(f.r.prefill.attention),
                                      num(f.r.prefill.attention), num(f.r.prompt), num(f.r.mean_layer_matrix_params),
                                      num(f.r.layers));
                 },
                 nullptr, architecture}),
    in_brief<F>(kBriefFlops, {"attention_crossover_tokens_causal", "attention = projections (causal)", "S003-2.3",
                              "N* = 4 P̄ / a", [](const F& f) { return cell(f.r.crossover_causal); },
                              [](const F& f) {
                                return fmt::format("4 x {} / {}", num(f.r.mean_layer_matrix_params),
                                                   num(f.r.flops_per_pair));
                              },
                              nullptr, attends}),
    {"attention_crossover_tokens_full", "attention = projections (full)", "S003-2.3", "N* = 2 P̄ / a",
     [](const F& f) { return cell(f.r.crossover_full); },
     [](const F& f) { return fmt::format("2 x {} / {}", num(f.r.mean_layer_matrix_params), num(f.r.flops_per_pair)); },
     nullptr, attends},
};

}  // namespace

void sweep_figures(const Subject& in, const FlopsResult& r, SweepFigures& f) {
  SweepCells(kSweepFlops, f).add("flops", kFlops, F{in, r});
}

void add_flops(Report& rep, const Subject& in, const FlopsResult& r, const ViewOptions& view) {
  rep.sections.push_back(make_section("flops", "FLOPs", kFlops, F{in, r}, view));
}

// --brief: a token's forward and training FLOPs, a prefill's, and where attention catches up.
const Brief kFlopsBrief{"flops", kBriefFlops};

}  // namespace roofline::format
