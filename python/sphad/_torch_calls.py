# SPDX-License-Identifier: MIT
"""An entry's C++ calls on torch tensors, outside autograd: its values, tangents and gradients
into tensors torch allocates (through the custom op `torch.ops.sphad.run` when the list is
tensors). The Functions of _autograd.py and _hessian.py make their calls through these.
"""
from __future__ import annotations

import torch

from . import _core, _ops
from ._calls import DERIVED_INPUTS, GRADIENTS, OUT, OUT_TANGENT, SEED, TANGENTS, slots


def _plain(t):
    """The tensor's data for sphad (a tensor that requires grad is exported detached)."""
    return t if t is None or not t.requires_grad else t.detach()


# Whether the module reads torch's tensors through DLPack's C exchange API (torch >= 2.10),
# which takes a tensor that requires grad as it is; `__dlpack__` (older torch) refuses one, so
# there the C++ calls get detached tensors.
_EXCHANGE = _core._exchange_api(torch.empty(0))


def _for_cpp(inputs):
    """The inputs as the module's `run` takes them."""
    return inputs if _EXCHANGE else [_plain(t) for t in inputs]


def _tangent(t):
    """A tangent or seed as sphad reads it (torch may hand over expanded, strided ones)."""
    return None if t is None else t.detach().contiguous()


def _outputs(entry, inputs):
    n = inputs[0].shape[0]
    return [inputs[0].new_empty((n, *shape), dtype=torch.int32 if integer else None)
            for shape, integer in zip(entry.outputs, entry.integer_outputs)]


def _one_or_tuple(outs):
    return outs[0] if len(outs) == 1 else tuple(outs)


def _values(entry, function, call, inputs, out=None) -> list:
    """The entry's outputs: one C++ call into new tensors (or `out`); through the custom op
    when the list is tensors."""
    if isinstance(call, _ops.TensorCall):
        return _ops.call_op(entry, 1, function, call, [_plain(t) for t in inputs])
    outs = _outputs(entry, inputs) if out is None else [out]
    arrays = slots(_for_cpp(inputs))
    for k, o in enumerate(outs):
        arrays[OUT + 3 * k] = o
    _core.run(entry.address, 1, function, arrays, call)
    return outs


def _value(entry, function, call, inputs, out=None):
    return _one_or_tuple(_values(entry, function, call, inputs, out))


def _tangents(entry, function, call, inputs, tangents) -> list:
    """The tangents of the entry's outputs along `tangents` (one per `DERIVED_INPUTS` entry,
    None: zero)."""
    tangents = [_tangent(t) for t in tangents]
    if isinstance(call, _ops.TensorCall):
        return _ops.call_op(entry, 2, function, call, [_plain(t) for t in inputs],
                            tangents)[len(entry.outputs):]
    arrays = slots(_for_cpp(inputs))
    for d, t in enumerate(tangents):
        arrays[TANGENTS + d] = t
    outs, outs_t = _outputs(entry, inputs), _outputs(entry, inputs)
    for k, (o, t) in enumerate(zip(outs, outs_t)):
        arrays[OUT + 3 * k], arrays[OUT_TANGENT + 3 * k] = o, t
    _core.run(entry.address, 2, function, arrays, call)
    return outs_t


def _gradients(entry, function, call, needs, seeds, inputs, shared=True) -> list:
    """The gradients of the inputs marked in `needs` (one flag per `DERIVED_INPUTS` entry; the
    others None) for the outputs' seeds; a tensor in several roles gets its summed gradient in
    its first role's place (None in the others) unless not `shared`: one array per role."""
    wanted = [bool(n) and inputs[i] is not None for i, n in zip(DERIVED_INPUTS, needs)]
    seeds = [_tangent(s) for s in seeds]
    if isinstance(call, _ops.TensorCall):
        found = iter(_ops.call_op(entry, 3, function, call, [_plain(t) for t in inputs], seeds,
                                  wanted))
        return [next(found) if w else None for w in wanted]
    # One array per tensor: a tensor in two roles (the default references) has both roles'
    # gradient slots pointing to it, and the entry adds the second role's gradient to the first.
    grads = [None] * len(wanted)
    arrays = slots(_for_cpp(inputs))
    first: dict = {}  # id(tensor) -> its gradient array
    for d, w in enumerate(wanted):
        if w:
            t = inputs[DERIVED_INPUTS[d]]
            g = first.get(id(t)) if shared else None
            if g is None:
                g = first[id(t)] = grads[d] = torch.empty_like(t)
            arrays[GRADIENTS + d] = g
    for k, seed in enumerate(seeds):
        arrays[SEED + 3 * k] = seed
    _core.run(entry.address, 3, function, arrays, call)
    return grads
