// resolve(): a ScenarioSpec becomes a Scenario. Every default lives here, in one place, and every
// problem with the inputs is collected and reported together.
#include "io/hf_import.hpp"
#include "io/preset_registry.hpp"
#include "io/scenario_spec.hpp"
#include "io/text.hpp"

#include "roofline/analysis.hpp"
#include "roofline/layer_stack.hpp"
#include "roofline/lora.hpp"
#include "roofline/memory.hpp"
#include "roofline/misc.hpp"
#include "roofline/params.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

#include "text/names.hpp"

namespace roofline::io {
namespace {

constexpr std::int64_t kDefaultContextUnknown = 4096;  // when a config states no trained context

bool any_override(const ModelOverrides& o) { return !o.given.empty(); }

std::string joined(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

// A model from flags alone: every size given, the rest Llama-style defaults.
std::optional<ModelPreset> model_from_flags(const ModelOverrides& o, Diagnostics& diag) {
  if (!any_override(o)) {
    diag.usage(
        "MODEL: required; give a preset name, a config.json path, - for stdin, or "
        "--layers/--hidden/--heads/--ffn/--vocab");
    return std::nullopt;
  }
  std::vector<std::string> missing;
  if (!o.layers) missing.emplace_back("--layers");
  if (!o.hidden) missing.emplace_back("--hidden");
  if (!o.heads) missing.emplace_back("--heads");
  if (!o.ffn && !o.experts) missing.emplace_back("--ffn");
  if (!o.vocab) missing.emplace_back("--vocab");
  if (!missing.empty()) {
    diag.usage("a model given by flags needs " + joined(missing, ", "));
    return std::nullopt;
  }
  ModelPreset p;
  p.config.name = "custom";
  p.config.family = "custom";
  p.origin = "flags";
  p.input_format = InputFormat::flags;
  p.config.n_kv_heads = kDeriveFromHeads;
  p.config.head_dim = kDeriveFromHeads;
  return p;
}

// The flag that gave a model by its parameter count alone, as messages name it.
std::string count_flag(const ScenarioSpec& spec) { return spec.compute_budget ? "--compute-budget" : "--params"; }

// A model known only by its parameter count: named by it, no architecture to validate.
std::optional<ModelPreset> model_from_count(const ScenarioSpec& spec, std::int64_t params, Diagnostics& diag) {
  if (!spec.model.empty() || spec.model_json_text || any_override(spec.overrides)) {
    diag.usage(count_flag(spec) + " replaces MODEL and the architecture flags; give one or the other");
    return std::nullopt;
  }
  ModelPreset p;
  p.config.name = std::to_string(params) + " parameters";
  p.config.family = "parameters only";
  p.origin = "flags";
  p.input_format = InputFormat::flags;
  return p;
}

// The model as given: an inline config object, a preset, a file, stdin, or flags alone.
std::optional<ModelPreset> load_model(const ScenarioSpec& spec, const PresetRegistry& reg, std::istream& in,
                                      Diagnostics& diag) {
  if (spec.model.empty() && !spec.model_json_text) return model_from_flags(spec.overrides, diag);
  std::optional<ModelPreset> p;
  diag.capture("", [&] {
    if (spec.model_json_text) {
      p = model_from_json(parse_json_text(*spec.model_json_text, "/model"), "/model", "inline");
      p->origin = "inline";
    } else {
      p = reg.load_model(spec.model, in);
    }
  });
  return p;
}

// Every architecture flag replaces one field.
void apply_overrides(const ModelOverrides& o, ModelConfig& m) {
  const auto apply = [](const std::optional<std::int64_t>& v, std::int64_t& field) {
    if (v) field = *v;
  };
  apply(o.layers, m.n_layers);
  apply(o.hidden, m.d_model);
  apply(o.heads, m.n_heads);
  apply(o.kv_heads, m.n_kv_heads);
  apply(o.head_dim, m.head_dim);
  apply(o.ffn, m.d_ff);
  apply(o.vocab, m.vocab_size);
  apply(o.max_seq_len, m.max_seq_len);
  apply(o.window, m.sliding_window);
  apply(o.global_every, m.global_every);
  apply(o.experts, m.moe.n_experts);
  apply(o.top_k, m.moe.top_k);
  apply(o.expert_ffn, m.moe.d_ff_expert);
  apply(o.shared_experts, m.moe.n_shared_experts);
  apply(o.shared_ffn, m.moe.d_ff_shared);
  apply(o.first_dense, m.moe.first_dense_layers);
  if (o.mlp) m.mlp = *o.mlp;
  if (o.norm) m.norm = *o.norm;
  if (o.tied) m.tied_embeddings = *o.tied;
  if (o.zero_share) m.moe.zero_share = *o.zero_share;  // validate() refuses it without zero experts
  // A model from flags alone takes the MHA and d/h defaults; a preset keeps its checkpoint's
  // head_dim and KV heads unless they are overridden (a what-if keeps every other field).
  apply_head_defaults(m);
  if (m.moe.enabled() && m.moe.d_ff_expert == 0) m.moe.d_ff_expert = m.d_ff;
  if (m.moe.n_shared_experts > 0 && m.moe.d_ff_shared == 0) m.moe.d_ff_shared = m.moe.d_ff_expert;
}

// The flag to blame for a validation problem of a model with overrides: the one that set the
// field at fault, else one that set a field the message names; "" when no flag set either.
std::string flag_at_fault(const std::string& s, const ModelOverrides& o) {
  static constexpr std::array kFieldFlags = {std::pair{"n_layers:", "--layers"},
                                             std::pair{"d_model:", "--hidden"},
                                             std::pair{"n_heads:", "--heads"},
                                             std::pair{"n_kv_heads:", "--kv-heads"},
                                             std::pair{"head_dim:", "--head-dim"},
                                             std::pair{"d_ff:", "--ffn"},
                                             std::pair{"vocab_size:", "--vocab"},
                                             std::pair{"max_seq_len:", "--max-seq-len"},
                                             std::pair{"sliding_window:", "--window"},
                                             std::pair{"global_every:", "--global-every"},
                                             std::pair{"moe.n_experts:", "--experts"},
                                             std::pair{"moe.top_k:", "--top-k"},
                                             std::pair{"moe.d_ff_expert:", "--expert-ffn"},
                                             std::pair{"moe.n_shared_experts:", "--shared-experts"},
                                             std::pair{"moe.d_ff_shared:", "--shared-ffn"},
                                             std::pair{"moe.first_dense_layers:", "--first-dense"},
                                             std::pair{"moe.zero_share:", "--zero-expert-share"}};
  const auto given = [&](std::string_view flag) {
    return std::any_of(o.given.begin(), o.given.end(), [flag](const std::string& g) {
      return g.starts_with(flag) && (g.size() == flag.size() || g[flag.size()] == ' ');
    });
  };
  // A field named elsewhere in the message, as a word ("n_kv_heads: 8 is more than n_heads 7").
  const auto mentions = [](const std::string& text, std::string_view field) {
    for (std::size_t at = text.find(field); at != std::string::npos; at = text.find(field, at + 1)) {
      const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.'; };
      const bool starts = at == 0 || !word(text[at - 1]);
      const bool ends = at + field.size() == text.size() || !word(text[at + field.size()]);
      if (starts && ends) return true;
    }
    return false;
  };
  for (const auto& [field, name] : kFieldFlags) {
    if (s.starts_with(field) && given(name)) return name;
  }
  for (const auto& [field, name] : kFieldFlags) {
    const std::string_view bare(field, std::char_traits<char>::length(field) - 1);  // without the ':'
    if (mentions(s, bare) && given(name)) return name;
  }
  return {};
}

// Loads the model with every override applied, validated.
std::optional<ModelPreset> resolve_model(const ScenarioSpec& spec, const PresetRegistry& reg, std::istream& in,
                                         Diagnostics& diag) {
  std::optional<ModelPreset> p = load_model(spec, reg, in, diag);
  if (!p) return std::nullopt;
  // --layers on a hybrid stack: one kind of layer is repeated to the new depth; a stack of
  // several kinds has no one answer (where would the new layers go?), so it is refused, named.
  std::vector<LayerMix>& mixes = p->config.hybrid.layers;
  if (spec.overrides.layers && !mixes.empty()) {
    if (std::any_of(mixes.begin(), mixes.end(), [&](const LayerMix& x) { return !(x == mixes.front()); })) {
      diag.input("--layers: " + p->config.name + " is a stack of different layers (" +
                 text::stack_summary(p->config, layer_stack(p->config)) +
                 "); --layers resizes only a model whose layers are all one kind");
      return std::nullopt;
    }
    // Outside validate's layer range (1 to 2^16) the list stays as it is: n_layers is refused by name.
    if (*spec.overrides.layers >= 1 && *spec.overrides.layers <= (std::int64_t{1} << 16)) {
      mixes.assign(static_cast<std::size_t>(*spec.overrides.layers), mixes.front());
    }
  }
  // --kv-heads / --head-dim on a model whose global layers have their own head shape (Gemma 4):
  // which layers would they set? Refused, with both shapes named.
  const GlobalAttentionShape& g = p->config.global_attention;
  if (g.enabled() && (spec.overrides.kv_heads || spec.overrides.head_dim)) {
    const HeadShape global = global_head_shape(p->config);
    diag.input(std::string(spec.overrides.kv_heads ? "--kv-heads" : "--head-dim") + ": " + p->config.name +
               "'s global layers have their own head shape (" + std::to_string(global.kv_heads) + " KV heads of " +
               std::to_string(global.head_dim) + ", sliding layers " + std::to_string(p->config.n_kv_heads) + " of " +
               std::to_string(p->config.head_dim) + "); --kv-heads and --head-dim set only a model whose " +
               "attention layers share one");
    return std::nullopt;
  }
  apply_overrides(spec.overrides, p->config);
  const std::vector<std::string> problems = validate(p->config);
  if (problems.empty()) return p;
  // A problem in a field an override set is the flag's: "--kv-heads: n_kv_heads: 0 is out of range".
  const std::string where = p->origin == "builtin" ? p->config.name : p->origin.empty() ? "model" : p->origin;
  for (const std::string& s : problems) {
    const std::string flag = flag_at_fault(s, spec.overrides);
    diag.input((flag.empty() ? where : flag) + ": " + s);
  }
  return std::nullopt;
}

// --weight-format's class=format pairs over `layout`: rest= first, then each class named.
void apply_weight_pairs(const WeightFormatSpec& f, WeightLayout& layout) {
  if (f.rest) {
    for (WeightClass k : kAllWeightClasses) {
      const bool named = std::any_of(f.classes.begin(), f.classes.end(), [&](const auto& p) { return p.first == k; });
      if (!named) layout.set(k, *f.rest);
    }
  }
  for (const auto& [k, fmt] : f.classes) layout.set(k, fmt);
}

// The weight layout. --dtype and --weight-bits give one format for every class (the whiteboard's
// N b_w / 8); --weight-format one format, "published", or class=format pairs over the default; the
// default is the published checkpoint's layout where the model declares one, else bf16.
void resolve_weights(const ScenarioSpec& spec, const ModelConfig& m, const ParamCounts& c, Workload& w) {
  w.weight_dtype = spec.dtype.value_or(w.weight_dtype);
  WeightFormat format = plain_weight_format(w.weight_dtype);
  if (spec.weight_format && !spec.weight_format->name.empty()) {
    format = *spec.weight_format;
  } else if (spec.weight_format) {
    format.bits = spec.weight_format->bits;  // a number of bits: the weight type keeps its name
  }
  WeightLayout layout = WeightLayout::all(format);
  const WeightFormatSpec* f = spec.weight_layout ? &*spec.weight_layout : nullptr;
  const bool flat = spec.dtype || spec.weight_format || (f && f->all);
  if (f && f->all) layout = WeightLayout::all(*f->all);
  if (!flat && m.published_weights) {
    layout = *m.published_weights;
    w.weights_published = !f || f->published;
  }
  if (f && !flat) apply_weight_pairs(*f, layout);
  w.weights = layout;
  // The class that holds most of the weights decides the storage type and the compute policy.
  const WeightFormat& main = layout.of(m.moe.enabled() ? WeightClass::experts : WeightClass::ffn);
  w.weight_dtype = main.storage;
  if (layout.uniform()) {
    w.weight_format = layout.of(WeightClass::ffn).name;
    w.weight_bits = layout.bits(WeightClass::ffn);
  } else {
    w.weight_format = w.weights_published ? "as published" : "per class";
    const double n = static_cast<double>(c.total);
    w.weight_bits = n > 0.0 ? stored_weight_bytes(c, layout) * 8.0 / n : layout.bits(WeightClass::ffn);
  }
  w.compute_dtype = spec.compute_dtype.value_or(default_compute_dtype(main));
}

// The workload: every default in one place.
Workload resolve_workload(const ScenarioSpec& spec, const ModelConfig& m, const ParamCounts& c) {
  Workload w;
  const std::int64_t trained = m.max_seq_len;
  w.batch = spec.batch.value_or(w.batch);
  w.context = spec.context.value_or(trained > 0 ? trained : kDefaultContextUnknown);
  w.prompt = spec.prompt.value_or(trained > 0 ? std::min(w.prompt, trained) : w.prompt);
  w.output = spec.output.value_or(w.output);
  resolve_weights(spec, m, c, w);
  w.kv_dtype = spec.kv_dtype.value_or(w.kv_dtype);
  w.kv_bits = dtype_bits(w.kv_dtype);
  w.kv_format = dtype_name(w.kv_dtype);
  if (spec.kv_format) {
    // One scale per cached vector: a head's d_h, or MLA's latent of d_c + d_R.
    const double width =
        static_cast<double>(m.mla.enabled() ? m.mla.kv_lora_rank + m.mla.qk_rope_head_dim : m.head_dim);
    w.kv_bits = spec.kv_format->bits(width);
    w.kv_format = spec.kv_format->name.empty() ? "bits" : spec.kv_format->name;
  }
  w.activation_dtype = DType::bf16;
  w.bw_efficiency = spec.bw_efficiency.value_or(w.bw_efficiency);
  w.mfu = spec.mfu.value_or(w.mfu);
  w.basis = spec.basis.value_or(w.basis);
  w.attention = spec.attention.value_or(w.attention);
  w.lm_head = spec.lm_head.value_or(w.lm_head);
  w.decode_bytes = spec.decode_bytes.value_or(w.decode_bytes);
  w.moe_decode = spec.moe_decode.value_or(w.moe_decode);
  if (spec.reserve && spec.reserve->bytes) w.reserve = *spec.reserve->bytes;
  return w;
}

// The accelerator with its capacity and bandwidth overrides; a note when an alias chose it. The
// --gpu-peak overrides are checked here and applied by apply_point_inputs(): one without a dtype
// is for the compute dtype, which the weight type decides.
// The system the devices sit in: --system, else the accelerator's usual system preset, else one
// flat domain at the accelerator's own interconnect (or its PCIe host link where it has none);
// --domain-size and --scale-out-bw override any of them.
Topology resolve_topology(const ScenarioSpec& spec, const PresetRegistry& reg, const HardwareConfig& h,
                          const std::optional<SystemPreset>& given, Diagnostics& diag, Resolved& r) {
  Topology t;
  if (given) {
    t = given->topology;
  } else if (!h.system.empty()) {
    diag.capture(h.name, [&] { t = reg.load_system(h.system).topology; });
    r.notes.push_back("system: " + t.name + ", the usual system of " + h.name + " (--system to choose another)");
  } else if (!h.interconnect_name.empty()) {
    t = flat_topology({LinkKind::scale_up, h.interconnect_name, h.interconnect_bandwidth},
                      "one flat " + h.interconnect_name + " domain");
  } else if (h.pcie_generation > 0) {
    const Link pcie = pcie_link(h);
    t = flat_topology(pcie, "one flat " + pcie.name + " domain");
  } else {
    t = flat_topology({}, "no interconnect known");
  }
  if (spec.domain_size) {
    t.domain = *spec.domain_size;
    if (t.source == TopologySource::flat) t.source = TopologySource::flags;
  }
  if (spec.scale_out_bw) {
    t.across = {LinkKind::scale_out, "--scale-out-bw", *spec.scale_out_bw};
    t.has_across = true;
    if (t.source == TopologySource::flat) t.source = TopologySource::flags;
  }
  if (t.source == TopologySource::flags && t.name.empty()) {
    t.display_name =
        std::to_string(t.domain) + "-device " + (t.inside.name.empty() ? "domains" : t.inside.name + " domains");
  }
  return t;
}

std::optional<Accelerator> resolve_accelerator(const ScenarioSpec& spec, const PresetRegistry& reg, Diagnostics& diag,
                                               Resolved& r) {
  std::optional<SystemPreset> system;
  if (!spec.system.empty()) diag.capture("", [&] { system = reg.load_system(spec.system); });
  const std::string gpu = !spec.gpu.empty() ? spec.gpu : (system ? system->accelerator : std::string());
  if (gpu.empty()) return std::nullopt;
  std::optional<Accelerator> acc;
  diag.capture("", [&] { acc = Accelerator{reg.load_gpu(gpu), CapacitySource::device, {}}; });
  if (!acc) return std::nullopt;
  if (system && system->accelerator != acc->hw.name) {
    diag.input("--system: " + system->topology.name + " holds " + system->accelerator + ", not --gpu's " +
               acc->hw.name + "; give one of them, or a system of " + acc->hw.name);
  }
  if (spec.uses_system) acc->system = resolve_topology(spec, reg, acc->hw, system, diag, r);
  HardwareConfig& h = acc->hw;
  r.peaks_before_point = h.peak;
  for (const PeakOverride& p : spec.gpu_peaks) {
    if (!(p.rate.base() > 0.0)) diag.input("--gpu-peak: must be a positive rate");
  }
  if (spec.gpu_memory) {
    if (!(spec.gpu_memory->base() > 0.0)) diag.input("--gpu-memory: must be a positive size");
    h.memory_capacity = *spec.gpu_memory;
    acc->capacity_source = CapacitySource::override_bytes;
  }
  if (spec.gpu_bandwidth) {
    if (!(spec.gpu_bandwidth->base() > 0.0)) diag.input("--gpu-bandwidth: must be a positive rate");
    h.memory_bandwidth = *spec.gpu_bandwidth;
  }
  // The preset's own problems; an override's are named above, once.
  const bool bad_override = std::any_of(spec.gpu_peaks.begin(), spec.gpu_peaks.end(),
                                        [](const PeakOverride& p) { return !(p.rate.base() > 0.0); }) ||
                            (spec.gpu_memory && !(spec.gpu_memory->base() > 0.0)) ||
                            (spec.gpu_bandwidth && !(spec.gpu_bandwidth->base() > 0.0));
  if (!bad_override) {
    for (const std::string& p : validate(h)) diag.input(h.name + ": " + p);
  }
  if (spec.gpu != h.name && spec.gpu.find('/') == std::string::npos && !spec.gpu.ends_with(".json")) {
    r.notes.push_back("--gpu " + spec.gpu + " resolved to " + h.name);
  }
  return acc;
}

std::string str(std::int64_t v) { return std::to_string(v); }

// a x b when it is at most kMaxCount (2^62, the largest count any flag takes); otherwise nullopt,
// and the caller names the flags whose product it is (N4: the products wrapped in int64).
std::optional<std::int64_t> count_product(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r) || r > kMaxCount) return std::nullopt;
  return r;
}

// The training layout: G = t p d, and what each degree must divide.
// Serving needs equal stages; training takes uneven ones (--pp-layers, or the balanced default).
void resolve_layout(const ScenarioSpec& spec, Scenario& sc, Diagnostics& diag, bool training) {
  Deployment& dep = sc.deployment;
  const ModelConfig& m = sc.model;
  dep.tensor = spec.tp.value_or(Deployment{}.tensor);
  dep.pipeline = spec.pp.value_or(Deployment{}.pipeline);
  dep.expert = spec.ep.value_or(Deployment{}.expert);
  dep.sequence_parallel = spec.sequence_parallel;
  dep.context = training ? spec.cp.value_or(Deployment{}.context) : 1;
  // A model replica is t x p devices, and x c with context parallelism: "--tp 8 x --pp 4 (x --cp 2)".
  const std::string replica = "--tp " + str(dep.tensor) + " x --pp " + str(dep.pipeline) +
                              (dep.context > 1 ? " x --cp " + str(dep.context) : std::string());
  const std::optional<std::int64_t> t_p = count_product(dep.tensor, dep.pipeline);
  const std::optional<std::int64_t> product = t_p ? count_product(*t_p, dep.context) : t_p;
  const std::optional<std::int64_t> devices = spec.dp && product ? count_product(*product, *spec.dp) : product;
  if (!devices) {
    diag.input(replica + (spec.dp ? " x --dp " + str(*spec.dp) : std::string()) + " is more than 2^62 devices");
    dep.data = 1;
    dep.devices = 1;
    return;
  }
  const std::int64_t tp_pp = *product;
  if (spec.dp) {
    dep.data = *spec.dp;
    if (spec.devices && *spec.devices != *devices) {
      diag.input("--gpus: " + str(*spec.devices) + " is not " + replica + " x --dp " + str(dep.data) + " = " +
                 str(*devices));
    }
    dep.devices = *devices;
  } else if (!spec.devices) {
    dep.devices = tp_pp;  // one replica
    dep.data = 1;
  } else if (dep.devices % tp_pp != 0) {
    diag.input("--gpus: " + str(dep.devices) + " devices do not divide into " + replica + " = " + str(tp_pp) +
               " per model replica");
  } else {
    dep.data = dep.devices / tp_pp;
  }
  if (!sc.architecture) return;
  if (m.n_heads % dep.tensor != 0) {
    diag.input("--tp: the " + str(m.n_heads) + " query heads do not split over " + str(dep.tensor) + " ranks");
  }
  if (!m.mla.enabled() && m.n_kv_heads % dep.tensor != 0 && dep.tensor % m.n_kv_heads != 0) {
    diag.input("--tp: the " + str(m.n_kv_heads) + " KV heads neither split over nor replicate across " +
               str(dep.tensor) + " ranks");
  }
  // A state-space mixer splits its channels or heads over t, its matrices and its state alike.
  for (const StateSplit& x : state_tensor_splits(m)) {
    if (x.count % dep.tensor != 0) {
      diag.input("--tp: the " + str(x.count) + " " + x.what + " do not split over " + str(dep.tensor) + " ranks");
    }
  }
  if (dep.pipeline > m.n_layers) {
    diag.input("--pp: " + str(dep.pipeline) + " stages for the " + str(m.n_layers) +
               " layers; each stage needs a layer");
  } else if (!training && m.n_layers % dep.pipeline != 0) {
    diag.input("--pp: the " + str(m.n_layers) + " layers do not split into " + str(dep.pipeline) +
               " equal stages (serving; train takes uneven stages)");
  }
  if (dep.expert > 1 && !m.moe.enabled()) {
    diag.input("--ep: the model has no routed experts; expert parallelism needs an MoE model");
  } else if (dep.expert > 1 && m.moe.n_experts % dep.expert != 0) {
    diag.input("--ep: the " + str(m.moe.n_experts) + " routed experts do not split over " + str(dep.expert) + " ranks");
  }
}

// Serving keeps experts whole, E/e a device, on e ranks of a stage's t d devices: an expert group
// spans whole replicas (e a multiple of t: DP attention + EP) or lies within one (e divides t).
void check_serving_experts(const Scenario& sc, Diagnostics& diag) {
  const Deployment& dep = sc.deployment;
  if (dep.expert <= 1) return;
  const std::int64_t stage = dep.tensor * dep.data;
  if (stage % dep.expert != 0) {
    diag.input("--ep: " + str(dep.expert) + " expert ranks are not a divisor of a stage's --tp " + str(dep.tensor) +
               " x --dp " + str(dep.data) + " = " + str(stage) + " devices");
  } else if (dep.expert % dep.tensor != 0 && dep.tensor % dep.expert != 0) {
    diag.input("--ep: " + str(dep.expert) + " expert ranks neither span whole replicas of --tp " + str(dep.tensor) +
               " nor divide one");
  }
}

// The batch: b, s and m (or the global batch that sets m).
void resolve_batch(const ScenarioSpec& spec, Scenario& sc, Diagnostics& diag) {
  TrainingInputs& t = sc.training;
  t.micro_batch = spec.micro_batch.value_or(TrainingInputs{}.micro_batch);
  const std::int64_t trained = sc.model.max_seq_len;
  t.seq_len = spec.seq.value_or(trained > 0 ? trained : kDefaultContextUnknown);
  t.grad_accum = spec.grad_accum.value_or(TrainingInputs{}.grad_accum);
  if (!spec.global_batch) {
    const std::optional<std::int64_t> b_m = count_product(t.micro_batch, t.grad_accum);
    if (!b_m || !count_product(*b_m, sc.deployment.data)) {
      diag.input("--micro-batch " + str(t.micro_batch) + " x --grad-accum " + str(t.grad_accum) + " x " +
                 str(sc.deployment.data) + " data-parallel replicas is more than 2^62 sequences a step");
    }
    return;
  }
  // --best-layout splits the global batch itself, layout by layout (resolve_layout_search).
  if (spec.best_layout && !spec.grad_accum) return;
  const std::optional<std::int64_t> sequences = count_product(t.micro_batch, sc.deployment.data);
  if (!sequences) {
    diag.input("--global-batch: --micro-batch " + str(t.micro_batch) + " x --dp " + str(sc.deployment.data) +
               " is more than 2^62 sequences a step");
    return;
  }
  const std::int64_t per_step = *sequences;
  const std::string step = "--micro-batch " + str(t.micro_batch) + " x --dp " + str(sc.deployment.data);
  if (spec.grad_accum) {
    // Both given: they must agree, B = b d m; the one that disagrees is named with the product.
    const std::optional<std::int64_t> b_d_m = count_product(per_step, t.grad_accum);
    if (!b_d_m || *b_d_m != *spec.global_batch) {
      diag.usage("--global-batch " + str(*spec.global_batch) + " and --grad-accum " + str(t.grad_accum) +
                 " disagree: " + step + " x --grad-accum " + str(t.grad_accum) + " = " +
                 (b_d_m ? str(*b_d_m) : std::string("more than 2^62")) + " sequences a step; give one of them");
    }
  } else if (*spec.global_batch % per_step != 0) {
    diag.input("--global-batch: " + str(*spec.global_batch) + " is not a multiple of " + step + " = " + str(per_step) +
               " sequences a micro-step");
  } else {
    t.grad_accum = *spec.global_batch / per_step;
  }
}

// --pp-layers: one count per stage, the model's layers in all, 1F1B only.
void resolve_stage_layers(const ScenarioSpec& spec, Scenario& sc, Diagnostics& diag) {
  if (spec.pp_layers.empty()) return;
  const std::int64_t p = sc.deployment.pipeline;
  const auto given = static_cast<std::int64_t>(spec.pp_layers.size());
  std::int64_t sum = 0;
  for (const std::int64_t n : spec.pp_layers) {
    if (__builtin_add_overflow(sum, n, &sum)) sum = kMaxCount;  // sums past 2^62 only need to differ from L
  }
  if (given != p) {
    diag.input("--pp-layers: " + str(given) + (given == 1 ? " stage" : " stages") + " given for --pp " + str(p));
  } else if (!sc.architecture) {
    diag.input("--pp-layers: needs the model's layers; a model known by " + count_flag(spec) + " has none");
  } else if (sum != sc.model.n_layers) {
    diag.input("--pp-layers: the stages hold " + str(sum) + " layers; the model has " + str(sc.model.n_layers));
  } else if (spec.pp_chunks && *spec.pp_chunks > 1) {
    diag.usage("--pp-layers and --pp-chunks: the interleaved schedule splits into equal chunks; give one of them");
  } else {
    sc.training.pipeline_layers = spec.pp_layers;
  }
}

// The schedule: recomputation (every k), ZeRO shard groups, interleaved pipeline chunks.
void resolve_schedule(const ScenarioSpec& spec, Scenario& sc, Diagnostics& diag) {
  TrainingInputs& t = sc.training;
  const Deployment& dep = sc.deployment;
  const ModelConfig& m = sc.model;
  resolve_stage_layers(spec, sc, diag);
  t.recompute = spec.recompute.value_or(TrainingInputs{}.recompute);
  t.recompute_every = spec.recompute_every.value_or(TrainingInputs{}.recompute_every);
  if (spec.recompute_every && t.recompute != Recompute::full) {
    diag.usage("--recompute-every: applies to --recompute full only");
  } else if (sc.architecture && spec.recompute_every && dep.pipeline <= m.n_layers) {
    // Only a k that was given, on stages that exist: --pp 64 on 32 layers is --pp's mistake (N18).
    const std::vector<std::int64_t> stages =
        t.pipeline_layers.empty() ? balanced_stage_layers(m.n_layers, dep.pipeline) : t.pipeline_layers;
    const std::int64_t most = *std::max_element(stages.begin(), stages.end());
    if (t.recompute_every > most) {
      diag.input("--recompute-every: " + str(t.recompute_every) + " is more than the " + str(most) +
                 " layers of a pipeline stage");
    }
  }
  // FSDP's hybrid sharding shards within a node (8 devices unless --shard-group says) and replicates
  // across nodes; --shard-group does the same for any stage  [ZH23]
  const bool hybrid = spec.fsdp && *spec.fsdp == "hybrid";
  const std::int64_t group = spec.shard_group.value_or(hybrid ? std::min<std::int64_t>(8, dep.data) : 0);
  if (group > 0) {
    if (t.zero == ZeroStage::none) {
      diag.usage("--shard-group: needs --zero 1, 2 or 3 (or an --fsdp strategy that shards)");
    } else if (dep.data % group != 0) {
      diag.input("--shard-group: " + str(group) + " does not divide the " + str(dep.data) + " data-parallel ranks");
    } else {
      t.shard_group = group;
    }
  }
  t.pipeline_chunks = spec.pp_chunks.value_or(TrainingInputs{}.pipeline_chunks);
  if (t.pipeline_chunks == 1) return;
  if (dep.pipeline == 1) {
    diag.usage("--pp-chunks: the interleaved schedule needs --pp 2 or more");
  } else if (sc.architecture && m.n_layers % (dep.pipeline * t.pipeline_chunks) != 0) {
    diag.input("--pp-chunks: the " + str(m.n_layers) + " layers do not split into " + str(dep.pipeline) + " x " +
               str(t.pipeline_chunks) + " equal chunks");
  } else if (t.grad_accum % dep.pipeline != 0) {
    diag.input("--pp-chunks: the interleaved schedule needs the " + str(t.grad_accum) +
               " micro-batches per step to be a multiple of --pp " + str(dep.pipeline));
  }
}

// How the step is timed: the model-FLOPs convention, a stated HFU, a measurement.
void resolve_timing(const ScenarioSpec& spec, Scenario& sc, Diagnostics& diag) {
  TrainingInputs& t = sc.training;
  t.model_flops = spec.model_flops.value_or(TrainingInputs{}.model_flops);
  if (!sc.architecture && t.model_flops != ModelFlopsConvention::six_n) {
    diag.input("--model-flops " + std::string(name_of(t.model_flops)) +
               " needs the model's layers and heads; a model known by " + count_flag(spec) + " counts 6n");
  }
  if (spec.hfu && spec.mfu) diag.usage("--hfu and --mfu: give one utilisation, not both");
  if (spec.measured_step_time && spec.measured_tokens_per_s) {
    diag.usage("--measured-step-time and --measured-tokens-per-s: give one measurement, not both");
  }
  // A measured rate sets the step time: an assumed --mfu beside it would change nothing.
  if ((spec.mfu || spec.hfu) && (spec.measured_step_time || spec.measured_tokens_per_s)) {
    const std::string assumed = spec.mfu ? "--mfu" : "--hfu";
    diag.usage(assumed + " and " + (spec.measured_step_time ? "--measured-step-time" : "--measured-tokens-per-s") +
               ": the measurement sets the step time and the achieved MFU, so " + assumed +
               " would change nothing; give one");
  }
  t.hfu = spec.hfu;
  t.measured_step_time_s = spec.measured_step_time;
}

// Fine-tuning: QLoRA's recipe adapts every linear layer at rank 64 [DE23 §4]; LoRA's default is
// PEFT's q, v at rank 8.
void resolve_fine_tuning(const ScenarioSpec& spec, Scenario& sc, Diagnostics& diag) {
  if (!spec.lora_rank && !spec.lora_targets && !spec.qlora) return;
  FineTuning f;
  f.qlora = spec.qlora;
  f.rank = spec.lora_rank.value_or(spec.qlora ? 64 : 8);
  f.targets = spec.lora_targets.value_or(spec.qlora ? LoraTargets::all : LoraTargets::qv);
  if (spec.lora_targets && !spec.lora_rank && !spec.qlora) diag.usage("--lora-targets: needs --lora RANK or --qlora");
  if (!sc.architecture) {
    diag.input("--lora: adapters need the model's matrices; a model known by " + count_flag(spec) + " has none");
  } else if (spec.lora_rank) {
    // N_lora = r x (the adapters' parameters a rank) must count exactly, bytes included: r at most
    // 2^53 / that, named with the flag (N17: an overflow deep in the counts named neither).
    const std::int64_t per_rank = lora_params(sc.model, f.targets, 1).total;
    const std::int64_t most = per_rank > 0 ? (std::int64_t{1} << 53) / per_rank : kMaxCount;
    if (f.rank > most) {
      diag.input("--lora: " + str(f.rank) + " is too large a rank: at most " + str(most) +
                 " for this model and these targets (" + str(per_rank) +
                 " adapter parameters a rank, at most 2^53 in all)");
    }
  }
  if (sc.training.model_flops != ModelFlopsConvention::six_n) {
    diag.usage("--model-flops: applies to full training; fine-tuning counts 4N + 6N_lora per token");
  }
  sc.training.lora = f;
}

// --best-layout: what the flags given hold, and the global batch every layout splits.
void resolve_layout_search(const ScenarioSpec& spec, Scenario& sc, Diagnostics& diag) {
  if (!spec.best_layout) return;
  const TrainingInputs& t = sc.training;
  if (!sc.architecture) {
    diag.input("--best-layout: needs the model's layers and heads; a model known by " + count_flag(spec) + " has none");
  }
  if (spec.grad_accum) {
    diag.usage("--grad-accum: --best-layout splits the global batch into micro-batches itself; give --global-batch");
  }
  if (spec.shard_group || (spec.fsdp && *spec.fsdp == "hybrid")) {
    diag.usage(std::string(spec.shard_group ? "--shard-group" : "--fsdp hybrid") +
               ": --best-layout shards ZeRO over all the data ranks of each layout; drop it or give the layout");
  }
  LayoutSearchRequest q;
  q.tensor = spec.tp.has_value();
  q.context = spec.cp.has_value();
  q.pipeline = spec.pp.has_value() || !spec.pp_layers.empty();
  q.expert = spec.ep.has_value();
  q.data = spec.dp.has_value();
  q.micro_batch = spec.micro_batch.has_value();
  q.zero = spec.zero.has_value() || spec.fsdp.has_value();
  q.recompute = spec.recompute.has_value();
  q.global_batch = spec.global_batch.value_or(t.micro_batch * t.grad_accum * sc.deployment.data);
  sc.training.layout_search = q;
}

// prefill --cp c: one context-parallel group of c devices, each prompt in 2c equal chunks, two a
// rank (the causal attention's work even), ring attention over the attention layers.
void resolve_context_group(const ScenarioSpec& spec, Scenario& sc, Diagnostics& diag) {
  Deployment& dep = sc.deployment;
  dep.context = *spec.cp;
  if (spec.devices && *spec.devices != dep.context) {
    diag.input("--gpus: " + str(*spec.devices) + " is not --cp " + str(dep.context) +
               "; a context-parallel prefill runs on one group of c devices");
  }
  dep.devices = dep.context;
  if (sc.workload.prompt % (2 * dep.context) != 0) {
    diag.input("--cp: the " + str(sc.workload.prompt) + "-token prompts do not split into 2 x " + str(dep.context) +
               " equal chunks");
  }
  for (const LayerKind& k : layer_kinds(sc.model)) {
    if (k.mix.state != StateMixer::none) {
      diag.input(
          "--cp: ring attention splits the attention layers; a state-space layer's scan across the ranks is "
          "not modelled");
      break;
    }
  }
}

// --trace: one {"arrival_s", "prompt", "output"} object a line; blank lines skipped.
std::vector<TraceRequest> read_trace(const std::string& path) {
  const std::string text = read_file(path);
  std::vector<TraceRequest> out;
  std::size_t begin = 0;
  std::int64_t line = 0;
  while (begin < text.size()) {
    const std::size_t end = std::min(text.find('\n', begin), text.size());
    ++line;
    const std::string_view row(text.data() + begin, end - begin);
    begin = end + 1;
    if (row.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const std::string where = path + ":" + std::to_string(line);
    const nlohmann::json j = parse_json_text(row, where);
    if (!j.is_object()) throw InputError(where + ": expected an object {\"arrival_s\", \"prompt\", \"output\"}");
    TraceRequest q;
    const auto count = [&](const char* key) {
      const auto it = j.find(key);
      if (it == j.end() || !it->is_number_integer() || it->get<std::int64_t>() < 1 ||
          it->get<std::int64_t>() > (std::int64_t{1} << 40)) {
        throw InputError(where + ": \"" + key + "\" must be a whole number of tokens in [1, 2^40]");
      }
      return it->get<std::int64_t>();
    };
    const auto at = j.find("arrival_s");
    // At most 1e9 s (31 years): past it a double's step passes a microsecond and latencies round to 0.
    if (at == j.end() || !at->is_number() || !(at->get<double>() >= 0.0) || !(at->get<double>() <= 1e9)) {
      throw InputError(where + ": \"arrival_s\" must be a number of seconds from 0 to 1e9");
    }
    for (const auto& [key, value] : j.items()) {
      if (key != "arrival_s" && key != "prompt" && key != "output") {
        throw InputError(where + ": unknown key \"" + key + "\"; a line holds arrival_s, prompt and output");
      }
    }
    q.arrival_s = at->get<double>();
    q.prompt = count("prompt");
    q.output = count("output");
    out.push_back(q);
    if (out.size() > 10'000'000) throw InputError(path + ": more than 10,000,000 requests");
  }
  if (out.empty()) throw InputError(path + ": no requests");
  return out;
}

bool contains_a100(const std::string& name) {
  std::string l = name;
  std::transform(l.begin(), l.end(), l.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return l.find("a100") != std::string::npos;
}

// The scheduler's limits, on the accelerator (compare and plot resolve each one): vLLM V1's `vllm
// serve` defaults, 8,192 tokens and 1,024 sequences on a GPU of 70 GiB or more other than an A100,
// else 2,048 and 256 (vllm/engine/arg_utils.py, _set_default_args)  [VL25]
void scheduler_defaults(const ScenarioSpec& spec, Scenario& sc) {
  LoadSpec& l = sc.serving.load->spec;
  const bool large = sc.accelerator && sc.accelerator->hw.memory_capacity.base() >= 70.0 * 1073741824.0 &&
                     !contains_a100(sc.accelerator->hw.name);
  l.max_seqs = spec.max_seqs.value_or(large ? 1024 : 256);
  l.token_budget = spec.token_budget.value_or(large ? 8192 : 2048);
  if (l.max_seqs > l.token_budget) {
    throw UsageError("--max-seqs: " + std::to_string(l.max_seqs) + " sequences exceed the --token-budget of " +
                     std::to_string(l.token_budget) + " tokens a step; every running sequence needs its token");
  }
}

// serve --rate: the load, the lengths and the scheduler of the simulated server.
void resolve_load(const ScenarioSpec& spec, Scenario& sc, Diagnostics& diag) {
  const bool closed = spec.arrivals && spec.arrivals->process == ArrivalProcess::closed;
  const bool any = spec.rate || spec.arrivals || spec.trace || spec.prompt_dist || spec.output_dist || spec.requests ||
                   spec.seed || spec.max_seqs || spec.token_budget || spec.step_overhead;
  if (!any) return;
  if (!spec.rate && !closed && !spec.trace) {
    diag.usage("--rate: a simulated server needs --rate RATE, --arrivals closed:USERS or --trace FILE");
    return;
  }
  if (spec.rate && closed) diag.usage("--rate: contradicts --arrivals closed, whose users set their own rate");
  if (spec.trace && (spec.rate || spec.arrivals || spec.prompt_dist || spec.output_dist || spec.requests)) {
    diag.usage(
        "--trace: the trace gives the arrivals and lengths; drop --rate, --arrivals, --requests and the -dist "
        "flags");
  }
  const bool replicas = sc.deployment.data > 1 || sc.deployment.expert > sc.deployment.tensor;
  if (replicas || sc.deployment.context > 1 || spec.draft) {
    diag.input(std::string("--rate: the simulated server runs on serve's ideal device or one replica's --tp x --pp "
                           "layout; with ") +
               (spec.draft                  ? "--draft"
                : sc.deployment.context > 1 ? "--cp"
                                            : "--dp or --ep across replicas") +
               " it is not modelled yet");
  }
  if (spec.concurrency) diag.usage("--concurrency: a simulated server's concurrency follows from its load; drop it");
  LoadInputs in;
  LoadSpec& l = in.spec;
  if (spec.arrivals) {
    l.arrivals = spec.arrivals->process;
    l.cv = spec.arrivals->cv;
    l.users = spec.arrivals->users;
    l.think_s = spec.arrivals->think_s;
  }
  l.rate = spec.rate.value_or(0.0);
  if (spec.trace) {
    l.arrivals = ArrivalProcess::trace;
    try {
      l.trace = read_trace(*spec.trace);
    } catch (const InputError& e) {
      throw InputError(std::string("--trace: ") + e.what());
    }
    l.requests = static_cast<std::int64_t>(l.trace.size());
  }
  const auto lengths = [](const std::optional<LengthSpec>& d, std::int64_t mean) {
    LengthSpec x = d.value_or(LengthSpec{});
    x.mean = static_cast<double>(mean);
    return x;
  };
  l.prompt = lengths(spec.prompt_dist, sc.workload.prompt);
  l.output = lengths(spec.output_dist, sc.workload.output);
  if (sc.workload.output < 1 && l.output.dist != LengthDist::uniform)
    diag.input("--output: a simulated request generates at least 1 token");
  l.requests = spec.requests.value_or(l.requests);
  // The arrivals span about N / λ seconds; past 1e9 s (31 years) a double's step passes a
  // microsecond and a step's time would round away.
  if (spec.rate && std::isfinite(*spec.rate) && static_cast<double>(l.requests) / *spec.rate > 1e9) {
    diag.input("--rate: " + str(l.requests) +
               " requests at this rate arrive over more than 1e9 s (31 years); raise "
               "--rate or lower --requests");
  }
  l.seed = spec.seed.value_or(0);
  l.block = spec.kv_block.value_or(ServingInputs{}.kv_block);
  l.shared_prefix = spec.shared_prefix.value_or(0);
  l.ttft_target_s = spec.ttft_target;
  l.tpot_target_s = spec.tpot_target;
  in.step_overhead_s = spec.step_overhead.value_or(0.0);
  in.search_saturation = spec.rate && (spec.ttft_target || spec.tpot_target);
  sc.serving.load = std::move(in);
}

// The training layout, recipe, schedule and run, each pass checking what it resolves.
void resolve_training(const ScenarioSpec& spec, Scenario& sc, Diagnostics& diag) {
  resolve_layout(spec, sc, diag, true);
  TrainingInputs& t = sc.training;
  t.tokens = spec.tokens;
  if (t.budget) {  // the budget's tokens for the model it sized: D = C / 6N, whole (size_budget)
    t.tokens = static_cast<std::int64_t>(t.budget->sized().tokens);
  }
  // --fsdp names a stage and --zero gives one: both, even agreeing, is one input given twice, which
  // the CLI and batch once read in opposite ways (N8).
  if (spec.zero && spec.fsdp) {
    diag.usage("--zero " + std::to_string(static_cast<int>(*spec.zero)) + " and --fsdp " + *spec.fsdp +
               " both set the ZeRO stage; give one of them");
  }
  t.zero = spec.fsdp ? fsdp_strategy(*spec.fsdp)->stage : spec.zero.value_or(TrainingInputs{}.zero);
  t.recipe = spec.optimizer.value_or(TrainingInputs{}.recipe);
  resolve_batch(spec, sc, diag);
  // Context parallelism splits each sequence into 2c chunks, two a rank, so that the causal
  // attention's work is even (Megatron-Core's load balancing).
  if (sc.deployment.context > 1 && t.seq_len % (2 * sc.deployment.context) != 0) {
    diag.input("--cp: the " + str(t.seq_len) + "-token sequences do not split into 2 x " + str(sc.deployment.context) +
               " equal chunks");
  }
  resolve_schedule(spec, sc, diag);
  resolve_timing(spec, sc, diag);
  resolve_fine_tuning(spec, sc, diag);
  resolve_layout_search(spec, sc, diag);
  t.flash_attention = !spec.no_flash_attention;
  t.dropout = spec.dropout;
  t.price_per_device_hour = spec.price;
}

// Speculative decoding: the draft model (a preset or config, or the model's own MTP modules),
// the acceptance rate and the draft length.
void resolve_speculation(const ScenarioSpec& spec, const PresetRegistry& reg, std::istream& in, Resolved& r,
                         Diagnostics& diag) {
  Scenario& sc = r.scenario;
  if (!spec.draft) {
    if (spec.acceptance || spec.draft_len) diag.usage("--acceptance and --draft-len need --draft MODEL or --draft mtp");
    return;
  }
  if (!sc.architecture) {
    diag.input("--draft: speculative decoding needs the model's architecture; a model known by " + count_flag(spec) +
               " has none");
    return;
  }
  Speculation sp;
  sp.acceptance = spec.acceptance.value_or(sp.acceptance);
  sp.acceptance_assumed = !spec.acceptance;
  if (*spec.draft == "mtp") {
    // Self-drafting: each MTP module is one more block on the model's own embedding and head
    // [DS24 V3 §2.2], drafting one token; γ is at most the modules stored.
    const ModelConfig& m = sc.model;
    if (m.mtp_layers <= 0) {
      diag.input("--draft mtp: " + m.name + " has no multi-token-prediction modules");
      return;
    }
    sp.self_draft = true;
    sp.draft = m;
    sp.draft.name = m.name + " MTP";
    sp.draft.n_layers = m.mtp_layers;
    sp.draft.mtp_layers = 0;
    sp.draft.moe.first_dense_layers = 0;
    if (sp.draft.hybrid.enabled()) {  // Qwen3-Next: each MTP module is a full-attention layer (issue 10)
      sp.draft.hybrid.layers.assign(
          static_cast<std::size_t>(m.mtp_layers),
          LayerMix{
              .attention = true, .state = StateMixer::none, .ffn = m.moe.enabled() ? LayerFfn::moe : LayerFfn::dense});
    }
    sp.draft_len = spec.draft_len.value_or(m.mtp_layers);
    if (sp.draft_len > m.mtp_layers) {
      diag.input("--draft-len: " + str(sp.draft_len) + " is more than the " + str(m.mtp_layers) + " MTP modules of " +
                 m.name);
    }
  } else {
    diag.capture("--draft", [&] { sp.draft = reg.load_model(*spec.draft, in).config; });
    sp.draft_len = spec.draft_len.value_or(sp.draft_len);
  }
  diag.capture("--draft", [&] { sp.draft_counts = count_params(sp.draft); });
  sc.speculation = std::move(sp);
}

// Inputs that only mean something on an accelerator.
void check_needs_gpu(const ScenarioSpec& spec, bool needs_gpu, Diagnostics& diag) {
  if (needs_gpu) diag.usage("--gpu is required; see `roofline gpus` for the presets");
  const auto needs = [&](bool given, const char* flag) {
    if (given) diag.usage(std::string(flag) + ": needs --gpu");
  };
  needs(spec.devices.has_value(), "--gpus");
  needs(spec.gpu_memory.has_value(), "--gpu-memory");
  needs(spec.gpu_bandwidth.has_value(), "--gpu-bandwidth");
  needs(!spec.gpu_peaks.empty(), "--gpu-peak");
  needs(spec.mfu.has_value(), "--mfu");
  needs(spec.bw_efficiency.has_value(), "--bw-efficiency");
  needs(spec.measured_tokens_per_s.has_value(), "--measured-tokens-per-s");
  needs(spec.measured_step_time.has_value(), "--measured-step-time");
  needs(spec.hfu.has_value(), "--hfu");
  needs(spec.reserve.has_value(), "--reserve");
  if (spec.domain_size) diag.usage("--domain-size: needs --gpu or --system");
  if (spec.scale_out_bw) diag.usage("--scale-out-bw: needs --gpu or --system");
}

// Inputs that are allowed but probably not meant.
void add_warnings(const ScenarioSpec& spec, Resolved& r) {
  const Scenario& sc = r.scenario;
  const Workload& w = sc.workload;
  const std::int64_t trained = sc.model.max_seq_len;
  if (spec.context && trained > 0 && w.context > trained) {
    r.warnings.push_back("--context " + std::to_string(w.context) + " exceeds the model's trained context of " +
                         std::to_string(trained) + " tokens");
  }
  if (spec.prompt && trained > 0 && w.prompt > trained) {
    r.warnings.push_back("--prompt " + std::to_string(w.prompt) + " exceeds the model's trained context of " +
                         std::to_string(trained) + " tokens");
  }
  if (spec.seq && trained > 0 && *spec.seq > trained) {
    r.warnings.push_back("--seq " + std::to_string(*spec.seq) + " exceeds the model's trained context of " +
                         std::to_string(trained) + " tokens");
  }
  if (sc.speculation && !sc.speculation->self_draft && sc.speculation->draft.vocab_size > 0 &&
      sc.speculation->draft.vocab_size != sc.model.vocab_size) {
    r.warnings.push_back("--draft " + sc.speculation->draft.name + " has a vocabulary of " +
                         std::to_string(sc.speculation->draft.vocab_size) + " rows, the target " +
                         std::to_string(sc.model.vocab_size) + ": speculative decoding needs one tokenizer");
  }
  const auto& published = sc.provenance.published_params;
  if (published && !sc.provenance.modified && *published != sc.counts.total) {
    r.warnings.push_back("computed " + std::to_string(sc.counts.total) + " parameters, but the preset publishes " +
                         std::to_string(*published));
  }
}

// How several devices of an inference command are used: a context-parallel group's prompt (its
// prefill rows still pool the group), else one ideal device, unless a layout places them.
void pooling_note(const Deployment& dep, std::vector<std::string>& notes) {
  if (dep.context > 1) {
    notes.push_back("the prompt runs on one context-parallel group of " + std::to_string(dep.context) +
                    " devices (the group's rows and the verdict); the prefill rows above them pool the group into "
                    "one ideal device whose communication is free");
  } else if (!dep.explicit_layout) {
    notes.push_back(std::to_string(dep.devices) +
                    " devices act as one ideal device: capacity, bandwidth and peak add up and communication is "
                    "free, so times are lower bounds");
  }
}

// Facts about the run that the results depend on.
void add_notes(const ScenarioSpec& spec, Resolved& r, bool training) {
  const Scenario& sc = r.scenario;
  if (training && !sc.architecture) {  // N14: a verdict that leaves a term out says so
    r.notes.emplace_back(
        "activations are unknown for a model known only by its parameter count (activation_bytes n/a): the total, "
        "the fit, the headroom and the smallest fitting layout count model states, the optimizer step and the "
        "reserve only, a lower bound on the memory a step needs");
  }
  if (r.context_defaulted && sc.model.max_seq_len == 0 && sc.architecture) {
    r.notes.emplace_back("the config does not state a trained context; the context defaults to 4096 tokens");
  }
  if (sc.accelerator) {
    const HardwareConfig& h = sc.accelerator->hw;
    if (sc.deployment.devices > 1 && !training) pooling_note(sc.deployment, r.notes);
    if (!device_peak(sc)) {
      std::vector<std::string> have;
      for (DType t : kAllDTypes) {
        if (h.peak_for(t)) have.emplace_back(dtype_name(t));
      }
      r.notes.push_back(h.name + " has no published dense " + std::string(dtype_name(sc.workload.compute_dtype)) +
                        " peak, so compute-side results are n/a; it has " +
                        (have.empty() ? std::string("none") : joined(have, ", ")) +
                        " (--compute-dtype or --gpu-peak set one)");
    }
    if (spec.reserve && spec.reserve->fraction) {
      r.notes.push_back("the reserve is " + std::to_string(std::lround(*spec.reserve->fraction * 100)) +
                        " % of each device's capacity");
    }
  }
  // Notes about tensors a checkpoint file stores: useful for a config the user brought, noise
  // on every built-in preset.
  if (r.model.origin != "builtin") {
    for (const std::string& n : r.model.checkpoint_notes) r.notes.push_back(n);
  }
  for (const std::string& n : r.model.resolution_notes) r.notes.push_back(n);
  if (!spec.model.empty() && spec.model != "-" && r.model.origin == "builtin" && spec.model != sc.model.name &&
      r.model.resolution_notes.empty()) {
    r.notes.push_back("MODEL " + spec.model + " resolved to " + sc.model.name);
  }
}

// --compute-budget: the budget sized under every fit, and the chosen fit's N as a whole count.
std::optional<std::int64_t> budget_params(const ScenarioSpec& spec, Scenario& sc, Diagnostics& diag) {
  if (spec.params_only) {
    diag.usage("--compute-budget sizes the model and --params gives one; give one of them");
    return std::nullopt;
  }
  if (spec.tokens) {
    diag.usage("--tokens: --compute-budget sets the tokens, D = C / 6N; give one of them");
    return std::nullopt;
  }
  const SizedBudget b = size_budget(*spec.compute_budget, spec.scaling_fit.value_or(ScalingFit::hoffmann22));
  const double n = b.sized().params;
  const double d = b.sized().tokens;
  // N must be a count the engine keeps exact (2^53), D = C / 6N a token count (2^62).
  if (!(n >= 1.0) || n > 0x1p53 || !(d >= 1.0) || d > 0x1p62) {
    std::array<char, 32> buf{};
    char* const end =
        std::to_chars(buf.data(), buf.data() + buf.size(), *spec.compute_budget, std::chars_format::scientific).ptr;
    diag.input("--compute-budget: " + std::string(buf.data(), end) +
               " FLOPs sizes no model to train (1 to 2^53 parameters on 1 to 2^62 tokens)");
    return std::nullopt;
  }
  sc.training.budget = b;
  return static_cast<std::int64_t>(n);
}

// The model, overrides applied and validated, and its exact counts; or a bare parameter count.
void resolve_model_part(const ScenarioSpec& spec, const PresetRegistry& reg, std::istream& in, Resolved& r,
                        Diagnostics& diag) {
  Scenario& sc = r.scenario;
  if (!spec.compute_budget && spec.scaling_fit) diag.usage("--scaling-fit: sizes --compute-budget; give it too");
  if (spec.params_only || spec.compute_budget) {
    sc.architecture = false;  // a count, or one refused: no check below reads layers
    const std::optional<std::int64_t> count = spec.compute_budget ? budget_params(spec, sc, diag) : spec.params_only;
    if (!count) return;
    if (std::optional<ModelPreset> model = model_from_count(spec, *count, diag)) {
      r.model = std::move(*model);
      sc.model = r.model.config;
      sc.counts = counts_of_total(*count);
      r.model_label = sc.model.name;
      r.notes.emplace_back(
          "a model known only by its parameter count: every FLOP basis is 2N, and results that need the "
          "architecture (attention, KV cache, layers) are left out");
    }
  } else if (std::optional<ModelPreset> model = resolve_model(spec, reg, in, diag)) {
    r.model = std::move(*model);
    if (r.model.generic && spec.strict) {
      diag.input("--strict: model_type " + quote(r.model.config.family) +
                 " has no family in roofline, and --strict refuses the generic decoder reading; supported "
                 "model_type values: " +
                 supported_model_types());
    }
    sc.model = r.model.config;
    diag.capture("", [&] { sc.counts = count_params(sc.model); });
    sc.provenance.published_params = r.model.published_params;
    sc.provenance.stored = r.model.stored;
    sc.provenance.modified = any_override(spec.overrides) && r.model.input_format != InputFormat::flags;
    r.model_label = sc.model.name + (sc.provenance.modified ? " modified: " + joined(spec.overrides.given, " ") : "");
    if (r.model.generic) r.model_label += " (generic reading of " + sc.model.family + ")";
  }
  resolve_speculation(spec, reg, in, r, diag);
}

// The inputs a sweep varies: the workload, the deployment and the training inputs, with their
// defaults, each rebuilt from the spec so nothing of a previous point remains.
void resolve_point_inputs(const ScenarioSpec& spec, Resolved& r, bool training, Diagnostics& diag) {
  Scenario& sc = r.scenario;
  sc.workload = resolve_workload(spec, sc.model, sc.counts);
  if (spec.kv_format && spec.kv_dtype) {
    diag.usage("--kv-format: contradicts --kv-dtype; give the cache's format once");
  }
  if (spec.weight_layout && (spec.dtype || spec.weight_format)) {
    diag.usage(std::string("--weight-format: contradicts ") + (spec.dtype ? "--dtype" : "--weight-bits") +
               "; give the weights' format once");
  }
  r.context_defaulted = !spec.context;
  sc.deployment = Deployment{};
  sc.deployment.devices = spec.devices.value_or(sc.deployment.devices);
  const std::optional<SizedBudget> budget = sc.training.budget;  // the model part's: it sized the model
  sc.training = TrainingInputs{};
  sc.training.budget = budget;
  sc.training.measured_tokens_per_s = spec.measured_tokens_per_s;
  if (training) {
    resolve_training(spec, sc, diag);
  } else if (spec.cp) {
    resolve_context_group(spec, sc, diag);
  } else if (spec.tp || spec.pp || spec.dp || spec.ep) {
    // Serving on a real layout: a replica of t x p devices, d replicas.
    resolve_layout(spec, sc, diag, false);
    check_serving_experts(sc, diag);
    sc.deployment.explicit_layout = true;
  }
  sc.deployment.link_efficiency = spec.link_efficiency.value_or(Deployment{}.link_efficiency);
  sc.deployment.micro_batches = spec.micro_batches.value_or(Deployment{}.micro_batches);
  if (spec.micro_batches && *spec.micro_batches > 1 && sc.deployment.pipeline == 1) {
    diag.usage("--micro-batches: batches in flight need a pipeline, --pp 2 or more");
  }
  sc.serving = {.concurrency = spec.concurrency,
                .kv_block = spec.kv_block.value_or(ServingInputs{}.kv_block),
                .shared_prefix = spec.shared_prefix.value_or(ServingInputs{}.shared_prefix),
                .tpot_target_s = spec.tpot_target,
                .ttft_target_s = spec.ttft_target,
                .load = std::nullopt};
  resolve_load(spec, sc, diag);
  if (spec.shared_prefix && *spec.shared_prefix > sc.workload.prompt) {
    diag.input("--shared-prefix: " + str(*spec.shared_prefix) + " tokens is longer than the " +
               str(sc.workload.prompt) + "-token prompt");
  }
}

// The accelerator, or a check that nothing needed one.
void resolve_accelerator_part(const ScenarioSpec& spec, const PresetRegistry& reg, bool needs_gpu, Resolved& r,
                              Diagnostics& diag) {
  if (spec.gpu.empty() && spec.system.empty()) {
    check_needs_gpu(spec, needs_gpu, diag);
    return;
  }
  r.gpu_requested = spec.gpu.empty() ? spec.system : spec.gpu;
  r.scenario.accelerator = resolve_accelerator(spec, reg, diag, r);
}

// What depends on the point's inputs once they are valid: the peaks for its compute dtype, a
// reserve given as a share of capacity, the warnings and the notes of this run.
void apply_point_inputs(const ScenarioSpec& spec, Resolved& r, bool training) {
  Scenario& sc = r.scenario;
  if (sc.accelerator) {
    HardwareConfig& h = sc.accelerator->hw;
    if (!spec.gpu_peaks.empty()) {
      h.peak = r.peaks_before_point;
      // Each data type once: a second rate for one type silently replaced the first (N24). A rate
      // without a type is the compute type's, so "--gpu-peak 1PFLOP/s --gpu-peak bf16=2PFLOP/s" at
      // bf16 names bf16 twice too.
      std::vector<std::pair<DType, bool>> set;  // each type, and whether a rate without a type named it
      for (const PeakOverride& p : spec.gpu_peaks) {
        const DType t = p.dtype.value_or(sc.workload.compute_dtype);
        const auto twice = std::find_if(set.begin(), set.end(), [&](const auto& x) { return x.first == t; });
        if (twice != set.end()) {
          throw UsageError("--gpu-peak: " + std::string(dtype_name(t)) + " is given twice" +
                           (!p.dtype || twice->second ? " (a rate without a type is the compute type's)" : "") +
                           "; give each data type once");
        }
        set.emplace_back(t, !p.dtype);
        h.set_peak(t, p.rate);
      }
    }
    if (spec.reserve && spec.reserve->fraction) sc.workload.reserve = h.memory_capacity * *spec.reserve->fraction;
  }
  if (sc.serving.load) scheduler_defaults(spec, sc);
  // The collectives' latency: --link-latency per step with no fixed cost, else NCCL's protocol
  // costs (baseLat and hwLat by link) on the topology.
  Deployment& dep = sc.deployment;
  dep.link_latency = units::Seconds{};
  dep.link_latency_source = LinkLatencySource::nccl;
  if (spec.link_latency) {
    dep.link_latency = units::Seconds{*spec.link_latency};
    dep.link_latency_source = LinkLatencySource::flag;
  }
  r.notes.resize(r.fixed_notes);
  r.warnings.clear();
  add_warnings(spec, r);
  add_notes(spec, r, training);
}

}  // namespace

Resolved resolve(const ScenarioSpec& spec, const PresetRegistry& reg, std::istream& in, bool needs_gpu, bool training) {
  // The fixed part and the point's inputs, every problem collected in the order a reader checks
  // them (the model, the workload and training layout, the accelerator), then one throw.
  Diagnostics diag;
  Resolved r;
  resolve_model_part(spec, reg, in, r, diag);
  resolve_point_inputs(spec, r, training, diag);
  resolve_accelerator_part(spec, reg, needs_gpu, r, diag);
  diag.check();
  r.fixed_notes = r.notes.size();
  apply_point_inputs(spec, r, training);
  return r;
}

Resolved resolve_fixed(const ScenarioSpec& spec, const PresetRegistry& reg, std::istream& in, bool needs_gpu) {
  Diagnostics diag;
  Resolved r;
  resolve_model_part(spec, reg, in, r, diag);
  resolve_accelerator_part(spec, reg, needs_gpu, r, diag);
  diag.check();
  r.fixed_notes = r.notes.size();
  return r;
}

void resolve_point(const ScenarioSpec& spec, Resolved& r, bool training) {
  Diagnostics diag;
  resolve_point_inputs(spec, r, training, diag);
  diag.check();
  apply_point_inputs(spec, r, training);
}

Resolved resolve_on_gpu(const Resolved& base, const ScenarioSpec& spec, const PresetRegistry& reg) {
  Diagnostics diag;
  Resolved r = base;
  r.notes.resize(r.fixed_notes);
  r.gpu_requested = spec.gpu;
  r.scenario.accelerator = resolve_accelerator(spec, reg, diag, r);
  diag.check();
  apply_point_inputs(spec, r, false);
  return r;
}

}  // namespace roofline::io
