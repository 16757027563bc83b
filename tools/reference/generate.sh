#!/usr/bin/env bash
# Regenerate tests/data/reference/ from the Python reference package warpSPHCore.
# Not run by CI: the generated data files are committed.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="${SPHAD_REFERENCE_VENV:-${TMPDIR:-/tmp}/sphad-reference-venv}"
PYTHON="${PYTHON:-python3}"

if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
fi
# The PyPI torch wheel pulls CUDA libraries (large download) but runs on CPU.
"$VENV/bin/pip" install --quiet \
    "warpsphcore==0.6.0" "warp-lang==1.19.0" "torch==2.15.0" "numpy==2.4.6"

# Precision is set inside generate.py (warpSPHCore_PRECISION=float64 before import).
exec "$VENV/bin/python" "$HERE/generate.py" "${1:-$HERE/../../tests/data/reference}"
