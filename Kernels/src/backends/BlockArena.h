// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// The bookkeeping of one block of memory handed out in pieces: which ranges of the block are
// free, by offset. Plain C++ (no CUDA): the CUDA backend carves a small run's buffers out of one
// device block with it (CudaExec::reserveArena), and the CPU tests check it.
#pragma once

#include <cstddef>
#include <iterator>
#include <map>

namespace emst
{
namespace detail
{

/// Free ranges of a block of `capacity` bytes. A piece is taken from the smallest free range
/// that holds it (the lowest of equal ones: the same pieces in the same order land in the same
/// places), and a piece given back joins the free ranges beside it. Sizes round up to
/// kAlignment, which the block's start must have too. Every operation walks the free ranges
/// (few: the engine holds tens of buffers at once) on the host, without any device call. (CUB's
/// caching allocator would also spare the device calls, but rounds each size up to its bin, a
/// power of the bin growth: up to twice the bytes at the peak that issue 12 holds down.)
class BlockArena
{
public:
  static constexpr std::size_t kAlignment = 256;
  static constexpr std::size_t kNone = ~std::size_t(0);

  /// A block of `capacity` bytes (rounded down to kAlignment), all free; 0: no block.
  void reset(std::size_t capacity)
  {
    this->Capacity = capacity / kAlignment * kAlignment;
    this->Free.clear();
    if (this->Capacity > 0)
    {
      this->Free.emplace(0, this->Capacity);
    }
  }

  /// The offset of a piece of `bytes` (> 0), or kNone where no free range holds it.
  std::size_t take(std::size_t bytes)
  {
    std::size_t const size = rounded(bytes);
    if (size == 0)
    {
      return kNone; // nothing asked, or more than any block
    }
    auto best = this->Free.end();
    for (auto range = this->Free.begin(); range != this->Free.end(); ++range)
    {
      if (range->second >= size && (best == this->Free.end() || range->second < best->second))
      {
        best = range;
      }
    }
    if (best == this->Free.end())
    {
      return kNone;
    }
    std::size_t const offset = best->first;
    std::size_t const left = best->second - size;
    this->Free.erase(best);
    if (left > 0)
    {
      this->Free.emplace(offset + size, left);
    }
    return offset;
  }

  /// Gives back the piece of `bytes` taken at `offset`.
  void give(std::size_t offset, std::size_t bytes)
  {
    std::size_t size = rounded(bytes);
    auto next = this->Free.lower_bound(offset);
    if (next != this->Free.end() && offset + size == next->first)
    {
      size += next->second;
      next = this->Free.erase(next);
    }
    if (next != this->Free.begin())
    {
      auto const previous = std::prev(next);
      if (previous->first + previous->second == offset)
      {
        previous->second += size;
        return;
      }
    }
    this->Free.emplace_hint(next, offset, size);
  }

  std::size_t capacity() const { return this->Capacity; }
  /// Whether `offset` lies in the block.
  bool holds(std::size_t offset) const { return offset < this->Capacity; }
  std::size_t freeBytes() const
  {
    std::size_t bytes = 0;
    for (const auto& range : this->Free)
    {
      bytes += range.second;
    }
    return bytes;
  }
  std::size_t freeRanges() const { return this->Free.size(); }

private:
  static std::size_t rounded(std::size_t bytes)
  {
    return bytes > ~std::size_t(0) - kAlignment
      ? 0
      : (bytes + kAlignment - 1) / kAlignment * kAlignment;
  }

  std::size_t Capacity = 0;
  std::map<std::size_t, std::size_t> Free; ///< offset -> bytes, disjoint, none adjacent
};

} // namespace detail
} // namespace emst
