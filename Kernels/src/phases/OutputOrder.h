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

template <class Metric>
struct TreeEdgeKeys
{
  EdgeKey<Metric> key;
  const Index* edgePoints;   ///< [2*e] distinct-point pairs
  const Index* inputOfPoint; ///< [m]
  std::uint64_t* lengthBits; ///< [e]
  std::uint64_t* pairOfEdge; ///< [e]
  EMST_HD void operator()(std::size_t e) const
  {
    key.write(inputOfPoint[edgePoints[2 * e]], inputOfPoint[edgePoints[2 * e + 1]], &lengthBits[e],
      &pairOfEdge[e]);
  }
};

/// The tree's edges as output edges, unordered (orderEdges below mergedEdgesBelow).
template <class Metric>
struct TreeOutputEdges
{
  EdgeKey<Metric> key;
  const Index* edgePoints;   ///< [2*e] distinct-point pairs
  const Index* inputOfPoint; ///< [m]
  OutputEdge* out;           ///< [e]
  EMST_HD void operator()(std::size_t e) const
  {
    std::uint64_t lengthBits = 0;
    std::uint64_t pair = 0;
    key.write(
      inputOfPoint[edgePoints[2 * e]], inputOfPoint[edgePoints[2 * e + 1]], &lengthBits, &pair);
    out[e] = outputEdgeOfKey(lengthBits, pair);
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

struct WriteEdges
{
  const std::uint64_t* lengthBits; ///< [e], canonical order
  const std::uint64_t* pairOfEdge; ///< [e], canonical order
  OutputEdge* out;                 ///< [e]
  EMST_HD void operator()(std::size_t k) const
  {
    out[k] = outputEdgeOfKey(lengthBits[k], pairOfEdge[k]);
  }
};

/// The length bits the output's radix sort orders (non-negative doubles: bit 63 is 0), the
/// top ones: the sign, the exponent and 28 bits of the mantissa, five passes instead of eight;
/// the runs of lengths equal in them (2^-28 apart at most, relatively) are ordered afterwards
/// (base/PairSort.h). H100, the output phase: uniform 10^7 3D 2.24 -> 1.75 ms, 3 * 10^7 6.7 ->
/// 5.3, uniform 10^7 2D 2.39 -> 2.02; with 48 bits (six passes) 1.94 at 10^7 in 3D.
constexpr int kLengthRadixBits = 40;

/// The fewest edges that orderEdges radix-sorts: below, where memory does not come first and
/// the backend sorts them by comparison in one call (Exec::sortsByLessAtOnce), the output edges
/// themselves are sorted in the canonical order, one launch on the GPU instead of a radix sort
/// of their lengths' top bits, the count of the long runs it leaves (a host wait) and their
/// gathered sort. H200 (RESULTS.md, 2026-12-02), the output phase, us: tsp_monalisa100k
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
/// and the copies' edges, in input indices and canonical order: below mergedEdgesBelow the
/// output edges sorted by comparison, else their keys by sortPairs. Releases edgePoints,
/// inputOfPoint and copyEdges as soon as they are read.
template <class Exec, class Metric>
Buffer<OutputEdge, Exec> orderEdges(Exec& exec, const Metric& metric,
  Buffer<Index, Exec>& edgePoints, Buffer<Index, Exec>& inputOfPoint, EdgeKeys<Exec>& copyEdges)
{
  auto policy = exec.policy();
  std::size_t const treeEdges = edgePoints.size() / 2;
  std::size_t const copies = copyEdges.size();
  std::size_t const e = treeEdges + copies;
  if (e < mergedEdgesBelow(Exec::kMergedEdgesBelow) && !exec.savesMemory() &&
    exec.template sortsByLessAtOnce<OutputEdge, OutputEdgeLess>(e))
  {
    Buffer<OutputEdge, Exec> out(exec, e);
    if (treeEdges > 0)
    {
      exec.forEach(treeEdges,
        TreeOutputEdges<Metric>{ { metric }, edgePoints.data(), inputOfPoint.data(), out.data() });
    }
    edgePoints.reset();
    inputOfPoint.reset();
    if (copies > 0)
    {
      exec.forEach(copies,
        WriteEdges{
          copyEdges.lengthBits.data(), copyEdges.pairOfEdge.data(), out.data() + treeEdges });
      copyEdges.reset();
    }
    exec.sortByLess(out, OutputEdgeLess{}); // distinct pairs: no two equal
    return out;
  }
  EdgeKeys<Exec> edges(exec, e);
  std::uint64_t* const lengthBits = edges.lengthBits.data();
  std::uint64_t* const pairOfEdge = edges.pairOfEdge.data();
  if (treeEdges > 0)
  {
    exec.forEach(treeEdges,
      TreeEdgeKeys<Metric>{
        { metric }, edgePoints.data(), inputOfPoint.data(), lengthBits, pairOfEdge });
  }
  edgePoints.reset();
  inputOfPoint.reset();
  if (copies > 0)
  {
    thrust::copy(
      policy, copyEdges.lengthBits.data(), copyEdges.lengthBits.end(), lengthBits + treeEdges);
    thrust::copy(
      policy, copyEdges.pairOfEdge.data(), copyEdges.pairOfEdge.end(), pairOfEdge + treeEdges);
    copyEdges.reset();
  }
  // (length, pair) order: a radix sort by the lengths' top bits, then the runs of lengths
  // equal in them (equal lengths above all: lattices, quantised coordinates; float coordinates
  // give a third of the lengths a twin on 10^7 uniform points in 2D) ordered by length and pair.
  // Where memory comes first and most edges are in long runs, the list is sorted again by pair
  // and then by length: 10-15% more time on such sets.
  sortPairs(exec, edges.lengthBits, edges.pairOfEdge, 63, kLengthRadixBits);
  Buffer<OutputEdge, Exec> out(exec, e);
  exec.forEach(e, WriteEdges{ edges.lengthBits.data(), edges.pairOfEdge.data(), out.data() });
  return out;
}

} // namespace detail
} // namespace emst
