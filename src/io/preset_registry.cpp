#include "io/preset_registry.hpp"

#include "io/builtin_json.hpp"
#include "io/checkpoint.hpp"
#include "io/embedded_presets.hpp"
#include "io/text.hpp"

#include "roofline/errors.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>
#include <optional>
#include <unordered_map>

namespace roofline::io {

namespace fs = std::filesystem;

namespace {
// "where: what", or what alone where the caller names the place itself (a batch line's answer).
std::string at(std::string_view where, const std::string& what) {
  return where.empty() ? what : std::string(where) + ": " + what;
}

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

void check_input_file(const std::string& path) {
  const std::string where = display_path(path);
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (st.type() == fs::file_type::not_found) throw InputError(where + ": cannot open file: No such file or directory");
  // A symlink loop (ELOOP), a directory on the way that cannot be searched (EACCES), ...
  if (ec) throw InputError(where + ": " + ec.message());
  if (fs::is_directory(st)) throw InputError(where + ": is a directory, expected a JSON file");
  // FIFOs and devices would block or never end (reliability R2); symlinks count by their target.
  if (!fs::is_regular_file(st)) throw InputError(where + ": not a regular file, expected a JSON file");
}

std::string read_file(const std::string& path) {
  check_input_file(path);
  const std::string where = display_path(path);
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (!ec && size > kMaxInputBytes) throw InputError(too_large(where));
  errno = 0;
  std::ifstream f(path, std::ios::binary);
  // The system's reason (Permission denied), never a bare "cannot open" (N20).
  if (!f) throw InputError(where + ": cannot open file" + (errno != 0 ? ": " + std::string(std::strerror(errno)) : ""));
  return read_stream(f, where);
}

namespace {

// nlohmann's SAX parser feeding a DOM builder that also enforces roofline's limits while it knows
// where it is: the nesting depth, duplicate keys and numbers out of double range are refused with
// the JSON pointer of the value. (nlohmann's own DOM parser lets the last duplicate win and has
// no depth limit; the error text then recursed into deep values, R1 and R10.)
class JsonBuilder {
 public:
  explicit JsonBuilder(std::string_view where) : where_(where) {}

  nlohmann::json& result() { return root_; }

  /// Empties the tree built so far (drain_json).
  void drain() { drain_json(root_); }

  bool null() { return value(nullptr); }
  bool boolean(bool v) { return value(v); }
  bool number_integer(std::int64_t v) { return value(v); }
  bool number_unsigned(std::uint64_t v) { return value(v); }
  bool number_float(double v, const std::string& text) {
    // A literal whose digits are not all zero that reads as 0 has underflowed (1e-400): as the
    // command line's parser does, it is refused, never taken for 0 (N13).
    if (v == 0.0 && text.find_first_of("123456789") < text.find_first_of("eE")) {
      fail(escape(text, 40) + " is too small for a number (it underflows to 0)");
    }
    return value(v);
  }
  bool string(std::string& v) { return value(std::move(v)); }
  bool binary(nlohmann::json::binary_t& /*v*/) { return value(nullptr); }  // not produced by JSON text

