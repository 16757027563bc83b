// SPDX-License-Identifier: MIT
// The host pair loops' costs, built to compare compiler flags (issue #27): the plain call, the
// JVP with one position direction and the full reverse pass with the positions tracked (record
// plus backward) of Density, Gradient (Difference and Symmetric) and Laplacian (Brookshaw), and one
// neighbour-list build (fresh, and over the previous list's memory) next to one Density over
// it, in 2D and 3D; double, Wendland4, Gather,
// particles sorted by cell (as a solver keeps them). The same source builds
// `sphad_bench_pairs_v3` (-march=x86-64-v3) and `sphad_bench_pairs_native` (-march=native)
// with SPHAD_BENCH_ARCH_VARIANTS. Under callgrind (`scripts/pair-costs.sh`) each benchmark
// counts the instructions of exactly one warm call and names the dump with its pair count:
// instructions per pair, deterministic where this machine's clock is not.
#include <sphad/ops.hpp>

#include "ops/ops.bench.hpp" // OperatorCase

#include <benchmark/benchmark.h>
#include <valgrind/callgrind.h>

#include <string>
#include <vector>

using namespace sphad;

namespace {

using Kernel = kernels::Wendland4;
enum Which { density, gradient, laplacian, symmetric };
enum Mode { plain_call, position_jvp, position_reverse };

constexpr const char* which_names[] = {"density", "gradient", "laplacian", "symmetric"};
constexpr const char* mode_names[] = {"plain_call", "position_jvp", "position_reverse"};

/// Runs `call` once uninstrumented (warm), then once with callgrind's instrumentation on and
/// dumps the counts as "pair_cost <name>/<n> pairs=<pairs>" (nothing outside callgrind).
template <class Call>
void count_one_call(const std::string& name, std::int64_t n, std::int64_t pairs, const Call& call) {
  if (RUNNING_ON_VALGRIND) {
    call();
    CALLGRIND_START_INSTRUMENTATION;
    call();
    CALLGRIND_STOP_INSTRUMENTATION;
    const std::string dump = "pair_cost " + name + "/" + std::to_string(static_cast<long long>(n)) +
                             " pairs=" + std::to_string(static_cast<long long>(pairs));
    CALLGRIND_DUMP_STATS_AT(dump.c_str());
  }
}

template <Which W, Mode M>
void BM_pair_cost(benchmark::State& state) {
  const exec::host exec;
  const bench::OperatorCase<2, double> c(state.range(0), bench::Order::cells);
  const auto n = state.range(0);
  const auto& set = c.set;
  const auto& domain = c.cloud.domain;
  using G = ops::Gradient<Kernel, GradientScheme::Difference>;
  using GS = ops::Gradient<Kernel, GradientScheme::Symmetric>;
  using L = ops::Laplacian<Kernel>;
  using Density = ops::Density<Kernel>;
  const ApplyOptions<double> options{};
  // One position direction (JVP) and the seeds of the reverse pass.
  std::vector<Vec<double, 2>> dx(static_cast<std::size_t>(n));
  for (std::size_t k = 0; k < dx.size(); ++k) {
    const double s = double(k % 7) - 3.0;
    dx[k] = {1e-3 * s, -2e-3 * s};
  }
  const std::vector<double> seed_scalar(static_cast<std::size_t>(n), 1.0);
  const std::vector<Vec<double, 2>> seed_vector(static_cast<std::size_t>(n), {1.0, -0.5});
  auto x = std::vector<Vec<double, 2>>(set.positions.data(), set.positions.data() + n);
  const Variable<Vec<double, 2>> xv(Span<Vec<double, 2>>{x.data(), n});
  Tape<exec::host> tape(exec);
  const auto call_with = [&](const auto& s) {
    const auto f = c.scalars();
    if constexpr (W == density) {
      return apply<Density>(exec, s, s, domain, c.list);
    } else if constexpr (W == gradient) {
      return apply<G>(exec, s, s, domain, c.list, f, f, options);
    } else if constexpr (W == symmetric) {
      return apply<GS>(exec, s, s, domain, c.list, f, f, options);
    } else {
      return apply<L>(exec, s, s, domain, c.list, f, f, options);
    }
  };
  const auto call = [&] {
    if constexpr (M == plain_call) {
      benchmark::DoNotOptimize(call_with(set).data());
    } else if constexpr (M == position_jvp) {
      const auto s = set.with_positions(
          with_tangents<1>(set.positions, Span<const Vec<double, 2>>{dx.data(), n}));
      benchmark::DoNotOptimize(call_with(s).data());
    } else {
      tape.clear();
      const auto s = set.with_positions(xv);
      const auto f = c.scalars();
      if constexpr (W == density) {
        const auto y = record<Density>(tape, s, s, domain, c.list);
        tape.backward(y, Span<const double>{seed_scalar.data(), n});
      } else if constexpr (W == gradient) {
        const auto y = record<G>(tape, s, s, domain, c.list, f, f, options);
        tape.backward(y, Span<const Vec<double, 2>>{seed_vector.data(), n});
      } else if constexpr (W == symmetric) {
        const auto y = record<GS>(tape, s, s, domain, c.list, f, f, options);
        tape.backward(y, Span<const Vec<double, 2>>{seed_vector.data(), n});
      } else {
        const auto y = record<L>(tape, s, s, domain, c.list, f, f, options);
        tape.backward(y, Span<const double>{seed_scalar.data(), n});
      }
      benchmark::DoNotOptimize(tape.gradient(xv).data());
    }
  };
  count_one_call(std::string(which_names[W]) + "/" + mode_names[M], n, c.list.num_pairs, call);
  for (auto _ : state) {
    call();
  }
  bench::rate_counters(state, n, c.list.num_pairs);
}

/// One Gather list build (second argument 0: a fresh list; 2: rebuilt over the previous list's
/// memory, as a solver's steps do) or one Density over the list it builds (1).
template <int D>
void BM_build_against_density(benchmark::State& state) {
  const exec::host exec;
  const bench::OperatorCase<D, double> c(state.range(0), bench::Order::cells);
  SearchOptions<double> search;
  search.max_support = c.cloud.max_support;
  const int mode = int(state.range(1));
  NeighborList<exec::host> kept = build_neighbor_list<SupportScheme::Gather>(
      exec, c.cloud.points(), c.cloud.points(), c.cloud.domain, search);
  const auto call = [&] {
    if (mode == 1) {
      benchmark::DoNotOptimize(
          apply<ops::Density<Kernel>>(exec, c.set, c.set, c.cloud.domain, c.list).data());
    } else if (mode == 2) {
      rebuild_neighbor_list<SupportScheme::Gather>(exec, kept, c.cloud.points(), c.cloud.points(),
                                                   c.cloud.domain, search);
      benchmark::DoNotOptimize(kept.neighbors.data());
    } else {
      benchmark::DoNotOptimize(build_neighbor_list<SupportScheme::Gather>(
                                   exec, c.cloud.points(), c.cloud.points(), c.cloud.domain, search)
                                   .num_pairs);
    }
  };
  const char* names[] = {"list_build_", "density_", "list_rebuild_"};
  count_one_call(std::string(names[mode]) + std::to_string(D) + "d", state.range(0),
                 c.list.num_pairs, call);
  for (auto _ : state) {
    call();
  }
  bench::rate_counters(state, state.range(0), c.list.num_pairs);
}

} // namespace

