// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
#include "vtkEMSTClusterTable.h"

#include "vtkEMSTArrays.h"

#include "vtkCellArray.h"
#include "vtkDataArray.h"
#include "vtkDoubleArray.h"
#include "vtkIdTypeArray.h"
#include "vtkIntArray.h"
#include "vtkPointSet.h"
#include "vtkTable.h"

#include <algorithm>
#include <limits>

namespace vtkEMSTClusterTable
{

namespace
{

/// Each clustered point's coordinates unwrapped around its cluster (see AddGeometry); noise
/// points keep theirs. 3 values per point.
std::vector<double> UnwrappedPoints(vtkPointSet* points, const int* label,
  const std::vector<vtkIdType>& firstPoint, const vtkEMSTPeriodicBox::Box& box, vtkCellArray* lines)
{
  const vtkIdType n = points->GetNumberOfPoints();
  std::vector<double> xyz(static_cast<std::size_t>(3 * n));
  for (vtkIdType k = 0; k < n; ++k)
  {
    points->GetPoint(k, &xyz[3 * k]);
  }
  // The edges inside clusters as adjacency lists (CSR).
  const vtkIdType cells = lines ? lines->GetNumberOfCells() : 0;
  vtkDataArray* ends = lines ? lines->GetConnectivityArray() : nullptr;
  std::vector<std::pair<vtkIdType, vtkIdType>> inside;
  for (vtkIdType e = 0; ends != nullptr && e < cells && 2 * e + 1 < ends->GetNumberOfTuples(); ++e)
  {
    const vtkIdType a = static_cast<vtkIdType>(ends->GetComponent(2 * e, 0));
    const vtkIdType b = static_cast<vtkIdType>(ends->GetComponent(2 * e + 1, 0));
    if (a >= 0 && a < n && b >= 0 && b < n && label[a] >= 0 && label[a] == label[b])
    {
      inside.emplace_back(a, b);
    }
  }
  std::vector<vtkIdType> first(static_cast<std::size_t>(n + 1), 0);
  for (const auto& edge : inside)
  {
    ++first[edge.first + 1];
    ++first[edge.second + 1];
  }
  for (vtkIdType k = 0; k < n; ++k)
  {
    first[k + 1] += first[k];
  }
  std::vector<vtkIdType> next(first.begin(), first.end() - 1);
  std::vector<vtkIdType> neighbour(2 * inside.size());
  for (const auto& edge : inside)
  {
    neighbour[next[edge.first]++] = edge.second;
    neighbour[next[edge.second]++] = edge.first;
  }
  std::vector<char> seen(static_cast<std::size_t>(n), 0);
  std::vector<vtkIdType> stack;
  double raw[3], d[3];
  auto stepFrom = [&](vtkIdType u, vtkIdType v)
  {
    points->GetPoint(v, raw);
    points->GetPoint(u, d);
    for (int a = 0; a < 3; ++a)
    {
      d[a] = raw[a] - d[a];
    }
    box.MinimumImage(d);
    for (int a = 0; a < 3; ++a)
    {
      xyz[3 * v + a] = xyz[3 * u + a] + d[a];
    }
  };
  for (const vtkIdType start : firstPoint)
  {
    box.Wrap(&xyz[3 * start]);
    seen[start] = 1;
    stack.assign(1, start);
    while (!stack.empty())
    {
      const vtkIdType u = stack.back();
      stack.pop_back();
      for (vtkIdType k = first[u]; k < first[u + 1]; ++k)
      {
        const vtkIdType v = neighbour[k];
        if (!seen[v])
        {
          seen[v] = 1;
          stepFrom(u, v);
          stack.push_back(v);
        }
      }
    }
  }
  for (vtkIdType k = 0; k < n; ++k)
  {
    if (!seen[k] && label[k] >= 0)
    {
      stepFrom(firstPoint[static_cast<std::size_t>(label[k])], k);
    }
  }
  return xyz;
}

}

void AddGeometry(vtkTable* table, vtkPointSet* points, const int* label,
  const std::vector<vtkIdType>& sizes, const std::vector<vtkIdType>& firstPoint,
  const vtkEMSTPeriodicBox::Box& box, vtkCellArray* lines)
{
  const std::size_t clusters = sizes.size();
  std::vector<double> sum(3 * clusters, 0.0);
  std::vector<double> min(3 * clusters, std::numeric_limits<double>::infinity());
  std::vector<double> max(3 * clusters, -std::numeric_limits<double>::infinity());
  const vtkIdType n = points->GetNumberOfPoints();
  const bool periodic = box.IsPeriodic();
  const std::vector<double> unwrapped =
    periodic ? UnwrappedPoints(points, label, firstPoint, box, lines) : std::vector<double>();
  double p[3];
  for (vtkIdType k = 0; k < n; ++k)
  {
    const int c = label[k];
    if (c < 0)
    {
      continue;
    }
    if (periodic)
    {
      std::copy(&unwrapped[3 * k], &unwrapped[3 * k] + 3, p);
    }
    else
    {
      points->GetPoint(k, p);
    }
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
    if (periodic)
    {
      double moved[3] = { sum[3 * c], sum[3 * c + 1], sum[3 * c + 2] };
      box.Wrap(moved);
      for (int a = 0; a < 3; ++a)
      {
        const double shift = moved[a] - sum[3 * c + a];
        sum[3 * c + a] = moved[a];
        min[3 * c + a] += shift;
        max[3 * c + a] += shift;
      }
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
