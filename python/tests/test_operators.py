# SPDX-License-Identifier: MIT
"""Every operator from Python, over kernels and support schemes spread across the cases (each of
the 15 kernels and 6 schemes appears; most entries are compiled on first use): gradients and
forward-mode derivatives in every floating input against central differences (gradcheck,
float64), the NumPy and the torch call bitwise equal, volumes, separate references, float32."""
import concurrent.futures

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import sphad  # noqa: E402
import sphad.torch as st  # noqa: E402
from sphad import _jit  # noqa: E402
from sphad import DivergenceMode as DM  # noqa: E402
from sphad import GradientScheme as GS  # noqa: E402
from sphad import Kernel as K  # noqa: E402
from sphad import LaplacianScheme as LS  # noqa: E402
from sphad import SupportScheme as S  # noqa: E402

from conftest import cloud  # noqa: E402

SKIN = 0.02
# (operation, choices, field trailing shape, kernel, support scheme, D)
CASES = [
    ("Interpolate", {}, (), K.Poly6, S.Scatter, 2),
    ("Interpolate", {}, (3,), K.QuinticSpline, S.MeanSymmetric, 2),
    ("Gradient", {"scheme": GS.Naive}, (), K.Wendland4, S.Gather, 2),
    ("Gradient", {"scheme": GS.Symmetric}, (), K.QuarticSpline, S.KernelMeanSymmetric, 2),
    ("Gradient", {"scheme": GS.Difference}, (2,), K.B7, S.SuperSymmetric, 2),
    ("Gradient", {"scheme": GS.Summation}, (), K.B8, S.PartialSymmetric, 2),
    ("Gradient", {"scheme": GS.Difference}, (), K.Wendland4, S.Gather, 1),
    ("Gradient", {"scheme": GS.Naive}, (2, 2), K.Wendland6, S.Gather, 3),
    ("Divergence", {"scheme": GS.Difference}, (2,), K.Wendland6, S.Gather, 2),
    ("Divergence", {"scheme": GS.Symmetric, "divergence_mode": DM.Dot}, (3, 2), K.HOCT4,
     S.Scatter, 2),
    ("Divergence", {"scheme": GS.Naive, "consistent": True}, (2,), K.Gaussian, S.MeanSymmetric,
     2),
    ("Curl", {"scheme": GS.Difference}, (2,), K.CubicSpline, S.Gather, 2),
    ("Curl", {"scheme": GS.Naive}, (3,), K.Wendland2, S.Scatter, 3),
    ("Laplacian", {"laplacian_scheme": LS.Naive}, (), K.QuinticSpline, S.Gather, 2),
    ("Laplacian", {"laplacian_scheme": LS.Brookshaw}, (), K.ViscosityKernel,
     S.PartialSymmetric, 2),
    ("Laplacian", {"laplacian_scheme": LS.Dot}, (2,), K.Wendland4, S.KernelMeanSymmetric, 2),
    ("Laplacian", {"laplacian_scheme": LS.Default, "scheme": GS.Symmetric}, (),
     K.CohesionKernel, S.SuperSymmetric, 2),
    ("Laplacian", {"laplacian_scheme": LS.Brookshaw, "positive_divergence": True}, (2,),
     K.Spiky, S.Gather, 2),
    ("Density", {}, None, K.AdhesionKernel, S.Gather, 2),
]
IDS = [f"{c[0]}-{c[3].name}-{c[4].name}-{c[5]}d-{'x'.join(map(str, c[2] or ()))}"
       for c in CASES]


def operator(case):
    operation, choices, _, kernel, support, _ = case
    choices = dict(choices)
    scheme = choices.pop("scheme", GS.Naive)
    return sphad.Operator(operation, kernel, support, gradient_scheme=scheme, **choices)


