// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The references checked on their own (no engine call): the contract Prim against a Kruskal with
// the same total order, the two references against each other, and the checkers against trees
// known to be wrong.
#include "TestSupport.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>

using namespace emsttest;

namespace
{

/// Kruskal over all pairs sorted by (key, i, j): a second, independent way to the contract tree.
std::vector<emst::Edge> contractKruskal(const Cloud& cloud)
{
  const ShiftedCloud s = shiftCloud(cloud);
  std::vector<std::tuple<double, std::uint32_t, std::uint32_t>> pairs;
  for (std::uint32_t i = 0; i < cloud.count; ++i)
  {
    for (std::uint32_t j = i + 1; j < cloud.count; ++j)
    {
      if (s.finite[i] && s.finite[j])
      {
        pairs.emplace_back(s.key(i, j), i, j);
      }
    }
  }
  std::sort(pairs.begin(), pairs.end());
  std::vector<std::uint32_t> parent(cloud.count);
  std::iota(parent.begin(), parent.end(), 0u);
  auto find = [&](std::uint32_t x)
  {
    while (parent[x] != x)
    {
      x = parent[x] = parent[parent[x]];
    }
    return x;
  };
  std::vector<emst::Edge> edges;
  for (const auto& [d2, i, j] : pairs)
  {
    const std::uint32_t a = find(i), b = find(j);
    if (a != b)
    {
      parent[std::max(a, b)] = std::min(a, b);
      emst::Edge e;
      e.i = i;
      e.j = j;
      e.length = inputDistance(cloud, i, j);
      edges.push_back(e);
    }
  }
  std::sort(edges.begin(), edges.end(),
    [](const emst::Edge& x, const emst::Edge& y)
    { return std::tie(x.length, x.i, x.j) < std::tie(y.length, y.i, y.j); });
  return edges;
}

std::vector<Cloud> referenceClouds()
{
  Rng rng(4242);
  std::vector<Cloud> clouds;
  clouds.push_back(makeCloud("uniform", 3, emst::ScalarType::Float64, uniformPoints(rng, 300, 3)));
  clouds.push_back(
    makeCloud("clustered", 2, emst::ScalarType::Float32, clusteredPoints(rng, 300, 2)));
  clouds.push_back(
    makeCloud("integers", 3, emst::ScalarType::Float32, integerPoints(rng, 300, 3, 6)));
  clouds.push_back(
    makeCloud("integers", 2, emst::ScalarType::Float64, integerPoints(rng, 300, 2, 9)));
  auto lattice = latticePoints(6, 7, 5);
  rng.shuffle(lattice);
  clouds.push_back(makeCloud("lattice, shuffled", 3, emst::ScalarType::Float32, lattice));
  auto fcc = fccPoints(3);
  rng.shuffle(fcc);
  clouds.push_back(makeCloud("FCC, shuffled", 3, emst::ScalarType::Float64, fcc));
  auto withNaN = uniformPoints(rng, 100, 3, 1.0, 1e7);
  withNaN[3][1] = std::numeric_limits<double>::quiet_NaN();
  withNaN[50][0] = -std::numeric_limits<double>::infinity();
  clouds.push_back(makeCloud("offset 1e7 with NaN", 3, emst::ScalarType::Float64, withNaN));
  clouds.push_back(makeCloud(
    "copies", 3, emst::ScalarType::Float32, repeatPoints(uniformPoints(rng, 20, 3), 6, &rng)));
  // Periodic boxes: minimum-image keys and lengths (points partly outside the box, ties across
  // the faces of a torus lattice, 3 points per side).
  auto periodic = [&clouds](Cloud cloud, double lx, double ly, double lz, double origin)
  {
    cloud.box.size[0] = lx;
    cloud.box.size[1] = ly;
    cloud.box.size[2] = lz;
    cloud.box.origin[0] = cloud.box.origin[1] = cloud.box.origin[2] = origin;
    cloud.label += " in a periodic box";
    clouds.push_back(cloud);
  };
  periodic(
    makeCloud("uniform", 3, emst::ScalarType::Float64, uniformPoints(rng, 300, 3, 1.2, -0.1)), 1, 1,
    1, 0);
  periodic(makeCloud("clustered", 2, emst::ScalarType::Float32, clusteredPoints(rng, 300, 2)), 0.5,
    0, 0, 0.25);
  auto torus = latticePoints(4, 4, 4);
  rng.shuffle(torus);
  periodic(makeCloud("lattice 4^3, shuffled", 3, emst::ScalarType::Float32, torus), 4, 4, 4, 0);
  periodic(
    makeCloud("lattice 3^3", 3, emst::ScalarType::Float64, latticePoints(3, 3, 3)), 3, 3, 3, 0);
  return clouds;
}

} // namespace

