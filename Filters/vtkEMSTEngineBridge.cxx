// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
#include "vtkEMSTEngineBridge.h"

#include "vtkEMSTArrays.h"
#include "vtkEMSTParallel.h"

#include "emst/Clusters.h"
#include "emst/Distributed.h"
#include "emst/Emst.h"
#include "emst/Hdbscan.h"

#include "vtkAOSDataArrayTemplate.h"
#include "vtkArrayDispatch.h"
#include "vtkCellArray.h"
#include "vtkCellArrayIterator.h"
#include "vtkDataArrayRange.h"
#include "vtkDataSet.h"
#include "vtkDataSetAttributes.h"
#include "vtkDoubleArray.h"
#include "vtkIdTypeArray.h"
#include "vtkIntArray.h"
#include "vtkMultiProcessController.h"
#include "vtkPointData.h"
#include "vtkPoints.h"
#include "vtkPolyData.h"
#include "vtkUnsignedCharArray.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <numeric>
#include <sstream>
#include <unordered_map>

namespace vtkEMSTEngineBridge
{
namespace
{

// Share of the progress bar given to each stage; the engine gets the bulk.
constexpr double GatherShare = 0.05;
constexpr double EngineShare = 0.90;

/// The cloud as the engine will see it: a borrowed pointer into a VTK array (zero-copy) or a
/// buffer owned here.
struct Cloud
{
  emst::PointCloudView View;
  std::vector<float> OwnedFloat;   ///< 3 per tree point, when copied as float32
  std::vector<double> OwnedDouble; ///< 3 per tree point, when copied as float64
  /// Output point id of each tree point (size View.count) when ghost points were left out; empty
  /// when tree point k is output point k (blocks appended in order, nothing left out).
  std::vector<vtkIdType> OutputIdOfTreePoint;
  bool Copied = false;
};

/// The x, y, z values of a points array stored as one contiguous T[3*n], or null.
template <typename T>
const T* ContiguousXYZ(vtkDataArray* array)
{
  auto* aos = vtkAOSDataArrayTemplate<T>::FastDownCast(array);
  if (aos == nullptr || aos->GetNumberOfComponents() != 3)
  {
    return nullptr;
  }
  return aos->GetPointer(0);
}

bool IsLeftOut(vtkUnsignedCharArray* ghosts, vtkIdType k, unsigned char mask)
{
  return ghosts != nullptr && (ghosts->GetValue(k) & mask) != 0;
}

/// Appends the kept points of one block to an owned xyz buffer (any VTK array type: dispatched
/// to the array's own value type, or read through the generic vtkDataArray API), and their output
/// ids to OutputIds when it is given.
template <typename OutT>
struct AppendKeptPoints
{
  std::vector<OutT>* Out = nullptr;
  std::vector<vtkIdType>* OutputIds = nullptr;
  vtkUnsignedCharArray* Ghosts = nullptr;
  unsigned char Mask = 0;
  vtkIdType FirstOutputId = 0;

