// SPDX-License-Identifier: MIT
#include <sphad/exec/cuda.hpp>

#include "exec/primitives.bench.hpp"

using CudaSpace = sphad::exec::cuda; // `cuda` alone names CCCL's namespace
using sphad::bench::BM_exclusive_scan;
using sphad::bench::BM_stable_sort_by_key;

BENCHMARK_TEMPLATE(BM_exclusive_scan, CudaSpace)->Arg(1 << 10)->Arg(1 << 24)->UseManualTime();
BENCHMARK_TEMPLATE(BM_stable_sort_by_key, CudaSpace)->Arg(1 << 10)->Arg(1 << 24)->UseManualTime();
