# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""Generates Data/sample_cloud.vtp, the bundled sample: a small synthetic "cosmic web" in 3D.

Run with ParaView's Python (it needs VTK and numpy):  pvpython Data/make_sample.py [OUTDIR]

The cloud: dense Gaussian halos, filaments joining each halo to its nearest neighbours, and a
sparse uniform background, in a 100 x 100 x 100 box; coordinates float32. It has the three
scales an EMST is good at showing (short edges inside halos, medium along filaments, long in the
background). Point arrays: Structure (0 background, 1 filament, 2 halo) and HaloId (-1 outside
halos). The file is written with inline (not appended) binary data so that every ParaView reads
it, Debian's patched libexpat included (see README.md).

Also writes sample_cloud.json with the EMST total length computed here by an O(n^2) Prim in
double precision (independent of the engine), as the reference the demo and the tests compare to.
The generator is deterministic (numpy's legacy RandomState, whose streams are frozen).
"""
import json
import math
import os
import sys

import numpy as np
from vtkmodules.util import numpy_support
from vtkmodules.vtkCommonCore import vtkPoints
from vtkmodules.vtkCommonDataModel import vtkCellArray, vtkPolyData
from vtkmodules.vtkIOXML import vtkXMLPolyDataWriter

SEED = 20260311
BOX = 100.0


def make_cloud(rng):
    halo_count = 9
    centres = rng.uniform(12.0, BOX - 12.0, size=(halo_count, 3))
    sizes = rng.randint(250, 1100, size=halo_count)
    sigmas = rng.uniform(1.2, 3.5, size=halo_count)

    parts, structure, halo_id = [], [], []
    for h in range(halo_count):
        pts = centres[h] + rng.normal(0.0, sigmas[h], size=(sizes[h], 3))
        parts.append(pts)
        structure.append(np.full(sizes[h], 2, np.int32))
        halo_id.append(np.full(sizes[h], h, np.int32))

    # Filaments: each halo to its two nearest halos, points spread along the segment.
    links = set()
    for h in range(halo_count):
        d = np.linalg.norm(centres - centres[h], axis=1)
        for other in np.argsort(d)[1:3]:
            links.add((min(h, int(other)), max(h, int(other))))
    for a, b in sorted(links):
        length = float(np.linalg.norm(centres[b] - centres[a]))
        count = int(9.0 * length)
        t = rng.uniform(0.0, 1.0, size=(count, 1))
        pts = centres[a] + t * (centres[b] - centres[a]) + rng.normal(0.0, 0.8, size=(count, 3))
        parts.append(pts)
        structure.append(np.full(count, 1, np.int32))
        halo_id.append(np.full(count, -1, np.int32))

    background = 1200
    parts.append(rng.uniform(0.0, BOX, size=(background, 3)))
    structure.append(np.zeros(background, np.int32))
    halo_id.append(np.full(background, -1, np.int32))

    points = np.concatenate(parts).astype(np.float32)
    return points, np.concatenate(structure), np.concatenate(halo_id)


def prim_total_length(points):
    """Exact EMST total length by Prim's algorithm on the complete graph, O(n^2), in double."""
    p = points.astype(np.float64)
    n = len(p)
    in_tree = np.zeros(n, bool)
    best = np.full(n, np.inf)
    in_tree[0] = True
    diff = p - p[0]
    best = np.sqrt(diff[:, 0] * diff[:, 0] + diff[:, 1] * diff[:, 1] + diff[:, 2] * diff[:, 2])
    best[0] = np.inf
    lengths = []
    for _ in range(n - 1):
        k = int(np.argmin(np.where(in_tree, np.inf, best)))
        lengths.append(best[k])
        in_tree[k] = True
        diff = p - p[k]
        d = np.sqrt(diff[:, 0] * diff[:, 0] + diff[:, 1] * diff[:, 1] + diff[:, 2] * diff[:, 2])
        best = np.minimum(best, d)
    return math.fsum(lengths), len(lengths)


def write_vtp(path, points, structure, halo_id):
    poly = vtkPolyData()
    vtk_points = vtkPoints()
    vtk_points.SetData(numpy_support.numpy_to_vtk(points, deep=True))
    poly.SetPoints(vtk_points)
    # One vertex cell per point, so that the file shows as points when opened in ParaView.
    n = len(points)
    verts = vtkCellArray()
    verts.SetData(1, numpy_support.numpy_to_vtkIdTypeArray(np.arange(n, dtype=np.int64), deep=True))
    poly.SetVerts(verts)
    for name, values in (("Structure", structure), ("HaloId", halo_id)):
        array = numpy_support.numpy_to_vtk(values, deep=True)
        array.SetName(name)
        poly.GetPointData().AddArray(array)
    writer = vtkXMLPolyDataWriter()
    writer.SetFileName(path)
    writer.SetInputData(poly)
    writer.SetDataModeToBinary()  # inline base64: readable whatever libexpat does
    writer.SetCompressorTypeToZLib()
    if not writer.Write():
        raise SystemExit("could not write " + path)


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    rng = np.random.RandomState(SEED)
    points, structure, halo_id = make_cloud(rng)
    vtp = os.path.join(outdir, "sample_cloud.vtp")
    write_vtp(vtp, points, structure, halo_id)
    total, edges = prim_total_length(points)
    info = {
        "file": "sample_cloud.vtp",
        "generator": "Data/make_sample.py (numpy RandomState seed %d)" % SEED,
        "points": int(len(points)),
        "dimension": 3,
        "point_arrays": ["Structure", "HaloId"],
        "emst_edges": edges,
        "emst_total_length": total,
        "emst_total_length_repr": repr(total),
        "emst_method": "O(n^2) Prim in double precision on the float32 coordinates, math.fsum",
    }
    with open(os.path.join(outdir, "sample_cloud.json"), "w") as f:
        json.dump(info, f, indent=1)
        f.write("\n")
    print("wrote %s: %d points, EMST total length %r" % (vtp, len(points), total))


if __name__ == "__main__":
    main()
