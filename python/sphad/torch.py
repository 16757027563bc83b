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

from . import _core, _ops
from . import (ALL_INPUTS, DERIVED_INPUTS, DOCS, GRADIENTS, INPUTS, OUT,  # noqa: F401
               OUT_TANGENT, SEED, TANGENTS, CRKState, Direction, DivergenceMode, Domain, Entry,
               GradientScheme, Kernel, LaplacianScheme, NeighborList, Operator, Particles,
               SupportScheme, entry, make_operator, make_pipelines, slots)

__all__ = ["NeighborTensors", "covariance", "crk_factors", "curl", "density", "divergence", "grad_h_omegas",
           "gradient", "interpolate", "laplacian", "neighbor_tensors", "renormalization_matrices"]


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
    return not any(_WRAPPED(t) for t in tensors)


def _outputs(entry, inputs):
    n = inputs[0].shape[0]
    return [inputs[0].new_empty((n, *shape), dtype=torch.int32 if integer else None)
            for shape, integer in zip(entry.outputs, entry.integer_outputs)]


def _one_or_tuple(outs):
    return outs[0] if len(outs) == 1 else tuple(outs)


def _values(entry, function, call, inputs, out=None) -> list:
    """The entry's outputs: one C++ call into new tensors (or `out`); through the custom op
    when the list is tensors."""
    inputs = [_plain(t) for t in inputs]
    if isinstance(call, _ops.TensorCall):
        return _ops.call_op(entry, 1, function, call, inputs)
    outs = _outputs(entry, inputs) if out is None else [out]
    arrays = slots(inputs)
    for k, o in enumerate(outs):
        arrays[OUT + 3 * k] = o
    _core.run(entry.address, 1, function, arrays, call)
    return outs


def _value(entry, function, call, inputs, out=None):
    return _one_or_tuple(_values(entry, function, call, inputs, out))


def _tangents(entry, function, call, inputs, tangents) -> list:
    """The tangents of the entry's outputs along `tangents` (one per `DERIVED_INPUTS` entry,
    None: zero)."""
    inputs = [_plain(t) for t in inputs]
    tangents = [_tangent(t) for t in tangents]
    if isinstance(call, _ops.TensorCall):
        return _ops.call_op(entry, 2, function, call, inputs, tangents)[len(entry.outputs):]
    arrays = slots(inputs)
    for d, t in enumerate(tangents):
        arrays[TANGENTS + d] = t
    outs, outs_t = _outputs(entry, inputs), _outputs(entry, inputs)
    for k, (o, t) in enumerate(zip(outs, outs_t)):
        arrays[OUT + 3 * k], arrays[OUT_TANGENT + 3 * k] = o, t
    _core.run(entry.address, 2, function, arrays, call)
    return outs_t


def _gradients(entry, function, call, needs, seeds, inputs) -> list:
    """The gradients of the inputs marked in `needs` (one flag per `DERIVED_INPUTS` entry; the
    others None) for the outputs' seeds."""
    inputs = [_plain(t) for t in inputs]
    wanted = [bool(n) and inputs[i] is not None for i, n in zip(DERIVED_INPUTS, needs)]
    seeds = [_tangent(s) for s in seeds]
    if isinstance(call, _ops.TensorCall):
        found = iter(_ops.call_op(entry, 3, function, call, inputs, seeds, wanted))
        return [next(found) if w else None for w in wanted]
    grads = [torch.empty_like(inputs[i]) if w else None for i, w in zip(DERIVED_INPUTS, wanted)]
    arrays = slots(inputs)
    for d, g in enumerate(grads):
        arrays[GRADIENTS + d] = g
    for k, seed in enumerate(seeds):
        arrays[SEED + 3 * k] = seed
    _core.run(entry.address, 3, function, arrays, call)
    return grads


class _Tangent(torch.autograd.Function):
    """The tangents of an operator's outputs along the given inputs' tangents (absent ones
    None: zero): the body of `_Operator`'s jvp rule, itself a Function so that torch.func hands
    its forward plain tensors. Arguments: the inputs, then one tangent per `DERIVED_INPUTS`
    entry."""

    @staticmethod
    def forward(entry, function, call, *inputs_and_tangents):
        return _one_or_tuple(_tangents(entry, function, call, inputs_and_tangents[:ALL_INPUTS],
                                       inputs_and_tangents[ALL_INPUTS:]))

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
        n = len(entry.outputs)
        return tuple(_gradients(entry, function, call, needs, seeds_and_inputs[:n],
                                seeds_and_inputs[n:]))

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
_WRAPPED = torch._C._functorch.is_functorch_wrapped_tensor


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
        wanted = tuple((i == 0 and needs[0]) or (i == INPUTS and needs[1])
                       for i in DERIVED_INPUTS)
        grads = _gradients(density, function, call, wanted, (seed,), inputs)
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


def _input_gradients(entry, function, call, need, seeds, tensors) -> list:
    """The gradients of the `ALL_INPUTS` inputs whose `need` flag is set, for the outputs'
    seeds (the backward of `_Operator` and `_CompiledOperator`)."""
    needs = tuple(need[i] for i in DERIVED_INPUTS)
    grads = [None] * ALL_INPUTS
    if not any(needs):
        return grads
    if torch.is_grad_enabled() and entry.choices is not None and entry.choices[0] == "Density":
        # Grad mode on (create_graph=True, or torch.func): Density's position gradient
        # differentiable once more; the other inputs' gradients first order.
        positions = (DERIVED_INPUTS.index(0), DERIVED_INPUTS.index(INPUTS))
        if need[0] or need[INPUTS]:
            grads[0], grads[INPUTS] = _DensityPositionAdjoint.apply(
                entry, _divergence_for(entry, tensors[0]), function, call,
                (need[0], need[INPUTS]), seeds[0], *tensors)
        needs = tuple(n and d not in positions for d, n in enumerate(needs))
        if not any(needs):
            return grads
    adjoint = _Adjoint.apply
    if not torch.compiler.is_compiling():
        if any(_LEGACY_BATCHED(s) for s in seeds):
            adjoint = _batched_adjoint
        elif not torch.is_grad_enabled() and not any(
                _WRAPPED(t) for t in (*seeds, *tensors) if t is not None):
            # a plain backward: the C++ call directly (the Function is for torch.func's
            # wrapped tensors and for create_graph)
            derived = _gradients(entry, function, call, needs, seeds, tensors)
            adjoint = None
    if adjoint is not None:
        derived = adjoint(entry, function, call, needs, *seeds, *tensors)
    for i, g, n in zip(DERIVED_INPUTS, derived, needs):
        if n:
            grads[i] = g
    return grads


