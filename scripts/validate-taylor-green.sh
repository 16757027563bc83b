#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Taylor-Green validation at full size: kinetic-energy decay to t = 1 at three resolutions,
# written to docs/validation/taylor_green/ (CSV per resolution, energy.svg, convergence.svg).
# Usage: scripts/validate-taylor-green.sh [side...]   (default 50 100 200: about 17 minutes
# on the 2-core machine, 14 of them for 200 x 200). Builds the example in build/host first.
set -euo pipefail
cd "$(dirname "$0")/.."
sides=("$@")
if [ ${#sides[@]} -eq 0 ]; then
  sides=(50 100 200)
fi
cmake --preset host > /dev/null
ninja -C build/host taylor_green > /dev/null
out=docs/validation/taylor_green
mkdir -p "$out"
./build/host/examples/taylor_green --t-end 1 --tolerance 0 --out "$out" "${sides[@]}" |
  tee "$out/run.txt"
