// Hybrid and state-space families (issue 10): each trap of FAMILY-NOTES-hybrid.md as a named test,
// and the recurrent-state sizes checked against the reference implementation's cache shapes.
// The fixture totals themselves are checked by hf_import_test's loop over published-hybrid.tsv.
#include "io/hf_import.hpp"
#include "io/preset_json.hpp"
#include "io/preset_registry.hpp"

#include "roofline/errors.hpp"
#include "roofline/memory.hpp"
#include "roofline/params.hpp"

#include <catch2/catch.hpp>

#include <optional>
#include <sstream>
#include <string>

#include "io_test_support.hpp"

using namespace roofline;
using namespace roofline::io;
using nlohmann::json;
using roofline_test::hf_fixture;

namespace {

using roofline_test::fixture_json;
using roofline_test::import_fixture;

ModelConfig import_json(const json& j) { return import_hf_config(j, "config.json"); }

std::int64_t count_layers(const ModelConfig& m, bool attention, StateMixer state, LayerFfn ffn) {
  std::int64_t n = 0;
  for (const LayerMix& x : m.hybrid.layers) n += (x.attention == attention && x.state == state && x.ffn == ffn) ? 1 : 0;
  return n;
}

std::int64_t part(const ParamCounts& c, std::size_t kind, std::string_view id) {
  for (const ParamComponent& p : c.layer_kinds.at(kind).parts) {
    if (p.id == id) return p.count;
  }
  return 0;
}

}  // namespace

TEST_CASE("hybrid: mamba, mamba2 and jamba are imported, falcon_mamba and zamba still refused by name",
          "[io][hf][hybrid]") {
  for (const char* type :
       {"mamba", "mamba2", "nemotron_h", "granitemoehybrid", "qwen3_next", "jamba", "bamba", "falcon_h1"}) {
    INFO(type);
    CHECK(supported_model_types().find(type) != std::string::npos);
  }
  CHECK_THROWS_WITH(import_json(json{{"model_type", "falcon_mamba"}}),
                    Catch::Contains("a state-space model, which roofline does not model"));
  CHECK_THROWS_WITH(import_json(json{{"model_type", "zamba2"}}), Catch::Contains("a hybrid state-space model"));
}

TEST_CASE("hybrid: nemotron_h: hybrid_override_pattern gives one mixer per block, one norm each",
          "[io][hf][hybrid][nemotron_h]") {
  const ModelConfig m = import_fixture("nemotron-h-8b");
  REQUIRE(m.n_layers == 52);
  CHECK(count_layers(m, false, StateMixer::mamba2, LayerFfn::none) == 24);
  CHECK(count_layers(m, true, StateMixer::none, LayerFfn::none) == 4);
  CHECK(count_layers(m, false, StateMixer::none, LayerFfn::dense) == 24);
  CHECK(m.attention_layers() == 4);
  CHECK(m.is_attention_layer(7));
  CHECK(m.is_attention_layer(40));
  CHECK_FALSE(m.is_attention_layer(8));
  // relu2 MLP: up_proj and down_proj only (2 x 4096 x 21504), one norm.
  const ParamCounts c = count_params(m);
  REQUIRE(c.layer_kinds.size() == 3);
  CHECK(c.layer_kinds[1].mix == LayerMix{false, StateMixer::none, LayerFfn::dense});
  CHECK(c.layer_kinds[1].total == 2 * 4096 * 21504 + 4096);
  CHECK(part(c, 1, "gate_proj") == 0);
  // d_i = mamba_num_heads x mamba_head_dim = 8192; in_proj 4096 x (8192 + 10240 + 128): the published
  // backbone.layers.0.mixer.in_proj.weight is [18560, 4096].
  CHECK(part(c, 0, "in_proj") == 4096LL * 18560);
  CHECK(part(c, 0, "conv1d") == 10240 * 4);
  CHECK(part(c, 0, "ssm_bias") == 10240);  // use_conv_bias: conv1d.bias only
  CHECK(part(c, 0, "norms") == 4096);
}

TEST_CASE("hybrid: nemotron_h: a pattern that disagrees with num_hidden_layers is refused; E blocks need the MoE keys",
          "[io][hf][hybrid][nemotron_h]") {
  json j = fixture_json("nemotron-h-8b");
  j["num_hidden_layers"] = 50;
  CHECK_THROWS_WITH(import_json(j), Catch::Contains("does not match the 52 blocks"));
  j = fixture_json("nemotron-h-8b");
  j["hybrid_override_pattern"] = "MEM*";
  j.erase("num_hidden_layers");
  CHECK_THROWS_WITH(import_json(j), Catch::Contains("n_routed_experts"));  // an E block without experts
  // The layers_block_type list that newer transformers writes reads the same as the pattern.
  j = fixture_json("nemotron-h-8b");
  const std::string pattern = j["hybrid_override_pattern"].get<std::string>();
  json list = json::array();
  for (char ch : pattern) list.push_back(ch == 'M' ? "mamba" : ch == '*' ? "attention" : "mlp");
  j.erase("hybrid_override_pattern");
  j["layers_block_type"] = list;
  CHECK(count_params(import_json(j)).total == count_params(import_fixture("nemotron-h-8b")).total);
}

