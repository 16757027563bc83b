#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Reads the .vtu and .pvd files sphad writes with VTK's own XML reader and compares every value's
bits with what was written. Usage: read_vtu.py SPHAD_TEST_IO

Runs `SPHAD_TEST_IO [vtk_reader]` (the hidden test case in io.test.cpp) with
SPHAD_IO_VTK_READER_DIR set to a fresh directory; it writes frames (NaN, infinities, denormals,
the extremes of every type, an array name with XML specials, a frame of no particles) and a
series, each with a `.expected` list. This script opens each frame with
vtkXMLUnstructuredGridReader and checks the types VTK chose, the components, the tuples and the
bytes (NaN payloads and signs included), every cell a VTK_VERTEX of its own particle; and the
series' .pvd (parsed as XML: VTK has no .pvd reader outside ParaView) for its times, bit for bit,
and its frames. Fails, loudly, when VTK's Python module (Debian: python3-vtk9, which
scripts/install-deps.sh installs) is missing."""
import os
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

try:
    from vtkmodules.vtkCommonCore import vtkCommand
    from vtkmodules.vtkIOXML import vtkXMLUnstructuredGridReader
except ImportError as error:
    sys.exit(f"read_vtu.py: VTK's Python module is missing ({error}); install it with "
             f"`scripts/install-deps.sh` (Debian package python3-vtk9), for {sys.executable}")

# The VTK type ids an XML type may be read as, and its size.
VTK_TYPES = {
    "Float64": ({11}, 8),  # VTK_DOUBLE
    "Float32": ({10}, 4),  # VTK_FLOAT
    "Int32": ({6}, 4),  # VTK_INT
    "Int64": ({8, 12, 16}, 8),  # VTK_LONG, VTK_ID_TYPE, VTK_LONG_LONG
    "UInt8": ({3}, 1),  # VTK_UNSIGNED_CHAR
}
VTK_VERTEX = 1

problems = []


def check(condition, what):
    if not condition:
        problems.append(what)
    return condition


def read(path):
    """The unstructured grid in `path`, read by VTK; every error or warning it reports fails."""
    reader = vtkXMLUnstructuredGridReader()
    messages = []

    def on_message(caller, event):
        messages.append(f"{event} from VTK reading {path}")

    reader.AddObserver(vtkCommand.ErrorEvent, on_message)
    reader.AddObserver(vtkCommand.WarningEvent, on_message)
    reader.SetFileName(path)
    reader.Update()
    for m in messages:
        check(False, m)
    return reader.GetOutput()


def check_array(label, array, xml_type, components, expected):
    if not check(array is not None, f"{label}: VTK did not read it"):
        return
    types, size = VTK_TYPES[xml_type]
    check(array.GetDataType() in types and array.GetDataTypeSize() == size,
          f"{label}: {xml_type} read as VTK type {array.GetDataTypeAsString()} "
          f"({array.GetDataTypeSize()} bytes)")
    check(array.GetNumberOfComponents() == components,
          f"{label}: {array.GetNumberOfComponents()} components, expected {components}")
    got = bytes(memoryview(array)) if array.GetNumberOfTuples() > 0 else b""
    if check(len(got) == len(expected), f"{label}: {len(got)} bytes, expected {len(expected)}"):
        for i in range(0, len(got), size):
            if got[i:i + size] != expected[i:i + size]:
                check(False, f"{label}: element {i // size} has bytes {got[i:i + size].hex()}, "
                             f"expected {expected[i:i + size].hex()}")
                break


def check_frame(vtu, expected_path):
    grid = read(vtu)
    with open(expected_path) as f:
        lines = f.read().split("\n")
    points = int(lines[0].split()[1])
    name = os.path.basename(vtu)
    check(grid.GetNumberOfPoints() == points,
          f"{name}: {grid.GetNumberOfPoints()} points, expected {points}")
    check(grid.GetNumberOfCells() == points,
          f"{name}: {grid.GetNumberOfCells()} cells, expected {points}")
    for i in range(grid.GetNumberOfCells()):
        cell = grid.GetCell(i)
        if not check(grid.GetCellType(i) == VTK_VERTEX and cell.GetNumberOfPoints() == 1 and
                     cell.GetPointId(0) == i, f"{name}: cell {i} is not the vertex of point {i}"):
            break
    checked = 0
    for line in lines[1:]:
        if not line:
            continue
        section, name_hex, xml_type, components, data_hex = line.split()
        array_name = "" if name_hex == "-" else bytes.fromhex(name_hex).decode()
        expected = b"" if data_hex == "-" else bytes.fromhex(data_hex)
        label = f"{name}: {section} `{array_name}`"
        if section == "Points":
            points_data = grid.GetPoints().GetData() if grid.GetPoints() is not None else None
            check_array(label, points_data, xml_type, int(components), expected)
        else:
            check_array(label, grid.GetPointData().GetArray(array_name), xml_type,
                        int(components), expected)
        checked += 1
    check(grid.GetPointData().GetNumberOfArrays() == checked - 1,
          f"{name}: {grid.GetPointData().GetNumberOfArrays()} point arrays, expected {checked - 1}")
    return checked


def check_series(directory, expected_path):
    pvd = os.path.join(directory, "series", "run.pvd")
    datasets = ET.parse(pvd).getroot().find("Collection").findall("DataSet")
    with open(expected_path) as f:
        expected = [line.split() for line in f.read().split("\n") if line]
    check(len(datasets) == len(expected), f"run.pvd: {len(datasets)} frames, expected {len(expected)}")
    for dataset, (time_hex, file, points) in zip(datasets, expected):
        time = struct.pack("<d", float(dataset.get("timestep")))
        check(time.hex() == time_hex,
              f"run.pvd: {file} at time {dataset.get('timestep')} ({time.hex()}), expected "
              f"{time_hex}")
        check(dataset.get("file") == file, f"run.pvd: file {dataset.get('file')}, expected {file}")
        grid = read(os.path.join(directory, "series", dataset.get("file")))
        check(grid.GetNumberOfPoints() == int(points),
              f"{file}: {grid.GetNumberOfPoints()} points, expected {points}")
    return len(datasets)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with tempfile.TemporaryDirectory(prefix="sphad_read_vtu_") as directory:
        env = dict(os.environ, SPHAD_IO_VTK_READER_DIR=directory)
        subprocess.run([sys.argv[1], "[vtk_reader]"], env=env, check=True)
        frames = sorted(f for f in os.listdir(directory) if f.endswith(".vtu"))
        check(frames == ["blown.vtu", "empty.vtu"], f"frames written: {frames}")
        arrays = 0
        for vtu in frames:
            arrays += check_frame(os.path.join(directory, vtu),
                                  os.path.join(directory, vtu[:-4] + ".expected"))
        series = check_series(directory, os.path.join(directory, "series.expected"))
    if problems:
        print("\n".join(problems))
        sys.exit(f"read_vtu.py: {len(problems)} problems reading sphad's files with VTK")
    print(f"read_vtu.py: VTK read {len(frames)} frames ({arrays} arrays) and a series of "
          f"{series} frames, every value bit for bit")


if __name__ == "__main__":
    main()
