// Resolved inputs of one command: model, counts, accelerator, workload, effective rates.
#pragma once

#include "io/preset_json.hpp"

#include "roofline/decode.hpp"
#include "roofline/hardware_config.hpp"
#include "roofline/params.hpp"
#include "roofline/workload.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace roofline::cli {

struct Ctx {
  io::ModelPreset model;
  ParamCounts counts;
  std::optional<HardwareConfig> gpu;
  Workload w;
  std::int64_t devices = 1;
  units::Bytes capacity{};          ///< per device, after any --gpu-memory override
  std::string capacity_convention;  ///< "device" or "override"
  bool has_peak = false;            ///< the accelerator publishes a peak for the compute dtype
  units::FlopPerSecond peak_nominal{};
  units::BytesPerSecond bw_nominal{};
  Machine machine{};  ///< effective: peak x mfu, bandwidth x bw_efficiency
  bool context_given = false;
  std::int64_t train_tokens = 0;     ///< D for training compute; 0 when not asked
  double measured_tokens_per_s = 0;  ///< measured training throughput of the job; 0 when not given
  std::vector<std::string> notes;

  [[nodiscard]] const ModelConfig& m() const { return model.config; }
  [[nodiscard]] double kv_b() const { return dtype_bytes(w.kv_dtype); }
};

/// The JSON echo of an accelerator: capacity as used, bandwidth, peaks per dtype.
nlohmann::json gpu_json(const HardwareConfig& h, units::Bytes capacity,
                        std::optional<units::FlopPerSecond> compute_peak);

/// The conventions in force, by name (the JSON `inputs.conventions`).
nlohmann::json conventions_json(const Ctx& c);

/// The JSON echo of every resolved input and convention.
nlohmann::json inputs_json(const Ctx& c);

}  // namespace roofline::cli
