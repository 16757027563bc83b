# SPDX-License-Identifier: MIT
"""Randomised hostile calls of the NumPy front end (a seeded property test): each case makes one
fault — a wrong dtype, layout or shape, NaN, an infinity, a negative, zero, huge or denormal
value, an unknown kind, a domain of another dimension — in the search's or Density's arguments
(or none), for 0–30 particles in 1–3 dimensions. Every call either raises TypeError or
ValueError and leaves the output as it was, or succeeds and writes every entry; none crashes."""
import numpy as np
import pytest

import sphad

HOSTILE = [np.nan, np.inf, -np.inf, -1.0, 0.0, 1e300, 5e-324]
ARRAYS = ["positions", "supports", "masses", "kinds"]


def corrupt(rng, a):
    """`a` with one random fault."""
    fault = rng.integers(0, 6)
    if fault == 0:
        return a.astype(np.float32 if a.dtype != np.float32 else np.float64)
    if fault == 1:
        return a.astype(np.int64)
    if fault == 2 and len(a) > 1:
        return np.repeat(a, 2, axis=0)[::2]  # strided
    if fault == 3 and len(a) > 0:
        return a[:-1].copy()
    if a.size == 0:
        return a
    b = a.copy()
    if b.dtype == np.int32:
        b[rng.integers(0, b.size)] = int(rng.choice([-1, 4, 2**31 - 1]))
    else:
        b.flat[rng.integers(0, b.size)] = HOSTILE[rng.integers(0, len(HOSTILE))]
    return b


@pytest.mark.parametrize("seed", range(600))
def test_a_hostile_call_raises_cleanly_or_succeeds(seed):
    rng = np.random.default_rng(seed)
    dim = int(rng.integers(1, 4))
    n = int(rng.choice([0, 1, 2, 7, 30]))
    periodic = bool(rng.integers(0, 2))
    arrays = {"positions": rng.random((n, dim)), "supports": np.full(n, 0.2),
              "masses": np.full(n, 1.0 / max(n, 1)), "kinds": np.zeros(n, dtype=np.int32)}
    box_dim = dim
    where = rng.integers(0, 10)  # 0-1: the search's arrays, 2-5: Density's, 6: domain, else none
    search = {"positions": arrays["positions"], "supports": arrays["supports"]}
    if where <= 1:
        name = ["positions", "supports"][where]
        search[name] = corrupt(rng, search[name])
    elif where <= 5:
        name = ARRAYS[where - 2]
        arrays[name] = corrupt(rng, arrays[name])
    elif where == 6:
        box_dim = dim % 3 + 1
    domain = sphad.Domain([0.0] * box_dim, [1.0] * box_dim, [periodic] * box_dim)
    try:
        neighbors = sphad.neighbor_list(search["positions"], search["supports"], domain)
    except (TypeError, ValueError):
        assert where <= 1 or where == 6, "the search refused clean arrays"
        return
    out = np.full(n, -7.0)
    try:
        sphad.density(*(arrays[k] for k in ARRAYS), neighbors, domain, out=out)
    except (TypeError, ValueError):
        assert np.all(out == -7.0)  # nothing the caller owns is modified
        return
    assert not np.any(out == -7.0)  # every entry written
