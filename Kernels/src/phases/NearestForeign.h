// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Phase 5, FindMin1 (Qiao & Créput 2021, section 1 and 4.2): at the start of each round the
// points move to their new component labels and the subtrees get theirs; then every point looks
// for its nearest point of another component (the first minimum of FindMin2 fused in), pruning
// with the subtree labels (Prokopenko et al. 2022, 3.2) and the components' upper bounds.
// Sizes: m distinct points, L leaf cells, k components of the current round.
#pragma once

#include "base/Algorithms.h"
#include "base/Arithmetic.h"
#include "base/Atomics.h"
#include "base/Buffer.h"
#include "phases/Cells.h"
#include "phases/Components.h"
#include "phases/Hierarchy.h"
#include "phases/Metric.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <type_traits>

namespace emst
{
namespace detail
{

/// Per-point state kept across rounds.
struct CandidateArrays
{
  /// [m] the nearest point of another component found by p's last search, or kNone. While it
  /// stays in another component it is still p's exact answer (the set of foreign points only
  /// shrinks, and it was the nearest of a larger set). Its component is read from its record
  /// (a Morton neighbour of p's, mostly in cache), not kept beside it: 4 bytes a point.
  Index* candidateOfPoint;
  /// [m] a float b with p's future answers' keys > floatBelow(b): floatAtLeast of the key of
  /// the last exact answer (then also an upper bound of that answer's key), raised to
  /// nextOfPoint once that answer has joined p's component; or, when the last search found
  /// nothing, the float above the radius it searched, or the least key bound of what foreign it
  /// passed over (ForeignSearch::other) when larger.
  float* boundOfPoint;
  /// [m * neighbours] the `neighbours` nearest other points of p under the order (key, input
  /// index), nearest first (NeighbourLists below), found in round one; its first entry is kNone
  /// once every entry is in p's component. Null when neighbours is 0.
  Index* neighboursOfPoint;
  int neighbours;
  /// [m] or null: for a point with an answer, a float b with the keys of its answers after
  /// that one > floatBelow(b): the least key bound of everything foreign its search passed
  /// over (ForeignSearch::other), which holds every foreign point but the answer (0 after
  /// round one's climbs, which stop at their cells). With the empty searches' bounds likewise
  /// raised, rounds three to seven search 27, 34, 38, 41, 46% fewer points (uniform 1e6 3D,
  /// CPU, searchers listed from round two: 565k -> 412k in round three); the empty searches'
  /// part alone 7, 19, 25, 29, 32%.
  float* nextOfPoint;
};

/// Component labels of the leaves, and their runs along the Morton curve.
struct LabelArrays
{
  Index* labelOfLeaf; ///< [L] the label of every point of the leaf, or kMixed
  Index* runOfLeaf;   ///< [L] first leaf of the run of equal components holding each leaf
  /// PointArrays::componentOfLabel: null, or the component of each frozen label (then a leaf's
  /// label, where its points are of one component, is its first point's frozen label:
  /// StartFrozenRound).
  const Index* componentOfLabel;

