// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// emst_benchmark: times the engine on point files and prints one Markdown table row per set.
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
#include "emst/Clusters.h"
#include "emst/Emst.h"
#include "emst/PointFile.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace
{

const char* const UsageText =
  "usage: emst_benchmark [--backend auto|cuda|cpu] [--repeat N] [--threads N] [--data-dir DIR]\n"
  "                      [--reference FILE] [--tolerance X] [--csv FILE] [--json FILE]\n"
  "                      [--no-header] [--cut [--min-size N]] SET...\n"
  "       emst_benchmark [--cut] --header-only\n";

const char* const HelpText =
  "SET is a point file (.f32, .xyz, .csv, .txt), or a name: a standard synthetic set such as\n"
  "uniform_1e7_3d is read from DIR/NAME.f32 (--data-dir, default $EMST_BENCH_DATA or .), a\n"
  "shared data set such as scan_bunny36k from $EMST_SHARED_DIR/data/NAME.f32.\n"
  "\n"
  "--backend B    auto (default), cuda (gpu) or cpu.\n"
  "--repeat N     timed runs per set after one warm-up run (default 5).\n"
  "--threads N    CPU backend threads (0 = OpenMP default).\n"
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

struct UsageError
{
  std::string message;
};

struct Settings
{
  emst::Options options;
  int repeat = 5;
  std::string dataDir;
  std::string referencePath;
  double tolerance = 1e-6;
  std::string csvPath;
  std::string jsonPath;
  bool header = true;
  bool headerOnly = false;
  bool cut = false;
  std::size_t minimumClusterSize = 1;
  std::vector<std::string> sets;
};

struct Row
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
  std::vector<std::pair<std::string, double>> phases; // medians, in engine order
  std::string status = "ok"; // ok | MISMATCH | ERROR
  std::string note;
};

