// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Morton codes: bit interleaving, the cell of a code prefix; and the bit counts the engine needs
// (leading zeros of codes, population counts of the leaf words).
#pragma once

#include "base/Index.h"

namespace emst
{
namespace detail
{

EMST_HD EMST_FORCEINLINE int clz64(std::uint64_t x)
{
#if defined(__CUDA_ARCH__)
  return __clzll(static_cast<long long>(x));
#else
  return x == 0 ? 64 : __builtin_clzll(x);
#endif
}

EMST_HD EMST_FORCEINLINE int popcount32(std::uint32_t x)
{
#if defined(__CUDA_ARCH__)
  return __popc(x);
#else
  return __builtin_popcount(x);
#endif
}

// 3D: 21 bits per axis (63-bit codes); 2D: 31 bits per axis (62-bit codes). Cell "levels" count
// from the bounding cube (level 0) down to single lattice cells (level kBitsPerAxis).
template <int Dim>
struct MortonTraits;
template <>
struct MortonTraits<3>
{
  static constexpr int kBitsPerAxis = 21;
};
template <>
struct MortonTraits<2>
{
  static constexpr int kBitsPerAxis = 31;
};

/// Spreads the low 21 bits of x so that two zero bits separate consecutive bits.
EMST_HD EMST_FORCEINLINE std::uint64_t spreadBits3(std::uint64_t x)
{
  x &= 0x1FFFFFull;
  x = (x | (x << 32)) & 0x001F00000000FFFFull;
  x = (x | (x << 16)) & 0x001F0000FF0000FFull;
  x = (x | (x << 8)) & 0x100F00F00F00F00Full;
  x = (x | (x << 4)) & 0x10C30C30C30C30C3ull;
  x = (x | (x << 2)) & 0x1249249249249249ull;
  return x;
}

/// Spreads the low 31 bits of x so that one zero bit separates consecutive bits.
EMST_HD EMST_FORCEINLINE std::uint64_t spreadBits2(std::uint64_t x)
{
  x &= 0x7FFFFFFFull;
  x = (x | (x << 16)) & 0x0000FFFF0000FFFFull;
  x = (x | (x << 8)) & 0x00FF00FF00FF00FFull;
  x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0Full;
  x = (x | (x << 2)) & 0x3333333333333333ull;
  x = (x | (x << 1)) & 0x5555555555555555ull;
  return x;
}

/// Inverse of spreadBits3: gathers every third bit (from bit 0) into the low 21 bits.
EMST_HD EMST_FORCEINLINE std::uint64_t compactBits3(std::uint64_t x)
{
  x &= 0x1249249249249249ull;
  x = (x ^ (x >> 2)) & 0x10C30C30C30C30C3ull;
  x = (x ^ (x >> 4)) & 0x100F00F00F00F00Full;
  x = (x ^ (x >> 8)) & 0x001F0000FF0000FFull;
  x = (x ^ (x >> 16)) & 0x001F00000000FFFFull;
  x = (x ^ (x >> 32)) & 0x00000000001FFFFFull;
  return x;
}

/// Inverse of spreadBits2: gathers every second bit (from bit 0) into the low 31 bits.
EMST_HD EMST_FORCEINLINE std::uint64_t compactBits2(std::uint64_t x)
{
  x &= 0x5555555555555555ull;
  x = (x ^ (x >> 1)) & 0x3333333333333333ull;
  x = (x ^ (x >> 2)) & 0x0F0F0F0F0F0F0F0Full;
  x = (x ^ (x >> 4)) & 0x00FF00FF00FF00FFull;
  x = (x ^ (x >> 8)) & 0x0000FFFF0000FFFFull;
  x = (x ^ (x >> 16)) & 0x00000000FFFFFFFFull;
  return x;
}

EMST_HD EMST_FORCEINLINE int ctz64(std::uint64_t x)
{
#if defined(__CUDA_ARCH__)
  return __ffsll(static_cast<long long>(x)) - 1;
#else
  return __builtin_ctzll(x);
#endif
}

/// The Morton cell of a radix-tree node: the codes that share a prefix. Encoded in one word as
/// ((prefix << 1) | 1) << (codeBits - prefixBits): the marker bit after the prefix gives its
/// length back (prefixBits < codeBits since the node holds two distinct keys).
template <int Dim>
struct MortonCell
{
  static constexpr int kBits = MortonTraits<Dim>::kBitsPerAxis;
  static constexpr int kCodeBits = Dim * kBits;

  EMST_HD static std::uint64_t encode(std::uint64_t code, int prefixBits)
  {
    int const shift = kCodeBits - prefixBits;
    return (((code >> shift) << 1) | 1u) << shift;
  }

  /// Of a cell's prefix bits, how many fall on `axis` (the code interleaves the axes, axis 0
  /// first): the cell's side on that axis is 2^(kBits - that many) lattice units.
  EMST_HD static int prefixBitsOnAxis(int prefixBits, int axis)
  {
    return (prefixBits + Dim - 1 - axis) / Dim;
  }

  /// Lattice range [lo, hiExclusive) of the cell on each axis.
  EMST_HD static void decode(std::uint64_t cell, std::uint64_t* lo, std::uint64_t* hiExclusive)
  {
    int const shift = ctz64(cell);
    int const prefixBits = kCodeBits - shift;
    // The whole cube (no prefix: the marker is the word's top bit in 3D) has no code bits.
    std::uint64_t const code = shift + 1 < 64 ? (cell >> (shift + 1)) << shift : 0u;
    for (int a = 0; a < Dim; ++a)
    {
      std::uint64_t const q =
        Dim == 3 ? compactBits3(code >> (2 - a)) : compactBits2(code >> (1 - a));
      int const fixedBits = prefixBitsOnAxis(prefixBits, a);
      lo[a] = q;
      hiExclusive[a] = q + (std::uint64_t(1) << (kBits - fixedBits));
    }
  }
};

/// Number of leading code bits two codes share (0 .. MortonCell<Dim>::kCodeBits): the finest
/// Morton cell (a halving along one axis per bit) that holds both has that many prefix bits.
template <int Dim>
EMST_HD EMST_FORCEINLINE int commonBits(std::uint64_t a, std::uint64_t b)
{
  constexpr int kCodeBits = Dim * MortonTraits<Dim>::kBitsPerAxis;
  std::uint64_t const x = a ^ b;
  return x == 0 ? kCodeBits : clz64(x) - (64 - kCodeBits);
}

} // namespace detail
} // namespace emst
