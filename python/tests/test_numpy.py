# SPDX-License-Identifier: MIT
"""The NumPy front end, without torch: values against a direct sum, the neighbour list's
arrays, zero copy, and the errors a wrong array gets."""
import subprocess
import sys

import numpy as np
import pytest

import sphad
from sphad import _core

from conftest import cloud


def wendland4_2d(r, h):
    q = r / h
    k = np.where(q < 1, (1 - q) ** 6 * (1 + 6 * q + 35.0 / 3.0 * q * q), 0.0)
    return 9.0 / (np.pi * h * h) * k


def test_import_does_not_import_torch():
    code = "import sys, sphad; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("periodic", [False, True])
def test_density_equals_the_direct_sum(periodic):
    x, h, m, kinds, domain = cloud(n=80, periodic=periodic)
    neighbors = sphad.neighbor_list(x, h, domain)
    rho = sphad.density(x, h, m, kinds, neighbors, domain, kernel=sphad.Kernel.Wendland4)
    d = x[:, None, :] - x[None, :, :]
    if periodic:
        d -= np.round(d)
    r = np.linalg.norm(d, axis=2)
    expected = (m[None, :] * wendland4_2d(r, h[:, None])).sum(axis=1)  # Gather: h_ij = h_i
    np.testing.assert_allclose(rho, expected, rtol=1e-13, atol=0)


def test_neighbor_list_holds_every_pair_in_range():
    x, h, _, _, domain = cloud(n=50, periodic=False)
    neighbors = sphad.neighbor_list(x, h, domain, skin=0.01)
    offsets, js = neighbors.offsets, neighbors.neighbors
    assert offsets.dtype == np.int64 and js.dtype == np.int32
    assert offsets[0] == 0 and offsets[-1] == neighbors.num_pairs == len(js)
    r = np.linalg.norm(x[:, None, :] - x[None, :, :], axis=2)
    for i in range(len(x)):
        row = set(js[offsets[i]:offsets[i + 1]].tolist())
        assert row == set(np.nonzero(r[i] <= h[i] + 0.01)[0].tolist())


def test_outputs_are_written_in_place_and_inputs_read_where_they_are():
    x, h, m, kinds, domain = cloud()
    out = np.zeros(len(x))
    returned = sphad.density(x, h, m, kinds, sphad.neighbor_list(x, h, domain), domain, out=out)
    assert returned is out and np.all(out > 0)
    assert _core._address(x) == x.ctypes.data


def test_float32_agrees_with_float64():
    x, h, m, kinds, domain = cloud()
    x32, h32, m32 = x.astype(np.float32), h.astype(np.float32), m.astype(np.float32)
    rho64 = sphad.density(x, h, m, kinds, sphad.neighbor_list(x, h, domain), domain)
    rho32 = sphad.density(x32, h32, m32, kinds, sphad.neighbor_list(x32, h32, domain), domain)
    assert rho32.dtype == np.float32
    np.testing.assert_allclose(rho32, rho64, rtol=2e-5)  # float32: ~1e-6 per term, stated


def test_wrong_arrays_raise_naming_the_argument():
    x, h, m, kinds, domain = cloud()
    neighbors = sphad.neighbor_list(x, h, domain)
    with pytest.raises(TypeError, match="sphad::density: argument `masses` must have dtype float64"):
        sphad.density(x, h, m.astype(np.float32), kinds, neighbors, domain)
    with pytest.raises(TypeError, match="`kinds` must have dtype int32"):
        sphad.density(x, h, m, kinds.astype(np.int64), neighbors, domain)
    with pytest.raises(TypeError, match="`supports` must be contiguous"):
        sphad.density(x, np.repeat(h, 2)[::2], m, kinds, neighbors, domain)
    with pytest.raises(ValueError, match="`masses`: has shape \\(59,\\), expected \\(60,\\)"):
        sphad.density(x, h, m[:-1], kinds, neighbors, domain)
    with pytest.raises(ValueError, match="domain"):
        sphad.density(x, h, m, kinds, neighbors, sphad.Domain([0], [1], [True]))
    with pytest.raises(TypeError, match="`kernel` must be a sphad.Kernel"):
        sphad.density(x, h, m, kinds, neighbors, domain, kernel="Gaussian")
    with pytest.raises(TypeError, match="`scheme`|`gradient_scheme`"):
        sphad.gradient(x, h, m, kinds, m, m, neighbors, domain, scheme=2)
    with pytest.raises(ValueError, match="support"):
        # a Gather list does not serve a Scatter call (its pairs are another set)
        sphad.density(x, h, m, kinds, neighbors, domain, support=sphad.SupportScheme.Scatter)


def test_the_quickstart_example_runs():
    pytest.importorskip("torch")
    example = __import__("pathlib").Path(__file__).parents[1] / "examples" / "quickstart.py"
    out = subprocess.run([sys.executable, "-P", str(example)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "jvp =" in out.stdout


def test_density_of_queries_over_references_of_their_own():
    xq, hq, mq, kq, domain = cloud(n=40, periodic=False, seed=3)
    xr, hr, mr, kr, _ = cloud(n=25, periodic=False, seed=4)
    neighbors = sphad.neighbor_list(xq, hq, domain, references=(xr, hr))
    assert neighbors.num_queries == 40 and neighbors.neighbors.max() < 25
    rho = sphad.density(xq, hq, mq, kq, neighbors, domain,
                        references=sphad.Particles(xr, hr, mr, kr))
    r = np.linalg.norm(xq[:, None, :] - xr[None, :, :], axis=2)
    expected = (mr[None, :] * wendland4_2d(r, hq[:, None])).sum(axis=1)
    np.testing.assert_allclose(rho, expected, rtol=1e-13, atol=0)
    with pytest.raises(ValueError, match="`references.masses`: has shape \\(24,\\), expected \\(25,\\)"):
        sphad.density(xq, hq, mq, kq, neighbors, domain,
                      references=sphad.Particles(xr, hr, mr[:-1], kr))
    with pytest.raises(TypeError, match="`references.positions` must have dtype float64"):
        sphad.neighbor_list(xq, hq, domain, references=(xr.astype(np.float32), hr))


def test_the_enums_carry_the_cpp_values():
    assert len(sphad.Direction.__members__) == 15 and sphad.Direction.BoundaryToAll.value == 14
    assert sphad.Kernel.Wendland4.value == 1 and sphad.SupportScheme.Gather.value == 11
    assert len(sphad.Kernel.__members__) == 15 and len(sphad.SupportScheme.__members__) == 6
