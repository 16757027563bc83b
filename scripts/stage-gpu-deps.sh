#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Copies Catch2 and Google Benchmark (headers, CMake packages, library) from this Debian
# machine into .deps/ (git-ignored), for a GPU machine that cannot install packages itself.
# scripts/gpu-check.sh uses .deps/ when it exists; carry it along with the working tree.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
rm -rf .deps
mkdir -p .deps/include .deps/lib/cmake .deps/lib/x86_64-linux-gnu/cmake
cp -r /usr/include/catch2 /usr/include/benchmark .deps/include/
cp -r /usr/lib/cmake/Catch2 .deps/lib/cmake/
cp -r /usr/lib/x86_64-linux-gnu/cmake/benchmark .deps/lib/x86_64-linux-gnu/cmake/
cp -P /usr/lib/x86_64-linux-gnu/libbenchmark.so* /usr/lib/x86_64-linux-gnu/libbenchmark_main.a \
  .deps/lib/x86_64-linux-gnu/
du -sh .deps
