# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""The main job: the EMST of a point cloud, written to a .vtp and rendered to a PNG.

    xvfb-run -a pvpython Examples/emst_demo.py --plugin build/lib/paraview-5.11/plugins/EMST/EMST.so \
        [--input Data/sample_cloud.vtp] [--output-dir build/demo] [--backend auto|cuda|cpu]

Writes OUTPUT_DIR/sample_cloud_emst.vtp (the tree: points, lines, EdgeLength) and
OUTPUT_DIR/sample_cloud_emst.png (the points and the tree coloured by EdgeLength), and prints the
numbers. Rendering needs a display (xvfb-run -a gives one); --no-render skips it.

The .vtp is written with inline binary data (DataMode 'Binary'), which every ParaView 5.11 reads,
also with Debian's patched libexpat that breaks the default appended mode (docs/libexpat.md).
"""
import argparse
import os
import sys
import time

from paraview.simple import (ColorBy, CreateView, GetScalarBar, LoadPlugin, Render, SaveData,
                             SaveScreenshot, Show, XMLPolyDataReader)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plugin", required=True, help="path of the built EMST.so")
    parser.add_argument("--input", default=os.path.join(here, "..", "..", "Data", "sample_cloud.vtp"))
    parser.add_argument("--output-dir", default="emst-demo")
    parser.add_argument("--backend", default="Auto", choices=["Auto", "CUDA", "CPU", "auto", "cuda", "cpu"])
    parser.add_argument("--no-render", action="store_true", help="compute and write, no PNG")
    args = parser.parse_args()

    LoadPlugin(os.path.abspath(args.plugin), remote=False, ns=globals())
    os.makedirs(args.output_dir, exist_ok=True)
    stem = os.path.splitext(os.path.basename(args.input))[0] + "_emst"
    vtp = os.path.join(args.output_dir, stem + ".vtp")
    png = os.path.join(args.output_dir, stem + ".png")

    cloud = XMLPolyDataReader(registrationName="cloud", FileName=[os.path.abspath(args.input)])
    # LoadPlugin(..., ns=globals()) has defined EuclideanMinimumSpanningTree here.
    tree = globals()["EuclideanMinimumSpanningTree"](registrationName="tree", Input=cloud)
    tree.Backend = {"auto": "Auto", "cuda": "CUDA", "cpu": "CPU"}.get(args.backend.lower())
    start = time.time()
    tree.UpdatePipeline()
    seconds = time.time() - start

    # The tree itself (built-in session: the client's object is the output): counts, field data.
    result = tree.GetClientSideObject().GetOutputDataObject(0)
    fields = result.GetFieldData()
    total = fields.GetArray("TotalLength").GetValue(0)
    backend = fields.GetAbstractArray("EMSTBackend").GetValue(0)
    points, lines = result.GetNumberOfPoints(), result.GetNumberOfLines()
    print("EMST of %s: %d points, %d edges, total length %.17g, backend %s, %.3f s"
          % (args.input, points, lines, total, backend, seconds))
    if points < 2 or lines != points - 1:
        print("error: expected %d edges" % max(points - 1, 0), file=sys.stderr)
        return 1

    SaveData(vtp, proxy=tree, DataMode="Binary", CompressorType="ZLib")
    print("wrote", vtp)
    if args.no_render:
        return 0
    if not os.environ.get("DISPLAY"):
        print("no display: run under 'xvfb-run -a' to render the PNG, or pass --no-render",
              file=sys.stderr)
        return 1

    view = CreateView("RenderView")
    view.ViewSize = [1000, 800]
    view.OrientationAxesVisibility = 0
    try:  # ParaView 5.11: the background comes from the palette unless told otherwise
        view.UseColorPaletteForBackground = 0
    except AttributeError:
        pass
    view.Background = [0.06, 0.06, 0.09]

    # The colouring is the plugin's default, the same as the GUI's on Apply: EdgeLength on a log
    # scale (edge lengths span orders of magnitude: halos, filaments, background) with the Turbo
    # preset, from the longest edge down two decades (docs/filters.md, "What you see").
    edges = Show(tree, view)
    edges.LineWidth = 2.0
    lut = edges.LookupTable
    bar = GetScalarBar(lut, view)
    bar.Title = "EdgeLength"
    bar.ComponentTitle = ""
    bar.TitleColor = bar.LabelColor = [0.9, 0.9, 0.9]
    bar.Visibility = 1

    dots = Show(cloud, view)
    dots.SetRepresentationType("Points")
    dots.PointSize = 1.5
    ColorBy(dots, ("POINTS", None))
    dots.AmbientColor = dots.DiffuseColor = [1.0, 1.0, 1.0]
    dots.Opacity = 0.6

    Render(view)  # the first Render resets the camera: place it after
    view.ResetCamera()
    camera = view.GetActiveCamera()
    camera.Elevation(20)
    camera.Azimuth(30)
    view.ResetCamera()
    camera.Dolly(1.45)
    Render(view)
    SaveScreenshot(png, view, ImageResolution=[1000, 800])
    print("wrote", png)
    return 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    # Leave without tearing down the render window: pvpython under Xvfb can die in the GLX clean-up
    # at exit (X_GLXMakeCurrent, GLXBadContext) after everything has been written.
    os._exit(code)
