// roofline completion: the walk of a CLI11 app into a CompletionSpec, and what each shell's script
// makes of it. The scripts' behaviour in real shells is tested end to end (tests/e2e).
#include "cli/completion.hpp"

#include "cli/app.hpp"

#include "roofline/errors.hpp"

#include <CLI/CLI.hpp>
#include <catch2/catch.hpp>

#include <sstream>

using namespace roofline::cli;

namespace {

struct Tool {
  CLI::App app{"a tool", "tool"};
  std::string format;
  bool quiet = false;
  std::string model;
  std::vector<std::string> dirs;
  std::string secret;
  std::string kind;
  std::string out;

  Tool() {
    app.add_option("--format", format, "Output format")->check(CLI::IsMember({"a", "b"}))->type_name("FORMAT");
    app.add_flag("-q,--quiet", quiet, "Silence warnings");
    CLI::App* run = app.add_subcommand("run", "Run it");
    run->add_option("MODEL", model, "The model");
    run->add_option("--dir", dirs, "A directory [repeatable]")->type_name("DIR");
    run->add_option("--secret", secret, "Hidden")->group("");
    run->add_option("--kind", kind, "What to draw")->check(CLI::IsMember({"bars", "lines"}))->type_name("KIND");
    run->add_option("-o,--out", out, "Write it here")->type_name("FILE");
  }

  [[nodiscard]] CompletionSpec spec() const {
    return completion_spec(app, [](std::string_view, const CLI::Option& o) {
      ValueSpec v;
      if (o.get_single_name() == "format") v = {Complete::words, {"a", "b"}, false, {}};
      if (o.get_single_name() == "dir") v.what = Complete::directories;
      if (o.get_single_name() == "MODEL") v = {Complete::models, {"-"}, false, "MODEL"};
      return v;
    });
  }
};

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("the walk finds every option, flag and positional argument as CLI11 holds them", "[completion]") {
  const CompletionSpec spec = Tool().spec();
  REQUIRE(spec.global.size() == 3);
  CHECK(spec.global[0].names == std::vector<std::string>{"-h", "--help"});
  CHECK_FALSE(spec.global[0].takes_value);
  CHECK(spec.global[1].names == std::vector<std::string>{"--format"});
  CHECK(spec.global[1].takes_value);
  CHECK(spec.global[1].value.name == "FORMAT");  // CLI11's ":{a,b}" of the check left out
  CHECK(spec.global[1].value.words == std::vector<std::string>{"a", "b"});
  CHECK(spec.global[2].names == std::vector<std::string>{"-q", "--quiet"});
  CHECK_FALSE(spec.global[2].takes_value);

  REQUIRE(spec.commands.size() == 1);
  const CommandSpec& run = spec.commands[0];
  CHECK(run.name == "run");
  CHECK(run.help == "Run it");
  REQUIRE(run.options.size() == 4);  // --help, --dir, --kind, --out; --secret has no group: hidden
  CHECK(run.options[1].names == std::vector<std::string>{"--dir"});
  CHECK(run.options[1].repeatable);
  CHECK(run.options[1].value.what == Complete::directories);
  // What the lookup leaves open: the choices of a CLI11 check, and paths for a FILE.
  CHECK(run.options[2].value.what == Complete::words);
  CHECK(run.options[2].value.words == std::vector<std::string>{"bars", "lines"});
  CHECK(run.options[2].value.name == "KIND");
  CHECK(run.options[3].names == std::vector<std::string>{"-o", "--out"});
  CHECK(run.options[3].value.what == Complete::files);
  REQUIRE(run.positionals.size() == 1);
  CHECK(run.positionals[0].name == "MODEL");
}

TEST_CASE("each script completes what the spec says", "[completion]") {
  const CompletionSpec spec = Tool().spec();
  const std::string bash = completion_script("bash", spec);
  CHECK(contains(bash, "    run) echo \"-h --help --dir --kind -o --out\" ;;\n"));
  CHECK(contains(bash, "    run) echo \"--dir --kind -o --out\" ;;\n"));  // the options that take a value
  CHECK(contains(bash, "    *:--kind)\n      _roofline_words \"bars lines\"\n"));
  CHECK(contains(bash, "    *:-o | *:--out)\n      _roofline_paths\n"));
  CHECK(contains(bash, "    *:--format)\n      _roofline_words \"a b\"\n"));
  // The names reach the script one a line and are matched literally, never through compgen -W (N5).
  CHECK(contains(bash, "    run:0)\n      _roofline_presets models \"\" \"-\"; _roofline_files\n"));
  CHECK_FALSE(contains(bash, "compgen -W"));
  CHECK(contains(bash, "complete -F _roofline roofline\n"));

  const std::string zsh = completion_script("zsh", spec);
  CHECK(contains(zsh, "#compdef roofline\n"));
  CHECK(contains(zsh, "'--format=[Output format]:FORMAT:(a b)'"));
  CHECK(contains(zsh, "'(-q --quiet)-q[Silence warnings]'"));
  CHECK(contains(zsh, "'*--dir=[A directory \\[repeatable\\]]:DIR:_directories'"));
  CHECK(contains(zsh, "'1:MODEL:{_roofline_presets models -}'"));
  CHECK(contains(zsh, "      (run) _roofline_cmd_run && ret=0 ;;\n"));
  CHECK(contains(zsh, "'(-o --out)-o+[Write it here]:FILE:_files'"));

  const std::string fish = completion_script("fish", spec);
  CHECK(contains(fish, "complete -c roofline -n __roofline_needs_command -a 'run' -d 'Run it'\n"));
  CHECK(contains(fish, "-l format -x -a 'a b' -d 'Output format'\n"));
  CHECK(contains(fish, "complete -c roofline -n '__roofline_using run' -l dir -x -a '(__fish_complete_directories)'"));
  CHECK(contains(fish,
                 "complete -c roofline -n '__roofline_positional 1 run' -a '(__roofline_names models) - "
                 "(__roofline_files)' -d 'MODEL'\n"));
  CHECK(contains(fish, "-s o -l out -r -F -d 'Write it here'\n"));
  CHECK_FALSE(contains(bash + zsh + fish, "secret"));
}

TEST_CASE("another shell is a usage error naming the ones there are", "[completion]") {
  CHECK_THROWS_MATCHES(completion_script("tcsh", Tool().spec()), roofline::UsageError,
                       Catch::Message("SHELL: \"tcsh\" is not one of: bash, zsh, fish"));
  std::istringstream in;
  std::ostringstream out;
  std::ostringstream err;
  CHECK(run_cli({"completion", "tcsh"}, in, out, err, {}) == 2);
  CHECK(out.str().empty());
  CHECK(err.str() == "roofline: error: SHELL: \"tcsh\" is not one of: bash, zsh, fish\n");
}
