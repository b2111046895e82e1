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

struct Frame
{
  double lo[3];
  double scale;
};

/// The caller's points, in their own type and layout. `data` is in backend memory.
template <class T, int Dim>
struct InputPoints
{
  const T* data;
  std::size_t stride; ///< scalars between consecutive points

  EMST_HD double coordinate(std::size_t i, int axis) const
  {
    return static_cast<double>(data[i * stride + axis]);
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
  /// Coordinates in the engine's frame, rounded to float: one formula for the codes, the
  /// records and the duplicate test, on both backends.
  EMST_HD void shifted(std::size_t i, const Frame& frame, float* out) const
  {
    for (int a = 0; a < Dim; ++a)
    {
      out[a] = static_cast<float>((coordinate(i, a) - frame.lo[a]) * frame.scale);
    }
    for (int a = Dim; a < 3; ++a)
    {
      out[a] = 0.0f;
    }
  }
  /// The point's coordinates in double (unused axes 0).
  EMST_HD void load(std::size_t i, double* out) const
  {
    for (int a = 0; a < 3; ++a)
    {
      out[a] = a < Dim ? coordinate(i, a) : 0.0;
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

/// What the frame phase hands on: the frame, and the finite points in Morton order.
template <class Exec, int Dim>
struct FramedPoints
{
  explicit FramedPoints(Exec& exec)
    : pointOfSorted(exec, 0)
    , codeOfSorted(exec, 0)
  {
  }

  std::size_t finitePoints = 0; ///< v
  Frame frame{};
  Quantizer<Dim> quantizer{};
  float scaledExtent = 0.0f;                ///< the box's largest extent, in frame units
  Buffer<Index, Exec> pointOfSorted;        ///< [v] input index of each finite point
  Buffer<std::uint64_t, Exec> codeOfSorted; ///< [v] its Morton code (sorted by sortByCode)

  /// The frame's Tolerance; needs two distinct points (scaledExtent > 0).
  Tolerance tolerance() const
  {
    // A frame coordinate is within half an ulp of the largest one (2^(e-24), e = its
    // exponent) of its exact value: two points' difference within sqrt(Dim) 2^(e-23) < 2^(e-22).
    return Tolerance{ std::max(std::ldexp(1.0f, std::ilogb(this->scaledExtent) - 22), 0x1p-60f) };
  }
};

/// The scale of the exact key for a box whose largest extent is `extent` (finite, >= 0): the
/// power of two that brings it into [2^62, 2^63), capped for extents below 2^-900 (double input
/// only), whose scale would overflow; 1 for a single position.
inline double frameScale(double extent)
{
  return extent > 0.0 ? std::ldexp(1.0, std::min(kFrameExponent - std::ilogb(extent), 960)) : 1.0;
}

/// The box of the finite points (and how many there are), then, with two or more, their input
/// indices and the frame and lattice of the box. Throws InvalidInput when the box's extent
/// overflows double precision. `givenScale` > 0 replaces the box's own scale (a distributed run
/// keys every rank's points with the scale of the global box, see distributed/DistributedEmst.cxx):
/// it must be at most the box's own, so that the scaled extent stays below 2^63.
template <class Exec, class T, int Dim>
FramedPoints<Exec, Dim> frameInput(
  Exec& exec, const InputPoints<T, Dim>& input, std::size_t n, double givenScale = 0.0)
{
  auto policy = exec.policy();
  FramedPoints<Exec, Dim> framed(exec);
  BoundingBox empty{};
  BoundingBox const box = n == 0 ? empty
                                 : thrust::transform_reduce(policy, Counting(0), Counting(n),
                                     BoxOfPoint<T, Dim>{ input }, empty, BoxUnion{});
  std::size_t const v = static_cast<std::size_t>(box.count);
  framed.finitePoints = v;
  if (v < 2)
  {
    return framed;
  }
  framed.pointOfSorted = Buffer<Index, Exec>(exec, v);
  if (v == n)
  {
    thrust::sequence(policy, framed.pointOfSorted.data(), framed.pointOfSorted.end());
  }
  else
  {
    thrust::copy_if(policy, Counting(0), Counting(n), framed.pointOfSorted.data(),
      IsFinitePoint<T, Dim>{ input });
  }
  Frame frame{ { box.lo[0], box.lo[1], box.lo[2] }, 1.0 };
  double extent = 0.0;
  for (int a = 0; a < Dim; ++a)
  {
    extent = std::max(extent, box.hi[a] - box.lo[a]);
  }
  if (!std::isfinite(extent))
  {
    throw Error(ErrorCode::InvalidInput, "the coordinate range overflows double precision");
  }
  frame.scale = givenScale > 0.0 ? givenScale : frameScale(extent);
  float scaledExtent = 0.0f;
  for (int a = 0; a < Dim; ++a)
  {
    scaledExtent =
      std::max(scaledExtent, static_cast<float>((box.hi[a] - box.lo[a]) * frame.scale));
  }
  if (givenScale > 0.0 && extent > 0.0)
  {
    // A rank's box may be so small against the global one that its scaled extent underflows:
    // the float frame then only prunes (the exact keys decide), with the Tolerance's floor.
    scaledExtent = std::max(scaledExtent, 0x1p-60f);
  }
  framed.frame = frame;
  framed.scaledExtent = scaledExtent;
  framed.quantizer = Quantizer<Dim>{ scaledExtent > 0.0f
      ? static_cast<float>(
          static_cast<double>(1u << MortonTraits<Dim>::kBitsPerAxis) / scaledExtent)
      : 0.0f };
  return framed;
}

/// The Morton codes of the finite points, and the points sorted by them.
template <class Exec, class T, int Dim>
void sortByCode(Exec& exec, const InputPoints<T, Dim>& input, FramedPoints<Exec, Dim>& framed)
{
  std::size_t const v = framed.finitePoints;
  framed.codeOfSorted = Buffer<std::uint64_t, Exec>(exec, v);
  exec.forEach(v,
    ComputeCodes<T, Dim>{ input, framed.pointOfSorted.data(), framed.codeOfSorted.data(),
      framed.frame, framed.quantizer });
  // Stable: within equal codes the input indices stay increasing.
  thrust::stable_sort_by_key(exec.policy(), framed.codeOfSorted.data(), framed.codeOfSorted.end(),
    framed.pointOfSorted.data());
}

} // namespace detail
} // namespace emst
