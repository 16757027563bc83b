#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds and installs the Python package into the cached environment (scripts/python-env.sh)
# and runs its tests. The build reuses python/build between runs.
#
# The package is built for testing: -O1 with relaxed inlining (SPHAD_RELAXED_INLINING) instead
# of pip's -O3, and the entries compiled on first use take the same flags (they follow the
# module's). That halves every compile (an entry ~11.7 -> ~5.6 s) and changes no result: no
# contraction, no fast-math (the bitwise test compiles its C++ side with the same flags). The
# tests run on every core (pytest-xdist, one test file per worker: a file's fixtures compile its
# entries once), so first-use compiles run side by side.
# SPHAD_PYTHON_TEST_FLAGS overrides the flags (e.g. "-O3 -DNDEBUG": the users' build).
# Usage: scripts/test-python.sh [pytest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
python=$(bash scripts/python-env.sh | tail -n 1)
flags="${SPHAD_PYTHON_TEST_FLAGS:--O1 -DNDEBUG -DSPHAD_RELAXED_INLINING}"
start=$SECONDS
# The module's compilations through ccache where it is installed (CMake reads the launcher from
# the environment): a fresh clone's build is then mostly cache hits.
if command -v ccache >/dev/null 2>&1; then
  export CMAKE_CXX_COMPILER_LAUNCHER="${CMAKE_CXX_COMPILER_LAUNCHER:-ccache}"
fi
"$python" -m pip install --quiet --no-build-isolation \
  --config-settings="cmake.define.CMAKE_CXX_FLAGS_RELEASE=$flags" ./python
echo "sphad: Python package built ($flags) and installed in $((SECONDS - start)) s"
cd python
# Both workers' OpenMP threads (the module's and torch's) sleep when idle instead of spinning:
# side by side on every core, a spinning team takes the cores the other worker needs.
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-passive}"
# -P: the installed package, not the sources beside the tests (they lack the module)
"$python" -P -m pytest -q -n "$(nproc)" --dist loadfile "$@"
