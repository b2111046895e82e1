// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Clusters.h: emst::TreeCutter (cut a tree at a prefix of its sorted edges into connected
// groups) and emst::singleLinkageHierarchy (scipy's linkage matrix), against references written
// here and calling nothing of Clusters.h:
//   - refCut: a sequential union-find over the kept edges, then the labelling rule of the header
//     (clusters by decreasing size, ties by smallest point index, groups below the minimum size
//     are noise, id -1);
//   - friendsOfFriends: brute force over all point pairs, groups of the graph joining points at
//     distance <= t (distance = Reference.h's inputDistance, the engine's Edge::length);
//   - kruskalLinkage: a sequential Kruskal with scipy's labelling (merge k creates n + k).
// The cutter's backend is the test parameter (Cpu, Cuda); the trees come from emst::computeEmst
// on the same backend.
//
// Naming: tests whose name starts with "Small" use small inputs; the GPU check runs them under
// compute-sanitizer with --gtest_filter='*.Small*/Cuda'.
#include "TestSupport.h"

#include "emst/Clusters.h"
#include "emst/PointFile.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <numeric>
#include <sstream>
#include <tuple>

using namespace emsttest;
using emst::Backend;
using emst::Edge;

namespace
{

const double Inf = std::numeric_limits<double>::infinity();
const double NaN = std::numeric_limits<double>::quiet_NaN();

// ---- references ---------------------------------------------------------------------------------

struct UnionFind
{
  std::vector<std::size_t> parent;
  std::vector<std::size_t> size;
  explicit UnionFind(std::size_t n)
    : parent(n)
    , size(n, 1)
  {
    std::iota(this->parent.begin(), this->parent.end(), std::size_t(0));
  }
  std::size_t find(std::size_t x)
  {
    while (this->parent[x] != x)
    {
      this->parent[x] = this->parent[this->parent[x]];
      x = this->parent[x];
    }
    return x;
  }
  /// Joins the sets of a and b; returns the root of the union.
  std::size_t unite(std::size_t a, std::size_t b)
  {
    a = this->find(a);
    b = this->find(b);
    if (a == b)
    {
      return a;
    }
    if (this->size[a] < this->size[b])
    {
      std::swap(a, b);
    }
    this->parent[b] = a;
    this->size[a] += this->size[b];
    return a;
  }
};

/// The edges with i < j in the order (length, i, j).
std::vector<Edge> canonicalOrder(std::vector<Edge> edges)
{
  for (Edge& e : edges)
  {
    if (e.i > e.j)
    {
      std::swap(e.i, e.j);
    }
  }
  std::sort(edges.begin(), edges.end(),
    [](const Edge& a, const Edge& b)
    { return std::tie(a.length, a.i, a.j) < std::tie(b.length, b.i, b.j); });
  return edges;
}

/// What a cut must give: the Clustering fields and the per-point arrays.
struct ExpectedCut
{
  std::size_t keptEdges = 0;
  std::size_t groups = 0;
  std::vector<std::uint64_t> sizes;
  std::vector<std::uint32_t> firstPoint;
  std::size_t noisePoints = 0;
  std::vector<std::int32_t> clusterId;
  std::vector<std::int64_t> groupSize;
};

/// Labels a partition given by one representative per point (any representative).
ExpectedCut labelPartition(const std::vector<std::size_t>& representative, std::size_t minimumSize)
{
  const std::size_t n = representative.size();
  std::vector<std::size_t> count(n, 0);
  std::vector<std::size_t> first(n, n);
  for (std::size_t p = 0; p < n; ++p)
  {
    const std::size_t r = representative[p];
    ++count[r];
    first[r] = std::min(first[r], p);
  }
  std::vector<std::size_t> groups;
  for (std::size_t r = 0; r < n; ++r)
  {
    if (count[r] > 0)
    {
      groups.push_back(r);
    }
  }
  std::sort(groups.begin(), groups.end(),
    [&](std::size_t a, std::size_t b)
    { return count[a] != count[b] ? count[a] > count[b] : first[a] < first[b]; });
  ExpectedCut cut;
  cut.groups = groups.size();
  std::vector<std::int32_t> id(n, -1);
  for (std::size_t r : groups)
  {
    if (count[r] >= minimumSize)
    {
      id[r] = static_cast<std::int32_t>(cut.sizes.size());
      cut.sizes.push_back(count[r]);
      cut.firstPoint.push_back(static_cast<std::uint32_t>(first[r]));
    }
    else
    {
      cut.noisePoints += count[r];
    }
  }
  cut.clusterId.resize(n);
  cut.groupSize.resize(n);
  for (std::size_t p = 0; p < n; ++p)
  {
    cut.clusterId[p] = id[representative[p]];
    cut.groupSize[p] = static_cast<std::int64_t>(count[representative[p]]);
  }
  return cut;
}

/// Sequential union-find over the first `kept` edges of the canonical order of `edges`.
ExpectedCut refCut(
  std::size_t n, const std::vector<Edge>& edges, std::size_t kept, std::size_t minimumSize)
{
  const std::vector<Edge> sorted = canonicalOrder(edges);
  UnionFind sets(n);
  for (std::size_t k = 0; k < kept && k < sorted.size(); ++k)
  {
    sets.unite(sorted[k].i, sorted[k].j);
  }
  std::vector<std::size_t> representative(n);
  for (std::size_t p = 0; p < n; ++p)
  {
    representative[p] = sets.find(p);
  }
  ExpectedCut cut = labelPartition(representative, minimumSize);
  cut.keptEdges = std::min(kept, sorted.size());
  return cut;
}

/// Friends-of-friends by brute force: the groups of the graph joining every pair of finite
/// points at distance <= t, labelled like a cut with minimum size 1.
ExpectedCut friendsOfFriends(const Cloud& cloud, double t)
{
  UnionFind sets(cloud.count);
  for (std::size_t i = 0; i < cloud.count; ++i)
  {
    for (std::size_t j = i + 1; j < cloud.count; ++j)
    {
      if (inputDistance(cloud, i, j) <= t)
      {
        sets.unite(i, j);
      }
    }
  }
  std::vector<std::size_t> representative(cloud.count);
  for (std::size_t p = 0; p < cloud.count; ++p)
  {
    representative[p] = sets.find(p);
  }
  return labelPartition(representative, 1);
}

/// scipy's single linkage by a sequential Kruskal: edges by (length, min, max); merge k joins the
/// clusters labelled a and b into n + k, row (min(a, b), max(a, b), length, size).
std::vector<emst::Merge> kruskalLinkage(std::size_t n, const std::vector<Edge>& edges)
{
  const std::vector<Edge> sorted = canonicalOrder(edges);
  UnionFind sets(n);
  std::vector<std::uint64_t> label(n);
  std::iota(label.begin(), label.end(), std::uint64_t(0));
  std::vector<emst::Merge> rows;
  for (const Edge& e : sorted)
  {
    const std::size_t a = sets.find(e.i);
    const std::size_t b = sets.find(e.j);
    emst::Merge m;
    m.first = std::min(label[a], label[b]);
    m.second = std::max(label[a], label[b]);
    m.height = e.length;
    m.size = sets.size[a] + sets.size[b];
    const std::size_t root = sets.unite(a, b);
    label[root] = n + rows.size();
    rows.push_back(m);
  }
  return rows;
}

// ---- running and comparing cuts -----------------------------------------------------------------

struct CutOutput
{
  emst::Clustering info;
  std::vector<std::int32_t> clusterId;
  std::vector<std::int64_t> groupSize;
};

/// Runs a cut with both per-point arrays (prefilled with values no cut can give).
CutOutput runCut(emst::TreeCutter& cutter, std::size_t kept, std::size_t minimumSize)
{
  CutOutput out;
  out.clusterId.assign(cutter.pointCount(), -12345);
  out.groupSize.assign(cutter.pointCount(), -777);
  out.info = cutter.cut(kept, minimumSize, out.clusterId.data(), out.groupSize.data());
  return out;
}

template <typename T>
std::string listText(const std::vector<T>& values, std::size_t most = 8)
{
  std::ostringstream s;
  s << "[";
  for (std::size_t k = 0; k < values.size() && k < most; ++k)
  {
    s << (k ? ", " : "") << values[k];
  }
  if (values.size() > most)
  {
    s << ", ... (" << values.size() << " values)";
  }
  s << "]";
  return s.str();
}

/// Every field of the cut against the reference; the first per-point difference is named.
testing::AssertionResult sameCut(
  const ExpectedCut& want, const CutOutput& got, bool checkKept = true)
{
  if (checkKept && got.info.keptEdges != want.keptEdges)
  {
    return testing::AssertionFailure()
      << "keptEdges " << got.info.keptEdges << ", expected " << want.keptEdges;
  }
  if (got.info.groups != want.groups)
  {
    return testing::AssertionFailure()
      << "groups " << got.info.groups << ", expected " << want.groups;
  }
  if (got.info.noisePoints != want.noisePoints)
  {
    return testing::AssertionFailure()
      << "noisePoints " << got.info.noisePoints << ", expected " << want.noisePoints;
  }
  if (got.info.sizes != want.sizes)
  {
    return testing::AssertionFailure()
      << "sizes " << listText(got.info.sizes) << ", expected " << listText(want.sizes);
  }
  if (got.info.firstPoint != want.firstPoint)
  {
    return testing::AssertionFailure() << "firstPoint " << listText(got.info.firstPoint)
                                       << ", expected " << listText(want.firstPoint);
  }
  for (std::size_t p = 0; p < want.clusterId.size(); ++p)
  {
    if (got.clusterId[p] != want.clusterId[p] || got.groupSize[p] != want.groupSize[p])
    {
      return testing::AssertionFailure()
        << "point " << p << ": clusterId " << got.clusterId[p] << " groupSize " << got.groupSize[p]
        << ", expected clusterId " << want.clusterId[p] << " groupSize " << want.groupSize[p];
    }
  }
  return testing::AssertionSuccess();
}

/// Same clusters and per-point arrays (two cuts of the same tree, e.g. two backends).
testing::AssertionResult sameOutput(const CutOutput& a, const CutOutput& b)
{
  ExpectedCut want;
  want.keptEdges = a.info.keptEdges;
  want.groups = a.info.groups;
  want.sizes = a.info.sizes;
  want.firstPoint = a.info.firstPoint;
  want.noisePoints = a.info.noisePoints;
  want.clusterId = a.clusterId;
  want.groupSize = a.groupSize;
  return sameCut(want, b);
}

std::size_t countAtMost(const std::vector<Edge>& edges, double t)
{
  return static_cast<std::size_t>(
    std::count_if(edges.begin(), edges.end(), [t](const Edge& e) { return e.length <= t; }));
}

/// Asserts that `call` throws emst::Error with code InvalidInput.
template <typename F>
testing::AssertionResult throwsInvalidInput(F&& call)
{
  try
  {
    call();
  }
  catch (const emst::Error& e)
  {
    if (e.code() == emst::ErrorCode::InvalidInput)
    {
      return testing::AssertionSuccess();
    }
    return testing::AssertionFailure() << "threw " << errorCodeName(e.code()) << ": " << e.what();
  }
  catch (const std::exception& e)
  {
    return testing::AssertionFailure() << "threw a non-emst exception: " << e.what();
  }
  return testing::AssertionFailure() << "did not throw";
}

/// The clouds of the randomized tests: 2D and 3D, uniform, clustered, integer (ties, duplicates).
std::vector<Cloud> randomClouds()
{
  Rng rng(20261122);
  const auto F64 = emst::ScalarType::Float64;
  const auto F32 = emst::ScalarType::Float32;
  std::vector<Cloud> clouds;
  clouds.push_back(makeCloud("uniform 2D 1500", 2, F64, uniformPoints(rng, 1500, 2)));
  clouds.push_back(makeCloud("uniform 3D 2500", 3, F32, uniformPoints(rng, 2500, 3)));
  clouds.push_back(makeCloud("clustered 2D 2000", 2, F32, clusteredPoints(rng, 2000, 2)));
  clouds.push_back(makeCloud("clustered 3D 2500", 3, F64, clusteredPoints(rng, 2500, 3)));
  clouds.push_back(makeCloud("integers 2D [0,40] 1200", 2, F32, integerPoints(rng, 1200, 2, 40)));
  clouds.push_back(makeCloud("integers 3D [0,10] 1000", 3, F64, integerPoints(rng, 1000, 3, 10)));
  return clouds;
}

double largestExtent(const Cloud& cloud)
{
  double extent = 0.0;
  for (int a = 0; a < cloud.dimension; ++a)
  {
    double lo = Inf, hi = -Inf;
    for (std::size_t p = 0; p < cloud.count; ++p)
    {
      lo = std::min(lo, cloud.at(p, a));
      hi = std::max(hi, cloud.at(p, a));
    }
    extent = std::max(extent, hi - lo);
  }
  return extent;
}

class ClusterCut : public BackendTest
{
protected:
  /// The tree of `cloud` from the engine on this test's backend.
  std::vector<Edge> treeOf(const Cloud& cloud)
  {
    const auto result = runEngine(cloud, this->options());
    return result ? result->edges : std::vector<Edge>();
  }
};

INSTANTIATE_TEST_SUITE_P(
  Backends, ClusterCut, testing::ValuesIn(testedBackends()), backendParamName);

} // namespace

