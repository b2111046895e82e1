// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The point-file reader under random and mutated files (fixed seed, a few thousand files, about
// a second): every file either reads or throws Error(InvalidInput) whose message starts with the
// path; nothing else is thrown, nothing crashes (the sanitizer build runs this too) and no line is
// lost. Three oracles, from the format's definition rather than from the reader's code:
// - text made of known lines (points with known values, comments, blank lines, a header, junk):
//   the exact points, or an error that names the first bad line;
// - .f32 with random headers and sizes: the exact floats iff the header is valid and the size
//   matches it, else an error;
// - anything else (random bytes, mutations of the above): when text reads, every content line
//   (not blank, not '#') is a point except at most one header before the first point.
#include "PointFileTesting.h"
#include "TestClouds.h"

#include "emst/PointFile.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

using namespace emsttest;

namespace
{

constexpr const char* TextBlanks = " \t\r\v\f"; // what the reader trims from a line

/// The outcome of one read: the points, or the error's message.
struct ReadOutcome
{
  std::optional<emst::PointSet> points;
  std::string error;
};

/// Reads `path`, failing the test for anything but success or Error(InvalidInput) with a message
/// that starts with the path.
ReadOutcome readFile(const std::string& path)
{
  ReadOutcome outcome;
  try
  {
    outcome.points = emst::readPointFile(path);
  }
  catch (const emst::Error& e)
  {
    outcome.error = e.what();
    EXPECT_EQ(e.code(), emst::ErrorCode::InvalidInput) << outcome.error;
    EXPECT_EQ(outcome.error.rfind(path + ": ", 0), 0u) << "the message does not start with it";
    EXPECT_GT(outcome.error.size(), path.size() + 2) << "no reason given";
    EXPECT_LT(outcome.error.size(), path.size() + 400) << "the message quotes too much of the file";
  }
  catch (const std::exception& e)
  {
    ADD_FAILURE() << "not an emst::Error: " << e.what();
    outcome.error = e.what();
  }
  return outcome;
}

/// "1 2 3\n..." made visible for a failure message (bytes escaped, long texts cut).
std::string shown(const std::string& bytes)
{
  std::string out;
  for (std::size_t k = 0; k < bytes.size() && k < 600; ++k)
  {
    const unsigned char c = static_cast<unsigned char>(bytes[k]);
    if (c == '\n')
    {
      out += "\\n";
    }
    else if (c < 0x20 || c >= 0x7f)
    {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\x%02x", c);
      out += escaped;
    }
    else
    {
      out += static_cast<char>(c);
    }
  }
  return bytes.size() > 600 ? out + "... (" + std::to_string(bytes.size()) + " bytes)" : out;
}

/// No silent loss in a text that read: its content lines split like std::getline, trimmed of the
/// reader's blanks, neither empty nor starting with '#', are all points but for at most one
/// header, which comes first and does not start like a number.
void expectNoLineLost(const std::string& text, const emst::PointSet& points)
{
  ASSERT_TRUE(points.dimension == 2 || points.dimension == 3);
  ASSERT_EQ(points.float64.size(), points.count * static_cast<std::size_t>(points.dimension));
  std::vector<std::string> content;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line))
  {
    const std::size_t first = line.find_first_not_of(TextBlanks);
    if (first != std::string::npos && line[first] != '#')
    {
      content.push_back(line.substr(first));
    }
  }
  if (points.count == content.size())
  {
    return;
  }
  ASSERT_EQ(points.count + 1, content.size()) << "lines were dropped";
  const std::string& header = content.front();
  const std::size_t k = header[0] == '+' || header[0] == '-' ? 1 : 0;
  const auto digitAt = [&header](std::size_t at)
  { return at < header.size() && header[at] >= '0' && header[at] <= '9'; };
  EXPECT_FALSE(digitAt(k) || (k < header.size() && header[k] == '.' && digitAt(k + 1)))
    << "a line that starts like a number was dropped as a header: " << shown(header);
}

