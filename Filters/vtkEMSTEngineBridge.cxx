// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
#include "vtkEMSTEngineBridge.h"

#include "emst/Emst.h"

#include "vtkAOSDataArrayTemplate.h"
#include "vtkArrayDispatch.h"
#include "vtkCellArray.h"
#include "vtkDataArrayRange.h"
#include "vtkDoubleArray.h"
#include "vtkIdTypeArray.h"
#include "vtkPoints.h"
#include "vtkUnsignedCharArray.h"

#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <limits>
#include <new>
#include <sstream>

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
  /// Output point id of each tree point (size View.count) when points were left out or blocks
  /// appended; empty when tree point k is output point k.
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
/// to the array's own value type, or read through the generic vtkDataArray API).
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
        this->OutputIds->push_back(this->FirstOutputId + k);
      }
      ++k;
    }
  }
};

template <typename OutT>
void CopyKeptPoints(const Request& request, std::vector<OutT>& out, std::vector<vtkIdType>& ids)
{
  vtkIdType firstOutputId = 0;
  for (const PointBlock& block : request.Blocks)
  {
    AppendKeptPoints<OutT> worker;
    worker.Out = &out;
    worker.OutputIds = &ids;
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
    cloud.OutputIdOfTreePoint.reserve(kept);
    if (allFloat)
    {
      cloud.OwnedFloat.reserve(3 * kept);
      CopyKeptPoints(request, cloud.OwnedFloat, cloud.OutputIdOfTreePoint);
      cloud.View.data = cloud.OwnedFloat.data();
      cloud.View.scalarType = emst::ScalarType::Float32;
    }
    else
    {
      cloud.OwnedDouble.reserve(3 * kept);
      CopyKeptPoints(request, cloud.OwnedDouble, cloud.OutputIdOfTreePoint);
      cloud.View.data = cloud.OwnedDouble.data();
      cloud.View.scalarType = emst::ScalarType::Float64;
    }
    cloud.View.count = cloud.OutputIdOfTreePoint.size();
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

} // namespace

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

Result ComputeTree(const Request& request)
{
  Result result;
  result.Lines = vtkSmartPointer<vtkCellArray>::New();
  result.EdgeLength = vtkSmartPointer<vtkDoubleArray>::New();
  result.EdgeLength->SetName("EdgeLength");

  auto report = [&request](double fraction, const char* step) {
    return !request.Progress || request.Progress(fraction, step);
  };

  try
  {
    if (!report(0.0, "Preparing points"))
    {
      result.Status = Result::Cancelled;
      return result;
    }
    Cloud cloud;
    PrepareCloud(request, cloud, result);

    if (cloud.View.count == 0)
    {
      // Nothing to connect; the engine wants a non-null pointer, so it is not called.
      result.BackendDescription = "none (no points)";
      return result;
    }

    emst::Options options;
    options.backend = ToEngineBackend(request.Backend);
    options.progress = [&report](double fraction, const char* step) {
      return report(GatherShare + EngineShare * fraction, step);
    };
    const emst::Result tree = emst::computeEmst(cloud.View, options);

    if (!report(GatherShare + EngineShare, "Building lines"))
    {
      result.Status = Result::Cancelled;
      return result;
    }

    // Engine edges -> VTK lines (offsets 0, 2, 4, ...) in the engine's (length, i, j) order.
    const vtkIdType numberOfEdges = static_cast<vtkIdType>(tree.edges.size());
    auto offsets = vtkSmartPointer<vtkIdTypeArray>::New();
    offsets->SetNumberOfValues(numberOfEdges + 1);
    auto connectivity = vtkSmartPointer<vtkIdTypeArray>::New();
    connectivity->SetNumberOfValues(2 * numberOfEdges);
    result.EdgeLength->SetNumberOfValues(numberOfEdges);
    const bool mapped = !cloud.OutputIdOfTreePoint.empty();
    vtkIdType* offset = offsets->GetPointer(0);
    vtkIdType* ends = connectivity->GetPointer(0);
    double* length = result.EdgeLength->GetPointer(0);
    for (vtkIdType e = 0; e < numberOfEdges; ++e)
    {
      const emst::Edge& edge = tree.edges[static_cast<std::size_t>(e)];
      offset[e] = 2 * e;
      ends[2 * e] = mapped ? cloud.OutputIdOfTreePoint[edge.i] : static_cast<vtkIdType>(edge.i);
      ends[2 * e + 1] = mapped ? cloud.OutputIdOfTreePoint[edge.j] : static_cast<vtkIdType>(edge.j);
      length[e] = edge.length;
    }
    offset[numberOfEdges] = 2 * numberOfEdges;
    result.Lines->SetData(offsets, connectivity);

    result.TotalLength = tree.totalWeight;
    result.BackendDescription = DescribeBackend(tree.stats);
    result.ComputeMilliseconds = tree.stats.computeMilliseconds;
    result.PointsInTree = static_cast<vtkIdType>(tree.stats.validPoints);
    result.Messages = tree.messages;
    report(1.0, "Done");
  }
  catch (const emst::Error& error)
  {
    if (error.code() == emst::ErrorCode::Cancelled)
    {
      result.Status = Result::Cancelled;
    }
    else
    {
      result.Status = Result::Failed;
      result.ErrorMessage =
        std::string("EMST engine: ") + ErrorCodeName(error.code()) + ": " + error.what();
    }
  }
  catch (const std::bad_alloc&)
  {
    result.Status = Result::Failed;
    result.ErrorMessage = "EMST engine: out of memory";
  }
  catch (const std::exception& error)
  {
    result.Status = Result::Failed;
    result.ErrorMessage = std::string("EMST engine: ") + error.what();
  }
  if (result.Status != Result::Ok)
  {
    result.Lines->Initialize();
    result.EdgeLength->Initialize();
    result.TotalLength = 0.0;
  }
  return result;
}

}
