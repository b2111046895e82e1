// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The host-side index that answers other ranks' queries: a k-d tree over this rank's finite
// points (double coordinates, tight boxes), whose nodes carry the component label shared by all
// their points (refreshed each round), so that a query skips whole subtrees of its own component.
// Keys are computed with the engine's exact formula (base/Arithmetic.h, exactKey), and box bounds
// with the same rounded operations on the box's faces, which never exceed the key of a point
// inside (every rounded operation is monotone): pruning with them is exact.
#pragma once

#include "base/Arithmetic.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <vector>

namespace emst
{
namespace detail
{

constexpr std::uint64_t kNoLabel = std::numeric_limits<std::uint64_t>::max();

/// Axis-aligned box in input coordinates (unused axes 0).
struct PointBox
{
  double lo[3];
  double hi[3];
};

/// A lower bound of exactKey(q, x, scale) over every x in `box`: the same sum of rounded squares
/// with, per axis, the gap from q to the box's slab (0 inside).
template <int Dim>
inline double boxLowerKey(const double* q, const PointBox& box, double scale)
{
  double s = 0.0;
  for (int a = 0; a < Dim; ++a)
  {
    double gap = 0.0;
    if (q[a] < box.lo[a])
    {
      gap = dsub(box.lo[a], q[a]);
    }
    else if (q[a] > box.hi[a])
    {
      gap = dsub(q[a], box.hi[a]);
    }
    double const d = dmul(gap, scale);
    s = a == 0 ? dmul(d, d) : dadd(s, dmul(d, d));
  }
  return s;
}

/// A lower bound of boxLowerKey(q, b, scale) over every q in `a`: per axis the gap between slabs.
template <int Dim>
inline double boxBoxLowerKey(const PointBox& a, const PointBox& b, double scale)
{
  double s = 0.0;
  for (int axis = 0; axis < Dim; ++axis)
  {
    double gap = 0.0;
    if (a.hi[axis] < b.lo[axis])
    {
      gap = dsub(b.lo[axis], a.hi[axis]);
    }
    else if (b.hi[axis] < a.lo[axis])
    {
      gap = dsub(a.lo[axis], b.hi[axis]);
    }
    double const d = dmul(gap, scale);
    s = axis == 0 ? dmul(d, d) : dadd(s, dmul(d, d));
  }
  return s;
}

/// The total order of edges: (key, smaller global id, larger global id).
struct EdgeRank
{
  double key;
  std::uint64_t lo;
  std::uint64_t hi;

  static EdgeRank of(double key, std::uint64_t a, std::uint64_t b)
  {
    return EdgeRank{ key, std::min(a, b), std::max(a, b) };
  }
  bool operator<(const EdgeRank& o) const
  {
    if (this->key != o.key)
    {
      return this->key < o.key;
    }
    return this->lo != o.lo ? this->lo < o.lo : this->hi < o.hi;
  }
};

template <int Dim>
class QueryIndex
{
public:
  static constexpr std::uint32_t kLeafSize = 16;

  /// `xyz`: 3 doubles per local point; `members`: the local points to index (finite ones);
  /// `threads`: OpenMP threads for the build (the subtrees below the top levels are built in
  /// parallel; the layout is the same whatever the count).
  QueryIndex(const double* xyz, std::vector<std::uint32_t> members, int threads = 1)
    : Xyz(xyz)
    , PointOfSlot(std::move(members))
  {
    if (this->PointOfSlot.empty())
    {
      return;
    }
    // Pre-order layout: a node's two children are adjacent, after it, and the left child's
    // descendants come before the right child's pair, so a reverse sweep over the nodes visits
    // children before parents. Every subtree's size follows from its number of points (a node
    // splits at the middle until kLeafSize), so each subtree's block is known before it is built
    // and the subtrees below the top levels are built independently, into their own blocks.
    auto const n = static_cast<std::uint32_t>(this->PointOfSlot.size());
    this->Nodes.resize(1 + this->descendants(n));
    int const parallelDepth = threads > 1 ? 6 : 0;
#pragma omp parallel num_threads(std::max(1, threads))
#pragma omp single
    this->build(0, 0, n, 1, parallelDepth);
  }

  bool empty() const
  {
    return this->Nodes.empty();
  }
  std::size_t bytes() const
  {
    return this->Nodes.capacity() * sizeof(Node) +
      this->PointOfSlot.capacity() * sizeof(std::uint32_t);
  }

