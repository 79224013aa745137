// gemm: one matrix multiply on an accelerator, the command that takes no model scenario.
#include "format/field.hpp"
#include "format/views.hpp"

#include "roofline/errors.hpp"
#include "roofline/memory.hpp"
#include "roofline/roofline.hpp"

#include <nlohmann/json.hpp>

#include <cctype>
#include <set>

#include "text/user_text.hpp"

namespace roofline::format {
namespace {

struct G {
  const GemmResult& r;
};

const std::vector<Field<G>> kGemm = {
    {"flop", "FLOPs", "S002-intensity", "2 m n k", [](const G& g) { return cell(g.r.flops); },
     [](const G& g) { return fmt::format("2 x {} x {} x {}", num(g.r.in.m), num(g.r.in.n), num(g.r.in.k)); }},
    {"bytes", "bytes (read A, B; write C)", "S002-intensity", "b (mk + kn + mn)",
     [](const G& g) { return cell(g.r.bytes); },
     [](const G& g) {
       return fmt::format("{} x ({} x {} + {} x {} + {} x {})", num(g.r.element_bytes), num(g.r.in.m), num(g.r.in.k),
                          num(g.r.in.k), num(g.r.in.n), num(g.r.in.m), num(g.r.in.n));
     }},
    in_brief<G>(kBriefGemm, {"intensity_flop_per_byte", "arithmetic intensity", "S002-intensity",
                             "2mnk / (b (mk + kn + mn))", [](const G& g) { return cell(g.r.intensity); },
                             [](const G& g) { return fmt::format("{} / {}", num(g.r.flops), num(g.r.bytes)); }}),
    {"ridge_flop_per_byte", "ridge point", "WI09", "P_peak / B_peak", [](const G& g) { return cell(g.r.ridge); },
     [](const G& g) { return g.r.peak ? fmt::format("{} / {}", num(*g.r.peak), num(g.r.bandwidth)) : std::string(); },
     nullptr, [](const G& g) { return g.r.bandwidth.base() > 0.0; }},
    in_brief<G>(kBriefGemm, {"attainable_flop_per_s", "attainable", "WI09", "min(P_peak, I B_peak)",
                             [](const G& g) { return cell(g.r.attainable); },
                             [](const G& g) {
                               return g.r.peak ? fmt::format("min({}, {} x {})", num(*g.r.peak), num(g.r.intensity),
                                                             num(g.r.bandwidth))
                                               : std::string();
                             },
                             nullptr, [](const G& g) { return g.r.bandwidth.base() > 0.0; }}),
    in_brief<G>(kBriefGemm,
                {"time_s", "time floor", "WI09", "max(F/P, Q/BW)", [](const G& g) { return cell(g.r.time); },
                 [](const G& g) {
                   return g.r.peak ? fmt::format("max({} / {}, {} / {})", num(g.r.flops), num(*g.r.peak),
                                                 num(g.r.bytes), num(g.r.bandwidth))
                                   : std::string();
                 },
                 nullptr, [](const G& g) { return g.r.bandwidth.base() > 0.0; }}),
    in_brief<G>(kBriefGemm, {"bound", "bound", "WI09", "compute when I >= P_peak / B_peak, else memory",
                             [](const G& g) {
                               if (!g.r.bound) return cell(std::optional<std::string>());
                               return cell(std::string(*g.r.bound == Bound::compute ? "compute" : "memory"));
                             },
                             nullptr, nullptr, [](const G& g) { return g.r.bandwidth.base() > 0.0; }}),
};

}  // namespace

Report gemm_report(const GemmResult& r, const std::optional<HardwareConfig>& gpu, std::string_view gpu_requested,
                   const ViewOptions& view) {
  Report rep;
  rep.command = "gemm";
  const GemmInputs& in = r.in;
  rep.headline =
      fmt::format("GEMM C({} x {}) = A({} x {}) B({} x {}) in {}{}", num(in.m), num(in.n), num(in.m), num(in.k),
                  num(in.k), num(in.n), dtype_name(in.dtype), gpu ? " on " + gpu->name : std::string());
  nlohmann::json inputs = {{"gemm", {{"m", in.m}, {"n", in.n}, {"k", in.k}, {"dtype", dtype_name(in.dtype)}}}};
  inputs["gpu"] = nullptr;
  rep.csv_inputs = {{"m", in.m},
                    {"n", in.n},
                    {"k", in.k},
                    {"dtype", std::string(dtype_name(in.dtype))},
                    {"gpu", gpu ? Value{gpu->name} : Value{}}};
  if (gpu) {
    nlohmann::json peaks = nlohmann::json::object();
    for (DType t : kAllDTypes) {
      if (auto pk = gpu->peak_for(t)) peaks[std::string(dtype_name(t))] = pk->base();
    }
    inputs["gpu"] = {{"name", gpu->name},
                     {"requested", gpu_requested},
                     {"memory_bandwidth_bytes_per_s", gpu->memory_bandwidth.base()},
                     {"peak_flop_per_s", peaks},
                     {"compute_peak_flop_per_s", r.peak ? nlohmann::json(r.peak->base()) : nlohmann::json()}};
    if (!r.peak)
      rep.notes.push_back(gpu->name + " has no published dense " + std::string(dtype_name(in.dtype)) + " peak");
    if (gpu_requested != gpu->name && gpu_requested.find('/') == std::string_view::npos) {
      rep.notes.push_back("--gpu " + std::string(gpu_requested) + " resolved to " + gpu->name);
    }
  }
  rep.inputs = std::make_shared<const nlohmann::json>(std::move(inputs));
  rep.sections.push_back(make_section("gemm", "GEMM", kGemm, G{r}, view));
  return rep;
}

// --brief: one matrix multiply's intensity, rate, time and bound.
const Brief kGemmBrief{"gemm", kBriefGemm};

}  // namespace roofline::format
