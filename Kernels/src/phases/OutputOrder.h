// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Last phase, the output order: the tree's edges and the copies' edges as one list, in input
// indices with double lengths, in the canonical order (length, i, j) that the public API
// promises. Sizes: m distinct points, d later copies, e = m - 1 + d edges.
#pragma once

#include "base/Algorithms.h"
#include "base/Arithmetic.h"
#include "base/Buffer.h"
#include "base/PairSort.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>

namespace emst
{
namespace detail
{

/// Output edge layout: the public emst::Edge, mirrored here so that device code need not see
/// the public header.
struct OutputEdge
{
  std::uint32_t i;
  std::uint32_t j;
  double length;
};

/// The output edge of a sort key (EdgeKey's layout: the length's bits, i << 32 | j).
EMST_HD EMST_FORCEINLINE OutputEdge outputEdgeOfKey(std::uint64_t lengthBits, std::uint64_t pair)
{
  return OutputEdge{ static_cast<std::uint32_t>(pair >> 32),
    static_cast<std::uint32_t>(pair & 0xFFFFFFFFu), bitsDouble(lengthBits) };
}

/// Sort key of an output edge: the length's bits (non-negative doubles order like their bit
/// patterns) and the index pair (i << 32 | j, i < j).
template <class Metric>
struct EdgeKey
{
  Metric metric; ///< over the input points
  EMST_HD void write(Index a, Index b, std::uint64_t* lengthBits, std::uint64_t* pair) const
  {
    if (a > b)
    {
      Index const t = a;
      a = b;
      b = t;
    }
    *pair = (static_cast<std::uint64_t>(a) << 32) | b;
    *lengthBits = doubleBits(metric.length(a, b));
  }
};

/// A 32-bit key of an edge length that the canonical order refines (a longer length never has a
/// smaller key), for the output's radix sort (base/PairSort.h, sortItemsByKey): the bits of the
/// double length above `lowBits`, shifted right by 25 (the exponent's last 5 bits and 27 of the
/// mantissa: 32 octaves, lengths 2^-27 apart relatively or more told apart), 0 at or below
/// them and 2^32 - 1 past them. Keys that tie are ordered by comparison afterwards, so any
/// lowBits gives the same order; lengthKeyBelow makes the octaves those below every length.
struct LengthKey
{
  static constexpr int kShift = 25;
  std::uint64_t lowBits;
  EMST_HD EMST_FORCEINLINE std::uint32_t operator()(std::uint64_t lengthBits) const
  {
    std::uint64_t const above = lengthBits > lowBits ? (lengthBits - lowBits) >> kShift : 0u;
    return above > 0xFFFFFFFFull ? 0xFFFFFFFFu : static_cast<std::uint32_t>(above);
  }
};

/// The key whose 32 octaves end at `bound`, a length at least every edge's (the frame's extent,
/// FramedPoints::lengthBound): 0 where it is not a positive finite number (the lowest 32
/// octaves of doubles, all lengths then told apart by comparison alone).
inline LengthKey lengthKeyBelow(double bound)
{
  std::uint64_t const span = std::uint64_t(1) << (32 + LengthKey::kShift);
  std::uint64_t const top = bound > 0.0 && bound - bound == 0.0 ? doubleBits(bound) : 0u;
  return LengthKey{ top > span ? top - span : 0u };
}

/// Where an edge's sort key goes (orderEdges' radix path): keyOfSlot[s] the key of the output
/// edge at s, slotOfSlot[s] = s (sortItemsByKey's slots); null keys on the merged path.
struct KeyedSlots
{
  LengthKey lengthKey;
  std::uint32_t* keyOfSlot = nullptr; ///< [e]
  Index* slotOfSlot = nullptr;        ///< [e]
  EMST_HD EMST_FORCEINLINE void write(std::size_t s, std::uint64_t lengthBits) const
  {
    if (keyOfSlot)
    {
      keyOfSlot[s] = lengthKey(lengthBits);
      slotOfSlot[s] = static_cast<Index>(s);
    }
  }
};

/// The tree's edges as output edges, unordered, and their keys where `keyed` holds room.
template <class Metric>
struct TreeOutputEdges
{
  EdgeKey<Metric> key;
  const Index* edgePoints;   ///< [2*e] distinct-point pairs
  const Index* inputOfPoint; ///< [m]
  OutputEdge* out;           ///< [e]
  KeyedSlots keyed;
  EMST_HD void operator()(std::size_t e) const
  {
    std::uint64_t lengthBits = 0;
    std::uint64_t pair = 0;
    key.write(
      inputOfPoint[edgePoints[2 * e]], inputOfPoint[edgePoints[2 * e + 1]], &lengthBits, &pair);
    out[e] = outputEdgeOfKey(lengthBits, pair);
    keyed.write(e, lengthBits);
  }
};

/// The canonical order of output edges: (length, i, j), i < j.
struct OutputEdgeLess
{
  EMST_HD bool operator()(const OutputEdge& a, const OutputEdge& b) const
  {
    return a.length != b.length ? a.length < b.length : (a.i != b.i ? a.i < b.i : a.j < b.j);
  }
};

/// The copies' edges (EdgeKeys) as output edges from slot `first` on, and their keys where
/// `keyed` holds room.
struct CopyOutputEdges
{
  const std::uint64_t* lengthBits; ///< [d]
  const std::uint64_t* pairOfEdge; ///< [d]
  OutputEdge* out;                 ///< [e]
  std::size_t first;
  KeyedSlots keyed;
  EMST_HD void operator()(std::size_t k) const
  {
    out[first + k] = outputEdgeOfKey(lengthBits[k], pairOfEdge[k]);
    keyed.write(first + k, lengthBits[k]);
  }
};

/// The fewest edges that orderEdges radix-sorts: below, where memory does not come first and
/// the backend sorts them by comparison in one call (Exec::sortsByLessAtOnce), the output edges
/// themselves are sorted in the canonical order, one launch on the GPU instead of a radix sort
/// of keys, the gather, the count of the long runs (a host wait) and their gathered sort (the
/// keyed sort below 2^20 edges: 6-7% slower on the data sets of 10^5 to 5 * 10^5 points,
/// RESULTS.md, 2026-12-03). H200 (RESULTS.md, 2026-12-02, against the radix sort of the lengths'
/// top 40 bits and the pairs that the keyed sort replaced), the output phase, us: tsp_monalisa100k
/// (whose lengths mostly tie with others) 138 -> 68, lidar_autzen110k 130 -> 66,
/// lidar_lonestar519k 264 -> 168, uniform 1e5 3D 77 -> 64, uniform 1e6 3D 192 -> 190, 1e6 2D
/// 188 -> 191. The backend's count (Exec::kMergedEdgesBelow), or the knob
/// EMST_OUTPUT_MERGE_BELOW (a count; 0: never), read each run, for benchmarking and for the
/// tests of both paths on either backend.
inline std::size_t mergedEdgesBelow(std::size_t backendDefault)
{
  const char* text = std::getenv("EMST_OUTPUT_MERGE_BELOW");
  long long const knob = text ? std::atoll(text) : -1ll;
  return knob >= 0 ? static_cast<std::size_t>(knob) : backendDefault;
}

/// Edges as sort keys (EdgeKey's layout), owned.
template <class Exec>
struct EdgeKeys
{
  EdgeKeys(Exec& exec, std::size_t count)
    : lengthBits(exec, count)
    , pairOfEdge(exec, count)
  {
  }
  std::size_t size() const { return this->pairOfEdge.size(); }
  void reset()
  {
    this->lengthBits.reset();
    this->pairOfEdge.reset();
  }

