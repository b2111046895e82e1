// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// emst/PointFile.h: .f32 and text reading, writing, and the errors (InvalidInput with the path
// and the reason). No engine call here.
#include "PointFileTesting.h"
#include "TestSupport.h"

#include "emst/PointFile.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <sstream>

using namespace emsttest;

namespace
{

/// The read must fail with InvalidInput; the message must name the file and contain `reason`.
void expectReadError(const std::string& path, const std::string& reason)
{
  try
  {
    emst::readPointFile(path);
    ADD_FAILURE() << path << ": read succeeded, expected an error about '" << reason << "'";
  }
  catch (const emst::Error& e)
  {
    EXPECT_EQ(e.code(), emst::ErrorCode::InvalidInput) << e.what();
    const std::string message = e.what();
    EXPECT_NE(message.find(path), std::string::npos)
      << "the message does not name the file: " << message;
    EXPECT_NE(message.find(reason), std::string::npos)
      << "the message does not say '" << reason << "': " << message;
  }
}

/// A text file that must not read: its name (the extension matters), its bytes, and what the
/// error must say.
struct TextErrorCase
{
  const char* name;
  const char* text;
  const char* reason;
};

void expectTextErrors(std::initializer_list<TextErrorCase> cases)
{
  for (const TextErrorCase& c : cases)
  {
    const std::string path = tempPath(c.name);
    writeBytes(path, c.text);
    expectReadError(path, c.reason);
    std::remove(path.c_str());
  }
}

bool sameBits(float a, float b)
{
  return std::memcmp(&a, &b, sizeof(float)) == 0;
}

} // namespace

TEST(PointFile, F32RoundTrip)
{
  Rng rng(3);
  for (int dim : { 2, 3 })
  {
    emst::PointSet points;
    points.dimension = dim;
    points.count = 1000;
    for (std::size_t k = 0; k < points.count * dim; ++k)
    {
      points.float32.push_back(static_cast<float>(rng.uniform(-1e6, 1e6)));
    }
    points.float32[5] = std::numeric_limits<float>::quiet_NaN();
    points.float32[6] = -std::numeric_limits<float>::infinity();
    points.float32[7] = std::numeric_limits<float>::denorm_min();
    const std::string path = tempPath("roundtrip" + std::to_string(dim) + ".f32");
    emst::writeF32(path, points);
    const emst::PointSet back = emst::readPointFile(path);
    EXPECT_EQ(back.dimension, dim);
    ASSERT_EQ(back.count, points.count);
    ASSERT_EQ(back.float32.size(), points.float32.size());
    EXPECT_TRUE(back.float64.empty());
    for (std::size_t k = 0; k < points.float32.size(); ++k)
    {
      ASSERT_TRUE(sameBits(back.float32[k], points.float32[k])) << "scalar " << k;
    }
    const emst::PointCloudView view = back.view();
    EXPECT_EQ(view.scalarType, emst::ScalarType::Float32);
    EXPECT_EQ(view.dimension, dim);
    EXPECT_EQ(view.count, points.count);
    EXPECT_TRUE(view.stride == 0 || view.stride == static_cast<std::size_t>(dim));
    EXPECT_EQ(view.data, static_cast<const void*>(back.float32.data()));
    EXPECT_EQ(view.memory, emst::MemorySpace::Host);
    std::remove(path.c_str());
  }
}

TEST(PointFile, F32ExactBytes)
{
  // The format, byte for byte: uint64 n, uint32 dim, then the floats, little endian.
  const std::string path = tempPath("bytes.f32");
  emst::PointSet points;
  points.dimension = 2;
  points.count = 2;
  points.float32 = { 1.0f, -2.5f, 3.0f, 0.125f };
  emst::writeF32(path, points);
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  EXPECT_EQ(bytes.str(), f32Header(2, 2) + floatBytes(points.float32));
  std::remove(path.c_str());
}

TEST(PointFile, F32Empty)
{
  const std::string path = tempPath("empty.f32");
  writeBytes(path, f32Header(0, 3));
  const emst::PointSet points = emst::readPointFile(path);
  EXPECT_EQ(points.count, 0u);
  EXPECT_EQ(points.dimension, 3);
  std::remove(path.c_str());
}

TEST(PointFile, F32FromTextRoundsToFloat)
{
  const std::string text = tempPath("values.xyz");
  writeBytes(text, "0.1 0.2 0.3\n1e-3 2 3\n");
  const emst::PointSet points = emst::readPointFile(text);
  const std::string f32 = tempPath("values.f32");
  emst::writeF32(f32, points);
  const emst::PointSet back = emst::readPointFile(f32);
  ASSERT_EQ(back.count, 2u);
  EXPECT_EQ(back.float32[0], 0.1f);
  EXPECT_EQ(back.float32[3], 1e-3f);
  std::remove(text.c_str());
  std::remove(f32.c_str());
}

