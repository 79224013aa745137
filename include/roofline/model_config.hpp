// ModelConfig: the architecture of a decoder-only transformer as real checkpoints build it.
// Every field that changes the arithmetic is here; the engine never guesses a missing one.
#pragma once

#include "roofline/dtype.hpp"
#include "roofline/weight_format.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace roofline {

enum class MlpKind { gated, plain };  // gated: gate+up+down (SwiGLU/GeGLU); plain: up+down
enum class NormKind { rmsnorm, layernorm, layernorm_nobias, nonparametric };
enum class QkNorm { none, per_head, full_width };
enum class PositionKind { rope, learned, alibi, none };

/// Mixture-of-experts layout. n_experts == 0 means a dense model.
struct MoeConfig {
  std::int64_t n_experts = 0;           ///< routed experts per MoE layer
  std::int64_t top_k = 0;               ///< routed experts per token
  std::int64_t d_ff_expert = 0;         ///< intermediate width of one routed expert
  std::int64_t n_shared_experts = 0;    ///< always-on experts (DeepSeek counts them; Qwen has one wide)
  std::int64_t d_ff_shared = 0;         ///< intermediate width of ONE shared expert
  bool shared_expert_gate = false;      ///< Qwen2-MoE: sigmoid gate d -> 1 on the shared expert
  std::int64_t first_dense_layers = 0;  ///< DeepSeek first_k_dense_replace: layers [0,k) are dense
  std::int64_t layer_freq = 1;          ///< MoE on layers where (i+1) % freq == 0 (after the dense ones)
  bool router_bias = false;             ///< router linear has a bias
  bool correction_bias = false;         ///< DeepSeek-V3 e_score_correction_bias: n_experts per MoE layer
  /// Zero-computation experts (LongCat-Flash's identity experts): the router scores n_experts +
  /// zero_experts; a token's top-k slots that pick one add its input scaled, no weights, no FLOPs.
  std::int64_t zero_experts = 0;
  /// The expected share of the top-k slots that pick a zero-computation expert (0 <= s < 1; the
  /// model's published average, --zero-expert-share).
  double zero_share = 0.0;
  /// Gemma 4's router: a gain of d on its weightless input norm and a scale per expert (d + E).
  bool router_scales = false;
  /// Norms of width d an MoE layer carries beside the layer's own (Gemma 4: 3, the expert branch's
  /// pre and post norms and the dense branch's post norm).
  std::int64_t extra_norms = 0;
  [[nodiscard]] bool enabled() const { return n_experts > 0; }
  /// Router outputs: the routed experts and the zero-computation ones.
  [[nodiscard]] std::int64_t router_outputs() const { return n_experts + zero_experts; }
  /// k_e, the expected routed FFN experts a token reaches: k (1 - s)  [LC25 §2.1]
  [[nodiscard]] double ffn_experts_per_token() const { return static_cast<double>(top_k) * (1.0 - zero_share); }
};

/// Multi-head latent attention (DeepSeek-V2/V3). kv_lora_rank == 0 means standard attention.
struct MlaConfig {
  std::int64_t q_lora_rank = 0;  ///< 0: plain q_proj d -> h*(nope+rope)
  std::int64_t kv_lora_rank = 0;
  std::int64_t qk_rope_head_dim = 0;
  std::int64_t qk_nope_head_dim = 0;
  std::int64_t v_head_dim = 0;
  [[nodiscard]] bool enabled() const { return kv_lora_rank > 0; }
};

/// DeepSeek Sparse Attention (DSA, DeepSeek-V3.2): a lightning indexer scores every cached token
/// of a layer, I_ts = sum_j w_tj ReLU(q_tj . k_s), and the layer's attention reads only the top k.
/// Its keys k_s (d_I wide, one per token) are a second per-token cache. topk == 0: dense attention.
struct SparseIndexerConfig {
  std::int64_t n_heads = 0;   ///< H_I, index heads (index_n_heads)
  std::int64_t head_dim = 0;  ///< d_I (index_head_dim)
  std::int64_t topk = 0;      ///< k, tokens each query attends to (index_topk)
  [[nodiscard]] bool enabled() const { return topk > 0; }
};

