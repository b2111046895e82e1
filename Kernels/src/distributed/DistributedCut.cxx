// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The threshold cut of a distributed forest (emst/Distributed.h: DistributedTreeCutter): the
// groups of the kept edges, labelled by their smallest global id, with the same cluster ranks as
// TreeCutter (decreasing size, ties by smallest id), and no array of all points or clusters on
// any rank except the clusters' sizes on rank 0 (the cluster table's rows).
//
// Each rank first joins its own points along the kept edges whose ends are both here (a local
// union-find); the edges with a remote end (sent to that end's rank too at construction, so that
// both ends' components see every edge they touch) then join the local groups across ranks by
// DistributedUnionFind's Borůvka merges: each group proposes its least kept cross edge under
// (length, i, j), which keeps the hooking graph a forest of 2-cycles. Components halve per round.
#include "emst/Distributed.h"

#include "backends/Backends.h"
#include "distributed/DistributedUnionFind.h"
#include "distributed/Exchange.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>

namespace emst
{
namespace detail
{
namespace
{

std::uint64_t lengthBits(double length)
{
  std::uint64_t bits;
  std::memcpy(&bits, &length, sizeof bits);
  return bits;
}

bool edgeLess(const ForestEdge& a, const ForestEdge& b)
{
  if (a.length != b.length)
  {
    return a.length < b.length;
  }
  return a.i != b.i ? a.i < b.i : a.j < b.j;
}

/// Whether edge e is kept by a cut whose last kept edge is `last`.
bool notAbove(const ForestEdge& e, const DistributedTreeCutter::EdgeOrder& last)
{
  if (e.length != last.length)
  {
    return e.length < last.length;
  }
  return e.i != last.i ? e.i < last.i : e.j <= last.j;
}

/// The least x in [lo, hi] with holds(x), for a predicate that is false then true along the range
/// (and true at hi): a binary search.
template <class Predicate>
std::uint64_t leastSatisfying(std::uint64_t lo, std::uint64_t hi, Predicate&& holds)
{
  while (lo < hi)
  {
    std::uint64_t const mid = lo + (hi - lo) / 2;
    if (holds(mid))
    {
      hi = mid;
    }
    else
    {
      lo = mid + 1;
    }
  }
  return lo;
}

/// An edge with a remote end, as one end's rank keeps it.
struct CrossEdge
{
  double length;
  std::uint64_t i, j;
  std::uint64_t otherId;
  std::uint32_t localEnd;
  std::uint32_t otherRank;
};

struct LabelRequest
{
  std::uint64_t id;
  std::uint64_t position;
};

struct LabelReply
{
  std::uint64_t position;
  std::uint64_t label;
};

struct ClusterOfLabel
{
  std::uint64_t label;
  std::uint64_t size;
};

struct IdOfLabel
{
  std::uint64_t label;
  std::int64_t cluster; ///< -1: noise
};

struct PointAnswer
{
  std::uint64_t position;
  std::int64_t cluster;
  std::int64_t size;
};

} // namespace
} // namespace detail

class DistributedTreeCutter::Impl
{
public:
  Impl(Communicator& comm, std::size_t points, const std::uint64_t* globalIds,
    std::vector<ForestEdge> owned)
    : Comm(comm)
    , X(comm, Traffic)
    , Points(points)
    , Edges(std::move(owned))
  {
    using namespace detail;
    Agreement agreement(comm);
    try
    {
      checkPointCount(points);
      for (ForestEdge& e : this->Edges)
      {
        if (std::isnan(e.length) || e.length < 0.0)
        {
          throw Error(ErrorCode::InvalidInput, "an edge length is negative or NaN");
        }
        e.length = e.length + 0.0; // -0 becomes +0: lengths are compared by their bits too
        if (e.i >= e.j || e.localEnd >= points || (!e.otherRemote && e.otherLocal >= points) ||
          (e.otherRemote && static_cast<int>(e.otherRank) >= comm.size()))
        {
          throw Error(ErrorCode::InvalidInput,
            "edge (" + std::to_string(e.i) + ", " + std::to_string(e.j) +
              ") has an end that is not a point");
        }
      }
    }
    catch (const Error& error)
    {
      agreement.fail(error);
    }
    agreement.agree();
    bool const givenIds = agreeOnGivenIds(comm, points, globalIds);
    std::sort(this->Edges.begin(), this->Edges.end(), edgeLess);

    std::vector<std::uint64_t> const counts =
      this->X.allGather(std::vector<std::uint64_t>{ points });
    std::uint64_t offset = 0;
    for (int r = 0; r < comm.rank(); ++r)
    {
      offset += counts[static_cast<std::size_t>(r)];
    }
    for (std::uint64_t c : counts)
    {
      this->GlobalPoints += c;
    }
    this->IdOf.resize(points);
    if (givenIds)
    {
      std::copy(globalIds, globalIds + points, this->IdOf.begin());
      this->ById.resize(points);
      for (std::size_t k = 0; k < points; ++k)
      {
        this->ById[k] = { this->IdOf[k], static_cast<std::uint32_t>(k) };
      }
      std::sort(this->ById.begin(), this->ById.end());
    }
    else
    {
      std::iota(this->IdOf.begin(), this->IdOf.end(), offset);
      this->Offset = offset;
    }
    this->GlobalEdges = this->X.sum(this->Edges.size());
    double longest = this->Edges.empty() ? 0.0 : this->Edges.back().length;
    comm.allReduce(&longest, 1, Communicator::Op::Max);
    this->Longest = longest;

    // Cross edges: kept here and sent to the other end's rank.
    PerRank<CrossEdge> mirror = this->X.outbox<CrossEdge>();
    for (const ForestEdge& e : this->Edges)
    {
      if (!e.otherRemote)
      {
        continue;
      }
      std::uint64_t const here = e.localIsI ? e.i : e.j;
      std::uint64_t const there = e.localIsI ? e.j : e.i;
      this->Cross.push_back(CrossEdge{ e.length, e.i, e.j, there, e.localEnd, e.otherRank });
      mirror[e.otherRank].push_back(
        CrossEdge{ e.length, e.i, e.j, here, 0, static_cast<std::uint32_t>(comm.rank()) });
    }
    std::vector<std::uint64_t> unknown;
    std::vector<CrossEdge> received = concatenate(this->X.allToAll(std::move(mirror)));
    for (CrossEdge& c : received)
    {
      std::uint64_t const mine = c.otherId == c.i ? c.j : c.i;
      std::uint32_t const local = this->localOf(mine);
      if (local == std::numeric_limits<std::uint32_t>::max())
      {
        unknown.push_back(mine);
        continue;
      }
      c.localEnd = local;
      this->Cross.push_back(c);
    }
    Agreement holds(comm);
    if (!unknown.empty())
    {
      holds.fail(Error(ErrorCode::InvalidInput,
        "another rank names point " + std::to_string(unknown.front()) +
          " as held here, but it is not"));
    }
    holds.agree();
  }

