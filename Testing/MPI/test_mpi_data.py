# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""A real data set (Testing/Data or the shared data) split over MPI ranks under pvbatch: the filters
(the tree in Parallel Mode "Gather on rank 0"; test_mpi_distributed.py tests the Distributed mode)
must give the tree and the clusters of the WHOLE set, the same as a serial run, and write and render
them in parallel.

    pvpython test_mpi_data.py --serial ...                 the serial run: writes serial_<set>.npz
    mpiexec -np N emst-pvbatch test_mpi_data.py --split redistribute|skip-rank0 --ranks N ...

--split redistribute: rank 0 reads the set, RedistributeDataSet spreads it over all ranks.
--split skip-rank0:   ranks 1..N-1 each read every (N-1)-th point; rank 0 has no points (the rank
                      that gathers has no piece of its own).

Checked against the reference values of <set>.ref.json and the serial run: n - 1 lines forming a
spanning tree, each EdgeLength equal to its end points' distance, the total equal to the reference
weight (relative 1e-12) and to the serial run's, the sorted edge lengths bit for bit; edges that
join points of different ranks; the clusters at the reference's 99th-percentile threshold: their
number equal to the reference count and to the serial run's, every point in the same cluster as in
the serial run, the cluster table equal; the tree and clusters written as .pvtp (Binary) and read
back with the same numbers; with --render, a parallel rendering of the clusters.

Everything runs inside functions: ParaView's programmable filters run their scripts in this
interpreter's __main__ namespace (with numpy_interface's algorithms, such as a function 'split'),
which would overwrite a script's global variables.
"""
import os
import time

import numpy as np

import emst_mpi_testing as m

t = m.t

# Each rank reads its own piece in the source, which runs on every rank: points, a vertex cell per
# point (RedistributeDataSet moves cells, not points) and PointIndex, the point's index in the file.
SOURCE = m.READ_SET_IN_SOURCE + """if %(split)r == 'redistribute':
    mine = np.arange(n) if piece == 0 else np.arange(0)
else:  # skip-rank0: ranks 1.. share the points, rank 0 gets none
    mine = np.arange(piece - 1, n, pieces - 1) if piece > 0 else np.arange(0)
