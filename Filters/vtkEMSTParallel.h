// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// All-to-all exchanges over a vtkMultiProcessController, which has none: every pair of processes
// meets once, in the rounds of a round-robin tournament (the circle method), the lower of the two
// sending first, so that blocking sends never wait on each other in a cycle. Used by the
// distributed tree (the engine's Communicator, vtkEMSTEngineBridge.cxx) and to fetch the point
// arrays of the ghost copies. Not wrapped, not installed.
#ifndef vtkEMSTParallel_h
#define vtkEMSTParallel_h

#include "vtkSmartPointer.h"

#include <vector>

class vtkDataObject;
class vtkMultiProcessController;

namespace vtkEMSTParallel
{

/// The partner of `rank` in round `round` of size - 1 rounds (size even) or size rounds (odd); -1
/// when it sits that round out. Every pair of processes meets in exactly one round.
int Partner(int rank, int size, int round);
/// How many rounds a full exchange of `size` processes takes.
int Rounds(int size);

/// send[d] goes to process d; receive[s] gets what process s sent here. Collective. False when a
/// send or receive failed (on this process).
bool AllToAll(vtkMultiProcessController* controller,
  const std::vector<std::vector<unsigned char>>& send,
  std::vector<std::vector<unsigned char>>& receive);

/// The same for data objects: send[d] (may be null: an empty vtkPolyData is sent) to process d;
/// receive[s] the object from process s (send[rank] itself for this process).
bool AllToAll(vtkMultiProcessController* controller,
  const std::vector<vtkSmartPointer<vtkDataObject>>& send,
  std::vector<vtkSmartPointer<vtkDataObject>>& receive);

}

#endif
