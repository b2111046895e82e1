// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// emst._core: the engine for NumPy, with no VTK. The points are read in place (a borrowed
// PointCloudView over the array's memory, its row stride included); the results are new arrays
// that own their memory. Argument checks a user can get wrong (shape, dtype, names) are made in
// emst/__init__.py with ValueError; the ones here keep the module safe when it is called directly.
// Every emst::Error becomes emst.Error, with the ErrorCode's name in its `code` attribute.
#include "emst/Clusters.h"
#include "emst/Emst.h"
#include "emst/Hdbscan.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace nb = nanobind;

namespace
{

/// The Python class emst.Error (a RuntimeError), created once at import and kept for the life of
/// the interpreter.
PyObject* ErrorType = nullptr;

/// Raises emst.Error(message) with `code` set, from a pending emst::Error.
void RaiseEngineError(const emst::Error& error)
{
  PyObject* instance = PyObject_CallFunction(ErrorType, "s", error.what());
  if (!instance)
  {
    return; // the call's own exception stays set
  }
  PyObject* code = PyUnicode_FromString(emst::errorCodeName(error.code()));
  if (code)
  {
    PyObject_SetAttrString(instance, "code", code);
    Py_DECREF(code);
  }
  PyErr_SetObject(ErrorType, instance);
  Py_DECREF(instance);
}

using PointArray = nb::ndarray<nb::ro, nb::device::cpu>;

/// A view of the rows of a (n, 2|3) float32/float64 array whose columns are adjacent: no copy.
emst::PointCloudView ViewOf(const PointArray& points)
{
  if (points.ndim() != 2 || (points.shape(1) != 2 && points.shape(1) != 3))
  {
    throw nb::value_error("points must be an array of shape (n, 2) or (n, 3)");
  }
  emst::PointCloudView view;
  if (points.dtype() == nb::dtype<float>())
  {
    view.scalarType = emst::ScalarType::Float32;
  }
  else if (points.dtype() == nb::dtype<double>())
  {
    view.scalarType = emst::ScalarType::Float64;
  }
  else
  {
    throw nb::value_error("points must be float32 or float64");
  }
  view.dimension = static_cast<int>(points.shape(1));
  view.count = points.shape(0);
  view.data = points.data();
  if (view.count > 1 && (points.stride(1) != 1 || points.stride(0) < view.dimension))
  {
    throw nb::value_error("points must have adjacent columns and increasing rows");
  }
  view.stride = view.count > 1 ? static_cast<std::size_t>(points.stride(0)) : 0;
  return view;
}

emst::Options OptionsFor(const std::string& backend)
{
  emst::Options options;
  options.backend = emst::parseBackend(backend);
  return options;
}

/// A new NumPy array of `shape` that takes over `values`.
template <typename T>
nb::object ToArray(std::vector<T>&& values, std::initializer_list<std::size_t> shape)
{
  auto* owned = new std::vector<T>(std::move(values));
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  return nb::ndarray<nb::numpy, T>(owned->data(), shape.size(), shape.begin(), owner).cast();
}

/// The (m, 2) int64 edges and (m,) float64 lengths of `edges`, in their order.
std::pair<nb::object, nb::object> EdgeArrays(const std::vector<emst::Edge>& edges)
{
  const std::size_t m = edges.size();
  std::vector<std::int64_t> ends(2 * m);
  std::vector<double> lengths(m);
  for (std::size_t e = 0; e < m; ++e)
  {
    ends[2 * e] = edges[e].i;
    ends[2 * e + 1] = edges[e].j;
    lengths[e] = edges[e].length;
  }
  return { ToArray(std::move(ends), { m, 2 }), ToArray(std::move(lengths), { m }) };
}

/// The tree's edges as an (m, 2) int64 array and their lengths, with what the engine said.
nb::tuple Tree(const PointArray& points, const std::string& backend)
{
  const emst::PointCloudView view = ViewOf(points);
  const emst::Options options = OptionsFor(backend);
  emst::Result result;
  {
    nb::gil_scoped_release release;
    result = emst::computeEmst(view, options);
  }
  nb::dict info;
  info["total_length"] = result.totalWeight;
  info["backend"] = emst::backendName(result.stats.backend);
  info["device"] = result.stats.deviceName;
  info["valid_points"] = result.stats.validPoints;
  info["non_finite_points"] = result.stats.nonFinitePoints;
  info["compute_milliseconds"] = result.stats.computeMilliseconds;
  info["messages"] = result.messages;
  auto [edges, lengths] = EdgeArrays(result.edges);
  return nb::make_tuple(edges, lengths, info);
}

/// scipy.cluster.hierarchy.linkage(points, "single"): an (n-1, 4) float64 matrix.
nb::object SingleLinkage(const PointArray& points, const std::string& backend)
{
  const emst::PointCloudView view = ViewOf(points);
  const emst::Options options = OptionsFor(backend);
  std::vector<emst::Merge> merges;
  {
    nb::gil_scoped_release release;
    emst::Result result = emst::computeEmst(view, options);
    if (result.stats.nonFinitePoints > 0)
    {
      throw emst::Error(emst::ErrorCode::InvalidInput,
        "single_linkage needs finite coordinates: " + std::to_string(result.stats.nonFinitePoints) +
          " points are NaN or infinite (minimum_spanning_tree and fof_labels leave them out)");
    }
    merges = emst::singleLinkageHierarchy(view.count, result.edges);
  }
  const std::size_t rows = merges.size();
  std::vector<double> z(4 * rows);
  for (std::size_t k = 0; k < rows; ++k)
  {
    z[4 * k] = static_cast<double>(merges[k].first);
    z[4 * k + 1] = static_cast<double>(merges[k].second);
    z[4 * k + 2] = merges[k].height;
    z[4 * k + 3] = static_cast<double>(merges[k].size);
  }
  return ToArray(std::move(z), { rows, 4 });
}

/// Friends-of-friends groups: the tree cut at `linkingLength` (edges of that length are kept).
nb::object FofLabels(const PointArray& points, double linkingLength, std::size_t minimumClusterSize,
  const std::string& backend)
{
  const emst::PointCloudView view = ViewOf(points);
  const emst::Options options = OptionsFor(backend);
  std::vector<std::int32_t> labels(view.count);
  {
    nb::gil_scoped_release release;
    emst::Result result = emst::computeEmst(view, options);
    emst::TreeCutter cutter(view.count, std::move(result.edges), options.backend);
    cutter.cut(cutter.edgesAtMost(linkingLength), minimumClusterSize, labels.data(), nullptr);
  }
  return ToArray(std::move(labels), { view.count });
}

/// HDBSCAN*: the mutual reachability tree, its core distances and the clustering.
emst::HdbscanResult RunHdbscan(const PointArray& points, std::size_t minimumSamples,
  std::size_t minimumClusterSize, const std::string& selection, double epsilon,
  bool allowSingleCluster, const std::string& backend)
{
  const emst::PointCloudView view = ViewOf(points);
  emst::HdbscanOptions options;
  options.minimumSamples = minimumSamples;
  options.parameters.minimumClusterSize = minimumClusterSize;
  options.parameters.selection = emst::parseClusterSelection(selection);
  options.parameters.clusterSelectionEpsilon = epsilon;
  options.parameters.allowSingleCluster = allowSingleCluster;
  options.engine = OptionsFor(backend);
  nb::gil_scoped_release release;
  return emst::computeHdbscan(view, options);
}

/// HDBSCAN*: labels, membership probabilities and GLOSH outlier scores.
nb::tuple Hdbscan(const PointArray& points, std::size_t minimumSamples,
  std::size_t minimumClusterSize, const std::string& selection, double epsilon,
  bool allowSingleCluster, const std::string& backend)
{
  emst::HdbscanClustering clustering = RunHdbscan(
    points, minimumSamples, minimumClusterSize, selection, epsilon, allowSingleCluster, backend)
                                         .clustering;
  const std::size_t n = clustering.labels.size();
  return nb::make_tuple(ToArray(std::move(clustering.labels), { n }),
    ToArray(std::move(clustering.probabilities), { n }),
    ToArray(std::move(clustering.outlierScores), { n }));
}

/// Everything computeHdbscan gives, as arrays in a dict (the outputs of emst.vtk's
/// vtkEMSTHdbscanClusters): labels, probabilities, outlier_scores, core_distance; the tree's
/// edges, lengths, total_length, backend, device, compute_milliseconds, messages; per cluster
/// size, first_point, node, stability, birth_lambda, death_lambda; the condensed tree's parent,
/// child, lambda, size (prefixed condensed_).
nb::dict HdbscanDetails(const PointArray& points, std::size_t minimumSamples,
  std::size_t minimumClusterSize, const std::string& selection, double epsilon,
  bool allowSingleCluster, const std::string& backend)
{
  emst::HdbscanResult result = RunHdbscan(
    points, minimumSamples, minimumClusterSize, selection, epsilon, allowSingleCluster, backend);
  emst::HdbscanClustering& clustering = result.clustering;
  const emst::Result& tree = result.tree.tree;
  const std::size_t n = clustering.labels.size();
  nb::dict details;
  details["labels"] = ToArray(std::move(clustering.labels), { n });
  details["probabilities"] = ToArray(std::move(clustering.probabilities), { n });
  details["outlier_scores"] = ToArray(std::move(clustering.outlierScores), { n });
  details["core_distance"] = ToArray(std::move(result.tree.coreDistance), { n });
  auto [edges, lengths] = EdgeArrays(tree.edges);
  details["edges"] = edges;
  details["lengths"] = lengths;
  details["total_length"] = tree.totalWeight;
  details["backend"] = emst::backendName(tree.stats.backend);
  details["device"] = tree.stats.deviceName;
  details["compute_milliseconds"] = tree.stats.computeMilliseconds;
  details["messages"] = tree.messages;
  const std::size_t k = clustering.clusters.size();
  std::vector<std::int64_t> size(k), first(k), node(k);
  std::vector<double> stability(k), birth(k), death(k);
  for (std::size_t c = 0; c < k; ++c)
  {
    const emst::HdbscanCluster& cluster = clustering.clusters[c];
    size[c] = static_cast<std::int64_t>(cluster.size);
    first[c] = cluster.firstPoint;
    node[c] = static_cast<std::int64_t>(cluster.node);
    stability[c] = cluster.stability;
    birth[c] = cluster.birthLambda;
    death[c] = cluster.deathLambda;
  }
  details["size"] = ToArray(std::move(size), { k });
  details["first_point"] = ToArray(std::move(first), { k });
  details["node"] = ToArray(std::move(node), { k });
  details["stability"] = ToArray(std::move(stability), { k });
  details["birth_lambda"] = ToArray(std::move(birth), { k });
  details["death_lambda"] = ToArray(std::move(death), { k });
  const std::size_t rows = clustering.condensedTree.size();
  std::vector<std::int64_t> parent(rows), child(rows), rowSize(rows);
  std::vector<double> lambda(rows);
  for (std::size_t r = 0; r < rows; ++r)
  {
    const emst::CondensedTreeRow& row = clustering.condensedTree[r];
    parent[r] = static_cast<std::int64_t>(row.parent);
    child[r] = static_cast<std::int64_t>(row.child);
    lambda[r] = row.lambda;
    rowSize[r] = static_cast<std::int64_t>(row.size);
  }
  details["condensed_parent"] = ToArray(std::move(parent), { rows });
  details["condensed_child"] = ToArray(std::move(child), { rows });
  details["condensed_lambda"] = ToArray(std::move(lambda), { rows });
  details["condensed_size"] = ToArray(std::move(rowSize), { rows });
  return details;
}

using EndArray = nb::ndarray<const std::int64_t, nb::ndim<2>, nb::c_contig, nb::device::cpu>;
using LengthArray = nb::ndarray<const double, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

/// emst._core.TreeCutter: a tree (or forest) handed to the engine once and cut at any number of
/// thresholds (emst.vtk.vtkEMSTClusters keeps one per input tree, as the C++ filter does).
struct TreeCutter
{
  TreeCutter(std::size_t points, const EndArray& ends, const LengthArray& lengths,
    const std::string& backend)
  {
    const std::size_t m = ends.shape(0);
    if (ends.shape(1) != 2 || lengths.shape(0) != m)
    {
      throw nb::value_error("edges must be an (m, 2) array and lengths an (m,) array");
    }
    std::vector<emst::Edge> edges(m);
    for (std::size_t e = 0; e < m; ++e)
    {
      const std::int64_t i = ends(e, 0), j = ends(e, 1);
      if (i < 0 || j < 0 || static_cast<std::uint64_t>(i) >= points ||
        static_cast<std::uint64_t>(j) >= points)
      {
        throw emst::Error(emst::ErrorCode::InvalidInput,
          "edge " + std::to_string(e) + " refers to a point that does not exist");
      }
      edges[e].i = static_cast<std::uint32_t>(i < j ? i : j);
      edges[e].j = static_cast<std::uint32_t>(i < j ? j : i);
      edges[e].length = lengths(e);
    }
    const emst::Backend chosen = emst::parseBackend(backend);
    nb::gil_scoped_release release;
    Cutter = std::make_unique<emst::TreeCutter>(points, std::move(edges), chosen);
  }

