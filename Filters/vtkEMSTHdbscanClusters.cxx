// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
#include "vtkEMSTHdbscanClusters.h"

#include "vtkEMSTAbort.h"
#include "vtkEMSTArrays.h"
#include "vtkEMSTClusterTable.h"
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
#include "vtkPointData.h"
#include "vtkPoints.h"
#include "vtkPolyData.h"
#include "vtkSmartPointer.h"
#include "vtkStringArray.h"
#include "vtkTable.h"
#include "vtkUnsignedCharArray.h"

#include <string>
#include <vector>

vtkStandardNewMacro(vtkEMSTHdbscanClusters);
vtkCxxSetObjectMacro(vtkEMSTHdbscanClusters, Controller, vtkMultiProcessController);

/// The engine's last tree, and what it was made from.
struct vtkEMSTHdbscanClusters::Cache
{
  std::unique_ptr<vtkEMSTEngineBridge::HdbscanTree> Tree;
  vtkEMSTEngineBridge::Result Run; ///< the tree's lines and the run's description
  vtkDataObject* Input = nullptr;  // identity only, never dereferenced
  vtkMTimeType InputTime = 0;
  vtkIdType MinimumSamples = 0;
  int Backend = -1;
  vtkEMSTPeriodicBox::Box Box;
};

namespace
{

bool SameBox(const vtkEMSTPeriodicBox::Box& a, const vtkEMSTPeriodicBox::Box& b)
{
  for (int k = 0; k < 3; ++k)
  {
    if (a.Origin[k] != b.Origin[k] || a.Size[k] != b.Size[k])
    {
      return false;
    }
  }
  return true;
}

}

