// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Public entry points of the clusters API: TreeCutter (validation, the sorted host copy of the
// edges, the choice of backend with Auto's fall-back) and the single-linkage hierarchy.
#include "emst/Clusters.h"

#include "backends/Backends.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

namespace emst
{
namespace
{

/// The total order of the EMST contract on edges stored with i < j.
bool edgeLess(const Edge& a, const Edge& b)
{
  if (a.length != b.length)
  {
    return a.length < b.length;
  }
  return a.i != b.i ? a.i < b.i : a.j < b.j;
}

/// The edges with i < j, checked, in (length, i, j) order (sorted in place when they are not).
std::vector<Edge> checkedSortedEdges(std::size_t points, std::vector<Edge> sorted)
{
  detail::checkPointCount(points);
  bool ordered = true;
  for (std::size_t e = 0; e < sorted.size(); ++e)
  {
    Edge& edge = sorted[e];
    if (edge.i >= points || edge.j >= points || edge.i == edge.j)
    {
      throw Error(ErrorCode::InvalidInput,
        "edge " + std::to_string(e) + " (" + std::to_string(edge.i) + ", " +
          std::to_string(edge.j) + ") does not join two different points of " +
          std::to_string(points));
    }
    if (!(edge.length >= 0.0)) // also NaN
    {
      throw Error(ErrorCode::InvalidInput,
        "edge " + std::to_string(e) + " has length " + std::to_string(edge.length) +
          ": lengths must be non-negative numbers");
    }
    if (edge.i > edge.j)
    {
      std::swap(edge.i, edge.j);
    }
    ordered = ordered && (e == 0 || !edgeLess(edge, sorted[e - 1]));
  }
  if (!ordered)
  {
    std::sort(sorted.begin(), sorted.end(), edgeLess);
  }
  return sorted;
}

std::vector<Edge> copyEdges(const Edge* edges, std::size_t count)
{
  if (count > 0 && edges == nullptr)
  {
    throw Error(
      ErrorCode::InvalidInput, "no edge data given for " + std::to_string(count) + " edges");
  }
  return std::vector<Edge>(edges, edges + count);
}

} // namespace

class TreeCutter::Impl
{
public:
  std::size_t Points = 0;
  std::vector<Edge> Sorted;
  Backend Chosen = Backend::Cpu;
  bool AutoChosen = false;
  int CudaDevice = 0;
  std::string DeviceName;
  std::vector<std::string> Messages;
  std::unique_ptr<detail::CutBackend> Engine;

  void useCpu()
  {
    this->Engine = detail::makeCpuCutter(this->Points, this->Sorted);
    this->Chosen = Backend::Cpu;
    this->DeviceName = "CPU";
  }

