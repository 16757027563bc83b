# SPDX-License-Identifier: MIT
"""CUDA tensors. Where nvcc is found (the package's build, or $SPHAD_NVCC): the CUDA entries
the package generates — the search, operator entries of each shape with corrections and
volumes, and the correction pipelines — compile with nvcc for sm_90 with warnings as errors,
load, and describe their outputs as the host entries do (no GPU needed). Where torch sees a GPU: the
CUDA call equals the CPU call (values, backward, forward mode, the pipelines), the list of
tensors works, the module reads the tensors' own memory, and no operator call or backward
synchronizes with the host."""
import concurrent.futures
import os
import time

import numpy as np
import pytest

import sphad
from sphad import _calls, _entries, _jit
from sphad import DivergenceMode as DM
from sphad import GradientScheme as GS
from sphad import Kernel as K
from sphad import SupportScheme as S

from conftest import cloud

try:
    _NVCC = _jit.nvcc()
except NotImplementedError:
    _NVCC = None
needs_nvcc = pytest.mark.skipif(_NVCC is None, reason="no nvcc: the CUDA entries cannot compile")

# (operator, D, dtype, field trailing shape, volumes, correction bits): the shapes the entry
# glue (python/src/entry.hpp) tells apart: a scalar operator with and without volumes in both
# scalars, a vector field with every correction, a matrix field. Every operator family compiles
# for the device in the C++ CUDA build (tests/ops/ops.test.cu).
FAMILIES = [
    (sphad.Operator("Density", K.Wendland4, S.Gather), 2, "float64", None, False, 0),
    (sphad.Operator("Density", K.CubicSpline, S.SuperSymmetric), 3, "float32", None, True, 0),
    (sphad.Operator("Gradient", K.B7, S.MeanSymmetric, gradient_scheme=GS.Difference), 2,
     "float64", (2,), False, 7),
    (sphad.Operator("Divergence", K.Wendland6, S.Gather, gradient_scheme=GS.Symmetric,
                    divergence_mode=DM.Dot), 2, "float64", (3, 2), False, 0),
]
# The correction pipelines: (pipeline, kernel, support, D, dtype, volumes, correction bits).
PIPELINES = [
    ("CRK", "Wendland4", "Gather", 2, "float64", False, 0),
    ("Renormalization", "QuinticSpline", "Scatter", 3, "float32", True, 1),
    ("Omegas", "CubicSpline", "Gather", 1, "float64", False, 0),
    ("Covariance", "Wendland2", "MeanSymmetric", 2, "float64", False, 6),
]
IDS = [f"{f[0].operation}-{f[1]}d-{f[2]}" for f in FAMILIES] + \
    [f"{p[0]}-{p[3]}d-{p[4]}" for p in PIPELINES]


def _key(family, cuda=True):
    if isinstance(family[0], str):
        name, kernel, support, dim, dtype, volumes, bits = family
        return _entries.key(_entries.pipeline_type(name, kernel, support), dim, dtype,
                            _entries.PIPELINE_FIELD, volumes, bits, cuda)
    op, dim, dtype, shape, volumes, bits = family
    return sphad.entry_key(op, dim, dtype, shape, volumes, bits, cuda=cuda)


@pytest.fixture(scope="module")
def cuda_compiled():
    """The families' CUDA entries and the search entries, compiled two at a time, with
    warnings as errors (each once per cache and architecture)."""
    if _NVCC is None:
        pytest.skip("no nvcc")
    keys = [_key(f) for f in FAMILIES + PIPELINES] + [_entries.search_key(3, "float32")]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        return list(pool.map(lambda k: _jit.compile_entry(k, warnings_as_errors=True), keys))


# What each describes: outputs' trailing shapes, int32 outputs, densities read, values read
# (the host entries' answers: the operators' and pipelines' own rules).
DESCRIBED = [
    (((),), (False,), False, False),
    (((),), (False,), False, False),
    (((2, 2),), (False,), True, True),
    (((3,),), (False,), True, True),
    (((), (), (), (2,), (2,), (2, 2)), (False,) * 6, False, False),
    (((3, 3),), (False,), True, False),
    (((),), (False,), True, False),
    (((2, 2), ()), (False, True), True, False),
]


@needs_nvcc
@pytest.mark.parametrize("family,described", list(zip(FAMILIES + PIPELINES, DESCRIBED)), ids=IDS)
def test_cuda_entry_compiles_and_describes_its_outputs(cuda_compiled, family, described):
    cuda = _calls._describe(_key(family, cuda=True))
    assert (cuda.outputs, cuda.integer_outputs, cuda.needs_densities, cuda.needs_values) == \
        described


