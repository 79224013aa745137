#include "io/preset_json.hpp"

#include "io/hf_import.hpp"
#include "io/quantity_parse.hpp"
#include "io/text.hpp"

#include "roofline/errors.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>

namespace roofline::io {

using nlohmann::json;

std::string describe_json(const json& v) {
  // JSON escapes the control characters below 0x20 but not DEL or C1 controls: printable() does.
  const auto cut = [](std::string text) {
    if (text.size() > 60) text = text.substr(0, 57) + "...";
    return printable(text);
  };
  const auto dump = [](const json& x) { return x.dump(-1, ' ', false, json::error_handler_t::replace); };
  if (v.is_array() || v.is_object()) {
    // Only a flat container is serialized: dump() recurses once per level (R1).
    for (const json& x : v) {
      if (x.is_array() || x.is_object()) return v.is_array() ? "an array" : "an object";
    }
    // A flat container is dumped only as far as the message needs.
    std::string text = v.is_array() ? "[" : "{";
    for (auto it = v.begin(); it != v.end() && text.size() <= 60; ++it) {
      if (text.size() > 1) text += ",";
      if (v.is_object()) text += dump(json(it.key())) + ":";
      text += dump(*it);
    }
    return cut(text + (v.is_array() ? "]" : "}"));
  }
  return cut(dump(v));
}

ObjectReader::ObjectReader(const json& j, std::string where, std::string pointer)
    : j_(j), where_(std::move(where)), pointer_(std::move(pointer)) {
  if (!j_.is_object()) {
    throw InputError(where_ + ": " + (pointer_.empty() ? "/" : pointer_) + ": expected a JSON object");
  }
}

std::string ObjectReader::path(const char* key) const { return pointer_ + "/" + key; }

void ObjectReader::fail(const char* key, const std::string& what) const {
  throw InputError(where_ + ": " + path(key) + ": " + what);
}

void ObjectReader::unsupported(const char* key, const std::string& what) const {
  fail(key, what + "; roofline cannot represent this, so it refuses rather than guess");
}

const json* ObjectReader::find(const char* key) const {
  if (const auto it = j_.find(key); it != j_.end() && !it->is_null()) return &*it;
  if (defaults_ != nullptr) {
    if (const auto it = defaults_->find(key); it != defaults_->end() && !it->is_null()) return &*it;
  }
  return nullptr;
}

bool ObjectReader::has(const char* key) const {
  seen_.emplace_back(key);
  return find(key) != nullptr;
}

const json& ObjectReader::raw(const char* key) const {
  if (!has(key)) fail(key, "missing required field");
  return *find(key);
}

std::string ObjectReader::str(const char* key) const {
  const json& v = raw(key);
  if (!v.is_string()) fail(key, "expected a string, got " + describe_json(v));
  return v.get<std::string>();
}

std::optional<std::string> ObjectReader::opt_str(const char* key) const {
  if (!has(key)) return std::nullopt;
  return str(key);
}

std::string ObjectReader::str(const char* key, std::string fallback) const {
  return has(key) ? str(key) : std::move(fallback);
}

std::int64_t ObjectReader::to_integer(const char* key, const json& v) const {
  constexpr const char* kTooLarge = " is too large (at most 2^63 - 1)";
  if (v.is_number_unsigned()) {
    // nlohmann keeps 2^63..2^64-1 as unsigned; get<int64_t> would wrap them negative (R9).
    const std::uint64_t u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(INT64_MAX)) fail(key, describe_json(v) + kTooLarge);
    return static_cast<std::int64_t>(u);
  }
  if (v.is_number_integer()) {
    const std::int64_t x = v.get<std::int64_t>();
    if (x < 0) fail(key, "must not be negative, got " + describe_json(v));
    return x;
  }
  if (v.is_number_float()) {
    // Range first: casting an out-of-range double to an integer is undefined behaviour.
    const double d = v.get<double>();
    if (d == std::floor(d)) {
      if (d < 0.0) fail(key, "must not be negative, got " + describe_json(v));
      if (d >= 0x1p63) fail(key, describe_json(v) + kTooLarge);
      // From 2^53 a double skips integers: 9007199254740993.0 arrives as ...992.0, so a whole
      // float there cannot be trusted; integers are read exactly up to 2^63 - 1.
      if (d >= 0x1p53)
        fail(key, describe_json(v) + " is not exact as a decimal or exponent; write the integer's digits");
      return static_cast<std::int64_t>(d);
    }
  }
  fail(key, "expected an integer, got " + describe_json(v));
}

std::int64_t ObjectReader::integer(const char* key) const { return to_integer(key, raw(key)); }

std::optional<std::int64_t> ObjectReader::opt_integer(const char* key) const {
  if (!has(key)) return std::nullopt;
  return integer(key);
}

