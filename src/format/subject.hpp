// What a view shows of a run besides its result: the resolved scenario, the name it goes by, the
// notes and warnings about it and the inputs to echo. The layer that read the inputs builds it
// (cli, from io's resolution), so format never sees how they were read.
#pragma once

#include "roofline/scenario.hpp"

#include <nlohmann/json_fwd.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace roofline::format {

/// The workload inputs and conventions a command reads: its headline and its CSV identity columns
/// show those alone.
struct Reads {
  bool gpu = false, devices = false, batch = false, context = false, prompt = false, output = false;
  bool weights = false, kv_dtype = false, compute_dtype = false, flops_basis = false, attention = false,
       lm_head = false, decode_bytes = false;
};

struct Subject {
  const Scenario& scenario;
  /// The model's name in headlines ("llama3-8b", "llama3-8b modified: --layers 40").
  const std::string& model_label;
  const std::vector<std::string>& notes;     ///< facts about this run, shown with the results
  const std::vector<std::string>& warnings;  ///< allowed but probably not meant
  /// The inputs echo (JSON "inputs"), built by whoever read them; null when the view leaves it out.
  std::shared_ptr<const nlohmann::json> inputs = nullptr;
  Reads reads = {};
  /// The currency --price was given in ("USD"), shown beside every cost; "" when it gave none.
  std::string currency = {};
};

}  // namespace roofline::format
