// Findings of the 2026-12-01 reliability review (the steering material's reviews/2026-12-01-reliability.md)
// checked through the whole program: each case runs the review's reproducer and would fail on the
// reviewed code.
//   N3: a pure state-space model on a layout divided by h_kv = 0 (inf B, "does not fit", 0 sequences).
//   N14: train --params N printed "activations 0 B" and a fit that silently left them out.
#include "cli/app.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

using nlohmann::json;

std::string run_ok(std::vector<std::string> args) {
  args.emplace_back("-q");
  std::istringstream in;
  std::ostringstream out;
  std::ostringstream err;
  const int code = roofline::cli::run_cli(args, in, out, err, {});
  INFO(err.str());
  REQUIRE(code == 0);
  return out.str();
}

json run_json(std::vector<std::string> args) {
  args.insert(args.end(), {"--format", "json"});
  return json::parse(run_ok(std::move(args)));
}

std::vector<std::string> split_words(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream s(text);
  std::string w;
  while (s >> w) words.push_back(w);
  return words;
}

// No inf or NaN where a person reads the figures ("inf B", "nan %").
bool prints_non_finite(const std::string& text) {
  static const std::regex bad(R"((^|[^A-Za-z])(inf|nan)([^A-Za-z]|$))", std::regex::icase);
  return std::regex_search(text, bad);
}

// Every byte figure of a deployment section is a number (JSON writes inf as null), and the fit is
// the comparison it claims.
void check_deployment(const json& d) {
  INFO(d.dump());
  for (const auto& [key, value] : d.items()) {
    if (key.find("bytes") != std::string::npos || key.find("share") != std::string::npos) {
      INFO(key);
      CHECK(value.is_number());
    }
  }
  REQUIRE(d.at("required_bytes_per_device").is_number());
  CHECK(d.at("fits_per_device").get<bool>() ==
        (d.at("required_bytes_per_device").get<double>() <= d.at("capacity_bytes_per_device").get<double>()));
  CHECK(d.at("fits_per_device").get<bool>());
  REQUIRE(d.at("max_sequences_per_replica").is_number_integer());
  CHECK(d.at("max_sequences_per_replica").get<std::int64_t>() > 0);
  CHECK(d.at("tokens_per_s").get<double>() > 0.0);
  CHECK(d.contains("state_share_per_device"));
  CHECK_FALSE(d.contains("kv_share_per_device"));  // no attention heads to share
}

}  // namespace

TEST_CASE("N3: memory, decode and serve of a pure Mamba model on a layout give its state per device", "[cli][N3]") {
  const std::string model = GENERATE(as<std::string>{}, "mamba-2.8b", "mamba-codestral-7b");
  const std::string command = GENERATE(as<std::string>{}, "memory", "decode", "serve");
  INFO(command << " " << model);
  const json ideal = run_json({"memory", model, "--gpu", "h100-sxm"});
  const std::int64_t ideal_sequences = ideal["results"]["capacity"]["max_concurrent_sequences"].get<std::int64_t>();
  REQUIRE(ideal_sequences > 0);

  struct Layout {
    const char* flags;
    double devices;  // t p: the state of one sequence splits this many ways
  };
  double whole = 0.0;
  for (const Layout l : {Layout{"--tp 1", 1}, Layout{"--tp 1 --pp 1", 1}, Layout{"--tp 2", 2}, Layout{"--pp 2", 2},
                         Layout{"--tp 2 --pp 2", 4}}) {
    INFO(l.flags);
    std::vector<std::string> args = {command, model, "--gpu", "h100-sxm"};
    for (const std::string& w : split_words(l.flags)) args.push_back(w);
    const json doc = run_json(args);
    const json& d = doc["results"]["deployment"];
    check_deployment(d);
    const double state = d.at("kv_bytes_per_sequence_per_device").get<double>();
    if (l.devices == 1) {
      whole = state;
      // One device of the layout 1 x 1 is the ideal device: the same sequences.
      CHECK(d.at("max_sequences_per_replica").get<std::int64_t>() == ideal_sequences);
      if (command == "memory") CHECK(doc["results"]["capacity"] == ideal["results"]["capacity"]);
    } else {
      CHECK(state == whole / l.devices);
    }
    std::vector<std::string> table = args;
    table.insert(table.end(), {"--format", "table"});
    const std::string text = run_ok(table);
    INFO(text);
    CHECK_FALSE(prints_non_finite(text));
    CHECK(text.find("does not fit") == std::string::npos);
  }
}

