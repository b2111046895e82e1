// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// C++ tests of vtkEMSTEuclideanMinimumSpanningTree for what pvpython cannot see well: that the
// output shares the input's points (zero-copy), that progress events arrive and a cancel from a
// progress observer gives an empty output without an error, that errors come as ErrorEvents with
// an empty output, and the tree against a brute-force Prim on clouds with exact ties. And the
// cluster filters: the cut against brute-force friends-of-friends, the re-cut that does not re-run
// the tree, the cluster table and the hierarchy. With a GPU (the device check), the tree and the
// cut run on it.
#include "vtkEMSTClusters.h"
#include "vtkEMSTEuclideanMinimumSpanningTree.h"
#include "vtkEMSTSingleLinkageHierarchy.h"

#include "FilterTesting.h"

#include "vtkCallbackCommand.h"
#include "vtkCellArray.h"
#include "vtkCellData.h"
#include "vtkCommand.h"
#include "vtkDoubleArray.h"
#include "vtkFieldData.h"
#include "vtkIdList.h"
#include "vtkIdTypeArray.h"
#include "vtkIntArray.h"
#include "vtkNew.h"
#include "vtkPointData.h"
#include "vtkPoints.h"
#include "vtkPolyData.h"
#include "vtkStringArray.h"
#include "vtkTable.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace
{

using namespace filtertesting;

/// Total length of the exact EMST by Prim's algorithm on the complete graph, double precision.
double PrimTotal(vtkPoints* points)
{
  const vtkIdType n = points->GetNumberOfPoints();
  std::vector<double> best(n, std::numeric_limits<double>::infinity());
  std::vector<bool> inTree(n, false);
  std::vector<double> lengths;
  vtkIdType current = 0;
  for (vtkIdType step = 1; step < n; ++step)
  {
    inTree[current] = true;
    double p[3], q[3];
    points->GetPoint(current, p);
    vtkIdType next = -1;
    for (vtkIdType k = 0; k < n; ++k)
    {
      if (inTree[k])
      {
        continue;
      }
      points->GetPoint(k, q);
      const double dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
      best[k] = std::min(best[k], std::sqrt(dx * dx + dy * dy + dz * dz));
      if (next < 0 || best[k] < best[next])
      {
        next = k;
      }
    }
    lengths.push_back(best[next]);
    current = next;
  }
  std::sort(lengths.begin(), lengths.end());
  return std::accumulate(lengths.begin(), lengths.end(), 0.0);
}

/// Checks n - 1 lines forming a spanning tree, each EdgeLength its end points' distance; returns
/// the sum of the lengths.
double CheckTree(vtkPolyData* output, const char* label)
{
  const vtkIdType n = output->GetNumberOfPoints();
  vtkCellArray* lines = output->GetLines();
  auto* length = vtkDoubleArray::SafeDownCast(output->GetCellData()->GetArray("EdgeLength"));
  EXPECT(lines->GetNumberOfCells() == n - 1, "%s: %lld lines for %lld points", label,
    static_cast<long long>(lines->GetNumberOfCells()), static_cast<long long>(n));
  EXPECT(length != nullptr && length->GetNumberOfTuples() == n - 1, "%s: EdgeLength", label);
  if (length == nullptr || lines->GetNumberOfCells() != n - 1)
  {
    return 0.0;
  }
  std::vector<vtkIdType> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&parent](vtkIdType a)
  {
    while (parent[a] != a)
    {
      a = parent[a] = parent[parent[a]];
    }
    return a;
  };
  double total = 0.0;
  vtkNew<vtkIdList> ids;
  for (vtkIdType e = 0; e < n - 1; ++e)
  {
    lines->GetCellAtId(e, ids);
    EXPECT(ids->GetNumberOfIds() == 2, "%s: line %lld", label, static_cast<long long>(e));
    double p[3], q[3];
    output->GetPoint(ids->GetId(0), p);
    output->GetPoint(ids->GetId(1), q);
    const double d = std::hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]); // at any scale
    EXPECT(std::abs(d - length->GetValue(e)) <= 1e-12 * d,
      "%s: edge %lld length %.17g, distance %.17g", label, static_cast<long long>(e),
      length->GetValue(e), d);
    const vtkIdType a = find(ids->GetId(0)), b = find(ids->GetId(1));
    EXPECT(a != b, "%s: cycle at edge %lld", label, static_cast<long long>(e));
    parent[a] = b;
    total += length->GetValue(e);
  }
  EXPECT(
    std::abs(FieldDouble(output, "TotalLength") - total) <= 1e-9 * total, "%s: TotalLength", label);
  return total;
}

