# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""Periodic boxes in the filters, against references computed here with scipy and numpy alone:
- the tree filter with the box from the input's field data BoxSize (and BoxOrigin) and from the
  Custom properties: a spanning tree whose EdgeLength is each edge's minimum-image distance and
  whose total equals scipy's minimum_spanning_tree over all minimum-image distances (1e-12), with
  CrossesBoundary flagging exactly the edges whose ends are more than L/2 apart on a periodic axis,
  and BoxSize/BoxOrigin in the output's field data; a box periodic on one axis only; a 2D cloud;
  points outside the box (wrapped, their coordinates kept); bad boxes (errors, empty output);
- MST Clusters with the box: the linking length from the box's volume, not the points' extent; a
  halo across the corner of the box is one cluster of the size scipy's periodic friends-of-friends
  (cKDTree with boxsize) gives, with its centroid and bounds those of the halo unwrapped around its
  known centre; without the box the same halo falls apart."""
import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components, minimum_spanning_tree
from scipy.spatial import cKDTree
from vtkmodules.util import numpy_support
from vtkmodules.vtkCommonCore import vtkDoubleArray

import clusters_testing as c
import emst_testing as t

args = t.arguments()
c.load(args.plugin)


def field_box(data, size, origin=None):
    """Adds field data BoxSize (and BoxOrigin) with the given values (1 or 3 each)."""
    for name, values in (("BoxSize", size), ("BoxOrigin", origin)):
        if values is None:
            continue
        array = vtkDoubleArray()
        array.SetName(name)
        array.SetNumberOfComponents(len(values))
        array.InsertNextTuple(values)
        data.GetFieldData().AddArray(array)
    return data


def minimum_image(d, size):
    """Nearest-image differences (rows of d), size 0 on an axis: not periodic there."""
    d = np.array(d, np.float64)
    for a in range(3):
        if size[a] > 0:
            d[..., a] -= size[a] * np.round(d[..., a] / size[a])
    return d


def periodic_mst_weight(xyz, size):
    """scipy's minimum spanning tree over the dense matrix of minimum-image distances."""
    d = minimum_image(xyz[:, None, :] - xyz[None, :, :], size)
    distance = np.sqrt((d * d).sum(-1))
    # Zero distances (points one period apart) would be missing edges in a sparse graph.
    distance[distance == 0] = 1e-300
    np.fill_diagonal(distance, 0.0)
    return float(minimum_spanning_tree(distance).sum())


def check_periodic_tree(out, xyz, size, origin, label):
    """Asserts the output is the periodic tree of xyz; returns its total."""
    n = len(xyz)
    assert out.GetNumberOfPoints() == n, "%s: %d points" % (label, out.GetNumberOfPoints())
    assert np.array_equal(t.output_points(out), np.asarray(xyz, np.float64)), label + ": the output's points are not the input's"
    i, j, length = t.edges(out)
    assert len(length) == n - 1, "%s: %d lines for %d points" % (label, len(length), n)
    count, cycle = t.components(n, i, j)
    assert count == 1 and not cycle, "%s: not a spanning tree" % label
    d = minimum_image(np.asarray(xyz, np.float64)[j] - np.asarray(xyz, np.float64)[i], size)
    distance = np.sqrt((d * d).sum(1))
    worst = float(np.max(np.abs(length - distance) / np.maximum(distance, 1e-300)))
    assert worst <= 1e-12, "%s: EdgeLength is not the minimum-image distance (%.3g relative)" % (label, worst)
    assert np.all(np.diff(length) >= 0), label + ": lines not ordered by length"
    total = t.field(out, "TotalLength")
    reference = periodic_mst_weight(np.asarray(xyz, np.float64), size)
    t.check_weight(total, reference, label + " vs scipy's periodic minimum_spanning_tree")
    raw = np.asarray(xyz, np.float64)[j] - np.asarray(xyz, np.float64)[i]
    half = np.array([s / 2 if s > 0 else np.inf for s in size])
    expected = np.any(np.abs(raw) > half, axis=1).astype(np.uint8)
    flag = out.GetCellData().GetArray("CrossesBoundary")
    assert flag is not None, label + ": no cell array CrossesBoundary"
    assert np.array_equal(numpy_support.vtk_to_numpy(flag), expected), label + ": CrossesBoundary is not |difference| > L/2"
    assert expected.any(), label + ": no edge crosses the box: the test proves little"
    for name, values in (("BoxSize", size), ("BoxOrigin", origin)):
        array = out.GetFieldData().GetArray(name)
        assert array is not None and array.GetNumberOfComponents() == 3, "%s: field data %s" % (label, name)
        assert list(array.GetTuple3(0)) == list(values), "%s: field data %s %s, expected %s" % (
            label, name, array.GetTuple3(0), values)
    return total


rng = np.random.default_rng(20260214)

