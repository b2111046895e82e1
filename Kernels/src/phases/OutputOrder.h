// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Last phase, the output order: the tree's edges and the copies' edges as one list, in input
// indices with double lengths, in the canonical order (length, i, j) that the public API
// promises. Sizes: m distinct points, d later copies, e = m - 1 + d edges, t edges in long runs
// of equal lengths.
#pragma once

#include "base/Algorithms.h"
#include "base/Arithmetic.h"
#include "base/Buffer.h"

#include <cstddef>
#include <cstdint>

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

/// Runs of equal lengths up to this long are put in pair order in place, each by one thread
/// (SortShortRuns); longer ones (lattices, where one length may hold most of the list) are
/// gathered and sorted together (InLongRun). Measured (H100): with 32, a thread's insertion
/// sort of a long short run was the whole pass's time on small sets (up to 0.17 ms more on
/// lidar_lonestar519k, whose runs of 9 to 32 hold 0.3 million edges); with 32 or 16 in
/// registers, the pass's register count slowed it on large ones. On 10^7 uniform points in 2D,
/// 0.5% of the tied edges are in runs longer than 8.
constexpr int kShortRun = 8;

/// After sorting by length only: whether edge s lies in a run of more than kShortRun equal
/// lengths (counting at most kShortRun + 1 of them): the one test of a long run, which
/// SortShortRuns leaves to the gathered sort. Only there can the pair order still be wrong once
/// SortShortRuns has run.
struct InLongRun
{
  const std::uint64_t* lengthBits; ///< [e], sorted
  std::size_t count;
  EMST_HD bool operator()(std::size_t s) const
  {
    std::uint64_t const length = lengthBits[s];
    int same = 1;
    for (std::size_t k = s; k > 0 && same <= kShortRun && lengthBits[k - 1] == length; --k)
    {
      ++same;
    }
    for (std::size_t k = s + 1; k < count && same <= kShortRun && lengthBits[k] == length; ++k)
    {
      ++same;
    }
    return same > kShortRun;
  }
};

/// After sorting by length only: the thread at the start of a run of two to kShortRun equal
/// lengths sorts the run's pairs (an insertion sort). Float coordinates give a length a twin by
/// chance (a third of the lengths on 10^7 uniform points in 2D, most on 3 * 10^7): such runs
/// are short, and one pass over the list orders them all.
struct SortShortRuns
{
  const std::uint64_t* lengthBits; ///< [e], sorted
  std::uint64_t* pairOfEdge;       ///< [e], sorted within each short run on return
  std::size_t count;
  EMST_HD void operator()(std::size_t s) const
  {
    std::uint64_t const length = lengthBits[s];
    if ((s > 0 && lengthBits[s - 1] == length) || s + 1 >= count || lengthBits[s + 1] != length ||
      InLongRun{ lengthBits, count }(s))
    {
      return; // not the first of a run of two or more, or the run is a long one
    }
    std::size_t end = s + 2;
    while (end < count && lengthBits[end] == length)
    {
      ++end; // at most kShortRun in all (InLongRun)
    }
    int const size = static_cast<int>(end - s);
    std::uint64_t run[kShortRun];
    for (int k = 0; k < size; ++k)
    {
      std::uint64_t const pair = pairOfEdge[s + k];
      int j = k;
      for (; j > 0 && run[j - 1] > pair; --j)
      {
        run[j] = run[j - 1];
      }
      run[j] = pair;
    }
    for (int k = 0; k < size; ++k)
    {
      pairOfEdge[s + k] = run[k];
    }
  }
};

struct TiedEdge
{
  std::uint64_t lengthBits;
  std::uint64_t pair;
};

struct TiedEdgeLess
{
  EMST_HD bool operator()(const TiedEdge& a, const TiedEdge& b) const
  {
    return a.lengthBits != b.lengthBits ? a.lengthBits < b.lengthBits : a.pair < b.pair;
  }
};

