// roofline plot: the chart's coordinates are the single commands' results (each point checked
// against the command's JSON at that point, the roofs against the presets' datasheet figures), the
// terminal picture keeps to the width and to plain text unless colour is asked for, and every
// misuse is one line with its exit code.
#include "cli/plot.hpp"

#include "cli/app.hpp"
#include "format/plot.hpp"
#include "io/preset_registry.hpp"
#include "io/scenario_spec.hpp"
#include "io/sweep.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <tuple>

using namespace roofline;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
using format::plot::Chart;
using format::plot::Mark;
using format::plot::Point;

namespace {

struct Run {
  int code;
  std::string out;
  std::string err;
};

Run run(const std::vector<std::string>& args, const cli::Env& env = {}) {
  std::istringstream in;
  std::ostringstream out;
  std::ostringstream err;
  const int code = cli::run_cli(args, in, out, err, env);
  return {code, out.str(), err.str()};
}

nlohmann::json json_of(std::vector<std::string> args) {
  args.insert(args.end(), {"--format", "json", "-q"});
  const Run r = run(args);
  INFO(r.err);
  REQUIRE(r.code == 0);
  return nlohmann::json::parse(r.out);
}

const io::InputDef& input(std::string_view name) {
  const auto& defs = io::input_defs();
  return *std::find_if(defs.begin(), defs.end(), [&](const io::InputDef& d) { return name == d.name; });
}

// The chart plot draws for llama3-8b on `gpus` (a comma list), with `list` on --batch (or
// --concurrency for serve) and single-valued inputs in `extra`.
Chart chart_of(const std::string& kind, const std::string& gpus, const std::string& list,
               const std::vector<std::pair<std::string, std::string>>& extra = {}, const std::string& gemm = "") {
  const io::PresetRegistry reg({});
  io::ScenarioSpec spec;
  io::Diagnostics diag;
  spec.model = "llama3-8b";
  spec.gpu = gpus;
  for (const auto& [name, value] : extra) io::set_input(spec, input(name), value, diag);
  cli::PlotRequest req;
  req.options.kind = kind;
  req.options.gemm = gemm;
  if (!list.empty()) req.axes.push_back(io::sweep_axis(input(kind == "serve" ? "concurrency" : "batch"), list, diag));
  diag.check();
  io::ScenarioSpec first_spec = spec;
  first_spec.gpu = gpus.substr(0, gpus.find(','));
  std::istringstream in;
  const io::Resolved first = io::resolve(first_spec, reg, in, true);
  return cli::plot_picture(req, spec, first, reg).chart;
}

const Point& labelled(const Chart& c, const std::string& label) {
  const auto p = std::find_if(c.points.begin(), c.points.end(), [&](const Point& q) { return q.label == label; });
  INFO("label " << label);
  REQUIRE(p != c.points.end());
  return *p;
}

// The points of one accelerator (palette index) with one mark, in order.
std::vector<Point> points_of(const Chart& c, int colour, Mark m) {
  std::vector<Point> out;
  for (const Point& p : c.points) {
    if (p.colour == colour && p.mark == m) out.push_back(p);
  }
  return out;
}

constexpr double kH100Bw = 3.35e12;
constexpr double kH100Bf16 = 989.4e12;
constexpr double kMi300xBw = 5.3e12;
constexpr double kMi300xBf16 = 1307.4e12;

cli::Env terminal(int columns, bool tty = false) {
  cli::Env e;
  e.columns = columns;
  e.stdout_is_tty = tty;
  return e;
}

// Code points of a line (the picture is UTF-8; braille and box characters are one column each).
std::size_t columns_of(const std::string& line) {
  std::size_t n = 0;
  for (const char c : line) {
    if ((static_cast<unsigned char>(c) & 0xC0U) != 0x80U) ++n;
  }
  return n;
}

}  // namespace

