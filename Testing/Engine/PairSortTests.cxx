// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// base/PairSort.h, the sort behind the set-up's Morton order and the output's edge order,
// against std::sort of the (key, value) pairs. The CPU backend radix-sorts every bit, so that
// the runs its sort leaves are only exact ties; here a backend that sorts only the top bits,
// as the GPU's does (a comparison sort by those bits, stable), leaves runs of every length to
// the passes that order them. CudaExecTests runs the same cases on the GPU's own radix sort.
// The output's edge order (phases/OutputOrder.h) is checked on both of its paths: the sort of
// the lengths' bits and the pairs, and (below its count) the sort of the output edges by
// comparison.
#include "PairSortCases.h"
#include "TestSupport.h"
#include "backends/CpuExec.h"
#include "base/PairSort.h"
#include "phases/OutputOrder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace
{
using emst::detail::Buffer;
using emst::detail::CpuExec;
using emst::detail::Index;
using emst::testing::makePairSortCase;
using emst::testing::PairSortCase;

/// The CPU backend with the GPU's sort: stably by the bits [beginBit, endBit) only.
template <bool MemoryFirst>
class TopBitsExec : public CpuExec
{
public:
  TopBitsExec()
    : CpuExec(2)
  {
  }
  bool savesMemory() const { return MemoryFirst; }
  template <class K, class V>
  int sortPairsByBits(
    Buffer<K, TopBitsExec>& keys, Buffer<V, TopBitsExec>& values, int beginBit, int)
  {
    thrust::stable_sort_by_key(this->policy(), keys.data(), keys.end(), values.data(),
      [beginBit](K a, K b) { return (a >> beginBit) < (b >> beginBit); });
    return beginBit;
  }
};

/// A second count for sortPairs, over the sorted keys: keys equal to a neighbour's (the set-up
/// counts shared codes so).
struct EqualsANeighbour
{
  const std::uint64_t* keys;
  std::size_t count;
  bool operator()(std::size_t s) const
  {
    return (s > 0 && keys[s] == keys[s - 1]) || (s + 1 < count && keys[s] == keys[s + 1]);
  }
};

template <class Exec>
void expectSortedAsPairs(Exec& exec, const PairSortCase& c, int keyBits)
{
  auto const expected = emst::testing::sortedPairs(c);
  std::size_t const n = c.keys.size();
  Buffer<std::uint64_t, Exec> keys(exec, n);
  Buffer<Index, Exec> values(exec, n);
  std::copy(c.keys.begin(), c.keys.end(), keys.data());
  std::copy(c.values.begin(), c.values.end(), values.data());
  std::size_t const counted =
    emst::detail::sortPairs<EqualsANeighbour>(exec, keys, values, keyBits, 40);
  std::size_t wrong = 0;
  std::size_t equal = 0;
  for (std::size_t i = 0; i < n; ++i)
  {
    wrong += keys.data()[i] != expected[i].first || values.data()[i] != expected[i].second;
    equal += (i > 0 && expected[i].first == expected[i - 1].first) ||
      (i + 1 < n && expected[i].first == expected[i + 1].first);
  }
  EXPECT_EQ(wrong, 0u) << n << " pairs, " << keyBits << " key bits";
  EXPECT_EQ(counted, equal) << "the second count, over the sorted keys";
}

TEST(PairSort, RunsOfEveryLengthLikeTheGpu)
{
  TopBitsExec<false> exec;
  for (int keyBits : { 63, 62 })
  {
    for (bool increasing : { true, false })
    {
      expectSortedAsPairs(exec, makePairSortCase(3000, keyBits, increasing, 31), keyBits);
    }
  }
}

TEST(PairSort, MemoryFirstSortsAgainWhenMostPairsAreInLongRuns)
{
  // Most pairs in runs longer than kShortRun: the memory-first path sorts the list again.
  TopBitsExec<true> exec;
  for (bool increasing : { true, false })
  {
    expectSortedAsPairs(exec, makePairSortCase(40, 63, increasing, 32), 63);
  }
}

TEST(PairSort, TheCpuBackendSortsEveryBit)
{
  CpuExec exec(2);
  expectSortedAsPairs(exec, makePairSortCase(3000, 63, false, 34), 63);
}

/// sortItemsByKey (the output's sort) on the pairs of a case as items, keyed by their top 32
/// bits (runs of equal keys of every length, exact ties), against std::sort of the pairs.
template <class Exec>
void expectItemsSorted(Exec& exec, const PairSortCase& c, int keyBits)
{
  using Item = emst::detail::KeyedValue<Index>;
  auto const expected = emst::testing::sortedPairs(c);
  std::size_t const n = c.keys.size();
  Buffer<std::uint32_t, Exec> keys(exec, n);
  Buffer<Index, Exec> slots(exec, n);
  Buffer<Item, Exec> items(exec, n);
  for (std::size_t i = 0; i < n; ++i)
  {
    // Keys in another order than the items: key s is item n - 1 - s's.
    keys.data()[n - 1 - i] = static_cast<std::uint32_t>(c.keys[i] >> (keyBits - 32));
    slots.data()[n - 1 - i] = static_cast<Index>(i);
    items.data()[i] = Item{ c.keys[i], c.values[i] };
  }
  Buffer<Item, Exec> const sorted =
    emst::detail::sortItemsByKey(exec, keys, slots, items, emst::detail::KeyedValueLess{});
  ASSERT_EQ(sorted.size(), n);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i)
  {
    wrong +=
      sorted.data()[i].key != expected[i].first || sorted.data()[i].value != expected[i].second;
  }
  EXPECT_EQ(wrong, 0u) << n << " items, " << keyBits << " key bits";
}

