// Training memory, communication and compute: each row checks a figure derived by hand (in the
// comment) and, where a paper prints it, the paper's figure at its printed precision.
#include "roofline/training_memory.hpp"

#include "roofline/decode.hpp"
#include "roofline/misc.hpp"
#include "roofline/training.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "seed_models.hpp"

using namespace roofline;
using Catch::Matchers::WithinRel;

namespace {

double rounded(double v, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(v * scale) / scale;
}

}  // namespace

TEST_CASE("optimizer recipes: bytes per parameter of w, g and o [RA20-3.1] [DE22-2] [SS18-3]", "[training]") {
  struct Row {
    OptimizerRecipe id;
    double w, g, o, total;
    const char* why;
  };
  const Row rows[] = {
      {OptimizerRecipe::mixed_adam, 2, 2, 12, 16, "RA20 §3.1: 2 + 2 + K, K = 12 (fp32 master, m, v)"},
      {OptimizerRecipe::mixed_adam_fp32_grads, 2, 4, 12, 18, "fp32 gradients: 2 + 4 + 12"},
      {OptimizerRecipe::bf16_adam_fp32_master, 2, 2, 12, 16, "bf16 w, g; fp32 master 4 + fp32 m, v 8"},
      {OptimizerRecipe::bf16_adam, 2, 2, 4, 8, "pure bf16: bf16 m and v, no master"},
      // DE22 §2: two 1-byte states, one fp32 scale per 2048-element block: 2 (1 + 4/2048) = 2.00390625.
      {OptimizerRecipe::adam_8bit, 2, 2, 6.00390625, 10.00390625, "+ fp32 master 4"},
      {OptimizerRecipe::adam_8bit_no_master, 2, 2, 2.00390625, 6.00390625, "bf16 weights updated in place"},
      {OptimizerRecipe::sgd_momentum, 2, 2, 8, 12, "fp32 master 4 + fp32 momentum 4"},
      {OptimizerRecipe::adafactor_factored, 2, 2, 4, 8, "fp32 master; the factored v is O(r + c), neglected"},
  };
  for (const Row& r : rows) {
    INFO(r.why);
    const RecipeBytes& b = recipe_bytes(r.id);
    CHECK(b.id == r.id);
    CHECK(b.weights == r.w);
    CHECK(b.gradients == r.g);
    CHECK(b.optimizer == r.o);
    CHECK(b.total() == r.total);
    CHECK(recipe_named(b.name) == r.id);
  }
  CHECK(std::size(rows) == kOptimizerRecipes.size());
  CHECK_FALSE(recipe_named("adamw-16").has_value());
  // The table's default agrees with training.hpp's constants.
  CHECK(recipe_bytes(OptimizerRecipe::mixed_adam).total() == kMixedAdamBytesPerParam);
  CHECK(recipe_bytes(OptimizerRecipe::mixed_adam).optimizer == kMixedAdamOptimizerBytesPerParam);
  // DE22 §1: Adam's states take 8 GB per 1B parameters in 32 bits, 2 GB in 8 bits (2.0039 with scales).
  CHECK(rounded(blockwise_state_bytes(2, 4, 0, k8BitStateBlock) * 1e9 / units::kGB, 0) == 8.0);
  CHECK(rounded(blockwise_state_bytes(2, 1, 4, k8BitStateBlock) * 1e9 / units::kGB, 0) == 2.0);
}