vtkSmartPointer<vtkPolyData> RandomCloud(int n, int type, unsigned seed)
{
  std::mt19937 random(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> uniform(0.0, 10.0);
  vtkNew<vtkPoints> points;
  points->SetDataType(type);
  for (int k = 0; k < n; ++k)
  {
    if (k % 3 == 0)
    {
      points->InsertNextPoint(uniform(random), uniform(random), uniform(random));
    }
    else
    {
      points->InsertNextPoint(3 + normal(random), 5 + 0.3 * normal(random), 5 + normal(random));
    }
  }
  auto cloud = vtkSmartPointer<vtkPolyData>::New();
  cloud->SetPoints(points);
  return cloud;
}

struct ProgressLog
{
  std::vector<double> Values;
  std::vector<std::string> Steps;
  int CancelAfter = -1; ///< set AbortExecute at this progress event (-1: never)
  int Errors = 0;
};

void OnProgress(vtkObject* caller, unsigned long, void* clientData, void* callData)
{
  auto* log = static_cast<ProgressLog*>(clientData);
  auto* filter = static_cast<vtkEMSTEuclideanMinimumSpanningTree*>(caller);
  log->Values.push_back(*static_cast<double*>(callData));
  log->Steps.emplace_back(filter->GetProgressText() ? filter->GetProgressText() : "");
  if (log->CancelAfter >= 0 && static_cast<int>(log->Values.size()) > log->CancelAfter)
  {
    filter->SetAbortExecute(1);
  }
}

void OnError(vtkObject*, unsigned long, void* clientData, void*)
{
  ++static_cast<ProgressLog*>(clientData)->Errors;
}

void TestZeroCopyAndPrim()
{
  for (int type : { VTK_FLOAT, VTK_DOUBLE })
  {
    auto cloud = RandomCloud(1500, type, 11);
    vtkNew<vtkEMSTEuclideanMinimumSpanningTree> filter;
    filter->SetInputData(cloud);
    filter->SetBackendToCPU();
    filter->Update();
    vtkPolyData* output = filter->GetOutput();
    const char* label = type == VTK_FLOAT ? "float32" : "float64";
    EXPECT(output->GetPoints() == cloud->GetPoints(),
      "%s: the output does not share the input's points", label);
    const std::string expected = std::string("zero-copy ") + label + " 3D";
    EXPECT(FieldString(output, "EMSTInput") == expected, "%s: EMSTInput '%s'", label,
      FieldString(output, "EMSTInput").c_str());
    const double total = CheckTree(output, label);
    const double prim = PrimTotal(cloud->GetPoints());
    EXPECT(
      std::abs(total - prim) <= 1e-9 * prim, "%s: total %.17g, Prim %.17g", label, total, prim);
    EXPECT(FieldString(output, "EMSTBackend").rfind("CPU", 0) == 0, "%s: backend '%s'", label,
      FieldString(output, "EMSTBackend").c_str());
    std::printf("zero-copy %s: %lld points, total %.17g = Prim %.17g\n", label,
      static_cast<long long>(output->GetNumberOfPoints()), total, prim);
  }
}

void TestLatticeTies()
{
  // Every nearest distance is 1: the tree is any of very many, its length is n - 1 exactly. The
  // plane z = 7 runs in 2D, the cube in 3D.
  for (int depth : { 1, 6 })
  {
    vtkNew<vtkPoints> points;
    points->SetDataTypeToDouble();
    for (int x = 0; x < 13; ++x)
      for (int y = 0; y < 11; ++y)
        for (int z = 0; z < depth; ++z)
          points->InsertNextPoint(x, y, depth == 1 ? 7.0 : z);
    vtkNew<vtkPolyData> cloud;
    cloud->SetPoints(points);
    vtkNew<vtkEMSTEuclideanMinimumSpanningTree> filter;
    filter->SetInputData(cloud);
    filter->Update();
    const double total = CheckTree(filter->GetOutput(), "lattice");
    const double n = static_cast<double>(points->GetNumberOfPoints());
    EXPECT(total == n - 1, "lattice depth %d: total %.17g, expected %.17g", depth, total, n - 1);
    const std::string path = FieldString(filter->GetOutput(), "EMSTInput");
    EXPECT(path.find(depth == 1 ? "2D" : "3D") != std::string::npos, "lattice: EMSTInput '%s'",
      path.c_str());
    std::printf("lattice %dx%dx%d: total %.17g, %s\n", 13, 11, depth, total, path.c_str());
  }
}

void TestProgressAndCancel()
{
  auto cloud = RandomCloud(20000, VTK_FLOAT, 5);
  ProgressLog log;
  vtkNew<vtkCallbackCommand> progress;
  progress->SetCallback(OnProgress);
  progress->SetClientData(&log);
  vtkNew<vtkCallbackCommand> errors;
  errors->SetCallback(OnError);
  errors->SetClientData(&log);
  vtkNew<vtkEMSTEuclideanMinimumSpanningTree> filter;
  filter->AddObserver(vtkCommand::ProgressEvent, progress);
  filter->AddObserver(vtkCommand::ErrorEvent, errors);
  filter->SetInputData(cloud);
  filter->Update();
  CheckTree(filter->GetOutput(), "progress run");
  EXPECT(log.Values.size() >= 4, "only %zu progress events", log.Values.size());
  EXPECT(std::is_sorted(log.Values.begin(), log.Values.end()), "progress goes backwards");
  EXPECT(!log.Values.empty() && log.Values.back() == 1.0, "progress does not end at 1");
  std::printf("progress: %zu events:", log.Values.size());
  for (std::size_t k = 0; k < log.Values.size(); ++k)
  {
    std::printf(" %.2f '%s'", log.Values[k], log.Steps[k].c_str());
  }
  std::printf("\n");

  // Cancel before the engine starts, and in the middle of its Boruvka rounds: empty output, a
  // note, no error.
  for (int at : { 0, 8 })
  {
    log = ProgressLog();
    log.CancelAfter = at;
    filter->Modified();
    filter->Update();
    vtkPolyData* output = filter->GetOutput();
    EXPECT(output->GetNumberOfPoints() == 0 && output->GetNumberOfCells() == 0,
      "cancel at %d: output has %lld points", at,
      static_cast<long long>(output->GetNumberOfPoints()));
    EXPECT(log.Errors == 0, "cancel at %d: %d error events", at, log.Errors);
    // The earlier run's cancel is forgotten: this run goes on until its own cancel.
    EXPECT(static_cast<int>(log.Values.size()) > at,
      "cancel at %d: the run stopped after %zu progress events (an earlier cancel still set)", at,
      log.Values.size());
    std::printf(
      "cancel after progress event %d: empty output after %zu events\n", at, log.Values.size());
  }
  // And the next update runs in full, without clearing AbortExecute by hand (ParaView's Abort
  // button leaves it set too).
  log = ProgressLog();
  filter->Modified();
  filter->Update();
  CheckTree(filter->GetOutput(), "after cancel");

  // The same for MST Clusters: cancelled at its first progress event, then complete.
  vtkNew<vtkEMSTClusters> clusters;
  clusters->SetInputConnection(filter->GetOutputPort());
  clusters->SetThreshold(0.1);
  vtkNew<vtkCallbackCommand> cancel;
  cancel->SetCallback([](vtkObject* caller, unsigned long, void*, void*)
    { static_cast<vtkAlgorithm*>(caller)->SetAbortExecute(1); });
  const unsigned long observer = clusters->AddObserver(vtkCommand::ProgressEvent, cancel);
  clusters->Update();
  EXPECT(clusters->GetOutput()->GetNumberOfPoints() == 0, "cancelled cut: output not empty");
  clusters->RemoveObserver(observer);
  clusters->Modified();
  clusters->Update();
  EXPECT(clusters->GetOutput()->GetNumberOfPoints() == filter->GetOutput()->GetNumberOfPoints() &&
      clusters->GetOutput()->GetPointData()->GetArray("ClusterId") != nullptr,
    "the cut after a cancelled one: %lld points",
    static_cast<long long>(clusters->GetOutput()->GetNumberOfPoints()));
  std::printf("after a cancel, the next update of the tree and of the cut runs in full\n");
}

void TestErrorEvent()
{
  auto cloud = RandomCloud(500, VTK_FLOAT, 9);
  vtkNew<vtkEMSTEuclideanMinimumSpanningTree> probe;
  probe->SetInputData(cloud);
  probe->Update();
  const bool gpu = FieldString(probe->GetOutput(), "EMSTBackend").rfind("CUDA", 0) == 0;

  ProgressLog log;
  vtkNew<vtkCallbackCommand> errors;
  errors->SetCallback(OnError);
  errors->SetClientData(&log);
  vtkNew<vtkEMSTEuclideanMinimumSpanningTree> filter;
  filter->AddObserver(vtkCommand::ErrorEvent, errors);
  filter->SetInputData(cloud);
  filter->SetBackendToCUDA();
  filter->Update();
  vtkPolyData* output = filter->GetOutput();
  if (gpu)
  {
    CheckTree(output, "CUDA");
    EXPECT(log.Errors == 0, "CUDA: %d error events", log.Errors);
    std::printf("Backend CUDA: ran on %s\n", FieldString(output, "EMSTBackend").c_str());
  }
  else
  {
    EXPECT(log.Errors == 1, "Backend CUDA without a GPU: %d error events", log.Errors);
    EXPECT(output->GetNumberOfPoints() == 0 && output->GetNumberOfCells() == 0, "output not empty");
    EXPECT(HasMessage(output, "error: "), "no error in EMSTMessages");
    EXPECT(
      output->GetCellData()->GetArray("EdgeLength") != nullptr, "empty output lacks EdgeLength");
    std::printf("Backend CUDA without a GPU: ErrorEvent, empty output, '%s'\n",
      FieldString(output, "EMSTMessages", 0).c_str());
  }
}

/// Friends-of-friends groups by brute force: union of every pair at distance <= t (double).
std::vector<vtkIdType> BruteForceGroups(vtkPoints* points, double t)
{
  const vtkIdType n = points->GetNumberOfPoints();
  std::vector<vtkIdType> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&parent](vtkIdType x)
  {
    while (parent[x] != x)
    {
      x = parent[x] = parent[parent[x]];
    }
    return x;
  };
  double p[3], q[3];
  for (vtkIdType a = 0; a < n; ++a)
  {
    points->GetPoint(a, p);
    for (vtkIdType b = a + 1; b < n; ++b)
    {
      points->GetPoint(b, q);
      const double dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
      if (std::sqrt(dx * dx + dy * dy + dz * dz) <= t)
      {
        const vtkIdType ra = find(a), rb = find(b);
        parent[std::max(ra, rb)] = std::min(ra, rb);
      }
    }
  }
  for (vtkIdType a = 0; a < n; ++a)
  {
    parent[a] = find(a); // the group's smallest point
  }
  return parent;
}

