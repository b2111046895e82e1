# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""Run inside the ParaView GUI (paraview --script=gui_emst.py, under Xvfb; see run_gui_test.sh).

ParaView starts with the plugin found on PV_PLUGIN_PATH, as build/bin/emst-paraview starts it,
opens the bundled sample and applies "Euclidean Minimum Spanning Tree", then "MST Clusters", the
way the Properties panel's Apply shows a new filter (pqApplyBehavior::showData: each output port
in the view its hints prefer, the input hidden, scalar bars shown, then the colour maps reset to
the data as on every Apply). It checks:
- the numbers: n - 1 lines, every EdgeLength the distance of its end points, the total equal to
  the sample's Prim MST total (Data/sample_cloud.json, computed independently of the engine), the
  field data, the menu hint, the Threshold slider spanning the edge lengths, the cluster count
  equal to scipy's count of the groups of 10 or more points that the tree's edges no longer than
  the cut leave (run_gui_test.sh names the tests' helper folder in $EMST_GUI_TESTING_DIR);
- what the user sees (Testing/Python/view_defaults_testing.py): the tree coloured by EdgeLength
  on a log Turbo map, and on its screenshot lines of many hues, not one pale blue; the clustered
  points by ClusterId in categorical colours with grey noise, and on the screenshot grey noise and
  several cluster colours; the cluster table in a spreadsheet, largest cluster first; the
  histogram in a line chart of edge counts and clusters left against the edge length (log axis),
  the cut marked, and on its screenshot both series' colours.
A GUI script prints into the GUI, not to a terminal: the log goes to
$EMST_GUI_OUTPUT/gui_log.txt and the verdict is the exit code (os._exit, as the GUI would
otherwise keep running)."""
import colorsys
import json
import math
import os
import sys
import traceback

out_dir = os.environ["EMST_GUI_OUTPUT"]
log = open(os.path.join(out_dir, "gui_log.txt"), "w")


def say(text):
    log.write(text + "\n")
    log.flush()


def reference_total():
    """The sample's total from its .json: an independent O(n^2) Prim in double precision
    (Data/make_sample.py)."""
    with open(os.path.splitext(os.environ["EMST_GUI_SAMPLE"])[0] + ".json") as f:
        return json.load(f)["emst_total_length"]


code = 1
try:
    import numpy as np
    import scipy.sparse
    import scipy.sparse.csgraph
    sys.path.insert(0, os.environ["EMST_GUI_TESTING_DIR"])
    import emst_testing
    import view_defaults_testing as defaults
    import paraview.simple as simple
    from paraview import servermanager
    from paraview.modules.vtkRemotingViews import (vtkSMParaViewPipelineControllerWithRendering,
                                                   vtkSMPVRepresentationProxy,
                                                   vtkSMTransferFunctionManager)
    from vtkmodules.util import numpy_support as ns
    from vtkmodules.vtkIOImage import vtkPNGReader

    failures = []

    def check(ok, text):
        say(("PASS: " if ok else "FAIL: ") + text)
        if not ok:
            failures.append(text)

    def checked(function, *arguments):
        """Runs one of view_defaults_testing's checks as a check of this log."""
        try:
            result = function(*arguments)
            check(True, "%s(%s)" % (function.__name__, arguments[-1]))
            return result
        except AssertionError as error:
            check(False, str(error))
            return None

    def apply(source, view):
        """What Apply does for a new filter (pqApplyBehavior::showData, then applied())."""
        controller = vtkSMParaViewPipelineControllerWithRendering()
        views = {}
        for port in range(source.SMProxy.GetNumberOfOutputPorts()):
            shown = controller.ShowInPreferredView(source.SMProxy, port, view.SMProxy)
            if shown is None:
                continue
            views[port] = servermanager._getPyProxy(shown)
            if shown != view.SMProxy:
                simple.AssignViewToLayout(view=views[port])
            elif source.SMProxy.GetProperty("Input") is not None:
                controller.Hide(source.Input.SMProxy, 0, view.SMProxy)
            representation = shown.FindRepresentation(source.SMProxy, port)
            if vtkSMPVRepresentationProxy.GetUsingScalarColoring(representation):
                vtkSMPVRepresentationProxy.SetScalarBarVisibility(representation, shown, True)
        for shown in set(views.values()):
            shown.SMProxy.Update()
        vtkSMTransferFunctionManager().ResetAllTransferFunctionRangesUsingCurrentData(
            servermanager.ProxyManager().SMProxyManager, False)
        return views

    def screenshot(view, name):
        """The view as it is on the screen (its size in the window's layout)."""
        path = os.path.join(out_dir, name)
        simple.Render(view)
        simple.SaveScreenshot(path, view)
        image = vtkPNGReader()
        image.SetFileName(path)
        image.Update()
        pixels = ns.vtk_to_numpy(image.GetOutput().GetPointData().GetScalars())[:, :3].astype(int)
        packed = pixels[:, 0] * 65536 + pixels[:, 1] * 256 + pixels[:, 2]
        values, counts = np.unique(packed, return_counts=True)
        return pixels, packed != values[counts.argmax()]  # the picture and its non-background

    def near(pixels, colour, tolerance=0.08):
        """Pixels within `tolerance` (0..1 per channel) of a colour."""
        return np.all(np.abs(pixels / 255.0 - np.asarray(colour)) <= tolerance, axis=1)

    # PV_PLUGIN_PATH has loaded the plugin at start-up; loading it again defines the filters'
    # functions in this namespace.
    simple.LoadPlugin(os.environ["EMST_GUI_PLUGIN"], remote=False, ns=globals())
    view = simple.GetActiveViewOrCreate("RenderView")
    cloud = simple.XMLPolyDataReader(registrationName="sample_cloud.vtp", FileName=[os.environ["EMST_GUI_SAMPLE"]])
    apply(cloud, view)
    tree = EuclideanMinimumSpanningTree(registrationName="EMST", Input=cloud)  # noqa: F821 (from LoadPlugin)
    views = apply(tree, view)
    simple.ResetCamera(view)

    check("EMST" in [name for (name, _) in simple.GetSources().keys()], "the filter is in the pipeline browser")
    hint = tree.SMProxy.GetHints().FindNestedElementByName("ShowInMenu")
    check(hint is not None and hint.GetAttribute("category") == "Point Interpolation",
          "menu hint: Filters > Point Interpolation")
    check(views.get(0) == view, "the tree is shown in the render view")

    points = servermanager.Fetch(cloud)
    result = servermanager.Fetch(tree)
    xyz = ns.vtk_to_numpy(points.GetPoints().GetData()).astype(np.float64)
    n = len(xyz)
    conn = ns.vtk_to_numpy(result.GetLines().GetConnectivityArray()).astype(np.int64)
    length = ns.vtk_to_numpy(result.GetCellData().GetArray("EdgeLength"))
    check(result.GetNumberOfPoints() == n, "output has the %d input points (got %d)" % (n, result.GetNumberOfPoints()))
    check(result.GetNumberOfLines() == n - 1 and len(length) == n - 1,
          "%d lines and EdgeLength values for %d points" % (result.GetNumberOfLines(), n))
    i, j = conn[0::2], conn[1::2]
    d = xyz[i] - xyz[j]
    dist = np.sqrt(d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1] + d[:, 2] * d[:, 2])
    check(bool(np.all(np.abs(dist - length) <= 1e-12 * np.maximum(dist, 1e-300))),
          "every EdgeLength is its end points' distance")
    total = math.fsum(length.tolist())
    field_total = result.GetFieldData().GetArray("TotalLength").GetValue(0)
    reference = reference_total()
    check(abs(total - reference) <= 1e-9 * reference and abs(field_total - total) <= 1e-12 * total,
          "total length %.17g (field data %.17g) vs the sample's Prim total %.17g" % (total, field_total, reference))
    backend = result.GetFieldData().GetAbstractArray("EMSTBackend").GetValue(0)
    check(backend.startswith("CPU") or backend.startswith("CUDA"), "EMSTBackend: " + backend)

    # The tree as Apply shows it: EdgeLength on the log Turbo map; on the picture, lines of many
    # hues (a linear map paints most of them one pale blue: 78% of the coloured pixels in one
    # sixth of the hue circle).
    lines = simple.GetDisplayProperties(tree, view)
    checked(defaults.check_tree_display, tree, lines, "GUI tree")
    pixels, drawn = screenshot(view, "gui_emst.png")
    rgb = pixels[drawn] / 255.0
    saturation = np.ptp(rgb, axis=1) / np.maximum(rgb.max(axis=1), 1e-9)
    coloured = rgb[(saturation > 0.25) & (rgb.max(axis=1) > 0.2)]
    hues = np.array([colorsys.rgb_to_hsv(*c)[0] for c in coloured])
    shares = np.histogram(hues, bins=6, range=(0, 1))[0] / max(len(hues), 1)
    check(len(coloured) > 10000 and shares.max() < 0.6 and np.count_nonzero(shares > 0.05) >= 3,
          "tree screenshot: %d coloured pixels, hue shares %s" % (len(coloured), np.round(shares, 2).tolist()))

    # MST Clusters, applied on the tree with a cut and a minimum size that leave noise.
    clusters = MSTClusters(registrationName="Clusters", Input=tree)  # noqa: F821
    clusters.UpdatePipeline()
    domain = clusters.GetProperty("Threshold").SMProperty.GetDomain("range")
    check(domain.GetMinimum(0) == float(length.min()) and domain.GetMaximum(0) == float(length.max()),
          "Threshold slider %g..%g = EdgeLength range %g..%g"
          % (domain.GetMinimum(0), domain.GetMaximum(0), length.min(), length.max()))
    middle = 0.5 * (float(length.min()) + float(length.max()))
    check(clusters.Threshold == middle, "Threshold starts at the slider's middle %g (got %g)" % (middle, clusters.Threshold))
    zero = MSTClusters(registrationName="ClustersAtZero", Input=tree, Threshold=0.0)  # noqa: F821
    zero.UpdatePipeline()
    check(zero.Threshold == 0.0 and servermanager.Fetch(zero).GetFieldData().GetArray("ClusterThreshold").GetValue(0) == 0.0,
          "MSTClusters(Threshold=0.0) cuts at 0, not at the slider's middle (Threshold %g)" % zero.Threshold)
    import paraview.simple
    paraview.simple.Delete(zero)
    threshold = float(np.quantile(length, 0.6))
    clusters.Threshold = threshold
    clusters.MinimumClusterSize = 10
    views = apply(clusters, view)
    names = {port: shown.GetXMLName() for port, shown in views.items()}
    check(views.get(0) == view and names.get(1) == "SpreadSheetView" and names.get(2) == "XYChartView",
          "outputs shown in the render view, a spreadsheet and a line chart: %s" % names)

    keep = length <= threshold
    groups = emst_testing.components(n, i[keep], j[keep])[0]
    graph = scipy.sparse.coo_matrix((np.ones(np.count_nonzero(keep)), (i[keep], j[keep])), shape=(n, n))
    label = scipy.sparse.csgraph.connected_components(graph, directed=False)[1]
    large = int(np.count_nonzero(np.bincount(label) >= 10))
    cut = servermanager.Fetch(clusters)
    found = cut.GetFieldData().GetArray("NumberOfClusters").GetValue(0)
    check(found == large, "%d clusters of 10+ points at the 60th percentile edge length: scipy %d "
          "(of %d groups; union-find %d)" % (found, large, label.max() + 1, groups))

    dots = simple.GetDisplayProperties(clusters, view)
    result = checked(defaults.check_clusters_display, clusters, dots, "GUI clusters")
    pixels, drawn = screenshot(view, "gui_clusters.png")
    colours = np.array(dots.LookupTable.IndexedColors).reshape(-1, 3)
    grey = int(np.count_nonzero(near(pixels, colours[0])))
    present = [int(np.count_nonzero(near(pixels, c))) for c in colours[1:10]]
    check(grey > 500 and sum(count > 30 for count in present) >= 4,
          "clusters screenshot: %d noise-grey pixels, pixels of the 9 largest clusters' colours %s" % (grey, present))

    table = servermanager.Fetch(clusters, idx=1)
    size = ns.vtk_to_numpy(table.GetRowData().GetArray("Size"))
    spreadsheet = views.get(1)
    check(spreadsheet is not None and len(size) == found and bool(np.all(np.diff(size) <= 0)) and
          spreadsheet.SMProxy.FindRepresentation(clusters.SMProxy, 1) is not None,
          "cluster table in the spreadsheet: %d rows, sizes %s... (largest first)" % (len(size), size[:5].tolist()))

    chart = views.get(2)
    if chart is not None:
        checked(defaults.check_histogram_chart, simple, clusters, tree, chart, "GUI histogram")
        pixels, drawn = screenshot(chart, "gui_histogram.png")
        series = simple.GetDisplayProperties(simple.OutputPort(clusters, 2), chart).GetProperty("SeriesColor").SMProperty
        values = [series.GetElement(k) for k in range(series.GetNumberOfElements())]  # name, r, g, b, ...
        rgb = {values[k]: [float(c) for c in values[k + 1:k + 4]] for k in range(0, len(values), 4)}
        counts = {name: int(np.count_nonzero(near(pixels, rgb[name], 0.1))) for name in ("EdgeCount", "ClustersAtBinEnd")}
        check(min(counts.values()) > 200 and 0.5 < float(np.mean(~drawn)) < 0.98,
              "histogram screenshot: %s pixels of the two series' colours, %.0f%% background"
              % (counts, 100 * float(np.mean(~drawn))))

    code = 0 if not failures else 1
    say("%d points, %d lines, total %.17g, %s: %s" % (n, n - 1, total, backend, "OK" if code == 0 else "FAILED"))
except Exception:
    say(traceback.format_exc())
    code = 1
finally:
    log.close()
    sys.stdout.flush()
    os._exit(code)
