#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# On a machine with an NVIDIA GPU: configure the host and CUDA presets, build, run every test
# (host and CUDA), the optimize_flow and taylor_green examples on CUDA and the benchmarks, and
# copy logs and benchmark JSON into RESULTS_DIR.
# Usage: scripts/gpu-check.sh [RESULTS_DIR]   (default ./gpu-results). Finishes in minutes.
# With .gpu/ present (scripts/stage-gpu-binaries.sh, run on a build machine and carried along)
# it runs those prebuilt CUDA tests and benchmarks instead of building: about a minute.
# Without network access, run scripts/stage-gpu-deps.sh on a Debian machine first and bring
# .deps/ along: Catch2 and Google Benchmark are then taken from there.
# Where python3 has torch (seeing the GPU), nanobind and scikit-build-core: the Python package
# is built into a scratch directory, its CUDA tests run (python/tests/test_cuda.py) and its
# per-call cost on the GPU is measured (python/bench/call_overhead.py --cuda).
set -uo pipefail
cd "$(dirname "$0")/.."
results=$(realpath -m "${1:-./gpu-results}")
mkdir -p "$results"
export PATH="$PATH:/usr/local/cuda/bin"
status=0

step() { # step NAME COMMAND...: runs, logs to RESULTS_DIR/NAME.log, remembers failures
  local name=$1
  shift
  echo "== $name: $*"
  if ! "$@" >"$results/$name.log" 2>&1; then
    echo "   FAILED (see $name.log)"
    status=1
  fi
  tail -n 3 "$results/$name.log"
}

{
  nvidia-smi || true
  nvcc --version || true
} >"$results/machine.txt" 2>&1

# The Python package's CUDA tests, where python3 can build and run them (no download: the
# package is built with the machine's nanobind and scikit-build-core, against its torch).
python_cuda() {
  local site=/tmp/sphad-python-site
  rm -rf "$site"
  python3 -m pip install --quiet --no-build-isolation --no-deps --target "$site" \
    --config-settings=build-dir=/tmp/sphad-python-build ./python &&
    PYTHONPATH="$site" SPHAD_CACHE_DIR="$results/python-cache" PYTHONUNBUFFERED=1 \
      python3 -P -m pytest -q -p no:cacheprovider -rs python/tests/test_cuda.py &&
    PYTHONPATH="$site" SPHAD_CACHE_DIR="$results/python-cache" \
      python3 -P python/bench/call_overhead.py --cuda 100 10000 100000
}
if python3 -c "import torch, nanobind, scikit_build_core, pytest, numpy
assert torch.cuda.is_available()" >/dev/null 2>&1; then
  step python_cuda python_cuda
  rm -rf "$results/python-cache"
fi

if [ -d .gpu ]; then
  export LD_LIBRARY_PATH="$PWD/.gpu/lib:${LD_LIBRARY_PATH:-}"
  run_tests() { # every prebuilt test into one log (the results come back as few files)
    local failed=0
    for test in .gpu/sphad_test_*; do
      echo "== $test"
      timeout 300 "$test" || failed=1
    done
    return $failed
  }
  step cuda_tests run_tests
  step optimize_flow_cuda timeout 300 .gpu/optimize_flow_cuda 12 1000 15
  step taylor_green_cuda timeout 300 .gpu/taylor_green_cuda 316 300
  step dam_break_cuda timeout 300 .gpu/dam_break_cuda 224 300
  step sphad_bench_cuda .gpu/sphad_bench_cuda --benchmark_min_time=0.2 \
    --benchmark_out="$results/sphad_bench_cuda.json" --benchmark_out_format=json
  exit $status
fi

configure_args=()
if [ -d .deps ]; then
  configure_args+=("-DCMAKE_PREFIX_PATH=$PWD/.deps")
  export LD_LIBRARY_PATH="$PWD/.deps/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
elif command -v apt-get >/dev/null 2>&1; then
  bash scripts/install-deps.sh || true
fi

if ! command -v ninja >/dev/null 2>&1; then
  configure_args+=(-G "Unix Makefiles") # the presets' Ninja is not installed here
fi
# The cuda preset builds only what nvcc compiles; the host preset the rest.
for preset in host cuda; do
  step "configure_$preset" cmake --preset "$preset" "${configure_args[@]}"
  step "build_$preset" cmake --build --preset "$preset" -j "$(nproc)"
  step "ctest_$preset" ctest --preset "$preset" -j 4 --timeout 300
done
step optimize_flow_cuda timeout 300 build/cuda/examples/optimize_flow_cuda 12 1000 15
step taylor_green_cuda timeout 300 build/cuda/examples/taylor_green_cuda 316 300
step dam_break_cuda timeout 300 build/cuda/examples/dam_break_cuda 224 300
for bench in build/cuda/bench/sphad_bench_cuda build/host/bench/sphad_bench; do
  name=$(basename "$bench")
  step "$name" "$bench" --benchmark_min_time=0.2 --benchmark_out="$results/$name.json" \
    --benchmark_out_format=json
done
exit $status
