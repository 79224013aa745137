// Every "[default: X]" in an input's help is generated from the value resolve() leaves when the input
// is absent (io::input_help, InputDef::shown_default), and is that value: the command run without
// the flag and with `--flag X` answers the same results.
#include "cli/app.hpp"
#include "cli/command.hpp"
#include "io/scenario_spec.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <vector>

namespace {

struct Ran {
  int code;
  nlohmann::json doc;
  std::string err;
};

Ran run(std::vector<std::string> args) {
  args.insert(args.end(), {"--format", "json", "-q"});
  std::istringstream in;
  std::ostringstream out;
  std::ostringstream err;
  const int code = roofline::cli::run_cli(args, in, out, err, {});
  return {code, code == 0 ? nlohmann::json::parse(out.str()) : nlohmann::json(), err.str()};
}

// The help's stated default when it is one value the flag takes ("1", "bf16", "touched"); "" for a
// rule ("d/h", "the model's context") that no single value states.
std::string stated_default(const std::string& help) {
  const std::string mark = "[default: ";
  const std::size_t at = help.find(mark);
  if (at == std::string::npos) return {};
  const std::size_t end = help.find(']', at);
  const std::string value = help.substr(at + mark.size(), end - at - mark.size());
  return value.find_first_of(" ;,/") == std::string::npos ? value : std::string();
}

}  // namespace

TEST_CASE("every single-value [default: X] in the help is what the command resolves without the flag", "[help]") {
  using roofline::cli::Command;
  int checked = 0;
  for (const roofline::io::InputDef& def : roofline::io::input_defs()) {
    const std::string value = stated_default(roofline::io::input_help(def));
    if (value.empty() || *def.value_name == '\0') continue;
    // The first model command that reads the input, on a model and an accelerator it can take.
    // A layout degree on a serving command makes the devices a layout (its help says so): its
    // default is train's.
    const bool layout = def.group == roofline::io::kParallel;
    const Command* cmd = nullptr;
    for (const Command& c : roofline::cli::commands()) {
      if (c.stage == roofline::cli::Stage::model && (c.groups & def.group) != 0U && !c.gpu_list &&
          std::string(c.name) != "report" && (!layout || c.training())) {
        cmd = &c;
        break;
      }
    }
    if (cmd == nullptr) continue;
    const bool moe = std::string(def.name).find("expert") != std::string::npos || std::string(def.name) == "ep";
    std::vector<std::string> base = {cmd->name, moe ? "mixtral-8x7b" : "llama3-8b"};
    if ((cmd->groups & roofline::io::kGpu) != 0U) base.insert(base.end(), {"--gpu", "h100-sxm"});
    if (cmd->training()) base.insert(base.end(), {"--gpus", "8"});
    std::vector<std::string> with = base;
    with.insert(with.end(), {std::string("--") + def.name, value});
    const Ran a = run(base);
    const Ran b = run(with);
    INFO("--" << def.name << " " << value << " on " << cmd->name << ": " << a.err << b.err);
    REQUIRE(a.code == 0);
    if (b.code != 0) continue;  // the flag needs another (--draft-len needs --draft): its default is unused
    CHECK(a.doc["results"] == b.doc["results"]);
    ++checked;
  }
  CHECK(checked >= 15);
}

TEST_CASE("no input's help types a single-value default or its choice list by hand", "[help]") {
  for (const roofline::io::InputDef& def : roofline::io::input_defs()) {
    INFO("--" << def.name << ": " << def.help);
    CHECK(stated_default(def.help).empty());
    if (def.shown_default != nullptr) CHECK(std::string(def.help).find("[default:") == std::string::npos);
    // A list of the choices in the help is the parser's table, as "a, b or c".
    CHECK(roofline::io::input_help(def).find("{choices}") == std::string::npos);
  }
}
