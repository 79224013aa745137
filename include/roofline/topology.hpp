// Topology (issue 24): accelerators in scale-up domains joined by a scale-out network (or by PCIe
// where there is no scale-up fabric, or an ICI torus on TPU slices), and collectives costed on
// where a group's members sit. Pure data and constexpr arithmetic; no I/O.
#pragma once

#include "roofline/units.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace roofline {

/// What a link is: it picks the per-step latency of NCCL's tuner (NVLink, PCI or network rows).
enum class LinkKind : std::uint8_t { scale_up, pcie, scale_out, torus };

constexpr std::string_view link_kind_name(LinkKind k) {
  constexpr std::array<std::string_view, 4> names = {"scale-up link", "PCIe", "scale-out network", "torus"};
  return names[static_cast<std::size_t>(k)];
}

/// One tier of the system's network, as one device sees it.
struct Link {
  LinkKind kind = LinkKind::scale_up;
  std::string name;                   ///< "NVLink 4 via NVSwitch", "8x ConnectX-7 400 Gb/s", "PCIe 4.0 x16"
  units::BytesPerSecond bandwidth{};  ///< per device, one direction
  bool operator==(const Link&) const = default;
};

/// Where a system came from: a system preset, the flags, or one flat domain at the accelerator's
/// own interconnect (an accelerator with no system preset; labelled as such in every format).
enum class TopologySource : std::uint8_t { preset, flags, flat };

/// A system: devices in scale-up domains of `domain` devices, joined by `across`.
struct Topology {
  std::string name;  ///< the system preset's name; "" when not a preset
  std::string display_name;
  TopologySource source = TopologySource::flat;
  std::int64_t domain = 1;            ///< devices per scale-up domain (a PCIe box's devices where it has none)
  std::int64_t devices_per_node = 1;  ///< devices per server as sold
  Link inside;                        ///< the scale-up fabric, the PCIe host links, or the ICI torus
  bool has_across = false;            ///< a scale-out network is known
  Link across;                        ///< the scale-out network between domains
  bool switch_reduction = false;      ///< the scale-up switch reduces in the network (NVLink SHARP, NCCL's NVLS)
  bool mesh = false;                  ///< the domain's devices are linked pairwise (xGMI, Gaudi's RoCE): the
                                      ///< inside bandwidth is over all D - 1 peers' links together
  std::vector<std::int64_t> torus;    ///< an ICI torus' dimensions (product: domain); empty otherwise
  bool wraparound = true;             ///< the torus' rings close
  std::string source_text;            ///< the preset's sources
  std::string notes;
  bool operator==(const Topology&) const = default;
};

/// PCIe bandwidth per direction of generation g over n lanes: n x (transfer rate x encoding) / 8;
/// 1.0-2.0 8b/10b at 2.5 and 5 GT/s, 3.0-5.0 128b/130b at 8, 16, 32 GT/s, 6.0 PAM4 FLITs of
/// 242 payload bytes in 256 at 64 GT/s  [PCIE]
constexpr units::BytesPerSecond pcie_bandwidth(int generation, int lanes) {
  constexpr std::array<double, 7> per_lane = {0.0,
                                              0.25e9,
                                              0.5e9,
                                              8e9 * 128.0 / 130.0 / 8.0,
                                              16e9 * 128.0 / 130.0 / 8.0,
                                              32e9 * 128.0 / 130.0 / 8.0,
                                              64e9 * 242.0 / 256.0 / 8.0};
  if (generation < 1 || generation > 6) return units::BytesPerSecond{};
  return units::BytesPerSecond{per_lane[static_cast<std::size_t>(generation)] * static_cast<double>(lanes)};
}

/// How a group of n ranks, consecutive members `stride` ranks apart, sits in domains of D devices:
/// k = min(n, D / s) members a domain when s divides D, else one; m = n / k domains  (derived)
struct GroupPlacement {
  double ranks = 1.0;       ///< n
  double per_domain = 1.0;  ///< k
  double domains = 1.0;     ///< m
  [[nodiscard]] constexpr bool spans() const { return domains > 1.0; }
};
constexpr GroupPlacement place_group(std::int64_t n, std::int64_t stride, std::int64_t domain) {
  if (n <= 1) return {};
  std::int64_t k = 1;
  if (stride > 0 && stride <= domain && domain % stride == 0) k = std::min(n, domain / stride);
  // A group larger than a domain fills whole domains only when k divides n.
  if (n % k != 0) k = 1;
  return {static_cast<double>(n), static_cast<double>(k), static_cast<double>(n) / static_cast<double>(k)};
}

/// NCCL's ring protocols as its tuner costs them: a fixed cost per collective (baseLat) and a cost
/// per ring step over NVLink, PCI and the network (hwLat); LL carries a quarter of the bus
/// bandwidth in an all-reduce (busBw / 4), Simple all of it; LL128 (enabled only on some
/// NVLink systems) is left out  [NC24]
struct RingProtocol {
  std::string_view name;
  double base_us = 0.0;
  std::array<double, 3> step_us{};  ///< NVLink, PCI, network
  double bandwidth_share = 1.0;
};
inline constexpr std::array kNcclRingProtocols = {
    RingProtocol{"LL", 6.6, {0.6, 1.0, 2.7}, 0.25},
    RingProtocol{"Simple", 8.4, {3.4, 5.7, 14.0}, 1.0},
};

