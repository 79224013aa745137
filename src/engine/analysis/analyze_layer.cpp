// layer: every layer kind and the head, operator by operator, each on its own roofline.
#include "roofline/analysis/layer.hpp"
#include "roofline/decode.hpp"
#include "roofline/layer_ops.hpp"
#include "roofline/misc.hpp"
#include "roofline/roofline.hpp"

namespace roofline {
namespace {

units::Bytes bytes_of(const LayerOp& op) { return op.weight_bytes + op.activation_bytes + op.kv_bytes; }

// Each operator alone on the roofline: t = max(F/P, Q/BW), bound by bound_of  [WI09]
std::vector<LayerOpResult> on_roofline(const std::vector<LayerOp>& ops, Machine hw) {
  std::vector<LayerOpResult> out;
  out.reserve(ops.size());
  units::Seconds sum{};
  for (const LayerOp& op : ops) {
    LayerOpResult r;
    r.op = op;
    r.bytes = bytes_of(op);
    if (r.bytes.base() > 0.0) r.intensity = op.flops / r.bytes;
    r.time = roofline_time(op.flops, r.bytes, hw.peak, hw.bandwidth);
    r.bound = bound_of(op.flops, r.bytes, hw.peak, hw.bandwidth);
    sum += r.time;
    out.push_back(r);
  }
  for (LayerOpResult& r : out) r.share = units::Fraction{sum.base() > 0.0 ? r.time / sum : 0.0};
  return out;
}

units::Seconds time_of(const std::vector<LayerOp>& ops, Machine hw) {
  units::Seconds t{};
  for (const LayerOp& op : ops) t += roofline_time(op.flops, bytes_of(op), hw.peak, hw.bandwidth);
  return t;
}

// The totals of one section from its unfused and fused operators (FLOPs, weights and KV are the
// same in both; only activations differ).
LayerTotals totals_of(const std::vector<LayerOp>& unfused, const std::vector<LayerOp>& fused, Machine hw) {
  LayerTotals t;
  for (const LayerOp& op : unfused) {
    t.flops += op.flops;
    t.weight_bytes += op.weight_bytes;
    t.kv_bytes += op.kv_bytes;
    t.activation_bytes += op.activation_bytes;
  }
  for (const LayerOp& op : fused) t.activation_bytes_fused += op.activation_bytes;
  t.time = time_of(unfused, hw);
  t.time_fused = time_of(fused, hw);
  return t;
}

// Adds `n` copies of a section's totals.
void accumulate(LayerTotals& sum, const LayerTotals& t, double n) {
  sum.flops += t.flops * n;
  sum.weight_bytes += t.weight_bytes * n;
  sum.kv_bytes += t.kv_bytes * n;
  sum.activation_bytes += t.activation_bytes * n;
  sum.activation_bytes_fused += t.activation_bytes_fused * n;
  sum.time += t.time * n;
  sum.time_fused += t.time_fused * n;
}

}  // namespace

LayerResult analyze_layer(const Scenario& s, LayerQuery q) {
  const ModelConfig& m = s.model;
  Workload w = s.workload;
  w.basis = FlopBasis::physical;  // every operator's own work; the head counted where it runs
  LayerResult r;
  r.query = q;
  r.machine = effective_machine(s);
  r.has_peak = device_peak(s).has_value();
  if (r.has_peak) r.ridge = ridge_point(r.machine.peak, r.machine.bandwidth);
  r.batch = w.batch;
  r.prompt = w.prompt;
  r.context = w.context;
  r.pass = layer_pass(w, q.phase, q.fused);
  const LayerPass unfused = layer_pass(w, q.phase, false);
  const LayerPass fused = layer_pass(w, q.phase, true);
  if (m.moe.enabled()) r.experts_read = experts_read(m, r.pass.tokens, w.decode_bytes, w.moe_decode);

  for (const LayerKind& kind : layer_kinds(m)) {
    LayerSection sec;
    sec.kind = kind;
    const std::vector<LayerOp> u = layer_ops(m, s.counts, kind, unfused);
    const std::vector<LayerOp> f = layer_ops(m, s.counts, kind, fused);
    sec.ops = on_roofline(q.fused ? f : u, r.machine);
    sec.totals = totals_of(u, f, r.machine);
    accumulate(r.totals, sec.totals, static_cast<double>(kind.layers));
    r.layers.push_back(std::move(sec));
  }
  r.head.head = true;
  r.head.kind.layers = 1;
  const std::vector<LayerOp> hu = head_ops(m, s.counts, unfused);
  const std::vector<LayerOp> hf = head_ops(m, s.counts, fused);
  r.head.ops = on_roofline(q.fused ? hf : hu, r.machine);
  r.head.totals = totals_of(hu, hf, r.machine);
  accumulate(r.totals, r.head.totals, 1.0);

  const units::Bytes weights_kv = r.totals.weight_bytes + r.totals.kv_bytes;
  r.bytes_unfused = weights_kv + r.totals.activation_bytes;
  r.bytes_fused = weights_kv + r.totals.activation_bytes_fused;
  r.fusion_traffic_ratio = fusion_speedup(r.bytes_unfused, r.bytes_fused);

  if (q.phase == Phase::decode) {
    const DecodeStep step = decode_step(m, s.counts, w, r.machine);
    r.whole_flops = step.flops;
    r.whole_bytes = step.bytes;
    r.whole_t_compute = step.t_compute;
    r.whole_t_memory = step.t_memory;
    r.whole_time = step.t_step;
    r.whole_bound = step.bound;
  } else {
    const PrefillPass pass = prefill_pass(m, s.counts, w, r.machine);
    r.whole_flops = pass.flops;
    r.whole_bytes = pass.bytes;
    r.whole_t_compute = pass.t_compute;
    r.whole_t_memory = pass.t_memory;
    if (r.has_peak) r.whole_time = pass.t_floor;
    r.whole_bound = pass.bound;
  }
  return r;
}

}  // namespace roofline
