# SPDX-License-Identifier: MIT
"""The correction pipelines from Python (CRK factors, renormalization matrices, grad-h Omega):
what each correction exists for — CRK interpolation and renormalized gradients exact for linear
fields on a jittered set — and their derivatives in the positions and supports against central
differences (gradcheck with forward mode), through a corrected operator too."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import sphad  # noqa: E402
import sphad.torch as st  # noqa: E402
from sphad import GradientScheme as GS  # noqa: E402
from sphad import SupportScheme as S  # noqa: E402


def jittered(side=8, dim=2, jitter=0.15, seed=2, periodic=False):
    """A jittered lattice in the unit box with uniform supports (3 spacings): float64 tensors
    x, h, m, kinds, the domain."""
    rng = np.random.default_rng(seed)
    g = (np.arange(side) + 0.5) / side
    x = np.stack(np.meshgrid(*[g] * dim, indexing="ij"), -1).reshape(-1, dim)
    x = x + jitter / side * (rng.random(x.shape) - 0.5)
    n = len(x)
    t = lambda a: torch.from_numpy(np.ascontiguousarray(a))  # noqa: E731
    return (t(x), t(np.full(n, 3.0 / side)), t(np.full(n, 1.0 / n)),
            t(np.zeros(n, np.int32)), sphad.Domain([0.0] * dim, [1.0] * dim, [periodic] * dim))


def test_crk_interpolation_reproduces_linear_fields():
    x, h, m, kinds, domain = jittered()
    neighbors = sphad.neighbor_list(x, h, domain, support=S.SuperSymmetric)
    crk = st.crk_factors(x, h, m, kinds, neighbors, domain)
    f = 0.3 + 2.0 * x[:, 0] - 1.5 * x[:, 1]
    rho = torch.ones_like(h)
    out = st.interpolate(x, h, m, kinds, rho, f, neighbors, domain, support=S.Scatter,
                         volumes=crk.volumes, crk=crk.state)
    np.testing.assert_allclose(out.numpy(), f.numpy(), rtol=0, atol=1e-12)
    assert crk.state.b.shape == (len(x), 2) and crk.state.grad_b.shape == (len(x), 2, 2)


def test_renormalized_gradient_of_linear_fields_is_exact():
    x, h, m, kinds, domain = jittered(seed=4)
    neighbors = sphad.neighbor_list(x, h, domain)
    rho = st.density(x, h, m, kinds, neighbors, domain)
    lmat = st.renormalization_matrices(x, h, m, kinds, rho, neighbors, domain)
    f = 0.3 + 2.0 * x[:, 0] - 1.5 * x[:, 1]
    grad = st.gradient(x, h, m, kinds, rho, f, neighbors, domain, scheme=GS.Difference,
                       renormalization=lmat)
    expected = torch.tensor([2.0, -1.5], dtype=torch.float64).expand_as(grad)
    np.testing.assert_allclose(grad.numpy(), expected.numpy(), rtol=0, atol=1e-12)


def test_numpy_pipelines_equal_torch_bitwise():
    x, h, m, kinds, domain = jittered(seed=5)
    neighbors = sphad.neighbor_list(x, h, domain, support=S.SuperSymmetric)
    a = lambda t: t.numpy()  # noqa: E731
    t = st.crk_factors(x, h, m, kinds, neighbors, domain)
    n = sphad.crk_factors(a(x), a(h), a(m), a(kinds), neighbors, domain)
    for u, v in zip((t.volumes, t.density, *t.state), (n.volumes, n.density, *n.state)):
        assert np.array_equal(u.numpy(), v)
    rho = sphad.density(a(x), a(h), a(m), a(kinds), neighbors, domain)
    assert np.array_equal(
        sphad.grad_h_omegas(a(x), a(h), a(m), a(kinds), rho, neighbors, domain),
        st.grad_h_omegas(x, h, m, kinds, torch.from_numpy(rho), neighbors, domain).numpy())


def leaves(*tensors):
    return [t.detach().clone().requires_grad_(True) for t in tensors]


def test_crk_factors_gradcheck():
    x, h, m, kinds, domain = jittered(side=5, seed=6)
    neighbors = sphad.neighbor_list(x, h, domain, support=S.SuperSymmetric, skin=0.02)
    x, h, m = leaves(x, h, m)

    def fn(x, h, m):
        f = st.crk_factors(x, h, m, kinds, neighbors, domain)
        return (f.volumes, f.density, *f.state)
    assert torch.autograd.gradcheck(fn, (x, h, m), check_forward_ad=True, check_batched_grad=True)


def test_renormalization_and_omegas_gradcheck():
    x, h, m, kinds, domain = jittered(side=5, seed=7)
    neighbors = sphad.neighbor_list(x, h, domain, skin=0.02)
    rho = st.density(x, h, m, kinds, neighbors, domain)
    x, h, m, rho = leaves(x, h, m, rho)

    def fn(x, h, m, rho):
        return (st.renormalization_matrices(x, h, m, kinds, rho, neighbors, domain),
                st.grad_h_omegas(x, h, m, kinds, rho, neighbors, domain))
    assert torch.autograd.gradcheck(fn, (x, h, m, rho), check_forward_ad=True, check_batched_grad=True)


def test_gradients_flow_through_the_pipeline_into_a_corrected_operator():
    x, h, m, kinds, domain = jittered(side=8, seed=8, periodic=True)
    neighbors = sphad.neighbor_list(x, h, domain, support=S.SuperSymmetric, skin=0.02)
    f = torch.sin(2 * np.pi * x[:, 0]) + x[:, 1] ** 2
    x, f = leaves(x, f)

    def fn(x, f):
        rho = st.density(x, h, m, kinds, neighbors, domain)
        crk = st.crk_factors(x, h, m, kinds, neighbors, domain)
        lmat = st.renormalization_matrices(x, h, m, kinds, rho, neighbors, domain, crk=crk.state)
        omegas = st.grad_h_omegas(x, h, m, kinds, rho, neighbors, domain)
        return st.gradient(x, h, m, kinds, rho, f, neighbors, domain, scheme=GS.Difference,
                           support=S.Scatter, volumes=crk.volumes, crk=crk.state,
                           renormalization=lmat, omegas=omegas)
    assert torch.autograd.gradcheck(fn, (x, f), check_forward_ad=True, check_batched_grad=True)


def test_covariance_counts_and_its_link_to_renormalization():
    x, h, m, kinds, domain = jittered(seed=9)
    neighbors = sphad.neighbor_list(x, h, domain)
    rho = st.density(x, h, m, kinds, neighbors, domain)
    c, counts = st.covariance(x, h, m, kinds, rho, neighbors, domain)
    assert c.shape == (len(x), 2, 2) and counts.dtype == torch.int32
    rows = torch.from_numpy(np.diff(neighbors.offsets))
    assert torch.equal(counts.long(), rows)  # no skin: every listed pair has W > 0
    lmat = st.renormalization_matrices(x, h, m, kinds, rho, neighbors, domain)
    eye = torch.eye(2, dtype=torch.float64).expand_as(lmat)
    torch.testing.assert_close(lmat @ c.transpose(1, 2), eye, rtol=0, atol=1e-12)
    n_c, n_counts = sphad.covariance(x.numpy(), h.numpy(), m.numpy(), kinds.numpy(),
                                     rho.numpy(), neighbors, domain)
    assert np.array_equal(n_c, c.numpy()) and np.array_equal(n_counts, counts.numpy())


def test_covariance_gradcheck():
    x, h, m, kinds, domain = jittered(side=5, seed=10)
    neighbors = sphad.neighbor_list(x, h, domain, skin=0.02)
    rho = st.density(x, h, m, kinds, neighbors, domain)
    x, h, m, rho = leaves(x, h, m, rho)

    def fn(x, h, m, rho):
        return st.covariance(x, h, m, kinds, rho, neighbors, domain)[0]
    assert torch.autograd.gradcheck(fn, (x, h, m, rho), check_forward_ad=True,
                                    check_batched_grad=True)
