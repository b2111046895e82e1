// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Public entry point: validates the input, chooses the backend (CUDA probed lazily, on first
// use), falls back to the CPU when Auto cannot use the GPU, and says which backend ran.
#include "emst/Emst.h"

#include "backends/Backends.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

namespace emst
{
namespace detail
{

double sumLengths(const std::vector<Edge>& edges)
{
  double sum = 0.0;
  double compensation = 0.0;
  for (const Edge& e : edges)
  {
    double const t = sum + e.length;
    if (std::abs(sum) >= std::abs(e.length))
    {
      compensation += (sum - t) + e.length;
    }
    else
    {
      compensation += (e.length - t) + sum;
    }
    sum = t;
  }
  return sum + compensation;
}

void checkPointCount(std::size_t points)
{
  // Indices are 32-bit, and kNone = 2^32-1 is reserved.
  if (points >= static_cast<std::size_t>(std::numeric_limits<std::uint32_t>::max()))
  {
    throw Error(ErrorCode::InvalidInput,
      "too many points: " + std::to_string(points) + " (at most 4294967294)");
  }
}

namespace
{

void validate(const PointCloudView& points)
{
  if (points.dimension != 2 && points.dimension != 3)
  {
    throw Error(ErrorCode::InvalidInput,
      "points must be 2D or 3D, not " + std::to_string(points.dimension) + "D");
  }
  if (points.stride != 0 && points.stride < static_cast<std::size_t>(points.dimension))
  {
    throw Error(ErrorCode::InvalidInput,
      "point stride " + std::to_string(points.stride) + " is smaller than the dimension " +
        std::to_string(points.dimension));
  }
  if (points.count > 0 && points.data == nullptr)
  {
    throw Error(ErrorCode::InvalidInput,
      "no point data given for " + std::to_string(points.count) + " points");
  }
  checkPointCount(points.count);
  if (points.scalarType != ScalarType::Float32 && points.scalarType != ScalarType::Float64)
  {
    throw Error(ErrorCode::InvalidInput, "unknown scalar type");
  }
}

Result finish(Result result)
{
  result.totalWeight = sumLengths(result.edges);
  return result;
}

} // namespace
} // namespace detail

bool cudaBackendCompiled() noexcept
{
#if defined(EMST_WITH_CUDA)
  return true;
#else
  return false;
#endif
}

bool cudaDeviceAvailable(std::string* reason)
{
#if defined(EMST_WITH_CUDA)
  return detail::probeCuda(0, reason);
#else
  if (reason)
  {
    *reason = "this build has no CUDA backend";
  }
  return false;
#endif
}

const char* backendName(Backend backend) noexcept
{
  switch (backend)
  {
    case Backend::Auto:
      return "Auto";
    case Backend::Cuda:
      return "CUDA";
    case Backend::Cpu:
      return "CPU";
  }
  return "?";
}

Backend parseBackend(const std::string& name)
{
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
    [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "auto")
  {
    return Backend::Auto;
  }
  if (lower == "cuda" || lower == "gpu")
  {
    return Backend::Cuda;
  }
  if (lower == "cpu")
  {
    return Backend::Cpu;
  }
  throw Error(
    ErrorCode::InvalidInput, "unknown backend '" + name + "' (expected auto, cuda or cpu)");
}

Result detail::computeEmstWithScale(
  const PointCloudView& points, const Options& options, double scale)
{
  detail::validate(points);
  bool const onDevice = points.memory == MemorySpace::Device;

  if (options.backend == Backend::Cpu)
  {
    if (onDevice)
    {
      throw Error(ErrorCode::InvalidInput, "the CPU backend cannot read points in device memory");
    }
    return detail::finish(detail::runCpu(points, options, scale));
  }

#if defined(EMST_WITH_CUDA)
  std::string reason;
  bool const usable = detail::probeCuda(options.cudaDevice, &reason);
  if (options.backend == Backend::Cuda || onDevice)
  {
    if (!usable)
    {
      throw Error(ErrorCode::DeviceUnavailable, "CUDA backend unavailable: " + reason);
    }
    return detail::finish(detail::runCuda(points, options, scale));
  }
  // Auto
  if (usable)
  {
    try
    {
      return detail::finish(detail::runCuda(points, options, scale));
    }
    catch (const Error& error)
    {
      if (!detail::gpuFailureFallsBack(error))
      {
        throw;
      }
      Result result = detail::finish(detail::runCpu(points, options, scale));
      result.messages.insert(result.messages.begin(),
        std::string("the GPU run failed (") + error.what() + "); ran on the CPU instead");
      return result;
    }
  }
  Result result = detail::finish(detail::runCpu(points, options, scale));
  result.messages.insert(
    result.messages.begin(), "no usable CUDA device (" + reason + "); ran on the CPU");
  return result;
#else
  if (options.backend == Backend::Cuda || onDevice)
  {
    throw Error(
      ErrorCode::DeviceUnavailable, "CUDA backend unavailable: this build has no CUDA backend");
  }
  Result result = detail::finish(detail::runCpu(points, options, scale));
  result.messages.insert(result.messages.begin(), "this build has no CUDA backend; ran on the CPU");
  return result;
#endif
}

Result computeEmst(const PointCloudView& points, const Options& options)
{
  return detail::computeEmstWithScale(points, options, 0.0);
}

} // namespace emst