  bool start_object(std::size_t /*elements*/) { return open(nlohmann::json::object()); }
  bool start_array(std::size_t /*elements*/) { return open(nlohmann::json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(std::string& k) {
    Level& top = levels_.back();
    top.key = k;
    if (top.node->contains(k)) fail("duplicate key; each key may appear once in an object");
    // Public operations only: with JSON_DIAGNOSTICS they keep each value's parent pointer.
    slot_ = &(*top.node)[std::move(k)];
    return true;
  }

  bool parse_error(std::size_t /*byte*/, const std::string& token, const nlohmann::json::exception& e) {
    if (e.id == 406) {
      // A literal outside double range (1e400): nlohmann reports it as out_of_range.406.
      fail(escape(token, 40) + " is out of range for a number (at most about 1.8e308 in magnitude)");
    }
    std::string what = e.what();
    const auto pos = what.find("] ");
    if (pos != std::string::npos) what = what.substr(pos + 2);
    throw InputError(at(where_, "invalid JSON: " + printable(what)));
  }

 private:
  struct Level {
    nlohmann::json* node = nullptr;
    std::string key;  ///< the current key, for objects
  };

  // The pointer of the value being read: each open container's current key or index.
  [[nodiscard]] std::string pointer() const {
    std::string p;
    for (std::size_t i = 0; i < levels_.size(); ++i) {
      const Level& l = levels_[i];
      if (l.node->is_object()) {
        std::string k;
        for (const char ch : l.key) {
          if (ch == '~') {
            k += "~0";
          } else if (ch == '/') {
            k += "~1";
          } else {
            k += ch;
          }
        }
        p += "/" + escape(k, 40);
      } else {
        // An array's elements are added as they start: the open one is the last, a scalar the next.
        const std::size_t n = l.node->size();
        p += "/" + std::to_string(i + 1 < levels_.size() ? n - 1 : n);
      }
      if (p.size() > kEchoLimit) return p.substr(0, kEchoLimit) + "...";
    }
    return p.empty() ? "/" : p;
  }

  [[noreturn]] void fail(const std::string& what) const { throw InputError(at(where_, pointer() + ": " + what)); }

  // Where the next value goes: the root, the end of the open array, or the slot of the last key.
  template <class V>
  nlohmann::json* place(V&& v) {
    if (levels_.empty()) {
      root_ = nlohmann::json(std::forward<V>(v));
      return &root_;
    }
    nlohmann::json& top = *levels_.back().node;
    if (top.is_array()) {
      top.push_back(nlohmann::json(std::forward<V>(v)));
      return &top.back();
    }
    *slot_ = nlohmann::json(std::forward<V>(v));
    return slot_;
  }

  template <class V>
  bool value(V&& v) {
    count();
    place(std::forward<V>(v));
    return true;
  }

  // Values are counted as they are read: a 64 MiB document of a few bytes a value would build a
  // gigabyte of tree; no input of roofline's has a tenth of the limit (N7).
  void count() {
    if (++values_ > kMaxJsonValues) {
      fail("more than " + std::to_string(kMaxJsonValues) + " values; roofline's inputs have a few thousand");
    }
  }

  bool open(nlohmann::json&& container) {
    count();
    if (levels_.size() >= kMaxJsonDepth) {
      fail("nested deeper than " + std::to_string(kMaxJsonDepth) + " levels; roofline's inputs need a few");
    }
    nlohmann::json* node = place(std::move(container));
    levels_.push_back({node, {}});
    return true;
  }

  bool close() {
    levels_.pop_back();
    return true;
  }

  std::string_view where_;
  nlohmann::json root_;
  std::vector<Level> levels_;
  nlohmann::json* slot_ = nullptr;
  std::size_t values_ = 0;
};

}  // namespace

void drain_json(nlohmann::json& root) {
  // Leaves first, without recursion or allocation: the containers open on the way down, each with
  // the next child to look at, as deep as the reader allows. A deeper tree (not one parse_json_text
  // read) keeps its lowest levels for its own destructor.
  struct Open {
    nlohmann::json* node = nullptr;
    nlohmann::json::iterator next;
  };
  std::array<Open, kMaxJsonDepth + 2> open{};
  const auto container = [](const nlohmann::json& j) { return (j.is_array() || j.is_object()) && !j.empty(); };
  if (!container(root)) return;
  std::size_t depth = 0;
  open[depth++] = {&root, root.begin()};
  while (depth > 0) {
    Open& top = open[depth - 1];
    while (top.next != top.node->end() && !container(*top.next)) ++top.next;
    if (top.next != top.node->end() && depth < open.size()) {
      nlohmann::json& child = *top.next;
      ++top.next;
      open[depth++] = {&child, child.begin()};
      continue;
    }
    // Every child is a scalar or an empty container now: clearing frees them without allocating.
    if (top.node->is_array()) {
      top.node->get_ref<nlohmann::json::array_t&>().clear();
    } else {
      top.node->get_ref<nlohmann::json::object_t&>().clear();
    }
    --depth;
  }
}

nlohmann::json parse_json_text(std::string_view text, std::string_view where) {
  // nlohmann's lexer takes a NUL byte for the end of the input and would ignore what follows (R16).
  // JSON text never holds one: inside a string it is written \u0000.
  if (const auto nul = text.find('\0'); nul != std::string_view::npos) {
    throw InputError(at(where, "invalid JSON: a NUL byte at offset " + std::to_string(nul) + "; JSON text has none"));
  }
  JsonBuilder builder(where);
  // strict: bytes after the document are a syntax error. nlohmann checks UTF-8 inside strings,
  // and any other non-ASCII byte is a syntax error too.
  try {
    nlohmann::json::sax_parse(text, &builder, nlohmann::json::input_format_t::json, true, false);
  } catch (const std::bad_alloc&) {
    builder.drain();  // then the caller reports it: "out of memory", an error of the input's size
    throw;
  }
  return std::move(builder.result());
}

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

// `s` lower-cased into `buffer`, whose storage is reused from call to call.
const std::string& lower_into(std::string& buffer, std::string_view s) {
  buffer.assign(s);
  for (char& ch : buffer) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return buffer;
}

bool iequal(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::string where_of(const PresetEntry& e) {
  return e.builtin ? std::string("presets/") + std::string(kind_directory(e.kind)) + "/" + e.name + ".json" : e.origin;
}

bool looks_like_path(std::string_view s) { return s.find('/') != std::string_view::npos || s.ends_with(".json"); }

// A name's key in the alias index: its kind and its lower-cased spelling.
std::string kind_key(PresetKind kind, const std::string& lowered) {
  if (kind == PresetKind::gpu) return "g:" + lowered;
  if (kind == PresetKind::system) return "s:" + lowered;
  return "m:" + lowered;
}

std::string in_quotes(std::string_view s) { return quote(s); }

// Something by that name is in the file system, even a dangling symlink or a symlink loop: it
// is read as a path, so its problem is reported rather than "unknown preset".
bool names_a_file(std::string_view spec) {
  std::error_code ec;
  return fs::symlink_status(fs::path(spec), ec).type() != fs::file_type::not_found && !ec;
}

// A preset directory, or its models/ or gpus/: one that cannot be read is an error, never an
// empty one (R14). False when it does not exist and `may_be_missing`.
bool check_directory(const fs::path& dir, const char* source, bool may_be_missing) {
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (may_be_missing && st.type() == fs::file_type::not_found) return false;
  if (ec && st.type() != fs::file_type::not_found) {
    throw InputError(std::string(source) + ": " + quote(dir.string()) + ": " + ec.message());
  }
  if (!fs::is_directory(st)) throw InputError(std::string(source) + ": " + quote(dir.string()) + " is not a directory");
  return true;
}

// The *.json files of a models/ or gpus/ directory, sorted; none when it does not exist (a
// directory may hold only one of them). read_file checks each before reading it: only regular
// files (a FIFO would block every command, /dev/zero would be read to the cap; R2).
std::vector<fs::path> preset_files(const fs::path& d, const char* source) {
  std::vector<fs::path> files;
  if (!check_directory(d, source, true)) return files;
  std::error_code ec;
  fs::directory_iterator it(d, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    if (it->path().extension() == ".json") files.push_back(it->path());
  }
  if (ec) throw InputError(std::string(source) + ": " + quote(d.string()) + ": " + ec.message());
  std::sort(files.begin(), files.end());
  return files;
}

// Calls f on each line of `lines`, every one ended by '\n' (a built-in's aliases); stops at the
// first for which f returns true, and returns whether one did.
template <typename F>
bool any_line(std::string_view lines, F f) {
  for (std::size_t at = 0, end = 0; (end = lines.find('\n', at)) != std::string_view::npos; at = end + 1) {
    if (f(lines.substr(at, end - at))) return true;
  }
  return false;
}

}  // namespace

bool is_preset_name(std::string_view name) {
  const auto word = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); };
  if (name.empty() || name.size() > kMaxPresetName || !word(name.front())) return false;
  return std::all_of(name.begin(), name.end(),
                     [&](char c) { return word(c) || c == '.' || c == '_' || c == '+' || c == '-'; });
}

namespace {

// An alias of a user file, refused when it is not a name or a repo id of names.
const std::string& checked_alias(const std::string& a, const std::string& where) {
  if (!is_preset_alias(a)) {
    throw InputError(where + ": /aliases: " + quote(a) + " is not an alias; an alias is a preset name, or two " +
                     "joined by '/' as a Hugging Face repo id is");
  }
  return a;
}

}  // namespace

bool is_preset_alias(std::string_view alias) {
  const std::size_t slash = alias.find('/');
  if (slash == std::string_view::npos) return is_preset_name(alias);
  return is_preset_name(alias.substr(0, slash)) && is_preset_name(alias.substr(slash + 1));
}

PresetRegistry::PresetRegistry(const std::vector<std::string>& dirs, std::size_t from_env) {
  // The built-ins are views of the binary's own text, registered without a duplicate check: their
  // names are unique by construction (tests/io/presets_test.cpp checks it), and this runs on every command.
  const std::vector<EmbeddedPreset>& builtin = embedded_presets();
  entries_.reserve(builtin.size());
  for (const EmbeddedPreset& p : builtin) {
    const PresetKind kind =
        p.kind == "gpus" ? PresetKind::gpu : (p.kind == "systems" ? PresetKind::system : PresetKind::model);
    entries_.push_back({kind, std::string(p.name), "builtin", true, p.text, p.aliases, p.aliases_known});
  }
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    const char* source = i < from_env ? "ROOFLINE_PRESET_PATH" : "--preset-dir";
    const fs::path dir = dirs[i];
    check_directory(dir, source, false);
    for (const auto& [sub, kind] : {std::pair{"models", PresetKind::model}, std::pair{"gpus", PresetKind::gpu},
                                    std::pair{"systems", PresetKind::system}}) {
      for (const fs::path& f : preset_files(dir / sub, source)) {
        std::string name = f.filename().string();
        name.resize(name.size() - 5);
        // A preset name is typed on command lines, named in comma lists, printed in tables and
        // JSON, and offered by the shells' completion: a safe word only (R12, N5, N27).
        if (!is_preset_name(name)) {
          throw InputError(display_path(f.string()) + ": " + quote(name) + " is not a preset name; " +
                           std::string(kPresetNameRule));
        }
        add(kind, name, display_path(f.string()), false, read_file(f.string()));
      }
    }
  }
  // A user file's alias that clashes with a name or another alias is an error at once, not only
  // when an alias is first looked up: a name found first would hide the clash (N26).
  if (!dirs.empty() && !builtins_only()) static_cast<void>(alias_index());
}

void PresetRegistry::add(PresetKind kind, std::string name, std::string origin, bool builtin, std::string text) {
  if (const PresetEntry* e = find(kind, name)) {
    throw InputError(origin + ": duplicate preset name " + quote(name) + " (already defined by " + e->origin + ")");
  }
  texts_.push_back(std::make_unique<const std::string>(std::move(text)));
  entries_.push_back({kind, std::move(name), std::move(origin), builtin, *texts_.back(), {}, false});
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
    if (e.aliases_built) {
      any_line(e.built_aliases, [&](std::string_view a) {
        index.push_back({lower(a), std::string(a), &e});
        return false;
      });
      continue;
    }
    const std::string where = where_of(e);
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(e.text, only_aliases);
    } catch (const nlohmann::json::exception&) {
      j = parse_json_text(e.text, where);  // rethrows with the position and `where`
    }
    if (!j.is_object() || !j.contains("aliases") || j.at("aliases").is_null()) continue;
    const ObjectReader r(j, where, "");
    for (const std::string& a : r.strings("aliases")) index.push_back({lower(checked_alias(a, where)), a, &e});
  }
  // Every alias against every name and every earlier alias of its kind. Built-ins come first, so
  // a clash between a built-in and a user file always blames the user file.
  // By hash, not pairwise: an alias lookup (--gpu h100) builds this index on the way.
  std::unordered_map<std::string, const PresetEntry*> names;
  for (const PresetEntry& e : entries_) names.emplace(kind_key(e.kind, lower(e.name)), &e);
  std::unordered_map<std::string, std::size_t> first;
  for (std::size_t i = 0; i < index.size(); ++i) {
    const Alias& a = index[i];
    const PresetEntry& e = *a.owner;
    const std::string key = kind_key(e.kind, a.key);
    const auto name = names.find(key);
    if (const PresetEntry* named = name == names.end() ? nullptr : name->second) {
      if (named == &e) throw InputError(where_of(e) + ": /aliases: " + in_quotes(a.text) + " is the preset's own name");
      if (e.builtin && !named->builtin) {
        throw InputError(where_of(*named) + ": preset name " + in_quotes(named->name) + " is already an alias of " +
                         in_quotes(e.name) + " (" + e.origin + ")");
      }
      throw InputError(where_of(e) + ": /aliases: " + in_quotes(a.text) + " is already the name of preset " +
                       in_quotes(named->name) + " (" + named->origin + ")");
    }
    if (const auto [earlier, added] = first.emplace(key, i); !added) {
      const Alias& b = index[earlier->second];
      if (b.owner == &e) throw InputError(where_of(e) + ": /aliases: " + in_quotes(a.text) + " is listed twice");
      throw InputError(where_of(e) + ": /aliases: " + in_quotes(a.text) + " is already an alias of " +
                       in_quotes(b.owner->name) + " (" + b.owner->origin + ")");
    }
  }
  aliases_ = std::move(index);
  return *aliases_;
}

