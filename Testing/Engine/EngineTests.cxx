// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Engine tests: each body runs on every backend (Cpu always; Cuda when a device is usable, else
// skipped with the reason). The trees are checked bit for bit against the contract reference
// (Reference.h (b)) and by weight against a brute-force double Prim (a).
//
// Naming: tests whose name starts with "Small" use small inputs and few engine calls; the GPU
// check runs them under compute-sanitizer (memcheck, racecheck) with
// --gtest_filter='*.Small*/Cuda'.
#include "TestSupport.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <thread>

using namespace emsttest;
using emst::Backend;
using emst::ScalarType;

namespace
{

class Engine : public BackendTest
{
protected:
  /// Runs the engine on `cloud` and checks it against the references; false on any failure.
  bool check(const Cloud& cloud, const CheckOptions& checkOptions = CheckOptions())
  {
    const auto result = runEngine(cloud, this->options());
    if (!result)
    {
      return false;
    }
    return checkAgainstReferences(cloud, *result, this->backend(), checkOptions);
  }

  /// Runs the engine; the name of the error code it threw ("no error" when it returned).
  std::string errorOf(const emst::PointCloudView& view, const emst::Options& o)
  {
    try
    {
      emst::computeEmst(view, o);
    }
    catch (const emst::Error& e)
    {
      this->lastMessage = e.what();
      return errorCodeName(e.code());
    }
    catch (const std::exception& e)
    {
      return std::string("non-emst exception: ") + e.what();
    }
    return "no error";
  }
  std::string lastMessage;

  /// Checks many random clouds, stopping after a few failing ones (a systematic bug would
  /// otherwise flood the log).
  void sweep(std::uint64_t firstSeed, int clouds, std::size_t largest, bool cycle);

  /// Runs the engine on a cloud with identical points and checks it against the references
  /// (`expectedDuplicates`: -1, not checked) and that each group of copies is joined to its
  /// smallest index.
  void checkDuplicates(const Cloud& cloud, long expectedDuplicates = -1);
};

INSTANTIATE_TEST_SUITE_P(Backends, Engine, testing::ValuesIn(testedBackends()), backendParamName);

void Engine::sweep(std::uint64_t firstSeed, int clouds, std::size_t largest, bool cycle)
{
  int failing = 0;
  for (int c = 0; c < clouds; ++c)
  {
    const Cloud cloud = randomCloud(firstSeed + static_cast<std::uint64_t>(c), largest);
    CheckOptions checkOptions;
    checkOptions.checkCycleProperty = cycle && cloud.count <= 400;
    if (!this->check(cloud, checkOptions) && ++failing >= 5)
    {
      ADD_FAILURE() << "stopping the sweep after 5 failing clouds (" << c + 1 << " of " << clouds
                    << " run)";
      return;
    }
  }
}

} // namespace

// ---- random clouds ----------------------------------------------------------------------------

TEST_P(Engine, RandomClouds)
{
  // 240 clouds: uniform, clustered and small-integer clouds, n from 0 to 3000, 2D and 3D,
  // float32 and float64, all from fixed seeds.
  sweep(1000, 240, 3000, false);
}

TEST_P(Engine, SmallRandomClouds)
{
  // Few small clouds, with the cycle property checked too (the sanitizer subset).
  sweep(500000, 16, 400, true);
}

TEST_P(Engine, RandomCloudsCycleProperty)
{
  sweep(700000, 60, 400, true);
}

TEST_P(Engine, SoakRandomClouds)
{
  // The sweep's kinds of cloud from seeds of their own (3,000,000 on, or EMST_SOAK_SEED's),
  // 48 of them, or as many as EMST_SOAK_CLOUDS says: the GPU check's long sweep of the CUDA
  // backend under its tuning knobs (Testing/gpu_check.sh, step soak).
  const char* clouds = std::getenv("EMST_SOAK_CLOUDS");
  const char* seed = std::getenv("EMST_SOAK_SEED");
  sweep(
    seed ? std::strtoull(seed, nullptr, 10) : 3000000, clouds ? std::atoi(clouds) : 48, 3000, true);
}

TEST_P(Engine, MediumClouds)
{
  // Larger clouds (more Boruvka rounds, deeper cell hierarchies), still small enough for the
  // O(n^2) references: dense blobs (sigma down to 1e-6, where float32 resolution makes shifted
  // points collide), two far-apart clusters, and a uniform/integer mix.
  Rng rng(809);
  std::vector<Cloud> clouds;
  {
    std::vector<Point> blobs;
    for (int b = 0; b < 12; ++b)
    {
      const Point centre{ rng.uniform(), rng.uniform(), rng.uniform() };
      const double sigma = std::pow(10.0, rng.uniform(-6.0, -2.0));
      for (int k = 0; k < 800; ++k)
      {
        blobs.push_back(Point{ centre[0] + sigma * rng.normal(), centre[1] + sigma * rng.normal(),
          centre[2] + sigma * rng.normal() });
      }
    }
    const auto background = uniformPoints(rng, 1500, 3);
    blobs.insert(blobs.end(), background.begin(), background.end());
    rng.shuffle(blobs);
    clouds.push_back(makeCloud("dense blobs (sigma 1e-6..1e-2) + background", 3, F32, blobs));
    clouds.push_back(makeCloud("dense blobs (sigma 1e-6..1e-2) + background", 3, F64, blobs));
  }
  {
    std::vector<Point> pair;
    for (int k = 0; k < 8000; ++k)
    {
      const double shift = k % 2 ? 1e6 : 0.0;
      pair.push_back(Point{ shift + rng.normal(), rng.normal(), shift * 0.5 + rng.normal() });
    }
    clouds.push_back(makeCloud("two clusters 1.1e6 apart", 3, F64, pair));
    clouds.push_back(makeCloud("two clusters 1.1e6 apart", 2, F32, pair));
  }
  clouds.push_back(makeCloud("uniform 2D", 2, F32, uniformPoints(rng, 12000, 2)));
  clouds.push_back(makeCloud("clustered 3D", 3, F64, clusteredPoints(rng, 10000, 3)));
  clouds.push_back(makeCloud("integers in [0,20]^3", 3, F32, integerPoints(rng, 8000, 3, 20)));
  clouds.push_back(makeCloud("integers in [0,100]^2", 2, F64, integerPoints(rng, 8000, 2, 100)));
  for (const Cloud& cloud : clouds)
  {
    // Near 1.1e6 the float32 frame resolves only ~0.06-0.125 against neighbour distances of
    // ~0.1-1: a tree chosen by float32 distances was 7e-6 too long here. The exact keys give
    // the double-precision EMST (checked to 1e-12).
    EXPECT_TRUE(this->check(cloud));
  }
}

// ---- ties: lattices -----------------------------------------------------------------------------

namespace
{
void expectAllLengths(const emst::Result& result, double length, const std::string& label)
{
  for (const emst::Edge& e : result.edges)
  {
    if (e.length != length)
    {
      ADD_FAILURE() << label << ": edge (" << e.i << ", " << e.j << ") has length " << e.length
                    << ", every MST edge should have length " << length;
      return;
    }
  }
}
} // namespace

