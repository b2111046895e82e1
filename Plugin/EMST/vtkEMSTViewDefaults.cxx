// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
#include "vtkEMSTViewDefaults.h"

#include "vtkCallbackCommand.h"
#include "vtkCommand.h"
#include "vtkDataObject.h"
#include "vtkPVArrayInformation.h"
#include "vtkPVDataInformation.h"
#include "vtkProcessModule.h"
#include "vtkSMDoubleVectorProperty.h"
#include "vtkSMEnumerationDomain.h"
#include "vtkSMIntVectorProperty.h"
#include "vtkSMPropertyHelper.h"
#include "vtkSMProxyIterator.h"
#include "vtkSMProxyManager.h"
#include "vtkSMSessionProxyManager.h"
#include "vtkSMSettings.h"
#include "vtkSMSourceProxy.h"
#include "vtkSMStringVectorProperty.h"
#include "vtkSMTransferFunctionProxy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace
{
// The filters' XML names and the arrays they write (EMST.xml, Filters/vtkEMSTClusters.h).
const char* const TreeFilter = "EuclideanMinimumSpanningTree";
const char* const ClustersFilter = "MSTClusters";
const unsigned int HistogramPort = 2;

// Marks the views and colour maps set up here. It is saved with a state, so a loaded state keeps
// what it holds, and it tells a colour map whose annotations were written here from one whose
// annotations a user wrote.
const char* const Marker = "EMST.ViewDefaults";
// The EdgeLength map's range as last set here (two numbers): a different one is the user's.
const char* const RangeMarker = "EMST.LengthRange";

// Colour maps by array name (the keys ParaView's vtkSMTransferFunctionManager reads when it creates
// a map: .standard_presets.<array> and .array_lookup_tables.<array>.PVLookupTable.<property>).
// Below the site (1.0) and user settings, so that theirs win. Neither map is rescaled by ParaView
// on Apply: EdgeLength's range follows RefreshLengthColours' rule instead of the data range, and
// ParaView's categorical rescale would replace the ClusterId annotations by the array's
// "prominent values", none at all beyond 32 distinct ids (RefreshClusterColours annotates them).
const double SettingsPriority = 0.5;
const char* const Settings = R"json({
  "standard_presets": { "EdgeLength": "Turbo" },
  "array_lookup_tables": {
    "EdgeLength": { "PVLookupTable": { "UseLogScale": 1, "AutomaticRescaleRangeMode": -1 } },
    "ClusterId": { "PVLookupTable": {
      "IndexedLookup": 1, "AutomaticRescaleRangeMode": -1, "NanColor": [1.0, 1.0, 1.0] } }
  }
})json";

// Noise (ClusterId -1) in grey, cluster k in Palette[k % 9]: Tableau 10 without its grey.
const double NoiseColour[3] = { 0.6, 0.6, 0.6 };
const double Palette[][3] = { { 0.122, 0.467, 0.706 }, { 1.0, 0.498, 0.055 },
  { 0.173, 0.627, 0.173 }, { 0.839, 0.153, 0.157 }, { 0.580, 0.404, 0.741 },
  { 0.549, 0.337, 0.294 }, { 0.890, 0.467, 0.761 }, { 0.737, 0.741, 0.133 },
  { 0.090, 0.745, 0.812 } };
const int PaletteSize = static_cast<int>(sizeof(Palette) / sizeof(Palette[0]));
// The scalar bar names the noise and the largest clusters only: a label per cluster makes it
// unreadable and slow to draw (about 1 s per frame for 1000 labels).
const int NamedClusters = 10;

// The EdgeLength map spans this factor below the longest edge (unless the shortest is longer):
// the demo's two decades, over which a clustered cloud's halo, filament and background edges
// take distinct colours; the rare shorter edges share the lowest one.
const double LengthDecadesFactor = 100.0;

// Clustered points as discs of this fraction of the bounding-box diagonal: a few pixels across
// at the first camera, growing when zoomed in.
const double DiscRadiusPerDiagonal = 0.002;
// The length axis is logarithmic when the longest edge is at least this many mean edges long:
// most edges would otherwise sit in the first few bins.
const double LogAxisRatio = 10.0;

