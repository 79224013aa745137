#include "io/scenario_spec.hpp"

#include "io/preset_registry.hpp"
#include "io/quantity_parse.hpp"
#include "io/text.hpp"

#include "roofline/analysis/layer.hpp"
#include "roofline/checked.hpp"
#include "roofline/errors.hpp"
#include "roofline/lora.hpp"
#include "roofline/training_memory.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <unordered_map>

namespace roofline::io {
namespace {

constexpr std::array kRecomputeModes = {std::pair{"none", Recompute::none},
                                        std::pair{"selective", Recompute::selective},
                                        std::pair{"full", Recompute::full}};
constexpr std::array kZeroStages = {std::pair{"0", ZeroStage::none}, std::pair{"1", ZeroStage::os},
                                    std::pair{"2", ZeroStage::os_g}, std::pair{"3", ZeroStage::os_g_p}};

// Names as a message lists them: "a, b, c".
std::string comma_list(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

// A default as the help shows it: a count, a number in its shortest form ("0.8", "1"), a recipe.
std::string count_text(std::int64_t v) { return std::to_string(v); }
std::string number_text(double v) {
  std::array<char, 32> buf{};
  const std::to_chars_result r = std::to_chars(buf.data(), buf.data() + buf.size(), v);  // shortest round trip
  return {buf.data(), r.ptr};
}
std::string_view recipe_name(OptimizerRecipe r) {
  for (const RecipeBytes& x : kOptimizerRecipes) {
    if (x.id == r) return x.name;
  }
  return {};
}
std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

template <typename E, std::size_t N>
E choice(const std::string& text, const EnumTable<E, N>& table) {
  if (auto v = find_enum(table, lower(text))) return *v;
  throw UsageError(not_one_of(text, table));
}

}  // namespace

DType parse_dtype(const std::string& text) {
  if (auto t = dtype_from_name(lower(text))) return *t;
  std::string allowed;
  for (DType t : kAllDTypes) allowed += (allowed.empty() ? "" : ", ") + std::string(dtype_name(t));
  throw UsageError(quote(text) + " is not a data type; allowed: " + allowed);
}

namespace {

// The choices a shell completes, from the tables the parsers read.
std::vector<std::string> dtype_names() {
  std::vector<std::string> names;
  names.reserve(kAllDTypes.size());
  for (DType t : kAllDTypes) names.emplace_back(dtype_name(t));
  return names;
}

template <typename Row, std::size_t N>
std::vector<std::string> names_of(const std::array<Row, N>& rows) {
  std::vector<std::string> names;
  names.reserve(N);
  for (const Row& r : rows) names.emplace_back(r.name);
  return names;
}

std::vector<std::string> lora_target_names() {
  std::vector<std::string> names;
  for (const LoraTargetName& t : kLoraMatrixTargets) {
    if (t.target != LoraTargets::experts) names.emplace_back(t.name);
  }
  for (const LoraTargetName& t : kLoraTargetSets) names.emplace_back(t.name);
  names.emplace_back(kLoraNoExperts);
  return names;
}

std::vector<std::string> weight_format_choices() {
  std::vector<std::string> names = dtype_names();
  for (const WeightFormat& f : kNamedWeightFormats) names.emplace_back(f.name);
  names.emplace_back("published");
  return names;
}

std::int64_t positive_count(const std::string& text) {
  const std::int64_t n = parse_count(text);
  if (n < 1) throw InputError(quote(text) + " must be at least 1");
  return n;
}

ArrivalsFlag parse_arrivals(const std::string& text) {
  const std::string t = lower(text);
  const std::string allowed = "; expected poisson, gamma:CV or closed:USERS[:THINK]";
  ArrivalsFlag a;
  if (t == "poisson") return a;
  if (t.starts_with("gamma:")) {
    a.process = ArrivalProcess::gamma;
    const double cv = parse_fraction(t.substr(6));
    if (!(cv > 0.0) || cv > 100.0) throw InputError(quote(text) + ": the coefficient of variation must be in (0, 100]");
    a.cv = cv;
    return a;
  }
  if (t.starts_with("closed:")) {
    a.process = ArrivalProcess::closed;
    const std::string rest = t.substr(7);
    const std::size_t colon = rest.find(':');
    a.users = positive_count(rest.substr(0, colon));
    if (a.users > 1'000'000) throw InputError(quote(text) + " is more than 1,000,000 users");
    if (colon != std::string::npos) {
      const std::string think = rest.substr(colon + 1);
      a.think_s = think == "0" ? 0.0 : parse_seconds(think);
      if (a.think_s > 1e6) throw InputError(quote(text) + ": THINK must be at most 1e6 s (11.6 days)");
    }
    return a;
  }
  throw InputError(quote(text) + " is not an arrival process" + allowed);
}

LengthSpec parse_length_dist(const std::string& text) {
  const std::string t = lower(text);
  LengthSpec l;
  if (t == "fixed") return l;
  if (t.starts_with("uniform:")) {
    const std::string rest = t.substr(8);
    const std::size_t colon = rest.find(':');
    if (colon == std::string::npos) throw InputError(quote(text) + ": expected uniform:LO:HI");
    l.dist = LengthDist::uniform;
    l.lo = positive_count(rest.substr(0, colon));
    l.hi = positive_count(rest.substr(colon + 1));
    if (l.hi < l.lo) throw InputError(quote(text) + ": HI is below LO");
    if (l.hi > (std::int64_t{1} << 40)) throw InputError(quote(text) + ": HI is more than 2^40 tokens");
    return l;
  }
  if (t.starts_with("lognormal:")) {
    l.dist = LengthDist::lognormal;
    l.sigma = parse_fraction(t.substr(10));
    if (!(l.sigma > 0.0) || l.sigma > 4.0) throw InputError(quote(text) + ": SIGMA must be in (0, 4]");
    return l;
  }
  throw InputError(quote(text) + " is not a length distribution; expected fixed, uniform:LO:HI or lognormal:SIGMA");
}

// --pp-layers: layers per stage, first to last, comma-separated; N*K is K stages of N layers.
// At most 2^20 stages, so that a short text cannot ask for unbounded memory.
std::vector<std::int64_t> stage_layer_list(const std::string& text) {
  constexpr std::int64_t kMaxStages = std::int64_t{1} << 20;
  std::vector<std::int64_t> out;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t comma = std::min(text.find(',', begin), text.size());
    const std::string item = text.substr(begin, comma - begin);
    const std::size_t star = item.find('*');
    const std::int64_t layers = positive_count(item.substr(0, star));
    const std::int64_t times = star == std::string::npos ? 1 : positive_count(item.substr(star + 1));
    if (times > kMaxStages - static_cast<std::int64_t>(out.size())) {
      throw InputError(quote(text) + " names more than 2^20 stages");
    }
    out.insert(out.end(), static_cast<std::size_t>(times), layers);
    begin = comma + 1;
  }
  return out;
}

double fraction_in_unit_interval(const std::string& text) {
  const double f = parse_fraction(text);
  if (!(f > 0.0 && f <= 1.0)) throw InputError(quote(text) + " must be in (0, 1], e.g. 0.8 or 80%");
  return f;
}

// A plain number: what --weight-bits and --price take (a percentage or a unit is a mistake there).
std::optional<double> plain_number(const std::string& text) {
  double v = 0.0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || ptr != end || !std::isfinite(v)) return std::nullopt;
  return v;
}

// --price: a number per device-hour, with or without its currency: "2.5", "2.5USD", "2.5 eur",
// "USD 2.5", "$2.5", "€2.5", "£2.5", "¥300". The code is upper-cased; roofline converts none.
struct Price {
  double per_device_hour = 0.0;
  std::string currency;
};

constexpr std::array kCurrencySymbols = {std::pair{"$", "USD"}, std::pair{"\u20ac", "EUR"}, std::pair{"\u00a3", "GBP"},
                                         std::pair{"\u00a5", "JPY"}};

// The currency of a price, taken off `number`: a symbol before it, or a three-letter code before or
// after it (a space between them or not); "" when it names none, nullopt when it is not a price.
std::optional<std::string> take_currency(std::string& number) {
  for (const auto& [symbol, code] : kCurrencySymbols) {
    if (number.starts_with(symbol)) {
      number.erase(0, std::string_view(symbol).size());
      return std::string(code);
    }
  }
  const auto is_letter = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; };
  const auto lead =
      static_cast<std::size_t>(std::find_if_not(number.begin(), number.end(), is_letter) - number.begin());
  const auto tail =
      static_cast<std::size_t>(std::find_if_not(number.rbegin(), number.rend(), is_letter) - number.rbegin());
  if (lead == 0 && tail == 0) return std::string();
  std::string code;
  if (lead == 3 && tail < number.size()) {
    code = number.substr(0, 3);
    number.erase(0, 3);
  } else if (tail == 3 && lead == 0) {
    code = number.substr(number.size() - 3);
    number.erase(number.size() - 3);
  } else {
    return std::nullopt;
  }
  const std::size_t first = number.find_first_not_of(' ');
  if (first == std::string::npos) return std::nullopt;
  number = number.substr(first, number.find_last_not_of(' ') - first + 1);
  for (char& c : code) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return code;
}

