// Training activations: Korthikanti et al.'s Table 2 at the paper's GPT-3 175B configuration, the
// generalised breakdown reduced to Table 2, hand-derived GQA/MLA/MoE cases, logits and 1F1B.
#include "roofline/activations.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <vector>

#include "seed_models.hpp"

using namespace roofline;
using Catch::Matchers::WithinRel;

namespace {

// KO22 Table 3's GPT-3 175B: h = 12288, a = 96, L = 96, t = 8 (p = 8); s = 2048, micro-batch 1.
constexpr double kS = 2048.0;
constexpr double kB = 1.0;
constexpr double kH = 12288.0;
constexpr double kA = 96.0;
constexpr double kT = 8.0;
constexpr double kL = 96.0;
// sbh = 2048 * 12288 = 25,165,824; 5as/h = 5 * 96 * 2048 / 12288 = 80.
constexpr double kSbh = 25'165'824.0;

struct Table2Row {
  const char* form;
  units::Bytes value;
  double expected;  // by hand: sbh * coefficient
};

// The paper's model: MHA, plain GeLU MLP with d_ff = 4h, two LayerNorms, dropout on, no flash.
ActivationOptions paper_options(double s, double b, double t, bool sp, Recompute rc) {
  return {.seq_len = s,
          .micro_batch = b,
          .tensor_parallel = t,
          .sequence_parallel = sp,
          .flash_attention = false,
          .dropout = true,
          .recompute = rc,
          .bytes_per_element = 2.0,
          .dropout_mask_bytes = 1.0};
}

}  // namespace

