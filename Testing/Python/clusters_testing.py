# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""Helpers of the MST Clusters and Single Linkage Hierarchy tests (test_clusters_*.py): a
producer -> tree -> clusters pipeline whose outputs are copied out, and references computed
independently of the filters under test: scipy's connected components over the tree's edges
(the tree itself is checked against Prim and the reference weights by the other tests), a numpy
ranking of the groups by the documented rule, numpy tables. Every check raises AssertionError with
the numbers on failure."""
import math

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from vtkmodules.util import numpy_support

import emst_testing as t

VTK_INT = 6
VTK_DOUBLE = 11
VTK_ID_TYPE = 12
MODES = {0: "Threshold", 1: "Linking Length", 2: "Number Of Clusters"}

simple = None


def load(plugin):
    """Loads the plugin; returns paraview.simple with MSTClusters and SingleLinkageHierarchy."""
    global simple
    simple = t.load(plugin)
    for name in ("MSTClusters", "SingleLinkageHierarchy"):
        assert hasattr(simple, name), "the plugin has no %s (pvpython name of the new filter)" % name
    return simple


def copy(data):
    result = data.NewInstance()
    result.DeepCopy(data)
    return result


class Pipeline:
    """TrivialProducer(data) -> EuclideanMinimumSpanningTree -> MSTClusters, in the builtin session."""

    def __init__(self, data, tree_properties=None, **cluster_properties):
        self.producer = simple.TrivialProducer()
        self.producer.GetClientSideObject().SetOutput(data)
        self.tree = simple.EuclideanMinimumSpanningTree(Input=self.producer)
        for name, value in (tree_properties or {}).items():
            setattr(self.tree, name, value)
        self.tree.UpdatePipeline()
        self.clusters = simple.MSTClusters(Input=self.tree)
        for name, value in cluster_properties.items():
            setattr(self.clusters, name, value)
        self.hierarchy_proxy = None

    def tree_output(self):
        self.tree.UpdatePipeline()
        return copy(self.tree.GetClientSideObject().GetOutputDataObject(0))

    def cut(self, **properties):
        """Sets the MSTClusters properties, updates, returns copies of the 3 outputs."""
        for name, value in properties.items():
            setattr(self.clusters, name, value)
        self.clusters.UpdatePipeline()
        algorithm = self.clusters.GetClientSideObject()
        assert algorithm.GetNumberOfOutputPorts() == 3, \
            "MSTClusters has %d output ports, expected 3" % algorithm.GetNumberOfOutputPorts()
        return [copy(algorithm.GetOutputDataObject(port)) for port in range(3)]

    def hierarchy(self):
        if self.hierarchy_proxy is None:
            self.hierarchy_proxy = simple.SingleLinkageHierarchy(Input=self.tree)
        self.hierarchy_proxy.UpdatePipeline()
        return copy(self.hierarchy_proxy.GetClientSideObject().GetOutputDataObject(0))

    def delete(self):
        for proxy in (self.hierarchy_proxy, self.clusters, self.tree, self.producer):
            if proxy is not None:
                simple.Delete(proxy)


# ---- references ----------------------------------------------------------------------------

def groups(n, i, j):
    """Connected-component label of each of n points for the graph with edges (i, j) (scipy)."""
    if n == 0:
        return np.zeros(0, np.int64)
    graph = coo_matrix((np.ones(len(i)), (np.asarray(i, np.int64), np.asarray(j, np.int64))), shape=(n, n))
    _, labels = connected_components(graph, directed=False)
    return labels.astype(np.int64)


def cut_groups(n, i, j, length, threshold):
    """Groups of the friends-of-friends cut: the tree edges of length <= threshold kept."""
    keep = length <= threshold
    return groups(n, i[keep], j[keep])


def sorted_edges(i, j, length):
    """The tree's edges in the documented total order (length, min(i, j), max(i, j))."""
    a, b = np.minimum(i, j), np.maximum(i, j)
    order = np.lexsort((b, a, length))
    return a[order], b[order], length[order]


def ranked(labels, minimum=1):
    """The documented ids of a partition: groups of >= minimum points ranked by decreasing size,
    ties by their smallest point index; smaller groups -1. Returns (ClusterId per point,
    ClusterSize per point, sizes by id, first point by id)."""
    n = len(labels)
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)
    _, labels = np.unique(labels, return_inverse=True)
    sizes = np.bincount(labels)
    first = np.full(len(sizes), n, np.int64)
    np.minimum.at(first, labels, np.arange(n))
    order = np.lexsort((first, -sizes))
    order = order[sizes[order] >= minimum]
    rank = np.full(len(sizes), -1, np.int64)
    rank[order] = np.arange(len(order))
    return rank[labels], sizes[labels], sizes[order], first[order]


