// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Internal seam between the public entry point (Emst.cxx) and the backends.
#pragma once

#include "emst/Clusters.h"
#include "emst/Emst.h"
#include "emst/Hdbscan.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace emst
{
namespace detail
{

/// Runs the CPU backend. `points` are in host memory and already validated. givenScale > 0:
/// the exact key's scale (see computeEmstWithScale), else that of the points' own box.
Result runCpu(const PointCloudView& points, const Options& options, double givenScale = 0.0);
/// The same for the mutual reachability tree with k = minimumSamples (already validated).
MutualReachabilityTree runCpuReachability(
  const PointCloudView& points, std::size_t minimumSamples, const Options& options);

#if defined(EMST_WITH_CUDA)
/// Runs the CUDA backend (host or device input). Throws Error(OutOfMemory) when the device
/// cannot hold the working set, Error(DeviceError) on any CUDA failure.
Result runCuda(const PointCloudView& points, const Options& options, double givenScale = 0.0);
MutualReachabilityTree runCudaReachability(
  const PointCloudView& points, std::size_t minimumSamples, const Options& options);

/// Probes the driver and the device once per ordinal (lazily, on first use).
bool probeCuda(int device, std::string* reason);
#endif

/// computeEmst with the exact key's scale given (a power of two, > 0, at most the scale of the
/// points' own box: Emst.h's s for a box that contains them) instead of taken from the points'
/// box. The tree is then the MST under the order of that key, which differs from computeEmst's
/// only where a key underflows. The distributed run keys every rank's points with the scale of
/// the global box, so that each rank orders its edges as the serial run of all points does.
Result computeEmstWithScale(const PointCloudView& points, const Options& options, double scale);

/// Indices are 32-bit and 2^32-1 is reserved: throws Error(InvalidInput) for more points.
void checkPointCount(std::size_t points);

/// Throws Error(InvalidInput) for a view the engine cannot read (Emst.h's list).
void validatePoints(const PointCloudView& points);

/// Throws Error(InvalidInput) for options out of range (cpuThreads, the periodic box's axes
/// below `dimension`).
void validateOptions(const Options& options, int dimension);

/// The GPU failures after which Auto runs on the CPU instead: too little memory, a device error.
/// Anything else (bad input, a broken invariant) is reported as it is.
inline bool gpuFailureFallsBack(const Error& error)
{
  return error.code() == ErrorCode::OutOfMemory || error.code() == ErrorCode::DeviceError;
}

/// Compensated (Neumaier) sum of the edge lengths in list order: deterministic, and the same on
/// every backend since the lists are.
double sumLengths(const std::vector<Edge>& edges);

inline std::vector<std::string>& messagesOf(Result& result)
{
  return result.messages;
}
inline std::vector<std::string>& messagesOf(MutualReachabilityTree& tree)
{
  return tree.tree.messages;
}

/// Runs `cpu()` or `cuda()` (each returning a Result or a MutualReachabilityTree) as
/// options.backend and the machine say: CPU as asked; CUDA as asked (or for device input), or
/// an error when no device is usable; Auto on the GPU when one is usable, on the CPU otherwise
/// and after a GPU failure that falls back, with a message saying why. `points` are validated.
template <class CpuRun, class CudaRun>
auto runOnBackend(const PointCloudView& points, const Options& options, CpuRun cpu, CudaRun cuda)
  -> decltype(cpu())
{
  validateOptions(options, points.dimension);
  bool const onDevice = points.memory == MemorySpace::Device;
  if (options.backend == Backend::Cpu)
  {
    if (onDevice)
    {
      throw Error(ErrorCode::InvalidInput, "the CPU backend cannot read points in device memory");
    }
    return cpu();
  }
#if defined(EMST_WITH_CUDA)
  std::string reason;
  bool const usable = probeCuda(options.cudaDevice, &reason);
  if (options.backend == Backend::Cuda || onDevice)
  {
    if (!usable)
    {
      throw Error(ErrorCode::DeviceUnavailable, "CUDA backend unavailable: " + reason);
    }
    return cuda();
  }
  // Auto
  if (usable)
  {
    try
    {
      return cuda();
    }
    catch (const Error& error)
    {
      if (!gpuFailureFallsBack(error))
      {
        throw;
      }
      auto result = cpu();
      messagesOf(result).insert(messagesOf(result).begin(),
        std::string("the GPU run failed (") + error.what() + "); ran on the CPU instead");
      return result;
    }
  }
  auto result = cpu();
  messagesOf(result).insert(
    messagesOf(result).begin(), "no usable CUDA device (" + reason + "); ran on the CPU");
  return result;
#else
  (void)cuda;
  if (options.backend == Backend::Cuda || onDevice)
  {
    throw Error(
      ErrorCode::DeviceUnavailable, "CUDA backend unavailable: this build has no CUDA backend");
  }
  auto result = cpu();
  messagesOf(result).insert(
    messagesOf(result).begin(), "this build has no CUDA backend; ran on the CPU");
  return result;
#endif
}

/// The ends of a tree edge, as the cut keeps them in backend memory.
struct EdgeEnds
{
  std::uint32_t i;
  std::uint32_t j;
};

/// A tree held by one backend, cut on request (TreeCutter's engine).
class CutBackend
{
public:
  virtual ~CutBackend() = default;
  /// See TreeCutter::cut; fills everything but Clustering::backend.
  virtual Clustering cut(std::size_t kept, std::size_t minimumSize, std::int32_t* clusterId,
    std::int64_t* groupSize) = 0;
};

/// The CPU cutter reads the sorted edges in place: they must outlive it.
std::unique_ptr<CutBackend> makeCpuCutter(std::size_t points, const std::vector<Edge>& sorted);
#if defined(EMST_WITH_CUDA)
/// Uploads the edges to `device` (which must have passed probeCuda). Throws like runCuda.
std::unique_ptr<CutBackend> makeCudaCutter(
  std::size_t points, const std::vector<EdgeEnds>& ends, int device);
/// The probed device's name, e.g. "NVIDIA H100 80GB HBM3 (sm_90)".
std::string cudaDeviceName(int device);
#endif

} // namespace detail
} // namespace emst
