// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The columns that every cluster table of the filters has (MST Clusters, HDBSCAN Clusters): one
// row per cluster, in id order. Not wrapped, not installed.
#ifndef vtkEMSTClusterTable_h
#define vtkEMSTClusterTable_h

#include "vtkType.h"

#include <vector>

class vtkPointSet;
class vtkTable;

namespace vtkEMSTClusterTable
{

/// Adds to `table` the columns ClusterId, Size, Centroid, BoundsMin, BoundsMax (3 components
/// each) and FirstPoint for clusters 0..sizes.size()-1, from the points and their labels
/// (`label[k]` of point k, -1 for noise).
void AddGeometry(vtkTable* table, vtkPointSet* points, const int* label,
  const std::vector<vtkIdType>& sizes, const std::vector<vtkIdType>& firstPoint);

/// The same columns from values already reduced (e.g. over processes): centroids and bounds
/// have 3 values per cluster.
void AddColumns(vtkTable* table, const std::vector<vtkIdType>& sizes,
  const std::vector<vtkIdType>& firstPoint, const std::vector<double>& centroid,
  const std::vector<double>& boundsMin, const std::vector<double>& boundsMax);

}

#endif
