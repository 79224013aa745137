// The engine's searches against their plain definitions, over every model preset: the longest
// context by bisection over [1, 2^40], and the compute-bound batch by doubling then bisection.
// The engine starts from an estimate and stops early (a sweep calls them at every point); the
// answers must not change.
#include "io/preset_registry.hpp"

#include "roofline/decode.hpp"
#include "roofline/memory.hpp"
#include "roofline/params.hpp"

#include <catch2/catch.hpp>

#include <sstream>

using namespace roofline;

namespace {

std::int64_t max_context_by_bisection(const ModelConfig& m, units::Bytes free, std::int64_t batch, double b) {
  const auto fits = [&](std::int64_t t) {
    return static_cast<double>(batch) * kv_bytes_per_sequence(m, static_cast<double>(t), b).base() <= free.base();
  };
  constexpr std::int64_t kCap = std::int64_t{1} << 40;
  if (batch <= 0 || !fits(1)) return 0;
  if (fits(kCap)) return kCap;
  std::int64_t lo = 1;
  std::int64_t hi = kCap;
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

std::optional<std::int64_t> compute_bound_batch_by_doubling(const ModelConfig& m, const ParamCounts& c, Workload w,
                                                            Machine hw) {
  const auto compute_bound = [&](std::int64_t b) {
    w.batch = b;
    return decode_step(m, c, w, hw).bound == Bound::compute;
  };
  std::int64_t hi = 1;
  while (hi < (std::int64_t{1} << 30) && !compute_bound(hi)) hi *= 2;
  if (!compute_bound(hi)) return std::nullopt;
  std::int64_t lo = hi / 2;
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    (compute_bound(mid) ? hi : lo) = mid;
  }
  return hi;
}

}  // namespace

TEST_CASE("the longest context and the compute-bound batch equal their plain searches", "[decode][memory]") {
  const io::PresetRegistry reg({});
  std::istringstream in;
  for (const io::PresetEntry* e : reg.entries(io::PresetKind::model)) {
    const ModelConfig m = reg.load_model(e->name, in).config;
    const ParamCounts c = count_params(m);
    for (const double free : {1e6, 3.3e9, 7.1e10, 1.5e12, 1e18}) {
      for (const std::int64_t batch : {1, 3, 64, 1000, 1 << 20}) {
        for (const double b : {2.0, 1.0, 0.5}) {
          INFO(e->name << " free " << free << " batch " << batch << " b " << b);
          CHECK(max_context(m, units::Bytes{free}, batch, b) ==
                max_context_by_bisection(m, units::Bytes{free}, batch, b));
        }
      }
    }
    for (const double peak : {1e14, 989.4e12, 5e15}) {
      for (const std::int64_t context : {0, 1, 100, 4096, 131072}) {
        Workload w;
        w.context = context;
        const Machine hw{units::FlopPerSecond{peak}, units::BytesPerSecond{3.35e12}};
        INFO(e->name << " peak " << peak << " context " << context);
        CHECK(decode_compute_bound_batch(m, c, w, hw) == compute_bound_batch_by_doubling(m, c, w, hw));
      }
    }
  }
}
