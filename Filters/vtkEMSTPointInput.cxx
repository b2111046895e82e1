// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
#include "vtkEMSTPointInput.h"

#include "vtkEMSTAbort.h"
#include "vtkEMSTGather.h"

#include "vtkAlgorithm.h"
#include "vtkCompositeDataIterator.h"
#include "vtkCompositeDataSet.h"
#include "vtkMultiProcessController.h"
#include "vtkPointData.h"
#include "vtkPointSet.h"
#include "vtkPolyData.h"

namespace vtkEMSTPointInput
{
Points Collect(
  vtkDataObject* input, vtkMultiProcessController* controller, std::vector<std::string>& messages)
{
  Points points;
  std::vector<vtkSmartPointer<vtkPointSet>>& leaves = points.Leaves;
  if (auto* pointSet = vtkPointSet::SafeDownCast(input))
  {
    if (pointSet->GetPoints() != nullptr) // an empty data set may have no vtkPoints at all
    {
      leaves.emplace_back(pointSet);
    }
  }
  else if (auto* composite = vtkCompositeDataSet::SafeDownCast(input))
  {
    vtkSmartPointer<vtkCompositeDataIterator> it;
    it.TakeReference(composite->NewIterator());
    vtkIdType skipped = 0;
    for (it->InitTraversal(); !it->IsDoneWithTraversal(); it->GoToNextItem())
    {
      vtkDataObject* leaf = it->GetCurrentDataObject();
      if (auto* leafPoints = vtkPointSet::SafeDownCast(leaf))
      {
        if (leafPoints->GetNumberOfPoints() > 0)
        {
          leaves.emplace_back(leafPoints);
        }
      }
      else if (leaf != nullptr)
      {
        ++skipped;
      }
    }
    if (skipped > 0)
    {
      messages.push_back(std::to_string(skipped) +
        " block(s) are not point sets (vtkPointSet) and were left out of the tree.");
    }
  }

  // Several processes: a tree per piece would not be the tree of the data, so every process
  // sends its points (and point arrays) to process 0, which computes the one exact tree.
  if (controller == nullptr || controller->GetNumberOfProcesses() < 2)
  {
    return points;
  }
  auto local = vtkSmartPointer<vtkPolyData>::New();
  if (!leaves.empty())
  {
    vtkEMSTGather::Append(leaves, local, false);
  }
  std::vector<vtkSmartPointer<vtkDataObject>> pieces;
  leaves.clear();
  if (!controller->Gather(local, pieces, 0))
  {
    points.Failed = true;
    return points;
  }
  if (controller->GetLocalProcessId() != 0)
  {
    points.SentAway = true;
    return points;
  }
  points.Gathered = true;
  for (const auto& piece : pieces)
  {
    auto* pointSet = vtkPointSet::SafeDownCast(piece);
    if (pointSet != nullptr && pointSet->GetNumberOfPoints() > 0)
    {
      leaves.emplace_back(pointSet);
    }
  }
  return points;
}

vtkEMSTEngineBridge::Request MakeRequest(const Points& points, int backend, vtkAlgorithm* algorithm)
{
  vtkEMSTEngineBridge::Request request;
  request.GhostMask = vtkEMSTEngineBridge::LeftOutGhostBits();
  request.Backend = backend;
  for (const auto& leaf : points.Leaves)
  {
    request.Blocks.push_back({ leaf->GetPoints(), vtkEMSTEngineBridge::PointGhosts(leaf) });
  }
  request.Progress = [algorithm](double fraction, const char* step)
  {
    algorithm->SetProgressText(step);
    algorithm->UpdateProgress(fraction);
    return !vtkEMSTAbort::Requested(algorithm);
  };
  return request;
}

}
