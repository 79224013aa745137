// Checkpoints on disk (issue 23 part 4): a directory with config.json and safetensors files (or
// their model.safetensors.index.json), a single safetensors file, and a repo id in the local
// Hugging Face cache. Only headers are read, never tensor data.
#pragma once

#include "roofline/scenario.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace roofline::io {

/// Header of one safetensors file: the 8-byte little-endian length, then that many bytes of JSON
/// naming each tensor's dtype, shape and data offsets. Adds its tensors to `into`. Throws
/// InputError naming the file and what is wrong (a header past the file, a shape that overflows,
/// offsets that disagree with dtype x shape).
void read_safetensors_header(const std::string& path, StoredCheckpoint& into);

/// What a checkpoint directory's safetensors files store: the shards its index names, else every
/// *.safetensors in it. nullopt when it has neither.
std::optional<StoredCheckpoint> read_checkpoint_dir(const std::string& dir);

/// The snapshot directory of `org/name` (or `org/name@revision`) in the local Hugging Face cache
/// (HF_HUB_CACHE, else HF_HOME/hub, else ~/.cache/huggingface/hub): refs/<revision> (default
/// main) when present, else the newest snapshot. nullopt when the cache holds no such repo.
std::optional<std::string> hf_cache_snapshot(std::string_view repo_id);

}  // namespace roofline::io