#define SPHAD_BENCH_PAIR_COST(W, M)                                                                \
  BENCHMARK_TEMPLATE(BM_pair_cost, W, M)                                                           \
      ->Arg(1 << 10)                                                                               \
      ->Arg(10'000)                                                                                \
      ->Arg(100'000)                                                                               \
      ->Unit(benchmark::kMillisecond)

SPHAD_BENCH_PAIR_COST(density, plain_call);
SPHAD_BENCH_PAIR_COST(density, position_jvp);
SPHAD_BENCH_PAIR_COST(density, position_reverse);
SPHAD_BENCH_PAIR_COST(gradient, plain_call);
SPHAD_BENCH_PAIR_COST(gradient, position_jvp);
SPHAD_BENCH_PAIR_COST(gradient, position_reverse);
SPHAD_BENCH_PAIR_COST(laplacian, plain_call);
SPHAD_BENCH_PAIR_COST(laplacian, position_jvp);
SPHAD_BENCH_PAIR_COST(laplacian, position_reverse);
SPHAD_BENCH_PAIR_COST(symmetric, plain_call);
SPHAD_BENCH_PAIR_COST(symmetric, position_jvp);
SPHAD_BENCH_PAIR_COST(symmetric, position_reverse);
BENCHMARK_TEMPLATE(BM_build_against_density, 2)
    ->ArgsProduct({{1 << 10, 10'000, 100'000, 1'000'000}, {0, 1, 2}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_build_against_density, 3)
    ->ArgsProduct({{1 << 10, 10'000, 100'000, 1'000'000}, {0, 1, 2}})
    ->Unit(benchmark::kMillisecond);