TEST(PointFile, F32Errors)
{
  const std::string missing = tempPath("does_not_exist.f32");
  expectReadError(missing, "cannot open");

  const std::string shortHeader = tempPath("short.f32");
  writeBytes(shortHeader, std::string(5, '\0'));
  expectReadError(shortHeader, "truncated");

  const std::string badDim = tempPath("dim4.f32");
  writeBytes(badDim, f32Header(1, 4) + floatBytes({ 1, 2, 3, 4 }));
  expectReadError(badDim, "dimension 4");

  const std::string dim1 = tempPath("dim1.f32");
  writeBytes(dim1, f32Header(2, 1) + floatBytes({ 1, 2 }));
  expectReadError(dim1, "dimension 1");

  const std::string truncated = tempPath("truncated.f32");
  writeBytes(truncated, f32Header(10, 3) + floatBytes(std::vector<float>(29, 1.0f)));
  expectReadError(truncated, "too large for the file");
  expectReadError(truncated, "the file holds 128 bytes, 132 expected");

  // A count whose size does not fit in 64 bits is a broken header, not a short file (the size
  // computed modulo 2^64 once read "12 expected").
  const std::string huge = tempPath("huge.f32");
  for (const std::uint64_t n : { std::uint64_t(1) << 62, std::uint64_t(1) << 63, ~std::uint64_t(0),
         (~std::uint64_t(0) - 11) / 12 + 1 })
  {
    writeBytes(huge, f32Header(n, 3) + floatBytes({ 1, 2, 3 }) + std::string(108, '\0'));
    expectReadError(huge, "invalid .f32 header: n=" + std::to_string(n));
  }
  const std::uint64_t largestSize = (~std::uint64_t(0) - 12) / 8; // fits, with the header
  writeBytes(huge, f32Header(largestSize, 2) + floatBytes({ 1, 2 }));
  expectReadError(huge, std::to_string(12 + largestSize * 8) + " expected");

  const std::string trailing = tempPath("trailing.f32");
  writeBytes(trailing, f32Header(1, 2) + floatBytes({ 1, 2, 3 }));
  expectReadError(trailing, "trailing");

  for (const std::string& p : { shortHeader, badDim, dim1, truncated, huge, trailing })
  {
    std::remove(p.c_str());
  }
}

TEST(PointFile, TextFormats)
{
  struct Case
  {
    const char* name;
    const char* text;
    int dim;
    std::vector<double> values;
  };
  const Case cases[] = {
    { "a.xyz", "# comment\n1 2 3\n\n  4\t5   6  \n# another\n", 3, { 1, 2, 3, 4, 5, 6 } },
    { "b.csv", "x,y,z\n1,2,3\n-4.5e1, +5 ,6e-2\n", 3, { 1, 2, 3, -45, 5, 0.06 } },
    { "c.txt", "1.5 2.5\r\n3.5 4.5\r\n", 2, { 1.5, 2.5, 3.5, 4.5 } },
    { "d.XYZ", "x y\n0 0\n", 2, { 0, 0 } },
    { "e.csv", "1,2\n3,4", 2, { 1, 2, 3, 4 } }, // no final newline
    { "f.xyz", "0.1000000000000000055511151231257827 1e300 -0\n", 3, { 0.1, 1e300, -0.0 } },
  };
  for (const Case& c : cases)
  {
    const std::string path = tempPath(c.name);
    writeBytes(path, c.text);
    emst::PointSet points;
    ASSERT_NO_THROW(points = emst::readPointFile(path)) << c.name;
    EXPECT_EQ(points.dimension, c.dim) << c.name;
    EXPECT_EQ(points.count, c.values.size() / c.dim) << c.name;
    EXPECT_TRUE(points.float32.empty()) << c.name;
    EXPECT_EQ(points.float64, c.values) << c.name;
    const emst::PointCloudView view = points.view();
    EXPECT_EQ(view.scalarType, emst::ScalarType::Float64) << c.name;
    EXPECT_EQ(view.data, static_cast<const void*>(points.float64.data())) << c.name;
    std::remove(path.c_str());
  }
}

TEST(PointFile, TextNonFiniteValuesAreRead)
{
  // The engine leaves such points out with a warning; the reader must not refuse them.
  const std::string path = tempPath("nonfinite.xyz");
  writeBytes(path, "nan 1 2\ninf -inf 0\n1 2 3\n");
  const emst::PointSet points = emst::readPointFile(path);
  ASSERT_EQ(points.count, 3u);
  EXPECT_TRUE(std::isnan(points.float64[0]));
  EXPECT_EQ(points.float64[3], std::numeric_limits<double>::infinity());
  EXPECT_EQ(points.float64[4], -std::numeric_limits<double>::infinity());
  std::remove(path.c_str());
}

