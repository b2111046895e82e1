// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// HDBSCAN* tests (Hdbscan.h). The engine part runs on every backend: core distances against a
// brute force (bit for bit, and against plain double distances), the mutual reachability tree
// against a brute-force Prim under the same total order (Reference.h (c)) on random clouds,
// lattices and duplicate-heavy clouds, k = 1 against the EMST, and the same clustering on every
// backend. The extraction (condensed tree, selection, labels, probabilities, outlier scores) is
// checked here on small trees worked out by hand, on its tie rule (all merges of one height at
// once) and its invariance under a renumbering of the points; against scikit-learn itself in
// Testing/Python/test_hdbscan_sklearn.py.
//
// Naming: tests whose name starts with "Small" use small inputs and few engine calls (the GPU
// check runs them under compute-sanitizer).
#include "TestSupport.h"

#include "emst/Hdbscan.h"
#include "emst/PointFile.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>

using namespace emsttest;
using emst::Backend;
using emst::ScalarType;

namespace
{

constexpr ScalarType F32 = ScalarType::Float32;
constexpr ScalarType F64 = ScalarType::Float64;
const double NaN = std::numeric_limits<double>::quiet_NaN();

bool sameBits(double a, double b)
{
  return std::memcmp(&a, &b, sizeof a) == 0;
}

/// Every value the same bit pattern (NaN where NaN).
testing::AssertionResult sameValues(
  const std::vector<double>& expected, const std::vector<double>& got, const char* what)
{
  if (expected.size() != got.size())
  {
    return testing::AssertionFailure()
      << what << ": " << got.size() << " values, expected " << expected.size();
  }
  for (std::size_t k = 0; k < expected.size(); ++k)
  {
    if (!sameBits(expected[k], got[k]))
    {
      return testing::AssertionFailure()
        << what << " of point " << k << " is " << testing::PrintToString(got[k]) << ", expected "
        << testing::PrintToString(expected[k]);
    }
  }
  return testing::AssertionSuccess();
}

/// The same partition into clusters (labels up to renaming), noise the same.
testing::AssertionResult samePartition(
  const std::vector<std::int32_t>& expected, const std::vector<std::int32_t>& got)
{
  if (expected.size() != got.size())
  {
    return testing::AssertionFailure() << got.size() << " labels, expected " << expected.size();
  }
  std::map<std::int32_t, std::int32_t> forward, backward;
  for (std::size_t k = 0; k < expected.size(); ++k)
  {
    if ((expected[k] < 0) != (got[k] < 0))
    {
      return testing::AssertionFailure() << "point " << k << " has label " << got[k]
                                         << ", expected " << expected[k] << " (noise differs)";
    }
    if (expected[k] < 0)
    {
      continue;
    }
    if (forward.emplace(expected[k], got[k]).first->second != got[k] ||
      backward.emplace(got[k], expected[k]).first->second != expected[k])
    {
      return testing::AssertionFailure()
        << "point " << k << " has label " << got[k] << ", expected " << expected[k]
        << " (up to renaming): the clusters differ";
    }
  }
  return testing::AssertionSuccess();
}

class Hdbscan : public BackendTest
{
protected:
  /// The engine's tree, or nullopt with a failure naming the cloud.
  std::optional<emst::MutualReachabilityTree> tree(const Cloud& cloud, std::size_t k)
  {
    try
    {
      return emst::computeMutualReachabilityTree(cloud.view(), k, this->options());
    }
    catch (const std::exception& e)
    {
      ADD_FAILURE() << cloud.label << ", k = " << k << ": " << e.what();
    }
    return std::nullopt;
  }

  /// The tree and its core distances against the brute force; false on any failure.
  bool checkTree(const Cloud& cloud, std::size_t k)
  {
    const auto got = this->tree(cloud, k);
    if (!got)
    {
      return false;
    }
    const std::string label = cloud.label + ", k = " + std::to_string(k);
    const ReachabilityReference ref = mutualReachabilityReference(cloud, k);
    bool ok = true;
    auto expectTrue = [&](const testing::AssertionResult& r, const char* what)
    {
      if (!r)
      {
        ADD_FAILURE() << label << ": " << what << ": " << r.message();
        ok = false;
      }
    };
    expectTrue(sameEdgeLists(ref.tree.edges, got->tree.edges, &cloud),
      "edge list vs the brute-force Prim under the mutual reachability order");
    expectTrue(isSpanningTree(cloud, got->tree.edges), "spanning tree");
    expectTrue(sameValues(ref.coreDistance, got->coreDistance, "core distance"),
      "core distances vs the brute force (bit for bit)");
    expectTrue(weightClose(ref.tree.totalWeight, got->tree.totalWeight, 1e-12),
      "total weight vs the brute force");
    // The cores' values, independently of the keys: the k-th smallest double distance.
    const std::vector<double> plain = coreDistancesInDouble(cloud, k);
    for (std::size_t p = 0; p < cloud.count && ok; ++p)
    {
      if (std::isnan(plain[p]) != std::isnan(got->coreDistance[p]) ||
        std::fabs(plain[p] - got->coreDistance[p]) > 1e-12 * plain[p])
      {
        ADD_FAILURE() << label << ": core distance of point " << p << " is " << got->coreDistance[p]
                      << ", the k-th smallest distance is " << plain[p];
        ok = false;
      }
    }
    if (got->tree.stats.backend != this->backend())
    {
      ADD_FAILURE() << label << ": ran on " << emst::backendName(got->tree.stats.backend);
      ok = false;
    }
    return ok;
  }