const char* const LengthTitle = "edge length";
const char* const EdgesTitle = "edges per bin";
const char* const ClustersTitle = "clusters left at bin end";
const char* const CutTitle = "cut at ";

bool IsFilter(vtkSMProxy* proxy, const char* name)
{
  return proxy != nullptr && proxy->GetXMLGroup() != nullptr &&
    std::strcmp(proxy->GetXMLGroup(), "filters") == 0 && proxy->GetXMLName() != nullptr &&
    std::strcmp(proxy->GetXMLName(), name) == 0;
}

bool IsLoadingState(vtkSMProxy* proxy)
{
  vtkSMSessionProxyManager* pxm = proxy->GetSessionProxyManager();
  return pxm == nullptr || pxm->GetInLoadXMLState();
}

/// The source and output port that a representation (or a filter) takes as "Input".
vtkSMSourceProxy* InputOf(vtkSMProxy* proxy, unsigned int* port)
{
  if (proxy == nullptr || proxy->GetProperty("Input") == nullptr)
  {
    return nullptr;
  }
  vtkSMPropertyHelper input(proxy, "Input");
  if (input.GetNumberOfElements() == 0)
  {
    return nullptr;
  }
  *port = input.GetOutputPort();
  return vtkSMSourceProxy::SafeDownCast(input.GetAsProxy());
}

/// Range of component 0 of an output array (association: vtkDataObject::FIELD_ASSOCIATION_*);
/// false when the output has no such array or it is empty.
bool Range(
  vtkSMSourceProxy* source, unsigned int port, int association, const char* name, double range[2])
{
  if (source == nullptr || port >= source->GetNumberOfOutputPorts())
  {
    return false;
  }
  vtkPVArrayInformation* info =
    source->GetDataInformation(port)->GetArrayInformation(name, association);
  if (info == nullptr || info->GetNumberOfComponents() < 1)
  {
    return false;
  }
  info->GetComponentRange(0, range);
  return range[0] <= range[1];
}

/// The colour map of an array, when ParaView has made it (vtkSMTransferFunctionManager's name).
vtkSMProxy* ColourMap(vtkSMSessionProxyManager* pxm, const std::string& array)
{
  return pxm->GetProxy("lookup_tables", (array + ".PVLookupTable").c_str());
}

/// The range of the values that a colour map colours: those of its visible users, and those of
/// `source`'s output 0 (just updated: its representations may not know yet); false when empty.
bool ColouredRange(
  vtkSMProxy* map, vtkSMSourceProxy* source, int association, const char* array, double range[2])
{
  double users[2];
  const bool used =
    vtkSMTransferFunctionProxy::ComputeDataRange(map, users) && users[0] <= users[1];
  const bool fresh = Range(source, 0, association, array, range);
  if (used && fresh)
  {
    range[0] = std::min(range[0], users[0]);
    range[1] = std::max(range[1], users[1]);
  }
  else if (used)
  {
    range[0] = users[0];
    range[1] = users[1];
  }
  return used || fresh;
}

/// A filter's one-value field-data array (TotalLength, ClusterThreshold, ...). Under MPI the
/// data information merges the processes' ranges and only process 0 holds the data: the others'
/// empty outputs may carry 0, hence the largest value (all these values are >= 0).
bool FieldValue(vtkSMSourceProxy* source, unsigned int port, const char* name, double* value)
{
  double range[2];
  if (!Range(source, port, vtkDataObject::FIELD_ASSOCIATION_NONE, name, range))
  {
    return false;
  }
  *value = range[1];
  return true;
}

/// Sets the values of the named series in a (series, value) pair property such as
/// SeriesVisibility; the other series get `others` when it is given.
void SetSeries(vtkSMProxy* proxy, const char* property,
  const std::map<std::string, std::string>& values, const char* others)
{
  auto* pairs = vtkSMStringVectorProperty::SafeDownCast(proxy->GetProperty(property));
  if (pairs == nullptr)
  {
    return;
  }
  std::vector<std::string> elements = pairs->GetElements();
  std::map<std::string, std::string> missing = values;
  for (size_t i = 0; i + 1 < elements.size(); i += 2)
  {
    auto named = missing.find(elements[i]);
    if (named != missing.end())
    {
      elements[i + 1] = named->second;
      missing.erase(named);
    }
    else if (others != nullptr)
    {
      elements[i + 1] = others;
    }
  }
  for (const auto& series : missing)
  {
    elements.push_back(series.first);
    elements.push_back(series.second);
  }
  pairs->SetElements(elements);
}

