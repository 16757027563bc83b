// SPDX-License-Identifier: MIT
#include <sphad/exec/cuda.hpp>

#include "exec/primitives.bench.hpp"

using sphad::exec::cuda;
using sphad::bench::BM_exclusive_scan;
using sphad::bench::BM_stable_sort_by_key;

BENCHMARK_TEMPLATE(BM_exclusive_scan, cuda)
    ->Arg(1 << 10)
    ->Arg(1 << 24)
    ->UseManualTime();
BENCHMARK_TEMPLATE(BM_stable_sort_by_key, cuda)
    ->Arg(1 << 10)
    ->Arg(1 << 24)
    ->UseManualTime();
