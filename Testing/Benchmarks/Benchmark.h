// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// emst_benchmark, its parts: the command line (emst_benchmark.cxx), finding the sets and their
// references (Sets.cxx), timing the tree (TreeTiming.cxx) and the cut (CutTiming.cxx), checking
// the results (Checks.cxx), the Markdown tables (Tables.cxx) and the CSV/JSON files
// (ResultFiles.cxx). The columns and the file formats are those of RESULTS.md and
// run_benchmarks.sh: change them together.
#pragma once

#include "emst/Clusters.h"
#include "emst/Emst.h"
#include "emst/Hdbscan.h"
#include "emst/PointFile.h"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace emstbench
{

struct Settings
{
  emst::Options options;
  int repeat = 5;            ///< timed runs after one warm-up run
  std::string dataDir;       ///< where standard synthetic sets are found by name
  std::string referencePath; ///< gen_points_reference.txt; empty: searched
  double tolerance = 1e-6;   ///< largest accepted relative error of the total weight
  std::string csvPath;
  std::string jsonPath;
  bool header = true;
  bool headerOnly = false;
  bool cut = false;
  bool periodic = false; ///< --periodic: every set in the periodic unit box [0, 1)^dim
  std::size_t minimumClusterSize = 1;
  /// --hdbscan: HDBSCAN* (emst::computeMutualReachabilityTree, then extractHdbscanClusters).
  bool hdbscan = false;
  std::size_t minimumSamples = 10;
  std::size_t hdbscanMinimumClusterSize = 100;
  std::size_t verifySamples = 0; ///< --verify S: verifyTree after the runs (0: not run)
  std::vector<std::string> sets;
};

/// One set's tree: a row of the EMST table.
struct TreeRow
{
  std::string name;
  std::size_t n = 0;
  int dim = 0;
  std::string backend;
  std::string device;
  double medianMs = 0, minMs = 0, mfeatures = 0, uploadMs = 0, downloadMs = 0, bytesPerPoint = 0;
  int rounds = 0;
  double totalWeight = 0;
  bool haveReference = false;
  double reference = 0;
  double relativeError = 0;
  std::vector<std::pair<std::string, double>> phases; ///< medians, in engine order
  std::string status = "ok";                          ///< ok | MISMATCH | ERROR
  std::string note;
};

/// One cut of one set's tree: a row of the cut table.
struct CutRow
{
  std::string name;
  std::size_t n = 0;
  int dim = 0;
  std::string backend;
  std::string device;
  std::string cut;        ///< t50, t99, k=10; empty when the set failed before any cut
  double threshold = 0.0; ///< NaN for k=10
  std::size_t keptEdges = 0;
  std::size_t groups = 0;
  std::size_t clusters = 0;
  std::uint64_t largest = 0;
  std::size_t noise = 0;
  double medianMs = 0, minMs = 0, downloadMs = 0, callMs = 0, buildMs = 0;
  std::string check;         ///< what was checked, e.g. "union-find ok; ref 361 ok"
  std::string status = "ok"; ///< ok | MISMATCH | ERROR
  std::string note;
};

// ---- Sets.cxx: a set's file and its reference values --------------------------------------------

/// The table name of a set: the file's stem for a path, else the name itself.
std::string setName(const std::string& set);
/// The name of a set's rows: setName, and " (periodic)" in a periodic run.
std::string rowName(const std::string& set, const Settings& settings);
/// A set's file and points.
struct LoadedSet
{
  std::string path;
  emst::PointSet points;
};
/// Reads a set (a path as given; a name from Settings::dataDir or $EMST_SHARED_DIR/data) and says
/// on stderr what will run on it (`plan`). Throws emst::Error(InvalidInput) naming the places
/// tried, or the reader's error.
LoadedSet loadSet(const std::string& set, const Settings& settings, const std::string& plan);
/// The engine's messages on stderr, one line each: "emst_benchmark: LABEL: message".
void reportMessages(const std::string& label, const std::vector<std::string>& messages);
/// The reference total weight: NAME.ref.json beside the file, else the line of
/// gen_points_reference.txt named like the file (its n and dim must match). False, with the
/// reason in `why`, when there is none (always in a periodic run: the references are the open
/// sets').
bool findReference(const std::string& file, std::size_t n, int dim, const Settings& settings,
  double& weight, std::string& why);
/// t and the cluster count ("edges <= t kept") of a section (p50, p99) of NAME.ref.json beside
/// the file. False when there is no such file or section.
bool referenceCut(const std::string& file, const std::string& section, double& t, double& clusters);

// ---- TreeTiming.cxx, CutTiming.cxx --------------------------------------------------------------

/// Times the tree of one set: 1 warm-up + Settings::repeat runs; the row says what failed.
TreeRow timeTree(const std::string& set, const Settings& settings);
/// Computes the tree of one set, then times TreeCutter at t50, t99 and k=10: a row per cut, or
/// one ERROR row when the set fails before any cut.
std::vector<CutRow> timeCuts(const std::string& set, const Settings& settings);

// ---- Checks.cxx ---------------------------------------------------------------------------------

/// |weight - reference| / |reference| (|weight| for a zero reference).
double relativeError(double weight, double reference);
/// "" when the tree has validPoints - 1 edges, else what is wrong.
std::string edgeCountProblem(const emst::Result& result);

/// --verify S: the tree against the file, on the host's threads: every edge's length and the
/// total recomputed in double from the coordinates, and S sampled points (spread over the
/// indices) joined by a tree edge to their brute-force nearest neighbour. An empty string when
/// all hold (summary says what was checked), else the problem.
std::string verifyTree(const emst::PointSet& points, const emst::Result& result,
  std::size_t samples, std::string& summary);
/// "" when a cut agrees with a sequential union-find over the first `kept` sorted edges (groups
/// by decreasing size, ties by smallest point; every point's label and group size), else what
/// differs first.
std::string checkAgainstUnionFind(std::size_t n, const std::vector<emst::Edge>& sorted,
  std::size_t kept, std::size_t minimumSize, const emst::Clustering& got,
  const std::vector<std::int32_t>& clusterId, const std::vector<std::int64_t>& groupSize);

// ---- Tables.cxx: Markdown, and the column texts the files share ---------------------------------

extern const char* const TreeMarkdownHeader;
extern const char* const CutMarkdownHeader;
std::string markdownRow(const TreeRow& row);
std::string markdownRow(const CutRow& row);
/// "status" or "status: note".
std::string statusText(const std::string& status, const std::string& note);
std::string phasesText(const TreeRow& row, const char* separator);
std::string referenceText(const TreeRow& row); ///< %.17g or n/a
std::string errorText(const TreeRow& row);     ///< %.2e or n/a
std::string thresholdText(double t);           ///< %.17g or - for NaN

// ---- ResultFiles.cxx ----------------------------------------------------------------------------

/// The rows as CSV or JSON; throws emst::Error naming the path when it cannot write.
void writeCsv(const std::string& path, const std::vector<TreeRow>& rows);
void writeCsv(const std::string& path, const std::vector<CutRow>& rows);
void writeJson(const std::string& path, const std::vector<TreeRow>& rows);
void writeJson(const std::string& path, const std::vector<CutRow>& rows);

// ---- small shared pieces ------------------------------------------------------------------------

inline std::string formatDouble(const char* format, double value)
{
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, value);
  return buffer;
}

/// The median (mean of the two middle values for an even count); 0 for none.
inline double median(std::vector<double> values)
{
  if (values.empty())
  {
    return 0.0;
  }
  std::sort(values.begin(), values.end());
  const std::size_t m = values.size() / 2;
  return values.size() % 2 ? values[m] : 0.5 * (values[m - 1] + values[m]);
}

inline double millisecondsSince(std::chrono::steady_clock::time_point start)
{
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
    .count();
}

} // namespace emstbench
