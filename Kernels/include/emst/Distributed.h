// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The distributed engine: the exact EMST of a point cloud spread over the ranks of a parallel
// program, and its threshold cut, without gathering the points anywhere. Every rank keeps its
// points; no rank holds more than its share plus the points exchanged with the others. No MPI,
// VTK or CUDA type appears here: ranks talk through emst::Communicator, which the callers
// implement (the filters over vtkMultiProcessController, the emst_distributed program over MPI,
// the tests and the program's --ranks mode over threads: runInProcess).
//
// The algorithm (Kernels/src/distributed/DistributedEmst.cxx has the proofs):
// 1. global ids: rank offset + local index, or the caller's; the global box gives the key's scale;
// 2. each rank's own EMST (the local engine, GPU or CPU) under that scale;
// 3. certification: a Kruskal pass over the local tree with, per local component, a lower bound
//    of its key to any other rank's point (from the ranks' published boxes) keeps the edges that
//    are surely in the global tree; what it cannot certify is a thin layer near other ranks;
// 4. a distributed Borůvka over the fragments: per component the least of its uncertified local
//    edges and of the cross-rank edges found by nearest-foreign-point queries sent only to ranks
//    whose boxes are close enough, chosen at the component's home rank, merged by a distributed
//    union-find (DistributedUnionFind, which the cut uses too).
// The result is the serial computeEmst tree of the points in global-id order, edge for edge.
//
// Reference: Borůvka 1926; Qiao & Créput 2021 and Prokopenko et al. 2022 (component-based
// nearest-neighbour Borůvka); the cut property of minimum spanning trees (Tarjan 1983), in
// ../shared/papers.
#pragma once

