#include "io/checkpoint.hpp"

#include "io/preset_registry.hpp"
#include "io/text.hpp"

#include "roofline/checked.hpp"
#include "roofline/errors.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <utility>
#include <vector>

namespace fs = std::filesystem;

namespace roofline::io {

namespace {

// Bytes per element of the safetensors dtypes (safetensors' format description; F8_* are FP8).
std::optional<std::int64_t> element_bytes(std::string_view dtype) {
  constexpr std::array<std::pair<std::string_view, std::int64_t>, 16> sizes = {{{"F64", 8},
                                                                                {"F32", 4},
                                                                                {"F16", 2},
                                                                                {"BF16", 2},
                                                                                {"F8_E4M3", 1},
                                                                                {"F8_E5M2", 1},
                                                                                {"F8_E8M0", 1},
                                                                                {"I64", 8},
                                                                                {"I32", 4},
                                                                                {"I16", 2},
                                                                                {"I8", 1},
                                                                                {"U64", 8},
                                                                                {"U32", 4},
                                                                                {"U16", 2},
                                                                                {"U8", 1},
                                                                                {"BOOL", 1}}};
  for (const auto& [name, n] : sizes) {
    if (name == dtype) return n;
  }
  return std::nullopt;
}

// The largest header read: safetensors caps it at 100 MB.
constexpr std::uint64_t kMaxHeader = 100'000'000;

void add(StoredCheckpoint& into, const std::string& dtype, std::int64_t elements, std::int64_t bytes) {
  into.tensors = checked_add(into.tensors, std::int64_t{1});
  into.elements = checked_add(into.elements, elements);
  into.bytes = checked_add(into.bytes, bytes);
  auto it =
      std::find_if(into.by_dtype.begin(), into.by_dtype.end(), [&](const StoredDtype& d) { return d.dtype == dtype; });
  if (it == into.by_dtype.end()) {
    into.by_dtype.push_back({dtype, 0, 0, 0});
    it = into.by_dtype.end() - 1;
  }
  it->tensors += 1;
  it->elements = checked_add(it->elements, elements);
  it->bytes = checked_add(it->bytes, bytes);
}

std::string file_error(const std::string& path, const std::string& what) { return display_path(path) + ": " + what; }

// The format leaves no byte of the data buffer unindexed and none indexed twice: sorted, the
// tensors' offsets tile [0, data).
void check_tiled(const std::string& path, std::vector<std::pair<std::uint64_t, std::uint64_t>>& spans,
                 std::uint64_t data) {
  std::sort(spans.begin(), spans.end());
  std::uint64_t at = 0;
  for (const auto& [begin, end] : spans) {
    if (begin < at)
      throw InputError(file_error(path, "two tensors' data_offsets overlap at byte " + std::to_string(begin)));
    if (begin > at) {
      throw InputError(file_error(
          path, "no tensor's data_offsets cover bytes " + std::to_string(at) + " to " + std::to_string(begin)));
    }
    at = end;
  }
  if (at != data) {
    throw InputError(file_error(path, "no tensor's data_offsets cover the data's last " + std::to_string(data - at) +
                                          " bytes (from byte " + std::to_string(at) + ")"));
  }
}

}  // namespace

void read_safetensors_header(const std::string& path, StoredCheckpoint& into) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError(file_error(path, "cannot open file"));
  std::array<char, 8> len{};
  f.read(len.data(), 8);
  if (f.gcount() != 8)
    throw InputError(file_error(path, "not a safetensors file: shorter than its 8-byte header length"));
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < 8; ++i) n |= static_cast<std::uint64_t>(static_cast<unsigned char>(len[i])) << (8 * i);
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) throw InputError(file_error(path, "cannot read its size"));
  if (n == 0 || n > kMaxHeader || n > size - 8) {
    throw InputError(file_error(path, "not a safetensors file: a header of " + std::to_string(n) +
                                          " bytes (at most 100,000,000 and within the file)"));
  }
  std::string text(static_cast<std::size_t>(n), '\0');
  f.read(text.data(), static_cast<std::streamsize>(n));
  if (static_cast<std::uint64_t>(f.gcount()) != n) throw InputError(file_error(path, "its header is cut short"));
  const nlohmann::json h = parse_json_text(text, display_path(path));
  if (!h.is_object()) throw InputError(file_error(path, "its header is not a JSON object"));
  const std::uint64_t data = size - 8 - n;
  into.files += 1;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;
  spans.reserve(h.size());
  for (const auto& item : h.items()) {
    const std::string& name = item.key();
    const nlohmann::json& t = item.value();
    if (name == "__metadata__") continue;
    const auto bad = [&](const std::string& what) { return InputError(file_error(path, quote(name) + ": " + what)); };
    if (!t.is_object() || !t.contains("dtype") || !t["dtype"].is_string() || !t.contains("shape") ||
        !t["shape"].is_array() || !t.contains("data_offsets") || !t["data_offsets"].is_array() ||
        t["data_offsets"].size() != 2) {
      throw bad("expected {\"dtype\", \"shape\", \"data_offsets\": [begin, end]}");
    }
    const std::string dtype = t["dtype"].get<std::string>();
    std::int64_t elements = 1;
    for (const nlohmann::json& d : t["shape"]) {
      if (!d.is_number_unsigned() || d.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) {
        throw bad("a shape holds integers from 0 to 2^63-1");
      }
      elements = checked_mul(elements, d.get<std::int64_t>());
    }
    const nlohmann::json& o = t["data_offsets"];
    if (!o[0].is_number_unsigned() || !o[1].is_number_unsigned() ||
        o[0].get<std::uint64_t>() > o[1].get<std::uint64_t>() || o[1].get<std::uint64_t>() > data) {
      throw bad("data_offsets must be 0 <= begin <= end <= the data's " + std::to_string(data) + " bytes");
    }
    const auto bytes = static_cast<std::int64_t>(o[1].get<std::uint64_t>() - o[0].get<std::uint64_t>());
    const std::optional<std::int64_t> per = element_bytes(dtype);
    if (per && checked_mul(*per, elements) != bytes) {
      throw bad(std::to_string(elements) + " " + dtype + " elements take " + std::to_string(*per * elements) +
                " bytes, data_offsets " + std::to_string(bytes));
    }
    spans.emplace_back(o[0].get<std::uint64_t>(), o[1].get<std::uint64_t>());
    add(into, dtype, elements, bytes);
  }
  check_tiled(path, spans, data);
}

