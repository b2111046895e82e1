# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""The Threshold slider: MST Clusters' Threshold property has an ArrayRangeDomain named "range"
whose minimum and maximum are the tree's EdgeLength range, fed by the input-array property
SelectInputArray (default: the cell array EdgeLength), and it follows the data when the cloud
changes (as ParaView's own Threshold filter's range does after the pipeline updates). Both in the
GUI's order (the tree updated, then MST Clusters added) and in a script's (both created, then one
update), where the default must come from the XML since the input has no data yet (checked for
Single Linkage Hierarchy's SelectInputArray too): Threshold then stays -1 (not set) and the cut is
at the middle of the edge lengths, with a note. A threshold the user sets is used as given, 0
included (MSTClusters(Input=tree, Threshold=0.0) once gave the slider's middle, since 0 was the XML
default, which the domain replaces)."""
import numpy as np

import clusters_testing as c
import emst_testing as t

args = t.arguments()
simple = c.load(args.plugin)
rng = np.random.default_rng(11)


def domain_range(proxy):
    prop = proxy.GetProperty("Threshold")
    assert prop is not None, "MSTClusters has no Threshold property"
    domain = prop.SMProperty.GetDomain("range")
    assert domain is not None, "the Threshold property has no domain named 'range'"
    assert domain.IsA("vtkSMArrayRangeDomain"), "the 'range' domain is a %s, not a vtkSMArrayRangeDomain" % domain.GetClassName()
    assert domain.GetMinimumExists(0) and domain.GetMaximumExists(0), "the 'range' domain has no minimum/maximum"
    return domain.GetMinimum(0), domain.GetMaximum(0)


def selection(proxy, label):
    """SelectInputArray's (association, name): elements 3 and 4 of SetInputArrayToProcess."""
    prop = proxy.GetProperty("SelectInputArray")
    assert prop is not None, "MSTClusters has no SelectInputArray property"
    sm = prop.SMProperty
    elements = [sm.GetElement(k) for k in range(sm.GetNumberOfElements())]
    assert len(elements) == 5 and elements[3:] == ["1", "EdgeLength"], \
        "%s: SelectInputArray is %r, expected the cell (1) array EdgeLength in elements 3 and 4" % (label, elements)
    return elements


def check_range(proxy, length, label):
    got = domain_range(proxy)
    expected = (float(length.min()), float(length.max()))
    assert got == expected, "%s: Threshold range %r, the tree's EdgeLength range %r" % (label, got, expected)
    t.passed("%s: Threshold range %r = EdgeLength range" % (label, got))


xyz, arrays = t.sample_points(args.sample)
pipe = c.Pipeline(t.polydata(xyz, arrays))  # the GUI's order: the tree is updated before MST Clusters exists
selection(pipe.clusters, "sample, tree updated first")
pipe.clusters.UpdatePipeline()
_, _, length = t.edges(pipe.tree_output())
check_range(pipe.clusters, length, "sample, tree updated first")

# A script's order: source, tree and MST Clusters created, then one update.
producer = simple.TrivialProducer()
producer.GetClientSideObject().SetOutput(t.polydata(xyz, arrays))
tree = simple.EuclideanMinimumSpanningTree(Input=producer)
clusters = simple.MSTClusters(Input=tree)
hierarchy = simple.SingleLinkageHierarchy(Input=tree)
selection(clusters, "sample, created before any update")
selection(hierarchy, "SingleLinkageHierarchy created before any update")
clusters.UpdatePipeline()
notes = clusters.GetClientSideObject().GetOutputDataObject(0).GetFieldData().GetAbstractArray("ClusterMessages")
messages = [notes.GetValue(k) for k in range(notes.GetNumberOfValues())] if notes is not None else []
assert not any("computed from the points" in m for m in messages), \
    "created before any update: the filter did not use the EdgeLength array (ClusterMessages %r)" % (messages,)
check_range(clusters, length, "sample, created before any update")
# Created before any update, the domain has no range: Threshold keeps its XML default, -1 (not
# set), and the cut is at the middle of the edge lengths, the value the slider would start at.
assert clusters.Threshold == -1.0, "created before any update: Threshold %r, expected the XML default -1" % clusters.Threshold
cut = clusters.GetClientSideObject().GetOutputDataObject(0)
middle = 0.5 * (float(length.min()) + float(length.max()))
got = t.field(cut, "ClusterThreshold")
assert got == middle, "Threshold not set: ClusterThreshold %.17g, the middle of the edge lengths %.17g" % (got, middle)
notes = c.notes(cut)
assert any("not set" in m for m in notes), "Threshold not set: no note in ClusterMessages %r" % (notes,)
t.passed("created before any update: Threshold -1 (not set), cut at the middle %.17g, noted" % middle)
for proxy in (hierarchy, clusters, tree, producer):
    simple.Delete(proxy)

# A threshold the user sets is the one used, 0 included (0 is no longer the XML default that the
# domain replaces by its middle): pvpython's keyword and attribute, and no keyword at all (the
# slider's middle).
tree_out = pipe.tree_output()
i, j, length = t.edges(tree_out)
n = tree_out.GetNumberOfPoints()
lo, hi = domain_range(pipe.clusters)
for keywords, expected in (({"Threshold": 0.0}, 0.0), ({}, 0.5 * (lo + hi)), ({"Threshold": float(length[7])}, float(length[7]))):
    clusters = simple.MSTClusters(Input=pipe.tree, **keywords)
    assert clusters.Threshold == expected, "MSTClusters(%r): Threshold %r, expected %r" % (keywords, clusters.Threshold, expected)
    clusters.UpdatePipeline()
    cut = clusters.GetClientSideObject().GetOutputDataObject(0)
    got = t.field(cut, "ClusterThreshold")
    groups = n - int(np.count_nonzero(length <= expected))  # the tree's edges kept by the cut
    assert got == expected and int(t.field(cut, "NumberOfClusters")) == groups, \
        "MSTClusters(%r): cut at %.17g into %d clusters, expected %.17g and %d" % (
            keywords, got, int(t.field(cut, "NumberOfClusters")), expected, groups)
    t.passed("MSTClusters(Input=tree, %s): Threshold %.17g used, %d clusters" % (
        ", ".join("%s=%r" % kv for kv in keywords.items()) or "no Threshold", expected, groups))
    simple.Delete(clusters)
clusters = simple.MSTClusters(Input=pipe.tree)
clusters.Threshold = 0.0  # an attribute set after creation: the same
clusters.UpdatePipeline()
assert t.field(clusters.GetClientSideObject().GetOutputDataObject(0), "ClusterThreshold") == 0.0
simple.Delete(clusters)
t.passed("clusters.Threshold = 0.0 after creation: cut at 0")

# New data through the same pipeline: the range follows after the update.
for scale in (0.001, 250.0):
    cloud = (rng.random((3000, 3)) * scale).astype(np.float32)
    pipe.producer.GetClientSideObject().SetOutput(t.polydata(cloud))
    pipe.producer.MarkModified(pipe.producer)
    pipe.clusters.UpdatePipeline()
    _, _, length = t.edges(pipe.tree_output())
    expected = (float(length.min()), float(length.max()))
    got = domain_range(pipe.clusters)
    assert got == expected, "after new data (scale %g): Threshold range %r, EdgeLength range %r" % (scale, got, expected)
    t.passed("new data, scale %g: Threshold range %r follows the tree" % (scale, got))
pipe.delete()