  /// The component of every point of leaf j, or kMixed.
  EMST_HD EMST_FORCEINLINE Index ofLeaf(Index j) const
  {
    Index const label = labelOfLeaf[j];
    return componentOfLabel && label != kMixed ? componentOfLabel[label] : label;
  }
  /// The component of leaves first..last: theirs when they share one (the last one's run starts
  /// at or before the first: LabelRunStart), else kMixed.
  EMST_HD EMST_FORCEINLINE Index ofRange(Index first, Index last) const
  {
    return runOfLeaf[last] <= first ? this->ofLeaf(first) : kMixed;
  }
};

/// The fewest distinct points for which round one searches bottom-up on a backend that runs
/// warps (Exec::kDefersClimbs), in 3D and in 2D: below, the searches from the root in one
/// launch take less than the climbs and their deferred pass (H200, round one alone, medians of
/// four and five alternating blocks, us, bottom-up -> from the root: scan_bunny36k 57 -> 45,
/// tsp_monalisa100k 63 -> 51, lidar_autzen110k 76 -> 66, geo_cities1000 71 -> 63, uniform 1e5
/// 3D 88 -> 82, cosmo 1e5 3D 99 -> 88, uniform 2e5 2D 76 -> 62; from these sizes on, slower:
/// uniform 2e5 3D 121 -> 117 but cosmo 2e5 3D 133 -> 148, uniform 5e5 2D 119 -> 129,
/// lidar_lonestar519k 175 -> 221, uniform 1e6 3D 371 -> 501).
constexpr std::size_t kBottomUpFrom3D = std::size_t(1) << 17;
constexpr std::size_t kBottomUpFrom2D = std::size_t(1) << 18;

/// Whether round `round` of a set of m distinct points of dimension `dim` starts its searches at
/// each point's cell (bottom-up) rather than at the root: by default in the first round only,
/// and on a backend that runs warps (`backendRunsWarps`) only from kBottomUpFrom3D /
/// kBottomUpFrom2D points on. Tuning knob, read once from the environment, for benchmarking and
/// for the GPU check's coverage of bottom-up searches on small sets: EMST_SEARCH, topdown
/// (always at the root), bottomup (always at the cell), first (in the first round, at any size).
inline bool searchesBottomUp(int round, std::size_t m, int dim, bool backendRunsWarps)
{
  enum class Start
  {
    TopDown,
    BottomUp,
    FirstRound,
    FirstRoundOfLargeSets
  };
  static Start const start = []
  {
    const char* text = std::getenv("EMST_SEARCH");
    std::string const mode = text ? text : "";
    return mode == "topdown" ? Start::TopDown
      : mode == "bottomup"   ? Start::BottomUp
      : mode == "first"      ? Start::FirstRound
                             : Start::FirstRoundOfLargeSets;
  }();
  std::size_t from = 0; // the fewest points of a bottom-up round one
  if (start == Start::FirstRoundOfLargeSets && backendRunsWarps)
  {
    from = dim == 3 ? kBottomUpFrom3D : kBottomUpFrom2D;
  }
  return start == Start::BottomUp || (start != Start::TopDown && round == 1 && m >= from);
}

/// The fewest distinct points from which a backend that runs warps lists its searchers
/// (listsSearchers). 2D: 2^22 points (the measurements with listsSearchers).
constexpr std::size_t kListedFrom2D = std::size_t(1) << 22;
/// 3D: 7 * 2^16 (458,752) points, between the sets that lose and the first that gains. H200
/// (RESULTS.md, 2026-12-01), listing from round two against none, medians of three alternating
/// blocks of 15 runs, ms: uniform 3e5 3D 1.418 -> 1.460, cosmo 3e5 1.463 -> 1.488, uniform 4e5
/// 1.647 -> 1.701, cosmo 4e5 1.634 -> 1.649, lidar_lonestar519k 1.894 -> 1.852 (every listing
/// block faster than every other); below 2^19 points the list cost up to 24% (RESULTS.md,
/// 2026-11-28): a small set's search kernel is one partial wave that lasts as long as its
/// longest walk, which full warps do not shorten.
constexpr std::size_t kListedFrom3D = std::size_t(7) << 16;

/// Whether round `round` lists its searchers first (ListSearchers): two more launches a round,
/// each over every point, for searches in full warps. Only where the backend runs warps
/// (Exec::kListsSearchers): a CPU core has no idle lanes to fill, and pays the extra pass (2
/// cores, uniform 3D: 1e6 points 852 -> 918 ms, 2e6 points 1813 -> 1940 ms with the list from
/// round three). From round two in 3D sets of kListedFrom3D points or more, 2D sets of
/// kListedFrom2D or more. H100 (RESULTS.md, 2026-11-25), against the list from round three in 3D
/// sets of 2^20 points or more and none in 2D, medians of three blocks, ms: uniform 3e7 2D 55.74
/// -> 52.87, cosmo 3e7 2D 57.40 -> 55.76, uniform 1e7 2D 17.54 -> 16.89, cosmo 1e7 2D 18.55
/// -> 18.35, uniform 1e7 3D 22.46 -> 22.34, cosmo 1e7 3D 23.05 -> 22.95, uniform 1e6 3D 3.41
/// -> 3.34 (it listed none); below, the launches cost more than the full warps save (uniform 1e6
/// 2D 2.63 -> 2.72, uniform 1e5 3D 1.33 -> 1.45). Knob for benchmarking: EMST_LIST_FROM, the first
/// listing round (0: never), on any backend.
inline bool listsSearchers(int round, std::size_t m, int dim, bool backendLists)
{
  static int const forced = []
  {
    const char* text = std::getenv("EMST_LIST_FROM");
    return text ? std::atoi(text) : -1;
  }();
  std::size_t const listedFrom = dim == 3 ? kListedFrom3D : kListedFrom2D;
  int const from = forced >= 0 ? forced : (backendLists && m >= listedFrom ? 2 : 0);
  return from > 0 && round >= from;
}

/// How many levels round one's bottom-up searches climb before the points still climbing are
/// deferred to a second pass (FindNearestForeign::Deferral, FinishDeferredSearch), 0 for none.
/// A warp's bottom-up searches take as long as their longest climb: most points find their
/// nearest within a few levels, while the few whose ball crosses a large cell's face climb far
/// and search the large subtrees beside it, with the rest of their warp idle (H100, uniform 1e7
/// 3D: 6 of 32 lanes active on average). Deferred, those points search again from the root,
/// outside the subtree searched so far, in full warps of their own. Measured (H100, round one,
/// ms; uniform / cosmo 1e7 3D, uniform / cosmo 1e7 2D): none 5.26 / 5.87 / 2.68 / 2.85; 1 level
/// 4.29 / 5.12 / 2.42 / 2.70; 2 4.21 / 5.03 / 2.38 / 2.64; 3 4.09 / 4.91 / 2.41 / 2.64; 4 4.11 /
/// 4.91 / 2.45 / 2.66; resuming the climb instead of a search from the root, 6 levels 5.00 /
/// 5.72 / 2.62 / 2.81; whole runs 25.95 -> 24.67, 27.90 -> 26.91, 19.41 -> 19.00, 20.34 ->
/// 19.99 (uniform 3e7 3D 87.8 -> 83.8). The first pass is a kernel of its own: compiled into
/// the later rounds' searches, its code slowed their listed searches (round three 3.27 -> 3.96
/// ms). Only where the backend runs warps (Exec::kDefersClimbs); later rounds start at the root
/// (round two bottom-up with 3 levels deferred: 5.15 -> 5.22 ms). Knob
/// EMST_DEFER_CLIMB, the levels (0: never), on any backend whose round one searches (the CPU's
/// lists its neighbours instead, unless EMST_NEIGHBOURS=0).
constexpr int kDeferredClimbLevels = 3;
inline int deferredClimbLevels(bool backendDefers)
{
  static int const forced = []
  {
    const char* text = std::getenv("EMST_DEFER_CLIMB");
    return text ? std::atoi(text) : -1;
  }();
  return forced >= 0 ? forced : (backendDefers ? kDeferredClimbLevels : 0);
}

/// How far a search of the later rounds reaches, as a factor (>= 1) of its component's bound
/// (a key: a squared distance). Reaching past the bound finds nothing the round needs, but what
/// it finds lasts: a foreign point found there is the point's exact answer for as long as it
/// stays foreign, and an empty search proves a larger empty ball, so that the point sits out
/// the next rounds until its component's bound grows past it. Measured (uniform 1e7 3D, H100):
/// 1 (the bound itself) 36.3 ms, 1.25 33.3, 1.5 33.4, 2 34.2; kSearchReach is the default, on
/// both backends. Tuning knob EMST_REACH (a factor >= 1), read once from the environment, for
/// benchmarking.
constexpr float kSearchReach = 1.25f;
inline float searchReach()
{
  static float const reach = []
  {
    const char* text = std::getenv("EMST_REACH");
    float const value = text ? static_cast<float>(std::atof(text)) : kSearchReach;
    return value >= 1.0f ? value : kSearchReach;
  }();
  return reach;
}

/// The round whose component labels the points keep (FrozenLabels), 0 for none: from the round
/// after it, a table of that round's components maps each label to its current component, so
/// that a round starts with a pass over that many entries instead of relabelling every point
/// (RelabelPoints: a pass over the records, at the memory's bandwidth, whatever few points
/// search), at the price of one more load (the table's, small and cached) wherever a point's
/// component is read. At least 3 (the table's room: ComponentArena::frozenLabelTable). H200,
/// two alternating blocks of 7 runs, medians, ms, never -> from round 5 (the default): uniform
/// 1e7 3D 20.25 / 20.45 -> 20.09 / 20.18 (rounds 6-11 40-65 us faster each), cosmo 1e7 3D
/// 20.91 / 21.13 -> 20.76 / 20.85, uniform 1e7 2D 15.28 / 15.49 -> 14.85 / 15.06, the sets
/// below 10^6 points within noise; from round 3 or 4 the tables' loads cost rounds 4-5 more
/// than the passes save (uniform 1e7 3D 20.41 / 20.35, 20.11 / 20.20). Knob
/// EMST_FREEZE_LABELS, the round (3 to 60; 0: never), on any backend.
constexpr int kFrozenLabelsFrom = 5;
inline int frozenLabelsFrom()
{
  static int const from = []
  {
    const char* text = std::getenv("EMST_FREEZE_LABELS");
    int const value = text ? std::atoi(text) : kFrozenLabelsFrom;
    return value >= 3 && value <= 60 ? value : 0;
  }();
  return from;
}

/// How many nearest points round one lists for each point (answerFromList): the backend's choice
/// (Exec::kNeighbours), or on a backend that lists (kNeighbours > 0: the list search is built
/// into it) the tuning knob EMST_NEIGHBOURS (0, 4, 6 or 8; 0: no lists), read once from the
/// environment, for benchmarking.
inline int neighbourListLength(int backendDefault)
{
  if (backendDefault == 0)
  {
    return 0;
  }
  static int const knob = []
  {
    const char* text = std::getenv("EMST_NEIGHBOURS");
    int const value = text ? std::atoi(text) : -1;
    return value == 0 || value == 4 || value == 6 || value == 8 ? value : -1;
  }();
  return knob >= 0 ? knob : backendDefault;
}

/// Best candidate of one query point under the order (key, input index). Its exact key is
/// computed only when a comparison needs it: a candidate whose float distance is surely below
/// the best's key replaces it unseen. `limit` bounds the float distance (point or box) of
/// anything that could still win (farther is pruned), `sure` is the float distance below which
/// a candidate surely wins.
struct Candidate
{
  double key; ///< exact key; negative while unknown (the window then comes from its float distance)
  float limit;
  float sure;
  Index point;
  Index input;

  /// A float distance at most the best's own (its window's sure distance; +inf before any
  /// point), what the best counts with among the points a search passed over once replaced.
  EMST_HD EMST_FORCEINLINE float passedOver() const
  {
    return point == kNone ? floatInfinity() : sure;
  }
};

/// What a search reads and writes (FindNearestForeign's): FindMin1 (the nearest point of another
/// component under the total order (key, smaller input index of the two ends, larger one); for
/// one query point that order is (key, input index of the candidate)), each answer lowering its
/// component's bound to its key's float (what FindMin2 picks the minimum edge by). The float
/// frame prunes; every candidate that the float distances cannot rule out is decided by its
/// exact key (Tolerance).
template <class Metric>
struct SearchContext
{
  static constexpr int Dim = Metric::kDim;
  using Query = typename Metric::Query;

