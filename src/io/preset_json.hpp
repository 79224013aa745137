// Strict JSON <-> config conversion: unknown keys rejected, JSON pointers in every error.
#pragma once

#include "roofline/hardware_config.hpp"
#include "roofline/model_config.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace roofline::io {

/// A model with the metadata its preset file carries.
struct ModelPreset {
  ModelConfig config;
  std::string display_name;
  std::string source;
  std::string notes;
  std::optional<std::int64_t> published_params;
  std::string published_params_source;
  std::string origin;        ///< "builtin", a file path, "stdin" or "flags"
  std::string input_format;  ///< "preset", "hf_config" or "flags"
};

/// Reads a GPU preset object. `where` prefixes every error (a file name).
HardwareConfig hardware_from_json(const nlohmann::json& j, std::string_view where);

/// Reads a model preset ({"name", "source", "architecture" | "hf_config", ...}) or a bare
/// Hugging Face config.json (detected by "model_type" / "architectures").
ModelPreset model_from_json(const nlohmann::json& j, std::string_view where, std::string_view fallback_name);

/// True when `j` looks like a Hugging Face config.json rather than a roofline preset.
bool is_hf_config(const nlohmann::json& j);

/// The native architecture object of a model, as a preset's "architecture" would hold it.
nlohmann::json architecture_to_json(const ModelConfig& m);

/// Reads a native architecture object into `m` (fields absent keep their values in `m`).
void architecture_from_json(const nlohmann::json& j, std::string_view where, ModelConfig& m);

/// Strict reader of one JSON object: typed getters with pointer-qualified errors, and a final
/// check that no unknown key was present.
class ObjectReader {
 public:
  ObjectReader(const nlohmann::json& j, std::string where, std::string pointer);
  [[nodiscard]] bool has(const char* key) const;
  [[nodiscard]] const nlohmann::json& raw(const char* key);
  std::string str(const char* key);
  std::optional<std::string> opt_str(const char* key);
  std::int64_t integer(const char* key);
  std::optional<std::int64_t> opt_integer(const char* key);
  std::optional<bool> opt_bool(const char* key);
  std::optional<double> opt_number(const char* key);
  /// Throws naming the first key that no getter asked for.
  void finish() const;
  [[noreturn]] void fail(const char* key, const std::string& what) const;
  [[nodiscard]] std::string path(const char* key) const;

 private:
  const nlohmann::json& j_;
  std::string where_;
  std::string pointer_;
  std::vector<std::string> seen_;
};

}  // namespace roofline::io
