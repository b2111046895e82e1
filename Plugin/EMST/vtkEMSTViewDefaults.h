// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
/**
 * @class   vtkEMSTViewDefaults
 * @brief   how the EMST filters' outputs look when first shown: GUI, pvpython, pvbatch, Catalyst
 *
 * ParaView 5.11's XML hints choose a view and a representation type per output port, but not a
 * colour map, chart series or axis titles. Those defaults live here, in the server manager, where
 * the GUI's Apply and paraview.simple's Show() both go
 * (vtkSMParaViewPipelineControllerWithRendering), so that every client gets the same picture.
 * Install() runs once per process when the plugin is loaded (paraview_add_plugin INITIALIZERS) and
 * adds:
 *
 * - Colour maps by array name, as a settings collection of lower priority than the site and user
 *   settings (a user's "save as default for this array" wins), read by ParaView when it creates
 *   the map: `EdgeLength` on a log scale with the Turbo preset; `ClusterId` categorical. ParaView
 *   rescales neither on Apply: the EdgeLength range goes from the longest edge down two decades
 *   (or to the shortest edge when that is longer), shorter and zero-length edges (duplicate
 *   points: no logarithm) taking the lowest colour; the data range would give the blue third of
 *   the map to a few of the shortest edges.
 * - An observer of the proxy manager that gives a representation of the filters' outputs, when it
 *   is created (not when it comes from a state file), its colouring and series:
 *   the tree (Euclidean Minimum Spanning Tree, output 0) coloured by `EdgeLength`; the clustered
 *   points (MST Clusters, output 0) by `ClusterId`, drawn as small discs (Point Gaussian, the
 *   representation type hint) so that points without a kept edge (single points, noise) show too;
 *   the edge-length histogram (output 2) as `EdgeCount` (left axis) and `ClustersAtBinEnd` (right
 *   axis) against `EdgeLength`, the other columns hidden, with axis titles, a log length axis when
 *   the lengths span decades (longest edge >= 10 x the mean) and the current cut marked on it.
 * - Updates when a tree or MST Clusters runs again: the EdgeLength range; the `ClusterId` map's
 *   annotations (-1 "noise" in grey, then one palette colour per cluster id, cycling, up to
 *   MaximumAnnotatedClusters) and the chart's cut mark and title. ParaView's own categorical
 *   annotation (prominent values) stops at 32 distinct values, which is why the ids are annotated
 *   here.
 *
 * What the user changes afterwards is kept: a range, annotations or colours that are not the ones
 * written here are left alone, a chart title or custom axis labels switched off stay so. Under MPI
 * the data information of all processes is used; the outputs live on process 0.
 */
#ifndef vtkEMSTViewDefaults_h
#define vtkEMSTViewDefaults_h

class vtkEMSTViewDefaults
{
public:
  /// Adds the settings and the observer; later calls do nothing. Called by the plugin loader.
  static void Install();

  /// Cluster ids coloured individually; larger ids (smaller clusters) take the map's NaN colour.
  static constexpr int MaximumAnnotatedClusters = 1000;
};

#endif