TEST(Reference, ContractPrimEqualsContractKruskal)
{
  for (const Cloud& cloud : referenceClouds())
  {
    const ReferenceTree prim = contractMst(cloud);
    EXPECT_TRUE(sameEdgeLists(contractKruskal(cloud), prim.edges, &cloud)) << cloud.label;
    EXPECT_TRUE(isSpanningTree(cloud, prim.edges)) << cloud.label;
    EXPECT_TRUE(exactLengthsAndOrder(cloud, prim.edges)) << cloud.label;
    EXPECT_TRUE(cycleProperty(cloud, prim.edges)) << cloud.label;
  }
}

TEST(Reference, DoublePrimAgreesOnWeight)
{
  for (const Cloud& cloud : referenceClouds())
  {
    const ReferenceTree prim = primDouble(cloud);
    const ReferenceTree contract = contractMst(cloud);
    EXPECT_TRUE(isSpanningTree(cloud, prim.edges)) << cloud.label;
    // In a box its lengths come from its own nearest-image formula (wrapping points from outside
    // the box rounds differently): the last bits may differ.
    EXPECT_TRUE(cycleProperty(cloud, prim.edges, cloud.periodic() ? 1e-12 : 0.0)) << cloud.label;
    EXPECT_TRUE(weightClose(prim.totalWeight, contract.totalWeight, 1e-6)) << cloud.label;
    EXPECT_EQ(prim.validPoints, contract.validPoints) << cloud.label;
  }
}

TEST(Reference, LatticeAndCopies)
{
  const Cloud lattice = makeCloud("lattice", 2, emst::ScalarType::Float32, latticePoints(9, 11, 0));
  const ReferenceTree tree = contractMst(lattice);
  ASSERT_EQ(tree.edges.size(), 98u);
  EXPECT_EQ(tree.totalWeight, 98.0);
  // Row-major lattice: ties by (min index, max index) give the first row, then verticals... the
  // first edge is (0, 1).
  EXPECT_EQ(tree.edges[0].i, 0u);
  EXPECT_EQ(tree.edges[0].j, 1u);

  const Cloud copies =
    makeCloud("copies", 3, emst::ScalarType::Float64, std::vector<Point>(50, Point{ 1, 2, 3 }));
  const ReferenceTree star = contractMst(copies);
  ASSERT_EQ(star.edges.size(), 49u);
  for (std::uint32_t k = 0; k < 49; ++k)
  {
    EXPECT_EQ(star.edges[k].i, 0u);
    EXPECT_EQ(star.edges[k].j, k + 1);
    EXPECT_EQ(star.edges[k].length, 0.0);
  }
}

TEST(Reference, ShiftUsesFiniteMinimum)
{
  const Cloud cloud = makeCloud("shift", 2, emst::ScalarType::Float64,
    { Point{ 1e7 + 0.5, -3, 0 }, Point{ -std::numeric_limits<double>::infinity(), 0, 0 },
      Point{ 1e7, 4, 0 } });
  const ShiftedCloud s = shiftCloud(cloud);
  EXPECT_EQ(s.validPoints, 2u);
  EXPECT_EQ(s.lo[0], 1e7);
  EXPECT_EQ(s.lo[1], -3.0);
  // Largest extent 7 = 1.75 * 2^2: scale 2^60 brings it into [2^62, 2^63), exactly.
  EXPECT_EQ(s.scale, std::ldexp(1.0, 60));
  EXPECT_EQ(s.key(0, 2), (0.25 + 49.0) * std::ldexp(1.0, 120));

  // No extent (all points equal): scale 1.
  const Cloud same =
    makeCloud("same", 3, emst::ScalarType::Float32, std::vector<Point>(3, Point{ 1, 2, 3 }));
  EXPECT_EQ(shiftCloud(same).scale, 1.0);
}

