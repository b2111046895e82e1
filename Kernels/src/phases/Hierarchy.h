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

#include <cstddef>
#include <cstdint>

namespace emst
{
namespace detail
{

constexpr Index kLeafBit = 0x80000000u; ///< child reference: set for a leaf, clear for a node
constexpr Index kSlotBit = 0x80000000u; ///< parent reference: which child slot (0/1) we are

/// Internal node of the binary radix tree over the leaf cells, laid out for the search: both
/// children's boxes and component labels travel together, so visiting a node is one cache line
/// (64 bytes in 3D, 48 in 2D). child[s] has kLeafBit set when it refers to a leaf cell.
/// label[s] is the component of every point under child s, or kMixed.
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

/// The radix tree as the rounds read it (and as its builders write it).
template <int Dim>
struct HierarchyArrays
{
  TreeNode<Dim>* nodes;      ///< [L-1] children, their boxes and component labels
  std::uint64_t* cellOfNode; ///< [L-1] MortonCell of each node
  LeafRange* rangeOfNode;    ///< [L-1] leaves under each node
  Index* parentOfNode;       ///< [L-1] parent | slot << 31, kNone for the root
  Index* parentOfLeaf;       ///< [L] parent | slot << 31
};

template <int Dim>
struct BuildRadixTree
{
  const std::uint64_t* keyOfLeaf; ///< [L], strictly increasing
  long long leaves;
  HierarchyArrays<Dim> tree; ///< written

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
    tree.rangeOfNode[index] = LeafRange{ static_cast<Index>(lo), static_cast<Index>(hi) };

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

/// Tight boxes: each leaf computes its box, then climbs; at each node the first child to arrive
/// stops and the second merges both slots and carries on (one thread per leaf, no level loop).
template <int Dim>
struct ClimbBoxes
{
  const PointRecord* recordOfPoint; ///< [m]
  CellArrays cells;
  HierarchyArrays<Dim> tree; ///< boxes written
  Index* visitsOfNode;       ///< [L-1], zero on entry
  EMST_HD void operator()(std::size_t leaf) const
  {
    float lo[Dim], hi[Dim];
    for (int a = 0; a < Dim; ++a)
    {
      lo[a] = floatInfinity();
      hi[a] = -floatInfinity();
    }
    for (Index k = cells.firstPointOfLeaf[leaf]; k < cells.firstPointOfLeaf[leaf + 1]; ++k)
    {
      for (int a = 0; a < Dim; ++a)
      {
        float const c = recordOfPoint[k].x[a];
        lo[a] = c < lo[a] ? c : lo[a];
        hi[a] = c > hi[a] ? c : hi[a];
      }
    }
    Index ref = tree.parentOfLeaf[leaf];
    for (;;)
    {
      Index const node = ref & ~kSlotBit;
      int const slot = (ref & kSlotBit) ? 1 : 0;
      TreeNode<Dim>& n = tree.nodes[node];
      for (int a = 0; a < Dim; ++a)
      {
        storeShared(&n.lo[slot][a], lo[a]);
        storeShared(&n.hi[slot][a], hi[a]);
      }
      if (atomicIncrementAcqRel(&visitsOfNode[node]) == 0)
      {
        return; // the sibling's thread will carry the union upwards
      }
      for (int a = 0; a < Dim; ++a)
      {
        float const l = loadShared(&n.lo[1 - slot][a]);
        float const h = loadShared(&n.hi[1 - slot][a]);
        lo[a] = l < lo[a] ? l : lo[a];
        hi[a] = h > hi[a] ? h : hi[a];
      }
      ref = tree.parentOfNode[node];
      if (ref == kNone)
      {
        return;
      }
    }
  }
};

/// What the hierarchy phase hands on.
template <class Exec, int Dim>
struct Hierarchy
{
  Hierarchy(Exec& exec, std::size_t leaves)
    : nodes(exec, leaves - 1)
    , cellOfNode(exec, leaves - 1)
    , rangeOfNode(exec, leaves - 1)
    , parentOfNode(exec, leaves - 1)
    , parentOfLeaf(exec, leaves)
  {
  }
  HierarchyArrays<Dim> arrays() const
  {
    HierarchyArrays<Dim> tree;
    tree.nodes = this->nodes.data();
    tree.cellOfNode = this->cellOfNode.data();
    tree.rangeOfNode = this->rangeOfNode.data();
    tree.parentOfNode = this->parentOfNode.data();
    tree.parentOfLeaf = this->parentOfLeaf.data();
    return tree;
  }

  Buffer<TreeNode<Dim>, Exec> nodes;      ///< [L-1]
  Buffer<std::uint64_t, Exec> cellOfNode; ///< [L-1]
  Buffer<LeafRange, Exec> rangeOfNode;    ///< [L-1]
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
      exec.fill(tree.parentOfNode, 1, kNone);
      exec.forEach(
        internal, BuildRadixTree<Dim>{ keyOfLeaf.data(), static_cast<long long>(leaves), tree });
    }
    exec.fill(visitsOfNode.data(), internal, 0u); // one climb: the second arriver goes on
    exec.forEach(leaves,
      ClimbBoxes<Dim>{ cells.recordOfPoint.data(), cells.arrays(), tree, visitsOfNode.data() });
  }
  return hierarchy;
}

} // namespace detail
} // namespace emst
