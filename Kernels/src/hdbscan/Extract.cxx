// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// extractHdbscanClusters: from a mutual reachability tree to HDBSCAN*'s flat clustering, on the
// host: the single-linkage hierarchy by levels (one union-find pass), the condensed tree,
// stabilities, selection (excess of mass or leaves, cluster_selection_epsilon,
// allow_single_cluster), labels, membership probabilities and GLOSH outlier scores. Every rule
// is scikit-learn's (sklearn/cluster/_hdbscan/_tree.pyx: _condense_tree, _compute_stability,
// _get_clusters, epsilon_search, _do_labelling, get_probabilities) and, for the outlier scores,
// the hdbscan package's (_hdbscan_tree.pyx: outlier_scores), with one difference: merges of
// equal height are one level (below), so that the result does not depend on how ties were
// broken. Where the rules are written as walks over the hierarchy, here they are passes over
// arrays in an order that gives the same result: levels from the last down (a parent before
// its children), condensed clusters by id (a parent's id is below its children's).
// Sizes: n points, v of them in the tree, E = v - 1 edges, L <= E levels, C condensed clusters.
//
// Reference: Campello, Moulavi, Zimek & Sander 2015 (HDBSCAN*, GLOSH; cited in docs/hdbscan.md).
#include "hdbscan/Extract.h"

#include "backends/Backends.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

namespace emst
{
namespace
{

constexpr std::uint32_t kNone = 0xFFFFFFFFu;
const double Infinity = std::numeric_limits<double>::infinity();

/// lambda = 1 / distance, +inf at distance 0 (scikit-learn's rule).
double lambdaOf(double distance)
{
  return distance > 0.0 ? 1.0 / distance : Infinity;
}

/// The single-linkage hierarchy by levels: node ids are points (0..n-1) and levels (n + l). A
/// level is all the merges of one height together: its children are the groups that exist just
/// below that height, whatever order a binary hierarchy would merge them in (the tie-invariant
/// definition of Campello et al. 2015; scikit-learn's binary hierarchy where no two merges share
/// a height). A level's index is above its children's; parents are kept, not children lists, so
/// that every pass below reads the arrays in order.
struct Levels
{
  std::size_t points = 0;                ///< n
  std::vector<double> height;            ///< [L]
  std::vector<std::uint64_t> size;       ///< [L] points under the level
  std::vector<std::uint32_t> absorbedBy; ///< [L] kNone, or the level of the same height it joined
  std::vector<std::uint32_t> parent;     ///< [n + L] the level a node is a child of; kNone: none
  std::uint32_t root = kNone;            ///< the top level
  std::size_t inTree = 0;                ///< points that an edge reaches

