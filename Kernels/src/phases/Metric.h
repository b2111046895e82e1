// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The metric of the search: float32 squared distances of the frame, the lower bound of a box.
#pragma once

#include "base/Arithmetic.h"

namespace emst
{
namespace detail
{

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
