// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The columns that every cluster table of the filters has (MST Clusters, HDBSCAN Clusters): one
// row per cluster, in id order. Not wrapped, not installed.
#ifndef vtkEMSTClusterTable_h
#define vtkEMSTClusterTable_h

#include "vtkEMSTPeriodicBox.h"

#include "vtkType.h"

#include <vector>

class vtkCellArray;
class vtkPointSet;
class vtkTable;

namespace vtkEMSTClusterTable
{

/// Adds to `table` the columns ClusterId, Size, Centroid, BoundsMin, BoundsMax (3 components
/// each) and FirstPoint for clusters 0..sizes.size()-1, from the points and their labels
/// (`label[k]` of point k, -1 for noise).
///
/// In a periodic `box` the centroid and bounds are those of each cluster unwrapped around
/// itself: from its first point, wrapped into the box, along `lines` (2-point lines in point
/// ids: tree edges, of which those between two points of one cluster are followed), each step the
/// minimum image of the edge; a point no such path reaches takes the image nearest the first
/// point. A cluster across a face comes out in one piece; its centroid is then moved by whole
/// periods into the box, and its bounds with it (so they may reach past the faces). `lines` is
/// not read without a periodic axis.
void AddGeometry(vtkTable* table, vtkPointSet* points, const int* label,
  const std::vector<vtkIdType>& sizes, const std::vector<vtkIdType>& firstPoint,
  const vtkEMSTPeriodicBox::Box& box = vtkEMSTPeriodicBox::Box(), vtkCellArray* lines = nullptr);

/// The same columns from values already reduced (e.g. over processes): centroids and bounds
/// have 3 values per cluster.
void AddColumns(vtkTable* table, const std::vector<vtkIdType>& sizes,
  const std::vector<vtkIdType>& firstPoint, const std::vector<double>& centroid,
  const std::vector<double>& boundsMin, const std::vector<double>& boundsMax);

}

#endif
