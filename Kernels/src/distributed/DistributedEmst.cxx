// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The distributed EMST (emst/Distributed.h): local trees, certification, then a distributed
// Borůvka over the fragments that certification leaves.
//
// Notation: the edges are ordered totally by (key, smaller global id, larger global id), key the
// exact key of Emst.h with the scale s of the GLOBAL box (a rank's own box would give another
// scale, and keys that underflow could then order differently). Under a total order the MST is
// unique, so any correct algorithm gives computeEmst's edges.
//
// Facts the algorithm rests on:
// (F1) The global MST lies in (union of the ranks' own MSTs T_r) + (cross-rank edges): an
//      intra-rank edge outside T_r is the largest edge of a cycle inside its rank.
// (F2) Certification. Process T_r's edges in order with a union-find over the rank's points
//      (every edge joins, certified or not), keeping per local component K the least delta(p)
//      over its points, delta(p) a lower bound of the key from p to any point of another rank.
//      Edge e = (a, b) with key k is in the global MST when minDelta(K_a) > k or minDelta(K_b) > k
//      (K_a, K_b: the components before e joins them). Proof for K_a: every edge leaving K_a is
//      larger than e. An intra-rank one is at least T_r's least edge leaving K_a (cut property
//      in the rank's complete graph), which is not among the edges processed before e (K_a is a
//      component of those), so it is e or comes after e; a cross-rank one has key >= minDelta(K_a)
//      > k. So e is the least edge of the cut (K_a, rest): it is in the MST. (Strict: an equal
//      key could win on the ids.)
// (F3) delta(p) is the least, over the other ranks' published boxes, of the key formula with the
//      box's face in place of the other point (boxLowerKey): every rounded operation of the key
//      is monotone, so it never exceeds the key of a point inside the box.
// (F4) The MST is the certified edges plus the MST of the graph with the certified components
//      ("fragments") contracted. In a Borůvka round, component C's least outgoing edge is the
//      least of (a) the uncertified T_r edges between different components, over C's ranks (the
//      least edge leaving C's points on rank r is in T_r, by the cut property on rank r: no local
//      search is needed), and (b) the cross-rank edges, found by queries: point p of C asks rank
//      t for its nearest point outside C under the total order, within C's bound (the least
//      candidate known), and only when a lower bound of the key from p to t (boxes, and the key
//      of p's earlier answers: C only grows, so the foreign set only shrinks) is within it.
#include "emst/Distributed.h"

#include "backends/Backends.h"
#include "base/Arithmetic.h"
#include "distributed/DistributedUnionFind.h"
#include "distributed/ExactSum.h"
#include "distributed/Exchange.h"
#include "distributed/QueryIndex.h"
#include "phases/Frame.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <new>
#include <numeric>
#include <string>

