# SPDX-License-Identifier: MIT
"""How a call reaches its entry: the slots of its arrays, the operator's choices (`Operator`),
the entry for them (built in or compiled on first use), the argument handling shared by the
NumPy functions (sphad) and the torch ones (sphad.torch): `make_operator`, `make_pipelines`.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, NamedTuple, Optional, Sequence

from . import _core, _entries
from ._core import (Direction, DivergenceMode, GradientScheme, Kernel, LaplacianScheme,
                    NeighborList, SupportScheme)


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


# Slots of a call's arrays (python/src/operator_call.hpp): each set's seven inputs (queries, then
# references), the corrections' seven; a tangent and a gradient slot per differentiable input
# (`DERIVED_INPUTS`, in order); out, out_tangent, seed.
_S = _core.slots
INPUTS = _S["inputs"]            # per set
ALL_INPUTS = _S["tangents"]      # both sets' and the corrections'
TANGENTS, GRADIENTS = _S["tangents"], _S["gradients"]
OUT, OUT_TANGENT, SEED, SLOTS = _S["out"], _S["out_tangent"], _S["seed"], _S["count"]
# The input index of each differentiable input (each set's but kinds, then the corrections').
DERIVED_INPUTS = tuple(r * INPUTS + k for r in (0, 1) for k in (0, 1, 2, 4, 5, 6)) + \
    tuple(range(_S["corrections"], ALL_INPUTS))
CRK, RENORMALIZATION, GRAD_H = _entries.CRK, _entries.RENORMALIZATION, _entries.GRAD_H


class CRKState(NamedTuple):
    """CRK factors of the queries: A (n), B (n, D), grad A (n, D), grad B (n, D, D), derivative
    axis first (sphad's corrections layer computes them)."""

    a: Any
    b: Any
    grad_a: Any
    grad_b: Any


def corrections(crk=None, renormalization=None, omegas=None) -> tuple:
    """The correction arrays in their slots and the entry's correction bits: `crk` a
    `CRKState` (or four arrays), `renormalization` the matrices L (n, D, D), `omegas` the grad-h
    Omega of both sets (one array when the references are the queries, else a pair)."""
    bits = 0
    arrays = [None] * (ALL_INPUTS - _S["corrections"])
    if crk is not None:
        arrays[0:4] = list(CRKState(*crk))
        bits |= CRK
    if renormalization is not None:
        arrays[4] = renormalization
        bits |= RENORMALIZATION
    if omegas is not None:
        arrays[5:7] = list(omegas) if isinstance(omegas, (tuple, list)) else [omegas, omegas]
        bits |= GRAD_H
    return tuple(arrays), bits


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


@dataclass(frozen=True)
class Entry:
    """One compiled entry: its address, its outputs' trailing shapes, what it reads. A leaf to
    torch's pytree (a NamedTuple would be a node it walks, with its nested tuples, at every
    torch.func call: ~0.7 ms of a jvp)."""

    address: int
    outputs: tuple
    needs_densities: bool
    needs_values: bool
    integer_outputs: tuple = ()  # per output: int32 elements (else the positions' dtype)
    choices: Optional[tuple] = None  # an operator's `Operator` fields (None: a pipeline)
    key: str = ""  # its key (sphad/_entries.py)


_entry_cache: dict = {}


def _dtype_name(array) -> str:
    name = str(array.dtype).replace("torch.", "")
    if name not in _entries.SCALARS:
        raise TypeError(f"sphad: argument `positions` must have dtype float32 or float64 (got "
                        f"{name}; no conversion is made)")
    return name


def entry_key(op: Operator, dim: int, dtype: str, field_shape: Optional[tuple],
              volumes: bool, correction_bits: int = 0, cuda: bool = False) -> str:
    """The key of `op`'s entry in `dim` dimensions, dtype "float32" or "float64", for fields of
    trailing shape `field_shape` (None: no field), the volume flag and the corrections, for
    arrays in host memory or (`cuda`) on a CUDA device."""
    return _entries.key(op.cpp, dim, dtype, _entries.field_type(field_shape, dtype), volumes,
                        correction_bits, cuda)


def is_cuda(array) -> bool:
    """Whether `array` is in CUDA memory (a torch tensor on a GPU; NumPy never is)."""
    return getattr(array, "is_cuda", False) is True


def _check_positions(positions) -> None:
    if len(positions.shape) != 2 or positions.shape[1] not in (1, 2, 3):
        raise ValueError(f"sphad: argument `positions`: has shape {tuple(positions.shape)}, "
                         "expected (n, D), D = 1, 2, 3")


def entry(op: Operator, positions, field_shape: Optional[tuple], volumes: bool,
          correction_bits: int = 0, function: str = "entry") -> Entry:
    """The entry of `op` for positions like `positions` (D, dtype, host or CUDA memory), fields
    of trailing shape `field_shape` (None: the operator reads no field) and the volume flag
    (compiled and loaded on first use)."""
    _check_positions(positions)
    return _describe(entry_key(op, positions.shape[1], _dtype_name(positions),
                               None if field_shape is None else tuple(field_shape), volumes,
                               correction_bits, is_cuda(positions)), function)


def search(positions, supports, reference_positions, reference_supports, domain: Domain,
           support: SupportScheme, skin: float) -> NeighborList:
    """The C++ search: the module's on the host, the search entry's on a CUDA device."""
    if not is_cuda(positions):
        return _core.neighbor_list(positions, supports, reference_positions, reference_supports,
                                   domain._native, support, skin)
    arrays = slots((positions, supports) + (None,) * (INPUTS - 2) +
                   (reference_positions, reference_supports) + (None,) * (INPUTS - 2) +
                   _NO_CORRECTIONS)
    return _core.neighbor_list_on_device(search_entry(positions), arrays, domain._native,
                                         support, float(skin))


def search_entry(positions) -> int:
    """The address of the search entry of CUDA positions like these (0 on the host)."""
    if not is_cuda(positions):
        return 0
    from . import _jit
    _check_positions(positions)
    return _jit.entry(_entries.search_key(positions.shape[1], _dtype_name(positions)))


def _describe(key: str, function: str = "entry") -> Entry:
    from . import _jit
    address = _jit.entry(key)
    outputs, needs_densities, needs_values, integer = _core.describe(address, function)
    return Entry(address, outputs, needs_densities, needs_values, integer, key=key)


def sets(positions, supports, masses, kinds, densities, volumes, values, references):
    """The queries' and the references' seven inputs (the references default to the queries)."""
    q = (positions, supports, masses, kinds, densities, volumes, values)
    if references is None:
        return q, q
    r = Particles(*references)
    return q, tuple(r)


def prepare(choices: tuple, q: tuple, r: tuple, correction_bits: int, function: str) -> Entry:
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
    cache_key = (choices, x.shape[1:], x.dtype, is_cuda(x), field_shape, volumes,
                 correction_bits)
    found = _entry_cache.get(cache_key)
    if found is None:
        found = entry(Operator(*choices), x, field_shape, volumes, correction_bits, function)
        found = replace(found, choices=choices)
        _entry_cache[cache_key] = found
    return found


def slots(inputs) -> list:
    """The arrays of a call in their slots, the `ALL_INPUTS` inputs filled, the rest None."""
    return [*inputs] + [None] * (SLOTS - ALL_INPUTS)


def call_options(neighbors, domain: Domain, direction: Direction, calibration_n_h: float,
                 tau: float = -1.0):
    """A call's options: a `_core._Call` over a C++ `NeighborList`, or the custom ops' plain
    values over a list of tensors (`sphad.torch.neighbor_tensors`)."""
    tensor_call = getattr(neighbors, "tensor_call", None)
    if tensor_call is not None:
        return tensor_call(domain, direction, calibration_n_h, tau)
    return _core._Call(neighbors, domain._native, direction, float(calibration_n_h), tau)


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


def make_operator(operation: str, backend, doc: str):
    """The public function of `operation` over `backend(entry, function, inputs, call, out)`
    (NumPy here, torch in sphad.torch): the arguments' handling, shared."""
    function = operation.lower()
    if operation == "Density":
        def apply(positions, supports, masses, kinds, neighbors: NeighborList, domain: Domain,
                  kernel: Kernel = Kernel.Wendland4, support: SupportScheme = SupportScheme.Gather,
                  direction: Direction = Direction.AllToAll,
                  references: Optional[Sequence] = None, volumes=None,
                  calibration_n_h: float = 0.0, out=None):
            q, r = sets(positions, supports, masses, kinds, None, volumes, None, references)
            choices = ("Density", kernel, support, *_DEFAULTS)
            entry = prepare(choices, q, r, 0, function)
            return backend(entry, function, (*q[:4], None, q[5], None, *r[:4], None, r[5], None,
                                             *_NO_CORRECTIONS),
                           call_options(neighbors, domain, direction, calibration_n_h), out)
    else:
        def apply(positions, supports, masses, kinds, densities, values, neighbors: NeighborList,
                  domain: Domain, kernel: Kernel = Kernel.Wendland4,
                  support: SupportScheme = SupportScheme.Gather,
                  scheme: GradientScheme = GradientScheme.Naive,
                  direction: Direction = Direction.AllToAll,
                  references: Optional[Sequence] = None, volumes=None, crk=None,
                  renormalization=None, omegas=None, calibration_n_h: float = 0.0, out=None,
                  **choices):
            q, r = sets(positions, supports, masses, kinds, densities, volumes, values,
                        references)
            c, bits = corrections(crk, renormalization, omegas)
            entry = prepare(choices_of(operation, kernel, support, scheme, choices), q, r, bits,
                            function)
            if not entry.needs_densities:  # not read: left out of the call (and the graph)
                q, r = (*q[:4], None, *q[5:]), (*r[:4], None, *r[5:])
            return backend(entry, function, (*q, *r, *c),
                           call_options(neighbors, domain, direction, calibration_n_h), out)
    apply.__name__ = apply.__qualname__ = function
    apply.__doc__ = doc
    return apply


_NO_CORRECTIONS = (None,) * (ALL_INPUTS - 2 * INPUTS)
_FIELD_DOC = (" over the list, for the queries (positions, supports, masses, kinds, densities, "
              "values) and their ``references`` (a ``Particles`` with densities and values; "
              "default: the queries). ``scheme``: the gradient scheme; ``volumes`` replace m/rho "
              "(give the references' in their Particles); ``crk`` (a CRKState), "
              "``renormalization`` (matrices L, (n, D, D)) and ``omegas`` (grad-h Omega: one "
              "array, or the queries' and the references') correct the operator as in C++.")
DOCS = {
    "Density": "rho_i = sum_j m_j W_ij over the list, for the queries (the first four arrays) "
               "and their ``references`` (a ``Particles``; default: the queries).",
    "Interpolate": "f_i = sum_j f_j V_j W_ij" + _FIELD_DOC,
    "Gradient": "grad f_i = sum_j c_ij (x) grad W_ij" + _FIELD_DOC,
    "Divergence": "div f_i = sum_j contract(c_ij, grad W_ij)" + _FIELD_DOC +
                  " Keywords ``divergence_mode`` (DivergenceMode) and ``consistent`` (bool).",
    "Curl": "curl f_i = sum_j grad W_ij x c_ij" + _FIELD_DOC,
    "Laplacian": "lap f_i" + _FIELD_DOC + " Keywords ``laplacian_scheme`` (LaplacianScheme) and "
                 "``positive_divergence`` (bool); ``scheme`` Symmetric selects the symmetric "
                 "difference.",
}


class CRKFactors(NamedTuple):
    """What `crk_factors` returns: the apparent volumes, the diagnostic CRK density and the
    state the operators take (``crk=``)."""

    volumes: Any
    density: Any
    state: CRKState


_pipeline_cache: dict = {}


def pipeline_entry(pipeline: str, kernel, support, positions, volumes: bool,
                   correction_bits: int) -> Entry:
    """The entry of a correction pipeline ("CRK", "Renormalization", "Omegas")."""
    cuda = is_cuda(positions)
    cache_key = (pipeline, kernel, support, positions.shape[1:], positions.dtype, cuda, volumes,
                 correction_bits)
    found = _pipeline_cache.get(cache_key)
    if found is None:
        for name, value, kind in (("kernel", kernel, Kernel), ("support", support, SupportScheme)):
            if not isinstance(value, kind):
                raise TypeError(f"sphad: argument `{name}` must be a sphad.{kind.__name__} (got "
                                f"{value!r})")
        if len(positions.shape) != 2 or positions.shape[1] not in (1, 2, 3):
            raise ValueError(f"sphad: argument `positions`: has shape {tuple(positions.shape)}, "
                             "expected (n, D), D = 1, 2, 3")
        dtype = _dtype_name(positions)
        found = _describe(_entries.key(_entries.pipeline_type(pipeline, kernel.name, support.name),
                                       positions.shape[1], dtype, _entries.PIPELINE_FIELD,
                                       volumes, correction_bits, cuda))
        _pipeline_cache[cache_key] = found
    return found


def make_pipelines(backend):
    """The correction pipelines over `backend` (NumPy here, torch in sphad.torch)."""

    def crk_factors(positions, supports, masses, kinds, neighbors: NeighborList, domain: Domain,
                    kernel: Kernel = Kernel.Wendland4, direction: Direction = Direction.AllToAll,
                    tau: Optional[float] = None) -> CRKFactors:
        """The CRK factors of one particle set over a list of it against itself covering Gather
        and Scatter pairs (a SuperSymmetric list, or any list when supports are uniform):
        apparent volumes, the CRK density and the state (A, B, grad A, grad B); ``tau``: the
        limiter's threshold (default 1e-12 in float64, 1e-5 in float32)."""
        q = (positions, supports, masses, kinds, None, None, None)
        e = pipeline_entry("CRK", kernel, SupportScheme.Gather, positions, False, 0)
        v, rho, *state = backend(e, "crk_factors", (*q, *(None,) * INPUTS, *_NO_CORRECTIONS),
                                 call_options(neighbors, domain, direction, 0.0,
                                              -1.0 if tau is None else float(tau)), None)
        return CRKFactors(v, rho, CRKState(*state))

    def renormalization_matrices(positions, supports, masses, kinds, densities,
                                 neighbors: NeighborList, domain: Domain,
                                 kernel: Kernel = Kernel.Wendland4,
                                 support: SupportScheme = SupportScheme.Gather,
                                 direction: Direction = Direction.AllToAll,
                                 references: Optional[Sequence] = None, volumes=None, crk=None,
                                 renormalization=None, omegas=None):
        """The renormalization matrices L_i (n, D, D): the pseudo-inverse of the transposed
        kernel-gradient covariance, with the call's volumes and corrections (a CRK state, or
        earlier matrices), I where it is degenerate."""
        q, r = sets(positions, supports, masses, kinds, densities, volumes, None, references)
        c, bits = corrections(crk, renormalization, omegas)
        e = pipeline_entry("Renormalization", kernel, support, positions, volumes is not None,
                           bits)
        return backend(e, "renormalization_matrices", (*q, *r, *c),
                       call_options(neighbors, domain, direction, 0.0), None)

    def grad_h_omegas(positions, supports, masses, kinds, densities, neighbors: NeighborList,
                      domain: Domain, kernel: Kernel = Kernel.Wendland4,
                      direction: Direction = Direction.AllToAll,
                      references: Optional[Sequence] = None):
        """The grad-h factors Omega_i = 1 + h_i/(D rho_i) sum_j m_j dW_ij/dh_i (Gather, over a
        list of the queries against their references)."""
        q, r = sets(positions, supports, masses, kinds, densities, None, None, references)
        e = pipeline_entry("Omegas", kernel, SupportScheme.Gather, positions, False, 0)
        return backend(e, "grad_h_omegas", (*q, *r, *_NO_CORRECTIONS),
                       call_options(neighbors, domain, direction, 0.0), None)

    def covariance(positions, supports, masses, kinds, densities, neighbors: NeighborList,
                   domain: Domain, kernel: Kernel = Kernel.Wendland4,
                   support: SupportScheme = SupportScheme.Gather,
                   direction: Direction = Direction.AllToAll,
                   references: Optional[Sequence] = None, volumes=None, crk=None,
                   renormalization=None, omegas=None):
        """C_i = sum_j V_j (x_j - x_i) (x) G_ij (n, D, D), G the corrected kernel gradient, and
        the count of pairs with W_ij > 0 (n, int32; not differentiable)."""
        q, r = sets(positions, supports, masses, kinds, densities, volumes, None, references)
        c, bits = corrections(crk, renormalization, omegas)
        e = pipeline_entry("Covariance", kernel, support, positions, volumes is not None, bits)
        return backend(e, "covariance", (*q, *r, *c),
                       call_options(neighbors, domain, direction, 0.0), None)

    return crk_factors, renormalization_matrices, grad_h_omegas, covariance
