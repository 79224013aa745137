// Preset directories: the bytes are up to 6 entries separated by "\n\n", each a header line and a
// content: the header's first byte says where and what (bit 0: models/ or gpus/; bits 1-2: a
// regular file, a directory, a FIFO, or a symlink to the entry before it; bit 3: no ".json"
// appended), the rest of the line is the file name (no '/', as a directory entry holds). They are
// written into a temporary directory made once per process, then `roofline --preset-dir DIR models
// --names`, `gpus --names` and `params NAME` (the first models/ entry's stem, else the first name
// listed) run through run_cli. Checks, beyond the CLI contract: both listings build the same
// registry, so they fail alike (same exit code and message) or both list; a listing names only
// preset names (io::is_preset_name, what the completion scripts match literally) and every regular
// *.json entry of the directory; nothing in the directory changes; and no run blocks (a FIFO, a
// symlink loop: libFuzzer's -timeout makes a hang a finding).
#include "io/preset_registry.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>
#include <vector>

#include "fuzz_common.hpp"

namespace {

using roofline::fuzz::finding;
namespace fs = std::filesystem;

// What the directory holds: each entry's path (relative), type and size, the target of a link.
std::map<std::string, std::string> snapshot(const std::string& dir) {
  std::map<std::string, std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    struct stat st {};
    if (lstat(it->path().c_str(), &st) != 0) continue;
    std::string what = std::to_string(st.st_mode) + " " + std::to_string(st.st_size) + " " +
                       std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
    if (S_ISLNK(st.st_mode)) what += " -> " + fs::read_symlink(it->path(), ec).string();
    out[it->path().string()] = what;
  }
  return out;
}

bool write_file(const std::string& path, std::string_view content) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  std::fwrite(content.data(), 1, content.size(), f);
  std::fclose(f);
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const roofline::fuzz::TempDir temp("dir");
  const std::string& dir = temp.dir;
  std::error_code ec;
  fs::remove_all(dir + "/models", ec);
  fs::remove_all(dir + "/gpus", ec);
  if (mkdir((dir + "/models").c_str(), 0700) != 0 || mkdir((dir + "/gpus").c_str(), 0700) != 0) {
    finding("preset dir", "mkdir failed");
  }

  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> listed_models;  // regular *.json entries, by stem
  std::vector<std::string> listed_gpus;
  std::string first_model;
  std::string previous;  // the path of the entry before, for a symlink
  for (std::size_t at = 0, n = 0; at < bytes.size() && n < 6; ++n) {
    std::size_t end = bytes.find("\n\n", at);
    if (end == std::string_view::npos) end = bytes.size();
    const std::string_view entry = bytes.substr(at, end - at);
    at = end + 2;
    const std::size_t eol = entry.find('\n');
    const std::string_view header = entry.substr(0, eol);
    const std::string_view content = eol == std::string_view::npos ? std::string_view() : entry.substr(eol + 1);
    if (header.empty()) continue;
    const auto how = static_cast<unsigned char>(header[0]);
    std::string name(header.substr(1));
    if (name.empty() || name.find('/') != std::string::npos || name.find('\0') != std::string::npos) continue;
    const bool model = (how & 1) == 0;
    const int type = (how >> 1) & 3;  // 0 file, 1 directory, 2 FIFO, 3 symlink
    if ((how & 8) == 0) name += ".json";
    if (name == "." || name == "..") continue;
    const std::string path = dir + (model ? "/models/" : "/gpus/") + name;
    // A name given twice keeps its first entry: opening a FIFO made before to write would block.
    struct stat st {};
    if (lstat(path.c_str(), &st) == 0) continue;
    bool made = false;
    if (type == 0) {
      made = write_file(path, content);
    } else if (type == 1) {
      made = mkdir(path.c_str(), 0700) == 0;
    } else if (type == 2) {
      made = mkfifo(path.c_str(), 0600) == 0;
    } else {
      // Inside the directory only: the entry before, or (first) a link to itself, a loop.
      made = symlink(previous.empty() ? path.c_str() : previous.c_str(), path.c_str()) == 0;
    }
    if (!made) continue;  // a name the file system refuses (too long)
    previous = path;
    if (type == 0 && name.size() > 5 && name.ends_with(".json")) {
      const std::string stem = name.substr(0, name.size() - 5);
      (model ? listed_models : listed_gpus).push_back(stem);
      if (model && first_model.empty()) first_model = stem;
    }
  }

  const auto before = snapshot(dir);
  const std::string input(bytes);
  const roofline::fuzz::CliRun models =
      roofline::fuzz::run_cli_sandboxed({"--preset-dir", dir, "models", "--names"}, "");
  const roofline::fuzz::CliRun gpus = roofline::fuzz::run_cli_sandboxed({"--preset-dir", dir, "gpus", "--names"}, "");
  roofline::fuzz::check_contract(models, input);
  roofline::fuzz::check_contract(gpus, input);
  const std::string all = "--- models --names: exit " + std::to_string(models.code) + "\n" + models.out + models.err +
                          "--- gpus --names: exit " + std::to_string(gpus.code) + "\n" + gpus.out + gpus.err;
  if (models.code != gpus.code || models.err != gpus.err) finding("models and gpus build different registries", all);
  if (models.code != 0 && models.code != 1) finding("a listing exits with neither 0 nor 1", all);
  for (const auto& [run, stems] : {std::pair{&models, &listed_models}, std::pair{&gpus, &listed_gpus}}) {
    if (run->code != 0) continue;
    std::vector<std::string> names;
    for (std::size_t at = 0; at < run->out.size();) {
      const std::size_t end = run->out.find('\n', at);
      if (end == std::string::npos) finding("a listing does not end with a newline", all);
      names.push_back(run->out.substr(at, end - at));
      if (!roofline::io::is_preset_name(names.back())) finding("a listing names a preset outside the rule", all);
      at = end + 1;
    }
    for (const std::string& stem : *stems) {
      if (std::find(names.begin(), names.end(), stem) == names.end()) {
        finding("a preset file of the directory is not listed: " + stem, all);
      }
    }
  }
  std::string name = first_model;
  if (name.empty() && models.code == 0) name = models.out.substr(0, models.out.find('\n'));
  // A stem that CLI11 would take for a flag (--help, -q) is not a model name to ask about.
  if (!name.empty() && name[0] != '-' && roofline::fuzz::args_allowed({name})) {
    const roofline::fuzz::CliRun params = roofline::fuzz::run_cli_sandboxed({"--preset-dir", dir, "params", name}, "");
    roofline::fuzz::check_contract(params, input);
    if (models.code != 0 && params.code == 0) finding("params runs on a registry the listing refused", all);
  }
  if (snapshot(dir) != before) finding("a run changed the preset directory", all);
  return 0;
}
