# SPDX-License-Identifier: MIT
"""sphad's Python package against the reference package warpSPHCore (Warp + PyTorch), on the CPU.

Part 1, agreement (float64): random particles with varied supports and masses in a periodic unit
box (2D, and one 3D case); two kernels, Gather and a symmetric support scheme; every field
operator with its schemes. Each package builds its own neighbour list for the scheme; both get
the same positions, supports, masses, kinds, densities and fields. Per case the script prints
max |sphad - reference| / max |reference|, and checks it against 1e-12. It also compares the
gradient d(sum out^2)/d positions taken by torch autograd through each package (Density and
Gradient), and the two neighbour lists as sets of pairs.

Part 2, timings: best of several repeats of a timed loop, torch.set_num_threads(1), each package
with its own neighbour list built once outside the loop. The reference's own call-overhead case
(2D lattice of 45^2 = 2025 particles in [-1, 1]^2, about 5 neighbours, Wendland2 Density, Gather,
float32, 10 warm-up calls, 200 timed calls), then per-call cost at N = 100 and the cost at
N = 10^4 and 10^5 (random points, ~28 neighbours, Wendland4, Density and a Difference Gradient),
forward without grad and forward + backward.

The reference fixes its float type once, at import (warpSPHCore_config.configure(precision=...)
before `import warpSPHCore`), so the float32 part runs in a second process of this script.

sphad is built with OpenMP and links libgomp.so.1; so does torch, and the process loads one
libgomp (the first loaded, torch's): torch.set_num_threads(k) sets the OpenMP thread count that
sphad's loops use too. The sphad rows are therefore timed at 1 thread (torch.set_num_threads(1),
like the reference) and again at 2 (sphad "x2" rows: torch.set_num_threads(2) around them only).
The reference's Warp CPU kernels run on the calling thread alone.

Usage (from python/, in an environment with both packages):
    python -P bench/versus_reference.py            # both parts (about 5 min, more on the first
                                                   # run: sphad and Warp compile on first use)
    python -P bench/versus_reference.py --agreement     # part 1 only
    python -P bench/versus_reference.py --timings       # part 2 only
"""
import argparse
import os
import subprocess
import sys
import time
import timeit

import numpy as np

TOLERANCE = 1e-12


# --------------------------------------------------------------------------------------------
# Loading the two packages (the reference's precision must be chosen before its import).

def load(precision):
    """Import torch, sphad and the reference with its float type set to `precision`."""
    import warpSPHCore_config
    warpSPHCore_config.configure(precision=precision)
    import torch
    import warp
    warp.config.quiet = True                  # no banner
    warp.config.log_level = warp.LOG_WARNING  # no line per module load or compile
    warp.init()
    import warpSPHCore as ref
    import sphad
    import sphad.torch as st
    dtype = torch.float64 if precision == "float64" else torch.float32
    assert ref.get_torch_precision() == dtype, "the reference did not take the precision"
    return torch, ref, sphad, st, dtype


class Packages:
    """Both packages, loaded once per process, and the name mapping between them."""

    def __init__(self, precision):
        self.torch, self.ref, self.sphad, self.st, self.dtype = load(precision)
        ref, sphad = self.ref, self.sphad
        # Enums by name: both packages use the reference's names (sphad: TrueAllToAll aside).
        self.ref_kernel = {k: getattr(ref.KernelFunctions, k) for k in ("Wendland2", "Wendland4",
                                                                        "CubicSpline")}
        self.ref_support = {s: getattr(ref.SupportScheme, s) for s in
                            sphad.SupportScheme.__members__}
        self.ref_gradient = {s: getattr(ref.GradientScheme, s) for s in
                             sphad.GradientScheme.__members__}
        self.ref_laplacian = {s: getattr(ref.LaplacianScheme, s) for s in
                              sphad.LaplacianScheme.__members__}


# --------------------------------------------------------------------------------------------
# Particle sets.