  /// This rank's index of global id `id`, or UINT32_MAX.
  std::uint32_t localOf(std::uint64_t id) const
  {
    if (this->ById.empty())
    {
      return id >= this->Offset && id - this->Offset < this->Points
        ? static_cast<std::uint32_t>(id - this->Offset)
        : std::numeric_limits<std::uint32_t>::max();
    }
    auto const it =
      std::lower_bound(this->ById.begin(), this->ById.end(), std::make_pair(id, std::uint32_t(0)));
    return it != this->ById.end() && it->first == id ? it->second
                                                     : std::numeric_limits<std::uint32_t>::max();
  }

  std::uint64_t countNotAbove(const EdgeOrder& last) const
  {
    auto const it = std::upper_bound(this->Edges.begin(), this->Edges.end(), last,
      [](const EdgeOrder& o, const ForestEdge& e) { return !detail::notAbove(e, o); });
    return static_cast<std::uint64_t>(it - this->Edges.begin());
  }

  EdgeOrder kthEdge(std::uint64_t k)
  {
    using namespace detail;
    if (k == 0 || k > this->GlobalEdges)
    {
      throw Error(ErrorCode::InvalidInput, "kthEdge: k out of range");
    }
    constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
    // Least length (by bits: non-negative doubles order like them) with at least k edges <= it.
    auto countBits = [this](std::uint64_t bits)
    {
      double length;
      std::memcpy(&length, &bits, sizeof length);
      return this->X.sum(this->countNotAbove(EdgeOrder{ length, kMax, kMax }));
    };
    std::uint64_t const bits = leastSatisfying(
      0, lengthBits(this->Longest), [&](std::uint64_t b) { return countBits(b) >= k; });
    double length;
    std::memcpy(&length, &bits, sizeof length);
    std::uint64_t const below = bits == 0 ? 0 : countBits(bits - 1);
    // Then the least (i, j) among the edges of that length.
    auto count = [&](std::uint64_t i, std::uint64_t j) {
      return this->X.sum(this->countNotAbove(EdgeOrder{ length, i, j })) - below;
    };
    std::uint64_t const r = k - below;
    std::uint64_t const ilo =
      leastSatisfying(0, kMax, [&](std::uint64_t i) { return count(i, kMax) >= r; });
    std::uint64_t const jlo =
      leastSatisfying(0, kMax, [&](std::uint64_t j) { return count(ilo, j) >= r; });
    return EdgeOrder{ length, ilo, jlo };
  }

