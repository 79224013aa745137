// Every built-in preset loads and validates; model presets reproduce the published parameter
// counts exactly; GPU presets carry the figures the seeds use; the registry merges user
// directories, rejects duplicates and suggests near names.
#include "io/embedded_presets.hpp"
#include "io/preset_json.hpp"
#include "io/preset_registry.hpp"

#include "roofline/errors.hpp"
#include "roofline/memory.hpp"
#include "roofline/params.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "io_test_support.hpp"

using namespace roofline;
using namespace roofline::io;
using roofline_test::TempDir;

namespace {

std::vector<std::string> names_of(const PresetRegistry& r, PresetKind k) {
  std::vector<std::string> out;
  for (const PresetEntry* e : r.entries(k)) out.push_back(e->name);
  return out;
}

/// expected_params and expected_active_params (the "computed" value where the TSV gives a rounded
/// published figure) copied from the TSVs; the last column cites file:line of the row.
struct Expected {
  const char* preset;
  std::int64_t total;
  std::int64_t active;
  const char* tsv_row;
};

// clang-format off
const std::vector<Expected> kExpected = {
    {"llama1-7b", 6'738'415'616, 6'738'415'616, "published-group1.tsv:2"},
    {"llama2-7b", 6'738'415'616, 6'738'415'616, "published-group1.tsv:3"},
    {"llama2-70b", 68'976'648'192, 68'976'648'192, "published-group1.tsv:4"},
    {"llama3-8b", 8'030'261'248, 8'030'261'248, "published-group1.tsv:5"},
    {"llama3-70b", 70'553'706'496, 70'553'706'496, "published-group1.tsv:6"},
    {"llama3.1-8b", 8'030'261'248, 8'030'261'248, "published-group1.tsv:7"},
    {"llama3.1-70b", 70'553'706'496, 70'553'706'496, "published-group1.tsv:8"},
    {"llama3.1-405b", 405'853'388'800, 405'853'388'800, "published-group1.tsv:9"},
    {"llama3.2-1b", 1'235'814'400, 1'235'814'400, "published-group1.tsv:10"},
    {"llama3.2-3b", 3'212'749'824, 3'212'749'824, "published-group1.tsv:11"},
    {"llama3.3-70b", 70'553'706'496, 70'553'706'496, "published-group1.tsv:12"},
    {"mistral-7b", 7'241'732'096, 7'241'732'096, "published-group1.tsv:13"},
    {"mistral-7b-v0.3", 7'248'023'552, 7'248'023'552, "published-group1.tsv:33"},
    {"mixtral-8x7b", 46'702'792'704, 12'879'925'248, "published-group1.tsv:14"},
    {"mixtral-8x22b", 140'620'634'112, 39'152'031'744, "published-group1.tsv:15"},
    {"qwen2.5-7b", 7'615'616'512, 7'615'616'512, "published-group1.tsv:16"},
    {"qwen2.5-72b", 72'706'203'648, 72'706'203'648, "published-group1.tsv:17"},
    {"qwen2.5-0.5b", 494'032'768, 494'032'768, "published-group1.tsv:18"},
    {"qwen1.5-moe-a2.7b", 14'315'784'192, 2'689'173'504, "published-group1.tsv:19"},
    {"qwen3-8b", 8'190'735'360, 8'190'735'360, "published-group1.tsv:20"},
    {"qwen3-30b-a3b", 30'532'122'624, 3'353'032'704, "published-group1.tsv:21"},
    {"gemma-7b", 8'537'680'896, 8'537'680'896, "published-group1.tsv:22"},
    {"gemma-2b", 2'506'172'416, 2'506'172'416, "published-group1.tsv:23"},
    {"gemma2-9b", 9'241'705'984, 9'241'705'984, "published-group1.tsv:24"},
    {"gemma2-27b", 27'227'128'320, 27'227'128'320, "published-group1.tsv:25"},
    {"gemma3-27b", 27'432'406'640, 27'009'346'304, "published-group1.tsv:26"},
    {"gemma3-1b", 999'885'952, 999'885'952, "published-group1.tsv:27"},
    {"phi3-mini", 3'821'079'552, 3'821'079'552, "published-group1.tsv:28"},
    {"command-r", 34'980'831'232, 34'980'831'232, "published-group1.tsv:29"},
    {"dbrx", 131'596'523'520, 36'469'708'800, "published-group1.tsv:30"},
    {"deepseek-v2-lite", 15'706'484'224, 2'661'150'208, "published-group1.tsv:31"},
    {"deepseek-v3", 671'026'419'200, 37'552'297'472, "published-group1.tsv:32"},
    {"gpt2", 124'439'808, 124'439'808, "published-group2.tsv:2"},
    {"gpt2-medium", 354'823'168, 354'823'168, "published-group2.tsv:3"},
    {"gpt2-large", 774'030'080, 774'030'080, "published-group2.tsv:4"},
    {"gpt2-xl", 1'557'611'200, 1'557'611'200, "published-group2.tsv:5"},
    {"gpt3-175b", 174'604'259'328, 174'604'259'328, "published-group2.tsv:6"},
    {"phi-2", 2'779'683'840, 2'779'683'840, "published-group2.tsv:7"},
    {"phi-1.5", 1'418'270'720, 1'418'270'720, "published-group2.tsv:8"},
    {"pythia-1b", 1'011'781'632, 1'011'781'632, "published-group2.tsv:9"},
    {"pythia-6.9b", 6'857'302'016, 6'857'302'016, "published-group2.tsv:10"},
    {"gpt-neox-20b", 20'554'567'680, 20'554'567'680, "published-group2.tsv:11"},
    {"gpt-j-6b", 6'050'882'784, 6'050'882'784, "published-group2.tsv:12"},
    {"opt-125m", 125'239'296, 125'239'296, "published-group2.tsv:13"},
    {"opt-350m", 331'196'416, 331'196'416, "published-group2.tsv:14"},
    {"opt-1.3b", 1'315'758'080, 1'315'758'080, "published-group2.tsv:15"},
    {"opt-6.7b", 6'658'473'984, 6'658'473'984, "published-group2.tsv:16"},
    {"bloom-560m", 559'214'592, 559'214'592, "published-group2.tsv:17"},
    {"bloom-7b1", 7'069'016'064, 7'069'016'064, "published-group2.tsv:18"},
    {"falcon-7b", 6'921'720'704, 6'921'720'704, "published-group2.tsv:19"},
    {"falcon-40b", 41'303'293'952, 41'303'293'952, "published-group2.tsv:20"},
    {"olmo-1b", 1'176'764'416, 1'176'764'416, "published-group2.tsv:21"},
    {"olmo-7b", 6'888'095'744, 6'888'095'744, "published-group2.tsv:22"},
    {"olmo2-7b", 7'298'617'344, 7'298'617'344, "published-group2.tsv:23"},
    {"starcoder2-3b", 3'030'371'328, 3'030'371'328, "published-group2.tsv:24"},
    {"starcoder2-7b", 7'173'923'840, 7'173'923'840, "published-group2.tsv:25"},
    {"starcoder2-15b", 15'957'889'024, 15'957'889'024, "published-group2.tsv:26"},
    {"glm-4.5", 352'797'829'024, 33'632'266'144, "published-moe.tsv:2"},
    {"glm-4.5-air", 106'852'251'264, 13'424'129'664, "published-moe.tsv:3"},
    {"olmoe-1b-7b", 6'919'161'856, 1'282'017'280, "published-moe.tsv:4"},
    {"phi-3.5-moe", 41'873'153'344, 6'640'999'744, "published-moe.tsv:5"},
    {"granite-3.1-3b-a800m", 3'298'793'472, 882'874'368, "published-moe.tsv:6"},
    {"ernie-4.5-21b-a3b", 21'825'437'888, 3'352'150'208, "published-moe.tsv:7"},
    {"minimax-m2", 228'689'764'864, 11'030'553'088, "published-moe.tsv:8"},
    {"kimi-k2", 1'026'408'232'448, 32'861'500'928, "published-moe.tsv:9"},
    {"deepseek-r1", 671'026'419'200, 37'552'297'472, "published-moe.tsv:10"},
    {"qwen3-235b-a22b", 235'093'634'560, 22'190'763'520, "published-moe.tsv:11"},
    {"qwen3-coder-480b-a35b", 480'154'875'392, 35'474'765'312, "published-moe.tsv:12"},
    {"qwen3-coder-30b-a3b", 30'532'122'624, 3'353'032'704, "published-moe.tsv:13"},
    {"hunyuan-a13b", 80'393'183'232, 12'747'448'320, "published-moe.tsv:14"},
    // Families of 2025-26 (issue 22, published-2025.tsv)
    {"olmo3-7b", 7'298'011'136, 7'298'011'136, "published-2025.tsv:2"},
    {"olmo3-32b", 32'233'522'176, 32'233'522'176, "published-2025.tsv:3"},
    {"glm-4.7-flash", 29'943'393'920, 3'896'766'080, "published-2025.tsv:4"},
    {"ling-mini-2.0", 16'255'643'392, 1'432'973'056, "published-2025.tsv:5"},
    {"lfm2-1.2b", 1'170'340'608, 1'170'340'608, "published-2025.tsv:6"},
    {"nemotron-3-nano-30b-a3b", 31'577'940'288, 3'580'076'352, "published-2025.tsv:7"},
    {"deepseek-v3.2", 671'877'944'064, 38'403'822'336, "published-2025.tsv:8"},
    {"glm-5.1", 743'911'218'432, 41'784'728'832, "published-2025.tsv:9"},
    {"lfm2-8b-a1b", 8'339'930'560, 1'557'740'992, "published-2025.tsv:10"},
    {"qwen3.5-27b", 27'356'728'560, 26'895'998'464, "published-2025.tsv:11"},
    {"qwen3.5-35b-a3b", 35'107'181'936, 3'454'988'928, "published-2025.tsv:12"},
    {"qwen3.5-397b-a17b", 396'802'360'816, 17'349'040'896, "published-2025.tsv:13"},
    {"nemotron-super-49b", 49'867'145'216, 49'867'145'216, "published-2025.tsv:14"},
    {"nemotron-ultra-253b", 253'401'268'224, 253'401'268'224, "published-2025.tsv:15"},
    {"minimax-m1-80k", 456'089'655'296, 48'403'306'496, "published-2025.tsv:16"},
    {"kimi-k2.5", 1'026'879'376'368, 32'861'500'928, "published-2025.tsv:17"},
    {"qwen3-vl-8b", 8'767'123'696, 8'190'735'360, "published-2025.tsv:18"},
    {"qwen3-vl-30b-a3b", 31'070'754'032, 3'353'032'704, "published-2025.tsv:19"},
    {"qwen3-vl-235b-a22b", 235'670'022'896, 22'190'763'520, "published-2025.tsv:20"},
    {"longcat-flash", 560'664'980'480, 27'954'818'048, "published-2025.tsv:21"},
    {"gemma-4-31b", 31'273'088'876, 30'697'345'340, "published-2025.tsv:22"},
    {"gemma-4-26b-a4b", 25'805'936'206, 3'822'530'590, "published-2025.tsv:23"},
    // Dense families of 2024-2026 (published-dense.tsv)
    {"granite-3.3-2b", 2'533'539'840, 2'533'539'840, "published-dense.tsv:2"},
    {"granite-3.3-8b", 8'170'864'640, 8'170'864'640, "published-dense.tsv:3"},
    {"smollm3-3b", 3'075'098'624, 3'075'098'624, "published-dense.tsv:4"},
    {"internlm2.5-7b", 7'737'708'544, 7'737'708'544, "published-dense.tsv:5"},
    {"internlm3-8b", 8'804'241'408, 8'804'241'408, "published-dense.tsv:6"},
    {"command-r7b", 8'028'033'024, 8'028'033'024, "published-dense.tsv:7"},
    {"stablelm-2-1.6b", 1'644'515'328, 1'644'515'328, "published-dense.tsv:8"},
    {"exaone-3.5-7.8b", 7'818'448'896, 7'818'448'896, "published-dense.tsv:9"},
    {"ernie-4.5-0.3b", 360'748'032, 360'748'032, "published-dense.tsv:10"},
    {"hunyuan-7b", 7'504'568'320, 7'504'568'320, "published-dense.tsv:11"},
    {"nemotron-mini-4b", 4'190'509'056, 4'190'509'056, "published-dense.tsv:12"},
    {"ministral-8b", 8'019'808'256, 8'019'808'256, "published-dense.tsv:13"},
    {"glm-4-9b-0414", 9'400'279'040, 9'400'279'040, "published-dense.tsv:14"},
    {"mistral-nemo-12b", 12'247'782'400, 12'247'782'400, "published-dense.tsv:15"},
    {"mistral-small-24b", 23'572'403'200, 23'572'403'200, "published-dense.tsv:16"},

    {"gpt3-125m", 125'226'240, 125'226'240, "published-presets.tsv:2"},
    {"gpt3-350m", 355'871'744, 355'871'744, "published-presets.tsv:3"},
    {"gpt3-760m", 760'300'032, 760'300'032, "published-presets.tsv:4"},
    {"gpt3-1.3b", 1'315'723'264, 1'315'723'264, "published-presets.tsv:5"},
    {"gpt3-2.7b", 2'651'553'280, 2'651'553'280, "published-presets.tsv:6"},
    {"gpt3-6.7b", 6'658'404'352, 6'658'404'352, "published-presets.tsv:7"},
    {"gpt3-13b", 12'853'386'240, 12'853'386'240, "published-presets.tsv:8"},
    {"gopher-280b", 258'749'251'584, 258'749'251'584, "published-presets.tsv:9"},
    {"chinchilla-70b", 64'950'116'352, 64'950'116'352, "published-presets.tsv:10"},
    {"palm-8b", 8'632'012'800, 8'632'012'800, "published-presets.tsv:11"},
    {"palm-62b", 62'495'662'080, 62'495'662'080, "published-presets.tsv:12"},
    {"palm-540b", 540'356'474'880, 540'356'474'880, "published-presets.tsv:13"},
    {"mt-nlg-530b", 529'581'506'560, 529'581'506'560, "published-presets.tsv:14"},
    {"llama1-13b", 13'015'864'320, 13'015'864'320, "published-presets.tsv:15"},
    {"llama1-33b", 32'528'943'616, 32'528'943'616, "published-presets.tsv:16"},
    {"llama1-65b", 65'285'660'672, 65'285'660'672, "published-presets.tsv:17"},
    {"llama2-13b", 13'015'864'320, 13'015'864'320, "published-presets.tsv:18"},
    {"opt-13b", 12'853'473'280, 12'853'473'280, "published-presets.tsv:19"},
    {"opt-30b", 29'974'540'288, 29'974'540'288, "published-presets.tsv:20"},
    {"opt-66b", 65'719'701'504, 65'719'701'504, "published-presets.tsv:21"},
    {"opt-175b", 174'604'468'224, 174'604'468'224, "published-presets.tsv:22"},
    {"bloom-176b", 176'247'271'424, 176'247'271'424, "published-presets.tsv:23"},
    {"falcon-180b", 178'557'088'768, 178'557'088'768, "published-presets.tsv:24"},
    {"qwen3-0.6b", 596'049'920, 596'049'920, "published-presets.tsv:25"},
    {"qwen3-1.7b", 1'720'574'976, 1'720'574'976, "published-presets.tsv:26"},
    {"qwen3-4b", 4'022'468'096, 4'022'468'096, "published-presets.tsv:27"},
    {"qwen3-14b", 14'768'307'200, 14'768'307'200, "published-presets.tsv:28"},
    {"qwen3-32b", 32'762'123'264, 32'762'123'264, "published-presets.tsv:29"},
    {"qwen2.5-14b", 14'770'033'664, 14'770'033'664, "published-presets.tsv:30"},
    {"qwen2.5-32b", 32'763'876'352, 32'763'876'352, "published-presets.tsv:31"},
    {"phi-4", 14'659'507'200, 14'659'507'200, "published-presets.tsv:32"},
    {"phi-4-mini", 3'836'021'760, 3'836'021'760, "published-presets.tsv:33"},
    {"mistral-large-2", 122'610'069'504, 122'610'069'504, "published-presets.tsv:34"},
    {"gpt-oss-20b", 20'914'757'184, 4'187'440'704, "published-special.tsv:2"},
    {"gpt-oss-120b", 116'829'156'672, 5'711'982'912, "published-special.tsv:3"},
    // Multimodal wrappers: total with the vision tower + projector, active the text model.
    {"gemma3-4b", 4'300'079'472, 3'880'263'168, "published-multimodal.tsv:2"},
    {"gemma3-12b", 12'187'325'040, 11'766'034'176, "published-multimodal.tsv:3"},
    {"mistral-small-3.1-24b", 24'011'361'280, 23'572'403'200, "published-multimodal.tsv:4"},
    {"qwen2-vl-7b", 8'291'375'616, 7'615'616'512, "published-multimodal.tsv:5"},
    {"qwen2.5-vl-7b", 8'292'166'656, 7'615'616'512, "published-multimodal.tsv:6"},
    {"llava-1.5-7b", 7'063'427'072, 6'738'939'904, "published-multimodal.tsv:7"},
    {"llama3.2-11b-vision", 10'670'220'835, 9'775'192'080, "published-multimodal.tsv:8"},
    {"llama4-scout", 108'641'793'536, 17'172'894'720, "published-multimodal.tsv:9"},
    {"llama4-maverick", 401'583'781'376, 17'184'691'200, "published-multimodal.tsv:10"},
    {"mamba-2.8b", 2'768'345'600, 2'768'345'600, "published-hybrid.tsv:2"},
    {"mamba-codestral-7b", 7'285'403'648, 7'285'403'648, "published-hybrid.tsv:3"},
    {"nemotron-h-8b", 8'100'852'736, 8'100'852'736, "published-hybrid.tsv:4"},
    {"granite-4.0-h-small", 32'207'337'984, 8'803'121'664, "published-hybrid.tsv:5"},
    {"qwen3-next-80b-a3b", 79'674'391'296, 3'874'929'408, "published-hybrid.tsv:6"},
    {"jamba-v0.1", 51'570'323'328, 12'110'311'296, "published-hybrid.tsv:7"},
    {"granite-4.0-micro", 3'402'836'480, 3'402'836'480, "published-hybrid.tsv:8"},
    {"bamba-9b", 9'780'235'392, 9'780'235'392, "published-hybrid.tsv:9"},
    {"falcon-h1-7b", 7'585'654'880, 7'585'654'880, "published-hybrid.tsv:10"},
    {"granite-4.0-h-tiny", 6'939'037'248, 1'465'470'528, "published-hybrid.tsv:11"},
};
// clang-format on

/// Landmark models from their papers' architecture tables, written as native "architecture"
/// presets (Gopher/Chinchilla relative positions, PaLM's parallel MQA blocks, MT-NLG).
// Native presets: the papers' models without a checkpoint, and the NAS models, whose per-layer
// table is written in the native form (hf_hybrid_test checks it against the published config).
const std::set<std::string> kNative = {"chinchilla-70b", "gopher-280b", "mt-nlg-530b",        "palm-540b",
                                       "palm-62b",       "palm-8b",     "nemotron-super-49b", "nemotron-ultra-253b"};

const char* const kGpuJson = R"({
  "name": "test-gpu",
  "memory_capacity": "24 GiB",
  "memory_bandwidth": "1 TB/s",
  "peak": {"bf16": "100 TFLOP/s"},
  "aliases": ["tgpu"],
  "source": "unit test"
})";

const char* const kTinyModelJson = R"({
  "name": "tiny",
  "source": "unit test",
  "architecture": {"n_layers": 2, "d_model": 64, "n_heads": 4, "d_ff": 256, "vocab_size": 1000}
})";

}  // namespace

