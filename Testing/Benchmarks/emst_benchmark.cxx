// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// emst_benchmark: times the engine on point files and prints one Markdown table row per set.
// This file is its command line; the parts are listed in Benchmark.h.
// Metric (DESIGN.md): MFeatures/s = n * dim / (median computeMilliseconds / 1000) / 1e6, upload
// and download reported apart; peak working memory per point = peakBackendBytes / n.
// Each set runs once to warm up (device memory pool kept: Options::keepDeviceMemory), then
// --repeat times; times are medians over the timed runs. The total weight is checked against
// the reference (NAME.ref.json beside the file, or gen_points_reference.txt for the standard
// synthetic sets) and the program exits with status 1 if any set fails or is off by more than
// the tolerance (2 for usage errors).
//
// --cut: the single-linkage cut instead (emst::TreeCutter, Clusters.h). After the tree of each
// set is computed (once, its weight checked as above), a TreeCutter on the same backend re-cuts
// it at the 50th and 99th percentile edge lengths (NAME.ref.json's t when there is one) and into
// 10 clusters: one warm-up cut, then --repeat timed cuts each; one table row per cut, with the
// cut's own time (Clustering::milliseconds, medians), the download of the per-point arrays apart,
// and the groups checked against a host union-find (and NAME.ref.json's cluster counts).
//
// --hdbscan: HDBSCAN* instead of the EMST, in the EMST table's columns (TreeTiming.cxx): the
// mutual reachability tree for k = --min-samples, then the clusters for --min-cluster-size.
#include "Benchmark.h"
#include "CommandLine.h"

#include <cstdlib>
#include <exception>

using namespace emstbench;
using emstcli::parseInteger;
using emstcli::UsageError;

