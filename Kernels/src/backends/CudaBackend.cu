// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The CUDA backend: the engine instantiated over CudaExec, the device probe, the upload of
// host points and the memory pool's lifetime.
#include "Boruvka.h"
#include "backends/Backends.h"
#include "backends/CudaExec.cuh"
#include "clusters/Cut.h"

#include <thrust/system/system_error.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <new>

namespace emst
{
namespace detail
{

namespace
{

struct ProbeResult
{
  bool usable = false;
  std::string reason;
  std::string name;
};

ProbeResult probe(int device)
{
  ProbeResult r;
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess)
  {
    (void)cudaGetLastError();
    // The runtime's words for "no driver at all" suggest an old driver: say both.
    r.reason = status == cudaErrorInsufficientDriver
      ? std::string("no NVIDIA driver found, or one older than this CUDA build needs (") +
        cudaGetErrorString(status) + ")"
      : status == cudaErrorNoDevice ? std::string("no CUDA device")
                                    : std::string(cudaGetErrorString(status));
    return r;
  }
  if (count == 0)
  {
    r.reason = "no CUDA device";
    return r;
  }
  if (device < 0 || device >= count)
  {
    r.reason = "CUDA device " + std::to_string(device) + " does not exist (" +
      std::to_string(count) + " device(s))";
    return r;
  }
  cudaDeviceProp prop{};
  status = cudaGetDeviceProperties(&prop, device);
  if (status != cudaSuccess)
  {
    (void)cudaGetLastError();
    r.reason = cudaGetErrorString(status);
    return r;
  }
  if (prop.major * 10 + prop.minor < 75)
  {
    r.reason = std::string(prop.name) + " has compute capability " + std::to_string(prop.major) +
      "." + std::to_string(prop.minor) + "; 7.5 or newer is needed";
    return r;
  }
  // Create the context now, so that a broken driver shows here and not in the middle of a run.
  int previous = 0;
  cudaGetDevice(&previous);
  status = cudaSetDevice(device);
  if (status == cudaSuccess)
  {
    status = cudaFree(nullptr);
  }
  cudaSetDevice(previous);
  if (status != cudaSuccess)
  {
    (void)cudaGetLastError();
    r.reason = cudaGetErrorString(status);
    return r;
  }
  r.usable = true;
  r.name = std::string(prop.name) + " (sm_" + std::to_string(prop.major) +
    std::to_string(prop.minor) + ")";
  return r;
}

const ProbeResult& cachedProbe(int device)
{
  static std::mutex mutex;
  static std::map<int, ProbeResult> results;
  std::lock_guard<std::mutex> lock(mutex);
  auto found = results.find(device);
  if (found == results.end())
  {
    found = results.emplace(device, probe(device)).first;
  }
  return found->second;
}

/// Makes `device` current for its lifetime and then restores the caller's.
class ScopedDevice
{
public:
  explicit ScopedDevice(int device)
  {
    EMST_CUDA_CHECK(cudaGetDevice(&this->Previous));
    EMST_CUDA_CHECK(cudaSetDevice(device));
  }
  ~ScopedDevice() { cudaSetDevice(this->Previous); }
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;

private:
  int Previous = 0;
};

/// Runs f(), turning the exceptions of Thrust's CUDA algorithms into emst::Error.
template <class F>
auto translateThrustErrors(F&& f) -> decltype(f())
{
  try
  {
    return f();
  }
  catch (const thrust::system_error& error)
  {
    (void)cudaGetLastError();
    throw Error(
      ErrorCode::DeviceError, std::string("CUDA error in a Thrust algorithm: ") + error.what());
  }
  catch (const std::bad_alloc&)
  {
    (void)cudaGetLastError();
    throw Error(ErrorCode::OutOfMemory, "the GPU ran out of memory in a Thrust algorithm");
  }
}

/// The device's stream-ordered pool and a stream of our own, for a run or a cutter's lifetime
/// (the device must be current). Freed blocks stay in the pool meanwhile (the rounds and the cuts
/// allocate and free every time). At the end the pool's release threshold is put back as it was
/// and the memory handed back to the driver, unless the caller asked to keep it warm
/// (Options::keepDeviceMemory: repeated calls, benchmarks): other users of the default pool in
/// the process (ParaView) keep their own setting.
class PoolStream
{
public:
  PoolStream(int device, bool keepMemory)
    : KeepMemory(keepMemory)
  {
    EMST_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&this->Pool, device));
    EMST_CUDA_CHECK(
      cudaMemPoolGetAttribute(this->Pool, cudaMemPoolAttrReleaseThreshold, &this->Threshold));
    std::uint64_t keep = ~std::uint64_t(0);
    EMST_CUDA_CHECK(cudaMemPoolSetAttribute(this->Pool, cudaMemPoolAttrReleaseThreshold, &keep));
    EMST_CUDA_CHECK(cudaStreamCreateWithFlags(&this->Stream, cudaStreamNonBlocking));
  }
  ~PoolStream()
  {
    cudaStreamSynchronize(this->Stream);
    cudaStreamDestroy(this->Stream);
    if (!this->KeepMemory)
    {
      cudaMemPoolSetAttribute(this->Pool, cudaMemPoolAttrReleaseThreshold, &this->Threshold);
      cudaMemPoolTrimTo(this->Pool, 0);
    }
    (void)cudaGetLastError(); // in a destructor: an error here is reported elsewhere
  }
  PoolStream(const PoolStream&) = delete;
  PoolStream& operator=(const PoolStream&) = delete;

