#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Creates (once) the Python virtual environment the Python package is built and tested in, kept
# outside the checkout so every clone reuses it: PyTorch from PyPI is a ~5 GB CUDA build.
# Prints the environment's python on its last line.
# Usage: scripts/python-env.sh            (the environment: $SPHAD_PYTHON_ENV, default
#                                          ~/.cache/sphad/venv)
set -euo pipefail
cd "$(dirname "$0")/.."
env_dir="${SPHAD_PYTHON_ENV:-$HOME/.cache/sphad/venv}"
requirements="python/requirements-test.txt"
stamp="$env_dir/.sphad-requirements"
python="${SPHAD_PYTHON:-python3}"

if [ ! -x "$env_dir/bin/python" ]; then
  echo "sphad: creating the Python environment $env_dir" >&2
  "$python" -m venv "$env_dir"
fi
# Install when the requirements changed since the last install (or never were installed).
if ! cmp -s "$requirements" "$stamp"; then
  echo "sphad: installing $requirements into $env_dir (torch: a ~5 GB download the first time)" >&2
  "$env_dir/bin/python" -m pip install --quiet --upgrade pip >&2
  "$env_dir/bin/python" -m pip install --quiet --progress-bar off -r "$requirements" >&2
  cp "$requirements" "$stamp"
fi
echo "$env_dir/bin/python"
