# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""emst.vtk, the filters for the `vtk` wheel and PyVista (pip-installed in the project's PyPI
virtual environment by the fixture pypi.package), against the NumPy API and the sets' references:

  - vtkEMSTEuclideanMinimumSpanningTree on the real sets (--data-dir) and random clouds: TotalLength
    = the set's reference to 1e-12, the lines = emst.minimum_spanning_tree's edges in order,
    EdgeLength its lengths (active cell scalars), the field data, point arrays passed through,
    vtkPolyData and vtkUnstructuredGrid input;
  - vtkEMSTClusters downstream of it: ClusterId = emst.fof_labels (the same numbering: 0 = the
    largest), ClusterSize, the cluster table and histogram against the labels and the lengths, a
    new threshold cutting again without a new tree;
  - vtkEMSTHdbscanClusters: ClusterId, Probability, OutlierScore = emst.hdbscan's;
  - ghost points (DUPLICATEPOINT, HIDDENPOINT) left out of all three, other ghost bits ignored;
  - errors: an error event and an empty, valid output, Update() never raising (a coordinate range
    that overflows double, a line to a missing point, MinimumSamples above the points, CUDA
    without a GPU), and NaN-only points giving points without lines and no error;
  - a pipeline from a pyvista.PolyData through the three filters, wrapped back by pyvista.
"""
import argparse
import glob
import json
import os
import sys

import numpy as np

import emst_testing  # the data sets' reader
from emst_testing import SKIP, check, passed

def field(data, name):
    array = data.GetFieldData().GetAbstractArray(name)
    check(array is not None, "no field data %s" % name)
    return array.GetValue(0)


def lines_of(data):
    from vtkmodules.util.numpy_support import vtk_to_numpy
    cells = data.GetLines()
    ends = vtk_to_numpy(cells.GetConnectivityArray()).reshape(-1, 2)
    check(np.array_equal(vtk_to_numpy(cells.GetOffsetsArray()), np.arange(0, 2 * len(ends) + 1, 2)),
          "lines are not all two-point lines")
    return ends


def point_array(data, name):
    from vtkmodules.util.numpy_support import vtk_to_numpy
    array = data.GetPointData().GetArray(name)
    check(array is not None, "no point array %s" % name)
    return vtk_to_numpy(array)


def polydata(xyz, ghosts=None):
    """A vtkPolyData of the points (no cells) with the point array Index, and vtkGhostType."""
    from vtkmodules.util.numpy_support import numpy_to_vtk
    from vtkmodules.vtkCommonCore import vtkPoints
    from vtkmodules.vtkCommonDataModel import vtkDataSetAttributes, vtkPolyData
    points = vtkPoints()
    points.SetData(numpy_to_vtk(np.ascontiguousarray(xyz), deep=1))
    data = vtkPolyData()
    data.SetPoints(points)
    index = numpy_to_vtk(np.arange(len(xyz), dtype=np.int64), deep=1)
    index.SetName("Index")
    data.GetPointData().AddArray(index)
    if ghosts is not None:
        array = numpy_to_vtk(ghosts.astype(np.uint8), deep=1)
        array.SetName(vtkDataSetAttributes.GhostArrayName())
        data.GetPointData().AddArray(array)
    return data


class Errors:
    """Records the ErrorEvents of an algorithm (what vtkErrorMacro sends to observers)."""

    def __init__(self, algorithm):
        from vtkmodules.util.misc import calldata_type
        from vtkmodules.vtkCommonCore import VTK_STRING, vtkCommand
        self.messages = []

        @calldata_type(VTK_STRING)
        def record(caller, event, text):
            self.messages.append(text)

        self.observer = record
        algorithm.AddObserver(vtkCommand.ErrorEvent, record)


def run_tree(data, backend=None):
    from emst.vtk import vtkEMSTEuclideanMinimumSpanningTree
    tree = vtkEMSTEuclideanMinimumSpanningTree()
    if backend is not None:
        tree.SetBackend(backend)
    tree.SetInputData(data)
    tree.Update()
    return tree


def check_tree(out, xyz, label, in_tree=None):
    """The tree filter's output against emst.minimum_spanning_tree of the points in the tree."""
    import emst
    in_tree = np.ones(len(xyz), bool) if in_tree is None else in_tree
    ids = np.flatnonzero(in_tree)
    edges, lengths, info = emst.minimum_spanning_tree(xyz[ids], backend="cpu", return_info=True)
    check(out.GetNumberOfPoints() == len(xyz), "%s: %d points out" % (label, out.GetNumberOfPoints()))
    check(np.array_equal(lines_of(out), ids[edges]), "%s: lines differ from emst.minimum_spanning_tree's" % label)
    cell_data = out.GetCellData()
    check(cell_data.GetScalars() is not None and cell_data.GetScalars().GetName() == "EdgeLength",
          "%s: EdgeLength is not the active cell scalars" % label)
    from vtkmodules.util.numpy_support import vtk_to_numpy
    check(np.array_equal(vtk_to_numpy(cell_data.GetArray("EdgeLength")), lengths), "%s: EdgeLength differs" % label)
    check(field(out, "TotalLength") == info["total_length"], "%s: TotalLength differs" % label)
    check(field(out, "EMSTBackendId") == 2 and field(out, "EMSTBackend").startswith("CPU ("),
          "%s: backend %s" % (label, field(out, "EMSTBackend")))
    check(field(out, "EMSTPointsInTree") == info["valid_points"], "%s: EMSTPointsInTree" % label)
    check(np.array_equal(point_array(out, "Index"), np.arange(len(xyz))), "%s: point array lost" % label)
    check(np.array_equal(vtk_to_numpy(out.GetPoints().GetData()), xyz, equal_nan=True), "%s: points moved" % label)
    return edges, lengths


