#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds and installs the Python package into the cached environment (scripts/python-env.sh)
# and runs its tests. The build reuses python/build between runs.
# Usage: scripts/test-python.sh [pytest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
python=$(bash scripts/python-env.sh | tail -n 1)
start=$SECONDS
# The module's compilations through ccache where it is installed (CMake reads the launcher from
# the environment): a fresh clone's build is then mostly cache hits.
if command -v ccache >/dev/null 2>&1; then
  export CMAKE_CXX_COMPILER_LAUNCHER="${CMAKE_CXX_COMPILER_LAUNCHER:-ccache}"
fi
"$python" -m pip install --quiet --no-build-isolation ./python
echo "sphad: Python package built and installed in $((SECONDS - start)) s"
cd python
# -P: the installed package, not the sources beside the tests (they lack the module)
"$python" -P -m pytest -q "$@"
