// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The rows as CSV (run_benchmarks.sh appends the files of its runs: one header line, then rows)
// and as JSON (an array of one object per row; non-finite numbers are null).
#include "Benchmark.h"

#include <cmath>
#include <fstream>
#include <functional>

namespace emstbench
{
namespace
{

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

/// Writes `path` through `write`; any failure becomes an emst::Error naming the path.
void writeFile(const std::string& path, const std::function<void(std::ofstream&)>& write)
{
  std::ofstream out(path);
  if (!out)
  {
    throw emst::Error(emst::ErrorCode::InvalidInput, path + ": cannot open for writing");
  }
  write(out);
  if (!out)
  {
    throw emst::Error(emst::ErrorCode::InvalidInput, path + ": write failed");
  }
}

/// A JSON array, one object per line.
template <class Row>
void writeJsonArray(const std::string& path, const std::vector<Row>& rows,
  const std::function<void(std::ofstream&, const Row&)>& writeObject)
{
  writeFile(path,
    [&](std::ofstream& out)
    {
      out << "[\n";
      for (std::size_t k = 0; k < rows.size(); ++k)
      {
        out << "  ";
        writeObject(out, rows[k]);
        out << (k + 1 < rows.size() ? "," : "") << "\n";
      }
      out << "]\n";
    });
}

} // namespace

void writeCsv(const std::string& path, const std::vector<TreeRow>& rows)
{
  writeFile(path,
    [&](std::ofstream& out)
    {
      out
        << "set,n,dim,backend,device,median_ms,min_ms,mfeatures_per_s,upload_ms,download_ms,"
           "bytes_per_point,rounds,total_weight,reference,relative_error,status,phases_median_ms\n";
      for (const TreeRow& r : rows)
      {
        out << csvQuote(r.name) << ',' << r.n << ',' << r.dim << ',' << r.backend << ','
            << csvQuote(r.device) << ',' << formatDouble("%.4f", r.medianMs) << ','
            << formatDouble("%.4f", r.minMs) << ',' << formatDouble("%.3f", r.mfeatures) << ','
            << formatDouble("%.4f", r.uploadMs) << ',' << formatDouble("%.4f", r.downloadMs) << ','
            << formatDouble("%.2f", r.bytesPerPoint) << ',' << r.rounds << ','
            << formatDouble("%.17g", r.totalWeight) << ',' << referenceText(r) << ','
            << errorText(r) << ',' << csvQuote(statusText(r.status, r.note)) << ','
            << csvQuote(phasesText(r, ";")) << '\n';
      }
    });
}

void writeCsv(const std::string& path, const std::vector<CutRow>& rows)
{
  writeFile(path,
    [&](std::ofstream& out)
    {
      out << "set,n,dim,backend,device,cut,threshold,kept_edges,groups,clusters,largest,noise,"
             "cut_median_ms,cut_min_ms,download_ms,call_ms,build_ms,check,status\n";
      for (const CutRow& r : rows)
      {
        out << csvQuote(r.name) << ',' << r.n << ',' << r.dim << ',' << r.backend << ','
            << csvQuote(r.device) << ',' << r.cut << ',' << thresholdText(r.threshold) << ','
            << r.keptEdges << ',' << r.groups << ',' << r.clusters << ',' << r.largest << ','
            << r.noise << ',' << formatDouble("%.4f", r.medianMs) << ','
            << formatDouble("%.4f", r.minMs) << ',' << formatDouble("%.4f", r.downloadMs) << ','
            << formatDouble("%.4f", r.callMs) << ',' << formatDouble("%.4f", r.buildMs) << ','
            << csvQuote(r.check) << ',' << csvQuote(statusText(r.status, r.note)) << '\n';
      }
    });
}

void writeJson(const std::string& path, const std::vector<TreeRow>& rows)
{
  writeJsonArray<TreeRow>(path, rows,
    [](std::ofstream& out, const TreeRow& r)
    {
      out << "{\"set\": " << jsonString(r.name) << ", \"n\": " << r.n << ", \"dim\": " << r.dim
          << ", \"backend\": " << jsonString(r.backend) << ", \"device\": " << jsonString(r.device)
          << ", \"median_ms\": " << jsonNumberText(r.medianMs, "%.4f")
          << ", \"min_ms\": " << jsonNumberText(r.minMs, "%.4f")
          << ", \"mfeatures_per_s\": " << jsonNumberText(r.mfeatures, "%.3f")
          << ", \"upload_ms\": " << jsonNumberText(r.uploadMs, "%.4f")
          << ", \"download_ms\": " << jsonNumberText(r.downloadMs, "%.4f")
          << ", \"bytes_per_point\": " << jsonNumberText(r.bytesPerPoint, "%.2f")
          << ", \"rounds\": " << r.rounds
          << ", \"total_weight\": " << jsonNumberText(r.totalWeight, "%.17g") << ", \"reference\": "
          << (r.haveReference ? jsonNumberText(r.reference, "%.17g") : "null")
          << ", \"relative_error\": "
          << (r.haveReference && r.status != "ERROR" ? jsonNumberText(r.relativeError, "%.3e")
                                                     : "null")
          << ", \"status\": " << jsonString(r.status) << ", \"note\": " << jsonString(r.note)
          << ", \"phases_median_ms\": {";
      for (std::size_t p = 0; p < r.phases.size(); ++p)
      {
        out << (p ? ", " : "") << jsonString(r.phases[p].first) << ": "
            << jsonNumberText(r.phases[p].second, "%.4f");
      }
      out << "}}";
    });
}

void writeJson(const std::string& path, const std::vector<CutRow>& rows)
{
  writeJsonArray<CutRow>(path, rows,
    [](std::ofstream& out, const CutRow& r)
    {
      out << "{\"set\": " << jsonString(r.name) << ", \"n\": " << r.n << ", \"dim\": " << r.dim
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
          << ", \"note\": " << jsonString(r.note) << "}";
    });
}

} // namespace emstbench
