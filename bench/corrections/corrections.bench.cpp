// SPDX-License-Identifier: MIT
// The correction pipelines on the host — CRK factors (three launches), renormalization matrices
// and Ω — next to one Density on the same list and particles, so their cost reads as a ratio.
#include <sphad/corrections.hpp>

#include "ops/ops.bench.hpp" // OperatorCase

#include <benchmark/benchmark.h>

using namespace sphad;

namespace {

using Kernel = kernels::Wendland4;
enum Pipeline { density_on_same_list, crk_factors, renormalization, omegas };

template <Pipeline P, class T, int D>
void BM_correction(benchmark::State& state) {
  const exec::host exec;
  const bench::OperatorCase<D, T> c(state.range(0));
  const auto& s = c.set;
  const auto& domain = c.cloud.domain;
  for (auto _ : state) {
    if constexpr (P == density_on_same_list) {
      benchmark::DoNotOptimize(apply<ops::Density<Kernel>>(exec, s, s, domain, c.list).data());
    } else if constexpr (P == crk_factors) {
      benchmark::DoNotOptimize(
          corrections::compute_crk_factors<Kernel>(exec, s, domain, c.list).a.data());
    } else if constexpr (P == renormalization) {
      benchmark::DoNotOptimize(
          corrections::compute_renormalization<Kernel>(exec, s, s, domain, c.list).matrices.data());
    } else {
      benchmark::DoNotOptimize(corrections::compute_omegas<Kernel>(exec, s, domain, c.list).data());
    }
  }
  bench::rate_counters(state, state.range(0), c.list.num_pairs);
}

} // namespace

#define SPHAD_BENCH_CORRECTION(P, T, D)                                                            \
  BENCHMARK_TEMPLATE(BM_correction, P, T, D)                                                       \
      ->Arg(1 << 10)                                                                               \
      ->Arg(100'000)                                                                               \
      ->Unit(benchmark::kMillisecond)
#define SPHAD_BENCH_CORRECTIONS(T, D)                                                              \
  SPHAD_BENCH_CORRECTION(density_on_same_list, T, D);                                              \
  SPHAD_BENCH_CORRECTION(crk_factors, T, D);                                                       \
  SPHAD_BENCH_CORRECTION(renormalization, T, D);                                                   \
  SPHAD_BENCH_CORRECTION(omegas, T, D)

SPHAD_BENCH_CORRECTIONS(double, 2);
SPHAD_BENCH_CORRECTIONS(double, 3);
SPHAD_BENCH_CORRECTIONS(float, 3);
