// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The conversion between VTK and the EMST engine: VTK point arrays in, VTK lines and arrays out.
// Its .cxx is the only unit of the filters that includes the engine's header; this header shows
// no engine type, so the wrapped filter classes never see one. Not wrapped, not installed.
#ifndef vtkEMSTEngineBridge_h
#define vtkEMSTEngineBridge_h

#include "vtkSmartPointer.h"
#include "vtkType.h"

#include <functional>
#include <string>
#include <vector>

class vtkCellArray;
class vtkDoubleArray;
class vtkPoints;
class vtkUnsignedCharArray;

namespace vtkEMSTEngineBridge
{

/// One block of the cloud. The blocks are concatenated in order: point k of block b is output
/// point (sum of the sizes of blocks 0..b-1) + k.
struct PointBlock
{
  vtkPoints* Points = nullptr;
  /// Optional vtkGhostType values, one per point; a point whose value has a bit of GhostMask
  /// set is left out of the tree.
  vtkUnsignedCharArray* Ghosts = nullptr;
};

struct Request
{
  std::vector<PointBlock> Blocks;
  unsigned char GhostMask = 0;
  /// vtkEMSTEuclideanMinimumSpanningTree::BackendType (0 auto, 1 CUDA, 2 CPU), already resolved
  /// against EMST_BACKEND by the caller.
  int Backend = 0;
  /// Fraction done (0..1) and the step about to run; returning false cancels.
  std::function<bool(double, const char*)> Progress;
};

struct Result
{
  enum StatusType
  {
    Ok,
    Failed,
    Cancelled
  };
  StatusType Status = Ok;
  std::string ErrorMessage;

  /// One line (2 point ids, output numbering) per edge, ordered by (length, i, j).
  vtkSmartPointer<vtkCellArray> Lines;
  /// Length of each edge, in the order of Lines.
  vtkSmartPointer<vtkDoubleArray> EdgeLength;
  double TotalLength = 0.0;
  std::string BackendDescription; ///< "CUDA (<device>)" or "CPU (<n> threads)"
  double ComputeMilliseconds = 0.0;
  vtkIdType PointsInTree = 0;   ///< finite, non-ghost points
  vtkIdType GhostPoints = 0;    ///< left out because of their ghost flags
  std::string InputPath;        ///< e.g. "zero-copy float32 3D", "copied float64 2D (z = 0)"
  std::vector<std::string> Messages; ///< the engine's warnings and notes
};

/// The backend to run (0 auto, 1 CUDA, 2 CPU): an explicit CUDA or CPU property wins; with auto,
/// the EMST_BACKEND environment variable decides when it is set (the engine's parseBackend
/// names). An unknown value is reported in `warning` and ignored.
int ResolveBackend(int property, std::string& warning);

/// Computes the tree of all points of all blocks. Never throws: failures come back as
/// Status Failed (with ErrorMessage) or Cancelled.
Result ComputeTree(const Request& request);

}

#endif
