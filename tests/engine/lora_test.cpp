// LoRA and QLoRA: each row checks a figure derived by hand (in the comment) and, where a paper or a
// public training log prints it, that figure at its printed precision.
#include "roofline/lora.hpp"

#include "roofline/activations.hpp"
#include "roofline/params.hpp"
#include "roofline/training_memory.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <utility>

#include "seed_models.hpp"

using namespace roofline;

namespace {

double rounded(double v, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(v * scale) / scale;
}

/// Mixtral-8x7B: Llama-3-8B's attention (L=32 d=4096 h=32 h_kv=8 d_h=128), V=32000, every layer MoE
/// with E=8 SwiGLU experts of width 14336, top-2, a d x E router.
ModelConfig mixtral_8x7b() {
  ModelConfig m = test_models::llama3_8b(32'000);
  m.name = "mixtral-8x7b";
  m.d_ff = 14'336;
  m.moe.n_experts = 8;
  m.moe.top_k = 2;
  m.moe.d_ff_expert = 14'336;
  return m;
}

/// DeepSeek-V2-Lite: L=27 d=2048 h=16, MLA without a query rank (q_proj), d_c=512 d_R=64 d_nope=128
/// d_v=128; layer 0 dense (d_ff=10944), layers 1-26 MoE: 64 routed experts of width 1408, top-6,
/// 2 shared experts of width 1408.
ModelConfig deepseek_v2_lite() {
  ModelConfig m = test_models::llama3_8b(102'400);
  m.name = "deepseek-v2-lite";
  m.n_layers = 27;
  m.d_model = 2048;
  m.n_heads = 16;
  m.n_kv_heads = 16;
  m.head_dim = 128;
  m.d_ff = 10'944;
  m.mla = {.q_lora_rank = 0, .kv_lora_rank = 512, .qk_rope_head_dim = 64, .qk_nope_head_dim = 128, .v_head_dim = 128};
  m.moe.n_experts = 64;
  m.moe.top_k = 6;
  m.moe.d_ff_expert = 1408;
  m.moe.n_shared_experts = 2;
  m.moe.d_ff_shared = 1408;
  m.moe.first_dense_layers = 1;
  return m;
}

/// DeepSeek-V2's attention: L=60 d=5120 h=128, MLA with a query rank r_q=1536 (q_a_proj, q_b_proj),
/// d_c=512 d_R=64 d_nope=128 d_v=128; its MLP is not used by the rows that take it.
ModelConfig deepseek_v2_attention() {
  ModelConfig m = deepseek_v2_lite();
  m.n_layers = 60;
  m.d_model = 5120;
  m.n_heads = 128;
  m.n_kv_heads = 128;
  m.mla.q_lora_rank = 1536;
  return m;
}

/// LLaMA-65B: L=80 d=8192 h=h_kv=64 d_h=128 d_ff=22016 SwiGLU, V=32000, untied.
ModelConfig llama_65b() {
  ModelConfig m = test_models::llama2_7b();
  m.name = "llama-65b";
  m.n_layers = 80;
  m.d_model = 8192;
  m.n_heads = 64;
  m.n_kv_heads = 64;
  m.d_ff = 22'016;
  return m;
}

const LoraMatrix* row_named(const LoraParams& p, std::string_view name) {
  for (const LoraMatrix& r : p.matrices) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("lora targets: names, sets and comma lists [HU21-4.2] [DE23-4]", "[lora]") {
  using T = LoraTargets;
  struct Row {
    const char* list;
    std::optional<LoraTargets> expected;
  };
  const Row rows[] = {
      // PEFT's default for Llama-family models is q_proj and v_proj (peft src/peft/utils/constants.py,
      // TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING["llama"]); HU21 §4.2 adapts attention only.
      {"qv", T::q | T::v},
      {"q,v", T::q | T::v},
      {"attention", T::q | T::k | T::v | T::o},
      {"q,k,v,o", T::attention},
      // Naming an MLP matrix adapts the experts' too, unless no-experts says otherwise.
      {"mlp", T::gate | T::up | T::down | T::experts},
      {"gate,up,down", T::mlp},
      {"down", T::down | T::experts},
      {"all", T::attention | T::mlp},
      {"q,k,v,o,gate,up,down", T::all},
      {"all,no-experts", T::q | T::k | T::v | T::o | T::gate | T::up | T::down},
      {"qv, up ,down", T::q | T::v | T::up | T::down | T::experts},
      {"attention,qv", T::attention},
      // Invalid: empty list, empty name, unknown name, nothing selected, the Hugging Face spelling.
      {"", std::nullopt},
      {"q,,v", std::nullopt},
      {"q,", std::nullopt},
      {"mlp,experts", std::nullopt},
      {"no-experts", std::nullopt},
      {"q_proj", std::nullopt},
      {"ALL", std::nullopt},
  };
  for (const Row& r : rows) {
    INFO("list \"" << r.list << "\"");
    CHECK(parse_lora_targets(r.list) == r.expected);
  }
  CHECK(has_target(T::qv, T::v));
  CHECK_FALSE(has_target(T::qv, T::k));
  CHECK(has_target(T::all, T::experts));
  CHECK_FALSE(has_target(T::attention, T::mlp));
}

TEST_CASE("lora trainable parameters: r (d_in + d_out) per adapted matrix [HU21-4.1] [HU21-7.1]", "[lora]") {
  using T = LoraTargets;
  struct Row {
    ModelConfig model;
    LoraTargets targets;
    std::int64_t rank;
    std::int64_t total;
    std::int64_t active;
    std::int64_t adapted;
    const char* why;
  };
  const Row rows[] = {
      // Llama-3-8B, r = 8, q and v (PEFT's default): q 8 (4096 + 4096) = 65,536, v (GQA) 8 (4096 + 1024)
      // = 40,960; 106,496 a layer x 32 = 3,407,872 (derived; PEFT's "trainable params: 3,407,872").
      {test_models::llama3_8b(), T::qv, 8, 3'407'872, 3'407'872, 64, "Llama-3-8B r=8 q,v (derived)"},
      // LLaMA-7B / Llama-2-7B (MHA), r = 8, q and v: 2 x 8 (4096 + 4096) x 32 = 4,194,304, the figure a
      // PEFT run prints in github.com/ymcui/Chinese-LLaMA-Alpaca/issues/189 ("trainable params: 4194304").
      {test_models::llama2_7b(), T::qv, 8, 4'194'304, 4'194'304, 64, "LLaMA-7B r=8 q,v (public log)"},
      // Llama-2-7B, r = 64, every linear layer (QLoRA's recipe): q, k, v, o 4 x 64 x 8192 = 2,097,152;
      // gate, up 2 x 64 (4096 + 11008) = 1,933,312; down 64 (11008 + 4096) = 966,656; 4,997,120 a
      // layer x 32 = 159,907,840 (derived; the per-matrix sizes 262,144 and 704,512 are those a
      // PEFT listing prints in github.com/ChenDelong1999/polite-flamingo/issues/3).
      {test_models::llama2_7b(), T::all, 64, 159'907'840, 159'907'840, 224, "Llama-2-7B r=64 all (derived)"},
      // GQA, r = 16, all: q 16 x 8192 = 131,072, k, v 16 x 5120 = 81,920 each, o 131,072, gate, up
      // 16 x 18,432 = 294,912 each, down 294,912; 1,310,720 a layer x 32 = 41,943,040 (derived).
      {test_models::llama3_8b(), T::all, 16, 41'943'040, 41'943'040, 224, "Llama-3-8B r=16 all (derived)"},
      // HU21 §7.1: a budget of 18M parameters on GPT-3 175B is r = 8 on one attention matrix, r = 4 on
      // two, r = 2 on all four, over 96 layers: 96 x 8 x 24,576 = 18,874,368 each way.
      {test_models::gpt3_175b(), T::q, 8, 18'874'368, 18'874'368, 96, "HU21 §7.1 W_q r=8"},
      {test_models::gpt3_175b(), T::qv, 4, 18'874'368, 18'874'368, 192, "HU21 §7.1 W_q, W_v r=4"},
      {test_models::gpt3_175b(), T::attention, 2, 18'874'368, 18'874'368, 384, "HU21 §7.1 W_q..W_o r=2"},
      // Plain MLP (no gate), r = 8, all: q, k, v, o 4 x 8 x 24,576 = 786,432; up, down 8 (12,288 +
      // 49,152) = 491,520 each; 1,769,472 a layer x 96 = 169,869,312 (derived); the gate is ignored.
      {test_models::gpt3_175b(), T::all, 8, 169'869'312, 169'869'312, 576, "GPT-3 r=8 all, plain MLP (derived)"},
      {test_models::gpt3_175b(), T::mlp, 8, 94'371'840, 94'371'840, 192, "GPT-3 r=8 up, down (derived)"},
      // MoE, r = 8, all: attention 65,536 + 2 x 40,960 + 65,536 = 212,992; one expert 3 x 8 (4096 +
      // 14,336) = 442,368, x 8 = 3,538,944; 3,751,936 a layer x 32 = 120,061,952. Per token: 212,992 +
      // 2 x 442,368 = 1,097,728 x 32 = 35,127,296. Matrices: 4 x 32 + 3 x 8 x 32 = 896; active 320.
      {mixtral_8x7b(), T::all, 8, 120'061'952, 35'127'296, 896, "Mixtral-8x7B r=8 all (derived)"},
      // Without the experts only attention is adapted (every layer is MoE): 212,992 x 32 = 6,815,744.
      {mixtral_8x7b(), *parse_lora_targets("all,no-experts"), 8, 6'815'744, 6'815'744, 128, "no-experts"},
      // MLA + MoE + a dense first layer, r = 8, all. Attention: q_proj 8 (2048 + 16 x 192) = 40,960,
      // kv_a 8 (2048 + 576) = 20,992, kv_b 8 (512 + 16 x 256) = 36,864, o 8 (16 x 128 + 2048) = 32,768;
      // 131,584 x 27 = 3,552,768. Layer 0: gate, up, down 3 x 8 (2048 + 10,944) = 311,808. Layers 1-26:
      // one expert 3 x 8 (2048 + 1408) = 82,944; (64 + 2) x 82,944 x 26 = 142,331,904. Total
      // 146,196,480; per token (6 + 2) experts: 3,552,768 + 311,808 + 17,252,352 = 21,116,928.
      // Matrices: 4 x 27 + 3 + 3 x 66 x 26 = 5,259; active 108 + 3 + 3 x 8 x 26 = 735.
      {deepseek_v2_lite(), T::all, 8, 146'196'480, 21'116'928, 5'259, "DeepSeek-V2-Lite r=8 all (derived)"},
      // MLA with a query rank, r = 8, attention: q_a 8 (5120 + 1536) = 53,248, q_b 8 (1536 + 128 x 192)
      // = 208,896, kv_a 8 (5120 + 576) = 45,568, kv_b 8 (512 + 128 x 256) = 266,240, o 8 (128 x 128 +
      // 5120) = 172,032; 745,984 x 60 = 44,759,040. q, v: the same without o, 573,952 x 60 = 34,437,120;
      // k alone: kv_a + kv_b, 311,808 x 60 = 18,708,480.
      {deepseek_v2_attention(), T::attention, 8, 44'759'040, 44'759'040, 300, "DeepSeek-V2 MLA r=8 (derived)"},
      {deepseek_v2_attention(), T::qv, 8, 34'437'120, 34'437'120, 240, "MLA: v adapts kv_a and kv_b"},
      {deepseek_v2_attention(), T::k, 8, 18'708'480, 18'708'480, 120, "MLA: k adapts kv_a and kv_b"},
  };
  for (const Row& r : rows) {
    INFO(r.why);
    const LoraParams p = lora_params(r.model, r.targets, r.rank);
    CHECK(p.rank == r.rank);
    CHECK(p.total == r.total);
    CHECK(p.active == r.active);
    CHECK(p.adapted_matrices == r.adapted);
    std::int64_t sum = 0;
    for (const LoraMatrix& m : p.matrices) {
      CHECK(m.params == m.matrices * lora_matrix_params(r.rank, m.d_in, m.d_out));
      sum += m.params;
    }
    CHECK(sum == p.total);
  }
  // HU21 §7.1 writes the budget as "18M": 18,874,368 truncated to millions.
  CHECK(std::floor(static_cast<double>(lora_params(test_models::gpt3_175b(), T::qv, 4).total) / 1e6) == 18.0);
}

TEST_CASE("lora breakdown: shapes per architecture, dense leading layers, experts [HU21-4.1]", "[lora]") {
  using T = LoraTargets;
  // Llama-3-8B, r = 8, q and v: q_proj 4096 -> 4096, 32 matrices, 2,097,152; v_proj 4096 -> 1024, 1,310,720.
  const LoraParams qv = lora_params(test_models::llama3_8b(), T::qv, 8);
  REQUIRE(qv.matrices.size() == 2);
  CHECK(qv.matrices[0].name == "q_proj");
  CHECK(qv.matrices[0].d_in == 4096);
  CHECK(qv.matrices[0].d_out == 4096);
  CHECK(qv.matrices[0].matrices == 32);
  CHECK(qv.matrices[0].params == 2'097'152);
  CHECK(qv.matrices[1].name == "v_proj");
  CHECK(qv.matrices[1].d_out == 1024);
  CHECK(qv.matrices[1].params == 1'310'720);
  // r = 0 adapts nothing.
  CHECK(lora_params(test_models::llama3_8b(), T::all, 0).total == 0);

  // DeepSeek-V2-Lite: layer 0's dense MLP keeps d_ff; the 26 MoE layers hold 64 x 26 routed experts
  // (6 x 26 per token) and 2 x 26 shared experts, all of width 1408.
  const LoraParams ds = lora_params(deepseek_v2_lite(), T::all, 8);
  const LoraMatrix* gate = row_named(ds, "gate_proj");
  REQUIRE(gate != nullptr);
  CHECK(gate->d_out == 10'944);
  CHECK(gate->matrices == 1);
  const LoraMatrix* routed = row_named(ds, "experts.down_proj");
  REQUIRE(routed != nullptr);
  CHECK(routed->d_in == 1408);
  CHECK(routed->d_out == 2048);
  CHECK(routed->matrices == 1664);
  CHECK(routed->active_matrices == 156);
  const LoraMatrix* shared = row_named(ds, "shared_experts.up_proj");
  REQUIRE(shared != nullptr);
  CHECK(shared->matrices == 52);
  CHECK(shared->active_matrices == 52);
  CHECK(row_named(ds, "kv_b_proj")->d_in == 512);
  CHECK(row_named(ds, "kv_b_proj")->d_out == 4096);
  CHECK(row_named(ds, "k_proj") == nullptr);
  CHECK(row_named(ds, "router") == nullptr);  // the router is never adapted

  // Zero-computation experts hold no adapters: a token reaches k_e = k (1 - s) FFN experts, so the
  // active routed matrices are k_e x L_moe, rounded (DeepSeek-V2-Lite's 26 MoE layers with k = 12
  // and 32 zero experts: 8 x 26 at s = 1/3, 8.4 x 26 at s = 0.3, 12 x 26 at s = 0)  [LC25]
  ModelConfig zero = deepseek_v2_lite();
  zero.moe.top_k = 12;
  zero.moe.zero_experts = 32;
  for (const auto& [share, active] : {std::pair{1.0 / 3.0, 8 * 26}, std::pair{0.3, 218}, std::pair{0.0, 12 * 26}}) {
    CAPTURE(share);
    zero.moe.zero_share = share;
    const LoraParams lp = lora_params(zero, T::all, 8);
    const LoraMatrix* r = row_named(lp, "experts.up_proj");
    REQUIRE(r != nullptr);
    CHECK(r->matrices == 64 * 26);
    CHECK(r->active_matrices == active);  // 8.4 x 26 = 218.4 -> 218
  }

  // A plain MLP has no gate row, whatever the targets.
  const LoraParams gpt = lora_params(test_models::gpt3_175b(), T::gate | T::up, 8);
  REQUIRE(gpt.matrices.size() == 1);
  CHECK(gpt.matrices[0].name == "up_proj");
}

TEST_CASE("qlora NF4 bits per parameter with and without double quantisation [DE23-3]", "[lora]") {
  // Without double quantisation: 4 + 32/64 = 4.5 (one fp32 absmax per 64 weights).
  CHECK(nf4_bits_per_param(false) == 4.5);
  // With: 4 + 8/64 + 32/(64 x 256) = 4.126953125; DE23 §3 prints the constants' 0.127 bits per
  // parameter (from 0.5), a saving of 0.373.
  CHECK(nf4_bits_per_param(true) == 4.126953125);
  CHECK(rounded(nf4_bits_per_param(true) - 4.0, 3) == 0.127);
  CHECK(rounded(nf4_bits_per_param(false) - 4.0, 3) == 0.5);
  CHECK(rounded(nf4_bits_per_param(false) - nf4_bits_per_param(true), 3) == 0.373);
  CHECK(rounded(nf4_bits_per_param(true), 3) == 4.127);
}

TEST_CASE("qlora frozen base bytes: NF4 matrices inside the layers, 16-bit rest [DE23-3] [HU21-4.2]", "[lora]") {
  struct Row {
    ModelConfig model;
    double matrix_bits;
    std::int64_t quantised, other;
    double bytes;
    const char* why;
  };
  const double nf4 = nf4_bits_per_param(true);
  const Row rows[] = {
      // Llama-2-7B: matrices 32 x (4 x 4096^2 + 3 x 4096 x 11008) = 6,476,005,376 in NF4
      // (x 4.126953125/8 = 3,340,771,328 B); embedding + head 2 x 131,072,000 + norms 32 x 8192 + 4096
      // = 262,410,240 in bf16 (524,820,480 B): 3,865,591,808 B.
      {test_models::llama2_7b(), nf4, 6'476'005'376, 262'410'240, 3'865'591'808.0, "Llama-2-7B QLoRA"},
      // LoRA keeps the base in bf16: 2 x 6,738,415,616 = 13,476,831,232 B.
      {test_models::llama2_7b(), 16.0, 6'476'005'376, 262'410'240, 13'476'831'232.0, "Llama-2-7B LoRA bf16"},
      // Mixtral-8x7B: attention 41,943,040 + experts 1,409,286,144 a layer x 32 = 46,439,333,888 in NF4;
      // the router 32 x 32,768, norms 32 x 8192, embedding + head 262,144,000 and the final norm 4096
      // = 263,458,816 stay 16-bit.
      {mixtral_8x7b(), nf4, 46'439'333'888, 263'458'816, 46'439'333'888.0 * nf4 / 8.0 + 2.0 * 263'458'816.0,
       "Mixtral QLoRA: the router stays 16-bit"},
  };
  for (const Row& r : rows) {
    INFO(r.why);
    const ParamCounts c = count_params(r.model);
    const FrozenBaseBytes f = frozen_base_bytes(c, r.matrix_bits, 2.0);
    CHECK(f.quantised_params == r.quantised);
    CHECK(f.other_params == r.other);
    CHECK(f.quantised_params + f.other_params == c.total);
    CHECK(f.bytes.base() == r.bytes);
  }
  // HU21 §4.2: GPT-3 175B's frozen fp16 checkpoint is 350 GB (also the memory its LoRA training
  // takes, from 1.2 TB): 2 B x 174.6e9 = 349.2 GB.
  const FrozenBaseBytes gpt3 = frozen_base_bytes(count_params(test_models::gpt3_175b()), 16.0, 2.0);
  CHECK(rounded(gpt3.bytes.in(units::kGB) / 10.0, 0) * 10.0 == 350.0);
  // DE23 (abstract): a 65B model fine-tunes on one 48 GB GPU. LLaMA-65B's NF4 base: 64,760,053,760
  // matrix parameters x 4.126953125/8 + 525,606,912 x 2 = 34,458,927,104 B, 34.5 GB, leaving 13.5 GB.
  const FrozenBaseBytes l65 = frozen_base_bytes(count_params(llama_65b()), nf4, 2.0);
  CHECK(l65.quantised_params == 64'760'053'760);
  CHECK(l65.bytes.base() == 34'458'927'104.0);
  CHECK(l65.bytes < units::gb(48.0));
  // A model known by its count alone: every block parameter is a matrix.
  const FrozenBaseBytes n = frozen_base_bytes(counts_of_total(7'000'000'000), 4.0, 2.0);
  CHECK(n.quantised_params == 7'000'000'000);
  CHECK(n.other_params == 0);
  CHECK(n.bytes.base() == 3.5e9);
}

TEST_CASE("lora memory of a run: frozen base, adapter states, rank-r activations (derived) [DE23-3]", "[lora]") {
  // QLoRA on Llama-2-7B, r = 64, all linear layers, mixed-precision Adam on the adapters, s = 512, b = 1.
  const ModelConfig m = test_models::llama2_7b();
  const LoraParams p = lora_params(m, LoraTargets::all, 64);
  const FrozenBaseBytes base = frozen_base_bytes(count_params(m), nf4_bits_per_param(true), 2.0);
  const RecipeBytes& adam = recipe_bytes(OptimizerRecipe::mixed_adam);
  const LoraRunOptions o{.seq_len = 512,
                         .micro_batch = 1,
                         .bytes_per_element = 2,
                         .recompute = Recompute::none,
                         .weight_bytes = adam.weights,
                         .gradient_bytes = adam.gradients,
                         .optimizer_bytes = adam.optimizer};
  const ActivationOptions act{.seq_len = 512, .micro_batch = 1, .flash_attention = true};
  const units::Bytes base_act = model_layer_activations(m, act);
  const LoraMemory mem = lora_memory(base, p, o, base_act);
  // Base: 3,865,591,808 B (previous case). Adapters: 159,907,840 x 2 = 319,815,680 B each for the
  // weights and the gradients, x 12 = 1,918,894,080 B of optimizer states (16 B in all: 2,558,525,440).
  CHECK(mem.base_weights.base() == 3'865'591'808.0);
  CHECK(mem.adapter_weights.base() == 319'815'680.0);
  CHECK(mem.adapter_gradients.base() == 319'815'680.0);
  CHECK(mem.adapter_optimizer.base() == 1'918'894'080.0);
  // Activations: s b r e = 512 x 64 x 2 = 65,536 B per adapted matrix, 7 x 32 = 224 of them: 14,680,064 B.
  CHECK(mem.adapter_activations.base() == 14'680'064.0);
  CHECK(mem.base_activations == base_act);
  CHECK(mem.total().base() == 3'865'591'808.0 + 2'558'525'440.0 + 14'680'064.0 + base_act.base());
  // The defaults are mixed-precision Adam's 2 + 2 + 12.
  const LoraRunOptions defaults{};
  CHECK(defaults.weight_bytes + defaults.gradient_bytes + defaults.optimizer_bytes == adam.total());

  // MoE: the routed experts' intermediates exist for the top-k experts a token visits. Mixtral, r = 8,
  // all: 4 x 32 + 3 x 2 x 32 = 320 matrices; s = 4096, b = 2: 4096 x 2 x 8 x 2 x 320 = 41,943,040 B.
  const LoraParams mix = lora_params(mixtral_8x7b(), LoraTargets::all, 8);
  const LoraRunOptions long_seq{.seq_len = 4096, .micro_batch = 2};
  CHECK(mix.active_adapted_matrices == 320);
  CHECK(lora_adapter_activations(mix, long_seq).base() == 41'943'040.0);
  // Full recomputation recomputes them with the layer; selective recomputation keeps them.
  LoraRunOptions full = long_seq;
  full.recompute = Recompute::full;
  CHECK(lora_adapter_activations(mix, full).base() == 0.0);
  LoraRunOptions selective = long_seq;
  selective.recompute = Recompute::selective;
  CHECK(lora_adapter_activations(mix, selective).base() == 41'943'040.0);
}

TEST_CASE("lora FLOPs per token of a step: 4N + 6N_lora (derived) [HU21-4.2]", "[lora]") {
  // Llama-3-8B, N = 8e9, r = 8 on q, v: 4 x 8e9 + 6 x 3,407,872 = 32,020,447,232.
  CHECK(lora_training_flops_per_token(8e9, 3'407'872).base() == 32'020'447'232.0);
  // No adapter: the frozen forward and backward, 4N; an adapter as large as the model: 10N.
  CHECK(lora_training_flops_per_token(1e9, 0).base() == 4e9);
  CHECK(lora_training_flops_per_token(1e9, 1e9).base() == 10e9);
  // HU21 §4.2 measures a 25% throughput gain on GPT-3 175B over full fine-tuning; the FLOPs fall by
  // a third (4N + 6 x 18,874,368 against 6N: 0.66677), a bound the measured gain stays under.
  const double ratio = lora_training_flops_per_token(175e9, 18'874'368).base() / (6.0 * 175e9);
  CHECK(rounded(ratio, 4) == 0.6668);
  CHECK(1.0 / ratio > 1.25);
}

TEST_CASE(
    "lora over the layer stack: attention targets in attention layers, MLP targets in FFN layers (issue 22) "
    "[HU21-4.1]",
    "[lora][hybrid]") {
  // d = 8, h = 2, h_kv = 1, d_h = 4, gated d_ff = 6; layers: attention + MLP, Mamba-2 alone,
  // Mamba-2 + MLP. Rank 2, every target: one attention layer q 2 (8 + 8), k and v 2 (8 + 4), o
  // 2 (8 + 8) = 112; two MLPs of gate, up, down 2 (8 + 6) each = 168. The Mamba projections are not
  // targets; the FFN-less layer has none.
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
                     {.attention = false, .state = StateMixer::mamba2, .ffn = LayerFfn::dense}};
  const LoraTargets all = *parse_lora_targets("all");
  const LoraParams p = lora_params(m, all, 2);
  CHECK(p.total == 112 + 168);
  CHECK(p.adapted_matrices == 4 + 6);
  // Qwen3-Next's output gate makes q_proj 2 h d_h wide: q 2 (8 + 16) = 48, 16 more.
  m.hybrid.attn_output_gate = true;
  CHECK(lora_params(m, all, 2).total == 112 + 168 + 16);
}
