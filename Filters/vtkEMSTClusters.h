// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
/**
 * @class   vtkEMSTClusters
 * @brief   single-linkage (friends-of-friends) clusters: a threshold cut of a spanning tree
 *
 * Input: the output of vtkEMSTEuclideanMinimumSpanningTree (a vtkPolyData whose line cells are
 * the tree edges, with the cell array `EdgeLength`). Any vtkPolyData whose lines form a tree or a
 * forest works: the edge lengths come from the input array to process (index 0; default: the
 * active cell scalars, `EdgeLength` for the tree filter's output) or, without it, from the points.
 *
 * The cut keeps the tree edges of length <= the threshold; its connected groups are the
 * friends-of-friends groups with that linking length (points at distance <= threshold are
 * friends), i.e. the single-linkage clusters at that height. Edges exactly equal to the threshold
 * are kept. The threshold comes from the cut mode:
 * - THRESHOLD: `Threshold` itself; a negative value (the default, -1: not set) or NaN means the
 *   middle of the tree's edge lengths, (shortest + longest) / 2, where ParaView's slider starts;
 * - LINKING_LENGTH: `LinkingLength` (b) times the mean inter-particle spacing (V / n)^(1/d), as
 *   halo finders define it: V the volume of the bounding box of the points in the d dimensions
 *   where it has extent (on the periodic axes of a periodic tree: the box's period), n the number
 *   of points with finite coordinates;
 * - NUMBER_OF_CLUSTERS: the `NumberOfClusters` - 1 longest edges are cut (in the order (length,
 *   i, j)), which gives exactly that many groups for a spanning tree.
 * Groups of fewer than `MinimumClusterSize` points are noise. A property outside its range is
 * clamped or replaced when the cut runs (NumberOfClusters or MinimumClusterSize below 1: 1; a
 * negative LinkingLength: 0; a NaN LinkingLength: 0.2), and every such value, like a
 * NumberOfClusters or MinimumClusterSize above the number of points, gets a line in
 * `ClusterMessages`.
 *
 * Output 0 (vtkPolyData): the input points and point arrays, plus point arrays `ClusterId` (int:
 * 0 = the largest cluster, then by decreasing size, ties by smallest point id; -1 = noise) and
 * `ClusterSize` (vtkIdType: the size of the point's group, noise included). Points not in the
 * tree (non-finite coordinates, DUPLICATEPOINT or HIDDENPOINT ghosts, and no line) are in no
 * group: ClusterId -1, ClusterSize 0, counted in NoisePoints, with a note; the kept edges as
 * lines, shortest first, with cell array `EdgeLength`. Field data `ClusterThreshold`,
 * `NumberOfClusters`, `NoisePoints`, `ClusterBackend`, `ClusterCutMilliseconds`,
 * `ClusterMessages`.
 *
 * Output 1 (vtkTable): one row per cluster, in id order: `ClusterId`, `Size`, `Centroid`,
 * `BoundsMin`, `BoundsMax` (3 components each), `LongestEdge` (longest kept edge inside the
 * cluster; 0 for a single point), `FirstPoint` (smallest point id).
 *
 * Periodic trees: an input with field data `BoxSize` (and `BoxOrigin`), as the tree filter writes
 * for a tree in a periodic box, is cut in that box: the linking length's V uses the box, the
 * table's centroids and bounds are those of each cluster unwrapped around itself along its kept
 * edges (a halo across a face is one piece; the centroid is then moved by whole periods into the
 * box and the bounds with it, so they may reach past the faces), and output 0 gets the cell array
 * `CrossesBoundary` for its kept edges and the box's field data.
 *
 * Output 2 (vtkTable): the distribution of the tree's edge lengths, to choose the cut:
 * `HistogramBins` equal bins over [0, longest edge], columns `EdgeLength` (bin centre),
 * `BinStart`, `BinEnd`, `EdgeCount` (edges in (BinStart, BinEnd], the first bin from 0
 * inclusive) and `ClustersAtBinEnd` (groups of a cut at BinEnd, whatever the minimum size).
 *
 * The tree is handed to the engine once per input and kept there: a new threshold re-runs only
 * the cut. `Backend` chooses the engine: CUDA (fails when no device is usable), CPU, or AUTO:
 * the environment variable EMST_BACKEND (auto, cuda/gpu or cpu) when it is set; else where the
 * tree was computed, when the input says so (the tree filter's field data `EMSTBackendId`: the
 * GPU when it is usable, as for the tree, or the CPU); else the GPU when usable, else the CPU.
 *
 * Parallel runs: a tree from the tree filter's Distributed mode (point arrays `EMSTGlobalId` and
 * `EMSTOwnerRank` on every process that holds points) is cut where it is: the processes join
 * their groups across process boundaries with a distributed union-find, and every output point,
 * ghost copies included, gets the global `ClusterId` (0 = the largest cluster of all processes,
 * ties by smallest global id) and `ClusterSize`; each process outputs its own kept edges; the
 * cluster table (FirstPoint: the cluster's smallest global id) and the histogram are on process 0,
 * the other processes' tables are empty; the cut runs on the CPU. Any other tree spread over
 * several processes (e.g. the Gather mode's, or one read back from a file) is gathered on process
 * 0 first; the other processes output nothing, so cluster ids are those of the one global cut.
 */
#ifndef vtkEMSTClusters_h
#define vtkEMSTClusters_h

