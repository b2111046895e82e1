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
  const std::size_t clusters = sizes.size();
  std::vector<double> sum(3 * clusters, 0.0);
  std::vector<double> min(3 * clusters, std::numeric_limits<double>::infinity());
  std::vector<double> max(3 * clusters, -std::numeric_limits<double>::infinity());
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
  for (std::size_t c = 0; c < clusters; ++c)
  {
    for (int a = 0; a < 3; ++a)
    {
      sum[3 * c + a] /= static_cast<double>(sizes[c]); // the centroid
    }
  }
  AddColumns(table, sizes, firstPoint, sum, min, max);
}

void AddColumns(vtkTable* table, const std::vector<vtkIdType>& sizes,
  const std::vector<vtkIdType>& firstPoint, const std::vector<double>& centroid,
  const std::vector<double>& boundsMin, const std::vector<double>& boundsMax)
{
  using vtkEMSTArrays::Named;
  const vtkIdType clusters = static_cast<vtkIdType>(sizes.size());
  auto id = Named<vtkIntArray>("ClusterId");
  auto size = Named<vtkIdTypeArray>("Size");
  auto mean = Named<vtkDoubleArray>("Centroid", 3);
  auto lo = Named<vtkDoubleArray>("BoundsMin", 3);
  auto hi = Named<vtkDoubleArray>("BoundsMax", 3);
  auto first = Named<vtkIdTypeArray>("FirstPoint");
  for (auto* array : std::vector<vtkDataArray*>{ id, size, mean, lo, hi, first })
  {
    array->SetNumberOfTuples(clusters);
  }
  std::copy(centroid.begin(), centroid.begin() + 3 * clusters, mean->GetPointer(0));
  std::copy(boundsMin.begin(), boundsMin.begin() + 3 * clusters, lo->GetPointer(0));
  std::copy(boundsMax.begin(), boundsMax.begin() + 3 * clusters, hi->GetPointer(0));
  for (vtkIdType c = 0; c < clusters; ++c)
  {
    id->SetValue(c, static_cast<int>(c));
    size->SetValue(c, sizes[c]);
    first->SetValue(c, firstPoint[c]);
  }
  for (auto* array : std::vector<vtkAbstractArray*>{ id, size, mean, lo, hi, first })
  {
    table->AddColumn(array);
  }
}

}