TEST_CASE("plot: decode points sit at the decode command's intensity, on each accelerator's roof", "[plot]") {
  const Chart c = chart_of("roofline", "h100-sxm,mi300x", "1,8,64,512");
  const std::vector<Point> h100 = points_of(c, 0, Mark::circle);
  const std::vector<Point> mi300x = points_of(c, 1, Mark::circle);
  REQUIRE(h100.size() == 4);
  REQUIRE(mi300x.size() == 4);
  const std::vector<std::string> batches = {"1", "8", "64", "512"};
  for (std::size_t i = 0; i < batches.size(); ++i) {
    CAPTURE(batches[i]);
    const nlohmann::json d =
        json_of({"decode", "llama3-8b", "--gpu", "h100-sxm", "--batch", batches[i]}).at("results").at("decode");
    const double intensity = d.at("intensity_flop_per_byte").get<double>();
    CHECK(h100[i].label == "decode B=" + batches[i]);
    CHECK_THAT(h100[i].x, WithinRel(intensity, 1e-12));
    CHECK_THAT(mi300x[i].x, WithinRel(intensity, 1e-12));  // the workload's, whatever the accelerator
    // Attainable = min(P, I BW) with the datasheets' figures; decode is memory-bound here, so I BW.
    CHECK_THAT(h100[i].y, WithinRel(std::min(kH100Bf16, intensity * kH100Bw), 1e-12));
    CHECK_THAT(mi300x[i].y, WithinRel(std::min(kMi300xBf16, intensity * kMi300xBw), 1e-12));
    // The decode command's own rate: F / t_step is the same point's height.
    CHECK_THAT(h100[i].y, WithinRel(d.at("flop_per_step").get<double>() / d.at("step_time_s").get<double>(), 1e-12));
  }
  // Batch 1 of an 8B model in bf16 reads ~2 bytes per 2 FLOPs a weight: about 1 FLOP/B.
  CHECK(h100[0].x > 0.9);
  CHECK(h100[0].x < 1.3);
}

TEST_CASE("plot: ridges are peak / bandwidth, roofs the datasheet peaks", "[plot]") {
  const Chart c = chart_of("roofline", "h100-sxm,mi300x", "1");
  CHECK_THAT(labelled(c, "ridge 295.3 FLOP/B").x, WithinRel(kH100Bf16 / kH100Bw, 1e-12));
  CHECK_THAT(labelled(c, "ridge 295.3 FLOP/B").y, WithinRel(kH100Bf16, 1e-12));
  CHECK_THAT(labelled(c, "ridge 246.7 FLOP/B").x, WithinRel(kMi300xBf16 / kMi300xBw, 1e-12));
  // Every roof of the H100: a flat line at the dtype's peak from its ridge.
  const std::vector<std::pair<std::string, double>> roofs = {{"fp64 34.00 TFLOP/s", 34e12},
                                                             {"fp32 67.00 TFLOP/s", 67e12},
                                                             {"tf32 494.7 TFLOP/s", 494.7e12},
                                                             {"bf16, fp16 989.4 TFLOP/s", 989.4e12},
                                                             {"fp8, int8 1.979 PFLOP/s", 1978.9e12}};
  for (const auto& roof : roofs) {
    const std::string& label = roof.first;  // a name, not a binding: lambdas capture it in C++20 on clang 14
    const double peak = roof.second;
    CAPTURE(label);
    const auto s = std::find_if(c.series.begin(), c.series.end(),
                                [&](const format::plot::Series& x) { return x.label == label && x.colour == 0; });
    REQUIRE(s != c.series.end());
    CHECK_THAT(s->xy.front().second, WithinRel(peak, 1e-12));
    CHECK_THAT(s->xy.front().first, WithinRel(peak / kH100Bw, 1e-12));
    CHECK(s->dashed == (label != "bf16, fp16 989.4 TFLOP/s"));  // the compute type's roof is solid
  }
  // The slope meets the highest roof at its ridge.
  const format::plot::Series& slope = c.series.front();
  CHECK_THAT(slope.xy.back().first, WithinRel(1978.9e12 / kH100Bw, 1e-12));
  CHECK_THAT(slope.xy.back().second, WithinRel(1978.9e12, 1e-12));
}

