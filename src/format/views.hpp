// Views: one per result, each a field table over (resolved inputs, result). Commands compose them.
#pragma once

#include "format/report.hpp"
#include "io/preset_registry.hpp"
#include "io/scenario_spec.hpp"

#include "roofline/analysis.hpp"

namespace roofline::format {

/// A report with the headline, the inputs echo, the CSV identity columns, notes and warnings.
/// `groups` (io::InputGroup bits) are the inputs the command reads: only those are shown.
Report start_report(const char* command, const io::Resolved& in, unsigned groups);

void add_params(Report& rep, const io::Resolved& in, const ParamsResult& r, bool explain, bool tables);
void add_flops(Report& rep, const io::Resolved& in, const FlopsResult& r, bool explain);
void add_kv(Report& rep, const io::Resolved& in, const KvResult& r, bool explain, bool tables);
void add_elementwise(Report& rep, const io::Resolved& in, const ElementwiseResult& r, bool explain);
void add_hardware(Report& rep, const io::Resolved& in, const HardwareResult& r, bool explain);
void add_capacity(Report& rep, const io::Resolved& in, const CapacityResult& r, bool explain);
void add_decode(Report& rep, const io::Resolved& in, const DecodeResult& r, bool explain);
void add_prefill(Report& rep, const io::Resolved& in, const PrefillResult& r, bool explain);
void add_serve(Report& rep, const io::Resolved& in, const ServeResult& r, bool explain);
void add_deployment(Report& rep, const io::Resolved& in, const DeploymentResult& r, bool explain);
void add_plan(Report& rep, const std::vector<PlanOption>& options, const PlanInputs& in, bool explain);
void add_speculative(Report& rep, const io::Resolved& in, const SpeculativeResult& r, bool explain);
void add_train(Report& rep, const io::Resolved& in, const TrainResult& r, bool explain);
/// layer: the pass's totals (unfused and fused), one table per layer kind and one for the head.
void add_layer(Report& rep, const io::Resolved& in, const LayerResult& r, bool explain);
/// The notes about the model itself (multi-token-prediction layers, checkpoint tensors).
void add_model_notes(Report& rep, const io::Resolved& in);

Report gemm_report(const GemmResult& r, const std::optional<HardwareConfig>& gpu, std::string_view gpu_requested,
                   bool explain);
Report gpus_report(const io::PresetRegistry& reg);
Report models_report(const io::PresetRegistry& reg);

}  // namespace roofline::format
