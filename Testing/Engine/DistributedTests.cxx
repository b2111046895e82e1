// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// emst/Distributed.h on in-process ranks (runInProcess): the distributed tree and cut against
// the serial engine, which is the independent reference here (its own tests check it against
// brute force, scipy and the data sets' exact weights):
//   - the union of the ranks' edges equals computeEmst's edge list of the same points in global-id
//     order, edge for edge (i, j and the length's bits), ties and duplicates included;
//   - each edge is on the rank that holds its smaller id, its local indices and remote ends name
//     the right points (rank, index, coordinates);
//   - the total is the same on every rank and within an ulp or two of computeEmst's;
//   - DistributedTreeCutter gives TreeCutter's cluster ids and sizes point for point (own points
//     and the asked remote ends), its sizes and first points on rank 0, the same counts at each
//     threshold and the same k-th edge.
// Splits: contiguous chunks, slabs along x, a random interleave (every rank's box covers
// everything: the worst case), all points on one rank, empty ranks (rank 0 too), one point per
// rank. Global ids: rank order, or the caller's (the points' original indices).
// The local trees run on the test's backend (Cpu; Cuda where a device is usable).
#include "TestSupport.h"

#include "emst/Clusters.h"
#include "emst/Distributed.h"
#include "emst/PointFile.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <numeric>

using namespace emsttest;
using emst::Backend;

namespace
{

constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

std::uint64_t bitsOf(double x)
{
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

/// Which rank holds each point: pointsOfRank[r] lists original indices, increasing.
using Split = std::vector<std::vector<std::size_t>>;

Split contiguous(std::size_t n, int ranks, int firstRank = 0)
{
  Split split(static_cast<std::size_t>(ranks));
  int const used = ranks - firstRank;
  for (std::size_t k = 0; k < n; ++k)
  {
    split[static_cast<std::size_t>(firstRank + static_cast<int>(k * used / n))].push_back(k);
  }
  return split;
}

/// Slabs along x: the points sorted by x (ties by index), cut into equal runs; each rank's list
/// is then put back in index order.
Split slabs(const Cloud& cloud, int ranks)
{
  std::vector<std::size_t> order(cloud.count);
  std::iota(order.begin(), order.end(), std::size_t(0));
  auto x = [&cloud](std::size_t k)
  {
    double const v = cloud.at(k, 0);
    return std::isnan(v) ? std::numeric_limits<double>::infinity() : v;
  };
  std::stable_sort(
    order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return x(a) < x(b); });
  Split split(static_cast<std::size_t>(ranks));
  for (std::size_t s = 0; s < order.size(); ++s)
  {
    split[s * static_cast<std::size_t>(ranks) / order.size()].push_back(order[s]);
  }
  for (auto& list : split)
  {
    std::sort(list.begin(), list.end());
  }
  return split;
}

Split interleave(std::size_t n, int ranks, std::uint64_t seed)
{
  Rng rng(seed);
  Split split(static_cast<std::size_t>(ranks));
  for (std::size_t k = 0; k < n; ++k)
  {
    split[rng.below(static_cast<std::uint64_t>(ranks))].push_back(k);
  }
  return split;
}

Split allOn(std::size_t n, int ranks, int rank)
{
  Split split(static_cast<std::size_t>(ranks));
  for (std::size_t k = 0; k < n; ++k)
  {
    split[static_cast<std::size_t>(rank)].push_back(k);
  }
  return split;
}

/// The points `indices` of `cloud`, in that order, with its type and stride.
Cloud subset(const Cloud& cloud, const std::vector<std::size_t>& indices, const std::string& label)
{
  Cloud out;
  out.label = label;
  out.dimension = cloud.dimension;
  out.stride = cloud.stride;
  out.scalarType = cloud.scalarType;
  out.count = indices.size();
  for (std::size_t k : indices)
  {
    for (std::size_t s = 0; s < cloud.stride; ++s)
    {
      if (cloud.scalarType == emst::ScalarType::Float32)
      {
        out.float32.push_back(cloud.float32[k * cloud.stride + s]);
      }
      else
      {
        out.float64.push_back(cloud.float64[k * cloud.stride + s]);
      }
    }
  }
  return out;
}

/// The forest view of a distributed tree for DistributedTreeCutter.
std::vector<emst::ForestEdge> forestOf(const emst::DistributedResult& tree)
{
  std::vector<emst::ForestEdge> forest;
  for (const emst::DistributedEdge& e : tree.edges)
  {
    emst::ForestEdge f;
    f.i = e.i;
    f.j = e.j;
    f.length = e.length;
    f.localEnd = e.localI;
    f.localIsI = true;
    f.otherRemote = e.jRemote;
    if (e.jRemote)
    {
      f.otherRank = tree.remotePoints[e.localJ].rank;
    }
    else
    {
      f.otherLocal = e.localJ;
    }
    forest.push_back(f);
  }
  return forest;
}

/// The cuts every test makes: thresholds from the serial tree's sorted lengths (none kept,
/// zero-length only, the median, the 99th percentile, all) and "k clusters".
struct CutPlan
{
  std::vector<double> thresholds;
  std::vector<std::size_t> minimumSizes{ 1, 3 };
  std::size_t clusters = 10;
};

/// What one rank's run gives back to the checks.
struct RankOutcome
{
  emst::DistributedResult tree;
  std::vector<std::uint64_t> idOf; ///< global id of each local point
  // Per (threshold, minimum size) cut: own points' ids and sizes, the remote ends' ids, sizes.
  std::vector<std::vector<std::int32_t>> clusterId;
  std::vector<std::vector<std::int64_t>> groupSize;
  std::vector<std::vector<std::int32_t>> remoteClusterId;
  std::vector<std::vector<std::int64_t>> remoteGroupSize;
  std::vector<emst::DistributedClustering> clusterings;
  std::vector<std::uint64_t> atMost;
  emst::DistributedTreeCutter::EdgeOrder kth{ 0.0, 0, 0 };
  bool cutDone = false;
};

class Distributed
{
public:
  /// queriesPerStep: DistributedOptions::queriesPerStep (small values: many exchange steps).
  Distributed(const Cloud& cloud, Split split, Backend backend, bool callerIds,
    std::size_t queriesPerStep = emst::DistributedOptions().queriesPerStep)
    : Source(cloud)
    , Parts(std::move(split))
    , Engine(backend)
    , CallerIds(callerIds)
    , QueriesPerStep(queriesPerStep)
  {
  }

