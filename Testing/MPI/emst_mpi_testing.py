# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""Helpers of the MPI, pvserver and Catalyst tests: run the filters serially for a reference,
summarise a tree and a clustering in a form that does not depend on the order of the points
(which gathering from several ranks changes), compare two of them, and read .pvtp files back.

A clustering is compared as a partition: each point (named by an id array that travels with it,
PointIndex or ParticleId) gets the smallest id of its cluster as label, -1 for noise. Two runs
agree when the labels are equal point for point, whatever cluster numbers they chose."""
import math
import os
import sys

import numpy as np
from vtkmodules.util import numpy_support

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Python"))
import emst_testing as t  # noqa: E402

TABLE_COLUMNS = ("Size", "Centroid", "BoundsMin", "BoundsMax", "LongestEdge")

# The start of a ProgrammableSource script that reads a data set's .f32 file on every rank: imports,
# this rank's piece number (piece of pieces) and the file's points as values (n, dim). The caller
# appends the lines that choose this rank's points and fills in %(f32)r.
READ_SET_IN_SOURCE = """
import numpy as np
from vtkmodules.util import numpy_support as ns
from vtkmodules.vtkCommonCore import vtkPoints
from vtkmodules.vtkCommonDataModel import vtkCellArray
from vtkmodules.vtkCommonExecutionModel import vtkStreamingDemandDrivenPipeline as sddp
info = self.GetOutputInformation(0)
piece = info.Get(sddp.UPDATE_PIECE_NUMBER())
pieces = info.Get(sddp.UPDATE_NUMBER_OF_PIECES())
with open(%(f32)r, 'rb') as f:
    header = f.read(12)
    n = int(np.frombuffer(header[:8], '<u8')[0])
    dim = int(np.frombuffer(header[8:], '<u4')[0])
    values = np.frombuffer(f.read(), '<f4').reshape(n, dim)
"""


# The end of such a source script: the points `mine` (indices into values) as the output's points,
# one vertex cell each (RedistributeDataSet moves cells, not points) and point array PointIndex,
# their indices in the file; a rank without points outputs the same arrays, empty.
KEEP_MINE = """
out = self.GetPolyDataOutput()
xyz = np.zeros((len(mine), 3), np.float32)
xyz[:, :dim] = values[mine]
points = vtkPoints()
points.SetData(ns.numpy_to_vtk(xyz, deep=True))
out.SetPoints(points)
verts = vtkCellArray()
verts.SetData(ns.numpy_to_vtk(np.arange(len(mine) + 1, dtype=np.int64), deep=True),
              ns.numpy_to_vtk(np.arange(len(mine), dtype=np.int64), deep=True))
out.SetVerts(verts)
index = ns.numpy_to_vtk(mine.astype(np.int64), deep=True)
index.SetName('PointIndex')
out.GetPointData().AddArray(index)
"""

# A programmable filter's script that adds point array Rank: the rank holding each point.
ADD_RANK = """
import numpy as np
from vtkmodules.util import numpy_support as ns
from vtkmodules.vtkParallelCore import vtkMultiProcessController
out = self.GetOutput()
out.ShallowCopy(self.GetInput())
rank = ns.numpy_to_vtk(np.full(out.GetNumberOfPoints(),
    vtkMultiProcessController.GetGlobalController().GetLocalProcessId(), np.int32), deep=True)
rank.SetName('Rank')
out.GetPointData().AddArray(rank)
"""


def load(plugin):
    """paraview.simple with the plugin: loaded by path, unless the emst-* wrappers already loaded
    it through PV_PLUGIN_PATH (loading it a second time logs an error on every rank)."""
    import paraview.simple as simple

    if hasattr(simple, "EuclideanMinimumSpanningTree"):
        t._simple = simple
        return simple
    return t.load(plugin)


def array(data, name, association="point"):
    attributes = {"point": data.GetPointData(), "cell": data.GetCellData(),
                  "field": data.GetFieldData(), "row": None}[association]
    if association == "row":
        a = data.GetColumnByName(name)
    else:
        a = attributes.GetAbstractArray(name)
    assert a is not None, "%s array %s missing" % (association, name)
    return numpy_support.vtk_to_numpy(a)


def child_environment(extra=None):
    """The environment for an mpiexec started from pvpython. pvpython initialises MPI as a
    singleton, which puts OpenMPI's own variables (PMIX_*, OMPI_COMMAND, OMPI_MCA_ess, ...) into
    its environment; a child mpiexec that inherits them takes itself for a rank of that singleton
    and exits at once with status 1. User settings (other OMPI_MCA_* values) are kept."""
    singleton = ("OMPI_MCA_ess", "OMPI_MCA_pmix", "OMPI_MCA_orte_")
    env = {}
    for key, value in os.environ.items():
        if key.startswith(("PMIX_", "ORTE_", "OPAL_")) or key.startswith(singleton):
            continue
        if key.startswith("OMPI_") and not key.startswith("OMPI_MCA_"):
            continue
        env[key] = value
    env.update(extra or {})
    return env


def tree_summary(tree, id_name):
    """Order-free facts of a tree output: points, lines, fsum of EdgeLength, the sorted lengths,
    and the tree's edges as sorted (id, id) pairs of the id array."""
    i, j, length = t.edges(tree)
    ids = array(tree, id_name).astype(np.int64)
    a, b = ids[i], ids[j]
    pairs = np.stack([np.minimum(a, b), np.maximum(a, b)], 1)
    pairs = pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]
    return {"points": tree.GetNumberOfPoints(), "lines": len(length),
            "total": math.fsum(length.tolist()), "lengths": np.sort(length), "pairs": pairs}


