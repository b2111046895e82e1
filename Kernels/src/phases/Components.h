// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The components of the Borůvka rounds: the per-component arrays that FindMin1 starts (bounds,
// least keys) and the component merge finishes (FindMin2, hooks, roots, new labels), and the one
// arena that holds them for every round. Not a phase: the state two phases share.
// Sizes: m distinct points, k components of the current round.
#pragma once

#include "base/Arithmetic.h"
#include "base/Atomics.h"
#include "base/Buffer.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace emst
{
namespace detail
{

/// Per-component arrays of a round. The bound array is null in the first round, when every
/// component is one point and its point's answer is its minimum edge.
struct ComponentArrays
{
  /// [k] float bits: at least the key of c's minimum edge; once the round's searches are done,
  /// exactly the least float at least that key (every answer leaving c lowered it to its own
  /// key's, every other value it took is at least the key of some edge leaving c)
  std::uint32_t* boundOfComp;
  Index* hookOfComp; ///< [k]
  /// [k] the winners (FindMin2, over what the round left there) until FindRoots overwrites
  /// them; then each component's root, and at a root (a component whose hook is itself) its
  /// dense new label instead
  Index* rootOfComp;

  /// The point of component c whose edge is c's minimum outgoing edge.
  EMST_HD Index winner(Index c) const { return boundOfComp ? rootOfComp[c] : c; }

  /// Clears c's bound for a round.
  EMST_HD EMST_FORCEINLINE void reset(std::size_t c) const
  {
    boundOfComp[c] = floatBits(floatInfinity());
  }
};

/// The new label of every component of a round once its merge is done (FindRoots), read where
/// the next round needs it (RelabelPoints, StartFrozenRound) instead of written out by a pass
/// of its own: a root's label is in its root entry, any other component's in its root's.
struct NewLabels
{
  const Index* hookOfComp; ///< ComponentArrays::hookOfComp: a root's hook is itself
  const Index* rootOfComp; ///< ComponentArrays::rootOfComp

  EMST_HD EMST_FORCEINLINE Index operator[](Index c) const
  {
    Index const root = rootOfComp[c];
    return hookOfComp[c] == c ? root : rootOfComp[root];
  }
};

/// Lowers component c's bound to `bound` (a float at least the key of an edge leaving c).
EMST_HD EMST_FORCEINLINE void tightenBound(std::uint32_t* boundOfComp, Index c, float bound)
{
  std::uint32_t const bits = floatBits(bound); // non-negative floats order like their bits
  if (bits < boundOfComp[c]) // read first: most need no atomic once the bound is low
  {
    atomicMinU32(&boundOfComp[c], bits);
  }
}

/// Resets the per-component bounds for a round (the later rounds reset their own entries in
/// HookAndEmit, once read).
struct ResetComponents
{
  ComponentArrays comps;
  EMST_HD void operator()(std::size_t c) const { comps.reset(c); }
};

/// The component arrays of every round, in one arena with a fixed layout. After the first round
/// every component holds two points or more, so k < h = ceil(m/2) + 1:
///   bound 4h | hook 4h | root 4h
/// (6 bytes a point); the next round reads a round's new labels from its hooks and roots
/// (NewLabels) before anything overwrites them. The first round (k = m, no bounds) hooks every
/// point onto the component of its answer, which is the answer itself (every label is its
/// point's index): its hooks are the answers' array, which round two reads (RelabelPoints)
/// before its LabelLeaves spends it (round two's answers start empty, every first-round answer
/// having joined its point's component); its roots go over hook+root (8h bytes >= 4m), clear
/// of the bounds that round two resets before it relabels. Between the relabelling and the
/// searcher list, hook+root hold each round's leaf runs (leafRuns) from round two on. The room
/// is taken after round one's searches (allocate), when the bottom-up walks' arrays are freed.
template <class Exec>
class ComponentArena
{
public:
  /// `answerOfPoint`: CandidateArrays::candidateOfPoint ([m]), the first round's hooks;
  /// `edgeRoom`: TreeEdges::edgePoints ([2(m-1)] >= m), round one's search list.
  ComponentArena(Exec& exec, std::size_t m, Index* answerOfPoint, Index* edgeRoom)
    : M(m)
    , H((m + 1) / 2 + 1)
    , Bytes(exec, 0)
    , FirstList(edgeRoom)
  {
    this->First.boundOfComp = nullptr;
    this->First.hookOfComp = answerOfPoint;
  }

  /// Takes the room, before round one's connect (round one's FindMin1 does not use it).
  void allocate(Exec& exec)
  {
    this->Bytes = Buffer<unsigned char, Exec>(exec, 12 * this->H);
    this->Later.boundOfComp = reinterpret_cast<std::uint32_t*>(this->at(0));
    this->Later.hookOfComp = reinterpret_cast<Index*>(this->at(4));
    this->Later.rootOfComp = reinterpret_cast<Index*>(this->at(8));

    this->First.rootOfComp = reinterpret_cast<Index*>(this->at(4));
  }

  /// The arrays of round `round` (1, 2, ...).
  const ComponentArrays& ofRound(int round) const { return round == 1 ? this->First : this->Later; }

  /// Whether round `round`'s hooks are the points' answers (round one's; connect then has no
  /// hooks to write: HookAndEmit would write each answer over itself).
  static bool hooksAreAnswers(int round) { return round == 1; }

  /// Whether the answers' array holds the previous round's hooks when round `round` starts
  /// (round two's: LabelLeaves clears them instead of reading them as answers).
  static bool answersAreHooks(int round) { return round == 2; }

  /// Room for a list of up to m points during round `round`'s searches: in round one the tree
  /// edges' (the arena's room is taken after its searches; its connect writes the first edges
  /// after them); from round two the hook and root arrays (8h bytes >= 4m + 8), which hold
  /// nothing then: the previous round's labels (in the hooks and roots) are read before the
  /// searches, and this round writes the two after them (FindMin2 its winners over the roots,
  /// whatever they hold: ComponentMinimumEdge).
  Index* searchList(int round) const
  {
    return round == 1 ? this->FirstList : this->Later.hookOfComp;
  }

  /// Room for the leaf runs ([L], L <= m) of rounds two on, from LabelLeaves to LabelNodes: the
  /// hook and root arrays again (the previous round's labels are read by then, the searcher list
  /// and this round's hooks and roots are written after).
  Index* leafRuns() const { return this->Later.hookOfComp; }

  /// Room for the frozen labels' table (FrozenLabels: one entry for each component of round
  /// `from` >= 3, from round from + 1 on): the bound array past the entries of those rounds.
  /// Every round at least halves the components (each joins another), so round r has at most
  /// m >> (r - 1): the rounds after `from` use at most m >> from bounds, the table takes at most
  /// m >> (from - 1) entries after them, 3m/8 <= h in all.
  Index* frozenLabelTable(int from) const
  {
    return reinterpret_cast<Index*>(this->at(0)) + (this->M >> from);
  }

  /// Where the leaves' least bounds (ListLeafSearchers: [L] floats, from round `from` >= 2 on)
  /// go in the bound array, or kNone where they do not fit (or `from` is no such round): past
  /// the bounds of those rounds (at most m >> (from - 1) of them) and, with frozen labels (from
  /// round frozenFrom + 1, frozenFrom >= 3), past their table (frozenLabelTable). Plain
  /// arithmetic: the run asks before it takes any room.
  static std::size_t leafBoundsAt(std::size_t m, std::size_t leaves, int from, int frozenFrom)
  {
    if (from < 2)
    {
      return static_cast<std::size_t>(kNone);
    }
    std::size_t const h = (m + 1) / 2 + 1;
    std::size_t at = m >> (from - 1);
    if (frozenFrom >= 3)
    {
      at = std::max(at, (m >> frozenFrom) + (m >> (frozenFrom - 1)));
    }
    return at + leaves <= h ? at : static_cast<std::size_t>(kNone);
  }
  /// That room (see leafBoundsAt), or null. What it holds before round `from` is not bounds.
  float* leafBounds(std::size_t leaves, int from, int frozenFrom) const
  {
    std::size_t const at = leafBoundsAt(this->M, leaves, from, frozenFrom);
    return at == static_cast<std::size_t>(kNone) ? nullptr
                                                 : reinterpret_cast<float*>(this->at(0)) + at;
  }

  /// The labels the previous round gave its components: none before round one.
  NewLabels previousLabels(int round) const
  {
    if (round == 1)
    {
      return NewLabels{ nullptr, nullptr };
    }
    ComponentArrays const& last = this->ofRound(round - 1);
    return NewLabels{ last.hookOfComp, last.rootOfComp };
  }

  /// Gets the arrays ready for round `round` with at most `known` components (*components on
  /// the backend). Round two is the first with bounds; later rounds reset their own entries in
  /// HookAndEmit, once read.
  void prepare(Exec& exec, int round, std::size_t known, const std::uint32_t* components) const
  {
    if (round == 2)
    {
      exec.forEachComponent(known, components, ResetComponents{ this->Later });
    }
  }

private:
  unsigned char* at(std::size_t bytesTimesH) const
  {
    return this->Bytes.data() + bytesTimesH * this->H;
  }

  std::size_t M;
  std::size_t H;
  Buffer<unsigned char, Exec> Bytes;
  Index* FirstList;      ///< [m] round one's search list (searchList)
  ComponentArrays First; ///< round one's layout
  ComponentArrays Later; ///< the other rounds' layout
};

} // namespace detail
} // namespace emst
