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

} // namespace detail
} // namespace emst
