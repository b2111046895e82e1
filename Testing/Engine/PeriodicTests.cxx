// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Periodic boxes (Options::box): each body runs on every backend and checks the tree bit for bit
// against the contract reference in the box (Reference.h (b): Prim under Emst.h's minimum-image
// key), by weight against a brute-force double Prim with its own nearest-image formula (a), and
// by the cycle property. A second, independent check: the tree of a cloud in a box equals the
// non-periodic tree of the cloud tiled 3x3(x3), restricted to the edges of the central copy.
//
// Naming: tests whose name starts with "Small" use small inputs; the GPU check runs them under
// compute-sanitizer with --gtest_filter='*.Small*/Cuda'.
#include "TestSupport.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <tuple>

using namespace emsttest;
using emst::ScalarType;

namespace
{

/// The face-centred cubic lattice of a torus: integer points with an even coordinate sum in
/// [0, 2 cells)^3 (the points on the far faces are images of the near ones).
std::vector<Point> fccTorus(int cells)
{
  std::vector<Point> points;
  for (int z = 0; z < 2 * cells; ++z)
  {
    for (int y = 0; y < 2 * cells; ++y)
    {
      for (int x = 0; x < 2 * cells; ++x)
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

class Periodic : public BackendTest
{
protected:
  bool check(const Cloud& cloud, const CheckOptions& checkOptions = CheckOptions())
  {
    const auto result = runEngine(cloud, this->options());
    return result && checkAgainstReferences(cloud, *result, this->backend(), checkOptions);
  }

  /// Runs the engine; the name of the error code it threw ("no error" when it returned), and
  /// its message in lastMessage.
  std::string errorOf(const Cloud& cloud)
  {
    try
    {
      emst::Options o = this->options();
      o.box = cloud.box;
      emst::computeEmst(cloud.view(), o);
    }
    catch (const emst::Error& e)
    {
      this->lastMessage = e.what();
      return errorCodeName(e.code());
    }
    return "no error";
  }
  std::string lastMessage;
};

INSTANTIATE_TEST_SUITE_P(Backends, Periodic, testing::ValuesIn(testedBackends()), backendParamName);

/// The box shapes of the random tests: cubes and flat boxes, an origin away from 0, one or two
/// periodic axes only, in 3D and 2D.
std::vector<std::pair<int, emst::PeriodicBox>> shapes()
{
  return {
    { 3, periodicBox(1, 1, 1) },
    { 3, periodicBox(2, 1, 0.5, -1, 0, 3) },
    { 3, periodicBox(1, 0, 0) },
    { 3, periodicBox(0, 3, 0.25, 0, -7, 100) },
    { 2, periodicBox(1, 1, 0) },
    { 2, periodicBox(0, 0.5, 0, 0, 10, 0) },
    { 2, periodicBox(4, 1, 0, -2, -0.5, 0) },
  };
}

/// Checks every edge length is 1 (lattices of spacing 1: all nearest neighbours, across the faces
/// too, at 1) and the weight is then exactly n - 1.
void expectUnitEdges(const Cloud& cloud, const emst::Result& result)
{
  for (const emst::Edge& e : result.edges)
  {
    if (e.length != 1.0)
    {
      ADD_FAILURE() << cloud.label << ": edge (" << e.i << ", " << e.j << ") has length "
                    << e.length << ", every edge of this torus lattice has length 1";
      return;
    }
  }
  EXPECT_EQ(result.totalWeight, static_cast<double>(cloud.count - 1)) << cloud.label;
}

} // namespace

// ---- hand-checked ---------------------------------------------------------------------------

TEST_P(Periodic, SmallHandCase)
{
  // x periodic with L = 10, y open: points at x = 0.5, 3, 9. Around the face 0.5 and 9 are 1.5
  // apart (directly 8.5), 3 and 9 are 4 (directly 6): the tree is (0, 2) 1.5 and (0, 1) 2.5.
  const Cloud cloud = inBox("three points on a circle of length 10", 2, F64,
    { Point{ 0.5, 0, 0 }, Point{ 3, 0, 0 }, Point{ 9, 0, 0 } }, periodicBox(10, 0, 0));
  const auto result = runEngine(cloud, this->options());
  ASSERT_TRUE(result);
  ASSERT_EQ(result->edges.size(), 2u);
  EXPECT_EQ(result->edges[0].i, 0u);
  EXPECT_EQ(result->edges[0].j, 2u);
  EXPECT_EQ(result->edges[0].length, 1.5);
  EXPECT_EQ(result->edges[1].i, 0u);
  EXPECT_EQ(result->edges[1].j, 1u);
  EXPECT_EQ(result->edges[1].length, 2.5);
  EXPECT_EQ(result->totalWeight, 4.0);
  checkAgainstReferences(cloud, *result, this->backend());

  // The same points without the box: 0.5-3 and 3-9.
  const Cloud open = makeCloud(
    "the same points, no box", 2, F64, { Point{ 0.5, 0, 0 }, Point{ 3, 0, 0 }, Point{ 9, 0, 0 } });
  const auto plain = runEngine(open, this->options());
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->totalWeight, 8.5);
}

// ---- random clouds, several box shapes ------------------------------------------------------

TEST_P(Periodic, SmallBoxShapes)
{
  std::uint64_t seed = 41;
  for (const auto& [dim, b] : shapes())
  {
    for (std::size_t n : { 2, 3, 5, 17, 90 })
    {
      Rng rng(++seed);
      const ScalarType type = seed % 2 ? F32 : F64;
      CheckOptions checkOptions;
      checkOptions.checkCycleProperty = true;
      EXPECT_TRUE(this->check(
        inBox("uniform seed " + std::to_string(seed), dim, type, uniformInBox(rng, n, dim, b), b),
        checkOptions));
    }
  }
}

TEST_P(Periodic, RandomCloudsInBoxes)
{
  std::uint64_t seed = 900;
  for (const auto& [dim, b] : shapes())
  {
    for (std::size_t n : { 400, 1500 })
    {
      Rng rng(++seed);
      CheckOptions checkOptions;
      checkOptions.checkCycleProperty = n <= 400;
      EXPECT_TRUE(this->check(
        inBox("uniform seed " + std::to_string(seed), dim, F32, uniformInBox(rng, n, dim, b), b),
        checkOptions));
      EXPECT_TRUE(this->check(inBox("blobs on the faces seed " + std::to_string(seed), dim, F64,
                                blobsOnFaces(rng, n, dim, b), b),
        checkOptions));
    }
  }
}

// ---- lattices: ties across the faces --------------------------------------------------------

TEST_P(Periodic, SmallThreePointsPerSide)
{
  // 3 points per side in a box of 3: every pair of neighbours is at 1, across the faces too
  // (0 and 2 are 1 apart the other way round), so every point has 6 (3D) or 4 (2D) neighbours at
  // 1, each pair of points within L/2 on each axis. 2 points per side: both ways are 1.
  for (int k : { 2, 3 })
  {
    const double L = k;
    for (const Cloud& cloud : { inBox("lattice " + std::to_string(k) + "^3, shuffled", 3, F32,
                                  permuted(latticePoints(k, k, k), 3 + k), periodicBox(L, L, L)),
           inBox("lattice " + std::to_string(k) + "^2, ordered", 2, F64, latticePoints(k, k, 0),
             periodicBox(L, L, 0)),
           inBox("lattice " + std::to_string(k) + "^3, offset -0.5, ordered", 3, F64,
             latticePoints(k, k, k, 1.0, -0.5), periodicBox(L, L, L, -0.5, -0.5, -0.5)) })
    {
      const auto result = runEngine(cloud, this->options());
      ASSERT_TRUE(result);
      checkAgainstReferences(cloud, *result, this->backend());
      expectUnitEdges(cloud, *result);
      EXPECT_EQ(result->stats.duplicatePoints, 0u) << cloud.label;
    }
  }
}

TEST_P(Periodic, LatticesWithTiesAcrossFaces)
{
  // Spacing 1 in a box of k: all nearest distances 1, and as many ties across the faces as
  // inside; the contract's order (key, i, j) decides every one of them.
  const Cloud clouds[] = {
    inBox(
      "lattice 4^3, shuffled", 3, F64, permuted(latticePoints(4, 4, 4), 31), periodicBox(4, 4, 4)),
    inBox("lattice 7x5x6, shuffled", 3, F32, permuted(latticePoints(7, 5, 6), 32),
      periodicBox(7, 5, 6)),
    inBox("lattice 9x9, x periodic only, shuffled", 2, F32, permuted(latticePoints(9, 9, 0), 33),
      periodicBox(9, 0, 0)),
    inBox("lattice 20x15, ordered", 2, F64, latticePoints(20, 15, 0), periodicBox(20, 15, 0)),
    inBox("lattice 12^3, ordered", 3, F32, latticePoints(12, 12, 12), periodicBox(12, 12, 12)),
  };
  for (const Cloud& cloud : clouds)
  {
    const auto result = runEngine(cloud, this->options());
    ASSERT_TRUE(result);
    checkAgainstReferences(cloud, *result, this->backend());
    expectUnitEdges(cloud, *result);
  }
  // Spacing 0.1 (inexact in binary) in a box of 0.1 k: near-ties whose last bits the contract's
  // rounding decides, across the faces as well.
  EXPECT_TRUE(this->check(inBox("lattice 8^3 spacing 0.1 offset 5, shuffled", 3, F64,
    permuted(latticePoints(8, 8, 8, 0.1, 5.0), 34), periodicBox(0.8, 0.8, 0.8, 5, 5, 5))));
  EXPECT_TRUE(this->check(inBox("lattice 10x10 spacing 0.3, ordered", 2, F32,
    latticePoints(10, 10, 0, 0.3), periodicBox(3.0, 3.0, 0))));
}

TEST_P(Periodic, FaceCentredCubicTorus)
{
  // Nearest neighbours at sqrt(2) in 12 directions, many equilateral triangles, in a torus.
  const double sqrt2 = std::sqrt(2.0);
  for (const Cloud& cloud :
    { inBox("FCC torus 2 cells, shuffled", 3, F64, permuted(fccTorus(2), 41), periodicBox(4, 4, 4)),
      inBox("FCC torus 5 cells, ordered", 3, F32, fccTorus(5), periodicBox(10, 10, 10)) })
  {
    const auto result = runEngine(cloud, this->options());
    ASSERT_TRUE(result);
    checkAgainstReferences(cloud, *result, this->backend());
    for (const emst::Edge& e : result->edges)
    {
      ASSERT_EQ(e.length, sqrt2) << cloud.label << ": edge (" << e.i << ", " << e.j << ")";
    }
  }
}

// ---- points outside the box, duplicates across the faces ------------------------------------

TEST_P(Periodic, PointsOutsideTheBoxAreWrapped)
{
  // Coordinates on a 2^-20 grid in [0, 1)^3 shifted by whole periods (-100..100): exact in double,
  // and wrapping them back is exact too, so the tree is the unshifted cloud's, bit for bit, while
  // the output keeps the input's indices.
  Rng rng(51);
  std::vector<Point> inside(700, Point{ 0, 0, 0 });
  for (Point& p : inside)
  {
    for (int a = 0; a < 3; ++a)
    {
      p[a] = static_cast<double>(rng.below(1u << 20)) * 0x1p-20;
    }
  }
  std::vector<Point> outside = inside;
  std::size_t moved = 0;
  for (std::size_t k = 0; k < outside.size(); k += 3)
  {
    const int axis = static_cast<int>(rng.below(3));
    outside[k][axis] += static_cast<double>(static_cast<int>(rng.below(201)) - 100);
    moved += outside[k][axis] < 0.0 || outside[k][axis] >= 1.0 ? 1 : 0;
  }
  ASSERT_GT(moved, 100u);
  const Cloud reference = inBox("2^-20 grid in the box", 3, F64, inside, periodicBox(1, 1, 1));
  const Cloud shifted =
    inBox("the same, a third shifted by whole periods", 3, F64, outside, periodicBox(1, 1, 1));
  const auto want = runEngine(reference, this->options());
  const auto got = runEngine(shifted, this->options());
  ASSERT_TRUE(want && got);
  EXPECT_TRUE(sameEdgeLists(want->edges, got->edges));
  EXPECT_EQ(got->stats.wrappedPoints, moved);
  EXPECT_EQ(want->stats.wrappedPoints, 0u);
  const std::string note =
    std::to_string(moved) + " point(s) outside the periodic box were wrapped";
  EXPECT_TRUE(std::any_of(got->messages.begin(), got->messages.end(),
    [&](const std::string& m) { return m.find(note) != std::string::npos; }))
    << "no message '" << note << "...'";
  checkAgainstReferences(shifted, *got, this->backend());

  // Shifts that are not exact (float32, origin -0.3, far outside): the contract's wrap decides the
  // last bits, and the reference follows it.
  std::vector<Point> far = uniformInBox(rng, 500, 3, periodicBox(0.7, 1.3, 0.9, -0.3, -0.3, -0.3));
  for (std::size_t k = 0; k < far.size(); k += 2)
  {
    far[k][k % 3] += (k % 4 == 0 ? 1.0 : -1.0) * 0.7 * static_cast<double>(1 + rng.below(1000));
  }
  EXPECT_TRUE(
    this->check(inBox("far outside", 3, F32, far, periodicBox(0.7, 0, 0, -0.3, -0.3, -0.3))));
  EXPECT_TRUE(
    this->check(inBox("far outside", 3, F64, far, periodicBox(0.7, 1.3, 0.9, -0.3, -0.3, -0.3))));
}

TEST_P(Periodic, BoxSmallerThanTheCloud)
{
  // A cloud spread over [0, 10)^2 in a box of 1: all but a few points are wrapped, many land close
  // to each other; and a box much smaller than the spacing of the points.
  Rng rng(61);
  EXPECT_TRUE(this->check(
    inBox("uniform in [0,10)^2", 2, F64, uniformPoints(rng, 800, 2, 10.0), periodicBox(1, 1, 0))));
  EXPECT_TRUE(this->check(inBox(
    "uniform in [0,1000)^3", 3, F32, uniformPoints(rng, 300, 3, 1000.0), periodicBox(1, 1, 1))));
}

TEST_P(Periodic, SmallDuplicatesAcrossFaces)
{
  // x and x + L (and x - 2L) are the same point of the torus: joined by zero-length edges to the
  // smallest index, like identical points.
  const Cloud cloud = inBox("copies one and two periods away", 3, F64,
    { Point{ 0.25, 0.5, 0.75 }, Point{ 1.25, 0.5, 0.75 }, Point{ 0.5, 0.5, 0.5 },
      Point{ 0.25, -1.5, 0.75 }, Point{ 0.5, 0.5, 2.5 } },
    periodicBox(1, 1, 1));
  const auto result = runEngine(cloud, this->options());
  ASSERT_TRUE(result);
  checkAgainstReferences(cloud, *result, this->backend());
  EXPECT_EQ(result->stats.duplicatePoints, 3u);
  EXPECT_EQ(zeroLengthEdges(result->edges), 3u); // (0, 1), (0, 3) and (2, 4)
}

// ---- the second check: the tiled cloud --------------------------------------------------------

namespace
{

/// For each periodic tree edge, in tree order: whether the component of its end i in the graph of
/// all the torus's shorter pairs winds around the torus (holds a loop that is not contractible).
/// Brute force over all pairs by increasing minimum-image length: a union-find that keeps each
/// point's unwrapped offset from its root, so that a pair inside one component whose offsets
/// disagree with its displacement closes a winding loop. O(n^2 log n): small clouds only.
std::vector<bool> windsBelow(
  const std::vector<Point>& points, int dim, const std::vector<emst::Edge>& tree)
{
  const std::size_t n = points.size();
  auto displacement = [&](std::size_t a, std::size_t b)
  {
    Point d{ 0, 0, 0 };
    for (int k = 0; k < dim; ++k)
    {
      d[k] = points[b][k] - points[a][k];
      d[k] -= std::nearbyint(d[k]); // unit box
    }
    return d;
  };
  std::vector<std::tuple<double, std::size_t, std::size_t>> pairs;
  for (std::size_t a = 0; a < n; ++a)
  {
    for (std::size_t b = a + 1; b < n; ++b)
    {
      const Point d = displacement(a, b);
      pairs.emplace_back(d[0] * d[0] + d[1] * d[1] + d[2] * d[2], a, b);
    }
  }
  std::sort(pairs.begin(), pairs.end());
  std::vector<std::size_t> parent(n);
  std::vector<Point> offset(n, Point{ 0, 0, 0 }); // position - parent's position
  std::vector<char> winds(n, 0);                  // of roots
  for (std::size_t k = 0; k < n; ++k)
  {
    parent[k] = k;
  }
  auto find = [&](std::size_t x, Point& total)
  {
    total = Point{ 0, 0, 0 };
    while (parent[x] != x)
    {
      for (int k = 0; k < 3; ++k)
      {
        total[k] += offset[x][k];
      }
      x = parent[x];
    }
    return x;
  };
  std::map<std::pair<std::size_t, std::size_t>, std::size_t> positionInTree;
  for (std::size_t e = 0; e < tree.size(); ++e)
  {
    positionInTree[{ tree[e].i, tree[e].j }] = e;
  }
  std::vector<bool> result(tree.size(), true);
  for (const auto& [length2, a, b] : pairs)
  {
    Point pa, pb;
    const std::size_t ra = find(a, pa);
    const std::size_t rb = find(b, pb);
    const auto inTree = positionInTree.find({ a, b });
    if (inTree != positionInTree.end())
    {
      result[inTree->second] = winds[ra] != 0;
    }
    const Point d = displacement(a, b);
    if (ra == rb)
    {
      for (int k = 0; k < dim; ++k)
      {
        if (std::fabs(pb[k] - pa[k] - d[k]) > 0.5)
        {
          winds[ra] = 1;
        }
      }
      continue;
    }
    parent[rb] = ra;
    for (int k = 0; k < 3; ++k)
    {
      offset[rb][k] = pa[k] + d[k] - pb[k];
    }
    winds[ra] = winds[ra] || winds[rb];
  }
  return result;
}

} // namespace

TEST_P(Periodic, TiledCloudAgrees)
{
  // The second, independent check. Tile the cloud 3 times along each axis and take the ordinary
  // (open) tree of the tiled cloud: an edge (i, j) of the periodic tree must be its edge between
  // the central copy of i and the copy of j at i's minimum image, whenever the torus's pairs
  // shorter than (i, j) hold no loop around the torus at i (windsBelow). Proof: otherwise a path
  // of shorter (or equal, translated) edges joins those two copies; its first translate of (i, j)
  // would close a winding loop at i, and without one it projects to a path of shorter edges
  // between i and j on the torus, which the periodic tree's edge (i, j) rules out. Coordinates
  // on a 2^-30 grid in a unit box: the tiled coordinates and both lengths are exact, so the
  // lengths agree bit for bit.
  for (int dim : { 2, 3 })
  {
    Rng rng(70 + dim);
    const std::size_t n = dim == 3 ? 150 : 300;
    std::vector<Point> points(n, Point{ 0, 0, 0 });
    for (Point& p : points)
    {
      for (int a = 0; a < dim; ++a)
      {
        p[a] = static_cast<double>(rng.below(1u << 30)) * 0x1p-30;
      }
    }
    const Cloud cloud = inBox("2^-30 grid", dim, F64, points, periodicBox(1, 1, dim == 3 ? 1 : 0));
    const int tiles = dim == 3 ? 27 : 9;
    std::vector<Point> tiled;
    for (int t = 0; t < tiles; ++t) // tile t is shifted by (t % 3 - 1, t / 3 % 3 - 1, t / 9 - 1)
    {
      const int shift[3] = { t % 3 - 1, t / 3 % 3 - 1, t / 9 - 1 };
      for (const Point& p : points)
      {
        tiled.push_back(Point{ p[0] + shift[0], p[1] + shift[1], dim == 3 ? p[2] + shift[2] : 0 });
      }
    }
    const int central = dim == 3 ? 13 : 4;
    const Cloud open = makeCloud("the same cloud tiled", dim, F64, tiled);
    const auto periodic = runEngine(cloud, this->options());
    const auto flat = runEngine(open, this->options());
    ASSERT_TRUE(periodic && flat);
    checkAgainstReferences(cloud, *periodic, this->backend());
    std::map<std::pair<std::uint32_t, std::uint32_t>, double> tiledEdges;
    for (const emst::Edge& e : flat->edges)
    {
      tiledEdges[{ e.i, e.j }] = e.length;
    }
    const std::vector<bool> winds = windsBelow(points, dim, periodic->edges);
    int missing = 0;
    std::size_t checked = 0;
    for (std::size_t k = 0; k < periodic->edges.size(); ++k)
    {
      const emst::Edge& e = periodic->edges[k];
      if (winds[k])
      {
        continue;
      }
      ++checked;
      // The tile of j's image nearest to i (coordinates in [0, 1): offsets -1, 0, +1).
      int tile = 0;
      int stride = 1;
      for (int a = 0; a < dim; ++a)
      {
        const double d = points[e.j][a] - points[e.i][a];
        const int shift = d > 0.5 ? -1 : (d < -0.5 ? 1 : 0);
        tile += (shift + 1) * stride;
        stride *= 3;
      }
      const std::uint32_t a = static_cast<std::uint32_t>(central * n + e.i);
      const std::uint32_t b = static_cast<std::uint32_t>(tile * n + e.j);
      const auto found = tiledEdges.find({ std::min(a, b), std::max(a, b) });
      if ((found == tiledEdges.end() || found->second != e.length) && ++missing <= 3)
      {
        ADD_FAILURE() << dim << "D: periodic edge (" << e.i << ", " << e.j << ", " << e.length
                      << ") is not the tiled tree's edge (" << a << ", " << b << ")"
                      << (found == tiledEdges.end() ? "" : " of the same length");
      }
    }
    EXPECT_EQ(missing, 0) << dim << "D";
    // Most edges are below the winding threshold: the check is not vacuous.
    EXPECT_GT(checked, periodic->edges.size() * 9 / 10) << dim << "D";
    // And the box matters: the periodic tree is strictly shorter than the open one.
    const auto plain = runEngine(makeCloud("no box", dim, F64, points), this->options());
    ASSERT_TRUE(plain);
    EXPECT_LT(periodic->totalWeight, plain->totalWeight);
  }
}

// ---- the box itself ---------------------------------------------------------------------------

TEST_P(Periodic, SmallAxesThatAreNotPeriodic)
{
  // A box with no periodic axis among the cloud's (all sizes 0, or only z for a 2D cloud, where z
  // is not read) is no box: the Euclidean tree, bit for bit.
  Rng rng(81);
  const auto points = uniformPoints(rng, 200, 3, 5.0, -2.0);
  for (int dim : { 2, 3 })
  {
    const Cloud open = makeCloud("uniform", dim, F64, points);
    const auto want = runEngine(open, this->options());
    ASSERT_TRUE(want);
    for (const emst::PeriodicBox& b :
      { periodicBox(0, 0, 0, 1, 2, 3), periodicBox(0, 0, dim == 2 ? 1 : 0) })
    {
      emst::Options o = this->options();
      o.box = b;
      const auto got = runEngine(open.view(), open.label, o);
      ASSERT_TRUE(got);
      EXPECT_TRUE(sameEdgeLists(want->edges, got->edges)) << dim << "D";
    }
  }
  // A z axis given for a 2D cloud is not read, even when it would be invalid.
  Cloud flat = inBox(
    "uniform", 2, F32, uniformInBox(rng, 100, 2, periodicBox(1, 1, 0)), periodicBox(1, 1, -5));
  EXPECT_EQ(this->errorOf(flat), "no error");
  EXPECT_TRUE(this->check(flat));
}

TEST_P(Periodic, SmallInvalidBoxes)
{
  Rng rng(91);
  const auto points = uniformPoints(rng, 20, 3);
  const struct
  {
    emst::PeriodicBox box;
    const char* message;
  } cases[] = {
    { periodicBox(-1, 1, 1), "the size of axis x must be a finite number >= 0" },
    { periodicBox(1, NaN, 1), "the size of axis y must be a finite number >= 0" },
    { periodicBox(1, 1, Inf), "the size of axis z must be a finite number >= 0" },
    { periodicBox(1, 1, 1, NaN), "the origin of axis x must be finite" },
    { periodicBox(1, 1, 1, 0, 0, -Inf), "the origin of axis z must be finite" },
  };
  for (const auto& c : cases)
  {
    const Cloud cloud = inBox("uniform", 3, F64, points, c.box);
    EXPECT_EQ(this->errorOf(cloud), "InvalidInput") << cloud.label;
    EXPECT_NE(this->lastMessage.find(c.message), std::string::npos) << this->lastMessage;
  }
  // The origin of an axis that is not periodic is not read.
  EXPECT_EQ(
    this->errorOf(inBox("uniform", 3, F64, points, periodicBox(1, 0, 1, 0, NaN, 0))), "no error");
  // Offsets from the origin that overflow double precision.
  const Cloud overflow = inBox("points at +-1e308", 2, F64,
    { Point{ 1e308, 0, 0 }, Point{ 0, 0, 0 }, Point{ -1e308, 0, 0 } },
    periodicBox(1, 1, 0, -1e308));
  EXPECT_EQ(this->errorOf(overflow), "InvalidInput");
  EXPECT_NE(this->lastMessage.find("overflow"), std::string::npos) << this->lastMessage;
}
