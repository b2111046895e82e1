# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""Where the cut runs: MST Clusters' Backend property (Auto, CUDA, CPU), the variable EMST_BACKEND
and the tree filter's field data EMSTBackendId.

- Auto: EMST_BACKEND when it is set; else where the tree ran, read from EMSTBackendId and never
  from the text EMSTBackend (trees whose text contradicts their id are cut by the id); an input
  without EMSTBackendId follows the tree filter's rule (the GPU when usable, else the CPU).
- CPU: the CPU, whatever EMST_BACKEND says. CUDA: the GPU; without one an error, an empty valid
  output, and the next cut recovers.

What ran shows in ClusterBackend; where no GPU is usable, "the GPU when usable" shows as the
engine's note "... the cut runs on the CPU" in ClusterMessages, which a cut asked to run on the
CPU never has. Every cut that runs is checked against the scipy reference partition (the same
whatever ran)."""
import os

import numpy as np
from vtkmodules.vtkCommonCore import vtkIntArray

import clusters_testing as c
import emst_testing as t

FELL_BACK = "the cut runs on the CPU"  # the engine's note when Auto finds no usable GPU

args = t.arguments()
simple = c.load(args.plugin)
xyz, arrays = t.sample_points(args.sample)
data = t.polydata(xyz, arrays)
os.environ.pop("EMST_BACKEND", None)


def tree_of(backend):
    pipe = c.Pipeline(data, tree_properties={"Backend": backend})
    tree = pipe.tree_output()
    pipe.delete()
    return tree


def with_origin(tree, backend_id, text):
    """A copy of `tree` whose EMSTBackendId (None: removed) and EMSTBackend say what is given."""
    copy = c.copy(tree)
    fd = copy.GetFieldData()
    fd.RemoveArray("EMSTBackendId")
    if backend_id is not None:
        array = vtkIntArray()
        array.SetName("EMSTBackendId")
        array.InsertNextValue(backend_id)
        fd.AddArray(array)
    fd.GetAbstractArray("EMSTBackend").SetValue(0, text)
    return copy


cpu_tree = tree_of("CPU")
auto_tree = tree_of("Auto")
gpu = t.field(auto_tree, "EMSTBackend").startswith("CUDA")
ti, tj, tl = t.edges(cpu_tree)
threshold = float(np.quantile(tl, 0.8))
ids, sizes, _, _ = c.ranked(c.cut_groups(len(xyz), ti, tj, tl, threshold), 2)

# The tree filter's machine-readable origin: 2 for the CPU, 1 for CUDA, in step with the text.
assert t.field(cpu_tree, "EMSTBackendId") == 2, t.field(cpu_tree, "EMSTBackendId")
assert t.field(auto_tree, "EMSTBackendId") == (1 if gpu else 2), \
    "EMSTBackendId %r for a tree that ran on %r" % (t.field(auto_tree, "EMSTBackendId"), t.field(auto_tree, "EMSTBackend"))
t.passed("EMSTBackendId: 2 for Backend CPU, %d for Auto (%s)" % (t.field(auto_tree, "EMSTBackendId"),
                                                               t.field(auto_tree, "EMSTBackend")))


def cut(tree, label, **properties):
    """MST Clusters on `tree` at `threshold`; returns (output 0, ClusterBackend, ClusterMessages),
    the output checked against the reference unless the cut failed."""
    producer = simple.TrivialProducer()
    producer.GetClientSideObject().SetOutput(tree)
    clusters = simple.MSTClusters(Input=producer, CutMode="Threshold", Threshold=threshold,
                                  MinimumClusterSize=2, **properties)
    clusters.UpdatePipeline()
    out = c.copy(clusters.GetClientSideObject().GetOutputDataObject(0))
    simple.Delete(clusters)
    simple.Delete(producer)
    backend = t.field(out, "ClusterBackend")
    array = out.GetFieldData().GetAbstractArray("ClusterMessages")
    messages = [array.GetValue(k) for k in range(array.GetNumberOfValues())]
    if backend != "none (error)":
        c.check_cut(out, tree, ids, sizes, label, threshold=threshold, input_arrays=arrays)
    print("%s: ClusterBackend %r, messages %r" % (label, backend, messages))
    return out, backend, messages


def expect_cpu(tree, label, **properties):
    """The cut ran on the CPU because it was asked to (no fall-back note)."""
    _, backend, messages = cut(tree, label, **properties)
    assert backend.startswith("CPU"), "%s: ClusterBackend %r" % (label, backend)
    assert not any(FELL_BACK in m for m in messages), "%s: the cut was not asked for the CPU: %r" % (label, messages)
    t.passed("%s: on the CPU" % label)


def expect_gpu_rule(tree, label, **properties):
    """The cut followed 'the GPU when usable': CUDA here, or the CPU with the engine's note."""
    _, backend, messages = cut(tree, label, **properties)
    if gpu:
        assert backend.startswith("CUDA"), "%s: ClusterBackend %r on a machine with a GPU" % (label, backend)
    else:
        assert backend.startswith("CPU") and any(FELL_BACK in m for m in messages), \
            "%s: expected the GPU rule's fall-back, got %r, %r" % (label, backend, messages)
    t.passed("%s: the GPU when usable (%s)" % (label, backend))