TEST(Reference, PeriodicKeyAndLength)
{
  // x periodic (L = 10, origin -1: the box is [-1, 9)), y open. Offsets from the origin: 1.5,
  // 8.5, and 10.5 (outside, wrapped to 0.5) where -0.5 is: points 2 and 3 coincide.
  Cloud cloud = makeCloud("periodic x", 2, emst::ScalarType::Float64,
    { Point{ 0.5, 0, 0 }, Point{ 7.5, 1, 0 }, Point{ 9.5, 0, 0 }, Point{ -0.5, 0, 0 } });
  cloud.box.size[0] = 10.0;
  cloud.box.origin[0] = -1.0;
  EXPECT_EQ(contractWrap(9.5, -1.0, 10.0), 0.5);
  EXPECT_EQ(contractWrap(-0.5, -1.0, 10.0), 0.5);
  EXPECT_EQ(contractWrap(-1e-30, 0.0, 10.0), 0.0); // w + L rounds to L: the origin
  EXPECT_EQ(contractWrap(-21.0, -1.0, 10.0), 0.0);
  EXPECT_EQ(inputDistance(cloud, 0, 1), std::sqrt(9.0 + 1.0)); // 3 around, not 7
  EXPECT_EQ(inputDistance(cloud, 2, 3), 0.0);
  EXPECT_EQ(inputDistance(cloud, 1, 2), std::sqrt(4.0 + 1.0));
  const ShiftedCloud s = shiftCloud(cloud);
  // The largest extent is the period 10 (the y extent is 1): scale 2^59.
  EXPECT_EQ(s.scale, std::ldexp(1.0, 59));
  EXPECT_EQ(s.key(0, 1), 10.0 * std::ldexp(1.0, 118));
  const ReferenceTree tree = contractMst(cloud);
  ASSERT_EQ(tree.edges.size(), 3u);
  EXPECT_EQ(tree.edges[0].i, 2u); // the duplicate pair first
  EXPECT_EQ(tree.edges[0].j, 3u);
  EXPECT_EQ(tree.totalWeight, 0.0 + 1.0 + std::sqrt(5.0));
}

TEST(Reference, CheckersCatchWrongTrees)
{
  Rng rng(77);
  const Cloud cloud =
    makeCloud("uniform", 3, emst::ScalarType::Float64, uniformPoints(rng, 200, 3));
  const ReferenceTree tree = contractMst(cloud);
  ASSERT_TRUE(cycleProperty(cloud, tree.edges));

  // Swap the shortest edge for the longest pair that reconnects the two parts: still a spanning
  // tree, but not a minimum one.
  std::vector<emst::Edge> wrong(tree.edges.begin() + 1, tree.edges.end());
  std::vector<std::uint32_t> side(cloud.count, 0);
  {
    std::vector<std::vector<std::uint32_t>> adjacent(cloud.count);
    for (const emst::Edge& e : wrong)
    {
      adjacent[e.i].push_back(e.j);
      adjacent[e.j].push_back(e.i);
    }
    std::vector<std::uint32_t> stack{ tree.edges[0].i };
    side[tree.edges[0].i] = 1;
    while (!stack.empty())
    {
      const std::uint32_t u = stack.back();
      stack.pop_back();
      for (std::uint32_t v : adjacent[u])
      {
        if (!side[v])
        {
          side[v] = 1;
          stack.push_back(v);
        }
      }
    }
  }
  emst::Edge longest;
  for (std::uint32_t i = 0; i < cloud.count; ++i)
  {
    for (std::uint32_t j = i + 1; j < cloud.count; ++j)
    {
      if (side[i] != side[j] && inputDistance(cloud, i, j) > longest.length)
      {
        longest = emst::Edge{ i, j, inputDistance(cloud, i, j) };
      }
    }
  }
  wrong.push_back(longest);
  std::sort(wrong.begin(), wrong.end(),
    [](const emst::Edge& x, const emst::Edge& y)
    { return std::tie(x.length, x.i, x.j) < std::tie(y.length, y.i, y.j); });
  EXPECT_TRUE(isSpanningTree(cloud, wrong));
  EXPECT_TRUE(exactLengthsAndOrder(cloud, wrong));
  EXPECT_FALSE(cycleProperty(cloud, wrong));
  EXPECT_FALSE(sameEdgeLists(tree.edges, wrong));
  EXPECT_FALSE(weightClose(tree.totalWeight, compensatedSum(wrong), 1e-6));

  // A cycle, an out-of-order list, a wrong length and a missing edge are caught too.
  std::vector<emst::Edge> cyclic = tree.edges;
  cyclic.back() = cyclic.front();
  EXPECT_FALSE(isSpanningTree(cloud, cyclic));
  std::vector<emst::Edge> unordered = tree.edges;
  std::swap(unordered[0], unordered[1]);
  EXPECT_FALSE(exactLengthsAndOrder(cloud, unordered));
  std::vector<emst::Edge> inexact = tree.edges;
  inexact[5].length = std::nextafter(inexact[5].length, 1.0);
  EXPECT_FALSE(exactLengthsAndOrder(cloud, inexact));
  std::vector<emst::Edge> missing(tree.edges.begin(), tree.edges.end() - 1);
  EXPECT_FALSE(isSpanningTree(cloud, missing));
}