  DistributedClustering cut(const EdgeOrder& last, std::size_t minimumSize, std::int32_t* clusterId,
    std::int64_t* groupSize, const std::vector<std::uint64_t>& askedIds,
    const std::vector<std::uint32_t>& askedRanks, std::int32_t* askedClusterId,
    std::int64_t* askedGroupSize)
  {
    using namespace detail;
    auto const start = std::chrono::steady_clock::now();
    DistributedClustering result;
    int const p = this->Comm.size();
    std::size_t const n = this->Points;
    std::uint64_t const kept = this->countNotAbove(last);
    result.keptEdges = this->X.sum(kept);

    // Local groups: a union-find over this rank's points, linked to the smaller index.
    std::vector<std::uint32_t> parent(n);
    std::iota(parent.begin(), parent.end(), 0u);
    auto find = [&parent](std::uint32_t x)
    {
      while (parent[x] != x)
      {
        parent[x] = parent[parent[x]];
        x = parent[x];
      }
      return x;
    };
    for (std::uint64_t e = 0; e < kept; ++e)
    {
      const ForestEdge& edge = this->Edges[e];
      if (!edge.otherRemote)
      {
        std::uint32_t const a = find(edge.localEnd);
        std::uint32_t const b = find(edge.otherLocal);
        parent[std::max(a, b)] = std::min(a, b);
      }
    }
    // Group g of each point, and its label (smallest global id).
    std::vector<std::uint32_t> groupOf(n);
    std::vector<std::uint64_t> label;
    for (std::uint32_t k = 0; k < n; ++k)
    {
      std::uint32_t const root = find(k);
      if (root == k)
      {
        groupOf[k] = static_cast<std::uint32_t>(label.size());
        label.push_back(this->IdOf[k]);
      }
      else
      {
        groupOf[k] = groupOf[root];
        label[groupOf[k]] = std::min(label[groupOf[k]], this->IdOf[k]);
      }
    }
    std::vector<std::uint32_t>().swap(parent);

    // The kept cross edges, then Borůvka merges until no group has one leaving it.
    std::vector<CrossEdge> cross;
    for (const CrossEdge& c : this->Cross)
    {
      ForestEdge e;
      e.length = c.length;
      e.i = c.i;
      e.j = c.j;
      if (notAbove(e, last))
      {
        cross.push_back(c);
      }
    }
    DistributedUnionFind unionFind(this->X);
    for (int round = 0;; ++round)
    {
      if (this->X.sum(cross.size()) == 0)
      {
        break;
      }
      if (round > 200)
      {
        throw Error(ErrorCode::Internal, "distributed cut: the merges do not end");
      }
      // The current label of each cross edge's remote end, from its rank.
      std::vector<std::uint64_t> remoteLabel = this->labelsAt(cross, groupOf, label);
      std::vector<std::uint64_t> labels(label);
      std::sort(labels.begin(), labels.end());
      labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
      std::vector<Candidate> best(labels.size());
      auto partOf = [&labels](std::uint64_t l)
      {
        return static_cast<std::size_t>(
          std::lower_bound(labels.begin(), labels.end(), l) - labels.begin());
      };
      std::size_t keep = 0;
      for (std::size_t c = 0; c < cross.size(); ++c)
      {
        std::uint64_t const mine = label[groupOf[cross[c].localEnd]];
        if (mine == remoteLabel[c])
        {
          continue; // joined for good
        }
        cross[keep++] = cross[c];
        Candidate candidate;
        candidate.key = cross[c].length;
        candidate.lo = cross[c].i;
        candidate.hi = cross[c].j;
        candidate.from = mine;
        candidate.to = remoteLabel[c];
        candidate.length = cross[c].length;
        Candidate& b = best[partOf(mine)];
        if (candidate.betterThan(b))
        {
          b = candidate;
        }
      }
      cross.resize(keep);
      // Chosen edges go to rankLo: unused here (the tree is known), only the labels matter.
      for (Candidate& c : best)
      {
        c.rankLo = static_cast<std::uint32_t>(this->Comm.rank());
      }
      std::vector<std::uint64_t> newLabels;
      std::uint64_t merges = 0;
      unionFind.merge(best, labels, newLabels, merges);
      for (std::uint64_t& l : label)
      {
        l = newLabels[partOf(l)];
      }
    }

    // Group sizes at the labels' homes; the clusters ranked on rank 0.
    std::vector<std::uint64_t> sizeOfGroup(label.size(), 0);
    for (std::uint32_t k = 0; k < n; ++k)
    {
      ++sizeOfGroup[groupOf[k]];
    }
    PerRank<ClusterOfLabel> toHome = this->X.outbox<ClusterOfLabel>();
    for (std::size_t g = 0; g < label.size(); ++g)
    {
      toHome[static_cast<std::size_t>(homeOf(label[g], p))].push_back(
        ClusterOfLabel{ label[g], sizeOfGroup[g] });
    }
    std::vector<ClusterOfLabel> atHome = concatenate(this->X.allToAll(std::move(toHome)));
    std::sort(atHome.begin(), atHome.end(),
      [](const ClusterOfLabel& a, const ClusterOfLabel& b) { return a.label < b.label; });
    std::size_t merged = 0;
    for (std::size_t k = 0; k < atHome.size(); ++k)
    {
      if (merged > 0 && atHome[merged - 1].label == atHome[k].label)
      {
        atHome[merged - 1].size += atHome[k].size;
      }
      else
      {
        atHome[merged++] = atHome[k];
      }
    }
    atHome.resize(merged);
    result.groups = this->X.sum(atHome.size());
    PerRank<ClusterOfLabel> toZero = this->X.outbox<ClusterOfLabel>();
    std::uint64_t noise = 0;
    for (const ClusterOfLabel& c : atHome)
    {
      if (c.size >= minimumSize)
      {
        toZero[0].push_back(c);
      }
      else
      {
        noise += c.size;
      }
    }
    result.noisePoints = this->X.sum(noise);
    PerRank<IdOfLabel> ids = this->X.outbox<IdOfLabel>();
    {
      std::vector<ClusterOfLabel> clusters = concatenate(this->X.allToAll(std::move(toZero)));
      std::sort(clusters.begin(), clusters.end(),
        [](const ClusterOfLabel& a, const ClusterOfLabel& b)
        { return a.size != b.size ? a.size > b.size : a.label < b.label; });
      result.sizes.reserve(clusters.size());
      result.firstPoint.reserve(clusters.size());
      for (std::size_t c = 0; c < clusters.size(); ++c)
      {
        result.sizes.push_back(clusters[c].size);
        result.firstPoint.push_back(clusters[c].label);
        ids[static_cast<std::size_t>(homeOf(clusters[c].label, p))].push_back(
          IdOfLabel{ clusters[c].label, static_cast<std::int64_t>(c) });
      }
    }
    result.clusters = this->X.sum(result.sizes.size());
    if (result.clusters > static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max()))
    {
      throw Error(ErrorCode::InvalidInput, "more clusters than int32 cluster ids can number");
    }
    std::vector<IdOfLabel> idAtHome = concatenate(this->X.allToAll(std::move(ids)));
    std::sort(idAtHome.begin(), idAtHome.end(),
      [](const IdOfLabel& a, const IdOfLabel& b) { return a.label < b.label; });
    // Each group asks its label's home for (cluster id, size).
    auto answerAtHome = [&](std::uint64_t l, std::int64_t& cluster, std::int64_t& size)
    {
      auto const it = std::lower_bound(atHome.begin(), atHome.end(), l,
        [](const ClusterOfLabel& c, std::uint64_t v) { return c.label < v; });
      size = it != atHome.end() && it->label == l ? static_cast<std::int64_t>(it->size) : 0;
      auto const id = std::lower_bound(idAtHome.begin(), idAtHome.end(), l,
        [](const IdOfLabel& c, std::uint64_t v) { return c.label < v; });
      cluster = id != idAtHome.end() && id->label == l ? id->cluster : -1;
    };
    std::vector<std::int64_t> clusterOfGroup(label.size()), sizeOf(label.size());
    {
      PerRank<LabelRequest> asks = this->X.outbox<LabelRequest>();
      for (std::size_t g = 0; g < label.size(); ++g)
      {
        asks[static_cast<std::size_t>(homeOf(label[g], p))].push_back(LabelRequest{ label[g], g });
      }
      PerRank<LabelRequest> const asked = this->X.allToAll(std::move(asks));
      PerRank<PointAnswer> replies = this->X.outbox<PointAnswer>();
      for (std::size_t s = 0; s < asked.size(); ++s)
      {
        for (const LabelRequest& q : asked[s])
        {
          PointAnswer a{ q.position, -1, 0 };
          answerAtHome(q.id, a.cluster, a.size);
          replies[s].push_back(a);
        }
      }
      for (const auto& from : this->X.allToAll(std::move(replies)))
      {
        for (const PointAnswer& a : from)
        {
          clusterOfGroup[a.position] = a.cluster;
          sizeOf[a.position] = a.size;
        }
      }
    }
    for (std::uint32_t k = 0; k < n; ++k)
    {
      if (clusterId)
      {
        clusterId[k] = static_cast<std::int32_t>(clusterOfGroup[groupOf[k]]);
      }
      if (groupSize)
      {
        groupSize[k] = sizeOf[groupOf[k]];
      }
    }