def expect_cuda(tree, label, **properties):
    """The cut was asked for the GPU: CUDA, or without one an error and an empty, valid output."""
    out, backend, messages = cut(tree, label, **properties)
    if gpu:
        assert backend.startswith("CUDA"), "%s: ClusterBackend %r" % (label, backend)
        t.passed("%s: on %s" % (label, backend))
        return
    assert backend == "none (error)", "%s: ClusterBackend %r without a GPU" % (label, backend)
    assert any(m.startswith("error: ") for m in messages), "%s: no error in %r" % (label, messages)
    assert out.GetNumberOfPoints() == 0 and out.GetNumberOfCells() == 0, label + ": output not empty"
    for name in ("ClusterId", "ClusterSize"):
        assert out.GetPointData().GetArray(name) is not None, "%s: empty output lacks %s" % (label, name)
    assert t.field(out, "NumberOfClusters") == 0, label
    t.passed("%s without a usable GPU: error, empty output (%r)" % (label, messages[-1]))


# Auto: where the tree ran, by its id.
expect_cpu(cpu_tree, "Auto, tree on the CPU")
if gpu:
    expect_gpu_rule(auto_tree, "Auto, tree on the GPU")
else:
    expect_cpu(auto_tree, "Auto, tree Auto (ran on the CPU)")
# The id decides, not the text: a CPU id with a CUDA text is cut on the CPU, a CUDA id with a
# CPU text follows the GPU rule.
expect_cpu(with_origin(cpu_tree, 2, "CUDA (text not read)"), "Auto, id CPU, text CUDA")
expect_gpu_rule(with_origin(cpu_tree, 1, "CPU (text not read)"), "Auto, id CUDA, text CPU")
# No origin: the tree filter's rule.
expect_gpu_rule(with_origin(cpu_tree, None, "CPU (text not read)"), "Auto, no EMSTBackendId")

# Explicit choices.
expect_cpu(auto_tree, "Backend CPU, tree Auto", Backend="CPU")
expect_cuda(cpu_tree, "Backend CUDA, tree on the CPU", Backend="CUDA")

# The same proxy recovers from a failed CUDA cut when set back to CPU.
producer = simple.TrivialProducer()
producer.GetClientSideObject().SetOutput(cpu_tree)
clusters = simple.MSTClusters(Input=producer, CutMode="Threshold", Threshold=threshold, MinimumClusterSize=2,
                              Backend="CUDA")
clusters.UpdatePipeline()
clusters.Backend = "CPU"
clusters.UpdatePipeline()
out = c.copy(clusters.GetClientSideObject().GetOutputDataObject(0))
assert t.field(out, "ClusterBackend").startswith("CPU"), t.field(out, "ClusterBackend")
c.check_cut(out, cpu_tree, ids, sizes, "CUDA then CPU", threshold=threshold, input_arrays=arrays)
simple.Delete(clusters)
simple.Delete(producer)
t.passed("Backend CUDA then CPU on the same filter: a complete cut")

# EMST_BACKEND: decides under Auto (over the tree's origin), never over an explicit choice.
os.environ["EMST_BACKEND"] = "cuda"
expect_cuda(cpu_tree, "EMST_BACKEND=cuda, Auto, tree on the CPU")
expect_cpu(cpu_tree, "EMST_BACKEND=cuda, Backend CPU", Backend="CPU")
os.environ["EMST_BACKEND"] = "cpu"
expect_cpu(with_origin(cpu_tree, 1, "CUDA (text not read)"), "EMST_BACKEND=cpu, Auto, id CUDA")
os.environ["EMST_BACKEND"] = "quantum"
_, backend, messages = cut(cpu_tree, "EMST_BACKEND=quantum")
assert backend.startswith("CPU") and any("EMST_BACKEND" in m for m in messages), \
    "a bad EMST_BACKEND was not reported or not ignored: %r, %r" % (backend, messages)
t.passed("EMST_BACKEND=quantum: reported, Auto used (%s)" % backend)
os.environ.pop("EMST_BACKEND")