// ---- hand-checked cases -------------------------------------------------------------------------

TEST_P(ClusterCut, SmallHandCases)
{
  // Points on a line at 0, 1, 3, 6, 10: the chain of lengths 1, 2, 3, 4 (given shuffled, with
  // i > j in some edges).
  const std::vector<Edge> chain = { { 3, 2, 3.0 }, { 0, 1, 1.0 }, { 4, 3, 4.0 }, { 1, 2, 2.0 } };
  emst::TreeCutter cutter(5, chain, this->backend());
  EXPECT_EQ(cutter.backend(), this->backend());
  EXPECT_EQ(cutter.pointCount(), 5u);
  EXPECT_EQ(cutter.edgeCount(), 4u);
  const std::vector<Edge> sorted = { { 0, 1, 1.0 }, { 1, 2, 2.0 }, { 2, 3, 3.0 }, { 3, 4, 4.0 } };
  EXPECT_TRUE(sameEdgeLists(sorted, cutter.sortedEdges()));

  EXPECT_EQ(cutter.edgesAtMost(-1.0), 0u);
  EXPECT_EQ(cutter.edgesAtMost(0.999), 0u);
  EXPECT_EQ(cutter.edgesAtMost(1.0), 1u);
  EXPECT_EQ(cutter.edgesAtMost(std::nextafter(2.0, 0.0)), 1u);
  EXPECT_EQ(cutter.edgesAtMost(2.0), 2u); // an edge of length exactly t is kept
  EXPECT_EQ(cutter.edgesAtMost(4.0), 4u);
  EXPECT_EQ(cutter.edgesAtMost(Inf), 4u);
  EXPECT_EQ(cutter.edgesAtMost(NaN), 0u);
  EXPECT_EQ(cutter.edgesForGroups(1), 4u);
  EXPECT_EQ(cutter.edgesForGroups(2), 3u);
  EXPECT_EQ(cutter.edgesForGroups(5), 0u);
  EXPECT_EQ(cutter.edgesForGroups(9), 0u);
  EXPECT_EQ(cutter.edgesForGroups(0), 4u);

  {
    const CutOutput c = runCut(cutter, cutter.edgesAtMost(2.0), 1);
    ExpectedCut want;
    want.keptEdges = 2;
    want.groups = 3;
    want.sizes = { 3, 1, 1 };
    want.firstPoint = { 0, 3, 4 };
    want.clusterId = { 0, 0, 0, 1, 2 };
    want.groupSize = { 3, 3, 3, 1, 1 };
    EXPECT_TRUE(sameCut(want, c)) << "t = 2";
    EXPECT_EQ(c.info.backend, this->backend());
    EXPECT_GE(c.info.milliseconds, 0.0);
    EXPECT_GE(c.info.downloadMilliseconds, 0.0);
  }
  {
    const CutOutput c = runCut(cutter, cutter.edgesAtMost(2.0), 2);
    ExpectedCut want;
    want.keptEdges = 2;
    want.groups = 3;
    want.sizes = { 3 };
    want.firstPoint = { 0 };
    want.noisePoints = 2;
    want.clusterId = { 0, 0, 0, -1, -1 };
    want.groupSize = { 3, 3, 3, 1, 1 };
    EXPECT_TRUE(sameCut(want, c)) << "t = 2, minimum size 2";
  }
  {
    const CutOutput c = runCut(cutter, 0, 1);
    ExpectedCut want;
    want.groups = 5;
    want.sizes = { 1, 1, 1, 1, 1 };
    want.firstPoint = { 0, 1, 2, 3, 4 };
    want.clusterId = { 0, 1, 2, 3, 4 };
    want.groupSize = { 1, 1, 1, 1, 1 };
    EXPECT_TRUE(sameCut(want, c)) << "nothing kept";
  }
  {
    const CutOutput c = runCut(cutter, 4, 6);
    ExpectedCut want;
    want.keptEdges = 4;
    want.groups = 1;
    want.noisePoints = 5;
    want.clusterId = { -1, -1, -1, -1, -1 };
    want.groupSize = { 5, 5, 5, 5, 5 };
    EXPECT_TRUE(sameCut(want, c)) << "everything kept, minimum size above n";
  }

  // Ties of size broken by the smallest point index, not by the order of the edges:
  // {1,2,3} (size 3) -> 0, {0,6} -> 1, {4,5} -> 2 at t = 1.
  const std::vector<Edge> groups3 = { { 4, 5, 1.0 }, { 3, 4, 9.0 }, { 2, 3, 1.0 }, { 0, 6, 1.0 },
    { 0, 1, 9.0 }, { 1, 2, 1.0 } };
  emst::TreeCutter ties(7, groups3, this->backend());
  EXPECT_EQ(ties.edgesAtMost(1.0), 4u);
  {
    const CutOutput c = runCut(ties, ties.edgesAtMost(1.0), 0);
    ExpectedCut want;
    want.keptEdges = 4;
    want.groups = 3;
    want.sizes = { 3, 2, 2 };
    want.firstPoint = { 1, 0, 4 };
    want.clusterId = { 1, 0, 0, 0, 2, 2, 1 };
    want.groupSize = { 2, 3, 3, 3, 2, 2, 2 };
    EXPECT_TRUE(sameCut(want, c)) << "ties of size, minimum size 0";
  }
  // Either per-point array may be null; the Clustering is the same.
  {
    const CutOutput full = runCut(ties, 4, 1);
    std::vector<std::int32_t> id(7, -5);
    const emst::Clustering onlyIds = ties.cut(4, 1, id.data(), nullptr);
    EXPECT_EQ(id, full.clusterId);
    std::vector<std::int64_t> size(7, -5);
    const emst::Clustering onlySizes = ties.cut(4, 1, nullptr, size.data());
    EXPECT_EQ(size, full.groupSize);
    const emst::Clustering none = ties.cut(4, 1, nullptr, nullptr);
    for (const emst::Clustering* c : { &onlyIds, &onlySizes, &none })
    {
      EXPECT_EQ(c->groups, full.info.groups);
      EXPECT_EQ(c->sizes, full.info.sizes);
      EXPECT_EQ(c->firstPoint, full.info.firstPoint);
      EXPECT_EQ(c->noisePoints, full.info.noisePoints);
      EXPECT_EQ(c->keptEdges, full.info.keptEdges);
    }
  }
}