class Case:
    """One particle set in both packages' forms: tensors shared by both, a domain for each,
    and each package's neighbour list for one support scheme (built on demand, cached)."""

    def __init__(self, pk, x, h, m, kinds, rho, box_min, box_max):
        torch = pk.torch
        self.pk, self.dim, self.n = pk, x.shape[1], x.shape[0]
        self.x, self.h, self.m, self.kinds, self.rho = x, h, m, kinds, rho
        self.box = pk.sphad.Domain([box_min] * self.dim, [box_max] * self.dim,
                                   [True] * self.dim)
        self.ref_box = pk.ref.DomainDescription(
            torch.full((self.dim,), box_min, dtype=x.dtype),
            torch.full((self.dim,), box_max, dtype=x.dtype),
            torch.ones(self.dim, dtype=torch.bool), self.dim)
        self._lists = {}

    def lists(self, support):
        """(sphad's list, the reference's AdjacencyList) for a support scheme's pairs."""
        if support not in self._lists:
            pk = self.pk
            ours = pk.sphad.neighbor_list(self.x, self.h, self.box,
                                          support=getattr(pk.sphad.SupportScheme, support))
            theirs = pk.ref.radiusSearchCompactHashMap(
                pk.ref.ParticleState(self.x, self.h, self.m, self.kinds), self.ref_box,
                mode=pk.ref_support[support])
            self._lists[support] = (ours, theirs)
        return self._lists[support]


def random_case(pk, n, dim, neighbours=30, seed=0):
    """n uniform random points in the periodic unit box; supports vary by +-25 % around the
    radius that holds `neighbours` points on average; masses and densities vary by +-20 %
    (the densities are an input here, the same for both packages)."""
    torch = pk.torch
    g = torch.Generator().manual_seed(seed)
    u = lambda *shape: torch.rand(*shape, generator=g, dtype=pk.dtype)
    ball = {1: 2.0, 2: np.pi, 3: 4.0 * np.pi / 3.0}[dim]
    h0 = (neighbours / (ball * n)) ** (1.0 / dim)
    x = u(n, dim)
    h = h0 * (0.75 + 0.5 * u(n))
    m = (0.8 + 0.4 * u(n)) / n
    rho = 0.8 + 0.4 * u(n)
    kinds = torch.zeros(n, dtype=torch.int32)
    return Case(pk, x, h, m, kinds, rho, 0.0, 1.0)


def lattice_case(pk, per_axis, dim=2, target_neighbours=6):
    """The reference benchmark's set: a periodic lattice in [-1, 1]^dim, cell centres, spacing
    dx = 2 / per_axis, support h with pi h^2 = target_neighbours dx^2 (2D; ball volume in
    general), masses dx^dim, densities 1."""
    torch = pk.torch
    dx = 2.0 / per_axis
    axis = -1.0 + dx / 2 + dx * torch.arange(per_axis, dtype=pk.dtype)
    grids = torch.meshgrid(*([axis] * dim), indexing="ij")
    x = torch.stack([g_.reshape(-1) for g_ in reversed(grids)], dim=1).contiguous()
    n = x.shape[0]
    ball = {1: 2.0, 2: np.pi, 3: 4.0 * np.pi / 3.0}[dim]
    h = torch.full((n,), (target_neighbours * dx ** dim / ball) ** (1.0 / dim), dtype=pk.dtype)
    m = torch.full((n,), dx ** dim, dtype=pk.dtype)
    rho = torch.ones(n, dtype=pk.dtype)
    return Case(pk, x, h, m, torch.zeros(n, dtype=torch.int32), rho, -1.0, 1.0)


# --------------------------------------------------------------------------------------------
# One operator call in each package, from one description.

class Op:
    """An operator with its choices, in words both packages understand:
    operation (Density, Interpolate, Gradient, Divergence, Curl, Laplacian), field ('none',
    'scalar', 'vector'), gradient scheme, Laplacian scheme (for Laplacian only)."""

    def __init__(self, operation, field="scalar", scheme="Naive", laplacian="Brookshaw"):
        self.operation, self.field, self.scheme, self.laplacian = (operation, field, scheme,
                                                                   laplacian)
        if operation == "Density":
            self.field = "none"

    def label(self):
        if self.operation == "Density":
            return "Density"
        words = [self.operation, self.field]
        if self.operation == "Laplacian":
            words.append(self.laplacian + ("" if self.scheme == "Naive" else "/" + self.scheme))
        elif self.operation != "Interpolate":
            words.append(self.scheme)
        return " ".join(words)


