// layer: the operators of every layer kind plus the head sum to what decode_step and prefill_pass
// count for the same pass (FLOPs, weight bytes, KV bytes), the attention rows to the attention
// functions, the elementwise rows to elementwise_bytes_per_token_layer; fusion removes only
// activation traffic. Models are the shipped presets; each row names the architecture it covers.
#include "roofline/layer_ops.hpp"

#include "io/preset_registry.hpp"

#include "roofline/analysis.hpp"
#include "roofline/decode.hpp"
#include "roofline/flops.hpp"
#include "roofline/memory.hpp"
#include "roofline/misc.hpp"

#include <catch2/catch.hpp>

#include <set>
#include <sstream>
#include <string>

#include "../engine/h100_fixture.hpp"

using namespace roofline;
using Catch::Matchers::WithinRel;

namespace {

using roofline_test::h100;

Scenario preset_on_h100(const std::string& model, const Workload& w) {
  std::istringstream none;
  Scenario s;
  s.model = io::PresetRegistry({}).load_model(model, none).config;
  s.counts = count_params(s.model);
  s.accelerator = Accelerator{h100(), CapacitySource::device, {}};
  s.workload = w;
  return s;
}

struct Case {
  const char* model;
  const char* covers;
  Phase phase;
  Workload w;
};

Workload decode_at(std::int64_t batch, std::int64_t context) { return Workload{.batch = batch, .context = context}; }
Workload prefill_of(std::int64_t batch, std::int64_t prompt) { return Workload{.batch = batch, .prompt = prompt}; }

Workload with(Workload w, DecodeBytes d, MoeDecodeBytes e) {
  w.decode_bytes = d;
  w.moe_decode = e;
  return w;
}

Workload with(Workload w, LmHeadPositions h, AttentionMode a) {
  w.lm_head = h;
  w.attention = a;
  return w;
}

// The four the issue names, both phases, then the architecture features the rows must also cover.
std::vector<Case> cases() {
  return {
      {"llama3-8b", "dense GQA", Phase::decode, decode_at(1, 8000)},
      {"llama3-8b", "dense GQA", Phase::prefill, prefill_of(2, 2048)},
      {"llama3-8b", "head on every position, full attention", Phase::prefill,
       with(prefill_of(1, 1024), LmHeadPositions::all, AttentionMode::full)},
      {"llama3-8b", "every weight read", Phase::decode,
       with(decode_at(8, 4096), DecodeBytes::all_weights, MoeDecodeBytes::expected)},
      {"mixtral-8x7b", "MoE, expected experts", Phase::decode, decode_at(16, 4096)},
      {"mixtral-8x7b", "MoE", Phase::prefill, prefill_of(1, 512)},
      {"mixtral-8x7b", "MoE, top-k", Phase::decode,
       with(decode_at(4, 2048), DecodeBytes::touched, MoeDecodeBytes::top_k)},
      {"mixtral-8x7b", "MoE, all experts", Phase::decode,
       with(decode_at(4, 2048), DecodeBytes::touched, MoeDecodeBytes::all_experts)},
      {"deepseek-v2-lite", "MLA without q rank, dense first layer, shared experts", Phase::decode, decode_at(8, 4096)},
      {"deepseek-v2-lite", "MLA, MoE", Phase::prefill, prefill_of(2, 1024)},
      {"deepseek-v3", "MLA with q rank, 3 dense layers, correction bias", Phase::decode, decode_at(1, 32768)},
      {"deepseek-v3", "MLA, MoE", Phase::prefill, prefill_of(1, 4096)},
      {"gemma2-9b", "sliding window past the context, tied, 4 norms", Phase::decode, decode_at(4, 8192)},
      {"gemma2-9b", "sliding window, prompt past the window", Phase::prefill, prefill_of(1, 8192)},
      {"gemma2-9b", "sliding window, prompt inside it", Phase::prefill, prefill_of(2, 2048)},
      {"qwen3-8b", "q/k norms", Phase::decode, decode_at(2, 1000)},
      {"gpt2", "plain MLP, biases, learned positions, LayerNorm, tied", Phase::prefill, prefill_of(3, 1024)},
      {"gpt2", "plain MLP, learned positions", Phase::decode, decode_at(2, 1024)},
      {"qwen1.5-moe-a2.7b", "shared expert gate, qkv bias", Phase::decode, decode_at(3, 4096)},
      {"opt-350m", "embedding projections", Phase::prefill, prefill_of(1, 512)},
      {"gpt-oss-20b", "attention sinks, expert and router biases, window 128", Phase::decode, decode_at(4, 8192)},
      {"gpt-oss-20b", "attention sinks, prompt past the window", Phase::prefill, prefill_of(1, 1024)},
      {"bloom-560m", "embedding norm, ALiBi", Phase::decode, decode_at(1, 512)},
      {"falcon-7b", "parallel block, one norm, MQA", Phase::prefill, prefill_of(1, 512)},
      {"mistral-7b", "every layer slides", Phase::decode, decode_at(1, 32768)},
  };
}

double rel(double got, double want) { return std::fabs(got - want) / std::max(std::fabs(want), 1e-300); }

const std::set<std::string_view> kSeedElementwise = {
    "input_norm",         "post_attention_norm", "pre_ffn_norm", "post_ffn_norm",      "extra_norms",      "rope",
    "residual_attention", "residual_ffn",        "activation",   "experts_activation", "shared_activation"};

}  // namespace

