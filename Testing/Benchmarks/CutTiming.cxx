// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// --cut: the single-linkage cut (emst::TreeCutter, Clusters.h). The tree of the set is computed
// once (its weight checked as in the EMST table), then a TreeCutter on the same backend re-cuts
// it at the 50th and 99th percentile edge lengths (NAME.ref.json's t when there is one) and into
// 10 clusters: one warm-up cut, then Settings::repeat timed cuts each. Each cut is checked
// against a host union-find and, where NAME.ref.json gives one, its cluster count.
#include "Benchmark.h"

#include <cmath>
#include <exception>

namespace emstbench
{
namespace
{

/// numpy.percentile(lengths, q) with linear interpolation (lengths sorted).
double percentile(const std::vector<emst::Edge>& sorted, double q)
{
  if (sorted.empty())
  {
    return 0.0;
  }
  const double position = q / 100.0 * static_cast<double>(sorted.size() - 1);
  const std::size_t below = static_cast<std::size_t>(std::floor(position));
  const double fraction = position - static_cast<double>(below);
  if (below + 1 >= sorted.size() || fraction == 0.0)
  {
    return sorted[std::min(below, sorted.size() - 1)].length;
  }
  const double a = sorted[below].length;
  const double b = sorted[below + 1].length;
  return a + (b - a) * fraction;
}

/// One cut to time: a threshold (t50, t99) or a cluster count (k=10).
struct CutSpec
{
  std::string label;
  double threshold;
  std::size_t kept;
  double referenceClusters; ///< < 0: none
};

std::vector<CutSpec> cutSpecs(
  const std::string& path, const emst::TreeCutter& cutter, const Settings& settings)
{
  std::vector<CutSpec> specs;
  for (const auto& percent : { std::make_pair("p50", 50.0), std::make_pair("p99", 99.0) })
  {
    CutSpec spec;
    spec.label = std::string("t") + (percent.first + 1);
    spec.referenceClusters = -1.0;
    double t = 0.0, clusters = 0.0;
    if (!settings.periodic && referenceCut(path, percent.first, t, clusters))
    {
      spec.threshold = t;
      spec.referenceClusters = clusters; // groups, whatever the minimum size
    }
    else
    {
      spec.threshold = percentile(cutter.sortedEdges(), percent.second);
    }
    spec.kept = cutter.edgesAtMost(spec.threshold);
    specs.push_back(spec);
  }
  specs.push_back(CutSpec{ "k=10", std::nan(""), cutter.edgesForGroups(10), -1.0 });
  return specs;
}

/// Appends to a row's note, "; " between notes.
void addNote(CutRow& row, const std::string& note)
{
  row.note += (row.note.empty() ? "" : "; ") + note;
}

/// Times and checks one cut into `row`, which holds the set's columns and the cut's.
void timeCut(CutRow& row, const CutSpec& spec, const std::string& path, std::size_t n,
  emst::TreeCutter& cutter, const Settings& settings, std::vector<std::int32_t>& clusterId,
  std::vector<std::int64_t>& groupSize)
{
  std::vector<double> cutMs, downloadMs, callMs;
  emst::Clustering clustering;
  for (int run = 0; run <= settings.repeat; ++run)
  {
    const auto start = std::chrono::steady_clock::now();
    clustering =
      cutter.cut(spec.kept, settings.minimumClusterSize, clusterId.data(), groupSize.data());
    const double call = millisecondsSince(start);
    if (run == 0)
    {
      continue; // warm-up: pool allocations, first-touch of the host arrays
    }
    cutMs.push_back(clustering.milliseconds);
    downloadMs.push_back(clustering.downloadMilliseconds);
    callMs.push_back(call);
  }
  row.medianMs = median(cutMs);
  row.minMs = cutMs.empty() ? 0.0 : *std::min_element(cutMs.begin(), cutMs.end());
  row.downloadMs = median(downloadMs);
  row.callMs = median(callMs);
  row.groups = clustering.groups;
  row.clusters = clustering.sizes.size();
  row.largest = clustering.sizes.empty() ? 0 : clustering.sizes.front();
  row.noise = clustering.noisePoints;
  if (clustering.backend != cutter.backend() || clustering.keptEdges != spec.kept)
  {
    row.status = "MISMATCH";
    row.note = "Clustering::backend or keptEdges";
  }

  const std::string differs = checkAgainstUnionFind(n, cutter.sortedEdges(), spec.kept,
    settings.minimumClusterSize, clustering, clusterId, groupSize);
  row.check = differs.empty() ? "union-find ok" : "union-find differs";
  if (!differs.empty())
  {
    row.status = "MISMATCH";
    row.note = differs;
  }
  if (spec.referenceClusters >= 0.0)
  {
    const bool same = static_cast<double>(clustering.groups) == spec.referenceClusters;
    row.check +=
      "; ref " + formatDouble("%.0f", spec.referenceClusters) + (same ? " ok" : " differs");
    if (!same)
    {
      row.status = "MISMATCH";
      addNote(row,
        std::to_string(clustering.groups) + " groups, " + setName(path) + ".ref.json " +
          formatDouble("%.0f", spec.referenceClusters));
    }
  }
  if (spec.label == "k=10" &&
    clustering.groups !=
      std::max<std::size_t>(std::min<std::size_t>(10, n), n - cutter.edgeCount()))
  {
    row.status = "MISMATCH";
    addNote(row, std::to_string(clustering.groups) + " groups for k=10");
  }
}

} // namespace

std::vector<CutRow> timeCuts(const std::string& set, const Settings& settings)
{
  CutRow base;
  base.name = rowName(set, settings);
  base.backend = emst::backendName(settings.options.backend);
  std::vector<CutRow> rows;
  try
  {
    const LoadedSet loaded = loadSet(
      set, settings, "tree, then cuts: 1 warm-up + " + std::to_string(settings.repeat) + " each");
    const std::string& path = loaded.path;
    const emst::PointSet& points = loaded.points;
    base.n = points.count;
    base.dim = points.dimension;
    const emst::Result result = emst::computeEmst(points.view(), settings.options);
    reportMessages(base.name, result.messages);
    const std::string edgeProblem = edgeCountProblem(result);
    if (!edgeProblem.empty())
    {
      base.status = "MISMATCH";
      base.note = "tree: " + edgeProblem;
    }
    double weight = 0.0;
    std::string why;
    if (findReference(path, base.n, base.dim, settings, weight, why))
    {
      const double error = relativeError(result.totalWeight, weight);
      if (!(error <= settings.tolerance))
      {
        base.status = "MISMATCH";
        base.note = "tree weight: relative error " + formatDouble("%.3e", error);
      }
    }

    const auto buildStart = std::chrono::steady_clock::now();
    emst::TreeCutter cutter(
      points.count, result.edges, result.stats.backend, settings.options.cudaDevice);
    base.buildMs = millisecondsSince(buildStart);
    base.backend = emst::backendName(cutter.backend());
    base.device =
      cutter.backend() == emst::Backend::Cpu ? result.stats.deviceName : cutter.deviceName();
    reportMessages(base.name + ": cutter", cutter.messages());

    std::vector<std::int32_t> clusterId(points.count);
    std::vector<std::int64_t> groupSize(points.count);
    for (const CutSpec& spec : cutSpecs(path, cutter, settings))
    {
      CutRow row = base;
      row.cut = spec.label;
      row.threshold = spec.threshold;
      row.keptEdges = spec.kept;
      try
      {
        timeCut(row, spec, path, points.count, cutter, settings, clusterId, groupSize);
      }
      catch (const std::exception& e)
      {
        row.status = "ERROR";
        row.note = e.what();
        std::fprintf(stderr, "emst_benchmark: %s %s: error: %s\n", row.name.c_str(),
          row.cut.c_str(), e.what());
      }
      rows.push_back(row);
    }
  }
  catch (const std::exception& e)
  {
    base.status = "ERROR";
    base.note = e.what();
    std::fprintf(stderr, "emst_benchmark: %s: error: %s\n", base.name.c_str(), e.what());
    rows.assign(1, base);
  }
  return rows;
}

} // namespace emstbench