    // The asked points, from the ranks that hold them.
    {
      PerRank<LabelRequest> asks = this->X.outbox<LabelRequest>();
      Agreement agreement(this->Comm);
      if (askedRanks.size() != askedIds.size())
      {
        agreement.fail(Error(ErrorCode::InvalidInput, "askedIds and askedRanks differ in size"));
      }
      for (std::size_t k = 0; k < askedIds.size() && k < askedRanks.size(); ++k)
      {
        if (static_cast<int>(askedRanks[k]) >= p)
        {
          agreement.fail(Error(ErrorCode::InvalidInput, "an asked point's rank does not exist"));
          break;
        }
        asks[askedRanks[k]].push_back(LabelRequest{ askedIds[k], k });
      }
      agreement.agree();
      PerRank<LabelRequest> const asked = this->X.allToAll(std::move(asks));
      PerRank<PointAnswer> replies = this->X.outbox<PointAnswer>();
      for (std::size_t s = 0; s < asked.size(); ++s)
      {
        for (const LabelRequest& q : asked[s])
        {
          std::uint32_t const k = this->localOf(q.id);
          PointAnswer a{ q.position, -1, 0 };
          if (k != std::numeric_limits<std::uint32_t>::max())
          {
            a.cluster = clusterOfGroup[groupOf[k]];
            a.size = sizeOf[groupOf[k]];
          }
          replies[s].push_back(a);
        }
      }
      for (const auto& from : this->X.allToAll(std::move(replies)))
      {
        for (const PointAnswer& a : from)
        {
          if (askedClusterId)
          {
            askedClusterId[a.position] = static_cast<std::int32_t>(a.cluster);
          }
          if (askedGroupSize)
          {
            askedGroupSize[a.position] = a.size;
          }
        }
      }
    }
    result.milliseconds =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return result;
  }