TEST_CASE("plot: prefill, the layer's operators and a GEMM are the prefill, layer and gemm results", "[plot]") {
  const Chart c = chart_of("roofline", "h100-sxm", "1", {{"prompt", "4096"}}, "8192,8192,8192");
  const nlohmann::json p =
      json_of({"prefill", "llama3-8b", "--gpu", "h100-sxm", "--prompt", "4096"}).at("results").at("prefill");
  const Point& prefill = labelled(c, "prefill S=4,096");
  CHECK_THAT(prefill.x, WithinRel(p.at("prefill_intensity_flop_per_byte").get<double>(), 1e-12));
  CHECK_THAT(prefill.y, WithinRel(std::min(kH100Bf16, prefill.x * kH100Bw), 1e-12));
  // A square GEMM in bf16: 2n^3 / (2 x 3n^2) = n/3 FLOP/B, past the ridge: at the peak.
  const nlohmann::json g = json_of({"gemm", "8192", "8192", "8192", "--gpu", "h100-sxm"}).at("results").at("gemm");
  const Point& gemm = labelled(c, "GEMM 8192x8192x8192");
  CHECK_THAT(gemm.x, WithinRel(8192.0 / 3.0, 1e-12));
  CHECK_THAT(gemm.x, WithinRel(g.at("intensity_flop_per_byte").get<double>(), 1e-12));
  CHECK_THAT(gemm.y, WithinRel(kH100Bf16, 1e-12));
  // The norms of a decode step: 2d FLOPs (the weight multiply) over d weights + d in + d out in
  // bf16, 2d / 6d = 1/3 FLOP/B; both norms coincide and share one label.
  const Point& norms = labelled(c, "input norm, post-attention norm");
  CHECK(norms.mark == Mark::triangle);
  CHECK_THAT(norms.x, WithinRel(1.0 / 3.0, 1e-12));
  CHECK_THAT(norms.y, WithinRel(kH100Bw / 3.0, 1e-12));
  // Operators with no FLOPs counted cannot sit on a log axis: a note names them.
  REQUIRE(!c.notes.empty());
  CHECK(c.notes.front().find("softmax") != std::string::npos);
  CHECK(c.notes.front().find("residual add") != std::string::npos);
}

TEST_CASE("plot: memory bars are the memory command's terms", "[plot]") {
  const Chart c = chart_of("memory", "h100-sxm,mi300x", "1,64,512", {{"context", "8k"}});
  REQUIRE(c.bars.size() == 6);
  for (std::size_t i = 0; i < c.bars.size(); ++i) {
    const format::plot::Bar& b = c.bars[i];
    const std::string gpu = i < 3 ? "h100-sxm" : "mi300x";
    const std::string batch = std::vector<std::string>{"1", "64", "512"}[i % 3];
    CAPTURE(gpu, batch);
    CHECK(b.label == gpu + " B=" + batch);
    const nlohmann::json m = json_of({"memory", "llama3-8b", "--gpu", gpu, "--batch", batch, "--context", "8k"})
                                 .at("results")
                                 .at("capacity");
    CHECK_THAT(b.limit, WithinRel(m.at("capacity_bytes").get<double>(), 1e-12));
    CHECK(b.segments.at(0).name == "weights");
    CHECK_THAT(b.segments.at(0).value, WithinRel(m.at("weight_bytes").get<double>(), 1e-12));
    const double terms = b.segments.at(0).value + b.segments.at(1).value + b.segments.at(2).value;
    CHECK_THAT(terms, WithinRel(m.at("required_bytes").get<double>(), 1e-12));
    const bool fits = m.at("fits").get<bool>();
    CHECK((b.segments.size() == 4) == fits);  // a "free" term only when it fits
    if (fits) CHECK_THAT(terms + b.segments.at(3).value, WithinRel(b.limit, 1e-12));
    CHECK(b.note.find(fits ? "fits" : "does not fit") != std::string::npos);
  }
}

