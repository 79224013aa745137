#include "cli/options.hpp"

#include "io/enum_table.hpp"
#include "io/quantity_parse.hpp"

#include "roofline/errors.hpp"
#include "roofline/memory.hpp"

#include <algorithm>
#include <cmath>

namespace roofline::cli {
namespace {

// Runs a parser and prefixes its error with the flag name: "--context: "8x" ...".
template <typename F>
auto flag_value(const char* flag, const std::string& text, F parse) {
  try {
    return parse(text);
  } catch (const InputError& e) {
    throw InputError(std::string(flag) + ": " + e.what());
  }
}

std::int64_t count_flag(const char* flag, const std::string& text) { return flag_value(flag, text, io::parse_count); }

DType dtype_flag(const char* flag, std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (auto t = dtype_from_name(text)) return *t;
  throw UsageError(std::string(flag) + ": \"" + text +
                   "\" is not a data type; allowed: fp64, fp32, tf32, bf16, fp16, fp8, int8, int4, fp4");
}

template <typename E, std::size_t N>
E choice(const char* flag, const std::string& text, const io::EnumTable<E, N>& table) {
  if (auto v = io::find_enum(table, text)) return *v;
  throw UsageError(std::string(flag) + ": " + io::not_one_of(text, table));
}

constexpr std::array kBases = {std::pair{"physical", FlopBasis::physical},
                               std::pair{"non-embedding", FlopBasis::non_embedding},
                               std::pair{"all-params", FlopBasis::all_params}};
constexpr std::array kAttention = {std::pair{"causal", AttentionMode::causal}, std::pair{"full", AttentionMode::full}};
constexpr std::array kHead = {std::pair{"last", LmHeadPositions::last}, std::pair{"all", LmHeadPositions::all}};
constexpr std::array kDecodeBytes = {std::pair{"touched", DecodeBytes::touched},
                                     std::pair{"all-weights", DecodeBytes::all_weights}};
constexpr std::array kMoeDecode = {std::pair{"expected", MoeDecodeBytes::expected},
                                   std::pair{"all-experts", MoeDecodeBytes::all_experts},
                                   std::pair{"top-k", MoeDecodeBytes::top_k}};
constexpr std::array kMlp = {std::pair{"gated", MlpKind::gated}, std::pair{"plain", MlpKind::plain}};
constexpr std::array kNorm = {std::pair{"rmsnorm", NormKind::rmsnorm}, std::pair{"layernorm", NormKind::layernorm},
                              std::pair{"layernorm-nobias", NormKind::layernorm_nobias},
                              std::pair{"none", NormKind::nonparametric}};

void apply(const std::optional<std::string>& flag, const char* name, std::int64_t& field) {
  if (flag) field = count_flag(name, *flag);
}

bool any_architecture_flag(const ModelOptions& o) {
  return o.layers || o.hidden || o.heads || o.kv_heads || o.head_dim || o.ffn || o.vocab || o.mlp || o.tied ||
         o.untied || o.experts;
}

}  // namespace

void add_model_options(CLI::App* app, ModelOptions& o, bool model_required) {
  auto* m = app->add_option("MODEL", o.model, "Preset name, preset file, Hugging Face config.json, or - for stdin")
                ->type_name("");
  if (model_required) m->required();
  const char* g = "Model overrides";
  app->add_option("--layers", o.layers, "Decoder layers L")->type_name("N")->group(g);
  app->add_option("--hidden", o.hidden, "Hidden width d")->type_name("N")->group(g);
  app->add_option("--heads", o.heads, "Query heads h")->type_name("N")->group(g);
  app->add_option("--kv-heads", o.kv_heads, "KV heads h_kv (1 = MQA, h = MHA)")->type_name("N")->group(g);
  app->add_option("--head-dim", o.head_dim, "Head dimension d_h [default: d/h]")->type_name("N")->group(g);
  app->add_option("--ffn", o.ffn, "FFN intermediate width d_ff")->type_name("N")->group(g);
  app->add_option("--vocab", o.vocab, "Vocabulary size V as stored")->type_name("N")->group(g);
  app->add_option("--max-seq-len", o.max_seq_len, "Trained context length")->type_name("N")->group(g);
  app->add_option("--mlp", o.mlp, "gated (3 matrices) or plain (2)")->type_name("KIND")->group(g);
  app->add_option("--norm", o.norm, "rmsnorm, layernorm, layernorm-nobias or none")->type_name("KIND")->group(g);
  auto* tied = app->add_flag("--tied", o.tied, "Tie the output head to the embedding")->group(g);
  app->add_flag("--untied", o.untied, "Give the output head its own matrix")->group(g)->excludes(tied);
  app->add_option("--window", o.window, "Sliding-window size in tokens (0: none)")->type_name("N")->group(g);
  app->add_option("--global-every", o.global_every, "With --window: every k-th layer is global")
      ->type_name("K")
      ->group(g);
  app->add_option("--experts", o.experts, "Routed experts per MoE layer")->type_name("N")->group(g);
  app->add_option("--top-k", o.top_k, "Routed experts per token")->type_name("K")->group(g);
  app->add_option("--expert-ffn", o.expert_ffn, "Intermediate width of one expert")->type_name("N")->group(g);
  app->add_option("--shared-experts", o.shared_experts, "Always-on experts")->type_name("N")->group(g);
  app->add_option("--shared-ffn", o.shared_ffn, "Intermediate width of one shared expert")->type_name("N")->group(g);
  app->add_option("--first-dense", o.first_dense, "Leading dense layers before the MoE layers")
      ->type_name("N")
      ->group(g);
}

void add_gpu_options(CLI::App* app, GpuOptions& o, bool required) {
  const char* g = "Accelerator";
  auto* opt =
      app->add_option("--gpu", o.gpu, "Accelerator preset or file (see `roofline gpus`)")->type_name("GPU")->group(g);
  if (required) opt->required();
  app->add_option("--gpus", o.gpus, "Devices [default: 1]")->type_name("N")->group(g);
  app->add_option("--gpu-memory", o.memory, "Capacity override, e.g. 192GB or 80GiB")->type_name("SIZE")->group(g);
  app->add_option("--gpu-bandwidth", o.bandwidth, "Bandwidth override, e.g. 3.35TB/s")->type_name("RATE")->group(g);
  app->add_option("--gpu-peak", o.peaks,
                  "Dense peak override: RATE for the compute dtype (989.4TFLOP/s) or DTYPE=RATE (fp8=1979TFLOP/s); "
                  "repeatable")
      ->type_name("[DTYPE=]RATE")
      ->group(g);
}

void add_workload_options(CLI::App* app, WorkloadOptions& o) {
  const char* g = "Workload";
  app->add_option("-b,--batch", o.batch, "Sequences per step [default: 1]")->type_name("N")->group(g);
  app->add_option("-c,--context", o.context,
                  "Tokens in the KV cache (8192, 8k = 8000, 8Ki = 8192) [default: the model's context]")
      ->type_name("N")
      ->group(g);
  app->add_option("-p,--prompt", o.prompt,
                  "Prefill tokens per sequence [default: 2048, or the model's context if shorter]")
      ->type_name("N")
      ->group(g);
  app->add_option("--output", o.output, "Generated tokens per request [default: 256]")->type_name("N")->group(g);
  app->add_option("--train-tokens", o.train_tokens, "Training tokens D for C = 6ND and time to train, e.g. 2T")
      ->type_name("N")
      ->group(g);
  app->add_option("--measured-tokens-per-s", o.measured_tokens_per_s,
                  "Measured training throughput of the whole job, for MFU and HFU (needs --gpu)")
      ->type_name("RATE")
      ->group(g);
  app->add_option("--dtype", o.dtype, "Weight data type [default: bf16]")->type_name("DTYPE")->group(g);
  app->add_option("--weight-bits", o.weight_bits,
                  "Bits per weight, scales included: a number (4.125) or int4-g128, int4-g64, int4-g32, "
                  "int8-g128, q4_0, q8_0, q4_k, q5_k, q6_k")
      ->type_name("BITS|FORMAT")
      ->group(g);
  app->add_option("--kv-dtype", o.kv_dtype, "KV-cache data type [default: bf16]")->type_name("DTYPE")->group(g);
  app->add_option("--compute-dtype", o.compute_dtype,
                  "Which dense peak applies [default: --dtype; int4 and fp4 weights compute in bf16]")
      ->type_name("DTYPE")
      ->group(g);
  app->add_option("--reserve", o.reserve, "Runtime memory reserve, e.g. 2GiB [default: 0]")
      ->type_name("SIZE")
      ->group(g);
  app->add_option("--bw-efficiency", o.bw_efficiency, "Achieved / peak bandwidth, 0.8 or 80% [default: 1]")
      ->type_name("FRACTION")
      ->group(g);
  app->add_option("--mfu", o.mfu, "Achieved / peak FLOP/s [default: 1]")->type_name("FRACTION")->group(g);
  app->add_flag("--require-fit", o.require_fit,
                "Exit with status 3 when the weights and KV cache do not fit (for shell if/&&)")
      ->group(g);
  const char* c = "Conventions";
  app->add_option("--flops-basis", o.basis, "physical, non-embedding or all-params [default: physical]")
      ->type_name("BASIS")
      ->group(c);
  app->add_option("--attention", o.attention, "causal or full [default: causal]")->type_name("MODE")->group(c);
  app->add_option("--lm-head", o.lm_head, "Prefill head positions: last or all [default: last]")
      ->type_name("WHERE")
      ->group(c);
  app->add_option("--decode-bytes", o.decode_bytes, "touched or all-weights [default: touched]")
      ->type_name("MODE")
      ->group(c);
  app->add_option("--moe-decode", o.moe_decode, "expected, all-experts or top-k [default: expected]")
      ->type_name("MODE")
      ->group(c);
}

io::ModelPreset resolve_model(const ModelOptions& o, const io::PresetRegistry& reg, std::istream& in) {
  io::ModelPreset p;
  if (!o.model.empty()) {
    p = reg.load_model(o.model, in);
  } else {
    if (!any_architecture_flag(o)) {
      throw UsageError(
          "MODEL: required; give a preset name, a config.json path, - for stdin, or "
          "--layers/--hidden/--heads/--ffn/--vocab");
    }
    // A model from flags alone: Llama-style defaults, every size given explicitly.
    std::vector<std::string> missing;
    if (!o.layers) missing.emplace_back("--layers");
    if (!o.hidden) missing.emplace_back("--hidden");
    if (!o.heads) missing.emplace_back("--heads");
    if (!o.ffn && !o.experts) missing.emplace_back("--ffn");
    if (!o.vocab) missing.emplace_back("--vocab");
    if (!missing.empty()) {
      std::string list;
      for (const auto& f : missing) list += (list.empty() ? "" : ", ") + f;
      throw UsageError("a model given by flags needs " + list);
    }
    p.config.name = "custom";
    p.config.family = "custom";
    p.origin = "flags";
    p.input_format = io::InputFormat::flags;
    p.config.n_kv_heads = kDeriveFromHeads;
    p.config.head_dim = kDeriveFromHeads;
  }
  ModelConfig& m = p.config;
  const bool heads_changed = o.heads.has_value() || o.hidden.has_value();
  apply(o.layers, "--layers", m.n_layers);
  apply(o.hidden, "--hidden", m.d_model);
  apply(o.heads, "--heads", m.n_heads);
  apply(o.kv_heads, "--kv-heads", m.n_kv_heads);
  apply(o.head_dim, "--head-dim", m.head_dim);
  apply(o.ffn, "--ffn", m.d_ff);
  apply(o.vocab, "--vocab", m.vocab_size);
  apply(o.max_seq_len, "--max-seq-len", m.max_seq_len);
  apply(o.window, "--window", m.sliding_window);
  apply(o.global_every, "--global-every", m.global_every);
  apply(o.experts, "--experts", m.moe.n_experts);
  apply(o.top_k, "--top-k", m.moe.top_k);
  apply(o.expert_ffn, "--expert-ffn", m.moe.d_ff_expert);
  apply(o.shared_experts, "--shared-experts", m.moe.n_shared_experts);
  apply(o.shared_ffn, "--shared-ffn", m.moe.d_ff_shared);
  apply(o.first_dense, "--first-dense", m.moe.first_dense_layers);
  if (o.mlp) m.mlp = choice("--mlp", *o.mlp, kMlp);
  if (o.norm) m.norm = choice("--norm", *o.norm, kNorm);
  if (o.tied) m.tied_embeddings = true;
  if (o.untied) m.tied_embeddings = false;
  // A changed width or head count re-derives d_h unless it was given: the checkpoint's value
  // no longer applies.
  if (heads_changed && !o.head_dim && !m.mla.enabled() && p.input_format == io::InputFormat::flags) {
    m.head_dim = kDeriveFromHeads;
  }
  apply_head_defaults(m);
  if (m.moe.enabled() && m.moe.d_ff_expert == 0) m.moe.d_ff_expert = m.d_ff;
  if (m.moe.n_shared_experts > 0 && m.moe.d_ff_shared == 0) m.moe.d_ff_shared = m.moe.d_ff_expert;
  const auto problems = validate(m);
  if (!problems.empty()) {
    std::string all;
    for (const auto& s : problems) all += (all.empty() ? "" : "; ") + s;
    throw InputError((p.origin.empty() ? std::string("model") : p.origin) + ": " + all);
  }
  return p;
}

HardwareConfig resolve_gpu(const GpuOptions& o, const io::PresetRegistry& reg, DType compute) {
  HardwareConfig h = reg.load_gpu(o.gpu);
  for (const std::string& p : o.peaks) {
    const auto eq = p.find('=');
    const DType t = eq == std::string::npos ? compute : dtype_flag("--gpu-peak", p.substr(0, eq));
    const std::string rate = eq == std::string::npos ? p : p.substr(eq + 1);
    h.set_peak(t, flag_value("--gpu-peak", rate, io::parse_flop_rate));
  }
  if (o.memory) h.memory_capacity = flag_value("--gpu-memory", *o.memory, io::parse_bytes);
  if (o.bandwidth) h.memory_bandwidth = flag_value("--gpu-bandwidth", *o.bandwidth, io::parse_bandwidth);
  const auto problems = validate(h);
  if (!problems.empty()) throw InputError(problems.front());
  return h;
}

Ctx resolve(const ModelOptions& mo, const GpuOptions& go, const WorkloadOptions& wo, const io::PresetRegistry& reg,
            std::istream& in) {
  Ctx c;
  c.model = resolve_model(mo, reg, in);
  c.counts = count_params(c.model.config);
  Workload& w = c.w;
  w.batch = count_flag("--batch", wo.batch);
  if (w.batch < 1) throw InputError("--batch: \"" + wo.batch + "\" must be at least 1");
  c.context_given = wo.context.has_value();
  w.context = wo.context ? count_flag("--context", *wo.context)
                         : (c.model.config.max_seq_len > 0 ? c.model.config.max_seq_len : 4096);
  if (!c.context_given && c.model.config.max_seq_len == 0) {
    c.notes.emplace_back("the config does not state a trained context; --context defaults to 4096 tokens");
  }
  const std::int64_t trained = c.model.config.max_seq_len;
  w.prompt =
      wo.prompt ? count_flag("--prompt", *wo.prompt) : (trained > 0 ? std::min<std::int64_t>(2048, trained) : 2048);
  if (w.prompt < 1) throw InputError("--prompt: \"" + *wo.prompt + "\" must be at least 1");
  w.output = count_flag("--output", wo.output);
  if (wo.train_tokens) c.train_tokens = count_flag("--train-tokens", *wo.train_tokens);
  if (wo.measured_tokens_per_s) {
    c.measured_tokens_per_s = flag_value("--measured-tokens-per-s", *wo.measured_tokens_per_s, io::parse_fraction);
    if (!(c.measured_tokens_per_s > 0.0)) {
      throw InputError("--measured-tokens-per-s: \"" + *wo.measured_tokens_per_s + "\" must be positive");
    }
  }
  w.weight_dtype = dtype_flag("--dtype", wo.dtype);
  w.weight_bits = dtype_bits(w.weight_dtype);
  if (wo.weight_bits) {
    // Group-wise formats: b + 16/g bits (one fp16 scale per g weights) [GPTQ23]; GGUF k-quants use
    // llama.cpp's published bits per weight (super-blocks with 6-bit scales and mins).
    static const std::array kFormats = {std::pair{"int4-g128", grouped_weight_bits(4, 16, 128)},
                                        std::pair{"int4-g64", grouped_weight_bits(4, 16, 64)},
                                        std::pair{"int4-g32", grouped_weight_bits(4, 16, 32)},
                                        std::pair{"int8-g128", grouped_weight_bits(8, 16, 128)},
                                        std::pair{"q4_0", grouped_weight_bits(4, 16, 32)},
                                        std::pair{"q8_0", grouped_weight_bits(8, 16, 32)},
                                        std::pair{"q4_k", 4.5},
                                        std::pair{"q5_k", 5.5},
                                        std::pair{"q6_k", 6.5625}};
    bool named = false;
    for (const auto& [name, bits] : kFormats) {
      if (*wo.weight_bits == name) {
        w.weight_bits = bits;
        named = true;
      }
    }
    if (!named) {
      w.weight_bits = flag_value("--weight-bits", *wo.weight_bits, io::parse_fraction);
      if (!(w.weight_bits > 0.0 && w.weight_bits <= 64.0)) {
        throw InputError("--weight-bits: \"" + *wo.weight_bits + "\" must be in (0, 64]");
      }
    }
  }
  w.kv_dtype = wo.kv_dtype ? dtype_flag("--kv-dtype", *wo.kv_dtype) : DType::bf16;
  // Integer and fp4 weights are dequantised into a float matmul unless told otherwise.
  DType compute = w.weight_dtype;
  if (compute == DType::int4 || compute == DType::fp4) compute = DType::bf16;
  w.compute_dtype = wo.compute_dtype ? dtype_flag("--compute-dtype", *wo.compute_dtype) : compute;
  w.reserve = flag_value("--reserve", wo.reserve, io::parse_bytes);
  w.bw_efficiency = flag_value("--bw-efficiency", wo.bw_efficiency, io::parse_fraction);
  w.mfu = flag_value("--mfu", wo.mfu, io::parse_fraction);
  if (!(w.bw_efficiency > 0.0 && w.bw_efficiency <= 1.0)) {
    throw InputError("--bw-efficiency: \"" + wo.bw_efficiency + "\" must be in (0, 1]");
  }
  if (!(w.mfu > 0.0 && w.mfu <= 1.0)) throw InputError("--mfu: \"" + wo.mfu + "\" must be in (0, 1]");
  w.basis = choice("--flops-basis", wo.basis, kBases);
  w.attention = choice("--attention", wo.attention, kAttention);
  w.lm_head = choice("--lm-head", wo.lm_head, kHead);
  w.decode_bytes = choice("--decode-bytes", wo.decode_bytes, kDecodeBytes);
  w.moe_decode = choice("--moe-decode", wo.moe_decode, kMoeDecode);
  c.devices = count_flag("--gpus", go.gpus);
  if (c.devices < 1) throw InputError("--gpus: \"" + go.gpus + "\" must be at least 1");

  if (!go.gpu.empty()) {
    c.gpu = resolve_gpu(go, reg, w.compute_dtype);
    c.capacity = c.gpu->memory_capacity;
    c.capacity_convention = go.memory ? "override" : "device";
    c.bw_nominal = c.gpu->memory_bandwidth;
    const auto peak = c.gpu->peak_for(w.compute_dtype);
    c.has_peak = peak.has_value() && peak->base() > 0.0;
    c.peak_nominal = peak.value_or(units::FlopPerSecond{});
    // N devices act as one ideal device: rates add, communication is free. The parallelism
    // model that charges for it comes later; the note says so wherever it matters.
    const double n = static_cast<double>(c.devices);
    c.machine.bandwidth = c.bw_nominal * (w.bw_efficiency * n);
    // Without a published peak, compute time is unknown: an infinite rate keeps the memory side
    // exact and every compute-side row is reported as n/a.
    c.machine.peak = c.has_peak ? c.peak_nominal * (w.mfu * n) : units::FlopPerSecond{HUGE_VAL};
    if (c.devices > 1) {
      c.notes.push_back(std::to_string(c.devices) +
                        " devices are treated as one ideal device: capacity, bandwidth and "
                        "peak add up and communication is free, so time results are lower bounds");
    }
    if (!c.has_peak) {
      c.notes.push_back(c.gpu->name + " has no published dense " + std::string(dtype_name(w.compute_dtype)) +
                        " peak; compute-side results are n/a (give --gpu-peak to set one)");
    }
  } else if (go.memory || go.bandwidth || !go.peaks.empty()) {
    throw UsageError("--gpu-memory/--gpu-bandwidth/--gpu-peak: need --gpu");
  }
  return c;
}

nlohmann::json gpu_json(const HardwareConfig& h, units::Bytes capacity,
                        std::optional<units::FlopPerSecond> compute_peak) {
  nlohmann::json peaks = nlohmann::json::object();
  for (DType t : kAllDTypes) {
    if (auto pk = h.peak_for(t)) peaks[std::string(dtype_name(t))] = pk->base();
  }
  return {{"name", h.name},
          {"memory_capacity_bytes", capacity.base()},
          {"memory_bandwidth_bytes_per_s", h.memory_bandwidth.base()},
          {"peak_flop_per_s", peaks},
          {"compute_peak_flop_per_s", compute_peak ? nlohmann::json(compute_peak->base()) : nlohmann::json()}};
}

nlohmann::json conventions_json(const Ctx& c) {
  const Workload& w = c.w;
  return {{"flops_basis", io::enum_name(w.basis, kBases)},
          {"attention", io::enum_name(w.attention, kAttention)},
          {"lm_head_positions", io::enum_name(w.lm_head, kHead)},
          {"decode_bytes", io::enum_name(w.decode_bytes, kDecodeBytes)},
          {"moe_decode_bytes", io::enum_name(w.moe_decode, kMoeDecode)},
          {"capacity", c.gpu ? c.capacity_convention : "none"},
          {"concurrency_rounding", "floor"}};
}

nlohmann::json inputs_json(const Ctx& c) {
  nlohmann::json j;
  const io::ModelPreset& p = c.model;
  j["model"] = {{"name", p.config.name},
                {"origin", p.origin},
                {"input_format", io::name_of(p.input_format)},
                {"architecture", io::architecture_to_json(p.config)}};
  if (p.published_params) j["model"]["published_params"] = *p.published_params;
  const Workload& w = c.w;
  j["workload"] = {{"batch", w.batch},
                   {"context_tokens", w.context},
                   {"prompt_tokens", w.prompt},
                   {"output_tokens", w.output},
                   {"train_tokens", c.train_tokens},
                   {"measured_tokens_per_s", c.measured_tokens_per_s},
                   {"weight_dtype", dtype_name(w.weight_dtype)},
                   {"weight_bits", w.weight_bits},
                   {"kv_dtype", dtype_name(w.kv_dtype)},
                   {"compute_dtype", dtype_name(w.compute_dtype)},
                   {"reserve_bytes", w.reserve.base()},
                   {"bw_efficiency", w.bw_efficiency},
                   {"mfu", w.mfu},
                   {"devices", c.devices}};
  j["conventions"] = conventions_json(c);
  if (c.gpu) {
    j["gpu"] = gpu_json(*c.gpu, c.capacity, c.has_peak ? std::optional(c.peak_nominal) : std::nullopt);
  }
  return j;
}

}  // namespace roofline::cli