TEST_P(ClusterCut, SmallTinyInputs)
{
  {
    SCOPED_TRACE("n = 0");
    emst::TreeCutter cutter(0, std::vector<Edge>(), this->backend());
    EXPECT_EQ(cutter.pointCount(), 0u);
    EXPECT_EQ(cutter.edgeCount(), 0u);
    EXPECT_TRUE(cutter.sortedEdges().empty());
    EXPECT_EQ(cutter.edgesAtMost(1.0), 0u);
    EXPECT_EQ(cutter.edgesForGroups(0), 0u);
    EXPECT_EQ(cutter.edgesForGroups(3), 0u);
    const emst::Clustering c = cutter.cut(0, 1, nullptr, nullptr);
    EXPECT_EQ(c.keptEdges, 0u);
    EXPECT_EQ(c.groups, 0u);
    EXPECT_TRUE(c.sizes.empty());
    EXPECT_TRUE(c.firstPoint.empty());
    EXPECT_EQ(c.noisePoints, 0u);
  }
  {
    SCOPED_TRACE("n = 1");
    emst::TreeCutter cutter(1, std::vector<Edge>(), this->backend());
    ExpectedCut want;
    want.groups = 1;
    want.sizes = { 1 };
    want.firstPoint = { 0 };
    want.clusterId = { 0 };
    want.groupSize = { 1 };
    EXPECT_TRUE(sameCut(want, runCut(cutter, 0, 1)));
    ExpectedCut noise;
    noise.groups = 1;
    noise.noisePoints = 1;
    noise.clusterId = { -1 };
    noise.groupSize = { 1 };
    EXPECT_TRUE(sameCut(noise, runCut(cutter, 0, 2)));
    EXPECT_EQ(cutter.edgesForGroups(1), 0u);
  }
  {
    SCOPED_TRACE("n = 2");
    emst::TreeCutter cutter(2, std::vector<Edge>{ { 1, 0, 1.5 } }, this->backend());
    ASSERT_EQ(cutter.sortedEdges().size(), 1u);
    EXPECT_EQ(cutter.sortedEdges()[0].i, 0u);
    EXPECT_EQ(cutter.sortedEdges()[0].j, 1u);
    EXPECT_EQ(cutter.sortedEdges()[0].length, 1.5);
    EXPECT_EQ(cutter.edgesAtMost(std::nextafter(1.5, 0.0)), 0u);
    EXPECT_EQ(cutter.edgesAtMost(1.5), 1u);
    EXPECT_EQ(cutter.edgesForGroups(1), 1u);
    EXPECT_EQ(cutter.edgesForGroups(2), 0u);
    ExpectedCut apart;
    apart.groups = 2;
    apart.sizes = { 1, 1 };
    apart.firstPoint = { 0, 1 };
    apart.clusterId = { 0, 1 };
    apart.groupSize = { 1, 1 };
    EXPECT_TRUE(sameCut(apart, runCut(cutter, 0, 1)));
    ExpectedCut joined;
    joined.keptEdges = 1;
    joined.groups = 1;
    joined.sizes = { 2 };
    joined.firstPoint = { 0 };
    joined.clusterId = { 0, 0 };
    joined.groupSize = { 2, 2 };
    EXPECT_TRUE(sameCut(joined, runCut(cutter, 1, 2)));
  }
  // The engine's trees of 0, 1 and 2 points cut the same way.
  Rng rng(7);
  for (std::size_t n : { 0, 1, 2 })
  {
    SCOPED_TRACE("engine tree of " + std::to_string(n) + " points");
    const Cloud cloud = makeCloud(
      "uniform " + std::to_string(n), 3, emst::ScalarType::Float64, uniformPoints(rng, n, 3));
    const std::vector<Edge> tree = this->treeOf(cloud);
    ASSERT_EQ(tree.size(), n > 0 ? n - 1 : 0);
    emst::TreeCutter cutter(n, tree, this->backend());
    for (std::size_t kept = 0; kept <= tree.size(); ++kept)
    {
      EXPECT_TRUE(sameCut(refCut(n, tree, kept, 1), runCut(cutter, kept, 1))) << "kept " << kept;
    }
  }
}

