// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// HDBSCAN* on the EMST engine: density-based clusters of varying density, with noise, a
// membership probability and an outlier score (GLOSH) per point. Its core is an exact minimum
// spanning tree under the mutual reachability distance
//   d_mr(a, b) = max(core(a), core(b), |a - b|),
// core(p) the distance from p to its k-th nearest point (k = minimumSamples), which the engine
// computes on the GPU or the CPU like the EMST (the same source, the same tree on both); the
// hierarchy of that tree (single linkage, condensed tree, cluster selection, labels) is then
// extracted on the host. Conventions are scikit-learn's sklearn.cluster.HDBSCAN (1.3 and
// later), checked against it by the tests, except that merges of equal height are taken
// together; docs/hdbscan.md has the details.
//
// Reference: Campello, Moulavi & Sander 2013 (HDBSCAN); Campello, Moulavi, Zimek & Sander 2015
// (HDBSCAN*, GLOSH); McInnes & Healy 2017 (accelerated HDBSCAN*); docs/hdbscan.md cites them.
#pragma once

#include "emst/Emst.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace emst
{

/// The largest minimumSamples (k) the engine accepts.
constexpr std::size_t MaxMinimumSamples = 256;

/// A mutual reachability minimum spanning tree and the core distances it was built with.
struct MutualReachabilityTree
{
  /// The tree as computeEmst gives the EMST (its edges, counts, times and messages), each edge's
  /// length being its mutual reachability distance. validPoints - 1 edges, ordered by
  /// (length, i, j); the tree is the unique minimum spanning tree under the total order
  /// (key, min(i, j), max(i, j)), key = max(coreKey(i), coreKey(j), Euclidean key(i, j)) in the
  /// exact keys of Emst.h: the same list, bit for bit, on every backend.
  Result tree;
  /// [n] the distance from each point to its k-th nearest point, the point itself and its exact
  /// copies included (so 0 for a point with k copies or more, and for every point when k = 1);
  /// computed in double from the input coordinates. NaN for non-finite points.
  std::vector<double> coreDistance;
};

/// The mutual reachability tree of the finite points of `points` for k = minimumSamples. With
/// k = 1 every core distance is 0 and the tree is computeEmst's, edge for edge.
/// Errors as computeEmst, plus InvalidInput for k = 0, k > MaxMinimumSamples, or k above the
/// number of finite points (when there is at least one).
MutualReachabilityTree computeMutualReachabilityTree(
  const PointCloudView& points, std::size_t minimumSamples, const Options& options = {});

enum class ClusterSelection
{
  ExcessOfMass, ///< "eom": the most persistent clusters of the condensed tree (the default)
  Leaf          ///< "leaf": the leaves of the condensed tree: finer, more homogeneous clusters
};

/// What turns the tree into clusters (scikit-learn's parameters of the same meaning).
struct HdbscanParameters
{
  /// Smallest cluster (scikit-learn's min_cluster_size): smaller groups split off a cluster are
  /// points falling out of it, not clusters of their own. At least 2.
  std::size_t minimumClusterSize = 5;
  ClusterSelection selection = ClusterSelection::ExcessOfMass;
  /// Clusters born below this distance are merged into their parent up to it (scikit-learn's
  /// cluster_selection_epsilon, in input units; 0 = off).
  double clusterSelectionEpsilon = 0.0;
  /// Lets excess of mass select the root (all points one cluster); scikit-learn's default, false.
  bool allowSingleCluster = false;
};

struct HdbscanOptions
{
  /// k: the core distance of a point is the distance to its k-th nearest point, counting the
  /// point itself (scikit-learn's min_samples; the hdbscan package's min_samples is k - 1).
  std::size_t minimumSamples = 5;
  HdbscanParameters parameters;
  Options engine; ///< backend, threads, progress (the tree's share of it), ...
};

/// One row of the condensed tree, in scikit-learn's layout (its `_condense_tree`): points are
/// 0..n-1 (input indices), clusters n, n+1, ... with the root n and every cluster numbered after
/// its parent. A point row says at which lambda = 1 / distance the point left `parent`
/// (size 1); a cluster row at which lambda `child` split off `parent`, with its size.
struct CondensedTreeRow
{
  std::uint64_t parent = 0;
  std::uint64_t child = 0;
  double lambda = 0.0; ///< +inf for a split at distance 0 (exact copies)
  std::uint64_t size = 0;
};

/// A selected cluster.
struct HdbscanCluster
{
  std::uint64_t size = 0;       ///< its points
  std::uint32_t firstPoint = 0; ///< its smallest point index
  std::uint64_t node = 0;       ///< its id in the condensed tree
  /// Excess of mass: the sum over its condensed tree rows of (lambda - birthLambda) * size.
  double stability = 0.0;
  double birthLambda = 0.0; ///< lambda at which it split off its parent (0 for the root)
  /// The largest lambda of its own rows (the last point or child cluster to leave it): the
  /// lambda its membership probabilities are normalised by.
  double deathLambda = 0.0;
};

/// The flat clustering of a tree.
struct HdbscanClustering
{
  /// [n] cluster id: 0 = the largest cluster, then by decreasing size, ties by smallest point
  /// index; -1 = noise (and every non-finite point).
  std::vector<std::int32_t> labels;
  /// [n] strength of membership in its cluster, in [0, 1] (scikit-learn's probabilities_):
  /// min(lambda(p), death) / death with lambda(p) the lambda at which p left the tree; 1 where
  /// death is 0 or lambda(p) is +inf; 0 for noise and non-finite points.
  std::vector<double> probabilities;
  /// [n] GLOSH outlier score in [0, 1] (the hdbscan package's outlier_scores_):
  /// 1 - lambda(p) / lambdaMax, lambdaMax the largest lambda in the subtree of the cluster p left;
  /// 0 where lambdaMax is 0 or lambda(p) is +inf, 1 where only lambdaMax is +inf (the hdbscan
  /// package gives NaN there); NaN for non-finite points (they are in no tree).
  std::vector<double> outlierScores;
  std::vector<HdbscanCluster> clusters; ///< by label
  /// Every row, ordered by child: the points' rows (point order, finite points only), then the
  /// clusters' (cluster order).
  std::vector<CondensedTreeRow> condensedTree;
  std::size_t noisePoints = 0; ///< label -1, non-finite points included
};

/// The clusters of a mutual reachability tree over `points` points
/// (computeMutualReachabilityTree's, or any tree, its edges in any order): single-linkage
/// hierarchy, condensed tree (scikit-learn's
/// `_condense_tree`), selection, labels, probabilities and outlier scores, on the host, in
/// O(n log n). All the merges of one height form one level of the hierarchy (Campello et al.
/// 2015), whatever their order: the result does not depend on how ties were broken, and it is
/// scikit-learn's wherever no two heights are equal (scikit-learn merges equal heights two at a
/// time in an order of its own, docs/hdbscan.md). Points that no edge reaches (non-finite points;
/// a lone finite point) are noise with probability 0 and outlier score NaN. Throws
/// Error(InvalidInput) for a minimumClusterSize below 2, a negative or NaN epsilon, an edge that
/// does not join two different points below `points` or has a negative or NaN length, and edges
/// that do not form one tree.
HdbscanClustering extractHdbscanClusters(
  std::size_t points, const std::vector<Edge>& treeEdges, const HdbscanParameters& parameters = {});

/// Everything: the tree, its core distances and the clustering.
struct HdbscanResult
{
  MutualReachabilityTree tree;
  HdbscanClustering clustering;
};

/// computeMutualReachabilityTree then extractHdbscanClusters. Throws as they do.
HdbscanResult computeHdbscan(const PointCloudView& points, const HdbscanOptions& options = {});

/// "eom" / "excess_of_mass", "leaf" (any case) -> ClusterSelection; else Error(InvalidInput).
ClusterSelection parseClusterSelection(const std::string& name);

} // namespace emst
