// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Internal seam between the public HDBSCAN* entries (Hdbscan.cxx) and the extraction.
#pragma once

#include "emst/Hdbscan.h"

namespace emst
{
namespace detail
{

/// Throws Error(InvalidInput) for a minimum cluster size below 2 or an epsilon that is negative
/// or NaN: what extractHdbscanClusters refuses before it reads the tree.
void checkHdbscanParameters(const HdbscanParameters& parameters);

} // namespace detail
} // namespace emst
