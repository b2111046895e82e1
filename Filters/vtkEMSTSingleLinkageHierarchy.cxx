// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
#include "vtkEMSTSingleLinkageHierarchy.h"

#include "vtkEMSTAbort.h"
#include "vtkEMSTArrays.h"
#include "vtkEMSTEngineBridge.h"
#include "vtkEMSTGather.h"
#include "vtkEMSTPeriodicBox.h"

#include "vtkDataArray.h"
#include "vtkDataSetAttributes.h"
#include "vtkDoubleArray.h"
#include "vtkFieldData.h"
#include "vtkIdTypeArray.h"
#include "vtkInformation.h"
#include "vtkInformationVector.h"
#include "vtkMultiProcessController.h"
#include "vtkObjectFactory.h"
#include "vtkPointData.h"
#include "vtkPolyData.h"
#include "vtkSmartPointer.h"
#include "vtkTable.h"

#include <string>
#include <vector>

vtkStandardNewMacro(vtkEMSTSingleLinkageHierarchy);
vtkCxxSetObjectMacro(vtkEMSTSingleLinkageHierarchy, Controller, vtkMultiProcessController);

//------------------------------------------------------------------------------
vtkEMSTSingleLinkageHierarchy::vtkEMSTSingleLinkageHierarchy()
{
  this->SetController(vtkMultiProcessController::GetGlobalController());
  this->SetInputArrayToProcess(
    0, 0, 0, vtkDataObject::FIELD_ASSOCIATION_CELLS, vtkDataSetAttributes::SCALARS);
}

//------------------------------------------------------------------------------
vtkEMSTSingleLinkageHierarchy::~vtkEMSTSingleLinkageHierarchy()
{
  this->SetController(nullptr);
}

//------------------------------------------------------------------------------
int vtkEMSTSingleLinkageHierarchy::FillInputPortInformation(int, vtkInformation* info)
{
  info->Set(vtkAlgorithm::INPUT_REQUIRED_DATA_TYPE(), "vtkPolyData");
  return 1;
}

//------------------------------------------------------------------------------
int vtkEMSTSingleLinkageHierarchy::RequestData(
  vtkInformation*, vtkInformationVector** inputVector, vtkInformationVector* outputVector)
{
  vtkEMSTAbort::ForgetEarlierCancel(this);
  vtkPolyData* local = vtkPolyData::GetData(inputVector[0], 0);
  vtkTable* output = vtkTable::GetData(outputVector, 0);
  if (local == nullptr || output == nullptr)
  {
    vtkErrorMacro("Missing input or output.");
    return 0;
  }
  std::vector<std::string> messages;
  auto emptyTable = [output, &messages]()
  {
    output->Initialize();
    output->AddColumn(vtkEMSTArrays::Named<vtkIdTypeArray>("Cluster1"));
    output->AddColumn(vtkEMSTArrays::Named<vtkIdTypeArray>("Cluster2"));
    output->AddColumn(vtkEMSTArrays::Named<vtkDoubleArray>("Height"));
    output->AddColumn(vtkEMSTArrays::Named<vtkIdTypeArray>("Size"));
    output->GetFieldData()->AddArray(vtkEMSTArrays::Named<vtkIdTypeArray>("LeafPointId"));
    vtkEMSTArrays::AddStrings(output->GetFieldData(), "HierarchyMessages", messages);
  };

  vtkDataArray* lengths = this->GetInputArrayToProcess(0, inputVector);
  vtkEMSTEngineBridge::Status status;
  vtkEMSTEngineBridge::ClusterTree::Hierarchy hierarchy;
  vtkIdType leftOut = 0, leaves = 0; // points not in the tree, and in it (a local tree's)
  if (vtkEMSTEngineBridge::IsDistributedTree(this->Controller, local))
  {
    // A distributed tree: its edges (n - 1 rows) are gathered on process 0, not its points.
    auto tree = vtkEMSTEngineBridge::DistributedClusterTree::Create(local, lengths,
      local->GetPointData()->GetArray("EMSTGlobalId"),
      local->GetPointData()->GetArray("EMSTOwnerRank"), this->Controller, status);
    if (tree != nullptr)
    {
      hierarchy = tree->ComputeHierarchy();
      status = hierarchy.Outcome;
    }
  }
  else
  {
    bool gathered = false;
    vtkSmartPointer<vtkPolyData> input =
      vtkEMSTGather::OnOneProcess(this->Controller, local, lengths, gathered);
    if (input == nullptr)
    {
      emptyTable();
      return 1;
    }
    // Without a length array the lengths come from the points: minimum-image ones in the tree's
    // periodic box (its field data), when it has one (a periodic tree is never distributed).
    vtkEMSTPeriodicBox::Box box;
    if (local->GetFieldData()->GetArray(vtkEMSTPeriodicBox::SizeName) != nullptr &&
      !vtkEMSTPeriodicBox::Read(local->GetFieldData(), box, status.ErrorMessage))
    {
      status.Code = vtkEMSTEngineBridge::Status::Failed;
      status.ErrorMessage = "Periodic box of the input: " + status.ErrorMessage + ".";
    }
    auto tree = status.Code == vtkEMSTEngineBridge::Status::Ok
      ? vtkEMSTEngineBridge::ClusterTree::Create(input, lengths, 2, box, status)
      : nullptr;
    if (tree != nullptr)
    {
      hierarchy = tree->ComputeHierarchy();
      status = hierarchy.Outcome;
      leftOut = tree->NumberOfLeftOut();
      leaves = tree->NumberOfPoints();
    }
  }
  if (status.Code != vtkEMSTEngineBridge::Status::Ok)
  {
    vtkErrorMacro(<< status.ErrorMessage);
    messages.push_back("error: " + status.ErrorMessage);
    emptyTable();
    return 1;
  }
  if (leftOut > 0)
  {
    messages.push_back(std::to_string(leftOut) +
      " points are not in the tree (non-finite coordinates or ghosts): the hierarchy is that of "
      "the " +
      std::to_string(leaves) +
      " points in it, leaf k being input point LeafPointId[k] (field data)");
  }
  output->Initialize();
  output->AddColumn(hierarchy.Cluster1);
  output->AddColumn(hierarchy.Cluster2);
  output->AddColumn(hierarchy.Height);
  output->AddColumn(hierarchy.Size);
  output->GetFieldData()->AddArray(hierarchy.LeafPointId);
  vtkEMSTArrays::AddStrings(output->GetFieldData(), "HierarchyMessages", messages);
  return 1;
}

//------------------------------------------------------------------------------
void vtkEMSTSingleLinkageHierarchy::PrintSelf(ostream& os, vtkIndent indent)
{
  this->Superclass::PrintSelf(os, indent);
  os << indent << "Controller: " << this->Controller << "\n";
}
