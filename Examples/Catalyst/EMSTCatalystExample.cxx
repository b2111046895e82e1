// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// A simulation with Catalyst: particles move each time step, and a Catalyst Python pipeline
// (emst_pipeline.py) computes their Euclidean minimum spanning tree and single-linkage clusters
// in situ and writes extracts.
//
//   emst_catalyst_example --script Examples/Catalyst/emst_pipeline.py [--steps 5]
//       [--particles 20000] [--empty-rank R] [--write-points DIR]
//   mpiexec -np 2 emst_catalyst_example --script ...
//
// The simulation loop is the part a real code already has; the three CatalystAdaptor calls are
// what it adds (see docs/mpi-and-catalyst.md, "Catalyst").
#ifdef EMST_CATALYST_USE_MPI
#include <mpi.h>
#endif

#include "CatalystAdaptor.h"
#include "ParticleSimulation.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

namespace
{

void Usage()
{
  std::cerr
    << "usage: emst_catalyst_example --script PIPELINE.py [--script ...] [--steps N]\n"
       "         [--particles N] [--empty-rank R] [--write-points DIR]\n"
       "  --write-points DIR  also write each step's particles of each process to\n"
       "                      DIR/points_<step>_<rank>.f32 (uint64 n, uint32 3, n*3 float32)\n";
}

/// The particles of one process at one step, in the shared .f32 format, for checking the
/// extracts against an independent run (the tests).
bool WritePoints(const std::string& dir, ParticleSimulation& simulation, int rank)
{
  char name[64];
  std::snprintf(name, sizeof(name), "/points_%06d_%d.f32", simulation.Step(), rank);
  std::FILE* file = std::fopen((dir + name).c_str(), "wb");
  if (file == nullptr)
  {
    return false;
  }
  const std::uint64_t n = static_cast<std::uint64_t>(simulation.LocalCount());
  const std::uint32_t dim = 3;
  bool ok =
    std::fwrite(&n, sizeof(n), 1, file) == 1 && std::fwrite(&dim, sizeof(dim), 1, file) == 1;
  if (n > 0)
  {
    ok = ok && std::fwrite(simulation.Positions().data(), sizeof(float), 3 * n, file) == 3 * n;
  }
  return std::fclose(file) == 0 && ok;
}

} // namespace

int main(int argc, char* argv[])
{
  int rank = 0, ranks = 1;
#ifdef EMST_CATALYST_USE_MPI
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
#endif

  std::vector<std::string> scripts;
  ParticleSimulation::Options options;
  int steps = 5;
  std::string pointsDir;
  bool ok = true;
  for (int i = 1; i < argc && ok; ++i)
  {
    const std::string arg = argv[i];
    const bool hasValue = i + 1 < argc;
    if (arg == "--script" && hasValue)
    {
      scripts.emplace_back(argv[++i]);
    }
    else if (arg == "--steps" && hasValue)
    {
      steps = std::atoi(argv[++i]);
    }
    else if (arg == "--particles" && hasValue)
    {
      options.Particles = std::atoll(argv[++i]);
    }
    else if (arg == "--empty-rank" && hasValue)
    {
      options.EmptyRank = std::atoi(argv[++i]);
    }
    else if (arg == "--write-points" && hasValue)
    {
      pointsDir = argv[++i];
    }
    else
    {
      ok = false;
    }
  }
  if (!ok || scripts.empty() || steps < 1 || options.Particles < 0)
  {
    if (rank == 0)
    {
      Usage();
    }
    ok = false;
  }

#ifdef EMST_CATALYST_DEFAULT_PLUGIN
  // Where the pipeline script finds the plugin when EMST_PLUGIN is not set: this build's EMST.so.
  setenv("EMST_PLUGIN", EMST_CATALYST_DEFAULT_PLUGIN, /*overwrite=*/0);
#endif

  int status = ok ? 0 : 2;
  if (ok)
  {
    // 1. Start Catalyst once, after MPI_Init.
    if (!CatalystAdaptor::Initialize(scripts))
    {
      status = 1;
    }
    else
    {
      ParticleSimulation simulation(options, rank, ranks);
      for (int step = 0; step < steps; ++step)
      {
        if (step > 0)
        {
          simulation.Advance();
        }
        if (!pointsDir.empty() && !WritePoints(pointsDir, simulation, rank))
        {
          std::cerr << "could not write the points of step " << step << " to " << pointsDir << "\n";
          status = 1;
          break;
        }
        // 2. Hand each time step to Catalyst.
        if (!CatalystAdaptor::CoProcess(simulation, step == steps - 1))
        {
          std::cerr << "Catalyst failed at step " << step << "\n";
          status = 1;
          break;
        }
        if (rank == 0)
        {
          std::cout << "step " << step << " time " << simulation.Time() << ": " << options.Particles
                    << " particles\n"
                    << std::flush;
        }
      }
    }
    // 3. Finalize Catalyst before MPI.
    CatalystAdaptor::Finalize();
  }

#ifdef EMST_CATALYST_USE_MPI
  // Every process exits with the worst status of all.
  int worst = status;
  MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  status = worst;
  MPI_Finalize();
#endif
  return status;
}
