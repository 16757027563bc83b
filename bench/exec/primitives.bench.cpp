// SPDX-License-Identifier: MIT
#include "exec/primitives.bench.hpp"

using sphad::bench::BM_exclusive_scan;
using sphad::bench::BM_stable_sort_by_key;
using sphad::exec::host;

BENCHMARK_TEMPLATE(BM_exclusive_scan, host)->Arg(1 << 10)->Arg(1 << 20)->UseManualTime();
BENCHMARK_TEMPLATE(BM_stable_sort_by_key, host)->Arg(1 << 10)->Arg(1 << 20)->UseManualTime();
