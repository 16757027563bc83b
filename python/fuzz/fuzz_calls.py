# SPDX-License-Identifier: MIT
"""Coverage-guided fuzz target of the Python binding (atheris, libFuzzer's engine over the
package's Python, instrumented). Each input decodes into one call: an operator from a menu of
entries the module has (or the tests compiled), its dimension, dtype and particle count, through
NumPy or torch (without grad, forward + backward, forward mode), over a list from the search or
a hand-made list of tensors, with faults drawn from the input: a wrong dtype or layout, a short
array, hostile values (NaN, ±inf, negative, zero, huge, denormal), an unknown kind, a box of
another dimension, a list index out of range or falling offsets, references of their own size,
volumes and corrections.

Every call must either succeed — every output with one row per query, every gradient shaped
like its input — or raise TypeError or ValueError; and never modify an array the caller owns.
Anything else (another exception, a crash, a hang) is a finding.

Usage: python -P fuzz/fuzz_calls.py CORPUS_DIR [SEEDS_DIR] [libFuzzer flags, e.g.
-max_total_time=60]   (scripts/fuzz.sh runs it beside the C++ targets)
"""
import pathlib
import sys

import atheris

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests"))
import faults  # noqa: E402  (tests/faults.py: the fault maker the hostile-input tests share)

with atheris.instrument_imports(include=["sphad"]):
    import numpy as np
    import torch

    import sphad
    import sphad.torch as st

KERNELS = [sphad.Kernel.Wendland2, sphad.Kernel.Wendland4, sphad.Kernel.Wendland6,
           sphad.Kernel.CubicSpline]
SUPPORTS = list(sphad.SupportScheme.__members__.values())
FIELD_OPERATORS = ["interpolate", "gradient", "laplacian", "divergence"]
PIPELINES = ["covariance", "renormalization_matrices", "grad_h_omegas", "crk_factors"]


def corrupt(fdp, a):
    """`a`, or `a` with one fault the input picks (tests/faults.py)."""
    return faults.corrupt(lambda k: fdp.ConsumeIntInRange(0, k - 1), a, clean=5)


def particle_set(fdp, rng, n, dim, dtype):
    x = rng.random((n, dim)).astype(dtype)
    h = np.full(n, fdp.ConsumeFloatInRange(0.05, 0.6), dtype=dtype)
    m = np.full(n, 1.0 / max(n, 1), dtype=dtype)
    rho = (1.0 + 0.1 * rng.random(n)).astype(dtype)
    return {"positions": x, "supports": h, "masses": m,
            "kinds": np.zeros(n, dtype=np.int32), "densities": rho,
            "volumes": (m / rho).astype(dtype)}


def snapshot(arrays):
    return [(a, a.copy()) for a in arrays if isinstance(a, np.ndarray)]


def unchanged(saved):
    return all(a.tobytes() == b.tobytes() for a, b in saved)


def as_torch(a, grad):
    if not isinstance(a, np.ndarray):
        return a
    t = torch.from_numpy(a)
    return t.requires_grad_(True) if grad and t.is_floating_point() else t


