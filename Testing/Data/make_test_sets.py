#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""Cuts the small real test sets of Testing/Data out of the project's shared data sets and computes
their exact reference values, independently of the engine (see README.md in this folder).

    python3 Testing/Data/make_test_sets.py [--shared-data DIR]    write NAME.f32, .ref.json, .src.json
    python3 Testing/Data/make_test_sets.py --check [...]          recompute; fail if a file differs
    python3 Testing/Data/make_test_sets.py --reproduce NAME       run the reference code on a whole
                                                                  shared set, compare with its ref.json

Needs numpy and scipy (Debian: python3-numpy python3-scipy). DIR defaults to ../shared/data beside
the repository; each source file's SHA-256 is checked, so the subsets come out byte for byte the same.

References, as ../shared/data/README.md defines them: the float32 coordinates promoted to double,
edge length sqrt(dx*dx + dy*dy [+ dz*dz]) in double, terms in axis order; the MST of the Delaunay
edges of the distinct points (scipy.spatial.Delaunay, i.e. Qhull, default options), by
scipy.sparse.csgraph.minimum_spanning_tree, each extra copy of a point adding a zero-length edge; the
total by math.fsum. An O(n^2) brute-force Prim over all pairs (numpy, double, the same length
formula, which numpy evaluates without contraction) must give a bit-identical sorted list of edge
lengths, and the same 1-NN distances, or the script stops. The output is deterministic: no timings.
"""
import argparse
import hashlib
import json
import math
import os
import sys

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components, minimum_spanning_tree
from scipy.spatial import Delaunay

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SHARED = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "data"))
KNN = 16  # the k of the k-nearest-neighbour graph whose components are recorded
INF = math.inf

# Each set: a window of one shared set, half-open per axis (lower <= x < upper on the stored float32
# values; +-inf: unbounded), the points kept in the source file's order. Windows, not random
# subsamples: a window keeps the real local geometry (spacing, ties of integer coordinates, exact
# duplicates, density contrast) that a random subsample would thin out. Each window was chosen to
# keep what makes its source hard; `expect` lists those properties and the script checks them.
SETS = [
    {
        "name": "galaxies_mr19mock_box14k",
        "source": "galaxies_mr19mock84k",
        "sha256": "7b616a47fc9bc266a535edfd81c364d36709850536f6dfc0a78c6447ed2fe0ce",
        "lower": [-142.0, -73.0, 19.0],
        "upper": [-42.0, 27.0, 119.0],
        "why": "a 100 Mpc/h cube around the catalogue's median point: groups, filaments and voids at "
               "their real density (1-NN distance from 0.013 to 14 Mpc/h), no ties",
        "expect": {"dim": 3, "extra_copies": 0},
    },
    {
        "name": "geo_cities1000_europe16k",
        "source": "geo_cities1000",
        "sha256": "587ae366816c63a315be4801e4417936871c215e21072785a5543c19c6acae74",
        "lower": [9.0, 43.0],
        "upper": [30.0, 49.0],
        "why": "2D, longitude 9 to 30, latitude 43 to 49 (Alps, Pannonian basin, Carpathians, northern "
               "Balkans, the Adriatic): dense and sparse regions, a sea, and 18 of the full set's 51 "
               "exact duplicate points",
        "expect": {"dim": 2, "extra_copies": 18},
    },
    {
        "name": "lidar_autzen_tile15k",
        "source": "lidar_autzen110k",
        "sha256": "03201bedd8c5fa322165696390cf9f3b08ad48417e60327247e012794028744e",
        "lower": [52000.0, 0.0, -INF],
        "upper": [72000.0, 28000.0, INF],
        "why": "a 200 x 280 ft tile of the airborne scan, all heights: scan lines, integer coordinates "
               "(many equal edge lengths, some exactly at the median), a k=16 nearest-neighbour graph in "
               "2 pieces",
        "expect": {"dim": 3, "extra_copies": 0, "knn_components_at_least": 2, "p50_edges_equal_to_t_at_least": 1},
    },
    {
        "name": "lidar_lonestar_strip13k",
        "source": "lidar_lonestar519k",
        "sha256": "a725166e3cecd2964ae6bf9b3a859e7e15e66d5f9a11c46ddac3d7805cad0a74",
        "lower": [-INF, 79000.0, -INF],
        "upper": [INF, 81000.0, INF],
        "why": "a 0.5 m thick slab through the whole terrestrial scan: density falling by orders of "
               "magnitude away from the scanner (1-NN distance from 74 to 3300 units), integer "
               "coordinates with ties at the median, a k=16 nearest-neighbour graph in 25 pieces; "
               "a flat 3D cloud (thin in y)",
        "expect": {"dim": 3, "extra_copies": 0, "knn_components_at_least": 10, "p50_edges_equal_to_t_at_least": 1},
    },
]


# ---- files --------------------------------------------------------------------------------------

def read_f32(path):
    """(n, dim) float32 of a .f32 file: little-endian uint64 n, uint32 dim, n*dim float32."""
    with open(path, "rb") as f:
        data = f.read()
    n = int(np.frombuffer(data[:8], "<u8")[0])
    dim = int(np.frombuffer(data[8:12], "<u4")[0])
    values = np.frombuffer(data[12:], "<f4")
    if values.size != n * dim:
        raise SystemExit("%s: %d values, the header says %d x %d" % (path, values.size, n, dim))
    return values.reshape(n, dim), hashlib.sha256(data).hexdigest()


def f32_bytes(xyz):
    n, dim = xyz.shape
    return (np.array([n], "<u8").tobytes() + np.array([dim], "<u4").tobytes()
            + np.ascontiguousarray(xyz, "<f4").tobytes())


def json_text(value):
    return json.dumps(value, indent=1) + "\n"


# ---- references ---------------------------------------------------------------------------------

def lengths_of(x, i, j):
    """Double lengths of the pairs (i, j) of the double coordinates x: terms in axis order."""
    d = x[i] - x[j]
    squared = d[:, 0] * d[:, 0]
    for a in range(1, x.shape[1]):
        squared = squared + d[:, a] * d[:, a]
    return np.sqrt(squared)


def delaunay_mst(x):
    """The EMST of the double points x (n, dim) as edges (i, j, length) over the original indices,
    through the Delaunay edges of the distinct points, and the Delaunay facts of the schema."""
    distinct, first, inverse = np.unique(x, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    tri = Delaunay(distinct)
    s = tri.simplices
    pairs = np.concatenate([s[:, [a, b]] for a in range(s.shape[1]) for b in range(a + 1, s.shape[1])])
    pairs = np.unique(np.sort(pairs, axis=1), axis=0)  # unique: coo_matrix would sum repeated pairs
    w = lengths_of(distinct, pairs[:, 0], pairs[:, 1])
    m = len(distinct)
    tree = minimum_spanning_tree(coo_matrix((w, (pairs[:, 0], pairs[:, 1])), shape=(m, m)).tocsr()).tocoo()
    # Back to the original indices (each distinct point as its first copy), lengths recomputed from
    # the coordinates; then each extra copy joined to its first copy by a zero-length edge.
    i, j = first[tree.row], first[tree.col]
    copies = np.flatnonzero(first[inverse] != np.arange(len(x)))
    i = np.concatenate([i, first[inverse[copies]]])
    j = np.concatenate([j, copies])
    length = np.concatenate([lengths_of(x, i[:len(tree.row)], j[:len(tree.row)]), np.zeros(len(copies))])
    facts = {
        "distinct": m,
        "duplicate_extra_copies": len(x) - m,
        "qhull_options": "default (Qbb Qc Qz Q12 Qt)",
        "simplices": len(s),
        "edges": len(pairs),
        "points_not_in_triangulation": len(tri.coplanar),
    }
    return i, j, length, facts


def brute_force(x, k=KNN):
    """O(n^2) Prim over all pairs: the MST edge lengths in the order Prim adds them, each point's
    1-NN distance, and the number of components of the k-nearest-neighbour graph (ties broken by the
    smaller index, so that the count does not depend on a library's tie order). None for k when
    k >= n."""
    n = len(x)
    done = np.zeros(n, bool)
    key = np.full(n, INF)
    nn = np.empty(n)
    lengths = np.empty(n - 1)
    knn = np.empty((n, k), np.int64) if k < n else None
    a = 0
    for step in range(n):
        done[a] = True
        d = x - x[a]
        row = d[:, 0] * d[:, 0]
        for axis in range(1, x.shape[1]):
            row = row + d[:, axis] * d[:, axis]
        row = np.sqrt(row)
        row[a] = INF  # a itself: not its own neighbour
        nn[a] = row.min()
        if knn is not None:
            kth = np.partition(row, k - 1)[k - 1]
            closer = np.flatnonzero(row < kth)
            knn[a] = np.concatenate([closer, np.flatnonzero(row == kth)[:k - len(closer)]])
        if step == n - 1:
            break
        key = np.where(done, INF, np.minimum(key, row))
        a = int(np.argmin(key))
        lengths[step] = key[a]
    components = None
    if knn is not None:
        graph = coo_matrix((np.ones(n * k), (np.repeat(np.arange(n), k), knn.ravel())), shape=(n, n))
        components = int(connected_components(graph, directed=False)[0])
    return lengths, nn, components


def clusters(n, i, j, keep):
    """Number of single-linkage clusters when only the tree edges flagged `keep` remain, and the 5
    largest sizes."""
    graph = coo_matrix((np.ones(int(keep.sum())), (i[keep], j[keep])), shape=(n, n))
    count, labels = connected_components(graph, directed=False)
    sizes = np.sort(np.bincount(labels))[::-1]
    return int(count), [int(s) for s in sizes[:5]]


def references(xyz):
    """The reference values of the float32 points xyz in the schema of ../shared/data/NAME.ref.json
    (key order kept: the engine tests read the first occurrence of a key), without file name."""
    x = xyz.astype(np.float64)
    n, dim = x.shape
    i, j, length, facts = delaunay_mst(x)
    _, counts = np.unique(x, axis=0, return_counts=True)
    components = connected_components(coo_matrix((np.ones(len(i)), (i, j)), shape=(n, n)), directed=False)[0]
    positive = length[length > 0]
    ref = {
        "n": n,
        "dim": dim,
        "duplicates": {
            "extra_copies": int(n - len(counts)),
            "points_with_a_duplicate": int(counts[counts > 1].sum()),
            "distinct_points": len(counts),
            "max_multiplicity": int(counts.max()),
        },
        "bbox_min": [float(v) for v in x.min(axis=0)],
        "bbox_max": [float(v) for v in x.max(axis=0)],
        "emst": {
            "total_weight": math.fsum(length.tolist()),
            "total_weight_repr": repr(math.fsum(length.tolist())),
            "edges": len(length),
            "components": int(components),
            "zero_length_edges": int(np.count_nonzero(length == 0)),
            "max_edge": float(length.max()),
            "min_positive_edge": float(positive.min()),
            "distinct_edge_lengths": len(np.unique(length)),
            "method": "Delaunay (scipy/Qhull) edges of distinct points + zero-length duplicate edges, "
                      "scipy.sparse.csgraph.minimum_spanning_tree, math.fsum",
        },
        "delaunay": facts,
        "single_linkage": {},
    }
    for p in (50, 99):
        t = float(np.percentile(length, p))
        kept, kept_if_cut = length <= t, length < t
        count, largest = clusters(n, i, j, kept)
        count_if_cut, largest_if_cut = clusters(n, i, j, kept_if_cut)
        ref["single_linkage"]["p%d" % p] = {
            "t": t,
            "t_repr": repr(t),
            "clusters": count,
            "mst_edges_longer_than_t": int(np.count_nonzero(~kept)),
            "mst_edges_equal_to_t": int(np.count_nonzero(length == t)),
            "largest_cluster_sizes": largest,
            "clusters_if_edges_equal_to_t_also_cut": count_if_cut,
            "largest_cluster_sizes_if_equal_also_cut": largest_if_cut,
        }
    # The 1-NN distance of a point is the shortest tree edge at it (the edge to a nearest neighbour
    # is in every EMST); the brute force below confirms it point by point.
    nn = np.full(n, INF)
    np.minimum.at(nn, i, length)
    np.minimum.at(nn, j, length)
    ref["nn1"] = {
        "min": float(nn.min()),
        "median": float(np.median(nn)),
        "max": float(nn.max()),
        "mean": float(np.mean(nn)),
        "min_positive": float(nn[nn > 0].min()),
        "points_with_zero_nn": int(np.count_nonzero(nn == 0)),
    }
    return ref, length, nn


def verified_references(xyz):
    """references() checked against the brute force; adds the check's findings."""
    ref, length, nn = references(xyz)
    prim, prim_nn, knn_components = brute_force(xyz.astype(np.float64))
    identical = bool(np.array_equal(np.sort(length), np.sort(prim)))
    if not identical or ref["emst"]["total_weight"] != math.fsum(prim.tolist()):
        raise SystemExit("brute-force Prim disagrees with the Delaunay MST: total %r vs %r"
                         % (math.fsum(prim.tolist()), ref["emst"]["total_weight"]))
    if not np.array_equal(nn, prim_nn):
        raise SystemExit("1-NN distances of the tree differ from the brute force's at %d points"
                         % np.count_nonzero(nn != prim_nn))
    if ref["emst"]["components"] != 1 or ref["delaunay"]["points_not_in_triangulation"] != 0:
        raise SystemExit("the tree is not spanning, or Qhull left points out: %r" % ref["delaunay"])
    ref["check_bruteforce"] = {
        "method": "O(n^2) Prim over all pairs, numpy, double, the same length formula",
        "total": math.fsum(prim.tolist()),
        "sorted_lengths_identical": identical,
        "nn1_identical": True,
        "knn%d_graph_components" % KNN: knn_components,
    }
    return ref


# ---- the sets -----------------------------------------------------------------------------------

def cut(spec, shared):
    source = os.path.join(shared, spec["source"] + ".f32")
    if not os.path.exists(source):
        raise SystemExit("%s not found: pass --shared-data (the folder of the shared .f32 sets)" % source)
    points, digest = read_f32(source)
    if digest != spec["sha256"]:
        raise SystemExit("%s: SHA-256 %s, expected %s: another version of the set" % (source, digest, spec["sha256"]))
    lower, upper = np.array(spec["lower"]), np.array(spec["upper"])
    inside = np.all((points >= lower) & (points < upper), axis=1)
    return points, np.ascontiguousarray(points[inside])


def expectations(spec, ref):
    """The properties the window was chosen for; a failure means the window no longer keeps them."""
    e = spec["expect"]
    problems = []
    if ref["dim"] != e["dim"] or ref["duplicates"]["extra_copies"] != e["extra_copies"]:
        problems.append("dim %d, %d extra copies" % (ref["dim"], ref["duplicates"]["extra_copies"]))
    if ref["check_bruteforce"]["knn%d_graph_components" % KNN] < e.get("knn_components_at_least", 1):
        problems.append("k-NN graph in %d pieces" % ref["check_bruteforce"]["knn%d_graph_components" % KNN])
    if ref["single_linkage"]["p50"]["mst_edges_equal_to_t"] < e.get("p50_edges_equal_to_t_at_least", 0):
        problems.append("no tree edge exactly at t50")
    if not 5000 <= ref["n"] <= 20000:
        problems.append("%d points" % ref["n"])
    if problems:
        raise SystemExit("%s: %s" % (spec["name"], "; ".join(problems)))


def source_record(spec, shared, source_n, subset):
    with open(os.path.join(shared, spec["source"] + ".src.json")) as f:
        src = json.load(f)

    def bound(v):
        return None if math.isinf(v) else v

    n, dim = subset.shape
    integral = bool(np.all(subset == np.round(subset)))
    record = {
        "src": src["src"],
        "license": src["license"],
        "kind": src["kind"],
        "units": src["units"],
        "transform": src["transform"] + "; then the window below",
        "name": spec["name"],
        "n": n,
        "dim": dim,
        "integral_coordinates": integral,
        "subset_of": {
            "set": spec["source"],
            "n": source_n,
            "sha256_of_f32": spec["sha256"],
            "where": "the project's shared data sets (../shared/data beside the repository)",
        },
        "cut": {
            "kind": "window",
            "lower": [bound(v) for v in spec["lower"]],
            "upper": [bound(v) for v in spec["upper"]],
            "rule": "points with lower <= coordinate < upper on every axis (the stored float32 values; "
                    "null: unbounded), in the order of the source file",
            "why": spec["why"],
        },
        "header": "%s: %d points, dim %d, a window of %s. License: %s. Units: %s."
                  % (spec["name"], n, dim, spec["source"], src["license"], src["units"]),
        "bytes_f32": 12 + 4 * n * dim,
    }
    if "also_checked" in src:
        record["also_checked"] = src["also_checked"]
    return record


def outputs(spec, shared):
    """{file name: bytes} of one set."""
    full, subset = cut(spec, shared)
    ref = verified_references(subset)
    expectations(spec, ref)
    ref = {"file": spec["name"] + ".f32", **ref}
    src = source_record(spec, shared, len(full), subset)
    return {
        spec["name"] + ".f32": f32_bytes(subset),
        spec["name"] + ".ref.json": json_text(ref).encode(),
        spec["name"] + ".src.json": json_text(src).encode(),
    }


def reproduce(name, shared):
    """The reference code on a whole shared set: every value its ref.json has must come out equal
    (a check of this script against the shared references, which were made independently)."""
    points, _ = read_f32(os.path.join(shared, name + ".f32"))
    with open(os.path.join(shared, name + ".ref.json")) as f:
        expected = json.load(f)
    got, _, _ = references(points)
    differences, compared = [], [0]

    def compare(path, want, have):
        if isinstance(want, dict):
            for key, value in want.items():
                if isinstance(have, dict) and key in have:
                    compare(path + "." + key, value, have[key])
        else:
            compared[0] += 1
            if want != have:
                differences.append("%s: shared %r, here %r" % (path, want, have))

    compare(name, expected, got)
    for line in differences:
        print(line)
    print("%s: %d values compared, %s" % (name, compared[0], "all equal" if not differences else "%d differ" % len(differences)))
    return not differences


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared-data", default=DEFAULT_SHARED, help="folder of the shared sets (default %(default)s)")
    parser.add_argument("--out", default=HERE, help="where to write the sets (default: this folder)")
    parser.add_argument("--check", action="store_true", help="recompute and compare with the files in --out")
    parser.add_argument("--reproduce", metavar="NAME", help="compare the reference code with a whole shared set's ref.json")
    args = parser.parse_args()
    if args.reproduce:
        return 0 if reproduce(args.reproduce, args.shared_data) else 1
    failed = False
    for spec in SETS:
        for name, content in outputs(spec, args.shared_data).items():
            path = os.path.join(args.out, name)
            if args.check:
                same = os.path.exists(path) and open(path, "rb").read() == content
                failed |= not same
                print("%s %s" % ("same" if same else "DIFFERS", path))
            else:
                with open(path, "wb") as f:
                    f.write(content)
                print("wrote %s (%d bytes)" % (path, len(content)))
        sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