  Buffer<std::uint64_t, Exec> lengthBits; ///< [size] bits of the double length
  Buffer<std::uint64_t, Exec> pairOfEdge; ///< [size] i << 32 | j, i < j (input indices)
};

/// The output phase: the tree's m-1 edges (pairs of distinct points in `edgePoints`, [2(m-1)])
/// and the copies' edges, in input indices and canonical order: below mergedEdgesBelow sorted
/// by comparison, else by sortItemsByKey over their LengthKeys (`lengthBound`: a length at
/// least every edge's). Releases edgePoints, inputOfPoint and copyEdges as soon as they are
/// read.
template <class Exec, class Metric>
Buffer<OutputEdge, Exec> orderEdges(Exec& exec, const Metric& metric,
  Buffer<Index, Exec>& edgePoints, Buffer<Index, Exec>& inputOfPoint, EdgeKeys<Exec>& copyEdges,
  double lengthBound)
{
  std::size_t const treeEdges = edgePoints.size() / 2;
  std::size_t const copies = copyEdges.size();
  std::size_t const e = treeEdges + copies;
  bool const merged = e < mergedEdgesBelow(Exec::kMergedEdgesBelow) && !exec.savesMemory() &&
    exec.template sortsByLessAtOnce<OutputEdge, OutputEdgeLess>(e);
  Buffer<OutputEdge, Exec> out(exec, e);
  // The radix path's keys: 8 bytes an edge (the key and its slot) where the sort by the
  // lengths' top 40 bits and the pairs moved 16 (H200, the output of cosmo 1e7 3D: RESULTS.md).
  Buffer<std::uint32_t, Exec> keyOfSlot(exec, merged ? 0 : e);
  Buffer<Index, Exec> slotOfSlot(exec, merged ? 0 : e);
  KeyedSlots const keyed{ lengthKeyBelow(lengthBound), merged ? nullptr : keyOfSlot.data(),
    merged ? nullptr : slotOfSlot.data() };
  if (treeEdges > 0)
  {
    exec.forEach(treeEdges,
      TreeOutputEdges<Metric>{
        { metric }, edgePoints.data(), inputOfPoint.data(), out.data(), keyed });
  }
  edgePoints.reset();
  inputOfPoint.reset();
  if (copies > 0)
  {
    exec.forEach(copies,
      CopyOutputEdges{
        copyEdges.lengthBits.data(), copyEdges.pairOfEdge.data(), out.data(), treeEdges, keyed });
    copyEdges.reset();
  }
  if (merged)
  {
    exec.sortByLess(out, OutputEdgeLess{}); // distinct pairs: no two equal
    return out;
  }
  return sortItemsByKey(exec, keyOfSlot, slotOfSlot, out, OutputEdgeLess{});
}

} // namespace detail
} // namespace emst