namespace
{

using vtkEMSTArrays::AddValue;
using vtkEMSTArrays::Named;

/// Field data that says what ran; present on every output 0, empty or not.
struct RunFields
{
  vtkIdType Clusters = 0;
  vtkIdType Noise = 0;
  double TotalLength = 0.0;
  std::string Backend;
  int BackendId = 0;
  double ComputeMilliseconds = 0.0;
  double ExtractMilliseconds = 0.0;
};

void AddFieldData(
  vtkPolyData* output, const RunFields& run, const std::vector<std::string>& messages)
{
  vtkFieldData* fd = output->GetFieldData();
  AddValue<vtkIdTypeArray>(fd, "NumberOfClusters", run.Clusters);
  AddValue<vtkIdTypeArray>(fd, "NoisePoints", run.Noise);
  AddValue<vtkDoubleArray>(fd, "TotalLength", run.TotalLength);
  AddValue<vtkStringArray>(fd, "EMSTBackend", run.Backend);
  AddValue<vtkIntArray>(fd, "EMSTBackendId", run.BackendId);
  AddValue<vtkDoubleArray>(fd, "EMSTComputeMilliseconds", run.ComputeMilliseconds);
  AddValue<vtkDoubleArray>(fd, "HDBSCANExtractMilliseconds", run.ExtractMilliseconds);
  vtkEMSTArrays::AddStrings(fd, "EMSTMessages", messages);
}

/// The condensed tree's columns, empty or not.
void FillCondensedTree(vtkTable* table, vtkIdTypeArray* parent, vtkIdTypeArray* child,
  vtkDoubleArray* lambda, vtkIdTypeArray* size)
{
  for (vtkAbstractArray* column : std::vector<vtkAbstractArray*>{ parent, child, lambda, size })
  {
    table->AddColumn(column);
  }
}

/// Outputs with no points, and the (empty) arrays and columns a downstream user looks for.
/// (CrossesBoundary too when a periodic box was asked for.)
void MakeEmpty(vtkPolyData* output, vtkTable* clusters, vtkTable* condensed,
  const std::string& backend, const std::vector<std::string>& messages, bool periodic = false)
{
  output->Initialize();
  output->SetPoints(vtkSmartPointer<vtkPoints>::New());
  output->SetLines(vtkSmartPointer<vtkCellArray>::New());
  for (const char* name : { "Probability", "OutlierScore", "CoreDistance" })
  {
    output->GetPointData()->AddArray(Named<vtkDoubleArray>(name));
  }
  output->GetPointData()->AddArray(Named<vtkIntArray>("ClusterId"));
  output->GetCellData()->AddArray(Named<vtkDoubleArray>("MutualReachability"));
  if (periodic)
  {
    output->GetCellData()->AddArray(Named<vtkUnsignedCharArray>("CrossesBoundary"));
  }
  RunFields run;
  run.Backend = backend;
  AddFieldData(output, run, messages);
  vtkEMSTClusterTable::AddGeometry(clusters, output, nullptr, {}, {});
  for (const char* name : { "Stability", "BirthLambda", "DeathLambda" })
  {
    clusters->AddColumn(Named<vtkDoubleArray>(name));
  }
  clusters->AddColumn(Named<vtkIdTypeArray>("CondensedNode"));
  FillCondensedTree(condensed, Named<vtkIdTypeArray>("Parent"), Named<vtkIdTypeArray>("Child"),
    Named<vtkDoubleArray>("Lambda"), Named<vtkIdTypeArray>("Size"));
}

/// The cluster table (output 1): the common geometry (in a periodic box, each cluster unwrapped
/// along the tree's lines), then HDBSCAN*'s columns.
void FillClusterTable(vtkTable* table, vtkPolyData* points,
  const vtkEMSTEngineBridge::HdbscanTree::Clusters& c, const vtkEMSTPeriodicBox::Box& box)
{
  vtkEMSTClusterTable::AddGeometry(
    table, points, c.ClusterId->GetPointer(0), c.Sizes, c.FirstPoint, box, points->GetLines());
  const vtkIdType clusters = static_cast<vtkIdType>(c.Sizes.size());
  const std::vector<double>* values[] = { &c.Stability, &c.BirthLambda, &c.DeathLambda };
  const char* names[] = { "Stability", "BirthLambda", "DeathLambda" };
  for (int k = 0; k < 3; ++k)
  {
    auto column = Named<vtkDoubleArray>(names[k]);
    column->SetNumberOfValues(clusters);
    for (vtkIdType r = 0; r < clusters; ++r)
    {
      column->SetValue(r, (*values[k])[static_cast<std::size_t>(r)]);
    }
    table->AddColumn(column);
  }
  auto node = Named<vtkIdTypeArray>("CondensedNode");
  node->SetNumberOfValues(clusters);
  for (vtkIdType r = 0; r < clusters; ++r)
  {
    node->SetValue(r, c.Node[static_cast<std::size_t>(r)]);
  }
  table->AddColumn(node);
}

} // namespace

//------------------------------------------------------------------------------
vtkEMSTHdbscanClusters::vtkEMSTHdbscanClusters()
  : TreeCache(new Cache)
{
  this->SetNumberOfOutputPorts(3);
  this->SetController(vtkMultiProcessController::GetGlobalController());
}

//------------------------------------------------------------------------------
vtkEMSTHdbscanClusters::~vtkEMSTHdbscanClusters()
{
  this->SetController(nullptr);
}

//------------------------------------------------------------------------------
int vtkEMSTHdbscanClusters::FillInputPortInformation(int, vtkInformation* info)
{
  // Composite data as a whole (one clustering of all leaves), as the tree filter takes it.
  info->Set(vtkAlgorithm::INPUT_REQUIRED_DATA_TYPE(), "vtkPointSet");
  info->Append(vtkAlgorithm::INPUT_REQUIRED_DATA_TYPE(), "vtkCompositeDataSet");
  return 1;
}

//------------------------------------------------------------------------------
int vtkEMSTHdbscanClusters::FillOutputPortInformation(int port, vtkInformation* info)
{
  info->Set(vtkDataObject::DATA_TYPE_NAME(), port == 0 ? "vtkPolyData" : "vtkTable");
  return 1;
}