Price parse_price(const std::string& text) {
  const std::string usage =
      " is not a price; expected a number per device-hour, with or without its currency: "
      "\"2.5\", \"2.5USD\", \"$2.5\"";
  std::string number = text;
  const std::optional<std::string> currency = take_currency(number);
  const std::optional<double> n = currency ? plain_number(number) : std::nullopt;
  if (!n) throw InputError(quote(text) + usage);
  if (!(*n > 0.0)) throw InputError(quote(text) + " must be a positive price");
  return {*n, *currency};
}

// A format by name: a plain data type (bf16, fp8, ...) or a named format (mxfp4, q4_k, ...).
std::optional<WeightFormat> format_by_name(const std::string& name) {
  if (auto f = named_weight_format(name)) return f;
  if (auto t = dtype_from_name(name)) return plain_weight_format(*t);
  return std::nullopt;
}

std::string weight_format_names() {
  std::string allowed;
  for (DType t : kAllDTypes) allowed += (allowed.empty() ? "" : ", ") + std::string(dtype_name(t));
  for (const WeightFormat& f : kNamedWeightFormats) allowed += ", " + std::string(f.name);
  return allowed;
}

std::string weight_class_names() {
  std::string allowed;
  for (WeightClass c : kAllWeightClasses) allowed += std::string(weight_class_name(c)) + ", ";
  return allowed + "rest";
}

std::vector<std::string> kv_format_names() {
  std::vector<std::string> names;
  names.reserve(kKvFormats.size());
  for (const KvFormat& f : kKvFormats) names.emplace_back(f.name);
  return names;
}

}  // namespace

KvFormat parse_kv_format(const std::string& text) {
  if (auto f = named_kv_format(lower(text))) return *f;
  const std::optional<double> n = plain_number(text);
  if (!n) {
    std::string allowed;
    for (const KvFormat& f : kKvFormats) allowed += (allowed.empty() ? "" : ", ") + std::string(f.name);
    throw InputError(quote(text) + " is neither a number of bits (6) nor a KV format: " + allowed +
                     " (a data type is --kv-dtype's)");
  }
  if (!(*n >= 1.0 && *n <= 32.0)) throw InputError(quote(text) + " must be in [1, 32] bits or a named KV format");
  return {.name = "", .value_bits = *n, .scale_bits = 0.0, .group = 0.0, .storage = DType::bf16};
}