TEST_CASE("io: built-in registry lists 161 model and 61 GPU presets", "[io][presets]") {
  const PresetRegistry r({});
  CHECK(r.entries(PresetKind::model).size() == 161);
  CHECK(r.entries(PresetKind::gpu).size() == 61);
  CHECK(r.entries(PresetKind::model).size() >= 100);  // issue 10: at least 100 models
  CHECK(r.entries(PresetKind::gpu).size() >= 55);     // issue 10: at least 55 accelerators
  for (const PresetEntry* e : r.entries(PresetKind::model)) CHECK(e->origin == "builtin");
  const auto names = names_of(r, PresetKind::model);
  CHECK(std::is_sorted(names.begin(), names.end()));
}

TEST_CASE("io: every GPU preset loads, validates and is self-consistent", "[io][presets][gpu]") {
  const PresetRegistry r({});
  const auto names = names_of(r, PresetKind::gpu);
  const std::set<std::string> name_set(names.begin(), names.end());
  std::map<std::string, std::string> alias_owner;
  for (const PresetEntry* e : r.entries(PresetKind::gpu)) {
    INFO(e->name);
    HardwareConfig h;
    REQUIRE_NOTHROW(h = r.parse_gpu(*e));
    CHECK(h.name == e->name);
    CHECK(validate(h).empty());
    CHECK_FALSE(h.source.empty());
    CHECK(h.memory_capacity.base() > 0.0);
    CHECK(h.memory_bandwidth.base() > 0.0);
    // Capacities are written in binary units: a whole number of GiB.
    const double gib = h.memory_capacity.base() / units::kGiB;
    CHECK(gib == std::floor(gib));
    for (const std::string& a : h.aliases) {
      INFO("alias " << a);
      CHECK(name_set.count(a) == 0);
      const auto [it, inserted] = alias_owner.emplace(a, h.name);
      CHECK(inserted);  // fails naming the alias when two presets claim it
      if (!inserted) CHECK(it->second == h.name);
    }
    // An alias resolves to its preset through the registry.
    for (const std::string& a : h.aliases) CHECK(r.load_gpu(a).name == h.name);
  }
}