  Metric metric; ///< over the distinct points (Cells::exactOfPoint)
  Tolerance tolerance;
  PointArrays points;
  CellArrays cells;
  HierarchyArrays<Dim> tree;
  float latticeScale; ///< Quantizer::scale: lattice cells per unit
  CandidateArrays candidates;
  float reach; ///< searchReach() in the later rounds' searches (1 in any other search)
  // The round's, set by findMin1:
  bool bottomUp;              ///< start at the point's cell (else at the root)
  std::uint32_t* boundOfComp; ///< [k] float bits; null in the first round (no bounds)

  /// The same context over another metric (the rounds' metric over the run's base one).
  template <class Other>
  SearchContext<Other> withMetric(const Other& other) const
  {
    return SearchContext<Other>{ other, tolerance, points, cells, tree, latticeScale, candidates,
      reach, bottomUp, boundOfComp };
  }

  /// True when p must search; otherwise p's state is already final for this round. Called after
  /// LabelLeaves, which has cleared every answer that joined p's component: an answer left is
  /// in another component, without a look at its record.
  EMST_HD EMST_FORCEINLINE bool needsSearch(Index p, Index comp, float& radius) const
  {
    if (candidates.candidateOfPoint[p] != kNone)
    {
      return false; // still the exact answer (LabelLeaves lowered the component's bound to it)
    }
    // Otherwise, when every foreign point is farther than the component's current best edge,
    // this point can neither win nor tie; its bound stays valid for later rounds.
    radius = boundOfComp ? bitsFloat(boundOfComp[comp]) : floatInfinity();
    return floatBelow(candidates.boundOfPoint[p]) < radius; // p's answers have keys above it
  }

  /// `other`: a float distance at most that of every foreign point but the best (0: unknown).
  EMST_HD EMST_FORCEINLINE void finish(
    Index p, Index comp, Candidate& best, float radius, float other) const
  {
    if (best.point == kNone)
    {
      candidates.candidateOfPoint[p] = kNone;
      // No foreign key <= radius, nor below the least bound of what the search passed over.
      candidates.boundOfPoint[p] = fmaxf(floatAbove(radius), tolerance.keyAtLeast(other));
      return;
    }
    candidates.candidateOfPoint[p] = best.point;
    this->bestKey(p, best);
    float const bound = floatAtLeast(best.key);
    candidates.boundOfPoint[p] = bound;
    if (candidates.nextOfPoint)
    {
      candidates.nextOfPoint[p] = tolerance.keyAtLeast(other);
    }
    if (boundOfComp)
    {
      tightenBound(boundOfComp, comp, bound);
    }
  }

  /// Start at the component's bound: candidates whose key is exactly that are still accepted,
  /// so ties with the edge that set the bound are decided by the index order.
  EMST_HD EMST_FORCEINLINE Candidate start(float radius) const
  {
    Candidate best{ static_cast<double>(radius), 0.0f, 0.0f, kNone, kNone };
    tolerance.windowOfKey(best.key, best.limit, best.sure);
    return best;
  }

  /// The best's exact key (computed once, when first needed).
  EMST_HD EMST_FORCEINLINE double bestKey(Index p, Candidate& best) const
  {
    if (best.key < 0.0)
    {
      best.key = metric.key(p, best.point);
    }
    return best.key;
  }

  /// Query point p (q) against candidate k (record r). The exact coordinates are read only
  /// here, when the float distances cannot decide (rare), not held through the search.
  /// `Tracks`: `other` keeps the least float distance of the foreign points passed over (a
  /// replaced best counts with its window's sure distance, at most its own); else untouched.
  template <bool Tracks>
  EMST_HD EMST_FORCEINLINE void consider(const PointRecord& r, Index k, const Query& q, Index p,
    Index comp, Candidate& best, float& other) const
  {
    if (points.component(r.comp) == comp)
    {
      return;
    }
    float const d2 = metric.distance2(q, r, k);
    if (d2 > best.limit)
    {
      if constexpr (Tracks)
      {
        other = fminf(other, d2);
      }
      return; // its key exceeds the best's
    }
    k = opaqueIndex(k); // the loop steps k alone
    Index const in = points.inputOfPoint[k];
    if (d2 < best.sure)
    {
      // Surely a smaller key: take it without computing either key.
      if constexpr (Tracks)
      {
        other = fminf(other, best.passedOver());
      }
      best = Candidate{ -1.0, 0.0f, 0.0f, k, in };
      tolerance.windowOfDistance(d2, best.limit, best.sure);
      return;
    }
    double const key = metric.key(p, k);
    double const current = best.point == kNone ? best.key : this->bestKey(p, best);
    bool const wins = key < current || (key == current && in < best.input);
    if constexpr (Tracks)
    {
      other = fminf(other, wins ? best.passedOver() : d2);
    }
    if (wins)
    {
      best = Candidate{ key, 0.0f, 0.0f, k, in };
      tolerance.windowOfKey(key, best.limit, best.sure);
    }
  }
};

/// A search without component labels (round one's neighbour lists, the core distances): a query
/// point walking the hierarchy (Hierarchy.h's visitors) with the metric's box bounds, pruned
/// beyond its limit. The visitor adds scanLeaf.
template <class Metric>
struct PlainWalk
{
  static constexpr int Dim = Metric::kDim;
  const SearchContext<Metric>* ctx;
  typename Metric::Query q;
  Index p;
  float limitValue;

  EMST_HD EMST_FORCEINLINE float bound(const TreeNode<Dim>& n, Index node, int slot) const
  {
    return ctx->metric.boxDistance2(q, n, node, slot);
  }
  EMST_HD EMST_FORCEINLINE float limit() const { return limitValue; }
  EMST_HD EMST_FORCEINLINE bool ballClearOfFaces(const float* x) const
  {
    return ctx->metric.ballClearOfFaces(x, limitValue, ctx->tolerance);
  }
};

/// The bottom-up walk of point p (frame coordinates x): its own leaf, then up the radix tree
/// (searchUpwards), until the ball of the visitor's limit lies inside the cell searched so far,
/// or (levels > 0) for at most `levels` levels: kNone when the search is complete, else where
/// it stopped (searchUpwards).
template <class Metric, class Visitor>
EMST_HD EMST_FORCEINLINE Index searchFromCell(
  const SearchContext<Metric>& ctx, Index p, const float* x, Visitor& visitor, int levels = 0)
{
  Index const leaf = ctx.points.leafOf(p);
  visitor.scanLeaf(leaf);
  if (ctx.cells.leaves < 2)
  {
    return kNone;
  }
  return searchUpwards(
    ctx.tree, leaf, x, ctx.latticeScale, Metric::kBallInCellStops, visitor, levels);
}

/// Neighbour lists (rounds two on). Round one lists, for every point p, its `neighbours` nearest
/// other points under the order (key, input index) (FindNeighbourList). Every point missing from
/// the list comes after its last entry in that order, and the set of points of other components
/// only shrinks, so while some entry is in another component than p, the first such entry is
/// p's exact answer, and once none is, every later answer's key is at least the last entry's:
/// no search at all for either, unless that key is within the component's bound. Called once a
/// round for each point whose last answer is no longer foreign (LabelLeaves); true when the
/// list gave the answer (candidate and bound written, as a search would), else the bound is the
/// last entry's and the list is marked used up (first entry kNone). Uniform 3D, 10^5 points, in
/// a simulation with the components' final bounds: the later rounds' searches fall from 356k to
/// 92k with 4 entries and to 2.4k with 8 (clustered sets gain less: their last rounds join
/// clusters far apart, beyond every list).
template <class Metric>
EMST_HD EMST_FORCEINLINE bool answerFromList(const Metric& metric, const PointArrays& points,
  const CandidateArrays& candidates, Index p, Index comp)
{
  Index* const list = candidates.neighboursOfPoint + std::size_t(p) * candidates.neighbours;
  if (list[0] == kNone)
  {
    return false; // used up in an earlier round
  }
  for (int j = 0; j < candidates.neighbours; ++j)
  {
    Index const q = list[j];
    if (q == kNone)
    {
      break; // fewer other points than entries: all of them are listed, none is foreign
    }
    if (points.componentOf(q) != comp)
    {
      candidates.candidateOfPoint[p] = q;
      candidates.boundOfPoint[p] = floatAtLeast(metric.key(p, q));
      return true;
    }
  }
  Index const last = list[candidates.neighbours - 1];
  candidates.boundOfPoint[p] = last != kNone ? floatAtLeast(metric.key(p, last)) : floatInfinity();
  list[0] = kNone;
  return false;
}

/// Start of a round after the first, one thread per point: moves the point to its new
/// component label (from the last round's merge). The first point of each leaf writes its label
/// as the leaf's, which LabelLeaves overwrites with kMixed where another follows.
struct RelabelPoints
{
  PointArrays points;       ///< component labels rewritten
  Index* labelOfLeaf;       ///< [L] the first point's label
  NewLabels newLabelOfComp; ///< [previous k]

