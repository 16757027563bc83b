# SPDX-License-Identifier: MIT
"""Density's second derivatives in the positions: its position gradient as a Function with a
backward and a jvp, built from the Divergence's value and reverse mode (docs/python.md, "Second
order").
"""
from __future__ import annotations

import torch

from ._calls import (ALL_INPUTS, DERIVED_INPUTS, INPUTS, Entry, GradientScheme, Operator,
                     entry)
from ._autograd import SECOND_ORDER, _adjoint, _operator, _vmap_by_loop, cached_signature
from ._torch_calls import _gradients


_divergences: dict = {}


def _divergence_for(density: Entry, positions):
    """The Divergence entry (Difference scheme, the same kernel and support scheme) whose
    negative, with densities one and the field u, is Density's JVP along positions u."""
    _, kernel, support, *_ = density.choices
    key = (kernel, support, positions.shape[1], positions.dtype)
    found = _divergences.get(key)
    if found is None:
        op = Operator("Divergence", kernel, support, gradient_scheme=GradientScheme.Difference)
        found = entry(op, positions, (positions.shape[1],), False, 0)
        _divergences[key] = found
    return found


@cached_signature
class _DensityPositionAdjoint(torch.autograd.Function):
    """Density's position gradients (queries', references') for the seed rho_bar, as a Function
    with a backward, so that a gradient built with create_graph=True is differentiable again.
    Density's JVP along positions u is J u = -Div(u) — the Divergence, Difference scheme, of the
    field u with densities one (V_j = m_j) over the same list, kernel, scheme and kinds — so the
    backward of x_bar = J^T rho_bar for a cotangent u is: for rho_bar, J u = -Div(u); for the
    positions, the gradient of rho_bar . J u, the Divergence's VJP in the positions with the seed
    -rho_bar. One definition of the maths: sphad's own Divergence and its reverse mode. Its
    arguments: the two entries, the function, the call, which positions want gradients, the
    seed, then the `ALL_INPUTS` inputs."""

    @staticmethod
    def forward(density, divergence, function, call, needs, seed, *inputs):
        wanted = tuple((i == 0 and needs[0]) or (i == INPUTS and needs[1])
                       for i in DERIVED_INPUTS)
        grads = _gradients(density, function, call, wanted, (seed,), inputs, shared=False)
        return grads[DERIVED_INPUTS.index(0)], grads[DERIVED_INPUTS.index(INPUTS)]

    @staticmethod
    def setup_context(ctx, inputs, output):
        density, divergence, function, call, needs, seed, *tensors = inputs
        ctx.save_for_backward(seed, *tensors)
        ctx.save_for_forward(seed, *tensors)
        ctx.density, ctx.divergence, ctx.function, ctx.call = density, divergence, function, call
        ctx.needs = needs

    @staticmethod
    def _divergence_inputs(tensors, uq, ur):
        """The Divergence's inputs: the sets with densities one and the field u."""
        q, r = tensors[:INPUTS], tensors[INPUTS:2 * INPUTS]
        uq = torch.zeros_like(q[0]) if uq is None else uq.contiguous()  # may come expanded
        ur = torch.zeros_like(r[0]) if ur is None else ur.contiguous()
        return (*q[:4], torch.ones_like(q[1]), None, uq, *r[:4], torch.ones_like(r[1]), None, ur,
                *(None,) * (ALL_INPUTS - 2 * INPUTS))

    @staticmethod
    def jvp(ctx, _d0, _d1, _d2, _d3, _d4, dseed, *tangents):
        """Along (rho_bar', x'): J^T rho_bar' (Density's VJP) + the positions' Hessian of
        rho_bar . rho applied to x' (the Divergence's VJP in the positions of the field x', seed
        -rho_bar: the same as the backward, the Hessian being symmetric)."""
        seed, *tensors = ctx.saved_tensors
        needs = tuple((i == 0 and ctx.needs[0]) or (i == INPUTS and ctx.needs[1])
                      for i in DERIVED_INPUTS)
        out = [None, None]

        def add(derived):
            for k, i in enumerate((0, INPUTS)):
                g = derived[DERIVED_INPUTS.index(i)]
                if g is not None:
                    out[k] = g if out[k] is None else out[k] + g
        if dseed is not None:
            add(_adjoint(ctx.density, ctx.function, ctx.call, needs, (dseed,), tensors))
        dq, dr = tangents[0], tangents[INPUTS]
        if dq is not None or dr is not None:
            div = _DensityPositionAdjoint._divergence_inputs(tensors, dq, dr)
            add(_adjoint(ctx.divergence, ctx.function, ctx.call, needs, (-seed,), div))
        return tuple(o if o is not None or not n else torch.zeros_like(tensors[i])
                     for o, n, i in zip(out, ctx.needs, (0, INPUTS)))

    @staticmethod
    def backward(ctx, uq, ur):
        seed, *tensors = ctx.saved_tensors
        div = _DensityPositionAdjoint._divergence_inputs(tensors, uq, ur)
        grad_seed = None
        if ctx.needs_input_grad[5]:
            grad_seed = -_operator(ctx.divergence, ctx.function, ctx.call, div)
        grads = [None] * ALL_INPUTS
        wanted = (ctx.needs_input_grad[6], ctx.needs_input_grad[6 + INPUTS])
        if any(wanted):
            needs = tuple((i == 0 and wanted[0]) or (i == INPUTS and wanted[1])
                          for i in DERIVED_INPUTS)
            derived = _adjoint(ctx.divergence, ctx.function, ctx.call, needs, (-seed,), div)
            grads[0] = derived[DERIVED_INPUTS.index(0)]
            grads[INPUTS] = derived[DERIVED_INPUTS.index(INPUTS)]
        return (None, None, None, None, None, grad_seed, *grads)

    @staticmethod
    def vmap(info, in_dims, *args):
        return _vmap_by_loop(_DensityPositionAdjoint, info, in_dims, *args)


SECOND_ORDER["Density"] = (_DensityPositionAdjoint, _divergence_for)
