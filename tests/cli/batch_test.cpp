// batch: each line's results are the single run's, key by key; a bad line is an error line with
// the CLI's message and the stream goes on; the exit code says whether any line failed.
#include "cli/app.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sstream>

using namespace roofline;

namespace {

struct Run {
  int code = 0;
  std::string out;
  std::string err;
};

Run run(const std::vector<std::string>& args, const std::string& stdin_text = {}) {
  std::istringstream in(stdin_text);
  std::ostringstream out;
  std::ostringstream err;
  Run r;
  r.code = cli::run_cli(args, in, out, err, {});
  r.out = out.str();
  r.err = err.str();
  return r;
}

std::vector<nlohmann::json> lines_of(const std::string& text) {
  std::vector<nlohmann::json> v;
  std::istringstream s(text);
  std::string line;
  while (std::getline(s, line)) v.push_back(nlohmann::json::parse(line));
  return v;
}

// The flags a JSON line stands for: "command" first, "model" positional, the rest --key value.
std::vector<std::string> as_flags(const nlohmann::json& line) {
  std::vector<std::string> args = {line.at("command").get<std::string>()};
  for (const auto& [key, value] : line.items()) {
    if (key == "command") continue;
    if (key == "model") {
      args.push_back(value.get<std::string>());
      continue;
    }
    args.push_back("--" + key);
    args.push_back(value.is_string() ? value.get<std::string>() : value.dump());
  }
  return args;
}

}  // namespace

TEST_CASE("batch: each line's results are the single run's, in input order", "[batch]") {
  const std::vector<std::string> plans = {
      R"({"command":"decode","model":"llama3-8b","gpu":"h100-sxm","batch":32,"context":8192})",
      R"({"command":"decode","model":"llama3-8b","gpu":"h100-sxm","batch":1,"context":1024})",
      R"({"command":"memory","model":"mixtral-8x7b","gpu":"h200-sxm","context":"32k","kv-dtype":"fp8"})",
      R"({"command":"kv","model":"gemma2-9b","context":8192})",
      R"({"command":"serve","model":"llama3-70b","gpu":"h100-sxm","tp":2,"prompt":"4k","output":512})",
      R"({"command":"train","model":"llama3-8b","gpu":"h100-sxm","gpus":8,"zero":3,"tokens":"1T"})",
      R"({"command":"plan","model":"llama3-8b","gpu":"h100-sxm,mi300x","users":100,"tokens-per-s":20})",
      R"({"command":"layer","model":"llama3-8b","gpu":"h100-sxm","phase":"decode","context":"8k"})",
      R"({"command":"decode","model":"llama3-8b","gpu":"mi300x","batch":32,"context":8192})",
  };
  std::string input;
  for (const std::string& p : plans) input += p + "\n";
  const Run b = run({"batch"}, input);
  INFO(b.err);
  REQUIRE(b.code == 0);
  const std::vector<nlohmann::json> answers = lines_of(b.out);
  REQUIRE(answers.size() == plans.size());
  for (std::size_t i = 0; i < plans.size(); ++i) {
    INFO(plans[i]);
    const nlohmann::json plan = nlohmann::json::parse(plans[i]);
    CHECK(answers[i].at("line") == i + 1);
    CHECK(answers[i].at("command") == plan.at("command"));
    std::vector<std::string> args = as_flags(plan);
    args.insert(args.end(), {"--format", "json", "-q"});
    const Run one = run(args);
    REQUIRE(one.code == 0);
    const nlohmann::json single = nlohmann::json::parse(one.out);
    CHECK(answers[i].at("results") == single.at("results"));
    CHECK(answers[i].at("notes") == single.at("notes"));
  }
}

TEST_CASE("batch: a bad line is its own error line with the CLI's message; the rest is answered", "[batch]") {
  const std::string input =
      R"({"command":"decode","model":"llama3-8b","gpu":"h100-sxm","batch":8})"
      "\n"
      R"({"command":"decode","model":"llama3-8b","gpu":"h100-sxm","batch":0})"
      "\n\n"
      R"({"command":"plan","model":"llama3-8b","gpu":"h100-sxm","users":10,"tokens-per-s":10,"batch":4})"
      "\n"
      "not json\n"
      R"({"command":"decode","model":"llama3-8b","gpu":"h100-sxm","batchsize":8})"
      "\n"
      R"({"command":"kv","model":"llama3-8b"})"
      "\n";
  const Run b = run({"batch"}, input);
  CHECK(b.code == 1);
  const std::vector<nlohmann::json> a = lines_of(b.out);
  REQUIRE(a.size() == 6);
  CHECK(a[0].at("line") == 1);
  CHECK(a[0].contains("results"));
  // The CLI's own messages for the same inputs as flags.
  const Run flags = run({"decode", "llama3-8b", "--gpu", "h100-sxm", "--batch", "0"});
  CHECK(flags.err == "roofline: error: " + a[1].at("error").get<std::string>() + "\n");
  CHECK(a[1].at("line") == 2);
  CHECK(a[1].at("exit_code") == 1);
  CHECK(a[2].at("line") == 4);  // the blank line 3 is skipped
  CHECK(a[2].at("error") == "--batch does not apply to plan");
  CHECK(a[2].at("exit_code") == 2);
  CHECK(a[3].at("line") == 5);
  CHECK(a[3].at("error").get<std::string>().rfind("line 5: invalid JSON: parse error", 0) == 0);
  CHECK(a[4].at("error") == "unknown option --batchsize; did you mean --batch?");
  CHECK(a[5].at("line") == 7);
  CHECK(a[5].at("results").at("kv").at("kv_cache_bytes_per_token") == 131072);
}