/// Bitwise equality, any NaN equal to any NaN.
bool sameValue(double a, double b)
{
  return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof(double)) == 0;
}

// ---- text made of known lines -------------------------------------------------------------------

/// A text file under construction, with what reading it must give.
struct TextCase
{
  std::string text;
  int dimension = 0;         ///< of the first point; 0 before it
  bool headerAllowed = true; ///< no point and no header yet
  std::size_t lines = 0;
  std::size_t badLine = 0;    ///< the first line that must be refused; 0: none
  std::vector<double> values; ///< the points' coordinates, when none is refused
};

/// A number's text; its value is strtod's (the C library, not the reader's from_chars).
std::string numberText(Rng& rng)
{
  char buffer[64];
  switch (rng.below(12))
  {
    case 0:
      return std::to_string(static_cast<long long>(rng.below(2000001)) - 1000000);
    case 1:
    case 2:
      std::snprintf(buffer, sizeof(buffer), "%.17g", rng.uniform(-1e6, 1e6));
      return buffer;
    case 3:
      std::snprintf(buffer, sizeof(buffer), "%.17g",
        std::ldexp(rng.uniform(-1.0, 1.0), static_cast<int>(rng.below(2100)) - 1100));
      return buffer;
    case 4:
      std::snprintf(buffer, sizeof(buffer), "%.6e", rng.uniform(-1.0, 1.0));
      return buffer;
    case 5:
      return "+" + std::to_string(rng.below(1000));
    case 6:
    {
      static const char* const special[] = { "-0", "0", ".5", "-.25", "5.", "1e400", "-1e400",
        "1e-400", "nan", "NaN", "inf", "-inf", "+inf", "Infinity", "-INF", "1E5", "0.0e-0" };
      return special[rng.below(sizeof(special) / sizeof(special[0]))];
    }
    case 7:
      // Long digit strings: exact in decimal, correctly rounded by both parsers.
      return "1" + std::string(rng.below(400), '0') + "e-" + std::to_string(rng.below(300));
    default:
      std::snprintf(buffer, sizeof(buffer), "%.9g", rng.uniform(-100.0, 100.0));
      return buffer;
  }
}

/// Blanks between fields (at least one character), or around a comma.
std::string spacing(Rng& rng, bool atLeastOne)
{
  static const char* const runs[] = { " ", "  ", "\t", " \t ", "\v", "\f" };
  if (!atLeastOne && rng.below(2) == 0)
  {
    return std::string();
  }
  return runs[rng.below(sizeof(runs) / sizeof(runs[0]))];
}

/// Fields joined the way a file does: by blanks, or by commas with optional blanks around.
std::string joinFields(const std::vector<std::string>& fields, bool commas, Rng& rng)
{
  std::string line = spacing(rng, false);
  for (std::size_t k = 0; k < fields.size(); ++k)
  {
    if (k > 0)
    {
      line += commas ? spacing(rng, false) + "," + spacing(rng, false) : spacing(rng, true);
    }
    line += fields[k];
  }
  return line + spacing(rng, false);
}

void addLine(TextCase& c, const std::string& line, Rng& rng, bool bad = false)
{
  ++c.lines;
  if (bad && c.badLine == 0)
  {
    c.badLine = c.lines;
  }
  const bool crlf = rng.below(3) == 0;
  c.text += line + (crlf ? "\r\n" : "\n");
}

/// A point; with `longGap`, a very long line: 100000 blanks after its first coordinate.
void addPoint(TextCase& c, int dimension, bool commas, Rng& rng, bool longGap = false)
{
  std::vector<std::string> fields;
  for (int k = 0; k < dimension; ++k)
  {
    fields.push_back(numberText(rng));
    c.values.push_back(std::strtod(fields.back().c_str(), nullptr));
  }
  const bool mixed = c.dimension != 0 && c.dimension != dimension;
  if (c.dimension == 0)
  {
    c.dimension = dimension;
  }
  c.headerAllowed = false;
  const std::string line = longGap ? fields[0] + std::string(100000, ' ') +
      joinFields(std::vector<std::string>(fields.begin() + 1, fields.end()), false, rng)
                                   : joinFields(fields, commas, rng);
  addLine(c, line, rng, mixed);
}

