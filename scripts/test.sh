#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds sphad and runs its whole test suite (the README's test command).
#  - host build: every host test, the header, packaging and compile-fail checks, the examples
#    and the benchmark smoke run;
#  - when nvcc is present: the CUDA build, which compiles every .cu test and benchmark (and the
#    CUDA header checks) for sm_90 with warnings as errors; its tests run only where a GPU is
#    visible;
#  - where the Python environment of scripts/python-env.sh exists: the Python package's build
#    and tests (scripts/test-python.sh), counted as one test.
# Ends with one line: how many tests passed and failed, and how long the build and tests took.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
jobs=$(nproc)
export PATH="$PATH:/usr/local/cuda/bin"

duration() { # duration SECONDS: "12 min 5 s"
  if (($1 >= 60)); then echo "$(($1 / 60)) min $(($1 % 60)) s"; else echo "$1 s"; fi
}

build_start=$SECONDS
cmake --preset host
cmake --build --preset host -j "$jobs"
cuda_note="nvcc not found: CUDA tests not compiled"
run_cuda=0
if command -v nvcc >/dev/null 2>&1; then
  cmake --preset cuda
  cmake --build --preset cuda -j "$jobs"
  if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    run_cuda=1
  else
    cuda_note="no GPU visible: the CUDA tests were compiled (sm_90, warnings as errors), not run"
  fi
fi
build_seconds=$((SECONDS - build_start))

passed=0
failed=0
status=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
run_ctest() { # run_ctest ARGS...: runs ctest, adds its counts to passed/failed
  local rc=0 line total fails
  ctest "$@" 2>&1 | tee "$log" || rc=$?
  line=$(grep -E 'tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -n 1 || true)
  if [ -z "$line" ]; then
    # No summary line: ctest itself failed (or found no tests); count it as a failure.
    failed=$((failed + 1))
    status=1
    return
  fi
  total=$(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$line")
  fails=$(sed -E 's/.*, ([0-9]+) tests? failed.*/\1/' <<<"$line")
  passed=$((passed + total - fails))
  failed=$((failed + fails))
  if [ "$rc" -ne 0 ] || [ "$fails" -ne 0 ]; then
    status=1
  fi
}

test_start=$SECONDS
if [ "$run_cuda" -eq 1 ]; then
  run_ctest --preset cuda -L cuda -j 1
  cuda_note="CUDA tests run on the GPU"
fi
run_ctest --preset host -j "$jobs"
# The Python package (docs/python.md), where its environment exists: scripts/python-env.sh
# makes it once per machine (torch is a ~5 GB download, so this script does not).
python_env="${SPHAD_PYTHON_ENV:-$HOME/.cache/sphad/venv}"
python_note="; Python package not tested (no environment at $python_env: scripts/python-env.sh)"
if [ -x "$python_env/bin/python" ]; then
  if bash scripts/test-python.sh; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    status=1
  fi
  python_note="; Python package tested"
fi
test_seconds=$((SECONDS - test_start))

echo "sphad: $passed tests passed, $failed failed ($cuda_note$python_note); build $(duration "$build_seconds"), tests $(duration "$test_seconds")"
exit "$status"
