// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The metric: what the search, FindMin2 and the output ask of distances, in one small value
// type that the functors carry (template argument and member). Three exist: EuclideanMetric
// (the EMST's), PeriodicMetric (phases/PeriodicMetric.h, the minimum image in a periodic box) and
// MutualReachabilityMetric (HDBSCAN*'s, below). Boruvka.h picks one per run; the phases never
// copy the search for a metric. What a metric provides:
//   kDim, kBallInCellStops, Query, query(record, k), over(points): the same metric over other
//   points (the input's for the duplicates and the output, the distinct points' for the search);
//   (a) distance2(query, record, k): the float squared distance the search prunes with;
//   (b) boxDistance2(query, node, index, slot): a float lower bound of (a) over a subtree's box,
//       with the same rounded operations in the same order so that it never exceeds (a);
//   (c) key(a, b): the exact double key of the contract (Emst.h), its total order with the ends;
//   (d) length(a, b): the edge length in input units (scaled, never NaN: Arithmetic.h);
//   (e) kBallInCellStops and ballClearOfFaces(q, limit, tolerance): whether the bottom-up search
//       may stop once the ball of its best lies inside the Morton cell searched so far, and any
//       condition the metric adds to it (the periodic one: the ball does not reach a periodic
//       face).
//   (f) kNeighbourLists: whether round one lists each point's nearest points for the later
//       rounds (NearestForeign.h, answerFromList): the plain metrics; not mutual reachability,
//       whose many equal keys (the core distances) make the lists cost more than they save.
//   (g) kSearchRegisters: the register budget its searches run fastest at on a GPU (measured;
//       more blocks a multiprocessor against some spilling), which a GPU build holds them to;
//       0, the compiler's choice.
// Tolerance must bound the float values (a), (b) against the keys (c) (Arithmetic.h: the
// Euclidean argument; PeriodicMetric.h: the periodic one, with a wider eta).
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
template <class T, int Dim, bool Indexed = false>
struct EuclideanMetric
{
  static constexpr int kDim = Dim;

  /// (e) The bottom-up search may stop once the ball of its current best lies inside the Morton
  /// cell searched so far: every point outside the cell is then farther.
  static constexpr bool kBallInCellStops = true;
  static constexpr bool kNeighbourLists = true;
  /// (g) 3D float searches in 40 registers: 12 blocks of 128 a multiprocessor instead of 10 at
  /// the compiler's 48 for rounds one and two (76 bytes spill to the stack, and it still pays):
  /// uniform 1e7 3D 26.25 -> 25.81 ms, cosmo 28.24 -> 27.84, uniform 3e7 3D 90.5 -> 88.9 (H100),
  /// smaller 3D sets even. Not 2D (0.6% slower) nor double input (its searches spill more).
  static constexpr int kSearchRegisters = Dim == 3 && sizeof(T) == 4 ? 40 : 0;

  InputPoints<T, Dim, Indexed> points; ///< exact coordinates
  double scale;                        ///< Frame::scale: keys are squared distances in frame units

