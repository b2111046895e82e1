// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Too little GPU memory: the CUDA backend reports OutOfMemory (an emst::Error, never a crash),
// leaves the device usable, and Backend::Auto runs on the CPU instead and says so. The GPU is
// made small with EMST_CUDA_MEMORY_LIMIT_MB, which caps the engine's device allocations, so the
// failure happens in the middle of a run (after the upload), where the clean-up matters.
// Memory that holds the lean layout and not the fast one (EMST_CUDA_FREE_MB, what the plan sees):
// the run takes the lean layout, keeps within the plan, and gives the same tree. A small run's
// buffers in one block, in the pool's allocations or in both: the same run.
#include "TestSupport.h"
#include "backends/Layouts.h"

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

using namespace emsttest;
using emst::Backend;

namespace
{

Cloud fallbackCloud()
{
  Rng rng(77);
  return makeCloud(
    "200k clustered points", 3, emst::ScalarType::Float32, clusteredPoints(rng, 200000, 3));
}

} // namespace

TEST(Fallback, CudaOutOfMemoryIsAnError)
{
  if (skipUnlessRunnable(Backend::Cuda))
  {
    GTEST_SKIP() << "CUDA not usable here";
  }
  const Cloud cloud = fallbackCloud();
  const emst::Options cuda = optionsFor(Backend::Cuda);
  {
    ScopedEnv small("EMST_CUDA_MEMORY_LIMIT_MB", "4");
    try
    {
      emst::computeEmst(cloud.view(), cuda);
      ADD_FAILURE() << "a 4 MiB GPU computed the tree of 200k points";
    }
    catch (const emst::Error& e)
    {
      EXPECT_EQ(e.code(), emst::ErrorCode::OutOfMemory) << e.what();
      EXPECT_NE(std::string(e.what()).find("memory"), std::string::npos) << e.what();
    }
  }
  // The failed run released what it held: the device still works, with the same tree as the CPU.
  const auto onGpu = runEngine(cloud, cuda);
  const auto onCpu = runEngine(cloud, optionsFor(Backend::Cpu));
  ASSERT_TRUE(onGpu && onCpu);
  EXPECT_EQ(onGpu->stats.backend, Backend::Cuda);
  EXPECT_TRUE(sameEdgeLists(onGpu->edges, onCpu->edges));
}

TEST(Fallback, AutoRunsOnTheCpuWhenTheGpuIsTooSmall)
{
  if (skipUnlessRunnable(Backend::Cuda))
  {
    GTEST_SKIP() << "CUDA not usable here";
  }
  const Cloud cloud = fallbackCloud();
  const auto reference = runEngine(cloud, optionsFor(Backend::Cpu));
  ASSERT_TRUE(reference);

  ScopedEnv small("EMST_CUDA_MEMORY_LIMIT_MB", "4");
  const auto result = runEngine(cloud, optionsFor(Backend::Auto));
  ASSERT_TRUE(result);
  EXPECT_EQ(result->stats.backend, Backend::Cpu);
  ASSERT_FALSE(result->messages.empty());
  EXPECT_NE(result->messages.front().find("ran on the CPU"), std::string::npos)
    << result->messages.front();
  EXPECT_NE(result->messages.front().find("memory"), std::string::npos) << result->messages.front();
  EXPECT_TRUE(sameEdgeLists(result->edges, reference->edges));
  EXPECT_EQ(result->totalWeight, reference->totalWeight);
}

TEST(Fallback, LeanLayoutWhenOnlyItFits)
{
  if (skipUnlessRunnable(Backend::Cuda))
  {
    GTEST_SKIP() << "CUDA not usable here";
  }
  const Cloud cloud = fallbackCloud();
  std::size_t const n = cloud.count;
  std::size_t const input = n * 3 * sizeof(float);
  std::size_t const anything = ~std::size_t(0);
  std::size_t const lean = emst::detail::planDevice(n, 3, input, 0, anything, "lean").needed;
  std::size_t const fast = emst::detail::planDevice(n, 3, input, 0, anything, "fast").needed;
  std::size_t const mib = (lean + (std::size_t(1) << 20) - 1) >> 20;
  ASSERT_LT(mib << 20, fast) << "no whole MiB between the two layouts' plans";
  const auto reference = runEngine(cloud, optionsFor(Backend::Cpu));
  ASSERT_TRUE(reference);

  // Free memory for the lean layout only, and allocations capped there too.
  ScopedEnv free("EMST_CUDA_FREE_MB", std::to_string(mib));
  ScopedEnv cap("EMST_CUDA_MEMORY_LIMIT_MB", std::to_string(mib));
  const auto result = runEngine(cloud, optionsFor(Backend::Auto));
  ASSERT_TRUE(result);
  EXPECT_EQ(result->stats.backend, Backend::Cuda);
  ASSERT_FALSE(result->messages.empty());
  EXPECT_NE(result->messages.front().find("memory-lean layout"), std::string::npos)
    << result->messages.front();
  EXPECT_LE(result->stats.peakBackendBytes + input, mib << 20);
  EXPECT_TRUE(sameEdgeLists(result->edges, reference->edges));
  EXPECT_EQ(result->totalWeight, reference->totalWeight);
}

