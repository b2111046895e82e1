// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Phase 1, the frame: the bounding box of the finite points, the float frame and the Morton
// lattice it gives, and the finite points sorted by Morton code.
// Sizes: n input points, v finite points.
#pragma once

#include "base/Algorithms.h"
#include "base/Arithmetic.h"
#include "base/Buffer.h"
#include "base/Morton.h"
#include "base/PairSort.h"
#include "emst/Emst.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace emst
{
namespace detail
{

/// How input coordinates become the engine's float coordinates: shifted by the bounding box's
/// lower corner, then scaled by a power of two so that the largest extent E lies in
/// [2^62, 2^63). The scaling is exact (a power of two) and keeps the order of the shifted
/// coordinates' distances. Squared distances then stay below 3 * 2^126 < FLT_MAX (no overflow,
/// in 2D or 3D), and a distance would have to be 2^-125 of the extent to underflow: far below
/// what float coordinates resolve. Unscaled, a range of 1e20 would overflow and one of 1e-20
/// underflow, turning distances into false ties.
constexpr int kFrameExponent = 62;

/// Wraps an offset w = x - origin into [0, L): Emst.h's formula, the same bits on both backends
/// (fmod is exact; only points outside the box take that path).
EMST_HD EMST_FORCEINLINE double wrapOffset(double w, double period)
{
  if (w < 0.0 || w >= period)
  {
    w = fmod(w, period);
    if (w < 0.0)
    {
      w = dadd(w, period);
    }
    if (w >= period)
    {
      w = 0.0; // w + L rounded up to L: the place at the origin
    }
  }
  return w == 0.0 ? 0.0 : w; // -0 -> +0: identical places compare and code alike
}

struct Frame
{
  double lo[3]; ///< the box's origin on a periodic axis, else the finite points' least coordinate
  double scale; ///< a power of two: frame units per input unit
  double period[3]; ///< the box's size L on a periodic axis (input units), 0 on the others

  EMST_HD bool periodic() const { return period[0] > 0.0 || period[1] > 0.0 || period[2] > 0.0; }
  /// Where the metric sees coordinate x of axis a: on a periodic axis its offset in the box,
  /// wrapped into [0, L); elsewhere x itself. Points at key 0 are exactly those at equal places.
  EMST_HD EMST_FORCEINLINE double place(double x, int a) const
  {
    return period[a] > 0.0 ? wrapOffset(dsub(x, lo[a]), period[a]) : x;
  }
  /// The offset of x from the frame's corner, in input units (scaled, it is a frame coordinate).
  EMST_HD EMST_FORCEINLINE double offset(double x, int a) const
  {
    return period[a] > 0.0 ? wrapOffset(dsub(x, lo[a]), period[a]) : dsub(x, lo[a]);
  }
};

/// The caller's points, in their own type and layout. `data` is in backend memory. Indexed (a
/// compile-time choice: a run-time one costs the search kernel registers): point i is the
/// input's point index[i], the distinct points read in place in Morton order.
template <class T, int Dim, bool Indexed = false>
struct InputPoints
{
  const T* data;
  std::size_t stride;           ///< scalars between consecutive points
  const Index* index = nullptr; ///< Indexed only: [points] input index of point i

  EMST_HD EMST_FORCEINLINE std::size_t at(std::size_t i) const
  {
    if constexpr (Indexed)
    {
      return static_cast<std::size_t>(index[i]);
    }
    else
    {
      return i;
    }
  }
  EMST_HD double coordinate(std::size_t i, int axis) const
  {
    return static_cast<double>(data[this->at(i) * stride + axis]);
  }
  EMST_HD bool isFinite(std::size_t i) const
  {
    for (int a = 0; a < Dim; ++a)
    {
      double const c = coordinate(i, a);
      if (!(c - c == 0.0)) // false for NaN and +-Inf
      {
        return false;
      }
    }
    return true;
  }
  /// Coordinates in the engine's frame, rounded to float: one formula for the codes and the
  /// records, on both backends. On a periodic axis the point is wrapped into the box first.
  EMST_HD void shifted(std::size_t i, const Frame& frame, float* out) const
  {
    for (int a = 0; a < Dim; ++a)
    {
      out[a] = static_cast<float>(dmul(frame.offset(coordinate(i, a), a), frame.scale));
    }
    for (int a = Dim; a < 3; ++a)
    {
      out[a] = 0.0f;
    }
  }
  /// The point's places (Frame::place; unused axes 0): the duplicate test compares these.
  EMST_HD void place(std::size_t i, const Frame& frame, double* out) const
  {
    for (int a = 0; a < 3; ++a)
    {
      out[a] = a < Dim ? frame.place(coordinate(i, a), a) : 0.0;
    }
  }
  /// The point's coordinates in double (unused axes 0); the index is read once.
  EMST_HD void load(std::size_t i, double* out) const
  {
    const T* const row = data + this->at(i) * stride;
    for (int a = 0; a < 3; ++a)
    {
      out[a] = a < Dim ? static_cast<double>(row[a]) : 0.0;
    }
  }
};

/// Axis-aligned box in double precision (bounding box of the input).
struct BoundingBox
{
  double lo[3];
  double hi[3];
  std::uint64_t count; ///< finite points inside
};

template <class T, int Dim>
struct IsFinitePoint
{
  InputPoints<T, Dim> input;
  EMST_HD bool operator()(std::size_t i) const { return input.isFinite(i); }
};

/// Bounding box of one input point, empty (count 0) when a coordinate is not finite: one
/// transform-reduce gives both the box and the number of finite points.
template <class T, int Dim>
struct BoxOfPoint
{
  InputPoints<T, Dim> input;
  EMST_HD BoundingBox operator()(std::size_t i) const
  {
    BoundingBox b{};
    if (!input.isFinite(i))
    {
      return b;
    }
    for (int a = 0; a < 3; ++a)
    {
      double const c = a < Dim ? input.coordinate(i, a) : 0.0;
      b.lo[a] = c;
      b.hi[a] = c;
    }
    b.count = 1;
    return b;
  }
};

struct BoxUnion
{
  EMST_HD BoundingBox operator()(const BoundingBox& x, const BoundingBox& y) const
  {
    if (x.count == 0)
    {
      return y;
    }
    if (y.count == 0)
    {
      return x;
    }
    BoundingBox b{};
    for (int a = 0; a < 3; ++a)
    {
      b.lo[a] = x.lo[a] < y.lo[a] ? x.lo[a] : y.lo[a];
      b.hi[a] = x.hi[a] > y.hi[a] ? x.hi[a] : y.hi[a];
    }
    b.count = x.count + y.count;
    return b;
  }
};

/// 1 for a finite point outside the periodic box on some periodic axis (it gets wrapped).
template <class T, int Dim>
struct OutsideBox
{
  InputPoints<T, Dim> input;
  Frame frame;
  EMST_HD bool operator()(std::size_t i) const
  {
    if (!input.isFinite(i))
    {
      return false;
    }
    for (int a = 0; a < Dim; ++a)
    {
      double const w = dsub(input.coordinate(i, a), frame.lo[a]);
      if (frame.period[a] > 0.0 && (w < 0.0 || w >= frame.period[a]))
      {
        return true;
      }
    }
    return false;
  }
};

/// Quantisation of shifted coordinates to the Morton lattice of the bounding cube (the largest
/// extent on every axis: cells are cubes, and a flat or linear cloud never gets zero-size cells).
template <int Dim>
struct Quantizer
{
  float scale; ///< lattice cells per unit of shifted coordinate (0 when all points coincide)

  EMST_HD std::uint64_t code(const float* c) const
  {
    constexpr std::uint32_t kMax = (1u << MortonTraits<Dim>::kBitsPerAxis) - 1u;
    std::uint64_t q[3] = { 0, 0, 0 };
    for (int a = 0; a < Dim; ++a)
    {
      float const f = fmul(c[a], scale);
      q[a] = f >= static_cast<float>(kMax) ? kMax : static_cast<std::uint32_t>(f);
    }
    if (Dim == 3)
    {
      return (spreadBits3(q[0]) << 2) | (spreadBits3(q[1]) << 1) | spreadBits3(q[2]);
    }
    return (spreadBits2(q[0]) << 1) | spreadBits2(q[1]);
  }
};

/// codeOfFinite[f] = Morton code of finite point f; pointOfFinite[f] stays its input index.
template <class T, int Dim>
struct ComputeCodes
{
  InputPoints<T, Dim> input;
  const Index* pointOfFinite;  ///< [v]
  std::uint64_t* codeOfFinite; ///< [v]
  Frame frame;
  Quantizer<Dim> quantizer;
  EMST_HD void operator()(std::size_t f) const
  {
    float c[3];
    input.shifted(pointOfFinite[f], frame, c);
    codeOfFinite[f] = quantizer.code(c);
  }
};

/// The scale of the exact key for a box whose largest extent is `extent` (finite, >= 0): the
/// power of two that brings it into [2^62, 2^63), capped for extents below 2^-900 (double input
/// only), whose scale would overflow; 1 for a single position (and for an extent that is not
/// finite, which the host turns into an error).
EMST_HD inline double frameScale(double extent)
{
  if (!(extent > 0.0) || !(extent - extent == 0.0))
  {
    return 1.0;
  }
  int const exponent = kFrameExponent - ilogb(extent);
  return ldexp(1.0, exponent < 960 ? exponent : 960);
}

/// What the box of the finite points gives (frameOfBox): the frame and its lattice, and what
/// makes the input invalid.
template <int Dim>
struct BoxFrame
{
  Frame frame;
  Quantizer<Dim> quantizer;
  float scaledExtent;     ///< the frame's largest extent (a period or a box extent), frame units
  float periodInFrame[3]; ///< float(L * scale) per periodic axis, else +inf
  bool offsetsOverflow;   ///< the offsets from a periodic origin overflow double
  bool extentOverflows;   ///< the largest extent overflows double
  bool anyOutside;        ///< the box reaches outside the periodic box (most boxes do not)
};

/// The frame of the box of the finite points (at least two; Frame.h's header has the scaling):
/// on a periodic axis the periodic box [origin, origin + L) (Options::box, validated), elsewhere
/// the points' extent. `givenScale` > 0 replaces the box's own scale (a distributed run keys
/// every rank's points with the scale of the global box, see distributed/DistributedEmst.cxx):
/// it must be at most the box's own, so that the scaled extent stays below 2^63. One function
/// on the host and in the kernels that code the points before the host has the box, so both
/// hold the same bits.
template <int Dim>
EMST_HD BoxFrame<Dim> frameOfBox(
  const BoundingBox& box, const PeriodicBox& periodicBox, double givenScale)
{
  BoxFrame<Dim> f{};
  f.frame = Frame{ { box.lo[0], box.lo[1], box.lo[2] }, 1.0, { 0.0, 0.0, 0.0 } };
  double extent = 0.0;
  for (int a = 0; a < Dim; ++a)
  {
    double const period = periodicBox.size[a];
    if (period > 0.0)
    {
      f.frame.lo[a] = periodicBox.origin[a];
      f.frame.period[a] = period;
      double const low = dsub(box.lo[a], f.frame.lo[a]);
      double const high = dsub(box.hi[a], f.frame.lo[a]);
      f.offsetsOverflow = f.offsetsOverflow || !(low - low == 0.0) || !(high - high == 0.0);
    }
    double const axis = period > 0.0 ? period : dsub(box.hi[a], box.lo[a]);
    extent = extent < axis ? axis : extent;
  }
  f.extentOverflows = !(extent - extent == 0.0);
  f.frame.scale = givenScale > 0.0 ? givenScale : frameScale(extent);
  float scaledExtent = 0.0f;
  for (int a = 0; a < Dim; ++a)
  {
    // Frame coordinates on a periodic axis are float(w * scale) with 0 <= w < L, so they lie in
    // [0, float(L * scale)] (rounding is monotone): the period in frame units bounds them.
    float const axisExtent = f.frame.period[a] > 0.0
      ? static_cast<float>(dmul(f.frame.period[a], f.frame.scale))
      : static_cast<float>(dmul(dsub(box.hi[a], box.lo[a]), f.frame.scale));
    f.periodInFrame[a] = f.frame.period[a] > 0.0 ? axisExtent : floatInfinity();
    scaledExtent = scaledExtent < axisExtent ? axisExtent : scaledExtent;
  }
  for (int a = Dim; a < 3; ++a)
  {
    f.periodInFrame[a] = floatInfinity();
  }
  for (int a = 0; a < Dim; ++a)
  {
    f.anyOutside = f.anyOutside ||
      (f.frame.period[a] > 0.0 &&
        (box.lo[a] < f.frame.lo[a] || dsub(box.hi[a], f.frame.lo[a]) >= f.frame.period[a]));
  }
  if (givenScale > 0.0 && extent > 0.0)
  {
    // A rank's box may be so small against the global one that its scaled extent underflows:
    // the float frame then only prunes (the exact keys decide), with the Tolerance's floor.
    scaledExtent = scaledExtent < 0x1p-60f ? 0x1p-60f : scaledExtent;
  }
  f.scaledExtent = scaledExtent;
  f.quantizer = Quantizer<Dim>{ scaledExtent > 0.0f
      ? static_cast<float>(
          static_cast<double>(1u << MortonTraits<Dim>::kBitsPerAxis) / scaledExtent)
      : 0.0f };
  return f;
}

/// Every input point's Morton code in the frame of the box found on the device (`box`, which
/// the host has not read yet), 0 for a non-finite point; pointOfPoint[i] = i. The host sorts
/// these while the box comes back: one wait for both.
template <class T, int Dim>
struct CodesOfAll
{
  InputPoints<T, Dim> input;
  const BoundingBox* box; ///< [1], the finite points' box
  PeriodicBox periodicBox;
  double givenScale;
  Index* pointOfPoint;        ///< [n]
  std::uint64_t* codeOfPoint; ///< [n]
  EMST_HD void operator()(std::size_t i) const
  {
    pointOfPoint[i] = static_cast<Index>(i);
    std::uint64_t code = 0;
    if (input.isFinite(i))
    {
      BoxFrame<Dim> const f = frameOfBox<Dim>(*box, periodicBox, givenScale);
      float c[3];
      input.shifted(i, f.frame, c);
      code = f.quantizer.code(c);
    }
    codeOfPoint[i] = code;
  }
};

/// 1 where the sorted code equals a neighbour's: only there can identical points hide.
struct SharesCode
{
  const std::uint64_t* code; ///< [v], sorted
  std::size_t count;
  EMST_HD bool operator()(std::size_t s) const
  {
    return (s > 0 && code[s] == code[s - 1]) || (s + 1 < count && code[s] == code[s + 1]);
  }
};

/// What the frame phase hands on: the frame, and the finite points in Morton order.
template <class Exec, int Dim>
struct FramedPoints
{
  explicit FramedPoints(Exec& exec)
    : pointOfSorted(exec, 0)
    , codeOfSorted(exec, 0)
    , boxOnDevice(exec, 0)
  {
  }

  std::size_t finitePoints = 0;  ///< v
  std::size_t sharedCodes = 0;   ///< sorted points whose code a neighbour shares (SharesCode)
  std::size_t wrappedPoints = 0; ///< finite points outside the periodic box
  Frame frame{};
  Quantizer<Dim> quantizer{};
  float scaledExtent = 0.0f; ///< the frame's largest extent (a period or a box extent), frame units
  float periodInFrame[3] = { 0.0f, 0.0f, 0.0f }; ///< float(L * scale) per periodic axis, else +inf
  Buffer<Index, Exec> pointOfSorted;             ///< [v] input index of each finite point
  Buffer<std::uint64_t, Exec> codeOfSorted;      ///< [v] its Morton code (sorted by sortByCode)
  /// Between frameInput and sortByCode: the box, queued, where the codes' kernel reads it, and
  /// what frames it besides (frameOfBox).
  Buffer<BoundingBox, Exec> boxOnDevice;
  typename Exec::template Later<BoundingBox> box{};
  PeriodicBox periodicBox{};
  double givenScale = 0.0;

  /// A length at least every edge's, in input units: twice the largest extent (the diagonal
  /// is at most sqrt(3) times it, a minimum image half that; a core distance is a distance
  /// between points), for the output's sort keys (OutputOrder.h, lengthKeyBelow).
  double lengthBound() const
  {
    return 2.0 * static_cast<double>(this->scaledExtent) / this->frame.scale;
  }

  /// The frame's Tolerance; needs two distinct points or a periodic axis (scaledExtent > 0).
  Tolerance tolerance() const
  {
    // A frame coordinate is within half an ulp of the largest one (2^(e-24), e = its
    // exponent) of its exact value: two points' difference within sqrt(Dim) 2^(e-23) < 2^(e-22).
    // A periodic axis adds the rounding of P and of P - d: 2^(e-20) (phases/PeriodicMetric.h).
    int const bits = this->frame.periodic() ? 20 : 22;
    return Tolerance{ std::max(std::ldexp(1.0f, std::ilogb(this->scaledExtent) - bits), 0x1p-60f) };
  }
};

/// The frame phase's start: the box of the finite points queued (fetched by sortByCode), and
/// every point's code in its frame, which sortByCode sorts before the host has the box.
template <class Exec, class T, int Dim>
FramedPoints<Exec, Dim> frameInput(Exec& exec, const InputPoints<T, Dim>& input, std::size_t n,
  const PeriodicBox& periodicBox, double givenScale = 0.0)
{
  FramedPoints<Exec, Dim> framed(exec);
  framed.periodicBox = periodicBox;
  framed.givenScale = givenScale;
  framed.boxOnDevice = Buffer<BoundingBox, Exec>(exec, 1);
  framed.box = exec.transformReduceLater(
    n, BoxOfPoint<T, Dim>{ input }, BoundingBox{}, BoxUnion{}, framed.boxOnDevice.data());
  framed.pointOfSorted = Buffer<Index, Exec>(exec, n);
  framed.codeOfSorted = Buffer<std::uint64_t, Exec>(exec, n);
  exec.forEach(n,
    CodesOfAll<T, Dim>{ input, framed.boxOnDevice.data(), periodicBox, givenScale,
      framed.pointOfSorted.data(), framed.codeOfSorted.data() });
  return framed;
}

/// The code bits the set-up's radix sort orders, the top ones (six passes instead of eight;
/// base/PairSort.h orders the runs of codes equal in them afterwards). H100, the sort phase
/// against all bits (1.13 ms at 10^7 points): 48 bits 0.96 on uniform 10^7 3D, 0.95 on cosmo;
/// 40 bits 0.85 on uniform but 1.44 on cosmo, whose clusters leave 6% of its points in runs
/// longer than kShortRun there (with 48 bits none, and 0.7% in shorter runs).
constexpr int kCodeRadixBits = 48;

/// The frame phase's end: the points sorted by code (code, input index: within equal codes
/// the input indices stay increasing), the box fetched (the sort's read-back brought it) and
/// the frame set; with non-finite points (rare), the finite ones coded and sorted again. Throws
/// InvalidInput when an extent, or a point's offset from a periodic origin, overflows double.
/// With fewer than two finite points, nothing is sorted (finitePoints says how many).
template <class Exec, class T, int Dim>
void sortByCode(Exec& exec, const InputPoints<T, Dim>& input, FramedPoints<Exec, Dim>& framed)
{
  std::size_t const n = framed.pointOfSorted.size();
  auto const sort = [&]
  {
    framed.sharedCodes = sortPairs<SharesCode>(
      exec, framed.codeOfSorted, framed.pointOfSorted, MortonCell<Dim>::kCodeBits, kCodeRadixBits);
  };
  sort();
  BoundingBox const box = exec.fetch(framed.box);
  framed.boxOnDevice.reset();
  std::size_t const v = static_cast<std::size_t>(box.count);
  framed.finitePoints = v;
  if (v < 2)
  {
    framed.pointOfSorted.reset();
    framed.codeOfSorted.reset();
    framed.sharedCodes = 0;
    return;
  }
  BoxFrame<Dim> const f = frameOfBox<Dim>(box, framed.periodicBox, framed.givenScale);
  if (f.offsetsOverflow)
  {
    throw Error(ErrorCode::InvalidInput,
      "the coordinates' offsets from the periodic box's origin overflow double precision");
  }
  if (f.extentOverflows)
  {
    throw Error(ErrorCode::InvalidInput, "the coordinate range overflows double precision");
  }
  framed.frame = f.frame;
  framed.quantizer = f.quantizer;
  framed.scaledExtent = f.scaledExtent;
  for (int a = 0; a < 3; ++a)
  {
    framed.periodInFrame[a] = f.periodInFrame[a];
  }
  if (f.anyOutside)
  {
    framed.wrappedPoints = exec.count(n, OutsideBox<T, Dim>{ input, f.frame });
  }
  if (v < n)
  {
    framed.pointOfSorted = Buffer<Index, Exec>(exec, v);
    framed.codeOfSorted = Buffer<std::uint64_t, Exec>(exec, v);
    exec.selectIndices(n, framed.pointOfSorted.data(), IsFinitePoint<T, Dim>{ input });
    exec.forEach(v,
      ComputeCodes<T, Dim>{ input, framed.pointOfSorted.data(), framed.codeOfSorted.data(),
        framed.frame, framed.quantizer });
    sort();
  }
}

} // namespace detail
} // namespace emst
