// Sweep syntax (io/sweep.hpp): lists, ranges with a step or a factor, their mixtures, the cap on
// points, and the exact one-line error for every malformed sweep, named by its flag.
#include "io/sweep.hpp"

#include "roofline/errors.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

using namespace roofline;

namespace {

const io::InputDef& def(const char* name) {
  for (const io::InputDef& d : io::input_defs()) {
    if (std::string(d.name) == name) return d;
  }
  FAIL("no input " << name);
  throw std::logic_error("unreachable");
}

// The message one malformed sweep of `flag` records, as the CLI prints it.
std::string error_of(const char* flag, const char* text) {
  io::Diagnostics diag;
  const io::SweepAxis axis = io::sweep_axis(def(flag), text, diag);
  CHECK(axis.texts.empty());
  try {
    diag.check();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("io: sweep: what is a sweep", "[io][sweep]") {
  CHECK(io::is_sweep_text("1,2"));
  CHECK(io::is_sweep_text("1..8"));
  CHECK(io::is_sweep_text("1k..128k*2"));
  CHECK_FALSE(io::is_sweep_text("8k"));
  CHECK_FALSE(io::is_sweep_text("1.5k"));
  CHECK_FALSE(io::is_sweep_text("1e3"));
}

TEST_CASE("io: sweep: lists and ranges of counts", "[io][sweep]") {
  struct Row {
    const char* text;
    std::vector<std::int64_t> values;
  };
  const std::vector<Row> rows = {
      {"1,8,32", {1, 8, 32}},
      {"32,8,1", {32, 8, 1}},        // the order given
      {"8,8", {8, 8}},               // repeats kept
      {" 1 , 2 ", {1, 2}},           // spaces around items
      {"1..4", {1, 2, 3, 4}},        // step 1
      {"5..5", {5}},                 // one value
      {"0..3", {0, 1, 2, 3}},        // from zero (a context)
      {"1..20+8", {1, 9, 17}},       // the end only when a step reaches it
      {"8..32+8", {8, 16, 24, 32}},  //
      {"1..1024*2", {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}},
      {"1..1000*10", {1, 10, 100, 1000}},
      {"3..100*3", {3, 9, 27, 81}},
      {"1k..128k*2", {1000, 2000, 4000, 8000, 16000, 32000, 64000, 128000}},  // k = 1000
      {"1Ki..8Ki*2", {1024, 2048, 4096, 8192}},                               // Ki = 1024
      {"1k..3k+1k", {1000, 2000, 3000}},                                      // a step with a multiplier
      {"1,2,4..16*2", {1, 2, 4, 8, 16}},                                      // a mixture
      {"1..3,100,1k..2k+500", {1, 2, 3, 100, 1000, 1500, 2000}},
      {"1e3..3e3+1e3", {1000, 2000, 3000}},  // exponents are counts too
      {"1e+3..2e+3+1e+3", {1000, 2000}},     // an exponent's + is not a step
  };
  for (const Row& r : rows) {
    INFO(r.text);
    CHECK(io::expand_counts(r.text) == r.values);
  }
}

TEST_CASE("io: sweep: malformed sweeps name the flag, the text and what is allowed", "[io][sweep]") {
  struct Row {
    const char* flag;
    const char* text;
    const char* message;
  };
  const std::vector<Row> rows = {
      {"batch", "1,,2", "--batch: \"1,,2\" has an empty item; separate values with single commas"},
      {"batch", "1,2,", "--batch: \"1,2,\" has an empty item; separate values with single commas"},
      {"batch", ",", "--batch: \",\" has an empty item; separate values with single commas"},
      {"batch", "1..", "--batch: \"1..\": a range needs both ends, as in \"1..64\""},
      {"batch", "..8", "--batch: \"..8\": a range needs both ends, as in \"1..64\""},
      {"batch", "1..*2", "--batch: \"1..*2\": a range needs both ends, as in \"1..64\""},
      {"batch", "1..8..16", "--batch: \"1..8..16\" has more than one \"..\""},
      {"batch", "64..1", "--batch: \"64..1\" runs downwards; write a range from its smaller end, as in \"1..64\""},
      {"batch", "1..64+0", "--batch: \"1..64+0\": the step must be at least 1"},
      {"batch", "1..64*1", "--batch: \"1..64*1\": the factor must be at least 2"},
      {"batch", "1..64*", "--batch: \"1..64*\": a step needs a value, as in \"1..64+8\" or \"1..1024*2\""},
      {"context", "0..64*2", "--context: \"0..64*2\": a geometric range starts at 1 or more"},
      {"batch", "1..64*1.5", "--batch: \"1.5\" is not a whole number"},
      {"batch", "1..8x",
       "--batch: \"8x\": unknown multiplier \"x\"; allowed k/K M G/B T P (powers of 1000) or Ki "
       "Mi Gi Ti Pi (powers of 1024)"},
      {"batch", "0..8", "--batch: \"0\" must be at least 1"},  // each value as one run reads it
      {"batch", "1..2M", "--batch: \"1..2M\" has 2,000,000 values; a sweep has at most 1,000,000 points"},
      {"context", "0..1T", "--context: \"0..1T\" has 1,000,000,000,001 values; a sweep has at most 1,000,000 points"},
      {"batch", "1..600k,1..600k",
       "--batch: \"1..600k,1..600k\" has 1,200,000 values; a sweep has at most 1,000,000 points"},
      {"kv-dtype", "bf16,,fp8", "--kv-dtype: \"bf16,,fp8\" has an empty item; separate values with single commas"},
      {"kv-dtype", "bf16..fp8",
       "--kv-dtype: \"bf16..fp8\" is a range; this input takes a list of names, as in \"bf16,fp8\""},
      {"kv-dtype", "bf16,fp7",
       "--kv-dtype: \"fp7\" is not a data type; allowed: fp64, fp32, tf32, bf16, fp16, fp8, int8, int4, fp4"},
  };
  for (const Row& r : rows) {
    INFO(r.flag << " " << r.text);
    CHECK(error_of(r.flag, r.text) == r.message);
  }
}

TEST_CASE("io: sweep: an axis holds each value as the flag's own text", "[io][sweep]") {
  io::Diagnostics diag;
  const io::SweepAxis batch = io::sweep_axis(def("batch"), "1,4..16*2", diag);
  CHECK(batch.texts == std::vector<std::string>{"1", "4", "8", "16"});
  CHECK(batch.counts == std::vector<std::int64_t>{1, 4, 8, 16});
  const io::SweepAxis kv = io::sweep_axis(def("kv-dtype"), "bf16, fp8", diag);
  CHECK(kv.texts == std::vector<std::string>{"bf16", "fp8"});
  CHECK(kv.counts.empty());
  CHECK(diag.empty());
}

TEST_CASE("io: sweep: the workload axes are marked in the input table", "[io][sweep]") {
  std::vector<std::string> counts;
  std::vector<std::string> names;
  for (const io::InputDef& d : io::input_defs()) {
    if (d.sweep == io::Sweep::counts) counts.emplace_back(d.name);
    if (d.sweep == io::Sweep::names) names.emplace_back(d.name);
  }
  CHECK(counts == std::vector<std::string>{"gpus", "batch", "context", "prompt", "output", "concurrency", "tp", "pp",
                                           "dp", "micro-batch", "seq"});
  CHECK(names == std::vector<std::string>{"dtype", "kv-dtype"});
}

TEST_CASE("io: sweep: a grid's points, capped at a million", "[io][sweep]") {
  io::Diagnostics diag;
  const io::SweepAxis batch = io::sweep_axis(def("batch"), "1..1000", diag);
  const io::SweepAxis context = io::sweep_axis(def("context"), "1..1000", diag);
  const io::SweepAxis kv = io::sweep_axis(def("kv-dtype"), "bf16,fp8", diag);
  REQUIRE(diag.empty());
  CHECK(io::sweep_points({batch}) == 1000);
  CHECK(io::sweep_points({batch, context}) == 1'000'000);
  CHECK_THROWS_WITH(io::sweep_points({batch, context, kv}),
                    "--batch x --context x --kv-dtype: 1,000 x 1,000 x 2 = 2,000,000 points; a sweep has at most "
                    "1,000,000 (--format jsonl or csv streams up to 1,000,000,000,000)");
  const io::SweepAxis big = io::sweep_axis(def("seq"), "1..1000000", diag);
  REQUIRE(diag.empty());
  CHECK_THROWS_WITH(io::sweep_points({big, big, big, big}),
                    "--seq x --seq x --seq x --seq: 1,000,000 x 1,000,000 x 1,000,000 x 1,000,000 points; a sweep "
                    "has at most 1,000,000 (--format jsonl or csv streams up to 1,000,000,000,000)");
  // Streamed, the grid may pass a million points, up to its own limit.
  CHECK(io::sweep_points({batch, context, kv}, io::kMaxStreamedPoints) == 2'000'000);
  CHECK_THROWS_WITH(io::sweep_points({big, big, big}, io::kMaxStreamedPoints),
                    "--seq x --seq x --seq: 1,000,000 x 1,000,000 x 1,000,000 = 1,000,000,000,000,000,000 points; a "
                    "sweep has at most 1,000,000,000,000");
}

namespace {

const io::PresetRegistry& registry() {
  static const io::PresetRegistry reg({});
  return reg;
}

io::ScenarioSpec spec_of(const std::vector<std::pair<const char*, const char*>>& flags) {
  io::ScenarioSpec spec;
  io::Diagnostics diag;
  for (const auto& [name, value] : flags) {
    if (std::string(name) == "model") {
      spec.model = value;
    } else {
      io::set_input(spec, def(name), value, diag);
    }
  }
  diag.check();
  return spec;
}

// Everything resolve_point() rebuilds, compared field by field.
void check_same(const io::Resolved& a, const io::Resolved& b) {
  const Scenario& x = a.scenario;
  const Scenario& y = b.scenario;
  CHECK(x.workload.batch == y.workload.batch);
  CHECK(x.workload.context == y.workload.context);
  CHECK(x.workload.prompt == y.workload.prompt);
  CHECK(x.workload.output == y.workload.output);
  CHECK(x.workload.weight_dtype == y.workload.weight_dtype);
  CHECK(x.workload.weight_format == y.workload.weight_format);
  CHECK(x.workload.weight_bits == y.workload.weight_bits);
  CHECK(x.workload.compute_dtype == y.workload.compute_dtype);
  CHECK(x.workload.kv_dtype == y.workload.kv_dtype);
  CHECK(x.workload.reserve.base() == y.workload.reserve.base());
  CHECK(x.deployment.devices == y.deployment.devices);
  CHECK(x.deployment.tensor == y.deployment.tensor);
  CHECK(x.deployment.pipeline == y.deployment.pipeline);
  CHECK(x.deployment.data == y.deployment.data);
  CHECK(x.training.micro_batch == y.training.micro_batch);
  CHECK(x.training.seq_len == y.training.seq_len);
  CHECK(x.training.grad_accum == y.training.grad_accum);
  CHECK(x.training.shard_group == y.training.shard_group);
  REQUIRE(x.accelerator.has_value() == y.accelerator.has_value());
  if (x.accelerator) {
    for (DType t : kAllDTypes) {
      INFO(dtype_name(t));
      CHECK(x.accelerator->hw.peak_for(t).has_value() == y.accelerator->hw.peak_for(t).has_value());
      if (x.accelerator->hw.peak_for(t))
        CHECK(x.accelerator->hw.peak_for(t)->base() == y.accelerator->hw.peak_for(t)->base());
    }
  }
  CHECK(a.context_defaulted == b.context_defaulted);
  CHECK(a.notes == b.notes);
  CHECK(a.warnings == b.warnings);
}

}  // namespace

TEST_CASE("io: sweep: resolve_fixed then resolve_point at each point is resolve", "[io][sweep]") {
  struct Row {
    const char* label;
    bool training;
    std::vector<std::pair<const char*, const char*>> fixed;
    const char* flag;
    std::vector<const char*> values;
  };
  const std::vector<Row> rows = {
      {"decode batch", false, {{"model", "llama3-8b"}, {"gpu", "h100"}}, "batch", {"1", "64", "8"}},
      {"context past the trained one",
       false,
       {{"model", "llama3-8b"}, {"gpu", "h100-sxm"}},
       "context",
       {"100000", "8192", "0"}},
      // A --gpu-peak without a dtype follows the compute dtype, which the weight type decides.
      {"weights with a dtype-less peak",
       false,
       {{"model", "llama3-8b"}, {"gpu", "h100-sxm"}, {"gpu-peak", "500TFLOP/s"}, {"reserve", "10%"}},
       "dtype",
       {"fp8", "bf16", "int8"}},
      {"devices", false, {{"model", "llama2-70b"}, {"gpu", "mi300x"}}, "gpus", {"2", "1", "4"}},
      {"tensor parallel",
       true,
       {{"model", "llama3-70b"}, {"gpu", "h100-sxm"}, {"gpus", "64"}, {"fsdp", "hybrid"}},
       "tp",
       {"8", "1", "4"}},
      {"training devices",
       true,
       {{"model", "llama3-8b"}, {"gpu", "h100-sxm"}, {"zero", "3"}},
       "gpus",
       {"16", "8", "12"}},
  };
  std::istringstream in;
  for (const Row& r : rows) {
    INFO(r.label);
    io::ScenarioSpec spec = spec_of(r.fixed);
    def(r.flag).set(spec, r.values.front());
    io::Resolved point = io::resolve_fixed(spec, registry(), in, true);
    for (const char* v : r.values) {
      INFO(r.flag << " " << v);
      def(r.flag).set(spec, v);
      io::resolve_point(spec, point, r.training);
      check_same(point, io::resolve(spec, registry(), in, true, r.training));
    }
  }
}

TEST_CASE("io: sweep: a point's own problems are thrown by resolve_point", "[io][sweep]") {
  std::istringstream in;
  io::ScenarioSpec spec = spec_of({{"model", "llama3-8b"}, {"gpu", "h100-sxm"}, {"gpus", "8"}});
  io::Resolved r = io::resolve_fixed(spec, registry(), in, true);
  def("tp").set(spec, "3");
  CHECK_THROWS_WITH(io::resolve_point(spec, r, true),
                    "--gpus: 8 devices do not divide into --tp 3 x --pp 1 = 3 per model replica\n"
                    "--tp: the 32 query heads do not split over 3 ranks\n"
                    "--tp: the 8 KV heads neither split over nor replicate across 3 ranks");
}