def TestOneInput(data):
    fdp = atheris.FuzzedDataProvider(data)
    rng = np.random.default_rng(fdp.ConsumeIntInRange(0, 2**16))
    dim = fdp.ConsumeIntInRange(1, 3)
    dtype = np.float64 if fdp.ConsumeBool() else np.float32
    n = fdp.ConsumeIntInRange(0, 12)
    kind = fdp.ConsumeIntInRange(0, 2)  # 0 Density, 1 a field operator, 2 a pipeline
    if kind == 0:
        operator, kernel = "density", KERNELS[fdp.ConsumeIntInRange(0, 3)]
        support = SUPPORTS[fdp.ConsumeIntInRange(0, len(SUPPORTS) - 1)]
    else:  # the entries the tests compile: Wendland4, Gather, 2D float64
        dim, dtype, kernel, support = 2, np.float64, sphad.Kernel.Wendland4, \
            sphad.SupportScheme.Gather
        operator = (FIELD_OPERATORS if kind == 1 else PIPELINES)[fdp.ConsumeIntInRange(0, 3)]
    q = particle_set(fdp, rng, n, dim, dtype)
    own_references = fdp.ConsumeBool() and operator not in ("crk_factors",)
    nr = fdp.ConsumeIntInRange(0, 12) if own_references else n
    r = particle_set(fdp, rng, nr, dim, dtype) if own_references else q
    values = rng.random(n).astype(dtype)
    reference_values = rng.random(nr).astype(dtype) if own_references else values
    # one fault, or none
    where = fdp.ConsumeIntInRange(0, 8)
    names = ["positions", "supports", "masses", "kinds", "densities"]
    if where < 5:
        q[names[where]] = corrupt(fdp, q[names[where]])
        if not own_references:
            r = q
    elif where == 5:
        values = corrupt(fdp, values)
    box_dim = dim if where != 6 else dim % 3 + 1
    periodic = fdp.ConsumeBool()
    domain = sphad.Domain([0.0] * box_dim, [1.0] * box_dim, [periodic] * box_dim)
    frontend = fdp.ConsumeIntInRange(0, 3)  # NumPy, torch no grad, backward, forward mode
    hand_made = where == 7 or (frontend > 0 and fdp.ConsumeBool())
    owned = snapshot([*q.values(), *r.values(), values, reference_values])
    try:
        neighbors = sphad.neighbor_list(q["positions"], q["supports"], domain,
                                        support=support if kind == 0 else
                                        sphad.SupportScheme.Gather,
                                        references=(r["positions"], r["supports"]))
    except (TypeError, ValueError):
        assert unchanged(owned)
        return
    if hand_made:
        offsets = np.asarray(neighbors.offsets).copy()
        pairs = np.asarray(neighbors.neighbors).copy()
        if where == 7 and len(pairs):
            pairs[fdp.ConsumeIntInRange(0, len(pairs) - 1)] = [-1, nr, 2**31 - 1][
                fdp.ConsumeIntInRange(0, 2)]
        elif where == 7 and len(offsets) > 2:
            offsets[1] = offsets[-1] + 1
        neighbors = st.NeighborTensors(torch.from_numpy(offsets), torch.from_numpy(pairs))
        frontend = max(frontend, 1)
        owned += snapshot([offsets, pairs])
    grad = frontend == 2
    wrap = (lambda a: a) if frontend == 0 else (lambda a: as_torch(a, grad))
    module = sphad if frontend == 0 else st
    qs = [wrap(q[k]) for k in names]
    refs = None if not own_references else sphad.Particles(
        *(wrap(r[k]) for k in names), None, wrap(reference_values))
    options = {}
    if operator not in ("density", "grad_h_omegas", "crk_factors") and fdp.ConsumeBool():
        options["volumes"] = wrap(q["volumes"])
        if refs is not None:
            refs = refs._replace(volumes=wrap(r["volumes"]))
    try:
        if operator == "density":
            call = lambda: module.density(*qs[:4], neighbors, domain, kernel=kernel,  # noqa
                                          support=support, references=refs)
        elif operator in FIELD_OPERATORS:
            call = lambda: getattr(module, operator)(*qs, wrap(values), neighbors,  # noqa
                                                     domain, references=refs, **options)
        elif operator == "crk_factors":
            call = lambda: module.crk_factors(*qs[:4], neighbors, domain)  # noqa
        elif operator == "grad_h_omegas":
            call = lambda: module.grad_h_omegas(*qs, neighbors, domain,  # noqa
                                                references=refs)
        else:
            call = lambda: getattr(module, operator)(*qs, neighbors, domain,  # noqa
                                                     references=refs, **options)
        if frontend == 3:
            tangent = torch.ones_like(qs[0]) if qs[0].is_floating_point() else None
            if tangent is None:
                result = call()
            else:
                with torch.autograd.forward_ad.dual_level():
                    qs[0] = torch.autograd.forward_ad.make_dual(qs[0], tangent)
                    result = call()
        else:
            result = call()
        outputs = [o for o in (result if isinstance(result, tuple) else (result,))
                   if o is not None and not isinstance(o, sphad.CRKState)]
        for o in outputs:
            assert o.shape[0] == n, (operator, o.shape, n)
        if grad:
            total = sum((o.double().sum() for o in outputs if o.is_floating_point()
                         and o.requires_grad), torch.zeros((), dtype=torch.float64))
            if total.requires_grad:
                total.backward()
            for t in qs:
                if isinstance(t, torch.Tensor) and t.grad is not None:
                    assert t.grad.shape == t.shape
    except (TypeError, ValueError):
        pass
    assert unchanged(owned), "an array the caller owns was modified"


def warm_up():
    """Compiles (or loads) the menu's entries before fuzzing, so that no input's time includes
    a compilation (libFuzzer's -timeout would call a slow compile a hang)."""
    rng = np.random.default_rng(0)
    q = particle_set(atheris.FuzzedDataProvider(b""), rng, 8, 2, np.float64)
    args = [q[k] for k in ("positions", "supports", "masses", "kinds", "densities")]
    domain = sphad.Domain([0.0, 0.0], [1.0, 1.0], [True, True])
    neighbors = sphad.neighbor_list(q["positions"], q["supports"], domain)
    calls = [(operator, (*args, rng.random(8)), {"volumes": v})
             for operator in FIELD_OPERATORS for v in (None, q["volumes"])]
    calls += [(operator, args, {"volumes": v})
              for operator in ("covariance", "renormalization_matrices")
              for v in (None, q["volumes"])]
    calls += [("grad_h_omegas", args, {}), ("crk_factors", args[:4], {})]
    for operator, arrays, options in calls:
        try:
            getattr(sphad, operator)(*arrays, neighbors, domain, **options)
        except ValueError:  # the entry is compiled all the same (a scalar's divergence in
            pass            # 2D: its entry says so; the CRK factors want another list)


def main():
    atheris.Setup(sys.argv, TestOneInput)
    warm_up()
    atheris.Fuzz()


if __name__ == "__main__":
    main()
