// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The conversion between VTK and the EMST engine: VTK point arrays in, VTK lines and arrays out.
// Its .cxx is the only unit of the filters that includes the engine's header; this header shows
// no engine type, so the wrapped filter classes never see one. Not wrapped, not installed.
#ifndef vtkEMSTEngineBridge_h
#define vtkEMSTEngineBridge_h

#include "vtkEMSTPeriodicBox.h"
#include "vtkSmartPointer.h"
#include "vtkType.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

class vtkCellArray;
class vtkDataArray;
class vtkDataSet;
class vtkDoubleArray;
class vtkIdTypeArray;
class vtkIntArray;
class vtkMultiProcessController;
class vtkPoints;
class vtkPolyData;
class vtkUnsignedCharArray;

namespace vtkEMSTEngineBridge
{

/// Outcome of a bridge call that can fail; never an exception.
struct Status
{
  enum StatusType
  {
    Ok,
    Failed,
    Cancelled
  };
  StatusType Code = Ok;
  std::string ErrorMessage;
};

/// The vtkGhostType bits that keep a point out of the tree: a copy of a point owned by another
/// piece (DUPLICATEPOINT) or a blanked point (HIDDENPOINT).
unsigned char LeftOutGhostBits();

/// The vtkGhostType point array of a data set, when it has one value per point; else null.
vtkUnsignedCharArray* PointGhosts(vtkDataSet* data);

/// One block of the cloud. The blocks are concatenated in order: point k of block b is output
/// point (sum of the sizes of blocks 0..b-1) + k.
struct PointBlock
{
  vtkPoints* Points = nullptr;
  /// Optional vtkGhostType values, one per point; a point whose value has a bit of GhostMask
  /// set is left out of the tree.
  vtkUnsignedCharArray* Ghosts = nullptr;
};

struct Request
{
  std::vector<PointBlock> Blocks;
  unsigned char GhostMask = 0;
  /// vtkEMSTEuclideanMinimumSpanningTree::BackendType (0 auto, 1 CUDA, 2 CPU), already resolved
  /// against EMST_BACKEND by the caller.
  int Backend = 0;
  /// The periodic box of the tree (none by default): minimum-image distances and lengths.
  vtkEMSTPeriodicBox::Box Box;
  /// Fraction done (0..1) and the step about to run; returning false cancels.
  std::function<bool(double, const char*)> Progress;
};

struct Result
{
  Status Outcome;

  /// One line (2 point ids, output numbering) per edge, ordered by (length, i, j).
  vtkSmartPointer<vtkCellArray> Lines;
  /// Length of each edge, in the order of Lines.
  vtkSmartPointer<vtkDoubleArray> EdgeLength;
  double TotalLength = 0.0;
  std::string BackendDescription; ///< "CUDA (<device>)" or "CPU (<n> threads)"
  int BackendId = 0;              ///< the engine that ran: 1 CUDA, 2 CPU; 0 none (no points)
  double ComputeMilliseconds = 0.0;
  vtkIdType PointsInTree = 0;        ///< finite, non-ghost points
  vtkIdType GhostPoints = 0;         ///< left out because of their ghost flags
  std::string InputPath;             ///< e.g. "zero-copy float32 3D", "copied float64 2D (z = 0)"
  std::vector<std::string> Messages; ///< the engine's warnings and notes: to warn with and record
  /// Notes to record but not to warn with: Auto without a usable GPU after the first time in the
  /// process (the first time it is in Messages).
  std::vector<std::string> Notes;
};

/// The backend to run (0 auto, 1 CUDA, 2 CPU): an explicit CUDA or CPU property wins; with auto,
/// the EMST_BACKEND environment variable decides when it is set (the engine's parseBackend
/// names). An unknown value is reported in `warning` and ignored.
int ResolveBackend(int property, std::string& warning);

/// Computes the tree of all points of all blocks. Never throws: failures come back in Outcome,
/// Failed (with ErrorMessage) or Cancelled, with empty Lines and EdgeLength.
Result ComputeTree(const Request& request);

/// HDBSCAN*'s parameters besides k (emst::HdbscanParameters).
struct HdbscanParameters
{
  vtkIdType MinimumClusterSize = 5;
  int Selection = 0; ///< 0 excess of mass, 1 leaf
  double Epsilon = 0.0;
  bool AllowSingleCluster = false;
};

/// HDBSCAN*'s mutual reachability tree of a request's points, held by the engine's caller for
/// repeated extractions of clusters: only k, the points and the backend need a new tree.
class HdbscanTree
{
public:
  /// Computes the tree for k = minimumSamples. `tree` receives it as ComputeTree gives the EMST
  /// (lines in output point ids, their lengths in an array named "MutualReachability", the run's
  /// description, Outcome); null unless Outcome is Ok.
  static std::unique_ptr<HdbscanTree> Create(
    const Request& request, vtkIdType minimumSamples, Result& tree);
  ~HdbscanTree();

