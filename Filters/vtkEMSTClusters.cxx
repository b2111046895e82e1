// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
#include "vtkEMSTClusters.h"

#include "vtkEMSTAbort.h"
#include "vtkEMSTArrays.h"
#include "vtkEMSTClusterTable.h"
#include "vtkEMSTEngineBridge.h"
#include "vtkEMSTGather.h"
#include "vtkEMSTPeriodicBox.h"

#include "vtkCellArray.h"
#include "vtkCellData.h"
#include "vtkDataArray.h"
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

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

vtkStandardNewMacro(vtkEMSTClusters);
vtkCxxSetObjectMacro(vtkEMSTClusters, Controller, vtkMultiProcessController);

/// The engine's copy of the last input tree, and what it was made from.
struct vtkEMSTClusters::Cache
{
  std::unique_ptr<vtkEMSTEngineBridge::ClusterTree> Tree;
  vtkPolyData* Input = nullptr; // identity only, never dereferenced
  vtkMTimeType InputTime = 0;
  vtkDataArray* Lengths = nullptr;
  vtkMTimeType LengthsTime = 0;
  int Backend = -1;
  /// A distributed tree (the tree filter's Distributed output), cut where it is.
  std::unique_ptr<vtkEMSTEngineBridge::DistributedClusterTree> Distributed;

  /// Whether the engine's tree was made from this input, lengths and backend.
  bool Holds(vtkPolyData* input, vtkDataArray* lengths, int backend) const
  {
    return this->Input == input && this->InputTime == input->GetMTime() &&
      this->Lengths == lengths && this->LengthsTime == (lengths ? lengths->GetMTime() : 0) &&
      this->Backend == backend;
  }
  void Remember(vtkPolyData* input, vtkDataArray* lengths, int backend)
  {
    this->Input = input;
    this->InputTime = input->GetMTime();
    this->Lengths = lengths;
    this->LengthsTime = lengths ? lengths->GetMTime() : 0;
    this->Backend = backend;
  }
};

