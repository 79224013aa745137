// ScenarioSpec: what the user asked, as typed optional fields, filled from command-line flags or
// from a JSON object with the same names. resolve() turns it into an engine Scenario and holds
// every default in one place; it collects every input error and reports them together.
#pragma once

#include "io/preset_json.hpp"
#include "io/preset_registry.hpp"

#include "roofline/checked.hpp"
#include "roofline/errors.hpp"
#include "roofline/layer_ops.hpp"
#include "roofline/quant.hpp"
#include "roofline/scenario.hpp"

#include <nlohmann/json_fwd.hpp>

#include <array>
#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace roofline::io {

/// Option groups: each command reads some of them, and accepts only their inputs.
enum InputGroup : std::uint64_t {
  kModelOverrides = std::uint64_t{1} << 0,  ///< --layers, --hidden, ...
  kGpu = std::uint64_t{1} << 1,             ///< --gpu, --gpu-bandwidth, --gpu-peak
  kGpuMemory = std::uint64_t{1} << 2,       ///< --gpu-memory
  kDevices = std::uint64_t{1} << 3,         ///< --gpus
  kBatch = std::uint64_t{1} << 4,
  kContext = std::uint64_t{1} << 5,
  kPrompt = std::uint64_t{1} << 6,
  kOutput = std::uint64_t{1} << 7,
  kWeights = std::uint64_t{1} << 8,  ///< --dtype, --weight-bits
  kKvDtype = std::uint64_t{1} << 9,
  kComputeDtype = std::uint64_t{1} << 10,
  kReserve = std::uint64_t{1} << 11,
  kMfu = std::uint64_t{1} << 12,
  kBwEfficiency = std::uint64_t{1} << 13,
  kFlopsBasis = std::uint64_t{1} << 14,
  kAttentionMode = std::uint64_t{1} << 15,
  kLmHead = std::uint64_t{1} << 16,
  kDecodeBytes = std::uint64_t{1} << 17,  ///< --decode-bytes, --moe-decode
  kTraining = std::uint64_t{1} << 18,     ///< --measured-tokens-per-s, --measured-step-time
  kRequireFit = std::uint64_t{1} << 19,
  kParamsOnly = std::uint64_t{1} << 20,   ///< --params: a model known only by its parameter count
  kTrain = std::uint64_t{1} << 21,        ///< train: parallel degrees, ZeRO, recipe, batch, recomputation, price
  kSpeculative = std::uint64_t{1} << 22,  ///< --draft, --acceptance, --draft-len (decode, serve)
  kParallel = std::uint64_t{1} << 24,     ///< --tp, --pp, --dp, --ep, --link-latency (train and the serving commands)
  kServing = std::uint64_t{1} << 23,      ///< --concurrency, --kv-block, --shared-prefix (serve)
  kTargets = std::uint64_t{1} << 25,      ///< --tpot, --ttft (serve, plan)
  kPlan = std::uint64_t{1} << 26,         ///< --users, --tokens-per-s (plan)
  kPrice = std::uint64_t{1} << 27,        ///< --price (train, plan)
  kLayer = std::uint64_t{1} << 28,        ///< layer: --phase, --fused
  kLink = std::uint64_t{1} << 30,         ///< --link-latency, --link-efficiency (the serving layouts)
  kTokens = std::uint64_t{1} << 29,  ///< --tokens: train's training tokens, layer's tokens per sequence in the pass
  kStrict = std::uint64_t{1} << 31,  ///< --strict: refuse a model the generic decoder reading counts
  kSystem = std::uint64_t{1} << 32,  ///< --system, --domain-size, --scale-out-bw (the layouts and plan)
  kCp = std::uint64_t{1} << 33,      ///< --cp: train's context-parallel degree, prefill's group
  kLoad = std::uint64_t{1} << 34,    ///< serve --rate and the simulated server's load and scheduler
};

/// --arrivals: the process and its parameters (the rate comes from --rate).
struct ArrivalsFlag {
  ArrivalProcess process = ArrivalProcess::poisson;
  double cv = 1.0;
  std::int64_t users = 1;
  double think_s = 0.0;
};