/// Expected ClusterId of each point from group roots: ranks by decreasing size, ties by smallest
/// point, -1 below minimumSize.
std::vector<int> ExpectedIds(
  const std::vector<vtkIdType>& root, vtkIdType minimumSize, int& clusters)
{
  const vtkIdType n = static_cast<vtkIdType>(root.size());
  std::vector<vtkIdType> size(n, 0);
  for (vtkIdType r : root)
  {
    ++size[r];
  }
  std::vector<vtkIdType> roots;
  for (vtkIdType a = 0; a < n; ++a)
  {
    if (root[a] == a)
    {
      roots.push_back(a);
    }
  }
  std::stable_sort(
    roots.begin(), roots.end(), [&size](vtkIdType a, vtkIdType b) { return size[a] > size[b]; });
  std::vector<int> rank(n, -1);
  clusters = 0;
  for (vtkIdType r : roots)
  {
    if (size[r] >= minimumSize)
    {
      rank[r] = clusters++;
    }
  }
  std::vector<int> ids(n);
  for (vtkIdType a = 0; a < n; ++a)
  {
    ids[a] = rank[root[a]];
  }
  return ids;
}

void OnEnd(vtkObject*, unsigned long, void* clientData, void*)
{
  ++*static_cast<int*>(clientData);
}

