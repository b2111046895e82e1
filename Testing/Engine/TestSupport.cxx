// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
#include "TestSupport.h"

#include "emst/PointFile.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#ifndef EMST_SHARED_DIR_DEFAULT
#define EMST_SHARED_DIR_DEFAULT ""
#endif
#ifndef EMST_TEST_DATA_DIR
#define EMST_TEST_DATA_DIR ""
#endif

namespace emsttest
{

std::vector<emst::Backend> testedBackends()
{
  return { emst::Backend::Cpu, emst::Backend::Cuda };
}

std::string backendParamName(const testing::TestParamInfo<emst::Backend>& info)
{
  switch (info.param)
  {
    case emst::Backend::Cpu:
      return "Cpu";
    case emst::Backend::Cuda:
      return "Cuda";
    default:
      return "Auto";
  }
}

bool cudaUsable(std::string* reason)
{
  static std::once_flag once;
  static bool usable = false;
  static std::string why;
  std::call_once(once,
    []
    {
      try
      {
        usable = emst::cudaDeviceAvailable(&why);
      }
      catch (const std::exception& e)
      {
        usable = false;
        why = std::string("cudaDeviceAvailable threw: ") + e.what();
      }
      if (!usable && why.empty())
      {
        why = emst::cudaBackendCompiled() ? "no usable CUDA device (no reason given)"
                                          : "the CUDA backend is not compiled in";
      }
    });
  if (reason)
  {
    *reason = why;
  }
  return usable;
}

bool cudaRequired()
{
  const char* env = std::getenv("EMST_REQUIRE_CUDA");
  return env && *env && std::strcmp(env, "0") != 0;
}

bool skipUnlessRunnable(emst::Backend backend)
{
  if (backend != emst::Backend::Cuda)
  {
    return false;
  }
  std::string reason;
  if (cudaUsable(&reason))
  {
    return false;
  }
  if (cudaRequired())
  {
    ADD_FAILURE() << "EMST_REQUIRE_CUDA is set but CUDA is not usable: " << reason;
  }
  return true;
}

void BackendTest::SetUp()
{
  if (this->GetParam() == emst::Backend::Cuda)
  {
    std::string reason;
    if (!cudaUsable(&reason))
    {
      if (cudaRequired())
      {
        FAIL() << "EMST_REQUIRE_CUDA is set but CUDA is not usable: " << reason;
      }
      GTEST_SKIP() << "CUDA backend not usable here: " << reason;
    }
  }
}

const char* errorCodeName(emst::ErrorCode code)
{
  switch (code)
  {
    case emst::ErrorCode::InvalidInput:
      return "InvalidInput";
    case emst::ErrorCode::OutOfMemory:
      return "OutOfMemory";
    case emst::ErrorCode::DeviceUnavailable:
      return "DeviceUnavailable";
    case emst::ErrorCode::DeviceError:
      return "DeviceError";
    case emst::ErrorCode::Cancelled:
      return "Cancelled";
    case emst::ErrorCode::Internal:
      return "Internal";
  }
  return "?";
}

std::optional<emst::Result> runEngine(
  const emst::PointCloudView& view, const std::string& label, const emst::Options& options)
{
  try
  {
    return emst::computeEmst(view, options);
  }
  catch (const emst::Error& e)
  {
    ADD_FAILURE() << "computeEmst on " << label << " with backend "
                  << emst::backendName(options.backend) << " threw emst::Error("
                  << errorCodeName(e.code()) << "): " << e.what();
  }
  catch (const std::exception& e)
  {
    ADD_FAILURE() << "computeEmst on " << label << " with backend "
                  << emst::backendName(options.backend)
                  << " threw a non-emst exception: " << e.what();
  }
  return std::nullopt;
}

std::optional<emst::Result> runEngine(const Cloud& cloud, const emst::Options& options)
{
  return runEngine(cloud.view(), cloud.label, options);
}

bool checkAgainstReferences(
  const Cloud& cloud, const emst::Result& result, emst::Backend backend, const CheckOptions& check)
{
  bool ok = true;
  auto expectTrue = [&](const testing::AssertionResult& r, const char* what)
  {
    if (!r)
    {
      ADD_FAILURE() << cloud.label << ": " << what << ": " << r.message();
      ok = false;
    }
  };

  const ReferenceTree contract = contractMst(cloud);
  expectTrue(
    sameEdgeLists(contract.edges, result.edges, &cloud), "edge list vs the contract reference");
  expectTrue(isSpanningTree(cloud, result.edges), "spanning tree");
  expectTrue(exactLengthsAndOrder(cloud, result.edges), "lengths and order");
  expectTrue(weightClose(compensatedSum(result.edges), result.totalWeight, 1e-12),
    "Result::totalWeight vs the sum of the edge lengths");
  if (check.checkDoubleWeight)
  {
    const ReferenceTree prim = primDouble(cloud);
    expectTrue(weightClose(prim.totalWeight, result.totalWeight, check.relative),
      "total weight vs brute-force double Prim");
  }
  if (check.checkCycleProperty)
  {
    expectTrue(cycleProperty(cloud, result.edges, 1e-12), "cycle property");
  }

  const emst::Stats& s = result.stats;
  auto expectEqual = [&](std::size_t expected, std::size_t got, const char* what)
  {
    if (expected != got)
    {
      ADD_FAILURE() << cloud.label << ": Stats::" << what << " is " << got << ", expected "
                    << expected;
      ok = false;
    }
  };
  expectEqual(cloud.count, s.inputPoints, "inputPoints");
  expectEqual(contract.validPoints, s.validPoints, "validPoints");
  expectEqual(cloud.count - contract.validPoints, s.nonFinitePoints, "nonFinitePoints");
  if (check.expectedDuplicates >= 0)
  {
    expectEqual(
      static_cast<std::size_t>(check.expectedDuplicates), s.duplicatePoints, "duplicatePoints");
  }
  if (s.backend != backend)
  {
    ADD_FAILURE() << cloud.label << ": Stats::backend is " << emst::backendName(s.backend)
                  << ", asked for " << emst::backendName(backend);
    ok = false;
  }
  if (!(s.computeMilliseconds >= 0.0) || !std::isfinite(s.computeMilliseconds))
  {
    ADD_FAILURE() << cloud.label << ": Stats::computeMilliseconds is " << s.computeMilliseconds;
    ok = false;
  }
  return ok;
}

std::string sharedDir()
{
  const char* env = std::getenv("EMST_SHARED_DIR");
  if (env && *env)
  {
    return env;
  }
  return EMST_SHARED_DIR_DEFAULT;
}

std::string repoDataDir()
{
  return EMST_TEST_DATA_DIR;
}

std::string sharedDataDir()
{
  return sharedDir() + "/data";
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

void PrintTo(const DataSetFile& set, std::ostream* os)
{
  *os << (set.name.empty() ? "no sets in " + set.folder : set.path(".f32"));
}

std::vector<DataSetFile> dataSetsIn(const std::string& folder)
{
  std::vector<DataSetFile> sets;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(folder, error))
  {
    const std::filesystem::path path = entry.path();
    if (path.extension() == ".f32" &&
      std::filesystem::exists(path.parent_path() / (path.stem().string() + ".ref.json")))
    {
      sets.push_back({ folder, path.stem().string() });
    }
  }
  std::sort(sets.begin(), sets.end(),
    [](const DataSetFile& a, const DataSetFile& b) { return a.name < b.name; });
  if (sets.empty())
  {
    sets.push_back({ folder, "" });
  }
  return sets;
}

std::string fileText(const std::string& path)
{
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool jsonArray(const std::string& text, const std::string& key, std::vector<double>& values)
{
  std::size_t at = text.find("\"" + key + "\"");
  if (at == std::string::npos || (at = text.find('[', at)) == std::string::npos)
  {
    return false;
  }
  const std::size_t close = text.find(']', at);
  if (close == std::string::npos)
  {
    return false;
  }
  values.clear();
  const char* p = text.c_str() + at + 1;
  const char* end = text.c_str() + close;
  while (p < end)
  {
    char* next = nullptr;
    const double v = std::strtod(p, &next);
    if (next == p)
    {
      ++p; // separator or space
      continue;
    }
    values.push_back(v);
    p = next;
  }
  return true;
}

void DataSetTest::SetUp()
{
  if (skipUnlessRunnable(backend()))
  {
    GTEST_SKIP() << "CUDA backend not usable here";
  }
  const DataSetFile& set = dataSet();
  if (!set.name.empty() && std::filesystem::exists(set.path(".f32")) &&
    std::filesystem::exists(set.path(".ref.json")))
  {
    return;
  }
  const std::string what = set.name.empty()
    ? "no data sets (NAME.f32 + NAME.ref.json) in " + set.folder
    : "no " + set.path(".f32") + " and .ref.json";
  if (set.folder == repoDataDir())
  {
    FAIL() << what << ": the repository's test sets are missing";
  }
  GTEST_SKIP() << what
               << ": set EMST_SHARED_DIR (configure-time cache variable or environment) to "
                  "the folder holding data/ to run the full-size sets too";
}

std::string dataSetParamName(const testing::TestParamInfo<DataSetParam>& info)
{
  const DataSetFile& set = std::get<1>(info.param);
  std::string name =
    backendParamName(testing::TestParamInfo<emst::Backend>(std::get<0>(info.param), 0)) + "_" +
    (set.name.empty() ? std::string("no_data_folder") : set.name);
  for (char& c : name) // gtest accepts only [A-Za-z0-9_] in parameter names
  {
    if (!std::isalnum(static_cast<unsigned char>(c)))
    {
      c = '_';
    }
  }
  return name;
}

} // namespace emsttest
