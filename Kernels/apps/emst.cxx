// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// emst: the engine from the command line. Reads a point file, computes its Euclidean minimum
// spanning tree and prints one machine-readable summary line
//   points=N dim=D edges=E total_weight=W backend=B time_ms=T
// (W with 17 significant digits, T the wall time of the computeEmst call), then details. The
// engine's steps go to stderr when it is a terminal, or with --progress. With --hdbscan, the
// tree is HDBSCAN*'s mutual reachability tree and the line goes on with the clustering:
//   ... clusters=C noise_points=Z
// Exit status: 0 success, 1 engine or file error ("emst: error: ..."), 2 usage error.
#include "emst/Emst.h"
#include "CommandLine.h"
#include "emst/Hdbscan.h"
#include "emst/PointFile.h"

#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <string>

#include <unistd.h>

namespace
{

using emstcli::UsageError;

const char* const UsageText =
  "usage: emst [--backend auto|cuda|cpu] [--threads N] [--edges OUT.txt] [--quiet] [--progress]\n"
  "            [--hdbscan [--min-samples K] [--min-cluster-size M] [--selection eom|leaf]\n"
  "             [--epsilon E] [--allow-single-cluster] [--labels OUT.txt]\n"
  "             [--condensed-tree OUT.txt]] FILE\n";

const char* const HelpText =
  "Computes the exact Euclidean minimum spanning tree of a 2D or 3D point cloud.\n"
  "\n"
  "FILE             .f32 (little-endian uint64 n, uint32 dim, n*dim float32, point-major), or\n"
  "                 text (.xyz, .csv, .txt): one point per line, 2 or 3 numbers separated by\n"
  "                 spaces, tabs or commas; '#' lines, blank lines and one header line\n"
  "                 (before the first point, not starting like a number) are skipped.\n"
  "--backend B      auto (GPU when usable, else CPU; the default), cuda (or gpu), cpu.\n"
  "                 Without --backend, the environment variable EMST_BACKEND is used if set.\n"
  "--threads N      CPU backend threads, 0 to 1024 (default 0: the OpenMP default).\n"
  "--edges OUT.txt  write the edges, one \"i j length\" line each (17 significant digits),\n"
  "                 ordered by (length, i, j).\n"
  "--quiet          print the summary line only (engine messages still go to stderr).\n"
  "--progress       show the engine's steps on stderr (\"emst: progress  45% round 3 (1.2 s)\"):\n"
  "                 the default when stderr is a terminal (one line, redrawn), unless --quiet.\n"
  "--hdbscan        HDBSCAN* clusters (scikit-learn's conventions, docs/hdbscan.md): the tree is\n"
  "                 the minimum spanning tree under the mutual reachability distance\n"
  "                 max(core(a), core(b), |a-b|), core(p) the distance from p to its K-th\n"
  "                 nearest point counting p itself; --edges writes it.\n"
  "--min-samples K  K, 1 to 256 (default 5; scikit-learn's min_samples).\n"
  "--min-cluster-size M   the smallest cluster, at least 2 (default 5).\n"
  "--selection S    eom (excess of mass, the default) or leaf.\n"
  "--epsilon E      cluster_selection_epsilon, a distance (default 0: off).\n"
  "--allow-single-cluster   let eom select one cluster of all points.\n"
  "--labels OUT.txt one \"label probability outlier_score core_distance\" line per point\n"
  "                 (label -1: noise; 17 significant digits; nan for non-finite points).\n"
  "--condensed-tree OUT.txt   one \"parent child lambda size\" line per condensed tree row.\n"
  "-h, --help       this text.\n"
  "\n"
  "Output (stdout):\n"
  "  points=N dim=D edges=E total_weight=W backend=cpu|cuda time_ms=T\n"
  "  (with --hdbscan, then: clusters=C noise_points=Z)\n"
  "  then, unless --quiet: device, point statistics, rounds, compute/upload/download times,\n"
  "  peak working memory and the per-phase times. Engine messages go to stderr.\n"
  "Exit status: 0 success, 1 error (file or engine), 2 usage error.\n";

struct CommandLine
{
  std::string backend;
  bool backendGiven = false;
  int threads = 0;
  std::string edgesPath;
  bool quiet = false;
  bool progress = false;
  std::string input;
  bool help = false;
  bool hdbscan = false;
  bool hdbscanOption = false; ///< an option that only --hdbscan takes
  emst::HdbscanOptions hdbscanOptions;
  std::string labelsPath;
  std::string condensedPath;
};

/// A number of --epsilon: finite, non-negative.
double parseDistance(const std::string& option, const std::string& text)
{
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(value >= 0.0) || !std::isfinite(value))
  {
    throw UsageError{ option + " needs a non-negative number, got '" + text + "'" };
  }
  return value;
}