TEST_CASE("plot: training bars are the train command's memory terms, per micro-batch", "[plot]") {
  const io::PresetRegistry reg({});
  io::ScenarioSpec spec;
  io::Diagnostics diag;
  spec.model = "llama3-8b";
  spec.gpu = "h100-sxm,mi300x";
  for (const auto& [name, value] :
       std::vector<std::pair<std::string, std::string>>{{"gpus", "8"}, {"seq", "8192"}, {"zero", "1"}}) {
    io::set_input(spec, input(name), value, diag);
  }
  cli::PlotRequest req;
  req.options.kind = "train";
  req.axes.push_back(io::sweep_axis(input("micro-batch"), "1,2", diag));
  diag.check();
  io::ScenarioSpec first_spec = spec;
  first_spec.gpu = "h100-sxm";
  std::istringstream in;
  const Chart c = cli::plot_picture(req, spec, io::resolve(first_spec, reg, in, true), reg).chart;
  REQUIRE(c.bars.size() == 4);
  for (std::size_t i = 0; i < c.bars.size(); ++i) {
    const format::plot::Bar& b = c.bars[i];
    const std::string gpu = i < 2 ? "h100-sxm" : "mi300x";
    const std::string micro = i % 2 == 0 ? "1" : "2";
    CAPTURE(gpu, micro);
    CHECK(b.label == gpu + " b=" + micro);
    const nlohmann::json m = json_of({"train", "llama3-8b", "--gpu", gpu, "--gpus", "8", "--seq", "8192", "--zero", "1",
                                      "--micro-batch", micro})
                                 .at("results")
                                 .at("train_memory");
    CHECK_THAT(b.limit, WithinRel(m.at("capacity_bytes").get<double>(), 1e-12));
    const std::vector<std::pair<std::string, std::string>> terms = {{"weights", "weight_bytes"},
                                                                    {"gradients", "gradient_bytes"},
                                                                    {"optimizer", "optimizer_state_bytes"},
                                                                    {"activations", "activation_bytes"},
                                                                    {"reserve", "reserve_bytes"}};
    double sum = 0.0;
    for (std::size_t t = 0; t < terms.size(); ++t) {
      CHECK(b.segments.at(t).name == terms[t].first);
      CHECK_THAT(b.segments.at(t).value, WithinAbs(m.at(terms[t].second).get<double>(), 1e-3));
      sum += b.segments.at(t).value;
    }
    CHECK_THAT(sum, WithinRel(m.at("total_bytes").get<double>(), 1e-12));
    const bool fits = m.at("fits").get<bool>();
    CHECK((b.segments.size() == 6) == fits);  // a "free" term only when it fits
    CHECK(b.note.find(fits ? "fits" : "does not fit") != std::string::npos);
  }
  // 8 H100s at b = 2 do not hold it; 8 MI300X do.
  CHECK(c.bars[1].note.find("does not fit") != std::string::npos);
  CHECK(c.bars[3].note.find("fits, ") != std::string::npos);
}

TEST_CASE("plot: sweep curves are decode's tokens/s and serve's TPOT at each point", "[plot]") {
  const Chart d = chart_of("decode", "h100-sxm", "1,16,256");
  REQUIRE(d.points.size() == 3);
  for (const Point& p : d.points) {
    const auto b = std::to_string(static_cast<long>(p.x));
    CAPTURE(b);
    const nlohmann::json r = json_of({"decode", "llama3-8b", "--gpu", "h100-sxm", "--batch", b});
    CHECK_THAT(p.y, WithinRel(r.at("results").at("decode").at("decode_tokens_per_s").get<double>(), 1e-12));
    CHECK(p.hollow == !r.at("results").at("decode").at("fits").get<bool>());
  }
  const Chart s = chart_of("serve", "h100-sxm", "1,32,512", {{"prompt", "1024"}, {"output", "256"}});
  REQUIRE(s.points.size() == 3);
  for (const Point& p : s.points) {
    const auto n = std::to_string(static_cast<long>(p.x));
    CAPTURE(n);
    const nlohmann::json r =
        json_of({"serve", "llama3-8b", "--gpu", "h100-sxm", "--prompt", "1024", "--output", "256", "--concurrency", n});
    const nlohmann::json& st = r.at("results").at("steady_state");
    CHECK_THAT(p.y, WithinRel(st.at("steady_tpot_s").get<double>(), 1e-12));
    CHECK(p.hollow == (p.x > st.at("max_concurrency_sequences").get<double>()));
  }
}