void TestClusters()
{
  auto cloud = RandomCloud(1200, VTK_FLOAT, 5);
  vtkNew<vtkEMSTEuclideanMinimumSpanningTree> tree;
  tree->SetInputData(cloud);
  int treeRuns = 0;
  vtkNew<vtkCallbackCommand> onEnd;
  onEnd->SetCallback(OnEnd);
  onEnd->SetClientData(&treeRuns);
  tree->AddObserver(vtkCommand::EndEvent, onEnd);
  vtkNew<vtkEMSTClusters> clusters;
  clusters->SetInputConnection(tree->GetOutputPort());
  clusters->Update();
  const std::string treeBackend = FieldString(tree->GetOutput(), "EMSTBackend");
  const std::string cutBackend = FieldString(clusters->GetOutput(), "ClusterBackend");
  EXPECT(
    FieldString(clusters->GetOutput(), "ClusterBackend").substr(0, 3) == treeBackend.substr(0, 3),
    "the cut ran on '%s', the tree on '%s'",
    FieldString(clusters->GetOutput(), "ClusterBackend").c_str(), treeBackend.c_str());

  // Thresholds between distinct edge lengths (no tie with a pair distance), from few to all.
  auto* lengths =
    vtkDoubleArray::SafeDownCast(tree->GetOutput()->GetCellData()->GetArray("EdgeLength"));
  std::vector<double> sorted(
    lengths->GetPointer(0), lengths->GetPointer(0) + lengths->GetNumberOfValues());
  std::sort(sorted.begin(), sorted.end());
  const vtkIdType n = cloud->GetNumberOfPoints();
  for (double quantile : { 0.0, 0.3, 0.7, 0.95, 0.999 })
  {
    const std::size_t k = static_cast<std::size_t>(quantile * (sorted.size() - 1));
    const double t = 0.5 * (sorted[k] + sorted[k + 1]);
    for (vtkIdType minimumSize : { 1, 4 })
    {
      clusters->SetThreshold(t);
      clusters->SetMinimumClusterSize(minimumSize);
      clusters->Update();
      vtkPolyData* out = clusters->GetOutput();
      int expectedClusters = 0;
      const std::vector<vtkIdType> root = BruteForceGroups(cloud->GetPoints(), t);
      const std::vector<int> expected = ExpectedIds(root, minimumSize, expectedClusters);
      auto* ids = vtkIntArray::SafeDownCast(out->GetPointData()->GetArray("ClusterId"));
      auto* sizes = vtkIdTypeArray::SafeDownCast(out->GetPointData()->GetArray("ClusterSize"));
      EXPECT(ids && sizes && ids->GetNumberOfValues() == n, "t %g: no ClusterId/ClusterSize", t);
      if (!ids || !sizes)
      {
        return;
      }
      vtkIdType wrong = 0, wrongSize = 0;
      std::vector<vtkIdType> count(n, 0);
      for (vtkIdType a = 0; a < n; ++a)
      {
        ++count[root[a]];
      }
      for (vtkIdType a = 0; a < n; ++a)
      {
        wrong += ids->GetValue(a) != expected[a] ? 1 : 0;
        wrongSize += sizes->GetValue(a) != count[root[a]] ? 1 : 0;
      }
      EXPECT(wrong == 0 && wrongSize == 0,
        "t %g, min %lld: %lld ids and %lld sizes differ from brute force", t,
        static_cast<long long>(minimumSize), static_cast<long long>(wrong),
        static_cast<long long>(wrongSize));
      EXPECT(FieldDouble(out, "NumberOfClusters") == expectedClusters,
        "t %g: %g clusters, expected %d", t, FieldDouble(out, "NumberOfClusters"),
        expectedClusters);
      const vtkIdType keptEdges =
        static_cast<vtkIdType>(std::upper_bound(sorted.begin(), sorted.end(), t) - sorted.begin());
      EXPECT(out->GetNumberOfLines() == keptEdges, "t %g: %lld lines kept, expected %lld", t,
        static_cast<long long>(out->GetNumberOfLines()), static_cast<long long>(keptEdges));

      // The cluster table: sizes, centroids and bounds from the points.
      vtkTable* table = vtkTable::SafeDownCast(clusters->GetOutputDataObject(1));
      EXPECT(table && table->GetNumberOfRows() == expectedClusters, "t %g: table rows", t);
      if (table && table->GetNumberOfRows() > 0)
      {
        std::vector<double> sum(3, 0.0);
        vtkIdType members = 0;
        double p[3];
        for (vtkIdType a = 0; a < n; ++a)
        {
          if (ids->GetValue(a) == 0)
          {
            cloud->GetPoint(a, p);
            for (int d = 0; d < 3; ++d)
            {
              sum[d] += p[d];
            }
            ++members;
          }
        }
        vtkDataArray* centroid = vtkDataArray::SafeDownCast(table->GetColumnByName("Centroid"));
        vtkDataArray* size = vtkDataArray::SafeDownCast(table->GetColumnByName("Size"));
        EXPECT(centroid && size && size->GetTuple1(0) == members, "t %g: cluster 0 size", t);
        for (int d = 0; centroid && d < 3; ++d)
        {
          EXPECT(std::abs(centroid->GetComponent(0, d) - sum[d] / members) <=
              1e-9 * (1 + std::abs(sum[d] / members)),
            "t %g: centroid", t);
        }
      }
    }
  }

  // Number of clusters mode: exactly k groups.
  clusters->SetCutMode(vtkEMSTClusters::NUMBER_OF_CLUSTERS);
  clusters->SetNumberOfClusters(7);
  clusters->SetMinimumClusterSize(1);
  clusters->Update();
  EXPECT(FieldDouble(clusters->GetOutput(), "NumberOfClusters") == 7, "k mode: %g clusters",
    FieldDouble(clusters->GetOutput(), "NumberOfClusters"));
  EXPECT(clusters->GetOutput()->GetNumberOfLines() == n - 7, "k mode: %lld lines",
    static_cast<long long>(clusters->GetOutput()->GetNumberOfLines()));

  // Every threshold above re-ran the cut only: the tree ran once, and went to the engine once.
  EXPECT(treeRuns == 1, "the tree ran %d times", treeRuns);
  EXPECT(clusters->GetTreeUploads() == 1, "the tree went to the engine %d times",
    clusters->GetTreeUploads());

  // A new tree (new input) is handed over again.
  tree->SetBackendToCPU();
  clusters->Update();
  EXPECT(treeRuns == 2 && clusters->GetTreeUploads() == 2, "after a new tree: %d runs, %d uploads",
    treeRuns, clusters->GetTreeUploads());
  std::printf(
    "clusters: %lld points, tree on %s, cut on %s, brute-force FoF equal at 5 thresholds\n",
    static_cast<long long>(n), treeBackend.c_str(), cutBackend.c_str());

  // The hierarchy: n - 1 merges, heights in order, sizes adding up.
  vtkNew<vtkEMSTSingleLinkageHierarchy> hierarchy;
  hierarchy->SetInputConnection(tree->GetOutputPort());
  hierarchy->Update();
  vtkTable* z = hierarchy->GetOutput();
  EXPECT(z->GetNumberOfRows() == n - 1, "hierarchy: %lld rows",
    static_cast<long long>(z->GetNumberOfRows()));
  vtkDataArray* c1 = vtkDataArray::SafeDownCast(z->GetColumnByName("Cluster1"));
  vtkDataArray* c2 = vtkDataArray::SafeDownCast(z->GetColumnByName("Cluster2"));
  vtkDataArray* height = vtkDataArray::SafeDownCast(z->GetColumnByName("Height"));
  vtkDataArray* zsize = vtkDataArray::SafeDownCast(z->GetColumnByName("Size"));
  EXPECT(c1 && c2 && height && zsize, "hierarchy: missing columns");
  if (c1 && c2 && height && zsize && z->GetNumberOfRows() == n - 1)
  {
    std::vector<double> clusterSize(2 * n - 1, 1.0);
    int bad = 0;
    for (vtkIdType r = 0; r < n - 1; ++r)
    {
      const auto a = static_cast<vtkIdType>(c1->GetTuple1(r)),
                 b = static_cast<vtkIdType>(c2->GetTuple1(r));
      bad += !(a < b && b < n + r) ? 1 : 0;
      bad += height->GetTuple1(r) != sorted[r] ? 1 : 0;
      clusterSize[n + r] = clusterSize[a] + clusterSize[b];
      bad += zsize->GetTuple1(r) != clusterSize[n + r] ? 1 : 0;
    }
    EXPECT(bad == 0 && clusterSize[2 * n - 2] == n, "hierarchy: %d bad rows", bad);
  }
}

