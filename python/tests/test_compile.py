# SPDX-License-Identifier: MIT
"""torch.compile: the custom ops pass torch.library.opcheck; a loss with the neighbour search
and several operators inside compiles with fullgraph=True and no graph break, and it and its
gradient equal eager mode (float64 1e-12, float32 1e-6); forward-mode AD under compile raises.
A list of tensors gives the bits of the C++-owned list."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import sphad  # noqa: E402
import sphad.torch as st  # noqa: E402
from sphad import _ops  # noqa: E402

N = 120


def case(dtype=torch.float64, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.rand(N, 2, dtype=dtype, generator=g)
    h = torch.full((N,), 0.18, dtype=dtype)
    m = torch.full((N,), 1.0 / N, dtype=dtype)
    kinds = torch.zeros(N, dtype=torch.int32)
    return x, h, m, kinds, sphad.Domain([0.0, 0.0], [1.0, 1.0], [True, True])


def make_loss(h, m, kinds, box):
    def loss(x):
        neighbors = st.neighbor_tensors(x, h, box)
        rho = st.density(x, h, m, kinds, neighbors, box)
        grad = st.gradient(x, h, m, kinds, rho, torch.sin(6 * x[:, 0]), neighbors, box,
                           scheme=sphad.GradientScheme.Difference)
        return ((rho - rho.mean()) ** 2).sum() + (grad ** 2).sum()
    return loss


def test_a_list_of_tensors_gives_the_same_bits():
    x, h, m, kinds, box = case()
    tensors = st.neighbor_tensors(x, h, box)
    owned = sphad.neighbor_list(x, h, box)
    assert torch.equal(tensors.offsets, torch.from_numpy(owned.offsets.copy()))
    assert torch.equal(st.density(x, h, m, kinds, tensors, box),
                       st.density(x, h, m, kinds, owned, box))


def test_opcheck():
    x, h, m, kinds, box = case()
    neighbors = st.neighbor_tensors(x, h, box)
    torch.library.opcheck(torch.ops.sphad.neighbor_list.default,
                          (x, h, x, h, [0.0, 0.0], [1.0, 1.0], [True, True],
                           int(sphad.SupportScheme.Gather.value), 0.0),
                          test_utils=("test_schema", "test_autograd_registration",
                                      "test_faketensor"))
    key = sphad.entry_key(sphad.Operator("Density"), 2, "float64", None, False)
    inputs = [x, h, m, kinds, None, None, None] * 2 + [None] * 7
    common = (key, 0, "density", neighbors.offsets, neighbors.neighbors, [0.0, 0.0],
              [1.0, 1.0], [True, True], int(sphad.Direction.AllToAll.value), 0.0, -1.0, inputs)
    seed = torch.ones(N, dtype=torch.float64)
    tangents = [torch.randn_like(x)] + [None] * 18
    for verb, extra, wanted in ((1, [], []), (2, tangents, []),
                                (3, [seed], [True] + [False] * 18)):
        args = (*common[:1], verb, *common[2:], extra, wanted)
        torch.library.opcheck(torch.ops.sphad.run.default, args)


@pytest.mark.parametrize("dtype,tolerance", [(torch.float64, 1e-12), (torch.float32, 1e-6)])
def test_compiled_loss_and_gradient_equal_eager(dtype, tolerance):
    x, h, m, kinds, box = case(dtype)
    loss = make_loss(h, m, kinds, box)
    xe = x.clone().requires_grad_(True)
    eager = loss(xe)
    eager.backward()
    torch._dynamo.reset()
    with torch._dynamo.config.patch(capture_dynamic_output_shape_ops=True):
        assert torch._dynamo.explain(loss)(x.clone().requires_grad_(True)).graph_break_count == 0
        compiled = torch.compile(loss, fullgraph=True)
        xc = x.clone().requires_grad_(True)
        value = compiled(xc)
        value.backward()
    scale = float(eager.detach().abs())
    assert abs(float(value) - float(eager)) <= tolerance * scale
    gscale = float(xe.grad.abs().max())
    assert float((xc.grad - xe.grad).abs().max()) <= tolerance * gscale


def test_forward_mode_and_compile():
    """torch.compile refuses forward-mode tangents itself in this torch (fullgraph: an error;
    otherwise the function runs eagerly, with sphad's exact JVP); were a forward-AD level ever
    active while Dynamo traces, sphad raises rather than let torch drop its jvp rule."""
    import torch.autograd.forward_ad as fwAD
    x, h, m, kinds, box = case()
    neighbors = st.neighbor_tensors(x, h, box)

    def rho(x):
        return st.density(x, h, m, kinds, neighbors, box)
    t = torch.randn_like(x)
    _, expected = torch.func.jvp(rho, (x,), (t,))
    torch._dynamo.reset()
    _, got = torch.func.jvp(torch.compile(rho), (x,), (t,))
    assert torch.equal(got, expected)
    torch._dynamo.reset()
    with pytest.raises(Exception, match="forward-mode AD"):
        with fwAD.dual_level():
            torch.compile(rho, fullgraph=True)(fwAD.make_dual(x, t))
    # sphad's own guard, with Dynamo's tracing flag raised by hand
    original = torch.compiler.is_compiling
    try:
        torch.compiler.is_compiling = lambda: True
        with fwAD.dual_level():
            with pytest.raises(NotImplementedError, match="forward-mode AD .* torch.compile"):
                rho(fwAD.make_dual(x, t))
    finally:
        torch.compiler.is_compiling = original
