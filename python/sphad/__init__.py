# SPDX-License-Identifier: MIT
"""sphad: differentiable SPH operators from Python.

The arrays are NumPy arrays or torch tensors (CPU or CUDA), C-contiguous, float32 or float64
(kinds: int32); none is ever copied or converted. Outputs are the caller's arrays (``out=``) or are
allocated like the positions. ``sphad.torch`` wraps the calls as ``torch.autograd`` Functions;
importing ``sphad`` does not import torch.

Every operator runs the C++ library's own instantiation for its kernel, schemes, dimension,
dtype and field shape: the common ones are built into the module, any other is compiled on its
first use (a few seconds) and cached on disk (docs/python.md, "Dispatch").
"""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from . import _core, _entries  # noqa: F401
from ._calls import (DOCS, OUT, CRKFactors, CRKState, Domain, Entry,  # noqa: F401
                     Operator, Particles, entry_key, make_operator, make_pipelines, search, slots)
from ._core import (Direction, DivergenceMode, GradientScheme, Kernel, LaplacianScheme,
                    NeighborList, SupportScheme)

__all__ = ["CRKFactors", "CRKState", "Direction", "DivergenceMode", "Domain", "GradientScheme",
           "Kernel", "LaplacianScheme", "NeighborList", "Operator", "Particles", "SupportScheme",
           "covariance", "crk_factors", "curl", "density", "divergence", "entry_key",
           "grad_h_omegas", "gradient", "interpolate", "laplacian", "neighbor_list",
           "renormalization_matrices"]


def neighbor_list(positions, supports, domain: Domain,
                  support: SupportScheme = SupportScheme.Gather, skin: float = 0.0,
                  references: Optional[Sequence] = None) -> NeighborList:
    """Every pair (i, j) within the support scheme's radius (plus ``skin``) between the queries
    (``positions``, ``supports``) and ``references`` (a ``Particles`` or a sequence whose first
    two entries are positions and supports; default: the queries themselves), as a C++-owned
    list (its ``offsets`` and ``neighbors`` read without a copy)."""
    rx, rh = (positions, supports) if references is None else (references[0], references[1])
    return search(positions, supports, rx, rh, domain, support, skin)


_NUMPY = " NumPy arrays (``out``: the output array, else one is allocated); sphad.torch for " \
    "tensors."


def _numpy_backend(entry: Entry, function: str, inputs: tuple, call, out):
    n, dtype = len(inputs[0]), np.asarray(inputs[0]).dtype
    if out is None:
        outs = [np.empty((n, *shape), dtype=np.int32 if integer else dtype)
                for shape, integer in zip(entry.outputs, entry.integer_outputs)]
    else:
        outs = [out] if len(entry.outputs) == 1 else list(out)
    arrays = slots(inputs)
    for k, o in enumerate(outs):
        arrays[OUT + 3 * k] = o
    _core.run(entry.address, 1, function, arrays, call)
    return outs[0] if len(outs) == 1 else tuple(outs)


density = make_operator("Density", _numpy_backend, DOCS["Density"] + _NUMPY)
interpolate = make_operator("Interpolate", _numpy_backend, DOCS["Interpolate"] + _NUMPY)
gradient = make_operator("Gradient", _numpy_backend, DOCS["Gradient"] + _NUMPY)
divergence = make_operator("Divergence", _numpy_backend, DOCS["Divergence"] + _NUMPY)
curl = make_operator("Curl", _numpy_backend, DOCS["Curl"] + _NUMPY)
laplacian = make_operator("Laplacian", _numpy_backend, DOCS["Laplacian"] + _NUMPY)
crk_factors, renormalization_matrices, grad_h_omegas, covariance = make_pipelines(
    _numpy_backend)