@needs_nvcc
def test_cuda_entry_describes_like_the_host_entry(cuda_compiled):
    """The first family's host entry is built into the module (no compile)."""
    cuda, host = (_calls._describe(_key(FAMILIES[0], cuda=c)) for c in (True, False))
    assert (cuda.outputs, cuda.needs_densities, cuda.needs_values, cuda.integer_outputs) == \
        (host.outputs, host.needs_densities, host.needs_values, host.integer_outputs)
    assert cuda.address != host.address


@needs_nvcc
def test_cuda_entry_refuses_host_arrays(cuda_compiled):
    """A CUDA entry handed host memory reports it before touching the device (the module
    chooses entries by the positions' device, so only a direct call can do this)."""
    x, h, m, kinds, domain = cloud(n=20)
    listing = sphad.neighbor_list(x, h, domain)
    e = _calls._describe(_key(FAMILIES[0]))
    arrays = sphad.slots((x, h, m, kinds, None, None, None) * 2 + _calls._NO_CORRECTIONS)
    arrays[sphad.OUT] = np.empty(20)
    with pytest.raises(ValueError, match="is host memory, and this entry runs on CUDA"):
        sphad._core.run(e.address, 1, "density", arrays,
                        sphad._core._Call(listing, domain._native, sphad.Direction.AllToAll, 0.0))


def test_cuda_keys_are_their_own():
    op = FAMILIES[0][0]
    host, cuda = (sphad.entry_key(op, 2, "float64", None, False, 0, cuda=c) for c in (0, 1))
    assert cuda == host + ";cuda" and _entries.symbol(cuda) != _entries.symbol(host)
    with pytest.raises(ValueError, match="one execution space"):
        _entries.source([host, cuda])


# ---- on a GPU ------------------------------------------------------------------------------

try:
    import torch
    import sphad.torch as st
except ImportError:  # the compile checks above run without torch
    torch = None
gpu = pytest.mark.skipif(torch is None or not torch.cuda.is_available() or _NVCC is None,
                         reason="no GPU visible to torch (or no nvcc)")


def _pair(n=80, dim=2, dtype=None, seed=5):
    """The same particles on the CPU and the GPU (leaves requiring grad)."""
    dtype = dtype or torch.float64
    x, h, m, kinds, domain = cloud(n=n, dim=dim, seed=seed)
    cpu = [torch.tensor(a, dtype=dtype if a.dtype != np.int32 else torch.int32)
           for a in (x, h, m, kinds)]
    gpu_ = [a.cuda() for a in cpu]
    return cpu, gpu_, domain


@gpu
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_density_and_gradient_on_cuda_equal_the_cpu(dtype):
    dtype = getattr(torch, dtype)
    cpu, dev, domain = _pair(dtype=dtype)
    tol = 1e-12 if dtype == torch.float64 else 1e-5
    results = []
    for x, h, m, k in (cpu, dev):
        x = x.clone().requires_grad_()
        nl = sphad.neighbor_list(x.detach(), h, domain, skin=0.01)
        rho = st.density(x, h, m, k, nl, domain)
        f = torch.sin(3 * x.detach()[:, 0]).requires_grad_()
        g = st.gradient(x, h, m, k, rho, f, nl, domain, scheme=GS.Difference)
        (rho.square().sum() + g.square().sum()).backward()
        results.append([t.detach().cpu() for t in (rho, g, x.grad, f.grad)])
    for a, b in zip(*results):
        torch.testing.assert_close(b, a, rtol=tol, atol=tol)


