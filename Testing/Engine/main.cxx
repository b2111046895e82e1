// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
#include <gtest/gtest.h>

int main(int argc, char** argv)
{
  // Death tests re-run the binary instead of forking a process that may hold OpenMP threads or
  // a CUDA context.
#ifdef GTEST_FLAG_SET
  GTEST_FLAG_SET(death_test_style, "threadsafe");
#else
  testing::FLAGS_gtest_death_test_style = "threadsafe";
#endif
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