def fields(case, seed=1):
    """A scalar (n) and a vector (n, D) field, smooth plus noise (the same for both packages)."""
    torch = case.pk.torch
    g = torch.Generator().manual_seed(seed)
    x = case.x
    noise = lambda *shape: 0.1 * torch.rand(*shape, generator=g, dtype=x.dtype)
    two_pi = 2.0 * np.pi
    scalar = torch.sin(two_pi * x[:, 0]) + torch.cos(two_pi * x[:, -1]) + noise(case.n)
    vector = torch.stack([torch.sin(two_pi * x[:, (d + 1) % case.dim]) for d in
                          range(case.dim)], dim=1) + noise(case.n, case.dim)
    return {"none": None, "scalar": scalar.contiguous(), "vector": vector.contiguous()}


def call_sphad(case, op, kernel, support, x=None, values=None, neighbors=None):
    """sphad.torch's call for `op` (x: positions to use, e.g. a leaf that requires grad)."""
    pk = case.pk
    sp, st = pk.sphad, pk.st
    x = case.x if x is None else x
    neighbors = case.lists(support)[0] if neighbors is None else neighbors
    k, s = getattr(sp.Kernel, kernel), getattr(sp.SupportScheme, support)
    if op.operation == "Density":
        return st.density(x, case.h, case.m, case.kinds, neighbors, case.box, kernel=k,
                          support=s)
    extra = {}
    if op.operation == "Laplacian":
        extra["laplacian_scheme"] = getattr(sp.LaplacianScheme, op.laplacian)
    function = getattr(st, op.operation.lower())
    return function(x, case.h, case.m, case.kinds, case.rho, values, neighbors, case.box,
                    kernel=k, support=s, scheme=getattr(sp.GradientScheme, op.scheme), **extra)


def call_reference(case, op, kernel, support, x=None, values=None, adjacency=None):
    """The reference's warpOperation for `op`; every choice is passed explicitly (its
    OperationProperties default Laplacian scheme is Brookshaw, sphOperation_warp's Default)."""
    pk = case.pk
    ref = pk.ref
    x = case.x if x is None else x
    adjacency = case.lists(support)[1] if adjacency is None else adjacency
    state = ref.ParticleState(x, case.h, case.m, case.kinds,
                              None if op.operation == "Density" else case.rho)
    properties = ref.OperationProperties(
        kernel=pk.ref_kernel[kernel], operation=getattr(ref.WarpOperation, op.operation),
        gradientMode=pk.ref_gradient[op.scheme], laplacianMode=pk.ref_laplacian[op.laplacian],
        supportMode=pk.ref_support[support])
    return ref.warpOperation(state, properties, case.ref_box, queryValues=values,
                             adjacency=adjacency)


# --------------------------------------------------------------------------------------------
# Part 1: agreement.

def relative(a, b):
    """max |a - b| / max |b| (b: the reference), in float64; shapes must match."""
    a, b = a.detach().double(), b.detach().double()
    if a.shape != b.shape:
        return float("nan")
    scale = b.abs().max().item()
    return (a - b).abs().max().item() / (scale if scale > 0 else 1.0)


def pair_sets(case, support):
    """The two lists as sets of (i, j) pairs: sizes and how many pairs each has that the other
    lacks."""
    ours, theirs = case.lists(support)
    offsets = np.asarray(ours.offsets)
    rows = np.repeat(np.arange(case.n), np.diff(offsets))
    a = set(zip(rows.tolist(), np.asarray(ours.neighbors).tolist()))
    b = set(zip(theirs.i.tolist(), theirs.j.tolist()))
    return len(a), len(b), len(a - b), len(b - a)


