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

from . import _hessian, _ops  # noqa: F401 (_hessian registers Density's second order)
from . import (CRKState, Direction, DivergenceMode, Domain, GradientScheme,  # noqa: F401
               Kernel, LaplacianScheme, NeighborList, Particles, SupportScheme)
from ._calls import DOCS, make_operator, make_pipelines
from ._autograd import torch_backend
from ._torch_calls import _plain

__all__ = ["NeighborTensors", "covariance", "crk_factors", "curl", "density", "divergence",
           "grad_h_omegas", "gradient", "interpolate", "laplacian", "neighbor_tensors",
           "renormalization_matrices"]

_TORCH = " Tensors, differentiable in every floating input of both sets and of the corrections."
density = make_operator("Density", torch_backend, DOCS["Density"] + _TORCH)
interpolate = make_operator("Interpolate", torch_backend, DOCS["Interpolate"] + _TORCH)
gradient = make_operator("Gradient", torch_backend, DOCS["Gradient"] + _TORCH)
divergence = make_operator("Divergence", torch_backend, DOCS["Divergence"] + _TORCH)
curl = make_operator("Curl", torch_backend, DOCS["Curl"] + _TORCH)
laplacian = make_operator("Laplacian", torch_backend, DOCS["Laplacian"] + _TORCH)
crk_factors, renormalization_matrices, grad_h_omegas, covariance = make_pipelines(
    torch_backend)
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
