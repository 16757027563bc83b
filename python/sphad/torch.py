# SPDX-License-Identifier: MIT
"""sphad's operators as torch.autograd Functions: reverse mode through sphad's VJP, forward
mode (torch.func.jvp, torch.autograd.forward_ad) through sphad's dual-number JVP.

Tensors are CPU tensors, C-contiguous, float32 or float64 (kinds: int32); none is copied.
"""
from __future__ import annotations

import torch

from . import _core
from . import Direction, Domain, Kernel, NeighborList, SupportScheme

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


class _DensityTangent(torch.autograd.Function):
    """The tangent of Density along (x', h', m') (absent ones None): the body of `_Density`'s
    jvp rule, itself a Function so that torch.func hands its forward plain tensors."""

    @staticmethod
    def forward(positions, supports, masses, kinds, positions_t, supports_t, masses_t, call):
        out = positions.new_empty(positions.shape[0])
        out_t = torch.empty_like(out)
        _core.density_jvp(out, out_t, _plain(positions), _plain(supports), _plain(masses), kinds,
                          _tangent(positions_t), _tangent(supports_t), _tangent(masses_t), call)
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
    """The gradients of Density for the seed (those not wanted None): the body of `_Density`'s
    backward, a Function for the same reason."""

    @staticmethod
    def forward(seed, positions, supports, masses, kinds, needs, call):
        grads = [torch.empty_like(t) if need else None
                 for t, need in zip((positions, supports, masses), needs)]
        _core.density_vjp(_tangent(seed), *grads, _plain(positions), _plain(supports),
                          _plain(masses), kinds, call)
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
    def forward(positions, supports, masses, kinds, call):
        out = positions.new_empty(positions.shape[0])
        _core.density(out, _plain(positions), _plain(supports), _plain(masses), kinds, call)
        return out

    @staticmethod
    def setup_context(ctx, inputs, output):
        positions, supports, masses, kinds, call = inputs
        ctx.save_for_backward(positions, supports, masses, kinds)
        ctx.save_for_forward(positions, supports, masses, kinds)
        ctx.call = call

    @staticmethod
    def backward(ctx, grad):
        positions, supports, masses, kinds = ctx.saved_tensors
        needs = tuple(ctx.needs_input_grad[:3])
        grads = (None, None, None)
        if any(needs):
            grads = _DensityAdjoint.apply(grad, positions, supports, masses, kinds, needs,
                                          ctx.call)
        return (*grads, None, None)

    @staticmethod
    def jvp(ctx, positions_t, supports_t, masses_t, *_):
        positions, supports, masses, kinds = ctx.saved_tensors
        return _DensityTangent.apply(positions, supports, masses, kinds, positions_t, supports_t,
                                     masses_t, ctx.call)

    @staticmethod
    def vmap(info, in_dims, *args):
        return _vmap_by_loop(_Density, info, in_dims, *args)


def density(positions: torch.Tensor, supports: torch.Tensor, masses: torch.Tensor,
            kinds: torch.Tensor, neighbors: NeighborList, domain: Domain,
            kernel: Kernel = Kernel.Wendland4, support: SupportScheme = SupportScheme.Gather,
            direction: Direction = Direction.AllToAll) -> torch.Tensor:
    """rho_i = sum_j m_j W_ij, differentiable in positions, supports and masses (first order;
    ``create_graph=True`` through it raises)."""
    call = _core._Call(neighbors, domain._core(), kernel, support, direction)
    return _Density.apply(positions, supports, masses, kinds, call)