TEST(Fallback, RunsKeepWithinThePlansFigures)
{
  if (skipUnlessRunnable(Backend::Cuda))
  {
    GTEST_SKIP() << "CUDA not usable here";
  }
  // Large enough for the bytes a point to dominate the fixed part, in each layout: uniform and
  // clustered points, and integer points (many tied lengths, duplicates: the output's tie sort).
  std::size_t const n = 2000000;
  Rng rng(2026);
  std::vector<Cloud> clouds;
  clouds.push_back(makeCloud("uniform 3D", 3, emst::ScalarType::Float32, uniformPoints(rng, n, 3)));
  clouds.push_back(
    makeCloud("clustered 3D", 3, emst::ScalarType::Float32, clusteredPoints(rng, n, 3)));
  clouds.push_back(
    makeCloud("integer 3D", 3, emst::ScalarType::Float32, integerPoints(rng, n, 3, 400)));
  clouds.push_back(makeCloud("uniform 2D", 2, emst::ScalarType::Float32, uniformPoints(rng, n, 2)));
  clouds.push_back(
    makeCloud("integer 2D", 2, emst::ScalarType::Float32, integerPoints(rng, n, 2, 4000)));
  for (const Cloud& cloud : clouds)
  {
    SCOPED_TRACE(cloud.label);
    std::optional<emst::Result> runs[2];
    for (bool lean : { false, true })
    {
      ScopedEnv layout("EMST_CUDA_LAYOUT", lean ? "lean" : "fast");
      runs[lean] = runEngine(cloud, optionsFor(Backend::Cuda));
      ASSERT_TRUE(runs[lean]);
      std::size_t const peak = runs[lean]->stats.peakBackendBytes;
      EXPECT_LE(peak, n * emst::detail::gpuBytesPerPoint(lean, cloud.dimension))
        << (lean ? "lean" : "fast") << ": " << static_cast<double>(peak) / n << " bytes a point";
    }
    EXPECT_LT(runs[1]->stats.peakBackendBytes, runs[0]->stats.peakBackendBytes);
    EXPECT_TRUE(sameEdgeLists(runs[1]->edges, runs[0]->edges));
  }
}

TEST(Fallback, OneBlockOrThePoolGiveTheSameRun)
{
  if (skipUnlessRunnable(Backend::Cuda))
  {
    GTEST_SKIP() << "CUDA not usable here";
  }
  // A small run's buffers are pieces of one block (CudaExec::reserveArena); each from the pool
  // (EMST_CUDA_ARENA=0), or from both where a block of 1 MiB holds only some: the same tree and
  // the same peak, which counts the bytes asked for wherever they lie. Clustered points, and
  // integer points (duplicates, tied lengths: the output's gathered runs).
  Rng rng(5);
  std::vector<Cloud> clouds;
  clouds.push_back(fallbackCloud());
  clouds.push_back(
    makeCloud("integer 3D", 3, emst::ScalarType::Float32, integerPoints(rng, 100000, 3, 60)));
  for (const Cloud& cloud : clouds)
  {
    SCOPED_TRACE(cloud.label);
    const auto block = runEngine(cloud, optionsFor(Backend::Cuda));
    ASSERT_TRUE(block);
    for (const char* arena : { "0", "1" })
    {
      SCOPED_TRACE(std::string("EMST_CUDA_ARENA=") + arena);
      ScopedEnv knob("EMST_CUDA_ARENA", arena);
      const auto other = runEngine(cloud, optionsFor(Backend::Cuda));
      ASSERT_TRUE(other);
      EXPECT_TRUE(sameEdgeLists(other->edges, block->edges));
      EXPECT_EQ(other->stats.peakBackendBytes, block->stats.peakBackendBytes);
    }
  }
}

TEST(Fallback, ReplayedRoundsGiveTheSameTree)
{
  if (skipUnlessRunnable(Backend::Cuda))
  {
    GTEST_SKIP() << "CUDA not usable here";
  }
  // A small run's rounds from the third replay one captured round (ReplayedRounds): the same
  // tree, and the same rounds, as the rounds queued one by one (EMST_REPLAY_ROUNDS=0), as the
  // replays' slots without graphs (EMST_CUDA_GRAPHS=0) and as the CPU's. Uniform and clustered
  // points, integer points (duplicates, tied lengths), a lattice (every length tied), in 2D and
  // 3D, float and double.
  Rng rng(11);
  std::vector<Cloud> clouds;
  clouds.push_back(
    makeCloud("uniform 3D", 3, emst::ScalarType::Float32, uniformPoints(rng, 60000, 3)));
  clouds.push_back(
    makeCloud("clustered 3D", 3, emst::ScalarType::Float64, clusteredPoints(rng, 80000, 3)));
  clouds.push_back(
    makeCloud("integer 2D", 2, emst::ScalarType::Float32, integerPoints(rng, 50000, 2, 150)));
  clouds.push_back(
    makeCloud("lattice 2D", 2, emst::ScalarType::Float32, latticePoints(230, 190, 1)));
  for (const Cloud& cloud : clouds)
  {
    SCOPED_TRACE(cloud.label);
    const auto cpu = runEngine(cloud, optionsFor(Backend::Cpu));
    ASSERT_TRUE(cpu);
    const auto replayed = runEngine(cloud, optionsFor(Backend::Cuda));
    ASSERT_TRUE(replayed);
    EXPECT_TRUE(sameEdgeLists(cpu->edges, replayed->edges));
    if (cloud.label.find("lattice") == std::string::npos) // a lattice: one round, every length ties
    {
      EXPECT_GE(replayed->stats.rounds, 4) << "no round replayed";
    }
    for (auto const& [knob, value] :
      { std::pair<const char*, const char*>{ "EMST_REPLAY_ROUNDS", "0" },
        { "EMST_CUDA_GRAPHS", "0" } })
    {
      SCOPED_TRACE(std::string(knob) + "=" + value);
      ScopedEnv setting(knob, value);
      const auto other = runEngine(cloud, optionsFor(Backend::Cuda));
      ASSERT_TRUE(other);
      EXPECT_TRUE(sameEdgeLists(replayed->edges, other->edges));
      EXPECT_EQ(other->stats.rounds, replayed->stats.rounds);
    }
  }
}
