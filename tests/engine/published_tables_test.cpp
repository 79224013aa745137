// Published training tables reproduced by the engine: Korthikanti et al.'s Tables 2, 3 and 5 with
// §4.3, §5, §6 and Appendices A-B [KO22]; PaLM's MFU and HFU (§4.1, Table 3, Appendix B and its
// Table 22) [CH22]; Megatron-LM's Table 1 and §5.1 [NA21]. A figure the paper prints is checked at
// its printed precision; a figure marked "derived" is not printed and was worked by hand from the
// paper's inputs. The e2e twins (the same rows through `roofline train`) are the `e2e.published_*`
// cases at the end of tests/e2e/CMakeLists.txt.
#include "roofline/activations.hpp"
#include "roofline/params.hpp"
#include "roofline/training.hpp"
#include "roofline/training_memory.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>

#include "seed_models.hpp"

using namespace roofline;
using Catch::Matchers::WithinRel;

namespace {

double rounded(double v, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(v * scale) / scale;
}

double truncated(double v, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::floor(v * scale) / scale;
}

// A printed figure computed from printed inputs: it must lie between the values the inputs' own
// rounding allows (lo, hi in either order), widened by half a unit of the figure's last digit.
bool within_printed(double printed, double a, double b, double half_unit) {
  return printed >= std::min(a, b) - half_unit && printed <= std::max(a, b) + half_unit;
}

// The GPT layer of KO22 §3 and NA21 §5.1: MHA, a plain GeLU MLP of width 4h, two LayerNorms,
// biases, learned positions (s = 2048), tied head, V = 51,200.
ModelConfig megatron_gpt(std::int64_t layers, std::int64_t hidden, std::int64_t heads) {
  ModelConfig m = test_models::gpt3_175b();
  m.name = "megatron-gpt";
  m.n_layers = layers;
  m.d_model = hidden;
  m.n_heads = heads;
  m.n_kv_heads = heads;
  m.head_dim = hidden / heads;
  m.d_ff = 4 * hidden;
  m.vocab_size = 51'200;
  return m;
}

// KO22 Table 3 ("Model configurations used during evaluation"); §6: s = 2048, v = 51,200 for all,
// no data parallelism. A100 80GB, 312 TFLOP/s dense fp16/bf16 (NA21 §5 prints the same peak).
struct Ko22Config {
  const char* name;
  double a, h, L, t, p, gpus, global_batch, micro_batch;
};
constexpr Ko22Config kKo22[] = {
    {"22B", 64, 6144, 48, 8, 1, 8, 4, 4},
    {"175B (GPT-3)", 96, 12288, 96, 8, 8, 64, 64, 1},
    {"530B (MT-NLG)", 128, 20480, 105, 8, 35, 280, 280, 1},
    {"1T", 160, 25600, 128, 8, 64, 512, 512, 1},
};
constexpr double kKo22Seq = 2048.0;
constexpr double kKo22Vocab = 51'200.0;
constexpr double kA100Peak = 312e12;

// 5as/h from the engine's no-parallelism form: sbh (34 + 5as/h) / sbh - 34.
double ko22_attention_term(const Ko22Config& c) {
  return ko22_layer_activations(kKo22Seq, 1.0, c.h, c.a).base() / (kKo22Seq * c.h) - 34.0;
}

}  // namespace

