# SPDX-License-Identifier: MIT
"""Per-call cost of Density from Python at small N: NumPy, torch without grad, torch forward +
backward, torch forward-mode (torch.func.jvp). The best of several repeats of a timed loop.
Beside each: the C++ entry alone on the same arrays (timed inside the module, no Python), and
the overhead (the difference); and torch's own floor: a trivial autograd.Function (a row sum)
forward + `.sum().backward()`, which any binding through a Function pays; and a minimal
Function around the same entry (`minimal_function`), the least a binding through torch.autograd
can cost.

Usage: python bench/call_overhead.py [--cuda] [N ...]   (default 100 2025)
--cuda: torch's calls on the GPU (each timed loop ends with torch.cuda.synchronize(); no NumPy
row, no C++-alone column: the C++ entry alone would time only the enqueueing).
"""
import contextlib
import sys
import timeit

import numpy as np
import torch

import sphad
import sphad.torch as st
from sphad import _calls, _core


class _RowSum(torch.autograd.Function):
    """torch's floor: the cheapest Function with a backward."""

    @staticmethod
    def forward(x):
        return x.sum(1)

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, g):
        return g[:, None].expand(-1, 2)


def minimal_function(x, h, m, kinds, neighbors, domain):
    """What any binding through an autograd Function pays at least: a Function around the same
    entry that does nothing else — positions alone differentiable (in both roles, one array),
    the arrays' slots filled once, outside the timed loop."""
    q = (x, h, m, kinds, None, None, None)
    choices = ("Density", sphad.Kernel.Wendland4, sphad.SupportScheme.Gather, *_calls._DEFAULTS)
    e = _calls.prepare(choices, q, q, 0, "density")
    call = _calls.call_options(neighbors, domain, sphad.Direction.AllToAll, 0.0)
    base = _calls.slots(q + q + (None,) * (_calls.ALL_INPUTS - 2 * len(q)))
    role = _calls.INPUTS  # the references' positions

    class Minimal(torch.autograd.Function):
        @staticmethod
        def forward(p):
            out, arrays = p.new_empty(p.shape[0]), list(base)
            arrays[0] = arrays[role] = p
            arrays[_calls.OUT] = out
            _core.run(e.address, 1, "density", arrays, call)
            return out

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(*inputs)

        @staticmethod
        def backward(ctx, seed):
            p, = ctx.saved_tensors
            g, arrays = torch.empty_like(p), list(base)
            arrays[0] = arrays[role] = p
            arrays[_calls.SEED] = seed.contiguous()
            both = (_calls.GRADIENTS, _calls.GRADIENTS + _calls.DERIVED_INPUTS.index(role))
            arrays[both[0]] = arrays[both[1]] = g
            _core.run(e.address, 3, "density", arrays, call)
            return g

    return Minimal


def cpp_us(x, h, m, kinds, neighbors, domain):
    """The C++ entry alone (value, value + VJP, JVP), µs per call, on these arrays."""
    q = (x, h, m, kinds, None, None, None)
    choices = ("Density", sphad.Kernel.Wendland4, sphad.SupportScheme.Gather, *_calls._DEFAULTS)
    e = _calls.prepare(choices, q, q, 0, "density")
    call = _calls.call_options(neighbors, domain, sphad.Direction.AllToAll, 0.0)
    arrays = _calls.slots(q + q + (None,) * (_calls.ALL_INPUTS - 2 * len(q)))
    arrays[_calls.OUT] = np.empty(len(x))
    arrays[_calls.GRADIENTS] = np.empty_like(x)
    arrays[_calls.SEED] = np.ones(len(x))

    def timed(verb, repeats=2000):
        return min(_core._run_timed(e.address, verb, "density", arrays, call, repeats)
                   for _ in range(5)) * 1e6

    value, vjp = timed(1), timed(3)
    arrays[_calls.TANGENTS] = np.ones_like(x)
    arrays[_calls.OUT_TANGENT] = np.empty(len(x))
    return value, value + vjp, timed(2)


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


def cuda_main(sizes):
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}, float64, 2D, Wendland4, "
          "Gather; µs per call including the GPU's work")
    for n in sizes:
        x, h, m, kinds, domain = case(n)
        xt, ht, mt, kt = (torch.from_numpy(a).cuda() for a in (x, h, m, kinds))
        xg = xt.clone().requires_grad_(True)
        v = torch.ones_like(xt)
        neighbors = sphad.neighbor_list(xt, ht, domain)

        def synced(f):
            def run():
                f()
                torch.cuda.synchronize()
            return run

        calls = (("search", lambda: sphad.neighbor_list(xt, ht, domain)),
                 ("torch, no grad", lambda: st.density(xt, ht, mt, kt, neighbors, domain)),
                 ("torch, forward + backward",
                  lambda: st.density(xg, ht, mt, kt, neighbors, domain).sum().backward()),
                 ("torch.func.jvp", lambda: torch.func.jvp(
                     lambda p: st.density(p, ht, mt, kt, neighbors, domain), (xt,), (v,))))
        print(f"N = {n}, {neighbors.num_pairs} pairs:")
        for name, f in calls:
            synced(f)()  # the entry compiled and loaded
            with torch.no_grad() if name == "torch, no grad" else contextlib.nullcontext():
                print(f"  {name:28s} {best_us(synced(f), 200):8.1f} us")


def main():
    if "--cuda" in sys.argv:
        cuda_main([int(a) for a in sys.argv[1:] if a != "--cuda"] or [100, 2025, 100000])
        return
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
        number = max(20, 1_000_000 // max(neighbors.num_pairs, 1))

        def numpy_call():
            sphad.density(x, h, m, kinds, neighbors, domain, out=out)

        def torch_plain():
            with torch.no_grad():
                st.density(xt, ht, mt, kt, neighbors, domain)

        def torch_backward():
            st.density(xg, ht, mt, kt, neighbors, domain).sum().backward()

        def torch_jvp():
            torch.func.jvp(lambda p: st.density(p, ht, mt, kt, neighbors, domain), (xt,), (v,))

        def floor():
            _RowSum.apply(xg).sum().backward()

        minimal = minimal_function(xt, ht, mt, kt, neighbors, domain)

        def minimal_backward():
            minimal.apply(xg).sum().backward()

        value, value_vjp, jvp = cpp_us(x, h, m, kinds, neighbors, domain)
        print(f"N = {n}, {neighbors.num_pairs} pairs:   total      C++   overhead")
        for name, f, cpp in (("numpy", numpy_call, value), ("torch, no grad", torch_plain, value),
                             ("torch, forward + backward", torch_backward, value_vjp),
                             ("torch.func.jvp", torch_jvp, jvp),
                             ("minimal Function, fwd + bwd", minimal_backward, value_vjp)):
            total = best_us(f, number)
            print(f"  {name:28s} {total:7.1f} {cpp:8.1f} {total - cpp:8.1f} us")
        print(f"  torch's floor (a trivial Function, forward + backward): "
              f"{best_us(floor, number):.1f} us")


if __name__ == "__main__":
    main()