def check_clusters(tree, xyz, threshold, minimum, label, in_tree=None):
    """vtkEMSTClusters on the tree filter's output against emst.fof_labels; returns the filter."""
    import emst
    from emst.vtk import vtkEMSTClusters
    from vtkmodules.util.numpy_support import vtk_to_numpy
    in_tree = np.ones(len(xyz), bool) if in_tree is None else in_tree
    ids = np.flatnonzero(in_tree)
    clusters = vtkEMSTClusters()
    clusters.SetBackendToCPU()
    clusters.SetInputConnection(tree.GetOutputPort())
    clusters.SetThreshold(threshold)
    clusters.SetMinimumClusterSize(minimum)
    clusters.Update()
    out = clusters.GetOutput()
    expected = np.full(len(xyz), -1, np.int32)
    expected[ids] = emst.fof_labels(xyz[ids], threshold, minimum, backend="cpu")
    got = point_array(out, "ClusterId")
    # The same numbering, not only the same partition: 0 = largest, by decreasing size.
    check(np.array_equal(got, expected), "%s: ClusterId differs from fof_labels at %.17g" % (label, threshold))
    k = int(expected.max()) + 1
    sizes = np.bincount(expected[expected >= 0], minlength=k)
    check(bool((np.diff(sizes) <= 0).all()), "%s: ids not by decreasing size" % label)
    check(field(out, "NumberOfClusters") == k and field(out, "NoisePoints") == int((expected < 0).sum()),
          "%s: NumberOfClusters/NoisePoints" % label)
    check(np.array_equal(point_array(out, "Index"), np.arange(len(xyz))), "%s: point array lost" % label)
    # ClusterSize: the size of each point's group (noise included), 0 out of the tree.
    full = emst.fof_labels(xyz[ids], threshold, 1, backend="cpu")
    group = np.zeros(len(xyz), np.int64)
    group[ids] = np.bincount(full)[full]
    check(np.array_equal(point_array(out, "ClusterSize"), group), "%s: ClusterSize differs" % label)
    # The kept edges: the tree's of length <= threshold.
    t_edges, t_lengths = emst.minimum_spanning_tree(xyz[ids], backend="cpu")
    kept = t_lengths <= threshold
    check(np.array_equal(lines_of(out), ids[t_edges[kept]]), "%s: kept edges differ" % label)
    # Output 1: one row per cluster, sizes, first points, centroids from the labels.
    table = clusters.GetOutput(1)
    column = lambda name: vtk_to_numpy(table.GetColumnByName(name))  # noqa: E731
    check(table.GetNumberOfRows() == k and np.array_equal(column("Size"), sizes), "%s: table sizes" % label)
    members = np.flatnonzero(expected >= 0)
    first = np.full(k, len(xyz), np.int64)
    np.minimum.at(first, expected[members], members)
    check(np.array_equal(column("FirstPoint"), first), "%s: table FirstPoint" % label)
    p = xyz[members].astype(np.float64)
    centroid = np.stack([np.bincount(expected[members], p[:, a], k) for a in range(3)], axis=1) / sizes[:, None]
    check(np.allclose(column("Centroid").reshape(k, 3), centroid, rtol=1e-12, atol=1e-12 * np.abs(p).max(initial=1.0)),
          "%s: table centroids" % label)
    # Output 2: the histogram counts every tree edge once.
    histogram = clusters.GetOutput(2)
    counts = vtk_to_numpy(histogram.GetColumnByName("EdgeCount"))
    check(histogram.GetNumberOfRows() == 100 and counts.sum() == len(t_lengths), "%s: histogram" % label)
    return clusters