TEST(PairSort, ItemsByKeyOrdersRunsOfEveryLength)
{
  CpuExec exec(2);
  TopBitsExec<true> memoryFirst;
  for (int keyBits : { 63, 40 })
  {
    for (bool increasing : { true, false })
    {
      expectItemsSorted(exec, makePairSortCase(3000, keyBits, increasing, 41), keyBits);
      // Memory first: runs gathered where they are few, the whole list sorted where most items
      // are in long runs.
      expectItemsSorted(memoryFirst, makePairSortCase(3000, keyBits, increasing, 42), keyBits);
      expectItemsSorted(memoryFirst, makePairSortCase(40, keyBits, increasing, 43), keyBits);
    }
  }
  for (std::size_t n : { 0, 1, 2 })
  {
    PairSortCase c = makePairSortCase(1, 63, true, 44);
    c.keys.resize(std::min(n, c.keys.size()));
    c.values.resize(c.keys.size());
    expectItemsSorted(exec, c, 63);
  }
}

/// The output's key: a longer length never has a smaller key, 32 octaves below the bound told
/// apart, lengths past the bound and below its octaves tied at the ends.
TEST(OutputOrder, LengthKeysFollowTheLengths)
{
  using emst::detail::doubleBits;
  using emst::detail::lengthKeyBelow;
  for (double const bound : { 0.0, 1e-300, 1.0, 3.5, 1e300, std::ldexp(1.0, 1023) })
  {
    auto const key = lengthKeyBelow(bound);
    double previous = 0.0;
    std::uint32_t previousKey = key(doubleBits(0.0));
    EXPECT_EQ(previousKey, 0u);
    for (double length = 1e-310; length < 1e308; length *= 1.37)
    {
      std::uint32_t const k = key(doubleBits(length));
      EXPECT_GE(k, previousKey) << previous << " -> " << length << ", bound " << bound;
      previous = length;
      previousKey = k;
    }
    EXPECT_EQ(key(doubleBits(std::numeric_limits<double>::infinity())), 0xFFFFFFFFu);
    if (bound >= 1.0)
    {
      // Within the 32 octaves below the bound (short of its last key, where lengths within
      // 2^-27 of it end), lengths 2^-26 apart relatively have other keys.
      for (double length = bound * 0x1p-31; length < bound * (1.0 - 0x1p-20); length *= 1.5)
      {
        EXPECT_LT(key(doubleBits(length)), key(doubleBits(length * (1.0 + 0x1p-26))))
          << length << ", bound " << bound;
      }
    }
  }
}

/// Edge lengths from few values, so that most edges tie with others and the index pair orders
/// them; the same for (a, b) and (b, a). At most 1.
struct TiedLengths
{
  double length(Index a, Index b) const { return 0.25 * static_cast<double>((a + b) % 5); }
};

