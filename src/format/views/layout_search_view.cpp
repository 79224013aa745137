// train --best-layout: the layout the search chose, what it held and tried, and the runner-up
// layouts with the part of the step floor each loses on.
#include "format/field.hpp"
#include "format/views.hpp"

#include <string>

namespace roofline::format {
namespace {

struct S {
  const LayoutSearch& s;
  const Subject& in;
  [[nodiscard]] const RankedLayout* best() const { return s.ranked.empty() ? nullptr : &s.ranked.front(); }
};

std::string degrees_text(const TrainLayout& l) {
  return fmt::format("{} x {} x {} x {}", l.tensor, l.context, l.pipeline, l.data);
}

std::string recipe_text(const TrainLayout& l) {
  return fmt::format("b {}, m {}, ZeRO-{}, recompute {}{}{}", l.micro_batch, l.grad_accum, static_cast<int>(l.zero),
                     recompute_name(l.recompute), l.sequence_parallel ? ", SP" : "",
                     l.expert > 1 ? fmt::format(", e {}", l.expert) : std::string());
}

std::string part_text(FloorPart p) {
  switch (p) {
    case FloorPart::compute:
      return "compute (recomputation)";
    case FloorPart::imbalance:
      return "stage imbalance";
    case FloorPart::bubble:
      return "pipeline bubble";
    case FloorPart::tensor:
      return "tensor-parallel comm";
    case FloorPart::expert:
      return "expert all-to-all";
    case FloorPart::pipeline:
      return "pipeline sends";
    case FloorPart::context:
      return "ring attention";
    case FloorPart::data:
      return "data-parallel comm";
    case FloorPart::optimizer:
      return "optimizer step";
  }
  return "?";
}

std::string held_text(const LayoutSearchRequest& h) {
  std::string out;
  const auto add = [&out](bool held, const char* flag) {
    if (!held) return;
    if (!out.empty()) out += ", ";
    out += flag;
  };
  add(h.tensor, "--tp");
  add(h.context, "--cp");
  add(h.pipeline, "--pp");
  add(h.expert, "--ep");
  add(h.data, "--dp");
  add(h.micro_batch, "--micro-batch");
  add(h.zero, "--zero");
  add(h.recompute, "--recompute");
  return out.empty() ? std::string("none") : out;
}

bool found(const S& x) { return x.best() != nullptr; }

const std::vector<Field<S>> kSearch = {
    in_sweep<S>(
        kSweepTrainSearch, "t x c x p x d",
        in_brief<S>(
            kBriefTrain,
            {"best_layout", "best t x c x p x d", "NA21-3",
             "argmin t_floor over the layouts and recipes that fit (total <= C): the highest MFU ceiling",
             [](const S& x) { return cell(x.best() ? std::optional(degrees_text(x.best()->layout)) : std::nullopt); },
             nullptr, [](const S& x) { return x.best() ? std::string() : std::string("nothing fits"); }})),
    in_sweep<S>(
        kSweepTrainSearch, "recipe",
        {"best_recipe", "its recipe", "KO22-5", "b, m, ZeRO stage, recomputation, sequence parallelism",
         [](const S& x) { return cell(x.best() ? std::optional(recipe_text(x.best()->layout)) : std::nullopt); }}),
    {"best_step_time_floor_s", "its step time floor", "NA21-3", "the smallest t_floor found",
     [](const S& x) { return cell(x.best() ? std::optional(x.best()->step_floor) : std::nullopt); }},
    {"best_mfu_ceiling_fraction", "its MFU ceiling", "NA21-3", "model FLOPs / (G P t_floor) at the best",
     [](const S& x) { return cell(x.best() ? std::optional(x.best()->mfu_ceiling) : std::nullopt); }},
    {"closest_total_bytes", "least memory a layout needs", "RA20-5",
     "min total per device over every layout and recipe probed", [](const S& x) { return cell(x.s.closest_total); },
     nullptr,
     [](const S& x) { return x.s.closest ? degrees_text(*x.s.closest) + ", " + recipe_text(*x.s.closest) : ""; },
     [](const S& x) { return !found(x); }},
    {"global_batch_sequences", "global batch held", "NA21", "B = b m d, every layout",
     [](const S& x) { return cell(units::Sequences{x.s.global_batch}); }},
    {"held", "flags held", "", "", [](const S& x) { return cell(held_text(x.s.held)); }},
    {"layouts_enumerated", "layouts enumerated", "", "t x c x p x d x e x b points",
     [](const S& x) { return cell(x.s.layouts); }},
    {"memory_probes", "recipes probed for memory", "", "", [](const S& x) { return cell(x.s.probes); }},
    {"layouts_fitting", "layouts some recipe fits", "", "", [](const S& x) { return cell(x.s.fitting); }},
    {"recipes_timed", "layouts and recipes timed", "", "", [](const S& x) { return cell(x.s.timed); }},
};

}  // namespace

void add_layout_search_cells(SweepCells& s, const Subject& in, const LayoutSearch& search) {
  s.add("layout_search", kSearch, S{search, in});
}

void add_layout_search(Report& rep, const Subject& in, const LayoutSearch& s, const ViewOptions& view) {
  const S x{s, in};
  rep.sections.push_back(make_section("layout_search", "Best layout", kSearch, x, view));
  Table t{"layouts",
          "The fastest layouts, each with its best recipe",
          {{"layout", "t x c x p x d", Unit::text},
           {"expert_parallel", "e", Unit::count},
           {"micro_batch", "b", Unit::sequences},
           {"grad_accum", "m", Unit::count},
           {"zero_stage", "ZeRO", Unit::count},
           {"recompute", "recompute", Unit::text},
           {"sequence_parallel", "SP", Unit::boolean},
           {"total_bytes", "memory/device", Unit::bytes},
           {"step_time_floor_s", "step floor", Unit::seconds},
           {"mfu_ceiling_fraction", "MFU ceiling", Unit::fraction},
           {"loses_on", "loses on", Unit::text},
           {"loss_s", "by", Unit::seconds}},
          {}};
  for (const RankedLayout& r : s.ranked) {
    const TrainLayout& l = r.layout;
    const Value loses =
        r.loses_on ? Value{part_text(*r.loses_on)} : Value{std::string(&r == &s.ranked.front() ? "best" : "ties")};
    t.rows.push_back({degrees_text(l), l.expert, l.micro_batch, l.grad_accum, static_cast<std::int64_t>(l.zero),
                      recompute_name(l.recompute), l.sequence_parallel, r.total.base(), r.step_floor.base(),
                      r.mfu_ceiling.base(), loses, r.loses_on ? Value{r.loss.base()} : Value{}});
  }
  rep.tables.push_back(std::move(t));
  if (s.ranked.empty()) {
    rep.notes.emplace_back(
        "--best-layout: no layout of these devices fits with any recipe; the analysis below is the layout that needed "
        "the least memory, and it does not fit");
  } else {
    rep.notes.emplace_back(
        "--best-layout: the analysis below is the best layout's; a tensor group stays within a scale-up domain unless "
        "--tp holds it, sequence parallelism is on wherever t > 1, and each layout's recipe is the lightest "
        "recomputation that fits with ZeRO <= 2 (ZeRO-1 or -2 moves what plain data parallelism does and shortens the "
        "optimizer step; ZeRO-3 moves 1.5x), a runner-up losing on the floor part that grew the most over the best's");
  }
}

}  // namespace roofline::format