/// A copy of a tree output whose EMSTBackendId (-1: none) and EMSTBackend text say what is given.
vtkSmartPointer<vtkPolyData> WithOrigin(vtkPolyData* tree, int backendId, const char* text)
{
  auto copy = vtkSmartPointer<vtkPolyData>::New();
  copy->DeepCopy(tree);
  vtkFieldData* fd = copy->GetFieldData();
  fd->RemoveArray("EMSTBackendId");
  if (backendId >= 0)
  {
    vtkNew<vtkIntArray> id;
    id->SetName("EMSTBackendId");
    id->InsertNextValue(backendId);
    fd->AddArray(id);
  }
  vtkStringArray::SafeDownCast(fd->GetAbstractArray("EMSTBackend"))->SetValue(0, text);
  return copy;
}

/// MST Clusters' Backend. AUTO cuts where the tree ran, read from EMSTBackendId and never from
/// the EMSTBackend text; without the id, by the tree filter's rule (the GPU when usable). CPU and
/// CUDA are obeyed; EMST_BACKEND counts only under AUTO. Where no GPU is usable, the GPU rule
/// shows as the engine's note "the cut runs on the CPU", which a cut asked for the CPU never has.
void TestClustersBackend()
{
  using Tree = vtkEMSTEuclideanMinimumSpanningTree;
  auto cloud = RandomCloud(800, VTK_FLOAT, 17);
  vtkNew<Tree> tree;
  tree->SetInputData(cloud);
  tree->SetBackendToCPU();
  tree->Update();
  vtkNew<vtkPolyData> cpuTree;
  cpuTree->DeepCopy(tree->GetOutput());
  tree->SetBackendToAuto();
  tree->Update();
  vtkNew<vtkPolyData> autoTree;
  autoTree->DeepCopy(tree->GetOutput());
  const bool gpu = FieldString(autoTree, "EMSTBackend").rfind("CUDA", 0) == 0;
  EXPECT(FieldDouble(cpuTree, "EMSTBackendId") == Tree::CPU, "EMSTBackendId %g for Backend CPU",
    FieldDouble(cpuTree, "EMSTBackendId"));
  EXPECT(FieldDouble(autoTree, "EMSTBackendId") == (gpu ? Tree::CUDA : Tree::CPU),
    "EMSTBackendId %g for a tree on '%s'", FieldDouble(autoTree, "EMSTBackendId"),
    FieldString(autoTree, "EMSTBackend").c_str());

  // The reference: brute-force friends-of-friends between two edge lengths near the median.
  auto* lengths = vtkDoubleArray::SafeDownCast(cpuTree->GetCellData()->GetArray("EdgeLength"));
  std::vector<double> sorted(
    lengths->GetPointer(0), lengths->GetPointer(0) + lengths->GetNumberOfValues());
  std::sort(sorted.begin(), sorted.end());
  const double t = 0.5 * (sorted[sorted.size() / 2] + sorted[sorted.size() / 2 + 1]);
  int expectedClusters = 0;
  const std::vector<int> expected =
    ExpectedIds(BruteForceGroups(cloud->GetPoints(), t), 1, expectedClusters);

  enum class Expect
  {
    Cpu,     ///< asked for the CPU
    GpuRule, ///< the GPU when usable
    Cuda     ///< asked for the GPU: an error without one
  };
  auto check = [&](vtkEMSTClusters* clusters, Expect expect, const char* label)
  {
    ProgressLog log;
    vtkNew<vtkCallbackCommand> errors;
    errors->SetCallback(OnError);
    errors->SetClientData(&log);
    const unsigned long tag = clusters->AddObserver(vtkCommand::ErrorEvent, errors);
    clusters->SetThreshold(t);
    clusters->Update();
    clusters->RemoveObserver(tag);
    vtkPolyData* out = clusters->GetOutput();
    const std::string ran = FieldString(out, "ClusterBackend");
    const bool fellBack = HasMessage(out, "the cut runs on the CPU", "ClusterMessages");
    if (expect == Expect::Cuda && !gpu)
    {
      EXPECT(ran == "none (error)" && log.Errors == 1 && out->GetNumberOfPoints() == 0 &&
          out->GetPointData()->GetArray("ClusterId") != nullptr &&
          HasMessage(out, "error: ", "ClusterMessages"),
        "%s: without a GPU, '%s', %d error events, %lld points", label, ran.c_str(), log.Errors,
        static_cast<long long>(out->GetNumberOfPoints()));
      std::printf("clusters backend, %s: error without a GPU, empty output\n", label);
      return;
    }
    const bool onCpu = ran.rfind("CPU", 0) == 0, onCuda = ran.rfind("CUDA", 0) == 0;
    switch (expect)
    {
      case Expect::Cpu:
        EXPECT(onCpu && !fellBack, "%s: ran on '%s'%s, expected the CPU as asked", label,
          ran.c_str(), fellBack ? " after a fall-back" : "");
        break;
      case Expect::GpuRule:
        EXPECT(gpu ? onCuda : (onCpu && fellBack), "%s: ran on '%s'%s, expected the GPU rule",
          label, ran.c_str(), fellBack ? " after a fall-back" : "");
        break;
      case Expect::Cuda:
        EXPECT(onCuda, "%s: ran on '%s', expected CUDA", label, ran.c_str());
        break;
    }
    auto* ids = vtkIntArray::SafeDownCast(out->GetPointData()->GetArray("ClusterId"));
    vtkIdType wrong = ids == nullptr ? -1 : 0;
    for (vtkIdType a = 0; ids != nullptr && a < ids->GetNumberOfValues(); ++a)
    {
      wrong += ids->GetValue(a) != expected[a] ? 1 : 0;
    }
    EXPECT(wrong == 0 && ids->GetNumberOfValues() == cloud->GetNumberOfPoints(),
      "%s: %lld ClusterIds differ from brute force", label, static_cast<long long>(wrong));
    std::printf("clusters backend, %s: ran on '%s'%s, %d clusters as brute force\n", label,
      ran.c_str(), fellBack ? " (no usable GPU)" : "", expectedClusters);
  };
  auto run = [&](vtkPolyData* input, int backend, Expect expect, const char* label)
  {
    vtkNew<vtkEMSTClusters> clusters;
    clusters->SetInputData(input);
    clusters->SetBackend(backend);
    check(clusters, expect, label);
  };

  run(cpuTree, vtkEMSTClusters::AUTO, Expect::Cpu, "AUTO, tree on the CPU");
  run(autoTree, vtkEMSTClusters::AUTO, gpu ? Expect::GpuRule : Expect::Cpu, "AUTO, tree AUTO");
  run(WithOrigin(cpuTree, Tree::CPU, "CUDA (text not read)"), vtkEMSTClusters::AUTO, Expect::Cpu,
    "AUTO, id CPU, text CUDA");
  run(WithOrigin(cpuTree, Tree::CUDA, "CPU (text not read)"), vtkEMSTClusters::AUTO,
    Expect::GpuRule, "AUTO, id CUDA, text CPU");
  run(WithOrigin(cpuTree, -1, "CPU (text not read)"), vtkEMSTClusters::AUTO, Expect::GpuRule,
    "AUTO, no EMSTBackendId");
  run(autoTree, vtkEMSTClusters::CPU, Expect::Cpu, "CPU");
  run(cpuTree, vtkEMSTClusters::CUDA, Expect::Cuda, "CUDA");

  // EMST_BACKEND decides under AUTO, over the tree's origin, and never over CPU or CUDA.
  setenv("EMST_BACKEND", "cuda", 1);
  run(cpuTree, vtkEMSTClusters::AUTO, Expect::Cuda, "EMST_BACKEND=cuda, AUTO, tree on the CPU");
  run(cpuTree, vtkEMSTClusters::CPU, Expect::Cpu, "EMST_BACKEND=cuda, CPU");
  setenv("EMST_BACKEND", "cpu", 1);
  run(WithOrigin(cpuTree, Tree::CUDA, "CUDA"), vtkEMSTClusters::AUTO, Expect::Cpu,
    "EMST_BACKEND=cpu, AUTO, tree on CUDA");
  unsetenv("EMST_BACKEND");

  // One filter switched from CUDA to CPU: the new backend gets the tree, the cut is complete.
  vtkNew<vtkEMSTClusters> clusters;
  clusters->SetInputData(cpuTree);
  clusters->SetBackendToCUDA();
  check(clusters, Expect::Cuda, "one filter, CUDA");
  clusters->SetBackendToCPU();
  check(clusters, Expect::Cpu, "the same filter, then CPU");
}

