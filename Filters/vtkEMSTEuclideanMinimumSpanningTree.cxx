// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
#include "vtkEMSTEuclideanMinimumSpanningTree.h"

#include "vtkEMSTAbort.h"
#include "vtkEMSTArrays.h"
#include "vtkEMSTEngineBridge.h"
#include "vtkEMSTGather.h"
#include "vtkEMSTPeriodicBox.h"
#include "vtkEMSTPointInput.h"

#include "vtkCellArray.h"
#include "vtkCellData.h"
#include "vtkDataObject.h"
#include "vtkDoubleArray.h"
#include "vtkFieldData.h"
#include "vtkIdTypeArray.h"
#include "vtkInformation.h"
#include "vtkInformationVector.h"
#include "vtkIntArray.h"
#include "vtkMultiProcessController.h"
#include "vtkObjectFactory.h"
#include "vtkPoints.h"
#include "vtkPolyData.h"
#include "vtkSmartPointer.h"
#include "vtkStringArray.h"
#include "vtkUnsignedCharArray.h"

#include <algorithm>
#include <string>
#include <vector>

vtkStandardNewMacro(vtkEMSTEuclideanMinimumSpanningTree);
vtkCxxSetObjectMacro(vtkEMSTEuclideanMinimumSpanningTree, Controller, vtkMultiProcessController);

namespace
{

/// Field data that says what ran; present on every output, empty or not. backendId: the
/// BackendType that ran (CUDA, CPU), AUTO when no engine ran.
void AddFieldData(vtkPolyData* output, double totalLength, const std::string& backend,
  int backendId, double milliseconds, vtkIdType pointsInTree, const std::string& inputPath,
  const std::vector<std::string>& messages)
{
  vtkFieldData* fd = output->GetFieldData();
  vtkEMSTArrays::AddValue<vtkDoubleArray>(fd, "TotalLength", totalLength);
  vtkEMSTArrays::AddValue<vtkStringArray>(fd, "EMSTBackend", backend);
  vtkEMSTArrays::AddValue<vtkIntArray>(fd, "EMSTBackendId", backendId);
  vtkEMSTArrays::AddValue<vtkDoubleArray>(fd, "EMSTComputeMilliseconds", milliseconds);
  vtkEMSTArrays::AddValue<vtkIdTypeArray>(fd, "EMSTPointsInTree", pointsInTree);
  vtkEMSTArrays::AddValue<vtkStringArray>(fd, "EMSTInput", inputPath);
  vtkEMSTArrays::AddStrings(fd, "EMSTMessages", messages);
}

/// An output with no points and no lines, but with the arrays a downstream user looks for
/// (CrossesBoundary too when a periodic box was asked for).
void MakeEmpty(vtkPolyData* output, const std::string& backend,
  const std::vector<std::string>& messages, bool periodic = false)
{
  output->Initialize();
  output->SetPoints(vtkSmartPointer<vtkPoints>::New());
  output->SetLines(vtkSmartPointer<vtkCellArray>::New());
  output->GetCellData()->AddArray(vtkEMSTArrays::Named<vtkDoubleArray>("EdgeLength"));
  if (periodic)
  {
    output->GetCellData()->AddArray(vtkEMSTArrays::Named<vtkUnsignedCharArray>("CrossesBoundary"));
  }
  AddFieldData(
    output, 0.0, backend, vtkEMSTEuclideanMinimumSpanningTree::AUTO, 0.0, 0, "", messages);
}

} // namespace

//------------------------------------------------------------------------------
vtkEMSTEuclideanMinimumSpanningTree::vtkEMSTEuclideanMinimumSpanningTree()
{
  this->SetController(vtkMultiProcessController::GetGlobalController());
}

//------------------------------------------------------------------------------
vtkEMSTEuclideanMinimumSpanningTree::~vtkEMSTEuclideanMinimumSpanningTree()
{
  this->SetController(nullptr);
}

//------------------------------------------------------------------------------
int vtkEMSTEuclideanMinimumSpanningTree::FillInputPortInformation(int, vtkInformation* info)
{
  // Accepting composite data here makes the executive hand over the whole tree of blocks (one
  // EMST over all leaves) instead of running the filter once per block.
  info->Set(vtkAlgorithm::INPUT_REQUIRED_DATA_TYPE(), "vtkPointSet");
  info->Append(vtkAlgorithm::INPUT_REQUIRED_DATA_TYPE(), "vtkCompositeDataSet");
  return 1;
}