def check_hdbscan(data, xyz, label, in_tree=None, samples=5, size=10):
    import emst
    from emst.vtk import vtkEMSTHdbscanClusters
    in_tree = np.ones(len(xyz), bool) if in_tree is None else in_tree
    ids = np.flatnonzero(in_tree)
    hdbscan = vtkEMSTHdbscanClusters()
    hdbscan.SetBackendToCPU()
    hdbscan.SetMinimumSamples(samples)
    hdbscan.SetMinimumClusterSize(size)
    hdbscan.SetInputData(data)
    hdbscan.Update()
    out = hdbscan.GetOutput()
    labels, probabilities, scores = emst.hdbscan(xyz[ids], samples, size, backend="cpu")
    expected = [np.full(len(xyz), fill) for fill in (-1, 0.0, np.nan)]
    for array, values in zip(expected, (labels, probabilities, scores)):
        array[ids] = values
    for name, values in zip(("ClusterId", "Probability", "OutlierScore"), expected):
        check(np.array_equal(point_array(out, name), values, equal_nan=True), "%s: %s differs from emst.hdbscan's"
              % (label, name))
    check(np.array_equal(point_array(out, "Index"), np.arange(len(xyz))), "%s: point array lost" % label)
    check(hdbscan.GetOutput(1).GetNumberOfRows() == labels.max() + 1, "%s: cluster table rows" % label)
    return int(labels.max()) + 1


def test_data_set(f32):
    name = os.path.basename(f32)[:-4]
    with open(f32[:-4] + ".ref.json") as f:
        reference = json.load(f)["emst"]["total_weight"]
    xyz, dim = emst_testing.read_f32(f32)
    tree = run_tree(polydata(xyz))
    out = tree.GetOutput()
    edges, lengths = check_tree(out, xyz, name)
    emst_testing.check_weight(field(out, "TotalLength"), reference, name + ": TotalLength")
    check(field(out, "EMSTInput") == ("zero-copy float32 %s" % ("3D" if dim == 3 else "2D (all z = 0)")),
          "%s: EMSTInput %r" % (name, field(out, "EMSTInput")))
    threshold = float(np.median(lengths))
    check_clusters(tree, xyz, threshold, 5, name)
    k = check_hdbscan(polydata(xyz), xyz, name)
    passed("%s: %d points, TotalLength = reference, lines = minimum_spanning_tree, ClusterId = fof_labels "
           "at the median edge, HDBSCAN = emst.hdbscan (%d clusters)" % (name, len(xyz), k))


def test_random(rng):
    from vtkmodules.vtkCommonDataModel import vtkUnstructuredGrid
    for dim, n in ((3, 3000), (2, 2000)):
        xyz = rng.random((n, 3))
        if dim == 2:
            xyz[:, 2] = 1.5
        tree = run_tree(polydata(xyz))
        check_tree(tree.GetOutput(), xyz, "random %dD" % dim)
        for threshold in (0.0, 0.02, 0.05, 10.0):
            check_clusters(tree, xyz, threshold, 3, "random %dD" % dim)
        check_hdbscan(polydata(xyz), xyz, "random %dD" % dim)
    # Any vtkPointSet: an unstructured grid with no cells.
    grid = vtkUnstructuredGrid()
    grid.SetPoints(polydata(xyz).GetPoints())
    grid.GetPointData().ShallowCopy(polydata(xyz).GetPointData())
    check_tree(run_tree(grid).GetOutput(), xyz, "vtkUnstructuredGrid")
    passed("random clouds (3D, 2D at z = 1.5, a vtkUnstructuredGrid): the tree, 4 thresholds, HDBSCAN")


