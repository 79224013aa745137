#include "text/names.hpp"

namespace roofline::text {

// A hybrid layer as "+"-joined parts: attention, mamba1, mamba2 or gated_deltanet, then mlp or moe.
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
  }
  if (x.ffn == LayerFfn::dense) add("mlp");
  if (x.ffn == LayerFfn::moe) add("moe");
  return s;
}

}  // namespace roofline::text
