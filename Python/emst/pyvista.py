# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""The tree as a pyvista.PolyData, in the layout of the VTK filter Euclidean Minimum Spanning Tree
(the input points and point arrays, one line per edge, shortest first, the cell array EdgeLength,
the field data TotalLength and EMSTBackend), and the friends-of-friends groups as ClusterId.

    import pyvista, emst.pyvista
    tree = emst.pyvista.tree(pyvista.read("cloud.vtp"), linking_length=0.5)
    tree.plot(scalars="EdgeLength", log_scale=True, off_screen=True, screenshot="tree.png")

Imports pyvista (and so vtk); `import emst` alone does not.
"""

import numpy as np
import pyvista

from . import fof_labels, minimum_spanning_tree
from .vtk import _described


def tree(data, backend="auto", linking_length=None, min_cluster_size=1):
    """The exact Euclidean minimum spanning tree of `data`'s points as a pyvista.PolyData.

    `data`: any pyvista (or VTK) data set with points, or an (n, 2|3) array (2D points get z = 0).
    Point arrays of a data set are kept. With `linking_length`, the point array ClusterId holds
    emst.fof_labels(points, linking_length, min_cluster_size) (-1: noise; the tree is computed a
    second time for it). Non-finite points are kept without edges, as the filter does.
    """
    if isinstance(data, pyvista.DataSet) or hasattr(data, "GetPoints"):
        mesh = pyvista.wrap(data)
        points = mesh.points
        point_data = mesh.point_data
    else:
        points = np.asarray(data)
        point_data = None
    edges, lengths, info = minimum_spanning_tree(points, backend=backend, return_info=True)
    xyz = np.asarray(points)
    if xyz.ndim == 2 and xyz.shape[1] == 2:
        xyz = np.column_stack([xyz, np.zeros(len(xyz), xyz.dtype)])
    cells = np.empty((len(edges), 3), np.int64)
    cells[:, 0] = 2
    cells[:, 1:] = edges
    out = pyvista.PolyData(xyz, lines=cells.ravel())
    if point_data is not None:
        for name in point_data.keys():
            out.point_data[name] = point_data[name]
    out.cell_data["EdgeLength"] = lengths
    out.field_data["TotalLength"] = np.array([info["total_length"]])
    out.field_data["EMSTBackend"] = np.array([_described(info["backend"], info["device"])])
    if linking_length is not None:
        out.point_data["ClusterId"] = fof_labels(points, linking_length, min_cluster_size,
                                                 backend=backend)
    return out
