// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Phase 6, the component merge (Qiao & Créput 2021, section 1 and 4.3-4.4): FindMin2 picks
// each component's minimum outgoing edge from its points' answers, connect hooks every
// component onto the component at the other end and emits the edges, compact finds the roots of
// the hook forest and gives the merged components dense new labels.
// Sizes: m distinct points, k components of the current round.
#pragma once

#include "base/Arithmetic.h"
#include "base/Atomics.h"
#include "phases/Components.h"
#include "phases/NearestForeign.h"

#include <cstddef>
#include <cstdint>

namespace emst
{
namespace detail
{

/// The tree's edges as the rounds emit them.
struct TreeEdges
{
  Index* edgePoints;        ///< [2(m-1)]: (winner, candidate) pairs, in any order
  std::uint32_t* edgeCount; ///< [1] edges emitted so far
  std::uint32_t capacity;   ///< m-1: more edges would be a bug, caught by the count check
};

/// The index pair of p's answer, (smaller input index << 32 | larger one): with the key, it
/// orders the edges totally.
EMST_HD EMST_FORCEINLINE std::uint64_t answerPair(
  const PointArrays& points, const CandidateArrays& candidates, Index p)
{
  Index const a = points.inputOfPoint[p];
  Index const b = points.inputOfPoint[candidates.candidateOfPoint[p]];
  return (static_cast<std::uint64_t>(a < b ? a : b) << 32) | (a < b ? b : a);
}

/// FindMin2 after the searches, which left each component's bound at the least float at least
/// the key of its minimum edge (ComponentArrays::boundOfComp): over the points whose answer's
/// float bound is that one (the contenders), the component's winner becomes the one whose
/// answer comes first under (key, index pair), which names the component's minimum edge under
/// the total order. A compare-and-swap minimum whose order is read through the points (their
/// answers, bounds and labels do not change in this pass); two points of one component never
/// share a pair (the pair's end in the component would be both). The winner slots are not
/// cleared first: they hold whatever the round left there (its list, its leaf runs), and a
/// value that does not name a contender of the slot's component counts as empty; one that does
/// is a contender, which takes part anyway, so the minimum is the same. Mostly one point of a
/// component has that float bound, and it takes the slot without computing any key; the exact
/// keys are computed only to order two answers whose keys round to one float.
template <class Metric>
struct ComponentMinimumEdge
{
  Metric metric; ///< over the distinct points
  PointArrays points;
  CandidateArrays candidates;
  const std::uint32_t* boundOfComp; ///< [k]
  Index* winnerOfComp;              ///< [k] ComponentArrays::rootOfComp, any values on entry

  /// Whether point p contends for component c's minimum edge: p is a point of c with an answer
  /// whose float bound is c's.
  EMST_HD EMST_FORCEINLINE bool contends(Index p, Index c) const
  {
    return p < points.count && candidates.candidateOfPoint[p] != kNone &&
      points.componentOf(p) == c && floatBits(candidates.boundOfPoint[p]) == boundOfComp[c];
  }

  /// Whether p's answer comes before seen's under (exact key, index pair); `key` keeps p's key
  /// once computed (negative before).
  EMST_HD EMST_FORCEINLINE bool before(Index p, double& key, Index seen) const
  {
    if (key < 0.0)
    {
      key = metric.key(p, candidates.candidateOfPoint[p]);
    }
    double const seenKey = metric.key(seen, candidates.candidateOfPoint[seen]);
    return key < seenKey ||
      (key == seenKey && answerPair(points, candidates, p) < answerPair(points, candidates, seen));
  }

  EMST_HD void operator()(std::size_t index) const
  {
    Index const p = static_cast<Index>(index);
    if (candidates.candidateOfPoint[p] == kNone)
    {
      return;
    }
    Index const c = points.componentOf(p);
    if (floatBits(candidates.boundOfPoint[p]) != boundOfComp[c])
    {
      return; // p's key is larger: its float bound is another
    }
    double key = -1.0; // keys are >= 0: computed when first needed
    Index seen = loadShared(&winnerOfComp[c]);
    while (!this->contends(seen, c) || this->before(p, key, seen))
    {
      Index const was = atomicCasU32(&winnerOfComp[c], seen, p);
      if (was == seen)
      {
        return;
      }
      seen = was;
    }
  }
};

/// Connect: every component hooks onto the component at the other end of its minimum edge.
/// With a strict total order the hooks form a forest plus exactly one 2-cycle per tree (two
/// components that chose the same edge). The smaller of the pair becomes the root; every other
/// component adds its edge. One pass: each component computes its own hook and, where it is the
/// smaller of a possible pair, the other's (from the winners and the points' labels, which do not
/// change here), and writes only its own entry. In round one the hooks are the answers already
/// (hooksAreAnswers: every label is its point's index); a root still writes itself there, and
/// the only reader of that entry is a smaller component hooked onto it, not its partner, which
/// learns from either value that it is not a root.
/// Then clears this component's bound for the next round (labels there are < k).
struct HookAndEmit
{
  PointArrays points;
  CandidateArrays candidates;
  ComponentArrays comps;
  TreeEdges edges;
  bool hooksAreAnswers;

