// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
#include "vtkEMSTPointInput.h"

#include "vtkEMSTGather.h"

#include "vtkAlgorithm.h"
#include "vtkCompositeDataIterator.h"
#include "vtkCompositeDataSet.h"
#include "vtkDataSetAttributes.h"
#include "vtkMultiProcessController.h"
#include "vtkPointData.h"
#include "vtkPointSet.h"
#include "vtkPolyData.h"
#include "vtkUnsignedCharArray.h"
#include "vtkVersion.h"

namespace vtkEMSTPointInput
{
namespace
{

// Ghost bits that keep a point out of the tree: a copy of a point owned by another piece, or a
// blanked point.
constexpr unsigned char LeftOutGhostBits =
  vtkDataSetAttributes::DUPLICATEPOINT | vtkDataSetAttributes::HIDDENPOINT;

/// The vtkGhostType point array of a point set, when it has one value per point.
vtkUnsignedCharArray* PointGhosts(vtkPointSet* points)
{
  auto* ghosts = vtkUnsignedCharArray::SafeDownCast(
    points->GetPointData()->GetArray(vtkDataSetAttributes::GhostArrayName()));
  if (ghosts == nullptr || ghosts->GetNumberOfComponents() != 1 ||
    ghosts->GetNumberOfTuples() != points->GetNumberOfPoints())
  {
    return nullptr;
  }
  return ghosts;
}

/// A progress call that can cancel: CheckAbort where VTK has it (9.2.20220823 and later).
bool ContinueAfter(vtkAlgorithm* algorithm)
{
#if VTK_VERSION_NUMBER >= VTK_VERSION_CHECK(9, 2, 20220823)
  return !algorithm->CheckAbort();
#else
  return !algorithm->GetAbortExecute();
#endif
}

} // namespace

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
  request.GhostMask = LeftOutGhostBits;
  request.Backend = backend;
  for (const auto& leaf : points.Leaves)
  {
    request.Blocks.push_back({ leaf->GetPoints(), PointGhosts(leaf) });
  }
  request.Progress = [algorithm](double fraction, const char* step)
  {
    algorithm->SetProgressText(step);
    algorithm->UpdateProgress(fraction);
    return ContinueAfter(algorithm);
  };
  return request;
}

}
