# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""Under MPI (mpiexec -np 2 pvbatch), a tree in a periodic box: a data set cut out as a cube
(Testing/Data's galaxies_mr19mock_box14k, a 100 Mpc/h window of a mock galaxy catalogue, taken as
a periodic box here), split over the ranks, its box given to the filter (Custom), must give the one
periodic tree of all points, gathered on rank 0. Reference: scipy's minimum spanning tree of the
graph of all pairs closer than the open tree's longest edge (the set's .ref.json) under
minimum-image distances (cKDTree with boxsize). That graph is connected, periodic distances never
exceeding open ones, so it holds the whole periodic tree, whose edges are all at most the
connectivity threshold."""
import json

import numpy as np
from paraview import servermanager
from paraview.modules.vtkRemotingCore import vtkProcessModule
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components, minimum_spanning_tree
from scipy.spatial import cKDTree
from vtkmodules.util import numpy_support

import emst_mpi_testing as m
import emst_testing as t

args = t.arguments()
simple = m.load(args.plugin)
ranks = vtkProcessModule.GetProcessModule().GetNumberOfLocalPartitions()
assert ranks >= 2, "run this under mpiexec -np 2 (found %d process)" % ranks
f32, ref = t.data_set_file(args)
with open(f32.replace(".f32", ".src.json")) as f:
    window = json.load(f)["cut"]
origin = np.array(window["lower"], np.float64)
box_size = np.array(window["upper"], np.float64) - origin
assert np.all(box_size == box_size[0]), "the window is not a cube: %s" % box_size

cloud = simple.ProgrammableSource(OutputDataSetType="vtkPolyData")
cloud.Script = m.READ_SET_IN_SOURCE % {"f32": f32} + """
points = vtkPoints()
points.SetData(ns.numpy_to_vtk(np.ascontiguousarray(values[piece::pieces]), deep=True))
self.GetPolyDataOutput().SetPoints(points)
"""
tree = simple.EuclideanMinimumSpanningTree(Input=cloud, PeriodicBoxMode="Custom")
tree.BoxOrigin = origin.tolist()
tree.BoxSize = box_size.tolist()
tree.UpdatePipeline()
out = servermanager.Fetch(tree)
n = out.GetNumberOfPoints()
assert n == ref["n"], "%d points gathered, expected %d" % (n, ref["n"])
i, j, length = t.edges(out)
assert len(length) == n - 1, "%d lines for %d points" % (len(length), n)
count, cycle = t.components(n, i, j)
assert count == 1 and not cycle, "not a spanning tree"
path = t.field(out, "EMSTInput")
assert "gathered" in path and "periodic" in path, path
# The default ParallelMode (Distributed) has no periodic boxes: the tree says it was gathered.
assert tree.ParallelMode == "Distributed", tree.ParallelMode
assert any("computed on process 0" in m for m in t.field(out, "EMSTMessages")), t.field(out, "EMSTMessages")

L = float(box_size[0])
xyz = np.mod(t.output_points(out) - origin, L)
pairs = cKDTree(xyz, boxsize=L).query_pairs(ref["emst"]["max_edge"] * (1 + 1e-9), output_type="ndarray")
d = xyz[pairs[:, 1]] - xyz[pairs[:, 0]]
d -= L * np.round(d / L)
weights = np.maximum(np.sqrt((d * d).sum(1)), 1e-300)
graph = coo_matrix((weights, (pairs[:, 0], pairs[:, 1])), shape=(n, n))
assert connected_components(graph, directed=False)[0] == 1, "the reference graph is not connected"
reference = float(minimum_spanning_tree(graph).sum())
total = t.field(out, "TotalLength")
t.check_weight(total, reference, "periodic tree under MPI")
assert total < ref["emst"]["total_weight"], "the periodic tree is not shorter than the open one"
crossing = int(np.count_nonzero(numpy_support.vtk_to_numpy(out.GetCellData().GetArray("CrossesBoundary"))))
t.passed("%d ranks: one periodic tree of %d points, total %.17g = scipy's %.17g (open %.17g), %d edges across the faces"
         % (ranks, n, total, reference, ref["emst"]["total_weight"], crossing))
