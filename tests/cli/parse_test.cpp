// CLI11 parses every line, with an app that holds only the options the line types (cli/app.cpp
// parse_args): building every option of a command costs more than the command's work. The lean app
// must fill what the app of every option fills; help, the version and a mistake are answered by the
// full app, so each line here must also print what its message says.
#include "cli/app.hpp"

#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

struct Run {
  int code;
  std::string out;
  std::string err;
};

Run run(const std::vector<std::string>& args) {
  std::istringstream in;
  std::ostringstream out;
  std::ostringstream err;
  const int code = roofline::cli::run_cli(args, in, out, err, roofline::cli::Env{});
  return {code, out.str(), err.str()};
}

using Args = std::vector<std::string>;

}  // namespace

TEST_CASE("a lean app fills what the app of every option fills", "[cli][parse]") {
  const std::vector<Args> lines = {
      {"report", "llama3-8b", "--gpu", "h100-sxm"},
      {"report", "llama3-8b", "--gpu=h100-sxm", "--format", "json"},
      {"--format", "json", "report", "llama3-8b", "--gpu", "h100-sxm"},
      {"--explain", "decode", "llama3-8b", "--gpu", "h100", "--batch", "32", "--context", "8k"},
      {"params", "llama3-8b"},
      {"params", "mixtral-8x7b", "--format=csv", "--no-header"},
      {"params", "llama3-8b", "--weight-bits", "4", "--units", "iec"},
      {"flops", "llama3-8b", "--prompt", "2048", "--flops-basis", "non-embedding"},
      {"kv", "llama2-70b", "--context", "4096", "--kv-dtype", "fp8", "--explain"},
      {"memory", "llama2-70b", "--gpu", "mi300x", "--context", "4096", "--batch", "32", "--brief"},
      {"decode", "llama3-8b", "--gpu", "h100-sxm", "--batch", "1,8,32", "--context", "1k..4k*2"},
      {"decode", "llama3-8b", "--context", "1k..2k+1k", "--gpu", "h100-sxm", "--batch", "1,2", "--format", "csv"},
      {"decode", "llama3-8b", "--gpu", "h100-sxm", "--gpu-peak", "bf16=500TFLOP/s"},
      {"prefill", "llama3-8b", "--gpu", "h100-sxm", "--prompt", "2048", "--quiet"},
      {"serve", "llama3-8b", "--gpu", "h100-sxm", "--prompt", "1024", "--output", "256", "--color", "never"},
      {"layer", "mixtral-8x7b", "--gpu", "h100-sxm", "--phase", "prefill", "--prompt", "2048", "--fused"},
      {"train", "llama3-70b", "--gpu",       "h100-sxm",  "--gpus",   "64",  "--tp",  "8",   "--zero",  "1",
       "--seq", "8192",       "--recompute", "selective", "--tokens", "15T", "--mfu", "0.4", "--price", "2.5"},
      {"plan", "llama3-70b", "--gpu", "h100-sxm,h200-sxm", "--users", "1000", "--tokens-per-s", "20"},
      {"report", "-", "--gpu", "h100-sxm"},
      {"params", "-", "--format", "markdown"},
      {"decode", "llama3-8b", "--gpu", "h100-sxm", "--require-fit", "--batch", "4096", "--context", "128k"},
      // Errors found after the parse, in the typed inputs: the same messages either way.
      {"kv", "llama3-8b", "--context", "8x", "--batch", "x"},
      {"decode", "llama3-8b"},
      {"report", "no-such-model"},
      {"kv", "--context", "kv"},  // a value that is a command's name is a value for CLI11 too
      {"layer", "llama3-8b", "--gpu", "h100-sxm", "--phase", "prefill"},
      {"decode", "llama3-8b", "--gpu", "h100-sxm", "--format", "svg"},
      {"params", "llama3-8b", "--brief", "--format", "json"},
      // batch: FILE where MODEL is, and the global flags only.
      {"batch"},
      {"batch", "-"},
      {"--quiet", "batch", "--format", "jsonl"},
      {"batch", "--format=json"},
      {"batch", "no-such-file.jsonl"},
  };
  for (const Args& a : lines) {
    INFO(a[0] << " " << a.back());
    const std::string lean = roofline::cli::parse_summary(a, true);
    CHECK(lean.rfind("CLI11", 0) != 0);
    CHECK(lean == roofline::cli::parse_summary(a, false));
  }
}

