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
//   forEach(n, f), forEachSearch(n, f)   run f(i) for i in [0, n) in parallel
//   allocate(bytes), deallocate(p, bytes)   backend memory, with peak tracking
//   fill(p, n, value), read(p), copyToHost(dst, src, n)
//   beginPhase(name)               phase timing
#pragma once

#include "Common.h"
#include "Kernels.h"
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

/// Owning array in backend memory. Move-only; released in reverse order of creation by scope,
/// or early with reset().
template <class T, class Exec>
class Buffer
{
public:
  Buffer(Exec& exec, std::size_t count)
    : ExecPtr(&exec)
    , Count(count)
    , Data(static_cast<T*>(exec.allocate(count * sizeof(T))))
  {
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& other) noexcept
    : ExecPtr(other.ExecPtr)
    , Count(other.Count)
    , Data(other.Data)
  {
    other.Data = nullptr;
    other.Count = 0;
  }
  Buffer& operator=(Buffer&& other) noexcept
  {
    if (this != &other)
    {
      this->reset();
      this->ExecPtr = other.ExecPtr;
      this->Count = other.Count;
      this->Data = other.Data;
      other.Data = nullptr;
      other.Count = 0;
    }
    return *this;
  }
  ~Buffer() { this->reset(); }
  void reset() noexcept
  {
    if (this->Data)
    {
      this->ExecPtr->deallocate(this->Data, this->Count * sizeof(T));
      this->Data = nullptr;
      this->Count = 0;
    }
  }
  T* data() const { return this->Data; }
  T* end() const { return this->Data + this->Count; }
  std::size_t size() const { return this->Count; }

private:
  Exec* ExecPtr;
  std::size_t Count;
  T* Data;
};

