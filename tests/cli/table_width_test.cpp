// The default table view fits a 100-column terminal: wide detail goes to JSON and CSV.
#include "cli/app.hpp"

#include <catch2/catch.hpp>

#include <sstream>

namespace {

// Display width in code points ("µs" and "²" are one column each).
std::size_t columns(const std::string& line) {
  std::size_t n = 0;
  for (const char c : line) n += (static_cast<unsigned char>(c) & 0xC0U) != 0x80U ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("every command's table fits 100 columns and cites no unpublished source", "[table]") {
  const std::vector<std::vector<std::string>> commands = {
      {"report", "llama3-8b", "--gpu", "h100-sxm"},
      {"report", "llama3-8b", "--gpu", "h100-sxm", "--explain"},
      {"report", "deepseek-v3", "--gpu", "h200-sxm", "--gpus", "8", "--dtype", "fp8", "--mfu", "0.4", "--bw-efficiency",
       "0.8"},
      {"report", "llama2-7b", "--gpu", "v100-sxm2-32gb"},
      {"report", "gemma2-27b", "--gpu", "l4", "--weight-bits", "q4_k", "--reserve", "10%"},
      {"params", "deepseek-v3"},
      {"params", "llama3-8b", "--layers", "40", "--heads", "64", "--kv-heads", "16", "--ffn", "28672"},
      {"flops", "llama3-8b", "--prompt", "4096"},
      {"train",
       "llama3-70b",
       "--gpu",
       "h100-sxm",
       "--gpus",
       "64",
       "--tp",
       "8",
       "--zero",
       "1",
       "--seq",
       "8192",
       "--recompute",
       "selective",
       "--tokens",
       "15T",
       "--price",
       "2.5",
       "--measured-tokens-per-s",
       "2M"},
      {"kv", "gemma2-27b"},
      {"memory", "llama3.1-405b", "--gpu", "h100-sxm", "--gpus", "8", "--reserve", "10%"},
      {"decode", "mixtral-8x7b", "--gpu", "h100-sxm", "--batch", "64"},
      {"decode", "llama3-70b", "--gpu", "h100-sxm"},
      {"prefill", "qwen2.5-72b", "--gpu", "mi300x"},
      {"serve", "llama3-70b", "--gpu", "h100-sxm", "--gpus", "2"},
      {"serve", "llama3-70b", "--gpu", "h100-sxm", "--tp", "2", "--prompt", "4k", "--output", "512", "--draft",
       "llama3-8b", "--tpot", "50ms", "--explain"},
      {"decode", "mixtral-8x7b", "--gpu", "h100-sxm", "--tp", "2", "--ep", "4", "--gpus", "8", "--link-latency", "5us",
       "--explain"},
      {"plan", "mixtral-8x7b", "--gpu", "h200-sxm,h100-sxm", "--users", "10000", "--tokens-per-s", "30", "--price",
       "3"},
      {"layer", "deepseek-v3", "--gpu", "h200-sxm", "--phase", "prefill", "--prompt", "4096"},
      {"train",   "mixtral-8x7b", "--gpu", "h100-sxm", "--gpus", "32",           "--tp", "2",      "--pp",
       "2",       "--pp-chunks",  "2",     "--ep",     "8",      "--grad-accum", "8",    "--zero", "3",
       "--qlora", "--explain"},
      {"gemm", "4096", "4096", "4096", "--gpu", "a100"},
      {"compare", "decode", "llama3-8b", "--gpu", "h100-sxm,h200-sxm,mi300x", "--batch", "32"},
      {"compare", "decode", "llama3-70b", "--gpu", "h100-sxm,mi300x", "--gpus", "2", "--draft", "llama3-8b"},
      {"compare", "report", "llama3-70b", "--gpu", "a100,h100-sxm,h200-sxm,mi300x,mi355x"},
      {"compare", "report", "deepseek-v3", "--gpu", "h200-sxm,mi300x", "--gpus", "8", "--brief"},
      {"compare", "params", "llama3-8b,llama3-70b,mixtral-8x7b,deepseek-v3"},
      {"compare", "serve", "llama3-8b", "--gpu", "h100-sxm,mi300x", "--prompt", "1024", "--output", "256", "--tpot",
       "20ms"},
      {"compare", "train", "llama3-70b", "--gpu", "h100-sxm,mi300x", "--gpus", "64", "--tp", "8", "--tokens", "15T"},
      {"compare", "memory", "llama3-8b,llama3-70b,llama3.1-405b", "--gpu", "h200-sxm", "--gpus", "8"},
      {"report", "deepseek-v3", "--gpu", "h200-sxm", "--gpus", "8", "--brief", "--explain"},
      {"train", "llama3-70b", "--gpu", "h100-sxm", "--gpus", "64", "--tp", "8", "--tokens", "15T", "--brief"},
      {"gpus"},
      {"models"},
  };
  for (const auto& args : commands) {
    std::istringstream in;
    std::ostringstream out;
    std::ostringstream err;
    REQUIRE(roofline::cli::run_cli(args, in, out, err, {}) == 0);
    // User-facing text cites public sources or formula ids, never the unpublished seed texts.
    CHECK(out.str().find("seed") == std::string::npos);
    std::istringstream lines(out.str());
    std::string line;
    while (std::getline(lines, line)) {
      INFO(args.front() << " " << (args.size() > 1 ? args[1] : "") << ": " << line);
      CHECK(columns(line) <= 100);
    }
  }
}

TEST_CASE("a table follows COLUMNS: the headline, the rows' notes, the notes and --explain wrap to it", "[table]") {
  // The sections and notes of these commands wrap; a table of columns (the listings) is kept whole.
  const std::vector<std::vector<std::string>> commands = {
      {"report", "llama3-8b", "--gpu", "h100-sxm"},
      {"report", "deepseek-v3", "--gpu", "h200-sxm", "--gpus", "8", "--explain"},
      {"serve", "llama3-70b", "--gpu", "h100-sxm", "--tp", "4", "--tpot", "50ms"},
      {"train", "llama3-70b", "--gpu", "h100-sxm", "--gpus", "64", "--tp", "8", "--tokens", "15T", "--price", "2.5"},
      {"compare", "decode", "llama3-8b", "--gpu", "h100-sxm,h200-sxm,mi300x", "--batch", "32"},
  };
  for (const int width : {80}) {
    for (const auto& args : commands) {
      std::istringstream in;
      std::ostringstream wide;
      std::ostringstream narrow;
      std::ostringstream err;
      roofline::cli::Env env;
      REQUIRE(roofline::cli::run_cli(args, in, wide, err, env) == 0);
      env.columns_variable = width;
      REQUIRE(roofline::cli::run_cli(args, in, narrow, err, env) == 0);
      std::istringstream lines(narrow.str());
      std::string line;
      std::size_t longest_wide = 0;
      for (std::istringstream w(wide.str()); std::getline(w, line);)
        longest_wide = std::max(longest_wide, columns(line));
      CHECK(longest_wide > static_cast<std::size_t>(width));  // the default (100) would not fit
      while (std::getline(lines, line)) {
        INFO(args.front() << " " << args[1] << " at COLUMNS=" << width << ": " << line);
        CHECK(columns(line) <= static_cast<std::size_t>(width));
      }
    }
  }
}

TEST_CASE("a column table wider than COLUMNS is shown in blocks, each led by its key columns", "[table]") {
  const std::vector<std::string> args = {"serve", "llama3-70b", "--gpu", "h100-sxm", "--tp",
                                         "4",     "--batch",    "1,8",   "--prompt", "1k,2k"};
  for (const int width : {60, 80, 100}) {
    std::istringstream in;
    std::ostringstream out;
    std::ostringstream err;
    roofline::cli::Env env;
    env.columns_variable = width;
    REQUIRE(roofline::cli::run_cli(args, in, out, err, env) == 0);
    const std::string text = out.str();
    std::istringstream lines(text);
    std::string line;
    int headers = 0;
    while (std::getline(lines, line)) {
      INFO("COLUMNS=" << width << ": " << line);
      CHECK(columns(line) <= static_cast<std::size_t>(width));
      // Every block's header starts with the two axes.
      if (line.rfind("  batch prompt ", 0) == 0) ++headers;
    }
    CHECK(headers >= 2);  // the serve layout sweep's ten figure columns do not fit in one block
    // No column is cut: every label of the wide table is there.
    for (const char* label : {"TTFT", "needed per device", "step through the layout", "steady sequences",
                              "steady tokens/s", "steady TPOT, ideal device", "fits"}) {
      CHECK(text.find(label) != std::string::npos);
    }
  }
}