  /// The component at the other end of c's minimum edge.
  EMST_HD EMST_FORCEINLINE Index hookOf(Index c) const
  {
    return hooksAreAnswers ? loadShared(&comps.hookOfComp[c])
                           : points.componentOf(candidates.candidateOfPoint[comps.winner(c)]);
  }

  /// Hooks c (or makes it the root of its pair) and clears its bound; true when c emits its
  /// minimum edge.
  EMST_HD EMST_FORCEINLINE bool hook(Index c) const
  {
    Index const t = this->hookOf(c);
    if (comps.boundOfComp)
    {
      comps.reset(c);
    }
    if (c < t && this->hookOf(t) == c)
    {
      storeShared(&comps.hookOfComp[c], c);
      return false;
    }
    if (!hooksAreAnswers)
    {
      comps.hookOfComp[c] = t;
    }
    return true;
  }

  static constexpr bool kTakesSlotsTogether = true; ///< the edges' slots

  EMST_HD void operator()(std::size_t index, bool active) const
  {
    Index const c = static_cast<Index>(index);
    bool const emits = active && this->hook(c);
    std::uint32_t const slot = takeSlotTogether(edges.edgeCount, emits);
    if (emits && slot < edges.capacity)
    {
      Index const p = comps.winner(c); // the winners are not written in this pass
      // 64-bit: 2 * slot passes 2^32 from 2^31 + 1 points on.
      std::size_t const at = 2 * static_cast<std::size_t>(slot);
      edges.edgePoints[at] = p;
      edges.edgePoints[at + 1] = candidates.candidateOfPoint[p];
    }
  }
};

/// Union-find by path halving, concurrent: an entry is only ever replaced by one of its
/// ancestors, so every thread still reaches the same root; no component list is walked.
/// Each root takes the next dense label, written in its own root entry (a root is known by its
/// hook); which root gets which label may vary from run to run, but labels only name
/// components: the tree does not depend on them.
struct FindRoots
{
  ComponentArrays comps;
  std::uint32_t* rootCount;                         ///< [1], zero on entry
  static constexpr bool kTakesSlotsTogether = true; ///< the roots' labels

  EMST_HD void operator()(std::size_t index, bool active) const
  {
    Index x = static_cast<Index>(index);
    while (active)
    {
      Index const parent = loadShared(&comps.hookOfComp[x]);
      if (parent == x)
      {
        break;
      }
      Index const grand = loadShared(&comps.hookOfComp[parent]);
      if (grand != parent)
      {
        storeShared(&comps.hookOfComp[x], grand);
      }
      x = grand;
    }
    bool const isRoot = active && x == index;
    std::uint32_t const label = takeSlotTogether(rootCount, isRoot);
    if (active)
    {
      comps.rootOfComp[index] = isRoot ? label : x;
    }
  }
};

/// FindMin2 of round `round`, after round one (where each component is one point, whose answer
/// is its minimum edge): one pass over the points (a thread a point, or a leaf: minimaByLeaf).
template <class Exec, class Metric>
void findMin2(Exec& exec, const SearchContext<Metric>& search, const ComponentArrays& comps,
  int round, const std::uint32_t* components)
{
  auto const range = exec.range("FindMin2");
  ComponentMinimumEdge<Metric> const minimum{ search.metric, search.points, search.candidates,
    comps.boundOfComp, comps.rootOfComp };
  if (minimaByLeaf(round, search.points.count, Metric::kDim, Exec::kListsSearchers))
  {
    exec.forEachUnlessDone(search.cells.leaves, components,
      ForEachPointOfLeaf<ComponentMinimumEdge<Metric>>{ minimum, search.cells.firstPointOfLeaf });
  }
  else
  {
    exec.forEachUnlessDone(search.points.count, components, minimum);
  }
}

/// Connect: hooks and edges. `known` bounds the count *components (on the backend).
/// hooksAreAnswers (ComponentArena::hooksAreAnswers): the hooks are already written.
template <class Exec>
void connect(Exec& exec, const PointArrays& points, const CandidateArrays& candidates,
  const ComponentArrays& comps, const TreeEdges& edges, std::size_t known,
  const std::uint32_t* components, bool hooksAreAnswers)
{
  auto const range = exec.range("connect");
  exec.forEachComponent(
    known, components, HookAndEmit{ points, candidates, comps, edges, hooksAreAnswers });
}

/// Compact: roots and their dense labels, from which the next round reads every component's
/// new label (NewLabels); *componentsAfter (zero on entry) receives the new count.
template <class Exec>
void compact(Exec& exec, const ComponentArrays& comps, std::size_t known,
  const std::uint32_t* components, std::uint32_t* componentsAfter)
{
  auto const range = exec.range("compact");
  exec.forEachComponent(known, components, FindRoots{ comps, componentsAfter });
}

} // namespace detail
} // namespace emst
