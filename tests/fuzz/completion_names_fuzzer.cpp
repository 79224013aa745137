// The names the shell completion scripts see: the bytes are a candidate preset file stem (and, the
// same bytes, an alias). Checks: io::is_preset_name and io::is_preset_alias agree with the rule
// reimplemented here (ASCII letters, digits, . _ + -, a letter or digit first, at most 100 bytes; an
// alias is a name or two joined by one '/'); an accepted name is one shell word that needs no
// quoting (none of the shells' metacharacters, blanks, glob or quote characters, '$', '`', ','); and
// a preset directory holding models/<stem>.json makes `roofline --preset-dir DIR models --names`
// either refuse the stem with the one-line message naming the rule, or list it byte-identical
// (refused as a duplicate only when it is a built-in's name or alias). The preset directory is made
// once per process under /tmp and reused; the one file is removed after every run.
#include "io/preset_registry.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <set>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_common.hpp"

namespace {

using roofline::fuzz::finding;
namespace io = roofline::io;

// The rule of docs/presets.md, written again from the text rather than from the code.
bool reference_name(std::string_view s) {
  if (s.empty() || s.size() > 100) return false;
  const auto alnum = [](unsigned char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  };
  if (!alnum(static_cast<unsigned char>(s[0]))) return false;
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (!alnum(c) && c != '.' && c != '_' && c != '+' && c != '-') return false;
  }
  return true;
}

bool reference_alias(std::string_view s) {
  const std::size_t slash = s.find('/');
  if (slash == std::string_view::npos) return reference_name(s);
  const std::string_view rest = s.substr(slash + 1);
  return rest.find('/') == std::string_view::npos && reference_name(s.substr(0, slash)) && reference_name(rest);
}

// A byte that bash, zsh or fish would split, expand, glob or quote on, or that would end a comma
// list of names; and every control byte and every byte outside ASCII.
bool shell_special(unsigned char c) {
  constexpr std::string_view kSpecial = " \t\n\r\v\f|&;<>()$`\\\"'*?[]{}#~=%!^,:@";
  return c < 0x20 || c >= 0x7f || kSpecial.find(static_cast<char>(c)) != std::string_view::npos;
}

std::string lowered(std::string_view s) {
  std::string l(s);
  for (char& c : l) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return l;
}

// The preset directory, made once: DIR/models/ and DIR/gpus/ (empty), removed at exit.
struct PresetDir {
  std::string dir;
  PresetDir() {
    std::array<char, 64> templ{};
    std::snprintf(templ.data(), templ.size(), "/tmp/roofline-fuzz-names-XXXXXX");
    if (mkdtemp(templ.data()) == nullptr) finding("preset dir", "mkdtemp failed");
    dir = templ.data();
    if (mkdir((dir + "/models").c_str(), 0700) != 0 || mkdir((dir + "/gpus").c_str(), 0700) != 0) {
      finding("preset dir", "mkdir failed");
    }
  }
  ~PresetDir() {
    rmdir((dir + "/models").c_str());
    rmdir((dir + "/gpus").c_str());
    rmdir(dir.c_str());
  }
  PresetDir(const PresetDir&) = delete;
  PresetDir& operator=(const PresetDir&) = delete;
  PresetDir(PresetDir&&) = delete;
  PresetDir& operator=(PresetDir&&) = delete;
};

// The built-in model names and aliases, lower-cased: a user stem equal to one is a duplicate.
struct Builtins {
  std::set<std::string> names;
  std::set<std::string> aliases;
  Builtins() {
    const io::PresetRegistry reg({});
    for (const io::PresetEntry* e : reg.entries(io::PresetKind::model)) {
      names.insert(lowered(e->name));
      for (const std::string& a : reg.aliases(*e)) aliases.insert(lowered(a));
    }
  }
};

void check_listing(const std::string& stem, const std::string& dir) {
  static const Builtins builtins;
  const std::string path = dir + "/models/" + stem + ".json";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return;  // a name the file system refuses (too long): nothing to list
  std::fputs("{\"source\":\"fuzz\"}", f);
  std::fclose(f);
  const roofline::fuzz::CliRun r = roofline::fuzz::run_cli_sandboxed({"--preset-dir", dir, "models", "--names"}, "");
  if (std::remove(path.c_str()) != 0) finding("preset dir", "cannot remove " + path);
  roofline::fuzz::check_contract(r, stem);
  const std::string all =
      "stem \"" + stem + "\"\nexit " + std::to_string(r.code) + "\n--- stdout\n" + r.out + "\n--- stderr\n" + r.err;
  const bool one_error_line = r.err.starts_with("roofline: error: ") && r.err.find('\n') == r.err.size() - 1;
  if (!reference_name(stem)) {
    if (r.code != 1 || !one_error_line || r.err.find(" is not a preset name; ") == std::string::npos ||
        r.err.find(io::kPresetNameRule) == std::string::npos) {
      finding("a stem that is not a preset name is not refused with the one-line rule", all);
    }
    return;
  }
  const std::string key = lowered(stem);
  if (builtins.names.count(key) != 0 || builtins.aliases.count(key) != 0) {
    const bool said = r.err.find("duplicate preset name") != std::string::npos ||
                      r.err.find("is already an alias of") != std::string::npos;
    if (r.code != 1 || !one_error_line || !said) finding("a built-in's name as a stem is not refused as such", all);
    return;
  }
  if (r.code != 0 || !r.err.empty()) finding("a preset name is refused", all);
  std::size_t seen = 0;
  for (std::size_t at = 0; at < r.out.size();) {
    const std::size_t end = r.out.find('\n', at);
    if (end == std::string::npos) finding("models --names does not end with a newline", all);
    const std::string_view line = std::string_view(r.out).substr(at, end - at);
    if (!reference_name(line)) finding("models --names lists a name outside the rule", all);
    seen += line == stem ? 1 : 0;
    at = end + 1;
  }
  if (seen != 1) finding("models --names does not list the stem exactly once, byte for byte", all);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const PresetDir preset_dir;
  const std::string s(reinterpret_cast<const char*>(data), size);
  const bool name = io::is_preset_name(s);
  if (name != reference_name(s))
    finding(name ? "is_preset_name accepts outside the rule" : "is_preset_name refuses a name", s);
  const bool alias = io::is_preset_alias(s);
  if (alias != reference_alias(s)) {
    finding(alias ? "is_preset_alias accepts outside the rule" : "is_preset_alias refuses an alias", s);
  }
  if (name) {
    for (char c : s) {
      if (shell_special(static_cast<unsigned char>(c))) finding("a preset name needs quoting in a shell", s);
    }
  }
  if (alias) {
    for (char c : s) {
      if (c != '/' && shell_special(static_cast<unsigned char>(c))) finding("an alias needs quoting in a shell", s);
    }
  }
  // A stem the file system can hold: no '/', no NUL, not empty (".json" has no stem).
  if (s.empty() || s.find('/') != std::string::npos || s.find('\0') != std::string::npos) return 0;
  check_listing(s, preset_dir.dir);
  return 0;
}
