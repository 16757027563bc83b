# SPDX-License-Identifier: MIT
"""sphad: differentiable SPH operators from Python.

The arrays are NumPy arrays or torch tensors (CPU), C-contiguous, float32 or float64 (kinds:
int32); none is ever copied or converted. Outputs are the caller's arrays (``out=``) or are
allocated like the positions. ``sphad.torch`` wraps the calls as ``torch.autograd`` Functions;
importing ``sphad`` does not import torch.

Every operator runs the C++ library's own instantiation for its kernel, schemes, dimension,
dtype and field shape: the common ones are built into the module, any other is compiled on its
first use (a few seconds) and cached on disk (docs/python.md, "Dispatch").
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, NamedTuple, Optional, Sequence

import numpy as np

from . import _core, _entries
from ._core import (Direction, DivergenceMode, GradientScheme, Kernel, LaplacianScheme,
                    NeighborList, SupportScheme)

__all__ = ["Direction", "DivergenceMode", "Domain", "GradientScheme", "Kernel",
           "LaplacianScheme", "NeighborList", "Particles", "SupportScheme", "curl", "density",
           "divergence", "gradient", "interpolate", "laplacian", "neighbor_list"]


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
    """A particle set's arrays: positions (n, D), supports, masses (n), kinds (n, int32), and,
    for the operators that read them, densities and volumes (n; volumes replace m/rho as V_j)
    and field values (n, ...)."""

    positions: Any
    supports: Any
    masses: Any
    kinds: Any
    densities: Any = None
    volumes: Any = None
    values: Any = None


def neighbor_list(positions, supports, domain: Domain,
                  support: SupportScheme = SupportScheme.Gather, skin: float = 0.0,
                  references: Optional[Sequence] = None) -> NeighborList:
    """Every pair (i, j) within the support scheme's radius (plus ``skin``) between the queries
    (``positions``, ``supports``) and ``references`` (a ``Particles`` or a sequence whose first
    two entries are positions and supports; default: the queries themselves), as a C++-owned
    list (its ``offsets`` and ``neighbors`` read without a copy)."""
    rx, rh = (positions, supports) if references is None else (references[0], references[1])
    return _core.neighbor_list(positions, supports, rx, rh, domain._native, support, skin)


# Slots of a call's arrays (python/src/operator_call.hpp): per set seven inputs, then per set six
# tangents, six gradients, then out, out_tangent, seed.
INPUTS = 7
DERIVED = (0, 1, 2, 4, 5, 6)  # the inputs with tangents and gradients (not kinds)
SLOTS = _core.slot_count
_TANGENTS = 2 * INPUTS
_GRADIENTS = _TANGENTS + 2 * len(DERIVED)
OUT, OUT_TANGENT, SEED = _GRADIENTS + 2 * len(DERIVED), _GRADIENTS + 2 * len(DERIVED) + 1, \
    _GRADIENTS + 2 * len(DERIVED) + 2


@dataclass(frozen=True)
class Operator:
    """An operator with its choices made: what a call needs to find its entry."""

    operation: str
    kernel: Kernel = Kernel.Wendland4
    support: SupportScheme = SupportScheme.Gather
    gradient_scheme: GradientScheme = GradientScheme.Naive
    laplacian_scheme: LaplacianScheme = LaplacianScheme.Brookshaw
    divergence_mode: DivergenceMode = DivergenceMode.Standard
    consistent: bool = False
    positive_divergence: bool = False

    def __post_init__(self):
        for name, kind in (("kernel", Kernel), ("support", SupportScheme),
                           ("gradient_scheme", GradientScheme),
                           ("laplacian_scheme", LaplacianScheme),
                           ("divergence_mode", DivergenceMode)):
            value = getattr(self, name)
            if not isinstance(value, kind):
                raise TypeError(f"sphad: argument `{name}` must be a sphad.{kind.__name__} "
                                f"(got {value!r})")

    @cached_property
    def cpp(self) -> str:
        return _entries.operator_type(self.operation, self.kernel.name, self.support.name,
                                      self.gradient_scheme.name, self.laplacian_scheme.name,
                                      self.divergence_mode.name, self.consistent,
                                      self.positive_divergence)


class Entry(NamedTuple):
    """One compiled entry: its address, the output's trailing shape, what it reads."""

    address: int
    out_shape: tuple
    needs_densities: bool
    needs_values: bool


