// Vision towers and projectors of multimodal wrappers, counted per tensor as the reference
// implementation (Hugging Face transformers, models/<family>/modeling_<family>.py) builds them.
// docs/formulas.md "Vision towers"; citation key HFT (the modeling file of each family).
#include "roofline/checked.hpp"
#include "roofline/params.hpp"

#include <string>

namespace roofline {
namespace {

using i64 = std::int64_t;

// Patches per image (tile): (image / patch)^2.
i64 patches(const VisionConfig& v) {
  const i64 side = v.image_size / v.patch;
  return checked_mul(side, side);
}

// q, k, v, o of width d with biases (CLIP, SigLIP, Llama 4): 4(d^2 + d)  [HFT clip, siglip, llama4]
i64 attention_with_bias(i64 d) { return checked_mul(4, checked_add(checked_mul(d, d), d)); }

// fc1 (d -> f) and fc2 (f -> d) with biases: 2 d f + f + d  [HFT clip, siglip]
i64 plain_mlp_with_bias(i64 d, i64 f) { return checked_add(checked_mul(2, d, f), checked_add(f, d)); }

// One pre-norm ViT layer, LayerNorms with bias and biased attention/MLP (CLIP, SigLIP, Llama 4):
// 4(d^2 + d) + 2 d f + f + d + 4 d  [HFT clip]
i64 vit_layer(i64 d, i64 f) {
  return checked_add(checked_add(attention_with_bias(d), plain_mlp_with_bias(d, f)), checked_mul(4, d));
}

// CLIPVisionTransformer: patch conv without bias c p^2 d, class embedding d, (n + 1) d positions,
// pre and post LayerNorm 4 d, L ViT layers  [HFT clip]
i64 clip_tower(const VisionConfig& v) {
  i64 p = checked_mul(v.channels, checked_mul(v.patch, v.patch), v.d);
  p = checked_add(p, v.d);
  p = checked_add(p, checked_mul(checked_add(patches(v), 1), v.d));
  p = checked_add(p, checked_mul(4, v.d));
  return checked_add(p, checked_mul(v.n_layers, vit_layer(v.d, v.d_ff)));
}

// SiglipVisionTransformer without its head: patch conv with bias c p^2 d + d, n d positions,
// L ViT layers, post LayerNorm 2 d  [HFT siglip]
i64 siglip_tower(const VisionConfig& v) {
  i64 p = checked_add(checked_mul(v.channels, checked_mul(v.patch, v.patch), v.d), v.d);
  p = checked_add(p, checked_mul(patches(v), v.d));
  p = checked_add(p, checked_mul(v.n_layers, vit_layer(v.d, v.d_ff)));
  return checked_add(p, checked_mul(2, v.d));
}

// PixtralVisionModel: patch conv without bias c p^2 d, ln_pre RMSNorm d, L layers of q/k/v/o
// without bias 4 d^2, gated MLP 3 d f, two RMSNorms 2 d  [HFT pixtral]
i64 pixtral_tower(const VisionConfig& v) {
  i64 p = checked_add(checked_mul(v.channels, checked_mul(v.patch, v.patch), v.d), v.d);
  const i64 layer =
      checked_add(checked_add(checked_mul(4, v.d, v.d), checked_mul(3, v.d, v.d_ff)), checked_mul(2, v.d));
  return checked_add(p, checked_mul(v.n_layers, layer));
}

// Qwen2-VL / Qwen2.5-VL merger: norm of d, then an MLP m^2 d -> m^2 d -> out with biases  [HFT qwen2_vl]
i64 qwen_merger(const VisionConfig& v, i64 norm) {
  const i64 wide = checked_mul(v.d, checked_mul(v.merge, v.merge));
  i64 p = checked_add(norm, checked_add(checked_mul(wide, wide), wide));
  return checked_add(p, checked_add(checked_mul(wide, v.out_dim), v.out_dim));
}

// Conv3d patch embedding without bias: c t p^2 d  [HFT qwen2_vl]
i64 qwen_patch_embed(const VisionConfig& v) {
  return checked_mul(checked_mul(v.channels, v.temporal_patch), checked_mul(v.patch, v.patch), v.d);
}

// Qwen2-VL blocks: two LayerNorms 4 d, fused qkv 3 d^2 + 3 d and proj d^2 + d with biases, plain
// MLP 2 d f + f + d; the merger's ln_q is a LayerNorm (2 d)  [HFT qwen2_vl]
i64 qwen2_vl_tower(const VisionConfig& v) {
  const i64 d = v.d;
  const i64 layer = checked_add(checked_add(checked_mul(4, d), attention_with_bias(d)), plain_mlp_with_bias(d, v.d_ff));
  const i64 blocks = checked_mul(v.n_layers, layer);
  return checked_add(checked_add(qwen_patch_embed(v), blocks), qwen_merger(v, checked_mul(2, d)));
}

// Qwen3-VL blocks as Qwen2-VL's (LayerNorms with bias, qkv and proj with biases, a plain MLP of
// d_ff), plus the patch conv's bias d and a learned position table n_pos d; the merger as Qwen2-VL's
// (a LayerNorm of d before the merge); each of the D deepstack mergers the same MLP with its
// LayerNorm after the merge (2 m^2 d). Qwen3.5's tower is this one with D = 0  [HFT qwen3_vl]
i64 qwen3_vl_tower(const VisionConfig& v) {
  const i64 extra = checked_add(v.d, checked_mul(v.position_embeddings, v.d));
  const i64 post_shuffle_norm = checked_mul(2, v.d, checked_mul(v.merge, v.merge));
  const i64 deepstack = checked_mul(v.deepstack_mergers, qwen_merger(v, post_shuffle_norm));
  return checked_add(checked_add(qwen2_vl_tower(v), extra), deepstack);
}

// MoonViT (Kimi K2.5's MoonViT-3D): patch conv with bias c p^2 d + d, a learned 2-D position table
// n_pos d (init_pos_emb_height x width rows; the temporal one is a fixed buffer), blocks as
// Qwen2-VL's (two LayerNorms, biased qkv and output, a plain GELU MLP), a final LayerNorm 2 d; the
// 2 x 2 merge and the temporal pooling hold nothing  [MS26]
i64 moonvit_tower(const VisionConfig& v) {
  const i64 d = v.d;
  i64 p = checked_add(checked_mul(v.channels, checked_mul(v.patch, v.patch), d), d);
  p = checked_add(p, checked_mul(v.position_embeddings, d));
  const i64 layer = checked_add(checked_add(checked_mul(4, d), attention_with_bias(d)), plain_mlp_with_bias(d, v.d_ff));
  return checked_add(checked_add(p, checked_mul(v.n_layers, layer)), checked_mul(2, d));
}

// Qwen2.5-VL blocks: two RMSNorms 2 d, qkv and proj with biases 4 d^2 + 4 d, gated MLP with
// biases 3 d f + 2 f + d; the merger's ln_q is an RMSNorm (d)  [HFT qwen2_5_vl]
i64 qwen2_5_vl_tower(const VisionConfig& v) {
  const i64 d = v.d;
  const i64 f = v.d_ff;
  const i64 mlp = checked_add(checked_mul(3, d, f), checked_add(checked_mul(2, f), d));
  const i64 layer = checked_add(checked_add(checked_mul(2, d), attention_with_bias(d)), mlp);
  const i64 blocks = checked_mul(v.n_layers, layer);
  return checked_add(checked_add(qwen_patch_embed(v), blocks), qwen_merger(v, d));
}

// MllamaVisionModel: patch conv without bias, class embedding d, gated position embedding
// 1 + (n+1) d + R T (n+1) d, gated pre/post tile embeddings 2 (R T d + 1), pre/post LayerNorms 4 d,
// L local layers (q/k/v/o without bias 4 d^2, fc1/fc2 with bias, 2 LayerNorms) and G global
// layers with two more scalar gates each  [HFT mllama]
i64 mllama_tower(const VisionConfig& v) {
  const i64 d = v.d;
  const i64 positions = checked_add(patches(v), 1);
  i64 p = checked_add(checked_mul(v.channels, checked_mul(v.patch, v.patch), d), d);
  const i64 tiles = checked_mul(v.aspect_ratios, v.max_tiles);
  p = checked_add(p, checked_add(1, checked_mul(positions, d)));
  p = checked_add(p, checked_mul(tiles, positions, d));
  p = checked_add(p, checked_mul(2, checked_add(checked_mul(tiles, d), 1)));
  p = checked_add(p, checked_mul(4, d));
  const i64 layer = checked_add(checked_add(checked_mul(4, d, d), plain_mlp_with_bias(d, v.d_ff)), checked_mul(4, d));
  p = checked_add(p, checked_mul(v.n_layers, layer));
  return checked_add(p, checked_mul(v.global_layers, checked_add(layer, 2)));
}

// Llama4VisionModel: unfold linear without bias c p^2 d, class embedding d, (n + 1) d positions,
// pre/post LayerNorms 4 d, L ViT layers with biases, and the vision adapter (pixel-shuffle MLP:
// fc1 d_ff -> adapter_in, fc2 adapter_out -> adapter_out, no biases)  [HFT llama4]
i64 llama4_tower(const VisionConfig& v) {
  i64 p = checked_mul(v.channels, checked_mul(v.patch, v.patch), v.d);
  p = checked_add(p, v.d);
  p = checked_add(p, checked_mul(checked_add(patches(v), 1), v.d));
  p = checked_add(p, checked_mul(4, v.d));
  p = checked_add(p, checked_mul(v.n_layers, vit_layer(v.d, v.d_ff)));
  p = checked_add(p, checked_mul(v.d_ff, v.adapter_in));
  return checked_add(p, checked_mul(v.adapter_out, v.adapter_out));
}

// Gemma 4's vision encoder: patch input_proj without bias c p^2 d, two learned position tables
// (x and y) 2 n_pos d, L layers of q/k/v/o without bias 4 d w (w = heads x head_dim), q and k
// norms 2 d_h (the v norm has no weight), a gated MLP 3 d f and four RMSNorms 4 d; with
// standardize the std_bias and std_scale buffers 2 d. The pooler holds nothing  [HFT gemma4]
i64 gemma4_tower(const VisionConfig& v) {
  const i64 d = v.d;
  const i64 w = checked_mul(v.heads, v.head_dim);
  i64 p = checked_mul(v.channels, checked_mul(v.patch, v.patch), d);
  p = checked_add(p, checked_mul(2, v.position_embeddings, d));
  const i64 layer = checked_add(checked_add(checked_mul(4, d, w), checked_mul(2, v.head_dim)),
                                checked_add(checked_mul(3, d, v.d_ff), checked_mul(4, d)));
  p = checked_add(p, checked_mul(v.n_layers, layer));
  return v.standardize ? checked_add(p, checked_mul(2, d)) : p;
}

i64 tower_params(const VisionConfig& v) {
  switch (v.tower) {
    case VisionTower::none:
      return 0;
    case VisionTower::clip:
      return clip_tower(v);
    case VisionTower::siglip:
      return siglip_tower(v);
    case VisionTower::pixtral:
      return pixtral_tower(v);
    case VisionTower::qwen2_vl:
      return qwen2_vl_tower(v);
    case VisionTower::qwen2_5_vl:
      return qwen2_5_vl_tower(v);
    case VisionTower::qwen3_vl:
      return qwen3_vl_tower(v);
    case VisionTower::moonvit:
      return moonvit_tower(v);
    case VisionTower::mllama:
      return mllama_tower(v);
    case VisionTower::llama4:
      return llama4_tower(v);
    case VisionTower::gemma4:
      return gemma4_tower(v);
  }
  return 0;
}

// LLaVA's projector: linear_1 (F d -> out) and linear_2 (out -> out), biases optional  [HFT llava]
i64 llava_mlp(const VisionConfig& v) {
  const i64 in = checked_mul(v.feature_layers, v.d);
  i64 p = checked_add(checked_mul(in, v.out_dim), checked_mul(v.out_dim, v.out_dim));
  if (v.projector_bias) p = checked_add(p, checked_mul(2, v.out_dim));
  return p;
}

i64 projector_params(const VisionConfig& v) {
  switch (v.projector) {
    case VisionProjector::none:
      return 0;
    case VisionProjector::llava:
      return llava_mlp(v);
    case VisionProjector::mistral3:  // RMSNorm d + merging_layer m^2 d x d + the LLaVA MLP  [HFT mistral3]
      return checked_add(checked_add(v.d, checked_mul(checked_mul(v.merge, v.merge), v.d, v.d)), llava_mlp(v));
    case VisionProjector::gemma3:  // mm_soft_emb_norm d + mm_input_projection_weight d x out  [HFT gemma3]
      return checked_add(v.d, checked_mul(v.d, v.out_dim));
    case VisionProjector::mllama:  // Linear(vision_output_dim, out) with bias  [HFT mllama]
      return checked_add(checked_mul(v.output_dim, v.out_dim), v.out_dim);
    case VisionProjector::llama4:  // linear_1 vision_output_dim x out, no bias  [HFT llama4]
      return checked_mul(v.output_dim, v.out_dim);
    case VisionProjector::kimi:  // pre_norm LayerNorm d + proj.0 m^2 d -> m^2 d + proj.2 -> out, biases  [MS26]
      return qwen_merger(v, checked_mul(2, v.d));
    case VisionProjector::gemma4:  // embedding_projection d x out; its pre-projection norm has no weight  [HFT gemma4]
      return checked_mul(v.d, v.out_dim);
  }
  return 0;
}

}  // namespace

VisionParams count_vision(const VisionConfig& v) {
  if (!v.counted()) return {};
  try {
    return {.tower = tower_params(v), .projector = projector_params(v)};
  } catch (const OverflowError&) {
    throw OverflowError("integer overflow: the parameters of the vision tower exceed 2^63 - 1");
  }
}

std::vector<std::string> vision_problems(const VisionConfig& v) {
  std::vector<std::string> e;
  if (!v.counted()) return e;
  constexpr i64 kMaxWidth = i64{1} << 24;
  const auto in_range = [&](const char* field, i64 x, i64 lo, i64 hi) {
    if (x < lo || x > hi) {
      e.push_back(std::string("vision.") + field + ": " + std::to_string(x) + " is out of range; allowed " +
                  std::to_string(lo) + " to " + std::to_string(hi));
    }
  };
  in_range("n_layers", v.n_layers, 1, i64{1} << 16);
  in_range("d", v.d, 1, kMaxWidth);
  in_range("d_ff", v.d_ff, 1, kMaxWidth);
  in_range("patch", v.patch, 1, i64{1} << 12);
  in_range("image_size", v.image_size, 0, i64{1} << 16);
  in_range("channels", v.channels, 1, 64);
  in_range("temporal_patch", v.temporal_patch, 1, 64);
  in_range("merge", v.merge, 1, 64);
  in_range("global_layers", v.global_layers, 0, i64{1} << 16);
  in_range("max_tiles", v.max_tiles, 0, 1024);
  in_range("aspect_ratios", v.aspect_ratios, 0, 1024);
  in_range("adapter_in", v.adapter_in, 0, kMaxWidth);
  in_range("adapter_out", v.adapter_out, 0, kMaxWidth);
  in_range("output_dim", v.output_dim, 0, kMaxWidth);
  in_range("feature_layers", v.feature_layers, 1, 1024);
  in_range("out_dim", v.out_dim, 0, kMaxWidth);
  in_range("position_embeddings", v.position_embeddings, 0, i64{1} << 24);
  in_range("deepstack_mergers", v.deepstack_mergers, 0, 1024);
  in_range("heads", v.heads, 0, i64{1} << 12);
  in_range("head_dim", v.head_dim, 0, kMaxWidth);
  if (v.tower == VisionTower::gemma4 && v.heads * v.head_dim == 0) {
    e.emplace_back("vision.heads, vision.head_dim: a Gemma 4 tower needs both");
  }
  return e;
}

}  // namespace roofline