def test_cut_again(rng):
    from emst.vtk import vtkEMSTClusters
    xyz = rng.random((1500, 3))
    tree = run_tree(polydata(xyz))
    clusters = vtkEMSTClusters()
    clusters.SetInputConnection(tree.GetOutputPort())
    for t in (0.03, 0.05, 0.08):
        clusters.SetThreshold(t)
        clusters.Update()
    check(clusters.GetTreeUploads() == 1, "3 thresholds: %d tree uploads" % clusters.GetTreeUploads())
    clusters.SetCutMode(clusters.NUMBER_OF_CLUSTERS)
    clusters.SetNumberOfClusters(7)
    clusters.Update()
    check(field(clusters.GetOutput(), "NumberOfClusters") == 7, "NumberOfClusters mode")
    clusters.SetCutMode(clusters.THRESHOLD)
    clusters.SetThreshold(-1)
    clusters.Update()
    messages = clusters.GetOutput().GetFieldData().GetAbstractArray("ClusterMessages")
    check(any("middle of the edge lengths" in messages.GetValue(k) for k in range(messages.GetNumberOfValues())),
          "Threshold -1: no note")
    passed("vtkEMSTClusters: 3 thresholds cut one tree upload; NumberOfClusters 7 gives 7; Threshold -1 noted")


def test_ghosts(rng):
    from vtkmodules.vtkCommonDataModel import vtkDataSetAttributes
    xyz = rng.random((1200, 3))
    ghosts = np.zeros(len(xyz), np.uint8)
    ghosts[::7] = vtkDataSetAttributes.DUPLICATEPOINT
    ghosts[3::11] = vtkDataSetAttributes.HIDDENPOINT
    ghosts[5::13] |= np.uint8(32)  # a bit of no meaning for points: ignored
    xyz[40] = np.nan  # non-finite: also left out
    in_tree = ((ghosts & (vtkDataSetAttributes.DUPLICATEPOINT | vtkDataSetAttributes.HIDDENPOINT)) == 0)
    finite = in_tree & np.isfinite(xyz).all(axis=1)
    data = polydata(xyz, ghosts)
    tree = run_tree(data)
    check_tree(tree.GetOutput(), xyz, "ghosts", finite)
    check(field(tree.GetOutput(), "EMSTInput").endswith("%d ghost points left out" % (~in_tree).sum()),
          "ghosts: EMSTInput %r" % field(tree.GetOutput(), "EMSTInput"))
    check_clusters(tree, xyz, 0.06, 2, "ghosts", finite)
    check_hdbscan(data, xyz, "ghosts", finite)
    passed("ghosts: %d DUPLICATEPOINT/HIDDENPOINT and a NaN point left out of the tree, the clusters and "
           "HDBSCAN; the bit 32 ignored" % (~in_tree).sum())


def check_error(algorithm, label, word):
    errors = Errors(algorithm)
    algorithm.Update()  # must not raise
    out = algorithm.GetOutput()
    check(len(errors.messages) == 1 and word in errors.messages[0], "%s: errors %s" % (label, errors.messages))
    check(out.GetNumberOfPoints() == 0 and out.GetNumberOfLines() == 0, "%s: output not empty" % label)
    messages = out.GetFieldData().GetAbstractArray(
        "ClusterMessages" if out.GetFieldData().GetAbstractArray("ClusterMessages") else "EMSTMessages")
    check(any(messages.GetValue(k).startswith("error: ") for k in range(messages.GetNumberOfValues())),
          "%s: no error in the messages" % label)
    return errors.messages[0]


def test_errors(rng):
    import emst
    from emst.vtk import vtkEMSTClusters, vtkEMSTEuclideanMinimumSpanningTree, vtkEMSTHdbscanClusters
    from vtkmodules.vtkCommonDataModel import vtkCellArray
    tree = vtkEMSTEuclideanMinimumSpanningTree()
    tree.SetInputData(polydata(np.array([[-1e308, 0, 0], [1e308, 0, 0], [0, 0, 0]])))
    check_error(tree, "range overflow", "overflow")
    check(field(tree.GetOutput(), "EMSTBackend") == "none (error)" and field(tree.GetOutput(), "EMSTBackendId") == 0,
          "error: EMSTBackend")
    check(tree.GetOutput().GetCellData().GetArray("EdgeLength") is not None, "error: no empty EdgeLength")
    # The next good input runs normally.
    xyz = rng.random((100, 3))
    tree.SetInputData(polydata(xyz))
    tree.Update()
    check(tree.GetOutput().GetNumberOfLines() == 99, "no recovery after an error")
    # A line to a point that does not exist.
    bad = polydata(xyz)
    lines = vtkCellArray()
    lines.InsertNextCell(2, [0, 1])
    lines.InsertNextCell(2, [1, 500])
    bad.SetLines(lines)
    clusters = vtkEMSTClusters()
    clusters.SetInputData(bad)
    clusters.SetThreshold(1.0)
    check_error(clusters, "bad line", "does not exist")
    hdbscan = vtkEMSTHdbscanClusters()
    hdbscan.SetInputData(polydata(xyz[:4]))
    hdbscan.SetMinimumSamples(10)
    check_error(hdbscan, "MinimumSamples above the points", "")
    if not emst.cuda_available()[0]:
        cuda = vtkEMSTEuclideanMinimumSpanningTree()
        cuda.SetBackendToCUDA()
        cuda.SetInputData(polydata(xyz))
        check_error(cuda, "CUDA without a GPU", "")
    # Only NaN points: the points, no lines, no error (as the C++ filter).
    nan = vtkEMSTEuclideanMinimumSpanningTree()
    errors = Errors(nan)
    nan.SetInputData(polydata(np.full((5, 3), np.nan)))
    nan.Update()
    check(not errors.messages and nan.GetOutput().GetNumberOfPoints() == 5 and nan.GetOutput().GetNumberOfLines() == 0,
          "NaN-only: %s" % errors.messages)
    passed("errors: an ErrorEvent and an empty output (range overflow, a bad line, MinimumSamples > n, CUDA "
           "without a GPU), Update() never raising; NaN-only: 5 points, no lines, no error")


