#include "roofline/topology.hpp"

#include <cmath>
#include <utility>

namespace roofline {

namespace {

// A torus group's transfer for an all-reduce: the axes filled in order (n_1 = min(n, D_1), ...),
// reduce-scatter along each, so axis i carries M / (n_1 ... n_{i-1}); an axis the group fills
// wholly is a closed ring, a part of one a line  [SCALE25] (derived)
units::Seconds torus_transfer(const Topology& t, double n, units::Bytes message, units::BytesPerSecond link) {
  units::Seconds total{};
  double left = n;
  units::Bytes m = message;
  for (const std::int64_t d : t.torus) {
    if (left <= 1.0) break;
    const double axis = std::min(left, static_cast<double>(d));
    // Only a group that fills its axis closes the axis' ring.
    total += torus_axis_allreduce_transfer(m, axis, link, t.wraparound && axis == static_cast<double>(d));
    m = m / axis;
    left /= axis;
  }
  return total;
}

CollectiveTime with_latency(units::Seconds transfer, double steps_in, LinkKind in, double steps_out, LinkKind out,
                            const LatencyModel& lat) {
  // NCCL's costs are for its GPUs; a collective on a torus alone is costed by bandwidth.
  if (lat.nccl && in == LinkKind::torus && steps_out == 0.0) return {transfer, {}, "bandwidth only (ICI)"};
  if (lat.nccl) return nccl_ring_time(transfer, steps_in, in, steps_out, out);
  const units::Seconds l = lat.hop * (steps_in + steps_out);
  return {transfer + l, l, "α per step"};
}

}  // namespace

Topology flat_topology(const Link& inside, std::string display_name) {
  Topology t;
  t.source = TopologySource::flat;
  t.display_name = std::move(display_name);
  t.domain = std::int64_t{1} << 62;  // larger than any device count a flag takes
  t.inside = inside;
  return t;
}

GroupLinks group_links(const Topology& t, std::int64_t n, std::int64_t stride, double efficiency) {
  GroupLinks g;
  g.placement = place_group(n, stride, t.domain);
  g.inside = t.inside.kind;
  g.across = t.has_across ? t.across.kind : t.inside.kind;
  g.inside_bandwidth = t.inside.bandwidth * efficiency;
  g.across_known = t.has_across;
  g.across_bandwidth = (t.has_across ? t.across.bandwidth : t.inside.bandwidth) * efficiency;
  g.spans = g.placement.spans();
  if (t.mesh && g.placement.per_domain > 1.0) {
    g.inside_bandwidth =
        mesh_group_bandwidth(g.inside_bandwidth, g.placement.per_domain, static_cast<double>(t.domain));
  }
  if (!t.torus.empty() && !g.spans) {
    // On the torus the bus bandwidth of an all-reduce over the group's axes.
    const units::Seconds per_byte = torus_transfer(t, g.placement.ranks, units::Bytes{1.0}, g.inside_bandwidth);
    g.bus_bandwidth = per_byte.base() > 0.0
                          ? units::BytesPerSecond{2.0 * (g.placement.ranks - 1.0) / g.placement.ranks / per_byte.base()}
                          : g.inside_bandwidth;
  } else {
    g.bus_bandwidth = hierarchical_bus_bandwidth(g.placement, g.inside_bandwidth, g.across_bandwidth);
  }
  // NVLS moves (k + 1)/k of the message against the ring's 2(k - 1)/k: it carries more from k = 4 up.
  if (t.switch_reduction && !g.spans && g.inside == LinkKind::scale_up) {
    const units::BytesPerSecond nvls = switch_bus_bandwidth(g.placement.per_domain, g.inside_bandwidth);
    if (nvls > g.bus_bandwidth) {
      g.switch_reduces = true;
      g.bus_bandwidth = nvls;
    }
  }
  return g;
}

CollectiveTime allreduce_time(const Topology& t, const GroupLinks& g, units::Bytes message, const LatencyModel& lat) {
  const GroupPlacement& p = g.placement;
  if (p.ranks <= 1.0) return {};
  const units::Seconds transfer =
      !t.torus.empty() && !g.spans
          ? torus_transfer(t, p.ranks, message, g.inside_bandwidth)
          : hierarchical_allreduce_transfer(message, p, g.inside_bandwidth, g.across_bandwidth);
  const CollectiveTime ring =
      with_latency(transfer, allreduce_inside_steps(p), g.inside, allreduce_across_steps(p), g.across, lat);
  // Inside one domain whose switch reduces, NCCL's NVLS algorithm is the other candidate; it wins on
  // large messages, the ring's LL on small ones (NCCL's tuner takes the faster).
  if (!g.switch_reduces || !lat.nccl) return ring;
  const units::Seconds nvls_latency{kNvlsLatencyUs * 1e-6};
  const units::Seconds nvls = switch_allreduce_transfer(message, p.per_domain, g.inside_bandwidth) + nvls_latency;
  return nvls < ring.time ? CollectiveTime{nvls, nvls_latency, "NVLS"} : ring;
}

CollectiveTime gather_time(const Topology& t, const GroupLinks& g, units::Bytes message, const LatencyModel& lat) {
  const GroupPlacement& p = g.placement;
  if (p.ranks <= 1.0) return {};
  const units::Seconds transfer =
      !t.torus.empty() && !g.spans
          ? torus_transfer(t, p.ranks, message, g.inside_bandwidth) * 0.5
          : hierarchical_allreduce_transfer(message, p, g.inside_bandwidth, g.across_bandwidth) * 0.5;
  return with_latency(transfer, allreduce_inside_steps(p) / 2.0, g.inside, allreduce_across_steps(p) / 2.0, g.across,
                      lat);
}

CollectiveTime alltoall_time(const GroupLinks& g, units::Bytes message, const LatencyModel& lat) {
  const GroupPlacement& p = g.placement;
  if (p.ranks <= 1.0) return {};
  const units::Seconds transfer = hierarchical_alltoall_transfer(message, p, g.inside_bandwidth, g.across_bandwidth);
  return with_latency(transfer, p.per_domain > 1.0 ? 1.0 : 0.0, g.inside, g.spans ? 1.0 : 0.0, g.across, lat);
}

CollectiveTime send_time(LinkKind kind, units::BytesPerSecond link, units::Bytes message, const LatencyModel& lat) {
  return with_latency(message / link, 1.0, kind, 0.0, kind, lat);
}

CollectiveTime ring_send_time(const Topology& t, const GroupLinks& g, units::Bytes message, const LatencyModel& lat) {
  const LinkKind kind = g.spans ? g.across : g.inside;
  units::BytesPerSecond link = g.spans ? g.across_bandwidth : g.inside_bandwidth;
  if (!g.spans && t.mesh) link = mesh_group_bandwidth(link, 2.0, static_cast<double>(t.domain));
  return send_time(kind, link, message, lat);
}

}  // namespace roofline