  /// Runs the tree (and the cuts of `plan`, when given) on the split's ranks and checks all.
  void check(const CutPlan* plan = nullptr)
  {
    int const ranks = static_cast<int>(this->Parts.size());
    std::vector<std::size_t> serialOrder; // original index of each serial point
    for (const auto& list : this->Parts)
    {
      serialOrder.insert(serialOrder.end(), list.begin(), list.end());
    }
    ASSERT_EQ(serialOrder.size(), this->Source.count) << "the split loses or repeats points";
    // The serial reference: the points by global id.
    std::vector<std::size_t> byId(serialOrder);
    if (this->CallerIds)
    {
      std::sort(byId.begin(), byId.end());
    }
    Cloud const serialCloud = subset(this->Source, byId, this->Source.label + " (serial)");
    emst::Options options = optionsFor(Backend::Cpu);
    auto const serial = runEngine(serialCloud, options);
    ASSERT_TRUE(serial);

    std::vector<Cloud> pieces;
    for (int r = 0; r < ranks; ++r)
    {
      pieces.push_back(subset(this->Source, this->Parts[r], "rank " + std::to_string(r)));
    }
    std::vector<RankOutcome> out(static_cast<std::size_t>(ranks));
    std::vector<std::pair<double, std::size_t>> cuts; // (threshold, minimum size)
    if (plan)
    {
      for (double t : plan->thresholds)
      {
        for (std::size_t m : plan->minimumSizes)
        {
          cuts.emplace_back(t, m);
        }
      }
    }
    // The "k clusters" cut keeps n - k edges, clamped to the edges there are (TreeCutter's rule).
    std::size_t keptForClusters = 0;
    if (plan && this->Source.count > plan->clusters)
    {
      keptForClusters = std::min(serial->edges.size(), this->Source.count - plan->clusters);
    }
    try
    {
      emst::runInProcess(ranks,
        [&](emst::Communicator& comm)
        {
          int const r = comm.rank();
          RankOutcome& mine = out[static_cast<std::size_t>(r)];
          std::vector<std::uint64_t> ids;
          for (std::size_t k : this->Parts[r])
          {
            ids.push_back(k);
          }
          emst::DistributedOptions distributed;
          distributed.engine = optionsFor(this->Engine);
          distributed.engine.cpuThreads = 1;
          distributed.boxesPerRank = 16;
          distributed.queriesPerStep = this->QueriesPerStep;
          mine.tree = emst::computeDistributedEmst(
            pieces[r].view(), comm, distributed, this->CallerIds ? ids.data() : nullptr);
          for (std::size_t k = 0; k < pieces[r].count; ++k)
          {
            mine.idOf.push_back(this->CallerIds ? ids[k] : mine.tree.firstGlobalId + k);
          }
          if (!plan)
          {
            return;
          }
          emst::DistributedTreeCutter cutter(
            comm, pieces[r].count, this->CallerIds ? ids.data() : nullptr, forestOf(mine.tree));
          std::vector<std::uint64_t> askedIds;
          std::vector<std::uint32_t> askedRanks;
          for (const emst::RemotePoint& p : mine.tree.remotePoints)
          {
            askedIds.push_back(p.globalId);
            askedRanks.push_back(p.rank);
          }
          for (const auto& [t, m] : cuts)
          {
            std::vector<std::int32_t> id(pieces[r].count), remoteId(askedIds.size());
            std::vector<std::int64_t> size(pieces[r].count), remoteSize(askedIds.size());
            mine.clusterings.push_back(cutter.cut({ t, kMax, kMax }, m, id.data(), size.data(),
              askedIds, askedRanks, remoteId.data(), remoteSize.data()));
            mine.clusterId.push_back(id);
            mine.groupSize.push_back(size);
            mine.remoteClusterId.push_back(remoteId);
            mine.remoteGroupSize.push_back(remoteSize);
          }
          mine.atMost = cutter.edgesAtMost(plan->thresholds);
          if (keptForClusters > 0)
          {
            mine.kth = cutter.kthEdge(keptForClusters);
          }
          mine.cutDone = true;
        });
    }
    catch (const emst::Error& error)
    {
      FAIL() << this->Source.label << ": " << errorCodeName(error.code()) << ": " << error.what();
    }

    // ---- the tree ---------------------------------------------------------------------------
    std::vector<emst::Edge> all;
    for (int r = 0; r < ranks; ++r)
    {
      const RankOutcome& o = out[static_cast<std::size_t>(r)];
      const emst::DistributedResult& t = o.tree;
      EXPECT_EQ(t.globalEdges, serial->edges.size());
      EXPECT_EQ(bitsOf(t.totalWeight), bitsOf(out[0].tree.totalWeight)) << "rank " << r;
      EXPECT_TRUE(std::is_sorted(t.edges.begin(), t.edges.end(),
        [](const emst::DistributedEdge& a, const emst::DistributedEdge& b) {
          return a.length != b.length ? a.length < b.length : (a.i != b.i ? a.i < b.i : a.j < b.j);
        }))
        << "rank " << r << "'s edges are not in (length, i, j) order";
      for (const emst::DistributedEdge& e : t.edges)
      {
        ASSERT_LT(e.localI, o.idOf.size());
        EXPECT_EQ(o.idOf[e.localI], e.i)
          << "rank " << r << " owns an edge whose i it does not hold";
        if (e.jRemote)
        {
          ASSERT_LT(e.localJ, t.remotePoints.size());
          const emst::RemotePoint& p = t.remotePoints[e.localJ];
          EXPECT_EQ(p.globalId, e.j);
          ASSERT_LT(p.rank, static_cast<std::uint32_t>(ranks));
          EXPECT_NE(p.rank, static_cast<std::uint32_t>(r));
          const RankOutcome& there = out[p.rank];
          ASSERT_LT(p.localIndex, there.idOf.size());
          EXPECT_EQ(there.idOf[p.localIndex], e.j) << "a remote end names the wrong point";
          for (int a = 0; a < this->Source.dimension; ++a)
          {
            EXPECT_EQ(bitsOf(p.x[a]), bitsOf(pieces[p.rank].at(p.localIndex, a)));
          }
        }
        else
        {
          ASSERT_LT(e.localJ, o.idOf.size());
          EXPECT_EQ(o.idOf[e.localJ], e.j);
        }
        emst::Edge edge;
        edge.i = static_cast<std::uint32_t>(e.i);
        edge.j = static_cast<std::uint32_t>(e.j);
        edge.length = e.length;
        all.push_back(edge);
      }
    }
    // Global ids are serial indices (rank order) or original indices (caller's): map the latter.
    std::vector<std::uint32_t> serialIndexOfId;
    if (this->CallerIds)
    {
      serialIndexOfId.assign(this->Source.count, 0);
      for (std::size_t s = 0; s < byId.size(); ++s)
      {
        serialIndexOfId[byId[s]] = static_cast<std::uint32_t>(s);
      }
      for (emst::Edge& e : all)
      {
        e.i = serialIndexOfId[e.i];
        e.j = serialIndexOfId[e.j];
      }
    }
    std::sort(all.begin(), all.end(),
      [](const emst::Edge& a, const emst::Edge& b) {
        return a.length != b.length ? a.length < b.length : (a.i != b.i ? a.i < b.i : a.j < b.j);
      });
    ASSERT_EQ(all.size(), serial->edges.size()) << this->Source.label;
    std::size_t differ = 0;
    for (std::size_t k = 0; k < all.size(); ++k)
    {
      const emst::Edge& a = all[k];
      const emst::Edge& b = serial->edges[k];
      if (a.i != b.i || a.j != b.j || bitsOf(a.length) != bitsOf(b.length))
      {
        if (differ++ < 5)
        {
          ADD_FAILURE() << this->Source.label << ": edge " << k << " is (" << a.i << ", " << a.j
                        << ", " << a.length << "), serial (" << b.i << ", " << b.j << ", "
                        << b.length << ")";
        }
      }
    }
    EXPECT_EQ(differ, 0u) << this->Source.label << ": edges that differ from the serial run's";
    // The split must have made the ranks work together: edges between ranks whenever two ranks
    // hold finite points (else the test would not test the distributed part).
    std::size_t holders = 0, crossing = 0;
    for (const RankOutcome& o : out)
    {
      holders += o.tree.stats.localValidPoints > 0 ? 1 : 0;
      for (const emst::DistributedEdge& e : o.tree.edges)
      {
        crossing += e.jRemote ? 1 : 0;
      }
    }
    if (holders >= 2)
    {
      EXPECT_GT(crossing, 0u) << this->Source.label << ": no edge joins points of two ranks";
    }
    double const total = out[0].tree.totalWeight;
    EXPECT_LE(std::abs(total - serial->totalWeight), 4e-16 * serial->totalWeight)
      << this->Source.label << ": total " << total << ", serial " << serial->totalWeight;

    if (!plan)
    {
      return;
    }
    // ---- the cuts ---------------------------------------------------------------------------
    emst::TreeCutter cutter(serialCloud.count, serial->edges, Backend::Cpu);
    auto idToSerial = [&](std::uint64_t id)
    { return this->CallerIds ? serialIndexOfId[id] : static_cast<std::uint32_t>(id); };
    for (std::size_t c = 0; c < cuts.size(); ++c)
    {
      auto const [t, m] = cuts[c];
      std::vector<std::int32_t> id(serialCloud.count);
      std::vector<std::int64_t> size(serialCloud.count);
      emst::Clustering const ref = cutter.cut(cutter.edgesAtMost(t), m, id.data(), size.data());
      std::string const what = this->Source.label + ", cut at " + std::to_string(t) +
        ", minimum size " + std::to_string(m);
      std::size_t wrong = 0;
      for (int r = 0; r < ranks; ++r)
      {
        const RankOutcome& o = out[static_cast<std::size_t>(r)];
        ASSERT_TRUE(o.cutDone);
        const emst::DistributedClustering& d = o.clusterings[c];
        EXPECT_EQ(d.keptEdges, ref.keptEdges) << what;
        EXPECT_EQ(d.groups, ref.groups) << what;
        EXPECT_EQ(d.clusters, ref.sizes.size()) << what;
        EXPECT_EQ(d.noisePoints, ref.noisePoints) << what;
        if (r == 0)
        {
          EXPECT_EQ(d.sizes, ref.sizes) << what;
          std::vector<std::uint64_t> first;
          for (std::uint32_t f : ref.firstPoint)
          {
            first.push_back(f);
          }
          std::vector<std::uint64_t> got;
          for (std::uint64_t g : d.firstPoint)
          {
            got.push_back(idToSerial(g));
          }
          EXPECT_EQ(got, first) << what;
        }
        else
        {
          EXPECT_TRUE(d.sizes.empty()) << what << ": rank " << r << " has cluster sizes";
        }
        for (std::size_t k = 0; k < o.idOf.size(); ++k)
        {
          std::uint32_t const s = idToSerial(o.idOf[k]);
          wrong += o.clusterId[c][k] != id[s] || o.groupSize[c][k] != size[s];
        }
        for (std::size_t k = 0; k < o.tree.remotePoints.size(); ++k)
        {
          std::uint32_t const s = idToSerial(o.tree.remotePoints[k].globalId);
          wrong += o.remoteClusterId[c][k] != id[s] || o.remoteGroupSize[c][k] != size[s];
        }
      }
      EXPECT_EQ(wrong, 0u) << what << ": points with another cluster id or size than TreeCutter's";
    }
    std::vector<std::uint64_t> atMost;
    for (double t : plan->thresholds)
    {
      atMost.push_back(cutter.edgesAtMost(t));
    }
    for (const RankOutcome& o : out)
    {
      EXPECT_EQ(o.atMost, atMost);
      if (keptForClusters > 0)
      {
        const emst::Edge& ref = cutter.sortedEdges()[keptForClusters - 1];
        EXPECT_EQ(bitsOf(o.kth.length), bitsOf(ref.length));
        EXPECT_EQ(idToSerial(o.kth.i), ref.i);
        EXPECT_EQ(idToSerial(o.kth.j), ref.j);
      }
    }
  }

private:
  const Cloud& Source;
  Split Parts;
  Backend Engine;
  bool CallerIds;
  std::size_t QueriesPerStep;
};

/// Thresholds for a cloud: none kept, zero-length edges only, the median and 99th percentile of
/// the serial tree's lengths, everything.
CutPlan planFor(const Cloud& cloud)
{
  CutPlan plan;
  auto const tree = emst::computeEmst(cloud.view(), optionsFor(Backend::Cpu));
  std::vector<double> lengths;
  for (const emst::Edge& e : tree.edges)
  {
    lengths.push_back(e.length);
  }
  plan.thresholds = { -1.0, 0.0 };
  if (!lengths.empty())
  {
    plan.thresholds.push_back(lengths[lengths.size() / 2]);
    plan.thresholds.push_back(lengths[lengths.size() * 99 / 100]);
    plan.thresholds.push_back(lengths.back());
  }
  return plan;
}

// ---- the cases ----------------------------------------------------------------------------------

struct Case
{
  std::string name;
  std::function<Cloud()> cloud;
  std::function<Split(const Cloud&)> split;
  bool callerIds = false;
  bool cut = true;
};

std::vector<Point> withNaNs(std::vector<Point> points, std::size_t every)
{
  for (std::size_t k = 3; k < points.size(); k += every)
  {
    points[k][k % 2] = std::numeric_limits<double>::quiet_NaN();
  }
  return points;
}

std::vector<Case> cases()
{
  using emst::ScalarType;
  std::vector<Case> list;
  auto uniform3 = []
  {
    Rng rng(11);
    return makeCloud("uniform 3D", 3, ScalarType::Float64, uniformPoints(rng, 3000, 3));
  };
  auto uniform2f = []
  {
    Rng rng(12);
    return makeCloud(
      "uniform 2D", 2, ScalarType::Float32, uniformPoints(rng, 3000, 2, 100.0, -50.0));
  };
  auto clustered3f = []
  {
    Rng rng(13);
    return makeCloud("clustered 3D", 3, ScalarType::Float32, clusteredPoints(rng, 4000, 3));
  };
  auto clustered2 = []
  {
    Rng rng(14);
    return makeCloud("clustered 2D", 2, ScalarType::Float64, clusteredPoints(rng, 3000, 2));
  };
  auto lattice2 = []
  { return makeCloud("lattice 2D", 2, ScalarType::Float32, latticePoints(40, 40, 1)); };
  auto lattice3 = []
  { return makeCloud("lattice 3D", 3, ScalarType::Float64, latticePoints(12, 12, 12, 0.5, 3.0)); };
  auto fcc = [] { return makeCloud("fcc lattice", 3, ScalarType::Float64, fccPoints(6)); };
  auto duplicates = []
  {
    Rng rng(15);
    return makeCloud(
      "integer points with duplicates", 3, ScalarType::Float32, integerPoints(rng, 2500, 3, 7));
  };
  auto copies = []
  {
    Rng rng(16);
    std::vector<Point> base = uniformPoints(rng, 700, 2);
    return makeCloud(
      "three copies of each point", 2, ScalarType::Float64, repeatPoints(base, 3, &rng));
  };
  auto nans = []
  {
    Rng rng(17);
    return makeCloud("uniform 3D with NaN points", 3, ScalarType::Float64,
      withNaNs(uniformPoints(rng, 2000, 3), 97), 4, 1.5);
  };
  auto tiny = [](std::size_t n)
  {
    return [n]
    {
      Rng rng(18 + n);
      return makeCloud("tiny", 3, ScalarType::Float64, uniformPoints(rng, n, 3));
    };
  };
  auto slab = [](int r) { return [r](const Cloud& c) { return slabs(c, r); }; };
  auto chunks = [](int r) { return [r](const Cloud& c) { return contiguous(c.count, r); }; };
  auto mixed = [](int r, std::uint64_t seed)
  { return [r, seed](const Cloud& c) { return interleave(c.count, r, seed); }; };

  for (int r : { 2, 3, 4 })
  {
    list.push_back({ "Uniform3DChunks" + std::to_string(r), uniform3, chunks(r) });
    list.push_back({ "Uniform3DSlabs" + std::to_string(r), uniform3, slab(r), r == 3 });
    list.push_back({ "Uniform3DInterleave" + std::to_string(r), uniform3, mixed(r, 7), r == 2 });
  }
  list.push_back({ "Uniform2DFloatSlabs3", uniform2f, slab(3) });
  list.push_back({ "Uniform2DFloatInterleave5", uniform2f, mixed(5, 8), true });
  list.push_back({ "Clustered3DFloatChunks4", clustered3f, chunks(4) });
  list.push_back({ "Clustered3DFloatSlabs4", clustered3f, slab(4), true });
  list.push_back({ "Clustered3DFloatInterleave3", clustered3f, mixed(3, 9) });
  list.push_back({ "Clustered2DSlabs2", clustered2, slab(2) });
  list.push_back({ "Lattice2DSlabs3", lattice2, slab(3) });
  list.push_back({ "Lattice2DInterleave4", lattice2, mixed(4, 10), true });
  list.push_back({ "Lattice3DChunks5", lattice3, chunks(5) });
  list.push_back({ "Lattice3DSlabs4", lattice3, slab(4), true });
  list.push_back({ "FccInterleave2", fcc, mixed(2, 11) });
  list.push_back({ "FccSlabs3", fcc, slab(3), true });
  list.push_back({ "DuplicatesInterleave3", duplicates, mixed(3, 12) });
  list.push_back({ "DuplicatesChunks4", duplicates, chunks(4), true });
  list.push_back({ "CopiesInterleave4", copies, mixed(4, 13), true });
  list.push_back({ "CopiesSlabs2", copies, slab(2) });
  list.push_back({ "NaNPointsChunks3", nans, chunks(3) });
  list.push_back({ "NaNPointsInterleave2", nans, mixed(2, 14), true });
  list.push_back(
    { "AllOnLastRank3", uniform3, [](const Cloud& c) { return allOn(c.count, 3, 2); } });
  list.push_back(
    { "AllOnRank0Of2", clustered2, [](const Cloud& c) { return allOn(c.count, 2, 0); }, true });
  list.push_back(
    { "EmptyRank0Chunks4", clustered3f, [](const Cloud& c) { return contiguous(c.count, 4, 1); } });
  list.push_back({ "EmptyRank0Slabs3", lattice2,
    [](const Cloud& c)
    {
      Split s = slabs(c, 2);
      s.insert(s.begin(), std::vector<std::size_t>{});
      return s;
    },
    true });
  list.push_back({ "OnePointPerRank5", tiny(5), chunks(5) });
  list.push_back({ "TwoPointsThreeRanks", tiny(2), chunks(3), true });
  list.push_back({ "OnePointTwoRanks", tiny(1), chunks(2) });
  list.push_back({ "NoPointsTwoRanks", tiny(0), chunks(2) });
  list.push_back({ "OneRank", uniform3, chunks(1) });
  return list;
}

using DistributedParam = std::tuple<Backend, std::string>;

class DistributedCase : public testing::TestWithParam<DistributedParam>
{
protected:
  void SetUp() override
  {
    if (skipUnlessRunnable(std::get<0>(this->GetParam())))
    {
      GTEST_SKIP();
    }
  }
};

std::vector<std::string> caseNames()
{
  std::vector<std::string> names;
  for (const Case& c : cases())
  {
    names.push_back(c.name);
  }
  return names;
}

INSTANTIATE_TEST_SUITE_P(Splits, DistributedCase,
  testing::Combine(testing::ValuesIn(testedBackends()), testing::ValuesIn(caseNames())),
  [](const testing::TestParamInfo<DistributedParam>& info)
  {
    return std::string(std::get<0>(info.param) == Backend::Cuda ? "Cuda" : "Cpu") + "_" +
      std::get<1>(info.param);
  });

} // namespace

