// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// base/PairSort.h, the sort behind the set-up's Morton order and the output's edge order,
// against std::sort of the (key, value) pairs. The CPU backend radix-sorts every bit, so that
// the runs its sort leaves are only exact ties; here a backend that sorts only the top bits,
// as the GPU's does (a comparison sort by those bits, stable), leaves runs of every length to
// the passes that order them. CudaExecTests runs the same cases on the GPU's own radix sort.
#include "PairSortCases.h"
#include "backends/CpuExec.h"
#include "base/PairSort.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

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

} // namespace
