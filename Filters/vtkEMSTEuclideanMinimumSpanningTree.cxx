// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
#include "vtkEMSTEuclideanMinimumSpanningTree.h"

#include "vtkEMSTAbort.h"
#include "vtkEMSTArrays.h"
#include "vtkEMSTEngineBridge.h"
#include "vtkEMSTGather.h"
#include "vtkEMSTParallel.h"
#include "vtkEMSTPeriodicBox.h"
#include "vtkEMSTPointInput.h"

#include "vtkCellArray.h"
#include "vtkCellData.h"
#include "vtkDataObject.h"
#include "vtkDataSetAttributes.h"
#include "vtkDoubleArray.h"
#include "vtkFieldData.h"
#include "vtkIdList.h"
#include "vtkIdTypeArray.h"
#include "vtkInformation.h"
#include "vtkInformationVector.h"
#include "vtkIntArray.h"
#include "vtkMultiProcessController.h"
#include "vtkObjectFactory.h"
#include "vtkPointData.h"
#include "vtkPointSet.h"
#include "vtkPoints.h"
#include "vtkPolyData.h"
#include "vtkSmartPointer.h"
#include "vtkStringArray.h"
#include "vtkUnsignedCharArray.h"

#include <algorithm>
#include <cstring>
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

/// For a failed or cancelled run: reports it, makes the output empty and returns true.
bool EmptyUnlessOk(vtkAlgorithm* filter, vtkPolyData* output,
  const vtkEMSTEngineBridge::Status& outcome, std::vector<std::string>& messages,
  bool periodic = false)
{
  if (outcome.Code == vtkEMSTEngineBridge::Status::Ok)
  {
    return false;
  }
  const bool cancelled = outcome.Code == vtkEMSTEngineBridge::Status::Cancelled;
  if (cancelled)
  {
    vtkWarningWithObjectMacro(filter, "Cancelled: the output is empty.");
  }
  else
  {
    vtkErrorWithObjectMacro(filter, << outcome.ErrorMessage);
  }
  messages.push_back(cancelled ? "cancelled" : "error: " + outcome.ErrorMessage);
  MakeEmpty(output, cancelled ? "none (cancelled)" : "none (error)", messages, periodic);
  return true;
}

