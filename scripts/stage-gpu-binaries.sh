#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the CUDA preset's GPU executables on this machine (nvcc needs no GPU) and stages them,
# stripped, with the shared libraries they load, in .gpu/ (git-ignored). A GPU machine then runs
# them through scripts/gpu-check.sh without compiling anything: carry .gpu/ along.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/cuda/bin"
bash scripts/install-deps.sh
[ -f build/cuda/CMakeCache.txt ] || cmake --preset cuda
targets=(sphad_bench_cuda optimize_flow_cuda taylor_green_cuda dam_break_cuda)
for test in tests/*/*.test.cu; do
  # The distributed layer's CUDA test needs an MPI runtime (mpiexec, Open MPI's plugins) on the
  # GPU machine: it runs under ctest there (`ctest -L dist`), not from .gpu/.
  [ "$(basename "$(dirname "$test")")" = dist ] && continue
  targets+=("sphad_test_$(basename "$(dirname "$test")")_cuda")
done
cmake --build build/cuda -j "$(nproc)" --target "${targets[@]}"
rm -rf .gpu
mkdir -p .gpu/lib
for target in "${targets[@]}"; do
  binary=$(find build/cuda -name "$target" -type f -executable | head -n 1)
  strip -o ".gpu/$target" "$binary"
  # Everything it loads except the C library and the driver (the GPU machine has its own).
  ldd "$binary" | awk '/=> \// {print $3}' | grep -Ev '/lib(c|m|dl|pthread|rt|cuda)\.so' |
    xargs -r cp -Lf -t .gpu/lib/
done
du -sh .gpu