namespace emst
{
namespace detail
{
namespace
{

using Clock = std::chrono::steady_clock;
constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr std::uint32_t kNoIndex = std::numeric_limits<std::uint32_t>::max();

double millisecondsSince(Clock::time_point start)
{
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

/// The engine's output length of points a and b (OutputOrder.h, Metric.h: length): the same bits.
template <int Dim>
double edgeLength(const double* a, const double* b)
{
  double s = 0.0;
  for (int axis = 0; axis < Dim; ++axis)
  {
    double const d = dsub(a[axis], b[axis]);
    s = axis == 0 ? dmul(d, d) : dadd(s, dmul(d, d));
  }
  return std::sqrt(s);
}

/// A query: point `id` of component `label` asks for its nearest point outside `label` with key
/// at most `bound`.
struct Query
{
  std::uint64_t id;
  std::uint64_t label;
  double bound;
  double x[3];
  std::uint64_t tag; ///< the asker's number of this query
};

struct Answer
{
  std::uint64_t tag;
  std::uint64_t found; ///< 0: no point within the bound
  double key;
  std::uint64_t id;
  std::uint64_t label;
  double length;
  double x[3];
  std::uint64_t local; ///< the point's input index on the answering rank
};

/// A box another rank published, and the rank.
struct RankBox
{
  PointBox box;
  std::uint64_t rank;
};

/// An edge of this rank's own tree, in slots (local points in global-id order).
struct LocalEdge
{
  double key;
  std::uint32_t a, b; ///< slots, a < b
  double length;
};

template <int Dim>
class DistributedRun
{
public:
  DistributedRun(Communicator& comm, const DistributedOptions& options, DistributedResult& result)
    : Comm(comm)
    , Opts(options)
    , Result(result)
    , X(comm, Traffic)
    , UnionFind(X)
  {
  }

  /// Everything after the checks: `view` validated, `inputOfSlot` (empty: identity) and
  /// `idOfSlot` the global order of the local points.
  void run(const PointCloudView& view, std::vector<std::uint32_t> inputOfSlot,
    std::vector<std::uint64_t> idOfSlot)
  {
    this->InputOfSlot = std::move(inputOfSlot);
    this->IdOfSlot = std::move(idOfSlot);
    this->N = view.count;
    this->loadPoints(view);
    this->globalFrame();
    this->phase("local tree", [&] { this->localTree(view); });
    this->phase("certification", [&] { this->certify(); });
    this->rounds();
    this->phase("output", [&] { this->output(); });
  }

private:
  template <class F>
  void phase(const char* name, F&& f)
  {
    Clock::time_point const start = Clock::now();
    f();
    this->Result.stats.phases.push_back(PhaseTime{ name, millisecondsSince(start) });
    this->notePeak();
  }

  std::size_t stepQueries() const { return std::max<std::size_t>(1, this->Opts.queriesPerStep); }

  /// The host loops' threads: the engine's cpuThreads when set, else the OpenMP default.
  int threads() const
  {
    return this->Opts.engine.cpuThreads > 0 ? this->Opts.engine.cpuThreads : omp_get_max_threads();
  }

  std::uint32_t inputOf(std::uint32_t slot) const
  {
    return this->InputOfSlot.empty() ? slot : this->InputOfSlot[slot];
  }
  const double* xOf(std::uint32_t slot) const { return this->Xyz.data() + 3 * std::size_t(slot); }

  void notePeak()
  {
    std::size_t const n = this->N;
    std::size_t bytes =
      n * (3 * sizeof(double) + 3 * sizeof(std::uint64_t) + 2 * sizeof(std::uint32_t) + 1) +
      this->Pending.capacity() * sizeof(LocalEdge) +
      this->LocalEdges.capacity() * sizeof(LocalEdge) +
      this->Owned.capacity() * sizeof(DistributedEdge) + this->UnionFind.bytes() +
      this->MessageBytes;
    if (this->Index)
    {
      bytes += this->Index->bytes();
    }
    this->Result.stats.peakHostBytes = std::max(this->Result.stats.peakHostBytes, bytes);
  }

  void progress(double fraction, const char* step)
  {
    const ProgressCallback& callback = this->Opts.engine.progress;
    if (callback && !this->Cancelled && !callback(fraction, step))
    {
      this->Cancelled = true;
    }
  }

  // ---- setup ----------------------------------------------------------------------------------

  void loadPoints(const PointCloudView& view)
  {
    std::size_t const stride = view.stride ? view.stride : static_cast<std::size_t>(Dim);
    this->Xyz.assign(3 * this->N, 0.0);
    this->Finite.assign(this->N, 0);
    for (std::size_t slot = 0; slot < this->N; ++slot)
    {
      std::size_t const k = this->inputOf(static_cast<std::uint32_t>(slot));
      bool finite = true;
      for (int a = 0; a < Dim; ++a)
      {
        double const c = view.scalarType == ScalarType::Float32
          ? static_cast<double>(static_cast<const float*>(view.data)[k * stride + a])
          : static_cast<const double*>(view.data)[k * stride + a];
        this->Xyz[3 * slot + a] = c;
        finite = finite && c - c == 0.0;
      }
      this->Finite[slot] = finite ? 1 : 0;
      this->ValidPoints += finite ? 1 : 0;
    }
    this->Result.stats.localPoints = this->N;
    this->Result.stats.localValidPoints = this->ValidPoints;
  }

  /// The global box of the finite points and the key's scale; the global counts.
  void globalFrame()
  {
    double lo[3] = { kInfinity, kInfinity, kInfinity };
    double negHi[3] = { kInfinity, kInfinity, kInfinity };
    for (std::size_t slot = 0; slot < this->N; ++slot)
    {
      if (!this->Finite[slot])
      {
        continue;
      }
      for (int a = 0; a < Dim; ++a)
      {
        lo[a] = std::min(lo[a], this->Xyz[3 * slot + a]);
        negHi[a] = std::min(negHi[a], -this->Xyz[3 * slot + a]);
      }
    }
    double box[6] = { lo[0], lo[1], lo[2], negHi[0], negHi[1], negHi[2] };
    this->Comm.allReduce(box, 6, Communicator::Op::Min);
    std::uint64_t counts[2] = { this->N, this->ValidPoints };
    this->Comm.allReduce(counts, 2, Communicator::Op::Sum);
    this->Result.stats.globalPoints = counts[0];
    this->Result.stats.globalValidPoints = counts[1];
    double extent = 0.0;
    if (counts[1] > 0)
    {
      for (int a = 0; a < Dim; ++a)
      {
        extent = std::max(extent, -box[3 + a] - box[a]);
      }
    }
    if (!std::isfinite(extent))
    {
      throw Error(ErrorCode::InvalidInput, "the coordinate range overflows double precision");
    }
    this->Scale = frameScale(extent);
  }

  // ---- the local tree -------------------------------------------------------------------------

  void localTree(const PointCloudView& view)
  {
    Agreement agreement(this->Comm);
    try
    {
      if (this->ValidPoints >= 2)
      {
        Options engine = this->Opts.engine;
        ProgressCallback const outer = engine.progress;
        if (outer)
        {
          // The local tree is the first 60% of the run; its "done" is not the run's.
          engine.progress = [outer](double fraction, const char* step)
          { return outer(0.6 * fraction, std::string(step) == "done" ? "local tree" : step); };
        }
        // In slot order: the caller's points when they are already in global-id order, else the
        // sorted copy (the engine reads doubles as it would the caller's scalars: same tree).
        PointCloudView local = view;
        if (!this->InputOfSlot.empty())
        {
          local.data = this->Xyz.data();
          local.scalarType = ScalarType::Float64;
          local.stride = 3;
        }
        emst::Result tree = computeEmstWithScale(local, engine, this->Scale);
        this->Result.localStats = tree.stats;
        this->Result.messages = tree.messages;
        this->LocalEdges.reserve(tree.edges.size());
        for (const Edge& e : tree.edges)
        {
          this->LocalEdges.push_back(LocalEdge{
            exactKey<Dim>(this->xOf(e.i), this->xOf(e.j), this->Scale), e.i, e.j, e.length });
        }
      }
    }
    catch (const Error& error)
    {
      agreement.fail(error);
    }
    catch (const std::bad_alloc&)
    {
      agreement.fail(Error(ErrorCode::OutOfMemory, "out of host memory for the local tree"));
    }
    agreement.agree();
    this->Result.stats.localTreeEdges = this->LocalEdges.size();
    // Edges in the total order (key, a, b): slots are in global-id order.
    std::sort(this->LocalEdges.begin(), this->LocalEdges.end(),
      [](const LocalEdge& x, const LocalEdge& y)
      { return x.key != y.key ? x.key < y.key : (x.a != y.a ? x.a < y.a : x.b < y.b); });
  }

  // ---- certification --------------------------------------------------------------------------

  /// The query index, the ranks' boxes, delta per point, then Kruskal with certification (F2).
  void certify()
  {
    std::vector<std::uint32_t> members;
    members.reserve(this->ValidPoints);
    for (std::uint32_t slot = 0; slot < this->N; ++slot)
    {
      if (this->Finite[slot])
      {
        members.push_back(slot);
      }
    }
    this->Index.reset(new QueryIndex<Dim>(this->Xyz.data(), std::move(members), this->threads()));
    int depth = 0;
    while ((2 << depth) <= std::max(1, this->Opts.boxesPerRank))
    {
      ++depth;
    }
    std::vector<typename QueryIndex<Dim>::Group> const groups = this->Index->groupsAtDepth(depth);
    std::vector<RankBox> mine;
    for (const auto& g : groups)
    {
      mine.push_back(RankBox{ g.box, static_cast<std::uint64_t>(this->Comm.rank()) });
    }
    std::vector<RankBox> all = this->X.allGather(mine);
    this->BoxesOfRank.assign(static_cast<std::size_t>(this->Comm.size()), {});
    this->BoundsOfRank.assign(static_cast<std::size_t>(this->Comm.size()), PointBox{});
    for (const RankBox& b : all)
    {
      if (b.rank == static_cast<std::uint64_t>(this->Comm.rank()))
      {
        continue;
      }
      std::vector<PointBox>& boxes = this->BoxesOfRank[b.rank];
      PointBox& bounds = this->BoundsOfRank[b.rank];
      if (boxes.empty())
      {
        bounds = b.box;
      }
      for (int a = 0; a < 3; ++a)
      {
        bounds.lo[a] = std::min(bounds.lo[a], b.box.lo[a]);
        bounds.hi[a] = std::max(bounds.hi[a], b.box.hi[a]);
      }
      boxes.push_back(b.box);
      this->Foreign.push_back(b);
    }

    // delta(p): per group of own points, the foreign boxes in the order of their distance to the
    // group's box, scanned until that distance reaches the best so far.
    this->ForeignLower.assign(this->N, kInfinity);
    double const scale = this->Scale;
#pragma omp parallel for schedule(dynamic, 1) num_threads(this->threads())
    for (std::ptrdiff_t g = 0; g < static_cast<std::ptrdiff_t>(groups.size()); ++g)
    {
      std::vector<std::pair<double, std::uint32_t>> order;
      order.reserve(this->Foreign.size());
      for (std::uint32_t f = 0; f < this->Foreign.size(); ++f)
      {
        order.emplace_back(boxBoxLowerKey<Dim>(groups[g].box, this->Foreign[f].box, scale), f);
      }
      std::sort(order.begin(), order.end());
      for (std::uint32_t s = groups[g].begin; s < groups[g].end; ++s)
      {
        std::uint32_t const slot = this->Index->pointAt(s);
        double best = kInfinity;
        for (const auto& [groupLower, f] : order)
        {
          if (groupLower >= best)
          {
            break;
          }
          best = std::min(best, boxLowerKey<Dim>(this->xOf(slot), this->Foreign[f].box, scale));
        }
        this->ForeignLower[slot] = best;
      }
    }

    // Kruskal over T_r: every edge joins; certified when one side's least delta exceeds its key.
    std::vector<std::uint32_t> parent(this->N);
    std::iota(parent.begin(), parent.end(), 0u);
    std::vector<double> minDelta(this->ForeignLower);
    auto find = [&parent](std::uint32_t x)
    {
      while (parent[x] != x)
      {
        parent[x] = parent[parent[x]];
        x = parent[x];
      }
      return x;
    };
    std::vector<std::uint8_t> certified(this->LocalEdges.size(), 0);
    for (std::size_t e = 0; e < this->LocalEdges.size(); ++e)
    {
      const LocalEdge& edge = this->LocalEdges[e];
      std::uint32_t const ra = find(edge.a);
      std::uint32_t const rb = find(edge.b);
      certified[e] = minDelta[ra] > edge.key || minDelta[rb] > edge.key;
      std::uint32_t const keep = std::min(ra, rb);
      std::uint32_t const gone = std::max(ra, rb);
      parent[gone] = keep;
      minDelta[keep] = std::min(minDelta[keep], minDelta[gone]);
    }
    std::vector<double>().swap(minDelta);

    // Fragments: the components of the certified edges, labelled by their smallest global id.
    std::iota(parent.begin(), parent.end(), 0u);
    for (std::size_t e = 0; e < this->LocalEdges.size(); ++e)
    {
      const LocalEdge& edge = this->LocalEdges[e];
      if (certified[e])
      {
        std::uint32_t const ra = find(edge.a);
        std::uint32_t const rb = find(edge.b);
        parent[std::max(ra, rb)] = std::min(ra, rb);
        this->Owned.push_back(this->localOutput(edge));
      }
      else
      {
        this->Pending.push_back(edge);
      }
    }
    this->FragmentOfSlot.assign(this->N, kNoIndex);
    for (std::uint32_t slot = 0; slot < this->N; ++slot)
    {
      if (!this->Finite[slot])
      {
        continue;
      }
      std::uint32_t const root = find(slot);
      if (root == slot) // the smallest slot of its fragment: slots ascend with global ids
      {
        this->FragmentOfSlot[slot] = static_cast<std::uint32_t>(this->LabelOfFragment.size());
        this->LabelOfFragment.push_back(this->IdOfSlot[slot]);
      }
      else
      {
        this->FragmentOfSlot[slot] = this->FragmentOfSlot[root];
      }
    }
    this->LocalEdges.clear();
    this->LocalEdges.shrink_to_fit();
    this->Result.stats.certifiedEdges = this->Owned.size();
    this->Result.stats.fragments = this->LabelOfFragment.size();
    this->LabelOfSlot.assign(this->N, kNoLabel);
    this->KnownOfSlot.assign(this->N, kNoIndex);
  }

  DistributedEdge localOutput(const LocalEdge& edge) const
  {
    DistributedEdge out;
    out.i = this->IdOfSlot[edge.a];
    out.j = this->IdOfSlot[edge.b];
    out.length = edge.length;
    out.localI = this->inputOf(edge.a);
    out.localJ = this->inputOf(edge.b);
    return out;
  }

  // ---- the distributed Borůvka ----------------------------------------------------------------

  /// The least lower bound of the key from slot to a box of rank t.
  double lowerToRank(std::uint32_t slot, std::size_t t) const
  {
    const std::vector<PointBox>& boxes = this->BoxesOfRank[t];
    if (boxes.empty())
    {
      return kInfinity;
    }
    double best = boxLowerKey<Dim>(this->xOf(slot), this->BoundsOfRank[t], this->Scale);
    if (boxes.size() == 1 || best == kInfinity)
    {
      return best;
    }
    best = kInfinity;
    for (const PointBox& box : boxes)
    {
      best = std::min(best, boxLowerKey<Dim>(this->xOf(slot), box, this->Scale));
    }
    return best;
  }

  /// A candidate from a local tree edge (both ends here).
  Candidate candidateOf(const LocalEdge& edge, std::uint64_t from, std::uint64_t to) const
  {
    Candidate c;
    c.key = edge.key;
    c.lo = this->IdOfSlot[edge.a];
    c.hi = this->IdOfSlot[edge.b];
    c.from = from;
    c.to = to;
    c.length = edge.length;
    c.rankLo = c.rankHi = static_cast<std::uint32_t>(this->Comm.rank());
    c.localLo = this->inputOf(edge.a);
    c.localHi = this->inputOf(edge.b);
    std::copy(this->xOf(edge.a), this->xOf(edge.a) + 3, c.xLo);
    std::copy(this->xOf(edge.b), this->xOf(edge.b) + 3, c.xHi);
    return c;
  }

  /// A candidate from a found answer to the query of `slot` (component `from`) sent to `rank`.
  Candidate candidateOf(
    const Answer& answer, std::uint32_t slot, std::uint64_t from, int rank) const
  {
    Candidate c;
    c.key = answer.key;
    c.from = from;
    c.to = answer.label;
    c.length = answer.length;
    std::uint64_t const mine = this->IdOfSlot[slot];
    bool const mineIsLo = mine < answer.id;
    c.lo = mineIsLo ? mine : answer.id;
    c.hi = mineIsLo ? answer.id : mine;
    std::uint32_t const me = static_cast<std::uint32_t>(this->Comm.rank());
    c.rankLo = mineIsLo ? me : static_cast<std::uint32_t>(rank);
    c.rankHi = mineIsLo ? static_cast<std::uint32_t>(rank) : me;
    c.localLo = mineIsLo ? this->inputOf(slot) : static_cast<std::uint32_t>(answer.local);
    c.localHi = mineIsLo ? static_cast<std::uint32_t>(answer.local) : this->inputOf(slot);
    std::copy(this->xOf(slot), this->xOf(slot) + 3, mineIsLo ? c.xLo : c.xHi);
    std::copy(answer.x, answer.x + 3, mineIsLo ? c.xHi : c.xLo);
    return c;
  }

  /// Sends the queries (outbox[t]: to rank t, tags numbering them here) and returns the answers
  /// by tag; answers the queries that other ranks send here.
  std::vector<Answer> query(PerRank<Query> outbox, std::size_t count)
  {
    for (std::size_t t = 0; t < outbox.size(); ++t)
    {
      this->Result.stats.queriesSent += outbox[t].size();
      this->Result.stats.exchangedPoints += outbox[t].size();
    }
    PerRank<Query> const inbox = this->X.allToAll(std::move(outbox));
    // The answering side: refresh the subtree labels once, if anything asks.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> work; // (rank, position)
    for (std::size_t s = 0; s < inbox.size(); ++s)
    {
      for (std::size_t k = 0; k < inbox[s].size(); ++k)
      {
        work.emplace_back(static_cast<std::uint32_t>(s), static_cast<std::uint32_t>(k));
      }
    }
    this->Result.stats.queriesReceived += work.size();
    this->Result.stats.exchangedPoints += work.size();
    PerRank<Answer> replies = this->X.outbox<Answer>();
    for (std::size_t s = 0; s < inbox.size(); ++s)
    {
      replies[s].resize(inbox[s].size());
    }
    if (!work.empty())
    {
      if (!this->IndexFresh)
      {
        this->Index->refreshLabels(this->LabelOfSlot.data());
        this->IndexFresh = true;
      }
      std::uint64_t found = 0;
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : found) num_threads(this->threads())
      for (std::ptrdiff_t w = 0; w < static_cast<std::ptrdiff_t>(work.size()); ++w)
      {
        const Query& q = inbox[work[w].first][work[w].second];
        Answer& a = replies[work[w].first][work[w].second];
        a = Answer{};
        a.tag = q.tag;
        auto const hit = this->Index->nearestForeign(q.x, q.id, q.label, q.bound, this->Scale,
          this->LabelOfSlot.data(), this->IdOfSlot.data());
        if (hit.found)
        {
          a.found = 1;
          a.key = hit.rank.key;
          a.id = this->IdOfSlot[hit.point];
          a.label = this->LabelOfSlot[hit.point];
          a.length = edgeLength<Dim>(q.x, this->xOf(hit.point));
          std::copy(this->xOf(hit.point), this->xOf(hit.point) + 3, a.x);
          a.local = this->inputOf(hit.point);
          ++found;
        }
      }
      this->Result.stats.exchangedPoints += found;
    }
    std::size_t bytes =
      work.size() * (sizeof(Query) + sizeof(Answer)) + count * (sizeof(Query) + sizeof(Answer));
    this->MessageBytes = std::max(this->MessageBytes, bytes);
    this->notePeak();
    std::vector<Answer> byTag(count);
    for (const auto& from : this->X.allToAll(replies))
    {
      for (const Answer& a : from)
      {
        byTag[a.tag] = a;
        this->Result.stats.exchangedPoints += a.found;
      }
    }
    return byTag;
  }

  /// A query of point `slot` of component `label`, answered within `bound`, numbered `tag`.
  Query queryOf(std::uint32_t slot, std::uint64_t label, double bound, std::size_t tag) const
  {
    Query q{};
    q.id = this->IdOfSlot[slot];
    q.label = label;
    q.bound = bound;
    std::copy(this->xOf(slot), this->xOf(slot) + 3, q.x);
    q.tag = tag;
    return q;
  }

  /// Queries in steps of at most DistributedOptions::queriesPerStep from this rank, so that the
  /// exchange's memory is bounded whatever its total: emit(outbox) adds a step's queries (tags from
  /// 0) and returns their count, consume(answers) takes their answers by tag, more() says whether
  /// this rank has queries left. Collective: every rank steps until none has any left.
  template <class Emit, class Consume, class More>
  void queryInSteps(Emit&& emit, Consume&& consume, More&& more)
  {
    while (true)
    {
      PerRank<Query> outbox = this->X.outbox<Query>();
      std::size_t const count = emit(outbox);
      consume(this->query(std::move(outbox), count));
      if (this->X.max(more() ? 1 : 0) == 0)
      {
        return;
      }
    }
  }

  void rounds()
  {
    std::uint64_t components = this->X.sum(this->LabelOfFragment.size());
    int round = 0;
    while (components > 1)
    {
      ++round;
      Clock::time_point const start = Clock::now();
      this->progress(0.6 + 0.38 * (1.0 - std::pow(0.5, round)), "distributed round");
      this->round(components);
      this->Result.stats.phases.push_back(
        PhaseTime{ "round " + std::to_string(round), millisecondsSince(start) });
      this->notePeak();
      Agreement agreement(this->Comm);
      if (this->Cancelled)
      {
        agreement.fail(Error(ErrorCode::Cancelled, "EMST computation cancelled"));
      }
      agreement.agree();
    }
    this->Result.stats.rounds = round;
  }

  /// One Borůvka round over the components (F4).
  void round(std::uint64_t& components)
  {
    int const p = this->Comm.size();
    int const me = this->Comm.rank();
    // Parts: the components present here, and each fragment's part.
    for (std::uint32_t slot = 0; slot < this->N; ++slot)
    {
      if (this->Finite[slot])
      {
        this->LabelOfSlot[slot] = this->LabelOfFragment[this->FragmentOfSlot[slot]];
      }
    }
    this->IndexFresh = false;
    std::vector<std::uint64_t> labels(this->LabelOfFragment);
    std::sort(labels.begin(), labels.end());
    labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
    std::size_t const parts = labels.size();
    std::vector<std::uint32_t> partOfFragment(this->LabelOfFragment.size());
    for (std::size_t f = 0; f < partOfFragment.size(); ++f)
    {
      partOfFragment[f] = static_cast<std::uint32_t>(
        std::lower_bound(labels.begin(), labels.end(), this->LabelOfFragment[f]) - labels.begin());
    }
    auto partOf = [&](std::uint32_t slot) { return partOfFragment[this->FragmentOfSlot[slot]]; };

    // (a) the least uncertified local edge leaving each part; edges inside a part are done.
    std::vector<Candidate> best(parts);
    for (std::size_t k = 0; k < parts; ++k)
    {
      best[k].from = labels[k];
    }
    std::size_t kept = 0;
    for (const LocalEdge& edge : this->Pending)
    {
      std::uint32_t const pa = partOf(edge.a);
      std::uint32_t const pb = partOf(edge.b);
      if (pa == pb)
      {
        continue;
      }
      this->Pending[kept++] = edge;
      if (!best[pa].exists())
      {
        best[pa] = this->candidateOf(edge, labels[pa], labels[pb]);
      }
      if (!best[pb].exists())
      {
        best[pb] = this->candidateOf(edge, labels[pb], labels[pa]);
      }
    }
    this->Pending.resize(kept);

    // Known answers: a point's nearest foreign point found in an earlier round stays its nearest
    // while it is still foreign (the point's component only grew: the foreign set only shrank).
    for (std::uint32_t slot = 0; slot < this->N; ++slot)
    {
      std::uint32_t const k = this->KnownOfSlot[slot];
      if (k == kNoIndex)
      {
        continue;
      }
      std::uint32_t const part = partOf(slot);
      const Answer& a = this->KnownList[k];
      if (a.label == labels[part])
      {
        this->KnownOfSlot[slot] = kNoIndex; // absorbed: ask again when the bounds say so
        continue;
      }
      Candidate const c = this->candidateOf(a, slot, labels[part], static_cast<int>(a.tag));
      if (c.betterThan(best[part]))
      {
        best[part] = c;
      }
    }

    // Probes: per part, its point with the least lower bound asks the rank that bound points to,
    // unless the part's local candidate is already below every bound of its points.
    std::vector<std::uint32_t> probeOfPart(parts, kNoIndex);
    std::vector<double> probeLower(parts, kInfinity);
    for (std::uint32_t slot = 0; slot < this->N; ++slot)
    {
      if (this->Finite[slot])
      {
        std::uint32_t const part = partOf(slot);
        if (this->ForeignLower[slot] < probeLower[part])
        {
          probeLower[part] = this->ForeignLower[slot];
          probeOfPart[part] = slot;
        }
      }
    }
    std::vector<std::uint32_t> probeRank(parts, kNoIndex);
    std::vector<double> probeKey(parts, kInfinity); // the probed rank's lower bound after it
    std::vector<Answer> probeAnswers;               // the found ones, in part order
    std::vector<std::uint32_t> probeAnswerOfPart(parts, kNoIndex);
    std::uint32_t nextPart = 0;
    std::vector<std::uint32_t> probePart; // of the current step, by tag
    this->queryInSteps(
      [&](PerRank<Query>& outbox)
      {
        probePart.clear();
        for (; nextPart < parts && probePart.size() < this->stepQueries(); ++nextPart)
        {
          std::uint32_t const part = nextPart;
          std::uint32_t const slot = probeOfPart[part];
          if (slot == kNoIndex || probeLower[part] == kInfinity ||
            (best[part].exists() && best[part].key < probeLower[part]))
          {
            continue;
          }
          double nearest = kInfinity;
          for (int t = 0; t < p; ++t)
          {
            double const lower =
              t == me ? kInfinity : this->lowerToRank(slot, static_cast<std::size_t>(t));
            if (lower < nearest)
            {
              nearest = lower;
              probeRank[part] = static_cast<std::uint32_t>(t);
            }
          }
          if (probeRank[part] == kNoIndex)
          {
            continue;
          }
          outbox[probeRank[part]].push_back(this->queryOf(slot, labels[part],
            best[part].exists() ? best[part].key : kInfinity, probePart.size()));
          probePart.push_back(part);
        }
        return probePart.size();
      },
      [&](const std::vector<Answer>& answers)
      {
        for (std::size_t k = 0; k < probePart.size(); ++k)
        {
          std::uint32_t const part = probePart[k];
          const Answer& a = answers[k];
          if (!a.found)
          {
            probeKey[part] = best[part].exists() ? best[part].key : kInfinity;
            continue;
          }
          probeAnswerOfPart[part] = static_cast<std::uint32_t>(probeAnswers.size());
          probeAnswers.push_back(a);
          probeKey[part] = a.key;
          Candidate const c = this->candidateOf(
            a, probeOfPart[part], labels[part], static_cast<int>(probeRank[part]));
          if (c.betterThan(best[part]))
          {
            best[part] = c;
          }
        }
      },
      [&] { return nextPart < parts; });

    // Each component's bound: the least candidate of all its parts so far.
    std::vector<double> const boundOfPart = this->UnionFind.propose(best, labels);

    // Queries: a point asks a rank when both its lower bounds are within its component's bound.
    // A point's new lower bound is then the least over the ranks of what each said (a found key,
    // the bound when nothing was within it, the box bound of a rank not asked); it only grows.
    // Its least answer (the probe's too) is its nearest foreign point over all ranks when within
    // the bound, since every rank that gave none has only points beyond the bound: it is kept.
    struct Origin
    {
      std::uint32_t slot, rank;
    };
    std::vector<Origin> origins;       // of the current step, by tag
    std::vector<std::uint32_t> askers; // its slots, with the lower bounds of the ranks not asked
    std::vector<double> skippedLower;
    std::uint32_t nextSlot = 0;
    this->queryInSteps(
      [&](PerRank<Query>& outbox)
      {
        origins.clear();
        askers.clear();
        skippedLower.clear();
        for (; nextSlot < this->N && origins.size() < this->stepQueries(); ++nextSlot)
        {
          std::uint32_t const slot = nextSlot;
          if (!this->Finite[slot])
          {
            continue;
          }
          std::uint32_t const part = partOf(slot);
          double const bound = boundOfPart[part];
          if (this->ForeignLower[slot] > bound || this->KnownOfSlot[slot] != kNoIndex)
          {
            continue;
          }
          double lowest = kInfinity;
          for (int t = 0; t < p; ++t)
          {
            if (t == me)
            {
              continue;
            }
            if (slot == probeOfPart[part] && static_cast<std::uint32_t>(t) == probeRank[part])
            {
              lowest = std::min(lowest, probeKey[part]);
              continue;
            }
            double const lower = this->lowerToRank(slot, static_cast<std::size_t>(t));
            if (lower > bound)
            {
              lowest = std::min(lowest, lower);
              continue;
            }
            outbox[static_cast<std::size_t>(t)].push_back(
              this->queryOf(slot, labels[part], bound, origins.size()));
            origins.push_back(Origin{ slot, static_cast<std::uint32_t>(t) });
          }
          askers.push_back(slot);
          skippedLower.push_back(lowest);
        }
        return origins.size();
      },
      [&](const std::vector<Answer>& answers)
      {
        std::size_t q = 0;
        for (std::size_t k = 0; k < askers.size(); ++k)
        {
          std::uint32_t const slot = askers[k];
          std::uint32_t const part = partOf(slot);
          std::uint64_t const id = this->IdOfSlot[slot];
          double lowest = skippedLower[k];
          const Answer* nearest = nullptr;
          std::uint32_t nearestRank = 0;
          auto consider = [&](const Answer& a, std::uint32_t rank)
          {
            if (!nearest ||
              EdgeRank::of(a.key, id, a.id) < EdgeRank::of(nearest->key, id, nearest->id))
            {
              nearest = &a;
              nearestRank = rank;
            }
          };
          if (slot == probeOfPart[part] && probeAnswerOfPart[part] != kNoIndex)
          {
            consider(probeAnswers[probeAnswerOfPart[part]], probeRank[part]);
          }
          for (; q < origins.size() && origins[q].slot == slot; ++q)
          {
            const Answer& a = answers[q];
            if (a.found)
            {
              lowest = std::min(lowest, a.key);
              consider(a, origins[q].rank);
              Candidate const c =
                this->candidateOf(a, slot, labels[part], static_cast<int>(origins[q].rank));
              if (c.betterThan(best[part]))
              {
                best[part] = c;
              }
            }
            else
            {
              lowest = std::min(lowest, boundOfPart[part]);
            }
          }
          this->ForeignLower[slot] = std::max(this->ForeignLower[slot], lowest);
          if (nearest && nearest->key <= boundOfPart[part])
          {
            this->KnownOfSlot[slot] = static_cast<std::uint32_t>(this->KnownList.size());
            this->KnownList.push_back(*nearest);
            this->KnownList.back().tag = nearestRank;
          }
        }
      },
      [&] { return nextSlot < this->N; });

    // The merge: chosen edges to their owners, new labels to the fragments and the known answers
    // (whose labels are asked after the parts'; the list is compacted on the way).
    std::vector<std::uint64_t> asked(labels);
    std::vector<Answer> known;
    for (std::uint32_t slot = 0; slot < this->N; ++slot)
    {
      std::uint32_t const k = this->KnownOfSlot[slot];
      if (k != kNoIndex)
      {
        this->KnownOfSlot[slot] = static_cast<std::uint32_t>(known.size());
        known.push_back(this->KnownList[k]);
        asked.push_back(known.back().label);
      }
    }
    this->KnownList.swap(known);
    std::vector<Answer>().swap(known);
    std::vector<std::uint64_t> newLabels;
    std::uint64_t merges = 0;
    std::vector<Candidate> const chosen = this->UnionFind.merge(best, asked, newLabels, merges);
    for (std::size_t f = 0; f < this->LabelOfFragment.size(); ++f)
    {
      this->LabelOfFragment[f] = newLabels[partOfFragment[f]];
    }
    for (std::size_t k = 0; k < this->KnownList.size(); ++k)
    {
      this->KnownList[k].label = newLabels[parts + k];
    }
    for (const Candidate& c : chosen)
    {
      this->Chosen.push_back(c);
    }
    if (merges == 0)
    {
      throw Error(ErrorCode::Internal,
        "distributed Boruvka: a round with " + std::to_string(components) +
          " components merged none");
    }
    components -= merges;
  }

  // ---- output ---------------------------------------------------------------------------------

  void output()
  {
    int const me = this->Comm.rank();
    // The remote ends, each once, by global id.
    std::vector<RemotePoint>& remote = this->Result.remotePoints;
    for (const Candidate& c : this->Chosen)
    {
      if (static_cast<int>(c.rankHi) != me)
      {
        RemotePoint r;
        r.globalId = c.hi;
        r.rank = c.rankHi;
        r.localIndex = c.localHi;
        std::copy(c.xHi, c.xHi + 3, r.x);
        remote.push_back(r);
      }
    }
    std::sort(remote.begin(), remote.end(),
      [](const RemotePoint& a, const RemotePoint& b) { return a.globalId < b.globalId; });
    remote.erase(
      std::unique(remote.begin(), remote.end(),
        [](const RemotePoint& a, const RemotePoint& b) { return a.globalId == b.globalId; }),
      remote.end());
    for (const Candidate& c : this->Chosen)
    {
      DistributedEdge e;
      e.i = c.lo;
      e.j = c.hi;
      e.length = c.length;
      e.localI = c.localLo;
      e.jRemote = static_cast<int>(c.rankHi) != me;
      if (e.jRemote)
      {
        auto const it = std::lower_bound(remote.begin(), remote.end(), c.hi,
          [](const RemotePoint& r, std::uint64_t id) { return r.globalId < id; });
        e.localJ = static_cast<std::uint32_t>(it - remote.begin());
      }
      else
      {
        e.localJ = c.localHi;
      }
      this->Owned.push_back(e);
    }
    std::vector<Candidate>().swap(this->Chosen);
    std::sort(this->Owned.begin(), this->Owned.end(),
      [](const DistributedEdge& a, const DistributedEdge& b)
      {
        if (a.length != b.length)
        {
          return a.length < b.length;
        }
        return a.i != b.i ? a.i < b.i : a.j < b.j;
      });
    this->Result.stats.remotePoints = remote.size();
    this->Result.stats.exchangedPoints += remote.size();
    ExactSum sum;
    for (const DistributedEdge& e : this->Owned)
    {
      sum.add(e.length);
    }
    this->Result.totalWeight = sum.total(this->Comm);
    this->Result.globalEdges = this->X.sum(this->Owned.size());
    std::uint64_t const valid = this->Result.stats.globalValidPoints;
    if (this->Result.globalEdges != (valid > 0 ? valid - 1 : 0))
    {
      throw Error(ErrorCode::Internal,
        "the distributed tree has " + std::to_string(this->Result.globalEdges) + " edges for " +
          std::to_string(valid) + " points");
    }
    this->Result.edges = std::move(this->Owned);
    this->Result.stats.bytesSent = this->Traffic.sent;
    this->Result.stats.bytesReceived = this->Traffic.received;
  }

  Communicator& Comm;
  const DistributedOptions& Opts;
  DistributedResult& Result;
  TrafficCount Traffic;
  Exchange X;
  DistributedUnionFind UnionFind;

  std::size_t N = 0;           ///< local points
  std::size_t ValidPoints = 0; ///< finite local points
  double Scale = 1.0;          ///< the key's scale, from the global box
  bool Cancelled = false;
  std::vector<std::uint32_t> InputOfSlot;     ///< [N] or empty (identity): input index of each slot
  std::vector<std::uint64_t> IdOfSlot;        ///< [N] global id of each slot, increasing
  std::vector<double> Xyz;                    ///< [3N] coordinates of each slot (unused axes 0)
  std::vector<std::uint8_t> Finite;           ///< [N]
  std::vector<LocalEdge> LocalEdges;          ///< [local tree edges], until certified
  std::vector<LocalEdge> Pending;             ///< uncertified local tree edges, in order
  std::vector<DistributedEdge> Owned;         ///< edges this rank outputs
  std::vector<Candidate> Chosen;              ///< edges the rounds gave this rank to own
  std::vector<std::uint32_t> FragmentOfSlot;  ///< [N] (kNoIndex for non-finite points)
  std::vector<std::uint64_t> LabelOfFragment; ///< [fragments] their component's label
  std::vector<std::uint64_t> LabelOfSlot;     ///< [N] the same per slot, for the index
  std::vector<double> ForeignLower;           ///< [N] lower bound of the key to a foreign point
  /// [N] index into KnownList of the slot's nearest foreign point (its rank in `tag`), or kNoIndex
  std::vector<std::uint32_t> KnownOfSlot;
  std::vector<Answer> KnownList;
  std::unique_ptr<QueryIndex<Dim>> Index;
  bool IndexFresh = false;
  std::vector<RankBox> Foreign;                   ///< the other ranks' boxes
  std::vector<std::vector<PointBox>> BoxesOfRank; ///< [ranks] their boxes (none for this rank)
  std::vector<PointBox> BoundsOfRank;             ///< [ranks] the union of each rank's boxes
  std::size_t MessageBytes = 0;
};

/// Checks one rank's view as computeEmst does, and the caller's ids.
void validateLocal(const PointCloudView& view, const std::uint64_t* globalIds)
{
  if (view.count > 0 && view.dimension != 2 && view.dimension != 3)
  {
    throw Error(ErrorCode::InvalidInput,
      "points must be 2D or 3D, not " + std::to_string(view.dimension) + "D");
  }
  if (view.count > 0 && view.stride != 0 && view.stride < static_cast<std::size_t>(view.dimension))
  {
    throw Error(ErrorCode::InvalidInput,
      "point stride " + std::to_string(view.stride) + " is smaller than the dimension " +
        std::to_string(view.dimension));
  }
  if (view.count > 0 && view.data == nullptr)
  {
    throw Error(
      ErrorCode::InvalidInput, "no point data given for " + std::to_string(view.count) + " points");
  }
  if (view.count > 0 && view.memory != MemorySpace::Host)
  {
    throw Error(ErrorCode::InvalidInput, "the distributed engine reads points in host memory");
  }
  if (view.scalarType != ScalarType::Float32 && view.scalarType != ScalarType::Float64)
  {
    throw Error(ErrorCode::InvalidInput, "unknown scalar type");
  }
  checkPointCount(view.count);
  if (globalIds && view.count > 0)
  {
    for (std::size_t k = 0; k < view.count; ++k)
    {
      if (globalIds[k] >= (std::uint64_t(1) << 63))
      {
        throw Error(ErrorCode::InvalidInput,
          "global id " + std::to_string(globalIds[k]) + " of point " + std::to_string(k) +
            " is not below 2^63");
      }
    }
  }
}

/// Ids that appear on more than one point, over all ranks: the homes of the ids compare them.
void checkUniqueIds(Exchange& x, const std::vector<std::uint64_t>& sortedIds)
{
  Agreement agreement(x.comm());
  PerRank<std::uint64_t> outbox = x.outbox<std::uint64_t>();
  for (std::size_t k = 0; k < sortedIds.size(); ++k)
  {
    if (k > 0 && sortedIds[k] == sortedIds[k - 1])
    {
      agreement.fail(Error(ErrorCode::InvalidInput,
        "global id " + std::to_string(sortedIds[k]) + " is given to several points"));
      break;
    }
    outbox[static_cast<std::size_t>(homeOf(sortedIds[k], x.size()))].push_back(sortedIds[k]);
  }
  agreement.agree();
  std::vector<std::uint64_t> held;
  for (const auto& from : x.allToAll(outbox))
  {
    held.insert(held.end(), from.begin(), from.end());
  }
  std::sort(held.begin(), held.end());
  auto const twice = std::adjacent_find(held.begin(), held.end());
  if (twice != held.end())
  {
    agreement.fail(Error(ErrorCode::InvalidInput,
      "global id " + std::to_string(*twice) + " is given to points of several ranks"));
  }
  agreement.agree();
}

} // namespace
} // namespace detail

DistributedResult computeDistributedEmst(const PointCloudView& local, Communicator& comm,
  const DistributedOptions& options, const std::uint64_t* globalIds)
{
  using namespace detail;
  Clock::time_point const start = Clock::now();
  DistributedResult result;
  {
    Agreement agreement(comm);
    try
    {
      validateLocal(local, globalIds);
      if (options.engine.box.isPeriodic())
      {
        throw Error(ErrorCode::InvalidInput,
          "the distributed engine has no periodic boxes: compute a periodic tree on one rank "
          "(the filters gather the points on rank 0 when a box is set)");
      }
    }
    catch (const Error& error)
    {
      agreement.fail(error);
    }
    agreement.agree();
  }
  // One dimension for all: ranks without points do not vote.
  std::uint64_t dims[2] = { local.count > 0 ? std::uint64_t(local.dimension) : 0,
    local.count > 0 ? std::uint64_t(4 - local.dimension) : 0 };
  comm.allReduce(dims, 2, Communicator::Op::Max);
  if (dims[0] != 0 && dims[0] + dims[1] != 4)
  {
    throw Error(ErrorCode::InvalidInput, "the ranks' points are not all of one dimension");
  }
  int const dimension = dims[0] == 0 ? (local.dimension == 2 ? 2 : 3) : static_cast<int>(dims[0]);
  result.dimension = dimension;

  // Global ids and the order of the local points by them.
  TrafficCount traffic;
  Exchange x(comm, traffic);
  bool const givenIds = agreeOnGivenIds(comm, local.count, globalIds);
  std::vector<std::uint64_t> counts = x.allGather(std::vector<std::uint64_t>{ local.count });
  std::uint64_t offset = 0;
  for (int r = 0; r < comm.rank(); ++r)
  {
    offset += counts[static_cast<std::size_t>(r)];
  }
  result.firstGlobalId = offset;
  std::vector<std::uint32_t> inputOfSlot;
  std::vector<std::uint64_t> idOfSlot(local.count);
  if (!givenIds)
  {
    std::iota(idOfSlot.begin(), idOfSlot.end(), offset);
  }
  else
  {
    // (a rank without points has an empty list: it still takes part in the check)
    std::vector<std::uint32_t> order(local.count);
    std::iota(order.begin(), order.end(), 0u);
    bool sorted = true;
    for (std::size_t k = 1; k < local.count && sorted; ++k)
    {
      sorted = globalIds[k - 1] < globalIds[k];
    }
    if (!sorted)
    {
      std::stable_sort(order.begin(), order.end(),
        [globalIds](std::uint32_t a, std::uint32_t b) { return globalIds[a] < globalIds[b]; });
      inputOfSlot = order;
    }
    for (std::size_t k = 0; k < local.count; ++k)
    {
      idOfSlot[k] = globalIds[order[k]];
    }
    checkUniqueIds(x, idOfSlot);
  }

  PointCloudView view = local;
  view.dimension = dimension;
  if (dimension == 2)
  {
    DistributedRun<2>(comm, options, result).run(view, std::move(inputOfSlot), std::move(idOfSlot));
  }
  else
  {
    DistributedRun<3>(comm, options, result).run(view, std::move(inputOfSlot), std::move(idOfSlot));
  }
  result.stats.bytesSent += traffic.sent;
  result.stats.bytesReceived += traffic.received;
  result.stats.milliseconds = millisecondsSince(start);
  if (options.engine.progress)
  {
    options.engine.progress(1.0, "done");
  }
  return result;
}

} // namespace emst
