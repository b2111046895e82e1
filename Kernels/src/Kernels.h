// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The per-index steps of the engine, written once: each functor is run for every index of its
// domain by Exec::forEach, as a CUDA kernel (CUDA backend) or an OpenMP loop (CPU backend).
// Array names say what they index: <value>Of<domain>, with their sizes in the comments.
//   n: input points, v: finite points, m: distinct finite points (Morton order),
//   L: leaf cells, k: components of the current round.
#pragma once

#include "base/Arithmetic.h"
#include "base/Atomics.h"
#include "base/Morton.h"
#include "phases/Hierarchy.h"

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace emst
{
namespace detail
{


/// Squared distance between two records, ((dx*dx + dy*dy) + dz*dz), each operation rounded.
template <int Dim>
EMST_HD EMST_FORCEINLINE float distance2(const float* a, const float* b)
{
  float const d0 = fsub(a[0], b[0]);
  float const d1 = fsub(a[1], b[1]);
  float s = fadd(fmul(d0, d0), fmul(d1, d1));
  if (Dim == 3)
  {
    float const d2 = fsub(a[2], b[2]);
    s = fadd(s, fmul(d2, d2));
  }
  return s;
}

/// Squared distance from q to the box [lo, hi]. Computed with the same rounded operations in the
/// same order as distance2, so it never exceeds distance2(q, p) for a point p inside the box
/// (rounding is monotone): pruning a box whose distance exceeds the current best is exact.
template <int Dim>
EMST_HD EMST_FORCEINLINE float boxDistance2(const float* q, const float* lo, const float* hi)
{
  float s = 0.0f;
  for (int a = 0; a < Dim; ++a)
  {
    float d = 0.0f;
    if (q[a] < lo[a])
    {
      d = fsub(lo[a], q[a]);
    }
    else if (q[a] > hi[a])
    {
      d = fsub(q[a], hi[a]);
    }
    float const dd = fmul(d, d);
    s = (a == 0) ? dd : fadd(s, dd);
  }
  return s;
}



// =============================================================================================
// Boruvka round (Qiao & Creput 2021, section 4: FindMin1, FindMin2, connect, compact).
//
// Per-point state kept across rounds:
//   candidateOfPoint[p]: the nearest point of another component found by p's last search, or
//     kNone. While it stays in another component it is still p's exact answer (the set of
//     foreign points only shrinks, and it was the nearest of a larger set).
//   candidateCompOfPoint[p]: that candidate's component, relabelled with everything else, so
//     that validity is checked without touching the candidate's record.
//   boundOfPoint[p]: a float b with p's future answers' keys > floatBelow(b): floatAtLeast of
//     the key of the last exact answer (then also an upper bound of that answer's key), or the
//     float above the radius within which the last search found nothing.
// =============================================================================================

/// Start of a round, one thread per leaf: moves the leaf's points to their new component labels
/// (from the last round's merge), seeds each component's upper bound with the answers that are
/// still valid and with Morton neighbours, and writes the leaf's label: its points' common
/// component, or kMixed.
template <int Dim>
struct RelabelLeaves
{
  PointRecord* recordOfPoint;         ///< [m]
  const Index* firstPointOfLeaf;      ///< [L+1]
  Index* labelOfLeaf;                 ///< [L]
  const Index* newLabelOfComp;        ///< [previous k], or null in the first round
  const Index* candidateOfPoint;      ///< [m]
  Index* candidateCompOfPoint;        ///< [m]
  const float* boundOfPoint;          ///< [m]
  std::uint32_t* boundOfComp;         ///< [k] float bits, +inf on entry; null in the first round
  Tolerance tolerance;

  /// `key` (a float) is at least the key of an edge leaving `comp`.
  EMST_HD EMST_FORCEINLINE void tighten(Index comp, float key) const
  {
    std::uint32_t const bits = floatBits(key);
    if (bits < boundOfComp[comp]) // read first: most need no atomic once the bound is low
    {
      atomicMinU32(&boundOfComp[comp], bits);
    }
  }

  EMST_HD void operator()(std::size_t leaf) const
  {
    Index const first = firstPointOfLeaf[leaf];
    Index const end = firstPointOfLeaf[leaf + 1];
    Index label = kNone;
    PointRecord previous{};
    for (Index k = first; k < end; ++k)
    {
      PointRecord r = recordOfPoint[k];
      if (newLabelOfComp)
      {
        r.comp = newLabelOfComp[r.comp];
        recordOfPoint[k].comp = r.comp;
        if (candidateOfPoint[k] != kNone)
        {
          Index const other = newLabelOfComp[candidateCompOfPoint[k]];
          candidateCompOfPoint[k] = other;
          if (other != r.comp)
          {
            this->tighten(r.comp, boundOfPoint[k]); // still a valid edge of this component
          }
        }
        // Neighbours on the Morton curve in different components: an edge, hence an upper
        // bound for both (Prokopenko et al. 2022, 3.2). It matters in round two, when no
        // answer of round one is still valid.
        if (k > first && previous.comp != r.comp)
        {
          float const key = tolerance.keyAtMost(distance2<Dim>(previous.x, r.x));
          this->tighten(r.comp, key);
          this->tighten(previous.comp, key);
        }
      }
      label = (k == first || label == r.comp) ? r.comp : kMixed;
      previous = r;
    }
    labelOfLeaf[leaf] = label;
  }
};

/// Run starts of the leaf labels: j where leaf j's label differs from leaf j-1's, else 0. Their
/// running maximum is the first leaf of the run holding j, so a range of leaves has one label
/// exactly when its last leaf's run starts at or before its first.
struct LabelRunStart
{
  const Index* labelOfLeaf;  ///< [L]
  EMST_HD Index operator()(std::size_t j) const
  {
    return j == 0 || labelOfLeaf[j] != labelOfLeaf[j - 1] ? static_cast<Index>(j) : 0u;
  }
};

/// Component labels of subtrees, for the search to skip subtrees of its own component whole
/// (Prokopenko et al. 2022, 3.2): one thread per node, O(1) each, no bottom-up chain.
template <int Dim>
struct LabelNodes
{
  const Index* labelOfLeaf;     ///< [L]
  const Index* runOfLeaf;       ///< [L] running maximum of LabelRunStart
  const LeafRange* rangeOfNode; ///< [L-1]
  TreeNode<Dim>* nodes;         ///< [L-1]
  EMST_HD void operator()(std::size_t node) const
  {
    for (int s = 0; s < 2; ++s)
    {
      Index const child = nodes[node].child[s];
      Index label;
      if (child & kLeafBit)
      {
        label = labelOfLeaf[child & ~kLeafBit];
      }
      else
      {
        LeafRange const r = rangeOfNode[child];
        label = runOfLeaf[r.last] <= r.first ? labelOfLeaf[r.first] : kMixed;
      }
      nodes[node].label[s] = label;
    }
  }
};

/// Best candidate of one query point under the order (key, input index). Its exact key is
/// computed only when a comparison needs it: a candidate whose float distance is surely below
/// the best's key replaces it unseen. `limit` bounds the float distance (point or box) of
/// anything that could still win (farther is pruned), `sure` is the float distance below which
/// a candidate surely wins.
struct Candidate
{
  double key;   ///< exact key; negative while unknown (the window then comes from its float distance)
  float limit;
  float sure;
  Index point;
  Index input;
  Index comp;
};

/// What a search reads and writes (FindNearestForeign's): FindMin1 (the nearest point of another
/// component under the total order (key, smaller input index of the two ends, larger one); for
/// one query point that order is (key, input index of the candidate)) fused with the first
/// minimum of FindMin2. The float frame prunes; every candidate that the float distances cannot
/// rule out is decided by its exact key (Tolerance).
template <class T, int Dim>
struct SearchContext
{
  InputPoints<T, Dim> exactOfPoint;  ///< [m] input coordinates of the distinct points, in order
  double frameScale;                 ///< Frame::scale, for the exact keys
  Tolerance tolerance;
  const PointRecord* recordOfPoint;  ///< [m]
  const Index* inputOfPoint;         ///< [m] input index of each distinct point
  const TreeNode<Dim>* nodes;        ///< [L-1]
  const std::uint64_t* cellOfNode;   ///< [L-1]
  const Index* parentOfNode;         ///< [L-1]
  const Index* parentOfLeaf;         ///< [L]
  const Index* leafOfPoint;          ///< [m]
  const Index* firstPointOfLeaf;     ///< [L+1]
  Index leaves;
  float latticeScale;                ///< Quantizer::scale: lattice cells per unit
  bool bottomUp;                     ///< start at the point's cell (else at the root)
  Index* candidateOfPoint;           ///< [m]
  Index* candidateCompOfPoint;       ///< [m]
  float* boundOfPoint;               ///< [m]
  std::uint32_t* boundOfComp;        ///< [k] float bits; null in the first round (no bounds)
  std::uint64_t* firstKeyOfComp;     ///< [k] double bits of the least key; null in round one

  EMST_HD EMST_FORCEINLINE double keyOf(Index a, Index b) const
  {
    double x[3], y[3];
    exactOfPoint.load(a, x);
    exactOfPoint.load(b, y);
    return exactKey<Dim>(x, y, frameScale);
  }

  EMST_HD EMST_FORCEINLINE void offer(Index comp, double key) const
  {
    if (firstKeyOfComp)
    {
      std::uint64_t const bits = doubleBits(key); // keys are >= 0: bits order like the keys
      if (bits < firstKeyOfComp[comp])
      {
        atomicMinU64(&firstKeyOfComp[comp], bits);
      }
    }
  }

  /// True when p must search; otherwise p's state is already final for this round.
  EMST_HD EMST_FORCEINLINE bool needsSearch(Index p, Index comp, float& radius) const
  {
    radius = boundOfComp ? bitsFloat(boundOfComp[comp]) : floatInfinity();
    float const below = floatBelow(boundOfPoint[p]); // p's answers have keys above it
    Index const previous = candidateOfPoint[p];
    if (previous != kNone && candidateCompOfPoint[p] != comp)
    {
      // Still the exact answer. Only an answer that can reach the component's bound can be its
      // minimum edge: the others need not even compute their key.
      if (below < radius)
      {
        this->offer(comp, this->keyOf(p, previous));
      }
      return false;
    }
    if (below >= radius)
    {
      // Every foreign point is farther than the component's current best edge: this point can
      // neither win nor tie. Its bound stays valid for later rounds.
      candidateOfPoint[p] = kNone;
      return false;
    }
    return true;
  }

  EMST_HD EMST_FORCEINLINE void finish(Index p, Index comp, Candidate& best, float radius) const
  {
    if (best.point == kNone)
    {
      candidateOfPoint[p] = kNone;
      boundOfPoint[p] = floatAbove(radius); // no foreign key <= radius
      return;
    }
    candidateOfPoint[p] = best.point;
    candidateCompOfPoint[p] = best.comp;
    this->bestKey(p, best);
    float const bound = floatAtLeast(best.key);
    boundOfPoint[p] = bound;
    if (boundOfComp)
    {
      std::uint32_t const bits = floatBits(bound);
      if (bits < boundOfComp[comp])
      {
        atomicMinU32(&boundOfComp[comp], bits);
      }
    }
    this->offer(comp, best.key);
  }

  /// Start at the component's bound: candidates whose key is exactly that are still accepted,
  /// so ties with the edge that set the bound are decided by the index order.
  EMST_HD EMST_FORCEINLINE Candidate start(float radius) const
  {
    Candidate best{static_cast<double>(radius), 0.0f, 0.0f, kNone, kNone, kNone};
    tolerance.windowOfKey(best.key, best.limit, best.sure);
    return best;
  }

  /// The best's exact key (computed once, when first needed).
  EMST_HD EMST_FORCEINLINE double bestKey(Index p, Candidate& best) const
  {
    if (best.key < 0.0)
    {
      best.key = this->keyOf(p, best.point);
    }
    return best.key;
  }

  /// Query point p (record coordinates q) against candidate k. The exact coordinates are read
  /// only here, when the float distances cannot decide (rare), not held through the search.
  EMST_HD EMST_FORCEINLINE void consider(const PointRecord& r, Index k, const float* q, Index p,
    Index comp, Candidate& best) const
  {
    if (r.comp == comp)
    {
      return;
    }
    float const d2 = distance2<Dim>(q, r.x);
    if (d2 > best.limit)
    {
      return; // its key exceeds the best's
    }
    Index const in = inputOfPoint[k];
    if (d2 < best.sure)
    {
      // Surely a smaller key: take it without computing either key.
      best = Candidate{-1.0, 0.0f, 0.0f, k, in, r.comp};
      tolerance.windowOfDistance(d2, best.limit, best.sure);
      return;
    }
    double const key = this->keyOf(p, k);
    double const current = best.point == kNone ? best.key : this->bestKey(p, best);
    if (key < current || (key == current && in < best.input))
    {
      best = Candidate{key, 0.0f, 0.0f, k, in, r.comp};
      tolerance.windowOfKey(key, best.limit, best.sure);
    }
  }
};

/// FindMin1, one point per thread. Depth-first (nearer child first), pruning subtrees of the
/// point's own component and boxes beyond the current best, either from the root (top-down) or
/// bottom-up: the point's own cell first, then up the radix tree, searching each sibling
/// subtree, until the ball of the current best lies inside the Morton cell of the subtree
/// searched so far: every point outside it is then farther.
template <class T, int Dim>
struct FindNearestForeign
{
  SearchContext<T, Dim> ctx;

  EMST_HD EMST_FORCEINLINE void scanLeaf(Index leaf, const float* q, Index p, Index comp,
    Candidate& best) const
  {
    Index const end = ctx.firstPointOfLeaf[leaf + 1];
    for (Index k = ctx.firstPointOfLeaf[leaf]; k < end; ++k)
    {
      ctx.consider(ctx.recordOfPoint[k], k, q, p, comp, best);
    }
  }

  /// True when every point outside the cell is farther from q than sqrt(limit). In lattice
  /// units, in double: a point outside has a lattice coordinate out of [lo, hi), and its
  /// coordinate differs from lattice*scale by the float rounding of that product, at most
  /// 2^-24 relative; the 2^-23 factors cover it twice over. The cube's outer faces need no test.
  EMST_HD bool ballInside(std::uint64_t cell, const float* q, float limit) const
  {
    std::uint64_t lo[Dim], hi[Dim];
    MortonCell<Dim>::decode(cell, lo, hi);
    double const scale = ctx.latticeScale;
    double const radius = sqrt(static_cast<double>(limit)) * scale * (1.0 + 0x1p-30);
    double const top = static_cast<double>(std::uint64_t(1) << MortonCell<Dim>::kBits);
    for (int a = 0; a < Dim; ++a)
    {
      double const u = static_cast<double>(q[a]) * scale;
      double const l = static_cast<double>(lo[a]);
      double const h = static_cast<double>(hi[a]);
      if (lo[a] > 0 && !(u - l * (1.0 + 0x1p-23) > radius))
      {
        return false;
      }
      if (h < top && !(h * (1.0 - 0x1p-23) - u > radius))
      {
        return false;
      }
    }
    return true;
  }

  /// Depth-first search of the subtree `root` (a node, or a leaf with kLeafBit).
  EMST_HD EMST_FORCEINLINE void searchSubtree(Index root, const float* q, Index p, Index comp,
    Candidate& best) const
  {
    // The radix tree over <= 64-bit keys is at most 64 deep: the stack cannot overflow.
    Index stackNode[64];
    float stackDistance[64];
    int top = 0;
    Index next = root;
    for (;;)
    {
      if (next & kLeafBit)
      {
        this->scanLeaf(next & ~kLeafBit, q, p, comp, best);
        next = kNone;
      }
      else
      {
        TreeNode<Dim> const n = ctx.nodes[next];
        float const d0 =
          n.label[0] != comp ? boxDistance2<Dim>(q, n.lo[0], n.hi[0]) : floatInfinity();
        float const d1 =
          n.label[1] != comp ? boxDistance2<Dim>(q, n.lo[1], n.hi[1]) : floatInfinity();
        bool const go0 = d0 <= best.limit;
        bool const go1 = d1 <= best.limit;
        if (go0 && go1)
        {
          bool const nearFirst = d0 <= d1;
          stackNode[top] = nearFirst ? n.child[1] : n.child[0];
          stackDistance[top] = nearFirst ? d1 : d0;
          ++top;
          next = nearFirst ? n.child[0] : n.child[1];
        }
        else
        {
          next = go0 ? n.child[0] : (go1 ? n.child[1] : kNone);
        }
      }
      while (next == kNone && top > 0)
      {
        --top;
        next = stackDistance[top] <= best.limit ? stackNode[top] : kNone;
      }
      if (next == kNone)
      {
        return;
      }
    }
  }

  EMST_HD void operator()(std::size_t index) const
  {
    Index const p = static_cast<Index>(index);
    PointRecord const self = ctx.recordOfPoint[p];
    Index const comp = self.comp;
    float radius = 0.0f;
    if (!ctx.needsSearch(p, comp, radius))
    {
      return;
    }
    Candidate best = ctx.start(radius);
    if (!ctx.bottomUp)
    {
      this->searchSubtree(ctx.leaves > 1 ? 0u : kLeafBit, self.x, p, comp, best);
      ctx.finish(p, comp, best, radius);
      return;
    }
    Index const leaf = ctx.leafOfPoint[p];
    this->scanLeaf(leaf, self.x, p, comp, best);
    if (ctx.leaves > 1)
    {
      for (Index up = ctx.parentOfLeaf[leaf];;)
      {
        Index const node = up & ~kSlotBit;
        int const sibling = (up & kSlotBit) ? 0 : 1;
        TreeNode<Dim> const& n = ctx.nodes[node];
        if (n.label[sibling] != comp &&
          boxDistance2<Dim>(self.x, n.lo[sibling], n.hi[sibling]) <= best.limit)
        {
          this->searchSubtree(n.child[sibling], self.x, p, comp, best);
        }
        up = ctx.parentOfNode[node];
        if (up == kNone || this->ballInside(ctx.cellOfNode[node], self.x, best.limit))
        {
          break;
        }
      }
    }
    ctx.finish(p, comp, best, radius);
  }
};

/// FindMin2 after the search, which left each component's least key in firstKeyOfComp. Over
/// the points whose answer has that key, the first pass takes the least
/// (smaller input index << 32 | larger one), which names the component's minimum edge under
/// the total order, and each such point writes itself as its component's winner: right when it
/// is the only one, which is the rule (a second one sets the round's tie flag). Only then does
/// the second pass run, and rewrite each winner as the point at the end of the least pair.
/// A point's float bound rules most points out before any key is computed.
template <class T, int Dim>
struct ComponentMinimumEdge
{
  InputPoints<T, Dim> exactOfPoint;     ///< [m]
  double frameScale;
  const PointRecord* recordOfPoint;     ///< [m]
  const Index* inputOfPoint;            ///< [m]
  const Index* candidateOfPoint;        ///< [m]
  const float* boundOfPoint;            ///< [m]
  const std::uint64_t* firstKeyOfComp;  ///< [k]
  std::uint64_t* secondKeyOfComp;       ///< [k], kNoKey on entry of the first pass
  Index* winnerOfComp;                  ///< [k]
  std::uint32_t* tie;                   ///< [1] the round's tie flag, 0 on entry
  bool settleTies;                      ///< the second pass
  EMST_HD void operator()(std::size_t p) const
  {
    if (settleTies && loadShared(tie) == 0u)
    {
      return;
    }
    Index const q = candidateOfPoint[p];
    if (q == kNone)
    {
      return;
    }
    Index const c = recordOfPoint[p].comp;
    std::uint64_t const first = firstKeyOfComp[c];
    double key;
    std::memcpy(&key, &first, sizeof key);
    if (floatBits(floatAtLeast(key)) != floatBits(boundOfPoint[p]))
    {
      return; // p's key is another: its bound would be another float
    }
    Index const a = inputOfPoint[p];
    Index const b = inputOfPoint[q];
    double x[3], y[3];
    exactOfPoint.load(p, x);
    exactOfPoint.load(q, y);
    if (doubleBits(exactKey<Dim>(x, y, frameScale)) != first)
    {
      return;
    }
    std::uint64_t const pair = (static_cast<std::uint64_t>(a < b ? a : b) << 32) | (a < b ? b : a);
    if (!settleTies)
    {
      if (atomicMinU64Old(&secondKeyOfComp[c], pair) != kNoKey)
      {
        storeShared(tie, 1u);
      }
      winnerOfComp[c] = static_cast<Index>(p);
    }
    else if (pair == secondKeyOfComp[c])
    {
      winnerOfComp[c] = static_cast<Index>(p); // one point: the edge has one end in c
    }
  }
};

/// Per-component arrays of a round. The key and bound arrays are null in the first round, when
/// every component is one point and its point's answer is its minimum edge.
struct ComponentArrays
{
  std::uint64_t* firstKeyOfComp;   ///< [k]
  std::uint64_t* secondKeyOfComp;  ///< [k]
  std::uint32_t* boundOfComp;      ///< [k]
  Index* hookOfComp;               ///< [k]
  Index* rootOfComp;               ///< [k], also the winners until FindRoots overwrites them
  Index* newIdOfComp;              ///< [k] dense new label, written for roots only
  Index* newLabelOfComp;           ///< [k] new label of every component

  /// The point of component c whose edge is c's minimum outgoing edge.
  EMST_HD Index winner(Index c) const
  {
    return secondKeyOfComp ? rootOfComp[c] : c;
  }
};

/// Resets the per-component minima and bounds for a round (the later rounds reset their own
/// entries in RootAndEmit, once read).
struct ResetComponents
{
  ComponentArrays comps;
  EMST_HD void operator()(std::size_t c) const
  {
    comps.firstKeyOfComp[c] = kNoKey;
    comps.secondKeyOfComp[c] = kNoKey;
    comps.boundOfComp[c] = floatBits(floatInfinity());
  }
};

/// Connect: every component hooks onto the component at the other end of its minimum edge.
struct HookComponents
{
  const Index* candidateCompOfPoint;  ///< [m]
  ComponentArrays comps;
  EMST_HD void operator()(std::size_t c) const
  {
    comps.hookOfComp[c] = candidateCompOfPoint[comps.winner(static_cast<Index>(c))];
  }
};

/// With a strict total order the hooks form a forest plus exactly one 2-cycle per tree (two
/// components that chose the same edge). The smaller of the pair becomes the root; every other
/// component adds its edge. Race-free: only the smaller member of a pair writes (its own entry),
/// and the value it reads (the larger member's hook) is never written in this step.
/// Then clears this component's minima and bound for the next round (labels there are < k).
struct RootAndEmit
{
  const Index* candidateOfPoint;  ///< [m]
  ComponentArrays comps;
  Index* edgePoints;              ///< [2*(m-1)]: (winner, candidate) pairs, in any order
  std::uint32_t* edgeCount;       ///< [1]
  std::uint32_t edgeCapacity;     ///< m-1: more edges would be a bug, caught by the count check
  EMST_HD void operator()(std::size_t index) const
  {
    Index const c = static_cast<Index>(index);
    Index const t = comps.hookOfComp[c];
    Index const p = comps.winner(c);
    if (comps.secondKeyOfComp)
    {
      comps.firstKeyOfComp[c] = kNoKey;
      comps.secondKeyOfComp[c] = kNoKey;
      comps.boundOfComp[c] = floatBits(floatInfinity());
    }
    if (c < t && loadShared(&comps.hookOfComp[t]) == c)
    {
      storeShared(&comps.hookOfComp[c], c);
      return;
    }
    std::uint32_t const slot = takeSlot(edgeCount);
    if (slot < edgeCapacity)
    {
      edgePoints[2 * slot] = p;
      edgePoints[2 * slot + 1] = candidateOfPoint[p];
    }
  }
};

/// Union-find by path halving, concurrent: an entry is only ever replaced by one of its
/// ancestors, so every thread still reaches the same root; no component list is walked.
/// Each root takes the next dense label; which root gets which label may vary from run to run,
/// but labels only name components: the tree does not depend on them.
struct FindRoots
{
  ComponentArrays comps;
  std::uint32_t* rootCount;  ///< [1], zero on entry
  EMST_HD void operator()(std::size_t index) const
  {
    Index x = static_cast<Index>(index);
    for (;;)
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
    comps.rootOfComp[index] = x;
    if (x == index)
    {
      comps.newIdOfComp[index] = takeSlot(rootCount);
    }
  }
};

/// Compact: the new dense label of every old component.
struct NewLabelOfComponent
{
  ComponentArrays comps;
  EMST_HD void operator()(std::size_t c) const
  {
    comps.newLabelOfComp[c] = comps.newIdOfComp[comps.rootOfComp[c]];
  }
};

} // namespace detail
} // namespace emst
