// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Explicitly rounded arithmetic and bit views of floats, the same on both backends; the exact
// key of a pair of points and the tolerance that ties the float32 search to it.
#pragma once

#include "base/Index.h"

#include <cmath>
#include <cstring>

namespace emst
{
namespace detail
{

// ---- Exactly rounded float arithmetic ---------------------------------------------------------
// nvcc contracts a*b+c into an FMA by default and g++ does not (we also pass -ffp-contract=off):
// every distance goes through these so that both backends compare the very same numbers.
EMST_HD EMST_FORCEINLINE float fmul(float a, float b)
{
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
EMST_HD EMST_FORCEINLINE float fadd(float a, float b)
{
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
EMST_HD EMST_FORCEINLINE float fsub(float a, float b)
{
#if defined(__CUDA_ARCH__)
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}
EMST_HD EMST_FORCEINLINE double dmul(double a, double b)
{
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
EMST_HD EMST_FORCEINLINE double dadd(double a, double b)
{
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
EMST_HD EMST_FORCEINLINE double dsub(double a, double b)
{
#if defined(__CUDA_ARCH__)
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}

/// |a| and the smaller of a and b (neither NaN): exact, so any instruction gives the same bits;
/// on the device the intrinsics fold into their neighbours (an operand modifier, one FMNMX).
EMST_HD EMST_FORCEINLINE float fabsExact(float a)
{
#if defined(__CUDA_ARCH__)
  return fabsf(a);
#else
  return std::fabs(a);
#endif
}
EMST_HD EMST_FORCEINLINE float fminExact(float a, float b)
{
#if defined(__CUDA_ARCH__)
  return fminf(a, b);
#else
  return b < a ? b : a;
#endif
}

/// The larger of two floats (never NaN here): one spelling on both backends.
EMST_HD EMST_FORCEINLINE float fmaxOf(float a, float b)
{
  return a > b ? a : b;
}

/// How far x lies outside [lo, hi] (lo <= hi, none NaN): lo - x below it, x - hi above it, else
/// 0, each difference rounded once. The device computes both differences and takes the larger
/// (the positive one where either is; inside both are at most 0) without a branch: a node visit
/// of the searches tests six such gaps, and their branches cost the GPU's walks 10-12% (ncu);
/// a CPU predicts the branches and is faster with them. The same value either way.
EMST_HD EMST_FORCEINLINE float gapToInterval(float x, float lo, float hi)
{
#if defined(__CUDA_ARCH__)
  return fmaxOf(fmaxOf(__fsub_rn(lo, x), __fsub_rn(x, hi)), 0.0f); // fmaxf: 1-2% slower walks
#else
  return x < lo ? lo - x : (x > hi ? x - hi : 0.0f);
#endif
}

EMST_HD EMST_FORCEINLINE std::uint32_t floatBits(float f)
{
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
#endif
}
EMST_HD EMST_FORCEINLINE float bitsFloat(std::uint32_t u)
{
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
#endif
}
EMST_HD EMST_FORCEINLINE std::uint64_t doubleBits(double d)
{
#if defined(__CUDA_ARCH__)
  return static_cast<std::uint64_t>(__double_as_longlong(d));
#else
  std::uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
#endif
}

EMST_HD EMST_FORCEINLINE double bitsDouble(std::uint64_t u)
{
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(u));
#else
  double d;
  std::memcpy(&d, &u, sizeof d);
  return d;
#endif
}

/// 2^e as a double, for -1022 <= e <= 1023 (a normal number: built from its bits, exact).
EMST_HD EMST_FORCEINLINE double powerOfTwo(int e)
{
  return bitsDouble(static_cast<std::uint64_t>(e + 1023) << 52);
}

/// x * 2^e for |e| <= 2044, in two multiplications by 2^(e/2) and 2^(e - e/2) (no library ldexp:
/// the same bits on both backends). Exact where x * 2^e is a normal double; where it is not (a
/// subnormal, 0 or +-inf), rounded once when the first product is normal, as it is below for the
/// largest coordinate difference and for the length.
EMST_HD EMST_FORCEINLINE double scaleByPowerOfTwo(double x, int e)
{
  int const first = e / 2;
  return dmul(dmul(x, powerOfTwo(first)), powerOfTwo(e - first));
}

/// floor(log2(x)) for a finite x > 0, subnormals included (ilogb without the library).
EMST_HD EMST_FORCEINLINE int binaryExponent(double x)
{
  int const biased = static_cast<int>((doubleBits(x) >> 52) & 0x7FF);
  if (biased == 0) // subnormal: 2^64 x is normal
  {
    return static_cast<int>((doubleBits(dmul(x, powerOfTwo(64))) >> 52) & 0x7FF) - 1023 - 64;
  }
  return biased - 1023;
}

/// The Euclidean length of the difference vector d[0..Dim-1] (finite doubles), scaled before
/// squaring as hypot does: with e = floor(log2(max |d|)), the length is
///   2^e * sqrt((u0*u0 + u1*u1) + u2*u2),  u = d * 2^-e,
/// every operation rounded to double (no FMA). The largest |u| lies in [1, 2), so no square
/// overflows or underflows to zero, for any finite d; the result rounds once more only where the
/// length itself is subnormal, and is +inf where it exceeds the largest double. Wherever the
/// unscaled formula sqrt((d0*d0 + d1*d1) + d2*d2) neither overflows nor underflows, the scaling
/// is exact and both give the same bits.
template <int Dim>
EMST_HD EMST_FORCEINLINE double scaledLength(const double* d)
{
  double largest = 0.0;
  for (int axis = 0; axis < Dim; ++axis)
  {
    double const a = d[axis] < 0.0 ? -d[axis] : d[axis];
    largest = a > largest ? a : largest;
  }
  if (largest == 0.0)
  {
    return 0.0;
  }
  int const e = binaryExponent(largest);
  double s = 0.0;
  for (int axis = 0; axis < Dim; ++axis)
  {
    double const u = scaleByPowerOfTwo(d[axis], -e);
    s = axis == 0 ? dmul(u, u) : dadd(s, dmul(u, u));
  }
  return scaleByPowerOfTwo(sqrt(s), e);
}

EMST_HD EMST_FORCEINLINE float floatInfinity()
{
  return bitsFloat(0x7F800000u);
}

/// The largest finite float: above every squared distance of the frame.
EMST_HD EMST_FORCEINLINE float floatLargest()
{
  return bitsFloat(0x7F7FFFFFu);
}

/// The smallest float >= x, for 0 <= x (+inf for x above the largest float).
EMST_HD EMST_FORCEINLINE float floatAtLeast(double x)
{
  float f = static_cast<float>(x); // round to nearest on both backends
  if (static_cast<double>(f) < x)
  {
    f = bitsFloat(floatBits(f) + 1u);
  }
  return f;
}

/// The next float below x >= 0 (a negative number for x = 0): for a bound stored as
/// floatAtLeast(e), e > floatBelow(bound).
EMST_HD EMST_FORCEINLINE float floatBelow(float x)
{
  return x > 0.0f ? bitsFloat(floatBits(x) - 1u) : -1.0f;
}

/// The next float above x >= 0 (+inf stays +inf).
EMST_HD EMST_FORCEINLINE float floatAbove(float x)
{
  return x < floatInfinity() ? bitsFloat(floatBits(x) + 1u) : x;
}

/// The key that orders the edges (with the two input indices after it): the squared distance of
/// the input coordinates, in double, in the frame's scale:
///   sum over the axes, in order, of ((a - b) * scale)^2, every operation rounded to double.
/// The scale is a power of two, so this is the squared distance of the input points to double
/// precision (1e-15 relative), with no overflow or underflow for any finite box; the same bits
/// on both backends (no contraction).
template <int Dim>
EMST_HD EMST_FORCEINLINE double exactKey(const double* a, const double* b, double scale)
{
  double s = 0.0;
  for (int axis = 0; axis < Dim; ++axis)
  {
    double const d = dmul(dsub(a[axis], b[axis]), scale);
    s = axis == 0 ? dmul(d, d) : dadd(s, dmul(d, d));
  }
  return s;
}

/// How the float32 frame distances that the search prunes with relate to the exact keys.
/// A float coordinate of the frame is within half an ulp of the largest one, 2^(e-24) (M: the
/// scaled extent, e = ilogb(M)), of the exact shifted coordinate, so the float coordinate
/// difference c of two points is within sqrt(Dim) 2^(e-23) < 2^(e-22) = eta of the exact
/// difference t (|t|^2 = key to 2^-50), and the rounded float squared distance d2 (and a box
/// distance, which never exceeds it) is within a factor (1 +- 8 * 2^-24) of |c|^2 (underflow only
/// lowers it). Hence
///   ((sqrt(d2) (1 - 2^-20) - eta)+)^2 (1 - 2^-40) <= key <= (sqrt(d2) (1 + 2^-20) + eta)^2 (1 +
///   2^-40),
/// and every bound below follows from these two with generous margins: 2^-16, far above the
/// rounding of the few float operations (each 2^-24, sqrtf correctly rounded) of a window, so the
/// search's hot path needs no double arithmetic.
struct Tolerance
{
  float eta; ///< absolute slack in frame units: 2^(ilogb(M) - 22)

  /// For a key known to lie within `slack` (frame units, on the root) of root^2: `limit`, at least
  /// the float distance (point or box) of anything whose key can be <= that key (farther is
  /// pruned), and `sure`, a float distance below which a key is surely smaller (0 for none).
  EMST_HD EMST_FORCEINLINE void window(float root, float slack, float& limit, float& sure) const
  {
    float const hi = fadd(fmul(root, 1.0f + 0x1p-16f), slack);
    limit = fmul(fmul(hi, hi), 1.0f + 0x1p-16f);
    float const lo = fsub(fmul(root, 1.0f - 0x1p-16f), slack);
    sure = lo > 0.0f ? fmul(fmul(lo, lo), 1.0f - 0x1p-16f) : 0.0f;
  }
  /// The window of an exact key (+inf: no bound, everything is within and surely smaller).
  EMST_HD EMST_FORCEINLINE void windowOfKey(double key, float& limit, float& sure) const
  {
    if (!(key < floatLargest()))
    {
      limit = floatLargest();
      sure = floatLargest();
      return;
    }
    this->window(sqrtf(static_cast<float>(key)), eta, limit, sure);
  }
  /// The window of the unknown key of a pair at float distance d2 (its key lies within eta of
  /// sqrt(d2)'s bounds above, so twice that, plus margin, around the keys it may be compared with).
  EMST_HD EMST_FORCEINLINE void windowOfDistance(float d2, float& limit, float& sure) const
  {
    this->window(sqrtf(d2), fmul(3.0f, eta), limit, sure);
  }
  /// An upper bound (a float) of the key of two points whose float squared distance is d2: the
  /// upper bound above, which is the limit of a window of slack eta around sqrt(d2).
  EMST_HD EMST_FORCEINLINE float keyAtMost(float d2) const
  {
    float limit, sure;
    this->window(sqrtf(d2), eta, limit, sure);
    return limit;
  }
  /// A lower bound (a float) of the key of two points whose float squared distance is at least
  /// d2: the sure distance of the same window (0 when the slack covers the whole root).
  EMST_HD EMST_FORCEINLINE float keyAtLeast(float d2) const
  {
    float limit, sure;
    this->window(sqrtf(d2), eta, limit, sure);
    return sure;
  }
};
} // namespace detail
} // namespace emst
