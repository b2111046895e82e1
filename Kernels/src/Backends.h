// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Internal seam between the public entry point (Emst.cxx) and the backends.
#pragma once

#include "emst/Emst.h"

#include <string>

namespace emst
{
namespace detail
{

/// Runs the CPU backend. `points` are in host memory and already validated.
Result runCpu(const PointCloudView& points, const Options& options);

#if defined(EMST_WITH_CUDA)
/// Runs the CUDA backend (host or device input). Throws Error(OutOfMemory) when the device
/// cannot hold the working set, Error(DeviceError) on any CUDA failure.
Result runCuda(const PointCloudView& points, const Options& options);

/// Probes the driver and the device once per ordinal (lazily, on first use).
bool probeCuda(int device, std::string* reason);
#endif

/// Compensated (Neumaier) sum of the edge lengths in list order: deterministic, and the same on
/// every backend since the lists are.
double sumLengths(const std::vector<Edge>& edges);

} // namespace detail
} // namespace emst