namespace {

WeightFormat weight_bits(const std::string& text) {
  if (auto f = named_weight_format(lower(text))) return *f;
  const std::optional<double> n = plain_number(text);
  if (!n) {
    std::string allowed;
    for (const WeightFormat& f : kNamedWeightFormats) allowed += (allowed.empty() ? "" : ", ") + std::string(f.name);
    throw InputError(quote(text) + " is neither a number of bits (4.125) nor a format: " + allowed);
  }
  const double bits = *n;
  if (!(bits > 0.0 && bits <= 64.0)) throw InputError(quote(text) + " must be in (0, 64] bits or a named format");
  WeightFormat f;
  f.name = "";  // named after --dtype by resolve()
  f.bits = bits;
  return f;
}

ReserveSpec reserve(const std::string& text) {
  ReserveSpec r;
  if (!text.empty() && text.back() == '%') {
    const double f = parse_fraction(text);
    if (!(f >= 0.0 && f < 1.0)) throw InputError(quote(text) + " must be a fraction of capacity in [0, 100%)");
    r.fraction = f;
  } else {
    r.bytes = parse_bytes(text);
  }
  return r;
}

PeakOverride peak(const std::string& text) {
  PeakOverride p;
  const auto eq = text.find('=');
  if (eq != std::string::npos) p.dtype = parse_dtype(text.substr(0, eq));
  p.rate = parse_flop_rate(eq == std::string::npos ? text : text.substr(eq + 1));
  return p;
}

const std::vector<InputDef> kInputs = {
    // Model overrides.
    {"layers", nullptr, kModelOverrides, "N", "Decoder layers L",
     [](ScenarioSpec& s, const std::string& t) { s.overrides.layers = parse_count(t); }},
    {"hidden", nullptr, kModelOverrides, "N", "Hidden width d",
     [](ScenarioSpec& s, const std::string& t) { s.overrides.hidden = parse_count(t); }},
    {"heads", nullptr, kModelOverrides, "N", "Query heads h",
     [](ScenarioSpec& s, const std::string& t) { s.overrides.heads = parse_count(t); }},
    {"kv-heads", nullptr, kModelOverrides, "N", "KV heads h_kv (1 = MQA, h = MHA)",
     [](ScenarioSpec& s, const std::string& t) { s.overrides.kv_heads = parse_count(t); }},
    {"head-dim", nullptr, kModelOverrides, "N", "Head dimension d_h [default: d/h]",
     [](ScenarioSpec& s, const std::string& t) { s.overrides.head_dim = parse_count(t); }},
    {"ffn", nullptr, kModelOverrides, "N", "FFN intermediate width d_ff",
     [](ScenarioSpec& s, const std::string& t) { s.overrides.ffn = parse_count(t); }},
    {"vocab", nullptr, kModelOverrides, "N", "Vocabulary size V as stored",
     [](ScenarioSpec& s, const std::string& t) { s.overrides.vocab = parse_count(t); }},
    {"max-seq-len", nullptr, kModelOverrides, "N", "Trained context length",
     [](ScenarioSpec& s, const std::string& t) { s.overrides.max_seq_len = parse_count(t); }},
    {"mlp", nullptr, kModelOverrides, "KIND", "gated (3 matrices) or plain (2)",
     [](ScenarioSpec& s, const std::string& t) { s.overrides.mlp = choice(t, kMlpKindNames); }, false, Sweep::none,
     ValueHint::choice, [] { return canonical_names(kMlpKindNames); }},
    {"norm", nullptr, kModelOverrides, "KIND", "rmsnorm, layernorm, layernorm_nobias or nonparametric (none)",
     [](ScenarioSpec& s, const std::string& t) { s.overrides.norm = choice(t, kNormKindNames); }, false, Sweep::none,
     ValueHint::choice, [] { return canonical_names(kNormKindNames); }},
    {"tied", nullptr, kModelOverrides, "", "Tie the output head to the embedding",
     [](ScenarioSpec& s, const std::string&) {
       if (s.overrides.tied == false) throw UsageError("--tied and --untied exclude each other");
       s.overrides.tied = true;
     }},
    {"untied", nullptr, kModelOverrides, "", "Give the output head its own matrix",
     [](ScenarioSpec& s, const std::string&) {
       if (s.overrides.tied == true) throw UsageError("--tied and --untied exclude each other");
       s.overrides.tied = false;
     }},
    {"window", nullptr, kModelOverrides, "N", "Sliding-window size in tokens (0: none)",
     [](ScenarioSpec& s, const std::string& t) { s.overrides.window = parse_count(t); }},
    {"global-every", nullptr, kModelOverrides, "K", "With --window: every k-th layer is global",
     [](ScenarioSpec& s, const std::string& t) { s.overrides.global_every = parse_count(t); }},
    {"experts", nullptr, kModelOverrides, "N", "Routed experts per MoE layer",
     [](ScenarioSpec& s, const std::string& t) { s.overrides.experts = parse_count(t); }},
    {"top-k", nullptr, kModelOverrides, "K", "Routed experts per token",
     [](ScenarioSpec& s, const std::string& t) { s.overrides.top_k = parse_count(t); }},
    {"expert-ffn", nullptr, kModelOverrides, "N", "Intermediate width of one expert",
     [](ScenarioSpec& s, const std::string& t) { s.overrides.expert_ffn = parse_count(t); }},
    {"shared-experts", nullptr, kModelOverrides, "N", "Always-on experts",
     [](ScenarioSpec& s, const std::string& t) { s.overrides.shared_experts = parse_count(t); }},
    {"shared-ffn", nullptr, kModelOverrides, "N", "Intermediate width of one shared expert",
     [](ScenarioSpec& s, const std::string& t) { s.overrides.shared_ffn = parse_count(t); }},
    {"first-dense", nullptr, kModelOverrides, "N", "Leading dense layers before the MoE layers",
     [](ScenarioSpec& s, const std::string& t) { s.overrides.first_dense = parse_count(t); }},
    {"zero-expert-share", nullptr, kModelOverrides, "S",
     "Share of the top-k slots routed to zero-computation experts (LongCat-Flash), 0 to below 1 [default: the "
     "model's published average]",
     [](ScenarioSpec& s, const std::string& t) {
       const double f = parse_fraction(t);
       if (!(f >= 0.0 && f < 1.0)) throw InputError(quote(t) + " must be from 0 to below 1, e.g. 0.25 or 25%");
       s.overrides.zero_share = f;
     }},
    {"strict", nullptr, kStrict, "",
     "Refuse a config.json of a model_type roofline has no family for, instead of counting it by the generic "
     "decoder reading (labelled generic)",
     [](ScenarioSpec& s, const std::string&) { s.strict = true; }},
    {"params", nullptr, kParamsOnly, "N",
     "A model known only by its parameter count (70B), instead of MODEL: the rules that need N alone",
     [](ScenarioSpec& s, const std::string& t) { s.params_only = positive_count(t); }},
    // Accelerator.
    {"gpu", nullptr, kGpu, "GPU", "Accelerator preset, alias or file (see `roofline gpus`)",
     [](ScenarioSpec& s, const std::string& t) { s.gpu = t; }, false, Sweep::none, ValueHint::gpu},
    {"gpus", nullptr, kDevices, "N", "Devices, acting as one ideal device",
     [](ScenarioSpec& s, const std::string& t) { s.devices = positive_count(t); }, false, Sweep::counts,
     ValueHint::text, nullptr, [] { return count_text(Deployment{}.devices); }},
    {"gpu-memory", nullptr, kGpuMemory, "SIZE", "Capacity per device, e.g. 192GB or 80GiB",
     [](ScenarioSpec& s, const std::string& t) { s.gpu_memory = parse_bytes(t); }},
    {"gpu-bandwidth", nullptr, kGpu, "RATE", "Bandwidth per device, e.g. 3.35TB/s",
     [](ScenarioSpec& s, const std::string& t) { s.gpu_bandwidth = parse_bandwidth(t); }},
    {"gpu-peak", nullptr, kGpu, "[DTYPE=]RATE",
     "Dense peak per device: RATE for the compute dtype (989.4TFLOP/s) or DTYPE=RATE; repeatable",
     [](ScenarioSpec& s, const std::string& t) { s.gpu_peaks.push_back(peak(t)); }, true},
    // Workload.
    {"batch", "b", kBatch, "N", "Sequences per step",
     [](ScenarioSpec& s, const std::string& t) { s.batch = positive_count(t); }, false, Sweep::counts, ValueHint::text,
     nullptr, [] { return count_text(Workload{}.batch); }},
    {"context", "c", kContext, "N",
     "Tokens in the KV cache (8192, 8k = 8000, 8Ki = 8192) [default: the model's context]",
     [](ScenarioSpec& s, const std::string& t) { s.context = parse_count(t); }, false, Sweep::counts},
    {"prompt", "p", kPrompt, "N", "Prefill tokens per sequence",
     [](ScenarioSpec& s, const std::string& t) { s.prompt = positive_count(t); }, false, Sweep::counts, ValueHint::text,
     nullptr, [] { return count_text(Workload{}.prompt) + ", or the model's context if shorter"; }},
    {"output", nullptr, kOutput, "N", "Generated tokens per request",
     [](ScenarioSpec& s, const std::string& t) {
       // No output token is no decode: a steady state or a TPOT of nothing (a prompt alone is prefill's).
       s.output = parse_count(t);
       if (*s.output == 0)
         throw InputError(quote(t) + " generates no token; give at least 1 (`roofline prefill` sizes a prompt alone)");
     },
     false, Sweep::counts, ValueHint::text, nullptr, [] { return count_text(Workload{}.output); }},
    {"dtype", nullptr, kWeights, "DTYPE", "Weight data type",
     [](ScenarioSpec& s, const std::string& t) { s.dtype = parse_dtype(t); }, false, Sweep::names, ValueHint::choice,
     dtype_names, [] { return std::string(dtype_name(Workload{}.weight_dtype)); }},
    {"weight-bits", nullptr, kWeights, "BITS|FORMAT",
     "Bits per weight, scales included: a number (4.125) or a format: {choices}",
     [](ScenarioSpec& s, const std::string& t) { s.weight_format = weight_bits(t); }, false, Sweep::none,
     ValueHint::choice, [] { return names_of(kNamedWeightFormats); }},
    {"weight-format", nullptr, kWeights, "FORMAT|CLASS=FORMAT,...",
     "Weight format for every class, or per class (experts=mxfp4,attention=bf16,rest=fp8); published: "
     "the checkpoint's own [default: published where the model declares one, else bf16]",
     [](ScenarioSpec& s, const std::string& t) { s.weight_layout = parse_weight_format(t); }, false, Sweep::none,
     ValueHint::text, weight_format_choices},
    {"kv-dtype", nullptr, kKvDtype, "DTYPE", "KV-cache data type",
     [](ScenarioSpec& s, const std::string& t) { s.kv_dtype = parse_dtype(t); }, false, Sweep::names, ValueHint::choice,
     dtype_names, [] { return std::string(dtype_name(Workload{}.kv_dtype)); }},
    {"kv-format", nullptr, kKvDtype, "FORMAT|BITS",
     "KV-cache format with its scales: {choices}, or bits per element (6) [default: the KV dtype]",
     [](ScenarioSpec& s, const std::string& t) { s.kv_format = parse_kv_format(t); }, false, Sweep::none,
     ValueHint::choice, kv_format_names},
    {"compute-dtype", nullptr, kComputeDtype, "DTYPE",
     "Which dense peak applies [default: the weight type; 4-bit and group-quantized weights compute in bf16]",
     [](ScenarioSpec& s, const std::string& t) { s.compute_dtype = parse_dtype(t); }, false, Sweep::none,
     ValueHint::choice, dtype_names},
    {"reserve", nullptr, kReserve, "SIZE|PCT", "Runtime reserve per device: a size (2GiB) or a share of capacity (10%)",
     [](ScenarioSpec& s, const std::string& t) { s.reserve = reserve(t); }, false, Sweep::none, ValueHint::text,
     nullptr, [] { return number_text(Workload{}.reserve.base()); }},
    {"bw-efficiency", nullptr, kBwEfficiency, "FRACTION", "Achieved / peak bandwidth, 0.8 or 80%",
     [](ScenarioSpec& s, const std::string& t) { s.bw_efficiency = fraction_in_unit_interval(t); }, false, Sweep::none,
     ValueHint::text, nullptr, [] { return number_text(Workload{}.bw_efficiency); }},
    {"mfu", nullptr, kMfu, "FRACTION", "Achieved / peak FLOP/s, 0.4 or 40%",
     [](ScenarioSpec& s, const std::string& t) { s.mfu = fraction_in_unit_interval(t); }, false, Sweep::none,
     ValueHint::text, nullptr, [] { return number_text(Workload{}.mfu); }},
    {"measured-tokens-per-s", nullptr, kTraining, "RATE",
     "Measured training tokens/s of the whole job (4M, 238.3k), for MFU and HFU",
     [](ScenarioSpec& s, const std::string& t) { s.measured_tokens_per_s = parse_rate_count(t); }},
    {"measured-step-time", nullptr, kTraining, "SECONDS",
     "Measured time of one training step (1.2s, 850ms), for the time to train, MFU and HFU",
     [](ScenarioSpec& s, const std::string& t) { s.measured_step_time = parse_seconds(t); }},
    {"concurrency", nullptr, kServing, "N",
     "Sequences in flight at steady state under continuous batching [default: the most the KV budget and the "
     "targets allow]",
     [](ScenarioSpec& s, const std::string& t) { s.concurrency = positive_count(t); }, false, Sweep::counts},
    {"kv-block", nullptr, kServing, "TOKENS", "Tokens per paged KV block; 1 for an unpaged cache",
     [](ScenarioSpec& s, const std::string& t) { s.kv_block = positive_count(t); }, false, Sweep::none, ValueHint::text,
     nullptr, [] { return count_text(ServingInputs{}.kv_block); }},
    {"shared-prefix", nullptr, kServing, "TOKENS",
     "Prompt tokens every request shares (a system prompt), cached once and not prefilled again",
     [](ScenarioSpec& s, const std::string& t) { s.shared_prefix = parse_count(t); }, false, Sweep::none,
     ValueHint::text, nullptr, [] { return count_text(ServingInputs{}.shared_prefix); }},
    {"tpot", nullptr, kTargets, "SECONDS", "Target time per output token (50ms): the concurrency that meets it",
     [](ScenarioSpec& s, const std::string& t) { s.tpot_target = parse_seconds(t); }},
    {"ttft", nullptr, kTargets, "SECONDS", "Target time to first token (500ms), against the TTFT floor",
     [](ScenarioSpec& s, const std::string& t) { s.ttft_target = parse_seconds(t); }},
    // serve --rate: a server simulated under load.
    {"rate", nullptr, kLoad, "RATE|all",
     "Requests a second arriving at a simulated continuous-batching server (all: every request at once); "
     "latency percentiles, throughput, goodput and queues",
     [](ScenarioSpec& s, const std::string& t) {
       if (lower(t) == "all") {
         s.rate = HUGE_VAL;
         return;
       }
       const double r = parse_rate_count(t);
       if (!(r > 0.0)) throw InputError(quote(t) + " must be a positive rate of requests a second, or all");
       s.rate = r;
     },
     false, Sweep::numbers},
    {"arrivals", nullptr, kLoad, "PROCESS",
     "How requests arrive: poisson, gamma:CV (burstier for CV > 1), or closed:USERS[:THINK] (each user sends its "
     "next request a mean THINK after its last one ends)",
     [](ScenarioSpec& s, const std::string& t) { s.arrivals = parse_arrivals(t); }, false, Sweep::none, ValueHint::text,
     nullptr, [] { return std::string("poisson"); }},
    {"trace", nullptr, kLoad, "FILE",
     "JSONL requests to replay: one {\"arrival_s\", \"prompt\", \"output\"} object a line",
     [](ScenarioSpec& s, const std::string& t) {
       if (t.empty()) throw InputError("is empty; give a JSONL file");
       s.trace = t;
     },
     false, Sweep::none, ValueHint::text},
    {"prompt-dist", nullptr, kLoad, "DIST",
     "Prompt lengths: fixed (--prompt), uniform:LO:HI, or lognormal:SIGMA of mean --prompt",
     [](ScenarioSpec& s, const std::string& t) { s.prompt_dist = parse_length_dist(t); }, false, Sweep::none,
     ValueHint::text, nullptr, [] { return std::string("fixed"); }},
    {"output-dist", nullptr, kLoad, "DIST",
     "Output lengths: fixed (--output), uniform:LO:HI, or lognormal:SIGMA of mean --output",
     [](ScenarioSpec& s, const std::string& t) { s.output_dist = parse_length_dist(t); }, false, Sweep::none,
     ValueHint::text, nullptr, [] { return std::string("fixed"); }},
    {"requests", nullptr, kLoad, "N", "Requests simulated; the first and last 10 % are left out of the figures",
     [](ScenarioSpec& s, const std::string& t) {
       const std::int64_t n = positive_count(t);
       if (n > 10'000'000) throw InputError(quote(t) + " is more than 10,000,000 requests");
       s.requests = n;
     },
     false, Sweep::none, ValueHint::text, nullptr, [] { return count_text(LoadSpec{}.requests); }},
    {"seed", nullptr, kLoad, "N", "Seed of the arrivals and lengths: the same seed, the same run",
     [](ScenarioSpec& s, const std::string& t) { s.seed = static_cast<std::uint64_t>(parse_count(t)); }, false,
     Sweep::none, ValueHint::text, nullptr, [] { return std::string("0"); }},
    {"max-seqs", nullptr, kLoad, "N", "Sequences the server runs at once (vLLM's max_num_seqs)",
     [](ScenarioSpec& s, const std::string& t) { s.max_seqs = positive_count(t); }, false, Sweep::none, ValueHint::text,
     nullptr, [] { return count_text(LoadSpec{}.max_seqs); }},
    {"token-budget", nullptr, kLoad, "N",
     "Tokens one step computes at most, decodes first, then prefill chunks (vLLM's max_num_batched_tokens)",
     [](ScenarioSpec& s, const std::string& t) { s.token_budget = positive_count(t); }, false, Sweep::none,
     ValueHint::text, nullptr,
     [] { return std::string("vllm serve's: 8192 on 70 GiB or more but an A100, else 2048"); }},
    {"step-overhead", nullptr, kLoad, "SECONDS",
     "Fixed time added to every simulated step: scheduling, sampling, launches (0: none)",
     [](ScenarioSpec& s, const std::string& t) { s.step_overhead = t == "0" ? 0.0 : parse_seconds(t); }, false,
     Sweep::none, ValueHint::text, nullptr, [] { return std::string("0"); }},
    {"users", nullptr, kPlan, "N", "Concurrent users the fleet serves",
     [](ScenarioSpec& s, const std::string& t) { s.users = positive_count(t); }},
    {"tokens-per-s", nullptr, kPlan, "RATE", "Decode rate each user gets (30): a step of at most 1/RATE",
     [](ScenarioSpec& s, const std::string& t) {
       const double r = parse_rate_count(t);
       if (!(r > 0.0)) throw InputError(quote(t) + " must be a positive rate");
       s.tokens_per_s_per_user = r;
     }},
    {"draft", nullptr, kSpeculative, "MODEL|mtp",
     "Speculative decoding with this draft model (preset, alias or config), or mtp: the model's own "
     "multi-token-prediction modules",
     [](ScenarioSpec& s, const std::string& t) { s.draft = lower(t) == "mtp" ? std::string("mtp") : t; }, false,
     Sweep::none, ValueHint::model, [] { return std::vector<std::string>{"mtp"}; }},
    {"acceptance", nullptr, kSpeculative, "FRACTION", "Probability that the target accepts a drafted token, α",
     [](ScenarioSpec& s, const std::string& t) {
       const double a = fraction_in_unit_interval(t);
       if (!(a > 0.0)) throw InputError(quote(t) + " must be above 0");
       s.acceptance = a;
     },
     false, Sweep::none, ValueHint::text, nullptr, [] { return number_text(Speculation{}.acceptance) + ", assumed"; }},
    {"draft-len", nullptr, kSpeculative, "N", "Tokens drafted per target step, γ",
     [](ScenarioSpec& s, const std::string& t) { s.draft_len = positive_count(t); }, false, Sweep::none,
     ValueHint::text, nullptr, [] { return count_text(Speculation{}.draft_len) + "; mtp: the MTP depth"; }},
    {"require-fit", nullptr, kRequireFit, "",
     "Exit with status 3 when the command's memory does not fit on the device (for shell if/&&)",
     [](ScenarioSpec& s, const std::string&) { s.require_fit = true; }},
    // layer: which pass, and whether its operators are fused.
    {"phase", nullptr, kLayer, "PHASE",
     "The pass: prefill (--prompt tokens of each of --batch sequences) or decode (one token per sequence at "
     "--context)",
     [](ScenarioSpec& s, const std::string& t) { s.phase = choice(t, kPhaseNames); }, false, Sweep::none,
     ValueHint::choice, [] { return canonical_names(kPhaseNames); },
     [] { return std::string(name_of(LayerQuery{}.phase)); }},
    {"fused", nullptr, kLayer, "",
     "Rows with flash attention (no score matrix in memory) and the norms, RoPE, activation and residual adds "
     "fused into their matmuls [default: unfused rows; the totals show both]",
     [](ScenarioSpec& s, const std::string&) { s.fused = true; }},
    // train: the layout, the recipe and the run.
    {"tp", nullptr, kParallel, "N", "Tensor-parallel degree t; serving: a layout, not one ideal device",
     [](ScenarioSpec& s, const std::string& t) { s.tp = positive_count(t); }, false, Sweep::counts, ValueHint::text,
     nullptr, [] { return count_text(Deployment{}.tensor); }},
    {"pp", nullptr, kParallel, "N", "Pipeline-parallel stages p; serving: a layout, not one ideal device",
     [](ScenarioSpec& s, const std::string& t) { s.pp = positive_count(t); }, false, Sweep::counts, ValueHint::text,
     nullptr, [] { return count_text(Deployment{}.pipeline); }},
    {"cp", nullptr, kCp, "N",
     "Context-parallel degree c: each sequence (train) or prompt (prefill) split over c ranks (ring attention); "
     "train: G = t c p d",
     [](ScenarioSpec& s, const std::string& t) { s.cp = positive_count(t); }, false, Sweep::none, ValueHint::text,
     nullptr, [] { return count_text(Deployment{}.context); }},
    {"dp", nullptr, kParallel, "N", "Data-parallel degree d [default: --gpus / (t p c)]",
     [](ScenarioSpec& s, const std::string& t) { s.dp = positive_count(t); }, false, Sweep::counts},
    {"ep", nullptr, kParallel, "N", "Expert-parallel degree e for MoE experts; serving: a layout, not one ideal device",
     [](ScenarioSpec& s, const std::string& t) { s.ep = positive_count(t); }, false, Sweep::none, ValueHint::text,
     nullptr, [] { return count_text(Deployment{}.expert); }},
    {"link-efficiency", nullptr, kLink, "FRACTION", "Achieved / peak interconnect bandwidth in collectives, 0.8 or 80%",
     [](ScenarioSpec& s, const std::string& t) {
       const double e = fraction_in_unit_interval(t);
       if (!(e > 0.0)) throw InputError(quote(t) + " must be above 0");
       s.link_efficiency = e;
     },
     false, Sweep::none, ValueHint::text, nullptr, [] { return number_text(Deployment{}.link_efficiency); }},
    {"micro-batches", nullptr, kLink, "M",
     "Batches in flight through a serving pipeline (--pp), each holding its cache on every stage",
     [](ScenarioSpec& s, const std::string& t) { s.micro_batches = positive_count(t); }, false, Sweep::none,
     ValueHint::text, nullptr, [] { return count_text(Deployment{}.micro_batches); }},
    {"system", nullptr, kSystem, "SYSTEM",
     "System preset, alias or file: scale-up domains and the network between them (see `roofline systems`) "
     "[default: the accelerator's usual system]",
     [](ScenarioSpec& s, const std::string& t) {
       if (t.empty()) throw InputError("is empty; give a system preset (see `roofline systems --names`)");
       s.system = t;
     },
     false, Sweep::none, ValueHint::text},
    {"domain-size", nullptr, kSystem, "N",
     "Devices per scale-up domain (NVLink, Infinity Fabric, ICI slice) [default: the system's]",
     [](ScenarioSpec& s, const std::string& t) { s.domain_size = positive_count(t); }},
    {"scale-out-bw", nullptr, kSystem, "RATE",
     "Scale-out network bandwidth per device, one direction (50GB/s for a 400 Gb/s NIC) [default: the system's]",
     [](ScenarioSpec& s, const std::string& t) {
       const units::BytesPerSecond b = parse_bandwidth(t);
       if (!(b.base() > 0.0)) throw InputError(quote(t) + " must be a positive rate");
       s.scale_out_bw = b;
     }},
    {"link-latency", nullptr, kLink, "SECONDS",
     "Latency per step of a collective or a stage hand-off, with no fixed cost (5us; 0: bandwidth only) [default: "
     "NCCL's protocol costs]",
     [](ScenarioSpec& s, const std::string& t) { s.link_latency = t == "0" ? 0.0 : parse_seconds(t); }},
    {"sp", nullptr, kTrain, "", "Sequence parallelism with tensor parallelism",
     [](ScenarioSpec& s, const std::string&) { s.sequence_parallel = true; }},
    {"best-layout", nullptr, kTrain, "",
     "Search t x c x p x d x e, micro-batch, recomputation and ZeRO stage for the highest MFU ceiling that fits; "
     "flags given hold theirs",
     [](ScenarioSpec& s, const std::string&) { s.best_layout = true; }},
    {"compute-budget", nullptr, kTrain, "FLOPS",
     "A training budget C in FLOPs (5.76e23), instead of MODEL: the compute-optimal parameters and tokens of "
     "--scaling-fit, with the other fits beside them, and that run's time and cost",
     [](ScenarioSpec& s, const std::string& t) { s.compute_budget = parse_flop_count(t); }},
    {"scaling-fit", nullptr, kTrain, "FIT", "What sizes --compute-budget: {choices}",
     [](ScenarioSpec& s, const std::string& t) { s.scaling_fit = choice(t, kScalingFitNames); }, false, Sweep::none,
     ValueHint::choice, [] { return canonical_names(kScalingFitNames); },
     [] { return std::string(enum_name(ScalingFit::hoffmann22, kScalingFitNames)); }},
    {"zero", nullptr, kTrain, "STAGE", "ZeRO stage: 0, 1 (optimizer), 2 (+ gradients), 3 (+ weights)",
     [](ScenarioSpec& s, const std::string& t) {
       const std::optional<ZeroStage> z = find_enum(kZeroStages, t);
       if (!z) {
         throw InputError(quote(t) + " is not a ZeRO stage; allowed " + comma_list(canonical_names(kZeroStages)) +
                          " (--fsdp takes the FSDP names)");
       }
       s.zero = *z;
     },
     false, Sweep::none, ValueHint::choice, [] { return canonical_names(kZeroStages); },
     [] { return std::string(enum_name(TrainingInputs{}.zero, kZeroStages)); }},
    {"fsdp", nullptr, kTrain, "STRATEGY", "FSDP name for a ZeRO stage: {choices}",
     [](ScenarioSpec& s, const std::string& t) {
       const auto f = fsdp_strategy(lower(t));
       if (!f) throw UsageError(quote(t) + " is not one of: " + comma_list(names_of(kFsdpStrategies)));
       s.fsdp = std::string(f->name);  // its stage is resolve()'s: --zero beside it is refused there
     },
     false, Sweep::none, ValueHint::choice, [] { return names_of(kFsdpStrategies); }},
    {"shard-group", nullptr, kTrain, "N",
     "ZeRO shards within groups of N data ranks, replicated across groups [default: all d; 8 with --fsdp hybrid]",
     [](ScenarioSpec& s, const std::string& t) { s.shard_group = positive_count(t); }},
    {"optimizer", nullptr, kTrain, "RECIPE", "Optimizer and precision recipe",
     [](ScenarioSpec& s, const std::string& t) {
       const auto r = recipe_named(lower(t));
       if (!r) {
         std::string allowed;
         for (const RecipeBytes& x : kOptimizerRecipes) allowed += (allowed.empty() ? "" : ", ") + std::string(x.name);
         throw UsageError(quote(t) + " is not one of: " + allowed);
       }
       s.optimizer = *r;
     },
     false, Sweep::none, ValueHint::choice, [] { return names_of(kOptimizerRecipes); },
     [] { return std::string(recipe_name(TrainingInputs{}.recipe)); }},
    {"micro-batch", nullptr, kTrain, "N", "Sequences per micro-batch b",
     [](ScenarioSpec& s, const std::string& t) { s.micro_batch = positive_count(t); }, false, Sweep::counts,
     ValueHint::text, nullptr, [] { return count_text(TrainingInputs{}.micro_batch); }},
    {"seq", nullptr, kTrain, "N", "Training sequence length s [default: the model's context]",
     [](ScenarioSpec& s, const std::string& t) { s.seq = positive_count(t); }, false, Sweep::counts},
    {"grad-accum", nullptr, kTrain, "N", "Micro-batches per step and data-parallel rank m",
     [](ScenarioSpec& s, const std::string& t) { s.grad_accum = positive_count(t); }, false, Sweep::none,
     ValueHint::text, nullptr, [] { return count_text(TrainingInputs{}.grad_accum); }},
    {"global-batch", nullptr, kTrain, "N", "Sequences per step; sets m = global / (b d)",
     [](ScenarioSpec& s, const std::string& t) { s.global_batch = positive_count(t); }},
    {"recompute", nullptr, kTrain, "MODE", "Activation recomputation: {choices}",
     [](ScenarioSpec& s, const std::string& t) { s.recompute = choice(t, kRecomputeModes); }, false, Sweep::none,
     ValueHint::choice, [] { return canonical_names(kRecomputeModes); },
     [] { return std::string(enum_name(TrainingInputs{}.recompute, kRecomputeModes)); }},
    {"recompute-every", nullptr, kTrain, "K",
     "With --recompute full: checkpoint one layer in K, rebuilding K layers at a time",
     [](ScenarioSpec& s, const std::string& t) { s.recompute_every = positive_count(t); }, false, Sweep::none,
     ValueHint::text, nullptr, [] { return count_text(TrainingInputs{}.recompute_every); }},
    {"pp-chunks", nullptr, kTrain, "V", "Model chunks per pipeline device: 1 is 1F1B, more is the interleaved schedule",
     [](ScenarioSpec& s, const std::string& t) { s.pp_chunks = positive_count(t); }, false, Sweep::none,
     ValueHint::text, nullptr, [] { return count_text(TrainingInputs{}.pipeline_chunks); }},
    {"pp-layers", nullptr, kTrain, "LIST",
     "Layers on each pipeline stage, first to last: 7,8*14,7 [default: L/p each; when p does not divide L, "
     "the extra layers on the middle stages]",
     [](ScenarioSpec& s, const std::string& t) { s.pp_layers = stage_layer_list(t); }},
    {"model-flops", nullptr, kTrain, "CONVENTION", "Model FLOPs that MFU counts: 6n, palm (6N + attention) or megatron",
     [](ScenarioSpec& s, const std::string& t) { s.model_flops = choice(t, kModelFlopsNames); }, false, Sweep::none,
     ValueHint::choice, [] { return canonical_names(kModelFlopsNames); },
     [] { return std::string(name_of(TrainingInputs{}.model_flops)); }},
    {"hfu", nullptr, kTrain, "FRACTION",
     "Step time on the executed FLOPs (recomputation included) at this utilisation, instead of --mfu",
     [](ScenarioSpec& s, const std::string& t) { s.hfu = fraction_in_unit_interval(t); }},
    {"lora", nullptr, kTrain, "RANK",
     "Fine-tune with LoRA adapters of this rank, the base frozen [default targets: q,v, PEFT's]",
     [](ScenarioSpec& s, const std::string& t) { s.lora_rank = positive_count(t); }},
    {"lora-targets", nullptr, kTrain, "LIST",
     "Adapted matrices: q,k,v,o,gate,up,down, or qv, attention, mlp, all; no-experts keeps MoE experts frozen",
     [](ScenarioSpec& s, const std::string& t) {
       const auto targets = parse_lora_targets(lower(t));
       // no-experts takes experts out of a set, so alone it names no matrix (N19).
       if (!targets && lower(t).find_first_not_of("no-experts, ") == std::string::npos &&
           lower(t).find("no-experts") != std::string::npos) {
         throw UsageError(quote(t) + " adapts nothing: no-experts keeps the experts of a set frozen; give it with " +
                          "the set, e.g. all,no-experts or mlp,no-experts");
       }
       if (!targets) {
         throw UsageError(quote(t) +
                          " is not a list of q, k, v, o, gate, up, down, qv, attention, mlp, all, no-experts");
       }
       s.lora_targets = *targets;
     },
     false, Sweep::none, ValueHint::list, lora_target_names},
    {"qlora", nullptr, kTrain, "",
     "QLoRA: the frozen base's linear layers in 4-bit NF4 with double quantisation [default: rank 64, all targets]",
     [](ScenarioSpec& s, const std::string&) { s.qlora = true; }},
    {"no-flash-attention", nullptr, kTrain, "", "Store the attention score matrix (no FlashAttention)",
     [](ScenarioSpec& s, const std::string&) { s.no_flash_attention = true; }},
    {"dropout", nullptr, kTrain, "", "Train with dropout (its masks are kept); modern recipes train without",
     [](ScenarioSpec& s, const std::string&) { s.dropout = true; }},
    {"tokens", nullptr, kTokens, "N",
     "train: training tokens D (15T), for the time and cost; layer: tokens per sequence in the pass (prefill: the "
     "prompt; decode: 1)",
     [](ScenarioSpec& s, const std::string& t) { s.tokens = positive_count(t); }},
    {"price", nullptr, kPrice, "PRICE",
     "Price per device-hour, for the cost (train: to train; plan: per hour and per million tokens); with its "
     "currency (2.5USD, $2.5) each cost shows it",
     [](ScenarioSpec& s, const std::string& t) {
       const Price p = parse_price(t);
       s.price = p.per_device_hour;
       s.price_currency = p.currency;
     }},
    // Conventions.
    {"flops-basis", nullptr, kFlopsBasis, "BASIS", "{choices}",
     [](ScenarioSpec& s, const std::string& t) { s.basis = choice(t, kFlopBasisNames); }, false, Sweep::none,
     ValueHint::choice, [] { return canonical_names(kFlopBasisNames); },
     [] { return std::string(name_of(Workload{}.basis)); }},
    {"attention", nullptr, kAttentionMode, "MODE", "{choices}",
     [](ScenarioSpec& s, const std::string& t) { s.attention = choice(t, kAttentionModeNames); }, false, Sweep::none,
     ValueHint::choice, [] { return canonical_names(kAttentionModeNames); },
     [] { return std::string(name_of(Workload{}.attention)); }},
    {"lm-head", nullptr, kLmHead, "WHERE", "Prefill head positions: {choices}",
     [](ScenarioSpec& s, const std::string& t) { s.lm_head = choice(t, kLmHeadNames); }, false, Sweep::none,
     ValueHint::choice, [] { return canonical_names(kLmHeadNames); },
     [] { return std::string(name_of(Workload{}.lm_head)); }},
    {"decode-bytes", nullptr, kDecodeBytes, "MODE", "{choices}",
     [](ScenarioSpec& s, const std::string& t) { s.decode_bytes = choice(t, kDecodeBytesNames); }, false, Sweep::none,
     ValueHint::choice, [] { return canonical_names(kDecodeBytesNames); },
     [] { return std::string(name_of(Workload{}.decode_bytes)); }},
    {"moe-decode", nullptr, kDecodeBytes, "MODE", "{choices}",
     [](ScenarioSpec& s, const std::string& t) { s.moe_decode = choice(t, kMoeDecodeNames); }, false, Sweep::none,
     ValueHint::choice, [] { return canonical_names(kMoeDecodeNames); },
     [] { return std::string(name_of(Workload{}.moe_decode)); }},
};

std::string join_lines(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& m : v) s += (s.empty() ? "" : "\n") + m;
  return s;
}

}  // namespace

