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
