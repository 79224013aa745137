#include "cli/listings.hpp"

#include "format/field.hpp"

#include "roofline/errors.hpp"
#include "roofline/layer_stack.hpp"
#include "roofline/memory.hpp"
#include "roofline/params.hpp"
#include "roofline/roofline.hpp"
#include "roofline/topology.hpp"

#include <nlohmann/json.hpp>

#include <cctype>
#include <set>

#include "text/names.hpp"
#include "text/user_text.hpp"

namespace roofline::cli {
namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& a : v) s += (s.empty() ? "" : " ") + a;
  return s;
}

}  // namespace

using format::Report;
using format::Table;
using format::Unit;
using format::Value;

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
  t.columns.push_back({"pcie", "PCIe", Unit::text, true});
  t.columns.push_back({"system", "system", Unit::text, true});
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
    row.push_back(h.pcie_generation > 0 ? Value{io::pcie_link(h).name} : Value{});
    row.push_back(h.system.empty() ? Value{} : Value{h.system});
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

Report systems_report(const io::PresetRegistry& reg) {
  Report rep;
  rep.command = "systems";
  rep.inputs = std::make_shared<const nlohmann::json>(nlohmann::json::object());
  Table t{"systems",
          "Systems (per device, one direction; ridge = the accelerator's bf16 peak / the link)",
          {{"name", "name", Unit::text},
           {"accelerator", "accelerator", Unit::text},
           {"domain_devices", "domain", Unit::count},
           {"inside_link", "inside", Unit::text, true},
           {"inside_bytes_per_s", "inside/dir", Unit::bytes_per_s},
           {"scale_out_bytes_per_s", "scale-out/dir", Unit::bytes_per_s},
           {"ridge_inside_flop_per_byte", "ridge in", Unit::flop_per_byte},
           {"ridge_scale_out_flop_per_byte", "ridge out", Unit::flop_per_byte},
           {"devices_per_node", "devices per node", Unit::count, true},
           {"inside_name", "inside name", Unit::text, true},
           {"scale_out_name", "scale-out name", Unit::text, true},
           {"torus", "torus", Unit::text, true},
           {"wraparound", "wraparound", Unit::boolean, true},
           {"mesh", "mesh", Unit::boolean, true},
           {"in_switch_reduction", "in-switch reduction", Unit::boolean, true},
           {"display_name", "display name", Unit::text, true},
           {"aliases", "aliases", Unit::text, true},
           {"origin", "origin", Unit::text, true},
           {"source", "source", Unit::text, true}},
          {}};
  for (const io::PresetEntry* e : reg.entries(io::PresetKind::system)) {
    const io::SystemPreset p = reg.parse_system(*e);
    const Topology& s = p.topology;
    std::optional<units::FlopPerSecond> peak;
    try {
      peak = reg.load_gpu(p.accelerator).peak_for(DType::bf16);
    } catch (const InputError&) {
      peak.reset();  // an accelerator preset that is not there: the row says no ridge
    }
    const auto ridge = [&](units::BytesPerSecond b) {
      return peak && b.base() > 0.0 ? Value{interconnect_ridge(*peak, b)} : Value{};
    };
    std::string torus;
    for (const std::int64_t d : s.torus) torus += (torus.empty() ? "" : "x") + std::to_string(d);
    t.rows.push_back({s.name, p.accelerator, s.domain, std::string(link_kind_name(s.inside.kind)),
                      s.inside.bandwidth.base(), s.has_across ? Value{s.across.bandwidth.base()} : Value{},
                      ridge(s.inside.bandwidth), s.has_across ? ridge(s.across.bandwidth) : Value{}, s.devices_per_node,
                      s.inside.name, s.has_across ? Value{s.across.name} : Value{},
                      torus.empty() ? Value{} : Value{torus}, s.wraparound, s.mesh, s.switch_reduction, s.display_name,
                      join(reg.aliases(*e)), e->origin, s.source_text});
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
           {"layer_kinds", "layers", Unit::text},
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
                      kv_bytes_per_token(m, 2.0).base(), m.max_seq_len > 0 ? Value{m.max_seq_len} : Value{},
                      text::stack_summary(m, layer_stack(m)), m.n_heads, e->origin, p.display_name,
                      p.published_params ? Value{*p.published_params} : Value{}, join(reg.aliases(*e)), p.source});
  }
  rep.tables.push_back(std::move(t));
  return rep;
}

}  // namespace roofline::cli
