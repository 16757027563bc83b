# SPDX-License-Identifier: MIT
"""sphad's operators as torch.autograd Functions: reverse mode through sphad's VJP, forward
mode (torch.func.jvp, torch.autograd.forward_ad) through sphad's dual-number JVP.

Tensors are CPU tensors, C-contiguous, float32 or float64 (kinds: int32); none is copied.
Each operator is differentiable in every floating input it reads, of both sets: positions,
supports, masses, densities, volumes and field values (first order; ``create_graph=True``
through it raises). A tensor given in both roles (the default references) gets the sum of its
two gradients.
"""
from __future__ import annotations

from typing import Optional, Sequence

import torch

from . import _core
from . import (ALL_INPUTS, DERIVED_INPUTS, DOCS, GRADIENTS, INPUTS, OUT,  # noqa: F401
               OUT_TANGENT, SEED, TANGENTS, CRKState, Direction, DivergenceMode, Domain, Entry,
               GradientScheme, Kernel, LaplacianScheme, NeighborList, Operator, Particles,
               SupportScheme, entry, make_operator, make_pipelines, slots)

__all__ = ["crk_factors", "curl", "density", "divergence", "grad_h_omegas", "gradient",
           "interpolate", "laplacian", "renormalization_matrices"]


def _plain(t):
    """The tensor's data for sphad (a tensor that requires grad is exported detached)."""
    return t if t is None or not t.requires_grad else t.detach()


def _tangent(t):
    """A tangent or seed as sphad reads it (torch may hand over expanded, strided ones)."""
    return None if t is None else t.detach().contiguous()


def _vmap_by_loop(function, info, in_dims, *args):
    """A vmap rule for a Function over sphad's calls: one call per batch entry, outputs stacked
    along dimension 0 (None outputs stay None). sphad has no batched call yet."""
    outputs = []
    for b in range(info.batch_size):
        one = [a.select(d, b) if isinstance(a, torch.Tensor) and d is not None else a
               for a, d in zip(args, in_dims)]
        outputs.append(function.apply(*one))
    if isinstance(outputs[0], tuple):
        stacked = tuple(None if o[0] is None else torch.stack(o) for o in zip(*outputs))
        return stacked, tuple(None if o is None else 0 for o in stacked)
    return torch.stack(outputs), 0


def _plain_call(tensors) -> bool:
    """Whether a call needs no derivative machinery: no tensor requires grad (or grad mode is
    off), no forward-AD level is open and no torch.func transform wraps a tensor. Then the
    operator's C++ call is made directly, without an autograd Function (a third of the time of
    a small call)."""
    tensors = [t for t in tensors if t is not None]
    if torch.is_grad_enabled() and any(t.requires_grad for t in tensors):
        return False
    if torch.autograd.forward_ad._current_level >= 0:
        return False
    return not any(torch._C._functorch.is_functorch_wrapped_tensor(t) for t in tensors)


def _outputs(entry, inputs):
    n = inputs[0].shape[0]
    return [inputs[0].new_empty((n, *shape)) for shape in entry.outputs]


def _one_or_tuple(outs):
    return outs[0] if len(outs) == 1 else tuple(outs)


def _value(entry, function, call, inputs, out=None):
    """The operator's value: one C++ call into new tensors (or `out`)."""
    outs = _outputs(entry, inputs) if out is None else [out]
    arrays = slots(map(_plain, inputs))
    for k, o in enumerate(outs):
        arrays[OUT + 3 * k] = o
    _core.run(entry.address, 1, function, arrays, call)
    return _one_or_tuple(outs)


class _Tangent(torch.autograd.Function):
    """The tangents of an operator's outputs along the given inputs' tangents (absent ones
    None: zero): the body of `_Operator`'s jvp rule, itself a Function so that torch.func hands
    its forward plain tensors. Arguments: the inputs, then one tangent per `DERIVED_INPUTS`
    entry."""

    @staticmethod
    def forward(entry, function, call, *inputs_and_tangents):
        inputs = inputs_and_tangents[:ALL_INPUTS]
        arrays = slots(map(_plain, inputs))
        for d, t in enumerate(inputs_and_tangents[ALL_INPUTS:]):
            arrays[TANGENTS + d] = _tangent(t)
        outs, tangents = _outputs(entry, inputs), _outputs(entry, inputs)
        for k, (o, t) in enumerate(zip(outs, tangents)):
            arrays[OUT + 3 * k], arrays[OUT_TANGENT + 3 * k] = o, t
        _core.run(entry.address, 2, function, arrays, call)
        return _one_or_tuple(tangents)

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError("sphad: an operator's tangent is not differentiable again "
                                  "(second order: Density's position gradient built with "
                                  "create_graph=True)")

    @staticmethod
    def vmap(info, in_dims, *args):
        return _vmap_by_loop(_Tangent, info, in_dims, *args)