  /// The current label of each cross edge's remote end, asked from the rank that holds it.
  std::vector<std::uint64_t> labelsAt(const std::vector<detail::CrossEdge>& cross,
    const std::vector<std::uint32_t>& groupOf, const std::vector<std::uint64_t>& label)
  {
    using namespace detail;
    PerRank<LabelRequest> asks = this->X.outbox<LabelRequest>();
    for (std::size_t c = 0; c < cross.size(); ++c)
    {
      asks[cross[c].otherRank].push_back(LabelRequest{ cross[c].otherId, c });
    }
    PerRank<LabelRequest> const asked = this->X.allToAll(std::move(asks));
    PerRank<LabelReply> replies = this->X.outbox<LabelReply>();
    for (std::size_t s = 0; s < asked.size(); ++s)
    {
      for (const LabelRequest& q : asked[s])
      {
        std::uint32_t const k = this->localOf(q.id);
        replies[s].push_back(LabelReply{ q.position,
          k == std::numeric_limits<std::uint32_t>::max() ? kNoLabel : label[groupOf[k]] });
      }
    }
    std::vector<std::uint64_t> result(cross.size(), kNoLabel);
    for (const auto& from : this->X.allToAll(std::move(replies)))
    {
      for (const LabelReply& r : from)
      {
        result[r.position] = r.label;
      }
    }
    return result;
  }

