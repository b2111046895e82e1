// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The minimum-image metric of a periodic box (Options::box), in Metric.h's seam: per axis of
// period L the difference d becomes min(d, L - d); the axes that are not periodic keep the
// Euclidean difference. Emst.h states the exact key; this file is its float side and the proof
// that the search's bounds still hold.
//
// The frame (Frame.h) spans the box [origin, origin + L) on a periodic axis: a point is wrapped
// to its offset w in [0, L) (wrapOffset) and its float coordinate is float(w * s) (s the frame's
// power-of-two scale), so 0 <= coordinate <= P = float(L * s), the period in frame units.
//
// Rounding (why Tolerance::eta is 2^(e-20) for a periodic frame instead of 2^(e-22)). Let e =
// ilogb(M), M the frame's largest extent (a period P or a box extent; every coordinate and every
// P lies in [0, 2^(e+1))), and u = 2^(e-24), half an ulp there. Per periodic axis, with A, B the
// exact scaled places (w * s, doubles) and D = |A - B|:
//   - the float coordinates a, b are within u of A, B, and P within u of L * s;
//   - fl|a - b| is within 2u + u = 3u of D (the difference is below 2^(e+1): rounding <= u);
//   - P - fl|a - b| is within 4u of L*s - D, and its rounding adds u: 5u;
//   - min is 1-Lipschitz in each argument: the float term min(fl|a-b|, fl(P - fl|a-b|)) is within
//     5u of min(D, L*s - D), and the key's double term (Emst.h, rounded at 2^-53) within 2^(e-51)
//     of it: within 6u of each other. An axis that is not periodic is within 3u (the same steps
//     without P).
// Over at most 3 axes the float difference vector is within sqrt(3) * 6u < 16u = 2^(e-20) = eta of
// the key's, and squaring and summing it in float costs at most a factor (1 +- 3 * 2^-24): the two
// inequalities of Tolerance (Arithmetic.h) hold with this eta, and every window and bound built on
// them (limits, sure values, keyAtMost, the components' bounds) stays exact.
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

/// The minimum-image metric. `points` are read by the index the metric is asked with, as in
/// EuclideanMetric (raw input coordinates: the places are wrapped here, on the fly, which costs a
/// branch for points already inside the box). Trivially copyable.
template <class T, int Dim, bool Indexed = false>
struct PeriodicMetric
{
  static constexpr int kDim = Dim;

  /// (e) The bottom-up early stop is kept, with the wrap condition of ballClearOfFaces.
  static constexpr bool kBallInCellStops = true;
  static constexpr bool kNeighbourLists = true;
  static constexpr int kSearchRegisters = 0; // (g): spills at the Euclidean one's

  InputPoints<T, Dim, Indexed> points; ///< exact coordinates
  Frame frame;                         ///< origin (lo), period and scale of every axis
  float period[3];                     ///< P = float(L * s) on a periodic axis, +inf on the others

  struct Query
  {
    const float* x;
  };
  EMST_HD EMST_FORCEINLINE Query query(const PointRecord& self, Index) const
  {
    return Query{ self.x };
  }

  /// The same metric over other points (the distinct points of the search).
  template <bool I>
  PeriodicMetric<T, Dim, I> over(const InputPoints<T, Dim, I>& others) const
  {
    PeriodicMetric<T, Dim, I> m{ others, this->frame, {} };
    for (int a = 0; a < 3; ++a)
    {
      m.period[a] = this->period[a];
    }
    return m;
  }

  /// Float distance on one axis from |difference| d: min(d, P - d), each operation rounded.
  /// With P = +inf (an axis that is not periodic) it is d itself.
  EMST_HD EMST_FORCEINLINE float image(float d, int a) const
  {
    return fminExact(fsub(period[a], d), d);
  }

  /// (a) Float squared minimum-image distance, the terms added in axis order like Euclidean's.
  EMST_HD EMST_FORCEINLINE float distance2(const Query& q, const PointRecord& r, Index) const
  {
    float s = 0.0f;
    for (int a = 0; a < Dim; ++a)
    {
      float d = fsub(q.x[a], r.x[a]);
      d = this->image(fabsExact(d), a);
      float const dd = fmul(d, d);
      s = (a == 0) ? dd : fadd(s, dd);
    }
    return s;
  }