struct GatherTies
{
  const Index* slotOfTie;          ///< [t]
  const std::uint64_t* lengthBits; ///< [e]
  const std::uint64_t* pairOfEdge; ///< [e]
  TiedEdge* tie;                   ///< [t]
  EMST_HD void operator()(std::size_t t) const
  {
    tie[t] = TiedEdge{ lengthBits[slotOfTie[t]], pairOfEdge[slotOfTie[t]] };
  }
};

/// Long runs keep their positions (length is the major key): the sorted ties go back in place.
struct ScatterTies
{
  const Index* slotOfTie;    ///< [t]
  const TiedEdge* tie;       ///< [t], sorted
  std::uint64_t* pairOfEdge; ///< [e]
  EMST_HD void operator()(std::size_t t) const { pairOfEdge[slotOfTie[t]] = tie[t].pair; }
};

struct WriteEdges
{
  const std::uint64_t* lengthBits; ///< [e], canonical order
  const std::uint64_t* pairOfEdge; ///< [e], canonical order
  OutputEdge* out;                 ///< [e]
  EMST_HD void operator()(std::size_t k) const
  {
    out[k].i = static_cast<std::uint32_t>(pairOfEdge[k] >> 32);
    out[k].j = static_cast<std::uint32_t>(pairOfEdge[k] & 0xFFFFFFFFu);
    out[k].length = bitsDouble(lengthBits[k]);
  }
};

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
/// and the copies' edges, in input indices and canonical order. Releases edgePoints,
/// inputOfPoint and copyEdges as soon as they are read.
template <class Exec, class Metric>
Buffer<OutputEdge, Exec> orderEdges(Exec& exec, const Metric& metric,
  Buffer<Index, Exec>& edgePoints, Buffer<Index, Exec>& inputOfPoint, EdgeKeys<Exec>& copyEdges)
{
  auto policy = exec.policy();
  std::size_t const treeEdges = edgePoints.size() / 2;
  std::size_t const copies = copyEdges.size();
  std::size_t const e = treeEdges + copies;
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
  // One radix sort by length; then only runs of equal lengths need the pair order: the short
  // ones in place, the long ones (`tied` edges in all) gathered.
  thrust::stable_sort_by_key(policy, lengthBits, lengthBits + e, pairOfEdge);
  exec.forEach(e, SortShortRuns{ lengthBits, pairOfEdge, e });
  std::size_t const tied = static_cast<std::size_t>(
    thrust::count_if(policy, Counting(0), Counting(e), InLongRun{ lengthBits, e }));
  if (tied > 0 && exec.savesMemory() && 36 * tied > 16 * e)
  {
    // Most lengths in long runs (lattices, quantised coordinates) in a run that puts memory
    // first: the whole list sorted again, by pair and then stably by length, takes less room
    // than the long runs gathered (the sorts' second copy, 16 bytes an edge, against 36 an edge
    // of a long run: slot, key and the merge sort's copy), and 10-15% more time on such sets.
    thrust::stable_sort_by_key(policy, pairOfEdge, pairOfEdge + e, lengthBits);
    thrust::stable_sort_by_key(policy, lengthBits, lengthBits + e, pairOfEdge);
  }
  else if (tied > 0)
  {
    Buffer<Index, Exec> slotOfTie(exec, tied);
    exec.selectIndices(e, slotOfTie.data(), InLongRun{ lengthBits, e });
    Buffer<TiedEdge, Exec> tie(exec, tied);
    exec.forEach(tied, GatherTies{ slotOfTie.data(), lengthBits, pairOfEdge, tie.data() });
    thrust::sort(policy, tie.data(), tie.end(), TiedEdgeLess{});
    exec.forEach(tied, ScatterTies{ slotOfTie.data(), tie.data(), pairOfEdge });
  }
  Buffer<OutputEdge, Exec> out(exec, e);
  exec.forEach(e, WriteEdges{ lengthBits, pairOfEdge, out.data() });
  return out;
}

} // namespace detail
} // namespace emst
