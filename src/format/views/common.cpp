// What every model command's report starts with: headline, inputs echo, CSV identity columns.
#include "format/field.hpp"
#include "format/views.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <exception>

#include "text/names.hpp"

namespace roofline::format {

std::string recompute_name(Recompute r) {
  switch (r) {
    case Recompute::none:
      return "none";
    case Recompute::selective:
      return "selective";
    case Recompute::full:
      return "full";
  }
  return "?";
}

Subject with_scenario(const Subject& given, const Scenario& at) {
  return {at, given.model_label, given.notes, given.warnings, given.inputs, given.reads, given.currency};
}

std::string weights_text(const Workload& w) {
  const WeightLayout& l = w.weights;
  if (l.uniform()) return std::string(w.weight_format);
  // The format most classes share is the rest; the others are named with their classes, in order.
  std::size_t rest = 0;
  std::size_t best = 0;
  for (std::size_t i = 0; i < kWeightClasses; ++i) {
    const auto n = static_cast<std::size_t>(std::count(l.formats.begin(), l.formats.end(), l.formats[i]));
    if (n > best) {
      best = n;
      rest = i;
    }
  }
  std::vector<std::string> parts;
  std::vector<bool> done(kWeightClasses, false);
  for (std::size_t i = 0; i < kWeightClasses; ++i) {
    if (done[i] || l.formats[i] == l.formats[rest]) continue;
    std::vector<std::string> classes;
    for (std::size_t j = i; j < kWeightClasses; ++j) {
      if (l.formats[j] == l.formats[i]) {
        classes.emplace_back(weight_class_name(kAllWeightClasses[j]));
        done[j] = true;
      }
    }
    parts.push_back(fmt::format("{} {}", l.formats[i].name, fmt::join(classes, ", ")));
  }
  parts.push_back(fmt::format("{} rest", l.formats[rest].name));
  return fmt::format("{}: {}", w.weight_format, fmt::join(parts, "; "));
}

namespace {

std::string bits_text(double bits) { return num(bits); }

std::string model_line(const Subject& in) {
  const ModelConfig& m = in.scenario.model;
  if (!in.scenario.architecture) {
    return fmt::format("a model of {} parameters (no architecture)", grouped(in.scenario.counts.total));
  }
  // NAS layers carry their own FFN widths: the model's d_ff is then not the width of every layer.
  const bool own_widths = std::any_of(m.hybrid.layers.begin(), m.hybrid.layers.end(),
                                      [&](const LayerMix& x) { return x.d_ff > 0 && x.d_ff != m.d_ff; });
  const std::string d_ff = own_widths ? std::string("per layer") : std::to_string(m.d_ff);
  std::string s =
      fmt::format("{} ({}): L={} d={} h={} h_kv={} d_h={} d_ff={} V={} {}", m.name, m.family, m.n_layers, m.d_model,
                  m.n_heads, m.n_kv_heads, m.head_dim, d_ff, m.vocab_size, m.tied_embeddings ? "tied" : "untied");
  std::string extra;
  if (m.moe.enabled()) extra += fmt::format(" experts={} top-k={}", m.moe.n_experts, m.moe.top_k);
  if (m.moe.zero_experts > 0) {  // the expected FFN experts a token reaches: an expectation, labelled
    extra += fmt::format(" zero-experts={} share={:.4g} (expected {:.4g} FFN experts a token)", m.moe.zero_experts,
                         m.moe.zero_share, m.moe.ffn_experts_per_token());
  }
  if (m.mla.enabled()) extra += fmt::format(" MLA d_c={}", m.mla.kv_lora_rank);
  if (m.indexer.enabled()) {
    extra += fmt::format(" DSA top-k={} indexer={}x{}", m.indexer.topk, m.indexer.n_heads, m.indexer.head_dim);
  }
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
std::string conventions_line(const Subject& in) {
  const Workload& w = in.scenario.workload;
  std::vector<std::string> parts;
  if (in.reads.weights && w.weights.uniform()) {
    parts.push_back(fmt::format("weights {} ({} bits)", w.weight_format, bits_text(w.weight_bits)));
  } else if (in.reads.weights) {
    parts.push_back(fmt::format("weights {} ({} bits on average)", weights_text(w), bits_text(w.weight_bits)));
  }
  if (in.reads.kv_dtype && w.kv_format == dtype_name(w.kv_dtype)) {
    parts.push_back(fmt::format("KV {}", dtype_name(w.kv_dtype)));
  } else if (in.reads.kv_dtype) {
    parts.push_back(fmt::format("KV {} ({} bits an element, scales in)", w.kv_format, bits_text(w.kv_bits)));
  }
  if (in.reads.compute_dtype && in.scenario.accelerator) {
    parts.push_back(fmt::format("compute {}", dtype_name(w.compute_dtype)));
  }
  if (in.reads.flops_basis) parts.push_back(fmt::format("FLOPs {}", text::name_of(w.basis)));
  if (in.reads.attention) parts.push_back(fmt::format("attention {}", text::name_of(w.attention)));
  if (in.reads.lm_head) parts.push_back(fmt::format("lm_head {}", text::name_of(w.lm_head)));
  if (in.reads.decode_bytes) {
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

}  // namespace

std::string rate_text(units::BytesPerSecond b) { return display(b.base(), Unit::bytes_per_s, UnitSystem::si); }

std::string group_placement_text(const Topology& t, const GroupLinks& g, std::string_view what) {
  const GroupPlacement& p = g.placement;
  if (p.ranks <= 1.0) return fmt::format("{}: one rank, nothing to exchange", what);
  const std::string in =
      fmt::format("{} at {}", t.inside.name.empty() ? "the device link" : t.inside.name, rate_text(g.inside_bandwidth));
  if (!g.spans) {
    return fmt::format("{} of {} ranks in one domain: {}{}", what, num(p.ranks), in,
                       g.switch_reduces ? ", the switch reducing (NVLS: an all-reduce's bus bandwidth 2(k - 1)/(k + 1) "
                                          "B_in, where its ring's LL protocol is not faster)"
                                        : "");
  }
  const std::string out = t.has_across ? fmt::format("{} at {}", t.across.name, rate_text(g.across_bandwidth))
                                       : std::string("no scale-out network known, so the inside link");
  return fmt::format("{} of {} ranks, {} a domain across {} domains: {} inside, {} across", what, num(p.ranks),
                     num(p.per_domain), num(p.domains), in, out);
}

std::string bus_bandwidth_text(const GroupLinks& g) {
  const GroupPlacement& p = g.placement;
  if (g.switch_reduces) {  // NVLS: each member sends and receives (k + 1)/k of the message
    return fmt::format("2 x ({} - 1)/({} + 1) x {}", num(p.per_domain), num(p.per_domain), num(g.inside_bandwidth));
  }
  return fmt::format("2 x ({} - 1)/{} / max(2 x ({} - 1)/{} / {}, 2 x ({} - 1)/{} / ({} x {}))", num(p.ranks),
                     num(p.ranks), num(p.per_domain), num(p.per_domain), num(g.inside_bandwidth), num(p.domains),
                     num(p.domains), num(p.per_domain), num(g.across_bandwidth));
}

Report start_report(const char* command, const Subject& in, const ViewOptions& view) {
  Report r;
  r.command = command;
  if (!view.values_only) {
    const std::string conventions = conventions_line(in);
    r.headline = model_line(in) + (conventions.empty() ? "" : "\n" + conventions);
  }
  if (view.echo_inputs) r.inputs = in.inputs;
  const Scenario& sc = in.scenario;
  const Workload& w = sc.workload;
  if (view.csv_inputs) {
    r.csv_inputs = {{"model", in.model_label}};
    if (sc.model.moe.zero_experts > 0) r.csv_inputs.emplace_back("zero_expert_share", sc.model.moe.zero_share);
    if (in.reads.gpu) r.csv_inputs.emplace_back("gpu", sc.accelerator ? Value{sc.accelerator->hw.name} : Value{});
    if (in.reads.devices) r.csv_inputs.emplace_back("devices", sc.deployment.devices);
    if (in.reads.batch) r.csv_inputs.emplace_back("batch", w.batch);
    if (in.reads.context) r.csv_inputs.emplace_back("context_tokens", w.context);
    if (in.reads.prompt) r.csv_inputs.emplace_back("prompt_tokens", w.prompt);
    if (in.reads.output) r.csv_inputs.emplace_back("output_tokens", w.output);
    if (in.reads.weights) r.csv_inputs.emplace_back("weight_format", std::string(w.weight_format));
    if (in.reads.kv_dtype) r.csv_inputs.emplace_back("kv_dtype", std::string(dtype_name(w.kv_dtype)));
  }
  r.notes = in.notes;
  r.warnings = in.warnings;
  r.currency = in.currency;
  return r;
}

void add_model_notes(Report& rep, const Subject& in) {
  const ParamCounts& c = in.scenario.counts;
  const MoeConfig& e = in.scenario.model.moe;
  if (e.zero_experts > 0) {
    rep.notes.push_back(fmt::format(
        "expected, not exact: {} of each token's top-{} slots go to the {} zero-computation experts "
        "(--zero-expert-share {:.4g}), so the active parameters, FLOPs and expert reads assume {:.4g} FFN experts a "
        "token; activation memory assumes all {}",
        e.zero_share == 0.0 ? std::string("none") : fmt::format("a share {:.4g}", e.zero_share), e.top_k,
        e.zero_experts, e.zero_share, e.ffn_experts_per_token(), e.top_k));
  }
  if (c.mtp_excluded > 0) {
    rep.notes.push_back(fmt::format("multi-token-prediction layers hold {} parameters; excluded from the total",
                                    grouped(c.mtp_excluded)));
  }
}

SweepCells::SweepCells(unsigned bit, SweepFigures& f) : bit_(bit), f_(f) {
  // One list of columns per sweep table, recorded by its first walk that completes.
  static std::array<std::vector<SweepColumn>, kSweepTables> columns;
  columns_ = &columns.at(static_cast<std::size_t>(std::countr_zero(bit)));
  recording_ = columns_->empty();
  f.columns = columns_;
  f.cells.clear();
}

SweepCells::~SweepCells() {
  if (recording_ && std::uncaught_exceptions() == 0) *columns_ = std::move(recorded_);
}

void SweepCells::record(const char* section, const char* key, const char* label, const char* layout_label) {
  const bool layout = (bit_ & kSweepLayouts) != 0U && layout_label != nullptr;
  recorded_.push_back({fmt::format("{}.{}", section, key), layout ? layout_label : label});
}

}  // namespace roofline::format