/// Data sets with no vtkPoints object at all (what an empty reader or filter result can be):
/// every filter gives a valid empty output, never a crash.
/// The 8 corners of a cube of side `side`, in double.
vtkSmartPointer<vtkPolyData> Cube(double side)
{
  vtkNew<vtkPoints> points;
  points->SetDataTypeToDouble();
  for (int k = 0; k < 8; ++k)
  {
    points->InsertNextPoint((k & 1) * side, ((k >> 1) & 1) * side, ((k >> 2) & 1) * side);
  }
  auto cloud = vtkSmartPointer<vtkPolyData>::New();
  cloud->SetPoints(points);
  return cloud;
}

void TestExtremeLengths()
{
  // Double coordinates 0, 1e200, 3e200: squares of the differences overflow, yet the lengths are
  // 1e200 and 2e200 exactly and the total finite (it was inf and NaN).
  vtkNew<vtkPoints> line;
  line->SetDataTypeToDouble();
  for (double x : { 0.0, 1e200, 3e200 })
  {
    line->InsertNextPoint(x, 0.0, 0.0);
  }
  vtkNew<vtkPolyData> onLine;
  onLine->SetPoints(line);
  vtkNew<vtkEMSTEuclideanMinimumSpanningTree> tree;
  tree->SetBackendToCPU();
  tree->SetInputData(onLine);
  tree->Update();
  auto* length =
    vtkDoubleArray::SafeDownCast(tree->GetOutput()->GetCellData()->GetArray("EdgeLength"));
  EXPECT(length != nullptr && length->GetNumberOfValues() == 2 && length->GetValue(0) == 1e200 &&
      length->GetValue(1) == 3e200 - 1e200,
    "line at 1e200: EdgeLength %.17g, %.17g", length ? length->GetValue(0) : 0.0,
    length && length->GetNumberOfValues() > 1 ? length->GetValue(1) : 0.0);
  EXPECT(FieldDouble(tree->GetOutput(), "TotalLength") == 1e200 + (3e200 - 1e200),
    "line at 1e200: TotalLength %.17g", FieldDouble(tree->GetOutput(), "TotalLength"));

  // Cubes of side 1e200 and 1e-200: the tree's 7 edges have the side's length; MST Clusters with
  // the lengths computed from the points (no EdgeLength array) gives them the same lengths, and the
  // Linking Length mode's spacing (V/n)^(1/3) = side/2 neither overflows nor underflows.
  for (double side : { 1e200, 1e-200 })
  {
    tree->SetInputData(Cube(side));
    tree->Update();
    vtkNew<vtkPolyData> bare; // the tree's lines without their EdgeLength array
    bare->SetPoints(tree->GetOutput()->GetPoints());
    bare->SetLines(tree->GetOutput()->GetLines());
    EXPECT(CheckTree(tree->GetOutput(), "cube") > 0.0, "cube of side %g: no tree", side);
    vtkNew<vtkEMSTClusters> clusters;
    clusters->SetInputData(bare);
    clusters->SetBackendToCPU();
    clusters->SetCutMode(vtkEMSTClusters::LINKING_LENGTH);
    for (double b : { 1.5, 3.0 }) // threshold 0.75 side (no edge kept), 1.5 side (all kept)
    {
      clusters->SetLinkingLength(b);
      clusters->Update();
      vtkPolyData* out = clusters->GetOutput();
      const double threshold = FieldDouble(out, "ClusterThreshold");
      EXPECT(std::abs(threshold - 0.5 * b * side) <= 1e-14 * 0.5 * b * side,
        "cube of side %g, b %g: ClusterThreshold %.17g, expected %.17g", side, b, threshold,
        0.5 * b * side);
      EXPECT(FieldDouble(out, "NumberOfClusters") == (b < 2.0 ? 8 : 1),
        "cube of side %g, b %g: %g clusters", side, b, FieldDouble(out, "NumberOfClusters"));
      auto* kept = vtkDoubleArray::SafeDownCast(out->GetCellData()->GetArray("EdgeLength"));
      for (vtkIdType e = 0; kept != nullptr && e < kept->GetNumberOfValues(); ++e)
      {
        EXPECT(kept->GetValue(e) == side, "cube of side %g: computed length %.17g", side,
          kept->GetValue(e));
      }
    }
  }
  std::printf("extreme lengths: a line at 1e200, cubes of side 1e200 and 1e-200\n");
}

