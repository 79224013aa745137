#include "roofline/lora.hpp"

#include "roofline/checked.hpp"
#include "roofline/layer_stack.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>

namespace roofline {
namespace {

using i64 = std::int64_t;

constexpr LoraTargets kMlpMatrices = LoraTargets::gate | LoraTargets::up | LoraTargets::down;

constexpr std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

constexpr std::optional<LoraTargets> target_named(std::string_view name) {
  for (const LoraTargetName& t : kLoraMatrixTargets) {
    if (t.name == name && t.target != LoraTargets::experts) return t.target;
  }
  for (const LoraTargetName& t : kLoraTargetSets) {
    if (t.name == name) return t.target;
  }
  return std::nullopt;
}

LoraTargets without(LoraTargets set, LoraTargets t) {
  return static_cast<LoraTargets>(static_cast<std::uint8_t>(set) & ~static_cast<std::uint8_t>(t));
}

// Appends one row of `matrices` adapted d_in x d_out matrices (`active` of them per token) and adds
// it to the totals; a row with no matrix is left out.
class AdapterBuilder {
 public:
  explicit AdapterBuilder(LoraParams& out) : out_(out) {}
  void add(std::string_view name, LoraTargets target, i64 d_in, i64 d_out, i64 matrices, i64 active) {
    if (matrices == 0) return;
    const i64 one = checked_mul(out_.rank, checked_add(d_in, d_out));
    const LoraMatrix row{
        name, target, d_in, d_out, matrices, active, checked_mul(matrices, one), checked_mul(active, one)};
    out_.matrices.push_back(row);
    out_.adapted_matrices = checked_add(out_.adapted_matrices, row.matrices);
    out_.active_adapted_matrices = checked_add(out_.active_adapted_matrices, row.active_matrices);
    out_.total = checked_add(out_.total, row.params);
    out_.active = checked_add(out_.active, row.active_params);
  }

