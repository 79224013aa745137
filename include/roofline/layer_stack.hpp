// The model as a stack of typed layers: the distinct kinds of layer it has (a kind is its mixers,
// its feed-forward part and its attention span) and where each one repeats, run-length in depth
// order, so a 126-layer model and a 10,000-layer what-if cost the same to walk. Built from a
// ModelConfig by layer_stack(); the per-layer formulas (parameters, KV and state, layer operators)
// iterate its kinds and multiply by their counts instead of testing the config's per-layer flags.
#pragma once

#include "roofline/model_config.hpp"

#include <cstdint>
#include <vector>

namespace roofline {

/// Layers that share a mix (mixers and FFN) and an attention span (global, sliding).
struct LayerKind {
  bool moe = false;
  bool sliding = false;
  /// The layer's mixers and FFN: a transformer's attention + dense or MoE FFN, a hybrid's LayerMix.
  LayerMix mix;
  /// mllama's cross-attention layers: ModelConfig keeps their count, not their positions, so
  /// first, last and every are 0 for this kind and no run places it.
  bool cross_attention = false;
  std::int64_t layers = 0;  ///< how many
  std::int64_t first = 0;   ///< the first such layer, the one the rows describe
  std::int64_t last = 0;
  std::int64_t every = 1;   ///< stride between them when regular, 0 when irregular
  std::int64_t window = 0;  ///< W of a sliding kind, 0 for a global one
  /// k of a sparse-attention (DSA) kind: its attention reads the top k of the cached keys; 0: all
  std::int64_t topk = 0;
  /// Norms of width d in one layer: 1 (parallel block), 2 (pre-norm), 4 (Gemma 2/3 sandwich); a
  /// hybrid's layer one per sublayer (its mixers share one).
  std::int64_t norms = 2;
  /// The attention's head shape: d_h and h_kv (a Gemma 4 global kind has its own), and whether it
  /// has a v_proj (Gemma 4 attention_k_eq_v: not). Zero for a kind without attention.
  std::int64_t head_dim = 0;
  std::int64_t kv_heads = 0;
  bool value_proj = true;
  bool own_shape = false;    ///< a global kind of its own head shape (ModelConfig::global_attention)
  std::int64_t scalars = 0;  ///< stored scalars per layer (Gemma 4 layer_scalar: 1)
  bool sinks = false;        ///< attention sinks (gpt-oss): one learned logit per query head
  bool output_gate = false;  ///< Qwen3-Next: q_proj also emits a sigmoid output gate of h d_h
};

/// `count` consecutive layers of kinds[kind], starting at layer `first`.
struct LayerRun {
  std::size_t kind = 0;
  std::int64_t first = 0;
  std::int64_t count = 0;
};

/// The kinds in order of their first layer (mllama's cross-attention layers last, as one kind) and
/// the runs that place them; the runs cover layers 0 to L - 1 once each, in order.
struct LayerStack {
  std::vector<LayerKind> kinds;
  std::vector<LayerRun> runs;
  /// Layers in the stack: sum of the kinds' counts (L, plus mllama's cross-attention layers).
  [[nodiscard]] std::int64_t layers() const;
};

/// The stack of `m`: the distinct (mix, is_sliding_layer) over its L layers (a transformer's mix:
/// attention + is_moe_layer's FFN; a hybrid's: HybridConfig::layers), then mllama's
/// cross-attention layers as one kind; O(L) with few kinds  [S000-eq1.1] [SH17]
LayerStack layer_stack(const ModelConfig& m);

/// One layer of `mix` with the model's features (norms, sinks, gate) as layer_stack() gives them:
/// the kind of a layer outside the stack (a multi-token-prediction module's).
LayerKind layer_kind_of(const ModelConfig& m, const LayerMix& mix);

/// The kinds of layer_stack(m).
std::vector<LayerKind> layer_kinds(const ModelConfig& m);

}  // namespace roofline