TEST_P(DistributedCase, SerialTreeAndClusters)
{
  for (const Case& c : cases())
  {
    if (c.name != std::get<1>(this->GetParam()))
    {
      continue;
    }
    Cloud const cloud = c.cloud();
    CutPlan const plan = planFor(cloud);
    // Half the cases exchange in steps of 5 queries: the steps must not change the tree.
    Distributed run(cloud, c.split(cloud), std::get<0>(this->GetParam()), c.callerIds,
      c.callerIds ? 5 : emst::DistributedOptions().queriesPerStep);
    run.check(c.cut ? &plan : nullptr);
  }
}

// ---- the repository's data sets, split three ways over three ranks
// -------------------------------

class DistributedDataSet : public DataSetTest
{
};

INSTANTIATE_TEST_SUITE_P(Repo, DistributedDataSet,
  testing::Combine(
    testing::ValuesIn(testedBackends()), testing::ValuesIn(dataSetsIn(repoDataDir()))),
  dataSetParamName);

TEST_P(DistributedDataSet, ThreeSplitsMatchSerial)
{
  emst::PointSet points;
  ASSERT_NO_THROW(points = emst::readPointFile(dataSet().path(".f32")));
  Cloud const cloud = cloudOf(points, dataSet().name);
  CutPlan const plan = planFor(cloud);
  {
    SCOPED_TRACE("contiguous chunks");
    Distributed(cloud, contiguous(cloud.count, 3), backend(), false).check(&plan);
  }
  {
    SCOPED_TRACE("slabs");
    Distributed(cloud, slabs(cloud, 3), backend(), true).check(&plan);
  }
  {
    SCOPED_TRACE("random interleave");
    Distributed(cloud, interleave(cloud.count, 3, 21), backend(), true, 2000).check();
  }
}

