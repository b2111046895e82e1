# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""Single Linkage Hierarchy against scipy.cluster.hierarchy.linkage(points, method='single').

- Random tie-free clouds (2D and 3D, 50 to 2000 float32 points, uniform and clustered): the table
  (Cluster1, Cluster2, Height, Size) equals scipy's linkage matrix Z: cluster ids and sizes
  identical, heights to 1e-9 relative. A cloud counts as tie-free only when its merge heights are
  distinct and no pair of points other than the tree edges lies within 1e-6 (of its cophenetic
  distance plus the extent) of its cophenetic distance, so that the engine's float32 ordering
  cannot pick another tree; otherwise the next seed is taken.
- Lattices (many equal edges, where the row order depends on tie-breaking): scipy accepts the
  table as a valid linkage (is_valid_linkage), its flat clusters (fcluster, criterion 'distance')
  at every height equal scipy's own, and row k merges the two ends of the k-th tree edge in the
  documented (length, i, j) order at that edge's length.
- 0, 1 and 2 points."""
import time

import numpy as np
from scipy.cluster import hierarchy
from scipy.spatial.distance import pdist

import clusters_testing as c
import emst_testing as t

args = t.arguments()
c.load(args.plugin)


def table_z(table, n, label):
    rows = table.GetNumberOfRows()
    assert rows == max(n - 1, 0), "%s: %d rows, expected %d" % (label, rows, max(n - 1, 0))
    c1 = c.column(table, "Cluster1", c.VTK_ID_TYPE)
    c2 = c.column(table, "Cluster2", c.VTK_ID_TYPE)
    height = c.column(table, "Height", c.VTK_DOUBLE)
    size = c.column(table, "Size", c.VTK_ID_TYPE)
    assert np.all(c1 < c2), label + ": Cluster1 < Cluster2 does not hold"
    return np.column_stack([c1, c2, height, size]).astype(float)


def hierarchy_of(xyz, label):
    pipe = c.Pipeline(t.polydata(xyz))
    tree = pipe.tree_output()
    z = table_z(pipe.hierarchy(), len(xyz), label)
    pipe.delete()
    return z, tree


def tie_free(points):
    """True when the single-linkage tree is unique even under float32 rounding (see above)."""
    z = hierarchy.linkage(points, method="single")
    if np.any(np.diff(np.sort(z[:, 2])) <= 0):
        return False, z
    coph = hierarchy.cophenet(z)
    d = pdist(points)
    extent = float(np.max(points.max(0) - points.min(0)))
    near = np.count_nonzero(d <= coph + 1e-6 * (coph + extent))
    return near == len(points) - 1, z


def cloud(rng, n, dim, clustered):
    if clustered:
        centres = rng.uniform(-10, 10, (5, dim))
        xyz = centres[rng.integers(0, 5, n)] + rng.normal(0, rng.uniform(0.2, 1.5, (n, 1)), (n, dim))
    else:
        xyz = rng.uniform(-1, 1, (n, dim)) * np.array([3.0, 1.0, 0.5][:dim])
    points = np.zeros((n, 3))
    points[:, :dim] = xyz
    return points.astype(np.float32).astype(np.float64)  # the engine orders in float32: give it exact values


for dim, n, clustered in [(2, 50, False), (3, 50, False), (2, 300, True), (3, 500, False), (2, 1000, False),
                          (3, 1200, True), (2, 2000, True), (3, 2000, False)]:
    for seed in range(50):
        rng = np.random.default_rng(1000 * n + 10 * dim + seed)
        points = cloud(rng, n, dim, clustered)
        ok, z_scipy = tie_free(points[:, :dim])
        if ok:
            break
    assert ok, "no tie-free cloud found (dim %d, n %d)" % (dim, n)
    label = "%dD %s cloud, %d points (seed %d)" % (dim, "clustered" if clustered else "uniform", n, seed)
    start = time.time()
    z, _ = hierarchy_of(points, label)
    seconds = time.time() - start
    bad = np.flatnonzero(np.any(z[:, [0, 1, 3]] != z_scipy[:, [0, 1, 3]], axis=1))
    assert len(bad) == 0, "%s: %d rows differ from scipy, first row %d: ours %s, scipy %s" % (
        label, len(bad), bad[0], z[bad[0]].tolist(), z_scipy[bad[0]].tolist())
    error = float(np.max(np.abs(z[:, 2] - z_scipy[:, 2]) / np.maximum(z_scipy[:, 2], 1e-300)))
    assert error <= 1e-9, "%s: heights differ from scipy by %.3g (relative)" % (label, error)
    t.passed("%s: equals scipy's single linkage (heights within %.2g), %.2f s" % (label, error, seconds))


def replay(z, n, tree, label):
    """Row k merges the two ends of the k-th tree edge in (length, i, j) order, at its length."""
    i, j, length = c.sorted_edges(*t.edges(tree))
    owner = np.arange(n)  # cluster id of each point's current cluster
    members = {p: [p] for p in range(n)}
    for k in range(n - 1):
        a, b, h, size = int(z[k, 0]), int(z[k, 1]), z[k, 2], int(z[k, 3])
        assert a in members and b in members, "%s: row %d merges a cluster already merged" % (label, k)
        ends = {owner[i[k]], owner[j[k]]}
        assert ends == {a, b}, "%s: row %d merges %d and %d, but edge %d of the (length, i, j) order joins " \
                               "points %d and %d (clusters %s)" % (label, k, a, b, k, i[k], j[k], sorted(ends))
        assert h == length[k], "%s: row %d height %.17g, edge length %.17g" % (label, k, h, length[k])
        merged = members.pop(a) + members.pop(b)
        assert size == len(merged), "%s: row %d size %d, expected %d" % (label, k, size, len(merged))
        members[n + k] = merged
        owner[merged] = n + k


for name, points in [
        ("2D lattice 20 x 15 with gaps", np.array([(x, y, 0) for x in range(20) for y in range(15)
                                                      if (x * 7 + y * 3) % 11 != 0], float)),
        ("3D lattice 7 x 6 x 5, two spacings", np.array([(x * 1.0, y * 2.0, z * 1.0) for x in range(7)
                                                         for y in range(6) for z in range(5)], float)),
        ("2D lattice far apart blocks", np.array([(x + 30 * b, y, 0) for b in range(3) for x in range(6)
                                                  for y in range(6)], float))]:
    n = len(points)
    z, tree = hierarchy_of(points, name)
    assert hierarchy.is_valid_linkage(z), name + ": scipy does not accept the table as a linkage matrix"
    assert np.all(np.diff(z[:, 2]) >= 0), name + ": heights are not in increasing order"
    z_scipy = hierarchy.linkage(points[:, :3], method="single")
    assert np.array_equal(np.sort(z[:, 2]), np.sort(z_scipy[:, 2])), name + ": merge heights differ from scipy's"
    heights = np.unique(z_scipy[:, 2])
    for h in np.concatenate([heights, 0.5 * (heights[1:] + heights[:-1]), [0.5 * heights[0]]]):
        ours = hierarchy.fcluster(z, h, criterion="distance")
        theirs = hierarchy.fcluster(z_scipy, h, criterion="distance")
        assert c.same_partition(ours, theirs), "%s: flat clusters at height %r differ from scipy's" % (name, h)
    replay(z, n, tree, name)
    t.passed("%s (%d points, %d distinct heights): valid linkage, scipy's flat clusters at every height, "
             "rows in (length, i, j) edge order" % (name, n, len(heights)))

# Points not in the tree (NaN coordinates): the hierarchy is that of the m points in it, m - 1
# rows with leaf ids 0..m-1, a valid scipy linkage whose flat clusters are those of scipy's linkage
# of those points; field data LeafPointId maps leaf k to its input point, and a note says so.
rng = np.random.default_rng(5)
points = cloud(rng, 400, 3, True)
left_out = [0, 17, 205, 399]
points[left_out, 1] = np.nan
in_tree = np.all(np.isfinite(points), axis=1)
m = int(np.count_nonzero(in_tree))
pipe = c.Pipeline(t.polydata(points))
table = pipe.hierarchy()
z = table_z(table, m, "400 points, 4 NaN")
assert hierarchy.is_valid_linkage(z), "NaN points: scipy does not accept the table as a linkage matrix"
leaf_points = c.column_of_field(table, "LeafPointId")
assert np.array_equal(leaf_points, np.flatnonzero(in_tree)), "LeafPointId is not the points in the tree"
z_scipy = hierarchy.linkage(points[in_tree], method="single")
for h in np.quantile(z_scipy[:, 2], [0.1, 0.5, 0.9, 0.99]):
    assert c.same_partition(hierarchy.fcluster(z, h, criterion="distance"),
                            hierarchy.fcluster(z_scipy, h, criterion="distance")), \
        "NaN points: flat clusters at %r differ from scipy's over the points in the tree" % h
notes = c.notes(table, "HierarchyMessages")
assert any("4 points are not in the tree" in n for n in notes), "NaN points: no note in %r" % (notes,)
pipe.delete()
t.passed("400 points, 4 NaN: %d rows over the %d points in the tree, a valid linkage, fcluster as scipy's, "
         "LeafPointId maps the leaves, noted" % (m - 1, m))

# Tiny inputs.
for n in (0, 1, 2, 3):
    points = np.array([(0, 0, 0), (3, 4, 0), (3, 4, 12)][:n], float).reshape(n, 3)
    z, _ = hierarchy_of(points, "%d points" % n)
    if n >= 2:
        z_scipy = hierarchy.linkage(points, method="single")
        assert np.array_equal(z[:, [0, 1, 3]], z_scipy[:, [0, 1, 3]]) and np.allclose(z[:, 2], z_scipy[:, 2], rtol=1e-12), \
            "%d points: %s, scipy %s" % (n, z.tolist(), z_scipy.tolist())
    t.passed("%d points: %d rows%s" % (n, len(z), ", as scipy" if n >= 2 else ""))
