// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The cases of base/PairSort.h's tests (PairSortTests on the CPU, CudaExecTests on the GPU).
#pragma once

#include "base/Index.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace emst
{
namespace testing
{

using detail::Index;

/// Keys below 2^keyBits: clusters of `run` keys (1 to 400, so runs short and long) that share
/// their top 40 bits and differ below them, some keys repeated (exact ties), in a shuffled order;
/// values increasing (the set-up's input indices) or shuffled (the output's pairs).
struct PairSortCase
{
  std::vector<std::uint64_t> keys;
  std::vector<Index> values;
};

inline PairSortCase makePairSortCase(
  std::size_t clusters, int keyBits, bool increasingValues, std::uint32_t seed)
{
  std::mt19937_64 random(seed);
  PairSortCase c;
  int const low = keyBits - 40;
  std::uint64_t const lowMask = (std::uint64_t(1) << low) - 1;
  for (std::size_t k = 0; k < clusters; ++k)
  {
    std::uint64_t const top = (random() >> (64 - keyBits)) & ~lowMask;
    std::size_t const run = k % 7 == 0 ? 1 + random() % 400 : 1 + random() % 10;
    for (std::size_t j = 0; j < run; ++j)
    {
      bool const repeat = !c.keys.empty() && random() % 4 == 0 && (c.keys.back() & ~lowMask) == top;
      c.keys.push_back(repeat ? c.keys.back() : top | (random() & lowMask));
    }
  }
  std::shuffle(c.keys.begin(), c.keys.end(), random);
  c.values.resize(c.keys.size());
  for (std::size_t i = 0; i < c.values.size(); ++i)
  {
    c.values[i] = static_cast<Index>(i);
  }
  if (!increasingValues)
  {
    std::shuffle(c.values.begin(), c.values.end(), random);
  }
  return c;
}

/// The pairs of `c` in (key, value) order: what base/PairSort.h must give.
inline std::vector<std::pair<std::uint64_t, Index>> sortedPairs(const PairSortCase& c)
{
  std::vector<std::pair<std::uint64_t, Index>> pairs;
  for (std::size_t i = 0; i < c.keys.size(); ++i)
  {
    pairs.emplace_back(c.keys[i], c.values[i]);
  }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

} // namespace testing
} // namespace emst
