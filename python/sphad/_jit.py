# SPDX-License-Identifier: MIT
"""Operator entries by key: the module's built-in ones, else a shared object compiled on first
use from the entry's generated source (sphad._entries) with the compiler and flags the module
was built with (_build.json) and the headers installed beside it, cached on disk under
$SPHAD_CACHE_DIR (default ~/.cache/sphad) by a hash of compiler, flags and headers, so a later
process loads it without compiling. The entries of CUDA arrays (keys ending `;cuda`) are
compiled by nvcc (found when the module was built, or $SPHAD_NVCC) for one GPU architecture:
$SPHAD_CUDA_ARCH, else the compute capability of the GPU torch sees, else the build's default.
"""
from __future__ import annotations

import ctypes
import hashlib
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import threading

from . import _core, _entries

_here = pathlib.Path(__file__).resolve().parent
_lock = threading.Lock()
_addresses = dict(_core.builtin_entries())  # key -> entry address
_libraries = []  # loaded shared objects, kept alive
_cache_dir = None


def _build_config() -> dict:
    return json.loads((_here / "_build.json").read_text())


def cache_dir() -> pathlib.Path:
    """Where compiled entries of this build live: a directory per hash of the compiler, its
    flags and every installed header (a changed header gets a fresh directory)."""
    global _cache_dir
    if _cache_dir is None:
        config = _build_config()
        h = hashlib.sha1(json.dumps(config, sort_keys=True).encode())
        for path in sorted((_here / "include").rglob("*.hpp")):
            h.update(str(path.relative_to(_here)).encode())
            h.update(path.read_bytes())
        root = os.environ.get("SPHAD_CACHE_DIR") or os.path.join(
            os.path.expanduser("~"), ".cache", "sphad")
        _cache_dir = pathlib.Path(root) / "entries" / h.hexdigest()[:16]
    return _cache_dir


def nvcc() -> str:
    """The CUDA compiler of the CUDA entries ($SPHAD_NVCC, else the one the build found)."""
    found = os.environ.get("SPHAD_NVCC") or _build_config().get("cuda_compiler")
    if not found:
        raise NotImplementedError(
            "sphad: CUDA arrays need the package built where nvcc is found (or $SPHAD_NVCC "
            "naming it): their entries are compiled by nvcc on first use")
    return found


def cuda_architecture() -> str:
    """The architecture the CUDA entries are compiled for ("90": sm_90)."""
    arch = os.environ.get("SPHAD_CUDA_ARCH")
    if arch:
        return arch
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        major, minor = torch.cuda.get_device_capability()
        return f"{major}{minor}"
    return str(_build_config().get("cuda_architecture") or "90")


def _command(key: str, src: pathlib.Path, out: pathlib.Path, warnings_as_errors: bool) -> list:
    config = _build_config()
    includes = ["-I", str(_here / "include"), "-I", str(_here / "include" / "python")]
    if not _entries.is_cuda(key):
        return [config["compiler"], "-std=c++17", *config["flags"], "-fPIC", "-shared",
                *includes, str(src), "-o", str(out)]
    # the module's flags: optimization and definitions to nvcc, the rest (OpenMP) to the host
    # compiler
    own = [f for f in config["flags"] if f.startswith(("-O", "-D"))]
    host = ["-fPIC", *(f for f in config["flags"] if not f.startswith(("-O", "-D")))]
    if warnings_as_errors:
        host += ["-Wall", "-Wextra", "-Werror"]
    arch = cuda_architecture()
    return [nvcc(), "-std=c++17", *own, f"-arch=sm_{arch}", "--extended-lambda",
            *(["-Werror=all-warnings"] if warnings_as_errors else []),
            "-Xcompiler=" + ",".join(host), "-ccbin", config["compiler"], "-shared", *includes,
            "-x", "cu", str(src), "-o", str(out)]


def _file_name(key: str) -> str:
    return _entries.symbol(key) + (f"_sm{cuda_architecture()}" if _entries.is_cuda(key) else "") \
        + ".so"


def compile_entry(key: str, warnings_as_errors: bool = False) -> pathlib.Path:
    """The shared object of entry `key`, compiled into the cache unless it is there already
    (several processes may compile the same entry: each writes its own file, the last rename
    wins, every copy is the same). `warnings_as_errors`: a compiler warning fails it (the
    tests' check of the generated sources)."""
    directory = cache_dir()
    target = directory / _file_name(key)
    if target.exists():
        return target
    directory.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=directory) as scratch:
        src = pathlib.Path(scratch) / "entry.cpp"
        src.write_text(_entries.source([key], single=True))
        tmp = pathlib.Path(scratch) / "entry.so"
        command = _command(key, src, tmp, warnings_as_errors)
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"sphad: compiling the operator entry {key!r} failed:\n"
                               f"{' '.join(command)}\n{done.stderr[-4000:]}")
        os.replace(tmp, target)
    return target


def entry(key: str) -> int:
    """The address of entry `key` (compiled and loaded on first use)."""
    address = _addresses.get(key)
    if address is not None:
        return address
    with _lock:
        address = _addresses.get(key)
        if address is None:
            library = ctypes.CDLL(str(compile_entry(key)))
            _libraries.append(library)
            address = ctypes.cast(library.sphad_python_entry, ctypes.c_void_p).value
            _addresses[key] = address
    return address


def is_compiled(key: str) -> bool:
    """Whether entry `key` is built in or already in the cache (a call makes no compile)."""
    return key in _addresses or (cache_dir() / _file_name(key)).exists()
