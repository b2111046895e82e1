# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""Ghost points: points whose vtkGhostType value has the DUPLICATEPOINT or HIDDENPOINT bit stay in
the output (with their arrays) but get no edge, and the tree of the other points is exactly the
tree computed without them. The ghosts are placed where they would change the tree: far away
(a long edge) and between halos (shortcuts). Checked on a single block and on a partitioned
data set whose pieces overlap by ghost copies, as a distributed reader would give them."""
import numpy as np
from vtkmodules.vtkCommonDataModel import vtkDataSetAttributes, vtkPartitionedDataSet

import emst_testing as t

DUPLICATE = vtkDataSetAttributes.DUPLICATEPOINT
HIDDEN = vtkDataSetAttributes.HIDDENPOINT

args = t.arguments()
t.load(args.plugin)
xyz, arrays = t.sample_points(args.sample)
n = len(xyz)
reference = t.run(t.polydata(xyz))
ref_total = t.check_tree(reference, np.ones(n, bool), "without ghosts")

rng = np.random.RandomState(7)
far = np.array([[500.0, 500.0, 500.0], [-300.0, 0.0, 0.0]], np.float32)
between = rng.uniform(0.0, 100.0, size=(200, 3)).astype(np.float32)
extra = np.concatenate([far, between])
ghost_values = np.where(np.arange(len(extra)) % 3 == 0, HIDDEN, DUPLICATE).astype(np.uint8)
ghost_values[5] = DUPLICATE | HIDDEN

# Single block: real points interleaved with the ghosts, the real ones flagged 0.
order = rng.permutation(n + len(extra))
all_xyz = np.concatenate([xyz, extra])[order]
flags = np.concatenate([np.zeros(n, np.uint8), ghost_values])[order]
label = np.arange(n + len(extra))[order]
out = t.run(t.polydata(all_xyz, {"Label": label}, ghosts=flags))
in_tree = flags == 0
total = t.check_tree(out, in_tree, "single block with ghosts")
assert out.GetNumberOfPoints() == n + len(extra), "ghost points dropped from the output"
assert out.GetPointData().GetArray("vtkGhostType") is not None, "vtkGhostType not passed through"
assert abs(total - ref_total) <= 1e-12 * ref_total, "total with ghosts %.17g, without %.17g" % (total, ref_total)
assert int(t.field(out, "EMSTPointsInTree")) == n
assert "ghost" in t.field(out, "EMSTInput"), t.field(out, "EMSTInput")
t.passed("single block: %d points + %d ghosts, %d lines, total %.17g = tree without ghosts (%s)"
         % (n, len(extra), n - 1, total, t.field(out, "EMSTInput")))

# A ghost value without those bits (here 0 on every point) keeps the point: zero-copy path.
out = t.run(t.polydata(xyz, ghosts=np.zeros(n, np.uint8)))
t.same_output(out, reference, "all-zero vtkGhostType")
assert t.field(out, "EMSTInput").startswith("zero-copy"), t.field(out, "EMSTInput")
t.passed("all-zero vtkGhostType: same tree, points read in place")

# Pieces that overlap: each piece also carries, as DUPLICATEPOINT ghosts, the first 300 points
# of the next piece. One tree over the owned points, no edge to any ghost copy.
cuts = [0, 3000, 6500, n]
pds = vtkPartitionedDataSet()
owned_flags = []
for k, (a, b) in enumerate(zip(cuts[:-1], cuts[1:])):
    c = cuts[k + 2] if k + 2 < len(cuts) else b
    ghost_part = xyz[b:min(b + 300, c)]
    piece = np.concatenate([xyz[a:b], ghost_part])
    g = np.concatenate([np.zeros(b - a, np.uint8), np.full(len(ghost_part), DUPLICATE, np.uint8)])
    owned_flags.append(g)
    pds.SetPartition(k, t.polydata(piece, ghosts=g))
out = t.run(pds)
flags = np.concatenate(owned_flags)
total = t.check_tree(out, flags == 0, "overlapping pieces")
assert abs(total - ref_total) <= 1e-12 * ref_total, "pieces with ghosts: total %.17g, expected %.17g" % (total, ref_total)
t.passed("partitioned data set with ghost copies: %d output points, %d lines, total %.17g"
         % (out.GetNumberOfPoints(), n - 1, total))
