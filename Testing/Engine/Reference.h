// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Independent references for the engine tests. None of them calls the engine.
//
// (a) primDouble: brute-force O(n^2) Prim over the finite points, distances in double. Its tree
//     is "an" EMST (ties broken arbitrarily): use it for weights.
// (b) contractMst: the exact tree that Emst.h promises. The engine orders candidate edges totally
//     by (key, min(i,j), max(i,j)) where key is the squared distance of the input coordinates in
//     double, in a power-of-two scale: key = (dx*dx + dy*dy) + dz*dz with d = (a - b) * s, every
//     operation rounded to double (this file is compiled with -ffp-contract=off),
//     s = 2^min(62 - ilogb(E), 960) with E = the largest extent max(hi - lo) over the finite
//     points (s = 1 if E = 0). Under a strict total order the MST is unique, so a Prim with the
//     same order yields it; its edges are then listed by (length, i, j), length = the double
//     distance of the input coordinates (inputDistance, scaled before squaring). The engine's list
//     must match it bit for bit.
// (c) mutualReachabilityReference: HDBSCAN*'s tree as Hdbscan.h promises it, by the same Prim
//     under the order (max(coreKey(i), coreKey(j), key(i, j)), min, max), coreKey(p) the k-th
//     smallest key from p to every finite point (p's own 0 and its copies' included), lengths
//     sqrt(key) / s. coreDistancesInDouble: the k-th smallest input distance, for the cores'
//     values independently of the keys.
#pragma once

#include "TestClouds.h"

#include <gtest/gtest.h>

#include <vector>

namespace emsttest
{

struct ReferenceTree
{
  std::vector<emst::Edge> edges;
  double totalWeight = 0.0;
  std::size_t validPoints = 0;
};

/// The length of Emst.h's Edge: 2^e sqrt((ux*ux + uy*uy) + uz*uz), u = d 2^-e, d the double
/// coordinate differences, e = ilogb(max |d|), every operation rounded to double.
double inputDistance(const Cloud& cloud, std::size_t i, std::size_t j);

/// The engine's comparison key of two points, and the frame it is computed in (per-axis minimum
/// over the finite points, power-of-two scale).
struct ShiftedCloud
{
  std::vector<double> coords; // count * 3 input coordinates, unused axes 0
  std::vector<char> finite;
  std::size_t validPoints = 0;
  double lo[3] = { 0.0, 0.0, 0.0 };
  double scale = 1.0; ///< 2^min(62 - ilogb(largest extent), 960), 1 for a zero extent
  int dimension = 3;
  double key(std::size_t i, std::size_t j) const;
};
ShiftedCloud shiftCloud(const Cloud& cloud);

/// Neumaier-compensated sum of the edge lengths.
double compensatedSum(const std::vector<emst::Edge>& edges);

ReferenceTree primDouble(const Cloud& cloud);
ReferenceTree contractMst(const Cloud& cloud);

struct ReachabilityReference
{
  std::vector<double> coreKey;      ///< [count] squared, in ShiftedCloud's scale; NaN: not finite
  std::vector<double> coreDistance; ///< [count] sqrt(coreKey) / scale
  ReferenceTree tree;
};
/// (c); the cores are NaN for every point when k exceeds the finite points.
ReachabilityReference mutualReachabilityReference(const Cloud& cloud, std::size_t k);
/// The k-th smallest double distance (inputDistance) from each finite point to every finite
/// point, itself included; NaN for non-finite points.
std::vector<double> coreDistancesInDouble(const Cloud& cloud, std::size_t k);

/// Exact equality of two edge lists (i, j and the bits of length), with the first difference
/// described (and the contract keys of the edges involved when a cloud is given).
testing::AssertionResult sameEdgeLists(const std::vector<emst::Edge>& expected,
  const std::vector<emst::Edge>& got, const Cloud* cloud = nullptr);

/// validPoints - 1 edges, i < j < count, no edge at a non-finite point, and they join all finite
/// points into one tree (union-find).
testing::AssertionResult isSpanningTree(const Cloud& cloud, const std::vector<emst::Edge>& edges);

/// Every length equals inputDistance(i, j) exactly and the list is strictly increasing in
/// (length, i, j).
testing::AssertionResult exactLengthsAndOrder(
  const Cloud& cloud, const std::vector<emst::Edge>& edges);

/// Cycle property: every pair of finite points is at least as far apart as the longest tree edge
/// on the path between them (relative tolerance `relative`). O(n^2): small clouds only.
testing::AssertionResult cycleProperty(
  const Cloud& cloud, const std::vector<emst::Edge>& edges, double relative = 1e-6);

/// |got - expected| <= relative * expected (and got == 0 when expected == 0).
testing::AssertionResult weightClose(double expected, double got, double relative = 1e-6);

/// Number of edges of length exactly 0.
std::size_t zeroLengthEdges(const std::vector<emst::Edge>& edges);

} // namespace emsttest
