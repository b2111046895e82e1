// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Phase 3, cells: the leaves are the largest Morton cells holding at most `capacity` points,
// so the cell size follows the local density: a uniform grid where the data are uniform, finer
// cells inside dense clusters, coarser ones in sparse regions. A full cell splits in 2^Dim
// (octree/quadtree cells) or in two (along one axis, a cell per code bit): the backend's choice
// (leafLayout), which changes the hierarchy's shape and size, never the tree. The distinct
// points get their float records and their exact coordinates, in Morton order.
// Sizes: m distinct points, L leaf cells.
#pragma once

#include "backends/Layouts.h"
#include "base/Algorithms.h"
#include "base/Buffer.h"
#include "base/Morton.h"
#include "phases/Duplicates.h"
#include "phases/Frame.h"
#include "phases/LeafLevels.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace emst
{
namespace detail
{

/// One distinct point in Morton order: shifted float coordinates and its component label, in one
/// 16-byte record so that the search reads a candidate with a single 128-bit load.
struct alignas(16) PointRecord
{
  float x[3]; ///< coordinates minus the bounding box's lower corner (z = 0 in 2D)
  /// component label, dense in [0, components); once the labels are frozen, that round's
  /// (PointArrays::component names the current component)
  std::uint32_t comp;
};
static_assert(sizeof(PointRecord) == 16, "PointRecord must be one 128-bit load");

/// A record read whole, as one 128-bit load on the device: read field by field where the search
/// tests the label before the coordinates, the compiler issues four loads and keeps a pointer
/// for each field in the leaf loop (ncu, uniform 1e6 3D: 28 instructions a scanned point, 15 of
/// them the loads and the loop's four pointers).
EMST_HD EMST_FORCEINLINE PointRecord loadRecord(const PointRecord* record)
{
#if defined(__CUDA_ARCH__)
  float4 const v = *reinterpret_cast<const float4*>(record);
  PointRecord r;
  r.x[0] = v.x;
  r.x[1] = v.y;
  r.x[2] = v.z;
  r.comp = __float_as_uint(v.w);
  return r;
#else
  return *record;
#endif
}

/// Which points start a leaf, 32 points a word, and how many leaves start before the word: the
/// leaf of every point (a rank in the bit vector) from one 8-byte load a warp shares, in 0.25
/// bytes a point instead of an index a point.
struct alignas(8) LeafWord
{
  std::uint32_t starts; ///< bit b: point 32w + b is the first of its leaf
  Index leavesBefore;   ///< leaves whose first point is below 32w
};

/// The distinct points, in Morton order, as the rounds read them.
struct PointArrays
{
  PointRecord* recordOfPoint; ///< [m] float frame coordinates and component label
  const Index* inputOfPoint;  ///< [m] input index of each distinct point
  const LeafWord* leafWords;  ///< [ceil(m/32)] the leaf cells' first points
  Index count;                ///< m
  /// Null while the records' labels are the components; from the round after the labels are
  /// frozen (frozenLabelsFrom) the component of record label f (a component of that round).
  const Index* componentOfLabel = nullptr;

  /// The current component of a record's label.
  EMST_HD EMST_FORCEINLINE Index component(Index label) const
  {
    return componentOfLabel ? componentOfLabel[label] : label;
  }
  /// The current component of point k.
  EMST_HD EMST_FORCEINLINE Index componentOf(Index k) const
  {
    return this->component(recordOfPoint[k].comp);
  }

  /// Whether point k is the first of its leaf.
  EMST_HD EMST_FORCEINLINE bool startsLeaf(Index k) const
  {
    return (leafWords[k / 32].starts >> (k % 32)) & 1u;
  }
  /// The leaf cell holding point k.
  EMST_HD EMST_FORCEINLINE Index leafOf(Index k) const
  {
    LeafWord const w = leafWords[k / 32];
    std::uint32_t const upToK = w.starts & (0xFFFFFFFFu >> (31 - k % 32)); // bits 0..k%32
    return w.leavesBefore + static_cast<Index>(popcount32(upToK)) - 1;
  }
};

/// The leaf cells: the points of leaf l are firstPointOfLeaf[l] .. firstPointOfLeaf[l+1]-1.
struct CellArrays
{
  const Index* firstPointOfLeaf; ///< [L+1], the last entry m
  Index leaves;                  ///< L
};

/// The leaves of a run: the backend's layout (Exec::leafLayout), or the tuning knobs
/// EMST_LEAF_CAPACITY (2 to 256 points) and EMST_LEAF_SPLIT (`bit`: a full cell halves along one
/// axis, as the code's next bit does; `cube`: it splits in 2^Dim), read once from the
/// environment, for benchmarking. Cells that halve end nearer the capacity (uniform 3D at 16
/// points: about 11 a leaf, against 4 for octree cells), so there are about a third as many
/// leaves and tree nodes. The layout changes the hierarchy's shape and size, never the tree.
inline LeafLayout leafLayout(LeafLayout backend)
{
  static int const capacity = []
  {
    const char* text = std::getenv("EMST_LEAF_CAPACITY");
    int const value = text ? std::atoi(text) : 0;
    return value >= 2 && value <= 256 ? value : 0;
  }();
  static int const split = [] // 0: unset, 1: bit, 2: cube
  {
    const char* text = std::getenv("EMST_LEAF_SPLIT");
    std::string const mode = text ? text : "";
    return mode == "bit" ? 1 : mode == "cube" ? 2 : 0;
  }();
  return LeafLayout{ capacity ? capacity : backend.capacity,
    split ? split == 1 : backend.splitsInTwo };
}

/// True where a new leaf starts: k and k-1 are in different cells at the deeper of their levels.
template <int Dim>
struct StartsLeaf
{
  const std::uint64_t* codeOfPoint; ///< [m]
  const std::uint8_t* levelOfPoint; ///< [m]
  EMST_HD bool operator()(std::size_t k) const
  {
    if (k == 0)
    {
      return true;
    }
    int const a = levelOfPoint[k - 1];
    int const b = levelOfPoint[k];
    return commonBits<Dim>(codeOfPoint[k - 1], codeOfPoint[k]) < (a > b ? a : b);
  }
};

/// The leaf words from the leaves' first points, one thread per word: the leaves before it by
/// a binary search, then its leaves' starts. The first word's thread also writes the leaves'
/// last entry, m, which no thread here reads.
struct MakeLeafWords
{
  Index* firstPointOfLeaf; ///< [L+1], the first L read, the last written
  Index leaves;            ///< L
  Index points;            ///< m
  LeafWord* leafWords;     ///< [ceil(m/32)]
  EMST_HD void operator()(std::size_t word) const
  {
    if (word == 0)
    {
      firstPointOfLeaf[leaves] = points;
    }
    Index const from = static_cast<Index>(word * 32);
    Index lo = 0; // the first leaf starting at or after `from`: in [lo, hi]
    Index hi = leaves;
    while (lo < hi)
    {
      Index const mid = lo + (hi - lo) / 2;
      if (firstPointOfLeaf[mid] < from)
      {
        lo = mid + 1;
      }
      else
      {
        hi = mid;
      }
    }
    LeafWord w{ 0u, lo };
    for (Index leaf = lo; leaf < leaves && firstPointOfLeaf[leaf] - from < 32u; ++leaf)
    {
      w.starts |= 1u << (firstPointOfLeaf[leaf] - from);
    }
    leafWords[word] = w;
  }
};

/// recordOfPoint[k]: shifted float coordinates of distinct point k; every point starts as its
/// own component (label k). exactOfPoint, when kept: its input coordinates, in Morton order too,
/// for the exact keys (read where the records are, not scattered over the input).
template <class T, int Dim>
struct MakeRecords
{
  InputPoints<T, Dim> input;
  const Index* inputOfPoint;  ///< [m]
  PointRecord* recordOfPoint; ///< [m]
  T* exactOfPoint;            ///< [m * Dim], or null
  Frame frame;
  EMST_HD void operator()(std::size_t k) const
  {
    Index const i = inputOfPoint[k];
    PointRecord r;
    input.shifted(i, frame, r.x);
    r.comp = static_cast<Index>(k);
    recordOfPoint[k] = r;
    for (int a = 0; a < Dim && exactOfPoint; ++a)
    {
      exactOfPoint[k * Dim + a] = input.data[i * input.stride + a];
    }
  }
};

/// What the cells phase hands on.
template <class Exec, class T, int Dim>
struct Cells
{
  explicit Cells(Exec& exec)
    : firstPointOfLeaf(exec, 0)
    , leafWords(exec, 0)
    , recordOfPoint(exec, 0)
    , exactOfPoint(exec, 0)
  {
  }
  /// The points as the rounds see them (their input indices are the duplicates phase's).
  PointArrays points(const DistinctPoints<Exec>& distinct) const
  {
    PointArrays points;
    points.recordOfPoint = this->recordOfPoint.data();
    points.inputOfPoint = distinct.inputOfPoint.data();
    points.leafWords = this->leafWords.data();
    points.count = static_cast<Index>(this->recordOfPoint.size());
    return points;
  }
  CellArrays arrays() const
  {
    CellArrays cells;
    cells.firstPointOfLeaf = this->firstPointOfLeaf.data();
    cells.leaves = static_cast<Index>(this->leaves);
    return cells;
  }

  std::size_t leaves = 0;                  ///< L
  Buffer<Index, Exec> firstPointOfLeaf;    ///< [L+1]
  Buffer<LeafWord, Exec> leafWords;        ///< [ceil(m/32)]
  Buffer<PointRecord, Exec> recordOfPoint; ///< [m], each point its own component
  Buffer<T, Exec> exactOfPoint;            ///< [m * Dim] input coordinates, point-major, or empty

  /// The exact coordinates of the distinct points (Morton order): the copy, or (Indexed) the
  /// input read through the input indices.
  template <bool Indexed>
  InputPoints<T, Dim, Indexed> exact(
    const InputPoints<T, Dim>& input, const DistinctPoints<Exec>& distinct) const
  {
    if constexpr (Indexed)
    {
      return InputPoints<T, Dim, true>{ input.data, input.stride, distinct.inputOfPoint.data() };
    }
    else
    {
      return InputPoints<T, Dim>{ this->exactOfPoint.data(), static_cast<std::size_t>(Dim) };
    }
  }
};

/// The leaf cells of the distinct points, and the points' records.
template <class Exec, class T, int Dim>
Cells<Exec, T, Dim> buildCells(Exec& exec, const InputPoints<T, Dim>& input, const Frame& frame,
  const DistinctPoints<Exec>& distinct)
{
  std::size_t const m = distinct.size();
  const std::uint64_t* const codeOfPoint = distinct.codeOfPoint.data();
  Cells<Exec, T, Dim> cells(exec);
  {
    Buffer<std::uint8_t, Exec> levelOfPoint(exec, m);
    LeafLayout const layout = leafLayout(exec.leafLayout(Dim));
    std::size_t const c = static_cast<std::size_t>(layout.capacity);
    if (m > c && c <= kNearWindows)
    {
      exec.forEach(m,
        NearLeafLevel<Dim>{ codeOfPoint, levelOfPoint.data(), m, c, layout.splitsInTwo ? 1 : Dim });
    }
    else if (m > c)
    {
      std::size_t const windows = m - c;
      Buffer<std::uint8_t, Exec> fromStart(exec, windows);
      Buffer<std::uint8_t, Exec> toEnd(exec, windows);
      exec.forEach((windows + c) / (c + 1),
        BlockMaxima<Dim>{ codeOfPoint, fromStart.data(), toEnd.data(), windows, c });
      exec.forEach(m,
        LeafLevel<Dim>{ fromStart.data(), toEnd.data(), levelOfPoint.data(), m, c,
          layout.splitsInTwo ? 1 : Dim });
    }
    else
    {
      exec.fill(levelOfPoint.data(), m, std::uint8_t(0)); // one leaf
    }
    StartsLeaf<Dim> const startsLeaf{ codeOfPoint, levelOfPoint.data() };
    auto const leafCount = exec.countLater(m, startsLeaf);
    // The records do not depend on the leaves: queued before the host waits for their count,
    // they are made while it waits, and while it queues the leaves' passes after (the GPU would
    // idle then).
    cells.recordOfPoint = Buffer<PointRecord, Exec>(exec, m);
    cells.exactOfPoint = Buffer<T, Exec>(exec, Exec::kCopiesExactCoordinates ? m * Dim : 0);
    exec.forEach(m,
      MakeRecords<T, Dim>{ input, distinct.inputOfPoint.data(), cells.recordOfPoint.data(),
        cells.exactOfPoint.data(), frame });
    cells.leaves = static_cast<std::size_t>(exec.fetch(leafCount));
    cells.firstPointOfLeaf = Buffer<Index, Exec>(exec, cells.leaves + 1);
    exec.selectIndices(m, cells.firstPointOfLeaf.data(), startsLeaf);
  }
  std::size_t const words = (m + 31) / 32;
  cells.leafWords = Buffer<LeafWord, Exec>(exec, words);
  exec.forEach(words,
    MakeLeafWords{ cells.firstPointOfLeaf.data(), static_cast<Index>(cells.leaves),
      static_cast<Index>(m), cells.leafWords.data() });
  return cells;
}

} // namespace detail
} // namespace emst
