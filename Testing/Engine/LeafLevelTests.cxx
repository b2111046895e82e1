// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The leaf cells' levels (Kernels/src/phases/LeafLevels.h, the engine's own header) against
// their definition, by brute force: the leaf of point k is the largest Morton cell holding k
// whose prefix is a whole number of splits (1 bit: cells halved along one axis, the CPU's and
// the GPU's in 3D; Dim bits: quadtree cells, the GPU's in 2D, or octree cells) and which holds at
// most C points, or the finest cell when even that one holds more (equal codes). The engine's trees
// do not depend on the leaves, so the tree tests cannot see a wrong leaf; these do.
#include "phases/LeafLevels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace
{
using emst::detail::BlockMaxima;
using emst::detail::commonBits;
using emst::detail::LeafLevel;
using emst::detail::MortonCell;
using emst::detail::NearLeafLevel;

/// The engine's one pass (small capacities), run serially.
template <int Dim>
std::vector<int> nearLevels(const std::vector<std::uint64_t>& codes, std::size_t c, int split)
{
  std::size_t const m = codes.size();
  std::vector<std::uint8_t> level(m, 0);
  if (m > c)
  {
    NearLeafLevel<Dim> const leaf{ codes.data(), level.data(), m, c, split };
    for (std::size_t k = 0; k < m; ++k)
    {
      leaf(k);
    }
  }
  return std::vector<int>(level.begin(), level.end());
}

/// The engine's two passes (any capacity), run serially.
template <int Dim>
std::vector<int> engineLevels(const std::vector<std::uint64_t>& codes, std::size_t c, int split)
{
  std::size_t const m = codes.size();
  std::vector<std::uint8_t> level(m, 0);
  if (m > c)
  {
    std::size_t const windows = m - c;
    std::vector<std::uint8_t> fromStart(windows), toEnd(windows);
    BlockMaxima<Dim> const blocks{ codes.data(), fromStart.data(), toEnd.data(), windows, c };
    for (std::size_t b = 0; b < (windows + c) / (c + 1); ++b)
    {
      blocks(b);
    }
    LeafLevel<Dim> const leaf{ fromStart.data(), toEnd.data(), level.data(), m, c, split };
    for (std::size_t k = 0; k < m; ++k)
    {
      leaf(k);
    }
  }
  return std::vector<int>(level.begin(), level.end());
}

/// The definition: the fewest prefix bits, a multiple of `split`, whose cell around k holds at
/// most c points (all codes' bits when none does).
template <int Dim>
std::vector<int> definedLevels(const std::vector<std::uint64_t>& codes, std::size_t c, int split)
{
  constexpr int kCodeBits = MortonCell<Dim>::kCodeBits;
  std::size_t const m = codes.size();
  std::vector<int> level(m, kCodeBits);
  for (std::size_t k = 0; k < m; ++k)
  {
    for (int b = 0; b < kCodeBits; b += split)
    {
      std::size_t inCell = 0;
      for (std::uint64_t code : codes)
      {
        inCell += commonBits<Dim>(code, codes[k]) >= b ? 1 : 0;
      }
      if (inCell <= c)
      {
        level[k] = b;
        break;
      }
    }
  }
  return level;
}

/// Sorted codes of m points: uniform, clustered (a few dense spots), and with repeated codes.
template <int Dim>
std::vector<std::uint64_t> codesOf(std::size_t m, unsigned seed)
{
  constexpr int kCodeBits = MortonCell<Dim>::kCodeBits;
  std::mt19937_64 random(seed);
  std::uint64_t const mask = (std::uint64_t(1) << kCodeBits) - 1;
  std::vector<std::uint64_t> codes;
  std::vector<std::uint64_t> spots{ random() & mask, random() & mask, random() & mask };
  for (std::size_t i = 0; i < m; ++i)
  {
    std::uint64_t code = random() & mask;
    switch (i % 4)
    {
      case 1: // near a spot: a long shared prefix
        code = (spots[i % 3] & ~std::uint64_t(0xFFF)) | (code & 0xFFF);
        break;
      case 2: // a copy of an earlier code (equal codes: the finest cell holds them all)
        code = i > 0 ? codes[random() % i] : code;
        break;
      default:
        break;
    }
    codes.push_back(code);
  }
  std::sort(codes.begin(), codes.end());
  return codes;
}

template <int Dim>
void checkLevels(unsigned seed)
{
  for (std::size_t m : { std::size_t(1), std::size_t(2), std::size_t(17), std::size_t(200) })
  {
    std::vector<std::uint64_t> const codes = codesOf<Dim>(m, seed + static_cast<unsigned>(m));
    for (std::size_t c : { std::size_t(2), std::size_t(3), std::size_t(8), std::size_t(16),
           std::size_t(24), std::size_t(32), std::size_t(40) })
    {
      for (int split : { 1, Dim })
      {
        SCOPED_TRACE(testing::Message() << "m=" << m << " C=" << c << " split=" << split);
        std::vector<int> const defined = definedLevels<Dim>(codes, c, split);
        EXPECT_EQ(engineLevels<Dim>(codes, c, split), defined) << "two passes";
        EXPECT_EQ(nearLevels<Dim>(codes, c, split), defined) << "one pass";
      }
    }
  }
}

TEST(LeafLevels, MatchTheDefinition3D)
{
  for (unsigned seed = 1; seed <= 5; ++seed)
  {
    checkLevels<3>(seed);
  }
}

TEST(LeafLevels, MatchTheDefinition2D)
{
  for (unsigned seed = 1; seed <= 5; ++seed)
  {
    checkLevels<2>(seed);
  }
}

} // namespace
