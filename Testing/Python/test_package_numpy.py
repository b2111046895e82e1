# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""The Python package's NumPy API (pip-installed in the project's PyPI virtual environment by the
fixture pypi.package) against independent references:

  - `import emst` imports no VTK;
  - on real sets (--data-dir, repeatable): the total length against the set's reference to 1e-12,
    a spanning tree, sorted by (length, i, j), lengths equal to numpy's from the coordinates, the
    points read in place (the engine's address is the array's, row views included), float64
    giving the same tree as float32;
  - on small sets: the edges equal scipy's minimum_spanning_tree of the complete graph (random
    clouds) and of the Delaunay graph (larger random clouds); the dendrogram against
    scipy.cluster.hierarchy.linkage; fof_labels against scipy's fcluster, as partitions;
  - HDBSCAN* against scikit-learn's sklearn.cluster.HDBSCAN on well separated blobs;
  - non-finite points and errors: ValueError for bad arguments, emst.Error with the engine's code
    and message, backend="cuda" without a GPU.
"""
import argparse
import glob
import json
import math
import os
import subprocess
import sys

import numpy as np
from scipy.cluster.hierarchy import fcluster, is_valid_linkage, linkage
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import minimum_spanning_tree as scipy_mst
from scipy.spatial import Delaunay
from scipy.spatial.distance import pdist, squareform

import emst_testing  # the data sets' reader and the union-find (it imports vtk: not `emst` itself)
from emst_testing import SKIP, check, passed

def partition(labels):
    """Labels as a canonical partition: each point -> the smallest point index of its group."""
    labels = np.asarray(labels)
    first = {}
    return np.array([first.setdefault(label, k) for k, label in enumerate(labels.tolist())])


def check_tree(points, edges, lengths, label):
    """A spanning tree of the finite points, in (length, i, j) order, with numpy's lengths."""
    finite = np.isfinite(points).all(axis=1)
    m = int(finite.sum()) - 1 if finite.sum() > 0 else 0
    check(edges.shape == (m, 2) and edges.dtype == np.int64, "%s: edges %s %s, expected (%d, 2) int64"
          % (label, edges.shape, edges.dtype, m))
    check(lengths.shape == (m,) and lengths.dtype == np.float64, "%s: lengths %s" % (label, lengths.shape))
    if m <= 0:
        return
    i, j = edges[:, 0], edges[:, 1]
    check(bool((i < j).all()) and bool(finite[i].all() and finite[j].all()), "%s: bad ends" % label)
    order = np.lexsort((j, i, lengths))
    check(np.array_equal(order, np.arange(m)), "%s: not ordered by (length, i, j)" % label)
    p = points.astype(np.float64)
    direct = np.sqrt(((p[i] - p[j]) ** 2).sum(axis=1))
    error = np.abs(lengths - direct).max() / max(direct.max(), 1e-300)
    check(error <= 1e-14, "%s: lengths differ from numpy's by %.3g" % (label, error))
    groups, cycle = emst_testing.components(len(points), i, j)
    check(not cycle and groups == len(points) - m, "%s: %d groups for %d edges" % (label, groups, m))


def test_import_without_vtk():
    code = "import sys, emst; print(sorted(m for m in sys.modules if m.startswith(('vtk', 'pyvista'))))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    check(out.stdout.strip() == "[]", "import emst imported " + out.stdout.strip())
    passed("import emst imports neither vtk nor pyvista")


def test_data_set(emst, f32):
    name = os.path.basename(f32)[:-4]
    with open(f32[:-4] + ".ref.json") as f:
        reference = json.load(f)["emst"]["total_weight"]
    xyz, dim = emst_testing.read_f32(f32)
    points = np.ascontiguousarray(xyz[:, :dim])
    check(emst._core.view_address(points) == points.__array_interface__["data"][0],
          "%s: the engine does not read the array in place" % name)
    edges, lengths, info = emst.minimum_spanning_tree(points, backend="cpu", return_info=True)
    check_tree(points, edges, lengths, name)
    for total, what in ((info["total_length"], "total_length"), (math.fsum(lengths.tolist()), "fsum")):
        relative = abs(total - reference) / reference
        check(relative <= 1e-12, "%s: %s %.17g, reference %.17g (%.3g)" % (name, what, total, reference,
                                                                         relative))
    check(info["backend"] == "CPU" and info["valid_points"] == len(points), "%s: info %s" % (name, info))
    # A row view of a wider array (stride 4) and a float64 copy: the same tree, bit for bit.
    wide = np.zeros((len(points), 4), np.float32)
    wide[:, :points.shape[1]] = points
    view = wide[:, :points.shape[1]]
    check(emst._core.view_address(view) == wide.__array_interface__["data"][0],
          "%s: a row view was copied" % name)
    for other, what in ((view, "strided view"), (points.astype(np.float64), "float64")):
        e2, l2 = emst.minimum_spanning_tree(other, backend="cpu")
        check(np.array_equal(e2, edges) and np.array_equal(l2, lengths), "%s: %s differs" % (name, what))
    passed("%s: %d points, total %.17g = reference to %.2g; view and float64 give the same tree"
           % (name, len(points), info["total_length"], abs(info["total_length"] - reference) / reference))
    return points