/// Architecture overrides on a preset or a model from flags alone.
struct ModelOverrides {
  std::optional<std::int64_t> layers, hidden, heads, kv_heads, head_dim, ffn, vocab, max_seq_len, window, global_every,
      experts, top_k, expert_ffn, shared_experts, shared_ffn, first_dense;
  std::optional<MlpKind> mlp;
  std::optional<NormKind> norm;
  std::optional<bool> tied;
  /// --zero-expert-share: the share of the top-k slots routed to zero-computation experts.
  std::optional<double> zero_share;
  /// The flags given, in order, for the "modified" label: "--layers 40".
  std::vector<std::string> given;
};

/// A peak override: for the compute dtype when `dtype` is empty.
struct PeakOverride {
  std::optional<DType> dtype;
  units::FlopPerSecond rate{};
};

/// --reserve: bytes per device, or a fraction of each device's capacity.
struct ReserveSpec {
  std::optional<units::Bytes> bytes;
  std::optional<double> fraction;
};

struct InputDef;

/// One input as the user gave it: its definition and its text ("" for a switch).
struct GivenInput {
  const InputDef* def = nullptr;
  std::string text;
};

/// --weight-format: one format for every weight class ("bf16"), the published checkpoint's layout
/// ("published"), or class=format pairs over the default layout ("experts=mxfp4,rest=bf16").
struct WeightFormatSpec {
  std::optional<WeightFormat> all;
  bool published = false;
  std::vector<std::pair<WeightClass, WeightFormat>> classes;
  std::optional<WeightFormat> rest;  ///< rest=F: every class the pairs do not name
};

/// Parses --weight-format's value; throws InputError naming what is allowed.
WeightFormatSpec parse_weight_format(const std::string& text);

/// Parses --kv-format's value: a named KV format or a number of bits in [1, 32]; throws InputError.
KvFormat parse_kv_format(const std::string& text);

struct ScenarioSpec {
  std::string model;  ///< preset name, HF repo id alias, file path, "-" (stdin); empty: flags alone
  std::optional<std::string> model_json_text;  ///< an inline config object (JSON input), as text
  std::optional<std::int64_t> params_only;     ///< --params 70B: no architecture, N alone
  ModelOverrides overrides;
  std::string gpu;  ///< preset, alias or file; empty: none
  std::optional<units::Bytes> gpu_memory;
  std::optional<units::BytesPerSecond> gpu_bandwidth;
  std::vector<PeakOverride> gpu_peaks;
  std::optional<std::int64_t> devices, batch, context, prompt, output;
  std::optional<double> measured_tokens_per_s;
  std::optional<DType> dtype, kv_dtype, compute_dtype;
  std::optional<WeightFormat> weight_format;      ///< --weight-bits: a named format or a number of bits
  std::optional<WeightFormatSpec> weight_layout;  ///< --weight-format: per class, or one for all
  /// --kv-format: a scaled format (fp8-token, int4-g64, ...) or a number of bits per element.
  std::optional<KvFormat> kv_format;
  std::optional<ReserveSpec> reserve;
  std::optional<double> bw_efficiency, mfu;
  std::optional<FlopBasis> basis;
  std::optional<AttentionMode> attention;
  std::optional<LmHeadPositions> lm_head;
  std::optional<DecodeBytes> decode_bytes;
  std::optional<MoeDecodeBytes> moe_decode;
  bool require_fit = false;
  bool strict = false;  ///< --strict: a config read by the generic decoder reading is an error
  // a server at steady state
  std::optional<std::int64_t> concurrency, kv_block, shared_prefix;
  std::optional<double> tpot_target, ttft_target;
  // serve --rate: the simulated server's load and scheduler.
  std::optional<double> rate;  ///< requests/s; +inf: every request at once
  std::optional<ArrivalsFlag> arrivals;
  std::optional<std::string> trace;  ///< a JSONL file of arrival_s, prompt, output
  std::optional<LengthSpec> prompt_dist, output_dist;
  std::optional<std::int64_t> requests, max_seqs, token_budget;
  std::optional<std::uint64_t> seed;
  std::optional<double> step_overhead;
  std::optional<double> link_latency, link_efficiency;
  std::string system;                       ///< --system: a system preset, alias or file
  bool uses_system = true;                  ///< the command places devices on a system (kSystem); else none is loaded
  std::optional<std::int64_t> domain_size;  ///< --domain-size: devices per scale-up domain
  std::optional<units::BytesPerSecond> scale_out_bw;  ///< --scale-out-bw: per device, one direction
  std::optional<std::int64_t> micro_batches;
  std::optional<std::int64_t> users;
  std::optional<double> tokens_per_s_per_user;
  // speculative decoding
  std::optional<std::string> draft;
  std::optional<double> acceptance;
  std::optional<std::int64_t> draft_len;
  // layer
  std::optional<Phase> phase;
  bool fused = false;
  // train
  std::optional<std::int64_t> tp, pp, cp, dp, ep, micro_batch, seq, grad_accum, global_batch, tokens;
  bool sequence_parallel = false;
  bool best_layout = false;               ///< train --best-layout
  std::optional<double> compute_budget;   ///< train --compute-budget C (FLOPs), instead of MODEL
  std::optional<ScalingFit> scaling_fit;  ///< train --scaling-fit
  std::optional<ZeroStage> zero;
  std::optional<std::string> fsdp;
  std::optional<OptimizerRecipe> optimizer;
  std::optional<Recompute> recompute;
  std::optional<std::int64_t> recompute_every, pp_chunks, shard_group;
  std::vector<std::int64_t> pp_layers;  ///< --pp-layers (empty: not given)
  std::optional<ModelFlopsConvention> model_flops;
  std::optional<double> hfu, measured_step_time;
  std::optional<std::int64_t> lora_rank;
  std::optional<LoraTargets> lora_targets;
  bool qlora = false;
  bool no_flash_attention = false;
  bool dropout = false;
  std::optional<double> price;
  std::string price_currency;  ///< "USD", from --price 2.5USD or $2.5; "" when it names none
  /// Every input set through the input table, in order (a sweep's axes at the current point): the
  /// JSON echo's `inputs.given`, which a batch line takes back as it is.
  std::vector<GivenInput> given;
};