TEST_CASE("io: every system preset loads, names a GPU preset, and agrees with the GPUs' usual systems",
          "[io][presets][system]") {
  const PresetRegistry r({});
  CHECK(r.entries(PresetKind::system).size() == 17);
  std::map<std::string, std::string> usual;  // accelerator -> the system naming it in default_for
  for (const PresetEntry* e : r.entries(PresetKind::system)) {
    INFO(e->name);
    SystemPreset p;
    REQUIRE_NOTHROW(p = r.parse_system(*e));
    const Topology& t = p.topology;
    CHECK(t.name == e->name);
    CHECK_FALSE(t.source_text.empty());
    CHECK(t.domain >= 1);
    CHECK(t.devices_per_node >= 1);
    CHECK(t.inside.bandwidth.base() > 0.0);
    CHECK(t.has_across);  // every system here names its network
    HardwareConfig h;
    REQUIRE_NOTHROW(h = r.load_gpu(p.accelerator));
    // A torus' dimensions multiply to its domain, and only a torus is costed link by link.
    if (!t.torus.empty()) {
      std::int64_t chips = 1;
      for (const std::int64_t d : t.torus) chips *= d;
      CHECK(chips == t.domain);
      CHECK(t.inside.kind == LinkKind::torus);
    }
    for (const std::string& g : p.default_for) {
      CHECK(usual.emplace(g, t.name).second);  // an accelerator has one usual system
    }
    for (const std::string& a : p.aliases) CHECK(r.load_system(a).topology.name == t.name);
  }
  // Each GPU's "system" is the one whose default_for names it, and the other way round.
  for (const PresetEntry* e : r.entries(PresetKind::gpu)) {
    INFO(e->name);
    const HardwareConfig h = r.parse_gpu(*e);
    const auto it = usual.find(h.name);
    CHECK(h.system == (it == usual.end() ? std::string() : it->second));
  }
  // PCIe boxes: the RTX 4090's peer-to-peer is off (staged through host memory, half the link).
  const SystemPreset box = r.load_system("rtx-4090-pcie-8");
  CHECK(box.topology.inside.kind == LinkKind::pcie);
  CHECK(box.topology.inside.bandwidth.base() == pcie_bandwidth(4, 16).base() * 0.5);
  const SystemPreset hgx = r.load_system("hgx-h100");
  CHECK(hgx.topology.domain == 8);
  CHECK(hgx.topology.inside.bandwidth.base() == 450e9);
  CHECK(hgx.topology.across.bandwidth.base() == 50e9);
}