def _mark_integer_outputs(ctx, entry, output):
    if any(entry.integer_outputs):
        ctx.mark_non_differentiable(*(o for o, i in zip(output, entry.integer_outputs) if i))


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
        _mark_integer_outputs(ctx, entry, output)

    @staticmethod
    def backward(ctx, *seeds):
        return (None, None, None, *_input_gradients(ctx.entry, ctx.function, ctx.call,
                                                    ctx.needs_input_grad[3:], seeds,
                                                    ctx.saved_tensors))

    @staticmethod
    def jvp(ctx, _de, _df, _dc, *tangents):
        out = _Tangent.apply(ctx.entry, ctx.function, ctx.call, *ctx.saved_tensors,
                             *(tangents[i] for i in DERIVED_INPUTS))
        if any(ctx.entry.integer_outputs):  # counts have no tangent
            return tuple(None if i else t for t, i in zip(out, ctx.entry.integer_outputs))
        return out

    @staticmethod
    def vmap(info, in_dims, *args):
        return _vmap_by_loop(_Operator, info, in_dims, *args)


class _CompiledOperator(torch.autograd.Function):
    """`_Operator` for torch.compile: no jvp rule (Dynamo does not trace a Function that defines
    one, and torch would drop it when compiling anyway), and each tensor passed once (Dynamo
    refuses one tensor in two arguments, as the default references are): its arguments are the
    entry, the function, the call, `layout` (for each of the `ALL_INPUTS` inputs, the index of
    its tensor among the rest, or -1 for None), then the distinct tensors."""

    @staticmethod
    def forward(entry, function, call, layout, *distinct):
        return _value(entry, function, call, [None if k < 0 else distinct[k] for k in layout])

    @staticmethod
    def setup_context(ctx, inputs, output):
        entry, function, call, layout, *distinct = inputs
        ctx.save_for_backward(*distinct)
        ctx.entry, ctx.function, ctx.call, ctx.layout = entry, function, call, layout
        _mark_integer_outputs(ctx, entry, output)

    @staticmethod
    def backward(ctx, *seeds):
        distinct = ctx.saved_tensors
        tensors = [None if k < 0 else distinct[k] for k in ctx.layout]
        need = [k >= 0 and ctx.needs_input_grad[4 + k] for k in ctx.layout]
        grads = _input_gradients(ctx.entry, ctx.function, ctx.call, need, seeds, tensors)
        summed = [None] * len(distinct)
        for k, g in zip(ctx.layout, grads):
            if g is not None:
                summed[k] = g if summed[k] is None else summed[k] + g
        return (None, None, None, None, *summed)


def _distinct(inputs):
    """The `layout` and the distinct tensors of `_CompiledOperator`."""
    distinct, layout = [], []
    for t in inputs:
        if t is None:
            layout.append(-1)
            continue
        k = next((j for j, d in enumerate(distinct) if d is t), -1)
        if k < 0:
            distinct.append(t)
            k = len(distinct) - 1
        layout.append(k)
    return tuple(layout), distinct


def _torch_backend(entry, function, inputs, call, out):
    if torch.compiler.is_compiling():
        if torch.autograd.forward_ad._current_level >= 0:
            raise NotImplementedError(
                f"sphad::{function}: forward-mode AD (torch.func.jvp, forward_ad) under "
                "torch.compile is not supported: torch drops a custom autograd.Function's jvp "
                "when compiling (a known torch issue), which would give wrong tangents; call it "
                "eagerly")
        if out is None and torch.is_grad_enabled() and any(
                t is not None and t.requires_grad for t in inputs):
            layout, distinct = _distinct(inputs)
            return _CompiledOperator.apply(entry, function, call, layout, *distinct)
        return _value(entry, function, call, inputs, out)
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
crk_factors, renormalization_matrices, grad_h_omegas, covariance = make_pipelines(
    _torch_backend)
NeighborTensors = _ops.NeighborTensors


def neighbor_tensors(positions: torch.Tensor, supports: torch.Tensor, domain: Domain,
                     support: SupportScheme = SupportScheme.Gather, skin: float = 0.0,
                     references: Optional[Sequence[torch.Tensor]] = None) -> NeighborTensors:
    """`sphad.neighbor_list` as tensors (torch's memory, through the custom op
    `torch.ops.sphad.neighbor_list`): what a function compiled by torch.compile searches and
    passes to the operators, which then run as `torch.ops.sphad.run` (no graph break). Every
    call checks the list entry by entry (it is the caller's memory)."""
    rx, rh = (positions, supports) if references is None else (references[0], references[1])
    offsets, pairs = torch.ops.sphad.neighbor_list(
        _plain(positions), _plain(supports), _plain(rx), _plain(rh),
        [float(v) for v in domain.min], [float(v) for v in domain.max],
        [bool(p) for p in domain.periodic], int(support.value), float(skin))
    return NeighborTensors(offsets, pairs)
