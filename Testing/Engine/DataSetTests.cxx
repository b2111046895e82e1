// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The real clouds of ../shared/data (EMST_SHARED_DIR) against their exact reference values
// (NAME.ref.json: Delaunay MST cross-checked by brute force), on every backend. Each set also
// gives a ~2500-point strided subsample that is compared bit for bit with the contract
// reference (real ties: tsp_pla85900 has 42 distinct MST edge lengths).
#include "TestSupport.h"

#include "emst/PointFile.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

using namespace emsttest;

namespace
{

const char* const NoData = "no_data_folder";

std::string dataDir()
{
  return sharedDir() + "/data";
}

/// Names of the sets in the data folder: NAME.f32 with a NAME.ref.json beside it. Evaluated when
/// the tests are registered; a missing folder gives one placeholder that skips with the reason.
std::vector<std::string> dataSetNames()
{
  std::vector<std::string> names;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dataDir(), error))
  {
    const std::filesystem::path path = entry.path();
    if (path.extension() == ".f32" &&
      std::filesystem::exists(path.parent_path() / (path.stem().string() + ".ref.json")))
    {
      names.push_back(path.stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  if (names.empty())
  {
    names.push_back(NoData);
  }
  return names;
}

struct Reference
{
  double totalWeight = 0.0;
  double n = -1.0;
  double dim = -1.0;
  double extraCopies = -1.0;
};

bool readReference(const std::string& path, Reference& ref, std::string& why)
{
  std::ifstream in(path);
  if (!in)
  {
    why = "cannot open " + path;
    return false;
  }
  std::stringstream text;
  text << in.rdbuf();
  const std::string json = text.str();
  if (!emst::jsonNumber(json, "total_weight", ref.totalWeight) ||
    !emst::jsonNumber(json, "n", ref.n) || !emst::jsonNumber(json, "dim", ref.dim) ||
    !emst::jsonNumber(json, "extra_copies", ref.extraCopies))
  {
    why = path + " lacks one of total_weight, n, dim, duplicates.extra_copies";
    return false;
  }
  return true;
}

Cloud cloudOf(const emst::PointSet& points, const std::string& label)
{
  Cloud cloud;
  cloud.label = label;
  cloud.dimension = points.dimension;
  cloud.count = points.count;
  cloud.stride = static_cast<std::size_t>(points.dimension);
  cloud.scalarType = emst::ScalarType::Float32;
  cloud.float32 = points.float32;
  return cloud;
}

using DataParam = std::tuple<emst::Backend, std::string>;

class DataSet : public testing::TestWithParam<DataParam>
{
protected:
  void SetUp() override
  {
    std::string reason;
    if (std::get<0>(this->GetParam()) == emst::Backend::Cuda && !cudaUsable(&reason))
    {
      if (cudaRequired())
      {
        FAIL() << "EMST_REQUIRE_CUDA is set but CUDA is not usable: " << reason;
      }
      GTEST_SKIP() << "CUDA backend not usable here: " << reason;
    }
    if (std::get<1>(this->GetParam()) == NoData)
    {
      GTEST_SKIP() << "no data sets (NAME.f32 + NAME.ref.json) in " << dataDir()
                   << ": set EMST_SHARED_DIR (configure-time cache variable or environment) to the "
                      "folder holding data/ and tools/";
    }
  }
};

std::string dataParamName(const testing::TestParamInfo<DataParam>& info)
{
  std::string name = backendParamName(testing::TestParamInfo<emst::Backend>(std::get<0>(info.param), 0)) +
    "_" + std::get<1>(info.param);
  for (char& c : name)
  {
    if (!std::isalnum(static_cast<unsigned char>(c)))
    {
      c = '_';
    }
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Shared, DataSet,
  testing::Combine(testing::ValuesIn(testedBackends()), testing::ValuesIn(dataSetNames())), dataParamName);

} // namespace

TEST_P(DataSet, MatchesReference)
{
  const emst::Backend backend = std::get<0>(this->GetParam());
  const std::string name = std::get<1>(this->GetParam());
  const std::string file = dataDir() + "/" + name + ".f32";
  Reference ref;
  std::string why;
  ASSERT_TRUE(readReference(dataDir() + "/" + name + ".ref.json", ref, why)) << why;

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
  EXPECT_TRUE(weightClose(ref.totalWeight, result->totalWeight, 1e-12)) << name << " vs " << name << ".ref.json";
  EXPECT_TRUE(weightClose(compensatedSum(result->edges), result->totalWeight, 1e-12))
    << name << ": Result::totalWeight vs the sum of its edges";
  EXPECT_EQ(static_cast<double>(zeroLengthEdges(result->edges)), ref.extraCopies)
    << name << ": zero-length edges vs duplicates.extra_copies";
  EXPECT_EQ(static_cast<double>(s.duplicatePoints), ref.extraCopies)
    << name << ": Stats::duplicatePoints vs duplicates.extra_copies";
}

TEST_P(DataSet, SubsampleMatchesContract)
{
  const emst::Backend backend = std::get<0>(this->GetParam());
  const std::string name = std::get<1>(this->GetParam());
  emst::PointSet points;
  ASSERT_NO_THROW(points = emst::readPointFile(dataDir() + "/" + name + ".f32"));
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
  const Cloud cloud = cloudOf(sample, name + " every " + std::to_string(step) + "th point (" +
      std::to_string(sample.count) + " points)");
  const auto result = runEngine(cloud, optionsFor(backend));
  ASSERT_TRUE(result);
  EXPECT_TRUE(checkAgainstReferences(cloud, *result, backend));
}