TEST_CASE("batch: an inline Hugging Face config is a model; batch's own mistakes are usage errors", "[batch]") {
  const std::string config =
      R"({"model_type":"llama","hidden_size":4096,"intermediate_size":14336,"num_hidden_layers":32,)"
      R"("num_attention_heads":32,"num_key_value_heads":8,"vocab_size":128256,"max_position_embeddings":8192,)"
      R"("tie_word_embeddings":false,"rms_norm_eps":1e-5})";
  const Run b = run({"batch"}, R"({"command":"params","model":)" + config + "}\n");
  INFO(b.out);
  REQUIRE(b.code == 0);
  CHECK(lines_of(b.out).at(0).at("results").at("params").at("total_params") == 8'030'261'248);
  CHECK(run({"batch", "--format", "csv"}).err ==
        "roofline: error: --format csv: batch writes JSON Lines, one answer a line\n");
  CHECK(run({"batch", "/nonexistent/plans.jsonl"}).code == 1);
  const Run dash = run({"batch"}, R"({"command":"kv","model":"-"})"
                                  "\n");
  CHECK(lines_of(dash.out).at(0).at("error") ==
        "model \"-\": batch reads its lines from stdin; give a file or a config object");
}

// N11 (reliability review 2026-12-01): "require-fit" in a line was accepted and ignored (exit 0 for
// a line that does not fit). It now does what --require-fit does: the answer, with "exit_code": 3,
// and the stream exits 3 unless a line failed (1).
TEST_CASE("batch: require-fit answers the line and exits 3 when it does not fit, as --require-fit", "[batch][N11]") {
  const std::string misfit =
      R"({"command":"memory","model":"llama3-8b","gpu":"h100-sxm","context":"10M","require-fit":true})";
  const std::string fits =
      R"({"command":"memory","model":"llama3-8b","gpu":"h100-sxm","context":"1k","require-fit":true})";
  const Run one = run({"batch"}, misfit + "\n" + fits + "\n");
  REQUIRE(one.code == 3);
  const std::vector<nlohmann::json> a = lines_of(one.out);
  REQUIRE(a.size() == 2);
  CHECK(a[0].at("exit_code") == 3);
  CHECK(a[0].at("results").at("capacity").at("fits") == false);
  CHECK_FALSE(a[1].contains("exit_code"));
  // The line's results are the CLI's, which exits 3 too.
  const Run cli =
      run({"memory", "llama3-8b", "--gpu", "h100-sxm", "--context", "10M", "--require-fit", "--format", "json"});
  CHECK(cli.code == 3);
  CHECK(nlohmann::json::parse(cli.out).at("results") == a[0].at("results"));
  // A failed line outranks a misfit; a command without a capacity check is a usage error, as in the CLI.
  const Run mixed = run({"batch"}, misfit + "\n" + R"({"command":"kv","model":"llama3-8b","require-fit":true})" + "\n");
  CHECK(mixed.code == 1);
  CHECK(lines_of(mixed.out).at(1).at("error") == "--require-fit does not apply to kv");
  const Run no_gpu = run({"batch"}, R"({"command":"memory","model":"llama3-8b","require-fit":true})"
                                    "\n");
  CHECK(lines_of(no_gpu.out).at(0).at("exit_code") == 2);
}

// N12: "kv-dtype" and "kv_dtype" in one line: the later won silently; the command line refuses a
// flag given twice.
TEST_CASE("batch: one input under both spellings in a line is given twice", "[batch][N12]") {
  const Run b =
      run({"batch"}, R"({"command":"decode","model":"llama3-8b","gpu":"h100-sxm","kv-dtype":"fp8","kv_dtype":"bf16"})"
                     "\n");
  CHECK(b.code == 1);
  CHECK(lines_of(b.out).at(0).at("error") == "--kv-dtype is given twice (\"kv-dtype\" and \"kv_dtype\"); give it once");
  CHECK(lines_of(b.out).at(0).at("exit_code") == 2);
  CHECK(run({"decode", "llama3-8b", "--gpu", "h100-sxm", "--kv-dtype", "fp8", "--kv-dtype", "bf16"}).code == 2);
}