TEST_P(Engine, Lattice2D)
{
  const auto ordered = latticePoints(100, 80, 0);
  for (const Cloud& cloud : { makeCloud("2D lattice 100x80, ordered", 2, F32, ordered),
         makeCloud("2D lattice 100x80, shuffled", 2, F64, permuted(ordered, 7)) })
  {
    const auto result = runEngine(cloud, this->options());
    ASSERT_TRUE(result);
    checkAgainstReferences(cloud, *result, this->backend());
    expectAllLengths(*result, 1.0, cloud.label);
    EXPECT_EQ(result->totalWeight, static_cast<double>(cloud.count - 1)) << cloud.label;
  }
}

TEST_P(Engine, Lattice3D)
{
  const auto ordered = latticePoints(20, 20, 20);
  for (const Cloud& cloud :
    { makeCloud("3D lattice 20x20x20, ordered", 3, F32, ordered),
      makeCloud("3D lattice 20x20x20, shuffled", 3, F64, permuted(ordered, 11)),
      makeCloud("3D lattice 32x16x8, shuffled", 3, F32, permuted(latticePoints(32, 16, 8), 12)) })
  {
    const auto result = runEngine(cloud, this->options());
    ASSERT_TRUE(result);
    checkAgainstReferences(cloud, *result, this->backend());
    expectAllLengths(*result, 1.0, cloud.label);
    EXPECT_EQ(result->totalWeight, static_cast<double>(cloud.count - 1)) << cloud.label;
  }
}

TEST_P(Engine, LatticeScaledAndOffset)
{
  // Spacing 0.1 is inexact in binary: the float32 keys of "equal" edges differ in their last
  // bits, and the contract reference follows exactly those bits.
  for (const Cloud& cloud : { makeCloud("3D lattice 16^3 spacing 0.1 offset 1000, shuffled", 3, F64,
                                permuted(latticePoints(16, 16, 16, 0.1, 1000.0), 13)),
         makeCloud("3D lattice 16^3 spacing 0.1 offset 1000, shuffled", 3, F32,
           permuted(latticePoints(16, 16, 16, 0.1, 1000.0), 14)),
         makeCloud("2D lattice 60x60 spacing 0.3 offset -77, ordered", 2, F64,
           latticePoints(60, 60, 0, 0.3, -77.0)) })
  {
    EXPECT_TRUE(this->check(cloud));
  }
}

TEST_P(Engine, FaceCentredCubic)
{
  const auto ordered = fccPoints(8);
  const double sqrt2 = std::sqrt(2.0);
  for (const Cloud& cloud : { makeCloud("FCC lattice 8 cells, ordered", 3, F32, ordered),
         makeCloud("FCC lattice 8 cells, shuffled", 3, F64, permuted(ordered, 17)),
         makeCloud("FCC lattice 10 cells, shuffled", 3, F32, permuted(fccPoints(10), 18)) })
  {
    const auto result = runEngine(cloud, this->options());
    ASSERT_TRUE(result);
    checkAgainstReferences(cloud, *result, this->backend());
    expectAllLengths(*result, sqrt2, cloud.label);
  }
}

TEST_P(Engine, DiagonalLattices)
{
  // Nearest neighbours exactly along the diagonals, where direction cones meet: body-centred
  // cubic (8 neighbours along (+-1,+-1,+-1) at sqrt(3)), the 2D checkerboard (4 along (+-1,+-1)),
  // and a triangular lattice (6 neighbours 60 degrees apart; inexact in binary, so the float32
  // keys decide, exactly as the contract reference does).
  std::vector<Point> bcc, checkerboard, triangular;
  for (int z = 0; z <= 20; ++z)
  {
    for (int y = 0; y <= 20; ++y)
    {
      for (int x = 0; x <= 20; ++x)
      {
        if (x % 2 == y % 2 && y % 2 == z % 2)
        {
          bcc.push_back(Point{ double(x), double(y), double(z) });
        }
      }
    }
  }
  for (int y = 0; y < 80; ++y)
  {
    for (int x = 0; x < 80; ++x)
    {
      if ((x + y) % 2 == 0)
      {
        checkerboard.push_back(Point{ double(x), double(y), 0.0 });
      }
    }
  }
  for (int j = 0; j < 60; ++j)
  {
    for (int i = 0; i < 60; ++i)
    {
      triangular.push_back(Point{ i + 0.5 * j, j * std::sqrt(0.75), 0.0 });
    }
  }
  const double sqrt3 = std::sqrt(3.0);
  const double sqrt2 = std::sqrt(2.0);
  struct Case
  {
    Cloud cloud;
    double edgeLength; // every MST edge, or 0 when not all equal
  };
  const Case cases[] = {
    { makeCloud("BCC lattice in [0,20]^3, ordered", 3, F32, bcc), sqrt3 },
    { makeCloud("BCC lattice in [0,20]^3, shuffled", 3, F64, permuted(bcc, 131)), sqrt3 },
    { makeCloud("2D checkerboard 80x80, shuffled", 2, F32, permuted(checkerboard, 137)), sqrt2 },
    { makeCloud("2D checkerboard in 3D (z = 0), ordered", 3, F64, checkerboard), sqrt2 },
    { makeCloud("triangular lattice 60x60, shuffled", 2, F64, permuted(triangular, 139)), 0.0 },
    { makeCloud("triangular lattice 60x60, ordered", 2, F32, triangular), 0.0 },
  };
  for (const Case& c : cases)
  {
    const auto result = runEngine(c.cloud, this->options());
    ASSERT_TRUE(result);
    checkAgainstReferences(c.cloud, *result, this->backend());
    if (c.edgeLength > 0.0)
    {
      expectAllLengths(*result, c.edgeLength, c.cloud.label);
    }
  }
}

TEST_P(Engine, SmallLattices)
{
  for (const Cloud& cloud :
    { makeCloud("3D lattice 5x5x5, shuffled", 3, F32, permuted(latticePoints(5, 5, 5), 19)),
      makeCloud("2D lattice 7x9, ordered", 2, F64, latticePoints(7, 9, 0)),
      makeCloud("FCC lattice 2 cells, shuffled", 3, F64, permuted(fccPoints(2), 20)) })
  {
    EXPECT_TRUE(this->check(cloud));
  }
}

namespace
{
/// Appends a chain of collinear points along x at height y, spacings[k] apart.
void appendChain(std::vector<Point>& points, double y, const std::vector<double>& spacings)
{
  double x = 0.0;
  points.push_back(Point{ x, y, 0.0 });
  for (double spacing : spacings)
  {
    x += spacing;
    points.push_back(Point{ x, y, 0.0 });
  }
}
} // namespace

TEST_P(Engine, TiedRunsOfEveryLength)
{
  // Runs of equal edge lengths on both sides of the output's short-run limit (kShortRun, 8:
  // sorted in place by one thread) and far beyond it (gathered and sorted): chains of collinear
  // points at spacings exact in binary, one spacing per run (two chains share a spacing, so that
  // a run interleaves their pairs), the chains apart by distinct integer gaps; the input order
  // shuffled, so that every run's pairs come out of the length sort unordered.
  const std::vector<std::vector<int>> runs = { { 2 }, { 3 }, { 5 }, { 7 }, { 8 }, { 4, 4 }, { 9 },
    { 4, 5 }, { 10 }, { 16, 15 }, { 33 }, { 64 }, { 200 } };
  std::vector<Point> chains;
  double y = 0.0;
  int chain = 0;
  for (std::size_t r = 0; r < runs.size(); ++r)
  {
    double const spacing = 1.0 + static_cast<double>(r + 1) / 64.0;
    for (int edges : runs[r])
    {
      y += 100.0 + chain++;
      appendChain(chains, y, std::vector<double>(edges, spacing));
    }
  }
  for (int dim : { 2, 3 })
  {
    for (const Cloud& cloud :
      { makeCloud(std::to_string(dim) + "D chains, shuffled", dim, F32, permuted(chains, 21)),
        makeCloud(std::to_string(dim) + "D chains, shuffled", dim, F64, permuted(chains, 22)) })
    {
      EXPECT_TRUE(this->check(cloud));
    }
  }
}