TEST_CASE("io: reference GPUs carry the figures the seeds use", "[io][presets][gpu]") {
  const PresetRegistry r({});
  struct Ref {
    const char* name;
    double bf16_tflops;  // 0: not checked
    double tb_per_s;
    double gib;  // 0: not checked
  };
  const std::vector<Ref> refs = {
      {"h100-sxm", 989.4, 3.35, 80}, {"mi300x", 1307.4, 5.3, 192},      {"h200-sxm", 989.4, 4.8, 141},
      {"mi355x", 0, 8.0, 288},       {"a100-80gb-sxm", 312, 2.039, 80},
  };
  for (const Ref& ref : refs) {
    INFO(ref.name);
    const HardwareConfig h = r.load_gpu(ref.name);
    CHECK(h.memory_bandwidth.base() == Approx(ref.tb_per_s * 1e12).epsilon(1e-15));
    if (ref.bf16_tflops > 0) {
      REQUIRE(h.peak_for(DType::bf16).has_value());
      CHECK(h.peak_for(DType::bf16)->base() == Approx(ref.bf16_tflops * 1e12).epsilon(1e-15));
    }
    if (ref.gib > 0) CHECK(h.memory_capacity.base() == ref.gib * units::kGiB);
  }
  // Parts added for issue 10, from their datasheets (dense peaks; capacities binary).
  const std::vector<Ref> added = {
      {"l40", 181.05, 0.864, 48}, {"mi210", 181, 1.6384, 64}, {"h800-sxm", 989.4, 3.35, 80},
      {"a30", 165, 0.933, 24},    {"a40", 149.7, 0.696, 48},  {"rtx-3090", 71, 0.936, 24},
  };
  for (const Ref& ref : added) {
    INFO(ref.name);
    const HardwareConfig h = r.load_gpu(ref.name);
    CHECK(h.memory_bandwidth.base() == Approx(ref.tb_per_s * 1e12).epsilon(1e-15));
    REQUIRE(h.peak_for(DType::bf16).has_value());
    CHECK(h.peak_for(DType::bf16)->base() == Approx(ref.bf16_tflops * 1e12).epsilon(1e-15));
    CHECK(h.memory_capacity.base() == ref.gib * units::kGiB);
  }
  // T4 (Turing): FP16 65 TFLOP/s dense (no sparsity on Turing), 320 GB/s, 16 GiB, 70 W; no BF16 path.
  const HardwareConfig t4 = r.load_gpu("t4");
  CHECK(t4.peak_for(DType::fp16)->base() == Approx(65e12).epsilon(1e-15));
  CHECK_FALSE(t4.peak_for(DType::bf16).has_value());
  CHECK(t4.memory_bandwidth.base() == Approx(320e9).epsilon(1e-15));
  CHECK(t4.memory_capacity.base() == 16 * units::kGiB);
  CHECK(t4.power_watts == 70.0);
  // H800: the H100 SXM with NVLink cut to 400 GB/s bidirectional = 200 per direction.
  CHECK(r.load_gpu("h800").interconnect_bandwidth.base() == 200e9);
  // MI100 (CDNA 1): BF16 runs at half the FP16 rate.
  const HardwareConfig mi100 = r.load_gpu("mi100");
  CHECK(mi100.peak_for(DType::bf16)->base() == Approx(92.3e12).epsilon(1e-15));
  CHECK(mi100.peak_for(DType::fp16)->base() == Approx(184.6e12).epsilon(1e-15));

  const HardwareConfig h100 = r.load_gpu("h100-sxm");
  CHECK(h100.memory_capacity.base() == 85'899'345'920.0);  // 80 GiB exactly, not 80e9
  const units::FlopPerByte ridge = *h100.peak_for(DType::bf16) / h100.memory_bandwidth;
  CHECK(ridge.base() == Approx(295.34).margin(0.005));
  CHECK(h100.peak_for(DType::fp8)->base() == Approx(1978.9e12).epsilon(1e-15));
  CHECK(h100.peak_for(DType::int8)->base() == Approx(1978.9e12).epsilon(1e-15));
  CHECK(h100.power_watts == 700.0);
  CHECK(h100.interconnect_bandwidth.base() == 450e9);
  CHECK(h100.interconnect_links == 18);
}

TEST_CASE("io: every model preset loads and matches published_params exactly", "[io][presets][model]") {
  const PresetRegistry r({});
  const auto names = names_of(r, PresetKind::model);
  // The table covers every built-in model preset and nothing else.
  std::vector<std::string> table;
  for (const Expected& x : kExpected) table.emplace_back(x.preset);
  std::sort(table.begin(), table.end());
  CHECK(table == names);

  std::istringstream no_stdin;
  for (const Expected& x : kExpected) {
    INFO(x.preset << " (" << x.tsv_row << ")");
    ModelPreset p;
    REQUIRE_NOTHROW(p = r.load_model(x.preset, no_stdin));
    CHECK(p.config.name == x.preset);
    CHECK(p.origin == "builtin");
    // Paper-only models whose architecture no HF model_type represents are native presets.
    CHECK(p.input_format == (kNative.count(x.preset) != 0 ? InputFormat::preset : InputFormat::hf_config));
    CHECK_FALSE(p.source.empty());
    CHECK(validate(p.config).empty());
    const ParamCounts c = count_params(p.config);
    REQUIRE(p.published_params.has_value());
    CHECK(*p.published_params == x.total);  // the preset's own field agrees with the TSV
    CHECK(c.total == x.total);              // and the engine reproduces it exactly
    CHECK(c.active == x.active);
    CHECK_FALSE(p.published_params_source.empty());
  }
}

TEST_CASE("io: the table above agrees with the TSVs it was copied from", "[io][presets][model]") {
  const auto rows = roofline_test::published_rows();
  REQUIRE(rows.size() == kExpected.size());
  for (const auto& row : rows) {
    const std::string where = row.file + ":" + std::to_string(row.line);
    INFO(where);
    const auto it = std::find_if(kExpected.begin(), kExpected.end(),
                                 [&](const Expected& x) { return row.at("preset") == x.preset; });
    REQUIRE(it != kExpected.end());
    CHECK(it->tsv_row == where);
    CHECK(it->total == roofline_test::digits_to_int(row.at("expected_params")));
    const std::int64_t act = roofline_test::expected_active(row.at("expected_active_params"));
    CHECK(it->active == (act < 0 ? it->total : act));
  }
}

TEST_CASE("io: architecture_to_json / architecture_from_json round trip every preset", "[io][presets][model]") {
  const PresetRegistry r({});
  for (const PresetEntry* e : r.entries(PresetKind::model)) {
    INFO(e->name);
    const ModelConfig m = r.parse_model(*e).config;
    const nlohmann::json a = architecture_to_json(m);

    ModelConfig back;
    architecture_from_json(a, "roundtrip", back);
    CHECK(count_params(back).total == count_params(m).total);
    CHECK(count_params(back).active == count_params(m).active);
    CHECK(count_params(back).mtp_excluded == count_params(m).mtp_excluded);
    CHECK(kv_bytes_per_token(back, 2.0).base() == kv_bytes_per_token(m, 2.0).base());
    CHECK(kv_bytes_per_sequence(back, 32768.0, 2.0).base() == kv_bytes_per_sequence(m, 32768.0, 2.0).base());
    CHECK(architecture_to_json(back) == a);

    // The same object as a native preset file goes through model_from_json's preset path.
    const nlohmann::json preset = {{"name", e->name}, {"source", "round trip"}, {"architecture", a}};
    const ModelPreset p = model_from_json(preset, "roundtrip.json", "ignored");
    CHECK(p.input_format == InputFormat::preset);
    CHECK(count_params(p.config).total == count_params(m).total);
    CHECK(kv_bytes_per_token(p.config, 2.0).base() == kv_bytes_per_token(m, 2.0).base());
    CHECK(architecture_to_json(p.config) == a);
  }
}

TEST_CASE("io: native preset defaults: n_kv_heads = n_heads, head_dim = d_model / n_heads", "[io][presets][model]") {
  const ModelPreset p = model_from_json(nlohmann::json::parse(kTinyModelJson), "tiny.json", "tiny");
  CHECK(p.config.family == "custom");
  CHECK(p.config.n_kv_heads == 4);
  CHECK(p.config.head_dim == 16);
  CHECK(p.display_name == "tiny");
  CHECK_FALSE(p.published_params.has_value());
}

TEST_CASE("io: --preset-dir: user models and GPUs are registered beside the built-ins", "[io][presets][registry]") {
  const TempDir dir;
  const std::string gpu_path = dir.write("gpus/test-gpu.json", kGpuJson);
  const std::string model_path = dir.write("models/tiny.json", kTinyModelJson);
  // A bare HF config under models/ takes its name from the file.
  const std::string hf_path =
      dir.write("models/tiny-hf.json",
                R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
          "intermediate_size": 256, "vocab_size": 1000})");
  dir.write("models/README.txt", "not a preset: ignored");

  const std::size_t builtin_models = PresetRegistry({}).entries(PresetKind::model).size();
  const PresetRegistry r({dir.str()});
  CHECK(r.entries(PresetKind::model).size() == builtin_models + 2);
  CHECK(r.entries(PresetKind::gpu).size() == 62);

  std::istringstream no_stdin;
  const ModelPreset tiny = r.load_model("tiny", no_stdin);
  CHECK(tiny.origin == model_path);
  CHECK(tiny.input_format == InputFormat::preset);
  // 2 x (4 * 64^2 + 3 * 64 * 256 + 2 * 64) + 2 * 1000 * 64 + 64
  CHECK(count_params(tiny.config).total == 2 * (4 * 64 * 64 + 3 * 64 * 256 + 2 * 64) + 2 * 1000 * 64 + 64);

  const ModelPreset hf = r.load_model("tiny-hf", no_stdin);
  CHECK(hf.config.name == "tiny-hf");
  CHECK(hf.origin == hf_path);
  CHECK(hf.input_format == InputFormat::hf_config);
  CHECK(count_params(hf.config).total == count_params(tiny.config).total);

  const HardwareConfig g = r.load_gpu("test-gpu");
  CHECK(g.memory_capacity.base() == 24 * units::kGiB);
  CHECK(r.load_gpu("tgpu").name == "test-gpu");
  const auto gpu_entries = r.entries(PresetKind::gpu);
  const auto it =
      std::find_if(gpu_entries.begin(), gpu_entries.end(), [](const PresetEntry* e) { return e->name == "test-gpu"; });
  REQUIRE(it != gpu_entries.end());
  CHECK((*it)->origin == gpu_path);

  // A directory without models/ or gpus/ is accepted and adds nothing.
  const TempDir empty;
  CHECK(PresetRegistry({empty.str()}).entries(PresetKind::model).size() == builtin_models);
}

