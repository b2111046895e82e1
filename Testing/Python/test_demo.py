# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""The main job (Examples/emst_demo.py, the README's first command) on the bundled sample:
it must exit 0, write a tree that a plain pvpython reads back (no libexpat work-around) with
n - 1 lines and the total length of Data/sample_cloud.json (computed by an independent O(n^2)
Prim when the sample was made), and render a PNG that shows the coloured tree, not an empty view."""
import json
import os
import subprocess

import numpy as np
from vtkmodules.util import numpy_support
from vtkmodules.vtkIOImage import vtkPNGReader
from vtkmodules.vtkIOXML import vtkXMLPolyDataReader

import emst_testing as t

args = t.arguments()
with open(os.path.splitext(args.sample)[0] + ".json") as f:
    expected = json.load(f)
os.makedirs(args.work_dir, exist_ok=True)
for name in os.listdir(args.work_dir):
    os.unlink(os.path.join(args.work_dir, name))

command = [args.display_wrapper, args.pvpython, args.demo, "--plugin", args.plugin,
           "--input", args.sample, "--output-dir", args.work_dir]
child = subprocess.run(command, capture_output=True, text=True, timeout=300)
print(child.stdout + child.stderr)
assert child.returncode == 0, "the demo exited with %d" % child.returncode

vtp = os.path.join(args.work_dir, "sample_cloud_emst.vtp")
png = os.path.join(args.work_dir, "sample_cloud_emst.png")
reader = vtkXMLPolyDataReader()
reader.SetFileName(vtp)
reader.Update()
tree = reader.GetOutput()
n = expected["points"]
total = t.check_tree(tree, np.ones(n, bool), "demo output")
relative = abs(total - expected["emst_total_length"]) / expected["emst_total_length"]
assert relative <= 1e-9, "demo total %.17g, Prim %.17g" % (total, expected["emst_total_length"])
assert tree.GetPointData().GetArray("Structure") is not None, "the sample's point arrays were not kept"
t.passed("demo wrote %s: %d points, %d lines, total %.17g (Prim: %.17g)"
         % (os.path.basename(vtp), n, n - 1, total, expected["emst_total_length"]))

image = vtkPNGReader()
image.SetFileName(png)
image.Update()
dims = image.GetOutput().GetDimensions()
pixels = numpy_support.vtk_to_numpy(image.GetOutput().GetPointData().GetScalars())[:, :3].astype(int)
assert dims[0] >= 800 and dims[1] >= 600, "picture too small: %s" % (dims,)
colours = len(np.unique(pixels[:, 0] * 65536 + pixels[:, 1] * 256 + pixels[:, 2]))
background = np.all(pixels == pixels[0], axis=1).mean()
# Turbo's red end (long background edges) and its cyan-green middle (halo edges) must both show.
reds = np.count_nonzero((pixels[:, 0] > 150) & (pixels[:, 1] < 120) & (pixels[:, 2] < 80))
cyans = np.count_nonzero((pixels[:, 1] > 150) & (pixels[:, 2] > 120) & (pixels[:, 0] < 150))
assert colours > 200 and background < 0.9 and reds > 2000 and cyans > 2000, \
    "the picture does not show the coloured tree: %d colours, %.0f%% background, %d red, %d cyan pixels" \
    % (colours, 100 * background, reds, cyans)
t.passed("demo rendered %s: %dx%d, %d colours, %.0f%% background, %d red and %d cyan pixels"
         % (os.path.basename(png), dims[0], dims[1], colours, 100 * background, reds, cyans))