TEST_CASE("Adafactor: the factored second moment is r + c per matrix [SS18-3]", "[training]") {
  // One Llama-3-8B layer: q, o 4096x4096 (r + c = 8192 each), k, v 1024x4096 (5120 each),
  // gate, up 14336x4096 and down 4096x14336 (18432 each): 16384 + 10240 + 55296 = 81,920 factored
  // values; the two RMSNorm gains (8,192) keep a full v. fp32: (81,920 + 8,192) x 4 = 360,448 B.
  const MatrixShape layer[] = {{4096, 4096, 2}, {1024, 4096, 2}, {14336, 4096, 2}, {4096, 14336, 1}};
  CHECK(adafactor_state_bytes(layer, 8192, 4.0, 0.0).base() == 360'448.0);
  // With a bf16 first moment (beta1 > 0) over all 218,112,000 parameters: + 436,224,000 B.
  CHECK(adafactor_state_bytes(layer, 8192, 4.0, 2.0).base() == 360'448.0 + 436'224'000.0);
  // Against Adam's fp32 m and v (8 B x 218,112,000 = 1,744,896,000 B) the factored v is 0.02 %.
  CHECK(adafactor_state_bytes(layer, 8192, 4.0, 0.0).base() / (8.0 * 218'112'000.0) < 2.1e-4);
}

TEST_CASE("ZeRO model states per device: the paper's Figure 1 [RA20-5] [RA20-Fig1]", "[training]") {
  // Psi = 7.5e9, N_d = 64, K = 12.
  const RecipeBytes& adam = recipe_bytes(OptimizerRecipe::mixed_adam);
  const double psi = 7.5e9;
  // Baseline: 16 Psi = 120e9.
  const ModelStateBytes base = zero_model_states(psi, adam, ZeroStage::none, 64);
  CHECK(base.weights.base() == 15e9);
  CHECK(base.gradients.base() == 15e9);
  CHECK(base.optimizer.base() == 90e9);
  CHECK(base.total().base() == 120e9);
  // P_os: 2 Psi + 2 Psi + 12 Psi/64 = 30e9 + 1.40625e9 = 31.40625e9 (printed 31.4 GB).
  const ModelStateBytes os = zero_model_states(psi, adam, ZeroStage::os, 64);
  CHECK(os.optimizer.base() == 1.40625e9);
  CHECK(os.total().base() == 31.40625e9);
  CHECK(rounded(os.total().in(units::kGB), 1) == 31.4);
  // P_os+g: 2 Psi + 14 Psi/64 = 15e9 + 1.640625e9 = 16.640625e9 (printed 16.6 GB).
  const ModelStateBytes osg = zero_model_states(psi, adam, ZeroStage::os_g, 64);
  CHECK(osg.gradients.base() == 0.234375e9);
  CHECK(osg.total().base() == 16.640625e9);
  CHECK(rounded(osg.total().in(units::kGB), 1) == 16.6);
  // P_os+g+p: 16 Psi/64 = 1.875e9 (Figure 1 prints 1.9 GB; Table 1 prints 1.88).
  const ModelStateBytes all = zero_model_states(psi, adam, ZeroStage::os_g_p, 64);
  CHECK(all.weights.base() == 0.234375e9);
  CHECK(all.total().base() == 1.875e9);
  CHECK(rounded(all.total().in(units::kGB), 1) == 1.9);
  CHECK(rounded(all.total().in(units::kGB), 2) == 1.88);
}

TEST_CASE("ZeRO model states per device: the paper's Table 1 [RA20-T1]", "[training]") {
  // Exact values: os = 4 Psi + 12 Psi/N, os+g = 2 Psi + 14 Psi/N, os+g+p = 16 Psi/N (GB, Psi in 1e9).
  // `printed` checks the cells whose printed figure was verified (-1: exact value only).
  struct Row {
    double psi, n, os, osg, osgp, printed_os, printed_osg, printed_osgp;
  };
  const Row rows[] = {
      {7.5, 1, 120, 120, 120, 120, 120, 120},
      {7.5, 4, 52.5, 41.25, 30, -1, -1, 30},
      {7.5, 16, 35.625, 21.5625, 7.5, -1, 21.6, -1},
      {7.5, 64, 31.40625, 16.640625, 1.875, 31.4, 16.6, -1},
      {7.5, 256, 30.3515625, 15.41015625, 0.46875, -1, -1, -1},
      {7.5, 1024, 30.087890625, 15.1025390625, 0.1171875, -1, -1, -1},
      {128, 1, 2048, 2048, 2048, -1, -1, -1},
      {128, 4, 896, 704, 512, -1, -1, -1},
      {128, 16, 608, 368, 128, -1, -1, -1},
      {128, 64, 536, 284, 32, -1, -1, 32},
      {128, 256, 518, 263, 8, -1, -1, -1},
      {128, 1024, 513.5, 257.75, 2, -1, -1, -1},
      {1000, 1, 16000, 16000, 16000, -1, -1, -1},
      {1000, 4, 7000, 5500, 4000, -1, -1, -1},
      {1000, 16, 4750, 2875, 1000, -1, -1, -1},
      {1000, 64, 4187.5, 2218.75, 250, -1, -1, -1},
      {1000, 256, 4046.875, 2054.6875, 62.5, -1, -1, -1},
      {1000, 1024, 4011.71875, 2013.671875, 15.625, -1, -1, 15.6},
  };
  const RecipeBytes& adam = recipe_bytes(OptimizerRecipe::mixed_adam);
  for (const Row& r : rows) {
    INFO("Psi = " << r.psi << "e9, N_d = " << r.n);
    const double os = zero_model_states(r.psi * 1e9, adam, ZeroStage::os, r.n).total().in(units::kGB);
    const double osg = zero_model_states(r.psi * 1e9, adam, ZeroStage::os_g, r.n).total().in(units::kGB);
    const double osgp = zero_model_states(r.psi * 1e9, adam, ZeroStage::os_g_p, r.n).total().in(units::kGB);
    CHECK_THAT(os, WithinRel(r.os, 1e-15));
    CHECK_THAT(osg, WithinRel(r.osg, 1e-15));
    CHECK_THAT(osgp, WithinRel(r.osgp, 1e-15));
    if (r.printed_os >= 0) CHECK(rounded(os, 1) == r.printed_os);
    if (r.printed_osg >= 0) CHECK(rounded(osg, 1) == r.printed_osg);
    if (r.printed_osgp >= 0) CHECK(rounded(osgp, 1) == r.printed_osgp);
  }
}

TEST_CASE("FSDP sharding strategies name ZeRO stages [ZH23]", "[training]") {
  CHECK(fsdp_strategy("full-shard")->stage == ZeroStage::os_g_p);
  CHECK(fsdp_strategy("shard-grad-op")->stage == ZeroStage::os_g);
  CHECK(fsdp_strategy("no-shard")->stage == ZeroStage::none);
  const auto hybrid = fsdp_strategy("hybrid");
  REQUIRE(hybrid);
  CHECK(hybrid->stage == ZeroStage::os_g_p);
  CHECK(hybrid->node_group);
  CHECK(hybrid->torch == "HYBRID_SHARD");
  CHECK_FALSE(fsdp_strategy("full_shard").has_value());
}

TEST_CASE("parameters per device under tensor and pipeline parallelism: Llama-3-8B [NA21-2] [SH19-3]", "[training]") {
  // Llama-3-8B: per layer 218,112,000 = 218,103,808 in matrices + 8,192 in the two RMSNorm gains;
  // embedding = lm_head = 128,256 x 4096 = 525,336,576; final norm 4,096; total 8,030,261,248.
  const ParamCounts c = count_params(test_models::llama3_8b());
  REQUIRE(c.total == 8'030'261'248);
  // t = p = 1: the whole model.
  const DeviceParams one = params_per_device(c, {});
  CHECK(one.first_stage == 8'030'261'248.0);
  CHECK(one.most_loaded() == 8'030'261'248.0);
  // t = 8, p = 1: 32 x (218,103,808/8 + 8,192) = 32 x 27,271,168 = 872,677,376, + 2 x 65,667,072
  // (table and head, vocab-parallel) + 4,096 = 1,004,015,616.
  const DeviceParams t8 = params_per_device(c, {.tensor = 8});
  CHECK(t8.first_stage == 1'004'015'616.0);
  CHECK(t8.last_stage == 1'004'015'616.0);
  // t = 8, p = 4: 8 layers a stage, 8 x 27,271,168 = 218,169,344. First: + 65,667,072 = 283,836,416;
  // last: + 65,667,072 + 4,096 = 283,840,512, the most loaded.
  const DeviceParams t8p4 = params_per_device(c, {.tensor = 8, .pipeline = 4});
  CHECK(t8p4.first_stage == 283'836'416.0);
  CHECK(t8p4.last_stage == 283'840'512.0);
  CHECK(t8p4.most_loaded() == 283'840'512.0);
  // Expert parallelism leaves a dense model unchanged.
  CHECK(params_per_device(c, {.tensor = 8, .pipeline = 4, .expert = 8}).last_stage == 283'840'512.0);
}

TEST_CASE("balanced pipeline stages: the extra layers on the middle stages [DU24-3.3.2]", "[training]") {
  struct Row {
    std::int64_t layers, p;
    std::vector<std::int64_t> want;
    const char* why;
  };
  const std::vector<Row> rows = {
      {126, 16, {7, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 7}, "Llama 3 405B: one layer fewer on each end"},
      {32, 4, {8, 8, 8, 8}, "p divides L: equal stages"},
      {33, 2, {17, 16}, "r = p - 1 with no middle stage: the first takes it"},
      {10, 4, {2, 3, 3, 2}, "r = 2 = the middle stages"},
      {11, 4, {3, 3, 3, 2}, "r = 3 = p - 1: the middle ones, then the first"},
      {5, 5, {1, 1, 1, 1, 1}, "one layer a stage"},
  };
  for (const Row& r : rows) {
    INFO(r.why);
    CHECK(balanced_stage_layers(r.layers, r.p) == r.want);
  }
}

TEST_CASE("stage imbalance: the slowest stage over the mean [DU24-3.3.2]", "[training]") {
  // (1, 1, 1, 1): 1; (7, 8, 8, 7) -> 8 / 7.5; (2, 2, 2, 4) -> 4 / 2.5 = 1.6.
  const std::vector<double> even = {1.0, 1.0, 1.0, 1.0};
  const std::vector<double> ends = {7.0, 8.0, 8.0, 7.0};
  const std::vector<double> head = {2.0, 2.0, 2.0, 4.0};
  CHECK(stage_imbalance(even) == 1.0);
  CHECK(stage_imbalance(ends) == 8.0 / 7.5);
  CHECK(stage_imbalance(head) == 1.6);
  CHECK(stage_imbalance(std::vector<double>{}) == 1.0);
}

TEST_CASE("parameters per device: uneven stages, the largest middle stage binds [NA21-2] [DU24-3.3.2]", "[training]") {
  // Llama-3-8B at t = 8, stages (7, 9, 9, 7): a layer is 27,271,168 a device. First: 7 layers
  // 190,898,176 + the table 65,667,072 = 256,565,248; middle: 9 layers = 245,440,512; last: 7 layers
  // + head 65,667,072 + norm 4,096 = 256,569,344. Stages (6, 10, 10, 6): middle 272,711,680 binds.
  const ParamCounts c = count_params(test_models::llama3_8b());
  const std::vector<std::int64_t> a = {7, 9, 9, 7};
  const DeviceParams d = params_per_device(c, {.tensor = 8, .pipeline = 4, .stage_layers = a});
  CHECK(d.first_stage == 256'565'248.0);
  CHECK(d.middle_stage == 245'440'512.0);
  CHECK(d.last_stage == 256'569'344.0);
  CHECK(d.most_loaded() == 256'569'344.0);
  const std::vector<std::int64_t> b = {6, 10, 10, 6};
  CHECK(params_per_device(c, {.tensor = 8, .pipeline = 4, .stage_layers = b}).most_loaded() == 272'711'680.0);
  // Equal stages given as a list agree with the default.
  const std::vector<std::int64_t> even = {8, 8, 8, 8};
  CHECK(params_per_device(c, {.tensor = 8, .pipeline = 4, .stage_layers = even}).last_stage == 283'840'512.0);
}

TEST_CASE("ring attention: K, V blocks, sends per layer and the overlap [LI23-3]", "[training]") {
  // Llama-3-8B at s = 8192, c = 2, t = 8: (8192/2) x 1 x (1024 + 1024) x 2 / 8 = 2,097,152 B.
  CHECK(cp_kv_block_bytes(4096.0, 1.0, 2048.0, 2.0, 1.0 / 8.0).base() == 2'097'152.0);
  CHECK(cp_ring_sends(2.0, false) == 3.0);
  CHECK(cp_ring_sends(16.0, false) == 45.0);
  CHECK(cp_ring_sends(16.0, true) == 60.0);
  CHECK(cp_ring_sends(1.0, false) == 0.0);
  CHECK(cp_exposed_time(units::Seconds{0.6}, units::Seconds{2.2}).base() == 0.0);
  CHECK(cp_exposed_time(units::Seconds{3.0}, units::Seconds{2.0}).base() == 1.0);
}

TEST_CASE("ring attention in a prefill: blocks a rank receives and the floor [LI23-3]", "[training][prefill]") {
  struct Row {
    double c, local, window, blocks;
  };
  // No window: every other rank's block, c - 1. A window of W tokens reaches back at most
  // ceil(W / (s/c)) blocks: W = 4096 over blocks of 16,384 tokens needs 1; 40,000 needs 3 (of 7).
  const Row rows[] = {{8, 16384, 0, 7},     {8, 16384, 4096, 1}, {8, 16384, 16384, 1}, {8, 16384, 16385, 2},
                      {8, 16384, 40000, 3}, {8, 1024, 1e6, 7},   {2, 4096, 0, 1},      {1, 8192, 0, 0}};
  for (const Row& r : rows) {
    INFO("c " << r.c << ", s/c " << r.local << ", W " << r.window);
    CHECK(cp_prefill_blocks(r.c, r.local, r.window) == r.blocks);
  }
  // The floor: the rank's larger side plus what the ring leaves exposed.
  CHECK(cp_prefill_floor(units::Seconds{1.6}, units::Seconds{0.006}, units::Seconds{0.0}).base() == 1.6);
  CHECK(cp_prefill_floor(units::Seconds{0.0625}, units::Seconds{0.125}, units::Seconds{0.5}).base() == 0.625);
}

TEST_CASE("parameters per device: a tied head is copied to the last stage; GPT-3 [NA21-2]", "[training]") {
  // GPT-3 175B, t = 8, p = 8: per layer 12 d^2 = 1,811,939,328 in matrices (/8 = 226,492,416), biases
  // 9d = 110,592 and LayerNorm 4d = 49,152 replicated: 226,652,160; 12 layers = 2,719,825,920.
  // First: + 50,257 x 12,288 / 8 = 77,194,752 + positions 2048 x 12,288 = 25,165,824 -> 2,822,186,496.
  // Last: + final LayerNorm 24,576 + the tied table's copy 77,194,752 -> 2,797,045,248.
  const ParamCounts c = count_params(test_models::gpt3_175b());
  const DeviceParams d = params_per_device(c, {.tensor = 8, .pipeline = 8});
  CHECK(d.first_stage == 2'822'186'496.0);
  CHECK(d.last_stage == 2'797'045'248.0);
  CHECK(d.most_loaded() == 2'822'186'496.0);
}

TEST_CASE("parameters per device: routed experts divide by e, the router is replicated [NA21-2]", "[training]") {
  // A hand-built MoE kind of 4 layers: q_proj 100 (/t), experts 800 (/(e t)), router 40 and norms 8
  // (replicated). t = 2, e = 4: 50 + 100 + 40 + 8 = 198 a layer; p = 2: 2 layers = 396 a stage.
  ParamCounts c;
  LayerKindParams k;
  k.moe = true;
  k.n_layers = 4;
  k.parts = {{"q_proj", 100, 100, true}, {"experts", 800, 200, true}, {"router", 40, 40, true}, {"norms", 8, 8, false}};
  c.layer_kinds = {k};
  c.embedding = 64;
  c.lm_head = 64;
  c.head_matmul = 64;
  c.final_norm = 2;
  // First: 396 + 64/2 = 428; last: 396 + 2 + 64/2 = 430.
  const DeviceParams d = params_per_device(c, {.tensor = 2, .pipeline = 2, .expert = 4});
  CHECK(d.first_stage == 428.0);
  CHECK(d.last_stage == 430.0);
  // Serving keeps experts whole (t_e = 1): 800 / 4 = 200 a layer, 50 + 200 + 40 + 8 = 298, x 2 + 32 = 628
  // first; and a decode step reading a quarter of them: 50 + 50 + 48 = 148, x 2 + 32 = 328.
  CHECK(params_per_device(c, {.tensor = 2, .pipeline = 2, .expert = 4, .expert_tensor = 1}).first_stage == 628.0);
  CHECK(params_per_device(c, {.tensor = 2, .pipeline = 2, .expert = 4, .expert_tensor = 1, .expert_share = 0.25})
            .first_stage == 328.0);
  // A count alone (counts_of_total): blocks spread over t p devices.
  CHECK(params_per_device(counts_of_total(8'000), {.tensor = 2, .pipeline = 4}).most_loaded() == 1'000.0);
}

TEST_CASE("communication: ring all-reduce, ZeRO-3, tensor parallelism, time [PY09-3] [RA20-7] [KO22-4.2.2]",
          "[training]") {
  // Psi = 7.5e9 bf16 gradients (15e9 B), N_d = 64: 2 x 63/64 x 15e9 = 29.53125e9 B per device.
  CHECK(dp_gradient_allreduce_bytes(7.5e9, 2.0, 64).base() == 29.53125e9);
  // ZeRO-3: 1.5 x = 44.296875e9 B.
  CHECK(zero3_step_bytes(7.5e9, 2.0, 64).base() == 44.296875e9);
  // In elements and as N_d grows, the ring volumes tend to RA20 §7's 2 Psi and 3 Psi.
  CHECK_THAT(dp_gradient_allreduce_bytes(7.5e9, 1.0, 1e12).base(), WithinRel(dp_allreduce_volume(7.5e9), 1e-11));
  CHECK_THAT(zero3_step_bytes(7.5e9, 1.0, 1e12).base(), WithinRel(zero3_comm_volume(7.5e9), 1e-11));
  // One device: nothing moves.
  CHECK(ring_allreduce_bytes(units::Bytes{1e9}, 1).base() == 0.0);
  // Reduce-scatter + all-gather move what one all-reduce moves (KO22 §4.2.2).
  CHECK(2.0 * ring_reduce_scatter_bytes(units::Bytes{1e9}, 8).base() ==
        ring_allreduce_bytes(units::Bytes{1e9}, 8).base());
  // Llama-2-70B layer, s = 2048, b = 1, h = 8192, bf16, t = 8: s b h b_a = 33,554,432 B; all-reduce
  // 2 x 7/8 = 1.75 x -> 58,720,256 B; 4 per layer -> 234,881,024 B.
  const units::Bytes tp = tp_bytes_per_layer(2048, 1, 8192, 2.0, 8);
  CHECK(tp.base() == 234'881'024.0);
  // Over 450 GB/s per direction: 234,881,024 / 450e9 = 521.96 us.
  CHECK_THAT(comm_time(tp, units::gb_per_s(450)).base(), WithinRel(234'881'024.0 / 450e9, 1e-15));
}

TEST_CASE("pipeline bubble: (p - 1)/m of ideal time, (p - 1)/(m + p - 1) of the step [NA21-2.2]", "[training]") {
  // p = 8, m = 32: 7/32 = 0.21875 over ideal, 7/39 of the step; interleaved v = 2: 7/64.
  CHECK(pipeline_bubble_overhead(8, 32, 1) == 0.21875);
  CHECK(pipeline_bubble_fraction(8, 32, 1) == 7.0 / 39.0);
  CHECK(pipeline_bubble_overhead(8, 32, 2) == 0.109375);
  CHECK(pipeline_bubble_fraction(8, 32, 2) == 7.0 / 71.0);
  // No pipeline, no bubble.
  CHECK(pipeline_bubble_fraction(1, 32, 1) == 0.0);
}

TEST_CASE("Megatron FLOPs per iteration, 72 and 96 forms [NA21-5.1] [SM22-2.4]", "[training]") {
  // NA21 Table 1's 1T configuration: B = 3072, s = 2048, L = 128, h = 25600, V = 51200.
  // 96 B s L h^2 = 96 x 3072 x 2048 x 128 x 655,360,000 = 50,665,495,807,918,080,000; the bracket
  // 1 + 2048/153,600 + 51,200/52,428,800 = 1 + 1/75 + 1/1024 -> 51,390,513,775,273,574,400 FLOP.
  CHECK_THAT(megatron_flops_per_iteration(3072, 2048, 128, 25600, 51200, true).base(),
             WithinRel(51'390'513'775'273'574'400.0, 1e-15));
  // Without recomputation: 72 B s L h^2 (1 + 1/75 + 51,200/39,321,600) = 38,555,254,837,267,660,800.
  CHECK_THAT(megatron_flops_per_iteration(3072, 2048, 128, 25600, 51200, false).base(),
             WithinRel(38'555'254'837'267'660'800.0, 1e-15));
  // SM22 §2.4 (MT-NLG 530B: L = 105, h = 20480, V = 50272, s = 2048, B = 1920, full recomputation):
  // F = 16,925,983,359,211,929,600; 60.1 s on 2240 GPUs -> 125.73 (printed 126) TFLOP/s per GPU;
  // 44.4 s on 3360 -> 113.46 (printed 113); 50.2 s on 2800 -> 120.42, printed 121 (0.5 % apart).
  const units::Flop f = megatron_flops_per_iteration(1920, 2048, 105, 20480, 50272, true);
  CHECK_THAT(f.base(), WithinRel(16'925'983'359'211'929'600.0, 1e-15));
  CHECK(std::round(f.base() / 60.1 / 2240 / 1e12) == 126.0);
  CHECK(std::round(f.base() / 44.4 / 3360 / 1e12) == 113.0);
  CHECK_THAT(f.base() / 50.2 / 2800 / 1e12, WithinRel(121.0, 0.005));
}

TEST_CASE("ZeRO-3 live buffers: the largest unit gathered with one prefetched, its gradients whole [ZH23-3.2]",
          "[training]") {
  // Llama-2-7B: a layer is 4 x 4096^2 + 3 x 4096 x 11008 + 2 x 4096 = 202,383,360 parameters, larger than
  // the 32,000 x 4,096 = 131,072,000 embedding; with t = 8 the layer's matrices split and its norms do
  // not: 202,375,168 / 8 + 8,192 = 25,305,088, still above the embedding's 131,072,000 / 8 = 16,384,000.
  const ParamCounts c = count_params(test_models::llama2_7b());
  struct Row {
    std::int64_t t;
    double unit;
    const char* why;
  };
  const Row rows[] = {{1, 202'383'360.0, "a whole layer"}, {8, 25'305'088.0, "a layer's matrices / 8 + its norms"}};
  for (const Row& r : rows) {
    INFO(r.why);
    CHECK(largest_unit_params(c, {.tensor = r.t}) == r.unit);
  }
  // (1 + f) Psi_unit w + Psi_unit g with f = 1, w = g = 2: 809,533,440 + 404,766,720 B.
  const Zero3LiveBytes live = zero3_live_bytes(202'383'360.0, 2.0, 2.0, 1.0);
  CHECK(live.gathered_params.base() == 809'533'440.0);
  CHECK(live.unsharded_grads.base() == 404'766'720.0);
  CHECK(live.total().base() == 1'214'300'160.0);
  // A model whose embedding outweighs a layer: Llama-3-8B, 128,256 x 4,096 = 525,336,576 > 218,112,000.
  CHECK(largest_unit_params(count_params(test_models::llama3_8b()), {}) == 525'336'576.0);
}

TEST_CASE("the optimizer step: bytes it moves and its fp32 gradient copy [RA20-3.1] [MI18-3]", "[training]") {
  struct Row {
    OptimizerRecipe recipe;
    double bytes_per_param;  // g + 2 o + w
    double temporary_per_param;
    const char* why;
  };
  const Row rows[] = {
      {OptimizerRecipe::mixed_adam, 2 + 24 + 2, 4, "read g 2 and o 12, write o 12 and w 2; fp32 copy of g"},
      {OptimizerRecipe::mixed_adam_fp32_grads, 4 + 24 + 2, 0, "gradients already fp32: no copy"},
      {OptimizerRecipe::bf16_adam, 2 + 8 + 2, 0, "no fp32 master: the update runs in bf16"},
      {OptimizerRecipe::sgd_momentum, 2 + 16 + 2, 4, "fp32 master and momentum"},
  };
  const double psi = 1'003'782'656.0;  // Llama-3-8B / 8 under ZeRO-1
  for (const Row& r : rows) {
    INFO(r.why);
    const RecipeBytes& b = recipe_bytes(r.recipe);
    CHECK(optimizer_step_bytes(psi, b.weights, b.gradients, b.optimizer).base() == psi * r.bytes_per_param);
    CHECK(optimizer_step_temporary_bytes(psi, b.gradients, b.fp32_master).base() == psi * r.temporary_per_param);
  }
  CHECK(optimizer_step_bytes(psi, 2, 2, 12).base() == 28'105'914'368.0);
}

TEST_CASE("pipeline sends and expert all-to-all per step [NA21-4.1] [LE21]", "[training]") {
  // 2 v m s b h e / split: Llama-3-70B, s = 8192, b = 1, m = 8, bf16.
  CHECK(pp_p2p_bytes(8192, 1, 8192, 2, 8, 1, 1).base() == 2.0 * 8 * 8192 * 8192 * 2);
  CHECK(pp_p2p_bytes(8192, 1, 8192, 2, 8, 2, 8).base() == 2.0 * 2 * 8 * 8192 * 8192 * 2 / 8);
  // 4 k s b h e (e_p - 1)/e_p: Mixtral, k = 2, s = 4096, h = 4096, bf16, e_p = 8: 234,881,024 B a layer.
  CHECK(ep_alltoall_bytes_per_layer(4096, 1, 2, 4096, 2, 8).base() == 234'881'024.0);
  CHECK(ep_alltoall_bytes_per_layer(4096, 1, 2, 4096, 2, 1).base() == 0.0);  // one rank: nothing leaves
}

TEST_CASE("the data-parallel batch where communication stops hiding [RA20-7]", "[training]") {
  using units::Seconds;
  struct Row {
    double batch, dp, backward, bound;
    const char* why;
  };
  const Row rows[] = {
      {16, 0.5, 1.0, 8, "the all-reduce takes half the backward: half the batch still hides it"},
      {16, 1.5, 1.0, 24, "the all-reduce outlasts the backward: 1.5x the batch to hide it"},
      {4, 0.25, 0.25, 4, "at the bound already"},
  };
  for (const Row& r : rows) {
    INFO(r.why);
    CHECK_THAT(dp_comm_bound_batch(r.batch, Seconds{r.dp}, Seconds{r.backward}), WithinRel(r.bound, 1e-12));
    // At the bound the backward (linear in the batch) equals t_DP: nothing is exposed, and any
    // smaller batch exposes the difference.
    const double scale = r.bound / r.batch;
    CHECK(exposed_comm_time(Seconds{}, Seconds{r.dp}, Seconds{r.backward * scale}).base() == 0.0);
    CHECK(exposed_comm_time(Seconds{}, Seconds{r.dp}, Seconds{r.backward * scale * 0.99}).base() > 0.0);
  }
}

TEST_CASE("what overlaps: exposed communication and the step-time floor [NA21-2.2] [NA21-2.3] [RA20-7]", "[training]") {
  using units::Seconds;
  struct Row {
    double critical, dp, backward, exposed;
    const char* why;
  };
  const Row rows[] = {
      {0.2, 0.5, 1.0, 0.2, "the all-reduce fits behind the backward: only TP/EP/PP show"},
      {0.2, 1.5, 1.0, 0.7, "the all-reduce outlasts the backward by 0.5 s"},
      {0.0, 0.0, 0.0, 0.0, "nothing to send"},
  };
  for (const Row& r : rows) {
    INFO(r.why);
    CHECK_THAT(exposed_comm_time(Seconds{r.critical}, Seconds{r.dp}, Seconds{r.backward}).base(),
               WithinRel(r.exposed, 1e-12));
  }
  // 1.5 s of compute, a 3/16 bubble overhead (p = 4, v = 1, m = 16), 0.2 s exposed, 10 ms optimizer:
  // 1.5 x 1.1875 + 0.2 + 0.01 = 1.99125 s.
  CHECK_THAT(step_time_floor(Seconds{1.5}, pipeline_bubble_overhead(4, 16, 1), Seconds{0.2}, Seconds{0.01}).base(),
             WithinRel(1.99125, 1e-12));
}
