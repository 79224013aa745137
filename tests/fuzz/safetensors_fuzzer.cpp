// Safetensors headers (issue 23's checkpoints on disk): the bytes are a file's header. The first
// byte says how the file is written (bit 0 set: the 8-byte length prefix is the header's own
// length; clear: the next 8 bytes are the prefix as given), the next two bytes (little-endian) are
// the size of the zero-filled data buffer after the header, the rest is the header text; bits 4-7
// of the first byte clear send a refused header to the CLI too. The file
// goes to model.safetensors in a temporary directory made once per process, beside a config.json of
// a 760-parameter Llama. read_safetensors_header reads it, then `params DIR` runs through run_cli.
// Checks, beyond the CLI contract: only the project's errors escape, each one line naming the file;
// a header read without error describes one file whose totals are the sums of its dtypes', no count
// negative, each known dtype's bytes its elements times its size, and its tensors' bytes exactly
// the data buffer (the offsets tile it); the CLI accepts exactly the headers the reader accepts.
#include "io/checkpoint.hpp"

#include "roofline/checked.hpp"
#include "roofline/errors.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <unistd.h>

#include "fuzz_common.hpp"

namespace {

using roofline::fuzz::finding;
namespace fs = std::filesystem;

// The harness's directory, made once, with a config.json of a 760-parameter Llama in it.
struct CheckpointDir {
  roofline::fuzz::TempDir temp{"st"};
  CheckpointDir() {
    // A Llama of d = 8, one layer, 2 heads of 4, one KV head, d_ff = 16, V = 10: 760 parameters.
    const std::string config = R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 8,
      "num_hidden_layers": 1, "num_attention_heads": 2, "num_key_value_heads": 1, "intermediate_size": 16,
      "vocab_size": 10, "max_position_embeddings": 64, "tie_word_embeddings": false})";
    std::FILE* f = std::fopen((temp.dir + "/config.json").c_str(), "wb");
    if (f == nullptr) finding("safetensors", "cannot write config.json");
    std::fwrite(config.data(), 1, config.size(), f);
    std::fclose(f);
  }
};

// Bytes per element of the dtypes the reader checks, as the safetensors format names them.
std::int64_t known_size(const std::string& dtype) {
  if (dtype == "F64" || dtype == "I64" || dtype == "U64") return 8;
  if (dtype == "F32" || dtype == "I32" || dtype == "U32") return 4;
  if (dtype == "F16" || dtype == "BF16" || dtype == "I16" || dtype == "U16") return 2;
  if (dtype == "F8_E4M3" || dtype == "F8_E5M2" || dtype == "F8_E8M0" || dtype == "I8" || dtype == "U8" ||
      dtype == "BOOL") {
    return 1;
  }
  return 0;
}

void check_stored(const roofline::StoredCheckpoint& s, std::uint64_t data, std::string_view input) {
  std::int64_t tensors = 0;
  std::int64_t elements = 0;
  std::int64_t bytes = 0;
  for (const roofline::StoredDtype& d : s.by_dtype) {
    if (d.tensors <= 0 || d.elements < 0 || d.bytes < 0) finding("a dtype's counts out of range", input);
    const std::int64_t per = known_size(d.dtype);
    if (per > 0 && d.bytes != per * d.elements) finding("a known dtype's bytes are not elements x size", input);
    tensors += d.tensors;
    elements += d.elements;
    bytes += d.bytes;
  }
  if (s.files != 1) finding("one file read, but files is not 1", input);
  if (s.tensors != tensors || s.elements != elements || s.bytes != bytes) {
    finding("the totals are not the sums of the dtypes'", input);
  }
  if (static_cast<std::uint64_t>(s.bytes) != data) {
    finding("the tensors' bytes are not the data buffer's " + std::to_string(data), input);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const CheckpointDir checkpoint;
  const roofline::fuzz::TempDir& temp = checkpoint.temp;
  if (size < 3) return 0;
  const bool own_length = (data[0] & 1U) != 0;
  const std::size_t buffer = data[1] | (static_cast<std::size_t>(data[2]) << 8U);
  const std::string_view rest(reinterpret_cast<const char*>(data + 3), size - 3);
  std::string file;
  std::uint64_t header = 0;
  if (own_length) {
    header = rest.size();
    for (unsigned i = 0; i < 8; ++i) file.push_back(static_cast<char>((header >> (8U * i)) & 0xFFU));
    file.append(rest);
  } else {
    file.assign(rest);
    for (std::size_t i = 0; i < 8 && i < rest.size(); ++i) {
      header |= static_cast<std::uint64_t>(static_cast<unsigned char>(rest[i])) << (8U * i);
    }
  }
  file.append(buffer, '\0');
  const std::string path = temp.dir + "/model.safetensors";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) finding("safetensors", "cannot write the file");
  std::fwrite(file.data(), 1, file.size(), f);
  std::fclose(f);

  bool accepted = false;
  try {
    roofline::StoredCheckpoint s;
    roofline::io::read_safetensors_header(path, s);
    accepted = true;
    // The data buffer: what follows the prefix and the header the reader accepted.
    check_stored(s, file.size() - 8 - header, rest);
  } catch (const roofline::Error& e) {
    roofline::fuzz::check_message(e.what(), true);
    if (std::string_view(e.what()).find("model.safetensors") == std::string_view::npos) {
      finding("a header's error does not name the file", e.what());
    }
  } catch (const roofline::OverflowError& e) {
    roofline::fuzz::check_message(e.what(), true);
  }

  // The CLI runs on every header the reader accepts, and on a refused one when the first byte's
  // high four bits are clear, so that most executions cost the reader alone (docs/reliability.md).
  if (!accepted && (data[0] >> 4U) != 0) return 0;
  const roofline::fuzz::CliRun r = roofline::fuzz::run_cli_sandboxed({"params", temp.dir}, "");
  roofline::fuzz::check_contract(r, rest);
  if (accepted != (r.code == 0)) {
    finding(
        accepted ? "the CLI refuses a header the reader accepts" : "the CLI answers from a header the reader refuses",
        r.err);
  }
  return 0;
}
