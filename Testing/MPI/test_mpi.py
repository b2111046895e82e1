# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""Under MPI (mpiexec -np 2 pvbatch): the sample is split over the ranks (every other point), and
the filter must still give the ONE exact tree of all points (Parallel Mode "Gather on rank 0": the
points gathered on rank 0), not a tree per rank: n - 1 lines joining points of both ranks, total
equal to the sample's Prim total. test_mpi_distributed.py tests the Distributed mode. Then HDBSCAN
Clusters (which always gathers on rank 0) on the same split: the clustering of the `emst --hdbscan`
program on the whole sample, point for point."""
import json
import os
import subprocess
import tempfile

import numpy as np
from paraview import servermanager
from paraview.modules.vtkRemotingCore import vtkProcessModule

import emst_mpi_testing  # noqa: F401 (puts Testing/Python, home of emst_testing, on the path)
import emst_testing as t

args = t.arguments(lambda parser: parser.add_argument("--emst", required=True, help="the emst program"))
simple = t.load(args.plugin)
ranks = vtkProcessModule.GetProcessModule().GetNumberOfLocalPartitions()
assert ranks >= 2, "run this under mpiexec -np 2 (found %d process)" % ranks
with open(os.path.splitext(args.sample)[0] + ".json") as f:
    expected = json.load(f)

cloud = simple.ProgrammableSource(OutputDataSetType="vtkPolyData")
cloud.Script = """
import numpy as np
from vtkmodules.util import numpy_support as ns
from vtkmodules.vtkCommonCore import vtkPoints
from vtkmodules.vtkCommonExecutionModel import vtkStreamingDemandDrivenPipeline as sddp
from vtkmodules.vtkIOXML import vtkXMLPolyDataReader
info = self.GetOutputInformation(0)
piece = info.Get(sddp.UPDATE_PIECE_NUMBER())
pieces = info.Get(sddp.UPDATE_NUMBER_OF_PIECES())
reader = vtkXMLPolyDataReader()
reader.SetFileName(%r)
reader.Update()
xyz = ns.vtk_to_numpy(reader.GetOutput().GetPoints().GetData())
mine = np.ascontiguousarray(xyz[piece::pieces])
points = vtkPoints()
points.SetData(ns.numpy_to_vtk(mine, deep=True))
out = self.GetPolyDataOutput()
out.SetPoints(points)
ids = ns.numpy_to_vtk(np.arange(piece, len(xyz), pieces, dtype=np.int64), deep=True)
ids.SetName('SampleIndex')
out.GetPointData().AddArray(ids)
rank = ns.numpy_to_vtk(np.full(len(mine), piece, np.int32), deep=True)
rank.SetName('Rank')
out.GetPointData().AddArray(rank)
""" % os.path.abspath(args.sample)
cloud.UpdatePipeline()
split = cloud.GetDataInformation().GetNumberOfPoints()
assert split == expected["points"], "the pieces hold %d points, expected %d" % (split, expected["points"])

tree = simple.EuclideanMinimumSpanningTree(Input=cloud, ParallelMode="Gather on rank 0")
tree.UpdatePipeline()
lines = tree.GetDataInformation().GetNumberOfCells()
assert lines == expected["points"] - 1, \
    "%d lines over all ranks, expected %d (a tree per rank would give %d)" % (lines, expected["points"] - 1, expected["points"] - ranks)

out = servermanager.Fetch(tree)
n = out.GetNumberOfPoints()
assert n == expected["points"], "%d points gathered, expected %d" % (n, expected["points"])
from vtkmodules.util import numpy_support as ns
i, j, length = t.edges(out)
rank = ns.vtk_to_numpy(out.GetPointData().GetArray("Rank"))
assert set(np.unique(rank).tolist()) == set(range(ranks)), "points of some rank are missing"
crossing = int(np.count_nonzero(rank[i] != rank[j]))
assert crossing > 0, "no edge joins points of different ranks"
total = t.check_tree(out, np.ones(n, bool), "MPI")
assert abs(total - expected["emst_total_length"]) <= 1e-9 * total, \
    "total %.17g, Prim %.17g" % (total, expected["emst_total_length"])
assert "gathered" in t.field(out, "EMSTInput"), t.field(out, "EMSTInput")
t.passed("%d ranks: one tree of %d points, %d lines (%d join points of different ranks), total %.17g (Prim %.17g)"
         % (ranks, n, n - 1, crossing, total, expected["emst_total_length"]))

# HDBSCAN Clusters on the split cloud: gathered on rank 0, the clustering of the whole sample.
# The gathered order is not the sample's (rank 0's points, then rank 1's): the clustering does not
# depend on the numbering, so labels agree once mapped by SampleIndex, up to the names of clusters
# of equal size.
hdbscan = simple.HDBSCANClusters(Input=cloud, Backend="CPU", MinimumSamples=10, MinimumClusterSize=12,
                                 ClusterSelectionMethod="Leaf")
hdbscan.UpdatePipeline()
clustered = servermanager.Fetch(hdbscan)
assert clustered.GetNumberOfPoints() == n, "HDBSCAN Clusters: %d points, expected %d" % (clustered.GetNumberOfPoints(), n)
order = ns.vtk_to_numpy(clustered.GetPointData().GetArray("SampleIndex"))
got = np.empty(n, np.int64)
got[order] = ns.vtk_to_numpy(clustered.GetPointData().GetArray("ClusterId"))
probability = np.empty(n)
probability[order] = ns.vtk_to_numpy(clustered.GetPointData().GetArray("Probability"))
xyz, _ = t.sample_points(args.sample)
with tempfile.TemporaryDirectory() as work:
    path = os.path.join(work, "sample.f32")
    with open(path, "wb") as f:
        f.write(np.uint64(n).tobytes() + np.uint32(3).tobytes() + xyz.astype("<f4").tobytes())
    labels = os.path.join(work, "labels.txt")
    subprocess.run([args.emst, "--backend", "cpu", "--quiet", "--hdbscan", "--min-samples", "10",
                    "--min-cluster-size", "12", "--selection", "leaf", "--labels", labels, path], check=True, capture_output=True)
    reference = np.loadtxt(labels)
want = reference[:, 0].astype(np.int64)
assert np.array_equal(got < 0, want < 0), "HDBSCAN under MPI: %d points differ in noise" % np.sum((got < 0) != (want < 0))
pairs = set(zip(got[got >= 0].tolist(), want[want >= 0].tolist()))
assert len(pairs) == len(set(want[want >= 0].tolist())) == len(set(got[got >= 0].tolist())), \
    "HDBSCAN under MPI: the clusters differ from emst --hdbscan's"
sizes_got = np.bincount(got[got >= 0])
assert np.all([sizes_got[a] == np.sum(want == b) for a, b in pairs]), "HDBSCAN under MPI: cluster sizes differ"
assert np.allclose(probability, reference[:, 1], rtol=1e-12, atol=0), "HDBSCAN under MPI: probabilities differ"
t.passed("HDBSCAN Clusters on %d ranks: %d clusters, %d noise points, as emst --hdbscan on the whole sample"
         % (ranks, len(pairs), int(np.sum(want < 0))))
