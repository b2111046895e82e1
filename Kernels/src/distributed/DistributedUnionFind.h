// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Components spread over ranks, merged Borůvka style: every component has a label (its smallest
// global id) and a home rank (homeOf(label)) that collects the candidate edges its parts propose,
// keeps the least, and hooks the component along it. Used by the distributed EMST (each round)
// and by the distributed cut (the kept edges of a forest). Per merge: O(parts + proposals)
// records travel, no array of all components or points exists on any rank.
//
// Hooking (Borůvka 1926; Chung & Condon 1996 for the pointer jumping): when every component's
// proposal is its least outgoing edge under one total order, the "points to" graph of the
// components is a forest whose every tree has exactly one 2-cycle, the edge that both ends chose;
// the smaller label of that pair becomes the root, everyone else follows pointers (doubled each
// step) to it, and the merged component takes the smallest label of its tree.
#pragma once

#include "distributed/Exchange.h"
#include "distributed/QueryIndex.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace emst
{
namespace detail
{

/// A candidate edge of a component, with what its owner needs to output it.
struct Candidate
{
  double key = 0.0;     ///< the order key (EMST: exact key; cut: length)
  std::uint64_t lo = 0; ///< global ids of the ends, lo < hi
  std::uint64_t hi = 0;
  std::uint64_t from = 0;      ///< label of the component that proposes it
  std::uint64_t to = kNoLabel; ///< label of the component at the other end (kNoLabel: none)
  double length = 0.0;         ///< the output length
  std::uint32_t rankLo = 0;    ///< ranks that hold lo and hi
  std::uint32_t rankHi = 0;
  std::uint32_t localLo = 0; ///< their indices there
  std::uint32_t localHi = 0;
  double xLo[3] = { 0.0, 0.0, 0.0 }; ///< coordinates of lo and hi
  double xHi[3] = { 0.0, 0.0, 0.0 };

  bool exists() const { return this->to != kNoLabel; }
  EdgeRank order() const { return EdgeRank{ this->key, this->lo, this->hi }; }
  /// The lesser of two candidates (an absent one loses).
  bool betterThan(const Candidate& other) const
  {
    return this->exists() && (!other.exists() || this->order() < other.order());
  }
};

class DistributedUnionFind
{
public:
  explicit DistributedUnionFind(Exchange& exchange)
    : X(exchange)
  {
  }

  /// Adds `proposals` at their components' homes and returns, for each label of `asked`, the key
  /// of the least proposal of that component so far over all ranks (+inf: none). Collective.
  std::vector<double> propose(
    const std::vector<Candidate>& proposals, const std::vector<std::uint64_t>& asked);

  /// Adds `proposals`, then merges every component along its least proposal. Returns the chosen
  /// edges that this rank owns (rankLo == this rank), each chosen edge on exactly one rank;
  /// newLabels[k] = the label of asked[k]'s merged component. Collective; `merges` gets the global
  /// number of components that were hooked (so components after = before - merges).
  std::vector<Candidate> merge(const std::vector<Candidate>& proposals,
    const std::vector<std::uint64_t>& asked, std::vector<std::uint64_t>& newLabels,
    std::uint64_t& merges);

  /// The bytes the homes hold now (for the peak-memory estimate).
  std::size_t bytes() const { return this->Best.size() * (sizeof(Candidate) + 32); }

private:
  void deliver(const std::vector<Candidate>& proposals);
  /// Sends each asked label to its home; the home answers with answer(label).
  template <class Reply, class Answer>
  std::vector<Reply> ask(const std::vector<std::uint64_t>& asked, Answer&& answer);

  Exchange& X;
  std::unordered_map<std::uint64_t, Candidate> Best; ///< at this home: least proposal per label
};

} // namespace detail
} // namespace emst