TEST_CASE("hybrid: Mamba-2 state per sequence matches the reference cache shapes (Nemotron-H 8B)",
          "[io][hf][hybrid][state]") {
  // transformers NemotronH cache (modeling_nemotron_h.py): conv_states [batch, conv_dim, conv_kernel]
  // with conv_dim = d_i + 2 n_groups ssm_state_size = 8192 + 2 x 8 x 128 = 10240, conv_kernel 4;
  // recurrent (ssm) states [batch, mamba_num_heads, mamba_head_dim, ssm_state_size] = [128, 64, 128].
  const ModelConfig m = import_fixture("nemotron-h-8b");
  CHECK(state_elements_per_layer(m, StateMixer::mamba2) == 10240 * 4 + 128 * 64 * 128);  // 1,089,536
  CHECK(state_bytes_per_sequence(m, 2.0).base() == 24.0 * 1'089'536 * 2);                // 52,297,728 B
  // KV: 4 attention layers x 2 x 8 x 128 x 2 B.
  CHECK(kv_bytes_per_token(m, 2.0).base() == 16'384.0);
  CHECK(kv_bytes_per_sequence(m, 1'000'000.0, 2.0).base() == 16'384.0 * 1e6 + 52'297'728.0);
}

TEST_CASE("hybrid: Mamba-1 state and the dt rank (mamba-2.8b)", "[io][hf][hybrid][mamba][state]") {
  // transformers MambaCache: conv_states [batch, intermediate_size, conv_kernel] = [5120, 4],
  // ssm_states [batch, intermediate_size, state_size] = [5120, 16].
  const ModelConfig m = import_fixture("mamba-2.8b");
  CHECK(m.attention_layers() == 0);
  CHECK(m.n_heads == 0);
  CHECK(state_elements_per_layer(m, StateMixer::mamba1) == 5120 * 4 + 5120 * 16);
  CHECK(kv_bytes_per_token(m, 2.0).base() == 0.0);
  // The cache does not grow: the same at 1 token and at a million.
  CHECK(kv_bytes_per_sequence(m, 1.0, 2.0).base() == 64.0 * 102'400 * 2);
  CHECK(kv_bytes_per_sequence(m, 1e6, 2.0).base() == 64.0 * 102'400 * 2);
  // x_proj: 5120 -> time_step_rank + 2 x state_size = 160 + 32; time_step_rank "auto" = ceil(2560 / 16).
  const ParamCounts c = count_params(m);
  CHECK(part(c, 0, "x_proj") == 5120 * 192);
  json j = fixture_json("mamba-2.8b");
  j["time_step_rank"] = "auto";
  CHECK(count_params(import_json(j)).total == c.total);
}

TEST_CASE("hybrid: mamba2: num_heads x head_dim must equal expand x hidden_size", "[io][hf][hybrid][mamba2]") {
  json j = fixture_json("mamba-codestral-7b");
  j["num_heads"] = 64;
  CHECK_THROWS_WITH(import_json(j), Catch::Contains("must equal expand x hidden_size"));
}

TEST_CASE("hybrid: granitemoehybrid: every layer carries the shared MLP and the MoE; attention has no rope",
          "[io][hf][hybrid][granite]") {
  const ModelConfig m = import_fixture("granite-4.0-h-small");
  CHECK(m.attention_layers() == 4);
  CHECK(count_layers(m, false, StateMixer::mamba2, LayerFfn::moe) == 36);
  CHECK(count_layers(m, true, StateMixer::none, LayerFfn::moe) == 4);
  CHECK(m.position == PositionKind::none);
  CHECK(m.moe.n_shared_experts == 1);
  CHECK(m.moe.d_ff_shared == 1536);
  CHECK_FALSE(m.moe.shared_expert_gate);
  // mamba_d_head "auto" = mamba_expand x hidden / mamba_n_heads = 64.
  json j = fixture_json("granite-4.0-h-small");
  j["mamba_d_head"] = "auto";
  CHECK(count_params(import_json(j)).total == 32'207'337'984);
}

TEST_CASE("hybrid: granitemoehybrid with num_local_experts 0 is dense: the shared MLP is the FFN",
          "[io][hf][hybrid][granite]") {
  json j = fixture_json("granite-4.0-h-small");
  j["num_local_experts"] = 0;
  const ModelConfig m = import_json(j);
  CHECK_FALSE(m.moe.enabled());
  CHECK(m.d_ff == 1536);
  CHECK(count_layers(m, false, StateMixer::mamba2, LayerFfn::dense) == 36);
  // 32,207,337,984 less 40 x (router 4096 x 72 + 72 experts x 3 x 4096 x 768).
  CHECK(count_params(m).total == 32'207'337'984LL - 40LL * (4096 * 72 + 72LL * 3 * 4096 * 768));
}

TEST_CASE("hybrid: qwen3_next: the gated q_proj, Gated DeltaNet layers and MTP excluded",
          "[io][hf][hybrid][qwen3_next]") {
  const ModelConfig m = import_fixture("qwen3-next-80b-a3b");
  CHECK(m.attention_layers() == 12);
  CHECK(count_layers(m, false, StateMixer::gated_deltanet, LayerFfn::moe) == 36);
  CHECK(m.is_attention_layer(3));
  CHECK_FALSE(m.is_attention_layer(4));
  const ParamCounts c = count_params(m);
  // Layer kinds in order of first layer: DeltaNet (0), full attention (3).
  REQUIRE(c.layer_kinds.size() == 2);
  // q_proj emits [q; gate]: 2 x 2048 x 16 x 256.
  CHECK(part(c, 1, "q_proj") + part(c, 1, "attn_gate") == 2LL * 2048 * 16 * 256);
  // in_proj_qkvz 2048 -> 2 x 16 x 128 + 2 x 32 x 128; conv over 2 x 2048 + 4096 channels, kernel 4.
  CHECK(part(c, 0, "in_proj_qkvz") == 2048LL * 12288);
  CHECK(part(c, 0, "conv1d") == 8192 * 4);
  CHECK(part(c, 0, "delta_norm") == 128);
  // The checkpoint's mtp.* module: a full-attention MoE layer, fc 2d -> d and three norms.
  CHECK(c.mtp_excluded == 1'650'471'424);
  CHECK(c.total + c.mtp_excluded == 81'324'862'720);
}

TEST_CASE("hybrid: Gated DeltaNet state per sequence matches the reference cache shapes (Qwen3-Next)",
          "[io][hf][hybrid][qwen3_next][state]") {
  // transformers Qwen3-Next cache (modeling_qwen3_next.py): conv_states [batch, conv_dim, conv_kernel]
  // with conv_dim = 2 key_dim + value_dim = 2 x 16 x 128 + 32 x 128 = 8192, kernel 4; recurrent
  // states [batch, linear_num_value_heads, linear_key_head_dim, linear_value_head_dim] = [32, 128, 128].
  const ModelConfig m = import_fixture("qwen3-next-80b-a3b");
  CHECK(state_elements_per_layer(m, StateMixer::gated_deltanet) == 8192 * 4 + 32 * 128 * 128);  // 557,056
  CHECK(state_bytes_per_sequence(m, 2.0).base() == 36.0 * 557'056 * 2);                         // 40,108,032 B
  // KV: 12 full-attention layers x 2 x 2 kv heads x 256 x 2 B.
  CHECK(kv_bytes_per_token(m, 2.0).base() == 24'576.0);
}

TEST_CASE("hybrid: architecture_to_json round-trips the layer mixers", "[io][hf][hybrid]") {
  for (const char* preset : {"nemotron-h-8b", "qwen3-next-80b-a3b", "mamba-2.8b", "granite-4.0-h-small"}) {
    INFO(preset);
    const ModelConfig m = import_fixture(preset);
    ModelConfig back;
    architecture_from_json(architecture_to_json(m), "roundtrip", back);
    CHECK(back.hybrid.layers == m.hybrid.layers);
    CHECK(count_params(back).total == count_params(m).total);
    CHECK(state_bytes_per_sequence(back, 2.0).base() == state_bytes_per_sequence(m, 2.0).base());
  }
}

TEST_CASE("hybrid: granite-4.0-micro: the dense, all-attention variant has no state and a RoPE GQA cache",
          "[io][hf][hybrid][granite]") {
  const ModelConfig m = import_fixture("granite-4.0-micro");
  CHECK(m.attention_layers() == 40);
  CHECK_FALSE(m.moe.enabled());
  CHECK(m.position == PositionKind::rope);
  CHECK(state_bytes_per_sequence(m, 2.0).base() == 0.0);
  CHECK(kv_bytes_per_token(m, 2.0).base() == 40.0 * 2 * 8 * 64 * 2);  // head_dim 2560 / 40 = 64
}

TEST_CASE("hybrid: jamba: attention every 8th layer from 4, MoE on odd layers, no attention biases",
          "[io][hf][hybrid][jamba]") {
  const ModelConfig m = import_fixture("jamba-v0.1");
  CHECK(m.attention_layers() == 4);
  for (std::int64_t i : {4, 12, 20, 28}) CHECK(m.is_attention_layer(i));
  CHECK(count_layers(m, false, StateMixer::mamba1, LayerFfn::moe) == 16);
  CHECK(count_layers(m, false, StateMixer::mamba1, LayerFfn::dense) == 12);
  CHECK(count_layers(m, true, StateMixer::none, LayerFfn::dense) == 4);
  CHECK(m.position == PositionKind::none);
  // JambaAttention hard-codes bias=False: attention_bias in the config changes nothing.
  json j = fixture_json("jamba-v0.1");
  j["attention_bias"] = true;
  CHECK(count_params(import_json(j)).total == 51'570'323'328);
  // HybridMambaAttentionDynamicCache (modeling_jamba.py): conv_states [batch, d_inner, d_conv] and
  // ssm_states [batch, d_inner, d_state] per Mamba layer: 8192 x (4 + 16) = 163,840 elements.
  CHECK(state_elements_per_layer(m, StateMixer::mamba1) == 8192 * (4 + 16));
  CHECK(state_bytes_per_sequence(m, 2.0).base() == 28.0 * 163'840 * 2);
}

TEST_CASE("hybrid: bamba: Mamba-2 everywhere but attn_layer_indices, a gated MLP on every layer",
          "[io][hf][hybrid][bamba]") {
  // A Bamba-9B-shaped config (BambaConfig keys); no published total is checked here.
  const json j = {{"model_type", "bamba"},      {"hidden_size", 4096},
                  {"intermediate_size", 14336}, {"num_hidden_layers", 32},
                  {"num_attention_heads", 32},  {"num_key_value_heads", 8},
                  {"vocab_size", 128256},       {"attn_layer_indices", {9, 18, 27}},
                  {"mamba_n_heads", 128},       {"mamba_d_head", 64},
                  {"mamba_n_groups", 1},        {"mamba_d_state", 128}};
  const ModelConfig m = import_json(j);
  CHECK(m.attention_layers() == 3);
  CHECK(count_layers(m, false, StateMixer::mamba2, LayerFfn::dense) == 29);
  // Per Mamba layer: mixer 102,286,976 (in_proj 4096 x 16768, conv 8448 x 4 + 8448, 3 x 128, norm 8192,
  // out_proj 8192 x 4096) + gated MLP 3 x 4096 x 14336 + 2 norms.
  CHECK(count_params(m).layer_kinds.at(0).total == 102'286'976 + 3LL * 4096 * 14336 + 2 * 4096);
}

// ---- falcon_h1 (FAMILY-NOTES-hybrid.md) ------------------------------------------------------

TEST_CASE("hybrid: falcon_h1: attention and Mamba-2 side by side in every layer, one shared input norm",
          "[io][hf][hybrid][falcon_h1]") {
  const ModelConfig m = import_fixture("falcon-h1-7b");
  REQUIRE(m.n_layers == 44);
  CHECK(count_layers(m, true, StateMixer::mamba2, LayerFfn::dense) == 44);
  CHECK(m.attention_layers() == 44);
  CHECK_FALSE(m.tied_embeddings);
  CHECK(m.vocab_size == 130049);
  const ParamCounts c = count_params(m);
  REQUIRE(c.layer_kinds.size() == 1);
  // Attention: q 3072 x 12 x 128, k and v 3072 x 2 x 128, o back.
  CHECK(part(c, 0, "q_proj") == 3072LL * 1536);
  // FalconH1Mixer: conv channels 3072 + 2 x 1 x 256 = 3584; in_proj 3072 -> 3072 + 3584 + 24 = 6680.
  CHECK(part(c, 0, "in_proj") == 3072LL * 6680);
  CHECK(part(c, 0, "conv1d") == 3584 * 4);
  CHECK(part(c, 0, "ssm_bias") == 3584);  // mamba_conv_bias only
  CHECK(part(c, 0, "ssm_norm") == 3072);  // mamba_rms_norm: the gated norm over d_ssm
  CHECK(part(c, 0, "out_proj") == 3072LL * 3072);
  // input_layernorm (shared by both mixers) and pre_ff_layernorm.
  CHECK(part(c, 0, "norms") == 2 * 3072);
  // 11,010,048 attention + 29,979,208 Mamba-2 + 113,246,208 gated MLP + 6,144 norms.
  CHECK(c.layer_kinds[0].total == 154'241'608);
  CHECK(c.total == 7'585'654'880);
}

TEST_CASE("hybrid: falcon_h1: the Mamba width is mamba_d_ssm, not mamba_expand x hidden_size",
          "[io][hf][hybrid][falcon_h1]") {
  json j = fixture_json("falcon-h1-7b");
  REQUIRE(j["mamba_expand"] == 2);  // 2 x 3072 = 6144 would be the Bamba / Granite reading
  CHECK(import_json(j).hybrid.ssm.d_inner == 3072);
  // mamba_d_head must agree with the width; absent it is "auto" = mamba_d_ssm / mamba_n_heads.
  j["mamba_d_head"] = 64;
  CHECK_THROWS_WITH(import_json(j), Catch::Contains("must equal the Mamba width mamba_d_ssm (3072)"));
  j["mamba_d_head"] = "auto";
  CHECK(count_params(import_json(j)).total == 7'585'654'880);
  // Absent (class default 1024) and null (expand x d) read alike here: refused, not guessed.
  j.erase("mamba_d_ssm");
  CHECK_THROWS_WITH(import_json(j), Catch::Contains("mamba_d_ssm"));
  j["mamba_d_ssm"] = nullptr;
  CHECK_THROWS_WITH(import_json(j), Catch::Contains("give the width"));
}

TEST_CASE("hybrid: falcon_h1: the gated RMSNorm exists only with mamba_rms_norm", "[io][hf][hybrid][falcon_h1]") {
  json j = fixture_json("falcon-h1-7b");
  j["mamba_rms_norm"] = false;
  const ParamCounts c = count_params(import_json(j));
  CHECK(part(c, 0, "ssm_norm") == 0);
  CHECK(c.total == 7'585'654'880LL - 44 * 3072);
  j.erase("mamba_rms_norm");  // the class default is false
  CHECK(count_params(import_json(j)).total == 7'585'654'880LL - 44 * 3072);
}

TEST_CASE("hybrid: falcon_h1: projectors_bias is out_proj's bias, mamba_proj_bias is in_proj's",
          "[io][hf][hybrid][falcon_h1]") {
  json j = fixture_json("falcon-h1-7b");
  j["projectors_bias"] = true;
  CHECK(part(count_params(import_json(j)), 0, "ssm_bias") == 3584 + 3072);  // conv + out_proj (d)
  j["projectors_bias"] = false;
  j["mamba_proj_bias"] = true;
  CHECK(part(count_params(import_json(j)), 0, "ssm_bias") == 3584 + 6680);  // conv + in_proj
  // The split survives the native architecture form.
  j["projectors_bias"] = true;
  const ModelConfig m = import_json(j);
  ModelConfig back;
  architecture_from_json(architecture_to_json(m), "roundtrip", back);
  CHECK(back.hybrid.ssm.out_proj_bias == std::optional<bool>(true));
  CHECK(count_params(back).total == count_params(m).total);
  CHECK(count_params(m).total == 7'585'654'880LL + 44 * (3072 + 6680));
}

TEST_CASE("hybrid: falcon_h1: head_dim comes from the config (12 x 128), not hidden_size / heads",
          "[io][hf][hybrid][falcon_h1]") {
  json j = fixture_json("falcon-h1-7b");
  j.erase("head_dim");
  const ModelConfig m = import_json(j);
  CHECK(m.head_dim == 256);  // LlamaAttention's fallback d / h
  // q and o double (2 x 3072 x 1536 more), k and v double (2 x 3072 x 256 more), per layer.
  CHECK(count_params(m).total == 7'585'654'880LL + 44 * (2LL * 3072 * 1536 + 2LL * 3072 * 256));
}

TEST_CASE("hybrid: falcon_h1: the muP multipliers and the mup_vector buffer change no count",
          "[io][hf][hybrid][falcon_h1]") {
  json j = fixture_json("falcon-h1-7b");
  j["key_multiplier"] = 1.0;
  j["attention_in_multiplier"] = 2.0;
  j["attention_out_multiplier"] = 1.0;
  j["ssm_multipliers"] = {1.0, 1.0, 1.0, 1.0, 1.0};
  j["mlp_multipliers"] = {1.0, 1.0};
  j["embedding_multiplier"] = 1.0;
  j["lm_head_multiplier"] = 1.0;
  // FalconH1Model registers mup_vector (1 x 1 x (2 d_ssm + 2 g N + H) = 6,680 per layer) with
  // persistent=False: not a parameter, not in the checkpoint, whose census is exactly our total.
  CHECK(count_params(import_json(j)).total == 7'585'654'880);
}

TEST_CASE("hybrid: falcon_h1: KV in every layer plus a Mamba-2 state, against the reference cache shapes",
          "[io][hf][hybrid][falcon_h1][state]") {
  // FalconHybridMambaAttentionDynamicCache (modeling_falcon_h1.py): conv_states [batch, mamba_d_ssm +
  // 2 mamba_n_groups mamba_d_state, mamba_d_conv] = [3072 + 512, 4]; ssm_states [batch, mamba_n_heads,
  // mamba_d_head, mamba_d_state] = [24, 128, 256]; every layer also caches K and V.
  const ModelConfig m = import_fixture("falcon-h1-7b");
  CHECK(state_elements_per_layer(m, StateMixer::mamba2) == 3584 * 4 + 24 * 128 * 256);  // 800,768
  CHECK(state_bytes_per_sequence(m, 2.0).base() == 44.0 * 800'768 * 2);                 // 70,467,584 B
  CHECK(kv_bytes_per_token(m, 2.0).base() == 44.0 * 2 * 2 * 128 * 2);                   // 45,056 B
  // A 1024-wide Falcon-H1 (the 0.5B shape: mamba_d_ssm 1536, 24 heads x 64, state 128): a live
  // transformers cache holds conv [1, 1792, 4] and ssm [1, 24, 64, 128] per layer.
  json j = fixture_json("falcon-h1-7b");
  j["hidden_size"] = 1024;
  j["mamba_d_ssm"] = 1536;
  j["mamba_d_head"] = 64;
  j["mamba_d_state"] = 128;
  j["num_attention_heads"] = 8;
  j["head_dim"] = 64;
  CHECK(state_elements_per_layer(import_json(j), StateMixer::mamba2) == 1792 * 4 + 24 * 64 * 128);
}

// ---- the recurrent state's declared dtype ---------------------------------------------------

TEST_CASE("hybrid: nemotron_h: mamba_ssm_cache_dtype puts the SSM state, not the conv state, in its dtype",
          "[io][hf][hybrid][nemotron_h][state]") {
  // vLLM applies mamba_ssm_cache_dtype to the temporal (SSM) state only; the conv state follows the
  // cache dtype. Nemotron-H 8B: per Mamba layer conv 10240 x 4 = 40,960, SSM 128 x 64 x 128 = 1,048,576.
  json j = fixture_json("nemotron-h-8b");
  REQUIRE_FALSE(j.contains("mamba_ssm_cache_dtype"));  // the embedded config does not declare it
  CHECK_FALSE(import_json(j).hybrid.state_dtype.has_value());
  j["mamba_ssm_cache_dtype"] = "float32";
  const ModelConfig m = import_json(j);
  REQUIRE(m.hybrid.state_dtype == std::optional<DType>(DType::fp32));
  CHECK(recurrent_elements_per_layer(m, StateMixer::mamba2) == 128 * 64 * 128);
  CHECK(state_bytes_per_sequence(m, 2.0).base() == 24.0 * (40'960 * 2 + 1'048'576 * 4));  // 102,629,376 B
  // With an fp8 KV cache only the conv state shrinks; the KV term is unchanged by the state dtype.
  CHECK(state_bytes_per_sequence(m, 1.0).base() == 24.0 * (40'960 * 1 + 1'048'576 * 4));
  CHECK(kv_bytes_per_sequence(m, 1000.0, 2.0).base() == 16'384.0 * 1000 + 102'629'376.0);
  // Parameters do not depend on it.
  CHECK(count_params(m).total == 8'100'852'736);
  // "auto" is the KV dtype; an unknown name is refused by key.
  j["mamba_ssm_cache_dtype"] = "auto";
  CHECK(state_bytes_per_sequence(import_json(j), 2.0).base() == 52'297'728.0);
  j["mamba_ssm_cache_dtype"] = "float64";
  CHECK_THROWS_WITH(import_json(j), Catch::Contains("mamba_ssm_cache_dtype"));
  // The native architecture form keeps it.
  ModelConfig back;
  architecture_from_json(architecture_to_json(m), "roundtrip", back);
  CHECK(back.hybrid.state_dtype == std::optional<DType>(DType::fp32));
  CHECK(state_bytes_per_sequence(back, 2.0).base() == state_bytes_per_sequence(m, 2.0).base());
}

TEST_CASE("hybrid: granitemoehybrid: granite-4.0-h-tiny, 64 experts top-6 beside the shared MLP, tied",
          "[io][hf][hybrid][granite]") {
  const ModelConfig m = import_fixture("granite-4.0-h-tiny");
  CHECK(m.attention_layers() == 4);
  for (std::int64_t i : {5, 15, 25, 35}) CHECK(m.is_attention_layer(i));
  CHECK(count_layers(m, false, StateMixer::mamba2, LayerFfn::moe) == 36);
  CHECK(m.head_dim == 128);  // hidden_size / num_attention_heads = 1536 / 12
  CHECK(m.tied_embeddings);
  // mamba_expand x hidden = 3072 = 48 heads x 64.
  CHECK(m.hybrid.ssm.d_inner == 3072);
  const ParamCounts c = count_params(m);
  CHECK(c.total == 6'939'037'248);
  // Active: top-6 of 64 routed experts (3 x 1536 x 512 each) per layer, all else dense.
  CHECK(c.total - c.active == 40LL * (64 - 6) * 3 * 1536 * 512);
}

TEST_CASE("hybrid: lfm2: short convolutions beside GQA, the MLP width adjusted as Lfm2MLP does",
          "[io][hf][hybrid][lfm2][trap]") {
  // published-2025.tsv:6: 1,170,340,608 for LiquidAI/LFM2-1.2B.
  json j = fixture_json("lfm2-1.2b");
  const ModelConfig m = import_json(j);
  REQUIRE(m.hybrid.layers.size() == 16);
  CHECK(std::count_if(m.hybrid.layers.begin(), m.hybrid.layers.end(),
                      [](const LayerMix& x) { return x.state == StateMixer::short_conv; }) == 10);
  CHECK(m.d_ff == 8192);  // block_ff_dim 12288 -> int(2 x 12288 / 3) = 8192, a multiple of 256
  CHECK(m.head_dim == 64);
  CHECK(m.tied_embeddings);
  const ParamCounts c = count_params(m);
  CHECK(c.total == 1'170'340'608);
  // A conv layer: in_proj 3d^2, conv d x L_cache, out_proj d^2.
  const std::int64_t d = 2048;
  for (std::size_t i = 0; i < c.layer_kinds.size(); ++i) {
    if (c.layer_kinds[i].mix.state != StateMixer::short_conv) continue;
    CHECK(part(c, i, "in_proj") == 3 * d * d);
    CHECK(part(c, i, "conv1d") == d * 3);
    CHECK(part(c, i, "out_proj") == d * d);
  }
  // Cache: KV in the 6 attention layers (2 x 8 x 64 x 2 B), a [d, L_cache] conv state in the 10
  // conv layers (HF Lfm2HybridConvCache).
  CHECK(kv_bytes_per_token(m, 2.0).base() == 6.0 * 2 * 8 * 64 * 2);
  CHECK(state_bytes_per_sequence(m, 2.0).base() == 10.0 * 2048 * 3 * 2);
  // conv_bias puts 3d + d + d biases on each conv layer.
  json biased = j;
  biased["conv_bias"] = true;
  CHECK(count_params(import_json(biased)).total == c.total + 10 * 5 * d);
  // The adjustment: a multiplier scales 2f/3 before the rounding up to block_multiple_of.
  json scaled = j;
  scaled["block_ffn_dim_multiplier"] = 1.5;  // int(1.5 x 8192) = 12288
  CHECK(import_json(scaled).d_ff == 12288);
  scaled["block_auto_adjust_ff_dim"] = false;
  CHECK(import_json(scaled).d_ff == 12288);  // block_ff_dim as written
  // Without layer_types, full_attn_idxs places attention; without either, every layer attends.
  json idxs = j;
  idxs.erase("layer_types");
  idxs["full_attn_idxs"] = json::array({2, 5, 8, 10, 12, 14});
  CHECK(count_params(import_json(idxs)).total == c.total);
  idxs.erase("full_attn_idxs");
  const ModelConfig all = import_json(idxs);
  CHECK(std::all_of(all.hybrid.layers.begin(), all.hybrid.layers.end(), [](const LayerMix& x) { return x.attention; }));
  json bad = j;
  bad["layer_types"][0] = "mamba";
  REQUIRE_THROWS_AS(import_json(bad), InputError);
}

TEST_CASE(
    "hybrid: nemotron_h with MoE blocks (Nemotron 3 Nano): squared-ReLU experts, a shared expert, a biased router",
    "[io][hf][hybrid][nemotron_h][nemotron3]") {
  // published-2025.tsv:7: llama-bench's model_n_params of the Nemotron-3-Nano-30B-A3B GGUF.
  json j = fixture_json("nemotron-3-nano-30b-a3b");
  const ModelConfig m = import_json(j);
  const ParamCounts c = count_params(m);
  CHECK(c.total == 31'577'940'288);
  const auto blocks = [&](LayerFfn f, StateMixer s, bool attention) {
    return std::count_if(m.hybrid.layers.begin(), m.hybrid.layers.end(),
                         [&](const LayerMix& x) { return x.ffn == f && x.state == s && x.attention == attention; });
  };
  CHECK(blocks(LayerFfn::moe, StateMixer::none, false) == 23);
  CHECK(blocks(LayerFfn::none, StateMixer::mamba2, false) == 23);
  CHECK(blocks(LayerFfn::none, StateMixer::none, true) == 6);
  // One E block: 128 experts of 2 x 2688 x 1856 (up, down: no gate), a shared expert of
  // 2 x 2688 x 3712, the router 2688 x 128 and its 128-entry correction bias, one norm.
  const std::int64_t e_block = 128LL * 2 * 2688 * 1856 + 2LL * 2688 * 3712 + 2688LL * 128 + 128 + 2688;
  for (std::size_t i = 0; i < c.layer_kinds.size(); ++i) {
    if (!c.layer_kinds[i].moe) continue;
    std::int64_t sum = 0;
    for (const ParamComponent& p : c.layer_kinds[i].parts) sum += p.count;
    CHECK(sum == e_block);
  }
  // Active: 6 of the 128 experts.
  CHECK(c.total - c.active == 23LL * 122 * 2 * 2688 * 1856);
  // KV in the 6 attention blocks (2 x 2 x 128 x 2 B); the Mamba state in float32 as declared.
  CHECK(kv_bytes_per_token(m, 2.0).base() == 6.0 * 2 * 2 * 128 * 2);
  // An MTP module (Nemotron 3 Super, Lightning) is refused, not guessed.
  j["num_nextn_predict_layers"] = 1;
  CHECK_THROWS_WITH(import_json(j), Catch::Contains("MTP"));
}

TEST_CASE("hybrid: lfm2_moe: LFM2's conv and attention layers, two dense MLPs, then MoE blocks with an expert bias",
          "[io][hf][hybrid][lfm2][moe]") {
  // published-2025.tsv:10: the HF API's {"BF16": 8,339,929,856, "F32": 704} for LiquidAI/LFM2-8B-A1B.
  json j = fixture_json("lfm2-8b-a1b");
  const ModelConfig m = import_json(j);
  CHECK(m.family == "lfm2_moe");
  REQUIRE(m.hybrid.layers.size() == 24);
  CHECK(count_layers(m, false, StateMixer::short_conv, LayerFfn::dense) == 2);
  CHECK(count_layers(m, false, StateMixer::short_conv, LayerFfn::moe) == 16);
  CHECK(count_layers(m, true, StateMixer::none, LayerFfn::moe) == 6);
  CHECK(m.d_ff == 7168);  // intermediate_size as written: Lfm2MoeMLP has no 2/3 adjustment
  CHECK(m.head_dim == 64);
  CHECK(m.tied_embeddings);
  const ParamCounts c = count_params(m);
  CHECK(c.total == 8'339'930'560);
  CHECK(c.active == 1'557'740'992);
  // One MoE block: 32 experts of 3 x 2048 x 1792, the router 2048 x 32 and the fp32 expert_bias
  // (32): the 704 F32 elements are 22 MoE layers' biases.
  for (std::size_t i = 0; i < c.layer_kinds.size(); ++i) {
    if (c.layer_kinds[i].mix.ffn != LayerFfn::moe) continue;
    CHECK(part(c, i, "router") == 2048 * 32);
    CHECK(part(c, i, "router_correction_bias") == 32);
  }
  json no_bias = j;
  no_bias["use_expert_bias"] = false;
  CHECK(count_params(import_json(no_bias)).total == c.total - 704);
  // Cache: KV in the 6 attention layers, the conv state in the 18 conv layers.
  CHECK(kv_bytes_per_token(m, 2.0).base() == 6.0 * 2 * 8 * 64 * 2);
  CHECK(state_bytes_per_sequence(m, 2.0).base() == 18.0 * 2048 * 3 * 2);
  // Lfm2MoeConfig's defaults are the 8B-A1B's widths at 32 layers.
  json bare = {{"model_type", "lfm2_moe"}};
  const ModelConfig defaults = import_json(bare);
  CHECK(defaults.n_layers == 32);
  CHECK(defaults.moe.n_experts == 32);
  CHECK(defaults.moe.d_ff_expert == 1792);
  json bad = j;
  bad["num_dense_layers"] = 25;
  REQUIRE_THROWS_WITH(import_json(bad), Catch::Contains("num_dense_layers"));
}

TEST_CASE("hybrid: nemotron-nas: block_configs give each layer its own FFN width, pruned sublayers hold nothing",
          "[io][hf][hybrid][nas][trap]") {
  // published-2025.tsv:14-15: Super 49,867,145,216 (a public log of the bf16 checkpoint), Ultra
  // 253,401,268,224 (a GGUF log's 253.401 B and 249.199 B of repeating layers).
  const ModelConfig super = import_fixture("nemotron-super-49b");
  CHECK(super.family == "nemotron-nas");
  CHECK(super.n_kv_heads == 8);  // 64 heads / n_heads_in_group 8
  CHECK(count_layers(super, true, StateMixer::none, LayerFfn::dense) == 49);
  CHECK(count_layers(super, false, StateMixer::none, LayerFfn::dense) == 31);
  CHECK(count_params(super).total == 49'867'145'216);
  // KV in the 49 attention layers only: 49 x 2 x 8 x 128 x 2 B.
  CHECK(kv_bytes_per_token(super, 2.0).base() == 49.0 * 2 * 8 * 128 * 2);
  // Layer 0: attention + FFN of ffn_mult 2.625: int(2 x 2.625 x 8192 / 3) = 14336; two norms.
  CHECK(super.hybrid.layers[0].d_ff == 14336);
  const ModelConfig ultra = import_fixture("nemotron-ultra-253b");
  const ParamCounts u = count_params(ultra);
  CHECK(u.total == 253'401'268'224);
  CHECK(u.blocks == 249'198'559'232);
  CHECK(count_layers(ultra, false, StateMixer::none, LayerFfn::none) == 81);  // no weights, no norms
  for (const LayerKindParams& k : u.layer_kinds) {
    if (!k.mix.attention && k.mix.ffn == LayerFfn::none) CHECK(k.total == 0);
  }
  // The width rule rounds up to a multiple of 256: ffn_mult 1.0 at d 8192 is int(5461.33) = 5461 -> 5632.
  json j = fixture_json("nemotron-super-49b");
  j["block_configs"][0]["ffn"]["ffn_mult"] = 1.0;
  CHECK(import_json(j).hybrid.layers[0].d_ff == 5632);
  // An FFN of its own width counts 3 d f: one layer from 14336 to 5632 is 3 x 8192 x 8704 fewer.
  CHECK(count_params(super).total - count_params(import_json(j)).total == 3LL * 8192 * (14336 - 5632));
  // Refused, not approximated: a linear replacement, attention of another KV-head count.
  json linear = fixture_json("nemotron-super-49b");
  linear["block_configs"][3]["ffn"]["replace_with_linear"] = true;
  REQUIRE_THROWS_WITH(import_json(linear), Catch::Contains("replace_with_linear"));
  json kv = fixture_json("nemotron-super-49b");
  kv["block_configs"][0]["attention"]["n_heads_in_group"] = 16;
  REQUIRE_THROWS_WITH(import_json(kv), Catch::Contains("n_heads_in_group"));
  json short_list = fixture_json("nemotron-super-49b");
  short_list["block_configs"].erase(79);
  REQUIRE_THROWS_WITH(import_json(short_list), Catch::Contains("block_configs"));
}

TEST_CASE("hybrid: minimax_m1: lightning attention beside softmax GQA every 8th layer, MoE everywhere [MM25]",
          "[io][hf][hybrid][minimax]") {
  // published-2025.tsv:16: 456,089,655,296 for MiniMax-M1-80k.
  json j = fixture_json("minimax-m1-80k");
  const ModelConfig m = import_json(j);
  CHECK(count_layers(m, false, StateMixer::lightning, LayerFfn::moe) == 70);
  CHECK(count_layers(m, true, StateMixer::none, LayerFfn::moe) == 10);
  const ParamCounts c = count_params(m);
  CHECK(c.total == 456'089'655'296);
  // A lightning layer: qkv 6144 x 24576, gate 6144 x 8192, norm 8192, out 8192 x 6144 = 251,666,432.
  for (std::size_t i = 0; i < c.layer_kinds.size(); ++i) {
    if (c.layer_kinds[i].mix.state != StateMixer::lightning) continue;
    CHECK(part(c, i, "qkv_proj") + part(c, i, "output_gate") + part(c, i, "lightning_norm") + part(c, i, "out_proj") ==
          251'666'432);
  }
  // Two of 32 experts, without the embedding and head: the paper's 45.9B activated.
  CHECK(c.active - 2 * 200064LL * 6144 == 45'944'920'064);
  // Cache: KV in the 10 softmax layers (2 x 8 x 128 x 2 B a token), a [64, 128, 128] state in each
  // of the 70 lightning layers (HF MiniMaxCache's linear_cache), whatever the context.
  CHECK(kv_bytes_per_token(m, 2.0).base() == 10.0 * 2 * 8 * 128 * 2);
  CHECK(state_bytes_per_sequence(m, 2.0).base() == 70.0 * 64 * 128 * 128 * 2);
  // transformers' native config spells the layers as layer_types; the count is the same.
  json native = j;
  native["model_type"] = "minimax";
  native.erase("attn_type_list");
  native["layer_types"] = json::array();
  for (int i = 0; i < 80; ++i)
    native["layer_types"].push_back((i + 1) % 8 == 0 ? "full_attention" : "linear_attention");
  CHECK(count_params(import_json(native)).total == c.total);
  json shared = j;
  shared["shared_intermediate_size"] = 1024;
  REQUIRE_THROWS_WITH(import_json(shared), Catch::Contains("shared_intermediate_size"));
  json none = j;
  none.erase("attn_type_list");
  REQUIRE_THROWS_WITH(import_json(none), Catch::Contains("attn_type_list"));
}

TEST_CASE("hybrid: the native nemotron-nas presets are their published configs as the reader reads them",
          "[io][hf][hybrid][nas][presets]") {
  // The presets hold the architecture (one layer string each) instead of the 162-object
  // block_configs, which would cost the parser several times a command's budget at every run.
  const PresetRegistry r({});
  std::istringstream no_stdin;
  for (const char* name : {"nemotron-super-49b", "nemotron-ultra-253b"}) {
    INFO(name);
    const ModelConfig preset = r.load_model(name, no_stdin).config;
    const ModelConfig hf = import_fixture(name);
    CHECK(preset.family == "nemotron-nas");
    CHECK(preset.hybrid.layers == hf.hybrid.layers);
    CHECK(preset.n_kv_heads == hf.n_kv_heads);
    CHECK(count_params(preset).total == count_params(hf).total);
    CHECK(kv_bytes_per_token(preset, 2.0).base() == kv_bytes_per_token(hf, 2.0).base());
  }
}
