// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The input side of the filters that compute a tree from points (the EMST, HDBSCAN*): the point
// sets of the input (composite leaves included), gathered on process 0 under MPI (a tree per
// piece would not be the tree of the data), and the engine bridge's request for them. Not wrapped,
// not installed.
#ifndef vtkEMSTPointInput_h
#define vtkEMSTPointInput_h

#include "vtkEMSTEngineBridge.h"

#include "vtkSmartPointer.h"

#include <string>
#include <vector>

class vtkAlgorithm;
class vtkDataObject;
class vtkMultiProcessController;
class vtkPointSet;
class vtkPolyData;

namespace vtkEMSTPointInput
{

/// The points a filter computes on, on this process.
struct Points
{
  std::vector<vtkSmartPointer<vtkPointSet>> Leaves; ///< non-empty point sets, in order
  bool Gathered = false; ///< several processes: every process's points are here (process 0)
  bool SentAway = false; ///< several processes: this one sent its points to process 0
  bool Failed = false;   ///< the gather failed
};

/// The point sets of `input` (a point set, or the point-set leaves of composite data; other
/// leaves are left out with a note appended to `messages`, for the caller to show), and with a
/// controller of more than one process all of them on process 0.
Points Collect(
  vtkDataObject* input, vtkMultiProcessController* controller, std::vector<std::string>& messages);

/// The bridge's request for the leaves: their points, their ghost flags (a DUPLICATEPOINT or
/// HIDDENPOINT point is left out), the backend, and a progress function that reports through
/// `algorithm` (progress and its text) and cancels when the algorithm is asked to abort.
vtkEMSTEngineBridge::Request MakeRequest(
  const Points& points, int backend, vtkAlgorithm* algorithm);

}

#endif