void ColourBy(vtkSMProxy* representation, vtkSMSourceProxy* producer, unsigned int port,
  int association, const char* array)
{
  double range[2];
  if (representation->GetProperty("ColorArrayName") != nullptr &&
    Range(producer, port, association, array, range))
  {
    vtkSMPropertyHelper(representation, "ColorArrayName")
      .SetInputArrayToProcess(association, array);
  }
}

/// Point Gaussian (the hint for the clustered points) draws every point, with or without a cell;
/// its default radius (a twentieth of the extent) hides the colours: small flat discs instead.
void SmallDiscs(vtkSMProxy* representation, vtkSMSourceProxy* producer, unsigned int port)
{
  if (representation->GetProperty("GaussianRadius") == nullptr ||
    representation->GetProperty("Representation") == nullptr)
  {
    return;
  }
  const char* type = vtkSMPropertyHelper(representation, "Representation").GetAsString();
  if (type == nullptr || std::strcmp(type, "Point Gaussian") != 0)
  {
    return;
  }
  double bounds[6];
  producer->GetDataInformation(port)->GetBounds(bounds);
  const double diagonal = std::sqrt((bounds[1] - bounds[0]) * (bounds[1] - bounds[0]) +
    (bounds[3] - bounds[2]) * (bounds[3] - bounds[2]) +
    (bounds[5] - bounds[4]) * (bounds[5] - bounds[4]));
  if (!std::isfinite(diagonal) || diagonal <= 0 || bounds[1] < bounds[0])
  {
    return;
  }
  vtkSMPropertyHelper(representation, "ShaderPreset").Set("Plain circle");
  vtkSMPropertyHelper(representation, "GaussianRadius").Set(DiscRadiusPerDiagonal * diagonal);
}

/// The histogram table: edge counts (left axis) and clusters left (right axis) against the bin
/// centre, instead of every column against the row index.
void HistogramSeries(vtkSMProxy* representation)
{
  if (representation->GetProperty("XArrayName") == nullptr ||
    representation->GetProperty("SeriesVisibility") == nullptr)
  {
    return;
  }
  vtkSMPropertyHelper(representation, "UseIndexForXAxis").Set(0);
  vtkSMPropertyHelper(representation, "XArrayName").Set("EdgeLength");
  SetSeries(
    representation, "SeriesVisibility", { { "EdgeCount", "1" }, { "ClustersAtBinEnd", "1" } }, "0");
  SetSeries(representation, "SeriesPlotCorner", { { "ClustersAtBinEnd", "1" } }, nullptr);
  SetSeries(representation, "SeriesLabel",
    { { "EdgeCount", EdgesTitle }, { "ClustersAtBinEnd", ClustersTitle } }, nullptr);
}

/// The ClusterId scalar bar lists one swatch per annotated id, downwards from its top, whatever its
/// length: placed in the upper right corner, the list (noise and the largest clusters first)
/// stays in the view.
void ScalarBarCreated(vtkSMProxy* bar)
{
  vtkSMProxy* map = vtkSMPropertyHelper(bar, "LookupTable", true).GetAsProxy();
  vtkSMSessionProxyManager* pxm = bar->GetSessionProxyManager();
  auto* location = vtkSMIntVectorProperty::SafeDownCast(bar->GetProperty("WindowLocation"));
  auto* places = location ? location->FindDomain<vtkSMEnumerationDomain>() : nullptr;
  if (map == nullptr || pxm == nullptr || map != ColourMap(pxm, "ClusterId") || places == nullptr ||
    !places->HasEntryText("Upper Right Corner"))
  {
    return;
  }
  location->SetElement(0, places->GetEntryValueForText("Upper Right Corner"));
  bar->UpdateVTKObjects();
}

