// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Test-owned point clouds and the generators of the engine tests. A Cloud keeps its own storage
// (float32 or float64, any stride) and hands the engine a PointCloudView of it; the references
// read the very same stored values, promoted to double.
#pragma once

#include "emst/Emst.h"

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace emsttest
{

using Point = std::array<double, 3>; // unused coordinates are 0

/// splitmix64-seeded xorshift-style generator: the same numbers on every platform and standard
/// library (std::uniform_*_distribution and std::shuffle are implementation-defined).
class Rng
{
public:
  explicit Rng(std::uint64_t seed)
    : State(seed ^ 0x6a09e667f3bcc909ULL)
  {
  }
  std::uint64_t next()
  {
    std::uint64_t z = (this->State += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// uniform in [0, 1) with 53 random bits
  double uniform() { return static_cast<double>(this->next() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * this->uniform(); }
  /// uniform integer in [0, n)
  std::uint64_t below(std::uint64_t n) { return n ? this->next() % n : 0; }
  double normal()
  {
    double u1 = 0.0;
    while (u1 <= 0.0)
    {
      u1 = this->uniform();
    }
    const double u2 = this->uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  template <typename T>
  void shuffle(std::vector<T>& v)
  {
    for (std::size_t k = v.size(); k > 1; --k)
    {
      std::swap(v[k - 1], v[this->below(k)]);
    }
  }

private:
  std::uint64_t State;
};

struct Cloud
{
  std::string label; ///< what it is, for failure messages
  int dimension = 3;
  std::size_t count = 0;
  std::size_t stride = 3; ///< scalars per record, >= dimension
  emst::ScalarType scalarType = emst::ScalarType::Float64;
  std::vector<float> float32;
  std::vector<double> float64;

  /// Coordinate a of point k as the engine sees it, promoted to double.
  double at(std::size_t k, int a) const
  {
    const std::size_t offset = k * this->stride + static_cast<std::size_t>(a);
    return this->scalarType == emst::ScalarType::Float32
      ? static_cast<double>(this->float32[offset])
      : this->float64[offset];
  }
  bool finite(std::size_t k) const
  {
    for (int a = 0; a < this->dimension; ++a)
    {
      if (!std::isfinite(this->at(k, a)))
      {
        return false;
      }
    }
    return true;
  }
  emst::PointCloudView view() const
  {
    emst::PointCloudView v;
    v.scalarType = this->scalarType;
    v.dimension = this->dimension;
    v.count = this->count;
    v.stride = this->stride;
    v.data = this->scalarType == emst::ScalarType::Float32
      ? static_cast<const void*>(this->float32.data())
      : static_cast<const void*>(this->float64.data());
    return v;
  }
};

/// Stores `points` (first `dimension` coordinates of each) as the given scalar type, `stride`
/// scalars per record (0 = dimension); the padding scalars hold `padding`.
Cloud makeCloud(const std::string& label, int dimension, emst::ScalarType type,
  const std::vector<Point>& points, std::size_t stride = 0,
  double padding = std::numeric_limits<double>::quiet_NaN());

const char* typeName(emst::ScalarType type);

// ---- generators (all deterministic in their seed) -------------------------------------------

/// Uniform in [offset, offset + scale)^dim.
std::vector<Point> uniformPoints(
  Rng& rng, std::size_t n, int dim, double scale = 1.0, double offset = 0.0);

/// Gaussian blobs of very different sizes (log-uniform sigma in [1e-4, 3e-2]) plus 10% background.
std::vector<Point> clusteredPoints(Rng& rng, std::size_t n, int dim);

/// Random integer coordinates in [0, m]: many ties and exact duplicates.
std::vector<Point> integerPoints(Rng& rng, std::size_t n, int dim, int m);

/// The integer lattice {0..nx-1} x {0..ny-1} [x {0..nz-1}], in x-fastest order, times `spacing`,
/// plus `offset` on every axis.
std::vector<Point> latticePoints(int nx, int ny, int nz, double spacing = 1.0, double offset = 0.0);

/// Face-centred cubic lattice: integer points with an even coordinate sum inside [0, 2*cells]^3.
/// Nearest neighbours are at sqrt(2); they form many equilateral triangles.
std::vector<Point> fccPoints(int cells);

/// One random cloud of the engine's sweeps: its shape (uniform at several scales and offsets,
/// clustered, or small integers: ties and duplicates), size (0 to `largest`, from a fixed list),
/// dimension and scalar type all come from `seed`.
Cloud randomCloud(std::uint64_t seed, std::size_t largest);

/// `copies` copies of each point, in a shuffled order when rng is given.
std::vector<Point> repeatPoints(const std::vector<Point>& points, int copies, Rng* rng);

} // namespace emsttest
