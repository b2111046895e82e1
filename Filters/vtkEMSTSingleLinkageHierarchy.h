// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
/**
 * @class   vtkEMSTSingleLinkageHierarchy
 * @brief   the single-linkage dendrogram of a spanning tree, in scipy's linkage layout
 *
 * Input: the output of vtkEMSTEuclideanMinimumSpanningTree (or any vtkPolyData whose line cells
 * form a tree or a forest; edge lengths from the input array to process, default the active cell
 * scalars, `EdgeLength` for the tree filter's output, else from the points).
 *
 * Output: a vtkTable with one row per edge, in the order (length, i, j): row k merges clusters
 * `Cluster1` < `Cluster2` at `Height` into a cluster of `Size` points. Points are clusters
 * 0..n-1 and row k creates cluster n + k: the layout of scipy.cluster.hierarchy.linkage (and of
 * scikit-learn's children_/distances_), so that
 *   Z = numpy.column_stack([Cluster1, Cluster2, Height, Size]).astype(float)
 * can be given to scipy.cluster.hierarchy (dendrogram, fcluster, ...). For a spanning tree of n
 * points there are n - 1 rows, as scipy requires. At equal heights the order of merges may differ
 * from scipy's; the hierarchy is the same.
 *
 * Points not in the tree (non-finite coordinates, DUPLICATEPOINT or HIDDENPOINT ghosts; any point
 * a line touches is in it) are left out: the hierarchy is that of the m points in the tree, m - 1
 * rows over leaves 0..m-1 (a valid linkage for scipy), and the table's field data `LeafPointId`
 * (m values) gives the input point of each leaf (0, 1, ... when none is left out).
 * `HierarchyMessages` (field data, strings) says how many were left out, and holds an error.
 *
 * Parallel runs: a tree from the tree filter's Distributed mode sends its edges (not its points)
 * to process 0, which builds the whole hierarchy (points numbered by their global ids,
 * EMSTGlobalId, and LeafPointId[k] = k); the other processes output an empty table. Any other tree
 * spread over several processes is gathered on process 0 first, as in vtkEMSTClusters.
 */
#ifndef vtkEMSTSingleLinkageHierarchy_h
#define vtkEMSTSingleLinkageHierarchy_h

#include "EMSTFiltersModule.h" // for export macro
#include "vtkTableAlgorithm.h"

class vtkMultiProcessController;

class EMSTFILTERS_EXPORT vtkEMSTSingleLinkageHierarchy : public vtkTableAlgorithm
{
public:
  static vtkEMSTSingleLinkageHierarchy* New();
  vtkTypeMacro(vtkEMSTSingleLinkageHierarchy, vtkTableAlgorithm);
  void PrintSelf(ostream& os, vtkIndent indent) override;

  ///@{
  /// Controller used to gather a spread input on process 0 (default: the global controller).
  virtual void SetController(vtkMultiProcessController*);
  vtkGetObjectMacro(Controller, vtkMultiProcessController);
  ///@}

protected:
  vtkEMSTSingleLinkageHierarchy();
  ~vtkEMSTSingleLinkageHierarchy() override;

  int FillInputPortInformation(int port, vtkInformation* info) override;
  int RequestData(vtkInformation*, vtkInformationVector**, vtkInformationVector*) override;

  vtkMultiProcessController* Controller = nullptr;

private:
  vtkEMSTSingleLinkageHierarchy(const vtkEMSTSingleLinkageHierarchy&) = delete;
  void operator=(const vtkEMSTSingleLinkageHierarchy&) = delete;
};

#endif