TEST_CASE("io: --preset-dir that is not a directory", "[io][presets][registry]") {
  const TempDir dir;
  const std::string missing = dir.str() + "/nope";
  REQUIRE_THROWS_WITH(PresetRegistry({missing}), "--preset-dir: \"" + missing + "\" is not a directory");
}

TEST_CASE("io: duplicate preset names are an InputError naming both origins", "[io][presets][registry]") {
  SECTION("user GPU shadowing a built-in") {
    const TempDir dir;
    const std::string path = dir.write("gpus/h100-sxm.json", kGpuJson);
    REQUIRE_THROWS_AS(PresetRegistry({dir.str()}), InputError);
    REQUIRE_THROWS_WITH(PresetRegistry({dir.str()}),
                        path + ": duplicate preset name \"h100-sxm\" (already defined by builtin)");
  }
  SECTION("user model shadowing a built-in") {
    const TempDir dir;
    const std::string path = dir.write("models/llama3-8b.json", kTinyModelJson);
    REQUIRE_THROWS_WITH(PresetRegistry({dir.str()}),
                        path + ": duplicate preset name \"llama3-8b\" (already defined by builtin)");
  }
  SECTION("the same name in two user directories") {
    const TempDir a;
    const TempDir b;
    const std::string first = a.write("models/tiny.json", kTinyModelJson);
    const std::string second = b.write("models/tiny.json", kTinyModelJson);
    REQUIRE_THROWS_WITH(PresetRegistry({a.str(), b.str()}),
                        second + ": duplicate preset name \"tiny\" (already defined by " + first + ")");
  }
  SECTION("a model and a GPU may share a name") {
    const TempDir dir;
    dir.write("models/test-gpu.json",
              R"({"name": "test-gpu", "source": "t", "architecture": {"n_layers": 1, "d_model": 8,
                  "n_heads": 1, "d_ff": 8, "vocab_size": 8}})");
    dir.write("gpus/test-gpu.json", kGpuJson);
    CHECK_NOTHROW(PresetRegistry({dir.str()}));
  }
}