  /// (b) Float squared distance from the query to the box of `node`'s child `slot` (`index`: the
  /// node's index, unused here) or to its image one period away, the nearer, per axis. Never above
  /// distance2 to a point x of the box: for q < lo <= x <= hi, rounding is monotone, so fl(x - q)
  /// >= fl(lo - q) and fl(P - fl(x - q)) >= fl(P - fl(hi - q)), hence image(x) >= min of those two,
  /// the term here (q > hi likewise, q inside: 0); squares and the sums in the same order keep the
  /// order.
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
        float const around = fsub(period[a], fsub(hi[a], q.x[a]));
        float const direct = fsub(lo[a], q.x[a]);
        d = fminExact(around, direct);
      }
      else if (q.x[a] > hi[a])
      {
        float const around = fsub(period[a], fsub(q.x[a], lo[a]));
        float const direct = fsub(q.x[a], hi[a]);
        d = fminExact(around, direct);
      }
      float const dd = fmul(d, d);
      s = (a == 0) ? dd : fadd(s, dd);
    }
    return s;
  }

  /// (e) The bottom-up search stops once the ball of its best (float radius sqrt(limit)) lies
  /// inside the Morton cell searched so far (FindNearestForeign::ballInside: no point beyond the
  /// cell's faces is nearer directly). Across a periodic axis a point may still be nearer the
  /// other way around; this adds the condition that rules that out: on every periodic axis,
  /// q > reach and P - q > reach with reach = sqrt(limit) + eta. Proof: for x <= q, fl(q - x) <= q,
  /// so fl(P - fl(q - x)) >= fl(P - q) >= P - q - u; for x > q, fl(x - q) <= fl(P - q) <= P - q +
  /// u, so fl(P - fl(x - q)) >= q - 2u. Either way the way around exceeds sqrt(limit) + eta - 2u,
  /// and eta = 16u: that axis alone gives a float distance above limit (1 - 2^-23), while every
  /// candidate that can still win lies below limit / (1 + 2^-16) (Tolerance's margins).
  EMST_HD EMST_FORCEINLINE bool ballClearOfFaces(
    const float* q, float limit, const Tolerance& tolerance) const
  {
    double const reach = sqrt(static_cast<double>(limit)) + static_cast<double>(tolerance.eta);
    for (int a = 0; a < Dim; ++a)
    {
      double const p = static_cast<double>(period[a]);
      double const x = static_cast<double>(q[a]);
      if (frame.period[a] > 0.0 && !(x > reach && p - x > reach))
      {
        return false;
      }
    }
    return true;
  }

  /// The key's and the length's difference on one axis (Emst.h): on a periodic axis
  /// min(|wa - wb|, L - |wa - wb|) of the wrapped places, else a - b; unscaled, in double.
  EMST_HD EMST_FORCEINLINE double difference(double x, double y, int axis) const
  {
    double const period = frame.period[axis];
    if (!(period > 0.0))
    {
      return dsub(x, y);
    }
    double d = dsub(frame.place(x, axis), frame.place(y, axis));
    d = d < 0.0 ? -d : d;
    double const around = dsub(period, d);
    return around < d ? around : d;
  }

  /// (c) The exact key of points a and b: Emst.h's scaled sum of squared minimum-image
  /// differences, in axis order, no contraction. Both points are loaded first (the output reads
  /// them in input order, far apart: the loads overlap).
  EMST_HD EMST_FORCEINLINE double key(std::size_t a, std::size_t b) const
  {
    double x[3], y[3];
    points.load(a, x);
    points.load(b, y);
    double s = 0.0;
    for (int axis = 0; axis < Dim; ++axis)
    {
      double const d = dmul(this->difference(x[axis], y[axis], axis), frame.scale);
      s = axis == 0 ? dmul(d, d) : dadd(s, dmul(d, d));
    }
    return s;
  }

  /// (d) The minimum-image length in input units: the per-axis differences above, scaled before
  /// squaring (scaledLength), as the Euclidean length is: never NaN, +inf only beyond DBL_MAX
  /// (a non-periodic axis may span any finite extent; a periodic difference is at most L / 2).
  EMST_HD EMST_FORCEINLINE double length(std::size_t a, std::size_t b) const
  {
    double x[3], y[3];
    points.load(a, x);
    points.load(b, y);
    double d[Dim];
    for (int axis = 0; axis < Dim; ++axis)
    {
      d[axis] = this->difference(x[axis], y[axis], axis);
    }
    return scaledLength<Dim>(d);
  }
};

} // namespace detail
} // namespace emst
