// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Phase 4b (HDBSCAN* only), core distances: after the hierarchy, every distinct point's core
// distance, the distance to its k-th nearest point counting the point itself and every copy
// (scikit-learn's min_samples = k: core(p) is the k-th smallest of the distances from p to all
// points, p's own 0 included), by a k-nearest-neighbour search over the same hierarchy; then,
// for the points with copies, the point their copies hang from in the mutual reachability tree
// (the group rule below). The core keys are exact squared distances, as every other key, under the
// run's base metric (EuclideanMetric, or PeriodicMetric's minimum image in a box: the searches
// take it as a template argument): the float frame only prunes. Sizes: v finite points, m distinct
// points, L leaf cells.
//
// The group rule (copies under mutual reachability). Identical points are at mutual
// reachability c = core(x) from each other, not 0, so the duplicates phase's zero-length edges
// (first copy, later copy) are not the tree's in general. Let x be a distinct point with copies
// g1 < g2 < ... < gw (input indices; g1 is the point the rounds see), c > 0 its core key, and
// N the points y of other locations with key(x, y) = max(c, core(y), |x - y|^2) = c, that is
// core(y) <= c and |x - y|^2 <= c (exact keys; |x - y| the base metric's distance, minimum-image
// in a periodic box: nothing below depends on which). Under the total order (key, min id, max id):
//   1. No edge at a copy has a key below c, so every gi is alone when Kruskal reaches key c,
//      and its first edge there, (a, gi) with a the smallest id among its key-c neighbours,
//      joins it: a = min(g1, min N) for every i >= 2 (and for g1 too when min N < g1).
//   2. No other edge at g2..gw is in the tree: (gi, y) closes a cycle of smaller edges through
//      g1 (when y0 = min N > g1: (g1, gi), (g1, y)) or through y0 < g1 ((y0, gi), (y0, g1),
//      (g1, y)), and (gi, gj) one through g1 or y0. Each of these edges has the same key as the
//      edge it replaces (same locations) and a smaller (min id, max id).
//   3. Replacing every copy by its first copy maps a path of the complete graph onto a path of
//      the distinct points whose edges are no larger (same keys, ids no larger), so an edge
//      between first copies is in the tree of all points exactly when it is in the tree of the
//      distinct points, which the rounds compute.
// Hence the tree is the rounds' tree plus one edge per later copy, (a, gi) with key c and
// a = the smallest input index among g1 and N: FindCopyAnchor finds it by a range search of
// radius sqrt(c). With c = 0 (at least k copies) N is empty and a = g1: the EMST's copy edges.
// The edge lists are checked against a brute-force Prim under this order on duplicate-heavy
// lattices (Testing/Engine/HdbscanTests.cxx).
//
// Reference: Campello, Moulavi & Sander 2013 (core distances, mutual reachability);
// scikit-learn's sklearn/cluster/_hdbscan (min_samples counts the point itself).
#pragma once

#include "base/Algorithms.h"
#include "base/Arithmetic.h"
#include "base/Buffer.h"
#include "emst/Hdbscan.h"
#include "phases/Cells.h"
#include "phases/Duplicates.h"
#include "phases/Hierarchy.h"
#include "phases/Metric.h"
#include "phases/NearestForeign.h"
#include "phases/OutputOrder.h"

#include <cstddef>
#include <cstdint>

namespace emst
{
namespace detail
{

/// The largest k the core search accepts (its heap lives in each thread's registers and local
/// memory).
constexpr std::size_t kMaxMinimumSamples = MaxMinimumSamples;

/// The `need` smallest keys seen, counted with multiplicities, in a bounded max-heap: the top is
/// the need-th smallest key (counting multiplicities) once `full()`. Invariant after every
/// offer: the entries below the top weigh less than `need` together, so at most need entries
/// are kept (Capacity >= need + 1 covers the push before the pops).
template <int Capacity>
struct NearestKeys
{
  double key[Capacity];
  std::uint32_t weight[Capacity];
  int size;
  std::uint64_t total; ///< the weights of the entries
  std::uint64_t need;