TEST_CASE("io: did_you_mean: edit distance with a prefix bonus", "[io][presets][registry]") {
  const PresetRegistry r({});
  const auto gpus = names_of(r, PresetKind::gpu);
  const auto models = names_of(r, PresetKind::model);
  CHECK(did_you_mean("h100-sx", gpus) == "h100-sxm");
  CHECK(did_you_mean("h100-smx", gpus) == "h100-sxm");
  CHECK(did_you_mean("mi300", gpus) == "mi300a");
  CHECK(did_you_mean("llama3-8", models) == "llama3-8b");
  CHECK(did_you_mean("lama3-8b", models) == "llama3-8b");
  CHECK(did_you_mean("gemma3-27", models) == "gemma3-27b");
  CHECK(did_you_mean("zzzzzz", gpus).empty());
  CHECK(did_you_mean("anything", {}).empty());
  // A prefix of a name beats any one-edit neighbour ("h10" is also one edit from "a10").
  CHECK(did_you_mean("h10", gpus) == "h100-nvl");
  // Short words allow one edit only: "gpt" is not near any accelerator.
  CHECK(did_you_mean("gpt", gpus).empty());
}

TEST_CASE("io: unknown presets: the message suggests a near name or the listing", "[io][presets][registry]") {
  const PresetRegistry r({});
  std::istringstream no_stdin;
  REQUIRE_THROWS_WITH(r.load_model("llama3-8", no_stdin),
                      "MODEL: unknown preset \"llama3-8\"; did you mean \"llama3-8b\"?");
  REQUIRE_THROWS_WITH(r.load_model("zzzz", no_stdin),
                      "MODEL: unknown preset \"zzzz\"; see `roofline models --names`, or pass a config.json path");
  // Every name extending what was typed is offered, not just the first.
  REQUIRE_THROWS_WITH(r.load_gpu("mi300"), "--gpu: unknown preset \"mi300\"; did you mean one of: mi300a, mi300x?");
  REQUIRE_THROWS_WITH(r.load_gpu("h100-sx"), Catch::Contains("did you mean \"h100-sxm\""));
  REQUIRE_THROWS_WITH(r.load_gpu("zzzz"), "--gpu: unknown preset \"zzzz\"; see `roofline gpus --names`");
  REQUIRE_THROWS_AS(r.load_gpu("zzzz"), InputError);
}