TEST_P(Engine, NearlyEqualLengths)
{
  // Distinct lengths a few ulps apart, which any coarser sort key than the lengths' own bits
  // would tie, over a range of twelve orders of magnitude: chains of spacings 2^c (1 + k 2^-40)
  // (distinct, exact in double, in a shuffled order along each chain) of 50, 8 and 6 edges, the
  // chains a million apart, and one pair a micron apart. (Measured and not kept: the output
  // sorted by 32-bit keys of the lengths, the runs of one key ordered afterwards.)
  auto spacings = [](int octave, int count)
  {
    std::vector<double> spacing;
    for (int k = 0; k < count; ++k)
    {
      int const step = (k * 37) % count == 0 ? count : (k * 37) % count; // shuffled, distinct
      spacing.push_back(std::ldexp(1.0 + std::ldexp(static_cast<double>(step), -40), octave));
    }
    return spacing;
  };
  std::vector<Point> points;
  appendChain(points, 0.0, spacings(0, 50));
  appendChain(points, 1.0e6, spacings(1, 8));
  appendChain(points, 2.5e6, spacings(2, 6));
  points.push_back(Point{ 0.0, -1.0e-6, 0.0 });
  for (int dim : { 2, 3 })
  {
    EXPECT_TRUE(this->check(makeCloud(
      std::to_string(dim) + "D chains of nearly equal spacings", dim, F64, permuted(points, 23))));
  }
}

TEST_P(Engine, ClustersFinerThanTheSortedCodeBits)
{
  // The set-up's radix sort orders the top 48 bits of the points' Morton codes (kCodeRadixBits:
  // 16 levels of cells in 3D, 24 in 2D), and the runs of codes equal in them are ordered
  // afterwards (base/PairSort.h: runs of up to 8 in place, longer ones gathered): clusters of 2
  // to 8 points and of 9, 30 and 300, each inside one cell of that level and spread over many
  // lattice cells below it (the box is [0, 1]^dim, so cells are aligned to powers of two; in 2D
  // near the origin, where float frame coordinates resolve the 31-bit lattice), each with a
  // copy of one of its points, the input order shuffled. A run left unordered gives wrong
  // leaves (longer than a leaf holds) or copies that the duplicates phase does not find.
  for (int dim : { 2, 3 })
  {
    int const level = dim == 3 ? 16 : 24;
    double const cell = std::ldexp(1.0, -level);
    Rng rng(24 + static_cast<std::uint64_t>(dim));
    std::vector<Point> points = { Point{ 0.0, 0.0, 0.0 }, Point{ 1.0, 1.0, dim == 3 ? 1.0 : 0.0 } };
    int cluster = 0;
    for (int size : { 2, 3, 5, 8, 9, 30, 300 })
    {
      ++cluster;
      // A cell's middle half: [corner + cell / 4, corner + 3 cell / 4) on every axis.
      double const corner = dim == 3 ? std::ldexp(cluster, -4) : std::ldexp(cluster, -20);
      for (const Point& offset : uniformPoints(rng, static_cast<std::size_t>(size), dim, cell / 2))
      {
        points.push_back(Point{ corner + cell / 4 + offset[0], corner + cell / 4 + offset[1],
          dim == 3 ? corner + cell / 4 + offset[2] : 0.0 });
      }
      points.push_back(points.back());
    }
    CheckOptions options;
    options.expectedDuplicates = cluster;
    EXPECT_TRUE(this->check(makeCloud(std::to_string(dim) + "D clusters finer than the sorted bits",
                              dim, F64, permuted(points, 25)),
      options));
  }
}

// ---- duplicates ----------------------------------------------------------------------------

namespace
{
/// Each group of identical points must be joined by zero-length edges to its smallest index
/// (the unique MST under (d2, min, max)).
void expectDuplicatesJoinedToSmallestIndex(const Cloud& cloud, const emst::Result& result)
{
  std::map<std::vector<double>, std::uint32_t> smallest;
  for (std::size_t k = 0; k < cloud.count; ++k)
  {
    std::vector<double> key;
    for (int a = 0; a < cloud.dimension; ++a)
    {
      key.push_back(cloud.at(k, a));
    }
    smallest.emplace(key, static_cast<std::uint32_t>(k)); // keeps the first (smallest) index
  }
  const std::size_t extra = cloud.count - smallest.size();
  EXPECT_EQ(zeroLengthEdges(result.edges), extra) << cloud.label;
  EXPECT_EQ(result.stats.duplicatePoints, extra) << cloud.label << ": Stats::duplicatePoints";
  for (const emst::Edge& e : result.edges)
  {
    if (e.length != 0.0)
    {
      continue;
    }
    std::vector<double> key;
    for (int a = 0; a < cloud.dimension; ++a)
    {
      key.push_back(cloud.at(e.j, a));
    }
    const auto group = smallest.find(key);
    ASSERT_NE(group, smallest.end());
    if (e.i != group->second)
    {
      ADD_FAILURE() << cloud.label << ": zero-length edge (" << e.i << ", " << e.j
                    << ") should join " << e.j << " to " << group->second
                    << ", the smallest index of its group of identical points";
      return;
    }
  }
}

void Engine::checkDuplicates(const Cloud& cloud, long expectedDuplicates)
{
  const auto result = runEngine(cloud, this->options());
  ASSERT_TRUE(result);
  CheckOptions checkOptions;
  checkOptions.expectedDuplicates = expectedDuplicates;
  checkAgainstReferences(cloud, *result, this->backend(), checkOptions);
  expectDuplicatesJoinedToSmallestIndex(cloud, *result);
}
} // namespace

TEST_P(Engine, ManyCopiesOfOnePoint)
{
  for (const Cloud& cloud : { makeCloud("2000 copies of one point", 3, F32,
                                std::vector<Point>(2000, Point{ 0.3, -2.0, 7.0 })),
         makeCloud("2000 copies of one point", 2, F64,
           std::vector<Point>(2000, Point{ 1e7, -1e-7, 0.0 })) })
  {
    const auto result = runEngine(cloud, this->options());
    ASSERT_TRUE(result);
    CheckOptions checkOptions;
    checkOptions.expectedDuplicates = 1999;
    checkAgainstReferences(cloud, *result, this->backend(), checkOptions);
    ASSERT_EQ(result->edges.size(), 1999u) << cloud.label;
    for (std::uint32_t k = 0; k < 1999; ++k)
    {
      const emst::Edge& e = result->edges[k];
      ASSERT_TRUE(e.i == 0 && e.j == k + 1 && e.length == 0.0)
        << cloud.label << ": edge " << k << " is (" << e.i << ", " << e.j << ", " << e.length
        << "), expected (0, " << k + 1 << ", 0)";
    }
    EXPECT_EQ(result->totalWeight, 0.0);
  }
  // 100000 copies: long chains of zero-length merges; the expected list is known without a
  // reference.
  const Cloud many = makeCloud(
    "100000 copies of one point", 3, F64, std::vector<Point>(100000, Point{ -4.0, 8.5, 1e-3 }));
  const auto result = runEngine(many, this->options());
  ASSERT_TRUE(result);
  ASSERT_EQ(result->edges.size(), 99999u);
  EXPECT_EQ(result->stats.duplicatePoints, 99999u);
  for (std::uint32_t k = 0; k < 99999; ++k)
  {
    const emst::Edge& e = result->edges[k];
    ASSERT_TRUE(e.i == 0 && e.j == k + 1 && e.length == 0.0)
      << many.label << ": edge " << k << " is (" << e.i << ", " << e.j << ", " << e.length
      << "), expected (0, " << k + 1 << ", 0)";
  }
}

