# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""Friends-of-friends equivalence: the partition MST Clusters gives at a threshold equals the
partition of VTK's own vtkEuclideanClusterExtraction (all regions, radius = threshold), which joins
every pair of points closer than the radius without any tree. Thresholds lie strictly between two
distinct edge lengths of the tree (in the middle of a wide gap), so that rounding in either filter
cannot matter. Clouds: with --synthetic, a synthetic clustered cloud (Gaussian blobs, filaments and
a uniform background); with --data-dir, every real set of that folder (Testing/Data: 3D survey, 2D
cities with duplicate points, 3D LiDAR with integer coordinates; the shared data adds a surface scan
and 2D integer stipples with ties), each as a random subset of at most SUBSET points plus every
point that has an exact duplicate. The ClusterId of MST Clusters must also equal VTK's partition
ranked by the documented rule (largest first, ties by smallest point index)."""
import glob
import os
import time

import numpy as np
from vtkmodules.util import numpy_support
from vtkmodules.vtkFiltersPoints import vtkEuclideanClusterExtraction

import clusters_testing as c
import emst_testing as t

args = t.arguments(lambda parser: parser.add_argument("--synthetic", action="store_true",
                                                      help="also the synthetic clustered cloud"))
c.load(args.plugin)
QUANTILES = (0.05, 0.3, 0.6, 0.9, 0.99)
SUBSET = 6000


def vtk_fof(xyz, radius):
    """ClusterId of vtkEuclideanClusterExtraction per input point (its output carries an index
    array, so any reordering is undone) and its cluster count."""
    data = t.polydata(xyz, {"InputIndex": np.arange(len(xyz), dtype=np.int64)})
    extraction = vtkEuclideanClusterExtraction()
    extraction.SetInputData(data)
    extraction.SetRadius(radius)
    extraction.SetExtractionModeToAllClusters()
    extraction.ColorClustersOn()
    extraction.Update()
    out = extraction.GetOutput()
    assert out.GetNumberOfPoints() == len(xyz), "vtkEuclideanClusterExtraction kept %d of %d points" % (
        out.GetNumberOfPoints(), len(xyz))
    index = numpy_support.vtk_to_numpy(out.GetPointData().GetArray("InputIndex"))
    ids = numpy_support.vtk_to_numpy(out.GetPointData().GetArray("ClusterId"))
    labels = np.full(len(xyz), -1, np.int64)
    labels[index] = ids
    assert np.all(labels >= 0)
    return labels, extraction.GetNumberOfExtractedClusters()


def compare(xyz, name):
    start = time.time()
    pipe = c.Pipeline(t.polydata(xyz))
    tree = pipe.tree_output()
    ti, tj, tl = t.edges(tree)
    for q in QUANTILES:
        threshold, gap = c.threshold_between(tl, q)
        out = pipe.cut(CutMode="Threshold", Threshold=threshold, MinimumClusterSize=1)[0]
        ours = c.point_array(out, "ClusterId", c.VTK_INT)
        reference, count = vtk_fof(xyz, threshold)
        label = "%s (%d points) threshold %.17g (quantile %.2f, gap %.2g)" % (name, len(xyz), threshold, q, gap)
        clusters = int(t.field(out, "NumberOfClusters"))
        assert clusters == count, "%s: %d clusters, vtkEuclideanClusterExtraction %d" % (label, clusters, count)
        assert c.same_partition(ours, reference), "%s: the partition differs from vtkEuclideanClusterExtraction's" % label
        ids, sizes, _, _ = c.ranked(reference)
        assert np.array_equal(ours, ids), label + ": same partition, but ClusterId is not ranked by size, then smallest index"
        assert np.array_equal(c.point_array(out, "ClusterSize", c.VTK_ID_TYPE), sizes), label + ": ClusterSize"
        t.passed("%s: %d clusters, as vtkEuclideanClusterExtraction" % (label, clusters))
    pipe.delete()
    print("  %s: %.2f s" % (name, time.time() - start))


def synthetic():
    """Blobs of different widths, two filaments, a uniform background."""
    rng = np.random.default_rng(20260101)
    parts = [rng.normal(centre, width, (count, 3)) for centre, width, count in
             [((0, 0, 0), 0.5, 1500), ((8, 1, 2), 1.0, 1200), ((3, 9, -4), 0.2, 800), ((-6, -5, 5), 2.0, 900)]]
    for (a, b), count in zip([((0, 0, 0), (8, 1, 2)), ((3, 9, -4), (-6, -5, 5))], (400, 400)):
        s = rng.random((count, 1))
        parts.append(np.array(a) + s * (np.array(b) - np.array(a)) + rng.normal(0, 0.1, (count, 3)))
    parts.append(rng.uniform(-12, 12, (800, 3)))
    cloud = np.concatenate(parts).astype(np.float32)
    return cloud[rng.permutation(len(cloud))]


def subset(xyz):
    """A random subset of at most SUBSET points, plus every point that has an exact duplicate (so
    that the duplicates survive the subsampling)."""
    pick = np.arange(len(xyz))
    if len(xyz) > SUBSET:
        pick = np.random.default_rng(12345).choice(len(xyz), SUBSET, replace=False)
    _, inverse, counts = np.unique(xyz, axis=0, return_inverse=True, return_counts=True)
    duplicated = np.flatnonzero(counts[inverse.ravel()] > 1)
    sub = xyz[np.union1d(pick, duplicated)]
    assert (len(np.unique(sub, axis=0)) < len(sub)) == (len(duplicated) > 0), "duplicates lost or made"
    return sub


if args.synthetic:
    compare(synthetic(), "synthetic clustered cloud")
if args.data_dir:
    if not os.path.isdir(args.data_dir):
        t.skip("data folder %r not found: set the CMake cache variable EMST_SHARED_DATA_DIR" % args.data_dir)
    sets = sorted(glob.glob(os.path.join(args.data_dir, "*.f32")))
    assert sets, "no .f32 sets in " + args.data_dir
    for path in sets:
        xyz, _ = t.read_f32(path)
        sub = subset(xyz)
        name = os.path.splitext(os.path.basename(path))[0]
        compare(sub, "%s %s" % (name, "subset" if len(sub) < len(xyz) else "(all points)"))