// ---- errors: the same on every rank, never a hang -----------------------------------------------

namespace
{

/// Runs body on `ranks` in-process ranks, each catching its emst::Error: the codes by rank
/// (-1: no error).
std::vector<int> errorCodes(int ranks, const std::function<void(emst::Communicator&)>& body)
{
  std::vector<int> codes(static_cast<std::size_t>(ranks), -1);
  emst::runInProcess(ranks,
    [&](emst::Communicator& comm)
    {
      try
      {
        body(comm);
      }
      catch (const emst::Error& error)
      {
        codes[static_cast<std::size_t>(comm.rank())] = static_cast<int>(error.code());
      }
    });
  return codes;
}

} // namespace

TEST(DistributedErrors, BadViewOnOneRankFailsEveryRank)
{
  Rng rng(31);
  Cloud const cloud =
    makeCloud("uniform", 3, emst::ScalarType::Float64, uniformPoints(rng, 300, 3));
  std::vector<int> const codes = errorCodes(3,
    [&](emst::Communicator& comm)
    {
      emst::PointCloudView view = cloud.view();
      if (comm.rank() == 1)
      {
        view.dimension = 4;
      }
      emst::computeDistributedEmst(view, comm);
    });
  for (int code : codes)
  {
    EXPECT_EQ(code, static_cast<int>(emst::ErrorCode::InvalidInput));
  }
}