/// Block-scaled storage of the routed experts' weight matrices in a published checkpoint whose
/// other tensors are stored at `other_bits` (OCP Microscaling, MX: gpt-oss ships its experts in
/// MXFP4, 4-bit E2M1 values with one 8-bit E8M0 scale per block of 32 along the input dimension,
/// everything else in bf16). value_bits == 0: the checkpoint stores every tensor alike.
struct ExpertStorage {
  std::int64_t value_bits = 0;   ///< bits per stored expert weight (MXFP4: 4)
  std::int64_t scale_bits = 0;   ///< bits of the scale shared by one block (E8M0: 8)
  std::int64_t block = 0;        ///< weights per scale, along the input dimension (MX: 32)
  std::int64_t other_bits = 16;  ///< every other tensor (bf16)
  [[nodiscard]] bool enabled() const { return value_bits > 0; }
};
/// Gemma 4's full-attention layers: their own head width and KV heads, and with attention_k_eq_v
/// no v_proj (the values are k_proj's output under a weightless norm, cached as their own V).
struct GlobalAttentionShape {
  std::int64_t head_dim = 0;    ///< global_head_dim; 0: the model's head_dim
  std::int64_t n_kv_heads = 0;  ///< num_global_key_value_heads; 0: the model's n_kv_heads
  bool k_eq_v = false;          ///< attention_k_eq_v: V = K's projection, no v_proj
  [[nodiscard]] bool enabled() const { return head_dim > 0 || n_kv_heads > 0 || k_eq_v; }
  bool operator==(const GlobalAttentionShape&) const = default;
};

/// ---- Vision tower and projector of a multimodal wrapper (counted by count_vision, vision.cpp) ----
/// The tower's architecture, from the wrapper's vision_config; `none` for a text-only model.
enum class VisionTower { none, clip, siglip, pixtral, qwen2_vl, qwen2_5_vl, mllama, llama4, qwen3_vl, moonvit, gemma4 };
/// What maps the tower's output into the text model's width.
enum class VisionProjector {
  none,      ///< Qwen2-VL / Qwen2.5-VL: the merger is part of the tower (visual.merger)
  llava,     ///< linear_1 (F d_v -> out) GELU linear_2 (out -> out), biases by multimodal_projector_bias
  mistral3,  ///< RMSNorm(d_v) + patch merger (merge^2 d_v -> d_v) + the LLaVA MLP
  gemma3,    ///< mm_soft_emb_norm (RMSNorm d_v) + mm_input_projection_weight (d_v x out)
  mllama,    ///< one linear vision_output_dim -> out with bias
  llama4,    ///< one linear vision_output_dim -> out without bias
  kimi,      ///< Kimi K2.5's PatchMergerMLP: LayerNorm d_v, m^2 d_v -> m^2 d_v, GELU, -> out, biases
  gemma4     ///< Gemma 4 embed_vision: a weightless RMSNorm + embedding_projection d_v x out, no bias
};
struct VisionConfig {
  VisionTower tower = VisionTower::none;
  VisionProjector projector = VisionProjector::none;
  /// A vision tower roofline does not count: its model_type, named in the output ("" otherwise).
  std::string uncounted;
  std::int64_t n_layers = 0;             ///< encoder layers (mllama: the local ones)
  std::int64_t d = 0;                    ///< hidden width d_v
  std::int64_t d_ff = 0;                 ///< MLP width (Qwen2-VL: d_v x mlp_ratio)
  std::int64_t patch = 0;                ///< patch edge, pixels
  std::int64_t image_size = 0;           ///< image (tile) edge, pixels; sizes the learned position tables
  std::int64_t channels = 3;             ///< input channels
  std::int64_t temporal_patch = 1;       ///< Qwen2-VL Conv3d depth (temporal_patch_size)
  std::int64_t merge = 1;                ///< spatial merge: merge^2 patches -> 1 (Qwen merger, Pixtral merger)
  std::int64_t global_layers = 0;        ///< mllama: gated global encoder layers
  std::int64_t max_tiles = 0;            ///< mllama: tiles per image
  std::int64_t aspect_ratios = 0;        ///< mllama: rows of the tile embeddings (max_aspect_ratio_id + 1)
  std::int64_t adapter_in = 0;           ///< llama4 projector_input_dim (vision adapter fc1 output)
  std::int64_t adapter_out = 0;          ///< llama4 projector_output_dim (vision adapter fc2)
  std::int64_t output_dim = 0;           ///< mllama / llama4 vision_output_dim: the projector's input
  std::int64_t feature_layers = 1;       ///< LLaVA / Mistral3: layers concatenated into the projector
  std::int64_t out_dim = 0;              ///< projector (Qwen: merger) output width
  std::int64_t position_embeddings = 0;  ///< Qwen3-VL / Qwen3.5: rows of the learned position table
  std::int64_t deepstack_mergers = 0;    ///< Qwen3-VL: mergers of intermediate blocks (deepstack_visual_indexes)
  std::int64_t heads = 0;                ///< Gemma 4: attention heads (q/k/v/o are d_v x heads head_dim)
  std::int64_t head_dim = 0;             ///< Gemma 4: head width, and of its q and k norms
  bool standardize = false;              ///< Gemma 4: std_bias and std_scale buffers of d_v each
  bool projector_bias = true;            ///< LLaVA / Mistral3 multimodal_projector_bias
  [[nodiscard]] bool counted() const { return tower != VisionTower::none; }
};
/// ---- end of the vision block ----
// ---- Hybrid and state-space layers (issue 10) -------------------------------------------------
/// The recurrent mixer of a layer, beside or instead of attention.
/// lightning: MiniMax's lightning attention (linear attention with a per-head decay), h heads of d_h.
enum class StateMixer { none, mamba1, mamba2, gated_deltanet, short_conv, lightning };
/// The feed-forward sublayer of a hybrid layer: dense MLP, MoE block, or none (Mamba, Nemotron-H).
enum class LayerFfn { dense, moe, none };