TEST_P(ClusterCut, SmallForestAndIsolatedPoints)
{
  // Components {2,3,4}, {0,1}, {7,8}; points 5, 6, 9 have no edge.
  const std::vector<Edge> forest = { { 3, 4, 2.0 }, { 0, 1, 1.0 }, { 2, 3, 0.5 }, { 7, 8, 0.1 } };
  emst::TreeCutter cutter(10, forest, this->backend());
  EXPECT_EQ(cutter.pointCount(), 10u);
  EXPECT_EQ(cutter.edgeCount(), 4u);
  EXPECT_EQ(cutter.edgesForGroups(1), 4u); // a forest of 6 components cannot give fewer than 6
  EXPECT_EQ(cutter.edgesForGroups(6), 4u);
  EXPECT_EQ(cutter.edgesForGroups(7), 3u);
  EXPECT_EQ(cutter.edgesForGroups(10), 0u);
  {
    const CutOutput c = runCut(cutter, cutter.edgesAtMost(Inf), 1);
    ExpectedCut want;
    want.keptEdges = 4;
    want.groups = 6;
    want.sizes = { 3, 2, 2, 1, 1, 1 };
    want.firstPoint = { 2, 0, 7, 5, 6, 9 };
    want.clusterId = { 1, 1, 0, 0, 0, 3, 4, 2, 2, 5 };
    want.groupSize = { 2, 2, 3, 3, 3, 1, 1, 2, 2, 1 };
    EXPECT_TRUE(sameCut(want, c));
  }
  {
    const CutOutput c = runCut(cutter, 4, 2);
    ExpectedCut want;
    want.keptEdges = 4;
    want.groups = 6;
    want.sizes = { 3, 2, 2 };
    want.firstPoint = { 2, 0, 7 };
    want.noisePoints = 3;
    want.clusterId = { 1, 1, 0, 0, 0, -1, -1, 2, 2, -1 };
    want.groupSize = { 2, 2, 3, 3, 3, 1, 1, 2, 2, 1 };
    EXPECT_TRUE(sameCut(want, c)) << "minimum size 2";
  }
  {
    // t = 1: edges 0.1, 0.5, 1.0 kept: {0,1} (2), {2,3} (2), {7,8} (2), then singletons 4, 5, 6, 9.
    const CutOutput c = runCut(cutter, cutter.edgesAtMost(1.0), 1);
    ExpectedCut want;
    want.keptEdges = 3;
    want.groups = 7;
    want.sizes = { 2, 2, 2, 1, 1, 1, 1 };
    want.firstPoint = { 0, 2, 7, 4, 5, 6, 9 };
    want.clusterId = { 0, 0, 1, 1, 3, 4, 5, 2, 2, 6 };
    want.groupSize = { 2, 2, 2, 2, 1, 1, 1, 2, 2, 1 };
    EXPECT_TRUE(sameCut(want, c)) << "t = 1";
  }
  // No edges at all: n singletons.
  emst::TreeCutter bare(4, std::vector<Edge>(), this->backend());
  EXPECT_EQ(bare.edgesAtMost(Inf), 0u);
  EXPECT_EQ(bare.edgesForGroups(1), 0u);
  EXPECT_TRUE(sameCut(refCut(4, {}, 0, 1), runCut(bare, 0, 1)));
}

TEST_P(ClusterCut, SmallInvalidEdges)
{
  const Backend b = this->backend();
  using V = std::vector<Edge>;
  EXPECT_TRUE(throwsInvalidInput([&] { emst::TreeCutter c(3, V{ { 0, 3, 1.0 } }, b); })) << "j = n";
  EXPECT_TRUE(throwsInvalidInput([&] { emst::TreeCutter c(3, V{ { 7, 1, 1.0 } }, b); })) << "i > n";
  EXPECT_TRUE(throwsInvalidInput(
    [&] {
      emst::TreeCutter c(3, V{ { 0, 1, 1.0 }, { 2, 2, 0.5 } }, b);
    }))
    << "i == j";
  EXPECT_TRUE(throwsInvalidInput(
    [&] {
      emst::TreeCutter c(0, V{ { 0, 1, 1.0 } }, b);
    }))
    << "no points";
  EXPECT_TRUE(throwsInvalidInput(
    [&] {
      emst::TreeCutter c(5, V{ { 0, 1, 1.0 }, { 1, 2, 1.0 }, { 4, 4294967295u, 2.0 } }, b);
    }))
    << "j = 2^32 - 1";
  EXPECT_TRUE(throwsInvalidInput(
    [] {
      emst::singleLinkageHierarchy(3, V{ { 0, 3, 1.0 } });
    }))
    << "hierarchy, j = n";
  EXPECT_TRUE(throwsInvalidInput(
    [] {
      emst::singleLinkageHierarchy(3, V{ { 1, 1, 1.0 } });
    }))
    << "hierarchy, i == j";
  EXPECT_TRUE(throwsInvalidInput(
    [] {
      emst::singleLinkageHierarchy(0, V{ { 0, 1, 1.0 } });
    }))
    << "hierarchy, no points";
}

// ---- random clouds against the references -------------------------------------------------------

