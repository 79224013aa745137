#include "roofline/training_memory.hpp"

#include <algorithm>
#include <string_view>

namespace roofline {

const RecipeBytes& recipe_bytes(OptimizerRecipe r) {
  for (const RecipeBytes& row : kOptimizerRecipes) {
    if (row.id == r) return row;
  }
  return kOptimizerRecipes.front();  // unreachable: every enumerator has a row (tested)
}

std::optional<OptimizerRecipe> recipe_named(std::string_view name) {
  for (const RecipeBytes& row : kOptimizerRecipes) {
    if (row.name == name) return row.id;
  }
  return std::nullopt;
}

units::Bytes adafactor_state_bytes(std::span<const MatrixShape> matrices, double vector_params, double state_bytes,
                                   double momentum_bytes) {
  double factored = 0.0;
  double params = vector_params;
  for (const MatrixShape& m : matrices) {
    const double n = static_cast<double>(m.count);
    factored += n * (static_cast<double>(m.rows) + static_cast<double>(m.cols));
    params += n * static_cast<double>(m.rows) * static_cast<double>(m.cols);
  }
  return units::Bytes{state_bytes * (factored + vector_params) + momentum_bytes * params};
}

ModelStateBytes zero_model_states(double params, const RecipeBytes& recipe, ZeroStage stage, double dp) {
  const int s = static_cast<int>(stage);
  const double w = s >= 3 ? params / dp : params;
  const double g = s >= 2 ? params / dp : params;
  const double o = s >= 1 ? params / dp : params;
  return ModelStateBytes{units::Bytes{recipe.weights * w}, units::Bytes{recipe.gradients * g},
                         units::Bytes{recipe.optimizer * o}};
}

std::optional<FsdpStrategy> fsdp_strategy(std::string_view name) {
  for (const FsdpStrategy& f : kFsdpStrategies) {
    if (f.name == name) return f;
  }
  return std::nullopt;
}

namespace {

// How one device holds a layer: matrices over t ranks, routed experts over e t_e ranks (in the
// share counted).
struct Split {
  double t = 1.0;
  double e = 1.0;
  double te = 1.0;
  double share = 1.0;
};

Split split_of(ParallelDegrees d) {
  const auto t = static_cast<double>(d.tensor);
  return {.t = t,
          .e = static_cast<double>(d.expert),
          .te = d.expert_tensor > 0 ? static_cast<double>(d.expert_tensor) : t,
          .share = d.expert_share};
}

// Matrices every tensor-parallel rank holds whole: the router and the shared-expert gate, and a DSA
// layer's indexer (wq_b, wk, weights_proj), which serving engines replicate: its one key head and
// its scores over every cached token are not split by head  [DS25]
bool replicated_matrix(std::string_view id) {
  return id == "router" || id == "shared_expert_gate" || id == "indexer_wq" || id == "indexer_wk" ||
         id == "indexer_weights";
}

// Parameters of one layer of `k` on one device: matrices / t, routed experts / (e t_e), the
// replicated matrices and every vector (norm gains, biases) whole.
double layer_params_on_device(const LayerKindParams& k, Split s, const WeightLayout* bytes = nullptr) {
  double sum = 0.0;
  for (const ParamComponent& part : k.parts) {
    const auto n = static_cast<double>(part.count);
    double held = n;
    if (part.id == "experts") {
      held = n * s.share / (s.e * s.te);
    } else if (part.matrix && !replicated_matrix(part.id)) {
      held = n / s.t;
    }
    sum += bytes ? component_bytes(part, held, *bytes) : held;
  }
  return sum;
}

// Layer parameters on one device of the stage holding layers [begin, end), the kinds laid out in
// the order ParamCounts lists them (dense first, then MoE).
double stage_layer_params(const ParamCounts& c, std::int64_t begin, std::int64_t end, Split split,
                          const WeightLayout* bytes) {
  double sum = 0.0;
  std::int64_t first = 0;
  for (const LayerKindParams& k : c.layer_kinds) {
    const std::int64_t last = first + k.n_layers;
    const std::int64_t overlap = std::max<std::int64_t>(0, std::min(last, end) - std::max(first, begin));
    sum += static_cast<double>(overlap) * layer_params_on_device(k, split, bytes);
    first = last;
  }
  return sum;
}

}  // namespace

DeviceParams params_per_device(const ParamCounts& c, ParallelDegrees d, const WeightLayout* bytes) {
  const auto t = static_cast<double>(d.tensor);
  const Split split = split_of(d);
  const std::int64_t p = d.pipeline;
  const auto in = [&](WeightClass k, std::int64_t n) {
    return bytes ? bytes->bytes(k, static_cast<double>(n)) : static_cast<double>(n);
  };
  std::int64_t layers = 0;
  for (const LayerKindParams& k : c.layer_kinds) layers += k.n_layers;

  double first_layers = 0.0;
  double last_layers = 0.0;
  double middle_layers = 0.0;
  if (layers == 0) {  // a model known by its count alone: blocks spread evenly
    first_layers = in(WeightClass::attention, c.blocks) / (t * static_cast<double>(p));
    last_layers = first_layers;
  } else if (d.stage_layers.size() == static_cast<std::size_t>(p)) {
    std::int64_t begin = 0;
    for (std::size_t i = 0; i < d.stage_layers.size(); ++i) {
      const std::int64_t end = begin + d.stage_layers[i];
      const double held = stage_layer_params(c, begin, end, split, bytes);
      if (i == 0) first_layers = held;
      if (i + 1 == d.stage_layers.size()) last_layers = held;
      if (i > 0 && i + 1 < d.stage_layers.size()) middle_layers = std::max(middle_layers, held);
      begin = end;
    }
  } else {
    const std::int64_t per_stage = (layers + p - 1) / p;
    first_layers = stage_layer_params(c, 0, per_stage, split, bytes);
    last_layers = stage_layer_params(c, layers - per_stage, layers, split, bytes);
  }
  // First stage: the vocab-parallel table (/t), the position table and embedding norm (replicated),
  // OPT's project_in (/t).
  double cross = 0.0;  // mllama's cross-attention layers, outside layer_kinds: first stage, split t ways
  if (c.cross_attention > 0) {
    cross =
        bytes ? static_cast<double>(c.cross_attention_kind.n_layers) * layer_kind_bytes(c.cross_attention_kind, *bytes)
              : static_cast<double>(c.cross_attention);
  }
  const double input = in(WeightClass::embedding, c.embedding) / t + in(WeightClass::embedding, c.positions) +
                       in(WeightClass::vectors, c.embedding_norm) + in(WeightClass::embedding, c.embed_proj) / 2.0 / t +
                       (in(WeightClass::vision, c.vision) + cross) / t;  // a wrapper's vision tower too
  // Last stage: final norm (replicated), project_out (/t), the vocab-parallel head (/t). A tied head
  // is a second copy of the table there when p > 1 (Megatron keeps and syncs it).
  double head = in(WeightClass::head, c.lm_head_weight) + in(WeightClass::vectors, c.lm_head - c.lm_head_weight);
  if (c.lm_head == 0 && p > 1) head = in(WeightClass::embedding, c.head_matmul);
  const double output =
      in(WeightClass::vectors, c.final_norm) + in(WeightClass::embedding, c.embed_proj) / 2.0 / t + head / t;
  if (p == 1) {  // one stage holds everything once
    const double all = first_layers + input + output;
    return DeviceParams{all, all};
  }
  return DeviceParams{first_layers + input, last_layers + output, middle_layers};
}

double stage_imbalance(std::span<const double> stage_work) {
  double sum = 0.0;
  double most = 0.0;
  for (const double w : stage_work) {
    sum += w;
    most = std::max(most, w);
  }
  return sum > 0.0 ? most * static_cast<double>(stage_work.size()) / sum : 1.0;
}

std::vector<std::int64_t> balanced_stage_layers(std::int64_t layers, std::int64_t p) {
  if (p <= 0) return {};
  std::vector<std::int64_t> out(static_cast<std::size_t>(p), layers / p);
  std::int64_t extra = layers % p;
  for (std::size_t i = 1; extra > 0 && i + 1 < out.size(); ++i, --extra) ++out[i];
  if (extra > 0) ++out.front();
  return out;
}

double largest_unit_params(const ParamCounts& c, ParallelDegrees d) {
  const auto t = static_cast<double>(d.tensor);
  double unit = std::max(static_cast<double>(c.embedding), static_cast<double>(c.head_matmul)) / t;
  for (const LayerKindParams& k : c.layer_kinds) unit = std::max(unit, layer_params_on_device(k, split_of(d)));
  return unit;
}

units::Flop megatron_flops_per_iteration(double batch, double seq, double layers, double hidden, double vocab,
                                         bool full_recompute) {
  const double lead = full_recompute ? 96.0 : 72.0;
  const double head = full_recompute ? 16.0 : 12.0;
  return units::Flop{lead * batch * seq * layers * hidden * hidden *
                     (1.0 + seq / (6.0 * hidden) + vocab / (head * hidden * layers))};
}

}  // namespace roofline