  EMST_HD void operator()(std::size_t index) const
  {
    Index const k = static_cast<Index>(index);
    Index const comp = newLabelOfComp[points.recordOfPoint[k].comp];
    if (points.startsLeaf(k))
    {
      labelOfLeaf[points.leafOf(k)] = comp;
    }
    points.recordOfPoint[k].comp = comp;
  }
};

/// Then, one thread per point (labels final): the bounds' seeds and the leaf labels. A point's
/// last answer, when still in another component, is still an edge leaving the point's
/// component, hence an upper bound for it; else it is cleared (so that the round's later
/// passes know an answer left to be foreign without reading its record), and the point's
/// list's first entry in another component is its answer (answerFromList), and seeds the bound
/// too. A point in another component than the point before it in its leaf makes the leaf kMixed
/// (a plain store: every writer writes the same value, after RelabelPoints' store of the first
/// point's label). Two consecutive points in different components, in one leaf or across two,
/// are an edge, hence an upper bound for both components (Prokopenko et al. 2022, 3.2); it
/// matters in round two without neighbour lists, when no answer of round one is still valid,
/// and across leaves once the leaves hold one component each. In round two the answers' array
/// holds round one's hooks (ComponentArena): every first-round answer has joined its point's
/// component, so each is cleared unread.
template <class Metric>
struct LabelLeaves
{
  PointArrays points;
  Index* labelOfLeaf;         ///< [L], the first point's label on entry
  std::uint32_t* boundOfComp; ///< [k] float bits
  CandidateArrays candidates;
  Tolerance tolerance;
  Metric metric;
  bool answersAreHooks; ///< ComponentArena::answersAreHooks(round)

  EMST_HD void operator()(std::size_t index) const
  {
    Index const k = static_cast<Index>(index);
    PointRecord const r = points.recordOfPoint[k];
    Index const comp = points.component(r.comp);
    Index const candidate = answersAreHooks ? kNone : candidates.candidateOfPoint[k];
    bool foreign = candidate != kNone && points.componentOf(candidate) != comp;
    if (!foreign && (candidate != kNone || answersAreHooks))
    {
      candidates.candidateOfPoint[k] = kNone; // joined: no longer an answer (needsSearch)
      if (candidates.nextOfPoint)
      {
        candidates.boundOfPoint[k] = fmaxf(candidates.boundOfPoint[k], candidates.nextOfPoint[k]);
      }
    }
    if (!foreign && candidates.neighbours > 0)
    {
      foreign = answerFromList(metric, points, candidates, k, comp);
    }
    if (foreign)
    {
      tightenBound(boundOfComp, comp, candidates.boundOfPoint[k]);
    }
    if (k == 0)
    {
      return;
    }
    PointRecord const previous = points.recordOfPoint[k - 1];
    if (previous.comp == r.comp)
    {
      return; // one label, one component
    }
    Index const previousComp = points.component(previous.comp);
    if (previousComp == comp)
    {
      return;
    }
    if (!points.startsLeaf(k))
    {
      storeShared(&labelOfLeaf[points.leafOf(k)], kMixed);
    }
    float const key = tolerance.keyAtMost(metric.distance2(metric.query(previous, k - 1), r, k));
    tightenBound(boundOfComp, comp, key);
    tightenBound(boundOfComp, previousComp, key);
  }
};

/// Run starts of the leaf labels: j where leaf j's label differs from leaf j-1's, else 0. Their
/// running maximum is the first leaf of the run holding j, so a range of leaves has one label
/// exactly when its last leaf's run starts at or before its first.
struct LabelRunStart
{
  LabelArrays labels; ///< runOfLeaf unread
  EMST_HD Index operator()(std::size_t j) const
  {
    Index const leaf = static_cast<Index>(j);
    return leaf == 0 || labels.ofLeaf(leaf) != labels.ofLeaf(leaf - 1) ? leaf : 0u;
  }
};

/// Component labels of subtrees, for the search to skip subtrees of its own component whole
/// (Prokopenko et al. 2022, 3.2): one thread per node, O(1) each, no bottom-up chain. A node's
/// children split its leaf range at its first child's index (BuildRadixTree: the children are
/// leaves or nodes `split` and `split + 1`), so the node's own range gives both children's
/// without a load through either: two rounds of loads a node instead of three (H100, uniform
/// 10^7 3D: 101 -> 96 us a round; whole runs within noise).
template <int Dim>
struct LabelNodes
{
  LabelArrays labels;
  HierarchyArrays<Dim> tree; ///< labels written

  struct Labels
  {
    Index first, second;
  };
  /// The node's children's labels, loads only (ListAndLabelNodes issues them before the
  /// list's).
  EMST_HD EMST_FORCEINLINE Labels of(std::size_t node) const
  {
    Index const split = tree.nodes[node].child[0] & ~kLeafBit;
    LeafRange const r = leavesOfNode(tree.otherEndOfNode, static_cast<Index>(node));
    // Leaves first..split under child 0, split+1..last under child 1 (a leaf child's range is
    // its leaf alone).
    return Labels{ labels.ofRange(r.first, split), labels.ofRange(split + 1, r.last) };
  }
  EMST_HD EMST_FORCEINLINE void store(std::size_t node, Labels l) const
  {
    tree.nodes[node].label[0] = l.first;
    tree.nodes[node].label[1] = l.second;
  }
  EMST_HD void operator()(std::size_t node) const { this->store(node, this->of(node)); }
};

/// One point's search for FindMin1, as the hierarchy's walks (searchSubtree, searchUpwards) visit
/// it: subtrees of the point's own component are skipped whole, boxes beyond the best's limit
/// are pruned. `Tracks`: keep `other` (a few instructions a node visit; round one's climbs,
/// which stop at their cells, would find it 0 anyway).
template <class Metric, bool Tracks = true>
struct ForeignSearch
{
  using Query = typename Metric::Query;
  static constexpr int Dim = Metric::kDim;
  static constexpr bool kTracksPruned = Tracks;

  const SearchContext<Metric>* ctx;
  Query q;
  Index p;
  Index comp;
  Candidate best;
  /// The least float distance (a lower bound) of the foreign points the walk passed over: the
  /// pruned subtrees', the points beyond the limit, a replaced best (SearchContext::consider).
  float other = floatInfinity();