TEST_CASE("layer: operators sum to decode_step and prefill_pass, FLOPs and weight + KV bytes", "[layer]") {
  const Case c = GENERATE(from_range(cases()));
  CAPTURE(c.model, c.covers, c.phase == Phase::decode ? "decode" : "prefill", c.w.batch, c.w.prompt, c.w.context);
  const Scenario s = preset_on_h100(c.model, c.w);
  const LayerResult r = analyze_layer(s, LayerQuery{.phase = c.phase});
  const Machine hw = effective_machine(s);
  units::Flop flops{};
  units::Bytes weights{};
  units::Bytes kv{};
  for (const LayerSection& sec : r.layers) {
    for (const LayerOpResult& op : sec.ops) {
      flops += op.op.flops * static_cast<double>(sec.kind.layers);
      weights += op.op.weight_bytes * static_cast<double>(sec.kind.layers);
      kv += op.op.kv_bytes * static_cast<double>(sec.kind.layers);
    }
  }
  for (const LayerOpResult& op : r.head.ops) {
    flops += op.op.flops;
    weights += op.op.weight_bytes;
    kv += op.op.kv_bytes;
  }
  if (c.phase == Phase::decode) {
    const DecodeStep step = decode_step(s.model, s.counts, s.workload, hw);
    CHECK(rel(flops.base(), step.flops.base()) < 1e-12);
    CHECK(rel(weights.base(), step.weight_bytes.base()) < 1e-12);
    CHECK(rel(kv.base(), step.kv_bytes.base()) < 1e-12);
  } else {
    const PrefillPass pass = prefill_pass(s.model, s.counts, s.workload, hw);
    CHECK(rel(flops.base(), pass.flops.base()) < 1e-12);
    CHECK(rel(weights.base(), pass.weight_bytes.base()) < 1e-12);
    CHECK(rel(kv.base(), pass.kv_written.base()) < 1e-12);
  }
  // The result's own totals are the same sums, and the whole-pass figures it prints beside them.
  CHECK(rel(r.totals.flops.base(), flops.base()) < 1e-12);
  CHECK(rel(r.whole_flops.base(), flops.base()) < 1e-12);
  CHECK(rel(r.whole_bytes.base(), (weights + kv).base()) < 1e-12);
}

TEST_CASE("layer: per layer, matmuls are 2 x active params x n and attention is the attention functions'", "[layer]") {
  const Case c = GENERATE(from_range(cases()));
  CAPTURE(c.model, c.covers);
  const Scenario s = preset_on_h100(c.model, c.w);
  const ModelConfig& m = s.model;
  const LayerPass p = layer_pass(s.workload, c.phase, false);
  units::Flop attention{};
  for (const LayerKind& kind : layer_kinds(m)) {
    units::Flop params_flops{};
    units::Flop core{};
    for (const LayerOp& op : layer_ops(m, s.counts, kind, p)) {
      (op.kind == OpKind::attention ? core : params_flops) += op.flops;
      if (op.kind != OpKind::attention) CHECK(rel(op.flops.base(), 2.0 * op.flop_params * p.tokens) < 1e-12);
    }
    const LayerKindParams& k = *std::find_if(s.counts.layer_kinds.begin(), s.counts.layer_kinds.end(),
                                             [&](const LayerKindParams& x) { return x.moe == kind.moe; });
    CHECK(rel(params_flops.base(), 2.0 * static_cast<double>(k.active) * p.tokens) < 1e-12);
    attention += core * static_cast<double>(kind.layers);
  }
  const double batch = static_cast<double>(s.workload.batch);
  const units::Flop want =
      c.phase == Phase::prefill
          ? attention_flops_prefill(m, static_cast<double>(s.workload.prompt), s.workload.attention) * batch
          : attention_flops_decode_token(m, static_cast<double>(s.workload.context)) * batch;
  CHECK(rel(attention.base(), want.base()) < 1e-12);
  // The kinds cover every layer once.
  std::int64_t layers = 0;
  for (const LayerKind& kind : layer_kinds(m)) layers += kind.layers;
  CHECK(layers == m.n_layers);
}

TEST_CASE("layer: the elementwise rows are elementwise_bytes_per_token_layer, per token [S003-3.3]", "[layer]") {
  const Case c = GENERATE(from_range(cases()));
  CAPTURE(c.model, c.covers);
  const Scenario s = preset_on_h100(c.model, c.w);
  const ModelConfig& m = s.model;
  const LayerPass p = layer_pass(s.workload, c.phase, false);
  const double b = p.activation_bytes;
  for (const LayerKind& kind : layer_kinds(m)) {
    CAPTURE(kind.moe, kind.sliding);
    double per_token = 0.0;
    for (const LayerOp& op : layer_ops(m, s.counts, kind, p)) {
      if (kSeedElementwise.count(op.id) != 0) per_token += op.activation_bytes.base() / p.tokens;
    }
    // The whole-model function describes the model's MoE layer; a dense layer of an MoE model
    // is the same model with its experts taken away.
    ModelConfig as_kind = m;
    if (!kind.moe) as_kind.moe = MoeConfig{};
    double want = elementwise_bytes_per_token_layer(as_kind, b).base();
    if (m.mla.enabled()) {
      // MLA rotates the d_R rope part of each query head and one shared rope key, not all of
      // h d_h and h_kv d_h (docs/formulas.md §9a).
      const double h = static_cast<double>(m.n_heads);
      const double rope = static_cast<double>(m.mla.qk_rope_head_dim);
      want +=
          (rope_bytes_per_token(h * rope, rope, b) -
           rope_bytes_per_token(h * static_cast<double>(m.head_dim), static_cast<double>(m.n_kv_heads * m.head_dim), b))
              .base();
    }
    CHECK(rel(per_token, want) < 1e-12);
  }
}

