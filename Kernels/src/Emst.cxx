// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Public entry point: validates the input, chooses the backend (CUDA probed lazily, on first
// use), falls back to the CPU when Auto cannot use the GPU, and says which backend ran.
#include "emst/Emst.h"

#include "backends/Backends.h"
#include "base/Arithmetic.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
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
    if (!std::isfinite(t))
    {
      // Non-negative lengths: an infinite edge or a sum beyond DBL_MAX makes the total +inf
      // (the compensation would turn it into inf - inf = NaN).
      return std::numeric_limits<double>::infinity();
    }
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

void validatePoints(const PointCloudView& points)
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

namespace
{

/// The box's axes below the dimension: each size finite and >= 0, the origin finite where the
/// axis is periodic.
void validateBox(const PeriodicBox& box, int dimension)
{
  static const char* const axisName[3] = { "x", "y", "z" };
  auto number = [](double value)
  {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", value);
    return std::string(text);
  };
  for (int a = 0; a < dimension; ++a)
  {
    double const size = box.size[a];
    if (!(size >= 0.0) || !std::isfinite(size))
    {
      throw Error(ErrorCode::InvalidInput,
        std::string("periodic box: the size of axis ") + axisName[a] + " must be a finite number " +
          ">= 0 (0: not periodic), not " + number(size));
    }
    if (size > 0.0 && !std::isfinite(box.origin[a]))
    {
      throw Error(ErrorCode::InvalidInput,
        std::string("periodic box: the origin of axis ") + axisName[a] + " must be finite, not " +
          number(box.origin[a]));
    }
  }
}

} // namespace

void validateOptions(const Options& options, int dimension)
{
  if (options.cpuThreads < 0 || options.cpuThreads > kMaxCpuThreads)
  {
    throw Error(ErrorCode::InvalidInput,
      "cpuThreads must be 0 (the OpenMP default) or a thread count from 1 to " +
        std::to_string(kMaxCpuThreads) + ", not " + std::to_string(options.cpuThreads));
  }
  validateBox(options.box, dimension);
}

namespace
{

Result finish(Result result)
{
  result.totalWeight = sumLengths(result.edges);
  std::size_t const infinite = static_cast<std::size_t>(std::count_if(
    result.edges.begin(), result.edges.end(), [](const Edge& e) { return std::isinf(e.length); }));
  if (infinite > 0)
  {
    result.messages.push_back(std::to_string(infinite) +
      " edge length(s) exceed the largest double (about 1.8e308): reported as +inf, and the "
      "total length is +inf; the tree itself is exact");
  }
  else if (std::isinf(result.totalWeight))
  {
    result.messages.emplace_back("the total length exceeds the largest double (about 1.8e308): "
                                 "reported as +inf; every edge length is finite");
  }
  return result;
}

} // namespace
} // namespace detail

double edgeLength(const double* a, const double* b, int dimension) noexcept
{
  double d[3] = { 0.0, 0.0, 0.0 };
  for (int axis = 0; axis < dimension && axis < 3; ++axis)
  {
    d[axis] = detail::dsub(a[axis], b[axis]);
  }
  return dimension == 2 ? detail::scaledLength<2>(d) : detail::scaledLength<3>(d);
}

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

const char* errorCodeName(ErrorCode code) noexcept
{
  switch (code)
  {
    case ErrorCode::InvalidInput:
      return "InvalidInput";
    case ErrorCode::OutOfMemory:
      return "OutOfMemory";
    case ErrorCode::DeviceUnavailable:
      return "DeviceUnavailable";
    case ErrorCode::DeviceError:
      return "DeviceError";
    case ErrorCode::Cancelled:
      return "Cancelled";
    case ErrorCode::Internal:
      return "Internal";
  }
  return "?";
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
  detail::validatePoints(points);
  return detail::runOnBackend(
    points, options, [&] { return detail::finish(detail::runCpu(points, options, scale)); },
    [&]
    {
#if defined(EMST_WITH_CUDA)
      return detail::finish(detail::runCuda(points, options, scale));
#else
      return Result();
#endif
    });
}

Result computeEmst(const PointCloudView& points, const Options& options)
{
  return detail::computeEmstWithScale(points, options, 0.0);
}

} // namespace emst