  EMST_HD EMST_FORCEINLINE float bound(const TreeNode<Dim>& n, Index node, int slot) const
  {
    // Both computed, then chosen: as a conditional evaluation the box distance was a divergent
    // branch of its own in every node visit.
    float const distance = ctx->metric.boxDistance2(q, n, node, slot);
    return n.label[slot] != comp ? distance : floatInfinity();
  }
  EMST_HD EMST_FORCEINLINE float limit() const { return best.limit; }
  EMST_HD EMST_FORCEINLINE void pruned(float bound) { other = fminf(other, bound); }
  EMST_HD EMST_FORCEINLINE bool ballClearOfFaces(const float* x) const
  {
    return ctx->metric.ballClearOfFaces(x, best.limit, ctx->tolerance);
  }
  EMST_HD EMST_FORCEINLINE void scanLeaf(Index leaf)
  {
    const PointRecord* const records = ctx->points.recordOfPoint;
    Index const end = ctx->cells.firstPointOfLeaf[leaf + 1];
    for (Index k = ctx->cells.firstPointOfLeaf[leaf]; k < end; ++k)
    {
      ctx->template consider<Tracks>(loadRecord(records + k), k, q, p, comp, best, other);
    }
  }
};

/// FindMin1, one point per thread. Depth-first (nearer child first), pruning subtrees of the
/// point's own component and boxes beyond the current best, either from the root (top-down) or
/// bottom-up: the point's own cell first, then up the radix tree, searching each sibling
/// subtree, until the ball of the current best lies inside the Morton cell of the subtree
/// searched so far (and, in a periodic box, clear of its periodic faces: the metric's
/// ballClearOfFaces): every point outside it is then farther. `Tracks`: the search keeps what
/// its walk passed over (ForeignSearch::other) for the point's next bounds. The untracked kernel
/// is round one's (whose climbs stop at their cells) and that of the runs without next bounds;
/// it alone carries round one's deferral (Deferral, with levels > 0), so that the tracked
/// searches compile without it (compiled in, it slowed the listed searches of rounds 3-6).
template <class Metric, bool Tracks = true>
struct FindNearestForeign
{
  static constexpr int kRegisters = Metric::kSearchRegisters; ///< Exec::forEachSearch's budget

  /// Bottom-up searches still climbing after `levels` levels (deferredClimbLevels) stop there:
  /// the point's best so far goes to its answer, the parent reference of the subtree searched
  /// so far to its bound's bits, the point to the list; FinishDeferredSearch takes it from there.
  struct Deferral
  {
    int levels = 0;                 ///< 0: no deferral
    Index* list = nullptr;          ///< [m]
    std::uint32_t* count = nullptr; ///< [1], 0 on entry
  };

  SearchContext<Metric> ctx;
  Deferral deferral;

  EMST_HD void operator()(std::size_t index) const
  {
    Index const p = static_cast<Index>(index);
    PointRecord const self = ctx.points.recordOfPoint[p];
    Index const comp = ctx.points.component(self.comp);
    float radius = 0.0f;
    if (!ctx.needsSearch(p, comp, radius))
    {
      return;
    }
    float const reached = radius * ctx.reach; // >= radius (rounded to nearest); inf stays inf
    ForeignSearch<Metric, Tracks> search{ &ctx, ctx.metric.query(self, p), p, comp,
      ctx.start(reached) };
    if (!ctx.bottomUp)
    {
      searchSubtree(ctx.tree.nodes, ctx.cells.leaves > 1 ? 0u : kLeafBit, search);
    }
    else if constexpr (!Tracks)
    {
      Index const stop = searchFromCell(ctx, p, self.x, search, deferral.levels);
      if (stop != kNone)
      {
        ctx.candidates.candidateOfPoint[p] = search.best.point;
        ctx.candidates.boundOfPoint[p] = bitsFloat(stop);
        deferral.list[takeSlot(deferral.count)] = p;
        return;
      }
    }
    else
    {
      searchFromCell(ctx, p, self.x, search);
    }
    ctx.finish(p, comp, search.best, reached, Tracks ? search.other : 0.0f);
  }
};

/// A search of everything outside one subtree (searched already): the subtree's bound is
/// infinite.
template <class Metric>
struct ForeignSearchOutside : ForeignSearch<Metric, false>
{
  Index searched; ///< a node, or a leaf with kLeafBit

  EMST_HD EMST_FORCEINLINE float bound(const TreeNode<Metric::kDim>& n, Index node, int slot) const
  {
    float const distance = ForeignSearch<Metric, false>::bound(n, node, slot);
    return n.child[slot] == searched ? floatInfinity() : distance;
  }
};

/// The index-th deferred search (FindNearestForeign::Deferral): from its best so far, from the
/// root, outside the subtree its climb searched (its bound's bits name it, searchUpwards's stop).
/// Round one's: no component bounds, the search's radius is unlimited.
template <class Metric>
struct FinishDeferredSearch
{
  static constexpr int kRegisters = Metric::kSearchRegisters;

  SearchContext<Metric> ctx;
  const Index* list; ///< [count]

  EMST_HD void operator()(std::size_t index) const
  {
    Index const p = list[index];
    PointRecord const self = ctx.points.recordOfPoint[p];
    Index const comp = self.comp;
    float const reached = floatInfinity();
    ForeignSearchOutside<Metric> search{ { &ctx, ctx.metric.query(self, p), p, comp,
                                           ctx.start(reached) },
      childOf(ctx.tree.nodes, floatBits(ctx.candidates.boundOfPoint[p])) };
    Index const best = ctx.candidates.candidateOfPoint[p];
    if (best != kNone)
    {
      // Its exact key, if the climb computed it, is computed again when a comparison needs it.
      float const d2 = ctx.metric.distance2(search.q, ctx.points.recordOfPoint[best], best);
      search.best = Candidate{ -1.0, 0.0f, 0.0f, best, ctx.points.inputOfPoint[best] };
      ctx.tolerance.windowOfDistance(d2, search.best.limit, search.best.sure);
    }
    searchSubtree(ctx.tree.nodes, 0u, search);
    ctx.finish(p, comp, search.best, reached, 0.0f); // the first pass's part is not known
  }
};

/// Round one with neighbour lists: one point's search for its K nearest other points under the
/// order (key, input index), kept sorted in the visitor (registers: K is a compile-time
/// constant, every index below is unrolled). As in Candidate, an entry's exact key is computed
/// only when the float distances cannot order it against a newcomer: each entry keeps the window
/// of its key (known) or of its float distance (not yet). Once K are held the limit is the K-th
/// entry's, so every point pruned or passed over comes after the K-th in the order.
template <class Metric, int K>
struct NeighbourListSearch : PlainWalk<Metric>
{
  int count;
  double key[K]; ///< exact key, or negative while unknown
  float limitOf[K];
  float sureOf[K];
  Index point[K];
  Index input[K];

  EMST_HD EMST_FORCEINLINE void scanLeaf(Index leaf)
  {
    const SearchContext<Metric>& s = *this->ctx;
    Index const end = s.cells.firstPointOfLeaf[leaf + 1];
    for (Index k = s.cells.firstPointOfLeaf[leaf]; k < end; ++k)
    {
      if (k == this->p)
      {
        continue;
      }
      float const d2 = s.metric.distance2(this->q, s.points.recordOfPoint[k], k);
      if (d2 <= this->limitValue)
      {
        this->offer(k, d2);
      }
    }
  }
  /// Whether candidate k (float distance d2, input index in, exact key kk once computed, else
  /// negative) comes before entry e.
  EMST_HD EMST_FORCEINLINE bool before(int e, Index k, float d2, Index in, double& kk)
  {
    if (d2 < sureOf[e])
    {
      return true;
    }
    if (d2 > limitOf[e])
    {
      return false;
    }
    if (kk < 0.0)
    {
      kk = this->ctx->metric.key(this->p, k);
    }
    if (key[e] < 0.0)
    {
      key[e] = this->ctx->metric.key(this->p, point[e]);
      this->ctx->tolerance.windowOfKey(key[e], limitOf[e], sureOf[e]);
    }
    return kk < key[e] || (kk == key[e] && in < input[e]);
  }
  EMST_HD EMST_FORCEINLINE void offer(Index k, float d2)
  {
    Index const in = this->ctx->points.inputOfPoint[k];
    double kk = -1.0;
    if (count < K || this->before(K - 1, k, d2, in, kk))
    {
      // Insertion from the end: entry j - 1 moves down while the newcomer comes before it
      // (entry K - 1 drops out when the list is full).
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
      for (int j = K - 1; j >= 0; --j)
      {
        if (j > count)
        {
          continue;
        }
        if (j > 0 && this->before(j - 1, k, d2, in, kk))
        {
          key[j] = key[j - 1];
          limitOf[j] = limitOf[j - 1];
          sureOf[j] = sureOf[j - 1];
          point[j] = point[j - 1];
          input[j] = input[j - 1];
        }
        else
        {
          key[j] = kk;
          if (kk < 0.0)
          {
            this->ctx->tolerance.windowOfDistance(d2, limitOf[j], sureOf[j]);
          }
          else
          {
            this->ctx->tolerance.windowOfKey(kk, limitOf[j], sureOf[j]);
          }
          point[j] = k;
          input[j] = in;
          break;
        }
      }
      if (count < K)
      {
        ++count;
      }
    }
    if (count == K)
    {
      this->limitValue = limitOf[K - 1]; // also when only the K-th's key became known
    }
  }
};

/// Round one with neighbour lists (in place of FindNearestForeign): each point's K nearest other
/// points, bottom-up from its cell; the nearest is its answer (every component is a point).
template <class Metric, int K>
struct FindNeighbourList
{
  SearchContext<Metric> ctx;

