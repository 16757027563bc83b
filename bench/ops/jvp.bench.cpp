// SPDX-License-Identifier: MIT
// Forward mode through dual scalars as it stands (issue #7 in progress): the cost of one
// operator call with dual field values (value-only JVP: geometry stays plain) and with a fully
// dual particle set (geometry JVP: positions, supports, masses and densities all dual), in one
// and four directions, next to the plain call. 2D double, Wendland4, the operator benchmarks'
// particles.
#include <sphad/ad/dual.hpp>
#include <sphad/ops.hpp>

#include "ops/ops.bench.hpp" // OperatorCase

#include <benchmark/benchmark.h>

#include <vector>

using namespace sphad;

namespace {

using Kernel = kernels::Wendland4;
enum Which { density, gradient, laplacian };
enum Mode { plain_call, dual_values, dual_geometry };

template <int N>
Dual<double, N> seeded(double value, double scale) {
  Dual<double, N> d(value);
  for (int k = 0; k < N; ++k) {
    d.tangent[k] = scale * (k + 1);
  }
  return d;
}

template <Which W, Mode M, int N>
void BM_jvp(benchmark::State& state) {
  const exec::host exec;
  const bench::OperatorCase<2, double> c(state.range(0));
  using Dn = Dual<double, N>;
  const auto n = std::size_t(state.range(0));
  // Dual copies of the geometry and the field, tangents seeded in every direction.
  std::vector<Vec<Dn, 2>> x(n);
  std::vector<Dn> h(n), m(n), rho(n), f(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = {seeded<N>(c.cloud.x[i][0], 1e-3), seeded<N>(c.cloud.x[i][1], -1e-3)};
    h[i] = seeded<N>(c.set.supports[std::int64_t(i)], 1e-4);
    m[i] = seeded<N>(c.mass[i], 1e-6);
    rho[i] = seeded<N>(c.density[i], 1e-2);
    f[i] = seeded<N>(c.scalar[i], 1.0);
  }
  const auto sn = std::int64_t(n);
  const ParticleSet<2, Dn> dual_set{
      {x.data(), sn}, {h.data(), sn}, {m.data(), sn}, c.set.kinds, {rho.data(), sn}};
  const Span<const Dn> dual_f{f.data(), sn};
  const auto& domain = c.cloud.domain;
  const auto run = [&](const auto& s, auto values) {
    if constexpr (W == density) {
      return apply<ops::Density<Kernel>>(exec, s, s, domain, c.list).size();
    } else if constexpr (W == gradient) {
      return apply<ops::Gradient<Kernel, GradientScheme::Difference>>(exec, s, s, domain, c.list,
                                                                      values, values)
          .size();
    } else {
      return apply<ops::Laplacian<Kernel>>(exec, s, s, domain, c.list, values, values).size();
    }
  };
  for (auto _ : state) {
    if constexpr (M == plain_call) {
      benchmark::DoNotOptimize(run(c.set, c.scalars()));
    } else if constexpr (M == dual_values) {
      benchmark::DoNotOptimize(run(c.set, dual_f));
    } else {
      benchmark::DoNotOptimize(run(dual_set, dual_f));
    }
  }
  bench::rate_counters(state, state.range(0), c.list.num_pairs);
}

} // namespace

#define SPHAD_BENCH_JVP(W, M, N)                                                                   \
  BENCHMARK_TEMPLATE(BM_jvp, W, M, N)->Arg(1 << 10)->Arg(100'000)->Unit(benchmark::kMillisecond)

SPHAD_BENCH_JVP(density, plain_call, 1);
SPHAD_BENCH_JVP(density, dual_geometry, 1);
SPHAD_BENCH_JVP(density, dual_geometry, 4);
SPHAD_BENCH_JVP(gradient, plain_call, 1);
SPHAD_BENCH_JVP(gradient, dual_values, 1);
SPHAD_BENCH_JVP(gradient, dual_values, 4);
SPHAD_BENCH_JVP(gradient, dual_geometry, 1);
SPHAD_BENCH_JVP(gradient, dual_geometry, 4);
SPHAD_BENCH_JVP(laplacian, plain_call, 1);
SPHAD_BENCH_JVP(laplacian, dual_values, 1);
SPHAD_BENCH_JVP(laplacian, dual_values, 4);
SPHAD_BENCH_JVP(laplacian, dual_geometry, 1);
SPHAD_BENCH_JVP(laplacian, dual_geometry, 4);
