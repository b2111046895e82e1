// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
#ifndef CatalystAdaptor_h
#define CatalystAdaptor_h

#include <string>
#include <vector>

class ParticleSimulation;

/// The only part of the example that knows both the simulation and ParaView: it starts Catalyst
/// (ParaView 5.11's legacy in-situ API: vtkCPProcessor and Python pipeline scripts), and each time
/// step wraps the particle arrays in a vtkPolyData (without copying them) and hands it to the
/// scripts as the input named "input". Copy this file into your code and change BuildGrid().
///
/// Call order: Initialize once (after MPI_Init), CoProcess every time step, Finalize once
/// (before MPI_Finalize).
namespace CatalystAdaptor
{

/// Starts Catalyst and loads each Python pipeline script (paraview.simple, "script-version: 2").
/// Returns false, with the reason on stderr, when Catalyst or a script fails to start.
bool Initialize(const std::vector<std::string>& scripts);

/// Runs the pipelines on this time step's particles if one of them wants this step (their
/// extract triggers decide). `lastStep` forces the pipelines to run. Returns false when a
/// pipeline failed.
bool CoProcess(ParticleSimulation& simulation, bool lastStep);

/// Finalizes the pipelines (their catalyst_finalize) and releases Catalyst.
void Finalize();

} // namespace CatalystAdaptor

#endif
