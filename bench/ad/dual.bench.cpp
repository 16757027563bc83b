// SPDX-License-Identifier: MIT
// Dual-number arithmetic throughput against plain double on a kernel-like polynomial: the
// Wendland-4 shape (1 − q)₊⁶ (1 + 6q + 35/3 q²), one evaluation per element, serial.
#include <sphad/ad/dual.hpp>
#include <sphad/math/scalar.hpp>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

using namespace sphad;

namespace {

template <class T>
T wendland4_shape(const T& q) {
  const T t = sphad::max(1.0 - q, 0.0);
  const T t2 = t * t;
  return t2 * t2 * t2 * (1.0 + 6.0 * q + (35.0 / 3.0) * q * q);
}

template <class T>
T seeded(double q) {
  if constexpr (is_dual_v<T>) {
    T x(q);
    for (int k = 0; k < T::tangent_count; ++k) {
      x.tangent[k] = 1.0 + k; // a tangent in every direction
    }
    return x;
  } else {
    return T(q);
  }
}

template <class T>
void BM_dual_polynomial(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  std::vector<T> q(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    q[std::size_t(i)] = seeded<T>(1.2 * double(i) / double(n)); // some beyond the support
  }
  std::vector<T> w(q.size());
  for (auto _ : state) {
    for (std::size_t i = 0; i < q.size(); ++i) {
      w[i] = wendland4_shape(q[i]);
    }
    benchmark::DoNotOptimize(w.data());
    benchmark::ClobberMemory();
  }
  state.counters["evals/s"] =
      benchmark::Counter(double(n), benchmark::Counter::kIsIterationInvariantRate);
}

} // namespace

BENCHMARK_TEMPLATE(BM_dual_polynomial, double)->Arg(1 << 10)->Arg(1 << 16);
BENCHMARK_TEMPLATE(BM_dual_polynomial, Dual<double, 1>)->Arg(1 << 10)->Arg(1 << 16);
BENCHMARK_TEMPLATE(BM_dual_polynomial, Dual<double, 4>)->Arg(1 << 10)->Arg(1 << 16);
