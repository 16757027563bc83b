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
from . import (DERIVED, INPUTS, OUT, OUT_TANGENT, SEED, Direction, DivergenceMode,  # noqa: F401
               Domain, GradientScheme, Kernel, LaplacianScheme, NeighborList, Operator,
               Particles, SupportScheme, _DEFAULTS, _GRADIENTS, _TANGENTS, call_options,
               choices_of, prepare, sets, slots)

__all__ = ["curl", "density", "divergence", "gradient", "interpolate", "laplacian"]


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


def _value(entry, function, call, inputs):
    """The operator's value: one C++ call into a new tensor."""
    out = inputs[0].new_empty((inputs[0].shape[0], *entry.out_shape))
    arrays = slots(tuple(map(_plain, inputs[:INPUTS])), tuple(map(_plain, inputs[INPUTS:])))
    arrays[OUT] = out
    _core.run(entry.address, 1, function, arrays, call)
    return out


class _Tangent(torch.autograd.Function):
    """The tangent of an operator along the given inputs' tangents (absent ones None: zero): the
    body of `_Operator`'s jvp rule, itself a Function so that torch.func hands its forward plain
    tensors."""

    @staticmethod
    def forward(entry, function, call, *inputs_and_tangents):
        inputs = inputs_and_tangents[:2 * INPUTS]
        tangents = inputs_and_tangents[2 * INPUTS:]
        arrays = slots(tuple(map(_plain, inputs[:INPUTS])), tuple(map(_plain, inputs[INPUTS:])))
        for k, t in enumerate(tangents):
            arrays[_TANGENTS + k] = _tangent(t)
        out = inputs[0].new_empty((inputs[0].shape[0], *entry.out_shape))
        out_t = torch.empty_like(out)
        arrays[OUT], arrays[OUT_TANGENT] = out, out_t
        _core.run(entry.address, 2, function, arrays, call)
        return out_t

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, grad):
        raise NotImplementedError("sphad: an operator's tangent is not differentiable again "
                                  "(second order: only the C++ API's position HVP)")

    @staticmethod
    def vmap(info, in_dims, *args):
        return _vmap_by_loop(_Tangent, info, in_dims, *args)


class _Adjoint(torch.autograd.Function):
    """The gradients of an operator for the seed, in `DERIVED` order per set (those not wanted
    None): the body of `_Operator`'s backward, a Function for the same reason."""

    @staticmethod
    def forward(entry, function, call, needs, seed, *inputs):
        derived = [inputs[s * INPUTS + k] for s in range(2) for k in DERIVED]
        grads = [torch.empty_like(t) if need and t is not None else None
                 for t, need in zip(derived, needs)]
        arrays = slots(tuple(map(_plain, inputs[:INPUTS])), tuple(map(_plain, inputs[INPUTS:])))
        for k, g in enumerate(grads):
            arrays[_GRADIENTS + k] = g
        arrays[SEED] = _tangent(seed)
        _core.run(entry.address, 3, function, arrays, call)
        return tuple(grads)

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError("sphad: an operator's gradient is not differentiable again "
                                  "(create_graph=True; second order: only the C++ API's "
                                  "position HVP)")

    @staticmethod
    def vmap(info, in_dims, *args):
        return _vmap_by_loop(_Adjoint, info, in_dims, *args)


class _Operator(torch.autograd.Function):
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
    def backward(ctx, grad):
        tensors = ctx.saved_tensors
        need = ctx.needs_input_grad[3:]
        needs = tuple(need[s * INPUTS + k] for s in range(2) for k in DERIVED)
        grads = [None] * (2 * INPUTS)
        if any(needs):
            derived = _Adjoint.apply(ctx.entry, ctx.function, ctx.call, needs, grad, *tensors)
            for n, g in enumerate(derived):
                grads[(n // len(DERIVED)) * INPUTS + DERIVED[n % len(DERIVED)]] = g
        return (None, None, None, *grads)

    @staticmethod
    def jvp(ctx, _de, _df, _dc, *tangents):
        derived = [tangents[s * INPUTS + k] for s in range(2) for k in DERIVED]
        return _Tangent.apply(ctx.entry, ctx.function, ctx.call, *ctx.saved_tensors, *derived)

    @staticmethod
    def vmap(info, in_dims, *args):
        return _vmap_by_loop(_Operator, info, in_dims, *args)


def _apply(choices: tuple, function: str, q: tuple, r: tuple, neighbors, domain, direction,
           calibration_n_h):
    entry = prepare(choices, q, r, function)
    if choices[0] == "Density":  # reads no densities or values: leave them out of the graph
        q = (*q[:4], None, q[5], None)
        r = (*r[:4], None, r[5], None)
    elif not entry.needs_densities:
        q = (*q[:4], None, *q[5:])
        r = (*r[:4], None, *r[5:])
    call = call_options(neighbors, domain, direction, calibration_n_h)
    tensors = (*q, *r)
    if _plain_call(tensors):
        return _value(entry, function, call, tensors)
    return _Operator.apply(entry, function, call, *tensors)


def density(positions: torch.Tensor, supports: torch.Tensor, masses: torch.Tensor,
            kinds: torch.Tensor, neighbors: NeighborList, domain: Domain,
            kernel: Kernel = Kernel.Wendland4, support: SupportScheme = SupportScheme.Gather,
            direction: Direction = Direction.AllToAll,
            references: Optional[Sequence[torch.Tensor]] = None, volumes=None,
            calibration_n_h: float = 0.0) -> torch.Tensor:
    """rho_i = sum_j m_j W_ij for the queries (the first four tensors) and their ``references``
    (a ``sphad.Particles`` of tensors; default: the queries), differentiable in every position,
    support and mass."""
    q, r = sets(positions, supports, masses, kinds, None, volumes, None, references)
    return _apply(("Density", kernel, support, *_DEFAULTS), "density", q, r, neighbors, domain,
                  direction, calibration_n_h)


def _field_operator(operation: str):
    def apply(positions, supports, masses, kinds, densities, values, neighbors: NeighborList,
              domain: Domain, kernel: Kernel = Kernel.Wendland4,
              support: SupportScheme = SupportScheme.Gather,
              scheme: GradientScheme = GradientScheme.Naive,
              direction: Direction = Direction.AllToAll,
              references: Optional[Sequence] = None, volumes=None,
              calibration_n_h: float = 0.0, **choices) -> torch.Tensor:
        q, r = sets(positions, supports, masses, kinds, densities, volumes, values, references)
        return _apply(choices_of(operation, kernel, support, scheme, choices), operation.lower(), q, r, neighbors, domain, direction, calibration_n_h)
    apply.__name__ = operation.lower()
    apply.__doc__ = (f"sphad.{operation.lower()} for tensors, differentiable in both sets' "
                     "positions, supports, masses, densities, volumes and values.")
    return apply


interpolate = _field_operator("Interpolate")
gradient = _field_operator("Gradient")
divergence = _field_operator("Divergence")
curl = _field_operator("Curl")
laplacian = _field_operator("Laplacian")