  EMST_HD EMST_FORCEINLINE bool full() const { return this->total >= this->need; }
  EMST_HD EMST_FORCEINLINE double top() const { return this->key[0]; }

  EMST_HD void offer(double k, std::uint32_t w)
  {
    int i = this->size++;
    while (i > 0)
    {
      int const parent = (i - 1) / 2;
      if (!(this->key[parent] < k))
      {
        break;
      }
      this->key[i] = this->key[parent];
      this->weight[i] = this->weight[parent];
      i = parent;
    }
    this->key[i] = k;
    this->weight[i] = w;
    this->total += w;
    while (this->total - this->weight[0] >= this->need)
    {
      this->pop();
    }
  }

private:
  EMST_HD void pop()
  {
    this->total -= this->weight[0];
    int const n = --this->size;
    double const k = this->key[n];
    std::uint32_t const w = this->weight[n];
    int i = 0;
    for (;;)
    {
      int child = 2 * i + 1;
      if (child >= n)
      {
        break;
      }
      if (child + 1 < n && this->key[child + 1] > this->key[child])
      {
        ++child;
      }
      if (!(this->key[child] > k))
      {
        break;
      }
      this->key[i] = this->key[child];
      this->weight[i] = this->weight[child];
      i = child;
    }
    this->key[i] = k;
    this->weight[i] = w;
  }
};

/// What the core searches read: the search context of the run's base metric (Euclidean, or
/// periodic in a box; its round fields unused), the multiplicities and k.
template <class Metric>
struct CoreContext
{
  SearchContext<Metric> search;
  const std::uint32_t* multiplicityOfPoint; ///< [m]
  std::uint32_t k;
};

/// One point's k-nearest-neighbour search: every other distinct point within the limit offers
/// its exact key with its multiplicity; once `need` copies are held the limit is the window of
/// the need-th key (anything beyond it is farther).
template <class Metric, int Capacity>
struct NeighbourSearch : PlainWalk<Metric>
{
  const std::uint32_t* multiplicityOfPoint; ///< [m]
  NearestKeys<Capacity> keys;

  EMST_HD EMST_FORCEINLINE void scanLeaf(Index leaf)
  {
    const SearchContext<Metric>& s = *this->ctx;
    Index const end = s.cells.firstPointOfLeaf[leaf + 1];
    for (Index k = s.cells.firstPointOfLeaf[leaf]; k < end; ++k)
    {
      if (k == this->p ||
        s.metric.distance2(this->q, s.points.recordOfPoint[k], k) > this->limitValue)
      {
        continue;
      }
      double const key = s.metric.key(this->p, k);
      if (this->keys.full() && !(key < this->keys.top()))
      {
        continue; // the need-th smallest key stays where it is
      }
      this->keys.offer(key, this->multiplicityOfPoint[k]);
      if (this->keys.full())
      {
        float sure;
        s.tolerance.windowOfKey(this->keys.top(), this->limitValue, sure);
      }
    }
  }
};

/// Core keys, one distinct point per thread: 0 with k copies or more, else the (k - w)-th
/// smallest key to the other points (w the point's copies), counting multiplicities; +inf when
/// there are fewer points than that (the caller rules it out first).
template <class Metric, int Capacity>
struct FindCoreDistance
{
  CoreContext<Metric> ctx;
  double* coreKeyOfPoint;  ///< [m]
  float* coreBoundOfPoint; ///< [m] floatAtLeast of the key

