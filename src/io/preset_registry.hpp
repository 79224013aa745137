// PresetRegistry: built-in presets plus user directories; lazy parsing; did-you-mean.
#pragma once

#include "io/preset_json.hpp"

#include "roofline/hardware_config.hpp"

#include <cstddef>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

namespace roofline::io {

enum class PresetKind { model, gpu };

struct PresetEntry {
  PresetKind kind = PresetKind::model;
  std::string name;
  std::string origin;    ///< "builtin" or the file path, for messages
  bool builtin = false;  ///< embedded in the binary (origin is then "builtin")
  std::string text;      ///< JSON text, read when the entry is registered
};

class PresetRegistry {
 public:
  /// Registers the built-ins and every *.json under DIR/models and DIR/gpus of each directory.
  /// Duplicate names are an InputError naming both origins.
  explicit PresetRegistry(const std::vector<std::string>& dirs);

  [[nodiscard]] std::vector<const PresetEntry*> entries(PresetKind kind) const;

  /// A preset name, a path to a preset or HF config.json, or "-" for `in`.
  ModelPreset load_model(std::string_view spec, std::istream& in) const;
  /// A GPU preset name or alias, or a path to a GPU preset file.
  HardwareConfig load_gpu(std::string_view spec) const;

  [[nodiscard]] ModelPreset parse_model(const PresetEntry& e) const;
  [[nodiscard]] HardwareConfig parse_gpu(const PresetEntry& e) const;

 private:
  void add(PresetKind kind, std::string name, std::string origin, std::string text);
  [[nodiscard]] const PresetEntry* find(PresetKind kind, std::string_view name) const;
  std::vector<PresetEntry> entries_;
};

/// Closest candidate by edit distance, or "" when none is close.
std::string did_you_mean(std::string_view wrong, const std::vector<std::string>& candidates);

/// Largest preset, config.json or stdin text read (64 MiB).
inline constexpr std::size_t kMaxInputBytes = std::size_t{64} << 20;

/// Reads a whole regular file of at most kMaxInputBytes; InputError naming the path if it cannot
/// ("cannot open file", "is a directory", "not a regular file", "larger than 64 MiB").
std::string read_file(const std::string& path);

/// Reads `in` to its end, at most kMaxInputBytes; InputError prefixed with `where` otherwise.
std::string read_stream(std::istream& in, std::string_view where);

/// Parses JSON text; InputError with `where` and the parser's position on failure.
nlohmann::json parse_json_text(std::string_view text, std::string_view where);

}  // namespace roofline::io
