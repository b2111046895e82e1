// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
#include "vtkEMSTClusters.h"

#include "vtkEMSTArrays.h"
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

/// Each clustered point's coordinates unwrapped around its cluster in a periodic box: from the
/// cluster's first point, wrapped into the box, along the kept edges (a tree inside each cluster),
/// each step the minimum image of the edge. A cluster that crosses a face comes out in one piece,
/// partly outside the box. Noise points keep their coordinates. 3 values per point.
std::vector<double> UnwrappedPoints(vtkPolyData* points,
  const vtkEMSTEngineBridge::ClusterTree::Cut& cut, const vtkEMSTPeriodicBox::Box& box)
{
  const vtkIdType n = points->GetNumberOfPoints();
  std::vector<double> xyz(static_cast<std::size_t>(3 * n));
  for (vtkIdType k = 0; k < n; ++k)
  {
    points->GetPoint(k, &xyz[3 * k]);
  }
  // The kept edges as adjacency lists (CSR).
  const vtkIdType kept = cut.Lines->GetNumberOfCells();
  vtkDataArray* ends = cut.Lines->GetConnectivityArray();
  std::vector<vtkIdType> first(static_cast<std::size_t>(n + 1), 0);
  for (vtkIdType k = 0; k < 2 * kept; ++k)
  {
    ++first[static_cast<vtkIdType>(ends->GetComponent(k, 0)) + 1];
  }
  for (vtkIdType k = 0; k < n; ++k)
  {
    first[k + 1] += first[k];
  }
  std::vector<vtkIdType> next(first.begin(), first.end() - 1);
  std::vector<vtkIdType> neighbour(static_cast<std::size_t>(2 * kept));
  for (vtkIdType e = 0; e < kept; ++e)
  {
    const vtkIdType a = static_cast<vtkIdType>(ends->GetComponent(2 * e, 0));
    const vtkIdType b = static_cast<vtkIdType>(ends->GetComponent(2 * e + 1, 0));
    neighbour[next[a]++] = b;
    neighbour[next[b]++] = a;
  }
  const int* label = cut.ClusterId->GetPointer(0);
  std::vector<char> seen(static_cast<std::size_t>(n), 0);
  std::vector<vtkIdType> stack;
  double raw[3], d[3];
  for (const vtkIdType start : cut.FirstPoint)
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
        if (seen[v] || label[v] != label[start])
        {
          continue;
        }
        seen[v] = 1;
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
        stack.push_back(v);
      }
    }
  }
  return xyz;
}