  /// checkTree on many random clouds, stopping after a few failing ones.
  void sweep(std::uint64_t firstSeed, int clouds, std::size_t largest)
  {
    static const std::size_t ks[] = { 1, 2, 3, 4, 5, 7, 10, 16, 33, 64 };
    int failing = 0;
    for (int c = 0; c < clouds; ++c)
    {
      const std::uint64_t seed = firstSeed + static_cast<std::uint64_t>(c);
      const Cloud cloud = randomCloud(seed, largest);
      const std::size_t k = std::min(ks[seed % 10], std::max<std::size_t>(cloud.count, 1));
      if (!this->checkTree(cloud, k) && ++failing >= 5)
      {
        ADD_FAILURE() << "stopping the sweep after 5 failing clouds";
        return;
      }
    }
  }
};

INSTANTIATE_TEST_SUITE_P(Backends, Hdbscan, testing::ValuesIn(testedBackends()), backendParamName);

} // namespace

// ---- the mutual reachability tree ---------------------------------------------------------------

TEST_P(Hdbscan, SmallRandomTrees)
{
  sweep(900000, 12, 256);
}

TEST_P(Hdbscan, RandomTrees)
{
  // 100 clouds (uniform, clustered, small integers: ties and copies everywhere), n up to 2000,
  // 2D and 3D, float32 and float64, k from 1 to 64 (both sizes of the core search's heap).
  sweep(910000, 100, 2000);
}

TEST_P(Hdbscan, SmallKOneIsTheEmst)
{
  // With k = 1 every core distance is 0 and the tree is the EMST, bit for bit.
  Rng rng(5);
  std::vector<Point> points = clusteredPoints(rng, 300, 3);
  const auto copies = repeatPoints(latticePoints(4, 4, 4), 2, &rng);
  points.insert(points.end(), copies.begin(), copies.end());
  for (ScalarType type : { F32, F64 })
  {
    const Cloud cloud = makeCloud("blobs + a doubled lattice", 3, type, points);
    const auto reach = this->tree(cloud, 1);
    const auto emst = runEngine(cloud, this->options());
    ASSERT_TRUE(reach && emst);
    EXPECT_TRUE(sameEdgeLists(emst->edges, reach->tree.edges, &cloud)) << cloud.label;
    EXPECT_EQ(emst->totalWeight, reach->tree.totalWeight);
    for (double core : reach->coreDistance)
    {
      ASSERT_EQ(core, 0.0) << cloud.label;
    }
  }
}

TEST_P(Hdbscan, Lattices)
{
  // Every edge of a lattice ties with many others, and so do the cores.
  const Cloud square = makeCloud("2D lattice 30 x 30", 2, F32, latticePoints(30, 30, 0));
  const Cloud cube = makeCloud("3D lattice 10^3", 3, F64, latticePoints(10, 10, 10, 0.5, -3.0));
  const Cloud fcc = makeCloud("face-centred cubic", 3, F32, fccPoints(4));
  for (const Cloud* cloud : { &square, &cube, &fcc })
  {
    for (std::size_t k : { 2, 3, 5, 7, 13 })
    {
      EXPECT_TRUE(this->checkTree(*cloud, k));
    }
  }
}