  cudaStream_t stream() const { return this->Stream; }
  cudaMemPool_t pool() const { return this->Pool; }

private:
  bool KeepMemory;
  cudaMemPool_t Pool = nullptr;
  std::uint64_t Threshold = 0;
  cudaStream_t Stream = nullptr;
};

/// One run: the device made current (and the caller's restored last), its pool and stream.
class DeviceSession
{
public:
  DeviceSession(int device, bool keepMemory)
    : Current(device)
    , Resources(device, keepMemory)
  {
  }

  cudaStream_t stream() const { return this->Resources.stream(); }

  /// Bytes the run may still take: free device memory plus what the pool holds unused.
  std::size_t available() const
  {
    std::size_t freeBytes = 0, totalBytes = 0;
    EMST_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
    std::uint64_t reserved = 0, used = 0;
    cudaMemPool_t const pool = this->Resources.pool();
    EMST_CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
    EMST_CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
    return freeBytes + static_cast<std::size_t>(reserved - used);
  }

private:
  ScopedDevice Current; // made current first, restored last
  PoolStream Resources;
};

/// The free device memory a run plans with: `available`, or less where EMST_CUDA_FREE_MB says
/// so (as if other work held the rest: how the plan's choice is tested on a large GPU;
/// EMST_CUDA_MEMORY_LIMIT_MB caps the allocations themselves).
std::size_t planningMemory(std::size_t available)
{
  if (const char* text = std::getenv("EMST_CUDA_FREE_MB"))
  {
    return std::min(available, static_cast<std::size_t>(std::strtoull(text, nullptr, 10)) << 20);
  }
  return available;
}

/// Bytes of host input to upload: none for device input; the last point needs only `dimension`
/// scalars, not a whole stride.
std::size_t hostInputBytes(const PointCloudView& points)
{
  if (points.memory == MemorySpace::Device || points.count == 0)
  {
    return 0;
  }
  std::size_t const stride = points.stride ? points.stride : points.dimension;
  std::size_t const scalar = points.scalarType == ScalarType::Float64 ? 8 : 4;
  return ((points.count - 1) * stride + points.dimension) * scalar;
}

/// A device copy of host points, or the caller's device pointer itself.
class DeviceInput
{
public:
  DeviceInput(CudaExec& exec, const PointCloudView& points, double& uploadMs)
    : Exec(exec)
    , View(points)
  {
    this->Bytes = hostInputBytes(points);
    if (this->Bytes == 0)
    {
      return;
    }
    this->Data = exec.allocate(this->Bytes);
    uploadMs = exec.copyToDevice(this->Data, points.data, this->Bytes);
    this->View.data = this->Data;
    this->View.memory = MemorySpace::Device;
  }
  ~DeviceInput() { this->Exec.deallocate(this->Data, this->Bytes); }
  const PointCloudView& view() const { return this->View; }
  std::size_t bytes() const { return this->Bytes; }

private:
  CudaExec& Exec;
  PointCloudView View;
  void* Data = nullptr;
  std::size_t Bytes = 0;
};

} // namespace

bool probeCuda(int device, std::string* reason)
{
  const ProbeResult& r = cachedProbe(device);
  if (!r.usable && reason)
  {
    *reason = r.reason;
  }
  return r.usable;
}

