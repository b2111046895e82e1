# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""Awkward inputs: non-finite coordinates (kept in the output with no edge, reported), no points,
one point, two points, identical points, integer and double coordinates, a z that is constant but
not zero, and a plane with one non-finite z (must stay 3D so that point is left out)."""
import math

import numpy as np
from vtkmodules.vtkCommonCore import vtkPoints
from vtkmodules.vtkCommonDataModel import vtkPolyData, vtkUnstructuredGrid

import emst_testing as t

args = t.arguments()
t.load(args.plugin)
xyz, arrays = t.sample_points(args.sample)
n = len(xyz)
reference = t.run(t.polydata(xyz))
ref_total = t.check_tree(reference, np.ones(n, bool), "sample")

# Non-finite points scattered through the sample.
bad = xyz.copy()
rng = np.random.RandomState(3)
where = rng.choice(n, 40, replace=False)
bad[where[:10], 0] = np.nan
bad[where[10:20], 2] = np.nan
bad[where[20:30], 1] = np.inf
bad[where[30:], 2] = -np.inf
with_bad = np.concatenate([xyz, bad[where]])  # the bad copies appended after the good points
out = t.run(t.polydata(with_bad))
in_tree = np.concatenate([np.ones(n, bool), np.zeros(len(where), bool)])
total = t.check_tree(out, in_tree, "non-finite points")
assert abs(total - ref_total) <= 1e-12 * ref_total, "total %.17g, expected %.17g" % (total, ref_total)
assert out.GetNumberOfPoints() == len(with_bad), "non-finite points dropped from the output"
assert int(t.field(out, "EMSTPointsInTree")) == n
messages = t.field(out, "EMSTMessages")
assert messages, "the left-out points were not reported"
t.passed("%d non-finite points kept with no edge, tree of the rest unchanged; message %r" % (len(where), messages[0]))

# Degenerate sizes.
for count in (0, 1, 2):
    out = t.run(t.polydata(np.arange(3 * count, dtype=np.float32).reshape(count, 3)))
    assert out.GetNumberOfPoints() == count, "%d points in, %d out" % (count, out.GetNumberOfPoints())
    t.check_tree(out, np.ones(count, bool), "%d points" % count)
    assert t.field(out, "TotalLength") == (math.sqrt(27.0) if count == 2 else 0.0)
t.passed("0, 1 and 2 points: 0, 0 and 1 lines")

# Only non-finite points: no lines, no error.
out = t.run(t.polydata(np.full((5, 3), np.nan, np.float32)))
assert out.GetNumberOfPoints() == 5 and out.GetNumberOfLines() == 0
t.passed("only non-finite points: 5 points, no lines")

# Identical points: zero-length edges.
dup = np.concatenate([xyz[:100], xyz[:100], xyz[:1]])
out = t.run(t.polydata(dup))
total = t.check_tree(out, np.ones(len(dup), bool), "duplicates")
_, _, length = t.edges(out)
assert np.count_nonzero(length == 0.0) == 101, "expected 101 zero-length edges"
t.passed("duplicates: 101 zero-length edges")

# Integer coordinates (copied as double) and a double unstructured grid (read in place).
ints = vtkPoints()
ints.SetDataTypeToInt()
lattice = np.stack(np.meshgrid(np.arange(12), np.arange(9), np.arange(7), indexing="ij"), -1).reshape(-1, 3)
for p in lattice:
    ints.InsertNextPoint(*p.tolist())
pd = vtkPolyData()
pd.SetPoints(ints)
out = t.run(pd)
total = t.check_tree(out, np.ones(len(lattice), bool), "integer lattice")
assert total == len(lattice) - 1, "unit lattice: total %.17g, expected %d" % (total, len(lattice) - 1)
assert t.field(out, "EMSTInput").startswith("copied float64"), t.field(out, "EMSTInput")
grid = vtkUnstructuredGrid()
grid.SetPoints(t.polydata(xyz, dtype=np.float64).GetPoints())
out = t.run(grid)
assert t.field(out, "EMSTInput") == "zero-copy float64 3D", t.field(out, "EMSTInput")
total = t.check_tree(out, np.ones(n, bool), "double unstructured grid")
assert abs(total - ref_total) <= 1e-12 * ref_total
t.passed("int points (copied as float64): total %d; double vtkUnstructuredGrid read in place" % (len(lattice) - 1))

# A plane z = 2.5 runs in 2D and gives the tree of the 3D run of the same points in z = 0... the
# same lines as the x, y points with z = 0.
plane = xyz.copy()
plane[:, 2] = 2.5
out = t.run(t.polydata(plane))
assert "2D" in t.field(out, "EMSTInput"), t.field(out, "EMSTInput")
flat = plane.copy()
flat[:, 2] = 0.0
t.same_output(out, t.run(t.polydata(flat)), "z = 2.5 vs z = 0")
t.check_tree(out, np.ones(n, bool), "plane z = 2.5")
# One NaN z on the plane: 3D, and that point is left out.
plane[17, 2] = np.nan
out = t.run(t.polydata(plane))
assert "3D" in t.field(out, "EMSTInput"), t.field(out, "EMSTInput")
in_tree = np.ones(n, bool)
in_tree[17] = False
t.check_tree(out, in_tree, "plane with a NaN z")
t.passed("constant z runs in 2D with the same tree; a NaN z keeps 3D and leaves its point out")
