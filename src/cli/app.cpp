// The command table and the one catch site. main() forwards here; tests call it in-process.
#include "cli/app.hpp"

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "io/preset_registry.hpp"
#include "io/quantity_parse.hpp"

#include "roofline/checked.hpp"
#include "roofline/errors.hpp"
#include "roofline/version.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <iostream>
#include <memory>
#include <sstream>

namespace roofline::cli {
namespace {

struct GlobalOptions {
  std::string format = "table";
  bool explain = false;
  std::string units = "si";
  std::string color = "auto";
  std::vector<std::string> preset_dirs;
  bool quiet = false;
};

/// One model command: its options and the builder that turns a Ctx into a Report.
struct ModelCommand {
  const char* name;
  const char* help;
  bool needs_gpu;
  format::Report (*build)(const Ctx&);
  const char* examples;
};

constexpr ModelCommand kModelCommands[] = {
    {"report", "The whole picture for one model on one accelerator", false, build_report,
     "  roofline report llama3-8b --gpu h100-sxm\n"
     "  roofline report llama2-70b --gpu mi300x --batch 32 --context 4096\n"},
    {"params", "Parameter breakdown: per matrix, per layer, embedding, lm_head, total, active", false, build_params,
     "  roofline params llama3-8b\n"
     "  roofline params mixtral-8x7b --format json\n"},
    {"flops", "FLOPs per token under each basis, attention at a context, prefill, crossover", false, build_flops,
     "  roofline flops llama3-8b --prompt 2048\n"
     "  roofline flops llama3-8b --train-tokens 15T --gpu h100-sxm --gpus 1024 --mfu 40%\n"},
    {"kv", "KV cache per token, sequence and batch, per-layer layout, any KV dtype", false, build_kv,
     "  roofline kv llama2-70b --context 4096 --kv-dtype fp8\n"},
    {"memory", "Weights + KV + reserve against capacity: fits, longest context, most sequences", true, build_memory,
     "  roofline memory llama2-70b --gpu mi300x --context 4096 --batch 32\n"},
    {"decode", "Decode step floor, token-rate ceilings, bound, utilisation, compute-bound batch", true, build_decode,
     "  roofline decode llama3-8b --gpu mi300x --batch 32 --context 8192\n"},
    {"prefill", "Prefill FLOPs, bytes, intensity and time floor (TTFT floor)", true, build_prefill,
     "  roofline prefill llama3-8b --gpu h100-sxm --prompt 2048\n"},
    {"serve", "Concurrency under the KV budget and one request's latency floors", true, build_serve,
     "  roofline serve llama3-8b --gpu h100-sxm --prompt 1024 --output 256\n"},
};

const char* kMainFooter =
    "Examples:\n"
    "  roofline report llama3-8b --gpu h100-sxm\n"
    "  roofline kv llama2-70b --context 4096 --kv-dtype fp8\n"
    "  roofline params mixtral-8x7b --format json\n"
    "  roofline gpus\n"
    "\n"
    "MODEL is a preset (roofline models --names), a preset file, a Hugging Face config.json, or - for stdin.\n"
    "Sizes and rates take units: 80GiB, 3.35TB/s, 989.4TFLOP/s; counts take k/M (x1000) or Ki/Mi (x1024).\n"
    "Exit codes: 0 ok (a result such as \"does not fit\" is data), 1 bad input, 2 bad usage,\n"
    "3 the capacity check failed under --require-fit.\n"
    "See man roofline and docs/ for every formula and its source.";

std::vector<std::string> preset_dirs(const GlobalOptions& g, const Env& env) {
  std::vector<std::string> dirs;
  std::string p = env.preset_path;
  std::size_t start = 0;
  while (start <= p.size() && !p.empty()) {
    const std::size_t end = p.find(':', start);
    const std::string d = p.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!d.empty()) dirs.push_back(d);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  dirs.insert(dirs.end(), g.preset_dirs.begin(), g.preset_dirs.end());
  return dirs;
}

format::RenderOptions render_options(const GlobalOptions& g, const Env& env) {
  format::RenderOptions o;
  if (g.format == "json") o.format = format::OutputFormat::json;
  if (g.format == "csv") o.format = format::OutputFormat::csv;
  if (g.format == "markdown") o.format = format::OutputFormat::markdown;
  o.units = g.units == "iec" ? format::UnitSystem::iec : format::UnitSystem::si;
  o.explain = g.explain;
  const bool auto_color = (env.stdout_is_tty || env.clicolor_force) && !env.term_dumb && !env.no_color;
  o.color = o.format == format::OutputFormat::table && (g.color == "always" || (g.color == "auto" && auto_color));
  return o;
}

// The "fits" row of a report's capacity section, if it has one.
std::optional<bool> capacity_fits(const format::Report& r) {
  for (const format::Section& s : r.sections) {
    if (s.key != "capacity") continue;
    for (const format::Row& row : s.rows) {
      if (row.key == "fits") return std::get<bool>(row.value);
    }
  }
  return std::nullopt;
}

void warn(std::ostream& err, const GlobalOptions& g, const std::string& msg) {
  if (!g.quiet) err << "roofline: warning: " << msg << "\n";
}

// Warnings about inputs that are allowed but probably not meant.
void check_ctx(const Ctx& c, std::ostream& err, const GlobalOptions& g) {
  const ModelConfig& m = c.m();
  if (c.context_given && m.max_seq_len > 0 && c.w.context > m.max_seq_len) {
    warn(err, g,
         "--context " + std::to_string(c.w.context) + " exceeds the model's trained context of " +
             std::to_string(m.max_seq_len) + " tokens");
  }
  if (m.max_seq_len > 0 && c.w.prompt > m.max_seq_len) {
    warn(err, g,
         "--prompt " + std::to_string(c.w.prompt) + " exceeds the model's trained context of " +
             std::to_string(m.max_seq_len) + " tokens");
  }
  if (c.model.published_params && *c.model.published_params != c.counts.total) {
    warn(err, g,
         "computed " + std::to_string(c.counts.total) + " parameters, but the preset publishes " +
             std::to_string(*c.model.published_params));
  }
}

}  // namespace

int run_cli(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err,
            const Env& env) {
  CLI::App app{"roofline: size LLMs and place their workloads on the roofline of real accelerators", "roofline"};
  app.set_version_flag("--version", "roofline " ROOFLINE_VERSION);
  app.footer(kMainFooter);
  app.require_subcommand(1);
  GlobalOptions g;
  app.add_option("--format", g.format, "table, json, csv or markdown [default: table]")
      ->check(CLI::IsMember({"table", "json", "csv", "markdown"}));
  app.add_flag("--explain", g.explain, "Show every formula with its values substituted and its source");
  app.add_option("--units", g.units, "si (GB = 10^9) or iec (GiB = 2^30) for byte displays [default: si]")
      ->check(CLI::IsMember({"si", "iec"}));
  app.add_option("--color", g.color, "auto, always or never [default: auto]")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  app.add_option("--preset-dir", g.preset_dirs, "Extra preset directory with models/ and gpus/ (repeatable)")
      ->type_name("DIR");
  app.add_flag("-q,--quiet", g.quiet, "Silence warnings");

  struct Bound {
    const ModelCommand* cmd;
    CLI::App* sub;
    std::unique_ptr<ModelOptions> mo = std::make_unique<ModelOptions>();
    std::unique_ptr<GpuOptions> go = std::make_unique<GpuOptions>();
    std::unique_ptr<WorkloadOptions> wo = std::make_unique<WorkloadOptions>();
  };
  // CLI11 checks every new option against all the others, so building all ~300 options costs
  // more than the whole computation. Only the command named on the line gets its options; the
  // others exist by name for the command list and --help.
  std::string selected;
  for (const std::string& a : args) {
    const bool is_command = std::any_of(std::begin(kModelCommands), std::end(kModelCommands),
                                        [&](const ModelCommand& c) { return a == c.name; });
    if (is_command) {
      selected = a;
      break;
    }
  }
  std::vector<Bound> bound;
  for (const ModelCommand& cmd : kModelCommands) {
    Bound b{&cmd, app.add_subcommand(cmd.name, cmd.help)};
    b.sub->fallthrough();
    b.sub->footer(std::string("Examples:\n") + cmd.examples);
    if (selected == cmd.name) {
      add_model_options(b.sub, *b.mo, false);
      add_gpu_options(b.sub, *b.go, cmd.needs_gpu);
      add_workload_options(b.sub, *b.wo);
    }
    bound.push_back(std::move(b));
  }

  std::vector<std::string> gemm_dims;
  std::string gemm_dtype = "bf16";
  std::string gemm_gpu;
  CLI::App* gemm = app.add_subcommand("gemm", "Intensity, attainable FLOP/s and bound of one matrix multiply");
  gemm->fallthrough();
  gemm->add_option("M N K", gemm_dims, "C(M x N) = A(M x K) B(K x N)")->expected(3)->required()->type_name("N");
  gemm->add_option("--dtype", gemm_dtype, "Element type [default: bf16]")->type_name("DTYPE");
  gemm->add_option("--gpu", gemm_gpu, "Accelerator for ridge, attainable rate and bound")->type_name("GPU");
  gemm->footer("Examples:\n  roofline gemm 4096 4096 4096 --gpu h100-sxm\n  roofline gemm 1 4096 4096 --dtype fp8\n");

  bool gpu_names = false;
  bool model_names = false;
  CLI::App* gpus = app.add_subcommand("gpus", "Accelerator presets with ridge points per dtype");
  gpus->fallthrough();
  gpus->add_flag("--names", gpu_names, "Bare names, one per line (for scripts and completion)");
  CLI::App* models = app.add_subcommand("models", "Model presets with their parameter counts");
  models->fallthrough();
  models->add_flag("--names", model_names, "Bare names, one per line (for scripts and completion)");

  try {
    // Did-you-mean for a mistyped command, before CLI11 reports it as a stray argument.
    if (!args.empty() && !args.front().empty() && args.front()[0] != '-') {
      std::vector<std::string> names;
      for (const CLI::App* s : app.get_subcommands({})) names.push_back(s->get_name());
      if (std::find(names.begin(), names.end(), args.front()) == names.end()) {
        const std::string guess = io::did_you_mean(args.front(), names);
        throw UsageError("unknown command \"" + args.front() + "\"" +
                         (guess.empty() ? "; see roofline --help" : "; did you mean \"" + guess + "\"?"));
      }
    }
    std::vector<std::string> reversed(args.rbegin(), args.rend());
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {
      // --help and --version: to stdout, exit 0.
      std::ostringstream o;
      std::ostringstream ignored;
      app.exit(e, o, ignored);
      out << o.str();
      return 0;
    }
    std::string msg = e.what();
    while (!msg.empty() && msg.back() == '\n') msg.pop_back();
    for (char& ch : msg) {
      if (ch == '\n') ch = ' ';
    }
    err << "roofline: error: " << msg << "; see roofline --help\n";
    return 2;
  } catch (const Error& e) {
    err << "roofline: error: " << e.what() << "\n";
    return e.exit_code();
  }

  try {
    const io::PresetRegistry reg(preset_dirs(g, env));
    const format::RenderOptions ro = render_options(g, env);
    std::string text;
    int exit_code = 0;
    if (gpus->parsed()) {
      if (gpu_names) {
        for (const io::PresetEntry* e : reg.entries(io::PresetKind::gpu)) text += e->name + "\n";
      } else {
        text = format::render(build_gpus(reg), ro);
      }
    } else if (models->parsed()) {
      if (model_names) {
        for (const io::PresetEntry* e : reg.entries(io::PresetKind::model)) text += e->name + "\n";
      } else {
        text = format::render(build_models(reg), ro);
      }
    } else if (gemm->parsed()) {
      GemmArgs a;
      const char* names[] = {"M", "N", "K"};
      double* dims[] = {&a.m, &a.n, &a.k};
      for (std::size_t i = 0; i < 3; ++i) {
        try {
          *dims[i] = static_cast<double>(io::parse_count(gemm_dims.at(i)));
        } catch (const InputError& e) {
          throw InputError(std::string(names[i]) + ": " + e.what());
        }
        if (*dims[i] < 1) throw InputError(std::string(names[i]) + ": must be at least 1");
      }
      const auto t = dtype_from_name(gemm_dtype);
      if (!t)
        throw UsageError("--dtype: \"" + gemm_dtype +
                         "\" is not a data type; allowed: fp64, fp32, tf32, bf16, fp16, fp8, int8, int4, fp4");
      a.dtype = *t;
      std::optional<HardwareConfig> hw;
      if (!gemm_gpu.empty()) hw = reg.load_gpu(gemm_gpu);
      text = format::render(build_gemm(a, hw), ro);
    } else {
      for (const Bound& b : bound) {
        if (!b.sub->parsed()) continue;
        const Ctx c = resolve(*b.mo, *b.go, *b.wo, reg, in);
        check_ctx(c, err, g);
        const format::Report report = b.cmd->build(c);
        text = format::render(report, ro);
        if (b.wo->require_fit) {
          const std::optional<bool> fits = capacity_fits(report);
          if (!fits)
            throw UsageError("--require-fit: " + std::string(b.cmd->name) +
                             " has no capacity check; use memory, serve or report with --gpu");
          if (!*fits) exit_code = 3;
        }
      }
    }
    // Never print partial results: everything is rendered before anything is written.
    out << text;
    return exit_code;
  } catch (const Error& e) {
    err << "roofline: error: " << e.what() << "\n";
    return e.exit_code();
  } catch (const OverflowError& e) {
    err << "roofline: error: " << e.what() << "; the inputs are too large to count exactly\n";
    return 1;
  } catch (const nlohmann::json::exception& e) {
    err << "roofline: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    err << "roofline: error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace roofline::cli