  /// Tries the GPU; returns false (with a message) when Auto should go on without it.
  bool tryCuda(Backend requested)
  {
#if defined(EMST_WITH_CUDA)
    std::string reason;
    if (!detail::probeCuda(this->CudaDevice, &reason))
    {
      if (requested == Backend::Cuda)
      {
        throw Error(ErrorCode::DeviceUnavailable, "CUDA backend unavailable: " + reason);
      }
      this->Messages.push_back("no usable GPU (" + reason + "): the cut runs on the CPU");
      return false;
    }
    try
    {
      std::vector<detail::EdgeEnds> ends; // what the device keeps: the ends, 8 bytes an edge
      ends.reserve(this->Sorted.size());
      for (const Edge& edge : this->Sorted)
      {
        ends.push_back(detail::EdgeEnds{ edge.i, edge.j });
      }
      this->Engine = detail::makeCudaCutter(this->Points, ends, this->CudaDevice);
    }
    catch (const Error& error)
    {
      if (requested == Backend::Cuda || !detail::gpuFailureFallsBack(error))
      {
        throw;
      }
      this->Messages.push_back(
        std::string("the GPU failed (") + error.what() + "): the cut runs on the CPU");
      return false;
    }
    this->Chosen = Backend::Cuda;
    this->DeviceName = detail::cudaDeviceName(this->CudaDevice);
    return true;
#else
    if (requested == Backend::Cuda)
    {
      throw Error(
        ErrorCode::DeviceUnavailable, "CUDA backend unavailable: this build has no CUDA backend");
    }
    this->Messages.emplace_back("this build has no CUDA backend: the cut runs on the CPU");
    return false;
#endif
  }
};

TreeCutter::TreeCutter(
  std::size_t points, const Edge* edges, std::size_t edgeCount, Backend backend, int cudaDevice)
  : TreeCutter(points, copyEdges(edges, edgeCount), backend, cudaDevice)
{
}

TreeCutter::TreeCutter(
  std::size_t points, std::vector<Edge>&& edges, Backend backend, int cudaDevice)
  : Pimpl(std::make_unique<Impl>())
{
  Impl& d = *this->Pimpl;
  d.Points = points;
  d.CudaDevice = cudaDevice;
  d.Sorted = checkedSortedEdges(points, std::move(edges));
  d.AutoChosen = backend == Backend::Auto;
  if (backend == Backend::Cpu || !d.tryCuda(backend))
  {
    d.useCpu();
  }
}

TreeCutter::~TreeCutter() = default;

std::size_t TreeCutter::pointCount() const
{
  return this->Pimpl->Points;
}
std::size_t TreeCutter::edgeCount() const
{
  return this->Pimpl->Sorted.size();
}
const std::vector<Edge>& TreeCutter::sortedEdges() const
{
  return this->Pimpl->Sorted;
}
Backend TreeCutter::backend() const
{
  return this->Pimpl->Chosen;
}
const std::string& TreeCutter::deviceName() const
{
  return this->Pimpl->DeviceName;
}
const std::vector<std::string>& TreeCutter::messages() const
{
  return this->Pimpl->Messages;
}

std::size_t TreeCutter::edgesAtMost(double threshold) const
{
  const std::vector<Edge>& sorted = this->Pimpl->Sorted;
  if (std::isnan(threshold))
  {
    return 0;
  }
  return static_cast<std::size_t>(std::upper_bound(sorted.begin(), sorted.end(), threshold,
                                    [](double t, const Edge& e) { return t < e.length; }) -
    sorted.begin());
}

std::size_t TreeCutter::edgesForGroups(std::size_t clusters) const
{
  std::size_t const points = this->Pimpl->Points;
  std::size_t const keep = clusters >= points ? 0 : points - clusters;
  return std::min(keep, this->Pimpl->Sorted.size());
}

Clustering TreeCutter::cut(std::size_t keptEdges, std::size_t minimumClusterSize,
  std::int32_t* clusterId, std::int64_t* groupSize)
{
  Impl& d = *this->Pimpl;
  std::size_t const kept = std::min(keptEdges, d.Sorted.size());
  Clustering result;
  try
  {
    result = d.Engine->cut(kept, minimumClusterSize, clusterId, groupSize);
  }
  catch (const Error& error)
  {
    // Auto: a GPU that fails mid-way (out of memory, a device error) hands over to the CPU.
    if (!d.AutoChosen || d.Chosen != Backend::Cuda || !detail::gpuFailureFallsBack(error))
    {
      throw;
    }
    d.Messages.push_back(
      std::string("the GPU failed (") + error.what() + "): the cut runs on the CPU from now on");
    d.useCpu();
    result = d.Engine->cut(kept, minimumClusterSize, clusterId, groupSize);
  }
  result.backend = d.Chosen;
  return result;
}

std::vector<Merge> singleLinkageHierarchy(std::size_t points, const std::vector<Edge>& edges)
{
  std::vector<Edge> const sorted = checkedSortedEdges(points, edges);
  // Union-find over points (union by size, path halving); each root knows its cluster label.
  std::vector<std::uint32_t> parent(points);
  std::iota(parent.begin(), parent.end(), 0u);
  std::vector<std::uint64_t> size(points, 1);
  std::vector<std::uint64_t> label(points);
  std::iota(label.begin(), label.end(), std::uint64_t(0));
  auto find = [&parent](std::uint32_t x)
  {
    while (parent[x] != x)
    {
      parent[x] = parent[parent[x]];
      x = parent[x];
    }
    return x;
  };
  std::vector<Merge> merges;
  merges.reserve(sorted.size());
  for (const Edge& edge : sorted)
  {
    std::uint32_t a = find(edge.i);
    std::uint32_t b = find(edge.j);
    if (a == b)
    {
      throw Error(ErrorCode::InvalidInput,
        "the edges hold a cycle (edge " + std::to_string(edge.i) + " - " + std::to_string(edge.j) +
          "): a hierarchy needs a tree or a forest");
    }
    Merge merge;
    merge.first = std::min(label[a], label[b]);
    merge.second = std::max(label[a], label[b]);
    merge.height = edge.length;
    merge.size = size[a] + size[b];
    if (size[a] < size[b])
    {
      std::swap(a, b);
    }
    parent[b] = a;
    size[a] = merge.size;
    label[a] = points + merges.size();
    merges.push_back(merge);
  }
  return merges;
}

} // namespace emst
