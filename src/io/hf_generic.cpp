// The generic decoder reading (issue 22): an unknown model_type whose config uses only the keys
// every decoder config shares is read as the Llama layout those keys describe, and labelled as a
// reading, not a family's exact count. Any other key refuses it, named.
#include "io/hf_family.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <string_view>

namespace roofline::io::hf {
namespace {

// Keys that change no parameter, cache or FLOP count: identity, token ids, numerics of norms and
// rotary embeddings, dropout and routing-loss settings, the runtime's flags.
constexpr std::array<std::string_view, 31> kNoArithmetic = {"architectures",
                                                            "model_type",
                                                            "torch_dtype",
                                                            "dtype",
                                                            "transformers_version",
                                                            "_name_or_path",
                                                            "auto_map",
                                                            "bos_token_id",
                                                            "eos_token_id",
                                                            "pad_token_id",
                                                            "rms_norm_eps",
                                                            "layer_norm_eps",
                                                            "initializer_range",
                                                            "rope_theta",
                                                            "rope_scaling",
                                                            "rope_parameters",
                                                            "partial_rotary_factor",
                                                            "use_cache",
                                                            "attention_dropout",
                                                            "hidden_dropout",
                                                            "pretraining_tp",
                                                            "tokenizer_class",
                                                            "output_router_logits",
                                                            "router_aux_loss_coef",
                                                            "router_jitter_noise",
                                                            "norm_topk_prob",
                                                            "return_dict",
                                                            "output_attentions",
                                                            "output_hidden_states",
                                                            "is_decoder",
                                                            "quantization_config"};

// The activations of a gated (GLU) MLP in the decoder configs of 2024-26.
constexpr std::array<std::string_view, 5> kGatedActs = {"silu", "swish", "gelu", "gelu_pytorch_tanh", "gelu_new"};

}  // namespace

bool generic_ignorable(std::string_view key) {
  return std::find(kNoArithmetic.begin(), kNoArithmetic.end(), key) != kNoArithmetic.end();
}

// The Llama layout the standard keys describe: RMSNorm, a gated MLP, RoPE, two norms per layer,
// biases only where attention_bias / mlp_bias say; an untied head unless tie_word_embeddings;
// a window from sliding_window (every layer, or the layer_types pattern); MoE from
// num_local_experts / num_experts, num_experts_per_tok, moe_intermediate_size (default
// intermediate_size), n_shared_experts of that width and first_k_dense_replace dense layers.
void import_generic(const Cfg& c, ModelConfig& m) {
  read_llama_like(c, m, false);
  if (c.has("hidden_act")) {
    const std::string act = c.str("hidden_act");
    if (std::find(kGatedActs.begin(), kGatedActs.end(), act) == kGatedActs.end()) {
      c.unsupported("hidden_act", "\"" + act + "\" is not an activation the generic reading takes for a gated MLP");
    }
  }
  const bool windowed = c.boolean("use_sliding_window", c.has("sliding_window"));
  m.sliding_window = windowed ? c.integer("sliding_window", 0) : 0;
  m.global_every = 0;
  read_layer_types(c, m);
  const std::int64_t experts = c.integer_any({"num_local_experts", "num_experts", "n_routed_experts"}, 0);
  if (experts > 0) {
    m.moe.n_experts = experts;
    m.moe.top_k = c.integer("num_experts_per_tok");
    m.moe.d_ff_expert = c.integer("moe_intermediate_size", m.d_ff);
    m.moe.n_shared_experts = c.integer("n_shared_experts", 0);
    m.moe.d_ff_shared = m.moe.d_ff_expert;
    m.moe.first_dense_layers = c.integer("first_k_dense_replace", 0);
  }
}

}  // namespace roofline::io::hf