std::int64_t ObjectReader::integer(const char* key, std::int64_t fallback) const {
  return has(key) ? integer(key) : fallback;
}

std::int64_t ObjectReader::integer_any(std::initializer_list<const char*> keys) const {
  for (const char* k : keys) {
    if (has(k)) return integer(k);
  }
  fail(*keys.begin(), "missing required field");
}

std::int64_t ObjectReader::integer_any(std::initializer_list<const char*> keys, std::int64_t fallback) const {
  for (const char* k : keys) {
    if (has(k)) return integer(k);
  }
  return fallback;
}

std::optional<bool> ObjectReader::opt_bool(const char* key) const {
  if (!has(key)) return std::nullopt;
  const json& v = *find(key);
  if (!v.is_boolean()) fail(key, "expected true or false, got " + describe_json(v));
  return v.get<bool>();
}

bool ObjectReader::boolean(const char* key, bool fallback) const { return opt_bool(key).value_or(fallback); }

std::optional<double> ObjectReader::opt_number(const char* key) const {
  if (!has(key)) return std::nullopt;
  const json& v = *find(key);
  if (!v.is_number()) fail(key, "expected a number, got " + describe_json(v));
  return v.get<double>();
}

std::vector<std::string> ObjectReader::strings(const char* key) const {
  std::vector<std::string> out;
  if (!has(key)) return out;
  const json& a = *find(key);
  if (!a.is_array()) fail(key, "expected an array of strings");
  for (const json& s : a) {
    if (!s.is_string()) fail(key, "expected an array of strings");
    out.push_back(s.get<std::string>());
    if (out.back().empty()) fail(key, "must not contain an empty string");
  }
  return out;
}

void ObjectReader::finish() const {
  for (const auto& [key, value] : j_.items()) {
    if (std::find(seen_.begin(), seen_.end(), key) == seen_.end()) {
      throw InputError(where_ + ": " + pointer_ + "/" + escape(key) + ": unknown field");
    }
  }
}

ObjectReader ObjectReader::with_defaults(const nlohmann::json& defaults) const {
  ObjectReader r = *this;
  r.defaults_ = &defaults;
  return r;
}

std::vector<std::string> ObjectReader::unread() const {
  std::vector<std::string> out;
  for (const auto& [key, value] : j_.items()) {
    if (std::find(seen_.begin(), seen_.end(), key) == seen_.end()) out.push_back(escape(key));
  }
  return out;
}

namespace {

template <typename F>
auto with_context(ObjectReader& r, const char* key, const std::string& text, F parse) {
  try {
    return parse(text);
  } catch (const InputError& e) {
    r.fail(key, e.what());
  }
}

template <typename E, std::size_t N>
E parse_enum(ObjectReader& r, const char* key, const EnumTable<E, N>& table) {
  const std::string s = r.str(key);
  if (auto v = find_enum(table, s)) return *v;
  r.fail(key, not_one_of(s, table));
}

void set_int(ObjectReader& r, const char* key, std::int64_t& field) {
  if (auto v = r.opt_integer(key)) field = *v;
}
void set_bool(ObjectReader& r, const char* key, bool& field) {
  if (auto v = r.opt_bool(key)) field = *v;
}

// ---- Hybrid and state-space layers (issue 10) -------------------------------------------------
LayerMix parse_layer_mix(ObjectReader& r, const std::string& text) {
  LayerMix x{.attention = false, .state = StateMixer::none, .ffn = LayerFfn::none};
  if (text == "identity") return x;  // nothing but the residual stream (a pruned NAS layer)
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('+', start), text.size());
    const std::string part = text.substr(start, end - start);
    if (part == "attention") {
      x.attention = true;
    } else if (part == "mamba1") {
      x.state = StateMixer::mamba1;
    } else if (part == "mamba2") {
      x.state = StateMixer::mamba2;
    } else if (part == "gated_deltanet") {
      x.state = StateMixer::gated_deltanet;
    } else if (part == "short_conv") {
      x.state = StateMixer::short_conv;
    } else if (part == "lightning") {
      x.state = StateMixer::lightning;
    } else if (part == "mlp") {
      x.ffn = LayerFfn::dense;
    } else if (part.rfind("mlp:", 0) == 0 && part.size() > 4 && part.size() <= 12 &&
               part.find_first_not_of("0123456789", 4) == std::string::npos) {
      x.ffn = LayerFfn::dense;  // mlp:W, a layer's own FFN width (NAS)
      x.d_ff = std::stoll(part.substr(4));
    } else if (part == "moe") {
      x.ffn = LayerFfn::moe;
    } else {
      r.fail("layers", quote(text) +
                           ": each layer is parts joined by +: attention, mamba1, mamba2, "
                           "gated_deltanet, short_conv, lightning, mlp (or mlp:WIDTH), moe; or identity");
    }
    start = end + 1;
  }
  return x;
}

