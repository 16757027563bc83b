# SPDX-License-Identifier: MIT
"""Operator entries: the C++ source of the entry of one operator type, dimension, scalar, field
shape and volume flag (python/src/entry.hpp), its key and its symbol; and the entries the module
is built with. Plain Python (no import of the module): CMake runs it at build time
(python/tools/generate_entries.py), sphad._jit at run time for any other entry.
"""
from __future__ import annotations

import hashlib
from typing import Iterable, Optional, Sequence, Tuple

KERNELS = ("Wendland2", "Wendland4", "Wendland6", "Poly6", "Spiky", "CubicSpline",
           "QuarticSpline", "QuinticSpline", "B8", "B7", "HOCT4", "Gaussian", "ViscosityKernel",
           "CohesionKernel", "AdhesionKernel")
SUPPORTS = ("Gather", "Scatter", "MeanSymmetric", "KernelMeanSymmetric", "SuperSymmetric",
            "PartialSymmetric")
GRADIENT_SCHEMES = ("Naive", "Symmetric", "Difference", "Summation")
LAPLACIAN_SCHEMES = ("Naive", "Brookshaw", "Dot", "Default")
DIVERGENCE_MODES = ("Standard", "Dot")
OPERATIONS = ("Density", "Interpolate", "Gradient", "Divergence", "Curl", "Laplacian")
SCALARS = {"float32": "float", "float64": "double"}


def _check(name: str, value: str, allowed: Sequence[str]) -> str:
    if value not in allowed:
        raise ValueError(f"sphad: unknown {name} {value!r} (one of {', '.join(allowed)})")
    return value


def operator_type(operation: str, kernel: str, support: str, gradient_scheme: str = "Naive",
                  laplacian_scheme: str = "Brookshaw", divergence_mode: str = "Standard",
                  consistent: bool = False, positive_divergence: bool = False) -> str:
    """The C++ operator type these choices name (sphad/ops/operators.hpp, laplacian.hpp)."""
    _check("operation", operation, OPERATIONS)
    k = "sphad::kernels::" + _check("kernel", kernel, KERNELS)
    s = "sphad::SupportScheme::" + _check("support scheme", support, SUPPORTS)
    g = "sphad::GradientScheme::" + _check("gradient scheme", gradient_scheme, GRADIENT_SCHEMES)
    b = lambda v: "true" if v else "false"  # noqa: E731
    if operation in ("Density", "Interpolate"):
        return f"sphad::ops::{operation}<{k}, {s}>"
    if operation in ("Gradient", "Curl"):
        return f"sphad::ops::{operation}<{k}, {g}, {s}>"
    if operation == "Divergence":
        m = "sphad::DivergenceMode::" + _check("divergence mode", divergence_mode,
                                               DIVERGENCE_MODES)
        return f"sphad::ops::Divergence<{k}, {g}, {s}, {m}, {b(consistent)}>"
    lap = "sphad::LaplacianScheme::" + _check("Laplacian scheme", laplacian_scheme,
                                              LAPLACIAN_SCHEMES)
    return f"sphad::ops::Laplacian<{k}, {lap}, {g}, {s}, {b(positive_divergence)}>"


PIPELINES = ("CRK", "Renormalization", "Omegas", "Covariance")


def pipeline_type(pipeline: str, kernel: str, support: str = "Gather") -> str:
    """The C++ type of a correction pipeline's entry (python/src/pipelines.hpp)."""
    _check("pipeline", pipeline, PIPELINES)
    k = "sphad::kernels::" + _check("kernel", kernel, KERNELS)
    if pipeline in ("Renormalization", "Covariance"):
        s = "sphad::SupportScheme::" + _check("support scheme", support, SUPPORTS)
        return f"sphad::python::{pipeline}Pipeline<{k}, {s}>"
    return f"sphad::python::{pipeline}Pipeline<{k}>"


PIPELINE_FIELD = "pipeline"  # the field of a pipeline's key (pipelines read no field)
SEARCH_FIELD = "search"  # the field of a search entry's key (python/src/search_entry.hpp)


def field_type(shape: Optional[Tuple[int, ...]], scalar: str) -> str:
    """The C++ element type of a field of trailing shape `shape` (None: no field)."""
    t = SCALARS[scalar]
    if shape is None:
        return "sphad::ops::NoField"
    if any(int(e) < 1 for e in shape):
        raise ValueError(f"sphad: argument `values`: has trailing shape {tuple(shape)}; every "
                         "field axis needs at least one entry")
    if len(shape) == 0:
        return t
    if len(shape) == 1:
        return f"sphad::Vec<{t}, {int(shape[0])}>"
    if len(shape) == 2:
        return f"sphad::Mat<{t}, {int(shape[0])}, {int(shape[1])}>"
    raise ValueError(f"sphad: a field is a scalar, a vector or a matrix per particle (got "
                     f"{len(shape)} trailing axes)")


