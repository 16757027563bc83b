// SPDX-License-Identifier: MIT
#include "search/search.bench.hpp"

using sphad::bench::BM_build_neighbor_list;
using sphad::bench::BM_filter_verlet_list;
using sphad::exec::host;

namespace {
/// The O(Nq·Nr) oracle, for scale at small N.
template <class T, int D>
void BM_brute_force_neighbor_list(benchmark::State& state) {
  const host exec{};
  const auto cloud = sphad::bench::search_cloud<D, T>(exec, state.range(0));
  std::int64_t pairs = 0;
  for (auto _ : state) {
    pairs = sphad::search::brute_force_neighbor_list<sphad::SupportScheme::Gather>(
                cloud.points(), cloud.points(), cloud.domain)
                .num_pairs;
  }
  sphad::bench::rate_counters(state, state.range(0), pairs);
}
} // namespace

#define SPHAD_BENCH_SEARCH(T, D)                                                                   \
  BENCHMARK_TEMPLATE(BM_build_neighbor_list, host, T, D)                                           \
      ->Arg(1 << 10)                                                                               \
      ->Arg(4096)                                                                                  \
      ->Arg(100'000)                                                                               \
      ->Arg(1'000'000)                                                                             \
      ->UseManualTime()                                                                            \
      ->Unit(benchmark::kMillisecond);                                                             \
  BENCHMARK_TEMPLATE(BM_filter_verlet_list, host, T, D)                                            \
      ->Arg(1 << 10)                                                                               \
      ->Arg(100'000)                                                                               \
      ->Arg(1'000'000)                                                                             \
      ->UseManualTime()                                                                            \
      ->Unit(benchmark::kMillisecond);                                                             \
  BENCHMARK_TEMPLATE(BM_brute_force_neighbor_list, T, D)                                           \
      ->Arg(1 << 10)                                                                               \
      ->Arg(4096)                                                                                  \
      ->Unit(benchmark::kMillisecond)

SPHAD_BENCH_SEARCH(float, 2);
SPHAD_BENCH_SEARCH(double, 2);
SPHAD_BENCH_SEARCH(float, 3);
SPHAD_BENCH_SEARCH(double, 3);