def scipy_tree(n, i, j, w):
    """scipy's MST of the graph with edges (i, j, w) (w > 0): its edges as sorted (min, max)."""
    tree = scipy_mst(coo_matrix((w, (i, j)), shape=(n, n)).tocsr()).tocoo()
    return sorted(zip(np.minimum(tree.row, tree.col).tolist(), np.maximum(tree.row, tree.col).tolist()))


def test_against_scipy(emst, rng):
    # Complete graph: every pair.
    for dim in (2, 3):
        p = rng.random((400, dim))
        edges, lengths = emst.minimum_spanning_tree(p)
        check_tree(p, edges, lengths, "complete %dD" % dim)
        dense = squareform(pdist(p))
        i, j = np.nonzero(np.triu(dense))
        expected = scipy_tree(len(p), i, j, dense[i, j])
        check(sorted(map(tuple, edges.tolist())) == expected, "complete %dD: edges differ from scipy's" % dim)
    # Delaunay graph (it contains the EMST): larger clouds, float32 input.
    for dim in (2, 3):
        p = rng.normal(size=(5000, dim)).astype(np.float32)
        p[:2500] *= 0.05  # a dense core in a sparse halo
        edges, lengths = emst.minimum_spanning_tree(p)
        check_tree(p, edges, lengths, "Delaunay %dD" % dim)
        pairs = set()
        for simplex in Delaunay(p.astype(np.float64)).simplices:
            for a in range(dim + 1):
                for b in range(a + 1, dim + 1):
                    pairs.add((min(simplex[a], simplex[b]), max(simplex[a], simplex[b])))
        i, j = np.array(sorted(pairs)).T
        w = np.sqrt(((p[i].astype(np.float64) - p[j]) ** 2).sum(axis=1))
        check(sorted(map(tuple, edges.tolist())) == scipy_tree(len(p), i, j, w),
              "Delaunay %dD: edges differ from scipy's" % dim)
    passed("edges = scipy's minimum_spanning_tree (complete graphs of 400 points, Delaunay graphs of "
           "5000, 2D and 3D)")


