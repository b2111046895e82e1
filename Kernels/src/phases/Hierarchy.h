// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Phase 4, hierarchy: a binary radix tree over the leaf cells' Morton keys (Karras 2012, as in
// LBVH and ArborX), built in parallel, one internal node per thread, then tight boxes climbed
// from the leaves. Node 0 is the root. Sizes: m distinct points, L leaf cells, L-1 nodes.
#pragma once

#include "base/Algorithms.h"
#include "base/Atomics.h"
#include "base/Buffer.h"
#include "base/Morton.h"
#include "phases/Cells.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace emst
{
namespace detail
{

constexpr Index kLeafBit = 0x80000000u; ///< child reference: set for a leaf, clear for a node
constexpr Index kSlotBit = 0x80000000u; ///< parent reference: which child slot (0/1) we are
constexpr Index kMixed = 0xFFFFFFFFu;   ///< subtree label: points of several components

/// Internal node of the binary radix tree over the leaf cells, laid out for the search: both
/// children's boxes and component labels travel together, so visiting a node is one cache line
/// (64 bytes in 3D, 48 in 2D). child[s] has kLeafBit set when it refers to a leaf cell.
/// label[s] is the component of every point under child s, or kMixed (as built: round one's
/// labels, when every point is a component of its own).
template <int Dim>
struct alignas(16) TreeNode
{
  float lo[2][Dim];
  float hi[2][Dim];
  std::uint32_t child[2];
  std::uint32_t label[2];
};
static_assert(sizeof(TreeNode<3>) == 64, "3D node: one cache line");
static_assert(sizeof(TreeNode<2>) == 48, "2D node: three 128-bit loads");

/// Leaves first..last (inclusive) of a subtree.
struct LeafRange
{
  Index first;
  Index last;
};

/// The leaves under internal node `node`: in a radix tree built as BuildRadixTree builds it
/// (Karras 2012), leaf `node` is one end of the range, so only the other end is stored.
EMST_HD EMST_FORCEINLINE LeafRange leavesOfNode(const Index* otherEndOfNode, Index node)
{
  Index const other = otherEndOfNode[node];
  return other < node ? LeafRange{ other, node } : LeafRange{ node, other };
}

/// The radix tree as the rounds read it (and as its builders write it).
template <int Dim>
struct HierarchyArrays
{
  TreeNode<Dim>* nodes;      ///< [L-1] children, their boxes and component labels
  std::uint64_t* cellOfNode; ///< [L-1] MortonCell of each node
  Index* otherEndOfNode;     ///< [L-1] the end of each node's leaf range other than itself
  Index* parentOfNode;       ///< [L-1] parent | slot << 31, kNone for the root
  Index* parentOfLeaf;       ///< [L] parent | slot << 31
};

/// Karras 2012, one thread per node; each also clears its node's climb count (Climb) and the
/// root's parent reference: two launches fewer in a set-up that the host's calls bound.
template <int Dim>
struct BuildRadixTree
{
  const std::uint64_t* keyOfLeaf; ///< [L], strictly increasing
  long long leaves;
  HierarchyArrays<Dim> tree; ///< written
  Index* visitsOfNode;       ///< [L-1] zeroed

  EMST_HD int delta(long long a, long long b) const
  {
    if (b < 0 || b >= leaves)
    {
      return -1;
    }
    return clz64(keyOfLeaf[a] ^ keyOfLeaf[b]);
  }

  EMST_HD void operator()(std::size_t index) const
  {
    long long const i = static_cast<long long>(index);
    visitsOfNode[index] = 0;
    if (index == 0)
    {
      tree.parentOfNode[0] = kNone; // the root, no node's child
    }
    int const d = delta(i, i + 1) - delta(i, i - 1) >= 0 ? 1 : -1;
    int const deltaMin = delta(i, i - d);
    long long lengthMax = 2;
    while (delta(i, i + lengthMax * d) > deltaMin)
    {
      lengthMax *= 2;
    }
    long long length = 0;
    for (long long t = lengthMax / 2; t >= 1; t /= 2)
    {
      if (delta(i, i + (length + t) * d) > deltaMin)
      {
        length += t;
      }
    }
    long long const j = i + length * d;
    int const deltaNode = delta(i, j);
    // The node holds exactly the points whose codes share these deltaNode leading bits (the
    // leaves are disjoint Morton cells, so a leaf's other points share its first key's prefix).
    tree.cellOfNode[index] =
      MortonCell<Dim>::encode(keyOfLeaf[i], deltaNode - (64 - MortonCell<Dim>::kCodeBits));
    long long split = 0;
    long long divisor = 2;
    long long t;
    do
    {
      t = (length + divisor - 1) / divisor;
      if (delta(i, i + (split + t) * d) > deltaNode)
      {
        split += t;
      }
      divisor *= 2;
    } while (t > 1);
    long long const gamma = i + split * d + (d < 0 ? -1 : 0);
    long long const lo = i < j ? i : j;
    long long const hi = i < j ? j : i;
    tree.otherEndOfNode[index] = static_cast<Index>(j); // the range is i..j or j..i

    tree.nodes[index].label[0] = kMixed;
    tree.nodes[index].label[1] = kMixed;
    Index* child = tree.nodes[index].child;
    Index const g = static_cast<Index>(gamma);
    if (lo == gamma)
    {
      child[0] = g | kLeafBit;
      tree.parentOfLeaf[g] = static_cast<Index>(i);
    }
    else
    {
      child[0] = g;
      tree.parentOfNode[g] = static_cast<Index>(i);
    }
    if (hi == gamma + 1)
    {
      child[1] = (g + 1) | kLeafBit;
      tree.parentOfLeaf[g + 1] = static_cast<Index>(i) | kSlotBit;
    }
    else
    {
      child[1] = g + 1;
      tree.parentOfNode[g + 1] = static_cast<Index>(i) | kSlotBit;
    }
  }
};

/// A bottom-up pass over the radix tree, one thread per leaf: each leaf computes its summary,
/// then climbs; at each node the first child to arrive stores its summary in its slot and stops,
/// the second merges both slots and carries on (no level loop; Apetrei 2014). A Summary has
/// `Value ofLeaf(leaf)`, `store(node, slot, value)`, `Value load(node, slot)` (coherent: the
/// sibling's store was made by another thread) and `Value merge(a, b)`.
template <int Dim, class Summary>
struct Climb
{
  Summary summary;
  HierarchyArrays<Dim> tree;
  Index* visitsOfNode; ///< [L-1], zero on entry
  EMST_HD void operator()(std::size_t leaf) const
  {
    auto value = summary.ofLeaf(leaf);
    Index ref = tree.parentOfLeaf[leaf];
    for (;;)
    {
      Index const node = ref & ~kSlotBit;
      int const slot = (ref & kSlotBit) ? 1 : 0;
      summary.store(node, slot, value);
      // The writer of a slot releases its store through this increment; the second arriver
      // acquires the sibling's store through it.
      if (atomicIncrementAcqRel(&visitsOfNode[node]) == 0)
      {
        return; // the sibling's thread will carry the union upwards
      }
      value = summary.merge(value, summary.load(node, 1 - slot));
      ref = tree.parentOfNode[node];
      if (ref == kNone)
      {
        return;
      }
    }
  }
};

/// Climb's summary for the tight boxes of the children, stored in the nodes themselves.
template <int Dim>
struct BoxSummary
{
  struct Value
  {
    float lo[Dim];
    float hi[Dim];
  };
  const PointRecord* recordOfPoint; ///< [m]
  CellArrays cells;
  TreeNode<Dim>* nodes; ///< [L-1] boxes written

  EMST_HD Value ofLeaf(std::size_t leaf) const
  {
    Value b;
    for (int a = 0; a < Dim; ++a)
    {
      b.lo[a] = floatInfinity();
      b.hi[a] = -floatInfinity();
    }
    for (Index k = cells.firstPointOfLeaf[leaf]; k < cells.firstPointOfLeaf[leaf + 1]; ++k)
    {
      for (int a = 0; a < Dim; ++a)
      {
        float const c = recordOfPoint[k].x[a];
        b.lo[a] = c < b.lo[a] ? c : b.lo[a];
        b.hi[a] = c > b.hi[a] ? c : b.hi[a];
      }
    }
    return b;
  }
  EMST_HD void store(Index node, int slot, const Value& b) const
  {
    for (int a = 0; a < Dim; ++a)
    {
      storeShared(&nodes[node].lo[slot][a], b.lo[a]);
      storeShared(&nodes[node].hi[slot][a], b.hi[a]);
    }
  }
  EMST_HD Value load(Index node, int slot) const
  {
    Value b;
    for (int a = 0; a < Dim; ++a)
    {
      b.lo[a] = loadShared(&nodes[node].lo[slot][a]);
      b.hi[a] = loadShared(&nodes[node].hi[slot][a]);
    }
    return b;
  }
  EMST_HD Value merge(Value b, const Value& other) const
  {
    for (int a = 0; a < Dim; ++a)
    {
      b.lo[a] = other.lo[a] < b.lo[a] ? other.lo[a] : b.lo[a];
      b.hi[a] = other.hi[a] > b.hi[a] ? other.hi[a] : b.hi[a];
    }
    return b;
  }
};

/// Climb's summary for the least of a per-point float under each child (mutual reachability:
/// the least core bound of the subtree), stored beside the nodes: leastOfSlot[2 * node + slot].
struct LeastSummary
{
  using Value = float;
  const float* valueOfPoint; ///< [m]
  CellArrays cells;
  float* leastOfSlot; ///< [2(L-1)] written

  EMST_HD float ofLeaf(std::size_t leaf) const
  {
    float least = floatInfinity();
    for (Index k = cells.firstPointOfLeaf[leaf]; k < cells.firstPointOfLeaf[leaf + 1]; ++k)
    {
      least = valueOfPoint[k] < least ? valueOfPoint[k] : least;
    }
    return least;
  }
  EMST_HD void store(Index node, int slot, float value) const
  {
    storeShared(&leastOfSlot[2 * node + slot], value);
  }
  EMST_HD float load(Index node, int slot) const
  {
    return loadShared(&leastOfSlot[2 * node + slot]);
  }
  EMST_HD float merge(float a, float b) const { return b < a ? b : a; }
};

// ---- How the searches walk the hierarchy ------------------------------------------------------
// A search is a Visitor: `float bound(const TreeNode<Dim>& n, Index node, int slot)`, a float
// distance at most that of anything under the child slot (floatInfinity() to skip it);
// `float limit()`, beyond which nothing can matter any more (it only shrinks as the search goes);
// `void scanLeaf(Index leaf)`, every point of a leaf; for searchUpwards also
// `bool ballClearOfFaces(const float* q)`, the metric's condition added to the early stop (its
// ballClearOfFaces at the visitor's limit: always true without periodic faces). A visitor
// whose `kTracksPruned` is true also has `void pruned(float bound)`: the bound of each child
// pruned beyond the limit (then the least of them bounds everything the walk left out but
// what bound() skipped), and 0 when a climb stops at its cell (what lies outside is only known
// to be beyond the limit).

/// Whether a visitor tracks what its walk prunes (its kTracksPruned, false when it has none).
template <class Visitor, class = void>
struct TracksPruned : std::false_type
{
};
template <class Visitor>
struct TracksPruned<Visitor, std::void_t<decltype(Visitor::kTracksPruned)>>
  : std::integral_constant<bool, Visitor::kTracksPruned>
{
};

/// Depth-first search of the subtree `root` (a node, or a leaf with kLeafBit), nearer child
/// first, pruning every child whose bound exceeds the visitor's limit (and telling a visitor
/// that tracks them the bounds it prunes: TracksPruned). Written as two loops, nodes until a
/// leaf, then the leaf ("while-while", Aila & Laine 2009): on a GPU the lanes of a warp that
/// reach a leaf wait for the others to reach theirs, and the warp scans their leaves together
/// instead of alternating node visits and leaf scans step by step. The visits are the same, in
/// the same order. H200, against one loop that took a node or a leaf a step (RESULTS.md,
/// 2026-11-28), ms: uniform 1e7 3D 20.19 -> 18.71, cosmo 1e7 3D 20.77 -> 19.61, uniform 1e7 2D
/// 14.90 -> 13.43, cosmo 1e7 2D 16.43 -> 14.86, the data sets 1-9%; round two's listed search
/// 4.29 -> 3.75 ms, with 9.1 -> 10.0 of 32 lanes active an instruction and 11% fewer
/// instructions.
template <int Dim, class Visitor>
EMST_HD EMST_FORCEINLINE void searchSubtree(
  const TreeNode<Dim>* nodes, Index root, Visitor& visitor)
{
  // The radix tree over <= 64-bit keys is at most 64 deep: the stack cannot overflow. An entry
  // is a child and its box distance in one word (one store and one load a visit, not two).
  std::uint64_t stack[64];
  int top = 0;
  Index next = root;
  // The next child on the stack still within the limit, or kNone.
  auto const pop = [&]
  {
    while (next == kNone && top > 0)
    {
      --top;
      std::uint64_t const entry = stack[top];
      float const bound = bitsFloat(static_cast<std::uint32_t>(entry >> 32));
      next = bound <= visitor.limit() ? static_cast<Index>(entry) : kNone;
      if constexpr (TracksPruned<Visitor>::value)
      {
        visitor.pruned(next == kNone ? bound : floatInfinity());
      }
    }
  };
  static_assert((kNone & kLeafBit) != 0, "the node loop stops at kNone as at a leaf");
  for (;;)
  {
    while (!(next & kLeafBit))
    {
      TreeNode<Dim> const n = nodes[next];
      float const d0 = visitor.bound(n, next, 0);
      float const d1 = visitor.bound(n, next, 1);
      float const limit = visitor.limit();
      bool const go0 = d0 <= limit;
      bool const go1 = d1 <= limit;
      if constexpr (TracksPruned<Visitor>::value)
      {
        visitor.pruned(fminf(go0 ? floatInfinity() : d0, go1 ? floatInfinity() : d1));
      }
      if (go0 && go1)
      {
        bool const nearFirst = d0 <= d1;
        stack[top] = (std::uint64_t(floatBits(nearFirst ? d1 : d0)) << 32) |
          (nearFirst ? n.child[1] : n.child[0]);
        ++top;
        next = nearFirst ? n.child[0] : n.child[1];
      }
      else
      {
        next = go0 ? n.child[0] : (go1 ? n.child[1] : kNone);
        pop();
      }
    }
    if (next == kNone)
    {
      return;
    }
    visitor.scanLeaf(next & ~kLeafBit);
    next = kNone;
    pop();
  }
}

/// True when every point outside the Morton cells of a climb (the cells of one leaf's ancestors,
/// smaller to larger) is farther from q (frame coordinates) than sqrt(limit). In lattice units
/// (latticeScale: Quantizer::scale), in double: a point outside has a lattice coordinate out of
/// [lo, hi), and its coordinate differs from lattice*scale by the float rounding of that product,
/// at most 2^-24 relative; the 2^-23 factors cover it twice over. The cube's outer faces need no
/// test. Every cell of a climb is a prefix of the first one's code, so the first cell's lower
/// corner gives every later one by clearing low bits: one decode a climb, not one a level.
template <int Dim>
struct ClimbCells
{
  static constexpr int kBits = MortonCell<Dim>::kBits;
  static constexpr int kCodeBits = MortonCell<Dim>::kCodeBits;

  /// `first`: the first cell the climb tests (0: none is tested).
  EMST_HD EMST_FORCEINLINE explicit ClimbCells(std::uint64_t first)
    : corner{}
  {
    if (first == 0)
    {
      return;
    }
    std::uint64_t lo[Dim], hi[Dim];
    MortonCell<Dim>::decode(first, lo, hi);
    for (int a = 0; a < Dim; ++a)
    {
      corner[a] = static_cast<std::uint32_t>(lo[a]); // < 2^kBits <= 2^31
    }
  }

  EMST_HD bool ballInside(std::uint64_t cell, const float* q, float limit, float latticeScale) const
  {
    int const prefixBits = kCodeBits - ctz64(cell);
    double const scale = latticeScale;
    double const radius = sqrt(static_cast<double>(limit)) * scale * (1.0 + 0x1p-30);
    double const top = static_cast<double>(std::uint64_t(1) << kBits);
    for (int a = 0; a < Dim; ++a)
    {
      int const fixedBits = MortonCell<Dim>::prefixBitsOnAxis(prefixBits, a);
      std::uint64_t const size = std::uint64_t(1) << (kBits - fixedBits);
      std::uint64_t const lo = corner[a] & ~(size - 1);
      double const u = static_cast<double>(q[a]) * scale;
      double const l = static_cast<double>(lo);
      double const h = static_cast<double>(lo + size);
      if (lo > 0 && !(u - l * (1.0 + 0x1p-23) > radius))
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

  std::uint32_t corner[Dim]; ///< the first cell's lower corner (lattice)
};

/// The search of a point of `leaf` (frame coordinates q), after its own leaf: up the radix tree,
/// searching each sibling subtree within the limit, until the root, or (when `ballStops`, valid
/// for metrics whose distances are at least the Euclidean ones) until the ball of the limit lies
/// inside the Morton cell searched so far and the visitor's metric sees no periodic face within it
/// (ballClearOfFaces): every point outside it is then farther. Needs two leaves or more. Stops
/// after `levels` levels when that is positive: returns kNone when the search is complete, else
/// the parent reference (parent | slot << 31) of the subtree searched so far.
template <int Dim, class Visitor>
EMST_HD EMST_FORCEINLINE Index searchUpwards(const HierarchyArrays<Dim>& tree, Index leaf,
  const float* q, float latticeScale, bool ballStops, Visitor& visitor, int levels = 0)
{
  Index up = tree.parentOfLeaf[leaf];
  ClimbCells<Dim> const cells(ballStops ? tree.cellOfNode[up & ~kSlotBit] : 0);
  for (;;)
  {
    Index const node = up & ~kSlotBit;
    int const sibling = (up & kSlotBit) ? 0 : 1;
    TreeNode<Dim> const& n = tree.nodes[node];
    float const bound = visitor.bound(n, node, sibling);
    if (bound <= visitor.limit())
    {
      searchSubtree(tree.nodes, n.child[sibling], visitor);
    }
    else if constexpr (TracksPruned<Visitor>::value)
    {
      visitor.pruned(bound);
    }
    up = tree.parentOfNode[node];
    if (up == kNone)
    {
      return kNone;
    }
    if (ballStops && cells.ballInside(tree.cellOfNode[node], q, visitor.limit(), latticeScale) &&
      visitor.ballClearOfFaces(q))
    {
      if constexpr (TracksPruned<Visitor>::value)
      {
        visitor.pruned(0.0f); // outside the cell: only known to be beyond the limit
      }
      return kNone;
    }
    if (--levels == 0)
    {
      return up;
    }
  }
}

/// The subtree below parent reference `up` (parent | slot << 31).
template <int Dim>
EMST_HD EMST_FORCEINLINE Index childOf(const TreeNode<Dim>* nodes, Index up)
{
  return nodes[up & ~kSlotBit].child[(up & kSlotBit) ? 1 : 0];
}

/// What the hierarchy phase hands on.
template <class Exec, int Dim>
struct Hierarchy
{
  Hierarchy(Exec& exec, std::size_t leaves)
    : nodes(exec, leaves - 1)
    , cellOfNode(exec, leaves - 1)
    , otherEndOfNode(exec, leaves - 1)
    , parentOfNode(exec, leaves - 1)
    , parentOfLeaf(exec, leaves)
  {
  }
  HierarchyArrays<Dim> arrays() const
  {
    HierarchyArrays<Dim> tree;
    tree.nodes = this->nodes.data();
    tree.cellOfNode = this->cellOfNode.data();
    tree.otherEndOfNode = this->otherEndOfNode.data();
    tree.parentOfNode = this->parentOfNode.data();
    tree.parentOfLeaf = this->parentOfLeaf.data();
    return tree;
  }

  /// Frees what only the bottom-up walks read (searchUpwards: the parents and the nodes' cells),
  /// once no search starts at its point's cell any more: about 4 bytes a point.
  void releaseClimbs()
  {
    this->cellOfNode.reset();
    this->parentOfNode.reset();
    this->parentOfLeaf.reset();
  }

  Buffer<TreeNode<Dim>, Exec> nodes;      ///< [L-1]
  Buffer<std::uint64_t, Exec> cellOfNode; ///< [L-1]
  Buffer<Index, Exec> otherEndOfNode;     ///< [L-1]
  Buffer<Index, Exec> parentOfNode;       ///< [L-1]
  Buffer<Index, Exec> parentOfLeaf;       ///< [L]
};

/// The radix tree over the cells and its boxes. The Morton codes are needed only for the leaves'
/// keys: codeOfPoint is released as soon as those are read.
template <class Exec, class T, int Dim>
Hierarchy<Exec, Dim> buildHierarchy(
  Exec& exec, const Cells<Exec, T, Dim>& cells, Buffer<std::uint64_t, Exec>& codeOfPoint)
{
  std::size_t const leaves = cells.leaves;
  std::size_t const internal = leaves - 1;
  Hierarchy<Exec, Dim> hierarchy(exec, leaves);
  HierarchyArrays<Dim> const tree = hierarchy.arrays();
  Buffer<Index, Exec> visitsOfNode(exec, internal);
  if (leaves > 1)
  {
    {
      Buffer<std::uint64_t, Exec> keyOfLeaf(exec, leaves);
      thrust::gather(exec.policy(), cells.firstPointOfLeaf.data(),
        cells.firstPointOfLeaf.data() + leaves, codeOfPoint.data(), keyOfLeaf.data());
      codeOfPoint.reset();
      exec.forEach(internal,
        BuildRadixTree<Dim>{
          keyOfLeaf.data(), static_cast<long long>(leaves), tree, visitsOfNode.data() });
    }
    // One climb (the visits zeroed above): the second arriver goes on.
    exec.forEach(leaves,
      Climb<Dim, BoxSummary<Dim>>{
        { cells.recordOfPoint.data(), cells.arrays(), tree.nodes }, tree, visitsOfNode.data() });
  }
  return hierarchy;
}

/// leastOfSlot[2 * node + slot]: the least of `valueOfPoint` ([m], Morton order) under each child
/// of each node, by a climb of its own (for a metric whose box bound needs it).
template <class Exec, class T, int Dim>
Buffer<float, Exec> climbLeast(Exec& exec, const Cells<Exec, T, Dim>& cells,
  const Hierarchy<Exec, Dim>& hierarchy, const float* valueOfPoint)
{
  std::size_t const leaves = cells.leaves;
  Buffer<float, Exec> leastOfSlot(exec, 2 * (leaves - 1));
  if (leaves > 1)
  {
    Buffer<Index, Exec> visitsOfNode(exec, leaves - 1);
    exec.fill(visitsOfNode.data(), leaves - 1, 0u);
    exec.forEach(leaves,
      Climb<Dim, LeastSummary>{ { valueOfPoint, cells.arrays(), leastOfSlot.data() },
        hierarchy.arrays(), visitsOfNode.data() });
  }
  return leastOfSlot;
}

} // namespace detail
} // namespace emst
