// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Cancelling a run of the filters (a progress observer's SetAbortExecute(1), ParaView's Abort
// button). Not wrapped, not installed.
#ifndef vtkEMSTAbort_h
#define vtkEMSTAbort_h

#include "vtkAlgorithm.h"
#include "vtkVersion.h"

namespace vtkEMSTAbort
{

/// Forgets the cancel of an earlier run. VTK 9.2 leaves AbortExecute set after a cancelled run,
/// so every later update would stop at once until someone clears it by hand; a cancel is meant
/// for the run it interrupts. Call first thing in RequestData. (The flag is set without
/// Modified(): the data of this run must not look older than the filter.)
inline void ForgetEarlierCancel(vtkAlgorithm* algorithm)
{
  algorithm->AbortExecute = 0;
#if VTK_VERSION_NUMBER >= VTK_VERSION_CHECK(9, 2, 20220823)
  if (algorithm->GetAbortOutput())
  {
    algorithm->SetAbortOutput(false);
  }
#endif
}

/// Whether the run in progress was cancelled (CheckAbort where VTK has it: it also sees an
/// upstream filter's abort).
inline bool Requested(vtkAlgorithm* algorithm)
{
#if VTK_VERSION_NUMBER >= VTK_VERSION_CHECK(9, 2, 20220823)
  return algorithm->CheckAbort();
#else
  return algorithm->GetAbortExecute() != 0;
#endif
}

}

#endif
