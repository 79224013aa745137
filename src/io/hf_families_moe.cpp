// Mixture-of-experts families published in 2024-2026: Granite MoE, OLMoE, Phi-3.5-MoE, ERNIE 4.5
// MoE, Hunyuan-A13B, GLM-4.5, MiniMax-M2 and the DeepSeek-V3 architecture under its own type names (Kimi K2).
// Class defaults, biases and traps per family: tests/fixtures/hf/FAMILY-NOTES-moe.md.
#include "io/hf_family.hpp"
#include "io/text.hpp"

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace roofline::io::hf {

namespace {

using i64 = std::int64_t;
using nlohmann::json;

// GraniteMoe: a Llama-like attention, experts stored fused (input_linear E x 2f x d, output_linear
// E x d x f) with intermediate_size as the expert width, a bias-free router. The embedding,
// residual, attention and logits multipliers scale activations only. GraniteMoeConfig: untied.
void import_granitemoe(const Cfg& c, ModelConfig& m) {
  read_llama_like(c, m, false);
  m.mlp_bias = false;  // ParallelExperts have no bias; the class reads no mlp_bias
  m.moe.n_experts = c.integer("num_local_experts", 8);
  m.moe.top_k = c.integer("num_experts_per_tok", 2);
  m.moe.d_ff_expert = m.d_ff;
}

// GraniteMoeShared: GraniteMoe plus one always-on gated MLP of shared_intermediate_size (0: none).
void import_granitemoeshared(const Cfg& c, ModelConfig& m) {
  import_granitemoe(c, m);
  const i64 shared = c.integer("shared_intermediate_size", 0);
  if (shared > 0) {
    m.moe.n_shared_experts = 1;
    m.moe.d_ff_shared = shared;
  }
}

// OLMoE: q_norm over hidden_size and k_norm over (hidden/heads) x kv_heads, i.e. full width;
// every layer MoE with intermediate_size as the expert width; clip_qkv has no parameters.
void import_olmoe(const Cfg& c, ModelConfig& m) {
  read_llama_like(c, m, false);
  m.qk_norm = QkNorm::full_width;
  m.moe.n_experts = c.integer("num_experts", 64);
  m.moe.top_k = c.integer("num_experts_per_tok", 8);
  m.moe.d_ff_expert = m.d_ff;
}

// Phi-3.5-MoE: LayerNorms with bias, attention_bias on q, k, v and o, lm_head_bias on the untied
// head, a uniform sliding window, Mixtral-style experts (w1, w2, w3) and a bias-free router.
void import_phimoe(const Cfg& c, ModelConfig& m) {
  read_llama_like(c, m, false);
  read_uniform_window(c, m);
  m.norm = NormKind::layernorm;
  m.lm_head_bias = c.boolean("lm_head_bias", false);
  m.moe.n_experts = c.integer("num_local_experts", 16);
  m.moe.top_k = c.integer("num_experts_per_tok", 2);
  m.moe.d_ff_expert = m.d_ff;
}

// ERNIE 4.5 MoE: layer i is MoE when (i+1) % moe_layer_interval == 0 and start <= i <= end;
// that is is_moe_layer() with first_dense_layers = start, provided the MoE run reaches the last
// layer. use_bias puts biases on every linear including lm_head. The shared experts are ONE MLP
// of width moe_intermediate_size x moe_num_shared_experts; moe_statics.e_score_correction_bias
// (1 x E per MoE layer) is a stored parameter.
void import_ernie4_5_moe(const Cfg& c, ModelConfig& m) {
  m.d_model = c.integer("hidden_size", 2560);
  m.n_layers = c.integer("num_hidden_layers", 28);
  m.n_heads = c.integer("num_attention_heads", 20);
  m.n_kv_heads = c.integer("num_key_value_heads", 4);
  m.head_dim = c.integer("head_dim", kDeriveFromHeads);
  m.d_ff = c.integer("intermediate_size", 12288);
  m.vocab_size = c.integer("vocab_size", 103424);
  m.max_seq_len = c.integer("max_position_embeddings", 131072);
  m.tied_embeddings = c.boolean("tie_word_embeddings", true);
  const bool bias = c.boolean("use_bias", false);
  m.qkv_bias = m.o_bias = m.mlp_bias = m.lm_head_bias = bias;
  const i64 experts = c.integer("moe_num_experts", 64);
  if (experts <= 0) return;  // a dense ERNIE 4.5 written as the MoE class
  m.moe.n_experts = experts;
  m.moe.top_k = c.integer("moe_k", 6);
  m.moe.d_ff_expert = c.integer("moe_intermediate_size", 1536);
  const i64 shared = c.integer("moe_num_shared_experts", 2);
  if (shared > 0) {
    m.moe.n_shared_experts = 1;
    m.moe.d_ff_shared = saturating_mul(shared, m.moe.d_ff_expert);
  }
  m.moe.correction_bias = true;
  m.moe.first_dense_layers = c.integer("moe_layer_start_index", 1);
  m.moe.layer_freq = c.integer("moe_layer_interval", 1);
  if (m.moe.layer_freq < 1) c.fail("moe_layer_interval", "must be at least 1");
  const i64 end = c.integer("moe_layer_end_index", -1);
  if (end != -1 && end < m.n_layers - 1) {
    c.unsupported("moe_layer_end_index", "dense layers after the last MoE layer (end " + std::to_string(end) + ")");
  }
}

// GLM-4.5 / 4.5-Air: first_k_dense_replace dense layers, n_shared_experts of moe_intermediate_size,
// a sigmoid router with e_score_correction_bias (a stored buffer), attention_bias on q, k and v
// only (o_proj has none), per-head q/k RMSNorms when use_qk_norm. The checkpoint stores
// num_nextn_predict_layers MTP layers after the last decoder layer, shaped as DeepSeek-V3's
// (own embed_tokens and shared_head.head, enorm/hnorm/shared_head.norm, eh_proj, one MoE layer);
// Glm4MoeForCausalLM does not load them: counted in mtp_excluded, not in the total.
void import_glm4_moe(const Cfg& c, ModelConfig& m) {
  read_llama_like(c, m, false);
  m.qkv_bias = c.boolean("attention_bias", false);
  m.o_bias = false;
  if (c.boolean("use_qk_norm", false)) m.qk_norm = QkNorm::per_head;
  m.moe.n_experts = c.integer("n_routed_experts", 128);
  m.moe.top_k = c.integer("num_experts_per_tok", 8);
  m.moe.d_ff_expert = c.integer("moe_intermediate_size", 1408);
  m.moe.n_shared_experts = c.integer("n_shared_experts", 1);
  m.moe.d_ff_shared = m.moe.d_ff_expert;
  m.moe.first_dense_layers = c.integer("first_k_dense_replace", 1);
  m.moe.correction_bias = true;
  m.mtp_layers = c.integer("num_nextn_predict_layers", 0);
}

// MiniMax-M2: 256 experts (w1, w2, w3) of intermediate_size, a sigmoid router whose
// e_score_correction_bias buffer MiniMaxM2SparseMoeBlock always registers, q/k RMSNorms over the
// whole projection (h x d_h and h_kv x d_h, FlexOlmoAttention; the published config's
// qk_norm_type "per_layer"). MiniMaxM2Config has the M2's values as defaults and no switch for
// either; the remote-code keys use_qk_norm / use_routing_bias are honoured when written false.
// num_mtp_modules / use_mtp describe MTP modules the published checkpoint does not contain:
// nothing is counted or excluded for them (a checkpoint note says so).
void import_minimax_m2(const Cfg& c, ModelConfig& m) {
  m.d_model = c.integer("hidden_size", 3072);
  m.n_layers = c.integer("num_hidden_layers", 62);
  m.n_heads = c.integer("num_attention_heads", 48);
  m.n_kv_heads = c.integer("num_key_value_heads", 8);
  m.head_dim = c.integer("head_dim", 128);
  m.d_ff = c.integer("intermediate_size", 1536);
  m.vocab_size = c.integer("vocab_size", 200064);
  m.max_seq_len = c.integer("max_position_embeddings", 196608);
  m.tied_embeddings = c.boolean("tie_word_embeddings", false);
  m.moe.n_experts = c.integer("num_local_experts", 256);
  m.moe.top_k = c.integer("num_experts_per_tok", 8);
  m.moe.d_ff_expert = m.d_ff;
  m.moe.correction_bias = c.boolean("use_routing_bias", true);
  if (c.integer("shared_intermediate_size", 0) > 0) {
    c.unsupported("shared_intermediate_size", "a MiniMax-M2 shared expert");
  }
  if (c.boolean("use_qk_norm", true)) {
    const std::string type = c.str("qk_norm_type", "per_layer");
    if (type != "per_layer") c.unsupported("qk_norm_type", quote(type) + " (only per_layer)");
    m.qk_norm = QkNorm::full_width;
  }
}

// An integer, or a per-layer list whose entries are all that integer (Hunyuan writes moe_topk,
// num_shared_expert and moe_intermediate_size as lists of num_hidden_layers values). Absent: none.
std::optional<i64> uniform_integer(const Cfg& c, const char* key, i64 n_layers) {
  if (!c.has(key)) return std::nullopt;
  const nlohmann::json& v = c.raw(key);
  if (!v.is_array()) return c.integer(key);
  if (v.empty() || static_cast<i64>(v.size()) != n_layers) {
    c.fail(key, "expected an integer or an array of " + std::to_string(n_layers) + " integers");
  }
  for (const nlohmann::json& e : v) {
    if (!e.is_number_integer() || e != v.front()) {
      c.unsupported(key, "different values per layer " + describe_json(v));
    }
  }
  return v.front().get<i64>();
}

// Hunyuan-A13B (HunYuanMoEV1): every layer has a Llama attention with per-head q/k RMSNorms
// (query_layernorm / key_layernorm over head_dim), one shared MLP and num_experts routed experts,
// all of width intermediate_size, and a bias-free router (gate.wg). Per-layer lists must be uniform;
// a second width (moe_intermediate_size != intermediate_size), several shared experts and
// cross-layer KV sharing (use_cla) are refused rather than guessed.
void import_hunyuan_v1_moe(const Cfg& c, ModelConfig& m) {
  read_llama_like(c, m, false);
  m.mlp_bias = false;
  m.qk_norm = QkNorm::per_head;
  m.moe.n_experts = uniform_integer(c, "num_experts", m.n_layers).value_or(1);
  m.moe.top_k = uniform_integer(c, "moe_topk", m.n_layers).value_or(1);
  m.moe.d_ff_expert = m.d_ff;
  m.moe.n_shared_experts = 1;
  m.moe.d_ff_shared = m.d_ff;
  const std::optional<i64> width = uniform_integer(c, "moe_intermediate_size", m.n_layers);
  if (width && *width != m.d_ff) c.unsupported("moe_intermediate_size", "an expert width other than intermediate_size");
  const std::optional<i64> shared = uniform_integer(c, "num_shared_expert", m.n_layers);
  if (shared && *shared != 1) c.unsupported("num_shared_expert", "other than one shared MLP per layer");
  if (c.boolean("use_cla", false)) c.unsupported("use_cla", "cross-layer attention (K/V shared between layers)");
}

// Kimi K2 ships DeepseekV3ForCausalLM under model_type "kimi_k2": the deepseek_v3 reader applies.
void import_deepseek_v3_alias(const Cfg& c, ModelConfig& m) {
  for (const Family& f : classic_families()) {
    if (std::string_view(f.model_type) == "deepseek_v3") {
      f.import(c, m);
      return;
    }
  }
}

void read_mlp_layer_types(const Cfg& d, ModelConfig& m);

// GLM-4.7-Flash (Glm4MoeLiteConfig): DeepSeek-V3's MLA attention and Glm4Moe's MoE (sigmoid router
// with e_score_correction_bias, one shared expert), so the deepseek_v3 reader over the class's own
// defaults (the GLM-4.7-Flash values). Dense or MoE per layer comes from mlp_layer_types (default
// one dense layer, then MoE); the class does not read first_k_dense_replace. The checkpoint's
// layer 47 is the MTP module the model skips on load (num_nextn_predict_layers).
void import_glm4_moe_lite(const Cfg& c, ModelConfig& m) {
  static const json kDefaults = {{"vocab_size", 154880},
                                 {"hidden_size", 2048},
                                 {"intermediate_size", 10240},
                                 {"moe_intermediate_size", 1536},
                                 {"num_hidden_layers", 47},
                                 {"num_attention_heads", 20},
                                 {"n_shared_experts", 1},
                                 {"n_routed_experts", 64},
                                 {"kv_lora_rank", 512},
                                 {"q_lora_rank", 768},
                                 {"qk_rope_head_dim", 64},
                                 {"v_head_dim", 256},
                                 {"qk_nope_head_dim", 192},
                                 {"num_experts_per_tok", 4},
                                 {"max_position_embeddings", 202752}};
  const Cfg d = c.with_defaults(kDefaults);
  import_deepseek_v3_alias(d, m);
  m.moe.first_dense_layers = 1;
  read_mlp_layer_types(d, m);
}

// GLM's mlp_layer_types: "dense" layers first, then "sparse" ones (first_dense_layers); absent,
// the layout the reader already set stands.
void read_mlp_layer_types(const Cfg& d, ModelConfig& m) {
  if (!d.has("mlp_layer_types")) return;
  const json& types = d.raw("mlp_layer_types");
  if (!types.is_array() || static_cast<i64>(types.size()) != m.n_layers) {
    d.fail("mlp_layer_types", "expected an array of " + std::to_string(m.n_layers) + " strings");
  }
  i64 dense = 0;
  while (dense < m.n_layers && types[static_cast<std::size_t>(dense)] == "dense") ++dense;
  for (std::size_t i = static_cast<std::size_t>(dense); i < types.size(); ++i) {
    if (types[i] != "sparse") {
      d.unsupported("mlp_layer_types", "entry " + std::to_string(i) + " is " + describe_json(types[i]) +
                                           "; only dense layers first, then sparse ones");
    }
  }
  m.moe.first_dense_layers = dense;
}

// Ling / Ring (inclusionAI, remote code; model_type bailing_moe for both generations). Fused
// query_key_value of (h + 2 h_kv) d_h (the count of q, k and v), `dense` output projection;
// use_qkv_bias on the fused projection, use_bias on the output; MLPs never biased. MoE on every
// layer after first_k_dense_replace dense ones: num_experts routed of moe_intermediate_size,
// num_shared_experts of that width, a bias-free router. BailingMoeV2ForCausalLM (Ling 2.0) adds
// per-head q/k RMSNorms (use_qk_norm) and the router's expert_bias
// (moe_router_enable_expert_bias): both must be written, as the published V2 configs do.
void import_bailing_moe(const Cfg& c, ModelConfig& m) {
  read_llama_like(c, m, false);
  m.qkv_bias = c.boolean("use_qkv_bias", false);
  m.o_bias = c.boolean("use_bias", false);
  m.mlp_bias = false;
  m.moe.n_experts = c.integer("num_experts");
  m.moe.top_k = c.integer("num_experts_per_tok");
  m.moe.d_ff_expert = c.integer("moe_intermediate_size");
  m.moe.n_shared_experts = c.integer("num_shared_experts", 0);
  m.moe.d_ff_shared = m.moe.d_ff_expert;
  if (c.has("moe_shared_expert_intermediate_size") &&
      c.integer("moe_shared_expert_intermediate_size") != m.moe.d_ff_expert) {
    c.unsupported("moe_shared_expert_intermediate_size", "a shared-expert width other than moe_intermediate_size");
  }
  m.moe.first_dense_layers = c.integer("first_k_dense_replace", 0);
  bool v2 = false;
  if (c.has("architectures")) {
    const json& a = c.raw("architectures");
    v2 = a.is_array() && !a.empty() && a.front() == "BailingMoeV2ForCausalLM";
  }
  if (v2) {
    if (!c.has("use_qk_norm")) c.fail("use_qk_norm", "missing; a BailingMoeV2 config states it");
    if (!c.has("moe_router_enable_expert_bias")) {
      c.fail("moe_router_enable_expert_bias", "missing; a BailingMoeV2 config states it");
    }
    if (c.boolean("use_qk_norm", false)) m.qk_norm = QkNorm::per_head;
    m.moe.correction_bias = c.boolean("moe_router_enable_expert_bias", false);
  }
  if (c.integer("num_nextn_predict_layers", 0) > 0) {
    c.unsupported("num_nextn_predict_layers", "Ling's MTP layers, whose stored layout no source here gives");
  }
}

// DeepSeek-V3.2 (DeepseekV32ForCausalLM): DeepSeek-V3 with DeepSeek Sparse Attention on every layer,
// a lightning indexer of index_n_heads x index_head_dim whose top index_topk tokens each query's
// MLA attends to. The checkpoint's layer 61 (num_nextn_predict_layers) is the MTP module, with an
// indexer of its own.
void import_deepseek_v32(const Cfg& c, ModelConfig& m) {
  import_deepseek_v3_alias(c, m);
  m.indexer.n_heads = c.integer("index_n_heads");
  m.indexer.head_dim = c.integer("index_head_dim");
  m.indexer.topk = c.integer("index_topk");
  if (c.has("index_topk_freq") || c.has("indexer_types")) {
    c.unsupported(c.has("index_topk_freq") ? "index_topk_freq" : "indexer_types",
                  "layers that reuse another layer's top-k selection (shared indexers)");
  }
}

// GLM-5 and GLM-5.1 (GlmMoeDsaForCausalLM): DeepSeek-V3.2's layout (MLA, sparse attention with a
// lightning indexer on every layer, sigmoid-routed MoE with e_score_correction_bias after
// first_k_dense_replace dense layers) at GLM's widths. The MTP module (num_nextn_predict_layers)
// stores no embedding or head of its own. indexer_types, where written, must be all "full":
// GLM-5.2's "shared" layers reuse another layer's selection, which roofline does not model.
void import_glm_moe_dsa(const Cfg& c, ModelConfig& m) {
  import_deepseek_v3_alias(c, m);
  read_mlp_layer_types(c, m);
  m.mtp_vocab_tables = 0;
  m.indexer.n_heads = c.integer("index_n_heads");
  m.indexer.head_dim = c.integer("index_head_dim");
  m.indexer.topk = c.integer("index_topk");
  if (c.has("index_topk_freq") && c.integer("index_topk_freq") != 1) {
    c.unsupported("index_topk_freq", "layers that reuse another layer's top-k selection (shared indexers)");
  }
  if (!c.has("indexer_types")) return;
  const json& types = c.raw("indexer_types");
  if (!types.is_array() || static_cast<i64>(types.size()) != m.n_layers) {
    c.fail("indexer_types", "expected an array of " + std::to_string(m.n_layers) + " strings");
  }
  for (std::size_t i = 0; i < types.size(); ++i) {
    if (types[i] != "full") {
      c.unsupported("indexer_types", "entry " + std::to_string(i) + " is " + describe_json(types[i]) +
                                         "; only \"full\" indexers (a shared one reuses another layer's top-k)");
    }
  }
}

// LongCat-Flash (LongcatFlashForCausalLM; Meituan's remote code and transformers' longcat_flash):
// num_layers blocks, each two MLA attention sublayers with their dense MLPs (ffn_hidden_size) and
// one shortcut-connected MoE that reads the first sublayer's post-attention norm, as a shared
// expert beside that sublayer's MLP would. So the stack is 2 num_layers sublayers: even ones MLA +
// MoE with the dense MLP as its one shared expert, odd ones MLA + the dense MLP. The router scores
// n_routed_experts + zero_expert_num ("identity": the input, scaled; no weights) and carries an
// e_score_correction_bias of as many; the published average routes about a third of the top-12
// slots to the zero experts (~27B activated: 8 FFN experts a token). The checkpoint's model.mtp.*
// (num_nextn_predict_layers, the remote class's default 1) holds its own embedding, eh_proj, the
// norms and one MLA layer with a dense MLP: counted and excluded. Class defaults: the native class's
// (the published LongCat-Flash-Chat values).
void import_longcat_flash(const Cfg& c, ModelConfig& m) {
  static const json kDefaults = {{"vocab_size", 131072},
                                 {"hidden_size", 6144},
                                 {"num_layers", 28},
                                 {"num_attention_heads", 64},
                                 {"ffn_hidden_size", 12288},
                                 {"q_lora_rank", 1536},
                                 {"kv_lora_rank", 512},
                                 {"qk_nope_head_dim", 128},
                                 {"qk_rope_head_dim", 64},
                                 {"v_head_dim", 128},
                                 {"moe_topk", 12},
                                 {"n_routed_experts", 512},
                                 {"zero_expert_num", 256},
                                 {"expert_ffn_hidden_size", 2048},
                                 {"max_position_embeddings", 131072}};
  const Cfg d = c.with_defaults(kDefaults);
  const i64 blocks = d.integer("num_layers");
  check_layer_count(d, saturating_mul(2, blocks));
  if (d.has("num_hidden_layers") && d.integer("num_hidden_layers") != 2 * blocks) {
    d.fail("num_hidden_layers", "expected 2 x num_layers (" + std::to_string(2 * blocks) + "), two sublayers a block");
  }
  m.d_model = d.integer("hidden_size");
  m.n_layers = 2 * blocks;
  m.n_heads = d.integer("num_attention_heads");
  m.n_kv_heads = m.n_heads;
  m.d_ff = d.integer("ffn_hidden_size");
  m.vocab_size = d.integer("vocab_size");
  m.max_seq_len = d.integer("max_position_embeddings");
  m.tied_embeddings = d.boolean("tie_word_embeddings", false);
  if (d.boolean("attention_bias", false)) d.unsupported("attention_bias", "biases with MLA");
  m.mla.q_lora_rank = d.integer("q_lora_rank");
  m.mla.kv_lora_rank = d.integer("kv_lora_rank");
  m.mla.qk_rope_head_dim = d.integer("qk_rope_head_dim");
  m.mla.qk_nope_head_dim = d.integer("qk_nope_head_dim");
  m.mla.v_head_dim = d.integer("v_head_dim");
  m.head_dim = saturating_add(m.mla.qk_nope_head_dim, m.mla.qk_rope_head_dim);
  m.moe.n_experts = d.integer("n_routed_experts");
  m.moe.top_k = d.integer("moe_topk");
  m.moe.d_ff_expert = d.integer("expert_ffn_hidden_size");
  m.moe.n_shared_experts = 1;  // the first sublayer's dense MLP, beside the MoE on the same input
  m.moe.d_ff_shared = m.d_ff;
  m.moe.correction_bias = true;
  m.moe.router_bias = d.boolean("router_bias", false);
  m.moe.zero_experts = d.integer("zero_expert_num");
  if (m.moe.zero_experts > 0 && d.str("zero_expert_type", "identity") != "identity") {
    d.unsupported("zero_expert_type", "zero-computation experts other than identity");
  }
  // The technical report's ~27B average activated parameters: 8 of the 12 slots reach FFN experts.
  m.moe.zero_share = m.moe.zero_experts > 0 ? 1.0 / 3.0 : 0.0;
  const LayerMix moe{.attention = true, .state = StateMixer::none, .ffn = LayerFfn::moe};
  const LayerMix dense{.attention = true, .state = StateMixer::none, .ffn = LayerFfn::dense};
  m.hybrid.layers.clear();
  for (i64 i = 0; i < m.n_layers; ++i) m.hybrid.layers.push_back(i % 2 == 0 ? moe : dense);
  m.mtp_layers = d.integer("num_nextn_predict_layers", 1);
  m.mtp_vocab_tables = 1;  // model.mtp.embed_tokens; the model's head
  m.mtp_dense = true;
}

constexpr std::array kFamilies = {Family{"granitemoe", import_granitemoe},
                                  Family{"granitemoeshared", import_granitemoeshared},
                                  Family{"olmoe", import_olmoe},
                                  Family{"phimoe", import_phimoe},
                                  Family{"ernie4_5_moe", import_ernie4_5_moe},
                                  Family{"glm4_moe", import_glm4_moe},
                                  Family{"minimax_m2", import_minimax_m2},
                                  Family{"kimi_k2", import_deepseek_v3_alias},
                                  Family{"glm4_moe_lite", import_glm4_moe_lite},
                                  Family{"bailing_moe", import_bailing_moe},
                                  Family{"hunyuan_v1_moe", import_hunyuan_v1_moe},
                                  Family{"deepseek_v32", import_deepseek_v32},
                                  Family{"glm_moe_dsa", import_glm_moe_dsa},
                                  Family{"longcat_flash", import_longcat_flash}};

}  // namespace

std::span<const Family> moe_2026_families() { return kFamilies; }

}  // namespace roofline::io::hf
