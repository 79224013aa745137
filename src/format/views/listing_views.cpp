// gemm, gpus and models: the commands that take no model scenario.
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

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& a : v) s += (s.empty() ? "" : " ") + a;
  return s;
}

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
    {"intensity_flop_per_byte", "arithmetic intensity", "S002-intensity", "2mnk / (b (mk + kn + mn))",
     [](const G& g) { return cell(g.r.intensity); },
     [](const G& g) { return fmt::format("{} / {}", num(g.r.flops), num(g.r.bytes)); }},
    {"ridge_flop_per_byte", "ridge point", "WI09", "P_peak / B_peak", [](const G& g) { return cell(g.r.ridge); },
     [](const G& g) { return g.r.peak ? fmt::format("{} / {}", num(*g.r.peak), num(g.r.bandwidth)) : std::string(); },
     nullptr, [](const G& g) { return g.r.bandwidth.base() > 0.0; }},
    {"attainable_flop_per_s", "attainable", "WI09", "min(P_peak, I B_peak)",
     [](const G& g) { return cell(g.r.attainable); },
     [](const G& g) {
       return g.r.peak ? fmt::format("min({}, {} x {})", num(*g.r.peak), num(g.r.intensity), num(g.r.bandwidth))
                       : std::string();
     },
     nullptr, [](const G& g) { return g.r.bandwidth.base() > 0.0; }},
    {"time_s", "time floor", "WI09", "max(F/P, Q/BW)", [](const G& g) { return cell(g.r.time); },
     [](const G& g) {
       return g.r.peak ? fmt::format("max({} / {}, {} / {})", num(g.r.flops), num(*g.r.peak), num(g.r.bytes),
                                     num(g.r.bandwidth))
                       : std::string();
     },
     nullptr, [](const G& g) { return g.r.bandwidth.base() > 0.0; }},
    {"bound", "bound", "WI09", "compute when I >= P_peak / B_peak, else memory",
     [](const G& g) {
       if (!g.r.bound) return cell(std::optional<std::string>());
       return cell(std::string(*g.r.bound == Bound::compute ? "compute" : "memory"));
     },
     nullptr, nullptr, [](const G& g) { return g.r.bandwidth.base() > 0.0; }},
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

Report gpus_report(const io::PresetRegistry& reg) {
  Report rep;
  rep.command = "gpus";
  rep.inputs = std::make_shared<const nlohmann::json>(nlohmann::json::object());
  Table t{"gpus",
          "Accelerators (dense peaks per device; ridge = peak / bandwidth)",
          {{"name", "name", Unit::text},
           {"memory_capacity_bytes", "capacity", Unit::bytes},
           {"memory_bandwidth_bytes_per_s", "bandwidth", Unit::bytes_per_s},
           {"peak_bf16_flop_per_s", "bf16", Unit::flop_per_s},
           {"peak_fp8_flop_per_s", "fp8", Unit::flop_per_s},
           {"ridge_bf16_flop_per_byte", "ridge bf16", Unit::flop_per_byte},
           {"ridge_fp8_flop_per_byte", "ridge fp8", Unit::flop_per_byte},
           {"power_watts", "power", Unit::watts},
           {"vendor", "vendor", Unit::text, true}},
          {}};
  // Every dtype's peak and ridge for scripts; the table shows bf16 and fp8.
  for (DType d : kAllDTypes) {
    if (d == DType::bf16 || d == DType::fp8) continue;
    const std::string n(dtype_name(d));
    t.columns.push_back({"peak_" + n + "_flop_per_s", n, Unit::flop_per_s, true});
    t.columns.push_back({"ridge_" + n + "_flop_per_byte", "ridge " + n, Unit::flop_per_byte, true});
  }
  t.columns.push_back({"interconnect", "interconnect", Unit::text, true});
  t.columns.push_back({"interconnect_bytes_per_s_per_direction", "link/dir", Unit::bytes_per_s, true});
  t.columns.push_back({"interconnect_latency_s", "link alpha", Unit::seconds, true});
  t.columns.push_back({"l2_cache_bytes", "L2", Unit::bytes, true});
  t.columns.push_back({"display_name", "display name", Unit::text, true});
  t.columns.push_back({"aliases", "aliases", Unit::text, true});
  t.columns.push_back({"origin", "origin", Unit::text, true});
  t.columns.push_back({"source", "source", Unit::text, true});
  for (const io::PresetEntry* e : reg.entries(io::PresetKind::gpu)) {
    const HardwareConfig h = reg.parse_gpu(*e);
    const auto peak = [&](DType d) { return h.peak_for(d) ? Value{h.peak_for(d)->base()} : Value{}; };
    const auto ridge = [&](DType d) {
      return h.peak_for(d) ? Value{ridge_point(*h.peak_for(d), h.memory_bandwidth).base()} : Value{};
    };
    std::vector<Value> row = {h.name,
                              h.memory_capacity.base(),
                              h.memory_bandwidth.base(),
                              peak(DType::bf16),
                              peak(DType::fp8),
                              ridge(DType::bf16),
                              ridge(DType::fp8),
                              h.power_watts > 0.0 ? Value{h.power_watts} : Value{},
                              h.vendor};
    for (DType d : kAllDTypes) {
      if (d == DType::bf16 || d == DType::fp8) continue;
      row.push_back(peak(d));
      row.push_back(ridge(d));
    }
    row.push_back(h.interconnect_name.empty() ? Value{} : Value{h.interconnect_name});
    row.push_back(h.interconnect_name.empty() ? Value{} : Value{h.interconnect_bandwidth.base()});
    row.push_back(h.interconnect_latency.base() > 0.0 ? Value{h.interconnect_latency.base()} : Value{});
    row.push_back(h.l2_cache.base() > 0.0 ? Value{h.l2_cache.base()} : Value{});
    row.emplace_back(h.display_name);
    row.emplace_back(join(h.aliases));
    row.emplace_back(e->origin);
    row.emplace_back(h.source);
    t.rows.push_back(std::move(row));
  }
  rep.tables.push_back(std::move(t));
  return rep;
}

