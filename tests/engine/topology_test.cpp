// Topology (issue 24): PCIe rates, where a group's members sit, hierarchical collectives and
// NCCL's protocol costs, each row against a closed form worked by hand.
#include "roofline/topology.hpp"

#include <catch2/catch.hpp>

#include <cstdint>

using namespace roofline;
using Catch::Matchers::WithinRel;

TEST_CASE("PCIe per direction: lanes x rate x encoding / 8", "[topology]") {
  struct Row {
    int generation, lanes;
    double gb_per_s;  // worked by hand
    const char* source;
  };
  const Row rows[] = {
      {3, 16, 8.0 * 16 * 128 / 130 / 8, "PCIE 3.0: 8 GT/s, 128b/130b (15.75 GB/s)"},
      {4, 16, 16.0 * 16 * 128 / 130 / 8, "PCIE 4.0: 16 GT/s (31.5 GB/s)"},
      {5, 16, 32.0 * 16 * 128 / 130 / 8, "PCIE 5.0: 32 GT/s (63.0 GB/s)"},
      {6, 16, 64.0 * 16 * 242 / 256 / 8, "PCIE 6.0: 64 GT/s PAM4, 242 of 256 FLIT bytes (121 GB/s)"},
      {2, 8, 5.0 * 8 * 0.8 / 8, "PCIE 2.0: 5 GT/s, 8b/10b"},
      {4, 8, 16.0 * 8 * 128 / 130 / 8, "PCIE 4.0 x8"},
  };
  for (const Row& r : rows) {
    INFO(r.source);
    CHECK_THAT(pcie_bandwidth(r.generation, r.lanes).base(), WithinRel(r.gb_per_s * 1e9, 1e-12));
  }
  CHECK(pcie_bandwidth(7, 16).base() == 0.0);
  CHECK(pcie_bandwidth(0, 16).base() == 0.0);
}

TEST_CASE("a group's members per domain: D / stride when the stride divides D", "[topology]") {
  struct Row {
    std::int64_t n, stride, domain;
    double k, m;
    const char* what;
  };
  const Row rows[] = {
      {8, 1, 8, 8, 1, "TP 8 in an HGX node"},
      {32, 1, 8, 8, 4, "TP 32 spans four 8-GPU domains"},
      {64, 1, 8, 8, 8, "DP 64 at t = 1: eight a node"},
      {16, 8, 8, 1, 16, "DP 16 at t = 8: one a node, every member on its own NIC"},
      {6, 4, 8, 2, 3, "DP 6 at t = 4: two a node"},
      {3, 3, 8, 1, 3, "a stride that does not divide the domain: one a domain"},
      {4, 1, 72, 4, 1, "TP 4 in an NVL72 domain"},
      {1, 1, 8, 1, 1, "one rank"},
      {12, 1, 8, 1, 12, "12 ranks do not fill 8-device domains evenly: counted one a domain"},
  };
  for (const Row& r : rows) {
    INFO(r.what);
    const GroupPlacement g = place_group(r.n, r.stride, r.domain);
    CHECK(g.per_domain == r.k);
    CHECK(g.domains == r.m);
  }
}