namespace
{

const char* const UsageText =
  "usage: emst_benchmark [--backend auto|cuda|cpu] [--repeat N] [--threads N] [--data-dir DIR]\n"
  "                      [--reference FILE] [--tolerance X] [--csv FILE] [--json FILE]\n"
  "                      [--no-header] [--cut [--min-size N]] [--periodic] [--verify S]\n"
  "                      [--hdbscan [--min-samples K] [--min-cluster-size M]] SET...\n"
  "       emst_benchmark [--cut] --header-only\n";

const char* const HelpText =
  "SET is a point file (.f32, .xyz, .csv, .txt), or a name: a standard synthetic set such as\n"
  "uniform_1e7_3d is read from DIR/NAME.f32 (--data-dir, default $EMST_BENCH_DATA or .), a\n"
  "shared data set such as scan_bunny36k from $EMST_SHARED_DIR/data/NAME.f32.\n"
  "\n"
  "--backend B    auto (default), cuda (gpu) or cpu.\n"
  "--repeat N     timed runs per set after one warm-up run (default 5).\n"
  "--threads N    CPU backend threads, 0 to 1024 (0 = OpenMP default).\n"
  "--reference F  gen_points_reference.txt (default: $EMST_SHARED_DIR/tools/, else found\n"
  "               beside the set as ../tools/ or ./).\n"
  "--tolerance X  largest accepted relative error of the total weight (default 1e-6).\n"
  "--csv FILE, --json FILE   also write the results there.\n"
  "--no-header    print the rows only (to append to an existing table).\n"
  "--header-only  print the table header and exit.\n"
  "--cut          time emst::TreeCutter instead: after the tree of each set, cuts at the\n"
  "               50th and 99th percentile edge lengths (t50, t99: NAME.ref.json's t when\n"
  "               present, else numpy's linear percentile) and into 10 clusters (k=10); one\n"
  "               warm-up then --repeat cuts each; a table of cuts instead of the EMST table.\n"
  "--min-size N   minimum cluster size of the cuts (default 1; smaller groups are noise).\n"
  "--periodic     every set in a periodic box: the unit box [0, 1) on each axis, the\n"
  "               generator's (emst::PeriodicBox; points outside are wrapped). Rows are named\n"
  "               'SET (periodic)'; the reference weights and cut counts, which are the open\n"
  "               sets', are not checked.\n"
  "--hdbscan      time HDBSCAN* instead: the mutual reachability tree (its compute time is the\n"
  "               median; no reference weight unless K is 1), then the host's extraction of\n"
  "               the clusters (the phase \"extract (host)\"); the note gives the clusters, the\n"
  "               noise and the end-to-end time (tree call with its downloads + extraction).\n"
  "--min-samples K      HDBSCAN*'s k (scikit-learn's min_samples), 1 to 256 (default 10).\n"
  "--min-cluster-size M HDBSCAN*'s smallest cluster, at least 2 (default 100).\n"
  "--verify S     after the runs, check the tree against the file on the host's threads (for\n"
  "               sets with no reference weight, e.g. 10^9 points): every edge's length and the\n"
  "               total recomputed in double, and S sampled points (1 to 100000) joined to\n"
  "               their brute-force nearest neighbour; the note says what held.\n"
  "\n"
  "Columns: median and min of Stats::computeMilliseconds; MFeatures/s = n*dim/(median s)/1e6;\n"
  "upload/download medians; peak backend bytes per point (max over runs); Boruvka rounds; the\n"
  "total weight, its reference and relative error; per-phase medians (Stats::phases).\n"
  "Cut columns: threshold, kept edges, groups, clusters (groups of at least --min-size points),\n"
  "largest cluster, noise points; cut ms = Clustering::milliseconds (the cut on the backend,\n"
  "median and min), download ms = Clustering::downloadMilliseconds (the per-point arrays and\n"
  "cluster list to the host), call ms = the whole cut() call on the host clock; build ms = the\n"
  "TreeCutter constructor (check, upload of the edges). check: the groups and every per-point\n"
  "label against a host union-find, and the cluster count against NAME.ref.json.\n"
  "Exit status: 0 all sets ran and matched their references (or have none), 1 otherwise,\n"
  "2 usage error.\n";

Settings parseCommandLine(int argc, char** argv, bool& help)
{
  Settings settings;
  const char* benchData = std::getenv("EMST_BENCH_DATA");
  settings.dataDir = benchData && *benchData ? benchData : ".";
  settings.options.keepDeviceMemory = true;
  emstcli::Arguments args(argc, argv);
  while (args.next())
  {
    const std::string& arg = args.arg();
    const std::string& name = args.name();
    if (arg == "-h" || arg == "--help")
    {
      help = true;
    }
    else if (name == "--backend")
    {
      const std::string text = args.value();
      try
      {
        settings.options.backend = emst::parseBackend(text);
      }
      catch (const emst::Error&)
      {
        throw UsageError{ "unknown backend '" + text + "'" };
      }
    }
    else if (name == "--repeat")
    {
      settings.repeat = parseInteger("--repeat", args.value(), 1, 1000000);
    }
    else if (name == "--threads")
    {
      settings.options.cpuThreads = emstcli::parseThreads(args.value());
    }
    else if (name == "--data-dir")
    {
      settings.dataDir = args.value();
    }
    else if (name == "--reference")
    {
      settings.referencePath = args.value();
    }
    else if (name == "--tolerance")
    {
      const std::string text = args.value();
      char* end = nullptr;
      settings.tolerance = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0' || !(settings.tolerance >= 0.0))
      {
        throw UsageError{ "--tolerance needs a non-negative number, got '" + text + "'" };
      }
    }
    else if (name == "--csv")
    {
      settings.csvPath = args.value();
    }
    else if (name == "--json")
    {
      settings.jsonPath = args.value();
    }
    else if (arg == "--no-header")
    {
      settings.header = false;
    }
    else if (arg == "--header-only")
    {
      settings.headerOnly = true;
    }
    else if (arg == "--cut")
    {
      settings.cut = true;
    }
    else if (arg == "--periodic")
    {
      settings.periodic = true;
      for (int a = 0; a < 3; ++a)
      {
        settings.options.box.origin[a] = 0.0;
        settings.options.box.size[a] = 1.0;
      }
    }
    else if (name == "--min-size")
    {
      settings.minimumClusterSize =
        static_cast<std::size_t>(parseInteger("--min-size", args.value(), 0, 1000000));
    }
    else if (arg == "--hdbscan")
    {
      settings.hdbscan = true;
    }
    else if (name == "--min-samples")
    {
      settings.minimumSamples = static_cast<std::size_t>(
        parseInteger("--min-samples", args.value(), 1, static_cast<int>(emst::MaxMinimumSamples)));
    }
    else if (name == "--min-cluster-size")
    {
      settings.hdbscanMinimumClusterSize =
        static_cast<std::size_t>(parseInteger("--min-cluster-size", args.value(), 2, 2147483647));
    }
    else if (name == "--verify")
    {
      settings.verifySamples =
        static_cast<std::size_t>(parseInteger("--verify", args.value(), 1, 100000));
    }
    else if (!arg.empty() && arg[0] == '-')
    {
      throw UsageError{ "unknown option '" + arg + "'" };
    }
    else
    {
      settings.sets.push_back(arg);
    }
  }
  if (!help && !settings.headerOnly && settings.sets.empty())
  {
    throw UsageError{ "no set given" };
  }
  if (settings.hdbscan && settings.cut)
  {
    throw UsageError{ "--hdbscan and --cut are two different tables: choose one" };
  }
  return settings;
}

/// Runs every set (rows printed as they finish: a later crash keeps the earlier ones), then writes
/// the files; 0 when every row is ok, else 1.
template <class Row, class RowsOfSet>
int runSets(const Settings& settings, RowsOfSet rowsOfSet)
{
  std::vector<Row> rows;
  bool allGood = true;
  for (const std::string& set : settings.sets)
  {
    for (const Row& row : rowsOfSet(set))
    {
      rows.push_back(row);
      std::fputs(markdownRow(row).c_str(), stdout);
      allGood = allGood && row.status == "ok";
    }
    std::fflush(stdout);
  }
  try
  {
    if (!settings.csvPath.empty())
    {
      writeCsv(settings.csvPath, rows);
    }
    if (!settings.jsonPath.empty())
    {
      writeJson(settings.jsonPath, rows);
    }
  }
  catch (const std::exception& e)
  {
    std::fprintf(stderr, "emst_benchmark: error: %s\n", e.what());
    return 1;
  }
  return allGood ? 0 : 1;
}

} // namespace

int main(int argc, char** argv)
{
  Settings settings;
  try
  {
    bool help = false;
    settings = parseCommandLine(argc, argv, help);
    if (help)
    {
      std::fputs(UsageText, stdout);
      std::fputs(HelpText, stdout);
      return 0;
    }
  }
  catch (const UsageError& e)
  {
    std::fprintf(stderr, "emst_benchmark: usage error: %s\n%s", e.message.c_str(), UsageText);
    return 2;
  }

  if (settings.header || settings.headerOnly)
  {
    std::fputs(settings.cut ? CutMarkdownHeader : TreeMarkdownHeader, stdout);
    std::fflush(stdout);
  }
  if (settings.headerOnly)
  {
    return 0;
  }
  if (settings.cut)
  {
    return runSets<CutRow>(
      settings, [&](const std::string& set) { return timeCuts(set, settings); });
  }
  return runSets<TreeRow>(settings,
    [&](const std::string& set) { return std::vector<TreeRow>{ timeTree(set, settings) }; });
}