WeightFormatSpec parse_weight_format(const std::string& text) {
  WeightFormatSpec spec;
  const std::string value = lower(text);
  if (value.empty()) throw InputError("is empty; give a format (" + weight_format_names() + ") or class=format pairs");
  if (value == "published") {
    spec.published = true;
    return spec;
  }
  if (value.find('=') == std::string::npos) {
    spec.all = format_by_name(value);
    if (!spec.all) throw InputError(quote(text) + " is not a weight format; formats: " + weight_format_names());
    return spec;
  }
  std::size_t begin = 0;
  while (begin <= value.size()) {
    const std::size_t end = std::min(value.find(',', begin), value.size());
    const std::string item = value.substr(begin, end - begin);
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos) {
      throw InputError(quote(item) + " is not class=format; in a list every item names its class (" +
                       weight_class_names() + ")");
    }
    const std::string cls = item.substr(0, eq);
    const std::optional<WeightFormat> f = format_by_name(item.substr(eq + 1));
    if (!f) throw InputError(quote(item.substr(eq + 1)) + " is not a weight format; formats: " + weight_format_names());
    const std::optional<WeightClass> c = weight_class_from_name(cls);
    const bool repeated =
        (cls == "rest" && spec.rest) ||
        (c && std::any_of(spec.classes.begin(), spec.classes.end(), [&](const auto& p) { return p.first == *c; }));
    if (repeated) throw InputError(quote(cls) + " is given twice");
    if (cls == "rest") {
      spec.rest = f;
    } else if (c) {
      spec.classes.emplace_back(*c, *f);
    } else {
      throw InputError(quote(cls) + " is not a weight class; classes: " + weight_class_names());
    }
    begin = end + 1;
  }
  return spec;
}