/// What one layer of a hybrid model holds. Falcon-H1 has attention and Mamba-2 side by side.
struct LayerMix {
  bool attention = true;
  StateMixer state = StateMixer::none;
  LayerFfn ffn = LayerFfn::dense;
  /// A dense FFN's own intermediate width (NAS block_configs: each layer its ffn_mult); 0: the
  /// model's d_ff. Layers of different widths are different kinds.
  std::int64_t d_ff = 0;
  bool operator==(const LayerMix&) const = default;
  /// The dense FFN width of this layer given the model's d_ff.
  [[nodiscard]] std::int64_t ffn_width(std::int64_t model_d_ff) const { return d_ff > 0 ? d_ff : model_d_ff; }
};

/// Mamba-1 (Gu & Dao 2023) and Mamba-2 (Dao & Gu 2024) mixer widths.
struct SsmConfig {
  std::int64_t d_inner = 0;   ///< d_i: expand x d, or Mamba-2's n_heads x head_dim
  std::int64_t d_state = 0;   ///< N
  std::int64_t d_conv = 0;    ///< k_conv, the causal conv kernel
  std::int64_t n_groups = 1;  ///< g: Mamba-2's B/C groups
  std::int64_t n_heads = 0;   ///< H: Mamba-2 heads (one dt, A, D each)
  std::int64_t head_dim = 0;  ///< P = d_i / H
  std::int64_t dt_rank = 0;   ///< R: Mamba-1's dt low rank
  std::int64_t chunk = 0;     ///< Mamba-2 SSD chunk length (no parameters)
  bool conv_bias = true;      ///< bias on conv1d
  bool proj_bias = false;     ///< biases on in_proj and out_proj
  /// Falcon-H1: out_proj's bias has its own key (projectors_bias); unset: proj_bias.
  std::optional<bool> out_proj_bias;
  bool gated_norm = true;  ///< Mamba-2's gated RMSNorm over d_i before out_proj
  bool dt_norms = false;   ///< Jamba: RMSNorms on dt (R), B and C (N each)
};

/// Gated DeltaNet (Yang et al. 2024) as Qwen3-Next builds it.
struct DeltaNetConfig {
  std::int64_t n_key_heads = 0;     ///< h_k
  std::int64_t n_value_heads = 0;   ///< h_v
  std::int64_t key_head_dim = 0;    ///< d_k
  std::int64_t value_head_dim = 0;  ///< d_v
  std::int64_t conv_kernel = 0;     ///< k_conv
};

/// LFM2's gated short convolution (Lfm2ShortConv): in_proj d -> [B; C; x] 3d, a depthwise causal
/// conv of kernel L over B x, C times its output, out_proj d -> d.
struct ShortConvConfig {
  std::int64_t l_cache = 0;  ///< L: the conv kernel, and the tokens its cache holds
  bool bias = false;         ///< biases on in_proj, conv and out_proj (conv_bias)
};

struct HybridConfig {
  std::vector<LayerMix> layers;  ///< one per layer; empty: every layer is attention + FFN
  SsmConfig ssm;
  DeltaNetConfig deltanet;
  ShortConvConfig conv;
  bool attn_output_gate = false;  ///< Qwen3-Next: q_proj also emits a sigmoid gate of h d_h
  /// The recurrent (SSM / delta) state's dtype when the config declares one (Nemotron-H's
  /// mamba_ssm_cache_dtype); unset: the KV dtype. The conv state stays in the KV dtype.
  std::optional<DType> state_dtype;
  [[nodiscard]] bool enabled() const { return !layers.empty(); }
};
// ---- end hybrid --------------------------------------------------------------------------------

