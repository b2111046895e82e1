// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Public entry points of HDBSCAN*: the mutual reachability tree (validation, the backend as
// computeEmst chooses it), and the whole run (the tree, then the host extraction of Extract.cxx).
#include "emst/Hdbscan.h"

#include "backends/Backends.h"
#include "hdbscan/Extract.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace emst
{

MutualReachabilityTree computeMutualReachabilityTree(
  const PointCloudView& points, std::size_t minimumSamples, const Options& options)
{
  detail::validatePoints(points);
  if (minimumSamples < 1 || minimumSamples > MaxMinimumSamples)
  {
    throw Error(ErrorCode::InvalidInput,
      "the minimum samples must be 1 to " + std::to_string(MaxMinimumSamples) + ", not " +
        std::to_string(minimumSamples));
  }
  MutualReachabilityTree tree = detail::runOnBackend(
    points, options, [&] { return detail::runCpuReachability(points, minimumSamples, options); },
    [&]
    {
#if defined(EMST_WITH_CUDA)
      return detail::runCudaReachability(points, minimumSamples, options);
#else
      return MutualReachabilityTree();
#endif
    });
  tree.tree.totalWeight = detail::sumLengths(tree.tree.edges);
  return tree;
}

HdbscanResult computeHdbscan(const PointCloudView& points, const HdbscanOptions& options)
{
  // The tree takes the progress bar up to 90%; its "done" becomes the extraction's start.
  constexpr double TreeShare = 0.9;
  const ProgressCallback& progress = options.engine.progress;
  detail::checkHdbscanParameters(options.parameters); // before the (long) tree
  Options engine = options.engine;
  if (progress)
  {
    engine.progress = [&progress](double fraction, const char* step)
    {
      bool const done = std::string(step) == "done";
      return progress(TreeShare * fraction, done ? "clusters" : step);
    };
  }
  HdbscanResult result;
  result.tree = computeMutualReachabilityTree(points, options.minimumSamples, engine);
  result.clustering =
    extractHdbscanClusters(points.count, result.tree.tree.edges, options.parameters);
  if (progress && !progress(1.0, "done"))
  {
    throw Error(ErrorCode::Cancelled, "HDBSCAN* computation cancelled");
  }
  return result;
}

ClusterSelection parseClusterSelection(const std::string& name)
{
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
    [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "eom" || lower == "excess_of_mass" || lower == "excess of mass")
  {
    return ClusterSelection::ExcessOfMass;
  }
  if (lower == "leaf")
  {
    return ClusterSelection::Leaf;
  }
  throw Error(
    ErrorCode::InvalidInput, "unknown cluster selection '" + name + "' (expected eom or leaf)");
}

} // namespace emst
