// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The metric: what the search, FindMin2 and the output ask of distances, in one small value
// type that the functors carry (template argument and member). EuclideanMetric is the EMST's,
// MutualReachabilityMetric HDBSCAN*'s; the periodic box plugs in here too, not into copies of
// the search:
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

  /// (d) Euclidean length in input units, in double, scaled before squaring (scaledLength): no
  /// overflow or underflow for any finite box; +inf only where the length exceeds DBL_MAX.
  EMST_HD EMST_FORCEINLINE double length(std::size_t a, std::size_t b) const
  {
    double d[Dim];
    for (int axis = 0; axis < Dim; ++axis)
    {
      d[axis] = dsub(points.coordinate(a, axis), points.coordinate(b, axis));
    }
    return scaledLength<Dim>(d);
  }
};

/// HDBSCAN*'s mutual reachability distance d_mr(a, b) = max(core(a), core(b), |a - b|), core(p)
/// the distance from p to its k-th nearest point (phases/CoreDistances.h), over the same points
/// as EuclideanMetric (distinct points in Morton order for the search, input points for the
/// output) with per-point cores indexed alike. With every core 0 (k = 1) it is the Euclidean
/// metric, key for key and length for length.
///
/// (c) The key max(coreKey[a], coreKey[b], exactKey(a, b)) is exact (each of the three is an
/// exact key of the frame), so the total order (key, smaller input index, larger one) and its
/// ties are those of the mutual reachability graph, the same on every backend.
///
/// The float side, and why Tolerance still holds (its relation, for a float f standing for an
/// exact key K: lo(f) <= K <= hi(f), lo and hi non-decreasing, Arithmetic.h):
///   (a) distance2 = max(coreBound[q], coreBound[k], d2), where coreBound = floatAtLeast(coreKey)
///       and d2 the Euclidean float distance. Each term stands for its exact term: d2 by the
///       Tolerance argument, and a core bound f = floatAtLeast(K) by K <= f <= hi(f) and
///       K >= f (1 - 2^-23) >= lo(f). Since lo and hi are non-decreasing,
///       max_i lo(f_i) = lo(max_i f_i) and max_i hi(f_i) = hi(max_i f_i), so the maximum of the
///       floats stands for the maximum of the keys, with the same relation: every window, `sure`
///       bound and keyAtMost built from it stays valid.
///   (b) boxDistance2 = max(coreBound[q], least core bound under the child slot, Euclidean box
///       distance): each term is at most its counterpart in (a) for every point inside the box,
///       and max is monotone, so it never exceeds (a): pruning stays exact.
///   (e) The early stop stays valid: every float distance is at least the Euclidean one, so a
///       point outside the cell is beyond the limit in this metric too.
/// Reference: Campello, Moulavi & Sander 2013 (HDBSCAN); McInnes & Healy 2017 (accelerated
/// HDBSCAN*, the Boruvka tree under mutual reachability); docs/hdbscan.md cites them.
template <class T, int Dim>
struct MutualReachabilityMetric
{
  static constexpr int kDim = Dim;
  static constexpr bool kBallInCellStops = true;

  EuclideanMetric<T, Dim> euclidean;
  const double* coreKeyOfPoint;  ///< exact squared core distance (frame units), by point
  const float* coreBoundOfPoint; ///< floatAtLeast of it (search only; null for the output)
  const float* leastCoreOfSlot;  ///< [2(L-1)] least core bound under each child (search only)

  struct Query
  {
    const float* x;
    float core;
  };
  EMST_HD EMST_FORCEINLINE Query query(const PointRecord& self, Index p) const
  {
    return Query{ self.x, coreBoundOfPoint[p] };
  }

  /// (a) max(query's core bound, k's, Euclidean float squared distance).
  EMST_HD EMST_FORCEINLINE float distance2(const Query& q, const PointRecord& r, Index k) const
  {
    float const d2 = euclidean.distance2(typename EuclideanMetric<T, Dim>::Query{ q.x }, r, k);
    return fmaxOf(fmaxOf(q.core, coreBoundOfPoint[k]), d2);
  }

  /// (b) max(query's core bound, least core bound under the slot, Euclidean box distance).
  EMST_HD EMST_FORCEINLINE float boxDistance2(
    const Query& q, const TreeNode<Dim>& node, Index index, int slot) const
  {
    float const box =
      euclidean.boxDistance2(typename EuclideanMetric<T, Dim>::Query{ q.x }, node, index, slot);
    return fmaxOf(fmaxOf(q.core, leastCoreOfSlot[2 * index + slot]), box);
  }

  /// (c) The exact key.
  EMST_HD EMST_FORCEINLINE double key(std::size_t a, std::size_t b) const
  {
    double const cores =
      coreKeyOfPoint[a] > coreKeyOfPoint[b] ? coreKeyOfPoint[a] : coreKeyOfPoint[b];
    double const d = euclidean.key(a, b);
    return cores > d ? cores : d;
  }

  /// (d) The mutual reachability distance in input units, sqrt(key) / scale: the scale is a
  /// power of two, so for k = 1 this is EuclideanMetric::length bit for bit (absent underflow of
  /// the unscaled squares).
  EMST_HD EMST_FORCEINLINE double length(std::size_t a, std::size_t b) const
  {
    return sqrt(this->key(a, b)) / euclidean.scale;
  }
};

} // namespace detail
} // namespace emst
