# SPDX-License-Identifier: MIT
"""Density as a torch.autograd Function: gradients and forward-mode derivatives against
central differences (gradcheck, float64) for every kernel and support scheme of this build,
periodic and open; forward against reverse by the dot-product test; zero copy; float32."""
import itertools

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import sphad  # noqa: E402
import sphad.torch as st  # noqa: E402
from sphad import _core  # noqa: E402

from conftest import cloud  # noqa: E402

KERNELS = [sphad.Kernel.Wendland2, sphad.Kernel.Wendland4, sphad.Kernel.Wendland6,
           sphad.Kernel.CubicSpline]
SUPPORTS = list(sphad.SupportScheme.__members__.values())
SKIN = 0.02  # the list outlives the finite differences' perturbations of x and h


def tensors(dim=2, periodic=True, dtype=np.float64, n=40):
    x, h, m, kinds, domain = cloud(n=n, dim=dim, periodic=periodic, dtype=dtype)
    as_leaf = lambda a: torch.from_numpy(a).requires_grad_(True)  # noqa: E731
    return as_leaf(x), as_leaf(h), as_leaf(m), torch.from_numpy(kinds), domain


@pytest.mark.parametrize("kernel,support,periodic",
                         list(itertools.product(KERNELS, SUPPORTS, [True, False])))
def test_gradcheck_every_kernel_and_scheme(kernel, support, periodic):
    x, h, m, kinds, domain = tensors(periodic=periodic)
    neighbors = sphad.neighbor_list(x.detach(), h.detach(), domain, support=support, skin=SKIN)
    f = lambda x, h, m: st.density(x, h, m, kinds, neighbors, domain, kernel, support)  # noqa
    assert torch.autograd.gradcheck(f, (x, h, m), check_forward_ad=True, check_batched_grad=True)


@pytest.mark.parametrize("dim", [1, 3])
def test_gradcheck_in_1d_and_3d(dim):
    x, h, m, kinds, domain = tensors(dim=dim)
    neighbors = sphad.neighbor_list(x.detach(), h.detach(), domain, skin=SKIN)
    f = lambda x, h, m: st.density(x, h, m, kinds, neighbors, domain)  # noqa: E731
    assert torch.autograd.gradcheck(f, (x, h, m), check_forward_ad=True, check_batched_grad=True)


@pytest.mark.parametrize("needs", [c for c in itertools.product([False, True], repeat=3) if any(c)])
def test_any_subset_of_inputs_requires_grad(needs):
    x, h, m, kinds, domain = tensors()
    for t, need in zip((x, h, m), needs):
        t.requires_grad_(need)
    neighbors = sphad.neighbor_list(x.detach(), h.detach(), domain, skin=SKIN)
    f = lambda x, h, m: st.density(x, h, m, kinds, neighbors, domain)  # noqa: E731
    assert torch.autograd.gradcheck(f, (x, h, m), check_forward_ad=True, check_batched_grad=True)


def test_forward_and_reverse_agree_by_the_dot_product():
    x, h, m, kinds, domain = tensors()
    neighbors = sphad.neighbor_list(x.detach(), h.detach(), domain)
    f = lambda x, h, m: st.density(x, h, m, kinds, neighbors, domain)  # noqa: E731
    gen = torch.Generator().manual_seed(5)
    v = tuple(torch.randn(t.shape, dtype=t.dtype, generator=gen) for t in (x, h, m))
    w = torch.randn(x.shape[0], dtype=x.dtype, generator=gen)
    _, jv = torch.func.jvp(f, (x.detach(), h.detach(), m.detach()), v)
    _, vjp = torch.func.vjp(f, x.detach(), h.detach(), m.detach())
    jtw = vjp(w)
    lhs = torch.dot(jv, w)
    rhs = sum(torch.sum(a * b) for a, b in zip(v, jtw))
    assert torch.isclose(lhs, rhs, rtol=1e-12, atol=0)


def test_values_equal_the_numpy_call_and_no_copy_is_made():
    x, h, m, kinds, domain = tensors()
    neighbors = sphad.neighbor_list(x.detach(), h.detach(), domain)
    rho = st.density(x, h, m, kinds, neighbors, domain)
    expected = sphad.density(x.detach().numpy(), h.detach().numpy(), m.detach().numpy(),
                             kinds.numpy(), neighbors, domain)
    assert np.array_equal(rho.detach().numpy(), expected)
    assert _core._address(x.detach()) == x.data_ptr()


def test_float32_gradients_follow_float64():
    x, h, m, kinds, domain = tensors()
    neighbors = sphad.neighbor_list(x.detach(), h.detach(), domain)
    st.density(x, h, m, kinds, neighbors, domain).square().sum().backward()
    x32, h32, m32 = (t.detach().float().requires_grad_(True) for t in (x, h, m))
    neighbors32 = sphad.neighbor_list(x32.detach(), h32.detach(), domain)
    st.density(x32, h32, m32, kinds, neighbors32, domain).square().sum().backward()
    for a, b in ((x32, x), (h32, h), (m32, m)):
        scale = b.grad.abs().max()
        assert ((a.grad.double() - b.grad).abs().max() / scale) < 1e-4  # float32, stated