class _Adjoint(torch.autograd.Function):
    """The gradients of an operator for its outputs' seeds, one per `DERIVED_INPUTS` entry
    (those not wanted None): the body of `_Operator`'s backward, a Function for the same
    reason. Arguments: the seeds (one per output), then the inputs."""

    @staticmethod
    def forward(entry, function, call, needs, *seeds_and_inputs):
        seeds = seeds_and_inputs[:len(entry.outputs)]
        inputs = seeds_and_inputs[len(entry.outputs):]
        grads = [torch.empty_like(inputs[i]) if need and inputs[i] is not None else None
                 for i, need in zip(DERIVED_INPUTS, needs)]
        arrays = slots(map(_plain, inputs))
        for d, g in enumerate(grads):
            arrays[GRADIENTS + d] = g
        for k, seed in enumerate(seeds):
            arrays[SEED + 3 * k] = _tangent(seed)
        _core.run(entry.address, 3, function, arrays, call)
        return tuple(grads)

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError("sphad: this gradient is not differentiable again (a "
                                  "gradient built with create_graph=True is: Density's, in the "
                                  "positions)")

    @staticmethod
    def vmap(info, in_dims, *args):
        return _vmap_by_loop(_Adjoint, info, in_dims, *args)


_LEGACY_BATCHED = torch._C._functorch.is_legacy_batchedtensor


def _batched_adjoint(entry, function, call, needs, *seeds_and_inputs):
    """`_Adjoint` for seeds batched by torch's older vmap (`autograd.grad(...,
    is_grads_batched=True)`, which gradcheck's batched-gradient check uses; it does not apply a
    Function's vmap rule): the seeds unwrapped, one call per batch entry, the gradients stacked
    and wrapped again at the same level."""
    level = torch._C._vmapmode_increment_nesting() - 1  # the innermost level now active
    torch._C._vmapmode_decrement_nesting()
    n = len(entry.outputs)
    seeds, inputs = seeds_and_inputs[:n], seeds_and_inputs[n:]
    size = next(torch._remove_batch_dim(s, level, 1, 0).shape[0] for s in seeds
                if _LEGACY_BATCHED(s))
    plain = [torch._remove_batch_dim(s, level, size, 0) for s in seeds]
    per_entry = [_Adjoint.apply(entry, function, call, needs, *(p[b] for p in plain), *inputs)
                 for b in range(size)]
    return tuple(None if g[0] is None else torch._add_batch_dim(torch.stack(g), 0, level)
                 for g in zip(*per_entry))


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
        grads = [torch.empty_like(inputs[0]) if needs[0] else None,
                 torch.empty_like(inputs[INPUTS]) if needs[1] else None]
        arrays = slots(map(_plain, inputs))
        arrays[GRADIENTS + DERIVED_INPUTS.index(0)] = grads[0]
        arrays[GRADIENTS + DERIVED_INPUTS.index(INPUTS)] = grads[1]
        arrays[SEED] = _tangent(seed)
        _core.run(density.address, 3, function, arrays, call)
        return tuple(grads)

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
            add(_Adjoint.apply(ctx.density, ctx.function, ctx.call, needs, dseed, *tensors))
        dq, dr = tangents[0], tangents[INPUTS]
        if dq is not None or dr is not None:
            div = _DensityPositionAdjoint._divergence_inputs(tensors, dq, dr)
            add(_Adjoint.apply(ctx.divergence, ctx.function, ctx.call, needs, -seed, *div))
        return tuple(o if o is not None or not n else torch.zeros_like(tensors[i])
                     for o, n, i in zip(out, ctx.needs, (0, INPUTS)))

    @staticmethod
    def backward(ctx, uq, ur):
        seed, *tensors = ctx.saved_tensors
        div = _DensityPositionAdjoint._divergence_inputs(tensors, uq, ur)
        grad_seed = None
        if ctx.needs_input_grad[5]:
            grad_seed = -_Operator.apply(ctx.divergence, ctx.function, ctx.call, *div)
        grads = [None] * ALL_INPUTS
        wanted = (ctx.needs_input_grad[6], ctx.needs_input_grad[6 + INPUTS])
        if any(wanted):
            needs = tuple((i == 0 and wanted[0]) or (i == INPUTS and wanted[1])
                          for i in DERIVED_INPUTS)
            derived = _Adjoint.apply(ctx.divergence, ctx.function, ctx.call, needs, -seed, *div)
            grads[0] = derived[DERIVED_INPUTS.index(0)]
            grads[INPUTS] = derived[DERIVED_INPUTS.index(INPUTS)]
        return (None, None, None, None, None, grad_seed, *grads)

    @staticmethod
    def vmap(info, in_dims, *args):
        return _vmap_by_loop(_DensityPositionAdjoint, info, in_dims, *args)


