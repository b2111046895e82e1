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

#include <cstddef>
#include <cstdint>

namespace emst
{
namespace detail
{

constexpr std::uint64_t kNoKey = ~std::uint64_t(0); ///< "no key yet" of a 64-bit minimum

/// Per-component arrays of a round. The key and bound arrays are null in the first round, when
/// every component is one point and its point's answer is its minimum edge.
struct ComponentArrays
{
  std::uint64_t* firstKeyOfComp; ///< [k] double bits of the least key leaving c
  std::uint32_t* boundOfComp;    ///< [k] float bits: at least the key of c's minimum edge
  Index* hookOfComp;             ///< [k]
  /// [k] the winners (FindMin2) until FindRoots overwrites them; then each component's root,
  /// and at a root (a component whose hook is itself) its dense new label instead
  Index* rootOfComp;
  Index* newLabelOfComp; ///< [k] new label of every component

  /// The point of component c whose edge is c's minimum outgoing edge.
  EMST_HD Index winner(Index c) const { return firstKeyOfComp ? rootOfComp[c] : c; }

  /// Clears c's least key and bound for a round: no key yet, no bound.
  EMST_HD EMST_FORCEINLINE void reset(std::size_t c) const
  {
    firstKeyOfComp[c] = kNoKey;
    boundOfComp[c] = floatBits(floatInfinity());
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

/// Resets the per-component minima and bounds for a round (the later rounds reset their own
/// entries in RootAndEmit, once read).
struct ResetComponents
{
  ComponentArrays comps;
  EMST_HD void operator()(std::size_t c) const { comps.reset(c); }
};

/// The component arrays of every round, in one arena with a fixed layout. After the first round
/// every component holds two points or more, so k < h = ceil(m/2) + 1:
///   firstKey 8h | bound 4h | hook 4h | root 4h
/// (10 bytes a point) and the new labels of a round overwrite its hooks (spent by then). The
/// first round (k = m, no keys or bounds) puts its roots over the first key, and its hooks
/// (which become the new labels that round two reads) over hook+root, which round two only
/// writes after reading them.
template <class Exec>
class ComponentArena
{
public:
  ComponentArena(Exec& exec, std::size_t m)
    : H((m + 1) / 2 + 1)
    , Bytes(exec, 20 * H)
  {
    this->Later.firstKeyOfComp = reinterpret_cast<std::uint64_t*>(this->at(0));
    this->Later.boundOfComp = reinterpret_cast<std::uint32_t*>(this->at(8));
    this->Later.hookOfComp = reinterpret_cast<Index*>(this->at(12));
    this->Later.rootOfComp = reinterpret_cast<Index*>(this->at(16));
    this->Later.newLabelOfComp = this->Later.hookOfComp;

    this->First.firstKeyOfComp = nullptr;
    this->First.boundOfComp = nullptr;
    this->First.hookOfComp = reinterpret_cast<Index*>(this->at(12));
    this->First.rootOfComp = reinterpret_cast<Index*>(this->at(0));
    this->First.newLabelOfComp = this->First.hookOfComp;
  }

  /// The arrays of round `round` (1, 2, ...).
  const ComponentArrays& ofRound(int round) const { return round == 1 ? this->First : this->Later; }

  /// Room for a list of up to m points during round `round`'s searches (rounds two on): the
  /// hook and root arrays (8h bytes >= 4m + 8), which hold nothing then: the previous round's
  /// labels (round two: First's hooks, over them) are read before the searches, and this round
  /// writes the two after them (FindMin2 first clears the winners, in the roots). Null in round
  /// one.
  Index* searchList(int round) const { return round == 1 ? nullptr : this->Later.hookOfComp; }

  /// The labels the previous round gave its components: none before round one.
  const Index* previousLabels(int round) const
  {
    return round == 1 ? nullptr : this->ofRound(round - 1).newLabelOfComp;
  }

  /// Gets the arrays ready for round `round` with at most `known` components (*components on
  /// the backend). Round two is the first with keys and bounds; later rounds reset their own
  /// entries in RootAndEmit, once read.
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

  std::size_t H;
  Buffer<unsigned char, Exec> Bytes;
  ComponentArrays First; ///< round one's layout
  ComponentArrays Later; ///< the other rounds' layout
};

} // namespace detail
} // namespace emst
