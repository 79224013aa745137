// Checkpoints on disk (issue 23 part 4): a directory with config.json and safetensors shards named
// by an index, one safetensors file, and a repo id in a local Hugging Face cache. Synthetic files,
// built here: the counts they store are known by construction. Only headers are read.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "cli_run.hpp"

namespace fs = std::filesystem;

namespace {

using Run = roofline_test::CliRun;

Run run(const std::vector<std::string>& args) { return roofline_test::run_cli(args); }

struct Tensor {
  std::string name;
  std::string dtype;
  std::vector<std::int64_t> shape;
  std::int64_t element_bytes;
};

// A safetensors file: 8-byte little-endian header length, the JSON header, then zero bytes for
// the data the offsets span.
void write_safetensors(const fs::path& path, const std::vector<Tensor>& tensors) {
  nlohmann::json h = nlohmann::json::object();
  std::int64_t offset = 0;
  for (const Tensor& t : tensors) {
    std::int64_t n = t.element_bytes;
    for (std::int64_t d : t.shape) n *= d;
    h[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {offset, offset + n}}};
    offset += n;
  }
  h["__metadata__"] = {{"format", "pt"}};
  const std::string text = h.dump();
  std::ofstream f(path, std::ios::binary);
  const auto len = static_cast<std::uint64_t>(text.size());
  for (int i = 0; i < 8; ++i) f.put(static_cast<char>((len >> (8 * i)) & 0xFFU));
  f << text << std::string(static_cast<std::size_t>(offset), '\0');
}

// A Llama of d = 8, one layer, h = 2 of 4, one KV head, d_ff = 16, V = 10, untied: 760 parameters
// (table 80 + head 80 + final norm 8 + q 64 + k 32 + v 32 + o 64 + 3 x 128 + 2 norms of 8).
const char* kConfig = R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 8,
  "num_hidden_layers": 1, "num_attention_heads": 2, "num_key_value_heads": 1, "intermediate_size": 16,
  "vocab_size": 10, "max_position_embeddings": 64, "tie_word_embeddings": false, "torch_dtype": "bfloat16"})";

std::vector<Tensor> layer_tensors() {
  const std::string l = "model.layers.0.";
  return {{l + "self_attn.q_proj.weight", "BF16", {8, 8}, 2},     {l + "self_attn.k_proj.weight", "BF16", {4, 8}, 2},
          {l + "self_attn.v_proj.weight", "BF16", {4, 8}, 2},     {l + "self_attn.o_proj.weight", "BF16", {8, 8}, 2},
          {l + "mlp.gate_proj.weight", "BF16", {16, 8}, 2},       {l + "mlp.up_proj.weight", "BF16", {16, 8}, 2},
          {l + "mlp.down_proj.weight", "BF16", {8, 16}, 2},       {l + "input_layernorm.weight", "BF16", {8}, 2},
          {l + "post_attention_layernorm.weight", "BF16", {8}, 2}};
}