void Diagnostics::check() const {
  if (messages_.empty()) return;
  if (usage_) throw UsageError(join_lines(messages_));
  throw InputError(join_lines(messages_));
}

const std::vector<InputDef>& input_defs() { return kInputs; }

namespace {

// A list or a range where the input takes one value (a flag that does not sweep, or a batch line,
// which never sweeps) is named as such, rather than as a number with a strange suffix. Inputs whose
// value is a list (--lora-targets, --weight-format) or a name (--gpu, --draft: a path may hold a
// comma) are exempt.
void check_one_value(const InputDef& def, const std::string& text) {
  if (def.hint == ValueHint::list || def.hint == ValueHint::gpu || def.hint == ValueHint::model) return;
  // --weight-format's class=format pairs and --pp-layers' stages are one value each (their parsers read the commas);
  // --trace and --system take a path, which may hold ".." or a comma.
  const std::string_view name(def.name);
  if (name == "weight-format" || name == "pp-layers" || name == "trace" || name == "system") return;
  const char* shape = text.find(',') != std::string::npos    ? "list"
                      : text.find("..") != std::string::npos ? "range"
                                                             : "";
  if (*shape == '\0') return;
  const std::string msg = quote(text) + " is a " + shape + "; give one value";
  // As a wrong name is: a usage error for a choice, an input error for a value.
  if (def.hint == ValueHint::choice) throw UsageError(msg);
  throw InputError(msg);
}

}  // namespace