@pytest.fixture(scope="module", autouse=True)
def compiled():
    """Compiles the cases' entries two at a time before the tests (each once per cache)."""
    keys = {sphad.entry_key(operator(c), c[5], dtype, c[2], volumes)
            for c in CASES for dtype in ("float64",) for volumes in (False,)}
    keys.add(sphad.entry_key(operator(CASES[2]), 2, "float32", (), False))
    keys.add(sphad.entry_key(operator(CASES[2]), 2, "float64", (), True))
    keys |= {sphad.entry_key(operator(c), c[5], "float64", c[2], False, 7) for c in CORRECTED}
    keys |= {sphad.entry_key(operator(CASES[3]), 2, "float64", (), False, bits)
             for bits in (1, 2, 4)}
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        list(pool.map(_jit.compile_entry, sorted(keys)))


def inputs(case, n=30, dtype=np.float64, periodic=True, seed=3):
    """x, h, m, kinds, densities, values (leaves requiring grad), the domain and the list."""
    _, _, shape, _, support, dim = case
    x, h, m, kinds, domain = cloud(n=n, dim=dim, periodic=periodic, dtype=dtype, seed=seed)
    rng = np.random.default_rng(seed + 1)
    rho = (0.8 + 0.4 * rng.random(n)).astype(dtype)
    f = None if shape is None else rng.standard_normal((n, *shape)).astype(dtype)
    neighbors = sphad.neighbor_list(x, h, domain, support=support, skin=SKIN)
    leaf = lambda a: None if a is None else torch.from_numpy(a).requires_grad_(True)  # noqa
    return (leaf(x), leaf(h), leaf(m), torch.from_numpy(kinds), leaf(rho), leaf(f), domain,
            neighbors)


def call(case, x, h, m, kinds, rho, f, neighbors, domain, **extra):
    operation, choices, _, kernel, support, _ = case
    if operation == "Density":
        return st.density(x, h, m, kinds, neighbors, domain, kernel, support, **extra)
    function = getattr(st, operation.lower())
    return function(x, h, m, kinds, rho, f, neighbors, domain, kernel, support, **choices,
                    **extra)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_gradcheck_in_every_floating_input(case):
    x, h, m, kinds, rho, f, domain, neighbors = inputs(case)
    if case[0] == "Density":
        def fn(x, h, m):
            return call(case, x, h, m, kinds, None, None, neighbors, domain)
        args = (x, h, m)
    else:
        def fn(x, h, m, rho, f):
            return call(case, x, h, m, kinds, rho, f, neighbors, domain)
        args = (x, h, m, rho, f)
    # The viscosity kernel is singular at the centre: its Laplacian's derivatives reach 1e10
    # where central differences are good to ~1e-6 relative, not to gradcheck's atol 1e-5.
    loose = case[3] == K.ViscosityKernel
    assert torch.autograd.gradcheck(fn, args, check_forward_ad=True, check_batched_grad=True, atol=1e-2 if loose else 1e-5,
                                    rtol=1e-5 if loose else 1e-3)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_numpy_and_torch_agree_bitwise(case):
    x, h, m, kinds, rho, f, domain, neighbors = inputs(case)
    with torch.no_grad():
        t = call(case, x, h, m, kinds, rho, f, neighbors, domain)
    a = lambda v: None if v is None else v.detach().numpy()  # noqa: E731
    operation, choices, _, kernel, support, _ = case
    if operation == "Density":
        n = sphad.density(a(x), a(h), a(m), a(kinds), neighbors, domain, kernel, support)
    else:
        n = getattr(sphad, operation.lower())(a(x), a(h), a(m), a(kinds), a(rho), a(f), neighbors,
                                               domain, kernel, support, **choices)
    assert n.shape == tuple(t.shape)
    assert np.array_equal(n, t.numpy())


def test_gradient_of_a_linear_field_is_its_slope():
    """Difference gradient with the lattice's own calibration-free Wendland4 on a regular
    periodic lattice: exact for f = a . x away from the wrap (analytic primal)."""
    per = 20
    g = (np.arange(per) + 0.5) / per
    x = np.stack(np.meshgrid(g, g, indexing="ij"), -1).reshape(-1, 2)
    n = len(x)
    h = np.full(n, 2.5 / per)
    m = np.full(n, 1.0 / n)
    kinds = np.zeros(n, np.int32)
    domain = sphad.Domain([0, 0], [1, 1], [False, False])
    neighbors = sphad.neighbor_list(x, h, domain)
    rho = sphad.density(x, h, m, kinds, neighbors, domain)
    f = 0.3 * x[:, 0] - 0.7 * x[:, 1]
    grad = sphad.gradient(x, h, m, kinds, rho, f, neighbors, domain, scheme=GS.Difference)
    inner = np.all((x > 0.25) & (x < 0.75), axis=1)
    # the Difference scheme's first-order error on a uniform lattice: a few per cent
    np.testing.assert_allclose(grad[inner], np.broadcast_to([0.3, -0.7], grad[inner].shape),
                               rtol=0.05, atol=0.02)