  Communicator& Comm;
  detail::TrafficCount Traffic;
  detail::Exchange X;
  std::size_t Points;
  std::vector<ForestEdge> Edges;                             ///< owned, sorted by (length, i, j)
  std::vector<std::uint64_t> IdOf;                           ///< [Points]
  std::vector<std::pair<std::uint64_t, std::uint32_t>> ById; ///< (id, index) sorted, or empty
  std::uint64_t Offset = 0;             ///< ids are Offset + index when ById is empty
  std::vector<detail::CrossEdge> Cross; ///< edges with a remote end, owned or mirrored
  std::uint64_t GlobalPoints = 0;
  std::uint64_t GlobalEdges = 0;
  double Longest = 0.0;
};

DistributedTreeCutter::DistributedTreeCutter(Communicator& comm, std::size_t points,
  const std::uint64_t* globalIds, std::vector<ForestEdge> ownedEdges)
  : Pimpl(new Impl(comm, points, globalIds, std::move(ownedEdges)))
{
}

DistributedTreeCutter::~DistributedTreeCutter()
{
  delete this->Pimpl;
}

std::uint64_t DistributedTreeCutter::globalPoints() const
{
  return this->Pimpl->GlobalPoints;
}

std::uint64_t DistributedTreeCutter::globalEdges() const
{
  return this->Pimpl->GlobalEdges;
}

double DistributedTreeCutter::longestEdge() const
{
  return this->Pimpl->Longest;
}

const std::vector<ForestEdge>& DistributedTreeCutter::sortedEdges() const
{
  return this->Pimpl->Edges;
}

