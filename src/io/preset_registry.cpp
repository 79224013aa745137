#include "io/preset_registry.hpp"

#include "io/embedded_presets.hpp"

#include "roofline/errors.hpp"

#include <algorithm>
#include <array>
#include <cctype>
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

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

bool iequal(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::string where_of(const PresetEntry& e) {
  return e.builtin ? std::string(e.kind == PresetKind::gpu ? "presets/gpus/" : "presets/models/") + e.name + ".json"
                   : e.origin;
}

bool looks_like_path(std::string_view s) { return s.find('/') != std::string_view::npos || s.ends_with(".json"); }

std::string in_quotes(std::string_view s) { return "\"" + std::string(s) + "\""; }

}  // namespace

PresetRegistry::PresetRegistry(const std::vector<std::string>& dirs) {
  // The built-ins are views of the binary's own text, registered without a duplicate check: their
  // names are unique by construction (tests/io/presets_test.cpp checks it), and this runs on every command.
  const std::vector<EmbeddedPreset>& builtin = embedded_presets();
  entries_.reserve(builtin.size());
  for (const EmbeddedPreset& p : builtin) {
    entries_.push_back(
        {p.kind == "gpus" ? PresetKind::gpu : PresetKind::model, std::string(p.name), "builtin", true, p.text});
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
        add(kind, name, f.string(), false, read_file(f.string()));
      }
    }
  }
}

void PresetRegistry::add(PresetKind kind, std::string name, std::string origin, bool builtin, std::string text) {
  if (const PresetEntry* e = find(kind, name)) {
    throw InputError(origin + ": duplicate preset name \"" + name + "\" (already defined by " + e->origin + ")");
  }
  texts_.push_back(std::make_unique<const std::string>(std::move(text)));
  entries_.push_back({kind, std::move(name), std::move(origin), builtin, *texts_.back()});
}