  vtkIdType NumberOfPoints() const; ///< output points (ghost points included)
  /// Per output point, "CoreDistance": the distance to the k-th nearest point, the point itself
  /// counted; NaN for points left out (non-finite, ghost).
  vtkSmartPointer<vtkDoubleArray> CoreDistance() const;

  struct Clusters
  {
    Status Outcome;
    vtkSmartPointer<vtkIntArray> ClusterId;       ///< per point: 0 = largest, -1 noise
    vtkSmartPointer<vtkDoubleArray> Probability;  ///< per point
    vtkSmartPointer<vtkDoubleArray> OutlierScore; ///< per point (GLOSH), NaN when left out
    std::vector<vtkIdType> Sizes;                 ///< per cluster (id order)
    std::vector<vtkIdType> FirstPoint;            ///< per cluster: its smallest point id
    std::vector<vtkIdType> Node;                  ///< per cluster: its condensed tree id
    std::vector<double> Stability, BirthLambda, DeathLambda; ///< per cluster
    /// The condensed tree, one row per entry: points are 0..n-1 (output ids), clusters n, n+1, ...
    vtkSmartPointer<vtkIdTypeArray> Parent;
    vtkSmartPointer<vtkIdTypeArray> Child;
    vtkSmartPointer<vtkDoubleArray> Lambda;
    vtkSmartPointer<vtkIdTypeArray> Size;
    vtkIdType NoisePoints = 0;
    double Milliseconds = 0.0;
  };
  /// The clusters (emst::extractHdbscanClusters). Never throws: failures in Outcome.
  Clusters Extract(const HdbscanParameters& parameters) const;

private:
  HdbscanTree();
  struct Internals;
  std::unique_ptr<Internals> Data;
};

/// A tree (the line cells of a vtkPolyData) held by the engine for repeated cuts into
/// single-linkage clusters: built once per input, then cut at every threshold change.
class ClusterTree
{
public:
  /// Reads the line cells of `tree` (a polyline of m points gives m - 1 edges) with their lengths:
  /// from `lengths`, a one-component cell array, when given and every line has two points (line k
  /// is cell NumberOfVerts + k); else computed from the points in double (minimum-image lengths
  /// in a periodic `box`). backend: 0 auto (the GPU when usable), 1 CUDA, 2 CPU. Returns null with
  /// `status` set on failure.
  ///
  /// The leaves, the points the cuts and the hierarchy are about, are the points in the tree as
  /// the tree filter decides (finite coordinates, no DUPLICATEPOINT or HIDDENPOINT ghost bit),
  /// and any point a line touches; the others are left out: ClusterId -1 and ClusterSize 0 in a
  /// cut, and no leaf of the hierarchy.
  static std::unique_ptr<ClusterTree> Create(vtkPolyData* tree, vtkDataArray* lengths, int backend,
    const vtkEMSTPeriodicBox::Box& box, Status& status);
  ~ClusterTree();

  /// The leaves (points in the tree); and the input points left out of it.
  vtkIdType NumberOfPoints() const;
  vtkIdType NumberOfLeftOut() const;
  vtkIdType NumberOfEdges() const;
  /// Length of the k-th shortest edge (edges in (length, i, j) order).
  double SortedLength(vtkIdType k) const;
  /// Edges kept by a cut at `threshold` (length <= threshold).
  vtkIdType EdgesAtMost(double threshold) const;
  /// Edges kept for `clusters` groups: NumberOfPoints - clusters, clamped to the edges there are.
  vtkIdType EdgesForGroups(vtkIdType clusters) const;
  /// "CUDA (<device>)" or "CPU"; the engine's notes (e.g. a fall-back to the CPU), to warn with
  /// once per tree; and the notes only to record (Auto without a usable GPU, after the first
  /// time in the process: see Result::Notes).
  std::string BackendDescription() const;
  const std::vector<std::string>& Messages() const;
  const std::vector<std::string>& Notes() const;

  struct Cut
  {
    Status Outcome;
    vtkSmartPointer<vtkIntArray> ClusterId;      ///< per point, "ClusterId"
    vtkSmartPointer<vtkIdTypeArray> ClusterSize; ///< per point, "ClusterSize"
    vtkSmartPointer<vtkCellArray> Lines;         ///< the kept edges, shortest first
    vtkSmartPointer<vtkDoubleArray> EdgeLength;  ///< per kept edge, "EdgeLength"
    std::vector<vtkIdType> Sizes;                ///< per cluster (id order)
    std::vector<vtkIdType> FirstPoint;           ///< per cluster: its smallest point id
    vtkIdType Groups = 0;
    vtkIdType NoisePoints = 0; ///< points with ClusterId -1: small groups and left-out points
    double Milliseconds = 0.0;
  };
  /// Keeps the `kept` shortest edges and labels the clusters (see emst::TreeCutter::cut).
  Cut CutTree(vtkIdType kept, vtkIdType minimumClusterSize);