TEST(DistributedErrors, MixedDimensionsFail)
{
  Rng rng(32);
  Cloud const a = makeCloud("3D", 3, emst::ScalarType::Float64, uniformPoints(rng, 100, 3));
  Cloud const b = makeCloud("2D", 2, emst::ScalarType::Float64, uniformPoints(rng, 100, 2));
  std::vector<int> const codes = errorCodes(2,
    [&](emst::Communicator& comm)
    { emst::computeDistributedEmst(comm.rank() == 0 ? a.view() : b.view(), comm); });
  EXPECT_EQ(codes, std::vector<int>(2, static_cast<int>(emst::ErrorCode::InvalidInput)));
}

TEST(DistributedErrors, DuplicateGlobalIdsAcrossRanksFail)
{
  Rng rng(33);
  Cloud const cloud = makeCloud("uniform", 2, emst::ScalarType::Float64, uniformPoints(rng, 50, 2));
  std::vector<int> const codes = errorCodes(3,
    [&](emst::Communicator& comm)
    {
      std::vector<std::uint64_t> ids(cloud.count);
      std::iota(ids.begin(), ids.end(), std::uint64_t(comm.rank() == 2 ? 1000 : 0));
      emst::computeDistributedEmst(cloud.view(), comm, {}, ids.data());
    });
  EXPECT_EQ(codes, std::vector<int>(3, static_cast<int>(emst::ErrorCode::InvalidInput)));
}

