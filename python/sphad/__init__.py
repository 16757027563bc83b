# SPDX-License-Identifier: MIT
"""sphad: differentiable SPH operators from Python.

The arrays are NumPy arrays or torch tensors (CPU), C-contiguous, float32 or float64 (kinds:
int32); none is ever copied or converted. Outputs are the caller's arrays (``out=``) or are
allocated like the positions. ``sphad.torch`` wraps the calls as ``torch.autograd`` Functions;
importing ``sphad`` does not import torch.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

from . import _core
from ._core import Direction, Kernel, NeighborList, SupportScheme

__all__ = ["Direction", "Domain", "Kernel", "NeighborList", "SupportScheme", "density",
           "neighbor_list"]


@dataclass(frozen=True)
class Domain:
    """The box: lower and upper corners and, per axis, whether it is periodic."""

    min: Sequence[float]
    max: Sequence[float]
    periodic: Sequence[bool]

    def _core(self) -> "_core._Domain":
        return _core._Domain([float(v) for v in self.min], [float(v) for v in self.max],
                             [bool(p) for p in self.periodic])


def neighbor_list(positions, supports, domain: Domain,
                  support: SupportScheme = SupportScheme.Gather, skin: float = 0.0) -> NeighborList:
    """Every pair (i, j) within the support scheme's radius (plus ``skin``) of one particle
    set, as a C++-owned list (its ``offsets`` and ``neighbors`` read without a copy)."""
    return _core.neighbor_list(positions, supports, domain._core(), support, skin)


def density(positions, supports, masses, kinds, neighbors: NeighborList, domain: Domain,
            kernel: Kernel = Kernel.Wendland4, support: SupportScheme = SupportScheme.Gather,
            direction: Direction = Direction.AllToAll, out: Optional[np.ndarray] = None):
    """rho_i = sum_j m_j W_ij over the list (NumPy arrays; sphad.torch for tensors)."""
    if out is None:
        out = np.empty(len(positions), dtype=np.asarray(positions).dtype)
    _core.density(out, positions, supports, masses, kinds,
                  _core._Call(neighbors, domain._core(), kernel, support, direction))
    return out