# ---- the tree: box from field data, from the properties --------------------------------------
xyz = rng.random((500, 3))
from_field = t.run(field_box(t.polydata(xyz), [1.0]), PeriodicBoxMode="From Input")
total = check_periodic_tree(from_field, xyz, (1, 1, 1), (0, 0, 0), "unit cube from BoxSize")
custom = t.run(t.polydata(xyz), PeriodicBoxMode="Custom", BoxOrigin=[0, 0, 0], BoxSize=[1, 1, 1])
t.same_output(from_field, custom, "Custom box vs BoxSize field data")
open_tree = t.run(field_box(t.polydata(xyz), [1.0]))  # Off: the field data is not read
assert open_tree.GetCellData().GetArray("CrossesBoundary") is None, "Off: a CrossesBoundary array"
assert open_tree.GetFieldData().GetArray("BoxSize") is None, "Off: a BoxSize in the output"
assert t.field(open_tree, "TotalLength") > total * 1.001, "the periodic tree should be shorter than the open one"
t.passed("unit cube: total %.17g from BoxSize = Custom = scipy's; open tree %.17g" % (total, t.field(open_tree, "TotalLength")))

# A box of its own shape and origin, given as 3 values each; then periodic in x only.
shape, origin = (2.0, 0.5, 1.25), (-1.0, 3.0, 0.5)
xyz = np.asarray(origin) + rng.random((400, 3)) * np.asarray(shape)
out = t.run(field_box(t.polydata(xyz), list(shape), list(origin)), PeriodicBoxMode="From Input")
check_periodic_tree(out, xyz, shape, origin, "box 2 x 0.5 x 1.25 at (-1, 3, 0.5)")
out = t.run(t.polydata(xyz), PeriodicBoxMode="Custom", BoxOrigin=list(origin), BoxSize=[2.0, 0, 0])
check_periodic_tree(out, xyz, (2.0, 0, 0), origin, "periodic in x only")
t.passed("boxes of other shapes, and one periodic axis")

# 2D (every z equal: the engine runs in 2D), float32.
xy = np.zeros((600, 3), np.float32)
xy[:, :2] = rng.random((600, 2)).astype(np.float32) * 3.0
out = t.run(t.polydata(xy), PeriodicBoxMode="Custom", BoxSize=[3.0, 3.0, 0.0])
check_periodic_tree(out, xy, (3.0, 3.0, 0), (0, 0, 0), "2D float32 square of 3")
assert "2D" in t.field(out, "EMSTInput"), t.field(out, "EMSTInput")
t.passed("2D")

# Points outside the box: wrapped for the distances, their coordinates kept.
inside = np.round(rng.random((300, 3)) * 2 ** 20) / 2 ** 20
outside = inside.copy()
outside[::4, 0] += rng.integers(-5, 6, len(outside[::4]))
outside[1::4, 2] -= 3.0
moved = int(np.count_nonzero(np.any((outside < 0) | (outside >= 1), axis=1)))
a = t.run(t.polydata(inside), PeriodicBoxMode="Custom")
b = t.run(t.polydata(outside), PeriodicBoxMode="Custom")
assert np.array_equal(t.output_points(b), outside), "the output does not keep the input's coordinates"
ia, ja, la = t.edges(a)
ib, jb, lb = t.edges(b)
assert np.array_equal(ia, ib) and np.array_equal(ja, jb) and np.array_equal(la, lb), "wrapping changed the tree"
messages = t.field(b, "EMSTMessages")
assert any(("%d point(s) outside the periodic box were wrapped" % moved) in m for m in messages), messages
t.passed("%d points outside the box: the same tree, their coordinates kept, a note" % moved)

# ---- bad boxes: an error, an empty output ------------------------------------------------------
cases = [
    (t.polydata(xyz), dict(PeriodicBoxMode="From Input"), "no field data array BoxSize"),
    (field_box(t.polydata(xyz), [1.0, 2.0]), dict(PeriodicBoxMode="From Input"), "1 (a cube) or 3"),
    (field_box(t.polydata(xyz), [-1.0]), dict(PeriodicBoxMode="From Input"), "must be finite and >= 0"),
    (t.polydata(xyz), dict(PeriodicBoxMode="Custom", BoxSize=[1, float("nan"), 1]), "must be finite and >= 0"),
    (t.polydata(xyz), dict(PeriodicBoxMode="Custom", BoxOrigin=[float("inf"), 0, 0]), "must be finite"),
]
for data, properties, words in cases:
    out = t.run(data, **properties)
    assert out.GetNumberOfPoints() == 0 and out.GetNumberOfCells() == 0, "%s: output not empty" % words
    messages = t.field(out, "EMSTMessages")
    assert any("Periodic box" in m and words in m for m in messages), "%s: messages %s" % (words, messages)
    assert out.GetCellData().GetArray("CrossesBoundary") is not None, words + ": the empty output lacks CrossesBoundary"
t.passed("bad boxes: errors named, empty outputs")