  std::uint64_t sizeOf(std::uint64_t node) const { return node < points ? 1 : size[node - points]; }
};

bool edgeLess(const Edge& a, const Edge& b)
{
  if (a.length != b.length)
  {
    return a.length < b.length;
  }
  return std::min(a.i, a.j) != std::min(b.i, b.j) ? std::min(a.i, a.j) < std::min(b.i, b.j)
                                                  : std::max(a.i, a.j) < std::max(b.i, b.j);
}

/// One union-find pass over the edges by increasing length. Checks them (ends, lengths,
/// cycles, one tree).
Levels buildLevels(std::size_t n, const std::vector<Edge>& edges)
{
  for (std::size_t e = 0; e < edges.size(); ++e)
  {
    const Edge& edge = edges[e];
    if (edge.i >= n || edge.j >= n || edge.i == edge.j)
    {
      throw Error(ErrorCode::InvalidInput,
        "edge " + std::to_string(e) + " (" + std::to_string(edge.i) + ", " +
          std::to_string(edge.j) + ") does not join two different points of " + std::to_string(n));
    }
    if (!(edge.length >= 0.0))
    {
      throw Error(ErrorCode::InvalidInput,
        "edge " + std::to_string(e) + " has length " + std::to_string(edge.length) +
          ": lengths must be non-negative numbers");
    }
  }
  // computeMutualReachabilityTree's edges come sorted: then they are read in place.
  std::vector<Edge> sorted;
  const std::vector<Edge>* order = &edges;
  if (!std::is_sorted(edges.begin(), edges.end(), edgeLess))
  {
    sorted = edges;
    std::sort(sorted.begin(), sorted.end(), edgeLess);
    order = &sorted;
  }

  Levels h;
  h.points = n;
  std::size_t const e = order->size();
  h.height.reserve(e);
  h.size.reserve(e);
  h.absorbedBy.reserve(e);
  h.parent.assign(n + e, kNone);
  // Union by size with path halving over the points; each root knows its group's node.
  std::vector<std::uint32_t> parent(n);
  std::iota(parent.begin(), parent.end(), 0u);
  std::vector<std::uint64_t> node(n);
  std::iota(node.begin(), node.end(), std::uint64_t(0));
  std::vector<char> reached(n, 0);
  auto find = [&parent](std::uint32_t x)
  {
    while (parent[x] != x)
    {
      parent[x] = parent[parent[x]];
      x = parent[x];
    }
    return x;
  };
  std::size_t levelStart = 0; // the levels of the current height are levelStart ...
  auto current = [&](std::uint64_t x) { return x >= n && x - n >= levelStart; };
  for (std::size_t k = 0; k < e; ++k)
  {
    const Edge& edge = (*order)[k];
    if (k > 0 && edge.length != (*order)[k - 1].length)
    {
      levelStart = h.height.size();
    }
    reached[edge.i] = 1;
    reached[edge.j] = 1;
    std::uint32_t ra = find(edge.i);
    std::uint32_t rb = find(edge.j);
    if (ra == rb)
    {
      throw Error(ErrorCode::InvalidInput,
        "the edges hold a cycle (edge " + std::to_string(edge.i) + " - " + std::to_string(edge.j) +
          "): HDBSCAN* needs a tree");
    }
    std::uint64_t a = node[ra];
    std::uint64_t b = node[rb];
    if (h.sizeOf(a) < h.sizeOf(b))
    {
      std::swap(ra, rb); // union by size: rb goes under ra
    }
    if (!current(a) && current(b))
    {
      std::swap(a, b);
    }
    std::uint64_t joined = a;
    if (current(a) && current(b))
    {
      // Two groups of this height meet: b's children become a's (resolved below).
      h.absorbedBy[b - n] = static_cast<std::uint32_t>(a - n);
      h.size[a - n] += h.size[b - n];
    }
    else if (current(a))
    {
      h.parent[b] = static_cast<std::uint32_t>(a - n);
      h.size[a - n] += h.sizeOf(b);
    }
    else
    {
      std::uint32_t const level = static_cast<std::uint32_t>(h.height.size());
      joined = n + level;
      h.height.push_back(edge.length);
      h.size.push_back(h.sizeOf(a) + h.sizeOf(b));
      h.absorbedBy.push_back(kNone);
      h.parent[a] = level;
      h.parent[b] = level;
    }
    parent[rb] = ra;
    node[ra] = joined;
  }
  h.inTree = static_cast<std::size_t>(std::count(reached.begin(), reached.end(), 1));
  if (e > 0)
  {
    if (e != h.inTree - 1)
    {
      throw Error(ErrorCode::InvalidInput,
        "the edges form a forest of " + std::to_string(h.inTree - e) +
          " trees: HDBSCAN* needs one tree");
    }
    h.root = static_cast<std::uint32_t>(node[find((*order)[0].i)] - n);
  }
  // Children of an absorbed level belong to the level that absorbed it (chains of absorptions
  // end within one height).
  for (std::uint32_t& up : h.parent)
  {
    while (up != kNone && h.absorbedBy[up] != kNone)
    {
      up = h.absorbedBy[up];
    }
  }
  return h;
}

/// The condensed tree as arrays: cluster c (0 = the root) has condensed id n + c, above its
/// parent's.
struct Condensed
{
  // Per cluster [C]:
  std::vector<std::uint32_t> parent;   ///< kNone for the root
  std::vector<std::uint32_t> children; ///< 0, or 2 and more
  std::vector<double> birth;           ///< lambda at which it split off (0 for the root)
  std::vector<std::uint64_t> size;     ///< its points when it split off
  std::vector<double> death;           ///< the largest lambda of its own rows
  std::vector<double> stability;
  // Per point [n]:
  std::vector<std::uint32_t> clusterOfPoint; ///< the cluster it left; kNone outside the tree
  std::vector<double> lambdaOfPoint;         ///< the lambda at which it left
};

/// The condensed tree (_condense_tree, level by level), top-down: a level owned by cluster C
/// splits C into a new cluster per child of at least minimumSize points when there are two such
/// children or more; otherwise the one large child, if any, goes on as C; every other child's
/// points leave C at the level's lambda, and so do the points of every level below it
/// (`fallenAt` carries that lambda down). Points are always small (minimumSize >= 2).
Condensed condense(const Levels& h, std::size_t minimumSize)
{
  std::size_t const n = h.points;
  Condensed t;
  t.clusterOfPoint.assign(n, kNone);
  t.lambdaOfPoint.assign(n, std::numeric_limits<double>::quiet_NaN());
  if (h.root == kNone)
  {
    return t;
  }
  auto newCluster = [&t](std::uint32_t parent, double birth, std::uint64_t size)
  {
    t.parent.push_back(parent);
    t.children.push_back(0);
    t.birth.push_back(birth);
    t.size.push_back(size);
    if (parent != kNone)
    {
      ++t.children[parent];
    }
    return static_cast<std::uint32_t>(t.parent.size() - 1);
  };
  newCluster(kNone, 0.0, h.size[h.root]);

  std::size_t const levels = h.height.size();
  std::vector<std::uint32_t> large(levels, 0); // children of at least minimumSize points
  for (std::size_t l = 0; l < levels; ++l)
  {
    std::uint32_t const up = h.parent[n + l];
    if (h.absorbedBy[l] == kNone && up != kNone && h.size[l] >= minimumSize)
    {
      ++large[up];
    }
  }
  // Per level: the cluster that owns it (alive) or that its points left, and then at which
  // lambda (fallen; NaN while alive).
  std::vector<std::uint32_t> owner(levels, kNone);
  std::vector<double> fallenAt(levels, std::numeric_limits<double>::quiet_NaN());
  owner[h.root] = 0;
  for (std::size_t l = levels; l-- > 0;)
  {
    std::uint32_t const up = h.parent[n + l];
    if (h.absorbedBy[l] != kNone || up == kNone)
    {
      continue; // absorbed, or the root
    }
    std::uint32_t const c = owner[up];
    owner[l] = c;
    if (!std::isnan(fallenAt[up]))
    {
      fallenAt[l] = fallenAt[up];
    }
    else if (h.size[l] < minimumSize)
    {
      fallenAt[l] = lambdaOf(h.height[up]);
    }
    else if (large[up] >= 2)
    {
      owner[l] = newCluster(c, lambdaOf(h.height[up]), h.size[l]);
    }
  }
  for (std::size_t p = 0; p < n; ++p)
  {
    std::uint32_t const up = h.parent[p];
    if (up != kNone)
    {
      t.clusterOfPoint[p] = owner[up];
      t.lambdaOfPoint[p] = std::isnan(fallenAt[up]) ? lambdaOf(h.height[up]) : fallenAt[up];
    }
  }

  // Deaths and stabilities (_compute_stability: the sum over a cluster's rows of
  // (lambda - birth) * size; max_lambdas: the largest lambda of its rows).
  std::size_t const clusters = t.parent.size();
  t.death.assign(clusters, 0.0);
  t.stability.assign(clusters, 0.0);
  for (std::size_t p = 0; p < n; ++p)
  {
    std::uint32_t const c = t.clusterOfPoint[p];
    if (c != kNone)
    {
      t.death[c] = std::max(t.death[c], t.lambdaOfPoint[p]);
      t.stability[c] += (t.lambdaOfPoint[p] - t.birth[c]) * 1.0;
    }
  }
  for (std::size_t c = 1; c < clusters; ++c)
  {
    std::uint32_t const parent = t.parent[c];
    t.death[parent] = std::max(t.death[parent], t.birth[c]);
    t.stability[parent] += (t.birth[c] - t.birth[parent]) * static_cast<double>(t.size[c]);
  }
  return t;
}

/// The children of every cluster, together (CSR): those of c are list[first[c] .. first[c+1]).
struct ClusterChildren
{
  std::vector<std::uint32_t> first; ///< [C + 1]
  std::vector<std::uint32_t> list;  ///< [C - 1]
};

ClusterChildren childrenOf(const Condensed& t)
{
  std::size_t const clusters = t.parent.size();
  ClusterChildren ch;
  ch.first.assign(clusters + 1, 0);
  for (std::size_t c = 0; c < clusters; ++c)
  {
    ch.first[c + 1] = ch.first[c] + t.children[c];
  }
  ch.list.resize(clusters > 0 ? clusters - 1 : 0);
  std::vector<std::uint32_t> at(ch.first.begin(), ch.first.end() - 1);
  for (std::size_t c = 1; c < clusters; ++c)
  {
    ch.list[at[t.parent[c]]++] = static_cast<std::uint32_t>(c);
  }
  return ch;
}

/// The clusters of c's subtree, c excluded, marked in `mark`.
void markDescendants(const ClusterChildren& ch, std::uint32_t c, std::vector<char>& mark)
{
  std::vector<std::uint32_t> stack(1, c);
  while (!stack.empty())
  {
    std::uint32_t const d = stack.back();
    stack.pop_back();
    for (std::uint32_t k = ch.first[d]; k < ch.first[d + 1]; ++k)
    {
      mark[ch.list[k]] = 1;
      stack.push_back(ch.list[k]);
    }
  }
}

/// epsilon_search: every candidate born at a distance below epsilon is replaced by its nearest
/// ancestor born at a distance above it (traverse_upwards; a child of the root stays, unless
/// allowSingle, when the root is taken), and the candidates under a replacement are dropped.
/// Candidates in id order (scikit-learn iterates a Python set: the order matters only for
/// distances exactly equal to epsilon).
std::vector<char> epsilonSearch(
  const Condensed& t, const std::vector<char>& candidate, double epsilon, bool allowSingle)
{
  std::size_t const clusters = t.parent.size();
  std::vector<char> selected(clusters, 0);
  std::vector<char> processed(clusters, 0);
  ClusterChildren const children = childrenOf(t);
  for (std::uint32_t leaf = 0; leaf < clusters; ++leaf)
  {
    if (!candidate[leaf])
    {
      continue;
    }
    double const eps = 1.0 / t.birth[leaf];
    if (!(eps < epsilon))
    {
      selected[leaf] = 1;
      continue;
    }
    if (processed[leaf])
    {
      continue;
    }
    std::uint32_t chosen = leaf;
    for (std::uint32_t node = leaf;;)
    {
      std::uint32_t const parent = t.parent[node];
      if (parent == 0)
      {
        chosen = allowSingle ? 0u : node;
        break;
      }
      if (1.0 / t.birth[parent] > epsilon)
      {
        chosen = parent;
        break;
      }
      node = parent;
    }
    selected[chosen] = 1;
    markDescendants(children, chosen, processed);
  }
  return selected;
}

/// _get_clusters' selection: which condensed clusters are the flat clustering.
std::vector<char> selectClusters(const Condensed& t, const HdbscanParameters& parameters)
{
  std::size_t const clusters = t.parent.size();
  double const epsilon = parameters.clusterSelectionEpsilon;
  bool const allowSingle = parameters.allowSingleCluster;
  std::vector<char> selected(clusters, 0);
  if (parameters.selection == ClusterSelection::Leaf)
  {
    if (clusters == 1)
    {
      return selected; // no split: no leaves, nothing selected
    }
    std::vector<char> leaves(clusters, 0);
    for (std::size_t c = 1; c < clusters; ++c)
    {
      leaves[c] = t.children[c] == 0 ? 1 : 0;
    }
    return epsilon != 0.0 ? epsilonSearch(t, leaves, epsilon, allowSingle) : leaves;
  }

  // Excess of mass, children before parents (ids decreasing); the root only with allowSingle.
  // subtree[c] gathers the (final) stabilities of c's children as they are decided.
  std::vector<char> kept(clusters, 0);
  std::vector<double> stability = t.stability;
  std::vector<double> subtree(clusters, 0.0);
  std::size_t const last = allowSingle ? 0 : 1;
  for (std::size_t c = clusters; c-- > last;)
  {
    if (subtree[c] > stability[c])
    {
      stability[c] = subtree[c];
    }
    else
    {
      kept[c] = 1;
    }
    if (t.parent[c] != kNone)
    {
      subtree[t.parent[c]] += stability[c];
    }
  }
  // A kept cluster deselects its whole subtree: the kept clusters without a kept ancestor.
  std::vector<char> blocked(clusters, 0);
  for (std::size_t c = 0; c < clusters; ++c)
  {
    std::uint32_t const parent = t.parent[c];
    blocked[c] = parent != kNone && (blocked[parent] || selected[parent]);
    selected[c] = kept[c] && !blocked[c];
  }
  if (epsilon == 0.0 || clusters == 1)
  {
    return selected;
  }
  if (selected[0])
  {
    return selected; // only the root: epsilon has nothing to merge (allowSingle is set)
  }
  return epsilonSearch(t, selected, epsilon, allowSingle);
}

} // namespace

void detail::checkHdbscanParameters(const HdbscanParameters& parameters)
{
  if (parameters.minimumClusterSize < 2)
  {
    throw Error(ErrorCode::InvalidInput,
      "the minimum cluster size must be at least 2, not " +
        std::to_string(parameters.minimumClusterSize));
  }
  if (!(parameters.clusterSelectionEpsilon >= 0.0))
  {
    throw Error(ErrorCode::InvalidInput,
      "the cluster selection epsilon must be a non-negative number, not " +
        std::to_string(parameters.clusterSelectionEpsilon));
  }
}

HdbscanClustering extractHdbscanClusters(
  std::size_t n, const std::vector<Edge>& treeEdges, const HdbscanParameters& parameters)
{
  detail::checkHdbscanParameters(parameters);
  detail::checkPointCount(n);
  Condensed const t = condense(buildLevels(n, treeEdges), parameters.minimumClusterSize);
  std::size_t const clusters = t.parent.size();
  std::vector<char> const selected =
    clusters > 0 ? selectClusters(t, parameters) : std::vector<char>();

  HdbscanClustering result;
  result.labels.assign(n, -1);
  result.probabilities.assign(n, 0.0);
  result.outlierScores.assign(n, std::numeric_limits<double>::quiet_NaN());

  // _do_labelling: a point belongs to the nearest selected cluster at or above the one it left.
  // With allowSingle and the root selected, a point is in it only from a lambda on: 1/epsilon,
  // or the largest lambda of the root's own rows.
  // (A selected root beside other clusters, which only epsilon with allowSingle can give,
  // labels nothing: scikit-learn's rule for the root applies when it is the only cluster.)
  bool const rootOnly =
    clusters > 0 && selected[0] && std::count(selected.begin(), selected.end(), 1) == 1;
  std::vector<std::uint32_t> labelCluster(clusters, kNone);
  for (std::size_t c = 0; c < clusters; ++c)
  {
    bool const labels = selected[c] && (c > 0 || rootOnly);
    labelCluster[c] = labels ? static_cast<std::uint32_t>(c)
      : t.parent[c] != kNone ? labelCluster[t.parent[c]]
                             : kNone;
  }
  double const rootThreshold = !rootOnly        ? 0.0
    : parameters.clusterSelectionEpsilon != 0.0 ? 1.0 / parameters.clusterSelectionEpsilon
                                                : t.death[0];
  std::vector<std::uint32_t> clusterOfLabelled(n, kNone);
  std::vector<std::uint64_t> members(clusters, 0);
  std::vector<std::uint32_t> firstMember(clusters, kNone);
  for (std::size_t p = 0; p < n; ++p)
  {
    std::uint32_t const left = t.clusterOfPoint[p];
    if (left == kNone)
    {
      continue;
    }
    std::uint32_t const c = labelCluster[left];
    if (c == kNone || (rootOnly && !(t.lambdaOfPoint[p] >= rootThreshold)))
    {
      continue;
    }
    clusterOfLabelled[p] = c;
    ++members[c];
    firstMember[c] = std::min(firstMember[c], static_cast<std::uint32_t>(p));
  }

  // Labels: by decreasing size, ties by smallest point.
  std::vector<std::uint32_t> order;
  for (std::uint32_t c = 0; c < clusters; ++c)
  {
    if (members[c] > 0)
    {
      order.push_back(c);
    }
  }
  std::sort(order.begin(), order.end(),
    [&](std::uint32_t a, std::uint32_t b) {
      return members[a] != members[b] ? members[a] > members[b] : firstMember[a] < firstMember[b];
    });
  std::vector<std::int32_t> labelOfCluster(clusters, -1);
  for (std::size_t k = 0; k < order.size(); ++k)
  {
    std::uint32_t const c = order[k];
    labelOfCluster[c] = static_cast<std::int32_t>(k);
    HdbscanCluster cluster;
    cluster.size = members[c];
    cluster.firstPoint = firstMember[c];
    cluster.node = n + c;
    cluster.stability = t.stability[c];
    cluster.birthLambda = t.birth[c];
    cluster.deathLambda = t.death[c];
    result.clusters.push_back(cluster);
  }

  // GLOSH's lambdaMax: the largest lambda in each cluster's subtree (children after parents).
  std::vector<double> subtreeMax = t.death;
  for (std::size_t c = clusters; c-- > 1;)
  {
    subtreeMax[t.parent[c]] = std::max(subtreeMax[t.parent[c]], subtreeMax[c]);
  }
  for (std::size_t p = 0; p < n; ++p)
  {
    std::uint32_t const left = t.clusterOfPoint[p];
    if (left == kNone)
    {
      continue;
    }
    double const lambda = t.lambdaOfPoint[p];
    double const top = subtreeMax[left];
    result.outlierScores[p] = top == 0.0 || !std::isfinite(lambda) ? 0.0
      : std::isinf(top)                                            ? 1.0
                                                                   : (top - lambda) / top;
    std::uint32_t const c = clusterOfLabelled[p];
    if (c == kNone)
    {
      continue;
    }
    result.labels[p] = labelOfCluster[c];
    double const death = t.death[c];
    result.probabilities[p] =
      death == 0.0 || std::isinf(lambda) ? 1.0 : std::min(lambda, death) / death;
  }
  result.noisePoints =
    static_cast<std::size_t>(std::count(result.labels.begin(), result.labels.end(), -1));

  // The condensed tree: points' rows (point order), then the clusters' (cluster order).
  result.condensedTree.reserve(
    static_cast<std::size_t>(std::count_if(t.clusterOfPoint.begin(), t.clusterOfPoint.end(),
      [](std::uint32_t c) { return c != kNone; })) +
    (clusters > 0 ? clusters - 1 : 0));
  for (std::size_t p = 0; p < n; ++p)
  {
    if (t.clusterOfPoint[p] != kNone)
    {
      result.condensedTree.push_back(
        CondensedTreeRow{ n + t.clusterOfPoint[p], p, t.lambdaOfPoint[p], 1 });
    }
  }
  for (std::size_t c = 1; c < clusters; ++c)
  {
    result.condensedTree.push_back(
      CondensedTreeRow{ n + t.parent[c], n + c, t.birth[c], t.size[c] });
  }
  return result;
}

} // namespace emst
