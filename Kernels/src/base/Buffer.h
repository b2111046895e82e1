// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Owning arrays in a backend's memory (CpuExec: heap; CudaExec: the device's stream-ordered pool).
#pragma once

#include <cstddef>

namespace emst
{
namespace detail
{

/// Owning array in backend memory. Move-only; released in reverse order of creation by scope,
/// or early with reset().
template <class T, class Exec>
class Buffer
{
public:
  Buffer(Exec& exec, std::size_t count)
    : ExecPtr(&exec)
    , Count(count)
    , Data(static_cast<T*>(exec.allocate(count * sizeof(T))))
  {
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& other) noexcept
    : ExecPtr(other.ExecPtr)
    , Count(other.Count)
    , Data(other.Data)
  {
    other.Data = nullptr;
    other.Count = 0;
  }
  Buffer& operator=(Buffer&& other) noexcept
  {
    if (this != &other)
    {
      this->reset();
      this->ExecPtr = other.ExecPtr;
      this->Count = other.Count;
      this->Data = other.Data;
      other.Data = nullptr;
      other.Count = 0;
    }
    return *this;
  }
  ~Buffer() { this->reset(); }
  void reset() noexcept
  {
    if (this->Data)
    {
      this->ExecPtr->deallocate(this->Data, this->Count * sizeof(T));
      this->Data = nullptr;
      this->Count = 0;
    }
  }
  T* data() const { return this->Data; }
  T* end() const { return this->Data + this->Count; }
  std::size_t size() const { return this->Count; }

private:
  Exec* ExecPtr;
  std::size_t Count;
  T* Data;
};

} // namespace detail
} // namespace emst
