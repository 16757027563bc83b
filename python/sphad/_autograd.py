# SPDX-License-Identifier: MIT
"""The torch.autograd Functions behind sphad.torch: an entry's value (`_Operator`), its jvp
(`_Tangent`) and backward (`_Adjoint`) as Functions of their own (torch.func hands a
Function's jvp and backward wrapped tensors, which DLPack cannot export), batched seeds, the
variant for torch.compile, and `torch_backend`, which sphad.torch's operators call. Density's
second order: _hessian.py.
"""
from __future__ import annotations

import torch

from . import _core, _ops
from ._calls import (ALL_INPUTS, DERIVED_INPUTS, GRADIENTS, INPUTS, OUT, OUT_TANGENT, SEED,
                     TANGENTS, slots)


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
        from ._hessian import _DensityPositionAdjoint, _divergence_for
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


def torch_backend(entry, function, inputs, call, out):
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
