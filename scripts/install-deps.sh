#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the Debian packages that building and testing sphad needs, when they are missing.
# Usage: scripts/install-deps.sh [extra-package ...]
set -euo pipefail

# Ninja is the presets' generator; ccache, when present, caches every compilation outside the
# checkout (see docs/build.md).
packages=(cmake g++ ninja-build ccache git catch2 libbenchmark-dev openmpi-bin libopenmpi-dev "$@")
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
