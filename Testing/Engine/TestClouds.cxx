// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
#include "TestClouds.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

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

std::vector<Point> permuted(std::vector<Point> points, std::uint64_t seed)
{
  Rng rng(seed);
  rng.shuffle(points);
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

// ---- periodic boxes ---------------------------------------------------------------------------

namespace
{

std::string boxText(const emst::PeriodicBox& b, int dim)
{
  std::string text = " in box";
  for (int a = 0; a < dim; ++a)
  {
    char part[64];
    std::snprintf(part, sizeof part, " %s[%g, +%g)",
      a == 0     ? "x"
        : a == 1 ? "y"
                 : "z",
      b.origin[a], b.size[a]);
    text += b.size[a] > 0.0 ? part : (a == 0 ? " x open" : a == 1 ? " y open" : " z open");
  }
  return text;
}

} // namespace

emst::PeriodicBox periodicBox(double lx, double ly, double lz, double ox, double oy, double oz)
{
  emst::PeriodicBox b;
  b.size[0] = lx;
  b.size[1] = ly;
  b.size[2] = lz;
  b.origin[0] = ox;
  b.origin[1] = oy;
  b.origin[2] = oz;
  return b;
}

Cloud inBox(const std::string& label, int dim, emst::ScalarType type,
  const std::vector<Point>& points, const emst::PeriodicBox& b)
{
  Cloud cloud = makeCloud(label + boxText(b, dim), dim, type, points);
  cloud.box = b;
  return cloud;
}

/// Uniform points inside the box; [0, 1) on the axes that are not periodic.
std::vector<Point> uniformInBox(Rng& rng, std::size_t n, int dim, const emst::PeriodicBox& b)
{
  std::vector<Point> points(n, Point{ 0.0, 0.0, 0.0 });
  for (Point& p : points)
  {
    for (int a = 0; a < dim; ++a)
    {
      p[a] = b.size[a] > 0.0 ? b.origin[a] + b.size[a] * rng.uniform() : rng.uniform();
    }
  }
  return points;
}

/// Gaussian blobs centred on the box's faces, edges and corners, wrapped into the box by hand
/// (fmod), plus a uniform background: groups that only hold together across the faces.
std::vector<Point> blobsOnFaces(Rng& rng, std::size_t n, int dim, const emst::PeriodicBox& b)
{
  std::vector<Point> points = uniformInBox(rng, n / 5, dim, b);
  while (points.size() < n)
  {
    Point centre{ 0.0, 0.0, 0.0 };
    for (int a = 0; a < dim; ++a)
    {
      // Each coordinate of the centre on a face (0) or inside, at random.
      centre[a] = rng.below(2) ? 0.0 : rng.uniform();
    }
    const double sigma = std::pow(10.0, rng.uniform(-3.0, -1.5));
    const std::size_t count = std::min<std::size_t>(n - points.size(), 20 + rng.below(100));
    for (std::size_t k = 0; k < count; ++k)
    {
      Point p{ 0.0, 0.0, 0.0 };
      for (int a = 0; a < dim; ++a)
      {
        const double size = b.size[a] > 0.0 ? b.size[a] : 1.0;
        double x = size * centre[a] + size * sigma * rng.normal();
        if (b.size[a] > 0.0)
        {
          x = std::fmod(x, size);
          x = x < 0.0 ? x + size : x;
          x = x >= size ? 0.0 : x;
        }
        p[a] = b.origin[a] + x;
      }
      points.push_back(p);
    }
  }
  return points;
}

} // namespace emsttest