_entry_cache: dict = {}


def _dtype_name(array) -> str:
    name = str(array.dtype).replace("torch.", "")
    if name not in _entries.SCALARS:
        raise TypeError(f"sphad: argument `positions` must have dtype float32 or float64 (got "
                        f"{name}; no conversion is made)")
    return name


def entry_key(op: Operator, dim: int, dtype: str, field_shape: Optional[tuple],
              volumes: bool) -> str:
    """The key of `op`'s entry in `dim` dimensions, dtype "float32" or "float64", for fields of
    trailing shape `field_shape` (None: no field) and the volume flag."""
    return _entries.key(op.cpp, dim, dtype, _entries.field_type(field_shape, dtype), volumes)


def entry(op: Operator, positions, field_shape: Optional[tuple], volumes: bool) -> Entry:
    """The entry of `op` for positions like `positions` (D and dtype), fields of trailing shape
    `field_shape` (None: the operator reads no field) and the volume flag (compiled and loaded
    on first use)."""
    from . import _jit
    if len(positions.shape) != 2 or positions.shape[1] not in (1, 2, 3):
        raise ValueError(f"sphad: argument `positions`: has shape {tuple(positions.shape)}, "
                         "expected (n, D), D = 1, 2, 3")
    address = _jit.entry(entry_key(op, positions.shape[1], _dtype_name(positions),
                                   None if field_shape is None else tuple(field_shape), volumes))
    shape, needs_densities, needs_values = _core.describe(address)
    return Entry(address, tuple(shape), needs_densities, needs_values)


def sets(positions, supports, masses, kinds, densities, volumes, values, references):
    """The queries' and the references' seven inputs (the references default to the queries)."""
    q = (positions, supports, masses, kinds, densities, volumes, values)
    if references is None:
        return q, q
    r = Particles(*references)
    return q, tuple(r)


def prepare(choices: tuple, q: tuple, r: tuple, function: str) -> Entry:
    """The entry of a call of the operator `choices` (`Operator`'s fields, in order) on these
    sets, after the checks the entry cannot make: a field on both sides of one trailing shape,
    volumes on both sides or neither. Found by a dictionary lookup after the first call."""
    volumes = q[5] is not None
    if volumes != (r[5] is not None):
        raise ValueError(f"sphad::{function}: volumes are given for "
                         f"{'the queries' if r[5] is None else 'the references'} only; give "
                         "both sets' volumes or neither")
    if choices[0] == "Density":
        field_shape = None
    else:
        if q[6] is None or r[6] is None:
            raise ValueError(f"sphad::{function}: argument `"
                             f"{'values' if q[6] is None else 'references.values'}`: is required "
                             "by this operator")
        field_shape = q[6].shape[1:]
        if r[6].shape[1:] != field_shape:
            raise ValueError(f"sphad::{function}: argument `references.values`: has trailing "
                             f"shape {tuple(r[6].shape[1:])}, the queries' values "
                             f"{tuple(field_shape)}")
    x = q[0]
    cache_key = (choices, x.shape[1:], x.dtype, field_shape, volumes)
    found = _entry_cache.get(cache_key)
    if found is None:
        found = entry(Operator(*choices), x, field_shape, volumes)
        _entry_cache[cache_key] = found
    return found


def slots(q: tuple, r: tuple) -> list:
    """The arrays of a call in their slots, inputs filled, the rest None."""
    return [*q, *r] + [None] * (SLOTS - 2 * INPUTS)


def call_options(neighbors: NeighborList, domain: Domain, direction: Direction,
                 calibration_n_h: float) -> "_core._Call":
    return _core._Call(neighbors, domain._native, direction, float(calibration_n_h))


def _apply_numpy(choices: tuple, function: str, q: tuple, r: tuple, neighbors, domain, direction,
                 calibration_n_h, out):
    e = prepare(choices, q, r, function)
    if out is None:
        out = np.empty((len(q[0]), *e.out_shape), dtype=np.asarray(q[0]).dtype)
    arrays = slots(q, r)
    arrays[OUT] = out
    _core.run(e.address, 1, function, arrays,
              call_options(neighbors, domain, direction, calibration_n_h))
    return out


