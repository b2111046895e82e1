// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The Markdown tables: the EMST table (one row per set) and the cut table (one row per cut).
// run_benchmarks.sh pads failed rows to these column counts, and RESULTS.md pastes them.
#include "Benchmark.h"

#include <cmath>

namespace emstbench
{
namespace
{

std::string escapeMarkdown(std::string text)
{
  for (std::size_t at = text.find('|'); at != std::string::npos; at = text.find('|', at + 2))
  {
    text.replace(at, 1, "\\|");
  }
  return text;
}

/// The first columns of an ERROR row: the size is "?" when the file was never read.
std::string errorRowStart(
  const std::string& name, std::size_t n, int dim, const std::string& backend)
{
  return "| " + name + " | " + (n ? std::to_string(n) : "?") + " | " +
    (dim ? std::to_string(dim) : "?") + " | " + backend;
}

} // namespace

const char* const TreeMarkdownHeader =
  "| set | n | dim | backend | device | median ms | min ms | MFeatures/s | upload ms | download ms "
  "| bytes/point | rounds | total weight | reference | rel. error | status | phases (median ms) |\n"
  "|---|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n";

const char* const CutMarkdownHeader =
  "| set | n | dim | backend | device | cut | threshold | kept edges | groups | clusters | largest "
  "| noise | cut ms | cut min ms | download ms | call ms | build ms | check | status |\n"
  "|---|---:|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n";

std::string statusText(const std::string& status, const std::string& note)
{
  return status + (note.empty() ? "" : ": " + note);
}

std::string phasesText(const TreeRow& row, const char* separator)
{
  std::string text;
  for (const auto& phase : row.phases)
  {
    text +=
      (text.empty() ? "" : separator) + phase.first + "=" + formatDouble("%.3f", phase.second);
  }
  return text;
}

std::string referenceText(const TreeRow& row)
{
  return row.haveReference ? formatDouble("%.17g", row.reference) : "n/a";
}

std::string errorText(const TreeRow& row)
{
  return row.haveReference && row.status != "ERROR" ? formatDouble("%.2e", row.relativeError)
                                                    : "n/a";
}

std::string thresholdText(double t)
{
  return std::isnan(t) ? std::string("-") : formatDouble("%.17g", t);
}

std::string markdownRow(const TreeRow& r)
{
  const std::string status = escapeMarkdown(statusText(r.status, r.note));
  if (r.status == "ERROR")
  {
    return errorRowStart(r.name, r.n, r.dim, r.backend) + " | | | | | | | | | | | | " + status +
      " | |\n";
  }
  return "| " + r.name + " | " + std::to_string(r.n) + " | " + std::to_string(r.dim) + " | " +
    r.backend + " | " + escapeMarkdown(r.device) + " | " + formatDouble("%.3f", r.medianMs) +
    " | " + formatDouble("%.3f", r.minMs) + " | " + formatDouble("%.1f", r.mfeatures) + " | " +
    formatDouble("%.3f", r.uploadMs) + " | " + formatDouble("%.3f", r.downloadMs) + " | " +
    formatDouble("%.1f", r.bytesPerPoint) + " | " + std::to_string(r.rounds) + " | " +
    formatDouble("%.17g", r.totalWeight) + " | " + referenceText(r) + " | " + errorText(r) + " | " +
    status + " | " + escapeMarkdown(phasesText(r, "; ")) + " |\n";
}

std::string markdownRow(const CutRow& r)
{
  const std::string status = escapeMarkdown(statusText(r.status, r.note));
  if (r.status == "ERROR" && r.cut.empty())
  {
    return errorRowStart(r.name, r.n, r.dim, r.backend) + " | | | | | | | | | | | | | | | " +
      status + " |\n";
  }
  return "| " + r.name + " | " + std::to_string(r.n) + " | " + std::to_string(r.dim) + " | " +
    r.backend + " | " + escapeMarkdown(r.device) + " | " + r.cut + " | " +
    thresholdText(r.threshold) + " | " + std::to_string(r.keptEdges) + " | " +
    std::to_string(r.groups) + " | " + std::to_string(r.clusters) + " | " +
    std::to_string(r.largest) + " | " + std::to_string(r.noise) + " | " +
    formatDouble("%.3f", r.medianMs) + " | " + formatDouble("%.3f", r.minMs) + " | " +
    formatDouble("%.3f", r.downloadMs) + " | " + formatDouble("%.3f", r.callMs) + " | " +
    formatDouble("%.3f", r.buildMs) + " | " + escapeMarkdown(r.check) + " | " + status + " |\n";
}

} // namespace emstbench