std::vector<std::uint64_t> DistributedTreeCutter::edgesAtMost(const std::vector<double>& thresholds)
{
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  std::vector<std::uint64_t> counts(thresholds.size());
  for (std::size_t k = 0; k < thresholds.size(); ++k)
  {
    counts[k] = std::isnan(thresholds[k])
      ? 0
      : this->Pimpl->countNotAbove(EdgeOrder{ thresholds[k], kMax, kMax });
  }
  this->Pimpl->Comm.allReduce(counts.data(), counts.size(), Communicator::Op::Sum);
  return counts;
}

DistributedTreeCutter::EdgeOrder DistributedTreeCutter::kthEdge(std::uint64_t k)
{
  return this->Pimpl->kthEdge(k);
}

DistributedClustering DistributedTreeCutter::cut(const EdgeOrder& last,
  std::size_t minimumClusterSize, std::int32_t* clusterId, std::int64_t* groupSize,
  const std::vector<std::uint64_t>& askedIds, const std::vector<std::uint32_t>& askedRanks,
  std::int32_t* askedClusterId, std::int64_t* askedGroupSize)
{
  return this->Pimpl->cut(last, minimumClusterSize, clusterId, groupSize, askedIds, askedRanks,
    askedClusterId, askedGroupSize);
}

std::vector<ClusterSummary> mergeClusterSummaries(
  Communicator& comm, std::vector<ClusterSummary> partial)
{
  using namespace detail;
  TrafficCount traffic;
  Exchange x(comm, traffic);
  auto merge = [](std::vector<ClusterSummary>& list)
  {
    std::sort(list.begin(), list.end(),
      [](const ClusterSummary& a, const ClusterSummary& b) { return a.cluster < b.cluster; });
    std::size_t kept = 0;
    for (std::size_t k = 0; k < list.size(); ++k)
    {
      if (kept > 0 && list[kept - 1].cluster == list[k].cluster)
      {
        ClusterSummary& into = list[kept - 1];
        const ClusterSummary& from = list[k];
        into.points += from.points;
        for (int a = 0; a < 3; ++a)
        {
          into.sum[a] += from.sum[a];
          into.lo[a] = std::min(into.lo[a], from.lo[a]);
          into.hi[a] = std::max(into.hi[a], from.hi[a]);
        }
        into.longestEdge = std::max(into.longestEdge, from.longestEdge);
      }
      else
      {
        list[kept++] = list[k];
      }
    }
    list.resize(kept);
  };
  // Merged at the clusters' homes first (in rank order there), then all sent to rank 0.
  PerRank<ClusterSummary> toHome = x.outbox<ClusterSummary>();
  for (const ClusterSummary& s : partial)
  {
    toHome[static_cast<std::size_t>(homeOf(static_cast<std::uint64_t>(s.cluster), x.size()))]
      .push_back(s);
  }
  std::vector<ClusterSummary>().swap(partial);
  std::vector<ClusterSummary> atHome = concatenate(x.allToAll(std::move(toHome)));
  std::stable_sort(atHome.begin(), atHome.end(),
    [](const ClusterSummary& a, const ClusterSummary& b) { return a.cluster < b.cluster; });
  merge(atHome);
  PerRank<ClusterSummary> toZero = x.outbox<ClusterSummary>();
  toZero[0] = std::move(atHome);
  // Rank 0 holds one row per cluster of the whole cloud here: each row once in the inbox and
  // once in the result, never more.
  std::vector<ClusterSummary> all = concatenate(x.allToAll(std::move(toZero)));
  merge(all);
  return all;
}

std::vector<Edge> gatherEdgesOnRankZero(Communicator& comm, const std::vector<Edge>& local)
{
  using namespace detail;
  TrafficCount traffic;
  Exchange x(comm, traffic);
  PerRank<Edge> outbox = x.outbox<Edge>();
  outbox[0] = local;
  return concatenate(x.allToAll(std::move(outbox)));
}

} // namespace emst
