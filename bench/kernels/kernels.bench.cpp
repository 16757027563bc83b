// SPDX-License-Identifier: MIT
// Kernel evaluations per second: W and ∇W for Wendland2, Wendland4 and CubicSpline in 2D and
// 3D, float and double, and the same with Dual<double, 1> positions (one tangent direction)
// for the dual/plain cost ratio. Serial loop over pair vectors spread over q ∈ [0, 1.2).
#include <sphad/ad/dual.hpp>
#include <sphad/kernels.hpp>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

using namespace sphad;

namespace {

template <class T, int D>
std::vector<Vec<T, D>> pair_vectors(std::int64_t n) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> uniform(-0.7, 0.7);
  std::vector<Vec<T, D>> x(static_cast<std::size_t>(n));
  for (auto& v : x) {
    for (int a = 0; a < D; ++a) {
      if constexpr (is_dual_v<T>) {
        v[a] = T::variable(uniform(rng), 0);
      } else {
        v[a] = T(uniform(rng));
      }
    }
  }
  return x;
}

template <class K, class T, int D, bool Gradient>
void BM_kernel(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const auto x = pair_vectors<T, D>(n);
  using Out = std::conditional_t<Gradient, Vec<T, D>, T>;
  std::vector<Out> out(x.size());
  const primal_t<T> h(1);
  for (auto _ : state) {
    for (std::size_t i = 0; i < x.size(); ++i) {
      if constexpr (Gradient) {
        out[i] = kernels::gradient<K>(x[i], h);
      } else {
        out[i] = kernels::value<K>(x[i], h);
      }
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.counters["evals/s"] =
      benchmark::Counter(double(n), benchmark::Counter::kIsIterationInvariantRate);
}

template <class K, class T, int D>
void BM_kernel_value(benchmark::State& state) {
  BM_kernel<K, T, D, false>(state);
}
template <class K, class T, int D>
void BM_kernel_gradient(benchmark::State& state) {
  BM_kernel<K, T, D, true>(state);
}

using kernels::CubicSpline;
using kernels::Wendland2;
using kernels::Wendland4;
using D1 = Dual<double, 1>;

} // namespace

#define SPHAD_BENCH_KERNEL(K, T, D)                                                                \
  BENCHMARK_TEMPLATE(BM_kernel_value, K, T, D)->Arg(1 << 10)->Arg(1 << 16);                        \
  BENCHMARK_TEMPLATE(BM_kernel_gradient, K, T, D)->Arg(1 << 10)->Arg(1 << 16)
#define SPHAD_BENCH_KERNEL_ALL_TYPES(K, D)                                                         \
  SPHAD_BENCH_KERNEL(K, float, D);                                                                 \
  SPHAD_BENCH_KERNEL(K, double, D);                                                                \
  SPHAD_BENCH_KERNEL(K, D1, D)

SPHAD_BENCH_KERNEL_ALL_TYPES(Wendland2, 2);
SPHAD_BENCH_KERNEL_ALL_TYPES(Wendland2, 3);
SPHAD_BENCH_KERNEL_ALL_TYPES(Wendland4, 2);
SPHAD_BENCH_KERNEL_ALL_TYPES(Wendland4, 3);
SPHAD_BENCH_KERNEL_ALL_TYPES(CubicSpline, 2);
SPHAD_BENCH_KERNEL_ALL_TYPES(CubicSpline, 3);
