# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""Moving the Threshold slider re-cuts without recomputing the tree: in the builtin session an
observer counts the EndEvent of the tree's VTK algorithm; changing MST Clusters' Threshold (and its
other properties) several times, with an update each time, gives a new, correct partition each time
while the tree runs once. Changing a property of the tree does re-run it (the counter works)."""
import numpy as np

import clusters_testing as c
import emst_testing as t

args = t.arguments()
c.load(args.plugin)
xyz, arrays = t.sample_points(args.sample)
n = len(xyz)
pipe = c.Pipeline(t.polydata(xyz, arrays), tree_properties={"Backend": "CPU"})
runs = {"tree": 0, "clusters": 0}


def counter(key):
    def count(caller, event):
        runs[key] += 1
    return count


pipe.tree.GetClientSideObject().AddObserver("EndEvent", counter("tree"))
pipe.clusters.GetClientSideObject().AddObserver("EndEvent", counter("clusters"))
tree = pipe.tree_output()
ti, tj, tl = t.edges(tree)
assert runs["tree"] == 0, "the tree ran again on a plain update (%d)" % runs["tree"]

previous = None
thresholds = [float(np.quantile(tl, q)) for q in (0.5, 0.9, 0.2, 0.99, 0.7)]
for step, threshold in enumerate(thresholds):
    out, ids, clusters = c.expect_threshold_cut(pipe, tree, threshold, 1, "re-cut %d at %.6g" % (step, threshold), arrays)
    assert previous is None or not np.array_equal(ids, previous), "re-cut %d: the clusters did not change" % step
    previous = ids
    print("threshold %.6g: %d clusters; tree runs %d, clusters runs %d" % (threshold, clusters, runs["tree"], runs["clusters"]))
assert runs["clusters"] >= len(thresholds), "MSTClusters ran %d times for %d thresholds" % (runs["clusters"], len(thresholds))
for properties in ({"MinimumClusterSize": 5}, {"HistogramBins": 17}, {"CutMode": "Number Of Clusters", "NumberOfClusters": 20},
                   {"CutMode": "Linking Length", "LinkingLength": 0.3}):
    pipe.cut(**properties)
assert runs["tree"] == 0, "changing MST Clusters' properties re-ran the tree %d times" % runs["tree"]
t.passed("%d re-cuts and 4 other property changes: the tree did not run again, the clusters ran %d times"
         % (len(thresholds), runs["clusters"]))

# The counter works: a tree property change re-runs the tree once.
pipe.tree.Backend = "Auto"
pipe.cut(CutMode="Threshold", Threshold=thresholds[0], MinimumClusterSize=1)
assert runs["tree"] == 1, "after changing the tree's Backend the tree ran %d times, expected 1" % runs["tree"]
t.passed("a tree property change re-runs the tree once (observer check)")
pipe.delete()