/// The tuner's step latency of a link: NVLink's row for scale-up fabrics and ICI, PCI's, the network's.
/// ICI has no NCCL row: a torus' steps are costed at 0 (bandwidth only), and said so.
constexpr units::Seconds ring_step_latency(const RingProtocol& p, LinkKind k) {
  if (k == LinkKind::torus) return units::Seconds{};
  const std::size_t row = k == LinkKind::pcie ? 1 : (k == LinkKind::scale_out ? 2 : 0);
  return units::Seconds{p.step_us[row] * 1e-6};
}

/// A ring collective's time under the cheaper protocol: min over LL and Simple of
/// baseLat + s_in hwLat(in) + s_out hwLat(out) + T_transfer / share  [NC24]
struct CollectiveTime {
  units::Seconds time{};
  units::Seconds latency{};  ///< the fixed and per-step part alone
  std::string_view protocol;
};
constexpr CollectiveTime nccl_ring_time(units::Seconds transfer, double steps_inside, LinkKind inside,
                                        double steps_across, LinkKind across) {
  if (steps_inside + steps_across <= 0.0) return {};
  CollectiveTime best{units::Seconds{HUGE_VAL}, {}, {}};
  for (const RingProtocol& p : kNcclRingProtocols) {
    const units::Seconds lat = units::Seconds{p.base_us * 1e-6} + ring_step_latency(p, inside) * steps_inside +
                               ring_step_latency(p, across) * steps_across;
    const units::Seconds t = lat + transfer / p.bandwidth_share;
    if (t < best.time) best = {t, lat, p.name};
  }
  return best;
}

/// Hierarchical all-reduce of M bytes over m domains of k members: reduce-scatter inside, an
/// all-reduce of each member's M/k across, all-gather inside, pipelined chunk by chunk so that the
/// slower tier binds: T = max(2(k-1)/k M/B_in, 2(m-1)/m M/(k B_out)), each member using its own
/// scale-out link  [TH05 §4] [PY09 §3] [NC24] (derived: the two-level ring; nccl-tests' busbw "should
/// reflect the speed of the hardware bottleneck", and 4 x 8 H100s measure 330.9 GB/s, above the
/// 253.6 GB/s the two tiers in series would allow)
constexpr units::Seconds hierarchical_allreduce_transfer(units::Bytes message, const GroupPlacement& g,
                                                         units::BytesPerSecond inside, units::BytesPerSecond across) {
  const double k = g.per_domain;
  const double m = g.domains;
  const units::Seconds in = k > 1.0 ? message * (2.0 * (k - 1.0) / k) / inside : units::Seconds{};
  const units::Seconds out = m > 1.0 ? message * (2.0 * (m - 1.0) / m / k) / across : units::Seconds{};
  return std::max(in, out);
}

/// An all-reduce of M bytes by k members of one domain whose switch reduces (NVLS): each member's
/// share M/k is read from every member and reduced in the switch, then multicast back, so a member
/// sends M + M/k and receives as much: T = (k+1)/k M/B_in  [NV22] (derived: the multimem
/// load-reduce and store of each share)
constexpr units::Seconds switch_allreduce_transfer(units::Bytes message, double k, units::BytesPerSecond inside) {
  return k > 1.0 ? message * ((k + 1.0) / k) / inside : units::Seconds{};
}

/// The bus bandwidth of that all-reduce, nccl-tests' convention: 2(k-1)/k M / T = 2(k-1)/(k+1) B_in
/// [NC26] (8 H100s: 700 GB/s, against the 478.9-480.0 GB/s measured with NVLS)
constexpr units::BytesPerSecond switch_bus_bandwidth(double k, units::BytesPerSecond inside) {
  return k > 1.0 ? inside * (2.0 * (k - 1.0) / (k + 1.0)) : inside;
}

/// NCCL's NVLS latency inside one domain: baseLat 0 + the NVLink hwLat of NVLS Simple, 25 us  [NC24]
inline constexpr double kNvlsLatencyUs = 25.0;

/// The bus bandwidth of that all-reduce, as nccl-tests reports it: busbw = 2(n-1)/n M / T
/// [NC24] (nccl-tests' convention)
constexpr units::BytesPerSecond hierarchical_bus_bandwidth(const GroupPlacement& g, units::BytesPerSecond inside,
                                                           units::BytesPerSecond across) {
  if (g.ranks <= 1.0) return inside;
  const units::Seconds per_byte = hierarchical_allreduce_transfer(units::Bytes{1.0}, g, inside, across);
  return units::BytesPerSecond{2.0 * (g.ranks - 1.0) / g.ranks / per_byte.base()};
}

/// The ring steps of that all-reduce inside and across domains: 2(k-1) and 2(m-1)  [NC24]
constexpr double allreduce_inside_steps(const GroupPlacement& g) { return 2.0 * (g.per_domain - 1.0); }
constexpr double allreduce_across_steps(const GroupPlacement& g) { return 2.0 * (g.domains - 1.0); }