def test_pyvista(rng):
    import emst
    import pyvista
    from emst.vtk import vtkEMSTClusters, vtkEMSTEuclideanMinimumSpanningTree, vtkEMSTHdbscanClusters
    centres = np.array([[0, 0, 0], [4, 0, 0], [0, 5, 1]], float)
    xyz = np.vstack([c + 0.3 * rng.normal(size=(300, 3)) for c in centres])
    mesh = pyvista.PolyData(xyz)
    mesh.point_data["Weight"] = rng.random(len(xyz))
    tree = vtkEMSTEuclideanMinimumSpanningTree()
    tree.SetInputData(mesh)
    clusters = vtkEMSTClusters()
    clusters.SetInputConnection(tree.GetOutputPort())
    clusters.SetThreshold(1.0)
    clusters.SetMinimumClusterSize(20)
    clusters.Update()
    out = pyvista.wrap(clusters.GetOutput())
    edges, lengths = emst.minimum_spanning_tree(mesh.points)
    t = pyvista.wrap(tree.GetOutput())
    check(t.n_lines == len(xyz) - 1 and np.array_equal(t.lines.reshape(-1, 3)[:, 1:], edges)
          and np.array_equal(t.cell_data["EdgeLength"], lengths), "pyvista: the tree differs")
    check(np.array_equal(out.point_data["ClusterId"], emst.fof_labels(mesh.points, 1.0, 20)),
          "pyvista: ClusterId differs from fof_labels")
    check(int(out.field_data["NumberOfClusters"][0]) == 3, "pyvista: 3 blobs gave %s clusters"
          % out.field_data["NumberOfClusters"])
    check(np.array_equal(out.point_data["Weight"], mesh.point_data["Weight"]), "pyvista: point array lost")
    hdbscan = vtkEMSTHdbscanClusters()
    hdbscan.SetInputData(mesh)
    hdbscan.Update()
    h = pyvista.wrap(hdbscan.GetOutput())
    check(np.array_equal(h.point_data["ClusterId"], emst.hdbscan(mesh.points)[0]), "pyvista: HDBSCAN differs")
    passed("pyvista.PolyData -> tree -> clusters (3 blobs, 3 clusters) and HDBSCAN, wrapped back by pyvista")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", action="append", default=[], help="a folder of .f32 sets and .ref.json")
    parser.add_argument("--sets-only", action="store_true", help="only the data-set checks")
    args = parser.parse_args()
    try:
        import emst.vtk  # noqa: F401
        import pyvista  # noqa: F401
    except ImportError as error:
        print("SKIPPED: emst.vtk or pyvista is not importable in %s (%s)" % (sys.prefix, error))
        return SKIP
    os.environ.pop("EMST_BACKEND", None)
    rng = np.random.default_rng(15)
    sets = sorted(f for d in args.data_dir if os.path.isdir(d) for f in glob.glob(os.path.join(d, "*.f32"))
                  if os.path.exists(f[:-4] + ".ref.json"))
    check(sets, "no data sets in %s" % args.data_dir)
    for f32 in sets:
        test_data_set(f32)
    if args.sets_only:
        return 0
    test_random(rng)
    test_cut_again(rng)
    test_ghosts(rng)
    test_errors(rng)
    test_pyvista(rng)
    return 0


if __name__ == "__main__":
    sys.exit(main())