CRK, RENORMALIZATION, GRAD_H = 1, 2, 4  # the corrections' bits (python/src/operator_call.hpp)


CUDA = "cuda"  # the last field of the key of an entry compiled for CUDA arrays


def key(op: str, dim: int, scalar: str, field: str, volumes: bool, corrections: int = 0,
        cuda: bool = False) -> str:
    """An entry's identity: its C++ types and flags, joined (and `;cuda` for CUDA arrays)."""
    return (f"{op};{dim};{SCALARS[scalar]};{field};{'true' if volumes else 'false'};"
            f"{int(corrections)}" + (f";{CUDA}" if cuda else ""))


def search_key(dim: int, scalar: str) -> str:
    """The key of the search entry of CUDA arrays in `dim` dimensions (the host's search is in
    the module)."""
    return key("sphad::python::Search", dim, scalar, SEARCH_FIELD, False, 0, cuda=True)


def is_cuda(entry_key: str) -> bool:
    return entry_key.endswith(";" + CUDA)


def symbol(entry_key: str) -> str:
    return "sphad_entry_" + hashlib.sha1(entry_key.encode()).hexdigest()[:20]


def definition(entry_key: str, name: Optional[str] = None) -> str:
    """The C++ definition of the entry `entry_key` as `extern "C"` function `name`."""
    op, dim, scalar, field, volumes, corrections = entry_key.split(";")[:6]
    sym = symbol(entry_key)
    if field == SEARCH_FIELD:
        return f"SPHAD_PYTHON_SEARCH({name or sym}, {dim}, {scalar})\n"
    if field == PIPELINE_FIELD:
        return (f"namespace {{\nusing Op_{sym} = {op};\n}}\n"
                f"SPHAD_PYTHON_PIPELINE({name or sym}, Op_{sym}, {dim}, {scalar}, {volumes}, "
                f"{corrections})\n")
    return (f"namespace {{\nusing Op_{sym} = {op};\nusing Field_{sym} = {field};\n}}\n"
            f"SPHAD_PYTHON_ENTRY({name or sym}, Op_{sym}, {dim}, {scalar}, Field_{sym}, "
            f"{volumes}, {corrections})\n")


def source(keys: Iterable[str], registry: Optional[str] = None, single: bool = False) -> str:
    """A translation unit defining the entries `keys` (each under its symbol; `single`: the one
    entry as `sphad_python_entry`, for a shared object of its own), and, when `registry` is
    given, a function of that name adding (key, entry) pairs to a list."""
    keys = list(keys)
    fields = {k.split(";")[3] for k in keys}
    spaces = {is_cuda(k) for k in keys}
    if len(spaces) > 1:
        raise ValueError("sphad: one translation unit holds the entries of one execution space")
    out = ["// Generated by sphad/_entries.py.\n",
           "#define SPHAD_PYTHON_CUDA 1\n" if True in spaces else "",
           "#include \"entry.hpp\"\n",
           "#include \"pipelines.hpp\"\n" if PIPELINE_FIELD in fields else "",
           "#include \"search_entry.hpp\"\n" if SEARCH_FIELD in fields else "",
           "\n#include <string>\n#include <utility>\n#include <vector>\n\n"]
    for k in keys:
        out.append(definition(k, "sphad_python_entry" if single else None))
    if registry:
        out.append("\nnamespace sphad::python {\n"
                   f"void {registry}(std::vector<std::pair<std::string, EntryFunction>>& out) {{\n")
        for k in keys:
            out.append(f"  out.emplace_back(\"{k}\", &{symbol(k)});\n")
        out.append("}\n} // namespace sphad::python\n")
    return "".join(out)


def builtin_groups() -> list:
    """The entries compiled into the module, in groups (one translation unit each): Density
    over four kernels and every support scheme, per dimension and scalar. Every other entry is
    compiled on first use (sphad._jit)."""
    groups = []
    for dim in (1, 2, 3):
        for scalar in SCALARS:
            groups.append([key(operator_type("Density", k, s), dim, scalar,
                               field_type(None, scalar), False)
                           for k in ("Wendland2", "Wendland4", "Wendland6", "CubicSpline")
                           for s in SUPPORTS])
    return groups