/// Errors collected over a pass; check() throws them together (one line each).
class Diagnostics {
 public:
  void input(std::string message) { messages_.push_back(std::move(message)); }
  void usage(std::string message) {
    messages_.push_back(std::move(message));
    usage_ = true;
  }
  /// Runs f and records what it throws, prefixed with `where`.
  template <typename F>
  void capture(std::string_view where, F&& f);
  [[nodiscard]] bool empty() const { return messages_.empty(); }
  /// Throws UsageError (any usage problem) or InputError with every message, one per line.
  void check() const;

 private:
  std::vector<std::string> messages_;
  bool usage_ = false;
};

/// Whether an input takes a sweep (io/sweep.hpp): a list or range of counts, or a list of names.
/// How an input sweeps: not at all, counts (lists and ranges of whole numbers), names (lists), or
/// numbers (lists of any numbers, and ranges of whole ones: --rate 0.5,1..64*2).
enum class Sweep : unsigned char { none, counts, names, numbers };

/// What an input's value can be, for shell completion (`roofline completion`).
enum class ValueHint : unsigned char {
  text,    ///< free text: a count, a size, a rate, a time
  choice,  ///< one of choices() (a comma list of them when the input sweeps names)
  list,    ///< a comma list of choices()
  model,   ///< a model preset, alias or file, or one of choices()
  gpu,     ///< an accelerator preset, alias or file (plan takes a comma list)
};

/// One user input: its flag name, the group that owns it, help text and how it sets the spec.
struct InputDef {
  const char* name = nullptr;        ///< flag name without dashes ("kv-dtype"); the JSON key is the same
  const char* short_name = nullptr;  ///< "b" for -b, or nullptr
  InputGroup group = kModelOverrides;
  const char* value_name = "";  ///< N, SIZE, RATE, DTYPE, ... ("" for a switch)
  const char* help = "";
  /// Parses text into the spec; throws InputError or UsageError without the flag prefix.
  void (*set)(ScenarioSpec& spec, const std::string& text) = nullptr;
  bool repeatable = false;
  Sweep sweep = Sweep::none;  ///< a workload axis: "1,8,32" or "1..1024*2" runs the command at each value
  ValueHint hint = ValueHint::text;
  /// The names the value takes (canonical spellings, from the tables the parser reads), or nullptr.
  std::vector<std::string> (*choices)() = nullptr;
  /// The value the input takes when it is not given, as the help shows it, read from the value
  /// resolve() leaves (the engine's member initialiser); nullptr: none, or a rule the help states.
  std::string (*shown_default)() = nullptr;
};

/// An input's help as --help, the man page and the completions show it: with its default.
std::string input_help(const InputDef& d);

