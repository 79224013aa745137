// Report builders. Each row names its formula and citation key (docs/formulas.md) and carries the
// formula with this run's values substituted, for --explain.
#include "cli/commands.hpp"

#include "roofline/flops.hpp"
#include "roofline/memory.hpp"
#include "roofline/misc.hpp"
#include "roofline/roofline.hpp"
#include "roofline/training.hpp"

#include <fmt/format.h>

#include <cmath>

namespace roofline::cli {

using format::Row;
using format::Section;
using format::Table;
using format::Unit;
using format::Value;
using i64 = std::int64_t;

namespace {

std::string n(i64 v) { return fmt::format("{}", fmt::group_digits(v)); }
// Compact numbers for substituted formulas: whole numbers exact, others to 4 significant digits.
std::string g(double v) {
  if (std::fabs(v) < 1e15 && v == std::floor(v)) return n(static_cast<i64>(v));
  std::string s = format::sig4(v);
  if (s.find('.') != std::string::npos && s.find('e') == std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}
std::string gb(double bytes) { return format::sig4(bytes / 1e9) + " GB"; }

Value opt(bool ok, double v) { return ok ? Value{v} : Value{}; }

// Appends rows to a section with less ceremony.
class Rows {
 public:
  Rows(std::string key, std::string title) { s_.key = std::move(key), s_.title = std::move(title); }
  Rows& add(std::string key, std::string label, Value v, Unit u, std::string formula_id = {}, std::string formula = {},
            std::string substituted = {}, std::string note = {}) {
    s_.rows.push_back({std::move(key), std::move(label), std::move(v), u, std::move(formula_id), std::move(formula),
                       std::move(substituted), std::move(note)});
    return *this;
  }
  Section take() { return std::move(s_); }

 private:
  Section s_;
};

const LayerKindParams& main_layer(const Ctx& c) {
  // The MoE kind describes most layers of a MoE model; the dense kind otherwise.
  return c.counts.layer_kinds.back();
}

std::string model_headline(const Ctx& c) {
  const ModelConfig& m = c.m();
  std::string s =
      fmt::format("{} ({}): L={} d={} h={} h_kv={} d_h={} d_ff={} V={} {}", m.name, m.family, m.n_layers, m.d_model,
                  m.n_heads, m.n_kv_heads, m.head_dim, m.d_ff, m.vocab_size, m.tied_embeddings ? "tied" : "untied");
  if (m.moe.enabled()) s += fmt::format(" experts={} top-k={}", m.moe.n_experts, m.moe.top_k);
  if (m.mla.enabled()) s += fmt::format(" MLA d_c={}", m.mla.kv_lora_rank);
  if (m.sliding_window > 0) s += fmt::format(" window={}", m.sliding_window);
  if (c.gpu) {
    s += fmt::format(" on {}{}", c.devices > 1 ? fmt::format("{} x ", c.devices) : "", c.gpu->name);
  }
  return s;
}

// The conventions in force, so a table reader knows which of the field's rules produced it.
std::string conventions_line(const Ctx& c) {
  const nlohmann::json conv = conventions_json(c);
  std::string s = fmt::format(
      "weights {} ({} bits), KV {}, compute {}; FLOPs {}, attention {}, lm_head {}, decode bytes {}",
      dtype_name(c.w.weight_dtype), g(c.w.weight_bits), dtype_name(c.w.kv_dtype), dtype_name(c.w.compute_dtype),
      conv.at("flops_basis").get<std::string>(), conv.at("attention").get<std::string>(),
      conv.at("lm_head_positions").get<std::string>(), conv.at("decode_bytes").get<std::string>());
  if (c.m().moe.enabled()) s += ", MoE experts " + conv.at("moe_decode_bytes").get<std::string>();
  if (c.gpu) s += c.capacity_convention == "override" ? ", capacity --gpu-memory" : ", capacity device bytes";
  return s;
}

format::Report start(const Ctx& c, const char* command) {
  format::Report r;
  r.command = command;
  r.headline = model_headline(c) + "\n" + conventions_line(c);
  r.inputs = inputs_json(c);
  r.notes = c.notes;
  return r;
}

void add_model_notes(const Ctx& c, format::Report& r) {
  for (const std::string& s : c.model.checkpoint_notes) r.notes.push_back(s);
  if (c.counts.mtp_excluded > 0) {
    r.notes.push_back(fmt::format("multi-token-prediction layers hold {} parameters; excluded from the model total",
                                  n(c.counts.mtp_excluded)));
  }
}

Section section_params(const Ctx& c) {
  const ModelConfig& m = c.m();
  const ParamCounts& p = c.counts;
  const LayerKindParams& layer = main_layer(c);
  const double d2 = static_cast<double>(m.d_model) * static_cast<double>(m.d_model);
  Rows s("params", "Parameters");
  for (const LayerKindParams& k : p.layer_kinds) {
    const std::string kind = k.moe ? "moe" : "dense";
    s.add("params_per_" + kind + "_layer", fmt::format("per {} layer (x{})", kind, k.n_layers), k.total, Unit::count,
          "S000-T1.1", "P_layer = attention + MLP + norms", fmt::format("{} per layer", n(k.total)),
          fmt::format("{:.4f} d²", static_cast<double>(k.total) / d2));
  }
  s.add("params_per_layer_over_d2", "per layer / d²", static_cast<double>(layer.total) / d2, Unit::none, "S003-2.1",
        "P_layer / d²", fmt::format("{} / {}²", n(layer.total), m.d_model));
  s.add("blocks_params", "all layers", p.blocks, Unit::count, "S000-T1.1", "sum_l P_layer",
        fmt::format("{} layers", m.n_layers));
  s.add("embedding_params", "embedding", p.embedding, Unit::count, "S000-T1.1", "V d",
        fmt::format("{} x {}", n(m.vocab_size), n(m.embed_proj_dim > 0 ? m.embed_proj_dim : m.d_model)));
  if (p.positions > 0) {
    s.add("position_params", "learned positions", p.positions, Unit::count, "S003-2.1", "n_pos d",
          fmt::format("{} x {}", n(m.learned_positions), n(m.d_model)));
  }
  s.add("lm_head_params", m.tied_embeddings ? "lm_head (tied)" : "lm_head", p.lm_head, Unit::count, "S000-T1.1",
        m.tied_embeddings ? "0 (shares the embedding)" : "V d", m.tied_embeddings ? "" : n(p.lm_head));
  s.add("final_norm_params", "final norm", p.final_norm, Unit::count, "S000-T1.1",
        m.norm == NormKind::layernorm       ? "2d (gain and bias)"
        : m.norm == NormKind::nonparametric ? "0 (no parameters)"
                                            : "d (gain)",
        fmt::format("d = {}", n(m.d_model)));
  s.add("non_embedding_params", "non-embedding", p.non_embedding, Unit::count, "KA20-2.1", "N = sum_l P_layer + norms",
        "");
  s.add("total_params", "total", p.total, Unit::count, "S000-T1.1", "N_total = N + V d (+ V d untied) + positions",
        fmt::format("{} + {} + {} + {}", n(p.non_embedding), n(p.embedding), n(p.lm_head), n(p.positions)));
  if (m.moe.enabled()) {
    s.add("active_params", "active per token", p.active, Unit::count, "SH17",
          "N_active = N_total - L_moe (E - k) P_expert", "");
  }
  if (p.mtp_excluded > 0) {
    s.add("mtp_params_excluded", "MTP layers (excluded)", p.mtp_excluded, Unit::count, "DS24",
          "n_mtp (P_moe_layer + 3 norms + 2d d + 2 V d)", fmt::format("{} module(s)", m.mtp_layers));
  }
  if (c.model.published_params) {
    s.add("published_params", "published count", *c.model.published_params, Unit::count, "", "", "",
          c.model.published_params == p.total ? "matches" : "DIFFERS");
  }
  return s.take();
}

Table table_components(const Ctx& c) {
  Table t{"components",
          "Parameters per matrix",
          {{"layer_kind", "layer kind", Unit::text},
           {"component", "component", Unit::text},
           {"params_per_layer", "per layer", Unit::count},
           {"active_params_per_layer", "active", Unit::count},
           {"layers", "layers", Unit::count},
           {"params", "all layers", Unit::count}},
          {}};
  for (const LayerKindParams& k : c.counts.layer_kinds) {
    for (const ParamComponent& part : k.parts) {
      t.rows.push_back({std::string(k.moe ? "moe" : "dense"), std::string(part.id), part.count, part.active, k.n_layers,
                        part.count * k.n_layers});
    }
  }
  return t;
}

Table table_weights(const Ctx& c) {
  Table t{"weights_by_dtype",
          "Weights by data type",
          {{"dtype", "dtype", Unit::text},
           {"bits_per_weight", "bits", Unit::none},
           {"weight_bytes", "bytes", Unit::count},
           {"weight_gb", "GB", Unit::none},
           {"weight_gib", "GiB", Unit::none}},
          {}};
  const double total = static_cast<double>(c.counts.total);
  for (DType d : {DType::fp32, DType::bf16, DType::fp16, DType::fp8, DType::int8, DType::int4, DType::fp4}) {
    const double b = weight_bytes(total, dtype_bits(d)).base();
    t.rows.push_back({std::string(dtype_name(d)), dtype_bits(d), b, b / 1e9, b / 0x1p30});
  }
  return t;
}

Section section_weights(const Ctx& c) {
  const double total = static_cast<double>(c.counts.total);
  const units::Bytes w = weight_bytes(total, c.w.weight_bits);
  Rows s("weights", "Weights");
  s.add("weight_bytes", fmt::format("weights ({}, {} bits)", dtype_name(c.w.weight_dtype), g(c.w.weight_bits)),
        w.base(), Unit::bytes, "S000-1.3", "M_w = N b_w",
        fmt::format("{} x {} B", n(c.counts.total), g(c.w.weight_bits / 8.0)));
  s.add("training_state_bytes", "training state (mixed Adam)",
        training_state_bytes(total, kMixedAdamBytesPerParam).base(), Unit::bytes, "RA20-3.1", "M = (2 + 2 + 12) N",
        fmt::format("16 x {} B", n(c.counts.total)), "before activations");
  return s.take();
}

Section section_flops(const Ctx& c) {
  const ModelConfig& m = c.m();
  const ParamCounts& p = c.counts;
  Rows s("flops", "FLOPs");
  const auto fwd = [&](FlopBasis b) { return forward_flops_per_token(p, b).base(); };
  s.add("forward_flop_per_token", "forward per token (physical)", fwd(FlopBasis::physical), Unit::flop, "KA20-2.1",
        "C_fwd = 2 (N_active - V d - positions + V d_head)",
        fmt::format("2 x {}", n(flop_params(p, FlopBasis::physical))), "lm_head in, embedding gather out");
  s.add("forward_flop_per_token_non_embedding", "forward per token (2N, non-embedding)", fwd(FlopBasis::non_embedding),
        Unit::flop, "KA20-2.1", "C_fwd = 2 N", fmt::format("2 x {}", n(flop_params(p, FlopBasis::non_embedding))),
        "Kaplan; seed 003");
  s.add("forward_flop_per_token_all_params", "forward per token (2N_total)", fwd(FlopBasis::all_params), Unit::flop,
        "S004", "C_fwd = 2 N_total", fmt::format("2 x {}", n(flop_params(p, FlopBasis::all_params))),
        "whiteboard rule; seed 004");
  const double basis = fwd(c.w.basis);
  const std::string basis_name = conventions_json(c).at("flops_basis").get<std::string>();
  s.add("training_flop_per_token", "training per token (6N, " + basis_name + ")",
        training_flops_per_token(units::Flop{basis}).base(), Unit::flop, "KA20-2.1", "C_train = 3 C_fwd = 6 N",
        fmt::format("3 x {}", g(basis)));
  s.add("recompute_flop_per_token", "training, full recompute (8N, " + basis_name + ")",
        recompute_flops_per_token(units::Flop{basis}).base(), Unit::flop, "KO22", "C = 4 C_fwd = 8 N",
        fmt::format("4 x {}", g(basis)));
  s.add("lm_head_flop_per_token", "lm_head per token", 2.0 * static_cast<double>(p.head_matmul), Unit::flop, "S003-6",
        "2 V e", fmt::format("2 x {} x {}", n(m.vocab_size), n(m.embed_proj_dim > 0 ? m.embed_proj_dim : m.d_model)));
  const double ctx = static_cast<double>(c.w.context);
  s.add("attention_flop_per_token_at_context", fmt::format("attention per decode token at {} tokens", n(c.w.context)),
        attention_flops_decode_token(m, ctx).base(), Unit::flop, "S003-2.4", "sum_l 2 (w_qk + w_v) min(T, W_l)",
        fmt::format("{} layers x {} x {}", m.n_layers, g(attention_flops_per_pair(m)), n(c.w.context)));
  const double sp = static_cast<double>(c.w.prompt);
  const units::Flop pre = prefill_flops(m, p, sp, c.w.basis, c.w.lm_head, c.w.attention);
  s.add("prefill_flop", fmt::format("prefill of {} tokens", n(c.w.prompt)), pre.base(), Unit::flop, "S004",
        "S (C_fwd - 2Vd) + n_head 2Vd + attention", "");
  s.add("prefill_attention_flop", "  of which attention", attention_flops_prefill(m, sp, c.w.attention).base(),
        Unit::flop, "S004", c.w.attention == AttentionMode::causal ? "2 L S² w (causal)" : "4 L S² w (full)",
        fmt::format("S = {}", n(c.w.prompt)));
  s.add("attention_share_fraction", "attention share of layer FLOPs", attention_share(m, p, sp, c.w.attention),
        Unit::fraction, "S003-2.3", "A / (A + 2 S P_layer L)", "");
  if (c.train_tokens > 0) {
    const double n_params = static_cast<double>(flop_params(p, c.w.basis));
    const double tokens = static_cast<double>(c.train_tokens);
    const units::Flop total = training_compute(n_params, tokens);
    s.add("training_compute_flop", fmt::format("training compute for {} tokens", n(c.train_tokens)), total.base(),
          Unit::flop, "KA20-2.1", "C = 6 N D",
          fmt::format("6 x {} x {}", n(flop_params(p, c.w.basis)), n(c.train_tokens)));
    if (c.gpu) {
      // machine.peak already adds the devices up; time_to_train takes one device's achieved rate.
      const units::Seconds t = time_to_train(total, static_cast<double>(c.devices), c.peak_nominal * c.w.mfu);
      s.add("time_to_train_s",
            fmt::format("time on {} x {} at {} of peak", c.devices, c.gpu->name, format::sig4(c.w.mfu * 100.0) + " %"),
            opt(c.has_peak, t.base()), Unit::seconds, "S000-1.4", "T = C / (G X)",
            fmt::format("{} / ({} x {})", g(total.base()), c.devices, g((c.peak_nominal * c.w.mfu).base())));
    }
  }
  if (c.measured_tokens_per_s > 0.0 && c.gpu) {
    const double n_params = static_cast<double>(flop_params(p, c.w.basis));
    const double g_dev = static_cast<double>(c.devices);
    s.add("model_flops_utilisation_fraction", fmt::format("MFU at {} tokens/s", g(c.measured_tokens_per_s)),
          opt(c.has_peak, model_flops_utilisation(n_params, c.measured_tokens_per_s, g_dev, c.peak_nominal)),
          Unit::fraction, "CH22-B", "MFU = 6 N tokens_per_s / (G P_peak)",
          fmt::format("6 x {} x {} / ({} x {})", n(flop_params(p, c.w.basis)), g(c.measured_tokens_per_s), c.devices,
                      g(c.peak_nominal.base())));
    s.add("hardware_flops_utilisation_fraction", "HFU with full recomputation",
          opt(c.has_peak, hardware_flops_utilisation(n_params, c.measured_tokens_per_s, g_dev, c.peak_nominal, true)),
          Unit::fraction, "CH22-B", "HFU = 8 N tokens_per_s / (G P_peak)",
          fmt::format("8 x {} x {} / ({} x {})", n(flop_params(p, c.w.basis)), g(c.measured_tokens_per_s), c.devices,
                      g(c.peak_nominal.base())));
  }
  const double x_causal = attention_crossover_tokens(m, p, AttentionMode::causal);
  const double x_full = attention_crossover_tokens(m, p, AttentionMode::full);
  s.add("attention_crossover_tokens_causal", "attention = projections at (causal)", x_causal, Unit::tokens, "S003-2.3",
        "N* = 4 P_layer / a = P_layer / d",
        fmt::format("4 x {} / {}", n(main_layer(c).matrix_active), g(attention_flops_per_pair(m))));
  s.add("attention_crossover_tokens_full", "attention = projections at (full)", x_full, Unit::tokens, "S003-2.3",
        "N* = 2 P_layer / a = P_layer / (2d)",
        fmt::format("2 x {} / {}", n(main_layer(c).matrix_active), g(attention_flops_per_pair(m))), "seed 003");
  return s.take();
}

Section section_kv(const Ctx& c) {
  const ModelConfig& m = c.m();
  const double b = c.kv_b();
  Rows s("kv", fmt::format("KV cache ({})", dtype_name(c.w.kv_dtype)));
  const i64 elems = kv_elements_per_token_layer(m);
  s.add("kv_elements_per_token_per_layer", "elements per token per layer", elems, Unit::count, "S000-eq1.1",
        m.mla.enabled() ? "d_c + d_rope" : "2 h_kv d_h",
        m.mla.enabled() ? fmt::format("{} + {}", m.mla.kv_lora_rank, m.mla.qk_rope_head_dim)
                        : fmt::format("2 x {} x {}", m.n_kv_heads, m.head_dim));
  const units::Bytes per_token = kv_bytes_per_token(m, b);
  s.add("kv_cache_bytes_per_token", "per token", per_token.base(), Unit::bytes, "S000-eq1.1",
        m.mla.enabled() ? "M_KV = L (d_c + d_rope) b" : "M_KV = 2 L h_kv d_h b",
        m.mla.enabled() ? fmt::format("{} x {} x {} B", m.n_layers, elems, g(b))
                        : fmt::format("2 x {} x {} x {} x {} B", m.n_layers, m.n_kv_heads, m.head_dim, g(b)),
        fmt::format("{} B", g(per_token.base())));
  const double ctx = static_cast<double>(c.w.context);
  const units::Bytes seq = kv_bytes_per_sequence(m, ctx, b);
  s.add("kv_cache_bytes_per_sequence", fmt::format("per sequence at {} tokens", n(c.w.context)), seq.base(),
        Unit::bytes, "S000-eq1.1", "M_KV(T) = sum_l 2 h_kv d_h b min(T, W_l)", fmt::format("T = {}", n(c.w.context)),
        m.sliding_window > 0 ? fmt::format("sliding layers capped at {}", n(m.sliding_window)) : "");
  s.add("kv_cache_bytes_batch", fmt::format("batch of {}", n(c.w.batch)), seq.base() * static_cast<double>(c.w.batch),
        Unit::bytes, "S000-eq1.1", "B M_KV(T)", fmt::format("{} x {}", n(c.w.batch), gb(seq.base())));
  if (!m.mla.enabled() && m.n_kv_heads != m.n_heads) {
    ModelConfig mha = m;
    mha.n_kv_heads = m.n_heads;
    s.add("kv_cache_bytes_per_token_mha", "per token if MHA (h_kv = h)", kv_bytes_per_token(mha, b).base(), Unit::bytes,
          "S003-3.4", "2 L h d_h b", fmt::format("2 x {} x {} x {} x {} B", m.n_layers, m.n_heads, m.head_dim, g(b)),
          fmt::format("{}x the GQA cache", g(static_cast<double>(m.n_heads) / static_cast<double>(m.n_kv_heads))));
  }
  return s.take();
}

Table table_kv_layers(const Ctx& c) {
  const ModelConfig& m = c.m();
  Table t{"kv_layers",
          "KV layout per layer",
          {{"first_layer", "first", Unit::count},
           {"last_layer", "last", Unit::count},
           {"attention", "attention", Unit::text},
           {"window_tokens", "window", Unit::count},
           {"kv_cache_bytes_per_token_per_layer", "bytes/token/layer", Unit::count}},
          {}};
  const double b = c.kv_b();
  const double per_layer = static_cast<double>(kv_elements_per_token_layer(m)) * b;
  i64 start = 0;
  for (i64 i = 1; i <= m.n_layers; ++i) {
    if (i == m.n_layers || m.is_sliding_layer(i) != m.is_sliding_layer(start)) {
      const bool sliding = m.is_sliding_layer(start);
      t.rows.push_back({start, i - 1, std::string(sliding ? "sliding" : "global"),
                        sliding ? Value{m.sliding_window} : Value{}, per_layer});
      start = i;
    }
  }
  return t;
}

Section section_hardware(const Ctx& c) {
  const HardwareConfig& h = *c.gpu;
  Rows s("hardware", fmt::format("Accelerator: {}", h.display_name));
  s.add("memory_capacity_bytes", "capacity", c.capacity.base(), Unit::bytes, "", "", "",
        c.capacity_convention == "override" ? "override" : "");
  s.add("memory_bandwidth_bytes_per_s", "bandwidth", c.bw_nominal.base(), Unit::bytes_per_s);
  s.add("peak_flop_per_s", fmt::format("dense {} peak", dtype_name(c.w.compute_dtype)),
        opt(c.has_peak, c.peak_nominal.base()), Unit::flop_per_s);
  s.add("ridge_flop_per_byte", "ridge point", opt(c.has_peak, ridge_point(c.peak_nominal, c.bw_nominal).base()),
        Unit::flop_per_byte, "WI09", "I* = P_peak / B_peak",
        fmt::format("{} / {}", g(c.peak_nominal.base()), g(c.bw_nominal.base())));
  if (c.w.mfu < 1.0 || c.w.bw_efficiency < 1.0) {
    s.add("effective_peak_flop_per_s", "effective peak (x mfu)", opt(c.has_peak, c.machine.peak.base()),
          Unit::flop_per_s);
    s.add("effective_bandwidth_bytes_per_s", "effective bandwidth", c.machine.bandwidth.base(), Unit::bytes_per_s);
  }
  return s.take();
}

Section section_decode(const Ctx& c) {
  const ModelConfig& m = c.m();
  const DecodeStep d = decode_step(m, c.counts, c.w, c.machine);
  Rows s("decode", fmt::format("Decode (batch {}, context {})", n(c.w.batch), n(c.w.context)));
  s.add(
      "weight_bytes_per_step", "weights read per step", d.weight_bytes.base(), Unit::bytes, "S003-2.5",
      c.w.decode_bytes == DecodeBytes::touched ? "N_read b_w (untouched embedding rows and experts skipped)" : "N b_w",
      fmt::format("{} params x {} B", g(d.params_read), g(c.w.weight_bits / 8.0)),
      c.w.decode_bytes == DecodeBytes::touched ? "weights actually read" : "all weights");
  s.add("kv_bytes_per_step", "KV read per step", d.kv_bytes.base(), Unit::bytes, "S003-2.5", "B M_KV(T)",
        fmt::format("{} x {}", n(c.w.batch), gb(d.kv_bytes.base() / static_cast<double>(c.w.batch))));
  s.add("bytes_per_step", "bytes per step", d.bytes.base(), Unit::bytes, "S003-2.5", "Q = N_read b_w + B M_KV(T)",
        fmt::format("{} + {}", gb(d.weight_bytes.base()), gb(d.kv_bytes.base())));
  s.add("flop_per_step", "FLOPs per step", d.flops.base(), Unit::flop, "S003-2.5", "B (C_fwd + attention(T))", "");
  s.add("intensity_flop_per_byte", "arithmetic intensity", d.intensity.base(), Unit::flop_per_byte, "WI09", "I = F / Q",
        fmt::format("{} / {}", g(d.flops.base()), g(d.bytes.base())));
  s.add("memory_time_s", "memory time", d.t_memory.base(), Unit::seconds, "WI09", "Q / BW",
        fmt::format("{} / {}", gb(d.bytes.base()), g(c.machine.bandwidth.base())));
  s.add("compute_time_s", "compute time", opt(c.has_peak, d.t_compute.base()), Unit::seconds, "WI09", "F / P",
        fmt::format("{} / {}", g(d.flops.base()), g(c.machine.peak.base())));
  s.add("step_time_s", "step floor", d.t_step.base(), Unit::seconds, "WI09", "max(F/P, Q/BW)", "",
        c.has_peak ? (d.bound == Bound::memory ? "memory-bound" : "compute-bound") : "memory side only");
  s.add("decode_tokens_per_s_per_sequence", "per-sequence ceiling", d.tokens_per_s_per_sequence, Unit::per_s,
        "S003-2.5", "1 / t_step", fmt::format("1 / {}", g(d.t_step.base())));
  s.add("decode_tokens_per_s", "aggregate ceiling", d.tokens_per_s, Unit::per_s, "S003-2.5", "B / t_step",
        fmt::format("{} / {}", n(c.w.batch), g(d.t_step.base())));
  s.add("bound", "bound",
        std::string(!c.has_peak                ? "memory (compute n/a)"
                    : d.bound == Bound::memory ? "memory"
                                               : "compute"),
        Unit::text, "WI09", "compute when F/P >= Q/BW, else memory",
        fmt::format("{} vs {}", format::display(d.t_compute.base(), Unit::seconds, format::UnitSystem::si),
                    format::display(d.t_memory.base(), Unit::seconds, format::UnitSystem::si)));
  s.add("compute_utilisation_fraction", "arithmetic utilisation", opt(c.has_peak, d.utilisation), Unit::fraction,
        "S004", "t_compute / t_step", "");
  // The two whiteboard ceilings beside the physical one: weights only, no KV.
  Workload w0 = c.w;
  w0.batch = 1;
  w0.context = 0;
  const DecodeStep touched = decode_step(m, c.counts, w0, c.machine);
  w0.decode_bytes = DecodeBytes::all_weights;
  const DecodeStep all = decode_step(m, c.counts, w0, c.machine);
  s.add("decode_tokens_per_s_weights_touched", "batch 1, no KV: weights read", touched.tokens_per_s, Unit::per_s,
        "S003-2.5", "BW / (N_read b_w)",
        fmt::format("{} / {}", g(c.machine.bandwidth.base()), gb(touched.bytes.base())));
  s.add("decode_tokens_per_s_all_weights", "batch 1, no KV: all weights (rule)", all.tokens_per_s, Unit::per_s,
        "S003-2.5", "BW / (N b_w)", fmt::format("{} / {}", g(c.machine.bandwidth.base()), gb(all.bytes.base())),
        "the whiteboard rule");
  const auto knee = c.has_peak ? decode_compute_bound_batch(m, c.counts, c.w, c.machine) : std::nullopt;
  s.add("compute_bound_batch_sequences", fmt::format("batch where decode turns compute-bound (T={})", n(c.w.context)),
        knee ? Value{*knee} : Value{}, Unit::sequences, "S003-2.5", "smallest B with B F_tok / P >= (W + B M_KV) / BW",
        "", c.has_peak && !knee ? "never: the KV read grows as fast as the FLOPs" : "");
  Workload wk = c.w;
  wk.context = 0;
  const auto knee0 = c.has_peak ? decode_compute_bound_batch(m, c.counts, wk, c.machine) : std::nullopt;
  s.add("compute_bound_batch_weights_only_sequences", "  same, weights only (no KV)", knee0 ? Value{*knee0} : Value{},
        Unit::sequences, "S003-2.5", "B* ~ ridge b_w / 2", "");
  const double ridge = c.has_peak ? ridge_point(c.machine.peak, c.machine.bandwidth).base() : 0.0;
  const double t_proj = projection_compute_bound_tokens(static_cast<double>(m.d_model), units::FlopPerByte{ridge});
  s.add("projection_compute_bound_tokens", "  d x d projection reaches the ridge at",
        opt(c.has_peak && t_proj > 0.0, t_proj), Unit::tokens, "S003-2.4", "T* = ridge d / (d - 2 ridge)",
        fmt::format("{} x {} / ({} - 2 x {})", g(ridge), m.d_model, m.d_model, g(ridge)), "");
  return s.take();
}

Section section_prefill(const Ctx& c) {
  const ModelConfig& m = c.m();
  const PrefillPass p = prefill_pass(m, c.counts, c.w, c.machine);
  Rows s("prefill", fmt::format("Prefill (batch {}, {} tokens)", n(c.w.batch), n(c.w.prompt)));
  s.add("prefill_flop", "FLOPs", p.flops.base(), Unit::flop, "S004", "B (S (C_fwd - 2Vd) + n_head 2Vd + attention)",
        "");
  s.add("prefill_attention_share_fraction", "attention share", p.attention_flops / p.flops, Unit::fraction, "S004",
        "A / F", fmt::format("{} / {}", g(p.attention_flops.base()), g(p.flops.base())));
  s.add("prefill_weight_bytes", "weights read", p.weight_bytes.base(), Unit::bytes, "S004", "N_read b_w", "");
  s.add("prefill_kv_written_bytes", "KV written", p.kv_written.base(), Unit::bytes, "S004", "B M_KV(S)", "");
  s.add("prefill_intensity_flop_per_byte", "arithmetic intensity", p.intensity.base(), Unit::flop_per_byte, "S004",
        "I = F / Q", fmt::format("{} / {}", g(p.flops.base()), g(p.bytes.base())));
  if (c.has_peak) {
    s.add("prefill_ridge_ratio", "  x the ridge", p.intensity / ridge_point(c.machine.peak, c.machine.bandwidth),
          Unit::ratio, "S004", "I / I*", "");
  }
  s.add("prefill_compute_time_s", "compute time", opt(c.has_peak, p.t_compute.base()), Unit::seconds, "WI09", "F / P",
        "");
  s.add("prefill_memory_time_s", "memory time", p.t_memory.base(), Unit::seconds, "WI09", "Q / BW", "");
  s.add("ttft_floor_s", "time floor (TTFT floor)", opt(c.has_peak, p.t_floor.base()), Unit::seconds, "WI09",
        "max(F/P, Q/BW)", "", c.has_peak ? (p.bound == Bound::compute ? "compute-bound" : "memory-bound") : "");
  s.add("score_matrix_bytes", "unfused score matrix per layer",
        score_matrix_bytes(static_cast<double>(m.n_heads), static_cast<double>(c.w.prompt), 2.0).base(), Unit::bytes,
        "S003-3.2", "h S² b", fmt::format("{} x {}² x 2 B", m.n_heads, n(c.w.prompt)), "what FlashAttention avoids");
  if (c.has_peak) {
    Workload w1 = c.w;
    w1.batch = 1;
    w1.context = c.w.prompt;  // the first decode step after this prompt
    const DecodeStep d = decode_step(m, c.counts, w1, c.machine);
    const double per_token_prefill = p.t_floor.base() / (static_cast<double>(c.w.prompt * c.w.batch));
    s.add("decode_vs_prefill_cost_ratio", "decode / prefill time per token", d.t_step.base() / per_token_prefill,
          Unit::ratio, "S004", "t_step(T = S) / (t_prefill / (B S))", "");
  }
  return s.take();
}

Section section_capacity(const Ctx& c) {
  const ModelConfig& m = c.m();
  const double b = c.kv_b();
  const units::Bytes w = weight_bytes(static_cast<double>(c.counts.total), c.w.weight_bits);
  const units::Bytes cap = c.capacity * static_cast<double>(c.devices);
  const units::Bytes free = free_memory(cap, w, c.w.reserve);
  const double ctx = static_cast<double>(c.w.context);
  const units::Bytes seq = kv_bytes_per_sequence(m, ctx, b);
  Rows s("capacity", fmt::format("Capacity ({} x {})", c.devices,
                                 format::display(c.capacity.base(), Unit::bytes, format::UnitSystem::iec)));
  s.add("capacity_bytes", "capacity", cap.base(), Unit::bytes, "", "", "",
        c.capacity_convention == "override" ? "--gpu-memory override" : "device bytes");
  s.add("weight_bytes", "weights", w.base(), Unit::bytes, "S000-1.3", "N b_w", "");
  s.add("reserve_bytes", "reserve", c.w.reserve.base(), Unit::bytes);
  s.add("free_for_kv_bytes", "free for KV", free.base(), Unit::bytes, "S003-3.4", "C - M_w - R",
        fmt::format("{} - {} - {}", gb(cap.base()), gb(w.base()), gb(c.w.reserve.base())));
  const units::Bytes need = inference_bytes(w, c.w.reserve, seq, static_cast<double>(c.w.batch));
  s.add("required_bytes", fmt::format("needed for batch {} at {} tokens", n(c.w.batch), n(c.w.context)), need.base(),
        Unit::bytes, "S003-3.4", "M_w + R + B M_KV(T)", "");
  s.add("fits", "fits", need <= cap, Unit::boolean, "S003-3.4", "M_w + R + B M_KV(T) <= C",
        fmt::format("{} <= {}", gb(need.base()), gb(cap.base())));
  const i64 conc = max_concurrency(cap, w, c.w.reserve, seq);
  const bool bounded = seq.base() > 0.0;
  s.add("max_concurrent_sequences", fmt::format("sequences at {} tokens", n(c.w.context)),
        bounded ? Value{conc} : Value{}, Unit::sequences, "S003-3.4", "floor((C - M_w - R) / M_KV(T))",
        fmt::format("floor({} / {})", gb(free.base()), gb(seq.base())),
        bounded ? "" : "unbounded: no KV at this context");
  if (bounded && !m.mla.enabled() && m.n_kv_heads != m.n_heads) {
    ModelConfig mha = m;
    mha.n_kv_heads = m.n_heads;
    const units::Bytes seq_mha = kv_bytes_per_sequence(mha, ctx, b);
    s.add("max_concurrent_sequences_mha", "  same model with MHA", max_concurrency(cap, w, c.w.reserve, seq_mha),
          Unit::sequences, "S003-3.4", "floor((C - M_w - R) / M_KV,MHA(T))",
          fmt::format("floor({} / {})", gb(free.base()), gb(seq_mha.base())));
  }
  s.add("max_context_tokens", fmt::format("longest context at batch {}", n(c.w.batch)),
        max_context(m, free, c.w.batch, b), Unit::tokens, "S003-3.4", "max T: B M_KV(T) <= C - M_w - R", "");
  return s.take();
}

Section section_elementwise(const Ctx& c) {
  const ModelConfig& m = c.m();
  const units::Bytes ew = elementwise_bytes_per_token_layer(m, 2.0);
  const units::Bytes layer_w = weight_bytes(static_cast<double>(main_layer(c).matrix_active), 16.0);
  Rows s("elementwise", "Elementwise traffic (bf16, unfused)");
  s.add("elementwise_bytes_per_token_per_layer", "per token per layer", ew.base(), Unit::bytes, "S003-3.3",
        "b (norms 2d + RoPE 2(w_q + w_kv) + residuals 6d + act n d_ff)", "");
  s.add("fusion_crossover_tokens", "equals the layer weight read at", fusion_crossover_tokens(layer_w, ew),
        Unit::tokens, "S003-3.3", "W_layer / e", fmt::format("{} / {}", g(layer_w.base()), g(ew.base())));
  s.add("elementwise_share_decode_fraction", "share of traffic at 1 token", elementwise_traffic_share(layer_w, ew, 1.0),
        Unit::fraction, "S003-3.3", "e / (W_layer + e)", "");
  return s.take();
}

}  // namespace

format::Report build_params(const Ctx& c) {
  format::Report r = start(c, "params");
  r.sections.push_back(section_params(c));
  r.sections.push_back(section_weights(c));
  r.tables.push_back(table_components(c));
  r.tables.push_back(table_weights(c));
  add_model_notes(c, r);
  return r;
}

format::Report build_flops(const Ctx& c) {
  format::Report r = start(c, "flops");
  r.sections.push_back(section_flops(c));
  return r;
}

format::Report build_kv(const Ctx& c) {
  format::Report r = start(c, "kv");
  r.sections.push_back(section_kv(c));
  r.tables.push_back(table_kv_layers(c));
  return r;
}

format::Report build_memory(const Ctx& c) {
  format::Report r = start(c, "memory");
  r.sections.push_back(section_capacity(c));
  return r;
}

format::Report build_decode(const Ctx& c) {
  format::Report r = start(c, "decode");
  r.sections.push_back(section_hardware(c));
  r.sections.push_back(section_decode(c));
  return r;
}

format::Report build_prefill(const Ctx& c) {
  format::Report r = start(c, "prefill");
  r.sections.push_back(section_hardware(c));
  r.sections.push_back(section_prefill(c));
  return r;
}

format::Report build_serve(const Ctx& c) {
  format::Report r = start(c, "serve");
  r.sections.push_back(section_capacity(c));
  const ModelConfig& m = c.m();
  const PrefillPass p = prefill_pass(m, c.counts, c.w, c.machine);
  const double decode_time = generation_time(m, c.counts, c.w, c.machine).base();
  Workload wd = c.w;
  wd.context = c.w.prompt + c.w.output;  // the last token reads the longest cache
  const DecodeStep d = decode_step(m, c.counts, wd, c.machine);
  const double tpot = c.w.output > 0 ? decode_time / static_cast<double>(c.w.output) : d.t_step.base();
  Rows s("latency",
         fmt::format("Request floors (batch {}, {} in, {} out)", n(c.w.batch), n(c.w.prompt), n(c.w.output)));
  s.add("ttft_floor_s", "TTFT floor", opt(c.has_peak, p.t_floor.base()), Unit::seconds, "S004", "max(F/P, Q/BW)", "");
  s.add("tpot_floor_s", "TPOT floor (mean over the output)", tpot, Unit::seconds, "S003-2.5",
        "(1/O) sum_i t_step(T = S + i)", "");
  s.add("tpot_last_token_s", "  last token", d.t_step.base(), Unit::seconds, "S003-2.5", "t_step(T = S + O)", "");
  const double e2e = p.t_floor.base() + decode_time;
  s.add("e2e_floor_s", "end-to-end floor", opt(c.has_peak, e2e), Unit::seconds, "S004", "TTFT + sum_i t_step(S + i)",
        "");
  s.add("output_tokens_per_s", "output tokens/s (aggregate, upper bound)", d.tokens_per_s, Unit::per_s, "S003-2.5",
        "B / t_step", "");
  r.sections.push_back(s.take());
  return r;
}

format::Report build_report(const Ctx& c) {
  format::Report r = start(c, "report");
  r.sections.push_back(section_params(c));
  r.sections.push_back(section_weights(c));
  r.sections.push_back(section_flops(c));
  r.sections.push_back(section_kv(c));
  r.sections.push_back(section_elementwise(c));
  if (c.gpu) {
    r.sections.push_back(section_hardware(c));
    r.sections.push_back(section_decode(c));
    r.sections.push_back(section_prefill(c));
    r.sections.push_back(section_capacity(c));
  }
  add_model_notes(c, r);
  r.notes.emplace_back(
      "ceilings and floors: perfect overlap, no launch overhead, full published bandwidth and peak "
      "unless --bw-efficiency/--mfu say otherwise");
  return r;
}

format::Report build_gemm(const GemmArgs& a, const std::optional<HardwareConfig>& gpu) {
  format::Report r;
  r.command = "gemm";
  r.headline = fmt::format("GEMM C({} x {}) = A({} x {}) B({} x {}) in {}", g(a.m), g(a.n), g(a.m), g(a.k), g(a.k),
                           g(a.n), dtype_name(a.dtype));
  const double b = dtype_bytes(a.dtype);
  r.inputs = {{"gemm", {{"m", a.m}, {"n", a.n}, {"k", a.k}, {"dtype", dtype_name(a.dtype)}}}};
  Rows s("gemm", "GEMM");
  const units::Flop f = gemm_flops(a.m, a.n, a.k);
  const units::Bytes q = gemm_bytes(a.m, a.n, a.k, b);
  s.add("flop", "FLOPs", f.base(), Unit::flop, "S002-intensity", "2 m n k",
        fmt::format("2 x {} x {} x {}", g(a.m), g(a.n), g(a.k)));
  s.add("bytes", "bytes (read A, B; write C)", q.base(), Unit::bytes, "S002-intensity", "b (mk + kn + mn)",
        fmt::format("{} x ({} + {} + {})", g(b), g(a.m * a.k), g(a.k * a.n), g(a.m * a.n)));
  s.add("intensity_flop_per_byte", "arithmetic intensity", (f / q).base(), Unit::flop_per_byte, "S002-intensity",
        "2mnk / (b (mk + kn + mn))", fmt::format("{} / {}", g(f.base()), g(q.base())));
  if (gpu) {
    r.inputs["gpu"] = gpu_json(*gpu, gpu->memory_capacity, gpu->peak_for(a.dtype));
    const auto peak = gpu->peak_for(a.dtype);
    const bool has = peak.has_value();
    const units::FlopPerSecond pk = peak.value_or(units::FlopPerSecond{HUGE_VAL});
    s.add("ridge_flop_per_byte", "ridge point", opt(has, ridge_point(pk, gpu->memory_bandwidth).base()),
          Unit::flop_per_byte, "WI09", "P_peak / B_peak", "");
    s.add("attainable_flop_per_s", "attainable", opt(has, attainable(pk, gpu->memory_bandwidth, f / q).base()),
          Unit::flop_per_s, "WI09", "min(P_peak, I B_peak)", "");
    s.add("time_s", "time floor", opt(has, roofline_time(f, q, pk, gpu->memory_bandwidth).base()), Unit::seconds,
          "WI09", "max(F/P, Q/BW)", "");
    s.add("bound", "bound",
          has ? Value{std::string(bound_of(f, q, pk, gpu->memory_bandwidth) == Bound::compute ? "compute" : "memory")}
              : Value{},
          Unit::text, "WI09", "compute when I >= P_peak / B_peak, else memory",
          fmt::format("{} vs {}", g((f / q).base()), has ? g(ridge_point(pk, gpu->memory_bandwidth).base()) : "n/a"));
    if (!has) r.notes.push_back(gpu->name + " has no published dense " + std::string(dtype_name(a.dtype)) + " peak");
  }
  r.sections.push_back(s.take());
  return r;
}

format::Report build_gpus(const io::PresetRegistry& reg) {
  format::Report r;
  r.command = "gpus";
  Table t{"gpus",
          "Accelerators (dense peaks; ridge = peak / bandwidth)",
          {{"name", "name", Unit::text},
           {"vendor", "vendor", Unit::text},
           {"memory_capacity_bytes", "capacity", Unit::bytes_iec},
           {"memory_bandwidth_bytes_per_s", "bandwidth", Unit::bytes_per_s},
           {"peak_bf16_flop_per_s", "bf16", Unit::flop_per_s},
           {"peak_fp8_flop_per_s", "fp8", Unit::flop_per_s},
           {"ridge_bf16_flop_per_byte", "ridge bf16", Unit::none},
           {"ridge_fp8_flop_per_byte", "ridge fp8", Unit::none},
           {"ridge_int8_flop_per_byte", "ridge int8", Unit::none},
           {"ridge_fp4_flop_per_byte", "ridge fp4", Unit::none},
           {"interconnect_bytes_per_s_per_direction", "link/dir", Unit::bytes_per_s},
           {"power_watts", "power", Unit::watts},
           {"origin", "origin", Unit::text}},
          {}};
  // Every dtype's peak and ridge for scripts; the table shows the common ones above.
  for (DType d : kAllDTypes) {
    const std::string n = std::string(dtype_name(d));
    if (d != DType::bf16 && d != DType::fp8) {
      t.columns.push_back({"peak_" + n + "_flop_per_s", n, Unit::flop_per_s, true});
    }
    if (d != DType::bf16 && d != DType::fp8 && d != DType::int8 && d != DType::fp4) {
      t.columns.push_back({"ridge_" + n + "_flop_per_byte", "ridge " + n, Unit::none, true});
    }
  }
  t.columns.push_back({"display_name", "display name", Unit::text, true});
  t.columns.push_back({"interconnect", "interconnect", Unit::text, true});
  t.columns.push_back({"l2_cache_bytes", "L2", Unit::bytes, true});
  t.columns.push_back({"source", "source", Unit::text, true});
  for (const io::PresetEntry* e : reg.entries(io::PresetKind::gpu)) {
    const HardwareConfig h = reg.parse_gpu(*e);
    const auto peak = [&](DType d) { return h.peak_for(d) ? Value{h.peak_for(d)->base()} : Value{}; };
    const auto ridge = [&](DType d) {
      return h.peak_for(d) ? Value{ridge_point(*h.peak_for(d), h.memory_bandwidth).base()} : Value{};
    };
    std::vector<Value> row = {h.name,
                              h.vendor,
                              h.memory_capacity.base(),
                              h.memory_bandwidth.base(),
                              peak(DType::bf16),
                              peak(DType::fp8),
                              ridge(DType::bf16),
                              ridge(DType::fp8),
                              ridge(DType::int8),
                              ridge(DType::fp4),
                              h.interconnect_name.empty() ? Value{} : Value{h.interconnect_bandwidth.base()},
                              h.power_watts > 0.0 ? Value{h.power_watts} : Value{},
                              e->origin};
    for (DType d : kAllDTypes) {
      if (d != DType::bf16 && d != DType::fp8) row.push_back(peak(d));
      if (d != DType::bf16 && d != DType::fp8 && d != DType::int8 && d != DType::fp4) row.push_back(ridge(d));
    }
    row.emplace_back(h.display_name);
    row.push_back(h.interconnect_name.empty() ? Value{} : Value{h.interconnect_name});
    row.push_back(h.l2_cache.base() > 0.0 ? Value{h.l2_cache.base()} : Value{});
    row.emplace_back(h.source);
    t.rows.push_back(std::move(row));
  }
  r.tables.push_back(std::move(t));
  return r;
}

format::Report build_models(const io::PresetRegistry& reg) {
  format::Report r;
  r.command = "models";
  Table t{"models",
          "Models",
          {{"name", "name", Unit::text},
           {"family", "family", Unit::text},
           {"n_layers", "L", Unit::count},
           {"d_model", "d", Unit::count},
           {"n_heads", "h", Unit::count},
           {"n_kv_heads", "h_kv", Unit::count},
           {"total_params", "params", Unit::count},
           {"active_params", "active", Unit::count},
           {"kv_cache_bytes_per_token_bf16", "KV B/token", Unit::count},
           {"max_seq_len", "context", Unit::count},
           {"origin", "origin", Unit::text},
           {"display_name", "display name", Unit::text, true},
           {"published_params", "published", Unit::count, true},
           {"source", "source", Unit::text, true}},
          {}};
  for (const io::PresetEntry* e : reg.entries(io::PresetKind::model)) {
    const io::ModelPreset p = reg.parse_model(*e);
    const ModelConfig& m = p.config;
    const ParamCounts pc = count_params(m);
    t.rows.push_back({m.name, m.family, m.n_layers, m.d_model, m.n_heads, m.n_kv_heads, pc.total, pc.active,
                      static_cast<i64>(kv_bytes_per_token(m, 2.0).base()), m.max_seq_len, e->origin, p.display_name,
                      p.published_params ? Value{*p.published_params} : Value{}, p.source});
  }
  r.tables.push_back(std::move(t));
  return r;
}

}  // namespace roofline::cli
