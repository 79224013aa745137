// Every row of tests/fixtures/worked-examples.tsv, recomputed through the engine.
//
// One table row per TSV row, grouped by the topics A-J of worked-examples.md. A row names the
// engine call at the TSV's `inputs` (nominal 7e9/8e9/13e9/70e9 parameters stay nominal; models
// are rebuilt from their dimensions below) and checks:
//   exact      every computed value against `expected` to 1e-12 (counts: exact equality);
//   rounding   the same, and the document's printed figure within tolerance_suggested;
//   disagrees  the right values against `expected`, and, where the TSV names the document's
//              convention, the engine under that convention against the printed figure.
// `expected` holds the TSV's recomputed_value at full precision: a literal where it terminates,
// otherwise the arithmetic of the TSV's inputs column. The coverage test reads the TSV at run
// time, fails on any id without a row, and ties each row's source, status, tolerance and leading
// expected value to the TSV line.

#include "roofline/decode.hpp"
#include "roofline/dtype.hpp"
#include "roofline/flops.hpp"
#include "roofline/memory.hpp"
#include "roofline/misc.hpp"
#include "roofline/params.hpp"
#include "roofline/roofline.hpp"
#include "roofline/training.hpp"
#include "roofline/units.hpp"
#include "roofline/workload.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <numbers>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "seed_models.hpp"

using namespace roofline;
using namespace roofline::test_models;
using Catch::Matchers::WithinRel;

