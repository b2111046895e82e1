# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""The pvbatch pattern of docs/mpi-and-catalyst.md on a two-piece .pvtu whose pieces hold the same
points (the sample's, with a vertex cell each), under `mpiexec -np 2 emst-pvbatch` with
MALLOC_PERTURB_=213:

    OpenDataFile(.pvtu) -> RedistributeDataSet -> EuclideanMinimumSpanningTree -> MSTClusters
    -> SaveData (tree .pvtp, clusters .pvtp, cluster table .csv)

ParaView 5.11's .pvtu reader lets vtkUnstructuredGrid::SetCells read cell types it has not
written yet; where one of those bytes is 42 (VTK_POLYHEDRON), the grid gets an empty polyhedron
face table and RedistributeDataSet segfaults in vtkExtractCells. Which bytes the heap holds depends
on what ran before (loading a plugin changed it); MALLOC_PERTURB_=213 makes every fresh byte 42, so
without the work-around this test crashes every time (libEMSTPvtuFix.so, which emst-pvbatch
preloads: Plugin/PvtuFix/EMSTPvtuFix.cxx).

RedistributeDataSet sends both copies of a point to one rank and merges them there (same
coordinates): the tree is the sample's own, n points and n - 1 edges with the sample's Prim total
(Data/sample_cloud.json), and the clusters at t are the sample's friends-of-friends groups, counted
with scipy alone (connected components of the pairs at distance <= t, from a cKDTree). Without
RedistributeDataSet, each rank keeps its piece, 2n points in all: the tree is each point joined to
its copy by a zero-length edge (n edges) plus the sample's tree (n - 1 edges), the same total. The
tree filter runs in its default Distributed mode: the outputs, read back whole, hold ghost copies
of the remote ends of each rank's edges, collapsed onto the points they copy (by EMSTGlobalId)
for the checks.
"""
import json
import math
import os

import numpy as np

import emst_mpi_testing as m

t = m.t
THRESHOLD = 1.5  # the docs' pattern's cut


def write_two_piece_pvtu(xyz, path):
    """One vtkUnstructuredGrid of the points (a vertex cell each, PointIndex) written as two pieces:
    the serial writer gives each piece the whole grid."""
    from vtkmodules.util import numpy_support as ns
    from vtkmodules.vtkCommonCore import vtkPoints
    from vtkmodules.vtkCommonDataModel import VTK_VERTEX, vtkCellArray, vtkUnstructuredGrid
    from vtkmodules.vtkIOParallelXML import vtkXMLPUnstructuredGridWriter

    n = len(xyz)
    grid = vtkUnstructuredGrid()
    points = vtkPoints()
    points.SetData(ns.numpy_to_vtk(np.ascontiguousarray(xyz), deep=True))
    grid.SetPoints(points)
    cells = vtkCellArray()
    cells.SetData(ns.numpy_to_vtk(np.arange(n + 1, dtype=np.int64), deep=True),
                  ns.numpy_to_vtk(np.arange(n, dtype=np.int64), deep=True))
    grid.SetCells(VTK_VERTEX, cells)
    index = ns.numpy_to_vtk(np.arange(n, dtype=np.int64), deep=True)
    index.SetName("PointIndex")
    grid.GetPointData().AddArray(index)
    writer = vtkXMLPUnstructuredGridWriter()
    writer.SetInputData(grid)
    writer.SetFileName(path)
    writer.SetController(None)  # written by this rank alone (the script runs on rank 0 only)
    writer.SetNumberOfPieces(2)
    writer.SetStartPiece(0)
    writer.SetEndPiece(1)
    writer.SetDataModeToBinary()
    assert writer.Write() == 1, "could not write " + path
    assert len(m.pvtp_pieces(path)) == 2, "%s does not name two pieces" % path


def read_pvtu_in_process(path):
    """The .pvtu read by VTK's reader here (no pipeline, no MPI): the face table the bug makes."""
    from vtkmodules.vtkIOXML import vtkXMLPUnstructuredGridReader

    reader = vtkXMLPUnstructuredGridReader()
    reader.SetFileName(path)
    reader.Update()
    return reader.GetOutput()


def fof_groups(index, xyz, threshold):
    """Friends-of-friends groups at linking length threshold of the points xyz[index], from scipy
    alone."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components
    from scipy.spatial import cKDTree

    xyz = xyz[index]
    pairs = cKDTree(xyz).query_pairs(threshold, output_type="ndarray")
    graph = coo_matrix((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(len(xyz), len(xyz)))
    return connected_components(graph, directed=False)[0]


def main():
    from paraview import servermanager
    from paraview.modules.vtkRemotingCore import vtkProcessModule

    args = t.arguments()
    simple = m.load(args.plugin)
    ranks = vtkProcessModule.GetProcessModule().GetNumberOfLocalPartitions()
    assert ranks == 2, "run this under mpiexec -np 2 (found %d process)" % ranks
    with open(os.path.splitext(args.sample)[0] + ".json") as f:
        expected = json.load(f)
    xyz, _ = t.sample_points(args.sample)
    n = len(xyz)
    assert n == expected["points"] and len(np.unique(xyz, axis=0)) == n, "the sample's points are not distinct"
    os.makedirs(args.work_dir, exist_ok=True)
    pvtu = os.path.join(args.work_dir, "same_points.pvtu")
    write_two_piece_pvtu(xyz, pvtu)

    perturb = os.environ.get("MALLOC_PERTURB_", "")
    read = read_pvtu_in_process(pvtu)
    assert read.GetNumberOfCells() == 2 * n, "%s read back: %d cells" % (pvtu, read.GetNumberOfCells())
    assert read.GetFaces() is None, \
        "the .pvtu reader gave %d vertex cells a polyhedron face table (MALLOC_PERTURB_=%r): " \
        "libEMSTPvtuFix.so is not preloaded or does not work" % (2 * n, perturb)
    t.passed("%s read in one process with MALLOC_PERTURB_=%r: %d cells, no face table" % (pvtu, perturb, 2 * n))

    # ---- the pattern of docs/mpi-and-catalyst.md --------------------------------------------
    cloud = simple.OpenDataFile(pvtu)
    pieces = simple.RedistributeDataSet(Input=cloud)
    tree = simple.EuclideanMinimumSpanningTree(Input=pieces)
    clusters = simple.MSTClusters(Input=tree, CutMode="Threshold", Threshold=THRESHOLD)
    folder = os.path.join(args.work_dir, "np2_same_points")
    os.makedirs(folder, exist_ok=True)
    simple.SaveData(os.path.join(folder, "tree.pvtp"), proxy=tree, DataMode="Binary")
    simple.SaveData(os.path.join(folder, "clusters.pvtp"), proxy=clusters, DataMode="Binary")
    simple.SaveData(os.path.join(folder, "clusters.csv"), proxy=simple.OutputPort(clusters, 1))
    t.passed("OpenDataFile -> RedistributeDataSet -> tree -> MSTClusters -> SaveData ran on %d ranks" % ranks)

    # RedistributeDataSet sends both copies of a point (same coordinates, same region) to one rank
    # and merges them there: 2n vertex cells on n points, whose tree is the sample's own.
    info = pieces.GetDataInformation()
    assert (info.GetNumberOfPoints(), info.GetNumberOfCells()) == (n, 2 * n), \
        "RedistributeDataSet gave %d points, %d cells (expected n = %d, 2n)" % (info.GetNumberOfPoints(), info.GetNumberOfCells(), n)
    out = m.collapse_ghosts(m.read_pvtp(os.path.join(folder, "tree.pvtp")), "EMSTGlobalId")
    total = t.check_tree(out, np.ones(n, bool), "redistributed")
    t.check_weight(total, expected["emst_total_length"], "redistributed")
    t.passed("redistributed: the copies merged into n = %d points, tree total %.17g (Prim %.17g)"
             % (n, total, expected["emst_total_length"]))
    points = m.read_pvtp(os.path.join(folder, "clusters.pvtp"))
    count = int(m.array(points, "ClusterId").max()) + 1
    groups = fof_groups(m.array(points, "PointIndex"), xyz.astype(np.float64), THRESHOLD)
    assert count == groups, "%d clusters at %g, scipy's friends-of-friends %d" % (count, THRESHOLD, groups)
    rows = m.read_csv_table(os.path.join(folder, "clusters.csv")).GetNumberOfRows()
    assert rows == groups, "clusters.csv: %d rows, expected %d" % (rows, groups)
    t.passed("%d clusters at %g (scipy: %d), %d rows in clusters.csv" % (count, THRESHOLD, groups, rows))
    for proxy in (clusters, tree, pieces):
        simple.Delete(proxy)

    # ---- the reader's pieces straight into the tree: each rank holds a copy of every point ----
    tree = simple.EuclideanMinimumSpanningTree(Input=cloud)
    tree.UpdatePipeline()
    out = m.collapse_ghosts(m.copy(servermanager.Fetch(tree)), "EMSTGlobalId")
    assert out.GetNumberOfPoints() == 2 * n, "%d points held, expected 2n = %d" % (out.GetNumberOfPoints(), 2 * n)
    total = t.check_tree(out, np.ones(2 * n, bool), "two copies")
    i, j, length = t.edges(out)
    index = m.array(out, "PointIndex")
    zero = length == 0.0
    assert np.count_nonzero(zero) == n, "%d zero-length edges, expected one per point (%d)" % (np.count_nonzero(zero), n)
    assert np.array_equal(index[i[zero]], index[j[zero]]), "a zero-length edge joins two different points"
    assert len(np.unique(index[i[zero]])) == n, "some point is not joined to its copy"
    t.check_weight(total, expected["emst_total_length"], "two copies")
    t.passed("not redistributed: tree of 2n = %d points, %d zero-length edges (each point to its copy) and "
             "the sample's tree, total %.17g (Prim %.17g)" % (2 * n, n, total, expected["emst_total_length"]))

main()
