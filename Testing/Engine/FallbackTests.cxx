// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Too little GPU memory: the CUDA backend reports OutOfMemory (an emst::Error, never a crash),
// leaves the device usable, and Backend::Auto runs on the CPU instead and says so. The GPU is
// made small with EMST_CUDA_MEMORY_LIMIT_MB, which caps the engine's device allocations, so the
// failure happens in the middle of a run (after the upload), where the clean-up matters.
#include "TestSupport.h"

#include <cstdlib>

using namespace emsttest;
using emst::Backend;

namespace
{

/// Sets an environment variable for the scope of one test.
class ScopedEnv
{
public:
  ScopedEnv(const char* name, const char* value)
    : Name(name)
  {
    ::setenv(name, value, 1);
  }
  ~ScopedEnv() { ::unsetenv(this->Name); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
  const char* Name;
};

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
