// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Single-linkage clusters from a minimum spanning tree: the threshold cut (friends-of-friends:
// points closer than a linking length are friends, clusters are the connected groups) and the
// single-linkage hierarchy (dendrogram) in the layout scipy and scikit-learn use.
//
// Cutting the MST at a length t keeps the edges of length <= t; its connected groups are exactly
// the connected components of the graph that joins every pair of points at distance <= t (the
// friends-of-friends groups with linking length t). Since the edges are sorted by length, the
// kept edges are a prefix of the edge list, and a cut is a connected-components pass over that
// prefix: union-find with lock-free hooking on the GPU (or the CPU), no rebuild of the tree.
#pragma once

#include "emst/Emst.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace emst
{

/// What a cut gives besides the per-point arrays.
struct Clustering
{
  std::size_t keptEdges = 0; ///< edges of the tree that were kept (a prefix of the sorted list)
  std::size_t groups = 0;    ///< connected groups after the cut, those below the minimum size too
  /// Clusters: groups of at least the minimum size, by decreasing size, ties by smallest point
  /// index. Cluster k has sizes[k] points, and firstPoint[k] is its smallest point index.
  std::vector<std::uint64_t> sizes;
  std::vector<std::uint32_t> firstPoint;
  std::size_t noisePoints = 0;    ///< points in groups below the minimum size (cluster id -1)
  Backend backend = Backend::Cpu; ///< where the cut ran
  double milliseconds = 0.0;      ///< the cut on the backend (download of the arrays excluded)
  double downloadMilliseconds = 0.0;
};

/// A tree (or forest) over `points` points, held in the memory of a backend so that it can be cut
/// again and again (a threshold slider) without being uploaded or sorted again.
///
/// The edges may come in any order: they are sorted once, at construction, by the total order
/// (length, min(i, j), max(i, j)) of the EMST contract (already the order of computeEmst's result,
/// which is then checked, not sorted). Every edge must join two different points below `points`.
///
/// Backend::Cuda keeps the edges on the GPU and cuts there; Backend::Auto uses the GPU when one is
/// usable, else the CPU (messages() says why). Throws emst::Error: InvalidInput for a bad edge,
/// DeviceUnavailable for Cuda without a usable GPU, OutOfMemory, DeviceError.
/// Not thread-safe: one cut at a time per object.
class TreeCutter
{
public:
  TreeCutter(std::size_t points, const Edge* edges, std::size_t edgeCount,
    Backend backend = Backend::Auto, int cudaDevice = 0);
  TreeCutter(std::size_t points, const std::vector<Edge>& edges, Backend backend = Backend::Auto,
    int cudaDevice = 0)
    : TreeCutter(points, edges.data(), edges.size(), backend, cudaDevice)
  {
  }
  /// The same, taking over the caller's list (no copy of it is kept besides the sorted one).
  TreeCutter(std::size_t points, std::vector<Edge>&& edges, Backend backend = Backend::Auto,
    int cudaDevice = 0);
  ~TreeCutter();
  TreeCutter(const TreeCutter&) = delete;
  TreeCutter& operator=(const TreeCutter&) = delete;

  std::size_t pointCount() const;
  std::size_t edgeCount() const;
  /// The edges in the order the cutter uses, (length, i, j) with i < j.
  const std::vector<Edge>& sortedEdges() const;
  Backend backend() const; ///< Cuda or Cpu, never Auto
  const std::string& deviceName() const;
  const std::vector<std::string>& messages() const; ///< notes from construction (fallback, sort)

  /// Number of edges of length <= threshold (the prefix a threshold cut keeps); a NaN threshold
  /// keeps none.
  std::size_t edgesAtMost(double threshold) const;
  /// Number of edges to keep for `clusters` groups: points - clusters, clamped to [0, edgeCount].
  /// (A forest of c components cannot give fewer than c groups.)
  std::size_t edgesForGroups(std::size_t clusters) const;

  /// Keeps the first `keptEdges` sorted edges and labels the connected groups. Per point p:
  /// clusterId[p] = the cluster's rank (0 = largest; ties by smallest point index) for groups of
  /// at least `minimumClusterSize` points, else -1 (noise); groupSize[p] = the size of p's group
  /// (noise included). Either pointer may be null when that array is not wanted; both are host
  /// memory of pointCount() values. The result does not depend on the backend or the run.
  Clustering cut(std::size_t keptEdges, std::size_t minimumClusterSize, std::int32_t* clusterId,
    std::int64_t* groupSize);

  class Impl;

private:
  std::unique_ptr<Impl> Pimpl;
};

/// One merge of the single-linkage hierarchy, as a row of scipy's linkage matrix Z: clusters
/// `first` < `second` merge at `height` into a cluster of `size` points. Points are clusters
/// 0..n-1 and merge k creates cluster n + k.
struct Merge
{
  std::uint64_t first = 0;
  std::uint64_t second = 0;
  double height = 0.0;
  std::uint64_t size = 0;
};

/// The single-linkage dendrogram of `points` points from their minimum spanning tree: one merge
/// per edge, in the order (length, min(i, j), max(i, j)) (edges need not be sorted). For a
/// spanning tree (points - 1 edges) this is scipy.cluster.hierarchy.linkage(X, 'single') up to
/// the order of merges at equal heights. Runs on the CPU in O(n log n). Throws
/// Error(InvalidInput) for an edge whose end is not below `points` or joins a point to itself.
std::vector<Merge> singleLinkageHierarchy(std::size_t points, const std::vector<Edge>& edges);

} // namespace emst
