// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// What a benchmark row is checked against, apart from the reference weights (Sets.cxx): the
// tree's edge count, and each cut against a sequential union-find of its own.
#include "Benchmark.h"

#include <algorithm>
#include <cmath>

namespace emstbench
{

double relativeError(double weight, double reference)
{
  return reference != 0.0 ? std::fabs(weight - reference) / std::fabs(reference)
                          : std::fabs(weight);
}

std::string edgeCountProblem(const emst::Result& result)
{
  const std::size_t valid = result.stats.validPoints;
  if (result.edges.size() == (valid > 0 ? valid - 1 : 0))
  {
    return std::string();
  }
  return std::to_string(result.edges.size()) + " edges for " + std::to_string(valid) +
    " valid points";
}

std::string checkAgainstUnionFind(std::size_t n, const std::vector<emst::Edge>& sorted,
  std::size_t kept, std::size_t minimumSize, const emst::Clustering& got,
  const std::vector<std::int32_t>& clusterId, const std::vector<std::int64_t>& groupSize)
{
  std::vector<std::uint32_t> parent(n);
  for (std::size_t p = 0; p < n; ++p)
  {
    parent[p] = static_cast<std::uint32_t>(p);
  }
  auto find = [&parent](std::uint32_t x)
  {
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
        return "cluster " + std::to_string(clusters) +
          " differs (union-find: " + std::to_string(count[g]) + " points from " +
          std::to_string(g) + ")";
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

} // namespace emstbench
