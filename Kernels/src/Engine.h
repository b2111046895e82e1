// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The EMST algorithm, written once over a backend `Exec` (CpuExec.h: OpenMP + Thrust's OMP
// system; CudaExec.cuh: CUDA kernels + Thrust's CUDA system). Included by exactly one translation
// unit per backend.
//
// Reference: Qiao & Creput 2021 (cell partition, component-based nearest-neighbour search, the
// four Boruvka steps); Prokopenko et al. 2022 (subtree component labels, per-component upper
// bounds); Fallin et al. 2023 (packed 64-bit atomic minima). Papers in ../shared/papers.
//
// Exec provides:
//   policy()                       a Thrust execution policy
//   forEach(n, f)                  run f(i) for i in [0, n) in parallel
//   forEachSearch(n, components, f), forEachUnlessDone(n, components, f)
//                                  the same, unless *components <= 1 (a round with nothing to do)
//   forEachComponent(bound, components, f)   f(c) for c < *components, when > 1
//   allocate(bytes), deallocate(p, bytes)   backend memory, with peak tracking
//   fill(p, n, value), read(p), copyToHost(dst, src, n)
//   beginPhase(name)               phase timing
#pragma once

#include "base/Buffer.h"
#include "Kernels.h"
#include "phases/Cells.h"
#include "phases/Duplicates.h"
#include "phases/Frame.h"
#include "phases/Hierarchy.h"
#include "phases/OutputOrder.h"
#include "emst/Emst.h"

