// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Phase 2, duplicates: identical points are joined first by zero-length edges to the copy with
// the smallest input index (the unique MST under our total order does exactly that), and the
// search then runs on distinct points only. Identical means at the same place (Frame::place: the
// input coordinates, wrapped into the box on a periodic axis), i.e. at key 0.
// Sizes: v finite points (Morton order), r of them sharing their code, d later copies,
// m = v - d distinct points.
#pragma once

#include "base/Algorithms.h"
#include "base/Buffer.h"
#include "phases/Frame.h"
#include "phases/OutputOrder.h"

#include <cstddef>
#include <cstdint>
#include <utility>

namespace emst
{
namespace detail
{

/// Sort key that groups identical points inside a run of equal codes, smallest index first.
struct DuplicateKey
{
  std::uint64_t code;
  double x[3]; ///< the point's places: identical means at the same place
  Index point;
};

struct DuplicateKeyLess
{
  EMST_HD bool operator()(const DuplicateKey& a, const DuplicateKey& b) const
  {
    if (a.code != b.code)
    {
      return a.code < b.code;
    }
    for (int d = 0; d < 3; ++d)
    {
      if (a.x[d] != b.x[d])
      {
        return a.x[d] < b.x[d];
      }
    }
    return a.point < b.point;
  }
};

template <class T, int Dim>
struct MakeDuplicateKey
{
  InputPoints<T, Dim> input;
  Frame frame;
  const Index* slotOfRun;     ///< [r] sorted positions that share their code
  const std::uint64_t* code;  ///< [v]
  const Index* pointOfSorted; ///< [v]
  DuplicateKey* keyOfRun;     ///< [r]
  EMST_HD void operator()(std::size_t r) const
  {
    Index const s = slotOfRun[r];
    DuplicateKey k;
    k.code = code[s];
    k.point = pointOfSorted[s];
    input.place(k.point, frame, k.x);
    keyOfRun[r] = k;
  }
};

/// Writes the regrouped run back into its sorted positions (the set of positions is unchanged:
/// runs are contiguous and the code stays the major key).
struct ScatterDuplicateKey
{
  const Index* slotOfRun;       ///< [r]
  const DuplicateKey* keyOfRun; ///< [r], sorted
  Index* pointOfSorted;         ///< [v]
  EMST_HD void operator()(std::size_t r) const { pointOfSorted[slotOfRun[r]] = keyOfRun[r].point; }
};

/// s for the first copy of a point, 0 for the other copies: their running maximum
/// (Exec::runningMaximum, one launch) gives every copy the position of its first copy.
template <class T, int Dim>
struct MarkCopies
{
  InputPoints<T, Dim> input;
  Frame frame;
  const std::uint64_t* code;  ///< [v]
  const Index* pointOfSorted; ///< [v]
  EMST_HD Index operator()(std::size_t s) const
  {
    bool copy = false;
    if (s > 0 && code[s] == code[s - 1])
    {
      double a[3], b[3];
      input.place(pointOfSorted[s], frame, a);
      input.place(pointOfSorted[s - 1], frame, b);
      copy = a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
    }
    return copy ? 0u : static_cast<Index>(s);
  }
};

struct IsFirstCopy
{
  const Index* headOfSorted; ///< [v], after the max-scan
  EMST_HD bool operator()(std::size_t s) const { return headOfSorted[s] == s; }
};

struct IsLaterCopy
{
  const Index* headOfSorted; ///< [v], after the max-scan
  EMST_HD bool operator()(std::size_t s) const { return headOfSorted[s] != s; }
};

/// Copies of identical points: edge (first copy, copy). In double the two may still differ
/// slightly (double input rounding to the same float): the length is computed, not assumed 0.
template <class Metric>
struct CopyEdgeKeys
{
  EdgeKey<Metric> key;
  const Index* slotOfCopy;    ///< [d] sorted positions of the later copies
  const Index* headOfSorted;  ///< [v]
  const Index* pointOfSorted; ///< [v]
  std::uint64_t* lengthBits;  ///< [d]
  std::uint64_t* pairOfEdge;  ///< [d]
  EMST_HD void operator()(std::size_t e) const
  {
    Index const s = slotOfCopy[e];
    key.write(pointOfSorted[headOfSorted[s]], pointOfSorted[s], &lengthBits[e], &pairOfEdge[e]);
  }
};

/// The distinct points' codes and input indices, gathered from their sorted positions.
struct GatherDistinct
{
  const Index* slotOfPoint;          ///< [m] sorted position of each distinct point
  const std::uint64_t* codeOfSorted; ///< [v]
  const Index* pointOfSorted;        ///< [v]
  std::uint64_t* codeOfPoint;        ///< [m]
  Index* inputOfPoint;               ///< [m]
  EMST_HD void operator()(std::size_t p) const
  {
    Index const s = slotOfPoint[p];
    codeOfPoint[p] = codeOfSorted[s];
    inputOfPoint[p] = pointOfSorted[s];
  }
};

/// multiplicityOfPoint[p] = the copies of distinct point p, itself included: the gap to the next
/// distinct point's sorted position (the copies of a point are adjacent there).
struct CountCopies
{
  const Index* slotOfPoint; ///< [m] sorted position of each distinct point (its first copy)
  std::size_t distinct;     ///< m
  std::size_t finite;       ///< v
  std::uint32_t* multiplicityOfPoint; ///< [m]
  EMST_HD void operator()(std::size_t p) const
  {
    std::size_t const next = p + 1 < distinct ? slotOfPoint[p + 1] : finite;
    multiplicityOfPoint[p] = static_cast<std::uint32_t>(next - slotOfPoint[p]);
  }
};

/// What the duplicates phase hands on: the distinct points, and the copies' edges.
template <class Exec>
struct DistinctPoints
{
  explicit DistinctPoints(Exec& exec)
    : codeOfPoint(exec, 0)
    , inputOfPoint(exec, 0)
    , copyEdges(exec, 0)
    , multiplicityOfPoint(exec, 0)
  {
  }
  std::size_t size() const { return this->inputOfPoint.size(); }