/// The table of clusters (output 1): sizes and first points from the cut, the rest from one pass
/// over the points and one over the kept edges. In a periodic box the centroids and bounds are
/// those of the cluster unwrapped around itself (UnwrappedPoints), the centroid then moved by
/// whole periods into the box and the bounds with it.
void FillClusterTable(vtkTable* table, vtkPolyData* points,
  const vtkEMSTEngineBridge::ClusterTree::Cut& cut, const vtkEMSTPeriodicBox::Box& box)
{
  const vtkIdType clusters = static_cast<vtkIdType>(cut.Sizes.size());
  auto id = Named<vtkIntArray>("ClusterId");
  auto size = Named<vtkIdTypeArray>("Size");
  auto centroid = Named<vtkDoubleArray>("Centroid", 3);
  auto lo = Named<vtkDoubleArray>("BoundsMin", 3);
  auto hi = Named<vtkDoubleArray>("BoundsMax", 3);
  auto longest = Named<vtkDoubleArray>("LongestEdge");
  auto first = Named<vtkIdTypeArray>("FirstPoint");
  for (auto* array : std::vector<vtkDataArray*>{ id, size, centroid, lo, hi, longest, first })
  {
    array->SetNumberOfTuples(clusters);
  }
  // Sums, bounds and longest edges accumulate in the table's own arrays.
  double* sum = centroid->GetPointer(0);
  double* min = lo->GetPointer(0);
  double* max = hi->GetPointer(0);
  double* edge = longest->GetPointer(0);
  std::fill(sum, sum + 3 * clusters, 0.0);
  std::fill(min, min + 3 * clusters, std::numeric_limits<double>::infinity());
  std::fill(max, max + 3 * clusters, -std::numeric_limits<double>::infinity());
  std::fill(edge, edge + clusters, 0.0);
  const int* label = cut.ClusterId->GetPointer(0);
  const vtkIdType n = points->GetNumberOfPoints();
  const std::vector<double> unwrapped =
    box.IsPeriodic() ? UnwrappedPoints(points, cut, box) : std::vector<double>();
  double p[3];
  for (vtkIdType k = 0; k < n; ++k)
  {
    const int c = label[k];
    if (c < 0)
    {
      continue;
    }
    if (box.IsPeriodic())
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
  for (vtkIdType c = 0; c < clusters; ++c)
  {
    const double count = static_cast<double>(cut.Sizes[c]);
    id->SetValue(c, static_cast<int>(c));
    size->SetValue(c, cut.Sizes[c]);
    for (int a = 0; a < 3; ++a)
    {
      sum[3 * c + a] /= count; // the centroid
    }
    if (box.IsPeriodic())
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
    first->SetValue(c, cut.FirstPoint[c]);
  }
  for (auto* array : std::vector<vtkAbstractArray*>{ id, size, centroid, lo, hi, longest, first })
  {
    table->AddColumn(array);
  }
}

/// The edge-length histogram (output 2), from the sorted lengths.
void FillHistogram(vtkTable* table, const vtkEMSTEngineBridge::ClusterTree& tree, int bins)
{
  const vtkIdType edges = tree.NumberOfEdges();
  const double top = edges > 0 ? tree.SortedLength(edges - 1) : 0.0;
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
  vtkIdType below = 0; // edges of length <= the previous bin's end
  for (int b = 0; b < bins; ++b)
  {
    const double lo = b * width;
    const double hi = b + 1 == bins ? top : (b + 1) * width;
    const vtkIdType upTo = tree.EdgesAtMost(hi);
    centre->SetValue(b, 0.5 * (lo + hi));
    start->SetValue(b, lo);
    end->SetValue(b, hi);
    count->SetValue(b, upTo - below);
    groups->SetValue(b, tree.NumberOfPoints() - upTo);
    below = upTo;
  }
  for (vtkAbstractArray* array :
    std::vector<vtkAbstractArray*>{ centre, start, end, count, groups })
  {
    table->AddColumn(array);
  }
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
  double volume = 1.0;
  int dimensions = 0;
  for (int a = 0; a < 3 && finite > 0; ++a)
  {
    const double extent = box.Size[a] > 0.0 ? box.Size[a] : hi[a] - lo[a];
    if (extent > 0.0)
    {
      volume *= extent;
      ++dimensions;
    }
  }
  if (dimensions == 0)
  {
    return 0.0; // one point, or all identical: every spacing is 0
  }
  return b * std::pow(volume / static_cast<double>(finite), 1.0 / dimensions);
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
      vtkErrorMacro(<< error);
      messages.push_back("error: " + error);
      MakeEmpty(output, "none (error)", messages);
      return 1;
    }
  }

  // The edge lengths: the selected cell array (the tree's EdgeLength), else computed.
  vtkDataArray* lengths = this->GetInputArrayToProcess(0, inputVector);
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
    MakeEmpty(
      output, "none (no points)", messages, this->CutMode == THRESHOLD ? this->Threshold : 0.0);
    return 1;
  }

  if (input->GetNumberOfLines() > 0 && lengths == nullptr)
  {
    messages.emplace_back("no edge length array: lengths computed from the points");
  }

  this->UpdateProgress(0.1);
  Cache& cache = *this->TreeCache;
  const bool fresh = cache.Tree != nullptr && cache.Input == input.GetPointer() && !gathered &&
    cache.InputTime == input->GetMTime() && cache.Lengths == lengths &&
    cache.LengthsTime == (lengths ? lengths->GetMTime() : 0) && cache.Backend == backend;
  if (!fresh)
  {
    cache.Tree.reset();
    vtkEMSTEngineBridge::Status status;
    this->SetProgressText("Handing the tree to the engine");
    cache.Tree = vtkEMSTEngineBridge::ClusterTree::Create(input, lengths, backend, box, status);
    this->SetProgressText(nullptr);
    if (cache.Tree == nullptr)
    {
      vtkErrorMacro(<< status.ErrorMessage);
      messages.push_back("error: " + status.ErrorMessage);
      MakeEmpty(output, "none (error)", messages);
      return 1;
    }
    cache.Input = input;
    cache.InputTime = input->GetMTime();
    cache.Lengths = lengths;
    cache.LengthsTime = lengths ? lengths->GetMTime() : 0;
    cache.Backend = backend;
    ++this->TreeUploads;
    for (const std::string& message : cache.Tree->Messages())
    {
      vtkWarningMacro(<< message); // once per tree, not at every new threshold
    }
  }
  vtkEMSTEngineBridge::ClusterTree& tree = *cache.Tree;
  messages.insert(messages.end(), tree.Messages().begin(), tree.Messages().end());
  if (this->GetAbortExecute())
  {
    MakeEmpty(output, "none (cancelled)", { "cancelled" });
    return 1;
  }
  this->UpdateProgress(0.4);

  vtkIdType kept = 0;
  double threshold = this->Threshold;
  switch (this->CutMode)
  {
    case LINKING_LENGTH:
      threshold = LinkingThreshold(input, this->LinkingLength, box);
      kept = tree.EdgesAtMost(threshold);
      break;
    case NUMBER_OF_CLUSTERS:
      kept = tree.EdgesForGroups(this->NumberOfClusters);
      threshold = kept > 0 ? tree.SortedLength(kept - 1) : 0.0;
      if (tree.NumberOfPoints() - kept > this->NumberOfClusters && tree.NumberOfPoints() > 0)
      {
        messages.push_back("the input forest has more components than NumberOfClusters: " +
          std::to_string(tree.NumberOfPoints() - kept) + " groups");
      }
      break;
    default:
      kept = tree.EdgesAtMost(threshold);
      break;
  }

  this->SetProgressText("Cutting the tree");
  vtkEMSTEngineBridge::ClusterTree::Cut cut = tree.CutTree(kept, this->MinimumClusterSize);
  this->SetProgressText(nullptr);
  if (cut.Outcome.Code != vtkEMSTEngineBridge::Status::Ok)
  {
    vtkErrorMacro(<< cut.Outcome.ErrorMessage);
    messages.push_back("error: " + cut.Outcome.ErrorMessage);
    cache.Tree.reset();
    MakeEmpty(output, "none (error)", messages);
    return 1;
  }
  this->UpdateProgress(0.7);

  output->Initialize();
  output->SetPoints(input->GetPoints());
  output->GetPointData()->ShallowCopy(input->GetPointData());
  output->GetPointData()->AddArray(cut.ClusterId);
  output->GetPointData()->AddArray(cut.ClusterSize);
  output->GetPointData()->SetActiveScalars("ClusterId");
  output->SetLines(cut.Lines);
  output->GetCellData()->AddArray(cut.EdgeLength);
  AddFieldData(output, threshold, static_cast<vtkIdType>(cut.Sizes.size()), cut.NoisePoints,
    tree.BackendDescription(), cut.Milliseconds, messages);
  if (box.IsPeriodic())
  {
    output->GetCellData()->AddArray(
      vtkEMSTPeriodicBox::CrossesBoundary(output->GetPoints(), cut.Lines, box));
    vtkEMSTPeriodicBox::Write(box, output->GetFieldData());
  }

  FillClusterTable(table, output, cut, box);
  FillHistogram(histogram, tree, this->HistogramBins);
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