  EMST_HD void operator()(std::size_t index) const
  {
    Index const p = static_cast<Index>(index);
    PointRecord const self = ctx.points.recordOfPoint[p];
    NeighbourListSearch<Metric, K> search; // default-initialised: the list is filled by count
    search.ctx = &ctx;
    search.q = ctx.metric.query(self, p);
    search.p = p;
    search.limitValue = floatLargest();
    search.count = 0;
    searchFromCell(ctx, p, self.x, search);
    Index* const list = ctx.candidates.neighboursOfPoint + std::size_t(p) * K;
    for (int j = 0; j < K; ++j)
    {
      list[j] = j < search.count ? search.point[j] : kNone;
    }
    Candidate best{ search.key[0], 0.0f, 0.0f, search.point[0], search.input[0] };
    ctx.finish(p, self.comp, best, floatInfinity(), 0.0f);
  }
};

/// Once most points need no search (the later rounds), the ones that do are listed first, in
/// Morton order within each block, so that the searches run on full warps instead of on the few
/// lanes of each warp that search. A listed point asks again (needsSearch is idempotent for it:
/// its candidate stays invalid) under the component's bound as it is by then.
template <class Metric>
struct ListSearchers
{
  SearchContext<Metric> ctx;
  Index* list;                                      ///< [m] written up to *count
  std::uint32_t* count;                             ///< [1], 0 on entry
  static constexpr bool kTakesSlotsTogether = true; ///< the list's slots

  EMST_HD void operator()(std::size_t index, bool active) const
  {
    Index const p = static_cast<Index>(index);
    float radius = 0.0f;
    bool const searches = active && ctx.needsSearch(p, ctx.points.componentOf(p), radius);
    std::uint32_t const slot = takeSlotTogether(count, searches);
    if (searches)
    {
      list[slot] = p;
    }
  }
};

/// A searcher list's pass (ListSearchers, a thread a point, or ListLeafSearchers, a thread a
/// leaf) and LabelNodes in one launch, below L - 1 a node too: where the leaf runs that
/// LabelNodes reads have room of their own (SearchState::runOfLeaf; else they share the list's
/// room, and LabelNodes finishes before the list is written). Neither reads what the other
/// writes, and both wait on chains of dependent loads (a point's label, component, answer and
/// bound; a node's range, then its leaves' labels and runs): the node's loads are issued before
/// the list's, so that the two chains wait together, and the round loses a pass.
template <class List, int Dim>
struct ListAndLabelNodes
{
  List list;
  LabelNodes<Dim> label;
  std::size_t nodes;                                ///< L - 1
  static constexpr bool kTakesSlotsTogether = true; ///< the list's slots

  EMST_HD void operator()(std::size_t index, bool active) const
  {
    bool const labels = active && index < nodes;
    typename LabelNodes<Dim>::Labels l{ kMixed, kMixed };
    if (labels)
    {
      l = label.of(index);
    }
    list(index, active);
    if (labels)
    {
      label.store(index, l);
    }
  }
};

/// The fewest distinct points whose later rounds go a thread a leaf (leafListsFrom,
/// leafMinimaFrom) unless a knob says otherwise: below, those launches are short and bound by
/// their threads' latency, which a thread's walk over its leaf lengthens (H200, RESULTS.md,
/// 2026-12-03: rounds 8-9 of uniform 1e6 3D and lidar_lonestar519k 5-8 us slower each, those of
/// 10^7 points 15-60 us faster).
constexpr std::size_t kLeafWorkFrom = std::size_t(1) << 22;

/// A round that a knob sets (2 to 60; 0 for never, and for anything else), -1 where it is unset.
inline int roundOfKnob(const char* knob)
{
  const char* text = std::getenv(knob);
  if (!text)
  {
    return -1;
  }
  int const value = std::atoi(text);
  return value >= 2 && value <= 60 ? value : 0;
}

/// The first round of leaf work in a run of m distinct points: the knob's round (`forced`,
/// roundOfKnob) where it is set, else `round` from kLeafWorkFrom points and never below.
inline int leafWorkFrom(int forced, int round, std::size_t m)
{
  return forced >= 0 ? forced : (m >= kLeafWorkFrom ? round : 0);
}

/// The first round of a run of m distinct points whose searchers are listed leaf by leaf
/// (ListLeafSearchers), 0 for never: once most leaves hold no searcher, a thread a leaf that
/// skips a leaf of one component on its least bound replaces the pass of a thread a point.
/// From round eight, where the listed searches are few, from kLeafWorkFrom points. Knob
/// EMST_LEAF_LIST_FROM, the round (2 to 60; 0: never) at any size, for benchmarking and for the
/// tests of both ways.
constexpr int kLeafListsFrom = 8;
inline int leafListsFrom(std::size_t m)
{
  static int const forced = roundOfKnob("EMST_LEAF_LIST_FROM");
  return leafWorkFrom(forced, kLeafListsFrom, m);
}

/// Whether round `round` of a run of m distinct points, which lists its searchers, lists them
/// leaf by leaf: only where no neighbour lists are (answerFromList is a pass over every point
/// anyway).
inline bool listsSearchersByLeaf(int round, std::size_t m, int neighbours)
{
  int const from = leafListsFrom(m);
  return neighbours == 0 && from > 0 && round >= from;
}

/// Whether round `round` takes its components' minima a thread a leaf (ForEachPointOfLeaf over
/// ComponentMinimumEdge): from round six of the rounds that list their searchers (whose points
/// mostly hold no answer: a load each), from kLeafWorkFrom points. LabelLeaves a thread a leaf
/// was slower: its threads read every record of their leaf one after the other (H200,
/// RESULTS.md, 2026-12-03). Knob EMST_LEAF_MINIMA_FROM, the round (2 to 60; 0: never) at any
/// size, on any backend whose rounds list.
constexpr int kLeafMinimaFrom = 6;
inline bool minimaByLeaf(int round, std::size_t m, int dim, bool backendLists)
{
  static int const forced = roundOfKnob("EMST_LEAF_MINIMA_FROM");
  int const from = leafWorkFrom(forced, kLeafMinimaFrom, m);
  return from > 0 && round >= from && listsSearchers(round, m, dim, backendLists);
}

/// A pass of a thread a point (f(k)) as a pass of a thread a leaf over its points in order.
template <class F>
struct ForEachPointOfLeaf
{
  F perPoint;
  const Index* firstPointOfLeaf; ///< [L + 1]
  EMST_HD void operator()(std::size_t leaf) const
  {
    Index const end = firstPointOfLeaf[leaf + 1];
    for (Index k = firstPointOfLeaf[leaf]; k < end; ++k)
    {
      perPoint(k);
    }
  }
};

/// ListSearchers by leaf, one thread a leaf: the same points, listed in the same order within a
/// block. A point's bound only grows (each is a lower bound of the keys of its foreign points,
/// which only recede), so a least bound of a leaf's points, once taken, stays one: a leaf of
/// one component whose least bound is at or past the component's holds no searcher, and its
/// points are not read. A leaf that is read takes its points' least bound again (the bounds
/// its searchers raise after it are taken when it is next read).
template <class Metric>
struct ListLeafSearchers
{
  ListSearchers<Metric> list;
  LabelArrays labels;
  float* leastBoundOfLeaf; ///< [L] at most every bound of the leaf, unless `fresh`
  bool fresh;              ///< the first round listed so: every leaf is read, no bound yet
  static constexpr bool kTakesSlotsTogether = true; ///< the list's slots

