# script-version: 2
# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""Catalyst pipeline: the Euclidean minimum spanning tree of the simulation's points and its
single-linkage clusters, each time step, written as extracts.

The adaptor hands its points to the producer named 'input' (a vtkPolyData or any point set,
split over the MPI ranks as the simulation owns them). Each step this script writes, into the
extracts folder:

    tree_<step>.pvtp          the EMST: every point, one line per tree edge, cell array EdgeLength,
                              field data TotalLength; under MPI one piece per rank: its points, the
                              edges it owns, ghost copies (vtkGhostType DUPLICATEPOINT) of their
                              remote ends
    clusters_<step>.pvtp      the points with ClusterId (0 = largest, -1 = noise) and ClusterSize,
                              and the tree edges kept (not longer than the cut: the linking
                              length b times the mean inter-particle spacing)
    cluster_table_<step>.csv  one row per cluster: ClusterId, Size, Centroid, BoundsMin/Max,
                              LongestEdge, FirstPoint

The filters compute the tree of the WHOLE data set, not one tree per piece, without moving the
points: the tree filter's Distributed mode (the default) keeps every rank's particles where they
are and exchanges only what the ranks' boundaries need; MST Clusters cuts that distributed tree in
place, with cluster ids that are global. The extracts are written in parallel (.pvtp with one piece
per rank). Set tree.ParallelMode = "Gather on rank 0" to compute on rank 0 alone instead.

Only paraview.simple and paraview.catalyst calls: the script runs with ParaView 5.11's legacy
Catalyst (vtkCPPythonPipeline) and with Catalyst 2 (the input is then the channel 'input').

Settings (environment variables, since the legacy API passes no arguments to scripts):
    EMST_PLUGIN                   path of EMST.so; not needed when the plugin is already loaded
                                  (e.g. through PV_PLUGIN_PATH)
    EMST_CATALYST_OUTPUT          extracts folder (default: emst_extracts)
    EMST_CATALYST_LINKING_LENGTH  b, the friends-of-friends linking length in units of the mean
                                  inter-particle spacing (default 0.2, the halo finders' value)
    EMST_CATALYST_MIN_CLUSTER     smaller clusters become noise, ClusterId -1 (default 10)
"""
import os

from paraview import catalyst
from paraview.simple import *  # noqa: F401,F403 (a Catalyst script is a paraview.simple script)

LINKING_LENGTH = float(os.environ.get("EMST_CATALYST_LINKING_LENGTH", "0.2"))
MIN_CLUSTER = int(os.environ.get("EMST_CATALYST_MIN_CLUSTER", "10"))

# ---- the plugin -----------------------------------------------------------------------------
if "EuclideanMinimumSpanningTree" not in globals():
    plugin = os.environ.get("EMST_PLUGIN")
    if not plugin:
        raise RuntimeError("emst_pipeline.py: set EMST_PLUGIN to the path of EMST.so "
                           "(or PV_PLUGIN_PATH to its folder)")
    LoadPlugin(plugin, remote=False, ns=globals())

# ---- the pipeline ---------------------------------------------------------------------------
# The simulation's points: the adaptor's input (legacy) or channel (Catalyst 2) named 'input'.
particles = TrivialProducer(registrationName="input")

tree = EuclideanMinimumSpanningTree(registrationName="tree", Input=particles)
tree.ParallelMode = "Distributed"  # the default: every rank keeps its particles

clusters = MSTClusters(registrationName="clusters", Input=tree)
clusters.CutMode = "Linking Length"
clusters.LinkingLength = LINKING_LENGTH
clusters.MinimumClusterSize = MIN_CLUSTER

# ---- the extracts ---------------------------------------------------------------------------
# Inline binary XML (DataMode 'Binary'): every ParaView 5.11 reads it back, also with Debian's
# patched libexpat that breaks the default appended mode (docs/libexpat.md).
tree_extract = CreateExtractor("VTP", tree, registrationName="tree_extract")
tree_extract.Writer.FileName = "tree_{timestep:06d}.pvtp"
tree_extract.Writer.DataMode = "Binary"

clusters_extract = CreateExtractor("VTP", clusters, registrationName="clusters_extract")
clusters_extract.Writer.FileName = "clusters_{timestep:06d}.pvtp"
clusters_extract.Writer.DataMode = "Binary"

table_extract = CreateExtractor("CSV", OutputPort(clusters, 1), registrationName="table_extract")
table_extract.Writer.FileName = "cluster_table_{timestep:06d}.csv"
table_extract.Writer.Precision = 17

options = catalyst.Options()
options.ExtractsOutputDirectory = os.environ.get("EMST_CATALYST_OUTPUT", "emst_extracts")
options.GlobalTrigger = "TimeStep"  # every step; a Frequency on the trigger thins it out


def catalyst_execute(info):
    """Called each step the pipeline runs, before the extracts are written: a one-line log, from
    the rank that holds the whole tree (Gather) or from rank 0 (Distributed: the counts and the
    length are global on every rank)."""
    from paraview.modules.vtkRemotingCore import vtkProcessModule

    clusters.UpdatePipeline(info.time)
    out = clusters.GetClientSideObject().GetOutputDataObject(0)
    fd = tree.GetClientSideObject().GetOutputDataObject(0).GetFieldData()
    count = out.GetFieldData().GetArray("NumberOfClusters")
    distributed = fd.GetAbstractArray("EMSTParallelMode") is not None
    rank = vtkProcessModule.GetProcessModule().GetPartitionId()
    if count is not None and (rank == 0 if distributed else out.GetNumberOfPoints() > 0):
        print("emst_pipeline: step %d time %g: %d points, tree length %.9g, %d clusters"
              % (info.timestep, info.time, fd.GetArray("EMSTPointsInTree").GetValue(0),
                 fd.GetArray("TotalLength").GetValue(0), count.GetValue(0)), flush=True)
