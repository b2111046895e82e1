// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The CUDA backend's own primitives (Kernels/src/backends/CudaExec.cuh) against serial
// references, on sizes that reach every path: one tile, tile edges, many tiles, and more tiles
// than a block reduces (a device scan of the tile maxima between two launches); the counts and
// reductions read back to the host. The engine tests cannot see every fault of these: a running
// maximum too large only makes the subtree labels kMixed (slower searches, the same tree).
#include "PairSortCases.h"
#include "TestSupport.h"
#include "backends/CudaExec.cuh"
#include "base/PairSort.h"
#include "phases/Duplicates.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
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

/// The serial reference: the largest run start of `label` at or before each index.
std::vector<Index> serialRunningMaximum(const std::vector<Index>& label)
{
  std::vector<Index> expected(label.size());
  Index running = 0;
  for (std::size_t j = 0; j < label.size(); ++j)
  {
    Index const start = j == 0 || label[j] != label[j - 1] ? static_cast<Index>(j) : 0u;
    running = start > running ? start : running;
    expected[j] = running;
  }
  return expected;
}

/// runningMaximum over the run starts of `label`, with `components` on the device (none: a null
/// count, which runs always); the result, with `out` filled with `sentinel` first.
std::vector<Index> deviceRunningMaximum(
  const std::vector<Index>& label, std::optional<std::uint32_t> components, Index sentinel)
{
  std::size_t const n = label.size();
  Index* const dLabel = deviceCopy(label);
  Index* const dOut = deviceCopy(std::vector<Index>(n, sentinel));
  std::uint32_t* const dComponents =
    components ? deviceCopy(std::vector<std::uint32_t>{ *components }) : nullptr;
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
    std::vector<Index> const expected = serialRunningMaximum(label);
    // With a count of components (the rounds') and without (the duplicates': always).
    for (std::optional<std::uint32_t> const components :
      { std::optional<std::uint32_t>(2u), std::optional<std::uint32_t>() })
    {
      SCOPED_TRACE(components ? "with a count" : "without a count");
      std::vector<Index> const got = deviceRunningMaximum(label, components, 0xFFFFFFFEu);
      ASSERT_EQ(got.size(), expected.size());
      for (std::size_t j = 0; j < c.n; ++j)
      {
        ASSERT_EQ(got[j], expected[j]) << "at " << j;
      }
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

TEST(CudaExec, RunningMaximumRepeatedOnOneExec)
{
  if (emsttest::skipUnlessRunnable(emst::Backend::Cuda))
  {
    GTEST_SKIP() << "no usable CUDA device";
  }
  // One exec, calls with fewer tiles after more: the words the earlier calls left in the tiles
  // of the later ones must not pass for theirs.
  constexpr std::size_t kTile = emst::detail::kScanTile;
  std::vector<std::size_t> const sizes{ 40 * kTile + 7, 9 * kTile, 3 * kTile + 1, 40 * kTile, 2,
    kTile + 1, 70 * kTile + 11 };
  std::vector<std::vector<Index>> labels;
  std::vector<Index*> dLabel;
  std::vector<Index*> dOut;
  std::uint32_t* const dComponents = deviceCopy(std::vector<std::uint32_t>{ 2u });
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  {
    CudaExec exec(stream);
    for (std::size_t k = 0; k < sizes.size(); ++k)
    {
      labels.push_back(runsOfLabels(sizes[k], k % 2 ? 2.0 : 3000.0, static_cast<std::uint32_t>(k)));
      dLabel.push_back(deviceCopy(labels.back()));
      dOut.push_back(deviceCopy(std::vector<Index>(sizes[k], 0xFFFFFFFEu)));
      exec.runningMaximum(sizes[k], dComponents, RunStarts{ dLabel.back() }, dOut.back());
    }
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  }
  for (std::size_t k = 0; k < sizes.size(); ++k)
  {
    SCOPED_TRACE("call " + std::to_string(k) + ", n = " + std::to_string(sizes[k]));
    std::vector<Index> got(sizes[k]);
    ASSERT_EQ(cudaMemcpy(got.data(), dOut[k], sizes[k] * sizeof(Index), cudaMemcpyDeviceToHost),
      cudaSuccess);
    std::vector<Index> const expected = serialRunningMaximum(labels[k]);
    for (std::size_t j = 0; j < sizes[k]; ++j)
    {
      ASSERT_EQ(got[j], expected[j]) << "at " << j;
    }
    cudaFree(dLabel[k]);
    cudaFree(dOut[k]);
  }
  cudaStreamDestroy(stream);
  cudaFree(dComponents);
}

/// Labels in runs of a length that the device's serial sets: a replayed pass whose result
/// differs from one replay to the next.
EMST_HD inline Index serialLabel(std::size_t j, std::uint32_t serial)
{
  std::size_t const run = 1 + (serial * 37u) % 500u;
  return static_cast<Index>(((j / run) * 2654435761u) % 7u);
}
struct SerialLabels
{
  Index* label;
  const std::uint32_t* serial;
  __device__ void operator()(std::size_t j) const { label[j] = serialLabel(j, *serial); }
};
struct NextSerial
{
  std::uint32_t* serial;
  __device__ void operator()(std::size_t) const { *serial += 1; }
};

TEST(CudaExec, ReplayedRunningMaximaAreEachTheirOwn)
{
  if (emsttest::skipUnlessRunnable(emst::Backend::Cuda))
  {
    GTEST_SKIP() << "no usable CUDA device";
  }
  // A captured body replayed (CudaExec::replay, as Boruvka's replayed rounds): labels set by a
  // device serial, their running maximum over many tiles, the serial moved on; between the
  // replays, calls of the exec's own on other labels. Every replay's maximum is its own labels'
  // (the tiles' words carry the replays' epochs and the host's apart, the ticket is zero again).
  // Three runs, each an exec and buffers of its own: the second and third update the graph the
  // one before kept (KeptGraphs) to their buffers; without graphs, the bodies queued as they are.
  constexpr std::size_t kTile = emst::detail::kScanTile;
  std::size_t const n = 40 * kTile + 7;
  std::vector<Index> const otherLabel = runsOfLabels(9 * kTile + 1, 3.0, 5);
  for (const char* graphs : { "", "", "", "0" })
  {
    SCOPED_TRACE(std::string("EMST_CUDA_GRAPHS=") + graphs);
    std::optional<emsttest::ScopedEnv> knob;
    if (*graphs)
    {
      knob.emplace("EMST_CUDA_GRAPHS", graphs);
    }
    std::uint32_t* const dSerial = deviceCopy(std::vector<std::uint32_t>{ 3u });
    std::uint32_t* const dComponents = deviceCopy(std::vector<std::uint32_t>{ 2u });
    Index* const dLabel = deviceCopy(std::vector<Index>(n, 0u));
    Index* const dOut = deviceCopy(std::vector<Index>(n, 0xFFFFFFFEu));
    Index* const dOtherLabel = deviceCopy(otherLabel);
    Index* const dOtherOut = deviceCopy(std::vector<Index>(otherLabel.size(), 0u));
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
    {
      CudaExec exec(stream);
      // The running maxima's tile words exist before the capture (a replayed body allocates
      // nothing: CudaExec::replay, which would throw).
      exec.runningMaximum(n, dComponents, RunStarts{ dLabel }, dOut);
      for (std::uint32_t serial = 3; serial < 8; ++serial)
      {
        SCOPED_TRACE("serial " + std::to_string(serial));
        exec.replay(dSerial,
          [&]
          {
            exec.forEach(n, SerialLabels{ dLabel, dSerial });
            exec.runningMaximum(n, dComponents, RunStarts{ dLabel }, dOut);
            exec.forEach(1, NextSerial{ dSerial });
          });
        exec.runningMaximum(otherLabel.size(), dComponents, RunStarts{ dOtherLabel }, dOtherOut);
        ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
        std::vector<Index> label(n);
        for (std::size_t j = 0; j < n; ++j)
        {
          label[j] = serialLabel(j, serial);
        }
        std::vector<Index> got(n);
        ASSERT_EQ(
          cudaMemcpy(got.data(), dOut, n * sizeof(Index), cudaMemcpyDeviceToHost), cudaSuccess);
        EXPECT_EQ(got, serialRunningMaximum(label));
        std::vector<Index> other(otherLabel.size());
        ASSERT_EQ(
          cudaMemcpy(other.data(), dOtherOut, other.size() * sizeof(Index), cudaMemcpyDeviceToHost),
          cudaSuccess);
        EXPECT_EQ(other, serialRunningMaximum(otherLabel));
      }
    }
    cudaStreamDestroy(stream);
    for (void* p : std::vector<void*>{ dSerial, dComponents, dLabel, dOut, dOtherLabel, dOtherOut })
    {
      cudaFree(p);
    }
  }
}

/// Whether value[i] is a multiple of `divisor` (count's predicate).
struct IsMultiple
{
  const std::uint32_t* value;
  std::uint32_t divisor;
  __device__ bool operator()(std::size_t i) const { return value[i] % divisor == 0; }
};

/// The least and the largest value and their sum (transformReduce over a struct).
struct Extremes
{
  std::uint32_t least;
  std::uint32_t largest;
  std::uint64_t sum;
};
struct ExtremesOf
{
  const std::uint32_t* value;
  __device__ Extremes operator()(std::size_t i) const { return { value[i], value[i], value[i] }; }
};
struct ExtremesUnion
{
  __device__ Extremes operator()(const Extremes& a, const Extremes& b) const
  {
    return { a.least < b.least ? a.least : b.least, a.largest > b.largest ? a.largest : b.largest,
      a.sum + b.sum };
  }
};

TEST(CudaExec, CountAndTransformReduceMatchSerialLoops)
{
  if (emsttest::skipUnlessRunnable(emst::Backend::Cuda))
  {
    GTEST_SKIP() << "no usable CUDA device";
  }
  // Empty, one value, block edges, more blocks than one resident wave; more calls on one exec
  // than it zeroes counters for at once (kListCounters).
  std::size_t const largest = 3000000;
  std::mt19937 random(11);
  std::vector<std::uint32_t> value(largest);
  for (std::uint32_t& v : value)
  {
    v = static_cast<std::uint32_t>(random() % 1000000u) + 1u;
  }
  std::uint32_t* const dValue = deviceCopy(value);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  {
    CudaExec exec(stream);
    std::vector<std::size_t> sizes{ 0, 1, 255, 256, 257, 4097, 300001, largest };
    for (std::size_t k = 0; k < 70; ++k)
    {
      sizes.push_back(k * 7919 % 20011);
    }
    for (std::size_t const n : sizes)
    {
      SCOPED_TRACE("n = " + std::to_string(n));
      for (std::uint32_t const divisor : { 1u, 3u, 2000000u })
      {
        std::size_t expected = 0;
        for (std::size_t i = 0; i < n; ++i)
        {
          expected += value[i] % divisor == 0 ? 1 : 0;
        }
        EXPECT_EQ(exec.count(n, IsMultiple{ dValue, divisor }), expected) << "divisor " << divisor;
      }
      Extremes const none{ 0xFFFFFFFFu, 0u, 0u };
      Extremes expected = none;
      for (std::size_t i = 0; i < n; ++i)
      {
        expected.least = value[i] < expected.least ? value[i] : expected.least;
        expected.largest = value[i] > expected.largest ? value[i] : expected.largest;
        expected.sum += value[i];
      }
      Extremes const got = exec.transformReduce(n, ExtremesOf{ dValue }, none, ExtremesUnion{});
      EXPECT_EQ(got.least, expected.least);
      EXPECT_EQ(got.largest, expected.largest);
      EXPECT_EQ(got.sum, expected.sum);
    }
  }
  cudaStreamDestroy(stream);
  cudaFree(dValue);
}

/// A value queued with transformReduceLater comes back whole however many reads are waited for
/// before its fetch (their values in the slot's other half), and is in device memory for the
/// kernels queued after it; with mapped slots and with copies.
void checkLaterReadBacks()
{
  std::size_t const n = 100000;
  std::vector<std::uint32_t> value(n);
  for (std::size_t i = 0; i < n; ++i)
  {
    value[i] = static_cast<std::uint32_t>((i * 2654435761u) % 1000003u) + 5u;
  }
  std::uint32_t* const dValue = deviceCopy(value);
  Extremes* dExtremes = nullptr;
  ASSERT_EQ(cudaMalloc(&dExtremes, sizeof(Extremes)), cudaSuccess);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  {
    CudaExec exec(stream);
    Extremes const none{ 0xFFFFFFFFu, 0u, 0u };
    for (std::size_t const used : { std::size_t(0), std::size_t(1), std::size_t(777), n })
    {
      for (int between : { 0, 1, 3 })
      {
        SCOPED_TRACE("n = " + std::to_string(used) + ", reads between " + std::to_string(between));
        Extremes expected = none;
        for (std::size_t i = 0; i < used; ++i)
        {
          expected.least = std::min(expected.least, value[i]);
          expected.largest = std::max(expected.largest, value[i]);
          expected.sum += value[i];
        }
        auto const later =
          exec.transformReduceLater(used, ExtremesOf{ dValue }, none, ExtremesUnion{}, dExtremes);
        for (int k = 0; k < between; ++k)
        {
          EXPECT_EQ(exec.count(n, IsMultiple{ dValue, 1u }), n); // a read waited for
        }
        Extremes const got = exec.fetch(later);
        EXPECT_EQ(got.least, expected.least);
        EXPECT_EQ(got.largest, expected.largest);
        EXPECT_EQ(got.sum, expected.sum);
        Extremes onDevice{};
        ASSERT_EQ(
          cudaMemcpy(&onDevice, dExtremes, sizeof(Extremes), cudaMemcpyDeviceToHost), cudaSuccess);
        EXPECT_EQ(onDevice.sum, expected.sum);
        EXPECT_EQ(onDevice.least, expected.least);
      }
    }
    // One at a time: a second before the first's fetch is refused.
    auto const first = exec.transformReduceLater(
      n, ExtremesOf{ dValue }, none, ExtremesUnion{}, static_cast<Extremes*>(nullptr));
    EXPECT_THROW(exec.transformReduceLater(
                   n, ExtremesOf{ dValue }, none, ExtremesUnion{}, static_cast<Extremes*>(nullptr)),
      emst::Error);
    EXPECT_EQ(exec.fetch(first).least, *std::min_element(value.begin(), value.end()));
  }
  cudaStreamDestroy(stream);
  cudaFree(dExtremes);
  cudaFree(dValue);
}

TEST(CudaExec, ReadBacksFetchedLaterArriveWholeAfterOtherReads)
{
  if (emsttest::skipUnlessRunnable(emst::Backend::Cuda))
  {
    GTEST_SKIP() << "no usable CUDA device";
  }
  {
    SCOPED_TRACE("mapped slots");
    checkLaterReadBacks();
  }
  {
    SCOPED_TRACE("copies (EMST_CUDA_READBACK=copy)");
    emsttest::ScopedEnv const copy("EMST_CUDA_READBACK", "copy");
    checkLaterReadBacks();
  }
}

/// Reads of n words through copyToHostUntimed on each of `execs` execs alive at once (more than
/// one chunk of read-back slots), the words rewritten on the device between reads so that a
/// stale read shows; n from one word to past a slot's size (a copy then).
void checkReadBacks(std::size_t execs)
{
  std::size_t const largest = 1000;
  std::uint32_t* dWords = nullptr;
  ASSERT_EQ(cudaMalloc(&dWords, largest * sizeof(std::uint32_t)), cudaSuccess);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  {
    std::vector<std::unique_ptr<CudaExec>> exec;
    for (std::size_t e = 0; e < execs; ++e)
    {
      exec.push_back(std::make_unique<CudaExec>(stream));
    }
    std::uint32_t value = 1;
    for (int pass = 0; pass < 3; ++pass)
    {
      for (std::size_t const n : { std::size_t(1), std::size_t(64), std::size_t(127),
             std::size_t(128), std::size_t(129), largest })
      {
        for (std::size_t e = 0; e < execs; ++e)
        {
          SCOPED_TRACE("n = " + std::to_string(n) + ", exec " + std::to_string(e));
          ++value;
          exec[e]->fill(dWords, largest, value);
          std::vector<std::uint32_t> got(n, 0u);
          exec[e]->copyToHostUntimed(got.data(), dWords, n);
          EXPECT_EQ(got, std::vector<std::uint32_t>(n, value));
          EXPECT_EQ(exec[e]->count(n, IsMultiple{ dWords, value }), n);
        }
      }
    }
  }
  cudaStreamDestroy(stream);
  cudaFree(dWords);
}

TEST(CudaExec, ReadBacksArriveFreshThroughSlotsAndCopies)
{
  if (emsttest::skipUnlessRunnable(emst::Backend::Cuda))
  {
    GTEST_SKIP() << "no usable CUDA device";
  }
  {
    SCOPED_TRACE("mapped slots");
    checkReadBacks(1);
    checkReadBacks(20); // a chunk holds 16 slots
  }
  {
    SCOPED_TRACE("copies (EMST_CUDA_READBACK=copy)");
    emsttest::ScopedEnv const copy("EMST_CUDA_READBACK", "copy");
    checkReadBacks(3);
  }
}

/// Counts the visits of every entry (forEachListed), and any index past the list.
template <int Registers>
struct CountVisits
{
  static constexpr int kRegisters = Registers; ///< 0: the bare kernel; else the bounded one
  unsigned* visits;                            ///< [size + 1]: the last counts strays
  std::size_t size;
  __device__ void operator()(std::size_t i) const { atomicAdd(&visits[i < size ? i : size], 1u); }
};

/// forEachListed over `counts` on one exec (with one maxCount for all, at least each count):
/// the visits of each launch, with `components` on the device.
template <int Registers>
std::vector<std::vector<unsigned>> deviceListedVisits(
  const std::vector<std::uint32_t>& counts, std::size_t maxCount, std::uint32_t components)
{
  std::uint32_t* const dComponents = deviceCopy(std::vector<std::uint32_t>{ components });
  std::vector<std::uint32_t*> dCounts;
  std::vector<unsigned*> dVisits;
  cudaStream_t stream = nullptr;
  EXPECT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  {
    CudaExec exec(stream);
    for (std::uint32_t const count : counts)
    {
      dCounts.push_back(deviceCopy(std::vector<std::uint32_t>{ count }));
      dVisits.push_back(deviceCopy(std::vector<unsigned>(maxCount + 1, 0u)));
      exec.forEachListed(maxCount, dCounts.back(), dComponents,
        CountVisits<Registers>{ dVisits.back(), static_cast<std::size_t>(count) });
    }
    EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  }
  std::vector<std::vector<unsigned>> visits;
  for (std::size_t k = 0; k < counts.size(); ++k)
  {
    visits.emplace_back(maxCount + 1);
    EXPECT_EQ(cudaMemcpy(visits.back().data(), dVisits[k], (maxCount + 1) * sizeof(unsigned),
                cudaMemcpyDeviceToHost),
      cudaSuccess);
    cudaFree(dCounts[k]);
    cudaFree(dVisits[k]);
  }
  cudaStreamDestroy(stream);
  cudaFree(dComponents);
  return visits;
}

template <int Registers>
void expectEachListedEntryOnce()
{
  // Empty, one entry, warp edges, and lists longer than one resident wave takes at a time;
  // more launches than the exec zeroes counters for at once (kListCounters).
  std::vector<std::uint32_t> counts{ 0, 1, 31, 32, 33, 4097, 300000, 1000000 };
  for (std::uint32_t k = 0; k < 70; ++k)
  {
    counts.push_back(k * 37 % 101);
  }
  std::size_t const maxCount = 1000000;
  std::vector<std::vector<unsigned>> const visits =
    deviceListedVisits<Registers>(counts, maxCount, 2);
  for (std::size_t k = 0; k < counts.size(); ++k)
  {
    SCOPED_TRACE("launch " + std::to_string(k) + ", count " + std::to_string(counts[k]));
    for (std::size_t i = 0; i <= maxCount; ++i)
    {
      ASSERT_EQ(visits[k][i], i < counts[k] ? 1u : 0u) << "at " << i;
    }
  }
}

TEST(CudaExec, ForEachListedVisitsEachEntryOnce)
{
  if (emsttest::skipUnlessRunnable(emst::Backend::Cuda))
  {
    GTEST_SKIP() << "no usable CUDA device";
  }
  expectEachListedEntryOnce<0>();  // the bare kernel
  expectEachListedEntryOnce<40>(); // with the searches' register budget
}

TEST(CudaExec, ForEachListedDoesNothingOnceOneComponentIsLeft)
{
  if (emsttest::skipUnlessRunnable(emst::Backend::Cuda))
  {
    GTEST_SKIP() << "no usable CUDA device";
  }
  for (std::uint32_t const components : { 0u, 1u })
  {
    std::vector<std::vector<unsigned>> const visits =
      deviceListedVisits<0>({ 5000u }, 5000, components);
    EXPECT_EQ(visits[0], std::vector<unsigned>(5001, 0u));
  }
}

/// Thread i of a launch over n wants wantOf(i) slots (takeSlotsTogether, as ListLeafSearchers
/// takes them): each slot taken counts its taker once.
struct TakeSlots
{
  std::uint32_t* counter;
  unsigned* takesOfSlot; ///< [capacity] counts of the takers of each slot
  Index* takerOfSlot;    ///< [capacity]
  std::size_t capacity;
  static constexpr bool kTakesSlotsTogether = true;
  __host__ __device__ static std::uint32_t wantOf(std::size_t i)
  {
    return static_cast<std::uint32_t>((i * 7 + i / 3) % 6); // 0 to 5, runs of every kind
  }
  __device__ void operator()(std::size_t i, bool active) const
  {
    std::uint32_t const wants = active ? wantOf(i) : 0u;
    std::uint32_t const first = emst::detail::takeSlotsTogether(counter, wants);
    for (std::uint32_t k = 0; k < wants; ++k)
    {
      if (first + k < capacity)
      {
        atomicAdd(&takesOfSlot[first + k], 1u);
        takerOfSlot[first + k] = static_cast<Index>(i);
      }
    }
  }
};

TEST(CudaExec, SlotsTakenTogetherAreDenseAndEachTakenOnce)
{
  if (emsttest::skipUnlessRunnable(emst::Backend::Cuda))
  {
    GTEST_SKIP() << "no usable CUDA device";
  }
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  std::uint32_t* const dComponents = deviceCopy(std::vector<std::uint32_t>{ 2u });
  for (std::size_t const n : { std::size_t(1), std::size_t(31), std::size_t(33), std::size_t(256),
         std::size_t(257), std::size_t(100003), std::size_t(1000000) })
  {
    SCOPED_TRACE("n " + std::to_string(n));
    std::size_t total = 0;
    for (std::size_t i = 0; i < n; ++i)
    {
      total += TakeSlots::wantOf(i);
    }
    std::size_t const capacity = total + 64; // room for strays past the total
    std::uint32_t* const dCounter = deviceCopy(std::vector<std::uint32_t>{ 0u });
    unsigned* const dTakes = deviceCopy(std::vector<unsigned>(capacity, 0u));
    Index* const dTakers = deviceCopy(std::vector<Index>(capacity, 0u));
    {
      CudaExec exec(stream);
      exec.forEachUnlessDone(n, dComponents, TakeSlots{ dCounter, dTakes, dTakers, capacity });
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    }
    std::vector<std::uint32_t> counter(1);
    std::vector<unsigned> takes(capacity);
    std::vector<Index> takers(capacity);
    ASSERT_EQ(cudaMemcpy(counter.data(), dCounter, sizeof(std::uint32_t), cudaMemcpyDeviceToHost),
      cudaSuccess);
    ASSERT_EQ(cudaMemcpy(takes.data(), dTakes, capacity * sizeof(unsigned), cudaMemcpyDeviceToHost),
      cudaSuccess);
    ASSERT_EQ(cudaMemcpy(takers.data(), dTakers, capacity * sizeof(Index), cudaMemcpyDeviceToHost),
      cudaSuccess);
    cudaFree(dCounter);
    cudaFree(dTakes);
    cudaFree(dTakers);
    EXPECT_EQ(counter[0], total);
    std::vector<std::uint32_t> slotsOfTaker(n, 0u);
    for (std::size_t slot = 0; slot < capacity; ++slot)
    {
      ASSERT_EQ(takes[slot], slot < total ? 1u : 0u) << "slot " << slot;
      if (slot < total)
      {
        ASSERT_LT(takers[slot], n);
        ++slotsOfTaker[takers[slot]];
        // A taker's slots are consecutive: the slot before is its own or another's last.
        if (slot > 0 && takers[slot - 1] != takers[slot])
        {
          ASSERT_EQ(slotsOfTaker[takers[slot]], 1u) << "slot " << slot;
        }
      }
    }
    for (std::size_t i = 0; i < n; ++i)
    {
      ASSERT_EQ(slotsOfTaker[i], TakeSlots::wantOf(i)) << "thread " << i;
    }
  }
  cudaFree(dComponents);
  cudaStreamDestroy(stream);
}

/// base/PairSort.h on the GPU's radix sort, which orders the top 40 bits of each key only
/// (keys in clusters that share them, runs short and long, exact ties; values increasing or
/// not), in both layouts (the lean one sorts the list again when most pairs are in long runs),
/// against std::sort of the pairs.
/// sortPairs's second count in the tests: keys equal to a neighbour's (the set-up's shared codes).
struct KeyOfANeighbour
{
  const std::uint64_t* keys;
  std::size_t count;
  __device__ bool operator()(std::size_t s) const
  {
    return (s > 0 && keys[s] == keys[s - 1]) || (s + 1 < count && keys[s] == keys[s + 1]);
  }
};

/// sortPairsByBits against std::stable_sort by the sorted bits, for one key and value type:
/// keys below 2^endBit drawn from few values (long runs of equal sorted bits, whose input order
/// must stay), values the input positions. `sharedTop`: that many top bits of the range are one
/// pattern in every key (the one-launch sort skips the passes of bytes every key shares).
template <class K, class V>
void checkSortPairsByBits(int beginBit, int endBit, int sharedTop = 0)
{
  using emst::detail::Buffer;
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  std::mt19937_64 random(static_cast<unsigned>(beginBit * 100 + endBit));
  for (std::size_t const n : { std::size_t(2), std::size_t(3), std::size_t(2047), std::size_t(2048),
         std::size_t(2049), std::size_t(5000), std::size_t(100000), std::size_t(262144),
         std::size_t(262145), std::size_t(600000) })
  {
    SCOPED_TRACE("n = " + std::to_string(n) + ", bits [" + std::to_string(beginBit) + ", " +
      std::to_string(endBit) + "), top bits shared " + std::to_string(sharedTop));
    int const keyBits = static_cast<int>(8 * sizeof(K));
    K const mask = endBit >= keyBits ? ~K(0) : static_cast<K>((K(1) << endBit) - 1);
    std::vector<K> distinct(1 + n / 50);
    for (K& k : distinct)
    {
      k = static_cast<K>(random()) & mask;
    }
    std::vector<K> keys(n);
    std::vector<V> values(n);
    for (std::size_t i = 0; i < n; ++i)
    {
      // Mostly repeated keys; the bits below beginBit vary within them (not sorted by).
      K const low =
        beginBit > 0 ? static_cast<K>(random()) & static_cast<K>((K(1) << beginBit) - 1) : K(0);
      keys[i] = (random() % 4 == 0 ? static_cast<K>(random()) & mask
                                   : distinct[random() % distinct.size()]) |
        low;
      keys[i] &= mask;
      if (sharedTop > 0)
      {
        K const lowMask = static_cast<K>((K(1) << (endBit - sharedTop)) - 1);
        keys[i] = (keys[i] & lowMask) | (static_cast<K>(0x5A5A5A5A5A5A5A5Aull) & mask & ~lowMask);
      }
      values[i] = static_cast<V>(i);
    }
    std::vector<std::size_t> order(n);
    for (std::size_t i = 0; i < n; ++i)
    {
      order[i] = i;
    }
    std::stable_sort(order.begin(), order.end(),
      [&](std::size_t a, std::size_t b) { return (keys[a] >> beginBit) < (keys[b] >> beginBit); });
    CudaExec exec(stream);
    Buffer<K, CudaExec> dKeys(exec, n);
    Buffer<V, CudaExec> dValues(exec, n);
    ASSERT_EQ(
      cudaMemcpyAsync(dKeys.data(), keys.data(), n * sizeof(K), cudaMemcpyHostToDevice, stream),
      cudaSuccess);
    ASSERT_EQ(
      cudaMemcpyAsync(dValues.data(), values.data(), n * sizeof(V), cudaMemcpyHostToDevice, stream),
      cudaSuccess);
    EXPECT_EQ(exec.sortPairsByBits(dKeys, dValues, beginBit, endBit), beginBit);
    std::vector<K> gotKeys(n);
    std::vector<V> gotValues(n);
    exec.copyToHost(gotKeys.data(), dKeys.data(), n);
    exec.copyToHost(gotValues.data(), dValues.data(), n);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i)
    {
      wrong += gotKeys[i] != keys[order[i]] || gotValues[i] != values[order[i]] ? 1 : 0;
    }
    EXPECT_EQ(wrong, 0u);
  }
  cudaStreamDestroy(stream);
}

TEST(CudaExec, SortPairsByBitsIsStableInOneLaunchAndInTheLibrarys)
{
  if (emsttest::skipUnlessRunnable(emst::Backend::Cuda))
  {
    GTEST_SKIP() << "no usable CUDA device";
  }
  // Default: one launch up to kSmallSortTiles tiles (128: 262144 pairs, the sizes below), the
  // library's sort beyond; then the one launch wherever the GPU holds the tiles, and the library's
  // always.
  for (const char* tiles : { "", "100000", "0" })
  {
    SCOPED_TRACE(std::string("EMST_CUDA_SMALL_SORT=") + tiles);
    std::optional<emsttest::ScopedEnv> knob;
    if (*tiles)
    {
      knob.emplace("EMST_CUDA_SMALL_SORT", tiles);
    }
    checkSortPairsByBits<std::uint64_t, Index>(15, 63);         // the set-up's codes
    checkSortPairsByBits<std::uint64_t, std::uint64_t>(23, 63); // the output's lengths
    checkSortPairsByBits<std::uint64_t, std::uint64_t>(0, 61);  // every bit, a short last pass
    checkSortPairsByBits<Index, std::uint64_t>(0, 32);          // values as keys (the lean layout)
    checkSortPairsByBits<Index, std::uint64_t>(4, 20);
    // Passes every key's byte is the same in: one (the pairs moved an odd number of passes of
    // an even count), two, and all but the lowest.
    checkSortPairsByBits<std::uint64_t, Index>(15, 63, 8);
    checkSortPairsByBits<std::uint64_t, std::uint64_t>(23, 63, 16);
    checkSortPairsByBits<std::uint64_t, std::uint64_t>(23, 63, 32);
  }
}

/// Items for checkSortByLess: the pairs of long runs that base/PairSort.h gathers (16 bytes),
/// and the keys that phases/Duplicates.h sorts the points sharing a code by (40 bytes). `key`
/// and `value` drawn by the caller; shape 1: one key for all (the values decide), shape 2: one
/// value for all (the keys decide).
struct PairItems
{
  using Item = emst::detail::KeyedValue<std::uint64_t>;
  using Less = emst::detail::KeyedValueLess;
  static Item make(std::uint64_t key, std::uint64_t value) { return Item{ key, value }; }
  static bool same(const Item& a, const Item& b) { return a.key == b.key && a.value == b.value; }
};
struct DuplicateItems
{
  using Item = emst::detail::DuplicateKey;
  using Less = emst::detail::DuplicateKeyLess;
  static Item make(std::uint64_t key, std::uint64_t value)
  {
    // Codes shared by runs of points; places that repeat within a code (copies) and differ.
    Item item{};
    item.code = key >> 40;
    item.x[0] = static_cast<double>(key % 7);
    item.x[1] = static_cast<double>((key >> 3) % 3) * 0.5;
    item.x[2] = -1.0;
    item.point = static_cast<Index>(value);
    return item;
  }
  static bool same(const Item& a, const Item& b)
  {
    return a.code == b.code && a.x[0] == b.x[0] && a.x[1] == b.x[1] && a.x[2] == b.x[2] &&
      a.point == b.point;
  }
};

/// CudaExec::sortByLess against std::sort (few distinct keys, distinct values): sizes within one
/// tile (every size to 70), at its edges, over several tiles (merge rounds of both parities:
/// the result in either array), at the one launch's default limit (1024 tiles) and past it;
/// keys all equal (the values decide) and values all equal but one key each (the keys decide).
template <class Items>
void checkSortByLess()
{
  using emst::detail::Buffer;
  using Item = typename Items::Item;
  using Less = typename Items::Less;
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  std::mt19937_64 random(7);
  // Every size to 70 and a few within tiles (a thread's items partly past the end: the sort's
  // padding), then the sizes above.
  std::vector<std::size_t> sizes;
  for (std::size_t n = 0; n <= 70; ++n)
  {
    sizes.push_back(n);
  }
  for (std::size_t const n : { 513, 1000, 1023, 1024, 1025, 1066, 2047, 2048, 2049, 4097, 6145,
         100000, 262145, 600000, 1048576, 1048577 })
  {
    sizes.push_back(n);
  }
  for (std::size_t const n : sizes)
  {
    for (int const shape : { 0, 1, 2 })
    {
      SCOPED_TRACE("n = " + std::to_string(n) + ", shape " + std::to_string(shape) + ", " +
        std::to_string(sizeof(Item)) + "-byte items");
      std::vector<std::uint64_t> distinct(1 + n / 300);
      for (std::uint64_t& k : distinct)
      {
        k = random() >> 1;
      }
      std::vector<Item> items(n);
      for (std::size_t i = 0; i < n; ++i)
      {
        std::uint64_t const key = shape == 1 ? 42u
          : shape == 2                       ? (random() >> 1) | 1u
                                             : distinct[random() % distinct.size()];
        // Distinct values below 2^31 (i < 2^21 in the low bits), or all 0.
        std::uint64_t const value = shape == 2 ? 0u : ((random() << 21) & 0x7FE00000u) | i;
        items[i] = Items::make(key, value);
      }
      std::vector<Item> expected = items;
      std::sort(expected.begin(), expected.end(), Less{});
      CudaExec exec(stream);
      Buffer<Item, CudaExec> dItems(exec, n);
      if (n > 0)
      {
        ASSERT_EQ(cudaMemcpyAsync(
                    dItems.data(), items.data(), n * sizeof(Item), cudaMemcpyHostToDevice, stream),
          cudaSuccess);
      }
      exec.sortByLess(dItems, Less{});
      ASSERT_EQ(dItems.size(), n);
      std::vector<Item> got(n);
      exec.copyToHost(got.data(), dItems.data(), n);
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < n; ++i)
      {
        wrong += Items::same(got[i], expected[i]) ? 0 : 1;
      }
      EXPECT_EQ(wrong, 0u);
    }
  }
  cudaStreamDestroy(stream);
}

