// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The CUDA backend's own primitives (Kernels/src/backends/CudaExec.cuh) against serial
// references, on sizes that reach every path: one tile, tile edges, many tiles, and more tiles
// than a block reduces (a device scan of the tile maxima between the two launches). The engine
// tests cannot see every fault of these: a running maximum too large only makes the subtree
// labels kMixed (slower searches, the same tree).
#include "TestSupport.h"
#include "backends/CudaExec.cuh"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace
{
using emst::detail::CudaExec;
using emst::detail::Index;

/// The engine's use: j where a run of equal labels starts (LabelRunStart), else 0.
struct RunStarts
{
  const Index* label;
  __device__ Index operator()(std::size_t j) const
  {
    return j == 0 || label[j] != label[j - 1] ? static_cast<Index>(j) : 0u;
  }
};

/// Labels in runs whose lengths are drawn from `mean` (1: every label differs from the one
/// before; large: long stretches without a run start, across tiles).
std::vector<Index> runsOfLabels(std::size_t n, double mean, std::uint32_t seed)
{
  std::mt19937 random(seed);
  std::geometric_distribution<std::size_t> length(1.0 / mean);
  std::vector<Index> label(n);
  Index current = 0;
  for (std::size_t j = 0; j < n;)
  {
    std::size_t const run = 1 + length(random);
    for (std::size_t k = 0; k < run && j < n; ++k, ++j)
    {
      label[j] = current;
    }
    current = (current + 1 + static_cast<Index>(random() % 3)) % 5; // labels repeat, runs not
  }
  return label;
}

template <class T>
T* deviceCopy(const std::vector<T>& host)
{
  T* device = nullptr;
  EXPECT_EQ(cudaMalloc(&device, host.size() * sizeof(T)), cudaSuccess);
  EXPECT_EQ(
    cudaMemcpy(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  return device;
}

/// runningMaximum over the run starts of `label`, with `components` on the device; the result,
/// with `out` filled with `sentinel` first.
std::vector<Index> deviceRunningMaximum(
  const std::vector<Index>& label, std::uint32_t components, Index sentinel)
{
  std::size_t const n = label.size();
  Index* const dLabel = deviceCopy(label);
  Index* const dOut = deviceCopy(std::vector<Index>(n, sentinel));
  std::uint32_t* const dComponents = deviceCopy(std::vector<std::uint32_t>{ components });
  cudaStream_t stream = nullptr;
  EXPECT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  {
    CudaExec exec(stream);
    exec.runningMaximum(n, dComponents, RunStarts{ dLabel }, dOut);
    EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  }
  std::vector<Index> out(n);
  EXPECT_EQ(cudaMemcpy(out.data(), dOut, n * sizeof(Index), cudaMemcpyDeviceToHost), cudaSuccess);
  cudaStreamDestroy(stream);
  cudaFree(dLabel);
  cudaFree(dOut);
  cudaFree(dComponents);
  return out;
}

TEST(CudaExec, RunningMaximumMatchesSerialScan)
{
  if (emsttest::skipUnlessRunnable(emst::Backend::Cuda))
  {
    GTEST_SKIP() << "no usable CUDA device";
  }
  constexpr std::size_t kTile = emst::detail::kScanTile;
  constexpr std::size_t kManyTiles = emst::detail::kScanTilesReduced * kTile + 3;
  struct Case
  {
    std::size_t n;
    double meanRun;
  };
  for (Case const c : { Case{ 1, 1.0 }, Case{ 2, 1.0 }, Case{ kTile - 1, 3.0 }, Case{ kTile, 1.0 },
         Case{ kTile + 1, 3.0 }, Case{ 7 * kTile + 5, 3.0 }, Case{ 300000, 2.0 },
         Case{ 300000, 5000.0 }, Case{ kManyTiles, 4.0 }, Case{ kManyTiles, 100000.0 } })
  {
    SCOPED_TRACE("n = " + std::to_string(c.n) + ", mean run " + std::to_string(c.meanRun));
    std::vector<Index> const label = runsOfLabels(c.n, c.meanRun, static_cast<std::uint32_t>(c.n));
    std::vector<Index> expected(c.n);
    Index running = 0;
    for (std::size_t j = 0; j < c.n; ++j)
    {
      Index const start = j == 0 || label[j] != label[j - 1] ? static_cast<Index>(j) : 0u;
      running = start > running ? start : running;
      expected[j] = running;
    }
    std::vector<Index> const got = deviceRunningMaximum(label, 2, 0xFFFFFFFEu);
    ASSERT_EQ(got.size(), expected.size());
    for (std::size_t j = 0; j < c.n; ++j)
    {
      ASSERT_EQ(got[j], expected[j]) << "at " << j;
    }
  }
}

TEST(CudaExec, RunningMaximumDoesNothingOnceOneComponentIsLeft)
{
  if (emsttest::skipUnlessRunnable(emst::Backend::Cuda))
  {
    GTEST_SKIP() << "no usable CUDA device";
  }
  std::vector<Index> const label = runsOfLabels(5000, 3.0, 7);
  for (std::uint32_t const components : { 0u, 1u })
  {
    std::vector<Index> const got = deviceRunningMaximum(label, components, 12345u);
    EXPECT_EQ(got, std::vector<Index>(label.size(), 12345u));
  }
}

} // namespace
