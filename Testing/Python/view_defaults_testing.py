# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""Checks of what the filters' outputs look like when shown (Plugin/EMST/vtkEMSTViewDefaults.cxx),
shared by the pvpython test (test_view_defaults.py), the MPI test (Testing/MPI) and the GUI test
(Testing/GUI). Each compares the state of a representation, colour map or chart view with facts
computed here from the fetched data (edge lengths, cluster ids, the cut) or taken from ParaView
itself (the Turbo preset), and raises AssertionError with the numbers."""
import json
import math

import numpy as np
from paraview import servermanager
from vtkmodules.util import numpy_support

# What vtkEMSTViewDefaults promises (its header): ids coloured individually, ids named in the
# scalar bar, the disc radius per bounding-box diagonal, the log-axis rule, the EdgeLength map's
# span below the longest edge.
MAXIMUM_ANNOTATED = 1000
NAMED = 10
DISC_RADIUS_PER_DIAGONAL = 0.002
LOG_AXIS_RATIO = 10.0
LENGTH_DECADES_FACTOR = 100.0


def turbo():
    """The Turbo preset's RGBPoints (x, r, g, b, ... with x in [0, 1]) as ParaView ships it."""
    from paraview.modules.vtkRemotingViews import vtkSMTransferFunctionPresets

    presets = vtkSMTransferFunctionPresets.GetInstance()
    for k in range(presets.GetNumberOfPresets()):
        if presets.GetPresetName(k) == "Turbo":
            return np.array(json.loads(presets.GetPresetAsString(k))["RGBPoints"]).reshape(-1, 4)
    raise AssertionError("ParaView has no Turbo preset")


def tree_lengths(tree):
    output = servermanager.Fetch(tree)
    return numpy_support.vtk_to_numpy(output.GetCellData().GetArray("EdgeLength")).astype(np.float64)


def check_tree_display(tree, representation, label):
    """The tree in a render view: coloured by EdgeLength on a log scale with the Turbo preset,
    from the longest edge down two decades, or to the shortest edge when it is longer (zero-length
    edges of duplicate points below the range). Returns the colour map's (low, high)."""
    colour = list(representation.ColorArrayName)
    assert colour == ["CELLS", "EdgeLength"], "%s: tree coloured by %s" % (label, colour)
    lut = representation.LookupTable
    assert lut is not None and lut.UseLogScale == 1, "%s: EdgeLength map not on a log scale" % label
    lengths = tree_lengths(tree)
    low = max(float(lengths.min()), float(lengths.max()) / LENGTH_DECADES_FACTOR)
    points = np.array(lut.RGBPoints).reshape(-1, 4)
    got = (points[0, 0], points[-1, 0])
    assert math.isclose(got[0], low, rel_tol=1e-9) and math.isclose(got[1], lengths.max(), rel_tol=1e-9), \
        "%s: map range %r, lengths %r (low end %r)" % (label, got, (lengths.min(), lengths.max()), low)
    reference = turbo()
    assert points.shape == reference.shape and np.allclose(points[:, 1:], reference[:, 1:], atol=1e-6), \
        "%s: the EdgeLength map's colours are not the Turbo preset's" % label
    # Log scale: the preset's control points are spread evenly in log10 of the length.
    expected = 10 ** (math.log10(low) + reference[:, 0] * (math.log10(got[1]) - math.log10(low)))
    assert np.allclose(points[:, 0], expected, rtol=1e-6), "%s: control points not in log space" % label
    return got


def cluster_ids(clusters):
    output = servermanager.Fetch(clusters)
    ids = numpy_support.vtk_to_numpy(output.GetPointData().GetArray("ClusterId")).astype(np.int64)
    xyz = numpy_support.vtk_to_numpy(output.GetPoints().GetData()).astype(np.float64)
    return ids, xyz, output


def check_cluster_colours(lut, largest_id, label):
    """The ClusterId map: categorical, annotations -1 (noise) and 0..largest_id (capped), grey
    noise, and every cluster in a non-grey colour that differs from the next id's."""
    assert lut.InterpretValuesAsCategories == 1, "%s: ClusterId map not categorical" % label
    annotations = list(lut.Annotations)
    values, names = annotations[0::2], annotations[1::2]
    last = min(largest_id, MAXIMUM_ANNOTATED - 1)
    expected = ["-1"] + [str(k) for k in range(last + 1)]
    assert values == expected, "%s: annotated ids %s..%s (%d), expected -1..%d" \
        % (label, values[:1], values[-1:], len(values), last)
    assert names[0] == "noise" and names[1:] == [str(k) if k < NAMED else "" for k in range(last + 1)], \
        "%s: annotation labels %s" % (label, names[:NAMED + 2])
    colours = np.array(lut.IndexedColors).reshape(-1, 3)
    assert len(colours) == len(values), "%s: %d colours for %d ids" % (label, len(colours), len(values))
    grey = colours[0]
    assert grey[0] == grey[1] == grey[2], "%s: noise colour %s is not grey" % (label, grey)
    clusters = colours[1:]
    assert np.all(np.ptp(clusters, axis=1) > 0.1), "%s: a cluster colour is grey" % label
    assert np.all(np.any(clusters[1:] != clusters[:-1], axis=1)), "%s: neighbouring ids share a colour" % label
    distinct = len({tuple(c) for c in clusters.tolist()})
    assert distinct >= min(len(clusters), 8), "%s: only %d colours for %d clusters" % (label, distinct, len(clusters))
    return len(values)


