# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""MST Clusters outputs 1 and 2 against numpy.

Output 1, the cluster table (one row per cluster in id order): Size, Centroid (mean of the points),
BoundsMin/BoundsMax, LongestEdge (the longest of output 0's lines inside the cluster, 0 for a single
point), FirstPoint (smallest point index), with their types; on the bundled sample and a random
2D cloud, at several thresholds and minimum sizes.

Output 2, the histogram of the tree's EdgeLength over [0, max] in HistogramBins equal bins:
BinStart/BinEnd = k max / B, EdgeLength = the bin centre, EdgeCount with bins (start, end] (the
first also takes 0), every edge counted once, ClustersAtBinEnd = the connected groups of the tree
cut at BinEnd (MinimumClusterSize ignored). A chain whose edge lengths are exactly the bin ends
checks the (start, end] rule without rounding."""
import numpy as np

import clusters_testing as c
import emst_testing as t

args = t.arguments()
c.load(args.plugin)


def check_table(out, points, label):
    port0, table = out[0], out[1]
    ids = c.point_array(port0, "ClusterId", c.VTK_INT)
    clusters = int(t.field(port0, "NumberOfClusters"))
    assert table.GetNumberOfRows() == clusters, "%s: %d rows, %d clusters" % (label, table.GetNumberOfRows(), clusters)
    assert clusters == len(np.unique(ids[ids >= 0]))
    li, lj, ll = c.lines(port0)
    row_id = c.column(table, "ClusterId", c.VTK_INT)
    size = c.column(table, "Size", c.VTK_ID_TYPE)
    centroid = c.column(table, "Centroid", c.VTK_DOUBLE, 3)
    low = c.column(table, "BoundsMin", c.VTK_DOUBLE, 3)
    high = c.column(table, "BoundsMax", c.VTK_DOUBLE, 3)
    longest = c.column(table, "LongestEdge", c.VTK_DOUBLE)
    first = c.column(table, "FirstPoint", c.VTK_ID_TYPE)
    assert np.array_equal(row_id, np.arange(clusters)), label + ": ClusterId column is not 0 .. k-1"
    xyz = np.asarray(points, np.float64)
    scale = float(np.max(np.abs(xyz))) if len(xyz) else 1.0
    edge_cluster = ids[li]
    assert np.array_equal(ids[lj], edge_cluster), label + ": a line joins points of different clusters"
    expected_longest = np.zeros(clusters)
    inside = edge_cluster >= 0
    np.maximum.at(expected_longest, edge_cluster[inside], ll[inside])
    for k in range(clusters):
        members = np.flatnonzero(ids == k)
        p = xyz[members]
        assert size[k] == len(members), "%s: cluster %d Size %d, %d points" % (label, k, size[k], len(members))
        assert first[k] == members[0], "%s: cluster %d FirstPoint %d, expected %d" % (label, k, first[k], members[0])
        mean = p.mean(0)
        assert np.allclose(centroid[k], mean, rtol=0, atol=1e-12 * scale), \
            "%s: cluster %d Centroid %s, numpy %s" % (label, k, centroid[k].tolist(), mean.tolist())
        assert np.array_equal(low[k], p.min(0)) and np.array_equal(high[k], p.max(0)), \
            "%s: cluster %d bounds %s %s, numpy %s %s" % (label, k, low[k].tolist(), high[k].tolist(),
                                                         p.min(0).tolist(), p.max(0).tolist())
        assert longest[k] == expected_longest[k], "%s: cluster %d LongestEdge %.17g, longest line inside it %.17g" % (
            label, k, longest[k], expected_longest[k])
    return clusters


def check_histogram(out, tree, bins, label, minimum=1):
    hist = out[2]
    n = tree.GetNumberOfPoints()
    ti, tj, tl = t.edges(tree)
    top = float(tl.max())
    assert hist.GetNumberOfRows() == bins, "%s: %d histogram rows, HistogramBins %d" % (label, hist.GetNumberOfRows(), bins)
    start = c.column(hist, "BinStart", c.VTK_DOUBLE)
    end = c.column(hist, "BinEnd", c.VTK_DOUBLE)
    centre = c.column(hist, "EdgeLength", c.VTK_DOUBLE)
    count = c.column(hist, "EdgeCount", c.VTK_ID_TYPE)
    at_end = c.column(hist, "ClustersAtBinEnd", c.VTK_ID_TYPE)
    k = np.arange(bins)
    tolerance = 1e-12 * top
    assert np.allclose(start, k * top / bins, rtol=0, atol=tolerance), "%s: BinStart %s..., expected k max / B" % (label, start[:3])
    assert np.allclose(end, (k + 1) * top / bins, rtol=0, atol=tolerance), "%s: BinEnd %s..., expected (k+1) max / B" % (label, end[:3])
    assert start[0] == 0.0 and end[-1] == top, "%s: bins span [%r, %r], the edges [0, %r]" % (label, start[0], end[-1], top)
    assert np.allclose(centre, 0.5 * (start + end), rtol=0, atol=tolerance), label + ": EdgeLength is not the bin centre"
    assert int(count.sum()) == len(tl), "%s: EdgeCount sums to %d, the tree has %d edges" % (label, count.sum(), len(tl))
    expected = np.array([np.count_nonzero(((tl > start[b]) | (b == 0)) & (tl <= end[b])) for b in range(bins)])
    assert np.array_equal(count, expected), "%s: EdgeCount differs from numpy with (start, end] bins at %s" % (
        label, np.flatnonzero(count != expected)[:10].tolist())
    groups = np.array([len(np.unique(c.cut_groups(n, ti, tj, tl, e))) for e in end])
    assert np.array_equal(at_end, groups), "%s: ClustersAtBinEnd differs from the groups at BinEnd at bins %s (%s vs %s)" % (
        label, np.flatnonzero(at_end != groups)[:10].tolist(), at_end[:5].tolist(), groups[:5].tolist())


def run(points, label, arrays=None, cuts=((0.5, 1), (0.5, 4), (0.9, 1), (0.97, 3), (0.999, 1)), bins=(100, 7, 1)):
    pipe = c.Pipeline(t.polydata(points, arrays))
    tree = pipe.tree_output()
    ti, tj, tl = t.edges(tree)
    for q, minimum in cuts:
        threshold = float(np.quantile(tl, q))
        out, _, _ = c.expect_threshold_cut(pipe, tree, threshold, minimum, label, arrays)
        clusters = check_table(out, points, "%s q %.3f min %d" % (label, q, minimum))
        check_histogram(out, tree, 100, "%s q %.3f min %d" % (label, q, minimum), minimum)
        t.passed("%s, threshold quantile %.3f, MinimumClusterSize %d: %d clusters, table and histogram as numpy"
                 % (label, q, minimum, clusters))
    for b in bins:
        out = pipe.cut(HistogramBins=b)
        check_histogram(out, tree, b, "%s %d bins" % (label, b))
    t.passed("%s: histograms with %s bins" % (label, list(bins)))
    pipe.delete()


xyz, arrays = t.sample_points(args.sample)
run(xyz, "sample cloud", arrays)
rng = np.random.default_rng(5)
run(rng.random((5000, 3)).astype(np.float32) * np.float32([100, 100, 0]), "2D uniform cloud")

# A chain along x with gaps 1, 2, ..., 10: its tree is the chain, every edge length is a bin end.
gaps = np.arange(1, 11, dtype=np.float64)
chain = np.zeros((11, 3))
chain[1:, 0] = np.cumsum(gaps)
pipe = c.Pipeline(t.polydata(chain))
tree = pipe.tree_output()
for b, counts in ((10, [1] * 10), (5, [2] * 5), (20, [0, 1] * 10), (2, [5, 5])):
    out = pipe.cut(HistogramBins=b, Threshold=4.0)
    check_histogram(out, tree, b, "chain %d bins" % b)
    got = c.column(out[2], "EdgeCount", c.VTK_ID_TYPE).tolist()
    assert got == counts, "chain, %d bins: EdgeCount %s, expected %s (an edge equal to a bin end counts in that bin)" % (b, got, counts)
check_table(out, chain, "chain")
assert c.column(out[1], "LongestEdge", c.VTK_DOUBLE).tolist() == [4.0] + [0.0] * 6, \
    "chain at 4: LongestEdge %s" % c.column(out[1], "LongestEdge", c.VTK_DOUBLE).tolist()
pipe.delete()
t.passed("chain: edges at bin ends counted in (start, end] bins; LongestEdge 0 for single points")
