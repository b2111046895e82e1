// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// Atomics and coherent loads, one spelling for both backends. Every packed key or ordering
// argument is given where the atomic is used.
#pragma once

#include "base/Index.h"

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace emst
{
namespace detail
{

// The CPU backend runs the same functors under OpenMP; GCC's __atomic builtins give it the same
// semantics as CUDA's device-scope atomics. Orders are as strong as each use needs, no stronger.

/// Lowers *address to value if value is smaller. Non-negative floats order like their bit
/// patterns, so this also serves float distances stored as bits.
EMST_HD EMST_FORCEINLINE void atomicMinU32(std::uint32_t* address, std::uint32_t value)
{
#if defined(__CUDA_ARCH__)
  atomicMin(address, value);
#else
  std::uint32_t seen = __atomic_load_n(address, __ATOMIC_RELAXED);
  while (value < seen &&
    !__atomic_compare_exchange_n(address, &seen, value, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
  {
  }
#endif
}

/// Returns the old value. Used by the bottom-up climbs: the writer of a child slot releases its
/// write through this increment, the second arriver acquires the sibling's write through it.
/// One acquire-release atomic at device scope, not two full fences: the climb from a leaf to the
/// root is a chain of these, so their latency is the climb's.
EMST_HD EMST_FORCEINLINE std::uint32_t atomicIncrementAcqRel(std::uint32_t* address)
{
#if defined(__CUDA_ARCH__)
  std::uint32_t old;
  asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;"
               : "=r"(old)
               : "l"(address)
               : "memory");
  return old;
#else
  return __atomic_fetch_add(address, 1u, __ATOMIC_ACQ_REL);
#endif
}

/// Takes the next slot of a counter (returns the old value). On the device the lanes of a warp
/// that call it together take consecutive slots with one atomic: a counter that millions of
/// threads bump (edges, new component labels) is not serialised lane by lane.
EMST_HD EMST_FORCEINLINE std::uint32_t takeSlot(std::uint32_t* counter)
{
#if defined(__CUDA_ARCH__)
  unsigned const mask = __activemask();
  unsigned const lane = threadIdx.x & 31u;
  int const leader = __ffs(mask) - 1;
  std::uint32_t base = 0;
  if (static_cast<int>(lane) == leader)
  {
    base = atomicAdd(counter, static_cast<std::uint32_t>(__popc(mask)));
  }
  base = __shfl_sync(mask, base, leader);
  return base + static_cast<std::uint32_t>(__popc(mask & ((1u << lane) - 1u)));
#else
  return __atomic_fetch_add(counter, 1u, __ATOMIC_RELAXED);
#endif
}

/// Functors whose threads take slots together (takeSlotTogether) say so with
/// `static constexpr bool kTakesSlotsTogether = true` and an operator()(index, active): every
/// thread of a block calls them, active when its index is in range (the kernels' loops are
/// uniform across a block; the CPU backend calls f(i, true) for each i).
template <class F, class = void>
struct TakesSlotsTogether : std::false_type
{
};
template <class F>
struct TakesSlotsTogether<F, std::void_t<decltype(F::kTakesSlotsTogether)>>
  : std::bool_constant<F::kTakesSlotsTogether>
{
};

/// f at index i, in range: f(i), or f(i, true) for a functor that takes slots together.
template <class F>
EMST_HD EMST_FORCEINLINE void callAt(const F& f, std::size_t i)
{
  if constexpr (TakesSlotsTogether<F>::value)
  {
    f(i, true);
  }
  else
  {
    f(i);
  }
}

#if defined(__CUDA_ARCH__)
/// The block's part of takeSlotTogether and takeSlotsTogether, called by every thread of the
/// block: one lane of each warp (`givesTotal`) gives its warp's count of slots, thread 0 adds the
/// block's to the counter; returns the first slot of the lane that has `beforeLane` slots of
/// its warp before its own.
__device__ __forceinline__ std::uint32_t slotOfBlock(
  std::uint32_t* counter, bool givesTotal, std::uint32_t warpTotal, std::uint32_t beforeLane)
{
  __shared__ std::uint32_t firstOfWarp[32];
  __shared__ std::uint32_t firstOfBlock;
  unsigned const warp = threadIdx.x >> 5;
  if (givesTotal)
  {
    firstOfWarp[warp] = warpTotal;
  }
  __syncthreads();
  if (threadIdx.x == 0)
  {
    std::uint32_t total = 0;
    for (unsigned w = 0; w < (blockDim.x + 31u) / 32u; ++w)
    {
      std::uint32_t const count = firstOfWarp[w];
      firstOfWarp[w] = total;
      total += count;
    }
    firstOfBlock = total > 0 ? atomicAdd(counter, total) : 0u;
  }
  __syncthreads();
  std::uint32_t const slot = firstOfBlock + firstOfWarp[warp] + beforeLane;
  __syncthreads(); // the block's next call may overwrite the words read here
  return slot;
}
#endif

/// takeSlot for the threads of a block that want a slot, with one atomic a block: every thread
/// of the block calls it (a collective: a block-wide sum of the warps' ballots, then one thread
/// adds the block's total). Where most warps of a launch take a slot, takeSlot's atomic a warp
/// on one counter is the launch's time (H100, 10^7 threads, at least one taker a warp: 250 us
/// against 42 without the slots, 144 at one taker in 32). Blocks of whole warps, at most 1024
/// threads. Returns an unspecified value to a thread that wants none. On the CPU, takeSlot for
/// those that want one.
EMST_HD EMST_FORCEINLINE std::uint32_t takeSlotTogether(std::uint32_t* counter, bool wants)
{
#if defined(__CUDA_ARCH__)
  unsigned const lane = threadIdx.x & 31u;
  unsigned const ballot = __ballot_sync(0xFFFFFFFFu, wants);
  return slotOfBlock(counter, lane == 0, static_cast<std::uint32_t>(__popc(ballot)),
    static_cast<std::uint32_t>(__popc(ballot & ((1u << lane) - 1u))));
#else
  return wants ? takeSlot(counter) : 0u;
#endif
}

/// takeSlotTogether for threads that want `wants` consecutive slots each (0 for none): the
/// first of them (unspecified for a thread that wants none). The same collective, over a scan
/// of the warp's counts instead of its ballot.
EMST_HD EMST_FORCEINLINE std::uint32_t takeSlotsTogether(
  std::uint32_t* counter, std::uint32_t wants)
{
#if defined(__CUDA_ARCH__)
  unsigned const lane = threadIdx.x & 31u;
  std::uint32_t upToLane = wants; // the warp's inclusive scan of the counts
  for (unsigned offset = 1; offset < 32u; offset <<= 1)
  {
    std::uint32_t const before = __shfl_up_sync(0xFFFFFFFFu, upToLane, offset);
    upToLane += lane >= offset ? before : 0u;
  }
  return slotOfBlock(counter, lane == 31u, upToLane, upToLane - wants);
#else
  return wants > 0 ? __atomic_fetch_add(counter, wants, __ATOMIC_RELAXED) : 0u;
#endif
}

/// Compare-and-swap; returns the value seen (== expected when the swap happened).
EMST_HD EMST_FORCEINLINE std::uint32_t atomicCasU32(
  std::uint32_t* address, std::uint32_t expected, std::uint32_t desired)
{
#if defined(__CUDA_ARCH__)
  return atomicCAS(address, expected, desired);
#else
  __atomic_compare_exchange_n(
    address, &expected, desired, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return expected;
#endif
}

/// counters[key] += 1. On the device the lanes of a warp with the same key add together with
/// one atomic: a histogram whose keys are mostly equal (one giant cluster) is not serialised
/// lane by lane on one address.
EMST_HD EMST_FORCEINLINE void countKey(std::uint32_t* counters, std::uint32_t key)
{
#if defined(__CUDA_ARCH__)
  unsigned const same = __match_any_sync(__activemask(), key);
  if (static_cast<int>(threadIdx.x & 31u) == __ffs(same) - 1)
  {
    atomicAdd(counters + key, static_cast<std::uint32_t>(__popc(same)));
  }
#else
  __atomic_fetch_add(counters + key, 1u, __ATOMIC_RELAXED);
#endif
}

/// Loads that must see other threads' writes made before a synchronising atomic (the climbs,
/// path halving, the partials of a reduction): bypass the non-coherent L1 on the device. A
/// struct is read word by word (whole 32-bit words).
template <class T>
EMST_HD EMST_FORCEINLINE T loadShared(const T* address)
{
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_scalar_v<T>)
  {
    return *static_cast<const volatile T*>(address);
  }
  else
  {
    static_assert(sizeof(T) % sizeof(std::uint32_t) == 0, "a struct of whole 32-bit words");
    T value;
    auto const* from = reinterpret_cast<const volatile std::uint32_t*>(address);
    auto* to = reinterpret_cast<std::uint32_t*>(&value);
    for (std::size_t w = 0; w < sizeof(T) / sizeof(std::uint32_t); ++w)
    {
      to[w] = from[w];
    }
    return value;
  }
#else
  T value;
  __atomic_load(address, &value, __ATOMIC_RELAXED);
  return value;
#endif
}
template <class T>
EMST_HD EMST_FORCEINLINE void storeShared(T* address, T value)
{
#if defined(__CUDA_ARCH__)
  *static_cast<volatile T*>(address) = value;
#else
  __atomic_store(address, &value, __ATOMIC_RELAXED);
#endif
}

} // namespace detail
} // namespace emst