void checkSortByLess()
{
  checkSortByLess<PairItems>();
  checkSortByLess<DuplicateItems>();
}

// Default: one launch up to kSmallMergeTiles tiles (1024: 1048576 items), the library's merge sort
// beyond; then the one launch wherever the GPU holds the tiles, and the library's always.
TEST(CudaExec, SortByLessInOneLaunchUpToItsTiles)
{
  if (emsttest::skipUnlessRunnable(emst::Backend::Cuda))
  {
    GTEST_SKIP() << "no usable CUDA device";
  }
  checkSortByLess();
}

TEST(CudaExec, SortByLessInOneLaunchWhereverTheTilesFit)
{
  if (emsttest::skipUnlessRunnable(emst::Backend::Cuda))
  {
    GTEST_SKIP() << "no usable CUDA device";
  }
  emsttest::ScopedEnv const knob("EMST_CUDA_SMALL_MERGE", "100000");
  checkSortByLess();
}

TEST(CudaExec, SortByLessInTheLibrarys)
{
  if (emsttest::skipUnlessRunnable(emst::Backend::Cuda))
  {
    GTEST_SKIP() << "no usable CUDA device";
  }
  emsttest::ScopedEnv const knob("EMST_CUDA_SMALL_MERGE", "0");
  checkSortByLess();
}