def compare_trees(got, ref, label):
    """The same tree up to the order of the points: same counts, bit-identical sorted edge
    lengths (both computed in double from the same float32 coordinates) and the same total."""
    assert got["points"] == ref["points"], "%s: %d points, serial run %d" % (label, got["points"], ref["points"])
    assert got["lines"] == ref["lines"], "%s: %d lines, serial run %d" % (label, got["lines"], ref["lines"])
    worst = float(np.max(np.abs(got["lengths"] - ref["lengths"]))) if got["lines"] else 0.0
    assert worst == 0.0, "%s: sorted edge lengths differ from the serial run's by up to %.3g" % (label, worst)
    assert abs(got["total"] - ref["total"]) <= 1e-12 * max(ref["total"], 1e-300), \
        "%s: total %.17g, serial run %.17g" % (label, got["total"], ref["total"])
    # The tree itself: the same edges between the same points, unless equal lengths allowed another
    # choice (then the sorted lengths above still agree).
    same = got["pairs"].shape == ref["pairs"].shape and np.array_equal(got["pairs"], ref["pairs"])
    ties = len(np.unique(ref["lengths"])) < len(ref["lengths"])
    assert same or ties, "%s: a different tree with no tied lengths" % label
    return same


def partition(ids, cluster_ids):
    """Per point, ordered by id: the smallest id of its cluster, or -1 for noise."""
    ids = np.asarray(ids, np.int64)
    cluster_ids = np.asarray(cluster_ids, np.int64)
    order = np.argsort(ids, kind="stable")
    ids, cluster_ids = ids[order], cluster_ids[order]
    assert np.array_equal(ids, np.arange(len(ids))), "ids are not 0..n-1 once each"
    labels = np.full(len(ids), -1, np.int64)
    kept = cluster_ids >= 0
    if np.any(kept):
        first = np.full(int(cluster_ids.max()) + 1, np.iinfo(np.int64).max, np.int64)
        np.minimum.at(first, cluster_ids[kept], ids[kept])
        labels[kept] = first[cluster_ids[kept]]
    return labels


def clusters_summary(points, table, id_name):
    """Order-free facts of MSTClusters' outputs: the number of clusters, the partition of the
    points, the ClusterId/ClusterSize consistency, and the table rows sorted by their values."""
    ids = array(points, id_name)
    cluster = array(points, "ClusterId").astype(np.int64)
    size = array(points, "ClusterSize").astype(np.int64)
    count = int(array(points, "NumberOfClusters", "field")[0])
    kept = cluster >= 0
    # ClusterId 0 = largest, then by decreasing size; ClusterSize = members of the point's cluster.
    sizes = np.bincount(cluster[kept], minlength=count) if count else np.zeros(0, np.int64)
    assert len(sizes) == count and (count == 0 or sizes.min() > 0), \
        "ClusterId values are not 0..%d, each used" % (count - 1)
    assert np.all(np.diff(sizes) <= 0), "ClusterId is not ordered by decreasing size"
    assert np.array_equal(size[kept], sizes[cluster[kept]]), "ClusterSize disagrees with the ClusterId counts"
    rows = table_rows(table)
    assert len(rows) == count, "the cluster table has %d rows for %d clusters" % (len(rows), count)
    assert np.array_equal(rows[:, 0].astype(np.int64), np.sort(sizes)[::-1]), "table sizes differ from the point counts"
    return {"clusters": count, "labels": partition(ids, cluster), "sizes": sizes,
            "noise": int(np.count_nonzero(~kept)), "rows": rows}


