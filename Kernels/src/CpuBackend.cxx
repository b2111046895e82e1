// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The CPU backend: the engine instantiated over CpuExec.
#include "Backends.h"
#include "CpuExec.h"
#include "Engine.h"

#include <omp.h>

namespace emst
{
namespace detail
{

Result runCpu(const PointCloudView& points, const Options& options)
{
  CpuExec exec(options.cpuThreads);
  // Thrust's OMP algorithms use the OpenMP default team size: set it for this thread only, and
  // put the caller's back afterwards.
  struct ThreadCount
  {
    int saved = omp_get_max_threads();
    explicit ThreadCount(int n) { omp_set_num_threads(n); }
    ~ThreadCount() { omp_set_num_threads(saved); }
  } threadCount(exec.threads());

  Result result;
  result.stats.backend = Backend::Cpu;
  result.stats.deviceName = "CPU (" + std::to_string(exec.threads()) + " threads)";
  if (points.dimension == 2)
  {
    Engine<CpuExec, 2>(exec, options).run(points, result);
  }
  else
  {
    Engine<CpuExec, 3>(exec, options).run(points, result);
  }
  exec.endCompute();
  result.stats.phases = exec.phases();
  for (const PhaseTime& phase : result.stats.phases)
  {
    result.stats.computeMilliseconds += phase.milliseconds;
  }
  result.stats.peakBackendBytes = exec.peakBytes();
  return result;
}

} // namespace detail
} // namespace emst
