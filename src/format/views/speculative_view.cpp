// Speculative decoding: the draft's and the verification step's cost, the expected tokens per
// target step, and the speedup over plain decoding at the same batch and context.
#include "format/field.hpp"
#include "format/views.hpp"

namespace roofline::format {
namespace {

struct S {
  const Subject& in;
  const SpeculativeResult& r;
  [[nodiscard]] const Speculation& sp() const { return *in.scenario.speculation; }
};

std::string step_substitution(const DecodeStep& d) {
  return fmt::format("max({}, {})", num(d.t_memory), num(d.t_compute));
}

const std::vector<Field<S>> kSpeculative = {
    {"draft", "draft", "", "", [](const S& x) { return cell(x.sp().draft.name); }, nullptr,
     [](const S& x) { return std::string(x.sp().self_draft ? "self-drafting: the model's MTP modules" : ""); }},
    {"acceptance_fraction", "acceptance α", "", "", [](const S& x) { return cell(units::Fraction{x.r.acceptance}); },
     nullptr, [](const S& x) { return std::string(x.sp().acceptance_assumed ? "assumed (--acceptance)" : ""); }},
    {"draft_len_tokens", "draft length γ", "", "",
     [](const S& x) { return cell(static_cast<std::int64_t>(x.r.draft_len)); }},
    {"expected_tokens_per_step", "tokens per target step", "LE23-3.1", "(1 - α^(γ+1)) / (1 - α), α^(γ+1) substituted",
     [](const S& x) { return number(x.r.expected_tokens); },
     [](const S& x) {
       return x.r.acceptance >= 1.0
                  ? fmt::format("{} + 1", num(x.r.draft_len))
                  : fmt::format("(1 - {}) / (1 - {})", num(x.r.acceptance_power), num(x.r.acceptance));
     }},
    {"target_step_s", "target decode step", "S003-2.5", "max(Q/BW, F/P), one token per sequence",
     [](const S& x) { return cell(x.r.target.t_step); }, [](const S& x) { return step_substitution(x.r.target); },
     [](const S& x) { return std::string(x.r.target.bound == Bound::memory ? "memory-bound" : "compute-bound"); }},
    {"draft_step_s", "draft decode step", "S003-2.5", "max(Q/BW, F/P) of the draft",
     [](const S& x) { return cell(x.r.draft.t_step); }, [](const S& x) { return step_substitution(x.r.draft); },
     [](const S& x) { return std::string(x.r.draft.bound == Bound::memory ? "memory-bound" : "compute-bound"); }},
    {"verify_step_s", "verification step", "LE23-3", "max(Q/BW, F/P), γ + 1 tokens per sequence",
     [](const S& x) { return cell(x.r.verify.t_step); }, [](const S& x) { return step_substitution(x.r.verify); },
     [](const S& x) { return std::string(x.r.verify.bound == Bound::memory ? "memory-bound" : "compute-bound"); }},
    {"cycle_s", "one draft-and-verify cycle", "LE23-3.3", "γ t_draft + t_verify",
     [](const S& x) { return cell(x.r.cycle); },
     [](const S& x) {
       return fmt::format("{} x {} + {}", num(x.r.draft_len), num(x.r.draft.t_step), num(x.r.verify.t_step));
     }},
    {"tpot_s", "time per output token", "LE23-3.3", "cycle / tokens per target step",
     [](const S& x) { return cell(x.r.tpot); },
     [](const S& x) { return fmt::format("{} / {}", num(x.r.cycle), num(x.r.expected_tokens)); }},
    {"speedup_ratio", "speedup over plain decoding", "LE23-3.3", "t_target / TPOT",
     [](const S& x) { return cell(units::Ratio{x.r.speedup}); },
     [](const S& x) { return fmt::format("{} / {}", num(x.r.target.t_step), num(x.r.tpot)); }},
    {"draft_cost_ratio", "draft cost c", "LE23-3.3", "t_draft / t_target",
     [](const S& x) { return number(x.r.cost_ratio); },
     [](const S& x) { return fmt::format("{} / {}", num(x.r.draft.t_step), num(x.r.target.t_step)); }},
    {"speedup_bound_ratio", "Leviathan's bound", "LE23-3.8", "(1 - α^(γ+1)) / ((1 - α)(γ c + 1))",
     [](const S& x) { return cell(units::Ratio{x.r.speedup_bound}); },
     [](const S& x) {
       return fmt::format("{} / ({} x {} + 1)", num(x.r.expected_tokens), num(x.r.draft_len), num(x.r.cost_ratio));
     },
     [](const S&) { return std::string("verification as cheap as one step"); }},
    {"draft_weight_bytes", "draft weights", "S000-1.3", "N_draft b_w",
     [](const S& x) { return cell(x.r.draft_weight_bytes); },
     [](const S& x) {
       return fmt::format("{} x {} / 8", num(x.r.draft_params),
                          num(shown_bits(x.in.scenario.workload, x.r.draft_params, x.r.draft_weight_bytes)));
     },
     [](const S& x) { return std::string(x.sp().self_draft ? "stored beside the model" : ""); }},
    {"draft_kv_bytes", "draft KV cache, the batch", "S000-eq1.1", "B M_KV,draft(T)",
     [](const S& x) { return cell(x.r.draft_kv_bytes); }},
};

}  // namespace

void add_speculative(Report& rep, const Subject& in, const SpeculativeResult& r, const ViewOptions& view) {
  const S x{in, r};
  rep.sections.push_back(make_section(
      "speculative", fmt::format("Speculative decoding (context {})", grouped(r.context)), kSpeculative, x, view));
  if (r.speedup < 1.0) {
    rep.notes.push_back(
        fmt::format("speculation is slower here ({}x): the draft costs too much for the acceptance", num(r.speedup)));
  }
}

}  // namespace roofline::format
