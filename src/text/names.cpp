#include "text/names.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace roofline::text {

// A hybrid layer as "+"-joined parts: attention, mamba1, mamba2, gated_deltanet or short_conv, then
// mlp or moe.
std::string layer_mix_name(const LayerMix& x) {
  std::string s = x.attention ? "attention" : "";
  const auto add = [&](const char* part) { s += (s.empty() ? "" : "+") + std::string(part); };
  switch (x.state) {
    case StateMixer::none:
      break;
    case StateMixer::mamba1:
      add("mamba1");
      break;
    case StateMixer::mamba2:
      add("mamba2");
      break;
    case StateMixer::gated_deltanet:
      add("gated_deltanet");
      break;
    case StateMixer::short_conv:
      add("short_conv");
      break;
    case StateMixer::lightning:
      add("lightning");
      break;
  }
  if (x.ffn == LayerFfn::dense) add(x.d_ff > 0 ? ("mlp:" + std::to_string(x.d_ff)).c_str() : "mlp");
  if (x.ffn == LayerFfn::moe) add("moe");
  return s.empty() ? "identity" : s;  // a layer with nothing left (NAS: attention and FFN pruned)
}

}  // namespace roofline::text

namespace roofline::text {
namespace {

// The attention of a layer kind: MLA, or by its KV heads MHA (h_kv = h), MQA (h_kv = 1), GQA; its
// window or its sparse (DSA) top-k.
std::string attention_name(const ModelConfig& m, const LayerKind& k) {
  if (k.cross_attention) return "cross-attention";
  std::string s;
  if (m.mla.enabled()) {
    s = "MLA";
  } else if (k.kv_heads == m.n_heads) {
    s = "MHA";
  } else if (k.kv_heads == 1) {
    s = "MQA";
  } else {
    s = "GQA";
  }
  if (k.sliding) s += "(sliding " + std::to_string(k.window) + ")";
  if (k.topk > 0) s += "(sparse top-" + std::to_string(k.topk) + ")";
  if (k.own_shape) s += "(d_h " + std::to_string(k.head_dim) + (k.value_proj ? ")" : ", K=V)");
  return s;
}

const char* state_name(StateMixer s) {
  switch (s) {
    case StateMixer::none:
      return "";
    case StateMixer::mamba1:
      return "Mamba-1";
    case StateMixer::mamba2:
      return "Mamba-2";
    case StateMixer::gated_deltanet:
      return "GatedDeltaNet";
    case StateMixer::short_conv:
      return "ShortConv";
    case StateMixer::lightning:
      return "Lightning";
  }
  return "";
}

}  // namespace

std::string layer_kind_name(const ModelConfig& m, const LayerKind& k) {
  std::string s = k.mix.attention ? attention_name(m, k) : "";
  if (k.mix.state != StateMixer::none) s += (s.empty() ? "" : "|") + std::string(state_name(k.mix.state));
  if (k.mix.ffn == LayerFfn::dense) {
    s += s.empty() ? "dense" : "+dense";
    if (k.mix.d_ff > 0) s += "(" + std::to_string(k.mix.d_ff) + ")";
  }
  if (k.mix.ffn == LayerFfn::moe) s += s.empty() ? "MoE" : "+MoE";
  return s.empty() ? "identity" : s;
}

std::string stack_summary(const ModelConfig& m, const LayerStack& s) {
  // Kinds that differ only in their FFN width (NAS layers) are summed under one name, their widths
  // given once as a range: "49 x GQA+dense, 31 x dense; FFN widths 2816 to 28672".
  std::vector<std::pair<std::string, std::int64_t>> named;
  std::int64_t narrow = 0;
  std::int64_t wide = 0;
  for (const LayerKind& k : s.kinds) {
    LayerKind plain = k;
    plain.mix.d_ff = 0;
    const std::string name = layer_kind_name(m, plain);
    auto it = std::find_if(named.begin(), named.end(), [&](const auto& x) { return x.first == name; });
    if (it == named.end()) {
      named.emplace_back(name, k.layers);
    } else {
      it->second += k.layers;
    }
    if (k.mix.ffn == LayerFfn::dense && k.mix.d_ff > 0) {
      narrow = narrow == 0 ? k.mix.d_ff : std::min(narrow, k.mix.d_ff);
      wide = std::max(wide, k.mix.d_ff);
    }
  }
  std::string out;
  for (const auto& [name, layers] : named) {
    if (!out.empty()) out += ", ";
    out += std::to_string(layers) + " x " + name;
  }
  if (wide > 0) out += "; FFN widths " + std::to_string(narrow) + " to " + std::to_string(wide);
  return out;
}

}  // namespace roofline::text
