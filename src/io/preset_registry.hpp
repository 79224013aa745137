// PresetRegistry: built-in presets plus user directories; lazy parsing; did-you-mean.
#pragma once

#include "io/preset_json.hpp"

#include "roofline/hardware_config.hpp"

#include <cstddef>
#include <istream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace roofline::io {

enum class PresetKind { model, gpu, system };

/// The folder of a kind under a preset directory: models, gpus, systems.
constexpr std::string_view kind_directory(PresetKind k) {
  return k == PresetKind::gpu ? "gpus" : (k == PresetKind::system ? "systems" : "models");
}

struct PresetEntry {
  PresetKind kind = PresetKind::model;
  std::string name;
  std::string origin;              ///< "builtin" or the file path, for messages
  bool builtin = false;            ///< embedded in the binary (origin is then "builtin")
  std::string_view text;           ///< JSON text: the embedded text, or the file's, owned by the registry
  std::string_view built_aliases;  ///< a built-in's aliases, each followed by '\n', read at build time
  bool aliases_built = false;      ///< built_aliases is what the text says (else the text is parsed)
};

/// A preset name: ASCII letters, digits and `.` `_` `+` `-`, starting with a letter or a digit, at
/// most 100 characters. Names are typed on command lines, joined in comma lists and offered by the
/// shells' completion, which must never split or expand them (docs/presets.md).
inline constexpr std::size_t kMaxPresetName = 100;
inline constexpr std::string_view kPresetNameRule =
    "a preset name is ASCII letters, digits, '.', '_', '+' and '-', starting with a letter or a digit, at most 100 "
    "characters";
[[nodiscard]] bool is_preset_name(std::string_view name);
/// An alias: a preset name, or two joined by one '/' (a Hugging Face repo id).
[[nodiscard]] bool is_preset_alias(std::string_view alias);

class PresetRegistry {
 public:
  /// Registers the built-ins and every *.json under DIR/models, DIR/gpus and DIR/systems of each directory.
  /// Duplicate names (compared case-insensitively) are an InputError naming both origins. The
  /// first `from_env` directories came from ROOFLINE_PRESET_PATH, the rest from --preset-dir: an
  /// error about a directory names where it came from. A directory that is missing, unreadable or a
  /// symlink loop, and an entry that is not a regular file, is an InputError.
  explicit PresetRegistry(const std::vector<std::string>& dirs, std::size_t from_env = 0);

  [[nodiscard]] std::vector<const PresetEntry*> entries(PresetKind kind) const;

  /// A preset found by name or alias.
  struct Resolved {
    const PresetEntry* entry = nullptr;
    bool via_alias = false;  ///< matched one of entry->name's aliases, not the name itself
  };
  /// Looks `spec` up as a preset name, then as an alias (HF repo id, common spelling), both
  /// case-insensitively. nullopt when neither matches. Resolving an alias checks every alias of
  /// that kind once: a clash with a name or another alias is an InputError naming the file at fault.
  [[nodiscard]] std::optional<Resolved> resolve(PresetKind kind, std::string_view spec) const;

  /// The aliases a preset declares, in file order (for `models` / `gpus` listings).
  [[nodiscard]] std::vector<std::string> aliases(const PresetEntry& e) const;

  /// A preset name or alias, a path to a preset or HF config.json, or "-" for `in`. The returned
  /// config's name is the canonical preset name, whatever spelling `spec` used.
  ModelPreset load_model(std::string_view spec, std::istream& in) const;
  /// A repo id of a fine-tune or quantized upload (-Instruct, -it, -FP8, -AWQ, a date) read as the
  /// preset of its base name, with notes saying so; nullopt when no base name is a preset.
  std::optional<ModelPreset> load_variant(std::string_view spec) const;
  /// An org/name[@revision] whose snapshot in the local Hugging Face cache has a config.json.
  std::optional<ModelPreset> load_cached(std::string_view spec) const;
  /// A checkpoint directory: its config.json, its safetensors headers, its hf_quant_config.json.
  /// With `one_file`, that safetensors file's header alone (MODEL was the file).
  ModelPreset load_checkpoint(const std::string& dir, std::string_view label, const std::string& one_file = "") const;
  /// A GPU preset name or alias, or a path to a GPU preset file.
  HardwareConfig load_gpu(std::string_view spec) const;

  [[nodiscard]] ModelPreset parse_model(const PresetEntry& e) const;
  [[nodiscard]] HardwareConfig parse_gpu(const PresetEntry& e) const;
  /// A system preset name or alias, or a path to a system preset file.
  SystemPreset load_system(std::string_view spec) const;
  [[nodiscard]] SystemPreset parse_system(const PresetEntry& e) const;