template <typename F>
void Diagnostics::capture(std::string_view where, F&& f) {
  try {
    f();
  } catch (const UsageError& e) {
    usage(where.empty() ? std::string(e.what()) : std::string(where) + ": " + e.what());
  } catch (const Error& e) {
    input(where.empty() ? std::string(e.what()) : std::string(where) + ": " + e.what());
  } catch (const OverflowError& e) {
    input(where.empty() ? std::string(e.what()) : std::string(where) + ": " + e.what());
  }
}

/// Every input, in help order.
const std::vector<InputDef>& input_defs();

/// The input of this flag name ("kv-dtype"), or nullptr.
const InputDef* input_def(std::string_view name);

/// Sets one input from text, recording any error under "--name".
void set_input(ScenarioSpec& spec, const InputDef& def, const std::string& text, Diagnostics& diag);
/// The same, recording errors under `where` (a JSON pointer such as "/batch").
void set_input(ScenarioSpec& spec, const InputDef& def, const std::string& text, std::string_view where,
               Diagnostics& diag);

/// Records `text` as the value given for `def` (a repeatable input's values accumulate); set_input
/// calls it, and a sweep at each point.
void record_given(ScenarioSpec& spec, const InputDef& def, const std::string& text);

/// Fills a spec from a JSON object whose keys are flag names ("batch", "kv-dtype" or "kv_dtype",
/// "model", "gpu"); a key outside `groups` is an error naming the command.
void fill_from_json(const nlohmann::json& object, std::uint64_t groups, std::string_view command, ScenarioSpec& spec,
                    Diagnostics& diag);

/// A resolved scenario with what the views need beyond the engine's inputs.
struct Resolved {
  Scenario scenario;
  ModelPreset model;          ///< metadata: display name, origin, input format, notes
  std::string model_label;    ///< name shown in headlines ("llama3-8b", "llama3-8b modified: --layers 40")
  std::string gpu_requested;  ///< what the user typed for --gpu
  bool context_defaulted = false;
  std::vector<std::string> notes;     ///< facts about this run, shown with the results
  std::vector<std::string> warnings;  ///< allowed but probably not meant (stderr and JSON)
  /// notes[0, fixed_notes) are the model's and the accelerator's; the rest depend on the workload.
  std::size_t fixed_notes = 0;
  /// The accelerator's peaks before a --gpu-peak without a dtype, which applies to each point's
  /// compute dtype (the weight type decides it, and a sweep may vary it).
  std::array<std::optional<units::FlopPerSecond>, kAllDTypes.size()> peaks_before_point{};
};

/// Turns a spec into a scenario: every default here, every error collected, then one throw.
/// `needs_gpu` makes --gpu required; `training` resolves the training layout and recipe.
/// The same scenario on another accelerator (plan's --gpu list): spec.gpu names it.
Resolved resolve_on_gpu(const Resolved& base, const ScenarioSpec& spec, const PresetRegistry& reg);

/// It is resolve_fixed() and resolve_point() with their errors reported together.
Resolved resolve(const ScenarioSpec& spec, const PresetRegistry& reg, std::istream& in, bool needs_gpu,
                 bool training = false);

/// A sweep's two parts of resolve(). resolve_fixed() resolves, once, what no swept input changes:
/// the model (loaded, overridden, validated, counted) and the accelerator (preset and overrides).
/// The workload is left for resolve_point(). Throws as resolve() does.
Resolved resolve_fixed(const ScenarioSpec& spec, const PresetRegistry& reg, std::istream& in, bool needs_gpu);
/// Resolves the inputs a sweep varies into `r`, made by resolve_fixed() from the same spec: the
/// workload, devices and training inputs with their defaults, and what depends on them (a reserve
/// share, a --gpu-peak without a dtype, warnings and notes). `r` then equals resolve(spec, ...).
/// Throws InputError or UsageError with every problem of this point.
void resolve_point(const ScenarioSpec& spec, Resolved& r, bool training = false);

/// The inputs echo of a model command's JSON ("inputs"): the model, the workload, the conventions,
/// the accelerator, and where the command reads them the serving load and targets, the layout,
/// the plan's users and the price, as resolved.
/// `given` holds every input of the spec the command read (`groups`), as typed, so a batch line of
/// the command and these keys reproduces the result.
nlohmann::json inputs_json(const ScenarioSpec& spec, const Resolved& in, std::uint64_t groups);

/// A data type by name, in any case; UsageError listing the types otherwise.
DType parse_dtype(const std::string& text);

}  // namespace roofline::io