#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/functional.h>
#include <thrust/gather.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform_reduce.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace emst
{
namespace detail
{

static_assert(sizeof(OutputEdge) == sizeof(Edge) && alignof(OutputEdge) == alignof(Edge),
  "device edges are copied straight into emst::Edge");

/// Tuning knob, read once from the environment, for benchmarking: EMST_SEARCH (topdown,
/// bottomup, or first: bottom-up in the first round only).
enum class SearchStart
{
  TopDown,
  BottomUp,
  BottomUpFirstRound
};

inline SearchStart searchStart()
{
  static SearchStart const start = []
  {
    const char* text = std::getenv("EMST_SEARCH");
    std::string const mode = text ? text : "";
    return mode == "topdown" ? SearchStart::TopDown
      : mode == "bottomup"   ? SearchStart::BottomUp
                             : SearchStart::BottomUpFirstRound;
  }();
  return start;
}

template <class Exec, int Dim>
class Engine
{
public:
  using Counting = thrust::counting_iterator<std::size_t>;

  Engine(Exec& exec, const Options& options)
    : X(exec)
    , Opts(options)
  {
  }

  /// `points.data` is in backend memory. Fills result.edges (host), the counts and the rounds;
  /// phase times and memory are the caller's (they belong to the Exec).
  void run(const PointCloudView& points, Result& result)
  {
    std::size_t const stride = points.stride ? points.stride : static_cast<std::size_t>(Dim);
    if (points.scalarType == ScalarType::Float64)
    {
      this->runTyped(InputPoints<double, Dim>{static_cast<const double*>(points.data), stride},
        points.count, result);
    }
    else
    {
      this->runTyped(InputPoints<float, Dim>{static_cast<const float*>(points.data), stride},
        points.count, result);
    }
  }

private:
  template <class T>
  using Buf = Buffer<T, Exec>;

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
  void runTyped(const InputPoints<T, Dim>& input, std::size_t n, Result& result)
  {
    Stats& stats = result.stats;
    stats.inputPoints = n;

    // ---- Frame: bounding box, float frame, Morton lattice; the points in Morton order --------
    this->progress(0.0, "bounding box");
    FramedPoints<Exec, Dim> framed = frameInput(this->X, input, n);
    std::size_t const v = framed.finitePoints;
    stats.validPoints = v;
    stats.nonFinitePoints = n - v;
    if (v < n)
    {
      result.messages.push_back(std::to_string(n - v) +
        " point(s) with non-finite coordinates (NaN or Inf) were left out of the tree");
    }
    if (v < 2)
    {
      this->X.endCompute();
      this->finished();
      return;
    }
    this->progress(0.05, "sort");
    sortByCode(this->X, input, framed);

    // ---- Duplicates -----------------------------------------------------------------------------
    this->progress(0.12, "duplicates");
    DistinctPoints<Exec> distinct = joinDuplicates(this->X, input, framed);
    Buf<std::uint64_t>& codeOfPoint = distinct.codeOfPoint;
    Buf<Index>& inputOfPoint = distinct.inputOfPoint;
    std::size_t const m = distinct.size();
    stats.duplicatePoints = v - m;

    // ---- The tree over the distinct points ------------------------------------------------------
    std::size_t const treeEdges = m - 1;
    Buf<Index> edgePoints(this->X, 2 * treeEdges);
    if (m > 1)
    {
      this->boruvka(input, framed.frame, framed.tolerance(), framed.quantizer, distinct,
        edgePoints, stats);
    }
    codeOfPoint.reset();

    // ---- Output: input indices, double lengths, canonical order (length, i, j) -----------------
    this->progress(0.97, "output");
    Buf<OutputEdge> out = orderEdges(this->X, input, edgePoints, inputOfPoint, distinct.copyEdges);
    std::size_t const e = out.size();
    this->X.endCompute();
    result.edges.resize(e);
    this->X.copyToHost(reinterpret_cast<OutputEdge*>(result.edges.data()), out.data(), e);
    this->finished();
  }

  /// Builds the cells and the hierarchy, then runs Boruvka rounds until one component is left.
  /// Writes the m-1 tree edges as pairs of distinct-point indices into edgePoints.
  template <class T>
  void boruvka(const InputPoints<T, Dim>& input, const Frame& frame, const Tolerance& tolerance,
    const Quantizer<Dim>& quantizer, DistinctPoints<Exec>& distinct, Buf<Index>& edgePoints,
    Stats& stats)
  {
    auto policy = this->X.policy();

    // ---- Cells (leaves): largest Morton cells with at most `capacity` points ------------------
    this->progress(0.15, "cells");
    std::size_t const m = distinct.size();
    Cells<Exec, T, Dim> cells = buildCells(this->X, input, frame, distinct);
    std::size_t const leaves = cells.leaves;

    // ---- Hierarchy over the cells ---------------------------------------------------------------
    this->progress(0.18, "tree");
    Hierarchy<Exec, Dim> const hierarchy = buildHierarchy(this->X, cells, distinct.codeOfPoint);

    // ---- Boruvka rounds -------------------------------------------------------------------------
    Buf<Index> labelOfLeaf(this->X, leaves);
    Buf<Index> runOfLeaf(this->X, leaves);
    Buf<Index> candidateOfPoint(this->X, m);
    Buf<Index> candidateCompOfPoint(this->X, m);
    Buf<float> boundOfPoint(this->X, m);
    this->X.fill(candidateOfPoint.data(), m, kNone);
    this->X.fill(boundOfPoint.data(), m, 0.0f);
    // counters[0]: edges emitted; counters[r]: components before round r (counters[1] = m);
    // counters[kTieFlags + r]: round r found equal least keys in a component.
    // Rounds read their component count on the device, so that several rounds are queued
    // without waiting for the host; a round with one component left does nothing.
    Buf<std::uint32_t> counters(this->X, kCounters);
    this->X.fill(counters.data(), kCounters, 0u);
    this->X.fill(counters.data() + 1, 1, static_cast<std::uint32_t>(m));

    // Component state in one arena with a fixed layout. After the first round every component
    // holds two points or more, so k < h = ceil(m/2) + 1:
    //   firstKey 8h | secondKey 8h | bound 4h | hook 4h | root 4h | newId 4h
    // and the new labels of a round overwrite its hooks (spent by then). The first round
    // (k = m, no keys or bounds) puts its root and newId arrays over the keys, and its hooks
    // (which become the new labels that round two reads) over root+newId, which round two only
    // writes after reading them.
    std::size_t const h = (m + 1) / 2 + 1;
    Buf<unsigned char> arena(this->X, 32 * h);
    unsigned char* const base = arena.data();
    auto at = [base, h](std::size_t quartersOfH) { return base + quartersOfH * h; };
    ComponentArrays const later{reinterpret_cast<std::uint64_t*>(at(0)),
      reinterpret_cast<std::uint64_t*>(at(8)), reinterpret_cast<std::uint32_t*>(at(16)),
      reinterpret_cast<Index*>(at(20)), reinterpret_cast<Index*>(at(24)),
      reinterpret_cast<Index*>(at(28)), reinterpret_cast<Index*>(at(20))};
    ComponentArrays const first{nullptr, nullptr, nullptr, reinterpret_cast<Index*>(at(24)),
      reinterpret_cast<Index*>(at(0)), reinterpret_cast<Index*>(at(8)),
      reinterpret_cast<Index*>(at(24))};

    HierarchyArrays<Dim> const tree = hierarchy.arrays();
    RoundArrays<T> const arrays{{cells.exactOfPoint.data(), Dim}, frame.scale, tolerance, m,
      leaves, cells.recordOfPoint.data(), distinct.inputOfPoint.data(),
      cells.firstPointOfLeaf.data(), cells.leafOfPoint.data(), quantizer.scale,
      tree.parentOfNode, tree.parentOfLeaf, tree.nodes, tree.cellOfNode, tree.rangeOfNode,
      labelOfLeaf.data(), runOfLeaf.data(), candidateOfPoint.data(), candidateCompOfPoint.data(),
      boundOfPoint.data(), edgePoints.data(), counters.data(), first, later};
    std::size_t known = m; // components at the last look
    int round = 0;
    double const logM = std::log(static_cast<double>(m));
    while (known > 1)
    {
      // Components shrink about four-fold per round: queue about as many rounds as that
      // predicts, then look (a round too many costs a few empty launches).
      int const batch = std::max(1, static_cast<int>(std::log(static_cast<double>(known)) /
                                      std::log(6.0)));
      for (int b = 0; b < batch; ++b)
      {
        ++round;
        if (round > kMaxRounds)
        {
          throw Error(ErrorCode::Internal, "too many Boruvka rounds");
        }
        // Progress from the expected count: about four times fewer components per round.
        double const expected = std::max(2.0, static_cast<double>(known) / std::pow(4.0, b));
        this->progress(0.2 + 0.75 * (1.0 - std::log(expected) / logM),
          ("round " + std::to_string(round)).c_str());
        this->enqueueRound(round, known, arrays);
      }
      known = this->X.read(counters.data() + round + 1);
    }
    // Check the whole history: every round that started with several components ended with
    // fewer, and the last with one.
    std::vector<std::uint32_t> history(kMaxRounds + 2);
    this->X.copyToHostUntimed(history.data(), counters.data(), history.size());
    stats.rounds = 0;
    for (int r = 1; r <= round && history[r] > 1; ++r)
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
      throw Error(ErrorCode::Internal, "the tree has " + std::to_string(history[0]) +
          " edges instead of " + std::to_string(m - 1));
    }
  }

  static constexpr int kMaxRounds = 62;
  static constexpr int kTieFlags = kMaxRounds + 2;             ///< first tie flag in counters
  static constexpr int kCounters = kTieFlags + kMaxRounds + 1;

  /// What the rounds read and write: the run's arrays, fixed once the tree is built.
  template <class T>
  struct RoundArrays
  {
    InputPoints<T, Dim> exactOfPoint;
    double frameScale;
    Tolerance tolerance;
    std::size_t m;
    std::size_t leaves;
    PointRecord* recordOfPoint;
    const Index* inputOfPoint;
    const Index* firstPointOfLeaf;
    const Index* leafOfPoint;
    float latticeScale;
    const Index* parentOfNode;
    const Index* parentOfLeaf;
    TreeNode<Dim>* nodes;
    const std::uint64_t* cellOfNode;
    const LeafRange* rangeOfNode;
    Index* labelOfLeaf;
    Index* runOfLeaf;
    Index* candidateOfPoint;
    Index* candidateCompOfPoint;
    float* boundOfPoint;
    Index* edgePoints;
    std::uint32_t* counters;
    ComponentArrays first;  ///< round one's layout of the component arena
    ComponentArrays later;  ///< the other rounds' layout
  };

  /// One Boruvka round (Qiao & Creput 2021, section 4), queued without any host wait.
  /// counters[round] holds the components before it, counters[round + 1] receives those after;
  /// `known` (the count at the host's last look) bounds it and sizes the per-component launches.
  template <class T>
  void enqueueRound(int round, std::size_t known, const RoundArrays<T>& a)
  {
    bool const singletons = (round == 1);
    ComponentArrays const& comps = singletons ? a.first : a.later;
    // New labels of the previous round: none before round one, which wrote them in its layout.
    const Index* previousLabels = singletons ? nullptr
      : round == 2                           ? a.first.newLabelOfComp
                                             : a.later.newLabelOfComp;
    const std::uint32_t* before = a.counters + round;
    std::uint32_t* after = a.counters + round + 1;
    if (round == 2)
    {
      // Later rounds reset their entries in RootAndEmit, once read.
      this->X.forEachComponent(known, before, ResetComponents{a.later});
    }
    // Relabel, seed the bounds, refresh the subtree labels.
    this->X.forEachUnlessDone(a.leaves, before,
      RelabelLeaves<Dim>{a.recordOfPoint, a.firstPointOfLeaf, a.labelOfLeaf, previousLabels,
        a.candidateOfPoint, a.candidateCompOfPoint, a.boundOfPoint, comps.boundOfComp,
        a.tolerance});
    if (a.leaves > 1)
    {
      auto runStarts = thrust::make_transform_iterator(Counting(0), LabelRunStart{a.labelOfLeaf});
      thrust::inclusive_scan(this->X.policy(), runStarts, runStarts + a.leaves, a.runOfLeaf,
        thrust::maximum<Index>());
      this->X.forEachUnlessDone(a.leaves - 1, before,
        LabelNodes<Dim>{a.labelOfLeaf, a.runOfLeaf, a.rangeOfNode, a.nodes});
    }
    // FindMin1, with the first key of FindMin2.
    bool const bottomUp = searchStart() == SearchStart::BottomUp ||
      (searchStart() == SearchStart::BottomUpFirstRound && singletons);
    SearchContext<T, Dim> const ctx{a.exactOfPoint, a.frameScale, a.tolerance, a.recordOfPoint,
      a.inputOfPoint, a.nodes, a.cellOfNode,
      a.parentOfNode, a.parentOfLeaf, a.leafOfPoint, a.firstPointOfLeaf,
      static_cast<Index>(a.leaves), a.latticeScale, bottomUp, a.candidateOfPoint,
      a.candidateCompOfPoint, a.boundOfPoint, comps.boundOfComp, comps.firstKeyOfComp};
    this->X.forEachSearch(a.m, before, FindNearestForeign<T, Dim>{ctx});
    // FindMin2: the least pair among the least keys, then the point at its end.
    if (!singletons)
    {
      ComponentMinimumEdge<T, Dim> pass{a.exactOfPoint, a.frameScale, a.recordOfPoint,
        a.inputOfPoint, a.candidateOfPoint, a.boundOfPoint, comps.firstKeyOfComp,
        comps.secondKeyOfComp, comps.rootOfComp, a.counters + kTieFlags + round, false};
      this->X.forEachUnlessDone(a.m, before, pass);
      pass.settleTies = true;
      this->X.forEachUnlessDone(a.m, before, pass);
    }
    // Connect and compact.
    this->X.forEachComponent(known, before, HookComponents{a.candidateCompOfPoint, comps});
    this->X.forEachComponent(
      known, before, RootAndEmit{a.candidateOfPoint, comps, a.edgePoints, a.counters,
                       static_cast<std::uint32_t>(a.m - 1)});
    this->X.forEachComponent(known, before, FindRoots{comps, after});
    this->X.forEachComponent(known, before, NewLabelOfComponent{comps});
  }

  Exec& X;
  const Options& Opts;
};

} // namespace detail
} // namespace emst