  /// The nodes `depth` levels below the root (leaves above that depth stand for themselves): at
  /// most 2^depth groups of points with tight boxes; a group's points are the slots
  /// [begin, end), pointAt(slot).
  struct Group
  {
    PointBox box;
    std::uint32_t begin, end;
  };
  std::vector<Group> groupsAtDepth(int depth) const
  {
    std::vector<Group> groups;
    if (this->Nodes.empty())
    {
      return groups;
    }
    std::vector<std::pair<std::uint32_t, int>> stack{ { 0u, 0 } };
    while (!stack.empty())
    {
      auto const [n, d] = stack.back();
      stack.pop_back();
      const Node& node = this->Nodes[n];
      if (d == depth || node.left == kNoChild)
      {
        groups.push_back(Group{ node.box, node.begin, node.end });
        continue;
      }
      stack.push_back({ node.left + 1, d + 1 });
      stack.push_back({ node.left, d + 1 });
    }
    return groups;
  }
  std::uint32_t pointAt(std::uint32_t slot) const
  {
    return this->PointOfSlot[slot];
  }

  /// Each node's label: the one label of all its points, or kNoLabel when they differ.
  void refreshLabels(const std::uint64_t* labelOfPoint)
  {
    for (std::size_t k = this->Nodes.size(); k-- > 0;)
    {
      Node& node = this->Nodes[k];
      if (node.left == kNoChild)
      {
        std::uint64_t label = labelOfPoint[this->PointOfSlot[node.begin]];
        for (std::uint32_t s = node.begin + 1; s < node.end && label != kNoLabel; ++s)
        {
          if (labelOfPoint[this->PointOfSlot[s]] != label)
          {
            label = kNoLabel;
          }
        }
        node.label = label;
      }
      else
      {
        std::uint64_t const a = this->Nodes[node.left].label;
        node.label = a == this->Nodes[node.left + 1].label ? a : kNoLabel;
      }
    }
  }

  struct Hit
  {
    bool found = false;
    EdgeRank rank{ 0.0, 0, 0 };
    std::uint32_t point = 0;
  };

  /// The least edge, under (key, lo, hi), from q (global id qId, in component qLabel) to a point
  /// of this index outside qLabel whose key is at most `bound`; none when there is no such point.
  Hit nearestForeign(const double* q, std::uint64_t qId, std::uint64_t qLabel, double bound,
    double scale, const std::uint64_t* labelOfPoint, const std::uint64_t* idOfPoint) const
  {
    Hit hit;
    if (this->Nodes.empty() || this->Nodes[0].label == qLabel)
    {
      return hit;
    }
    EdgeRank best{ bound, std::numeric_limits<std::uint64_t>::max(),
      std::numeric_limits<std::uint64_t>::max() };
    struct Visit
    {
      std::uint32_t node;
      double lower;
    };
    Visit stack[128];
    int top = 0;
    stack[top++] = { 0, boxLowerKey<Dim>(q, this->Nodes[0].box, scale) };
    while (top > 0)
    {
      Visit const v = stack[--top];
      if (v.lower > best.key)
      {
        continue;
      }
      const Node& node = this->Nodes[v.node];
      if (node.left == kNoChild)
      {
        for (std::uint32_t s = node.begin; s < node.end; ++s)
        {
          std::uint32_t const p = this->PointOfSlot[s];
          if (labelOfPoint[p] == qLabel)
          {
            continue;
          }
          double const key = exactKey<Dim>(q, this->Xyz + 3 * p, scale);
          if (key > best.key)
          {
            continue;
          }
          EdgeRank const candidate = EdgeRank::of(key, qId, idOfPoint[p]);
          if (candidate < best)
          {
            best = candidate;
            hit.found = true;
            hit.point = p;
          }
        }
        continue;
      }
      std::uint32_t near = node.left;
      std::uint32_t far = node.left + 1;
      double nearLower = this->Nodes[near].label == qLabel
        ? std::numeric_limits<double>::infinity()
        : boxLowerKey<Dim>(q, this->Nodes[near].box, scale);
      double farLower = this->Nodes[far].label == qLabel
        ? std::numeric_limits<double>::infinity()
        : boxLowerKey<Dim>(q, this->Nodes[far].box, scale);
      if (farLower < nearLower)
      {
        std::swap(near, far);
        std::swap(nearLower, farLower);
      }
      if (farLower <= best.key)
      {
        stack[top++] = { far, farLower };
      }
      if (nearLower <= best.key)
      {
        stack[top++] = { near, nearLower };
      }
    }
    hit.rank = best;
    return hit;
  }

private:
  static constexpr std::uint32_t kNoChild = std::numeric_limits<std::uint32_t>::max();