TEST_CASE("hierarchical all-reduce: max(2(k-1)/k M/B_in, 2(m-1)/m M/(k B_out)), and its bus bandwidth", "[topology]") {
  const units::BytesPerSecond nvlink{450e9};
  const units::BytesPerSecond nic{50e9};
  const units::Bytes gb{1e9};
  // 64 H100s at t = 1 (derived, TH05 §4 per tier, the tiers pipelined): max(1.75/450, 0.21875/50) s
  // = 4.375 ms, the NICs binding.
  const GroupPlacement dp64 = place_group(64, 1, 8);
  CHECK_THAT(hierarchical_allreduce_transfer(gb, dp64, nvlink, nic).base(), WithinRel(0.21875 / 50, 1e-12));
  // nccl-tests' bus bandwidth of it: 2 x 63/64 / 4.375 ms = 450.0 GB/s; CoreWeave's 64 H100s measure
  // 386.56 GB/s (NC26), under it.
  CHECK_THAT(hierarchical_bus_bandwidth(dp64, nvlink, nic).base(),
             WithinRel(2.0 * 63 / 64 / (0.21875 / 50) * 1e9, 1e-12));
  // 4 nodes (32 ranks): NVLink binds, max(1.75/450, 0.1875/50) = 3.889 ms, busbw 498.2 GB/s; Voltage
  // Park's 4 x 8 H100s measure 330.93 GB/s, above the 253.6 GB/s the tiers in series would give.
  const GroupPlacement dp32 = place_group(32, 1, 8);
  const double series = 2.0 * 31 / 32 / (1.75 / 450 + 0.1875 / 50) * 1e9;
  CHECK(series < 330.93e9);
  CHECK_THAT(hierarchical_bus_bandwidth(dp32, nvlink, nic).base(),
             WithinRel(2.0 * 31 / 32 / (1.75 / 450) * 1e9, 1e-12));
  CHECK(hierarchical_bus_bandwidth(dp32, nvlink, nic).base() > 330.93e9);
  // One member a node (t = 8, d = 16): the flat ring at the NIC, busbw = B_out.
  const GroupPlacement dp16 = place_group(16, 8, 8);
  CHECK_THAT(hierarchical_allreduce_transfer(gb, dp16, nvlink, nic).base(), WithinRel(2.0 * 15 / 16 / 50, 1e-12));
  CHECK_THAT(hierarchical_bus_bandwidth(dp16, nvlink, nic).base(), WithinRel(50e9, 1e-12));
  // Inside one domain: busbw = B_in (TH05's ring).
  CHECK_THAT(hierarchical_bus_bandwidth(place_group(8, 1, 8), nvlink, nic).base(), WithinRel(450e9, 1e-12));
  CHECK(allreduce_inside_steps(dp64) == 14.0);
  CHECK(allreduce_across_steps(dp64) == 14.0);
}

TEST_CASE("NVLS inside a reducing switch: (k+1)/k M/B_in, taken where it beats the ring [NV22] [NC24] [NC26]",
          "[topology]") {
  const units::BytesPerSecond nvlink{450e9};
  // 8 members: 9/8 of M each way, against the ring's 14/8; busbw 2 x 7/9 x 450 = 700 GB/s.
  CHECK_THAT(switch_allreduce_transfer(units::Bytes{1e9}, 8, nvlink).base(), WithinRel(1.125 / 450, 1e-12));
  CHECK_THAT(switch_bus_bandwidth(8, nvlink).base(), WithinRel(700e9, 1e-12));
  // Two members: 3/2 of M against the ring's 1: NVLS carries less, and the group keeps the ring.
  CHECK(switch_bus_bandwidth(2, nvlink) < nvlink);
  Topology hgx;
  hgx.domain = 8;
  hgx.inside = {LinkKind::scale_up, "NVLink", nvlink};
  hgx.switch_reduction = true;
  const GroupLinks g8 = group_links(hgx, 8, 1, 1.0);
  CHECK(g8.switch_reduces);
  CHECK_THAT(g8.bus_bandwidth.base(), WithinRel(700e9, 1e-12));
  CHECK_FALSE(group_links(hgx, 2, 1, 1.0).switch_reduces);
  // Small messages keep the ring's LL (15 us + 1.75 M/(B/4)); from 766 kB NVLS (25 us + 1.125 M/B) wins.
  const LatencyModel nccl;
  const CollectiveTime small = allreduce_time(hgx, g8, units::Bytes{100e3}, nccl);
  CHECK(small.protocol == "LL");
  CHECK_THAT(small.time.base(), WithinRel(15e-6 + 1.75 * 100e3 / (450e9 / 4), 1e-9));
  const CollectiveTime large = allreduce_time(hgx, g8, units::Bytes{10e6}, nccl);
  CHECK(large.protocol == "NVLS");
  CHECK_THAT(large.time.base(), WithinRel(25e-6 + 1.125 * 10e6 / 450e9, 1e-9));
  // Without a reducing switch (HGX A100), the same group stays a ring.
  hgx.switch_reduction = false;
  CHECK(allreduce_time(hgx, group_links(hgx, 8, 1, 1.0), units::Bytes{10e6}, nccl).protocol == "Simple");
}