std::vector<Tensor> outer_tensors() {
  return {{"model.embed_tokens.weight", "BF16", {10, 8}, 2},
          {"model.norm.weight", "BF16", {8}, 2},
          {"lm_head.weight", "BF16", {10, 8}, 2}};
}

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("roofline-ckpt-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

void write_text(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

// Two shards and the index that names them.
void write_checkpoint(const fs::path& d) {
  write_text(d / "config.json", kConfig);
  write_safetensors(d / "model-00001-of-00002.safetensors", layer_tensors());
  write_safetensors(d / "model-00002-of-00002.safetensors", outer_tensors());
  nlohmann::json index = {{"metadata", {{"total_size", 1520}}}, {"weight_map", nlohmann::json::object()}};
  for (const Tensor& t : layer_tensors()) index["weight_map"][t.name] = "model-00001-of-00002.safetensors";
  for (const Tensor& t : outer_tensors()) index["weight_map"][t.name] = "model-00002-of-00002.safetensors";
  write_text(d / "model.safetensors.index.json", index.dump());
}

nlohmann::json params_json(const std::string& model) {
  const Run r = run({"params", model, "--format", "json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  return nlohmann::json::parse(r.out);
}

}  // namespace

TEST_CASE("a checkpoint directory: its config counted, its shards' headers stored", "[checkpoint]") {
  const fs::path d = fresh_dir("dir");
  write_checkpoint(d);
  const nlohmann::json j = params_json(d.string());
  const nlohmann::json& r = j.at("results");
  CHECK(r.at("params").at("total_params") == 760);
  CHECK(r.at("weights").at("stored_elements") == 760);
  CHECK(r.at("weights").at("stored_bytes") == 1520);  // 760 BF16 elements, the index's total_size
  const Run table = run({"params", d.string()});
  CHECK_THAT(table.out, Catch::Matchers::Contains("12 tensors in 2 files: BF16 760 elements"));
  CHECK_THAT(table.out, Catch::Matchers::Contains("the count exactly"));
  fs::remove_all(d);
}

TEST_CASE("one safetensors file: its header, a scale tensor counted as stored, not as a parameter", "[checkpoint]") {
  const fs::path d = fresh_dir("file");
  write_text(d / "config.json", kConfig);
  std::vector<Tensor> all = layer_tensors();
  for (const Tensor& t : outer_tensors()) all.push_back(t);
  all.push_back({"model.layers.0.self_attn.q_proj.weight_scale", "F32", {1}, 4});
  write_safetensors(d / "model.safetensors", all);
  const nlohmann::json r = params_json((d / "model.safetensors").string()).at("results");
  CHECK(r.at("params").at("total_params") == 760);
  CHECK(r.at("weights").at("stored_elements") == 761);
  CHECK(r.at("weights").at("stored_bytes") == 1524);
  const Run table = run({"params", (d / "model.safetensors").string()});
  CHECK_THAT(table.out, Catch::Matchers::Contains("1 more than the count"));
  CHECK_THAT(table.out, Catch::Matchers::Contains("BF16 760 elements, F32 1 elements"));

  // A header that claims more bytes than the file holds is refused, naming the file.
  {
    std::ofstream f(d / "bad.safetensors", std::ios::binary);
    const std::uint64_t len = 1'000'000;
    for (int i = 0; i < 8; ++i) f.put(static_cast<char>((len >> (8 * i)) & 0xFFU));
    f << "{}";
  }
  const Run bad = run({"params", (d / "bad.safetensors").string()});
  CHECK(bad.code == 1);
  CHECK(bad.out.empty());
  CHECK_THAT(bad.err, Catch::Matchers::Contains("bad.safetensors: not a safetensors file: a header of 1000000 bytes"));
  // Offsets that disagree with dtype x shape are refused.
  {
    const std::string text = R"({"w": {"dtype": "BF16", "shape": [4], "data_offsets": [0, 4]}})";
    std::ofstream f(d / "short.safetensors", std::ios::binary);
    for (int i = 0; i < 8; ++i) f.put(static_cast<char>((text.size() >> (8 * i)) & 0xFFU));
    f << text << std::string(4, '\0');
  }
  const Run wrong = run({"params", (d / "short.safetensors").string()});
  CHECK(wrong.code == 1);
  CHECK_THAT(wrong.err, Catch::Matchers::Contains("\"w\": 4 BF16 elements take 8 bytes, data_offsets 4"));
  fs::remove_all(d);
}

// A file of one raw header text and `data` zero bytes after it.
void write_raw_safetensors(const fs::path& path, const std::string& header, std::size_t data) {
  std::ofstream f(path, std::ios::binary);
  for (int i = 0; i < 8; ++i) f.put(static_cast<char>((header.size() >> (8 * i)) & 0xFFU));
  f << header << std::string(data, '\0');
}

TEST_CASE("a safetensors header must index every data byte once, and its shapes stay within 2^63", "[checkpoint]") {
  const fs::path d = fresh_dir("tile");
  const fs::path f = d / "model.safetensors";
  const auto err = [&](const std::string& header, std::size_t data) {
    write_raw_safetensors(f, header, data);
    const Run r = run({"params", f.string()});
    CHECK(r.code == 1);
    CHECK(r.out.empty());
    return r.err;
  };
  write_text(d / "config.json", kConfig);
  // Two tensors claiming the same 4 bytes (the safetensors format allows no overlap).
  CHECK_THAT(err(R"({"a": {"dtype": "U8", "shape": [4], "data_offsets": [0, 4]},
                     "b": {"dtype": "U8", "shape": [4], "data_offsets": [0, 4]}})",
                 4),
             Catch::Matchers::Contains("two tensors' data_offsets overlap at byte 0"));
  // A hole between two tensors, and bytes after the last.
  CHECK_THAT(err(R"({"a": {"dtype": "U8", "shape": [2], "data_offsets": [0, 2]},
                     "b": {"dtype": "U8", "shape": [2], "data_offsets": [3, 5]}})",
                 5),
             Catch::Matchers::Contains("no tensor's data_offsets cover bytes 2 to 3"));
  CHECK_THAT(err(R"({"a": {"dtype": "U8", "shape": [2], "data_offsets": [0, 2]}})", 6),
             Catch::Matchers::Contains("cover the data's last 4 bytes (from byte 2)"));
  // A dimension past 2^63-1 of a dtype roofline does not know (no size check applies to it).
  CHECK_THAT(err(R"({"a": {"dtype": "X9", "shape": [18446744073709551615], "data_offsets": [0, 0]}})", 0),
             Catch::Matchers::Contains("\"a\": a shape holds integers from 0 to 2^63-1"));
  fs::remove_all(d);
}

