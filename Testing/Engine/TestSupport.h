// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// What the engine test files share: the fixture that runs one test body on every backend, the
// engine call that turns emst::Error into a readable failure, the folders of real data sets and the
// fixture that runs one test body on every backend and data set.
#pragma once

#include "Reference.h"
#include "TestClouds.h"

#include "emst/Emst.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

namespace emst
{
struct PointSet;

/// Readable test parameters ("Cpu" rather than "4-byte object <02-00 00-00>").
inline void PrintTo(Backend backend, std::ostream* os)
{
  *os << (backend == Backend::Cpu ? "Cpu" : backend == Backend::Cuda ? "Cuda" : "Auto");
}
} // namespace emst

namespace emsttest
{

/// Every compiled-in backend's test parameter: Cpu always, Cuda always too (the fixture skips it,
/// with the reason, when no device is usable, or fails it when EMST_REQUIRE_CUDA=1).
std::vector<emst::Backend> testedBackends();
std::string backendParamName(const testing::TestParamInfo<emst::Backend>& info);

/// Probed once per process: is the CUDA backend usable, and why not.
bool cudaUsable(std::string* reason = nullptr);

/// EMST_REQUIRE_CUDA=1 in the environment turns "no CUDA device" skips into failures (the GPU
/// check sets it so that a broken device cannot pass silently).
bool cudaRequired();

/// Skips (or fails, see cudaRequired) the current test when `backend` cannot run here. Use as
/// `if (skipUnlessRunnable(b)) return;` ... or through BackendTest::SetUp.
bool skipUnlessRunnable(emst::Backend backend);

/// Default options on `backend`.
inline emst::Options optionsFor(emst::Backend backend)
{
  emst::Options o;
  o.backend = backend;
  return o;
}

class BackendTest : public testing::TestWithParam<emst::Backend>
{
protected:
  void SetUp() override;
  emst::Backend backend() const { return this->GetParam(); }
  emst::Options options() const { return optionsFor(this->GetParam()); }
};

/// Runs the engine (in the cloud's periodic box, when it has one); an emst::Error (or any
/// exception) becomes a test failure that names the cloud, the error code and the message, and the
/// result is empty.
std::optional<emst::Result> runEngine(const Cloud& cloud, const emst::Options& options);
std::optional<emst::Result> runEngine(
  const emst::PointCloudView& view, const std::string& label, const emst::Options& options);

/// Checks the result against both references and the structural properties: exact edge-list
/// equality with contractMst, total weight within `relative` of primDouble (unless
/// checkDoubleWeight is false), spanning tree, exact lengths and order, totalWeight = the
/// compensated sum of the edges, and the point statistics. Returns false on any failure.
struct CheckOptions
{
  bool checkDoubleWeight = true;
  bool checkCycleProperty = false;
  double relative = 1e-12;      ///< the tree is exact: only the order of the sum differs
  long expectedDuplicates = -1; ///< -1: not checked
};
bool checkAgainstReferences(const Cloud& cloud, const emst::Result& result, emst::Backend backend,
  const CheckOptions& check = CheckOptions());

/// The folder with data/ and tools/: $EMST_SHARED_DIR, else the configured default.
std::string sharedDir();

/// The repository's small real sets (Testing/Data, with their references): always there.
std::string repoDataDir();

/// The shared real sets, sharedDir() + "/data": the full-size sets, which a plain clone lacks.
std::string sharedDataDir();

/// A point file's points (emst::readPointFile) as a float32 Cloud.
Cloud cloudOf(const emst::PointSet& points, const std::string& label);

/// One real data set: `folder`/`name`.f32 with its reference values in `folder`/`name`.ref.json
/// (the schema of ../shared/data/README.md). An empty name stands for a folder without sets.
struct DataSetFile
{
  std::string folder;
  std::string name;
  std::string path(const char* extension) const { return folder + "/" + name + extension; }
};
void PrintTo(const DataSetFile& set, std::ostream* os);

/// The sets of `folder` (each NAME.f32 with a NAME.ref.json beside it), sorted by name; one
/// placeholder with an empty name when there are none, so that the tests say why they did not run.
std::vector<DataSetFile> dataSetsIn(const std::string& folder);

/// The whole text of a file (a reference NAME.ref.json); empty when it cannot be read.
std::string fileText(const std::string& path);

/// The numbers of the array after the first member named `key` of a JSON text (bbox_min,
/// largest_cluster_sizes); false when there is none. Scalars: emst::jsonNumber.
bool jsonArray(const std::string& text, const std::string& key, std::vector<double>& values);

/// The fixture of the tests that run once per backend and data set: skips the CUDA instances where
/// no device is usable (see skipUnlessRunnable), skips a set of the shared folder that is missing,
/// and fails one of the repository's folder that is missing.
using DataSetParam = std::tuple<emst::Backend, DataSetFile>;
class DataSetTest : public testing::TestWithParam<DataSetParam>
{
protected:
  void SetUp() override;
  emst::Backend backend() const { return std::get<0>(this->GetParam()); }
  const DataSetFile& dataSet() const { return std::get<1>(this->GetParam()); }
};
/// "Cpu_<set>", "Cuda_<set>"; "..._no_data_folder" for a placeholder.
std::string dataSetParamName(const testing::TestParamInfo<DataSetParam>& info);

/// Sets an environment variable for the scope of one test, and puts back what was there (the
/// GPU check runs the whole binary under some of them).
class ScopedEnv
{
public:
  ScopedEnv(const char* name, const std::string& value)
    : Name(name)
  {
    if (const char* old = std::getenv(name))
    {
      this->Old = old;
      this->HadOld = true;
    }
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv()
  {
    if (this->HadOld)
    {
      ::setenv(this->Name, this->Old.c_str(), 1);
    }
    else
    {
      ::unsetenv(this->Name);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
  const char* Name;
  std::string Old;
  bool HadOld = false;
};

} // namespace emsttest