# ---- MST Clusters: a halo across the corner of the box ---------------------------------------
L = 10.0
halo_size = 400
centre = np.zeros(3)  # the corner: the halo is cut into 8 pieces by the faces
# A ball of radius 0.3 (spacing about 0.07 inside, far below the linking length 0.13), wrapped.
direction = rng.normal(0.0, 1.0, (halo_size, 3))
direction /= np.linalg.norm(direction, axis=1)[:, None]
halo = (centre + 0.3 * rng.random((halo_size, 1)) ** (1.0 / 3.0) * direction) % L
background = rng.random((3000, 3)) * L
cloud = np.concatenate([halo, background])
order = rng.permutation(len(cloud))
cloud = cloud[order]
is_halo = order < halo_size
pipe = c.Pipeline(field_box(t.polydata(cloud), [L]), tree_properties={"PeriodicBoxMode": "From Input"})
b_value = 0.2
points, table, _ = pipe.cut(CutMode="Linking Length", LinkingLength=b_value, MinimumClusterSize=1)
spacing = (L ** 3 / len(cloud)) ** (1.0 / 3.0)
threshold = t.field(points, "ClusterThreshold")
assert abs(threshold - b_value * spacing) <= 1e-12 * threshold, \
    "linking length %.17g, expected b (L^3 / n)^(1/3) = %.17g" % (threshold, b_value * spacing)
bbox_threshold, _, _ = c.linking_threshold(cloud, b_value)
assert abs(bbox_threshold - threshold) > 1e-6 * threshold, "the box and the points' extent give the same V: no test"

# Reference groups: periodic friends-of-friends at that threshold (cKDTree with boxsize).
pairs = cKDTree(cloud, boxsize=L).query_pairs(threshold, output_type="ndarray")
graph = coo_matrix((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(len(cloud), len(cloud)))
_, labels = connected_components(graph, directed=False)
ids, sizes, _, _ = c.ranked(labels)
assert np.array_equal(c.point_array(points, "ClusterId", c.VTK_INT), ids), "ClusterId differs from periodic FoF"
halo_id = np.unique(ids[is_halo])
assert len(halo_id) == 1, "the halo is split into clusters %s" % halo_id
members = ids == halo_id[0]
assert members.sum() >= halo_size, "halo cluster of %d points" % members.sum()
row = int(halo_id[0])
got_size = c.column(table, "Size", c.VTK_ID_TYPE)[row]
assert got_size == members.sum(), "table Size %d, expected %d" % (got_size, members.sum())

# Its centroid and bounds: the members unwrapped around the known centre, the mean moved into the
# box by whole periods, the bounds with it.
unwrapped = centre + minimum_image(cloud[members] - centre, (L, L, L))
mean = unwrapped.mean(0)
shift = L * np.floor(mean / L)
got_centroid = c.column(table, "Centroid", c.VTK_DOUBLE, 3)[row]
got_min = c.column(table, "BoundsMin", c.VTK_DOUBLE, 3)[row]
got_max = c.column(table, "BoundsMax", c.VTK_DOUBLE, 3)[row]
assert np.allclose(got_centroid, mean - shift, rtol=0, atol=1e-9), "centroid %s, expected %s" % (got_centroid, mean - shift)
assert np.allclose(got_min, unwrapped.min(0) - shift, rtol=0, atol=1e-9), "BoundsMin %s" % got_min
assert np.allclose(got_max, unwrapped.max(0) - shift, rtol=0, atol=1e-9), "BoundsMax %s" % got_max
assert np.all(got_max - got_min < 2.0), "the bounds span the box: the halo was not unwrapped"
naive = cloud[members].mean(0)
assert np.linalg.norm(naive - got_centroid) > 1.0, "the plain mean would do: the halo does not cross the faces"
# Every cluster's centroid lies in the box; a cluster that crosses no face has its plain mean.
centroids = c.column(table, "Centroid", c.VTK_DOUBLE, 3)
assert np.all((centroids >= 0) & (centroids < L)), "a centroid outside the box"
flags = numpy_support.vtk_to_numpy(points.GetCellData().GetArray("CrossesBoundary"))
ki, kj, _ = c.lines(points)
assert np.array_equal(flags, np.any(np.abs(cloud[kj] - cloud[ki]) > L / 2, axis=1).astype(np.uint8)), \
    "CrossesBoundary of the kept edges"
assert flags.any(), "no kept edge crosses the box"
assert points.GetFieldData().GetArray("BoxSize") is not None, "MST Clusters does not pass BoxSize on"
t.passed("halo across the corner: one cluster of %d points, centroid %s (plain mean %s), linking length %.6g"
         % (members.sum(), np.round(got_centroid, 4), np.round(naive, 3), threshold))
pipe.delete()

# Without the box the same halo falls apart at the same threshold.
pipe = c.Pipeline(t.polydata(cloud))
points, _, _ = pipe.cut(CutMode="Threshold", Threshold=threshold, MinimumClusterSize=1)
open_ids = c.point_array(points, "ClusterId", c.VTK_INT)
assert len(np.unique(open_ids[is_halo])) >= 8, "without the box the halo should fall into 8 pieces or more"
pipe.delete()
t.passed("without the box the halo falls into %d clusters" % len(np.unique(open_ids[is_halo])))
