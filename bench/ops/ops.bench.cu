// SPDX-License-Identifier: MIT
// Operators and reverse mode on the CUDA space: the primal Density, Gradient and Laplacian over
// a neighbour list (the target: Density's bytes per pair against the memory roofline),
// the full reverse gradient of Density and Gradient beside their primal, and the host cost of
// one call (what the caller's thread spends enqueueing it). The particles are the operator
// benchmarks' (random points in the periodic unit box, ~50 neighbours each), sorted by cell
// as a solver keeps them; lists are built on the device. Times are CUDA-fenced wall times.
#include <sphad/exec/cuda.hpp>
#include <sphad/ops.hpp>

#include "exec/primitives.bench.hpp" // timed, upload
#include "search/search.bench.hpp"   // search_cloud, rate_counters

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <vector>

using namespace sphad;
using CudaSpace = exec::cuda; // `cuda` alone names CCCL's namespace

namespace {

using Kernel = kernels::Wendland4;

/// The operator benchmarks' particles on the device: unit total mass, densities from Density,
/// the scalar field x² + y (or z).
template <int D, class T>
struct DeviceCase {
  CudaSpace exec{};
  bench::SearchCloud<D, T, CudaSpace> cloud;
  Buffer<T, CudaSpace> mass, density, scalar;
  Buffer<std::int32_t, CudaSpace> kinds;
  NeighborList<CudaSpace> list;
  ParticleSet<D, T> set;

