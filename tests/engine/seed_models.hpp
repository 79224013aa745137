// The seed documents' models, rebuilt from their dimensions (worked-examples.md §2.1), for the
// engine tests. Each is a ModelConfig literal so engine tests do not depend on preset files.
#pragma once

#include "roofline/model_config.hpp"

#include <cstdint>

namespace roofline::test_models {

/// Llama-3-8B: L=32 d=4096 h=32 h_kv=8 d_h=128 d_ff=14336 SwiGLU, untied, RMSNorm, RoPE.
/// Seed 000 uses V = 128,000; the real (and 003/004) vocabulary is 128,256.
inline ModelConfig llama3_8b(std::int64_t vocab = 128'256) {
  ModelConfig m;
  m.name = "llama3-8b";
  m.family = "llama";
  m.n_layers = 32;
  m.d_model = 4096;
  m.n_heads = 32;
  m.n_kv_heads = 8;
  m.head_dim = 128;
  m.d_ff = 14'336;
  m.vocab_size = vocab;
  m.max_seq_len = 8192;
  m.mlp = MlpKind::gated;
  m.norm = NormKind::rmsnorm;
  m.tied_embeddings = false;
  m.position = PositionKind::rope;
  return m;
}

/// Llama-2-70B: L=80 d=8192 h=64 h_kv=8 (GQA; 64 for the MHA variant) d_h=128 d_ff=28672, V=32000.
inline ModelConfig llama2_70b(std::int64_t kv_heads = 8) {
  ModelConfig m = llama3_8b(32'000);
  m.name = "llama2-70b";
  m.n_layers = 80;
  m.d_model = 8192;
  m.n_heads = 64;
  m.n_kv_heads = kv_heads;
  m.d_ff = 28'672;
  m.max_seq_len = 4096;
  return m;
}

/// Llama-2-7B, seed 002's "7B MHA": L=32 d=4096 h=h_kv=32 d_h=128 d_ff=11008, V=32000.
inline ModelConfig llama2_7b() {
  ModelConfig m = llama3_8b(32'000);
  m.name = "llama2-7b";
  m.n_kv_heads = 32;
  m.d_ff = 11'008;
  m.max_seq_len = 4096;
  return m;
}

/// GPT-3 175B: L=96 d=12288 h=96 d_h=128, plain GELU MLP (m=4), LayerNorm, biases, tied,
/// learned positions n_ctx=2048.
inline ModelConfig gpt3_175b() {
  ModelConfig m;
  m.name = "gpt3-175b";
  m.family = "gpt3";
  m.n_layers = 96;
  m.d_model = 12'288;
  m.n_heads = 96;
  m.n_kv_heads = 96;
  m.head_dim = 128;
  m.d_ff = 49'152;  // 4 d
  m.vocab_size = 50'257;
  m.max_seq_len = 2048;
  m.mlp = MlpKind::plain;
  m.norm = NormKind::layernorm;
  m.qkv_bias = true;
  m.o_bias = true;
  m.mlp_bias = true;
  m.tied_embeddings = true;
  m.position = PositionKind::learned;
  m.learned_positions = 2048;
  return m;
}

/// GPT-3 under the 12d^2 rule of seed 003 §2.1: biases, norms and positions dropped.
inline ModelConfig gpt3_175b_12d2() {
  ModelConfig m = gpt3_175b();
  m.norm = NormKind::nonparametric;
  m.final_norm = false;
  m.qkv_bias = false;
  m.o_bias = false;
  m.mlp_bias = false;
  m.position = PositionKind::none;
  m.learned_positions = 0;
  return m;
}

/// Seed 003's textbook layer: MHA (h d_h = d), 2-matrix FFN with m = 4, nothing else; one layer.
inline ModelConfig textbook(std::int64_t d) {
  ModelConfig m;
  m.name = "textbook";
  m.family = "custom";
  m.n_layers = 1;
  m.d_model = d;
  m.head_dim = 128;
  m.n_heads = d / 128;
  m.n_kv_heads = d / 128;
  m.d_ff = 4 * d;
  m.mlp = MlpKind::plain;
  m.norm = NormKind::nonparametric;
  m.final_norm = false;
  m.position = PositionKind::none;
  return m;
}

inline ModelConfig with_layers(ModelConfig m, std::int64_t layers) {
  m.n_layers = layers;
  return m;
}

}  // namespace roofline::test_models
