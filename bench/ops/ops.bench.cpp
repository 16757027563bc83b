// SPDX-License-Identifier: MIT
// Operator throughput on the host: every operator over a neighbour list (and Density over the
// grid) for random points in the periodic unit box with ~50 neighbours per particle, float and
// double, 2D and 3D; and the per-call overhead at tiny N.
#include "ops/ops.bench.hpp" // OperatorCase

#include <sphad/ops.hpp>

#include "search/search.bench.hpp" // search_cloud, rate_counters

#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

using namespace sphad;

namespace {

using Kernel = kernels::Wendland4;
enum Which {
  density,
  density_grid,
  interpolate,
  gradient,
  divergence,
  curl,
  laplacian,
  covariance
};

template <Which W, class T, int D>
void BM_operator(benchmark::State& state) {
  const exec::host exec;
  bench::OperatorCase<D, T> c(state.range(0));
  const auto grid = search::build_search_grid<SupportScheme::Gather>(
      exec, c.cloud.points(), c.cloud.points(), c.cloud.domain);
  const auto& s = c.set;
  const auto& domain = c.cloud.domain;
  for (auto _ : state) {
    if constexpr (W == density) {
      benchmark::DoNotOptimize(apply<ops::Density<Kernel>>(exec, s, s, domain, c.list).data());
    } else if constexpr (W == density_grid) {
      benchmark::DoNotOptimize(apply<ops::Density<Kernel>>(exec, s, s, domain, grid).data());
    } else if constexpr (W == interpolate) {
      benchmark::DoNotOptimize(
          apply<ops::Interpolate<Kernel>>(exec, s, s, domain, c.list, c.scalars(), c.scalars())
              .data());
    } else if constexpr (W == gradient) {
      benchmark::DoNotOptimize(apply<ops::Gradient<Kernel, GradientScheme::Difference>>(
                                   exec, s, s, domain, c.list, c.scalars(), c.scalars())
                                   .data());
    } else if constexpr (W == divergence) {
      benchmark::DoNotOptimize(apply<ops::Divergence<Kernel, GradientScheme::Difference>>(
                                   exec, s, s, domain, c.list, c.vectors(), c.vectors())
                                   .data());
    } else if constexpr (W == curl) {
      benchmark::DoNotOptimize(apply<ops::Curl<Kernel, GradientScheme::Difference>>(
                                   exec, s, s, domain, c.list, c.vectors(), c.vectors())
                                   .data());
    } else if constexpr (W == laplacian) {
      benchmark::DoNotOptimize(
          apply<ops::Laplacian<Kernel>>(exec, s, s, domain, c.list, c.scalars(), c.scalars())
              .data());
    } else {
      benchmark::DoNotOptimize(apply<ops::Covariance<Kernel>>(exec, s, s, domain, c.list).data());
    }
  }
  bench::rate_counters(state, state.range(0), c.list.num_pairs);
}

} // namespace

#define SPHAD_BENCH_OPERATOR(W, T, D)                                                              \
  BENCHMARK_TEMPLATE(BM_operator, W, T, D)                                                         \
      ->Arg(1 << 10)                                                                               \
      ->Arg(100'000)                                                                               \
      ->Unit(benchmark::kMillisecond)
#define SPHAD_BENCH_OPERATORS(T, D)                                                                \
  SPHAD_BENCH_OPERATOR(density, T, D);                                                             \
  SPHAD_BENCH_OPERATOR(density_grid, T, D);                                                        \
  SPHAD_BENCH_OPERATOR(interpolate, T, D);                                                         \
  SPHAD_BENCH_OPERATOR(gradient, T, D);                                                            \
  SPHAD_BENCH_OPERATOR(divergence, T, D);                                                          \
  SPHAD_BENCH_OPERATOR(laplacian, T, D);                                                           \
  SPHAD_BENCH_OPERATOR(covariance, T, D)

SPHAD_BENCH_OPERATORS(float, 2);
SPHAD_BENCH_OPERATORS(double, 2);
SPHAD_BENCH_OPERATORS(float, 3);
SPHAD_BENCH_OPERATORS(double, 3);
SPHAD_BENCH_OPERATOR(curl, double, 2);
SPHAD_BENCH_OPERATOR(curl, double, 3);

namespace {
/// The cost of one call with almost no work: N = 100 particles whose supports reach only
/// themselves, so the time is validation, view building and the loop's setup.
struct OverheadCase {
  bench::OperatorCase<2, double> c{100};
  std::vector<double> tiny = std::vector<double>(100, 1e-6);
  ParticleSet<2, double> set = c.set;
  NeighborList<exec::host> self_only;
  std::vector<double> out = std::vector<double>(100);

  OverheadCase() {
    set.supports = {tiny.data(), 100};
    self_only = build_neighbor_list<SupportScheme::Gather>(exec::host{}, set.search_points(),
                                                           set.search_points(), c.cloud.domain);
  }
};

void BM_call_overhead(benchmark::State& state) {
  const exec::host exec;
  OverheadCase o;
  for (auto _ : state) {
    apply_into<ops::Density<Kernel>>(exec, o.set, o.set, o.c.cloud.domain, o.self_only,
                                     Span<const ops::NoField>{}, Span<const ops::NoField>{},
                                     Span<double>{o.out.data(), 100});
    benchmark::DoNotOptimize(o.out.data());
  }
  bench::rate_counters(state, 100, o.self_only.num_pairs);
}

/// The same call through the runtime front end (ops::evaluate_into): validation, the dispatch
/// from OperationProperties and the output-size query on top of the loop.
void BM_call_overhead_runtime(benchmark::State& state) {
  const exec::host exec;
  OverheadCase o;
  OperationProperties properties;
  properties.operation = Operation::Density;
  properties.kernel = Kernel::id;
  for (auto _ : state) {
    ops::evaluate_into<kernels::KernelList<Kernel>, ops::SupportList<SupportScheme::Gather>>(
        exec, properties, o.set, o.set, o.c.cloud.domain, o.self_only, Span<const ops::NoField>{},
        Span<const ops::NoField>{}, Span<double>{o.out.data(), 100});
    benchmark::DoNotOptimize(o.out.data());
  }
  bench::rate_counters(state, 100, o.self_only.num_pairs);
}
} // namespace
BENCHMARK(BM_call_overhead)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_call_overhead_runtime)->Unit(benchmark::kMicrosecond);