def agreement_ops(dim):
    ops = [Op("Density"), Op("Interpolate", "scalar"), Op("Interpolate", "vector")]
    ops += [Op("Gradient", "scalar", s) for s in ("Naive", "Symmetric", "Difference",
                                                  "Summation")]
    ops += [Op("Gradient", "vector", "Naive"), Op("Divergence", "vector", "Naive"),
            Op("Divergence", "vector", "Difference"), Op("Curl", "vector", "Difference")]
    ops += [Op("Laplacian", "scalar", "Naive", lap) for lap in ("Naive", "Brookshaw",
                                                                "Default")]
    ops += [Op("Laplacian", "scalar", "Symmetric", "Default"),
            Op("Laplacian", "vector", "Naive", "Dot")]
    return ops


def compare(op, dim, ours, theirs):
    """(relative difference, note). Outputs of different shapes but as many entries are
    compared flattened, with a note; a case beyond the tolerance gets the check that names the
    convention it differs by, where one does."""
    note = ""
    if ours.shape != theirs.shape and ours.numel() == theirs.numel():
        note = (f"shape differs: sphad {tuple(ours.shape)}, reference {tuple(theirs.shape)}; "
                f"values compared flattened")
        ours, theirs = ours.reshape(-1), theirs.reshape(-1)
    rel = relative(ours, theirs)
    if rel <= TOLERANCE or ours.shape != theirs.shape:
        return rel, note
    if op.operation == "Gradient" and op.field == "vector":
        # The reference's documented 3D layout quirk (its flat write order puts the derivative
        # axis first in 3D only): compared after swapping the last two axes, and noted.
        flipped = relative(ours.transpose(-1, -2), theirs)
        if flipped <= TOLERANCE:
            return flipped, (f"the reference's {dim}D Gradient of a vector has out[i,a,b] = "
                             f"d v_b / d x_a, sphad's d v_a / d x_b (as the reference's 1D and "
                             f"2D): equal after swapping the last two axes")
    return rel, note


