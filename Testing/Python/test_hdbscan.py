# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""HDBSCAN Clusters in pvpython: the filter's point arrays equal the `emst --hdbscan` program's on
the same points, bit for bit (the program is checked against scikit-learn by the hdbscan.sklearn
tests), with eom and leaf, epsilon and allow_single_cluster; its cluster table and condensed tree
agree with its labels (numpy); a new MinimumClusterSize re-runs only the extraction; a too-large
MinimumSamples gives an error, empty outputs and a script that goes on."""
import os
import subprocess
import tempfile

import numpy as np
from vtkmodules.util import numpy_support

import emst_testing as t

args = t.arguments(lambda parser: parser.add_argument("--emst", required=True, help="the emst program"))
simple = t.load(args.plugin)
assert hasattr(simple, "HDBSCANClusters"), "the plugin has no HDBSCANClusters"
xyz, _ = t.sample_points(args.sample)
n = len(xyz)


def array(data, name):
    values = data.GetPointData().GetArray(name)
    assert values is not None, "point array %s missing" % name
    return numpy_support.vtk_to_numpy(values)


def column(table, name):
    values = table.GetColumnByName(name)
    assert values is not None, "column %s missing" % name
    return numpy_support.vtk_to_numpy(values)


def program(k, size, method, epsilon, single):
    """The emst program's labels, probabilities, outlier scores and core distances."""
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "sample.f32")
        with open(path, "wb") as f:
            f.write(np.uint64(n).tobytes() + np.uint32(3).tobytes() + xyz.astype("<f4").tobytes())
        labels = os.path.join(work, "labels.txt")
        command = [args.emst, "--backend", "cpu", "--quiet", "--hdbscan", "--min-samples", str(k),
                   "--min-cluster-size", str(size), "--selection", method, "--epsilon", repr(epsilon),
                   "--labels", labels, path] + (["--allow-single-cluster"] if single else [])
        subprocess.run(command, check=True, capture_output=True)
        values = np.loadtxt(labels)
    return values[:, 0].astype(np.int32), values[:, 1], values[:, 2], values[:, 3]


producer = simple.TrivialProducer()
producer.GetClientSideObject().SetOutput(t.polydata(xyz))
hdbscan = simple.HDBSCANClusters(Input=producer, Backend="CPU")
first_compute = None
for k, size, method, epsilon, single in ((10, 20, "eom", 0.0, False), (10, 12, "leaf", 0.0, False),
                                         (10, 30, "eom", 1.5, False), (4, 40, "eom", 0.0, True)):
    hdbscan.MinimumSamples = k
    hdbscan.MinimumClusterSize = size
    hdbscan.ClusterSelectionMethod = "Leaf" if method == "leaf" else "Excess Of Mass"
    hdbscan.ClusterSelectionEpsilon = epsilon
    hdbscan.AllowSingleCluster = int(single)
    hdbscan.UpdatePipeline()
    out = simple.servermanager.Fetch(hdbscan)
    table = simple.servermanager.Fetch(hdbscan, idx=1)
    condensed = simple.servermanager.Fetch(hdbscan, idx=2)
    label = "k=%d size=%d %s eps=%g%s" % (k, size, method, epsilon, " single" if single else "")
    assert out.GetNumberOfPoints() == n and out.GetNumberOfLines() == n - 1, label

    # The filter = the program, bit for bit (17 significant digits round-trip doubles).
    ids, probability, score, core = program(k, size, method, epsilon, single)
    assert np.array_equal(array(out, "ClusterId"), ids), "%s: ClusterId differs from emst --hdbscan" % label
    for name, expected in (("Probability", probability), ("OutlierScore", score), ("CoreDistance", core)):
        got = array(out, name)
        assert np.array_equal(got, expected, equal_nan=True), \
            "%s: %s differs from emst --hdbscan at %d points" % (label, name, np.sum(got != expected))

    # The cluster table and the condensed tree against the labels.
    clusters = int(t.field(out, "NumberOfClusters"))
    assert clusters == ids.max() + 1 and t.field(out, "NoisePoints") == np.sum(ids < 0), label
    assert np.array_equal(column(table, "Size"), np.bincount(ids[ids >= 0], minlength=clusters)), label
    centroid = column(table, "Centroid")
    for c in range(clusters):
        assert np.allclose(centroid[c], xyz[ids == c].astype(np.float64).mean(axis=0), rtol=1e-12, atol=1e-9), label
        assert column(table, "FirstPoint")[c] == np.flatnonzero(ids == c)[0], label
    child, parent = column(condensed, "Child"), column(condensed, "Parent")
    assert np.array_equal(np.sort(child[child < n]), np.arange(n)), "%s: not one row per point" % label
    assert parent.min() == n and np.all(parent < child[child >= n].max() + 1), label
    assert np.all(np.isin(column(table, "CondensedNode"), child[child >= n]) | (column(table, "CondensedNode") == n)), label
    assert len(column(table, "Stability")) == clusters
    if first_compute is None:
        first_compute = t.field(out, "EMSTComputeMilliseconds")
    elif k == 10:
        # Only the extraction ran again: the tree's run is the same one.
        assert t.field(out, "EMSTComputeMilliseconds") == first_compute, "%s: the tree was computed again" % label
    t.passed("%s: %d clusters, %d noise points, equal to emst --hdbscan" % (label, clusters, np.sum(ids < 0)))

# Errors: k above the number of points; empty outputs, the error in EMSTMessages, and the filter
# works again afterwards.
small = simple.TrivialProducer()
small.GetClientSideObject().SetOutput(t.polydata(xyz[:5]))
bad = simple.HDBSCANClusters(Input=small, Backend="CPU", MinimumSamples=6)
bad.UpdatePipeline()
out = simple.servermanager.Fetch(bad)
assert out.GetNumberOfPoints() == 0 and out.GetPointData().GetArray("ClusterId") is not None
assert any("minimum samples (6) exceed" in m for m in t.field(out, "EMSTMessages")), t.field(out, "EMSTMessages")
assert simple.servermanager.Fetch(bad, idx=1).GetNumberOfRows() == 0
bad.MinimumSamples = 2
bad.MinimumClusterSize = 2
bad.UpdatePipeline()
assert simple.servermanager.Fetch(bad).GetNumberOfPoints() == 5
t.passed("MinimumSamples above the points: error, empty outputs, recovery")
