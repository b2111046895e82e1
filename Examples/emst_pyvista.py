# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""The Python package with NumPy, SciPy and PyVista, no ParaView: a notebook-style script (each
`# %%` cell runs on its own in Jupyter or VS Code).

    python3 -m venv v && v/bin/pip install . pyvista
    v/bin/python Examples/emst_pyvista.py [--input Data/sample_cloud.vtp] [--output-dir emst-pyvista]

Computes the tree of the bundled sample, its friends-of-friends groups and HDBSCAN* clusters, and
plots them off screen to OUTPUT_DIR/tree.png and OUTPUT_DIR/clusters.png (on a machine without a
display, run it under `xvfb-run -a`).
"""
# %% Read a cloud (any file pyvista reads, or an (n, 3) NumPy array)
import argparse
import os

import numpy as np
import pyvista

import emst
import emst.pyvista

here = os.path.dirname(os.path.abspath(__file__))
parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--input", default=os.path.join(here, "..", "Data", "sample_cloud.vtp"))
parser.add_argument("--output-dir", default="emst-pyvista")
parser.add_argument("--backend", default="auto", choices=["auto", "cuda", "cpu"])
args, _ = parser.parse_known_args()  # parse_known_args: Jupyter passes arguments of its own
os.makedirs(args.output_dir, exist_ok=True)
pyvista.OFF_SCREEN = True

cloud = pyvista.read(args.input)
points = np.asarray(cloud.points)  # float32 (n, 3): the engine reads it in place
print(f"{len(points)} points")

# %% The tree with the NumPy API
edges, lengths, info = emst.minimum_spanning_tree(points, backend=args.backend, return_info=True)
print(f"{len(edges)} edges, total length {info['total_length']:.17g}, ran on {info['device']}")

# %% Friends-of-friends groups: b = 0.2 times the mean inter-particle spacing
volume = np.prod(np.ptp(points, axis=0))
linking = 0.2 * (volume / len(points)) ** (1 / 3)
groups = emst.fof_labels(points, linking, min_cluster_size=20, backend=args.backend)
print(f"linking length {linking:.4g}: {groups.max() + 1} groups of 20 points or more, "
      f"{(groups == -1).sum()} points in smaller ones")

# %% HDBSCAN*: clusters of varying density, no threshold
labels, probabilities, outlier_scores = emst.hdbscan(points, min_samples=10, min_cluster_size=50,
                                                     backend=args.backend)
print(f"HDBSCAN*: {labels.max() + 1} clusters, {(labels == -1).sum()} noise points")

# %% The tree as a PyVista mesh (lines, EdgeLength, TotalLength), coloured by edge length
tree = emst.pyvista.tree(cloud, backend=args.backend)
plotter = pyvista.Plotter(off_screen=True, window_size=(1024, 768))
plotter.set_background("#1a1a2e")
plotter.add_mesh(tree, scalars="EdgeLength", log_scale=True, cmap="turbo", line_width=1.5,
                 clim=np.percentile(lengths, [1, 99]), scalar_bar_args={"title": "EdgeLength"})
plotter.view_xy()
plotter.screenshot(os.path.join(args.output_dir, "tree.png"))
plotter.close()

# %% The HDBSCAN* clusters, noise in grey
clustered = pyvista.PolyData(points)
clustered.point_data["ClusterId"] = labels
plotter = pyvista.Plotter(off_screen=True, window_size=(1024, 768))
plotter.set_background("#1a1a2e")
plotter.add_mesh(clustered.extract_points(labels == -1, adjacent_cells=False), color="grey",
                 point_size=2, render_points_as_spheres=False)
plotter.add_mesh(clustered.extract_points(labels >= 0, adjacent_cells=False), scalars="ClusterId",
                 cmap="tab20", point_size=4, show_scalar_bar=False)
plotter.view_xy()
plotter.screenshot(os.path.join(args.output_dir, "clusters.png"))
plotter.close()
print(f"wrote {args.output_dir}/tree.png and {args.output_dir}/clusters.png")