 private:
  LoraParams& out_;
};

// The attention projections of the `layers` attention layers; MLA's as params.cpp names them
// (DS24 §2.1); an output-gated q_proj (Qwen3-Next, Qwen3.5) emits [q; gate], 2 h d_h wide.
void add_attention(const ModelConfig& m, LoraTargets t, i64 layers, const LayerKind& shape, AdapterBuilder& b) {
  const i64 d = m.d_model;
  const i64 h = m.n_heads;
  if (m.mla.enabled()) {
    const MlaConfig& a = m.mla;
    const i64 q_width = checked_mul(h, a.qk_nope_head_dim + a.qk_rope_head_dim);
    if (has_target(t, LoraTargets::q)) {
      if (a.q_lora_rank > 0) {
        b.add("q_a_proj", LoraTargets::q, d, a.q_lora_rank, layers, layers);
        b.add("q_b_proj", LoraTargets::q, a.q_lora_rank, q_width, layers, layers);
      } else {
        b.add("q_proj", LoraTargets::q, d, q_width, layers, layers);
      }
    }
    const LoraTargets kv = LoraTargets::k | LoraTargets::v;
    if (has_target(t, kv)) {
      b.add("kv_a_proj", kv, d, a.kv_lora_rank + a.qk_rope_head_dim, layers, layers);
      b.add("kv_b_proj", kv, a.kv_lora_rank, checked_mul(h, a.qk_nope_head_dim + a.v_head_dim), layers, layers);
    }
    if (has_target(t, LoraTargets::o)) b.add("o_proj", LoraTargets::o, checked_mul(h, a.v_head_dim), d, layers, layers);
    return;
  }
  // Gemma 4's global layers: their own d_h and h_kv, and no v_proj to adapt where K = V.
  const i64 q_width = checked_mul(h, shape.head_dim);
  const i64 kv_width = checked_mul(shape.kv_heads, shape.head_dim);
  const i64 q_out = m.hybrid.attn_output_gate ? checked_mul(2, q_width) : q_width;
  if (has_target(t, LoraTargets::q)) b.add("q_proj", LoraTargets::q, d, q_out, layers, layers);
  if (has_target(t, LoraTargets::k)) b.add("k_proj", LoraTargets::k, d, kv_width, layers, layers);
  if (has_target(t, LoraTargets::v) && shape.value_proj) b.add("v_proj", LoraTargets::v, d, kv_width, layers, layers);
  if (has_target(t, LoraTargets::o)) b.add("o_proj", LoraTargets::o, q_width, d, layers, layers);
}

// The names of one FFN's rows: dense, routed experts or shared experts.
struct FfnNames {
  std::string_view gate;
  std::string_view up;
  std::string_view down;
};

// `count` FFNs of width f (`active` of them per token): gate (gated MLPs only), up, down.
void add_ffn(const ModelConfig& m, LoraTargets t, const FfnNames& names, i64 f, i64 count, i64 active,
             AdapterBuilder& b) {
  const i64 d = m.d_model;
  if (m.mlp == MlpKind::gated && has_target(t, LoraTargets::gate)) {
    b.add(names.gate, LoraTargets::gate, d, f, count, active);
  }
  if (has_target(t, LoraTargets::up)) b.add(names.up, LoraTargets::up, d, f, count, active);
  if (has_target(t, LoraTargets::down)) b.add(names.down, LoraTargets::down, f, d, count, active);
}

}  // namespace

std::optional<LoraTargets> parse_lora_targets(std::string_view list) {
  LoraTargets set = LoraTargets::none;
  bool no_experts = false;
  while (true) {
    const std::size_t comma = list.find(',');
    const std::string_view name = trimmed(list.substr(0, comma));
    if (name == kLoraNoExperts) {
      no_experts = true;
    } else if (const std::optional<LoraTargets> t = target_named(name)) {
      set = set | *t;
    } else {
      return std::nullopt;  // unknown or empty
    }
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  if (no_experts) {
    set = without(set, LoraTargets::experts);
  } else if (has_target(set, kMlpMatrices)) {
    set = set | LoraTargets::experts;
  }
  if (set == LoraTargets::none) return std::nullopt;
  return set;
}

LoraParams lora_params(const ModelConfig& m, LoraTargets targets, std::int64_t rank) {
  LoraParams p;
  p.rank = rank;
  AdapterBuilder b(p);
  // The targets by layer kind: attention matrices in the attention layers, the MLP's in the dense
  // FFN layers, the experts' in the MoE layers; a state mixer's projections (Mamba in_proj and
  // out_proj, DeltaNet, short conv) are not among the targets, and a layer without an FFN has none.
  i64 n_attention = 0;
  i64 n_global = 0;  // Gemma 4's global layers, of their own head shape
  LayerKind global;
  i64 n_moe = 0;
  std::vector<std::pair<i64, i64>> dense;  // (width, layers): NAS layers have their own widths
  for (const LayerKind& k : layer_kinds(m)) {
    if (k.cross_attention) continue;  // mllama's cross-attention layers: not adapted (as before)
    if (k.mix.attention && k.own_shape) {
      global = k;
      n_global = checked_add(n_global, k.layers);
    } else if (k.mix.attention) {
      n_attention = checked_add(n_attention, k.layers);
    }
    if (k.mix.ffn == LayerFfn::moe) n_moe = checked_add(n_moe, k.layers);
    if (k.mix.ffn != LayerFfn::dense) continue;
    const i64 f = k.mix.ffn_width(m.d_ff);
    auto it = std::find_if(dense.begin(), dense.end(), [&](const auto& w) { return w.first == f; });
    if (it == dense.end()) {
      dense.emplace_back(f, k.layers);
    } else {
      it->second = checked_add(it->second, k.layers);
    }
  }
  LayerKind model_shape;
  model_shape.head_dim = m.head_dim;
  model_shape.kv_heads = m.n_kv_heads;
  add_attention(m, targets, n_attention, model_shape, b);
  if (n_global > 0) add_attention(m, targets, n_global, global, b);
  for (const auto& [f, n] : dense) add_ffn(m, targets, {"gate_proj", "up_proj", "down_proj"}, f, n, n, b);
  if (n_moe > 0 && has_target(targets, LoraTargets::experts)) {
    const MoeConfig& e = m.moe;
    // A token's adapters are those of the k_e = k (1 - s) FFN experts it reaches (zero-computation
    // experts have none): the expected matrices, rounded to whole ones.
    const i64 active = e.zero_experts > 0 ? std::llround(e.ffn_experts_per_token() * static_cast<double>(n_moe))
                                          : checked_mul(e.top_k, n_moe);
    add_ffn(m, targets, {"experts.gate_proj", "experts.up_proj", "experts.down_proj"}, e.d_ff_expert,
            checked_mul(e.n_experts, n_moe), active, b);
    const i64 shared = checked_mul(e.n_shared_experts, n_moe);
    add_ffn(m, targets, {"shared_experts.gate_proj", "shared_experts.up_proj", "shared_experts.down_proj"},
            e.d_ff_shared, shared, shared, b);
  }
  return p;
}

FrozenBaseBytes frozen_base_bytes(const ParamCounts& c, double matrix_bits, double other_bytes) {
  FrozenBaseBytes f;
  if (c.layer_kinds.empty()) {
    f.quantised_params = c.blocks;  // a model known by its count alone: its blocks are matrices
  }
  for (const LayerKindParams& k : c.layer_kinds) {
    for (const ParamComponent& part : k.parts) {
      if (!part.matrix || part.id == "router" || part.id == "shared_expert_gate") continue;
      f.quantised_params = checked_add(f.quantised_params, checked_mul(k.n_layers, part.count));
    }
  }
  f.other_params = c.total - f.quantised_params;
  f.bytes = units::Bytes{static_cast<double>(f.quantised_params) * matrix_bits / 8.0 +
                         static_cast<double>(f.other_params) * other_bytes};
  return f;
}

units::Bytes lora_adapter_activations(const LoraParams& p, const LoraRunOptions& o) {
  if (o.recompute == Recompute::full) return units::Bytes{0.0};
  return units::Bytes{o.seq_len * o.micro_batch * static_cast<double>(p.rank) * o.bytes_per_element *
                      static_cast<double>(p.active_adapted_matrices)};
}

LoraMemory lora_memory(const FrozenBaseBytes& base, const LoraParams& p, const LoraRunOptions& o,
                       units::Bytes base_activations) {
  const auto n = static_cast<double>(p.total);
  return LoraMemory{.base_weights = base.bytes,
                    .adapter_weights = units::Bytes{o.weight_bytes * n},
                    .adapter_gradients = units::Bytes{o.gradient_bytes * n},
                    .adapter_optimizer = units::Bytes{o.optimizer_bytes * n},
                    .adapter_activations = lora_adapter_activations(p, o),
                    .base_activations = base_activations};
}

}  // namespace roofline