TEST_P(Hdbscan, DuplicateHeavy)
{
  // Copies change the tree under mutual reachability (Hdbscan.h, CoreDistances.h's group rule):
  // fewer copies than k (core > 0, copies hanging from the smallest-index point at the core
  // distance), as many or more (core 0), shuffled so that copies get every index order.
  Rng rng(17);
  std::vector<Cloud> clouds;
  clouds.push_back(makeCloud("integers in [0,4]^3", 3, F32, integerPoints(rng, 1500, 3, 4)));
  clouds.push_back(makeCloud("integers in [0,30]^2", 2, F64, integerPoints(rng, 1500, 2, 30)));
  clouds.push_back(makeCloud(
    "5^3 lattice x 3 copies, shuffled", 3, F32, repeatPoints(latticePoints(5, 5, 5), 3, &rng)));
  clouds.push_back(makeCloud(
    "blobs x 4 copies, shuffled", 2, F32, repeatPoints(clusteredPoints(rng, 200, 2), 4, &rng)));
  for (const Cloud& cloud : clouds)
  {
    for (std::size_t k : { 2, 3, 4, 5, 10, 20 })
    {
      EXPECT_TRUE(this->checkTree(cloud, k));
    }
  }
}

TEST_P(Hdbscan, SmallCopiesHangFromASmallerIndex)
{
  // Three copies (5, 7, 9) of a point at distance 1 from point 0, k = 4: every core is 1, so
  // each copy's edges to 0 and to the other copies all have the key 1, and the order
  // (key, min, max) takes (0, 5), (0, 7), (0, 9), not the copies' zero-length chain.
  //
  //   y
  //   |  2 .         . 3
  //   |
  //   |  0 .   5,7,9 .       . 4, 6, 8 (far away, one point each)
  //   +-------------------------- x
  std::vector<Point> points(10, Point{ 0, 0, 0 });
  points[0] = Point{ 0, 0, 0 };
  points[1] = Point{ 40, 0, 0 };
  points[2] = Point{ 0, 3, 0 };
  points[3] = Point{ 1, 3, 0 };
  points[4] = Point{ 50, 0, 0 };
  points[6] = Point{ 60, 0, 0 };
  points[8] = Point{ 70, 0, 0 };
  for (int copy : { 5, 7, 9 })
  {
    points[copy] = Point{ 1, 0, 0 };
  }
  const Cloud cloud = makeCloud("three copies beside a smaller index", 2, F64, points);
  const auto got = this->tree(cloud, 4);
  ASSERT_TRUE(got);
  EXPECT_TRUE(this->checkTree(cloud, 4));
  std::map<std::pair<std::uint32_t, std::uint32_t>, double> edges;
  for (const emst::Edge& e : got->tree.edges)
  {
    edges[{ e.i, e.j }] = e.length;
  }
  for (std::uint32_t copy : { 5u, 7u, 9u })
  {
    EXPECT_TRUE(edges.count({ 0u, copy })) << "no edge (0, " << copy << ")";
    EXPECT_EQ(got->coreDistance[copy], got->coreDistance[0]);
  }
  EXPECT_EQ(got->coreDistance[0], 1.0);
}

TEST_P(Hdbscan, SmallNonFinitePoints)
{
  Rng rng(41);
  std::vector<Point> points = clusteredPoints(rng, 200, 3);
  points[3] = Point{ NaN, 0, 0 };
  points[77] = Point{ 1, std::numeric_limits<double>::infinity(), 0 };
  const Cloud cloud = makeCloud("blobs with a NaN and an inf point", 3, F64, points);
  EXPECT_TRUE(this->checkTree(cloud, 5));
  const auto got = this->tree(cloud, 5);
  ASSERT_TRUE(got);
  EXPECT_TRUE(std::isnan(got->coreDistance[3]) && std::isnan(got->coreDistance[77]));
  EXPECT_EQ(got->tree.stats.nonFinitePoints, 2u);
}

TEST_P(Hdbscan, SmallEdgeCases)
{
  // No point, one point, all points identical (v >= k: cores 0).
  const Cloud empty = makeCloud("no point", 3, F32, {});
  const auto none = this->tree(empty, 5);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->tree.edges.empty() && none->coreDistance.empty());

  const Cloud one = makeCloud("one point", 2, F64, { Point{ 1, 2, 0 } });
  const auto single = this->tree(one, 1);
  ASSERT_TRUE(single);
  EXPECT_TRUE(single->tree.edges.empty());
  ASSERT_EQ(single->coreDistance.size(), 1u);
  EXPECT_EQ(single->coreDistance[0], 0.0);

  const Cloud same = makeCloud("50 copies", 3, F32, std::vector<Point>(50, Point{ 1, 2, 3 }));
  EXPECT_TRUE(this->checkTree(same, 5));
  EXPECT_TRUE(this->checkTree(same, 50));
}