TEST(PointFile, TextExactFloat32Decimals)
{
  // An .xyz written with the exact decimal expansion of float32 values reads back to them.
  const float values[] = { 0.1f, -200.68307495117188f, 1.0e-30f, 3.4028234663852886e38f };
  std::string text;
  for (float v : values)
  {
    char buffer[200];
    std::snprintf(
      buffer, sizeof(buffer), "%.60g %.60g\n", static_cast<double>(v), static_cast<double>(v));
    text += buffer;
  }
  const std::string path = tempPath("exact.xyz");
  writeBytes(path, text);
  const emst::PointSet points = emst::readPointFile(path);
  ASSERT_EQ(points.count, 4u);
  for (int k = 0; k < 4; ++k)
  {
    EXPECT_EQ(points.float64[2 * k], static_cast<double>(values[k]));
  }
  std::remove(path.c_str());
}

TEST(PointFile, TextErrors)
{
  expectTextErrors({
    { "mixed.xyz", "1 2 3\n4 5\n", "mixed" },
    { "mixed2.csv", "1,2\n1,2,3\n", "mixed" },
    { "bad.xyz", "1 2 3\n4 five 6\n", "line 2" },
    { "bad2.xyz", "x y z\n1 2 3\nfoo bar baz\n", "line 3" },
    { "four.xyz", "1 2 3 4\n", "4 numbers" },
    { "one.txt", "1\n2\n", "line 1" },
    { "emptyfield.csv", "x,y,z\n1,,3\n4,5,6\n", "line 2" },
    { "garbage.xyz", "x y z\n1 2 3x\n4 5 6\n", "line 2" },
  });
  expectReadError(tempPath("missing.xyz"), "cannot open");
  const std::string unknown = tempPath("points.ply");
  writeBytes(unknown, "1 2 3\n");
  expectReadError(unknown, "unknown file type");
  std::remove(unknown.c_str());
}

TEST(PointFile, TextMalformedFirstPointIsNotAHeader)
{
  // A line that starts like a number is a point, however malformed: taking it for a header would
  // drop a point without a word. The error names the line.
  expectTextErrors({
    { "junk.xyz", "1 2 3 junk\n4 5 6\n", "line 1" },
    { "emptyfield.csv", "0,,0\n1,2,3\n", "line 1" },
    { "hex.xyz", "0x1p3 0 0\n1 2 3\n", "line 1" },
    { "signed.xyz", "-1 2 3q\n4 5 6\n", "line 1" },
    { "point.csv", ".5,1,z\n4,5,6\n", "line 1" },
    { "nonfinite.xyz", "inf 1 two\n4 5 6\n", "line 1" },
    { "aftercomments.xyz", "# c\n\n  \n1 2 3 junk\n4 5 6\n", "line 4" },
    { "crlf.xyz", "1 2 3 junk\r\n4 5 6\r\n", "line 1" },
  });
}

TEST(PointFile, TextHeaders)
{
  // One line that does not start like a number, before the first point, is a header.
  struct Case
  {
    const char* name;
    const char* text;
    std::size_t count;
  };
  const Case cases[] = {
    { "names.csv", "x,y,z\n1,2,3\n", 1 },
    { "index.csv", ",x,y\n1,2\n3,4\n", 2 },
    { "words.xyz", "# made by hand\nlongitude latitude\n1 2\n", 1 },
    { "info.xyz", "info 1 2\n1 2\n", 1 },
    { "minus.txt", "-x -y\n1 2\n", 1 },
  };
  for (const Case& c : cases)
  {
    const std::string path = tempPath(c.name);
    writeBytes(path, c.text);
    emst::PointSet points;
    ASSERT_NO_THROW(points = emst::readPointFile(path)) << c.name;
    EXPECT_EQ(points.count, c.count) << c.name;
    std::remove(path.c_str());
  }
}

TEST(PointFile, WriteEdges)
{
  const std::vector<emst::Edge> edges = { { 0, 1, 0.0 }, { 2, 5, 0.1 },
    { 1, 4294967294u, 1.0 / 3.0 }, { 3, 7, 1e300 } };
  const std::string path = tempPath("edges.txt");
  emst::writeEdges(path, edges);
  std::ifstream in(path);
  std::string line;
  std::size_t k = 0;
  while (std::getline(in, line))
  {
    ASSERT_LT(k, edges.size());
    std::istringstream fields(line);
    unsigned long i = 0, j = 0;
    std::string lengthText;
    ASSERT_TRUE(static_cast<bool>(fields >> i >> j >> lengthText)) << line;
    EXPECT_EQ(i, edges[k].i);
    EXPECT_EQ(j, edges[k].j);
    EXPECT_EQ(std::strtod(lengthText.c_str(), nullptr), edges[k].length) << line;
    ++k;
  }
  EXPECT_EQ(k, edges.size());
  std::remove(path.c_str());

  try
  {
    emst::writeEdges("/nonexistent-dir/edges.txt", edges);
    ADD_FAILURE() << "writing into a missing folder succeeded";
  }
  catch (const emst::Error& e)
  {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/edges.txt"), std::string::npos)
      << e.what();
  }
}

