#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the Debian packages that building and testing sphad needs, when they are missing.
# Usage: scripts/install-deps.sh [extra-package ...]
set -euo pipefail

# Ninja is the presets' generator; ccache, when present, caches every compilation outside the
# checkout (see docs/build.md). python3-vtk9: VTK's reader, with which the io tests read back the
# .vtu files (about 45 MB to download; tests/io/read_vtu.py).
packages=(cmake g++ ninja-build ccache git catch2 libbenchmark-dev openmpi-bin libopenmpi-dev
  python3-vtk9 "$@")
missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi
echo "sphad: installing missing packages: ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