def density(positions, supports, masses, kinds, neighbors: NeighborList, domain: Domain,
            kernel: Kernel = Kernel.Wendland4, support: SupportScheme = SupportScheme.Gather,
            direction: Direction = Direction.AllToAll, references: Optional[Sequence] = None,
            volumes=None, calibration_n_h: float = 0.0, out: Optional[np.ndarray] = None):
    """rho_i = sum_j m_j W_ij over the list, for the queries (the first four arrays) and their
    ``references`` (a ``Particles``; default: the queries). NumPy arrays; sphad.torch for
    tensors."""
    q, r = sets(positions, supports, masses, kinds, None, volumes, None, references)
    return _apply_numpy(("Density", kernel, support, *_DEFAULTS), "density", q, r, neighbors, domain,
                        direction, calibration_n_h, out)


_DEFAULTS = (GradientScheme.Naive, LaplacianScheme.Brookshaw, DivergenceMode.Standard, False,
             False)


def choices_of(operation: str, kernel, support, scheme, extra: dict) -> tuple:
    """`Operator`'s fields, in order, from a call's arguments (`extra`: the keywords
    laplacian_scheme, divergence_mode, consistent, positive_divergence)."""
    if not extra:
        return (operation, kernel, support, scheme, *_DEFAULTS[1:])
    unknown = set(extra) - {"laplacian_scheme", "divergence_mode", "consistent",
                            "positive_divergence"}
    if unknown:
        raise TypeError(f"sphad::{operation.lower()}: unexpected keyword argument(s) "
                        f"{', '.join(sorted(unknown))}")
    return (operation, kernel, support, scheme,
            extra.get("laplacian_scheme", LaplacianScheme.Brookshaw),
            extra.get("divergence_mode", DivergenceMode.Standard),
            bool(extra.get("consistent", False)), bool(extra.get("positive_divergence", False)))


def _field_operator(operation: str, doc: str):
    def apply(positions, supports, masses, kinds, densities, values, neighbors: NeighborList,
              domain: Domain, kernel: Kernel = Kernel.Wendland4,
              support: SupportScheme = SupportScheme.Gather,
              scheme: GradientScheme = GradientScheme.Naive,
              direction: Direction = Direction.AllToAll,
              references: Optional[Sequence] = None, volumes=None,
              calibration_n_h: float = 0.0, out: Optional[np.ndarray] = None, **choices):
        q, r = sets(positions, supports, masses, kinds, densities, volumes, values, references)
        return _apply_numpy(choices_of(operation, kernel, support, scheme, choices),
                            operation.lower(), q, r, neighbors, domain, direction,
                            calibration_n_h, out)
    apply.__name__ = operation.lower()
    apply.__doc__ = doc
    return apply


_FIELD_DOC = (" over the list, for the queries (positions, supports, masses, kinds, densities, "
              "values) and their ``references`` (a ``Particles`` with densities and values; "
              "default: the queries). ``scheme``: the gradient scheme; ``volumes`` replace m/rho "
              "(give the references' in their Particles). NumPy arrays; sphad.torch for tensors.")
interpolate = _field_operator("Interpolate", "f_i = sum_j f_j V_j W_ij" + _FIELD_DOC)
gradient = _field_operator("Gradient", "grad f_i = sum_j c_ij (x) grad W_ij" + _FIELD_DOC)
divergence = _field_operator(
    "Divergence", "div f_i = sum_j contract(c_ij, grad W_ij)" + _FIELD_DOC +
    " Keywords ``divergence_mode`` (DivergenceMode) and ``consistent`` (bool).")
curl = _field_operator("Curl", "curl f_i = sum_j grad W_ij x c_ij" + _FIELD_DOC)
laplacian = _field_operator(
    "Laplacian", "lap f_i" + _FIELD_DOC + " Keywords ``laplacian_scheme`` (LaplacianScheme) and "
    "``positive_divergence`` (bool); ``scheme`` Symmetric selects the symmetric difference.")