/// A representation just created for one of the filters' outputs.
void RepresentationCreated(vtkSMProxy* representation)
{
  unsigned int port = 0;
  vtkSMSourceProxy* producer = InputOf(representation, &port);
  if (IsFilter(producer, TreeFilter) && port == 0)
  {
    ColourBy(representation, producer, port, vtkDataObject::FIELD_ASSOCIATION_CELLS, "EdgeLength");
  }
  else if (IsFilter(producer, ClustersFilter) && port == 0)
  {
    ColourBy(representation, producer, port, vtkDataObject::FIELD_ASSOCIATION_POINTS, "ClusterId");
    SmallDiscs(representation, producer, port);
  }
  else if (IsFilter(producer, ClustersFilter) && port == HistogramPort)
  {
    HistogramSeries(representation);
  }
  else
  {
    return;
  }
  representation->UpdateVTKObjects();
}

/// The EdgeLength map's range (its scale is logarithmic): from the longest edge that it colours
/// (its users' and `source`'s) down to LengthDecadesFactor times less, or to the shortest edge when
/// that is longer. Shorter edges, zero-length ones of duplicate points included, take the lowest
/// colour. A range that is not the one set here last (a user's rescale) is kept.
void RefreshLengthColours(vtkSMSessionProxyManager* pxm, vtkSMSourceProxy* source)
{
  vtkSMProxy* map = ColourMap(pxm, "EdgeLength");
  auto* points =
    map ? vtkSMDoubleVectorProperty::SafeDownCast(map->GetProperty("RGBPoints")) : nullptr;
  if (points == nullptr || points->GetNumberOfElements() < 4 ||
    vtkSMPropertyHelper(map, "UseLogScale", true).GetAsInt() != 1)
  {
    return;
  }
  double lengths[2];
  if (!ColouredRange(map, source, vtkDataObject::FIELD_ASSOCIATION_CELLS, "EdgeLength", lengths) ||
    !(lengths[1] > 0))
  {
    return;
  }
  auto current = [points]()
  {
    char text[64];
    const unsigned int n = points->GetNumberOfElements();
    std::snprintf(
      text, sizeof(text), "%.17g %.17g", points->GetElement(0), points->GetElement(n - 4));
    return std::string(text);
  };
  const char* last = map->GetAnnotation(RangeMarker);
  if (last != nullptr && current() != last)
  {
    return;
  }
  vtkSMTransferFunctionProxy::RescaleTransferFunction(
    map, std::max(lengths[0], lengths[1] / LengthDecadesFactor), lengths[1], false);
  map->SetAnnotation(RangeMarker, current().c_str());
  map->UpdateVTKObjects();
}

/// The annotations of the ClusterId map: -1 "noise", then every id up to the largest shown
/// (capped), labelled while NamedClusters lasts.
std::vector<std::string> ClusterAnnotations(int largestId)
{
  std::vector<std::string> annotations = { "-1", "noise" };
  const int last = std::min(largestId, vtkEMSTViewDefaults::MaximumAnnotatedClusters - 1);
  for (int id = 0; id <= last; ++id)
  {
    annotations.push_back(std::to_string(id));
    annotations.push_back(id < NamedClusters ? std::to_string(id) : std::string());
  }
  return annotations;
}

bool AreClusterAnnotations(const std::vector<std::string>& annotations)
{
  return annotations.size() >= 2 && annotations.size() % 2 == 0 &&
    annotations == ClusterAnnotations(static_cast<int>(annotations.size() / 2) - 2);
}

std::vector<double> ClusterColours(size_t annotated)
{
  std::vector<double> colours(NoiseColour, NoiseColour + 3);
  for (size_t k = 0; k + 1 < annotated; ++k)
  {
    colours.insert(colours.end(), Palette[k % PaletteSize], Palette[k % PaletteSize] + 3);
  }
  return colours;
}