def test_volumes_replace_mass_over_density():
    case = CASES[2]
    x, h, m, kinds, rho, f, domain, neighbors = inputs(case)
    v = (m / rho).detach().clone().requires_grad_(True)
    with torch.no_grad():
        by_rho = call(case, x, h, m, kinds, rho, f, neighbors, domain)
        by_v = call(case, x, h, m, kinds, rho, f, neighbors, domain, volumes=v)
    np.testing.assert_allclose(by_v.numpy(), by_rho.numpy(), rtol=1e-13, atol=1e-13)

    def fn(x, v, f):
        return call(case, x, h, m, kinds, rho, f, neighbors, domain, volumes=v)
    assert torch.autograd.gradcheck(fn, (x, v, f), check_forward_ad=True, check_batched_grad=True)


def test_references_of_their_own():
    case = CASES[2]
    x, h, m, kinds, rho, f, domain, neighbors = inputs(case, n=20, seed=5)
    rx, rh, rm, rk, rrho, rf, _, _ = inputs(case, n=25, seed=7)
    neighbors = sphad.neighbor_list(x.detach(), h.detach(), domain, skin=SKIN,
                                    references=(rx.detach(), rh.detach()))

    def fn(x, h, rx, rrho, rf):
        ref = sphad.Particles(rx, rh, rm, rk, rrho, None, rf)
        return st.gradient(x, h, m, kinds, rho, f, neighbors, domain, references=ref)
    assert torch.autograd.gradcheck(fn, (x, h, rx, rrho, rf), check_forward_ad=True, check_batched_grad=True)


def test_float32_matches_float64():
    case = CASES[2]
    x, h, m, kinds, rho, f, domain, neighbors = inputs(case, dtype=np.float64)
    x32, h32, m32, k32, rho32, f32, _, _ = inputs(case, dtype=np.float32)
    with torch.no_grad():
        d = call(case, x, h, m, kinds, rho, f, neighbors, domain)
        s = call(case, x32, h32, m32, k32, rho32, f32, neighbors, domain)
    assert s.dtype == torch.float32
    np.testing.assert_allclose(s.numpy(), d.numpy(), rtol=1e-4, atol=1e-3)


def test_missing_field_and_densities_raise():
    case = CASES[2]
    x, h, m, kinds, rho, f, domain, neighbors = inputs(case)
    with pytest.raises(ValueError, match="`values`: is required"):
        st.gradient(x, h, m, kinds, rho, None, neighbors, domain)
    with pytest.raises(ValueError, match="`densities`: is required"):
        st.gradient(x, h, m, kinds, None, f, neighbors, domain)
    with pytest.raises(ValueError, match="trailing shape"):
        ref = sphad.Particles(x, h, m, kinds, rho, None, f[:, None])
        st.gradient(x, h, m, kinds, rho, f, neighbors, domain, references=ref)


def test_a_field_the_operator_does_not_take_is_a_value_error():
    """The operator's own rule (C++'s accepts_field), before any work: a scalar has no
    divergence in 2D, there is no curl in 1D, an empty field axis is refused."""
    x, h, m, kinds, domain = cloud(n=12)
    rho, neighbors = np.ones(12), sphad.neighbor_list(x, h, domain)
    out = np.full(12, -7.0)
    with pytest.raises(ValueError, match="`values`: this operator does not take fields"):
        sphad.divergence(x, h, m, kinds, rho, np.ones(12), neighbors, domain, out=out)
    assert np.all(out == -7.0)
    with pytest.raises(ValueError, match="`values`: this operator does not take fields"):
        sphad.curl(x, h, m, kinds, rho, np.ones((12, 3)), neighbors, domain)
    x1, h1, m1, k1, domain1 = cloud(n=12, dim=1)
    with pytest.raises(ValueError, match="`values`: this operator does not take fields"):
        sphad.curl(x1, h1, m1, k1, rho, np.ones((12, 1)), sphad.neighbor_list(x1, h1, domain1),
                   domain1)
    with pytest.raises(ValueError, match="every field axis needs at least one entry"):
        sphad.gradient(x, h, m, kinds, rho, np.ones((12, 0)), neighbors, domain)


