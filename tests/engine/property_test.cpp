// Properties over generated models (issue 11): a seeded generator of valid ModelConfigs (dense MHA,
// GQA/MQA, MoE, sliding-window layouts) and the monotonicity every sizing answer must have. Each
// property would fail on a formula that inverts a term, drops a layer, or divides by the wrong
// degree; the seed is fixed, so a failure reproduces.
#include "roofline/analysis.hpp"
#include "roofline/memory.hpp"
#include "roofline/training_memory.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

using namespace roofline;

namespace {

enum class Kind { dense, gqa, moe, windowed };

struct Generated {
  ModelConfig model;
  Kind kind = Kind::dense;
};

class ModelGenerator {
 public:
  explicit ModelGenerator(std::uint64_t seed) : rng_(seed) {}

  Generated next() {
    Generated g;
    g.kind = static_cast<Kind>(pick(0, 3));
    ModelConfig& m = g.model;
    m.family = "generated";
    m.name = "generated-" + std::to_string(++count_);
    m.n_layers = pick(1, 48);
    m.head_dim = one_of({16, 32, 64, 128});
    const std::int64_t kv_heads = g.kind == Kind::dense ? one_of({1, 2, 4, 8, 16}) : one_of({1, 2, 4, 8});
    const std::int64_t group = g.kind == Kind::dense ? 1 : one_of({2, 4, 8});
    m.n_kv_heads = kv_heads;
    m.n_heads = kv_heads * group;
    m.d_model = pick(0, 1) == 0 ? m.n_heads * m.head_dim : 64 * pick(1, 64);
    m.d_ff = 32 * pick(1, 512);
    m.vocab_size = pick(32, 200'000);
    m.max_seq_len = std::int64_t{1} << pick(10, 17);
    m.mlp = pick(0, 1) == 0 ? MlpKind::gated : MlpKind::plain;
    m.norm = pick(0, 1) == 0 ? NormKind::rmsnorm : NormKind::layernorm_nobias;
    m.tied_embeddings = pick(0, 1) == 0;
    m.position = PositionKind::rope;
    if (g.kind == Kind::moe) {
      m.moe.n_experts = one_of({4, 8, 16, 64});
      m.moe.top_k = pick(1, std::min<std::int64_t>(m.moe.n_experts, 8));
      m.moe.d_ff_expert = 32 * pick(1, 128);
      m.moe.first_dense_layers = pick(0, std::min<std::int64_t>(m.n_layers - 1, 2));
    }
    if (g.kind == Kind::windowed) {
      m.sliding_window = one_of({128, 512, 1024, 4096});
      m.global_every = pick(0, 6);
    }
    return g;
  }

 private:
  std::int64_t pick(std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng_);
  }
  std::int64_t one_of(std::initializer_list<std::int64_t> xs) {
    return *(xs.begin() + pick(0, static_cast<std::int64_t>(xs.size()) - 1));
  }
  std::mt19937_64 rng_;
  int count_ = 0;
};

constexpr int kModels = 300;

std::vector<Generated> generated_models() {
  ModelGenerator gen(20261130);
  std::vector<Generated> out;
  for (int i = 0; i < kModels; ++i) out.push_back(gen.next());
  return out;
}

const std::vector<Generated>& models() {
  static const std::vector<Generated> all = generated_models();
  return all;
}

HardwareConfig device() {
  HardwareConfig h;
  h.name = "generated-device";
  h.memory_capacity = units::gib(80);
  h.memory_bandwidth = units::tb_per_s(3.35);
  h.set_peak(DType::bf16, units::tflop_per_s(989.4));
  return h;
}

Scenario scenario(const ModelConfig& m, Workload w, std::int64_t devices = 1) {
  Scenario s;
  s.counts = count_params(m);
  s.model = m;
  s.accelerator = Accelerator{device(), CapacitySource::device, {}};
  s.deployment.devices = devices;
  s.workload = w;
  return s;
}

std::string describe(const ModelConfig& m) {
  return m.name + ": L=" + std::to_string(m.n_layers) + " d=" + std::to_string(m.d_model) +
         " h=" + std::to_string(m.n_heads) + " h_kv=" + std::to_string(m.n_kv_heads) +
         " d_h=" + std::to_string(m.head_dim) + " d_ff=" + std::to_string(m.d_ff) +
         " V=" + std::to_string(m.vocab_size) + " E=" + std::to_string(m.moe.n_experts) +
         " W=" + std::to_string(m.sliding_window) + " g=" + std::to_string(m.global_every);
}

const std::vector<std::int64_t> kBatches = {1, 2, 7, 64, 1000, 1'000'000};
const std::vector<std::int64_t> kContexts = {0, 1, 100, 127, 128, 129, 4096, 100'000, 10'000'000};

}  // namespace

TEST_CASE("the generator makes valid models of every kind", "[property]") {
  int kinds[4] = {0, 0, 0, 0};
  for (const Generated& g : models()) {
    INFO(describe(g.model));
    CHECK(validate(g.model).empty());
    ++kinds[static_cast<int>(g.kind)];
  }
  for (const int k : kinds) CHECK(k >= kModels / 8);
}

TEST_CASE("more batch never less KV; more context never less KV", "[property]") {
  for (const Generated& g : models()) {
    INFO(describe(g.model));
    double previous_context = -1.0;
    for (const std::int64_t t : kContexts) {
      double previous_batch = -1.0;
      for (const std::int64_t b : kBatches) {
        const KvResult kv = analyze_kv(scenario(g.model, Workload{.batch = b, .context = t}));
        INFO("batch " << b << " context " << t);
        CHECK(kv.batch_bytes.base() >= previous_batch);
        previous_batch = kv.batch_bytes.base();
      }
      const KvResult one = analyze_kv(scenario(g.model, Workload{.batch = 1, .context = t}));
      INFO("context " << t);
      CHECK(one.per_sequence.base() >= previous_context);
      previous_context = one.per_sequence.base();
    }
  }
}

TEST_CASE("more devices never less capacity: concurrency and longest context", "[property]") {
  for (const Generated& g : models()) {
    INFO(describe(g.model));
    for (const std::int64_t t : {std::int64_t{0}, std::int64_t{4096}, std::int64_t{1'000'000}}) {
      std::int64_t sequences = 0;
      std::int64_t longest = 0;
      for (const std::int64_t devices : {1, 2, 3, 8, 100, 100'000}) {
        const CapacityResult c = analyze_capacity(scenario(g.model, Workload{.batch = 1, .context = t}, devices));
        INFO("devices " << devices << " context " << t);
        // nullopt is unbounded (no KV at this context): more than any count.
        const std::int64_t n = c.max_sequences ? c.max_sequences->base() : INT64_MAX;
        CHECK(n >= sequences);
        CHECK(c.max_context.base() >= longest);
        sequences = n;
        longest = c.max_context.base();
      }
    }
  }
}

TEST_CASE("tensor parallelism divides the weight matrices per device; vectors and routers stay whole", "[property]") {
  for (const Generated& g : models()) {
    const ModelConfig& m = g.model;
    const ParamCounts c = count_params(m);
    // What every rank keeps whole: per-layer vectors (norms), the final norm, each MoE router (E x d).
    double replicated = static_cast<double>(c.final_norm);
    for (const LayerKindParams& k : c.layer_kinds) {
      replicated += static_cast<double>(k.n_layers) * static_cast<double>(k.total - k.matrix_total);
      if (k.moe) replicated += static_cast<double>(k.n_layers * m.moe.n_experts * m.d_model);
    }
    for (const std::int64_t t : {1, 2, 4, 8}) {
      if (m.n_heads % t != 0) continue;
      const double per_device = params_per_device(c, ParallelDegrees{.tensor = t}).most_loaded();
      INFO(describe(m) << " t=" << t << " per device " << per_device << " total " << c.total);
      const double td = static_cast<double>(t);
      CHECK_THAT(per_device * td,
                 Catch::Matchers::WithinRel(static_cast<double>(c.total) + (td - 1.0) * replicated, 1e-12));
      CHECK(per_device <= static_cast<double>(c.total));
    }
  }
}

TEST_CASE("parameters grow with every layer added", "[property]") {
  for (const Generated& g : models()) {
    ModelConfig m = g.model;
    const std::int64_t before = count_params(m).total;
    ++m.n_layers;
    INFO(describe(m));
    CHECK(count_params(m).total > before);
  }
}

TEST_CASE("a decode step never gets faster with more batch or more context", "[property]") {
  for (const Generated& g : models()) {
    const ModelConfig& m = g.model;
    const ParamCounts c = count_params(m);
    const Machine hw = effective_machine(scenario(m, Workload{}));
    INFO(describe(m));
    for (const std::int64_t t : kContexts) {
      double previous = 0.0;
      for (const std::int64_t b : kBatches) {
        const double step = decode_step(m, c, Workload{.batch = b, .context = t}, hw).t_step.base();
        INFO("batch " << b << " context " << t);
        CHECK(step >= previous);
        previous = step;
      }
    }
    for (const std::int64_t b : kBatches) {
      double previous = 0.0;
      for (const std::int64_t t : kContexts) {
        const double step = decode_step(m, c, Workload{.batch = b, .context = t}, hw).t_step.base();
        INFO("batch " << b << " context " << t);
        CHECK(step >= previous);
        previous = step;
      }
    }
  }
}
