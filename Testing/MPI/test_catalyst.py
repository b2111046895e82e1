# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""The Catalyst example: runs emst_catalyst_example (serially, or under mpiexec -np N) with the
pipeline Examples/Catalyst/emst_pipeline.py, then checks every step's extracts against a serial run
of the same filters, in this process, on the same points (which the example also writes raw, per
step and rank, with --write-points):

- tree_<step>.pvtp: every particle once, at its exact coordinates, n - 1 lines forming a spanning
  tree with EdgeLength equal to the end points' distance; the serial run's edge lengths bit for
  bit; under MPI the distributed tree: ghost copies of the remote ends (collapsed onto their
  particles for the checks), points of every rank and edges between them (one tree of the whole
  set);
- clusters_<step>.pvtp and cluster_table_<step>.csv: the serial run's number of clusters, every
  particle in the same cluster, the same table (sizes, centroids, bounds, longest edges).

    pvpython test_catalyst.py --plugin EMST.so --example emst_catalyst_example \
        --script emst_pipeline.py --work-dir W [--ranks 2 --mpiexec mpiexec]
"""
import glob
import os
import shutil
import subprocess
import time

import numpy as np

import emst_mpi_testing as m

t = m.t

LINKING_LENGTH = 0.2
MIN_CLUSTER = 10


def run_example(args, folder):
    command = [args.example, "--script", os.path.abspath(args.script), "--steps", str(args.steps),
               "--particles", str(args.particles), "--write-points", os.path.join(folder, "points")]
    if args.ranks > 1:
        command = [args.mpiexec, "--allow-run-as-root", "--oversubscribe", "-np", str(args.ranks)] + command
    env = m.child_environment({
        "EMST_PLUGIN": os.path.abspath(args.plugin),
        "EMST_CATALYST_OUTPUT": os.path.join(folder, "extracts"),
        "EMST_CATALYST_LINKING_LENGTH": repr(LINKING_LENGTH),
        "EMST_CATALYST_MIN_CLUSTER": str(MIN_CLUSTER),
    })
    os.makedirs(os.path.join(folder, "points"))
    start = time.time()
    done = subprocess.run(command, cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=300)
    log = done.stdout
    with open(os.path.join(folder, "example.log"), "w") as f:
        f.write(log)
    assert done.returncode == 0, "%s exited with %d:\n%s" % (" ".join(command), done.returncode, log[-4000:])
    for step in range(args.steps):
        assert "emst_pipeline: step %d " % step in log, "the pipeline did not run at step %d:\n%s" % (step, log[-4000:])
    return time.time() - start


def step_points(folder, step, ranks):
    """All ranks' particles of one step, in rank order = ParticleId order (contiguous blocks)."""
    pieces = []
    for rank in range(ranks):
        path = os.path.join(folder, "points", "points_%06d_%d.f32" % (step, rank))
        assert os.path.exists(path), "%s missing" % path
        xyz, dim = t.read_f32(path)
        assert dim == 3
        pieces.append(xyz)
    return np.concatenate(pieces), [len(p) for p in pieces]


def check_step(args, simple, folder, step):
    xyz, per_rank = step_points(folder, step, args.ranks)
    n = len(xyz)
    assert n == args.particles, "step %d: %d particles written, expected %d" % (step, n, args.particles)
    ids = np.arange(n, dtype=np.int64)

    # The serial run of the same filters, with the same settings, on the same points.
    tree, points, table = m.run_serial(simple, t.polydata(xyz, {"ParticleId": ids}),
                                       linking_length=LINKING_LENGTH, minimum_size=MIN_CLUSTER)
    serial_tree = m.tree_summary(tree, "ParticleId")
    serial_clusters = m.clusters_summary(points, table, "ParticleId")

    # The extracts: under MPI the distributed tree, whose pieces hold ghost copies of their edges'
    # remote ends; collapsed to every particle once, it is a serial tree.
    extracts = os.path.join(folder, "extracts")
    whole = m.read_pvtp(os.path.join(extracts, "tree_%06d.pvtp" % step))
    copies = int(np.count_nonzero(m.ghost_copies(whole)))
    if args.ranks > 1:
        assert copies > 0, "step %d: the tree extract has no ghost copies: not the distributed tree" % step
        assert m.array(whole, "EMSTExchangedPoints", "field")[0] >= 0, "step %d: EMSTExchangedPoints" % step
    got = m.collapse_ghosts(whole, "ParticleId")
    assert got.GetNumberOfPoints() == n, "step %d: tree extract has %d points, expected %d" % (step, got.GetNumberOfPoints(), n)
    pid = m.array(got, "ParticleId").astype(np.int64)
    assert np.array_equal(np.sort(pid), ids), "step %d: the tree extract does not hold every particle once" % step
    assert np.array_equal(t.output_points(got), xyz[pid].astype(np.float64)), \
        "step %d: the tree extract's points are not the particles' coordinates" % step
    t.check_tree(got, np.ones(n, bool), "step %d tree extract" % step)
    summary = m.tree_summary(got, "ParticleId")
    m.compare_trees(summary, serial_tree, "step %d tree extract vs serial" % step)
    crossing = 0
    if args.ranks > 1:
        rank = m.array(got, "Rank")
        assert np.array_equal(np.bincount(rank, minlength=args.ranks), per_rank), \
            "step %d: Rank counts %s, the simulation's %s" % (step, np.bincount(rank).tolist(), per_rank)
        i, j, _ = t.edges(got)
        crossing = int(np.count_nonzero(rank[i] != rank[j]))
        assert crossing > 0, "step %d: no edge joins particles of different ranks" % step

    clustered = m.collapse_ghosts(m.read_pvtp(os.path.join(extracts, "clusters_%06d.pvtp" % step)), "ParticleId")
    csv = m.read_csv_table(os.path.join(extracts, "cluster_table_%06d.csv" % step))
    clusters = m.clusters_summary(clustered, csv, "ParticleId")
    m.compare_clusters(clusters, serial_clusters, "step %d cluster extracts vs serial" % step)
    assert clusters["clusters"] > 1, "step %d: the blobs should give several clusters" % step
    return summary["total"], clusters["clusters"], clusters["noise"], crossing


def main():
    def extra(parser):
        parser.add_argument("--example", required=True, help="emst_catalyst_example")
        parser.add_argument("--script", required=True, help="Examples/Catalyst/emst_pipeline.py")
        parser.add_argument("--ranks", type=int, default=1)
        parser.add_argument("--mpiexec", help="mpiexec, for --ranks > 1")
        parser.add_argument("--steps", type=int, default=3)
        parser.add_argument("--particles", type=int, default=20000)

    args = t.arguments(extra)
    if args.ranks > 1 and not (args.mpiexec and shutil.which(args.mpiexec)):
        t.skip("no mpiexec for %d ranks" % args.ranks)
    simple = m.load(args.plugin)
    folder = os.path.join(args.work_dir, "np%d" % args.ranks)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    seconds = run_example(args, folder)
    t.passed("emst_catalyst_example on %d rank(s): %d steps of %d particles in %.1f s; extracts: %s"
             % (args.ranks, args.steps, args.particles, seconds,
                ", ".join(sorted(os.path.basename(p) for p in glob.glob(os.path.join(folder, "extracts", "*_000000*"))))))
    for step in range(args.steps):
        total, count, noise, crossing = check_step(args, simple, folder, step)
        t.passed("step %d: tree length %.17g and %d clusters (%d noise points) as in the serial run%s"
                 % (step, total, count, noise,
                    ", %d edges join particles of different ranks" % crossing if args.ranks > 1 else ""))


main()
