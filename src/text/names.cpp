#include "text/names.hpp"

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
  }
  if (x.ffn == LayerFfn::dense) add("mlp");
  if (x.ffn == LayerFfn::moe) add("moe");
  return s;
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
  } else if (m.n_kv_heads == m.n_heads) {
    s = "MHA";
  } else if (m.n_kv_heads == 1) {
    s = "MQA";
  } else {
    s = "GQA";
  }
  if (k.sliding) s += "(sliding " + std::to_string(k.window) + ")";
  if (k.topk > 0) s += "(sparse top-" + std::to_string(k.topk) + ")";
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
  }
  return "";
}

}  // namespace

std::string layer_kind_name(const ModelConfig& m, const LayerKind& k) {
  std::string s = k.mix.attention ? attention_name(m, k) : "";
  if (k.mix.state != StateMixer::none) s += (s.empty() ? "" : "|") + std::string(state_name(k.mix.state));
  if (k.mix.ffn == LayerFfn::dense) s += s.empty() ? "dense" : "+dense";
  if (k.mix.ffn == LayerFfn::moe) s += s.empty() ? "MoE" : "+MoE";
  return s.empty() ? "identity" : s;
}

std::string stack_summary(const ModelConfig& m, const LayerStack& s) {
  std::string out;
  for (const LayerKind& k : s.kinds) {
    if (!out.empty()) out += ", ";
    out += std::to_string(k.layers) + " x " + layer_kind_name(m, k);
  }
  return out;
}

}  // namespace roofline::text
