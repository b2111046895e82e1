// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The leaves a backend builds, and how much GPU memory a run takes with each of the GPU's two
// layouts: the plan that picks the fast one when it fits and the lean one when only that fits.
// Plain C++ (no CUDA): the CPU tests check the plan.
#pragma once

#include <cstddef>
#include <string>

namespace emst
{
namespace detail
{

/// The leaf cells (phases/Cells.h): at most `capacity` points a leaf; a full cell halves (one
/// code bit: cells end near the capacity) or splits in 2^Dim (octree/quadtree cells).
struct LeafLayout
{
  int capacity;
  bool splitsInTwo;
};

/// The GPU's layouts. Fast: in 3D cells halved up to 8 points, in 2D quadtree cells of up to 16
/// (a thread scans its leaves alone, so fuller leaves cost the warps more than the nodes they
/// save). Octree cells grow eightfold a level, so how full they end depends on where the count
/// falls between powers of 8 (10^7 uniform points: about 5 a leaf, 3*10^7: many cells just
/// over 16, split into leaves of 2); halved cells end near their capacity at any count. H100,
/// against octree cells of 16 (RESULTS.md, 2026-11-25, ms): uniform 3e7 3D 73.7 -> 66.1, cosmo
/// 3e7 3D 71.7 -> 68.6, cosmo 1e7 3D 24.0 -> 22.9, uniform 1e7 3D 22.1 -> 22.3, 2 bytes a point
/// less; in 2D (quadtree levels 4 apart) halved cells of 8 were even, at 2-4 bytes a point more.
/// Lean: cells halved up to 24 points, about 3 times fewer leaves and tree nodes, 11-17 bytes a
/// point less in 3D for 5-20% more time (H100, RESULTS.md, 2026-11-24: uniform 1e7 3D 30.8 ms
/// / 58.1 bytes a point -> 36.0 / 46.7, cosmo 33.4 / 57.6 -> 36.5 / 47.2, lidar_lonestar519k 3.0
/// / 55.5 -> 3.1 / 47.6).
constexpr LeafLayout kGpuFastLeaves3D{ 8, true };
constexpr LeafLayout kGpuFastLeaves2D{ 16, false };
constexpr LeafLayout kGpuLeanLeaves{ 24, true };

/// The GPU's leaves for a run of dimension `dim` (2 or 3) in the lean or the fast layout.
constexpr LeafLayout gpuLeaves(bool lean, int dim)
{
  return lean ? kGpuLeanLeaves : (dim == 3 ? kGpuFastLeaves3D : kGpuFastLeaves2D);
}

/// The CUDA engine's device memory a point at its peak (input excluded), by layout and
/// dimension: the largest measured over the benchmark's sets (RESULTS.md: fast 3D at most 63.5
/// with its halved leaves, 69.1 with the octree ones before, 2D 52.0; lean 3D 49.3, 2D 46.3,
/// from 14k to 3e7 points), with room for data less kind (small leaves in clustered data, many
/// tied lengths). A run whose peak exceeds it fails cleanly (OutOfMemory, which Auto turns into
/// a run on the CPU).
inline std::size_t gpuBytesPerPoint(bool lean, int dim)
{
  if (lean)
  {
    return dim == 2 ? 52 : 56;
  }
  return dim == 2 ? 60 : 72;
}

/// Fixed device memory beside the per-point working set (round counters, library scratch).
constexpr std::size_t kGpuFixedBytes = std::size_t(16) << 20;

/// How a run fits the GPU: the layout and the bytes it is expected to take.
struct DevicePlan
{
  bool lean;          ///< the lean layout
  bool forced;        ///< the layout is the knob's, not the memory's choice
  bool fits;          ///< the expected peak fits in the available memory
  std::size_t needed; ///< the expected peak, the upload included
};

/// The layout of a run of `points` points of dimension `dim` (2 or 3): the fast one when its
/// expected peak (plus `extraPerPoint` bytes a point for what the run adds, the upload and the
/// fixed part) fits in `available` bytes, else the lean one; fits = false when neither does.
/// `forced`: "fast" or "lean" takes that layout whatever the memory (the EMST_CUDA_LAYOUT knob,
/// for benchmarks); anything else (null, "auto") plans.
inline DevicePlan planDevice(std::size_t points, int dim, std::size_t inputBytes,
  std::size_t extraPerPoint, std::size_t available, const char* forced = nullptr)
{
  std::string const knob = forced ? forced : "";
  auto need = [&](bool lean)
  { return points * (gpuBytesPerPoint(lean, dim) + extraPerPoint) + inputBytes + kGpuFixedBytes; };
  DevicePlan plan{ false, knob == "fast" || knob == "lean", false, need(false) };
  if (knob == "lean" || (!plan.forced && plan.needed > available))
  {
    plan.lean = true;
    plan.needed = need(true);
  }
  plan.fits = plan.needed <= available;
  return plan;
}

} // namespace detail
} // namespace emst
