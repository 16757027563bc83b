# SPDX-License-Identifier: MIT
"""sphad's operators as torch.autograd Functions: reverse mode through sphad's VJP, forward
mode (torch.func.jvp, torch.autograd.forward_ad) through sphad's dual-number JVP.

Tensors are CPU tensors, C-contiguous, float32 or float64 (kinds: int32); none is copied.
"""
from __future__ import annotations

from typing import Optional, Sequence

import torch

from . import _core
from . import Direction, Domain, Kernel, NeighborList, Particles, SupportScheme  # noqa: F401

__all__ = ["density"]


def _plain(t):
    """The tensor's data for sphad (a tensor that requires grad is exported detached)."""
    return None if t is None else t.detach()


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
    if torch.is_grad_enabled() and any(t.requires_grad for t in tensors):
        return False
    if torch.autograd.forward_ad._current_level >= 0:
        return False
    return not any(torch._C._functorch.is_functorch_wrapped_tensor(t) for t in tensors)


class _DensityTangent(torch.autograd.Function):
    """The tangent of Density along both sets' (x', h', m') (absent ones None): the body of
    `_Density`'s jvp rule, itself a Function so that torch.func hands its forward plain
    tensors."""

    @staticmethod
    def forward(qx, qh, qm, qk, rx, rh, rm, rk, dqx, dqh, dqm, drx, drh, drm, call):
        out = qx.new_empty(qx.shape[0])
        out_t = torch.empty_like(out)
        _core.density_jvp(out, out_t, *map(_plain, (qx, qh, qm)), qk, *map(_plain, (rx, rh, rm)),
                          rk, *map(_tangent, (dqx, dqh, dqm, drx, drh, drm)), call)
        return out_t

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, grad):
        raise NotImplementedError("sphad: Density's tangent is not differentiable again "
                                  "(second order: only the C++ API's position HVP)")

    @staticmethod
    def vmap(info, in_dims, *args):
        return _vmap_by_loop(_DensityTangent, info, in_dims, *args)


class _DensityAdjoint(torch.autograd.Function):
    """The gradients of Density for the seed, the queries' then the references' (those not
    wanted None): the body of `_Density`'s backward, a Function for the same reason."""

    @staticmethod
    def forward(seed, qx, qh, qm, qk, rx, rh, rm, rk, needs, call):
        grads = [torch.empty_like(t) if need else None
                 for t, need in zip((qx, qh, qm, rx, rh, rm), needs)]
        _core.density_vjp(_tangent(seed), *grads, *map(_plain, (qx, qh, qm)), qk,
                          *map(_plain, (rx, rh, rm)), rk, call)
        return tuple(grads)

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError("sphad: Density's gradient is not differentiable again "
                                  "(create_graph=True; second order: only the C++ API's "
                                  "position HVP)")

    @staticmethod
    def vmap(info, in_dims, *args):
        return _vmap_by_loop(_DensityAdjoint, info, in_dims, *args)


class _Density(torch.autograd.Function):
    @staticmethod
    def forward(qx, qh, qm, qk, rx, rh, rm, rk, call):
        out = qx.new_empty(qx.shape[0])
        _core.density(out, *map(_plain, (qx, qh, qm)), qk, *map(_plain, (rx, rh, rm)), rk, call)
        return out

    @staticmethod
    def setup_context(ctx, inputs, output):
        *tensors, call = inputs
        ctx.save_for_backward(*tensors)
        ctx.save_for_forward(*tensors)
        ctx.call = call

    @staticmethod
    def backward(ctx, grad):
        tensors = ctx.saved_tensors
        need = ctx.needs_input_grad
        needs = (need[0], need[1], need[2], need[4], need[5], need[6])
        grads = (None,) * 6
        if any(needs):
            grads = _DensityAdjoint.apply(grad, *tensors, needs, ctx.call)
        q, r = grads[:3], grads[3:]
        return (*q, None, *r, None, None)

    @staticmethod
    def jvp(ctx, dqx, dqh, dqm, _dqk, drx, drh, drm, _drk, _dcall):
        return _DensityTangent.apply(*ctx.saved_tensors, dqx, dqh, dqm, drx, drh, drm, ctx.call)

    @staticmethod
    def vmap(info, in_dims, *args):
        return _vmap_by_loop(_Density, info, in_dims, *args)


def density(positions: torch.Tensor, supports: torch.Tensor, masses: torch.Tensor,
            kinds: torch.Tensor, neighbors: NeighborList, domain: Domain,
            kernel: Kernel = Kernel.Wendland4, support: SupportScheme = SupportScheme.Gather,
            direction: Direction = Direction.AllToAll,
            references: Optional[Sequence[torch.Tensor]] = None) -> torch.Tensor:
    """rho_i = sum_j m_j W_ij for the queries (the first four tensors) and their ``references``
    (a ``sphad.Particles`` of tensors; default: the queries), differentiable in every position,
    support and mass (first order; ``create_graph=True`` through it raises). A tensor given in
    both roles gets the sum of its two gradients."""
    r = (positions, supports, masses, kinds) if references is None else tuple(references)
    call = _core._Call(neighbors, domain._native, kernel, support, direction)
    tensors = (positions, supports, masses, kinds, *r)
    if _plain_call(tensors):
        return _Density.forward(*tensors, call)
    return _Density.apply(*tensors, call)
