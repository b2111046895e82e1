// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Primitives shared by the host compiler (CPU backend) and nvcc (CUDA backend): exactly rounded
// float arithmetic, atomics, Morton codes, and the record types of the engine.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>

#if defined(__CUDACC__)
#define EMST_HD __host__ __device__
#define EMST_FORCEINLINE __forceinline__
#else
#define EMST_HD
#define EMST_FORCEINLINE inline __attribute__((always_inline))
#endif

namespace emst
{
namespace detail
{

using Index = std::uint32_t;
constexpr Index kNone = 0xFFFFFFFFu;        ///< "no point / no node / no component"
constexpr Index kMixed = 0xFFFFFFFFu;       ///< subtree label: points of several components
constexpr Index kLeafBit = 0x80000000u;     ///< child reference: set for a leaf, clear for a node
constexpr Index kSlotBit = 0x80000000u;     ///< parent reference: which child slot (0/1) we are
constexpr std::uint64_t kNoKey = ~std::uint64_t(0);

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

EMST_HD EMST_FORCEINLINE int clz64(std::uint64_t x)
{
#if defined(__CUDA_ARCH__)
  return __clzll(static_cast<long long>(x));
#else
  return x == 0 ? 64 : __builtin_clzll(x);
#endif
}

// ---- Atomics ----------------------------------------------------------------------------------
// The CPU backend runs the same functors under OpenMP; GCC's __atomic builtins give it the same
// semantics as CUDA's device-scope atomics. Orders are as strong as each use needs, no stronger.

/// Lowers *address to value if value is smaller. Non-negative floats order like their bit
/// patterns, so this also serves float distances stored as bits.
EMST_HD EMST_FORCEINLINE void atomicMinU32(std::uint32_t* address, std::uint32_t value)
{
#if defined(__CUDA_ARCH__)
  atomicMin(address, value);
#else
  std::uint32_t seen = __atomic_load_n(address, __ATOMIC_RELAXED);
  while (value < seen &&
    !__atomic_compare_exchange_n(address, &seen, value, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
  {
  }
#endif
}

EMST_HD EMST_FORCEINLINE void atomicMinU64(std::uint64_t* address, std::uint64_t value)
{
#if defined(__CUDA_ARCH__)
  atomicMin(reinterpret_cast<unsigned long long*>(address), static_cast<unsigned long long>(value));
#else
  std::uint64_t seen = __atomic_load_n(address, __ATOMIC_RELAXED);
  while (value < seen &&
    !__atomic_compare_exchange_n(address, &seen, value, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
  {
  }
#endif
}

/// Lowers *address to value if value is smaller; returns the value seen before.
EMST_HD EMST_FORCEINLINE std::uint64_t atomicMinU64Old(std::uint64_t* address, std::uint64_t value)
{
#if defined(__CUDA_ARCH__)
  return atomicMin(
    reinterpret_cast<unsigned long long*>(address), static_cast<unsigned long long>(value));
#else
  std::uint64_t seen = __atomic_load_n(address, __ATOMIC_RELAXED);
  while (value < seen &&
    !__atomic_compare_exchange_n(address, &seen, value, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
  {
  }
  return seen;
#endif
}

/// Returns the old value. Used by the bottom-up climbs: the writer of a child slot releases its
/// write through this increment, the second arriver acquires the sibling's write through it.
/// One acquire-release atomic at device scope, not two full fences: the climb from a leaf to the
/// root is a chain of these, so their latency is the climb's.
EMST_HD EMST_FORCEINLINE std::uint32_t atomicIncrementAcqRel(std::uint32_t* address)
{
#if defined(__CUDA_ARCH__)
  std::uint32_t old;
  asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;"
               : "=r"(old)
               : "l"(address)
               : "memory");
  return old;
#else
  return __atomic_fetch_add(address, 1u, __ATOMIC_ACQ_REL);
#endif
}

/// Takes the next slot of a counter (returns the old value). On the device the lanes of a warp
/// that call it together take consecutive slots with one atomic: a counter that millions of
/// threads bump (edges, new component labels) is not serialised lane by lane.
EMST_HD EMST_FORCEINLINE std::uint32_t takeSlot(std::uint32_t* counter)
{
#if defined(__CUDA_ARCH__)
  unsigned const mask = __activemask();
  unsigned const lane = threadIdx.x & 31u;
  int const leader = __ffs(mask) - 1;
  std::uint32_t base = 0;
  if (static_cast<int>(lane) == leader)
  {
    base = atomicAdd(counter, static_cast<std::uint32_t>(__popc(mask)));
  }
  base = __shfl_sync(mask, base, leader);
  return base + static_cast<std::uint32_t>(__popc(mask & ((1u << lane) - 1u)));
#else
  return __atomic_fetch_add(counter, 1u, __ATOMIC_RELAXED);
#endif
}

/// Compare-and-swap; returns the value seen (== expected when the swap happened).
EMST_HD EMST_FORCEINLINE std::uint32_t atomicCasU32(
  std::uint32_t* address, std::uint32_t expected, std::uint32_t desired)
{
#if defined(__CUDA_ARCH__)
  return atomicCAS(address, expected, desired);
#else
  __atomic_compare_exchange_n(
    address, &expected, desired, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return expected;
#endif
}

/// counters[key] += 1. On the device the lanes of a warp with the same key add together with
/// one atomic: a histogram whose keys are mostly equal (one giant cluster) is not serialised
/// lane by lane on one address.
EMST_HD EMST_FORCEINLINE void countKey(std::uint32_t* counters, std::uint32_t key)
{
#if defined(__CUDA_ARCH__)
  unsigned const same = __match_any_sync(__activemask(), key);
  if (static_cast<int>(threadIdx.x & 31u) == __ffs(same) - 1)
  {
    atomicAdd(counters + key, static_cast<std::uint32_t>(__popc(same)));
  }
#else
  __atomic_fetch_add(counters + key, 1u, __ATOMIC_RELAXED);
#endif
}

/// Loads that must see other threads' writes made before a synchronising atomic (the climbs,
/// path halving): bypass the non-coherent L1 on the device.
template <class T>
EMST_HD EMST_FORCEINLINE T loadShared(const T* address)
{
#if defined(__CUDA_ARCH__)
  return *static_cast<const volatile T*>(address);
#else
  T value;
  __atomic_load(address, &value, __ATOMIC_RELAXED);
  return value;
#endif
}
template <class T>
EMST_HD EMST_FORCEINLINE void storeShared(T* address, T value)
{
#if defined(__CUDA_ARCH__)
  *static_cast<volatile T*>(address) = value;
#else
  __atomic_store(address, &value, __ATOMIC_RELAXED);
#endif
}

// ---- Morton codes -----------------------------------------------------------------------------
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

  /// Lattice range [lo, hiExclusive) of the cell on each axis.
  EMST_HD static void decode(std::uint64_t cell, std::uint64_t* lo, std::uint64_t* hiExclusive)
  {
    int const shift = ctz64(cell);
    int const prefixBits = kCodeBits - shift;
    std::uint64_t const code = (cell >> (shift + 1)) << shift;
    for (int a = 0; a < Dim; ++a)
    {
      std::uint64_t const q = Dim == 3 ? compactBits3(code >> (2 - a)) : compactBits2(code >> (1 - a));
      int const fixedBits = (prefixBits + Dim - 1 - a) / Dim;
      lo[a] = q;
      hiExclusive[a] = q + (std::uint64_t(1) << (kBits - fixedBits));
    }
  }
};

/// Number of leading cell levels two codes share (0 .. kBitsPerAxis).
template <int Dim>
EMST_HD EMST_FORCEINLINE int commonLevels(std::uint64_t a, std::uint64_t b)
{
  constexpr int kBits = MortonTraits<Dim>::kBitsPerAxis;
  constexpr int kUnused = 64 - Dim * kBits;
  std::uint64_t const x = a ^ b;
  if (x == 0)
  {
    return kBits;
  }
  return (clz64(x) - kUnused) / Dim;
}

// ---- Records ----------------------------------------------------------------------------------

/// One distinct point in Morton order: shifted float coordinates and its component label, in one
/// 16-byte record so that the search reads a candidate with a single 128-bit load.
struct alignas(16) PointRecord
{
  float x[3];            ///< coordinates minus the bounding box's lower corner (z = 0 in 2D)
  std::uint32_t comp;    ///< component label, dense in [0, components)
};
static_assert(sizeof(PointRecord) == 16, "PointRecord must be one 128-bit load");

/// Internal node of the binary radix tree over the leaf cells, laid out for the search: both
/// children's boxes and component labels travel together, so visiting a node is one cache line
/// (64 bytes in 3D, 48 in 2D). child[s] has kLeafBit set when it refers to a leaf cell.
/// label[s] is the component of every point under child s, or kMixed.
template <int Dim>
struct alignas(16) TreeNode
{
  float lo[2][Dim];
  float hi[2][Dim];
  std::uint32_t child[2];
  std::uint32_t label[2];
};
static_assert(sizeof(TreeNode<3>) == 64, "3D node: one cache line");
static_assert(sizeof(TreeNode<2>) == 48, "2D node: three 128-bit loads");

/// Axis-aligned box in double precision (bounding box of the input).
struct BoundingBox
{
  double lo[3];
  double hi[3];
  std::uint64_t count;  ///< finite points inside
};

/// Squared distance between two records, ((dx*dx + dy*dy) + dz*dz), each operation rounded.
template <int Dim>
EMST_HD EMST_FORCEINLINE float distance2(const float* a, const float* b)
{
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

/// Squared distance from q to the box [lo, hi]. Computed with the same rounded operations in the
/// same order as distance2, so it never exceeds distance2(q, p) for a point p inside the box
/// (rounding is monotone): pruning a box whose distance exceeds the current best is exact.
template <int Dim>
EMST_HD EMST_FORCEINLINE float boxDistance2(const float* q, const float* lo, const float* hi)
{
  float s = 0.0f;
  for (int a = 0; a < Dim; ++a)
  {
    float d = 0.0f;
    if (q[a] < lo[a])
    {
      d = fsub(lo[a], q[a]);
    }
    else if (q[a] > hi[a])
    {
      d = fsub(q[a], hi[a]);
    }
    float const dd = fmul(d, d);
    s = (a == 0) ? dd : fadd(s, dd);
  }
  return s;
}

} // namespace detail
} // namespace emst
