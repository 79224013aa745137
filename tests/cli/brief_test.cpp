// --brief: every brief figure is the full output's own (its CSV value, and its Markdown row with
// the formula substituted under --explain), the rows are the command's headline figures, the
// answer fits one screen, and JSON, sweeps and commands without a brief are refused in one line.
#include "cli/app.hpp"
#include "cli/command.hpp"
#include "format/views.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

namespace {

struct Result {
  int code;
  std::string out;
  std::string err;
};

Result run(const std::vector<std::string>& args) {
  std::istringstream in;
  std::ostringstream out;
  std::ostringstream err;
  const int code = roofline::cli::run_cli(args, in, out, err, {});
  return {code, out.str(), err.str()};
}

std::string run_ok(std::vector<std::string> args, std::initializer_list<std::string> more) {
  args.insert(args.end(), more);
  args.emplace_back("-q");
  const Result r = run(args);
  INFO(r.err);
  REQUIRE(r.code == 0);
  return r.out;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream s(text);
  std::string line;
  while (std::getline(s, line)) lines.push_back(line);
  return lines;
}

// One CSV line's cells: quoted cells may hold commas, and an empty last cell is a cell.
std::vector<std::string> csv_cells(const std::string& line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted && ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      cells.back() += '"';
      ++i;
    } else if (ch == '"') {
      quoted = !quoted;
    } else if (ch == ',' && !quoted) {
      cells.emplace_back();
    } else {
      cells.back() += ch;
    }
  }
  return cells;
}

// Each command's headline figures, as the product spec's one-screen answer names them: its --brief
// shows exactly these rows (those the run has), in the full output's order.
const std::map<std::string, std::vector<std::string>>& headlines() {
  static const std::map<std::string, std::vector<std::string>> h = {
      {"report",
       {"params.total_params", "params.active_params", "kv.kv_cache_bytes_per_token", "hardware.ridge_flop_per_byte",
        "decode.decode_tokens_per_s", "decode.bound", "capacity.weight_bytes", "fit.fits"}},
      {"memory",
       {"capacity.weight_bytes", "capacity.free_for_kv_bytes", "capacity.max_concurrent_sequences",
        "capacity.max_context_tokens", "capacity.devices_needed", "deployment.required_bytes_per_device", "fit.fits"}},
      {"decode",
       {"decode.step_time_s", "decode.decode_tokens_per_s_per_sequence", "decode.decode_tokens_per_s", "decode.bound",
        "decode.intensity_flop_per_byte", "deployment.step_time_s", "deployment.tokens_per_s", "fit.fits"}},
      {"prefill",
       {"prefill.prefill_flop", "prefill.prefill_intensity_flop_per_byte", "prefill.prefill_ridge_ratio",
        "prefill.ttft_floor_s", "fit.fits"}},
      {"serve",
       {"latency.ttft_floor_s", "latency.tpot_floor_s", "latency.e2e_floor_s", "latency.output_tokens_per_s",
        "steady_state.concurrency_sequences", "steady_state.steady_tpot_s", "steady_state.steady_tokens_per_s",
        "steady_state_layout.concurrency_sequences", "steady_state_layout.steady_tpot_s",
        "steady_state_layout.steady_tokens_per_s", "fit.fits"}},
      {"params",
       {"params.total_params", "params.active_params", "params.non_embedding_params", "weights.weight_bytes"}},
      {"flops",
       {"flops.forward_flop_per_token", "flops.training_flop_per_token", "flops.prefill_flop",
        "flops.attention_crossover_tokens_causal"}},
      {"kv", {"kv.kv_cache_bytes_per_token", "kv.kv_cache_bytes_per_sequence", "kv.kv_cache_bytes_batch"}},
      {"train",
       {"train_memory.total_bytes", "fit.fits", "train_memory.smallest_fitting_layout", "train_compute.step_time_s",
        "train_compute.time_to_train_s", "train_compute.cost", "train_comm.step_time_floor_s",
        "train_comm.mfu_ceiling_fraction"}},
      {"layer",
       {"layer.flop", "layer.bytes_unfused", "layer.bytes_fused", "layer.time_unfused_s", "layer.time_fused_s",
        "layer.whole_pass_time_s"}},
      {"gemm", {"gemm.intensity_flop_per_byte", "gemm.attainable_flop_per_s", "gemm.time_s", "gemm.bound"}},
  };
  return h;
}

