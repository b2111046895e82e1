// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
#include "vtkEMSTGather.h"

#include "vtkCellArray.h"
#include "vtkCellData.h"
#include "vtkDataSetAttributes.h"
#include "vtkIdTypeArray.h"
#include "vtkMultiProcessController.h"
#include "vtkPointData.h"
#include "vtkPointSet.h"
#include "vtkPoints.h"
#include "vtkPolyData.h"

namespace vtkEMSTGather
{

void Append(const std::vector<vtkSmartPointer<vtkPointSet>>& pieces, vtkPolyData* output,
  bool withLines)
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
  auto offsets = vtkSmartPointer<vtkIdTypeArray>::New();
  auto connectivity = vtkSmartPointer<vtkIdTypeArray>::New();
  vtkCellData* outCD = output->GetCellData();
  if (withLines)
  {
    offsets->SetNumberOfValues(totalLines + 1);
    offsets->SetValue(0, 0);
    connectivity->SetNumberOfValues(totalIds);
    outCD->CopyAllocate(cellFields, totalLines);
    outCD->SetNumberOfTuples(totalLines);
  }
  vtkIdType firstPoint = 0;
  vtkIdType firstLine = 0;
  vtkIdType firstId = 0;
  int index = 0;
  for (const auto& piece : pieces)
  {
    const vtkIdType n = piece->GetNumberOfPoints();
    points->InsertPoints(firstPoint, n, 0, piece->GetPoints());
    outPD->CopyData(pointFields, piece->GetPointData(), index, firstPoint, n, 0);
    auto* polyData = vtkPolyData::SafeDownCast(piece);
    if (withLines && polyData != nullptr && polyData->GetNumberOfLines() > 0)
    {
      vtkCellArray* lines = polyData->GetLines();
      const vtkIdType m = lines->GetNumberOfCells();
      vtkDataArray* ids = lines->GetConnectivityArray();
      vtkDataArray* starts = lines->GetOffsetsArray();
      for (vtkIdType c = 1; c <= m; ++c)
      {
        offsets->SetValue(firstLine + c, firstId + static_cast<vtkIdType>(starts->GetComponent(c, 0)));
      }
      const vtkIdType count = lines->GetNumberOfConnectivityIds();
      for (vtkIdType k = 0; k < count; ++k)
      {
        connectivity->SetValue(firstId + k, firstPoint + static_cast<vtkIdType>(ids->GetComponent(k, 0)));
      }
      // Line cells follow the vertices in a vtkPolyData's cell numbering.
      outCD->CopyData(cellFields, polyData->GetCellData(), index, firstLine, m,
        polyData->GetNumberOfVerts());
      firstLine += m;
      firstId += count;
    }
    firstPoint += n;
    ++index;
  }
  output->SetPoints(points);
  if (withLines)
  {
    auto lines = vtkSmartPointer<vtkCellArray>::New();
    lines->SetData(offsets, connectivity);
    output->SetLines(lines);
  }
}

vtkSmartPointer<vtkPolyData> OnOneProcess(
  vtkMultiProcessController* controller, vtkPolyData* local, bool& gathered)
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
  return all;
}

}
