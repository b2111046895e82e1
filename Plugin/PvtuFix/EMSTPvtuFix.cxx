// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// LD_PRELOAD work-around for ParaView 5.11 (VTK 9.2): reading a .pvtu file can give the grid an
// empty polyhedron face table, and RedistributeDataSet then crashes on it (a segfault in
// vtkExtractCells, under MPI or not).
//
// vtkXMLPUnstructuredGridReader::SetupOutputData hands vtkUnstructuredGrid::SetCells a cell-type
// array of n bytes that it has allocated but not written, with an empty cell array (the pieces'
// cells come later). SetCells looks for VTK_POLYHEDRON (42) among all n bytes; where the heap
// happens to hold a 42 (it depends on what ran before: loading any plugin changes it;
// MALLOC_PERTURB_=213 makes every fresh byte 42), it builds the polyhedron representation of the
// zero cells it was given: face arrays with no entries. The reader then fills the cells and keeps
// those arrays, and vtkExtractCells, which RedistributeDataSet runs on every piece, reads
// FaceLocations[cellId] for every cell: past the end of an empty array.
//
// The wrapper below looks for VTK_POLYHEDRON only among the types that describe a cell of `cells`
// (the first cells->GetNumberOfCells()), and sets non-polyhedral cells as SetCells itself does,
// without face arrays. Whenever types and cells have the same length, which is SetCells's
// contract, the real function runs unchanged.
#include "vtkCellArray.h"
#include "vtkCellType.h"
#include "vtkUnsignedCharArray.h"
#include "vtkUnstructuredGrid.h"

#include <algorithm>
#include <dlfcn.h>

void vtkUnstructuredGrid::SetCells(vtkUnsignedCharArray* cellTypes, vtkCellArray* cells)
{
  using Function = void (*)(vtkUnstructuredGrid*, vtkUnsignedCharArray*, vtkCellArray*);
  // The next definition in the lookup order: VTK's own (a non-virtual member takes `this` first).
  static const Function real = reinterpret_cast<Function>(
    dlsym(RTLD_NEXT, "_ZN19vtkUnstructuredGrid8SetCellsEP20vtkUnsignedCharArrayP12vtkCellArray"));
  if (cellTypes != nullptr && cells != nullptr &&
    cells->GetNumberOfCells() < cellTypes->GetNumberOfValues())
  {
    const unsigned char* types = cellTypes->GetPointer(0);
    const unsigned char* end = types + cells->GetNumberOfCells();
    if (std::find(types, end, static_cast<unsigned char>(VTK_POLYHEDRON)) == end)
    {
      this->SetCells(cellTypes, cells, nullptr, nullptr);
      return;
    }
  }
  real(this, cellTypes, cells);
}