TEST_P(ClusterCut, RandomCloudsMatchReferences)
{
  for (const Cloud& cloud : randomClouds())
  {
    SCOPED_TRACE(cloud.label);
    const std::vector<Edge> tree = this->treeOf(cloud);
    ASSERT_EQ(tree.size(), cloud.count - 1);
    const std::size_t n = cloud.count;
    const std::size_t m = tree.size();
    emst::TreeCutter cutter(n, tree, this->backend());
    ASSERT_EQ(cutter.backend(), this->backend());
    ASSERT_EQ(cutter.pointCount(), n);
    ASSERT_EQ(cutter.edgeCount(), m);
    EXPECT_TRUE(sameEdgeLists(tree, cutter.sortedEdges()))
      << "the engine's tree is already in order";

    // Thresholds: below every edge, every edge length at a few quantiles (kept: "<= t"), the
    // middle of the gap after them, the longest edge, infinity, NaN (keeps nothing).
    std::vector<double> thresholds = { -1.0, tree.front().length, tree.back().length, Inf, NaN };
    for (double q : { 0.02, 0.3, 0.5, 0.8, 0.95, 0.99 })
    {
      const std::size_t k = static_cast<std::size_t>(q * static_cast<double>(m - 1));
      thresholds.push_back(tree[k].length);
      std::size_t next = k;
      while (next < m && tree[next].length == tree[k].length)
      {
        ++next;
      }
      if (next < m)
      {
        thresholds.push_back(0.5 * (tree[k].length + tree[next].length));
      }
    }
    for (double t : thresholds)
    {
      const std::size_t kept = countAtMost(tree, t);
      EXPECT_EQ(cutter.edgesAtMost(t), kept) << "t = " << t;
      for (std::size_t minimumSize : { std::size_t(1), std::size_t(4), std::size_t(25), n + 1 })
      {
        EXPECT_TRUE(sameCut(refCut(n, tree, kept, minimumSize), runCut(cutter, kept, minimumSize)))
          << "t = " << t << " (" << kept << " of " << m << " edges kept), minimum size "
          << minimumSize;
      }
    }
    // Below every edge: n singletons, ids = point indices; above: one cluster.
    {
      const CutOutput none = runCut(cutter, cutter.edgesAtMost(-1.0), 1);
      EXPECT_EQ(none.info.groups, n);
      std::vector<std::int32_t> identity(n);
      std::iota(identity.begin(), identity.end(), 0);
      EXPECT_EQ(none.clusterId, identity);
      const CutOutput all = runCut(cutter, cutter.edgesAtMost(Inf), 1);
      EXPECT_EQ(all.info.groups, 1u);
      EXPECT_EQ(all.info.sizes, std::vector<std::uint64_t>{ n });
      const CutOutput allNoise = runCut(cutter, cutter.edgesAtMost(tree[m / 2].length), n + 1);
      EXPECT_TRUE(allNoise.info.sizes.empty());
      EXPECT_EQ(allNoise.info.noisePoints, n);
      EXPECT_EQ(allNoise.clusterId, std::vector<std::int32_t>(n, -1));
    }

    // Friends-of-friends by brute force, at thresholds where float32 near-ties of the tree cannot
    // matter: no tree edge within (t, t + delta], delta well above the float32 resolution of the
    // engine's coordinates.
    const double delta = 1e-5 * largestExtent(cloud);
    int compared = 0;
    for (double q : { 0.1, 0.5, 0.9, 0.99 })
    {
      std::size_t k = static_cast<std::size_t>(q * static_cast<double>(m - 1));
      while (k + 1 < m && !(tree[k + 1].length > tree[k].length + delta))
      {
        ++k;
      }
      if (k + 1 >= m)
      {
        continue;
      }
      for (double t : { tree[k].length, 0.5 * (tree[k].length + tree[k + 1].length) })
      {
        const std::size_t kept = cutter.edgesAtMost(t);
        EXPECT_EQ(kept, k + 1);
        EXPECT_TRUE(sameCut(friendsOfFriends(cloud, t), runCut(cutter, kept, 1), false))
          << "friends-of-friends at t = " << t;
        ++compared;
      }
    }
    EXPECT_GE(compared, 4) << "too few thresholds with a clear gap";

    // NumberOfClusters: exactly k groups for 1 <= k <= n.
    for (std::size_t k : { std::size_t(1), std::size_t(2), std::size_t(10), n / 3, n - 1, n })
    {
      const std::size_t kept = cutter.edgesForGroups(k);
      EXPECT_EQ(kept, n - k);
      const CutOutput c = runCut(cutter, kept, 1);
      EXPECT_EQ(c.info.groups, k);
      EXPECT_TRUE(sameCut(refCut(n, tree, kept, 1), c)) << k << " clusters";
    }
    EXPECT_EQ(cutter.edgesForGroups(0), m);
    EXPECT_EQ(cutter.edgesForGroups(n + 5), 0u);
  }
}

TEST_P(ClusterCut, UnsortedEdgesGiveTheSameCut)
{
  Rng rng(99);
  std::vector<Cloud> clouds;
  clouds.push_back(makeCloud(
    "integers 2D [0,20] 800 (ties)", 2, emst::ScalarType::Float64, integerPoints(rng, 800, 2, 20)));
  clouds.push_back(
    makeCloud("clustered 3D 1500", 3, emst::ScalarType::Float32, clusteredPoints(rng, 1500, 3)));
  auto lattice = latticePoints(12, 10, 1);
  rng.shuffle(lattice);
  clouds.push_back(
    makeCloud("lattice 12x10, shuffled (all lengths 1)", 2, emst::ScalarType::Float64, lattice));
  for (const Cloud& cloud : clouds)
  {
    SCOPED_TRACE(cloud.label);
    const std::vector<Edge> tree = this->treeOf(cloud);
    ASSERT_EQ(tree.size(), cloud.count - 1);
    std::vector<Edge> shuffled = tree;
    rng.shuffle(shuffled);
    for (std::size_t k = 0; k < shuffled.size(); k += 2)
    {
      std::swap(shuffled[k].i, shuffled[k].j);
    }
    emst::TreeCutter sorted(cloud.count, tree, this->backend());
    emst::TreeCutter unsorted(cloud.count, shuffled.data(), shuffled.size(), this->backend());
    EXPECT_TRUE(sameEdgeLists(tree, unsorted.sortedEdges()))
      << "the canonical order of the shuffled edges";
    for (double q : { 0.0, 0.25, 0.5, 0.75, 1.0 })
    {
      const double t =
        tree[static_cast<std::size_t>(q * static_cast<double>(tree.size() - 1))].length;
      EXPECT_EQ(sorted.edgesAtMost(t), unsorted.edgesAtMost(t));
      for (std::size_t minimumSize : { 1, 3 })
      {
        const CutOutput a = runCut(sorted, sorted.edgesAtMost(t), minimumSize);
        const CutOutput b = runCut(unsorted, unsorted.edgesAtMost(t), minimumSize);
        EXPECT_TRUE(sameOutput(a, b)) << "t = " << t << ", minimum size " << minimumSize;
        EXPECT_TRUE(sameCut(refCut(cloud.count, shuffled, sorted.edgesAtMost(t), minimumSize), b));
      }
    }
    // With ties, edgesForGroups picks a prefix of the (length, i, j) order.
    for (std::size_t k : { std::size_t(3), std::size_t(17), cloud.count / 2 })
    {
      const CutOutput b = runCut(unsorted, unsorted.edgesForGroups(k), 1);
      EXPECT_EQ(b.info.groups, k);
      EXPECT_TRUE(sameCut(refCut(cloud.count, shuffled, cloud.count - k, 1), b))
        << k << " clusters";
    }
  }
}

