# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""Run inside the ParaView GUI (paraview --script=gui_emst.py, under Xvfb; see run_gui_test.sh).

The GUI loads the plugin, opens the bundled sample, applies "Euclidean Minimum Spanning Tree",
colours the tree by EdgeLength and saves a screenshot. The run is then checked by its numbers:
n - 1 lines, every EdgeLength the distance of its end points, the total equal to the sample's
Prim MST total (Data/sample_cloud.json, computed independently of the engine), the field data, the
menu hint, and a screenshot that shows coloured lines. Then "MST Clusters" on the tree: its
Threshold slider spans the tree's edge lengths, its outputs go to the views ParaView picks for
them (points in the render view, the cluster table in a spreadsheet, the edge-length histogram
in a bar chart, whose screenshot must show bars), and the cluster count equals the number of
groups of the tree's edges no longer than the threshold (emst_testing.components, a union-find;
run_gui_test.sh names its folder in $EMST_GUI_TESTING_DIR). A GUI script prints into the GUI, not to a
terminal: the log goes to $EMST_GUI_OUTPUT/gui_log.txt and the verdict is the exit code
(os._exit, as the GUI would otherwise keep running)."""
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
    sys.path.insert(0, os.environ["EMST_GUI_TESTING_DIR"])
    import emst_testing
    from paraview import servermanager
    from paraview.simple import (AssignViewToLayout, ColorBy, GetActiveViewOrCreate, GetSources, LoadPlugin, Render,
                                 ResetCamera, SaveScreenshot, SetActiveSource, Show,
                                 XMLPolyDataReader)
    from vtkmodules.util import numpy_support as ns
    from vtkmodules.vtkIOImage import vtkPNGReader

    LoadPlugin(os.environ["EMST_GUI_PLUGIN"], remote=False, ns=globals())
    cloud = XMLPolyDataReader(registrationName="sample_cloud.vtp", FileName=[os.environ["EMST_GUI_SAMPLE"]])
    SetActiveSource(cloud)
    tree = EuclideanMinimumSpanningTree(registrationName="EMST", Input=cloud)  # noqa: F821 (from LoadPlugin)
    view = GetActiveViewOrCreate("RenderView")
    view.ViewSize = [900, 700]
    dots = Show(cloud, view)
    dots.SetRepresentationType("Points")
    lines = Show(tree, view)
    ColorBy(lines, ("CELLS", "EdgeLength"))
    lines.RescaleTransferFunctionToDataRange(True)
    lines.SetScalarBarVisibility(view, True)
    ResetCamera(view)
    Render(view)
    png = os.path.join(out_dir, "gui_emst.png")
    SaveScreenshot(png, view, ImageResolution=[900, 700])

    failures = []

    def check(ok, text):
        say(("PASS: " if ok else "FAIL: ") + text)
        if not ok:
            failures.append(text)

    check("EMST" in [name for (name, _) in GetSources().keys()], "the filter is in the pipeline browser")
    hint = tree.SMProxy.GetHints().FindNestedElementByName("ShowInMenu")
    check(hint is not None and hint.GetAttribute("category") == "Point Interpolation",
          "menu hint: Filters > Point Interpolation")

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

    image = vtkPNGReader()
    image.SetFileName(png)
    image.Update()
    pixels = ns.vtk_to_numpy(image.GetOutput().GetPointData().GetScalars())[:, :3].astype(int)
    colours = len(np.unique(pixels[:, 0] * 65536 + pixels[:, 1] * 256 + pixels[:, 2]))
    background = float(np.all(pixels == pixels[0], axis=1).mean())
    check(os.path.getsize(png) > 10000 and colours > 100 and background < 0.95,
          "screenshot %s: %d colours, %.0f%% background" % (os.path.basename(png), colours, 100 * background))
    # MST Clusters, shown the way the GUI's Apply shows a filter: each output port in the view
    # type its hints prefer.
    from paraview.modules.vtkRemotingViews import vtkSMParaViewPipelineControllerWithRendering
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
    threshold = float(np.quantile(length, 0.9))
    clusters.Threshold = threshold
    clusters.UpdatePipeline()
    controller = vtkSMParaViewPipelineControllerWithRendering()
    views = {}
    for port in range(3):
        representation = controller.ShowInPreferredView(clusters.SMProxy, port, None)
        views[port] = controller.GetPreferredViewType(clusters.SMProxy, port)
        check(representation is not None, "output %d shown (in %s)" % (port, views[port] or "the render view"))
    check(views[1] == "SpreadSheetView" and views[2] == "XYBarChartView",
          "cluster table in a spreadsheet, histogram in a bar chart (%s, %s)" % (views[1], views[2]))
    chart = next(v for v in servermanager.GetRenderViews() + [p for p in servermanager.ProxyManager().GetProxiesInGroup("views").values()]
                 if v.GetXMLName() == "XYBarChartView")
    AssignViewToLayout(view=chart)
    Render(chart)
    chart_png = os.path.join(out_dir, "gui_histogram.png")
    SaveScreenshot(chart_png, chart, ImageResolution=[600, 400])
    image.SetFileName(chart_png)
    image.Modified()
    image.Update()
    pixels = ns.vtk_to_numpy(image.GetOutput().GetPointData().GetScalars())[:, :3].astype(int)
    packed = pixels[:, 0] * 65536 + pixels[:, 1] * 256 + pixels[:, 2]
    values, counts = np.unique(packed, return_counts=True)
    background = counts.max() / len(packed)
    # A chart: one background colour over most of the picture, and bars in the series colours.
    check(0.4 < background < 0.98 and len(values) < 2000,
          "histogram screenshot %s: %.0f%% background, %d colours" % (os.path.basename(chart_png), 100 * background, len(values)))
    keep = length <= threshold
    groups = emst_testing.components(n, i[keep], j[keep])[0]
    cut = servermanager.Fetch(clusters)
    found = cut.GetFieldData().GetArray("NumberOfClusters").GetValue(0)
    check(found == groups, "%d clusters at the 90th percentile edge length, union-find %d" % (found, groups))

    code = 0 if not failures else 1
    say("%d points, %d lines, total %.17g, %s: %s" % (n, n - 1, total, backend, "OK" if code == 0 else "FAILED"))
except Exception:
    say(traceback.format_exc())
    code = 1
finally:
    log.close()
    sys.stdout.flush()
    os._exit(code)
