# SPDX-License-Identifier: MIT
"""One fault in an array, for the hostile-input tests and the fuzz target (fuzz/fuzz_calls.py):
`pick(k)` chooses an integer in [0, k) — a seeded generator's draw or the fuzzer's bytes."""
import numpy as np

HOSTILE = [np.nan, np.inf, -np.inf, -1.0, 0.0, 1e300, 5e-324]


def corrupt(pick, a, clean=0):
    """`a` with one fault — the other float dtype, int64, strided, one row short, or one
    hostile value (an unknown kind for int32) — or, for `clean` of the 5 + `clean` choices, `a`
    as it is."""
    fault = pick(5 + clean)
    if fault == 0:
        return a.astype(np.float32 if a.dtype != np.float32 else np.float64)
    if fault == 1:
        return a.astype(np.int64)
    if fault == 2 and len(a) > 1:
        return np.repeat(a, 2, axis=0)[::2]  # strided
    if fault == 3 and len(a) > 0:
        return a[:-1].copy()
    if fault >= 5 or a.size == 0:
        return a
    b = a.copy()
    k = pick(b.size)
    if b.dtype == np.int32:
        b.flat[k] = [-1, 4, 2**31 - 1][pick(3)]
    else:
        b.flat[k] = HOSTILE[pick(len(HOSTILE))]
    return b