def ranked_in_tree(in_tree, labels, minimum=1):
    """ranked() over the points in the tree (in_tree: bool per point) with their group labels
    (labels of the other points are ignored); points left out of the tree: ClusterId -1,
    ClusterSize 0, as MSTClusters documents."""
    in_tree = np.asarray(in_tree, bool)
    ids = np.full(len(in_tree), -1, np.int64)
    sizes = np.zeros(len(in_tree), np.int64)
    leaf_ids, leaf_sizes, by_id, first = ranked(np.asarray(labels)[in_tree], minimum)
    ids[in_tree] = leaf_ids
    sizes[in_tree] = leaf_sizes
    return ids, sizes, by_id, np.flatnonzero(in_tree)[first] if len(first) else first


def same_partition(a, b):
    """True when the labellings a and b (any label values) define the same partition."""
    a = np.asarray(a)
    b = np.asarray(b)
    if a.shape != b.shape:
        return False
    if len(a) == 0:
        return True
    pairs = np.unique(np.stack([a, b], 1), axis=0)
    return len(pairs) == len(np.unique(a)) == len(np.unique(b))


def threshold_between(lengths, quantile):
    """A threshold strictly between two distinct tree edge lengths near the given quantile of the
    distinct lengths, where the gap is widest nearby (so that rounding cannot matter)."""
    distinct = np.unique(lengths)
    assert len(distinct) >= 2, "fewer than two distinct edge lengths"
    centre = min(max(int(quantile * (len(distinct) - 1)), 0), len(distinct) - 2)
    lo, hi = max(centre - 10, 0), min(centre + 10, len(distinct) - 2)
    window = np.arange(lo, hi + 1)
    gaps = (distinct[window + 1] - distinct[window]) / np.maximum(distinct[window + 1], 1e-300)
    k = int(window[np.argmax(gaps)])
    return 0.5 * (distinct[k] + distinct[k + 1]), float(gaps.max())


def linking_threshold(xyz, b):
    """b * (V / n)^(1/d): V the volume of the points' bounding box over the axes where it has
    extent, d the number of those axes."""
    xyz = np.asarray(xyz, np.float64)
    extent = xyz.max(0) - xyz.min(0)
    axes = extent > 0
    d = int(np.count_nonzero(axes))
    volume = float(np.prod(extent[axes]))
    return b * (volume / len(xyz)) ** (1.0 / d), d, volume


# ---- reading the outputs -------------------------------------------------------------------

def point_array(data, name, vtk_type=None):
    array = data.GetPointData().GetArray(name)
    assert array is not None, "point array %s missing" % name
    if vtk_type is not None:
        assert array.GetDataType() == vtk_type, "point array %s has VTK type %s (%s), expected %d" % (
            name, array.GetDataType(), array.GetClassName(), vtk_type)
    assert array.GetNumberOfComponents() == 1, "point array %s has %d components" % (name, array.GetNumberOfComponents())
    return numpy_support.vtk_to_numpy(array).astype(np.int64 if vtk_type in (VTK_INT, VTK_ID_TYPE) else np.float64)


def notes(data, name="ClusterMessages"):
    """The strings of a field-data string array (the filters' messages), [] when it is absent."""
    array = data.GetFieldData().GetAbstractArray(name)
    return [array.GetValue(k) for k in range(array.GetNumberOfValues())] if array is not None else []


def column_of_field(data, name):
    """A one-component field-data array as int64 numbers."""
    array = data.GetFieldData().GetArray(name)
    assert array is not None, "field data %s missing" % name
    return numpy_support.vtk_to_numpy(array).astype(np.int64)


def column(table, name, vtk_type=None, components=1):
    array = table.GetColumnByName(name)
    assert array is not None, "table column %s missing (columns: %s)" % (
        name, [table.GetColumnName(k) for k in range(table.GetNumberOfColumns())])
    if vtk_type is not None:
        assert array.GetDataType() == vtk_type, "column %s has VTK type %d (%s), expected %d" % (
            name, array.GetDataType(), array.GetClassName(), vtk_type)
    assert array.GetNumberOfComponents() == components, "column %s has %d components, expected %d" % (
        name, array.GetNumberOfComponents(), components)
    values = numpy_support.vtk_to_numpy(array)
    if components > 1:
        values = values.reshape(-1, components)
    return values.astype(np.int64 if vtk_type in (VTK_INT, VTK_ID_TYPE) else np.float64)


def lines(data):
    """(i, j, EdgeLength) of the lines of a clusters output (0 lines allowed)."""
    if data.GetNumberOfCells() == 0:
        array = data.GetCellData().GetArray("EdgeLength")
        assert array is not None, "cell array EdgeLength missing"
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    return t.edges(data)


def edge_set(i, j, length):
    """Edges as a sorted (m, 3) float array of (min, max, length), for comparisons as sets."""
    a, b = np.minimum(i, j), np.maximum(i, j)
    order = np.lexsort((b, a))
    return np.stack([a[order], b[order], length[order]], 1)