def test_jacfwd_equals_jacrev():
    x, h, m, kinds, domain = tensors(n=25)
    neighbors = sphad.neighbor_list(x.detach(), h.detach(), domain, skin=SKIN)
    f = lambda x, h, m: st.density(x, h, m, kinds, neighbors, domain)  # noqa: E731
    args = (x.detach(), h.detach(), m.detach())
    forward = torch.func.jacfwd(f, argnums=(0, 1, 2))(*args)
    reverse = torch.func.jacrev(f, argnums=(0, 1, 2))(*args)
    for a, b in zip(forward, reverse):
        assert torch.allclose(a, b, rtol=0, atol=1e-10 * b.abs().max())


def test_vmap_over_positions_equals_a_loop():
    x, h, m, kinds, domain = tensors(n=25)
    neighbors = sphad.neighbor_list(x.detach(), h.detach(), domain, skin=SKIN)
    f = lambda x: st.density(x, h.detach(), m.detach(), kinds, neighbors, domain)  # noqa: E731
    batch = torch.stack([x.detach() + 1e-3 * k for k in range(3)])
    assert torch.equal(torch.func.vmap(f)(batch), torch.stack([f(b) for b in batch]))


def two_sets(periodic=True):
    """Queries (30) and references (20) of their own."""
    leaves = []
    for n, seed in ((30, 3), (20, 4)):
        x, h, m, kinds, domain = cloud(n=n, periodic=periodic, seed=seed)
        leaves.append([torch.from_numpy(a).requires_grad_(True) for a in (x, h, m)])
        leaves[-1].append(torch.from_numpy(kinds))
    return leaves[0], leaves[1], domain


@pytest.mark.parametrize("support,periodic", list(itertools.product(SUPPORTS, [True, False])))
def test_gradcheck_with_queries_and_references_of_their_own(support, periodic):
    (xq, hq, mq, kq), (xr, hr, mr, kr), domain = two_sets(periodic)
    neighbors = sphad.neighbor_list(xq.detach(), hq.detach(), domain, support=support, skin=SKIN,
                                    references=(xr.detach(), hr.detach()))

    def f(xq, hq, mq, xr, hr, mr):
        return st.density(xq, hq, mq, kq, neighbors, domain, sphad.Kernel.Wendland4, support,
                          references=sphad.Particles(xr, hr, mr, kr))

    assert torch.autograd.gradcheck(f, (xq, hq, mq, xr, hr, mr), check_forward_ad=True, check_batched_grad=True)


def test_one_tensor_in_two_roles_gets_the_sum_of_its_two_gradients():
    x, h, m, kinds, domain = tensors()
    neighbors = sphad.neighbor_list(x.detach(), h.detach(), domain)
    rho = st.density(x, h, m, kinds, neighbors, domain)  # the queries are the references
    (rho ** 2).sum().backward()
    clones = [[t.detach().clone().requires_grad_(True) for t in (x, h, m)] for _ in range(2)]
    (xq, hq, mq), (xr, hr, mr) = clones
    rho2 = st.density(xq, hq, mq, kinds, neighbors, domain,
                      references=sphad.Particles(xr, hr, mr, kinds))
    (rho2 ** 2).sum().backward()
    assert torch.equal(rho, rho2)
    for once, q, r in ((x, xq, xr), (h, hq, hr), (m, mq, mr)):
        assert torch.allclose(once.grad, q.grad + r.grad, rtol=1e-14, atol=1e-14 * once.grad.abs().max())


@pytest.mark.parametrize("support", [sphad.SupportScheme.Gather,
                                     sphad.SupportScheme.KernelMeanSymmetric])
def test_a_position_gradient_alone_tracks_only_the_positions_with_the_same_bits(support):
    """When only the positions need a gradient, the entry's sweep tracks them alone (fewer
    directions per pair: the inputs without grad cost nothing); their gradient is the same,
    bit for bit, as when every input is tracked."""
    x, h, m, kinds, domain = tensors()
    neighbors = sphad.neighbor_list(x.detach(), h.detach(), domain, support=support)
    grads = []
    for others in (True, False):
        xs = x.detach().clone().requires_grad_(True)
        hs, ms = (t.detach().clone().requires_grad_(others) for t in (h, m))
        (st.density(xs, hs, ms, kinds, neighbors, domain, support=support) ** 2).sum().backward()
        assert (hs.grad is not None) == others
        grads.append(xs.grad)
    assert torch.equal(grads[0], grads[1])