std::vector<std::pair<const io::PresetEntry*, io::ModelPreset>> model_presets(const io::PresetRegistry& reg,
                                                                              std::string_view family) {
  const auto lower = [](std::string_view text) {
    std::string out(text);
    for (char& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return out;
  };
  const std::string want = lower(family);
  std::vector<std::pair<const io::PresetEntry*, io::ModelPreset>> out;
  std::set<std::string> families;
  for (const io::PresetEntry* e : reg.entries(io::PresetKind::model)) {
    io::ModelPreset p = reg.parse_model(*e);
    families.insert(p.config.family);
    if (want.empty() || lower(p.config.family) == want || lower(e->name).rfind(want, 0) == 0) {
      out.emplace_back(e, std::move(p));
    }
  }
  if (out.empty()) {
    std::string all;
    for (const std::string& f : families) all += (all.empty() ? "" : ", ") + f;
    throw UsageError("--family: no model preset of family " + text::quote(family) +
                     " (a family or the start of a name); families: " + all);
  }
  return out;
}

Report models_report(const io::PresetRegistry& reg, std::string_view family) {
  Report rep;
  rep.command = "models";
  rep.inputs = std::make_shared<const nlohmann::json>(nlohmann::json::object());
  Table t{"models",
          "Models",
          {{"name", "name", Unit::text},
           {"family", "family", Unit::text, true},
           {"n_layers", "L", Unit::count},
           {"d_model", "d", Unit::count},
           {"n_kv_heads", "h_kv", Unit::count},
           {"total_params", "params", Unit::count},
           {"active_params", "active", Unit::count},
           {"kv_cache_bytes_per_token_bf16", "KV/token", Unit::bytes},
           {"max_seq_len", "context", Unit::tokens},
           {"n_heads", "h", Unit::count, true},
           {"origin", "origin", Unit::text, true},
           {"display_name", "display name", Unit::text, true},
           {"published_params", "published", Unit::count, true},
           {"aliases", "aliases", Unit::text, true},
           {"source", "source", Unit::text, true}},
          {}};
  for (const auto& [e, p] : model_presets(reg, family)) {
    const ModelConfig& m = p.config;
    const ParamCounts pc = count_params(m);
    t.rows.push_back({m.name, m.family, m.n_layers, m.d_model, m.n_kv_heads, pc.total, pc.active,
                      kv_bytes_per_token(m, 2.0).base(), m.max_seq_len > 0 ? Value{m.max_seq_len} : Value{}, m.n_heads,
                      e->origin, p.display_name, p.published_params ? Value{*p.published_params} : Value{},
                      join(reg.aliases(*e)), p.source});
  }
  rep.tables.push_back(std::move(t));
  return rep;
}

// --brief: one matrix multiply's intensity, rate, time and bound.
const Brief kGemmBrief{"gemm",
                       {"gemm.intensity_flop_per_byte", "gemm.attainable_flop_per_s", "gemm.time_s", "gemm.bound"}};

}  // namespace roofline::format
