// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Part of phase 3 (cells, Cells.h): the level of the leaf cell of every distinct point, from the
// sorted Morton codes alone. Its own header so that the tests check it against the definition
// (Testing/Engine/LeafLevelTests.cxx) without the rest of the engine.
// Sizes: m distinct points, C the leaf capacity.
#pragma once

#include "base/Morton.h"

#include <cstddef>
#include <cstdint>

namespace emst
{
namespace detail
{

/// levelOfPoint[k] = prefix bits of the leaf cell holding distinct point k, a multiple of
/// `split` bits (the code bits of one split of a cell).
/// A cell of b prefix bits holds more than C points exactly when some window of C+1 consecutive
/// (sorted) points lies in it, i.e. when the window's two ends share b bits. So the leaf's bits
/// are one split more than the most (in whole splits) shared by the ends of a window containing
/// k. Up to kNearWindows points a leaf, one pass reads the ends of a point's at most C+1
/// windows (NearLeafLevel: O(C) work a point, neighbours' codes from the cache); above, two
/// passes, O(1) work a point whatever C: the running maxima of the windows' shared bits within
/// blocks of C+1 windows (BlockMaxima), then each point's maximum over its at most C+1 windows,
/// which span at most two blocks (LeafLevel; van Herk 1992, Gil & Werman 1993).

/// The leaf capacities whose levels take one pass (NearLeafLevel): the GPU's layouts (8, 16,
/// 24). H200, ncu: BlockMaxima's thread a block of C+1 windows reads its codes C+1 apart from
/// its neighbours' and leaves most of the GPU idle (4.9 us on lidar_autzen110k, 9.5 us on
/// geo_cities1000 at C = 16, before LeafLevel's 2.7). The CPU's leaves (32) keep the two
/// passes, whose work a point does not grow with C.
constexpr std::size_t kNearWindows = 24;

/// The level of a leaf whose windows' ends share at most `shared` bits: one split more, in
/// whole splits, capped at the codes' bits.
template <int Dim>
EMST_HD EMST_FORCEINLINE std::uint8_t levelOfShared(int shared, int split)
{
  constexpr int kCodeBits = MortonCell<Dim>::kCodeBits;
  shared -= shared % split;
  return static_cast<std::uint8_t>(shared + split < kCodeBits ? shared + split : kCodeBits);
}

/// The windows holding point k of m > C: first .. last, at most C+1 of them.
struct WindowsOfPoint
{
  std::size_t first;
  std::size_t last;
  EMST_HD EMST_FORCEINLINE WindowsOfPoint(std::size_t k, std::size_t count, std::size_t c)
    : first(k >= c ? k - c : 0)
    , last(k + c < count ? k : count - 1 - c)
  {
  }
};

/// One pass (C <= kNearWindows): point k's level from the bits its windows' ends share.
template <int Dim>
struct NearLeafLevel
{
  const std::uint64_t* codeOfPoint; ///< [m], sorted
  std::uint8_t* levelOfPoint;       ///< [m]
  std::size_t count;                ///< m > C
  std::size_t capacity;             ///< C
  int split;                        ///< code bits per split: 1 or Dim (leafLayout)
  EMST_HD void operator()(std::size_t k) const
  {
    WindowsOfPoint const windows(k, count, capacity);
    int shared = 0;
    for (std::size_t j = windows.first; j <= windows.last; ++j)
    {
      int const bits = commonBits<Dim>(codeOfPoint[j], codeOfPoint[j + capacity]);
      shared = bits > shared ? bits : shared;
    }
    levelOfPoint[k] = levelOfShared<Dim>(shared, split);
  }
};

/// One thread per block of C+1 windows (window j: points j .. j+C): the maxima of the bits its
/// windows' ends share, from the block's start and to its end. The forward pass leaves each
/// window's own bits in toEnd, which the backward pass then turns into the maxima.
template <int Dim>
struct BlockMaxima
{
  const std::uint64_t* codeOfPoint; ///< [m], sorted
  std::uint8_t* fromStart;          ///< [windows] max over block start .. j
  std::uint8_t* toEnd;              ///< [windows] max over j .. block end
  std::size_t windows;              ///< m - C
  std::size_t capacity;             ///< C
  EMST_HD void operator()(std::size_t b) const
  {
    std::size_t const block = capacity + 1;
    std::size_t const first = b * block;
    std::size_t const last = first + block < windows ? first + block - 1 : windows - 1;
    std::uint8_t up = 0;
    for (std::size_t j = first; j <= last; ++j)
    {
      auto const bits =
        static_cast<std::uint8_t>(commonBits<Dim>(codeOfPoint[j], codeOfPoint[j + capacity]));
      toEnd[j] = bits;
      up = bits > up ? bits : up;
      fromStart[j] = up;
    }
    std::uint8_t down = 0;
    for (std::size_t j = last + 1; j-- > first;)
    {
      down = toEnd[j] > down ? toEnd[j] : down;
      toEnd[j] = down;
    }
  }
};

template <int Dim>
struct LeafLevel
{
  const std::uint8_t* fromStart; ///< BlockMaxima's
  const std::uint8_t* toEnd;     ///< BlockMaxima's
  std::uint8_t* levelOfPoint;    ///< [m]
  std::size_t count;             ///< m > C
  std::size_t capacity;          ///< C
  int split;                     ///< code bits per split: 1 or Dim (leafLayout)
  EMST_HD void operator()(std::size_t k) const
  {
    // The windows holding k: at most C+1 of them, so in one block or two.
    WindowsOfPoint const windows(k, count, capacity);
    std::size_t const first = windows.first;
    std::size_t const last = windows.last;
    std::size_t const block = capacity + 1;
    int shared;
    if (first / block != last / block)
    {
      shared = toEnd[first] > fromStart[last] ? toEnd[first] : fromStart[last];
    }
    else
    {
      // One block: the range starts at the block's start (C+1 windows, or the first ones), or
      // ends at the last window (the block's end, clipped to the last block).
      shared = first % block == 0 ? fromStart[last] : toEnd[first];
    }
    levelOfPoint[k] = levelOfShared<Dim>(shared, split);
  }
};

} // namespace detail
} // namespace emst
