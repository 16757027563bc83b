# SPDX-License-Identifier: MIT
"""The torch.autograd Functions behind sphad.torch: an entry's value (`_Operator`), its jvp
(`_Tangent`) and backward (`_Adjoint`) as Functions of their own (torch.func hands a
Function's jvp and backward wrapped tensors, which DLPack cannot export), batched seeds, the
variant for torch.compile, and `torch_backend`, which sphad.torch's operators call. The C++
calls they make: _torch_calls.py; Density's second order: _hessian.py.
"""
from __future__ import annotations

import inspect

import torch

from ._calls import ALL_INPUTS, DERIVED_INPUTS, INPUTS
from ._torch_calls import _gradients, _one_or_tuple, _tangents, _value


class _Bound:
    """Positional arguments bound to a forward that takes only positional ones, no defaults:
    themselves (what `inspect.BoundArguments` would hold)."""

    __slots__ = ("args",)
    kwargs: dict = {}

    def __init__(self, args):
        self.args = args

    def apply_defaults(self):
        pass


class _PositionalSignature(inspect.Signature):
    """A forward's signature whose `bind` of positional arguments is the identity."""

    __slots__ = ()

    def bind(self, *args, **kwargs):
        return super().bind(*args, **kwargs) if kwargs else _Bound(args)


