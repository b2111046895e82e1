# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""Where the cut runs: with EMST_BACKEND=cpu, or the tree's Backend CPU, ClusterBackend says CPU;
with Auto on a machine without a usable GPU it says CPU too (and CUDA on one with a GPU is
allowed). The partition is the same whatever ran (checked against the reference each time)."""
import os

import numpy as np

import clusters_testing as c
import emst_testing as t

args = t.arguments()
c.load(args.plugin)
xyz, arrays = t.sample_points(args.sample)
data = t.polydata(xyz, arrays)
os.environ.pop("EMST_BACKEND", None)


def cut(label, tree_properties=None):
    pipe = c.Pipeline(data, tree_properties=tree_properties)
    tree = pipe.tree_output()
    _, _, tl = t.edges(tree)
    out, ids, clusters = c.expect_threshold_cut(pipe, tree, float(np.quantile(tl, 0.8)), 2, label, arrays)
    backend = t.field(out[0], "ClusterBackend")
    tree_backend = t.field(tree, "EMSTBackend")
    pipe.delete()
    print("%s: tree %s, cut %s, %d clusters" % (label, tree_backend, backend, clusters))
    return backend, tree_backend


backend, tree_backend = cut("tree Backend CPU", {"Backend": "CPU"})
assert backend.startswith("CPU"), "tree Backend CPU: ClusterBackend %r" % backend
t.passed("tree Backend CPU: ClusterBackend %r" % backend)

os.environ["EMST_BACKEND"] = "cpu"
backend, tree_backend = cut("EMST_BACKEND=cpu, Backend Auto")
assert tree_backend.startswith("CPU") and backend.startswith("CPU"), "EMST_BACKEND=cpu: ClusterBackend %r" % backend
t.passed("EMST_BACKEND=cpu: ClusterBackend %r" % backend)
os.environ.pop("EMST_BACKEND")

backend, tree_backend = cut("Backend Auto")
if tree_backend.startswith("CPU"):  # no usable GPU here
    assert backend.startswith("CPU"), "Auto without a GPU: ClusterBackend %r" % backend
else:
    assert backend.startswith("CUDA") or backend.startswith("CPU"), backend
t.passed("Backend Auto (tree on %s): ClusterBackend %r" % (tree_backend, backend))
