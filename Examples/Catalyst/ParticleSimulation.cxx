// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
#include "ParticleSimulation.h"

#include <cmath>

namespace
{

constexpr double Pi = 3.14159265358979323846;
constexpr double HalfBox = 50.0; // the periodic box is [-50, 50)^3

/// SplitMix64 (Steele, Lea and Flood 2014): a counter-based generator, so that a particle's
/// random numbers depend on its id only, never on which process owns it.
std::uint64_t SplitMix64(std::uint64_t x)
{
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// The k-th uniform number in [0, 1) of a particle.
double Uniform(std::uint64_t seed, std::int64_t id, int k)
{
  const std::uint64_t bits =
    SplitMix64(seed ^ SplitMix64(static_cast<std::uint64_t>(id) * 16u + k));
  return static_cast<double>(bits >> 11) * (1.0 / 9007199254740992.0); // 53 bits
}

/// Wraps x into [-HalfBox, HalfBox).
double Wrap(double x)
{
  return x - 2.0 * HalfBox * std::floor((x + HalfBox) / (2.0 * HalfBox));
}

} // namespace

ParticleSimulation::ParticleSimulation(const Options& options, int rank, int ranks)
  : Opts(options)
{
  // Contiguous blocks of ids; the empty rank (if any) gets none and the others share them all.
  const int owners =
    (options.EmptyRank >= 0 && options.EmptyRank < ranks && ranks > 1) ? ranks - 1 : ranks;
  int slot = rank;
  if (owners < ranks)
  {
    slot = rank < options.EmptyRank ? rank : rank - 1;
  }
  std::int64_t begin = 0, end = 0;
  if (owners == ranks || rank != options.EmptyRank)
  {
    begin = options.Particles * slot / owners;
    end = options.Particles * (slot + 1) / owners;
  }
  const std::int64_t count = end - begin;
  this->IdOfParticle.resize(static_cast<std::size_t>(count));
  this->PositionOfParticle.resize(static_cast<std::size_t>(3 * count));
  this->VelocityOfParticle.resize(static_cast<std::size_t>(3 * count));
  for (std::int64_t k = 0; k < count; ++k)
  {
    this->IdOfParticle[k] = begin + k;
  }
  this->StepIndex = -1;
  this->Advance(); // step 0: the initial positions
}

void ParticleSimulation::Advance()
{
  ++this->StepIndex;
  const double time = this->Time();
  const std::int64_t count = this->LocalCount();
  for (std::int64_t k = 0; k < count; ++k)
  {
    double xyz[6];
    this->Place(time, this->IdOfParticle[k], xyz);
    for (int a = 0; a < 3; ++a)
    {
      this->PositionOfParticle[3 * k + a] = static_cast<float>(xyz[a]);
      this->VelocityOfParticle[3 * k + a] = static_cast<float>(xyz[3 + a]);
    }
  }
}

/// Position (xyz[0..2]) and velocity (xyz[3..5]) of particle `id` at `time`.
void ParticleSimulation::Place(double time, std::int64_t id, double xyz[6]) const
{
  const std::uint64_t seed = this->Opts.Seed;
  if (Uniform(seed, id, 0) < this->Opts.BackgroundFraction)
  {
    // Background: straight lines through the periodic box.
    for (int a = 0; a < 3; ++a)
    {
      const double start = (2.0 * Uniform(seed, id, 1 + a) - 1.0) * HalfBox;
      const double velocity = (2.0 * Uniform(seed, id, 4 + a) - 1.0) * 2.0;
      xyz[a] = Wrap(start + velocity * time);
      xyz[3 + a] = velocity;
    }
    return;
  }
  // A blob g: its centre orbits the z axis, its size breathes; the particle keeps its Gaussian
  // offset (Box-Muller) within the blob.
  const int g = static_cast<int>(Uniform(seed, id, 1) * this->Opts.Blobs);
  const double sigma = 1.0 + 0.25 * g;
  const double radius = 15.0 + 3.0 * g;
  const double omega = 0.5 + 0.1 * g;
  const double phase = 2.0 * Pi * g / this->Opts.Blobs;
  const double angle = omega * time + phase;
  const double scale = 1.0 + 0.2 * std::sin(time + g);
  const double scaleRate = 0.2 * std::cos(time + g);
  const double center[3] = { radius * std::cos(angle), radius * std::sin(angle),
    0.3 * radius * std::sin(2.0 * angle) };
  const double centerRate[3] = { -radius * omega * std::sin(angle),
    radius * omega * std::cos(angle), 0.6 * radius * omega * std::cos(2.0 * angle) };
  for (int a = 0; a < 3; ++a)
  {
    const double u1 = 1.0 - Uniform(seed, id, 2 + 2 * a); // (0, 1]
    const double u2 = Uniform(seed, id, 3 + 2 * a);
    const double offset = sigma * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * Pi * u2);
    xyz[a] = center[a] + scale * offset;
    xyz[3 + a] = centerRate[a] + scaleRate * offset;
  }
}
