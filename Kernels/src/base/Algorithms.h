// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The library algorithms the phases call through Exec::policy() (Thrust: CUB on the CUDA
// backend, OpenMP on the CPU backend). Counts and reductions whose value the host reads go
// through the backend instead (Exec::count, Exec::transformReduce).
#pragma once

#include <thrust/copy.h>
#include <thrust/functional.h>
#include <thrust/gather.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