void hybrid_from_json(ObjectReader& r, std::string_view where, ModelConfig& m) {
  ObjectReader h(r.raw("hybrid"), std::string(where), "/architecture/hybrid");
  for (const std::string& l : h.strings("layers")) m.hybrid.layers.push_back(parse_layer_mix(h, l));
  set_bool(h, "attn_output_gate", m.hybrid.attn_output_gate);
  if (auto t = h.opt_str("state_dtype")) {
    m.hybrid.state_dtype = dtype_from_name(*t);
    if (!m.hybrid.state_dtype) h.fail("state_dtype", "unknown dtype " + quote(*t));
  }
  if (h.has("ssm")) {
    ObjectReader s(h.raw("ssm"), std::string(where), "/architecture/hybrid/ssm");
    SsmConfig& c = m.hybrid.ssm;
    set_int(s, "d_inner", c.d_inner);
    set_int(s, "d_state", c.d_state);
    set_int(s, "d_conv", c.d_conv);
    set_int(s, "n_groups", c.n_groups);
    set_int(s, "n_heads", c.n_heads);
    set_int(s, "head_dim", c.head_dim);
    set_int(s, "dt_rank", c.dt_rank);
    set_int(s, "chunk", c.chunk);
    set_bool(s, "conv_bias", c.conv_bias);
    set_bool(s, "proj_bias", c.proj_bias);
    if (auto v = s.opt_bool("out_proj_bias")) c.out_proj_bias = *v;
    set_bool(s, "gated_norm", c.gated_norm);
    set_bool(s, "dt_norms", c.dt_norms);
    s.finish();
  }
  if (h.has("deltanet")) {
    ObjectReader g(h.raw("deltanet"), std::string(where), "/architecture/hybrid/deltanet");
    DeltaNetConfig& c = m.hybrid.deltanet;
    set_int(g, "n_key_heads", c.n_key_heads);
    set_int(g, "n_value_heads", c.n_value_heads);
    set_int(g, "key_head_dim", c.key_head_dim);
    set_int(g, "value_head_dim", c.value_head_dim);
    set_int(g, "conv_kernel", c.conv_kernel);
    g.finish();
  }
  if (h.has("conv")) {
    ObjectReader s(h.raw("conv"), std::string(where), "/architecture/hybrid/conv");
    set_int(s, "l_cache", m.hybrid.conv.l_cache);
    set_bool(s, "bias", m.hybrid.conv.bias);
    s.finish();
  }
  h.finish();
}

json hybrid_to_json(const HybridConfig& h) {
  json layers = json::array();
  for (const LayerMix& x : h.layers) layers.push_back(layer_mix_name(x));
  const SsmConfig& s = h.ssm;
  const DeltaNetConfig& g = h.deltanet;
  json out = {{"layers", layers},
              {"attn_output_gate", h.attn_output_gate},
              {"ssm",
               {{"d_inner", s.d_inner},
                {"d_state", s.d_state},
                {"d_conv", s.d_conv},
                {"n_groups", s.n_groups},
                {"n_heads", s.n_heads},
                {"head_dim", s.head_dim},
                {"dt_rank", s.dt_rank},
                {"chunk", s.chunk},
                {"conv_bias", s.conv_bias},
                {"proj_bias", s.proj_bias},
                {"gated_norm", s.gated_norm},
                {"dt_norms", s.dt_norms}}},
              {"deltanet",
               {{"n_key_heads", g.n_key_heads},
                {"n_value_heads", g.n_value_heads},
                {"key_head_dim", g.key_head_dim},
                {"value_head_dim", g.value_head_dim},
                {"conv_kernel", g.conv_kernel}}},
              {"conv", {{"l_cache", h.conv.l_cache}, {"bias", h.conv.bias}}}};
  if (s.out_proj_bias) out["ssm"]["out_proj_bias"] = *s.out_proj_bias;
  if (h.state_dtype) out["state_dtype"] = std::string(dtype_name(*h.state_dtype));
  return out;
}
// ---- end hybrid --------------------------------------------------------------------------------

// A "pcie" host link, as GPU and system presets write it: generation 1-6, 1-16 lanes, peer_to_peer.
HardwareConfig read_pcie(const json& v, std::string_view where) {
  ObjectReader pc(v, std::string(where), "/pcie");
  HardwareConfig h;
  const std::int64_t g = pc.integer("generation");
  if (g < 1 || g > 6) pc.fail("generation", "must be 1 to 6");
  const std::int64_t lanes = pc.integer("lanes");
  if (lanes != 1 && lanes != 2 && lanes != 4 && lanes != 8 && lanes != 16) pc.fail("lanes", "must be 1, 2, 4, 8 or 16");
  h.pcie_generation = static_cast<int>(g);
  h.pcie_lanes = static_cast<int>(lanes);
  h.pcie_peer_to_peer = pc.opt_bool("peer_to_peer");
  pc.finish();
  return h;
}

}  // namespace