namespace
{

using vtkEMSTArrays::AddValue;

using vtkEMSTArrays::Named;

/// Field data that says what the cut did; present on every output 0, empty or not.
void AddFieldData(vtkPolyData* output, double threshold, vtkIdType clusters, vtkIdType noise,
  const std::string& backend, double milliseconds, const std::vector<std::string>& messages)
{
  vtkFieldData* fd = output->GetFieldData();
  AddValue<vtkDoubleArray>(fd, "ClusterThreshold", threshold);
  AddValue<vtkIdTypeArray>(fd, "NumberOfClusters", clusters);
  AddValue<vtkIdTypeArray>(fd, "NoisePoints", noise);
  AddValue<vtkStringArray>(fd, "ClusterBackend", backend);
  AddValue<vtkDoubleArray>(fd, "ClusterCutMilliseconds", milliseconds);
  vtkEMSTArrays::AddStrings(fd, "ClusterMessages", messages);
}

/// Output 0 from a cut: the input's points and point data, the cut's per-point arrays (ClusterId
/// active) and its kept edges with their lengths.
void FillOutput(
  vtkPolyData* output, vtkPolyData* input, const vtkEMSTEngineBridge::ClusterTree::Cut& cut)
{
  output->Initialize();
  output->SetPoints(input->GetPoints());
  output->GetPointData()->ShallowCopy(input->GetPointData());
  output->GetPointData()->AddArray(cut.ClusterId);
  output->GetPointData()->AddArray(cut.ClusterSize);
  output->GetPointData()->SetActiveScalars("ClusterId");
  output->SetLines(cut.Lines);
  output->GetCellData()->AddArray(cut.EdgeLength);
}

/// Output 0 with no points, and the (empty) arrays a downstream user looks for.
void MakeEmpty(vtkPolyData* output, const std::string& backend,
  const std::vector<std::string>& messages, double threshold = 0.0)
{
  output->Initialize();
  output->SetPoints(vtkSmartPointer<vtkPoints>::New());
  output->SetLines(vtkSmartPointer<vtkCellArray>::New());
  output->GetPointData()->AddArray(Named<vtkIntArray>("ClusterId"));
  output->GetPointData()->AddArray(Named<vtkIdTypeArray>("ClusterSize"));
  output->GetCellData()->AddArray(Named<vtkDoubleArray>("EdgeLength"));
  AddFieldData(output, threshold, 0, 0, backend, 0.0, messages);
}

/// Reports `error` (vtkErrorMacro and ClusterMessages) with an empty output; RequestData's return.
int Failed(vtkAlgorithm* filter, vtkPolyData* output, const std::string& error,
  std::vector<std::string>& messages)
{
  vtkErrorWithObjectMacro(filter, << error);
  messages.push_back("error: " + error);
  MakeEmpty(output, "none (error)", messages);
  return 1;
}

/// Adds the LongestEdge column (one value per cluster) where the table has it: before FirstPoint.
void AddLongestEdge(vtkTable* table, const std::vector<double>& longestEdge)
{
  auto longest = Named<vtkDoubleArray>("LongestEdge");
  longest->SetNumberOfTuples(static_cast<vtkIdType>(longestEdge.size()));
  std::copy(longestEdge.begin(), longestEdge.end(), longest->GetPointer(0));
  vtkSmartPointer<vtkAbstractArray> first = table->GetColumnByName("FirstPoint");
  table->RemoveColumnByName("FirstPoint");
  table->AddColumn(longest);
  table->AddColumn(first);
}

/// The table of clusters (output 1): sizes and first points from the cut, the geometry from one
/// pass over the points (vtkEMSTClusterTable; in a periodic box each cluster unwrapped around
/// itself along the kept edges), the longest edges from one over the kept edges.
void FillClusterTable(vtkTable* table, vtkPolyData* points,
  const vtkEMSTEngineBridge::ClusterTree::Cut& cut, const vtkEMSTPeriodicBox::Box& box)
{
  const int* label = cut.ClusterId->GetPointer(0);
  vtkEMSTClusterTable::AddGeometry(table, points, label, cut.Sizes, cut.FirstPoint, box, cut.Lines);
  std::vector<double> edge(cut.Sizes.size(), 0.0);
  const vtkIdType kept = cut.Lines->GetNumberOfCells();
  vtkDataArray* ends = cut.Lines->GetConnectivityArray();
  for (vtkIdType e = 0; e < kept; ++e)
  {
    const int c = label[static_cast<vtkIdType>(ends->GetComponent(2 * e, 0))];
    if (c >= 0)
    {
      edge[c] = std::max(edge[c], cut.EdgeLength->GetValue(e));
    }
  }
  AddLongestEdge(table, edge);
}

/// The ends of the histogram's bins over [0, top]: (b + 1) * top / bins, the last exactly top.
std::vector<double> BinEnds(double top, int bins)
{
  std::vector<double> ends(static_cast<std::size_t>(bins));
  const double width = top / bins;
  for (int b = 0; b < bins; ++b)
  {
    ends[static_cast<std::size_t>(b)] = b + 1 == bins ? top : (b + 1) * width;
  }
  return ends;
}

/// The edge-length histogram (output 2): `atMost[b]` edges of length <= the end of bin b (BinEnds),
/// of a tree over `points` points whose longest edge is `top`.
void FillHistogram(
  vtkTable* table, int bins, double top, vtkIdType points, const std::vector<vtkIdType>& atMost)
{
  auto centre = Named<vtkDoubleArray>("EdgeLength");
  auto start = Named<vtkDoubleArray>("BinStart");
  auto end = Named<vtkDoubleArray>("BinEnd");
  auto count = Named<vtkIdTypeArray>("EdgeCount");
  auto groups = Named<vtkIdTypeArray>("ClustersAtBinEnd");
  for (vtkDataArray* array : std::vector<vtkDataArray*>{ centre, start, end, count, groups })
  {
    array->SetNumberOfTuples(bins);
  }
  const double width = top / bins;
  const std::vector<double> ends = BinEnds(top, bins);
  vtkIdType below = 0; // edges of length <= the previous bin's end
  for (int b = 0; b < bins; ++b)
  {
    const double lo = b * width;
    const double hi = ends[static_cast<std::size_t>(b)];
    const vtkIdType upTo = atMost[static_cast<std::size_t>(b)];
    centre->SetValue(b, 0.5 * (lo + hi));
    start->SetValue(b, lo);
    end->SetValue(b, hi);
    count->SetValue(b, upTo - below);
    groups->SetValue(b, points - upTo);
    below = upTo;
  }
  for (vtkAbstractArray* array :
    std::vector<vtkAbstractArray*>{ centre, start, end, count, groups })
  {
    table->AddColumn(array);
  }
}

/// A number for a message, in full (%.17g reads back as the same double).
std::string Text(double value)
{
  char text[32];
  std::snprintf(text, sizeof(text), "%.17g", value);
  return text;
}

/// b times the mean inter-particle spacing (V / n)^(1/d) of the finite points. In a periodic box
/// V counts the period of each periodic axis instead of the points' extent there.
double LinkingThreshold(vtkPolyData* input, double b, const vtkEMSTPeriodicBox::Box& box)
{
  const vtkIdType n = input->GetNumberOfPoints();
  double lo[3] = { VTK_DOUBLE_MAX, VTK_DOUBLE_MAX, VTK_DOUBLE_MAX };
  double hi[3] = { -VTK_DOUBLE_MAX, -VTK_DOUBLE_MAX, -VTK_DOUBLE_MAX };
  vtkIdType finite = 0;
  double p[3];
  for (vtkIdType k = 0; k < n; ++k)
  {
    input->GetPoint(k, p);
    if (!std::isfinite(p[0]) || !std::isfinite(p[1]) || !std::isfinite(p[2]))
    {
      continue;
    }
    ++finite;
    for (int a = 0; a < 3; ++a)
    {
      lo[a] = std::min(lo[a], p[a]);
      hi[a] = std::max(hi[a], p[a]);
    }
  }
  // V = mantissa * 2^exponent, the extents' mantissas and exponents multiplied apart, so that no
  // range of coordinates overflows or underflows the volume (extents of 1e200 or 1e-200 in 3D).
  double mantissa = 1.0;
  int exponent = 0;
  int dimensions = 0;
  for (int a = 0; a < 3 && finite > 0; ++a)
  {
    const double extent = box.Size[a] > 0.0 ? box.Size[a] : hi[a] - lo[a];
    if (extent > 0.0)
    {
      int e = 0;
      mantissa *= std::frexp(extent, &e);
      exponent += e;
      ++dimensions;
    }
  }
  if (dimensions == 0)
  {
    return 0.0; // one point, or all identical: every spacing is 0
  }
  // (V / n)^(1/d) = (mantissa 2^r / n)^(1/d) 2^q with exponent = q d + r, 0 <= r < d.
  const int q = static_cast<int>(std::floor(static_cast<double>(exponent) / dimensions));
  const int r = exponent - q * dimensions;
  return b *
    std::ldexp(
      std::pow(std::ldexp(mantissa, r) / static_cast<double>(finite), 1.0 / dimensions), q);
}

// The properties as the cut uses them, on one process's tree or a distributed one: a value
// outside its range is clamped or replaced, and the message says so (a user who typed it must
// learn what was done instead). n: the points in the tree.

double UsableLinkingLength(double b, std::vector<std::string>& messages)
{
  if (std::isnan(b))
  {
    messages.emplace_back("LinkingLength is NaN: ignored, the default b = 0.2 is used");
    return 0.2;
  }
  if (b < 0.0)
  {
    messages.push_back("LinkingLength " + Text(b) + " is negative: b = 0 is used");
    return 0.0;
  }
  return b;
}

/// A count property (`name`) of at least 1; a note when it exceeds the n points (`beyond`: what
/// the cut then gives).
vtkIdType UsableCount(const char* name, vtkIdType value, vtkIdType n, const char* beyond,
  std::vector<std::string>& messages)
{
  if (value < 1)
  {
    messages.push_back(std::string(name) + " " + std::to_string(value) + " is below 1: 1 is used");
    return 1;
  }
  if (value > n && n > 0)
  {
    messages.push_back(std::string(name) + " " + std::to_string(value) + " exceeds the " +
      std::to_string(n) + " points: " + beyond);
  }
  return value;
}

vtkIdType UsableClusterCount(vtkIdType k, vtkIdType n, std::vector<std::string>& messages)
{
  return UsableCount("NumberOfClusters", k, n, "every point is a group of its own", messages);
}

/// `shortest`, `longest`: the tree's extreme edge lengths (0 without edges).
double UsableThreshold(
  double threshold, double shortest, double longest, std::vector<std::string>& messages)
{
  if (threshold >= 0.0)
  {
    return threshold;
  }
  // Negative (the default: not set) or NaN: the middle of the edge lengths, where ParaView's
  // slider starts: what the user sees before choosing, and the same number (its domain's mid of
  // the EdgeLength range).
  const double middle = 0.5 * (shortest + longest);
  messages.push_back(
    (std::isnan(threshold) ? std::string("Threshold is NaN: ignored")
                           : "Threshold " + Text(threshold) + " is negative: not set") +
    "; the cut is at the middle of the edge lengths, " + Text(middle));
  return middle;
}

vtkIdType UsableMinimumSize(vtkIdType m, vtkIdType n, std::vector<std::string>& messages)
{
  return UsableCount("MinimumClusterSize", m, n, "every point is noise", messages);
}

} // namespace