def check_clusters_display(clusters, representation, label):
    """The clustered points: coloured by ClusterId through the categorical map, drawn as small flat
    discs (Point Gaussian, so that points without an edge show) of 0.002 x the diagonal."""
    colour = list(representation.ColorArrayName)
    assert colour == ["POINTS", "ClusterId"], "%s: clusters coloured by %s" % (label, colour)
    assert representation.Representation == "Point Gaussian", "%s: %s" % (label, representation.Representation)
    ids, xyz, output = cluster_ids(clusters)
    diagonal = float(np.linalg.norm(xyz.max(axis=0) - xyz.min(axis=0)))
    assert representation.ShaderPreset == "Plain circle" and \
        math.isclose(representation.GaussianRadius, DISC_RADIUS_PER_DIAGONAL * diagonal, rel_tol=1e-6), \
        "%s: %s discs of radius %g (diagonal %g)" % (label, representation.ShaderPreset, representation.GaussianRadius, diagonal)
    annotated = check_cluster_colours(representation.LookupTable, int(ids.max()), label)
    return ids, annotated


def pairs(proxy, name):
    """A (series, value) pair property such as SeriesVisibility, as a dict (paraview.simple shows
    some of them as lists of names)."""
    prop = proxy.GetProperty(name).SMProperty
    values = [prop.GetElement(k) for k in range(prop.GetNumberOfElements())]
    return dict(zip(values[0::2], values[1::2]))


def field(output, name):
    return output.GetFieldData().GetArray(name).GetValue(0)


def check_histogram_chart(simple, clusters, tree, chart, label):
    """The edge-length histogram in a line chart: EdgeCount (left axis) and ClustersAtBinEnd (right
    axis) against EdgeLength, nothing else; titled axes; a log length axis exactly when the longest
    edge is >= 10 x the mean; the cut in the title and as a labelled tick."""
    representation = simple.GetDisplayProperties(simple.OutputPort(clusters, 2), chart)
    assert representation.UseIndexForXAxis == 0 and representation.XArrayName == "EdgeLength", \
        "%s: x axis %s (index %d)" % (label, representation.XArrayName, representation.UseIndexForXAxis)
    visibility = pairs(representation, "SeriesVisibility")
    shown = sorted(name for name, on in visibility.items() if on == "1")
    assert set(visibility) >= {"EdgeLength", "BinStart", "BinEnd", "EdgeCount", "ClustersAtBinEnd"} and \
        shown == ["ClustersAtBinEnd", "EdgeCount"], "%s: series shown %s of %s" % (label, shown, sorted(visibility))
    corners = pairs(representation, "SeriesPlotCorner")
    assert corners.get("EdgeCount") == "0" and corners.get("ClustersAtBinEnd") == "1", \
        "%s: plot corners %s" % (label, corners)
    labels = pairs(representation, "SeriesLabel")
    assert chart.LeftAxisTitle == labels["EdgeCount"] and chart.RightAxisTitle == labels["ClustersAtBinEnd"] \
        and chart.BottomAxisTitle == "edge length", \
        "%s: axis titles %r %r %r, series labels %s" % (label, chart.BottomAxisTitle, chart.LeftAxisTitle,
                                                        chart.RightAxisTitle, labels)
    lengths = tree_lengths(tree)
    log = bool(lengths.max() >= LOG_AXIS_RATIO * lengths.mean())
    assert chart.BottomAxisLogScale == int(log), \
        "%s: length axis log %d, longest/mean edge %.3g" % (label, chart.BottomAxisLogScale, lengths.max() / lengths.mean())
    output = servermanager.Fetch(clusters)
    cut, count = field(output, "ClusterThreshold"), int(field(output, "NumberOfClusters"))
    assert ("%.4g:" % cut) in chart.ChartTitle and (" %d cluster" % count) in chart.ChartTitle, \
        "%s: title %r, cut %g, %d clusters" % (label, chart.ChartTitle, cut, count)
    ticks = dict(zip(chart.BottomAxisLabels[1::2], chart.BottomAxisLabels[0::2]))
    mark = "cut %.3g" % cut
    assert chart.BottomAxisUseCustomLabels == 1 and mark in ticks and float(ticks[mark]) == cut, \
        "%s: no tick %r at %r on the length axis: %s" % (label, mark, cut, chart.BottomAxisLabels)
    return log, cut, count
