// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The GPU's memory plan (backends/Layouts.h: plain C++, checked here on any machine): the fast
// layout whenever it fits, the lean one only when the fast one does not, a refusal when neither
// does, and the knob that forces a layout. (That a run keeps within the plan's figures is
// checked on the GPU: FallbackTests.cxx.)
#include "backends/Layouts.h"

#include <gtest/gtest.h>

#include <cstddef>

using emst::detail::DevicePlan;
using emst::detail::gpuBytesPerPoint;
using emst::detail::gpuLeaves;
using emst::detail::kGpuFixedBytes;
using emst::detail::kGpuLeanLeaves;
using emst::detail::planDevice;

namespace
{

/// What a run of n points of dimension dim in the given layout is planned to take.
std::size_t planned(std::size_t n, int dim, bool lean, std::size_t input, std::size_t extra)
{
  return n * (gpuBytesPerPoint(lean, dim) + extra) + input + kGpuFixedBytes;
}

} // namespace

TEST(DevicePlan, LeanLeavesAreFewerAndTakeLess)
{
  // Halved cells end nearer their capacity than octree cells; the lean ones hold more points
  // than the fast ones of either dimension: fewer leaves.
  EXPECT_TRUE(kGpuLeanLeaves.splitsInTwo);
  for (int dim : { 2, 3 })
  {
    EXPECT_EQ(gpuLeaves(true, dim).capacity, kGpuLeanLeaves.capacity) << dim << "D";
    EXPECT_GT(kGpuLeanLeaves.capacity, gpuLeaves(false, dim).capacity) << dim << "D";
    EXPECT_LT(gpuBytesPerPoint(true, dim), gpuBytesPerPoint(false, dim)) << dim << "D";
  }
  EXPECT_LE(gpuBytesPerPoint(true, 2), gpuBytesPerPoint(true, 3));
}

TEST(DevicePlan, FastWheneverItFitsLeanOnlyWhenItDoesNot)
{
  for (int dim : { 2, 3 })
  {
    for (std::size_t n : { std::size_t(2), std::size_t(100000), std::size_t(1000000000) })
    {
      std::size_t const input = n * 4 * static_cast<std::size_t>(dim);
      std::size_t const fast = planned(n, dim, false, input, 0);
      std::size_t const lean = planned(n, dim, true, input, 0);
      ASSERT_LT(lean, fast);
      for (std::size_t available : { fast + 1000, fast, fast - 1, lean, lean - 1, std::size_t(0) })
      {
        DevicePlan const plan = planDevice(n, dim, input, 0, available);
        SCOPED_TRACE(testing::Message() << dim << "D, n = " << n << ", available " << available);
        EXPECT_EQ(plan.lean, available < fast);
        EXPECT_EQ(plan.fits, available >= lean);
        EXPECT_EQ(plan.needed, plan.lean ? lean : fast);
        EXPECT_TRUE(!plan.fits || plan.needed <= available);
      }
    }
  }
}

TEST(DevicePlan, ExtraBytesAPointCountInBothLayouts)
{
  // HDBSCAN*'s runs add their cores a point: the same plan with more a point.
  std::size_t const n = 1000000;
  std::size_t const extra = 48;
  std::size_t const fast = planned(n, 3, false, 0, extra);
  std::size_t const lean = planned(n, 3, true, 0, extra);
  EXPECT_FALSE(planDevice(n, 3, 0, extra, fast).lean);
  EXPECT_TRUE(planDevice(n, 3, 0, extra, fast - 1).lean);
  EXPECT_TRUE(planDevice(n, 3, 0, extra, lean).fits);
  EXPECT_FALSE(planDevice(n, 3, 0, extra, lean - 1).fits);
  // Memory for the fast layout without the extra bytes holds neither layout with them.
  std::size_t const bare = planned(n, 3, false, 0, 0);
  EXPECT_TRUE(planDevice(n, 3, 0, 0, bare).fits);
  EXPECT_FALSE(planDevice(n, 3, 0, 0, bare).lean);
  EXPECT_FALSE(planDevice(n, 3, 0, extra, bare).fits);
}

TEST(DevicePlan, TheKnobForcesALayoutButNotAFit)
{
  std::size_t const n = 1000000;
  std::size_t const fast = planned(n, 3, false, 0, 0);
  std::size_t const lean = planned(n, 3, true, 0, 0);
  EXPECT_TRUE(planDevice(n, 3, 0, 0, fast * 2, "lean").lean);
  EXPECT_EQ(planDevice(n, 3, 0, 0, fast * 2, "lean").needed, lean);
  EXPECT_FALSE(planDevice(n, 3, 0, 0, lean, "fast").lean);
  EXPECT_FALSE(planDevice(n, 3, 0, 0, lean, "fast").fits); // forced fast does not fit there
  EXPECT_TRUE(planDevice(n, 3, 0, 0, fast * 2, "lean").forced);
  EXPECT_TRUE(planDevice(n, 3, 0, 0, lean, "fast").forced);
  EXPECT_TRUE(planDevice(n, 3, 0, 0, lean, "auto").lean);
  EXPECT_FALSE(planDevice(n, 3, 0, 0, lean, "auto").forced);
  EXPECT_FALSE(planDevice(n, 3, 0, 0, lean).forced);
  EXPECT_TRUE(planDevice(n, 3, 0, 0, lean, "").fits);
}