//------------------------------------------------------------------------------
vtkEMSTClusters::vtkEMSTClusters()
  : TreeCache(new Cache)
{
  this->SetNumberOfOutputPorts(3);
  this->SetController(vtkMultiProcessController::GetGlobalController());
  // Default edge lengths: the active cell scalars (EdgeLength of the tree filter's output).
  this->SetInputArrayToProcess(
    0, 0, 0, vtkDataObject::FIELD_ASSOCIATION_CELLS, vtkDataSetAttributes::SCALARS);
}

//------------------------------------------------------------------------------
vtkEMSTClusters::~vtkEMSTClusters()
{
  this->SetController(nullptr);
}

//------------------------------------------------------------------------------
int vtkEMSTClusters::FillInputPortInformation(int, vtkInformation* info)
{
  info->Set(vtkAlgorithm::INPUT_REQUIRED_DATA_TYPE(), "vtkPolyData");
  return 1;
}

//------------------------------------------------------------------------------
int vtkEMSTClusters::FillOutputPortInformation(int port, vtkInformation* info)
{
  info->Set(vtkDataObject::DATA_TYPE_NAME(), port == 0 ? "vtkPolyData" : "vtkTable");
  return 1;
}

//------------------------------------------------------------------------------
int vtkEMSTClusters::RequestData(
  vtkInformation*, vtkInformationVector** inputVector, vtkInformationVector* outputVector)
{
  vtkEMSTAbort::ForgetEarlierCancel(this);
  vtkPolyData* local = vtkPolyData::GetData(inputVector[0], 0);
  vtkPolyData* output = vtkPolyData::GetData(outputVector, 0);
  vtkTable* table = vtkTable::GetData(outputVector, 1);
  vtkTable* histogram = vtkTable::GetData(outputVector, 2);
  if (local == nullptr || output == nullptr || table == nullptr || histogram == nullptr)
  {
    vtkErrorMacro("Missing input or output.");
    return 0;
  }
  // The tables of an earlier run must not outlive it (an empty output 0 has empty tables).
  table->Initialize();
  histogram->Initialize();
  std::vector<std::string> messages;

  // Where the cut runs: an explicit property; else EMST_BACKEND; else where the tree ran.
  std::string envWarning;
  int backend = vtkEMSTEngineBridge::ResolveBackend(this->Backend, envWarning);
  if (!envWarning.empty())
  {
    vtkWarningMacro(<< envWarning);
    messages.push_back(envWarning);
  }
  if (backend == AUTO)
  {
    // A tree from the GPU keeps AUTO (the GPU, where it is usable: a tree read back on a machine
    // without one is still cut); a tree from the CPU is cut on the CPU; without the field (no
    // engine ran, another source) AUTO stays, as in the tree filter.
    vtkDataArray* origin = local->GetFieldData()->GetArray("EMSTBackendId");
    if (origin != nullptr && origin->GetNumberOfTuples() > 0 &&
      static_cast<int>(origin->GetTuple1(0)) == CPU)
    {
      backend = CPU;
    }
  }

  // The periodic box of the tree (the tree filter's field data BoxSize, BoxOrigin), if any.
  vtkEMSTPeriodicBox::Box box;
  if (local->GetFieldData()->GetArray(vtkEMSTPeriodicBox::SizeName) != nullptr)
  {
    std::string boxError;
    if (!vtkEMSTPeriodicBox::Read(local->GetFieldData(), box, boxError))
    {
      const std::string error = "Periodic box of the input: " + boxError + ".";
      return Failed(this, output, error, messages);
    }
  }

  // The edge lengths: the selected cell array (the tree's EdgeLength), else computed.
  vtkDataArray* lengths = this->GetInputArrayToProcess(0, inputVector);

  // A tree spread over the processes by the tree filter's Distributed mode is cut where it is,
  // when every process that holds points holds such a piece (decided together).
  if (vtkEMSTEngineBridge::IsDistributedTree(this->Controller, local))
  {
    return this->RequestDistributed(local, lengths, output, table, histogram, messages);
  }
  bool gathered = false;
  vtkSmartPointer<vtkPolyData> input =
    vtkEMSTGather::OnOneProcess(this->Controller, local, lengths, gathered);
  if (input == nullptr)
  {
    MakeEmpty(output, "none (input sent to process 0)", messages);
    return 1;
  }
  if (gathered)
  {
    messages.emplace_back("the tree was spread over several processes: gathered on process 0");
  }
  if (input->GetPoints() == nullptr) // an empty data set may have no vtkPoints at all
  {
    MakeEmpty(output, "none (no points)", messages,
      this->CutMode == THRESHOLD && this->Threshold >= 0.0 ? this->Threshold : 0.0);
    return 1;
  }

  if (input->GetNumberOfLines() > 0 && lengths == nullptr)
  {
    messages.emplace_back("no edge length array: lengths computed from the points");
  }

  this->UpdateProgress(0.1);
  Cache& cache = *this->TreeCache;
  const bool fresh = cache.Tree != nullptr && !gathered && cache.Holds(input, lengths, backend);
  if (!fresh)
  {
    cache.Tree.reset();
    vtkEMSTEngineBridge::Status status;
    this->SetProgressText("Handing the tree to the engine");
    cache.Tree = vtkEMSTEngineBridge::ClusterTree::Create(input, lengths, backend, box, status);
    this->SetProgressText(nullptr);
    if (cache.Tree == nullptr)
    {
      return Failed(this, output, status.ErrorMessage, messages);
    }
    cache.Remember(input, lengths, backend);
    ++this->TreeUploads;
    for (const std::string& message : cache.Tree->Messages())
    {
      vtkWarningMacro(<< message); // once per tree, not at every new threshold
    }
  }
  vtkEMSTEngineBridge::ClusterTree& tree = *cache.Tree;
  messages.insert(messages.end(), tree.Messages().begin(), tree.Messages().end());
  messages.insert(messages.end(), tree.Notes().begin(), tree.Notes().end());
  if (tree.NumberOfLeftOut() > 0)
  {
    messages.push_back(std::to_string(tree.NumberOfLeftOut()) +
      " points are not in the tree (non-finite coordinates or ghosts): ClusterId -1, "
      "ClusterSize 0, in no cluster (counted in NoisePoints)");
  }
  if (vtkEMSTAbort::Requested(this))
  {
    MakeEmpty(output, "none (cancelled)", { "cancelled" });
    return 1;
  }
  this->UpdateProgress(0.4);

  // The properties as the cut uses them (ClusterMessages says what was clamped or replaced).
  const vtkIdType n = tree.NumberOfPoints();
  vtkIdType kept = 0;
  double threshold = this->Threshold;
  switch (this->CutMode)
  {
    case LINKING_LENGTH:
      threshold = LinkingThreshold(input, UsableLinkingLength(this->LinkingLength, messages), box);
      kept = tree.EdgesAtMost(threshold);
      break;
    case NUMBER_OF_CLUSTERS:
    {
      const vtkIdType k = UsableClusterCount(this->NumberOfClusters, n, messages);
      kept = tree.EdgesForGroups(k);
      threshold = kept > 0 ? tree.SortedLength(kept - 1) : 0.0;
      if (n - kept > k && n > 0)
      {
        messages.push_back("the input forest has more components than NumberOfClusters: " +
          std::to_string(n - kept) + " groups");
      }
      break;
    }
    default:
    {
      const vtkIdType edges = tree.NumberOfEdges();
      threshold = UsableThreshold(threshold, edges > 0 ? tree.SortedLength(0) : 0.0,
        edges > 0 ? tree.SortedLength(edges - 1) : 0.0, messages);
      kept = tree.EdgesAtMost(threshold);
      break;
    }
  }
  const vtkIdType minimumSize = UsableMinimumSize(this->MinimumClusterSize, n, messages);

  this->SetProgressText("Cutting the tree");
  vtkEMSTEngineBridge::ClusterTree::Cut cut = tree.CutTree(kept, minimumSize);
  this->SetProgressText(nullptr);
  if (cut.Outcome.Code != vtkEMSTEngineBridge::Status::Ok)
  {
    cache.Tree.reset();
    return Failed(this, output, cut.Outcome.ErrorMessage, messages);
  }
  this->UpdateProgress(0.7);

  FillOutput(output, input, cut);
  AddFieldData(output, threshold, static_cast<vtkIdType>(cut.Sizes.size()), cut.NoisePoints,
    tree.BackendDescription(), cut.Milliseconds, messages);
  if (box.IsPeriodic())
  {
    output->GetCellData()->AddArray(
      vtkEMSTPeriodicBox::CrossesBoundary(output->GetPoints(), cut.Lines, box));
    vtkEMSTPeriodicBox::Write(box, output->GetFieldData());
  }

  FillClusterTable(table, output, cut, box);
  const vtkIdType edges = tree.NumberOfEdges();
  const double top = edges > 0 ? tree.SortedLength(edges - 1) : 0.0;
  std::vector<vtkIdType> atMost;
  for (double end : BinEnds(top, this->HistogramBins))
  {
    atMost.push_back(tree.EdgesAtMost(end));
  }
  FillHistogram(histogram, this->HistogramBins, top, tree.NumberOfPoints(), atMost);
  this->UpdateProgress(1.0);
  return 1;
}