TEST_CASE("a repo id is read from the local Hugging Face cache: refs/main's snapshot, or @revision", "[checkpoint]") {
  const fs::path cache = fresh_dir("hub");
  const fs::path repo = cache / "models--acme--tiny-llama";
  fs::create_directories(repo / "refs");
  for (const char* rev : {"aaaa1111", "bbbb2222"}) {
    fs::create_directories(repo / "snapshots" / rev);
    write_checkpoint(repo / "snapshots" / rev);
  }
  write_text(repo / "refs" / "main", "bbbb2222");
  // The older snapshot is a model of two layers: @aaaa1111 must read it, main the other.
  std::string two = kConfig;
  two.replace(two.find("\"num_hidden_layers\": 1"), 22, "\"num_hidden_layers\": 2");
  write_text(repo / "snapshots" / "aaaa1111" / "config.json", two);
  ::setenv("HF_HUB_CACHE", cache.c_str(), 1);
  const nlohmann::json main = params_json("acme/tiny-llama");
  CHECK(main.at("results").at("params").at("total_params") == 760);
  bool noted = false;
  for (const auto& n : main.at("notes")) {
    noted = noted || n.get<std::string>().find("read from the Hugging Face cache") != std::string::npos;
  }
  CHECK(noted);
  const nlohmann::json old = params_json("acme/tiny-llama@aaaa1111");
  CHECK(old.at("results").at("params").at("total_params") == 760 + 592);  // a second layer of 592
  // A revision the cache does not hold falls through to the presets, and is unknown there.
  const Run missing = run({"params", "acme/tiny-llama@cccc"});
  CHECK(missing.code == 1);
  // A cached snapshot without its config.json (a partial download) leaves a preset's alias to
  // the preset.
  const fs::path partial = cache / "models--meta-llama--Meta-Llama-3-8B";
  fs::create_directories(partial / "refs");
  fs::create_directories(partial / "snapshots" / "cccc3333");
  write_text(partial / "refs" / "main", "cccc3333");
  CHECK(params_json("meta-llama/Meta-Llama-3-8B").at("inputs").at("model").at("name") == "llama3-8b");
  ::unsetenv("HF_HUB_CACHE");
  fs::remove_all(cache);
}