CommandLine parseCommandLine(int argc, char** argv)
{
  CommandLine cl;
  bool onlyFiles = false;
  emstcli::Arguments args(argc, argv);
  while (args.next())
  {
    const std::string& arg = args.arg();
    const std::string& name = args.name();
    if (onlyFiles || arg.empty() || arg[0] != '-' || arg == "-")
    {
      if (!cl.input.empty())
      {
        throw UsageError{ "more than one input file ('" + cl.input + "' and '" + arg + "')" };
      }
      cl.input = arg;
    }
    else if (arg == "--")
    {
      onlyFiles = true;
    }
    else if (arg == "-h" || arg == "--help")
    {
      cl.help = true;
    }
    else if (name == "--backend")
    {
      cl.backend = args.value();
      cl.backendGiven = true;
    }
    else if (name == "--threads")
    {
      cl.threads = emstcli::parseThreads(args.value());
    }
    else if (name == "--edges")
    {
      cl.edgesPath = args.value();
      if (cl.edgesPath.empty())
      {
        throw UsageError{ "--edges needs a file name" };
      }
    }
    else if (arg == "--quiet" || arg == "-q")
    {
      cl.quiet = true;
    }
    else if (arg == "--progress")
    {
      cl.progress = true;
    }
    else if (arg == "--hdbscan")
    {
      cl.hdbscan = true;
    }
    else if (name == "--min-samples")
    {
      cl.hdbscanOptions.minimumSamples = static_cast<std::size_t>(emstcli::parseInteger(
        "--min-samples", args.value(), 1, static_cast<int>(emst::MaxMinimumSamples)));
      cl.hdbscanOption = true;
    }
    else if (name == "--min-cluster-size")
    {
      cl.hdbscanOptions.parameters.minimumClusterSize = static_cast<std::size_t>(
        emstcli::parseInteger("--min-cluster-size", args.value(), 2, 2147483647));
      cl.hdbscanOption = true;
    }
    else if (name == "--selection")
    {
      const std::string text = args.value();
      try
      {
        cl.hdbscanOptions.parameters.selection = emst::parseClusterSelection(text);
      }
      catch (const emst::Error&)
      {
        throw UsageError{ "--selection needs eom or leaf, got '" + text + "'" };
      }
      cl.hdbscanOption = true;
    }
    else if (name == "--epsilon")
    {
      cl.hdbscanOptions.parameters.clusterSelectionEpsilon =
        parseDistance("--epsilon", args.value());
      cl.hdbscanOption = true;
    }
    else if (arg == "--allow-single-cluster")
    {
      cl.hdbscanOptions.parameters.allowSingleCluster = true;
      cl.hdbscanOption = true;
    }
    else if (name == "--labels" || name == "--condensed-tree")
    {
      std::string& path = name == "--labels" ? cl.labelsPath : cl.condensedPath;
      path = args.value();
      if (path.empty())
      {
        throw UsageError{ name + " needs a file name" };
      }
      cl.hdbscanOption = true;
    }
    else
    {
      throw UsageError{ "unknown option '" + arg + "'" };
    }
  }
  if (!cl.help && cl.input.empty())
  {
    throw UsageError{ "no input file" };
  }
  if (cl.hdbscanOption && !cl.hdbscan)
  {
    throw UsageError{ "--min-samples, --min-cluster-size, --selection, --epsilon, "
                      "--allow-single-cluster, --labels and --condensed-tree need --hdbscan" };
  }
  return cl;
}

/// The engine's steps on stderr (Options::progress): on a terminal one line redrawn in place,
/// elsewhere (a log) one line per step. A line left open by an error is ended on destruction, so
/// that the error message starts a line of its own.
class ProgressPrinter
{
public:
  explicit ProgressPrinter(bool inPlace)
    : InPlace(inPlace)
    , Start(std::chrono::steady_clock::now())
  {
  }
  ~ProgressPrinter()
  {
    if (this->LineOpen)
    {
      std::fputc('\n', stderr);
    }
  }
  ProgressPrinter(const ProgressPrinter&) = delete;
  ProgressPrinter& operator=(const ProgressPrinter&) = delete;

  bool operator()(double fraction, const char* step)
  {
    const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - this->Start).count();
    // Whole percents rounded down: 100% only once the engine says "done".
    const int percent = static_cast<int>(fraction * 100.0);
    this->LineOpen = this->InPlace && std::string(step) != "done";
    // In place: back to the line's start, the text, then erase what a longer text left.
    std::fprintf(stderr, "%semst: progress %3d%% %s (%.1f s)%s%s", this->InPlace ? "\r" : "",
      percent, step, seconds, this->InPlace ? "\033[K" : "", this->LineOpen ? "" : "\n");
    std::fflush(stderr);
    return true;
  }

private:
  bool InPlace;
  bool LineOpen = false;
  std::chrono::steady_clock::time_point Start;
};