TEST_CASE("KO22 Table 2 at GPT-3 175B (s=2048, b=1, h=12288, a=96, t=8) [KO22 Table 2]", "[activations]") {
  const std::array rows = {
      // sbh (34 + 80) = 25,165,824 * 114
      Table2Row{"no parallelism", ko22_layer_activations(kS, kB, kH, kA), 2'868'903'936.0},
      // sbh (10 + 24/8 + 80/8) = sbh * 23
      Table2Row{"tensor parallel", ko22_layer_activations_tp(kS, kB, kH, kA, kT), 578'813'952.0},
      // sbh (34/8 + 80/8) = sbh * 14.25
      Table2Row{"tensor + sequence parallel", ko22_layer_activations_tp_sp(kS, kB, kH, kA, kT), 358'612'992.0},
      // sbh (10 + 24/8) = sbh * 13
      Table2Row{"tensor parallel + selective", ko22_layer_activations_tp_selective(kS, kB, kH, kT), 327'155'712.0},
      // sbh (34/8) = sbh * 4.25
      Table2Row{"tensor + sequence parallel + selective", ko22_layer_activations_tp_sp_selective(kS, kB, kH, kT),
                106'954'752.0},
      // 2 sbh
      Table2Row{"full recomputation", ko22_layer_activations_full_recompute(kS, kB, kH), 50'331'648.0},
  };
  for (const Table2Row& r : rows) {
    INFO(r.form);
    CHECK_THAT(r.value.base(), WithinRel(r.expected, 1e-12));
  }
  CHECK(kSbh * 114.0 == 2'868'903'936.0);

  // KO22 abstract: sequence parallelism with selective recomputation "reduces activation memory by
  // 5x" against tensor parallelism alone; at 175B the ratio is 23 / 4.25 = 5.41, 5 at one figure.
  const double reduction =
      ko22_layer_activations_tp(kS, kB, kH, kA, kT) / ko22_layer_activations_tp_sp_selective(kS, kB, kH, kT);
  CHECK_THAT(reduction, WithinRel(23.0 / 4.25, 1e-12));
  CHECK(std::round(reduction) == 5.0);

  // KO22 §5 (selective recomputation): for GPT-3 dropping the 5as/h term saves 70 % of the
  // activation memory: 80 / 114 = 10 / 14.25 = 70.18 %, 70 % at the paper's precision.
  const double saved =
      1.0 - ko22_layer_activations_tp_sp_selective(kS, kB, kH, kT) / ko22_layer_activations_tp_sp(kS, kB, kH, kA, kT);
  CHECK_THAT(saved, WithinRel(80.0 / 114.0, 1e-12));
  CHECK(std::round(saved * 100.0) == 70.0);

  // Eq. 5 with Table 2's last-but-one row: all 96 layers' worth on the first stage, per device:
  // 96 * 106,954,752 = 10,267,656,192 B (10.27 GB).
  CHECK_THAT((ko22_layer_activations_tp_sp_selective(kS, kB, kH, kT) * kL).base(), WithinRel(10'267'656'192.0, 1e-12));
}

TEST_CASE("the generalised breakdown reduces to each form of KO22 Table 2 [KO22 §4.1, Table 2]", "[activations]") {
  const ModelConfig gpt3 = test_models::gpt3_175b();  // MHA, d_ff = 4h, LayerNorm x2
  for (const double s : {512.0, 2048.0, 4096.0}) {
    for (const double b : {1.0, 4.0}) {
      for (const double t : {1.0, 2.0, 8.0}) {
        INFO("s = " << s << ", b = " << b << ", t = " << t);
        const auto general = [&](bool sp, Recompute rc) {
          return layer_activations(gpt3, paper_options(s, b, t, sp, rc), false).total().base();
        };
        if (t == 1.0) {
          CHECK_THAT(general(false, Recompute::none), WithinRel(ko22_layer_activations(s, b, kH, kA).base(), 1e-12));
        }
        CHECK_THAT(general(false, Recompute::none),
                   WithinRel(ko22_layer_activations_tp(s, b, kH, kA, t).base(), 1e-12));
        CHECK_THAT(general(true, Recompute::none),
                   WithinRel(ko22_layer_activations_tp_sp(s, b, kH, kA, t).base(), 1e-12));
        CHECK_THAT(general(false, Recompute::selective),
                   WithinRel(ko22_layer_activations_tp_selective(s, b, kH, t).base(), 1e-12));
        CHECK_THAT(general(true, Recompute::selective),
                   WithinRel(ko22_layer_activations_tp_sp_selective(s, b, kH, t).base(), 1e-12));
        CHECK_THAT(general(false, Recompute::full),
                   WithinRel(ko22_layer_activations_full_recompute(s, b, kH).base(), 1e-12));
      }
    }
  }
}

TEST_CASE("KO22 §4.1: attention 11sbh + 5as^2b, MLP 19sbh, norms 4sbh, term by term", "[activations]") {
  const LayerActivations r =
      layer_activations(test_models::gpt3_175b(), paper_options(kS, kB, 1.0, false, Recompute::none), false);
  const double as2b = kA * kS * kS * kB;
  // Attention: input 2, Q and K 4, softmax 2as^2b, mask as^2b, dropout output 2as^2b, V 2,
  // o_proj input 2, dropout mask 1.
  const units::Bytes attention = r.attn_input + r.query + r.key + r.value + r.softmax_output + r.softmax_dropout_mask +
                                 r.softmax_dropout_output + r.attn_output + r.attn_dropout_mask;
  CHECK_THAT(attention.base(), WithinRel(11.0 * kSbh + 5.0 * as2b, 1e-12));
  CHECK(r.query.base() + r.key.base() == 4.0 * kSbh);
  CHECK(r.softmax_dropout_mask.base() == as2b);
  // MLP: first linear input 2, GeLU input 8, second linear input 8, dropout mask 1.
  const units::Bytes mlp = r.mlp_input + r.mlp_up_output + r.mlp_activation_output + r.mlp_dropout_mask;
  CHECK_THAT(mlp.base(), WithinRel(19.0 * kSbh, 1e-12));
  CHECK(r.mlp_gate_output.base() == 0.0);
  CHECK(r.norm_inputs.base() == 4.0 * kSbh);
  CHECK(r.softmax_stats.base() == 0.0);
  CHECK(r.layer_input.base() == 0.0);
}

TEST_CASE("modern recipe: GQA, SwiGLU, RMSNorm, no dropout, flash attention (Llama 3 8B, by hand)", "[activations]") {
  // s = 8192, b = 1, t = 1, bf16. Widths kept, in elements per token: norm inputs 2 * 4096,
  // attention input 4096, Q 4096, K 1024, V 1024, o_proj input 4096, MLP input 4096,
  // gate/up/activation 3 * 14336: 69,632 = 17 h. Bytes 69,632 * 8192 * 2 = 1,140,850,688, plus
  // the fp32 log-sum-exp 4 * 32 * 8192 = 1,048,576: 1,141,899,264 per layer.
  const ModelConfig m = test_models::llama3_8b();
  const ActivationOptions o{.seq_len = 8192, .micro_batch = 1, .flash_attention = true};
  const LayerActivations r = layer_activations(m, o, false);
  CHECK(r.key.base() == 1024.0 * 8192 * 2);
  CHECK(r.value.base() == r.key.base());
  CHECK(r.softmax_stats.base() == 1'048'576.0);
  CHECK(r.softmax_output.base() == 0.0);
  CHECK(r.softmax_dropout_mask.base() == 0.0);
  CHECK(r.attn_dropout_mask.base() == 0.0);
  CHECK(r.mlp_gate_output.base() == 14336.0 * 8192 * 2);
  CHECK(r.total().base() == 1'141'899'264.0);
  // 32 layers: 36,540,776,448 B.
  CHECK(model_layer_activations(m, o).base() == 32.0 * 1'141'899'264.0);

  // Without flash attention the score matrix returns: a s^2 b e = 32 * 8192^2 * 2 = 4 GiB per layer.
  const LayerActivations eager = layer_activations(m, ActivationOptions{.seq_len = 8192}, false);
  CHECK(eager.softmax_output.base() == 4.0 * 0x1p30);
  // Tensor parallel 8 with sequence parallelism divides every term by 8.
  const LayerActivations sp = layer_activations(
      m, ActivationOptions{.seq_len = 8192, .tensor_parallel = 8, .sequence_parallel = true, .flash_attention = true},
      false);
  CHECK_THAT(sp.total().base(), WithinRel(1'141'899'264.0 / 8.0, 1e-12));
}

TEST_CASE("MLA keeps the up-projected Q, K, V and its latents (DeepSeek-V3 widths)", "[activations]") {
  ModelConfig m = test_models::llama3_8b();
  m.d_model = 7168;
  m.n_heads = 128;
  m.n_kv_heads = 128;
  m.mla = MlaConfig{
      .q_lora_rank = 1536, .kv_lora_rank = 512, .qk_rope_head_dim = 64, .qk_nope_head_dim = 128, .v_head_dim = 128};
  // One token, one byte per element: bytes = widths.
  const LayerActivations r =
      layer_activations(m, ActivationOptions{.seq_len = 1, .bytes_per_element = 1.0, .dropout_mask_bytes = 1.0}, false);
  CHECK(r.query.base() == 128.0 * (128 + 64));  // 24,576
  CHECK(r.key.base() == 128.0 * (128 + 64));
  CHECK(r.value.base() == 128.0 * 128);  // 16,384
  CHECK(r.attn_output.base() == 128.0 * 128);
  CHECK(r.mla_latents.base() == 2.0 * 1536 + 2.0 * 512 + 64);  // 4,160
}

TEST_CASE("MoE keeps the top-k experts' widths and k dispatched inputs (Mixtral-like, by hand)", "[activations]") {
  // d = 4096, h = 32, h_kv = 8, E = 8, k = 2, d_fe = 14336, s = 4096, b = 1, bf16, flash, no dropout.
  // Widths: norms 8192, attention input 4096, Q 4096, K 1024, V 1024, o_proj input 4096, MLP input
  // 4096, dispatched 2 * 4096, gate/up/activation 3 * 2 * 14336 = 86,016: 120,832 per token.
  // 120,832 * 4096 * 2 = 989,855,744 + 4 * 32 * 4096 = 524,288: 990,380,032 B.
  ModelConfig m = test_models::llama3_8b();
  m.moe = MoeConfig{.n_experts = 8, .top_k = 2, .d_ff_expert = 14336};
  const ActivationOptions o{.seq_len = 4096, .flash_attention = true};
  const LayerActivations moe = layer_activations(m, o, true);
  CHECK(moe.moe_dispatched_input.base() == 2.0 * 4096 * 4096 * 2);
  CHECK(moe.mlp_up_output.base() == 2.0 * 14336 * 4096 * 2);
  CHECK(moe.total().base() == 990'380'032.0);
  // One dense layer first (DeepSeek's first_k_dense_replace), then MoE: 1 dense + 3 MoE.
  m.n_layers = 4;
  m.moe.first_dense_layers = 1;
  const double dense = layer_activations(m, o, false).total().base();
  CHECK(model_layer_activations(m, o).base() == dense + 3.0 * 990'380'032.0);
}

TEST_CASE("logits and loss: s b V e / t + 4 s b V / t [KO22 §4.3] (derived)", "[activations]") {
  // GPT-3 175B head (V = 50,257), s = 2048, b = 1, bf16, vocab-parallel over t = 8:
  // 2048 * 50257 * 2 / 8 = 25,731,584 and 2048 * 50257 * 4 / 8 = 51,463,168; total 77,194,752.
  const LogitsActivations l = logits_activations(2048, 1, 50'257, 2.0, 8);
  CHECK(l.logits.base() == 25'731'584.0);
  CHECK(l.loss_fp32.base() == 51'463'168.0);
  CHECK(l.total().base() == 77'194'752.0);
  // A head that is not vocab-parallel keeps all of it on every rank (t = 1): 8x.
  CHECK(logits_activations(2048, 1, 50'257, 2.0, 1).total().base() == 8.0 * 77'194'752.0);
}

TEST_CASE("1F1B: the first stage holds p micro-batches of L/p layers [KO22 §4.2.3, eq. 5] [NA21]", "[activations]") {
  // GPT-3 175B with p = 8: 12 layers per stage, 8 micro-batches in flight = all 96 layers' worth,
  // which is eq. 5: sbhL/t (34 + 5as/h) with sequence parallelism = 96 * 358,612,992 B.
  const units::Bytes per_layer = ko22_layer_activations_tp_sp(kS, kB, kH, kA, kT);
  const units::Bytes first = activations_first_stage(per_layer, kL / 8.0, 8.0);
  CHECK_THAT(first.base(), WithinRel(kL * 358'612'992.0, 1e-12));
  CHECK_THAT(first.base(), WithinRel(kSbh * kL / kT * (34.0 + 80.0), 1e-12));
  static_assert(activations_first_stage(units::Bytes{3.0}, 4.0, 2.0).base() == 24.0);
}

TEST_CASE("pipeline ranks in flight: 1F1B p - r, interleaved (2 (p - r - 1) + (v - 1) p + 1)/v [NA21-2.2] [KO22-4.2.3]",
          "[activations]") {
  struct Row {
    double p, v, rank, in_flight;
    const char* why;
  };
  const Row rows[] = {
      {8, 1, 0, 8, "1F1B: the first rank holds p"},
      {8, 1, 7, 1, "1F1B: the last rank holds one"},
      {4, 2, 0, 5.5, "KO22 §4.2.3: p (1 + (p - 1)/(p v)) = 4 x 1.375"},
      {4, 2, 3, 2.5, "the last rank: ((v - 1) p + 1)/v = 5/2"},
      {8, 4, 0, 8.0 * (1.0 + 7.0 / 32.0), "KO22's factor at p = 8, v = 4"},
      {1, 1, 0, 1, "no pipeline"},
  };
  for (const Row& r : rows) {
    INFO(r.why);
    CHECK_THAT(pipeline_in_flight(r.p, r.v, r.rank), WithinRel(r.in_flight, 1e-15));
  }
}

TEST_CASE("embedding activations: the input dropout's mask, s b h m (/ t with SP) [KO22-4.3]", "[activations]") {
  CHECK(embedding_activations(2048, 1, 12288, 1, true, 1).base() == 2048.0 * 12288);
  CHECK(embedding_activations(2048, 1, 12288, 1, true, 8).base() == 2048.0 * 12288 / 8);
  CHECK(embedding_activations(2048, 1, 12288, 1, false, 1).base() == 0.0);  // no dropout: ids only
}

TEST_CASE("layer widths: what each kept tensor spans per token [KO22 §4.1] [DS24]", "[activations]") {
  // Llama 3 8B (config.json): 32 x 128 queries, 8 x 128 keys and values, d_ff 14,336.
  const LayerWidths l3 = layer_widths(test_models::llama3_8b(), false);
  CHECK(l3.w_q == 4096);
  CHECK(l3.w_k == 1024);
  CHECK(l3.w_v == 1024);
  CHECK(l3.w_o == 4096);
  CHECK(l3.latents == 0);
  CHECK(l3.f == 14'336);
  CHECK(l3.k == 0);
  // DeepSeek-V3 (config.json): 128 heads of 128 + 64 for q and k, v 128; latents 2 x 1536 + 2 x 512 + 64
  // = 4160; an MoE layer passes 8 routed experts of 2048 and 1 shared of 2048: f = 18,432.
  ModelConfig ds;
  ds.n_heads = 128;
  ds.n_kv_heads = 128;
  ds.head_dim = 192;
  ds.d_ff = 18'432;
  ds.mla = {
      .q_lora_rank = 1536, .kv_lora_rank = 512, .qk_rope_head_dim = 64, .qk_nope_head_dim = 128, .v_head_dim = 128};
  ds.moe.n_experts = 256;
  ds.moe.top_k = 8;
  ds.moe.d_ff_expert = 2048;
  ds.moe.n_shared_experts = 1;
  ds.moe.d_ff_shared = 2048;
  const LayerWidths moe = layer_widths(ds, true);
  CHECK(moe.w_q == 24'576);
  CHECK(moe.w_k == 24'576);
  CHECK(moe.w_v == 16'384);
  CHECK(moe.w_o == 16'384);
  CHECK(moe.latents == 4160);
  CHECK(moe.f == 18'432);
  CHECK(moe.k == 8);
  // Its dense first layers use d_ff and route nothing.
  CHECK(layer_widths(ds, false).f == 18'432);
  CHECK(layer_widths(ds, false).k == 0);
}

TEST_CASE(
    "activations over the layer stack: attention terms in attention layers, MLP terms at each FFN's width, "
    "no state-mixer terms (issue 22) [KO22-4.1]",
    "[activations][hybrid]") {
  // d = 8, h = 2, h_kv = 1, d_h = 4, gated d_ff = 6; s = 4, b = 1, bf16, no dropout, no flash.
  // Layer 0, attention + MLP: norms 2 x 64, attention input 64, Q 64, K 32, V 32, scores 2 x 16 x 2
  // = 64, output 64, MLP input 64 and gate, up, act 3 x 4 x 6 x 2 = 144: 656. Layer 1, Mamba-2
  // alone: its norm 64 (the mixer's tensors not counted). Layer 2, an MLP of its own width 10: norm
  // 64, input 64, 3 x 4 x 10 x 2 = 240: 368.
  ModelConfig m;
  m.n_layers = 3;
  m.d_model = 8;
  m.n_heads = 2;
  m.n_kv_heads = 1;
  m.head_dim = 4;
  m.d_ff = 6;
  m.vocab_size = 10;
  m.hybrid.layers = {{.attention = true, .state = StateMixer::none, .ffn = LayerFfn::dense},
                     {.attention = false, .state = StateMixer::mamba2, .ffn = LayerFfn::none},
                     {.attention = false, .state = StateMixer::none, .ffn = LayerFfn::dense, .d_ff = 10}};
  const ActivationOptions o{.seq_len = 4};
  const std::vector<LayerKind> kinds = layer_kinds(m);
  REQUIRE(kinds.size() == 3);
  CHECK(layer_activations(m, o, kinds[0]).total().base() == 656.0);
  CHECK(layer_activations(m, o, kinds[1]).total().base() == 64.0);
  CHECK(layer_activations(m, o, kinds[2]).total().base() == 368.0);
  CHECK(model_layer_activations(m, o).base() == 656.0 + 64.0 + 368.0);
  // A uniform transformer's kind is the layer the two-kind formula describes.
  ModelConfig dense = m;
  dense.hybrid.layers.clear();
  CHECK(layer_activations(dense, o, false).total().base() == 656.0);
  CHECK(model_layer_activations(dense, o).base() == 3 * 656.0);
}
