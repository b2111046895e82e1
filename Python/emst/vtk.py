# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""The VTK filters of the plugin for the `vtk` wheel and PyVista: the same class names, properties
and output arrays as the C++ module EMSTFilters (docs/filters.md), written in Python over the
same engine (emst._core), as VTK's own Python algorithms are (VTKPythonAlgorithmBase).

    from emst.vtk import vtkEMSTEuclideanMinimumSpanningTree, vtkEMSTClusters
    tree = vtkEMSTEuclideanMinimumSpanningTree()
    tree.SetInputData(cloud)                       # any vtkPointSet: vtkPolyData, pyvista meshes...
    clusters = vtkEMSTClusters()
    clusters.SetInputConnection(tree.GetOutputPort())
    clusters.SetThreshold(0.5)
    clusters.Update()                              # outputs: points with ClusterId, table, histogram

What differs from the C++ filters: the input is one vtkPointSet (no composite data), runs are
serial (no MPI gather), there is no progress or cancel, and the HDBSCAN tree is computed again at
each update. Errors are reported as vtkErrorMacro does (an ErrorEvent to observers, else VTK's
output window) and give an empty, valid output; Update() never raises.

Imports vtk; `import emst` alone does not.
"""

import os
import time

import numpy as np
from vtkmodules.util.numpy_support import numpy_to_vtk, vtk_to_numpy
from vtkmodules.util.vtkAlgorithm import VTKPythonAlgorithmBase
from vtkmodules.vtkCommonCore import (VTK_DOUBLE, VTK_FLOAT, VTK_ID_TYPE, vtkCommand, vtkDoubleArray, vtkIdTypeArray,
                                      vtkIntArray, vtkObject, vtkOutputWindow, vtkPoints,
                                      vtkStringArray)
from vtkmodules.vtkCommonDataModel import (vtkCellArray, vtkDataObject, vtkDataSetAttributes,
                                           vtkPointSet, vtkPolyData, vtkTable)

from . import _core, _points

__all__ = ["vtkEMSTEuclideanMinimumSpanningTree", "vtkEMSTClusters", "vtkEMSTHdbscanClusters"]

AUTO, CUDA, CPU = 0, 1, 2  # the Backend property's values, and those of EMSTBackendId
_BACKEND_NAMES = {AUTO: "auto", CUDA: "cuda", CPU: "cpu"}
_BACKEND_IDS = {"CUDA": CUDA, "CPU": CPU}
# Ghost points left out of the tree: copies of points another piece owns, and blanked points.
_LEFT_OUT_GHOSTS = vtkDataSetAttributes.DUPLICATEPOINT | vtkDataSetAttributes.HIDDENPOINT


def _add_properties(cls, properties):
    """Set<Name>/Get<Name> methods, as vtkSetMacro/vtkSetClampMacro make them: a setter that
    clamps to [lo, hi] and calls Modified() only when the value changes. properties: (name,
    type, default, lo, hi) tuples; bool properties also get <Name>On/Off."""
    for name, kind, default, lo, hi in properties:
        def setter(self, value, name=name, kind=kind, lo=lo, hi=hi):
            value = kind(value)
            if lo is not None and value < lo:
                value = kind(lo)
            if hi is not None and value > hi:
                value = kind(hi)
            old = self._values[name]
            if value != old and not (value != value and old != old):  # NaN == NaN here
                self._values[name] = value
                self.Modified()

        def getter(self, name=name):
            return self._values[name]

        setattr(cls, "Set" + name, setter)
        setattr(cls, "Get" + name, getter)
        if kind is bool:
            setattr(cls, name + "On", lambda self, name=name: getattr(self, "Set" + name)(True))
            setattr(cls, name + "Off", lambda self, name=name: getattr(self, "Set" + name)(False))
    cls._defaults = dict(getattr(cls, "_defaults", {}), **{p[0]: p[2] for p in properties})
    return cls


def _value(field_data, array_type, name, value):
    array = array_type()
    array.SetName(name)
    array.InsertNextValue(value)
    field_data.AddArray(array)


def _strings(field_data, name, values):
    array = vtkStringArray()
    array.SetName(name)
    for value in values:
        array.InsertNextValue(value)
    field_data.AddArray(array)


def _array(values, name, components=1, array_type=None):
    """A VTK array with its own copy of `values`."""
    values = np.ascontiguousarray(values)
    array = numpy_to_vtk(values.reshape(-1, components) if components > 1 else values, deep=1,
                         array_type=array_type)
    array.SetName(name)
    return array


def _empty_array(array_type, name, components=1):
    array = array_type()
    array.SetName(name)
    array.SetNumberOfComponents(components)
    return array


def _lines(edges):
    """One VTK_LINE per row of the (m, 2) point ids `edges`."""
    ends = np.ascontiguousarray(edges, dtype=np.int64).ravel()
    cells = vtkCellArray()
    cells.SetData(_array(np.arange(0, len(ends) + 1, 2, dtype=np.int64), "", array_type=VTK_ID_TYPE),
                  _array(ends, "", array_type=VTK_ID_TYPE))
    return cells


def _described(backend, device):
    """EMSTBackend as the filters write it: "CUDA (<GPU name>)" or "CPU (<n> threads)"."""
    return "CUDA (%s)" % device if backend == "CUDA" else device


def _coordinates(data):
    """The (n, 3) points of a vtkPointSet as a NumPy array over VTK's memory (float32/float64
    points; other types converted), or an empty array."""
    points = data.GetPoints() if data is not None else None
    if points is None or data.GetNumberOfPoints() == 0:
        return np.zeros((0, 3))
    xyz = vtk_to_numpy(points.GetData())
    return xyz if xyz.dtype in (np.float32, np.float64) else xyz.astype(np.float64)


def _ghost_mask(data):
    """True for the points to leave out as ghosts (vtkGhostType DUPLICATEPOINT or HIDDENPOINT);
    None without a usable ghost array."""
    ghosts = data.GetPointData().GetArray(vtkDataSetAttributes.GhostArrayName())
    if (ghosts is None or ghosts.GetNumberOfComponents() != 1
            or ghosts.GetNumberOfTuples() != data.GetNumberOfPoints()):
        return None
    mask = (vtk_to_numpy(ghosts).astype(np.int64) & _LEFT_OUT_GHOSTS) != 0
    return mask if mask.any() else None


class _Cloud:
    """The points the engine gets, as the C++ filters prepare them: ghost points left out (a
    copy, with the input id of each engine point), 2D when every z is the same (a row view, no
    copy), and EMSTInput's description."""

    def __init__(self, data):
        xyz = _coordinates(data)
        self.count = len(xyz)
        ghosts = _ghost_mask(data) if self.count else None
        self.ghost_points = int(ghosts.sum()) if ghosts is not None else 0
        self.ids = np.flatnonzero(~ghosts) if ghosts is not None else None  # None: all points
        points = xyz[self.ids] if self.ids is not None else xyz
        converted = self.count > 0 and data.GetPoints().GetDataType() not in (VTK_FLOAT, VTK_DOUBLE)
        copied = self.ids is not None or converted
        z = points[:, 2] if len(points) else np.zeros(0)
        planar = len(z) > 0 and bool((z == z[0]).all())
        self.points = points[:, :2] if planar else points
        self.input_path = "%s %s %s" % ("copied" if copied else "zero-copy",
                                        "float32" if points.dtype == np.float32 else "float64",
                                        "2D (all z = %g)" % z[0] if planar else "3D")
        if self.ghost_points:
            self.input_path += ", %d ghost points left out" % self.ghost_points

    def output_ids(self, engine_ids):
        """Input point ids of engine point ids."""
        return self.ids[engine_ids] if self.ids is not None else engine_ids

    def spread(self, values, fill, dtype):
        """Per-point values of the engine points as an array over all input points."""
        if self.ids is None:
            return np.asarray(values, dtype)
        out = np.full(self.count, fill, dtype)
        out[self.ids] = values
        return out


