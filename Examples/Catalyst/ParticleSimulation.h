// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
#ifndef ParticleSimulation_h
#define ParticleSimulation_h

#include <cstdint>
#include <vector>

/// A toy particle "simulation" standing in for a real code: no VTK, no Catalyst, just arrays.
///
/// Particles belong to a few drifting, breathing blobs (Gaussian clouds of different sizes) or to
/// a sparse background that streams through a periodic box. Each process owns a contiguous block
/// of particle ids. A particle's position is a function of its id and the time only, so the whole
/// data set is the same whatever the number of processes: a run on 2 ranks and a run on 1 rank
/// give the same points (which is what the Catalyst test relies on).
class ParticleSimulation
{
public:
  struct Options
  {
    std::int64_t Particles = 20000; ///< over all processes
    int Blobs = 8;
    double BackgroundFraction = 0.1; ///< share of particles in the background
    double TimeStep = 0.1;
    std::uint64_t Seed = 12345;
    int EmptyRank = -1; ///< a process that owns no particles (to show that this works), or -1
  };

  ParticleSimulation(const Options& options, int rank, int ranks);

  /// Moves every local particle to the next time step.
  void Advance();

  int Step() const { return this->StepIndex; }
  double Time() const { return this->StepIndex * this->Opts.TimeStep; }

  /// Local particles: count, ids (global, contiguous on this process), xyz positions (3 floats
  /// each) and xyz velocities. The arrays stay at the same address for the whole run, so an
  /// adaptor can hand them to VTK without a copy.
  std::int64_t LocalCount() const { return static_cast<std::int64_t>(this->IdOfParticle.size()); }
  std::vector<std::int64_t>& Ids() { return this->IdOfParticle; }
  std::vector<float>& Positions() { return this->PositionOfParticle; }
  std::vector<float>& Velocities() { return this->VelocityOfParticle; }

private:
  void Place(double time, std::int64_t id, double xyz[6]) const;

  Options Opts;
  int StepIndex = 0;
  std::vector<std::int64_t> IdOfParticle; ///< [LocalCount]
  std::vector<float> PositionOfParticle;  ///< [3 * LocalCount]
  std::vector<float> VelocityOfParticle;  ///< [3 * LocalCount]
};

#endif