  template <typename ArrayT>
  void operator()(ArrayT* array)
  {
    const auto tuples = vtk::DataArrayTupleRange<3>(array);
    vtkIdType k = 0;
    for (const auto tuple : tuples)
    {
      if (!IsLeftOut(this->Ghosts, k, this->Mask))
      {
        this->Out->push_back(static_cast<OutT>(tuple[0]));
        this->Out->push_back(static_cast<OutT>(tuple[1]));
        this->Out->push_back(static_cast<OutT>(tuple[2]));
        if (this->OutputIds != nullptr)
        {
          this->OutputIds->push_back(this->FirstOutputId + k);
        }
      }
      ++k;
    }
  }
};

template <typename OutT>
void CopyKeptPoints(const Request& request, std::vector<OutT>& out, std::vector<vtkIdType>* ids)
{
  vtkIdType firstOutputId = 0;
  for (const PointBlock& block : request.Blocks)
  {
    AppendKeptPoints<OutT> worker;
    worker.Out = &out;
    worker.OutputIds = ids;
    worker.Ghosts = block.Ghosts;
    worker.Mask = request.GhostMask;
    worker.FirstOutputId = firstOutputId;
    vtkDataArray* array = block.Points->GetData();
    if (!vtkArrayDispatch::DispatchByValueType<vtkArrayDispatch::Reals>::Execute(array, worker))
    {
      worker(array);
    }
    firstOutputId += block.Points->GetNumberOfPoints();
  }
}

/// True when every point has the same finite z: the tree of (x, y) is then the tree of
/// (x, y, z), edge for edge, and the engine runs in 2D (reading x, y with stride 3). A NaN z
/// anywhere compares unequal and keeps 3D, so a point with only a bad z is still left out.
template <typename T>
bool IsPlanar(const T* xyz, std::size_t count, double* z)
{
  if (count == 0 || !std::isfinite(static_cast<double>(xyz[2])))
  {
    return false;
  }
  const T z0 = xyz[2];
  for (std::size_t k = 1; k < count; ++k)
  {
    if (!(xyz[3 * k + 2] == z0))
    {
      return false;
    }
  }
  *z = static_cast<double>(z0);
  return true;
}

emst::Backend ToEngineBackend(int backend)
{
  switch (backend)
  {
    case 1:
      return emst::Backend::Cuda;
    case 2:
      return emst::Backend::Cpu;
    default:
      return emst::Backend::Auto;
  }
}

int FromEngineBackend(emst::Backend backend)
{
  return backend == emst::Backend::Cuda ? 1 : backend == emst::Backend::Cpu ? 2 : 0;
}

const char* ErrorCodeName(emst::ErrorCode code)
{
  switch (code)
  {
    case emst::ErrorCode::InvalidInput:
      return "invalid input";
    case emst::ErrorCode::OutOfMemory:
      return "out of memory";
    case emst::ErrorCode::DeviceUnavailable:
      return "CUDA device unavailable";
    case emst::ErrorCode::DeviceError:
      return "CUDA device error";
    case emst::ErrorCode::Cancelled:
      return "cancelled";
    case emst::ErrorCode::Internal:
      return "internal error";
  }
  return "error";
}

std::string DescribeBackend(const emst::Stats& stats)
{
  if (stats.backend == emst::Backend::Cuda)
  {
    return "CUDA (" + stats.deviceName + ")";
  }
  if (stats.deviceName.compare(0, 3, "CPU") == 0)
  {
    return stats.deviceName;
  }
  return "CPU (" + stats.deviceName + ")";
}

/// Builds the engine's view of the request: the input array itself when it can be read in place,
/// else a compact copy of the kept points.
void PrepareCloud(const Request& request, Cloud& cloud, Result& result)
{
  vtkIdType totalPoints = 0;
  vtkIdType ghostPoints = 0;
  bool allFloat = true;
  for (const PointBlock& block : request.Blocks)
  {
    const vtkIdType n = block.Points->GetNumberOfPoints();
    totalPoints += n;
    if (block.Ghosts != nullptr && request.GhostMask != 0)
    {
      const unsigned char* flags = block.Ghosts->GetPointer(0);
      for (vtkIdType k = 0; k < n; ++k)
      {
        ghostPoints += (flags[k] & request.GhostMask) != 0 ? 1 : 0;
      }
    }
    allFloat = allFloat && block.Points->GetDataType() == VTK_FLOAT;
  }
  result.GhostPoints = ghostPoints;

  // Zero-copy: one block, nothing to leave out, float or double xyz in one array.
  if (request.Blocks.size() == 1 && ghostPoints == 0)
  {
    vtkDataArray* array = request.Blocks[0].Points->GetData();
    if (const float* xyz = ContiguousXYZ<float>(array))
    {
      cloud.View.data = xyz;
      cloud.View.scalarType = emst::ScalarType::Float32;
    }
    else if (const double* xyz64 = ContiguousXYZ<double>(array))
    {
      cloud.View.data = xyz64;
      cloud.View.scalarType = emst::ScalarType::Float64;
    }
    cloud.View.count = static_cast<std::size_t>(totalPoints);
  }

  if (cloud.View.data == nullptr)
  {
    // Float input stays float (half the memory); anything else, or a mix, becomes double, which
    // holds every float and every 32-bit integer exactly.
    cloud.Copied = true;
    const std::size_t kept = static_cast<std::size_t>(totalPoints - ghostPoints);
    // Without ghosts the kept points are all points, in output order: no id map needed.
    std::vector<vtkIdType>* ids = ghostPoints > 0 ? &cloud.OutputIdOfTreePoint : nullptr;
    if (ids != nullptr)
    {
      ids->reserve(kept);
    }
    if (allFloat)
    {
      cloud.OwnedFloat.reserve(3 * kept);
      CopyKeptPoints(request, cloud.OwnedFloat, ids);
      cloud.View.data = cloud.OwnedFloat.data();
      cloud.View.scalarType = emst::ScalarType::Float32;
    }
    else
    {
      cloud.OwnedDouble.reserve(3 * kept);
      CopyKeptPoints(request, cloud.OwnedDouble, ids);
      cloud.View.data = cloud.OwnedDouble.data();
      cloud.View.scalarType = emst::ScalarType::Float64;
    }
    cloud.View.count = kept;
  }

  double z = 0.0;
  const bool planar = cloud.View.scalarType == emst::ScalarType::Float32
    ? IsPlanar(static_cast<const float*>(cloud.View.data), cloud.View.count, &z)
    : IsPlanar(static_cast<const double*>(cloud.View.data), cloud.View.count, &z);
  cloud.View.dimension = planar ? 2 : 3;
  cloud.View.stride = 3;
  cloud.View.memory = emst::MemorySpace::Host;

  std::ostringstream path;
  path << (cloud.Copied ? "copied " : "zero-copy ")
       << (cloud.View.scalarType == emst::ScalarType::Float32 ? "float32 " : "float64 ")
       << (planar ? "2D" : "3D");
  if (planar)
  {
    path << " (all z = " << z << ")";
  }
  if (ghostPoints > 0)
  {
    path << ", " << ghostPoints << " ghost points left out";
  }
  result.InputPath = path.str();
}

/// Engine edges -> VTK lines (offsets 0, 2, 4, ...) and their lengths, in list order. With
/// `outputIds`, engine point k is output point (*outputIds)[k].
void MakeLines(const emst::Edge* edges, vtkIdType count, const std::vector<vtkIdType>* outputIds,
  vtkCellArray* lines, vtkDoubleArray* lengths)
{
  auto offsets = vtkSmartPointer<vtkIdTypeArray>::New();
  offsets->SetNumberOfValues(count + 1);
  auto connectivity = vtkSmartPointer<vtkIdTypeArray>::New();
  connectivity->SetNumberOfValues(2 * count);
  lengths->SetNumberOfValues(count);
  vtkIdType* offset = offsets->GetPointer(0);
  vtkIdType* ends = connectivity->GetPointer(0);
  double* length = lengths->GetPointer(0);
  for (vtkIdType e = 0; e < count; ++e)
  {
    const emst::Edge& edge = edges[e];
    offset[e] = 2 * e;
    ends[2 * e] = outputIds ? (*outputIds)[edge.i] : static_cast<vtkIdType>(edge.i);
    ends[2 * e + 1] = outputIds ? (*outputIds)[edge.j] : static_cast<vtkIdType>(edge.j);
    length[e] = edge.length;
  }
  offset[count] = 2 * count;
  lines->SetData(offsets, connectivity);
}

/// What Auto means on this machine. Without a usable GPU it is the CPU, chosen here rather than
/// by the engine so that the note saying so is known: the filters record it at every run (the
/// messages arrays) but warn with it once per process, since every warning opens ParaView's
/// Output Messages window and a CPU-only user would see it at every run.
struct BackendChoice
{
  int Backend = 0;   ///< 0 auto, 1 CUDA, 2 CPU: what to ask the engine for
  std::string Note;  ///< why Auto runs on the CPU; empty otherwise
  bool Warn = false; ///< the first such note of the process
};

BackendChoice ChooseBackend(int backend, const std::string& before, const std::string& after)
{
  BackendChoice choice;
  choice.Backend = backend;
  std::string reason;
  if (backend != 0 || emst::cudaDeviceAvailable(&reason))
  {
    return choice;
  }
  static std::atomic<bool> warned{ false };
  choice.Backend = 2;
  choice.Note = before + reason + after;
  choice.Warn = !warned.exchange(true);
  return choice;
}

/// Runs f(), turning every exception into a Status (emst::Error codes named, Cancelled kept).
template <class F>
Status Guarded(F&& f)
{
  Status status;
  try
  {
    f();
  }
  catch (const emst::Error& error)
  {
    if (error.code() == emst::ErrorCode::Cancelled)
    {
      status.Code = Status::Cancelled;
    }
    else
    {
      status.Code = Status::Failed;
      status.ErrorMessage =
        std::string("EMST engine: ") + ErrorCodeName(error.code()) + ": " + error.what();
    }
  }
  catch (const std::bad_alloc&)
  {
    status.Code = Status::Failed;
    status.ErrorMessage = "EMST engine: out of memory";
  }
  catch (const std::exception& error)
  {
    status.Code = Status::Failed;
    status.ErrorMessage = std::string("EMST engine: ") + error.what();
  }
  return status;
}

} // namespace

unsigned char LeftOutGhostBits()
{
  return vtkDataSetAttributes::DUPLICATEPOINT | vtkDataSetAttributes::HIDDENPOINT;
}

vtkUnsignedCharArray* PointGhosts(vtkDataSet* data)
{
  auto* ghosts = vtkUnsignedCharArray::SafeDownCast(
    data->GetPointData()->GetArray(vtkDataSetAttributes::GhostArrayName()));
  if (ghosts == nullptr || ghosts->GetNumberOfComponents() != 1 ||
    ghosts->GetNumberOfTuples() != data->GetNumberOfPoints())
  {
    return nullptr;
  }
  return ghosts;
}

int ResolveBackend(int property, std::string& warning)
{
  const char* env = std::getenv("EMST_BACKEND");
  if (property != 0 || env == nullptr || *env == '\0')
  {
    return property;
  }
  try
  {
    return FromEngineBackend(emst::parseBackend(env));
  }
  catch (const emst::Error&)
  {
    warning = "EMST_BACKEND='" + std::string(env) +
      "' is not one of auto, cuda, gpu, cpu: ignored, the Auto backend is used.";
    return property;
  }
}

namespace
{

/// What ComputeTree and HdbscanTree::Create share: the cloud prepared (into `cloud`), the
/// engine's run through `engine(view, options)`, which returns the emst::Result of its tree, and
/// `result` filled with the lines and the run's description. Never throws.
template <class Engine>
void RunTree(
  const Request& request, const char* lengthName, Cloud& cloud, Result& result, Engine engine)
{
  result.Lines = vtkSmartPointer<vtkCellArray>::New();
  result.EdgeLength = vtkEMSTArrays::Named<vtkDoubleArray>(lengthName);

  auto report = [&request](double fraction, const char* step)
  { return !request.Progress || request.Progress(fraction, step); };

  // A cancel between the engine's steps is reported as the engine reports its own.
  const auto cancelled = [] { return emst::Error(emst::ErrorCode::Cancelled, "cancelled"); };
  result.Outcome = Guarded(
    [&]
    {
      if (!report(0.0, "Preparing points"))
      {
        throw cancelled();
      }
      PrepareCloud(request, cloud, result);
      if (request.Box.IsPeriodic())
      {
        result.InputPath += ", periodic box " + request.Box.Describe();
      }

      if (cloud.View.count == 0)
      {
        // Nothing to connect; the engine wants a non-null pointer, so it is not called.
        result.BackendDescription = "none (no points)";
        return;
      }

      const BackendChoice choice =
        ChooseBackend(request.Backend, "no usable CUDA device (", "); ran on the CPU");
      if (!choice.Note.empty())
      {
        (choice.Warn ? result.Messages : result.Notes).push_back(choice.Note);
      }
      emst::Options options;
      options.backend = ToEngineBackend(choice.Backend);
      for (int a = 0; a < 3; ++a)
      {
        options.box.origin[a] = request.Box.Origin[a];
        options.box.size[a] = request.Box.Size[a];
      }
      options.progress = [&report](double fraction, const char* step)
      { return report(GatherShare + EngineShare * fraction, step); };
      const emst::Result& tree = engine(cloud.View, options);

      if (!report(GatherShare + EngineShare, "Building lines"))
      {
        throw cancelled();
      }

      MakeLines(tree.edges.data(), static_cast<vtkIdType>(tree.edges.size()),
        cloud.OutputIdOfTreePoint.empty() ? nullptr : &cloud.OutputIdOfTreePoint, result.Lines,
        result.EdgeLength);

      result.TotalLength = tree.totalWeight;
      result.BackendDescription = DescribeBackend(tree.stats);
      result.BackendId = FromEngineBackend(tree.stats.backend);
      result.ComputeMilliseconds = tree.stats.computeMilliseconds;
      result.PointsInTree = static_cast<vtkIdType>(tree.stats.validPoints);
      result.Messages.insert(result.Messages.end(), tree.messages.begin(), tree.messages.end());
      report(1.0, "Done");
    });
  if (result.Outcome.Code != Status::Ok)
  {
    result.Lines->Initialize();
    result.EdgeLength->Initialize();
    result.TotalLength = 0.0;
  }
}

} // namespace

Result ComputeTree(const Request& request)
{
  Result result;
  Cloud cloud;
  emst::Result tree;
  RunTree(request, "EdgeLength", cloud, result,
    [&tree](const emst::PointCloudView& view, const emst::Options& options) -> const emst::Result&
    {
      tree = emst::computeEmst(view, options);
      return tree;
    });
  return result;
}

//------------------------------------------------------------------------------
struct HdbscanTree::Internals
{
  vtkIdType OutputPoints = 0;
  std::vector<vtkIdType> OutputIdOfTreePoint; ///< empty: tree point k is output point k
  emst::MutualReachabilityTree Tree;