  /// Labels of the groups left by the first `kept` sorted edges: (cluster id per point, group
  /// size per point, size and first point per cluster, noise points, milliseconds).
  nb::tuple Cut(std::size_t kept, std::size_t minimumClusterSize)
  {
    const std::size_t n = Cutter->pointCount();
    std::vector<std::int32_t> ids(n);
    std::vector<std::int64_t> groupSize(n);
    emst::Clustering clustering;
    {
      nb::gil_scoped_release release;
      clustering = Cutter->cut(kept, minimumClusterSize, ids.data(), groupSize.data());
    }
    const std::size_t k = clustering.sizes.size();
    std::vector<std::int64_t> sizes(clustering.sizes.begin(), clustering.sizes.end());
    std::vector<std::int64_t> first(clustering.firstPoint.begin(), clustering.firstPoint.end());
    return nb::make_tuple(ToArray(std::move(ids), { n }), ToArray(std::move(groupSize), { n }),
      ToArray(std::move(sizes), { k }), ToArray(std::move(first), { k }), clustering.noisePoints,
      clustering.milliseconds);
  }

  std::unique_ptr<emst::TreeCutter> Cutter;
};

} // namespace

NB_MODULE(_core, m)
{
  m.doc() = "The EMST engine for NumPy arrays (use the functions of the emst package).";
  ErrorType = PyErr_NewExceptionWithDoc("emst.Error",
    "An error of the EMST engine; `code` is the name of its emst::ErrorCode (InvalidInput, "
    "OutOfMemory, DeviceUnavailable, DeviceError, Cancelled, Internal).",
    PyExc_RuntimeError, nullptr);
  m.attr("Error") = nb::borrow(ErrorType);
  nb::register_exception_translator(
    [](const std::exception_ptr& pending, void*)
    {
      try
      {
        std::rethrow_exception(pending);
      }
      catch (const emst::Error& error)
      {
        RaiseEngineError(error);
      }
    });

  m.def("tree", &Tree, nb::arg("points"), nb::arg("backend"));
  m.def("single_linkage", &SingleLinkage, nb::arg("points"), nb::arg("backend"));
  m.def("fof_labels", &FofLabels, nb::arg("points"), nb::arg("linking_length"),
    nb::arg("min_cluster_size"), nb::arg("backend"));
  m.def("hdbscan_details", &HdbscanDetails, nb::arg("points"), nb::arg("min_samples"),
    nb::arg("min_cluster_size"), nb::arg("cluster_selection_method"),
    nb::arg("cluster_selection_epsilon"), nb::arg("allow_single_cluster"), nb::arg("backend"));
  nb::class_<TreeCutter>(m, "TreeCutter")
    .def(nb::init<std::size_t, const EndArray&, const LengthArray&, const std::string&>(),
      nb::arg("points"), nb::arg("edges"), nb::arg("lengths"), nb::arg("backend"))
    .def("cut", &TreeCutter::Cut, nb::arg("kept_edges"), nb::arg("min_cluster_size"))
    .def("edges_at_most",
      [](const TreeCutter& self, double threshold) { return self.Cutter->edgesAtMost(threshold); })
    .def("edges_for_groups",
      [](const TreeCutter& self, std::size_t clusters)
      { return self.Cutter->edgesForGroups(clusters); })
    .def("sorted_edges",
      [](const TreeCutter& self)
      {
        auto [edges, lengths] = EdgeArrays(self.Cutter->sortedEdges());
        return nb::make_tuple(edges, lengths);
      })
    .def("backend",
      [](const TreeCutter& self) { return std::string(emst::backendName(self.Cutter->backend())); })
    .def("device", [](const TreeCutter& self) { return self.Cutter->deviceName(); })
    .def("messages", [](const TreeCutter& self) { return self.Cutter->messages(); });
  m.def("hdbscan", &Hdbscan, nb::arg("points"), nb::arg("min_samples"), nb::arg("min_cluster_size"),
    nb::arg("cluster_selection_method"), nb::arg("cluster_selection_epsilon"),
    nb::arg("allow_single_cluster"), nb::arg("backend"));
  // The address the engine reads the points from: the tests compare it with the array's own to
  // show that no copy was made.
  m.def("view_address",
    [](const PointArray& points) { return reinterpret_cast<std::uintptr_t>(ViewOf(points).data); });
  m.def("cuda_compiled", &emst::cudaBackendCompiled);
  m.def("cuda_available",
    []
    {
      std::string reason;
      const bool available = emst::cudaDeviceAvailable(&reason);
      return nb::make_tuple(available, reason);
    });
}