TEST_P(Hdbscan, SmallInvalidInput)
{
  Rng rng(43);
  std::vector<Point> points = uniformPoints(rng, 6, 3);
  points[2] = Point{ NaN, NaN, NaN };
  const Cloud cloud = makeCloud("6 points, one NaN", 3, F64, points);
  auto errorOf = [&](std::size_t k)
  {
    try
    {
      emst::computeMutualReachabilityTree(cloud.view(), k, this->options());
    }
    catch (const emst::Error& e)
    {
      return std::string(errorCodeName(e.code())) + ": " + e.what();
    }
    return std::string("no error");
  };
  EXPECT_EQ(errorOf(5).substr(0, 8), "no error");
  EXPECT_NE(errorOf(0).find("InvalidInput"), std::string::npos) << errorOf(0);
  EXPECT_NE(errorOf(257).find("InvalidInput"), std::string::npos) << errorOf(257);
  // 5 finite points: k = 6 exceeds them.
  EXPECT_NE(errorOf(6).find("InvalidInput: the minimum samples (6) exceed the 5 point(s)"),
    std::string::npos)
    << errorOf(6);

  emst::HdbscanOptions options;
  options.engine = this->options();
  for (std::size_t size : { 0, 1 })
  {
    options.parameters.minimumClusterSize = size;
    EXPECT_THROW(emst::computeHdbscan(cloud.view(), options), emst::Error) << size;
  }
  options.parameters.minimumClusterSize = 2;
  for (double epsilon : { -1.0, NaN })
  {
    options.parameters.clusterSelectionEpsilon = epsilon;
    EXPECT_THROW(emst::computeHdbscan(cloud.view(), options), emst::Error) << epsilon;
  }
}

TEST_P(Hdbscan, LargeK)
{
  // k above the small heap's 32, up to the largest accepted.
  Rng rng(47);
  const Cloud cloud = makeCloud("clustered 2D", 2, F32, clusteredPoints(rng, 1200, 2));
  for (std::size_t k : { std::size_t(33), std::size_t(100), emst::MaxMinimumSamples })
  {
    EXPECT_TRUE(this->checkTree(cloud, k));
  }
}

TEST_P(Hdbscan, DataSets)
{
  // The repository's real sets (lidar, galaxies, cities), 2500-point subsets: the brute force is
  // O(n^2).
  for (const DataSetFile& set : dataSetsIn(repoDataDir()))
  {
    ASSERT_FALSE(set.name.empty()) << "no data sets in " << repoDataDir();
    const emst::PointSet file = emst::readPointFile(set.path(".f32"));
    const Cloud full = cloudOf(file, set.name);
    const std::size_t step = std::max<std::size_t>(1, full.count / 2500);
    std::vector<Point> points;
    for (std::size_t p = 0; p < full.count; p += step)
    {
      points.push_back(
        Point{ full.at(p, 0), full.at(p, 1), full.dimension == 3 ? full.at(p, 2) : 0 });
    }
    const Cloud subset = makeCloud(set.name + " subset", full.dimension, F32, points);
    for (std::size_t k : { 5, 10 })
    {
      EXPECT_TRUE(this->checkTree(subset, k));
    }
  }
}

// ---- the clustering on every backend --------------------------------------------------------

namespace
{

void expectSameClustering(
  const emst::HdbscanResult& expected, const emst::HdbscanResult& got, const std::string& label)
{
  EXPECT_TRUE(sameEdgeLists(expected.tree.tree.edges, got.tree.tree.edges)) << label;
  EXPECT_TRUE(sameValues(expected.tree.coreDistance, got.tree.coreDistance, "core distance"))
    << label;
  EXPECT_EQ(expected.clustering.labels, got.clustering.labels) << label;
  EXPECT_TRUE(
    sameValues(expected.clustering.probabilities, got.clustering.probabilities, "probability"))
    << label;
  EXPECT_TRUE(
    sameValues(expected.clustering.outlierScores, got.clustering.outlierScores, "outlier score"))
    << label;
  EXPECT_EQ(expected.clustering.condensedTree.size(), got.clustering.condensedTree.size()) << label;
}

} // namespace

TEST_P(Hdbscan, SameOnEveryBackend)
{
  // This backend against the CPU (on the CPU: a second run, with another thread count), with
  // ties and copies: the same tree, labels, probabilities and scores, bit for bit.
  Rng rng(53);
  std::vector<Point> points = clusteredPoints(rng, 20000, 3);
  const auto lattice = repeatPoints(latticePoints(12, 12, 12, 0.01), 2, &rng);
  points.insert(points.end(), lattice.begin(), lattice.end());
  rng.shuffle(points);
  const Cloud cloud = makeCloud("blobs + a doubled lattice", 3, F32, points);
  for (emst::ClusterSelection selection :
    { emst::ClusterSelection::ExcessOfMass, emst::ClusterSelection::Leaf })
  {
    emst::HdbscanOptions options;
    options.minimumSamples = 10;
    options.parameters.minimumClusterSize = 25;
    options.parameters.selection = selection;
    options.engine = this->options();
    const emst::HdbscanResult got = emst::computeHdbscan(cloud.view(), options);
    options.engine = optionsFor(Backend::Cpu);
    options.engine.cpuThreads = 3;
    const emst::HdbscanResult cpu = emst::computeHdbscan(cloud.view(), options);
    expectSameClustering(cpu, got, cloud.label);
    EXPECT_GT(got.clustering.clusters.size(), 5u);
  }
}