const PresetEntry* PresetRegistry::find(PresetKind kind, std::string_view name) const {
  for (const PresetEntry& e : entries_) {
    if (e.kind == kind && iequal(e.name, name)) return &e;
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

const std::vector<PresetRegistry::Alias>& PresetRegistry::alias_index() const {
  if (aliases_) return *aliases_;
  std::vector<Alias> index;
  // Only the top-level "aliases" key is kept: the rest of each file is parsed but not built, and
  // not validated (that happens when the preset itself is loaded).
  const nlohmann::json::parser_callback_t only_aliases = [](int depth, nlohmann::json::parse_event_t event,
                                                            nlohmann::json& parsed) {
    return !(depth == 1 && event == nlohmann::json::parse_event_t::key && parsed != "aliases");
  };
  for (const PresetEntry& e : entries_) {
    const std::string where = where_of(e);
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(e.text, only_aliases);
    } catch (const nlohmann::json::exception&) {
      j = parse_json_text(e.text, where);  // rethrows with the position and `where`
    }
    if (!j.is_object() || !j.contains("aliases") || j.at("aliases").is_null()) continue;
    const ObjectReader r(j, where, "");
    for (const std::string& a : r.strings("aliases")) index.push_back({lower(a), a, &e});
  }
  // Every alias against every name and every earlier alias of its kind. Built-ins come first, so
  // a clash between a built-in and a user file always blames the user file.
  for (std::size_t i = 0; i < index.size(); ++i) {
    const Alias& a = index[i];
    const PresetEntry& e = *a.owner;
    if (const PresetEntry* named = find(e.kind, a.key)) {
      if (named == &e) throw InputError(where_of(e) + ": /aliases: " + in_quotes(a.text) + " is the preset's own name");
      if (e.builtin && !named->builtin) {
        throw InputError(where_of(*named) + ": preset name " + in_quotes(named->name) + " is already an alias of " +
                         in_quotes(e.name) + " (" + e.origin + ")");
      }
      throw InputError(where_of(e) + ": /aliases: " + in_quotes(a.text) + " is already the name of preset " +
                       in_quotes(named->name) + " (" + named->origin + ")");
    }
    for (std::size_t k = 0; k < i; ++k) {
      const Alias& b = index[k];
      if (b.owner->kind != e.kind || b.key != a.key) continue;
      if (b.owner == &e) throw InputError(where_of(e) + ": /aliases: " + in_quotes(a.text) + " is listed twice");
      throw InputError(where_of(e) + ": /aliases: " + in_quotes(a.text) + " is already an alias of " +
                       in_quotes(b.owner->name) + " (" + b.owner->origin + ")");
    }
  }
  aliases_ = std::move(index);
  return *aliases_;
}

std::optional<PresetRegistry::Resolved> PresetRegistry::resolve(PresetKind kind, std::string_view spec) const {
  if (const PresetEntry* e = find(kind, spec)) return Resolved{e, false};
  const std::string key = lower(spec);
  for (const Alias& a : alias_index()) {
    if (a.owner->kind == kind && a.key == key) return Resolved{a.owner, true};
  }
  return std::nullopt;
}

std::vector<std::string> PresetRegistry::aliases(const PresetEntry& e) const {
  std::vector<std::string> out;
  for (const Alias& a : alias_index()) {
    if (a.owner == &e) out.push_back(a.text);
  }
  return out;
}

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

std::string PresetRegistry::unknown_hint(PresetKind kind, std::string_view spec) const {
  std::vector<PresetSpelling> spellings;
  for (const PresetEntry* e : entries(kind)) spellings.push_back({e->name, e->name});
  for (const Alias& a : alias_index()) {
    if (a.owner->kind == kind) spellings.push_back({a.text, a.owner->name});
  }
  return suggest_preset(spec, spellings);
}

ModelPreset PresetRegistry::load_model(std::string_view spec, std::istream& in) const {
  if (spec == "-") {
    const std::string text = read_stream(in, "<stdin>");
    ModelPreset p = model_from_json(parse_json_text(text, "<stdin>"), "<stdin>", "stdin");
    p.origin = "stdin";
    return p;
  }
  // Names and aliases before paths: an HF repo id such as meta-llama/Meta-Llama-3-8B has a '/'.
  if (const PresetEntry* e = find(PresetKind::model, spec)) return parse_model(*e);
  if (!spec.ends_with(".json")) {
    if (auto r = resolve(PresetKind::model, spec)) return parse_model(*r->entry);
  }
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
  const std::string hint = unknown_hint(PresetKind::model, spec);
  throw InputError("MODEL: unknown preset \"" + std::string(spec) + "\"" +
                   (hint.empty() ? "; see `roofline models --names`, or pass a config.json path" : hint));
}

HardwareConfig PresetRegistry::load_gpu(std::string_view spec) const {
  if (const PresetEntry* e = find(PresetKind::gpu, spec)) return parse_gpu(*e);
  if (!spec.ends_with(".json")) {
    if (auto r = resolve(PresetKind::gpu, spec)) return parse_gpu(*r->entry);
  }
  std::error_code ec;
  if (looks_like_path(spec) || fs::exists(fs::path(spec), ec)) {
    const std::string path(spec);
    return hardware_from_json(parse_json_text(read_file(path), path), path);
  }
  const std::string hint = unknown_hint(PresetKind::gpu, spec);
  throw InputError("--gpu: unknown preset \"" + std::string(spec) + "\"" +
                   (hint.empty() ? "; see `roofline gpus --names`" : hint));
}

namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
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
}

bool is_digit(char ch) { return ch >= '0' && ch <= '9'; }
bool is_alnum(char ch) { return is_digit(ch) || (ch >= 'a' && ch <= 'z'); }

