// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
#include "vtkEMSTClusterTable.h"

#include "vtkEMSTArrays.h"

#include "vtkDoubleArray.h"
#include "vtkIdTypeArray.h"
#include "vtkIntArray.h"
#include "vtkPointSet.h"
#include "vtkTable.h"

#include <algorithm>
#include <limits>

namespace vtkEMSTClusterTable
{

void AddGeometry(vtkTable* table, vtkPointSet* points, const int* label,
  const std::vector<vtkIdType>& sizes, const std::vector<vtkIdType>& firstPoint)
{
  using vtkEMSTArrays::Named;
  const vtkIdType clusters = static_cast<vtkIdType>(sizes.size());
  auto id = Named<vtkIntArray>("ClusterId");
  auto size = Named<vtkIdTypeArray>("Size");
  auto centroid = Named<vtkDoubleArray>("Centroid", 3);
  auto lo = Named<vtkDoubleArray>("BoundsMin", 3);
  auto hi = Named<vtkDoubleArray>("BoundsMax", 3);
  auto first = Named<vtkIdTypeArray>("FirstPoint");
  for (auto* array : std::vector<vtkDataArray*>{ id, size, centroid, lo, hi, first })
  {
    array->SetNumberOfTuples(clusters);
  }
  // Sums and bounds accumulate in the table's own arrays.
  double* sum = centroid->GetPointer(0);
  double* min = lo->GetPointer(0);
  double* max = hi->GetPointer(0);
  std::fill(sum, sum + 3 * clusters, 0.0);
  std::fill(min, min + 3 * clusters, std::numeric_limits<double>::infinity());
  std::fill(max, max + 3 * clusters, -std::numeric_limits<double>::infinity());
  const vtkIdType n = points->GetNumberOfPoints();
  double p[3];
  for (vtkIdType k = 0; k < n; ++k)
  {
    const int c = label[k];
    if (c < 0)
    {
      continue;
    }
    points->GetPoint(k, p);
    for (int a = 0; a < 3; ++a)
    {
      sum[3 * c + a] += p[a];
      min[3 * c + a] = std::min(min[3 * c + a], p[a]);
      max[3 * c + a] = std::max(max[3 * c + a], p[a]);
    }
  }
  for (vtkIdType c = 0; c < clusters; ++c)
  {
    const double count = static_cast<double>(sizes[c]);
    id->SetValue(c, static_cast<int>(c));
    size->SetValue(c, sizes[c]);
    for (int a = 0; a < 3; ++a)
    {
      sum[3 * c + a] /= count; // the centroid
    }
    first->SetValue(c, firstPoint[c]);
  }
  for (auto* array : std::vector<vtkAbstractArray*>{ id, size, centroid, lo, hi, first })
  {
    table->AddColumn(array);
  }
}

}