namespace
{
class HdbscanDataSet : public DataSetTest
{
};
INSTANTIATE_TEST_SUITE_P(Repo, HdbscanDataSet,
  testing::Combine(
    testing::ValuesIn(testedBackends()), testing::ValuesIn(dataSetsIn(repoDataDir()))),
  dataSetParamName);
INSTANTIATE_TEST_SUITE_P(Shared, HdbscanDataSet,
  testing::Combine(
    testing::ValuesIn(testedBackends()), testing::ValuesIn(dataSetsIn(sharedDataDir()))),
  dataSetParamName);
} // namespace

TEST_P(HdbscanDataSet, SameOnEveryBackend)
{
  // Every real set whole, k = 10: the same clustering as the CPU's (on the CPU, with one thread
  // against the default). The shared sets (up to 519k points) run on the GPU only: on the CPU
  // Testing/Data's sets cover the comparison.
  if (this->backend() == Backend::Cpu && dataSet().folder != repoDataDir())
  {
    GTEST_SKIP() << "the shared sets are compared on the GPU only";
  }
  const emst::PointSet points = emst::readPointFile(dataSet().path(".f32"));
  emst::HdbscanOptions options;
  options.minimumSamples = 10;
  options.parameters.minimumClusterSize = 50;
  options.engine = optionsFor(this->backend());
  const emst::HdbscanResult got = emst::computeHdbscan(points.view(), options);
  options.engine = optionsFor(Backend::Cpu);
  options.engine.cpuThreads = 1;
  const emst::HdbscanResult cpu = emst::computeHdbscan(points.view(), options);
  expectSameClustering(cpu, got, dataSet().name);
  EXPECT_EQ(got.tree.tree.stats.backend, this->backend());
  EXPECT_EQ(got.tree.tree.edges.size(), points.count - 1);
}

TEST_P(Hdbscan, SmallProgressAndCancel)
{
  Rng rng(59);
  const Cloud cloud = makeCloud("300 clustered points", 3, F32, clusteredPoints(rng, 300, 3));
  emst::HdbscanOptions options;
  options.engine = this->options();
  std::vector<double> fractions;
  std::vector<std::string> steps;
  options.engine.progress = [&](double fraction, const char* step)
  {
    fractions.push_back(fraction);
    steps.emplace_back(step);
    return true;
  };
  emst::computeHdbscan(cloud.view(), options);
  ASSERT_GE(fractions.size(), 3u);
  EXPECT_TRUE(std::is_sorted(fractions.begin(), fractions.end()));
  EXPECT_EQ(steps.back(), "done");
  EXPECT_EQ(fractions.back(), 1.0);
  EXPECT_NE(std::find(steps.begin(), steps.end(), "core distances"), steps.end());
  EXPECT_NE(std::find(steps.begin(), steps.end(), "clusters"), steps.end());
  for (std::size_t cancelAt : { std::size_t(1), fractions.size() / 2, fractions.size() })
  {
    std::size_t calls = 0;
    options.engine.progress = [&](double, const char*) { return ++calls < cancelAt; };
    try
    {
      emst::computeHdbscan(cloud.view(), options);
      ADD_FAILURE() << "not cancelled at call " << cancelAt;
    }
    catch (const emst::Error& e)
    {
      EXPECT_EQ(e.code(), emst::ErrorCode::Cancelled) << e.what();
    }
  }
}

// ---- the extraction, on trees worked out by hand
// ---------------------------------------------------

namespace
{

emst::Edge edge(std::uint32_t i, std::uint32_t j, double length)
{
  emst::Edge e;
  e.i = i;
  e.j = j;
  e.length = length;
  return e;
}

emst::HdbscanParameters parameters(std::size_t minimumSize,
  emst::ClusterSelection selection = emst::ClusterSelection::ExcessOfMass, double epsilon = 0.0,
  bool single = false)
{
  emst::HdbscanParameters p;
  p.minimumClusterSize = minimumSize;
  p.selection = selection;
  p.clusterSelectionEpsilon = epsilon;
  p.allowSingleCluster = single;
  return p;
}

/// Points on a line: A = 0..4 at x = 0..4, B = 5..9 at x = 100..104, point 10 at x = 50, and its
/// minimum spanning tree (k = 1):
///
///   A: 0-1-2-3-4 ----46---- 10 ----50---- 5-6-7-8-9 :B      (unit edges inside A and B)
std::vector<emst::Edge> twoGroupsAndAStray()
{
  std::vector<emst::Edge> edges;
  for (std::uint32_t k = 0; k < 4; ++k)
  {
    edges.push_back(edge(k, k + 1, 1.0));
    edges.push_back(edge(5 + k, 6 + k, 1.0));
  }
  edges.push_back(edge(4, 10, 46.0));
  edges.push_back(edge(10, 5, 50.0));
  return edges;
}

} // namespace

