# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""Composite input: the bundled sample split over the leaves of a vtkMultiBlockDataSet (nested,
with an empty block and a non-point-set block), a vtkPartitionedDataSet and a
vtkPartitionedDataSetCollection gives ONE tree over all points: the same lines, bit for bit, as the
sample in one block, with all points appended in leaf order and the point arrays that all leaves
share. Leaves of mixed types (vtkPolyData, vtkUnstructuredGrid) and precisions (float32, float64)
are appended as float64 and give the same tree again."""
import numpy as np
from vtkmodules.vtkCommonDataModel import (vtkImageData, vtkMultiBlockDataSet, vtkPartitionedDataSet,
                                           vtkPartitionedDataSetCollection, vtkUnstructuredGrid)

import emst_testing as t

args = t.arguments()
t.load(args.plugin)
xyz, arrays = t.sample_points(args.sample)
n = len(xyz)
single = t.run(t.polydata(xyz, arrays))
total = t.check_tree(single, np.ones(n, bool), "single block")

# Uneven split, so that leaf boundaries fall inside halos and filaments.
cuts = [0, 1234, 5000, 5001, 8888, n]
pieces = [(a, b) for a, b in zip(cuts[:-1], cuts[1:])]


def leaf(a, b, dtype=None, extra=False):
    leaf_arrays = {name: values[a:b] for name, values in arrays.items()}
    if extra:  # an array only this leaf has: dropped from the output
        leaf_arrays["OnlyHere"] = np.arange(b - a, dtype=np.int32)
    return t.polydata(xyz[a:b], leaf_arrays, dtype=dtype)


def check(output, label):
    got = t.check_tree(output, np.ones(n, bool), label)
    assert np.array_equal(t.output_points(output), xyz.astype(np.float64)), label + ": points not appended in order"
    t.same_output(output, single, label)
    assert got == total, "%s: total %.17g, single block %.17g" % (label, got, total)
    pd = output.GetPointData()
    for name, values in arrays.items():
        array = pd.GetArray(name)
        assert array is not None, "%s: point array %s lost" % (label, name)
        from vtkmodules.util import numpy_support
        assert np.array_equal(numpy_support.vtk_to_numpy(array), values), "%s: %s values differ" % (label, name)
    assert pd.GetArray("OnlyHere") is None, label + ": an array not in all leaves was kept"
    t.passed("%s: %d points, %d lines, total %.17g (single block %.17g), %s"
             % (label, n, n - 1, got, total, t.field(output, "EMSTInput")))


# Multiblock, nested, with an empty block and an image block (not a point set: left out, warned).
mb = vtkMultiBlockDataSet()
inner = vtkMultiBlockDataSet()
mb.SetBlock(0, leaf(*pieces[0], extra=True))
mb.SetBlock(1, inner)
inner.SetBlock(0, leaf(*pieces[1]))
inner.SetBlock(1, None)
inner.SetBlock(2, leaf(*pieces[2]))
mb.SetBlock(2, leaf(*pieces[3]))
image = vtkImageData()
image.SetDimensions(3, 3, 3)
mb.SetBlock(3, image)
mb.SetBlock(4, leaf(*pieces[4]))
out = t.run(mb)
check(out, "vtkMultiBlockDataSet")
assert any("not point sets" in m for m in t.field(out, "EMSTMessages")), "the image block was not reported"

pds = vtkPartitionedDataSet()
for k, (a, b) in enumerate(pieces):
    pds.SetPartition(k, leaf(a, b))
check(t.run(pds), "vtkPartitionedDataSet")

collection = vtkPartitionedDataSetCollection()
for k, (a, b) in enumerate(pieces):
    part = vtkPartitionedDataSet()
    part.SetPartition(0, leaf(a, b))
    collection.SetPartitionedDataSet(k, part)
check(t.run(collection), "vtkPartitionedDataSetCollection")

# Mixed leaf types and precisions: float64 leaves and an unstructured grid.
mixed = vtkPartitionedDataSet()
for k, (a, b) in enumerate(pieces):
    poly = leaf(a, b, dtype=np.float64 if k % 2 else None)
    if k == 2:
        grid = vtkUnstructuredGrid()
        grid.SetPoints(poly.GetPoints())
        grid.GetPointData().ShallowCopy(poly.GetPointData())
        poly = grid
    mixed.SetPartition(k, poly)
out = t.run(mixed)
assert out.GetPoints().GetDataType() == 11, "mixed precisions should be appended as double"
check(out, "mixed float32/float64, polydata/unstructured grid")
