// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// C++ tests of vtkEMSTHdbscanClusters, the filter's side of HDBSCAN*: its outputs against the
// engine's computeHdbscan on the same points (labels, probabilities, outlier scores, core
// distances, the tree, the condensed tree: bit for bit), its tables against the labelled points,
// a new extraction without a new tree when only the extraction's parameters change, ghost points
// left out (the others' results as without them), composite input, errors (empty, valid outputs
// and an ErrorEvent) and a cancel. The engine's own correctness against scikit-learn is
// Testing/Python/test_hdbscan_sklearn.py's.
#include "vtkEMSTHdbscanClusters.h"

#include "emst/Hdbscan.h"

#include "FilterTesting.h"

#include "vtkCallbackCommand.h"
#include "vtkCellArray.h"
#include "vtkCellData.h"
#include "vtkCommand.h"
#include "vtkDataSetAttributes.h"
#include "vtkDoubleArray.h"
#include "vtkFieldData.h"
#include "vtkFloatArray.h"
#include "vtkIdTypeArray.h"
#include "vtkIntArray.h"
#include "vtkMultiBlockDataSet.h"
#include "vtkNew.h"
#include "vtkPointData.h"
#include "vtkPoints.h"
#include "vtkPolyData.h"
#include "vtkStringArray.h"
#include "vtkTable.h"
#include "vtkUnsignedCharArray.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace
{

using namespace filtertesting;

bool SameBits(double a, double b)
{
  return std::memcmp(&a, &b, sizeof a) == 0;
}

/// Blobs of three densities and a uniform background, float32.
vtkSmartPointer<vtkPolyData> Blobs(int n, unsigned seed)
{
  std::mt19937 random(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> uniform(0.0, 10.0);
  const double centre[3][3] = { { 2, 2, 2 }, { 7, 3, 5 }, { 4, 8, 6 } };
  const double sigma[3] = { 0.1, 0.4, 1.0 };
  vtkNew<vtkPoints> points;
  points->SetDataType(VTK_FLOAT);
  for (int k = 0; k < n; ++k)
  {
    const int b = k % 4;
    if (b == 3)
    {
      points->InsertNextPoint(uniform(random), uniform(random), uniform(random));
    }
    else
    {
      points->InsertNextPoint(centre[b][0] + sigma[b] * normal(random),
        centre[b][1] + sigma[b] * normal(random), centre[b][2] + sigma[b] * normal(random));
    }
  }
  auto cloud = vtkSmartPointer<vtkPolyData>::New();
  cloud->SetPoints(points);
  return cloud;
}

emst::HdbscanOptions OptionsOf(vtkEMSTHdbscanClusters* filter)
{
  emst::HdbscanOptions options;
  options.minimumSamples = static_cast<std::size_t>(filter->GetMinimumSamples());
  options.parameters.minimumClusterSize = static_cast<std::size_t>(filter->GetMinimumClusterSize());
  options.parameters.selection = filter->GetClusterSelectionMethod() == 1
    ? emst::ClusterSelection::Leaf
    : emst::ClusterSelection::ExcessOfMass;
  options.parameters.clusterSelectionEpsilon = filter->GetClusterSelectionEpsilon();
  options.parameters.allowSingleCluster = filter->GetAllowSingleCluster();
  options.engine.backend = emst::Backend::Cpu;
  return options;
}

/// The filter's outputs against the engine run on `points` (the points in the tree, in output
/// order: `outputId[k]` is tree point k's output id; the other output points must be left out).
void CheckAgainstEngine(vtkEMSTHdbscanClusters* filter, const std::vector<float>& points,
  const std::vector<vtkIdType>& outputId, const char* label)
{
  emst::PointCloudView view;
  view.data = points.data();
  view.count = points.size() / 3;
  const emst::HdbscanResult expected = emst::computeHdbscan(view, OptionsOf(filter));
  vtkPolyData* output = filter->GetOutput(0);
  auto* id = vtkIntArray::SafeDownCast(output->GetPointData()->GetArray("ClusterId"));
  auto* probability = vtkDoubleArray::SafeDownCast(output->GetPointData()->GetArray("Probability"));
  auto* score = vtkDoubleArray::SafeDownCast(output->GetPointData()->GetArray("OutlierScore"));
  auto* core = vtkDoubleArray::SafeDownCast(output->GetPointData()->GetArray("CoreDistance"));
  EXPECT(id && probability && score && core, "%s: missing point arrays", label);
  if (!(id && probability && score && core))
  {
    return;
  }
  std::vector<char> inTree(output->GetNumberOfPoints(), 0);
  int wrong = 0;
  for (std::size_t k = 0; k < outputId.size(); ++k)
  {
    const vtkIdType o = outputId[k];
    inTree[o] = 1;
    wrong += id->GetValue(o) != expected.clustering.labels[k] ||
        !SameBits(probability->GetValue(o), expected.clustering.probabilities[k]) ||
        !SameBits(score->GetValue(o), expected.clustering.outlierScores[k]) ||
        !SameBits(core->GetValue(o), expected.tree.coreDistance[k])
      ? 1
      : 0;
  }
  EXPECT(wrong == 0, "%s: %d points differ from the engine's run", label, wrong);
  for (vtkIdType o = 0; o < output->GetNumberOfPoints(); ++o)
  {
    if (!inTree[o])
    {
      EXPECT(id->GetValue(o) == -1 && probability->GetValue(o) == 0.0 &&
          std::isnan(score->GetValue(o)) && std::isnan(core->GetValue(o)),
        "%s: point %lld left out of the tree has a result", label, static_cast<long long>(o));
    }
  }
  // The tree: the engine's edges in output ids, lengths in MutualReachability.
  const std::vector<emst::Edge>& edges = expected.tree.tree.edges;
  auto* lengths =
    vtkDoubleArray::SafeDownCast(output->GetCellData()->GetArray("MutualReachability"));
  EXPECT(lengths && output->GetNumberOfLines() == static_cast<vtkIdType>(edges.size()),
    "%s: %lld lines for %zu edges", label, static_cast<long long>(output->GetNumberOfLines()),
    edges.size());
  vtkIdType npts = 0;
  const vtkIdType* ends = nullptr;
  for (vtkIdType e = 0; lengths && e < output->GetNumberOfLines() && e < 100; ++e)
  {
    output->GetLines()->GetCellAtId(e, npts, ends);
    EXPECT(ends[0] == outputId[edges[e].i] && ends[1] == outputId[edges[e].j] &&
        lengths->GetValue(e) == edges[e].length,
      "%s: line %lld", label, static_cast<long long>(e));
  }
  // The cluster table against the labelled points; the condensed tree row for row.
  auto* table = vtkTable::SafeDownCast(filter->GetOutputDataObject(1));
  const std::size_t clusters = expected.clustering.clusters.size();
  EXPECT(table && table->GetNumberOfRows() == static_cast<vtkIdType>(clusters),
    "%s: the table has %lld rows for %zu clusters", label,
    static_cast<long long>(table ? table->GetNumberOfRows() : -1), clusters);
  EXPECT(FieldDouble(output, "NumberOfClusters") == static_cast<double>(clusters) &&
      FieldDouble(output, "NoisePoints") ==
        static_cast<double>(output->GetNumberOfPoints() - static_cast<vtkIdType>(outputId.size()) +
          static_cast<vtkIdType>(expected.clustering.noisePoints)),
    "%s: NumberOfClusters, NoisePoints", label);
  for (std::size_t c = 0; table && c < clusters && table->GetNumberOfRows() == (vtkIdType)clusters;
       ++c)
  {
    const vtkIdType r = static_cast<vtkIdType>(c);
    double sum[3] = { 0, 0, 0 };
    vtkIdType size = 0;
    for (vtkIdType o = 0; o < output->GetNumberOfPoints(); ++o)
    {
      if (id->GetValue(o) == static_cast<int>(c))
      {
        double p[3];
        output->GetPoint(o, p);
        for (int a = 0; a < 3; ++a)
        {
          sum[a] += p[a];
        }
        ++size;
      }
    }
    const emst::HdbscanCluster& e = expected.clustering.clusters[c];
    EXPECT(table->GetValueByName(r, "Size").ToLongLong() == size &&
        size == static_cast<vtkIdType>(e.size),
      "%s: cluster %zu size", label, c);
    auto* centroid = vtkDoubleArray::SafeDownCast(table->GetColumnByName("Centroid"));
    for (int a = 0; centroid && size > 0 && a < 3; ++a)
    {
      EXPECT(std::abs(centroid->GetComponent(r, a) - sum[a] / size) <=
          1e-9 * (1 + std::abs(sum[a] / size)),
        "%s: cluster %zu centroid", label, c);
    }
    EXPECT(table->GetValueByName(r, "Stability").ToDouble() == e.stability &&
        table->GetValueByName(r, "BirthLambda").ToDouble() == e.birthLambda &&
        table->GetValueByName(r, "DeathLambda").ToDouble() == e.deathLambda &&
        table->GetValueByName(r, "FirstPoint").ToLongLong() == outputId[e.firstPoint],
      "%s: cluster %zu stability, lambdas, first point", label, c);
  }
  auto* condensed = vtkTable::SafeDownCast(filter->GetOutputDataObject(2));
  const auto& rows = expected.clustering.condensedTree;
  EXPECT(condensed && condensed->GetNumberOfRows() == static_cast<vtkIdType>(rows.size()),
    "%s: condensed tree rows", label);
  const vtkIdType n = output->GetNumberOfPoints();
  const std::size_t treePoints = points.size() / 3;
  auto outputNode = [&](std::uint64_t node)
  { return node < treePoints ? outputId[node] : n + static_cast<vtkIdType>(node - treePoints); };
  for (std::size_t r = 0; condensed && r < rows.size() &&
       condensed->GetNumberOfRows() == static_cast<vtkIdType>(rows.size());
       r += 97)
  {
    const vtkIdType row = static_cast<vtkIdType>(r);
    EXPECT(condensed->GetValueByName(row, "Parent").ToLongLong() == outputNode(rows[r].parent) &&
        condensed->GetValueByName(row, "Child").ToLongLong() == outputNode(rows[r].child) &&
        SameBits(condensed->GetValueByName(row, "Lambda").ToDouble(), rows[r].lambda) &&
        condensed->GetValueByName(row, "Size").ToLongLong() == (long long)rows[r].size,
      "%s: condensed tree row %zu", label, r);
  }
  EXPECT(clusters >= 2, "%s: only %zu clusters", label, clusters);
}

std::vector<float> PointsOf(vtkPolyData* cloud)
{
  auto* values = vtkFloatArray::SafeDownCast(cloud->GetPoints()->GetData());
  return std::vector<float>(
    values->GetPointer(0), values->GetPointer(0) + 3 * cloud->GetNumberOfPoints());
}

std::vector<vtkIdType> Identity(vtkIdType n)
{
  std::vector<vtkIdType> ids(n);
  for (vtkIdType k = 0; k < n; ++k)
  {
    ids[k] = k;
  }
  return ids;
}

void TestAgainstEngineAndRecut()
{
  auto cloud = Blobs(4000, 1);
  vtkNew<vtkEMSTHdbscanClusters> filter;
  filter->SetInputData(cloud);
  filter->SetBackendToCPU();
  filter->SetMinimumSamples(8);
  filter->SetMinimumClusterSize(25);
  filter->Update();
  const std::vector<float> points = PointsOf(cloud);
  CheckAgainstEngine(filter, points, Identity(cloud->GetNumberOfPoints()), "eom k=8 size=25");
  // Only the extraction's parameters: no new tree.
  filter->SetClusterSelectionMethod(vtkEMSTHdbscanClusters::LEAF);
  filter->SetMinimumClusterSize(15);
  filter->Update();
  CheckAgainstEngine(filter, points, Identity(cloud->GetNumberOfPoints()), "leaf size=15");
  filter->SetClusterSelectionMethod(vtkEMSTHdbscanClusters::EXCESS_OF_MASS);
  filter->SetClusterSelectionEpsilon(0.5);
  filter->AllowSingleClusterOn();
  filter->Update();
  CheckAgainstEngine(filter, points, Identity(cloud->GetNumberOfPoints()), "eom epsilon 0.5");
  EXPECT(filter->GetTreeRuns() == 1, "%d trees for one input and k", filter->GetTreeRuns());
  // k, or the input: a new tree.
  filter->AllowSingleClusterOff();
  filter->SetClusterSelectionEpsilon(0.0);
  filter->SetMinimumSamples(3);
  filter->Update();
  CheckAgainstEngine(filter, points, Identity(cloud->GetNumberOfPoints()), "k=3");
  cloud->Modified();
  filter->Update();
  EXPECT(filter->GetTreeRuns() == 3, "%d trees after a new k and a modified input",
    filter->GetTreeRuns());
  std::printf("HDBSCAN Clusters against the engine: %lld clusters, %d trees for 5 runs\n",
    static_cast<long long>(FieldDouble(filter->GetOutput(), "NumberOfClusters")),
    filter->GetTreeRuns());
}

void TestGhostsAndComposite()
{
  // Ghost points (another piece's copies, blanked points) are left out, and the others get the
  // results of the cloud without them; two blocks give the clustering of their union.
  auto clean = Blobs(3000, 2);
  const std::vector<float> points = PointsOf(clean);
  vtkNew<vtkPoints> withGhosts;
  withGhosts->SetDataType(VTK_FLOAT);
  vtkNew<vtkUnsignedCharArray> ghosts;
  ghosts->SetName(vtkDataSetAttributes::GhostArrayName());
  std::vector<vtkIdType> outputId;
  std::mt19937 random(3);
  for (vtkIdType k = 0; k < clean->GetNumberOfPoints(); ++k)
  {
    if (k % 10 == 0)
    {
      withGhosts->InsertNextPoint(5.0 + k * 1e-3, 5.0, 5.0); // would change the clusters
      ghosts->InsertNextValue(
        k % 20 == 0 ? vtkDataSetAttributes::DUPLICATEPOINT : vtkDataSetAttributes::HIDDENPOINT);
    }
    outputId.push_back(withGhosts->GetNumberOfPoints());
    withGhosts->InsertNextPoint(&points[3 * k]);
    ghosts->InsertNextValue(0);
  }
  vtkNew<vtkPolyData> cloud;
  cloud->SetPoints(withGhosts);
  cloud->GetPointData()->AddArray(ghosts);
  vtkNew<vtkEMSTHdbscanClusters> filter;
  filter->SetInputData(cloud);
  filter->SetBackendToCPU();
  filter->SetMinimumSamples(6);
  filter->SetMinimumClusterSize(20);
  filter->Update();
  CheckAgainstEngine(filter, points, outputId, "ghost points");
  EXPECT(HasMessage(filter->GetOutput(), "ghost points"), "no note of the ghost points");

  vtkNew<vtkMultiBlockDataSet> blocks;
  const vtkIdType half = clean->GetNumberOfPoints() / 2;
  for (int b = 0; b < 2; ++b)
  {
    vtkNew<vtkPoints> part;
    part->SetDataType(VTK_FLOAT);
    for (vtkIdType k = b * half; k < (b == 0 ? half : clean->GetNumberOfPoints()); ++k)
    {
      part->InsertNextPoint(&points[3 * k]);
    }
    vtkNew<vtkPolyData> piece;
    piece->SetPoints(part);
    blocks->SetBlock(b, piece);
  }
  vtkNew<vtkEMSTHdbscanClusters> composite;
  composite->SetInputData(blocks);
  composite->SetBackendToCPU();
  composite->SetMinimumSamples(6);
  composite->SetMinimumClusterSize(20);
  composite->Update();
  CheckAgainstEngine(composite, points, Identity(clean->GetNumberOfPoints()), "two blocks");
}

void OnError(vtkObject*, unsigned long, void* clientData, void*)
{
  ++*static_cast<int*>(clientData);
}

void OnProgress(vtkObject* caller, unsigned long, void*, void*)
{
  static_cast<vtkAlgorithm*>(caller)->SetAbortExecute(1);
}

void ExpectEmpty(vtkEMSTHdbscanClusters* filter, const char* label)
{
  vtkPolyData* output = filter->GetOutput();
  EXPECT(
    output->GetNumberOfPoints() == 0 && output->GetNumberOfLines() == 0, "%s: not empty", label);
  for (const char* name : { "ClusterId", "Probability", "OutlierScore", "CoreDistance" })
  {
    EXPECT(output->GetPointData()->GetArray(name) != nullptr, "%s: no %s", label, name);
  }
  auto* table = vtkTable::SafeDownCast(filter->GetOutputDataObject(1));
  auto* condensed = vtkTable::SafeDownCast(filter->GetOutputDataObject(2));
  EXPECT(table && table->GetNumberOfRows() == 0 && table->GetColumnByName("Stability"),
    "%s: cluster table", label);
  EXPECT(condensed && condensed->GetNumberOfRows() == 0 && condensed->GetColumnByName("Lambda"),
    "%s: condensed tree", label);
}

void TestErrorsAndCancel()
{
  int errors = 0;
  vtkNew<vtkCallbackCommand> onError;
  onError->SetCallback(OnError);
  onError->SetClientData(&errors);
  vtkNew<vtkEMSTHdbscanClusters> filter;
  filter->AddObserver(vtkCommand::ErrorEvent, onError);
  filter->SetBackendToCPU();
  filter->SetInputData(Blobs(5, 4));
  filter->SetMinimumSamples(6);
  filter->Update();
  EXPECT(errors == 1, "k above the points: %d error events", errors);
  ExpectEmpty(filter, "k above the points");
  EXPECT(HasMessage(filter->GetOutput(), "minimum samples (6) exceed the 5"),
    "no error in EMSTMessages");
  filter->SetMinimumSamples(2);
  filter->SetMinimumClusterSize(2);
  filter->Update();
  EXPECT(errors == 1 && filter->GetOutput()->GetNumberOfPoints() == 5, "no recovery");

  vtkNew<vtkEMSTHdbscanClusters> cancelled;
  vtkNew<vtkCallbackCommand> onProgress;
  onProgress->SetCallback(OnProgress);
  cancelled->AddObserver(vtkCommand::ProgressEvent, onProgress);
  cancelled->AddObserver(vtkCommand::ErrorEvent, onError);
  cancelled->SetBackendToCPU();
  cancelled->SetInputData(Blobs(2000, 5));
  cancelled->Update();
  // (The executive releases the outputs of an aborted run: only "empty" is left to see.)
  EXPECT(errors == 1, "a cancel gave an error event");
  EXPECT(cancelled->GetOutput()->GetNumberOfPoints() == 0, "cancelled: not empty");
  cancelled->RemoveAllObservers();
  cancelled->SetAbortExecute(0);
  cancelled->Modified();
  cancelled->Update();
  EXPECT(cancelled->GetOutput()->GetNumberOfPoints() == 2000, "no recovery after the cancel");
}

} // namespace

int main()
{
  TestAgainstEngineAndRecut();
  TestGhostsAndComposite();
  TestErrorsAndCancel();
  std::printf("%s: %d failure(s)\n", filtertesting::Failures == 0 ? "PASSED" : "FAILED",
    filtertesting::Failures);
  return filtertesting::Failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
