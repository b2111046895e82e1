# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""Shared helpers of the pvpython tests: load the built plugin by path, make VTK inputs from numpy,
run the filter, and check an output against independent facts (distances, spanning-tree shape,
reference totals). Every check raises AssertionError with the numbers on failure."""
import argparse
import json
import math
import os
import sys

import numpy as np
from vtkmodules.util import numpy_support
from vtkmodules.vtkCommonCore import vtkPoints, vtkUnsignedCharArray
from vtkmodules.vtkCommonDataModel import vtkDataSetAttributes, vtkPolyData

SKIP = 77  # ctest SKIP_RETURN_CODE

_simple = None


def arguments(extra=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--plugin", required=True, help="path of the built EMST.so")
    parser.add_argument("--data-dir", help="folder of real .f32 sets and their .ref.json (Testing/Data or the shared data)")
    parser.add_argument("--set", help="name of one set in --data-dir")
    parser.add_argument("--sample", help="Data/sample_cloud.vtp")
    parser.add_argument("--pvpython", help="pvpython, for tests that start a second process")
    parser.add_argument("--work-dir", help="a scratch folder")
    parser.add_argument("--expat-fix", help="libEMSTExpatFix.so")
    parser.add_argument("--wrapper", help="build/bin/emst-pvpython")
    parser.add_argument("--demo", help="Examples/emst_demo.py")
    parser.add_argument("--display-wrapper", help="a command that runs its arguments with a display (Testing/GUI/with_xvfb.sh)")
    if extra:
        extra(parser)
    return parser.parse_args()


def load(plugin):
    """Loads the plugin by path; returns paraview.simple with the filter's constructor in it."""
    global _simple
    import paraview.simple as simple

    if not os.path.exists(plugin):
        raise AssertionError("plugin not found: " + plugin)
    simple.LoadPlugin(plugin, remote=False)
    assert hasattr(simple, "EuclideanMinimumSpanningTree"), "the plugin has no EuclideanMinimumSpanningTree"
    _simple = simple
    return simple


def read_f32(path):
    """A data set's .f32 file as (n, 3) float32: uint64 n, uint32 dim, n*dim float32; z = 0 in 2D."""
    with open(path, "rb") as f:
        header = f.read(12)
        n = int(np.frombuffer(header[:8], "<u8")[0])
        dim = int(np.frombuffer(header[8:12], "<u4")[0])
        values = np.frombuffer(f.read(), "<f4")
    assert values.size == n * dim, "%s: %d values, expected %d" % (path, values.size, n * dim)
    xyz = np.zeros((n, 3), np.float32)
    xyz[:, :dim] = values.reshape(n, dim)
    return xyz, dim


def polydata(xyz, arrays=None, ghosts=None, dtype=None):
    """vtkPolyData with the given points (no cells), point arrays {name: values} and an optional
    vtkGhostType point array."""
    xyz = np.ascontiguousarray(xyz if dtype is None else xyz.astype(dtype))
    pd = vtkPolyData()
    points = vtkPoints()
    points.SetData(numpy_support.numpy_to_vtk(xyz, deep=True))
    pd.SetPoints(points)
    for name, values in (arrays or {}).items():
        array = numpy_support.numpy_to_vtk(np.ascontiguousarray(values), deep=True)
        array.SetName(name)
        pd.GetPointData().AddArray(array)
    if ghosts is not None:
        g = numpy_support.numpy_to_vtk(np.ascontiguousarray(ghosts, dtype=np.uint8), deep=True,
                                       array_type=vtkUnsignedCharArray().GetDataType())
        g.SetName(vtkDataSetAttributes.GhostArrayName())
        pd.GetPointData().AddArray(g)
    return pd


def run(data, **properties):
    """Runs the filter on a VTK data object (through a TrivialProducer) and returns a copy of its
    output, so that later runs cannot change it."""
    simple = _simple
    producer = simple.TrivialProducer()
    producer.GetClientSideObject().SetOutput(data)
    tree = simple.EuclideanMinimumSpanningTree(Input=producer)
    for name, value in properties.items():
        setattr(tree, name, value)
    tree.UpdatePipeline()
    output = tree.GetClientSideObject().GetOutputDataObject(0)
    result = output.NewInstance()
    result.DeepCopy(output)
    simple.Delete(tree)
    simple.Delete(producer)
    return result


def field(output, name):
    """Value(s) of a field-data array: a number, a string, or a list for EMSTMessages."""
    array = output.GetFieldData().GetAbstractArray(name)
    assert array is not None, "field data %s missing" % name
    values = [array.GetVariantValue(k) for k in range(array.GetNumberOfValues())]
    values = [v.ToString() if v.IsString() else v.ToDouble() for v in values]
    return values if name == "EMSTMessages" else values[0]


def edges(output):
    """(i, j, EdgeLength) of the output lines as numpy arrays; asserts every cell is a 2-point line."""
    lines = output.GetLines()
    cells = lines.GetNumberOfCells()
    assert output.GetNumberOfCells() == cells, "output has cells other than lines"
    offsets = numpy_support.vtk_to_numpy(lines.GetOffsetsArray())
    connectivity = numpy_support.vtk_to_numpy(lines.GetConnectivityArray())
    assert np.all(np.diff(offsets) == 2), "a line cell does not have exactly 2 points"
    length_array = output.GetCellData().GetArray("EdgeLength")
    assert length_array is not None, "cell array EdgeLength missing"
    assert length_array.GetDataType() == 11, "EdgeLength is not double"  # VTK_DOUBLE
    length = numpy_support.vtk_to_numpy(length_array)
    assert len(length) == cells, "EdgeLength has %d values for %d lines" % (len(length), cells)
    return connectivity[0::2].astype(np.int64), connectivity[1::2].astype(np.int64), length


