# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""HDBSCAN* of the engine (`emst --hdbscan`) against scikit-learn's sklearn.cluster.HDBSCAN.

Runs in the project's PyPI virtual environment (venv.sh), not in pvpython: the engine is run
through the `emst` program and its files are compared here. For every set and every
(k = min_samples, min_cluster_size, method, epsilon, allow_single_cluster):

  A. core distances = scikit-learn's (NearestNeighbors(k).kneighbors, the k-th column: the point
     itself counted) to 1e-12 relative;
  B. the mutual reachability tree: its sorted edge lengths = the heights of scikit-learn's
     single-linkage tree (the multiset of minimum spanning tree weights is unique), to 1e-12
     relative, and the totals;
  C. labels (up to renaming, exactly), probabilities and GLOSH outlier scores (1e-9) = those that
     scikit-learn's own extraction (_tree.tree_to_labels, the code HDBSCAN.fit runs) and the
     hdbscan package's outlier_scores give for OUR tree;
  D. the same for scikit-learn's OWN tree (its Prim over its own core distances), read back from
     HDBSCAN.fit's single_linkage_tree_.
Where several merges of the hierarchy have the same height (frequent under mutual reachability:
a point whose core distance dominates joins several groups at once), scikit-learn merges them in
an order that depends on its Prim and on numpy's sort, and its clusters can depend on it; the
engine takes them together (docs/hdbscan.md). C and D therefore give scikit-learn's extraction a
binary hierarchy in which each height's merges come in an order that yields exactly that: the
groups of at least min_cluster_size points first, the smaller ones after. HDBSCAN.fit's own
labels are compared too and must be equal wherever no two edge lengths tie; elsewhere their
differences are reported.
"""
import argparse
import glob
import math
import os
import subprocess
import sys
import tempfile
import warnings

import numpy as np

SKIP = 77
MAX_POINTS = 20000  # scikit-learn's Prim is O(n^2): larger sets are subsampled

try:
    import sklearn
    from sklearn.cluster import HDBSCAN
    from sklearn.cluster._hdbscan import _tree
    from sklearn.neighbors import NearestNeighbors
except ImportError as error:  # Debian's python3-sklearn 1.2 has no HDBSCAN
    print("test_hdbscan_sklearn: skipped: scikit-learn with HDBSCAN (1.3 or newer) is not "
          "importable (%s); run it with the venv of Testing/Python/venv.sh" % error)
    sys.exit(SKIP)
try:
    from hdbscan import _hdbscan_tree as hdbscan_tree  # the reference of GLOSH
except ImportError:
    hdbscan_tree = None

warnings.filterwarnings("ignore", category=FutureWarning)
# scikit-learn 1.9 converts 1-element arrays to scalars in its epsilon search (issue 33219):
# numpy 2.0 to 2.3 warn, 2.4 fails (requirements-pypi.txt keeps numpy below 2.4).
warnings.filterwarnings("ignore", category=DeprecationWarning)


# ---- points and the engine ------------------------------------------------------------------

def read_f32(path):
    with open(path, "rb") as f:
        n = int(np.frombuffer(f.read(8), "<u8")[0])
        dim = int(np.frombuffer(f.read(4), "<u4")[0])
        values = np.frombuffer(f.read(), "<f4")
    assert values.size == n * dim, path
    return values.reshape(n, dim)


def write_f32(path, xyz):
    xyz = np.ascontiguousarray(xyz, np.float32)
    with open(path, "wb") as f:
        f.write(np.uint64(xyz.shape[0]).tobytes())
        f.write(np.uint32(xyz.shape[1]).tobytes())
        f.write(xyz.tobytes())


def synthetic_sets():
    """Blobs of very different densities over a sparse background, 2D and 3D, one with copies."""
    rng = np.random.default_rng(2026)
    sets = {}
    for dim in (2, 3):
        blobs = []
        for sigma, count in ((0.005, 400), (0.02, 900), (0.05, 1200), (0.1, 800), (0.2, 700)):
            centre = rng.uniform(0.2, 0.8, dim) * 4
            blobs.append(centre + sigma * rng.standard_normal((count, dim)))
        blobs.append(rng.uniform(0, 4, (500, dim)))
        xyz = np.concatenate(blobs).astype(np.float32)
        sets["blobs_%dd" % dim] = xyz[rng.permutation(len(xyz))]
    # Copies: quantised coordinates (many identical points, some in groups of k or more).
    base = sets["blobs_3d"][:2500]
    quantised = (np.round(base * 40) / 40).astype(np.float32)
    sets["quantised_3d"] = quantised[rng.permutation(len(quantised))]
    return sets


def subset(xyz):
    step = max(1, math.ceil(len(xyz) / MAX_POINTS))
    return xyz[::step]


def run_engine(emst, path, work, k, size, method, epsilon, single):
    labels = os.path.join(work, "labels.txt")
    edges = os.path.join(work, "edges.txt")
    command = [emst, "--backend", os.environ.get("EMST_BACKEND") or "cpu", "--quiet",
               "--hdbscan", "--min-samples", str(k), "--min-cluster-size", str(size),
               "--selection", method, "--epsilon", repr(float(epsilon)),
               "--labels", labels, "--edges", edges, path]
    if single:
        command.insert(-1, "--allow-single-cluster")
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 0, "%s failed: %s" % (" ".join(command), done.stderr)
    per_point = np.loadtxt(labels, ndmin=2)
    tree = np.loadtxt(edges, ndmin=2).reshape(-1, 3)
    return (per_point[:, 0].astype(np.int64), per_point[:, 1], per_point[:, 2], per_point[:, 3],
            tree)


# ---- scikit-learn's extraction on a hierarchy of our choosing -------------------------------

def linkage_by_levels(n, edges, size):
    """scikit-learn's single-linkage array (HIERARCHY_dtype) of a spanning tree given as (i, j,
    length) rows, each height's merges ordered so that its binary condensation is that of the
    level: per group formed at that height, the parts of at least `size` points first."""
    order = np.lexsort((np.maximum(edges[:, 0], edges[:, 1]), np.minimum(edges[:, 0], edges[:, 1]),
                        edges[:, 2]))
    edges = edges[order]
    parent = np.arange(n)
    label = np.arange(n)
    count = np.ones(n, np.int64)

    def find(x):
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return root

    rows = []
    next_node = n
    k = 0
    while k < len(edges):
        height = edges[k, 2]
        end = k
        while end < len(edges) and edges[end, 2] == height:
            end += 1
        pairs = [(find(int(a)), find(int(b))) for a, b, _ in edges[k:end]]
        level = {}  # a union-find over the roots below this height

        def top(x):
            while level.get(x, x) != x:
                x = level[x]
            return x

        for a, b in pairs:
            ta, tb = top(a), top(b)
            if ta != tb:
                level[max(ta, tb)] = min(ta, tb)
        groups = {}
        for a, b in pairs:
            for r in (a, b):
                groups.setdefault(top(r), set()).add(r)
        for g in sorted(groups):
            parts = sorted(groups[g], key=lambda r: (count[r] < size, label[r]))
            acc = parts[0]
            for r in parts[1:]:
                rows.append((label[acc], label[r], height, count[acc] + count[r]))
                parent[r] = acc
                count[acc] += count[r]
                label[acc] = next_node
                next_node += 1
        k = end
    return np.array(rows, dtype=_tree.HIERARCHY_dtype)


def glosh(condensed):
    """GLOSH scores of a condensed tree: the hdbscan package's outlier_scores, or its definition
    (1 - lambda / lambda_max of the point's cluster's subtree) when the package is missing."""
    if hdbscan_tree is not None:
        tree = np.array(condensed.tolist(), dtype=[("parent", np.intp), ("child", np.intp),
                                                   ("lambda_val", float), ("child_size", np.intp)])
        return hdbscan_tree.outlier_scores(tree)
    root = condensed["parent"].min()
    deaths = np.zeros(condensed["parent"].max() + 1)
    np.maximum.at(deaths, condensed["parent"], condensed["value"])
    for row in condensed[::-1]:
        if row["child"] >= root:
            deaths[row["parent"]] = max(deaths[row["parent"]], deaths[row["child"]])
    scores = np.zeros(root)
    points = condensed[condensed["child"] < root]
    top = deaths[points["parent"]]
    with np.errstate(invalid="ignore", divide="ignore"):
        value = (top - points["value"]) / top
    value[(top == 0) | ~np.isfinite(points["value"])] = 0.0
    scores[points["child"]] = value
    return scores


def extraction(linkage, size, method, epsilon, single):
    labels, probabilities = _tree.tree_to_labels(linkage, size, method, single, epsilon, None)
    scores = glosh(_tree._condense_tree(linkage, size))
    return np.asarray(labels), np.asarray(probabilities), np.asarray(scores)


def tree_of_linkage(n, linkage):
    """A spanning tree (i, j, height) whose single-linkage hierarchy is `linkage`: each merge
    joins the smallest points of its two clusters."""
    smallest = list(range(n)) + [0] * len(linkage)
    edges = []
    for k, row in enumerate(linkage):
        a, b = smallest[row["left_node"]], smallest[row["right_node"]]
        edges.append((min(a, b), max(a, b), row["value"]))
        smallest[n + k] = min(a, b)
    return np.array(edges, dtype=float).reshape(-1, 3)


# ---- comparisons ----------------------------------------------------------------------------

def partition_difference(expected, got):
    """Points whose label differs after the best one-to-one renaming (0: the same partition)."""
    if not np.array_equal(expected < 0, got < 0):
        mismatched = int(np.sum((expected < 0) != (got < 0)))
    else:
        mismatched = 0
    pairs = {}
    for e, g in zip(expected[(expected >= 0) & (got >= 0)], got[(expected >= 0) & (got >= 0)]):
        pairs[(e, g)] = pairs.get((e, g), 0) + 1
    used_e, used_g, kept = set(), set(), 0
    for (e, g), c in sorted(pairs.items(), key=lambda item: -item[1]):
        if e not in used_e and g not in used_g:
            used_e.add(e)
            used_g.add(g)
            kept += c
    return mismatched + int(np.sum((expected >= 0) & (got >= 0))) - kept


def close(expected, got, tolerance):
    """Largest |got - expected| / max(1, |expected|); inf where NaN-ness differs."""
    if expected.shape != got.shape:
        return math.inf
    both_nan = np.isnan(expected) & np.isnan(got)
    if np.any(np.isnan(expected) != np.isnan(got)):
        return math.inf
    error = np.abs(got - expected)[~both_nan] / np.maximum(1.0, np.abs(expected[~both_nan]))
    return float(error.max()) if error.size else 0.0


class Checker:
    def __init__(self):
        self.failures = []

    def expect(self, ok, message):
        print(("  ok    " if ok else "  FAIL  ") + message)
        if not ok:
            self.failures.append(message)


def compare_clusterings(check, what, expected, got):
    labels, probabilities, scores = expected
    our_labels, our_probabilities, our_scores = got
    wrong = partition_difference(labels, our_labels)
    check.expect(wrong == 0, "%s: labels (up to renaming): %d points differ" % (what, wrong))
    error = close(probabilities, our_probabilities, 1e-9)
    check.expect(error <= 1e-9, "%s: probabilities, largest error %.2e" % (what, error))
    # The engine's GLOSH is 1 where lambda_max is +inf (exact copies); the hdbscan package's is
    # NaN there.
    reference = np.where(np.isnan(scores) & ~np.isnan(our_scores), 1.0, scores)
    error = close(reference, our_scores, 1e-9)
    check.expect(error <= 1e-9, "%s: outlier scores, largest error %.2e" % (what, error))


def check_set(check, emst, work, name, xyz, combos):
    n = len(xyz)
    path = os.path.join(work, name + ".f32")
    write_f32(path, xyz)
    x = xyz.astype(np.float64)
    print("%s: %d points, %dD" % (name, n, xyz.shape[1]))
    for k in sorted({combo[0] for combo in combos}):
        cores = NearestNeighbors(n_neighbors=k).fit(x).kneighbors(x, k)[0][:, -1]
        fitted = HDBSCAN(min_samples=k, min_cluster_size=max(2, k), copy=True).fit(x)
        theirs = fitted._single_linkage_tree_
        their_tree = tree_of_linkage(n, theirs)
        for (_, size, method, epsilon, single) in [c for c in combos if c[0] == k]:
            what = "%s k=%d size=%d %s eps=%g%s" % (name, k, size, method, epsilon,
                                                    " single" if single else "")
            labels, probabilities, scores, our_cores, tree = run_engine(
                emst, path, work, k, size, method, epsilon, single)
            error = close(cores, our_cores, 1e-12)
            check.expect(error <= 1e-12, "%s: core distances, largest error %.2e" % (what, error))
            heights = np.sort(theirs["value"])
            error = close(heights, np.sort(tree[:, 2]), 1e-12)
            check.expect(len(tree) == n - 1 and error <= 1e-12,
                         "%s: tree weights = scikit-learn's, largest error %.2e" % (what, error))
            total = math.fsum(tree[:, 2])
            check.expect(abs(total - math.fsum(heights)) <= 1e-12 * total,
                         "%s: total weight %.17g" % (what, total))
            ours = (labels, probabilities, scores)
            compare_clusterings(check, what + ", vs scikit-learn's extraction of our tree",
                                extraction(linkage_by_levels(n, tree, size), size, method, epsilon,
                                           single), ours)
            compare_clusterings(check, what + ", vs scikit-learn's extraction of its tree",
                                extraction(linkage_by_levels(n, their_tree, size), size, method,
                                           epsilon, single), ours)
            # HDBSCAN.fit's own labels: its order of equal merges.
            public, public_probabilities = _tree.tree_to_labels(theirs, size, method, single,
                                                                epsilon, None)
            differ = partition_difference(np.asarray(public), labels)
            tied = len(np.unique(tree[:, 2])) < len(tree)
            if not tied:
                check.expect(differ == 0 and close(np.asarray(public_probabilities), probabilities,
                                                   1e-9) <= 1e-9,
                             "%s: HDBSCAN.fit's labels and probabilities (no tied heights)" % what)
            else:
                print("  note  %s: HDBSCAN.fit's labels differ at %d points (tied heights, its "
                      "order of equal merges)" % (what, differ))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--emst", required=True, help="the emst program")
    parser.add_argument("--data-dir", help="a folder of NAME.f32 sets (subsets of at most %d points)"
                        % MAX_POINTS)
    parser.add_argument("--synthetic", action="store_true", help="the synthetic blobs")
    parser.add_argument("--work-dir", help="a scratch folder (default: a temporary one)")
    args = parser.parse_args()
    print("scikit-learn %s, hdbscan package: %s" % (sklearn.__version__,
          "yes" if hdbscan_tree is not None else "no (GLOSH from its definition)"))

    sets = {}
    if args.synthetic:
        sets.update(synthetic_sets())
    if args.data_dir:
        files = sorted(glob.glob(os.path.join(args.data_dir, "*.f32")))
        if not files:
            print("test_hdbscan_sklearn: skipped: no .f32 sets in %s" % args.data_dir)
            return SKIP
        for path in files:
            sets[os.path.basename(path)[:-4]] = subset(read_f32(path))
    check = Checker()
    with tempfile.TemporaryDirectory(dir=args.work_dir) as work:
        for name, xyz in sets.items():
            if args.synthetic:
                combos = [(5, 15, "eom", 0.0, False), (10, 25, "leaf", 0.0, False),
                          (3, 10, "eom", 0.1, False), (7, 40, "eom", 0.0, True),
                          (2, 5, "leaf", 0.05, False), (20, 60, "eom", 0.0, False)]
            else:
                # Epsilon in the set's own units: its median nearest-neighbour distance times 4.
                d = NearestNeighbors(n_neighbors=2).fit(xyz).kneighbors(xyz, 2)[0][:, 1]
                epsilon = float(4 * np.median(d[d > 0]))
                combos = [(5, 20, "eom", 0.0, False), (10, 50, "leaf", 0.0, False),
                          (10, 30, "eom", epsilon, False)]
            check_set(check, args.emst, work, name, xyz, combos)
    if check.failures:
        print("%d check(s) failed" % len(check.failures))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
