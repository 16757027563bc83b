# SPDX-License-Identifier: MIT
"""Randomised hostile calls of the NumPy front end (a seeded property test): each case makes one
fault — a wrong dtype, layout or shape, NaN, an infinity, a negative, zero, huge or denormal
value, an unknown kind, a domain of another dimension — in the search's or Density's arguments
(or none), for 0–30 particles in 1–3 dimensions. Every call either raises TypeError or
ValueError and leaves the output as it was, or succeeds and writes every entry; none crashes."""
import numpy as np
import pytest

import faults
import sphad

ARRAYS = ["positions", "supports", "masses", "kinds"]


def corrupt(rng, a):
    """`a` with one random fault (tests/faults.py)."""
    return faults.corrupt(lambda k: int(rng.integers(0, k)), a)


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


FIELD_OPERATORS = ["interpolate", "gradient", "laplacian"]


def corrupt_list(rng, offsets, pairs, n_refs):
    """A list of tensors with one fault: an index out of range, falling offsets, a wrong
    length, or none."""
    offsets, pairs = offsets.copy(), pairs.copy()
    fault = rng.integers(0, 4)
    if fault == 0 and len(pairs):
        pairs[rng.integers(0, len(pairs))] = rng.choice([-1, n_refs, 2**31 - 1])
    elif fault == 1 and len(offsets) > 2 and offsets[-1] > 0:
        k = int(rng.integers(1, len(offsets) - 1))
        offsets[k] = offsets[-1] + 1
    elif fault == 2:
        offsets = offsets[:-1].copy()
    return offsets, pairs, fault


@pytest.mark.parametrize("seed", range(300))
def test_a_hostile_operator_call_raises_cleanly_or_succeeds(seed):
    """The field operators, the corrections and the pipelines, over a C++ list or (torch) a
    list of tensors, with one fault in densities, values, volumes, a correction state or the
    list."""
    rng = np.random.default_rng(10_000 + seed)
    n = int(rng.choice([1, 2, 7, 30]))
    x = rng.random((n, 2))
    h, m = np.full(n, 0.3), np.full(n, 1.0 / n)
    kinds = np.zeros(n, dtype=np.int32)
    domain = sphad.Domain([0.0, 0.0], [1.0, 1.0], [True, True])
    neighbors = sphad.neighbor_list(x, h, domain)
    extra = {"densities": 1.0 + 0.1 * rng.random(n), "values": rng.random(n)}
    corrections = {}
    if rng.integers(0, 2):
        corrections = {"crk": sphad.CRKState(np.ones(n), np.zeros((n, 2)), np.zeros((n, 2)),
                                             np.zeros((n, 2, 2))),
                       "renormalization": np.tile(np.eye(2), (n, 1, 1)),
                       "omegas": np.ones(n)}
    use_volumes = bool(rng.integers(0, 2))
    if use_volumes:
        extra["volumes"] = m / extra["densities"]
    where = rng.integers(0, 5)  # 0: densities/values/volumes, 1: a correction, 2: the list
    faulty = False
    if where == 0:
        name = str(rng.choice(list(extra)))
        extra[name] = corrupt(rng, extra[name])
        faulty = True
    elif where == 1 and corrections:
        name = str(rng.choice(["crk", "renormalization", "omegas"]))
        if name == "crk":
            parts = list(corrections["crk"])
            k = int(rng.integers(0, 4))
            parts[k] = corrupt(rng, parts[k])
            corrections["crk"] = sphad.CRKState(*parts)
        else:
            corrections[name] = corrupt(rng, corrections[name])
        faulty = True
    operator = str(rng.choice(FIELD_OPERATORS + ["covariance", "renormalization_matrices",
                                                 "grad_h_omegas"]))
    kwargs = {"volumes": extra.get("volumes")} if operator != "grad_h_omegas" else {}
    if operator in FIELD_OPERATORS + ["covariance", "renormalization_matrices"]:
        kwargs.update(corrections if operator != "covariance" else
                      {k: v for k, v in corrections.items() if k != "omegas"})
    base = (x, h, m, kinds, extra["densities"])
    if operator in FIELD_OPERATORS:
        base = base + (extra["values"],)
    try:
        if where == 2:
            torch = pytest.importorskip("torch")
            import sphad.torch as st
            offsets, pairs, fault = corrupt_list(rng, np.asarray(neighbors.offsets),
                                                 np.asarray(neighbors.neighbors), n)
            faulty = fault != 3
            tensors = st.NeighborTensors(torch.from_numpy(offsets), torch.from_numpy(pairs))
            args = tuple(None if a is None else torch.from_numpy(np.asarray(a)) for a in base)
            kw = {k: (None if v is None else
                      (sphad.CRKState(*map(torch.from_numpy, v)) if k == "crk" else
                       torch.from_numpy(v))) for k, v in kwargs.items()}
            result = getattr(st, operator)(*args, tensors, domain, **kw)
        else:
            result = getattr(sphad, operator)(*base, neighbors, domain, **kwargs)
    except (TypeError, ValueError):
        assert faulty, "a clean call was refused"
        return
    for r in (result if isinstance(result, tuple) else (result,)):
        assert np.asarray(r).shape[0] == n
