// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Small helpers the filters share to make named arrays and one-value field data. Not wrapped,
// not installed.
#ifndef vtkEMSTArrays_h
#define vtkEMSTArrays_h

#include "vtkFieldData.h"
#include "vtkSmartPointer.h"
#include "vtkStringArray.h"

#include <string>
#include <vector>

namespace vtkEMSTArrays
{

/// A new, empty array with a name and a number of components.
template <class ArrayT>
vtkSmartPointer<ArrayT> Named(const char* name, int components = 1)
{
  auto array = vtkSmartPointer<ArrayT>::New();
  array->SetName(name);
  array->SetNumberOfComponents(components);
  return array;
}

/// Adds a field array `name` holding the one value `value`.
template <class ArrayT, class T>
void AddValue(vtkFieldData* fd, const char* name, const T& value)
{
  auto array = Named<ArrayT>(name);
  array->InsertNextValue(value);
  fd->AddArray(array);
}

/// Adds a string field array `name` holding `values` (possibly none).
inline void AddStrings(vtkFieldData* fd, const char* name, const std::vector<std::string>& values)
{
  auto array = Named<vtkStringArray>(name);
  for (const std::string& value : values)
  {
    array->InsertNextValue(value);
  }
  fd->AddArray(array);
}

}

#endif
