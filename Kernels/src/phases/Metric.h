// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The metric: what the search, FindMin2 and the output ask of distances, in one small value
// type that the functors carry (template argument and member). Two exist: EuclideanMetric (below)
// and PeriodicMetric (phases/PeriodicMetric.h, the minimum image in a periodic box). Boruvka.h
// picks one per run; the phases never copy the search for a metric. What a metric provides:
//   kDim, kBallInCellStops, Query, query(record, k), over(points): the same metric over other
//   points (the input's for the duplicates and the output, the distinct points' for the search);
//   (a) distance2(query, record, k): the float squared distance the search prunes with;
//   (b) boxDistance2(query, node, slot): a float lower bound of (a) over a subtree's box, with
//       the same rounded operations in the same order so that it never exceeds (a);
//   (c) key(a, b): the exact double key of the contract (Emst.h), its total order with the ends;
//   (d) length(a, b): the edge length in input units;
//   (e) kBallInCellStops and ballClearOfFaces(q, limit, tolerance): whether the bottom-up search
//       may stop once the ball of its best lies inside the Morton cell searched so far, and any
//       condition the metric adds to it (the periodic one: the ball does not reach a periodic
//       face).
// Tolerance must bound the float values (a), (b) against the keys (c) (Arithmetic.h: the
// Euclidean argument; PeriodicMetric.h: the periodic one, with a wider eta).
//
// Planned: HDBSCAN*'s mutual reachability, as a metric that wraps a base metric (Euclidean or
// periodic) and adds per-point core keys from a k-nearest-neighbour phase before the rounds
// (exact doubles plus their floatAtLeast for the float side):
//   (a) distance2: max(query's core, point k's core, base d2): Query carries the query's core, k
//       indexes the cores.
//   (b) boxDistance2: max(query's core, the least core under the child slot, base box distance2):
//       the least cores per subtree climbed with the boxes (ClimbBoxes), read by node and slot.
//   (c) key: max(coreKey[a], coreKey[b], base key): exact, so the total order and the ties are
//       those of the mutual reachability graph.
//   (d) length: sqrt of that key in input units (the dendrogram's heights).
//   (e) the base's: every key is at least the base's one.
// Tolerance keeps working: its float values bound its keys as the base's do (cores are rounded
// up, maxima are monotone).
#pragma once

#include "base/Arithmetic.h"
#include "phases/Cells.h"
#include "phases/Frame.h"
#include "phases/Hierarchy.h"

#include <cmath>
#include <cstddef>

namespace emst
{
namespace detail
{

/// The Euclidean metric. `points` are read by the index the metric is asked with: the distinct
/// points in Morton order for the search and FindMin2 (Cells::exactOfPoint), the input points
/// for the output. Trivially copyable: the functors carry it by value.
template <class T, int Dim>
struct EuclideanMetric
{
  static constexpr int kDim = Dim;

  /// (e) The bottom-up search may stop once the ball of its current best lies inside the Morton
  /// cell searched so far: every point outside the cell is then farther.
  static constexpr bool kBallInCellStops = true;

  InputPoints<T, Dim> points; ///< exact coordinates
  double scale;               ///< Frame::scale: keys are squared distances in frame units

  /// The same metric over other points (the distinct points of the search).
  EuclideanMetric over(const InputPoints<T, Dim>& others) const
  {
    return EuclideanMetric{ others, this->scale };
  }

  /// (e) Nothing to add to the cell test: there are no periodic faces.
  EMST_HD EMST_FORCEINLINE bool ballClearOfFaces(const float*, float, const Tolerance&) const
  {
    return true;
  }

  /// What a search carries of its query point: the float coordinates of its record.
  struct Query
  {
    const float* x;
  };
  EMST_HD EMST_FORCEINLINE Query query(const PointRecord& self, Index) const
  {
    return Query{ self.x };
  }

  /// (a) Float squared distance from the query to point k (record r),
  /// ((dx*dx + dy*dy) + dz*dz), each operation rounded.
  EMST_HD EMST_FORCEINLINE float distance2(const Query& q, const PointRecord& r, Index) const
  {
    const float* const a = q.x;
    const float* const b = r.x;
    float const d0 = fsub(a[0], b[0]);
    float const d1 = fsub(a[1], b[1]);
    float s = fadd(fmul(d0, d0), fmul(d1, d1));
    if (Dim == 3)
    {
      float const d2 = fsub(a[2], b[2]);
      s = fadd(s, fmul(d2, d2));
    }
    return s;
  }

  /// (b) Float squared distance from the query to the box of `node`'s child `slot`. The same
  /// rounded operations in the same order as distance2, so it never exceeds distance2 to a point
  /// inside the box (rounding is monotone): pruning a box whose distance exceeds the current best
  /// is exact.
  EMST_HD EMST_FORCEINLINE float boxDistance2(
    const Query& q, const TreeNode<Dim>& node, int slot) const
  {
    const float* const lo = node.lo[slot];
    const float* const hi = node.hi[slot];
    float s = 0.0f;
    for (int a = 0; a < Dim; ++a)
    {
      float d = 0.0f;
      if (q.x[a] < lo[a])
      {
        d = fsub(lo[a], q.x[a]);
      }
      else if (q.x[a] > hi[a])
      {
        d = fsub(q.x[a], hi[a]);
      }
      float const dd = fmul(d, d);
      s = (a == 0) ? dd : fadd(s, dd);
    }
    return s;
  }

  /// (c) The exact key of points a and b (exactKey).
  EMST_HD EMST_FORCEINLINE double key(std::size_t a, std::size_t b) const
  {
    double x[3], y[3];
    points.load(a, x);
    points.load(b, y);
    return exactKey<Dim>(x, y, scale);
  }

  /// (d) Euclidean length in input units, in double, terms added in axis order, no contraction.
  EMST_HD EMST_FORCEINLINE double length(std::size_t a, std::size_t b) const
  {
    double s = 0.0;
    for (int axis = 0; axis < Dim; ++axis)
    {
      double const d = points.coordinate(a, axis) - points.coordinate(b, axis);
      s = (axis == 0) ? dmul(d, d) : dadd(s, dmul(d, d));
    }
    return sqrt(s);
  }
};

} // namespace detail
} // namespace emst
