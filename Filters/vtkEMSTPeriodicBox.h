// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Periodic boxes on the VTK side: the box as the filters hand it around, its field-data form
// (`BoxSize`, `BoxOrigin`: what a reader of a simulation snapshot provides, GenericIO/HACC or
// Gadget style, and what the tree filter writes on a periodic tree), and the minimum-image
// arithmetic the outputs need (CrossesBoundary, periodic centroids). The tree itself is the
// engine's (emst::PeriodicBox, Kernels/include/emst/Emst.h). Not wrapped, not installed.
#ifndef vtkEMSTPeriodicBox_h
#define vtkEMSTPeriodicBox_h

#include "vtkIndent.h"
#include "vtkSmartPointer.h"

#include <ostream>

#include <string>

class vtkCellArray;
class vtkDataObject;
class vtkFieldData;
class vtkPoints;
class vtkPolyData;
class vtkUnsignedCharArray;

namespace vtkEMSTPeriodicBox
{

/// Field array names: BoxSize (the period L per axis; 0: that axis is not periodic) and BoxOrigin
/// (the box's lower corner).
constexpr const char* SizeName = "BoxSize";
constexpr const char* OriginName = "BoxOrigin";

/// A box: per axis an origin and a size L, 0 when the axis is not periodic (the default: none).
struct Box
{
  double Origin[3] = { 0.0, 0.0, 0.0 };
  double Size[3] = { 0.0, 0.0, 0.0 };

  /// True when an axis is periodic.
  bool IsPeriodic() const
  {
    return this->Size[0] > 0.0 || this->Size[1] > 0.0 || this->Size[2] > 0.0;
  }
  /// The product of the periods (the box's volume, area or length), and the count of them.
  double Volume(int& axes) const;
  /// The minimum-image form of a difference vector d = b - a (in place): on each periodic axis,
  /// d - L * nearbyint(d / L).
  void MinimumImage(double d[3]) const;
  /// A point moved by whole periods into [origin, origin + L) on each periodic axis (in place).
  void Wrap(double x[3]) const;
  /// "x [0, 1), y [0, 1), z open"-style text for messages.
  std::string Describe() const;
};

/// True when every size is finite and >= 0 and the origin finite on the periodic axes; else
/// false with the reason in `error`.
bool Validate(const Box& box, std::string& error);

/// Reads a box from field data: `BoxSize` with one value (a cube: that L on every axis) or three
/// (one per axis, as 1 tuple of 3 components or 3 tuples of 1), and `BoxOrigin` likewise
/// (optional: 0). False, with the reason in `error`, when BoxSize is missing, or either is
/// malformed (a count other than 1 or 3, a box Validate refuses).
bool Read(vtkFieldData* fieldData, Box& box, std::string& error);

/// Reads the box of a data object: its own field data, else (composite data) the first leaf's
/// that has BoxSize. False with `error` as Read.
bool ReadFrom(vtkDataObject* data, Box& box, std::string& error);

/// Values of a filter's PeriodicBoxMode property (the ParaView XML enumeration): no box, the
/// input's field data (ReadFrom), or the filter's BoxOrigin and BoxSize (Validate).
enum Mode
{
  Off = 0,
  FromInput = 1,
  Custom = 2
};

/// The box a filter's Periodic Box properties ask for (none for Off). False, with the reason in
/// `error`, when FromInput finds no valid box or Custom's is invalid.
bool FromProperties(int mode, vtkDataObject* input, const double origin[3], const double size[3],
  Box& box, std::string& error);

/// Writes the box as BoxSize and BoxOrigin (1 tuple of 3 components each), replacing any there.
void Write(const Box& box, vtkFieldData* fieldData);

/// Cell array `CrossesBoundary` of `lines` (2-point lines over `points`): 1 where the straight
/// segment between the two end points is not the edge, i.e. where on a periodic axis their
/// coordinates differ by more than L/2, so that the minimum image goes out through a face of the
/// box and in through the opposite one; else 0.
vtkSmartPointer<vtkUnsignedCharArray> CrossesBoundary(
  vtkPoints* points, vtkCellArray* lines, const Box& box);

/// What a tree's output carries of its box: the cell array CrossesBoundary of its lines when a
/// box was asked for (all 0 without a periodic axis), and the field data BoxSize and BoxOrigin
/// when the box has a periodic axis.
void MarkTree(vtkPolyData* output, const Box& box, bool asked);

/// The Periodic Box properties of a filter, for its PrintSelf.
void PrintProperties(
  std::ostream& os, vtkIndent indent, int mode, const double origin[3], const double size[3]);

}

#endif