/// All-to-all of M bytes a member over n ranks, k a domain: (k-1)/n of M stays inside, (n-k)/n
/// crosses; the two links run at once: T = max((k-1)/n M/B_in, (n-k)/n M/B_out)  [LE21] (derived)
constexpr units::Seconds hierarchical_alltoall_transfer(units::Bytes message, const GroupPlacement& g,
                                                        units::BytesPerSecond inside, units::BytesPerSecond across) {
  if (g.ranks <= 1.0) return units::Seconds{};
  const units::Seconds in = g.per_domain > 1.0 ? message * ((g.per_domain - 1.0) / g.ranks) / inside : units::Seconds{};
  const units::Seconds out = g.spans() ? message * ((g.ranks - g.per_domain) / g.ranks) / across : units::Seconds{};
  return std::max(in, out);
}

/// A ring all-reduce over one torus axis of n chips with bidirectional links: each direction
/// carries half the ring, 2(n-1)/n M / (2 W), W a link per direction; without wrap-around the
/// line runs one way: 2(n-1)/n M / W  [SCALE25] (derived)
constexpr units::Seconds torus_axis_allreduce_transfer(units::Bytes message, double n, units::BytesPerSecond link,
                                                       bool wraparound) {
  if (n <= 1.0) return units::Seconds{};
  return message * (2.0 * (n - 1.0) / n) / (link * (wraparound ? 2.0 : 1.0));
}

/// The interconnect ridge: FLOP/s per byte/s of a link, P / B; tensor parallelism stays compute-
/// bound when its matmuls do more than P / B FLOPs per byte they all-reduce  [WI09] (the roofline
/// ridge applied to a link)
constexpr double interconnect_ridge(units::FlopPerSecond peak, units::BytesPerSecond link) {
  return link.base() > 0.0 ? peak.base() / link.base() : 0.0;
}

/// A fully connected domain of D devices, B over all D - 1 peer links together: a group of k
/// members of it drives only its k - 1 peers' links, B (k - 1)/(D - 1)  (derived: AMD's and
/// Intel's platform figures are per device over every peer link)
constexpr units::BytesPerSecond mesh_group_bandwidth(units::BytesPerSecond all_links, double k, double domain) {
  return domain > 1.0 ? all_links * ((k - 1.0) / (domain - 1.0)) : all_links;
}

/// How a group's collectives run on a topology: where its members sit, the links it uses and
/// their bandwidths as the group sees them (engine/topology.cpp).
struct GroupLinks {
  GroupPlacement placement;
  units::BytesPerSecond bus_bandwidth{};  ///< an all-reduce's (and a reduce-scatter's, an all-gather's)
  units::BytesPerSecond inside_bandwidth{};
  units::BytesPerSecond across_bandwidth{};
  LinkKind inside = LinkKind::scale_up;
  LinkKind across = LinkKind::scale_out;
  bool spans = false;           ///< the group crosses domains
  bool switch_reduces = false;  ///< one domain whose switch reduces, and NVLS carries more than the ring (k >= 4)
  bool across_known = true;     ///< the topology names the network it crosses
};

/// One flat domain holding every device at one link (an accelerator with no system preset).
Topology flat_topology(const Link& inside, std::string display_name);

/// The group of n ranks `stride` apart on t, each link at `efficiency` of its peak. A group that
/// spans domains of a topology with no scale-out network runs at the inside link, across_known false.
GroupLinks group_links(const Topology& t, std::int64_t n, std::int64_t stride, double efficiency);

/// The per-step latency model: NCCL's protocols (baseLat + hwLat per step, the cheaper of LL and
/// Simple), or one latency per step with no fixed cost (--link-latency; 0: bandwidth only).
struct LatencyModel {
  bool nccl = true;
  units::Seconds hop{};
};

/// An all-reduce of M bytes by the group: its transfer max(2(k-1)/k M/B_in, 2(m-1)/m M/(k B_out))
/// (on a torus, axis by axis) and its latency.
CollectiveTime allreduce_time(const Topology& t, const GroupLinks& g, units::Bytes message, const LatencyModel& lat);
/// A reduce-scatter or all-gather of a full buffer of M bytes: half an all-reduce's transfer and steps.
CollectiveTime gather_time(const Topology& t, const GroupLinks& g, units::Bytes message, const LatencyModel& lat);
/// An all-to-all of M bytes a member: max((k-1)/n M/B_in, (n-k)/n M/B_out) and one step each way.
CollectiveTime alltoall_time(const GroupLinks& g, units::Bytes message, const LatencyModel& lat);
/// One send of M bytes over a link of the given kind and bandwidth.
CollectiveTime send_time(LinkKind kind, units::BytesPerSecond link, units::Bytes message, const LatencyModel& lat);
/// One send of M bytes between neighbours of a ring on group g of t: over the scale-out link once
/// the group spans domains, else the inside link (on a mesh, the one peer link of a pair).
CollectiveTime ring_send_time(const Topology& t, const GroupLinks& g, units::Bytes message, const LatencyModel& lat);

}  // namespace roofline
