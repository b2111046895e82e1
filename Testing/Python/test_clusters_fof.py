# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""Friends-of-friends equivalence: the partition MST Clusters gives at a threshold equals the
partition of VTK's own vtkEuclideanClusterExtraction (all regions, radius = threshold), which joins
every pair of points closer than the radius without any tree. Thresholds lie strictly between two
distinct edge lengths of the tree (in the middle of a wide gap), so that rounding in either filter
cannot matter. Clouds: random subsets of shared sets (3D survey, 3D surface scan, 2D cities with
duplicate points, 2D integer stipples with ties) and a synthetic clustered cloud (Gaussian blobs,
filaments and a uniform background). The ClusterId of MST Clusters must also equal VTK's partition
ranked by the documented rule (largest first, ties by smallest point index)."""
import os
import time

import numpy as np
from vtkmodules.util import numpy_support
from vtkmodules.vtkFiltersPoints import vtkEuclideanClusterExtraction

import clusters_testing as c
import emst_testing as t

args = t.arguments()
c.load(args.plugin)
QUANTILES = (0.05, 0.3, 0.6, 0.9, 0.99)


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


# Synthetic clustered cloud: blobs of different widths, two filaments, a uniform background.
rng = np.random.default_rng(20260101)
parts = [rng.normal(centre, width, (count, 3)) for centre, width, count in
         [((0, 0, 0), 0.5, 1500), ((8, 1, 2), 1.0, 1200), ((3, 9, -4), 0.2, 800), ((-6, -5, 5), 2.0, 900)]]
for (a, b), count in zip([((0, 0, 0), (8, 1, 2)), ((3, 9, -4), (-6, -5, 5))], (400, 400)):
    s = rng.random((count, 1))
    parts.append(np.array(a) + s * (np.array(b) - np.array(a)) + rng.normal(0, 0.1, (count, 3)))
parts.append(rng.uniform(-12, 12, (800, 3)))
synthetic = np.concatenate(parts).astype(np.float32)
synthetic = synthetic[rng.permutation(len(synthetic))]
compare(synthetic, "synthetic clustered cloud")

if not args.data_dir or not os.path.isdir(args.data_dir):
    t.skip("shared data folder %r not found (the synthetic cloud passed)" % args.data_dir)
for name, size in (("galaxies_mr19mock84k", 6000), ("scan_bunny36k", 5000), ("geo_cities1000", 8000),
                   ("tsp_monalisa100k", 4000)):
    path = os.path.join(args.data_dir, name + ".f32")
    if not os.path.exists(path):
        print("note: %s not found, left out" % path)
        continue
    xyz, _ = t.read_f32(path)
    pick = np.sort(np.random.default_rng(12345).choice(len(xyz), size, replace=False))
    sub = xyz[pick]
    if name == "geo_cities1000":  # keep the duplicate points in the subset
        _, inverse, counts = np.unique(xyz, axis=0, return_inverse=True, return_counts=True)
        duplicated = np.flatnonzero(counts[inverse.ravel()] > 1)
        sub = np.concatenate([sub, xyz[duplicated]])
        assert len(np.unique(sub, axis=0)) < len(sub)
    compare(sub, "%s subset" % name)
