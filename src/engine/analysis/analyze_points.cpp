// The roofline as numbers for a picture: roofs per data type, workloads as points, capacity terms.
#include "roofline/roofline_points.hpp"

namespace roofline {

RooflineCeilings analyze_ceilings(const Scenario& s) {
  RooflineCeilings r;
  const HardwareConfig& h = s.accelerator->hw;
  r.name = h.name;
  r.display_name = h.display_name;
  r.devices = s.deployment.devices;
  r.compute_dtype = s.workload.compute_dtype;
  r.bandwidth = effective_machine(s).bandwidth;
  // Each data type's roof is the machine the scenario would have computing in it: the same devices,
  // efficiencies and overrides, only the peak of another type.
  Scenario at;
  at.accelerator = s.accelerator;
  at.deployment = s.deployment;
  at.workload = s.workload;
  for (const DType t : kAllDTypes) {
    at.workload.compute_dtype = t;
    if (!device_peak(at)) continue;
    const Machine m = effective_machine(at);
    r.ceilings.push_back({.dtype = t, .peak = m.peak, .ridge = ridge_point(m.peak, m.bandwidth)});
  }
  return r;
}

RooflinePoint decode_point(const DecodeResult& r) {
  RooflinePoint p;
  p.kind = PointKind::decode;
  p.batch = r.batch;
  p.context = r.context;
  p.flops = r.step.flops;
  p.bytes = r.step.bytes;
  p.intensity = r.step.intensity;
  p.attainable = attainable(r.machine.peak, r.machine.bandwidth, r.step.intensity);
  p.bound = r.step.bound;
  return p;
}

RooflinePoint prefill_point(const PrefillResult& r) {
  RooflinePoint p;
  p.kind = PointKind::prefill;
  p.batch = r.batch;
  p.prompt = r.prompt;
  p.flops = r.pass.flops;
  p.bytes = r.pass.bytes;
  p.intensity = r.pass.intensity;
  p.attainable = attainable(r.machine.peak, r.machine.bandwidth, r.pass.intensity);
  p.bound = r.pass.bound;
  return p;
}

RooflinePoint gemm_point(const GemmResult& r, Machine machine) {
  RooflinePoint p;
  p.kind = PointKind::gemm;
  p.gemm = r.in;
  p.flops = r.flops;
  p.bytes = r.bytes;
  p.intensity = r.intensity;
  p.attainable = attainable(machine.peak, machine.bandwidth, r.intensity);
  p.bound = bound_of(r.flops, r.bytes, machine.peak, machine.bandwidth);
  return p;
}

RooflinePoint train_point(const LayerResult& r) {
  RooflinePoint p;
  p.kind = PointKind::train;
  p.batch = r.batch;
  p.prompt = r.prompt;
  for (const LayerSection& k : r.layers) {
    for (const LayerOpResult& op : k.ops) {
      if (op.op.kind != OpKind::matmul) continue;
      p.flops += op.op.flops * static_cast<double>(k.kind.layers);
      p.bytes += op.bytes * static_cast<double>(k.kind.layers);
    }
  }
  // A prefill computes the last position's logits; a training step every position's: the head's
  // FLOPs and activations at all S positions, its weights read once.
  const auto positions = static_cast<double>(r.prompt);
  for (const LayerOpResult& op : r.head.ops) {
    if (op.op.kind != OpKind::matmul) continue;
    p.flops += op.op.flops * positions;
    p.bytes += op.op.weight_bytes + op.op.activation_bytes * positions;
  }
  p.intensity = p.flops / p.bytes;
  p.attainable = attainable(r.machine.peak, r.machine.bandwidth, p.intensity);
  p.bound = bound_of(p.flops, p.bytes, r.machine.peak, r.machine.bandwidth);
  return p;
}

std::vector<RooflinePoint> layer_op_points(const LayerResult& r) {
  std::vector<RooflinePoint> out;
  if (r.layers.empty()) return out;
  for (const LayerOpResult& op : r.layers.front().ops) {
    if (op.op.kind == OpKind::matmul || op.op.kind == OpKind::gather) continue;
    RooflinePoint p;
    p.kind = PointKind::layer_op;
    p.batch = r.batch;
    p.context = r.context;
    p.prompt = r.prompt;
    p.op_id = op.op.id;
    p.op_name = op.op.name;
    p.op_kind = op.op.kind;
    p.flops = op.op.flops;
    p.bytes = op.bytes;
    p.intensity = op.intensity.value_or(units::FlopPerByte{});
    p.attainable = attainable(r.machine.peak, r.machine.bandwidth, p.intensity);
    p.bound = op.bound;
    out.push_back(p);
  }
  return out;
}

MemoryBreakdown memory_breakdown(const CapacityResult& c) {
  MemoryBreakdown m;
  m.capacity = c.capacity;
  m.weights = c.weights;
  m.kv = batch_kv_bytes(c.kv_per_sequence, static_cast<double>(c.batch));
  m.reserve = c.reserve;
  m.required = c.required;
  m.unused = unused_bytes(c.capacity, c.required);
  m.devices = c.devices;
  m.batch = c.batch;
  m.context = c.context;
  m.fits = c.fits;
  return m;
}

TrainMemoryBreakdown train_memory_breakdown(const TrainResult& t) {
  TrainMemoryBreakdown m;
  m.capacity = t.capacity;
  m.weights = t.states.weights;
  m.gradients = t.states.gradients;
  m.optimizer = t.states.optimizer;
  m.working_is_activations = t.forward_backward >= t.optimizer_temporary;
  m.working = m.working_is_activations ? t.forward_backward : t.optimizer_temporary;
  m.reserve = t.reserve;
  m.required = t.total;
  m.unused = unused_bytes(t.capacity, t.total);
  m.devices = t.devices;
  m.fits = m.unused.base() >= 0.0;
  return m;
}

}  // namespace roofline