std::optional<StoredCheckpoint> read_checkpoint_dir(const std::string& dir) {
  StoredCheckpoint s;
  s.path = display_path(dir);
  std::set<std::string> files;
  const fs::path index = fs::path(dir) / "model.safetensors.index.json";
  std::error_code ec;
  if (fs::exists(index, ec)) {
    const nlohmann::json j = parse_json_text(read_file(index.string()), display_path(index.string()));
    if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object()) {
      throw InputError(display_path(index.string()) + ": expected a \"weight_map\" object of tensor: file");
    }
    for (const auto& [tensor, file] : j["weight_map"].items()) {
      if (!file.is_string())
        throw InputError(display_path(index.string()) + ": weight_map " + quote(tensor) + " is not a file name");
      const std::string name = file.get<std::string>();
      if (name.find('/') != std::string::npos || name.find("..") != std::string::npos) {
        throw InputError(display_path(index.string()) + ": weight_map names " + quote(name) +
                         ", not a file of the directory");
      }
      files.insert(name);
    }
  } else {
    for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
      if (e.path().extension() == ".safetensors" && e.is_regular_file(ec)) files.insert(e.path().filename().string());
    }
    if (ec) throw InputError(display_path(dir) + ": cannot list the directory");
  }
  if (files.empty()) return std::nullopt;
  for (const std::string& f : files) read_safetensors_header((fs::path(dir) / f).string(), s);
  return s;
}

std::optional<std::string> hf_cache_snapshot(std::string_view repo_id) {
  std::string repo(repo_id);
  std::string revision = "main";
  if (const std::size_t at = repo.find('@'); at != std::string::npos) {
    revision = repo.substr(at + 1);
    repo.resize(at);
  }
  const std::size_t slash = repo.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == repo.size() ||
      repo.find('/', slash + 1) != std::string::npos || repo.find("..") != std::string::npos || revision.empty() ||
      revision.find('/') != std::string::npos || revision.find("..") != std::string::npos) {
    return std::nullopt;
  }
  fs::path cache;
  if (const char* c = std::getenv("HF_HUB_CACHE"); c != nullptr && *c != '\0') {
    cache = c;
  } else if (const char* h = std::getenv("HF_HOME"); h != nullptr && *h != '\0') {
    cache = fs::path(h) / "hub";
  } else if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    cache = fs::path(home) / ".cache" / "huggingface" / "hub";
  } else {
    return std::nullopt;
  }
  const fs::path root = cache / ("models--" + repo.substr(0, slash) + "--" + repo.substr(slash + 1));
  std::error_code ec;
  if (!fs::is_directory(root / "snapshots", ec)) return std::nullopt;
  // refs/<name> holds a commit hash; a revision that is a hash names its snapshot directly.
  std::string commit = revision;
  const fs::path ref = root / "refs" / revision;
  if (fs::is_regular_file(ref, ec)) {
    std::ifstream r(ref);
    std::getline(r, commit);
  }
  if (!commit.empty() && commit.find('/') == std::string::npos && fs::is_directory(root / "snapshots" / commit, ec)) {
    return (root / "snapshots" / commit).string();
  }
  if (revision != "main") return std::nullopt;  // an @revision that the cache does not hold
  // No refs/main: the newest snapshot.
  std::optional<fs::path> newest;
  fs::file_time_type when{};
  for (const fs::directory_entry& e : fs::directory_iterator(root / "snapshots", ec)) {
    if (!e.is_directory(ec)) continue;
    const fs::file_time_type t = e.last_write_time(ec);
    if (!newest || t > when) {
      newest = e.path();
      when = t;
    }
  }
  return newest ? std::optional<std::string>(newest->string()) : std::nullopt;
}

}  // namespace roofline::io
