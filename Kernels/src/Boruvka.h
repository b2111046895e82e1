// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The EMST algorithm, written once over a backend `Exec` (backends/CpuExec.h: OpenMP + Thrust's
// OMP system; backends/CudaExec.cuh: CUDA kernels + Thrust's CUDA system): the run, phase by
// phase (each in its file under phases/), and the Borůvka round loop. Included by exactly one
// translation unit per backend. Kernels/README.md lists the phases and the Exec interface.
//
// Reference: Qiao & Créput 2021 (cell partition, component-based nearest-neighbour search, the
// four Borůvka steps); Prokopenko et al. 2022 (subtree component labels, per-component upper
// bounds); Fallin et al. 2023 (packed 64-bit atomic minima). Papers in ../shared/papers.
#pragma once

#include "base/Buffer.h"
#include "emst/Emst.h"
#include "phases/Cells.h"
#include "phases/ComponentMerge.h"
#include "phases/Components.h"
#include "phases/CoreDistances.h"
#include "phases/Duplicates.h"
#include "phases/Frame.h"
#include "phases/Hierarchy.h"
#include "phases/Metric.h"
#include "phases/NearestForeign.h"
#include "phases/OutputOrder.h"
#include "phases/PeriodicMetric.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace emst
{
namespace detail
{

static_assert(sizeof(OutputEdge) == sizeof(Edge) && alignof(OutputEdge) == alignof(Edge),
  "device edges are copied straight into emst::Edge");

/// The rounds' counters, kept on the backend so that several rounds are queued without waiting
/// for the host (a round that starts with one component does nothing):
///   [0] edges emitted, [r] components before round r ([1] = m),
///   [kSearchers + r] the points listed to search in round r,
///   [kCurrent + 0..3] a replayed round's (ReplayedRounds): the components before it and after
///   it, its listed points, its number; SetReplayedRound sets them.
struct RoundCounters
{
  static constexpr int kMaxRounds = 62;
  static constexpr int kSearchers = kMaxRounds + 2;
  static constexpr int kCurrent = kSearchers + kMaxRounds + 1;
  static constexpr int kCount = kCurrent + 4;

  std::uint32_t* counters; ///< [kCount]

  std::uint32_t* edgeCount() const { return this->counters; }
  const std::uint32_t* before(int round) const { return this->counters + round; }
  std::uint32_t* after(int round) const { return this->counters + round + 1; }
  std::uint32_t* searchers(int round) const { return this->counters + kSearchers + round; }
  std::uint32_t* current() const { return this->counters + kCurrent; }
};

/// Where a round's counts are: the round's own entries, or the replayed round's slots.
struct RoundSlots
{
  const std::uint32_t* before;
  std::uint32_t* after;
  std::uint32_t* searchers;
};

/// A replayed round's slots (RoundCounters::kCurrent), one thread: set for round `round` from
/// its entry of the history (which the round before wrote); with `round` 0, at the end of a
/// replayed round, for the round after it, once the ending round's count after it is in that
/// round's entry (what the host's looks and checkRounds read).
struct SetReplayedRound
{
  std::uint32_t* counters; ///< [RoundCounters::kCount]
  std::uint32_t round;     ///< the first replayed round, or 0: the one after the slots' own
  EMST_HD void operator()(std::size_t) const
  {
    std::uint32_t* const current = counters + RoundCounters::kCurrent;
    std::uint32_t next = round;
    if (next == 0)
    {
      next = current[3] + 1;
      counters[next] = current[1];
    }
    current[0] = counters[next];
    current[1] = 0;
    current[2] = 0;
    current[3] = next;
  }
};

/// The first round that replays one queued round (ReplayedRounds), 0 for none: from round three
/// (rounds one and two each queue passes of their own), on a backend whose launches cost the
/// host more than the GPU runs them (Exec::kReplaysRounds: CUDA), for runs of fewer than
/// kReplayedBelow distinct points, where the rounds' kernels are short, and never where a round
/// lists its searchers (listsSearchers). Such runs keep no
/// frozen labels (FrozenLabels: a round of their own, and within noise below 10^6 points). Knob
/// EMST_REPLAY_ROUNDS (read each run): 0 never, 1 on any run and backend (the CPU runs the same
/// slots, its replay the body itself: how the CPU's suites cover them), else the default.
constexpr std::size_t kReplayedBelow = std::size_t(1) << 19;
inline int replayedRoundsFrom(std::size_t m, int dim, bool backendReplays, bool backendLists)
{
  const char* value = std::getenv("EMST_REPLAY_ROUNDS"); // once a run
  int const knob = value ? std::atoi(value) : -1;
  if (knob == 0)
  {
    return 0;
  }
  // A listed search takes a counter of its own each launch (Exec::forEachListed): no replay
  // where any round lists (from some round on: the last one tells).
  if (listsSearchers(RoundCounters::kMaxRounds, m, dim, backendLists))
  {
    return 0;
  }
  return knob == 1 || (backendReplays && m < kReplayedBelow) ? 3 : 0;
}

/// Whether the host queues the replayed round after the one it looks at before it waits for
/// the look (Boruvka::spanningTree; a replayed round's launches do not depend on the look): the
/// GPU goes on with it while the host reads the count and queues the next rounds, and after the
/// last round runs one replay of empty launches. Knob EMST_ROUND_AHEAD (read each run): 0 never,
/// else wherever the rounds are replayed (the default), for benchmarking.
inline bool queuesRoundAhead()
{
  const char* value = std::getenv("EMST_ROUND_AHEAD"); // once a run
  return !value || std::atoi(value) != 0;
}

/// The counters' start, one pass: every count 0 but the components before round one, m.
struct StartCounters
{
  std::uint32_t* counters; ///< [RoundCounters::kCount]
  std::uint32_t m;
  EMST_HD void operator()(std::size_t i) const { counters[i] = i == 1 ? m : 0u; }
};

template <class Exec, int Dim>
class Boruvka
{
public:
  /// givenScale > 0: the scale of the exact key, instead of the one of the points' own box
  /// (frameInput); a distributed run gives every rank the global box's.
  Boruvka(Exec& exec, const Options& options, double givenScale = 0.0)
    : X(exec)
    , Opts(options)
    , GivenScale(givenScale)
  {
  }

  /// The EMST: `points.data` is in backend memory. Fills result.edges (host), the counts and the
  /// rounds; phase times and memory are the caller's (they belong to the Exec).
  void run(const PointCloudView& points, Result& result)
  {
    this->dispatch(points, result, 0, nullptr);
  }

  /// HDBSCAN*'s mutual reachability tree for k = minimumSamples (1 to kMaxMinimumSamples, and at
  /// most the finite points unless there are none: checked here), as run() fills its result,
  /// with the mutual reachability distance as each edge's length; coreDistance (host, n values)
  /// receives every point's core distance in input units, NaN for non-finite points.
  void runMutualReachability(const PointCloudView& points, std::size_t minimumSamples,
    Result& result, std::vector<double>& coreDistance)
  {
    this->dispatch(points, result, minimumSamples, &coreDistance);
  }

private:
  template <class T>
  using Buf = Buffer<T, Exec>;

  /// k = 0: the EMST; else the mutual reachability tree with its core distances.
  void dispatch(
    const PointCloudView& points, Result& result, std::size_t k, std::vector<double>* cores)
  {
    std::size_t const stride = points.stride ? points.stride : static_cast<std::size_t>(Dim);
    if (points.scalarType == ScalarType::Float64)
    {
      this->runTyped(InputPoints<double, Dim>{ static_cast<const double*>(points.data), stride },
        points.count, result, k, cores);
    }
    else
    {
      this->runTyped(InputPoints<float, Dim>{ static_cast<const float*>(points.data), stride },
        points.count, result, k, cores);
    }
  }

  void progress(double fraction, const char* step)
  {
    this->X.beginPhase(step);
    if (this->Opts.progress && !this->Opts.progress(fraction, step))
    {
      throw Error(ErrorCode::Cancelled, "EMST computation cancelled");
    }
  }

  void finished()
  {
    if (this->Opts.progress && !this->Opts.progress(1.0, "done"))
    {
      throw Error(ErrorCode::Cancelled, "EMST computation cancelled");
    }
  }

  template <class T>
  void runTyped(const InputPoints<T, Dim>& input, std::size_t n, Result& result, std::size_t k,
    std::vector<double>* coreDistance)
  {
    Stats& stats = result.stats;
    stats.inputPoints = n;

    this->progress(0.0, "bounding box");
    FramedPoints<Exec, Dim> framed =
      frameInput(this->X, input, n, this->Opts.box, this->GivenScale);
    this->progress(0.05, "sort");
    sortByCode(this->X, input, framed);
    std::size_t const v = framed.finitePoints;
    stats.validPoints = v;
    stats.nonFinitePoints = n - v;
    stats.wrappedPoints = framed.wrappedPoints;
    if (v < n)
    {
      result.messages.push_back(std::to_string(n - v) +
        " point(s) with non-finite coordinates (NaN or Inf) were left out of the tree");
    }
    if (framed.wrappedPoints > 0)
    {
      result.messages.push_back(std::to_string(framed.wrappedPoints) +
        " point(s) outside the periodic box were wrapped into it (their output coordinates are "
        "the input's)");
    }
    if (k > 0 && v > 0 && k > v)
    {
      throw Error(ErrorCode::InvalidInput,
        "the minimum samples (" + std::to_string(k) + ") exceed the " + std::to_string(v) +
          " point(s) with finite coordinates");
    }
    if (v < 2)
    {
      if (k > 0)
      {
        // No tree; the one finite point, if any, has k = 1 and core distance 0.
        Buf<double> coreKeyOfInput(this->X, n);
        this->X.forEach(n, LoneCores<T, Dim>{ input, coreKeyOfInput.data() });
        this->X.endCompute();
        this->download(coreKeyOfInput, *coreDistance);
      }
      this->X.endCompute();
      this->finished();
      return;
    }

    // The metric of the run (phases/Metric.h), over the input points: one instantiation of the
    // rest of the run per metric.
    if (framed.frame.periodic())
    {
      PeriodicMetric<T, Dim> metric{ input, framed.frame, {} };
      for (int a = 0; a < 3; ++a)
      {
        metric.period[a] = framed.periodInFrame[a];
      }
      this->runMetric(input, metric, framed, result, k, coreDistance);
    }
    else
    {
      this->runMetric(input, EuclideanMetric<T, Dim>{ input, framed.frame.scale }, framed, result,
        k, coreDistance);
    }
  }

  /// Duplicates, the tree and the output under `inputMetric` (over the input points): k = 0,
  /// the EMST; else the mutual reachability tree over it with its core distances.
  template <class T, class Metric>
  void runMetric(const InputPoints<T, Dim>& input, const Metric& inputMetric,
    FramedPoints<Exec, Dim>& framed, Result& result, std::size_t k,
    std::vector<double>* coreDistance)
  {
    Stats& stats = result.stats;
    std::size_t const v = framed.finitePoints;
    this->progress(0.12, "duplicates");
    DistinctPoints<Exec> distinct = joinDuplicates(this->X, input, inputMetric, framed, k > 0);
    std::size_t const m = distinct.size();
    stats.duplicatePoints = v - m;

    Buf<Index> edgePoints(this->X, 2 * (m - 1));
    if (k == 0)
    {
      if (m > 1)
      {
        this->spanningTree<T>(input, inputMetric, framed, distinct, edgePoints, stats,
          [](const Cells<Exec, T, Dim>&, const Hierarchy<Exec, Dim>&, const auto& base)
          { return base.metric; });
      }
      distinct.codeOfPoint.reset();
      this->progress(0.97, "output");
      this->download(orderEdges(this->X, inputMetric, edgePoints, distinct.inputOfPoint,
                       distinct.copyEdges, framed.lengthBound()),
        result.edges);
      this->finished();
      return;
    }
    this->mutualReachability(
      input, inputMetric, framed, distinct, edgePoints, result, k, *coreDistance);
  }

  /// HDBSCAN*'s tree over the base metric of the run (runMetric's k > 0): the core distances
  /// and the rounds' mutual reachability both measure with `Metric` (minimum image in a box).
  template <class T, class Metric>
  void mutualReachability(const InputPoints<T, Dim>& input, const Metric& inputMetric,
    FramedPoints<Exec, Dim>& framed, DistinctPoints<Exec>& distinct, Buf<Index>& edgePoints,
    Result& result, std::size_t k, std::vector<double>& coreDistance)
  {
    Stats& stats = result.stats;
    std::size_t const n = stats.inputPoints;
    std::size_t const m = distinct.size();
    // HDBSCAN*: the core distances (by distinct point) come from a search over the hierarchy,
    // so they are computed in the spanning tree's set-up, and handed on to the output here.
    using Reach = MutualReachabilityMetric<Metric>;
    CoreDistances<Exec> cores(this->X);
    Buf<float> leastCoreOfSlot(this->X, 0);
    if (m > 1)
    {
      this->spanningTree<T>(input, inputMetric, framed, distinct, edgePoints, stats,
        [&](
          const Cells<Exec, T, Dim>& cells, const Hierarchy<Exec, Dim>& hierarchy, const auto& base)
        {
          this->progress(0.19, "core distances");
          cores = computeCoreDistances(
            this->X, base, distinct.multiplicityOfPoint.data(), k, stats.duplicatePoints > 0);
          leastCoreOfSlot = climbLeast(this->X, cells, hierarchy, cores.coreBoundOfPoint.data());
          using SearchReach = MutualReachabilityMetric<std::decay_t<decltype(base.metric)>>;
          return SearchReach{ base.metric, cores.coreKeyOfPoint.data(),
            cores.coreBoundOfPoint.data(), leastCoreOfSlot.data(), framed.frame.scale };
        });
    }
    else
    {
      // Every point at one place: v >= k copies, so the core distance is 0.
      cores.coreKeyOfPoint = Buf<double>(this->X, 1);
      this->X.fill(cores.coreKeyOfPoint.data(), 1, 0.0);
    }
    leastCoreOfSlot.reset();
    cores.coreBoundOfPoint.reset();
    distinct.codeOfPoint.reset();
    distinct.multiplicityOfPoint.reset();

    this->progress(0.97, "output");
    std::size_t const copies = distinct.copyEdges.size();
    Buf<double> coreKeyOfInput(this->X, n);
    Buf<Index> anchorOfInput(this->X, copies > 0 && m > 1 ? n : 0);
    this->X.fill(coreKeyOfInput.data(), n, static_cast<double>(std::nan("")));
    this->X.forEach(m,
      ScatterCores{ distinct.inputOfPoint.data(), cores.coreKeyOfPoint.data(),
        anchorOfInput.size() ? cores.anchorOfPoint.data() : nullptr, coreKeyOfInput.data(),
        anchorOfInput.size() ? anchorOfInput.data() : nullptr });
    cores.coreKeyOfPoint.reset();
    cores.anchorOfPoint.reset();
    Reach const outputMetric{ inputMetric, coreKeyOfInput.data(), nullptr, nullptr,
      framed.frame.scale };
    if (copies > 0)
    {
      this->X.forEach(copies,
        AnchorCopies<Reach>{ outputMetric, coreKeyOfInput.data(),
          anchorOfInput.size() ? anchorOfInput.data() : nullptr,
          distinct.copyEdges.lengthBits.data(), distinct.copyEdges.pairOfEdge.data() });
    }
    anchorOfInput.reset();
    Buf<OutputEdge> out = orderEdges(this->X, outputMetric, edgePoints, distinct.inputOfPoint,
      distinct.copyEdges, framed.lengthBound());
    this->X.forEach(n, CoreKeyToDistance{ coreKeyOfInput.data(), framed.frame.scale });
    this->download(std::move(out), result.edges);
    this->download(coreKeyOfInput, coreDistance);
    this->finished();
  }

  /// The sorted edges to the host; the compute ends here.
  void download(Buf<OutputEdge> out, std::vector<Edge>& edges)
  {
    std::size_t const e = out.size();
    this->X.endCompute();
    edges.resize(e);
    this->X.copyToHost(reinterpret_cast<OutputEdge*>(edges.data()), out.data(), e);
  }

  /// Per-point doubles (the core distances) to the host.
  void download(const Buf<double>& values, std::vector<double>& host)
  {
    host.resize(values.size());
    this->X.copyToHost(host.data(), values.data(), values.size());
  }

  /// What every round reads and writes, fixed once the hierarchy is built.
  template <class M>
  struct Rounds
  {
    SearchContext<M> search;        ///< the run's part; findMin1 adds the round's
    const SearchState<Exec>* state; ///< the leaves' labels and runs
    ComponentArena<Exec>* arena;
    Hierarchy<Exec, Dim>* hierarchy;
    RoundCounters counters;
    TreeEdges edges;
    FrozenLabels frozen;
    int replayFrom = 0;          ///< the first replayed round (replayedRoundsFrom), 0: none
    std::size_t replayKnown = 0; ///< the components before it: the replays' launch sizes
  };

  /// Cells, hierarchy, then Borůvka rounds until one component is left: writes the m-1 tree
  /// edges as pairs of distinct points into edgePoints. The search's base metric is inputMetric
  /// over the distinct points; makeMetric(cells, hierarchy, the base search context) gives the
  /// metric of the rounds, once the hierarchy is built (it may run phases of its own: the core
  /// distances).
  template <class T, class Metric, class MakeMetric>
  void spanningTree(const InputPoints<T, Dim>& input, const Metric& inputMetric,
    const FramedPoints<Exec, Dim>& framed, DistinctPoints<Exec>& distinct, Buf<Index>& edgePoints,
    Stats& stats, MakeMetric makeMetric)
  {
    std::size_t const m = distinct.size();
    this->progress(0.15, "cells");
    Cells<Exec, T, Dim> const cells = buildCells(this->X, input, framed.frame, distinct);
    this->progress(0.18, "tree");
    Hierarchy<Exec, Dim> hierarchy = buildHierarchy(this->X, cells, distinct.codeOfPoint);

    // The search's metric reads the exact coordinates of the distinct points: the backend's
    // Morton-ordered copy, or the input in place (Exec::kCopiesExactCoordinates).
    auto const exact = cells.template exact<!Exec::kCopiesExactCoordinates>(input, distinct);
    using Base = SearchContext<decltype(inputMetric.over(exact))>;
    using M = decltype(makeMetric(cells, hierarchy, std::declval<const Base&>()));

    // The bounds past a point's answer (nextOfPoint) do what a neighbour list's last entry does:
    // kept in 3D where no list is, unless memory comes first. H100, against no next bounds:
    // uniform / cosmo 1e7 3D -1.3 / -1.1%, uniform 3e7 3D -1.8%, in a periodic box -3.3%; 2D
    // +0.5% (its later rounds gain less than the tracking costs round two).
    int const listLength = M::kNeighbourLists ? neighbourListLength(Exec::kNeighbours) : 0;
    bool const keepsNext = Dim == 3 && listLength == 0 && !this->X.savesMemory();
    // The leaf runs apart from the searcher list (4 bytes a leaf) where the rounds list their
    // searchers, unless memory comes first: one pass a round fewer (ListAndLabelNodes).
    // H100, three alternating blocks of 7 runs, medians, ms: uniform 1e7 3D 20.01 -> 19.79,
    // cosmo 20.74 -> 20.53, uniform 1e7 2D 14.36 -> 14.17, uniform 1e6 3D 2.67 -> 2.64, for
    // 0.6-0.8 bytes a point more.
    bool const ownsRuns =
      listsSearchers(RoundCounters::kMaxRounds, m, Dim, Exec::kListsSearchers) &&
      !this->X.savesMemory();
    // The leaves' least bounds (4 bytes a leaf) where a round may list its searchers leaf by
    // leaf (ListLeafSearchers): in the arena's bound array past what the rounds from the first
    // such round use, else (where they do not fit there) in room of their own.
    int const replayFrom = replayedRoundsFrom(m, Dim, Exec::kReplaysRounds, Exec::kListsSearchers);
    int const frozenFrom = replayFrom > 0 ? 0 : frozenLabelsFrom();
    bool const ownsLeafBounds = listLength == 0 &&
      listsSearchers(RoundCounters::kMaxRounds, m, Dim, Exec::kListsSearchers) &&
      leafListsFrom(m) > 0 &&
      ComponentArena<Exec>::leafBoundsAt(m, cells.leaves, leafListsFrom(m), frozenFrom) ==
        static_cast<std::size_t>(kNone);
    SearchState<Exec> const state(
      this->X, m, cells.leaves, listLength, keepsNext, ownsRuns, ownsLeafBounds);
    Buf<std::uint32_t> counters(this->X, RoundCounters::kCount);
    this->X.forEach(
      RoundCounters::kCount, StartCounters{ counters.data(), static_cast<std::uint32_t>(m) });
    ComponentArena<Exec> arena(this->X, m, state.candidates().candidateOfPoint, edgePoints.data());

    Base base;
    base.metric = inputMetric.over(exact);
    base.tolerance = framed.tolerance();
    base.points = cells.points(distinct);
    base.cells = cells.arrays();
    base.tree = hierarchy.arrays();
    base.latticeScale = framed.quantizer.scale;
    base.candidates = state.candidates();
    base.bottomUp = false;
    base.boundOfComp = nullptr;
    base.reach = 1.0f;

    Rounds<M> rounds;
    rounds.search = base.withMetric(makeMetric(cells, hierarchy, base));
    rounds.search.reach = searchReach();
    rounds.state = &state;
    rounds.arena = &arena;
    rounds.hierarchy = &hierarchy;
    rounds.counters.counters = counters.data();
    rounds.edges.edgePoints = edgePoints.data();
    rounds.edges.edgeCount = rounds.counters.edgeCount();
    rounds.edges.capacity = static_cast<std::uint32_t>(m - 1);
    rounds.replayFrom = replayFrom;
    rounds.frozen.from = frozenFrom;
    rounds.frozen.labels =
      rounds.frozen.from > 0 ? rounds.counters.before(rounds.frozen.from) : nullptr;

    std::size_t known = m; // components at the last look, after round `looked`
    int looked = 0;
    int round = 0; // rounds queued: `looked` and up to a batch more
    double const logM = std::log(static_cast<double>(m));
    auto const queue = [&]
    {
      int const expectedShrinks = round - looked; // rounds queued since the look
      ++round;
      if (round > RoundCounters::kMaxRounds)
      {
        throw Error(ErrorCode::Internal, "too many Boruvka rounds");
      }
      // Progress from the expected count: about four times fewer components per round.
      double const expected =
        std::max(2.0, static_cast<double>(known) / std::pow(4.0, expectedShrinks));
      this->progress(
        0.2 + 0.75 * (1.0 - std::log(expected) / logM), ("round " + std::to_string(round)).c_str());
      this->enqueueRound(round, known, rounds);
    };
    bool const ahead = rounds.replayFrom > 0 && queuesRoundAhead();
    // Each look reads the whole history (a few hundred bytes, as fast as one value): the last
    // one is what checkRounds checks, without another wait.
    std::vector<std::uint32_t> history(RoundCounters::kMaxRounds + 2);
    while (known > 1)
    {
      // Components shrink about four-fold per round: queue about as many rounds as that
      // predicts, then look (a round too many costs a few empty launches).
      int const batch =
        std::max(1, static_cast<int>(std::log(static_cast<double>(known)) / std::log(6.0)));
      int const target = looked + batch;
      while (round < target)
      {
        queue();
      }
      // The look at round `target`'s count (round == target: at most one was queued ahead),
      // with the round after it queued behind the read when that round is a replay (ahead): the
      // GPU runs it while the host waits and decides, instead of idling from the read to the next
      // launch; after the last round it runs empty (its launches return). Only a replay: its
      // launches are sized once, by the count before the first replayed round, whereas a round
      // queued by itself would be sized by the count of the look before this one (its launches
      // larger than this look will allow, and the first replayed round's size, which the kept graph
      // is updated to, would change).
      this->X.copyToHostUntimed(history.data(), counters.data(), history.size(),
        [&]
        {
          if (ahead && round >= rounds.replayFrom && round < RoundCounters::kMaxRounds)
          {
            queue();
          }
        });
      looked = target;
      known = history[looked + 1];
    }
    this->checkRounds(history, round, m, stats);
  }

  /// One Borůvka round, queued without any host wait. counters.before(round) holds the
  /// components before it, counters.after(round) receives those after; `known` (the count at
  /// the host's last look) bounds them and sizes the per-component launches. From
  /// r.replayFrom on, every round is the same launches (ReplayedRounds): its counts in the
  /// replays' slots, sized by the count before the first of them, then moved on by
  /// SetReplayedRound, all as one Exec::replay.
  template <class M>
  void enqueueRound(int round, std::size_t known, Rounds<M>& r)
  {
    std::uint32_t* const current = r.counters.current();
    if (r.replayFrom == 0 || round < r.replayFrom)
    {
      this->queueRound(round, known, r,
        RoundSlots{
          r.counters.before(round), r.counters.after(round), r.counters.searchers(round) });
      return;
    }
    if (round == r.replayFrom)
    {
      this->X.forEach(
        1, SetReplayedRound{ r.counters.counters, static_cast<std::uint32_t>(round) });
      r.replayKnown = known;
    }
    this->X.replay(current + 3,
      [&]
      {
        // The same for every replayed round: only the slots' values change.
        this->queueRound(
          r.replayFrom, r.replayKnown, r, RoundSlots{ current, current + 1, current + 2 });
        this->X.forEach(1, SetReplayedRound{ r.counters.counters, 0 });
      });
  }

  /// The round's launches (Qiao & Créput 2021, Fig. 1 and section 4: FindMin1, FindMin2,
  /// connect, compact), its counts where `slots` says.
  template <class M>
  void queueRound(int round, std::size_t known, Rounds<M>& r, const RoundSlots& slots)
  {
    const std::uint32_t* const before = slots.before;
    if (round == r.frozen.from)
    {
      std::size_t const m = r.search.points.count;
      r.frozen.capacity = std::min(known, m >> (round - 1));
    }
    if (r.frozen.active(round))
    {
      r.search.points.componentOfLabel = r.arena->frozenLabelTable(r.frozen.from);
    }
    if (round == 1)
    {
      this->firstSearches(r, before, slots.searchers);
    }
    else
    {
      r.arena->prepare(this->X, round, known, before);
      findMin1(this->X, r.search, *r.state, *r.arena, round, before, slots.searchers, r.frozen);
    }
    ComponentArrays const& comps = r.arena->ofRound(round);
    if (round > 1) // in round one every component is a point: its answer is its minimum edge
    {
      findMin2(this->X, r.search, comps, round, before);
    }
    connect(this->X, r.search.points, r.search.candidates, comps, r.edges, known, before,
      ComponentArena<Exec>::hooksAreAnswers(round));
    compact(this->X, comps, known, before, slots.after);
  }

  /// Round one's FindMin1; then what only its bottom-up searches read is freed (unless later
  /// rounds search bottom-up too: EMST_SEARCH) and the arena takes its room, so that the two
  /// are never held at once.
  template <class M>
  void firstSearches(Rounds<M>& r, const std::uint32_t* before, std::uint32_t* searchers)
  {
    findMin1(this->X, r.search, *r.state, *r.arena, 1, before, searchers, r.frozen);
    if (!searchesBottomUp(2, r.search.points.count, Dim, Exec::kDefersClimbs))
    {
      r.hierarchy->releaseClimbs();
      r.search.tree = r.hierarchy->arrays(); // null where freed
    }
    r.arena->allocate(this->X);
  }

  /// Checks the whole history: every round that started with several components ended with
  /// fewer, the last with one, and m-1 edges were emitted.
  void checkRounds(
    const std::vector<std::uint32_t>& history, int rounds, std::size_t m, Stats& stats)
  {
    stats.rounds = 0;
    for (int r = 1; r <= rounds && history[r] > 1; ++r)
    {
      if (history[r + 1] == 0 || history[r + 1] >= history[r])
      {
        throw Error(ErrorCode::Internal,
          "Boruvka round " + std::to_string(r) + " went from " + std::to_string(history[r]) +
            " to " + std::to_string(history[r + 1]) + " components");
      }
      stats.rounds = r;
    }
    if (history[0] != m - 1)
    {
      throw Error(ErrorCode::Internal,
        "the tree has " + std::to_string(history[0]) + " edges instead of " +
          std::to_string(m - 1));
    }
  }

  Exec& X;
  const Options& Opts;
  double GivenScale;
};

} // namespace detail
} // namespace emst