#include "EMSTFiltersModule.h"                   // for export macro
#include "vtkEMSTEuclideanMinimumSpanningTree.h" // for BackendType
#include "vtkPolyDataAlgorithm.h"

#include <memory> // for std::unique_ptr
#include <string> // for the messages of RequestDistributed
#include <vector> // for the messages of RequestDistributed

class vtkDataArray;
class vtkMultiProcessController;
class vtkPolyData;
class vtkTable;

class EMSTFILTERS_EXPORT vtkEMSTClusters : public vtkPolyDataAlgorithm
{
public:
  static vtkEMSTClusters* New();
  vtkTypeMacro(vtkEMSTClusters, vtkPolyDataAlgorithm);
  void PrintSelf(ostream& os, vtkIndent indent) override;

  /// Values of the CutMode property (the same numbers as the ParaView XML enumeration).
  enum CutModeType
  {
    THRESHOLD = 0,
    LINKING_LENGTH = 1,
    NUMBER_OF_CLUSTERS = 2
  };

  /// Values of the Backend property: those of the tree filter (and of its `EMSTBackendId`).
  enum BackendType
  {
    AUTO = vtkEMSTEuclideanMinimumSpanningTree::AUTO,
    CUDA = vtkEMSTEuclideanMinimumSpanningTree::CUDA,
    CPU = vtkEMSTEuclideanMinimumSpanningTree::CPU
  };

  ///@{
  /**
   * Which engine cuts the tree: AUTO (default), CUDA or CPU. AUTO: EMST_BACKEND when it is set,
   * else where the input tree was computed (its field data `EMSTBackendId`), else the GPU when
   * usable. The clusters do not depend on the choice.
   */
  vtkSetClampMacro(Backend, int, AUTO, CPU);
  vtkGetMacro(Backend, int);
  void SetBackendToAuto() { this->SetBackend(AUTO); }
  void SetBackendToCUDA() { this->SetBackend(CUDA); }
  void SetBackendToCPU() { this->SetBackend(CPU); }
  ///@}

  ///@{
  /// How the threshold is chosen: THRESHOLD (default), LINKING_LENGTH or NUMBER_OF_CLUSTERS.
  vtkSetClampMacro(CutMode, int, THRESHOLD, NUMBER_OF_CLUSTERS);
  vtkGetMacro(CutMode, int);
  ///@}

  ///@{
  /// Edges longer than this are cut (THRESHOLD mode). Default -1: negative (or NaN) means not set,
  /// and the cut is at the middle of the edge lengths, with a note in ClusterMessages. Any value
  /// >= 0 is used as given, 0 included.
  vtkSetMacro(Threshold, double);
  vtkGetMacro(Threshold, double);
  ///@}

  ///@{
  /// b of the LINKING_LENGTH mode: threshold = b * (V / n)^(1/d). Default 0.2; a negative b is
  /// used as 0 and NaN as 0.2, with a note in ClusterMessages.
  vtkSetMacro(LinkingLength, double);
  vtkGetMacro(LinkingLength, double);
  ///@}

  ///@{
  /// Clusters wanted in NUMBER_OF_CLUSTERS mode. Default 10; below 1 is used as 1, with a note.
  vtkSetMacro(NumberOfClusters, vtkIdType);
  vtkGetMacro(NumberOfClusters, vtkIdType);
  ///@}

  ///@{
  /// Groups smaller than this are noise (ClusterId -1). Default 1 (every group is a cluster);
  /// below 1 is used as 1, with a note.
  vtkSetMacro(MinimumClusterSize, vtkIdType);
  vtkGetMacro(MinimumClusterSize, vtkIdType);
  ///@}

  ///@{
  /// Bins of the edge-length histogram (output 2). Default 100.
  vtkSetClampMacro(HistogramBins, int, 1, 1000000);
  vtkGetMacro(HistogramBins, int);
  ///@}

  ///@{
  /// Controller used to gather a spread input on process 0 (default: the global controller).
  virtual void SetController(vtkMultiProcessController*);
  vtkGetObjectMacro(Controller, vtkMultiProcessController);
  ///@}

  /// How many times the tree was handed to the engine (once per new input, not per threshold).
  vtkGetMacro(TreeUploads, int);

protected:
  vtkEMSTClusters();
  ~vtkEMSTClusters() override;

  int FillInputPortInformation(int port, vtkInformation* info) override;
  int FillOutputPortInformation(int port, vtkInformation* info) override;
  int RequestData(vtkInformation*, vtkInformationVector**, vtkInformationVector*) override;
  /// The cut of a distributed tree, on every process.
  int RequestDistributed(vtkPolyData* input, vtkDataArray* lengths, vtkPolyData* output,
    vtkTable* table, vtkTable* histogram, std::vector<std::string>& messages);

  int CutMode = THRESHOLD;
  double Threshold = -1.0;
  double LinkingLength = 0.2;
  vtkIdType NumberOfClusters = 10;
  vtkIdType MinimumClusterSize = 1;
  int HistogramBins = 100;
  int Backend = AUTO;
  vtkMultiProcessController* Controller = nullptr;
  int TreeUploads = 0;

private:
  vtkEMSTClusters(const vtkEMSTClusters&) = delete;
  void operator=(const vtkEMSTClusters&) = delete;

  struct Cache;
  std::unique_ptr<Cache> TreeCache;
};

#endif
