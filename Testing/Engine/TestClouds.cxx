// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
#include "TestClouds.h"

#include <algorithm>

namespace emsttest
{

Cloud makeCloud(const std::string& label, int dimension, emst::ScalarType type,
  const std::vector<Point>& points, std::size_t stride, double padding)
{
  Cloud cloud;
  cloud.label = label + " (" + std::to_string(points.size()) + " points, " +
    std::to_string(dimension) + "D, " + typeName(type) +
    (stride && stride != static_cast<std::size_t>(dimension) ? ", stride " + std::to_string(stride)
                                                             : "") +
    ")";
  cloud.dimension = dimension;
  cloud.count = points.size();
  cloud.stride = stride ? stride : static_cast<std::size_t>(dimension);
  cloud.scalarType = type;
  const std::size_t scalars = cloud.count * cloud.stride;
  if (type == emst::ScalarType::Float32)
  {
    cloud.float32.assign(scalars, static_cast<float>(padding));
  }
  else
  {
    cloud.float64.assign(scalars, padding);
  }
  for (std::size_t k = 0; k < points.size(); ++k)
  {
    for (int a = 0; a < dimension; ++a)
    {
      const std::size_t offset = k * cloud.stride + static_cast<std::size_t>(a);
      if (type == emst::ScalarType::Float32)
      {
        cloud.float32[offset] = static_cast<float>(points[k][a]);
      }
      else
      {
        cloud.float64[offset] = points[k][a];
      }
    }
  }
  return cloud;
}

const char* typeName(emst::ScalarType type)
{
  return type == emst::ScalarType::Float32 ? "float32" : "float64";
}

std::vector<Point> uniformPoints(Rng& rng, std::size_t n, int dim, double scale, double offset)
{
  std::vector<Point> points(n, Point{ 0.0, 0.0, 0.0 });
  for (Point& p : points)
  {
    for (int a = 0; a < dim; ++a)
    {
      p[a] = offset + scale * rng.uniform();
    }
  }
  return points;
}

std::vector<Point> clusteredPoints(Rng& rng, std::size_t n, int dim)
{
  const int blobs = 1 + static_cast<int>(rng.below(12));
  std::vector<Point> centres(blobs, Point{ 0.0, 0.0, 0.0 });
  std::vector<double> sigmas(blobs);
  for (int b = 0; b < blobs; ++b)
  {
    for (int a = 0; a < dim; ++a)
    {
      centres[b][a] = rng.uniform();
    }
    sigmas[b] = std::pow(10.0, rng.uniform(-4.0, -1.5));
  }
  std::vector<Point> points(n, Point{ 0.0, 0.0, 0.0 });
  for (Point& p : points)
  {
    if (rng.uniform() < 0.1)
    {
      for (int a = 0; a < dim; ++a)
      {
        p[a] = rng.uniform();
      }
      continue;
    }
    const int b = static_cast<int>(rng.below(static_cast<std::uint64_t>(blobs)));
    for (int a = 0; a < dim; ++a)
    {
      p[a] = centres[b][a] + sigmas[b] * rng.normal();
    }
  }
  return points;
}

std::vector<Point> integerPoints(Rng& rng, std::size_t n, int dim, int m)
{
  std::vector<Point> points(n, Point{ 0.0, 0.0, 0.0 });
  for (Point& p : points)
  {
    for (int a = 0; a < dim; ++a)
    {
      p[a] = static_cast<double>(rng.below(static_cast<std::uint64_t>(m) + 1));
    }
  }
  return points;
}

std::vector<Point> latticePoints(int nx, int ny, int nz, double spacing, double offset)
{
  std::vector<Point> points;
  points.reserve(static_cast<std::size_t>(nx) * ny * std::max(nz, 1));
  for (int z = 0; z < std::max(nz, 1); ++z)
  {
    for (int y = 0; y < ny; ++y)
    {
      for (int x = 0; x < nx; ++x)
      {
        points.push_back(
          Point{ offset + spacing * x, offset + spacing * y, nz > 0 ? offset + spacing * z : 0.0 });
      }
    }
  }
  return points;
}

std::vector<Point> fccPoints(int cells)
{
  std::vector<Point> points;
  const int m = 2 * cells;
  for (int z = 0; z <= m; ++z)
  {
    for (int y = 0; y <= m; ++y)
    {
      for (int x = 0; x <= m; ++x)
      {
        if ((x + y + z) % 2 == 0)
        {
          points.push_back(Point{ double(x), double(y), double(z) });
        }
      }
    }
  }
  return points;
}

std::vector<Point> repeatPoints(const std::vector<Point>& points, int copies, Rng* rng)
{
  std::vector<Point> repeated;
  repeated.reserve(points.size() * static_cast<std::size_t>(copies));
  for (int c = 0; c < copies; ++c)
  {
    repeated.insert(repeated.end(), points.begin(), points.end());
  }
  if (rng)
  {
    rng->shuffle(repeated);
  }
  return repeated;
}

/// One random cloud of the sweep: its shape, size, dimension and scalar type all come from `seed`.
Cloud randomCloud(std::uint64_t seed, std::size_t largest)
{
  static const std::size_t sizes[] = { 0, 1, 2, 3, 4, 5, 6, 8, 10, 13, 16, 20, 32, 50, 64, 100, 128,
    200, 256, 400, 512, 700, 1000, 1500, 2000, 3000 };
  Rng rng(seed);
  std::vector<std::size_t> allowed;
  for (std::size_t n : sizes)
  {
    if (n <= largest)
    {
      allowed.push_back(n);
    }
  }
  const std::size_t n = allowed[rng.below(allowed.size())];
  const int dim = rng.below(2) ? 3 : 2;
  const emst::ScalarType type =
    rng.below(2) ? emst::ScalarType::Float32 : emst::ScalarType::Float64;
  std::vector<Point> points;
  std::string kind;
  switch (rng.below(4))
  {
    case 0:
    {
      static const double scales[] = { 1.0, 1000.0, 1e-3 };
      static const double offsets[] = { 0.0, -5.0, 100.0 };
      const double scale = scales[rng.below(3)];
      const double offset = offsets[rng.below(3)];
      points = uniformPoints(rng, n, dim, scale, offset);
      kind = "uniform(scale " + std::to_string(scale) + ", offset " + std::to_string(offset) + ")";
      break;
    }
    case 1:
    case 2:
      points = clusteredPoints(rng, n, dim);
      kind = "clustered";
      break;
    default:
    {
      // Small integer ranges: ties and exact duplicates everywhere.
      const int m = 2 + static_cast<int>(rng.below(std::max<std::size_t>(3, n / 20)));
      points = integerPoints(rng, n, dim, m);
      kind = "integers in [0," + std::to_string(m) + "]";
      break;
    }
  }
  return makeCloud("random cloud seed " + std::to_string(seed) + " " + kind, dim, type, points);
}

} // namespace emsttest