TEST(DistributedErrors, CancelOnOneRankCancelsAll)
{
  Rng rng(34);
  Cloud const cloud =
    makeCloud("uniform", 3, emst::ScalarType::Float64, uniformPoints(rng, 2000, 3));
  std::vector<int> const codes = errorCodes(3,
    [&](emst::Communicator& comm)
    {
      emst::DistributedOptions options;
      options.engine.backend = Backend::Cpu;
      int const rank = comm.rank();
      options.engine.progress = [rank](double, const char*) { return rank != 1; };
      emst::computeDistributedEmst(cloud.view(), comm, options);
    });
  EXPECT_EQ(codes, std::vector<int>(3, static_cast<int>(emst::ErrorCode::Cancelled)));
}

TEST(DistributedErrors, OverflowingGlobalBoxFails)
{
  std::vector<Point> lo{ { -1e308, 0.0, 0.0 }, { -1e308, 1.0, 0.0 } };
  std::vector<Point> hi{ { 1e308, 0.0, 0.0 }, { 1e308, 1.0, 0.0 } };
  Cloud const a = makeCloud("low", 3, emst::ScalarType::Float64, lo);
  Cloud const b = makeCloud("high", 3, emst::ScalarType::Float64, hi);
  std::vector<int> const codes = errorCodes(2,
    [&](emst::Communicator& comm)
    { emst::computeDistributedEmst(comm.rank() == 0 ? a.view() : b.view(), comm); });
  EXPECT_EQ(codes, std::vector<int>(2, static_cast<int>(emst::ErrorCode::InvalidInput)));
}