""" + m.KEEP_MINE


def arguments():
    def extra(parser):
        parser.add_argument("--serial", action="store_true", help="write the serial reference and stop")
        parser.add_argument("--split", choices=["redistribute", "skip-rank0"])
        parser.add_argument("--ranks", type=int, help="the number of ranks expected")
        parser.add_argument("--render", action="store_true", help="also render (needs a display)")

    args = t.arguments(extra)
    args.f32, ref = t.data_set_file(args)
    args.n = ref["n"]
    args.weight = ref["emst"]["total_weight"]
    args.threshold = ref["single_linkage"]["p99"]["t"]
    args.reference_clusters = ref["single_linkage"]["p99"]["clusters"]
    os.makedirs(args.work_dir, exist_ok=True)
    args.serial_file = os.path.join(args.work_dir, "serial_%s.npz" % args.set)
    return args


def serial(args, simple):
    """The serial run of the same filters: the reference of the parallel runs."""
    start = time.time()
    xyz, _ = t.read_f32(args.f32)
    data = t.polydata(xyz, {"PointIndex": np.arange(len(xyz), dtype=np.int64)})
    tree, points, table = m.run_serial(simple, data, threshold=args.threshold)
    t.check_tree(tree, np.ones(args.n, bool), "serial")
    summary = m.tree_summary(tree, "PointIndex")
    t.check_weight(summary["total"], args.weight, "serial")
    clusters = m.clusters_summary(points, table, "PointIndex")
    assert clusters["clusters"] == args.reference_clusters, \
        "serial: %d clusters at t99, reference %d" % (clusters["clusters"], args.reference_clusters)
    m.save_summaries(args.serial_file, summary, clusters)
    t.passed("serial %s: %d points, total %.17g (reference %.17g), %d clusters at t=%.17g (reference %d); %.1f s"
             % (args.set, args.n, summary["total"], args.weight, clusters["clusters"], args.threshold,
                args.reference_clusters, time.time() - start))


def parallel(args, simple):
    from paraview import servermanager
    from paraview.modules.vtkRemotingCore import vtkProcessModule

    start = time.time()
    n = args.n
    ranks = vtkProcessModule.GetProcessModule().GetNumberOfLocalPartitions()
    assert ranks == args.ranks, "expected %d ranks, found %d (run under mpiexec -np %d)" % (args.ranks, ranks, args.ranks)
    assert os.path.exists(args.serial_file), \
        "the serial reference %s is missing (test pv.mpi.serial.%s)" % (args.serial_file, args.set)
    serial_tree, serial_clusters = m.load_summaries(args.serial_file)

    source = simple.ProgrammableSource(OutputDataSetType="vtkPolyData")
    source.Script = SOURCE % {"f32": args.f32, "split": args.split}
    pieces = simple.RedistributeDataSet(Input=source) if args.split == "redistribute" else source
    pieces = simple.ProgrammableFilter(Input=pieces)
    pieces.Script = m.ADD_RANK
    pieces.UpdatePipeline()
    held = pieces.GetDataInformation().GetNumberOfPoints()
    assert held == n, "the pieces hold %d points, expected %d" % (held, n)

    # ---- the tree ------------------------------------------------------------------------------
    tree = simple.EuclideanMinimumSpanningTree(Input=pieces, ParallelMode="Gather on rank 0")
    tree.UpdatePipeline()
    info = tree.GetDataInformation()
    # Over all ranks: every point once (rank 0 holds them all, the others none), one tree.
    assert info.GetNumberOfPoints() == n, "%d points over all ranks, expected %d" % (info.GetNumberOfPoints(), n)
    assert info.GetNumberOfCells() == n - 1, \
        "%d lines over all ranks, expected %d (a tree per rank would give fewer)" % (info.GetNumberOfCells(), n - 1)
    out = m.copy(servermanager.Fetch(tree))
    rank = m.array(out, "Rank")
    per_rank = np.bincount(rank, minlength=ranks)
    if args.split == "redistribute":
        assert np.all(per_rank > 0), "RedistributeDataSet left a rank empty: %s" % per_rank.tolist()
    else:
        assert per_rank[0] == 0 and np.all(per_rank[1:] > 0), "rank 0 should have no points: %s" % per_rank.tolist()
    total = t.check_tree(out, np.ones(n, bool), "MPI")
    relative = t.check_weight(total, args.weight, "MPI")
    summary = m.tree_summary(out, "PointIndex")
    same_edges = m.compare_trees(summary, serial_tree, "MPI tree vs serial")
    i, j, _ = t.edges(out)
    crossing = int(np.count_nonzero(rank[i] != rank[j]))
    assert crossing > 0, "no edge joins points of different ranks"
    assert "gathered" in t.field(out, "EMSTInput"), t.field(out, "EMSTInput")
    t.passed("%d ranks (%s, points per rank %s): one tree of %d points, total %.17g (reference %.17g, relative %.2g), "
             "%s the serial run's, %d edges join points of different ranks"
             % (ranks, args.split, per_rank.tolist(), n, total, args.weight, relative,
                "the same edges as" if same_edges else "equal sorted lengths to", crossing))

    # ---- the clusters --------------------------------------------------------------------------
    clusters = m.make_clusters(simple, tree, threshold=args.threshold)
    clusters.UpdatePipeline()
    assert clusters.GetDataInformation().GetNumberOfPoints() == n, "clusters: points over all ranks"
    points = m.copy(servermanager.Fetch(clusters))
    table = m.copy(servermanager.Fetch(clusters, 0, idx=1))  # rank 0's table (it has every point)
    got = m.clusters_summary(points, table, "PointIndex")
    assert got["clusters"] == args.reference_clusters, \
        "%d clusters, reference %d" % (got["clusters"], args.reference_clusters)
    m.compare_clusters(got, serial_clusters, "MPI clusters vs serial")
    for other in range(1, ranks):  # no other rank adds rows of its own
        rows = servermanager.Fetch(clusters, other, idx=1).GetNumberOfRows()
        assert rows in (0, got["clusters"]), "rank %d's table has %d rows" % (other, rows)
    t.passed("%d clusters at t=%.17g (reference %d, serial run %d), every point in the same cluster as in the "
             "serial run, cluster table equal" % (got["clusters"], args.threshold, args.reference_clusters,
                                                   serial_clusters["clusters"]))

    # ---- written in parallel and read back -----------------------------------------------------
    folder = os.path.join(args.work_dir, "np%d_%s_%s" % (ranks, args.split, args.set))
    os.makedirs(folder, exist_ok=True)
    tree_file = os.path.join(folder, "tree.pvtp")
    clusters_file = os.path.join(folder, "clusters.pvtp")
    simple.SaveData(tree_file, proxy=tree, DataMode="Binary")
    simple.SaveData(clusters_file, proxy=clusters, DataMode="Binary")
    back = m.read_pvtp(tree_file)
    assert back.GetNumberOfPoints() == n and back.GetNumberOfLines() == n - 1, \
        "%s read back: %d points, %d lines" % (tree_file, back.GetNumberOfPoints(), back.GetNumberOfLines())
    m.compare_trees(m.tree_summary(back, "PointIndex"), summary, "tree.pvtp vs the fetched tree")
    back_points = m.read_pvtp(clusters_file)
    labels = m.partition(m.array(back_points, "PointIndex"), m.array(back_points, "ClusterId"))
    assert np.array_equal(labels, got["labels"]), "clusters.pvtp read back: another partition"
    t.passed("tree.pvtp (%d piece file(s)) and clusters.pvtp (%d) written in parallel, read back with the same numbers"
             % (len(m.pvtp_pieces(tree_file)), len(m.pvtp_pieces(clusters_file))))

    # ---- rendered in parallel ------------------------------------------------------------------
    if args.render:
        png = os.path.join(folder, "clusters.png")
        lit, pixels, colours = render(simple, clusters, png)
        t.passed("rendered on %d ranks: %d of %d pixels lit, %d colours (%s)" % (ranks, lit, pixels, colours, png))
    t.passed("%.1f s in all" % (time.time() - start))


def render(simple, clusters, png):
    """The clusters coloured by ClusterId, composited over the ranks; checks that the picture
    shows many coloured points."""
    from vtkmodules.util import numpy_support
    from vtkmodules.vtkIOImage import vtkPNGReader

    view = simple.CreateView("RenderView")
    view.ViewSize = [400, 300]
    view.Background = [0, 0, 0]
    view.OrientationAxesVisibility = 0
    shown = simple.Show(clusters, view)
    simple.ColorBy(shown, ("POINTS", "ClusterId"))
    view.ResetCamera()
    simple.SaveScreenshot(png, view, ImageResolution=[400, 300])
    reader = vtkPNGReader()
    reader.SetFileName(png)
    reader.Update()
    image = numpy_support.vtk_to_numpy(reader.GetOutput().GetPointData().GetScalars())[:, :3]
    lit = image.max(axis=1) > 0
    colours = len(np.unique(image[lit], axis=0))
    assert np.count_nonzero(lit) > 0.02 * len(image), \
        "the rendering is almost empty: %d of %d pixels lit" % (np.count_nonzero(lit), len(image))
    assert colours > 10, "the rendering has %d colours: not coloured by ClusterId" % colours
    return int(np.count_nonzero(lit)), len(image), colours


def main():
    args = arguments()
    simple = m.load(args.plugin)
    if args.serial:
        serial(args, simple)
    else:
        parallel(args, simple)


main()