class _Algorithm(VTKPythonAlgorithmBase):
    """What the three filters share: properties, the backend choice, and errors and warnings
    reported as vtkErrorMacro/vtkWarningMacro do, never raised through Update()."""

    def __init__(self, input_type, output_types):
        VTKPythonAlgorithmBase.__init__(self, nInputPorts=1, inputType=input_type,
                                        nOutputPorts=len(output_types), outputType=output_types[0])
        self._output_types = output_types
        self._values = dict(self._defaults)

    def FillOutputPortInformation(self, port, info):
        info.Set(vtkDataObject.DATA_TYPE_NAME(), self._output_types[port])
        return 1

    # What vtkPolyDataAlgorithm adds to vtkAlgorithm: the C++ filters' pipeline methods.
    def SetInputData(self, *args):
        """SetInputData(data) or SetInputData(port, data)."""
        self.SetInputDataObject(*args)

    def AddInputData(self, *args):
        self.AddInputDataObject(*args)

    def GetInput(self, port=0):
        return self.GetInputDataObject(port, 0)

    def GetOutput(self, port=0):
        return self.GetOutputDataObject(port)

    def SetBackendToAuto(self):
        self.SetBackend(AUTO)

    def SetBackendToCUDA(self):
        self.SetBackend(CUDA)

    def SetBackendToCPU(self):
        self.SetBackend(CPU)

    def _report(self, event, kind, message):
        text = "%s: In emst.vtk\n%s (%s): %s\n\n" % (kind, type(self).__name__,
                                                     self.GetAddressAsString("vtkObject"), message)
        if self.HasObserver(event):
            self.InvokeEvent(event, text)
        elif vtkObject.GetGlobalWarningDisplay():
            window = vtkOutputWindow.GetInstance()
            (window.DisplayErrorText if kind == "ERROR" else window.DisplayWarningText)(text)

    def _error(self, message):
        self._report(vtkCommand.ErrorEvent, "ERROR", message)

    def _warning(self, message):
        self._report(vtkCommand.WarningEvent, "Warning", message)

    def _backend(self, messages):
        """The Backend property, or EMST_BACKEND when it is Auto and set (as the C++ filters)."""
        backend = self.GetBackend()
        chosen = os.environ.get("EMST_BACKEND", "")
        if backend != AUTO or not chosen:
            return backend
        names = {"auto": AUTO, "cuda": CUDA, "gpu": CUDA, "cpu": CPU}
        if chosen.strip().lower() in names:
            return names[chosen.strip().lower()]
        warning = ("EMST_BACKEND='%s' is not one of auto, cuda, gpu, cpu: ignored, the Auto backend "
                   "is used." % chosen)
        self._warning(warning)
        messages.append(warning)
        return AUTO

    def RequestData(self, request, inInfo, outInfo):
        outputs = [self.GetOutputData(outInfo, port) for port in range(len(self._output_types))]
        for table in outputs[1:]:
            table.Initialize()  # the tables of an earlier run must not outlive it
        messages = []
        try:
            self._execute(self.GetInputData(inInfo, 0, 0), outputs, messages)
        except Exception as error:  # reported, never raised through Update()
            text = str(error) if getattr(error, "code", None) else "%s: %s" % (
                type(error).__name__, error)
            self._error(text)
            for table in outputs[1:]:
                table.Initialize()
            self._make_empty(outputs, "none (error)", messages + ["error: " + text])
        return 1