def agreement(pk, quick=False):
    torch = pk.torch
    print("Part 1: agreement, float64, max |sphad - reference| / max |reference| per case "
          f"(target <= {TOLERANCE:g})")
    configs = [(2, "Wendland4", "Gather"), (2, "Wendland4", "SuperSymmetric"),
               (2, "CubicSpline", "Gather"), (2, "CubicSpline", "SuperSymmetric"),
               (3, "Wendland4", "Gather"), (3, "Wendland4", "SuperSymmetric")]
    if quick:
        configs = configs[:1] + configs[4:5]
    # The support convention: one particle alone (h < half the box, so no periodic image in
    # reach) has rho = m W(0, h) = m C_d / h^D with h the support radius (Wendland4: C_d = 9/pi
    # in 2D, 495/(32 pi) in 3D).
    for dim, c_d in ((2, 9.0 / np.pi), (3, 495.0 / (32.0 * np.pi))):
        one = Case(pk, torch.full((1, dim), 0.5, dtype=pk.dtype),
                   torch.full((1,), 0.3, dtype=pk.dtype), torch.full((1,), 2.0, dtype=pk.dtype),
                   torch.zeros(1, dtype=torch.int32), None, 0.0, 1.0)
        expected = 2.0 * c_d / 0.3 ** dim
        got = [float(call(one, Op("Density"), "Wendland4", "Gather")[0])
               for call in (call_sphad, call_reference)]
        print(f"  one particle, {dim}D, m = 2, h = 0.3: rho = m C_d / h^{dim} = {expected:.15g}; "
              f"sphad {got[0]:.15g}, reference {got[1]:.15g}")
    cases = {2: random_case(pk, 400, 2, seed=0), 3: random_case(pk, 500, 3, seed=0)}
    worst, failures, shapes = 0.0, [], []
    for dim in sorted(cases):
        case = cases[dim]
        for support in ("Gather", "SuperSymmetric"):
            na, nb, only_a, only_b = pair_sets(case, support)
            print(f"  {dim}D N = {case.n}, {support} lists: sphad {na} pairs, reference {nb}; "
                  f"only in sphad {only_a}, only in the reference {only_b}")
    for dim, kernel, support in configs:
        case = cases[dim]
        values = fields(case)
        print(f"  {dim}D, N = {case.n}, {kernel}, {support}:")
        row = []
        for op in agreement_ops(dim):
            ours = call_sphad(case, op, kernel, support, values=values[op.field])
            theirs = call_reference(case, op, kernel, support, values=values[op.field])
            rel, note = compare(op, dim, ours, theirs)
            name = f"{dim}D {kernel} {support} {op.label()}"
            if not rel <= TOLERANCE:
                failures.append((name, rel, note))
            else:
                worst = max(worst, rel)
                if note:
                    shapes.append((name, note))
            flag = "" if rel <= TOLERANCE and not note else " *" if rel <= TOLERANCE else " <--"
            row.append(f"{op.label():34s} {rel:8.1e}{flag:4s}")
        for k in range(0, len(row), 2):
            print(("    " + " ".join(row[k:k + 2])).rstrip())

    # Reverse mode: d(sum out^2)/d positions by autograd through each package. The positions
    # are one leaf in both roles (queries and references) in both packages.
    print("  autograd, d(sum out^2)/dx:")
    grads = [(2, "Wendland4", "Gather"), (2, "Wendland4", "SuperSymmetric"),
             (2, "CubicSpline", "Gather"), (3, "Wendland4", "Gather")]
    for dim, kernel, support in grads[:2] if quick else grads:
        case = cases[dim]
        values = fields(case)
        for op in (Op("Density"), Op("Gradient", "scalar", "Naive"),
                   Op("Gradient", "scalar", "Difference")):
            result = []
            for call in (call_sphad, call_reference):
                x = case.x.clone().requires_grad_(True)
                out = call(case, op, kernel, support, x=x, values=values[op.field])
                (out ** 2).sum().backward()
                result.append(x.grad)
            rel = relative(*result)
            print(f"    {dim}D {kernel:11s} {support:14s} {op.label():28s} {rel:8.1e}"
                  f"{'' if rel <= TOLERANCE else '  <--'}")
            if not rel <= TOLERANCE:
                failures.append((f"autograd {dim}D {kernel} {support} {op.label()}", rel, ""))
            else:
                worst = max(worst, rel)

    # Kinds and the default direction (AllToAll: any query kind, references of every kind but
    # Ghost = 2): random kinds 0..3, Density and Interpolate, both packages' defaults.
    case = cases[2]
    g = torch.Generator().manual_seed(5)
    mixed = Case(pk, case.x, case.h, case.m,
                 torch.randint(0, 4, (case.n,), generator=g, dtype=torch.int32), case.rho,
                 0.0, 1.0)
    values = fields(mixed)
    for op in (Op("Density"), Op("Interpolate", "scalar")):
        rel = relative(call_sphad(mixed, op, "Wendland4", "Gather", values=values[op.field]),
                       call_reference(mixed, op, "Wendland4", "Gather",
                                      values=values[op.field]))
        print(f"  kinds 0..3 (Fluid, Boundary, Ghost, Other), default direction, "
              f"{op.label():18s} {rel:8.1e}{'' if rel <= TOLERANCE else '  <--'}")
        if not rel <= TOLERANCE:
            failures.append((f"mixed kinds {op.label()}", rel, ""))
        else:
            worst = max(worst, rel)

    print(f"  largest difference among the agreeing cases: {worst:.1e}")
    if shapes:
        print("  * values agree, the layout or shape differs:")
        for name, note in shapes:
            print(f"    {name}: {note}")
    if failures:
        print(f"  {len(failures)} case(s) beyond {TOLERANCE:g}:")
        for name, rel, note in failures:
            print(f"    {name}: {rel:.1e}" + (f"; {note}" if note else ""))
    else:
        print(f"  every case within {TOLERANCE:g}")
    return not failures


# --------------------------------------------------------------------------------------------
# Part 2: timings.

def set_threads(pk, n):
    """OpenMP threads for what follows: torch's, and sphad's through the shared libgomp."""
    pk.torch.set_num_threads(n)


def best_us(f, number, repeat, warmup):
    """Best of `repeat` timed loops of `number` calls, in microseconds per call; `number` None:
    as many calls as fill about LOOP_SECONDS (at least 3), from one call timed after the
    warm-up."""
    for _ in range(warmup):
        f()
    if number is None:
        t0 = time.perf_counter()
        f()
        number = max(3, round(LOOP_SECONDS / (time.perf_counter() - t0)))
    return min(timeit.repeat(f, number=number, repeat=repeat)) / number * 1e6