bool PresetRegistry::builtins_only() const {
  return std::all_of(entries_.begin(), entries_.end(), [](const PresetEntry& e) { return e.aliases_built; });
}

std::optional<PresetRegistry::Resolved> PresetRegistry::resolve(PresetKind kind, std::string_view spec) const {
  if (const PresetEntry* e = find(kind, spec)) return Resolved{e, false};
  // Built-ins alone: their aliases, read at build time, are scanned in place. Their clashes are
  // checked by alias_index, which every listing and the preset tests run; with preset files, the
  // index checks the files' aliases before any is used.
  if (builtins_only()) {
    for (const PresetEntry& e : entries_) {
      if (e.kind != kind) continue;
      if (any_line(e.built_aliases, [&](std::string_view a) { return iequal(a, spec); })) return Resolved{&e, true};
    }
    return std::nullopt;
  }
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

namespace {

// A preset's document: a built-in's text by the built-in reader (parse_builtin_json), a file's by
// the hardened one.
nlohmann::json read_entry(const PresetEntry& e, std::string_view where) {
  return e.builtin ? parse_builtin_json(e.text, where) : parse_json_text(e.text, where);
}

}  // namespace

ModelPreset PresetRegistry::parse_model(const PresetEntry& e) const {
  const std::string where = where_of(e);
  const nlohmann::json j = read_entry(e, where);
  ModelPreset p = model_from_json(j, where, e.name);
  // A bare config.json has no name: its file names it. A preset (one wrapping an "hf_config"
  // too) states its name, which must be its file's (N26).
  if (p.config.name != e.name && !is_hf_config(j)) {
    throw InputError(where + ": /name: " + quote(p.config.name) + " must equal the file name " + quote(e.name));
  }
  p.config.name = e.name;
  p.origin = e.origin;
  return p;
}

HardwareConfig PresetRegistry::parse_gpu(const PresetEntry& e) const {
  const std::string where = where_of(e);
  HardwareConfig h = hardware_from_json(read_entry(e, where), where);
  if (h.name != e.name) {
    throw InputError(where + ": /name: " + quote(h.name) + " must equal the file name " + quote(e.name));
  }
  return h;
}

SystemPreset PresetRegistry::parse_system(const PresetEntry& e) const {
  const std::string where = where_of(e);
  SystemPreset p = system_from_json(read_entry(e, where), where);
  if (p.topology.name != e.name) {
    throw InputError(where + ": /name: " + quote(p.topology.name) + " must equal the file name " + quote(e.name));
  }
  return p;
}

SystemPreset PresetRegistry::load_system(std::string_view spec) const {
  if (const PresetEntry* e = find(PresetKind::system, spec)) return parse_system(*e);
  if (!spec.ends_with(".json")) {
    if (auto r = resolve(PresetKind::system, spec)) return parse_system(*r->entry);
  }
  if (looks_like_path(spec) || names_a_file(spec)) {
    const std::string path(spec);
    const std::string where = display_path(path);
    SystemPreset p = system_from_json(parse_json_text(read_file(path), where), where);
    p.topology.source = TopologySource::preset;
    return p;
  }
  const std::string hint = unknown_hint(PresetKind::system, spec);
  throw InputError("--system: unknown preset " + quote(spec) +
                   (hint.empty() ? "; see `roofline systems --names`" : hint));
}

std::string PresetRegistry::unknown_hint(PresetKind kind, std::string_view spec) const {
  std::vector<PresetSpelling> spellings;
  for (const PresetEntry* e : entries(kind)) spellings.push_back({e->name, e->name});
  if (!builtins_only()) {
    for (const Alias& a : alias_index()) {
      if (a.owner->kind == kind) spellings.push_back({a.text, a.owner->name});
    }
    return suggest_preset(spec, spellings);
  }
  // Built-ins alone: their aliases in place, in the index's order, without building the index.
  for (const PresetEntry& e : entries_) {
    if (e.kind != kind) continue;
    any_line(e.built_aliases, [&](std::string_view a) {
      spellings.push_back({a, e.name});
      return false;
    });
  }
  return suggest_preset(spec, spellings);
}

namespace {

// A repo id of a fine-tune or a quantized upload, read as its base: the name's dash-separated words
// that name a tuning (Instruct, Chat, it), a date (2407, 20240620) or a storage format (FP8, AWQ,
// GPTQ, Int4, GGUF, ...) taken out. The formats the words name, for the weights as published.
struct BaseName {
  std::string base;                    ///< org/name without those words
  std::vector<std::string> dropped;    ///< as typed
  std::optional<WeightFormat> format;  ///< what an FP8 / AWQ / GPTQ word names
  bool gguf = false;                   ///< a GGUF upload: its files mix types per tensor
};

bool is_date_word(std::string_view w) {
  return (w.size() == 4 || w.size() == 6 || w.size() == 8) &&
         std::all_of(w.begin(), w.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<BaseName> base_name(std::string_view spec) {
  const std::size_t slash = spec.rfind('/');
  const std::string org(slash == std::string_view::npos ? std::string_view() : spec.substr(0, slash + 1));
  const std::string_view name = slash == std::string_view::npos ? spec : spec.substr(slash + 1);
  BaseName b;
  std::vector<std::string> kept;
  bool int8 = false;
  bool gptq = false;
  std::size_t begin = 0;
  while (begin <= name.size()) {
    const std::size_t end = std::min(name.find('-', begin), name.size());
    const std::string word(name.substr(begin, end - begin));
    const std::string w = lower(word);
    const bool tuning = w == "instruct" || w == "chat" || w == "it" || w == "hf";
    const bool storage = w == "fp8" || w == "awq" || w == "gptq" || w == "int4" || w == "int8" || w == "gguf" ||
                         w == "dynamic" || w == "bf16";
    if (!kept.empty() && (tuning || storage || is_date_word(w))) {
      b.dropped.push_back(word);
      if (w == "fp8") b.format = plain_weight_format(DType::fp8);
      if (w == "awq") b.format = named_weight_format("awq-g128");
      gptq = gptq || w == "gptq";
      int8 = int8 || w == "int8";
      b.gguf = b.gguf || w == "gguf";
    } else {
      kept.push_back(word);
    }
    begin = end + 1;
  }
  if (gptq) b.format = named_weight_format(int8 ? "gptq-int8-g128" : "gptq-g128");
  if (b.dropped.empty() || kept.empty()) return std::nullopt;
  b.base = org;
  for (std::size_t i = 0; i < kept.size(); ++i) b.base += (i > 0 ? "-" : "") + kept[i];
  return b;
}

}  // namespace

namespace {

// NVIDIA ModelOpt's hf_quant_config.json beside a checkpoint: quant_algo FP8 or NVFP4 on the
// blocks' matrices (exclude_modules keeps lm_head and others in the float type).
std::optional<WeightFormat> modelopt_format(const fs::path& dir, std::vector<std::string>& notes) {
  const fs::path p = dir / "hf_quant_config.json";
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return std::nullopt;
  const nlohmann::json j = parse_json_text(read_file(p.string()), display_path(p.string()));
  const nlohmann::json* q = j.is_object() && j.contains("quantization") ? &j["quantization"] : nullptr;
  const std::string algo = q != nullptr && q->is_object() ? q->value("quant_algo", "") : "";
  if (algo == "FP8") return plain_weight_format(DType::fp8);
  if (algo == "NVFP4") return named_weight_format("nvfp4");
  notes.push_back("hf_quant_config.json quant_algo " + quote(algo) +
                  " is not a format roofline reads: the weights are sized as config.json says");
  return std::nullopt;
}

}  // namespace

ModelPreset PresetRegistry::load_checkpoint(const std::string& dir, std::string_view label,
                                            const std::string& one_file) const {
  const fs::path config = fs::path(dir) / "config.json";
  std::error_code ec;
  if (!fs::is_regular_file(config, ec)) {
    throw InputError(display_path(dir) + ": a checkpoint directory needs its config.json; none is there");
  }
  const std::string where = display_path(config.string());
  ModelPreset p =
      model_from_json(parse_json_text(read_file(config.string()), where), where, escape(std::string(label)));
  p.origin = display_path(dir);
  if (one_file.empty()) {
    p.stored = read_checkpoint_dir(dir);
    if (!p.stored)
      p.checkpoint_notes.emplace_back("no safetensors files beside config.json: nothing stored to compare");
  } else {
    StoredCheckpoint one;
    one.path = display_path(one_file);
    read_safetensors_header(one_file, one);
    p.stored = one;
    if (fs::exists(fs::path(dir) / "model.safetensors.index.json", ec)) {
      p.checkpoint_notes.push_back("one shard of a checkpoint whose index names more: the stored counts are " +
                                   display_path(one_file) + "'s alone (pass the directory for all of them)");
    }
  }
  if (std::optional<WeightFormat> f = modelopt_format(dir, p.checkpoint_notes)) {
    WeightLayout l = p.config.published_weights.value_or(WeightLayout::all(plain_weight_format(DType::bf16)));
    for (WeightClass k :
         {WeightClass::attention, WeightClass::ffn, WeightClass::experts, WeightClass::shared_experts}) {
      l.set(k, *f);
    }
    p.config.published_weights = l;
  }
  return p;
}

std::optional<ModelPreset> PresetRegistry::load_variant(std::string_view spec) const {
  const std::optional<BaseName> b = base_name(spec);
  if (!b) return std::nullopt;
  std::optional<Resolved> r = resolve(PresetKind::model, b->base);
  const std::size_t slash = b->base.rfind('/');
  if (!r && slash != std::string::npos) r = resolve(PresetKind::model, std::string_view(b->base).substr(slash + 1));
  if (!r) return std::nullopt;
  ModelPreset p = parse_model(*r->entry);
  std::string words;
  for (const std::string& w : b->dropped) words += (words.empty() ? "-" : ", -") + w;
  p.resolution_notes.push_back("MODEL " + std::string(spec) + " read as " + p.config.name + " (" + b->base +
                               "): the words " + words +
                               " name a fine-tune, a date or a storage format of the same architecture");
  if (b->format) {
    WeightLayout l = p.config.published_weights.value_or(WeightLayout::all(plain_weight_format(DType::bf16)));
    for (WeightClass k :
         {WeightClass::attention, WeightClass::ffn, WeightClass::experts, WeightClass::shared_experts}) {
      l.set(k, *b->format);
    }
    p.config.published_weights = l;
    p.resolution_notes.push_back("weights as the name says: " + std::string(b->format->name) +
                                 " matrices in the blocks, the embedding, head, router and norms as the base "
                                 "checkpoint stores them (--weight-format gives another)");
  }
  if (b->gguf) {
    p.resolution_notes.emplace_back(
        "a GGUF upload holds one file per quantization type, each mixing types per tensor: the weights are sized "
        "as the base checkpoint stores them; --weight-format q4_k (or another) gives a file's");
  }
  return p;
}

std::optional<ModelPreset> PresetRegistry::load_cached(std::string_view spec) const {
  if (std::count(spec.begin(), spec.end(), '/') != 1 || spec.ends_with(".json") || names_a_file(spec)) {
    return std::nullopt;
  }
  // A snapshot without its config.json (a partial download) leaves the name to the presets.
  std::error_code cfg;
  const std::optional<std::string> snap = hf_cache_snapshot(spec);
  if (!snap || !fs::is_regular_file(fs::path(*snap) / "config.json", cfg)) return std::nullopt;
  ModelPreset p = load_checkpoint(*snap, spec.substr(spec.find('/') + 1));
  p.resolution_notes.push_back("MODEL " + std::string(spec) +
                               " read from the Hugging Face cache: " + display_path(*snap));
  return p;
}

ModelPreset PresetRegistry::load_model(std::string_view spec, std::istream& in) const {
  if (spec == "-") {
    const std::string text = read_stream(in, "<stdin>");
    ModelPreset p = model_from_json(parse_json_text(text, "<stdin>"), "<stdin>", "stdin");
    p.origin = "stdin";
    return p;
  }
  // A repo id in the local Hugging Face cache, before the presets (nothing touches the network).
  if (std::optional<ModelPreset> cached = load_cached(spec)) return std::move(*cached);
  // Names and aliases before paths: an HF repo id such as meta-llama/Meta-Llama-3-8B has a '/'.
  if (const PresetEntry* e = find(PresetKind::model, spec)) return parse_model(*e);
  if (!spec.ends_with(".json")) {
    if (auto r = resolve(PresetKind::model, spec)) return parse_model(*r->entry);
  }
  // A checkpoint directory, or one safetensors file of one (its config.json beside it).
  std::error_code ec;
  if (fs::is_directory(fs::path(spec), ec))
    return load_checkpoint(std::string(spec), fs::path(spec).filename().string());
  if (spec.ends_with(".safetensors") && fs::is_regular_file(fs::path(spec), ec)) {
    const fs::path dir = fs::path(spec).parent_path().empty() ? fs::path(".") : fs::path(spec).parent_path();
    ModelPreset p = load_checkpoint(dir.string(), fs::path(spec).stem().string(), std::string(spec));
    p.origin = display_path(spec);
    return p;
  }
  if (!spec.ends_with(".json") && !names_a_file(spec)) {
    if (std::optional<ModelPreset> v = load_variant(spec)) return std::move(*v);
  }
  // An org/name that is no preset, alias or file: a repo id roofline does not know.
  if (!spec.ends_with(".json") && !names_a_file(spec) && std::count(spec.begin(), spec.end(), '/') == 1 &&
      spec.front() != '/' && spec.front() != '.') {
    const std::string hint = unknown_hint(PresetKind::model, spec.substr(spec.find('/') + 1));
    throw InputError("MODEL: " + quote(spec) +
                     " is no preset, alias or file; roofline looked in the local Hugging Face cache, in its presets "
                     "and their aliases (with -Instruct, -it, -FP8, -AWQ, ... taken out) and for a file of that path" +
                     (hint.empty() ? "; see `roofline models --names`" : hint));
  }
  if (looks_like_path(spec) || names_a_file(spec)) {
    const std::string path(spec);
    const std::string where = display_path(path);
    std::string stem = fs::path(path).filename().string();
    if (stem.ends_with(".json")) stem.resize(stem.size() - 5);
    if (!names_a_file(path) && find(PresetKind::model, stem) != nullptr) {
      throw InputError(where + ": cannot open file: No such file or directory; did you mean the preset " + quote(stem) +
                       "?");
    }
    // The file name becomes the model's label in every output: printable text only (R12, R15).
    ModelPreset p = model_from_json(parse_json_text(read_file(path), where), where, escape(stem));
    p.origin = where;
    return p;
  }
  const std::string hint = unknown_hint(PresetKind::model, spec);
  throw InputError("MODEL: unknown preset " + quote(spec) +
                   (hint.empty() ? "; see `roofline models --names`, or pass a config.json path" : hint));
}

HardwareConfig PresetRegistry::load_gpu(std::string_view spec) const {
  if (const PresetEntry* e = find(PresetKind::gpu, spec)) return parse_gpu(*e);
  if (!spec.ends_with(".json")) {
    if (auto r = resolve(PresetKind::gpu, spec)) return parse_gpu(*r->entry);
  }
  if (looks_like_path(spec) || names_a_file(spec)) {
    const std::string path(spec);
    const std::string where = display_path(path);
    return hardware_from_json(parse_json_text(read_file(path), where), where);
  }
  const std::string hint = unknown_hint(PresetKind::gpu, spec);
  throw InputError("--gpu: unknown preset " + quote(spec) + (hint.empty() ? "; see `roofline gpus --names`" : hint));
}

namespace {

std::size_t length_gap(std::string_view a, std::string_view b) {
  return a.size() > b.size() ? a.size() - b.size() : b.size() - a.size();
}

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

// The next number of a name from `pos` on (digits with inner dots), or "" at the end:
// "qwen2.5-0.5b" gives "2.5", then "0.5". Two spellings of one model carry the same numbers; a
// different size or version changes them.
std::string_view next_number(std::string_view s, std::size_t& pos) {
  while (pos < s.size() && !is_digit(s[pos])) ++pos;
  const std::size_t start = pos;
  while (pos < s.size() && (is_digit(s[pos]) || (s[pos] == '.' && pos + 1 < s.size() && is_digit(s[pos + 1])))) ++pos;
  return s.substr(start, pos - start);
}

// Whether two names carry the same numbers in the same order (no allocation: this runs for every
// spelling of every preset on each unknown name).
bool same_numbers(std::string_view a, std::string_view b) {
  std::size_t i = 0;
  std::size_t j = 0;
  while (true) {
    const std::string_view x = next_number(a, i);
    if (x != next_number(b, j)) return false;
    if (x.empty()) return true;
  }
}

// Whether `s`, lower-cased, starts with `prefix` (already lower case).
bool lower_starts_with(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[i])) != static_cast<unsigned char>(prefix[i])) return false;
  }
  return true;
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
    if (lower_starts_with(s.text, w)) extended.emplace_back(s.name);
  }
  std::sort(extended.begin(), extended.end());
  extended.erase(std::unique(extended.begin(), extended.end()), extended.end());
  if (extended.size() == 1) return "; did you mean \"" + extended.front() + "\"?";
  if (extended.size() > 1) return "; did you mean one of: " + name_list(extended) + "?";
  // 2. A near spelling with the same numbers: a typo, never another size or version.
  std::string t;  // each spelling lower-cased, in one buffer
  std::string_view best;
  std::size_t best_d = (w.size() <= 3 ? 1 : w.size() / 3) + 1;
  for (const PresetSpelling& s : spellings) {
    if (!same_numbers(s.text, w)) continue;  // digits and dots have no case
    const bool prefix = w.starts_with(lower_into(t, s.text));
    if (!prefix && length_gap(w, t) >= best_d) continue;  // the distance is at least the gap
    const std::size_t d = prefix ? 0 : edit_distance(w, t);
    if (d < best_d) {
      best_d = d;
      best = s.name;
    }
  }
  if (!best.empty()) return "; did you mean " + quote(best) + "?";
  // 3. Another size of a known family: list the family rather than pick one.
  const std::string family = family_of(w);
  if (family.empty()) return "";
  std::vector<std::string> members;
  for (const PresetSpelling& s : spellings) {
    if (s.text == s.name && family_of(lower_into(t, s.name)) == family) members.emplace_back(s.name);
  }
  if (members.empty()) return "";
  return "; presets of this family: " + name_list(members);
}

std::string did_you_mean(std::string_view wrong, const std::vector<std::string>& candidates) {
  // Levenshtein distance with a budget that grows with the word, as ninja's spellcheck does.
  // A name the user started typing beats any edit; short words allow one edit, longer a third.
  // Of several names the user started typing, the nearest in length (--zer: --zero, not
  // --zero-expert-share).
  std::string best;
  std::size_t best_d = (wrong.size() <= 3 ? 1 : wrong.size() / 3) + 1;
  std::size_t best_gap = 0;
  for (const std::string& c : candidates) {
    const bool prefix = !wrong.empty() && (c.starts_with(wrong) || wrong.starts_with(c));
    // The distance is at least the difference in length: a 1,000-byte typo costs no table.
    if (!prefix && length_gap(wrong, c) >= best_d) continue;
    const std::size_t d = prefix ? 0 : edit_distance(wrong, c);
    const std::size_t gap = length_gap(wrong, c);
    if (d < best_d || (d == 0 && best_d == 0 && gap < best_gap)) {
      best_d = d;
      best_gap = gap;
      best = c;
    }
  }
  return best;
}

}  // namespace roofline::io
