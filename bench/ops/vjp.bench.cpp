// SPDX-License-Identifier: MIT
// Reverse mode (issue #8), the target ratios side by side: the plain `apply`, `record` with
// no Variable (nothing to record), the Density position HVP, the full gradient — `record` of one
// launch plus the backward sweep with positions, supports, masses (and for the field operators
// densities and values) all Variables — and the backward sweep alone (one recording, swept every
// iteration; `backward_pair_slots` the same with the references' adjoints in per-pair slots
// gathered over the entries grouped by reference: CUDA's scheme, `ReferenceSums::pair_slots`).
// Density, Gradient (Difference), Laplacian (Brookshaw) and
// the CRK-corrected Gradient; 2D double, Wendland4, the operator benchmarks' particles, in
// random order (second argument 0) and sorted by cell (1, as a solver keeps them: the
// neighbours of a particle are near it in memory too). The `tape_bytes_per_launch` counter is
// what the tape holds per recorded launch (the output and the list's copy).
#include <sphad/corrections.hpp>
#include <sphad/ops.hpp>

#include "ops/ops.bench.hpp" // OperatorCase

#include <benchmark/benchmark.h>

#include <vector>

using namespace sphad;

namespace {

using Kernel = kernels::Wendland4;
enum Which { density, gradient, laplacian, crk_gradient };
enum Mode {
  primal_call,
  record_untracked,
  full_gradient,
  backward_only,
  backward_pair_slots,
  position_hvp
};

template <Which W, Mode M>
void BM_vjp(benchmark::State& state) {
  const exec::host exec;
  const bench::OperatorCase<2, double> c(state.range(0), bench::Order(state.range(1)));
  const auto n = state.range(0);
  auto x = std::vector<Vec<double, 2>>(c.set.positions.data(), c.set.positions.data() + n);
  auto h = std::vector<double>(c.set.supports.data(), c.set.supports.data() + n);
  auto m = c.mass;
  auto rho = c.density;
  auto f = c.scalar;
  const Variable<Vec<double, 2>> xv(Span<Vec<double, 2>>{x.data(), n});
  const Variable<double> hv(Span<double>{h.data(), n}), mv(Span<double>{m.data(), n}),
      rhov(Span<double>{rho.data(), n}), fv(Span<double>{f.data(), n});
  const auto& set = c.set;
  const auto tracked = set.with_positions(xv).with_supports(hv).with_masses(mv);
  const auto crk = corrections::compute_crk_factors<Kernel>(exec, set, c.cloud.domain, c.list);
  const auto corrections = [&] {
    if constexpr (W == crk_gradient) {
      return ops::Corrections{crk.state()};
    } else {
      return ops::Uncorrected{};
    }
  }();
  using G = ops::Gradient<Kernel, GradientScheme::Difference>;
  using L = ops::Laplacian<Kernel>;
  using Density = ops::Density<Kernel>;
  const auto& domain = c.cloud.domain;
  const ApplyOptions<double> options{};
  const std::vector<double> seed_scalar(std::size_t(n), 1.0);
  const std::vector<Vec<double, 2>> seed_vector(std::size_t(n), Vec<double, 2>{1.0, -0.5});
  const Span<const Vec<double, 2>> direction{seed_vector.data(), n};
  constexpr bool sweep_only = M == backward_only || M == backward_pair_slots;
  Tape<exec::host> tape(exec, TapeOptions{M == backward_pair_slots ? ReferenceSums::pair_slots
                                                                   : ReferenceSums::automatic});
  const auto record_once = [&](const auto& s, const auto& values) {
    if constexpr (W == density) {
      return record<Density>(tape, s, s, domain, c.list);
    } else if constexpr (W == laplacian) {
      return record<L>(tape, s, s, domain, c.list, values, values, options, corrections);
    } else {
      return record<G>(tape, s, s, domain, c.list, values, values, options, corrections);
    }
  };
  const auto seed_of = [&](const auto& y) {
    if constexpr (W == gradient || W == crk_gradient) {
      return Span<const Vec<double, 2>>{seed_vector.data(), y.size()};
    } else {
      return Span<const double>{seed_scalar.data(), y.size()};
    }
  };
  std::int64_t bytes = 0;
  const auto record_tracked = [&] {
    if constexpr (W == density) {
      return record_once(tracked, fv);
    } else {
      return record_once(tracked.with_densities(rhov), fv);
    }
  };
  // backward_only, backward_pair_slots: one recording, swept every iteration.
  const auto recorded = [&] {
    if constexpr (sweep_only) {
      return record_tracked();
    } else {
      return 0;
    }
  }();
  (void)recorded;
  for (auto _ : state) {
    if constexpr (M == primal_call) {
      if constexpr (W == density) {
        benchmark::DoNotOptimize(apply<Density>(exec, set, set, domain, c.list).size());
      } else if constexpr (W == laplacian) {
        benchmark::DoNotOptimize(
            apply<L>(exec, set, set, domain, c.list, c.scalars(), c.scalars(), options, corrections)
                .size());
      } else {
        benchmark::DoNotOptimize(
            apply<G>(exec, set, set, domain, c.list, c.scalars(), c.scalars(), options, corrections)
                .size());
      }
    } else if constexpr (M == position_hvp) {
      static_assert(W == density, "the position HVP is the Density's");
      benchmark::DoNotOptimize(
          density_position_hvp<Kernel>(exec, set, set, domain, c.list, direction, direction)
              .size());
    } else if constexpr (M == record_untracked) {
      tape.clear();
      benchmark::DoNotOptimize(record_once(set, c.scalars()).size());
    } else if constexpr (sweep_only) {
      tape.backward(recorded, seed_of(recorded));
      benchmark::DoNotOptimize(tape.gradient(xv).data());
    } else {
      tape.clear();
      const auto y = record_tracked();
      tape.backward(y, seed_of(y));
      benchmark::DoNotOptimize(tape.gradient(xv).data());
      bytes = tape.bytes();
    }
  }
  bench::rate_counters(state, n, c.list.num_pairs);
  if constexpr (M == full_gradient) {
    state.counters["tape_bytes_per_launch"] = double(bytes);
  }
}

} // namespace

