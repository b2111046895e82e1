// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The library algorithms the phases call through Exec::policy() (Thrust: CUB on the CUDA
// backend, OpenMP on the CPU backend), and the index range they run over.
#pragma once

#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/functional.h>
#include <thrust/gather.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform_reduce.h>

#include <cstddef>

namespace emst
{
namespace detail
{

/// Indices [a, b) of a domain as Counting(a), Counting(b).
using Counting = thrust::counting_iterator<std::size_t>;

} // namespace detail
} // namespace emst