  vtkIdType OutputId(std::size_t k) const
  {
    return this->OutputIdOfTreePoint.empty() ? static_cast<vtkIdType>(k)
                                             : this->OutputIdOfTreePoint[k];
  }
};

HdbscanTree::HdbscanTree()
  : Data(new Internals)
{
}

HdbscanTree::~HdbscanTree() = default;

std::unique_ptr<HdbscanTree> HdbscanTree::Create(
  const Request& request, vtkIdType minimumSamples, Result& tree)
{
  std::unique_ptr<HdbscanTree> held(new HdbscanTree);
  Internals& d = *held->Data;
  for (const PointBlock& block : request.Blocks)
  {
    d.OutputPoints += block.Points->GetNumberOfPoints();
  }
  Cloud cloud;
  RunTree(request, "MutualReachability", cloud, tree,
    [&d, minimumSamples](
      const emst::PointCloudView& view, const emst::Options& options) -> const emst::Result&
    {
      d.Tree = emst::computeMutualReachabilityTree(
        view, static_cast<std::size_t>(std::max<vtkIdType>(minimumSamples, 0)), options);
      return d.Tree.tree;
    });
  if (tree.Outcome.Code != Status::Ok)
  {
    return nullptr;
  }
  d.OutputIdOfTreePoint = std::move(cloud.OutputIdOfTreePoint);
  return held;
}

vtkIdType HdbscanTree::NumberOfPoints() const
{
  return this->Data->OutputPoints;
}

vtkSmartPointer<vtkDoubleArray> HdbscanTree::CoreDistance() const
{
  const Internals& d = *this->Data;
  auto cores = vtkEMSTArrays::Named<vtkDoubleArray>("CoreDistance");
  cores->SetNumberOfValues(d.OutputPoints);
  cores->Fill(std::numeric_limits<double>::quiet_NaN());
  for (std::size_t k = 0; k < d.Tree.coreDistance.size(); ++k)
  {
    cores->SetValue(d.OutputId(k), d.Tree.coreDistance[k]);
  }
  return cores;
}

HdbscanTree::Clusters HdbscanTree::Extract(const HdbscanParameters& parameters) const
{
  const Internals& d = *this->Data;
  Clusters c;
  c.ClusterId = vtkEMSTArrays::Named<vtkIntArray>("ClusterId");
  c.Probability = vtkEMSTArrays::Named<vtkDoubleArray>("Probability");
  c.OutlierScore = vtkEMSTArrays::Named<vtkDoubleArray>("OutlierScore");
  c.Parent = vtkEMSTArrays::Named<vtkIdTypeArray>("Parent");
  c.Child = vtkEMSTArrays::Named<vtkIdTypeArray>("Child");
  c.Lambda = vtkEMSTArrays::Named<vtkDoubleArray>("Lambda");
  c.Size = vtkEMSTArrays::Named<vtkIdTypeArray>("Size");
  c.Outcome = Guarded(
    [&]
    {
      const auto start = std::chrono::steady_clock::now();
      emst::HdbscanParameters p;
      p.minimumClusterSize =
        static_cast<std::size_t>(std::max<vtkIdType>(parameters.MinimumClusterSize, 0));
      p.selection = parameters.Selection == 1 ? emst::ClusterSelection::Leaf
                                              : emst::ClusterSelection::ExcessOfMass;
      p.clusterSelectionEpsilon = parameters.Epsilon;
      p.allowSingleCluster = parameters.AllowSingleCluster;
      const std::size_t treePoints = d.Tree.coreDistance.size();
      const emst::HdbscanClustering clustering =
        emst::extractHdbscanClusters(treePoints, d.Tree.tree.edges, p);

      // Points left out of the tree (ghosts) are noise with no score.
      const vtkIdType n = d.OutputPoints;
      c.ClusterId->SetNumberOfValues(n);
      c.ClusterId->Fill(-1);
      c.Probability->SetNumberOfValues(n);
      c.Probability->Fill(0.0);
      c.OutlierScore->SetNumberOfValues(n);
      c.OutlierScore->Fill(std::numeric_limits<double>::quiet_NaN());
      for (std::size_t k = 0; k < treePoints; ++k)
      {
        const vtkIdType id = d.OutputId(k);
        c.ClusterId->SetValue(id, clustering.labels[k]);
        c.Probability->SetValue(id, clustering.probabilities[k]);
        c.OutlierScore->SetValue(id, clustering.outlierScores[k]);
      }
      c.NoisePoints =
        n - static_cast<vtkIdType>(treePoints) + static_cast<vtkIdType>(clustering.noisePoints);
      for (const emst::HdbscanCluster& cluster : clustering.clusters)
      {
        c.Sizes.push_back(static_cast<vtkIdType>(cluster.size));
        c.FirstPoint.push_back(d.OutputId(cluster.firstPoint));
        c.Node.push_back(n + static_cast<vtkIdType>(cluster.node - treePoints));
        c.Stability.push_back(cluster.stability);
        c.BirthLambda.push_back(cluster.birthLambda);
        c.DeathLambda.push_back(cluster.deathLambda);
      }
      // Condensed tree ids: tree points -> output points, clusters renumbered after them.
      auto outputNode = [&](std::uint64_t node) {
        return node < treePoints ? d.OutputId(node) : n + static_cast<vtkIdType>(node - treePoints);
      };
      const vtkIdType rows = static_cast<vtkIdType>(clustering.condensedTree.size());
      c.Parent->SetNumberOfValues(rows);
      c.Child->SetNumberOfValues(rows);
      c.Lambda->SetNumberOfValues(rows);
      c.Size->SetNumberOfValues(rows);
      for (vtkIdType r = 0; r < rows; ++r)
      {
        const emst::CondensedTreeRow& row = clustering.condensedTree[static_cast<std::size_t>(r)];
        c.Parent->SetValue(r, outputNode(row.parent));
        c.Child->SetValue(r, outputNode(row.child));
        c.Lambda->SetValue(r, row.lambda);
        c.Size->SetValue(r, static_cast<vtkIdType>(row.size));
      }
      c.Milliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    });
  return c;
}

//------------------------------------------------------------------------------
struct ClusterTree::Internals
{
  vtkIdType Points = 0; ///< input points, left out ones included
  vtkIdType Leaves = 0; ///< points in the tree: the cutter's points
  /// Input point of each leaf (size Leaves), increasing; empty when every point is a leaf.
  std::vector<vtkIdType> PointOfLeaf;
  std::unique_ptr<emst::TreeCutter> Cutter;
  std::vector<std::string> Messages; ///< the engine's notes, and the first no-GPU note
  std::vector<std::string> Notes;    ///< a later no-GPU note
};

ClusterTree::ClusterTree()
  : Data(new Internals)
{
}

ClusterTree::~ClusterTree() = default;

namespace
{

/// The points of `tree` that are in it, as the tree filter decides: finite coordinates and no
/// vtkGhostType bit DUPLICATEPOINT or HIDDENPOINT; and any point that a line touches (a forest
/// from elsewhere). Returns the input point of each leaf, or nothing when every point is one.
std::vector<vtkIdType> TreeLeaves(vtkPolyData* tree)
{
  const vtkIdType n = tree->GetNumberOfPoints();
  std::vector<char> leaf(static_cast<std::size_t>(n), 1);
  vtkUnsignedCharArray* ghosts = PointGhosts(tree);
  bool all = true;
  double p[3];
  for (vtkIdType k = 0; k < n; ++k)
  {
    tree->GetPoint(k, p);
    if (IsLeftOut(ghosts, k, LeftOutGhostBits()) || !std::isfinite(p[0]) || !std::isfinite(p[1]) ||
      !std::isfinite(p[2]))
    {
      leaf[static_cast<std::size_t>(k)] = 0;
      all = false;
    }
  }
  if (all)
  {
    return {};
  }
  vtkCellArray* lines = tree->GetLines();
  vtkIdType npts = 0;
  const vtkIdType* ids = nullptr;
  auto it = vtk::TakeSmartPointer(lines ? lines->NewIterator() : nullptr);
  for (vtkIdType c = 0; lines != nullptr && c < lines->GetNumberOfCells(); ++c)
  {
    it->GetCellAtId(c, npts, ids);
    for (vtkIdType k = 0; k < npts; ++k)
    {
      if (ids[k] >= 0 && ids[k] < n)
      {
        leaf[static_cast<std::size_t>(ids[k])] = 1;
      }
    }
  }
  std::vector<vtkIdType> pointOfLeaf;
  for (vtkIdType k = 0; k < n; ++k)
  {
    if (leaf[static_cast<std::size_t>(k)])
    {
      pointOfLeaf.push_back(k);
    }
  }
  return pointOfLeaf;
}

/// The edges of the line cells of `tree`; see ClusterTree::Create.
std::vector<emst::Edge> ReadEdges(
  vtkPolyData* tree, vtkDataArray* lengths, const vtkEMSTPeriodicBox::Box& box)
{
  vtkCellArray* lines = tree->GetLines();
  const vtkIdType cells = lines ? lines->GetNumberOfCells() : 0;
  const vtkIdType firstLine = tree->GetNumberOfVerts();
  const bool useArray = lengths != nullptr && lengths->GetNumberOfComponents() == 1 &&
    lengths->GetNumberOfTuples() >= firstLine + cells &&
    lines->GetNumberOfConnectivityIds() == 2 * cells;
  vtkPoints* points = tree->GetPoints();
  auto distance = [points, &box](vtkIdType a, vtkIdType b)
  {
    double p[3], q[3];
    points->GetPoint(a, p);
    points->GetPoint(b, q);
    // The engine's formula (no overflow, no underflow) on the minimum-image differences: both
    // points wrapped into the box first, so that a periodic difference is at most one period.
    box.Wrap(p);
    box.Wrap(q);
    double d[3] = { p[0] - q[0], p[1] - q[1], p[2] - q[2] };
    box.MinimumImage(d);
    const double origin[3] = { 0.0, 0.0, 0.0 };
    return emst::edgeLength(d, origin, 3);
  };
  const vtkIdType n = tree->GetNumberOfPoints();
  std::vector<emst::Edge> edges;
  edges.reserve(static_cast<std::size_t>(lines ? lines->GetNumberOfConnectivityIds() : 0));
  vtkIdType npts = 0;
  const vtkIdType* ids = nullptr;
  auto it = vtk::TakeSmartPointer(lines ? lines->NewIterator() : nullptr);
  for (vtkIdType c = 0; c < cells; ++c)
  {
    it->GetCellAtId(c, npts, ids);
    for (vtkIdType k = 0; k + 1 < npts; ++k)
    {
      const vtkIdType a = ids[k], b = ids[k + 1];
      if (a < 0 || b < 0 || a >= n || b >= n)
      {
        throw emst::Error(emst::ErrorCode::InvalidInput,
          "line " + std::to_string(c) + " refers to a point that does not exist");
      }
      emst::Edge edge;
      edge.i = static_cast<std::uint32_t>(std::min(a, b));
      edge.j = static_cast<std::uint32_t>(std::max(a, b));
      edge.length = useArray ? lengths->GetComponent(firstLine + c, 0) : distance(a, b);
      edges.push_back(edge);
    }
  }
  return edges;
}

} // namespace

std::unique_ptr<ClusterTree> ClusterTree::Create(vtkPolyData* tree, vtkDataArray* lengths,
  int backend, const vtkEMSTPeriodicBox::Box& box, Status& status)
{
  std::unique_ptr<ClusterTree> result(new ClusterTree);
  status = Guarded(
    [&]
    {
      const vtkIdType n = tree->GetNumberOfPoints();
      Internals& data = *result->Data;
      data.Points = n;
      data.PointOfLeaf = TreeLeaves(tree);
      data.Leaves = data.PointOfLeaf.empty() ? n : static_cast<vtkIdType>(data.PointOfLeaf.size());
      std::vector<emst::Edge> edges = ReadEdges(tree, lengths, box);
      if (!data.PointOfLeaf.empty())
      {
        // Edges in leaf numbers: an increasing map, so the order (length, i, j) is kept.
        std::vector<std::uint32_t> leafOfPoint(static_cast<std::size_t>(n), 0);
        for (std::size_t leaf = 0; leaf < data.PointOfLeaf.size(); ++leaf)
        {
          leafOfPoint[static_cast<std::size_t>(data.PointOfLeaf[leaf])] =
            static_cast<std::uint32_t>(leaf);
        }
        for (emst::Edge& edge : edges)
        {
          edge.i = leafOfPoint[edge.i];
          edge.j = leafOfPoint[edge.j];
        }
      }
      const BackendChoice choice =
        ChooseBackend(backend, "no usable GPU (", "): the cut runs on the CPU");
      if (!choice.Note.empty())
      {
        (choice.Warn ? data.Messages : data.Notes).push_back(choice.Note);
      }
      data.Cutter = std::make_unique<emst::TreeCutter>(
        static_cast<std::size_t>(data.Leaves), std::move(edges), ToEngineBackend(choice.Backend));
      data.Messages.insert(
        data.Messages.end(), data.Cutter->messages().begin(), data.Cutter->messages().end());
    });
  if (status.Code != Status::Ok)
  {
    result.reset();
  }
  return result;
}

vtkIdType ClusterTree::NumberOfPoints() const
{
  return this->Data->Leaves;
}

vtkIdType ClusterTree::NumberOfLeftOut() const
{
  return this->Data->Points - this->Data->Leaves;
}

vtkIdType ClusterTree::NumberOfEdges() const
{
  return static_cast<vtkIdType>(this->Data->Cutter->edgeCount());
}

double ClusterTree::SortedLength(vtkIdType k) const
{
  return this->Data->Cutter->sortedEdges()[static_cast<std::size_t>(k)].length;
}

vtkIdType ClusterTree::EdgesAtMost(double threshold) const
{
  return static_cast<vtkIdType>(this->Data->Cutter->edgesAtMost(threshold));
}

vtkIdType ClusterTree::EdgesForGroups(vtkIdType clusters) const
{
  return static_cast<vtkIdType>(
    this->Data->Cutter->edgesForGroups(static_cast<std::size_t>(std::max<vtkIdType>(clusters, 0))));
}

std::string ClusterTree::BackendDescription() const
{
  const emst::TreeCutter& cutter = *this->Data->Cutter;
  return cutter.backend() == emst::Backend::Cuda ? "CUDA (" + cutter.deviceName() + ")" : "CPU";
}

const std::vector<std::string>& ClusterTree::Messages() const
{
  return this->Data->Messages;
}

const std::vector<std::string>& ClusterTree::Notes() const
{
  return this->Data->Notes;
}

ClusterTree::Cut ClusterTree::CutTree(vtkIdType kept, vtkIdType minimumClusterSize)
{
  Cut cut;
  const Internals& data = *this->Data;
  const vtkIdType n = data.Points;
  const vtkIdType leaves = data.Leaves;
  cut.ClusterId = vtkEMSTArrays::Named<vtkIntArray>("ClusterId");
  cut.ClusterSize = vtkEMSTArrays::Named<vtkIdTypeArray>("ClusterSize");
  cut.Lines = vtkSmartPointer<vtkCellArray>::New();
  cut.EdgeLength = vtkEMSTArrays::Named<vtkDoubleArray>("EdgeLength");
  static_assert(sizeof(vtkIdType) == sizeof(std::int64_t), "vtkIdType must be 64-bit");
  cut.Outcome = Guarded(
    [&]
    {
      kept = std::max<vtkIdType>(0, std::min(kept, this->NumberOfEdges()));
      cut.ClusterId->SetNumberOfValues(n);
      cut.ClusterSize->SetNumberOfValues(n);
      // The cutter labels the leaves; with points left out, into buffers that are then spread
      // over the points (a left-out point: ClusterId -1, ClusterSize 0).
      std::vector<std::int32_t> idOfLeaf;
      std::vector<std::int64_t> sizeOfLeaf;
      std::int32_t* ids = n > 0 ? cut.ClusterId->GetPointer(0) : nullptr;
      std::int64_t* sizes =
        n > 0 ? reinterpret_cast<std::int64_t*>(cut.ClusterSize->GetPointer(0)) : nullptr;
      if (!data.PointOfLeaf.empty())
      {
        idOfLeaf.resize(static_cast<std::size_t>(leaves));
        sizeOfLeaf.resize(static_cast<std::size_t>(leaves));
        ids = idOfLeaf.data();
        sizes = sizeOfLeaf.data();
      }
      const emst::Clustering clustering = data.Cutter->cut(static_cast<std::size_t>(kept),
        static_cast<std::size_t>(std::max<vtkIdType>(minimumClusterSize, 0)),
        leaves > 0 ? ids : nullptr, leaves > 0 ? sizes : nullptr);
      cut.FirstPoint.assign(clustering.firstPoint.begin(), clustering.firstPoint.end());
      if (!data.PointOfLeaf.empty())
      {
        cut.ClusterId->FillValue(-1);
        cut.ClusterSize->FillValue(0);
        for (vtkIdType leaf = 0; leaf < leaves; ++leaf)
        {
          const vtkIdType point = data.PointOfLeaf[static_cast<std::size_t>(leaf)];
          cut.ClusterId->SetValue(point, idOfLeaf[static_cast<std::size_t>(leaf)]);
          cut.ClusterSize->SetValue(point, sizeOfLeaf[static_cast<std::size_t>(leaf)]);
        }
        for (vtkIdType& first : cut.FirstPoint)
        {
          first = data.PointOfLeaf[static_cast<std::size_t>(first)];
        }
      }
      MakeLines(data.Cutter->sortedEdges().data(), kept,
        data.PointOfLeaf.empty() ? nullptr : &data.PointOfLeaf, cut.Lines, cut.EdgeLength);
      cut.Sizes.assign(clustering.sizes.begin(), clustering.sizes.end());
      cut.Groups = static_cast<vtkIdType>(clustering.groups);
      cut.NoisePoints = static_cast<vtkIdType>(clustering.noisePoints) + (n - leaves);
      cut.Milliseconds = clustering.milliseconds;
    });
  return cut;
}

namespace
{
/// A hierarchy's named arrays, empty.
ClusterTree::Hierarchy EmptyHierarchy()
{
  ClusterTree::Hierarchy h;
  h.Cluster1 = vtkEMSTArrays::Named<vtkIdTypeArray>("Cluster1");
  h.Cluster2 = vtkEMSTArrays::Named<vtkIdTypeArray>("Cluster2");
  h.Height = vtkEMSTArrays::Named<vtkDoubleArray>("Height");
  h.Size = vtkEMSTArrays::Named<vtkIdTypeArray>("Size");
  h.LeafPointId = vtkEMSTArrays::Named<vtkIdTypeArray>("LeafPointId");
  return h;
}
}

ClusterTree::Hierarchy ClusterTree::ComputeHierarchy() const
{
  Hierarchy h = EmptyHierarchy();
  h.Outcome = Guarded(
    [&]
    {
      const Internals& data = *this->Data;
      h.LeafPointId->SetNumberOfValues(data.Leaves);
      for (vtkIdType leaf = 0; leaf < data.Leaves; ++leaf)
      {
        h.LeafPointId->SetValue(
          leaf, data.PointOfLeaf.empty() ? leaf : data.PointOfLeaf[static_cast<std::size_t>(leaf)]);
      }
      const std::vector<emst::Merge> merges = emst::singleLinkageHierarchy(
        static_cast<std::size_t>(data.Leaves), data.Cutter->sortedEdges());
      const vtkIdType rows = static_cast<vtkIdType>(merges.size());
      h.Cluster1->SetNumberOfValues(rows);
      h.Cluster2->SetNumberOfValues(rows);
      h.Height->SetNumberOfValues(rows);
      h.Size->SetNumberOfValues(rows);
      for (vtkIdType r = 0; r < rows; ++r)
      {
        const emst::Merge& merge = merges[static_cast<std::size_t>(r)];
        h.Cluster1->SetValue(r, static_cast<vtkIdType>(merge.first));
        h.Cluster2->SetValue(r, static_cast<vtkIdType>(merge.second));
        h.Height->SetValue(r, merge.height);
        h.Size->SetValue(r, static_cast<vtkIdType>(merge.size));
      }
    });
  return h;
}

//------------------------------------------------------------------------------
// Distributed: the engine's Communicator over the controller, the tree, the cut.
namespace
{

/// emst::Communicator over a vtkMultiProcessController (all-to-all: vtkEMSTParallel's rounds).
class ControllerCommunicator : public emst::Communicator
{
public:
  explicit ControllerCommunicator(vtkMultiProcessController* controller)
    : Controller(controller)
  {
  }
  int rank() const override { return this->Controller->GetLocalProcessId(); }
  int size() const override { return this->Controller->GetNumberOfProcesses(); }
  void barrier() override { this->Controller->Barrier(); }
  void allReduce(double* values, std::size_t count, Op op) override
  {
    const std::vector<double> mine(values, values + count);
    this->Check(this->Controller->AllReduce(
                  mine.data(), values, static_cast<vtkIdType>(count), Operation(op)) != 0,
      "AllReduce");
  }
  void allReduce(std::uint64_t* values, std::size_t count, Op op) override
  {
    // unsigned long long: the controller's 64-bit unsigned overload on every platform.
    std::vector<unsigned long long> mine(values, values + count), all(count);
    this->Check(this->Controller->AllReduce(
                  mine.data(), all.data(), static_cast<vtkIdType>(count), Operation(op)) != 0,
      "AllReduce");
    std::copy(all.begin(), all.end(), values);
  }
  void allGatherv(const std::vector<std::uint8_t>& send, std::vector<std::uint8_t>& receive,
    std::vector<std::size_t>& counts) override
  {
    std::vector<std::vector<std::uint8_t>> out(static_cast<std::size_t>(this->size()), send), in;
    this->allToAllv(out, in);
    receive.clear();
    counts.clear();
    for (const auto& piece : in)
    {
      counts.push_back(piece.size());
      receive.insert(receive.end(), piece.begin(), piece.end());
    }
  }
  void allToAllv(std::vector<std::vector<std::uint8_t>>& send,
    std::vector<std::vector<std::uint8_t>>& receive) override
  {
    // This process's own message is moved, not copied: a large exchange is not held twice.
    const std::size_t self = static_cast<std::size_t>(this->rank());
    std::vector<std::uint8_t> own = std::move(send[self]);
    send[self].clear();
    this->Check(
      vtkEMSTParallel::AllToAll(this->Controller, send, receive), "an all-to-all exchange");
    receive[self] = std::move(own);
  }

private:
  static int Operation(Op op)
  {
    return op == Op::Sum ? vtkCommunicator::SUM_OP
                         : (op == Op::Min ? vtkCommunicator::MIN_OP : vtkCommunicator::MAX_OP);
  }
  void Check(bool ok, const char* what) const
  {
    if (!ok)
    {
      throw emst::Error(
        emst::ErrorCode::Internal, std::string("process communication failed (") + what + ")");
    }
  }
  vtkMultiProcessController* Controller;
};

/// Runs f() on every process, then makes a failure on one process a failure on all (the same
/// status everywhere: the failed process's message, or "process r failed").
template <class F>
Status GuardedTogether(ControllerCommunicator& comm, F&& f)
{
  Status status = Guarded(std::forward<F>(f));
  // [0]: the first failed process (size when none), [1]: whether it was a cancel.
  std::uint64_t first = status.Code == Status::Ok ? static_cast<std::uint64_t>(comm.size())
                                                  : static_cast<std::uint64_t>(comm.rank());
  comm.allReduce(&first, 1, emst::Communicator::Op::Min);
  if (first == static_cast<std::uint64_t>(comm.size()))
  {
    return status;
  }
  std::uint64_t cancelled =
    first == static_cast<std::uint64_t>(comm.rank()) && status.Code == Status::Cancelled ? 1 : 0;
  comm.allReduce(&cancelled, 1, emst::Communicator::Op::Max);
  if (status.Code == Status::Ok)
  {
    status.Code = cancelled ? Status::Cancelled : Status::Failed;
    status.ErrorMessage = "EMST engine: process " + std::to_string(first) + " failed";
  }
  return status;
}

/// A record of the exchanges below.
struct IdPair
{
  std::uint64_t first;
  std::uint64_t second;
};

/// One round trip: asks[d] go to process d, which answers each with answer(value); the answers
/// come back in the order asked.
template <class Answer>
std::vector<std::vector<std::uint64_t>> AskEach(ControllerCommunicator& comm,
  const std::vector<std::vector<std::uint64_t>>& asks, Answer&& answer)
{
  auto toBytes = [](const std::vector<std::uint64_t>& v)
  {
    std::vector<std::uint8_t> b(v.size() * sizeof(std::uint64_t));
    if (!v.empty())
    {
      std::memcpy(b.data(), v.data(), b.size());
    }
    return b;
  };
  auto fromBytes = [](const std::vector<std::uint8_t>& b)
  {
    std::vector<std::uint64_t> v(b.size() / sizeof(std::uint64_t));
    if (!v.empty())
    {
      std::memcpy(v.data(), b.data(), v.size() * sizeof(std::uint64_t));
    }
    return v;
  };
  std::vector<std::vector<std::uint8_t>> out, in;
  for (const auto& a : asks)
  {
    out.push_back(toBytes(a));
  }
  comm.allToAllv(out, in);
  out.clear();
  for (const auto& b : in)
  {
    std::vector<std::uint64_t> values = fromBytes(b);
    for (std::uint64_t& v : values)
    {
      v = answer(v);
    }
    out.push_back(toBytes(values));
  }
  comm.allToAllv(out, in);
  std::vector<std::vector<std::uint64_t>> replies;
  for (const auto& b : in)
  {
    replies.push_back(fromBytes(b));
  }
  return replies;
}

/// 2D for all processes when every process with points is planar at one same z.
void AgreeOnDimension(ControllerCommunicator& comm, Cloud& cloud)
{
  double z = 0.0;
  const bool planar = cloud.View.count > 0 &&
    (cloud.View.scalarType == emst::ScalarType::Float32
        ? IsPlanar(static_cast<const float*>(cloud.View.data), cloud.View.count, &z)
        : IsPlanar(static_cast<const double*>(cloud.View.data), cloud.View.count, &z));
  std::uint64_t counts[2] = { cloud.View.count > 0 && !planar ? 1u : 0u,
    cloud.View.count > 0 ? 1u : 0u };
  comm.allReduce(counts, 2, emst::Communicator::Op::Sum);
  const double inf = std::numeric_limits<double>::infinity();
  double range[2] = { planar ? z : inf, planar ? -z : inf };
  comm.allReduce(range, 2, emst::Communicator::Op::Min);
  const bool flat = counts[1] > 0 && counts[0] == 0 && range[0] == -range[1];
  cloud.View.dimension = flat ? 2 : 3;
}

} // namespace

DistributedTree ComputeDistributedTree(
  const Request& request, vtkMultiProcessController* controller)
{
  DistributedTree tree;
  tree.Lines = vtkSmartPointer<vtkCellArray>::New();
  tree.EdgeLength = vtkEMSTArrays::Named<vtkDoubleArray>("EdgeLength");
  tree.GlobalIds = vtkEMSTArrays::Named<vtkIdTypeArray>("EMSTGlobalId");
  ControllerCommunicator comm(controller);
  tree.Processes = comm.size();
  for (const PointBlock& block : request.Blocks)
  {
    tree.OwnPoints += block.Points->GetNumberOfPoints();
  }
  auto report = [&request](double fraction, const char* step)
  { return !request.Progress || request.Progress(fraction, step); };

  Cloud cloud;
  tree.Outcome = GuardedTogether(comm, [&] { PrepareCloud(request, cloud, tree); });
  if (tree.Outcome.Code != Status::Ok)
  {
    return tree;
  }
  emst::DistributedResult result;
  // Auto without a usable GPU: noted at every run, warned with once per process (ComputeTree's
  // rule); a process without points runs no local tree and says nothing.
  const BackendChoice choice = cloud.View.count == 0
    ? BackendChoice{ request.Backend, std::string(), false }
    : ChooseBackend(request.Backend, "no usable CUDA device (", "); ran on the CPU");
  tree.Outcome = Guarded(
    [&]
    {
      AgreeOnDimension(comm, cloud);
      emst::DistributedOptions options;
      options.engine.backend = ToEngineBackend(choice.Backend);
      options.engine.progress = [&report](double fraction, const char* step)
      { return report(GatherShare + EngineShare * fraction, step); };
      result = emst::computeDistributedEmst(cloud.View, comm, options);
    });
  if (tree.Outcome.Code != Status::Ok)
  {
    return tree; // the engine's failures are the same on every process
  }

  // Output ids: own tree point k, and the ghosts ordered by (owner, global id).
  const std::vector<vtkIdType>* outputIds =
    cloud.OutputIdOfTreePoint.empty() ? nullptr : &cloud.OutputIdOfTreePoint;
  auto ownOutput = [outputIds](std::uint32_t k)
  { return outputIds ? (*outputIds)[k] : static_cast<vtkIdType>(k); };
  const std::vector<emst::RemotePoint>& remote = result.remotePoints;
  std::vector<std::uint32_t> ghostOrder(remote.size());
  std::iota(ghostOrder.begin(), ghostOrder.end(), 0u);
  std::sort(ghostOrder.begin(), ghostOrder.end(),
    [&remote](std::uint32_t a, std::uint32_t b)
    {
      return remote[a].rank != remote[b].rank ? remote[a].rank < remote[b].rank
                                              : remote[a].globalId < remote[b].globalId;
    });
  std::vector<vtkIdType> ghostOfRemote(remote.size());
  for (std::size_t g = 0; g < ghostOrder.size(); ++g)
  {
    ghostOfRemote[ghostOrder[g]] = tree.OwnPoints + static_cast<vtkIdType>(g);
    tree.GhostGlobalIds.push_back(static_cast<vtkIdType>(remote[ghostOrder[g]].globalId));
    tree.GhostOwners.push_back(static_cast<int>(remote[ghostOrder[g]].rank));
  }
  // The owners name the ghosts' output ids (their tree points' ids in their own output).
  std::vector<std::vector<std::uint64_t>> asks(static_cast<std::size_t>(comm.size()));
  for (std::uint32_t g : ghostOrder)
  {
    asks[remote[g].rank].push_back(remote[g].localIndex);
  }
  tree.Outcome = GuardedTogether(comm,
    [&]
    {
      const std::vector<std::vector<std::uint64_t>> replies = AskEach(comm, asks,
        [&](std::uint64_t k)
        { return static_cast<std::uint64_t>(ownOutput(static_cast<std::uint32_t>(k))); });
      for (const auto& from : replies)
      {
        for (std::uint64_t id : from)
        {
          tree.GhostOwnerPoints.push_back(static_cast<vtkIdType>(id));
        }
      }
      tree.GlobalIds->SetNumberOfValues(tree.OwnPoints);
      tree.GlobalIds->FillValue(-1);
      for (std::size_t k = 0; k < cloud.View.count; ++k)
      {
        tree.GlobalIds->SetValue(ownOutput(static_cast<std::uint32_t>(k)),
          static_cast<vtkIdType>(result.firstGlobalId + k));
      }
      const vtkIdType count = static_cast<vtkIdType>(result.edges.size());
      auto offsets = vtkSmartPointer<vtkIdTypeArray>::New();
      auto connectivity = vtkSmartPointer<vtkIdTypeArray>::New();
      offsets->SetNumberOfValues(count + 1);
      connectivity->SetNumberOfValues(2 * count);
      tree.EdgeLength->SetNumberOfValues(count);
      for (vtkIdType e = 0; e < count; ++e)
      {
        const emst::DistributedEdge& edge = result.edges[static_cast<std::size_t>(e)];
        offsets->SetValue(e, 2 * e);
        connectivity->SetValue(2 * e, ownOutput(edge.localI));
        connectivity->SetValue(
          2 * e + 1, edge.jRemote ? ghostOfRemote[edge.localJ] : ownOutput(edge.localJ));
        tree.EdgeLength->SetValue(e, edge.length);
      }
      offsets->SetValue(count, 2 * count);
      tree.Lines->SetData(offsets, connectivity);
    });
  if (tree.Outcome.Code != Status::Ok)
  {
    tree.Lines->Initialize();
    tree.EdgeLength->Initialize();
    return tree;
  }
  const bool ran = result.stats.localValidPoints >= 2;
  tree.TotalLength = result.totalWeight;
  tree.BackendDescription = ran ? DescribeBackend(result.localStats) : "none (no local tree)";
  tree.BackendId = ran ? FromEngineBackend(result.localStats.backend) : 0;
  tree.ComputeMilliseconds = result.stats.milliseconds;
  tree.PointsInTree = static_cast<vtkIdType>(result.stats.globalValidPoints);
  tree.ExchangedPoints = static_cast<vtkIdType>(result.stats.exchangedPoints);
  tree.Rounds = result.stats.rounds;
  tree.Messages = result.messages;
  if (!choice.Note.empty())
  {
    (choice.Warn ? tree.Messages : tree.Notes)
      .insert((choice.Warn ? tree.Messages : tree.Notes).begin(), choice.Note);
  }
  std::ostringstream path;
  path << "distributed over " << comm.size() << " processes, "
       << (cloud.Copied ? "copied " : "zero-copy ")
       << (cloud.View.scalarType == emst::ScalarType::Float32 ? "float32 " : "float64 ")
       << cloud.View.dimension << "D";
  if (tree.GhostPoints > 0)
  {
    path << ", " << tree.GhostPoints << " ghost points left out";
  }
  tree.InputPath = path.str();
  report(1.0, "Done");
  return tree;
}

//------------------------------------------------------------------------------
bool IsDistributedTree(vtkMultiProcessController* controller, vtkPolyData* piece)
{
  if (controller == nullptr || controller->GetNumberOfProcesses() < 2)
  {
    return false;
  }
  const bool holds = piece != nullptr && piece->GetNumberOfPoints() > 0;
  const bool named = holds && piece->GetPointData()->GetArray("EMSTGlobalId") != nullptr &&
    piece->GetPointData()->GetArray("EMSTOwnerRank") != nullptr;
  int votes[2] = { named ? 1 : 0, holds && !named ? 1 : 0 };
  int all[2] = { 0, 0 };
  controller->AllReduce(votes, all, 2, vtkCommunicator::SUM_OP);
  return all[0] > 0 && all[1] == 0;
}

struct DistributedClusterTree::Internals
{
  explicit Internals(vtkMultiProcessController* controller)
    : Comm(controller)
  {
  }
  ControllerCommunicator Comm;
  vtkPolyData* Tree = nullptr;           // the input, borrowed for the cuts
  std::vector<vtkIdType> OwnOfPoint;     ///< [output points] own index, or -1 for a ghost
  std::vector<vtkIdType> PointOfOwn;     ///< [own points] output point id
  std::vector<vtkIdType> GhostPoints;    ///< output ids of the ghosts
  std::vector<std::uint64_t> GhostIds;   ///< their global ids
  std::vector<std::uint32_t> GhostOwner; ///< their processes
  std::unordered_map<std::uint64_t, vtkIdType> PointOfGhostId;
  std::vector<std::uint64_t> OwnIds; ///< [own points] global ids
  std::unique_ptr<emst::DistributedTreeCutter> Cutter;
  std::vector<std::string> Messages;
};

DistributedClusterTree::DistributedClusterTree() = default;
DistributedClusterTree::~DistributedClusterTree() = default;

std::unique_ptr<DistributedClusterTree> DistributedClusterTree::Create(vtkPolyData* tree,
  vtkDataArray* lengths, vtkDataArray* globalIds, vtkDataArray* owners,
  vtkMultiProcessController* controller, Status& status)
{
  std::unique_ptr<DistributedClusterTree> result(new DistributedClusterTree);
  result->Data.reset(new Internals(controller));
  Internals& d = *result->Data;
  d.Tree = tree;
  std::vector<emst::ForestEdge> forest;
  status = GuardedTogether(d.Comm,
    [&]
    {
      const vtkIdType n = tree->GetNumberOfPoints();
      if (globalIds == nullptr || owners == nullptr || globalIds->GetNumberOfTuples() != n ||
        owners->GetNumberOfTuples() != n)
      {
        throw emst::Error(emst::ErrorCode::InvalidInput,
          "the input is not a distributed tree: EMSTGlobalId or EMSTOwnerRank is missing or short");
      }
      auto* ghosts = vtkUnsignedCharArray::SafeDownCast(
        tree->GetPointData()->GetArray(vtkDataSetAttributes::GhostArrayName()));
      d.OwnOfPoint.assign(static_cast<std::size_t>(n), -1);
      std::vector<vtkIdType> unnamed; // own points without a global id (left out of the tree)
      for (vtkIdType k = 0; k < n; ++k)
      {
        const bool ghost = ghosts != nullptr && ghosts->GetNumberOfTuples() == n &&
          (ghosts->GetValue(k) & vtkDataSetAttributes::DUPLICATEPOINT) != 0;
        const double id = globalIds->GetComponent(k, 0);
        if (ghost)
        {
          const double owner = owners->GetComponent(k, 0);
          if (!(id >= 0.0) || !(owner >= 0.0) || owner >= d.Comm.size())
          {
            throw emst::Error(emst::ErrorCode::InvalidInput,
              "ghost point " + std::to_string(k) + " has no global id or owner process");
          }
          d.PointOfGhostId[static_cast<std::uint64_t>(id)] = k;
          d.GhostPoints.push_back(k);
          d.GhostIds.push_back(static_cast<std::uint64_t>(id));
          d.GhostOwner.push_back(static_cast<std::uint32_t>(owner));
          continue;
        }
        d.OwnOfPoint[static_cast<std::size_t>(k)] = static_cast<vtkIdType>(d.PointOfOwn.size());
        d.PointOfOwn.push_back(k);
        d.OwnIds.push_back(id >= 0.0 ? static_cast<std::uint64_t>(id) : 0);
        if (!(id >= 0.0))
        {
          unnamed.push_back(static_cast<vtkIdType>(d.OwnIds.size() - 1));
        }
      }
      // Points left out of the tree get ids after all the tree's, in process order.
      std::uint64_t top[2] = { 0, unnamed.size() };
      for (std::uint64_t id : d.OwnIds)
      {
        top[0] = std::max(top[0], id + 1);
      }
      std::vector<std::uint64_t> counts(static_cast<std::size_t>(d.Comm.size()), 0);
      counts[static_cast<std::size_t>(d.Comm.rank())] = top[1];
      d.Comm.allReduce(top, 1, emst::Communicator::Op::Max);
      d.Comm.allReduce(counts.data(), counts.size(), emst::Communicator::Op::Sum);
      std::uint64_t next = top[0];
      for (int r = 0; r < d.Comm.rank(); ++r)
      {
        next += counts[static_cast<std::size_t>(r)];
      }
      for (vtkIdType own : unnamed)
      {
        d.OwnIds[static_cast<std::size_t>(own)] = next++;
      }
      // A distributed tree is never periodic (the tree filter gathers a periodic one).
      for (const emst::Edge& e : ReadEdges(tree, lengths, vtkEMSTPeriodicBox::Box()))
      {
        const vtkIdType a = d.OwnOfPoint[e.i], b = d.OwnOfPoint[e.j];
        if (a < 0 && b < 0)
        {
          throw emst::Error(emst::ErrorCode::InvalidInput,
            "an edge joins two ghost points: each edge must have an end held by its process");
        }
        const vtkIdType local = a >= 0 ? a : b;
        const vtkIdType other = a >= 0 ? b : a;
        const vtkIdType otherPoint =
          a >= 0 ? static_cast<vtkIdType>(e.j) : static_cast<vtkIdType>(e.i);
        const std::uint64_t localId = d.OwnIds[static_cast<std::size_t>(local)];
        std::uint64_t otherId;
        emst::ForestEdge f;
        if (other >= 0)
        {
          otherId = d.OwnIds[static_cast<std::size_t>(other)];
          f.otherLocal = static_cast<std::uint32_t>(other);
        }
        else
        {
          otherId = static_cast<std::uint64_t>(globalIds->GetComponent(otherPoint, 0));
          f.otherRemote = true;
          f.otherRank = static_cast<std::uint32_t>(owners->GetComponent(otherPoint, 0));
        }
        f.i = std::min(localId, otherId);
        f.j = std::max(localId, otherId);
        f.localIsI = localId < otherId;
        f.localEnd = static_cast<std::uint32_t>(local);
        f.length = e.length;
        forest.push_back(f);
      }
    });
  if (status.Code != Status::Ok)
  {
    return nullptr;
  }
  status = Guarded(
    [&]
    {
      d.Cutter = std::make_unique<emst::DistributedTreeCutter>(
        d.Comm, d.PointOfOwn.size(), d.OwnIds.data(), std::move(forest));
    });
  if (status.Code != Status::Ok)
  {
    return nullptr;
  }
  return result;
}

vtkIdType DistributedClusterTree::NumberOfPoints() const
{
  return static_cast<vtkIdType>(this->Data->Cutter->globalPoints());
}

vtkIdType DistributedClusterTree::NumberOfEdges() const
{
  return static_cast<vtkIdType>(this->Data->Cutter->globalEdges());
}

double DistributedClusterTree::LongestEdge() const
{
  return this->Data->Cutter->longestEdge();
}

double DistributedClusterTree::ShortestEdge()
{
  emst::DistributedTreeCutter& cutter = *this->Data->Cutter;
  return cutter.globalEdges() > 0 ? cutter.kthEdge(1).length : 0.0;
}

const std::vector<std::string>& DistributedClusterTree::Messages() const
{
  return this->Data->Messages;
}

std::vector<vtkIdType> DistributedClusterTree::EdgesAtMost(const std::vector<double>& thresholds)
{
  const std::vector<std::uint64_t> counts = this->Data->Cutter->edgesAtMost(thresholds);
  return std::vector<vtkIdType>(counts.begin(), counts.end());
}

double DistributedClusterTree::LinkingThreshold(double b)
{
  Internals& d = *this->Data;
  const double inf = std::numeric_limits<double>::infinity();
  double box[6] = { inf, inf, inf, inf, inf, inf }; // lo, then -hi
  std::uint64_t finite = 0;
  double p[3];
  for (vtkIdType k : d.PointOfOwn)
  {
    d.Tree->GetPoint(k, p);
    if (!std::isfinite(p[0]) || !std::isfinite(p[1]) || !std::isfinite(p[2]))
    {
      continue;
    }
    ++finite;
    for (int a = 0; a < 3; ++a)
    {
      box[a] = std::min(box[a], p[a]);
      box[3 + a] = std::min(box[3 + a], -p[a]);
    }
  }
  d.Comm.allReduce(box, 6, emst::Communicator::Op::Min);
  d.Comm.allReduce(&finite, 1, emst::Communicator::Op::Sum);
  double volume = 1.0;
  int dimensions = 0;
  for (int a = 0; a < 3 && finite > 0; ++a)
  {
    if (-box[3 + a] > box[a])
    {
      volume *= -box[3 + a] - box[a];
      ++dimensions;
    }
  }
  return dimensions == 0 ? 0.0
                         : b * std::pow(volume / static_cast<double>(finite), 1.0 / dimensions);
}

DistributedClusterTree::Cut DistributedClusterTree::CutTree(
  double threshold, vtkIdType keepEdges, vtkIdType minimumClusterSize)
{
  Internals& d = *this->Data;
  Cut cut;
  cut.ClusterId = vtkEMSTArrays::Named<vtkIntArray>("ClusterId");
  cut.ClusterSize = vtkEMSTArrays::Named<vtkIdTypeArray>("ClusterSize");
  cut.Lines = vtkSmartPointer<vtkCellArray>::New();
  cut.EdgeLength = vtkEMSTArrays::Named<vtkDoubleArray>("EdgeLength");
  cut.Outcome = GuardedTogether(d.Comm,
    [&]
    {
      using Order = emst::DistributedTreeCutter::EdgeOrder;
      constexpr std::uint64_t all = std::numeric_limits<std::uint64_t>::max();
      Order last{ std::isnan(threshold) ? -1.0 : threshold, all, all };
      if (keepEdges >= 0)
      {
        const vtkIdType kept = std::min(keepEdges, this->NumberOfEdges());
        last = kept > 0 ? d.Cutter->kthEdge(static_cast<std::uint64_t>(kept)) : Order{ -1.0, 0, 0 };
        threshold = kept > 0 ? last.length : 0.0;
      }
      cut.Threshold = threshold;
      const std::size_t own = d.PointOfOwn.size();
      std::vector<std::int32_t> ownId(own), ghostId(d.GhostIds.size());
      std::vector<std::int64_t> ownSize(own), ghostSize(d.GhostIds.size());
      emst::DistributedClustering c =
        d.Cutter->cut(last, static_cast<std::size_t>(std::max<vtkIdType>(minimumClusterSize, 0)),
          ownId.data(), ownSize.data(), d.GhostIds, d.GhostOwner, ghostId.data(), ghostSize.data());
      const vtkIdType n = d.Tree->GetNumberOfPoints();
      cut.ClusterId->SetNumberOfValues(n);
      cut.ClusterSize->SetNumberOfValues(n);
      for (std::size_t k = 0; k < own; ++k)
      {
        cut.ClusterId->SetValue(d.PointOfOwn[k], ownId[k]);
        cut.ClusterSize->SetValue(d.PointOfOwn[k], ownSize[k]);
      }
      for (std::size_t g = 0; g < d.GhostPoints.size(); ++g)
      {
        cut.ClusterId->SetValue(d.GhostPoints[g], ghostId[g]);
        cut.ClusterSize->SetValue(d.GhostPoints[g], ghostSize[g]);
      }
      // The kept edges this process owns, in output ids, shortest first.
      std::vector<emst::Edge> kept;
      for (const emst::ForestEdge& e : d.Cutter->sortedEdges())
      {
        const bool keep = e.length != last.length ? e.length < last.length
                                                  : (e.i != last.i ? e.i < last.i : e.j <= last.j);
        if (!keep)
        {
          break;
        }
        emst::Edge out;
        out.i = static_cast<std::uint32_t>(d.PointOfOwn[e.localEnd]);
        out.j = static_cast<std::uint32_t>(
          e.otherRemote ? d.PointOfGhostId.at(e.localIsI ? e.j : e.i) : d.PointOfOwn[e.otherLocal]);
        out.length = e.length;
        kept.push_back(out);
      }
      MakeLines(
        kept.data(), static_cast<vtkIdType>(kept.size()), nullptr, cut.Lines, cut.EdgeLength);
      cut.Groups = static_cast<vtkIdType>(c.groups);
      cut.NoisePoints = static_cast<vtkIdType>(c.noisePoints);
      cut.Clusters = static_cast<vtkIdType>(c.clusters);
      cut.Milliseconds = c.milliseconds;
      cut.Sizes.assign(c.sizes.begin(), c.sizes.end());
      cut.FirstPoint.assign(c.firstPoint.begin(), c.firstPoint.end());
      std::vector<std::uint64_t>().swap(c.sizes);
      std::vector<std::uint64_t>().swap(c.firstPoint);

      // The cluster table: partial sums of the own points and kept edges, merged on process 0
      // (which holds one row per cluster of the whole cloud: each list below is freed as soon as
      // the next holds its rows).
      std::vector<emst::ClusterSummary> mine;
      {
        std::unordered_map<std::int32_t, emst::ClusterSummary> partial;
        double p[3];
        for (std::size_t k = 0; k < own; ++k)
        {
          if (ownId[k] < 0)
          {
            continue;
          }
          d.Tree->GetPoint(d.PointOfOwn[k], p);
          auto [it, fresh] = partial.try_emplace(ownId[k]);
          emst::ClusterSummary& s = it->second;
          if (fresh)
          {
            s.cluster = ownId[k];
            std::copy(p, p + 3, s.lo);
            std::copy(p, p + 3, s.hi);
          }
          ++s.points;
          for (int a = 0; a < 3; ++a)
          {
            s.sum[a] += p[a];
            s.lo[a] = std::min(s.lo[a], p[a]);
            s.hi[a] = std::max(s.hi[a], p[a]);
          }
        }
        for (const emst::Edge& e : kept)
        {
          const int cluster = cut.ClusterId->GetValue(e.i);
          auto it = partial.find(cluster);
          if (it != partial.end())
          {
            it->second.longestEdge = std::max(it->second.longestEdge, e.length);
          }
        }
        mine.reserve(partial.size());
        for (const auto& entry : partial)
        {
          mine.push_back(entry.second);
        }
      }
      const std::vector<emst::ClusterSummary> rows =
        emst::mergeClusterSummaries(d.Comm, std::move(mine));
      cut.Centroid.reserve(3 * rows.size());
      cut.BoundsMin.reserve(3 * rows.size());
      cut.BoundsMax.reserve(3 * rows.size());
      cut.LongestEdge.reserve(rows.size());
      for (const emst::ClusterSummary& s : rows)
      {
        for (int a = 0; a < 3; ++a)
        {
          cut.Centroid.push_back(s.sum[a] / static_cast<double>(s.points));
          cut.BoundsMin.push_back(s.lo[a]);
          cut.BoundsMax.push_back(s.hi[a]);
        }
        cut.LongestEdge.push_back(s.longestEdge);
      }
    });
  return cut;
}

ClusterTree::Hierarchy DistributedClusterTree::ComputeHierarchy()
{
  Internals& d = *this->Data;
  ClusterTree::Hierarchy h = EmptyHierarchy();
  h.Outcome = GuardedTogether(d.Comm,
    [&]
    {
      if (d.Cutter->globalPoints() >= std::numeric_limits<std::uint32_t>::max())
      {
        throw emst::Error(emst::ErrorCode::InvalidInput,
          "the hierarchy numbers points with 32-bit ids: too many points");
      }
      std::vector<emst::Edge> mine;
      for (const emst::ForestEdge& e : d.Cutter->sortedEdges())
      {
        mine.push_back(
          emst::Edge{ static_cast<std::uint32_t>(e.i), static_cast<std::uint32_t>(e.j), e.length });
      }
      const std::vector<emst::Edge> all = emst::gatherEdgesOnRankZero(d.Comm, mine);
      if (d.Comm.rank() != 0)
      {
        return;
      }
      const std::vector<emst::Merge> merges =
        emst::singleLinkageHierarchy(static_cast<std::size_t>(d.Cutter->globalPoints()), all);
      // Leaf k is the point of global id k (EMSTGlobalId), wherever it is held.
      h.LeafPointId->SetNumberOfValues(static_cast<vtkIdType>(d.Cutter->globalPoints()));
      for (vtkIdType k = 0; k < h.LeafPointId->GetNumberOfValues(); ++k)
      {
        h.LeafPointId->SetValue(k, k);
      }
      for (const emst::Merge& merge : merges)
      {
        h.Cluster1->InsertNextValue(static_cast<vtkIdType>(merge.first));
        h.Cluster2->InsertNextValue(static_cast<vtkIdType>(merge.second));
        h.Height->InsertNextValue(merge.height);
        h.Size->InsertNextValue(static_cast<vtkIdType>(merge.size));
      }
    });
  return h;
}

}