double median(std::vector<double> v)
{
  if (v.empty())
  {
    return 0.0;
  }
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

bool fileExists(const std::string& path)
{
  std::ifstream f(path, std::ios::binary);
  return static_cast<bool>(f);
}

std::string directoryOf(const std::string& path)
{
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

std::string stemOf(const std::string& path)
{
  const std::size_t slash = path.find_last_of('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  const std::size_t dot = base.find_last_of('.');
  return dot == std::string::npos || dot == 0 ? base : base.substr(0, dot);
}

bool looksLikePath(const std::string& set)
{
  return set.find('/') != std::string::npos || set.find('.') != std::string::npos;
}

std::string sharedDir()
{
  const char* env = std::getenv("EMST_SHARED_DIR");
  return env && *env ? std::string(env) : std::string();
}

std::string resolveSet(const std::string& set, const Settings& settings)
{
  if (looksLikePath(set))
  {
    return set;
  }
  std::vector<std::string> candidates;
  candidates.push_back(settings.dataDir + "/" + set + ".f32");
  if (!sharedDir().empty())
  {
    candidates.push_back(sharedDir() + "/data/" + set + ".f32");
  }
  for (const std::string& c : candidates)
  {
    if (fileExists(c))
    {
      return c;
    }
  }
  std::string tried;
  for (const std::string& c : candidates)
  {
    tried += (tried.empty() ? "" : ", ") + c;
  }
  throw emst::Error(emst::ErrorCode::InvalidInput, "set '" + set + "' not found (tried " + tried + ")");
}

std::string readWholeFile(const std::string& path)
{
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

/// Reference total weight for a set: NAME.ref.json beside the file, else the line of
/// gen_points_reference.txt named like the file (its n and dim must match). Returns false and
/// says why in *why when there is none.
bool findReference(const std::string& file, std::size_t n, int dim, const Settings& settings,
  double& weight, std::string& why)
{
  const std::string stem = stemOf(file);
  const std::string json = directoryOf(file) + "/" + stem + ".ref.json";
  if (fileExists(json))
  {
    if (emst::jsonNumber(readWholeFile(json), "total_weight", weight))
    {
      return true;
    }
    why = "no total_weight in " + json;
    return false;
  }

  std::vector<std::string> tables;
  if (!settings.referencePath.empty())
  {
    tables.push_back(settings.referencePath);
  }
  else
  {
    if (!sharedDir().empty())
    {
      tables.push_back(sharedDir() + "/tools/gen_points_reference.txt");
    }
    tables.push_back(directoryOf(file) + "/../tools/gen_points_reference.txt");
    tables.push_back(directoryOf(file) + "/gen_points_reference.txt");
  }
  for (const std::string& table : tables)
  {
    std::ifstream in(table);
    if (!in)
    {
      continue;
    }
    std::string line;
    while (std::getline(in, line))
    {
      if (line.empty() || line[0] == '#')
      {
        continue;
      }
      std::istringstream fields(line);
      std::string name;
      double refN = 0;
      int refDim = 0;
      std::string refWeight;
      if (!(fields >> name >> refN >> refDim >> refWeight) || name != stem)
      {
        continue;
      }
      if (static_cast<std::size_t>(refN) != n || refDim != dim)
      {
        why = table + " lists " + name + " with n=" + std::to_string(static_cast<std::size_t>(refN)) +
          " dim=" + std::to_string(refDim) + ", the file has n=" + std::to_string(n) +
          " dim=" + std::to_string(dim);
        return false;
      }
      weight = std::strtod(refWeight.c_str(), nullptr);
      return true;
    }
    why = "no line for " + stem + " in " + table;
    return false;
  }
  why = "no " + stem + ".ref.json and no gen_points_reference.txt found";
  return false;
}

std::string formatDouble(const char* format, double value)
{
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, value);
  return buffer;
}

std::string phasesText(const Row& row, const char* separator)
{
  std::string text;
  for (const auto& phase : row.phases)
  {
    text += (text.empty() ? "" : separator) + phase.first + "=" + formatDouble("%.3f", phase.second);
  }
  return text;
}

std::string escapeMarkdown(std::string text)
{
  for (std::size_t at = text.find('|'); at != std::string::npos; at = text.find('|', at + 2))
  {
    text.replace(at, 1, "\\|");
  }
  return text;
}

std::string referenceText(const Row& row)
{
  return row.haveReference ? formatDouble("%.17g", row.reference) : "n/a";
}

std::string errorText(const Row& row)
{
  return row.haveReference && row.status != "ERROR" ? formatDouble("%.2e", row.relativeError) : "n/a";
}

const char* const MarkdownHeader =
  "| set | n | dim | backend | device | median ms | min ms | MFeatures/s | upload ms | download ms "
  "| bytes/point | rounds | total weight | reference | rel. error | status | phases (median ms) |\n"
  "|---|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n";

std::string markdownRow(const Row& r)
{
  std::string status = r.status + (r.note.empty() ? "" : ": " + r.note);
  if (r.status == "ERROR")
  {
    return "| " + r.name + " | " + (r.n ? std::to_string(r.n) : "?") + " | " +
      (r.dim ? std::to_string(r.dim) : "?") + " | " + r.backend +
      " | | | | | | | | | | | | " + escapeMarkdown(status) + " | |\n";
  }
  return "| " + r.name + " | " + std::to_string(r.n) + " | " + std::to_string(r.dim) + " | " +
    r.backend + " | " + escapeMarkdown(r.device) + " | " + formatDouble("%.3f", r.medianMs) + " | " +
    formatDouble("%.3f", r.minMs) + " | " + formatDouble("%.1f", r.mfeatures) + " | " +
    formatDouble("%.3f", r.uploadMs) + " | " + formatDouble("%.3f", r.downloadMs) + " | " +
    formatDouble("%.1f", r.bytesPerPoint) + " | " + std::to_string(r.rounds) + " | " +
    formatDouble("%.17g", r.totalWeight) + " | " + referenceText(r) + " | " + errorText(r) + " | " +
    escapeMarkdown(status) + " | " + escapeMarkdown(phasesText(r, "; ")) + " |\n";
}

std::string csvQuote(const std::string& text)
{
  std::string quoted = "\"";
  for (char c : text)
  {
    quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  }
  return quoted + "\"";
}

std::string jsonString(const std::string& text)
{
  std::string out = "\"";
  for (char c : text)
  {
    if (c == '"' || c == '\\')
    {
      out += '\\';
      out += c;
    }
    else if (static_cast<unsigned char>(c) < 0x20)
    {
      char buffer[8];
      std::snprintf(buffer, sizeof(buffer), "\\u%04x", static_cast<unsigned>(c));
      out += buffer;
    }
    else
    {
      out += c;
    }
  }
  return out + "\"";
}

std::string jsonNumberText(double value, const char* format)
{
  return std::isfinite(value) ? formatDouble(format, value) : std::string("null");
}

void writeCsv(const std::string& path, const std::vector<Row>& rows)
{
  std::ofstream out(path);
  if (!out)
  {
    throw emst::Error(emst::ErrorCode::InvalidInput, path + ": cannot open for writing");
  }
  out << "set,n,dim,backend,device,median_ms,min_ms,mfeatures_per_s,upload_ms,download_ms,"
         "bytes_per_point,rounds,total_weight,reference,relative_error,status,phases_median_ms\n";
  for (const Row& r : rows)
  {
    out << csvQuote(r.name) << ',' << r.n << ',' << r.dim << ',' << r.backend << ','
        << csvQuote(r.device) << ',' << formatDouble("%.4f", r.medianMs) << ','
        << formatDouble("%.4f", r.minMs) << ',' << formatDouble("%.3f", r.mfeatures) << ','
        << formatDouble("%.4f", r.uploadMs) << ',' << formatDouble("%.4f", r.downloadMs) << ','
        << formatDouble("%.2f", r.bytesPerPoint) << ',' << r.rounds << ','
        << formatDouble("%.17g", r.totalWeight) << ',' << referenceText(r) << ','
        << errorText(r) << ',' << csvQuote(r.status + (r.note.empty() ? "" : ": " + r.note)) << ','
        << csvQuote(phasesText(r, ";")) << '\n';
  }
  if (!out)
  {
    throw emst::Error(emst::ErrorCode::InvalidInput, path + ": write failed");
  }
}

void writeJson(const std::string& path, const std::vector<Row>& rows)
{
  std::ofstream out(path);
  if (!out)
  {
    throw emst::Error(emst::ErrorCode::InvalidInput, path + ": cannot open for writing");
  }
  out << "[\n";
  for (std::size_t k = 0; k < rows.size(); ++k)
  {
    const Row& r = rows[k];
    out << "  {\"set\": " << jsonString(r.name) << ", \"n\": " << r.n << ", \"dim\": " << r.dim
        << ", \"backend\": " << jsonString(r.backend) << ", \"device\": " << jsonString(r.device)
        << ", \"median_ms\": " << jsonNumberText(r.medianMs, "%.4f")
        << ", \"min_ms\": " << jsonNumberText(r.minMs, "%.4f")
        << ", \"mfeatures_per_s\": " << jsonNumberText(r.mfeatures, "%.3f")
        << ", \"upload_ms\": " << jsonNumberText(r.uploadMs, "%.4f")
        << ", \"download_ms\": " << jsonNumberText(r.downloadMs, "%.4f")
        << ", \"bytes_per_point\": " << jsonNumberText(r.bytesPerPoint, "%.2f")
        << ", \"rounds\": " << r.rounds
        << ", \"total_weight\": " << jsonNumberText(r.totalWeight, "%.17g")
        << ", \"reference\": " << (r.haveReference ? jsonNumberText(r.reference, "%.17g") : "null")
        << ", \"relative_error\": "
        << (r.haveReference && r.status != "ERROR" ? jsonNumberText(r.relativeError, "%.3e") : "null")
        << ", \"status\": " << jsonString(r.status) << ", \"note\": " << jsonString(r.note)
        << ", \"phases_median_ms\": {";
    for (std::size_t p = 0; p < r.phases.size(); ++p)
    {
      out << (p ? ", " : "") << jsonString(r.phases[p].first) << ": "
          << jsonNumberText(r.phases[p].second, "%.4f");
    }
    out << "}}" << (k + 1 < rows.size() ? "," : "") << "\n";
  }
  out << "]\n";
  if (!out)
  {
    throw emst::Error(emst::ErrorCode::InvalidInput, path + ": write failed");
  }
}

Row benchmarkSet(const std::string& set, const Settings& settings)
{
  Row row;
  row.name = looksLikePath(set) ? stemOf(set) : set;
  row.backend = emst::backendName(settings.options.backend);
  try
  {
    const std::string path = resolveSet(set, settings);
    const emst::PointSet points = emst::readPointFile(path);
    row.n = points.count;
    row.dim = points.dimension;
    std::fprintf(stderr, "emst_benchmark: %s (%s): n=%zu dim=%d, 1 warm-up + %d runs\n",
      row.name.c_str(), path.c_str(), row.n, row.dim, settings.repeat);

    std::vector<double> compute, upload, download;
    std::map<std::string, std::vector<double>> phaseTimes;
    std::vector<std::string> phaseOrder;
    std::size_t peakBytes = 0;
    emst::Result result;
    for (int run = 0; run <= settings.repeat; ++run)
    {
      const double previousWeight = result.totalWeight;
      const std::size_t previousEdges = result.edges.size();
      result = emst::computeEmst(points.view(), settings.options);
      if (run > 0 && (result.totalWeight != previousWeight || result.edges.size() != previousEdges))
      {
        row.status = "MISMATCH";
        row.note = "runs differ (total weight " + formatDouble("%.17g", previousWeight) + " then " +
          formatDouble("%.17g", result.totalWeight) + ")";
      }
      for (const std::string& message : result.messages)
      {
        if (run == 0)
        {
          std::fprintf(stderr, "emst_benchmark: %s: %s\n", row.name.c_str(), message.c_str());
        }
      }
      if (run == 0)
      {
        continue; // warm-up: device context, memory pool, page faults
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

    const std::size_t expectedEdges = s.validPoints > 0 ? s.validPoints - 1 : 0;
    if (result.edges.size() != expectedEdges)
    {
      row.status = "MISMATCH";
      row.note = std::to_string(result.edges.size()) + " edges for " + std::to_string(s.validPoints) +
        " valid points";
    }

    std::string why;
    row.haveReference = findReference(path, row.n, row.dim, settings, row.reference, why);
    if (row.haveReference)
    {
      row.relativeError = row.reference != 0.0
        ? std::fabs(row.totalWeight - row.reference) / std::fabs(row.reference)
        : std::fabs(row.totalWeight);
      if (!(row.relativeError <= settings.tolerance))
      {
        row.status = "MISMATCH";
        row.note = "relative error " + formatDouble("%.3e", row.relativeError) + " > " +
          formatDouble("%.1e", settings.tolerance);
      }
    }
    else
    {
      std::fprintf(stderr, "emst_benchmark: %s: no reference weight (%s)\n", row.name.c_str(), why.c_str());
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

// ---- --cut: the single-linkage cut of the tree ------------------------------------------------

struct CutRow
{
  std::string name;
  std::size_t n = 0;
  int dim = 0;
  std::string backend;
  std::string device;
  std::string cut;           ///< t50, t99, k=10
  double threshold = 0.0;    ///< NaN for k=10
  std::size_t keptEdges = 0;
  std::size_t groups = 0;
  std::size_t clusters = 0;
  std::uint64_t largest = 0;
  std::size_t noise = 0;
  double medianMs = 0, minMs = 0, downloadMs = 0, callMs = 0, buildMs = 0;
  std::string check;         ///< what was checked, e.g. "union-find ok; ref 361 ok"
  std::string status = "ok"; // ok | MISMATCH | ERROR
  std::string note;
};

const char* const CutMarkdownHeader =
  "| set | n | dim | backend | device | cut | threshold | kept edges | groups | clusters | largest "
  "| noise | cut ms | cut min ms | download ms | call ms | build ms | check | status |\n"
  "|---|---:|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n";

std::string thresholdText(double t)
{
  return std::isnan(t) ? std::string("-") : formatDouble("%.17g", t);
}

std::string cutMarkdownRow(const CutRow& r)
{
  const std::string status = r.status + (r.note.empty() ? "" : ": " + r.note);
  if (r.status == "ERROR" && r.cut.empty())
  {
    return "| " + r.name + " | " + (r.n ? std::to_string(r.n) : "?") + " | " +
      (r.dim ? std::to_string(r.dim) : "?") + " | " + r.backend +
      " | | | | | | | | | | | | | | | " + escapeMarkdown(status) + " |\n";
  }
  return "| " + r.name + " | " + std::to_string(r.n) + " | " + std::to_string(r.dim) + " | " +
    r.backend + " | " + escapeMarkdown(r.device) + " | " + r.cut + " | " + thresholdText(r.threshold) +
    " | " + std::to_string(r.keptEdges) + " | " + std::to_string(r.groups) + " | " +
    std::to_string(r.clusters) + " | " + std::to_string(r.largest) + " | " + std::to_string(r.noise) +
    " | " + formatDouble("%.3f", r.medianMs) + " | " + formatDouble("%.3f", r.minMs) + " | " +
    formatDouble("%.3f", r.downloadMs) + " | " + formatDouble("%.3f", r.callMs) + " | " +
    formatDouble("%.3f", r.buildMs) + " | " + escapeMarkdown(r.check) + " | " +
    escapeMarkdown(status) + " |\n";
}

void writeCutCsv(const std::string& path, const std::vector<CutRow>& rows)
{
  std::ofstream out(path);
  if (!out)
  {
    throw emst::Error(emst::ErrorCode::InvalidInput, path + ": cannot open for writing");
  }
  out << "set,n,dim,backend,device,cut,threshold,kept_edges,groups,clusters,largest,noise,"
         "cut_median_ms,cut_min_ms,download_ms,call_ms,build_ms,check,status\n";
  for (const CutRow& r : rows)
  {
    out << csvQuote(r.name) << ',' << r.n << ',' << r.dim << ',' << r.backend << ','
        << csvQuote(r.device) << ',' << r.cut << ',' << thresholdText(r.threshold) << ','
        << r.keptEdges << ',' << r.groups << ',' << r.clusters << ',' << r.largest << ','
        << r.noise << ',' << formatDouble("%.4f", r.medianMs) << ',' << formatDouble("%.4f", r.minMs)
        << ',' << formatDouble("%.4f", r.downloadMs) << ',' << formatDouble("%.4f", r.callMs) << ','
        << formatDouble("%.4f", r.buildMs) << ',' << csvQuote(r.check) << ','
        << csvQuote(r.status + (r.note.empty() ? "" : ": " + r.note)) << '\n';
  }
  if (!out)
  {
    throw emst::Error(emst::ErrorCode::InvalidInput, path + ": write failed");
  }
}

void writeCutJson(const std::string& path, const std::vector<CutRow>& rows)
{
  std::ofstream out(path);
  if (!out)
  {
    throw emst::Error(emst::ErrorCode::InvalidInput, path + ": cannot open for writing");
  }
  out << "[\n";
  for (std::size_t k = 0; k < rows.size(); ++k)
  {
    const CutRow& r = rows[k];
    out << "  {\"set\": " << jsonString(r.name) << ", \"n\": " << r.n << ", \"dim\": " << r.dim
        << ", \"backend\": " << jsonString(r.backend) << ", \"device\": " << jsonString(r.device)
        << ", \"cut\": " << jsonString(r.cut)
        << ", \"threshold\": " << jsonNumberText(r.threshold, "%.17g")
        << ", \"kept_edges\": " << r.keptEdges << ", \"groups\": " << r.groups
        << ", \"clusters\": " << r.clusters << ", \"largest\": " << r.largest
        << ", \"noise\": " << r.noise
        << ", \"cut_median_ms\": " << jsonNumberText(r.medianMs, "%.4f")
        << ", \"cut_min_ms\": " << jsonNumberText(r.minMs, "%.4f")
        << ", \"download_ms\": " << jsonNumberText(r.downloadMs, "%.4f")
        << ", \"call_ms\": " << jsonNumberText(r.callMs, "%.4f")
        << ", \"build_ms\": " << jsonNumberText(r.buildMs, "%.4f")
        << ", \"check\": " << jsonString(r.check) << ", \"status\": " << jsonString(r.status)
        << ", \"note\": " << jsonString(r.note) << "}" << (k + 1 < rows.size() ? "," : "") << "\n";
  }
  out << "]\n";
  if (!out)
  {
    throw emst::Error(emst::ErrorCode::InvalidInput, path + ": write failed");
  }
}

double millisecondsSince(std::chrono::steady_clock::time_point start)
{
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

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

/// t and the cluster count ("edges <= t kept") of a section (p50, p99) of NAME.ref.json.
bool referenceCut(const std::string& json, const std::string& section, double& t, double& clusters)
{
  const std::size_t at = json.find("\"" + section + "\"");
  if (at == std::string::npos)
  {
    return false;
  }
  const std::string text = json.substr(at);
  return emst::jsonNumber(text, "t", t) && emst::jsonNumber(text, "clusters", clusters);
}

/// The labels a cut must give, from a sequential union-find over the first `kept` edges: the
/// groups by decreasing size, ties by smallest point. Returns "" when `got` agrees, else what
/// differs first.
std::string checkAgainstUnionFind(std::size_t n, const std::vector<emst::Edge>& sorted,
  std::size_t kept, std::size_t minimumSize, const emst::Clustering& got,
  const std::vector<std::int32_t>& clusterId, const std::vector<std::int64_t>& groupSize)
{
  std::vector<std::uint32_t> parent(n);
  for (std::size_t p = 0; p < n; ++p)
  {
    parent[p] = static_cast<std::uint32_t>(p);
  }
  auto find = [&parent](std::uint32_t x) {
    while (parent[x] != x)
    {
      parent[x] = parent[parent[x]];
      x = parent[x];
    }
    return x;
  };
  for (std::size_t e = 0; e < kept; ++e)
  {
    const std::uint32_t a = find(sorted[e].i);
    const std::uint32_t b = find(sorted[e].j);
    if (a != b)
    {
      parent[std::max(a, b)] = std::min(a, b); // roots stay the groups' smallest points
    }
  }
  std::vector<std::uint32_t> root(n);
  std::vector<std::uint64_t> count(n, 0);
  for (std::size_t p = 0; p < n; ++p)
  {
    root[p] = find(static_cast<std::uint32_t>(p));
    ++count[root[p]];
  }
  std::vector<std::uint32_t> groups;
  for (std::size_t p = 0; p < n; ++p)
  {
    if (root[p] == p)
    {
      groups.push_back(static_cast<std::uint32_t>(p));
    }
  }
  if (got.groups != groups.size())
  {
    return std::to_string(got.groups) + " groups, union-find " + std::to_string(groups.size());
  }
  std::stable_sort(groups.begin(), groups.end(),
    [&count](std::uint32_t a, std::uint32_t b) { return count[a] > count[b]; });
  std::vector<std::int32_t> rank(n, -1);
  std::size_t clusters = 0;
  std::size_t noise = 0;
  for (std::uint32_t g : groups)
  {
    if (count[g] >= minimumSize)
    {
      if (clusters >= got.sizes.size() || got.sizes[clusters] != count[g] ||
        clusters >= got.firstPoint.size() || got.firstPoint[clusters] != g)
      {
        return "cluster " + std::to_string(clusters) + " differs (union-find: " +
          std::to_string(count[g]) + " points from " + std::to_string(g) + ")";
      }
      rank[g] = static_cast<std::int32_t>(clusters++);
    }
    else
    {
      noise += count[g];
    }
  }
  if (got.sizes.size() != clusters || got.noisePoints != noise)
  {
    return std::to_string(got.sizes.size()) + " clusters and " + std::to_string(got.noisePoints) +
      " noise points, union-find " + std::to_string(clusters) + " and " + std::to_string(noise);
  }
  for (std::size_t p = 0; p < n; ++p)
  {
    if (clusterId[p] != rank[root[p]] || groupSize[p] != static_cast<std::int64_t>(count[root[p]]))
    {
      return "point " + std::to_string(p) + ": cluster " + std::to_string(clusterId[p]) + " size " +
        std::to_string(groupSize[p]) + ", union-find " + std::to_string(rank[root[p]]) + " size " +
        std::to_string(count[root[p]]);
    }
  }
  return std::string();
}

std::vector<CutRow> benchmarkCuts(const std::string& set, const Settings& settings)
{
  CutRow base;
  base.name = looksLikePath(set) ? stemOf(set) : set;
  base.backend = emst::backendName(settings.options.backend);
  std::vector<CutRow> rows;
  try
  {
    const std::string path = resolveSet(set, settings);
    const emst::PointSet points = emst::readPointFile(path);
    base.n = points.count;
    base.dim = points.dimension;
    std::fprintf(stderr, "emst_benchmark: %s (%s): n=%zu dim=%d, tree, then cuts: 1 warm-up + %d each\n",
      base.name.c_str(), path.c_str(), base.n, base.dim, settings.repeat);
    const emst::Result result = emst::computeEmst(points.view(), settings.options);
    for (const std::string& message : result.messages)
    {
      std::fprintf(stderr, "emst_benchmark: %s: %s\n", base.name.c_str(), message.c_str());
    }
    const std::size_t valid = result.stats.validPoints;
    if (result.edges.size() != (valid > 0 ? valid - 1 : 0))
    {
      base.status = "MISMATCH";
      base.note = "tree: " + std::to_string(result.edges.size()) + " edges for " +
        std::to_string(valid) + " valid points";
    }
    double weight = 0.0;
    std::string why;
    if (findReference(path, base.n, base.dim, settings, weight, why))
    {
      const double error = weight != 0.0 ? std::fabs(result.totalWeight - weight) / std::fabs(weight)
                                         : std::fabs(result.totalWeight);
      if (!(error <= settings.tolerance))
      {
        base.status = "MISMATCH";
        base.note = "tree weight: relative error " + formatDouble("%.3e", error);
      }
    }

    const auto buildStart = std::chrono::steady_clock::now();
    emst::TreeCutter cutter(points.count, result.edges, result.stats.backend, settings.options.cudaDevice);
    base.buildMs = millisecondsSince(buildStart);
    base.backend = emst::backendName(cutter.backend());
    base.device = cutter.backend() == emst::Backend::Cpu ? result.stats.deviceName : cutter.deviceName();
    for (const std::string& message : cutter.messages())
    {
      std::fprintf(stderr, "emst_benchmark: %s: cutter: %s\n", base.name.c_str(), message.c_str());
    }

    const std::string jsonPath = directoryOf(path) + "/" + stemOf(path) + ".ref.json";
    const std::string json = fileExists(jsonPath) ? readWholeFile(jsonPath) : std::string();
    struct Spec
    {
      std::string label;
      double threshold;
      std::size_t kept;
      double referenceClusters; // < 0: none
    };
    std::vector<Spec> specs;
    for (const auto& percent : { std::make_pair("p50", 50.0), std::make_pair("p99", 99.0) })
    {
      Spec spec;
      spec.label = std::string("t") + (percent.first + 1);
      spec.referenceClusters = -1.0;
      double t = 0.0, clusters = 0.0;
      if (!json.empty() && referenceCut(json, percent.first, t, clusters))
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
    specs.push_back(Spec{ "k=10", std::nan(""), cutter.edgesForGroups(10), -1.0 });

    std::vector<std::int32_t> clusterId(points.count);
    std::vector<std::int64_t> groupSize(points.count);
    for (const Spec& spec : specs)
    {
      CutRow row = base;
      row.cut = spec.label;
      row.threshold = spec.threshold;
      row.keptEdges = spec.kept;
      try
      {
        std::vector<double> cutMs, downloadMs, callMs;
        emst::Clustering clustering;
        for (int run = 0; run <= settings.repeat; ++run)
        {
          const auto start = std::chrono::steady_clock::now();
          clustering = cutter.cut(spec.kept, settings.minimumClusterSize, clusterId.data(), groupSize.data());
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

        const std::string differs = checkAgainstUnionFind(points.count, cutter.sortedEdges(),
          spec.kept, settings.minimumClusterSize, clustering, clusterId, groupSize);
        row.check = differs.empty() ? "union-find ok" : "union-find differs";
        if (!differs.empty())
        {
          row.status = "MISMATCH";
          row.note = differs;
        }
        if (spec.referenceClusters >= 0.0)
        {
          const bool same = static_cast<double>(clustering.groups) == spec.referenceClusters;
          row.check += "; ref " + formatDouble("%.0f", spec.referenceClusters) + (same ? " ok" : " differs");
          if (!same)
          {
            row.status = "MISMATCH";
            row.note += (row.note.empty() ? "" : "; ") + std::to_string(clustering.groups) +
              " groups, " + stemOf(path) + ".ref.json " + formatDouble("%.0f", spec.referenceClusters);
          }
        }
        if (spec.label == "k=10" && clustering.groups != std::max<std::size_t>(
              std::min<std::size_t>(10, points.count), points.count - cutter.edgeCount()))
        {
          row.status = "MISMATCH";
          row.note += (row.note.empty() ? "" : "; ") + std::to_string(clustering.groups) + " groups for k=10";
        }
      }
      catch (const std::exception& e)
      {
        row.status = "ERROR";
        row.note = e.what();
        std::fprintf(stderr, "emst_benchmark: %s %s: error: %s\n", row.name.c_str(), row.cut.c_str(), e.what());
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

int parseInt(const std::string& option, const std::string& text, int lowest)
{
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || value < lowest || value > 1000000)
  {
    throw UsageError{ option + " needs an integer >= " + std::to_string(lowest) + ", got '" + text + "'" };
  }
  return static_cast<int>(value);
}

Settings parseCommandLine(int argc, char** argv, bool& help)
{
  Settings settings;
  const char* benchData = std::getenv("EMST_BENCH_DATA");
  settings.dataDir = benchData && *benchData ? benchData : ".";
  settings.options.keepDeviceMemory = true;
  for (int k = 1; k < argc; ++k)
  {
    const std::string arg = argv[k];
    std::string name = arg;
    std::string value;
    bool hasInlineValue = false;
    if (arg.rfind("--", 0) == 0 && arg.find('=') != std::string::npos)
    {
      name = arg.substr(0, arg.find('='));
      value = arg.substr(arg.find('=') + 1);
      hasInlineValue = true;
    }
    auto takeValue = [&]() -> std::string {
      if (hasInlineValue)
      {
        return value;
      }
      if (k + 1 >= argc)
      {
        throw UsageError{ name + " needs a value" };
      }
      return argv[++k];
    };
    if (arg == "-h" || arg == "--help")
    {
      help = true;
    }
    else if (name == "--backend")
    {
      const std::string text = takeValue();
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
      settings.repeat = parseInt("--repeat", takeValue(), 1);
    }
    else if (name == "--threads")
    {
      settings.options.cpuThreads = parseInt("--threads", takeValue(), 0);
    }
    else if (name == "--data-dir")
    {
      settings.dataDir = takeValue();
    }
    else if (name == "--reference")
    {
      settings.referencePath = takeValue();
    }
    else if (name == "--tolerance")
    {
      const std::string text = takeValue();
      char* end = nullptr;
      settings.tolerance = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0' || !(settings.tolerance >= 0.0))
      {
        throw UsageError{ "--tolerance needs a non-negative number, got '" + text + "'" };
      }
    }
    else if (name == "--csv")
    {
      settings.csvPath = takeValue();
    }
    else if (name == "--json")
    {
      settings.jsonPath = takeValue();
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
    else if (name == "--min-size")
    {
      settings.minimumClusterSize = static_cast<std::size_t>(parseInt("--min-size", takeValue(), 0));
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
  return settings;
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
    std::fputs(settings.cut ? CutMarkdownHeader : MarkdownHeader, stdout);
    std::fflush(stdout);
  }
  if (settings.headerOnly)
  {
    return 0;
  }
  if (settings.cut)
  {
    std::vector<CutRow> cutRows;
    bool allCutsGood = true;
    for (const std::string& set : settings.sets)
    {
      for (const CutRow& row : benchmarkCuts(set, settings))
      {
        cutRows.push_back(row);
        std::fputs(cutMarkdownRow(row).c_str(), stdout);
        allCutsGood = allCutsGood && row.status == "ok";
      }
      std::fflush(stdout);
    }
    try
    {
      if (!settings.csvPath.empty())
      {
        writeCutCsv(settings.csvPath, cutRows);
      }
      if (!settings.jsonPath.empty())
      {
        writeCutJson(settings.jsonPath, cutRows);
      }
    }
    catch (const std::exception& e)
    {
      std::fprintf(stderr, "emst_benchmark: error: %s\n", e.what());
      return 1;
    }
    return allCutsGood ? 0 : 1;
  }
  std::vector<Row> rows;
  bool allGood = true;
  for (const std::string& set : settings.sets)
  {
    rows.push_back(benchmarkSet(set, settings));
    std::fputs(markdownRow(rows.back()).c_str(), stdout);
    std::fflush(stdout); // rows appear as they finish: a later crash keeps the earlier ones
    allGood = allGood && rows.back().status == "ok";
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