def correction_states(n, dim, seed=9, identity=False):
    """CRK factors, renormalization matrices and grad-h Omega for n queries (leaves requiring
    grad): the identity (A = 1, B = 0, L = I, Omega = 1), or near it at random."""
    rng = np.random.default_rng(seed)
    s = 0.0 if identity else 0.1
    leaf = lambda a: torch.from_numpy(np.ascontiguousarray(a)).requires_grad_(True)  # noqa
    crk = sphad.CRKState(leaf(1 + s * rng.standard_normal(n)),
                         leaf(s * rng.standard_normal((n, dim))),
                         leaf(s * rng.standard_normal((n, dim))),
                         leaf(s * rng.standard_normal((n, dim, dim))))
    renormalization = leaf(np.eye(dim) + s * rng.standard_normal((n, dim, dim)))
    omegas = leaf(1 + s * rng.standard_normal(n))
    return crk, renormalization, omegas


CORRECTED = [CASES[3], CASES[9], CASES[11], CASES[15], CASES[1]]  # Gradient, Divergence (Dot),
# Curl, Laplacian (Dot), Interpolate (CRK only reaches its value)


@pytest.mark.parametrize("case", CORRECTED, ids=[IDS[CASES.index(c)] for c in CORRECTED])
def test_corrections_gradcheck_in_inputs_and_states(case):
    x, h, m, kinds, rho, f, domain, neighbors = inputs(case, n=20)
    crk, ren, omegas = correction_states(20, case[5])

    def fn(x, rho, f, a, b, grad_a, grad_b, ren, omegas):
        return call(case, x, h, m, kinds, rho, f, neighbors, domain,
                    crk=sphad.CRKState(a, b, grad_a, grad_b), renormalization=ren, omegas=omegas)
    assert torch.autograd.gradcheck(fn, (x, rho, f, *crk, ren, omegas), check_forward_ad=True, check_batched_grad=True)


@pytest.mark.parametrize("case", CORRECTED, ids=[IDS[CASES.index(c)] for c in CORRECTED])
def test_identity_corrections_change_nothing(case):
    x, h, m, kinds, rho, f, domain, neighbors = inputs(case)
    crk, ren, omegas = correction_states(len(x), case[5], identity=True)
    with torch.no_grad():
        plain = call(case, x, h, m, kinds, rho, f, neighbors, domain)
        corrected = call(case, x, h, m, kinds, rho, f, neighbors, domain, crk=crk,
                         renormalization=ren, omegas=omegas)
    np.testing.assert_allclose(corrected.numpy(), plain.numpy(), rtol=1e-14, atol=1e-14)


def test_each_correction_alone_and_its_errors():
    case = CASES[3]
    x, h, m, kinds, rho, f, domain, neighbors = inputs(case)
    crk, ren, omegas = correction_states(len(x), 2)
    with torch.no_grad():
        base = call(case, x, h, m, kinds, rho, f, neighbors, domain)
        for extra in ({"crk": crk}, {"renormalization": ren}, {"omegas": (omegas, omegas)}):
            out = call(case, x, h, m, kinds, rho, f, neighbors, domain, **extra)
            assert not torch.equal(out, base), extra
        with pytest.raises(ValueError, match="`renormalization`: has shape"):
            call(case, x, h, m, kinds, rho, f, neighbors, domain, renormalization=ren[:-1])
        with pytest.raises(ValueError, match="`crk.b`: has shape"):
            call(case, x, h, m, kinds, rho, f, neighbors, domain,
                 crk=sphad.CRKState(crk.a, crk.grad_b, crk.grad_a, crk.grad_b))