  EMST_HD void operator()(std::size_t index, bool active) const
  {
    SearchContext<Metric> const& ctx = list.ctx;
    Index const leaf = static_cast<Index>(index);
    Index first = 0;
    Index end = 0;
    Index comp = kMixed;
    std::uint32_t searchers = 0;
    if (active)
    {
      comp = labels.ofLeaf(leaf);
      float const least = fresh ? 0.0f : leastBoundOfLeaf[leaf];
      // The radius needsSearch compares with (a leaf of one component).
      float const radius = comp == kMixed ? 0.0f : bitsFloat(ctx.boundOfComp[comp]);
      if (fresh || comp == kMixed || floatBelow(least) < radius)
      {
        first = ctx.cells.firstPointOfLeaf[leaf];
        end = ctx.cells.firstPointOfLeaf[leaf + 1];
        float newLeast = floatInfinity();
        for (Index k = first; k < end; ++k)
        {
          float r = 0.0f;
          searchers += this->searches(k, comp, r) ? 1u : 0u;
          newLeast = fminf(newLeast, ctx.candidates.boundOfPoint[k]);
        }
        leastBoundOfLeaf[leaf] = newLeast;
      }
    }
    std::uint32_t slot = takeSlotsTogether(list.count, searchers);
    for (Index k = first; searchers > 0 && k < end; ++k)
    {
      float r = 0.0f;
      if (this->searches(k, comp, r))
      {
        list.list[slot++] = k;
        --searchers;
      }
    }
  }

  /// ListSearchers' test for point k of a leaf of component `comp` (kMixed: its own).
  EMST_HD EMST_FORCEINLINE bool searches(Index k, Index comp, float& radius) const
  {
    SearchContext<Metric> const& ctx = list.ctx;
    return ctx.needsSearch(k, comp == kMixed ? ctx.points.componentOf(k) : comp, radius);
  }
};

/// The search of the index-th listed point (Exec::forEachListed: index below the list's count).
template <class Metric>
struct FindNearestForeignOfList
{
  static constexpr int kRegisters = FindNearestForeign<Metric>::kRegisters;

  FindNearestForeign<Metric> find;
  const Index* list; ///< [count]
  EMST_HD void operator()(std::size_t index) const { find(list[index]); }
};

/// The answers' start, one pass: no answer (kNone), bound 0, next bound 0 (where kept).
struct StartAnswers
{
  Index* candidateOfPoint; ///< [m]
  float* boundOfPoint;     ///< [m]
  float* nextOfPoint;      ///< [m] or null
  EMST_HD void operator()(std::size_t p) const
  {
    candidateOfPoint[p] = kNone;
    boundOfPoint[p] = 0.0f;
    if (nextOfPoint)
    {
      nextOfPoint[p] = 0.0f;
    }
  }
};

/// The arrays that FindMin1 keeps across the rounds, owned.
template <class Exec>
struct SearchState
{
  /// `keepsNext`: whether to keep CandidateArrays::nextOfPoint (4 bytes a point); `ownsRuns`:
  /// whether the leaf runs have room of their own (runOfLeaf, 4 bytes a leaf);
  /// `ownsLeafBounds`: whether the leaves' least bounds have room of their own (where the
  /// arena's does not hold them: ComponentArena::leafBoundsAt).
  SearchState(Exec& exec, std::size_t m, std::size_t leaves, int listLength, bool keepsNext,
    bool ownsRuns, bool ownsLeafBounds)
    : labelOfLeaf(exec, leaves)
    , runOfLeaf(exec, ownsRuns ? leaves : 0)
    , leastBoundOfLeaf(exec, ownsLeafBounds ? leaves : 0)
    , candidateOfPoint(exec, m)
    , boundOfPoint(exec, m)
    , neighboursOfPoint(exec, m * static_cast<std::size_t>(listLength))
    , nextOfPoint(exec, keepsNext ? m : 0)
    , neighbours(listLength)
  {
    exec.forEach(m,
      StartAnswers{ this->candidateOfPoint.data(), this->boundOfPoint.data(),
        keepsNext ? this->nextOfPoint.data() : nullptr });
  }
  /// The leaf runs' own room, or null where they take the arena's (ComponentArena::leafRuns).
  Index* ownLeafRuns() const
  {
    return this->runOfLeaf.size() > 0 ? this->runOfLeaf.data() : nullptr;
  }
  CandidateArrays candidates() const
  {
    CandidateArrays candidates;
    candidates.candidateOfPoint = this->candidateOfPoint.data();
    candidates.boundOfPoint = this->boundOfPoint.data();
    candidates.neighboursOfPoint = this->neighbours > 0 ? this->neighboursOfPoint.data() : nullptr;
    candidates.neighbours = this->neighbours;
    candidates.nextOfPoint = this->nextOfPoint.size() > 0 ? this->nextOfPoint.data() : nullptr;
    return candidates;
  }

  Buffer<Index, Exec> labelOfLeaf; ///< [L]
  /// [L] or empty: the leaf runs (LabelArrays::runOfLeaf) apart from the searcher list's room,
  /// so that the rounds that list their searchers label the subtrees in the list's launch
  /// (ListAndLabelNodes)
  Buffer<Index, Exec> runOfLeaf;
  /// [L] or empty: at most every bound of the leaf's points, where searchers may be listed
  /// leaf by leaf (ListLeafSearchers) and the arena has no room for them
  Buffer<float, Exec> leastBoundOfLeaf;
  Buffer<Index, Exec> candidateOfPoint;  ///< [m], kNone at first
  Buffer<float, Exec> boundOfPoint;      ///< [m], 0 at first
  Buffer<Index, Exec> neighboursOfPoint; ///< [m * neighbours], written in round one
  Buffer<float, Exec> nextOfPoint;       ///< [m] or empty, 0 at first
  int neighbours;                        ///< list entries a point (0: no lists)
};

/// The labels the points keep from round `from` on (frozenLabelsFrom): the records' and the
/// leaves' stay that round's, and from the next round PointArrays::componentOfLabel (the table,
/// ComponentArena::frozenLabelTable) names their current components.
struct FrozenLabels
{
  int from = 0;                          ///< the round whose labels are kept; 0: none
  const std::uint32_t* labels = nullptr; ///< [1] that round's components (on the backend)
  std::size_t capacity = 0;              ///< at least *labels (host), known from round `from` on

  /// Whether round `round` reads the labels through the table.
  bool active(int round) const { return this->from > 0 && round > this->from; }
};

/// Start of a round after the one that froze the labels, in place of RelabelPoints (one thread
/// per point): one thread per frozen label and per leaf. The label's component becomes the new
/// label of its last one (in the round right after the freeze, the label is that component). A
/// leaf's label is its first point's label (which no longer changes) where its points are of one
/// component, else kMixed; components only merge, so a kMixed leaf may hold one component now:
/// it takes its first point's label again, and LabelLeaves marks it kMixed again where it
/// still holds several.
struct StartFrozenRound
{
  Index* componentOfLabel;     ///< [*labels]
  NewLabels newLabelOfComp;    ///< [previous k]
  const std::uint32_t* labels; ///< [1] FrozenLabels::labels
  bool first;                  ///< the round right after the freeze
  const PointRecord* recordOfPoint;
  const Index* firstPointOfLeaf; ///< [L + 1]
  Index* labelOfLeaf;            ///< [L]
  Index leaves;                  ///< L