/// A line the reader must refuse, whatever comes before it: each starts like a number (a digit,
/// or a whole nan/inf), so none can pass for a header.
void addJunk(TextCase& c, int dimension, bool commas, Rng& rng)
{
  // None is a number, nor makes one when glued after digits.
  static const char* const tokens[] = { "junk", "1x", "0x1p3", "--1", "1e", "..", "+", "1..2", "#c",
    "infx", "1e5e5", "- 1", "\"1\"" };
  std::vector<std::string> fields;
  for (int k = 0; k < dimension; ++k)
  {
    fields.push_back(numberText(rng));
  }
  const std::string token = tokens[rng.below(sizeof(tokens) / sizeof(tokens[0]))];
  switch (rng.below(6))
  {
    case 0: // a token after the point
      fields.push_back(token);
      break;
    case 1: // a token instead of a later coordinate
      fields[1 + rng.below(static_cast<std::uint64_t>(dimension - 1))] = token;
      break;
    case 2: // an empty field (commas), or a token glued to a number (blanks)
      if (commas)
      {
        fields.insert(fields.begin() + 1, std::string());
      }
      else
      {
        fields[0] = std::to_string(rng.below(100)) + token; // not "nan" + token: see below
      }
      break;
    case 3: // one number, or four
      fields.resize(rng.below(2) == 0 ? 1 : 4, "7");
      break;
    case 4: // a NUL byte inside a field
      fields[1] += std::string(1, '\0') + "5";
      break;
    default: // a digit, then printable junk of any length
    {
      std::string junk = std::to_string(rng.below(10));
      const std::size_t length = rng.below(8) == 0 ? 100000 : 1 + rng.below(40);
      for (std::size_t k = 0; k < length; ++k)
      {
        const char c = static_cast<char>('!' + rng.below(94)); // printable, no blank
        junk += c == ',' ? ';' : c;                            // and no second field
      }
      fields.assign(1, junk);
      commas = false;
      break;
    }
  }
  addLine(c, joinFields(fields, commas, rng), rng, true);
}

void addHeader(TextCase& c, bool commas, Rng& rng)
{
  static const char* const words[] = { "x", "y", "z", "lon", "lat", "X", "index", "info", "name",
    "e", "-x", "_id", "nancy", "Point" };
  std::vector<std::string> fields;
  for (std::uint64_t k = 0, count = 1 + rng.below(4); k < count; ++k)
  {
    fields.push_back(words[rng.below(sizeof(words) / sizeof(words[0]))]);
  }
  const bool allowed = c.headerAllowed;
  c.headerAllowed = false;
  addLine(c, joinFields(fields, commas, rng), rng, !allowed);
}

TextCase makeTextCase(Rng& rng)
{
  TextCase c;
  const int dimension = 2 + static_cast<int>(rng.below(2));
  const bool commas = rng.below(2) == 0;
  const bool withJunk = rng.below(3) == 0;
  const std::uint64_t lines = rng.below(25);
  if (rng.below(3) == 0)
  {
    addHeader(c, commas, rng);
  }
  for (std::uint64_t k = 0; k < lines; ++k)
  {
    const std::uint64_t kind = rng.below(40);
    if (kind == 0)
    {
      addLine(c, "#" + std::string(rng.below(4) == 0 ? 200000 : rng.below(30), 'c'), rng);
    }
    else if (kind == 1)
    {
      addLine(c, spacing(rng, false), rng);
    }
    else if (kind == 2)
    {
      addHeader(c, commas, rng);
    }
    else if (kind == 3)
    {
      addPoint(c, 5 - dimension, commas, rng);
    }
    else if (kind == 4 && withJunk)
    {
      addJunk(c, dimension, commas, rng);
    }
    else
    {
      addPoint(c, dimension, commas, rng, kind == 5 && rng.below(3) == 0);
    }
  }
  if (rng.below(4) == 0 && !c.text.empty())
  {
    c.text.pop_back(); // no final newline ('\r' stays: it is a blank)
  }
  return c;
}

