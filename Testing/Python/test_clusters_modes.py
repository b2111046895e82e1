# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""MST Clusters: the three cut modes and the edge cases, each output 0 checked whole (ClusterId,
ClusterSize, kept lines, field data) against scipy's connected components of the tree's kept edges
ranked by the documented rule.

- Threshold mode: below every edge (n singletons, ClusterId = point index), above every edge (one
  cluster), exactly at an edge length (that edge kept), MinimumClusterSize (noise -1) up to more
  than n (no cluster, all noise).
- Ties: integer lattices whose edges equal the threshold are kept (and cut just below it).
- Identical points (all edges of length 0), 0/1/2 points, non-finite points (a forest: the tree
  leaves them without edges, so they are groups of one).
- Number Of Clusters mode: k clusters from the n - k first edges in (length, i, j) order (on a
  lattice, where the order decides), ClusterThreshold = the longest kept edge.
- Linking Length mode: threshold b * (V/n)^(1/d) from numpy's bounding box (3D, 2D, a 3D cloud
  flat in y so d = 2, points on a line so d = 1), default b = 0.2."""
import math

import numpy as np

import clusters_testing as c
import emst_testing as t

args = t.arguments()
c.load(args.plugin)
rng = np.random.default_rng(7)


def empty_edges():
    return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)


def tree_edges(tree):
    return t.edges(tree) if tree.GetNumberOfCells() else empty_edges()


def threshold_cuts(points, label, arrays=None):
    """Threshold mode at the interesting places of one cloud."""
    pipe = c.Pipeline(t.polydata(points, arrays))
    tree = pipe.tree_output()
    n = len(points)
    in_tree = np.all(np.isfinite(points), axis=1)  # non-finite points are in no cluster
    m = int(np.count_nonzero(in_tree))
    i, j, length = tree_edges(tree)
    finite = length[np.isfinite(length)]
    smallest = float(finite.min()) if len(finite) else 0.0
    largest = float(finite.max()) if len(finite) else 0.0
    # Below every edge of non-zero length (a negative Threshold means: not set, and zero-length
    # edges between identical points are kept at any threshold).
    below = smallest / 2 if smallest > 0 else 0.0
    out, ids, clusters = c.expect_threshold_cut(pipe, tree, below, 1, label + ": below every edge", arrays)
    if smallest > 0:
        assert clusters == m and np.array_equal(ids[in_tree], np.arange(m)) and np.all(ids[~in_tree] == -1), \
            label + ": below every edge is not one singleton per point in the tree, in index order"
    out, ids, clusters = c.expect_threshold_cut(pipe, tree, largest * 2 + 1, 1, label + ": above every edge", arrays)
    # A spanning tree of the points in it: one group (none without points in the tree).
    assert clusters == m - len(length), "%s: above every edge: %d clusters, expected %d" % (label, clusters, m - len(length))
    out, ids, clusters = c.expect_threshold_cut(pipe, tree, largest, 1, label + ": at the longest edge", arrays)
    if len(length) > 2:
        exact = float(np.sort(length)[len(length) // 2])
        out, ids, _ = c.expect_threshold_cut(pipe, tree, exact, 1, label + ": exactly at the median edge", arrays)
        _, _, kept = c.lines(out[0])
        assert np.count_nonzero(kept == exact) == np.count_nonzero(length == exact), label + ": an edge equal to the threshold was cut"
        for minimum in (2, 5, 17):
            c.expect_threshold_cut(pipe, tree, exact, minimum, "%s: median edge, MinimumClusterSize %d" % (label, minimum), arrays)
    out, ids, clusters = c.expect_threshold_cut(pipe, tree, largest * 2 + 1, n + 1, label + ": MinimumClusterSize n + 1", arrays)
    assert clusters == 0 and np.all(ids == -1), label + ": MinimumClusterSize > n left a cluster"
    assert out[1].GetNumberOfRows() == 0, "%s: cluster table has %d rows with no cluster" % (label, out[1].GetNumberOfRows())
    assert int(t.field(out[0], "NoisePoints")) == n
    t.passed("%s: below/above every edge, exactly at edges, minimum sizes up to n + 1 (%d points, %d edges)"
             % (label, n, len(length)))
    return pipe, tree


# A random 3D cloud with point arrays (passed through).
cloud = rng.normal(0, 1, (3000, 3)).astype(np.float32) * np.float32([1, 2, 0.5])
arrays = {"Mass": rng.random(3000), "Tag": np.arange(3000, dtype=np.int32)}
pipe = c.Pipeline(t.polydata(cloud, arrays))
defaults = {"CutMode": "Threshold", "LinkingLength": 0.2, "NumberOfClusters": 10, "MinimumClusterSize": 1,
            "HistogramBins": 100}
for name, value in defaults.items():
    got = pipe.clusters.GetPropertyValue(name)
    assert got == value, "default %s is %r, expected %r" % (name, got, value)
pipe.delete()
t.passed("defaults: %s" % defaults)
pipe, tree = threshold_cuts(cloud, "3D normal cloud", arrays)
n = len(cloud)


def expect_k(pipe, tree, k, label, minimum=1, arrays=None):
    n = tree.GetNumberOfPoints()
    ti, tj, tl = t.edges(tree)
    si, sj, sl = c.sorted_edges(ti, tj, tl)
    keep = n - k
    order = {(a, b): r for r, (a, b) in enumerate(zip(si.tolist(), sj.tolist()))}
    rank = np.array([order[(min(a, b), max(a, b))] for a, b in zip(ti.tolist(), tj.tolist())])
    kept = rank < keep
    ids, sizes, _, _ = c.ranked(c.groups(n, si[:keep], sj[:keep]), minimum)
    out = pipe.cut(CutMode="Number Of Clusters", NumberOfClusters=k, MinimumClusterSize=minimum)
    threshold = float(sl[keep - 1]) if keep > 0 else None
    c.check_cut(out[0], tree, ids, sizes, "%s: NumberOfClusters %d" % (label, k), threshold=threshold, kept=kept,
                input_arrays=arrays)
    groups = len(np.unique(c.groups(n, si[:keep], sj[:keep])))
    assert groups == k, "%s: reference has %d groups for k = %d" % (label, groups, k)
    if minimum == 1:
        assert int(t.field(out[0], "NumberOfClusters")) == k


for k in (1, 2, 10, 37, n // 2, n - 1, n):
    expect_k(pipe, tree, k, "3D normal cloud", arrays=arrays)
expect_k(pipe, tree, 200, "3D normal cloud, MinimumClusterSize 3", minimum=3, arrays=arrays)
t.passed("Number Of Clusters mode: exactly k clusters from the n - k shortest edges, k = 1 ... n")
pipe.delete()


def linking(points, b, label):
    """Linking Length mode with b (None: the default, 0.2)."""
    pipe = c.Pipeline(t.polydata(points))
    tree = pipe.tree_output()
    n = len(points)
    threshold, d, volume = c.linking_threshold(points, 0.2 if b is None else b)
    i, j, length = t.edges(tree)
    assert np.min(np.abs(length - threshold)) > 1e-9 * threshold, label + ": an edge too close to the threshold (pick another b)"
    out = pipe.cut(CutMode="Linking Length", MinimumClusterSize=1, **({} if b is None else {"LinkingLength": b}))
    b = 0.2 if b is None else b
    got = t.field(out[0], "ClusterThreshold")
    assert abs(got - threshold) <= 1e-12 * threshold, "%s: ClusterThreshold %.17g, expected b (V/n)^(1/d) = %.17g " \
        "(b %g, V %.17g, n %d, d %d)" % (label, got, threshold, b, volume, n, d)
    ids, sizes, _, _ = c.ranked(c.cut_groups(n, i, j, length, threshold))
    clusters = c.check_cut(out[0], tree, ids, sizes, label, threshold=threshold)
    t.passed("%s: b = %g, d = %d, threshold %.17g, %d clusters" % (label, b, d, threshold, clusters))
    pipe.delete()


linking(cloud, None, "Linking Length default b, 3D normal cloud")
box3 = (rng.random((4000, 3)) * [10, 4, 2]).astype(np.float32)
linking(box3, 0.2, "Linking Length 3D box")
linking(box3, 0.55, "Linking Length 3D box")
plane = box3.copy()
plane[:, 2] = 0
linking(plane, 0.3, "Linking Length 2D (z = 0)")
flat_y = box3.copy()
flat_y[:, 1] = 5.0
linking(flat_y, 0.4, "Linking Length 3D points flat in y (d = 2 over x, z)")
line = np.zeros((500, 3), np.float32)
line[:, 0] = rng.random(500) * 100
linking(line, 0.7, "Linking Length, points on a line (d = 1)")

# Ties: integer lattices. Two 10 x 10 blocks of spacing 1 whose facing columns are exactly 3 apart.
lattice = np.array([(x + 12 * b, y, 0) for b in range(2) for x in range(10) for y in range(10)], np.float32)
pipe = c.Pipeline(t.polydata(lattice))
tree = pipe.tree_output()
for threshold, clusters in ((1.0, 2), (float(np.nextafter(1.0, 0)), 200), (3.0, 1), (float(np.nextafter(3.0, 0)), 2),
                            (2.0, 2)):
    out, ids, got = c.expect_threshold_cut(pipe, tree, threshold, 1, "lattice blocks, threshold %r" % threshold)
    assert got == clusters, "lattice blocks: threshold %r gives %d clusters, expected %d" % (threshold, got, clusters)
for k in (2, 3, 50, 150, 199):
    expect_k(pipe, tree, k, "lattice blocks (ties decided by (length, i, j))")
pipe.delete()
cube = np.array([(x, y, z) for x in range(6) for y in range(6) for z in range(6)], np.float64)
pipe = c.Pipeline(t.polydata(cube))
tree = pipe.tree_output()
out, ids, got = c.expect_threshold_cut(pipe, tree, 1.0, 1, "3D lattice 6^3, threshold 1")
assert got == 1, "3D lattice: edges equal to the threshold cut (%d clusters)" % got
for k in (5, 100):
    expect_k(pipe, tree, k, "3D lattice 6^3")
pipe.delete()
t.passed("ties: lattice edges equal to the threshold kept, cut just below; k cuts follow the (length, i, j) order")

# Identical points: every edge has length 0.
same = np.tile(np.float32([[1.5, -2.0, 3.25]]), (40, 1))
pipe, tree = threshold_cuts(same, "40 identical points")
out, ids, got = c.expect_threshold_cut(pipe, tree, 0.0, 1, "identical points, threshold 0")
assert got == 1, "identical points at threshold 0: %d clusters" % got
for k in (1, 4, 40):
    expect_k(pipe, tree, k, "40 identical points")
out = pipe.cut(CutMode="Linking Length", LinkingLength=0.2, MinimumClusterSize=1)[0]
ids = c.point_array(out, "ClusterId", c.VTK_INT)
sizes = c.point_array(out, "ClusterSize", c.VTK_ID_TYPE)
if np.all(ids >= 0):
    assert np.array_equal(sizes, np.bincount(ids)[ids]), \
        "identical points, Linking Length (no extent): ClusterSize inconsistent with ClusterId"
print("note: identical points in Linking Length mode (no extent, d = 0): ClusterThreshold %r, %d clusters"
      % (t.field(out, "ClusterThreshold"), int(t.field(out, "NumberOfClusters"))))
pipe.delete()

# Tiny clouds.
for count in (0, 1, 2):
    points = np.arange(3 * count, dtype=np.float32).reshape(count, 3)
    pipe, tree = threshold_cuts(points, "%d points" % count)
    if count:
        expect_k(pipe, tree, 1, "%d points" % count)
    pipe.delete()

# Non-finite points are not in the tree (no edge): ClusterId -1, ClusterSize 0, in no cluster and
# no row of the cluster table (no NaN centroid), counted in NoisePoints, with a note.
forest = cloud[:500].copy()
forest[[7, 123, 499]] = np.nan
pipe, tree = threshold_cuts(forest, "500 points, 3 of them NaN")
out = pipe.cut(CutMode="Threshold", Threshold=float(np.median(tree_edges(tree)[2])), MinimumClusterSize=1)
centroid = c.column(out[1], "Centroid", components=3)
assert np.all(np.isfinite(centroid)), "NaN points: a cluster table row with a non-finite centroid"
notes = c.notes(out[0])
assert any("3 points are not in the tree" in m for m in notes), "NaN points: no note in %r" % (notes,)
t.passed("3 NaN points: ClusterId -1, ClusterSize 0, no table row, noted (%r)" % [m for m in notes if "not in the tree" in m])
pipe.delete()
