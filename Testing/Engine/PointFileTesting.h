// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// What the point-file tests share (PointFileTests.cxx, PointFileFuzzTests.cxx): files made byte
// by byte in the test's temporary folder.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace emsttest
{

/// A file name of this process in GoogleTest's temporary folder.
inline std::string tempPath(const std::string& name)
{
  return testing::TempDir() + "emst_pointfile_" + std::to_string(static_cast<long>(::getpid())) +
    "_" + name;
}

inline void writeBytes(const std::string& path, const std::string& bytes)
{
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// The 12 bytes of an .f32 header: little-endian uint64 n, uint32 dim.
inline std::string f32Header(std::uint64_t n, std::uint32_t dim)
{
  std::string header(12, '\0');
  for (int b = 0; b < 8; ++b)
  {
    header[b] = static_cast<char>((n >> (8 * b)) & 0xff);
  }
  for (int b = 0; b < 4; ++b)
  {
    header[8 + b] = static_cast<char>((dim >> (8 * b)) & 0xff);
  }
  return header;
}

/// Float32 values as little-endian bytes.
inline std::string floatBytes(const std::vector<float>& values)
{
  std::string bytes;
  for (float v : values)
  {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &v, 4);
    for (int b = 0; b < 4; ++b)
    {
      bytes.push_back(static_cast<char>((bits >> (8 * b)) & 0xff));
    }
  }
  return bytes;
}

} // namespace emsttest
