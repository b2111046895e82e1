// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
#include "vtkEMSTGather.h"

#include "vtkCellArray.h"
#include "vtkCellData.h"
#include "vtkDataArray.h"
#include "vtkDataSetAttributes.h"
#include "vtkMultiProcessController.h"
#include "vtkPointData.h"
#include "vtkPointSet.h"
#include "vtkPoints.h"
#include "vtkPolyData.h"

namespace vtkEMSTGather
{

void Append(
  const std::vector<vtkSmartPointer<vtkPointSet>>& pieces, vtkPolyData* output, bool withLines)
{
  output->Initialize();
  if (pieces.size() == 1 && !withLines)
  {
    output->SetPoints(pieces[0]->GetPoints());
    output->GetPointData()->ShallowCopy(pieces[0]->GetPointData());
    return;
  }
  vtkIdType totalPoints = 0;
  vtkIdType totalLines = 0;
  vtkIdType totalIds = 0;
  bool allFloat = true;
  vtkDataSetAttributes::FieldList pointFields;
  vtkDataSetAttributes::FieldList cellFields;
  for (const auto& piece : pieces)
  {
    totalPoints += piece->GetNumberOfPoints();
    allFloat = allFloat && piece->GetPoints()->GetDataType() == VTK_FLOAT;
    pointFields.IntersectFieldList(piece->GetPointData());
    if (auto* polyData = vtkPolyData::SafeDownCast(piece))
    {
      totalLines += polyData->GetNumberOfLines();
      totalIds += polyData->GetLines()->GetNumberOfConnectivityIds();
      cellFields.IntersectFieldList(polyData->GetCellData());
    }
  }
  auto points = vtkSmartPointer<vtkPoints>::New();
  points->SetDataType(allFloat ? VTK_FLOAT : VTK_DOUBLE);
  points->SetNumberOfPoints(totalPoints);
  vtkPointData* outPD = output->GetPointData();
  outPD->CopyAllocate(pointFields, totalPoints);
  outPD->SetNumberOfTuples(totalPoints);
  withLines = withLines && totalLines > 0;
  auto lines = vtkSmartPointer<vtkCellArray>::New();
  vtkCellData* outCD = output->GetCellData();
  if (withLines)
  {
    lines->AllocateExact(totalLines, totalIds);
    outCD->CopyAllocate(cellFields, totalLines);
    outCD->SetNumberOfTuples(totalLines);
  }
  vtkIdType firstPoint = 0;
  vtkIdType firstLine = 0;
  int index = 0;
  for (const auto& piece : pieces)
  {
    const vtkIdType n = piece->GetNumberOfPoints();
    points->InsertPoints(firstPoint, n, 0, piece->GetPoints());
    outPD->CopyData(pointFields, piece->GetPointData(), index, firstPoint, n, 0);
    auto* polyData = vtkPolyData::SafeDownCast(piece);
    if (withLines && polyData != nullptr && polyData->GetNumberOfLines() > 0)
    {
      const vtkIdType m = polyData->GetNumberOfLines();
      lines->Append(polyData->GetLines(), firstPoint);
      // Line cells follow the vertices in a vtkPolyData's cell numbering.
      outCD->CopyData(
        cellFields, polyData->GetCellData(), index, firstLine, m, polyData->GetNumberOfVerts());
      firstLine += m;
    }
    firstPoint += n;
    ++index;
  }
  output->SetPoints(points);
  if (withLines)
  {
    output->SetLines(lines);
  }
}

vtkSmartPointer<vtkPolyData> OnOneProcess(
  vtkMultiProcessController* controller, vtkPolyData* local, vtkDataArray*& lengths, bool& gathered)
{
  gathered = false;
  if (controller == nullptr || controller->GetNumberOfProcesses() < 2)
  {
    return local;
  }
  int const mine = local->GetNumberOfPoints() > 0 ? 1 : 0;
  int holders = 0;
  controller->AllReduce(&mine, &holders, 1, vtkCommunicator::SUM_OP);
  if (holders <= 1)
  {
    return local;
  }
  gathered = true;
  std::vector<vtkSmartPointer<vtkDataObject>> received;
  auto copy = vtkSmartPointer<vtkPolyData>::New();
  copy->ShallowCopy(local);
  controller->Gather(copy, received, 0);
  const char* lengthsName = lengths != nullptr ? lengths->GetName() : nullptr;
  lengths = nullptr;
  if (controller->GetLocalProcessId() != 0)
  {
    return nullptr;
  }
  std::vector<vtkSmartPointer<vtkPointSet>> pieces;
  for (const auto& piece : received)
  {
    auto* polyData = vtkPolyData::SafeDownCast(piece);
    if (polyData != nullptr && polyData->GetNumberOfPoints() > 0)
    {
      pieces.emplace_back(polyData);
    }
  }
  auto all = vtkSmartPointer<vtkPolyData>::New();
  Append(pieces, all, true);
  if (lengthsName != nullptr)
  {
    lengths = all->GetCellData()->GetArray(lengthsName);
  }
  return all;
}

}
