# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""One real data set (NAME.f32 of Testing/Data or of the shared data) through the filter: n - 1
lines forming a spanning tree, each EdgeLength equal to its end points' distance, and the total
equal to the reference weight of NAME.ref.json (relative 1e-12). The points are float32 xyz (z = 0
for the 2D sets), so the filter must read them in place (zero-copy), in 2D when z is constant."""
import time

import numpy as np

import emst_testing as t

args = t.arguments()
xyz, dim, ref = t.data_set(args)
t.load(args.plugin)
n = len(xyz)
assert n == ref["n"] and dim == ref["dim"], "header says n=%d dim=%d, reference n=%d dim=%d" % (n, dim, ref["n"], ref["dim"])

start = time.time()
out = t.run(t.polydata(xyz))
seconds = time.time() - start
total = t.check_tree(out, np.ones(n, bool), args.set)
weight = ref["emst"]["total_weight"]
relative = t.check_weight(total, weight, args.set)
path = t.field(out, "EMSTInput")
assert path.startswith("zero-copy float32"), "%s: points were not read in place: %s" % (args.set, path)
assert ("2D" in path) == (dim == 2), "%s: %dD set run as %s" % (args.set, dim, path)
assert int(t.field(out, "EMSTPointsInTree")) == n
t.passed("%s: %d points, %d lines, total %.17g vs reference %.17g (relative %.2g), %s, %s, %.2f s"
         % (args.set, n, n - 1, total, weight, relative, t.field(out, "EMSTBackend"), path, seconds))
