// Option structs shared by the subcommands and their resolution into a Ctx.
#pragma once

#include "cli/context.hpp"
#include "io/preset_registry.hpp"

#include <CLI/CLI.hpp>

#include <istream>
#include <optional>
#include <string>
#include <vector>

namespace roofline::cli {

struct ModelOptions {
  std::string model;  ///< positional MODEL: preset, file or "-"
  std::optional<std::string> layers, hidden, heads, kv_heads, head_dim, ffn, vocab, max_seq_len;
  std::optional<std::string> window, global_every, experts, top_k, expert_ffn, shared_experts, shared_ffn, first_dense;
  std::optional<std::string> mlp, norm;
  bool tied = false;    ///< --tied
  bool untied = false;  ///< --untied
};

struct GpuOptions {
  std::string gpu;
  std::optional<std::string> memory, bandwidth;
  std::vector<std::string> peaks;  ///< "RATE" for the compute dtype, or "DTYPE=RATE"
  std::string gpus = "1";
};

struct WorkloadOptions {
  std::string batch = "1";
  std::optional<std::string> context;
  std::optional<std::string> prompt;
  std::string output = "256";
  std::optional<std::string> train_tokens;
  std::optional<std::string> measured_tokens_per_s;
  std::string dtype = "bf16";
  std::optional<std::string> weight_bits;
  std::optional<std::string> kv_dtype;
  std::optional<std::string> compute_dtype;
  std::string reserve = "0 B";
  std::string bw_efficiency = "1";
  std::string mfu = "1";
  std::string basis = "physical";
  std::string attention = "causal";
  std::string lm_head = "last";
  std::string decode_bytes = "touched";
  std::string moe_decode = "expected";
  bool require_fit = false;  ///< exit 3 when the capacity check fails
};

void add_model_options(CLI::App* app, ModelOptions& o, bool model_required);
void add_gpu_options(CLI::App* app, GpuOptions& o, bool required);
void add_workload_options(CLI::App* app, WorkloadOptions& o);

/// Loads the model (preset, file, stdin or flags alone) and applies every override flag.
io::ModelPreset resolve_model(const ModelOptions& o, const io::PresetRegistry& reg, std::istream& in);

/// Builds the whole context; gpu is resolved only when o.gpu is set.
Ctx resolve(const ModelOptions& mo, const GpuOptions& go, const WorkloadOptions& wo, const io::PresetRegistry& reg,
            std::istream& in);

/// A HardwareConfig with the override flags applied; a bare --gpu-peak RATE sets `compute`'s peak.
HardwareConfig resolve_gpu(const GpuOptions& o, const io::PresetRegistry& reg, DType compute);

}  // namespace roofline::cli
