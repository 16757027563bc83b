# SPDX-License-Identifier: MIT
"""sphad: differentiable SPH operators from Python.

The arrays are NumPy arrays or torch tensors (CPU), C-contiguous, float32 or float64 (kinds:
int32); none is ever copied or converted. Outputs are the caller's arrays (``out=``) or are
allocated like the positions. ``sphad.torch`` wraps the calls as ``torch.autograd`` Functions;
importing ``sphad`` does not import torch.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, NamedTuple, Optional, Sequence

import numpy as np

from . import _core
from ._core import Direction, Kernel, NeighborList, SupportScheme

__all__ = ["Direction", "Domain", "Kernel", "NeighborList", "Particles", "SupportScheme",
           "density", "neighbor_list"]


@dataclass(frozen=True)
class Domain:
    """The box: lower and upper corners and, per axis, whether it is periodic."""

    min: Sequence[float]
    max: Sequence[float]
    periodic: Sequence[bool]

    @cached_property
    def _native(self) -> "_core._Domain":
        """The box as the module takes it, converted once per Domain (it is immutable)."""
        return _core._Domain([float(v) for v in self.min], [float(v) for v in self.max],
                             [bool(p) for p in self.periodic])


class Particles(NamedTuple):
    """A particle set's arrays: positions (n, D), supports, masses (n), kinds (n, int32)."""

    positions: Any
    supports: Any
    masses: Any
    kinds: Any


def neighbor_list(positions, supports, domain: Domain,
                  support: SupportScheme = SupportScheme.Gather, skin: float = 0.0,
                  references: Optional[Sequence] = None) -> NeighborList:
    """Every pair (i, j) within the support scheme's radius (plus ``skin``) between the queries
    (``positions``, ``supports``) and ``references`` (a ``Particles`` or a sequence whose first
    two entries are positions and supports; default: the queries themselves), as a C++-owned
    list (its ``offsets`` and ``neighbors`` read without a copy)."""
    rx, rh = (positions, supports) if references is None else (references[0], references[1])
    return _core.neighbor_list(positions, supports, rx, rh, domain._native, support, skin)


def density(positions, supports, masses, kinds, neighbors: NeighborList, domain: Domain,
            kernel: Kernel = Kernel.Wendland4, support: SupportScheme = SupportScheme.Gather,
            direction: Direction = Direction.AllToAll, references: Optional[Sequence] = None,
            out: Optional[np.ndarray] = None):
    """rho_i = sum_j m_j W_ij over the list, for the queries (the first four arrays) and their
    ``references`` (a ``Particles``; default: the queries). NumPy arrays; sphad.torch for
    tensors."""
    r = (positions, supports, masses, kinds) if references is None else tuple(references)
    if out is None:
        out = np.empty(len(positions), dtype=np.asarray(positions).dtype)
    _core.density(out, positions, supports, masses, kinds, *r,
                  _core._Call(neighbors, domain._native, kernel, support, direction))
    return out
