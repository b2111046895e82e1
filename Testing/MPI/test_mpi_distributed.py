# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""The Distributed parallel mode under mpiexec pvbatch: every data set of the given folders (and a
lattice with duplicates, whose ties straddle the ranks), split three ways over the ranks, gives
the same tree and clusters as the Gather mode, whose tree is the serial engine's on the points in
rank order, the order that defines the global ids.

    mpiexec -np N emst-pvbatch test_mpi_distributed.py --ranks N --data-dir D [--data-dir D2]
        --work-dir W [--sets a,b]

Splits (one pvbatch run loops over all, since starting pvbatch is slow):
  chunks      contiguous runs of the file; with 3 ranks or more rank 0 (the one that writes the
              cluster table) has no points;
  slabs       rank 0 reads the set, RedistributeDataSet spreads it in spatial pieces;
  interleave  each point to a random rank: every rank's box covers everything, the worst case.

Asserted for each set and split, against the Gather mode's tree of the same pieces and the
set's reference values (.ref.json):
  - the union of the ranks' edges equals the Gather tree's edge list exactly: the same pairs of
    points (PointIndex, the point's index in the file) and the same length bits;
  - every point is held once (non-ghost), with EMSTOwnerRank = its rank and a unique EMSTGlobalId;
    every remote end is a ghost copy marked DUPLICATEPOINT, with the owner's coordinates, global
    id, owner rank and point arrays; every edge's first end is held by the rank that outputs it and
    has the smaller global id (the ownership rule);
  - the correctly rounded sum of EdgeLength over the ranks (math.fsum) equals TotalLength bit for
    bit, TotalLength is the same on every rank and within 1e-12 of the reference weight;
  - EMSTExchangedPoints and EMSTComputeMilliseconds are on every rank, and the ranks exchanged
    points;
  - MST Clusters at the reference's 99th-percentile threshold: the reference's number of clusters,
    every point (ghost copies too) in the same cluster, with the same ClusterId, as with the Gather
    mode, the same sizes, cluster table (on rank 0 only) and histogram; on the first set, with
    Threshold unset and MinimumClusterSize 0, the Gather mode's threshold and count and the
    same notes; Single Linkage Hierarchy: n - 1 rows on rank 0, whose heights are the sorted edge
    lengths.
Everything runs inside functions, and no builtin that numpy_interface shadows (min, max, sum, all,
any) is called: ParaView's programmable filters run in this interpreter's __main__ and put its
parallel reductions there (see test_mpi_data.py).
"""
import math
import os
import time

import numpy as np

import emst_mpi_testing as m

t = m.t

SPLITS = ("chunks", "slabs", "interleave")

# Every rank reads the file and keeps its share; one vertex cell per point (RedistributeDataSet
# moves cells); PointIndex is the point's index in the file.
SOURCE = m.READ_SET_IN_SOURCE + """if %(split)r == 'interleave':
    owner = np.random.default_rng(20260).integers(0, pieces, n)
    mine = np.nonzero(owner == piece)[0]
elif %(split)r == 'slabs':
    mine = np.arange(n) if piece == 0 else np.arange(0)
else:  # chunks, over ranks 1.. when there are 3 or more (no min/max: numpy_interface's reductions)
    first = 1 if pieces >= 3 else 0
    r = piece - first
    others = pieces - first
    mine = np.arange(n * r // others, n * (r + 1) // others) if r >= 0 else np.arange(0)
""" + m.KEEP_MINE


# One point per rank carrying that rank's field data, so that one Fetch shows every rank's values.
PER_RANK = """
import numpy as np
from vtkmodules.util import numpy_support as ns
from vtkmodules.vtkCommonCore import vtkPoints
from vtkmodules.vtkParallelCore import vtkMultiProcessController
tree = self.GetInput()
fd = tree.GetFieldData()
out = self.GetPolyDataOutput()
points = vtkPoints()
points.InsertNextPoint(0.0, 0.0, 0.0)
out.SetPoints(points)
def add(name, value, dtype):
    a = ns.numpy_to_vtk(np.array([value], dtype), deep=True)
    a.SetName(name)
    out.GetPointData().AddArray(a)
add('Rank', vtkMultiProcessController.GetGlobalController().GetLocalProcessId(), np.int32)
add('TotalLength', fd.GetArray('TotalLength').GetValue(0), np.float64)
exchanged = fd.GetArray('EMSTExchangedPoints')
add('Exchanged', exchanged.GetValue(0) if exchanged is not None else -1, np.int64)
add('Points', tree.GetNumberOfPoints(), np.int64)
compute = fd.GetArray('EMSTComputeMilliseconds')
add('Milliseconds', compute.GetValue(0) if compute is not None else -1.0, np.float64)
"""


def arguments():
    def extra(parser):
        parser.add_argument("--ranks", type=int, required=True)
        parser.add_argument("--data-dirs", nargs="*", default=[], help="more folders of sets")
        parser.add_argument("--sets", help="comma-separated names (default: every set of the folders)")

    args = t.arguments(extra)
    os.makedirs(args.work_dir, exist_ok=True)
    return args


def data_sets(args):
    """(name, .f32 path, reference or None) of every set in the folders, then the lattice."""
    found = []
    for folder in [args.data_dir] + list(args.data_dirs):
        if not folder or not os.path.isdir(folder):
            continue
        for f32 in sorted(os.listdir(folder)):
            name = f32[:-4]
            if f32.endswith(".f32") and os.path.exists(os.path.join(folder, name + ".ref.json")):
                if args.sets and name not in args.sets.split(","):
                    continue
                found.append((name, os.path.join(folder, f32), t.reference(folder, name)))
    found.append(("lattice_with_duplicates",) + lattice(args.work_dir))
    return found


def lattice(folder):
    """A 3D integer lattice with every fifth point repeated, shuffled: all nearest distances tie,
    and identical points land on different ranks. Its tree length is (distinct points - 1)."""
    grid = np.stack(np.meshgrid(np.arange(24), np.arange(20), np.arange(8), indexing="ij"), -1)
    xyz = grid.reshape(-1, 3).astype(np.float32)
    xyz = np.concatenate([xyz, xyz[::5]])
    xyz = xyz[np.random.default_rng(7).permutation(len(xyz))]
    path = os.path.join(folder, "lattice_with_duplicates.f32")
    with open(path, "wb") as f:
        f.write(np.array([len(xyz)], "<u8").tobytes() + np.array([3], "<u4").tobytes())
        f.write(xyz.astype("<f4").tobytes())
    distinct = 24 * 20 * 8
    return path, {"n": len(xyz), "duplicates": {"extra_copies": len(xyz) - distinct},
                  "emst": {"total_weight": float(distinct - 1)},
                  "single_linkage": {"p99": {"t": 1.0, "clusters": 1}}}


def pieces_of(simple, f32, split):
    source = simple.ProgrammableSource(OutputDataSetType="vtkPolyData")
    source.Script = SOURCE % {"f32": f32, "split": split}
    pieces = simple.RedistributeDataSet(Input=source) if split == "slabs" else source
    ranked = simple.ProgrammableFilter(Input=pieces)
    ranked.Script = m.ADD_RANK
    return source, pieces, ranked


def sorted_edges(index, i, j, length):
    """The edges as (min PointIndex, max PointIndex, length) sorted by (length, min, max)."""
    a, b = index[i], index[j]
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    order = np.lexsort((hi, lo, length))
    return lo[order], hi[order], length[order]


def check_tree(simple, servermanager, args, name, ref, split, ranked):
    # RedistributeDataSet merges exact duplicates: the pieces may hold fewer points than the file.
    ranked.UpdatePipeline()
    n = ranked.GetDataInformation().GetNumberOfPoints()
    merged = ref["n"] - n
    assert merged == 0 or (split == "slabs" and 0 < merged <= ref.get("duplicates", {}).get("extra_copies", 0)), \
        "%s, %s: the pieces hold %d points of %d" % (name, split, n, ref["n"])
    tree = simple.EuclideanMinimumSpanningTree(Input=ranked)
    gather = simple.EuclideanMinimumSpanningTree(Input=ranked, ParallelMode="Gather on rank 0")
    out = m.copy(servermanager.Fetch(tree))
    serial = m.copy(servermanager.Fetch(gather))
    label = "%s, %s, %d ranks" % (name, split, args.ranks)

    # Points: each held once, ghost copies (DUPLICATEPOINT, with a global id) of the remote ends.
    # RedistributeDataSet flags exact duplicates of a point as its ghosts: those stay left out of
    # the tree (EMSTGlobalId -1), as the filter's rule for ghost input points says.
    flags = m.array(out, "vtkGhostType")
    flagged = (flags & 1) != 0  # vtkDataSetAttributes::DUPLICATEPOINT
    index = m.array(out, "PointIndex").astype(np.int64)
    rank = m.array(out, "Rank").astype(np.int64)
    owner = m.array(out, "EMSTOwnerRank").astype(np.int64)
    gid = m.array(out, "EMSTGlobalId").astype(np.int64)
    xyz = t.output_points(out)
    ghost = flagged & (gid >= 0)  # the tree's copies
    own = ~ghost                  # the data's points, each on one rank
    in_tree = own & (gid >= 0)
    left_out = int(np.count_nonzero(own & (gid < 0)))
    assert np.count_nonzero(own) == n, "%s: %d points held, expected %d" % (label, np.count_nonzero(own), n)
    assert len(np.unique(index[own])) == n, "%s: a point is held twice" % label
    assert np.array_equal(owner[own], rank[own]), "%s: EMSTOwnerRank of a held point is not its rank" % label
    points = n - left_out
    assert np.array_equal(np.sort(gid[in_tree]), np.arange(points)), "%s: EMSTGlobalId is not 0..%d" % (label, points - 1)
    held = np.empty(ref["n"], np.int64)
    held[index[own]] = np.nonzero(own)[0]
    twin = held[index[ghost]]  # the held point each ghost copies
    assert np.array_equal(owner[ghost], rank[twin]), "%s: a ghost's EMSTOwnerRank is not its point's rank" % label
    assert np.array_equal(gid[ghost], gid[twin]), "%s: a ghost's EMSTGlobalId is not its point's" % label
    assert np.array_equal(xyz[ghost], xyz[twin]), "%s: a ghost's coordinates are not its point's" % label

    # Edges: the Gather tree's, exactly; each on the rank of its end with the smaller global id.
    i, j, length = t.edges(out)
    assert len(length) == points - 1, "%s: %d edges over the ranks, expected %d" % (label, len(length), points - 1)
    assert np.all(own[i]) and np.all(gid[i] < gid[j]), "%s: an edge is not on the rank of its smaller id" % label
    got = sorted_edges(index, i, j, length)
    si, sj, slength = t.edges(serial)
    ref_edges = sorted_edges(m.array(serial, "PointIndex").astype(np.int64), si, sj, slength)
    same = np.array_equal(got[0], ref_edges[0]) and np.array_equal(got[1], ref_edges[1])
    same = same and np.array_equal(got[2].view(np.uint64), ref_edges[2].view(np.uint64))
    assert same, "%s: the edges differ from the Gather mode's (serial) tree" % label

    # Totals, per rank.
    per_rank = simple.ProgrammableFilter(Input=tree, OutputDataSetType="vtkPolyData")
    per_rank.Script = PER_RANK
    values = m.copy(servermanager.Fetch(per_rank))
    totals = m.array(values, "TotalLength")
    exchanged = m.array(values, "Exchanged")
    assert len(totals) == args.ranks, "%s: field data of %d ranks" % (label, len(totals))
    assert np.all(totals.view(np.uint64) == totals[:1].view(np.uint64)), "%s: TotalLength differs between ranks" % label
    summed = math.fsum(length.tolist())
    assert summed == totals[0], "%s: fsum of EdgeLength %.17g, TotalLength %.17g" % (label, summed, totals[0])
    t.check_weight(totals[0], ref["emst"]["total_weight"], label)  # left-out copies weigh 0
    assert np.all(exchanged >= 0), "%s: EMSTExchangedPoints missing on a rank" % label
    assert exchanged.sum() > 0, "%s: no rank exchanged a point" % label  # every split uses 2 ranks or more
    assert np.all(m.array(values, "Milliseconds") >= 0), "%s: EMSTComputeMilliseconds missing on a rank" % label
    simple.Delete(per_rank)
    return tree, gather, out, {"ghosts": int(np.count_nonzero(ghost)), "exchanged": exchanged.tolist(),
                               "left_out": left_out + merged,
                               "total": totals[0], "held": np.bincount(rank[own], minlength=args.ranks).tolist()}


def dense(data, present):
    """Adds point array Dense: each point's PointIndex numbered 0.. among `present` (sorted)."""
    from vtkmodules.util import numpy_support

    index = m.array(data, "PointIndex").astype(np.int64)
    values = numpy_support.numpy_to_vtk(np.searchsorted(present, index).astype(np.int64), deep=True)
    values.SetName("Dense")
    data.GetPointData().AddArray(values)


def check_clusters(simple, servermanager, args, name, ref, split, tree, gather, hierarchy, left_out):
    label = "%s, %s, %d ranks" % (name, split, args.ranks)
    threshold = ref["single_linkage"]["p99"]["t"]
    clusters = m.make_clusters(simple, tree, threshold=threshold)
    serial = m.make_clusters(simple, gather, threshold=threshold)
    points = m.copy(servermanager.Fetch(clusters))
    table = m.copy(servermanager.Fetch(clusters, 0, idx=1))
    ghost = ((m.array(points, "vtkGhostType") & 1) != 0) & (m.array(points, "EMSTGlobalId") >= 0)
    index = m.array(points, "PointIndex").astype(np.int64)
    cluster = m.array(points, "ClusterId").astype(np.int64)
    size = m.array(points, "ClusterSize").astype(np.int64)
    # The summary wants each point once: the held ones.
    held = m.without_ghosts(points, keep=~ghost)
    serial_points = m.copy(servermanager.Fetch(serial))
    present = np.unique(m.array(held, "PointIndex"))  # the file's points the split kept
    for data in (held, serial_points):
        dense(data, present)
    got = m.clusters_summary(held, table, "Dense")
    ref_summary = m.clusters_summary(serial_points, m.copy(servermanager.Fetch(serial, 0, idx=1)), "Dense")
    m.compare_clusters(got, ref_summary, label + " clusters vs Gather mode")
    # The ids themselves, not only the partition: equal sizes rank by the smallest global id.
    ids = [m.array(d, "ClusterId").astype(np.int64)[np.argsort(m.array(d, "Dense"))] for d in (held, serial_points)]
    assert np.array_equal(ids[0], ids[1]), "%s: %d points with another ClusterId than with Gather" % (
        label, np.count_nonzero(ids[0] != ids[1]))
    # The histogram (rank 0's) is the Gather mode's, bin for bin.
    histograms = [m.copy(servermanager.Fetch(f, 0, idx=2)) for f in (clusters, serial)]
    for column in ("BinStart", "BinEnd", "EdgeCount", "ClustersAtBinEnd"):
        a, b = (m.column(h, column).ravel() for h in histograms)
        assert len(a) > 0 and np.array_equal(a, b), "%s: histogram %s differs from Gather's" % (label, column)
    if left_out == 0:  # a point left out of the tree (or merged away) changes the clusters
        assert got["clusters"] == ref["single_linkage"]["p99"]["clusters"], \
            "%s: %d clusters, reference %d" % (label, got["clusters"], ref["single_linkage"]["p99"]["clusters"])
    # Ghost copies carry their point's cluster.
    at = np.empty(ref["n"], np.int64)
    at[index[~ghost]] = np.nonzero(~ghost)[0]
    twin = at[index[ghost]]
    assert np.array_equal(cluster[ghost], cluster[twin]) and np.array_equal(size[ghost], size[twin]), \
        "%s: a ghost copy's ClusterId or ClusterSize differs from its point's" % label
    # Each table on rank 0 only: ParaView's reduction of a table appends the ranks' rows.
    fetched = servermanager.Fetch(clusters, idx=1).GetNumberOfRows()
    assert fetched == got["clusters"], "%s: the ranks' tables hold %d rows, not %d" % (label, fetched, got["clusters"])
    if hierarchy:
        # Properties the cut must interpret as the serial filter does: Threshold not set (the
        # middle of the edge lengths, said in ClusterMessages), MinimumClusterSize below 1.
        unset = [simple.MSTClusters(Input=source, CutMode="Threshold", MinimumClusterSize=0) for source in (tree, gather)]
        cut, serial_cut = (m.copy(servermanager.Fetch(c)) for c in unset)
        for name in ("ClusterThreshold", "NumberOfClusters"):
            a, b = (m.array(d, name, "field")[0] for d in (cut, serial_cut))
            assert a == b, "%s: unset Threshold: %s %r, Gather mode %r" % (label, name, a, b)
        said = cut.GetFieldData().GetAbstractArray("ClusterMessages")
        notes = [said.GetValue(k) for k in range(said.GetNumberOfValues())]
        assert any("middle of the edge lengths" in note for note in notes) and \
            any("MinimumClusterSize 0 is below 1" in note for note in notes), "%s: ClusterMessages %s" % (label, notes)
        for c in unset:
            simple.Delete(c)
        linkage = simple.SingleLinkageHierarchy(Input=tree)
        rows = m.copy(servermanager.Fetch(linkage, 0))
        heights = m.column(rows, "Height").ravel()
        _, _, length = t.edges(m.copy(servermanager.Fetch(tree)))
        assert len(heights) == len(length), "%s: hierarchy of %d rows" % (label, len(heights))
        assert np.array_equal(heights, np.sort(length)), "%s: hierarchy heights are not the sorted lengths" % label
        simple.Delete(linkage)
    simple.Delete(clusters)
    simple.Delete(serial)
    return got["clusters"]


def main():
    args = arguments()
    simple = m.load(args.plugin)
    from paraview import servermanager
    from paraview.modules.vtkRemotingCore import vtkProcessModule

    ranks = vtkProcessModule.GetProcessModule().GetNumberOfLocalPartitions()
    assert ranks == args.ranks, "expected %d ranks, found %d (run under mpiexec -np %d)" % (args.ranks, ranks, args.ranks)
    sets = data_sets(args)
    for number, (name, f32, ref) in enumerate(sets):
        for split in SPLITS:
            start = time.time()
            source, pieces, ranked = pieces_of(simple, f32, split)
            tree, gather, out, facts = check_tree(simple, servermanager, args, name, ref, split, ranked)
            count = check_clusters(simple, servermanager, args, name, ref, split, tree, gather,
                                   hierarchy=number == 0 and split == "interleave", left_out=facts["left_out"])
            t.passed("%s, %s, %d ranks: points held %s (%d left out or merged by the split), %d ghost "
                     "copies, exchanged %s, the Gather tree's edges, total %.17g, %d clusters as with Gather; %.1f s"
                     % (name, split, ranks, facts["held"], facts["left_out"], facts["ghosts"], facts["exchanged"],
                        facts["total"], count, time.time() - start))
            for proxy in (tree, gather, ranked) + ((pieces,) if pieces is not source else ()) + (source,):
                simple.Delete(proxy)


main()