def _shallow_points(output, data):
    """The input's points and point arrays, shared with it (as vtkEMSTGather::Append)."""
    output.Initialize()
    output.SetPoints(data.GetPoints())
    output.GetPointData().ShallowCopy(data.GetPointData())


def _empty_polydata(output):
    output.Initialize()
    output.SetPoints(vtkPoints())
    output.SetLines(vtkCellArray())


def _tree_fields(output, total, backend, backend_id, milliseconds, in_tree, input_path, messages):
    fd = output.GetFieldData()
    _value(fd, vtkDoubleArray, "TotalLength", total)
    _value(fd, vtkStringArray, "EMSTBackend", backend)
    _value(fd, vtkIntArray, "EMSTBackendId", backend_id)
    _value(fd, vtkDoubleArray, "EMSTComputeMilliseconds", milliseconds)
    _value(fd, vtkIdTypeArray, "EMSTPointsInTree", in_tree)
    _value(fd, vtkStringArray, "EMSTInput", input_path)
    _strings(fd, "EMSTMessages", messages)


def _cluster_table(table, xyz, labels, sizes, first_point):
    """ClusterId, Size, Centroid, BoundsMin, BoundsMax, FirstPoint of each cluster (rows in id
    order), from the points' labels (as vtkEMSTClusterTable)."""
    k = len(sizes)
    inside = labels >= 0
    p = np.asarray(xyz, np.float64)[inside]
    c = labels[inside]
    centroid = np.stack([np.bincount(c, p[:, a], minlength=k) for a in range(3)], axis=1) \
        / np.maximum(np.asarray(sizes, np.float64), 1)[:, None]
    lo = np.full((k, 3), np.inf)
    hi = np.full((k, 3), -np.inf)
    np.minimum.at(lo, c, p)
    np.maximum.at(hi, c, p)
    table.AddColumn(_array(np.arange(k, dtype=np.int32), "ClusterId"))
    table.AddColumn(_array(np.asarray(sizes, np.int64), "Size", array_type=VTK_ID_TYPE))
    table.AddColumn(_array(centroid, "Centroid", 3))
    table.AddColumn(_array(lo, "BoundsMin", 3))
    table.AddColumn(_array(hi, "BoundsMax", 3))
    table.AddColumn(_array(np.asarray(first_point, np.int64), "FirstPoint", array_type=VTK_ID_TYPE))