  struct Node
  {
    PointBox box;
    std::uint32_t begin = 0, end = 0; ///< slots [begin, end) of PointOfSlot
    std::uint32_t left = kNoChild;    ///< children left and left + 1; kNoChild for a leaf
    std::uint64_t label = kNoLabel;   ///< refreshLabels
  };

  /// Nodes below a node of m points: none for a leaf, else its two children and theirs.
  std::size_t descendants(std::uint32_t m)
  {
    if (m <= kLeafSize)
    {
      return 0;
    }
    auto const known = this->DescendantsOf.find(m); // two sizes per level: a few dozen entries
    if (known != this->DescendantsOf.end())
    {
      return known->second;
    }
    std::size_t const count = 2 + this->descendants(m / 2) + this->descendants(m - m / 2);
    this->DescendantsOf.emplace(m, count);
    return count;
  }

  /// Builds node `node` over slots [begin, end), its children at `children` and `children` + 1
  /// and their descendants after them; the first `parallelDepth` levels hand the left subtree to
  /// another OpenMP task (inside a parallel region's single construct).
  void build(std::uint32_t node, std::uint32_t begin, std::uint32_t end, std::size_t children,
    int parallelDepth)
  {
    this->Nodes[node].begin = begin;
    this->Nodes[node].end = end;
    this->Nodes[node].box = this->boxOf(begin, end);
    if (end - begin <= kLeafSize)
    {
      return;
    }
    const PointBox& box = this->Nodes[node].box;
    int axis = 0;
    for (int a = 1; a < Dim; ++a)
    {
      if (box.hi[a] - box.lo[a] > box.hi[axis] - box.lo[axis])
      {
        axis = a;
      }
    }
    std::uint32_t const middle = begin + (end - begin) / 2;
    const double* x = this->Xyz;
    std::nth_element(this->PointOfSlot.begin() + begin, this->PointOfSlot.begin() + middle,
      this->PointOfSlot.begin() + end,
      [x, axis](std::uint32_t p, std::uint32_t q) {
        return x[3 * p + axis] < x[3 * q + axis] || (x[3 * p + axis] == x[3 * q + axis] && p < q);
      });
    auto const left = static_cast<std::uint32_t>(children);
    this->Nodes[node].left = left;
    std::size_t const leftBlock = children + 2;
    std::size_t const rightBlock = leftBlock + this->descendantsKnown(middle - begin);
    if (parallelDepth > 0)
    {
#pragma omp task default(shared) firstprivate(left, begin, middle, leftBlock, parallelDepth)
      this->build(left, begin, middle, leftBlock, parallelDepth - 1);
      this->build(left + 1, middle, end, rightBlock, parallelDepth - 1);
#pragma omp taskwait
    }
    else
    {
      this->build(left, begin, middle, leftBlock, 0);
      this->build(left + 1, middle, end, rightBlock, 0);
    }
  }

  /// descendants(m) for a size the constructor's count has seen (read-only: safe in the tasks).
  std::size_t descendantsKnown(std::uint32_t m) const
  {
    return m <= kLeafSize ? 0 : this->DescendantsOf.at(m);
  }

  PointBox boxOf(std::uint32_t begin, std::uint32_t end) const
  {
    PointBox box;
    for (int a = 0; a < 3; ++a)
    {
      box.lo[a] = std::numeric_limits<double>::infinity();
      box.hi[a] = -std::numeric_limits<double>::infinity();
    }
    for (std::uint32_t s = begin; s < end; ++s)
    {
      const double* x = this->Xyz + 3 * this->PointOfSlot[s];
      for (int a = 0; a < 3; ++a)
      {
        box.lo[a] = std::min(box.lo[a], x[a]);
        box.hi[a] = std::max(box.hi[a], x[a]);
      }
    }
    return box;
  }

  const double* Xyz;                      ///< [3 * local points]
  std::vector<std::uint32_t> PointOfSlot; ///< [indexed points] local point of each slot
  std::vector<Node> Nodes;                ///< [about 2 * indexed / kLeafSize], pre-order
  std::map<std::uint32_t, std::size_t> DescendantsOf; ///< descendants(m), filled before the build
};

} // namespace detail
} // namespace emst
