# SPDX-License-Identifier: MIT
"""Shared cases: random particles in the unit box (periodic or not) with ~20 neighbours each."""
import numpy as np
import pytest

import sphad


def cloud(n=60, dim=2, periodic=True, dtype=np.float64, seed=3):
    rng = np.random.default_rng(seed)
    x = rng.random((n, dim)).astype(dtype)
    radius = {1: 0.15, 2: 0.3, 3: 0.35}[dim]
    h = (radius * (0.8 + 0.4 * rng.random(n))).astype(dtype)
    m = (1.0 / n * (0.5 + rng.random(n))).astype(dtype)
    kinds = np.zeros(n, dtype=np.int32)
    domain = sphad.Domain([0.0] * dim, [1.0] * dim, [periodic] * dim)
    return x, h, m, kinds, domain


@pytest.fixture
def rng():
    return np.random.default_rng(11)