TEST_P(Engine, RepeatedPointsShuffled)
{
  Rng rng(23);
  for (int dim : { 2, 3 })
  {
    const auto distinct = uniformPoints(rng, 100, dim);
    const auto points = repeatPoints(distinct, 10, &rng);
    for (ScalarType type : { F32, F64 })
    {
      this->checkDuplicates(makeCloud("100 points x 10 copies, shuffled", dim, type, points), 900);
    }
  }
}

TEST_P(Engine, TwoGroupsOfCopies)
{
  // 1000 copies of A and 1000 of B, interleaved at random: 1998 zero-length edges to each group's
  // smallest index and one A-B edge, which the order (d2, min, max) makes unique.
  Rng rng(149);
  std::vector<Point> points(1000, Point{ 0.25, 0.5, -1.0 });
  points.insert(points.end(), 1000, Point{ 3.25, -0.5, 2.0 });
  rng.shuffle(points);
  for (int dim : { 2, 3 })
  {
    this->checkDuplicates(makeCloud("two groups of 1000 copies, shuffled", dim, F32, points), 1998);
  }
}

TEST_P(Engine, DuplicatedLattice)
{
  // Ties in distance and duplicates together: every lattice point twice, shuffled.
  Rng rng(29);
  this->checkDuplicates(makeCloud("3D lattice 10^3, every point twice, shuffled", 3, F32,
                          repeatPoints(latticePoints(10, 10, 10), 2, &rng)),
    1000);
}

TEST_P(Engine, SmallDuplicates)
{
  Rng rng(31);
  const Cloud copies =
    makeCloud("20 copies of one point", 3, F64, std::vector<Point>(20, Point{ 1, 2, 3 }));
  const Cloud groups = makeCloud(
    "10 points x 5 copies, shuffled", 2, F32, repeatPoints(uniformPoints(rng, 10, 2), 5, &rng));
  for (const Cloud* cloud : { &copies, &groups })
  {
    this->checkDuplicates(*cloud);
  }
}

// ---- degenerate extents ---------------------------------------------------------------------

TEST_P(Engine, DegenerateCollinear)
{
  Rng rng(37);
  std::vector<Point> exact;
  for (int k = 0; k < 1000; ++k)
  {
    const double t = static_cast<double>(rng.below(5000));
    exact.push_back(Point{ t, 2 * t, 3 * t }); // with some exact duplicates
  }
  std::vector<Point> slanted;
  const Point direction{ 0.48, -0.6, 0.64 };
  for (int k = 0; k < 1000; ++k)
  {
    const double t = rng.uniform(-50.0, 50.0);
    slanted.push_back(Point{ 3 + t * direction[0], 4 + t * direction[1], 5 + t * direction[2] });
  }
  std::vector<Point> alongZ, alongY;
  for (int k = 0; k < 800; ++k)
  {
    alongZ.push_back(Point{ 2.5, -1.0, rng.uniform() });
    alongY.push_back(Point{ 0.0, rng.uniform(-1e3, 1e3), 0.0 });
  }
  for (const Cloud& cloud : { makeCloud("3D integer points on the line t*(1,2,3)", 3, F32, exact),
         makeCloud("3D integer points on the line t*(1,2,3)", 3, F64, exact),
         makeCloud("3D points on a slanted line", 3, F64, slanted),
         makeCloud("3D points on a line along z", 3, F32, alongZ),
         makeCloud("3D points on a line along y", 3, F64, alongY),
         makeCloud("2D points on a line along y", 2, F32, alongY) })
  {
    EXPECT_TRUE(this->check(cloud));
  }
}

TEST_P(Engine, DegenerateCoplanar)
{
  Rng rng(41);
  std::vector<Point> flat, tilted, integerPlane;
  for (int k = 0; k < 1500; ++k)
  {
    flat.push_back(Point{ rng.uniform(), rng.uniform(), 5.0 });
    const double u = rng.uniform(-1, 1), v = rng.uniform(-1, 1);
    tilted.push_back(Point{ u, v, 0.25 * u - 0.5 * v + 2.0 });
    const double x = static_cast<double>(rng.below(31));
    const double y = static_cast<double>(rng.below(31 - static_cast<std::uint64_t>(x)));
    integerPlane.push_back(Point{ x, y, 30.0 - x - y });
  }
  for (const Cloud& cloud : { makeCloud("3D points on the plane z = 5", 3, F32, flat),
         makeCloud("3D points on a tilted plane", 3, F64, tilted),
         makeCloud("3D integer points on x+y+z = 30", 3, F32, integerPlane) })
  {
    EXPECT_TRUE(this->check(cloud));
  }
}

TEST_P(Engine, GeometricGaps)
{
  // x_k = r^k on a line: every Boruvka round only halves the number of components along a long
  // chain. The MST is the chain of consecutive points.
  struct Case
  {
    double ratio;
    int count;
  };
  for (const Case& c : { Case{ 1.1, 300 }, Case{ 1.01, 3000 } })
  {
    std::vector<Point> increasing;
    for (int k = 0; k < c.count; ++k)
    {
      increasing.push_back(Point{ std::pow(c.ratio, k), 0.0, 0.0 });
    }
    std::vector<Point> decreasing(increasing.rbegin(), increasing.rend());
    const std::string name = "x_k = " + std::to_string(c.ratio) + "^k";
    for (const Cloud& cloud : { makeCloud(name + ", increasing", 3, F64, increasing),
           makeCloud(name + ", decreasing", 2, F32, decreasing),
           makeCloud(name + ", shuffled", 3, F32, permuted(increasing, 43)) })
    {
      const auto result = runEngine(cloud, this->options());
      ASSERT_TRUE(result);
      checkAgainstReferences(cloud, *result, this->backend());
      // Consecutive positions only.
      std::vector<std::pair<double, std::uint32_t>> order;
      for (std::size_t k = 0; k < cloud.count; ++k)
      {
        order.emplace_back(cloud.at(k, 0), static_cast<std::uint32_t>(k));
      }
      std::sort(order.begin(), order.end());
      std::vector<std::pair<std::uint32_t, std::uint32_t>> chain, got;
      for (std::size_t k = 1; k < order.size(); ++k)
      {
        chain.emplace_back(std::min(order[k - 1].second, order[k].second),
          std::max(order[k - 1].second, order[k].second));
      }
      for (const emst::Edge& e : result->edges)
      {
        got.emplace_back(e.i, e.j);
      }
      std::sort(chain.begin(), chain.end());
      std::sort(got.begin(), got.end());
      EXPECT_TRUE(chain == got) << cloud.label
                                << ": the tree is not the chain of consecutive points";
    }
  }
}