LOOP_SECONDS = 0.25


def timed_pair(case, op, kernel, support, values, mode, number, repeat, warmup,
               sphad_threads=(1, 2)):
    """Per-call microseconds of one operator, in each package: {column: us}.

    mode 'nograd': forward under torch.no_grad(); 'tape': forward with positions requiring
    grad (what the reference calls its 'grad' path); 'backward': forward, then backward of
    sum(out^2) into the positions."""
    pk = case.pk
    torch = pk.torch
    ours_list, their_list = case.lists(support)
    x = case.x.clone().requires_grad_(mode != "nograd")

    def make(call, neighbour_list):
        kwargs = dict(x=x, values=values,
                      **({"neighbors": neighbour_list} if call is call_sphad else
                         {"adjacency": neighbour_list}))
        if mode == "nograd":
            def f():
                with torch.no_grad():
                    call(case, op, kernel, support, **kwargs)
        elif mode == "tape":
            def f():
                call(case, op, kernel, support, **kwargs)
        else:
            def f():
                x.grad = None
                (call(case, op, kernel, support, **kwargs) ** 2).sum().backward()
        return f

    result = {}
    set_threads(pk, 1)
    result["reference"] = best_us(make(call_reference, their_list), number, repeat, warmup)
    for threads in sphad_threads:
        set_threads(pk, threads)
        result[f"sphad x{threads}"] = best_us(make(call_sphad, ours_list), number, repeat,
                                              warmup)
    set_threads(pk, 1)
    return result


def print_rows(title, rows, columns):
    print(title)
    print(f"    {'':44s}" + "".join(f"{c:>13s}" for c in columns) +
          f"{'ref/sphad x1':>14s}")
    for name, r in rows:
        cells = "".join(f"{r[c]:13.1f}" if c in r else f"{'-':>13s}" for c in columns)
        ratio = (f"{r['reference'] / r['sphad x1']:13.1f}x"
                 if "reference" in r and "sphad x1" in r else f"{'-':>14s}")
        print(f"    {name:44s}{cells}{ratio}")


def search_us(case, support, repeat=5, number=None):
    """Neighbour search per call (not part of the operator timings), each package."""
    pk = case.pk
    ps = pk.ref.ParticleState(case.x, case.h, case.m, case.kinds)
    s = getattr(pk.sphad.SupportScheme, support)
    out = {"reference": best_us(lambda: pk.ref.radiusSearchCompactHashMap(
        ps, case.ref_box, mode=pk.ref_support[support]), number, repeat, 1)}
    for threads in (1, 2):
        set_threads(pk, threads)
        out[f"sphad x{threads}"] = best_us(
            lambda: pk.sphad.neighbor_list(case.x, case.h, case.box, support=s), number,
            repeat, 1)
    set_threads(pk, 1)
    return out


def overhead_case(pk):
    """The reference's own benchmark case, float32 (this process must have loaded float32)."""
    print("  the reference's call-overhead case: 2D lattice 45 x 45 = 2025 in [-1, 1]^2, "
          "h = 1.382 dx, Wendland2 Density, Gather, float32; 10 warm-up calls, 200 timed, "
          "best of 7; us per call")
    case = lattice_case(pk, 45)
    ours, theirs = case.lists("Gather")
    print(f"    pairs: sphad {ours.num_pairs}, reference {theirs.j.shape[0]}; "
          f"densities agree to {relative(call_sphad(case, Op('Density'), 'Wendland2', 'Gather'), call_reference(case, Op('Density'), 'Wendland2', 'Gather')):.1e} (float32)")
    columns = ["reference", "sphad x1", "sphad x2"]
    rows = []
    for mode, name in (("nograd", "forward, no grad"),
                       ("tape", "forward, positions require grad"),
                       ("backward", "forward + backward")):
        rows.append((name, timed_pair(case, Op("Density"), "Wendland2", "Gather", None, mode,
                                      number=200, repeat=7, warmup=10)))
    # sphad's NumPy call (no torch at all), for scale.
    sp = pk.sphad
    x, h, m, k = (t.numpy() for t in (case.x, case.h, case.m, case.kinds))
    out = np.empty(case.n, dtype=x.dtype)
    numpy_row = {}
    for threads in (1, 2):
        set_threads(pk, threads)
        numpy_row[f"sphad x{threads}"] = best_us(
            lambda: sp.density(x, h, m, k, ours, case.box, kernel=sp.Kernel.Wendland2,
                               out=out), 200, 7, 10)
    set_threads(pk, 1)
    rows.append(("sphad NumPy call (sphad.density)", numpy_row))
    print_rows("", rows, columns)