const char* textExtension(Rng& rng)
{
  static const char* const extensions[] = { ".xyz", ".csv", ".txt", ".XYZ" };
  return extensions[rng.below(4)];
}

// ---- .f32 with random headers -------------------------------------------------------------------

/// An .f32 file and whether its header and size agree (then it must read to these floats).
struct F32Case
{
  std::string bytes;
  bool valid = false;
  std::vector<float> floats;
};

F32Case makeF32Case(Rng& rng)
{
  F32Case c;
  if (rng.below(10) == 0)
  {
    for (std::uint64_t k = 0, size = rng.below(12); k < size; ++k)
    {
      c.bytes.push_back(static_cast<char>(rng.below(256))); // a truncated header
    }
    return c;
  }
  static const std::uint32_t oddDimensions[] = { 0, 1, 4, 7, 0xffffffffu, 0x80000003u };
  const std::uint32_t dim =
    rng.below(5) > 0 ? static_cast<std::uint32_t>(2 + rng.below(2)) : oddDimensions[rng.below(6)];
  std::uint64_t n = rng.below(40);
  switch (rng.below(8))
  {
    case 0:
      n = rng.next();
      break;
    case 1:
    {
      static const std::uint64_t huge[] = { std::uint64_t(1) << 63, ~std::uint64_t(0),
        (~std::uint64_t(0) - 11) / 12 + 1, std::uint64_t(1) << 62, (std::uint64_t(1) << 61) + 1 };
      n = huge[rng.below(5)];
      break;
    }
    default:
      break;
  }
  const bool small = n < 1000 && dim <= 3;
  std::uint64_t payload = small ? n * dim * 4 : rng.below(200);
  if (rng.below(4) == 0)
  {
    const std::uint64_t delta = 1 + rng.below(20);
    payload = rng.below(2) == 0 ? payload + delta : payload - std::min(payload, delta);
  }
  c.bytes = f32Header(n, dim);
  for (std::uint64_t k = 0; k < payload; ++k)
  {
    c.bytes.push_back(static_cast<char>(rng.below(256)));
  }
  c.valid = (dim == 2 || dim == 3) && small && payload == n * dim * 4;
  if (c.valid)
  {
    c.floats.resize(n * dim);
    for (std::size_t k = 0; k < c.floats.size(); ++k)
    {
      unsigned char b[4];
      for (int j = 0; j < 4; ++j)
      {
        b[j] = static_cast<unsigned char>(c.bytes[12 + 4 * k + j]);
      }
      const std::uint32_t bits = b[0] | (b[1] << 8) | (b[2] << 16) | (std::uint32_t(b[3]) << 24);
      std::memcpy(&c.floats[k], &bits, 4);
    }
  }
  return c;
}

// ---- mutations and noise ------------------------------------------------------------------------

/// A byte flipped, a range cut out, random bytes inserted, or the end cut off; one to three times.
std::string mutate(std::string bytes, Rng& rng)
{
  for (std::uint64_t m = 0, count = 1 + rng.below(3); m < count; ++m)
  {
    const std::size_t at = static_cast<std::size_t>(rng.below(bytes.size() + 1));
    switch (rng.below(4))
    {
      case 0:
        if (at < bytes.size())
        {
          bytes[at] = static_cast<char>(rng.below(256));
        }
        break;
      case 1:
        bytes.erase(at, static_cast<std::size_t>(rng.below(8)));
        break;
      case 2:
        for (std::uint64_t k = 0, size = 1 + rng.below(6); k < size; ++k)
        {
          bytes.insert(at, 1, static_cast<char>(rng.below(256)));
        }
        break;
      default:
        bytes.resize(at);
        break;
    }
  }
  return bytes;
}