TEST(HdbscanExtraction, TwoGroupsAndAStray)
{
  // Minimum size 5. At distance 50 the root splits into A+10 (6 points) and B (5): two
  // clusters born at lambda 1/50. Point 10 leaves A+10 at 1/46; A's points and B's leave at
  // lambda 1 (their unit edges). Excess of mass keeps both leaves (the root is never chosen
  // without allowSingleCluster): A+10 (6 points, label 0) and B (5, label 1). Probabilities:
  // min(lambda, death) / death with death 1: 1 for A and B, 1/46 for point 10. GLOSH:
  // 1 - lambda / lambdaMax: 0 for A and B, 1 - (1/46) / 1 = 45/46 for point 10.
  const auto edges = twoGroupsAndAStray();
  for (emst::ClusterSelection selection :
    { emst::ClusterSelection::ExcessOfMass, emst::ClusterSelection::Leaf })
  {
    const emst::HdbscanClustering c =
      emst::extractHdbscanClusters(11, edges, parameters(5, selection));
    EXPECT_EQ(c.labels, (std::vector<std::int32_t>{ 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0 }));
    for (std::size_t p = 0; p < 10; ++p)
    {
      EXPECT_EQ(c.probabilities[p], 1.0) << p;
      EXPECT_EQ(c.outlierScores[p], 0.0) << p;
    }
    EXPECT_DOUBLE_EQ(c.probabilities[10], 1.0 / 46.0);
    EXPECT_DOUBLE_EQ(c.outlierScores[10], 45.0 / 46.0);
    ASSERT_EQ(c.clusters.size(), 2u);
    EXPECT_EQ(c.clusters[0].size, 6u);
    EXPECT_EQ(c.clusters[0].firstPoint, 0u);
    EXPECT_DOUBLE_EQ(c.clusters[0].birthLambda, 1.0 / 50.0);
    EXPECT_EQ(c.clusters[0].deathLambda, 1.0);
    // (1/46 - 1/50) for point 10, 5 * (1 - 1/50) for A.
    EXPECT_DOUBLE_EQ(c.clusters[0].stability, (1.0 / 46 - 1.0 / 50) + 5 * (1 - 1.0 / 50));
    EXPECT_DOUBLE_EQ(c.clusters[1].stability, 5 * (1 - 1.0 / 50));
    EXPECT_EQ(c.noisePoints, 0u);
    // 11 point rows and 2 cluster rows; points are rows 0..10, clusters 11 (root), 12, 13.
    ASSERT_EQ(c.condensedTree.size(), 13u);
    EXPECT_EQ(c.condensedTree[10].child, 10u);
    EXPECT_DOUBLE_EQ(c.condensedTree[10].lambda, 1.0 / 46);
    EXPECT_EQ(c.condensedTree[11].parent, 11u);
    EXPECT_EQ(c.condensedTree[11].size + c.condensedTree[12].size, 11u);
  }
  // Epsilon 60: both clusters were born at distance 50 < 60, but their parent is the root: they
  // stay. With allowSingleCluster the root is taken instead: every point whose lambda reaches
  // 1/60 (all of them) is in it, probability min(lambda, 1/50) / (1/50) = 1.
  const emst::HdbscanClustering split = emst::extractHdbscanClusters(
    11, edges, parameters(5, emst::ClusterSelection::ExcessOfMass, 60.0));
  EXPECT_EQ(split.clusters.size(), 2u);
  const emst::HdbscanClustering one = emst::extractHdbscanClusters(
    11, edges, parameters(5, emst::ClusterSelection::ExcessOfMass, 60.0, true));
  EXPECT_EQ(one.labels, std::vector<std::int32_t>(11, 0));
  EXPECT_EQ(one.probabilities, std::vector<double>(11, 1.0));
  // Minimum size 6: B is too small, so A+10 goes on as the root; nothing is selected.
  const emst::HdbscanClustering none = emst::extractHdbscanClusters(11, edges, parameters(6));
  EXPECT_EQ(none.labels, std::vector<std::int32_t>(11, -1));
  EXPECT_EQ(none.probabilities, std::vector<double>(11, 0.0));
  EXPECT_EQ(none.noisePoints, 11u);
}