@gpu
def test_forward_mode_on_cuda_equals_the_cpu():
    cpu, dev, domain = _pair()
    u = torch.randn(cpu[0].shape, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    out = []
    for (x, h, m, k), uu in ((cpu, u), (dev, u.cuda())):
        nl = sphad.neighbor_list(x, h, domain)
        _, t = torch.func.jvp(lambda y: st.density(y, h, m, k, nl, domain), (x,), (uu,))
        out.append(t.cpu())
    torch.testing.assert_close(out[1], out[0], rtol=1e-12, atol=1e-12)


@gpu
def test_cuda_list_of_tensors_and_zero_copy():
    cpu, (x, h, m, k), domain = _pair()
    nl = sphad.neighbor_list(x, h, domain)
    assert nl.device == x.device.index
    tensors = st.neighbor_tensors(x, h, domain)
    assert tensors.offsets.is_cuda and tensors.neighbors.shape[0] == nl.num_pairs
    torch.testing.assert_close(st.density(x, h, m, k, tensors, domain),
                               st.density(x, h, m, k, nl, domain), rtol=1e-14, atol=0)
    assert sphad._core._address(x) == x.data_ptr()


@gpu
def test_mixed_devices_are_refused():
    (xc, hc, mc, kc), (x, h, m, k), domain = _pair()
    nl = sphad.neighbor_list(x, h, domain)
    with pytest.raises(TypeError, match="every array of a call must be on the positions' device"):
        st.density(x, hc, m, k, nl, domain)
    with pytest.raises(ValueError, match="search with the positions on their device"):
        st.density(xc, hc, mc, kc, nl, domain)


@gpu
def test_correction_pipelines_on_cuda_equal_the_cpu():
    """The CRK factors, Omegas and renormalization matrices with their backward, and
    Covariance, on the GPU and the CPU."""
    cpu, dev, domain = _pair(n=60)
    results = []
    for x, h, m, k in (cpu, dev):
        x = x.clone().requires_grad_()
        nl = sphad.neighbor_list(x.detach(), h, domain, support=S.SuperSymmetric)
        f = st.crk_factors(x, h, m, k, nl, domain)
        rho = st.density(x, h, m, k, nl, domain, support=S.SuperSymmetric)
        omegas = st.grad_h_omegas(x, h, m, k, rho, nl, domain)
        lmat = st.renormalization_matrices(x, h, m, k, rho, nl, domain, support=S.SuperSymmetric)
        cov, counts = st.covariance(x, h, m, k, rho, nl, domain, support=S.SuperSymmetric)
        loss = sum(t.square().sum() for t in (*f.state, f.volumes, f.density, omegas, lmat, cov))
        loss.backward()
        results.append([t.detach().cpu() for t in (*f.state, omegas, lmat, cov, counts, x.grad)])
    for a, b in zip(*results):
        torch.testing.assert_close(b, a, rtol=1e-11, atol=1e-11)


@gpu
def test_no_host_synchronization_in_calls_and_backward():
    """Two checks. torch's sync-debug mode sees the synchronizations torch makes (none in
    sphad's Python layer). sphad's entries call CUDA through their own runtime, which that
    mode cannot see: so the GPU is first kept busy for ~0.5 s (torch.cuda._sleep on the
    current stream), and the calls and the backward must return to the host long before it
    is free again (a synchronization would wait for it)."""
    _, (x, h, m, k), domain = _pair(n=200)
    nl = sphad.neighbor_list(x, h, domain)  # the search reads its pair count: it synchronizes
    x = x.clone().requires_grad_()
    f = torch.cos(2 * x.detach()[:, 1]).requires_grad_()

    def step():
        with torch.no_grad():
            st.density(x, h, m, k, nl, domain)
        rho = st.density(x, h, m, k, nl, domain)
        lap = st.laplacian(x, h, m, k, rho, f, nl, domain)
        (rho.sum() + lap.square().sum()).backward()
        _, t = torch.func.jvp(lambda y: st.density(y, h, m, k, nl, domain), (x.detach(),),
                              (torch.ones_like(x),))
        return t

    step()  # the entries compiled and loaded
    torch.cuda.synchronize()
    previous = torch.cuda.get_sync_debug_mode()
    torch.cuda.set_sync_debug_mode("error")
    try:
        step()
    finally:
        torch.cuda.set_sync_debug_mode(previous)
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    start.record()
    torch.cuda._sleep(int(1e9))  # ~0.5 s of GPU time at 2 GHz
    busy = torch.cuda.Event(enable_timing=True)
    busy.record()
    t0 = time.perf_counter()
    t = step()
    host = time.perf_counter() - t0
    torch.cuda.synchronize()
    slept = start.elapsed_time(busy) / 1e3
    assert slept > 0.2, f"the GPU slept only {slept} s"
    assert host < slept / 2, f"the calls took {host} s on the host while the GPU was busy " \
        f"for {slept} s: something synchronized"
    assert torch.isfinite(x.grad).all() and torch.isfinite(f.grad).all() and \
        torch.isfinite(t).all()


@gpu
def test_cuda_device_entries_are_compiled_for_the_gpu():
    major, minor = torch.cuda.get_device_capability()
    assert _jit.cuda_architecture() == os.environ.get("SPHAD_CUDA_ARCH", f"{major}{minor}")