//------------------------------------------------------------------------------
int vtkEMSTClusters::RequestDistributed(vtkPolyData* input, vtkDataArray* lengths,
  vtkPolyData* output, vtkTable* table, vtkTable* histogram, std::vector<std::string>& messages)
{
  vtkMultiProcessController* controller = this->Controller;
  const int processes = controller->GetNumberOfProcesses();
  Cache& cache = *this->TreeCache;
  // A new tree when any process has a new piece: building it is collective.
  constexpr int anyBackend = -1; // the distributed cut runs on the CPU
  const int stale = cache.Distributed == nullptr || !cache.Holds(input, lengths, anyBackend);
  int anyStale = 0;
  controller->AllReduce(&stale, &anyStale, 1, vtkCommunicator::MAX_OP);
  if (anyStale)
  {
    cache.Tree.reset();
    cache.Distributed.reset();
    vtkEMSTEngineBridge::Status status;
    this->SetProgressText("Handing the tree to the engine");
    cache.Distributed = vtkEMSTEngineBridge::DistributedClusterTree::Create(input, lengths,
      input->GetPointData()->GetArray("EMSTGlobalId"),
      input->GetPointData()->GetArray("EMSTOwnerRank"), controller, status);
    this->SetProgressText(nullptr);
    if (cache.Distributed == nullptr)
    {
      return Failed(this, output, status.ErrorMessage, messages);
    }
    cache.Remember(input, lengths, anyBackend);
    ++this->TreeUploads;
  }
  vtkEMSTEngineBridge::DistributedClusterTree& tree = *cache.Distributed;
  if (this->Backend == CUDA)
  {
    messages.emplace_back("a distributed tree is cut on the CPU of every process");
  }
  this->UpdateProgress(0.4);

  // The properties as the serial cut uses them; every value here is global, so every process
  // decides the same.
  const vtkIdType points = tree.NumberOfPoints();
  const vtkIdType minimumSize = UsableMinimumSize(this->MinimumClusterSize, points, messages);
  vtkEMSTEngineBridge::DistributedClusterTree::Cut cut;
  switch (this->CutMode)
  {
    case LINKING_LENGTH:
      cut = tree.CutTree(
        tree.LinkingThreshold(UsableLinkingLength(this->LinkingLength, messages)), -1, minimumSize);
      break;
    case NUMBER_OF_CLUSTERS:
    {
      const vtkIdType k = UsableClusterCount(this->NumberOfClusters, points, messages);
      const vtkIdType kept = std::max<vtkIdType>(0, std::min(points - k, tree.NumberOfEdges()));
      if (points - kept > k && points > 0)
      {
        messages.push_back("the input forest has more components than NumberOfClusters: " +
          std::to_string(points - kept) + " groups");
      }
      cut = tree.CutTree(0.0, kept, minimumSize);
      break;
    }
    default:
      cut = tree.CutTree(
        UsableThreshold(this->Threshold, tree.ShortestEdge(), tree.LongestEdge(), messages), -1,
        minimumSize);
      break;
  }
  if (cut.Outcome.Code != vtkEMSTEngineBridge::Status::Ok)
  {
    cache.Distributed.reset();
    return Failed(this, output, cut.Outcome.ErrorMessage, messages);
  }
  // The histogram's counts are collective, its table (like the cluster table) on process 0 only:
  // ParaView's reduction of a table appends the processes' rows.
  const double top = tree.LongestEdge();
  const std::vector<vtkIdType> atMost = tree.EdgesAtMost(BinEnds(top, this->HistogramBins));
  this->UpdateProgress(0.7);

  FillOutput(output, input, cut);
  AddFieldData(output, cut.Threshold, cut.Clusters, cut.NoisePoints,
    "CPU (distributed over " + std::to_string(processes) + " processes)", cut.Milliseconds,
    messages);
  if (controller->GetLocalProcessId() == 0)
  {
    vtkEMSTClusterTable::AddColumns(
      table, cut.Sizes, cut.FirstPoint, cut.Centroid, cut.BoundsMin, cut.BoundsMax);
    AddLongestEdge(table, cut.LongestEdge);
    FillHistogram(histogram, this->HistogramBins, top, points, atMost);
  }
  this->UpdateProgress(1.0);
  return 1;
}

//------------------------------------------------------------------------------
void vtkEMSTClusters::PrintSelf(ostream& os, vtkIndent indent)
{
  this->Superclass::PrintSelf(os, indent);
  os << indent << "CutMode: " << this->CutMode << "\n";
  os << indent << "Threshold: " << this->Threshold << "\n";
  os << indent << "LinkingLength: " << this->LinkingLength << "\n";
  os << indent << "NumberOfClusters: " << this->NumberOfClusters << "\n";
  os << indent << "MinimumClusterSize: " << this->MinimumClusterSize << "\n";
  os << indent << "HistogramBins: " << this->HistogramBins << "\n";
  os << indent
     << "Backend: " << (this->Backend == CUDA ? "CUDA" : (this->Backend == CPU ? "CPU" : "Auto"))
     << "\n";
  os << indent << "TreeUploads: " << this->TreeUploads << "\n";
  os << indent << "Controller: " << this->Controller << "\n";
}
