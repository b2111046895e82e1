# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""Times the CPU HDBSCAN* of scikit-learn (sklearn.cluster.HDBSCAN) and of fast_hdbscan on point
files, for RESULTS.md's scale rows beside `emst_benchmark --hdbscan`. Run it with a Python that has
them (the tests' venv has scikit-learn: build/pypi-venv/bin/python; pip install fast_hdbscan):

  python Testing/Benchmarks/hdbscan_cpu_references.py [--min-samples 10] [--min-cluster-size 100]
         [--only sklearn|fast_hdbscan] [--subset N] FILE.f32...

One Markdown row per file and library: wall time of fit() (fast_hdbscan: a first call on a small
cloud compiles its numba code beforehand, not timed), clusters and noise points. scikit-learn's
tree is O(n^2): --subset N takes every (n/N)-th point first."""
import argparse
import math
import os
import sys
import time

import numpy as np


def read_f32(path):
    with open(path, "rb") as f:
        n = int(np.frombuffer(f.read(8), "<u8")[0])
        dim = int(np.frombuffer(f.read(4), "<u4")[0])
        return np.frombuffer(f.read(), "<f4").reshape(n, dim).astype(np.float64)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("files", nargs="+")
    parser.add_argument("--min-samples", type=int, default=10)
    parser.add_argument("--min-cluster-size", type=int, default=100)
    parser.add_argument("--only", choices=["sklearn", "fast_hdbscan"])
    parser.add_argument("--subset", type=int, default=0)
    args = parser.parse_args()
    libraries = []
    if args.only in (None, "sklearn"):
        from sklearn.cluster import HDBSCAN
        import sklearn

        libraries.append(("scikit-learn " + sklearn.__version__,
                          lambda x: HDBSCAN(min_samples=args.min_samples,
                                            min_cluster_size=args.min_cluster_size,
                                            copy=True).fit(x).labels_))
    if args.only in (None, "fast_hdbscan"):
        import fast_hdbscan

        # fast_hdbscan's min_samples counts the point itself, as scikit-learn's does.
        def fast(x):
            return fast_hdbscan.HDBSCAN(min_samples=args.min_samples,
                                        min_cluster_size=args.min_cluster_size).fit(x).labels_

        fast(np.random.default_rng(0).random((2000, 3)))  # numba compiles here, untimed
        libraries.append(("fast_hdbscan", fast))
    print("| set | n | dim | library | threads | fit s | clusters | noise |")
    print("|---|---:|---:|---|---:|---:|---:|---:|")
    for path in args.files:
        x = read_f32(path)
        if args.subset and len(x) > args.subset:
            x = x[::math.ceil(len(x) / args.subset)]
        for name, fit in libraries:
            start = time.perf_counter()
            labels = fit(x)
            seconds = time.perf_counter() - start
            print("| %s | %d | %d | %s | %s | %.1f | %d | %d |" % (
                os.path.basename(path)[:-4], len(x), x.shape[1], name, os.cpu_count(), seconds,
                labels.max() + 1, np.sum(labels < 0)))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
