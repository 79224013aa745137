// Views of results on an accelerator: hardware, capacity, decode, prefill, serve.
#include "format/field.hpp"
#include "format/views.hpp"

#include "roofline/memory.hpp"
#include "roofline/misc.hpp"

#include <cmath>

namespace roofline::format {
namespace {

// "80 GiB" beside a capacity shown in GB, when the device is binary-sized.
std::string gib_note(units::Bytes b) {
  const double gib = b.base() / 0x1p30;
  if (gib == std::floor(gib)) return fmt::format("= {} GiB", num(gib));
  return {};
}

std::string source_note(CapacitySource s, units::Bytes b) {
  if (s == CapacitySource::override_bytes) return "--gpu-memory";
  return gib_note(b);
}

std::string bound_text(bool has_peak, Bound b) {
  if (!has_peak) return "memory (compute n/a)";
  return b == Bound::memory ? "memory" : "compute";
}

std::string peak_text(const Machine& m) { return std::isfinite(m.peak.base()) ? num(m.peak) : std::string("n/a"); }

// --- hardware ------------------------------------------------------------------------------------

struct H {
  const Subject& in;
  const HardwareResult& r;
};

const std::vector<Field<H>> kHardware = {
    {"memory_capacity_bytes", "capacity per device", "", "", [](const H& h) { return cell(h.r.device_capacity); },
     nullptr, [](const H& h) { return source_note(h.r.source, h.r.device_capacity); }},
    {"memory_bandwidth_bytes_per_s", "bandwidth per device", "", "",
     [](const H& h) { return cell(h.r.device_bandwidth); }},
    {"peak_flop_per_s", "", "", "", [](const H& h) { return cell(h.r.device_peak); }, nullptr, nullptr, nullptr,
     [](const H& h) { return fmt::format("dense {} peak per device", dtype_name(h.r.compute_dtype)); }},
    in_brief<H>(kBriefReport, {"ridge_flop_per_byte", "ridge point", "WI09", "I* = P_peak / B_peak",
                               [](const H& h) { return cell(h.r.ridge); },
                               [](const H& h) {
                                 return h.r.device_peak
                                            ? fmt::format("{} / {}", num(*h.r.device_peak), num(h.r.device_bandwidth))
                                            : std::string();
                               }}),
    {"devices", "devices (one ideal device)", "", "", [](const H& h) { return cell(h.r.devices); }, nullptr, nullptr,
     [](const H& h) { return h.r.devices > 1; }},
    {"effective_peak_flop_per_s", "", "D13", "P = G P_peak mfu",
     [](const H& h) {
       return cell(h.r.device_peak ? std::optional(h.r.machine.peak) : std::optional<units::FlopPerSecond>());
     },
     [](const H& h) {
       return h.r.device_peak ? fmt::format("{} x {} x {}", num(h.r.devices), num(*h.r.device_peak), num(h.r.mfu))
                              : std::string();
     },
     nullptr, [](const H& h) { return h.r.derated || h.r.devices > 1; },
     [](const H& h) { return fmt::format("effective peak, all {} devices", h.r.devices); }},
    {"effective_bandwidth_bytes_per_s", "", "D13", "BW = G B_peak eta_bw",
     [](const H& h) { return cell(h.r.machine.bandwidth); },
     [](const H& h) {
       return fmt::format("{} x {} x {}", num(h.r.devices), num(h.r.device_bandwidth), num(h.r.bw_efficiency));
     },
     nullptr, [](const H& h) { return h.r.derated || h.r.devices > 1; },
     [](const H& h) { return fmt::format("effective bandwidth, all {} devices", h.r.devices); }},
};

// --- capacity ------------------------------------------------------------------------------------

struct C {
  const Subject& in;
  const CapacityResult& r;
};

std::string all_devices(const C& c, const char* what) {
  return c.r.devices > 1 ? fmt::format("{}, all {} devices", what, c.r.devices) : std::string(what);
}

std::string free_text(const C& c) {
  return fmt::format("({} - {} - {})", num(c.r.capacity), num(c.r.weights), num(c.r.reserve));
}

const std::vector<Field<C>> kCapacity = {
    {"capacity_per_device_bytes", "capacity per device", "", "", [](const C& c) { return cell(c.r.device_capacity); },
     nullptr, [](const C& c) { return source_note(c.r.source, c.r.device_capacity); }},
    {"capacity_bytes", "", "D13", "C = G C_device", [](const C& c) { return cell(c.r.capacity); },
     [](const C& c) { return fmt::format("{} x {}", num(c.r.devices), num(c.r.device_capacity)); }, nullptr, nullptr,
     [](const C& c) { return all_devices(c, "capacity"); }},
    in_brief<C>(kBriefReport | kBriefMemory,
                {"weight_bytes", "weights", "S000-1.3", "M_w = N b_w / 8", [](const C& c) { return cell(c.r.weights); },
                 [](const C& c) {
                   const auto n = static_cast<double>(c.in.scenario.counts.total);
                   return fmt::format("{} x {} / 8", num(c.in.scenario.counts.total),
                                      num(shown_bits(c.in.scenario.workload, n, c.r.weights)));
                 }}),
    {"reserve_bytes", "", "D13", "R = G R_device", [](const C& c) { return cell(c.r.reserve); },
     [](const C& c) { return fmt::format("{} x {}", num(c.r.devices), num(c.r.reserve_per_device)); }, nullptr, nullptr,
     [](const C& c) { return all_devices(c, "reserve"); }},
    in_brief<C>(
        kBriefMemory,
        {"free_for_kv_bytes", "free for KV", "S003-3.4", "C - M_w - R", [](const C& c) { return cell(c.r.free); },
         [](const C& c) { return fmt::format("{} - {} - {}", num(c.r.capacity), num(c.r.weights), num(c.r.reserve)); },
         [](const C& c) { return std::string(c.r.free.base() < 0.0 ? "the weights do not fit" : ""); }}),
    in_sweep<C>(
        kSweepMemory | kSweepMemoryLayout, "needed",
        {"required_bytes", "", "S003-3.4", "M_w + R + B M_KV(T)", [](const C& c) { return cell(c.r.required); },
         [](const C& c) {
           return fmt::format("{} + {} + {} x {}", num(c.r.weights), num(c.r.reserve), num(c.r.batch),
                              num(c.r.kv_per_sequence));
         },
         nullptr, nullptr,
         [](const C& c) { return fmt::format("needed: {} x {} tokens", grouped(c.r.batch), grouped(c.r.context)); }},
        "needed, pooled"),
    {"fits", "fits", "S003-3.4", "M_w + R + B M_KV(T) <= C", [](const C& c) { return cell(c.r.fits); },
     [](const C& c) { return fmt::format("{} <= {}", num(c.r.required), num(c.r.capacity)); }},
    in_sweep<C>(
        kSweepMemory | kSweepServe, "most sequences",
        in_brief<C>(kBriefMemory,
                    {"max_concurrent_sequences", "", "S003-3.4", "max(0, floor((C - M_w - R) / M_KV(T)))",
                     [](const C& c) { return cell(c.r.max_sequences); },
                     [](const C& c) {
                       return c.r.max_sequences ? capped(count_of(c.r.max_sequences),
                                                         fmt::format("max(0, floor({} / {}))", free_text(c),
                                                                     num(c.r.kv_per_sequence)))
                                                : std::string();
                     },
                     [](const C& c) {
                       if (!c.r.max_sequences) return std::string("unbounded: no KV at this context");
                       return std::string(saturated(count_of(c.r.max_sequences)) ? kSaturatedNote : "");
                     },
                     nullptr, [](const C& c) { return fmt::format("sequences at {} tokens", grouped(c.r.context)); }})),
    {"max_concurrent_sequences_mha", "  same model with MHA", "S003-3.4", "max(0, floor((C - M_w - R) / M_KV,MHA(T)))",
     [](const C& c) { return cell(c.r.max_sequences_mha); },
     [](const C& c) {
       return capped(count_of(c.r.max_sequences_mha),
                     fmt::format("max(0, floor({} / {}))", free_text(c), num(*c.r.kv_per_sequence_mha)));
     },
     [](const C& c) { return std::string(saturated(count_of(c.r.max_sequences_mha)) ? kSaturatedNote : ""); },
     [](const C& c) { return c.r.max_sequences_mha.has_value(); }},
    in_sweep<C>(
        kSweepMemory, "longest context",
        in_brief<C>(
            kBriefMemory,
            {"max_context_tokens", "", "S003-3.4", "largest T with B M_KV(T) <= C - M_w - R",
             [](const C& c) { return cell(c.r.max_context); }, nullptr,
             [](const C& c) {
               return c.r.max_context_beyond_trained
                          ? fmt::format("past the trained {}", grouped(c.in.scenario.model.max_seq_len))
                          : std::string();
             },
             nullptr, [](const C& c) { return fmt::format("longest context at batch {}", grouped(c.r.batch)); }})),
    in_sweep<C>(kSweepMemory, "devices needed",
                in_brief<C>(kBriefMemory, {"devices_needed", "devices the weights and KV need", "S003-3.6",
                                           "ceil((M_w + B M_KV(T)) / (C_device - R_device))",
                                           [](const C& c) { return cell(c.r.devices_needed); },
                                           [](const C& c) {
                                             return fmt::format("ceil(({} + {} x {}) / ({} - {}))", num(c.r.weights),
                                                                num(c.r.batch), num(c.r.kv_per_sequence),
                                                                num(c.r.device_capacity), num(c.r.reserve_per_device));
                                           }})),
};

// The fit check that decode and prefill carry: fits, and the devices it would take.
const std::vector<Field<C>> kFit = {
    {"fits", "fits (weights + KV)", "S003-3.4", "M_w + R + B M_KV(T) <= C", [](const C& c) { return cell(c.r.fits); },
     [](const C& c) { return fmt::format("{} <= {}", num(c.r.required), num(c.r.capacity)); }},
    {"devices_needed", "devices the weights and KV need", "S003-3.6", "ceil((M_w + B M_KV(T)) / (C_device - R_device))",
     [](const C& c) { return cell(c.r.devices_needed); },
     [](const C& c) {
       return fmt::format("ceil(({} + {} x {}) / ({} - {}))", num(c.r.weights), num(c.r.batch),
                          num(c.r.kv_per_sequence), num(c.r.device_capacity), num(c.r.reserve_per_device));
     }},
};

void note_fit(Report& rep, const CapacityResult& c, const char* what) {
  if (c.fits) return;
  const auto gb = [](units::Bytes b) { return display(Value{b.base()}, Unit::bytes, UnitSystem::si); };
  rep.notes.push_back(
      fmt::format("does not fit: the weights and KV need {} against {} of capacity, so {} are for a "
                  "deployment that cannot run as given{}",
                  gb(c.required), gb(c.capacity), what,
                  c.devices_needed ? fmt::format("; {} devices would hold it", *c.devices_needed) : std::string()));
}

// --- decode --------------------------------------------------------------------------------------

struct D {
  const Subject& in;
  const DecodeResult& r;
  [[nodiscard]] const Workload& w() const { return in.scenario.workload; }
};

const std::vector<Field<D>> kDecode = {
    in_sweep<D>(kSweepDecode, "weights read", {"weight_bytes_per_step", "weights read per step", "S003-2.5", "N_read b_w / 8",
     [](const D& d) { return cell(d.r.step.weight_bytes); },
     [](const D& d) {
       return fmt::format("{} x {} / 8", num(d.r.step.params_read),
                          num(shown_bits(d.w(), d.r.step.params_read, d.r.step.weight_bytes)));
     },
     [](const D& d) {
       return std::string(d.w().decode_bytes == DecodeBytes::touched ? "weights actually read" : "all weights");
     }}),
    {"kv_bytes_per_step", "KV read per step", "S003-2.5", "B M_KV(T)",
     [](const D& d) { return cell(d.r.step.kv_bytes); },
     [](const D& d) {
       return fmt::format("{} x {}", num(d.r.batch), num(d.r.step.kv_bytes.base() / static_cast<double>(d.r.batch)));
     },
     [](const D& d) {
       const ModelConfig& m = d.in.scenario.model;
       // DSA: the indexer scores every cached token, the attention reads the top k of them.
       if (m.indexer.enabled()) {
         const double b = d.w().cache_bytes().kv;
         const double context = static_cast<double>(d.w().context);
         const double dense = static_cast<double>(attention_kv_elements_per_token_layer(m)) * b *
                              attended_keys(layer_windows(m), context) * static_cast<double>(d.r.batch);
         return fmt::format("DSA: indexer keys of all {} tokens + the attention cache of the top {}; dense "
                            "attention would read {} B",
                            grouped(d.w().context), grouped(m.indexer.topk), grouped_number(dense));
       }
       // A hybrid's recurrent state is read at every step beside the attention layers' KV (issue 10).
       const units::Bytes state = state_bytes_per_sequence(m, d.w().cache_bytes());
       return state.base() > 0.0 ? fmt::format("incl. the recurrent state, {} B per sequence",
                                               grouped(static_cast<std::int64_t>(state.base())))
                                 : std::string();
     }},
    {"bytes_per_step", "bytes per step", "S003-2.5", "Q = N_read b_w / 8 + B M_KV(T)",
     [](const D& d) { return cell(d.r.step.bytes); },
     [](const D& d) { return fmt::format("{} + {}", num(d.r.step.weight_bytes), num(d.r.step.kv_bytes)); }},
    {"flop_per_step", "FLOPs per step", "S003-2.5", "F = B (C_fwd + a sum_l min(T, W_l))",
     [](const D& d) { return cell(d.r.step.flops); },
     [](const D& d) {
       return fmt::format("{} x ({} + {})", num(d.r.batch), num(d.r.forward_per_token), num(d.r.attention_per_token));
     }},
    in_brief<D>(kBriefDecode,
                {"intensity_flop_per_byte", "arithmetic intensity", "WI09", "I = F / Q",
                 [](const D& d) { return cell(d.r.step.intensity); },
                 [](const D& d) { return fmt::format("{} / {}", num(d.r.step.flops), num(d.r.step.bytes)); }}),
    {"memory_time_s", "memory time", "WI09", "Q / BW", [](const D& d) { return cell(d.r.step.t_memory); },
     [](const D& d) { return fmt::format("{} / {}", num(d.r.step.bytes), num(d.r.machine.bandwidth)); }},
    {"compute_time_s", "compute time", "WI09", "F / P",
     [](const D& d) { return d.r.has_peak ? cell(d.r.step.t_compute) : cell(std::optional<units::Seconds>()); },
     [](const D& d) {
       return d.r.has_peak ? fmt::format("{} / {}", num(d.r.step.flops), peak_text(d.r.machine)) : std::string();
     }},
    in_sweep<D>(kSweepReport | kSweepDecode | kSweepDecodeLayout, "step floor", in_brief<D>(
        kBriefDecode,
        {"step_time_s", "step floor", "WI09", "max(F/P, Q/BW)", [](const D& d) { return cell(d.r.step.t_step); },
         [](const D& d) { return fmt::format("max({}, {})", num(d.r.step.t_compute), num(d.r.step.t_memory)); },
         [](const D& d) {
           return std::string(!d.r.has_peak                     ? "memory side only"
                              : d.r.step.bound == Bound::memory ? "memory-bound"
                                                                : "compute-bound");
         }}), "ideal device's step"),
    in_sweep<D>(kSweepDecode, "per sequence", in_brief<D>(kBriefDecode, {"decode_tokens_per_s_per_sequence", "per-sequence ceiling", "S003-2.5", "1 / t_step",
                               [](const D& d) { return cell(units::PerSecond{d.r.step.tokens_per_s_per_sequence}); },
                               [](const D& d) { return "1 / " + num(d.r.step.t_step); }})),
    in_sweep<D>(kSweepReport | kSweepDecode, "aggregate", in_brief<D>(kBriefReport | kBriefDecode,
                {"decode_tokens_per_s", "aggregate ceiling", "S003-2.5", "B / t_step",
                 [](const D& d) { return cell(units::PerSecond{d.r.step.tokens_per_s}); },
                 [](const D& d) { return fmt::format("{} / {}", num(d.r.batch), num(d.r.step.t_step)); }})),
    in_sweep<D>(kSweepDecode, "bound", in_brief<D>(kBriefReport | kBriefDecode,
                {"bound", "bound", "WI09", "compute when F/P >= Q/BW, else memory",
                 [](const D& d) { return cell(bound_text(d.r.has_peak, d.r.step.bound)); }})),
    {"compute_utilisation_fraction", "arithmetic utilisation", "S004", "t_compute / t_step",
     [](const D& d) {
       return d.r.has_peak ? cell(units::Fraction{d.r.step.utilisation}) : cell(std::optional<units::Fraction>());
     },
     [](const D& d) {
       return d.r.has_peak ? fmt::format("{} / {}", num(d.r.step.t_compute), num(d.r.step.t_step)) : std::string();
     }},
    {"decode_tokens_per_s_weights_touched", "batch 1, no KV: weights read", "S003-2.5", "BW / (N_read b_w / 8)",
     [](const D& d) { return cell(units::PerSecond{d.r.touched_no_kv.tokens_per_s}); },
     [](const D& d) { return fmt::format("{} / {}", num(d.r.machine.bandwidth), num(d.r.touched_no_kv.bytes)); }},
    {"decode_tokens_per_s_all_weights", "batch 1, no KV: all weights", "S003-2.5", "BW / (N b_w / 8)",
     [](const D& d) { return cell(units::PerSecond{d.r.all_weights_no_kv.tokens_per_s}); },
     [](const D& d) { return fmt::format("{} / {}", num(d.r.machine.bandwidth), num(d.r.all_weights_no_kv.bytes)); },
     [](const D&) { return std::string("the whiteboard rule"); }},
    {"compute_bound_batch_sequences", "", "S003-2.5", "smallest B with B F_tok / P >= (W(B) + B M_KV) / BW",
     [](const D& d) {
       return cell(d.r.compute_bound_batch ? std::optional(units::Sequences{*d.r.compute_bound_batch})
                                           : std::optional<units::Sequences>());
     },
     nullptr,
     [](const D& d) {
       return std::string(d.r.has_peak && !d.r.compute_bound_batch ? "never: KV grows as fast as FLOPs" : "");
     },
     nullptr, [](const D& d) { return fmt::format("compute-bound from batch (T={})", grouped(d.r.context)); }},
    {"compute_bound_batch_weights_only_sequences", "  same, weights only (no KV)", "S003-2.5",
     "smallest B with B F_tok / P >= W(B) / BW",
     [](const D& d) {
       return cell(d.r.compute_bound_batch_no_kv ? std::optional(units::Sequences{*d.r.compute_bound_batch_no_kv})
                                                 : std::optional<units::Sequences>());
     }},
    {"projection_compute_bound_tokens", "  d x d projection reaches the ridge at", "S003-2.4", "T* = I* d / (d - 2 I*)",
     [](const D& d) { return cell(d.r.projection_compute_bound_tokens); },
     [](const D& d) {
       if (!d.r.ridge || !d.r.projection_compute_bound_tokens) return std::string();
       const std::string i = num(*d.r.ridge);
       const std::string dm = num(d.in.scenario.model.d_model);
       return fmt::format("{} x {} / ({} - 2 x {})", i, dm, dm, i);
     }},
};

// --- prefill -------------------------------------------------------------------------------------

struct PF {
  const Subject& in;
  const PrefillResult& r;
};

const std::vector<Field<PF>> kPrefill = {
    in_sweep<PF>(kSweepPrefill | kSweepPrefillCp, "FLOPs",
                 in_brief<PF>(kBriefPrefill, {"prefill_flop", "FLOPs", "S004", "B (S (C_fwd - H) + n_head H + A(S))",
                                              [](const PF& p) { return cell(p.r.pass.flops); },
                                              [](const PF& p) {
                                                return fmt::format(
                                                    "{} x {}", num(p.r.batch),
                                                    num(p.r.pass.flops.base() / static_cast<double>(p.r.batch)));
                                              }})),
    {"prefill_attention_share_fraction", "attention share", "S004", "A / F",
     [](const PF& p) { return cell(p.r.attention_share); },
     [](const PF& p) { return fmt::format("{} / {}", num(p.r.pass.attention_flops), num(p.r.pass.flops)); }},
    {"prefill_weight_bytes", "weights read", "S004", "N_read b_w / 8",
     [](const PF& p) { return cell(p.r.pass.weight_bytes); }},
    {"prefill_kv_written_bytes", "KV written", "S004", "B M_KV(S)",
     [](const PF& p) { return cell(p.r.pass.kv_written); }},
    in_sweep<PF>(kSweepPrefill, "intensity",
                 in_brief<PF>(kBriefPrefill, {"prefill_intensity_flop_per_byte", "arithmetic intensity", "S004",
                                              "I = F / Q", [](const PF& p) { return cell(p.r.pass.intensity); },
                                              [](const PF& p) {
                                                return fmt::format("{} / {}", num(p.r.pass.flops), num(p.r.pass.bytes));
                                              }})),
    in_sweep<PF>(kSweepPrefill, "x ridge",
                 in_brief<PF>(kBriefPrefill, {"prefill_ridge_ratio", "  x the ridge", "S004", "I / I*",
                                              [](const PF& p) { return cell(p.r.ridge_ratio); },
                                              [](const PF& p) {
                                                return fmt::format("{} / ({} / {})", num(p.r.pass.intensity),
                                                                   peak_text(p.r.machine), num(p.r.machine.bandwidth));
                                              },
                                              nullptr, [](const PF& p) { return p.r.has_peak; }})),
    {"prefill_compute_time_s", "compute time", "WI09", "F / P",
     [](const PF& p) { return p.r.has_peak ? cell(p.r.pass.t_compute) : cell(std::optional<units::Seconds>()); },
     [](const PF& p) {
       return p.r.has_peak ? fmt::format("{} / {}", num(p.r.pass.flops), peak_text(p.r.machine)) : std::string();
     }},
    {"prefill_memory_time_s", "memory time", "WI09", "Q / BW", [](const PF& p) { return cell(p.r.pass.t_memory); },
     [](const PF& p) { return fmt::format("{} / {}", num(p.r.pass.bytes), num(p.r.machine.bandwidth)); }},
    in_sweep<PF>(kSweepReport | kSweepPrefill, "TTFT floor",
                 in_brief<PF>(kBriefPrefill, {"ttft_floor_s", "time floor (TTFT floor)", "WI09", "max(F/P, Q/BW)",
                                              [](const PF& p) {
                                                return p.r.has_peak ? cell(p.r.pass.t_floor)
                                                                    : cell(std::optional<units::Seconds>());
                                              },
                                              [](const PF& p) {
                                                return p.r.has_peak
                                                           ? fmt::format("max({}, {})", num(p.r.pass.t_compute),
                                                                         num(p.r.pass.t_memory))
                                                           : std::string();
                                              },
                                              [](const PF& p) {
                                                return std::string(!p.r.has_peak                      ? ""
                                                                   : p.r.pass.bound == Bound::compute ? "compute-bound"
                                                                                                      : "memory-bound");
                                              }})),
    {"score_matrix_bytes", "unfused score matrix per layer", "S003-3.2", "h S² b",
     [](const PF& p) { return cell(p.r.score_matrix_bytes); },
     [](const PF& p) {
       return fmt::format("{} x {} x {} x {}", num(p.in.scenario.model.n_heads), num(p.r.prompt), num(p.r.prompt),
                          num(p.r.activation_bytes));
     },
     [](const PF&) { return std::string("what FlashAttention avoids"); }},
    {"decode_vs_prefill_cost_ratio", "decode / prefill time per token", "S004", "t_step(T = S) / (t_prefill / (B S))",
     [](const PF& p) { return cell(p.r.decode_prefill_ratio); },
     [](const PF& p) {
       return fmt::format("{} / ({} / ({} x {}))", num(p.r.decode_step_at_prompt), num(p.r.pass.t_floor),
                          num(p.r.batch), num(p.r.prompt));
     },
     nullptr, [](const PF& p) { return p.r.has_peak; }},
};

// The prefill on a context-parallel group (--cp): one rank's share, the ring and the floor.
const ContextParallelPrefill& cp_of(const PF& p) { return *p.r.cp; }

const std::vector<Field<PF>> kContextParallel = {
    {"cp_ranks", "ranks c", "", "", [](const PF& p) { return cell(cp_of(p).ranks); }, nullptr,
     [](const PF&) { return std::string("one group; each prompt in 2c chunks, two a rank"); }},
    {"cp_tokens_per_rank", "tokens of each prompt a rank", "LI23-3", "s / c",
     [](const PF& p) { return cell(units::Tokens{cp_of(p).local_tokens}); },
     [](const PF& p) { return fmt::format("{} / {}", num(p.r.prompt), num(cp_of(p).ranks)); }},
    {"cp_flop_per_rank", "FLOPs a rank", "LI23-3", "F / c", [](const PF& p) { return cell(cp_of(p).flops); },
     [](const PF& p) { return fmt::format("{} / {}", num(p.r.pass.flops), num(cp_of(p).ranks)); }},
    {"cp_kv_per_rank_bytes", "KV a rank keeps", "LI23-3", "B M_KV(S) / c",
     [](const PF& p) { return cell(cp_of(p).kv); },
     [](const PF& p) { return fmt::format("{} / {}", num(p.r.pass.kv_written), num(cp_of(p).ranks)); }},
    {"cp_bytes_per_rank", "bytes a rank", "LI23-3", "N_read b_w / 8 + B M_KV(S) / c",
     [](const PF& p) { return cell(cp_of(p).bytes); },
     [](const PF& p) { return fmt::format("{} + {}", num(p.r.pass.weight_bytes), num(cp_of(p).kv)); },
     [](const PF&) { return std::string("every rank reads the whole weights"); }},
    {"cp_required_per_device_bytes", "needed per device", "LI23-3", "M_w + R + B M_KV(S) / c",
     [](const PF& p) { return cell(cp_of(p).required); }, nullptr,
     [](const PF&) { return std::string("the weights whole, the rank's cache"); }},
    {"cp_capacity_per_device_bytes", "capacity per device", "", "",
     [](const PF& p) { return cell(cp_of(p).capacity); }},
    {"cp_fits", "fits on every rank", "S003-3.4", "required <= capacity",
     [](const PF& p) { return cell(cp_of(p).fits); },
     [](const PF& p) { return fmt::format("{} <= {}", num(cp_of(p).required), num(cp_of(p).capacity)); }},
    {"cp_compute_time_s", "compute time a rank", "WI09", "F / (c P)",
     [](const PF& p) { return cell(cp_of(p).t_compute); },
     [](const PF& p) { return fmt::format("{} / {}", num(cp_of(p).flops), num(cp_of(p).rank.peak)); }},
    {"cp_memory_time_s", "memory time a rank", "WI09", "Q_rank / BW",
     [](const PF& p) { return cell(cp_of(p).t_memory); },
     [](const PF& p) { return fmt::format("{} / {}", num(cp_of(p).bytes), num(cp_of(p).rank.bandwidth)); }},
    {"cp_kv_block_bytes", "one K, V block", "LI23-3", "(s/c) B (w_k + w_v) e",
     [](const PF& p) { return cell(cp_of(p).block); }},
    {"cp_blocks", "blocks a rank receives", "LI23-3", "sum over attention layers of min(c - 1, ceil(W c / s))",
     [](const PF& p) { return cell(static_cast<std::int64_t>(std::llround(cp_of(p).blocks))); }, nullptr,
     [](const PF& p) {
       return fmt::format("{} attention layers, c - 1 blocks each outside a window", num(cp_of(p).attention_layers));
     }},
    in_sweep<PF>(
        kSweepPrefillCp, "ring",
        {"cp_ring_time_s", "  the ring's sends", "NC24", "n_blk (M_blk / B_link + latency): each ring step one send",
         [](const PF& p) { return cell(cp_of(p).ring); },
         [](const PF& p) {
           const ContextParallelPrefill& c = cp_of(p);
           const units::Seconds transfer = c.ring - c.ring_latency;
           const units::Bytes moved = c.block * c.blocks;
           const units::BytesPerSecond link{transfer.base() > 0.0 ? moved.base() / transfer.base() : 0.0};
           return fmt::format("{} / {} + {}", num(moved), num(link), num(c.ring_latency));
         },
         [](const PF& p) {
           return group_placement_text(p.in.scenario.accelerator->system, cp_of(p).links, "the context-parallel ring");
         }}),
    {"cp_attention_time_s", "  attention core it overlaps", "LI23-3", "A / (c P)",
     [](const PF& p) { return cell(cp_of(p).attention); },
     [](const PF& p) {
       return fmt::format("{} / {} / {}", num(p.r.pass.attention_flops), num(cp_of(p).ranks), num(cp_of(p).rank.peak));
     }},
    in_sweep<PF>(kSweepPrefillCp, "exposed",
                 {"cp_exposed_s", "  exposed", "LI23-3", "max(0, t_ring - t_attn)",
                  [](const PF& p) { return cell(cp_of(p).exposed); },
                  [](const PF& p) {
                    return fmt::format("max(0, {:.9g} - {:.9g})", cp_of(p).ring.base(), cp_of(p).attention.base());
                  }}),
    in_sweep<PF>(kSweepPrefillCp, "group TTFT",
                 in_brief<PF>(kBriefPrefill,
                              {"cp_ttft_floor_s", "TTFT floor on the group", "LI23-3",
                               "max(F/(c P), Q_rank/BW) + exposed", [](const PF& p) { return cell(cp_of(p).t_floor); },
                               [](const PF& p) {
                                 return fmt::format("max({:.9g}, {:.9g}) + {:.9g}", cp_of(p).t_compute.base(),
                                                    cp_of(p).t_memory.base(), cp_of(p).exposed.base());
                               }})),
    in_sweep<PF>(kSweepPrefillCp, "speed-up",
                 {"cp_speedup_ratio", "  speed-up over one device", "LI23-3", "t_1 / t_c",
                  [](const PF& p) { return cell(units::Ratio{cp_of(p).one_device / cp_of(p).t_floor}); },
                  [](const PF& p) {
                    return fmt::format("{:.9g} / {:.9g}", cp_of(p).one_device.base(), cp_of(p).t_floor.base());
                  },
                  [](const PF& p) {
                    return fmt::format("of {} ranks; one device takes {:.4g} s", num(cp_of(p).ranks),
                                       cp_of(p).one_device.base());
                  }}),
};

// --- serve ---------------------------------------------------------------------------------------

struct S {
  const Subject& in;
  const ServeResult& r;
};

const std::vector<Field<S>> kLatency = {
    in_sweep<S>(kSweepServe | kSweepServeLayout, "TTFT",
                in_brief<S>(kBriefServe, {"ttft_floor_s", "TTFT floor", "S004", "max(F/P, Q/BW)",
                                          [](const S& s) {
                                            return s.r.has_peak ? cell(s.r.prefill.t_floor)
                                                                : cell(std::optional<units::Seconds>());
                                          },
                                          [](const S& s) {
                                            return s.r.has_peak ? fmt::format("max({}, {})", num(s.r.prefill.t_compute),
                                                                              num(s.r.prefill.t_memory))
                                                                : std::string();
                                          }})),
    {"decode_time_s", "decode of the output", "S003-2.5", "sum_{i<O} t_step(T = S + i), closed form per segment",
     [](const S& s) { return cell(s.r.decode_time); }},
    in_sweep<S>(kSweepServe, "TPOT",
                in_brief<S>(kBriefServe,
                            {"tpot_floor_s", "TPOT floor (mean over the output)", "S003-2.5",
                             "(1/O) sum_{i<O} t_step(T = S + i)", [](const S& s) { return cell(s.r.tpot); },
                             [](const S& s) {
                               return s.r.output > 0 ? fmt::format("{} / {}", num(s.r.decode_time), num(s.r.output))
                                                     : num(s.r.tpot_last);
                             }})),
    {"tpot_last_token_s", "  last token", "S003-2.5", "t_step(T = S + O) = max(F/P, Q/BW)",
     [](const S& s) { return cell(s.r.tpot_last); },
     [](const S& s) { return fmt::format("max({}, {})", num(s.r.last_step.t_compute), num(s.r.last_step.t_memory)); }},
    in_sweep<S>(
        kSweepServe, "end to end",
        in_brief<S>(kBriefServe,
                    {"e2e_floor_s", "end-to-end floor", "S004", "TTFT + sum_i t_step(S + i)",
                     [](const S& s) { return s.r.has_peak ? cell(s.r.e2e) : cell(std::optional<units::Seconds>()); },
                     [](const S& s) {
                       return s.r.has_peak ? fmt::format("{} + {}", num(s.r.prefill.t_floor), num(s.r.decode_time))
                                           : std::string();
                     }})),
    in_sweep<S>(kSweepServe, "output rate",
                in_brief<S>(kBriefServe,
                            {"output_tokens_per_s", "output tokens/s (aggregate ceiling)", "S003-2.5",
                             "B / t_step(S + O)", [](const S& s) { return cell(s.r.output_tokens_per_s); },
                             [](const S& s) { return fmt::format("{} / {}", num(s.r.batch), num(s.r.tpot_last)); }})),
    {"full_batch_sequences", "at the most sequences that fit", "S003-3.4", "max(0, floor((C - M_w - R) / M_KV(S + O)))",
     [](const S& s) {
       return cell(s.r.full_batch ? std::optional(units::Sequences{*s.r.full_batch})
                                  : std::optional<units::Sequences>());
     },
     nullptr, nullptr, [](const S& s) { return s.r.full_batch.has_value(); }},
    {"tpot_full_batch_s", "  TPOT floor", "S003-2.5", "(1/O) sum_{i<O} t_step(T = S + i) at that batch",
     [](const S& s) { return cell(s.r.tpot_full); }, nullptr, nullptr,
     [](const S& s) { return s.r.full_batch.has_value(); }},
    {"output_tokens_per_s_full_batch", "  output tokens/s", "S003-2.5", "B / t_step(S + O) at that batch",
     [](const S& s) { return cell(s.r.output_tokens_per_s_full); }, nullptr, nullptr,
     [](const S& s) { return s.r.full_batch.has_value(); }},
};

bool has_steady(const S& s) { return s.r.steady.has_value(); }
const SteadyState& steady(const S& s) { return *s.r.steady; }

const std::vector<Field<S>> kSteady = {
    {"kv_block_tokens", "KV block", "", "", [](const S& s) { return cell(units::TokenCount{s.r.kv_block}); }},
    {"kv_per_sequence_paged_bytes", "KV per sequence, paged", "KW23-4.2", "M_KV(k ceil((S + O - P) / k))",
     [](const S& s) { return cell(s.r.kv_per_sequence_paged); }, nullptr,
     [](const S& s) { return fmt::format("{} tokens in whole blocks", grouped_number(s.r.paged_tokens)); }},
    {"shared_prefix_kv_bytes", "shared prefix, stored once", "KW23-4.4", "M_KV(k ceil(P / k))",
     [](const S& s) { return cell(s.r.shared_prefix_kv); }, nullptr, nullptr,
     [](const S& s) { return s.in.scenario.serving.shared_prefix > 0; }},
    {"max_concurrency_sequences", "most sequences the KV budget holds", "S003-3.4",
     "max(0, floor((C - M_w - R - M_prefix) / M_KV,paged))",
     [](const S& s) {
       return cell(s.r.max_concurrency ? std::optional(units::Sequences{*s.r.max_concurrency}) : std::nullopt);
     },
     [](const S& s) {
       return capped(
           s.r.max_concurrency,
           fmt::format("max(0, floor(({} - {} - {} - {}) / {}))", num(s.r.capacity.capacity), num(s.r.capacity.weights),
                       num(s.r.capacity.reserve), num(s.r.shared_prefix_kv), num(s.r.kv_per_sequence_paged)));
     },
     [](const S& s) { return std::string(saturated(s.r.max_concurrency) ? kSaturatedNote : ""); }},
    {"max_concurrency_tpot_sequences", "most sequences meeting the TPOT target", "KW23",
     "largest N with t_step(N) <= TPOT target",
     [](const S& s) {
       return cell(s.r.max_concurrency_tpot ? std::optional(units::Sequences{*s.r.max_concurrency_tpot})
                                            : std::nullopt);
     },
     nullptr, [](const S& s) { return fmt::format("target {} s", num(*s.in.scenario.serving.tpot_target_s)); },
     [](const S& s) { return s.in.scenario.serving.tpot_target_s.has_value(); }},
    {"ttft_target_met", "TTFT floor meets the target", "S004", "TTFT floor <= target",
     [](const S& s) { return cell(s.r.ttft_met); },
     [](const S& s) {
       return fmt::format("{} <= {}", num(s.r.prefill.t_floor), num(*s.in.scenario.serving.ttft_target_s));
     },
     nullptr, [](const S& s) { return s.in.scenario.serving.ttft_target_s.has_value(); }},
    {"concurrency_limit", "concurrency limited by", "", "",
     [](const S& s) { return cell(serve_limit_name(s.r.limit)); }},
    in_brief<S>(kBriefServe,
                {"concurrency_sequences", "sequences in flight N", "", "",
                 [](const S& s) {
                   return cell(s.r.steady ? std::optional(units::Sequences{saturated_count(steady(s).concurrency)})
                                          : std::nullopt);
                 },
                 nullptr,
                 [](const S& s) {
                   return std::string(s.in.scenario.serving.concurrency ? "--concurrency" : "the most allowed");
                 }}),
    {"mean_context_tokens", "mean cache read", "S003-2.5", "S + O/2",
     [](const S& s) { return cell(units::Tokens{steady(s).mean_context}); },
     [](const S& s) { return fmt::format("{} + {} / 2", s.r.prompt, s.r.output); }, nullptr, has_steady},
    {"prefill_tokens_per_step", "prompt tokens per step (chunked)", "KW23", "N (S - P) / O",
     [](const S& s) { return cell(units::Tokens{steady(s).prefill_tokens}); },
     [](const S& s) {
       return fmt::format("{} x ({} - {}) / {}", num(steady(s).concurrency), s.r.prompt,
                          std::min(s.in.scenario.serving.shared_prefix, s.r.prompt),
                          std::max<std::int64_t>(1, s.r.output));
     },
     nullptr, has_steady},
    {"step_flop", "FLOPs per step", "S003-2.5", "N (C_fwd + A(S + O/2)) + (N / O) (F_pre(S) - F_pre(P))",
     [](const S& s) { return cell(steady(s).flops); },
     [](const S& s) { return fmt::format("{} + {}", num(steady(s).decode_flops), num(steady(s).prefill_flops)); },
     nullptr, has_steady},
    {"step_bytes", "bytes per step", "S003-2.5", "N_read b_w + N M_KV(S + O/2) + the prefill's KV writes",
     [](const S& s) { return cell(steady(s).bytes); },
     [](const S& s) {
       return fmt::format("{} + {} + {}", num(steady(s).weight_bytes), num(steady(s).kv_read),
                          num(steady(s).kv_written));
     },
     nullptr, has_steady},
    in_sweep<S>(kSweepServe | kSweepServeLayout, "steady TPOT",
                in_brief<S>(kBriefServe,
                            {"steady_tpot_s", "TPOT every user sees", "S003-2.5", "t_step = max(Q/BW, F/P)",
                             [](const S& s) { return cell(steady(s).t_step); },
                             [](const S& s) {
                               return fmt::format("max({}, {})", num(steady(s).t_memory), num(steady(s).t_compute));
                             },
                             [](const S& s) {
                               return std::string(steady(s).bound == Bound::memory ? "memory-bound" : "compute-bound");
                             },
                             has_steady}),
                "steady TPOT, ideal device"),
    {"tokens_per_s_per_user", "tokens/s per user", "S003-2.5", "1 / t_step",
     [](const S& s) { return cell(units::PerSecond{steady(s).tokens_per_s_per_user}); },
     [](const S& s) { return fmt::format("1 / {}", num(steady(s).t_step)); }, nullptr, has_steady},
    in_brief<S>(kBriefServe,
                {"steady_tokens_per_s", "output tokens/s, all users", "S003-2.5", "N / t_step",
                 [](const S& s) { return cell(units::PerSecond{steady(s).tokens_per_s}); },
                 [](const S& s) { return fmt::format("{} / {}", num(steady(s).concurrency), num(steady(s).t_step)); },
                 nullptr, has_steady}),
    {"requests_per_s", "requests/s", "S003-2.5", "N / (O t_step)",
     [](const S& s) { return number(steady(s).requests_per_s); },
     [](const S& s) {
       return fmt::format("{} / ({} x {})", num(steady(s).concurrency), std::max<std::int64_t>(1, s.r.output),
                          num(steady(s).t_step));
     },
     nullptr, has_steady},
    {"prefill_replicas_per_decode", "prefill replicas per decode replica", "S004",
     "disaggregated: requests/s x one prompt's TTFT floor",
     [](const S& s) { return number(s.r.prefill_replicas_per_decode.value_or(0.0)); },
     [](const S& s) { return fmt::format("{} x {}", num(steady(s).requests_per_s), num(s.r.prefill.t_floor)); },
     nullptr, [](const S& s) { return s.r.prefill_replicas_per_decode.has_value(); }},
};
}  // namespace

void sweep_figures(const Subject& in, const MemoryAnswer& a, SweepFigures& f) {
  SweepCells s(a.layout ? kSweepMemoryLayout : kSweepMemory, f);
  s.add("capacity", kCapacity, C{in, a.capacity});
  if (a.layout) sweep_cells(s, in, *a.layout);
  sweep_cells(s, a.fit);
  f.fit = a.fit;
}

void sweep_figures(const Subject& in, const DecodeAnswer& a, SweepFigures& f) {
  const DecodeResult& r = a.decode;
  SweepCells s(a.layout ? kSweepDecodeLayout : kSweepDecode, f);
  s.add("decode", kDecode, D{in, r});
  if (a.layout) sweep_cells(s, in, *a.layout);
  sweep_cells(s, a.fit);
  f.fit = a.fit;
  // The knee is the ideal device's: a layout's step has its own communication, so none is noted.
  if (a.layout) return;
  f.compute_bound = r.has_peak && r.step.bound == Bound::compute;
  SweepFigures::Knee k;
  k.context = r.context;
  k.has_peak = r.has_peak;
  k.compute_bound_batch = r.compute_bound_batch;
  if (r.capacity.max_sequences) k.kv_batch_cap = r.capacity.max_sequences->base();
  f.knee = k;
}

void sweep_figures(const Subject& in, const PrefillAnswer& a, SweepFigures& f) {
  SweepCells s(a.prefill.cp ? kSweepPrefillCp : kSweepPrefill, f);
  s.add("prefill", kPrefill, PF{in, a.prefill});
  if (a.prefill.cp) s.add("context_parallel", kContextParallel, PF{in, a.prefill});
  sweep_cells(s, a.fit);
  f.fit = a.fit;
}

void sweep_figures(const Subject& in, const ServeAnswer& a, SweepFigures& f) {
  const S x{in, a.serve};
  if (a.load) {
    // A rate sweep: the simulated server's columns.
    SweepCells s(kSweepServeLoad, f);
    sweep_cells(s, in, *a.load);
    sweep_cells(s, a.fit);
    f.fit = a.fit;
    return;
  }
  SweepCells s(a.layout ? kSweepServeLayout : kSweepServe, f);
  s.add("latency", kLatency, x).add("capacity", kCapacity, C{in, a.serve.capacity});
  if (a.layout) {
    sweep_cells(s, in, *a.layout);
    sweep_cells(s, in, a.layout_steady);
  }
  s.add("steady_state", kSteady, x);
  sweep_cells(s, a.fit);
  f.fit = a.fit;
}

void sweep_figures(const Subject& in, const ReportAnswer& a, SweepFigures& f) {
  SweepCells s(kSweepReport, f);
  sweep_cells(s, in, a.kv);
  if (a.decode) {
    s.add("decode", kDecode, D{in, *a.decode});
  } else {
    s.none("decode", kDecode);
  }
  if (a.prefill) {
    s.add("prefill", kPrefill, PF{in, *a.prefill});
  } else {
    s.none("prefill", kPrefill);
  }
  sweep_cells(s, a.fit);
  f.fit = a.fit;
}

std::string serve_limit_name(ServeLimit l) {
  switch (l) {
    case ServeLimit::kv_budget:
      return "the KV budget";
    case ServeLimit::tpot_target:
      return "the TPOT target";
    case ServeLimit::ttft_target:
      return "the TTFT target";
    case ServeLimit::none:
      return "nothing fits";
  }
  return "?";
}

void add_hardware(Report& rep, const Subject& in, const HardwareResult& r, const ViewOptions& view) {
  rep.sections.push_back(make_section("hardware", "Accelerator: " + r.display_name, kHardware, H{in, r}, view));
}

void add_capacity(Report& rep, const Subject& in, const CapacityResult& r, const ViewOptions& view) {
  rep.sections.push_back(make_section("capacity", "Capacity", kCapacity, C{in, r}, view));
}

void add_decode(Report& rep, const Subject& in, const DecodeResult& r, const ViewOptions& view) {
  // A title only a person reads is not built for values alone (batch, streamed lines).
  Section s = make_section("decode",
                           view.values_only
                               ? std::string()
                               : fmt::format("Decode (batch {}, context {})", grouped(r.batch), grouped(r.context)),
                           kDecode, D{in, r}, view, kFit.size());
  append_fields(s, kFit, C{in, r.capacity}, view);
  rep.sections.push_back(std::move(s));
  note_fit(rep, r.capacity, "these decode rates");
}

void add_prefill(Report& rep, const Subject& in, const PrefillResult& r, const ViewOptions& view) {
  Section s =
      make_section("prefill",
                   view.values_only ? std::string()
                                    : fmt::format("Prefill (batch {}, {} tokens)", grouped(r.batch), grouped(r.prompt)),
                   kPrefill, PF{in, r}, view, kFit.size());
  append_fields(s, kFit, C{in, r.capacity}, view);
  rep.sections.push_back(std::move(s));
  note_fit(rep, r.capacity, "these prefill times");
  if (r.cp) {
    rep.sections.push_back(make_section(
        "context_parallel",
        view.values_only ? std::string()
                         : fmt::format("On a context-parallel group of {} (ring attention)", grouped(r.cp->ranks)),
        kContextParallel, PF{in, r}, view));
    if (!r.cp->fits) {
      rep.warnings.push_back(fmt::format("--cp {}: a rank needs {} of a device's {}", r.cp->ranks, num(r.cp->required),
                                         num(r.cp->capacity)));
    }
  } else if (in.scenario.deployment.context > 1) {
    rep.notes.emplace_back(
        "--cp: the context-parallel group's floor needs the device's peak (the ring overlaps the "
        "attention's compute); none is known");
  }
}

void add_serve(Report& rep, const Subject& in, const ServeResult& r, const ViewOptions& view) {
  rep.sections.push_back(
      make_section("capacity", fmt::format("Capacity at {} tokens (prompt + output)", grouped(r.capacity.context)),
                   kCapacity, C{in, r.capacity}, view));
  rep.sections.push_back(make_section(
      "latency",
      fmt::format("Request floors (batch {}, {} in, {} out)", grouped(r.batch), grouped(r.prompt), grouped(r.output)),
      kLatency, S{in, r}, view));
  note_fit(rep, r.capacity, "these latency floors");
  // Under a layout the server's own steady state is the layout's (steady_state_layout); this one
  // is the ideal device's, for comparison.
  rep.sections.push_back(make_section("steady_state",
                                      in.scenario.deployment.explicit_layout
                                          ? "A server at steady state on the ideal device (for comparison)"
                                          : "A server at steady state (continuous batching)",
                                      kSteady, S{in, r}, view));
  const auto& asked = in.scenario.serving.concurrency;
  if (asked && r.max_concurrency && *asked > *r.max_concurrency) {
    rep.warnings.push_back(fmt::format(
        "--concurrency {}: the KV budget holds {} sequences; the steady state is for a server that cannot run as given",
        grouped(*asked), grouped(*r.max_concurrency)));
  }
}

// --- --brief ------------------------------------------------------------------------------------

// report: the size of the model and its cache, then the device's answer: ridge, decode ceiling and
// bound, the weights and whether they fit with the cache.
const Brief kReportBrief{"report", kBriefReport};
const Brief kMemoryBrief{"memory", kBriefMemory};
const Brief kDecodeBrief{"decode", kBriefDecode};
const Brief kPrefillBrief{"prefill", kBriefPrefill};
const Brief kServeBrief{"serve", kBriefServe};

}  // namespace roofline::format