def table_rows(table):
    """The cluster table's numbers (Size, Centroid, BoundsMin, BoundsMax, LongestEdge) as one row
    per cluster, sorted so that the order of the points does not matter."""
    if table.GetNumberOfRows() == 0:
        return np.zeros((0, 1 + 3 + 3 + 3 + 1))
    columns = []
    for name in TABLE_COLUMNS:
        values = column(table, name)
        columns.append(values.reshape(len(values), -1))
    rows = np.concatenate(columns, 1)
    return rows[np.lexsort(rows.T[::-1])][::-1]


def column(table, name):
    """A table column as float64 (rows x components); a CSV file splits a vector column into
    'Name:0', 'Name:1', ... (ParaView's writer) columns, which are put together again."""
    a = table.GetColumnByName(name)
    if a is not None:
        values = numpy_support.vtk_to_numpy(a).astype(np.float64)
        return values.reshape(len(values), -1)
    parts = []
    while table.GetColumnByName("%s:%d" % (name, len(parts))) is not None:
        parts.append(numpy_support.vtk_to_numpy(table.GetColumnByName("%s:%d" % (name, len(parts)))))
    assert parts, "table column %s missing (columns: %s)" % (
        name, [table.GetColumnName(k) for k in range(table.GetNumberOfColumns())])
    return np.stack(parts, 1).astype(np.float64)


def compare_clusters(got, ref, label):
    assert got["clusters"] == ref["clusters"], "%s: %d clusters, serial run %d" % (label, got["clusters"], ref["clusters"])
    assert got["noise"] == ref["noise"], "%s: %d noise points, serial run %d" % (label, got["noise"], ref["noise"])
    differ = int(np.count_nonzero(got["labels"] != ref["labels"]))
    assert differ == 0, "%s: %d points are in another cluster than in the serial run" % (label, differ)
    assert np.array_equal(got["sizes"], ref["sizes"]), "%s: cluster sizes differ" % label
    a, b = got["rows"], ref["rows"]
    assert a.shape == b.shape, "%s: table %s, serial run %s" % (label, a.shape, b.shape)
    scale = np.maximum(np.abs(b), 1.0)
    worst = float(np.max(np.abs(a - b) / scale)) if a.size else 0.0
    assert worst <= 1e-9, "%s: cluster table differs from the serial run's by %.3g (relative)" % (label, worst)


def run_serial(simple, data, threshold=None, linking_length=None, minimum_size=1):
    """The tree and, when asked, the clusters of a vtkPolyData in this (serial) process; returns
    copies of (tree, cluster points, cluster table)."""
    producer = simple.TrivialProducer()
    producer.GetClientSideObject().SetOutput(data)
    tree = simple.EuclideanMinimumSpanningTree(Input=producer)
    tree.UpdatePipeline()
    tree_out = copy(tree.GetClientSideObject().GetOutputDataObject(0))
    points = table = None
    if threshold is not None or linking_length is not None:
        clusters = make_clusters(simple, tree, threshold, linking_length, minimum_size)
        clusters.UpdatePipeline()
        points = copy(clusters.GetClientSideObject().GetOutputDataObject(0))
        table = copy(clusters.GetClientSideObject().GetOutputDataObject(1))
        simple.Delete(clusters)
    simple.Delete(tree)
    simple.Delete(producer)
    return tree_out, points, table


def make_clusters(simple, tree, threshold=None, linking_length=None, minimum_size=1):
    clusters = simple.MSTClusters(Input=tree)
    if threshold is not None:
        clusters.CutMode = "Threshold"
        clusters.Threshold = threshold
    else:
        clusters.CutMode = "Linking Length"
        clusters.LinkingLength = linking_length
    clusters.MinimumClusterSize = minimum_size
    return clusters


def copy(data):
    result = data.NewInstance()
    result.DeepCopy(data)
    return result


def ghost_copies(data):
    """Mask of a distributed tree's ghost copies: vtkGhostType DUPLICATEPOINT and a global id (points
    that the input already flagged as ghosts have EMSTGlobalId -1). All False for other outputs."""
    flags = data.GetPointData().GetArray("vtkGhostType")
    ids = data.GetPointData().GetArray("EMSTGlobalId")
    if flags is None or ids is None:
        return np.zeros(data.GetNumberOfPoints(), bool)
    return ((numpy_support.vtk_to_numpy(flags) & 1) != 0) & (numpy_support.vtk_to_numpy(ids) >= 0)