/// Every out-of-range cluster property is used clamped or replaced, and ClusterMessages says so.
void TestClusterMessages()
{
  auto cloud = RandomCloud(300, VTK_FLOAT, 11);
  vtkNew<vtkEMSTEuclideanMinimumSpanningTree> tree;
  tree->SetInputData(cloud);
  tree->SetBackendToCPU();
  tree->Update();
  auto* lengths =
    vtkDoubleArray::SafeDownCast(tree->GetOutput()->GetCellData()->GetArray("EdgeLength"));
  const double middle = 0.5 *
    (*std::min_element(lengths->GetPointer(0), lengths->GetPointer(0) + 299) +
      *std::max_element(lengths->GetPointer(0), lengths->GetPointer(0) + 299));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  struct Case
  {
    const char* Label;
    int Mode;
    double Threshold, LinkingLength;
    vtkIdType Clusters, MinimumSize;
    const char* Note;         ///< a part of the expected ClusterMessages line; null: none expected
    double ExpectedThreshold; ///< NaN: not checked
    double ExpectedClusters;  ///< -1: not checked
  };
  const Case cases[] = {
    { "Threshold -5", vtkEMSTClusters::THRESHOLD, -5, 0.2, 10, 1, "is negative: not set", middle,
      -1 },
    { "Threshold NaN", vtkEMSTClusters::THRESHOLD, nan, 0.2, 10, 1, "Threshold is NaN", middle,
      -1 },
    { "Threshold 0", vtkEMSTClusters::THRESHOLD, 0, 0.2, 10, 1, nullptr, 0.0, 300 },
    { "LinkingLength -1", vtkEMSTClusters::LINKING_LENGTH, 0, -1, 10, 1, "b = 0 is used", 0.0,
      300 },
    { "LinkingLength NaN", vtkEMSTClusters::LINKING_LENGTH, 0, nan, 10, 1, "b = 0.2 is used", nan,
      -1 },
    { "NumberOfClusters 0", vtkEMSTClusters::NUMBER_OF_CLUSTERS, 0, 0.2, 0, 1, "below 1: 1 is used",
      nan, 1 },
    { "NumberOfClusters 305", vtkEMSTClusters::NUMBER_OF_CLUSTERS, 0, 0.2, 305, 1,
      "exceeds the 300 points", nan, 300 },
    { "MinimumClusterSize 0", vtkEMSTClusters::THRESHOLD, 0, 0.2, 10, 0, "below 1: 1 is used", 0.0,
      300 },
    { "MinimumClusterSize 301", vtkEMSTClusters::THRESHOLD, middle, 0.2, 10, 301,
      "every point is noise", middle, 0 },
    { "all in range", vtkEMSTClusters::NUMBER_OF_CLUSTERS, 0, 0.2, 7, 2, nullptr, nan, -1 },
  };
  vtkNew<vtkEMSTClusters> clusters;
  clusters->SetInputConnection(tree->GetOutputPort());
  for (const Case& c : cases)
  {
    clusters->SetCutMode(c.Mode);
    clusters->SetThreshold(c.Threshold);
    clusters->SetLinkingLength(c.LinkingLength);
    clusters->SetNumberOfClusters(c.Clusters);
    clusters->SetMinimumClusterSize(c.MinimumSize);
    clusters->Update();
    vtkPolyData* out = clusters->GetOutput();
    auto* notes =
      vtkStringArray::SafeDownCast(out->GetFieldData()->GetAbstractArray("ClusterMessages"));
    std::string all;
    for (vtkIdType k = 0; notes != nullptr && k < notes->GetNumberOfValues(); ++k)
    {
      all += notes->GetValue(k) + " | ";
    }
    const bool clampNote = all.find(" is used") != std::string::npos ||
      all.find("not set") != std::string::npos || all.find("exceeds") != std::string::npos ||
      all.find("is NaN") != std::string::npos;
    EXPECT(c.Note != nullptr ? all.find(c.Note) != std::string::npos : !clampNote,
      "%s: ClusterMessages '%s'", c.Label, all.c_str());
    EXPECT(std::isnan(c.ExpectedThreshold) ||
        FieldDouble(out, "ClusterThreshold") == c.ExpectedThreshold,
      "%s: ClusterThreshold %.17g, expected %.17g", c.Label, FieldDouble(out, "ClusterThreshold"),
      c.ExpectedThreshold);
    EXPECT(c.ExpectedClusters < 0 || FieldDouble(out, "NumberOfClusters") == c.ExpectedClusters,
      "%s: %g clusters, expected %g", c.Label, FieldDouble(out, "NumberOfClusters"),
      c.ExpectedClusters);
    std::printf("%s: %s\n", c.Label, all.empty() ? "(no note)" : all.c_str());
  }
}

