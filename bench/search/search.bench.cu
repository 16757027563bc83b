// SPDX-License-Identifier: MIT
#include <sphad/exec/cuda.hpp>

#include "search/search.bench.hpp"

using CudaSpace = sphad::exec::cuda; // `cuda` alone names CCCL's namespace
using sphad::bench::BM_build_neighbor_list;
using sphad::bench::BM_filter_verlet_list;

#define SPHAD_BENCH_SEARCH_CUDA(T, D)                                                              \
  BENCHMARK_TEMPLATE(BM_build_neighbor_list, CudaSpace, T, D)                                      \
      ->Arg(1 << 10)                                                                               \
      ->Arg(100'000)                                                                               \
      ->Arg(1'000'000)                                                                             \
      ->UseManualTime()                                                                            \
      ->Unit(benchmark::kMillisecond);                                                             \
  BENCHMARK_TEMPLATE(BM_filter_verlet_list, CudaSpace, T, D)                                       \
      ->Arg(1 << 10)                                                                               \
      ->Arg(1'000'000)                                                                             \
      ->UseManualTime()                                                                            \
      ->Unit(benchmark::kMillisecond)

SPHAD_BENCH_SEARCH_CUDA(float, 2);
SPHAD_BENCH_SEARCH_CUDA(float, 3);
SPHAD_BENCH_SEARCH_CUDA(double, 3);
