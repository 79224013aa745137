#include "io/preset_registry.hpp"

#include "io/embedded_presets.hpp"

#include "roofline/errors.hpp"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <optional>

namespace roofline::io {

namespace fs = std::filesystem;

namespace {
std::string too_large(std::string_view where) {
  return std::string(where) + ": larger than " + std::to_string(kMaxInputBytes >> 20) +
         " MiB; a preset or config.json is a few kB";
}
}  // namespace

std::string read_stream(std::istream& in, std::string_view where) {
  std::string text;
  std::array<char, 1 << 16> buf{};
  // Chunked, with the cap checked per chunk: /dev/zero or an endless pipe stops at the cap.
  while (in) {
    in.read(buf.data(), buf.size());
    text.append(buf.data(), static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxInputBytes) throw InputError(too_large(where));
  }
  if (in.bad()) throw InputError(std::string(where) + ": read error");
  return text;
}

std::string read_file(const std::string& path) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (fs::is_directory(st)) throw InputError(path + ": is a directory, expected a JSON file");
  if (!fs::exists(st)) throw InputError(path + ": cannot open file");
  // FIFOs and devices would block or never end (reliability R2); symlinks count by their target.
  if (!fs::is_regular_file(st)) throw InputError(path + ": not a regular file, expected a JSON file");
  const auto size = fs::file_size(path, ec);
  if (!ec && size > kMaxInputBytes) throw InputError(too_large(path));
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError(path + ": cannot open file");
  return read_stream(f, path);
}

nlohmann::json parse_json_text(std::string_view text, std::string_view where) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    // Parse errors name the byte offset; out_of_range (a number such as 1e400) names the literal.
    // Keep that, drop the "[json.exception...] " prefix.
    std::string what = e.what();
    const auto pos = what.find("] ");
    if (pos != std::string::npos) what = what.substr(pos + 2);
    throw InputError(std::string(where) + ": invalid JSON: " + what);
  }
}

PresetRegistry::PresetRegistry(const std::vector<std::string>& dirs) {
  for (const EmbeddedPreset& p : embedded_presets()) {
    add(p.kind == "gpus" ? PresetKind::gpu : PresetKind::model, std::string(p.name), "builtin", std::string(p.text));
  }
  for (const std::string& dir : dirs) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throw InputError("--preset-dir: \"" + dir + "\" is not a directory");
    for (const auto& [sub, kind] : {std::pair{"models", PresetKind::model}, std::pair{"gpus", PresetKind::gpu}}) {
      const fs::path d = fs::path(dir) / sub;
      if (!fs::is_directory(d, ec)) continue;
      std::vector<fs::path> files;
      for (const auto& f : fs::directory_iterator(d)) {
        if (f.path().extension() == ".json") files.push_back(f.path());
      }
      std::sort(files.begin(), files.end());
      for (const fs::path& f : files) {
        std::string name = f.filename().string();
        name.resize(name.size() - 5);
        add(kind, name, f.string(), read_file(f.string()));
      }
    }
  }
}

void PresetRegistry::add(PresetKind kind, std::string name, std::string origin, std::string text) {
  if (const PresetEntry* e = find(kind, name)) {
    throw InputError(origin + ": duplicate preset name \"" + name + "\" (already defined by " + e->origin + ")");
  }
  const bool builtin = origin == "builtin";
  entries_.push_back({kind, std::move(name), std::move(origin), builtin, std::move(text)});
}

const PresetEntry* PresetRegistry::find(PresetKind kind, std::string_view name) const {
  for (const PresetEntry& e : entries_) {
    if (e.kind == kind && e.name == name) return &e;
  }
  return nullptr;
}

std::vector<const PresetEntry*> PresetRegistry::entries(PresetKind kind) const {
  std::vector<const PresetEntry*> out;
  for (const PresetEntry& e : entries_) {
    if (e.kind == kind) out.push_back(&e);
  }
  std::sort(out.begin(), out.end(), [](auto* a, auto* b) { return a->name < b->name; });
  return out;
}

namespace {
std::string where_of(const PresetEntry& e) {
  return e.builtin ? std::string(e.kind == PresetKind::gpu ? "presets/gpus/" : "presets/models/") + e.name + ".json"
                   : e.origin;
}

bool looks_like_path(std::string_view s) { return s.find('/') != std::string_view::npos || s.ends_with(".json"); }
}  // namespace

ModelPreset PresetRegistry::parse_model(const PresetEntry& e) const {
  const std::string where = where_of(e);
  ModelPreset p = model_from_json(parse_json_text(e.text, where), where, e.name);
  if (p.config.name != e.name && p.input_format != InputFormat::hf_config) {
    throw InputError(where + ": /name: \"" + p.config.name + "\" must equal the file name \"" + e.name + "\"");
  }
  p.config.name = e.name;
  p.origin = e.origin;
  return p;
}

