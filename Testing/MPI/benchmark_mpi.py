# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""What gathering on rank 0 costs: the tree (and the clusters) of N uniform random 3D points
spread evenly over the ranks, timed on rank 0, with rank 0's peak memory. Not a test.
--parallel-mode Distributed times the Distributed mode instead (rank 0's share and its part of the
work; Testing/Benchmarks/run_distributed.sh measures the distributed engine itself). --layout:
each rank's points in a slab of the unit cube (default) or spread over all of it.

    mpiexec -np R build/bin/emst-pvbatch Testing/MPI/benchmark_mpi.py --points 2000000 [--repeat 3]

Prints one line: ranks, points, the tree filter's wall time (gather + append + engine + output),
the engine's own time (EMSTComputeMilliseconds), their difference (the price of MPI), the
clusters filter's wall time, and rank 0's peak resident memory (ru_maxrss) before and after.
"""
import argparse
import builtins
import resource
import time

import paraview.simple as simple
from paraview.modules.vtkRemotingCore import vtkProcessModule

SOURCE = """
import numpy as np
from vtkmodules.util import numpy_support as ns
from vtkmodules.vtkCommonCore import vtkPoints
from vtkmodules.vtkCommonExecutionModel import vtkStreamingDemandDrivenPipeline as sddp
info = self.GetOutputInformation(0)
piece = info.Get(sddp.UPDATE_PIECE_NUMBER())
pieces = info.Get(sddp.UPDATE_NUMBER_OF_PIECES())
n = %(points)d * (piece + 1) // pieces - %(points)d * piece // pieces
xyz = np.random.default_rng(piece).random((n, 3), dtype=np.float32)
if %(slabs)s:  # rank r's points in the slab r / pieces <= x < (r + 1) / pieces of the unit cube
    xyz[:, 0] = ((piece + xyz[:, 0].astype(np.float64)) / pieces).astype(np.float32)
points = vtkPoints()
points.SetData(ns.numpy_to_vtk(xyz, deep=True))
self.GetPolyDataOutput().SetPoints(points)
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--points", type=int, default=1000000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--plugin", help="EMST.so, when not run through build/bin/emst-pvbatch")
    parser.add_argument("--tree-only", action="store_true", help="no clusters filter")
    parser.add_argument("--layout", default="slabs", choices=["slabs", "overlapping"],
                        help="each rank's points: a slab of the unit cube (spatial pieces, as a "
                        "simulation's domains), or spread over all of it (every rank's box overlaps "
                        "every other: the Distributed mode's worst case)")
    parser.add_argument("--parallel-mode", default="Gather on rank 0", choices=["Gather on rank 0", "Distributed"],
                        help="the tree filter's ParallelMode (default: the gathering this script measures)")
    args = parser.parse_args()
    if not hasattr(simple, "EuclideanMinimumSpanningTree"):
        simple.LoadPlugin(args.plugin, remote=False)
    ranks = vtkProcessModule.GetProcessModule().GetNumberOfLocalPartitions()
    source = simple.ProgrammableSource(OutputDataSetType="vtkPolyData")
    source.Script = SOURCE % {"points": args.points, "slabs": args.layout == "slabs"}
    source.UpdatePipeline()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    tree = simple.EuclideanMinimumSpanningTree(Input=source, ParallelMode=args.parallel_mode)
    clusters = simple.MSTClusters(Input=tree)
    clusters.CutMode = "Linking Length"
    clusters.LinkingLength = 0.2
    walls, engines, cuts = [], [], []
    for k in range(args.repeat):
        tree.Backend = ["Auto", "CPU"][k % 2]  # a property change re-runs the filter
        start = time.time()
        tree.UpdatePipeline()
        walls.append(time.time() - start)
        engines.append(tree.GetClientSideObject().GetOutputDataObject(0).GetFieldData()
                       .GetArray("EMSTComputeMilliseconds").GetValue(0) / 1000.0)
        start = time.time()
        if not args.tree_only:
            clusters.UpdatePipeline()
        cuts.append(time.time() - start)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    out = tree.GetClientSideObject().GetOutputDataObject(0)
    if args.parallel_mode != "Distributed":  # distributed: rank 0 holds its share only
        assert out.GetNumberOfPoints() == args.points and out.GetNumberOfLines() == args.points - 1
    # builtins.min: the programmable source put numpy_interface's algorithms into __main__, and
    # their min() is a reduction over all ranks that only rank 0 would enter here (a deadlock).
    wall, engine, cut = builtins.min(walls), builtins.min(engines), builtins.min(cuts)
    print("layout=%s mode=%s ranks=%d points=%d tree_s=%.3f engine_s=%.3f mpi_overhead_s=%.3f clusters_s=%.3f "
          "rank0_peak_MiB_before=%.0f after=%.0f backend=%s"
          % (args.layout, args.parallel_mode.split()[0], ranks, args.points, wall, engine, wall - engine, cut, before, after,
             out.GetFieldData().GetAbstractArray("EMSTBackend").GetValue(0)), flush=True)


main()
