// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Where a set's file is, and the reference values beside it: NAME.ref.json for the shared data
// sets (exact), gen_points_reference.txt for the standard synthetic sets (10 digits).
#include "Benchmark.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace emstbench
{
namespace
{

bool fileExists(const std::string& path)
{
  std::ifstream f(path, std::ios::binary);
  return static_cast<bool>(f);
}

std::string directoryOf(const std::string& path)
{
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

std::string stemOf(const std::string& path)
{
  const std::size_t slash = path.find_last_of('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  const std::size_t dot = base.find_last_of('.');
  return dot == std::string::npos || dot == 0 ? base : base.substr(0, dot);
}

bool looksLikePath(const std::string& set)
{
  return set.find('/') != std::string::npos || set.find('.') != std::string::npos;
}

std::string sharedDir()
{
  const char* env = std::getenv("EMST_SHARED_DIR");
  return env && *env ? std::string(env) : std::string();
}

/// NAME.ref.json beside a set's file, or "" when there is none.
std::string referenceJson(const std::string& file)
{
  std::ifstream in(directoryOf(file) + "/" + stemOf(file) + ".ref.json", std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The file of a set: a path as given; a name from Settings::dataDir or $EMST_SHARED_DIR/data.
std::string resolveSet(const std::string& set, const Settings& settings)
{
  if (looksLikePath(set))
  {
    return set;
  }
  std::vector<std::string> candidates;
  candidates.push_back(settings.dataDir + "/" + set + ".f32");
  if (!sharedDir().empty())
  {
    candidates.push_back(sharedDir() + "/data/" + set + ".f32");
  }
  for (const std::string& c : candidates)
  {
    if (fileExists(c))
    {
      return c;
    }
  }
  std::string tried;
  for (const std::string& c : candidates)
  {
    tried += (tried.empty() ? "" : ", ") + c;
  }
  throw emst::Error(
    emst::ErrorCode::InvalidInput, "set '" + set + "' not found (tried " + tried + ")");
}

} // namespace

std::string setName(const std::string& set)
{
  return looksLikePath(set) ? stemOf(set) : set;
}

std::string rowName(const std::string& set, const Settings& settings)
{
  return setName(set) + (settings.periodic ? " (periodic)" : "");
}

LoadedSet loadSet(const std::string& set, const Settings& settings, const std::string& plan)
{
  LoadedSet loaded;
  loaded.path = resolveSet(set, settings);
  loaded.points = emst::readPointFile(loaded.path);
  std::fprintf(stderr, "emst_benchmark: %s (%s): n=%zu dim=%d, %s\n", setName(set).c_str(),
    loaded.path.c_str(), loaded.points.count, loaded.points.dimension, plan.c_str());
  return loaded;
}

void reportMessages(const std::string& label, const std::vector<std::string>& messages)
{
  for (const std::string& message : messages)
  {
    std::fprintf(stderr, "emst_benchmark: %s: %s\n", label.c_str(), message.c_str());
  }
}

bool findReference(const std::string& file, std::size_t n, int dim, const Settings& settings,
  double& weight, std::string& why)
{
  if (settings.periodic)
  {
    why = "the references are those of the open set, not of a periodic box";
    return false;
  }
  const std::string stem = stemOf(file);
  const std::string json = directoryOf(file) + "/" + stem + ".ref.json";
  if (fileExists(json))
  {
    if (emst::jsonNumber(referenceJson(file), "total_weight", weight))
    {
      return true;
    }
    why = "no total_weight in " + json;
    return false;
  }

  std::vector<std::string> tables;
  if (!settings.referencePath.empty())
  {
    tables.push_back(settings.referencePath);
  }
  else
  {
    if (!sharedDir().empty())
    {
      tables.push_back(sharedDir() + "/tools/gen_points_reference.txt");
    }
    tables.push_back(directoryOf(file) + "/../tools/gen_points_reference.txt");
    tables.push_back(directoryOf(file) + "/gen_points_reference.txt");
  }
  for (const std::string& table : tables)
  {
    std::ifstream in(table);
    if (!in)
    {
      continue;
    }
    std::string line;
    while (std::getline(in, line))
    {
      if (line.empty() || line[0] == '#')
      {
        continue;
      }
      std::istringstream fields(line);
      std::string name;
      double refN = 0;
      int refDim = 0;
      std::string refWeight;
      if (!(fields >> name >> refN >> refDim >> refWeight) || name != stem)
      {
        continue;
      }
      if (static_cast<std::size_t>(refN) != n || refDim != dim)
      {
        why = table + " lists " + name +
          " with n=" + std::to_string(static_cast<std::size_t>(refN)) +
          " dim=" + std::to_string(refDim) + ", the file has n=" + std::to_string(n) +
          " dim=" + std::to_string(dim);
        return false;
      }
      weight = std::strtod(refWeight.c_str(), nullptr);
      return true;
    }
    why = "no line for " + stem + " in " + table;
    return false;
  }
  why = "no " + stem + ".ref.json and no gen_points_reference.txt found";
  return false;
}

bool referenceCut(const std::string& file, const std::string& section, double& t, double& clusters)
{
  const std::string json = referenceJson(file);
  const std::size_t at = json.find("\"" + section + "\"");
  if (at == std::string::npos)
  {
    return false;
  }
  const std::string text = json.substr(at);
  return emst::jsonNumber(text, "t", t) && emst::jsonNumber(text, "clusters", clusters);
}

} // namespace emstbench
