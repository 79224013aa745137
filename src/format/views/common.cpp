// What every model command's report starts with: headline, inputs echo, CSV identity columns.
#include "format/field.hpp"
#include "format/views.hpp"
#include "io/preset_json.hpp"

#include <nlohmann/json.hpp>

#include "text/names.hpp"

namespace roofline::format {
namespace {

std::string bits_text(double bits) { return num(bits); }

std::string model_line(const io::Resolved& in) {
  const ModelConfig& m = in.scenario.model;
  if (!in.scenario.architecture) {
    return fmt::format("a model of {} parameters (no architecture)", grouped(in.scenario.counts.total));
  }
  std::string s =
      fmt::format("{} ({}): L={} d={} h={} h_kv={} d_h={} d_ff={} V={} {}", m.name, m.family, m.n_layers, m.d_model,
                  m.n_heads, m.n_kv_heads, m.head_dim, m.d_ff, m.vocab_size, m.tied_embeddings ? "tied" : "untied");
  std::string extra;
  if (m.moe.enabled()) extra += fmt::format(" experts={} top-k={}", m.moe.n_experts, m.moe.top_k);
  if (m.mla.enabled()) extra += fmt::format(" MLA d_c={}", m.mla.kv_lora_rank);
  if (m.sliding_window > 0) extra += fmt::format(" window={}", m.sliding_window);
  // The table fits 100 columns: the MoE, MLA and window details wrap to their own line.
  if (s.size() + extra.size() > 100 && !extra.empty()) {
    s += "\n" + extra.substr(1);
  } else {
    s += extra;
  }
  // A what-if names its overrides on a line of its own: "modified: --layers 40".
  if (in.model_label.size() > m.name.size()) s += "\n" + in.model_label.substr(m.name.size() + 1);
  return s;
}

// The conventions in force that this command reads, so a table reader knows which rules produced it.
std::string conventions_line(const io::Resolved& in, unsigned groups) {
  const Workload& w = in.scenario.workload;
  std::vector<std::string> parts;
  if ((groups & io::kWeights) != 0U)
    parts.push_back(fmt::format("weights {} ({} bits)", w.weight_format, bits_text(w.weight_bits)));
  if ((groups & io::kKvDtype) != 0U) parts.push_back(fmt::format("KV {}", dtype_name(w.kv_dtype)));
  if ((groups & io::kComputeDtype) != 0U && in.scenario.accelerator) {
    parts.push_back(fmt::format("compute {}", dtype_name(w.compute_dtype)));
  }
  if ((groups & io::kFlopsBasis) != 0U) parts.push_back(fmt::format("FLOPs {}", text::name_of(w.basis)));
  if ((groups & io::kAttentionMode) != 0U) parts.push_back(fmt::format("attention {}", text::name_of(w.attention)));
  if ((groups & io::kLmHead) != 0U) parts.push_back(fmt::format("lm_head {}", text::name_of(w.lm_head)));
  if ((groups & io::kDecodeBytes) != 0U) {
    parts.push_back(fmt::format("decode bytes {}", text::name_of(w.decode_bytes)));
    if (in.scenario.model.moe.enabled()) parts.push_back(fmt::format("MoE experts {}", text::name_of(w.moe_decode)));
  }
  if (in.scenario.accelerator) {
    const Accelerator& a = *in.scenario.accelerator;
    const std::int64_t g = in.scenario.deployment.devices;
    parts.push_back(fmt::format(
        "on {}{} ({})", g > 1 ? fmt::format("{} x ", g) : std::string(), a.hw.name,
        a.capacity_source == CapacitySource::override_bytes ? "capacity --gpu-memory" : "capacity device bytes"));
  }
  // Wrapped to the table width, at the separators.
  std::string out;
  std::string line;
  for (const std::string& p : parts) {
    if (!line.empty() && line.size() + 2 + p.size() > 98) {
      out += (out.empty() ? "" : "\n") + line + ",";
      line.clear();
    }
    line += (line.empty() ? "" : ", ") + p;
  }
  return out.empty() ? line : out + "\n" + line;
}

nlohmann::json inputs_json(const io::Resolved& in) {
  const Scenario& sc = in.scenario;
  const Workload& w = sc.workload;
  nlohmann::json j;
  j["model"] = {{"name", in.model_label},
                {"origin", in.model.origin},
                {"input_format", text::name_of(in.model.input_format)},
                {"modified", sc.provenance.modified},
                {"architecture", sc.architecture ? io::architecture_to_json(sc.model) : nlohmann::json()}};
  j["model"]["published_params"] =
      sc.provenance.published_params ? nlohmann::json(*sc.provenance.published_params) : nlohmann::json();
  const auto opt_int = [](const std::optional<std::int64_t>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
  const auto whole = [](double v) {
    return std::fabs(v) < 0x1p53 && v == std::floor(v) ? nlohmann::json(static_cast<std::int64_t>(v))
                                                       : nlohmann::json(v);
  };
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
      {"kv_dtype", dtype_name(w.kv_dtype)},
      {"compute_dtype", dtype_name(w.compute_dtype)},
      {"activation_dtype", dtype_name(w.activation_dtype)},
      {"reserve_bytes_per_device", whole(w.reserve.base())},
      {"bw_efficiency", w.bw_efficiency},
      {"mfu", w.mfu},
      {"devices", sc.deployment.devices}};
  j["conventions"] = {{"flops_basis", text::name_of(w.basis)},
                      {"attention", text::name_of(w.attention)},
                      {"lm_head_positions", text::name_of(w.lm_head)},
                      {"decode_bytes", text::name_of(w.decode_bytes)},
                      {"moe_decode_bytes", text::name_of(w.moe_decode)},
                      {"capacity", sc.accelerator ? text::name_of(sc.accelerator->capacity_source) : "none"},
                      {"concurrency_rounding", "floor"}};
  if (sc.accelerator) {
    const HardwareConfig& h = sc.accelerator->hw;
    nlohmann::json peaks = nlohmann::json::object();
    for (DType t : kAllDTypes) {
      if (auto pk = h.peak_for(t)) peaks[std::string(dtype_name(t))] = pk->base();
    }
    const auto peak = device_peak(sc);
    j["gpu"] = {{"name", h.name},
                {"requested", in.gpu_requested},
                {"memory_capacity_bytes", whole(h.memory_capacity.base())},
                {"memory_bandwidth_bytes_per_s", h.memory_bandwidth.base()},
                {"peak_flop_per_s", peaks},
                {"compute_peak_flop_per_s", peak ? nlohmann::json(peak->base()) : nlohmann::json()}};
  } else {
    j["gpu"] = nullptr;
  }
  return j;
}

}  // namespace

Report start_report(const char* command, const io::Resolved& in, unsigned groups, const ViewOptions& view) {
  Report r;
  r.command = command;
  if (!view.values_only) {
    const std::string conventions = conventions_line(in, groups);
    r.headline = model_line(in) + (conventions.empty() ? "" : "\n" + conventions);
  }
  if (view.echo_inputs) r.inputs = std::make_shared<const nlohmann::json>(inputs_json(in));
  const Scenario& sc = in.scenario;
  const Workload& w = sc.workload;
  r.csv_inputs = {{"model", in.model_label}};
  const auto has = [&](unsigned g) { return (groups & g) != 0U; };
  if (has(io::kGpu)) r.csv_inputs.emplace_back("gpu", sc.accelerator ? Value{sc.accelerator->hw.name} : Value{});
  if (has(io::kDevices)) r.csv_inputs.emplace_back("devices", sc.deployment.devices);
  if (has(io::kBatch)) r.csv_inputs.emplace_back("batch", w.batch);
  if (has(io::kContext)) r.csv_inputs.emplace_back("context_tokens", w.context);
  if (has(io::kPrompt)) r.csv_inputs.emplace_back("prompt_tokens", w.prompt);
  if (has(io::kOutput)) r.csv_inputs.emplace_back("output_tokens", w.output);
  if (has(io::kWeights)) r.csv_inputs.emplace_back("weight_format", std::string(w.weight_format));
  if (has(io::kKvDtype)) r.csv_inputs.emplace_back("kv_dtype", std::string(dtype_name(w.kv_dtype)));
  r.notes = in.notes;
  r.warnings = in.warnings;
  return r;
}

void add_model_notes(Report& rep, const io::Resolved& in) {
  const ParamCounts& c = in.scenario.counts;
  if (c.mtp_excluded > 0) {
    rep.notes.push_back(fmt::format("multi-token-prediction layers hold {} parameters; excluded from the total",
                                    grouped(c.mtp_excluded)));
  }
}

}  // namespace roofline::format
