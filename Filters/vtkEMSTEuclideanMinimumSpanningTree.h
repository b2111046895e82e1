// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
/**
 * @class   vtkEMSTEuclideanMinimumSpanningTree
 * @brief   exact Euclidean minimum spanning tree of the points of a point set
 *
 * Input: any vtkPointSet (vtkPolyData, vtkUnstructuredGrid, vtkStructuredGrid, ...) or a
 * composite data set (vtkMultiBlockDataSet, vtkPartitionedDataSet, vtkPartitionedDataSetCollection)
 * of them. The cells of the input are ignored: only its points count. A composite input gives one
 * tree over the points of all its leaves.
 *
 * Output: a vtkPolyData holding every input point (leaves appended in iteration order), the point
 * arrays that all leaves share, and one VTK_LINE cell per tree edge, ordered by increasing length.
 * - cell array `EdgeLength` (double): the Euclidean length of the edge, computed in double
 *   precision from the input coordinates, scaled before squaring (emst::Edge): accurate at any
 *   scale, +inf (with a message) only above the largest double;
 * - field data `TotalLength` (double, 1 tuple): the sum of the edge lengths (+inf, never NaN, when
 *   it exceeds the largest double);
 * - field data `EMSTBackend` (string): the engine that ran, e.g. "CUDA (NVIDIA H100 ...)" or
 *   "CPU (2 threads)";
 * - field data `EMSTBackendId` (int): the same for programs, a BackendType value: CUDA (1) or
 *   CPU (2), AUTO (0) when no engine ran (no points, an error); vtkEMSTClusters reads it;
 * - field data `EMSTComputeMilliseconds` (double): the engine's compute time;
 * - field data `EMSTPointsInTree` (vtkIdType): points that took part (finite, not ghost);
 * - field data `EMSTInput` (string): how the points reached the engine ("zero-copy" or "copied",
 *   scalar type, 2D when every point has the same z);
 * - field data `EMSTMessages` (strings): the engine's warnings and notes, and the error if any.
 *
 * Points left out of the tree, but kept in the output with no edge:
 * - points with a non-finite coordinate (NaN, +-inf);
 * - ghost points: those whose `vtkGhostType` point value has the DUPLICATEPOINT bit (a copy of a
 *   point owned by another piece) or the HIDDENPOINT bit (blanked).
 *
 * Backend: `Backend` chooses the engine: AUTO (the GPU when a usable CUDA device exists, else the
 * CPU), CUDA (fails when no device is usable), CPU. When it is AUTO and the environment variable
 * EMST_BACKEND is set (auto, cuda/gpu or cpu), the variable decides; an explicit CUDA or CPU wins
 * over the variable.
 *
 * Periodic box (cosmological and molecular simulations): with `PeriodicBoxMode` FROM_INPUT or
 * CUSTOM the points live in a box [origin, origin + L) that wraps around on each axis of size
 * L > 0 (0: that axis is not periodic), and the tree is the exact minimum spanning tree under
 * minimum-image distances (the engine's contract, Kernels/include/emst/Emst.h). FROM_INPUT reads
 * the box from the input's field data: `BoxSize` (1 value: a cube, or 3: x, y, z) and, when
 * present, `BoxOrigin` (default 0), as simulation readers provide it; CUSTOM takes `BoxOrigin`
 * and `BoxSize` below. Points outside the box are wrapped into it for the distances; the output
 * keeps their coordinates. A periodic tree's output differs in three ways:
 * - `EdgeLength` is the minimum-image length;
 * - cell array `CrossesBoundary` (unsigned char): 1 for an edge whose minimum image goes out
 *   through a face of the box and in through the opposite one. The output still has n points and
 *   one line per edge, between the edge's two points (so MST Clusters, the hierarchy and scripts
 *   read the tree as always): drawn straight, such a line spans the box. To draw the tree without
 *   them, threshold on CrossesBoundary (0 to 0);
 * - field data `BoxSize` and `BoxOrigin` (3 components each): the box the tree was computed in,
 *   which MST Clusters reads (linking length, periodic centroids and bounds).
 * A missing or malformed box (FROM_INPUT without BoxSize, a negative size, ...) is an error: empty
 * output, the reason in EMSTMessages. Under MPI the box of process 0's input is the one used.
 *
 * Errors (no CUDA device when CUDA is forced, out of memory, ...) are reported with
 * vtkErrorMacro; the request still succeeds with an empty output whose field data
 * `EMSTMessages` holds the error, so pipelines and ParaView keep running. A cancelled run
 * (AbortExecute set, e.g. from a progress observer) also gives an empty output; the cancel is
 * forgotten when the next run starts (VTK 9.2 keeps the flag set), so that the next update runs.
 *
 * AUTO on a machine without a usable GPU runs on the CPU and notes it in `EMSTMessages` at every
 * run, but warns (vtkWarningMacro, ParaView's Output Messages window) once per process.
 *
 * Parallel runs (a controller of more than one process), by `ParallelMode`:
 * - DISTRIBUTED (default): every process keeps its points; the processes compute the one exact
 *   tree of all the data together (Kernels/include/emst/Distributed.h), no process holding more
 *   than its points and those exchanged. Each process outputs its own points, the edges it owns
 *   (an edge belongs to the process holding its end with the smaller global id; global ids number
 *   the points of process 0 first, then process 1's, ..., ghost-flagged points left out), and a
 *   copy of each remote end of those edges, marked in `vtkGhostType` with DUPLICATEPOINT (with
 *   its point arrays, fetched from its process), so that each edge is counted once over the
 *   processes. Point arrays `EMSTGlobalId` (vtkIdType; -1 for points left out) and
 *   `EMSTOwnerRank` (int: the process holding the point) on every output point; field data
 *   `TotalLength` (the global sum: the same on every process), `EMSTPointsInTree` (global),
 *   `EMSTExchangedPoints` (vtkIdType: point records this process sent or received),
 *   `EMSTComputeMilliseconds` (this process's time), `EMSTParallelMode` ("Distributed"),
 *   `EMSTDistributedRounds` (the Boruvka rounds over the processes). The tree is the serial tree
 *   of the points in global-id order, edge for edge.
 * - GATHER: every process sends its points to process 0, which computes the tree alone (its
 *   memory caps the size); the other processes output no points.
 *
 * Reference: the engine (Kernels/include/emst/Emst.h) follows Qiao & Creput 2021 and
 * Prokopenko et al. 2022 (Boruvka over a grid with component-based nearest-neighbour search).
 */
