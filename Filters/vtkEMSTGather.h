// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The parallel rule of the cluster filters: a cut or a hierarchy of a tree split over several
// processes would be wrong, so when more than one process holds points of the input tree they are
// gathered on process 0. Not wrapped, not installed.
#ifndef vtkEMSTGather_h
#define vtkEMSTGather_h

#include "vtkSmartPointer.h"

#include <vector>

class vtkDataArray;
class vtkMultiProcessController;
class vtkPointSet;
class vtkPolyData;

namespace vtkEMSTGather
{

/// Appends the points of `pieces` in order into `output`, with the point arrays that all pieces
/// share; the line cells of pieces that are vtkPolyData too (point ids shifted), with the cell
/// arrays that all of them share, when `withLines`. With one piece and no lines wanted, the points
/// and arrays are shared, not copied.
void Append(
  const std::vector<vtkSmartPointer<vtkPointSet>>& pieces, vtkPolyData* output, bool withLines);

/// The polydata this process should compute on: `local` itself when at most one process holds
/// points (always so without a controller or with one process; the tree filter leaves its whole
/// output on process 0), else the points, lines and arrays of all processes appended on process 0
/// (`gathered` set) and null on the others, which then output nothing. `lengths`, the edge-length
/// cell array selected in `local` (or null), becomes the array of the same name in the result.
vtkSmartPointer<vtkPolyData> OnOneProcess(vtkMultiProcessController* controller, vtkPolyData* local,
  vtkDataArray*& lengths, bool& gathered);

}

#endif
