// kv: KV cache per token, sequence and batch; the MHA counterfactual; the per-layer layout.
#include "format/field.hpp"
#include "format/views.hpp"

namespace roofline::format {
namespace {

struct K {
  const Subject& in;
  const KvResult& r;
  [[nodiscard]] const ModelConfig& m() const { return in.scenario.model; }
};

const std::vector<Field<K>> kKv = {
    {"kv_elements_per_token_per_layer", "elements per token per layer", "S000-eq1.1",
     "2 h_kv d_h, or MLA's d_c + d_rope", [](const K& k) { return cell(k.r.elements_per_token_per_layer); },
     [](const K& k) {
       const ModelConfig& m = k.m();
       std::string s = k.r.mla ? fmt::format("{} + {}", num(m.mla.kv_lora_rank), num(m.mla.qk_rope_head_dim))
                               : fmt::format("2 x {} x {}", num(m.n_kv_heads), num(m.head_dim));
       if (m.indexer.enabled()) s += fmt::format(" + {}", num(m.indexer.head_dim));
       return s;
     },
     [](const K& k) {
       const ModelConfig& m = k.m();
       return m.indexer.enabled() ? fmt::format("incl. the DSA indexer key, {} per token per layer", m.indexer.head_dim)
                                  : std::string();
     },
     nullptr,
     [](const K& k) {
       return std::string(k.r.global_layers > 0 ? "elements per token per sliding layer"
                                                : "elements per token per layer");
     }},
    {"kv_elements_per_token_per_global_layer", "elements per token per global layer", "HFT-gemma4",
     "2 h_kv,g d_h,g of the global layers' own head shape",
     [](const K& k) { return cell(k.r.global_elements_per_token_per_layer); },
     [](const K& k) {
       const HeadShape g = global_head_shape(k.m());
       return fmt::format("2 x {} x {}", num(g.kv_heads), num(g.head_dim));
     },
     [](const K& k) {
       return fmt::format("{} global layers{}", grouped(k.r.global_layers),
                          k.m().global_attention.k_eq_v ? "; K = V's projection, both cached" : "");
     },
     [](const K& k) { return k.r.global_layers > 0; }},
    in_sweep<K>(kSweepKv, "KV per token",
                in_brief<K>(kBriefReport | kBriefKv,
                            {"kv_cache_bytes_per_token", "per token", "S000-eq1.1", "M_KV = L_attn e_kv b",
                             [](const K& k) { return cell(k.r.per_token); },
                             [](const K& k) {
                               if (k.r.global_layers > 0) {
                                 return fmt::format(
                                     "({} x {} + {} x {}) x {}", num(k.r.attention_layers - k.r.global_layers),
                                     num(k.r.elements_per_token_per_layer), num(k.r.global_layers),
                                     num(k.r.global_elements_per_token_per_layer), num(k.r.bytes_per_element));
                               }
                               return fmt::format("{} x {} x {}", num(k.r.attention_layers),
                                                  num(k.r.elements_per_token_per_layer), num(k.r.bytes_per_element));
                             },
                             [](const K& k) { return fmt::format("{} B", grouped_number(k.r.per_token.base())); }})),
    // A hybrid's recurrent state (issue 10): constant per sequence, beside the KV of its attention layers.
    {"state_bytes_per_sequence", "", "DAO24",
     "M_S = sum_l (b C_l + b_s R_l): conv C_l in the KV dtype, recurrent R_l in the state dtype",
     [](const K& k) { return cell(k.r.state_per_sequence); },
     [](const K& k) {
       if (!k.r.state_dtype) return fmt::format("{} x {}", num(k.r.state_elements), num(k.r.state_bytes_per_element));
       return fmt::format("{} x {} + {} x {}", num(k.r.state_elements - k.r.recurrent_elements),
                          num(k.r.state_bytes_per_element), num(k.r.recurrent_elements),
                          num(dtype_bytes(*k.r.state_dtype)));
     },
     [](const K& k) {
       const std::string dtype =
           k.r.state_dtype ? fmt::format("conv state in the KV dtype, SSM/delta state in {} as the config declares",
                                         dtype_name(*k.r.state_dtype))
                           : std::string("conv + SSM/delta state, KV dtype");
       return fmt::format("{} state layers ({}); KV in {} attention layers", grouped(k.r.state_layers), dtype,
                          grouped(k.r.attention_layers));
     },
     [](const K& k) { return k.r.state_layers > 0; },
     [](const K&) { return std::string("recurrent state per sequence"); }},
    in_sweep<K>(
        kSweepReport | kSweepKv, "KV per sequence",
        in_brief<K>(
            kBriefKv,
            {"kv_cache_bytes_per_sequence", "", "S000-eq1.1", "M_KV(T) = e_kv b sum_l min(T, W_l) + M_S",
             [](const K& k) { return cell(k.r.per_sequence); },
             [](const K& k) {
               std::string s = fmt::format("{} x {} x {}", num(k.r.elements_per_token_per_layer),
                                           num(k.r.bytes_per_element), num(k.r.cached_tokens));
               if (k.r.global_layers > 0) {  // Gemma 4: the global layers' own elements per token
                 const auto t = static_cast<double>(k.r.context);
                 const double sliding = k.r.cached_tokens - static_cast<double>(k.r.global_layers) * t;
                 s = fmt::format("({} x {} + {} x {}) x {}", num(k.r.elements_per_token_per_layer), num(sliding),
                                 num(k.r.global_elements_per_token_per_layer),
                                 num(static_cast<double>(k.r.global_layers) * t), num(k.r.bytes_per_element));
               }
               if (k.r.state_layers > 0) s += fmt::format(" + {}", num(k.r.state_per_sequence));
               return s;
             },
             [](const K& k) {
               return k.m().sliding_window > 0 ? fmt::format("sliding layers hold {}", grouped(k.m().sliding_window))
                                               : std::string();
             },
             nullptr, [](const K& k) { return fmt::format("per sequence at {} tokens", grouped(k.r.context)); }})),
    in_sweep<K>(
        kSweepKv, "KV, whole batch",
        in_brief<K>(
            kBriefKv,
            {"kv_cache_bytes_batch", "", "S000-eq1.1", "B M_KV(T)", [](const K& k) { return cell(k.r.batch_bytes); },
             [](const K& k) { return fmt::format("{} x {}", num(k.r.batch), num(k.r.per_sequence)); }, nullptr, nullptr,
             [](const K& k) { return fmt::format("batch of {}", grouped(k.r.batch)); }})),
    {"kv_cache_bytes_per_token_mha", "per token if MHA (h_kv = h)", "S003-3.4", "2 L h d_h b",
     [](const K& k) { return cell(k.r.per_token_mha); },
     [](const K& k) {
       if (k.r.global_layers > 0) {  // Gemma 4: 2 h (L_s d_h + L_g d_h,g) b
         return fmt::format("2 x {} x ({} x {} + {} x {}) x {}", num(k.m().n_heads),
                            num(k.r.attention_layers - k.r.global_layers), num(k.m().head_dim), num(k.r.global_layers),
                            num(global_head_shape(k.m()).head_dim), num(k.r.bytes_per_element));
       }
       // L: the layers holding KV (a hybrid's attention layers only), as the engine counts them.
       return fmt::format("2 x {} x {} x {} x {}", num(k.r.attention_layers), num(k.m().n_heads), num(k.m().head_dim),
                          num(k.r.bytes_per_element));
     },
     [](const K& k) { return fmt::format("{}x the GQA cache", num(k.r.mha_ratio->base())); },
     [](const K& k) { return k.r.per_token_mha.has_value(); }},
};

std::string which_layers(const KvLayerGroup& g) {
  if (g.layers == 1) return std::to_string(g.first);
  if (g.every == 1) return fmt::format("{}-{}", g.first, g.last);
  return fmt::format("{}, {}, ..., {} (every {})", g.first, g.first + g.every, g.last, g.every);
}

}  // namespace

void sweep_cells(SweepCells& s, const Subject& in, const KvResult& r) { s.add("kv", kKv, K{in, r}); }

void sweep_figures(const Subject& in, const KvResult& r, SweepFigures& f) {
  SweepCells s(kSweepKv, f);
  sweep_cells(s, in, r);
}

void add_kv(Report& rep, const Subject& in, const KvResult& r, const ViewOptions& view, bool tables) {
  rep.sections.push_back(
      make_section("kv", fmt::format("KV cache ({})", in.scenario.workload.kv_format), kKv, K{in, r}, view));
  if (!tables) return;
  Table t{"kv_layers",
          "KV layout per layer",
          {{"attention", "attention", Unit::text},
           {"layers", "layers", Unit::count},
           {"which", "which", Unit::text},
           {"window_tokens", "window", Unit::tokens},
           {"kv_cache_bytes_per_token_per_layer", "per token per layer", Unit::bytes},
           {"first_layer", "first", Unit::count, true},
           {"last_layer", "last", Unit::count, true},
           {"every", "every", Unit::count, true}},
          {}};
  for (const KvLayerGroup& g : r.layout) {
    t.rows.push_back({std::string(g.sliding ? "sliding" : "global"), g.layers, which_layers(g),
                      g.sliding ? Value{g.window} : Value{}, g.bytes_per_token_per_layer.base(), g.first, g.last,
                      g.every});
  }
  rep.tables.push_back(std::move(t));
}

// --brief: the cache per token, per sequence and for the batch.
const Brief kKvBrief{"kv", kBriefKv};

}  // namespace roofline::format
