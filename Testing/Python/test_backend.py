# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""The Backend property and the EMST_BACKEND variable. CPU forced and Auto give the same output
bit for bit, and EMSTBackendId says which engine ran (0 when none did); CUDA forced gives the
same output on a machine with a usable GPU, and on one without an error in the Output Messages
(stderr here) with an empty output and no crash. EMST_BACKEND decides when the property is Auto;
an explicit CUDA or CPU wins over it; a bad value is reported and ignored. Auto without a usable
GPU notes "ran on the CPU" in every run's messages but warns (the Output Messages window) once per
process."""
import os
import subprocess
import sys
import tempfile

import numpy as np

import emst_testing as t

args = t.arguments()
t.load(args.plugin)
xyz, arrays = t.sample_points(args.sample)
n = len(xyz)
data = t.polydata(xyz, arrays)
os.environ.pop("EMST_BACKEND", None)

auto = t.run(data)
cpu = t.run(data, Backend="CPU")
t.check_tree(cpu, np.ones(n, bool), "CPU")
t.same_output(auto, cpu, "Auto vs CPU")
auto_backend = t.field(auto, "EMSTBackend")
assert t.field(cpu, "EMSTBackend").startswith("CPU"), t.field(cpu, "EMSTBackend")
gpu = auto_backend.startswith("CUDA")
# EMSTBackendId, the machine-readable EMSTBackend: 1 CUDA, 2 CPU.
assert t.field(cpu, "EMSTBackendId") == 2, t.field(cpu, "EMSTBackendId")
assert t.field(auto, "EMSTBackendId") == (1 if gpu else 2), (t.field(auto, "EMSTBackendId"), auto_backend)
t.passed("Backend CPU and Auto (%s): same %d lines, bit for bit" % (auto_backend, n - 1))


def expect_cuda(output, label):
    if gpu:
        t.same_output(output, cpu, label)
        assert t.field(output, "EMSTBackend").startswith("CUDA"), t.field(output, "EMSTBackend")
        assert t.field(output, "EMSTBackendId") == 1, t.field(output, "EMSTBackendId")
        t.passed("%s: ran on %s, same output as the CPU" % (label, t.field(output, "EMSTBackend")))
    else:
        assert output.GetNumberOfPoints() == 0 and output.GetNumberOfCells() == 0, label + ": output not empty"
        assert output.GetCellData().GetArray("EdgeLength") is not None, label + ": empty output lacks EdgeLength"
        messages = t.field(output, "EMSTMessages")
        assert any(m.startswith("error: ") for m in messages), "%s: no error in %r" % (label, messages)
        assert t.field(output, "EMSTBackend") == "none (error)"
        assert t.field(output, "EMSTBackendId") == 0, "no engine ran: EMSTBackendId %r" % t.field(output, "EMSTBackendId")
        t.passed("%s without a usable GPU: empty output, %r" % (label, messages[-1]))


expect_cuda(t.run(data, Backend="CUDA"), "Backend CUDA")
# The filter recovers: the next run on the CPU is complete again.
t.same_output(t.run(data, Backend="CPU"), cpu, "CPU after CUDA")

os.environ["EMST_BACKEND"] = "cpu"
out = t.run(data)
assert t.field(out, "EMSTBackend").startswith("CPU")
t.same_output(out, cpu, "EMST_BACKEND=cpu")
t.passed("EMST_BACKEND=cpu with Backend Auto: %s" % t.field(out, "EMSTBackend"))

os.environ["EMST_BACKEND"] = "CUDA"
expect_cuda(t.run(data), "EMST_BACKEND=CUDA with Backend Auto")
out = t.run(data, Backend="CPU")
assert t.field(out, "EMSTBackend").startswith("CPU"), "an explicit CPU must win over EMST_BACKEND"
t.same_output(out, cpu, "Backend CPU with EMST_BACKEND=CUDA")
t.passed("Backend CPU wins over EMST_BACKEND=CUDA")

os.environ["EMST_BACKEND"] = "quantum"
out = t.run(data)
t.same_output(out, auto, "EMST_BACKEND=quantum")
assert any("EMST_BACKEND" in m for m in t.field(out, "EMSTMessages")), "a bad EMST_BACKEND was not reported"
t.passed("EMST_BACKEND=quantum: reported and ignored (%s)" % t.field(out, "EMSTBackend"))
os.environ.pop("EMST_BACKEND")

# Auto without a usable GPU: the note "ran on the CPU" is in EMSTMessages (ClusterMessages) at
# every run, but is a warning, which opens ParaView's Output Messages window, once per process.
if not gpu and args.pvpython:
    script = """