#ifndef vtkEMSTEuclideanMinimumSpanningTree_h
#define vtkEMSTEuclideanMinimumSpanningTree_h

#include "EMSTFiltersModule.h" // for export macro
#include "vtkPolyDataAlgorithm.h"
#include "vtkSmartPointer.h" // for the leaves of RequestDistributed

#include <string> // for the messages of RequestDistributed
#include <vector> // for the leaves of RequestDistributed

class vtkMultiProcessController;
class vtkPointSet;

class EMSTFILTERS_EXPORT vtkEMSTEuclideanMinimumSpanningTree : public vtkPolyDataAlgorithm
{
public:
  static vtkEMSTEuclideanMinimumSpanningTree* New();
  vtkTypeMacro(vtkEMSTEuclideanMinimumSpanningTree, vtkPolyDataAlgorithm);
  void PrintSelf(ostream& os, vtkIndent indent) override;

  /// Values of the Backend property (the same numbers as the ParaView XML enumeration).
  enum BackendType
  {
    AUTO = 0,
    CUDA = 1,
    CPU = 2
  };

  ///@{
  /**
   * Which engine computes the tree: AUTO (default), CUDA or CPU. With AUTO the environment
   * variable EMST_BACKEND, when set, decides.
   */
  vtkSetClampMacro(Backend, int, AUTO, CPU);
  vtkGetMacro(Backend, int);
  void SetBackendToAuto() { this->SetBackend(AUTO); }
  void SetBackendToCUDA() { this->SetBackend(CUDA); }
  void SetBackendToCPU() { this->SetBackend(CPU); }
  ///@}

