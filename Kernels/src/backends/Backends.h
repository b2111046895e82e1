// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Internal seam between the public entry point (Emst.cxx) and the backends.
#pragma once

#include "emst/Clusters.h"
#include "emst/Emst.h"

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

#if defined(EMST_WITH_CUDA)
/// Runs the CUDA backend (host or device input). Throws Error(OutOfMemory) when the device
/// cannot hold the working set, Error(DeviceError) on any CUDA failure.
Result runCuda(const PointCloudView& points, const Options& options, double givenScale = 0.0);

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

/// The GPU failures after which Auto runs on the CPU instead: too little memory, a device error.
/// Anything else (bad input, a broken invariant) is reported as it is.
inline bool gpuFailureFallsBack(const Error& error)
{
  return error.code() == ErrorCode::OutOfMemory || error.code() == ErrorCode::DeviceError;
}

/// Compensated (Neumaier) sum of the edge lengths in list order: deterministic, and the same on
/// every backend since the lists are.
double sumLengths(const std::vector<Edge>& edges);

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