TEST_CASE("report's elementwise bytes per layer are layer's rows, the mean over the layers [S003-3.3]", "[layer]") {
  // Llama 3 8B: the seed's table, 188,416 B. Mixtral 8x7B by hand (d = 4096, b = 2): norms 2 x 2d b =
  // 32,768; RoPE 2 (4096 + 1024) b = 20,480; residuals 2 x 3d b = 49,152; SwiGLU over k d_fe = 28,672:
  // 3 x 28,672 b = 172,032; the combine of 2 experts (2 + 1) d b = 24,576: 299,008 B.
  const Scenario l3 = preset_on_h100("llama3-8b", {});
  CHECK(mean_layer_elementwise_bytes_per_token(l3.model, l3.counts, 2.0).base() == 188'416.0);
  CHECK(mean_layer_elementwise_bytes_per_token(l3.model, l3.counts, 2.0).base() ==
        elementwise_bytes_per_token_layer(l3.model, 2.0).base());
  const Scenario mx = preset_on_h100("mixtral-8x7b", {});
  CHECK(mean_layer_elementwise_bytes_per_token(mx.model, mx.counts, 2.0).base() == 299'008.0);
  // DeepSeek-V3: 3 dense layers and 58 MoE layers, weighted by their counts.
  const Scenario ds = preset_on_h100("deepseek-v3", {});
  double sum = 0.0;
  for (const LayerKind& kind : layer_kinds(ds.model)) {
    LayerPass one;
    double per_layer = 0.0;
    for (const LayerOp& op : layer_ops(ds.model, ds.counts, kind, one)) {
      if (op.kind != OpKind::matmul && op.kind != OpKind::attention && op.kind != OpKind::softmax) {
        per_layer += op.activation_bytes.base();
      }
    }
    sum += per_layer * static_cast<double>(kind.layers);
  }
  CHECK(rel(mean_layer_elementwise_bytes_per_token(ds.model, ds.counts, 2.0).base(), sum / 61.0) < 1e-12);
}

TEST_CASE("layer: fusion removes activation traffic only: elementwise, softmax and the scores [DA22]", "[layer]") {
  const Case c = GENERATE(from_range(cases()));
  CAPTURE(c.model, c.covers);
  const Scenario s = preset_on_h100(c.model, c.w);
  const ModelConfig& m = s.model;
  const LayerPass pu = layer_pass(s.workload, c.phase, false);
  const LayerPass pf = layer_pass(s.workload, c.phase, true);
  for (const LayerKind& kind : layer_kinds(m)) {
    const std::vector<LayerOp> u = layer_ops(m, s.counts, kind, pu);
    const std::vector<LayerOp> f = layer_ops(m, s.counts, kind, pf);
    REQUIRE(u.size() == f.size());
    const double keys = c.phase == Phase::prefill ? pu.queries : layer_attended_keys(kind, pu.context);
    const units::Bytes scores =
        score_bytes(static_cast<double>(m.n_heads), pu.queries, keys, pu.activation_bytes) * pu.sequences;
    for (std::size_t i = 0; i < u.size(); ++i) {
      CAPTURE(u[i].id);
      CHECK(u[i].id == f[i].id);
      CHECK(u[i].flops == f[i].flops);
      CHECK(u[i].weight_bytes == f[i].weight_bytes);
      CHECK(u[i].kv_bytes == f[i].kv_bytes);
      switch (u[i].kind) {
        case OpKind::matmul:
        case OpKind::gather:
          CHECK(f[i].activation_bytes == u[i].activation_bytes);
          break;
        case OpKind::attention:
          CHECK(rel((u[i].activation_bytes - f[i].activation_bytes).base(), scores.base()) < 1e-12);
          break;
        default:
          CHECK(f[i].fused_away);
          CHECK(f[i].activation_bytes.base() == 0.0);
          if (u[i].kind == OpKind::softmax) CHECK(u[i].activation_bytes == scores * 2.0);
          break;
      }
    }
  }
}

TEST_CASE("layer: Llama-3-8B decode at batch 1, context 8,000 on H100, by hand", "[layer]") {
  // Every projection reads its weights once for one token: 2 P FLOPs over 2 P + 2 (in + out) bytes,
  // just under 1 FLOP/B against a ridge of 989.4e12 / 3.35e12 = 295.3: memory-bound.
  const Scenario s = preset_on_h100("llama3-8b", decode_at(1, 8000));
  const LayerResult r = analyze_layer(s, LayerQuery{.phase = Phase::decode});
  REQUIRE(r.layers.size() == 1);
  const auto op = [&](std::string_view id) {
    for (const LayerOpResult& o : r.layers.front().ops) {
      if (o.op.id == id) return o;
    }
    FAIL("no operator " << id);
    return LayerOpResult{};
  };
  const LayerOpResult q = op("q_proj");
  CHECK(q.op.flops.base() == 33'554'432.0);         // 2 x 4096 x 4096
  CHECK(q.op.weight_bytes.base() == 33'554'432.0);  // 4096 x 4096 x 2 B
  CHECK(q.op.activation_bytes.base() == 16'384.0);  // (4096 + 4096) x 2 B
  CHECK_THAT(q.intensity->base(), WithinRel(33'554'432.0 / 33'570'816.0, 1e-12));
  CHECK(q.bound == Bound::memory);
  CHECK_THAT(q.time.base(), WithinRel(33'570'816.0 / 3.35e12, 1e-12));  // 10.02 us
  const LayerOpResult k = op("k_proj");
  CHECK(k.op.flops.base() == 8'388'608.0);          // 2 x 4096 x 1024
  CHECK(k.op.activation_bytes.base() == 10'240.0);  // (4096 + 1024) x 2 B: the new key, appended
  CHECK(k.op.kv_bytes.base() == 0.0);               // decode_step counts the cache read, not the append
  const LayerOpResult qk = op("attention_scores");
  CHECK(qk.op.flops.base() == 65'536'000.0);          // 2 x 32 x 128 x 8000
  CHECK(qk.op.kv_bytes.base() == 16'384'000.0);       // keys: 8000 x 8 x 128 x 2 B
  CHECK(qk.op.activation_bytes.base() == 520'192.0);  // Q 8,192 + scores 32 x 8000 x 2 B
  CHECK(op("softmax").op.activation_bytes.base() == 1'024'000.0);
  const LayerOpResult av = op("attention_values");
  CHECK(av.op.kv_bytes.base() == 16'384'000.0);       // values
  CHECK(av.op.activation_bytes.base() == 520'192.0);  // scores 512,000 + O 8,192
  CHECK(av.intensity->base() < 4.0);                  // the cache read keeps attention memory-bound
  // One layer: 2 x 218,112,000 + 2 x 65,536,000 FLOPs; the seed's 188,416 B of elementwise traffic.
  CHECK(r.layers.front().totals.flops.base() == 567'296'000.0);
  double ew = 0.0;
  for (const LayerOpResult& o : r.layers.front().ops) {
    if (kSeedElementwise.count(o.op.id) != 0) ew += o.op.activation_bytes.base();
  }
  CHECK(ew == 188'416.0);
  // The pass: 32 layers + the head (final norm 8,192 FLOPs, lm_head 2 x 525,336,576) is the decode
  // command's 15,009,849,344 + 4 x 32 x 128 x 32 x 8000 = 19,204,153,344 FLOPs.
  CHECK(r.totals.flops.base() == 19'204'153'344.0);
  // Fused, the elementwise traffic and the scores' four trips (QK^T writes them, softmax reads and
  // writes them, attention x V reads them) go: per layer 188,416 + 4 x 512,000 B less.
  CHECK((r.layers.front().totals.activation_bytes - r.layers.front().totals.activation_bytes_fused).base() ==
        188'416.0 + 2'048'000.0);
}

TEST_CASE("layer: the small formulas", "[layer]") {
  const Scenario s = preset_on_h100("deepseek-v3", decode_at(1, 0));
  const ModelConfig& m = s.model;
  // The query-key and attention-value halves make a = 2 (w_qk + w_v)  [S003-2.3]
  CHECK(attention_score_flops_per_pair(m) + attention_value_flops_per_pair(m) == attention_flops_per_pair(m));
  CHECK(attention_score_flops_per_pair(m) == 2.0 * 128 * 192);
  CHECK(attention_value_flops_per_pair(m) == 2.0 * 128 * 128);
  // h q k b is the seed's h S^2 b when q = k = S  [S003-3.2]
  CHECK(score_bytes(32, 8192, 8192, 2) == score_matrix_bytes(32, 8192, 2));
  CHECK(score_bytes(32, 8192, 8192, 2).base() == 4'294'967'296.0);
  CHECK(matmul_activation_bytes_per_token(4096, 14336, 2).base() == 36'864.0);
  CHECK(expert_combine_bytes_per_token(8, 1, 7168, 2).base() == 143'360.0);  // (8 + 1 + 1) x 7168 x 2
  CHECK(embedding_gather_bytes_per_token(4096, 2).base() == 8192.0);
  // Experts read per MoE layer, as params_read scales them  [S003-2.5] [SH17]
  CHECK(experts_read(m, 1, DecodeBytes::touched, MoeDecodeBytes::expected) == Approx(8.0).epsilon(1e-12));
  CHECK(experts_read(m, 1e6, DecodeBytes::touched, MoeDecodeBytes::expected) == Approx(256.0).epsilon(1e-12));
  CHECK(experts_read(m, 1, DecodeBytes::touched, MoeDecodeBytes::top_k) == 8.0);
  CHECK(experts_read(m, 1, DecodeBytes::touched, MoeDecodeBytes::all_experts) == 256.0);
  CHECK(experts_read(m, 1, DecodeBytes::all_weights, MoeDecodeBytes::expected) == 256.0);
  // Layer kinds: DeepSeek-V3 3 dense then 58 MoE; Gemma 2 alternates sliding (even) and global.
  const std::vector<LayerKind> ds = layer_kinds(m);
  REQUIRE(ds.size() == 2);
  CHECK((!ds[0].moe && ds[0].layers == 3 && ds[0].first == 0 && ds[0].every == 1));
  CHECK((ds[1].moe && ds[1].layers == 58 && ds[1].first == 3 && ds[1].last == 60));
  const std::vector<LayerKind> gemma = layer_kinds(preset_on_h100("gemma2-9b", decode_at(1, 0)).model);
  REQUIRE(gemma.size() == 2);
  CHECK((gemma[0].sliding && gemma[0].first == 0 && gemma[0].every == 2 && gemma[0].layers == 21 &&
         gemma[0].window == 4096));
  CHECK((!gemma[1].sliding && gemma[1].first == 1 && gemma[1].every == 2 && gemma[1].layers == 21));
  CHECK(layer_attended_keys(gemma[0], 8192) == 4096.0);
  CHECK(layer_attended_keys(gemma[1], 8192) == 8192.0);
}

namespace {

// The passes the every-preset check runs: both phases, small and large batches and contexts, and
// the conventions that change what a pass reads or writes.
struct PresetPass {
  const char* what;
  Phase phase;
  Workload w;
};

std::vector<PresetPass> preset_passes() {
  Workload long_fp8 = decode_at(32, 131072);
  long_fp8.kv_dtype = DType::fp8;
  long_fp8.weight_bits = 8.0;
  Workload all_heads = with(prefill_of(4, 512), LmHeadPositions::all, AttentionMode::full);
  all_heads.decode_bytes = DecodeBytes::all_weights;
  return {{"decode, batch 1, context 4,096", Phase::decode, decode_at(1, 4096)},
          {"decode, batch 32, context 131,072, fp8 KV, 8-bit weights", Phase::decode, long_fp8},
          {"prefill, batch 1 x 2,048", Phase::prefill, prefill_of(1, 2048)},
          {"prefill, batch 4 x 512, head on every position, full attention, all weights", Phase::prefill, all_heads}};
}

// Every number a row or a total carries is a count of work or traffic: never negative.
void check_not_negative(const LayerOpResult& o) {
  CAPTURE(o.op.id);
  CHECK(o.op.flops.base() >= 0.0);
  CHECK(o.op.weight_bytes.base() >= 0.0);
  CHECK(o.op.activation_bytes.base() >= 0.0);
  CHECK(o.op.kv_bytes.base() >= 0.0);
  CHECK(o.op.flop_params >= 0.0);
  CHECK(o.op.weight_params >= 0.0);
  CHECK(o.bytes.base() >= 0.0);
  CHECK(o.time.base() >= 0.0);
  CHECK(o.share.base() >= 0.0);
  if (o.intensity) CHECK(o.intensity->base() >= 0.0);
}

}  // namespace

// N2 (docs/reliability review 2026-12-01): layer listed a hybrid's layers as one dense kind with
// zero-width projections, left out the Mamba, DeltaNet and mllama cross-attention layers and
// printed negative rows, while its totals claimed to be decode's. For every shipped model: the
// kinds cover every decoder layer, the rows of each kind times its count plus the head are the
// decode step's or the prefill's FLOPs, weight bytes and KV (and recurrent state) bytes, the
// whole-pass floor is theirs, and no row is negative, unfused or fused.
TEST_CASE("layer: for every model preset, kinds x counts + head = decode_step / prefill_pass, no row negative",
          "[layer][N2]") {
  const io::PresetRegistry registry({});
  const std::vector<const io::PresetEntry*> models = registry.entries(io::PresetKind::model);
  REQUIRE(models.size() >= 100);
  for (const io::PresetEntry* entry : models) {
    Scenario s;
    s.model = registry.parse_model(*entry).config;
    s.counts = count_params(s.model);
    s.accelerator = Accelerator{h100(), CapacitySource::device, {}};
    const Machine hw = effective_machine(s);
    for (const PresetPass& pass : preset_passes()) {
      CAPTURE(entry->name, pass.what);
      s.workload = pass.w;
      const LayerResult r = analyze_layer(s, LayerQuery{.phase = pass.phase});
      std::int64_t layers = 0;
      units::Flop flops{};
      units::Bytes weights{};
      units::Bytes kv{};
      for (const LayerSection& sec : r.layers) {
        const auto n = static_cast<double>(sec.kind.layers);
        layers += sec.kind.layers;
        for (const LayerOpResult& o : sec.ops) {
          check_not_negative(o);
          flops += o.op.flops * n;
          weights += o.op.weight_bytes * n;
          kv += o.op.kv_bytes * n;
        }
      }
      for (const LayerOpResult& o : r.head.ops) {
        check_not_negative(o);
        flops += o.op.flops;
        weights += o.op.weight_bytes;
        kv += o.op.kv_bytes;
      }
      CHECK(layers == s.model.n_layers + s.model.cross_attention_layers);
      // The result's totals are those sums.
      CHECK(rel(r.totals.flops.base(), flops.base()) < 1e-9);
      CHECK(rel(r.totals.weight_bytes.base(), weights.base()) < 1e-9);
      CHECK(rel(r.totals.kv_bytes.base(), kv.base()) < 1e-9);
      CHECK(r.totals.activation_bytes.base() >= 0.0);
      CHECK(r.totals.activation_bytes_fused.base() >= 0.0);
      units::Flop want_flops{};
      units::Bytes want_weights{};
      units::Bytes want_kv{};
      units::Seconds want_floor{};
      if (pass.phase == Phase::decode) {
        const DecodeStep step = decode_step(s.model, s.counts, s.workload, hw);
        want_flops = step.flops;
        want_weights = step.weight_bytes;
        want_kv = step.kv_bytes;
        want_floor = step.t_step;
      } else {
        const PrefillPass p = prefill_pass(s.model, s.counts, s.workload, hw);
        want_flops = p.flops;
        want_weights = p.weight_bytes;
        want_kv = p.kv_written;
        want_floor = p.t_floor;
      }
      CHECK(rel(flops.base(), want_flops.base()) < 1e-9);
      CHECK(rel(weights.base(), want_weights.base()) < 1e-9);
      CHECK(rel(kv.base(), want_kv.base()) < 1e-9);
      // The one roofline of the whole pass, from the layer's own totals, is the pass's floor.
      CHECK(rel(roofline_time(flops, weights + kv, hw.peak, hw.bandwidth).base(), want_floor.base()) < 1e-9);
      CHECK(rel(r.whole_flops.base(), flops.base()) < 1e-9);
      CHECK(rel(r.whole_bytes.base(), (weights + kv).base()) < 1e-9);
      // Fused, the same work and no negative row either.
      const LayerResult f = analyze_layer(s, LayerQuery{.phase = pass.phase, .fused = true});
      for (const LayerSection& sec : f.layers) {
        for (const LayerOpResult& o : sec.ops) check_not_negative(o);
      }
      CHECK(rel(f.totals.flops.base(), flops.base()) < 1e-9);
      CHECK(rel(f.totals.weight_bytes.base(), weights.base()) < 1e-9);
      CHECK(rel(f.totals.kv_bytes.base(), kv.base()) < 1e-9);
    }
  }
}

namespace {

// count_params's parameters of a layer kind, found independently of layer_ops.
const LayerKindParams& params_of(const Scenario& s, const LayerKind& kind) {
  if (kind.cross_attention) return s.counts.cross_attention_kind;
  const auto it = std::find_if(s.counts.layer_kinds.begin(), s.counts.layer_kinds.end(), [&](const LayerKindParams& k) {
    // Gemma 4's global layers are a kind of their own head shape.
    return s.model.hybrid.enabled() ? k.mix == kind.mix : k.moe == kind.moe && k.global_shape == kind.own_shape;
  });
  REQUIRE(it != s.counts.layer_kinds.end());
  return *it;
}

const LayerOp& op_named(const std::vector<LayerOp>& ops, std::string_view id) {
  const auto it = std::find_if(ops.begin(), ops.end(), [&](const LayerOp& o) { return o.id == id; });
  REQUIRE(it != ops.end());
  return *it;
}

}  // namespace

TEST_CASE("layer: each kind's rows are its count_params components, every preset, every kind [N2]", "[layer][N2]") {
  // With every weight read, each kind's rows multiply its active parameters and read all it stores:
  // the Mamba, DeltaNet and cross-attention rows split their components (biases included) and lose none.
  const io::PresetRegistry registry({});
  for (const io::PresetEntry* entry : registry.entries(io::PresetKind::model)) {
    const Scenario s =
        preset_on_h100(entry->name, with(decode_at(3, 1000), DecodeBytes::all_weights, MoeDecodeBytes::expected));
    const LayerPass p = layer_pass(s.workload, Phase::decode, false);
    std::int64_t layers = 0;
    for (const LayerKind& kind : layer_kinds(s.model)) {
      CAPTURE(entry->name, kind.first, kind.cross_attention, kind.moe, kind.sliding);
      const LayerKindParams& k = params_of(s, kind);
      if (s.model.sliding_window == 0) CHECK(k.n_layers == kind.layers);  // windows split a kind of count_params
      double flop_params = 0.0;
      double weight_params = 0.0;
      for (const LayerOp& op : layer_ops(s.model, s.counts, kind, p)) {
        flop_params += op.flop_params;
        weight_params += op.weight_params;
      }
      CHECK(flop_params == static_cast<double>(k.active));
      CHECK(weight_params == static_cast<double>(k.total));
      layers += kind.layers;
    }
    CHECK(layers == s.model.n_layers + s.model.cross_attention_layers);
  }
}

TEST_CASE("layer: a state mixer's conv1d and scan read (decode) or write (prefill) its state, once a sequence [N2]",
          "[layer][N2]") {
  struct Row {
    const char* model;
    Phase phase;
    Workload w;
  };
  const std::vector<Row> rows = {
      {"mamba-2.8b", Phase::decode, decode_at(4, 2048)},
      {"mamba-2.8b", Phase::prefill, prefill_of(2, 512)},
      {"mamba-codestral-7b", Phase::decode, decode_at(1, 4096)},
      {"nemotron-h-8b", Phase::decode, decode_at(8, 8192)},
      {"nemotron-h-8b", Phase::prefill, prefill_of(3, 1024)},
      {"qwen3-next-80b-a3b", Phase::decode, decode_at(2, 100)},
      {"qwen3-next-80b-a3b", Phase::prefill, prefill_of(1, 4096)},
      {"falcon-h1-7b", Phase::prefill, prefill_of(2, 300)},
      {"jamba-v0.1", Phase::decode, decode_at(16, 65536)},
      {"granite-4.0-h-tiny", Phase::decode, decode_at(1, 1)},
  };
  for (const Row& row : rows) {
    CAPTURE(row.model, row.phase == Phase::decode ? "decode" : "prefill");
    Workload w = row.w;
    w.kv_dtype = DType::fp8;  // the conv state at 1 B (the recurrent one at the declared dtype, else 1 B)
    const Scenario s = preset_on_h100(row.model, w);
    const LayerPass p = layer_pass(s.workload, row.phase, false);
    const double batch = static_cast<double>(w.batch);
    units::Bytes state{};
    for (const LayerKind& kind : layer_kinds(s.model)) {
      if (kind.mix.state == StateMixer::none) continue;
      const std::vector<LayerOp> ops = layer_ops(s.model, s.counts, kind, p);
      const LayerStateBytes want = state_bytes_per_layer(s.model, kind.mix.state, 1.0);
      CHECK(op_named(ops, "conv1d").kv_bytes == want.conv * batch);
      const std::string_view scan = kind.mix.state == StateMixer::mamba1   ? "selective_scan"
                                    : kind.mix.state == StateMixer::mamba2 ? "ssd_scan"
                                                                           : "delta_rule";
      CHECK(op_named(ops, scan).kv_bytes == want.recurrent * batch);
      for (const LayerOp& op : ops) {
        if (op.kind == OpKind::conv || op.kind == OpKind::scan) state += op.kv_bytes * static_cast<double>(kind.layers);
      }
    }
    // Over the model: the state term of kv_bytes_per_sequence, B times.
    CHECK(rel(state.base(), (state_bytes_per_sequence(s.model, 1.0) * batch).base()) < 1e-12);
  }
}

TEST_CASE("layer: Nemotron-H 8B and Mamba 2.8B state layers in a decode step at batch 1, by hand [N2]", "[layer][N2]") {
  // Nemotron-H 8B's Mamba-2 block: d = 4096, d_i = 128 x 64 = 8192, g = 8, N = 128, H = 128, k_conv 4,
  // conv bias, no projection biases; c = 8192 + 2 x 8 x 128 = 10,240 conv channels.
  const Scenario nh = preset_on_h100("nemotron-h-8b", decode_at(1, 4096));
  const LayerPass p = layer_pass(nh.workload, Phase::decode, false);
  const std::vector<LayerKind> kinds = layer_kinds(nh.model);
  REQUIRE(kinds.size() == 3);  // Mamba-2 blocks, MLP blocks, attention blocks, by first layer
  CHECK((kinds[0].mix.state == StateMixer::mamba2 && !kinds[0].mix.attention && kinds[0].layers == 24));
  CHECK((kinds[1].mix.ffn == LayerFfn::dense && kinds[1].mix.state == StateMixer::none && !kinds[1].mix.attention &&
         kinds[1].layers == 24 && kinds[1].first == 1));
  CHECK((kinds[2].mix.attention && kinds[2].layers == 4 && kinds[2].first == 7 && kinds[2].every == 11));
  const std::vector<LayerOp> m2 = layer_ops(nh.model, nh.counts, kinds[0], p);
  // in_proj d x (d_i + c + H) = 4096 x 18,560.
  CHECK(op_named(m2, "in_proj").flops.base() == 2.0 * 4096 * 18560);
  CHECK(op_named(m2, "in_proj").weight_bytes.base() == 2.0 * 4096 * 18560);
  CHECK(op_named(m2, "in_proj").activation_bytes.base() == (4096.0 + 18560.0) * 2.0);
  // conv1d: 10,240 x 4 weights + 10,240 biases; its state [10,240, 4] at 2 B.
  CHECK(op_named(m2, "conv1d").weight_params == 10240.0 * 4 + 10240.0);
  CHECK(op_named(m2, "conv1d").kv_bytes.base() == 10240.0 * 4 * 2);
  CHECK(op_named(m2, "conv1d").activation_bytes.base() == 2.0 * 10240 * 2);
  // SSD: dt_bias, A_log, D per head (3 x 128), the state [128, 64, 128] at 2 B; reads x, B, C (10,240) and
  // dt (128), writes y (8,192).
  CHECK(op_named(m2, "ssd_scan").flops.base() == 2.0 * 384);
  CHECK(op_named(m2, "ssd_scan").kv_bytes.base() == 128.0 * 64 * 128 * 2);
  CHECK(op_named(m2, "ssd_scan").activation_bytes.base() == (10240.0 + 128 + 8192) * 2);
  CHECK(op_named(m2, "ssm_norm").weight_params == 8192.0);
  CHECK(op_named(m2, "out_proj").flops.base() == 2.0 * 8192 * 4096);
  // The MLP blocks: relu2 up and down, 4096 x 21,504 each, and nothing negative (N2's -176.2 MFLOP).
  const std::vector<LayerOp> mlp = layer_ops(nh.model, nh.counts, kinds[1], p);
  CHECK(op_named(mlp, "up_proj").flops.base() == 2.0 * 4096 * 21504);
  CHECK(op_named(mlp, "down_proj").flops.base() == 2.0 * 21504 * 4096);
  CHECK(mlp.size() == 5);  // input norm, up, act(up), down, residual
  // The pass: 24 x (Mamba-2) + 24 x (MLP) + 4 x (attention) + head = decode's 15,396,399,104 FLOPs.
  const LayerResult r = analyze_layer(nh, LayerQuery{.phase = Phase::decode});
  CHECK(r.totals.flops.base() == 15'396'399'104.0);
  CHECK(r.totals.kv_bytes.base() == 4.0 * 4096 * 2 * 8 * 128 * 2 + 24.0 * (81'920 + 2'097'152));

  // Mamba 2.8B: d = 2560, d_i = 5120, N = 16, R = 160, k_conv 4, conv bias.
  const Scenario mb = preset_on_h100("mamba-2.8b", decode_at(1, 0));
  const std::vector<LayerKind> mk = layer_kinds(mb.model);
  REQUIRE(mk.size() == 1);
  CHECK(mk[0].layers == 64);
  const std::vector<LayerOp> m1 = layer_ops(mb.model, mb.counts, mk[0], layer_pass(mb.workload, Phase::decode, false));
  CHECK(op_named(m1, "in_proj").flop_params == 2560.0 * 10240);
  CHECK(op_named(m1, "conv1d").flop_params == 5120.0 * 4 + 5120);
  CHECK(op_named(m1, "x_proj").flop_params == 5120.0 * (160 + 32));
  CHECK(op_named(m1, "dt_proj").flop_params == 160.0 * 5120 + 5120);
  CHECK(op_named(m1, "selective_scan").flop_params == 5120.0 * 16 + 5120);  // A_log and D
  CHECK(op_named(m1, "selective_scan").kv_bytes.base() == 5120.0 * 16 * 2);
  CHECK(op_named(m1, "conv1d").kv_bytes.base() == 5120.0 * 4 * 2);
  CHECK(op_named(m1, "out_proj").flop_params == 5120.0 * 2560);
}

TEST_CASE("layer: fusion keeps a state mixer's conv1d and scan traffic, removes its gates and norms [N2] [DA22]",
          "[layer][N2]") {
  for (const char* model : {"mamba-2.8b", "nemotron-h-8b", "qwen3-next-80b-a3b", "falcon-h1-7b", "jamba-v0.1"}) {
    CAPTURE(model);
    const Scenario s = preset_on_h100(model, prefill_of(1, 256));
    const LayerPass pu = layer_pass(s.workload, Phase::prefill, false);
    const LayerPass pf = layer_pass(s.workload, Phase::prefill, true);
    for (const LayerKind& kind : layer_kinds(s.model)) {
      const std::vector<LayerOp> u = layer_ops(s.model, s.counts, kind, pu);
      const std::vector<LayerOp> f = layer_ops(s.model, s.counts, kind, pf);
      REQUIRE(u.size() == f.size());
      for (std::size_t i = 0; i < u.size(); ++i) {
        CAPTURE(u[i].id);
        CHECK(u[i].flops == f[i].flops);
        CHECK(u[i].kv_bytes == f[i].kv_bytes);
        if (u[i].kind == OpKind::conv || u[i].kind == OpKind::scan || u[i].kind == OpKind::matmul) {
          CHECK(f[i].activation_bytes == u[i].activation_bytes);
          CHECK(u[i].activation_bytes.base() > 0.0);
        } else if (u[i].kind != OpKind::attention) {
          CHECK(f[i].fused_away);
        }
      }
    }
  }
}

TEST_CASE("layer: mllama's cross-attention layers are their own kind, as count_params counts them [N2]",
          "[layer][N2]") {
  const Scenario s = preset_on_h100("llama3.2-11b-vision", decode_at(4, 1));
  const std::vector<LayerKind> kinds = layer_kinds(s.model);
  REQUIRE(kinds.size() == 2);
  CHECK((!kinds[0].cross_attention && kinds[0].layers == 32));
  CHECK((kinds[1].cross_attention && kinds[1].layers == 8));
  const std::vector<LayerOp> x = layer_ops(s.model, s.counts, kinds[1], layer_pass(s.workload, Phase::decode, false));
  double flops = 0.0;
  for (const LayerOp& op : x) {
    CAPTURE(op.id);
    CHECK(op.kind != OpKind::attention);  // no image keys in a text pass: no attention core
    CHECK(op.kv_bytes.base() == 0.0);     // and no cache
    flops += op.flops.base();
  }
  // Each of the 4 tokens multiplies the layer's P_layer + 2 norm(d_h) + 2 gates, 2 FLOP each.
  CHECK(flops == 2.0 * 4 * static_cast<double>(s.counts.cross_attention_layer));
  CHECK(s.counts.cross_attention_kind.total == s.counts.cross_attention_layer);
  // The review's case: 74.00 GFLOP with the 8 cross-attention layers (60.04 without them).
  const LayerResult r = analyze_layer(s, LayerQuery{.phase = Phase::decode});
  const DecodeStep step = decode_step(s.model, s.counts, s.workload, effective_machine(s));
  CHECK(rel(r.totals.flops.base(), step.flops.base()) < 1e-12);
  CHECK_THAT(r.totals.flops.base(), WithinRel(74.00e9, 5e-4));
}
