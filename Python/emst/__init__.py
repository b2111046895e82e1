# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""Exact Euclidean minimum spanning trees of 2D/3D point clouds, on the GPU (CUDA) or the CPU.

The NumPy API (no VTK is imported):

    edges, lengths = emst.minimum_spanning_tree(points)    # (n-1, 2) int64, (n-1,) float64
    Z = emst.single_linkage(points)                        # scipy.cluster.hierarchy.linkage layout
    labels = emst.fof_labels(points, linking_length=0.5)   # friends-of-friends groups
    labels, probabilities, outlier_scores = emst.hdbscan(points, min_samples=5, min_cluster_size=5)

`points` is an array of shape (n, 2) or (n, 3). float32 and float64 arrays whose columns are
adjacent in memory (C-contiguous arrays, and row views such as big[:, :3] or big[::2]) are read in
place, without a copy; any other array (other dtypes, Fortran order) is converted to a float64
copy first. Points with a NaN or infinite coordinate are left out of the tree (no edge reaches
them) and are noise in the clusterings, as in the VTK filters.

`backend` is "auto" (the GPU when a usable CUDA device exists, else the CPU; the environment
variable EMST_BACKEND decides when it is set), "cuda" (or "gpu") or "cpu". Both backends give the
same tree, edge for edge. Errors of the engine raise emst.Error (a RuntimeError) with the name of
its error code in `.code` ("DeviceUnavailable" for backend="cuda" without a GPU, ...); arguments of
the wrong shape or value raise ValueError before the engine runs.

The VTK filters for the `vtk` wheel and PyVista are in emst.vtk (which imports vtk).
"""

import os as _os

import numpy as _np

from . import _core
from ._core import Error

__version__ = "0.1.0"
__all__ = ["Error", "minimum_spanning_tree", "single_linkage", "fof_labels", "hdbscan",
           "cuda_compiled", "cuda_available"]

_BACKENDS = ("auto", "cuda", "gpu", "cpu")


def _backend(backend):
    if not isinstance(backend, str) or backend.lower() not in _BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(_BACKENDS)}; got {backend!r}")
    backend = backend.lower()
    if backend == "auto":
        chosen = _os.environ.get("EMST_BACKEND", "").strip().lower()
        if chosen:
            if chosen not in _BACKENDS:
                raise ValueError(f"EMST_BACKEND must be one of {', '.join(_BACKENDS)}; got "
                                 f"{chosen!r}")
            backend = chosen
    return backend


def _points(points):
    """The points as an array the engine reads in place: float32/float64, shape (n, 2|3), columns
    adjacent, rows at a positive stride (a copy only when `points` is not already one)."""
    array = _np.asarray(points)
    if array.dtype not in (_np.float32, _np.float64):
        if array.dtype.kind not in "biuf":
            raise ValueError(f"points must be real numbers; got dtype {array.dtype}")
        array = array.astype(_np.float64)
    if array.ndim != 2 or array.shape[1] not in (2, 3):
        raise ValueError(f"points must have shape (n, 2) or (n, 3); got {array.shape}")
    item = array.itemsize
    if array.shape[0] > 1 and (array.strides[1] != item or array.strides[0] % item != 0
                               or array.strides[0] < array.shape[1] * item):
        array = _np.ascontiguousarray(array)
    return array


def minimum_spanning_tree(points, backend="auto", return_info=False):
    """The exact Euclidean minimum spanning tree of the finite points.

    Returns (edges, lengths): edges an (m, 2) int64 array of input point indices i < j, lengths
    the (m,) float64 edge lengths, m = (number of finite points) - 1 (0 for fewer than two),
    ordered by (length, i, j). With return_info=True, also a dict: total_length (compensated sum),
    backend ("CUDA" or "CPU", the one that ran), device, valid_points, non_finite_points and the
    engine's messages.
    """
    edges, lengths, info = _core.tree(_points(points), _backend(backend))
    return (edges, lengths, info) if return_info else (edges, lengths)


def single_linkage(points, backend="auto"):
    """The single-linkage dendrogram as scipy.cluster.hierarchy.linkage(points, "single") gives it:
    an (n-1, 4) float64 array of rows (cluster a, cluster b, height, size), points being clusters
    0..n-1 and row k making cluster n+k. Merges of equal height may come in another order than
    scipy's. Every coordinate must be finite (as for scipy): else emst.Error (InvalidInput).
    """
    return _core.single_linkage(_points(points), _backend(backend))


def fof_labels(points, linking_length, min_cluster_size=1, backend="auto"):
    """Friends-of-friends groups: points closer than `linking_length` (or at it) are friends and a
    group is a connected set of friends, i.e. the single-linkage clusters at that height
    (scipy's fcluster(Z, linking_length, "distance")).

    Returns (n,) int32 labels: 0 for the largest group, then by decreasing size (ties: the group
    with the smallest point index first); -1 for groups of fewer than `min_cluster_size` points
    and for non-finite points when min_cluster_size > 1.
    """
    linking_length = float(linking_length)
    if not linking_length >= 0.0:
        raise ValueError(f"linking_length must be a number >= 0; got {linking_length}")
    if int(min_cluster_size) < 1:
        raise ValueError(f"min_cluster_size must be at least 1; got {min_cluster_size}")
    return _core.fof_labels(_points(points), linking_length, int(min_cluster_size),
                            _backend(backend))


def hdbscan(points, min_samples=5, min_cluster_size=5, cluster_selection_method="eom",
            cluster_selection_epsilon=0.0, allow_single_cluster=False, backend="auto"):
    """HDBSCAN* clusters, with scikit-learn's parameters and conventions (sklearn.cluster.HDBSCAN):
    min_samples counts the point itself; cluster_selection_method "eom" or "leaf".

    Returns (labels, probabilities, outlier_scores), each of shape (n,): int32 labels (0 = the
    largest cluster, -1 = noise; scikit-learn numbers clusters in another order), float64
    membership strengths in [0, 1], float64 GLOSH outlier scores in [0, 1] (NaN for non-finite
    points). docs/hdbscan.md has the details (ties, limits).
    """
    if int(min_samples) < 1:
        raise ValueError(f"min_samples must be at least 1; got {min_samples}")
    if int(min_cluster_size) < 2:
        raise ValueError(f"min_cluster_size must be at least 2; got {min_cluster_size}")
    if cluster_selection_method not in ("eom", "leaf"):
        raise ValueError("cluster_selection_method must be 'eom' or 'leaf'; got "
                         f"{cluster_selection_method!r}")
    epsilon = float(cluster_selection_epsilon)
    if not epsilon >= 0.0:
        raise ValueError(f"cluster_selection_epsilon must be a number >= 0; got {epsilon}")
    return _core.hdbscan(_points(points), int(min_samples), int(min_cluster_size),
                         cluster_selection_method, epsilon, bool(allow_single_cluster),
                         _backend(backend))


def cuda_compiled():
    """True when this build contains the CUDA backend (nvcc was found when it was built)."""
    return _core.cuda_compiled()


def cuda_available():
    """(available, reason): whether backend="cuda" can run here, and why not."""
    return tuple(_core.cuda_available())
