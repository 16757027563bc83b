# SPDX-License-Identifier: MIT
"""Per-call cost of Density from Python at small N: NumPy, torch without grad, torch forward +
backward, torch forward-mode (torch.func.jvp). The best of several repeats of a timed loop.

Usage: python bench/call_overhead.py [N ...]   (default 100 2025)
"""
import sys
import timeit

import numpy as np
import torch

import sphad
import sphad.torch as st


def case(n, dim=2):
    rng = np.random.default_rng(1)
    side = n ** (1.0 / dim)
    x = rng.random((n, dim))
    h = np.full(n, 3.0 / side)  # ~28 neighbours in 2D
    m = np.full(n, 1.0 / n)
    kinds = np.zeros(n, dtype=np.int32)
    domain = sphad.Domain([0.0] * dim, [1.0] * dim, [True] * dim)
    return x, h, m, kinds, domain


def best_us(stmt, number):
    return min(timeit.repeat(stmt, number=number, repeat=7)) / number * 1e6


def main():
    sizes = [int(a) for a in sys.argv[1:]] or [100, 2025]
    torch.set_num_threads(1)
    print(f"sphad {sphad.__name__}, torch {torch.__version__}, float64, 2D, Wendland4, Gather")
    for n in sizes:
        x, h, m, kinds, domain = case(n)
        neighbors = sphad.neighbor_list(x, h, domain)
        out = np.empty(n)
        xt, ht, mt, kt = (torch.from_numpy(a) for a in (x, h, m, kinds))
        xg = xt.clone().requires_grad_(True)
        v = torch.ones_like(xt)
        number = max(20, 200_000 // max(neighbors.num_pairs, 1))

        def numpy_call():
            sphad.density(x, h, m, kinds, neighbors, domain, out=out)

        def torch_plain():
            with torch.no_grad():
                st.density(xt, ht, mt, kt, neighbors, domain)

        def torch_backward():
            st.density(xg, ht, mt, kt, neighbors, domain).sum().backward()

        def torch_jvp():
            torch.func.jvp(lambda p: st.density(p, ht, mt, kt, neighbors, domain), (xt,), (v,))

        print(f"N = {n}, {neighbors.num_pairs} pairs:")
        for name, f in (("numpy", numpy_call), ("torch, no grad", torch_plain),
                        ("torch, forward + backward", torch_backward),
                        ("torch.func.jvp", torch_jvp)):
            print(f"  {name:28s} {best_us(f, number):9.1f} us")


if __name__ == "__main__":
    main()