// The numbers in a name, in order: "qwen2.5-0.5b" -> {"2.5", "0.5"}. Two spellings of one model
// carry the same numbers; a different size or version changes them.
std::vector<std::string> numbers_of(std::string_view s) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < s.size();) {
    if (!is_digit(s[i])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < s.size() && (is_digit(s[j]) || (s[j] == '.' && j + 1 < s.size() && is_digit(s[j + 1])))) ++j;
    out.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

// The family of a lower-case name: what precedes its first size token ("32b", "0.5b", "8x7b",
// "125m", "7b1") after a separator, without separators: "qwen-2.5-32b" -> "qwen2.5". Names without a
// size token have no family ("").
std::string family_of(std::string_view s) {
  for (std::size_t p = 0; p < s.size(); ++p) {
    if (!is_digit(s[p]) || (p > 0 && s[p - 1] != '-' && s[p - 1] != '_' && s[p - 1] != ' ')) continue;
    std::size_t q = p;
    while (q < s.size() && (is_digit(s[q]) || s[q] == '.' || s[q] == 'x')) ++q;
    if (q == s.size() || (s[q] != 'b' && s[q] != 'm' && s[q] != 'k')) continue;
    ++q;
    while (q < s.size() && is_digit(s[q])) ++q;
    if (q < s.size() && is_alnum(s[q])) continue;
    std::string family;
    for (char ch : s.substr(0, p)) {
      if (ch != '-' && ch != '_' && ch != ' ') family += ch;
    }
    return family;
  }
  return "";
}

// "qwen2.5-7b" before "qwen2.5-72b": digit runs compare by value.
bool natural_less(std::string_view a, std::string_view b) {
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      std::size_t ie = i;
      std::size_t je = j;
      while (ie < a.size() && is_digit(a[ie])) ++ie;
      while (je < b.size() && is_digit(b[je])) ++je;
      const std::string_view na = a.substr(i, ie - i);
      const std::string_view nb = b.substr(j, je - j);
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      i = ie;
      j = je;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

std::string name_list(std::vector<std::string> names) {
  std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) { return natural_less(a, b); });
  names.erase(std::unique(names.begin(), names.end()), names.end());
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < 8; ++i) out += (i == 0 ? "" : ", ") + names[i];
  if (names.size() > 8) out += ", ...";
  return out;
}

}  // namespace

std::string suggest_preset(std::string_view wrong, const std::vector<PresetSpelling>& spellings) {
  const std::string w = lower(wrong);
  if (w.empty()) return "";
  // 1. Names that extend what was typed ("mi300" -> mi300a, mi300x): all of them.
  std::vector<std::string> extended;
  for (const PresetSpelling& s : spellings) {
    if (lower(s.text).starts_with(w)) extended.push_back(s.name);
  }
  std::sort(extended.begin(), extended.end());
  extended.erase(std::unique(extended.begin(), extended.end()), extended.end());
  if (extended.size() == 1) return "; did you mean \"" + extended.front() + "\"?";
  if (extended.size() > 1) return "; did you mean one of: " + name_list(extended) + "?";
  // 2. A near spelling with the same numbers: a typo, never another size or version.
  const std::vector<std::string> numbers = numbers_of(w);
  std::string best;
  std::size_t best_d = (w.size() <= 3 ? 1 : w.size() / 3) + 1;
  for (const PresetSpelling& s : spellings) {
    const std::string t = lower(s.text);
    if (numbers_of(t) != numbers) continue;
    const std::size_t d = w.starts_with(t) ? 0 : edit_distance(w, t);
    if (d < best_d) {
      best_d = d;
      best = s.name;
    }
  }
  if (!best.empty()) return "; did you mean \"" + best + "\"?";
  // 3. Another size of a known family: list the family rather than pick one.
  const std::string family = family_of(w);
  if (family.empty()) return "";
  std::vector<std::string> members;
  for (const PresetSpelling& s : spellings) {
    if (s.text == s.name && family_of(lower(s.name)) == family) members.push_back(s.name);
  }
  if (members.empty()) return "";
  return "; presets of this family: " + name_list(members);
}

std::string did_you_mean(std::string_view wrong, const std::vector<std::string>& candidates) {
  // Levenshtein distance with a budget that grows with the word, as ninja's spellcheck does.
  // A name the user started typing beats any edit; short words allow one edit, longer a third.
  std::string best;
  std::size_t best_d = (wrong.size() <= 3 ? 1 : wrong.size() / 3) + 1;
  for (const std::string& c : candidates) {
    std::size_t d = edit_distance(wrong, c);
    if (!wrong.empty() && (c.starts_with(wrong) || wrong.starts_with(c))) d = 0;
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

}  // namespace roofline::io