  EMST_HD void operator()(std::size_t index) const
  {
    Index const p = static_cast<Index>(index);
    std::uint32_t const w = ctx.multiplicityOfPoint[p];
    if (w >= ctx.k)
    {
      coreKeyOfPoint[p] = 0.0;
      coreBoundOfPoint[p] = 0.0f;
      return;
    }
    const SearchContext<Metric>& s = ctx.search;
    PointRecord const self = s.points.recordOfPoint[p];
    NeighbourSearch<Metric, Capacity> search; // default-initialised: the heap is not zeroed
    search.ctx = &s;
    search.multiplicityOfPoint = ctx.multiplicityOfPoint;
    search.q = s.metric.query(self, p);
    search.p = p;
    search.limitValue = floatLargest();
    search.keys.size = 0;
    search.keys.total = 0;
    search.keys.need = ctx.k - w;
    searchFromCell(s, p, self.x, search);
    double const core =
      search.keys.full() ? search.keys.top() : static_cast<double>(floatInfinity());
    coreKeyOfPoint[p] = core;
    coreBoundOfPoint[p] = floatAtLeast(core);
  }
};

/// The group rule's range search for one point with copies (limit: the window of `core`, beyond
/// which keys are larger): the smallest input index among the points y of other locations with
/// core(y) <= c and |x - y|^2 <= c, below `best` (which starts at the first copy's index).
template <class Metric>
struct AnchorSearch : PlainWalk<Metric>
{
  const double* coreKeyOfPoint;
  double core;
  Index best;

  EMST_HD EMST_FORCEINLINE void scanLeaf(Index leaf)
  {
    const SearchContext<Metric>& s = *this->ctx;
    Index const end = s.cells.firstPointOfLeaf[leaf + 1];
    for (Index k = s.cells.firstPointOfLeaf[leaf]; k < end; ++k)
    {
      Index const in = s.points.inputOfPoint[k];
      if (k == this->p || in >= this->best || coreKeyOfPoint[k] > this->core ||
        s.metric.distance2(this->q, s.points.recordOfPoint[k], k) > this->limitValue)
      {
        continue;
      }
      if (s.metric.key(this->p, k) <= this->core)
      {
        this->best = in;
      }
    }
  }
};

/// anchorOfPoint[p]: the input index the later copies of p hang from (the group rule above); the
/// first copy's own index for points without copies or with core 0.
template <class Metric>
struct FindCopyAnchor
{
  CoreContext<Metric> ctx;
  const double* coreKeyOfPoint; ///< [m]
  Index* anchorOfPoint;         ///< [m]

