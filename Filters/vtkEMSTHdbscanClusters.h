// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
/**
 * @class   vtkEMSTHdbscanClusters
 * @brief   HDBSCAN* clusters of a point set: varying densities, noise, a probability and an
 *          outlier score per point
 *
 * HDBSCAN* (hierarchical density-based clustering) finds clusters of different densities
 * without a threshold to choose, leaves the points of no cluster as noise, and rates each point's
 * membership and outlierness. Its core is an exact minimum spanning tree under the mutual
 * reachability distance max(core(a), core(b), |a - b|), core(p) the distance from p to its
 * MinimumSamples-th nearest point (the point itself counted), which the EMST engine computes on
 * the GPU or the CPU; the clusters are then extracted from the tree's hierarchy on the host.
 * Conventions are scikit-learn's sklearn.cluster.HDBSCAN (docs/hdbscan.md): MinimumSamples is
 * its min_samples, MinimumClusterSize its min_cluster_size, ClusterSelectionMethod its
 * cluster_selection_method, ClusterSelectionEpsilon its cluster_selection_epsilon,
 * AllowSingleCluster its allow_single_cluster. Merges of equal height are taken together, so the
 * clusters do not depend on how ties are broken (scikit-learn's may).
 *
 * Input: any vtkPointSet, or composite data of them (one clustering of all leaves' points), as
 * vtkEMSTEuclideanMinimumSpanningTree takes it; non-finite and ghost points are left out (noise,
 * probability 0, outlier score NaN).
 *
 * Output 0 (vtkPolyData): the input points and point arrays, plus point arrays `ClusterId` (int:
 * 0 = the largest cluster, then by decreasing size, ties by smallest point id; -1 = noise),
 * `Probability` (double, membership strength in [0, 1]), `OutlierScore` (double, GLOSH, in
 * [0, 1]) and `CoreDistance` (double); the mutual reachability tree as lines with the cell array
 * `MutualReachability`. Field data `NumberOfClusters`, `NoisePoints`, `TotalLength` (the tree's
 * length), `EMSTBackend`, `EMSTBackendId`, `EMSTComputeMilliseconds`,
 * `HDBSCANExtractMilliseconds`, `EMSTMessages`.
 *
 * Output 1 (vtkTable): one row per cluster, in id order: `ClusterId`, `Size`, `Centroid`,
 * `BoundsMin`, `BoundsMax`, `FirstPoint` (as vtkEMSTClusters' table), `Stability` (excess of
 * mass), `BirthLambda` and `DeathLambda` (lambda = 1 / distance at which the cluster split off its
 * parent, and its largest lambda), `CondensedNode` (its id in output 2).
 *
 * Output 2 (vtkTable): the condensed tree, one row per point and per cluster split:
 * `Parent`, `Child` (points are 0..n-1, clusters n, n+1, ..., the root n), `Lambda`, `Size`: to
 * plot it (scikit-learn's and the hdbscan package's layout).
 *
 * The tree is computed once per input, MinimumSamples and backend: changing only
 * MinimumClusterSize, ClusterSelectionMethod, ClusterSelectionEpsilon or AllowSingleCluster
 * re-runs only the extraction. Errors (bad parameters, MinimumSamples above the number of points,
 * no GPU with Backend CUDA, ...) are reported with vtkErrorMacro and give empty, valid outputs.
 * Parallel runs: every process's points are gathered on process 0, which clusters them all.
 *
 * Reference: Campello, Moulavi & Sander 2013; Campello, Moulavi, Zimek & Sander 2015 (HDBSCAN*,
 * GLOSH); McInnes & Healy 2017 (accelerated HDBSCAN*).
 */
#ifndef vtkEMSTHdbscanClusters_h
#define vtkEMSTHdbscanClusters_h

#include "EMSTFiltersModule.h"                   // for export macro
#include "vtkEMSTEuclideanMinimumSpanningTree.h" // for BackendType
#include "vtkPolyDataAlgorithm.h"

#include <memory> // for std::unique_ptr

class vtkMultiProcessController;