  /// Values of the ParallelMode property (the same numbers as the ParaView XML enumeration).
  enum ParallelModeType
  {
    DISTRIBUTED = 0,
    GATHER = 1
  };

  /// Values of the PeriodicBoxMode property (the same numbers as the ParaView XML enumeration).
  enum PeriodicBoxModeType
  {
    BOX_OFF = 0,
    BOX_FROM_INPUT = 1,
    BOX_CUSTOM = 2
  };

  ///@{
  /**
   * Whether the points live in a periodic box: BOX_OFF (default: no box), BOX_FROM_INPUT (the
   * input's field data BoxSize and BoxOrigin) or BOX_CUSTOM (BoxOrigin and BoxSize below).
   */
  vtkSetClampMacro(PeriodicBoxMode, int, BOX_OFF, BOX_CUSTOM);
  vtkGetMacro(PeriodicBoxMode, int);
  void SetPeriodicBoxModeToOff() { this->SetPeriodicBoxMode(BOX_OFF); }
  void SetPeriodicBoxModeToFromInput() { this->SetPeriodicBoxMode(BOX_FROM_INPUT); }
  void SetPeriodicBoxModeToCustom() { this->SetPeriodicBoxMode(BOX_CUSTOM); }
  ///@}

  ///@{
  /// The box of BOX_CUSTOM: its lower corner (default 0, 0, 0) and its size L per axis (default
  /// 1, 1, 1; 0 makes that axis not periodic).
  vtkSetVector3Macro(BoxOrigin, double);
  vtkGetVector3Macro(BoxOrigin, double);
  vtkSetVector3Macro(BoxSize, double);
  vtkGetVector3Macro(BoxSize, double);
  ///@}

  ///@{
  /**
   * How several processes compute the tree: DISTRIBUTED (default: each keeps its points) or
   * GATHER (all points on process 0). One process: no difference.
   */
  vtkSetClampMacro(ParallelMode, int, DISTRIBUTED, GATHER);
  vtkGetMacro(ParallelMode, int);
  void SetParallelModeToDistributed() { this->SetParallelMode(DISTRIBUTED); }
  void SetParallelModeToGather() { this->SetParallelMode(GATHER); }
  ///@}

  ///@{
  /**
   * The controller of the processes that compute together. Defaults to the
   * global controller; null or a single process means no communication.
   */
  virtual void SetController(vtkMultiProcessController*);
  vtkGetObjectMacro(Controller, vtkMultiProcessController);
  ///@}

protected:
  vtkEMSTEuclideanMinimumSpanningTree();
  ~vtkEMSTEuclideanMinimumSpanningTree() override;

  int FillInputPortInformation(int port, vtkInformation* info) override;
  int RequestData(vtkInformation*, vtkInformationVector**, vtkInformationVector*) override;
  /// The Distributed mode's RequestData, on every process.
  int RequestDistributed(const std::vector<vtkSmartPointer<vtkPointSet>>& leaves,
    vtkPolyData* output, std::vector<std::string>& messages);

  int Backend = AUTO;
  int PeriodicBoxMode = BOX_OFF;
  double BoxOrigin[3] = { 0.0, 0.0, 0.0 };
  double BoxSize[3] = { 1.0, 1.0, 1.0 };
  int ParallelMode = DISTRIBUTED;
  vtkMultiProcessController* Controller = nullptr;

private:
  vtkEMSTEuclideanMinimumSpanningTree(const vtkEMSTEuclideanMinimumSpanningTree&) = delete;
  void operator=(const vtkEMSTEuclideanMinimumSpanningTree&) = delete;
};

#endif