  /// The single-linkage hierarchy of the leaves in scipy's layout: arrays "Cluster1", "Cluster2",
  /// "Height", "Size", one row per edge, leaf k being cluster k; and "LeafPointId", the input
  /// point of each leaf (0, 1, ... when no point is left out).
  struct Hierarchy
  {
    Status Outcome;
    vtkSmartPointer<vtkIdTypeArray> Cluster1;
    vtkSmartPointer<vtkIdTypeArray> Cluster2;
    vtkSmartPointer<vtkDoubleArray> Height;
    vtkSmartPointer<vtkIdTypeArray> Size;
    vtkSmartPointer<vtkIdTypeArray> LeafPointId;
  };
  Hierarchy ComputeHierarchy() const;

private:
  ClusterTree();
  struct Internals;
  std::unique_ptr<Internals> Data;
};

// ---- distributed: the tree and its cut over the processes of a controller --------------------

/// This process's part of the distributed tree (emst/Distributed.h): every process keeps its own
/// points and outputs the edges it owns (those whose end with the smaller global id it holds),
/// with ghost copies of their remote ends.
struct DistributedTree : Result
{
  /// Lines: the owned edges, ordered by (length, i, j). Point ids: k < OwnPoints is this process's
  /// k-th output point (the blocks appended, as in ComputeTree); OwnPoints + g is ghost g.
  vtkIdType OwnPoints = 0;
  /// Per own output point: its global id (the points of all processes in process order, ghost-
  /// flagged ones left out), -1 for a point left out by its ghost flags.
  vtkSmartPointer<vtkIdTypeArray> GlobalIds;
  /// Per ghost, ordered by (owner, global id): its global id, owner process and output point
  /// id there.
  std::vector<vtkIdType> GhostGlobalIds;
  std::vector<int> GhostOwners;
  std::vector<vtkIdType> GhostOwnerPoints;
  vtkIdType ExchangedPoints = 0; ///< this process's (DistributedStats::exchangedPoints)
  int Processes = 1;
  int Rounds = 0; ///< distributed Boruvka rounds
};

/// Computes the tree of the points of all processes without gathering them. Collective: every
/// process of `controller` calls it. PointsInTree and TotalLength are global, the rest this
/// process's. Failures are the same on every process (Outcome), with empty Lines.
DistributedTree ComputeDistributedTree(
  const Request& request, vtkMultiProcessController* controller);

/// A distributed tree (vtkEMSTEuclideanMinimumSpanningTree's Distributed output, one piece per
/// process) held for repeated cuts. Own points are those without the DUPLICATEPOINT ghost bit;
/// `globalIds` (EMSTGlobalId) names every point, `owners` (EMSTOwnerRank) the process holding a
/// ghost. Every method is collective.
class DistributedClusterTree
{
public:
  /// Null with `status` set (on every process) when the arrays do not describe a distributed
  /// tree or the engine fails.
  static std::unique_ptr<DistributedClusterTree> Create(vtkPolyData* tree, vtkDataArray* lengths,
    vtkDataArray* globalIds, vtkDataArray* owners, vtkMultiProcessController* controller,
    Status& status);
  ~DistributedClusterTree();

  vtkIdType NumberOfPoints() const; ///< own points of all processes
  vtkIdType NumberOfEdges() const;  ///< over all processes
  double LongestEdge() const;
  double ShortestEdge(); ///< over all processes; 0 without edges (collective)
  const std::vector<std::string>& Messages() const;
  /// Edges of length <= each threshold, over all processes.
  std::vector<vtkIdType> EdgesAtMost(const std::vector<double>& thresholds);
  /// b times the mean inter-particle spacing (V / n)^(1/d) of the own finite points of all
  /// processes (vtkEMSTClusters' LINKING_LENGTH).
  double LinkingThreshold(double b);

  struct Cut : ClusterTree::Cut
  {
    double Threshold = 0.0;
    vtkIdType Clusters = 0; ///< global (Sizes is filled on process 0 only)
    /// Process 0: the cluster table's rows by id (FirstPoint: the smallest global id).
    std::vector<double> Centroid, BoundsMin, BoundsMax; ///< 3 per cluster
    std::vector<double> LongestEdge;
  };
  /// Keeps the edges of length <= threshold, or (keepEdges >= 0) the keepEdges smallest in the
  /// order (length, i, j); labels every output point (own and ghost) with the global cluster id
  /// and its group's size.
  Cut CutTree(double threshold, vtkIdType keepEdges, vtkIdType minimumClusterSize);

  /// The single-linkage hierarchy of the whole tree on process 0 (the others get empty arrays).
  ClusterTree::Hierarchy ComputeHierarchy();

private:
  DistributedClusterTree();
  struct Internals;
  std::unique_ptr<Internals> Data;
};

/// Whether the processes of `controller` (more than one) hold a distributed tree: every process
/// with points has the EMSTGlobalId and EMSTOwnerRank point arrays the Distributed mode writes,
/// and one at least has points. Collective; false without a controller or with one process.
bool IsDistributedTree(vtkMultiProcessController* controller, vtkPolyData* piece);
}

#endif