/// Annotates the ClusterId colour map (when it exists and is still categorical) for the ids that
/// its visible users and `clusters` hold. Annotations or colours that are not those written here
/// (a user's) are kept.
void RefreshClusterColours(vtkSMSessionProxyManager* pxm, vtkSMSourceProxy* clusters)
{
  vtkSMProxy* map = ColourMap(pxm, "ClusterId");
  if (map == nullptr || vtkSMPropertyHelper(map, "IndexedLookup", true).GetAsInt() != 1)
  {
    return;
  }
  double ids[2];
  auto* annotations = vtkSMStringVectorProperty::SafeDownCast(map->GetProperty("Annotations"));
  auto* colours = vtkSMDoubleVectorProperty::SafeDownCast(map->GetProperty("IndexedColors"));
  if (!ColouredRange(map, clusters, vtkDataObject::FIELD_ASSOCIATION_POINTS, "ClusterId", ids) ||
    annotations == nullptr || colours == nullptr)
  {
    return;
  }
  const std::vector<std::string> wanted = ClusterAnnotations(static_cast<int>(ids[1]));
  const std::vector<std::string>& current = annotations->GetElements();
  const bool ours = !map->HasAnnotation(Marker);
  if (current == wanted || !(ours || AreClusterAnnotations(current)))
  {
    return;
  }
  const std::vector<double> oldColours = ClusterColours(current.size() / 2);
  const bool oursColours = ours ||
    (colours->GetNumberOfElements() == oldColours.size() &&
      std::equal(oldColours.begin(), oldColours.end(), colours->GetElements()));
  annotations->SetElements(wanted);
  if (oursColours)
  {
    const std::vector<double> newColours = ClusterColours(wanted.size() / 2);
    colours->SetElements(newColours.data(), static_cast<unsigned int>(newColours.size()));
  }
  vtkSMPropertyHelper(map, "AnnotationsInitialized", true).Set(1);
  map->SetAnnotation(Marker, "1");
  map->UpdateVTKObjects();
}

/// Ticks of the length axis over the bin centres [low, high]: 1, 2, 5 times powers of ten on a log
/// axis, steps of 1, 2 or 5 times a power of ten on a linear one; then the cut, and no tick so
/// close to it that labels overlap. A log axis (vtkAxis) takes custom positions as log10 values.
std::vector<std::string> AxisLabels(double low, double high, bool log, double cut)
{
  log = log && low > 0;
  auto at = [log](double x) { return log ? std::log10(x) : x; };
  std::vector<double> ticks;
  if (log)
  {
    for (int e = static_cast<int>(std::floor(std::log10(low)));
         e <= static_cast<int>(std::ceil(std::log10(high))); ++e)
    {
      for (double m : { 1.0, 2.0, 5.0 })
      {
        const double x = m * std::pow(10.0, e);
        if (x >= low / 2 && x <= 2 * high)
        {
          ticks.push_back(x);
        }
      }
    }
  }
  else if (high > low)
  {
    const double rough = (high - low) / 6;
    const double unit = std::pow(10.0, std::floor(std::log10(rough)));
    const double step = unit * (rough / unit < 1.5 ? 1 : rough / unit < 3.5 ? 2 : 5);
    for (double x = std::floor(low / step) * step; x <= high + step; x += step)
    {
      ticks.push_back(std::abs(x) < 1e-9 * step ? 0.0 : x);
    }
  }
  const bool marked = !log || cut > 0; // a log axis has no place for a cut at 0
  const double span = at(high) - at(low);
  std::vector<std::string> labels;
  char text[64];
  auto add = [&](double x, const char* format)
  {
    std::snprintf(text, sizeof(text), "%.17g", x);
    labels.push_back(text);
    std::snprintf(text, sizeof(text), format, x);
    labels.push_back(text);
  };
  for (double x : ticks)
  {
    if (!marked || std::abs(at(x) - at(cut)) >= 0.12 * span)
    {
      add(x, "%g");
    }
  }
  if (marked)
  {
    add(cut, "cut %.3g");
  }
  return labels;
}

/// Whether the tree's edge lengths span decades: longest >= LogAxisRatio x the mean.
bool SpansDecades(vtkSMSourceProxy* clusters)
{
  unsigned int port = 0;
  vtkSMSourceProxy* tree = InputOf(clusters, &port);
  double lengths[2], total = 0;
  if (!Range(tree, port, vtkDataObject::FIELD_ASSOCIATION_CELLS, "EdgeLength", lengths) ||
    !FieldValue(tree, port, "TotalLength", &total))
  {
    return false;
  }
  const double edges = static_cast<double>(tree->GetDataInformation(port)->GetNumberOfCells());
  return edges > 0 && total > 0 && lengths[1] >= LogAxisRatio * total / edges;
}