TEST(HdbscanExtraction, MergesOfOneHeightAreOneLevel)
{
  // Two chains of 5 (unit edges) and a point 10 joined to both at distance 3 (under mutual
  // reachability: a point whose core distance dominates both of its edges). The hierarchy is
  // the same whatever order the two height-3 merges are taken in: the level has the children
  // A (5), B (5) and {10}. With minimum size 5, two clusters and 10 is noise; with 6, no child
  // is large: no cluster. (Taking 10 into A first would make a cluster of 6.)
  std::vector<emst::Edge> edges;
  for (std::uint32_t k = 0; k < 4; ++k)
  {
    edges.push_back(edge(k, k + 1, 1.0));
    edges.push_back(edge(5 + k, 6 + k, 1.0));
  }
  edges.push_back(edge(4, 10, 3.0));
  edges.push_back(edge(5, 10, 3.0));
  for (bool reversed : { false, true })
  {
    std::vector<emst::Edge> order = edges;
    if (reversed)
    {
      std::reverse(order.begin(), order.end());
      std::swap(order[0].i, order[0].j);
    }
    const emst::HdbscanClustering five = emst::extractHdbscanClusters(11, order, parameters(5));
    EXPECT_EQ(five.labels, (std::vector<std::int32_t>{ 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, -1 }));
    const emst::HdbscanClustering six = emst::extractHdbscanClusters(11, order, parameters(6));
    EXPECT_EQ(six.labels, std::vector<std::int32_t>(11, -1));
  }
  // Renumbering the points changes the order of equal merges, not the clustering.
  std::vector<std::uint32_t> rename = { 10, 3, 7, 0, 5, 9, 1, 2, 8, 4, 6 };
  std::vector<emst::Edge> renamed;
  for (const emst::Edge& e : edges)
  {
    renamed.push_back(edge(rename[e.i], rename[e.j], e.length));
  }
  const emst::HdbscanClustering five = emst::extractHdbscanClusters(11, renamed, parameters(5));
  EXPECT_EQ(five.clusters.size(), 2u);
  EXPECT_EQ(five.labels[rename[10]], -1);
}

TEST(HdbscanExtraction, ThreeClustersBornTogether)
{
  // Three chains of 5 joined pairwise at the same distance 10: one level with three large
  // children, three clusters born together (not two nested ones). With epsilon 20 they stay
  // (their parent is the root).
  std::vector<emst::Edge> edges;
  for (std::uint32_t g = 0; g < 3; ++g)
  {
    for (std::uint32_t k = 0; k < 4; ++k)
    {
      edges.push_back(edge(5 * g + k, 5 * g + k + 1, 1.0));
    }
  }
  edges.push_back(edge(4, 5, 10.0));
  edges.push_back(edge(9, 10, 10.0));
  for (double epsilon : { 0.0, 20.0 })
  {
    const emst::HdbscanClustering c = emst::extractHdbscanClusters(
      15, edges, parameters(5, emst::ClusterSelection::ExcessOfMass, epsilon));
    ASSERT_EQ(c.clusters.size(), 3u) << epsilon;
    for (const emst::HdbscanCluster& cluster : c.clusters)
    {
      EXPECT_EQ(cluster.size, 5u);
      EXPECT_DOUBLE_EQ(cluster.birthLambda, 0.1);
    }
    EXPECT_EQ(c.condensedTree.size(), 15u + 3u);
  }
}

TEST(HdbscanExtraction, ZeroDistances)
{
  // Six copies (0..5, zero-length edges: lambda +inf), point 6 at distance 1 from them, and a
  // chain 7..11 at unit spacing joined to 6 at distance 2. Minimum size 5: the root splits at 2
  // into C1 = 0..6 and C2 = the chain; point 6 leaves C1 at lambda 1, the copies at +inf.
  // Probabilities: 1 for lambda +inf; min(1, +inf) / +inf = 0 for point 6 (scikit-learn's
  // arithmetic); 1 for the chain. GLOSH: 0 for lambda +inf and for the chain; 1 for point 6,
  // which leaves a cluster whose subtree reaches +inf (the hdbscan package gives NaN there).
  std::vector<emst::Edge> edges;
  for (std::uint32_t k = 1; k < 6; ++k)
  {
    edges.push_back(edge(0, k, 0.0));
  }
  edges.push_back(edge(5, 6, 1.0));
  for (std::uint32_t k = 7; k < 11; ++k)
  {
    edges.push_back(edge(k, k + 1, 1.0));
  }
  edges.push_back(edge(6, 7, 2.0));
  const emst::HdbscanClustering c = emst::extractHdbscanClusters(12, edges, parameters(5));
  EXPECT_EQ(c.labels, (std::vector<std::int32_t>{ 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1 }));
  for (std::size_t p = 0; p < 12; ++p)
  {
    EXPECT_EQ(c.probabilities[p], p == 6 ? 0.0 : 1.0) << p;
    EXPECT_EQ(c.outlierScores[p], p == 6 ? 1.0 : 0.0) << p;
  }
  ASSERT_EQ(c.clusters.size(), 2u);
  EXPECT_EQ(c.clusters[0].deathLambda, std::numeric_limits<double>::infinity());
  EXPECT_EQ(c.clusters[0].stability, std::numeric_limits<double>::infinity());
}