TEST_P(ClusterCut, RandomForests)
{
  Rng rng(5150);
  for (int dim : { 2, 3 })
  {
    const Cloud cloud = makeCloud("clustered " + std::to_string(dim) + "D 2000", dim,
      emst::ScalarType::Float64, clusteredPoints(rng, 2000, dim));
    SCOPED_TRACE(cloud.label);
    const std::vector<Edge> tree = this->treeOf(cloud);
    ASSERT_EQ(tree.size(), cloud.count - 1);
    // Drop the longest 10% and one in seven of the rest; 60 isolated points past the cloud.
    std::vector<Edge> forest;
    for (std::size_t k = 0; k < tree.size() * 9 / 10; ++k)
    {
      if (rng.below(7) != 0)
      {
        forest.push_back(tree[k]);
      }
    }
    rng.shuffle(forest);
    const std::size_t n = cloud.count + 60;
    const std::size_t components = n - forest.size();
    emst::TreeCutter cutter(n, forest, this->backend());
    EXPECT_EQ(cutter.edgeCount(), forest.size());
    EXPECT_EQ(cutter.edgesForGroups(1), forest.size());
    EXPECT_EQ(cutter.edgesForGroups(components), forest.size());
    EXPECT_EQ(cutter.edgesForGroups(components + 5), forest.size() - 5);
    const std::vector<Edge> sorted = canonicalOrder(forest);
    for (double q : { 0.0, 0.4, 0.8, 1.0 })
    {
      const double t =
        sorted[static_cast<std::size_t>(q * static_cast<double>(sorted.size() - 1))].length;
      const std::size_t kept = cutter.edgesAtMost(t);
      EXPECT_EQ(kept, countAtMost(forest, t));
      for (std::size_t minimumSize : { 1, 2, 10 })
      {
        EXPECT_TRUE(
          sameCut(refCut(n, forest, kept, minimumSize), runCut(cutter, kept, minimumSize)))
          << "t = " << t << ", minimum size " << minimumSize;
      }
    }
    const CutOutput all = runCut(cutter, cutter.edgesForGroups(1), 1);
    EXPECT_EQ(all.info.groups, components);
    const CutOutput more = runCut(cutter, cutter.edgesForGroups(components + 5), 1);
    EXPECT_EQ(more.info.groups, components + 5);
    EXPECT_TRUE(sameCut(refCut(n, forest, forest.size() - 5, 1), more));
  }
}

TEST_P(ClusterCut, IdenticalPoints)
{
  const std::size_t n = 700;
  const Cloud cloud = makeCloud("700 copies of one point", 3, emst::ScalarType::Float32,
    std::vector<Point>(n, Point{ 0.25, -0.5, 0.75 }));
  const std::vector<Edge> tree = this->treeOf(cloud);
  ASSERT_EQ(tree.size(), n - 1);
  emst::TreeCutter cutter(n, tree, this->backend());
  EXPECT_EQ(cutter.edgesAtMost(0.0), n - 1) << "edges of length exactly 0 are kept at t = 0";
  EXPECT_EQ(cutter.edgesAtMost(-1e-300), 0u);
  EXPECT_EQ(cutter.edgesAtMost(-0.0), n - 1);
  const CutOutput one = runCut(cutter, cutter.edgesAtMost(0.0), 1);
  EXPECT_EQ(one.info.groups, 1u);
  EXPECT_EQ(one.info.sizes, std::vector<std::uint64_t>{ n });
  EXPECT_EQ(one.info.firstPoint, std::vector<std::uint32_t>{ 0 });
  EXPECT_EQ(one.clusterId, std::vector<std::int32_t>(n, 0));
  EXPECT_EQ(one.groupSize, std::vector<std::int64_t>(n, static_cast<std::int64_t>(n)));
  EXPECT_TRUE(sameCut(refCut(n, tree, 0, 1), runCut(cutter, 0, 1))) << "nothing kept";
  EXPECT_TRUE(sameCut(refCut(n, tree, 0, 2), runCut(cutter, 0, 2))) << "nothing kept, all noise";
  for (std::size_t k : { 2, 3, 50, 699 })
  {
    const std::size_t kept = cutter.edgesForGroups(k);
    EXPECT_TRUE(sameCut(refCut(n, tree, kept, 1), runCut(cutter, kept, 1))) << k << " clusters";
    EXPECT_TRUE(sameCut(refCut(n, tree, kept, 5), runCut(cutter, kept, 5)))
      << k << " clusters, minimum size 5";
  }
}

TEST_P(ClusterCut, RepeatedCutsAreIndependent)
{
  Rng rng(31337);
  const Cloud cloud =
    makeCloud("clustered 3D 3000", 3, emst::ScalarType::Float32, clusteredPoints(rng, 3000, 3));
  const std::vector<Edge> tree = this->treeOf(cloud);
  ASSERT_EQ(tree.size(), cloud.count - 1);
  emst::TreeCutter cutter(cloud.count, tree, this->backend());
  // A slider moving back and forth: every cut equals a fresh reference.
  const std::size_t m = tree.size();
  for (std::size_t kept :
    { m, std::size_t(0), m / 2, m - 1, std::size_t(1), m / 2, m / 10, m, m / 2 })
  {
    for (std::size_t minimumSize : { 1, 8 })
    {
      EXPECT_TRUE(
        sameCut(refCut(cloud.count, tree, kept, minimumSize), runCut(cutter, kept, minimumSize)))
        << "kept " << kept << ", minimum size " << minimumSize;
    }
  }
}

TEST_P(ClusterCut, SameAsCpu)
{
  // The cut does not depend on the backend (nor on the run): this backend against a second,
  // CPU, cutter, bit for bit, on clouds large enough to race.
  Rng rng(4242);
  std::vector<Cloud> clouds;
  clouds.push_back(
    makeCloud("clustered 3D 40000", 3, emst::ScalarType::Float32, clusteredPoints(rng, 40000, 3)));
  clouds.push_back(
    makeCloud("uniform 2D 40000", 2, emst::ScalarType::Float32, uniformPoints(rng, 40000, 2)));
  clouds.push_back(makeCloud("integers 3D [0,6] 20000 (duplicates)", 3, emst::ScalarType::Float32,
    integerPoints(rng, 20000, 3, 6)));
  for (const Cloud& cloud : clouds)
  {
    SCOPED_TRACE(cloud.label);
    const std::vector<Edge> tree = this->treeOf(cloud);
    ASSERT_EQ(tree.size(), cloud.count - 1);
    emst::TreeCutter cutter(cloud.count, tree, this->backend());
    emst::TreeCutter cpu(cloud.count, tree, Backend::Cpu);
    for (double q : { 0.0, 0.5, 0.9, 0.99, 1.0 })
    {
      const double t =
        tree[static_cast<std::size_t>(q * static_cast<double>(tree.size() - 1))].length;
      ASSERT_EQ(cutter.edgesAtMost(t), cpu.edgesAtMost(t));
      const std::size_t kept = cutter.edgesAtMost(t);
      for (std::size_t minimumSize : { 1, 5 })
      {
        const CutOutput want = runCut(cpu, kept, minimumSize);
        EXPECT_TRUE(sameOutput(want, runCut(cutter, kept, minimumSize))) << "t = " << t;
        EXPECT_TRUE(sameOutput(want, runCut(cutter, kept, minimumSize)))
          << "t = " << t << ", second run";
      }
    }
    const std::size_t kept = cutter.edgesForGroups(10);
    EXPECT_TRUE(sameOutput(runCut(cpu, kept, 1), runCut(cutter, kept, 1))) << "10 clusters";
    EXPECT_TRUE(sameCut(refCut(cloud.count, tree, kept, 1), runCut(cutter, kept, 1)))
      << "10 clusters";
  }
}