/// base/PairSort.h's sortItemsByKey (the output's sort) on the GPU: the pairs of a case as
/// items keyed by their top 32 bits (runs of equal keys of every length, exact ties), through
/// the one-launch radix sort (up to 262144 items) and the library's, in both layouts (the lean
/// one sorts the whole list by comparison when most items are in long runs), against std::sort.
TEST(CudaExec, ItemsByKeyOrdersTheRunsOfEqualKeys)
{
  if (emsttest::skipUnlessRunnable(emst::Backend::Cuda))
  {
    GTEST_SKIP() << "no usable CUDA device";
  }
  using emst::detail::Buffer;
  using Item = emst::detail::KeyedValue<Index>;
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  for (bool const lean : { false, true })
  {
    for (std::size_t const clusters :
      { std::size_t(1), std::size_t(40), std::size_t(3000), std::size_t(100000) })
    {
      for (int const keyBits : { 63, 40 })
      {
        emst::testing::PairSortCase const c = emst::testing::makePairSortCase(
          clusters, keyBits, clusters % 2 == 0, static_cast<std::uint32_t>(clusters + keyBits));
        auto const expected = emst::testing::sortedPairs(c);
        std::size_t const n = c.keys.size();
        std::vector<std::uint32_t> keys(n);
        std::vector<Index> slots(n);
        std::vector<Item> items(n);
        for (std::size_t i = 0; i < n; ++i)
        {
          keys[n - 1 - i] = static_cast<std::uint32_t>(c.keys[i] >> (keyBits - 32));
          slots[n - 1 - i] = static_cast<Index>(i);
          items[i] = Item{ c.keys[i], c.values[i] };
        }
        std::vector<Item> got(n);
        {
          CudaExec exec(stream);
          exec.useLeanLayout(lean);
          Buffer<std::uint32_t, CudaExec> dKeys(exec, n);
          Buffer<Index, CudaExec> dSlots(exec, n);
          Buffer<Item, CudaExec> dItems(exec, n);
          ASSERT_EQ(cudaMemcpyAsync(dKeys.data(), keys.data(), n * sizeof(std::uint32_t),
                      cudaMemcpyHostToDevice, stream),
            cudaSuccess);
          ASSERT_EQ(cudaMemcpyAsync(dSlots.data(), slots.data(), n * sizeof(Index),
                      cudaMemcpyHostToDevice, stream),
            cudaSuccess);
          ASSERT_EQ(cudaMemcpyAsync(dItems.data(), items.data(), n * sizeof(Item),
                      cudaMemcpyHostToDevice, stream),
            cudaSuccess);
          Buffer<Item, CudaExec> const sorted = emst::detail::sortItemsByKey(
            exec, dKeys, dSlots, dItems, emst::detail::KeyedValueLess{});
          ASSERT_EQ(sorted.size(), n);
          exec.copyToHost(got.data(), sorted.data(), n);
        }
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < n; ++i)
        {
          wrong += got[i].key != expected[i].first || got[i].value != expected[i].second;
        }
        EXPECT_EQ(wrong, 0u) << n << " items, " << keyBits << " key bits, lean " << lean;
      }
    }
  }
  cudaStreamDestroy(stream);
}

