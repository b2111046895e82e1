// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// What the filters' C++ tests share: a failure count, EXPECT (prints the failure and goes on),
// and readers of the filters' field data.
#ifndef FilterTesting_h
#define FilterTesting_h

#include "vtkDataArray.h"
#include "vtkFieldData.h"
#include "vtkPolyData.h"
#include "vtkStringArray.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace filtertesting
{

/// Failed EXPECTs so far; main returns failure when it is not 0.
inline int Failures = 0;

#define EXPECT(condition, ...)                                                                     \
  do                                                                                               \
  {                                                                                                \
    if (!(condition))                                                                              \
    {                                                                                              \
      std::printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #condition);                             \
      std::printf(__VA_ARGS__);                                                                    \
      std::printf("\n");                                                                           \
      ++filtertesting::Failures;                                                                   \
    }                                                                                              \
  } while (false)

/// Value `index` of the string field array `name`, or "".
inline std::string FieldString(vtkPolyData* output, const char* name, vtkIdType index = 0)
{
  auto* array = vtkStringArray::SafeDownCast(output->GetFieldData()->GetAbstractArray(name));
  return array && array->GetNumberOfValues() > index ? array->GetValue(index) : std::string();
}

/// The first value of the numeric field array `name`, or NaN.
inline double FieldDouble(vtkPolyData* output, const char* name)
{
  vtkDataArray* array = output->GetFieldData()->GetArray(name);
  return array && array->GetNumberOfTuples() > 0 ? array->GetTuple1(0) : std::nan("");
}

/// Whether a message of the string field array `name` contains `part`.
inline bool HasMessage(
  vtkPolyData* output, const std::string& part, const char* name = "EMSTMessages")
{
  auto* array = vtkStringArray::SafeDownCast(output->GetFieldData()->GetAbstractArray(name));
  for (vtkIdType k = 0; array && k < array->GetNumberOfValues(); ++k)
  {
    if (array->GetValue(k).find(part) != std::string::npos)
    {
      return true;
    }
  }
  return false;
}

}

#endif