TEST(ClusterCutApi, AutoBackend)
{
  emst::TreeCutter cutter(3, std::vector<Edge>{ { 0, 1, 1.0 }, { 1, 2, 2.0 } }, Backend::Auto);
  EXPECT_NE(cutter.backend(), Backend::Auto);
  EXPECT_EQ(cutter.backend(), cudaUsable() ? Backend::Cuda : Backend::Cpu);
  const emst::Clustering c = cutter.cut(1, 1, nullptr, nullptr);
  EXPECT_EQ(c.backend, cutter.backend());
  EXPECT_EQ(c.groups, 2u);
}

TEST(ClusterCutApi, CudaUnavailableIsReported)
{
  if (cudaUsable())
  {
    GTEST_SKIP() << "CUDA is usable here";
  }
  try
  {
    emst::TreeCutter cutter(3, std::vector<Edge>{ { 0, 1, 1.0 } }, Backend::Cuda);
    ADD_FAILURE() << "Backend::Cuda without a usable device did not throw";
  }
  catch (const emst::Error& e)
  {
    EXPECT_EQ(e.code(), emst::ErrorCode::DeviceUnavailable)
      << errorCodeName(e.code()) << ": " << e.what();
  }
}

// ---- single-linkage hierarchy -------------------------------------------------------------------

namespace
{

testing::AssertionResult sameLinkage(
  const std::vector<emst::Merge>& want, const std::vector<emst::Merge>& got)
{
  if (want.size() != got.size())
  {
    return testing::AssertionFailure() << got.size() << " merges, expected " << want.size();
  }
  for (std::size_t k = 0; k < want.size(); ++k)
  {
    const emst::Merge& a = want[k];
    const emst::Merge& b = got[k];
    if (a.first != b.first || a.second != b.second || a.height != b.height || a.size != b.size)
    {
      return testing::AssertionFailure()
        << "merge " << k << ": (" << b.first << ", " << b.second << ", " << b.height << ", "
        << b.size << "), expected (" << a.first << ", " << a.second << ", " << a.height << ", "
        << a.size << ")";
    }
  }
  return testing::AssertionSuccess();
}

/// Structure of a linkage matrix of n points: heights non-decreasing, first < second, children
/// created before and used once, sizes add up; `spanning`: the last merge holds all n points.
testing::AssertionResult linkageProperties(
  std::size_t n, const std::vector<emst::Merge>& z, bool spanning)
{
  std::vector<std::uint64_t> size(n + z.size(), 1);
  std::vector<char> used(n + z.size(), 0);
  for (std::size_t k = 0; k < z.size(); ++k)
  {
    const emst::Merge& m = z[k];
    if (k > 0 && !(z[k - 1].height <= m.height))
    {
      return testing::AssertionFailure()
        << "merge " << k << ": height " << m.height << " below " << z[k - 1].height;
    }
    if (!(m.first < m.second) || m.second >= n + k)
    {
      return testing::AssertionFailure()
        << "merge " << k << ": children " << m.first << ", " << m.second;
    }
    if (used[m.first] || used[m.second])
    {
      return testing::AssertionFailure() << "merge " << k << ": a child merged twice";
    }
    used[m.first] = used[m.second] = 1;
    if (m.size != size[m.first] + size[m.second])
    {
      return testing::AssertionFailure() << "merge " << k << ": size " << m.size << ", children "
                                         << size[m.first] << " + " << size[m.second];
    }
    size[n + k] = m.size;
  }
  if (spanning && n > 1 && (z.empty() || z.back().size != n))
  {
    return testing::AssertionFailure() << "the last merge does not hold all " << n << " points";
  }
  return testing::AssertionSuccess();
}

} // namespace

TEST(ClusterHierarchy, SmallHandCases)
{
  using V = std::vector<Edge>;
  using Z = std::vector<emst::Merge>;
  EXPECT_TRUE(emst::singleLinkageHierarchy(0, V{}).empty());
  EXPECT_TRUE(emst::singleLinkageHierarchy(1, V{}).empty());
  EXPECT_TRUE(
    sameLinkage(Z{ { 0, 1, 2.5, 2 } }, emst::singleLinkageHierarchy(2, V{ { 1, 0, 2.5 } })));
  // Line 0, 1, 3: merge (0,1) at 1 -> 3, then (2, 3) at 2.
  EXPECT_TRUE(sameLinkage(Z{ { 0, 1, 1.0, 2 }, { 2, 3, 2.0, 3 } },
    emst::singleLinkageHierarchy(3, V{ { 2, 1, 2.0 }, { 0, 1, 1.0 } })));
  // x = 0, 10, 1, 12: (0,2) at 1 -> 4, (1,3) at 2 -> 5, (1,2) at 9 joins 5 and 4 -> (4, 5).
  EXPECT_TRUE(sameLinkage(Z{ { 0, 2, 1.0, 2 }, { 1, 3, 2.0, 2 }, { 4, 5, 9.0, 4 } },
    emst::singleLinkageHierarchy(4, V{ { 1, 2, 9.0 }, { 3, 1, 2.0 }, { 0, 2, 1.0 } })));
  // Equal lengths merge in (min, max) order: (0,1) -> 4, (1,2) -> (2, 4) -> 5, (2,3) -> (3, 5).
  EXPECT_TRUE(sameLinkage(Z{ { 0, 1, 1.0, 2 }, { 2, 4, 1.0, 3 }, { 3, 5, 1.0, 4 } },
    emst::singleLinkageHierarchy(4, V{ { 2, 3, 1.0 }, { 0, 1, 1.0 }, { 2, 1, 1.0 } })));
  // A forest: 5 points, components {0,4}, {1,2,3}: 3 merges, none holds all points.
  const Z forest =
    emst::singleLinkageHierarchy(5, V{ { 3, 2, 0.5 }, { 4, 0, 0.7 }, { 1, 2, 0.6 } });
  EXPECT_TRUE(sameLinkage(Z{ { 2, 3, 0.5, 2 }, { 1, 5, 0.6, 3 }, { 0, 4, 0.7, 2 } }, forest));
  EXPECT_TRUE(linkageProperties(5, forest, false));
}

TEST(ClusterHierarchy, RandomCloudsMatchKruskal)
{
  for (const Cloud& cloud : randomClouds())
  {
    SCOPED_TRACE(cloud.label);
    const auto result = runEngine(cloud, optionsFor(Backend::Cpu));
    ASSERT_TRUE(result);
    const std::vector<Edge>& tree = result->edges;
    const std::size_t n = cloud.count;
    const std::vector<emst::Merge> z = emst::singleLinkageHierarchy(n, tree);
    EXPECT_TRUE(sameLinkage(kruskalLinkage(n, tree), z));
    EXPECT_TRUE(linkageProperties(n, z, true));
    // Order of the input does not matter.
    std::vector<Edge> shuffled = tree;
    Rng rng(n);
    rng.shuffle(shuffled);
    for (std::size_t k = 0; k < shuffled.size(); k += 3)
    {
      std::swap(shuffled[k].i, shuffled[k].j);
    }
    EXPECT_TRUE(sameLinkage(z, emst::singleLinkageHierarchy(n, shuffled))) << "shuffled edges";
    // Cutting the dendrogram at t gives the groups of the threshold cut: n - merges at <= t.
    emst::TreeCutter cutter(n, tree, Backend::Cpu);
    for (double q : { 0.0, 0.5, 0.9, 1.0 })
    {
      const double t =
        tree[static_cast<std::size_t>(q * static_cast<double>(tree.size() - 1))].length;
      const std::size_t merges = static_cast<std::size_t>(
        std::count_if(z.begin(), z.end(), [t](const emst::Merge& m) { return m.height <= t; }));
      EXPECT_EQ(cutter.cut(cutter.edgesAtMost(t), 1, nullptr, nullptr).groups, n - merges)
        << "t = " << t;
    }
  }
}

