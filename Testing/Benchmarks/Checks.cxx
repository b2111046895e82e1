// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// What a benchmark row is checked against, apart from the reference weights (Sets.cxx): the
// tree's edge count, each cut against a sequential union-find of its own, and (--verify, for
// sets with no reference) the tree against the file on the host.
#include "Benchmark.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <thread>
#include <utility>

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

namespace
{

/// Point i's coordinates in double (the .f32 or the text values, unused axes 0).
struct HostPoints
{
  const emst::PointSet& set;
  void load(std::size_t i, double* x) const
  {
    std::size_t const d = static_cast<std::size_t>(set.dimension);
    for (std::size_t a = 0; a < 3; ++a)
    {
      x[a] = a < d ? (set.float32.empty() ? set.float64[i * d + a]
                                          : static_cast<double>(set.float32[i * d + a]))
                   : 0.0;
    }
  }
  static double squared(const double* x, const double* y)
  {
    double s = 0.0;
    for (int a = 0; a < 3; ++a)
    {
      s += (x[a] - y[a]) * (x[a] - y[a]);
    }
    return s;
  }
  double squared(std::size_t i, std::size_t j) const
  {
    double x[3], y[3];
    this->load(i, x);
    this->load(j, y);
    return squared(x, y);
  }
};

/// body(t, first, last) for the chunks [first, last) of [0, n), one per thread t < threads.
template <class Body>
void inParallel(std::size_t threads, std::size_t n, const Body& body)
{
  std::vector<std::thread> team;
  for (std::size_t t = 0; t < threads; ++t)
  {
    team.emplace_back([&, t] { body(t, n * t / threads, n * (t + 1) / threads); });
  }
  for (std::thread& thread : team)
  {
    thread.join();
  }
}

} // namespace

std::string verifyTree(const emst::PointSet& points, const emst::Result& result,
  std::size_t samples, std::string& summary)
{
  std::size_t const n = points.count;
  HostPoints const host{ points };
  const std::vector<emst::Edge>& edges = result.edges;
  if (result.stats.validPoints != n || n < 2)
  {
    summary = "not verified (non-finite points, or fewer than two)";
    return std::string();
  }
  // Every length again, from the file's coordinates in double, and the total in long double.
  std::size_t const threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<long double> partial(threads, 0.0L);
  std::vector<double> worst(threads, 0.0);
  std::vector<std::size_t> outOfRange(threads, 0);
  inParallel(threads, edges.size(),
    [&](std::size_t t, std::size_t first, std::size_t last)
    {
      for (std::size_t e = first; e < last; ++e)
      {
        if (edges[e].i >= n || edges[e].j >= n || edges[e].i == edges[e].j)
        {
          ++outOfRange[t];
          continue;
        }
        double const length = std::sqrt(host.squared(edges[e].i, edges[e].j));
        partial[t] += length;
        double const off = std::fabs(length - edges[e].length) / std::max(length, 1e-300);
        worst[t] = std::max(worst[t], off);
      }
    });
  long double total = 0.0L;
  double lengthError = 0.0;
  std::size_t bad = 0;
  for (std::size_t t = 0; t < threads; ++t)
  {
    total += partial[t];
    lengthError = std::max(lengthError, worst[t]);
    bad += outOfRange[t];
  }
  if (bad > 0)
  {
    return std::to_string(bad) + " edge(s) with an end out of range or a loop";
  }
  double const totalError = relativeError(static_cast<double>(total), result.totalWeight);
  if (lengthError > 1e-12 || totalError > 1e-9)
  {
    return "lengths recomputed on the host differ: " + formatDouble("%.2e", lengthError) +
      " (an edge), " + formatDouble("%.2e", totalError) + " (the total)";
  }

  // Each sampled point's nearest neighbour (brute force over every point, ties to the smaller
  // index) must be joined to it by a tree edge: under the tree's total order the least edge at a
  // point is always in the minimum spanning tree.
  samples = std::min(samples, n);
  std::vector<std::size_t> sample(samples);
  for (std::size_t s = 0; s < samples; ++s)
  {
    sample[s] = static_cast<std::size_t>(
      (static_cast<unsigned __int128>(s) * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL) % n);
  }
  std::vector<std::vector<std::pair<double, std::size_t>>> bestOf(
    threads, std::vector<std::pair<double, std::size_t>>(samples, { HUGE_VAL, n }));
  std::vector<std::array<double, 3>> at(samples);
  for (std::size_t s = 0; s < samples; ++s)
  {
    host.load(sample[s], at[s].data());
  }
  inParallel(threads, n,
    [&](std::size_t t, std::size_t first, std::size_t last)
    {
      std::vector<std::pair<double, std::size_t>>& best = bestOf[t];
      for (std::size_t i = first; i < last; ++i)
      {
        double x[3];
        host.load(i, x);
        for (std::size_t s = 0; s < samples; ++s)
        {
          double const d = HostPoints::squared(x, at[s].data());
          if (i != sample[s] && d < best[s].first)
          {
            best[s] = { d, i };
          }
        }
      }
    });
  std::vector<std::pair<std::size_t, std::size_t>> wanted;
  for (std::size_t s = 0; s < samples; ++s)
  {
    std::pair<double, std::size_t> best{ HUGE_VAL, n };
    for (std::size_t t = 0; t < threads; ++t)
    {
      best = std::min(best, bestOf[t][s]);
    }
    wanted.emplace_back(std::min(sample[s], best.second), std::max(sample[s], best.second));
  }
  std::sort(wanted.begin(), wanted.end());
  std::vector<char> found(wanted.size(), 0);
  for (const emst::Edge& edge : edges)
  {
    std::pair<std::size_t, std::size_t> const key{ std::min(edge.i, edge.j),
      std::max(edge.i, edge.j) };
    auto const it = std::lower_bound(wanted.begin(), wanted.end(), key);
    for (auto k = it; k != wanted.end() && *k == key; ++k)
    {
      found[static_cast<std::size_t>(k - wanted.begin())] = 1;
    }
  }
  std::size_t const missing = static_cast<std::size_t>(std::count(found.begin(), found.end(), 0));
  if (missing > 0)
  {
    return std::to_string(missing) + " of " + std::to_string(samples) +
      " sampled points are not joined to their nearest neighbour";
  }
  summary = "host check: lengths and total recomputed (" + formatDouble("%.1e", totalError) +
    "), " + std::to_string(samples) + " sampled points joined to their brute-force nearest " +
    "neighbours";
  return std::string();
}

} // namespace emstbench