#include "emst/Clusters.h"
#include "emst/Emst.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace emst
{

/// The collective operations of a group of ranks. Every call is collective: all ranks call it,
/// in the same order, with the same `count` (reductions). Implementations must not return
/// before the operation is complete on this rank; errors are reported with emst::Error.
class Communicator
{
public:
  enum class Op
  {
    Sum,
    Min,
    Max
  };

  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual void barrier() = 0;
  /// values[k] = op over the ranks of values[k], on every rank.
  virtual void allReduce(double* values, std::size_t count, Op op) = 0;
  virtual void allReduce(std::uint64_t* values, std::size_t count, Op op) = 0;
  /// Every rank's `send`, concatenated in rank order, into `receive`; counts[r] = bytes of rank r.
  virtual void allGatherv(const std::vector<std::uint8_t>& send, std::vector<std::uint8_t>& receive,
    std::vector<std::size_t>& counts) = 0;
  /// send[d] (size() buffers) goes to rank d; receive[s] gets what rank s sent to this rank. The
  /// call may release send's buffers (leave them empty) as soon as they are sent or packed, so
  /// that a large exchange is not held twice.
  virtual void allToAllv(std::vector<std::vector<std::uint8_t>>& send,
    std::vector<std::vector<std::uint8_t>>& receive) = 0;
};

/// Runs body(communicator) on `ranks` threads, rank r on thread r, each with a communicator of
/// `ranks` in-process ranks (tests; the emst_distributed program's --ranks mode, e.g. ranks that
/// share one GPU). When a rank throws, the ranks waiting in a collective call throw too; the
/// first exception is rethrown here once every thread has ended.
void runInProcess(int ranks, const std::function<void(Communicator&)>& body);

/// A point of another rank that is an end of an edge this rank owns (its ghost copy).
struct RemotePoint
{
  std::uint64_t globalId = 0;
  std::uint32_t rank = 0;       ///< the rank that holds it
  std::uint32_t localIndex = 0; ///< its index among that rank's points
  double x[3] = { 0.0, 0.0, 0.0 };
};

/// An edge of the distributed tree, on the rank that owns it: the rank holding its end with the
/// smaller global id (i).
struct DistributedEdge
{
  std::uint64_t i = 0; ///< global ids, i < j
  std::uint64_t j = 0;
  double length = 0.0;      ///< as computeEmst computes it, bit for bit
  std::uint32_t localI = 0; ///< index of i among this rank's points
  /// Index of j among this rank's points, or, when jRemote, into DistributedResult::remotePoints.
  std::uint32_t localJ = 0;
  bool jRemote = false;
};

struct DistributedOptions
{
  /// The local trees' engine (backend, threads, device); cpuThreads also bounds the threads of
  /// the distributed phases (answering queries). Its progress callback sees the local tree's steps
  /// and the rounds on this rank; cancelling there cancels the run on every rank. A periodic
  /// engine.box is refused (InvalidInput): the distributed search is Euclidean only.
  Options engine;
  /// Boxes each rank publishes of its points (the top of its query tree): more prune better.
  int boxesPerRank = 64;
  /// Nearest-point queries a rank sends per exchange step: bounds the memory of the exchange
  /// (a few hundred bytes per query at the peak of a step, there and back: about 20 MB by
  /// default) at the cost of more steps when the exchange is large.
  std::size_t queriesPerStep = std::size_t(1) << 16;
};

/// What one rank did. Counts are this rank's, except where "global" is said.
struct DistributedStats
{
  std::size_t localPoints = 0;      ///< this rank's input points
  std::size_t localValidPoints = 0; ///< finite ones
  std::uint64_t globalPoints = 0;
  std::uint64_t globalValidPoints = 0;
  std::size_t localTreeEdges = 0; ///< edges of this rank's own EMST
  std::size_t certifiedEdges = 0; ///< of them, surely in the global tree
  std::size_t fragments = 0;      ///< components of the certified edges
  int rounds = 0;                 ///< distributed Borůvka rounds
  std::uint64_t queriesSent = 0;  ///< nearest-foreign-point queries (a point each) sent
  std::uint64_t queriesReceived = 0;
  std::uint64_t bytesSent = 0; ///< over all collective calls
  std::uint64_t bytesReceived = 0;
  /// Point records (coordinates) this rank sent or received: queries both ways, the answers that
  /// found a point both ways, and the remote ends of the edges it owns.
  std::uint64_t exchangedPoints = 0;
  std::size_t remotePoints = 0;
  /// Host memory of the distributed phases at their peak (bytes, approximate: the arrays they
  /// hold), and the local engine's own peak (Stats::peakBackendBytes).
  std::size_t peakHostBytes = 0;
  std::vector<PhaseTime> phases; ///< local tree, certification, each round, output
  double milliseconds = 0.0;     ///< this rank's whole run
};

struct DistributedResult
{
  /// The edges this rank owns, in the order (length, i, j). Over all ranks: the validPoints - 1
  /// edges of computeEmst's tree of all points in global-id order, each on exactly one rank.
  std::vector<DistributedEdge> edges;
  /// The remote ends of `edges`, by increasing global id, each once.
  std::vector<RemotePoint> remotePoints;
  /// Global ids of this rank's points: firstGlobalId + k, or the caller's.
  std::uint64_t firstGlobalId = 0;
  /// The global tree's length, the same on every rank: the correctly rounded sum of all edge
  /// lengths (computeEmst's compensated sum in edge order agrees to an ulp or two).
  double totalWeight = 0.0;
  std::uint64_t globalEdges = 0;
  Stats localStats; ///< the local tree's engine run (backend, device, phases)
  DistributedStats stats;
  std::vector<std::string> messages;
  int dimension = 3; ///< the cloud's (the same on every rank)
};

/// The exact EMST of the union of every rank's `local` points. Collective: every rank calls it
/// with its own points (any count, 0 included; the same dimension everywhere; float32 and float64
/// may be mixed: the coordinates as given, promoted to double, define the tree).
///
/// Global ids order the points as a serial run would: without `globalIds`, rank r's point k is
/// (points of ranks 0..r-1) + k, so the tree is computeEmst's of the ranks' points concatenated in
/// rank order; with `globalIds` (one per local point, unique over all ranks, below 2^63) it is
/// computeEmst's of all points listed by increasing id. Non-finite points take part in no edge.
///
/// Errors: every rank throws the same emst::Error code (the message of the rank that failed
/// first, or one that names it): InvalidInput (bad view on some rank, different dimensions,
/// duplicate global ids, a global box that overflows), the engine's errors on any rank,
/// Cancelled. A Communicator error propagates as thrown.
DistributedResult computeDistributedEmst(const PointCloudView& local, Communicator& comm,
  const DistributedOptions& options = {}, const std::uint64_t* globalIds = nullptr);

/// An edge of a distributed forest as its cutter sees it: i, j global ids (i < j), `length` its
/// order key with them, `localI` this rank's end (i or j, the one held here), the other end held
/// here too (at otherLocal) or by `otherRank`.
struct ForestEdge
{
  std::uint64_t i = 0;
  std::uint64_t j = 0;
  double length = 0.0;
  std::uint32_t localEnd = 0;   ///< index among this rank's points of the end held here
  std::uint32_t otherLocal = 0; ///< the other end's index here, when !otherRemote
  std::uint32_t otherRank = 0;  ///< the other end's rank, when otherRemote
  bool otherRemote = false;
  bool localIsI = true; ///< whether the end held here is i
};

/// What a distributed cut gives: global counts on every rank; the clusters (by id: decreasing
/// size, ties by smallest global id) on rank 0 only.
struct DistributedClustering
{
  std::uint64_t keptEdges = 0;
  std::uint64_t groups = 0;
  std::uint64_t clusters = 0;
  std::uint64_t noisePoints = 0;
  std::vector<std::uint64_t> sizes;      ///< rank 0: per cluster
  std::vector<std::uint64_t> firstPoint; ///< rank 0: per cluster, its smallest global id
  double milliseconds = 0.0;             ///< this rank
};

/// A forest spread over ranks (the distributed tree's edges, or any forest each of whose edges
/// one rank owns), cut at thresholds again and again like TreeCutter. Construction and every
/// method are collective. Every point is held by one rank (its "own" points, with global ids);
/// an edge is given by the rank that owns it, with at least one end held there.
class DistributedTreeCutter
{
public:
  /// `globalIds`: [points], unique over all ranks; null: rank offset + local index.
  DistributedTreeCutter(Communicator& comm, std::size_t points, const std::uint64_t* globalIds,
    std::vector<ForestEdge> ownedEdges);
  ~DistributedTreeCutter();
  DistributedTreeCutter(const DistributedTreeCutter&) = delete;
  DistributedTreeCutter& operator=(const DistributedTreeCutter&) = delete;

  std::uint64_t globalPoints() const;
  std::uint64_t globalEdges() const;
  double longestEdge() const; ///< over all ranks; 0 without edges
  /// The owned edges in the order the cutter uses, (length, i, j).
  const std::vector<ForestEdge>& sortedEdges() const;

  /// Global number of edges of length <= each threshold (one collective call for all).
  std::vector<std::uint64_t> edgesAtMost(const std::vector<double>& thresholds);
  /// The (length, i, j) of the k-th smallest edge over all ranks (1-based, 1 <= k <= globalEdges):
  /// a cut keeping exactly k edges keeps those not above it.
  struct EdgeOrder
  {
    double length;
    std::uint64_t i;
    std::uint64_t j;
  };
  EdgeOrder kthEdge(std::uint64_t k);

  /// Keeps the edges not above `last` in the order (length, i, j) (all of length <= t:
  /// {t, max, max}; none: length -1) and labels the groups, like TreeCutter::cut: per own point
  /// its cluster id (0 = largest over all ranks, ties by smallest global id; -1 for groups below
  /// minimumClusterSize) and its group's size; per entry of `askedIds` (global ids of points of
  /// any rank, e.g. the remote ends of owned edges) the same two values. Null outputs are skipped.
  DistributedClustering cut(const EdgeOrder& last, std::size_t minimumClusterSize,
    std::int32_t* clusterId, std::int64_t* groupSize, const std::vector<std::uint64_t>& askedIds,
    const std::vector<std::uint32_t>& askedRanks, std::int32_t* askedClusterId,
    std::int64_t* askedGroupSize);

  class Impl;

private:
  Impl* Pimpl;
};

/// Per-cluster sums that every rank has for its own points, merged over the ranks on rank 0
/// (other ranks get nothing): sizes added, sums added, boxes joined, the longest edge the largest.
/// Used for the cluster table of a distributed cut.
struct ClusterSummary
{
  std::int32_t cluster = 0;
  std::uint64_t points = 0;
  double sum[3] = { 0.0, 0.0, 0.0 };
  double lo[3] = { 0.0, 0.0, 0.0 };
  double hi[3] = { 0.0, 0.0, 0.0 };
  double longestEdge = 0.0;
};
/// Collective; `partial` has at most one entry per cluster (taken: move it in, so that it is freed
/// once sent). Returns, on rank 0, one entry per cluster present anywhere, by cluster id.
std::vector<ClusterSummary> mergeClusterSummaries(
  Communicator& comm, std::vector<ClusterSummary> partial);

/// The edges of a distributed tree, gathered on rank 0 (the single-linkage hierarchy needs them
/// all: n - 1 rows). Rank 0 gets every rank's edges, others an empty list.
std::vector<Edge> gatherEdgesOnRankZero(Communicator& comm, const std::vector<Edge>& local);

} // namespace emst
