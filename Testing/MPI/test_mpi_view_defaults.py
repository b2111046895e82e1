# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""Under MPI (mpiexec -np 2 emst-pvbatch, with a display): the sample spread over the ranks by
RedistributeDataSet, then Show() of the tree, the clustered points and the edge-length histogram.
They must look as they do serially (Testing/Python/view_defaults_testing.py, whose checks compare
with the data fetched from all ranks): colour maps, annotations and chart set from the whole data
set's lengths, cluster ids and cut, not from one rank's piece."""
import numpy as np
from paraview import servermanager
from paraview.modules.vtkRemotingCore import vtkProcessModule
from vtkmodules.util import numpy_support

import emst_mpi_testing  # noqa: F401 (puts Testing/Python, home of emst_testing, on the path)
import emst_testing as t
import view_defaults_testing as v

args = t.arguments()
simple = t.load(args.plugin)
ranks = vtkProcessModule.GetProcessModule().GetNumberOfLocalPartitions()
assert ranks >= 2, "run this under mpiexec -np 2 (found %d process)" % ranks

reader = simple.XMLPolyDataReader(FileName=[args.sample])
spread = simple.ProcessIdScalars(Input=simple.RedistributeDataSet(Input=reader))
tree = simple.EuclideanMinimumSpanningTree(Input=spread)
view = simple.CreateView("RenderView")
low, high = v.check_tree_display(tree, simple.Show(tree, view), "MPI tree")
# The tree, gathered on rank 0, keeps the rank that held each point.
owners = numpy_support.vtk_to_numpy(servermanager.Fetch(tree).GetPointData().GetArray("ProcessId"))
assert set(np.unique(owners).tolist()) == set(range(ranks)), "the points were not spread: %s" % np.bincount(owners)
t.passed("tree of the sample spread over %d ranks (%s points) coloured by EdgeLength, log Turbo map "
         "over %.4g..%.4g" % (ranks, np.bincount(owners).tolist(), low, high))

clusters = simple.MSTClusters(Input=tree, Threshold=0.9, MinimumClusterSize=10)
ids, annotated = v.check_clusters_display(clusters, simple.Show(clusters, view), "MPI clusters")
chart = simple.CreateView("XYChartView")
simple.Show(simple.OutputPort(clusters, 2), chart)
log, cut, count = v.check_histogram_chart(simple, clusters, tree, chart, "MPI histogram")
simple.Render(view)
simple.Render(chart)
t.passed("clusters at %g: %d ids annotated (noise and %d clusters); chart with %s length axis and %r"
         % (cut, annotated, count, "a log" if log else "a linear", chart.ChartTitle))