// ---- precision: offsets and huge ranges -------------------------------------------------------

TEST_P(Engine, LargeOffsetFloat64)
{
  // Unshifted, 1e7 + [0,1) in float32 would collapse onto a grid of spacing 1: the shift by the
  // lower corner is what keeps these trees right.
  Rng rng(47);
  for (double offset : { 1e7, -1e7 })
  {
    for (int dim : { 2, 3 })
    {
      const Cloud cloud = makeCloud("offset " + std::to_string(offset) + " + uniform [0,1)", dim,
        F64, uniformPoints(rng, 2000, dim, 1.0, offset));
      EXPECT_TRUE(this->check(cloud));
    }
  }
}

TEST_P(Engine, LargeOffsetFloat32)
{
  // float32 input near 1e7 has spacing 1: integer-like points, many ties and duplicates.
  Rng rng(53);
  for (int dim : { 2, 3 })
  {
    const Cloud cloud =
      makeCloud("float32 1e7 + uniform [0,1e4)", dim, F32, uniformPoints(rng, 2000, dim, 1e4, 1e7));
    EXPECT_TRUE(this->check(cloud));
    const Cloud fine =
      makeCloud("float32 1e7 + uniform [0,30)", dim, F32, uniformPoints(rng, 2000, dim, 30.0, 1e7));
    EXPECT_TRUE(this->check(fine));
  }
}

namespace
{
std::vector<Point> logUniformPoints(
  Rng& rng, std::size_t n, int dim, double lowExponent, double highExponent, bool signs)
{
  std::vector<Point> points(n, Point{ 0, 0, 0 });
  for (Point& p : points)
  {
    for (int a = 0; a < dim; ++a)
    {
      p[a] = std::pow(10.0, rng.uniform(lowExponent, highExponent));
      if (signs && rng.below(2))
      {
        p[a] = -p[a];
      }
    }
  }
  return points;
}
} // namespace

TEST_P(Engine, HugeCoordinateRange)
{
  // Magnitudes from 1e-3 to 1e30 (signed: in the float32 frame the small coordinates collapse,
  // d2 = 0 between distinct points). Without the power-of-two frame, squared float32 distances
  // of the longest edges would overflow to +inf. The exact keys still tell every pair apart: the
  // tree is the double-precision EMST.
  Rng rng(59);
  for (int dim : { 2, 3 })
  {
    for (bool signs : { false, true })
    {
      const auto points = logUniformPoints(rng, 1000, dim, -3.0, 30.0, signs);
      const std::string name =
        std::string("log-uniform magnitudes 1e-3..1e30") + (signs ? ", signed" : "");
      EXPECT_TRUE(this->check(makeCloud(name, dim, F64, points)));
      EXPECT_TRUE(this->check(makeCloud(name, dim, F32, points)));
    }
  }
}

TEST_P(Engine, TinyCoordinateRange)
{
  // Extents of 1e-300 and 1e-310 (subnormal): the frame's scale 2^(62 - ilogb(extent)) would
  // overflow double; it is capped, and the float32 frame then holds tiny or zero distances.
  // The exact keys decide alone: still the double-precision EMST.
  Rng rng(67);
  for (double extent : { 1e-300, 1e-310 })
  {
    for (int dim : { 2, 3 })
    {
      std::vector<Point> points(300, Point{ 0, 0, 0 });
      for (Point& p : points)
      {
        for (int a = 0; a < dim; ++a)
        {
          p[a] = rng.uniform() * extent;
        }
      }
      EXPECT_TRUE(this->check(
        makeCloud("uniform in [0, " + std::to_string(extent) + ")^d", dim, F64, points)));
    }
  }
}

TEST_P(Engine, WideCoordinateRange)
{
  // Magnitudes from 1e-3 to 1e18, positive: the float32 frame is coarse near 0, the keys exact.
  Rng rng(61);
  for (int dim : { 2, 3 })
  {
    const auto points = logUniformPoints(rng, 1000, dim, -3.0, 18.0, false);
    EXPECT_TRUE(this->check(makeCloud("log-uniform magnitudes 1e-3..1e18", dim, F64, points)));
    EXPECT_TRUE(this->check(makeCloud("log-uniform magnitudes 1e-3..1e18", dim, F32, points)));
  }
}

TEST_P(Engine, RangeOverflowingDoubleIsRejected)
{
  // hi - lo = 2e308 is not a double: no frame exists. Expected: Error(InvalidInput), no crash.
  const Cloud cloud = makeCloud("coordinates -1e308 and 1e308", 2, F64,
    { Point{ -1e308, 0, 0 }, Point{ 1e308, 1, 0 }, Point{ 0, 2, 0 } });
  EXPECT_EQ(this->errorOf(cloud.view(), this->options()), "InvalidInput") << cloud.label;
  EXPECT_NE(this->lastMessage.find("range"), std::string::npos) << this->lastMessage;
}

TEST_P(Engine, SmallCpuThreadCountsOutsideTheRangeAreRejected)
{
  // libgomp crashes creating 100000 threads: the engine refuses absurd counts before OpenMP
  // sees them, on every backend (an invalid option is invalid wherever it would be used).
  Rng rng(79);
  const Cloud cloud = makeCloud("100 uniform points", 3, F32, uniformPoints(rng, 100, 3));
  for (int threads : { -1, -1000, emst::kMaxCpuThreads + 1, 100000 })
  {
    emst::Options o = this->options();
    o.cpuThreads = threads;
    EXPECT_EQ(this->errorOf(cloud.view(), o), "InvalidInput") << "cpuThreads " << threads;
    EXPECT_NE(this->lastMessage.find("cpuThreads"), std::string::npos) << this->lastMessage;
    EXPECT_NE(this->lastMessage.find(std::to_string(threads)), std::string::npos)
      << this->lastMessage;
  }
  for (int threads : { 0, 1, 3 })
  {
    emst::Options o = this->options();
    o.cpuThreads = threads;
    const auto result = runEngine(cloud, o);
    ASSERT_TRUE(result) << "cpuThreads " << threads;
    EXPECT_EQ(result->edges.size(), 99u) << "cpuThreads " << threads;
  }
}

// ---- lengths at the ends of the double range (Emst.h: scaled before squaring) -------------------

TEST_P(Engine, SmallLineLengthsExactAtAnyScale)
{
  // On a line the length is |a - b| exactly (sqrt of a correctly rounded square returns the
  // number), at any scale: unscaled squares would overflow (1e200: inf lengths, a NaN total) or
  // underflow (1e-200: zero lengths; 1e-160: lengths 0.4 % off).
  Rng rng(71);
  for (double scale : { 1e200, 1e-160, 1e-200, 1e-300, 1e-315 })
  {
    for (int dim : { 2, 3 })
    {
      std::vector<Point> points{ Point{ 0, 0, 0 }, Point{ 1 * scale, 0, 0 },
        Point{ 3 * scale, 0, 0 } };
      for (int k = 0; k < 40; ++k)
      {
        points.push_back(Point{ rng.uniform() * 8 * scale, 0, 0 });
      }
      const Cloud cloud = makeCloud(
        "points on a line, scale " + std::to_string(scale) + ", " + std::to_string(dim) + "D", dim,
        F64, points);
      const auto result = runEngine(cloud, this->options());
      ASSERT_TRUE(result) << cloud.label;
      EXPECT_TRUE(this->check(cloud)) << cloud.label;
      for (const emst::Edge& e : result->edges)
      {
        const double expected = std::fabs(points[e.i][0] - points[e.j][0]);
        ASSERT_EQ(e.length, expected) << cloud.label << ": edge " << e.i << "-" << e.j;
        ASSERT_TRUE(scale < 1e-300 || e.length > 0.0 || expected == 0.0) << cloud.label;
      }
      EXPECT_TRUE(std::isfinite(result->totalWeight)) << cloud.label;
      EXPECT_EQ(result->totalWeight, compensatedSum(result->edges)) << cloud.label;
    }
  }
}

