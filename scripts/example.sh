#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds and runs the flagship example (the README's first command).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset host >/dev/null
cmake --build --preset host -j "$(nproc)" --target quickstart
./build/host/examples/quickstart