HardwareConfig hardware_from_json(const json& j, std::string_view where) {
  ObjectReader r(j, std::string(where), "");
  HardwareConfig h;
  h.name = r.str("name");
  h.display_name = r.opt_str("display_name").value_or(h.name);
  h.vendor = r.opt_str("vendor").value_or("");
  h.memory_capacity = with_context(r, "memory_capacity", r.str("memory_capacity"), parse_bytes);
  h.memory_bandwidth = with_context(r, "memory_bandwidth", r.str("memory_bandwidth"), parse_bandwidth);
  ObjectReader peaks(r.raw("peak"), std::string(where), "/peak");
  for (DType t : kAllDTypes) {
    const std::string key(dtype_name(t));
    if (auto text = peaks.opt_str(key.c_str())) {
      h.set_peak(t, with_context(peaks, key.c_str(), *text, parse_flop_rate));
    }
  }
  peaks.finish();
  if (r.has("interconnect")) {
    ObjectReader ic(r.raw("interconnect"), std::string(where), "/interconnect");
    h.interconnect_name = ic.str("name");
    h.interconnect_bandwidth =
        with_context(ic, "bandwidth_per_direction", ic.str("bandwidth_per_direction"), parse_bandwidth);
    h.interconnect_links = ic.opt_integer("links").value_or(0);
    if (auto lat = ic.opt_str("latency")) {
      h.interconnect_latency = units::Seconds{with_context(ic, "latency", *lat, [](const std::string& t) {
        // A preset names its unit: a bare "0.6" would be 0.6 s.
        if (t.empty() || std::isalpha(static_cast<unsigned char>(t.back())) == 0) {
          throw InputError(quote(t) + ": a duration needs its unit, such as \"0.6 us\"");
        }
        return parse_seconds(t);
      })};
    }
    ic.finish();
  }
  if (r.has("pcie")) {
    const HardwareConfig link = read_pcie(r.raw("pcie"), where);
    h.pcie_generation = link.pcie_generation;
    h.pcie_lanes = link.pcie_lanes;
    h.pcie_peer_to_peer = link.pcie_peer_to_peer;
  }
  h.system = r.opt_str("system").value_or("");
  if (auto p = r.opt_str("power")) h.power_watts = with_context(r, "power", *p, parse_watts);
  if (auto l2 = r.opt_str("l2_cache")) h.l2_cache = with_context(r, "l2_cache", *l2, parse_bytes);
  h.aliases = r.strings("aliases");
  h.source = r.str("source");
  if (h.source.empty()) r.fail("source", "must not be empty");
  h.notes = r.opt_str("notes").value_or("");
  r.finish();
  const auto problems = validate(h);
  if (!problems.empty()) throw InputError(std::string(where) + ": /" + problems.front());
  return h;
}

Link pcie_link(const HardwareConfig& h) {
  Link l;
  l.kind = LinkKind::pcie;
  // Without peer-to-peer a transfer is staged through host memory: written there by one card
  // and read back by the other, so each crossing costs two (derived).
  const bool p2p = h.pcie_peer_to_peer.value_or(false);
  l.bandwidth = pcie_bandwidth(h.pcie_generation, h.pcie_lanes) * (p2p ? 1.0 : 0.5);
  l.name = "PCIe " + std::to_string(h.pcie_generation) + ".0 x" + std::to_string(h.pcie_lanes) +
           (p2p ? " peer-to-peer" : " through host memory");
  return l;
}

