#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the fuzz targets' hand-made seeds into tests/fuzz/corpus/<target>/seed-*: well-formed
calls (each operation over each kind of adjacency, a hand-made list, a Verlet list, a tape
program using every step; plots, frames and CSV tables of ordinary and hostile values) from
which the fuzzer mutates. Mirrors fuzz::Bytes (fuzz_input.hpp):
a byte < 224 before two more bytes is an ordinary value lo + (hi - lo) * raw / 65535."""
import os
import struct
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


def rollout_seed(n, steps, routes, length=0, resize=None, throw=None, empty=None, budget=3):
    """A rollout program (rollout.fuzz.cpp): routes are (a, b, c) with a, c in {0 computed,
    1 from a, 3 from c} and b in {0 computed, 1 passed through}."""
    w = Writer()
    w.byte(length)
    w.byte(n)  # small(0, 4)
    if length >= 252:
        w.byte(0)  # the short step count, replaced
        raw = steps - 1  # integer(1, 10000)
        w.byte(raw & 0xFF)
        w.byte(raw >> 8)
    elif length >= 232:
        w.byte(0)
        raw = steps - 1  # integer(1, 2000)
        w.byte(raw & 0xFF)
        w.byte(raw >> 8)
    else:
        w.byte(steps - 1)  # small(1, 64)
    w.byte(len(routes) - 1)  # small(1, 4)
    for a, b, c in routes:
        w.byte({0: 0, 1: 1, 3: 2}[a])
        w.byte(b)
        w.byte({0: 0, 1: 1, 3: 2}[c])
    for event in (resize, throw, empty):
        if event is None:
            w.byte(0)
            continue
        w.byte(255)
        w.byte(event[0] & 0xFF)  # the step: integer(0, steps - 1)
        w.byte(event[0] >> 8)
        if event is not throw:
            w.byte(event[1])  # the new size, or the emptied field
    for k in range(n):
        w.real(-1, 1, 0.3 + 0.1 * k)
        w.point(-1, 1, 0.5 - 0.2 * k, 0.1 * k)
        w.real(-1, 1, -0.2 + 0.15 * k)
    w.real(-1, 1, 0.4)  # the parameter
    w.byte(budget & 0xFF)  # integer(1, T)
    w.byte(budget >> 8)
    return bytes(w.out)


def output_seed(kind, parts):
    """An output.fuzz.cpp input: `kind` 0 a plot, 1 a frame, 2 a CSV table; `parts` the bytes
    after it, built by the helpers below (mirroring `value` and `text` there)."""
    return bytes([kind]) + b"".join(parts)


def o_text(data):
    data = data.encode() if isinstance(data, str) else data
    return bytes([len(data)]) + data  # small(0, most): the length, then the bytes


def o_value(v):
    w = Writer()
    w.byte(0)  # an ordinary value of real(-10, 10)
    w.real(-10, 10, v)
    return bytes(w.out)


def o_bits(v):
    return bytes([1]) + struct.pack("<d", v)  # any bit pattern


def o_ulps(k):
    return bytes([2, k + 4])  # k ulps from the base, small(-4, 4)


def o_plot(title, series, log_x=False, log_y=False):
    parts = [o_text(title), o_text("t"), o_text("E"), bytes([len(series)])]
    for x_base, y_base, points, line, label in series:
        parts += [bytes([len(points)]), x_base, y_base]
        for x, y in points:
            parts += [x, y]
        parts += [bytes([1 if line else 0]), o_text(label)]
    parts.append(bytes([1 if log_x else 0, 1 if log_y else 0]))
    return output_seed(0, parts)


def o_frame(kind, dims, positions, arrays, time, series=None):
    """kind: 0 double 1D, 1 double 2D, 2 float 2D, 3 double 3D; positions: (value bytes) per
    component; arrays: (type 0-5, name, per-component raw bytes)."""
    parts = [bytes([kind, len(positions) // dims]), o_value(0.5)]
    parts += [bytes([1]) + v for v in positions]  # floating: a value, not raw bits
    parts.append(bytes([len(arrays)]))
    for array_type, name, components in arrays:
        parts += [bytes([array_type, 1]), o_value(1.0), o_text(name)] + components
    parts.append(time)
    parts.append(bytes([1]) + o_text(series) if series is not None else bytes([0]))
    return output_seed(1, parts)


def o_csv(header, columns, whole):
    parts = [bytes([len(header) - 1, len(columns[0])])]
    for name, column in zip(header, columns):
        parts += [o_text(name), o_value(1.0)] + column
    parts.append(bytes([1 if whole else 0]))
    return output_seed(2, parts)


def output_seeds():
    nan, inf, big = float("nan"), float("inf"), sys.float_info.max
    tiny = 5e-324
    ramp = [(o_value(0.1 * i), o_value(1.0 - 0.09 * i)) for i in range(11)]
    hostile = [o_bits(v) for v in (nan, -inf, -0.0, tiny, big, -big, 1e-300)]
    seeds = {
        "seed-plot-lines": o_plot("Energy <decay> & \"more\"", [
            (o_value(0), o_value(1), ramp, True, "analytic"),
            (o_value(0), o_value(1), ramp[::2], False, "SPH 100\u00b2")]),
        "seed-plot-log": o_plot("log", [
            (o_value(1), o_value(1), [(o_value(0.01 * (i + 1)), o_value(2.0 ** -i))
                                      for i in range(8)], True, "decay")], True, True),
        "seed-plot-conserved": o_plot("E(t) = E0", [
            (o_value(0), o_value(1), [(o_value(0.1 * i), o_ulps(i % 3)) for i in range(9)],
             True, "E")]),
        "seed-plot-extremes": o_plot(b"\x01 \xff\xfe bytes", [
            (o_bits(-big), o_bits(big), [(o_bits(-big), o_bits(big)), (o_bits(big), o_bits(tiny)),
                                         (o_bits(0.0), o_bits(-big))], False, b"<&\x00>")]),
        "seed-frame-2d": o_frame(1, 2, [o_value(0.1 * k) for k in range(8)], [
            (0, "density", [bytes([1]) + o_value(1.0 + k) for k in range(4)]),
            (2, "kind", [bytes([k, 0, 0, 0]) for k in range(4)]),
            (4, "velocity", [bytes([1]) + o_value(0.5) for _ in range(8)])], o_value(0.25)),
        "seed-frame-blown-up": o_frame(3, 3, [o_bits(v) for v in (nan, inf, -inf, tiny, big, 0.0)],
                                       [(1, "rho <&>", [bytes([1]) + v for v in hostile[:2]]),
                                        (3, "id", [bytes([255] * 8), bytes([0] * 7 + [128])]),
                                        (5, "f3", [bytes([0, 1, 0, 192, 127])] * 6)],
                                       o_value(1.0)),
        "seed-frame-series": o_frame(2, 2, [o_value(0.2 * k) for k in range(6)],
                                     [(0, "p", [bytes([1]) + o_ulps(k) for k in range(3)])],
                                     o_bits(tiny), series="run"),
        "seed-csv-table": o_csv(["t", "E, total", "say \"hi\""],
                                [[o_value(0.1 * i) for i in range(4)],
                                 [o_value(1.0 - 0.01 * i) for i in range(4)],
                                 [o_ulps(i) for i in range(4)]], True),
        "seed-csv-rows": o_csv(["x", "line\nbreak"], [hostile[:6], hostile[1:]], False),
    }
    return seeds


def solver_seed(term, components, zero_density=False):
    """A solver program (solver.fuzz.cpp): 4 particles of a lattice in the unit box, the pair term
    `term` (0 pressure, 1 laminar, 2 artificial viscosity, 3 continuity, 4 Antuono, 5 shifting)
    with a field of `components` scalars per particle, then the time-step rules and the
    equations of state."""
    w = Writer()
    n = 4
    w.byte(n)
    w.byte(0)  # an open box
    for k, (x, y) in enumerate(lattice(n)):
        w.point(-0.2, 1.2, 0.5 + 0.3 * x, 0.5 + 0.3 * y)
        w.point(-1, 1, 0.1 * k, -0.05 * k)
        w.real(0.05, 0.45, 0.4)
        w.real(0, 0.1, 0.02)
        w.real(0, 2, 0.0 if zero_density and k == 1 else 1.0 + 0.05 * k)
        w.real(-1, 1, 0.1)
        w.byte(0)  # fluid
    w.byte(term)
    for k in range(n):
        for c in range(components):
            w.real(-10, 10, 0.5 * k - c)
            w.real(-1, 1, 0.25)
    for lo, hi, value in ((1e-4, 1, 0.01), (0, 100, 10), (0, 10, 1), (0, 100, 4), (0, 1, 0.01),
                          (0, 1, 0.25), (0, 1, 0.125), (0, 1, 0.25)):
        w.real(lo, hi, value)
    w.byte(1)  # gamma 7
    w.real(0.5, 2000, 1000)
    w.real(0.1, 100, 20)
    w.real(0, 3000, 1010)
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
    # Rollouts: the Verlet-reference pattern (c' = a), a swap, a resize, a throw, an empty field,
    # a long rollout and 10^4 steps of one particle.
    seeds["rollout"] = {
        "seed-reference": rollout_seed(3, 20, [(0, 0, 1)]),
        "seed-swap": rollout_seed(2, 12, [(3, 1, 1), (0, 0, 0)]),
        "seed-resize": rollout_seed(3, 10, [(0, 0, 0), (1, 1, 3)], resize=(4, 5)),
        "seed-throw": rollout_seed(2, 8, [(0, 0, 0)], throw=(5,)),
        "seed-empty": rollout_seed(2, 8, [(0, 0, 0)], empty=(3, 1)),
        "seed-long": rollout_seed(2, 1500, [(0, 0, 1), (0, 0, 0)], length=232, budget=40),
        "seed-scalar-1e4": rollout_seed(1, 10000, [(0, 0, 0)], length=252, budget=30),
    }
    seeds["output"] = output_seeds()
    # The solver's terms over a small lattice, one with an empty particle (density 0).
    seeds["solver"] = {
        "seed-pressure": solver_seed(0, 1),
        "seed-pressure-empty-particle": solver_seed(0, 1, zero_density=True),
        "seed-laminar": solver_seed(1, 2),
        "seed-artificial": solver_seed(2, 3),
        "seed-continuity": solver_seed(3, 2),
        "seed-antuono": solver_seed(4, 2),
        "seed-anti-clumping": solver_seed(5, 2),
    }
    for target, files in seeds.items():
        directory = os.path.join(HERE, "corpus", target)
        os.makedirs(directory, exist_ok=True)
        for name, data in files.items():
            with open(os.path.join(directory, name), "wb") as f:
                f.write(data)
    print(sum(len(f) for f in seeds.values()), "seeds written", file=sys.stderr)


if __name__ == "__main__":
    main()
