// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The CPU backend: the engine instantiated over CpuExec.
#include "Boruvka.h"
#include "backends/Backends.h"
#include "backends/CpuExec.h"
#include "clusters/Cut.h"

#include <omp.h>

namespace emst
{
namespace detail
{

namespace
{

/// Thrust's OMP algorithms use the OpenMP default team size: set it for this thread only, and
/// put the caller's back afterwards.
class ScopedThreadCount
{
public:
  explicit ScopedThreadCount(int n) { omp_set_num_threads(n); }
  ~ScopedThreadCount() { omp_set_num_threads(this->Saved); }
  ScopedThreadCount(const ScopedThreadCount&) = delete;
  ScopedThreadCount& operator=(const ScopedThreadCount&) = delete;

private:
  int Saved = omp_get_max_threads();
};

class CpuCutter : public CutBackend
{
public:
  CpuCutter(std::size_t points, const std::vector<Edge>& sorted)
    : Points(points)
    , Sorted(sorted)
  {
  }
  Clustering cut(std::size_t kept, std::size_t minimumSize, std::int32_t* clusterId,
    std::int64_t* groupSize) override
  {
    CpuExec exec(0);
    ScopedThreadCount threads(exec.threads());
    Clustering result;
    cutTree(
      exec, this->Sorted.data(), this->Points, kept, minimumSize, clusterId, groupSize, result);
    return result;
  }

private:
  std::size_t Points;
  const std::vector<Edge>& Sorted; // the TreeCutter's, which outlives this
};

} // namespace

std::unique_ptr<CutBackend> makeCpuCutter(std::size_t points, const std::vector<Edge>& sorted)
{
  return std::make_unique<CpuCutter>(points, sorted);
}

namespace
{

/// One run on the CPU: run(boruvka, result) with the Boruvka of the points' dimension (keyed
/// with givenScale when > 0), then the run's phases and memory into result.stats.
template <class Run>
Result runOnCpu(const PointCloudView& points, const Options& options, double givenScale, Run run)
{
  CpuExec exec(options.cpuThreads);
  ScopedThreadCount threadCount(exec.threads());

  Result result;
  result.stats.backend = Backend::Cpu;
  result.stats.deviceName = "CPU (" + std::to_string(exec.threads()) + " threads)";
  if (points.dimension == 2)
  {
    run(Boruvka<CpuExec, 2>(exec, options, givenScale), result);
  }
  else
  {
    run(Boruvka<CpuExec, 3>(exec, options, givenScale), result);
  }
  result.stats.phases = exec.phases();
  for (const PhaseTime& phase : result.stats.phases)
  {
    result.stats.computeMilliseconds += phase.milliseconds;
  }
  result.stats.peakBackendBytes = exec.peakBytes();
  return result;
}

} // namespace

Result runCpu(const PointCloudView& points, const Options& options, double givenScale)
{
  return runOnCpu(points, options, givenScale,
    [&](auto&& boruvka, Result& result) { boruvka.run(points, result); });
}

MutualReachabilityTree runCpuReachability(
  const PointCloudView& points, std::size_t minimumSamples, const Options& options)
{
  MutualReachabilityTree tree;
  tree.tree = runOnCpu(points, options, 0.0,
    [&](auto&& boruvka, Result& result)
    { boruvka.runMutualReachability(points, minimumSamples, result, tree.coreDistance); });
  return tree;
}

} // namespace detail
} // namespace emst