/// Edge lengths over 80 octaves below 1.5 (more than the output key's 32: the shortest tie at
/// its lowest key), some of them tied.
struct SpreadLengths
{
  double length(Index a, Index b) const
  {
    return std::ldexp(
      1.0 + 0.5 * static_cast<double>((a * b) % 2), -static_cast<int>((a + b) % 80));
  }
};

template <class Lengths>
void expectCanonicalOrder(double lengthBound)
{
  // 3000 tree edges between distinct points (input indices through a shuffled table) and 500
  // copies' edges, in (length, i, j) order whichever way they are sorted.
  std::mt19937 random(37);
  std::size_t const m = 3001;
  std::size_t const copies = 500;
  std::vector<Index> inputOfPoint(m);
  for (std::size_t p = 0; p < m; ++p)
  {
    inputOfPoint[p] = static_cast<Index>(p * 7 % m + copies);
  }
  std::shuffle(inputOfPoint.begin(), inputOfPoint.end(), random);
  std::vector<Index> edgePoints(2 * (m - 1));
  for (std::size_t e = 0; e + 1 < m; ++e)
  {
    edgePoints[2 * e] = static_cast<Index>(e + 1);
    edgePoints[2 * e + 1] = static_cast<Index>(random() % (e + 1)); // a tree: to an earlier point
  }
  std::vector<std::tuple<double, Index, Index>> expected;
  for (std::size_t e = 0; e + 1 < m; ++e)
  {
    Index const a = inputOfPoint[edgePoints[2 * e]];
    Index const b = inputOfPoint[edgePoints[2 * e + 1]];
    expected.emplace_back(Lengths{}.length(a, b), std::min(a, b), std::max(a, b));
  }
  for (std::size_t c = 0; c < copies; ++c)
  {
    // Copy c of input point `copies + c` (below every distinct point's index, as the set-up's).
    expected.emplace_back(0.0, static_cast<Index>(c), static_cast<Index>(copies + c));
  }
  std::sort(expected.begin(), expected.end());
  for (char const* const below : { "0", "100000000" })
  {
    emsttest::ScopedEnv const knob("EMST_OUTPUT_MERGE_BELOW", below);
    CpuExec exec(2);
    Buffer<Index, CpuExec> points(exec, edgePoints.size());
    Buffer<Index, CpuExec> inputs(exec, m);
    emst::detail::EdgeKeys<CpuExec> copyEdges(exec, copies);
    std::copy(edgePoints.begin(), edgePoints.end(), points.data());
    std::copy(inputOfPoint.begin(), inputOfPoint.end(), inputs.data());
    for (std::size_t c = 0; c < copies; ++c) // the copies' edges in reverse order
    {
      copyEdges.lengthBits.data()[copies - 1 - c] = emst::detail::doubleBits(0.0);
      copyEdges.pairOfEdge.data()[copies - 1 - c] = (std::uint64_t(c) << 32) | (copies + c);
    }
    Buffer<emst::detail::OutputEdge, CpuExec> const out =
      emst::detail::orderEdges(exec, Lengths{}, points, inputs, copyEdges, lengthBound);
    ASSERT_EQ(out.size(), expected.size());
    std::size_t wrong = 0;
    for (std::size_t k = 0; k < expected.size(); ++k)
    {
      const emst::detail::OutputEdge& e = out.data()[k];
      wrong += std::make_tuple(e.length, e.i, e.j) != expected[k];
    }
    EXPECT_EQ(wrong, 0u) << "EMST_OUTPUT_MERGE_BELOW=" << below << ", length bound " << lengthBound;
  }
}

TEST(OutputOrder, BothPathsGiveTheCanonicalOrder)
{
  // The bound at the longest length, above it, none, and below every length (all keys tied).
  for (double const bound : { 1.0, 1e300, 0.0, 1e-300 })
  {
    expectCanonicalOrder<TiedLengths>(bound);
  }
  for (double const bound : { 1.5, 4.0, 0.0 })
  {
    expectCanonicalOrder<SpreadLengths>(bound);
  }
}

} // namespace