namespace {

units::BytesPerSecond positive_bandwidth(ObjectReader& o, const char* key) {
  const units::BytesPerSecond b = with_context(o, key, o.str(key), parse_bandwidth);
  if (!(b.base() > 0.0)) o.fail(key, "must be above 0");
  return b;
}

void read_scale_up(const json& v, std::string_view where, Topology& t) {
  ObjectReader u(v, std::string(where), "/scale_up");
  t.inside.name = u.str("name");
  t.domain = u.integer("domain");
  if (t.domain < 1 || t.domain > 1'000'000) u.fail("domain", "must be 1 to 1,000,000");
  t.inside.bandwidth = positive_bandwidth(u, "bandwidth_per_direction");
  const std::string shape = u.str("topology", "switch");
  if (shape != "switch" && shape != "mesh" && shape != "torus") u.fail("topology", "must be switch, mesh or torus");
  t.inside.kind = LinkKind::scale_up;
  t.mesh = shape == "mesh";
  t.switch_reduction = u.boolean("in_switch_reduction", false);
  if (t.switch_reduction && shape != "switch") u.fail("in_switch_reduction", "needs a switch topology");
  u.finish();
}

// A torus' collectives run link by link: its inside bandwidth is one link's, its domain the chips.
void read_torus(const json& v, std::string_view where, bool scale_up, Topology& t) {
  ObjectReader o(v, std::string(where), "/torus");
  const json& dims = o.raw("dims");
  if (!dims.is_array() || dims.empty() || dims.size() > 4) o.fail("dims", "must be an array of 1 to 4 sizes");
  std::int64_t chips = 1;
  for (const json& d : dims) {
    if (!d.is_number_unsigned() || d.get<std::uint64_t>() < 1 || d.get<std::uint64_t>() > 1024) {
      o.fail("dims", "each size must be an integer from 1 to 1,024");
    }
    t.torus.push_back(d.get<std::int64_t>());
    chips *= d.get<std::int64_t>();
  }
  const units::BytesPerSecond link = positive_bandwidth(o, "link_bandwidth_per_direction");
  t.wraparound = o.boolean("wraparound", true);
  if (scale_up && t.domain != chips) o.fail("dims", "their product must equal scale_up's domain");
  o.finish();
  t.domain = chips;
  t.inside.kind = LinkKind::torus;
  t.inside.bandwidth = link;
  if (!scale_up) t.inside.name = "ICI torus " + std::to_string(t.torus.size()) + "D";
}

}  // namespace

SystemPreset system_from_json(const json& j, std::string_view where) {
  ObjectReader r(j, std::string(where), "");
  SystemPreset out;
  Topology& t = out.topology;
  t.source = TopologySource::preset;
  t.name = r.str("name");
  t.display_name = r.opt_str("display_name").value_or(t.name);
  out.accelerator = r.str("accelerator");
  out.default_for = r.strings("default_for");
  t.devices_per_node = r.integer("devices_per_node");
  if (t.devices_per_node < 1 || t.devices_per_node > 1'000'000) r.fail("devices_per_node", "must be 1 to 1,000,000");
  const bool up = r.has("scale_up");
  const bool torus = r.has("torus");
  const bool pcie = r.has("pcie");
  if (!up && !torus && !pcie) r.fail("scale_up", "a system needs a scale_up fabric, a pcie host link or a torus");
  if (up) read_scale_up(r.raw("scale_up"), where, t);
  if (pcie) {
    const HardwareConfig h = read_pcie(r.raw("pcie"), where);
    // Cards with no scale-up fabric talk over their host links, a node's devices a domain.
    if (!up && !torus) {
      t.inside = pcie_link(h);
      t.domain = t.devices_per_node;
    }
  }
  if (torus) read_torus(r.raw("torus"), where, up, t);
  if (r.has("scale_out")) {
    ObjectReader o(r.raw("scale_out"), std::string(where), "/scale_out");
    t.across.kind = LinkKind::scale_out;
    t.across.name = o.str("name");
    t.across.bandwidth = positive_bandwidth(o, "bandwidth_per_direction");
    t.has_across = true;
    o.finish();
  }
  out.aliases = r.strings("aliases");
  t.source_text = r.str("source");
  if (t.source_text.empty()) r.fail("source", "must not be empty");
  t.notes = r.opt_str("notes").value_or("");
  r.finish();
  return out;
}

bool is_hf_config(const json& j) { return j.is_object() && (j.contains("model_type") || j.contains("architectures")); }