/// The current cut of `clusters` in a chart that shows its histogram: in the title (unless the user
/// wrote another) and as a tick on the length axis (while its custom labels, set up here, are on).
void MarkCut(vtkSMProxy* view, vtkSMSourceProxy* clusters)
{
  double cut = 0, groups = 0, noise = 0;
  if (!FieldValue(clusters, 0, "ClusterThreshold", &cut) ||
    !FieldValue(clusters, 0, "NumberOfClusters", &groups))
  {
    return;
  }
  FieldValue(clusters, 0, "NoisePoints", &noise);
  char title[160];
  std::snprintf(title, sizeof(title), "%s%.4g: %.0f cluster%s, %.0f noise point%s", CutTitle, cut,
    groups, groups == 1 ? "" : "s", noise, noise == 1 ? "" : "s");
  const char* current = vtkSMPropertyHelper(view, "ChartTitle").GetAsString();
  if (current == nullptr || current[0] == '\0' ||
    std::strncmp(current, CutTitle, std::strlen(CutTitle)) == 0)
  {
    vtkSMPropertyHelper(view, "ChartTitle").Set(title);
  }
  double centres[2];
  if (vtkSMPropertyHelper(view, "BottomAxisUseCustomLabels").GetAsInt() == 1 &&
    Range(clusters, HistogramPort, vtkDataObject::FIELD_ASSOCIATION_ROWS, "EdgeLength", centres))
  {
    const bool log = vtkSMPropertyHelper(view, "BottomAxisLogScale").GetAsInt() == 1;
    auto* labels = vtkSMStringVectorProperty::SafeDownCast(view->GetProperty("BottomAxisLabels"));
    labels->SetElements(AxisLabels(centres[0], centres[1], log, cut));
    vtkSMPropertyHelper(view, "BottomAxisUseCustomRange").Set(1);
    vtkSMPropertyHelper(view, "BottomAxisRangeMinimum").Set(log ? centres[0] / 1.2 : 0.0);
    vtkSMPropertyHelper(view, "BottomAxisRangeMaximum")
      .Set(log ? centres[1] * 1.2 : centres[1] + centres[0]);
  }
  view->UpdateVTKObjects();
}

/// A chart view that shows a histogram of MST Clusters (`only`'s, when given): axis titles, the
/// length axis (log or linear) and custom labels the first time, the cut mark every time.
void RefreshHistogramView(vtkSMProxy* view, vtkSMSourceProxy* only)
{
  if (view->GetProperty("BottomAxisUseCustomLabels") == nullptr ||
    view->GetProperty("Representations") == nullptr)
  {
    return;
  }
  vtkSMPropertyHelper representations(view, "Representations");
  for (unsigned int i = 0; i < representations.GetNumberOfElements(); ++i)
  {
    vtkSMProxy* representation = representations.GetAsProxy(i);
    unsigned int port = 0;
    vtkSMSourceProxy* clusters = InputOf(representation, &port);
    if (!IsFilter(clusters, ClustersFilter) || port != HistogramPort ||
      (only != nullptr && clusters != only) ||
      vtkSMPropertyHelper(representation, "Visibility", true).GetAsInt() != 1)
    {
      continue;
    }
    if (!view->HasAnnotation(Marker))
    {
      vtkSMPropertyHelper(view, "BottomAxisTitle").Set(LengthTitle);
      vtkSMPropertyHelper(view, "LeftAxisTitle").Set(EdgesTitle);
      vtkSMPropertyHelper(view, "RightAxisTitle").Set(ClustersTitle);
      vtkSMPropertyHelper(view, "BottomAxisLogScale").Set(SpansDecades(clusters) ? 1 : 0);
      vtkSMPropertyHelper(view, "BottomAxisUseCustomLabels").Set(1);
      view->SetAnnotation(Marker, "1");
    }
    MarkCut(view, clusters);
  }
}

/// A tree or MST Clusters ran again: new lengths for the EdgeLength map; for clusters, new ids
/// for the ClusterId map and a new cut for its charts.
void FilterUpdated(vtkObject* caller, unsigned long, void*, void*)
{
  auto* source = vtkSMSourceProxy::SafeDownCast(caller);
  if (source == nullptr || IsLoadingState(source))
  {
    return;
  }
  vtkSMSessionProxyManager* pxm = source->GetSessionProxyManager();
  RefreshLengthColours(pxm, source);
  if (!IsFilter(source, ClustersFilter))
  {
    return;
  }
  vtkSMSourceProxy* clusters = source;
  RefreshClusterColours(pxm, clusters);
  vtkNew<vtkSMProxyIterator> views;
  views->SetSessionProxyManager(pxm);
  views->SetModeToOneGroup();
  for (views->Begin("views"); !views->IsAtEnd(); views->Next())
  {
    RefreshHistogramView(views->GetProxy(), clusters);
  }
}