TEST_CASE("published: KO22 Table 3 configurations under the six Table 2 forms [KO22 Table 2] [KO22 Table 3]",
          "[published]") {
  // Bytes per layer, micro-batch b of Table 3, t = 8. sbh = s b h; coefficients from Table 2.
  struct Row {
    double none, tp, tp_sp, tp_sel, tp_sp_sel, full;
  };
  const Row rows[] = {
      // 22B: sbh = 2048 x 4 x 6144 = 50,331,648; 5as/h = 320/3. none sbh (34 + 320/3) = 16,777,216 x 422;
      // tp sbh (13 + 40/3) = 16,777,216 x 79; tp+sp sbh (4.25 + 40/3) = 4,194,304 x 211; sbh x 13, x 4.25, x 2.
      {7'079'985'152, 1'325'400'064, 884'998'144, 654'311'424, 213'909'504, 100'663'296},
      // 175B: sbh = 25,165,824; 5as/h = 80: x 114, x 23, x 14.25, x 13, x 4.25, x 2.
      {2'868'903'936, 578'813'952, 358'612'992, 327'155'712, 106'954'752, 50'331'648},
      // 530B: sbh = 41,943,040; 5as/h = 64: x 98, x 21, x 12.25, x 13, x 4.25, x 2.
      {4'110'417'920, 880'803'840, 513'802'240, 545'259'520, 178'257'920, 83'886'080},
      // 1T: sbh = 52,428,800; 5as/h = 64: x 98, x 21, x 12.25, x 13, x 4.25, x 2.
      {5'138'022'400, 1'101'004'800, 642'252'800, 681'574'400, 222'822'400, 104'857'600},
  };
  for (std::size_t i = 0; i < std::size(kKo22); ++i) {
    const Ko22Config& c = kKo22[i];
    const Row& r = rows[i];
    const double s = kKo22Seq, b = c.micro_batch;
    INFO(c.name);
    CHECK_THAT(ko22_layer_activations(s, b, c.h, c.a).base(), WithinRel(r.none, 1e-12));
    CHECK_THAT(ko22_layer_activations_tp(s, b, c.h, c.a, c.t).base(), WithinRel(r.tp, 1e-12));
    CHECK_THAT(ko22_layer_activations_tp_sp(s, b, c.h, c.a, c.t).base(), WithinRel(r.tp_sp, 1e-12));
    CHECK_THAT(ko22_layer_activations_tp_selective(s, b, c.h, c.t).base(), WithinRel(r.tp_sel, 1e-12));
    CHECK_THAT(ko22_layer_activations_tp_sp_selective(s, b, c.h, c.t).base(), WithinRel(r.tp_sp_sel, 1e-12));
    CHECK_THAT(ko22_layer_activations_full_recompute(s, b, c.h).base(), WithinRel(r.full, 1e-12));
  }

  // Table 3's "Model Size" column against count_params on the §3 GPT layer (NA21 eq. 2 plus the final
  // LayerNorm's 2h): 22,074,273,792 -> 22B; 174,615,846,912 -> 175B; 529,600,819,200 -> 530B;
  // 1,008,038,758,400 -> 1T.
  const auto size = [](const Ko22Config& c) {
    return static_cast<double>(count_params(megatron_gpt(static_cast<std::int64_t>(c.L), static_cast<std::int64_t>(c.h),
                                                         static_cast<std::int64_t>(c.a)))
                                   .total);
  };
  CHECK(size(kKo22[0]) == 22'074'273'792.0);
  CHECK(std::round(size(kKo22[0]) / 1e9) == 22.0);
  CHECK(std::round(size(kKo22[1]) / 1e9) == 175.0);
  CHECK(std::round(size(kKo22[2]) / 1e9) == 530.0);
  CHECK(std::round(size(kKo22[3]) / 1e12) == 1.0);
}

TEST_CASE(
    "published: KO22 §5: 5as/h = 80 (GPT-3) and 64 (MT-NLG), selective recomputation saves 70 % and 65 % [KO22 §5]",
    "[published]") {
  const Ko22Config& gpt3 = kKo22[1];
  const Ko22Config& mtnlg = kKo22[2];
  // Printed: 5as/h = 5 x 96 x 2048 / 12288 = 80 and 5 x 128 x 2048 / 20480 = 64.
  CHECK_THAT(ko22_attention_term(gpt3), WithinRel(80.0, 1e-12));
  CHECK_THAT(ko22_attention_term(mtnlg), WithinRel(64.0, 1e-12));
  // Derived: 22B 5 x 64 x 2048 / 6144 = 106.67; 1T 5 x 160 x 2048 / 25600 = 64. All four exceed the 34.
  CHECK_THAT(ko22_attention_term(kKo22[0]), WithinRel(320.0 / 3.0, 1e-12));
  CHECK_THAT(ko22_attention_term(kKo22[3]), WithinRel(64.0, 1e-12));
  for (const Ko22Config& c : kKo22) CHECK(ko22_attention_term(c) > 34.0);

  // Printed: "we can save 70% and 65% of the required memory for activations": 80/114 = 70.18 %,
  // 64/98 = 65.31 % (eq. 5 against eq. 6, any t).
  const auto saved = [](const Ko22Config& c) {
    return 1.0 - ko22_layer_activations_tp_sp_selective(kKo22Seq, 1, c.h, c.t) /
                     ko22_layer_activations_tp_sp(kKo22Seq, 1, c.h, c.a, c.t);
  };
  CHECK_THAT(saved(gpt3), WithinRel(80.0 / 114.0, 1e-12));
  CHECK_THAT(saved(mtnlg), WithinRel(64.0 / 98.0, 1e-12));
  CHECK(std::round(saved(gpt3) * 100.0) == 70.0);
  CHECK(std::round(saved(mtnlg) * 100.0) == 65.0);

  // Printed: the recomputation "introduces only 2.7% and 1.6% FLOPs overhead" (App. A): eq. 8 over
  // eq. 7, eq. 8 = eq. 7 + 72 B L s h^2 (s/(3h) - s/(6h)) = eq. 7 + 12 B L s^2 h.
  // GPT-3: 0.0555556 - 0.0277778 over 1 + 0.0277778 + 0.0036169 = 2.693 %; MT-NLG 1.636 %.
  const auto eq7 = [](const Ko22Config& c) {
    return megatron_flops_per_iteration(1, kKo22Seq, c.L, c.h, kKo22Vocab, false).base();
  };
  const auto eq8_extra = [](const Ko22Config& c) { return 12.0 * c.L * kKo22Seq * kKo22Seq * c.h; };
  CHECK(rounded(100.0 * eq8_extra(gpt3) / eq7(gpt3), 1) == 2.7);
  CHECK(rounded(100.0 * eq8_extra(mtnlg) / eq7(mtnlg), 1) == 1.6);

  // App. A itemises the recomputed work as 2Bs^2h + 2Bs^2h = 4Bs^2h per layer, a third of what eq. 8
  // adds. The engine's executed_training_flops follows the itemisation: with the per-iteration forward
  // F = 24 B L s h^2 + 2 B s h v and attention core A = 4 B L s^2 h, 3 (F + A) is eq. 7 and selective
  // recomputation adds A: 0.898 % (GPT-3) and 0.545 % (MT-NLG), derived, not the printed 2.7 and 1.6.
  for (const Ko22Config* c : {&gpt3, &mtnlg}) {
    INFO(c->name);
    const units::Flop forward{24.0 * c->L * kKo22Seq * c->h * c->h + 2.0 * kKo22Seq * c->h * kKo22Vocab};
    const units::Flop attention{4.0 * c->L * kKo22Seq * kKo22Seq * c->h};
    CHECK_THAT(executed_training_flops(forward, attention, Recompute::none).base(), WithinRel(eq7(*c), 1e-12));
    CHECK_THAT(executed_training_flops(forward, attention, Recompute::selective).base(),
               WithinRel(eq7(*c) + eq8_extra(*c) / 3.0, 1e-12));
  }
  const auto itemised = [&](const Ko22Config& c) { return 100.0 * eq8_extra(c) / 3.0 / eq7(c); };
  CHECK(rounded(itemised(gpt3), 3) == 0.898);
  CHECK(rounded(itemised(mtnlg), 3) == 0.545);
}

TEST_CASE(
    "published: KO22 §6.1 (Figure 7): the Table 2 forms as shares of the tensor-parallel baseline [KO22 §6.1] "
    "(derived)",
    "[published]") {
  // Figure 7 is a chart; the text says: individually each technique cuts the memory "nearly in half",
  // combined a "5x reduction ... to under 20%", "only ~2x of the full activation recomputation which is
  // at 10% of the baseline". The Table 2 forms over eq. 2 (t = 8), derived:
  //            tp+sp   selective  both     full    baseline / both
  //   22B      66.77   49.37      16.14    7.59    6.20
  //   175B     61.96   56.52      18.48    8.70    5.41
  //   530B     58.33   61.90      20.24    9.52    4.94
  //   1T       58.33   61.90      20.24    9.52    4.94
  // Figure 7 is measured (and includes App. B's deallocation); the forms give 20.24 % for 530B and 1T,
  // just above the text's "under 20%".
  struct Share {
    double sp, sel, both, full, reduction;
  };
  const Share shares[] = {{66.77, 49.37, 16.14, 7.59, 6.20},
                          {61.96, 56.52, 18.48, 8.70, 5.41},
                          {58.33, 61.90, 20.24, 9.52, 4.94},
                          {58.33, 61.90, 20.24, 9.52, 4.94}};
  for (std::size_t i = 0; i < std::size(kKo22); ++i) {
    const Ko22Config& c = kKo22[i];
    INFO(c.name);
    const double s = kKo22Seq, b = c.micro_batch;
    const double base = ko22_layer_activations_tp(s, b, c.h, c.a, c.t).base();
    const double both = ko22_layer_activations_tp_sp_selective(s, b, c.h, c.t).base();
    const double full = ko22_layer_activations_full_recompute(s, b, c.h).base();
    CHECK(rounded(100.0 * ko22_layer_activations_tp_sp(s, b, c.h, c.a, c.t).base() / base, 2) == shares[i].sp);
    CHECK(rounded(100.0 * ko22_layer_activations_tp_selective(s, b, c.h, c.t).base() / base, 2) == shares[i].sel);
    CHECK(rounded(100.0 * both / base, 2) == shares[i].both);
    CHECK(rounded(100.0 * full / base, 2) == shares[i].full);
    CHECK(rounded(base / both, 2) == shares[i].reduction);
    // "only ~2x of the full activation recomputation": 4.25 / 2 = 2.125 for every model.
    CHECK_THAT(both / full, WithinRel(2.125, 1e-12));
    CHECK(full / base < 0.10);
  }
}

TEST_CASE(
    "published: KO22 eq. 5 and eq. 6 on the first stage, App. B's sbhp = 2.73 GB, §4.3's extra terms [KO22 §4.2.3] "
    "[KO22 §4.3] [KO22 App. B]",
    "[published]") {
  // The first stage holds p micro-batches of L/p layers, L layers' worth (derived):
  //   eq. 6 (sequence parallel + selective) = 34 sbhL/t; eq. 5 (sequence parallel) = sbhL/t (34 + 5as/h).
  struct Row {
    double eq6, eq5;
  };
  const Row rows[] = {
      {10'267'656'192, 42'479'910'912},  // 22B: 213,909,504 x 48; 884,998,144 x 48 (p = 1, b = 4)
      {10'267'656'192, 34'426'847'232},  // 175B: 106,954,752 x 96; 358,612,992 x 96
      {18'717'081'600, 53'949'235'200},  // 530B: 178,257,920 x 105; 513,802,240 x 105 (35 stages of 3)
      {28'521'267'200, 82'208'358'400},  // 1T: 222,822,400 x 128; 642,252,800 x 128 (64 stages of 2)
  };
  for (std::size_t i = 0; i < std::size(kKo22); ++i) {
    const Ko22Config& c = kKo22[i];
    INFO(c.name);
    const double s = kKo22Seq, b = c.micro_batch;
    CHECK_THAT(activations_first_stage(ko22_layer_activations_tp_sp_selective(s, b, c.h, c.t), c.L / c.p, c.p).base(),
               WithinRel(rows[i].eq6, 1e-12));
    CHECK_THAT(activations_first_stage(ko22_layer_activations_tp_sp(s, b, c.h, c.a, c.t), c.L / c.p, c.p).base(),
               WithinRel(rows[i].eq5, 1e-12));
  }

  // App. B, 530B: the output-tensor deallocation saves sbhp on the first stage, "2.73 GB" at 2 bytes an
  // element: 2 x 2048 x 1 x 20480 x 35 = 2,936,012,800 B = 2.734 GiB (the paper's GB is binary here;
  // 2.94 GB in SI units).
  const Ko22Config& mtnlg = kKo22[2];
  const double sbhp_bytes = 2.0 * kKo22Seq * mtnlg.micro_batch * mtnlg.h * mtnlg.p;
  CHECK(sbhp_bytes == 2'936'012'800.0);
  CHECK(rounded(sbhp_bytes / units::kGiB, 2) == 2.73);
  CHECK(rounded(sbhp_bytes / units::kGB, 2) == 2.94);

  // §4.3: the embedding dropout, final norm, head and fp32 logits add sbhL/t (p/L + delta_{p=1} 4/L
  // (1 + v/h)). For 22B (p = 1) against eq. 5: (1 + 4 (1 + 51200/6144)) / (48 (34 + 320/3)) =
  // 38.333 / 6752 = 0.568 % (derived). The paper says "less than 0.01%"; that holds read as a
  // fraction (0.0057 < 0.01), not as a percentage.
  const Ko22Config& c22 = kKo22[0];
  const double sbh_t = kKo22Seq * c22.micro_batch * c22.h / c22.t;
  const double extra = sbh_t * (c22.p + 4.0 * (1.0 + kKo22Vocab / c22.h));
  const double eq5 =
      activations_first_stage(ko22_layer_activations_tp_sp(kKo22Seq, c22.micro_batch, c22.h, c22.a, c22.t), c22.L, 1)
          .base();
  CHECK(rounded(100.0 * extra / eq5, 3) == 0.568);
  CHECK(extra / eq5 < 0.01);
}

TEST_CASE("published: KO22 Table 5: MFU and HFU from the iteration times, eq. 7 and eq. 8 [KO22 Table 5] [KO22 App. A]",
          "[published]") {
  // MFU = eq. 7 / (time x GPUs x 312 TFLOP/s), eq. 7 = megatron_flops_per_iteration(B, s, L, h, v) without
  // recomputation (the 72 form); HFU uses eq. 8 = eq. 7 + 12 B L s^2 h. B = Table 3's global batch.
  // Iteration times are printed to 0.01 s, so a figure is checked against the range the times allow;
  // the figures the times reproduce at the printed digit are checked exactly as well.
  struct Row {
    double full_s, present_s, throughput_pct, mfu_pct, hfu_pct;
    bool exact;
  };
  const Row rows[] = {
      // 22B: 1.1436e15 / (1.10 x 8 x 312e12) = 41.65 % (printed 41.5; the range of 1.095-1.105 s is
      // 41.46-41.84); HFU 43.81 (printed 43.7); 1.42/1.10 = 29.09 % (printed 29.0).
      {1.42, 1.10, 29.0, 41.5, 43.7, false},
      // 175B: 51.39 -> 51.4, 52.77 -> 52.8; 18.13/13.75 = 31.85 % (printed 31.8, within the range).
      {18.13, 13.75, 31.8, 51.4, 52.8, false},
      // 530B: 56.05 -> 56.0, 56.96 -> 57.0, 29.66 -> 29.7.
      {49.05, 37.83, 29.7, 56.0, 57.0, true},
      // 1T: 56.27 -> 56.3, 57.01 -> 57.0, 32.07 -> 32.1.
      {94.42, 71.49, 32.1, 56.3, 57.0, true},
  };
  for (std::size_t i = 0; i < std::size(kKo22); ++i) {
    const Ko22Config& c = kKo22[i];
    const Row& r = rows[i];
    INFO(c.name);
    const double eq7 = megatron_flops_per_iteration(c.global_batch, kKo22Seq, c.L, c.h, kKo22Vocab, false).base();
    const double eq8 = eq7 + 12.0 * c.global_batch * c.L * kKo22Seq * kKo22Seq * c.h;
    const auto mfu = [&](double t) { return 100.0 * eq7 / (t * c.gpus * kA100Peak); };
    const auto hfu = [&](double t) { return 100.0 * eq8 / (t * c.gpus * kA100Peak); };
    const auto gain = [](double a, double b) { return 100.0 * (a / b - 1.0); };
    CHECK(within_printed(r.mfu_pct, mfu(r.present_s - 0.005), mfu(r.present_s + 0.005), 0.05));
    CHECK(within_printed(r.hfu_pct, hfu(r.present_s - 0.005), hfu(r.present_s + 0.005), 0.05));
    CHECK(within_printed(r.throughput_pct, gain(r.full_s - 0.005, r.present_s + 0.005),
                         gain(r.full_s + 0.005, r.present_s - 0.005), 0.05));
    if (r.exact) {
      CHECK(rounded(mfu(r.present_s), 1) == r.mfu_pct);
      CHECK(rounded(hfu(r.present_s), 1) == r.hfu_pct);
      CHECK(rounded(gain(r.full_s, r.present_s), 1) == r.throughput_pct);
    }
  }
  // 175B at the printed times, exactly: 51.39 and 52.77.
  const Ko22Config& gpt3 = kKo22[1];
  const double gpt3_eq7 = megatron_flops_per_iteration(64, kKo22Seq, gpt3.L, gpt3.h, kKo22Vocab, false).base();
  CHECK(rounded(100.0 * gpt3_eq7 / (13.75 * 64 * kA100Peak), 1) == 51.4);

  // §6.3 and the abstract: 530B with 8-way data parallelism (2240 GPUs, B = 8 x 280) at 39.15 s per
  // iteration: 54.16 %, printed 54.2 %.
  const Ko22Config& mtnlg = kKo22[2];
  const double dp8 = megatron_flops_per_iteration(2240, kKo22Seq, mtnlg.L, mtnlg.h, kKo22Vocab, false).base();
  CHECK(rounded(100.0 * dp8 / (39.15 * 2240 * kA100Peak), 1) == 54.2);
}

TEST_CASE(
    "published: PaLM 540B: MFU 45.7 % without self-attention, 46.2 % with it, HFU 57.8 % [CH22 §4.1] [CH22 Table 3] "
    "[CH22 App. B]",
    "[published]") {
  // CH22 Table 1: L = 118, H = 48 heads, d_model = 18432, N = 540.35B. App. B: 238.3K tokens/s on 6144
  // TPU v4 chips of 275 TFLOP/s peak; model FLOPs per token 6N + 12 L H Q T, T = 2048.
  // Q = 256 is not in the stored text (d_model/H would be 384); derived from Table 22's 3.28 TFLOPs per
  // token, which needs 236 < Q < 309, and 46.2 %, which needs 215 < Q < 267; 384 would give 3.30.
  constexpr double n = 540.35e9, rate = 238.3e3, chips = 6144;
  constexpr double L = 118, H = 48, Q = 256, T = 2048;
  const units::FlopPerSecond peak = units::tflop_per_s(275);

  // Without self-attention: 6 x 540.35e9 x 238,300 / (6144 x 275e12) = 45.73 %; App. B's own
  // arithmetic (238.3 x 6 x 540) / (275 x 6144) = 45.70 %. Printed 45.7 %.
  CHECK(rounded(100.0 * model_flops_utilisation(n, rate, chips, peak), 1) == 45.7);
  CHECK(rounded(100.0 * model_flops_utilisation(540e9, rate, chips, peak), 1) == 45.7);

  // With it: executed_training_flops with no recomputation is 3 (C_fwd + A); with C_fwd = 2N and A = 4LHQT
  // (the full, non-causal attention core forward) it is PaLM's 6N + 12LHQT = 3,242,100,000,000 +
  // 35,634,806,784 = 3,277,734,806,784 FLOP per token (Table 22: 3.28 TFLOPs). MFU 46.23 %, printed 46.2 %.
  const auto palm_model_flops = [](double params, double l, double h, double q, double t) {
    return executed_training_flops(units::Flop{2.0 * params}, units::Flop{4.0 * l * h * q * t}, Recompute::none);
  };
  const units::Flop per_token = palm_model_flops(n, L, H, Q, T);
  CHECK_THAT(per_token.base(), WithinRel(3'277'734'806'784.0, 1e-15));
  CHECK(rounded(per_token.base() / 1e12, 2) == 3.28);
  CHECK(rounded(100.0 * per_token.base() * rate / (chips * peak.base()), 1) == 46.2);

  // HFU 57.8 % (derived by hand: no engine function recomputes part of the forward): App. B says 75 % of
  // the non-attention forward and all of the attention forward are recomputed: + 0.75 x 2N + 4LHQT =
  // 4,100,138,075,712 FLOP per token (Table 22: 4.10), 57.83 %.
  const double remat = per_token.base() + 0.75 * 2.0 * n + 4.0 * L * H * Q * T;
  CHECK(remat == 4'100'138'075'712.0);
  CHECK(rounded(remat / 1e12, 2) == 4.10);
  CHECK(rounded(100.0 * remat * rate / (chips * peak.base()), 1) == 57.8);
  // The engine's HFU under full recomputation counts 8N (the whole forward again): 60.97 % here, derived;
  // it is not PaLM's 57.8 %, whose rematerialisation skipped a quarter of the non-attention forward.
  CHECK(rounded(100.0 * hardware_flops_utilisation(n, rate, chips, peak, true), 2) == 60.97);

  // Table 22, TFLOPs per token without and with rematerialisation. 8B (L 32, H 16, N 8.63B) and 62B (L 64,
  // H 32, N 62.50B) rematerialise only the attention, which is the engine's selective mode (+ A):
  //   8B: 51.78e9 + 3,221,225,472 = 55,001,225,472 -> 0.0550; + 1,073,741,824 -> 0.0561.
  //   62B: 375e9 + 12,884,901,888 = 387,884,901,888 -> 0.388; + 4,294,967,296 -> 0.392.
  const auto selective_flops = [](double params, double l, double h, double q, double t) {
    return executed_training_flops(units::Flop{2.0 * params}, units::Flop{4.0 * l * h * q * t}, Recompute::selective);
  };
  CHECK(rounded(palm_model_flops(8.63e9, 32, 16, Q, T).base() / 1e12, 4) == 0.0550);
  CHECK(rounded(selective_flops(8.63e9, 32, 16, Q, T).base() / 1e12, 4) == 0.0561);
  CHECK(rounded(palm_model_flops(62.5e9, 64, 32, Q, T).base() / 1e12, 3) == 0.388);
  CHECK(rounded(selective_flops(62.5e9, 64, 32, Q, T).base() / 1e12, 3) == 0.392);
  // Table 22's 540B "Train FLOPs" 2.56e24 and 29,600 PetaFLOP/s-days: 3.2777e12 per token over the
  // 780B-token dataset (§3, one epoch; the token count is our reading, not printed in Table 22):
  // 2.5566e24 FLOP, 29,590.7 PF/s-days. C = 6ND alone gives 2.529e24 (2.53e24), derived.
  const double train_flops = per_token.base() * 780e9;
  CHECK(rounded(train_flops / 1e24, 2) == 2.56);
  CHECK(std::round(train_flops / 1e15 / units::kSecondsPerDay / 100.0) * 100.0 == 29'600.0);
  CHECK(rounded(training_compute(n, 780e9).base() / 1e24, 2) == 2.53);

  // Table 3's MT-NLG 530B row (App. B): 65.43K tokens/s (1920 x 2048 / 60.1 = 65,427) on 2240 A100s at
  // 312 TFLOP/s: (65.43 x 6 x 530) / (312 x 2240) = 29.77 %, printed 29.7 %; with attention (L 105,
  // H 128, Q = 20480/128 = 160: + 52,848,230,400 per token) 30.27 %, printed 30.2 %. Both printed
  // figures are truncated, not rounded (derived; the rounded ones would be 29.8 and 30.3).
  CHECK(rounded(1920.0 * 2048.0 / 60.1 / 1e3, 2) == 65.43);
  const double mtnlg_mfu = 100.0 * model_flops_utilisation(530e9, 65.43e3, 2240, units::tflop_per_s(312));
  CHECK(truncated(mtnlg_mfu, 1) == 29.7);
  CHECK(rounded(mtnlg_mfu, 2) == 29.77);
  const double mtnlg_attn =
      100.0 * palm_model_flops(530e9, 105, 128, 160, T).base() * 65.43e3 / (2240 * units::tflop_per_s(312).base());
  CHECK(truncated(mtnlg_attn, 1) == 30.2);
  CHECK(rounded(mtnlg_attn, 2) == 30.27);
}

// PaLM attention-inclusive MFU: to check when the convention lands.
// (Hand-derived expectations for `roofline train` once a `palm` model-FLOPs convention, 6N + 12·L·H·Q·T
// per token with the full, non-causal attention of CH22 App. B, exists; today the CLI's MFU is 6N.)
//   - `--params 540.35B`: no architecture, so no attention term: MFU stays 45.73 % (e2e.published_palm_mfu).
//   - The PaLM shape by flags, `--layers 118 --hidden 18432 --heads 48 --kv-heads 1 --head-dim 256
//     --ffn 73728 --mlp gated --vocab 256000 --norm layernorm_nobias --tied --seq 2048`, counts
//     N = 540,358,649,856 (two norms a layer: PaLM's parallel block has one, 2,174,976 fewer; the paper
//     prints 540.35B). Per token 6N + 12 x 118 x 48 x 256 x 2048 = 3,242,151,899,136 + 35,634,806,784 =
//     3,277,786,705,920 FLOP; at 238.3K tokens/s on 6144 x 275 TFLOP/s: MFU 46.23 % (printed 46.2 %).
//   - For comparison, today's HFU line with --recompute none counts the causal attention core (half of
//     PaLM's): 45.98 % for the flags model; with --recompute full, 61.30 % (PaLM's HFU is 57.8 %).

TEST_CASE("published: Megatron-LM Table 1: size, FLOPs per iteration, % of peak, aggregate [NA21 Table 1] [NA21 §5.1]",
          "[published]") {
  // All rows: V = 51,200, s = 2048, t as printed; A100 peak 312 TFLOP/s (NA21 §5).
  // F = 96 B s l h^2 (1 + s/(6h) + V/(16 l h)) (eq. 3, full recomputation), exact by hand in rationals.
  // Derived iteration time F / (n X) in the comment (Table 1 prints no time).
  struct Row {
    double size_b;  // printed "Number of parameters (billion)"
    double heads, hidden, layers, t, p, gpus, batch;
    double tflops_per_gpu, percent_of_peak, aggregate_pflops;  // printed
    double flops_per_iteration;                                // eq. 3, by hand
  };
  const Row rows[] = {
      {1.7, 24, 2304, 24, 1, 1, 32, 512, 137, 44, 4.4, 15'466'830'067'924'992.0},                  // 3.53 s
      {3.6, 32, 3072, 30, 2, 1, 64, 512, 138, 44, 8.8, 32'655'495'344'947'200.0},                  // 3.70 s
      {7.5, 32, 4096, 36, 4, 1, 128, 512, 142, 46, 18.2, 67'184'558'503'624'704.0},                // 3.70 s
      {18.4, 48, 6144, 40, 8, 1, 256, 1024, 135, 43, 34.6, 324'839'715'310'141'440.0},             // 9.40 s
      {39.1, 64, 8192, 48, 8, 2, 512, 1536, 138, 44, 70.8, 1'021'226'399'878'348'800.0},           // 14.45 s
      {76.1, 80, 10240, 60, 8, 4, 1024, 1792, 140, 45, 143.8, 2'302'047'495'074'611'200.0},        // 16.06 s
      {145.6, 96, 12288, 80, 8, 8, 1536, 2304, 148, 47, 227.1, 5'641'682'123'048'878'080.0},       // 24.82 s
      {310.1, 128, 16384, 96, 8, 16, 1920, 2160, 155, 50, 297.4, 11'194'006'936'108'400'640.0},    // 37.61 s
      {529.6, 128, 20480, 105, 8, 35, 2520, 2520, 163, 52, 410.2, 22'215'941'676'859'392'000.0},   // 54.09 s
      {1008.0, 160, 25600, 128, 8, 64, 3072, 3072, 163, 52, 502.0, 51'390'513'775'273'574'400.0},  // 102.63 s
  };
  for (const Row& r : rows) {
    INFO(r.size_b << "B");
    // Eq. 2, P = 12 l h^2 (1 + 13/(12h) + (V + s)/(12 l h)), is count_params of the GPT layer less the
    // final LayerNorm's 2h; printed to 0.1B (1T: 1,008,038,707,200 -> 1008.0).
    const auto params = static_cast<double>(
        count_params(megatron_gpt(static_cast<std::int64_t>(r.layers), static_cast<std::int64_t>(r.hidden),
                                  static_cast<std::int64_t>(r.heads)))
            .total);
    const double eq2 =
        12.0 * r.layers * r.hidden * r.hidden + 13.0 * r.layers * r.hidden + (51'200.0 + 2048.0) * r.hidden;
    CHECK(params == eq2 + 2.0 * r.hidden);
    CHECK(rounded(eq2 / 1e9, 1) == r.size_b);
    // Eq. 3 through the engine.
    CHECK_THAT(megatron_flops_per_iteration(r.batch, 2048, r.layers, r.hidden, 51'200, true).base(),
               WithinRel(r.flops_per_iteration, 1e-14));
    // Percent of peak from the per-GPU figure: 137/312 = 43.9 -> 44, ..., 163/312 = 52.2 -> 52.
    CHECK(std::round(100.0 * r.tflops_per_gpu * 1e12 / kA100Peak) == r.percent_of_peak);
    // Aggregate = per-GPU x GPUs: both columns are rounded (per GPU to 1 TFLOP/s, aggregate to 0.1
    // PFLOP/s), so the aggregate over n must sit within 0.5 TFLOP/s (+ 0.05 PFLOP/s / n) of the per-GPU
    // figure. 1T: 502.0 / 3072 = 163.41; 39.1B: 70.8 / 512 = 138.28 (138 x 512 = 70.66 would print 70.7).
    CHECK(std::abs(r.aggregate_pflops * 1e3 / r.gpus - r.tflops_per_gpu) <= 0.5 + 50.0 / r.gpus);
  }
}

TEST_CASE("published: Megatron-LM §5.1: GPT-3 in 34 days on 1024 GPUs, 1T in 84 days on 3072 [NA21 §5.1 eq. 4]",
          "[published]") {
  // Eq. 4: time ~ 8 T P / (n X). GPT-3: T = 300e9, P = 175e9, n = 1024, X = 140 TFLOP/s:
  // 4.2e23 / 1.4336e17 = 2,929,687.5 s = 33.9 days, printed 34.
  const units::Seconds gpt3 = time_to_train(units::Flop{8.0 * 300e9 * 175e9}, 1024, units::tflop_per_s(140));
  CHECK(std::round(gpt3.in(units::kSecondsPerDay)) == 34.0);
  // 1T: T = 450e9, P = Table 1's 1008.0e9, n = 3072, X = 163: 3.6288e24 / 5.00736e17 s = 83.9 days,
  // printed 84 (P = 1e12 would give 83.2).
  const units::Seconds one_t = time_to_train(units::Flop{8.0 * 450e9 * 1008e9}, 3072, units::tflop_per_s(163));
  CHECK(std::round(one_t.in(units::kSecondsPerDay)) == 84.0);
  CHECK(std::round(
            time_to_train(units::Flop{8.0 * 450e9 * 1e12}, 3072, units::tflop_per_s(163)).in(units::kSecondsPerDay)) ==
        83.0);
  // Eq. 3 itself (derived): F / (B s) = 8.1683e12 FLOP per token for 1T, 1.3 % above 8P, so
  // 450e9 tokens take 84.96 days: eq. 4's approximation is what gives the printed 84.
  const double per_token =
      megatron_flops_per_iteration(3072, 2048, 128, 25600, 51'200, true).base() / (3072.0 * 2048.0);
  const units::Seconds exact = time_to_train(units::Flop{per_token * 450e9}, 3072, units::tflop_per_s(163));
  CHECK(rounded(exact.in(units::kSecondsPerDay), 2) == 84.96);
}
