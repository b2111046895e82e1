// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Backend selection, the small API functions, and CPU vs CUDA agreement.
#include "TestSupport.h"

#include "emst/PointFile.h"

#include <cstring>
#include <set>

using namespace emsttest;
using emst::Backend;

namespace
{
std::string errorName(const std::function<void()>& call)
{
  try
  {
    call();
  }
  catch (const emst::Error& e)
  {
    return errorCodeName(e.code());
  }
  catch (const std::exception& e)
  {
    return std::string("non-emst exception: ") + e.what();
  }
  return "no error";
}

Cloud smallCloud()
{
  Rng rng(5);
  return makeCloud("10 uniform points", 3, emst::ScalarType::Float32, uniformPoints(rng, 10, 3));
}
} // namespace

TEST(Api, ParseBackend)
{
  EXPECT_EQ(emst::parseBackend("auto"), Backend::Auto);
  EXPECT_EQ(emst::parseBackend("AUTO"), Backend::Auto);
  EXPECT_EQ(emst::parseBackend("Auto"), Backend::Auto);
  EXPECT_EQ(emst::parseBackend("cuda"), Backend::Cuda);
  EXPECT_EQ(emst::parseBackend("CUDA"), Backend::Cuda);
  EXPECT_EQ(emst::parseBackend("gpu"), Backend::Cuda);
  EXPECT_EQ(emst::parseBackend("Gpu"), Backend::Cuda);
  EXPECT_EQ(emst::parseBackend("cpu"), Backend::Cpu);
  EXPECT_EQ(emst::parseBackend("CPU"), Backend::Cpu);
  for (const char* bad : { "", "cpux", "opencl", "c pu", "0" })
  {
    EXPECT_EQ(errorName([&] { emst::parseBackend(bad); }), "InvalidInput") << "'" << bad << "'";
  }
}

TEST(Api, BackendNames)
{
  std::set<std::string> names;
  for (Backend b : { Backend::Auto, Backend::Cuda, Backend::Cpu })
  {
    const char* name = emst::backendName(b);
    ASSERT_NE(name, nullptr);
    EXPECT_GT(std::strlen(name), 0u);
    names.insert(name);
    // The name parses back to the same backend.
    EXPECT_EQ(emst::parseBackend(name), b) << name;
  }
  EXPECT_EQ(names.size(), 3u);
}

TEST(Api, CudaProbeIsConsistent)
{
  std::string reason;
  const bool available = emst::cudaDeviceAvailable(&reason);
  if (!emst::cudaBackendCompiled())
  {
    EXPECT_FALSE(available);
  }
  if (!available)
  {
    EXPECT_FALSE(reason.empty()) << "cudaDeviceAvailable is false without a reason";
  }
  EXPECT_EQ(emst::cudaDeviceAvailable(), available) << "a second probe disagrees";
}

TEST(Api, CudaUnavailableIsReported)
{
  std::string reason;
  if (cudaUsable(&reason))
  {
    GTEST_SKIP() << "CUDA is usable here (see Api.AutoPicksCuda)";
  }
  const Cloud cloud = smallCloud();
  EXPECT_EQ(errorName([&] { emst::computeEmst(cloud.view(), optionsFor(Backend::Cuda)); }),
    "DeviceUnavailable")
    << "Backend::Cuda without a usable device (" << reason << ")";

  const auto result = runEngine(cloud, optionsFor(Backend::Auto));
  ASSERT_TRUE(result);
  EXPECT_EQ(result->stats.backend, Backend::Cpu);
  if (emst::cudaBackendCompiled())
  {
    EXPECT_FALSE(result->messages.empty()) << "Auto fell back to the CPU without saying why";
  }
}

TEST(Api, AutoPicksCuda)
{
  if (skipUnlessRunnable(Backend::Cuda))
  {
    GTEST_SKIP() << "CUDA not usable here";
  }
  const Cloud cloud = smallCloud();
  const auto result = runEngine(cloud, optionsFor(Backend::Auto));
  ASSERT_TRUE(result);
  EXPECT_EQ(result->stats.backend, Backend::Cuda);
}