// Arguments n/order: order 0 = particles in random order, 1 = sorted by cell.
#define SPHAD_BENCH_VJP(W, M)                                                                      \
  BENCHMARK_TEMPLATE(BM_vjp, W, M)                                                                 \
      ->ArgsProduct({{1 << 10, 100'000}, {0, 1}})                                                  \
      ->Unit(benchmark::kMillisecond)

SPHAD_BENCH_VJP(density, primal_call);
SPHAD_BENCH_VJP(density, record_untracked);
SPHAD_BENCH_VJP(density, full_gradient);
SPHAD_BENCH_VJP(density, backward_only);
SPHAD_BENCH_VJP(density, backward_pair_slots);
SPHAD_BENCH_VJP(density, position_hvp);
SPHAD_BENCH_VJP(gradient, primal_call);
SPHAD_BENCH_VJP(gradient, record_untracked);
SPHAD_BENCH_VJP(gradient, full_gradient);
SPHAD_BENCH_VJP(gradient, backward_only);
SPHAD_BENCH_VJP(gradient, backward_pair_slots);
SPHAD_BENCH_VJP(laplacian, primal_call);
SPHAD_BENCH_VJP(laplacian, record_untracked);
SPHAD_BENCH_VJP(laplacian, full_gradient);
SPHAD_BENCH_VJP(laplacian, backward_only);
SPHAD_BENCH_VJP(laplacian, backward_pair_slots);
SPHAD_BENCH_VJP(crk_gradient, primal_call);
SPHAD_BENCH_VJP(crk_gradient, record_untracked);
SPHAD_BENCH_VJP(crk_gradient, full_gradient);
SPHAD_BENCH_VJP(crk_gradient, backward_only);
SPHAD_BENCH_VJP(crk_gradient, backward_pair_slots);
