// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// What every engine file needs, on both compilers: the host/device markers and the index type.
#pragma once

#include <cstdint>

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
constexpr Index kNone = 0xFFFFFFFFu; ///< "no point / no node / no component"

/// The same index, which the device compiler cannot see through: addresses computed from it
/// on a rare path of a loop get no induction pointer of their own, stepped every iteration (the
/// searches' leaf loop kept two, 4 of its 9 instructions a point). Nothing on the host.
EMST_HD EMST_FORCEINLINE Index opaqueIndex(Index k)
{
#if defined(__CUDA_ARCH__)
  asm volatile("" : "+r"(k));
#endif
  return k;
}

} // namespace detail
} // namespace emst