TEST_P(Engine, SmallLengthsScaleByPowersOfTwo)
{
  // Multiplying every coordinate by 2^k is exact for coordinates in [1, 2) and |k| <= 1000, and
  // so is, for the true lengths, the factor 2^k: the engine must give the same edges, each length
  // and the total times 2^k bit for bit. 2^+-600 already squares past the double range.
  Rng rng(73);
  for (int dim : { 2, 3 })
  {
    std::vector<Point> base(200, Point{ 0, 0, 0 });
    for (Point& p : base)
    {
      for (int a = 0; a < dim; ++a)
      {
        p[a] = 1.0 + rng.uniform();
      }
    }
    const auto reference =
      runEngine(makeCloud("uniform in [1, 2)^d", dim, F64, base), this->options());
    ASSERT_TRUE(reference);
    for (int k : { 600, 1000, -600, -1000 })
    {
      std::vector<Point> scaled = base;
      for (Point& p : scaled)
      {
        for (int a = 0; a < dim; ++a)
        {
          p[a] = std::ldexp(p[a], k);
        }
      }
      const Cloud cloud =
        makeCloud("uniform in [1, 2)^d times 2^" + std::to_string(k), dim, F64, scaled);
      const auto result = runEngine(cloud, this->options());
      ASSERT_TRUE(result) << cloud.label;
      ASSERT_EQ(result->edges.size(), reference->edges.size()) << cloud.label;
      for (std::size_t e = 0; e < result->edges.size(); ++e)
      {
        const emst::Edge& got = result->edges[e];
        const emst::Edge& want = reference->edges[e];
        ASSERT_TRUE(got.i == want.i && got.j == want.j) << cloud.label << ": edge " << e;
        ASSERT_EQ(got.length, std::ldexp(want.length, k)) << cloud.label << ": edge " << e;
      }
      EXPECT_EQ(result->totalWeight, std::ldexp(reference->totalWeight, k)) << cloud.label;
      EXPECT_TRUE(this->check(cloud)) << cloud.label;
    }
  }
}

TEST_P(Engine, SmallLengthAboveDoubleMaxIsInfinite)
{
  // 1.5e308 per axis is a valid box, but the diagonal (2.1e308) is not a double: +inf with a
  // message, and the total +inf, never NaN. Two finite edges whose sum overflows: +inf too.
  const Cloud diagonal = makeCloud(
    "two points 2.1e308 apart", 2, F64, { Point{ 0, 0, 0 }, Point{ 1.5e308, 1.5e308, 0 } });
  auto result = runEngine(diagonal, this->options());
  ASSERT_TRUE(result);
  ASSERT_EQ(result->edges.size(), 1u);
  EXPECT_TRUE(std::isinf(result->edges[0].length) && result->edges[0].length > 0);
  EXPECT_TRUE(std::isinf(result->totalWeight) && result->totalWeight > 0) << result->totalWeight;
  const auto mentions = [](const emst::Result& r, const char* word)
  {
    return std::any_of(r.messages.begin(), r.messages.end(),
      [word](const std::string& m) { return m.find(word) != std::string::npos; });
  };
  EXPECT_TRUE(mentions(*result, "+inf")) << "no message about the infinite length";

  const Cloud corner = makeCloud("an L of two 1.5e308 edges", 2, F64,
    { Point{ 0, 0, 0 }, Point{ 1.5e308, 0, 0 }, Point{ 1.5e308, 1.5e308, 0 } });
  result = runEngine(corner, this->options());
  ASSERT_TRUE(result);
  ASSERT_EQ(result->edges.size(), 2u);
  EXPECT_EQ(result->edges[0].length, 1.5e308);
  EXPECT_EQ(result->edges[1].length, 1.5e308);
  EXPECT_TRUE(std::isinf(result->totalWeight) && result->totalWeight > 0) << result->totalWeight;
  EXPECT_TRUE(mentions(*result, "total length exceeds")) << "no message about the total";
}

// ---- tiny inputs --------------------------------------------------------------------------------

TEST_P(Engine, SmallCounts)
{
  for (int dim : { 2, 3 })
  {
    for (ScalarType type : { F32, F64 })
    {
      for (const auto& points : { std::vector<Point>{}, std::vector<Point>{ Point{ 1, 2, 3 } },
             std::vector<Point>{ Point{ 1, 2, 3 }, Point{ 4, 6, 3 } },
             std::vector<Point>{ Point{ -1, 0.5, 2 }, Point{ -1, 0.5, 2 } },
             std::vector<Point>{ Point{ 0, 0, 0 }, Point{ 1, 0, 0 }, Point{ 0, 1, 0 } } })
      {
        const Cloud cloud = makeCloud("tiny cloud", dim, type, points);
        const auto result = runEngine(cloud, this->options());
        ASSERT_TRUE(result) << cloud.label;
        checkAgainstReferences(cloud, *result, this->backend());
        EXPECT_EQ(result->edges.size(), points.size() > 1 ? points.size() - 1 : 0) << cloud.label;
        if (points.size() == 2)
        {
          ASSERT_EQ(result->edges.size(), 1u);
          EXPECT_EQ(result->edges[0].i, 0u);
          EXPECT_EQ(result->edges[0].j, 1u);
          EXPECT_EQ(result->edges[0].length, inputDistance(cloud, 0, 1));
        }
        if (points.empty())
        {
          EXPECT_EQ(result->totalWeight, 0.0);
          EXPECT_EQ(result->stats.validPoints, 0u);
        }
      }
    }
  }
}

TEST_P(Engine, SmallCountsNullDataWithZeroCount)
{
  emst::PointCloudView view;
  view.data = nullptr;
  view.count = 0;
  view.dimension = 3;
  const auto result = runEngine(view, "empty view with null data", this->options());
  ASSERT_TRUE(result);
  EXPECT_TRUE(result->edges.empty());
  EXPECT_EQ(result->stats.inputPoints, 0u);
}

// ---- non-finite coordinates -------------------------------------------------------------------

namespace
{
std::vector<Point> withNonFinite(
  Rng& rng, std::vector<Point> points, int dim, double fraction, std::size_t& poisoned)
{
  poisoned = 0;
  static const double bad[] = { std::numeric_limits<double>::quiet_NaN(),
    std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity() };
  for (Point& p : points)
  {
    if (rng.uniform() < fraction)
    {
      p[rng.below(static_cast<std::uint64_t>(dim))] = bad[rng.below(3)];
      ++poisoned;
    }
  }
  return points;
}

bool mentionsNonFinite(const std::vector<std::string>& messages)
{
  for (std::string m : messages)
  {
    std::transform(m.begin(), m.end(), m.begin(), [](unsigned char c) { return std::tolower(c); });
    if (m.find("finite") != std::string::npos || m.find("nan") != std::string::npos ||
      m.find("inf") != std::string::npos)
    {
      return true;
    }
  }
  return false;
}

std::string joined(const std::vector<std::string>& messages)
{
  std::string all;
  for (const std::string& m : messages)
  {
    all += "\n  " + m;
  }
  return all.empty() ? " (none)" : all;
}
} // namespace

