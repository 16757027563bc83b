#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds sphad and runs its whole test suite (the README's test command).
#  - host build: every host test, the header, packaging and compile-fail checks, the examples
#    and the benchmark smoke run;
#  - when nvcc is present: the CUDA build, which compiles every .cu test, benchmark and
#    example for sm_90 with warnings as errors; its CUDA tests run only where a GPU is visible.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
jobs=$(nproc)

cmake --preset host
cmake --build --preset host -j "$jobs"

export PATH="$PATH:/usr/local/cuda/bin"
if command -v nvcc >/dev/null 2>&1; then
  cmake --preset cuda
  cmake --build --preset cuda -j "$jobs"
  if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    ctest --preset cuda -L cuda -j 1
  else
    echo "sphad: no GPU visible: the CUDA tests were compiled (sm_90, warnings as errors), not run"
  fi
else
  echo "sphad: nvcc not found: CUDA tests not compiled"
fi

ctest --preset host -j "$jobs"
