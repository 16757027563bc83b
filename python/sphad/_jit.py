# SPDX-License-Identifier: MIT
"""Operator entries by key: the module's built-in ones, else a shared object compiled on first
use from the entry's generated source (sphad._entries) with the compiler and flags the module
was built with (_build.json) and the headers installed beside it, cached on disk under
$SPHAD_CACHE_DIR (default ~/.cache/sphad) by a hash of compiler, flags and headers, so a later
process loads it without compiling.
"""
from __future__ import annotations

import ctypes
import hashlib
import json
import os
import pathlib
import subprocess
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


def compile_entry(key: str) -> pathlib.Path:
    """The shared object of entry `key`, compiled into the cache unless it is there already
    (several processes may compile the same entry: each writes its own file, the last rename
    wins, every copy is the same)."""
    directory = cache_dir()
    target = directory / (_entries.symbol(key) + ".so")
    if target.exists():
        return target
    directory.mkdir(parents=True, exist_ok=True)
    config = _build_config()
    with tempfile.TemporaryDirectory(dir=directory) as scratch:
        src = pathlib.Path(scratch) / "entry.cpp"
        src.write_text(_entries.source([key], single=True))
        tmp = pathlib.Path(scratch) / "entry.so"
        command = [config["compiler"], "-std=c++17", *config["flags"], "-fPIC", "-shared",
                   "-I", str(_here / "include"), "-I", str(_here / "include" / "python"),
                   str(src), "-o", str(tmp)]
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
    return key in _addresses or (cache_dir() / (_entries.symbol(key) + ".so")).exists()