TEST(CudaExec, PairSortOrdersTheRunsItsRadixSortLeaves)
{
  if (emsttest::skipUnlessRunnable(emst::Backend::Cuda))
  {
    GTEST_SKIP() << "no usable CUDA device";
  }
  using emst::detail::Buffer;
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  for (bool const lean : { false, true })
  {
    for (std::size_t const clusters : { std::size_t(40), std::size_t(3000), std::size_t(100000) })
    {
      for (int const keyBits : { 63, 62 })
      {
        for (bool const increasing : { true, false })
        {
          emst::testing::PairSortCase const c = emst::testing::makePairSortCase(
            clusters, keyBits, increasing, static_cast<std::uint32_t>(clusters + keyBits));
          auto const expected = emst::testing::sortedPairs(c);
          std::size_t const n = c.keys.size();
          std::vector<std::uint64_t> keys(n);
          std::vector<Index> values(n);
          {
            CudaExec exec(stream);
            exec.useLeanLayout(lean);
            Buffer<std::uint64_t, CudaExec> dKeys(exec, n);
            Buffer<Index, CudaExec> dValues(exec, n);
            ASSERT_EQ(cudaMemcpyAsync(dKeys.data(), c.keys.data(), n * sizeof(std::uint64_t),
                        cudaMemcpyHostToDevice, stream),
              cudaSuccess);
            ASSERT_EQ(cudaMemcpyAsync(dValues.data(), c.values.data(), n * sizeof(Index),
                        cudaMemcpyHostToDevice, stream),
              cudaSuccess);
            std::size_t const counted =
              emst::detail::sortPairs<KeyOfANeighbour>(exec, dKeys, dValues, keyBits, 40);
            std::size_t equal = 0;
            for (std::size_t i = 0; i < n; ++i)
            {
              equal += (i > 0 && expected[i].first == expected[i - 1].first) ||
                (i + 1 < n && expected[i].first == expected[i + 1].first);
            }
            EXPECT_EQ(counted, equal) << "the second count, over the sorted keys";
            ASSERT_EQ(cudaMemcpyAsync(keys.data(), dKeys.data(), n * sizeof(std::uint64_t),
                        cudaMemcpyDeviceToHost, stream),
              cudaSuccess);
            ASSERT_EQ(cudaMemcpyAsync(values.data(), dValues.data(), n * sizeof(Index),
                        cudaMemcpyDeviceToHost, stream),
              cudaSuccess);
            ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
          }
          std::size_t wrong = 0;
          for (std::size_t i = 0; i < n; ++i)
          {
            wrong += keys[i] != expected[i].first || values[i] != expected[i].second;
          }
          EXPECT_EQ(wrong, 0u) << n << " pairs, " << keyBits << " key bits, lean " << lean
                               << ", increasing values " << increasing;
        }
      }
    }
  }
  cudaStreamDestroy(stream);
}

} // namespace
