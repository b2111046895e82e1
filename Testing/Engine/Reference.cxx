// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Compiled with -ffp-contract=off (see CMakeLists.txt): every float and double operation below
// is rounded on its own, as the engine's contract requires.
#include "Reference.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <numeric>
#include <sstream>

namespace emsttest
{
namespace
{

std::uint64_t bitsOf(double value)
{
  std::uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

std::string describe(const emst::Edge& e)
{
  char buffer[128];
  std::snprintf(buffer, sizeof(buffer), "(%u, %u, %.17g [0x%016" PRIx64 "])",
    static_cast<unsigned>(e.i), static_cast<unsigned>(e.j), e.length, bitsOf(e.length));
  return buffer;
}

bool lessByLength(const emst::Edge& a, const emst::Edge& b)
{
  if (a.length != b.length)
  {
    return a.length < b.length;
  }
  if (a.i != b.i)
  {
    return a.i < b.i;
  }
  return a.j < b.j;
}

struct UnionFind
{
  std::vector<std::size_t> parent;
  explicit UnionFind(std::size_t n)
    : parent(n)
  {
    std::iota(parent.begin(), parent.end(), std::size_t(0));
  }
  std::size_t find(std::size_t x)
  {
    while (parent[x] != x)
    {
      parent[x] = parent[parent[x]];
      x = parent[x];
    }
    return x;
  }
  bool unite(std::size_t a, std::size_t b)
  {
    a = find(a);
    b = find(b);
    if (a == b)
    {
      return false;
    }
    parent[std::max(a, b)] = std::min(a, b);
    return true;
  }
};

} // namespace

double inputDistance(const Cloud& cloud, std::size_t i, std::size_t j)
{
  // Emst.h's Edge::length, written with the C library (ilogb, ldexp) where the engine builds its
  // powers of two from bits: each coordinate difference scaled by 2^-e, e = ilogb of the largest,
  // squared and summed in axis order, the root scaled back.
  double d[3] = { 0.0, 0.0, 0.0 };
  double largest = 0.0;
  for (int a = 0; a < cloud.dimension; ++a)
  {
    d[a] = cloud.at(i, a) - cloud.at(j, a);
    largest = std::max(largest, std::fabs(d[a]));
  }
  if (largest == 0.0)
  {
    return 0.0;
  }
  const int e = std::ilogb(largest);
  double sum = 0.0;
  for (int a = 0; a < cloud.dimension; ++a)
  {
    const double u = std::ldexp(d[a], -e);
    sum = a == 0 ? u * u : sum + u * u;
  }
  return std::ldexp(std::sqrt(sum), e);
}

double ShiftedCloud::key(std::size_t i, std::size_t j) const
{
  const double* a = &this->coords[3 * i];
  const double* b = &this->coords[3 * j];
  const double dx = (a[0] - b[0]) * this->scale;
  const double dy = (a[1] - b[1]) * this->scale;
  double sum = dx * dx;
  sum = sum + dy * dy;
  if (this->dimension == 3)
  {
    const double dz = (a[2] - b[2]) * this->scale;
    sum = sum + dz * dz;
  }
  return sum;
}

ShiftedCloud shiftCloud(const Cloud& cloud)
{
  ShiftedCloud s;
  s.dimension = cloud.dimension;
  s.coords.assign(3 * cloud.count, 0.0);
  s.finite.assign(cloud.count, 0);
  for (int a = 0; a < 3; ++a)
  {
    s.lo[a] = std::numeric_limits<double>::infinity();
  }
  for (std::size_t k = 0; k < cloud.count; ++k)
  {
    s.finite[k] = cloud.finite(k) ? 1 : 0;
    if (s.finite[k])
    {
      ++s.validPoints;
      for (int a = 0; a < cloud.dimension; ++a)
      {
        s.lo[a] = std::min(s.lo[a], cloud.at(k, a));
      }
    }
  }
  // s = 2^(62 - ilogb(E)) brings the largest extent E = max(hi - lo) (double) into [2^62, 2^63)
  // (capped at 2^960 for tiny extents); s = 1 when E = 0. A power of two: the keys are the
  // squared distances, scaled exactly.
  if (s.validPoints > 0)
  {
    double hi[3] = { -std::numeric_limits<double>::infinity(),
      -std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity() };
    for (std::size_t k = 0; k < cloud.count; ++k)
    {
      for (int a = 0; s.finite[k] && a < cloud.dimension; ++a)
      {
        hi[a] = std::max(hi[a], cloud.at(k, a));
      }
    }
    double extent = 0.0;
    for (int a = 0; a < cloud.dimension; ++a)
    {
      extent = std::max(extent, hi[a] - s.lo[a]);
    }
    if (extent > 0.0 && std::isfinite(extent))
    {
      s.scale = std::ldexp(1.0, std::min(62 - std::ilogb(extent), 960));
    }
  }
  for (std::size_t k = 0; k < cloud.count; ++k)
  {
    if (s.finite[k])
    {
      for (int a = 0; a < cloud.dimension; ++a)
      {
        s.coords[3 * k + a] = cloud.at(k, a);
      }
    }
  }
  return s;
}

double compensatedSum(const std::vector<emst::Edge>& edges)
{
  double sum = 0.0;
  double compensation = 0.0;
  for (const emst::Edge& e : edges)
  {
    if (!std::isfinite(sum + e.length))
    {
      return std::numeric_limits<double>::infinity(); // Emst.h: +inf, never NaN
    }
    const double t = sum + e.length;
    if (std::fabs(sum) >= std::fabs(e.length))
    {
      compensation += (sum - t) + e.length;
    }
    else
    {
      compensation += (e.length - t) + sum;
    }
    sum = t;
  }
  return sum + compensation;
}

ReferenceTree primDouble(const Cloud& cloud)
{
  ReferenceTree tree;
  std::vector<std::size_t> finite;
  for (std::size_t k = 0; k < cloud.count; ++k)
  {
    if (cloud.finite(k))
    {
      finite.push_back(k);
    }
  }
  tree.validPoints = finite.size();
  if (finite.size() < 2)
  {
    return tree;
  }
  const std::size_t m = finite.size();
  // Contiguous copies of the finite points' coordinates (unused axis 0), scaled by a power of two
  // that brings the largest magnitude to [1, 2): exact, and no squared distance overflows or
  // underflows whatever the input's range (1e200, 1e-200).
  double largest = 0.0;
  for (std::size_t v = 0; v < m; ++v)
  {
    for (int a = 0; a < cloud.dimension; ++a)
    {
      largest = std::max(largest, std::fabs(cloud.at(finite[v], a)));
    }
  }
  const int shift = largest > 0.0 ? -std::ilogb(largest) : 0;
  std::vector<double> xyz(3 * m, 0.0);
  for (std::size_t v = 0; v < m; ++v)
  {
    for (int a = 0; a < cloud.dimension; ++a)
    {
      xyz[3 * v + a] = std::ldexp(cloud.at(finite[v], a), shift);
    }
  }
  const bool threeD = cloud.dimension == 3;
  std::vector<double> best(m, std::numeric_limits<double>::infinity());
  std::vector<std::size_t> from(m, 0);
  std::vector<char> inTree(m, 0);
  std::size_t current = 0;
  inTree[0] = 1;
  for (std::size_t added = 1; added < m; ++added)
  {
    std::size_t next = m;
    double nextDistance = std::numeric_limits<double>::infinity();
    const double cx = xyz[3 * current], cy = xyz[3 * current + 1], cz = xyz[3 * current + 2];
    for (std::size_t v = 0; v < m; ++v)
    {
      if (inTree[v])
      {
        continue;
      }
      const double dx = cx - xyz[3 * v];
      const double dy = cy - xyz[3 * v + 1];
      double sum = dx * dx + dy * dy;
      if (threeD)
      {
        const double dz = cz - xyz[3 * v + 2];
        sum = sum + dz * dz;
      }
      const double d = sum; // squared: same order, one sqrt less per pair
      if (d < best[v])
      {
        best[v] = d;
        from[v] = current;
      }
      if (next == m || best[v] < nextDistance)
      {
        next = v;
        nextDistance = best[v];
      }
    }
    inTree[next] = 1;
    const std::size_t a = finite[from[next]];
    const std::size_t b = finite[next];
    emst::Edge e;
    e.i = static_cast<std::uint32_t>(std::min(a, b));
    e.j = static_cast<std::uint32_t>(std::max(a, b));
    e.length = inputDistance(cloud, a, b);
    tree.edges.push_back(e);
    current = next;
  }
  std::sort(tree.edges.begin(), tree.edges.end(), lessByLength);
  tree.totalWeight = compensatedSum(tree.edges);
  return tree;
}

namespace
{

/// Prim over the finite points under the strict total order (key(i, j), min index, max index):
/// with all edges distinct under it, the MST is unique and every correct algorithm finds this
/// one. Its edges are listed by (length, i, j), length(i, j) their length.
template <class Key, class Length>
ReferenceTree primUnderOrder(const Cloud& cloud, const ShiftedCloud& s, Key key, Length length)
{
  ReferenceTree tree;
  tree.validPoints = s.validPoints;
  std::vector<std::uint32_t> finite;
  for (std::size_t k = 0; k < cloud.count; ++k)
  {
    if (s.finite[k])
    {
      finite.push_back(static_cast<std::uint32_t>(k));
    }
  }
  if (finite.size() < 2)
  {
    return tree;
  }
  const std::size_t m = finite.size();
  struct Order
  {
    double key;
    std::uint32_t lo, hi;
    bool operator<(const Order& o) const
    {
      if (key != o.key)
      {
        return key < o.key;
      }
      if (lo != o.lo)
      {
        return lo < o.lo;
      }
      return hi < o.hi;
    }
  };
  std::vector<Order> best(m);
  std::vector<char> inTree(m, 0);
  std::vector<char> haveBest(m, 0);
  std::size_t current = 0;
  inTree[0] = 1;
  for (std::size_t added = 1; added < m; ++added)
  {
    std::size_t next = m;
    const std::uint32_t c = finite[current];
    for (std::size_t v = 0; v < m; ++v)
    {
      if (inTree[v])
      {
        continue;
      }
      const std::uint32_t w = finite[v];
      const Order candidate{ key(c, w), std::min(c, w), std::max(c, w) };
      if (!haveBest[v] || candidate < best[v])
      {
        best[v] = candidate;
        haveBest[v] = 1;
      }
      if (next == m || best[v] < best[next])
      {
        next = v;
      }
    }
    inTree[next] = 1;
    emst::Edge e;
    e.i = best[next].lo;
    e.j = best[next].hi;
    e.length = length(e.i, e.j);
    tree.edges.push_back(e);
    current = next;
  }
  std::sort(tree.edges.begin(), tree.edges.end(), lessByLength);
  tree.totalWeight = compensatedSum(tree.edges);
  return tree;
}

} // namespace

ReferenceTree contractMst(const Cloud& cloud)
{
  const ShiftedCloud s = shiftCloud(cloud);
  return primUnderOrder(
    cloud, s, [&s](std::size_t i, std::size_t j) { return s.key(i, j); },
    [&cloud](std::size_t i, std::size_t j) { return inputDistance(cloud, i, j); });
}

ReachabilityReference mutualReachabilityReference(const Cloud& cloud, std::size_t k)
{
  ReachabilityReference ref;
  const ShiftedCloud s = shiftCloud(cloud);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  ref.coreKey.assign(cloud.count, nan);
  ref.coreDistance.assign(cloud.count, nan);
  std::vector<double> keys;
  for (std::size_t p = 0; p < cloud.count; ++p)
  {
    if (!s.finite[p] || k > s.validPoints)
    {
      continue;
    }
    // The k-th smallest of the keys to every finite point, p's own 0 and its copies' included.
    keys.clear();
    for (std::size_t q = 0; q < cloud.count; ++q)
    {
      if (s.finite[q])
      {
        keys.push_back(q == p ? 0.0 : s.key(p, q));
      }
    }
    std::nth_element(keys.begin(), keys.begin() + (k - 1), keys.end());
    ref.coreKey[p] = keys[k - 1];
    ref.coreDistance[p] = std::sqrt(ref.coreKey[p]) / s.scale;
  }
  auto key = [&](std::size_t i, std::size_t j)
  { return std::max(std::max(ref.coreKey[i], ref.coreKey[j]), s.key(i, j)); };
  ref.tree = primUnderOrder(
    cloud, s, key, [&](std::size_t i, std::size_t j) { return std::sqrt(key(i, j)) / s.scale; });
  return ref;
}

std::vector<double> coreDistancesInDouble(const Cloud& cloud, std::size_t k)
{
  std::vector<double> cores(cloud.count, std::numeric_limits<double>::quiet_NaN());
  std::vector<double> distances;
  for (std::size_t p = 0; p < cloud.count; ++p)
  {
    if (!cloud.finite(p))
    {
      continue;
    }
    distances.clear();
    for (std::size_t q = 0; q < cloud.count; ++q)
    {
      if (cloud.finite(q))
      {
        distances.push_back(inputDistance(cloud, p, q));
      }
    }
    if (k <= distances.size())
    {
      std::nth_element(distances.begin(), distances.begin() + (k - 1), distances.end());
      cores[p] = distances[k - 1];
    }
  }
  return cores;
}

testing::AssertionResult sameEdgeLists(
  const std::vector<emst::Edge>& expected, const std::vector<emst::Edge>& got, const Cloud* cloud)
{
  const std::size_t common = std::min(expected.size(), got.size());
  std::size_t first = common;
  std::size_t differing = 0;
  for (std::size_t k = 0; k < common; ++k)
  {
    if (expected[k].i != got[k].i || expected[k].j != got[k].j ||
      bitsOf(expected[k].length) != bitsOf(got[k].length))
    {
      first = std::min(first, k);
      ++differing;
    }
  }
  if (first == common && expected.size() == got.size())
  {
    return testing::AssertionSuccess();
  }
  std::ostringstream out;
  out << "edge lists differ: expected " << expected.size() << " edges, got " << got.size() << "; "
      << differing << " of the first " << common << " positions differ";
  if (first < common)
  {
    out << "; first difference at position " << first << ": expected " << describe(expected[first])
        << ", got " << describe(got[first]);
    if (cloud)
    {
      const ShiftedCloud s = shiftCloud(*cloud);
      auto key = [&](const emst::Edge& e)
      {
        std::ostringstream k;
        if (e.i < cloud->count && e.j < cloud->count)
        {
          k.precision(17);
          k << "key=" << s.key(e.i, e.j);
        }
        else
        {
          k << "indices out of range";
        }
        return k.str();
      };
      out << " (contract keys: expected " << key(expected[first]) << ", got " << key(got[first])
          << ")";
    }
  }
  else
  {
    const auto& longer = expected.size() > got.size() ? expected : got;
    out << "; first extra edge " << describe(longer[common]) << " in the "
        << (expected.size() > got.size() ? "expected" : "engine's") << " list";
  }
  // The sets may agree while the order differs; say so, it narrows the bug down.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> a, b;
  for (const auto& e : expected)
  {
    a.emplace_back(e.i, e.j);
  }
  for (const auto& e : got)
  {
    b.emplace_back(e.i, e.j);
  }
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  std::vector<std::pair<std::uint32_t, std::uint32_t>> onlyExpected, onlyGot;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(onlyExpected));
  std::set_difference(b.begin(), b.end(), a.begin(), a.end(), std::back_inserter(onlyGot));
  out << "; as sets of (i, j): " << onlyExpected.size() << " expected edges missing, "
      << onlyGot.size() << " unexpected";
  if (!onlyExpected.empty())
  {
    out << " (first missing (" << onlyExpected[0].first << ", " << onlyExpected[0].second << ")";
    if (!onlyGot.empty())
    {
      out << ", first unexpected (" << onlyGot[0].first << ", " << onlyGot[0].second << ")";
    }
    out << ")";
  }
  return testing::AssertionFailure() << out.str();
}

testing::AssertionResult isSpanningTree(const Cloud& cloud, const std::vector<emst::Edge>& edges)
{
  std::size_t valid = 0;
  for (std::size_t k = 0; k < cloud.count; ++k)
  {
    valid += cloud.finite(k) ? 1 : 0;
  }
  const std::size_t expected = valid > 0 ? valid - 1 : 0;
  if (edges.size() != expected)
  {
    return testing::AssertionFailure()
      << edges.size() << " edges for " << valid << " finite points (expected " << expected << ")";
  }
  UnionFind sets(cloud.count);
  for (std::size_t k = 0; k < edges.size(); ++k)
  {
    const emst::Edge& e = edges[k];
    if (!(e.i < e.j) || e.j >= cloud.count)
    {
      return testing::AssertionFailure()
        << "edge " << k << " " << describe(e) << " does not have i < j < " << cloud.count;
    }
    if (!cloud.finite(e.i) || !cloud.finite(e.j))
    {
      return testing::AssertionFailure()
        << "edge " << k << " " << describe(e) << " touches a point with a non-finite coordinate";
    }
    if (!sets.unite(e.i, e.j))
    {
      return testing::AssertionFailure() << "edge " << k << " " << describe(e) << " closes a cycle";
    }
  }
  return testing::AssertionSuccess();
}

testing::AssertionResult exactLengthsAndOrder(
  const Cloud& cloud, const std::vector<emst::Edge>& edges)
{
  for (std::size_t k = 0; k < edges.size(); ++k)
  {
    const emst::Edge& e = edges[k];
    if (e.i >= cloud.count || e.j >= cloud.count)
    {
      return testing::AssertionFailure() << "edge " << k << " " << describe(e) << " out of range";
    }
    const double d = inputDistance(cloud, e.i, e.j);
    if (bitsOf(d) != bitsOf(e.length))
    {
      char buffer[64];
      std::snprintf(buffer, sizeof(buffer), "%.17g", d);
      return testing::AssertionFailure()
        << "edge " << k << " " << describe(e)
        << ": length is not the double distance of its endpoints " << buffer;
    }
    if (k > 0 && !lessByLength(edges[k - 1], e))
    {
      return testing::AssertionFailure()
        << "edges " << k - 1 << " " << describe(edges[k - 1]) << " and " << k << " " << describe(e)
        << " are not in strictly increasing (length, i, j) order";
    }
  }
  return testing::AssertionSuccess();
}

testing::AssertionResult cycleProperty(
  const Cloud& cloud, const std::vector<emst::Edge>& edges, double relative)
{
  const std::size_t n = cloud.count;
  std::vector<std::vector<std::pair<std::size_t, double>>> adjacent(n);
  for (const emst::Edge& e : edges)
  {
    if (e.i >= n || e.j >= n)
    {
      return testing::AssertionFailure() << "edge " << describe(e) << " out of range";
    }
    adjacent[e.i].emplace_back(e.j, e.length);
    adjacent[e.j].emplace_back(e.i, e.length);
  }
  std::vector<double> longest(n);
  std::vector<char> seen(n);
  std::vector<std::size_t> stack;
  for (std::size_t root = 0; root < n; ++root)
  {
    if (!cloud.finite(root))
    {
      continue;
    }
    std::fill(seen.begin(), seen.end(), 0);
    longest[root] = 0.0;
    seen[root] = 1;
    stack.assign(1, root);
    while (!stack.empty())
    {
      const std::size_t u = stack.back();
      stack.pop_back();
      for (const auto& [v, length] : adjacent[u])
      {
        if (!seen[v])
        {
          seen[v] = 1;
          longest[v] = std::max(longest[u], length);
          stack.push_back(v);
        }
      }
    }
    for (std::size_t v = root + 1; v < n; ++v)
    {
      if (!cloud.finite(v))
      {
        continue;
      }
      if (!seen[v])
      {
        return testing::AssertionFailure()
          << "points " << root << " and " << v << " are not connected";
      }
      const double d = inputDistance(cloud, root, v);
      if (d < longest[v] * (1.0 - relative))
      {
        char buffer[256];
        std::snprintf(buffer, sizeof(buffer),
          "cycle property violated: points %zu and %zu are %.17g apart, but the tree path between "
          "them has an edge of length %.17g",
          root, v, d, longest[v]);
        return testing::AssertionFailure() << buffer;
      }
    }
  }
  return testing::AssertionSuccess();
}

testing::AssertionResult weightClose(double expected, double got, double relative)
{
  const double error = std::fabs(got - expected);
  if (expected == 0.0 ? got == 0.0 : error <= relative * std::fabs(expected))
  {
    return testing::AssertionSuccess();
  }
  char buffer[160];
  std::snprintf(buffer, sizeof(buffer),
    "total weight %.17g, reference %.17g: relative error %.3e > %.1e", got, expected,
    expected != 0.0 ? error / std::fabs(expected) : error, relative);
  return testing::AssertionFailure() << buffer;
}

std::size_t zeroLengthEdges(const std::vector<emst::Edge>& edges)
{
  std::size_t zeros = 0;
  for (const emst::Edge& e : edges)
  {
    zeros += e.length == 0.0 ? 1 : 0;
  }
  return zeros;
}

} // namespace emsttest
