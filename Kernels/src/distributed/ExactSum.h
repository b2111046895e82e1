// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The exact sum of non-negative doubles, over ranks: each rank adds its values into a fixed-point
// accumulator that spans the whole double range (a "long accumulator", Kulisch), the ranks' limbs
// are added by one all-reduce, and the total is rounded once, to nearest even. The result does not
// depend on the order of the values or on how they are split over the ranks.
#pragma once

#include "emst/Distributed.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace emst
{
namespace detail
{

class ExactSum
{
public:
  /// Limb k holds 32 bits of weight 2^(32k - 1074); 2^-1074 is the smallest positive double and
  /// 69 limbs reach past 2^1024. Limbs are 64-bit so that carries can wait: at most 2^31 values
  /// (or ranks) are added between normalisations.
  static constexpr int kLimbs = 69;

  ExactSum() { std::memset(this->Limb, 0, sizeof this->Limb); }

  /// Adds x (finite, >= 0; anything else is ignored: lengths are never negative or infinite).
  void add(double x)
  {
    if (!(x > 0.0) || !std::isfinite(x))
    {
      return;
    }
    int exponent = 0;
    double const mantissa = std::frexp(x, &exponent); // x = mantissa * 2^exponent, [0.5, 1)
    // x = m * 2^(exponent - 53) with m < 2^53 an integer (exact: subnormals have fewer bits).
    std::uint64_t m = static_cast<std::uint64_t>(std::ldexp(mantissa, 53));
    int bit = exponent - 53 + 1074; // position of m's lowest bit above 2^-1074
    if (bit < 0)
    {
      m >>= -bit; // only zeros are lost: subnormal mantissas are multiples of 2^-1074
      bit = 0;
    }
    int const limb = bit / 32;
    int const shift = bit % 32;
    // m << shift spans at most three 32-bit limbs (53 + 31 bits).
    unsigned __int128 const wide = static_cast<unsigned __int128>(m) << shift;
    this->Limb[limb] += static_cast<std::uint64_t>(wide & 0xFFFFFFFFu);
    this->Limb[limb + 1] += static_cast<std::uint64_t>((wide >> 32) & 0xFFFFFFFFu);
    this->Limb[limb + 2] += static_cast<std::uint64_t>(wide >> 64);
    if (++this->Pending == (1u << 30))
    {
      this->normalize();
    }
  }

  /// The sum over all ranks, correctly rounded (collective).
  double total(Communicator& comm)
  {
    this->normalize();
    comm.allReduce(this->Limb, kLimbs, Communicator::Op::Sum);
    this->normalize();
    return this->rounded();
  }

private:
  void normalize()
  {
    std::uint64_t spill = 0; // the bits above 32 of the previous limb
    for (int k = 0; k < kLimbs; ++k)
    {
      std::uint64_t const v = this->Limb[k] + spill;
      this->Limb[k] = v & 0xFFFFFFFFu;
      spill = v >> 32;
    }
    this->Pending = 0;
  }

  /// The normalised value rounded to the nearest double, ties to even.
  double rounded() const
  {
    int top = kLimbs - 1;
    while (top >= 0 && this->Limb[top] == 0)
    {
      --top;
    }
    if (top < 0)
    {
      return 0.0;
    }
    // The top three limbs as a 96-bit integer, and whether anything below them is non-zero.
    unsigned __int128 head = 0;
    int const low = top >= 2 ? top - 2 : 0;
    for (int k = top; k >= low; --k)
    {
      head = (head << 32) | this->Limb[k];
    }
    bool sticky = false;
    for (int k = low - 1; k >= 0; --k)
    {
      sticky = sticky || this->Limb[k] != 0;
    }
    int bits = 0;
    for (unsigned __int128 h = head; h != 0; h >>= 1)
    {
      ++bits;
    }
    int exponent = 32 * low - 1074; // weight of head's lowest bit
    // Keep 53 significant bits (fewer for a subnormal result), round the rest to nearest even.
    int drop = bits > 53 ? bits - 53 : 0;
    if (exponent + drop < -1074)
    {
      drop = -1074 - exponent;
    }
    if (drop > 0)
    {
      unsigned __int128 const mask = (static_cast<unsigned __int128>(1) << drop) - 1;
      unsigned __int128 const rest = head & mask;
      unsigned __int128 const half = static_cast<unsigned __int128>(1) << (drop - 1);
      head >>= drop;
      exponent += drop;
      if (rest > half || (rest == half && (sticky || (head & 1) != 0)))
      {
        ++head; // may round up to 2^53: still exact in a double
      }
    }
    return std::ldexp(static_cast<double>(static_cast<std::uint64_t>(head)), exponent);
  }

  std::uint64_t Limb[kLimbs];
  std::uint32_t Pending = 0;
};

} // namespace detail
} // namespace emst