  /// The same metric over other points (the distinct points of the search).
  template <bool I>
  EuclideanMetric<T, Dim, I> over(const InputPoints<T, Dim, I>& others) const
  {
    return EuclideanMetric<T, Dim, I>{ others, this->scale };
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
      float const d = gapToInterval(q.x[a], lo[a], hi[a]);
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

/// HDBSCAN*'s mutual reachability distance d_mr(a, b) = max(core(a), core(b), d(a, b)) over a
/// base metric d (Base: EuclideanMetric, or PeriodicMetric in a periodic box), core(p) the base
/// distance from p to its k-th nearest point (phases/CoreDistances.h, which searches with the
/// base metric), over the same points as the base (distinct points in Morton order for the
/// search, input points for the output) with per-point cores indexed alike. With every core 0
/// (k = 1) it is the base metric, key for key.
///
/// (c) The key max(coreKey[a], coreKey[b], base key(a, b)) is exact (each of the three is an
/// exact key of the frame), so the total order (key, smaller input index, larger one) and its
/// ties are those of the mutual reachability graph, the same on every backend.
///
/// The float side, and why Tolerance still holds (its relation, for a float f standing for an
/// exact key K: lo(f) <= K <= hi(f), lo and hi non-decreasing, Arithmetic.h; for a periodic base
/// the same relation with its wider eta, PeriodicMetric.h):
///   (a) distance2 = max(coreBound[q], coreBound[k], d2), where coreBound = floatAtLeast(coreKey)
///       and d2 the base float distance. Each term stands for its exact term: d2 by the base's
///       Tolerance argument, and a core bound f = floatAtLeast(K) by K <= f <= hi(f) and
///       K >= f (1 - 2^-23) >= lo(f). Since lo and hi are non-decreasing,
///       max_i lo(f_i) = lo(max_i f_i) and max_i hi(f_i) = hi(max_i f_i), so the maximum of the
///       floats stands for the maximum of the keys, with the same relation: every window, `sure`
///       bound and keyAtMost built from it stays valid.
///   (b) boxDistance2 = max(coreBound[q], least core bound under the child slot, base box
///       distance): each term is at most its counterpart in (a) for every point inside the box,
///       and max is monotone, so it never exceeds (a): pruning stays exact.
///   (e) The base's early stop stays valid: every float distance is at least the base one, so a
///       point that the base rules out (outside the cell and, in a box, not nearer the other way
///       round: the base's ballClearOfFaces) is beyond the limit in this metric too.
/// Reference: Campello, Moulavi & Sander 2013 (HDBSCAN); McInnes & Healy 2017 (accelerated
/// HDBSCAN*, the Boruvka tree under mutual reachability); docs/hdbscan.md cites them.
template <class Base>
struct MutualReachabilityMetric
{
  static constexpr int kDim = Base::kDim;
  static constexpr bool kBallInCellStops = Base::kBallInCellStops;
  static constexpr bool kNeighbourLists = false; // (f): the cores tie too many keys
  static constexpr int kSearchRegisters = 0;     // (g): spills at the base's

  Base base;
  const double* coreKeyOfPoint;  ///< exact squared core distance (frame units), by point
  const float* coreBoundOfPoint; ///< floatAtLeast of it (search only; null for the output)
  const float* leastCoreOfSlot;  ///< [2(L-1)] least core bound under each child (search only)
  double scale;                  ///< Frame::scale: the keys' unit

  struct Query
  {
    typename Base::Query base;
    float core;
  };
  EMST_HD EMST_FORCEINLINE Query query(const PointRecord& self, Index p) const
  {
    return Query{ base.query(self, p), coreBoundOfPoint[p] };
  }

  /// (e) The base's condition.
  EMST_HD EMST_FORCEINLINE bool ballClearOfFaces(
    const float* q, float limit, const Tolerance& tolerance) const
  {
    return base.ballClearOfFaces(q, limit, tolerance);
  }

  /// (a) max(query's core bound, k's, base float squared distance).
  EMST_HD EMST_FORCEINLINE float distance2(const Query& q, const PointRecord& r, Index k) const
  {
    float const d2 = base.distance2(q.base, r, k);
    return fmaxOf(fmaxOf(q.core, coreBoundOfPoint[k]), d2);
  }

  /// (b) max(query's core bound, least core bound under the slot, base box distance).
  EMST_HD EMST_FORCEINLINE float boxDistance2(
    const Query& q, const TreeNode<kDim>& node, Index index, int slot) const
  {
    float const box = base.boxDistance2(q.base, node, index, slot);
    return fmaxOf(fmaxOf(q.core, leastCoreOfSlot[2 * index + slot]), box);
  }

  /// (c) The exact key.
  EMST_HD EMST_FORCEINLINE double key(std::size_t a, std::size_t b) const
  {
    double const cores =
      coreKeyOfPoint[a] > coreKeyOfPoint[b] ? coreKeyOfPoint[a] : coreKeyOfPoint[b];
    double const d = base.key(a, b);
    return cores > d ? cores : d;
  }

  /// (d) The mutual reachability distance in input units, sqrt(key) / scale: the scale is a
  /// power of two, so for k = 1 this is the base's length bit for bit (absent underflow of the
  /// unscaled squares).
  EMST_HD EMST_FORCEINLINE double length(std::size_t a, std::size_t b) const
  {
    return sqrt(this->key(a, b)) / scale;
  }
};

} // namespace detail
} // namespace emst