void record_given(ScenarioSpec& spec, const InputDef& def, const std::string& text) {
  if (!def.repeatable) {
    for (GivenInput& g : spec.given) {
      if (g.def == &def) {
        g.text = text;
        return;
      }
    }
  }
  spec.given.push_back({&def, text});
}

void set_input(ScenarioSpec& spec, const InputDef& def, const std::string& text, Diagnostics& diag) {
  set_input(spec, def, text, std::string("--") + def.name, diag);
}

void set_input(ScenarioSpec& spec, const InputDef& def, const std::string& text, std::string_view where,
               Diagnostics& diag) {
  bool ok = false;
  diag.capture(where, [&] {
    if (!def.repeatable) check_one_value(def, text);
    def.set(spec, text);
    ok = true;
  });
  if (ok) record_given(spec, def, text);
  // An override on a preset makes a modified model, labelled with the flags that made it.
  if (ok && def.group == kModelOverrides) {
    spec.overrides.given.push_back(std::string("--") + def.name + (text.empty() ? "" : " " + text));
  }
}

namespace {

// One JSON value as the text a flag would carry: a string as is, a number in JSON's spelling,
// true for a switch; nullopt (and an error where it is wrong) for anything else.
std::optional<std::string> json_text(const nlohmann::json& v, const InputDef& def, const std::string& where,
                                     Diagnostics& diag) {
  const bool is_switch = *def.value_name == '\0';
  if (is_switch) {
    if (v.is_boolean()) return v.get<bool>() ? std::optional<std::string>("") : std::nullopt;
    diag.input(where + ": a switch; expected true or false, got " + std::string(v.type_name()));
    return std::nullopt;
  }
  if (v.is_string()) return v.get<std::string>();
  // A whole number as its digits, without the serializer; a fraction in JSON's own spelling.
  if (v.is_number_unsigned()) return std::to_string(v.get<std::uint64_t>());
  if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
  if (v.is_number()) return v.dump();
  diag.input(where + ": expected a number or a string, got " + std::string(v.type_name()) +
             (v.is_array() ? "; a batch line takes one value per input" : ""));
  return std::nullopt;
}

void json_model(const nlohmann::json& value, ScenarioSpec& spec, Diagnostics& diag) {
  if (value.is_string()) {
    spec.model = value.get<std::string>();
  } else if (value.is_object()) {
    spec.model_json_text = value.dump();
  } else {
    diag.input("model: expected a preset name, a path or a config object");
  }
}

// The input a JSON key names ("kv_dtype" or "kv-dtype"), or nullptr.
const InputDef* input_named(std::string_view name) {
  static const std::unordered_map<std::string_view, const InputDef*> by_name = [] {
    std::unordered_map<std::string_view, const InputDef*> m;
    for (const InputDef& d : kInputs) m.emplace(d.name, &d);
    return m;
  }();
  const auto found = by_name.find(name);
  return found == by_name.end() ? nullptr : found->second;
}

// The options of the whole run (app.cpp's global options), which a line cannot set.
bool is_global_option(const std::string& name) {
  constexpr std::array kGlobal = {"format", "units",     "color", "explain",   "brief",
                                  "quiet",  "no-header", "yes",   "preset-dir"};
  return std::find(kGlobal.begin(), kGlobal.end(), name) != kGlobal.end();
}

// "unknown option --batchsize; did you mean --batch?", as the CLI says it.
std::string unknown_input(const std::string& flag, std::uint64_t groups) {
  std::vector<std::string> flags;
  for (const InputDef& d : kInputs) {
    if ((d.group & groups) != 0U) flags.push_back(std::string("--") + d.name);
  }
  const std::string guess = did_you_mean(flag, flags);
  return "unknown option " + flag + (guess.empty() ? std::string() : "; did you mean " + guess + "?");
}

}  // namespace