namespace {

// ============================================================================================
// Row format
// ============================================================================================

using Values = std::vector<double>;

enum class Status { exact, rounding, disagrees };  // the TSV's status column
enum class Kind { real, count };                   // count: compared with ==
enum class Check { within, below, above };         // how a printed figure is compared

/// A figure as the document prints it, in the unit of the value it is compared with.
struct Printed {
  double value = 0.0;
  double tol = 0.0;  ///< relative; 0 means exact (1e-12)
  Check check = Check::within;
};

Printed below(double bound) { return {bound, 0.0, Check::below}; }
Printed above(double bound) { return {bound, 0.0, Check::above}; }

struct Row {
  const char* id = "";
  const char* source = "";
  Status status = Status::exact;
  Kind kind = Kind::real;
  Values expected{};                ///< TSV recomputed_value(s), full precision
  Values (*value)() = nullptr;      ///< the engine at the row's inputs
  std::vector<Printed> printed{};   ///< document figures (vs doc_value if set, else vs value)
  Values (*doc_value)() = nullptr;  ///< disagrees: the engine under the document's convention
  void (*also)() = nullptr;         ///< extra assertions the TSV note asks for
};

using enum Status;
using enum Kind;

constexpr double kExact = 1e-12;
constexpr double kPercent = 100.0;
constexpr double kMs = 1e-3;
constexpr double kUs = 1e-6;

double dbl(std::int64_t v) { return static_cast<double>(v); }

// ============================================================================================
// Sources: the TSV's source column, verbatim
// ============================================================================================

// Seed 000 [S000]
constexpr const char* kS000_1_1 =
    "000_aba253db56044680.txt §1.1 worked example 'Where the parameters of an 8B model sit' "
    "(Table 1.1)";
constexpr const char* kS000_1_2 = "000_aba253db56044680.txt §1.2 worked example 'Inspecting tensor identity'";
constexpr const char* kS000_1_3_bullet = "000_aba253db56044680.txt §1.3 (Parameters bullet; training-memory example)";
constexpr const char* kS000_1_3_train = "000_aba253db56044680.txt §1.3 worked example 'Training memory per parameter'";
constexpr const char* kS000_1_3_kv = "000_aba253db56044680.txt §1.3 worked example 'From one cached token to 256 MiB'";
constexpr const char* kS000_1_4 = "000_aba253db56044680.txt §1.4 worked example 'Arithmetic per token for an 8B model'";
constexpr const char* kS000_1_5 = "000_aba253db56044680.txt §1.5 'Minimal training loop' (CrossEntropyLoss example)";
constexpr const char* kS000_1_6 = "000_aba253db56044680.txt §1.6.1 worked example 'A 3x faster kernel' (Amdahl)";

// Seed 002 [S002]
constexpr const char* kS002_table = "002_d544b42dbb37990c.txt 'Two kinds of bottleneck' (intensity table)";
constexpr const char* kS002_cpu = "002_d544b42dbb37990c.txt 'Two kinds of bottleneck' (CPU measurement table)";
constexpr const char* kS002_decode = "002_d544b42dbb37990c.txt 'Two kinds of bottleneck' (7B decode paragraph)";
constexpr const char* kS002_batch = "002_d544b42dbb37990c.txt 'Batch size fills the machine' (batch table)";
constexpr const char* kS002_fusion = "002_d544b42dbb37990c.txt 'Fusion'";
constexpr const char* kS002_multi = "002_d544b42dbb37990c.txt 'When one GPU is not enough'";

// Seed 003 [S003]
constexpr const char* kS003_2_1 = "003_9c90c39b5d04acba.txt §2.1 worked example (d=4096, m=4)";
constexpr const char* kS003_2_1_gpt3 =
    "003_9c90c39b5d04acba.txt §2.1 'Sanity check against a published model' (GPT-3 175B)";
constexpr const char* kS003_2_2 = "003_9c90c39b5d04acba.txt §2.2 'Convert parameters to FLOPs'";
constexpr const char* kS003_2_3 = "003_9c90c39b5d04acba.txt §2.3 'The quadratic term'";
constexpr const char* kS003_2_4 = "003_9c90c39b5d04acba.txt §2.4 intensity table, T d/(d+2T), d=4096, MI300X ridge 247";
constexpr const char* kS003_2_4_t1 = "003_9c90c39b5d04acba.txt §2.4 (T = 1 row)";
constexpr const char* kS003_2_4_batch = "003_9c90c39b5d04acba.txt §2.4 + §5.2 ('Batch for compute-bound decode')";
constexpr const char* kS003_2_5 = "003_9c90c39b5d04acba.txt §2.5 decode ceiling worked example";
constexpr const char* kS003_touched =
    "003_9c90c39b5d04acba.txt §2.5 / §5.2 and 004_81081bb187e6a8ba.txt 'Decoding one token'";
constexpr const char* kS003_3_2 = "003_9c90c39b5d04acba.txt §3.2 layer diagram (per-stage costs)";
constexpr const char* kS003_3_3 =
    "003_9c90c39b5d04acba.txt §3.3 'The elementwise tax' table (Llama-3-8B, per token per "
    "layer, bf16)";
constexpr const char* kS003_3_4 = "003_9c90c39b5d04acba.txt §3.4 worked example (Llama-2-70B KV cache and concurrency)";
constexpr const char* kS003_3_4_short = "003_9c90c39b5d04acba.txt §3.4 worked example";
constexpr const char* kS003_3_4_8k = "003_9c90c39b5d04acba.txt §3.4 ('Double your advertised context from 4k to 8k')";
constexpr const char* kS003_3_4_units = "003_9c90c39b5d04acba.txt §3.4 / §3.6 (capacity column)";
constexpr const char* kS003_3_5 = "003_9c90c39b5d04acba.txt §3.5 'SwiGLU is not free' (Llama-3-8B in units of d^2)";
constexpr const char* kS003_3_6 = "003_9c90c39b5d04acba.txt §3.6 accelerator table (ridge = peak / bandwidth)";
constexpr const char* kS003_3_6_p2 = "003_9c90c39b5d04acba.txt §3.6 point 2";
constexpr const char* kS003_3_6_p3 = "003_9c90c39b5d04acba.txt §3.6 point 3";
constexpr const char* kS003_lab1 = "003_9c90c39b5d04acba.txt §4 Lab 1 'What to observe' 1";
constexpr const char* kS003_lab3 = "003_9c90c39b5d04acba.txt §4 Lab 3 'What to observe'";
constexpr const char* kS003_5_1 = "003_9c90c39b5d04acba.txt §5.1 roofline diagram / §3.1 flowchart";
constexpr const char* kS003_5_2_l3 = "003_9c90c39b5d04acba.txt §5.2 analytical results (Llama-3-8B)";
constexpr const char* kS003_5_2_l70 =
    "003_9c90c39b5d04acba.txt §5.2 analytical results (Llama-2-70B on one 192 GB MI300X)";
constexpr const char* kS003_preset = "003_9c90c39b5d04acba.txt §5.2 / §8 (Llama-3-8B preset, vocab 128256, untied)";
constexpr const char* kS003_6 = "003_9c90c39b5d04acba.txt §6 Pitfall 3";
constexpr const char* kS003_9 = "003_9c90c39b5d04acba.txt §9 Answers";

// Seed 004 [S004]
constexpr const char* kS004_machine = "004_81081bb187e6a8ba.txt 'The machine you are actually programming'";
constexpr const char* kS004_intensity = "004_81081bb187e6a8ba.txt 'Arithmetic intensity'";
constexpr const char* kS004_decode = "004_81081bb187e6a8ba.txt 'Decoding one token' (Llama 3 8B on H100 SXM)";
constexpr const char* kS004_prefill = "004_81081bb187e6a8ba.txt 'Prefilling a prompt' (Llama 3 8B, S=2048, H100 SXM)";
constexpr const char* kS004_budget =
    "004_81081bb187e6a8ba.txt 'The third budget' / 'Keeping score: MFU' / 'What's next'";

// ============================================================================================
// Models, rebuilt from their dimensions (worked-examples.md §2.1)
// ============================================================================================

// The models are in seed_models.hpp, shared with the other engine tests.

/// Parameters of one tensor group of the (single) layer kind; 0 when the model has none.
double part(const ModelConfig& m, std::string_view id) {
  const ParamCounts c = count_params(m);
  for (const ParamComponent& p : c.layer_kinds.at(0).parts) {
    if (p.id == id) {
      return dbl(p.count);
    }
  }
  return 0.0;
}
double attention_params(const ModelConfig& m) {
  return part(m, "q_proj") + part(m, "k_proj") + part(m, "v_proj") + part(m, "o_proj");
}
double ffn_params(const ModelConfig& m) { return part(m, "gate_proj") + part(m, "up_proj") + part(m, "down_proj"); }
LayerKindParams layer_of(const ModelConfig& m) { return count_params(m).layer_kinds.at(0); }
double d_squared(const ModelConfig& m) { return dbl(m.d_model) * dbl(m.d_model); }

/// A model known only by its parameter count N (the documents' nominal 7e9, 8e9, 13e9, 70e9):
/// no layers, hence no KV cache and no attention term; every FLOP basis and byte mode sees N.
ParamCounts counts_of(double n) {
  ParamCounts c;
  c.total = static_cast<std::int64_t>(n);
  c.active = c.total;
  return c;
}

// ============================================================================================
// Machines (worked-examples.md §2.2) and workloads
// ============================================================================================

constexpr Machine kH100{units::tflop_per_s(989.4), units::tb_per_s(3.35)};
constexpr Machine kH100At989{units::tflop_per_s(989.0), units::tb_per_s(3.35)};  // 000, 004 "989"
constexpr Machine kH200{units::tflop_per_s(989.4), units::tb_per_s(4.8)};
constexpr Machine kMI300X{units::tflop_per_s(1307.4), units::tb_per_s(5.3)};
constexpr Machine kMI355X{units::tflop_per_s(2500.0), units::tb_per_s(8.0)};
constexpr Machine kA100_80GB{units::tflop_per_s(312.0), units::tb_per_s(2.039)};
constexpr Machine kGenericGpu{units::tflop_per_s(300.0), units::tb_per_s(2.0)};  // seed 002

units::FlopPerByte ridge(Machine hw) { return ridge_point(hw.peak, hw.bandwidth); }

/// The documents' decode convention: 2 N_total FLOP and N_total b_w bytes of weights per step.
Workload doc_decode(std::int64_t batch = 1, std::int64_t context = 0, double bits = 16.0) {
  return Workload{.batch = batch,
                  .context = context,
                  .weight_bits = bits,
                  .basis = FlopBasis::all_params,
                  .decode_bytes = DecodeBytes::all_weights};
}

/// Bytes a decode step actually touches (one embedding row gathered), physical FLOPs.
Workload touched_decode(std::int64_t batch = 1, std::int64_t context = 0, double bits = 16.0) {
  return Workload{.batch = batch,
                  .context = context,
                  .weight_bits = bits,
                  .basis = FlopBasis::physical,
                  .decode_bytes = DecodeBytes::touched};
}

DecodeStep decode(const ModelConfig& m, const Workload& w, Machine hw) {
  return decode_step(m, count_params(m), w, hw);
}
DecodeStep decode_nominal(double params, const Workload& w, Machine hw) {
  return decode_step(ModelConfig{}, counts_of(params), w, hw);
}

/// Seed 004's prefill: 2 P_all S + causal 2 L S^2 d, the head on every position, bytes = all
/// weights + KV written.
Workload doc_prefill(FlopBasis basis = FlopBasis::all_params, LmHeadPositions head = LmHeadPositions::all) {
  return Workload{.prompt = 2048,
                  .basis = basis,
                  .attention = AttentionMode::causal,
                  .lm_head = head,
                  .decode_bytes = DecodeBytes::all_weights};
}
PrefillPass prefill_l3(const Workload& w) {
  const ModelConfig m = llama3_8b();
  return prefill_pass(m, count_params(m), w, kH100);
}

// The Llama-3-8B per-token elementwise traffic of seed 003 §3.3, one term per operation.
constexpr double kBf16 = 2.0;
units::Bytes ew_norm() { return norm_bytes_per_token(4096, kBf16); }
units::Bytes ew_rope() { return rope_bytes_per_token(32 * 128, 8 * 128, kBf16); }
units::Bytes ew_residual() { return residual_add_bytes_per_token(4096, kBf16); }
units::Bytes ew_swiglu() { return gated_activation_bytes_per_token(14'336, kBf16); }
units::Bytes ew_l3() { return elementwise_bytes_per_token_layer(llama3_8b(), kBf16); }
/// Layer weight bytes: all parameters (436,224,000) or the matrices only (436,207,616 = 26 d^2).
units::Bytes layer_bytes_l3() { return weight_bytes(dbl(layer_of(llama3_8b()).total), 16.0); }
units::Bytes layer_matrix_bytes_l3() { return weight_bytes(dbl(layer_of(llama3_8b()).matrix_total), 16.0); }

// Llama-2-70B on one MI300X, seed 003 §3.4: weights, KV per sequence, concurrency.
units::Bytes l2_70b_weights() { return weight_bytes(dbl(count_params(llama2_70b()).total), 16.0); }
units::Bytes l2_70b_kv(std::int64_t kv_heads, double context) {
  return kv_bytes_per_sequence(llama2_70b(kv_heads), context, dtype_bytes(DType::fp16));
}
double l2_70b_concurrency(units::Bytes capacity, std::int64_t kv_heads, double context) {
  return dbl(max_concurrency(capacity, l2_70b_weights(), units::Bytes{}, l2_70b_kv(kv_heads, context)).value());
}

// Expected-side constants (hand arithmetic of the TSV inputs, never an engine call).
constexpr double kL3Params = 8'030'261'248.0;
constexpr double kL3Bytes = 16'060'522'496.0;
constexpr double kL3TouchedBytes = 15'009'857'536.0;  // 2 (P - V d) + 2 d
constexpr double kL3Kv8k = 1'073'741'824.0;
constexpr double kL2_70bBytes = 137'953'296'384.0;
constexpr double kL2_70bEmbeddingBytes = 2.0 * 32'000 * 8192;  // 2 V d
constexpr double kL2_70bRowBytes = 2.0 * 8192;                 // one gathered row, 2 d
constexpr double kL2_70bKv4k = 1'342'177'280.0;
constexpr double kPrefillFlops = 33'991'461'699'584.0;  // 2 P S + 2 L S^2 d, S = 2048
constexpr double kRidgeMI300X = 1307.4 / 5.3;

// ============================================================================================
// A. Parameter counts
// ============================================================================================

const std::vector<Row>& rows_a_params() {
  // One compact row per TSV line; clang-format would put every field on its own line.
  // clang-format off
  static const std::vector<Row> rows = {
      // Seed 000 Table 1.1, Llama-3-8B layer
      {.id = "l3_8b_q_proj", .source = kS000_1_1, .status = exact, .kind = count,
       .expected = {16'777'216}, .value = [] { return Values{part(llama3_8b(), "q_proj")}; }},
      {.id = "l3_8b_k_proj", .source = kS000_1_1, .status = exact, .kind = count,
       .expected = {4'194'304}, .value = [] { return Values{part(llama3_8b(), "k_proj")}; }},
      {.id = "l3_8b_v_proj", .source = kS000_1_1, .status = exact, .kind = count,
       .expected = {4'194'304}, .value = [] { return Values{part(llama3_8b(), "v_proj")}; }},
      {.id = "l3_8b_o_proj", .source = kS000_1_1, .status = exact, .kind = count,
       .expected = {16'777'216}, .value = [] { return Values{part(llama3_8b(), "o_proj")}; }},
      {.id = "l3_8b_gate_up", .source = kS000_1_1, .status = exact, .kind = count,
       .expected = {117'440'512},
       .value = [] {
         return Values{part(llama3_8b(), "gate_proj") + part(llama3_8b(), "up_proj")};
       }},
      {.id = "l3_8b_down", .source = kS000_1_1, .status = exact, .kind = count,
       .expected = {58'720'256}, .value = [] { return Values{part(llama3_8b(), "down_proj")}; }},
      {.id = "l3_8b_norm_gains", .source = kS000_1_1, .status = exact, .kind = count,
       .expected = {8'192}, .value = [] { return Values{part(llama3_8b(), "norms")}; }},
      {.id = "l3_8b_layer_total", .source = kS000_1_1, .status = exact, .kind = count,
       .expected = {218'112'000},
       .value = [] { return Values{dbl(layer_of(llama3_8b()).total)}; }},
      // K (or V) width per token = half of the 2 h_kv d_h cached elements
      {.id = "l3_8b_kv_width", .source = kS000_1_1, .status = exact, .kind = count,
       .expected = {1'024},
       .value = [] { return Values{dbl(kv_elements_per_token_layer(llama3_8b())) / 2.0}; }},
      // query heads per KV head = q_proj / k_proj = h d_h d / (h_kv d_h d)
      {.id = "l3_8b_gqa_group", .source = kS000_1_1, .status = exact, .kind = count,
       .expected = {4},
       .value = [] { return Values{part(llama3_8b(), "q_proj") / part(llama3_8b(), "k_proj")}; }},
      {.id = "l3_8b_blocks", .source = kS000_1_1, .status = exact, .kind = count,
       .expected = {6'979'584'000},
       .value = [] { return Values{dbl(count_params(llama3_8b()).blocks)}; }},
      {.id = "l3_8b_embed_128000", .source = kS000_1_1, .status = exact, .kind = count,
       .expected = {524'288'000},
       .value = [] { return Values{dbl(count_params(llama3_8b(128'000)).embedding)}; }},
      {.id = "l3_8b_embed_128256", .source = kS003_preset, .status = exact, .kind = count,
       .expected = {525'336'576},
       .value = [] { return Values{dbl(count_params(llama3_8b()).embedding)}; }},
      {.id = "l3_8b_total_v128000", .source = kS000_1_1, .status = rounding, .kind = count,
       .expected = {8'028'164'096},
       .value = [] { return Values{dbl(count_params(llama3_8b(128'000)).total)}; },
       .printed = {{8.03e9, 5e-4}}},
      {.id = "l3_8b_total_003", .source = kS003_2_5, .status = rounding, .kind = count,
       .expected = {8'030'261'248},
       .value = [] { return Values{dbl(count_params(llama3_8b()).total)}; },
       .printed = {{8.03e9, 5e-4}}},
      {.id = "l3_8b_tied_saving", .source = kS000_1_1, .status = rounding, .kind = count,
       .expected = {524'288'000},
       .value = [] {
         ModelConfig tied = llama3_8b(128'000);
         tied.tied_embeddings = true;
         return Values{dbl(count_params(llama3_8b(128'000)).total - count_params(tied).total)};
       },
       .printed = {{0.52e9, 1e-2}}},
      {.id = "l3_8b_mlp_share", .source = kS000_1_1, .status = rounding,
       .expected = {kPercent * 176'160'768.0 / 218'112'000.0},
       .value = [] {
         return Values{kPercent * ffn_params(llama3_8b()) / dbl(layer_of(llama3_8b()).total)};
       },
       .printed = {{81.0, 1e-2}}},
      {.id = "l3_8b_attn_share", .source = kS000_1_1, .status = rounding,
       .expected = {kPercent * 41'943'040.0 / 218'112'000.0},
       .value = [] {
         return Values{kPercent * attention_params(llama3_8b()) / dbl(layer_of(llama3_8b()).total)};
       },
       .printed = {{19.0, 5e-2}}},
      {.id = "l3_embed_share", .source = kS003_6, .status = rounding,
       .expected = {kPercent * 2.0 * 525'336'576.0 / kL3Params},
       .value = [] {
         const ParamCounts c = count_params(llama3_8b());
         return Values{kPercent * dbl(c.embedding + c.lm_head) / dbl(c.total)};
       },
       .printed = {{13.0, 1e-2}}},

      // Seed 003 §2.1 textbook layer (4+2m)d^2, d=4096, m=4; drill 1 at d=8192
      {.id = "textbook_attn_4d2", .source = kS003_2_1, .status = rounding, .kind = count,
       .expected = {67'108'864},
       .value = [] { return Values{attention_params(textbook(4096))}; },
       .printed = {{67.1e6, 1e-3}}},
      {.id = "textbook_ffn_8d2", .source = kS003_2_1, .status = rounding, .kind = count,
       .expected = {134'217'728}, .value = [] { return Values{ffn_params(textbook(4096))}; },
       .printed = {{134.2e6, 1e-3}}},
      {.id = "textbook_layer_12d2", .source = kS003_2_1, .status = rounding, .kind = count,
       .expected = {201'326'592},
       .value = [] { return Values{dbl(textbook_layer_params(4096, 4))}; },
       .printed = {{201.3e6, 1e-3}}},
      {.id = "textbook_32_layers", .source = kS003_2_1, .status = rounding, .kind = count,
       .expected = {6'442'450'944},
       .value = [] { return Values{dbl(count_params(with_layers(textbook(4096), 32)).blocks)}; },
       .printed = {{6.44e9, 1e-3}}},
      {.id = "drill1_params", .source = kS003_9, .status = rounding, .kind = count,
       .expected = {805'306'368},
       .value = [] { return Values{dbl(textbook_layer_params(8192, 4))}; },
       .printed = {{805e6, 1e-3}}},

      // Seed 003 §2.1 GPT-3 175B sanity check
      {.id = "gpt3_layer", .source = kS003_2_1_gpt3, .status = rounding, .kind = count,
       .expected = {1'811'939'328},
       .value = [] { return Values{dbl(layer_of(gpt3_175b()).matrix_total)}; },
       .printed = {{1.812e9, 5e-4}}},
      {.id = "gpt3_blocks", .source = kS003_2_1_gpt3, .status = rounding, .kind = count,
       .expected = {173'946'175'488},
       .value = [] { return Values{dbl(count_params(gpt3_175b_12d2()).blocks)}; },
       .printed = {{173.9e9, 5e-4}}},
      {.id = "gpt3_embed", .source = kS003_2_1_gpt3, .status = rounding, .kind = count,
       .expected = {617'558'016},
       .value = [] { return Values{dbl(count_params(gpt3_175b()).embedding)}; },
       .printed = {{0.62e9, 5e-3}}},
      {.id = "gpt3_total_12d2", .source = kS003_2_1_gpt3, .status = rounding, .kind = count,
       .expected = {174'563'733'504},
       .value = [] { return Values{dbl(count_params(gpt3_175b_12d2()).total)}; },
       .printed = {{174.6e9, 5e-4}}},
      // "within 0.3%" holds; the TSV note: positions, biases and LayerNorms add only ~40.5 M
      {.id = "gpt3_gap_pct", .source = kS003_2_1_gpt3, .status = rounding,
       .expected = {kPercent * (175e9 - 174'563'733'504.0) / 175e9},
       .value = [] {
         const double counted = dbl(count_params(gpt3_175b_12d2()).total);
         return Values{-kPercent * relative_change(175e9, counted)};
       },
       .printed = {below(0.3)},
       .also = [] { CHECK(count_params(gpt3_175b()).total == 174'604'259'328); }},
      {.id = "gpt3_d2_multiple", .source = kS003_lab1, .status = exact, .expected = {12.0},
       .value = [] {
         return Values{dbl(layer_of(gpt3_175b()).matrix_total) / d_squared(gpt3_175b())};
       }},

      // Seed 003 §3.5 Llama-3-8B in units of d^2
      {.id = "l3_ffn_ratio", .source = kS003_3_5, .status = exact, .expected = {3.5},
       .value = [] { return Values{part(llama3_8b(), "up_proj") / d_squared(llama3_8b())}; }},
      {.id = "l3_ffn_d2", .source = kS003_3_5, .status = exact, .expected = {10.5},
       .value = [] { return Values{ffn_params(llama3_8b()) / d_squared(llama3_8b())}; }},
      {.id = "l3_attn_d2", .source = kS003_3_5, .status = exact, .expected = {2.5},
       .value = [] { return Values{attention_params(llama3_8b()) / d_squared(llama3_8b())}; }},
      // [0] with the norm gains, [1] matrices only (13 exactly)
      {.id = "l3_layer_d2", .source = kS003_3_5, .status = rounding,
       .expected = {218'112'000.0 / (4096.0 * 4096.0), 13.0},
       .value = [] {
         const LayerKindParams l = layer_of(llama3_8b());
         return Values{dbl(l.total) / d_squared(llama3_8b()),
                       dbl(l.matrix_total) / d_squared(llama3_8b())};
       },
       .printed = {{13.00, 1e-4}}},
      // the gated d_ff with the parameters of the plain 4d MLP (2 x 4d^2): 8d/3
      {.id = "swiglu_ffn_8d3", .source = kS003_3_5, .status = exact,
       .expected = {8.0 * 4096.0 / 3.0},
       .value = [] { return Values{iso_param_d_ff(ffn_params(textbook(4096)), 4096, 3)}; }},

      {.id = "l2_70b_params", .source = kS003_3_4, .status = rounding, .kind = count,
       .expected = {68'976'648'192},
       .value = [] { return Values{dbl(count_params(llama2_70b()).total)}; },
       .printed = {{68.98e9, 1e-4}}},

      // D7: the QKV box's "2d^2 + 2 d d_kv" is Q+K+V+O; Q+K+V is d^2 + 2 d d_kv
      {.id = "diagram_qkv_params", .source = kS003_3_2, .status = disagrees, .kind = count,
       .expected = {25'165'824},
       .value = [] {
         return Values{part(llama3_8b(), "q_proj") + part(llama3_8b(), "k_proj") +
                       part(llama3_8b(), "v_proj")};
       },
       .printed = {{2.0 * 4096 * 4096 + 2.0 * 4096 * 1024}},
       .doc_value = [] { return Values{attention_params(llama3_8b())}; }},
  };
  // clang-format on
  return rows;
}

// ============================================================================================
// B. Weight bytes and unit conversions
// ============================================================================================

const std::vector<Row>& rows_b_bytes() {
  // One compact row per TSV line; clang-format would put every field on its own line.
  // clang-format off
  static const std::vector<Row> rows = {
      {.id = "weights_7b_bf16_000", .source = kS000_1_3_bullet, .status = exact,
       .expected = {14.0}, .value = [] { return Values{weight_bytes(7e9, 16.0).in(units::kGB)}; }},
      {.id = "weights_7b_bf16_002", .source = kS002_decode, .status = exact, .expected = {14.0},
       .value = [] { return Values{weight_bytes(7e9, 16.0).in(units::kGB)}; }},
      // only the real Llama-2-7B count gives 12.6 GiB; nominal 7e9 x 2 B is 13.04 GiB
      {.id = "weights_7b_gib", .source = kS002_batch, .status = rounding,
       .expected = {13'476'831'232.0 / units::kGiB},
       .value = [] {
         return Values{weight_bytes(dbl(count_params(llama2_7b()).total), 16.0).in(units::kGiB)};
       },
       .printed = {{12.6, 5e-3}}},
      {.id = "l3_8b_weights_fp16", .source = kS003_2_5, .status = rounding,
       .expected = {16.060522496},
       .value = [] {
         return Values{weight_bytes(dbl(count_params(llama3_8b()).total), 16.0).in(units::kGB)};
       },
       .printed = {{16.06, 5e-4}}},
      {.id = "l3_8b_weights_int8", .source = kS003_2_5, .status = rounding,
       .expected = {8.030261248},
       .value = [] {
         return Values{weight_bytes(dbl(count_params(llama3_8b()).total), 8.0).in(units::kGB)};
       },
       .printed = {{8.03, 5e-4}}},
      {.id = "decode_bytes_l3_004", .source = kS004_decode, .status = rounding,
       .expected = {16.060522496},
       .value = [] {
         return Values{decode(llama3_8b(), doc_decode(), kH100).weight_bytes.in(units::kGB)};
       },
       .printed = {{16.06, 5e-4}}},
      {.id = "l2_70b_weights_fp16", .source = kS003_3_4, .status = rounding,
       .expected = {137.953296384}, .value = [] { return Values{l2_70b_weights().in(units::kGB)}; },
       .printed = {{137.95, 5e-5}}},
      {.id = "drill3_weights", .source = kS003_9, .status = exact, .expected = {140.0},
       .value = [] { return Values{weight_bytes(70e9, 16.0).in(units::kGB)}; }},
      // [0] all layer parameters, [1] the matrices only (the crossover line's 436,207,616)
      {.id = "layer_weight_bytes_l3", .source = kS003_3_3, .status = rounding, .kind = count,
       .expected = {436'224'000, 436'207'616},
       .value = [] { return Values{layer_bytes_l3().base(), layer_matrix_bytes_l3().base()}; },
       .printed = {{436e6, 1e-3}}},
      {.id = "proj_T1_weight_bytes", .source = kS003_2_4_t1, .status = rounding, .kind = count,
       .expected = {33'554'432},
       .value = [] { return Values{weight_bytes(4096.0 * 4096.0, 16.0).base()}; },
       .printed = {{33.6e6, 2e-3}}},
      {.id = "tensor_2x3_fp16_bytes", .source = kS000_1_2, .status = exact, .kind = count,
       .expected = {12},
       .value = [] {
         constexpr std::array<std::int64_t, 2> shape{2, 3};
         return Values{tensor_payload_bytes(shape, dtype_bytes(DType::fp16)).base()};
       }},
      {.id = "tensor_2x3_strides", .source = kS000_1_2, .status = exact, .kind = count,
       .expected = {3, 1},
       .value = [] {
         constexpr std::array<std::int64_t, 2> shape{2, 3};
         Values out;
         for (const std::int64_t s : contiguous_strides(shape)) {
           out.push_back(dbl(s));
         }
         return out;
       }},
      // [0] sequences that fit on an 80 GB H100 (none), [1] GPUs needed for the weights alone
      {.id = "l2_70b_fits_h100", .source = kS003_3_6_p2, .status = exact, .kind = count,
       .expected = {0, 2},
       .value = [] {
         return Values{l2_70b_concurrency(units::gb(80), 8, 4096),
                       dbl(devices_for_weights(l2_70b_weights(), units::gb(80)))};
       }},
  };
  // clang-format on
  return rows;
}

// ============================================================================================
// C. FLOPs per token, training compute and wall-clock
// ============================================================================================

units::Flop forward_nominal(double params) { return forward_flops_per_token(counts_of(params), FlopBasis::all_params); }

const std::vector<Row>& rows_c_flops() {
  // One compact row per TSV line; clang-format would put every field on its own line.
  // clang-format off
  static const std::vector<Row> rows = {
      {.id = "fwd_flops_8e9", .source = kS000_1_4, .status = exact, .expected = {1.6e10},
       .value = [] { return Values{forward_nominal(8e9).base()}; }},
      {.id = "train_flops_token_8e9", .source = kS000_1_4, .status = exact, .expected = {4.8e10},
       .value = [] { return Values{training_flops_per_token(forward_nominal(8e9)).base()}; }},
      {.id = "train_flops_8e9_1T", .source = kS000_1_4, .status = exact, .expected = {4.8e22},
       .value = [] { return Values{training_compute(8e9, 1e12).base()}; }},
      {.id = "train_time_8e9_1T_s", .source = kS000_1_4, .status = rounding,
       .expected = {4.8e22 / 989e12},
       .value = [] {
         return Values{time_to_train(training_compute(8e9, 1e12), 1, kH100At989.peak).base()};
       },
       .printed = {{4.9e7, 1.5e-2}}},
      {.id = "train_time_8e9_1T_days", .source = kS000_1_4, .status = rounding,
       .expected = {4.8e22 / 989e12 / 86'400.0},
       .value = [] {
         return Values{time_to_train(training_compute(8e9, 1e12), 1, kH100At989.peak)
                           .in(units::kSecondsPerDay)};
       },
       .printed = {{560.0, 5e-3}}},
      {.id = "flops_layer_24d2", .source = kS003_2_2, .status = rounding, .kind = count,
       .expected = {402'653'184},
       .value = [] {
         return Values{
             forward_flops_per_token(count_params(textbook(4096)), FlopBasis::non_embedding)
                 .base()};
       },
       .printed = {{403e6, 2e-3}}},
      {.id = "drill1_flops", .source = kS003_9, .status = rounding, .kind = count,
       .expected = {1'610'612'736},
       .value = [] {
         return Values{
             forward_flops_per_token(count_params(textbook(8192)), FlopBasis::non_embedding)
                 .base()};
       },
       .printed = {{1.61e9, 2e-3}}},
      {.id = "train_7b_2T_flops", .source = kS003_2_2, .status = exact, .expected = {8.4e22},
       .value = [] { return Values{training_compute(7e9, 2e12).base()}; }},
      {.id = "train_7b_2T_seconds", .source = kS003_2_2, .status = exact, .expected = {210'000.0},
       .value = [] {
         return Values{
             time_to_train(training_compute(7e9, 2e12), 1000, units::tflop_per_s(400)).base()};
       }},
      {.id = "train_7b_2T_days", .source = kS003_2_2, .status = rounding,
       .expected = {210'000.0 / 86'400.0},
       .value = [] {
         return Values{time_to_train(training_compute(7e9, 2e12), 1000, units::tflop_per_s(400))
                           .in(units::kSecondsPerDay)};
       },
       .printed = {{2.4, 2e-2}}},
      {.id = "drill2_flops", .source = kS003_9, .status = exact, .expected = {7.8e22},
       .value = [] { return Values{training_compute(13e9, 1e12).base()}; }},
      {.id = "drill2_ckpt", .source = kS003_9, .status = exact, .expected = {1.04e23},
       .value = [] {
         return Values{(recompute_flops_per_token(forward_nominal(13e9)) * 1e12).base()};
       }},
      {.id = "ckpt_compute_overhead", .source = kS002_multi, .status = rounding,
       .expected = {1.0 / 3.0},
       .value = [] {
         const units::Flop f = forward_nominal(7e9);
         return Values{relative_change(training_flops_per_token(f).base(),
                                       recompute_flops_per_token(f).base())};
       },
       .printed = {{1.0 / 3.0, 1e-2}}},  // "about a third"
      // FLOPs per parameter per token: [0] training 6, [1] forward 2, [2] backward 4
      {.id = "train_flops_split", .source = kS004_budget, .status = exact,
       .expected = {6.0, 2.0, 4.0},
       .value = [] {
         const units::Flop f = forward_nominal(8e9);
         const units::Flop t = training_flops_per_token(f);
         return Values{t.base() / 8e9, f.base() / 8e9, (t - f).base() / 8e9};
       }},
      // The TSV's input is literally 2 x 6,979,584,000 (the blocks). The engine's non_embedding
      // basis also counts the final norm gain (4,096) and prints the same 13.96 GFLOP.
      {.id = "l3_fwd_flops_token", .source = kS003_5_2_l3, .status = rounding, .kind = count,
       .expected = {13'959'168'000},
       .value = [] {
         return Values{forward_nominal(dbl(count_params(llama3_8b()).blocks)).base()};
       },
       .printed = {{13.96e9, 5e-4}},
       .also = [] {
         const units::Flop f =
             forward_flops_per_token(count_params(llama3_8b()), FlopBasis::non_embedding);
         CHECK_THAT(f.base(), WithinRel(13.96e9, 5e-4));
       }},
      {.id = "l3_train_flops_token", .source = kS003_5_2_l3, .status = rounding, .kind = count,
       .expected = {41'877'504'000},
       .value = [] {
         return Values{
             training_flops_per_token(forward_nominal(dbl(count_params(llama3_8b()).blocks)))
                 .base()};
       },
       .printed = {{41.88e9, 5e-4}},
       .also = [] {
         const units::Flop f =
             forward_flops_per_token(count_params(llama3_8b()), FlopBasis::non_embedding);
         CHECK_THAT(training_flops_per_token(f).base(), WithinRel(41.88e9, 5e-4));
       }},
      // the head's 2 V d is what the physical basis adds to the non-embedding one
      {.id = "l3_lm_head_flops", .source = kS003_6, .status = exact, .kind = count,
       .expected = {1'050'673'152},
       .value = [] {
         const ParamCounts c = count_params(llama3_8b());
         return Values{(forward_flops_per_token(c, FlopBasis::physical) -
                        forward_flops_per_token(c, FlopBasis::non_embedding))
                           .base()};
       }},
      // D4: [0] 2 x all params (004's convention), [1] physical (head in, gather out)
      {.id = "decode_flops_l3_004", .source = kS004_decode, .status = disagrees, .kind = count,
       .expected = {16'060'522'496, 15'009'849'344},
       .value = [] {
         return Values{decode(llama3_8b(), doc_decode(), kH100).flops.base(),
                       decode(llama3_8b(), touched_decode(), kH100).flops.base()};
       },
       .printed = {{16.06e9, 5e-4}},
       .doc_value = [] { return Values{decode(llama3_8b(), doc_decode(), kH100).flops.base()}; }},
      {.id = "proj_T1_flops", .source = kS003_2_4_t1, .status = rounding, .kind = count,
       .expected = {33'554'432}, .value = [] { return Values{gemm_flops(1, 4096, 4096).base()}; },
       .printed = {{33.6e6, 2e-3}}},
  };
  // clang-format on
  return rows;
}

// ============================================================================================
// D. Attention FLOPs, crossover, score matrix, prefill
// ============================================================================================

const std::vector<Row>& rows_d_attention() {
  // One compact row per TSV line; clang-format would put every field on its own line.
  // clang-format off
  static const std::vector<Row> rows = {
      {.id = "attn_ffn_crossover_m4", .source = kS003_2_3, .status = exact, .expected = {24'576.0},
       .value = [] {
         const ModelConfig m = textbook(4096);
         return Values{attention_crossover_tokens(m, count_params(m), AttentionMode::full)};
       }},
      {.id = "drill4_crossover", .source = kS003_9, .status = exact, .expected = {24'576.0},
       .value = [] {
         const ModelConfig m = with_layers(textbook(4096), 32);
         return Values{attention_crossover_tokens(m, count_params(m), AttentionMode::full)};
       }},
      {.id = "l3_attn_crossover", .source = kS003_5_2_l3, .status = exact, .expected = {26'624.0},
       .value = [] {
         const ModelConfig m = llama3_8b();
         return Values{attention_crossover_tokens(m, count_params(m), AttentionMode::full)};
       }},
      {.id = "attn_share_8192_l3", .source = kS003_2_3, .status = rounding,
       .expected = {kPercent * 8192.0 / (8192.0 + 26'624.0)},
       .value = [] {
         const ModelConfig m = llama3_8b();
         return Values{kPercent * attention_share(m, count_params(m), 8192, AttentionMode::full)};
       },
       .printed = {{23.5, 2e-3}}},
      // [0] bytes, [1] the same in GiB (4 exactly)
      {.id = "score_matrix_8192", .source = kS003_2_3, .status = rounding, .kind = count,
       .expected = {4'294'967'296, 4},
       .value = [] {
         const units::Bytes s = score_matrix_bytes(32, 8192, dtype_bytes(DType::fp16));
         return Values{s.base(), s.in(units::kGiB)};
       },
       .printed = {{4.3e9, 2e-3}}},

      // Seed 004 prefill of Llama-3-8B, S=2048, on H100 SXM (D6: 2 P_all S + 2 L S^2 d)
      {.id = "prefill_linear_flops", .source = kS004_prefill, .status = exact, .kind = count,
       .expected = {32'891'950'071'808},
       .value = [] {
         const PrefillPass p = prefill_l3(doc_prefill());
         return Values{(p.flops - p.attention_flops).base()};
       }},
      {.id = "prefill_attn_flops", .source = kS004_prefill, .status = exact, .kind = count,
       .expected = {1'099'511'627'776},
       .value = [] { return Values{prefill_l3(doc_prefill()).attention_flops.base()}; }},
      // [0] 004's convention, [1] physical with the head on all 2048 positions, [2] on the last
      {.id = "prefill_total_flops", .source = kS004_prefill, .status = disagrees,
       .expected = {33.991461699584, 31.839683084288, 29.688955142144},
       .value = [] {
         return Values{
             prefill_l3(doc_prefill()).flops.in(units::kTera),
             prefill_l3(doc_prefill(FlopBasis::physical, LmHeadPositions::all))
                 .flops.in(units::kTera),
             prefill_l3(doc_prefill(FlopBasis::physical, LmHeadPositions::last))
                 .flops.in(units::kTera)};
       },
       .printed = {{34.0, 5e-4}},
       .doc_value = [] { return Values{prefill_l3(doc_prefill()).flops.in(units::kTera)}; }},
      {.id = "prefill_attn_share", .source = kS004_prefill, .status = rounding,
       .expected = {kPercent * 1'099'511'627'776.0 / kPrefillFlops},
       .value = [] {
         const PrefillPass p = prefill_l3(doc_prefill());
         return Values{kPercent * (p.attention_flops / p.flops)};
       },
       .printed = {{3.2, 2e-2}}},
      {.id = "prefill_kv_written", .source = kS004_prefill, .status = rounding,
       .expected = {268.435456},
       .value = [] { return Values{prefill_l3(doc_prefill()).kv_written.in(units::kMB)}; },
       .printed = {{268.0, 2e-3}}},
      {.id = "prefill_intensity", .source = kS004_prefill, .status = rounding,
       .expected = {kPrefillFlops / (kL3Bytes + 268'435'456.0)},
       .value = [] { return Values{prefill_l3(doc_prefill()).intensity.base()}; },
       .printed = {{2082.0, 5e-4}}},
      {.id = "prefill_past_ridge", .source = kS004_prefill, .status = rounding,
       .expected = {kPrefillFlops / (kL3Bytes + 268'435'456.0) / (989.4 / 3.35)},
       .value = [] { return Values{prefill_l3(doc_prefill()).intensity / ridge(kH100)}; },
       .printed = {{7.0, 2e-2}}},
      {.id = "prefill_time", .source = kS004_prefill, .status = rounding,
       .expected = {kPrefillFlops / 989.4e12 / kMs},
       .value = [] { return Values{prefill_l3(doc_prefill()).t_floor.in(kMs)}; },
       .printed = {{34.4, 2e-3}}},
      {.id = "decode_vs_prefill_per_token", .source = kS004_prefill, .status = rounding,
       .expected = {(kL3Bytes / 3.35e12) / (kPrefillFlops / 989.4e12 / 2048.0)},
       .value = [] {
         const DecodeStep d = decode(llama3_8b(), doc_decode(), kH100);
         return Values{d.t_step / (prefill_l3(doc_prefill()).t_floor / 2048.0)};
       },
       .printed = {{285.0, 5e-3}}},
  };
  // clang-format on
  return rows;
}

// ============================================================================================
// E. KV cache and concurrency
// ============================================================================================

const std::vector<Row>& rows_e_kv() {
  // One compact row per TSV line; clang-format would put every field on its own line.
  // clang-format off
  static const std::vector<Row> rows = {
      // Seed 000 eq. 1.1, Llama-3-8B
      {.id = "kv_scalars_head_layer", .source = kS000_1_3_kv, .status = exact, .kind = count,
       .expected = {256},
       .value = [] {
         const ModelConfig m = llama3_8b();
         return Values{dbl(kv_elements_per_token_layer(m)) / dbl(m.n_kv_heads)};
       }},
      {.id = "kv_scalars_layer", .source = kS000_1_3_kv, .status = exact, .kind = count,
       .expected = {2'048},
       .value = [] { return Values{dbl(kv_elements_per_token_layer(llama3_8b()))}; }},
      // at one byte per element the byte count is the scalar count
      {.id = "kv_scalars_token", .source = kS000_1_3_kv, .status = exact, .kind = count,
       .expected = {65'536},
       .value = [] {
         return Values{kv_bytes_per_token(llama3_8b(), 1.0).base()};
       }},
      {.id = "kv_bytes_token_l3", .source = kS000_1_3_kv, .status = exact, .kind = count,
       .expected = {131'072},
       .value = [] {
         return Values{kv_bytes_per_token(llama3_8b(), dtype_bytes(DType::bf16)).base()};
       }},
      // [0] bytes, [1] MiB
      {.id = "kv_bytes_2048_l3", .source = kS000_1_3_kv, .status = exact, .kind = count,
       .expected = {268'435'456, 256},
       .value = [] {
         const units::Bytes kv = kv_bytes_per_sequence(llama3_8b(), 2048, dtype_bytes(DType::bf16));
         return Values{kv.base(), kv.in(units::kMiB)};
       }},
      {.id = "l3_kv_token_kb", .source = kS003_5_2_l3, .status = rounding, .expected = {131.072},
       .value = [] { return Values{kv_bytes_per_token(llama3_8b(), 2.0).in(units::kKB)}; },
       .printed = {{131.1, 5e-4}}},
      {.id = "kv_8192_l3", .source = kS003_2_5, .status = rounding, .expected = {1.073741824},
       .value = [] { return Values{kv_bytes_per_sequence(llama3_8b(), 8192, 2.0).in(units::kGB)}; },
       .printed = {{1.07, 5e-3}}},
      {.id = "l3_kv_8192_seq", .source = kS003_5_2_l3, .status = rounding,
       .expected = {1.073741824},
       .value = [] { return Values{kv_bytes_per_sequence(llama3_8b(), 8192, 2.0).in(units::kGB)}; },
       .printed = {{1.07, 5e-3}}},
      {.id = "kv_append_per_layer", .source = kS003_3_2, .status = exact, .kind = count,
       .expected = {4'096},
       .value = [] { return Values{kv_bytes_per_token(with_layers(llama3_8b(), 1), 2.0).base()}; }},

      // Seed 002, the 7B MHA model (Llama-2-7B)
      {.id = "kv_7b_mha_8192", .source = kS002_batch, .status = exact, .expected = {4.0},
       .value = [] {
         return Values{kv_bytes_per_sequence(llama2_7b(), 8192, 2.0).in(units::kGiB)};
       }},
      {.id = "kv_7b_mha_16seq", .source = kS002_batch, .status = exact, .expected = {64.0},
       .value = [] {
         const DecodeStep s = decode(llama2_7b(), doc_decode(16, 8192), kGenericGpu);
         return Values{s.kv_bytes.in(units::kGiB)};
       }},

      // Seed 003 §3.4, Llama-2-70B: [0] d_kv, [1] the reduction from d = 8192
      {.id = "l2_70b_kv_width", .source = kS003_3_4, .status = exact, .kind = count,
       .expected = {1'024, 8},
       .value = [] {
         return Values{dbl(kv_elements_per_token_layer(llama2_70b())) / 2.0,
                       part(llama2_70b(), "q_proj") / part(llama2_70b(), "k_proj")};
       }},
      {.id = "l2_70b_kv_token_gqa", .source = kS003_3_4, .status = exact, .kind = count,
       .expected = {327'680},
       .value = [] { return Values{kv_bytes_per_token(llama2_70b(8), 2.0).base()}; }},
      {.id = "l2_70b_kv_token_mha", .source = kS003_3_4, .status = exact, .kind = count,
       .expected = {2'621'440},
       .value = [] { return Values{kv_bytes_per_token(llama2_70b(64), 2.0).base()}; }},
      {.id = "l2_70b_kv_mha_vs_gqa", .source = kS003_3_4_short, .status = exact, .expected = {8.0},
       .value = [] {
         return Values{kv_bytes_per_token(llama2_70b(64), 2.0) /
                       kv_bytes_per_token(llama2_70b(8), 2.0)};
       }},
      {.id = "l2_70b_kv_seq_gqa", .source = kS003_3_4, .status = rounding, .expected = {1.34217728},
       .value = [] { return Values{l2_70b_kv(8, 4096).in(units::kGB)}; },
       .printed = {{1.34, 5e-3}}},
      {.id = "l2_70b_kv_seq_mha", .source = kS003_3_4, .status = rounding,
       .expected = {10.73741824},
       .value = [] { return Values{l2_70b_kv(64, 4096).in(units::kGB)}; },
       .printed = {{10.74, 5e-4}}},
      // 192 GB read as 192e9 B, as the document does (D8)
      {.id = "l2_70b_free_mi300x", .source = kS003_3_4, .status = rounding,
       .expected = {54.046703616},
       .value = [] {
         const units::Bytes free = free_memory(units::gb(192), l2_70b_weights(), units::Bytes{});
         return Values{free.in(units::kGB)};
       },
       .printed = {{54.05, 2e-4}}},
      {.id = "l2_70b_conc_gqa", .source = kS003_3_4, .status = exact, .kind = count,
       .expected = {40},
       .value = [] {
         return Values{l2_70b_concurrency(units::gb(192), 8, 4096)};
       }},
      {.id = "l2_70b_conc_mha", .source = kS003_3_4, .status = exact, .kind = count,
       .expected = {5},
       .value = [] {
         return Values{l2_70b_concurrency(units::gb(192), 64, 4096)};
       }},
      {.id = "gqa_concurrency_gain", .source = kS003_3_4, .status = exact, .expected = {8.0},
       .value = [] {
         return Values{l2_70b_concurrency(units::gb(192), 8, 4096) /
                       l2_70b_concurrency(units::gb(192), 64, 4096)};
       }},
      {.id = "l2_70b_conc_8k_context", .source = kS003_3_4_8k, .status = exact, .kind = count,
       .expected = {20},
       .value = [] {
         return Values{l2_70b_concurrency(units::gb(192), 8, 8192)};
       }},
      // D8: 192 GiB gives [0] 68.2 GB free, [1] 50 GQA and [2] 6 MHA sequences; the document's
      // 40 / 5 come from 192e9 B
      {.id = "mi300x_capacity_units", .source = kS003_3_4_units, .status = disagrees,
       .expected = {68.205133824, 50, 6},
       .value = [] {
         const units::Bytes free = free_memory(units::gib(192), l2_70b_weights(), units::Bytes{});
         return Values{free.in(units::kGB),
                       l2_70b_concurrency(units::gib(192), 8, 4096),
                       l2_70b_concurrency(units::gib(192), 64, 4096)};
       },
       .printed = {{40.0}, {5.0}},
       .doc_value = [] {
         return Values{l2_70b_concurrency(units::gb(192), 8, 4096),
                       l2_70b_concurrency(units::gb(192), 64, 4096)};
       }},
      {.id = "drill3_free", .source = kS003_9, .status = exact, .expected = {52.0},
       .value = [] {
         const units::Bytes free =
             free_memory(units::gb(192), weight_bytes(70e9, 16.0), units::Bytes{});
         return Values{free.in(units::kGB)};
       }},
  };
  // clang-format on
  return rows;
}

// ============================================================================================
// F. Arithmetic intensity and ridge points
// ============================================================================================

const std::vector<Row>& rows_f_intensity() {
  // One compact row per TSV line; clang-format would put every field on its own line.
  // clang-format off
  static const std::vector<Row> rows = {
      // Seed 002 intensity table (bf16)
      {.id = "add_intensity_bf16", .source = kS002_table, .status = rounding,
       .expected = {1.0 / 6.0},
       .value = [] { return Values{elementwise_add_intensity(2.0).base()}; },
       .printed = {{0.17, 5e-2}}},
      {.id = "matmul_intensity_512_bf16", .source = kS002_table, .status = rounding,
       .expected = {512.0 / 3.0},
       .value = [] { return Values{gemm_intensity(512, 512, 512, 2.0).base()}; },
       .printed = {{171.0, 5e-3}}},
      {.id = "matmul_intensity_4096_bf16", .source = kS002_table, .status = rounding,
       .expected = {4096.0 / 3.0},
       .value = [] { return Values{gemm_intensity(4096, 4096, 4096, 2.0).base()}; },
       .printed = {{1365.0, 5e-4}}},
      {.id = "balance_generic_gpu", .source = kS002_table, .status = exact, .expected = {150.0},
       .value = [] { return Values{ridge(kGenericGpu).base()}; }},

      // D1: seed 002's CPU table is fp32; [0] bf16 (b=2), [1] fp32 (b=4)
      {.id = "cpu_matmul_intensity_1024", .source = kS002_cpu, .status = disagrees,
       .expected = {1024.0 / 3.0, 1024.0 / 6.0},
       .value = [] {
         return Values{gemm_intensity(1024, 1024, 1024, 2.0).base(),
                       gemm_intensity(1024, 1024, 1024, 4.0).base()};
       },
       .printed = {{171.0, 5e-3}},
       .doc_value = [] { return Values{gemm_intensity(1024, 1024, 1024, 4.0).base()}; }},
      {.id = "cpu_matmul_intensity_2048", .source = kS002_cpu, .status = disagrees,
       .expected = {2048.0 / 3.0, 2048.0 / 6.0},
       .value = [] {
         return Values{gemm_intensity(2048, 2048, 2048, 2.0).base(),
                       gemm_intensity(2048, 2048, 2048, 4.0).base()};
       },
       .printed = {{341.0, 5e-3}},
       .doc_value = [] { return Values{gemm_intensity(2048, 2048, 2048, 4.0).base()}; }},
      {.id = "cpu_matmul_intensity_4096", .source = kS002_cpu, .status = disagrees,
       .expected = {4096.0 / 3.0, 4096.0 / 6.0},
       .value = [] {
         return Values{gemm_intensity(4096, 4096, 4096, 2.0).base(),
                       gemm_intensity(4096, 4096, 4096, 4.0).base()};
       },
       .printed = {{683.0, 5e-3}},
       .doc_value = [] { return Values{gemm_intensity(4096, 4096, 4096, 4.0).base()}; }},
      {.id = "cpu_add_intensity", .source = kS002_cpu, .status = disagrees,
       .expected = {1.0 / 6.0, 1.0 / 12.0},
       .value = [] {
         return Values{elementwise_add_intensity(2.0).base(),
                       elementwise_add_intensity(4.0).base()};
       },
       .printed = {{0.08, 5e-2}},
       .doc_value = [] { return Values{elementwise_add_intensity(4.0).base()}; }},
      // bandwidth implied by a measured add rate: BW = rate / I, fp32
      {.id = "cpu_add_bw_2048", .source = kS002_cpu, .status = rounding, .expected = {50.4},
       .value = [] {
         return Values{(units::flop_per_s(4.2e9) / elementwise_add_intensity(4.0)).in(units::kGB)};
       },
       .printed = {{50.3, 5e-3}}},
      {.id = "cpu_add_bw_4096", .source = kS002_cpu, .status = rounding, .expected = {48.0},
       .value = [] {
         return Values{(units::flop_per_s(4.0e9) / elementwise_add_intensity(4.0)).in(units::kGB)};
       },
       .printed = {{48.3, 1e-2}}},

      // Seed 004 'Arithmetic intensity'
      {.id = "matmul_4096_cubed", .source = kS004_intensity, .status = rounding,
       .expected = {1.0 / (1.0 / 4096 + 1.0 / 4096 + 1.0 / 4096)},
       .value = [] { return Values{gemm_intensity(4096, 4096, 4096, 2.0).base()}; },
       .printed = {{1365.0, 5e-4}}},
      {.id = "matvec_intensity", .source = kS004_intensity, .status = rounding,
       .expected = {4096.0 / 4098.0},
       .value = [] { return Values{gemm_intensity(1, 4096, 4096, 2.0).base()}; },
       .printed = {{1.0, 1e-3}}},

      // Decode intensity, weights-only bytes (I = B)
      {.id = "decode_intensity_bf16", .source = kS002_decode, .status = exact, .expected = {1.0},
       .value = [] {
         return Values{decode_nominal(7e9, doc_decode(), kGenericGpu).intensity.base()};
       }},
      {.id = "decode_intensity_exact1", .source = kS004_decode, .status = exact, .expected = {1.0},
       .value = [] { return Values{decode(llama3_8b(), doc_decode(), kH100).intensity.base()}; }},
      {.id = "batch_intensity_scaling", .source = kS002_batch, .status = exact,
       .expected = {1.0, 4.0, 16.0, 64.0, 256.0},
       .value = [] {
         Values out;
         for (const std::int64_t b : {1, 4, 16, 64, 256}) {
           out.push_back(decode_nominal(7e9, doc_decode(b), kGenericGpu).intensity.base());
         }
         return out;
       }},
      {.id = "lab3_flop_per_byte_equals_batch", .source = kS003_lab3, .status = exact,
       .expected = {32.0},
       .value = [] {
         return Values{decode(llama3_8b(), doc_decode(32), kMI300X).intensity.base()};
       }},

      // Seed 003 §2.4 table: T d/(d+2T), d = 4096
      {.id = "proj_intensity_T1", .source = kS003_2_4, .status = rounding,
       .expected = {4096.0 / 4098.0},
       .value = [] { return Values{projection_intensity(1, 4096).base()}; },
       .printed = {{1.0, 1e-3}}},
      {.id = "proj_intensity_T8", .source = kS003_2_4, .status = rounding,
       .expected = {8.0 * 4096.0 / 4112.0},
       .value = [] { return Values{projection_intensity(8, 4096).base()}; },
       .printed = {{8.0, 5e-3}}},
      {.id = "proj_intensity_T64", .source = kS003_2_4, .status = rounding,
       .expected = {64.0 * 4096.0 / 4224.0},
       .value = [] { return Values{projection_intensity(64, 4096).base()}; },
       .printed = {{62.1, 1e-3}}},
      {.id = "proj_intensity_T281", .source = kS003_2_4, .status = rounding,
       .expected = {281.0 * 4096.0 / 4658.0},
       .value = [] { return Values{projection_intensity(281, 4096).base()}; },
       .printed = {{247.0, 2e-3}}},
      {.id = "proj_intensity_T2048", .source = kS003_2_4, .status = exact, .expected = {1024.0},
       .value = [] { return Values{projection_intensity(2048, 4096).base()}; }},
      {.id = "proj_intensity_T8192", .source = kS003_2_4, .status = rounding, .expected = {1638.4},
       .value = [] { return Values{projection_intensity(8192, 4096).base()}; },
       .printed = {{1638.0, 5e-4}}},

      // Seed 003 §5.1 diagram / §3.1 flowchart
      {.id = "diagram_decode_b32_intensity", .source = kS003_5_1, .status = rounding,
       .expected = {32.0 * 4096.0 / 4160.0},
       .value = [] { return Values{projection_intensity(32, 4096).base()}; },
       .printed = {{32.0, 2e-2}}},
      // D11: ~512 is the weights-only I = B; the §2.4 formula gives 409.6
      {.id = "diagram_decode_b512_intensity", .source = kS003_5_1, .status = disagrees,
       .expected = {409.6}, .value = [] { return Values{projection_intensity(512, 4096).base()}; },
       .printed = {{512.0, 1e-3}},
       .doc_value = [] {
         return Values{decode(llama3_8b(), doc_decode(512), kMI300X).intensity.base()};
       }},
      // D12: ~1600 is the 8192-token value (tolerance of diagram_train_8k_intensity), not 2048's
      {.id = "diagram_prefill_2048_intensity", .source = kS003_5_1, .status = disagrees,
       .expected = {1024.0},
       .value = [] {
         return Values{projection_intensity(2048, 4096).base()};
       },
       .printed = {{1600.0, 3e-2}},
       .doc_value = [] { return Values{projection_intensity(8192, 4096).base()}; }},
      {.id = "diagram_train_8k_intensity", .source = kS003_5_1, .status = rounding,
       .expected = {1638.4},
       .value = [] {
         return Values{projection_intensity(8192, 4096).base()};
       },
       .printed = {{1600.0, 3e-2}}},

      // Ridge points
      {.id = "ridge_mi300x", .source = kS003_3_6, .status = rounding, .expected = {1307.4 / 5.3},
       .value = [] { return Values{ridge(kMI300X).base()}; }, .printed = {{247.0, 2e-3}}},
      {.id = "ridge_mi355x", .source = kS003_3_6, .status = rounding, .expected = {312.5},
       .value = [] { return Values{ridge(kMI355X).base()}; }, .printed = {{313.0, 2e-3}}},
      {.id = "ridge_h100", .source = kS003_3_6, .status = rounding, .expected = {989.4 / 3.35},
       .value = [] { return Values{ridge(kH100).base()}; }, .printed = {{295.0, 2e-3}}},
      {.id = "ridge_h100_989", .source = kS004_machine, .status = rounding,
       .expected = {989.0 / 3.35}, .value = [] { return Values{ridge(kH100At989).base()}; },
       .printed = {{295.0, 2e-3}}},
      {.id = "ridge_h200", .source = kS003_3_6, .status = rounding, .expected = {989.4 / 4.8},
       .value = [] { return Values{ridge(kH200).base()}; }, .printed = {{206.0, 2e-3}}},
      {.id = "h100_sparse_peak", .source = kS004_machine, .status = exact, .expected = {1978.8},
       .value = [] { return Values{structured_sparsity_peak(kH100.peak).in(units::kTera)}; }},
      {.id = "a100_to_h100_compute", .source = kS004_machine, .status = rounding,
       .expected = {989.4 / 312.0}, .value = [] { return Values{kH100.peak / kA100_80GB.peak}; },
       .printed = {{3.2, 1e-2}}},
      {.id = "a100_to_h100_bw", .source = kS004_machine, .status = rounding,
       .expected = {3.35 / 2.039},
       .value = [] { return Values{kH100.bandwidth / kA100_80GB.bandwidth}; },
       .printed = {{1.6, 3e-2}}},
      {.id = "a100_to_h100_ridge", .source = kS004_machine, .status = rounding,
       .expected = {(989.4 / 3.35) / (312.0 / 2.039)},
       .value = [] { return Values{ridge(kH100) / ridge(kA100_80GB)}; },
       .printed = {below(2.0)}},  // "nearly doubled"
      // [0] bandwidth, [1] Llama-3-8B decode ceiling (memory-bound, so the same 43%)
      {.id = "h200_vs_h100_bw", .source = kS003_3_6_p3, .status = rounding,
       .expected = {kPercent * (4.8 / 3.35 - 1.0), kPercent * (4.8 / 3.35 - 1.0)},
       .value = [] {
         const double h100 = decode(llama3_8b(), doc_decode(), kH100).tokens_per_s;
         const double h200 = decode(llama3_8b(), doc_decode(), kH200).tokens_per_s;
         return Values{kPercent * relative_change(kH100.bandwidth.base(), kH200.bandwidth.base()),
                       kPercent * relative_change(h100, h200)};
       },
       .printed = {{43.0, 1e-2}, {43.0, 1e-2}}},
  };
  // clang-format on
  return rows;
}

// ============================================================================================
// G. Decode ceilings, utilisation, batching
// ============================================================================================

const std::vector<Row>& rows_g_decode() {
  // One compact row per TSV line; clang-format would put every field on its own line.
  // clang-format off
  static const std::vector<Row> rows = {
      // Seed 000 §1.4: nominal 8e9 parameters on H100 at 989 TFLOP/s
      {.id = "decode_compute_time_16gflop", .source = kS000_1_4, .status = rounding,
       .expected = {16e9 / 989e12 / kUs},
       .value = [] {
         return Values{decode_nominal(8e9, doc_decode(), kH100At989).t_compute.in(kUs)};
       },
       .printed = {{16.0, 2e-2}}},
      {.id = "decode_weight_read_16gb", .source = kS000_1_4, .status = rounding,
       .expected = {16e9 / 3.35e12 / kMs},
       .value = [] {
         return Values{decode_nominal(8e9, doc_decode(), kH100At989).t_memory.in(kMs)};
       },
       .printed = {{4.8, 1e-2}}},
      {.id = "decode_mem_vs_compute_ratio_000", .source = kS000_1_4, .status = rounding,
       .expected = {989.0 / 3.35},
       .value = [] {
         const DecodeStep s = decode_nominal(8e9, doc_decode(), kH100At989);
         return Values{s.t_memory / s.t_compute};
       },
       .printed = {{300.0, 2e-2}}},

      // Seed 002: nominal 7e9 parameters on the 300 TFLOP/s, 2 TB/s GPU
      {.id = "decode_util_generic", .source = kS002_decode, .status = exact,
       .expected = {kPercent * (1.0 - 1.0 / 150.0)},
       .value = [] {
         const DecodeStep s = decode_nominal(7e9, doc_decode(), kGenericGpu);
         return Values{kPercent * (1.0 - s.utilisation)};
       },
       .printed = {above(99.0)}},
      // D2: [0] t_compute(64) ms, [1] t_step(1) ms, [2] t_step(64) ms, [3] tokens/s gain 64/1
      {.id = "batch_b64_time", .source = kS002_batch, .status = disagrees,
       .expected = {64.0 * 2.0 * 7e9 / 300e12 / kMs, 7.0, 7.0, 64.0},
       .value = [] {
         const DecodeStep one = decode_nominal(7e9, doc_decode(1), kGenericGpu);
         const DecodeStep b64 = decode_nominal(7e9, doc_decode(64), kGenericGpu);
         return Values{b64.t_compute.in(kMs), one.t_step.in(kMs), b64.t_step.in(kMs),
                       b64.tokens_per_s / one.tokens_per_s};
       }},
      {.id = "batch_b256_flatten", .source = kS002_batch, .status = exact, .expected = {150.0},
       .value = [] {
         return Values{decode_nominal(7e9, doc_decode(256), kGenericGpu).tokens_per_s /
                       decode_nominal(7e9, doc_decode(1), kGenericGpu).tokens_per_s};
       },
       .also = [] {
         CHECK(decode_nominal(7e9, doc_decode(256), kGenericGpu).bound == Bound::compute);
         CHECK(decode_nominal(7e9, doc_decode(64), kGenericGpu).bound == Bound::memory);
       }},

      // Seed 003 §2.4 on MI300X
      {.id = "proj_T1_util_mi300x", .source = kS003_2_4_t1, .status = rounding,
       .expected = {kPercent * (4096.0 / 4098.0) / kRidgeMI300X},
       .value = [] {
         return Values{kPercent * (attainable(kMI300X.peak, kMI300X.bandwidth,
                                              projection_intensity(1, 4096)) /
                                   kMI300X.peak)};
       },
       .printed = {{0.4, 2e-2}}},
      // [0] T d/(d+2T) = ridge; [1] the weights-only model (I = B): the first integer B >= ridge
      {.id = "decode_batch_compute_bound", .source = kS003_2_4_batch, .status = rounding,
       .expected = {kRidgeMI300X * 4096.0 / (4096.0 - 2.0 * kRidgeMI300X), 247.0},
       .value = [] {
         const ModelConfig m = llama3_8b();
         const auto b = decode_compute_bound_batch(m, count_params(m), doc_decode(), kMI300X);
         return Values{projection_compute_bound_tokens(4096, ridge(kMI300X)),
                       b ? dbl(*b) : -1.0};
       },
       .printed = {{280.0, 5e-3}}},

      // Seed 003 §2.5 decode ceilings of Llama-3-8B (all weights read, as the documents do)
      {.id = "decode_ceiling_l3_mi300x", .source = kS003_2_5, .status = rounding,
       .expected = {5.3e12 / kL3Bytes},
       .value = [] { return Values{decode(llama3_8b(), doc_decode(), kMI300X).tokens_per_s}; },
       .printed = {{330.0, 2e-3}}},
      {.id = "decode_ceiling_l3_mi300x_kv8k", .source = kS003_2_5, .status = rounding,
       .expected = {5.3e12 / (kL3Bytes + kL3Kv8k)},
       .value = [] {
         return Values{decode(llama3_8b(), doc_decode(1, 8192), kMI300X).tokens_per_s};
       },
       .printed = {{309.0, 2e-3}}},
      {.id = "decode_ceiling_l3_h100", .source = kS003_2_5, .status = rounding,
       .expected = {3.35e12 / kL3Bytes},
       .value = [] { return Values{decode(llama3_8b(), doc_decode(), kH100).tokens_per_s}; },
       .printed = {{209.0, 3e-3}}},
      {.id = "decode_ceiling_l3_mi300x_int8", .source = kS003_2_5, .status = rounding,
       .expected = {5.3e12 / (kL3Bytes / 2.0)},
       .value = [] {
         return Values{decode(llama3_8b(), doc_decode(1, 0, 8.0), kMI300X).tokens_per_s};
       },
       .printed = {{660.0, 2e-3}}},
      // D5: bytes actually touched (one embedding row gathered per sequence). [0] GB per step,
      // then tok/s: [1] MI300X, [2] H100, [3] int8, [4] MI300X + 8k KV, [5] Llama-2-70B batch 1,
      // [6] Llama-2-70B batch 32 at 4k (32 rows gathered)
      {.id = "decode_bytes_touched_embedding", .source = kS003_touched, .status = disagrees,
       .expected = {kL3TouchedBytes / 1e9, 5.3e12 / kL3TouchedBytes, 3.35e12 / kL3TouchedBytes,
                    5.3e12 / (kL3TouchedBytes / 2.0), 5.3e12 / (kL3TouchedBytes + kL3Kv8k),
                    5.3e12 / (kL2_70bBytes - kL2_70bEmbeddingBytes + kL2_70bRowBytes),
                    32.0 * 5.3e12 /
                        (kL2_70bBytes - kL2_70bEmbeddingBytes + 32.0 * kL2_70bRowBytes +
                         32.0 * kL2_70bKv4k)},
       .value = [] {
         const ModelConfig m = llama3_8b();
         return Values{decode(m, touched_decode(), kMI300X).weight_bytes.in(units::kGB),
                       decode(m, touched_decode(), kMI300X).tokens_per_s,
                       decode(m, touched_decode(), kH100).tokens_per_s,
                       decode(m, touched_decode(1, 0, 8.0), kMI300X).tokens_per_s,
                       decode(m, touched_decode(1, 8192), kMI300X).tokens_per_s,
                       decode(llama2_70b(), touched_decode(), kMI300X).tokens_per_s,
                       decode(llama2_70b(), touched_decode(32, 4096), kMI300X).tokens_per_s};
       },
       // the documents' figures, each with the tolerance of the row that reproduces it
       .printed = {{16.06, 5e-4}, {330.0, 2e-3}, {209.0, 3e-3}, {660.0, 2e-3}, {309.0, 2e-3},
                   {38.0, 2e-2}, {938.0, 1e-3}},
       .doc_value = [] {
         const ModelConfig m = llama3_8b();
         return Values{decode(m, doc_decode(), kMI300X).weight_bytes.in(units::kGB),
                       decode(m, doc_decode(), kMI300X).tokens_per_s,
                       decode(m, doc_decode(), kH100).tokens_per_s,
                       decode(m, doc_decode(1, 0, 8.0), kMI300X).tokens_per_s,
                       decode(m, doc_decode(1, 8192), kMI300X).tokens_per_s,
                       decode(llama2_70b(), doc_decode(), kMI300X).tokens_per_s,
                       decode(llama2_70b(), doc_decode(32, 4096), kMI300X).tokens_per_s};
       }},

      // Seed 003 §5.2 analytical results
      {.id = "l3_decode_mi300x_52", .source = kS003_5_2_l3, .status = rounding,
       .expected = {5.3e12 / kL3Bytes},
       .value = [] { return Values{decode(llama3_8b(), doc_decode(), kMI300X).tokens_per_s}; },
       .printed = {{330.0, 2e-3}}},
      {.id = "l3_decode_h100_52", .source = kS003_5_2_l3, .status = rounding,
       .expected = {3.35e12 / kL3Bytes},
       .value = [] { return Values{decode(llama3_8b(), doc_decode(), kH100).tokens_per_s}; },
       .printed = {{209.0, 3e-3}}},
      {.id = "l3_decode_int8_52", .source = kS003_5_2_l3, .status = rounding,
       .expected = {5.3e12 / (kL3Bytes / 2.0)},
       .value = [] {
         return Values{decode(llama3_8b(), doc_decode(1, 0, 8.0), kMI300X).tokens_per_s};
       },
       .printed = {{660.0, 2e-3}}},
      // [0] weights only, [1] with one 4k GQA KV read: both print 38
      {.id = "l2_70b_decode_b1", .source = kS003_5_2_l70, .status = rounding,
       .expected = {5.3e12 / kL2_70bBytes, 5.3e12 / (kL2_70bBytes + kL2_70bKv4k)},
       .value = [] {
         return Values{decode(llama2_70b(), doc_decode(), kMI300X).tokens_per_s,
                       decode(llama2_70b(), doc_decode(1, 4096), kMI300X).tokens_per_s};
       },
       .printed = {{38.0, 2e-2}, {38.0, 2e-2}}},
      {.id = "l2_70b_decode_b32_agg", .source = kS003_5_2_l70, .status = rounding,
       .expected = {32.0 * 5.3e12 / (kL2_70bBytes + 32.0 * kL2_70bKv4k)},
       .value = [] {
         return Values{decode(llama2_70b(), doc_decode(32, 4096), kMI300X).tokens_per_s};
       },
       .printed = {{938.0, 1e-3}},
       .also = [] {
         CHECK(decode(llama2_70b(), doc_decode(32, 4096), kMI300X).bound == Bound::memory);
       }},
      {.id = "l2_70b_decode_b32_per_seq", .source = kS003_5_2_l70, .status = rounding,
       .expected = {5.3e12 / (kL2_70bBytes + 32.0 * kL2_70bKv4k)},
       .value = [] {
         const DecodeStep s = decode(llama2_70b(), doc_decode(32, 4096), kMI300X);
         return Values{s.tokens_per_s_per_sequence};
       },
       .printed = {{29.0, 2e-2}}},
      // [0] vs the weights-only batch-1 ceiling, [1] vs the KV-inclusive one (prints 25x)
      {.id = "l2_70b_batch_gain", .source = kS003_5_2_l70, .status = rounding,
       .expected = {32.0 * kL2_70bBytes / (kL2_70bBytes + 32.0 * kL2_70bKv4k),
                    32.0 * (kL2_70bBytes + kL2_70bKv4k) / (kL2_70bBytes + 32.0 * kL2_70bKv4k)},
       .value = [] {
         const double b32 = decode(llama2_70b(), doc_decode(32, 4096), kMI300X).tokens_per_s;
         return Values{b32 / decode(llama2_70b(), doc_decode(), kMI300X).tokens_per_s,
                       b32 / decode(llama2_70b(), doc_decode(1, 4096), kMI300X).tokens_per_s};
       },
       .printed = {{24.0, 3e-2}}},

      // Seed 003 §9 drill 3: nominal 70e9 on MI300X, no KV
      {.id = "drill3_decode", .source = kS003_9, .status = rounding, .expected = {5.3e12 / 140e9},
       .value = [] { return Values{decode_nominal(70e9, doc_decode(), kMI300X).tokens_per_s}; },
       .printed = {{38.0, 5e-3}}},
      {.id = "drill3_int8", .source = kS003_9, .status = rounding, .expected = {5.3e12 / 70e9},
       .value = [] {
         return Values{decode_nominal(70e9, doc_decode(1, 0, 8.0), kMI300X).tokens_per_s};
       },
       .printed = {{76.0, 5e-3}}},
      {.id = "drill3_b32", .source = kS003_9, .status = rounding,
       .expected = {32.0 * 5.3e12 / 140e9},
       .value = [] { return Values{decode_nominal(70e9, doc_decode(32), kMI300X).tokens_per_s}; },
       .printed = {{1200.0, 2e-2}}},

      // Seed 004 'Decoding one token': Llama-3-8B on H100 SXM, 004's all-params convention
      {.id = "decode_shortfall_295", .source = kS004_decode, .status = rounding,
       .expected = {989.4 / 3.35},
       .value = [] {
         return Values{ridge(kH100) / decode(llama3_8b(), doc_decode(), kH100).intensity};
       },
       .printed = {{295.0, 2e-3}}},
      {.id = "decode_weight_time_l3_h100", .source = kS004_decode, .status = rounding,
       .expected = {kL3Bytes / 3.35e12 / kMs},
       .value = [] { return Values{decode(llama3_8b(), doc_decode(), kH100).t_memory.in(kMs)}; },
       .printed = {{4.79, 1e-3}}},
      // [0] 004's 2 x all params (16.06 GFLOP), [1] physical (15.01 GFLOP)
      {.id = "decode_math_time_l3_h100", .source = kS004_decode, .status = rounding,
       .expected = {kL3Bytes / 989.4e12 / kUs, 15'009'849'344.0 / 989.4e12 / kUs},
       .value = [] {
         return Values{decode(llama3_8b(), doc_decode(), kH100).t_compute.in(kUs),
                       decode(llama3_8b(), touched_decode(), kH100).t_compute.in(kUs)};
       },
       .printed = {{16.2, 3e-3}}},
      {.id = "decode_util_l3_h100", .source = kS004_decode, .status = rounding,
       .expected = {kPercent * 3.35 / 989.4},
       .value = [] {
         return Values{kPercent * decode(llama3_8b(), doc_decode(), kH100).utilisation};
       },
       .printed = {{0.34, 1e-2}}},
      {.id = "decode_ceiling_l3_h100_004", .source = kS004_decode, .status = rounding,
       .expected = {3.35e12 / kL3Bytes},
       .value = [] { return Values{decode(llama3_8b(), doc_decode(), kH100).tokens_per_s}; },
       .printed = {{209.0, 3e-3}}},
  };
  // clang-format on
  return rows;
}

// ============================================================================================
// H. Elementwise traffic and fusion
// ============================================================================================

const std::vector<Row>& rows_h_elementwise() {
  // One compact row per TSV line; clang-format would put every field on its own line.
  // clang-format off
  static const std::vector<Row> rows = {
      // D9: the diagram's "2Nd / 3Nd / 3N d_ffn bytes" are element counts (b = 1); bytes are
      // x2. [0] norm, [1] residual, [2] SwiGLU per token
      {.id = "diagram_elementwise_units", .source = kS003_3_2, .status = disagrees, .kind = count,
       .expected = {16'384, 24'576, 86'016},
       .value = [] {
         return Values{ew_norm().base(), ew_residual().base(), ew_swiglu().base()};
       },
       .printed = {{2.0 * 4096}, {3.0 * 4096}, {3.0 * 14'336}},
       .doc_value = [] {
         return Values{norm_bytes_per_token(4096, 1.0).base(),
                       residual_add_bytes_per_token(4096, 1.0).base(),
                       gated_activation_bytes_per_token(14'336, 1.0).base()};
       }},

      // Seed 003 §3.3 table, Llama-3-8B per token per layer, bf16
      {.id = "ew_rmsnorm_pre_attn", .source = kS003_3_3, .status = exact, .kind = count,
       .expected = {16'384}, .value = [] { return Values{ew_norm().base()}; }},
      {.id = "ew_rope_qk", .source = kS003_3_3, .status = exact, .kind = count,
       .expected = {20'480}, .value = [] { return Values{ew_rope().base()}; }},
      {.id = "ew_residual_attn", .source = kS003_3_3, .status = exact, .kind = count,
       .expected = {24'576}, .value = [] { return Values{ew_residual().base()}; }},
      {.id = "ew_rmsnorm_pre_ffn", .source = kS003_3_3, .status = exact, .kind = count,
       .expected = {16'384}, .value = [] { return Values{ew_norm().base()}; }},
      {.id = "ew_swiglu", .source = kS003_3_3, .status = exact, .kind = count,
       .expected = {86'016}, .value = [] { return Values{ew_swiglu().base()}; }},
      {.id = "ew_residual_ffn", .source = kS003_3_3, .status = exact, .kind = count,
       .expected = {24'576}, .value = [] { return Values{ew_residual().base()}; }},
      {.id = "ew_total", .source = kS003_3_3, .status = exact, .kind = count,
       .expected = {188'416}, .value = [] { return Values{ew_l3().base()}; },
       .also = [] {
         // the engine's per-layer total is the sum of the table's six rows
         const units::Bytes sum = ew_norm() + ew_rope() + ew_residual() + ew_norm() + ew_swiglu() +
                                  ew_residual();
         CHECK(sum.base() == ew_l3().base());
       }},
      // [0] the crossover line's matrix bytes (436,207,616), [1] all layer bytes (436,224,000)
      {.id = "ew_crossover_tokens", .source = kS003_3_3, .status = rounding,
       .expected = {436'207'616.0 / 188'416.0, 436'224'000.0 / 188'416.0},
       .value = [] {
         return Values{fusion_crossover_tokens(layer_matrix_bytes_l3(), ew_l3()),
                       fusion_crossover_tokens(layer_bytes_l3(), ew_l3())};
       },
       .printed = {{2315.0, 1e-4}, {2315.0, 1e-4}}},
      {.id = "ew_swiglu_share", .source = kS003_3_3, .status = rounding,
       .expected = {kPercent * 86'016.0 / 188'416.0},
       .value = [] { return Values{kPercent * (ew_swiglu() / ew_l3())}; },
       .printed = {{46.0, 1e-2}}},
      // D10: ~0.04% holds at [0] T = 1, not at [1] T = 64
      {.id = "ew_decode_share", .source = kS003_3_3, .status = disagrees,
       .expected = {kPercent * 188'416.0 / (436'224'000.0 + 188'416.0),
                    kPercent * 64.0 * 188'416.0 / (436'224'000.0 + 64.0 * 188'416.0)},
       .value = [] {
         return Values{kPercent * elementwise_traffic_share(layer_bytes_l3(), ew_l3(), 1),
                       kPercent * elementwise_traffic_share(layer_bytes_l3(), ew_l3(), 64)};
       },
       .printed = {{0.04, 1.25e-1}},
       .doc_value = [] {
         return Values{kPercent * elementwise_traffic_share(layer_bytes_l3(), ew_l3(), 1)};
       }},
      {.id = "drill8_ratio", .source = kS003_9, .status = rounding,
       .expected = {kPercent * 188'416.0 / 436'224'000.0},
       .value = [] {
         return Values{kPercent / fusion_crossover_tokens(layer_bytes_l3(), ew_l3())};
       },
       .printed = {{0.04, 1.25e-1}}},
      {.id = "ew_4k_exceeds_weights", .source = kS003_3_3, .status = exact,
       .expected = {4096.0 * 188'416.0 / 436'207'616.0},
       .value = [] {
         return Values{4096.0 / fusion_crossover_tokens(layer_matrix_bytes_l3(), ew_l3())};
       }},

      // D3: 6 transfers -> 1 is a 6x speedup ([0]); counting the final write, 7 -> 1 is 7x ([1]).
      // The document's "five-sixths of the traffic gone" is reproduced; its "five-fold" is not.
      {.id = "fusion_linear_bias_gelu_dropout", .source = kS002_fusion, .status = disagrees,
       .expected = {6.0, 7.0},
       .value = [] {
         const units::Bytes t = units::bytes(1.0);  // one transfer; the ratio is size-free
         return Values{fusion_speedup(t * 6.0, t), fusion_speedup(t * 7.0, t)};
       },
       .printed = {{5.0 / 6.0}},
       .doc_value = [] {
         const units::Bytes t = units::bytes(1.0);
         return Values{1.0 - 1.0 / fusion_speedup(t * 6.0, t)};  // share of traffic removed
       }},
  };
  // clang-format on
  return rows;
}

// ============================================================================================
// I. Training memory, ZeRO, MFU
// ============================================================================================

const std::vector<Row>& rows_i_training() {
  // One compact row per TSV line; clang-format would put every field on its own line.
  // clang-format off
  static const std::vector<Row> rows = {
      {.id = "train_bytes_per_param", .source = kS000_1_3_train, .status = exact,
       .expected = {16.0}, .value = [] { return Values{kMixedAdamBytesPerParam}; }},
      {.id = "zero_K_optimizer_bytes", .source = kS000_1_3_train, .status = exact,
       .expected = {12.0}, .value = [] { return Values{kMixedAdamOptimizerBytesPerParam}; }},
      {.id = "train_mem_7b", .source = kS000_1_3_train, .status = exact, .expected = {112.0},
       .value = [] {
         return Values{training_state_bytes(7e9, kMixedAdamBytesPerParam).in(units::kGB)};
       }},
      {.id = "train_state_8b", .source = kS004_budget, .status = exact, .expected = {128.0},
       .value = [] {
         return Values{training_state_bytes(8e9, kMixedAdamBytesPerParam).in(units::kGB)};
       }},
      {.id = "zero3_comm_extra", .source = kS004_budget, .status = exact, .expected = {50.0},
       .value = [] {
         return Values{kPercent *
                       relative_change(dp_allreduce_volume(8e9), zero3_comm_volume(8e9))};
       }},
      // 003's 7e9 x 2e12 tokens on 1000 GPUs at 400 TFLOP/s effective, against H100's 989.4:
      // [0] MFU %, [1] HFU % with full recompute (8ND)
      {.id = "mfu_formula", .source = kS004_budget, .status = exact,
       .expected = {kPercent * 400.0 / 989.4, kPercent * (8.0 / 6.0) * 400.0 / 989.4},
       .value = [] {
         const units::Seconds t =
             time_to_train(training_compute(7e9, 2e12), 1000, units::tflop_per_s(400));
         const double tokens_per_s = 2e12 / t.base();
         return Values{kPercent * model_flops_utilisation(7e9, tokens_per_s, 1000, kH100.peak),
                       kPercent * hardware_flops_utilisation(7e9, tokens_per_s, 1000, kH100.peak,
                                                             /*full_recompute=*/true)};
       }},
  };
  // clang-format on
  return rows;
}

// ============================================================================================
// J. Amdahl and miscellany
// ============================================================================================

const std::vector<Row>& rows_j_misc() {
  // One compact row per TSV line; clang-format would put every field on its own line.
  // clang-format off
  static const std::vector<Row> rows = {
      {.id = "amdahl_new_time", .source = kS000_1_6, .status = rounding,
       .expected = {0.6 + 0.4 / 3.0},
       .value = [] {
         return Values{1.0 / amdahl_speedup(0.4, 3.0)};
       },
       .printed = {{0.733, 1e-3}}},
      {.id = "amdahl_speedup", .source = kS000_1_6, .status = rounding,
       .expected = {1.0 / (0.6 + 0.4 / 3.0)},
       .value = [] {
         return Values{amdahl_speedup(0.4, 3.0)};
       },
       .printed = {{1.36, 5e-3}}},
      {.id = "amdahl_limit", .source = kS000_1_6, .status = rounding, .expected = {1.0 / 0.6},
       .value = [] { return Values{amdahl_limit(0.4)}; }, .printed = {{1.67, 5e-3}}},
      {.id = "ce_loss_uniform_2class", .source = kS000_1_5, .status = rounding,
       .expected = {std::numbers::ln2},
       .value = [] { return Values{uniform_logits_cross_entropy(2.0)}; },
       .printed = {{0.6931, 1e-4}}},
  };
  // clang-format on
  return rows;
}

// ============================================================================================
// Checking a row
// ============================================================================================

void check_printed(double shown, const Printed& p) {
  CAPTURE(shown, p.value, p.tol);
  switch (p.check) {
    case Check::within:
      CHECK_THAT(shown, WithinRel(p.value, p.tol > 0.0 ? p.tol : kExact));
      break;
    case Check::below:
      CHECK(shown < p.value);
      break;
    case Check::above:
      CHECK(shown > p.value);
      break;
  }
}

/// Every computed value against the TSV's recomputed value: 1e-12, or == for counts.
void check_expected(const Row& row, const Values& got) {
  REQUIRE(got.size() == row.expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i, got[i], row.expected[i]);
    if (row.kind == Kind::count) {
      CHECK(got[i] == row.expected[i]);
    } else {
      CHECK_THAT(got[i], WithinRel(row.expected[i], kExact));
    }
  }
}

/// The document's figures: against the engine under the document's convention where the row
/// names one (disagrees), else against the computed values (rounding, bounds).
void check_printed_figures(const Row& row, const Values& got) {
  if (row.printed.empty()) {
    return;
  }
  INFO((row.doc_value != nullptr ? "document's convention vs its printed figure" : "printed figure"));
  const Values shown = row.doc_value != nullptr ? row.doc_value() : got;
  REQUIRE(row.printed.size() <= shown.size());
  for (std::size_t i = 0; i < row.printed.size(); ++i) {
    CAPTURE(i);
    check_printed(shown[i], row.printed[i]);
  }
}

void check_row(const Row& row) {
  INFO("row " << row.id);
  INFO("source " << row.source);
  REQUIRE(row.value != nullptr);
  REQUIRE((row.status != Status::rounding || !row.printed.empty()));
  REQUIRE((row.doc_value == nullptr || row.status == Status::disagrees));
  const Values got = row.value();
  check_expected(row, got);
  check_printed_figures(row, got);
  if (row.also != nullptr) {
    row.also();
  }
}

const std::vector<const std::vector<Row>*>& all_tables() {
  static const std::vector<const std::vector<Row>*> tables = {
      &rows_a_params(),    &rows_b_bytes(),  &rows_c_flops(),       &rows_d_attention(), &rows_e_kv(),
      &rows_f_intensity(), &rows_g_decode(), &rows_h_elementwise(), &rows_i_training(),  &rows_j_misc()};
  return tables;
}

// ============================================================================================
// The TSV, read at run time
// ============================================================================================

struct TsvRow {
  std::string id;
  std::string source;
  std::string recomputed;
  std::string status;
  std::string tolerance;
};

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t tab = line.find('\t', start);
    out.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) {
      break;
    }
    start = tab + 1;
  }
  return out;
}

std::vector<TsvRow> read_tsv() {
  const std::string path = ROOFLINE_SOURCE_DIR "/tests/fixtures/worked-examples.tsv";
  std::ifstream in(path);
  if (!in) {
    throw std::runtime_error("cannot read " + path);
  }
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = split_tabs(line);
  const std::vector<std::string> want = {
      "id", "source", "quantity", "inputs", "document_value", "recomputed_value", "status", "tolerance_suggested"};
  if (header.size() < want.size() || !std::equal(want.begin(), want.end(), header.begin())) {
    throw std::runtime_error("unexpected header in " + path);
  }
  std::vector<TsvRow> rows;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') {
      line.pop_back();
    }
    if (line.empty()) {
      continue;
    }
    const std::vector<std::string> f = split_tabs(line);
    if (f.size() < want.size()) {
      throw std::runtime_error("short line in " + path);
    }
    rows.push_back({f[0], f[1], f[5], f[6], f[7]});
  }
  return rows;
}

/// The number a TSV cell starts with and half a unit in its last printed digit.
struct Leading {
  double value = 0.0;
  double half_unit = 0.0;
};

std::optional<Leading> leading_number(const std::string& s) {
  if (s.empty() || s[0] < '0' || s[0] > '9') {
    return std::nullopt;
  }
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  const std::string_view num(s.c_str(), static_cast<std::size_t>(end - s.c_str()));
  const std::size_t e = num.find_first_of("eE");
  const std::size_t mantissa_end = e == std::string_view::npos ? num.size() : e;
  const std::size_t dot = num.find('.');
  const int decimals =
      dot == std::string_view::npos || dot > mantissa_end ? 0 : static_cast<int>(mantissa_end - dot - 1);
  const int exponent = e == std::string_view::npos ? 0 : std::stoi(std::string(num.substr(e + 1)));
  return Leading{v, 0.5 * std::pow(10.0, exponent - decimals)};
}

const char* status_name(Status s) {
  switch (s) {
    case Status::exact:
      return "exact";
    case Status::rounding:
      return "rounding";
    case Status::disagrees:
      return "disagrees";
  }
  return "?";
}

/// tolerance_suggested: a rounding row's first figure carries it (a bound where it is n/a); a
/// disagreeing row's convention check carries a non-zero one; exact rows carry bounds only.
void check_tolerance_matches(const Row& row, const TsvRow& t) {
  CAPTURE(t.tolerance);
  const std::optional<Leading> tol = leading_number(t.tolerance);
  if (row.status == Status::rounding) {
    REQUIRE_FALSE(row.printed.empty());
    if (tol) {
      CHECK(row.printed[0].check == Check::within);
      CHECK(row.printed[0].tol == tol->value);
    } else {
      CHECK(row.printed[0].check != Check::within);
    }
  } else if (row.status == Status::disagrees && tol && tol->value > 0.0) {
    REQUIRE_FALSE(row.printed.empty());
    CHECK(row.printed[0].tol == tol->value);
  } else if (row.status == Status::exact) {
    for (const Printed& p : row.printed) {
      CHECK(p.check != Check::within);
    }
  }
}

/// recomputed_value: where it starts with a number, that number is expected[0] to the TSV's
/// printed precision (half a unit in its last digit).
void check_recomputed_matches(const Row& row, const TsvRow& t) {
  const std::optional<Leading> lead = leading_number(t.recomputed);
  if (!lead) {
    return;
  }
  CAPTURE(t.recomputed, row.expected.at(0));
  CHECK(std::fabs(row.expected.at(0) - lead->value) <= lead->half_unit + 1e-12 * std::fabs(lead->value));
}

void check_row_matches_tsv(const Row& row, const TsvRow& t) {
  CHECK(t.source == row.source);
  CHECK(t.status == status_name(row.status));
  check_tolerance_matches(row, t);
  check_recomputed_matches(row, t);
}

}  // namespace

// ============================================================================================
// Test cases: one per topic, one row per GENERATE value
// ============================================================================================

TEST_CASE("worked examples A: parameter counts", "[worked-examples]") {
  check_row(GENERATE(from_range(rows_a_params())));
}

TEST_CASE("worked examples B: weight bytes and unit conversions", "[worked-examples]") {
  check_row(GENERATE(from_range(rows_b_bytes())));
}

TEST_CASE("worked examples C: FLOPs per token, training compute and wall-clock", "[worked-examples]") {
  check_row(GENERATE(from_range(rows_c_flops())));
}

TEST_CASE("worked examples D: attention FLOPs, crossover, score matrix, prefill", "[worked-examples]") {
  check_row(GENERATE(from_range(rows_d_attention())));
}

TEST_CASE("worked examples E: KV cache and concurrency", "[worked-examples]") {
  check_row(GENERATE(from_range(rows_e_kv())));
}

TEST_CASE("worked examples F: arithmetic intensity and ridge points", "[worked-examples]") {
  check_row(GENERATE(from_range(rows_f_intensity())));
}

TEST_CASE("worked examples G: decode ceilings, utilisation, batching", "[worked-examples]") {
  check_row(GENERATE(from_range(rows_g_decode())));
}

TEST_CASE("worked examples H: elementwise traffic and fusion", "[worked-examples]") {
  check_row(GENERATE(from_range(rows_h_elementwise())));
}

TEST_CASE("worked examples I: training memory, ZeRO, MFU", "[worked-examples]") {
  check_row(GENERATE(from_range(rows_i_training())));
}

TEST_CASE("worked examples J: Amdahl and miscellany", "[worked-examples]") {
  check_row(GENERATE(from_range(rows_j_misc())));
}

TEST_CASE("worked-examples.tsv: every row has a test, and each test matches its row", "[worked-examples]") {
  const std::vector<TsvRow> tsv = read_tsv();
  CHECK(tsv.size() == 196);

  std::map<std::string, const TsvRow*> by_id;
  for (const TsvRow& t : tsv) {
    INFO("TSV id " << t.id);
    CHECK(by_id.emplace(t.id, &t).second);  // ids are unique
  }

  std::set<std::string> covered;
  for (const std::vector<Row>* table : all_tables()) {
    for (const Row& row : *table) {
      INFO("row " << row.id);
      CHECK(covered.insert(row.id).second);  // no id tested twice
      const auto it = by_id.find(row.id);
      REQUIRE(it != by_id.end());  // no row without a TSV line
      check_row_matches_tsv(row, *it->second);
    }
  }

  // The one datasheet fact (the H100's L2) is the h100-sxm preset's field: the engine's tests link
  // the engine alone, so tests/presets/worked_example_presets_test.cpp checks it there.
  covered.insert("h100_l2");
  for (const TsvRow& t : tsv) {
    INFO("TSV id " << t.id << " has no row in worked_examples_test.cpp");
    CHECK(covered.count(t.id) == 1);
  }
  CHECK(covered.size() == tsv.size());
}