/// Tuning knobs, read once from the environment (EMST_LEAF_CAPACITY) for benchmarking.
inline int leafCapacity()
{
  static int const capacity = []
  {
    const char* text = std::getenv("EMST_LEAF_CAPACITY");
    int const value = text ? std::atoi(text) : 0;
    return value >= 2 && value <= 256 ? value : 16;
  }();
  return capacity;
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

  template <class T>
  void runTyped(const InputPoints<T, Dim>& input, std::size_t n, Result& result)
  {
    Stats& stats = result.stats;
    stats.inputPoints = n;
    auto policy = this->X.policy();

    // ---- Finite points and their bounding box -------------------------------------------------
    this->progress(0.0, "bounding box");
    Buf<Index> pointOfSorted(this->X, n); // first: input index of each finite point
    std::size_t const v = static_cast<std::size_t>(
      thrust::copy_if(policy, Counting(0), Counting(n), pointOfSorted.data(),
        IsFinitePoint<T, Dim>{input}) -
      pointOfSorted.data());
    stats.validPoints = v;
    stats.nonFinitePoints = n - v;
    if (v < n)
    {
      result.messages.push_back(std::to_string(n - v) +
        " point(s) with non-finite coordinates (NaN or Inf) were left out of the tree");
    }
    if (v < 2)
    {
      return;
    }
    BoundingBox empty{};
    BoundingBox const box = thrust::transform_reduce(policy, Counting(0), Counting(v),
      BoxOfPoint<T, Dim>{input, pointOfSorted.data()}, empty, BoxUnion{});
    double lo[3] = {box.lo[0], box.lo[1], box.lo[2]};
    float extent = 0.0f;
    for (int a = 0; a < Dim; ++a)
    {
      float const e = static_cast<float>(box.hi[a] - box.lo[a]);
      extent = e > extent ? e : extent;
    }
    Quantizer<Dim> quantizer{extent > 0.0f
        ? static_cast<float>(static_cast<double>(1u << MortonTraits<Dim>::kBitsPerAxis) / extent)
        : 0.0f};
    if (!(std::isfinite(extent) && std::isfinite(quantizer.scale)))
    {
      throw Error(ErrorCode::InvalidInput,
        "the coordinate range exceeds single precision (extent " + std::to_string(extent) + ")");
    }

    // ---- Morton order ---------------------------------------------------------------------------
    this->progress(0.05, "sort");
    Buf<std::uint64_t> codeOfSorted(this->X, v);
    this->X.forEach(v,
      ComputeCodes<T, Dim>{input, pointOfSorted.data(), codeOfSorted.data(),
        {lo[0], lo[1], lo[2]}, quantizer});
    // Stable: within equal codes the input indices stay increasing.
    thrust::stable_sort_by_key(policy, codeOfSorted.data(), codeOfSorted.end(),
      pointOfSorted.data());

    // ---- Duplicates -----------------------------------------------------------------------------
    this->progress(0.12, "duplicates");
    Buf<std::uint64_t> pairOfCopy(this->X, 0);
    Buf<double> lengthOfCopy(this->X, 0);
    std::size_t m = v;
    Buf<std::uint64_t> codeOfPoint(this->X, 0);
    Buf<Index> inputOfPoint(this->X, 0);
    std::size_t const sharing = static_cast<std::size_t>(thrust::count_if(policy, Counting(0),
      Counting(v), SharesCode{codeOfSorted.data(), v}));
    if (sharing > 0)
    {
      this->groupCopies(input, lo, codeOfSorted, pointOfSorted, sharing, pairOfCopy,
        lengthOfCopy, codeOfPoint, inputOfPoint);
      m = v - pairOfCopy.size();
    }
    if (pairOfCopy.size() == 0)
    {
      codeOfPoint = std::move(codeOfSorted);
      inputOfPoint = std::move(pointOfSorted);
    }
    else
    {
      codeOfSorted.reset();
      pointOfSorted.reset();
    }
    stats.duplicatePoints = pairOfCopy.size();

    // ---- The tree over the distinct points ------------------------------------------------------
    std::size_t const treeEdges = m > 0 ? m - 1 : 0;
    Buf<Index> edgePoints(this->X, 2 * treeEdges);
    if (m > 1)
    {
      this->boruvka(input, lo, m, codeOfPoint, inputOfPoint, edgePoints, stats);
    }
    codeOfPoint.reset();

    // ---- Output: input indices, double lengths, canonical order ---------------------------------
    this->progress(0.97, "output");
    std::size_t const e = treeEdges + pairOfCopy.size();
    Buf<std::uint64_t> pairOfEdge(this->X, e);
    Buf<double> lengthOfEdge(this->X, e);
    if (treeEdges > 0)
    {
      this->X.forEach(treeEdges,
        TreeEdgeKeys<T, Dim>{input, edgePoints.data(), inputOfPoint.data(), pairOfEdge.data(),
          lengthOfEdge.data()});
    }
    edgePoints.reset();
    inputOfPoint.reset();
    if (pairOfCopy.size() > 0)
    {
      thrust::copy(policy, pairOfCopy.data(), pairOfCopy.end(), pairOfEdge.data() + treeEdges);
      thrust::copy(policy, lengthOfCopy.data(), lengthOfCopy.end(),
        lengthOfEdge.data() + treeEdges);
      pairOfCopy.reset();
      lengthOfCopy.reset();
    }
    // (length, i, j): sort by the index pair, then stably by the length's bits (non-negative
    // doubles order like their bit patterns).
    thrust::sort_by_key(policy, pairOfEdge.data(), pairOfEdge.end(), lengthOfEdge.data());
    Buf<Index> edgeInOrder(this->X, e);
    thrust::sequence(policy, edgeInOrder.data(), edgeInOrder.end());
    {
      Buf<std::uint64_t> lengthBits(this->X, e);
      this->X.forEach(e, LengthBitsInOrder{edgeInOrder.data(), lengthOfEdge.data(),
                           lengthBits.data()});
      thrust::stable_sort_by_key(policy, lengthBits.data(), lengthBits.end(), edgeInOrder.data());
    }
    Buf<OutputEdge> out(this->X, e);
    this->X.forEach(e, WriteEdges{edgeInOrder.data(), pairOfEdge.data(), lengthOfEdge.data(),
                         out.data()});
    this->X.endCompute();
    result.edges.resize(e);
    this->X.copyToHost(reinterpret_cast<OutputEdge*>(result.edges.data()), out.data(), e);
  }

  /// Sorts each run of equal codes by coordinates so that identical points become adjacent,
  /// smallest input index first, then keeps the first copy of each point and records the
  /// zero-distance edges of the others (to their first copy).
  template <class T>
  void groupCopies(const InputPoints<T, Dim>& input, const double* lo,
    Buf<std::uint64_t>& codeOfSorted, Buf<Index>& pointOfSorted, std::size_t sharing,
    Buf<std::uint64_t>& pairOfCopy, Buf<double>& lengthOfCopy, Buf<std::uint64_t>& codeOfPoint,
    Buf<Index>& inputOfPoint)
  {
    auto policy = this->X.policy();
    std::size_t const v = codeOfSorted.size();
    {
      Buf<Index> slotOfRun(this->X, sharing);
      thrust::copy_if(policy, Counting(0), Counting(v), slotOfRun.data(),
        SharesCode{codeOfSorted.data(), v});
      Buf<DuplicateKey> keyOfRun(this->X, sharing);
      this->X.forEach(sharing,
        MakeDuplicateKey<T, Dim>{input, slotOfRun.data(), codeOfSorted.data(),
          pointOfSorted.data(), keyOfRun.data(), {lo[0], lo[1], lo[2]}});
      thrust::sort(policy, keyOfRun.data(), keyOfRun.end(), DuplicateKeyLess{});
      this->X.forEach(
        sharing, ScatterDuplicateKey{slotOfRun.data(), keyOfRun.data(), pointOfSorted.data()});
    }
    Buf<Index> headOfSorted(this->X, v);
    this->X.forEach(v, MarkCopies<T, Dim>{input, codeOfSorted.data(), pointOfSorted.data(),
                         headOfSorted.data(), {lo[0], lo[1], lo[2]}});
    thrust::inclusive_scan(policy, headOfSorted.data(), headOfSorted.end(), headOfSorted.data(),
      thrust::maximum<Index>());
    std::size_t const copies = static_cast<std::size_t>(
      thrust::count_if(policy, Counting(0), Counting(v), IsLaterCopy{headOfSorted.data()}));
    if (copies == 0)
    {
      return;
    }
    {
      Buf<Index> slotOfCopy(this->X, copies);
      thrust::copy_if(policy, Counting(0), Counting(v), slotOfCopy.data(),
        IsLaterCopy{headOfSorted.data()});
      pairOfCopy = Buf<std::uint64_t>(this->X, copies);
      lengthOfCopy = Buf<double>(this->X, copies);
      this->X.forEach(copies,
        CopyEdgeKeys<T, Dim>{input, slotOfCopy.data(), headOfSorted.data(), pointOfSorted.data(),
          pairOfCopy.data(), lengthOfCopy.data()});
    }
    std::size_t const m = v - copies;
    Buf<Index> slotOfPoint(this->X, m);
    thrust::copy_if(policy, Counting(0), Counting(v), slotOfPoint.data(),
      IsFirstCopy{headOfSorted.data()});
    headOfSorted.reset();
    codeOfPoint = Buf<std::uint64_t>(this->X, m);
    inputOfPoint = Buf<Index>(this->X, m);
    thrust::gather(policy, slotOfPoint.data(), slotOfPoint.end(), codeOfSorted.data(),
      codeOfPoint.data());
    thrust::gather(policy, slotOfPoint.data(), slotOfPoint.end(), pointOfSorted.data(),
      inputOfPoint.data());
  }

  /// Builds the cells and the hierarchy, then runs Boruvka rounds until one component is left.
  /// Writes the m-1 tree edges as pairs of distinct-point indices into edgePoints.
  template <class T>
  void boruvka(const InputPoints<T, Dim>& input, const double* lo, std::size_t m,
    Buf<std::uint64_t>& codeOfPoint, Buf<Index>& inputOfPoint, Buf<Index>& edgePoints,
    Stats& stats)
  {
    auto policy = this->X.policy();

    // ---- Cells (leaves): largest Morton cells with at most `capacity` points ------------------
    this->progress(0.15, "cells");
    Buf<Index> firstPointOfLeaf(this->X, m + 1);
    std::size_t leaves = 0;
    {
      Buf<std::uint8_t> levelOfPoint(this->X, m);
      this->X.forEach(m, LeafLevel<Dim>{codeOfPoint.data(), levelOfPoint.data(), m,
                           leafCapacity()});
      leaves = static_cast<std::size_t>(
        thrust::copy_if(policy, Counting(0), Counting(m), firstPointOfLeaf.data(),
          StartsLeaf<Dim>{codeOfPoint.data(), levelOfPoint.data()}) -
        firstPointOfLeaf.data());
    }
    this->X.fill(firstPointOfLeaf.data() + leaves, 1, static_cast<Index>(m));
    Buf<PointRecord> recordOfPoint(this->X, m);
    this->X.forEach(m, MakeRecords<T, Dim>{input, inputOfPoint.data(), recordOfPoint.data(),
                         {lo[0], lo[1], lo[2]}});

    // ---- Hierarchy over the cells ---------------------------------------------------------------
    this->progress(0.18, "tree");
    std::size_t const internal = leaves > 0 ? leaves - 1 : 0;
    Buf<TreeNode<Dim>> nodes(this->X, internal);
    Buf<Index> parentOfNode(this->X, internal);
    Buf<Index> parentOfLeaf(this->X, leaves);
    Buf<Index> visitsOfNode(this->X, internal);
    if (leaves > 1)
    {
      {
        Buf<std::uint64_t> keyOfLeaf(this->X, leaves);
        thrust::gather(policy, firstPointOfLeaf.data(), firstPointOfLeaf.data() + leaves,
          codeOfPoint.data(), keyOfLeaf.data());
        codeOfPoint.reset();
        this->X.fill(parentOfNode.data(), 1, kNone);
        this->X.forEach(internal,
          BuildRadixTree<Dim>{keyOfLeaf.data(), static_cast<long long>(leaves), nodes.data(),
            parentOfNode.data(), parentOfLeaf.data()});
      }
      this->X.fill(visitsOfNode.data(), internal, 0u);
      this->X.forEach(leaves,
        ClimbBoxes<Dim>{recordOfPoint.data(), firstPointOfLeaf.data(), parentOfNode.data(),
          parentOfLeaf.data(), nodes.data(), visitsOfNode.data()});
    }

    // ---- Boruvka rounds -------------------------------------------------------------------------
    Buf<Index> candidateOfPoint(this->X, m);
    Buf<float> boundOfPoint(this->X, m);
    this->X.fill(candidateOfPoint.data(), m, kNone);
    this->X.fill(boundOfPoint.data(), m, 0.0f);
    Buf<std::uint32_t> edgeCount(this->X, 1);
    this->X.fill(edgeCount.data(), 1, 0u);
    // Component state, one arena: the first round has m singleton components and needs three
    // index arrays; after it every component holds two points or more (k <= m/2) and the
    // rounds need 32 bytes per component.
    std::size_t const arenaBytes = 16 * m + 64;
    Buf<unsigned char> arena(this->X, arenaBytes);

    std::size_t k = m;
    int round = 0;
    double const logM = std::log(static_cast<double>(m));
    while (k > 1)
    {
      ++round;
      bool const singletons = (k == m);
      this->progress(0.2 + 0.75 * (1.0 - std::log(static_cast<double>(k)) / logM),
        ("round " + std::to_string(round)).c_str());
      unsigned char* cursor = arena.data();
      auto carve = [&cursor](std::size_t bytes)
      {
        unsigned char* p = cursor;
        cursor += (bytes + 15) & ~std::size_t(15);
        return p;
      };
      std::uint64_t* firstKeyOfComp = nullptr;
      std::uint64_t* secondKeyOfComp = nullptr;
      std::uint32_t* boundOfComp = nullptr;
      if (!singletons)
      {
        firstKeyOfComp = reinterpret_cast<std::uint64_t*>(carve(8 * k));
        secondKeyOfComp = reinterpret_cast<std::uint64_t*>(carve(8 * k));
        boundOfComp = reinterpret_cast<std::uint32_t*>(carve(4 * k));
      }
      Index* hookOfComp = reinterpret_cast<Index*>(carve(4 * k));
      Index* rootOfComp = reinterpret_cast<Index*>(carve(4 * k));
      Index* rankOfComp = reinterpret_cast<Index*>(carve(4 * k));
      if (static_cast<std::size_t>(cursor - arena.data()) > arenaBytes)
      {
        throw Error(ErrorCode::Internal, "component arena overflow");
      }

      if (!singletons)
      {
        this->X.fill(boundOfComp, k, floatBits(floatInfinity()));
        this->X.fill(firstKeyOfComp, k, kNoKey);
        this->X.fill(secondKeyOfComp, k, kNoKey);
        this->X.forEach(m, SeedComponentBounds{recordOfPoint.data(), candidateOfPoint.data(),
                             boundOfPoint.data(), boundOfComp});
      }
      if (leaves > 1)
      {
        this->X.fill(visitsOfNode.data(), internal, 0u);
        this->X.forEach(leaves,
          ClimbLabels<Dim>{recordOfPoint.data(), firstPointOfLeaf.data(), parentOfNode.data(),
            parentOfLeaf.data(), nodes.data(), visitsOfNode.data()});
      }
      // FindMin1
      this->X.forEachSearch(m,
        FindNearestForeign<Dim>{recordOfPoint.data(), inputOfPoint.data(), nodes.data(),
          firstPointOfLeaf.data(), static_cast<Index>(leaves), candidateOfPoint.data(),
          boundOfPoint.data(), boundOfComp});
      // FindMin2
      if (!singletons)
      {
        this->X.forEach(m, ComponentMinimumFirst{recordOfPoint.data(), inputOfPoint.data(),
                             candidateOfPoint.data(), boundOfPoint.data(), firstKeyOfComp});
        this->X.forEach(m, ComponentMinimumSecond{recordOfPoint.data(), inputOfPoint.data(),
                             candidateOfPoint.data(), boundOfPoint.data(), firstKeyOfComp,
                             secondKeyOfComp});
      }
      // Connect
      WinnerOfComponent const winner{secondKeyOfComp};
      this->X.forEach(
        k, HookComponents{recordOfPoint.data(), candidateOfPoint.data(), winner, hookOfComp});
      this->X.forEach(k, RootAndEmit{candidateOfPoint.data(), winner, hookOfComp,
                           edgePoints.data(), edgeCount.data()});
      // Compact
      this->X.forEach(k, FindRoots{hookOfComp, rootOfComp});
      auto isRoot = thrust::make_transform_iterator(Counting(0), IsRoot{rootOfComp});
      thrust::inclusive_scan(policy, isRoot, isRoot + k, rankOfComp);
      std::size_t const next = this->X.read(rankOfComp + k - 1);
      if (next == 0 || next >= k)
      {
        throw Error(ErrorCode::Internal,
          "Boruvka round " + std::to_string(round) + " went from " + std::to_string(k) +
            " to " + std::to_string(next) + " components");
      }
      Index* newLabelOfComp = hookOfComp; // the hooks are spent
      this->X.forEach(k, NewLabelOfComponent{rootOfComp, rankOfComp, newLabelOfComp});
      this->X.forEach(m, RelabelPoints{recordOfPoint.data(), newLabelOfComp});
      k = next;
    }
    stats.rounds = round;
    std::uint32_t const emitted = this->X.read(edgeCount.data());
    if (emitted != m - 1)
    {
      throw Error(ErrorCode::Internal, "the tree has " + std::to_string(emitted) +
          " edges instead of " + std::to_string(m - 1));
    }
  }

  Exec& X;
  const Options& Opts;
};

} // namespace detail
} // namespace emst