// ---- multimodal wrappers: mllama's text-side extras and the vision tower ----
namespace {

void read_multimodal_architecture(ObjectReader& r, std::string_view where, ModelConfig& m) {
  set_int(r, "cross_attention_layers", m.cross_attention_layers);
  set_int(r, "extra_embedding_rows", m.extra_embedding_rows);
  if (!r.has("vision")) return;
  ObjectReader v(r.raw("vision"), std::string(where), "/architecture/vision");
  VisionConfig& x = m.vision;
  if (v.has("tower")) x.tower = parse_enum(v, "tower", kVisionTowerNames);
  if (v.has("projector")) x.projector = parse_enum(v, "projector", kVisionProjectorNames);
  set_int(v, "n_layers", x.n_layers);
  set_int(v, "d", x.d);
  set_int(v, "d_ff", x.d_ff);
  set_int(v, "patch", x.patch);
  set_int(v, "image_size", x.image_size);
  set_int(v, "channels", x.channels);
  set_int(v, "temporal_patch", x.temporal_patch);
  set_int(v, "merge", x.merge);
  set_int(v, "global_layers", x.global_layers);
  set_int(v, "max_tiles", x.max_tiles);
  set_int(v, "aspect_ratios", x.aspect_ratios);
  set_int(v, "adapter_in", x.adapter_in);
  set_int(v, "adapter_out", x.adapter_out);
  set_int(v, "output_dim", x.output_dim);
  set_int(v, "feature_layers", x.feature_layers);
  set_int(v, "out_dim", x.out_dim);
  set_int(v, "position_embeddings", x.position_embeddings);
  set_int(v, "deepstack_mergers", x.deepstack_mergers);
  set_int(v, "heads", x.heads);
  set_int(v, "head_dim", x.head_dim);
  set_bool(v, "standardize", x.standardize);
  set_bool(v, "projector_bias", x.projector_bias);
  v.finish();
}

void write_multimodal_architecture(const ModelConfig& m, json& a) {
  if (m.cross_attention_layers > 0) a["cross_attention_layers"] = m.cross_attention_layers;
  if (m.extra_embedding_rows > 0) a["extra_embedding_rows"] = m.extra_embedding_rows;
  if (!m.vision.counted()) return;
  const VisionConfig& x = m.vision;
  a["vision"] = {{"tower", name_of(x.tower)},
                 {"projector", name_of(x.projector)},
                 {"n_layers", x.n_layers},
                 {"d", x.d},
                 {"d_ff", x.d_ff},
                 {"patch", x.patch},
                 {"image_size", x.image_size},
                 {"channels", x.channels},
                 {"temporal_patch", x.temporal_patch},
                 {"merge", x.merge},
                 {"global_layers", x.global_layers},
                 {"max_tiles", x.max_tiles},
                 {"aspect_ratios", x.aspect_ratios},
                 {"adapter_in", x.adapter_in},
                 {"adapter_out", x.adapter_out},
                 {"output_dim", x.output_dim},
                 {"feature_layers", x.feature_layers},
                 {"out_dim", x.out_dim},
                 {"projector_bias", x.projector_bias}};
  if (x.position_embeddings > 0) a["vision"]["position_embeddings"] = x.position_embeddings;  // Qwen3-VL only
  if (x.deepstack_mergers > 0) a["vision"]["deepstack_mergers"] = x.deepstack_mergers;
  if (x.tower == VisionTower::gemma4) {  // Gemma 4 only
    a["vision"]["heads"] = x.heads;
    a["vision"]["head_dim"] = x.head_dim;
    a["vision"]["standardize"] = x.standardize;
  }
}

}  // namespace
// ---- end of the multimodal block ----

