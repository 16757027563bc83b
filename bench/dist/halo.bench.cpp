// SPDX-License-Identifier: MIT
// The halo and migration on this run's ranks: a jittered 2D lattice of N particles in a periodic
// unit box over recursive bisection, halo width 3 spacings (the example's support). Plan builds,
// gathers, their transposes and migrations, per call; counters give this rank's ghosts and the
// bytes it receives per gather of positions.
#include <sphad/dist.hpp>

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace {

using namespace sphad;
using V2 = Vec<double, 2>;

/// This rank's share of a side × side lattice, the decomposition, and the halo width.
struct Setup {
  dist::Communicator comm;
  Domain<2, double> domain{V2::filled(0.0), V2::filled(1.0), {true, true}};
  dist::Decomposition<2, double> decomposition;
  std::vector<V2> owned;
  double width;

  explicit Setup(std::int64_t n) {
    const int side = int(std::lround(std::sqrt(double(n))));
    std::vector<V2> all;
    for (int j = 0; j < side; ++j) {
      for (int i = 0; i < side; ++i) {
        all.push_back({(i + 0.5 + 0.15 * std::sin(12.9898 * i + 78.233 * j)) / side,
                       (j + 0.5 + 0.15 * std::cos(39.3468 * i + 11.135 * j)) / side});
      }
    }
    std::vector<V2> offered;
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (int(i % std::size_t(comm.size())) == comm.rank()) {
        offered.push_back(all[i]);
      }
    }
    decomposition =
        dist::bisection(comm, domain, Span<const V2>{offered.data(), std::int64_t(offered.size())});
    for (const auto& p : all) {
      if (decomposition.owner(p) == comm.rank()) {
        owned.push_back(p);
      }
    }
    width = 3.0 / side;
  }
  Span<const V2> view() const { return {owned.data(), std::int64_t(owned.size())}; }
  dist::HaloPlan<exec::host> plan() const {
    return dist::HaloPlan<exec::host>(comm, exec::host{}, decomposition, view(), width);
  }
};

void counters(benchmark::State& state, const dist::HaloPlan<exec::host>& plan) {
  state.counters["owned"] = double(plan.owned());
  state.counters["ghosts"] = double(plan.ghosts());
  state.counters["bytes_in"] = double(plan.ghosts() * std::int64_t(sizeof(V2)));
}

void BM_HaloPlan(benchmark::State& state) {
  const Setup s(state.range(0));
  for (auto _ : state) {
    benchmark::DoNotOptimize(s.plan());
  }
  counters(state, s.plan());
}

void BM_HaloGather(benchmark::State& state) {
  const Setup s(state.range(0));
  const auto plan = s.plan();
  std::vector<V2> extended(static_cast<std::size_t>(plan.extended()));
  for (auto _ : state) {
    dist::halo_gather(exec::host{}, plan, s.view(), Span<V2>{extended.data(), plan.extended()});
    benchmark::DoNotOptimize(extended.data());
  }
  counters(state, plan);
}

void BM_HaloScatterAdd(benchmark::State& state) {
  const Setup s(state.range(0));
  const auto plan = s.plan();
  const std::vector<V2> extended(static_cast<std::size_t>(plan.extended()), V2{1.0, 2.0});
  std::vector<V2> owned(s.owned.size());
  for (auto _ : state) {
    dist::halo_scatter_add(exec::host{}, plan, Span<const V2>{extended.data(), plan.extended()},
                           Span<V2>{owned.data(), plan.owned()});
    benchmark::DoNotOptimize(owned.data());
  }
  counters(state, plan);
}

/// A migration after every particle moved by a third of the box along x (most change rank).
void BM_Migrate(benchmark::State& state) {
  const Setup s(state.range(0));
  std::vector<V2> moved = s.owned;
  for (auto& p : moved) {
    p[0] += 1.0 / 3;
  }
  const Span<const V2> view{moved.data(), std::int64_t(moved.size())};
  for (auto _ : state) {
    const dist::MigrationPlan<exec::host> plan(s.comm, exec::host{}, s.decomposition, view);
    benchmark::DoNotOptimize(dist::migrate(exec::host{}, plan, view));
  }
  state.counters["particles"] = double(moved.size());
}

// A fixed iteration count: every call is collective, so the ranks must run the same number.
BENCHMARK(BM_HaloPlan)
    ->Arg(1024)
    ->Arg(16384)
    ->Arg(65536)
    ->Iterations(20)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_HaloGather)
    ->Arg(1024)
    ->Arg(16384)
    ->Arg(65536)
    ->Iterations(200)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_HaloScatterAdd)
    ->Arg(1024)
    ->Arg(16384)
    ->Arg(65536)
    ->Iterations(200)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Migrate)
    ->Arg(1024)
    ->Arg(16384)
    ->Arg(65536)
    ->Iterations(20)
    ->Unit(benchmark::kMicrosecond);

} // namespace