TEST(ClusterHierarchy, RandomForest)
{
  Rng rng(808);
  const Cloud cloud =
    makeCloud("uniform 3D 1200", 3, emst::ScalarType::Float64, uniformPoints(rng, 1200, 3));
  const auto result = runEngine(cloud, optionsFor(Backend::Cpu));
  ASSERT_TRUE(result);
  std::vector<Edge> forest;
  for (const Edge& e : result->edges)
  {
    if (rng.below(10) != 0)
    {
      forest.push_back(e);
    }
  }
  rng.shuffle(forest);
  const std::size_t n = cloud.count + 7;
  const std::vector<emst::Merge> z = emst::singleLinkageHierarchy(n, forest);
  EXPECT_TRUE(sameLinkage(kruskalLinkage(n, forest), z));
  EXPECT_TRUE(linkageProperties(n, z, false));
}

// ---- real data sets: cluster counts of NAME.ref.json
// ----------------------------------------------

namespace
{

/// The smaller shared sets (the cut tests stay fast); one that is missing skips, and a missing
/// folder gives one placeholder. Every set of Testing/Data runs.
std::vector<DataSetFile> sharedClusterSets()
{
  if (dataSetsIn(sharedDataDir()).front().name.empty())
  {
    return { { sharedDataDir(), "" } };
  }
  std::vector<DataSetFile> sets;
  for (const char* name :
    { "scan_bunny36k", "galaxies_mr19mock84k", "tsp_pla85900", "geo_cities1000" })
  {
    sets.push_back({ sharedDataDir(), name });
  }
  return sets;
}

/// The text of `section` in a reference file: from its key to the end (the keys read next are the
/// section's own: the p50 section comes before p99 in every file).
bool sectionOf(const std::string& json, const std::string& section, std::string& text)
{
  const std::size_t at = json.find("\"" + section + "\"");
  if (at == std::string::npos)
  {
    return false;
  }
  text = json.substr(at);
  return true;
}

/// The string value after "key": (t_repr).
bool jsonString(const std::string& text, const std::string& key, std::string& value)
{
  std::size_t at = text.find("\"" + key + "\"");
  if (at == std::string::npos || (at = text.find(':', at + key.size() + 2)) == std::string::npos)
  {
    return false;
  }
  const std::size_t open = text.find('"', at);
  const std::size_t close = open == std::string::npos ? open : text.find('"', open + 1);
  if (close == std::string::npos)
  {
    return false;
  }
  value = text.substr(open + 1, close - open - 1);
  return true;
}

class ClusterDataSet : public DataSetTest
{
};

INSTANTIATE_TEST_SUITE_P(Repo, ClusterDataSet,
  testing::Combine(
    testing::ValuesIn(testedBackends()), testing::ValuesIn(dataSetsIn(repoDataDir()))),
  dataSetParamName);
INSTANTIATE_TEST_SUITE_P(Shared, ClusterDataSet,
  testing::Combine(testing::ValuesIn(testedBackends()), testing::ValuesIn(sharedClusterSets())),
  dataSetParamName);

} // namespace

TEST_P(ClusterDataSet, CountsAtPercentiles)
{
  const Backend backend = this->backend();
  const std::string& name = dataSet().name;
  const std::string json = fileText(dataSet().path(".ref.json"));

  emst::PointSet points;
  ASSERT_NO_THROW(points = emst::readPointFile(dataSet().path(".f32")));
  emst::Result result;
  ASSERT_NO_THROW(result = emst::computeEmst(points.view(), optionsFor(backend)));
  ASSERT_EQ(result.edges.size(), points.count - 1);
  const std::size_t n = points.count;
  emst::TreeCutter cutter(n, result.edges, backend);
  ASSERT_EQ(cutter.backend(), backend);

  for (const char* section : { "p50", "p99" })
  {
    SCOPED_TRACE(name + " " + section);
    std::string text, tRepr;
    ASSERT_TRUE(sectionOf(json, section, text))
      << "no " << section << " in " << dataSet().path(".ref.json");
    ASSERT_TRUE(jsonString(text, "t_repr", tRepr));
    const double t = std::strtod(tRepr.c_str(), nullptr);
    double tNumber = 0, clusters = 0, longer = 0, equal = 0, clustersIfCut = 0;
    ASSERT_TRUE(emst::jsonNumber(text, "t", tNumber));
    EXPECT_EQ(t, tNumber) << "t_repr and t";
    ASSERT_TRUE(emst::jsonNumber(text, "clusters", clusters));
    ASSERT_TRUE(emst::jsonNumber(text, "mst_edges_longer_than_t", longer));
    ASSERT_TRUE(emst::jsonNumber(text, "mst_edges_equal_to_t", equal));
    ASSERT_TRUE(emst::jsonNumber(text, "clusters_if_edges_equal_to_t_also_cut", clustersIfCut));
    std::vector<double> largest, largestIfCut;
    ASSERT_TRUE(jsonArray(text, "largest_cluster_sizes", largest));
    ASSERT_TRUE(jsonArray(text, "largest_cluster_sizes_if_equal_also_cut", largestIfCut));

    // Edges of length exactly t are kept.
    const std::size_t kept = cutter.edgesAtMost(t);
    EXPECT_EQ(static_cast<double>(n - 1 - kept), longer);
    const CutOutput c = runCut(cutter, kept, 1);
    EXPECT_EQ(static_cast<double>(c.info.groups), clusters);
    EXPECT_EQ(static_cast<double>(c.info.sizes.size()), clusters);
    ASSERT_GE(c.info.sizes.size(), largest.size());
    for (std::size_t k = 0; k < largest.size(); ++k)
    {
      EXPECT_EQ(static_cast<double>(c.info.sizes[k]), largest[k]) << "cluster " << k;
    }
    EXPECT_TRUE(sameCut(refCut(n, result.edges, kept, 1), c));
    EXPECT_TRUE(sameCut(refCut(n, result.edges, kept, 3), runCut(cutter, kept, 3)))
      << "minimum size 3";

    // The "< t" convention: edges of length t cut too.
    const std::size_t below = cutter.edgesAtMost(std::nextafter(t, -Inf));
    EXPECT_EQ(static_cast<double>(kept - below), equal);
    const CutOutput strict = runCut(cutter, below, 1);
    EXPECT_EQ(static_cast<double>(strict.info.groups), clustersIfCut);
    ASSERT_GE(strict.info.sizes.size(), largestIfCut.size());
    for (std::size_t k = 0; k < largestIfCut.size(); ++k)
    {
      EXPECT_EQ(static_cast<double>(strict.info.sizes[k]), largestIfCut[k])
        << "cluster " << k << ", '< t'";
    }
  }
}
