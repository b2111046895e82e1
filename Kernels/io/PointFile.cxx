// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Point files for the emst program, the benchmark and the tests: the binary `.f32` format of
// ../shared (little-endian uint64 n, uint32 dim, n*dim float32, point-major) and plain text.
// Every problem becomes Error(InvalidInput) whose message starts with the path.
#include "emst/PointFile.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

namespace emst
{
namespace
{

constexpr std::size_t F32HeaderBytes = 12; // uint64 n + uint32 dim, no padding

[[noreturn]] void fail(const std::string& path, const std::string& reason)
{
  throw Error(ErrorCode::InvalidInput, path + ": " + reason);
}

std::string lowerExtension(const std::string& path)
{
  const std::size_t slash = path.find_last_of("/\\");
  const std::size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
  {
    return std::string();
  }
  std::string ext = path.substr(dot);
  std::transform(ext.begin(), ext.end(), ext.begin(),
    [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

bool hostIsLittleEndian()
{
  const std::uint32_t probe = 1;
  unsigned char first = 0;
  std::memcpy(&first, &probe, 1);
  return first == 1;
}

std::uint64_t decodeLittleEndian(const unsigned char* bytes, int size)
{
  std::uint64_t value = 0;
  for (int b = size - 1; b >= 0; --b)
  {
    value = (value << 8) | bytes[b];
  }
  return value;
}

void encodeLittleEndian(std::uint64_t value, unsigned char* bytes, int size)
{
  for (int b = 0; b < size; ++b)
  {
    bytes[b] = static_cast<unsigned char>(value >> (8 * b));
  }
}

void swapFloatBytes(std::vector<float>& values)
{
  for (float& v : values)
  {
    unsigned char b[4];
    std::memcpy(b, &v, 4);
    std::swap(b[0], b[3]);
    std::swap(b[1], b[2]);
    std::memcpy(&v, b, 4);
  }
}

/// Closes the FILE on every path out, exceptions included.
struct FileCloser
{
  void operator()(std::FILE* f) const
  {
    if (f)
    {
      std::fclose(f);
    }
  }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

FilePtr openOrFail(const std::string& path, const char* mode, const char* what)
{
  errno = 0;
  FilePtr file(std::fopen(path.c_str(), mode));
  if (!file)
  {
    const int err = errno;
    fail(path,
      std::string("cannot open ") + what + " (" + (err ? std::strerror(err) : "unknown reason") +
        ")");
  }
  return file;
}

PointSet readF32(const std::string& path)
{
  FilePtr file = openOrFail(path, "rb", "for reading");
  if (std::fseek(file.get(), 0, SEEK_END) != 0)
  {
    fail(path, "cannot seek (not a regular file?)");
  }
  const long endPosition = std::ftell(file.get());
  if (endPosition < 0)
  {
    fail(path, "cannot determine the file size");
  }
  std::rewind(file.get());
  const auto fileBytes = static_cast<std::uint64_t>(endPosition);
  if (fileBytes < F32HeaderBytes)
  {
    fail(path,
      "truncated .f32 header: the file has " + std::to_string(fileBytes) +
        " bytes, the header needs 12 (uint64 n, uint32 dim)");
  }

  unsigned char header[F32HeaderBytes];
  if (std::fread(header, 1, F32HeaderBytes, file.get()) != F32HeaderBytes)
  {
    fail(path, "read error in the .f32 header");
  }
  const std::uint64_t n = decodeLittleEndian(header, 8);
  const std::uint64_t dim = decodeLittleEndian(header + 8, 4);
  if (dim != 2 && dim != 3)
  {
    fail(path,
      "unsupported dimension " + std::to_string(dim) +
        " in the .f32 header (expected 2 or 3; is this really an .f32 point file?)");
  }
  const std::uint64_t payloadBytes = fileBytes - F32HeaderBytes;
  const std::uint64_t pointBytes = dim * sizeof(float);
  // Below this bound the file size, header included, fits in 64 bits: every size computed from
  // here on is exact.
  if (n > (std::numeric_limits<std::uint64_t>::max() - F32HeaderBytes) / pointBytes)
  {
    fail(path,
      "invalid .f32 header: n=" + std::to_string(n) + " points of dimension " +
        std::to_string(dim) +
        " would take more than 2^64 bytes (is this really an .f32 point "
        "file?)");
  }
  if (n > payloadBytes / pointBytes)
  {
    fail(path,
      "n=" + std::to_string(n) + " points of dimension " + std::to_string(dim) +
        " is too large for the file: truncated .f32 (the file holds " + std::to_string(fileBytes) +
        " bytes, " + std::to_string(F32HeaderBytes + n * pointBytes) + " expected)");
  }
  if (payloadBytes != n * pointBytes)
  {
    fail(path,
      "the file holds " + std::to_string(payloadBytes - n * pointBytes) +
        " unexpected trailing bytes after n=" + std::to_string(n) + " points of dimension " +
        std::to_string(dim) + " (" + std::to_string(fileBytes) + " bytes, " +
        std::to_string(F32HeaderBytes + n * pointBytes) + " expected)");
  }
  if (n > std::numeric_limits<std::size_t>::max() / pointBytes)
  {
    fail(path, "n=" + std::to_string(n) + " does not fit in memory on this platform");
  }

  PointSet points;
  points.dimension = static_cast<int>(dim);
  points.count = static_cast<std::size_t>(n);
  points.float32.resize(points.count * points.dimension);
  const std::size_t scalars = points.float32.size();
  if (scalars > 0 &&
    std::fread(points.float32.data(), sizeof(float), scalars, file.get()) != scalars)
  {
    fail(path, "read error in the .f32 coordinates");
  }
  if (!hostIsLittleEndian())
  {
    swapFloatBytes(points.float32);
  }
  return points;
}

bool isBlank(char c)
{
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

std::string trim(const std::string& s)
{
  std::size_t b = 0;
  std::size_t e = s.size();
  while (b < e && isBlank(s[b]))
  {
    ++b;
  }
  while (e > b && isBlank(s[e - 1]))
  {
    --e;
  }
  return s.substr(b, e - b);
}

/// Splits a data line into fields: by commas when the line has any (each field trimmed, none may
/// be empty), else by runs of blanks.
std::vector<std::string> splitFields(const std::string& line)
{
  std::vector<std::string> fields;
  if (line.find(',') != std::string::npos)
  {
    std::size_t start = 0;
    while (true)
    {
      const std::size_t comma = line.find(',', start);
      fields.push_back(
        trim(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
      if (comma == std::string::npos)
      {
        break;
      }
      start = comma + 1;
    }
    return fields;
  }
  std::size_t i = 0;
  while (i < line.size())
  {
    while (i < line.size() && isBlank(line[i]))
    {
      ++i;
    }
    std::size_t j = i;
    while (j < line.size() && !isBlank(line[j]))
    {
      ++j;
    }
    if (j > i)
    {
      fields.push_back(line.substr(i, j - i));
    }
    i = j;
  }
  return fields;
}

/// Parses a whole field as a double ("nan" and "inf" included: the engine leaves such points out
/// with a warning). std::from_chars is locale-independent; a leading '+' is accepted too.
bool parseNumber(const std::string& field, double& value)
{
  if (field.empty())
  {
    return false;
  }
  const char* first = field.data();
  const char* last = field.data() + field.size();
  if (*first == '+')
  {
    ++first;
  }
  const auto result = std::from_chars(first, last, value, std::chars_format::general);
  if (result.ec == std::errc::result_out_of_range && result.ptr == last)
  {
    // Out of double range: keep the number's sign and magnitude class rather than refusing it.
    errno = 0;
    value = std::strtod(field.c_str(), nullptr);
    return true;
  }
  return result.ec == std::errc() && result.ptr == last;
}

/// Whether a field begins like a number: an optional sign, then a digit or '.' and a digit; or a
/// whole nan/inf. A line whose first field does is a point, however malformed the rest: only
/// other lines may be a header, so that no malformed point is dropped as one.
bool startsLikeNumber(const std::string& field)
{
  const std::size_t k = !field.empty() && (field[0] == '+' || field[0] == '-') ? 1 : 0;
  const auto digitAt = [&field](std::size_t at)
  { return at < field.size() && std::isdigit(static_cast<unsigned char>(field[at])); };
  double ignored = 0.0;
  return digitAt(k) || (k < field.size() && field[k] == '.' && digitAt(k + 1)) ||
    parseNumber(field, ignored);
}

std::string quoteForMessage(const std::string& text)
{
  constexpr std::size_t MaxShown = 60;
  std::string shown = text.size() > MaxShown ? text.substr(0, MaxShown) + "..." : text;
  return "\"" + shown + "\"";
}

PointSet readText(const std::string& path)
{
  std::ifstream in(path, std::ios::in | std::ios::binary);
  if (!in)
  {
    const int err = errno;
    fail(path,
      std::string("cannot open for reading (") + (err ? std::strerror(err) : "unknown reason") +
        ")");
  }

  PointSet points;
  points.dimension = 0; // set by the first data line
  std::size_t firstDataLine = 0;
  bool headerSkipped = false;
  std::string line;
  std::size_t lineNumber = 0;
  double numbers[3];
  while (std::getline(in, line))
  {
    ++lineNumber;
    const std::string content = trim(line);
    if (content.empty() || content[0] == '#')
    {
      continue;
    }
    const std::vector<std::string> fields = splitFields(content);
    bool numeric = !fields.empty() && fields.size() <= 3;
    for (std::size_t k = 0; numeric && k < fields.size(); ++k)
    {
      numeric = parseNumber(fields[k], numbers[k]);
    }
    bool allFieldsNumeric = numeric;
    if (!numeric && fields.size() > 3)
    {
      // Tell "too many columns" apart from "not numbers" in the message below.
      allFieldsNumeric = true;
      double ignored = 0.0;
      for (const std::string& f : fields)
      {
        allFieldsNumeric = allFieldsNumeric && parseNumber(f, ignored);
      }
    }
    if (!allFieldsNumeric)
    {
      if (points.count == 0 && !headerSkipped && !fields.empty() && !startsLikeNumber(fields[0]))
      {
        headerSkipped = true; // one header line ("x,y,z") before the data
        continue;
      }
      fail(path,
        "line " + std::to_string(lineNumber) + ": bad point " + quoteForMessage(content) +
          " (expected 2 or 3 numbers separated by spaces, tabs or commas)");
    }
    const int columns = static_cast<int>(fields.size());
    if (columns != 2 && columns != 3)
    {
      fail(path,
        "line " + std::to_string(lineNumber) + ": " + std::to_string(columns) + " numbers " +
          quoteForMessage(content) + " (points need 2 or 3 coordinates)");
    }
    if (points.dimension == 0)
    {
      points.dimension = columns;
      firstDataLine = lineNumber;
    }
    else if (columns != points.dimension)
    {
      fail(path,
        "line " + std::to_string(lineNumber) + " has " + std::to_string(columns) +
          " coordinates but line " + std::to_string(firstDataLine) + " has " +
          std::to_string(points.dimension) + ": mixed 2D and 3D points");
    }
    points.float64.insert(points.float64.end(), numbers, numbers + columns);
    ++points.count;
  }
  if (in.bad())
  {
    fail(path, "read error after line " + std::to_string(lineNumber));
  }
  if (points.dimension == 0)
  {
    points.dimension = 3; // no points: keep a valid dimension for the (empty) view
  }
  return points;
}

} // namespace

PointCloudView PointSet::view() const
{
  PointCloudView v;
  v.dimension = this->dimension;
  v.count = this->count;
  v.stride = static_cast<std::size_t>(this->dimension);
  if (!this->float64.empty())
  {
    v.data = this->float64.data();
    v.scalarType = ScalarType::Float64;
  }
  else
  {
    v.data = this->float32.empty() ? nullptr : this->float32.data();
    v.scalarType = ScalarType::Float32;
  }
  return v;
}

PointSet readPointFile(const std::string& path)
{
  const std::string ext = lowerExtension(path);
  if (ext == ".f32")
  {
    return readF32(path);
  }
  if (ext == ".xyz" || ext == ".csv" || ext == ".txt")
  {
    return readText(path);
  }
  {
    std::ifstream probe(path);
    if (!probe)
    {
      const int err = errno;
      fail(path,
        std::string("cannot open for reading (") + (err ? std::strerror(err) : "unknown reason") +
          ")");
    }
  }
  fail(path, "unknown file type '" + ext + "' (expected .f32, .xyz, .csv or .txt)");
}

void writeF32(const std::string& path, const PointSet& points)
{
  if (points.dimension != 2 && points.dimension != 3)
  {
    fail(path, "cannot write dimension " + std::to_string(points.dimension) + " (2 or 3 only)");
  }
  const std::size_t scalars = points.count * static_cast<std::size_t>(points.dimension);
  const bool fromFloat64 = points.float32.size() != scalars && points.float64.size() == scalars;
  if (!fromFloat64 && points.float32.size() != scalars)
  {
    fail(path,
      "cannot write: the point set holds " + std::to_string(points.float32.size()) +
        " float32 and " + std::to_string(points.float64.size()) + " float64 values for " +
        std::to_string(points.count) + " points of dimension " + std::to_string(points.dimension));
  }

  std::vector<float> values;
  const std::vector<float>* source = &points.float32;
  if (fromFloat64 || !hostIsLittleEndian())
  {
    // Text input is written rounded to float32, the only scalar type of the format.
    values.resize(scalars);
    for (std::size_t k = 0; k < scalars; ++k)
    {
      values[k] = fromFloat64 ? static_cast<float>(points.float64[k]) : points.float32[k];
    }
    if (!hostIsLittleEndian())
    {
      swapFloatBytes(values);
    }
    source = &values;
  }

  FilePtr file = openOrFail(path, "wb", "for writing");
  unsigned char header[F32HeaderBytes];
  encodeLittleEndian(points.count, header, 8);
  encodeLittleEndian(static_cast<std::uint64_t>(points.dimension), header + 8, 4);
  bool ok = std::fwrite(header, 1, F32HeaderBytes, file.get()) == F32HeaderBytes;
  if (ok && scalars > 0)
  {
    ok = std::fwrite(source->data(), sizeof(float), scalars, file.get()) == scalars;
  }
  const int closeResult = std::fclose(file.release());
  if (!ok || closeResult != 0)
  {
    fail(path, std::string("write failed (") + std::strerror(errno) + ")");
  }
}

namespace
{

/// Writes `count` text lines, line k formatted into `line` by format(k, line, size) (which
/// returns its length), in blocks: one fprintf per line is slow for tens of millions of lines.
template <class Format>
void writeLines(const std::string& path, std::size_t count, Format format)
{
  FilePtr file = openOrFail(path, "wb", "for writing");
  std::string block;
  block.reserve(1 << 20);
  char line[160];
  bool ok = true;
  for (std::size_t k = 0; k < count && ok; ++k)
  {
    const int len = format(k, line, sizeof(line));
    block.append(line, static_cast<std::size_t>(len));
    if (block.size() >= (1u << 20) - sizeof(line))
    {
      ok = std::fwrite(block.data(), 1, block.size(), file.get()) == block.size();
      block.clear();
    }
  }
  if (ok && !block.empty())
  {
    ok = std::fwrite(block.data(), 1, block.size(), file.get()) == block.size();
  }
  const int closeResult = std::fclose(file.release());
  if (!ok || closeResult != 0)
  {
    fail(path, std::string("write failed (") + std::strerror(errno) + ")");
  }
}

} // namespace

void writeEdges(const std::string& path, const std::vector<Edge>& edges)
{
  writeLines(path, edges.size(),
    [&edges](std::size_t k, char* line, std::size_t size)
    {
      return std::snprintf(line, size, "%u %u %.17g\n", static_cast<unsigned>(edges[k].i),
        static_cast<unsigned>(edges[k].j), edges[k].length);
    });
}

void writeHdbscanPoints(const std::string& path, const std::vector<double>& coreDistance,
  const HdbscanClustering& clustering)
{
  const std::size_t n = clustering.labels.size();
  if (coreDistance.size() != n || clustering.probabilities.size() != n ||
    clustering.outlierScores.size() != n)
  {
    fail(path, "the per-point arrays differ in size");
  }
  writeLines(path, n,
    [&](std::size_t k, char* line, std::size_t size)
    {
      return std::snprintf(line, size, "%d %.17g %.17g %.17g\n",
        static_cast<int>(clustering.labels[k]), clustering.probabilities[k],
        clustering.outlierScores[k], coreDistance[k]);
    });
}

void writeCondensedTree(const std::string& path, const std::vector<CondensedTreeRow>& rows)
{
  writeLines(path, rows.size(),
    [&rows](std::size_t k, char* line, std::size_t size)
    {
      return std::snprintf(line, size, "%llu %llu %.17g %llu\n",
        static_cast<unsigned long long>(rows[k].parent),
        static_cast<unsigned long long>(rows[k].child), rows[k].lambda,
        static_cast<unsigned long long>(rows[k].size));
    });
}

bool jsonNumber(const std::string& text, const std::string& key, double& value)
{
  const std::string quoted = "\"" + key + "\"";
  constexpr const char* JsonSpace = " \t\r\n";
  for (std::size_t at = text.find(quoted); at != std::string::npos; at = text.find(quoted, at + 1))
  {
    const std::size_t colon = text.find_first_not_of(JsonSpace, at + quoted.size());
    if (colon == std::string::npos || text[colon] != ':')
    {
      continue; // the same characters as a string value, not as a member name
    }
    // The value's token ends where the member ends; the whole token must be one number.
    const std::size_t first = text.find_first_not_of(JsonSpace, colon + 1);
    if (first == std::string::npos || std::strchr(",]}", text[first]))
    {
      return false;
    }
    const std::size_t stop = std::min(text.find_first_of(",]}", first), text.size());
    const char* end = text.data() + text.find_last_not_of(JsonSpace, stop - 1) + 1;
    double number = 0.0;
    const auto parsed =
      std::from_chars(text.data() + first, end, number, std::chars_format::general);
    if (parsed.ec != std::errc() || parsed.ptr != end || !std::isfinite(number))
    {
      return false;
    }
    value = number;
    return true;
  }
  return false;
}

} // namespace emst
