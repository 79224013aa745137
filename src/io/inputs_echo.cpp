// The inputs echo of a model command's JSON ("inputs"): every input given, as typed, and the
// model, workload, conventions, accelerator, serving load, layout, plan and price as resolved.
#include "io/preset_json.hpp"
#include "io/scenario_spec.hpp"
#include "io/text.hpp"

#include <nlohmann/json.hpp>

#include <array>
#include <cmath>

namespace roofline::io {

namespace {

// A whole number as an integer (exact below 2^53), any other as a double.
nlohmann::json whole(double v) {
  return std::fabs(v) < 0x1p53 && v == std::floor(v) ? nlohmann::json(static_cast<std::int64_t>(v)) : nlohmann::json(v);
}

// The accelerator as the scenario uses it, or null.
nlohmann::json gpu_json(const Scenario& sc, const std::string& requested) {
  if (!sc.accelerator) return nullptr;
  const HardwareConfig& h = sc.accelerator->hw;
  nlohmann::json peaks = nlohmann::json::object();
  for (DType t : kAllDTypes) {
    if (auto pk = h.peak_for(t)) peaks[std::string(dtype_name(t))] = pk->base();
  }
  const auto peak = device_peak(sc);
  return {{"name", h.name},
          {"requested", requested},
          {"memory_capacity_bytes", whole(h.memory_capacity.base())},
          {"memory_bandwidth_bytes_per_s", h.memory_bandwidth.base()},
          {"peak_flop_per_s", peaks},
          {"compute_peak_flop_per_s", peak ? nlohmann::json(peak->base()) : nlohmann::json()}};
}

const char* length_dist_name(LengthDist d) {
  switch (d) {
    case LengthDist::fixed:
      return "fixed";
    case LengthDist::uniform:
      return "uniform";
    case LengthDist::lognormal:
      return "lognormal";
  }
  return "";
}

nlohmann::json length_json(const LengthSpec& l) {
  nlohmann::json j = {{"dist", length_dist_name(l.dist)}, {"mean_tokens", l.mean}};
  if (l.dist == LengthDist::uniform) {
    j["lo_tokens"] = l.lo;
    j["hi_tokens"] = l.hi;
  }
  if (l.dist == LengthDist::lognormal) j["sigma"] = l.sigma;
  return j;
}

// serve --rate: every input of the simulated load and scheduler.
nlohmann::json load_json(const LoadInputs& in) {
  const LoadSpec& l = in.spec;
  constexpr std::array kProcess = {"poisson", "gamma", "closed", "trace"};
  nlohmann::json j = {{"arrivals", kProcess.at(static_cast<std::size_t>(l.arrivals))},
                      {"rate_per_s", std::isfinite(l.rate) ? nlohmann::json(l.rate) : nlohmann::json("all")},
                      {"requests", l.requests},
                      {"seed", l.seed},
                      {"max_seqs", l.max_seqs},
                      {"token_budget_tokens", l.token_budget},
                      {"kv_block_tokens", l.block},
                      {"shared_prefix_tokens", l.shared_prefix},
                      {"step_overhead_s", in.step_overhead_s},
                      {"left_out_fraction", l.left_out_share}};
  if (l.arrivals == ArrivalProcess::gamma) j["cv"] = l.cv;
  if (l.arrivals == ArrivalProcess::closed) {
    j["users"] = l.users;
    j["think_s"] = l.think_s;
    j.erase("rate_per_s");
  }
  if (l.arrivals != ArrivalProcess::trace) {
    j["prompt"] = length_json(l.prompt);
    j["output"] = length_json(l.output);
  } else {
    j.erase("rate_per_s");
  }
  return j;
}

// A serving layout's degrees and how its collectives are costed.
nlohmann::json layout_json(const Deployment& d) {
  const bool flag = d.link_latency_source == LinkLatencySource::flag;
  return {{"explicit", d.explicit_layout},
          {"tp", d.tensor},
          {"pp", d.pipeline},
          {"dp", d.data},
          {"ep", d.expert},
          {"micro_batches", d.micro_batches},
          {"latency_model", flag ? "link-latency" : "nccl"},
          {"link_latency_s", flag ? nlohmann::json(d.link_latency.base()) : nlohmann::json()},
          {"link_efficiency", d.link_efficiency}};
}

// The system the devices sit in: where it came from, its domains and links.
nlohmann::json system_json(const Topology& t) {
  constexpr std::array<const char*, 3> sources = {"preset", "flags", "flat"};
  nlohmann::json torus = nlohmann::json::array();
  for (const std::int64_t d : t.torus) torus.push_back(d);
  return {{"name", t.name.empty() ? nlohmann::json() : nlohmann::json(t.name)},
          {"display_name", t.display_name},
          {"source", sources.at(static_cast<std::size_t>(t.source))},
          {"domain_devices", t.source == TopologySource::flat ? nlohmann::json() : nlohmann::json(t.domain)},
          {"inside",
           {{"kind", link_kind_name(t.inside.kind)},
            {"name", t.inside.name},
            {"bytes_per_s_per_direction", t.inside.bandwidth.base()}}},
          {"mesh", t.mesh},
          {"in_switch_reduction", t.switch_reduction},
          {"torus", torus},
          {"scale_out", t.has_across ? nlohmann::json{{"name", t.across.name},
                                                      {"bytes_per_s_per_direction", t.across.bandwidth.base()}}
                                     : nlohmann::json()}};
}

// The format of each weight class, by the class names --weight-format takes.
nlohmann::json weights_json(const WeightLayout& l) {
  nlohmann::json j = nlohmann::json::object();
  for (WeightClass c : kAllWeightClasses) j[std::string(weight_class_name(c))] = l.of(c).name;
  return j;
}

// The inputs given, keyed by flag name: a value as typed, true for a switch, an array for a
// repeatable input. With "command" added it is a batch line, so the result is reproducible.
nlohmann::json given_json(const ScenarioSpec& spec, std::uint64_t groups) {
  nlohmann::json given = nlohmann::json::object();
  if (spec.model_json_text) {
    given["model"] = nlohmann::json::parse(*spec.model_json_text);
  } else if (!spec.model.empty()) {
    given["model"] = spec.model;
  }
  for (const GivenInput& g : spec.given) {
    if ((g.def->group & groups) == 0U) continue;
    const nlohmann::json v = *g.def->value_name == '\0' ? nlohmann::json(true) : nlohmann::json(g.text);
    if (g.def->repeatable) {
      given[g.def->name].push_back(v);
    } else {
      given[g.def->name] = v;
    }
  }
  return given;
}

// The routing share the expected counts of a model with zero-computation experts assume; written
// only for such a model.
void add_routing(const MoeConfig& e, nlohmann::json& model) {
  if (e.zero_experts == 0) return;
  model["routing"] = {{"zero_experts", e.zero_experts},
                      {"zero_expert_share", e.zero_share},
                      {"ffn_experts_per_token", e.ffn_experts_per_token()},
                      {"active_params", "expected"}};
}

nlohmann::json optional_json(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

}  // namespace

nlohmann::json inputs_json(const ScenarioSpec& spec, const Resolved& in, std::uint64_t groups) {
  const Scenario& sc = in.scenario;
  const Workload& w = sc.workload;
  nlohmann::json j;
  j["model"] = {{"name", in.model_label},
                {"origin", in.model.origin},
                {"input_format", name_of(in.model.input_format)},
                {"modified", sc.provenance.modified},
                {"exactness", in.model.generic ? "generic" : "exact"},
                {"architecture", sc.architecture ? io::architecture_to_json(sc.model) : nlohmann::json()}};
  add_routing(sc.model.moe, j["model"]);
  j["model"]["published_params"] =
      sc.provenance.published_params ? nlohmann::json(*sc.provenance.published_params) : nlohmann::json();
  const auto opt_int = [](const std::optional<std::int64_t>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
  j["workload"] = {
      {"batch", w.batch},
      {"context_tokens", w.context},
      {"prompt_tokens", w.prompt},
      {"output_tokens", w.output},
      {"train_tokens", opt_int(sc.training.tokens)},
      {"measured_tokens_per_s",
       sc.training.measured_tokens_per_s ? nlohmann::json(*sc.training.measured_tokens_per_s) : nlohmann::json()},
      {"weight_format", w.weight_format},
      {"weight_dtype", dtype_name(w.weight_dtype)},
      {"weight_bits", w.weight_bits},
      {"weights", weights_json(w.weights)},
      {"weights_published", w.weights_published},
      {"kv_dtype", dtype_name(w.kv_dtype)},
      {"kv_format", w.kv_format},
      {"kv_bits", w.kv_bits},
      {"compute_dtype", dtype_name(w.compute_dtype)},
      {"activation_dtype", dtype_name(w.activation_dtype)},
      {"reserve_bytes_per_device", whole(w.reserve.base())},
      {"bw_efficiency", w.bw_efficiency},
      {"mfu", w.mfu},
      {"devices", sc.deployment.devices}};
  j["conventions"] = {{"flops_basis", name_of(w.basis)},
                      {"attention", name_of(w.attention)},
                      {"lm_head_positions", name_of(w.lm_head)},
                      {"decode_bytes", name_of(w.decode_bytes)},
                      {"moe_decode_bytes", name_of(w.moe_decode)},
                      {"capacity", sc.accelerator ? name_of(sc.accelerator->capacity_source) : "none"},
                      {"concurrency_rounding", "floor"}};
  j["gpu"] = gpu_json(sc, in.gpu_requested);
  if (sc.accelerator && (groups & kSystem) != 0U) j["system"] = system_json(sc.accelerator->system);
  const auto reads = [&](std::uint64_t g) { return (groups & g) != 0U; };
  if (reads(kServing) || reads(kTargets)) {
    const ServingInputs& s = sc.serving;
    j["serving"] = {{"concurrency", s.concurrency ? nlohmann::json(*s.concurrency) : nlohmann::json()},
                    {"kv_block_tokens", s.kv_block},
                    {"shared_prefix_tokens", s.shared_prefix},
                    {"tpot_target_s", optional_json(s.tpot_target_s)},
                    {"ttft_target_s", optional_json(s.ttft_target_s)}};
  }
  if (sc.serving.load) j["load"] = load_json(*sc.serving.load);
  if (reads(kParallel) && !reads(kTrain)) j["layout"] = layout_json(sc.deployment);
  if (reads(kPlan)) {
    j["plan"] = {{"users", spec.users ? nlohmann::json(*spec.users) : nlohmann::json()},
                 {"tokens_per_s_per_user", optional_json(spec.tokens_per_s_per_user)},
                 {"price_per_device_hour", optional_json(spec.price)},
                 {"currency", spec.price_currency.empty() ? nlohmann::json() : nlohmann::json(spec.price_currency)}};
  }
  j["given"] = given_json(spec, groups);
  return j;
}

}  // namespace roofline::io