/// The tree's lines, lengths and field data on `output`; its messages warned with and kept, its
/// notes kept.
void SetTree(vtkAlgorithm* filter, vtkPolyData* output, const vtkEMSTEngineBridge::Result& tree,
  const std::string& inputPath, std::vector<std::string>& messages)
{
  for (const std::string& message : tree.Messages)
  {
    vtkWarningWithObjectMacro(filter, << message);
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
  AddFieldData(output, tree.TotalLength, tree.BackendDescription, tree.BackendId,
    tree.ComputeMilliseconds, tree.PointsInTree, inputPath, messages);
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

  // Several processes: a tree per piece would not be the EMST of the data. Either they compute
  // the one exact tree together (Distributed: each keeps its point sets), or every process sends
  // its points (and point arrays) to process 0, which computes it alone. A periodic tree is
  // always computed on process 0: the distributed search has no periodic boxes.
  vtkMultiProcessController* controller = this->Controller;
  const bool several = controller != nullptr && controller->GetNumberOfProcesses() > 1;
  const bool distributed = several && this->ParallelMode == DISTRIBUTED && !boxAsked;
  if (several && this->ParallelMode == DISTRIBUTED && boxAsked)
  {
    messages.emplace_back("a periodic box is computed on process 0: the points are gathered "
                          "there (ParallelMode Distributed has no periodic boxes)");
  }
  vtkEMSTPointInput::Points points =
    vtkEMSTPointInput::Collect(input, distributed ? nullptr : controller, messages);
  for (const std::string& message : messages)
  {
    vtkWarningMacro(<< message);
  }
  if (distributed)
  {
    return this->RequestDistributed(points.Leaves, output, messages);
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

  if (EmptyUnlessOk(this, output, tree.Outcome, messages, boxAsked))
  {
    return 1;
  }
  SetTree(this, output, tree,
    tree.InputPath + (points.Gathered ? ", gathered from all processes" : ""), messages);
  vtkEMSTPeriodicBox::MarkTree(output, box, boxAsked);
  return 1;
}

//------------------------------------------------------------------------------
int vtkEMSTEuclideanMinimumSpanningTree::RequestDistributed(
  const std::vector<vtkSmartPointer<vtkPointSet>>& leaves, vtkPolyData* output,
  std::vector<std::string>& messages)
{
  vtkMultiProcessController* controller = this->Controller;
  const int processes = controller->GetNumberOfProcesses();
  const int rank = controller->GetLocalProcessId();
  std::string envWarning;
  const int backend = vtkEMSTEngineBridge::ResolveBackend(this->Backend, envWarning);
  if (!envWarning.empty())
  {
    vtkWarningMacro(<< envWarning);
    messages.push_back(envWarning);
  }

  // This process's points and arrays, then the tree computed with the others.
  auto own = vtkSmartPointer<vtkPolyData>::New();
  if (leaves.empty())
  {
    own->SetPoints(vtkSmartPointer<vtkPoints>::New());
  }
  else
  {
    vtkEMSTGather::Append(leaves, own, false);
  }
  vtkEMSTPointInput::Points points;
  points.Leaves = leaves;
  vtkEMSTEngineBridge::Request request = vtkEMSTPointInput::MakeRequest(points, backend, this);
  vtkEMSTEngineBridge::DistributedTree tree =
    vtkEMSTEngineBridge::ComputeDistributedTree(request, controller);
  this->SetProgressText(nullptr);
  if (EmptyUnlessOk(this, output, tree.Outcome, messages)) // the same outcome on every process
  {
    return 1;
  }

  // The ghost copies: each owner sends the points asked of it, with their point arrays, in the
  // order asked (the tree's ghost order: by owner, then global id).
  std::vector<std::vector<unsigned char>> asks(static_cast<std::size_t>(processes)), asked;
  for (std::size_t g = 0; g < tree.GhostOwners.size(); ++g)
  {
    const vtkIdType id = tree.GhostOwnerPoints[g];
    const auto* bytes = reinterpret_cast<const unsigned char*>(&id);
    asks[tree.GhostOwners[g]].insert(asks[tree.GhostOwners[g]].end(), bytes, bytes + sizeof id);
  }
  bool ok = vtkEMSTParallel::AllToAll(controller, asks, asked);
  std::vector<vtkSmartPointer<vtkDataObject>> copies(static_cast<std::size_t>(processes)), received;
  for (int p = 0; p < processes; ++p)
  {
    const std::vector<unsigned char>& wanted = asked[p];
    if (wanted.empty())
    {
      continue;
    }
    auto ids = vtkSmartPointer<vtkIdList>::New();
    ids->SetNumberOfIds(static_cast<vtkIdType>(wanted.size() / sizeof(vtkIdType)));
    std::memcpy(ids->GetPointer(0), wanted.data(), wanted.size());
    auto copy = vtkSmartPointer<vtkPolyData>::New();
    auto points = vtkSmartPointer<vtkPoints>::New();
    points->SetDataType(own->GetPoints()->GetDataType());
    own->GetPoints()->GetPoints(ids, points);
    copy->SetPoints(points);
    copy->GetPointData()->CopyAllocate(own->GetPointData(), ids->GetNumberOfIds());
    for (vtkIdType k = 0; k < ids->GetNumberOfIds(); ++k)
    {
      copy->GetPointData()->CopyData(own->GetPointData(), ids->GetId(k), k);
    }
    copies[p] = copy;
  }
  ok = vtkEMSTParallel::AllToAll(controller, copies, received) && ok;
  std::vector<vtkSmartPointer<vtkPointSet>> pieces{ own };
  vtkIdType ghostsReceived = 0;
  for (int p = 0; p < processes; ++p)
  {
    auto* piece = vtkPointSet::SafeDownCast(received[p]);
    if (p != rank && piece != nullptr && piece->GetNumberOfPoints() > 0)
    {
      pieces.emplace_back(piece);
      ghostsReceived += piece->GetNumberOfPoints();
    }
  }
  if (!ok || ghostsReceived != static_cast<vtkIdType>(tree.GhostOwners.size()))
  {
    const std::string error = "Fetching the remote ends of the edges from their processes failed.";
    vtkErrorMacro(<< error);
    messages.push_back("error: " + error);
    MakeEmpty(output, "none (error)", messages);
    return 1;
  }
  vtkEMSTGather::Append(pieces, output, false);

  // Which process holds each point, its global id, and the ghost copies' flag.
  const vtkIdType ownPoints = tree.OwnPoints;
  const vtkIdType allPoints = output->GetNumberOfPoints();
  auto globalIds = vtkEMSTArrays::Named<vtkIdTypeArray>("EMSTGlobalId");
  auto owners = vtkEMSTArrays::Named<vtkIntArray>("EMSTOwnerRank");
  globalIds->SetNumberOfValues(allPoints);
  owners->SetNumberOfValues(allPoints);
  auto ghostFlags = vtkSmartPointer<vtkUnsignedCharArray>::New();
  ghostFlags->SetName(vtkDataSetAttributes::GhostArrayName());
  ghostFlags->SetNumberOfValues(allPoints);
  vtkUnsignedCharArray* ownFlags = vtkEMSTEngineBridge::PointGhosts(own);
  for (vtkIdType k = 0; k < allPoints; ++k)
  {
    const bool ghost = k >= ownPoints;
    const std::size_t g = static_cast<std::size_t>(k - ownPoints);
    globalIds->SetValue(k, ghost ? tree.GhostGlobalIds[g] : tree.GlobalIds->GetValue(k));
    owners->SetValue(k, ghost ? tree.GhostOwners[g] : rank);
    ghostFlags->SetValue(k,
      ghost ? static_cast<unsigned char>(vtkDataSetAttributes::DUPLICATEPOINT)
            : (ownFlags ? ownFlags->GetValue(k) : 0));
  }
  output->GetPointData()->AddArray(globalIds);
  output->GetPointData()->AddArray(owners);
  output->GetPointData()->AddArray(ghostFlags);

  SetTree(this, output, tree, tree.InputPath, messages);
  vtkFieldData* fd = output->GetFieldData();
  vtkEMSTArrays::AddValue<vtkIdTypeArray>(fd, "EMSTExchangedPoints", tree.ExchangedPoints);
  vtkEMSTArrays::AddValue<vtkStringArray>(fd, "EMSTParallelMode", std::string("Distributed"));
  vtkEMSTArrays::AddValue<vtkIntArray>(fd, "EMSTDistributedRounds", tree.Rounds);
  return 1;
}

//------------------------------------------------------------------------------
void vtkEMSTEuclideanMinimumSpanningTree::PrintSelf(ostream& os, vtkIndent indent)
{
  this->Superclass::PrintSelf(os, indent);
  os << indent
     << "Backend: " << (this->Backend == CUDA ? "CUDA" : (this->Backend == CPU ? "CPU" : "Auto"))
     << "\n";
  vtkEMSTPeriodicBox::PrintProperties(
    os, indent, this->PeriodicBoxMode, this->BoxOrigin, this->BoxSize);
  os << indent << "ParallelMode: " << (this->ParallelMode == GATHER ? "Gather" : "Distributed")
     << "\n";
  os << indent << "Controller: " << this->Controller << "\n";
}