/// One decoder-only model. Counts are integers; widths are in elements.
struct ModelConfig {
  std::string name;    ///< preset name or file it came from
  std::string family;  ///< HF model_type or "custom"

  std::int64_t n_layers = 0;     ///< L
  std::int64_t d_model = 0;      ///< d
  std::int64_t n_heads = 0;      ///< h, query heads
  std::int64_t n_kv_heads = 0;   ///< h_kv; = h for MHA, 1 for MQA
  std::int64_t head_dim = 0;     ///< d_h, independent of d/h
  std::int64_t d_ff = 0;         ///< FFN intermediate width of dense layers
  std::int64_t vocab_size = 0;   ///< V as stored (padded) in the checkpoint
  std::int64_t max_seq_len = 0;  ///< context the model was trained for (0: unknown)

  MlpKind mlp = MlpKind::gated;
  NormKind norm = NormKind::rmsnorm;
  std::int64_t norms_per_layer = 2;  ///< 1 parallel blocks, 2 pre-norm, 4 Gemma-2/3 sandwich
  bool final_norm = true;
  bool embedding_norm = false;  ///< BLOOM word_embeddings_layernorm after the embedding
  QkNorm qk_norm = QkNorm::none;
  /// q/k norms carry a gain and no bias whatever `norm` is (StableLM 2: LayerNorm(bias=False) per
  /// head under LayerNorms with bias). Issue 10, dense families.
  bool qk_norm_gain_only = false;

  bool qkv_bias = false;      ///< biases on q, k, v projections
  bool o_bias = false;        ///< bias on the attention output projection
  bool mlp_bias = false;      ///< biases on the MLP linears
  bool lm_head_bias = false;  ///< bias on the untied output head
  bool tied_embeddings = false;
  bool parallel_block = false;  ///< attention and MLP read the same input (GPT-J, NeoX, Falcon)

  PositionKind position = PositionKind::rope;
  std::int64_t learned_positions = 0;  ///< rows of the learned position table (OPT: n_ctx + 2)

  /// Embedding projection (OPT-350m: word_embed_proj_dim != hidden): project_in/out, no bias.
  std::int64_t embed_proj_dim = 0;

  std::int64_t sliding_window = 0;  ///< tokens; 0: every layer attends globally
  /// With a window: layer i is global when global_every > 0 and (i+1) % global_every == 0.
  /// 0 means every layer slides (Mistral 7B v0.1); 2 alternates (Gemma 2); 6 is Gemma 3's 5:1.
  std::int64_t global_every = 0;

  /// Gemma 4: the global (full-attention) layers' own attention shape; zeros: the model's.
  GlobalAttentionShape global_attention;
  /// Gemma 4 layer_scalar: one stored scalar per decoder layer that multiplies its output.
  bool layer_scalar = false;

  MoeConfig moe;
  MlaConfig mla;
  SparseIndexerConfig indexer;  ///< DSA on every attention layer (issue 22)

  /// Multi-token-prediction layers stored in the checkpoint but not part of the model (DeepSeek-V3).
  std::int64_t mtp_layers = 0;
  /// Vocabulary tables (embedding, head) each MTP module stores: 2 (DeepSeek-V3, GLM-4.7-Flash),
  /// 1 (LongCat-Flash: its own embedding, the model's head), 0 (GLM-5, Qwen3-Next: the model's).
  std::int64_t mtp_vocab_tables = 2;
  /// The MTP layer's FFN is a dense MLP of d_ff in a MoE model (LongCat-Flash); false: MoE as the model's.
  bool mtp_dense = false;

  // gpt-oss (issue 10): attention sinks and the published checkpoint's MXFP4 experts.
  bool attention_sinks = false;  ///< one learned sink logit per query head per layer
  ExpertStorage expert_storage;  ///< how the published checkpoint stores the routed experts
  /// The format each weight class of the published checkpoint is stored in (its config's
  /// quantization_config, a preset's record); unset: the checkpoint's float type for every class.
  /// What memory, decode, prefill, serve and plan size by default (issue 23).
  std::optional<WeightLayout> published_weights;
  /// Multimodal wrappers: the vision tower and projector, stored beside the text model (none: text only).
  VisionConfig vision;
  /// mllama: decoder layers that cross-attend to the image, besides the n_layers self-attention
  /// layers: q/k/v/o, per-head q/k norms, two scalar gates, the dense MLP and two norms. Their keys
  /// and values come from the image, so they add nothing to the per-token KV cache.
  std::int64_t cross_attention_layers = 0;
  /// mllama: rows the input table holds beyond vocab_size (8 image/special tokens; the head has V).
  std::int64_t extra_embedding_rows = 0;
  HybridConfig hybrid;  ///< per-layer mixers of hybrid and state-space models (issue 10)

