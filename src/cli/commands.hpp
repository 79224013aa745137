// Report builders: one per command, composed from shared sections.
#pragma once

#include "cli/context.hpp"
#include "format/report.hpp"
#include "io/preset_registry.hpp"

#include <optional>

namespace roofline::cli {

format::Report build_params(const Ctx& c);
format::Report build_flops(const Ctx& c);
format::Report build_kv(const Ctx& c);
format::Report build_memory(const Ctx& c);
format::Report build_decode(const Ctx& c);
format::Report build_prefill(const Ctx& c);
format::Report build_serve(const Ctx& c);
format::Report build_report(const Ctx& c);

struct GemmArgs {
  double m = 0;
  double n = 0;
  double k = 0;
  DType dtype = DType::bf16;
};
format::Report build_gemm(const GemmArgs& g, const std::optional<HardwareConfig>& gpu);

format::Report build_gpus(const io::PresetRegistry& reg);
format::Report build_models(const io::PresetRegistry& reg);

}  // namespace roofline::cli