class vtkEMSTEuclideanMinimumSpanningTree(_Algorithm):
    """The exact Euclidean minimum spanning tree of a vtkPointSet's points: a vtkPolyData with
    the input points and point arrays, one line per edge (shortest first), the cell array
    EdgeLength (active) and the field data TotalLength, EMSTBackend, EMSTBackendId,
    EMSTComputeMilliseconds, EMSTPointsInTree, EMSTInput, EMSTMessages. Non-finite points and
    ghost points (vtkGhostType DUPLICATEPOINT or HIDDENPOINT) are kept without edges. Property
    Backend: AUTO (0, EMST_BACKEND when set, else the GPU when usable), CUDA (1), CPU (2)."""

    AUTO, CUDA, CPU = AUTO, CUDA, CPU

    def __init__(self):
        _Algorithm.__init__(self, "vtkPointSet", ["vtkPolyData"])

    def _make_empty(self, outputs, backend, messages):
        output = outputs[0]
        _empty_polydata(output)
        output.GetCellData().AddArray(_empty_array(vtkDoubleArray, "EdgeLength"))
        _tree_fields(output, 0.0, backend, AUTO, 0.0, 0, "", messages)

    def _execute(self, data, outputs, messages):
        output = outputs[0]
        backend = self._backend(messages)
        if data is None or data.GetNumberOfPoints() == 0:
            self._make_empty(outputs, "none (no points)", messages)
            return
        cloud = _Cloud(data)
        edges, lengths, info = _core.tree(_points(cloud.points), _BACKEND_NAMES[backend])
        edges = cloud.output_ids(edges)
        for message in info["messages"]:
            if "finite" in message:
                self._warning(message)
        messages.extend(info["messages"])
        if cloud.ghost_points:
            messages.append("%d ghost points (vtkGhostType) left out of the tree." % cloud.ghost_points)
        _shallow_points(output, data)
        output.SetLines(_lines(edges))
        output.GetCellData().AddArray(_array(lengths, "EdgeLength"))
        output.GetCellData().SetActiveScalars("EdgeLength")
        _tree_fields(output, info["total_length"], _described(info["backend"], info["device"]),
                     _BACKEND_IDS[info["backend"]], info["compute_milliseconds"],
                     info["valid_points"], cloud.input_path, messages)


_add_properties(vtkEMSTEuclideanMinimumSpanningTree, [("Backend", int, AUTO, AUTO, CPU)])


def _tree_edges(tree, lengths):
    """The edges (m, 2) and lengths (m,) of a vtkPolyData's line cells (a polyline gives one edge
    per segment): the lengths from `lengths` (one value per cell, vertices first) when every line
    is one edge, else from the points."""
    lines = tree.GetLines()
    cells = lines.GetNumberOfCells() if lines is not None else 0
    if cells == 0:
        return np.zeros((0, 2), np.int64), np.zeros(0)
    ends = vtk_to_numpy(lines.GetConnectivityArray()).astype(np.int64)
    offsets = vtk_to_numpy(lines.GetOffsetsArray()).astype(np.int64)
    segment = np.ones(max(len(ends) - 1, 0), bool)  # ends[p], ends[p + 1] in one cell
    starts = offsets[1:-1]
    segment[starts[(starts >= 1) & (starts <= len(segment))] - 1] = False
    p = np.flatnonzero(segment)
    a, b = ends[p], ends[p + 1]
    n = tree.GetNumberOfPoints()
    bad = (a < 0) | (b < 0) | (a >= n) | (b >= n)
    if bad.any():
        cell = int(np.searchsorted(offsets, p[np.argmax(bad)], side="right") - 1)
        raise ValueError("line %d refers to a point that does not exist" % cell)
    first_line = tree.GetNumberOfVerts()
    if (lengths is not None and lengths.GetNumberOfComponents() == 1
            and lengths.GetNumberOfTuples() >= first_line + cells and len(ends) == 2 * cells):
        length = vtk_to_numpy(lengths).astype(np.float64)[first_line:first_line + cells]
    else:
        xyz = _coordinates(tree).astype(np.float64)
        d = xyz[a] - xyz[b]
        scale = np.abs(d).max(axis=1)  # scaled before squaring: no overflow or underflow
        safe = np.where(scale > 0, scale, 1.0)
        length = scale * np.sqrt(((d / safe[:, None]) ** 2).sum(axis=1))
    return np.stack([np.minimum(a, b), np.maximum(a, b)], axis=1), length


