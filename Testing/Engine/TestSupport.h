// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// What the engine test files share: the fixture that runs one test body on every backend, the
// engine call that turns emst::Error into a readable failure, the shared data folder.
#pragma once

#include "Reference.h"
#include "TestClouds.h"

#include "emst/Emst.h"

#include <gtest/gtest.h>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace emst
{
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

/// Runs the engine; an emst::Error (or any exception) becomes a test failure that names the cloud,
/// the error code and the message, and the result is empty.
std::optional<emst::Result> runEngine(const Cloud& cloud, const emst::Options& options);
std::optional<emst::Result> runEngine(const emst::PointCloudView& view, const std::string& label,
  const emst::Options& options);

const char* errorCodeName(emst::ErrorCode code);

/// Checks the result against both references and the structural properties: exact edge-list
/// equality with contractMst, total weight within `relative` of primDouble (unless
/// checkDoubleWeight is false), spanning tree, exact lengths and order, totalWeight = the
/// compensated sum of the edges, and the point statistics. Returns false on any failure.
struct CheckOptions
{
  bool checkDoubleWeight = true;
  bool checkCycleProperty = false;
  double relative = 1e-12; ///< the tree is exact: only the order of the sum differs
  long expectedDuplicates = -1; ///< -1: not checked
};
bool checkAgainstReferences(const Cloud& cloud, const emst::Result& result, emst::Backend backend,
  const CheckOptions& check = CheckOptions());

/// The folder with data/ and tools/: $EMST_SHARED_DIR, else the configured default.
std::string sharedDir();

} // namespace emsttest
