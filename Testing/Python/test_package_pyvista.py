# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""The Python package with PyVista (the `vtk` wheel from PyPI), in the project's PyPI virtual
environment, under a display (Testing/GUI/with_xvfb.sh): a round trip

  points of a real set -> pyvista.PolyData -> emst.pyvista.tree -> .vtp file -> pyvista.read,

checked at each step against the NumPy API and the set's reference total (lines, EdgeLength,
TotalLength, ClusterId), then an off-screen plot of the tree coloured by EdgeLength written to a
PNG whose pixels are checked: most of the picture is the dark background, the tree covers a fair
share of it, and its colours span the colour map (a blank or one-colour picture fails).
"""
import argparse
import json
import os
import sys
import tempfile

import numpy as np

import emst_testing  # the data sets' reader
from emst_testing import SKIP, check

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--set", default="galaxies_mr19mock_box14k")
    parser.add_argument("--work-dir", default=None)
    args = parser.parse_args()
    try:
        import emst
        import emst.pyvista
        import pyvista
    except ImportError as error:
        print("SKIPPED: emst or pyvista is not importable in %s (%s)" % (sys.prefix, error))
        return SKIP
    pyvista.OFF_SCREEN = True
    work = args.work_dir or tempfile.mkdtemp(prefix="emst-pyvista-")
    os.makedirs(work, exist_ok=True)

    xyz, _ = emst_testing.read_f32(os.path.join(args.data_dir, args.set + ".f32"))
    with open(os.path.join(args.data_dir, args.set + ".ref.json")) as f:
        reference = json.load(f)["emst"]["total_weight"]
    cloud = pyvista.PolyData(xyz)
    cloud.point_data["Index"] = np.arange(len(xyz), dtype=np.int64)
    edges, lengths = emst.minimum_spanning_tree(xyz)
    linking = float(np.median(lengths))

    tree = emst.pyvista.tree(cloud, linking_length=linking, min_cluster_size=5)
    path = os.path.join(work, args.set + "_tree.vtp")
    tree.save(path)
    back = pyvista.read(path)
    for out, what in ((tree, "helper"), (back, "read back")):
        check(out.n_points == len(xyz) and out.n_lines == len(xyz) - 1,
              "%s: %d points, %d lines" % (what, out.n_points, out.n_lines))
        lines = out.lines.reshape(-1, 3)
        check(bool((lines[:, 0] == 2).all()) and np.array_equal(lines[:, 1:], edges),
              "%s: lines are not the tree's edges" % what)
        check(np.array_equal(out.cell_data["EdgeLength"], lengths), "%s: EdgeLength differs" % what)
        total = float(out.field_data["TotalLength"][0])
        emst_testing.check_weight(total, reference, what + ": TotalLength")
        check(np.array_equal(out.point_data["Index"], np.arange(len(xyz))), "%s: point array lost" % what)
        check(np.array_equal(out.point_data["ClusterId"], emst.fof_labels(xyz, linking, 5)),
              "%s: ClusterId differs from fof_labels" % what)
        check(np.array_equal(np.asarray(out.points), xyz), "%s: points moved" % what)
    print("PASS: %s: PolyData -> tree -> .vtp -> read: %d lines, EdgeLength, TotalLength %.17g "
          "(reference %.17g), ClusterId, point arrays" % (args.set, back.n_lines, total, reference))

    # Off-screen plot: log EdgeLength on a dark background, as the plugin shows it.
    png = os.path.join(work, args.set + "_tree.png")
    plotter = pyvista.Plotter(off_screen=True, window_size=(640, 480))
    plotter.set_background("black")
    # The colour range of the middle 98% of the lengths: a few very short edges would otherwise
    # give most of the log range to a handful of lines.
    plotter.add_mesh(back, scalars="EdgeLength", log_scale=True, cmap="turbo", line_width=2,
                     clim=np.percentile(lengths, [1, 99]), show_scalar_bar=False)
    plotter.view_isometric()
    plotter.screenshot(png)
    plotter.close()
    check(os.path.getsize(png) > 0, "no PNG written")
    image = pyvista.read(png)
    rgb = np.asarray(image.point_data.active_scalars)[:, :3].astype(int)
    lit = rgb.max(axis=1) > 24
    covered = lit.mean()
    check(0.02 <= covered <= 0.9, "PNG: %.1f%% of the pixels are not background" % (100 * covered))
    colours = np.unique(rgb[lit] // 32, axis=0)  # 8 levels per channel
    hues = rgb[lit].argmax(axis=1)
    spread = np.bincount(hues, minlength=3) / lit.sum()
    check(len(colours) >= 12, "PNG: only %d colours" % len(colours))
    check((spread > 0.1).sum() >= 2, "PNG: one channel dominates every pixel (%s)" % spread)
    print("PASS: off-screen plot %s: %dx%d, %.1f%% covered, %d colours, dominant channel shares %s"
          % (png, image.dimensions[0], image.dimensions[1], 100 * covered, len(colours),
             np.round(spread, 2).tolist()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
