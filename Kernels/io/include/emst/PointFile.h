// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Reading point clouds from files, for the emst program, the benchmark and the tests (library
// EMST::PointFile; the engine itself never reads files).
#pragma once

#include "emst/Emst.h"
#include "emst/Hdbscan.h"

#include <string>
#include <vector>

namespace emst
{

/// Points read from a file, stored point-major. `.f32` files keep float32; text files are read
/// as double (an `.xyz` written from float32 values with their exact decimal expansion reads back
/// to the same numbers).
struct PointSet
{
  int dimension = 3;
  std::size_t count = 0;
  std::vector<float> float32;  ///< filled for .f32 input
  std::vector<double> float64; ///< filled for text input
  PointCloudView view() const; ///< a view of whichever vector is filled
};

/// Reads `.f32` (little-endian uint64 n, uint32 dim, then n*dim float32, point-major) or text
/// (`.xyz`, `.csv`, `.txt`: one point per line, 2 or 3 numbers separated by spaces, tabs or commas;
/// blank lines, lines starting with '#', and one header line before the first point are skipped,
/// a header being a line whose first field does not start like a number, e.g. "x,y,z"). Throws
/// Error(InvalidInput) with the path and the reason on any problem; a malformed line is one, named
/// by its number: no line is dropped silently.
PointSet readPointFile(const std::string& path);

/// Writes `.f32`.
void writeF32(const std::string& path, const PointSet& points);

/// Writes the edges as text, one "i j length" line per edge (length with 17 significant digits).
void writeEdges(const std::string& path, const std::vector<Edge>& edges);

/// Writes HDBSCAN*'s per-point results as text, one "label probability outlier_score
/// core_distance" line per point (the numbers with 17 significant digits, "nan" where not a
/// number).
void writeHdbscanPoints(const std::string& path, const std::vector<double>& coreDistance,
  const HdbscanClustering& clustering);

/// Writes the condensed tree as text, one "parent child lambda size" line per row.
void writeCondensedTree(const std::string& path, const std::vector<CondensedTreeRow>& rows);

/// The value of the first member named `key` (at any depth) of a JSON text, when that value is a
/// number: for the reference files (NAME.ref.json) beside point sets, whose keys are unique. False
/// when there is no such member or its value is not a finite number (a string, null, ...).
bool jsonNumber(const std::string& text, const std::string& key, double& value);

} // namespace emst
