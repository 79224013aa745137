// elementwise: the unfused traffic of norms, RoPE, residuals and activations against a layer's weights.
#include "format/field.hpp"
#include "format/views.hpp"

namespace roofline::format {
namespace {

struct E {
  const Subject& in;
  const ElementwiseResult& r;
};

const std::vector<Field<E>> kElementwise = {
    {"elementwise_bytes_per_token_per_layer", "per token per layer", "S003-3.3",
     "b (norms 2d + RoPE 2(w_q + w_kv) + residuals 6d + act n d_ff)",
     [](const E& e) { return cell(e.r.per_token_per_layer); }},
    {"fusion_crossover_tokens", "equals the layer weight read at", "S003-3.3", "W_layer / e",
     [](const E& e) { return cell(e.r.crossover); },
     [](const E& e) { return fmt::format("{} / {}", num(e.r.layer_weight_bytes), num(e.r.per_token_per_layer)); }},
    {"elementwise_share_decode_fraction", "share of traffic at 1 token", "S003-3.3", "e / (W_layer + e)",
     [](const E& e) { return cell(e.r.share_at_one_token); },
     [](const E& e) {
       return fmt::format("{} / ({} + {})", num(e.r.per_token_per_layer), num(e.r.layer_weight_bytes),
                          num(e.r.per_token_per_layer));
     }},
};

}  // namespace

void add_elementwise(Report& rep, const Subject& in, const ElementwiseResult& r, const ViewOptions& view) {
  rep.sections.push_back(make_section(
      "elementwise",
      fmt::format("Elementwise traffic ({} activations, unfused)", dtype_name(in.scenario.workload.activation_dtype)),
      kElementwise, E{in, r}, view));
}

}  // namespace roofline::format