// Runs covering every command with a brief, between them every row its brief names.
const std::vector<std::vector<std::string>>& cases() {
  static const std::vector<std::vector<std::string>> rows = {
      {"report", "llama3-8b", "--gpu", "h100-sxm"},
      {"report", "mixtral-8x7b", "--gpu", "h100-sxm", "--batch", "16"},
      {"report", "llama3-8b"},
      {"params", "llama3-8b"},
      {"params", "mixtral-8x7b", "--dtype", "fp8"},
      {"flops", "llama3-8b", "--prompt", "4096"},
      {"kv", "llama2-70b", "--context", "4096", "--batch", "8", "--kv-dtype", "fp8"},
      {"memory", "llama2-70b", "--gpu", "mi300x", "--context", "4096"},
      {"memory", "llama3-70b", "--gpu", "h100-sxm", "--tp", "2", "--gpus", "2"},
      {"decode", "llama3-8b", "--gpu", "h100-sxm", "--batch", "32"},
      {"decode", "llama3-70b", "--gpu", "h100-sxm"},
      {"decode", "llama3-70b", "--gpu", "h100-sxm", "--tp", "4", "--batch", "16"},
      {"serve", "llama3-70b", "--gpu", "h100-sxm", "--tp", "4", "--batch", "8"},
      {"prefill", "llama3-8b", "--gpu", "h100-sxm", "--prompt", "2048"},
      {"serve", "llama3-8b", "--gpu", "h100-sxm", "--prompt", "1024", "--output", "256", "--tpot", "20ms"},
      {"train", "llama3-70b", "--gpu",       "h100-sxm",  "--gpus",   "64",  "--tp",  "8",   "--zero",  "1",
       "--seq", "8192",       "--recompute", "selective", "--tokens", "15T", "--mfu", "0.4", "--price", "2.5"},
      {"layer", "llama3-8b", "--gpu", "h100-sxm", "--phase", "decode", "--context", "8k"},
      {"gemm", "4096", "4096", "4096", "--gpu", "h100-sxm"},
  };
  return rows;
}

}  // namespace

TEST_CASE("every brief value is the full output's value for the same key (CSV)", "[brief]") {
  std::map<std::string, std::set<std::string>> seen;  // command -> the brief keys a case printed
  for (const std::vector<std::string>& args : cases()) {
    INFO("roofline " << args.front() << " " << args.at(1));
    const std::vector<std::string> full = lines_of(run_ok(args, {"--format", "csv"}));
    const std::vector<std::string> brief = lines_of(run_ok(args, {"--format", "csv", "--brief"}));
    REQUIRE(full.size() == 2);
    REQUIRE(brief.size() == 2);
    const std::vector<std::string> full_keys = csv_cells(full[0]);
    const std::vector<std::string> full_values = csv_cells(full[1]);
    const std::vector<std::string> keys = csv_cells(brief[0]);
    const std::vector<std::string> values = csv_cells(brief[1]);
    REQUIRE(keys.size() == values.size());
    const roofline::format::Brief* b = roofline::cli::command_named(args.front())->brief;
    REQUIRE(b != nullptr);
    std::vector<std::string> figures;  // the brief's columns after the identifying inputs
    for (std::size_t i = 0; i < keys.size(); ++i) {
      INFO(keys[i]);
      const auto at = std::find(full_keys.begin(), full_keys.end(), keys[i]);
      REQUIRE(at != full_keys.end());
      CHECK(values[i] == full_values.at(static_cast<std::size_t>(at - full_keys.begin())));
      if (keys[i].find('.') != std::string::npos) figures.push_back(keys[i]);
    }
    // The figures are the headline keys that the full output has, in the full output's order.
    const std::vector<std::string>& headline = headlines().at(args.front());
    std::vector<std::string> expected;
    for (const std::string& k : full_keys) {
      if (std::find(headline.begin(), headline.end(), k) != headline.end()) expected.push_back(k);
    }
    CHECK(figures == expected);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (!values[i].empty()) seen[args.front()].insert(keys[i]);
    }
  }
  // Every key a brief declares names a row its command prints, with a value in some case here.
  for (const roofline::cli::Command& c : roofline::cli::commands()) {
    const roofline::format::Brief* b = c.brief;
    if (b == nullptr) continue;
    const std::string command = c.name;
    CHECK(command == b->command);
    for (const std::string& k : headlines().at(command)) {
      INFO(command << ": " << k);
      CHECK(seen[command].count(k) == 1);
    }
  }
  CHECK(roofline::cli::command_named("plan")->brief == nullptr);
}