def output_points(output):
    return numpy_support.vtk_to_numpy(output.GetPoints().GetData()).astype(np.float64)


def components(n, i, j):
    """Number of connected components of the graph on n vertices with edges (i, j), and whether it
    has a cycle (union-find with path halving)."""
    parent = list(range(n))

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    count, cycle = n, False
    for a, b in zip(i.tolist(), j.tolist()):
        ra, rb = find(a), find(b)
        if ra == rb:
            cycle = True
        else:
            parent[ra] = rb
            count -= 1
    return count, cycle


def check_tree(output, in_tree, label=""):
    """Asserts that the output lines form a spanning tree of the points flagged in_tree (a numpy
    bool array over the output points), touch no other point, and that each EdgeLength is the
    distance of its end points (double, axis order, relative 1e-12). Returns the edges' fsum."""
    xyz = output_points(output)
    n = len(xyz)
    assert n == len(in_tree), "%s: %d output points, expected %d" % (label, n, len(in_tree))
    i, j, length = edges(output)
    kept = int(np.count_nonzero(in_tree))
    expected = max(kept - 1, 0)
    assert len(length) == expected, "%s: %d lines, expected %d" % (label, len(length), expected)
    if expected == 0:
        return 0.0
    assert np.all(in_tree[i]) and np.all(in_tree[j]), "%s: a line touches a left-out point" % label
    assert np.all(i != j), "%s: a line joins a point to itself" % label
    d = xyz[i] - xyz[j]
    distance = np.sqrt(d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1] + d[:, 2] * d[:, 2])
    error = np.abs(length - distance) / np.maximum(distance, 1e-300)
    worst = float(error.max())
    assert worst <= 1e-12, "%s: EdgeLength differs from the end points' distance by %.3g (relative)" % (label, worst)
    assert np.all(np.diff(length) >= 0), "%s: lines are not ordered by length" % label
    # Spanning tree: kept - 1 edges and no cycle <=> connected over the kept points.
    ids = np.flatnonzero(in_tree)
    local = np.full(n, -1, np.int64)
    local[ids] = np.arange(len(ids))
    count, cycle = components(len(ids), local[i], local[j])
    assert not cycle and count == 1, "%s: not a spanning tree (%d components, cycle %s)" % (label, count, cycle)
    total = math.fsum(length.tolist())
    reported = field(output, "TotalLength")
    assert abs(reported - total) <= 1e-12 * max(total, 1e-300), \
        "%s: TotalLength %.17g, sum of EdgeLength %.17g" % (label, reported, total)
    return total


def check_weight(total, weight, label):
    """Asserts that a tree's total equals a set's reference weight to 1e-12 relative (the tree is
    exact and EdgeLength is in double: only the order of the sum may differ); returns the relative
    difference."""
    relative = abs(total - weight) / weight
    assert relative <= 1e-12, "%s: total %.17g, reference %.17g (relative %.3g)" % (label, total, weight, relative)
    return relative


def reference(data_dir, name):
    with open(os.path.join(data_dir, name + ".ref.json")) as f:
        return json.load(f)


def same_output(a, b, label=""):
    """Asserts two outputs have the same points and the same lines with bit-identical lengths."""
    assert a.GetNumberOfPoints() == b.GetNumberOfPoints(), "%s: point counts differ" % label
    ia, ja, la = edges(a)
    ib, jb, lb = edges(b)
    assert len(la) == len(lb), "%s: %d vs %d lines" % (label, len(la), len(lb))
    assert np.array_equal(ia, ib) and np.array_equal(ja, jb), "%s: different edges" % label
    assert np.array_equal(la, lb), "%s: different EdgeLength values" % label


def sample_points(path):
    """The bundled sample's points (float32, n x 3) and point arrays, read with VTK's reader."""
    from vtkmodules.vtkIOXML import vtkXMLPolyDataReader

    reader = vtkXMLPolyDataReader()
    reader.SetFileName(path)
    reader.Update()
    data = reader.GetOutput()
    assert data.GetNumberOfPoints() > 0, "could not read " + path
    xyz = numpy_support.vtk_to_numpy(data.GetPoints().GetData()).copy()
    arrays = {}
    for k in range(data.GetPointData().GetNumberOfArrays()):
        array = data.GetPointData().GetArray(k)
        arrays[array.GetName()] = numpy_support.vtk_to_numpy(array).copy()
    return xyz, arrays


def check(condition, message):
    """An assert that stays under python -O."""
    if not condition:
        raise AssertionError(message)


def passed(message):
    print("PASS: " + message)
    sys.stdout.flush()


def data_set_file(args):
    """The set named by --set in --data-dir: (absolute path of its .f32, reference values), or a skip
    when they are not there (the shared folder is optional; Testing/Data's sets are always there)."""
    if not args.data_dir or not os.path.isdir(args.data_dir):
        skip("data folder %r not found: set the CMake cache variable EMST_SHARED_DATA_DIR" % args.data_dir)
    f32 = os.path.abspath(os.path.join(args.data_dir, args.set + ".f32"))
    if not os.path.exists(f32):
        skip("%s not found" % f32)
    return f32, reference(args.data_dir, args.set)


def data_set(args):
    """The set named by --set in --data-dir: (xyz, dim, reference values), or a skip (data_set_file)."""
    f32, ref = data_set_file(args)
    xyz, dim = read_f32(f32)
    return xyz, dim, ref


def skip(message):
    print("SKIPPED: " + message)
    sys.stdout.flush()
    sys.exit(SKIP)