TEST_P(Engine, NonFiniteCoordinates)
{
  Rng rng(67);
  for (int dim : { 2, 3 })
  {
    for (ScalarType type : { F32, F64 })
    {
      std::size_t poisoned = 0;
      const auto points = withNonFinite(rng, clusteredPoints(rng, 2000, dim), dim, 0.1, poisoned);
      const Cloud cloud = makeCloud("clustered with 10% NaN/Inf points", dim, type, points);
      const auto result = runEngine(cloud, this->options());
      ASSERT_TRUE(result);
      checkAgainstReferences(cloud, *result, this->backend());
      EXPECT_EQ(result->stats.nonFinitePoints, poisoned) << cloud.label;
      EXPECT_EQ(result->stats.validPoints, cloud.count - poisoned) << cloud.label;
      EXPECT_TRUE(mentionsNonFinite(result->messages))
        << cloud.label
        << ": no message mentions the left-out points; messages:" << joined(result->messages);
    }
  }
}

TEST_P(Engine, SmallNonFinite)
{
  Rng rng(71);
  std::size_t poisoned = 0;
  // A -inf coordinate must not become the shift's lower corner.
  auto points = withNonFinite(rng, uniformPoints(rng, 60, 3), 3, 0.2, poisoned);
  points.push_back(Point{ -Inf, 0.5, 0.5 });
  points.push_back(Point{ 0.5, NaN, 0.5 });
  const Cloud cloud = makeCloud("60 points with NaN/Inf", 3, F32, points);
  const auto result = runEngine(cloud, this->options());
  ASSERT_TRUE(result);
  checkAgainstReferences(cloud, *result, this->backend());
  EXPECT_EQ(result->stats.nonFinitePoints, poisoned + 2);
  EXPECT_TRUE(mentionsNonFinite(result->messages)) << "messages:" << joined(result->messages);

  // Only non-finite points; then exactly one finite point among them.
  const Cloud none = makeCloud(
    "only NaN/Inf points", 2, F64, { Point{ NaN, 0, 0 }, Point{ Inf, 1, 0 }, Point{ 0, -Inf, 0 } });
  const auto noTree = runEngine(none, this->options());
  ASSERT_TRUE(noTree);
  EXPECT_TRUE(noTree->edges.empty());
  EXPECT_EQ(noTree->stats.validPoints, 0u);
  EXPECT_EQ(noTree->stats.nonFinitePoints, 3u);
  const Cloud one = makeCloud("one finite point among NaNs", 3, F64,
    { Point{ NaN, 0, 0 }, Point{ 1, 2, 3 }, Point{ 0, 0, NaN } });
  const auto single = runEngine(one, this->options());
  ASSERT_TRUE(single);
  EXPECT_TRUE(single->edges.empty());
  EXPECT_EQ(single->stats.validPoints, 1u);
}

// ---- strided records ----------------------------------------------------------------------------

TEST_P(Engine, Stride)
{
  Rng rng(73);
  // NaN padding: a non-finite scalar outside the point's coordinates must not leave it out.
  for (ScalarType type : { F32, F64 })
  {
    const Cloud flat =
      makeCloud("2D points in 3-scalar records", 2, type, clusteredPoints(rng, 3000, 2), 3);
    EXPECT_TRUE(this->check(flat));
    const Cloud wide =
      makeCloud("3D points in 5-scalar records", 3, type, uniformPoints(rng, 3000, 3), 5);
    EXPECT_TRUE(this->check(wide));
    const Cloud padded = makeCloud("3D points in 4-scalar records, padding 1e30", 3, type,
      permuted(latticePoints(12, 12, 12), 79), 4, 1e30);
    EXPECT_TRUE(this->check(padded));
  }
}

TEST_P(Engine, SmallStride)
{
  Rng rng(83);
  EXPECT_TRUE(
    this->check(makeCloud("2D points in 3-scalar records", 2, F32, uniformPoints(rng, 100, 2), 3)));
  EXPECT_TRUE(
    this->check(makeCloud("3D points in 7-scalar records", 3, F64, uniformPoints(rng, 100, 3), 7)));
}

// ---- errors -----------------------------------------------------------------------------------

TEST_P(Engine, SmallInvalidInput)
{
  std::vector<float> data(4 * 30, 0.5f);
  emst::PointCloudView view;
  view.data = data.data();
  view.count = 30;

  emst::PointCloudView nullData = view;
  nullData.data = nullptr;
  EXPECT_EQ(this->errorOf(nullData, this->options()), "InvalidInput") << "null data with count > 0";

  for (int dim : { 1, 4, 0, -1 })
  {
    emst::PointCloudView badDim = view;
    badDim.dimension = dim;
    badDim.stride = 4;
    EXPECT_EQ(this->errorOf(badDim, this->options()), "InvalidInput") << "dimension " << dim;
  }
  // The engine must still work after rejecting input.
  view.dimension = 3;
  for (std::size_t k = 0; k < data.size(); ++k)
  {
    data[k] = static_cast<float>(k % 7) + 0.25f * static_cast<float>(k / 7);
  }
  EXPECT_TRUE(runEngine(view, "30 points after errors", this->options()));
}

TEST_P(Engine, TooManyPointsRejected)
{
  // count must stay below 2^32 - 1. The view points at a tiny buffer: an engine that does not
  // check first would read far past it, so run it in a child process.
#ifdef GTEST_FLAG_SET
  GTEST_FLAG_SET(death_test_style, "threadsafe");
#else
  testing::FLAGS_gtest_death_test_style = "threadsafe";
#endif
  const emst::Backend backend = this->backend();
  for (std::size_t count : { std::size_t(0xFFFFFFFFu), std::size_t(1) << 33 })
  {
    EXPECT_EXIT(
      {
        std::vector<float> tiny(12, 1.0f);
        emst::PointCloudView view;
        view.data = tiny.data();
        view.dimension = 3;
        view.count = count;
        const emst::Options o = optionsFor(backend);
        int status = 3;
        try
        {
          emst::computeEmst(view, o);
        }
        catch (const emst::Error& e)
        {
          status = e.code() == emst::ErrorCode::InvalidInput ? 0 : 4;
          std::fprintf(stderr, "error code %s: %s\n", errorCodeName(e.code()), e.what());
        }
        std::exit(status);
      },
      testing::ExitedWithCode(0), "")
      << "count " << count << " should throw Error(InvalidInput) before touching the data "
      << "(child exit 3: no error, 4: another error code)";
  }
}

// ---- progress and cancellation ------------------------------------------------------------------

