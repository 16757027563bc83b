# SPDX-License-Identifier: MIT
"""sphad's calls as torch.library custom ops (`torch.ops.sphad.neighbor_list`,
`torch.ops.sphad.run`): opaque to torch.compile, which traces them through their fake
(meta) implementations without graph breaks. The neighbour list is a pair of tensors here
(`NeighborTensors`), so that it can cross a compiled graph; its pair count is data-dependent
(a dynamic size in the fake). sphad.torch's Functions call `run` when given such a list.
"""
from __future__ import annotations

from typing import List, NamedTuple, Optional

import torch

from . import _core
from ._calls import (DERIVED_INPUTS, GRADIENTS, OUT, OUT_TANGENT, SEED, SLOTS, TANGENTS,
                     Domain, Entry, SupportScheme, _describe, search, search_entry)


class NeighborTensors(NamedTuple):
    """A neighbour list as tensors (torch's memory): row starts (int64, num_queries + 1) and
    reference indices (int32). From `sphad.torch.neighbor_tensors`; checked entry by entry by
    every call that reads it."""

    offsets: torch.Tensor
    neighbors: torch.Tensor

    def tensor_call(self, domain: Domain, direction, calibration_n_h: float,
                    tau: float = -1.0) -> "TensorCall":
        return TensorCall(self.offsets, self.neighbors, tuple(map(float, domain.min)),
                          tuple(map(float, domain.max)), tuple(map(bool, domain.periodic)),
                          int(direction.value), float(calibration_n_h), float(tau))


class TensorCall(NamedTuple):
    """A call's options for the custom ops: the list's tensors and plain values."""

    offsets: torch.Tensor
    neighbors: torch.Tensor
    min: tuple
    max: tuple
    periodic: tuple
    direction: int
    calibration_n_h: float
    tau: float


@torch.library.custom_op("sphad::neighbor_list", mutates_args=())
def neighbor_list(query_positions: torch.Tensor, query_supports: torch.Tensor,
                  reference_positions: torch.Tensor, reference_supports: torch.Tensor,
                  min: List[float], max: List[float], periodic: List[bool], support: int,
                  skin: float) -> List[torch.Tensor]:
    found = search(query_positions, query_supports, reference_positions, reference_supports,
                   Domain(min, max, periodic), SupportScheme(support), skin)
    # (copies: the search's list is C++ memory, read-only from Python)
    if found.device >= 0:
        return [torch.from_dlpack(found.offsets).clone(),
                torch.from_dlpack(found.neighbors).clone()]
    return [torch.tensor(found.offsets), torch.tensor(found.neighbors)]


@neighbor_list.register_fake
def _(query_positions, query_supports, reference_positions, reference_supports, min, max,
      periodic, support, skin):
    pairs = torch.library.get_ctx().new_dynamic_size()
    return [query_positions.new_empty(query_positions.shape[0] + 1, dtype=torch.int64),
            query_positions.new_empty(pairs, dtype=torch.int32)]


_entries_by_key: dict = {}


def _entry(key: str) -> Entry:
    found = _entries_by_key.get(key)
    if found is None:
        found = _entries_by_key[key] = _describe(key)
    return found


def _outputs_like(entry: Entry, positions: torch.Tensor) -> list:
    return [positions.new_empty((positions.shape[0], *shape),
                                dtype=torch.int32 if integer else None)
            for shape, integer in zip(entry.outputs, entry.integer_outputs)]


@torch.library.custom_op("sphad::run", mutates_args=())
def run(key: str, verb: int, function: str, offsets: torch.Tensor, neighbors: torch.Tensor,
        min: List[float], max: List[float], periodic: List[bool], direction: int,
        calibration_n_h: float, tau: float, inputs: List[Optional[torch.Tensor]],
        extra: List[Optional[torch.Tensor]], wanted: List[bool]) -> List[torch.Tensor]:
    """Entry `key`: verb 1 its outputs; 2 its outputs and their tangents along `extra` (one
    tangent per differentiable input); 3 the gradients of the differentiable inputs marked in
    `wanted` for the seeds `extra` (one per output)."""
    entry = _entry(key)
    positions = inputs[0]
    arrays = [*inputs] + [None] * (SLOTS - len(inputs))
    if verb == 3:
        for k, s in enumerate(extra):
            arrays[SEED + 3 * k] = s
        grads = [torch.empty_like(inputs[i]) if w else None
                 for i, w in zip(DERIVED_INPUTS, wanted)]
        for d, g in enumerate(grads):
            arrays[GRADIENTS + d] = g
        result = [g for g in grads if g is not None]
    else:
        result = _outputs_like(entry, positions)
        for k, o in enumerate(result):
            arrays[OUT + 3 * k] = o
        if verb == 2:
            tangents = _outputs_like(entry, positions)
            for k, t in enumerate(tangents):
                arrays[OUT_TANGENT + 3 * k] = t
            for d, t in enumerate(extra):
                arrays[TANGENTS + d] = t
            result = result + tangents
    _core.run_with_list(_address(key), verb, function, arrays, offsets, neighbors, min, max,
                        periodic, _core.Direction(direction), calibration_n_h, tau,
                        search_entry(positions))
    return result


def _address(key: str) -> int:
    return _entry(key).address


@run.register_fake
def _(key, verb, function, offsets, neighbors, min, max, periodic, direction, calibration_n_h,
      tau, inputs, extra, wanted):
    entry = _entry(key)
    positions = inputs[0]
    if verb == 3:
        return [torch.empty_like(inputs[i]) for i, w in zip(DERIVED_INPUTS, wanted) if w]
    outs = _outputs_like(entry, positions)
    return outs + (_outputs_like(entry, positions) if verb == 2 else [])


def call_op(entry: Entry, verb: int, function: str, call: TensorCall, inputs, extra=(),
            wanted=()) -> list:
    """torch.ops.sphad.run for entry `entry` (its key) with the options of `call`."""
    return torch.ops.sphad.run(entry.key, verb, function, call.offsets, call.neighbors,
                               list(call.min), list(call.max), list(call.periodic),
                               call.direction, call.calibration_n_h, call.tau, list(inputs),
                               list(extra), list(wanted))