TEST(DistributedErrors, RankThatThrowsOutsideTheEngineDoesNotHang)
{
  EXPECT_THROW(emst::runInProcess(3,
                 [](emst::Communicator& comm)
                 {
                   if (comm.rank() == 2)
                   {
                     throw std::runtime_error("rank 2 gives up");
                   }
                   comm.barrier();
                 }),
    std::runtime_error);
}

TEST(DistributedCommunicator, InProcessCollectives)
{
  emst::runInProcess(4,
    [](emst::Communicator& comm)
    {
      int const r = comm.rank();
      std::uint64_t v[2] = { std::uint64_t(r + 1), std::uint64_t(10 - r) };
      comm.allReduce(v, 2, emst::Communicator::Op::Sum);
      EXPECT_EQ(v[0], 10u);
      EXPECT_EQ(v[1], 34u);
      double d[1] = { 0.5 * r };
      comm.allReduce(d, 1, emst::Communicator::Op::Max);
      EXPECT_EQ(d[0], 1.5);
      std::vector<std::uint8_t> send(static_cast<std::size_t>(r), static_cast<std::uint8_t>(r)),
        all;
      std::vector<std::size_t> counts;
      comm.allGatherv(send, all, counts);
      EXPECT_EQ(counts, (std::vector<std::size_t>{ 0, 1, 2, 3 }));
      EXPECT_EQ(all, (std::vector<std::uint8_t>{ 1, 2, 2, 3, 3, 3 }));
      std::vector<std::vector<std::uint8_t>> out(4), in;
      for (int d2 = 0; d2 < 4; ++d2)
      {
        out[static_cast<std::size_t>(d2)].assign(
          static_cast<std::size_t>(d2 + 1), static_cast<std::uint8_t>(10 * r + d2));
      }
      comm.allToAllv(out, in);
      for (int s = 0; s < 4; ++s)
      {
        EXPECT_EQ(in[static_cast<std::size_t>(s)],
          std::vector<std::uint8_t>(
            static_cast<std::size_t>(r + 1), static_cast<std::uint8_t>(10 * s + r)));
      }
    });
}