TEST_CASE("io: load_model / load_gpu accept paths and stdin", "[io][presets][registry]") {
  const PresetRegistry r({});
  std::istringstream no_stdin;
  const std::string fixture = roofline_test::hf_fixture("llama3-8b");
  const ModelPreset p = r.load_model(fixture, no_stdin);
  CHECK(p.config.name == "llama3-8b.config");
  CHECK(p.origin == fixture);
  CHECK(count_params(p.config).total == 8'030'261'248);

  std::istringstream in(roofline_test::slurp(fixture));
  const ModelPreset s = r.load_model("-", in);
  CHECK(s.origin == "stdin");
  CHECK(count_params(s.config).total == 8'030'261'248);

  const TempDir dir;
  const std::string gpu = dir.write("my-gpu.json", kGpuJson);
  CHECK(r.load_gpu(gpu).name == "test-gpu");  // a path skips the name == file check
  REQUIRE_THROWS_WITH(r.load_model(dir.str() + "/absent.json", no_stdin),
                      dir.str() + "/absent.json: cannot open file: No such file or directory");
  REQUIRE_THROWS_WITH(r.load_gpu(dir.str()), dir.str() + ": is a directory, expected a JSON file");
}

// Aliases are checked against every name and alias when a preset directory is registered: a user GPU cannot take
// over a built-in's alias ("h100") or shadow one with its name ("h200"). The message blames the
// user file, never the built-in (code review §2.1).
TEST_CASE("io: a user alias or name colliding with a built-in alias is an InputError", "[io][presets][registry]") {
  SECTION("a user alias taking a built-in's alias") {
    const TempDir dir;
    const std::string path = dir.write("gpus/a-gpu.json", R"({"name": "a-gpu", "memory_capacity": "1 GiB",
      "memory_bandwidth": "1 TB/s", "peak": {}, "aliases": ["h100"], "source": "t"})");
    // Registering the directory checks every alias at once: a name looked up first (h100-sxm)
    // would otherwise hide the clash (N26).
    REQUIRE_THROWS_AS(PresetRegistry({dir.str()}), InputError);
    REQUIRE_THROWS_WITH(PresetRegistry({dir.str()}),
                        path + ": /aliases: \"h100\" is already an alias of \"h100-sxm\" (builtin)");
  }
  SECTION("a user name taking a built-in's alias") {
    const TempDir dir;
    const std::string path = dir.write("gpus/h200.json", R"({"name": "h200", "memory_capacity": "1 GiB",
      "memory_bandwidth": "1 TB/s", "peak": {}, "source": "t"})");
    REQUIRE_THROWS_WITH(PresetRegistry({dir.str()}),
                        path + ": preset name \"h200\" is already an alias of \"h200-sxm\" (builtin)");
  }
  SECTION("a user model alias, in any case, taking a built-in model's name or alias") {
    const TempDir dir;
    const std::string path = dir.write("models/tiny.json", R"({"name": "tiny", "source": "t",
      "aliases": ["Llama-3-8B"],
      "architecture": {"n_layers": 2, "d_model": 64, "n_heads": 4, "d_ff": 256, "vocab_size": 1000}})");
    REQUIRE_THROWS_WITH(PresetRegistry({dir.str()}),
                        path + ": /aliases: \"Llama-3-8B\" is already an alias of \"llama3-8b\" (builtin)");
    const TempDir dir2;
    const std::string path2 = dir2.write("models/tiny.json", R"({"name": "tiny", "source": "t",
      "aliases": ["LLAMA3-8B"],
      "architecture": {"n_layers": 2, "d_model": 64, "n_heads": 4, "d_ff": 256, "vocab_size": 1000}})");
    REQUIRE_THROWS_WITH(PresetRegistry({dir2.str()}),
                        path2 + ": /aliases: \"LLAMA3-8B\" is already the name of preset \"llama3-8b\" (builtin)");
  }
  SECTION("two user files, and one file twice") {
    const TempDir a;
    const TempDir b;
    const char* gpu = R"({"name": "%s", "memory_capacity": "1 GiB", "memory_bandwidth": "1 TB/s", "peak": {},
      "aliases": ["fast"], "source": "t"})";
    const auto text = [&](const std::string& name) {
      std::string t = gpu;
      t.replace(t.find("%s"), 2, name);
      return t;
    };
    const std::string first = a.write("gpus/one.json", text("one"));
    const std::string second = b.write("gpus/two.json", text("two"));
    REQUIRE_THROWS_WITH(PresetRegistry({a.str(), b.str()}),
                        second + ": /aliases: \"fast\" is already an alias of \"one\" (" + first + ")");
    const TempDir c;
    const std::string twice = c.write("gpus/three.json", R"({"name": "three", "memory_capacity": "1 GiB",
      "memory_bandwidth": "1 TB/s", "peak": {}, "aliases": ["x3", "X3"], "source": "t"})");
    REQUIRE_THROWS_WITH(PresetRegistry({c.str()}), twice + ": /aliases: \"X3\" is listed twice");
    const std::string own = c.write("gpus/four.json", R"({"name": "four", "memory_capacity": "1 GiB",
      "memory_bandwidth": "1 TB/s", "peak": {}, "aliases": ["Four"], "source": "t"})");
    std::filesystem::remove(twice);
    REQUIRE_THROWS_WITH(PresetRegistry({c.str()}), own + ": /aliases: \"Four\" is the preset's own name");
  }
}

TEST_CASE("io: preset names are looked up case-insensitively", "[io][presets][registry][lookup]") {
  const PresetRegistry r({});
  std::istringstream no_stdin;
  CHECK(r.load_model("LLAMA3-8B", no_stdin).config.name == "llama3-8b");
  CHECK(r.load_model("Qwen2.5-72B", no_stdin).config.name == "qwen2.5-72b");
  CHECK(r.load_gpu("H100").name == "h100-sxm");  // an alias, in capitals; used to suggest "a100"
  CHECK(r.load_gpu("MI300X").name == "mi300x");
  CHECK(r.load_gpu("H100-SXM").name == "h100-sxm");
  const auto h = r.resolve(PresetKind::gpu, "H100-SXM");
  REQUIRE(h.has_value());
  CHECK_FALSE(h->via_alias);
  // A name that differs only in case from a built-in is a duplicate.
  const TempDir dir;
  const std::string path = dir.write("models/LLAMA3-8B.json", kTinyModelJson);
  REQUIRE_THROWS_WITH(PresetRegistry({dir.str()}),
                      path + ": duplicate preset name \"LLAMA3-8B\" (already defined by builtin)");
}

TEST_CASE("io: model presets answer to their Hugging Face repo ids and common spellings",
          "[io][presets][registry][lookup]") {
  const PresetRegistry r({});
  std::istringstream no_stdin;
  struct Row {
    const char* typed;
    const char* preset;
  };
  const std::vector<Row> rows = {
      {"meta-llama/Meta-Llama-3-70B", "llama3-70b"},
      {"Qwen/Qwen2.5-72B", "qwen2.5-72b"},
      {"deepseek-ai/DeepSeek-V3", "deepseek-v3"},
      {"google/gemma-2-27b", "gemma2-27b"},
      {"meta-llama/meta-llama-3-8b", "llama3-8b"},
      {"llama-3-70b", "llama3-70b"},
      {"Llama-3-70B", "llama3-70b"},
      {"llama3_70b", "llama3-70b"},
      {"gemma-2-27b", "gemma2-27b"},
      {"qwen-2.5-72b", "qwen2.5-72b"},
      {"llama-3.1-70b", "llama3.1-70b"},
      {"Meta-Llama-3-8B", "llama3-8b"},
      {"mistralai/Mixtral-8x7B-v0.1", "mixtral-8x7b"},
      {"microsoft/phi-1_5", "phi-1.5"},
      {"openai-community/gpt2", "gpt2"},
      {"openai/gpt-oss-120b", "gpt-oss-120b"},
      {"OpenAI/GPT-OSS-20B", "gpt-oss-20b"},
      {"google/gemma-3-1b-it", "gemma3-1b"},
  };
  for (const Row& row : rows) {
    INFO(row.typed);
    const auto found = r.resolve(PresetKind::model, row.typed);
    REQUIRE(found.has_value());
    CHECK(found->entry->name == row.preset);
    CHECK(found->via_alias);
    // The loaded config carries the canonical name, so a caller can tell an alias was used.
    CHECK(r.load_model(row.typed, no_stdin).config.name == row.preset);
  }
  // Every built-in model preset has aliases, and every one of them, and the HF repo id of its
  // source, leads back to it.
  for (const PresetEntry* e : r.entries(PresetKind::model)) {
    INFO(e->name);
    const ModelPreset p = r.parse_model(*e);
    CHECK(r.aliases(*e) == p.aliases);
    CHECK_FALSE(p.aliases.empty());
    for (const std::string& a : p.aliases) CHECK(r.resolve(PresetKind::model, a)->entry == e);
    const auto hf = p.source.find("huggingface.co/");
    if (hf != std::string::npos) {
      const std::string rest = p.source.substr(hf + 15);
      const std::string repo = rest.substr(0, rest.find("/blob/"));
      CHECK(std::find(p.aliases.begin(), p.aliases.end(), repo) != p.aliases.end());
    }
  }
  // GPU aliases are listed too.
  for (const PresetEntry* e : r.entries(PresetKind::gpu)) {
    if (e->name == "h100-sxm") CHECK(r.aliases(*e) == std::vector<std::string>{"h100", "h100-sxm5"});
  }
  // A user model preset may declare aliases; a path that is no alias is still a path.
  const TempDir dir;
  dir.write("models/tiny.json", R"({"name": "tiny", "source": "t", "aliases": ["org/Tiny-1"],
      "architecture": {"n_layers": 2, "d_model": 64, "n_heads": 4, "d_ff": 256, "vocab_size": 1000}})");
  const PresetRegistry u({dir.str()});
  CHECK(u.load_model("ORG/tiny-1", no_stdin).config.name == "tiny");
  REQUIRE_THROWS_WITH(u.load_model("org/absent", no_stdin),
                      "MODEL: \"org/absent\" is no preset, alias or file; roofline looked in the local Hugging "
                      "Face cache, in its presets and their aliases (with -Instruct, -it, -FP8, -AWQ, ... taken out) "
                      "and for a file of that path; see `roofline models --names`");
}