  [[nodiscard]] bool is_moe_layer(std::int64_t i) const {
    if (hybrid.enabled()) return hybrid.layers[static_cast<std::size_t>(i)].ffn == LayerFfn::moe;
    if (!moe.enabled() || i < moe.first_dense_layers) return false;
    return moe.layer_freq <= 1 || (i + 1) % moe.layer_freq == 0;
  }
  [[nodiscard]] bool is_attention_layer(std::int64_t i) const {
    return !hybrid.enabled() || hybrid.layers[static_cast<std::size_t>(i)].attention;
  }
  /// Layers with attention (and a KV cache): L, or a hybrid's attention layers.
  [[nodiscard]] std::int64_t attention_layers() const {
    if (!hybrid.enabled()) return n_layers;
    return static_cast<std::int64_t>(
        std::count_if(hybrid.layers.begin(), hybrid.layers.end(), [](const LayerMix& x) { return x.attention; }));
  }
  [[nodiscard]] bool is_sliding_layer(std::int64_t i) const {
    if (sliding_window <= 0) return false;
    return global_every <= 0 || (i + 1) % global_every != 0;
  }
};

/// An attention layer's head shape: d_h and h_kv.
struct HeadShape {
  std::int64_t head_dim = 0;
  std::int64_t kv_heads = 0;
};

/// The head shape of the model's sliding (and, without global_attention, every) attention layer.
inline HeadShape model_head_shape(const ModelConfig& m) { return {.head_dim = m.head_dim, .kv_heads = m.n_kv_heads}; }

/// The head shape of a global attention layer: Gemma 4's own (global_attention), else the model's.
inline HeadShape global_head_shape(const ModelConfig& m) {
  const GlobalAttentionShape& g = m.global_attention;
  return {.head_dim = g.head_dim > 0 ? g.head_dim : m.head_dim,
          .kv_heads = g.n_kv_heads > 0 ? g.n_kv_heads : m.n_kv_heads};
}

/// Layers by attention span: L_g global layers attend to the whole context, L_s sliding layers
/// to their last W tokens. A property of the model, so sweeps compute it once (or not at all:
/// `layer_windows` is O(1)).
struct LayerWindows {
  std::int64_t global_layers = 0;   ///< L_g
  std::int64_t sliding_layers = 0;  ///< L_s
  std::int64_t window = 0;          ///< W, tokens; 0 when the model has no window
};

/// L_g = floor(L / g) with g = global_every (0: L_g = 0), L_s = L - L_g; without a window every
/// attention layer is global (a hybrid's state layers hold no KV). The closed form of counting is_sliding_layer(i) over
/// i < L  [S000-eq1.1]
inline LayerWindows layer_windows(const ModelConfig& m) {
  if (m.sliding_window <= 0) return {.global_layers = m.attention_layers(), .sliding_layers = 0, .window = 0};
  const std::int64_t global = m.global_every > 0 ? m.n_layers / m.global_every : 0;
  return {.global_layers = global, .sliding_layers = m.n_layers - global, .window = m.sliding_window};
}

/// Keys attended over all layers at context T: sum_l min(T, W_l) = L_g T + L_s min(T, W)
/// [S000-eq1.1]
constexpr double attended_keys(const LayerWindows& lw, double context) {
  const double sliding = lw.sliding_layers > 0 ? std::min(context, static_cast<double>(lw.window)) : 0.0;
  return static_cast<double>(lw.global_layers) * context + static_cast<double>(lw.sliding_layers) * sliding;
}

/// Marks n_kv_heads or head_dim as not given, for apply_head_defaults() to derive.
inline constexpr std::int64_t kDeriveFromHeads = -1;

/// The head defaults every input format shares, for fields still kDeriveFromHeads:
/// n_kv_heads = n_heads (multi-head attention) and head_dim = d_model / n_heads (0 without heads,
/// which validate() reports).
inline void apply_head_defaults(ModelConfig& m) {
  if (m.n_kv_heads == kDeriveFromHeads) m.n_kv_heads = m.n_heads;
  if (m.head_dim == kDeriveFromHeads) m.head_dim = m.n_heads > 0 ? m.d_model / m.n_heads : 0;
}

/// Returns every problem with a config (empty when valid), one message per field.
std::vector<std::string> validate(const ModelConfig& m);

}  // namespace roofline
