// The model as a stack of typed layers (issue 22): layer_stack() over every built-in preset places
// each layer once, in order, in the kind the per-layer predicates give it, and `models` names the
// kinds as the published architectures are described.
#include "roofline/layer_stack.hpp"

#include "io/preset_registry.hpp"

#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include "text/names.hpp"

using namespace roofline;

namespace {

ModelConfig preset(const std::string& name) {
  const io::PresetRegistry registry({});
  std::istringstream none;
  return registry.load_model(name, none).config;
}

}  // namespace

TEST_CASE("stack: for every model preset the runs place layers 0..L-1 once, each in its predicates' kind", "[stack]") {
  const io::PresetRegistry registry({});
  for (const io::PresetEntry* entry : registry.entries(io::PresetKind::model)) {
    const ModelConfig m = registry.parse_model(*entry).config;
    CAPTURE(entry->name);
    const LayerStack s = layer_stack(m);
    REQUIRE(!s.kinds.empty());
    std::int64_t next = 0;
    for (std::size_t r = 0; r < s.runs.size(); ++r) {
      const LayerRun& run = s.runs[r];
      CHECK(run.first == next);
      CHECK(run.count > 0);
      if (r > 0) CHECK(s.runs[r - 1].kind != run.kind);  // run-length: neighbours differ
      const LayerKind& k = s.kinds.at(run.kind);
      CHECK(!k.cross_attention);
      for (std::int64_t i = run.first; i < run.first + run.count; ++i) {
        CHECK(m.is_moe_layer(i) == k.moe);
        CHECK(m.is_sliding_layer(i) == k.sliding);
        CHECK(m.is_attention_layer(i) == k.mix.attention);
        CHECK(k.first <= i);
        CHECK(i <= k.last);
      }
      next += run.count;
    }
    CHECK(next == m.n_layers);
    CHECK(s.layers() == m.n_layers + m.cross_attention_layers);
  }
}

TEST_CASE("stack: models names each kind with its count, in order of its first layer", "[stack]") {
  // Layouts from each model's config.json (tests/fixtures/hf and presets/models): DeepSeek-V3
  // first_k_dense_replace 3 of 61; Gemma 3 27B 62 layers, every 6th global, window 1024; Bamba 9B
  // attention at layers 9, 18, 27; Falcon-H1 attention and Mamba-2 side by side; Qwen3-Next 3
  // Gated DeltaNet layers to 1 attention layer; mllama 8 cross-attention layers beside 32.
  struct Row {
    const char* preset;
    const char* summary;
  };
  const Row row = GENERATE(
      Row{"deepseek-v3", "3 x MLA+dense, 58 x MLA+MoE"},
      Row{"gemma3-27b", "52 x GQA(sliding 1024)+dense, 10 x GQA+dense"},
      Row{"bamba-9b", "29 x Mamba-2+dense, 3 x GQA+dense"}, Row{"falcon-h1-7b", "44 x GQA|Mamba-2+dense"},
      Row{"qwen3-next-80b-a3b", "36 x GatedDeltaNet+MoE, 12 x GQA+MoE"}, Row{"falcon-7b", "32 x MQA+dense"},
      Row{"pythia-1b", "16 x MHA+dense"}, Row{"llama3.2-11b-vision", "32 x GQA+dense, 8 x cross-attention+dense"});
  CAPTURE(row.preset);
  const ModelConfig m = preset(row.preset);
  CHECK(text::stack_summary(m, layer_stack(m)) == row.summary);
}

TEST_CASE("stack: a 10,000-layer hybrid what-if is a few kinds and runs, not 10,000 of either", "[stack]") {
  ModelConfig m = preset("bamba-9b");
  m.n_layers = 10000;
  m.hybrid.layers.assign(10000, LayerMix{.attention = false, .state = StateMixer::mamba2, .ffn = LayerFfn::dense});
  for (std::size_t i = 9; i < 10000; i += 10)
    m.hybrid.layers[i].attention = true, m.hybrid.layers[i].state = StateMixer::none;
  const LayerStack s = layer_stack(m);
  REQUIRE(s.kinds.size() == 2);
  CHECK(s.kinds[0].layers == 9000);
  CHECK(s.kinds[1].layers == 1000);
  CHECK(s.kinds[1].every == 10);
  CHECK(s.runs.size() == 2000);  // 9 state layers, 1 attention layer, repeated
}
