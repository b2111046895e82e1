// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
#include "distributed/DistributedUnionFind.h"

#include <algorithm>
#include <limits>
#include <string>

namespace emst
{
namespace detail
{
namespace
{

struct Asked
{
  std::uint64_t label;
  std::uint64_t position; ///< in the asking rank's list
};

template <class Reply>
struct Answered
{
  std::uint64_t position;
  Reply reply;
};

/// A question about label `of`, asked for label `for`.
struct About
{
  std::uint64_t of;
  std::uint64_t asker;
};

struct Told
{
  std::uint64_t asker;
  std::uint64_t value;
};

/// Pointer jumping gives up after this many steps: far more than any forest of 2^64 labels
/// needs (each step halves every path), so only a broken proposal (a cycle) reaches it.
constexpr int kMaxJumps = 80;

} // namespace

void DistributedUnionFind::deliver(const std::vector<Candidate>& proposals)
{
  PerRank<Candidate> outbox = this->X.outbox<Candidate>();
  for (const Candidate& c : proposals)
  {
    if (c.exists())
    {
      outbox[static_cast<std::size_t>(homeOf(c.from, this->X.size()))].push_back(c);
    }
  }
  for (const std::vector<Candidate>& from : this->X.allToAll(std::move(outbox)))
  {
    for (const Candidate& c : from)
    {
      auto const [it, inserted] = this->Best.emplace(c.from, c);
      if (!inserted && c.betterThan(it->second))
      {
        it->second = c;
      }
    }
  }
}

template <class Reply, class Answer>
std::vector<Reply> DistributedUnionFind::ask(
  const std::vector<std::uint64_t>& asked, Answer&& answer)
{
  PerRank<Asked> questions = this->X.outbox<Asked>();
  for (std::size_t k = 0; k < asked.size(); ++k)
  {
    questions[static_cast<std::size_t>(homeOf(asked[k], this->X.size()))].push_back(
      Asked{ asked[k], k });
  }
  PerRank<Asked> const received = this->X.allToAll(std::move(questions));
  questions.clear();
  PerRank<Answered<Reply>> replies = this->X.outbox<Answered<Reply>>();
  for (std::size_t s = 0; s < received.size(); ++s)
  {
    for (const Asked& q : received[s])
    {
      replies[s].push_back(Answered<Reply>{ q.position, answer(q.label) });
    }
  }
  std::vector<Reply> result(asked.size());
  for (const auto& from : this->X.allToAll(std::move(replies)))
  {
    for (const Answered<Reply>& a : from)
    {
      result[a.position] = a.reply;
    }
  }
  return result;
}

std::vector<double> DistributedUnionFind::propose(
  const std::vector<Candidate>& proposals, const std::vector<std::uint64_t>& asked)
{
  this->deliver(proposals);
  return this->ask<double>(asked,
    [this](std::uint64_t label)
    {
      auto const it = this->Best.find(label);
      return it != this->Best.end() ? it->second.key : std::numeric_limits<double>::infinity();
    });
}

std::vector<Candidate> DistributedUnionFind::merge(const std::vector<Candidate>& proposals,
  const std::vector<std::uint64_t>& asked, std::vector<std::uint64_t>& newLabels,
  std::uint64_t& merges)
{
  this->deliver(proposals);
  int const p = this->X.size();

  // 1. Each component's target T, and T's own target: mutual pairs are the roots' edges.
  PerRank<About> targetQuestions = this->X.outbox<About>();
  for (const auto& [label, best] : this->Best)
  {
    targetQuestions[static_cast<std::size_t>(homeOf(best.to, p))].push_back(
      About{ best.to, label });
  }
  PerRank<About> const targetAsked = this->X.allToAll(std::move(targetQuestions));
  targetQuestions.clear();
  PerRank<Told> targetReplies = this->X.outbox<Told>();
  for (std::size_t s = 0; s < targetAsked.size(); ++s)
  {
    for (const About& q : targetAsked[s])
    {
      auto const it = this->Best.find(q.of);
      targetReplies[s].push_back(
        Told{ q.asker, it == this->Best.end() ? kNoLabel : it->second.to });
    }
  }
  // parent[L] for the labels homed here that proposed; the others are roots.
  std::unordered_map<std::uint64_t, std::uint64_t> parent;
  parent.reserve(this->Best.size());
  for (const auto& from : this->X.allToAll(std::move(targetReplies)))
  {
    for (const Told& t : from)
    {
      Candidate const& best = this->Best.at(t.asker);
      bool const root = t.value == t.asker && t.asker < best.to;
      parent[t.asker] = root ? t.asker : best.to;
    }
  }

  // 2. Every hooked component's edge is a tree edge: to its owner.
  PerRank<Candidate> chosen = this->X.outbox<Candidate>();
  std::uint64_t hooked = 0;
  for (const auto& [label, up] : parent)
  {
    if (up != label)
    {
      Candidate const& edge = this->Best.at(label);
      chosen[edge.rankLo].push_back(edge);
      ++hooked;
    }
  }
  std::vector<Candidate> owned;
  for (const auto& from : this->X.allToAll(std::move(chosen)))
  {
    owned.insert(owned.end(), from.begin(), from.end());
  }
  chosen.clear();

  // 3. Pointer jumping: parent[L] = parent[parent[L]] until every parent is a root.
  std::vector<std::uint64_t> jumping;
  for (const auto& [label, up] : parent)
  {
    if (up != label)
    {
      jumping.push_back(label);
    }
  }
  std::unordered_map<std::uint64_t, std::uint64_t> rootOf;
  for (int step = 0;; ++step)
  {
    if (this->X.sum(jumping.size()) == 0)
    {
      break;
    }
    if (step == kMaxJumps)
    {
      throw Error(ErrorCode::Internal,
        "distributed union-find: the components' choices form a cycle (pointer jumping did "
        "not end)");
    }
    PerRank<About> questions = this->X.outbox<About>();
    for (std::uint64_t label : jumping)
    {
      std::uint64_t const up = parent.at(label);
      questions[static_cast<std::size_t>(homeOf(up, p))].push_back(About{ up, label });
    }
    PerRank<About> const asked2 = this->X.allToAll(std::move(questions));
    // Answers from the parents before this step's updates: a synchronous doubling step.
    PerRank<Told> replies = this->X.outbox<Told>();
    for (std::size_t s = 0; s < asked2.size(); ++s)
    {
      for (const About& q : asked2[s])
      {
        auto const it = parent.find(q.of);
        replies[s].push_back(Told{ q.asker, it == parent.end() ? q.of : it->second });
      }
    }
    std::vector<std::uint64_t> still;
    for (const auto& from : this->X.allToAll(std::move(replies)))
    {
      for (const Told& t : from)
      {
        std::uint64_t const up = parent.at(t.asker);
        if (t.value == up) // up is a root
        {
          rootOf[t.asker] = up;
        }
        else
        {
          parent[t.asker] = t.value;
          still.push_back(t.asker);
        }
      }
    }
    jumping.swap(still);
  }

  // 4. The merged component's label: the smallest label of its tree, found at the root's home.
  PerRank<About> members = this->X.outbox<About>();
  for (const auto& [label, root] : rootOf)
  {
    members[static_cast<std::size_t>(homeOf(root, p))].push_back(About{ root, label });
  }
  std::unordered_map<std::uint64_t, std::uint64_t> newLabel; // at this home
  PerRank<About> const memberOf = this->X.allToAll(std::move(members));
  members.clear();
  for (const auto& from : memberOf)
  {
    for (const About& m : from)
    {
      auto const [it, inserted] = newLabel.emplace(m.of, std::min(m.of, m.asker));
      if (!inserted)
      {
        it->second = std::min(it->second, m.asker);
      }
    }
  }
  PerRank<Told> treeMin = this->X.outbox<Told>();
  for (std::size_t s = 0; s < memberOf.size(); ++s)
  {
    for (const About& m : memberOf[s])
    {
      treeMin[s].push_back(Told{ m.asker, newLabel.at(m.of) });
    }
  }
  for (const auto& from : this->X.allToAll(std::move(treeMin)))
  {
    for (const Told& t : from)
    {
      newLabel[t.asker] = t.value;
    }
  }

  // 5. The asked labels' new labels.
  newLabels = this->ask<std::uint64_t>(asked,
    [&newLabel](std::uint64_t label)
    {
      auto const it = newLabel.find(label);
      return it == newLabel.end() ? label : it->second;
    });
  merges = this->X.sum(hooked);
  this->Best.clear();
  return owned;
}

} // namespace detail
} // namespace emst