def collapse_ghosts(data, id_name):
    """A distributed tree or clustering read back whole (all pieces appended) as one serial output:
    the points held by their ranks (ghost copies dropped, each line's ghost end replaced by the held
    point of the same `id_name`), the lines sorted by length (stable), field data kept. The same
    output, point for point, when there are no ghost copies."""
    from vtkmodules.vtkCommonDataModel import vtkCellArray

    ghost = ghost_copies(data)
    held = without_ghosts(data, ~ghost)
    lines = data.GetLines()
    if lines is None or lines.GetNumberOfCells() == 0:
        return held
    ids = array(data, id_name).astype(np.int64)
    position = np.full(ids.max() + 1, -1, np.int64)
    position[ids[~ghost]] = np.arange(np.count_nonzero(~ghost))
    i, j, length = t.edges(data)
    i, j = position[ids[i]], position[ids[j]]
    assert np.all(i >= 0) and np.all(j >= 0), "a line's end is held by no rank"
    order = np.argsort(length, kind="stable")
    connectivity = np.stack([i[order], j[order]], 1).ravel()
    cells = vtkCellArray()
    cells.SetData(numpy_support.numpy_to_vtk(np.arange(0, 2 * len(order) + 1, 2, dtype=np.int64), deep=True),
                  numpy_support.numpy_to_vtk(connectivity.astype(np.int64), deep=True))
    held.SetLines(cells)
    lengths = numpy_support.numpy_to_vtk(length[order], deep=True)
    lengths.SetName("EdgeLength")
    held.GetCellData().AddArray(lengths)
    return held


def without_ghosts(data, keep):
    """The points `keep` (a mask) of a polydata, with their point arrays and the field data, no
    cells: each point of a distributed output once, without the ghost copies."""
    from vtkmodules.vtkCommonCore import vtkPoints
    from vtkmodules.vtkCommonDataModel import vtkPolyData

    keep = np.nonzero(keep)[0]
    result = vtkPolyData()
    points = vtkPoints()
    points.SetData(numpy_support.numpy_to_vtk(numpy_support.vtk_to_numpy(data.GetPoints().GetData())[keep], deep=True))
    result.SetPoints(points)
    pd = data.GetPointData()
    for k in range(pd.GetNumberOfArrays()):
        a = pd.GetArray(k)
        if a is None:
            continue
        values = numpy_support.numpy_to_vtk(numpy_support.vtk_to_numpy(a)[keep], deep=True,
                                            array_type=a.GetDataType())
        values.SetName(a.GetName())
        result.GetPointData().AddArray(values)
    result.GetFieldData().ShallowCopy(data.GetFieldData())
    return result


def save_summaries(path, tree, clusters=None):
    arrays = {"tree_" + k: np.asarray(v) for k, v in tree.items()}
    if clusters is not None:
        arrays.update({"clusters_" + k: np.asarray(v) for k, v in clusters.items()})
    np.savez(path, **arrays)


def load_summaries(path):
    data = np.load(path)
    tree, clusters = {}, {}
    for key in data.files:
        kind, name = key.split("_", 1)
        value = data[key]
        if value.ndim == 0:
            value = value.item()
        (tree if kind == "tree" else clusters)[name] = value
    return tree, (clusters or None)


def read_pvtp(path):
    """A .pvtp file with all its pieces, read by VTK's reader in this process."""
    from vtkmodules.vtkIOXML import vtkXMLPPolyDataReader

    assert os.path.exists(path), "%s was not written" % path
    reader = vtkXMLPPolyDataReader()
    reader.SetFileName(path)
    reader.Update()
    return copy(reader.GetOutput())


def pvtp_pieces(path):
    """The piece files a .pvtp names, checked to exist."""
    import re

    with open(path) as f:
        text = f.read()
    pieces = re.findall(r'<Piece Source="([^"]+)"', text)
    for piece in pieces:
        full = os.path.join(os.path.dirname(path), piece)
        assert os.path.exists(full), "%s names %s, which is missing" % (path, piece)
    return pieces


def read_csv_table(path):
    """A CSV extract of a vtkTable as a vtkTable (VTK's delimited text reader)."""
    from vtkmodules.vtkIOInfovis import vtkDelimitedTextReader

    assert os.path.exists(path), "%s was not written" % path
    reader = vtkDelimitedTextReader()
    reader.SetFileName(path)
    reader.SetHaveHeaders(True)
    reader.SetDetectNumericColumns(True)
    reader.SetForceDouble(True)
    reader.Update()
    return copy(reader.GetOutput())