const InputDef* input_def(std::string_view name) { return input_named(name); }

std::string input_help(const InputDef& d) {
  std::string help = d.help;
  // "{choices}": the names the parser takes, from its table, as "a, b or c".
  if (const std::size_t at = help.find("{choices}"); at != std::string::npos && d.choices != nullptr) {
    const std::vector<std::string> names = d.choices();
    std::string list;
    for (std::size_t i = 0; i < names.size(); ++i) {
      list += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    }
    help.replace(at, std::string_view("{choices}").size(), list);
  }
  if (d.shown_default != nullptr) help += " [default: " + d.shown_default() + "]";
  return help;
}

void fill_from_json(const nlohmann::json& object, std::uint64_t groups, std::string_view command, ScenarioSpec& spec,
                    Diagnostics& diag) {
  if (!object.is_object()) {
    diag.input("expected a JSON object of inputs");
    return;
  }
  // Messages name an input as its flag, so a line's error reads as the CLI's would. An input
  // spelled twice ("kv-dtype" and "kv_dtype") is given twice, as on the command line (N12).
  std::vector<std::pair<const InputDef*, std::string>> given;  // each input and the key that gave it
  for (const auto& [key, value] : object.items()) {
    if (key == "command") continue;
    if (key == "model") {
      json_model(value, spec, diag);
      continue;
    }
    std::string name = key;
    std::replace(name.begin(), name.end(), '_', '-');
    const std::string where = "--" + name;
    const InputDef* def = input_named(name);
    if (def == nullptr && is_global_option(name)) {
      diag.usage(where + ": a global option, not an input of a line (each answer is one JSON line)");
    } else if (def == nullptr) {
      diag.usage(unknown_input(where, groups));
    } else if ((def->group & groups) == 0U) {
      diag.usage(where + " does not apply to " + std::string(command));
    } else if (const auto twice =
                   std::find_if(given.begin(), given.end(), [&](const auto& g) { return g.first == def; });
               twice != given.end()) {
      diag.usage(where + " is given twice (" + quote(twice->second) + " and " + quote(key) + "); give it once");
    } else if (given.emplace_back(def, key); value.is_array() && def->repeatable) {
      for (const nlohmann::json& v : value) {
        if (const auto text = json_text(v, *def, where, diag)) set_input(spec, *def, *text, where, diag);
      }
    } else if (const auto text = json_text(value, *def, where, diag)) {
      set_input(spec, *def, *text, where, diag);
    }
  }
}

}  // namespace roofline::io
