// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The tree of one set, timed: one warm-up run (device context, memory pool, page faults), then
// Settings::repeat runs; medians of the engine's own clocks (Stats), peak memory the largest.
// With --hdbscan the tree is HDBSCAN*'s mutual reachability tree, and the host's extraction of
// the clusters is timed too (the phase "extract (host)"); the note gives the clusters, the noise
// and the end-to-end time (the tree's call, downloads included, plus the extraction).
#include "Benchmark.h"

#include <chrono>
#include <exception>
#include <map>

namespace emstbench
{

TreeRow timeTree(const std::string& set, const Settings& settings)
{
  TreeRow row;
  row.name = rowName(set, settings);
  row.backend = emst::backendName(settings.options.backend);
  try
  {
    const LoadedSet loaded =
      loadSet(set, settings, "1 warm-up + " + std::to_string(settings.repeat) + " runs");
    const std::string& path = loaded.path;
    const emst::PointSet& points = loaded.points;
    row.n = points.count;
    row.dim = points.dimension;

    std::vector<double> compute, upload, download;
    std::map<std::string, std::vector<double>> phaseTimes;
    std::vector<std::string> phaseOrder;
    std::size_t peakBytes = 0;
    emst::Result result;
    std::vector<double> extract, endToEnd;
    emst::HdbscanClustering clustering;
    for (int run = 0; run <= settings.repeat; ++run)
    {
      const double previousWeight = result.totalWeight;
      const std::size_t previousEdges = result.edges.size();
      if (settings.hdbscan)
      {
        const auto start = std::chrono::steady_clock::now();
        emst::MutualReachabilityTree tree = emst::computeMutualReachabilityTree(
          points.view(), settings.minimumSamples, settings.options);
        const auto extracted = std::chrono::steady_clock::now();
        emst::HdbscanParameters parameters;
        parameters.minimumClusterSize = settings.hdbscanMinimumClusterSize;
        clustering = emst::extractHdbscanClusters(points.count, tree.tree.edges, parameters);
        extract.push_back(millisecondsSince(extracted));
        endToEnd.push_back(millisecondsSince(start));
        result = std::move(tree.tree);
      }
      else
      {
        result = emst::computeEmst(points.view(), settings.options);
      }
      if (run > 0 && (result.totalWeight != previousWeight || result.edges.size() != previousEdges))
      {
        row.status = "MISMATCH";
        row.note = "runs differ (total weight " + formatDouble("%.17g", previousWeight) + " then " +
          formatDouble("%.17g", result.totalWeight) + ")";
      }
      if (run == 0)
      {
        reportMessages(row.name, result.messages);
        continue;
      }
      const emst::Stats& s = result.stats;
      compute.push_back(s.computeMilliseconds);
      upload.push_back(s.uploadMilliseconds);
      download.push_back(s.downloadMilliseconds);
      peakBytes = std::max(peakBytes, s.peakBackendBytes);
      for (const emst::PhaseTime& phase : s.phases)
      {
        if (phaseTimes.find(phase.name) == phaseTimes.end())
        {
          phaseOrder.push_back(phase.name);
        }
        phaseTimes[phase.name].push_back(phase.milliseconds);
      }
    }
    const emst::Stats& s = result.stats;
    row.backend = emst::backendName(s.backend);
    row.device = s.deviceName;
    row.rounds = s.rounds;
    row.totalWeight = result.totalWeight;
    row.medianMs = median(compute);
    row.minMs = compute.empty() ? 0.0 : *std::min_element(compute.begin(), compute.end());
    row.uploadMs = median(upload);
    row.downloadMs = median(download);
    row.mfeatures = row.medianMs > 0.0
      ? static_cast<double>(row.n) * row.dim / (row.medianMs / 1000.0) / 1e6
      : 0.0;
    row.bytesPerPoint = row.n ? static_cast<double>(peakBytes) / static_cast<double>(row.n) : 0.0;
    for (const std::string& name : phaseOrder)
    {
      row.phases.emplace_back(name, median(phaseTimes[name]));
    }
    if (settings.hdbscan)
    {
      row.name += " hdbscan k=" + std::to_string(settings.minimumSamples) +
        " m=" + std::to_string(settings.hdbscanMinimumClusterSize);
      row.phases.emplace_back("extract (host)", median(extract));
      row.note = std::to_string(clustering.clusters.size()) + " clusters, " +
        std::to_string(clustering.noisePoints) + " noise, end to end " +
        formatDouble("%.1f", median(endToEnd)) + " ms";
    }

    const std::string edgeProblem = edgeCountProblem(result);
    if (!edgeProblem.empty())
    {
      row.status = "MISMATCH";
      row.note = edgeProblem;
    }
    else if (settings.verifySamples > 0 && !settings.hdbscan)
    {
      std::string summary;
      const std::string problem = verifyTree(points, result, settings.verifySamples, summary);
      row.status = problem.empty() ? row.status : "MISMATCH";
      row.note = problem.empty() ? summary : problem;
    }

    std::string why = "a mutual reachability tree (--hdbscan) has none";
    // The references are EMST weights: the mutual reachability tree's equals them for k = 1 only.
    row.haveReference = (!settings.hdbscan || settings.minimumSamples == 1) &&
      findReference(path, row.n, row.dim, settings, row.reference, why);
    if (row.haveReference)
    {
      row.relativeError = relativeError(row.totalWeight, row.reference);
      if (!(row.relativeError <= settings.tolerance))
      {
        row.status = "MISMATCH";
        row.note = "relative error " + formatDouble("%.3e", row.relativeError) + " > " +
          formatDouble("%.1e", settings.tolerance);
      }
    }
    else
    {
      std::fprintf(
        stderr, "emst_benchmark: %s: no reference weight (%s)\n", row.name.c_str(), why.c_str());
    }
  }
  catch (const std::exception& e)
  {
    row.status = "ERROR";
    row.note = e.what();
    std::fprintf(stderr, "emst_benchmark: %s: error: %s\n", row.name.c_str(), e.what());
  }
  return row;
}

} // namespace emstbench