TEST(HdbscanExtraction, BadTrees)
{
  std::vector<emst::Edge> edges = twoGroupsAndAStray();
  EXPECT_THROW(emst::extractHdbscanClusters(10, edges, parameters(5)), emst::Error); // index 10
  edges.push_back(edge(0, 2, 5.0));
  EXPECT_THROW(emst::extractHdbscanClusters(11, edges, parameters(5)), emst::Error); // a cycle
  edges = twoGroupsAndAStray();
  edges.pop_back();
  EXPECT_THROW(emst::extractHdbscanClusters(11, edges, parameters(5)), emst::Error); // a forest
  edges = twoGroupsAndAStray();
  edges[0].length = NaN;
  EXPECT_THROW(emst::extractHdbscanClusters(11, edges, parameters(5)), emst::Error);
  // Points outside the tree are noise with a NaN score.
  const emst::HdbscanClustering c =
    emst::extractHdbscanClusters(13, twoGroupsAndAStray(), parameters(5));
  EXPECT_EQ(c.labels[11], -1);
  EXPECT_EQ(c.labels[12], -1);
  EXPECT_TRUE(std::isnan(c.outlierScores[12]));
  EXPECT_EQ(c.probabilities[12], 0.0);
  EXPECT_EQ(c.noisePoints, 2u);
  const emst::HdbscanClustering nothing = emst::extractHdbscanClusters(3, {}, parameters(5));
  EXPECT_EQ(nothing.labels, std::vector<std::int32_t>(3, -1));
}

TEST_P(Hdbscan, RenumberingThePointsChangesNothing)
{
  // Ties are decided by point indices in the tree, but the clustering does not depend on how
  // ties are decided (merges of one height form one level): a shuffled copy of a cloud full of
  // ties and copies gets the same clusters, probabilities and scores point by point.
  Rng rng(61);
  std::vector<Point> points = integerPoints(rng, 3000, 3, 12);
  const auto blobs = clusteredPoints(rng, 3000, 3);
  for (const Point& p : blobs)
  {
    points.push_back(Point{ 12 * p[0], 12 * p[1], 12 * p[2] });
  }
  std::vector<std::size_t> order(points.size());
  for (std::size_t k = 0; k < order.size(); ++k)
  {
    order[k] = k;
  }
  rng.shuffle(order);
  std::vector<Point> shuffled(points.size());
  for (std::size_t k = 0; k < order.size(); ++k)
  {
    shuffled[k] = points[order[k]];
  }
  const Cloud a = makeCloud("integers and blobs", 3, F32, points);
  const Cloud b = makeCloud("integers and blobs, shuffled", 3, F32, shuffled);
  for (std::size_t k : { 3, 8 })
  {
    emst::HdbscanOptions options;
    options.minimumSamples = k;
    options.parameters.minimumClusterSize = 12;
    options.engine = this->options();
    const emst::HdbscanResult x = emst::computeHdbscan(a.view(), options);
    const emst::HdbscanResult y = emst::computeHdbscan(b.view(), options);
    std::vector<std::int32_t> labels(points.size());
    std::vector<double> probabilities(points.size()), scores(points.size());
    for (std::size_t p = 0; p < order.size(); ++p)
    {
      labels[order[p]] = y.clustering.labels[p];
      probabilities[order[p]] = y.clustering.probabilities[p];
      scores[order[p]] = y.clustering.outlierScores[p];
    }
    EXPECT_TRUE(samePartition(x.clustering.labels, labels)) << "k = " << k;
    EXPECT_TRUE(sameValues(x.clustering.probabilities, probabilities, "probability"));
    EXPECT_TRUE(sameValues(x.clustering.outlierScores, scores, "outlier score"));
    EXPECT_GT(x.clustering.clusters.size(), 2u);
  }
}
