#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Where a build spends its time: builds a preset from scratch in build/profile-PRESET without the
# compiler cache, times every compilation with /usr/bin/time (wall seconds, peak memory) and
# prints the slowest translation units, the build's wall time and its compile seconds in all.
# Usage: scripts/build-profile.sh [PRESET [JOBS [COUNT]]]   (default: host, nproc, 10).
# The timings land in build/profile-PRESET/compile-times.txt ("seconds peak-KB object" lines);
# Ninja's own per-step times are in build/profile-PRESET/.ninja_log.
set -euo pipefail
if [ "${1:-}" = "--compile" ]; then # the compiler launcher: --compile LOG COMPILER ARGS...
  log=$2
  shift 2
  object=unknown
  previous=""
  for argument in "$@"; do
    if [ "$previous" = "-o" ]; then object=$argument; fi
    previous=$argument
  done
  exec /usr/bin/time -a -o "$log" -f "%e %M $object" "$@"
fi
cd "$(dirname "$0")/.."
preset=${1:-host}
jobs=${2:-$(nproc)}
count=${3:-10}
export PATH="$PATH:/usr/local/cuda/bin"
bash scripts/install-deps.sh
dir=build/profile-$preset
rm -rf "$dir"
mkdir -p "$dir"
log=$PWD/$dir/compile-times.txt
launcher="$PWD/scripts/build-profile.sh;--compile;$log"
cmake --preset "$preset" -B "$dir" -DSPHAD_USE_CCACHE=OFF \
  "-DCMAKE_CXX_COMPILER_LAUNCHER=$launcher" "-DCMAKE_CUDA_COMPILER_LAUNCHER=$launcher" >/dev/null
start=$SECONDS
cmake --build "$dir" -j "$jobs" >/dev/null
wall=$((SECONDS - start))
echo "sphad: preset $preset, $jobs jobs: build $wall s wall, $(awk '{s += $1} END {printf "%.0f", s}' "$log") s of compilation in $(wc -l <"$log") translation units"
echo "slowest translation units (seconds, peak memory):"
sort -rn "$log" | head -n "$count" | awk '{printf "%8.1f s %6.2f GB  %s\n", $1, $2 / 1048576, $3}'