namespace
{

/// One run on the GPU: run(boruvka, result) with the Boruvka of the points' dimension (keyed
/// with givenScale when > 0) over the uploaded points, then the run's phases, transfers and
/// memory into result.stats. `extraPerPoint`: what the run needs a point beside the tree's
/// working set (planDevice); a run that cannot fit in either layout is refused up front.
template <class Run>
Result runOnCuda(const PointCloudView& points, const Options& options, double givenScale,
  std::size_t extraPerPoint, Run run)
{
  const ProbeResult& device = cachedProbe(options.cudaDevice);
  if (!device.usable)
  {
    throw Error(ErrorCode::DeviceUnavailable, "CUDA backend unavailable: " + device.reason);
  }
  return translateThrustErrors(
    [&]
    {
      DeviceSession session(options.cudaDevice, options.keepDeviceMemory);
      CudaExec exec(session.stream());
      // The fast layout when it fits, else the lean one; what fits in neither is refused up
      // front rather than failing half-way (Auto then runs on the CPU at once).
      std::size_t const available = planningMemory(session.available());
      DevicePlan const plan = planDevice(points.count, points.dimension, hostInputBytes(points),
        extraPerPoint, available, std::getenv("EMST_CUDA_LAYOUT"));
      if (!plan.fits)
      {
        throw Error(ErrorCode::OutOfMemory,
          "the GPU has too little free memory: about " + std::to_string(plan.needed >> 20) +
            " MiB needed, " + std::to_string(available >> 20) + " MiB free");
      }
      exec.useLeanLayout(plan.lean);
      exec.reserveArena(plan.needed);

      Result result;
      result.stats.backend = Backend::Cuda;
      result.stats.deviceName = device.name;
      if (plan.lean && !plan.forced)
      {
        result.messages.push_back("the GPU's free memory (" + std::to_string(available >> 20) +
          " MiB) holds this run only in the engine's memory-lean layout (about " +
          std::to_string(gpuBytesPerPoint(true, points.dimension)) + " instead of " +
          std::to_string(gpuBytesPerPoint(false, points.dimension)) +
          " bytes a point): the tree is the same, the run 5-20% slower");
      }
      std::size_t inputBytes = 0;
      {
        DeviceInput input(exec, points, result.stats.uploadMilliseconds);
        inputBytes = input.bytes();
        if (points.dimension == 2)
        {
          run(Boruvka<CudaExec, 2>(exec, options, givenScale), input.view(), result);
        }
        else
        {
          run(Boruvka<CudaExec, 3>(exec, options, givenScale), input.view(), result);
        }
      }
      result.stats.phases = exec.phases();
      for (const PhaseTime& phase : result.stats.phases)
      {
        result.stats.computeMilliseconds += phase.milliseconds;
      }
      result.stats.downloadMilliseconds = exec.downloadMilliseconds();
      result.stats.peakBackendBytes = exec.peakBytes() - inputBytes; // the input is not ours
      return result; // phases() has waited for the stream
    });
}

} // namespace

Result runCuda(const PointCloudView& points, const Options& options, double givenScale)
{
  return runOnCuda(points, options, givenScale, 0,
    [](auto&& boruvka, const PointCloudView& view, Result& result) { boruvka.run(view, result); });
}

MutualReachabilityTree runCudaReachability(
  const PointCloudView& points, std::size_t minimumSamples, const Options& options)
{
  // The tree's working set, plus the cores (by distinct and by input point, their float bounds
  // and the subtrees' least ones) and the copies' anchors.
  MutualReachabilityTree tree;
  tree.tree = runOnCuda(points, options, 0.0, 48,
    [&](auto&& boruvka, const PointCloudView& view, Result& result)
    { boruvka.runMutualReachability(view, minimumSamples, result, tree.coreDistance); });
  return tree;
}

namespace
{

/// A tree on the GPU: its edges stay in device memory, each cut runs on the cutter's stream.
class CudaCutter : public CutBackend
{
public:
  CudaCutter(std::size_t points, const std::vector<EdgeEnds>& ends, int device)
    : Device(device)
    , Points(points)
  {
    ScopedDevice current(device);
    this->Resources = std::make_unique<PoolStream>(device, false);
    this->Exec = std::make_unique<CudaExec>(this->Resources->stream());
    this->Edges = std::make_unique<Buffer<EdgeEnds, CudaExec>>(*this->Exec, ends.size());
    this->Exec->copyToDevice(this->Edges->data(), ends.data(), ends.size() * sizeof(EdgeEnds));
  }
  ~CudaCutter() override
  {
    ScopedDevice current(this->Device);
    this->Edges.reset();
    this->Exec.reset();
    this->Resources.reset();
  }

  Clustering cut(std::size_t kept, std::size_t minimumSize, std::int32_t* clusterId,
    std::int64_t* groupSize) override
  {
    ScopedDevice current(this->Device);
    return translateThrustErrors(
      [&]
      {
        CudaExec exec(this->Resources->stream());
        Clustering result;
        cutTree(
          exec, this->Edges->data(), this->Points, kept, minimumSize, clusterId, groupSize, result);
        return result;
      });
  }

private:
  int Device;
  std::size_t Points;
  // Released in reverse order (the edges before the pool and stream), under the cutter's device.
  std::unique_ptr<PoolStream> Resources;
  std::unique_ptr<CudaExec> Exec;
  std::unique_ptr<Buffer<EdgeEnds, CudaExec>> Edges;
};

} // namespace

std::unique_ptr<CutBackend> makeCudaCutter(
  std::size_t points, const std::vector<EdgeEnds>& ends, int device)
{
  return translateThrustErrors(
    [&] { return std::unique_ptr<CutBackend>(new CudaCutter(points, ends, device)); });
}

std::string cudaDeviceName(int device)
{
  return cachedProbe(device).name;
}

} // namespace detail
} // namespace emst
