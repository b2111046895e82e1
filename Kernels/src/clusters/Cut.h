// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The threshold cut of a tree into single-linkage clusters, written once over a backend `Exec`
// (Kernels/README.md lists what Exec provides). Included by one translation unit per backend.
//
// The kept edges are a prefix of the sorted edge list. Their connected groups come from a
// lock-free union-find in which a link always points to a smaller index (ECL-CC's hooking,
// Jaiganesh & Burtscher 2018): whatever order the threads run in, every group ends with its
// smallest point as root. So the result is deterministic, and the tie rule of the cluster ranks
// (equal sizes: smallest point first) is the order of the roots. Then: group sizes (a histogram
// over roots), the roots sorted by decreasing size (a stable radix sort on ~size), ranks scattered
// to the roots and gathered by the points. Every step is a parallel pass over points, edges or
// groups.
#pragma once

#include "backends/Backends.h"
#include "base/Atomics.h"
#include "base/Buffer.h"

#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/sort.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace emst
{
namespace detail
{

/// Root of x in a union-find forest whose links point to smaller indices, with path halving.
/// Safe while other threads hook roots (only roots change by CAS; halving rewrites a non-root's
/// link to another of its ancestors). A root returned while others hook may be stale: callers
/// that hook retry on a failed CAS.
EMST_HD EMST_FORCEINLINE std::uint32_t findRoot(std::uint32_t* parent, std::uint32_t x)
{
  while (true)
  {
    std::uint32_t const p = loadShared(parent + x);
    if (p == x)
    {
      return x;
    }
    std::uint32_t const g = loadShared(parent + p);
    if (g == p)
    {
      return p;
    }
    storeShared(parent + x, g);
    x = g;
  }
}

struct InitParents
{
  std::uint32_t* parent;
  EMST_HD void operator()(std::size_t v) const { parent[v] = static_cast<std::uint32_t>(v); }
};

/// Joins the ends of each kept edge: the larger root is hooked under the smaller one. EdgeT is
/// anything with point indices i and j (EdgeEnds on the device, the sorted emst::Edge list on the
/// CPU).
template <class EdgeT>
struct UniteEdges
{
  const EdgeT* ends;
  std::uint32_t* parent;
  EMST_HD void operator()(std::size_t e) const
  {
    std::uint32_t a = ends[e].i;
    std::uint32_t b = ends[e].j;
    while (true)
    {
      a = findRoot(parent, a);
      b = findRoot(parent, b);
      if (a == b)
      {
        return;
      }
      if (a > b)
      {
        std::uint32_t const t = a;
        a = b;
        b = t;
      }
      if (atomicCasU32(parent + b, b, a) == b)
      {
        return;
      }
    }
  }
};

/// After the unions: every point links straight to its root, and the roots count their points.
/// The walk up only reads: a halving store here could land after another point's final store
/// and leave that point linked to a non-root. Every store of this pass is a root, so a walk
/// that reads one mid-way still ends at the right root.
struct CompressAndCount
{
  std::uint32_t* parent;
  std::uint32_t* counts;
  EMST_HD void operator()(std::size_t v) const
  {
    std::uint32_t root = static_cast<std::uint32_t>(v);
    for (std::uint32_t up = loadShared(parent + root); up != root; up = loadShared(parent + root))
    {
      root = up;
    }
    storeShared(parent + v, root);
    countKey(counts, root);
  }
};

struct IsRoot
{
  const std::uint32_t* parent;
  EMST_HD bool operator()(std::uint32_t v) const { return parent[v] == v; }
};

/// Sort key of a group: ~size, so that an ascending sort puts the largest first.
struct SizeKey
{
  const std::uint32_t* roots;
  const std::uint32_t* counts;
  std::uint32_t* keys;
  EMST_HD void operator()(std::size_t k) const { keys[k] = ~counts[roots[k]]; }
};

/// Each point's group size, while counts still holds sizes.
struct GatherGroupSize
{
  const std::uint32_t* parent;
  const std::uint32_t* counts;
  std::int64_t* groupSize;
  EMST_HD void operator()(std::size_t v) const { groupSize[v] = counts[parent[v]]; }
};

struct ScatterRank
{
  const std::uint32_t* roots;
  std::uint32_t* rankOfRoot;
  EMST_HD void operator()(std::size_t k) const
  {
    rankOfRoot[roots[k]] = static_cast<std::uint32_t>(k);
  }
};

struct GatherClusterId
{
  const std::uint32_t* parent;
  const std::uint32_t* rankOfRoot;
  std::uint32_t clusters;
  std::int32_t* clusterId;
  EMST_HD void operator()(std::size_t v) const
  {
    std::uint32_t const rank = rankOfRoot[parent[v]];
    clusterId[v] = rank < clusters ? static_cast<std::int32_t>(rank) : -1;
  }
};

/// One cut on `exec`: the first `kept` of `ends` (in backend memory) over `points` points.
/// Fills `result` (clusters, sizes, first points, times) and, when given, the host arrays
/// clusterId and groupSize. One wait for the backend, at the end.
template <class Exec, class EdgeT>
void cutTree(Exec& exec, const EdgeT* ends, std::size_t points, std::size_t kept,
  std::size_t minimumSize, std::int32_t* clusterId, std::int64_t* groupSize, Clustering& result)
{
  result.keptEdges = kept;
  if (points == 0)
  {
    return;
  }
  exec.beginPhase("cut");
  Buffer<std::uint32_t, Exec> parent(exec, points);
  Buffer<std::uint32_t, Exec> counts(exec, points);
  exec.forEach(points, InitParents{ parent.data() });
  exec.fill(counts.data(), points, std::uint32_t(0));
  exec.forEach(kept, UniteEdges<EdgeT>{ ends, parent.data() });
  exec.forEach(points, CompressAndCount{ parent.data(), counts.data() });

  // The roots, in increasing order: the groups' smallest points.
  Buffer<std::uint32_t, Exec> roots(exec, points); // points - kept for a forest; more with cycles
  std::uint32_t* const rootsEnd =
    thrust::copy_if(exec.policy(), thrust::counting_iterator<std::uint32_t>(0),
      thrust::counting_iterator<std::uint32_t>(static_cast<std::uint32_t>(points)), roots.data(),
      IsRoot{ parent.data() });
  std::size_t const groups = static_cast<std::size_t>(rootsEnd - roots.data());
  result.groups = groups;

  // Largest first; the sort is stable, so equal sizes keep the roots' increasing order.
  Buffer<std::uint32_t, Exec> keys(exec, groups);
  exec.forEach(groups, SizeKey{ roots.data(), counts.data(), keys.data() });
  thrust::stable_sort_by_key(exec.policy(), keys.data(), keys.data() + groups, roots.data());
  std::size_t clusters = groups;
  if (minimumSize > 0xFFFFFFFFu)
  {
    clusters = 0;
  }
  else if (minimumSize > 1)
  {
    // size >= minimum <=> key <= ~minimum
    clusters =
      static_cast<std::size_t>(thrust::upper_bound(exec.policy(), keys.data(), keys.data() + groups,
                                 ~static_cast<std::uint32_t>(minimumSize)) -
        keys.data());
  }

  Buffer<std::int64_t, Exec> sizeOut(exec, groupSize ? points : 0);
  if (groupSize)
  {
    exec.forEach(points, GatherGroupSize{ parent.data(), counts.data(), sizeOut.data() });
  }
  Buffer<std::int32_t, Exec> idOut(exec, clusterId ? points : 0);
  if (clusterId)
  {
    std::uint32_t* const rankOfRoot = counts.data(); // the sizes are no longer needed
    exec.forEach(groups, ScatterRank{ roots.data(), rankOfRoot });
    exec.forEach(points,
      GatherClusterId{
        parent.data(), rankOfRoot, static_cast<std::uint32_t>(clusters), idOut.data() });
  }

  exec.beginPhase("download");
  std::vector<std::uint32_t> sortedKeys(clusters);
  result.firstPoint.resize(clusters);
  exec.copyToHostAsync(sortedKeys.data(), keys.data(), clusters);
  exec.copyToHostAsync(result.firstPoint.data(), roots.data(), clusters);
  if (groupSize)
  {
    exec.copyToHostAsync(groupSize, sizeOut.data(), points);
  }
  if (clusterId)
  {
    exec.copyToHostAsync(clusterId, idOut.data(), points);
  }
  exec.endCompute();
  auto const phases = exec.phases(); // waits for the backend
  result.milliseconds = phases[0].milliseconds;
  result.downloadMilliseconds = phases[1].milliseconds;

  result.sizes.resize(clusters);
  std::size_t inClusters = 0;
  for (std::size_t k = 0; k < clusters; ++k)
  {
    result.sizes[k] = ~sortedKeys[k];
    inClusters += result.sizes[k];
  }
  result.noisePoints = points - inClusters;
}

} // namespace detail
} // namespace emst