/// Random bytes: any byte, or only those that numbers, separators and line ends are made of.
std::string noise(Rng& rng)
{
  static const std::string alphabet = "0123456789.,+-eE \t\r\n#xnaif";
  std::string bytes;
  const bool anyByte = rng.below(3) == 0;
  for (std::uint64_t k = 0, size = rng.below(300); k < size; ++k)
  {
    bytes.push_back(
      anyByte ? static_cast<char>(rng.below(256)) : alphabet[rng.below(alphabet.size())]);
  }
  return bytes;
}

} // namespace

TEST(PointFile, FuzzedFilesReadOrFailCleanly)
{
  Rng rng(20261123);
  const std::string f32Path = tempPath("fuzz.f32");
  int failures = 0;
  for (int round = 0; round < 1200 && failures < 5; ++round)
  {
    // Known text lines: the exact points, or an error naming the first bad line.
    {
      const TextCase c = makeTextCase(rng);
      const std::string path = tempPath(std::string("fuzz") + textExtension(rng));
      writeBytes(path, c.text);
      SCOPED_TRACE("round " + std::to_string(round) + ", text: " + shown(c.text));
      const ReadOutcome outcome = readFile(path);
      if (c.badLine > 0)
      {
        EXPECT_FALSE(outcome.points.has_value()) << "a bad line " << c.badLine << " was accepted";
        EXPECT_NE(outcome.error.find("line " + std::to_string(c.badLine)), std::string::npos)
          << "the error does not name line " << c.badLine << ": " << outcome.error;
      }
      else if (outcome.points)
      {
        const emst::PointSet& p = *outcome.points;
        EXPECT_EQ(p.dimension, c.dimension == 0 ? 3 : c.dimension);
        EXPECT_EQ(p.float64.size(), c.values.size());
        for (std::size_t k = 0; k < c.values.size() && k < p.float64.size(); ++k)
        {
          EXPECT_TRUE(sameValue(p.float64[k], c.values[k]))
            << "value " << k << ": " << p.float64[k] << ", expected " << c.values[k];
        }
        expectNoLineLost(c.text, p);
      }
      else
      {
        ADD_FAILURE() << "a valid text was refused: " << outcome.error;
      }
      // The same text, mutated: reads without a lost line, or fails cleanly.
      const std::string mutated = mutate(c.text, rng);
      writeBytes(path, mutated);
      SCOPED_TRACE("mutated: " + shown(mutated));
      const ReadOutcome after = readFile(path);
      if (after.points)
      {
        expectNoLineLost(mutated, *after.points);
      }
      std::remove(path.c_str());
    }
    // .f32: the floats bit for bit iff the header is valid and the size agrees.
    {
      const F32Case c = makeF32Case(rng);
      writeBytes(f32Path, c.bytes);
      SCOPED_TRACE("round " + std::to_string(round) + ", .f32: " + shown(c.bytes.substr(0, 12)) +
        " + " + std::to_string(c.bytes.size() < 12 ? 0 : c.bytes.size() - 12) + " bytes");
      const ReadOutcome outcome = readFile(f32Path);
      EXPECT_EQ(outcome.points.has_value(), c.valid) << outcome.error;
      if (outcome.points && c.valid)
      {
        ASSERT_EQ(outcome.points->float32.size(), c.floats.size());
        EXPECT_TRUE(c.floats.empty() ||
          std::memcmp(outcome.points->float32.data(), c.floats.data(), c.floats.size() * 4) == 0);
      }
      writeBytes(f32Path, mutate(c.bytes, rng));
      readFile(f32Path);
    }
    // Noise, read as text and as .f32.
    {
      const std::string bytes = noise(rng);
      const std::string path = tempPath(std::string("noise") + textExtension(rng));
      writeBytes(path, bytes);
      SCOPED_TRACE("round " + std::to_string(round) + ", noise: " + shown(bytes));
      const ReadOutcome outcome = readFile(path);
      if (outcome.points)
      {
        expectNoLineLost(bytes, *outcome.points);
      }
      writeBytes(f32Path, bytes);
      readFile(f32Path);
      std::remove(path.c_str());
    }
    failures += testing::Test::HasFailure() ? 1 : 0;
  }
  std::remove(f32Path.c_str());
}