// Did-you-mean never offers a different size or version: a user who accepts it would size the
// wrong model (new-user review §2a, §4 item 3). Policy: docs/presets.md.
TEST_CASE("io: unknown presets: suggestions keep the size", "[io][presets][registry][lookup]") {
  const PresetRegistry r({});
  std::istringstream no_stdin;
  struct Row {
    const char* typed;
    std::string message;
  };
  const std::vector<Row> rows = {
      {"qwen2.5-3b", "; presets of this family: qwen2.5-0.5b, qwen2.5-7b, qwen2.5-14b, qwen2.5-32b, qwen2.5-72b"},
      {"qwen2.5-1.5b", "; presets of this family: qwen2.5-0.5b, qwen2.5-7b, qwen2.5-14b, qwen2.5-32b, qwen2.5-72b"},
      {"gemma3-9b", "; presets of this family: gemma3-1b, gemma3-4b, gemma3-12b, gemma3-27b"},
      {"gemma-3-2b", "; presets of this family: gemma3-1b, gemma3-4b, gemma3-12b, gemma3-27b"},
      {"qwen3-2b",
       "; presets of this family: qwen3-0.6b, qwen3-1.7b, qwen3-4b, qwen3-8b, qwen3-14b, qwen3-30b-a3b, qwen3-32b, "
       "qwen3-235b-a22b"},
      {"Llama-3.1-13B", "; presets of this family: llama3.1-8b, llama3.1-70b, llama3.1-405b"},
      {"mixtral", "; did you mean one of: mixtral-8x7b, mixtral-8x22b?"},
      {"llama3-8", "; did you mean \"llama3-8b\"?"},
      {"lama3-8b", "; did you mean \"llama3-8b\"?"},
      {"llama-3-8c", "; did you mean \"llama3-8b\"?"},
      {"gemma3-27", "; did you mean \"gemma3-27b\"?"},
      {"phi-5", "; see `roofline models --names`, or pass a config.json path"},
      {"zzzz", "; see `roofline models --names`, or pass a config.json path"},
  };
  for (const Row& row : rows) {
    INFO(row.typed);
    REQUIRE_THROWS_WITH(r.load_model(row.typed, no_stdin),
                        "MODEL: unknown preset \"" + std::string(row.typed) + "\"" + row.message);
  }
  REQUIRE_THROWS_WITH(r.load_gpu("h10"),
                      "--gpu: unknown preset \"h10\"; did you mean one of: h100-nvl, h100-pcie, "
                      "h100-sxm?");
  REQUIRE_THROWS_WITH(r.load_gpu("H200-SMX"), "--gpu: unknown preset \"H200-SMX\"; did you mean \"h200-sxm\"?");
  REQUIRE_THROWS_WITH(r.load_gpu("a100-60gb"), "--gpu: unknown preset \"a100-60gb\"; see `roofline gpus --names`");
  CHECK(suggest_preset("v100", {{"a100", "a100-80gb-sxm"}, {"v100-sxm2-32gb", "v100-sxm2-32gb"}}) ==
        "; did you mean \"v100-sxm2-32gb\"?");
  CHECK(suggest_preset("", {{"a", "a"}}).empty());
}

TEST_CASE("io: built-in preset names are unique per kind, in any case", "[io][presets][registry]") {
  // The registry registers the built-ins without a duplicate check (it runs on every command); this
  // is the check, once, here.
  std::set<std::pair<std::string, std::string>> seen;
  for (const roofline::io::EmbeddedPreset& p : roofline::io::embedded_presets()) {
    std::string lower(p.name);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    INFO(p.path);
    CHECK(seen.emplace(std::string(p.kind), lower).second);
  }
  CHECK(seen.size() == roofline::io::embedded_presets().size());
}

TEST_CASE("io: the aliases read at build time are the ones each built-in preset lists", "[io][presets][registry]") {
  // An alias lookup (--gpu h100) reads them instead of parsing every preset; they must agree.
  for (const roofline::io::EmbeddedPreset& p : roofline::io::embedded_presets()) {
    INFO(p.path);
    REQUIRE(p.aliases_known);
    const nlohmann::json j = nlohmann::json::parse(p.text);
    std::string listed;
    if (j.contains("aliases")) {
      for (const auto& a : j.at("aliases")) listed += a.get<std::string>() + "\n";
    }
    CHECK(p.aliases == listed);
  }
}

TEST_CASE("io: every built-in alias resolves to its preset, with and without preset files", "[io][presets][registry]") {
  // Without files the aliases are scanned in place; with a preset directory the checked index is
  // used. Both must give the same preset, and the built-ins' own clash checks must pass.
  const PresetRegistry builtin({});
  const PresetRegistry with_files({std::string(ROOFLINE_SOURCE_DIR) + "/tests/fixtures/preset_dir"});
  std::size_t checked = 0;
  for (const PresetKind kind : {PresetKind::model, PresetKind::gpu}) {
    for (const roofline::io::PresetEntry* e : builtin.entries(kind)) {
      for (const std::string& a : builtin.aliases(*e)) {
        INFO(e->name << " alias " << a);
        for (const PresetRegistry* r : {&builtin, &with_files}) {
          const auto found = r->resolve(kind, a);
          REQUIRE(found);
          CHECK(found->entry->name == e->name);
          CHECK(found->via_alias);
        }
        ++checked;
      }
    }
  }
  CHECK(checked > 300);
  CHECK_FALSE(builtin.resolve(PresetKind::gpu, "no-such-accelerator"));
  CHECK_FALSE(with_files.resolve(PresetKind::gpu, "no-such-accelerator"));
}