int run(const CommandLine& cl)
{
  emst::Options options;
  std::string backendText = cl.backend;
  if (!cl.backendGiven)
  {
    const char* fromEnvironment = std::getenv("EMST_BACKEND");
    backendText = (fromEnvironment && *fromEnvironment) ? fromEnvironment : "auto";
  }
  try
  {
    options.backend = emst::parseBackend(backendText);
  }
  catch (const emst::Error&)
  {
    throw UsageError{ "unknown backend '" + backendText + "' (expected auto, cuda, gpu or cpu)" +
      (cl.backendGiven ? "" : " in EMST_BACKEND") };
  }
  options.cpuThreads = cl.threads;

  const emst::PointSet points = emst::readPointFile(cl.input);

  const bool terminal = ::isatty(STDERR_FILENO) == 1;
  ProgressPrinter progress(terminal);
  if (cl.progress || (terminal && !cl.quiet))
  {
    options.progress = [&progress](double fraction, const char* step)
    { return progress(fraction, step); };
  }
  const auto start = std::chrono::steady_clock::now();
  emst::HdbscanResult hdbscan;
  emst::Result tree;
  if (cl.hdbscan)
  {
    emst::HdbscanOptions hdbscanOptions = cl.hdbscanOptions;
    hdbscanOptions.engine = options;
    hdbscan = emst::computeHdbscan(points.view(), hdbscanOptions);
  }
  else
  {
    tree = emst::computeEmst(points.view(), options);
  }
  const emst::Result& result = cl.hdbscan ? hdbscan.tree.tree : tree;
  const auto stop = std::chrono::steady_clock::now();
  const double wallMilliseconds = std::chrono::duration<double, std::milli>(stop - start).count();

  // Engine messages (left-out points, CPU fallback, ...) go to stderr even with --quiet.
  for (const std::string& message : result.messages)
  {
    std::fprintf(stderr, "emst: %s\n", message.c_str());
  }

  const emst::Stats& s = result.stats;
  // Lower-case key=value tokens, whatever the engine's display name of the backend.
  std::string backend = emst::backendName(s.backend);
  for (char& c : backend)
  {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  std::printf("points=%zu dim=%d edges=%zu total_weight=%.17g backend=%s time_ms=%.3f",
    points.count, points.dimension, result.edges.size(), result.totalWeight, backend.c_str(),
    wallMilliseconds);
  if (cl.hdbscan)
  {
    std::printf(" clusters=%zu noise_points=%zu", hdbscan.clustering.clusters.size(),
      hdbscan.clustering.noisePoints);
  }
  std::printf("\n");
  if (!cl.quiet)
  {
    std::printf("device=\"%s\" valid_points=%zu nonfinite_points=%zu duplicate_points=%zu "
                "rounds=%d\n",
      s.deviceName.c_str(), s.validPoints, s.nonFinitePoints, s.duplicatePoints, s.rounds);
    const double mfeatures = s.computeMilliseconds > 0.0
      ? static_cast<double>(points.count) * points.dimension / (s.computeMilliseconds * 1e-3) / 1e6
      : 0.0;
    std::printf("compute_ms=%.3f upload_ms=%.3f download_ms=%.3f mfeatures_per_s=%.1f "
                "peak_backend_bytes=%zu\n",
      s.computeMilliseconds, s.uploadMilliseconds, s.downloadMilliseconds, mfeatures,
      s.peakBackendBytes);
    std::string phases = "phases_ms:";
    for (const emst::PhaseTime& phase : s.phases)
    {
      char value[64];
      std::snprintf(value, sizeof(value), "%.3f", phase.milliseconds);
      phases += " " + phase.name + "=" + value;
    }
    std::printf("%s\n", phases.c_str());
  }
  std::fflush(stdout);

  if (!cl.edgesPath.empty())
  {
    emst::writeEdges(cl.edgesPath, result.edges);
    if (!cl.quiet)
    {
      std::fprintf(
        stderr, "emst: wrote %zu edges to %s\n", result.edges.size(), cl.edgesPath.c_str());
    }
  }
  if (!cl.labelsPath.empty())
  {
    emst::writeHdbscanPoints(cl.labelsPath, hdbscan.tree.coreDistance, hdbscan.clustering);
    if (!cl.quiet)
    {
      std::fprintf(
        stderr, "emst: wrote %zu points' labels to %s\n", points.count, cl.labelsPath.c_str());
    }
  }
  if (!cl.condensedPath.empty())
  {
    emst::writeCondensedTree(cl.condensedPath, hdbscan.clustering.condensedTree);
    if (!cl.quiet)
    {
      std::fprintf(stderr, "emst: wrote %zu condensed tree rows to %s\n",
        hdbscan.clustering.condensedTree.size(), cl.condensedPath.c_str());
    }
  }
  return 0;
}

} // namespace

int main(int argc, char** argv)
{
  CommandLine cl;
  try
  {
    cl = parseCommandLine(argc, argv);
    if (cl.help)
    {
      std::fputs(UsageText, stdout);
      std::fputs(HelpText, stdout);
      return 0;
    }
    return run(cl);
  }
  catch (const UsageError& e)
  {
    std::fprintf(
      stderr, "emst: usage error: %s\n%s(emst --help for details)\n", e.message.c_str(), UsageText);
    return 2;
  }
  catch (const emst::Error& e)
  {
    std::fprintf(stderr, "emst: error: %s\n", e.what());
    return 1;
  }
  catch (const std::bad_alloc&)
  {
    std::fprintf(stderr, "emst: error: out of host memory\n");
    return 1;
  }
  catch (const std::exception& e)
  {
    std::fprintf(stderr, "emst: error: %s\n", e.what());
    return 1;
  }
}