//------------------------------------------------------------------------------
int vtkEMSTHdbscanClusters::RequestData(
  vtkInformation*, vtkInformationVector** inputVector, vtkInformationVector* outputVector)
{
  vtkEMSTAbort::ForgetEarlierCancel(this);
  vtkDataObject* input = vtkDataObject::GetData(inputVector[0], 0);
  vtkPolyData* output = vtkPolyData::GetData(outputVector, 0);
  vtkTable* clusters = vtkTable::GetData(outputVector, 1);
  vtkTable* condensed = vtkTable::GetData(outputVector, 2);
  if (output == nullptr || clusters == nullptr || condensed == nullptr)
  {
    vtkErrorMacro("Missing output.");
    return 0;
  }
  // The tables of an earlier run must not outlive it.
  clusters->Initialize();
  condensed->Initialize();
  std::vector<std::string> messages;
  // The periodic box, checked on the process that clusters (process 0 under MPI) after the
  // gather, which every process must join.
  const bool boxAsked = this->PeriodicBoxMode != BOX_OFF;
  vtkEMSTPeriodicBox::Box box;
  std::string boxError;
  const bool boxValid = vtkEMSTPeriodicBox::FromProperties(
    this->PeriodicBoxMode, input, this->BoxOrigin, this->BoxSize, box, boxError);
  auto fail = [&](const std::string& backend, const std::string& error)
  {
    vtkErrorMacro(<< error);
    messages.push_back("error: " + error);
    MakeEmpty(output, clusters, condensed, backend, messages, boxAsked);
    return 1;
  };

  vtkEMSTPointInput::Points points = vtkEMSTPointInput::Collect(input, this->Controller, messages);
  for (const std::string& message : messages)
  {
    vtkWarningMacro(<< message);
  }
  if (points.Failed)
  {
    return fail("none (error)", "Gathering the points on process 0 failed.");
  }
  if (points.SentAway)
  {
    MakeEmpty(output, clusters, condensed, "none (points sent to process 0)", {}, boxAsked);
    return 1;
  }
  if (!boxValid)
  {
    return fail("none (error)", "Periodic box: " + boxError + ".");
  }
  if (boxAsked && !box.IsPeriodic())
  {
    messages.emplace_back("the periodic box has no periodic axis (every size is 0): the "
                          "clusters are the ordinary ones");
  }
  std::string envWarning;
  const int backend = vtkEMSTEngineBridge::ResolveBackend(this->Backend, envWarning);
  if (!envWarning.empty())
  {
    vtkWarningMacro(<< envWarning);
    messages.push_back(envWarning);
  }
  if (points.Leaves.empty())
  {
    MakeEmpty(output, clusters, condensed, "none (no points)", messages, boxAsked);
    return 1;
  }

  // The tree: kept while the input, k, the backend and the box stay (a gathered input is always
  // new).
  Cache& cache = *this->TreeCache;
  const bool fresh = cache.Tree != nullptr && !points.Gathered && cache.Input == input &&
    cache.InputTime == input->GetMTime() && cache.MinimumSamples == this->MinimumSamples &&
    cache.Backend == backend && SameBox(cache.Box, box);
  if (!fresh)
  {
    cache.Tree.reset();
    cache.Run = vtkEMSTEngineBridge::Result();
    vtkEMSTEngineBridge::Request request = vtkEMSTPointInput::MakeRequest(points, backend, this);
    request.Box = box;
    cache.Tree = vtkEMSTEngineBridge::HdbscanTree::Create(request, this->MinimumSamples, cache.Run);
    this->SetProgressText(nullptr);
    const vtkEMSTEngineBridge::Status outcome = cache.Run.Outcome;
    if (outcome.Code == vtkEMSTEngineBridge::Status::Cancelled)
    {
      vtkWarningMacro("Cancelled: the output is empty.");
      messages.emplace_back("cancelled");
      MakeEmpty(output, clusters, condensed, "none (cancelled)", messages, boxAsked);
      return 1;
    }
    if (cache.Tree == nullptr)
    {
      return fail("none (error)", outcome.ErrorMessage);
    }
    cache.Input = input;
    cache.InputTime = input->GetMTime();
    cache.MinimumSamples = this->MinimumSamples;
    cache.Backend = backend;
    cache.Box = box;
    ++this->TreeRuns;
    for (const std::string& message : cache.Run.Messages)
    {
      vtkWarningMacro(<< message); // once per tree, not at every extraction
    }
  }
  const vtkEMSTEngineBridge::Result& run = cache.Run;
  messages.insert(messages.end(), run.Messages.begin(), run.Messages.end());
  if (run.GhostPoints > 0)
  {
    messages.push_back(
      std::to_string(run.GhostPoints) + " ghost points (vtkGhostType) left out of the tree.");
  }

  vtkEMSTEngineBridge::HdbscanParameters parameters;
  parameters.MinimumClusterSize = this->MinimumClusterSize;
  parameters.Selection = this->ClusterSelectionMethod;
  parameters.Epsilon = this->ClusterSelectionEpsilon;
  parameters.AllowSingleCluster = this->AllowSingleCluster;
  this->SetProgressText("Extracting the clusters");
  this->UpdateProgress(0.97);
  const vtkEMSTEngineBridge::HdbscanTree::Clusters c = cache.Tree->Extract(parameters);
  this->SetProgressText(nullptr);
  if (c.Outcome.Code != vtkEMSTEngineBridge::Status::Ok)
  {
    return fail(run.BackendDescription, c.Outcome.ErrorMessage);
  }

  vtkEMSTGather::Append(points.Leaves, output, false);
  vtkPointData* pd = output->GetPointData();
  pd->AddArray(c.ClusterId);
  pd->AddArray(c.Probability);
  pd->AddArray(c.OutlierScore);
  pd->AddArray(cache.Tree->CoreDistance());
  pd->SetActiveScalars("ClusterId");
  output->SetLines(run.Lines);
  output->GetCellData()->AddArray(run.EdgeLength);
  vtkEMSTPeriodicBox::MarkTree(output, box, boxAsked);
  RunFields fields;
  fields.Clusters = static_cast<vtkIdType>(c.Sizes.size());
  fields.Noise = c.NoisePoints;
  fields.TotalLength = run.TotalLength;
  fields.Backend = run.BackendDescription;
  fields.BackendId = run.BackendId;
  fields.ComputeMilliseconds = run.ComputeMilliseconds;
  fields.ExtractMilliseconds = c.Milliseconds;
  AddFieldData(output, fields, messages);
  FillClusterTable(clusters, output, c, box);
  FillCondensedTree(condensed, c.Parent, c.Child, c.Lambda, c.Size);
  this->UpdateProgress(1.0);
  return 1;
}

//------------------------------------------------------------------------------
void vtkEMSTHdbscanClusters::PrintSelf(ostream& os, vtkIndent indent)
{
  this->Superclass::PrintSelf(os, indent);
  os << indent << "MinimumClusterSize: " << this->MinimumClusterSize << "\n";
  os << indent << "MinimumSamples: " << this->MinimumSamples << "\n";
  os << indent << "ClusterSelectionMethod: "
     << (this->ClusterSelectionMethod == LEAF ? "Leaf" : "Excess of mass") << "\n";
  os << indent << "ClusterSelectionEpsilon: " << this->ClusterSelectionEpsilon << "\n";
  os << indent << "AllowSingleCluster: " << this->AllowSingleCluster << "\n";
  os << indent
     << "Backend: " << (this->Backend == CUDA ? "CUDA" : (this->Backend == CPU ? "CPU" : "Auto"))
     << "\n";
  vtkEMSTPeriodicBox::PrintProperties(
    os, indent, this->PeriodicBoxMode, this->BoxOrigin, this->BoxSize);
  os << indent << "TreeRuns: " << this->TreeRuns << "\n";
  os << indent << "Controller: " << this->Controller << "\n";
}