void TestNoPointsObject()
{
  vtkNew<vtkPolyData> nothing;
  vtkNew<vtkEMSTEuclideanMinimumSpanningTree> tree;
  tree->SetInputData(nothing);
  tree->SetBackendToCPU();
  tree->Update();
  EXPECT(tree->GetOutput()->GetNumberOfPoints() == 0 && tree->GetOutput()->GetNumberOfLines() == 0,
    "tree of a data set without points");
  EXPECT(FieldDouble(tree->GetOutput(), "TotalLength") == 0.0, "tree of nothing: TotalLength");
  vtkNew<vtkEMSTClusters> clusters;
  clusters->SetInputData(nothing);
  clusters->Update();
  EXPECT(clusters->GetOutput()->GetNumberOfPoints() == 0 &&
      FieldDouble(clusters->GetOutput(), "NumberOfClusters") == 0,
    "clusters of a data set without points");
  vtkNew<vtkEMSTSingleLinkageHierarchy> hierarchy;
  hierarchy->SetInputData(nothing);
  hierarchy->Update();
  EXPECT(hierarchy->GetOutput()->GetNumberOfRows() == 0 &&
      hierarchy->GetOutput()->GetNumberOfColumns() == 4,
    "hierarchy of a data set without points");
  std::printf("no points object: empty outputs from the three filters\n");
}

} // namespace

int main()
{
  TestZeroCopyAndPrim();
  TestLatticeTies();
  TestProgressAndCancel();
  TestErrorEvent();
  TestClusters();
  TestClustersBackend();
  TestNoPointsObject();
  TestExtremeLengths();
  TestClusterMessages();
  std::printf("%s: %d failure(s)\n", filtertesting::Failures == 0 ? "PASSED" : "FAILED",
    filtertesting::Failures);
  return filtertesting::Failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
