// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The real clouds of Testing/Data (always) and of ../shared/data (EMST_SHARED_DIR, when it is
// there) against their exact reference values (NAME.ref.json: Delaunay MST cross-checked by brute
// force), on every backend. Each set also gives a ~2500-point strided subsample that is compared
// bit for bit with the contract reference (real ties: tsp_pla85900 has 42 distinct MST edge
// lengths, the LiDAR sets' integer coordinates many equal ones).
#include "TestSupport.h"

#include "emst/PointFile.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

using namespace emsttest;

namespace
{

struct Reference
{
  double totalWeight = 0.0;
  double n = -1.0;
  double dim = -1.0;
  double extraCopies = -1.0;
};

bool readReference(const std::string& path, Reference& ref, std::string& why)
{
  const std::string json = fileText(path);
  if (json.empty())
  {
    why = "cannot read " + path;
    return false;
  }
  if (!emst::jsonNumber(json, "total_weight", ref.totalWeight) ||
    !emst::jsonNumber(json, "n", ref.n) || !emst::jsonNumber(json, "dim", ref.dim) ||
    !emst::jsonNumber(json, "extra_copies", ref.extraCopies))
  {
    why = path + " lacks one of total_weight, n, dim, duplicates.extra_copies";
    return false;
  }
  return true;
}

class DataSet : public DataSetTest
{
};

INSTANTIATE_TEST_SUITE_P(Repo, DataSet,
  testing::Combine(
    testing::ValuesIn(testedBackends()), testing::ValuesIn(dataSetsIn(repoDataDir()))),
  dataSetParamName);
INSTANTIATE_TEST_SUITE_P(Shared, DataSet,
  testing::Combine(
    testing::ValuesIn(testedBackends()), testing::ValuesIn(dataSetsIn(sharedDataDir()))),
  dataSetParamName);

} // namespace

TEST_P(DataSet, MatchesReference)
{
  const emst::Backend backend = this->backend();
  const std::string& name = dataSet().name;
  const std::string file = dataSet().path(".f32");
  Reference ref;
  std::string why;
  ASSERT_TRUE(readReference(dataSet().path(".ref.json"), ref, why)) << why;

  emst::PointSet points;
  ASSERT_NO_THROW(points = emst::readPointFile(file)) << file;
  ASSERT_EQ(static_cast<double>(points.count), ref.n) << file;
  ASSERT_EQ(static_cast<double>(points.dimension), ref.dim) << file;
  const Cloud cloud = cloudOf(points, name);

  const auto result = runEngine(cloud, optionsFor(backend));
  ASSERT_TRUE(result);
  const emst::Stats& s = result->stats;
  EXPECT_EQ(s.backend, backend);
  EXPECT_EQ(s.inputPoints, cloud.count);
  EXPECT_EQ(s.validPoints, cloud.count);
  EXPECT_EQ(s.nonFinitePoints, 0u);
  EXPECT_EQ(result->edges.size(), cloud.count - 1);
  EXPECT_TRUE(isSpanningTree(cloud, result->edges)) << name;
  EXPECT_TRUE(exactLengthsAndOrder(cloud, result->edges)) << name;
  // The keys are double squared distances: the data's README asks 1e-12 of double arithmetic.
  EXPECT_TRUE(weightClose(ref.totalWeight, result->totalWeight, 1e-12))
    << name << " vs " << name << ".ref.json";
  EXPECT_TRUE(weightClose(compensatedSum(result->edges), result->totalWeight, 1e-12))
    << name << ": Result::totalWeight vs the sum of its edges";
  EXPECT_EQ(static_cast<double>(zeroLengthEdges(result->edges)), ref.extraCopies)
    << name << ": zero-length edges vs duplicates.extra_copies";
  EXPECT_EQ(static_cast<double>(s.duplicatePoints), ref.extraCopies)
    << name << ": Stats::duplicatePoints vs duplicates.extra_copies";
}

TEST_P(DataSet, SubsampleMatchesContract)
{
  const emst::Backend backend = this->backend();
  const std::string& name = dataSet().name;
  emst::PointSet points;
  ASSERT_NO_THROW(points = emst::readPointFile(dataSet().path(".f32")));
  const std::size_t step = std::max<std::size_t>(1, points.count / 2500);
  emst::PointSet sample;
  sample.dimension = points.dimension;
  for (std::size_t k = 0; k < points.count; k += step)
  {
    for (int a = 0; a < points.dimension; ++a)
    {
      sample.float32.push_back(points.float32[k * points.dimension + a]);
    }
    ++sample.count;
  }
  const Cloud cloud = cloudOf(sample,
    name + " every " + std::to_string(step) + "th point (" + std::to_string(sample.count) +
      " points)");
  const auto result = runEngine(cloud, optionsFor(backend));
  ASSERT_TRUE(result);
  EXPECT_TRUE(checkAgainstReferences(cloud, *result, backend));
}
