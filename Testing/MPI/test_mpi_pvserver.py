# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""pvpython connected to an MPI pvserver: the client starts `mpiexec -np N pvserver`, connects,
loads the plugin on the server (LoadPlugin(..., remote=True)) and runs the filters (the tree in
Parallel Mode "Gather on rank 0") on a real data set that the server's ranks read in pieces (every
N-th point each). The tree and the clusters must be
those of the whole set: the reference weight of <set>.ref.json and its cluster count at the
99th-percentile threshold, and the same as the serial run of test_mpi_data.py --serial.

    pvpython test_mpi_pvserver.py --plugin EMST.so --data-dir D --set S --work-dir W \
        --mpiexec mpiexec --pvserver pvserver --ranks 2
"""
import os
import subprocess
import sys
import threading
import time

import numpy as np

import emst_mpi_testing as m

t = m.t

SOURCE = m.READ_SET_IN_SOURCE + """mine = np.arange(piece, n, pieces)
xyz = np.zeros((len(mine), 3), np.float32)
xyz[:, :dim] = values[mine]
out = self.GetPolyDataOutput()
points = vtkPoints()
points.SetData(ns.numpy_to_vtk(xyz, deep=True))
out.SetPoints(points)
for name, values in (('PointIndex', mine.astype(np.int64)), ('Rank', np.full(len(mine), piece, np.int32))):
    array = ns.numpy_to_vtk(values, deep=True)
    array.SetName(name)
    out.GetPointData().AddArray(array)
"""


def start_server(args):
    """mpiexec -np N pvserver on a port the system chooses (--server-port=0); returns the process,
    its output so far and the port once the server accepts connections."""
    command = [args.mpiexec, "--allow-run-as-root", "--oversubscribe", "-np", str(args.ranks),
               args.pvserver, "--server-port=0"]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              env=m.child_environment())
    ready = threading.Event()
    log = []

    def read():
        for line in server.stdout:
            log.append(line)
            if "Accepting connection" in line:
                ready.set()
        ready.set()

    threading.Thread(target=read, daemon=True).start()
    accepting = [line for line in log if "Accepting connection" in line] if ready.wait(90) else []
    if not accepting:
        server.kill()
        raise AssertionError("pvserver did not start: %s\n%s" % (" ".join(command), "".join(log)))
    return server, log, int(accepting[0].strip().rsplit(":", 1)[1])


def main():
    def extra(parser):
        parser.add_argument("--mpiexec", required=True)
        parser.add_argument("--pvserver", required=True)
        parser.add_argument("--ranks", type=int, default=2)

    args = t.arguments(extra)
    f32, ref = t.data_set_file(args)
    n, weight = ref["n"], ref["emst"]["total_weight"]
    threshold = ref["single_linkage"]["p99"]["t"]
    reference_clusters = ref["single_linkage"]["p99"]["clusters"]
    serial_file = os.path.join(args.work_dir, "serial_%s.npz" % args.set)
    assert os.path.exists(serial_file), "the serial reference %s is missing (test pv.mpi.serial.%s)" % (serial_file, args.set)
    serial_tree, serial_clusters = m.load_summaries(serial_file)

    start = time.time()
    server, log, port = start_server(args)
    try:
        from paraview import servermanager
        import paraview.simple as simple

        simple.Connect("127.0.0.1", port)
        ranks = servermanager.ActiveConnection.GetNumberOfDataPartitions()
        assert ranks == args.ranks, "the server has %d ranks, expected %d" % (ranks, args.ranks)
        simple.LoadPlugin(os.path.abspath(args.plugin), remote=True)
        assert hasattr(simple, "EuclideanMinimumSpanningTree"), "the server-side plugin gave no filter"

        source = simple.ProgrammableSource(OutputDataSetType="vtkPolyData")
        source.Script = SOURCE % {"f32": f32}
        tree = simple.EuclideanMinimumSpanningTree(Input=source, ParallelMode="Gather on rank 0")
        tree.UpdatePipeline()
        assert tree.GetDataInformation().GetNumberOfPoints() == n, "points over the server's ranks"
        assert tree.GetDataInformation().GetNumberOfCells() == n - 1, "lines over the server's ranks"
        out = m.copy(servermanager.Fetch(tree))
        total = t.check_tree(out, np.ones(n, bool), "pvserver")
        t.check_weight(total, weight, "pvserver")
        m.compare_trees(m.tree_summary(out, "PointIndex"), serial_tree, "pvserver tree vs serial")
        rank = m.array(out, "Rank")
        assert set(np.unique(rank).tolist()) == set(range(ranks)), "points of some rank are missing"
        i, j, _ = t.edges(out)
        crossing = int(np.count_nonzero(rank[i] != rank[j]))
        assert crossing > 0, "no edge joins points of different ranks"
        t.passed("pvserver on %d ranks: one tree of %d points, total %.17g (reference %.17g), %d edges join "
                 "points of different ranks" % (ranks, n, total, weight, crossing))

        clusters = m.make_clusters(simple, tree, threshold=threshold)
        clusters.UpdatePipeline()
        got = m.clusters_summary(m.copy(servermanager.Fetch(clusters)),
                                 m.copy(servermanager.Fetch(clusters, 0, idx=1)), "PointIndex")
        assert got["clusters"] == reference_clusters, "%d clusters, reference %d" % (got["clusters"], reference_clusters)
        m.compare_clusters(got, serial_clusters, "pvserver clusters vs serial")
        t.passed("pvserver: %d clusters at t=%.17g (reference %d), the serial run's partition and table"
                 % (got["clusters"], threshold, reference_clusters))
        simple.Disconnect()
    finally:
        # The server outlives the disconnection while this process holds proxies: stop it.
        server.terminate()
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    t.passed("%.1f s in all" % (time.time() - start))


main()
sys.stdout.flush()