void architecture_from_json(const json& j, std::string_view where, ModelConfig& m) {
  ObjectReader r(j, std::string(where), "/architecture");
  if (auto f = r.opt_str("family")) m.family = *f;
  set_int(r, "n_layers", m.n_layers);
  set_int(r, "d_model", m.d_model);
  set_int(r, "n_heads", m.n_heads);
  set_int(r, "n_kv_heads", m.n_kv_heads);
  set_int(r, "head_dim", m.head_dim);
  set_int(r, "d_ff", m.d_ff);
  set_int(r, "vocab_size", m.vocab_size);
  set_int(r, "max_seq_len", m.max_seq_len);
  if (r.has("mlp")) m.mlp = parse_enum(r, "mlp", kMlpKindNames);
  if (r.has("norm")) m.norm = parse_enum(r, "norm", kNormKindNames);
  set_int(r, "norms_per_layer", m.norms_per_layer);
  set_bool(r, "final_norm", m.final_norm);
  set_bool(r, "embedding_norm", m.embedding_norm);
  if (r.has("qk_norm")) m.qk_norm = parse_enum(r, "qk_norm", kQkNormNames);
  set_bool(r, "qk_norm_gain_only", m.qk_norm_gain_only);
  set_bool(r, "qkv_bias", m.qkv_bias);
  set_bool(r, "o_bias", m.o_bias);
  set_bool(r, "mlp_bias", m.mlp_bias);
  set_bool(r, "lm_head_bias", m.lm_head_bias);
  set_bool(r, "tied_embeddings", m.tied_embeddings);
  set_bool(r, "parallel_block", m.parallel_block);
  if (r.has("position")) m.position = parse_enum(r, "position", kPositionKindNames);
  set_int(r, "learned_positions", m.learned_positions);
  set_int(r, "embed_proj_dim", m.embed_proj_dim);
  set_int(r, "sliding_window", m.sliding_window);
  set_int(r, "global_every", m.global_every);
  set_int(r, "mtp_layers", m.mtp_layers);
  set_int(r, "mtp_vocab_tables", m.mtp_vocab_tables);
  set_bool(r, "mtp_dense", m.mtp_dense);
  set_bool(r, "layer_scalar", m.layer_scalar);
  if (r.has("global_attention")) {  // Gemma 4
    ObjectReader g(r.raw("global_attention"), std::string(where), "/architecture/global_attention");
    set_int(g, "head_dim", m.global_attention.head_dim);
    set_int(g, "n_kv_heads", m.global_attention.n_kv_heads);
    set_bool(g, "k_eq_v", m.global_attention.k_eq_v);
    g.finish();
  }
  if (r.has("moe")) {
    ObjectReader e(r.raw("moe"), std::string(where), "/architecture/moe");
    set_int(e, "n_experts", m.moe.n_experts);
    set_int(e, "top_k", m.moe.top_k);
    set_int(e, "d_ff_expert", m.moe.d_ff_expert);
    set_int(e, "n_shared_experts", m.moe.n_shared_experts);
    set_int(e, "d_ff_shared", m.moe.d_ff_shared);
    set_bool(e, "shared_expert_gate", m.moe.shared_expert_gate);
    set_int(e, "first_dense_layers", m.moe.first_dense_layers);
    set_int(e, "layer_freq", m.moe.layer_freq);
    set_bool(e, "router_bias", m.moe.router_bias);
    set_bool(e, "correction_bias", m.moe.correction_bias);
    set_int(e, "zero_experts", m.moe.zero_experts);
    if (auto s = e.opt_number("zero_share")) m.moe.zero_share = *s;
    set_bool(e, "router_scales", m.moe.router_scales);
    set_int(e, "extra_norms", m.moe.extra_norms);
    e.finish();
  }
  // gpt-oss (issue 10): attention sinks and block-scaled experts in the published checkpoint.
  set_bool(r, "attention_sinks", m.attention_sinks);
  if (r.has("expert_storage")) {
    ObjectReader x(r.raw("expert_storage"), std::string(where), "/architecture/expert_storage");
    set_int(x, "value_bits", m.expert_storage.value_bits);
    set_int(x, "scale_bits", m.expert_storage.scale_bits);
    set_int(x, "block", m.expert_storage.block);
    set_int(x, "other_bits", m.expert_storage.other_bits);
    x.finish();
  }
  if (r.has("mla")) {
    ObjectReader a(r.raw("mla"), std::string(where), "/architecture/mla");
    set_int(a, "q_lora_rank", m.mla.q_lora_rank);
    set_int(a, "kv_lora_rank", m.mla.kv_lora_rank);
    set_int(a, "qk_rope_head_dim", m.mla.qk_rope_head_dim);
    set_int(a, "qk_nope_head_dim", m.mla.qk_nope_head_dim);
    set_int(a, "v_head_dim", m.mla.v_head_dim);
    a.finish();
  }
  if (r.has("indexer")) {
    ObjectReader x(r.raw("indexer"), std::string(where), "/architecture/indexer");
    set_int(x, "n_heads", m.indexer.n_heads);
    set_int(x, "head_dim", m.indexer.head_dim);
    set_int(x, "topk", m.indexer.topk);
    x.finish();
  }
  read_multimodal_architecture(r, where, m);
  if (r.has("hybrid")) hybrid_from_json(r, where, m);
  r.finish();
}