TEST_CASE("unusual lines parse the same both ways, or are refused by both", "[cli][parse]") {
  const std::vector<Args> lines = {
      {"report", "--help"},
      {"--version"},
      {"report", "llama3-8b", "--gpu", "h100-sxm", "--version"},
      {"kv", "llama3-8b", "-c", "4096"},       // a short option
      {"kv", "llama3-8b", "--context", "-5"},  // a value like an option
      {"kv", "llama3-8b", "--", "--context"},
      {"kv", "llama3-8b", "--explain=yes"},
      {"decode", "llama3-8b", "--gpu", "h100-sxm", "--gpu-peak", "bf16=1PFLOP/s", "h200"},  // a list option's next word
      {"--preset-dir", std::string(ROOFLINE_SOURCE_DIR) + "/tests/fixtures/preset_dir", "params", "tiny"},
      {"compare", "params", "llama3-8b,llama3-70b"},
      {"plot", "llama3-8b", "--gpu", "h100-sxm"},
      {"gpus"},
      {"batch", "-", "-"},  // a second FILE
      {"batch", "--help"},
  };
  for (const Args& a : lines) {
    INFO(a[0] << " " << a.back());
    const std::string full = roofline::cli::parse_summary(a, false);
    const std::string lean = roofline::cli::parse_summary(a, true);
    // A line the lean app refuses is parsed again by the full app; one it takes must be the same.
    if (lean.rfind("CLI11", 0) != 0) CHECK(lean == full);
  }
}

TEST_CASE("the command's tables name the common mistakes, in one line, exit 2", "[cli][parse]") {
  // CLI11's words for these were "1 required N missing", "At Most 1 required but received 2" and
  // "The following argument was not expected"; the command's own flag table says more.
  const std::vector<std::pair<Args, std::string>> lines = {
      {{"kv", "llama3-8b", "--context"}, "--context needs a value (N)"},
      {{"kv", "llama3-8b", "--context", "--batch", "2"}, "--context needs a value (N)"},
      {{"kv", "llama3-8b", "--context="}, "--context= has no value; give --context N"},
      {{"kv", "llama3-8b", "--context", "4096", "--context", "8k"},
       "--context is given twice; give it once, or a list to sweep it (--context A,B)"},
      {{"decode", "llama3-8b", "--gpu", "h100-sxm", "--gpu", "mi300x"}, "--gpu is given twice; give it once"},
      {{"kv", "llama3-8b", "--format", "json", "--format", "csv"}, "--format is given twice; give it once"},
      {{"kv", "llama3-8b", "--format", "xml"},
       "--format: \"xml\" is not one of: table, json, jsonl, csv, markdown, svg"},
      {{"kv", "llama3-8b", "--units", "metric"}, "--units: \"metric\" is not one of: si, iec"},
      {{"kv", "llama3-8b", "llama3-70b"},
       "a second MODEL \"llama3-70b\"; kv takes one model; roofline compare kv A,B sets several side by side"},
      {{"layer", "llama3-8b", "x"}, "a second MODEL \"x\"; layer takes one model"},
      {{"params", "llama3-8b", "-layers", "2"}, "unknown option \"-layers\"; did you mean --layers?"},
      {{"batch", "--format", "jsonl", "--format", "jsonl"}, "--format is given twice; give it once"},
      {{"batch", "--color"}, "--color needs a value (WHEN)"},
  };
  for (const auto& [args, message] : lines) {
    INFO(args[0] << " " << args.back());
    const Run r = run(args);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(r.err == "roofline: error: " + message + "\n");
  }
}
