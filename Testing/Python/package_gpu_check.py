# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""The pip package on a GPU machine: the CUDA backend gives the CPU backend's results bit for bit.

Needs only NumPy and an installed `emst` built with CUDA (no VTK, no SciPy), so that it runs where
the test suite's PyPI environment cannot be made:

    python3 Testing/Python/package_gpu_check.py Testing/Data [more folders of .f32 sets]

For every .f32 set with a .ref.json: the tree on "cuda" and on "cpu" (the same edges and lengths,
bit for bit; the total against the reference weight to 1e-12), friends-of-friends labels at the
median edge length, and HDBSCAN* (k = 10, minimum cluster size 20: the same labels,
probabilities and outlier scores). Then random clouds (float32 and float64, 2D and 3D, a strided
view). Prints one line per case and exits 1 on any difference."""
import glob
import json
import math
import os
import sys
import time

import numpy as np

import emst

failures = 0


def check(ok, what):
    global failures
    if not ok:
        failures += 1
    print(("ok   " if ok else "FAIL ") + what, flush=True)


def read_f32(path):
    with open(path, "rb") as f:
        n = int(np.frombuffer(f.read(8), "<u8")[0])
        dim = int(np.frombuffer(f.read(4), "<u4")[0])
        return np.frombuffer(f.read(4 * n * dim), "<f4").reshape(n, dim)


def compare(points, name, reference=None):
    start = time.perf_counter()
    edges_gpu, lengths_gpu = emst.minimum_spanning_tree(points, backend="cuda")
    gpu_s = time.perf_counter() - start
    edges_cpu, lengths_cpu = emst.minimum_spanning_tree(points, backend="cpu")
    check(np.array_equal(edges_gpu, edges_cpu) and np.array_equal(lengths_gpu, lengths_cpu),
          "%s: tree, %d edges, CUDA = CPU bit for bit (CUDA %.1f ms with the copies)"
          % (name, len(lengths_gpu), 1e3 * gpu_s))
    if reference is not None:
        total = math.fsum(lengths_gpu.tolist())
        check(abs(total - reference) <= 1e-12 * reference,
              "%s: total %.17g, reference %.17g" % (name, total, reference))
    if len(lengths_cpu) > 0:
        t = float(np.median(lengths_cpu))
        check(np.array_equal(emst.fof_labels(points, t, backend="cuda"), emst.fof_labels(points, t, backend="cpu")),
              "%s: friends-of-friends at the median edge length, CUDA = CPU" % name)
    if len(points) > 20:
        gpu = emst.hdbscan(points, min_samples=10, min_cluster_size=20, backend="cuda")
        cpu = emst.hdbscan(points, min_samples=10, min_cluster_size=20, backend="cpu")
        same = all(np.array_equal(a, b, equal_nan=True) for a, b in zip(gpu, cpu))
        check(same, "%s: HDBSCAN* k=10 m=20, %d clusters, CUDA = CPU (labels, probabilities, scores)"
              % (name, int(cpu[0].max()) + 1))


def main():
    available, reason = emst.cuda_available()
    print("emst %s: CUDA compiled %s, available %s %s" % (emst.__version__, emst.cuda_compiled(), available, reason))
    if not available:
        print("FAIL no usable CUDA device")
        return 1
    for folder in sys.argv[1:] or ["Testing/Data"]:
        for path in sorted(glob.glob(os.path.join(folder, "*.f32"))):
            ref_path = path[:-4] + ".ref.json"
            if not os.path.exists(ref_path):
                continue
            with open(ref_path) as f:
                reference = json.load(f)
            weight = reference.get("emst", {}).get("total_weight", reference.get("total_weight"))
            compare(read_f32(path), os.path.basename(path)[:-4], weight)
    rng = np.random.default_rng(7)
    for n, dim, dtype in ((5000, 2, np.float32), (20000, 3, np.float32), (20000, 3, np.float64)):
        compare(rng.random((n, dim)).astype(dtype), "random %d %dD %s" % (n, dim, np.dtype(dtype).name))
    wide = rng.random((10000, 4)).astype(np.float32)
    compare(wide[:, :3], "random 10000 3D float32, a strided view")
    print("%s: %d failure(s)" % ("PASSED" if failures == 0 else "FAILED", failures))
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