def _linking_threshold(xyz, b):
    """b times the mean inter-particle spacing (V / n)^(1/d) of the finite points, V the volume
    of their bounding box in the d axes where it has extent, taken apart in mantissas and
    exponents so that no range of coordinates overflows (as the C++ filter)."""
    p = np.asarray(xyz, np.float64)
    p = p[np.isfinite(p).all(axis=1)]
    if len(p) == 0:
        return 0.0
    extent = p.max(axis=0) - p.min(axis=0)
    extent = extent[extent > 0]
    if len(extent) == 0:
        return 0.0
    mantissas, exponents = np.frexp(extent)
    mantissa, exponent, d = float(np.prod(mantissas)), int(exponents.sum()), len(extent)
    q = exponent // d
    r = exponent - q * d
    return b * float(np.ldexp((np.ldexp(mantissa, r) / len(p)) ** (1.0 / d), q))


class vtkEMSTClusters(_Algorithm):
    """Single-linkage (friends-of-friends) clusters: a cut of the tree filter's output (any
    vtkPolyData whose lines form a tree or forest; lengths from the input array to process, by
    default the active cell scalars EdgeLength, else from the points). Properties CutMode
    (THRESHOLD 0, LINKING_LENGTH 1, NUMBER_OF_CLUSTERS 2), Threshold (edges longer than it are
    cut; negative or NaN: the middle of the edge lengths), LinkingLength, NumberOfClusters,
    MinimumClusterSize, HistogramBins, Backend. Outputs: 0 the points with ClusterId (0 = largest,
    -1 noise) and ClusterSize, the kept edges with EdgeLength; 1 the cluster table; 2 the
    edge-length histogram. The tree is handed to the engine once per input: a new threshold runs
    only the cut (GetTreeUploads counts the hand-overs)."""

    AUTO, CUDA, CPU = AUTO, CUDA, CPU
    THRESHOLD, LINKING_LENGTH, NUMBER_OF_CLUSTERS = 0, 1, 2

    def __init__(self):
        _Algorithm.__init__(self, "vtkPolyData", ["vtkPolyData", "vtkTable", "vtkTable"])
        self.SetInputArrayToProcess(0, 0, 0, vtkDataObject.FIELD_ASSOCIATION_CELLS,
                                    vtkDataSetAttributes.SCALARS)
        self._cache = None  # (key, cutter, point of each leaf or None, points in the input)
        self._uploads = 0

    def _input_array(self, data):
        """The input array to process 0 (vtkAlgorithm::GetInputArrayToProcess is not wrapped):
        a point or cell array chosen by name or by attribute type."""
        info = self.GetInputArrayInformation(0)
        association = info.Get(vtkDataObject.FIELD_ASSOCIATION())
        if association == vtkDataObject.FIELD_ASSOCIATION_CELLS:
            arrays = data.GetCellData()
        elif association == vtkDataObject.FIELD_ASSOCIATION_POINTS:
            arrays = data.GetPointData()
        else:
            return None
        if info.Has(vtkDataObject.FIELD_NAME()):
            return arrays.GetArray(info.Get(vtkDataObject.FIELD_NAME()))
        if info.Has(vtkDataObject.FIELD_ATTRIBUTE_TYPE()):
            return arrays.GetAttribute(info.Get(vtkDataObject.FIELD_ATTRIBUTE_TYPE()))
        return None

    def GetTreeUploads(self):
        return self._uploads

    def _make_empty(self, outputs, backend, messages, threshold=0.0):
        output = outputs[0]
        _empty_polydata(output)
        output.GetPointData().AddArray(_empty_array(vtkIntArray, "ClusterId"))
        output.GetPointData().AddArray(_empty_array(vtkIdTypeArray, "ClusterSize"))
        output.GetCellData().AddArray(_empty_array(vtkDoubleArray, "EdgeLength"))
        self._fields(output, threshold, 0, 0, backend, 0.0, messages)

    @staticmethod
    def _fields(output, threshold, clusters, noise, backend, milliseconds, messages):
        fd = output.GetFieldData()
        _value(fd, vtkDoubleArray, "ClusterThreshold", threshold)
        _value(fd, vtkIdTypeArray, "NumberOfClusters", clusters)
        _value(fd, vtkIdTypeArray, "NoisePoints", noise)
        _value(fd, vtkStringArray, "ClusterBackend", backend)
        _value(fd, vtkDoubleArray, "ClusterCutMilliseconds", milliseconds)
        _strings(fd, "ClusterMessages", messages)

    def _tree(self, data, lengths, backend):
        """The engine's cutter of `data`'s tree, kept while the input, its lengths and the
        backend stay; with the input point of each cutter point (None: all points are in it)."""
        key = (data.GetAddressAsString("vtkObject"), data.GetMTime(),
               lengths.GetAddressAsString("vtkObject") if lengths is not None else None,
               lengths.GetMTime() if lengths is not None else 0, backend)
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1], self._cache[2]
        self._cache = None
        edges, length = _tree_edges(data, lengths)
        # The points in the tree, as the tree filter decides: finite, not ghost; and any point a
        # line touches (a forest from elsewhere).
        n = data.GetNumberOfPoints()
        leaf = np.isfinite(_coordinates(data)).all(axis=1)
        ghosts = _ghost_mask(data)
        if ghosts is not None:
            leaf &= ~ghosts
        leaf[edges.ravel()] = True
        point_of_leaf = None if leaf.all() else np.flatnonzero(leaf)
        if point_of_leaf is not None:
            edges = (np.cumsum(leaf) - 1)[edges]  # an increasing map: the order is kept
        cutter = _core.TreeCutter(n if point_of_leaf is None else len(point_of_leaf),
                                  np.ascontiguousarray(edges), np.ascontiguousarray(length),
                                  _BACKEND_NAMES[backend])
        for message in cutter.messages():
            self._warning(message)  # once per tree, not at every new threshold
        self._cache = (key, cutter, point_of_leaf)
        self._uploads += 1
        return cutter, point_of_leaf

    def _execute(self, data, outputs, messages):
        output, table, histogram = outputs
        backend = self._backend(messages)
        if backend == AUTO:
            # A tree from the CPU is cut on the CPU; one from the GPU where a GPU is usable.
            origin = data.GetFieldData().GetArray("EMSTBackendId") if data is not None else None
            if origin is not None and origin.GetNumberOfTuples() > 0 and int(origin.GetTuple1(0)) == CPU:
                backend = CPU
        if data is None or data.GetPoints() is None:
            threshold = self.GetThreshold()
            self._make_empty(outputs, "none (no points)", messages,
                             threshold if self.GetCutMode() == self.THRESHOLD and threshold >= 0 else 0.0)
            return
        lengths = self._input_array(data)
        if data.GetNumberOfLines() > 0 and lengths is None:
            messages.append("no edge length array: lengths computed from the points")
        cutter, point_of_leaf = self._tree(data, lengths, backend)
        messages.extend(cutter.messages())
        n = data.GetNumberOfPoints()
        leaves = n if point_of_leaf is None else len(point_of_leaf)
        if leaves < n:
            messages.append("%d points are not in the tree (non-finite coordinates or ghosts): "
                            "ClusterId -1, ClusterSize 0, in no cluster (counted in NoisePoints)"
                            % (n - leaves))
        sorted_edges, sorted_lengths = cutter.sorted_edges()
        edge_count = len(sorted_lengths)

        mode = self.GetCutMode()
        if mode == self.LINKING_LENGTH:
            b = self.GetLinkingLength()
            if b != b:
                b = 0.2
                messages.append("LinkingLength is NaN: ignored, the default b = 0.2 is used")
            elif b < 0:
                messages.append("LinkingLength %.17g is negative: b = 0 is used" % b)
                b = 0.0
            threshold = _linking_threshold(_coordinates(data), b)
            kept = cutter.edges_at_most(threshold)
        elif mode == self.NUMBER_OF_CLUSTERS:
            k = self.GetNumberOfClusters()
            if k < 1:
                messages.append("NumberOfClusters %d is below 1: 1 is used" % k)
                k = 1
            elif k > leaves > 0:
                messages.append("NumberOfClusters %d exceeds the %d points: every point is a "
                                "group of its own" % (k, leaves))
            kept = cutter.edges_for_groups(k)
            threshold = float(sorted_lengths[kept - 1]) if kept > 0 else 0.0
            if leaves - kept > k and leaves > 0:
                messages.append("the input forest has more components than NumberOfClusters: "
                                "%d groups" % (leaves - kept))
        else:
            threshold = self.GetThreshold()
            if not threshold >= 0.0:  # negative (the default: not set) or NaN
                middle = (0.5 * (sorted_lengths[0] + sorted_lengths[-1])) if edge_count else 0.0
                messages.append(("Threshold is NaN: ignored" if threshold != threshold else
                                 "Threshold %.17g is negative: not set" % threshold)
                                + "; the cut is at the middle of the edge lengths, %.17g" % middle)
                threshold = float(middle)
            kept = cutter.edges_at_most(threshold)
        minimum = self.GetMinimumClusterSize()
        if minimum < 1:
            messages.append("MinimumClusterSize %d is below 1: 1 is used" % minimum)
            minimum = 1
        elif minimum > leaves > 0:
            messages.append("MinimumClusterSize %d exceeds the %d points: every point is noise"
                            % (minimum, leaves))

        ids, group_size, sizes, first, noise, milliseconds = cutter.cut(kept, minimum)
        first_point = first if point_of_leaf is None else point_of_leaf[first]
        kept_edges = sorted_edges[:kept] if point_of_leaf is None else point_of_leaf[sorted_edges[:kept]]
        cluster_id = np.full(n, -1, np.int32) if point_of_leaf is not None else ids
        cluster_size = np.zeros(n, np.int64) if point_of_leaf is not None else group_size
        if point_of_leaf is not None:
            cluster_id[point_of_leaf] = ids
            cluster_size[point_of_leaf] = group_size

        _shallow_points(output, data)
        output.GetPointData().AddArray(_array(cluster_id, "ClusterId"))
        output.GetPointData().AddArray(_array(cluster_size, "ClusterSize", array_type=VTK_ID_TYPE))
        output.GetPointData().SetActiveScalars("ClusterId")
        output.SetLines(_lines(kept_edges))
        output.GetCellData().AddArray(_array(sorted_lengths[:kept], "EdgeLength"))
        backend_text = ("CUDA (%s)" % cutter.device()) if cutter.backend() == "CUDA" else "CPU"
        self._fields(output, threshold, len(sizes), noise + (n - leaves), backend_text,
                     milliseconds, messages)

        # Output 1: the cluster table, with the longest kept edge inside each cluster.
        xyz = _coordinates(data)
        _cluster_table(table, xyz, cluster_id, sizes, first_point)
        longest = np.zeros(len(sizes))
        inside = cluster_id[kept_edges[:, 0]] if kept else np.zeros(0, np.int32)
        np.maximum.at(longest, inside[inside >= 0], sorted_lengths[:kept][inside >= 0])
        first_column = table.GetColumnByName("FirstPoint")
        table.RemoveColumnByName("FirstPoint")
        table.AddColumn(_array(longest, "LongestEdge"))
        table.AddColumn(first_column)

        # Output 2: the edge-length histogram: equal bins over [0, longest edge].
        bins = self.GetHistogramBins()
        top = float(sorted_lengths[-1]) if edge_count else 0.0
        width = top / bins
        lo = np.arange(bins) * width
        hi = np.append(np.arange(1, bins) * width, top)
        up_to = np.searchsorted(sorted_lengths, hi, side="right")
        for values, name, array_type in (
                (0.5 * (lo + hi), "EdgeLength", None), (lo, "BinStart", None), (hi, "BinEnd", None),
                (np.diff(up_to, prepend=0), "EdgeCount", VTK_ID_TYPE),
                (leaves - up_to, "ClustersAtBinEnd", VTK_ID_TYPE)):
            histogram.AddColumn(_array(np.asarray(values), name, array_type=array_type))


