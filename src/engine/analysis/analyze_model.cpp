// Model-only analyses: params, flops, kv, elementwise.
#include "roofline/analysis/model.hpp"
#include "roofline/decode.hpp"
#include "roofline/flops.hpp"
#include "roofline/layer_ops.hpp"
#include "roofline/memory.hpp"
#include "roofline/misc.hpp"
#include "roofline/training.hpp"

#include <algorithm>

namespace roofline {
namespace {

std::int64_t embedding_width(const ModelConfig& m) { return m.embed_proj_dim > 0 ? m.embed_proj_dim : m.d_model; }

// The layer kind most layers have (the MoE kind of a MoE model, ties to the later kind).
const LayerKindParams& most_common_layer(const ParamCounts& c) {
  // A layer with no parameters (a NAS layer whose attention and FFN were both pruned) describes
  // nothing: the most common of the others, unless every layer is empty.
  const LayerKindParams* best = nullptr;
  for (const LayerKindParams& k : c.layer_kinds) {
    if (k.total > 0 && (best == nullptr || k.n_layers >= best->n_layers)) best = &k;
  }
  return best != nullptr ? *best : c.layer_kinds.front();
}

// Contiguous runs of one attention kind, one row each (an irregular placement).
void add_runs(const ModelConfig& m, const KvLayerGroup& kind, std::vector<KvLayerGroup>& out) {
  std::int64_t start = -1;
  for (std::int64_t i = 0; i <= m.n_layers; ++i) {
    const bool in = i < m.n_layers && m.is_attention_layer(i) && m.is_sliding_layer(i) == kind.sliding;
    if (in && start < 0) start = i;
    if (!in && start >= 0) {
      KvLayerGroup run = kind;
      run.first = start;
      run.last = i - 1;
      run.layers = i - start;
      run.every = 1;
      out.push_back(run);
      start = -1;
    }
  }
}

// The layers grouped by attention kind: a kind that recurs with a fixed stride is one row.
std::vector<KvLayerGroup> kv_layout(const ModelConfig& m, units::Bytes per_token_layer, units::Bytes global_layer) {
  std::vector<KvLayerGroup> out;
  for (const bool sliding : {false, true}) {
    KvLayerGroup g;
    g.sliding = sliding;
    g.window = sliding ? m.sliding_window : 0;
    g.bytes_per_token_per_layer = sliding ? per_token_layer : global_layer;
    std::int64_t prev = -1;
    bool strided = true;
    for (std::int64_t i = 0; i < m.n_layers; ++i) {
      if (!m.is_attention_layer(i) || m.is_sliding_layer(i) != sliding) continue;
      if (g.layers == 0) {
        g.first = i;
      } else if (g.layers == 1) {
        g.every = i - prev;
      } else if (i - prev != g.every) {
        strided = false;
      }
      prev = i;
      g.last = i;
      ++g.layers;
    }
    if (g.layers == 0) continue;
    if (strided) {
      out.push_back(g);
    } else {
      add_runs(m, g, out);
    }
  }
  std::sort(out.begin(), out.end(), [](const KvLayerGroup& a, const KvLayerGroup& b) { return a.first < b.first; });
  return out;
}

}  // namespace

ParamsResult analyze_params(const Scenario& s) {
  const ModelConfig& m = s.model;
  const ParamCounts& c = s.counts;
  ParamsResult r;
  r.counts = &c;
  if (s.architecture) {
    const LayerKindParams& layer = most_common_layer(c);
    r.main_layer_params = layer.total;
    r.main_layer_over_d2 =
        static_cast<double>(layer.total) / (static_cast<double>(m.d_model) * static_cast<double>(m.d_model));
  }
  r.embedding_width = embedding_width(m);
  r.published_applies = s.provenance.published_params.has_value() && !s.provenance.modified;
  r.published_matches = r.published_applies && *s.provenance.published_params == c.total;
  const double n = static_cast<double>(c.total);
  r.weight_bytes = stored_weights(c, s.workload);
  r.training_state_bytes_per_param = kMixedAdamBytesPerParam;
  r.training_state_bytes = training_state_bytes(n, kMixedAdamBytesPerParam);
  for (DType d : {DType::fp32, DType::bf16, DType::fp16, DType::fp8, DType::int8, DType::int4, DType::fp4}) {
    r.weights_by_dtype.push_back({d, dtype_bits(d), weight_bytes(n, dtype_bits(d))});
  }
  return r;
}

FlopsResult analyze_flops(const Scenario& s) {
  const ModelConfig& m = s.model;
  const ParamCounts& c = s.counts;
  const Workload& w = s.workload;
  FlopsResult r;
  for (FlopBasis b : {FlopBasis::physical, FlopBasis::non_embedding, FlopBasis::all_params}) {
    const auto i = static_cast<std::size_t>(b);
    r.basis_params.at(i) = flop_params(c, b);
    r.forward_per_token.at(i) = forward_flops_per_token(c, b);
  }
  r.basis = w.basis;
  r.forward = r.forward_per_token.at(static_cast<std::size_t>(w.basis));
  r.training_per_token = training_flops_per_token(r.forward);
  r.recompute_per_token = recompute_flops_per_token(r.forward);
  r.vocab = m.vocab_size;
  r.head_width = embedding_width(m);
  r.lm_head_per_token = units::Flop{2.0 * static_cast<double>(c.head_matmul)};
  r.flops_per_pair = attention_flops_per_pair(m);
  r.context = w.context;
  r.attention_per_decode_token = attention_flops_decode_token(m, static_cast<double>(w.context));
  r.attended_keys = attended_keys(layer_windows(m), static_cast<double>(w.context));
  r.prompt = w.prompt;
  r.prefill = prefill_flop_terms(m, c, static_cast<double>(w.prompt), w.basis, w.lm_head, w.attention);
  r.layers = m.n_layers;
  if (s.architecture) {
    r.mean_layer_matrix_params = mean_layer_matrix_params(m, c);
    r.attention_share = units::Fraction{attention_share(m, c, static_cast<double>(w.prompt), w.attention)};
    r.crossover_causal = units::Tokens{attention_crossover_tokens(m, c, AttentionMode::causal)};
    r.crossover_full = units::Tokens{attention_crossover_tokens(m, c, AttentionMode::full)};
  }
  return r;
}

KvResult analyze_kv(const Scenario& s) {
  const ModelConfig& m = s.model;
  const Workload& w = s.workload;
  KvResult r;
  r.mla = m.mla.enabled();
  r.elements_per_token_per_layer = kv_elements_per_token_layer(m);
  const CacheBytes cache = w.cache_bytes();
  r.bytes_per_element = cache.kv;
  r.state_bytes_per_element = cache.state;
  r.per_token = kv_bytes_per_token(m, cache);
  r.context = w.context;
  r.per_sequence = kv_bytes_per_sequence(m, static_cast<double>(w.context), cache);
  const double per_token_layer = static_cast<double>(r.elements_per_token_per_layer) * r.bytes_per_element;
  r.cached_tokens = attended_keys(layer_windows(m), static_cast<double>(w.context));
  r.batch = w.batch;
  r.batch_bytes = inference_bytes(units::Bytes{}, units::Bytes{}, r.per_sequence, static_cast<double>(w.batch));
  double global_layer = per_token_layer;
  if (m.global_attention.enabled()) {
    r.global_layers = layer_windows(m).global_layers;
    r.global_elements_per_token_per_layer =
        attention_kv_elements_per_token_layer(m, global_head_shape(m)) + indexer_elements_per_token_layer(m);
    global_layer = static_cast<double>(r.global_elements_per_token_per_layer) * r.bytes_per_element;
  }
  if (!r.mla && (m.n_kv_heads != m.n_heads || global_head_shape(m).kv_heads != m.n_heads)) {
    ModelConfig mha = m;
    mha.n_kv_heads = m.n_heads;
    if (mha.global_attention.n_kv_heads > 0) mha.global_attention.n_kv_heads = m.n_heads;
    r.per_token_mha = kv_bytes_per_token(mha, cache);
    r.mha_ratio = units::Ratio{*r.per_token_mha / r.per_token};
  }
  r.layout = kv_layout(m, units::Bytes{per_token_layer}, units::Bytes{global_layer});
  r.attention_layers = m.attention_layers();
  for (const LayerMix& mix : m.hybrid.layers) {
    const std::int64_t e = state_elements_per_layer(m, mix.state);
    r.state_layers += e > 0 ? 1 : 0;
    r.state_elements += e;
    r.recurrent_elements += recurrent_elements_per_layer(m, mix.state);
  }
  r.state_dtype = m.hybrid.state_dtype;
  r.state_per_sequence = state_bytes_per_sequence(m, cache);
  return r;
}

ElementwiseResult analyze_elementwise(const Scenario& s) {
  const ModelConfig& m = s.model;
  ElementwiseResult r;
  r.activation_bytes = dtype_bytes(s.workload.activation_dtype);
  r.per_token_per_layer = mean_layer_elementwise_bytes_per_token(m, s.counts, r.activation_bytes);
  r.layer_weight_bytes = weight_bytes(mean_layer_matrix_params(m, s.counts), s.workload.weight_bits);
  r.crossover = units::Tokens{fusion_crossover_tokens(r.layer_weight_bytes, r.per_token_per_layer)};
  r.share_at_one_token = units::Fraction{elementwise_traffic_share(r.layer_weight_bytes, r.per_token_per_layer, 1.0)};
  return r;
}

}  // namespace roofline
