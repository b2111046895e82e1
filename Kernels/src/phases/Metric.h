// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The metric: what the search, FindMin2 and the output ask of distances, in one small value
// type that the functors carry (template argument and member). Only EuclideanMetric exists; the
// two that are planned plug in here, not into copies of the search:
//
// Periodic boxes (minimum image; the period given in frame units for the floats and in input
// units for the exact key):
//   (a) distance2: per axis d = |q - x|, then min(d, P - d), the same rounded operations in the
//       same order, so that (b) still never exceeds it.
//   (b) boxDistance2: per axis the gap to the box or to its image one period away, the smaller.
//   (c) key: the exact double minimum-image difference per axis (ordered coordinates reduced
//       into [0, P) once, in the cells phase), then squared and summed as exactKey does.
//   (d) length: the minimum-image length in input units.
//   (e) no early stop: a point outside a Morton cell can be near through the boundary, so the
//       bottom-up search climbs to the root (correct, slower); top-down needs nothing.
//
// HDBSCAN*'s mutual reachability (per-point core keys from a k-nearest-neighbour phase before
// the rounds, exact doubles plus their floatAtLeast for the float side):
//   (a) distance2: max(query's core, point k's core, d2): Query carries the query's core, k
//       indexes the cores.
//   (b) boxDistance2: max(query's core, the least core under the child slot, box distance2):
//       the least cores per subtree climbed like the boxes (Climb), read by node and slot.
//   (c) key: max(coreKey[a], coreKey[b], exactKey): exact, so the total order and the ties are
//       those of the mutual reachability graph.
//   (d) length: sqrt of that key in input units (the dendrogram's heights).
//   (e) early stop stays valid: every key is at least the Euclidean one.
// Tolerance keeps working for both: their float values bound their keys as the Euclidean ones do
// (cores are rounded up, maxima are monotone).
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

  /// (b) Float squared distance from the query to the box of `node`'s child `slot` (`index`:
  /// the node's index in the hierarchy, for metrics that keep more per node). The same rounded
  /// operations in the same order as distance2, so it never exceeds distance2 to a point inside
  /// the box (rounding is monotone): pruning a box whose distance exceeds the current best is
  /// exact.
  EMST_HD EMST_FORCEINLINE float boxDistance2(
    const Query& q, const TreeNode<Dim>& node, Index /*index*/, int slot) const
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