TEST_CASE("every brief row, with its formula, is a row of the full output (Markdown, explained)", "[brief]") {
  for (const std::vector<std::string>& args : cases()) {
    INFO("roofline " << args.front() << " " << args.at(1));
    const std::vector<std::string> full = lines_of(run_ok(args, {"--format", "markdown", "--explain"}));
    const std::vector<std::string> brief = lines_of(run_ok(args, {"--format", "markdown", "--explain", "--brief"}));
    std::size_t rows = 0;
    for (const std::string& line : brief) {
      // The rows: not the header, its rule, or a section's title.
      if (line.rfind("| ", 0) != 0 || line.rfind("| **", 0) == 0 || line == "| quantity | value | note |") continue;
      INFO(line);
      CHECK(std::find(full.begin(), full.end(), line) != full.end());
      ++rows;
    }
    CHECK(rows >= 2);
  }
}

TEST_CASE("the brief answer fits one screen", "[brief]") {
  // A 24-line terminal: the command line, the brief and the next prompt.
  for (const std::vector<std::string>& args : cases()) {
    INFO("roofline " << args.front() << " " << args.at(1));
    CHECK(lines_of(run_ok(args, {"--brief"})).size() <= 22);
    CHECK(lines_of(run_ok(args, {"--brief", "--format", "markdown"})).size() <= 22);
  }
  // The report of the issue: parameters, KV per token, ridge, decode rate and bound, weights, fit.
  const std::string report = run_ok({"report", "llama3-8b", "--gpu", "h100-sxm"}, {"--brief"});
  CHECK(report.find("\nParameters\n  total              8,030,261,248\nKV cache (bf16)\n"
                    "  per token               131.1 kB  131,072 B\nAccelerator: NVIDIA H100 SXM5 80GB\n"
                    "  ridge point         295.3 FLOP/B\nDecode (batch 1, context 8,192)\n"
                    "  aggregate ceiling    208.3 tok/s\n  bound                     memory\nCapacity\n"
                    "  weights                 16.06 GB\nVerdict\n  fits                         yes\n") !=
        std::string::npos);
  CHECK(report.find("Notes") == std::string::npos);
  // Without --gpu, report's brief is what it has: the model's own figures.
  const std::string no_gpu = run_ok({"report", "llama3-8b"}, {"--brief"});
  CHECK(no_gpu.find("ridge point") == std::string::npos);
  CHECK(no_gpu.find("per token") != std::string::npos);
}

TEST_CASE("compare's brief: the question's brief rows for each column", "[brief]") {
  const std::vector<std::string> lines = lines_of(run_ok(
      {"compare", "decode", "llama3-8b", "--gpu", "h100-sxm,mi300x", "--batch", "32"}, {"--brief", "--format", "csv"}));
  std::vector<std::string> figures;
  for (const std::string& line : lines) {
    const std::string key = csv_cells(line).front();
    if (key.find('.') != std::string::npos) figures.push_back(key);
  }
  // Each column's rows are the single run's brief rows, in its order (without a layout: no layout rows).
  std::vector<std::string> expected;
  const std::vector<std::string> single =
      lines_of(run_ok({"decode", "llama3-8b", "--gpu", "h100-sxm", "--batch", "32"}, {"--brief", "--format", "csv"}));
  for (const std::string& key : csv_cells(single.at(0))) {
    if (key.find('.') != std::string::npos) expected.push_back(key);
  }
  CHECK(figures == expected);
  CHECK(figures.size() == 6);
}

TEST_CASE("brief is refused where it has no answer, in one line", "[brief]") {
  struct Bad {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Bad> bad = {
      {{"plan", "llama3-8b", "--gpu", "h100-sxm", "--users", "10", "--tokens-per-s", "10", "--brief"},
       "--brief: plan has no brief answer; report, params, flops, kv, memory, decode, prefill, serve, layer, train, "
       "gemm and compare have one"},
      {{"gpus", "--brief"},
       "--brief: gpus has no brief answer; report, params, flops, kv, memory, decode, prefill, serve, layer, train, "
       "gemm and compare have one"},
      {{"kv", "llama3-8b", "--brief", "--format", "json"},
       "--brief --format json: JSON holds every key of its schema, kv's brief rows among them; --brief prints table, "
       "markdown or csv"},
      {{"decode", "llama3-8b", "--gpu", "h100-sxm", "--batch", "1,8", "--brief"},
       "--brief: a sweep's table is already one compact row per point; give one value per flag"},
  };
  for (const Bad& b : bad) {
    const Result r = run(b.args);
    CHECK(r.code == 2);
    CHECK(r.err == "roofline: error: " + b.message + "\n");
    CHECK(r.out.empty());
  }
}
