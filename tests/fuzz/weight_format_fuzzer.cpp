// Weight and KV formats (issue 23): --weight-format's one format, `published` or class=format
// list, and --kv-format's named formats or bits. The first byte picks the flag (bit 0) and the
// model (bits 1-2: llama3-8b, gpt-oss-20b with its published MXFP4 experts, deepseek-v2-lite with
// shared experts and MLA, jamba-v0.1 with Mamba state), bits 4-7 whether a refused value goes to the
// CLI too (when they are clear); the rest is the value. The parser runs in
// process, then `memory MODEL --gpu h100-sxm --FLAG VALUE --format json` through run_cli. Checks,
// beyond the CLI contract: the parser and the CLI accept the same values; what the parser read is
// what the answer shows: each class the list names has its format, `rest` every class the list
// does not name, one format every class; the mean bits per weight lies within the bits of the
// formats shown and the weight bytes are positive; a KV format's bits per element lie within its
// value bits and value plus scale bits (a number of bits: exactly that number).
#include "io/scenario_spec.hpp"

#include "roofline/errors.hpp"
#include "roofline/weight_format.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fuzz_common.hpp"

namespace {

using roofline::fuzz::finding;

std::optional<double> bits_of(const std::string& name) {
  if (const auto f = roofline::named_weight_format(name)) return f->bits;
  if (const auto t = roofline::dtype_from_name(name)) return roofline::dtype_bits(*t);
  return std::nullopt;
}

void check_weights(const roofline::io::WeightFormatSpec& spec, const nlohmann::json& w, std::string_view input) {
  const nlohmann::json& shown = w.at("weights");
  double lo = 1e9;
  double hi = 0.0;
  for (roofline::WeightClass c : roofline::kAllWeightClasses) {
    const std::string cls(roofline::weight_class_name(c));
    if (!shown.contains(cls) || !shown[cls].is_string()) finding("a weight class is not shown", cls);
    const std::string name = shown[cls].get<std::string>();
    const std::optional<double> b = bits_of(name);
    if (!b) finding("a class shows no known format", cls + ": " + name);
    lo = std::min(lo, *b);
    hi = std::max(hi, *b);
    std::optional<std::string_view> want;
    if (spec.all) want = spec.all->name;
    const auto named =
        std::find_if(spec.classes.begin(), spec.classes.end(), [&](const auto& p) { return p.first == c; });
    if (named != spec.classes.end()) {
      want = named->second.name;
    } else if (spec.rest) {
      want = spec.rest->name;
    }
    if (want && *want != name) finding("a class's format is not the one given", cls + ": " + name);
  }
  const double mean = w.at("weight_bits").get<double>();
  if (!(mean >= lo - 1e-9 && mean <= hi + 1e-9)) finding("the mean bits per weight lie outside the formats'", input);
}

void check_kv(const roofline::KvFormat& f, const nlohmann::json& w, std::string_view input) {
  const double bits = w.at("kv_bits").get<double>();
  if (f.name.empty()) {
    if (bits != f.value_bits) finding("a KV cache of plain bits shows other bits", input);
  } else if (!(bits >= f.value_bits && bits <= f.value_bits + f.scale_bits)) {
    finding("a KV format's bits per element lie outside value + scale bits", input);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  namespace io = roofline::io;
  const bool kv = (data[0] & 1U) != 0;
  constexpr std::array<const char*, 4> kModels = {"llama3-8b", "gpt-oss-20b", "deepseek-v2-lite", "jamba-v0.1"};
  const char* model = kModels[(data[0] >> 1U) & 3U];
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);

  std::optional<io::WeightFormatSpec> spec;
  std::optional<roofline::KvFormat> kv_format;
  try {
    if (kv) {
      kv_format = io::parse_kv_format(text);
    } else {
      spec = io::parse_weight_format(text);
      const int kinds = static_cast<int>(spec->all.has_value()) + static_cast<int>(spec->published) +
                        static_cast<int>(!spec->classes.empty() || spec->rest.has_value());
      if (kinds != 1) finding("a weight format is not one of: a format, published, a list", text);
    }
  } catch (const roofline::Error& e) {
    roofline::fuzz::check_message(e.what(), true);
  }

  // The CLI runs on every value the parser accepts, and on a refused one when the first byte's
  // high four bits are clear (one refused input in 16 of random bytes), so that most executions
  // cost the parser alone and a campaign reaches its 10 M (docs/reliability.md).
  const bool parsed = spec.has_value() || kv_format.has_value();
  if (!parsed && (data[0] >> 4U) != 0) return 0;
  const std::vector<std::string> args = {
      "memory", model, "--gpu", "h100-sxm", kv ? "--kv-format" : "--weight-format", text, "--format", "json"};
  if (!roofline::fuzz::args_allowed(args)) return 0;
  const roofline::fuzz::CliRun r = roofline::fuzz::run_cli_sandboxed(args, "");
  roofline::fuzz::check_contract(r, text);
  if (!parsed) {
    if (r.code == 0) finding("the CLI answers a value the parser refuses", text);
    return 0;
  }
  if (r.code != 0) finding("the CLI refuses a value the parser accepts", r.err);
  const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  if (j.is_discarded()) finding("the answer is not JSON", r.out.substr(0, 200));
  const nlohmann::json& w = j.at("inputs").at("workload");
  if (!(j.at("results").at("capacity").at("weight_bytes").get<double>() > 0.0)) finding("no weight bytes", text);
  if (spec) check_weights(*spec, w, text);
  if (kv_format) check_kv(*kv_format, w, text);
  return 0;
}
