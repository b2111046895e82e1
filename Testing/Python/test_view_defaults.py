# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""What paraview.simple's Show() gives for the filters' outputs, without the GUI (the plugin's
vtkEMSTViewDefaults, in the server manager): the tree coloured by EdgeLength on a log Turbo map,
the clustered points by ClusterId in categorical colours with grey noise, the histogram as edge
counts and clusters left against the edge length with the cut marked; after a new cut the
colours and the chart follow. Also: zero-length edges (the log range's low end), a uniform cloud
(linear length axis), composite input, an input with active point scalars, more clusters than
the colour map names, and a user's own range, annotations, colours and title, which must be kept.
Each case runs in a fresh session (fresh colour maps)."""
import math

import numpy as np

import emst_testing as t
import view_defaults_testing as v

args = t.arguments()
simple = t.load(args.plugin)


def fresh():
    simple.ResetSession()


def show_tree(source, label):
    tree = simple.EuclideanMinimumSpanningTree(Input=source)
    view = simple.CreateView("RenderView")
    representation = simple.Show(tree, view)
    low, high = v.check_tree_display(tree, representation, label)
    return tree, view, low, high


def producer(data):
    source = simple.TrivialProducer()
    source.GetClientSideObject().SetOutput(data)
    return source


# The sample (halos, filaments, background: lengths over three decades), as a user would.
fresh()
cloud = simple.XMLPolyDataReader(FileName=[args.sample])
tree, view, low, high = show_tree(cloud, "sample")
t.passed("sample: tree coloured by EdgeLength, log Turbo map over %.4g..%.4g" % (low, high))

clusters = simple.MSTClusters(Input=tree, Threshold=0.9, MinimumClusterSize=10)
points = simple.Show(clusters, view)
ids, annotated = v.check_clusters_display(clusters, points, "sample, cut 0.9")
assert np.count_nonzero(ids == -1) > 0 and ids.max() >= 10, "the case needs noise and 10+ clusters"
chart = simple.CreateView("XYChartView")
simple.Show(simple.OutputPort(clusters, 2), chart)
log, cut, count = v.check_histogram_chart(simple, clusters, tree, chart, "sample, cut 0.9")
assert log, "the sample's lengths span decades: the length axis must be logarithmic"
t.passed("sample, cut %g: %d clusters and noise annotated (%d ids), Point Gaussian discs; chart: log "
         "length axis, EdgeCount and ClustersAtBinEnd, %r" % (cut, count, annotated, chart.ChartTitle))

clusters.Threshold = 0.5
clusters.UpdatePipeline()
ids, annotated = v.check_clusters_display(clusters, points, "sample, cut 0.5")
log, cut, count = v.check_histogram_chart(simple, clusters, tree, chart, "sample, cut 0.5")
t.passed("new cut %g: the map follows (%d ids annotated) and so does the chart (%r)" % (cut, annotated, chart.ChartTitle))

# More clusters than annotated: the first MAXIMUM_ANNOTATED ids (the largest clusters) only.
clusters.Threshold = 0.3
clusters.MinimumClusterSize = 1
clusters.UpdatePipeline()
ids, annotated = v.check_clusters_display(clusters, points, "sample, cut 0.3")
assert ids.max() + 1 > v.MAXIMUM_ANNOTATED and annotated == v.MAXIMUM_ANNOTATED + 1, \
    "%d clusters, %d ids annotated" % (ids.max() + 1, annotated)
t.passed("%d clusters: ids -1..%d annotated, the rest take the NaN colour" % (ids.max() + 1, annotated - 2))

# What the user set stays: their annotations, colours and chart title.
lut = points.LookupTable
lut.Annotations = ["-1", "outliers", "0", "main"]
lut.IndexedColors = [0, 0, 0, 1, 0, 0]
chart.ChartTitle = "my histogram"
chart.BottomAxisUseCustomLabels = 0
clusters.Threshold = 0.9
clusters.UpdatePipeline()
simple.Render(chart)
assert list(lut.Annotations) == ["-1", "outliers", "0", "main"] and list(lut.IndexedColors) == [0, 0, 0, 1, 0, 0], \
    "the user's annotations were replaced: %s" % list(lut.Annotations)[:6]
assert chart.ChartTitle == "my histogram" and chart.BottomAxisUseCustomLabels == 0, \
    "the user's chart settings were replaced: %r, custom labels %d" % (chart.ChartTitle, chart.BottomAxisUseCustomLabels)
t.passed("a user's annotations, colours, title and axis labels are kept over a new cut")

# A range the user chose stays when the tree runs again.
lines = simple.GetDisplayProperties(tree, view)
lines.LookupTable.RescaleTransferFunction(0.5, 5.0)
tree.Backend = "CPU"
tree.UpdatePipeline()
kept = np.array(lines.LookupTable.RGBPoints).reshape(-1, 4)[[0, -1], 0].tolist()
assert np.allclose(kept, [0.5, 5.0], rtol=1e-12), "the user's EdgeLength range became %s" % kept
t.passed("a user's EdgeLength range is kept when the tree runs again")

# Zero-length edges (duplicate points): the map starts two decades below the longest edge.
fresh()
rng = np.random.default_rng(18)
xyz = rng.random((400, 3))
xyz[300:340] = xyz[:40]
tree, view, low, high = show_tree(producer(t.polydata(xyz)), "duplicates")
assert math.isclose(low, high / 100, rel_tol=1e-12), "duplicates: low end %r, longest edge %r" % (low, high)
t.passed("duplicates (zero-length edges): log map over %.4g..%.4g, zero edges take the lowest colour" % (low, high))

# A uniform cloud: lengths within a decade of each other, a linear length axis.
fresh()
tree, view, low, high = show_tree(producer(t.polydata(rng.random((3000, 3)))), "uniform")
clusters = simple.MSTClusters(Input=tree, Threshold=float(np.sqrt(low * high)))
simple.Show(clusters, view)
chart = simple.CreateView("XYChartView")
simple.Show(simple.OutputPort(clusters, 2), chart)
log, cut, count = v.check_histogram_chart(simple, clusters, tree, chart, "uniform")
assert not log, "a uniform cloud's length axis must be linear"
t.passed("uniform cloud: linear length axis, cut %g marked, %d clusters" % (cut, count))

# Composite input (two blocks) and an input whose point scalars are active: still EdgeLength.
fresh()
halves = rng.random((2000, 3)) * [2.0, 1.0, 1.0]
from vtkmodules.vtkCommonDataModel import vtkMultiBlockDataSet  # noqa: E402

blocks = vtkMultiBlockDataSet()
blocks.SetBlock(0, t.polydata(halves[:1000]))
blocks.SetBlock(1, t.polydata(halves[1000:]))
show_tree(producer(blocks), "composite")
t.passed("composite input: one tree, coloured by EdgeLength on the log map")
fresh()
scalars = t.polydata(halves, {"Temperature": rng.random(len(halves))})
scalars.GetPointData().SetActiveScalars("Temperature")
show_tree(producer(scalars), "active point scalars")
t.passed("input with active point scalars (Temperature): the tree is still coloured by EdgeLength")
