// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// FindMin2's per-component minimum (ComponentMinimumEdge, Kernels/src/phases/ComponentMerge.h)
// against its definition, by brute force: among the points of a component whose answer's float
// bound is the component's (the contenders), the one whose answer comes first under (exact key,
// index pair). Its winner slots are not cleared before the pass, so the slots start with what a
// round leaves there (list entries, leaf runs, labels); the winner must not depend on it. The
// engine's trees cannot tell a right winner from a wrong one that happens to give the same
// weight; these tests can.
#include "phases/ComponentMerge.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace
{
using emst::detail::CandidateArrays;
using emst::detail::ComponentMinimumEdge;
using emst::detail::floatBits;
using emst::detail::Index;
using emst::detail::kNone;
using emst::detail::PointArrays;
using emst::detail::PointRecord;

/// A metric whose key of a point's answer is a table entry (ComponentMinimumEdge reads only
/// key(p, answer of p)).
struct TableMetric
{
  const double* keyOfPoint;
  double key(Index p, Index) const { return keyOfPoint[p]; }
};

/// A random round's answers: m points in k components; keys from few values (ties the pair must
/// break) whose floats are coarser still (equal float bounds the exact keys must order); each
/// component's bound the least float bound of its answers, as the searches leave it.
struct Round
{
  Round(std::size_t m, std::size_t k, std::uint32_t seed)
    : record(m)
    , input(m)
    , candidate(m, kNone)
    , bound(m, 0.0f)
    , key(m, -1.0)
    , boundOfComp(k, floatBits(emst::detail::floatInfinity()))
  {
    std::mt19937 random(seed);
    std::iota(this->input.begin(), this->input.end(), Index(0));
    std::shuffle(this->input.begin(), this->input.end(), random);
    for (std::size_t p = 0; p < m; ++p)
    {
      this->record[p] = PointRecord{ { 0.0f, 0.0f, 0.0f }, static_cast<Index>(random() % k) };
    }
    for (std::size_t p = 0; p < m; ++p)
    {
      if (random() % 4 == 0)
      {
        continue; // no answer
      }
      Index q = static_cast<Index>(random() % m);
      while (this->record[q].comp == this->record[p].comp)
      {
        q = static_cast<Index>(random() % m);
      }
      this->candidate[p] = q;
      this->key[p] = 1.0 + 0.25 * static_cast<double>(random() % 6); // ties
      // A float at least the key, coarser than the keys: 1.0 and 1.25 share one.
      this->bound[p] = this->key[p] <= 1.25 ? 1.25f : static_cast<float>(this->key[p]);
      Index const c = this->record[p].comp;
      this->boundOfComp[c] = std::min(this->boundOfComp[c], floatBits(this->bound[p]));
    }
  }

  PointArrays points()
  {
    PointArrays a{};
    a.recordOfPoint = this->record.data();
    a.inputOfPoint = this->input.data();
    a.leafWords = nullptr;
    a.count = static_cast<Index>(this->record.size());
    return a;
  }
  CandidateArrays candidates()
  {
    CandidateArrays a{};
    a.candidateOfPoint = this->candidate.data();
    a.boundOfPoint = this->bound.data();
    return a;
  }

  /// The contenders of component c.
  std::vector<Index> contenders(Index c) const
  {
    std::vector<Index> out;
    for (std::size_t p = 0; p < this->record.size(); ++p)
    {
      if (this->candidate[p] != kNone && this->record[p].comp == c &&
        floatBits(this->bound[p]) == this->boundOfComp[c])
      {
        out.push_back(static_cast<Index>(p));
      }
    }
    return out;
  }

  /// The reference winner of component c: its first contender under (key, index pair).
  Index winner(Index c) const
  {
    auto pair = [&](Index p)
    {
      Index const a = this->input[p];
      Index const b = this->input[this->candidate[p]];
      return (static_cast<std::uint64_t>(std::min(a, b)) << 32) | std::max(a, b);
    };
    Index best = kNone;
    for (Index p : this->contenders(c))
    {
      if (best == kNone || this->key[p] < this->key[best] ||
        (this->key[p] == this->key[best] && pair(p) < pair(best)))
      {
        best = p;
      }
    }
    return best;
  }

  std::vector<PointRecord> record;
  std::vector<Index> input;
  std::vector<Index> candidate;
  std::vector<float> bound;
  std::vector<double> key;
  std::vector<std::uint32_t> boundOfComp;
};

/// What a slot may hold when FindMin2 starts.
enum class Slot
{
  Empty,           ///< kNone
  Garbage,         ///< any word, below and above m
  LosingContender, ///< a contender of the component that does not win
  OtherComponent,  ///< a contender of another component
  NonContender,    ///< a point of the component whose answer's bound is another, or none
  Winner           ///< the winner itself
};

TEST(ComponentMerge, MinimumEdgeDoesNotDependOnWhatTheSlotsHeld)
{
  for (std::uint32_t seed = 1; seed <= 6; ++seed)
  {
    std::size_t const m = 3000;
    std::size_t const k = seed % 2 ? 40 : 700; // many contenders a component, or few
    Round round(m, k, seed);
    std::vector<Index> expected(k, kNone);
    for (Index c = 0; c < k; ++c)
    {
      expected[c] = round.winner(c);
    }
    std::mt19937 random(seed * 7919u);
    for (Slot const start : { Slot::Empty, Slot::Garbage, Slot::LosingContender,
           Slot::OtherComponent, Slot::NonContender, Slot::Winner })
    {
      SCOPED_TRACE(
        "seed " + std::to_string(seed) + ", slots " + std::to_string(static_cast<int>(start)));
      std::vector<Index> winnerOfComp(k);
      for (Index c = 0; c < k; ++c)
      {
        std::vector<Index> const mine = round.contenders(c);
        std::vector<Index> const theirs = round.contenders((c + 1) % k);
        Index value = static_cast<Index>(random());
        if (start == Slot::Empty)
        {
          value = kNone;
        }
        else if (start == Slot::Garbage)
        {
          value = random() % 2 ? static_cast<Index>(random() % (2 * m)) : value;
        }
        else if (start == Slot::LosingContender && mine.size() > 1)
        {
          value = mine[0] != expected[c] ? mine[0] : mine[1];
        }
        else if (start == Slot::OtherComponent && !theirs.empty())
        {
          value = theirs[random() % theirs.size()];
        }
        else if (start == Slot::NonContender)
        {
          for (std::size_t p = 0; p < m; ++p)
          {
            if (round.record[p].comp == c &&
              (round.candidate[p] == kNone || floatBits(round.bound[p]) != round.boundOfComp[c]))
            {
              value = static_cast<Index>(p);
              break;
            }
          }
        }
        else if (start == Slot::Winner)
        {
          value = expected[c];
        }
        winnerOfComp[c] = value;
      }
      ComponentMinimumEdge<TableMetric> const find{ TableMetric{ round.key.data() }, round.points(),
        round.candidates(), round.boundOfComp.data(), winnerOfComp.data() };
      // Every point once, in an order of their own, by as many threads as the CPU backend has.
      std::vector<std::size_t> order(m);
      std::iota(order.begin(), order.end(), std::size_t(0));
      std::shuffle(order.begin(), order.end(), random);
#pragma omp parallel for schedule(dynamic, 16)
      for (long i = 0; i < static_cast<long>(m); ++i)
      {
        find(order[static_cast<std::size_t>(i)]);
      }
      std::size_t wrong = 0;
      std::size_t contested = 0;
      for (Index c = 0; c < k; ++c)
      {
        if (expected[c] != kNone)
        {
          ++contested;
          wrong += winnerOfComp[c] != expected[c] ? 1 : 0;
        }
      }
      EXPECT_EQ(wrong, 0u);
      EXPECT_GT(contested, k / 2); // the round is not empty
    }
  }
}

} // namespace