// Every real set's .f32 as read: the count, dimension and bounding box of its NAME.ref.json (taken
// from the same float32 values, without this reader), for Testing/Data always and for the shared
// sets too when they are there.
TEST(PointFile, DataSetFiles)
{
  std::vector<DataSetFile> sets = dataSetsIn(repoDataDir());
  ASSERT_FALSE(sets.front().name.empty()) << repoDataDir() << ": the repository's sets are missing";
  const std::vector<DataSetFile> shared = dataSetsIn(sharedDataDir());
  if (!shared.front().name.empty())
  {
    sets.insert(sets.end(), shared.begin(), shared.end());
  }
  for (const DataSetFile& set : sets)
  {
    SCOPED_TRACE(set.path(".f32"));
    const std::string json = fileText(set.path(".ref.json"));
    double n = 0.0, dim = 0.0;
    std::vector<double> lower, upper;
    ASSERT_TRUE(emst::jsonNumber(json, "n", n) && emst::jsonNumber(json, "dim", dim) &&
      jsonArray(json, "bbox_min", lower) && jsonArray(json, "bbox_max", upper));
    emst::PointSet points;
    ASSERT_NO_THROW(points = emst::readPointFile(set.path(".f32")));
    ASSERT_EQ(static_cast<double>(points.count), n);
    ASSERT_EQ(static_cast<double>(points.dimension), dim);
    ASSERT_EQ(points.float32.size(), points.count * points.dimension);
    EXPECT_TRUE(points.float64.empty());
    ASSERT_EQ(lower.size(), points.dimension);
    ASSERT_EQ(upper.size(), points.dimension);
    for (int a = 0; a < points.dimension; ++a)
    {
      float low = std::numeric_limits<float>::infinity();
      float high = -low;
      for (std::size_t k = 0; k < points.count; ++k)
      {
        low = std::min(low, points.float32[k * points.dimension + a]);
        high = std::max(high, points.float32[k * points.dimension + a]);
      }
      EXPECT_EQ(static_cast<double>(low), lower[a]) << "axis " << a;
      EXPECT_EQ(static_cast<double>(high), upper[a]) << "axis " << a;
    }
  }
}

TEST(PointFile, JsonNumber)
{
  const std::string json = "{\n \"name\": \"t\",\n \"n\": 35947, \"emst\": {\"total_weight\" :\n"
                           "  37.455210978787875 }, \"t\": -1.5e-3, \"list\": [\"clusters\", 1],\n"
                           " \"clusters\": 361, \"none\": null, \"text\": \"12\", \"junk\": 1.5x,\n"
                           " \"last\": 7}";
  double value = 0.0;
  ASSERT_TRUE(emst::jsonNumber(json, "n", value));
  EXPECT_EQ(value, 35947.0);
  ASSERT_TRUE(emst::jsonNumber(json, "total_weight", value)); // nested, spaces around ':'
  EXPECT_EQ(value, 37.455210978787875);
  ASSERT_TRUE(emst::jsonNumber(json, "t", value)); // "t" as a string value comes first
  EXPECT_EQ(value, -1.5e-3);
  ASSERT_TRUE(emst::jsonNumber(json, "clusters", value)); // "clusters" in an array comes first
  EXPECT_EQ(value, 361.0);
  ASSERT_TRUE(emst::jsonNumber(json, "last", value)); // the text's last member
  EXPECT_EQ(value, 7.0);
  value = 42.0;
  EXPECT_FALSE(emst::jsonNumber(json, "none", value));
  EXPECT_FALSE(emst::jsonNumber(json, "text", value));
  EXPECT_FALSE(emst::jsonNumber(json, "junk", value));
  EXPECT_FALSE(emst::jsonNumber(json, "missing", value));
  EXPECT_FALSE(emst::jsonNumber("{\"a\": ", "a", value));
  EXPECT_FALSE(emst::jsonNumber("{\"a\": }", "a", value));
  EXPECT_FALSE(emst::jsonNumber("{\"a\": 1e999}", "a", value));
  EXPECT_EQ(value, 42.0) << "a failed lookup must leave the value alone";
}