namespace
{
struct ProgressLog
{
  std::vector<double> fractions;
  std::vector<std::string> steps;
  bool nullStep = false;
  bool wrongThread = false;
};

emst::ProgressCallback recorder(ProgressLog& log, int cancelAtCall = 0)
{
  const std::thread::id caller = std::this_thread::get_id();
  return [&log, cancelAtCall, caller](double fraction, const char* step)
  {
    log.fractions.push_back(fraction);
    log.steps.push_back(step ? step : "");
    log.nullStep = log.nullStep || step == nullptr;
    log.wrongThread = log.wrongThread || std::this_thread::get_id() != caller;
    return cancelAtCall <= 0 || static_cast<int>(log.fractions.size()) < cancelAtCall;
  };
}

void expectSaneProgress(const ProgressLog& log, const std::string& label)
{
  EXPECT_FALSE(log.nullStep) << label << ": a step name was null";
  EXPECT_FALSE(log.wrongThread) << label << ": the callback ran on another thread than the caller";
  for (std::size_t k = 0; k < log.fractions.size(); ++k)
  {
    const double f = log.fractions[k];
    EXPECT_TRUE(f >= 0.0 && f <= 1.0) << label << ": fraction " << f << " at call " << k
                                      << " (step '" << log.steps[k] << "') is outside [0, 1]";
    if (k > 0)
    {
      EXPECT_GE(f, log.fractions[k - 1])
        << label << ": fractions decrease at call " << k << " (step '" << log.steps[k] << "')";
    }
  }
}
} // namespace

TEST_P(Engine, SmallProgress)
{
  Rng rng(89);
  const Cloud cloud = makeCloud("300 clustered points", 3, F32, clusteredPoints(rng, 300, 3));
  ProgressLog log;
  emst::Options o = this->options();
  o.progress = recorder(log);
  const auto result = runEngine(cloud, o);
  ASSERT_TRUE(result);
  checkAgainstReferences(cloud, *result, this->backend());
  EXPECT_GE(log.fractions.size(), 1u) << "the progress callback was never called";
  expectSaneProgress(log, cloud.label);
}

TEST_P(Engine, Progress)
{
  Rng rng(97);
  const Cloud cloud = makeCloud("100k clustered points", 3, F32, clusteredPoints(rng, 100000, 3));
  ProgressLog log;
  emst::Options o = this->options();
  o.progress = recorder(log);
  const auto result = runEngine(cloud, o);
  ASSERT_TRUE(result);
  EXPECT_TRUE(isSpanningTree(cloud, result->edges));
  EXPECT_GE(log.fractions.size(), 1u);
  expectSaneProgress(log, cloud.label);
}

TEST_P(Engine, SmallCancel)
{
  Rng rng(101);
  const Cloud cloud = makeCloud("300 uniform points", 3, F64, uniformPoints(rng, 300, 3));
  ProgressLog full;
  emst::Options o = this->options();
  o.progress = recorder(full);
  const auto reference = runEngine(cloud, o);
  ASSERT_TRUE(reference);
  const int calls = static_cast<int>(full.fractions.size());
  ASSERT_GE(calls, 1) << "the progress callback was never called: nothing to cancel from";

  // Cancel at each call in turn (at most 12 of them): always Error(Cancelled), fractions sane.
  const int step = std::max(1, calls / 12);
  for (int cancelAt = 1; cancelAt <= calls; cancelAt += step)
  {
    ProgressLog log;
    emst::Options cancelling = this->options();
    cancelling.progress = recorder(log, cancelAt);
    EXPECT_EQ(this->errorOf(cloud.view(), cancelling), "Cancelled")
      << "cancelled at progress call " << cancelAt << " of " << calls << " (step '"
      << (cancelAt <= static_cast<int>(full.steps.size()) ? full.steps[cancelAt - 1] : "?") << "')";
    EXPECT_EQ(static_cast<int>(log.fractions.size()), cancelAt)
      << "the callback was called again after it returned false";
    expectSaneProgress(log, "cancelled run");
  }
  // A cancelled run leaves nothing behind: the next run gives the same tree.
  const auto again = runEngine(cloud, this->options());
  ASSERT_TRUE(again);
  EXPECT_TRUE(sameEdgeLists(reference->edges, again->edges));
}

// ---- determinism --------------------------------------------------------------------------------

TEST_P(Engine, Determinism)
{
  Rng rng(103);
  std::vector<Point> points = latticePoints(20, 20, 20);
  const auto blobs = clusteredPoints(rng, 15000, 3);
  points.insert(points.end(), blobs.begin(), blobs.end());
  for (int k = 0; k < 2000; ++k)
  {
    points.push_back(points[rng.below(points.size())]);
  }
  rng.shuffle(points);
  const Cloud cloud = makeCloud("lattice + blobs + duplicates, shuffled", 3, F32, points);

  const auto first = runEngine(cloud, this->options());
  ASSERT_TRUE(first);
  EXPECT_TRUE(isSpanningTree(cloud, first->edges));
  EXPECT_TRUE(exactLengthsAndOrder(cloud, first->edges));
  struct Variant
  {
    const char* name;
    int threads;
    bool keep;
  };
  for (const Variant& v : { Variant{ "second run", 0, false }, Variant{ "cpuThreads=1", 1, false },
         Variant{ "cpuThreads=2", 2, false }, Variant{ "cpuThreads=3", 3, false },
         Variant{ "keepDeviceMemory (1)", 0, true }, Variant{ "keepDeviceMemory (2)", 0, true } })
  {
    emst::Options o = this->options();
    o.cpuThreads = v.threads;
    o.keepDeviceMemory = v.keep;
    const auto again = runEngine(cloud, o);
    ASSERT_TRUE(again) << v.name;
    EXPECT_TRUE(sameEdgeLists(first->edges, again->edges, &cloud)) << v.name;
    EXPECT_EQ(first->totalWeight, again->totalWeight) << v.name;
    EXPECT_EQ(first->stats.duplicatePoints, again->stats.duplicatePoints) << v.name;
  }
}

TEST_P(Engine, StatsAreFilledIn)
{
  Rng rng(107);
  const Cloud cloud = makeCloud("5000 uniform points", 3, F32, uniformPoints(rng, 5000, 3));
  const auto result = runEngine(cloud, this->options());
  ASSERT_TRUE(result);
  const emst::Stats& s = result->stats;
  EXPECT_EQ(s.backend, this->backend());
  EXPECT_FALSE(s.deviceName.empty());
  EXPECT_GE(s.rounds, 1);
  EXPECT_EQ(s.inputPoints, cloud.count);
  EXPECT_EQ(s.validPoints, cloud.count);
  EXPECT_EQ(s.nonFinitePoints, 0u);
  EXPECT_EQ(s.duplicatePoints, 0u);
  EXPECT_GT(s.computeMilliseconds, 0.0);
  EXPECT_GE(s.uploadMilliseconds, 0.0);
  EXPECT_GE(s.downloadMilliseconds, 0.0);
  EXPECT_FALSE(s.phases.empty());
  std::map<std::string, int> seen;
  int lastRound = 0;
  for (const emst::PhaseTime& phase : s.phases)
  {
    EXPECT_FALSE(phase.name.empty());
    EXPECT_GE(phase.milliseconds, 0.0) << phase.name;
    EXPECT_EQ(++seen[phase.name], 1) << phase.name << " twice";
    if (phase.name.rfind("round ", 0) == 0)
    {
      // Every round in order; those queued past the last (the look's batch, the round queued
      // ahead of a look) after them.
      EXPECT_EQ(std::stoi(phase.name.substr(6)), ++lastRound) << phase.name;
    }
  }
  EXPECT_GE(lastRound, s.rounds);
  EXPECT_LE(lastRound, s.rounds + 4); // a batch of at most ln(5000) / ln(6) rounds, one ahead
  EXPECT_EQ(s.phases.back().name, "output");
  EXPECT_GT(s.peakBackendBytes, 0u);
}
