// params: every count, the weights at the chosen format, per-matrix and per-dtype tables.
#include "format/field.hpp"
#include "format/views.hpp"

#include <fmt/ranges.h>

#include "text/names.hpp"

namespace roofline::format {
namespace {

struct P {
  const Subject& in;
  const ParamsResult& r;
  [[nodiscard]] const ModelConfig& m() const { return in.scenario.model; }
  [[nodiscard]] const ParamCounts& c() const { return *r.counts; }
  [[nodiscard]] const StoredCheckpoint* stored() const {
    return in.scenario.provenance.stored ? &*in.scenario.provenance.stored : nullptr;
  }
};

bool architecture(const P& p) { return p.in.scenario.architecture; }

const char* vision_tower_name(VisionTower t) {
  switch (t) {
    case VisionTower::none:
      return "";
    case VisionTower::clip:
      return "CLIP ViT";
    case VisionTower::siglip:
      return "SigLIP";
    case VisionTower::pixtral:
      return "Pixtral";
    case VisionTower::qwen2_vl:
      return "Qwen2-VL ViT with merger";
    case VisionTower::qwen2_5_vl:
      return "Qwen2.5-VL ViT with merger";
    case VisionTower::mllama:
      return "Mllama ViT (local + global)";
    case VisionTower::llama4:
      return "Llama 4 ViT with adapter";
    case VisionTower::qwen3_vl:
      return "Qwen3-VL ViT with merger";
    case VisionTower::moonvit:
      return "MoonViT";
    case VisionTower::gemma4:
      return "Gemma 4 ViT";
  }
  return "";
}

// The first kind of this FFN (Gemma 4: of the sliding layers; its global kind has its own row).
const LayerKindParams* kind(const P& p, bool moe) {
  for (const LayerKindParams& k : p.c().layer_kinds) {
    if (k.moe == moe && !k.global_shape) return &k;
  }
  return nullptr;
}

const LayerKindParams* global_kind(const P& p) {
  for (const LayerKindParams& k : p.c().layer_kinds) {
    if (k.global_shape) return &k;
  }
  return nullptr;
}

// "dense", "moe", a hybrid's mix; Gemma 4's kinds by their attention: "sliding dense", "global dense".
std::string kind_name(const ModelConfig& m, const LayerKindParams& k) {
  if (m.hybrid.enabled()) return text::layer_mix_name(k.mix);
  const char* ffn = k.moe ? "moe" : "dense";
  if (!m.global_attention.enabled()) return ffn;
  return std::string(k.global_shape ? "global " : "sliding ") + ffn;
}

std::string parts_sum(const LayerKindParams& k) {
  std::string s;
  for (const ParamComponent& part : k.parts) s += (s.empty() ? "" : " + ") + num(part.count);
  return s;
}

std::string d2_note(const P& p, const LayerKindParams& k) {
  const double d = static_cast<double>(p.m().d_model);
  return fmt::format("{:.4f} d²", static_cast<double>(k.total) / (d * d));
}

const std::vector<Field<P>> kParams = {
    {"params_per_dense_layer", "", "S000-T1.1", "P_layer = mixers (attention or a state mixer) + MLP + norms",
     [](const P& p) { return cell(kind(p, false)->total); }, [](const P& p) { return parts_sum(*kind(p, false)); },
     [](const P& p) { return d2_note(p, *kind(p, false)); }, [](const P& p) { return kind(p, false) != nullptr; },
     [](const P& p) {
       const LayerKindParams& k = *kind(p, false);
       if (p.m().hybrid.enabled()) return fmt::format("per {} layer (x{})", text::layer_mix_name(k.mix), k.n_layers);
       return fmt::format("per {} layer (x{})", kind_name(p.m(), k), k.n_layers);
     }},
    {"params_per_moe_layer", "", "S000-T1.1",
     "P_layer = mixers (attention or a state mixer) + router + experts + norms",
     [](const P& p) { return cell(kind(p, true)->total); }, [](const P& p) { return parts_sum(*kind(p, true)); },
     [](const P& p) { return d2_note(p, *kind(p, true)); }, [](const P& p) { return kind(p, true) != nullptr; },
     [](const P& p) {
       const LayerKindParams& k = *kind(p, true);
       if (p.m().hybrid.enabled()) return fmt::format("per {} layer (x{})", text::layer_mix_name(k.mix), k.n_layers);
       if (p.m().global_attention.enabled()) return fmt::format("per {} layer (x{})", kind_name(p.m(), k), k.n_layers);
       return fmt::format("per MoE layer (x{})", k.n_layers);
     }},
    {"params_per_global_layer", "", "HFT-gemma4",
     "P_layer = attention of the global head shape + FFN + norms + layer scalar",
     [](const P& p) { return cell(global_kind(p)->total); }, [](const P& p) { return parts_sum(*global_kind(p)); },
     [](const P& p) { return d2_note(p, *global_kind(p)); }, [](const P& p) { return global_kind(p) != nullptr; },
     [](const P& p) {
       const LayerKindParams& k = *global_kind(p);
       return fmt::format("per {} layer (x{})", kind_name(p.m(), k), k.n_layers);
     }},
    {"params_per_layer_over_d2", "per layer / d²", "S003-2.1", "P_layer / d²",
     [](const P& p) { return number(p.r.main_layer_over_d2); },
     [](const P& p) {
       return fmt::format("{} / ({} x {})", num(p.r.main_layer_params), num(p.m().d_model), num(p.m().d_model));
     },
     nullptr, architecture},
    {"blocks_params", "all layers", "S000-T1.1", "sum_l P_layer", [](const P& p) { return cell(p.c().blocks); },
     [](const P& p) {
       std::string s;
       for (const LayerKindParams& k : p.c().layer_kinds) {
         s += (s.empty() ? "" : " + ") + fmt::format("{} x {}", num(k.n_layers), num(k.total));
       }
       return s;
     },
     nullptr, architecture},
    {"embedding_params", "embedding", "S000-T1.1", "V e", [](const P& p) { return cell(p.c().embedding); },
     [](const P& p) {  // mllama's table holds extra_embedding_rows beyond V
       return fmt::format("{} x {}", num(p.m().vocab_size + p.m().extra_embedding_rows), num(p.r.embedding_width));
     },
     nullptr, architecture},
    {"position_params", "learned positions", "S003-2.1", "n_pos d", [](const P& p) { return cell(p.c().positions); },
     [](const P& p) { return fmt::format("{} x {}", num(p.m().learned_positions), num(p.m().d_model)); }, nullptr,
     [](const P& p) { return p.c().positions > 0; }},
    {"lm_head_params", "lm_head", "S000-T1.1", "V e (+ V with a bias); 0 when tied",
     [](const P& p) { return cell(p.c().lm_head); },
     [](const P& p) {
       if (p.c().lm_head == 0) return std::string("0");
       std::string s = fmt::format("{} x {}", num(p.m().vocab_size), num(p.r.embedding_width));
       if (p.c().lm_head != p.c().lm_head_weight) s += " + " + num(p.m().vocab_size);
       return s;
     },
     [](const P& p) { return std::string(p.m().tied_embeddings ? "tied to the embedding" : ""); }, architecture},
    {"final_norm_params", "final norm", "S000-T1.1", "d per gain or bias, 0 without parameters",
     [](const P& p) { return cell(p.c().final_norm); }, [](const P& p) { return num(p.c().final_norm); }, nullptr,
     architecture},
    in_brief<P>(kBriefParams, {"non_embedding_params", "non-embedding", "KA20-2.1",
                               "N = sum_l P_layer + final norm + embedding norm/projection",
                               [](const P& p) { return cell(p.c().non_embedding); },
                               [](const P& p) {
                                 std::string s =
                                     fmt::format("{} + {} + {} + {}", num(p.c().blocks), num(p.c().final_norm),
                                                 num(p.c().embedding_norm), num(p.c().embed_proj));
                                 if (p.c().cross_attention > 0) s += " + " + num(p.c().cross_attention);
                                 return s;
                               },
                               nullptr, architecture}),
    // ---- multimodal wrappers: mllama's cross-attention layers, the vision tower + projector ----
    {"cross_attention_params", "cross-attention layers", "HFT-mllama", "n_x (P_layer + 2 norm(d_h) + 2 gates)",
     [](const P& p) { return cell(p.c().cross_attention); },
     [](const P& p) {
       return fmt::format("{} x {}", num(p.m().cross_attention_layers), num(p.c().cross_attention_layer));
     },
     nullptr, [](const P& p) { return p.c().cross_attention > 0; }},
    {"vision_params", "vision tower + projector", "HFT", "N_vision = tower + projector (not read per text token)",
     [](const P& p) { return cell(p.c().vision); },
     [](const P& p) { return fmt::format("{} + {}", num(p.c().vision_tower), num(p.c().vision_projector)); },
     [](const P& p) {
       const VisionConfig& v = p.m().vision;
       std::string name = vision_tower_name(v.tower);
       if (v.deepstack_mergers > 0) name += " and " + std::to_string(v.deepstack_mergers) + " deepstack mergers";
       return name;
     },
     [](const P& p) { return p.c().vision > 0; }},
    // ---- end of the multimodal block ----
    in_sweep<P>(kSweepParams, "parameters",
                in_brief<P>(kBriefReport | kBriefParams,
                            {"total_params", "total", "S000-T1.1", "N_total = N + V e + lm_head + positions (+ vision)",
                             [](const P& p) { return cell(p.c().total); },
                             [](const P& p) {
                               std::string s =
                                   fmt::format("{} + {} + {} + {}", num(p.c().non_embedding), num(p.c().embedding),
                                               num(p.c().lm_head), num(p.c().positions));
                               if (p.c().vision > 0) s += " + " + num(p.c().vision);
                               return s;
                             }})),
    in_brief<P>(kBriefReport | kBriefParams,
                {"active_params", "active per token", "SH17", "N_active = N_total - sum_l (P_layer - P_layer,active)",
                 [](const P& p) { return cell(p.c().active); },
                 [](const P& p) {
                   std::string s = num(p.c().total);
                   for (const LayerKindParams& k : p.c().layer_kinds) {
                     if (k.total != k.active)
                       s += fmt::format(" - {} x ({} - {})", num(k.n_layers), num(k.total), num(k.active));
                   }
                   if (p.c().vision > 0) s += " - " + num(p.c().vision);  // the vision tower is not read per token
                   return s;
                 },
                 nullptr, [](const P& p) { return p.m().moe.enabled() || p.c().vision > 0; }}),
    {"active_params_without_embedding", "active without the input table", "OA25-2.1",
     "N_active - V e - n_pos d (untied; a tied table stays, it is the head)",
     [](const P& p) { return cell(active_conventions(p.m(), p.c()).without_embedding); },
     [](const P& p) {
       return fmt::format("{} - {}", num(p.c().active),
                          num(p.c().active - active_conventions(p.m(), p.c()).without_embedding));
     },
     nullptr, [](const P& p) { return p.m().moe.enabled(); }},
    {"active_params_without_embedding_or_head", "active without the table and the head", "OA25-2.1",
     "N_active - V e - n_pos d - V e_head",
     [](const P& p) { return cell(active_conventions(p.m(), p.c()).without_embedding_or_head); },
     [](const P& p) {
       const ActiveConventions a = active_conventions(p.m(), p.c());
       return fmt::format("{} - {}", num(a.without_embedding), num(p.c().head_matmul));
     },
     nullptr, [](const P& p) { return p.m().moe.enabled(); }},
    {"mtp_params_excluded", "MTP layers (excluded)", "DS24", "n_mtp (P_moe_layer + 3 norms + 2 d² + 2 V d)",
     [](const P& p) { return cell(p.c().mtp_excluded); }, nullptr, nullptr,
     [](const P& p) { return p.c().mtp_excluded > 0; }},
    {"published_params", "published count", "", "",
     [](const P& p) { return cell(p.in.scenario.provenance.published_params); }, nullptr,
     [](const P& p) { return std::string(p.r.published_matches ? "matches" : "DIFFERS"); },
     [](const P& p) { return p.r.published_applies; }},
};

const std::vector<Field<P>> kWeights = {
    in_sweep<P>(
        kSweepParams, "weights",
        in_brief<P>(kBriefParams, {"weight_bytes", "", "S000-1.3", "M_w = N b_w / 8",
                                   [](const P& p) { return cell(p.r.weight_bytes); },
                                   [](const P& p) {
                                     const auto n = static_cast<double>(p.c().total);
                                     return fmt::format("{} x {} / 8", num(p.c().total),
                                                        num(shown_bits(p.in.scenario.workload, n, p.r.weight_bytes)));
                                   },
                                   nullptr, nullptr,
                                   [](const P& p) {
                                     const Workload& w = p.in.scenario.workload;
                                     return fmt::format("weights ({}, {} bits)", w.weight_format, num(w.weight_bits));
                                   }})),
    {"checkpoint_bytes", "checkpoint as published", "OCP23-5.3", "M_ckpt = (N - W_e) b_o / 8 + W_e (b_v + b_s / B) / 8",
     [](const P& p) { return cell(units::Bytes{static_cast<double>(p.c().checkpoint_bytes)}); },
     [](const P& p) {
       const ExpertStorage& s = p.m().expert_storage;
       return fmt::format("({} - {}) x {} / 8 + {} x ({} + {} / {}) / 8", num(p.c().total),
                          num(p.c().expert_matrix_params), num(s.other_bits), num(p.c().expert_matrix_params),
                          num(s.value_bits), num(s.scale_bits), num(s.block));
     },
     [](const P& p) {
       const ExpertStorage& s = p.m().expert_storage;
       return fmt::format("routed experts: {}-bit values + one {}-bit scale per {}; the rest {}-bit", num(s.value_bits),
                          num(s.scale_bits), num(s.block), num(s.other_bits));
     },
     [](const P& p) { return p.c().checkpoint_bytes > 0; }},
    {"stored_bytes", "stored in the checkpoint files", "", "",
     [](const P& p) { return cell(units::Bytes{static_cast<double>(p.stored()->bytes)}); }, nullptr,
     [](const P& p) {
       std::vector<std::string> parts;
       for (const StoredDtype& d : p.stored()->by_dtype) {
         parts.push_back(fmt::format("{} {} elements", d.dtype, grouped(d.elements)));
       }
       return fmt::format("{} tensors in {} files: {}", grouped(p.stored()->tensors), grouped(p.stored()->files),
                          fmt::join(parts, ", "));
     },
     [](const P& p) { return p.stored() != nullptr; }},
    {"stored_elements", "elements the files hold", "", "", [](const P& p) { return cell(p.stored()->elements); },
     nullptr,
     [](const P& p) {
       const std::int64_t diff = p.stored()->elements - p.c().total;
       if (diff == 0) return std::string("the count exactly");
       return fmt::format("{} {} than the count (scales, buffers, MTP layers or packed values)",
                          grouped(diff < 0 ? -diff : diff), diff < 0 ? "fewer" : "more");
     },
     [](const P& p) { return p.stored() != nullptr; }},
    {"training_state_bytes", "training state (mixed Adam)", "RA20-3.1", "M = (2 + 2 + 12) N",
     [](const P& p) { return cell(p.r.training_state_bytes); },
     [](const P& p) { return fmt::format("{} x {}", num(p.r.training_state_bytes_per_param), num(p.c().total)); },
     [](const P&) { return std::string("before activations"); }},
};

}  // namespace

void sweep_figures(const Subject& in, const ParamsResult& r, SweepFigures& f) {
  const P p{in, r};
  SweepCells(kSweepParams, f).add("params", kParams, p).add("weights", kWeights, p);
}

void add_params(Report& rep, const Subject& in, const ParamsResult& r, const ViewOptions& view, bool tables) {
  const P p{in, r};
  rep.sections.push_back(make_section("params", "Parameters", kParams, p, view));
  rep.sections.push_back(make_section("weights", "Weights", kWeights, p, view));
  if (in.scenario.provenance.modified && in.scenario.provenance.published_params) {
    rep.notes.emplace_back("a modified model: no published count applies");
  }
  if (!tables) return;
  Table t{"components",
          "Parameters per matrix",
          {{"layer_kind", "layer kind", Unit::text},
           {"component", "component", Unit::text},
           {"params_per_layer", "per layer", Unit::count},
           {"active_params_per_layer", "active", Unit::count},
           {"layers", "layers", Unit::count},
           {"params", "all layers", Unit::count}},
          {}};
  for (const LayerKindParams& k : r.counts->layer_kinds) {
    for (const ParamComponent& part : k.parts) {
      t.rows.push_back({kind_name(in.scenario.model, k), std::string(part.id), part.count, part.active, k.n_layers,
                        static_cast<double>(part.count) * static_cast<double>(k.n_layers)});
    }
  }
  if (in.scenario.architecture) rep.tables.push_back(std::move(t));
  Table wt{"weights_by_dtype",
           "Weights by data type",
           {{"dtype", "dtype", Unit::text},
            {"bits_per_weight", "bits", Unit::none},
            {"weight_bytes", "weights", Unit::bytes}},
           {}};
  for (const WeightsAtDtype& x : r.weights_by_dtype) {
    wt.rows.push_back({std::string(dtype_name(x.dtype)), x.bits, x.bytes.base()});
  }
  rep.tables.push_back(std::move(wt));
}

// --brief: the counts people quote, and what the weights weigh.
const Brief kParamsBrief{"params", kBriefParams};

}  // namespace roofline::format