//------------------------------------------------------------------------------
int vtkEMSTEuclideanMinimumSpanningTree::RequestData(
  vtkInformation*, vtkInformationVector** inputVector, vtkInformationVector* outputVector)
{
  vtkEMSTAbort::ForgetEarlierCancel(this);
  vtkDataObject* input = vtkDataObject::GetData(inputVector[0], 0);
  vtkPolyData* output = vtkPolyData::GetData(outputVector, 0);
  if (output == nullptr)
  {
    vtkErrorMacro("No vtkPolyData output.");
    return 0;
  }
  std::vector<std::string> messages;

  // The periodic box: the input's field data or the properties. Checked on the process that
  // computes the tree (process 0 under MPI: its input's box is the one used), after the gather,
  // which every process must join.
  const bool boxAsked = this->PeriodicBoxMode != BOX_OFF;
  vtkEMSTPeriodicBox::Box box;
  std::string boxError;
  const bool boxValid = vtkEMSTPeriodicBox::FromProperties(
    this->PeriodicBoxMode, input, this->BoxOrigin, this->BoxSize, box, boxError);
  // The point sets of the input, all on process 0 when several processes hold pieces.
  vtkEMSTPointInput::Points points = vtkEMSTPointInput::Collect(input, this->Controller, messages);
  for (const std::string& message : messages)
  {
    vtkWarningMacro(<< message);
  }
  if (points.Failed)
  {
    vtkErrorMacro("Gathering the points on process 0 failed.");
    MakeEmpty(output, "none (error)", { "Gathering the points on process 0 failed." }, boxAsked);
    return 1;
  }
  if (points.SentAway)
  {
    MakeEmpty(output, "none (points sent to process 0)", {}, boxAsked);
    return 1;
  }

  if (!boxValid)
  {
    const std::string error = "Periodic box: " + boxError + ".";
    vtkErrorMacro(<< error);
    messages.push_back("error: " + error);
    MakeEmpty(output, "none (error)", messages, true);
    return 1;
  }
  if (boxAsked && !box.IsPeriodic())
  {
    messages.emplace_back("the periodic box has no periodic axis (every size is 0): the tree is "
                          "the ordinary one");
  }

  std::string envWarning;
  const int backend = vtkEMSTEngineBridge::ResolveBackend(this->Backend, envWarning);
  if (!envWarning.empty())
  {
    vtkWarningMacro(<< envWarning);
    messages.push_back(envWarning);
  }

  // Points and point arrays of the output: shared with a single input, appended otherwise.
  if (points.Leaves.empty())
  {
    MakeEmpty(output, "none (no points)", messages, boxAsked);
    return 1;
  }
  vtkEMSTGather::Append(points.Leaves, output, false);

  vtkEMSTEngineBridge::Request request = vtkEMSTPointInput::MakeRequest(points, backend, this);
  request.Box = box;
  vtkEMSTEngineBridge::Result tree = vtkEMSTEngineBridge::ComputeTree(request);
  this->SetProgressText(nullptr);

  if (tree.Outcome.Code == vtkEMSTEngineBridge::Status::Failed)
  {
    vtkErrorMacro(<< tree.Outcome.ErrorMessage);
    messages.push_back("error: " + tree.Outcome.ErrorMessage);
    MakeEmpty(output, "none (error)", messages, boxAsked);
    return 1;
  }
  if (tree.Outcome.Code == vtkEMSTEngineBridge::Status::Cancelled)
  {
    vtkWarningMacro("Cancelled: the output is empty.");
    messages.emplace_back("cancelled");
    MakeEmpty(output, "none (cancelled)", messages, boxAsked);
    return 1;
  }

  for (const std::string& message : tree.Messages)
  {
    vtkWarningMacro(<< message);
    messages.push_back(message);
  }
  messages.insert(messages.end(), tree.Notes.begin(), tree.Notes.end());
  if (tree.GhostPoints > 0)
  {
    messages.push_back(
      std::to_string(tree.GhostPoints) + " ghost points (vtkGhostType) left out of the tree.");
  }
  output->SetLines(tree.Lines);
  output->GetCellData()->AddArray(tree.EdgeLength);
  output->GetCellData()->SetActiveScalars("EdgeLength");
  vtkEMSTPeriodicBox::MarkTree(output, box, boxAsked);
  AddFieldData(output, tree.TotalLength, tree.BackendDescription, tree.BackendId,
    tree.ComputeMilliseconds, tree.PointsInTree,
    tree.InputPath + (points.Gathered ? ", gathered from all processes" : ""), messages);
  return 1;
}

//------------------------------------------------------------------------------
void vtkEMSTEuclideanMinimumSpanningTree::PrintSelf(ostream& os, vtkIndent indent)
{
  this->Superclass::PrintSelf(os, indent);
  os << indent
     << "Backend: " << (this->Backend == CUDA ? "CUDA" : (this->Backend == CPU ? "CPU" : "Auto"))
     << "\n";
  os << indent << "PeriodicBoxMode: " << this->PeriodicBoxMode << "\n";
  os << indent << "BoxOrigin: " << this->BoxOrigin[0] << " " << this->BoxOrigin[1] << " "
     << this->BoxOrigin[2] << "\n";
  os << indent << "BoxSize: " << this->BoxSize[0] << " " << this->BoxSize[1] << " "
     << this->BoxSize[2] << "\n";
  os << indent << "Controller: " << this->Controller << "\n";
}