def test_hierarchy_and_labels(emst, points, label):
    z = emst.single_linkage(points)
    reference = linkage(points.astype(np.float64), "single")
    check(z.shape == reference.shape and is_valid_linkage(z), "%s: not a valid linkage matrix" % label)
    check(np.allclose(z[:, 2], reference[:, 2], rtol=1e-12, atol=0), "%s: heights differ from scipy's" % label)
    check(np.array_equal(z[:, 3], reference[:, 3]) or len(np.unique(z[:, 2])) < len(z),
          "%s: sizes differ from scipy's" % label)
    heights = np.unique(reference[:, 2])
    # Cuts between two heights and exactly at one (an edge of that length is kept by both).
    for t in (heights[len(heights) // 2], 0.5 * (heights[len(heights) // 3] + heights[len(heights) // 3 + 1]),
              heights[-1], 0.0):
        expected = partition(fcluster(reference, t, criterion="distance"))
        labels = emst.fof_labels(points, t)
        check(labels.dtype == np.int32 and labels.min() == 0, "%s: labels %s" % (label, labels.dtype))
        check(np.array_equal(partition(labels), expected), "%s: fof_labels(%.17g) differ from fcluster" % (label, t))
        check(np.array_equal(partition(fcluster(z, t, criterion="distance")), expected),
              "%s: fcluster of our linkage differs at %.17g" % (label, t))
        sizes = np.bincount(labels)
        check(bool((np.diff(sizes) <= 0).all()), "%s: labels not ordered by decreasing size" % label)
        # The same groups with the small ones as noise.
        k = 3
        small = emst.fof_labels(points, t, min_cluster_size=k)
        check(np.array_equal(small == -1, sizes[labels] < k), "%s: noise at min_cluster_size=%d" % (label, k))
    passed("%s: single_linkage = scipy's linkage heights; fof_labels = fcluster at 4 heights" % label)


def test_hdbscan(emst, rng):
    try:
        from sklearn.cluster import HDBSCAN
    except ImportError:
        print("SKIPPED (part): scikit-learn has no HDBSCAN")
        return
    centers = np.array([[0, 0, 0], [6, 0, 0], [0, 7, 1], [5, 5, 5]], float)
    scales = (0.4, 0.8, 0.3, 1.2)
    blobs = [c + s * rng.normal(size=(150, 3)) for c, s in zip(centers, scales)]
    points = np.vstack(blobs + [rng.uniform(-4, 10, size=(60, 3))])
    # With min_samples 1 or 2 no two mutual reachability distances tie (they are the Euclidean
    # ones), so scikit-learn's own HDBSCAN.fit must agree exactly. From 3 on, a point whose core
    # distance dominates joins several groups at one height, which scikit-learn merges in an order
    # of its own (docs/hdbscan.md); test_hdbscan_sklearn.py compares those cases through the tree.
    for k, size, method in ((1, 10, "eom"), (2, 10, "eom"), (2, 25, "eom"), (2, 10, "leaf")):
        labels, probabilities, scores = emst.hdbscan(points, min_samples=k, min_cluster_size=size,
                                                     cluster_selection_method=method)
        ref = HDBSCAN(min_samples=k, min_cluster_size=size, cluster_selection_method=method,
                      copy=True).fit(points)
        check(np.array_equal(labels == -1, ref.labels_ == -1), "hdbscan %s: noise differs" % method)
        check(np.array_equal(partition(labels), partition(ref.labels_)), "hdbscan %s: clusters differ" % method)
        check(np.allclose(probabilities, ref.probabilities_, rtol=0, atol=1e-9),
              "hdbscan %s: probabilities differ by %.3g" % (method, np.abs(probabilities - ref.probabilities_).max()))
        check(bool(((scores >= 0) & (scores <= 1)).all()), "hdbscan: outlier scores outside [0, 1]")
        check(labels.max() + 1 >= 2, "hdbscan: fewer than 2 clusters in 4 blobs")
    passed("hdbscan = sklearn.cluster.HDBSCAN (labels, probabilities) on 4 blobs and noise, 4 settings")


def test_non_finite(emst, rng):
    p = rng.random((300, 3))
    bad = np.array([5, 77, 299])
    p[bad[0], 1] = np.nan
    p[bad[1], 0] = np.inf
    p[bad[2], 2] = -np.inf
    good = np.setdiff1d(np.arange(len(p)), bad)
    edges, lengths, info = emst.minimum_spanning_tree(p, return_info=True)
    check_tree(p, edges, lengths, "non-finite")
    e2, l2 = emst.minimum_spanning_tree(p[good])
    check(np.array_equal(good[e2], edges) and np.array_equal(l2, lengths), "non-finite: not the finite points' tree")
    check(info["non_finite_points"] == 3 and any("finite" in m for m in info["messages"]),
          "non-finite: info %s" % info)
    labels = emst.fof_labels(p, 0.2, min_cluster_size=2)
    check(bool((labels[bad] == -1).all()), "non-finite points are not noise")
    check(np.array_equal(partition(labels[good]), partition(emst.fof_labels(p[good], 0.2, 2))),
          "non-finite: fof groups of the finite points differ")
    hl, hp, hs = emst.hdbscan(p, min_samples=5, min_cluster_size=10)
    check(bool((hl[bad] == -1).all() and (hp[bad] == 0).all() and np.isnan(hs[bad]).all()),
          "hdbscan: non-finite points are not noise with a NaN score")
    try:
        emst.single_linkage(p)
        raise AssertionError("single_linkage accepted NaN")
    except emst.Error as error:
        check(error.code == "InvalidInput" and "finite" in str(error), "single_linkage: %r" % error)
    passed("non-finite points: left out of the tree, noise in fof_labels and hdbscan, an error in single_linkage")


def expect(exception, code, call, label):
    try:
        call()
    except exception as error:
        if code is not None:
            check(getattr(error, "code", None) == code, "%s: code %r, expected %r" % (label, getattr(error, "code", None), code))
        return str(error)
    raise AssertionError("%s: no %s raised" % (label, exception.__name__))


def test_errors(emst, rng):
    p = rng.random((50, 3))
    for bad in (rng.random((50, 4)), rng.random(50), rng.random((5, 3, 1)), rng.random((50, 1)),
                np.array([["a", "b"]]), p.astype(complex)):
        expect(ValueError, None, lambda: emst.minimum_spanning_tree(bad), "shape %s" % (bad.shape,))
    expect(ValueError, None, lambda: emst.minimum_spanning_tree(p, backend="tpu"), "backend")
    expect(ValueError, None, lambda: emst.fof_labels(p, -1.0), "linking length")
    expect(ValueError, None, lambda: emst.fof_labels(p, float("nan")), "NaN linking length")
    expect(ValueError, None, lambda: emst.hdbscan(p, min_cluster_size=1), "min_cluster_size")
    expect(ValueError, None, lambda: emst.hdbscan(p, cluster_selection_method="max"), "method")
    message = expect(emst.Error, "InvalidInput", lambda: emst.hdbscan(p, min_samples=51), "min_samples > n")
    check(len(message) > 10, "empty engine message")
    check(issubclass(emst.Error, RuntimeError), "emst.Error is not a RuntimeError")
    # A range that overflows double: the engine's own error.
    huge = np.array([[-1e308, 0, 0], [1e308, 0, 0], [0, 0, 0]])
    expect(emst.Error, "InvalidInput", lambda: emst.minimum_spanning_tree(huge), "range overflow")
    available, reason = emst.cuda_available()
    if available:
        e1, l1 = emst.minimum_spanning_tree(p, backend="cuda")
        e2, l2 = emst.minimum_spanning_tree(p, backend="cpu")
        check(np.array_equal(e1, e2) and np.array_equal(l1, l2), "CUDA and CPU trees differ")
        note = "CUDA = CPU"
    else:
        message = expect(emst.Error, "DeviceUnavailable", lambda: emst.minimum_spanning_tree(p, backend="cuda"),
                         "cuda without GPU")
        check(reason and reason in message, "cuda: message %r lacks the reason %r" % (message, reason))
        note = "backend='cuda' -> emst.Error DeviceUnavailable (%s)" % message
    # Empty and one-point clouds: empty trees. Other dtypes: converted.
    for n in (0, 1):
        edges, lengths = emst.minimum_spanning_tree(np.zeros((n, 3)))
        check(edges.shape == (0, 2) and lengths.shape == (0,), "%d points: %s" % (n, edges.shape))
    check(emst.fof_labels(np.zeros((0, 2)), 1.0).shape == (0,), "empty fof_labels")
    grid = np.array([[x, y] for x in range(10) for y in range(10)])
    e_int, l_int = emst.minimum_spanning_tree(grid)
    e_f, l_f = emst.minimum_spanning_tree(grid.astype(np.float64))
    check(np.array_equal(e_int, e_f) and np.array_equal(l_int, l_f) and l_int.sum() == 99,
          "int64 input: not the float64 tree")
    fortran = np.asfortranarray(p)
    check(np.array_equal(emst.minimum_spanning_tree(fortran)[0], emst.minimum_spanning_tree(p)[0]),
          "Fortran-order input differs")
    passed("errors: ValueError for shapes, dtypes and arguments, emst.Error with codes; %s" % note)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", action="append", default=[], help="a folder of .f32 sets and .ref.json")
    parser.add_argument("--sets-only", action="store_true", help="only the data-set checks (a second folder)")
    args = parser.parse_args()
    try:
        import emst
    except ImportError as error:
        print("SKIPPED: the emst package is not installed in %s (%s): the fixture pypi.package did not run"
              % (sys.prefix, error))
        return SKIP
    rng = np.random.default_rng(15)
    test_import_without_vtk()
    sets = sorted(f for d in args.data_dir if os.path.isdir(d) for f in glob.glob(os.path.join(d, "*.f32"))
                  if os.path.exists(f[:-4] + ".ref.json"))
    check(sets, "no data sets in %s" % args.data_dir)
    for f32 in sets:
        points = test_data_set(emst, f32)
        if len(points) <= 20000:
            test_hierarchy_and_labels(emst, points[::4], os.path.basename(f32)[:-4] + "[::4]")
    if args.sets_only:
        return 0
    test_against_scipy(emst, rng)
    test_hierarchy_and_labels(emst, rng.random((600, 3)), "random 3D")
    test_hdbscan(emst, rng)
    test_non_finite(emst, rng)
    test_errors(emst, rng)
    return 0


if __name__ == "__main__":
    sys.exit(main())