  EMST_HD void operator()(std::size_t index) const
  {
    Index const i = static_cast<Index>(index);
    if (i < leaves && labelOfLeaf[i] == kMixed)
    {
      labelOfLeaf[i] = recordOfPoint[firstPointOfLeaf[i]].comp;
    }
    if (i < *labels)
    {
      componentOfLabel[i] = newLabelOfComp[first ? i : componentOfLabel[i]];
    }
  }
};

/// The labels a round after the first starts with: the points' new components (RelabelPoints,
/// or the frozen labels' table: StartFrozenRound), the leaves' (LabelLeaves, which also seeds the
/// bounds) and the subtrees' (LabelNodes). `search.points.componentOfLabel` is the table in
/// the rounds that read through it.
/// `nodesToo`: LabelNodes here too (else the round's ListAndLabelNodes does it).
template <class Exec, class Metric>
void labelComponents(Exec& exec, const SearchContext<Metric>& search, const LabelArrays& labels,
  const ComponentArena<Exec>& arena, int round, const std::uint32_t* components,
  const FrozenLabels& frozen, bool nodesToo)
{
  std::size_t const m = search.points.count;
  std::size_t const leaves = search.cells.leaves;
  if (frozen.active(round))
  {
    exec.forEachUnlessDone(std::max(frozen.capacity, leaves), components,
      StartFrozenRound{ arena.frozenLabelTable(frozen.from), arena.previousLabels(round),
        frozen.labels, round == frozen.from + 1, search.points.recordOfPoint,
        search.cells.firstPointOfLeaf, labels.labelOfLeaf, static_cast<Index>(leaves) });
  }
  else
  {
    exec.forEachUnlessDone(m, components,
      RelabelPoints{ search.points, labels.labelOfLeaf, arena.previousLabels(round) });
  }
  exec.forEachUnlessDone(m, components,
    LabelLeaves<Metric>{ search.points, labels.labelOfLeaf, search.boundOfComp, search.candidates,
      search.tolerance, search.metric, ComponentArena<Exec>::answersAreHooks(round) });
  if (leaves > 1)
  {
    exec.runningMaximum(leaves, components, LabelRunStart{ labels }, labels.runOfLeaf);
    if (nodesToo)
    {
      exec.forEachUnlessDone(
        leaves - 1, components, LabelNodes<Metric::kDim>{ labels, search.tree });
    }
  }
}

/// FindMin1 of round `round`, queued: from round two, relabel, label the leaves (seeding the
/// bounds) and the subtrees; search. (Round one's components are its points: no bounds, and
/// every subtree label is kMixed, as the hierarchy was built.)
/// `search` holds the run's arrays; the round's component arrays and flags are set here.
/// `listCount` counts the round's listed points (zero on entry; the arena's searchList holds
/// them: the searchers, or round one's deferred climbs). Nothing runs when *components (the count
/// before the round, on the backend) is one. `state`: the leaves' labels and, where they have
/// room of their own, their runs.
template <class Exec, class Metric>
void findMin1(Exec& exec, SearchContext<Metric> search, const SearchState<Exec>& state,
  const ComponentArena<Exec>& arena, int round, const std::uint32_t* components,
  std::uint32_t* listCount, const FrozenLabels& frozen)
{
  auto const range = exec.range("FindMin1");
  search.bottomUp = searchesBottomUp(round, search.points.count, Metric::kDim, Exec::kDefersClimbs);
  search.boundOfComp = arena.ofRound(round).boundOfComp;
  std::size_t const m = search.points.count;
  std::size_t const leaves = search.cells.leaves;
  bool const lists = listsSearchers(round, m, Metric::kDim, Exec::kListsSearchers);
  // The subtrees' labels with the list, where their leaf runs do not take the list's room.
  Index* const ownRuns = state.ownLeafRuns();
  bool const nodesWithList = lists && round > 1 && ownRuns && leaves > 1;
  LabelArrays const labels{ state.labelOfLeaf.data(), ownRuns ? ownRuns : arena.leafRuns(),
    search.points.componentOfLabel };
  if (round > 1)
  {
    labelComponents(exec, search, labels, arena, round, components, frozen, !nodesWithList);
  }
  if constexpr (Exec::kNeighbours > 0 && Metric::kNeighbourLists)
  {
    int const k = search.candidates.neighbours;
    if (round == 1 && k > 0)
    {
      if (k == 4)
      {
        exec.forEachSearch(m, components, FindNeighbourList<Metric, 4>{ search });
      }
      else if (k == 6)
      {
        exec.forEachSearch(m, components, FindNeighbourList<Metric, 6>{ search });
      }
      else
      {
        exec.forEachSearch(m, components, FindNeighbourList<Metric, 8>{ search });
      }
      return;
    }
  }
  Index* const searchList = arena.searchList(round);
  int const deferredLevels =
    round == 1 && search.bottomUp && leaves > 1 ? deferredClimbLevels(Exec::kDefersClimbs) : 0;
  // A listing round: the list's pass (with the subtrees' labels where their runs have room of
  // their own), then the listed searches.
  auto const listAndSearch = [&](const auto& list, std::size_t threads)
  {
    using List = std::decay_t<decltype(list)>;
    if (nodesWithList)
    {
      exec.forEachUnlessDone(threads, components,
        ListAndLabelNodes<List, Metric::kDim>{
          list, LabelNodes<Metric::kDim>{ labels, search.tree }, leaves - 1 });
    }
    else
    {
      exec.forEachUnlessDone(threads, components, list);
    }
    exec.forEachListed(m, listCount, components,
      FindNearestForeignOfList<Metric>{ FindNearestForeign<Metric>{ search }, searchList });
  };
  ListSearchers<Metric> const list{ search, searchList, listCount };
  bool const byLeaf =
    lists && round > 1 && listsSearchersByLeaf(round, m, search.candidates.neighbours);
  float* const leastBounds = !byLeaf    ? nullptr
    : state.leastBoundOfLeaf.size() > 0 ? state.leastBoundOfLeaf.data()
                                        : arena.leafBounds(leaves, leafListsFrom(m), frozen.from);
  if (leastBounds)
  {
    // The first round listed leaf by leaf reads every leaf: the least bounds are not there yet.
    bool const fresh = !listsSearchers(round - 1, m, Metric::kDim, Exec::kListsSearchers) ||
      !listsSearchersByLeaf(round - 1, m, search.candidates.neighbours);
    listAndSearch(ListLeafSearchers<Metric>{ list, labels, leastBounds, fresh }, leaves);
  }
  else if (lists)
  {
    listAndSearch(list, m);
  }
  else if (deferredLevels > 0)
  {
    exec.forEachSearch(m, components,
      FindNearestForeign<Metric, false>{ search, { deferredLevels, searchList, listCount } });
    exec.forEachListed(
      m, listCount, components, FinishDeferredSearch<Metric>{ search, searchList });
  }
  else if (search.candidates.nextOfPoint)
  {
    exec.forEachSearch(m, components, FindNearestForeign<Metric>{ search, {} });
  }
  else
  {
    // Without next bounds what the walk passes over bounds only the empty searches, which
    // do not pay for the tracking (lean layout, uniform 1e7 3D: round two 6.53 -> 6.98 ms).
    exec.forEachSearch(m, components, FindNearestForeign<Metric, false>{ search, {} });
  }
}

} // namespace detail
} // namespace emst