def scaling(pk, sizes, repeat):
    """Density and a Difference Gradient at several N (random points, ~28 neighbours)."""
    precision = "float64" if pk.dtype == pk.torch.float64 else "float32"
    print(f"  random points in the periodic unit box, 2D, {precision}, Wendland4, Gather, "
          f"~28 neighbours; us per call (best of {repeat} loops of >= {LOOP_SECONDS} s or "
          f"3 calls)")
    columns = ["reference", "sphad x1", "sphad x2"]
    for n in sizes:
        case = random_case(pk, n, 2, neighbours=28, seed=3)
        # Fixed supports, as in sphad's benchmarks.
        case.h = pk.torch.full((n,), float(case.h.mean()), dtype=pk.dtype)
        case._lists.clear()
        ours, theirs = case.lists("Gather")
        values = fields(case)
        pairs = ours.num_pairs
        rows = []
        for op in (Op("Density"), Op("Gradient", "scalar", "Difference")):
            for mode, name in (("nograd", "forward, no grad"),
                               ("backward", "forward + backward")):
                rows.append((f"{op.label()}, {name}",
                             timed_pair(case, op, "Wendland4", "Gather", values[op.field],
                                        mode, number=None, repeat=repeat, warmup=2)))
        rows.append(("neighbour search (not in the rows above)", search_us(case, "Gather")))
        print_rows(f"  N = {n}: {pairs} pairs (reference's list {theirs.j.shape[0]})", rows,
                   columns)


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            return next(line.split(":", 1)[1].strip() for line in f
                        if line.startswith("model name"))
    except (OSError, StopIteration):
        import platform
        return platform.processor() or platform.machine()


def load_average():
    try:
        return " ".join(open("/proc/loadavg").read().split()[:3])
    except OSError:
        return "unknown"


def timings(pk, part):
    if part == "float32":
        overhead_case(pk)
        return
    torch = pk.torch
    print("Part 2: timings, torch.set_num_threads(1); 'sphad x1' / 'x2': sphad with 1 / 2 "
          "OpenMP threads (see the docstring); the reference on 1")
    print(f"  {cpu_model()}, {os.cpu_count()} CPUs; torch "
          f"{torch.__version__}, warp {__import__('warp').__version__}, warpSPHCore "
          f"{pk.ref.__version__}; load average at the start: {load_average()}")
    # The reference's own case, float32: a second process (its precision is global).
    sys.stdout.flush()
    subprocess.run([sys.executable, "-P", os.path.abspath(__file__), "--part", "float32"],
                   check=True)
    scaling(pk, [100], repeat=7)
    scaling(pk, [10_000], repeat=5)
    scaling(pk, [100_000], repeat=3)
    print(f"  load average at the end (1, 5, 15 min): {load_average()}; other processes' load "
          f"makes the 2-thread rows unreliable (an OpenMP team waits for its slowest thread)")


# --------------------------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agreement", action="store_true", help="part 1 only")
    parser.add_argument("--timings", action="store_true", help="part 2 only")
    parser.add_argument("--quick", action="store_true", help="fewer agreement cases")
    parser.add_argument("--part", default="float64", help=argparse.SUPPRESS)
    args = parser.parse_args()
    pk = Packages(args.part)
    pk.torch.set_num_threads(1)
    if args.part == "float32":
        timings(pk, "float32")
        return 0
    ok = True
    if not args.timings:
        t0 = time.perf_counter()
        ok = agreement(pk, args.quick)
        print(f"  ({time.perf_counter() - t0:.0f} s)")
    if not args.agreement:
        timings(pk, "float64")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