TEST_CASE("plot: the terminal picture keeps to the width, in plain text unless colour is asked", "[plot]") {
  const std::vector<std::vector<std::string>> plots = {
      {"plot", "llama3-8b", "--gpu", "h100-sxm,mi300x", "--batch", "1,8,64,512", "--gemm", "4096,4096,4096"},
      {"plot", "llama3-8b", "--gpu", "h100-sxm,mi300x", "--kind", "memory", "--batch", "1,64,512"},
      {"plot", "llama3-8b", "--gpu", "h100-sxm", "--kind", "decode"},
      {"plot", "llama3-8b", "--gpu", "h100-sxm,mi300x", "--kind", "serve", "--tpot", "20ms"}};
  for (const auto& args : plots) {
    for (const int columns : {40, 57, 80, 132, 200}) {
      CAPTURE(args.at(5), columns);
      const Run r = run(args, terminal(columns));
      REQUIRE(r.code == 0);
      CHECK(r.out.find('\x1b') == std::string::npos);
      std::istringstream lines(r.out);
      std::string line;
      std::size_t widest = 0;
      std::size_t count = 0;
      while (std::getline(lines, line)) {
        widest = std::max(widest, columns_of(line));
        ++count;
      }
      CHECK(widest <= static_cast<std::size_t>(columns));
      CHECK(widest >= static_cast<std::size_t>(columns) - 12);  // it uses the width it has
      CHECK(count >= 8);
    }
  }
  const std::vector<std::string> roofline = plots.front();
  // A terminal gets colour; NO_COLOR, TERM=dumb and --color never take it away; --color always forces it.
  cli::Env tty = terminal(80, true);
  CHECK(run(roofline, tty).out.find("\x1b[34m") != std::string::npos);
  cli::Env no_color = tty;
  no_color.no_color = true;
  CHECK(run(roofline, no_color).out.find('\x1b') == std::string::npos);
  cli::Env dumb = tty;
  dumb.term_dumb = true;
  CHECK(run(roofline, dumb).out.find('\x1b') == std::string::npos);
  std::vector<std::string> never = roofline;
  never.insert(never.end(), {"--color", "never"});
  CHECK(run(never, tty).out.find('\x1b') == std::string::npos);
  std::vector<std::string> always = roofline;
  always.insert(always.end(), {"--color", "always"});
  CHECK(run(always, terminal(80)).out.find("\x1b[33m") != std::string::npos);  // the second accelerator
  // Narrower than 40 columns is drawn at 40; no width given is 80.
  const Run unknown = run(roofline);
  std::istringstream lines(unknown.out);
  std::string line;
  std::size_t widest = 0;
  while (std::getline(lines, line)) widest = std::max(widest, columns_of(line));
  CHECK(widest == 80);
}

