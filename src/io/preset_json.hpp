// Strict JSON <-> config conversion: unknown keys rejected, JSON pointers in every error.
#pragma once

#include "io/text.hpp"

#include "roofline/hardware_config.hpp"
#include "roofline/model_config.hpp"
#include "roofline/topology.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace roofline::io {

/// A model with the metadata its preset file carries.
struct ModelPreset {
  ModelConfig config;
  std::string display_name;
  std::string source;
  std::string notes;
  std::optional<std::int64_t> published_params;  ///< >= 1 when present
  std::string published_params_source;
  std::vector<std::string> aliases;  ///< other names the preset answers to (HF repo ids, spellings)
  /// Checkpoint tensors that are not parameters (rotary buffers, causal masks, quantization
  /// scales), named for configs a user passes; excluded from every count.
  std::vector<std::string> checkpoint_notes;
  /// How the name typed reached this preset when it was not a name or alias (a fine-tune's or a
  /// quantized upload's repo id read as its base architecture), for the notes.
  std::vector<std::string> resolution_notes;
  /// A checkpoint on disk: what its safetensors headers hold (issue 23 part 4).
  std::optional<StoredCheckpoint> stored;
  std::string origin;  ///< "builtin", a file path, "stdin" or "flags"
  InputFormat input_format = InputFormat::preset;
  /// Read by the generic decoder reading (an unknown model_type): labelled in every output, refused
  /// under --strict.
  bool generic = false;
};

/// Reads a GPU preset object. `where` prefixes every error (a file name).
HardwareConfig hardware_from_json(const nlohmann::json& j, std::string_view where);

/// A system preset (presets/systems/): its accelerator's preset name and its topology.
struct SystemPreset {
  std::string accelerator;               ///< a GPU preset name
  std::vector<std::string> default_for;  ///< accelerators whose usual system this is
  Topology topology;
  std::vector<std::string> aliases;
};

/// Reads a system preset ({"name", "accelerator", "devices_per_node", "scale_up" | "pcie" |
/// "torus", "scale_out", "source", ...}); InputError naming the field at fault.
SystemPreset system_from_json(const nlohmann::json& j, std::string_view where);

/// The PCIe box an accelerator with no scale-up fabric sits in: `devices` cards on their host
/// links (halved through host memory where peer-to-peer is off or not known).
Link pcie_link(const HardwareConfig& h);

/// Reads a model preset ({"name", "source", "architecture" | "hf_config", ...}) or a bare
/// Hugging Face config.json (detected by "model_type" / "architectures").
ModelPreset model_from_json(const nlohmann::json& j, std::string_view where, std::string_view fallback_name);

/// True when `j` looks like a Hugging Face config.json rather than a roofline preset.
bool is_hf_config(const nlohmann::json& j);

/// The native architecture object of a model, as a preset's "architecture" would hold it.
nlohmann::json architecture_to_json(const ModelConfig& m);

/// Reads a native architecture object into `m` (fields absent keep their values in `m`).
void architecture_from_json(const nlohmann::json& j, std::string_view where, ModelConfig& m);

/// A JSON value for an error message: scalars as written and cut at 60 characters, arrays and
/// objects of scalars likewise, deeper values by kind only ("an array", "an object"). Never
/// serializes a deep value in full (reliability R1).
std::string describe_json(const nlohmann::json& v);

/// Strict reader of one JSON object, shared by native presets and Hugging Face configs: typed
/// getters with "where: /pointer: message" errors, and finish() to reject unknown keys (native
/// presets call it; HF configs carry many keys roofline ignores and do not). A null value is
/// treated as absent. Integers are counts: negative values and values >= 2^63 are refused, whole
/// floats such as 32.0 are accepted.
class ObjectReader {
 public:
  ObjectReader(const nlohmann::json& j, std::string where, std::string pointer);
  /// Present and not null.
  [[nodiscard]] bool has(const char* key) const;
  /// The value of a required key; "missing required field" when absent or null.
  [[nodiscard]] const nlohmann::json& raw(const char* key) const;
  [[nodiscard]] std::string str(const char* key) const;
  [[nodiscard]] std::optional<std::string> opt_str(const char* key) const;
  [[nodiscard]] std::string str(const char* key, std::string fallback) const;
  [[nodiscard]] std::int64_t integer(const char* key) const;
  [[nodiscard]] std::optional<std::int64_t> opt_integer(const char* key) const;
  [[nodiscard]] std::int64_t integer(const char* key, std::int64_t fallback) const;
  /// The first present key of several spellings (n_embd / hidden_size).
  [[nodiscard]] std::int64_t integer_any(std::initializer_list<const char*> keys) const;
  [[nodiscard]] std::int64_t integer_any(std::initializer_list<const char*> keys, std::int64_t fallback) const;
  [[nodiscard]] std::optional<bool> opt_bool(const char* key) const;
  [[nodiscard]] bool boolean(const char* key, bool fallback) const;
  [[nodiscard]] std::optional<double> opt_number(const char* key) const;
  /// An optional array of non-empty strings ("aliases"); empty when absent.
  [[nodiscard]] std::vector<std::string> strings(const char* key) const;
  /// Throws naming the first key that no getter asked for.
  void finish() const;
  /// The keys no getter has asked for, in the object's order (escaped for a message).
  [[nodiscard]] std::vector<std::string> unread() const;
  [[noreturn]] void fail(const char* key, const std::string& what) const;
  /// fail() for a value roofline cannot represent, with the "refuses rather than guess" hint.
  [[noreturn]] void unsupported(const char* key, const std::string& what) const;
  [[nodiscard]] std::string path(const char* key) const;
  [[nodiscard]] const std::string& where() const { return where_; }
  /// This reader with `defaults` behind it: a key absent (or null) here is read from them. A
  /// family whose class defaults differ from the reader it shares reads through it; `defaults`
  /// must outlive the reader.
  [[nodiscard]] ObjectReader with_defaults(const nlohmann::json& defaults) const;

 private:
  [[nodiscard]] std::int64_t to_integer(const char* key, const nlohmann::json& v) const;
  /// The key's value here, else in the defaults; null when neither has it (a null value is absent).
  [[nodiscard]] const nlohmann::json* find(const char* key) const;
  const nlohmann::json& j_;
  const nlohmann::json* defaults_ = nullptr;
  std::string where_;
  std::string pointer_;
  mutable std::vector<std::string> seen_;  ///< keys a getter asked for, for finish()
};

}  // namespace roofline::io
