// plan: every layout of every accelerator asked for, for a user load, the cheapest first; and the
// best one with its arithmetic.
#include "format/field.hpp"
#include "format/views.hpp"

namespace roofline::format {
namespace {

std::string limit_text(PlanLimit l) {
  switch (l) {
    case PlanLimit::load:
      return "the load";
    case PlanLimit::kv_budget:
      return "KV budget";
    case PlanLimit::step_target:
      return "step target";
    case PlanLimit::infeasible_memory:
      return "weights do not fit";
    case PlanLimit::infeasible_rate:
      return "too slow at 1 user";
    case PlanLimit::infeasible_ttft:
      return "TTFT over target";
  }
  return "?";
}

std::string layout_text(const PlanRow& r) { return fmt::format("{} x {} x {}", r.tensor, r.pipeline, r.data); }

std::string layout_note(const PlanRow& r) {
  if (r.expert > 1) return fmt::format("DP attention on {} devices, whole experts on {} ranks", r.data, r.expert);
  if (r.pipeline > 1) return fmt::format("{} micro-batches in flight", r.micro_batches);
  return {};
}

struct B {
  const PlanOption& o;
  const PlanInputs& in;
};

const std::vector<Field<B>> kBest = {
    {"gpu", "accelerator", "", "", [](const B& b) { return cell(b.o.gpu); }},
    {"layout", "layout t x p x d", "", "", [](const B& b) { return cell(layout_text(b.o.row)); }, nullptr,
     [](const B& b) { return layout_note(b.o.row); }},
    {"expert_parallel", "expert parallel e", "", "", [](const B& b) { return cell(b.o.row.expert); }, nullptr, nullptr,
     [](const B& b) { return b.o.row.expert > 1; }},
    {"micro_batches", "micro-batches in flight M", "NA21-2.2", "M = p",
     [](const B& b) { return cell(b.o.row.micro_batches); }, nullptr, nullptr,
     [](const B& b) { return b.o.row.pipeline > 1; }},
    {"batch_per_replica", "sequences per batch n", "S003-3.4", "largest n <= KV budget / M with interval(n) <= target",
     [](const B& b) { return cell(units::Sequences{b.o.row.batch}); }},
    {"step_target_s", "step target", "S003-2.5", "min(1 / R, TPOT target)",
     [](const B& b) { return cell(b.o.row.target); },
     [](const B& b) {
       return b.in.tpot_s ? fmt::format("min(1 / {}, {})", num(b.in.tokens_per_s_per_user), num(*b.in.tpot_s))
                          : fmt::format("1 / {}", num(b.in.tokens_per_s_per_user));
     }},
    {"concurrency_per_group", "users per group", "S003-3.4", "N = M d n",
     [](const B& b) { return cell(units::Sequences{b.o.row.concurrency}); },
     [](const B& b) { return fmt::format("{} x {} x {}", b.o.row.micro_batches, b.o.row.data, b.o.row.batch); },
     [](const B& b) { return "limited by " + limit_text(b.o.row.limit); }},
    {"step_s", "TPOT users see", "NA21-2.2", "max(M, p) (t_stage + t_all-reduce + t_all-to-all + t_hop) at n",
     [](const B& b) { return cell(b.o.row.step); }},
    {"groups", "groups", "S003-3.6", "ceil(users / N)", [](const B& b) { return cell(b.o.row.groups); },
     [](const B& b) { return fmt::format("ceil({} / {})", b.in.users, b.o.row.concurrency); }},
    {"devices", "devices", "S003-3.6", "groups t p d", [](const B& b) { return cell(b.o.row.devices); },
     [](const B& b) {
       return fmt::format("{} x {} x {} x {}", b.o.row.groups, b.o.row.tensor, b.o.row.pipeline, b.o.row.data);
     }},
    {"cost_per_hour", "cost per hour", "S003-3.6", "devices x price",
     [](const B& b) { return money(b.o.row.cost_per_hour.value_or(0.0)); },
     [](const B& b) { return fmt::format("{} x {}", b.o.row.devices, num(*b.in.price_per_device_hour)); }, nullptr,
     [](const B& b) { return b.o.row.cost_per_hour.has_value(); }},
    {"cost_per_million_tokens", "cost per million output tokens", "S003-3.6", "cost per hour / (users R 3600) x 10^6",
     [](const B& b) { return money(b.o.row.cost_per_million_tokens.value_or(0.0)); },
     [](const B& b) {
       return fmt::format("{} / ({} x {} x 3600) x 1000000", num(*b.o.row.cost_per_hour), b.in.users,
                          num(b.in.tokens_per_s_per_user));
     },
     nullptr, [](const B& b) { return b.o.row.cost_per_million_tokens.has_value(); }},
};

}  // namespace

void add_plan(Report& rep, const std::vector<PlanOption>& options, const PlanInputs& in, const ViewOptions& view) {
  const auto best = std::find_if(options.begin(), options.end(), [](const PlanOption& o) { return o.row.feasible(); });
  if (in.price_per_device_hour) rep.notes.push_back(currency_note(rep.currency));
  if (best != options.end()) {
    rep.sections.push_back(make_section("plan_best", "The cheapest plan", kBest, B{*best, in}, view));
  } else {
    rep.notes.emplace_back("no layout meets the load: every one is listed with what stops it");
  }
  Table t{"plan",
          "Every layout, the cheapest first",
          {{"gpu", "accelerator", Unit::text},
           {"layout", "t x p x d", Unit::text},
           {"expert_parallel", "ep", Unit::count, true},
           {"micro_batches", "M", Unit::count, true},
           {"batch_per_replica", "n", Unit::sequences, true},
           {"kv_sequences", "KV holds", Unit::sequences},
           {"concurrency", "users", Unit::sequences},
           {"limit", "limited by", Unit::text},
           {"step_s", "TPOT", Unit::seconds},
           {"ttft_s", "TTFT", Unit::seconds, true},
           {"groups", "groups", Unit::count},
           {"devices", "devices", Unit::count},
           {"cost_per_hour", "cost/h", Unit::money},
           {"cost_per_million_tokens", "cost/M output tok", Unit::money, true}},
          {}};
  t.key_columns = 2;  // the accelerator and the layout name a row
  for (const PlanOption& o : options) {
    const PlanRow& r = o.row;
    const bool ok = r.feasible();
    t.rows.push_back({o.gpu, layout_text(r), r.expert, r.micro_batches, ok ? Value{r.batch} : Value{},
                      r.kv_sequences ? Value{*r.kv_sequences} : Value{}, ok ? Value{r.concurrency} : Value{},
                      limit_text(r.limit), r.step.base() > 0.0 ? Value{r.step.base()} : Value{}, r.ttft.base(),
                      ok ? Value{r.groups} : Value{}, ok ? Value{r.devices} : Value{},
                      r.cost_per_hour ? Value{*r.cost_per_hour} : Value{},
                      r.cost_per_million_tokens ? Value{*r.cost_per_million_tokens} : Value{}});
  }
  rep.tables.push_back(std::move(t));
  rep.notes.emplace_back(
      "a group is one replica of t x p devices (a pipeline keeps p micro-batches in flight) or, for MoE, d "
      "devices running attention data-parallel with whole experts on e = d ranks; each user gets one token an "
      "interval, which includes the all-reduces, all-to-alls and hand-offs on each accelerator's system, "
      "NCCL's costs included; tensor groups stay within a scale-up domain; prompts and prefill interference are not "
      "in the interval");
}

}  // namespace roofline::format
