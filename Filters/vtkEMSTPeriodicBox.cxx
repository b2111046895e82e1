// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
#include "vtkEMSTPeriodicBox.h"

#include "vtkEMSTArrays.h"

#include "vtkCellArray.h"
#include "vtkCellArrayIterator.h"
#include "vtkCellData.h"
#include "vtkCompositeDataIterator.h"
#include "vtkCompositeDataSet.h"
#include "vtkDataArray.h"
#include "vtkDataObject.h"
#include "vtkDoubleArray.h"
#include "vtkFieldData.h"
#include "vtkPoints.h"
#include "vtkPolyData.h"
#include "vtkUnsignedCharArray.h"

#include <cmath>
#include <sstream>

namespace vtkEMSTPeriodicBox
{
namespace
{

/// One or three values of a field array, as three (one repeated); false when there are not.
bool ThreeValues(vtkDataArray* array, double values[3])
{
  const vtkIdType count = array->GetNumberOfValues();
  if (count != 1 && count != 3)
  {
    return false;
  }
  for (int a = 0; a < 3; ++a)
  {
    const vtkIdType k = count == 1 ? 0 : a;
    values[a] = array->GetComponent(
      k / array->GetNumberOfComponents(), static_cast<int>(k % array->GetNumberOfComponents()));
  }
  return true;
}

} // namespace

double Box::Volume(int& axes) const
{
  double volume = 1.0;
  axes = 0;
  for (int a = 0; a < 3; ++a)
  {
    if (this->Size[a] > 0.0)
    {
      volume *= this->Size[a];
      ++axes;
    }
  }
  return volume;
}

void Box::MinimumImage(double d[3]) const
{
  for (int a = 0; a < 3; ++a)
  {
    if (this->Size[a] > 0.0)
    {
      d[a] -= this->Size[a] * std::nearbyint(d[a] / this->Size[a]);
    }
  }
}

void Box::Wrap(double x[3]) const
{
  for (int a = 0; a < 3; ++a)
  {
    if (this->Size[a] > 0.0)
    {
      const double shift = std::floor((x[a] - this->Origin[a]) / this->Size[a]);
      x[a] -= shift * this->Size[a];
      if (x[a] >= this->Origin[a] + this->Size[a]) // rounding of a point just below the origin
      {
        x[a] = this->Origin[a];
      }
    }
  }
}

std::string Box::Describe() const
{
  std::ostringstream text;
  text.precision(17);
  for (int a = 0; a < 3; ++a)
  {
    text << (a ? ", " : "") << "xyz"[a];
    if (this->Size[a] > 0.0)
    {
      text << " [" << this->Origin[a] << ", " << this->Origin[a] + this->Size[a] << ")";
    }
    else
    {
      text << " not periodic";
    }
  }
  return text.str();
}

bool Validate(const Box& box, std::string& error)
{
  for (int a = 0; a < 3; ++a)
  {
    std::ostringstream text;
    text.precision(17);
    if (!(box.Size[a] >= 0.0) || !std::isfinite(box.Size[a]))
    {
      text << "the box size of axis "
           << "xyz"[a] << " is " << box.Size[a]
           << ": sizes must be finite and >= 0 (0: not periodic)";
    }
    else if (box.Size[a] > 0.0 && !std::isfinite(box.Origin[a]))
    {
      text << "the box origin of axis "
           << "xyz"[a] << " is " << box.Origin[a] << ": it must be finite";
    }
    if (!text.str().empty())
    {
      error = text.str();
      return false;
    }
  }
  return true;
}

bool Read(vtkFieldData* fieldData, Box& box, std::string& error)
{
  vtkDataArray* size = fieldData ? fieldData->GetArray(SizeName) : nullptr;
  if (size == nullptr)
  {
    error = std::string("the input has no field data array ") + SizeName;
    return false;
  }
  Box read;
  if (!ThreeValues(size, read.Size))
  {
    error = std::string("field data ") + SizeName + " has " +
      std::to_string(size->GetNumberOfValues()) + " values: 1 (a cube) or 3 (x, y, z) expected";
    return false;
  }
  vtkDataArray* origin = fieldData->GetArray(OriginName);
  if (origin != nullptr && !ThreeValues(origin, read.Origin))
  {
    error = std::string("field data ") + OriginName + " has " +
      std::to_string(origin->GetNumberOfValues()) + " values: 1 or 3 expected";
    return false;
  }
  if (!Validate(read, error))
  {
    error = std::string("field data ") + SizeName + "/" + OriginName + ": " + error;
    return false;
  }
  box = read;
  return true;
}

bool ReadFrom(vtkDataObject* data, Box& box, std::string& error)
{
  if (data == nullptr)
  {
    error = "no input";
    return false;
  }
  if (Read(data->GetFieldData(), box, error))
  {
    return true;
  }
  auto* composite = vtkCompositeDataSet::SafeDownCast(data);
  if (composite == nullptr || data->GetFieldData()->GetArray(SizeName) != nullptr)
  {
    return false; // a malformed BoxSize of its own is reported, not looked past
  }
  vtkSmartPointer<vtkCompositeDataIterator> it;
  it.TakeReference(composite->NewIterator());
  for (it->InitTraversal(); !it->IsDoneWithTraversal(); it->GoToNextItem())
  {
    vtkDataObject* leaf = it->GetCurrentDataObject();
    if (leaf != nullptr && leaf->GetFieldData()->GetArray(SizeName) != nullptr)
    {
      error.clear();
      return Read(leaf->GetFieldData(), box, error);
    }
  }
  return false;
}

bool FromProperties(int mode, vtkDataObject* input, const double origin[3], const double size[3],
  Box& box, std::string& error)
{
  box = Box();
  if (mode == FromInput)
  {
    return ReadFrom(input, box, error);
  }
  if (mode == Custom)
  {
    for (int a = 0; a < 3; ++a)
    {
      box.Origin[a] = origin[a];
      box.Size[a] = size[a];
    }
    return Validate(box, error);
  }
  return true;
}

void Write(const Box& box, vtkFieldData* fieldData)
{
  auto size = vtkEMSTArrays::Named<vtkDoubleArray>(SizeName, 3);
  size->InsertNextTuple(box.Size);
  auto origin = vtkEMSTArrays::Named<vtkDoubleArray>(OriginName, 3);
  origin->InsertNextTuple(box.Origin);
  fieldData->RemoveArray(SizeName);
  fieldData->RemoveArray(OriginName);
  fieldData->AddArray(size);
  fieldData->AddArray(origin);
}

vtkSmartPointer<vtkUnsignedCharArray> CrossesBoundary(
  vtkPoints* points, vtkCellArray* lines, const Box& box)
{
  auto crosses = vtkEMSTArrays::Named<vtkUnsignedCharArray>("CrossesBoundary");
  const vtkIdType cells = lines ? lines->GetNumberOfCells() : 0;
  crosses->SetNumberOfValues(cells);
  auto it = vtk::TakeSmartPointer(lines ? lines->NewIterator() : nullptr);
  vtkIdType npts = 0;
  const vtkIdType* ids = nullptr;
  double p[3], q[3];
  for (vtkIdType c = 0; c < cells; ++c)
  {
    it->GetCellAtId(c, npts, ids);
    unsigned char flag = 0;
    for (vtkIdType k = 0; k + 1 < npts; ++k)
    {
      points->GetPoint(ids[k], p);
      points->GetPoint(ids[k + 1], q);
      for (int a = 0; a < 3; ++a)
      {
        if (box.Size[a] > 0.0 && std::fabs(q[a] - p[a]) > 0.5 * box.Size[a])
        {
          flag = 1;
        }
      }
    }
    crosses->SetValue(c, flag);
  }
  return crosses;
}

void MarkTree(vtkPolyData* output, const Box& box, bool asked)
{
  if (asked)
  {
    // Flagged, not split: the output stays n points and one line per edge (the tree that MST
    // Clusters, the hierarchy and scripts read); CrossesBoundary marks the lines that span the box.
    output->GetCellData()->AddArray(CrossesBoundary(output->GetPoints(), output->GetLines(), box));
  }
  if (box.IsPeriodic())
  {
    Write(box, output->GetFieldData());
  }
}

void PrintProperties(
  std::ostream& os, vtkIndent indent, int mode, const double origin[3], const double size[3])
{
  os << indent << "PeriodicBoxMode: " << mode << "\n";
  os << indent << "BoxOrigin: " << origin[0] << " " << origin[1] << " " << origin[2] << "\n";
  os << indent << "BoxSize: " << size[0] << " " << size[1] << " " << size[2] << "\n";
}

}