def check_cut(out, tree_out, ids, sizes, label, threshold=None, kept=None, input_arrays=None):
    """Asserts that output 0 of MSTClusters is: the tree's points (and input point arrays),
    ClusterId (vtkIntArray) == ids and ClusterSize (vtkIdTypeArray) == sizes, the tree's edges
    selected by `kept` (a bool mask over the tree's lines; default: length <= threshold) as lines
    with their EdgeLength, and the field data (ClusterThreshold when threshold is given,
    NumberOfClusters, NoisePoints, ClusterBackend, ClusterCutMilliseconds)."""
    n = tree_out.GetNumberOfPoints()
    assert out.GetNumberOfPoints() == n, "%s: %d points, the tree has %d" % (label, out.GetNumberOfPoints(), n)
    if n:
        assert np.array_equal(t.output_points(out), t.output_points(tree_out), equal_nan=True), label + ": points differ from the input's"
    for name, values in (input_arrays or {}).items():
        got = out.GetPointData().GetArray(name)
        assert got is not None, "%s: input point array %s not passed" % (label, name)
        assert np.array_equal(numpy_support.vtk_to_numpy(got), values), "%s: point array %s changed" % (label, name)
    got_ids = point_array(out, "ClusterId", VTK_INT)
    got_sizes = point_array(out, "ClusterSize", VTK_ID_TYPE)
    if not np.array_equal(got_ids, ids):
        bad = np.flatnonzero(got_ids != ids)
        raise AssertionError("%s: ClusterId differs at %d of %d points (first: point %d has %d, expected %d; "
                             "same partition: %s; %d vs %d clusters)"
                             % (label, len(bad), n, bad[0], got_ids[bad[0]], ids[bad[0]],
                                same_partition(got_ids, ids), len(np.unique(got_ids[got_ids >= 0])),
                                len(np.unique(ids[ids >= 0]))))
    if not np.array_equal(got_sizes, sizes):
        bad = np.flatnonzero(got_sizes != sizes)
        raise AssertionError("%s: ClusterSize differs at %d points (first: point %d has %d, expected %d)"
                             % (label, len(bad), bad[0], got_sizes[bad[0]], sizes[bad[0]]))
    ti, tj, tl = t.edges(tree_out) if tree_out.GetNumberOfCells() else (np.zeros(0, np.int64),) * 2 + (np.zeros(0),)
    if kept is None:
        assert threshold is not None
        kept = tl <= threshold
    gi, gj, gl = lines(out)
    expected = edge_set(ti[kept], tj[kept], tl[kept])
    got = edge_set(gi, gj, gl)
    assert got.shape == expected.shape, "%s: %d lines, expected the %d kept tree edges" % (label, len(got), len(expected))
    assert np.array_equal(got, expected), label + ": the lines are not the kept tree edges with their EdgeLength"
    clusters = len(np.unique(ids[ids >= 0]))
    assert int(t.field(out, "NumberOfClusters")) == clusters, "%s: NumberOfClusters %s, expected %d" % (
        label, t.field(out, "NumberOfClusters"), clusters)
    noise = int(np.count_nonzero(ids < 0))
    assert int(t.field(out, "NoisePoints")) == noise, "%s: NoisePoints %s, expected %d" % (
        label, t.field(out, "NoisePoints"), noise)
    if threshold is not None:
        got_t = t.field(out, "ClusterThreshold")
        assert got_t == threshold or abs(got_t - threshold) <= 1e-12 * abs(threshold), \
            "%s: ClusterThreshold %.17g, expected %.17g" % (label, got_t, threshold)
    backend = t.field(out, "ClusterBackend")
    assert isinstance(backend, str) and (backend.startswith("CPU") or backend.startswith("CUDA")), \
        "%s: ClusterBackend %r" % (label, backend)
    ms = t.field(out, "ClusterCutMilliseconds")
    assert math.isfinite(ms) and ms >= 0, "%s: ClusterCutMilliseconds %r" % (label, ms)
    return clusters


def expect_threshold_cut(pipe, tree_out, threshold, minimum, label, input_arrays=None):
    """Cuts at `threshold` in Threshold mode and checks output 0 against the reference."""
    out = pipe.cut(CutMode="Threshold", Threshold=threshold, MinimumClusterSize=minimum)
    n = tree_out.GetNumberOfPoints()
    ti, tj, tl = t.edges(tree_out) if tree_out.GetNumberOfCells() else (np.zeros(0, np.int64),) * 2 + (np.zeros(0),)
    in_tree = np.all(np.isfinite(t.output_points(tree_out)), axis=1) if n else np.zeros(0, bool)
    ids, sizes, _, _ = ranked_in_tree(in_tree, cut_groups(n, ti, tj, tl, threshold), minimum)
    clusters = check_cut(out[0], tree_out, ids, sizes, label, threshold=threshold, input_arrays=input_arrays)
    return out, ids, clusters
