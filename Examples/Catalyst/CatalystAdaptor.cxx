// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
#include "CatalystAdaptor.h"

#include "ParticleSimulation.h"

#include "vtkCPDataDescription.h"
#include "vtkCPInputDataDescription.h"
#include "vtkCPProcessor.h"
#include "vtkCPPythonPipeline.h"
#include "vtkFloatArray.h"
#include "vtkIntArray.h"
#include "vtkMultiProcessController.h"
#include "vtkNew.h"
#include "vtkPointData.h"
#include "vtkPoints.h"
#include "vtkPolyData.h"
#include "vtkSmartPointer.h"
#include "vtkTypeInt64Array.h"

#include <cstdint>
#include <iostream>

namespace
{

/// The input name the pipeline scripts look for: `TrivialProducer(registrationName='input')`
/// (legacy API) or the Catalyst 2 channel of the same name.
constexpr const char* InputName = "input";

vtkCPProcessor* Processor = nullptr;

/// Wraps a simulation array of `tuples` x `components` values as a VTK array without copying it:
/// VTK reads the simulation's memory and never frees it (save = 1). The memory must stay valid
/// until the next CoProcess call replaces the grid.
template <typename ArrayT, typename ValueT>
vtkSmartPointer<ArrayT> Wrap(const char* name, ValueT* values, vtkIdType tuples, int components)
{
  auto array = vtkSmartPointer<ArrayT>::New();
  array->SetName(name);
  array->SetNumberOfComponents(components);
  array->SetArray(values, tuples * components, /*save=*/1);
  return array;
}

/// This process's particles as a vtkPolyData: points and point arrays, no cells (the EMST filter
/// uses the points only). A process with no particles hands over an empty vtkPolyData; the
/// filters gather all processes' points themselves.
vtkSmartPointer<vtkPolyData> BuildGrid(ParticleSimulation& simulation)
{
  const vtkIdType n = simulation.LocalCount();
  auto grid = vtkSmartPointer<vtkPolyData>::New();
  vtkNew<vtkPoints> points;
  points->SetData(Wrap<vtkFloatArray>("Points", simulation.Positions().data(), n, 3).GetPointer());
  grid->SetPoints(points);
  grid->GetPointData()->AddArray(
    Wrap<vtkFloatArray>("Velocity", simulation.Velocities().data(), n, 3).GetPointer());
  // std::int64_t is long, vtkTypeInt64 long long: the same 64-bit integers.
  static_assert(sizeof(vtkTypeInt64) == sizeof(std::int64_t), "64-bit ids");
  grid->GetPointData()->AddArray(Wrap<vtkTypeInt64Array>(
    "ParticleId", reinterpret_cast<vtkTypeInt64*>(simulation.Ids().data()), n, 1)
                                   .GetPointer());

  // Which process owned each particle (a small copy): after the filters gather everything on
  // process 0, this shows where the points came from.
  vtkMultiProcessController* controller = vtkMultiProcessController::GetGlobalController();
  vtkNew<vtkIntArray> rank;
  rank->SetName("Rank");
  rank->SetNumberOfTuples(n);
  rank->FillValue(controller != nullptr ? controller->GetLocalProcessId() : 0);
  grid->GetPointData()->AddArray(rank);
  return grid;
}

} // namespace

namespace CatalystAdaptor
{

bool Initialize(const std::vector<std::string>& scripts)
{
  if (Processor != nullptr)
  {
    return true;
  }
  Processor = vtkCPProcessor::New();
  // Uses MPI_COMM_WORLD (MPI must be initialized by the caller when ParaView has MPI).
  if (Processor->Initialize() == 0)
  {
    std::cerr << "Catalyst: vtkCPProcessor::Initialize failed\n";
    return false;
  }
  for (const std::string& script : scripts)
  {
    // Reads "# script-version: 2" from the script; version 2 is also the default here.
    vtkSmartPointer<vtkCPPythonPipeline> pipeline =
      vtkCPPythonPipeline::CreateAndInitializePipeline(script.c_str(), 2);
    if (pipeline == nullptr)
    {
      std::cerr << "Catalyst: could not load the pipeline script " << script << "\n";
      return false;
    }
    Processor->AddPipeline(pipeline);
  }
  return true;
}

bool CoProcess(ParticleSimulation& simulation, bool lastStep)
{
  if (Processor == nullptr)
  {
    return false;
  }
  vtkNew<vtkCPDataDescription> description;
  description->AddInput(InputName);
  description->SetTimeData(simulation.Time(), simulation.Step());
  if (lastStep)
  {
    description->ForceOutputOn();
  }
  // Asks the pipelines whether they want this step before building anything.
  if (Processor->RequestDataDescription(description) == 0)
  {
    return true;
  }
  description->GetInputDescriptionByName(InputName)->SetGrid(BuildGrid(simulation));
  return Processor->CoProcess(description) != 0;
}

void Finalize()
{
  if (Processor != nullptr)
  {
    Processor->Finalize();
    Processor->Delete();
    Processor = nullptr;
  }
}

} // namespace CatalystAdaptor