TEST_CASE("N3: plan and compare place a pure Mamba model", "[cli][N3]") {
  const json plan = run_json({"plan", "mamba-2.8b", "--gpu", "h100-sxm", "--users", "100", "--tokens-per-s", "30"});
  INFO(plan.dump());
  REQUIRE(plan["results"]["plan_best"].is_object());
  CHECK(plan["results"]["plan_best"]["devices"] == 1);
  CHECK(plan["results"]["plan_best"]["layout"] == "1 x 1 x 1");
  for (const json& row : plan["results"]["plan"]) {
    INFO(row.dump());
    REQUIRE(row["kv_sequences"].is_number_integer());
    CHECK(row["kv_sequences"].get<std::int64_t>() > 0);
    CHECK(row["devices"].get<std::int64_t>() > 0);
  }
  const std::string plan_text =
      run_ok({"plan", "mamba-2.8b", "--gpu", "h100-sxm", "--users", "100", "--tokens-per-s", "30"});
  CHECK(plan_text.find("weights do not fit") == std::string::npos);
  CHECK(plan_text.find("no layout meets the load") == std::string::npos);

  for (const char* layout : {"1", "2"}) {
    INFO("--tp " << layout);
    const json cmp = run_json({"compare", "memory", "mamba-2.8b", "--gpu", "h100-sxm,mi300x", "--tp", layout});
    REQUIRE(cmp["results"].size() == 2);
    for (const json& column : cmp["results"]) check_deployment(column["results"]["deployment"]);
    const std::string text = run_ok({"compare", "memory", "mamba-2.8b", "--gpu", "h100-sxm,mi300x", "--tp", layout});
    CHECK_FALSE(prints_non_finite(text));
  }
}

TEST_CASE("N3: --tp must split a state-space mixer's channels, as its matrices and state split", "[cli][N3]") {
  std::istringstream in;
  std::ostringstream out;
  std::ostringstream err;
  CHECK(roofline::cli::run_cli({"memory", "mamba-2.8b", "--gpu", "h100-sxm", "--tp", "3"}, in, out, err, {}) == 1);
  CHECK(err.str() == "roofline: error: --tp: the 5120 Mamba channels do not split over 3 ranks\n");
  CHECK(out.str().empty());
}

TEST_CASE("N14: train --params N leaves the unknown activations n/a and says the verdict excludes them", "[cli][N14]") {
  const std::vector<std::string> args = {"train", "--params", "70B", "--gpu", "h100-sxm", "--tp", "8", "--gpus", "8"};
  const json doc = run_json(args);
  const json& m = doc["results"]["train_memory"];
  INFO(m.dump());
  CHECK(m.at("activation_bytes").is_null());  // was 0
  CHECK(m.at("activations_counted") == false);
  // What the total does count: the states, the optimizer step's copy and the reserve.
  CHECK(m.at("total_bytes").get<double>() == m.at("model_state_bytes").get<double>() +
                                                 m.at("optimizer_temporary_bytes").get<double>() +
                                                 m.at("reserve_bytes").get<double>());
  const auto notes = doc["notes"].get<std::vector<std::string>>();
  const auto said = [](const std::vector<std::string>& list) {
    return std::any_of(list.begin(), list.end(),
                       [](const std::string& n) { return n.find("activations are unknown") != std::string::npos; });
  };
  CHECK(said(notes));

  const std::string table = run_ok(args);
  INFO(table);
  CHECK(std::regex_search(table, std::regex(R"(activations of the binding stage +n/a)")));
  CHECK_FALSE(std::regex_search(table, std::regex(R"(activations of the binding stage +0 B)")));
  CHECK(std::regex_search(table, std::regex(R"(total per device, activations excluded +175\.0 GB)")));
  CHECK(std::regex_search(table, std::regex(R"(fits, activations excluded +no)")));
  CHECK(std::regex_search(table, std::regex(R"(headroom, activations excluded +-89\.10 GB)")));
  CHECK(table.find("activations are unknown") != std::string::npos);

  std::vector<std::string> markdown = args;
  markdown.insert(markdown.end(), {"--format", "markdown"});
  CHECK(run_ok(markdown).find("activations are unknown") != std::string::npos);
  // A sweep's table keeps only the figures, and still the note.
  CHECK(run_ok({"train", "--params", "70B", "--gpu", "h100-sxm", "--tp", "1,8", "--gpus", "8"})
            .find("activations are unknown") != std::string::npos);
  std::vector<std::string> brief = args;
  brief.emplace_back("--brief");
  CHECK(run_ok(brief).find("fits, activations excluded") != std::string::npos);
  // CSV carries values only: the flag column says it.
  std::vector<std::string> csv = args;
  csv.insert(csv.end(), {"--format", "csv"});
  const std::string text = run_ok(csv);
  const std::string head = text.substr(0, text.find('\n'));
  const std::string row = text.substr(head.size() + 1);
  std::vector<std::string> names;
  std::vector<std::string> values;
  std::istringstream hs(head);
  std::istringstream rs(row.substr(0, row.find('\n')));
  for (std::string f; std::getline(hs, f, ',');) names.push_back(f);
  for (std::string f; std::getline(rs, f, ',');) values.push_back(f);
  const auto at = [&](const std::string& key) {
    const auto i = std::find(names.begin(), names.end(), key);
    REQUIRE(i != names.end());
    return values.at(static_cast<std::size_t>(i - names.begin()));
  };
  CHECK(at("train_memory.activations_counted") == "false");
  CHECK(at("train_memory.activation_bytes").empty());

  // With an architecture the activations are counted, and the labels say nothing more.
  const std::vector<std::string> known = {"train", "llama3-8b", "--gpu", "h100-sxm", "--gpus", "8"};
  const json full = run_json(known);
  CHECK(full["results"]["train_memory"]["activations_counted"] == true);
  CHECK(full["results"]["train_memory"]["activation_bytes"].get<double>() > 0.0);
  CHECK_FALSE(said(full["notes"].get<std::vector<std::string>>()));
  CHECK(run_ok(known).find("activations excluded") == std::string::npos);
}