  EMST_HD void operator()(std::size_t index) const
  {
    Index const p = static_cast<Index>(index);
    const SearchContext<Metric>& s = ctx.search;
    Index const first = s.points.inputOfPoint[p];
    double const core = coreKeyOfPoint[p];
    anchorOfPoint[p] = first;
    if (ctx.multiplicityOfPoint[p] < 2 || core == 0.0)
    {
      return;
    }
    PointRecord const self = s.points.recordOfPoint[p];
    AnchorSearch<Metric> search;
    search.ctx = &s;
    search.q = s.metric.query(self, p);
    search.p = p;
    float sure;
    s.tolerance.windowOfKey(core, search.limitValue, sure);
    search.coreKeyOfPoint = coreKeyOfPoint;
    search.core = core;
    search.best = first;
    searchFromCell(s, p, self.x, search);
    anchorOfPoint[p] = search.best;
  }
};

/// What the core phase hands on, by distinct point (Morton order).
template <class Exec>
struct CoreDistances
{
  explicit CoreDistances(Exec& exec)
    : coreKeyOfPoint(exec, 0)
    , coreBoundOfPoint(exec, 0)
    , anchorOfPoint(exec, 0)
  {
  }
  Buffer<double, Exec> coreKeyOfPoint;  ///< [m] exact squared core distance, frame units
  Buffer<float, Exec> coreBoundOfPoint; ///< [m] floatAtLeast of it, for the search
  Buffer<Index, Exec> anchorOfPoint;    ///< [m] where the later copies hang; only with copies
};

/// The core distances of the distinct points for k = `minimumSamples` (at most
/// kMaxMinimumSamples, and at most v: checked by the caller), and the copies' anchors when
/// there are copies.
template <class Exec, class Metric>
CoreDistances<Exec> computeCoreDistances(Exec& exec, const SearchContext<Metric>& search,
  const std::uint32_t* multiplicityOfPoint, std::size_t minimumSamples, bool copies)
{
  std::size_t const m = search.points.count;
  CoreDistances<Exec> cores(exec);
  cores.coreKeyOfPoint = Buffer<double, Exec>(exec, m);
  cores.coreBoundOfPoint = Buffer<float, Exec>(exec, m);
  CoreContext<Metric> const ctx{ search, multiplicityOfPoint,
    static_cast<std::uint32_t>(minimumSamples) };
  {
    auto const range = exec.range("k nearest");
    // A heap sized for the common k keeps the threads' local memory small.
    if (minimumSamples <= 32)
    {
      exec.forEach(m,
        FindCoreDistance<Metric, 32>{
          ctx, cores.coreKeyOfPoint.data(), cores.coreBoundOfPoint.data() });
    }
    else
    {
      exec.forEach(m,
        FindCoreDistance<Metric, static_cast<int>(kMaxMinimumSamples)>{
          ctx, cores.coreKeyOfPoint.data(), cores.coreBoundOfPoint.data() });
    }
  }
  if (copies)
  {
    auto const range = exec.range("copy anchors");
    cores.anchorOfPoint = Buffer<Index, Exec>(exec, m);
    exec.forEach(
      m, FindCopyAnchor<Metric>{ ctx, cores.coreKeyOfPoint.data(), cores.anchorOfPoint.data() });
  }
  return cores;
}

// ---- From distinct points to input points ---------------------------------------------------

/// Core keys of a cloud with fewer than two finite points: 0 for the finite one (k = 1), NaN
/// for the others.
template <class T, int Dim>
struct LoneCores
{
  InputPoints<T, Dim> input;
  double* coreKeyOfInput; ///< [n]
  EMST_HD void operator()(std::size_t i) const
  {
    coreKeyOfInput[i] = input.isFinite(i) ? 0.0 : bitsDouble(0x7FF8000000000000ULL);
  }
};

/// coreKeyOfInput[first copy] and anchorOfInput[first copy] from the distinct points.
struct ScatterCores
{
  const Index* inputOfPoint;    ///< [m]
  const double* coreKeyOfPoint; ///< [m]
  const Index* anchorOfPoint;   ///< [m] or null (no copies)
  double* coreKeyOfInput;       ///< [n]
  Index* anchorOfInput;         ///< [n] or null
  EMST_HD void operator()(std::size_t p) const
  {
    Index const in = inputOfPoint[p];
    coreKeyOfInput[in] = coreKeyOfPoint[p];
    if (anchorOfInput)
    {
      anchorOfInput[in] = anchorOfPoint[p];
    }
  }
};

/// The copies' edges of the mutual reachability tree (the group rule): the duplicates phase
/// left (first copy g1, later copy g) in each; it becomes (anchor of g1, g) with key core(g1),
/// and g gets g1's core.
template <class Metric>
struct AnchorCopies
{
  Metric metric;              ///< MutualReachabilityMetric over the input points
  double* coreKeyOfInput;     ///< [n]
  const Index* anchorOfInput; ///< [n], or null: every anchor is the first copy (core 0)
  std::uint64_t* lengthBits;  ///< [d]
  std::uint64_t* pairOfEdge;  ///< [d] (g1 << 32 | g) on entry
  EMST_HD void operator()(std::size_t e) const
  {
    Index const first = static_cast<Index>(pairOfEdge[e] >> 32);
    Index const copy = static_cast<Index>(pairOfEdge[e] & 0xFFFFFFFFu);
    coreKeyOfInput[copy] = coreKeyOfInput[first];
    Index const anchor = anchorOfInput ? anchorOfInput[first] : first;
    EdgeKey<Metric>{ metric }.write(anchor, copy, &lengthBits[e], &pairOfEdge[e]);
  }
};

/// In place, key -> distance in input units, sqrt(key) / scale (NaN stays NaN).
struct CoreKeyToDistance
{
  double* values; ///< [n]
  double scale;
  EMST_HD void operator()(std::size_t i) const { values[i] = sqrt(values[i]) / scale; }
};

} // namespace detail
} // namespace emst