class EMSTFILTERS_EXPORT vtkEMSTHdbscanClusters : public vtkPolyDataAlgorithm
{
public:
  static vtkEMSTHdbscanClusters* New();
  vtkTypeMacro(vtkEMSTHdbscanClusters, vtkPolyDataAlgorithm);
  void PrintSelf(ostream& os, vtkIndent indent) override;

  /// Values of the ClusterSelectionMethod property.
  enum SelectionType
  {
    EXCESS_OF_MASS = 0,
    LEAF = 1
  };

  /// Values of the Backend property: those of the tree filter.
  enum BackendType
  {
    AUTO = vtkEMSTEuclideanMinimumSpanningTree::AUTO,
    CUDA = vtkEMSTEuclideanMinimumSpanningTree::CUDA,
    CPU = vtkEMSTEuclideanMinimumSpanningTree::CPU
  };

  ///@{
  /// The smallest cluster (scikit-learn's min_cluster_size), at least 2. Default 5.
  vtkSetClampMacro(MinimumClusterSize, vtkIdType, 2, VTK_ID_MAX);
  vtkGetMacro(MinimumClusterSize, vtkIdType);
  ///@}

  ///@{
  /// k of the core distances: the distance to the k-th nearest point, the point itself counted
  /// (scikit-learn's min_samples), 1 to 256. Default 5.
  vtkSetClampMacro(MinimumSamples, vtkIdType, 1, 256);
  vtkGetMacro(MinimumSamples, vtkIdType);
  ///@}

  ///@{
  /// EXCESS_OF_MASS (default) or LEAF.
  vtkSetClampMacro(ClusterSelectionMethod, int, EXCESS_OF_MASS, LEAF);
  vtkGetMacro(ClusterSelectionMethod, int);
  ///@}

  ///@{
  /// Clusters born below this distance merge into their parent (0: off). Default 0.
  vtkSetClampMacro(ClusterSelectionEpsilon, double, 0.0, VTK_DOUBLE_MAX);
  vtkGetMacro(ClusterSelectionEpsilon, double);
  ///@}

  ///@{
  /// Lets excess of mass select a single cluster of all points. Default off.
  vtkSetMacro(AllowSingleCluster, bool);
  vtkGetMacro(AllowSingleCluster, bool);
  vtkBooleanMacro(AllowSingleCluster, bool);
  ///@}

  ///@{
  /// Which engine computes the tree: AUTO (default; EMST_BACKEND when it is set, else the GPU
  /// when usable), CUDA or CPU. The clusters do not depend on it.
  vtkSetClampMacro(Backend, int, AUTO, CPU);
  vtkGetMacro(Backend, int);
  void SetBackendToAuto() { this->SetBackend(AUTO); }
  void SetBackendToCUDA() { this->SetBackend(CUDA); }
  void SetBackendToCPU() { this->SetBackend(CPU); }
  ///@}

  ///@{
  /// Controller used to gather the points on process 0 (default: the global controller).
  virtual void SetController(vtkMultiProcessController*);
  vtkGetObjectMacro(Controller, vtkMultiProcessController);
  ///@}

  /// How many times the tree was computed (once per input, MinimumSamples and backend).
  vtkGetMacro(TreeRuns, int);

protected:
  vtkEMSTHdbscanClusters();
  ~vtkEMSTHdbscanClusters() override;

  int FillInputPortInformation(int port, vtkInformation* info) override;
  int FillOutputPortInformation(int port, vtkInformation* info) override;
  int RequestData(vtkInformation*, vtkInformationVector**, vtkInformationVector*) override;

  vtkIdType MinimumClusterSize = 5;
  vtkIdType MinimumSamples = 5;
  int ClusterSelectionMethod = EXCESS_OF_MASS;
  double ClusterSelectionEpsilon = 0.0;
  bool AllowSingleCluster = false;
  int Backend = AUTO;
  vtkMultiProcessController* Controller = nullptr;
  int TreeRuns = 0;

private:
  vtkEMSTHdbscanClusters(const vtkEMSTHdbscanClusters&) = delete;
  void operator=(const vtkEMSTHdbscanClusters&) = delete;

  struct Cache;
  std::unique_ptr<Cache> TreeCache;
};

#endif
