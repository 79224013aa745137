// Inference on a parallel layout: how tensor and pipeline parallelism divide the KV cache, and what
// the collectives and the stage hand-offs cost, latency included.
#pragma once

#include "roofline/units.hpp"

#include <algorithm>

namespace roofline {

/// Share of one sequence's KV cache a tensor-parallel rank holds: 1 / min(t, h_kv); ranks beyond
/// h_kv hold a replica of one head, so the share stops falling at h_kv (MLA's latent is one head:
/// every rank holds all of it)  [SH19 §3] (derived)
constexpr double kv_share_per_rank(double kv_heads, double t) { return 1.0 / std::min(t, kv_heads); }

/// Share of one sequence's recurrent state a tensor-parallel rank holds: 1 / t; a state-space
/// mixer's channels (Mamba d_i) and heads (Mamba-2 H, Gated DeltaNet h_v) split over t as its
/// in_proj, conv1d and out_proj do (params_per_device), each rank keeping its own channels' state
/// [DAO24 §8.1] (derived)
constexpr double state_share_per_rank(double t) { return 1.0 / t; }

/// A sequence's cache on one device of t x p: M_dev = (M_KV,attn(T) / min(t, h_kv) + M_S / t) / p,
/// the attention KV over its heads, the recurrent state over all t ranks; a model without
/// attention heads (h_kv = 0, pure state-space) holds its state alone  [SH19 §3] [DAO24 §8.1] (derived)
constexpr units::Bytes cache_per_sequence_per_device(units::Bytes attention_kv, units::Bytes state, double kv_heads,
                                                     double t, double p) {
  const units::Bytes kv = kv_heads > 0.0 ? attention_kv * kv_share_per_rank(kv_heads, t) : units::Bytes{};
  return (kv + state * state_share_per_rank(t)) / p;
}

/// Ring all-reduce of M bytes over t ranks: 2 (t - 1) alpha + 2 (t - 1)/t M / BW, alpha the per-hop
/// latency, BW the link per direction  [TH05 §4] [PY09 §3]
constexpr units::Seconds ring_allreduce_time(units::Bytes message, double t, units::BytesPerSecond link,
                                             units::Seconds latency) {
  if (t <= 1.0) return units::Seconds{};
  return latency * (2.0 * (t - 1.0)) + message * (2.0 * (t - 1.0) / t) / link;
}

/// A pipeline of p stages run one after another by one batch: p t_stage + (p - 1) t_hop  [NA21 §2.2]
constexpr units::Seconds pipeline_latency(double p, units::Seconds stage, units::Seconds hop) {
  return stage * p + hop * (p - 1.0);
}

/// Autoregressive decode through p stages with M batches in flight: a batch's next token waits for
/// it to pass all p stages, and a stage serves the M batches in turn, so each batch steps every
/// max(M, p) slots, t_slot a stage's step with its hand-off  [NA21 §2.2] (derived)
constexpr units::Seconds pipelined_decode_interval(double micro_batches, double p, units::Seconds slot) {
  return slot * std::max(micro_batches, p);
}

/// The share of its time each stage idles: 1 - M / max(M, p), zero once M >= p  (derived)
constexpr double pipelined_decode_idle(double micro_batches, double p) {
  return 1.0 - micro_batches / std::max(micro_batches, p);
}

/// One stage-to-stage hand-off of M bytes: alpha + M / BW  [TH05 §4]
constexpr units::Seconds point_to_point_time(units::Bytes message, units::BytesPerSecond link, units::Seconds latency) {
  return latency + message / link;
}

}  // namespace roofline