 private:
  struct Alias {
    std::string key;   ///< lower-cased, for lookup
    std::string text;  ///< as the file writes it
    const PresetEntry* owner = nullptr;
  };
  void add(PresetKind kind, std::string name, std::string origin, bool builtin, std::string text);
  [[nodiscard]] const PresetEntry* find(PresetKind kind, std::string_view name) const;
  /// Every alias of every preset, read from the files' "aliases" arrays on first use and checked.
  [[nodiscard]] const std::vector<Alias>& alias_index() const;
  /// No preset files: every alias was read at build time and can be scanned in place.
  [[nodiscard]] bool builtins_only() const;
  [[nodiscard]] std::string unknown_hint(PresetKind kind, std::string_view spec) const;
  std::vector<PresetEntry> entries_;
  std::vector<std::unique_ptr<const std::string>> texts_;  ///< the preset files' texts (entries_ views them)
  mutable std::optional<std::vector<Alias>> aliases_;
};

/// Closest candidate by edit distance, or "" when none is close.
std::string did_you_mean(std::string_view wrong, const std::vector<std::string>& candidates);

/// A spelling of a preset: a name or an alias, and the canonical name it stands for (views of the
/// registry's strings).
struct PresetSpelling {
  std::string_view text;
  std::string_view name;
};

/// What follows `unknown preset "x"`: "; did you mean \"y\"?", "; did you mean one of: a, b?",
/// "; presets of this family: a, b", or "" when nothing is near. Never offers a preset whose
/// numbers (sizes, versions) differ from what was typed, except names that extend what was typed;
/// when only other sizes of the family exist, lists the family instead. See docs/presets.md.
std::string suggest_preset(std::string_view wrong, const std::vector<PresetSpelling>& spellings);

/// Largest preset, config.json or stdin text read (64 MiB).
inline constexpr std::size_t kMaxInputBytes = std::size_t{64} << 20;

/// InputError naming the path unless it is an existing regular file (or a symlink to one):
/// "cannot open file", "is a directory", "not a regular file", or the system's reason ("Too many
/// levels of symbolic links", "Permission denied"). Nothing is opened, so a FIFO cannot block.
void check_input_file(const std::string& path);

/// Reads a whole regular file of at most kMaxInputBytes; InputError naming the path if it cannot
/// ("cannot open file", "is a directory", "not a regular file", "larger than 64 MiB").
std::string read_file(const std::string& path);

/// Reads `in` to its end, at most kMaxInputBytes; InputError prefixed with `where` otherwise.
std::string read_stream(std::istream& in, std::string_view where);

/// Deepest nesting of arrays and objects parse_json_text accepts.
inline constexpr std::size_t kMaxJsonDepth = 64;
/// The most values (scalars, arrays and objects) one JSON document may hold: the largest real
/// config has a few thousand; a 64 MiB document of one-byte values would build a gigabyte of tree.
inline constexpr std::size_t kMaxJsonValues = 1'000'000;

/// Parses one JSON document, the reader for every JSON roofline reads (presets, config.json,
/// stdin, batch lines). InputError prefixed with `where`: "invalid JSON: " and the parser's
/// position for a syntax error (bytes after the document, a NUL byte and ill-formed UTF-8
/// included); the value's JSON pointer for a duplicate key, a number out of double range or
/// nesting deeper than kMaxJsonDepth.
nlohmann::json parse_json_text(std::string_view text, std::string_view where);

/// Empties a JSON tree from the leaves up, allocating nothing. nlohmann's destructor moves a
/// container's children into a vector it allocates, so out of memory a large tree's destructor
/// would end the program (it is noexcept); a tree drained first is destroyed without allocating
/// (reliability review 2026-12-01, N7).
void drain_json(nlohmann::json& root);

/// A parsed document that is drained before it is destroyed (drain_json).
struct DrainedJson {
  nlohmann::json value;
  explicit DrainedJson(nlohmann::json j) : value(std::move(j)) {}
  DrainedJson(const DrainedJson&) = delete;
  DrainedJson& operator=(const DrainedJson&) = delete;
  DrainedJson(DrainedJson&&) = delete;
  DrainedJson& operator=(DrainedJson&&) = delete;
  ~DrainedJson() {
    try {
      drain_json(value);
    } catch (...) {  // nothing in a drain throws; a destructor must not, whatever happens
    }
  }
};

}  // namespace roofline::io