HardwareConfig PresetRegistry::parse_gpu(const PresetEntry& e) const {
  const std::string where = where_of(e);
  HardwareConfig h = hardware_from_json(parse_json_text(e.text, where), where);
  if (h.name != e.name) {
    throw InputError(where + ": /name: \"" + h.name + "\" must equal the file name \"" + e.name + "\"");
  }
  return h;
}

ModelPreset PresetRegistry::load_model(std::string_view spec, std::istream& in) const {
  if (spec == "-") {
    const std::string text = read_stream(in, "<stdin>");
    ModelPreset p = model_from_json(parse_json_text(text, "<stdin>"), "<stdin>", "stdin");
    p.origin = "stdin";
    return p;
  }
  if (const PresetEntry* e = find(PresetKind::model, spec)) return parse_model(*e);
  std::error_code ec;
  if (looks_like_path(spec) || fs::exists(fs::path(spec), ec)) {
    const std::string path(spec);
    std::string stem = fs::path(path).filename().string();
    if (stem.ends_with(".json")) stem.resize(stem.size() - 5);
    if (!fs::exists(fs::path(path), ec) && find(PresetKind::model, stem) != nullptr) {
      throw InputError(path + ": cannot open file; did you mean the preset \"" + stem + "\"?");
    }
    ModelPreset p = model_from_json(parse_json_text(read_file(path), path), path, stem);
    p.origin = path;
    return p;
  }
  std::vector<std::string> names;
  for (const PresetEntry* e : entries(PresetKind::model)) names.push_back(e->name);
  const std::string guess = did_you_mean(spec, names);
  throw InputError("MODEL: unknown preset \"" + std::string(spec) + "\"" +
                   (guess.empty() ? "; see `roofline models --names`, or pass a config.json path"
                                  : "; did you mean \"" + guess + "\"?"));
}

HardwareConfig PresetRegistry::load_gpu(std::string_view spec) const {
  if (const PresetEntry* e = find(PresetKind::gpu, spec)) return parse_gpu(*e);
  std::error_code ec;
  if (looks_like_path(spec) || fs::exists(fs::path(spec), ec)) {
    const std::string path(spec);
    return hardware_from_json(parse_json_text(read_file(path), path), path);
  }
  // Aliases need the files parsed; only now, after the cheap exact lookup failed.
  // Every alias is checked against every name and alias, so a user file cannot silently take
  // over a built-in's alias.
  std::vector<std::string> names;
  std::vector<std::string> owners;
  std::optional<HardwareConfig> match;
  for (const PresetEntry* e : entries(PresetKind::gpu)) names.push_back(e->name);
  for (const PresetEntry* e : entries(PresetKind::gpu)) {
    HardwareConfig h = parse_gpu(*e);
    for (const std::string& a : h.aliases) {
      const auto clash = std::find(names.begin(), names.end(), a);
      if (clash != names.end()) {
        const std::size_t i = static_cast<std::size_t>(clash - names.begin());
        throw InputError(e->origin + ": alias \"" + a + "\" is already " +
                         (i < owners.size() + entries(PresetKind::gpu).size() && i >= entries(PresetKind::gpu).size()
                              ? "an alias of \"" + owners[i - entries(PresetKind::gpu).size()] + "\""
                              : "a preset name"));
      }
      names.push_back(a);
      owners.push_back(h.name);
    }
    if (std::find(h.aliases.begin(), h.aliases.end(), spec) != h.aliases.end()) match = h;
  }
  if (match) return *match;
  const std::string guess = did_you_mean(spec, names);
  throw InputError("--gpu: unknown preset \"" + std::string(spec) + "\"" +
                   (guess.empty() ? "; see `roofline gpus --names`" : "; did you mean \"" + guess + "\"?"));
}

std::string did_you_mean(std::string_view wrong, const std::vector<std::string>& candidates) {
  // Levenshtein distance with a budget that grows with the word, as ninja's spellcheck does.
  const auto distance = [](std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
      std::size_t diag = row[0];
      row[0] = i;
      for (std::size_t j = 1; j <= b.size(); ++j) {
        const std::size_t up = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0U : 1U)});
        diag = up;
      }
    }
    return row[b.size()];
  };
  // A name the user started typing beats any edit; short words allow one edit, longer a third.
  std::string best;
  std::size_t best_d = (wrong.size() <= 3 ? 1 : wrong.size() / 3) + 1;
  for (const std::string& c : candidates) {
    std::size_t d = distance(wrong, c);
    if (!wrong.empty() && (c.starts_with(wrong) || wrong.starts_with(c))) d = 0;
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

}  // namespace roofline::io