TEST_CASE("NCCL's ring protocols: LL for small messages, Simple for large", "[topology]") {
  // 8 ranks in a domain, 14 steps over NVLink [NC24]: LL 6.6 + 14 x 0.6 = 15.0 us, Simple
  // 8.4 + 14 x 3.4 = 56.0 us.
  const CollectiveTime small = nccl_ring_time(units::Seconds{0.0}, 14, LinkKind::scale_up, 0, LinkKind::scale_out);
  CHECK(small.protocol == "LL");
  CHECK_THAT(small.time.base(), WithinRel(15.0e-6, 1e-9));
  // 1 ms of transfer at full bandwidth: LL 15 us + 4 ms, Simple 56 us + 1 ms.
  const CollectiveTime large = nccl_ring_time(units::Seconds{1e-3}, 14, LinkKind::scale_up, 0, LinkKind::scale_out);
  CHECK(large.protocol == "Simple");
  CHECK_THAT(large.time.base(), WithinRel(1.056e-3, 1e-9));
  CHECK_THAT(large.latency.base(), WithinRel(56.0e-6, 1e-9));
  // Two nodes of 8, hierarchical: 14 steps inside and 2 across; LL: 6.6 + 14 x 0.6 + 2 x 2.7 = 20.4 us.
  const CollectiveTime two = nccl_ring_time(units::Seconds{0.0}, 14, LinkKind::scale_up, 2, LinkKind::scale_out);
  CHECK_THAT(two.time.base(), WithinRel(20.4e-6, 1e-9));
  // Over PCIe: LL 6.6 + 14 x 1.0 = 20.6 us.
  CHECK_THAT(nccl_ring_time(units::Seconds{0.0}, 14, LinkKind::pcie, 0, LinkKind::scale_out).time.base(),
             WithinRel(20.6e-6, 1e-9));
  CHECK(nccl_ring_time(units::Seconds{0.0}, 0, LinkKind::pcie, 0, LinkKind::scale_out).time.base() == 0.0);
}

TEST_CASE("all-to-all over domains, torus axes, the interconnect ridge", "[topology]") {
  const units::Bytes gb{1e9};
  // 64 ranks, 8 a domain: 7/64 of M over NVLink, 56/64 over the NIC; the NIC binds (LE21, derived).
  CHECK_THAT(hierarchical_alltoall_transfer(gb, place_group(64, 1, 8), units::BytesPerSecond{450e9},
                                            units::BytesPerSecond{50e9})
                 .base(),
             WithinRel(56.0 / 64 / 50, 1e-12));
  // Inside one domain: (n-1)/n of M at B_in.
  CHECK_THAT(hierarchical_alltoall_transfer(gb, place_group(8, 1, 8), units::BytesPerSecond{450e9},
                                            units::BytesPerSecond{50e9})
                 .base(),
             WithinRel(7.0 / 8 / 450, 1e-12));
  // A 16-chip torus axis at 50 GB/s a link (SCALE25, derived): both directions, 2 x 15/16 / 100 s.
  CHECK_THAT(torus_axis_allreduce_transfer(gb, 16, units::BytesPerSecond{50e9}, true).base(),
             WithinRel(2.0 * 15 / 16 / 100, 1e-12));
  CHECK_THAT(torus_axis_allreduce_transfer(gb, 16, units::BytesPerSecond{50e9}, false).base(),
             WithinRel(2.0 * 15 / 16 / 50, 1e-12));
  // H100 bf16 over NVLink 4 (WI09's ridge on a link): 989.4 TFLOP/s / 450 GB/s = 2,198.7 FLOP/B.
  CHECK_THAT(interconnect_ridge(units::FlopPerSecond{989.4e12}, units::BytesPerSecond{450e9}),
             WithinRel(989.4e12 / 450e9, 1e-12));
  CHECK(interconnect_ridge(units::FlopPerSecond{1e12}, units::BytesPerSecond{0.0}) == 0.0);
}