_add_properties(vtkEMSTClusters, [
    ("CutMode", int, 0, 0, 2), ("Threshold", float, -1.0, None, None),
    ("LinkingLength", float, 0.2, None, None), ("NumberOfClusters", int, 10, None, None),
    ("MinimumClusterSize", int, 1, None, None), ("HistogramBins", int, 100, 1, 1000000),
    ("Backend", int, AUTO, AUTO, CPU)])


class vtkEMSTHdbscanClusters(_Algorithm):
    """HDBSCAN* clusters of a vtkPointSet's points (scikit-learn's conventions). Properties
    MinimumSamples (1 to 256), MinimumClusterSize (at least 2), ClusterSelectionMethod
    (EXCESS_OF_MASS 0, LEAF 1), ClusterSelectionEpsilon, AllowSingleCluster, Backend. Outputs:
    0 the points with ClusterId (0 = largest, -1 noise), Probability, OutlierScore and
    CoreDistance, the mutual reachability tree as lines with MutualReachability; 1 the cluster
    table; 2 the condensed tree. Non-finite and ghost points are noise (probability 0, outlier
    score NaN)."""

    AUTO, CUDA, CPU = AUTO, CUDA, CPU
    EXCESS_OF_MASS, LEAF = 0, 1

    def __init__(self):
        _Algorithm.__init__(self, "vtkPointSet", ["vtkPolyData", "vtkTable", "vtkTable"])

    def _make_empty(self, outputs, backend, messages):
        output, table, condensed = outputs
        _empty_polydata(output)
        for name in ("Probability", "OutlierScore", "CoreDistance"):
            output.GetPointData().AddArray(_empty_array(vtkDoubleArray, name))
        output.GetPointData().AddArray(_empty_array(vtkIntArray, "ClusterId"))
        output.GetCellData().AddArray(_empty_array(vtkDoubleArray, "MutualReachability"))
        self._fields(output, 0, 0, 0.0, backend, AUTO, 0.0, 0.0, messages)
        table.Initialize()
        condensed.Initialize()

    @staticmethod
    def _fields(output, clusters, noise, total, backend, backend_id, compute, extract, messages):
        fd = output.GetFieldData()
        _value(fd, vtkIdTypeArray, "NumberOfClusters", clusters)
        _value(fd, vtkIdTypeArray, "NoisePoints", noise)
        _value(fd, vtkDoubleArray, "TotalLength", total)
        _value(fd, vtkStringArray, "EMSTBackend", backend)
        _value(fd, vtkIntArray, "EMSTBackendId", backend_id)
        _value(fd, vtkDoubleArray, "EMSTComputeMilliseconds", compute)
        _value(fd, vtkDoubleArray, "HDBSCANExtractMilliseconds", extract)
        _strings(fd, "EMSTMessages", messages)

    def _execute(self, data, outputs, messages):
        output, table, condensed = outputs
        backend = self._backend(messages)
        if data is None or data.GetNumberOfPoints() == 0:
            self._make_empty(outputs, "none (no points)", messages)
            return
        cloud = _Cloud(data)
        start = time.perf_counter()
        r = _core.hdbscan_details(
            _points(cloud.points), self.GetMinimumSamples(), self.GetMinimumClusterSize(),
            "leaf" if self.GetClusterSelectionMethod() == self.LEAF else "eom",
            self.GetClusterSelectionEpsilon(), self.GetAllowSingleCluster(), _BACKEND_NAMES[backend])
        extract = (time.perf_counter() - start) * 1e3 - r["compute_milliseconds"]
        for message in r["messages"]:
            if "finite" in message:
                self._warning(message)
        messages.extend(r["messages"])
        if cloud.ghost_points:
            messages.append("%d ghost points (vtkGhostType) left out of the tree." % cloud.ghost_points)

        n, tree_points = cloud.count, len(cloud.points)
        labels = cloud.spread(r["labels"], -1, np.int32)
        _shallow_points(output, data)
        pd = output.GetPointData()
        pd.AddArray(_array(labels, "ClusterId"))
        pd.AddArray(_array(cloud.spread(r["probabilities"], 0.0, np.float64), "Probability"))
        pd.AddArray(_array(cloud.spread(r["outlier_scores"], np.nan, np.float64), "OutlierScore"))
        pd.AddArray(_array(cloud.spread(r["core_distance"], np.nan, np.float64), "CoreDistance"))
        pd.SetActiveScalars("ClusterId")
        output.SetLines(_lines(cloud.output_ids(r["edges"])))
        output.GetCellData().AddArray(_array(r["lengths"], "MutualReachability"))
        noise = int((labels == -1).sum())
        self._fields(output, len(r["size"]), noise, r["total_length"],
                     _described(r["backend"], r["device"]), _BACKEND_IDS[r["backend"]],
                     r["compute_milliseconds"], max(extract, 0.0), messages)

        # Output 1: the cluster table; output 2: the condensed tree, with tree points as input
        # point ids and clusters numbered from n (the input's point count) on.
        def node(ids):
            ids = np.asarray(ids, np.int64)
            return np.where(ids < tree_points, cloud.output_ids(np.minimum(ids, tree_points - 1)),
                            n + ids - tree_points)

        _cluster_table(table, _coordinates(data), labels, r["size"], cloud.output_ids(r["first_point"]))
        for key, name in (("stability", "Stability"), ("birth_lambda", "BirthLambda"),
                          ("death_lambda", "DeathLambda")):
            table.AddColumn(_array(r[key], name))
        table.AddColumn(_array(n + r["node"] - tree_points, "CondensedNode", array_type=VTK_ID_TYPE))
        condensed.AddColumn(_array(node(r["condensed_parent"]), "Parent", array_type=VTK_ID_TYPE))
        condensed.AddColumn(_array(node(r["condensed_child"]), "Child", array_type=VTK_ID_TYPE))
        condensed.AddColumn(_array(r["condensed_lambda"], "Lambda"))
        condensed.AddColumn(_array(r["condensed_size"], "Size", array_type=VTK_ID_TYPE))


_add_properties(vtkEMSTHdbscanClusters, [
    ("MinimumClusterSize", int, 5, 2, None), ("MinimumSamples", int, 5, 1, 256),
    ("ClusterSelectionMethod", int, 0, 0, 1), ("ClusterSelectionEpsilon", float, 0.0, 0.0, None),
    ("AllowSingleCluster", bool, False, None, None), ("Backend", int, AUTO, AUTO, CPU)])