json architecture_to_json(const ModelConfig& m) {
  json a = {
      {"family", m.family},
      {"n_layers", m.n_layers},
      {"d_model", m.d_model},
      {"n_heads", m.n_heads},
      {"n_kv_heads", m.n_kv_heads},
      {"head_dim", m.head_dim},
      {"d_ff", m.d_ff},
      {"vocab_size", m.vocab_size},
      {"max_seq_len", m.max_seq_len},
      {"mlp", name_of(m.mlp)},
      {"norm", name_of(m.norm)},
      {"norms_per_layer", m.norms_per_layer},
      {"final_norm", m.final_norm},
      {"embedding_norm", m.embedding_norm},
      {"qk_norm", name_of(m.qk_norm)},
      {"qkv_bias", m.qkv_bias},
      {"o_bias", m.o_bias},
      {"mlp_bias", m.mlp_bias},
      {"lm_head_bias", m.lm_head_bias},
      {"tied_embeddings", m.tied_embeddings},
      {"parallel_block", m.parallel_block},
      {"position", name_of(m.position)},
      {"learned_positions", m.learned_positions},
      {"embed_proj_dim", m.embed_proj_dim},
      {"sliding_window", m.sliding_window},
      {"global_every", m.global_every},
      {"mtp_layers", m.mtp_layers},
  };
  if (m.qk_norm_gain_only) a["qk_norm_gain_only"] = true;                   // written only when set (StableLM 2)
  if (m.mtp_vocab_tables != 2) a["mtp_vocab_tables"] = m.mtp_vocab_tables;  // GLM-5 0, LongCat-Flash 1
  if (m.mtp_dense) a["mtp_dense"] = true;                                   // LongCat-Flash
  if (m.layer_scalar) a["layer_scalar"] = true;                             // Gemma 4
  if (m.global_attention.enabled()) {                                       // Gemma 4
    a["global_attention"] = {{"head_dim", m.global_attention.head_dim},
                             {"n_kv_heads", m.global_attention.n_kv_heads},
                             {"k_eq_v", m.global_attention.k_eq_v}};
  }
  if (m.moe.enabled()) {
    a["moe"] = {{"n_experts", m.moe.n_experts},
                {"top_k", m.moe.top_k},
                {"d_ff_expert", m.moe.d_ff_expert},
                {"n_shared_experts", m.moe.n_shared_experts},
                {"d_ff_shared", m.moe.d_ff_shared},
                {"shared_expert_gate", m.moe.shared_expert_gate},
                {"first_dense_layers", m.moe.first_dense_layers},
                {"layer_freq", m.moe.layer_freq},
                {"router_bias", m.moe.router_bias},
                {"correction_bias", m.moe.correction_bias}};
    if (m.moe.zero_experts > 0) {  // written only when the model has them (LongCat-Flash)
      a["moe"]["zero_experts"] = m.moe.zero_experts;
      a["moe"]["zero_share"] = m.moe.zero_share;
    }
    if (m.moe.router_scales) a["moe"]["router_scales"] = true;               // Gemma 4
    if (m.moe.extra_norms > 0) a["moe"]["extra_norms"] = m.moe.extra_norms;  // Gemma 4
  }
  if (m.attention_sinks) a["attention_sinks"] = true;
  if (m.expert_storage.enabled()) {
    a["expert_storage"] = {{"value_bits", m.expert_storage.value_bits},
                           {"scale_bits", m.expert_storage.scale_bits},
                           {"block", m.expert_storage.block},
                           {"other_bits", m.expert_storage.other_bits}};
  }
  if (m.mla.enabled()) {
    a["mla"] = {{"q_lora_rank", m.mla.q_lora_rank},
                {"kv_lora_rank", m.mla.kv_lora_rank},
                {"qk_rope_head_dim", m.mla.qk_rope_head_dim},
                {"qk_nope_head_dim", m.mla.qk_nope_head_dim},
                {"v_head_dim", m.mla.v_head_dim}};
  }
  if (m.indexer.enabled()) {
    a["indexer"] = {{"n_heads", m.indexer.n_heads}, {"head_dim", m.indexer.head_dim}, {"topk", m.indexer.topk}};
  }
  write_multimodal_architecture(m, a);
  if (m.hybrid.enabled()) a["hybrid"] = hybrid_to_json(m.hybrid);
  return a;
}

ModelPreset model_from_json(const json& j, std::string_view where, std::string_view fallback_name) {
  ModelPreset p;
  if (is_hf_config(j)) {
    p.config = import_hf_config(j, where, "", &p.checkpoint_notes, &p.generic);
    p.config.name = std::string(fallback_name);
    p.input_format = InputFormat::hf_config;
    return p;
  }
  ObjectReader r(j, std::string(where), "");
  p.config.name = r.str("name");
  p.display_name = r.opt_str("display_name").value_or(p.config.name);
  p.aliases = r.strings("aliases");
  p.source = r.str("source");
  if (p.source.empty()) r.fail("source", "must not be empty");
  p.notes = r.opt_str("notes").value_or("");
  p.published_params = r.opt_integer("published_params");
  if (p.published_params && *p.published_params < 1) {
    r.fail("published_params", "must be at least 1, got " + std::to_string(*p.published_params));
  }
  p.published_params_source = r.opt_str("published_params_source").value_or("");
  const bool has_arch = r.has("architecture");
  const bool has_hf = r.has("hf_config");
  if (has_arch == has_hf) {
    throw InputError(std::string(where) + ": needs exactly one of /architecture and /hf_config");
  }
  if (has_hf) {
    const std::string name = p.config.name;
    p.config = import_hf_config(r.raw("hf_config"), where, "/hf_config", &p.checkpoint_notes, &p.generic);
    p.config.name = name;
    p.input_format = InputFormat::hf_config;
  } else {
    ModelConfig& m = p.config;
    m.family = "custom";
    m.n_kv_heads = kDeriveFromHeads;
    m.head_dim = kDeriveFromHeads;
    architecture_from_json(r.raw("architecture"), where, m);
    for (const char* key : {"n_layers", "d_model", "n_heads", "vocab_size"}) {
      if (!r.raw("architecture").contains(key)) {
        throw InputError(std::string(where) + ": /architecture/" + key + ": missing required field");
      }
    }
    apply_head_defaults(m);
    p.input_format = InputFormat::preset;
    const auto problems = validate(m);
    if (!problems.empty()) {
      std::string all;
      for (const auto& s : problems) all += (all.empty() ? "/architecture/" : "; /architecture/") + s;
      throw InputError(std::string(where) + ": " + all);
    }
  }
  r.finish();
  return p;
}

}  // namespace roofline::io