class _Operator(torch.autograd.Function):
    """An operator's (or a correction pipeline's) outputs, its backward (sphad's VJP) and jvp
    (sphad's JVP); its arguments: the entry, the function's name, the call's options, then the
    `ALL_INPUTS` inputs."""

    @staticmethod
    def forward(entry, function, call, *inputs):
        return _value(entry, function, call, inputs)

    @staticmethod
    def setup_context(ctx, inputs, output):
        entry, function, call, *tensors = inputs
        ctx.save_for_backward(*tensors)
        ctx.save_for_forward(*tensors)
        ctx.entry, ctx.function, ctx.call = entry, function, call

    @staticmethod
    def backward(ctx, *seeds):
        tensors = ctx.saved_tensors
        need = ctx.needs_input_grad[3:]
        needs = tuple(need[i] for i in DERIVED_INPUTS)
        grads = [None] * ALL_INPUTS
        if any(needs):
            if (torch.is_grad_enabled() and ctx.entry.choices is not None
                    and ctx.entry.choices[0] == "Density"):
                # Grad mode on (create_graph=True, or torch.func): Density's position gradient
                # differentiable once more; the other inputs' gradients first order.
                positions = (DERIVED_INPUTS.index(0), DERIVED_INPUTS.index(INPUTS))
                if need[0] or need[INPUTS]:
                    grads[0], grads[INPUTS] = _DensityPositionAdjoint.apply(
                        ctx.entry, _divergence_for(ctx.entry, tensors[0]), ctx.function,
                        ctx.call, (need[0], need[INPUTS]), seeds[0], *tensors)
                needs = tuple(n and d not in positions for d, n in enumerate(needs))
                if not any(needs):
                    return (None, None, None, *grads)
            adjoint = _Adjoint.apply
            if any(_LEGACY_BATCHED(s) for s in seeds):
                adjoint = _batched_adjoint
            derived = adjoint(ctx.entry, ctx.function, ctx.call, needs, *seeds, *tensors)
            for i, g, n in zip(DERIVED_INPUTS, derived, needs):
                if n:
                    grads[i] = g
        return (None, None, None, *grads)

    @staticmethod
    def jvp(ctx, _de, _df, _dc, *tangents):
        return _Tangent.apply(ctx.entry, ctx.function, ctx.call, *ctx.saved_tensors,
                              *(tangents[i] for i in DERIVED_INPUTS))

    @staticmethod
    def vmap(info, in_dims, *args):
        return _vmap_by_loop(_Operator, info, in_dims, *args)


def _torch_backend(entry, function, inputs, call, out):
    if _plain_call(inputs):
        return _value(entry, function, call, inputs, out)
    if out is not None:
        raise TypeError(f"sphad::{function}: out= is for calls without derivatives (autograd "
                        "allocates a differentiable output)")
    return _Operator.apply(entry, function, call, *inputs)


_TORCH = " Tensors, differentiable in every floating input of both sets and of the corrections."
density = make_operator("Density", _torch_backend, DOCS["Density"] + _TORCH)
interpolate = make_operator("Interpolate", _torch_backend, DOCS["Interpolate"] + _TORCH)
gradient = make_operator("Gradient", _torch_backend, DOCS["Gradient"] + _TORCH)
divergence = make_operator("Divergence", _torch_backend, DOCS["Divergence"] + _TORCH)
curl = make_operator("Curl", _torch_backend, DOCS["Curl"] + _TORCH)
laplacian = make_operator("Laplacian", _torch_backend, DOCS["Laplacian"] + _TORCH)
crk_factors, renormalization_matrices, grad_h_omegas = make_pipelines(_torch_backend)