def cached_signature(function_class):
    """`function_class` with its forward's signature given: torch binds a Function's arguments
    to `inspect.signature(forward)` on every apply (~15 µs of a small call); sphad's forwards
    take positional arguments without defaults, which bind to themselves."""
    signature = inspect.signature(function_class.forward)
    assert all(p.default is p.empty and p.kind in (p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
               for p in signature.parameters.values())
    function_class.forward.__signature__ = _PositionalSignature(
        list(signature.parameters.values()))
    return function_class


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


class _Spec:
    """A call's constant arguments to the Functions below, in one object opaque to torch's
    pytree (which walks every argument of a Function at each torch.func call, ~10 µs per
    argument): the entry, the function's name, the call's options, `layout` (for each of the
    `ALL_INPUTS` inputs, the index of its tensor among the distinct tensors passed after the
    spec, or -1 for None) and, for an adjoint, one flag per `DERIVED_INPUTS` entry: whether its
    gradient is wanted. Passing each distinct tensor once also lets the backward sum a tensor's
    gradients over its roles itself."""

    __slots__ = ("entry", "function", "call", "layout", "needs")

    def __init__(self, entry, function, call, layout, needs=()):
        self.entry, self.function, self.call = entry, function, call
        self.layout, self.needs = layout, needs

    def inputs(self, distinct) -> list:
        """The `ALL_INPUTS` inputs from the distinct tensors."""
        return [None if k < 0 else distinct[k] for k in self.layout]

    def summed(self, grads, count) -> list:
        """Per distinct tensor (`count` of them), the sum of the gradients of its roles."""
        out = [None] * count
        for k, g in zip(self.layout, grads):
            if g is not None:
                out[k] = g if out[k] is None else out[k] + g
        return out


def _distinct(inputs):
    """The `layout` of `_Spec` and the distinct tensors of `inputs`."""
    index: dict = {}  # id -> position among the distinct tensors
    distinct, layout = [], []
    for t in inputs:
        if t is None:
            layout.append(-1)
            continue
        k = index.setdefault(id(t), len(distinct))
        if k == len(distinct):
            distinct.append(t)
        layout.append(k)
    return tuple(layout), distinct


@cached_signature
class _Tangent(torch.autograd.Function):
    """The tangents of an operator's outputs along the given inputs' tangents (absent ones
    None: zero): the body of `_Operator`'s jvp rule, itself a Function so that torch.func hands
    its forward plain tensors. Arguments: a `_Spec`, its distinct tensors, then one tangent per
    distinct tensor."""

    @staticmethod
    def forward(spec, *distinct_and_tangents):
        n = len(distinct_and_tangents) // 2
        tangents = distinct_and_tangents[n:]
        derived = [None if spec.layout[i] < 0 else tangents[spec.layout[i]]
                   for i in DERIVED_INPUTS]
        return _one_or_tuple(_tangents(spec.entry, spec.function, spec.call,
                                       spec.inputs(distinct_and_tangents[:n]), derived))

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


@cached_signature
class _Adjoint(torch.autograd.Function):
    """The gradients of an operator for its outputs' seeds, one per `DERIVED_INPUTS` entry
    (those not wanted None): the body of `_Operator`'s backward, a Function for the same
    reason. Arguments: a `_Spec` (with `needs`), the seeds (one per output), then the spec's
    distinct tensors. Called through `_adjoint`."""

    @staticmethod
    def forward(spec, *seeds_and_distinct):
        n = len(spec.entry.outputs)
        return tuple(_gradients(spec.entry, spec.function, spec.call, spec.needs,
                                seeds_and_distinct[:n], spec.inputs(seeds_and_distinct[n:])))

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


def _adjoint(entry, function, call, needs, seeds, inputs):
    """`_Adjoint` of these `ALL_INPUTS` inputs."""
    layout, distinct = _distinct(inputs)
    return _Adjoint.apply(_Spec(entry, function, call, layout, needs), *seeds, *distinct)


def _operator(entry, function, call, inputs):
    """`_Operator` of these `ALL_INPUTS` inputs."""
    layout, distinct = _distinct(inputs)
    return _Operator.apply(_Spec(entry, function, call, layout), *distinct)


# Operators whose position gradient is differentiable again, by name: (the Function of that
# gradient, a function of the entry and the positions giving the entry its backward needs).
# _hessian.py registers Density's (sphad.torch imports it); this module never imports it.
SECOND_ORDER: dict = {}

_LEGACY_BATCHED = torch._C._functorch.is_legacy_batchedtensor
_WRAPPED = torch._C._functorch.is_functorch_wrapped_tensor


def _batched_adjoint(entry, function, call, needs, seeds, inputs):
    """`_Adjoint` for seeds batched by torch's older vmap (`autograd.grad(...,
    is_grads_batched=True)`, which gradcheck's batched-gradient check uses; it does not apply a
    Function's vmap rule): the seeds unwrapped, one call per batch entry, the gradients stacked
    and wrapped again at the same level."""
    level = torch._C._vmapmode_increment_nesting() - 1  # the innermost level now active
    torch._C._vmapmode_decrement_nesting()
    size = next(torch._remove_batch_dim(s, level, 1, 0).shape[0] for s in seeds
                if _LEGACY_BATCHED(s))
    plain = [torch._remove_batch_dim(s, level, size, 0) for s in seeds]
    per_entry = [_adjoint(entry, function, call, needs, [p[b] for p in plain], inputs)
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
    second_order = SECOND_ORDER.get(entry.choices[0]) if entry.choices is not None else None
    if second_order is not None and torch.is_grad_enabled():
        # Grad mode on (create_graph=True, or torch.func): the operator's position gradient
        # differentiable once more; the other inputs' gradients first order.
        position_adjoint, companion = second_order
        positions = (DERIVED_INPUTS.index(0), DERIVED_INPUTS.index(INPUTS))
        if need[0] or need[INPUTS]:
            grads[0], grads[INPUTS] = position_adjoint.apply(
                entry, companion(entry, tensors[0]), function, call,
                (need[0], need[INPUTS]), seeds[0], *tensors)
        needs = tuple(n and d not in positions for d, n in enumerate(needs))
        if not any(needs):
            return grads
    adjoint = _adjoint
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
        derived = adjoint(entry, function, call, needs, seeds, tensors)
    for i, g, n in zip(DERIVED_INPUTS, derived, needs):
        if n:
            grads[i] = g
    return grads


def _mark_integer_outputs(ctx, entry, output):
    if any(entry.integer_outputs):
        ctx.mark_non_differentiable(*(o for o, i in zip(output, entry.integer_outputs) if i))


def _distinct_gradients(spec, needs_input_grad, seeds, distinct) -> list:
    """The backward of `_Operator` and `_CompiledOperator`: per distinct tensor, its gradient
    (summed over its roles) where torch wants one."""
    need = [k >= 0 and needs_input_grad[k] for k in spec.layout]
    grads = _input_gradients(spec.entry, spec.function, spec.call, need, seeds,
                             spec.inputs(distinct))
    return spec.summed(grads, len(distinct))


@cached_signature
class _Operator(torch.autograd.Function):
    """An operator's (or a correction pipeline's) outputs, its backward (sphad's VJP) and jvp
    (sphad's JVP); its arguments: a `_Spec`, then its distinct tensors. Called through
    `_operator`."""

    @staticmethod
    def forward(spec, *distinct):
        return _value(spec.entry, spec.function, spec.call, spec.inputs(distinct))

    @staticmethod
    def setup_context(ctx, inputs, output):
        spec, *distinct = inputs
        ctx.save_for_backward(*distinct)
        ctx.save_for_forward(*distinct)
        ctx.spec = spec
        _mark_integer_outputs(ctx, spec.entry, output)

    @staticmethod
    def backward(ctx, *seeds):
        return (None, *_distinct_gradients(ctx.spec, ctx.needs_input_grad[1:], seeds,
                                           ctx.saved_tensors))

    @staticmethod
    def jvp(ctx, _dspec, *tangents):
        integer = ctx.spec.entry.integer_outputs
        out = _Tangent.apply(ctx.spec, *ctx.saved_tensors, *tangents)
        if any(integer):  # counts have no tangent
            return tuple(None if i else t for t, i in zip(out, integer))
        return out

    @staticmethod
    def vmap(info, in_dims, *args):
        return _vmap_by_loop(_Operator, info, in_dims, *args)


@cached_signature
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
        ctx.spec = _Spec(entry, function, call, layout)
        _mark_integer_outputs(ctx, entry, output)

    @staticmethod
    def backward(ctx, *seeds):
        return (None, None, None, None, *_distinct_gradients(ctx.spec, ctx.needs_input_grad[4:],
                                                             seeds, ctx.saved_tensors))


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
    return _operator(entry, function, call, inputs)