vtkCallbackCommand* FilterObserver()
{
  // Never deleted: proxies hold it until the end of the process (no state, no client data).
  static vtkCallbackCommand* command = []()
  {
    vtkCallbackCommand* c = vtkCallbackCommand::New();
    c->SetCallback(FilterUpdated);
    return c;
  }();
  return command;
}

/// Every proxy registration and property change of every session, forwarded by the proxy manager.
void ProxyManagerEvent(vtkObject*, unsigned long event, void*, void* data)
{
  if (event == vtkCommand::RegisterEvent)
  {
    auto* info = static_cast<vtkSMProxyManager::RegisteredProxyInformation*>(data);
    if (info == nullptr || info->Proxy == nullptr || info->GroupName == nullptr ||
      info->Type != vtkSMProxyManager::RegisteredProxyInformation::PROXY)
    {
      return;
    }
    if (std::strcmp(info->GroupName, "sources") == 0 &&
      (IsFilter(info->Proxy, TreeFilter) || IsFilter(info->Proxy, ClustersFilter)) &&
      !info->Proxy->HasObserver(vtkCommand::UpdateDataEvent, FilterObserver()))
    {
      info->Proxy->AddObserver(vtkCommand::UpdateDataEvent, FilterObserver());
    }
    else if (std::strcmp(info->GroupName, "representations") == 0 && !IsLoadingState(info->Proxy))
    {
      RepresentationCreated(info->Proxy);
    }
    else if (std::strcmp(info->GroupName, "scalar_bars") == 0 && !IsLoadingState(info->Proxy))
    {
      ScalarBarCreated(info->Proxy);
    }
  }
  else if (event == vtkCommand::PropertyModifiedEvent)
  {
    auto* info = static_cast<vtkSMProxyManager::ModifiedPropertyInformation*>(data);
    if (info == nullptr || info->Proxy == nullptr || info->PropertyName == nullptr ||
      IsLoadingState(info->Proxy))
    {
      return;
    }
    if (std::strcmp(info->PropertyName, "Representations") == 0 ||
      (std::strcmp(info->PropertyName, "BottomAxisLogScale") == 0 &&
        info->Proxy->HasAnnotation(Marker)))
    {
      RefreshHistogramView(info->Proxy, nullptr);
    }
    else if (std::strcmp(info->PropertyName, "LookupTable") == 0 &&
      info->Proxy->GetProperty("ColorArrayName") != nullptr)
    {
      const char* array =
        vtkSMPropertyHelper(info->Proxy, "ColorArrayName").GetInputArrayNameToProcess();
      if (array != nullptr && std::strcmp(array, "ClusterId") == 0)
      {
        RefreshClusterColours(info->Proxy->GetSessionProxyManager(), nullptr);
      }
      else if (array != nullptr && std::strcmp(array, "EdgeLength") == 0)
      {
        RefreshLengthColours(info->Proxy->GetSessionProxyManager(), nullptr);
      }
    }
  }
}
}

void vtkEMSTViewDefaults::Install()
{
  static bool installed = false;
  const int type = vtkProcessModule::GetProcessType();
  if (installed || vtkProcessModule::GetProcessModule() == nullptr ||
    (type != vtkProcessModule::PROCESS_CLIENT && type != vtkProcessModule::PROCESS_BATCH))
  {
    return; // a server process draws what its client asks for
  }
  installed = true;
  vtkSMSettings::GetInstance()->AddCollectionFromString(Settings, SettingsPriority);
  vtkSMProxyManager* manager = vtkSMProxyManager::GetProxyManager();
  if (manager != nullptr)
  {
    vtkCallbackCommand* command = vtkCallbackCommand::New();
    command->SetCallback(ProxyManagerEvent);
    manager->AddObserver(vtkCommand::RegisterEvent, command);
    manager->AddObserver(vtkCommand::PropertyModifiedEvent, command);
    command->Delete();
  }
}