TEST_CASE("plot: SVG on stdout with --format svg, to a file with -o, the same bytes", "[plot]") {
  const std::vector<std::string> args = {"plot", "llama3-8b", "--gpu", "h100-sxm,mi300x", "--batch", "1,8"};
  std::vector<std::string> svg = args;
  svg.insert(svg.end(), {"--format", "svg"});
  const Run r = run(svg);
  REQUIRE(r.code == 0);
  CHECK(r.out.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
  CHECK(r.out.find("<title>Roofline: llama3-8b on NVIDIA H100 SXM5 80GB and AMD Instinct MI300X</title>") !=
        std::string::npos);
  CHECK(r.out.find('\x1b') == std::string::npos);
  const std::string path = "plot_test_output.svg";
  std::vector<std::string> file = args;
  file.insert(file.end(), {"-o", path});
  const Run w = run(file);
  REQUIRE(w.code == 0);
  CHECK(w.out.empty());
  std::ifstream f(path, std::ios::binary);
  std::ostringstream written;
  written << f.rdbuf();
  CHECK(written.str() == r.out);
  std::remove(path.c_str());
}

TEST_CASE("plot: misuse is one line and the usage or input exit code", "[plot]") {
  const std::vector<std::tuple<std::vector<std::string>, int, std::string>> rows = {
      {{"plot", "llama3-8b", "--gpu", "h100-sxm", "--context", "1k,8k"},
       2,
       "roofline: error: --context: plot --kind roofline takes a list on --batch only; give --context one value\n"},
      {{"plot", "llama3-8b", "--gpu", "h100-sxm", "--kind", "memory", "--prompt", "512"},
       2,
       "roofline: error: --prompt: applies to plot --kind roofline or serve, not --kind memory\n"},
      {{"plot", "llama3-8b", "--gpu", "h100-sxm", "--zero", "1"},
       2,
       "roofline: error: --zero: applies to plot --kind train, not --kind roofline\n"},
      {{"plot", "llama3-8b", "--gpu", "h100-sxm", "--kind", "train", "--batch", "4"},
       2,
       "roofline: error: --batch: applies to plot --kind roofline, memory or decode (train: --micro-batch), not --kind "
       "train\n"},
      {{"plot", "llama3-8b", "--gpu", "h100-sxm", "--kind", "train", "--hfu", "0.5"},
       2,
       "roofline: error: --hfu: changes no memory; plot --kind train draws memory (train --hfu uses it)\n"},
      {{"plot", "llama3-8b", "--gpu", "h100-sxm", "--concurrency", "8"},
       2,
       "roofline: error: --concurrency: applies to plot --kind serve, not --kind roofline\n"},
      {{"plot", "llama3-8b", "--gpu", "h100-sxm", "--kind", "decode", "--gemm", "1,2,3"},
       2,
       "roofline: error: --gemm: applies to plot --kind roofline, not --kind decode\n"},
      {{"plot", "llama3-8b", "--gpu", "h100-sxm", "--gemm", "4096,4096"},
       1,
       "roofline: error: --gemm: \"4096,4096\" is not M,N,K, e.g. 4096,4096,4096\n"},
      {{"plot", "llama3-8b", "--gpu", "h100-sxm", "--format", "json"},
       2,
       "roofline: error: --format json: plot draws a picture, in the terminal (table) or as svg; the numbers are in "
       "decode, prefill, layer, memory and serve --format json\n"},
      {{"plot", "llama3-8b", "--gpu", "h100-sxm", "--explain"},
       2,
       "roofline: error: --explain: plot shows no formulas; decode, prefill and layer --explain do\n"},
      {{"decode", "llama3-8b", "--gpu", "h100-sxm", "--format", "svg"},
       2,
       "roofline: error: --format svg: only plot draws pictures; decode writes table, json, csv or markdown\n"},
      {{"decode", "llama3-8b", "--gpu", "h100-sxm", "--kind", "memory"},
       2,
       "roofline: error: --kind does not apply to decode; see roofline decode --help\n"},
      {{"plot", "llama3-8b", "--gpu", "h100-sxm,h10"},
       1,
       "roofline: error: --gpu: unknown preset \"h10\"; did you mean one of: h100-nvl, h100-pcie, h100-sxm?\n"},
      {{"plot", "llama3-8b", "--gpu", "h100-sxm", "-o", "/nonexistent-dir/r.svg"},
       1,
       "roofline: error: -o /nonexistent-dir/r.svg: cannot write the file: No such file or directory\n"},
      {{"plot", "llama3-8b", "--gpu", "h100-sxm", "--kind", "bars"}, 2, ""},
  };
  for (const auto& [args, code, message] : rows) {
    CAPTURE(args);
    const Run r = run(args);
    CHECK(r.code == code);
    CHECK(r.out.empty());
    if (!message.empty()) CHECK(r.err == message);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}
