// layer: the pass's totals unfused and fused, the layer kinds, and one table of operators per layer
// kind and for the head (the kv_layers mechanism: a Table, one row per operator, every column in
// JSON, the wide ones JSON-only).
#include "format/field.hpp"
#include "format/views.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "text/names.hpp"

namespace roofline::format {
namespace {

struct L {
  const Subject& in;
  const LayerResult& r;
  [[nodiscard]] bool decode() const { return r.query.phase == Phase::decode; }
  [[nodiscard]] const char* pass_source() const { return decode() ? "S003-2.5" : "S004"; }
};

// "32 x 567,296,000 + 1,050,681,344": a sum over the layer kinds, then the head.
template <typename Get>
std::string over_kinds(const L& l, Get get) {
  std::string s;
  for (const LayerSection& sec : l.r.layers) {
    s += fmt::format("{} x {} + ", num(sec.kind.layers), num(get(sec.totals)));
  }
  return s + num(get(l.r.head.totals));
}

std::string pass_name(const L& l) { return l.decode() ? "decode step" : "prefill"; }

const std::vector<Field<L>> kLayer = {
    {"ridge_flop_per_byte", "ridge the bounds use", "WI09", "I* = P / BW", [](const L& l) { return cell(l.r.ridge); },
     [](const L& l) { return fmt::format("{} / {}", num(l.r.machine.peak), num(l.r.machine.bandwidth)); },
     [](const L&) { return std::string("an operator below it is memory-bound"); },
     [](const L& l) { return l.r.has_peak; }},
    in_brief<L>(kBriefLayer,
                {"flop", "", "", "sum_k L_k F_k + F_head", [](const L& l) { return cell(l.r.totals.flops); },
                 [](const L& l) { return over_kinds(l, [](const LayerTotals& t) { return t.flops.base(); }); },
                 [](const L& l) { return fmt::format("= the {} command's", l.decode() ? "decode" : "prefill"); },
                 nullptr, [](const L& l) { return fmt::format("FLOPs of the {}", pass_name(l)); }}),
    {"weight_bytes", "weights read", "", "sum_k L_k W_k + W_head",
     [](const L& l) { return cell(l.r.totals.weight_bytes); },
     [](const L& l) { return over_kinds(l, [](const LayerTotals& t) { return t.weight_bytes.base(); }); }},
    {"kv_bytes", "", "", "sum_k L_k KV_k + KV_head", [](const L& l) { return cell(l.r.totals.kv_bytes); },
     [](const L& l) { return over_kinds(l, [](const LayerTotals& t) { return t.kv_bytes.base(); }); }, nullptr, nullptr,
     [](const L& l) { return std::string(l.decode() ? "KV cache read" : "KV cache written"); }},
    {"activation_bytes_unfused", "activations, unfused", "S003-3.3", "sum_k L_k A_k + A_head",
     [](const L& l) { return cell(l.r.totals.activation_bytes); },
     [](const L& l) { return over_kinds(l, [](const LayerTotals& t) { return t.activation_bytes.base(); }); },
     [](const L&) { return std::string("incl. the score matrix"); }},
    {"activation_bytes_fused", "activations, fused", "DA22", "sum_k L_k A_k,fused + A_head,fused",
     [](const L& l) { return cell(l.r.totals.activation_bytes_fused); },
     [](const L& l) { return over_kinds(l, [](const LayerTotals& t) { return t.activation_bytes_fused.base(); }); },
     [](const L&) { return std::string("flash attention, elementwise fused"); }},
    in_brief<L>(kBriefLayer, {"bytes_unfused", "bytes moved, unfused", "S003-3.3", "Q = W + KV + A",
                              [](const L& l) { return cell(l.r.bytes_unfused); },
                              [](const L& l) {
                                return fmt::format("{} + {} + {}", num(l.r.totals.weight_bytes),
                                                   num(l.r.totals.kv_bytes), num(l.r.totals.activation_bytes));
                              }}),
    in_brief<L>(kBriefLayer, {"bytes_fused", "bytes moved, fused", "DA22", "Q = W + KV + A_fused",
                              [](const L& l) { return cell(l.r.bytes_fused); },
                              [](const L& l) {
                                return fmt::format("{} + {} + {}", num(l.r.totals.weight_bytes),
                                                   num(l.r.totals.kv_bytes), num(l.r.totals.activation_bytes_fused));
                              }}),
    {"fusion_traffic_ratio", "traffic, unfused / fused", "S002-fusion", "Q_unfused / Q_fused",
     [](const L& l) { return cell(units::Ratio{l.r.fusion_traffic_ratio}); },
     [](const L& l) { return fmt::format("{} / {}", num(l.r.bytes_unfused), num(l.r.bytes_fused)); }},
    in_brief<L>(kBriefLayer,
                {"time_unfused_s", "operator floors summed, unfused", "WI09", "sum_k L_k sum_ops max(F/P, Q/BW) + head",
                 [](const L& l) { return cell(l.r.totals.time); },
                 [](const L& l) { return over_kinds(l, [](const LayerTotals& t) { return t.time.base(); }); }}),
    in_brief<L>(
        kBriefLayer,
        {"time_fused_s", "operator floors summed, fused", "WI09", "sum_k L_k sum_ops max(F/P, Q_fused/BW) + head",
         [](const L& l) { return cell(l.r.totals.time_fused); },
         [](const L& l) { return over_kinds(l, [](const LayerTotals& t) { return t.time_fused.base(); }); }}),
    // Without a peak the floor is the pass command's: decode's step floor is the memory side
    // alone, prefill's TTFT floor n/a (N15).
    in_brief<L>(
        kBriefLayer,
        {"whole_pass_time_s", "", "WI09", "max(F/P, (W + KV)/BW)", [](const L& l) { return cell(l.r.whole_time); },
         [](const L& l) {
           if (!l.r.whole_time) return std::string();
           if (!l.r.has_peak) return fmt::format("{} / {}", num(l.r.whole_bytes), num(l.r.machine.bandwidth));
           return fmt::format("max({} / {}, {} / {})", num(l.r.whole_flops), num(l.r.machine.peak),
                              num(l.r.whole_bytes), num(l.r.machine.bandwidth));
         },
         [](const L& l) {
           if (!l.r.whole_time) return std::string("no compute peak, as prefill's TTFT floor");
           if (!l.r.has_peak) return std::string("memory side only");
           return std::string(l.r.whole_bound == Bound::memory ? "memory-bound" : "compute-bound");
         },
         nullptr, [](const L& l) { return fmt::format("one roofline for the whole {}", pass_name(l)); }}),
};

// The FLOPs and weight rows cite the pass they split: S003-2.5 (decode) or S004 (prefill).
Section layer_section(const L& l, const ViewOptions& view) {
  Section s = make_section("layer",
                           l.decode() ? fmt::format("Decode step (batch {}, context {}): all layers + head",
                                                    grouped(l.r.batch), grouped(l.r.context))
                                      : fmt::format("Prefill (batch {}, {} tokens): all layers + head",
                                                    grouped(l.r.batch), grouped(l.r.prompt)),
                           kLayer, l, view);
  for (Row& row : s.rows) {
    if (row.key == "flop" || row.key == "weight_bytes" || row.key == "kv_bytes") row.formula_id = l.pass_source();
  }
  return s;
}

std::string bound_text(const LayerResult& r, const LayerOpResult& o) {
  if (o.op.fused_away) return "fused";
  if (!r.has_peak) return "n/a";  // the note says times are the memory side only
  return o.bound == Bound::memory ? "memory" : "compute";
}

// A transformer's kinds are dense or moe (with _sliding / _global when it has windows); a hybrid's
// are its layer parts as presets spell them, joined by "_" (mamba2, attention_moe,
// attention_mamba2_mlp); mllama's cross-attention layers are cross_attention.
std::string kind_key(const ModelConfig& m, const LayerKind& k, bool windows) {
  if (k.cross_attention) return "cross_attention";
  if (m.hybrid.enabled()) {
    std::string s = text::layer_mix_name(k.mix);
    std::replace(s.begin(), s.end(), '+', '_');
    std::replace(s.begin(), s.end(), ':', '_');  // a NAS layer's own width: attention_mlp_14336
    return s;
  }
  std::string s = k.moe ? "moe" : "dense";
  if (windows) s += k.sliding ? "_sliding" : "_global";
  return s;
}

std::string kind_label(const ModelConfig& m, const LayerKind& k, bool windows) {
  if (k.cross_attention) return "cross-attention";
  if (m.hybrid.enabled()) {
    std::string s;
    for (const char ch : text::layer_mix_name(k.mix)) s += ch == '+' ? std::string(" + ") : std::string(1, ch);
    return s;
  }
  std::string s = k.moe ? "MoE" : "dense";
  if (windows) s += k.sliding ? fmt::format(", sliding {}", grouped(k.window)) : std::string(", global");
  return s;
}

std::string which_layers(const LayerKind& k) {
  if (k.cross_attention) return "between the others";
  if (k.layers == 1) return std::to_string(k.first);
  if (k.every == 1) return fmt::format("{}-{}", k.first, k.last);
  if (k.every == 0) return fmt::format("{}, ..., {} (irregular)", k.first, k.last);
  return fmt::format("{}, {}, ..., {} (every {})", k.first, k.first + k.every, k.last, k.every);
}

const char* op_kind_name(OpKind k) {
  switch (k) {
    case OpKind::matmul:
      return "matmul";
    case OpKind::attention:
      return "attention";
    case OpKind::norm:
      return "norm";
    case OpKind::rope:
      return "rope";
    case OpKind::softmax:
      return "softmax";
    case OpKind::activation:
      return "activation";
    case OpKind::residual:
      return "residual";
    case OpKind::combine:
      return "combine";
    case OpKind::gather:
      return "gather";
    case OpKind::conv:
      return "conv";
    case OpKind::scan:
      return "scan";
  }
  return "?";
}

Table ops_table(const LayerResult& r, const LayerSection& sec, std::string key, std::string title) {
  Table t{std::move(key),
          std::move(title),
          {{"operator", "operator", Unit::text},
           {"flop", "FLOPs", Unit::flop},
           {"weight_bytes", "weights", Unit::bytes},
           {"kv_bytes", "KV", Unit::bytes},
           {"activation_bytes", "activ.", Unit::bytes},
           {"intensity_flop_per_byte", "FLOP/B", Unit::none},
           {"bound", "bound", Unit::text},
           {"time_s", "time", Unit::seconds},
           {"share_fraction", "share", Unit::fraction},
           {"id", "id", Unit::text, true},
           {"kind", "kind", Unit::text, true},
           {"bytes", "bytes", Unit::bytes, true},
           {"flop_params", "FLOP params", Unit::count, true},
           {"weight_params", "weight params", Unit::count, true},
           {"fused", "fused", Unit::boolean, true}},
          {}};
  for (const LayerOpResult& o : sec.ops) {
    t.rows.push_back({std::string(o.op.name), o.op.flops.base(), o.op.weight_bytes.base(), o.op.kv_bytes.base(),
                      o.op.activation_bytes.base(), o.intensity ? Value{o.intensity->base()} : Value{},
                      bound_text(r, o), o.time.base(), o.share.base(), std::string(o.op.id),
                      std::string(op_kind_name(o.op.kind)), o.bytes.base(), o.op.flop_params, o.op.weight_params,
                      o.op.fused_away});
  }
  return t;
}

Table kinds_table(const ModelConfig& m, const LayerResult& r, bool windows) {
  Table t{"layer_kinds",
          "Layer kinds: time per layer (operator floors summed), share of the pass",
          {{"kind", "layers", Unit::text},
           {"layers", "count", Unit::count},
           {"which", "which", Unit::text},
           {"flop", "FLOPs/layer", Unit::flop},
           {"time_s", "unfused", Unit::seconds},
           {"time_fused_s", "fused", Unit::seconds},
           {"share_fraction", "share", Unit::fraction},
           {"table", "table", Unit::text, true},
           {"first_layer", "first", Unit::count, true},
           {"last_layer", "last", Unit::count, true},
           {"every", "every", Unit::count, true},
           {"window_tokens", "window", Unit::tokens, true},
           {"weight_bytes", "weights", Unit::bytes, true},
           {"kv_bytes", "KV", Unit::bytes, true},
           {"activation_bytes", "activations", Unit::bytes, true},
           {"activation_bytes_fused", "activations fused", Unit::bytes, true}},
          {}};
  const double pass = (r.query.fused ? r.totals.time_fused : r.totals.time).base();
  const auto row = [&](const LayerSection& s, std::string label, std::string which, std::string table) {
    const LayerTotals& x = s.totals;
    const double n = static_cast<double>(s.kind.layers);
    const double mine = (r.query.fused ? x.time_fused : x.time).base() * n;
    // The head and mllama's cross-attention layers (whose positions are not kept) have no indices.
    const bool placed = !s.head && !s.kind.cross_attention;
    t.rows.push_back({std::move(label), s.kind.layers, std::move(which), x.flops.base(), x.time.base(),
                      x.time_fused.base(), pass > 0.0 ? mine / pass : 0.0, std::move(table),
                      placed ? Value{s.kind.first} : Value{}, placed ? Value{s.kind.last} : Value{},
                      placed ? Value{s.kind.every} : Value{}, s.kind.sliding ? Value{s.kind.window} : Value{},
                      x.weight_bytes.base(), x.kv_bytes.base(), x.activation_bytes.base(),
                      x.activation_bytes_fused.base()});
  };
  for (const LayerSection& s : r.layers) {
    row(s, kind_label(m, s.kind, windows), which_layers(s.kind), "layer_ops_" + kind_key(m, s.kind, windows));
  }
  row(r.head, "head (once)", "", "head_ops");
  return t;
}

std::string phase_text(const LayerResult& r) {
  if (r.query.phase == Phase::decode) {
    return fmt::format("decode, batch {}, context {}", grouped(r.batch), grouped(r.context));
  }
  return fmt::format("prefill, batch {} x {} tokens", grouped(r.batch), grouped(r.prompt));
}

void add_notes(Report& rep, const Subject& in, const LayerResult& r) {
  const ModelConfig& m = in.scenario.model;
  rep.notes.push_back(
      r.query.fused
          ? "rows fused: flash attention keeps the scores on chip, and the norms, RoPE, activation, combine and "
            "residual adds ride in their matmuls (those rows move nothing: bound \"fused\"); the totals show both"
          : "rows unfused: every operator reads its inputs from memory and writes its outputs back, the attention "
            "its score matrix too; --fused gives the rows with flash attention and the elementwise operators fused; "
            "the totals show both");
  rep.notes.push_back(fmt::format(
      "FLOPs, weights and KV are the {} command's for the same pass, split by operator (physical FLOP basis); "
      "activations (activ.) are the traffic it assumes stays on chip",
      r.query.phase == Phase::decode ? "decode" : "prefill"));
  rep.notes.push_back(
      "a matmul counts 2 FLOPs per parameter (norm gains and biases too) and the attention core 2 w per query-key "
      "pair; softmax, RoPE, activations, residual adds and the combine count none, as every command here does");
  rep.notes.push_back(
      "each operator's floor is its own max(F/P, Q/BW) and operators run one after another, so their sum is "
      "above the one roofline of the whole pass");
  // N2: the state mixers' rows follow what decode and prefill count, and say what that leaves out.
  if (std::any_of(m.hybrid.layers.begin(), m.hybrid.layers.end(),
                  [](const LayerMix& x) { return x.state != StateMixer::none; })) {
    rep.notes.push_back(fmt::format(
        "state-space layers: conv1d and the scan (selective scan, SSD or gated delta rule) count 2 FLOPs per "
        "parameter, the scan's A, D and dt bias, as decode and prefill do; the arithmetic of the state update "
        "itself is not counted here or by any command yet; conv1d {} the conv state and the scan the recurrent "
        "state (KV column), once per sequence",
        r.query.phase == Phase::decode ? "reads" : "writes"));
  }
  if (m.cross_attention_layers > 0) {
    rep.notes.push_back(fmt::format(
        "mllama: {} cross-attention layers sit between the {} self-attention layers, which are numbered 0-{} among "
        "themselves (the positions are not kept); they count their projections, q/k norms, gates and MLP per text "
        "token, as decode and prefill do, and no attention core or cache: the image's keys and values are not part "
        "of this pass",
        grouped(m.cross_attention_layers), grouped(m.n_layers), m.n_layers - 1));
  }
  if (!r.has_peak) {
    rep.notes.push_back(fmt::format(
        "no published dense {} peak: each time is the memory side Q/BW alone, no bound can be named, and {}",
        dtype_name(in.scenario.workload.compute_dtype),
        r.query.phase == Phase::decode ? "the whole-pass floor is the memory side, as decode's step floor"
                                       : "the whole-pass floor is n/a, as prefill's TTFT floor"));
  }
  if (m.moe.enabled()) {
    const Workload& w = in.scenario.workload;
    rep.notes.push_back(fmt::format(
        "each MoE layer reads the weights of {} of its {} routed experts (--decode-bytes {}, --moe-decode {}); a "
        "token multiplies {}",
        num(r.experts_read), grouped(m.moe.n_experts), text::name_of(w.decode_bytes), text::name_of(w.moe_decode),
        m.moe.zero_experts > 0 ? fmt::format("{:.4g} (expected: top-{} less its zero-expert share {:.4g})",
                                             m.moe.ffn_experts_per_token(), m.moe.top_k, m.moe.zero_share)
                               : grouped(m.moe.top_k)));
  }
  if (m.mla.enabled()) {
    rep.notes.push_back(
        "MLA: kv_a_proj writes the cache (the latent and the rope key), which QK^T reads once; Q and K are counted "
        "at their up-projected widths h (d_nope + d_R), as every FLOP count here is (no weight absorption)");
  }
  if (r.query.phase == Phase::prefill) {
    rep.notes.push_back(
        "prefill: the K and V projections write the cache (KV); the attention reads them back as activations, and "
        "the unfused score matrix is the full S x S per head");
  }
}

}  // namespace

void add_layer(Report& rep, const Subject& in, const LayerResult& r, const ViewOptions& view) {
  const L l{in, r};
  rep.sections.push_back(layer_section(l, view));
  const bool windows = in.scenario.model.sliding_window > 0;
  const ModelConfig& m = in.scenario.model;
  rep.tables.push_back(kinds_table(m, r, windows));
  const char* mode = r.query.fused ? "fused" : "unfused";
  for (const LayerSection& s : r.layers) {
    const std::string which = s.kind.cross_attention
                                  ? std::string("Cross-attention layers")
                                  : fmt::format("Layer {}, {}", s.kind.first, kind_label(m, s.kind, windows));
    rep.tables.push_back(
        ops_table(r, s, "layer_ops_" + kind_key(m, s.kind, windows),
                  fmt::format("{} ({} alike): {}, {}", which, grouped(s.kind.layers), phase_text(r), mode)));
  }
  rep.tables.push_back(ops_table(r, r.head, "head_ops", fmt::format("Head, once: {}, {}", phase_text(r), mode)));
  add_notes(rep, in, r);
  // The pass is an input of this command: echoed beside the workload, and in the CSV identity.
  if (rep.inputs) {
    nlohmann::json inputs = *rep.inputs;
    const double n = r.pass.tokens;  // B S can pass 2^53: an integer only while it is exact
    inputs["layer"] = {{"phase", text::name_of(r.query.phase)},
                       {"fused", r.query.fused},
                       {"tokens", n < 0x1p53 ? nlohmann::json(static_cast<std::int64_t>(n)) : nlohmann::json(n)}};
    rep.inputs = std::make_shared<const nlohmann::json>(std::move(inputs));
  }
  rep.csv_inputs.emplace_back("phase", std::string(text::name_of(r.query.phase)));
  rep.csv_inputs.emplace_back("fused", r.query.fused);
}

// --brief: the pass's FLOPs and traffic, and its floors unfused, fused and as one roofline.
const Brief kLayerBrief{"layer", kBriefLayer};

}  // namespace roofline::format