TEST(Api, DeviceMemoryOnCpuBackendIsRejected)
{
  // "Device pointers are accepted by the CUDA backend only."
  const Cloud cloud = smallCloud();
  emst::PointCloudView view = cloud.view();
  view.memory = emst::MemorySpace::Device;
  const std::string error = errorName([&] { emst::computeEmst(view, optionsFor(Backend::Cpu)); });
  EXPECT_TRUE(error == "InvalidInput" || error == "DeviceUnavailable")
    << "MemorySpace::Device with Backend::Cpu gave " << error;
}

// ---- CPU and CUDA give the same list, bit for bit
// ------------------------------------------------

namespace
{
void expectSameOnBothBackends(const Cloud& cloud)
{
  const auto a = runEngine(cloud, optionsFor(Backend::Cpu));
  const auto b = runEngine(cloud, optionsFor(Backend::Cuda));
  if (!a || !b)
  {
    return;
  }
  EXPECT_TRUE(sameEdgeLists(a->edges, b->edges, &cloud))
    << cloud.label << ": CPU (expected) vs CUDA (got)";
  EXPECT_EQ(a->totalWeight, b->totalWeight) << cloud.label;
  EXPECT_EQ(a->stats.validPoints, b->stats.validPoints) << cloud.label;
  EXPECT_EQ(a->stats.nonFinitePoints, b->stats.nonFinitePoints) << cloud.label;
  EXPECT_EQ(a->stats.duplicatePoints, b->stats.duplicatePoints) << cloud.label;
}
} // namespace

TEST(CrossBackend, SyntheticClouds)
{
  if (skipUnlessRunnable(Backend::Cuda))
  {
    GTEST_SKIP() << "CUDA not usable here: nothing to compare";
  }
  Rng rng(211);
  for (int dim : { 2, 3 })
  {
    for (emst::ScalarType type : { emst::ScalarType::Float32, emst::ScalarType::Float64 })
    {
      expectSameOnBothBackends(
        makeCloud("uniform 200k", dim, type, uniformPoints(rng, 200000, dim)));
      expectSameOnBothBackends(
        makeCloud("clustered 200k", dim, type, clusteredPoints(rng, 200000, dim)));
      expectSameOnBothBackends(
        makeCloud("integers in [0,40]", dim, type, integerPoints(rng, 100000, dim, 40)));
    }
  }
  auto lattice = latticePoints(40, 40, 40);
  rng.shuffle(lattice);
  expectSameOnBothBackends(
    makeCloud("3D lattice 40^3, shuffled", 3, emst::ScalarType::Float32, lattice));
  auto fcc = fccPoints(16);
  rng.shuffle(fcc);
  expectSameOnBothBackends(makeCloud("FCC 16 cells, shuffled", 3, emst::ScalarType::Float64, fcc));
  expectSameOnBothBackends(makeCloud("100 x 100 copies", 3, emst::ScalarType::Float32,
    repeatPoints(uniformPoints(rng, 100, 3), 100, &rng)));
  auto poisoned = uniformPoints(rng, 50000, 3);
  for (std::size_t k = 0; k < poisoned.size(); k += 17)
  {
    poisoned[k][k % 3] = std::numeric_limits<double>::quiet_NaN();
  }
  expectSameOnBothBackends(makeCloud("uniform with NaNs", 3, emst::ScalarType::Float64, poisoned));
}

TEST(CrossBackend, DataSets)
{
  if (skipUnlessRunnable(Backend::Cuda))
  {
    GTEST_SKIP() << "CUDA not usable here: nothing to compare";
  }
  for (const std::string& folder : { repoDataDir(), sharedDataDir() })
  {
    for (const DataSetFile& set : dataSetsIn(folder))
    {
      if (set.name.empty())
      {
        continue; // the shared folder is optional; DataSet.* fails a missing repository folder
      }
      expectSameOnBothBackends(cloudOf(emst::readPointFile(set.path(".f32")), set.name));
    }
  }
}
