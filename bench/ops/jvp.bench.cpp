// SPDX-License-Identifier: MIT
// Forward mode (issue #7): one `jvp` call next to the plain `apply` of the same operator, with
// tangents on the field values only (value-only JVP), on the positions only (one geometry
// direction), or on positions, supports, masses and densities, in one and four directions;
// without and with a (frozen) CRK state. 2D double, Wendland4, the operator benchmarks'
// particles. Tangents live beside the primal arrays (DualView): nothing is materialized.
#include <sphad/corrections.hpp>
#include <sphad/ops.hpp>

#include "ops/ops.bench.hpp" // OperatorCase

#include <benchmark/benchmark.h>

#include <vector>

using namespace sphad;

namespace {

using Kernel = kernels::Wendland4;
enum Which { density, gradient, laplacian };
enum Mode { plain_call, value_tangents, position_tangents, geometry_tangents };

template <Which W, Mode M, int N, bool WithCRK>
void BM_jvp(benchmark::State& state) {
  const exec::host exec;
  const bench::OperatorCase<2, double> c(state.range(0));
  const auto n = state.range(0);
  const auto size = std::size_t(n);
  // N tangent directions of every input, direction-major.
  std::vector<Vec<double, 2>> dx(N * size);
  std::vector<double> dh(N * size), dm(N * size), drho(N * size), df(N * size);
  for (std::size_t k = 0; k < N * size; ++k) {
    const double s = double(k % 7) - 3.0;
    dx[k] = {1e-3 * s, -2e-3 * s};
    dh[k] = 1e-4 * s;
    dm[k] = 1e-6 * s;
    drho[k] = 1e-2 * s;
    df[k] = s;
  }
  const auto view = [](const auto& v) {
    return Span<const typename std::decay_t<decltype(v)>::value_type>{v.data(),
                                                                      std::int64_t(v.size())};
  };
  const auto& set = c.set;
  const auto positions = set.with_positions(with_tangents<N>(set.positions, view(dx)));
  const auto geometry = positions.with_supports(with_tangents<N>(set.supports, view(dh)))
                            .with_masses(with_tangents<N>(set.masses, view(dm)))
                            .with_densities(with_tangents<N>(set.densities, view(drho)));
  const auto values = with_tangents<N>(c.scalars(), view(df));
  const auto crk = corrections::compute_crk_factors<Kernel>(exec, set, c.cloud.domain, c.list);
  const auto corrections = [&] {
    if constexpr (WithCRK) {
      return ops::Corrections{crk.state()};
    } else {
      return ops::Uncorrected{};
    }
  }();
  const auto& domain = c.cloud.domain;
  const auto run = [&](const auto& s, const auto& f) {
    using G = ops::Gradient<Kernel, GradientScheme::Difference>;
    using L = ops::Laplacian<Kernel>;
    const ApplyOptions<double> options{};
    if constexpr (M == plain_call) {
      if constexpr (W == density) {
        return apply<ops::Density<Kernel>>(exec, s, s, domain, c.list).size();
      } else if constexpr (W == gradient) {
        return apply<G>(exec, s, s, domain, c.list, f, f, options, corrections).size();
      } else {
        return apply<L>(exec, s, s, domain, c.list, f, f, options, corrections).size();
      }
    } else {
      if constexpr (W == density) {
        return jvp<ops::Density<Kernel>>(exec, s, s, domain, c.list).tangents.size();
      } else if constexpr (W == gradient) {
        return jvp<G>(exec, s, s, domain, c.list, f, f, options, corrections).tangents.size();
      } else {
        return jvp<L>(exec, s, s, domain, c.list, f, f, options, corrections).tangents.size();
      }
    }
  };
  for (auto _ : state) {
    if constexpr (M == plain_call) {
      benchmark::DoNotOptimize(run(set, c.scalars()));
    } else if constexpr (M == value_tangents) {
      benchmark::DoNotOptimize(run(set, values));
    } else if constexpr (M == position_tangents) {
      benchmark::DoNotOptimize(run(positions, c.scalars()));
    } else {
      benchmark::DoNotOptimize(run(geometry, c.scalars()));
    }
  }
  bench::rate_counters(state, n, c.list.num_pairs);
}

} // namespace

#define SPHAD_BENCH_JVP(W, M, N, CRK)                                                              \
  BENCHMARK_TEMPLATE(BM_jvp, W, M, N, CRK)                                                         \
      ->Arg(1 << 10)                                                                               \
      ->Arg(100'000)                                                                               \
      ->Unit(benchmark::kMillisecond)

SPHAD_BENCH_JVP(density, plain_call, 1, false);
SPHAD_BENCH_JVP(density, position_tangents, 1, false);
SPHAD_BENCH_JVP(density, position_tangents, 4, false);
SPHAD_BENCH_JVP(density, geometry_tangents, 1, false);
SPHAD_BENCH_JVP(gradient, plain_call, 1, false);
SPHAD_BENCH_JVP(gradient, value_tangents, 1, false);
SPHAD_BENCH_JVP(gradient, value_tangents, 4, false);
SPHAD_BENCH_JVP(gradient, position_tangents, 1, false);
SPHAD_BENCH_JVP(gradient, position_tangents, 4, false);
SPHAD_BENCH_JVP(gradient, geometry_tangents, 1, false);
SPHAD_BENCH_JVP(laplacian, plain_call, 1, false);
SPHAD_BENCH_JVP(laplacian, value_tangents, 1, false);
SPHAD_BENCH_JVP(laplacian, value_tangents, 4, false);
SPHAD_BENCH_JVP(laplacian, position_tangents, 1, false);
SPHAD_BENCH_JVP(laplacian, position_tangents, 4, false);
SPHAD_BENCH_JVP(laplacian, geometry_tangents, 1, false);
SPHAD_BENCH_JVP(gradient, plain_call, 1, true);
SPHAD_BENCH_JVP(gradient, value_tangents, 1, true);
SPHAD_BENCH_JVP(gradient, position_tangents, 1, true);
SPHAD_BENCH_JVP(laplacian, plain_call, 1, true);
SPHAD_BENCH_JVP(laplacian, value_tangents, 1, true);
SPHAD_BENCH_JVP(laplacian, position_tangents, 1, true);
