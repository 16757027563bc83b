#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the fuzz targets' hand-made seeds into tests/fuzz/corpus/<target>/seed-*: well-formed
calls (each operation over each kind of adjacency, a hand-made list, a Verlet list, a tape
program using every step) from which the fuzzer mutates. Mirrors fuzz::Bytes (fuzz_input.hpp):
a byte < 224 before two more bytes is an ordinary value lo + (hi - lo) * raw / 65535."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


class Writer:
    def __init__(self):
        self.out = bytearray()

    def byte(self, b):
        self.out.append(b & 0xFF)

    def real(self, lo, hi, value):
        raw = round((value - lo) / (hi - lo) * 65535)
        self.out += bytes([0, raw & 0xFF, raw >> 8])

    def point(self, lo, hi, x, y):
        self.real(lo, hi, x)
        self.real(lo, hi, y)


def lattice(n):
    side = int(round(n ** 0.5))
    dx = 1.6 / side
    return [(-0.8 + dx / 2 + (k % side) * dx, -0.8 + dx / 2 + (k // side) * dx) for k in range(n)]


def evaluate_seed(operation, adjacency, vector_field, calibration=None):
    w = Writer()
    for index in (operation, 0, 4, 0, 1, 0):  # op, Wendland2, SuperSymmetric, Naive, Brookshaw, Standard
        w.byte(index)
    w.byte(0)  # consistent divergence
    w.byte(0)  # positive divergence
    w.byte(0)  # periodic x
    w.byte(0)  # periodic y
    w.byte(0)  # the unit domain
    w.byte(10)  # direction small(-1, 15): 10 - 1 = AllToAll
    if calibration is None:
        w.byte(0)  # no calibration
    else:
        w.byte(224)
        w.byte(calibration)  # a hostile value's index + 224 (fuzz::Bytes::real)
    n = 9
    w.byte(n)
    w.byte(1)  # one set in both roles
    for x, y in lattice(n):
        w.point(-1.2, 1.2, x, y)
        w.real(0.2, 0.9, 0.7)
        w.real(0.01, 0.1, 0.04)
        w.real(0.5, 2.0, 1.0)
        w.byte(0)  # fluid
    w.byte(0)  # no short array
    w.byte(1)  # references with densities
    w.byte(1)  # queries with densities
    w.byte(adjacency)
    if adjacency == 0:
        w.byte(0)  # max_support computed
        w.byte(0)  # no skin
        w.byte(4)  # SuperSymmetric search
    elif adjacency == 1:
        pass  # the hand-made list: all zero bytes give nine empty rows
    else:
        w.byte(4)
    w.byte(0 if vector_field else 1)
    for _ in range(2 * n):
        if vector_field:
            w.point(-2, 2, 0.3, -0.4)
        else:
            w.real(-2, 2, 0.5)
    w.byte(0)  # output size as the operation needs
    w.byte(1 if operation == 6 else 0)  # neighbour counts for Covariance
    return bytes(w.out)


def neighbor_list_seed(verlet):
    w = Writer()
    w.byte(4)
    w.byte(4)
    for _ in range(2):
        for x, y in lattice(4):
            w.byte(0)
            w.real(-1, 1, x)
            w.real(-1, 1, y)
            w.byte(0)  # the default support
    if not verlet:
        w.byte(0)
        w.byte(0)  # num_queries = 4
        w.byte(0)  # five offsets
        for step in (0, 2, 3, 3, 1):
            w.byte(step)
        w.byte(0)  # num_pairs from the offsets
        w.byte(0)  # as many entries
        for j in (0, 1, 2, 3, 1, 2):
            w.byte(j)
        w.byte(0)  # validate with the true reference count
    else:
        w.byte(1)
        w.real(0, 0.3, 0.1)
        w.byte(5)  # built SuperSymmetric (10 + 5)
        w.byte(1)  # filtered Gather (10 + 1)
        w.byte(0)
        w.byte(0)  # the same counts
        for _ in range(2):
            for x, y in lattice(4):
                w.byte(0)
                w.real(-1, 1, x + 0.01)
                w.real(-1, 1, y)
                w.byte(0)
    return bytes(w.out)


def tape_seed(steps):
    w = Writer()
    n = 4
    w.byte(n - 1)  # small(1, 8)
    for x, y in lattice(n):
        w.point(-0.9, 0.9, x, y)
        w.real(-1, 1, 0.25)
    for tape, step, picks in steps:
        w.byte(tape)
        w.byte(step)
        for p in picks:
            w.byte(p)
    return bytes(w.out)


def main():
    seeds = {"evaluate": {}, "neighbor_list": {}, "tape": {}}
    for operation in range(7):
        for adjacency in range(3):
            for vector in (False, True):
                name = f"seed-op{operation}-adj{adjacency}-{'vector' if vector else 'scalar'}"
                seeds["evaluate"][name] = evaluate_seed(operation, adjacency, vector)
    # The inputs of past findings (docs/reliability.md), kept so every run replays them.
    seeds["evaluate"]["finding-calibration-1e30"] = evaluate_seed(5, 0, False, calibration=224 + 13)
    seeds["neighbor_list"]["finding-copy-of-a-list-without-offsets"] = bytes([0, 0, 0, 5, 0xFF])
    seeds["neighbor_list"]["seed-hand-made"] = neighbor_list_seed(False)
    seeds["neighbor_list"]["seed-verlet"] = neighbor_list_seed(True)
    # Record a density and a gradient, map, sweep, read, write, clear, destroy; then mix tapes.
    seeds["tape"]["seed-every-step"] = tape_seed(
        [(0, 0, (0, 0)), (0, 1, (0, 1, 1)), (0, 2, (1, 2)), (0, 3, (2, 1)), (0, 4, (3, 0)),
         (0, 5, (3, 1)), (0, 6, (0,)), (0, 7, (0,)), (0, 4, (3, 0)), (0, 8, ()), (0, 9, ())])
    seeds["tape"]["seed-two-tapes"] = tape_seed(
        [(0, 0, (0, 0)), (1, 2, (1, 1)), (1, 4, (2, 0)), (1, 5, (0, 0, 0)), (0, 8, ()),
         (1, 0, (0, 1)), (1, 4, (3, 1))])
    for target, files in seeds.items():
        directory = os.path.join(HERE, "corpus", target)
        os.makedirs(directory, exist_ok=True)
        for name, data in files.items():
            with open(os.path.join(directory, name), "wb") as f:
                f.write(data)
    print(sum(len(f) for f in seeds.values()), "seeds written", file=sys.stderr)


if __name__ == "__main__":
    main()
