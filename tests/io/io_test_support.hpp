// Helpers shared by the io tests: fixture paths, the published-*.tsv tables, temp directories.
#pragma once

#include "io/preset_json.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace roofline_test {

inline std::string source_path(const std::string& rel) { return std::string(ROOFLINE_SOURCE_DIR) + "/" + rel; }

inline std::string hf_fixture(const std::string& preset) {
  return source_path("tests/fixtures/hf/" + preset + ".config.json");
}

inline std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot open " + path);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

/// A published config.json fixture (tests/fixtures/hf/PRESET.config.json) as JSON.
inline nlohmann::json fixture_json(const std::string& preset) {
  const std::string path = hf_fixture(preset);
  return roofline::io::parse_json_text(slurp(path), path);
}

/// The fixture as the CLI reads a config.json path.
inline roofline::ModelConfig import_fixture(const std::string& preset) {
  const std::string path = hf_fixture(preset);
  return roofline::io::model_from_json(fixture_json(preset), path, preset).config;
}

/// One data row of a published-group*.tsv, keyed by the header's column names.
struct TsvRow {
  std::string file;  ///< "published-group1.tsv"
  int line = 0;      ///< 1-based line number in that file
  std::map<std::string, std::string> col;
  [[nodiscard]] const std::string& at(const std::string& k) const { return col.at(k); }
};

inline std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : line) {
    if (ch == '\t') {
      out.push_back(cur);
      cur.clear();
    } else if (ch != '\r') {
      cur.push_back(ch);
    }
  }
  out.push_back(cur);
  return out;
}

inline std::vector<TsvRow> read_tsv(const std::string& name) {
  std::istringstream in(slurp(source_path("tests/fixtures/hf/" + name)));
  std::string line;
  std::vector<std::string> header;
  std::vector<TsvRow> rows;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty()) continue;
    const auto cells = split_tabs(line);
    if (header.empty()) {
      header = cells;
      continue;
    }
    TsvRow r;
    r.file = name;
    r.line = n;
    for (std::size_t i = 0; i < header.size(); ++i) r.col[header[i]] = i < cells.size() ? cells[i] : "";
    rows.push_back(std::move(r));
  }
  return rows;
}

inline std::vector<TsvRow> published_rows() {
  std::vector<TsvRow> all = read_tsv("published-group1.tsv");
  for (TsvRow& r : read_tsv("published-group2.tsv")) all.push_back(std::move(r));
  for (TsvRow& r : read_tsv("published-moe.tsv")) all.push_back(std::move(r));
  for (TsvRow& r : read_tsv("published-dense.tsv")) all.push_back(std::move(r));
  for (TsvRow& r : read_tsv("published-presets.tsv")) all.push_back(std::move(r));
  for (TsvRow& r : read_tsv("published-special.tsv")) all.push_back(std::move(r));
  for (TsvRow& r : read_tsv("published-multimodal.tsv")) all.push_back(std::move(r));
  for (TsvRow& r : read_tsv("published-hybrid.tsv")) all.push_back(std::move(r));
  for (TsvRow& r : read_tsv("published-2025.tsv")) all.push_back(std::move(r));
  return all;
}

/// "12,879,925,248" or "12879925248" -> integer; -1 when the text holds no digits.
inline std::int64_t digits_to_int(const std::string& s) {
  std::int64_t v = 0;
  bool any = false;
  for (char ch : s) {
    if (ch >= '0' && ch <= '9') {
      v = v * 10 + (ch - '0');
      any = true;
    } else if (ch != ',') {
      break;
    }
  }
  return any ? v : -1;
}

/// expected_active_params: an integer (group 2), empty (dense rows of group 1), or prose holding
/// "computed 12,879,925,248" (MoE rows of group 1). Returns -1 when empty.
inline std::int64_t expected_active(const std::string& cell) {
  if (cell.empty()) return -1;
  const auto at = cell.find("computed ");
  if (at != std::string::npos) return digits_to_int(cell.substr(at + 9));
  return digits_to_int(cell);
}

/// A fresh directory under the system temp dir, removed with its contents on destruction.
class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    path_ = std::filesystem::temp_directory_path() /
            ("roofline-io-test-" + std::to_string(stamp) + "-" + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  [[nodiscard]] std::string str() const { return path_.string(); }
  /// Writes `text` to DIR/rel (creating folders) and returns the full path.
  std::string write(const std::string& rel, const std::string& text) const {
    const std::filesystem::path p = path_ / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream f(p, std::ios::binary);
    f << text;
    return p.string();
  }

 private:
  std::filesystem::path path_;
};

}  // namespace roofline_test