import paraview.simple as s
from paraview import servermanager
s.LoadPlugin(%r, remote=False)
source = s.PointSource(NumberOfPoints=50)
tree = s.EuclideanMinimumSpanningTree(Input=source)
for seed in range(3):
    source.NumberOfPoints = 50 + seed  # a new input: the tree runs again
    tree.UpdatePipeline()
    notes = servermanager.Fetch(tree).GetFieldData().GetAbstractArray('EMSTMessages')
    print('tree run %%d notes:' %% seed, [notes.GetValue(k) for k in range(notes.GetNumberOfValues())])
# A tree without EMSTBackendId (another source's lines): MST Clusters' Auto probes the GPU itself.
lines = s.PassArrays(Input=tree)
lines.FieldDataArrays = []
for seed in range(2):
    source.NumberOfPoints = 60 + seed
    clusters = s.MSTClusters(Input=lines, Threshold=0.1)
    clusters.UpdatePipeline()
    notes = servermanager.Fetch(clusters).GetFieldData().GetAbstractArray('ClusterMessages')
    print('cut run %%d notes:' %% seed, [notes.GetValue(k) for k in range(notes.GetNumberOfValues())])
    s.Delete(clusters)
""" % os.path.abspath(args.plugin)
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(script)
    child = subprocess.run([args.pvpython, f.name], capture_output=True, text=True, timeout=120)
    os.unlink(f.name)
    print(child.stdout + child.stderr)
    assert child.returncode == 0, "pvpython exited with %d" % child.returncode
    recorded = [line for line in child.stdout.splitlines() if "notes:" in line and "no usable" in line]
    assert len(recorded) == 5, "the no-GPU note is in %d of the 5 runs' messages:\n%s" % (len(recorded), child.stdout)
    warned = [line for line in child.stderr.splitlines() if "WARN|" in line and "no usable" in line]
    assert len(warned) == 1, "%d warnings about the missing GPU in one process, expected 1:\n%s" % (
        len(warned), "\n".join(warned))
    t.passed("Auto without a GPU: noted in all 5 runs' messages (3 trees, 2 cuts), warned once per process")

# What a pvpython user sees: the error in the messages (stderr), and the script goes on.
if not gpu and args.pvpython:
    script = """
import paraview.simple as s
s.LoadPlugin(%r, remote=False)
tree = s.EuclideanMinimumSpanningTree(Input=s.PointSource(NumberOfPoints=50), Backend='CUDA')
tree.UpdatePipeline()
print('points after error:', tree.GetDataInformation().GetNumberOfPoints())
tree.Backend = 'CPU'
tree.UpdatePipeline()
print('lines on the CPU:', tree.GetDataInformation().GetNumberOfCells())
""" % os.path.abspath(args.plugin)
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(script)
    child = subprocess.run([args.pvpython, f.name], capture_output=True, text=True, timeout=120)
    os.unlink(f.name)
    print(child.stdout + child.stderr)
    assert child.returncode == 0, "pvpython exited with %d" % child.returncode
    assert "ERR|" in child.stderr and "vtkEMSTEuclideanMinimumSpanningTree" in child.stderr \
        and "CUDA" in child.stderr, "no error message from the filter on stderr"
    assert "points after error: 0" in child.stdout and "lines on the CPU: 49" in child.stdout, child.stdout
    t.passed("pvpython: Backend CUDA without a GPU reports an error, gives an empty output, and the script goes on")
