# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""MST Clusters on one real data set (NAME.f32 of Testing/Data or of the shared data): cut at the
reference thresholds t50 and t99 of NAME.ref.json (edges of length exactly t kept), the number of
clusters equals the reference `clusters` and the 5 largest sizes equal `largest_cluster_sizes`; cut
just below t (the largest double under it), the count equals `clusters_if_edges_equal_to_t_also_cut`
(the sets with edges of length exactly t tell the two conventions apart). Each cut's per-point
arrays are checked whole against scipy's connected components of the tree's kept edges ranked by the
documented rule (ClusterId 0 = largest, ties by smallest point index; ClusterSize = group size), and
the cluster table's Size and FirstPoint columns against the same."""
import time

import numpy as np

import clusters_testing as c
import emst_testing as t

args = t.arguments()
xyz, dim, ref = t.data_set(args)
c.load(args.plugin)
n = len(xyz)
start = time.time()
pipe = c.Pipeline(t.polydata(xyz))
tree = pipe.tree_output()
ti, tj, tl = t.edges(tree)
assert len(tl) == n - 1, "%s: the tree has %d lines, expected %d" % (args.set, len(tl), n - 1)
print("%s: tree of %d points in %.2f s" % (args.set, n, time.time() - start))


def check(threshold, clusters, largest, label):
    start = time.time()
    out, ids, got = c.expect_threshold_cut(pipe, tree, threshold, 1, label)
    seconds = time.time() - start
    assert got == clusters, "%s: %d clusters, reference %d" % (label, got, clusters)
    sizes = np.bincount(ids)
    if largest:
        assert sizes[:len(largest)].tolist() == list(largest), \
            "%s: largest sizes %s, reference %s" % (label, sizes[:len(largest)].tolist(), list(largest))
    # The cluster table (output 1): one row per cluster in id order.
    table = out[1]
    assert table.GetNumberOfRows() == clusters, "%s: cluster table has %d rows for %d clusters" % (
        label, table.GetNumberOfRows(), clusters)
    assert np.array_equal(c.column(table, "ClusterId", c.VTK_INT), np.arange(clusters)), label + ": table ClusterId"
    assert np.array_equal(c.column(table, "Size", c.VTK_ID_TYPE), sizes), label + ": table Size"
    first = np.full(clusters, n, np.int64)
    np.minimum.at(first, ids, np.arange(n))
    assert np.array_equal(c.column(table, "FirstPoint", c.VTK_ID_TYPE), first), label + ": table FirstPoint"
    t.passed("%s: %d clusters (reference %d), largest %s, %s, cut + copy %.2f s"
             % (label, got, clusters, sizes[:5].tolist(), t.field(out[0], "ClusterBackend"), seconds))


for key in ("p50", "p99"):
    sl = ref["single_linkage"][key]
    threshold = float(sl["t_repr"])
    assert threshold == sl["t"]
    check(threshold, sl["clusters"], sl.get("largest_cluster_sizes"), "%s %s t=%r (edges = t kept)" % (args.set, key, threshold))
    below = float(np.nextafter(threshold, -np.inf))
    check(below, sl["clusters_if_edges_equal_to_t_also_cut"], sl.get("largest_cluster_sizes_if_equal_also_cut"),
          "%s %s t=%r (edges = t cut too: threshold %r)" % (args.set, key, threshold, below))
pipe.delete()