  explicit DeviceCase(std::int64_t n)
      : cloud(bench::search_cloud<D, T>(CudaSpace{}, n, bench::Order::cells)),
        mass(bench::upload(exec, std::vector<T>(std::size_t(n), T(1.0 / double(n))))),
        kinds(bench::upload(exec, std::vector<std::int32_t>(std::size_t(n), 0))) {
    list = build_neighbor_list<SupportScheme::Gather>(exec, cloud.points(), cloud.points(),
                                                      cloud.domain);
    set = {cloud.points().positions, cloud.points().supports, {mass.data(), n}, {kinds.data(), n}};
    density = apply<ops::Density<Kernel>>(exec, set, set, cloud.domain, list);
    set.densities = {density.data(), n};
    std::vector<T> f;
    for (const auto& x : exec::to_host(exec, cloud.x.data(), n)) {
      f.push_back(x[0] * x[0] + x[D - 1]);
    }
    scalar = bench::upload(exec, f);
  }
  Span<const T> scalars() const { return {scalar.data(), scalar.size()}; }
};

enum Which { density, gradient, laplacian };

/// Bytes one Density pass must move at least: each pair's int32 index, and per particle its
/// position, support and mass read once, the output written once (the roofline).
template <int D, class T>
double density_bytes(std::int64_t n, std::int64_t pairs) {
  return 4.0 * double(pairs) + double(n) * double(sizeof(Vec<T, D>) + 3 * sizeof(T));
}

template <Which W, class T, int D>
void BM_device_operator(benchmark::State& state) {
  const DeviceCase<D, T> c(state.range(0));
  const auto& s = c.set;
  const auto& domain = c.cloud.domain;
  const auto n = state.range(0);
  Buffer<T, CudaSpace> scalar_out(c.exec, n);
  Buffer<Vec<T, D>, CudaSpace> vector_out(c.exec, n);
  const auto none = Span<const ops::NoField>{};
  for (auto _ : state) {
    state.SetIterationTime(bench::timed(c.exec, [&] {
      if constexpr (W == density) {
        apply_into<ops::Density<Kernel>>(c.exec, s, s, domain, c.list, none, none,
                                         Span<T>{scalar_out.data(), n});
      } else if constexpr (W == gradient) {
        apply_into<ops::Gradient<Kernel, GradientScheme::Difference>>(
            c.exec, s, s, domain, c.list, c.scalars(), c.scalars(),
            Span<Vec<T, D>>{vector_out.data(), n});
      } else {
        apply_into<ops::Laplacian<Kernel>>(c.exec, s, s, domain, c.list, c.scalars(), c.scalars(),
                                           Span<T>{scalar_out.data(), n});
      }
    }));
  }
  bench::rate_counters(state, n, c.list.num_pairs);
  if constexpr (W == density) {
    state.counters["roofline_bytes/s"] = benchmark::Counter(
        density_bytes<D, T>(n, c.list.num_pairs), benchmark::Counter::kIsIterationInvariantRate);
  }
}

enum Mode { primal_call, record_tracked, backward_only, full_gradient };

/// Density or Gradient (Difference) in 2D double: the plain call; `record` with positions,
/// supports, masses (and the Gradient's densities and values) all Variables; the backward of
/// one such recording, swept every iteration; and the two together (the full gradient).
template <Which W, Mode M>
void BM_device_vjp(benchmark::State& state) {
  DeviceCase<2, double> c(state.range(0));
  const auto n = state.range(0);
  const auto& domain = c.cloud.domain;
  const Variable<Vec<double, 2>> xv(Span<Vec<double, 2>>{c.cloud.x.data(), n});
  const Variable<double> hv(Span<double>{c.cloud.h.data(), n}), mv(Span<double>{c.mass.data(), n}),
      rhov(Span<double>{c.density.data(), n}), fv(Span<double>{c.scalar.data(), n});
  const auto tracked = c.set.with_positions(xv).with_supports(hv).with_masses(mv);
  const auto seed_scalar = bench::upload(c.exec, std::vector<double>(std::size_t(n), 1.0));
  const auto seed_vector =
      bench::upload(c.exec, std::vector<Vec<double, 2>>(std::size_t(n), Vec<double, 2>{1, -0.5}));
  using G = ops::Gradient<Kernel, GradientScheme::Difference>;
  Tape<CudaSpace> tape(c.exec);
  const auto record_once = [&] {
    if constexpr (W == density) {
      return record<ops::Density<Kernel>>(tape, tracked, tracked, domain, c.list);
    } else {
      const auto s = tracked.with_densities(rhov);
      return record<G>(tape, s, s, domain, c.list, fv, fv);
    }
  };
  const auto backward = [&](const auto& y) {
    if constexpr (W == density) {
      tape.backward(y, Span<const double>{seed_scalar.data(), n});
    } else {
      tape.backward(y, Span<const Vec<double, 2>>{seed_vector.data(), n});
    }
  };
  const auto recorded = record_once(); // backward_only sweeps this one
  for (auto _ : state) {
    state.SetIterationTime(bench::timed(c.exec, [&] {
      if constexpr (M == primal_call && W == density) {
        benchmark::DoNotOptimize(
            apply<ops::Density<Kernel>>(c.exec, c.set, c.set, domain, c.list).data());
      } else if constexpr (M == primal_call) {
        benchmark::DoNotOptimize(
            apply<G>(c.exec, c.set, c.set, domain, c.list, c.scalars(), c.scalars()).data());
      } else if constexpr (M == backward_only) {
        backward(recorded);
      } else {
        tape.clear();
        const auto y = record_once();
        if constexpr (M == full_gradient) {
          backward(y);
        }
      }
    }));
  }
  bench::rate_counters(state, n, c.list.num_pairs);
}

/// The caller's thread per Density call on 100 particles whose supports reach only themselves:
/// validation, view building and the launch, not waiting for the kernel (fenced untimed).
void BM_device_call_overhead(benchmark::State& state) {
  const CudaSpace exec{};
  const std::int64_t n = 100;
  const auto cloud = bench::search_cloud<2, double>(exec, n);
  const auto tiny = bench::upload(exec, std::vector<double>(std::size_t(n), 1e-6));
  const auto mass = bench::upload(exec, std::vector<double>(std::size_t(n), 0.01));
  const auto kinds = bench::upload(exec, std::vector<std::int32_t>(std::size_t(n), 0));
  const ParticleSet<2, double> set{
      cloud.points().positions, {tiny.data(), n}, {mass.data(), n}, {kinds.data(), n}};
  const auto self_only = build_neighbor_list<SupportScheme::Gather>(
      exec, set.search_points(), set.search_points(), cloud.domain);
  Buffer<double, CudaSpace> out(exec, n);
  const auto none = Span<const ops::NoField>{};
  for (auto _ : state) {
    exec::fence(exec);
    const auto start = std::chrono::steady_clock::now();
    apply_into<ops::Density<Kernel>>(exec, set, set, cloud.domain, self_only, none, none,
                                     Span<double>{out.data(), n});
    state.SetIterationTime(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  exec::fence(exec);
  bench::rate_counters(state, n, self_only.num_pairs);
}

} // namespace

#define SPHAD_BENCH_DEVICE_OPERATOR(W, T, D)                                                       \
  BENCHMARK_TEMPLATE(BM_device_operator, W, T, D)                                                  \
      ->Arg(1 << 10)                                                                               \
      ->Arg(1'000'000)                                                                             \
      ->UseManualTime()                                                                            \
      ->Unit(benchmark::kMillisecond)

SPHAD_BENCH_DEVICE_OPERATOR(density, float, 2);
SPHAD_BENCH_DEVICE_OPERATOR(density, float, 3);
SPHAD_BENCH_DEVICE_OPERATOR(density, double, 2);
SPHAD_BENCH_DEVICE_OPERATOR(gradient, double, 2);
SPHAD_BENCH_DEVICE_OPERATOR(laplacian, double, 2);

#define SPHAD_BENCH_DEVICE_VJP(W, M)                                                               \
  BENCHMARK_TEMPLATE(BM_device_vjp, W, M)                                                          \
      ->Arg(1 << 10)                                                                               \
      ->Arg(1'000'000)                                                                             \
      ->UseManualTime()                                                                            \
      ->Unit(benchmark::kMillisecond)

SPHAD_BENCH_DEVICE_VJP(density, primal_call);
SPHAD_BENCH_DEVICE_VJP(density, record_tracked);
SPHAD_BENCH_DEVICE_VJP(density, backward_only);
SPHAD_BENCH_DEVICE_VJP(density, full_gradient);
SPHAD_BENCH_DEVICE_VJP(gradient, primal_call);
SPHAD_BENCH_DEVICE_VJP(gradient, record_tracked);
SPHAD_BENCH_DEVICE_VJP(gradient, backward_only);
SPHAD_BENCH_DEVICE_VJP(gradient, full_gradient);

BENCHMARK(BM_device_call_overhead)->UseManualTime()->Unit(benchmark::kMicrosecond);