  Buffer<std::uint64_t, Exec> codeOfPoint; ///< [m] Morton code of each distinct point, sorted
  Buffer<Index, Exec> inputOfPoint;        ///< [m] its input index (its first copy's)
  EdgeKeys<Exec> copyEdges;                ///< [d] (first copy, later copy)
  /// [m] copies of each distinct point, itself included; only when joinDuplicates is asked
  /// (mutual reachability: the core distances count copies).
  Buffer<std::uint32_t, Exec> multiplicityOfPoint;
};

/// Joins the copies of identical points among the sorted finite points (whose buffers it takes
/// over). Only runs of equal codes can hold copies: each is sorted by coordinates so that
/// identical points become adjacent, smallest input index first; the first copy of each point
/// is kept and the others get their zero-distance edge to it. With `countCopies`, also the
/// multiplicity of every distinct point.
template <class Exec, class T, int Dim, class Metric>
DistinctPoints<Exec> joinDuplicates(Exec& exec, const InputPoints<T, Dim>& input,
  const Metric& metric, FramedPoints<Exec, Dim>& framed, bool countCopies = false)
{
  Buffer<std::uint64_t, Exec>& codeOfSorted = framed.codeOfSorted;
  Buffer<Index, Exec>& pointOfSorted = framed.pointOfSorted;
  std::size_t const v = codeOfSorted.size();
  DistinctPoints<Exec> distinct(exec);
  std::size_t const sharing = framed.sharedCodes; // counted with the sort
  std::size_t copies = 0;
  if (sharing > 0)
  {
    {
      Buffer<Index, Exec> slotOfRun(exec, sharing);
      exec.selectIndices(v, slotOfRun.data(), SharesCode{ codeOfSorted.data(), v });
      Buffer<DuplicateKey, Exec> keyOfRun(exec, sharing);
      exec.forEach(sharing,
        MakeDuplicateKey<T, Dim>{ input, framed.frame, slotOfRun.data(), codeOfSorted.data(),
          pointOfSorted.data(), keyOfRun.data() });
      exec.sortByLess(keyOfRun, DuplicateKeyLess{}); // distinct: the point decides last
      exec.forEach(
        sharing, ScatterDuplicateKey{ slotOfRun.data(), keyOfRun.data(), pointOfSorted.data() });
    }
    Buffer<Index, Exec> headOfSorted(exec, v);
    exec.runningMaximum(v, nullptr,
      MarkCopies<T, Dim>{ input, framed.frame, codeOfSorted.data(), pointOfSorted.data() },
      headOfSorted.data());
    copies = exec.count(v, IsLaterCopy{ headOfSorted.data() });
    if (copies > 0)
    {
      {
        Buffer<Index, Exec> slotOfCopy(exec, copies);
        exec.selectIndices(v, slotOfCopy.data(), IsLaterCopy{ headOfSorted.data() });
        distinct.copyEdges = EdgeKeys<Exec>(exec, copies);
        exec.forEach(copies,
          CopyEdgeKeys<Metric>{ { metric }, slotOfCopy.data(), headOfSorted.data(),
            pointOfSorted.data(), distinct.copyEdges.lengthBits.data(),
            distinct.copyEdges.pairOfEdge.data() });
      }
      std::size_t const m = v - copies;
      Buffer<Index, Exec> slotOfPoint(exec, m);
      exec.selectIndices(v, slotOfPoint.data(), IsFirstCopy{ headOfSorted.data() });
      headOfSorted.reset();
      if (countCopies)
      {
        distinct.multiplicityOfPoint = Buffer<std::uint32_t, Exec>(exec, m);
        exec.forEach(
          m, CountCopies{ slotOfPoint.data(), m, v, distinct.multiplicityOfPoint.data() });
      }
      distinct.codeOfPoint = Buffer<std::uint64_t, Exec>(exec, m);
      distinct.inputOfPoint = Buffer<Index, Exec>(exec, m);
      exec.forEach(m,
        GatherDistinct{ slotOfPoint.data(), codeOfSorted.data(), pointOfSorted.data(),
          distinct.codeOfPoint.data(), distinct.inputOfPoint.data() });
    }
  }
  if (copies == 0)
  {
    distinct.codeOfPoint = std::move(codeOfSorted);
    distinct.inputOfPoint = std::move(pointOfSorted);
    if (countCopies)
    {
      distinct.multiplicityOfPoint = Buffer<std::uint32_t, Exec>(exec, v);
      exec.fill(distinct.multiplicityOfPoint.data(), v, 1u);
    }
  }
  else
  {
    codeOfSorted.reset();
    pointOfSorted.reset();
  }
  return distinct;
}

} // namespace detail
} // namespace emst