def test_a_call_without_derivatives_skips_autograd_and_gives_the_same_bits():
    x, h, m, kinds, domain = tensors()
    neighbors = sphad.neighbor_list(x.detach(), h.detach(), domain)
    with_graph = st.density(x, h, m, kinds, neighbors, domain)
    assert with_graph.grad_fn is not None
    with torch.no_grad():
        plain = st.density(x, h, m, kinds, neighbors, domain)
    detached = st.density(x.detach(), h.detach(), m.detach(), kinds, neighbors, domain)
    assert plain.grad_fn is None and detached.grad_fn is None
    assert torch.equal(plain, with_graph) and torch.equal(detached, with_graph)
    # forward AD with an open level still goes through the Function's jvp
    import torch.autograd.forward_ad as fwAD
    with fwAD.dual_level():
        dual = fwAD.make_dual(x.detach(), torch.randn_like(x))  # (a translation: zero)
        tangent = fwAD.unpack_dual(st.density(dual, h.detach(), m.detach(), kinds, neighbors,
                                              domain)).tangent
    assert tangent is not None and torch.any(tangent != 0)


@pytest.mark.parametrize("support", [sphad.SupportScheme.Gather, sphad.SupportScheme.Scatter,
                                     sphad.SupportScheme.KernelMeanSymmetric])
def test_double_backward_in_positions(support):
    """create_graph=True: Density's position gradient is differentiable again (gradgradcheck:
    the Hessian-vector products against central differences of the gradient, both modes)."""
    x, h, m, kinds, domain = tensors(n=25)
    h, m = h.detach(), m.detach()
    neighbors = sphad.neighbor_list(x.detach(), h, domain, support=support, skin=SKIN)
    f = lambda x: st.density(x, h, m, kinds, neighbors, domain, support=support)  # noqa: E731
    assert torch.autograd.gradgradcheck(f, (x,))
    # the Hessian of a scalar loss, applied to a fixed direction, against the gradient's
    # fourth-order central difference (the two-point one's truncation error reached 5e-5 of
    # |Hv| at eps = 1e-6 for some directions: the kernel's derivatives scale as 1/h^k); over
    # 100 directions the four-point one at eps = 1e-5 stayed within 1.1e-11 of max |Hv|
    v = torch.randn(x.shape, dtype=x.dtype, generator=torch.Generator().manual_seed(17))
    loss = lambda x: (st.density(x, h, m, kinds, neighbors, domain, support=support) ** 2).sum()  # noqa
    g, = torch.autograd.grad(loss(x), x, create_graph=True)
    hv, = torch.autograd.grad(g, x, v)

    def grad(y):
        y = y.detach().requires_grad_(True)
        return torch.autograd.grad(loss(y), y)[0]
    eps, x0 = 1e-5, x.detach()
    fd = (-grad(x0 + 2 * eps * v) + 8 * grad(x0 + eps * v) - 8 * grad(x0 - eps * v)
          + grad(x0 - 2 * eps * v)) / (12 * eps)
    assert (hv - fd).abs().max() <= 1e-9 * hv.abs().max()


def test_double_backward_with_references_of_their_own():
    xq, hq, mq, kq, domain = tensors(n=20)
    xr, hr, mr, kr, _ = tensors(n=15)
    hq, mq, hr, mr = (t.detach() for t in (hq, mq, hr, mr))
    neighbors = sphad.neighbor_list(xq.detach(), hq, domain, skin=SKIN,
                                    references=(xr.detach(), hr))

    def f(xq, xr):
        return st.density(xq, hq, mq, kq, neighbors, domain,
                          references=sphad.Particles(xr, hr, mr, kr))
    assert torch.autograd.gradgradcheck(f, (xq, xr))


def test_second_order_beyond_positions_raises():
    """A gradient built with create_graph=True is differentiable again in the positions
    (Density) only: differentiating the supports' gradient, or another operator's, raises."""
    x, h, m, kinds, domain = tensors(n=20)
    neighbors = sphad.neighbor_list(x.detach(), h.detach(), domain, skin=SKIN)
    rho = st.density(x, h, m, kinds, neighbors, domain)
    gx, gh = torch.autograd.grad((rho ** 2).sum(), (x, h), create_graph=True)
    gx.sum().backward(retain_graph=True)  # the positions' gradient: fine
    with pytest.raises(NotImplementedError, match="not differentiable again"):
        gh.sum().backward()
    f = torch.from_numpy(np.random.default_rng(1).random(20))
    grad = st.gradient(x, h.detach(), m.detach(), kinds, rho.detach(), f, neighbors, domain)
    g, = torch.autograd.grad(grad.sum(), x, create_graph=True)
    with pytest.raises(NotImplementedError, match="not differentiable again"):
        g.sum().backward()


def test_hessian_by_torch_func_equals_double_backward():
    """torch.func.hessian (forward over reverse) of a density loss in the positions equals the
    Hessian by double backward, and is symmetric."""
    x, h, m, kinds, domain = tensors(n=12)
    h, m = h.detach(), m.detach()
    neighbors = sphad.neighbor_list(x.detach(), h, domain, skin=SKIN)

    def loss(x):
        return (st.density(x, h, m, kinds, neighbors, domain) ** 2).sum()
    by_func = torch.func.hessian(loss)(x.detach()).reshape(x.numel(), x.numel())
    by_backward = torch.autograd.functional.hessian(loss, x.detach()).reshape(x.numel(), -1)
    torch.testing.assert_close(by_func, by_backward, rtol=1e-10, atol=1e-10)
    torch.testing.assert_close(by_func, by_func.T, rtol=1e-10, atol=1e-10)
