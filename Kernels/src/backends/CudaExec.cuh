// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// CUDA backend of the engine: the per-index functors run as kernels on one stream, the library
// algorithms through Thrust's CUDA system (CUB underneath), all memory from the device's
// stream-ordered pool. Every CUDA call and every launch is checked.
#pragma once

#include "backends/BlockArena.h"
#include "backends/Layouts.h"
#include "base/Atomics.h"
#include "base/Buffer.h"
#include "base/Index.h"
#include "emst/Emst.h"

#include <cooperative_groups.h>
#include <cub/block/block_merge_sort.cuh>
#include <cub/block/block_radix_rank.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <thrust/system/cuda/execution_policy.h>

#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace emst
{
namespace detail
{

[[noreturn]] inline void throwCudaError(
  cudaError_t error, const char* call, const char* file, int line)
{
  (void)cudaGetLastError(); // clear a non-sticky error so that clean-up can proceed
  ErrorCode const code =
    error == cudaErrorMemoryAllocation ? ErrorCode::OutOfMemory : ErrorCode::DeviceError;
  throw Error(code,
    std::string("CUDA error ") + cudaGetErrorName(error) + " (" + cudaGetErrorString(error) +
      ") in " + call + " at " + file + ":" + std::to_string(line));
}

#define EMST_CUDA_CHECK(call)                                                                      \
  do                                                                                               \
  {                                                                                                \
    cudaError_t const emstCudaStatus = (call);                                                     \
    if (emstCudaStatus != cudaSuccess)                                                             \
    {                                                                                              \
      ::emst::detail::throwCudaError(emstCudaStatus, #call, __FILE__, __LINE__);                   \
    }                                                                                              \
  } while (0)

/// Every kernel of the backend starts here. Its launch may overlap the end of the kernel
/// before it on the stream (programmatic dependent launch, Hopper on: CudaExec::launch), so it
/// first waits for that kernel to complete and its writes to be visible, then lets the next
/// kernel's launch begin. Round after round the engine queues chains of small dependent kernels
/// (tens of them a round): the overlap hides the launch and block ramp-up of each behind the
/// tail of the one before.
__device__ __forceinline__ void followPreviousKernel()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
  cudaTriggerProgrammaticLaunchCompletion();
#endif
}

/// f at index i of a range of n: f(i) when i < n; a functor that takes slots together
/// (TakesSlotsTogether) on every thread, f(i, i < n). Callers reach it on every thread of a
/// block alike.
template <class F>
__device__ __forceinline__ void callInRange(const F& f, std::size_t i, std::size_t n)
{
  if constexpr (TakesSlotsTogether<F>::value)
  {
    f(i, i < n);
  }
  else if (i < n)
  {
    f(i);
  }
}

template <class F>
__global__ void forEachKernel(std::size_t n, F f)
{
  followPreviousKernel();
  std::size_t const i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n)
  {
    f(i);
  }
}

/// f(c) for every component c < *components of a round, unless one component is left; the
/// count is computed on the device by an earlier launch.
template <class F>
__global__ void componentKernel(const std::uint32_t* components, F f)
{
  followPreviousKernel();
  std::size_t const n = *components;
  if (n <= 1)
  {
    return;
  }
  std::size_t const stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  // Stepped by the block's first index: every thread of a block runs the loop as often.
  for (std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x; first < n;
       first += stride)
  {
    callInRange(f, first + threadIdx.x, n);
  }
}

constexpr int kBlock = 256;
constexpr int kSearchBlock = 128;

/// Blocks of kSearchBlock threads a multiprocessor that a search functor's kernel is compiled
/// for: as many as the 64K registers hold at its budget (F::kRegisters, the metric's
/// kSearchRegisters), else 0 (the compiler's choice).
template <class F, class = void>
struct SearchBlocks : std::integral_constant<int, 0>
{
};
template <class F>
struct SearchBlocks<F, std::void_t<decltype(F::kRegisters)>>
  : std::integral_constant<int, (F::kRegisters > 0 ? 65536 / (kSearchBlock * F::kRegisters) : 0)>
{
};

/// f(i) for i < n, unless the round has nothing left to do (*components <= 1).
template <class F>
__device__ __forceinline__ void unlessDone(std::size_t n, const std::uint32_t* components, F& f)
{
  followPreviousKernel();
  if (*components <= 1)
  {
    return;
  }
  callInRange(f, static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x, n);
}

/// The threads a multiprocessor holds on the architecture being compiled (the device pass; the
/// host pass sees the largest), and MinBlocks blocks of Block threads capped to what fits there:
/// a register budget that asks more blocks than fit (12 of 128 threads on a 1024-thread Turing
/// multiprocessor) is ignored by the compiler with a warning.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
constexpr int kThreadsPerMultiprocessor = 1024;
#elif defined(__CUDA_ARCH__) &&                                                                    \
  ((__CUDA_ARCH__ >= 860 && __CUDA_ARCH__ < 900) || __CUDA_ARCH__ >= 1200)
constexpr int kThreadsPerMultiprocessor = 1536;
#else
constexpr int kThreadsPerMultiprocessor = 2048;
#endif
EMST_HD constexpr int residentBlocks(int block, int minBlocks)
{
  return minBlocks < kThreadsPerMultiprocessor / block ? minBlocks
                                                       : kThreadsPerMultiprocessor / block;
}

/// unlessDone in blocks of Block threads (the searches run with their own, smaller block size).
template <int Block, class F>
__global__ void __launch_bounds__(Block)
  unlessDoneKernel(std::size_t n, const std::uint32_t* components, F f)
{
  unlessDone(n, components, f);
}

/// The same, compiled for MinBlocks blocks a multiprocessor (SearchBlocks: the searches whose
/// metric gives a register budget). A kernel without the budget keeps the bare bound: an explicit
/// minimum of one block changed the compiler's register choice (2D searches 40 -> 48 and 56
/// registers, uniform 1e7 2D 5% slower).
template <int Block, int MinBlocks, class F>
__global__ void __launch_bounds__(Block, residentBlocks(Block, MinBlocks))
  boundedUnlessDoneKernel(std::size_t n, const std::uint32_t* components, F f)
{
  unlessDone(n, components, f);
}

/// f(i) for i < *count (a list that an earlier launch wrote), unless the round has nothing left
/// to do, on a grid of one resident wave that the host sizes without knowing the count: each
/// warp takes the next 32 entries from *taken (zero on entry) until none are left. The lanes of
/// a warp keep consecutive entries (neighbouring points), and a warp that finishes early takes
/// more instead of leaving its block's slot to the next block.
template <class F>
__device__ __forceinline__ void listed(
  const std::uint32_t* count, unsigned long long* taken, const std::uint32_t* components, F& f)
{
  followPreviousKernel();
  if (*components <= 1)
  {
    return;
  }
  unsigned long long const n = *count;
  unsigned const lane = threadIdx.x & 31u;
  for (;;)
  {
    unsigned long long first = 0;
    if (lane == 0)
    {
      first = atomicAdd(taken, 32ull);
    }
    first = __shfl_sync(0xFFFFFFFFu, first, 0);
    if (first >= n)
    {
      return;
    }
    if (first + lane < n)
    {
      f(static_cast<std::size_t>(first + lane));
    }
  }
}

/// listed in blocks of Block threads, with the bare bound or (MinBlocks > 0) a register budget,
/// as the searches' kernels above.
template <int Block, class F>
__global__ void __launch_bounds__(Block) listedKernel(
  const std::uint32_t* count, unsigned long long* taken, const std::uint32_t* components, F f)
{
  listed(count, taken, components, f);
}
template <int Block, int MinBlocks, class F>
__global__ void __launch_bounds__(Block, residentBlocks(Block, MinBlocks)) boundedListedKernel(
  const std::uint32_t* count, unsigned long long* taken, const std::uint32_t* components, F f)
{
  listed(count, taken, components, f);
}

/// Where a kernel leaves a small result for the host (CudaExec's read-backs): `value` in host
/// memory the GPU writes (mapped), then `number` in `sequence`, which the host polls; or, with no
/// sequence, `value` in device memory, which the host copies.
template <class T>
struct ReadBackTarget
{
  T* value;
  unsigned long long* sequence; ///< null: `value` is device memory
  unsigned long long number;

  /// Called by one thread once the value is written.
  __device__ void publish() const
  {
    if (sequence)
    {
      __threadfence_system(); // the value before its number, as the host sees them
      *static_cast<volatile unsigned long long*>(sequence) = number;
    }
  }
};

/// op(init, f(0), ..., f(n-1)) into result's value (and alsoOnDevice, unless null) in one launch
/// (Exec::transformReduce, Exec::transformReduceLater): every
/// block reduces its share into partial[block]; the block that finishes last (a ticket, zero on
/// entry, which it zeroes again: CudaExec::ticket) reduces the partials. op is associative and
/// commutative.
template <class T, class F, class Op>
__global__ void __launch_bounds__(kBlock) transformReduceKernel(std::size_t n, F f, T init, Op op,
  T* partial, unsigned long long* ticket, ReadBackTarget<T> result, T* alsoOnDevice)
{
  followPreviousKernel();
  using Reduce = cub::BlockReduce<T, kBlock>;
  __shared__ typename Reduce::TempStorage temp;
  __shared__ bool last;
  T value = init;
  std::size_t const stride = static_cast<std::size_t>(gridDim.x) * kBlock;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * kBlock + threadIdx.x; i < n;
       i += stride)
  {
    value = op(value, f(i));
  }
  T const ofBlock = Reduce(temp).Reduce(value, op);
  if (threadIdx.x == 0)
  {
    partial[blockIdx.x] = ofBlock;
    __threadfence(); // the partial before the ticket
    last = atomicAdd(ticket, 1ull) == gridDim.x - 1;
    if (last)
    {
      atomicExch(ticket, 0ull); // every ticket taken: zero for the next launch that takes one
    }
  }
  __syncthreads();
  if (!last)
  {
    return;
  }
  __threadfence(); // every other block's partial is in L2: read them there
  value = init;
  for (unsigned b = threadIdx.x; b < gridDim.x; b += kBlock)
  {
    value = op(value, loadShared(partial + b));
  }
  T const total = Reduce(temp).Reduce(value, op);
  if (threadIdx.x == 0)
  {
    if (alsoOnDevice)
    {
      *alsoOnDevice = total; // for the kernels queued after this one
    }
    *result.value = total;
    result.publish();
  }
}

/// words[0..count) into the read-back's value (CudaExec::copyToHostUntimed), one block.
template <class Word>
__global__ void __launch_bounds__(kBlock)
  publishWordsKernel(const Word* words, std::size_t count, ReadBackTarget<Word> result)
{
  followPreviousKernel();
  for (std::size_t i = threadIdx.x; i < count; i += kBlock)
  {
    result.value[i] = words[i];
  }
  __threadfence_system(); // every thread's words before the number
  __syncthreads();
  if (threadIdx.x == 0)
  {
    result.publish();
  }
}

/// 1 where pred(i), else 0 (Exec::count's terms).
template <class Pred>
struct CountTerm
{
  Pred pred;
  __device__ unsigned long long operator()(std::size_t i) const { return pred(i) ? 1ull : 0ull; }
};

/// The most tiles of a one-launch sort: the knob `name`'s value where set, else `fallback`; 0
/// (the library's sort always) where the device launches no cooperative kernels.
inline std::size_t cooperativeTiles(int cooperative, const char* name, std::size_t fallback)
{
  const char* knob = std::getenv(name);
  return !cooperative ? 0
    : knob            ? static_cast<std::size_t>(std::strtoull(knob, nullptr, 10))
                      : fallback;
}

/// The small sort (CudaExec::sortPairsByBits up to kSmallSortTiles tiles): one tile of
/// kSmallSortItems pairs a block, a byte of the key a pass.
constexpr int kSmallSortBlock = 256;
constexpr int kSmallSortItemsPerThread = 8;
constexpr int kSmallSortItems = kSmallSortBlock * kSmallSortItemsPerThread;
constexpr int kSmallSortDigits = 256;
constexpr int kSmallSortWarpItems = 32 * kSmallSortItemsPerThread;
/// The most tiles a sort takes in one launch by default (262144 pairs). H200, the sort phase
/// (the codes' sort and its count) and the output phase, library -> one launch, medians of five
/// alternating blocks, us: scan_bunny36k (18 tiles) 123 -> 94 and 117 -> 96,
/// lidar_autzen110k (54) 135 -> 112 and 205 -> 192, geo_cities1000 (67) 132 -> 120 and 208 ->
/// 205; uniform 2e5 3D (98) 143 -> 144 and 125 -> 137; lidar_lonestar519k (254) 158 -> 295 and
/// 354 -> 476 (a pass's two grid barriers and each thread's sum over the tiles' counts grow with
/// the tiles, the library's passes hardly). Each pass ranking its tile (one match a warp and
/// digit) instead of sorting it (CUB's block sort: two 4-bit ranks and two exchanges of the
/// pairs), the tiles' counts read a row a tile, and the passes that move nothing skipped (ncu,
/// lidar_autzen110k): the codes' sort 77 -> 59 us, the lengths' 67 -> 44. With that kernel,
/// 80 -> 300 tiles at most, whole runs, medians of four alternating blocks, ms: uniform 2e5 3D
/// (98 tiles) 1.302 -> 1.213, uniform 3e5 3D (147) 1.43 -> 1.41, lidar_lonestar519k (254)
/// 2.035 -> 2.068: the crossing lies between 147 and 254 tiles.
constexpr std::size_t kSmallSortTiles = 128;

/// The digit of a pass (CUB's rank takes it from this).
template <class K>
struct PassDigit
{
  int bit;
  K mask;
  __device__ __forceinline__ std::uint32_t Digit(K key) const
  {
    return static_cast<std::uint32_t>((key >> bit) & mask);
  }
};

/// The pairs (keys[0][i], values[0][i]), i < n, sorted stably by the key bits [beginBit, endBit)
/// in one cooperative launch of one block a tile, a least significant digit radix sort a byte a
/// pass between the two arrays of each; the result ends in [passes % 2] (passes: the bytes of
/// the range), as if every pass had moved the pairs. A pass: each block ranks its tile's pairs
/// by the digit (CUB's rank by warp matches: a pair's place among the tile's pairs of smaller
/// digits and of its own digit before it, with the tile's start of each digit), publishes its
/// digits' counts, and after a grid barrier finds where each digit of its tile goes (the counts
/// of every digit and of the tiles before its own, summed by one thread a digit), scatters its
/// pairs there from registers, and waits at a second barrier for the others' scatters. A pass
/// whose digit is one for every pair (a byte that every key shares: the top of the output's
/// lengths, say) moves nothing and skips the scatter and its barrier (the counts alternate
/// between two arrays, so that the next pass's counts never overwrite ones still being read);
/// when the skipped passes leave the pairs in the other array than promised, each block copies
/// its tile there at the end. Stable: a tile's pairs are loaded warp-striped, the order in which
/// the rank counts them, and the tiles keep theirs.
/// Against the library's sort (a histogram, a scan, then one launch and one memset a pass), one
/// launch: at 10^5 pairs the host's launches were what the library's sort waited on.
template <class K, class V>
__global__ void __launch_bounds__(kSmallSortBlock) smallSortKernel(K* keys0, K* keys1, V* values0,
  V* values1, std::uint32_t n, int beginBit, int endBit, std::uint32_t* countOfDigit)
{
  using Rank = cub::BlockRadixRankMatch<kSmallSortBlock, 8, false>;
  using Scan = cub::BlockScan<std::uint32_t, kSmallSortBlock>;
  static_assert(Rank::BINS_TRACKED_PER_THREAD == 1, "one digit a thread");
  __shared__ union
  {
    typename Rank::TempStorage rank;
    typename Scan::TempStorage scan;
  } temp;
  __shared__ std::uint32_t digitStart[kSmallSortDigits]; // in the ranked tile
  __shared__ std::uint32_t digitBase[kSmallSortDigits];  // in the output
  cooperative_groups::grid_group const grid = cooperative_groups::this_grid();
  std::uint32_t const tiles = gridDim.x;
  std::uint32_t const tile = blockIdx.x;
  std::uint32_t const first = tile * kSmallSortItems;
  std::uint32_t const valid = n - first < kSmallSortItems ? n - first : kSmallSortItems;
  int const d = static_cast<int>(threadIdx.x); // the digit this thread counts
  // Warp-striped: item j of lane l of warp w is the tile's pair w * 256 + j * 32 + l.
  std::uint32_t const lane = threadIdx.x % 32;
  std::uint32_t const warpFirst = (threadIdx.x / 32) * kSmallSortWarpItems;
  K* from = keys0;
  K* to = keys1;
  V* fromValue = values0;
  V* toValue = values1;
  int pass = 0;
  int skipped = 0;
  for (int bit = beginBit; bit < endBit; bit += 8, ++pass)
  {
    int const bits = endBit - bit < 8 ? endBit - bit : 8;
    PassDigit<K> const digitOf{ bit, static_cast<K>((1u << bits) - 1) };
    K key[kSmallSortItemsPerThread];
    V value[kSmallSortItemsPerThread];
    for (int j = 0; j < kSmallSortItemsPerThread; ++j)
    {
      std::uint32_t const i = warpFirst + j * 32 + lane;
      // Past the end: the largest key, whose digit is the largest and ranks after every pair
      // of the tile with that digit; not counted, not scattered.
      key[j] = i < valid ? from[first + i] : ~K(0);
      value[j] = i < valid ? fromValue[first + i] : V(0);
    }
    int rank[kSmallSortItemsPerThread];
    int start[1];
    Rank(temp.rank).RankKeys(key, rank, digitOf, start);
    digitStart[d] = static_cast<std::uint32_t>(start[0]);
    __syncthreads();
    // The padding ranks last, after the valid pairs of the largest digit, (1 << bits) - 1.
    std::uint32_t const largest = (1u << bits) - 1;
    std::uint32_t const own = static_cast<std::uint32_t>(d);
    std::uint32_t const count = own < largest ? digitStart[d + 1] - digitStart[d]
      : own == largest                        ? valid - digitStart[d]
                                              : 0u;
    std::uint32_t* const counts =
      countOfDigit + static_cast<std::size_t>(pass % 2) * kSmallSortDigits * tiles;
    counts[static_cast<std::size_t>(tile) * kSmallSortDigits + d] = count;
    grid.sync();
    // Where digit d of this tile goes: the counts of the smaller digits, then of digit d in the
    // tiles before this one. A tile's counts are one row, so that the block's loads of a tile
    // are one coalesced request (one thread a digit), several in flight.
    std::uint32_t before = 0;
    std::uint32_t total = 0;
#pragma unroll 16
    for (std::uint32_t t = 0; t < tiles; ++t)
    {
      std::uint32_t const c = counts[static_cast<std::size_t>(t) * kSmallSortDigits + d];
      before += t < tile ? c : 0u;
      total += c;
    }
    // Every block sees the same totals, so every block skips the same passes.
    if (__syncthreads_or(total == n))
    {
      ++skipped; // one digit holds every pair: the pass moves nothing
      continue;
    }
    std::uint32_t smaller = 0;
    Scan(temp.scan).ExclusiveSum(total, smaller);
    digitBase[d] = smaller + before;
    __syncthreads();
    for (int j = 0; j < kSmallSortItemsPerThread; ++j)
    {
      if (warpFirst + j * 32 + lane < valid)
      {
        std::uint32_t const digit = digitOf.Digit(key[j]);
        std::uint32_t const at =
          digitBase[digit] + (static_cast<std::uint32_t>(rank[j]) - digitStart[digit]);
        to[at] = key[j];
        toValue[at] = value[j];
      }
    }
    grid.sync(); // every scatter done before the next pass loads
    K* const keysWere = from;
    from = to;
    to = keysWere;
    V* const valuesWere = fromValue;
    fromValue = toValue;
    toValue = valuesWere;
  }
  if (skipped % 2 != 0)
  {
    // The pairs are one array off where every pass moving them would have left them: each
    // block moves its own tile (the last pass that moved ended at a barrier).
    for (std::uint32_t i = threadIdx.x; i < valid; i += kSmallSortBlock)
    {
      to[first + i] = from[first + i];
      toValue[first + i] = fromValue[first + i];
    }
  }
}

/// Instantiated graphs kept from one run to the next (CudaExec::replay): for each kind of
/// replayed body (keptGraphs' type) and device, the graph of the last run that replayed one,
/// for the next run of the process to update with its own arguments instead of instantiating
/// one (H200 host, 80 small kernels: instantiated 190-370 us, captured again and updated 70 +
/// 15 us; RESULTS.md, 2026-12-02). A run takes it for its own while it replays; the graphs stay
/// until the process ends.
class KeptGraphs
{
public:
  /// The kept graph of `device`, now the caller's, or null.
  cudaGraphExec_t take(int device)
  {
    std::lock_guard<std::mutex> const guard(this->Lock);
    if (device < 0 || device >= kDevices)
    {
      return nullptr;
    }
    cudaGraphExec_t const graph = this->Graph[device];
    this->Graph[device] = nullptr;
    return graph;
  }

  /// `graph` (idle) kept for `device`'s next run, or destroyed where one is kept already.
  void give(int device, cudaGraphExec_t graph)
  {
    std::lock_guard<std::mutex> const guard(this->Lock);
    if (device >= 0 && device < kDevices && !this->Graph[device])
    {
      this->Graph[device] = graph;
      return;
    }
    cudaGraphExecDestroy(graph);
  }

private:
  static constexpr int kDevices = 16;
  std::mutex Lock;
  cudaGraphExec_t Graph[kDevices] = {};
};

/// The kept graphs of one kind of replayed body.
template <class Body>
KeptGraphs& keptGraphs()
{
  static KeptGraphs kept; // its graphs outlive it: no CUDA call after the runtime has gone
  return kept;
}

/// The largest block CudaExec::reserveArena takes for a run: runs up to a few million points
/// (the plan's bytes: 72 a point in 3D, the input and 16 MiB of scratch), whose set-up and output
/// the host's allocations slow; a larger run spends milliseconds on the GPU for each of its
/// microseconds of allocation, and keeps the pool's exact sizes.
constexpr std::size_t kArenaMostBytes = std::size_t(256) << 20;

/// The small merge sort (CudaExec::sortByLess up to kSmallMergeTiles tiles): one tile of
/// kSmallMergeItems items a block, four a thread (the library's tile for 16-byte items: each
/// thread's serial merge is the chain a round waits on).
constexpr int kSmallMergeBlock = 256;
constexpr int kSmallMergeItemsPerThread = 4;
constexpr int kSmallMergeItems = kSmallMergeBlock * kSmallMergeItemsPerThread;
/// The most tiles a sort by `less` takes in one launch by default (262144 items). H200
/// (RESULTS.md, 2026-12-01), ncu, the output's long runs, the library's merge sort (a block sort,
/// then a one-block partition kernel of 8-11 us and a merge kernel of 4-5 us a round) -> one
/// launch: tsp_monalisa100k (90 tiles, 7 rounds) 110 -> 42 us, lidar_autzen110k (12 tiles, 4
/// rounds) 57 -> 28 us. 256 -> 1024 tiles at most (RESULTS.md, 2026-12-01, three alternating
/// blocks): lidar_lonestar519k's output (351 tiles of tied lengths, 9 merge rounds) 331-339 ->
/// 280-292 us, the library's 18 launches one; the GPU's resident wave still caps the tiles
/// (residentBlocks: 40-byte items fit 5 blocks a multiprocessor).
constexpr std::size_t kSmallMergeTiles = 1024;

/// The merge rounds that smallMergeKernel runs after sorting its tiles: one a doubling of the
/// sorted width, kSmallMergeItems, until it covers all n items.
inline int smallMergeRounds(std::size_t n)
{
  int rounds = 0;
  for (std::size_t width = kSmallMergeItems; width < n; width *= 2)
  {
    ++rounds;
  }
  return rounds;
}

/// cub::MergePath by one warp (every lane calls it, with the same arguments): how many of the
/// first `diagonal` items of the merge of keys1 [count1] and keys2 [count2] come from keys1,
/// keys1's first where they tie. The split is the first i at which keys2[diagonal - 1 - i] <
/// keys1[i] (false, then true, along i); each step the 32 lanes test 32 places at once and the
/// range shrinks 32-fold: four dependent loads for 10^5 items instead of seventeen.
template <class T, class Less>
__device__ __forceinline__ std::uint32_t warpMergePath(const T* keys1, const T* keys2,
  std::uint32_t count1, std::uint32_t count2, std::uint32_t diagonal, const Less& less)
{
  std::uint32_t const lane = threadIdx.x % 32;
  std::uint32_t begin = diagonal > count2 ? diagonal - count2 : 0u;
  std::uint32_t end = diagonal < count1 ? diagonal : count1;
  while (begin < end)
  {
    std::uint32_t const step = (end - begin + 31) / 32;
    std::uint32_t const at = begin + lane * step;
    bool const after = at < end && less(keys2[diagonal - 1 - at], keys1[at]);
    unsigned const ballot = __ballot_sync(0xFFFFFFFFu, after);
    if (ballot == 0u)
    {
      // Every place tested lies before the split: it is past the last one tested.
      std::uint32_t const tested = (end - begin - 1) / step; // the last lane that tested
      begin = begin + tested * step + 1;
    }
    else
    {
      std::uint32_t const k = static_cast<std::uint32_t>(__ffs(static_cast<int>(ballot)) - 1);
      end = begin + k * step; // true there
      begin = k > 0 ? begin + (k - 1) * step + 1 : begin;
    }
  }
  return begin;
}

/// The items[0][i], i < n, sorted by `less` (a strict weak order; items it finds equal in any
/// order: the engine sorts distinct ones) in one cooperative launch of one block a tile: each
/// block sorts its tile in place (CUB's block merge sort), then, between grid barriers, merge
/// rounds between the two arrays each double the sorted runs, as the library's device merge
/// sort does in a partition and a merge launch a round. In a round a block writes one tile of
/// the output: its first two warps find where the tile's first and end cut the two runs it
/// merges (warpMergePath in global memory), the block loads those two pieces into shared
/// memory, each thread merges kSmallMergeItemsPerThread of them from its own diagonal, and the
/// block stores the tile from shared memory (loads and stores coalesced). The result ends in
/// [smallMergeRounds(n) % 2].
template <class T, class Less>
__global__ void __launch_bounds__(kSmallMergeBlock)
  smallMergeKernel(T* items0, T* items1, std::uint32_t n, Less less)
{
  using Sort = cub::BlockMergeSort<T, kSmallMergeBlock, kSmallMergeItemsPerThread>;
  __shared__ union
  {
    typename Sort::TempStorage sort;
    T tile[kSmallMergeItems + 1]; // + 1: the serial merge reads one past a piece's end
  } temp;
  __shared__ std::uint32_t cut[2]; // where the tile's first and end cut the first run
  cooperative_groups::grid_group const grid = cooperative_groups::this_grid();
  std::uint32_t const first = blockIdx.x * static_cast<std::uint32_t>(kSmallMergeItems);
  std::uint32_t const valid =
    n - first < static_cast<std::uint32_t>(kSmallMergeItems) ? n - first : kSmallMergeItems;
  std::uint32_t const own = threadIdx.x * kSmallMergeItemsPerThread; // blocked: a run a thread
  T item[kSmallMergeItemsPerThread];
  // The tile in: coalesced into shared memory, then each thread's run from there.
  for (std::uint32_t i = threadIdx.x; i < valid; i += kSmallMergeBlock)
  {
    temp.tile[i] = items0[first + i];
  }
  __syncthreads();
  for (int k = 0; k < kSmallMergeItemsPerThread; ++k)
  {
    item[k] = own + k < valid ? temp.tile[own + k] : temp.tile[0];
  }
  // CUB pads a thread's places past the valid items with the largest of its default and its
  // items after the first: the default must not be below any of them (else a pad sorts before
  // a valid item and takes its place). The thread's own largest is such a default.
  T largest = item[0];
  for (int k = 1; k < kSmallMergeItemsPerThread; ++k)
  {
    if (own + k < valid && less(largest, item[k]))
    {
      largest = item[k];
    }
  }
  __syncthreads(); // the tile read before the sort's storage (the same room) is written
  Sort(temp.sort).Sort(item, less, static_cast<int>(valid), largest);
  T* out = items0; // the tile's sorted run goes back in place
  for (std::uint32_t width = kSmallMergeItems;; width *= 2)
  {
    // The thread's items out through shared memory, whose room the sort or the last merge has
    // finished reading.
    __syncthreads();
    for (int k = 0; k < kSmallMergeItemsPerThread; ++k)
    {
      if (own + k < valid)
      {
        temp.tile[own + k] = item[k];
      }
    }
    __syncthreads();
    for (std::uint32_t i = threadIdx.x; i < valid; i += kSmallMergeBlock)
    {
      out[first + i] = temp.tile[i];
    }
    if (width >= n)
    {
      break;
    }
    grid.sync(); // the runs of this width complete
    T* const from = out;
    out = out == items0 ? items1 : items0;
    // The runs [a, a + width) and [a + width, a + 2 width) of `from` merge; this tile's part
    // of the result starts at diagonal `first - a` of the two.
    std::uint32_t const a = first / (2 * width) * (2 * width);
    std::uint32_t const middle = n - a < width ? n : a + width;
    std::uint32_t const end = n - a < 2 * width ? n : a + 2 * width;
    if (threadIdx.x < 64)
    {
      std::uint32_t const diagonal = first - a + (threadIdx.x < 32 ? 0u : valid);
      std::uint32_t const split =
        warpMergePath(from + a, from + middle, middle - a, end - middle, diagonal, less);
      if (threadIdx.x % 32 == 0)
      {
        cut[threadIdx.x / 32] = split;
      }
    }
    __syncthreads();
    std::uint32_t const begin1 = a + cut[0];
    std::uint32_t const pieces1 = cut[1] - cut[0];
    std::uint32_t const begin2 = middle + (first - a) - cut[0];
    for (std::uint32_t i = threadIdx.x; i < valid; i += kSmallMergeBlock)
    {
      temp.tile[i] = i < pieces1 ? from[begin1 + i] : from[begin2 + (i - pieces1)];
    }
    __syncthreads();
    int const pieces2 = static_cast<int>(valid - pieces1);
    int const diagonal = own < valid ? static_cast<int>(own) : static_cast<int>(valid);
    int const split = cub::MergePath(
      temp.tile, temp.tile + pieces1, static_cast<int>(pieces1), pieces2, diagonal, less);
    int index[kSmallMergeItemsPerThread];
    cub::SerialMerge(temp.tile, split, static_cast<int>(pieces1) + diagonal - split,
      static_cast<int>(pieces1) - split, pieces2 - (diagonal - split), item, index, less);
  }
}

/// The running maximum (Exec::runningMaximum) in one launch of one tile a block, instead of
/// the library's scan (its decoupled look-back cost about 15 us a call whatever the size: most
/// of a round's bookkeeping on a small cloud). Index values, 0 the identity.
constexpr int kScanBlock = 256;
constexpr int kScanItems = 4; // tiles of 1024: 4 or 8 measured alike at 10^7 points, 4 faster below
constexpr std::size_t kScanTile = std::size_t(kScanBlock) * kScanItems;
/// Tiles up to which each block reduces the maxima of all the tiles before its own (at most 16
/// loads a thread); beyond, the tile maxima are scanned by the library between two launches.
constexpr std::size_t kScanTilesReduced = 4096;

using IndexMaximum = thrust::maximum<Index>;

/// out[i] = f(i) (runningMaximum's values written out for the library's scan).
template <class F>
struct StoreValue
{
  F f;
  Index* out;
  __device__ void operator()(std::size_t i) const { out[i] = f(i); }
};

using TileReduce = cub::BlockReduce<Index, kScanBlock>;
using TileScan = cub::BlockScan<Index, kScanBlock>;
union TileTemp
{
  typename TileReduce::TempStorage reduce;
  typename TileScan::TempStorage scan;
};

/// Tile `tile`'s values f(i), each thread a run of kScanItems consecutive ones (the block
/// scan's blocked arrangement), scanned in place; `tileMaximum` receives the tile's maximum.
template <class F>
__device__ __forceinline__ void scanTile(std::size_t n, const F& f, std::size_t tile,
  TileTemp& temp, Index (&value)[kScanItems], Index& tileMaximum)
{
  std::size_t const first = tile * kScanTile + std::size_t(threadIdx.x) * kScanItems;
  for (int k = 0; k < kScanItems; ++k)
  {
    value[k] = first + k < n ? f(first + k) : 0u;
  }
  TileScan(temp.scan).InclusiveScan(value, value, IndexMaximum{}, tileMaximum);
}

/// out[i] = max(prefix, the scanned value) over tile `tile`.
__device__ __forceinline__ void writeTile(
  std::size_t n, std::size_t tile, Index prefix, const Index (&value)[kScanItems], Index* out)
{
  std::size_t const first = tile * kScanTile + std::size_t(threadIdx.x) * kScanItems;
  for (int k = 0; k < kScanItems; ++k)
  {
    if (first + k < n)
    {
      out[first + k] = IndexMaximum{}(prefix, value[k]);
    }
  }
}

/// Up to kScanTilesReduced tiles: out[i] = max f(0..i) in one launch. Blocks take tiles in the
/// order they start (a ticket, zero on entry, zero again once all are taken), so that a block
/// waits only on blocks already running: each publishes its tile's maximum with the call's
/// epoch in one 64-bit word (statusOfTile, whose words carry other calls' epochs), then reduces
/// the maxima of all the tiles before its own, waiting for any not yet published.
template <class F>
__global__ void __launch_bounds__(kScanBlock)
  onePassMaximumKernel(std::size_t n, const std::uint32_t* components, F f,
    unsigned long long* ticket, unsigned long long* statusOfTile, std::uint32_t hostEpoch,
    const std::uint32_t* serial, Index* out)
{
  followPreviousKernel();
  if (components && *components <= 1)
  {
    return;
  }
  __shared__ TileTemp temp;
  __shared__ Index shared;
  if (threadIdx.x == 0)
  {
    Index const taken = static_cast<Index>(atomicAdd(ticket, 1ull));
    if (taken + 1 == gridDim.x)
    {
      atomicExch(ticket, 0ull); // every ticket taken: zero for the next launch that takes one
    }
    shared = taken;
  }
  __syncthreads();
  Index const tile = shared;
  // A replayed launch (CudaExec::replay) tells its calls apart by the device's serial, the
  // host's calls by their own count: the first from 2^31 on, the second below.
  std::uint32_t const epoch = serial ? (*serial | 0x80000000u) : hostEpoch;
  Index value[kScanItems];
  Index tileMaximum = 0;
  scanTile(n, f, tile, temp, value, tileMaximum);
  if (threadIdx.x == 0)
  {
    // Epoch and maximum in one word: a reader that sees the epoch sees the maximum.
    storeShared(statusOfTile + tile, (static_cast<unsigned long long>(epoch) << 32) | tileMaximum);
  }
  Index before = 0;
  for (Index t = threadIdx.x; t < tile; t += kScanBlock)
  {
    unsigned long long word = loadShared(statusOfTile + t);
    while (static_cast<std::uint32_t>(word >> 32) != epoch)
    {
      word = loadShared(statusOfTile + t);
    }
    before = IndexMaximum{}(before, static_cast<Index>(word));
  }
  __syncthreads(); // the scan's room, reused
  Index const prefix = TileReduce(temp.reduce).Reduce(before, IndexMaximum{});
  if (threadIdx.x == 0)
  {
    shared = prefix;
  }
  __syncthreads();
  writeTile(n, tile, shared, value, out);
}

/// Beyond kScanTilesReduced tiles, first launch: tileMaximum[t] = max f(i) over tile t, unless
/// the round is done.
template <class F>
__global__ void __launch_bounds__(kScanBlock)
  tileMaximumKernel(std::size_t n, const std::uint32_t* components, F f, Index* tileMaximum)
{
  followPreviousKernel();
  if (*components <= 1)
  {
    return;
  }
  std::size_t const first = static_cast<std::size_t>(blockIdx.x) * kScanTile;
  Index value = 0;
  for (int k = 0; k < kScanItems; ++k)
  {
    std::size_t const i = first + static_cast<std::size_t>(k) * kScanBlock + threadIdx.x;
    if (i < n)
    {
      value = IndexMaximum{}(value, f(i));
    }
  }
  __shared__ typename TileReduce::TempStorage temp;
  Index const total = TileReduce(temp).Reduce(value, IndexMaximum{});
  if (threadIdx.x == 0)
  {
    tileMaximum[blockIdx.x] = total;
  }
}

/// Beyond kScanTilesReduced tiles, once the tile maxima are scanned (exclusive: tilePrefix[t]
/// is the maximum of the tiles before t): out[i] = max f(0..i).
template <class F>
__global__ void __launch_bounds__(kScanBlock) runningMaximumKernel(
  std::size_t n, const std::uint32_t* components, F f, const Index* tilePrefix, Index* out)
{
  followPreviousKernel();
  if (*components <= 1)
  {
    return;
  }
  __shared__ TileTemp temp;
  Index value[kScanItems];
  Index tileMaximum = 0;
  scanTile(n, f, blockIdx.x, temp, value, tileMaximum);
  writeTile(n, blockIdx.x, tilePrefix[blockIdx.x], value, out);
}

/// A profiler range (NVTX, seen in Nsight Systems) around one step of a phase, from
/// construction to destruction, on the host thread that queues the step's launches (Nsight
/// projects it onto their GPU work). Without a profiler attached each end is one call that
/// returns at once.
class NvtxRange
{
public:
  explicit NvtxRange(const char* name) { nvtxRangePushA(name); }
  ~NvtxRange() { nvtxRangePop(); }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

template <class T>
struct FillValue
{
  T* data;
  T value;
  __device__ void operator()(std::size_t i) const { data[i] = value; }
};

/// Host memory that kernels write small results into for the host to poll (CudaExec's
/// read-backs): one slot a CudaExec, for its lifetime. Mapped and portable (every device's
/// kernels reach it); taken from chunks allocated once a process and never freed (a few
/// kilobytes: pinning memory costs more than a run's read-backs save, and the driver releases it
/// at exit).
struct ReadBackSlot
{
  static constexpr std::size_t kWords = 128; ///< 32-bit words of value: 512 bytes
  /// The first half holds the read-back waited for at once, the second the one value fetched
  /// later (CudaExec::transformReduceLater), which the reads queued after it must not overwrite.
  static constexpr std::size_t kLaterWord = kWords / 2;
  unsigned long long sequence; ///< the last read-back's number, written last (numbers increase)
  std::uint32_t words[kWords];
};

class ReadBackSlots
{
public:
  /// A slot, or null where no mapped memory can be had (the read-backs then copy).
  static ReadBackSlot* take()
  {
    ReadBackSlots& slots = instance();
    std::lock_guard<std::mutex> lock(slots.Mutex);
    if (slots.Free.empty())
    {
      constexpr std::size_t kChunk = 16;
      void* chunk = nullptr;
      if (cudaHostAlloc(&chunk, kChunk * sizeof(ReadBackSlot),
            cudaHostAllocMapped | cudaHostAllocPortable) != cudaSuccess)
      {
        (void)cudaGetLastError();
        return nullptr;
      }
      for (std::size_t i = 0; i < kChunk; ++i)
      {
        ReadBackSlot* const slot = static_cast<ReadBackSlot*>(chunk) + i;
        slot->sequence = 0;
        slots.Free.push_back(slot);
      }
    }
    ReadBackSlot* const slot = slots.Free.back();
    slots.Free.pop_back();
    return slot;
  }

  static void give(ReadBackSlot* slot)
  {
    if (slot)
    {
      ReadBackSlots& slots = instance();
      std::lock_guard<std::mutex> lock(slots.Mutex);
      slots.Free.push_back(slot);
    }
  }

private:
  static ReadBackSlots& instance()
  {
    static ReadBackSlots* const slots = new ReadBackSlots; // never destroyed: see above
    return *slots;
  }
  std::mutex Mutex;
  std::vector<ReadBackSlot*> Free;
};

/// A value that CudaExec::transformReduceLater queued, for CudaExec::fetch.
template <class T>
struct CudaLater
{
  ReadBackTarget<T> target{ nullptr, nullptr, 0 };
};

class CudaExec
{
public:
  /// The exact coordinates are read from the input in place, through the input indices (no
  /// Morton-ordered copy: 12 bytes a point fewer in 3D float), for about 0.5% more time.
  static constexpr bool kCopiesExactCoordinates = false;
  /// Leaves: the fast layout (3D: cells halved up to 8 points; 2D: quadtree cells of up to 16),
  /// or the lean one when only that fits the GPU's memory (backends/Layouts.h, runOnCuda's plan).
  LeafLayout leafLayout(int dim) const { return gpuLeaves(this->Lean, dim); }
  void useLeanLayout(bool lean) { this->Lean = lean; }
  /// Memory before speed where the two trade (the output's tie order): with the lean layout.
  bool savesMemory() const { return this->Lean; }
  /// Large sets list their searchers from round two (listsSearchers): full warps.
  static constexpr bool kListsSearchers = true;
  /// Round one defers its searches' long climbs (deferredClimbLevels): full warps for them.
  static constexpr bool kDefersClimbs = true;
  /// A small run's later rounds replay one captured round (ReplayedRounds, replay): the host's
  /// launches, not the GPU, set the pace of their kernels.
  static constexpr bool kReplaysRounds = true;
  /// The output's edges, fewer than this, are sorted by comparison in one launch where they fit
  /// (mergedEdgesBelow, sortsByLessAtOnce) instead of by a radix sort of their lengths' top bits
  /// and the runs after it.
  static constexpr std::size_t kMergedEdgesBelow = std::size_t(1) << 20;
  /// No neighbour lists (answerFromList): round one's search for the K nearest costs a GPU more
  /// than the later rounds save (H100, uniform 1e7 3D: round one 7.1 -> 16.6 / 26.3 ms with 4 /
  /// 6 entries, rounds two on 23.9 -> 16.8 / 13.0 ms; 36.5 -> 39.0 / 44.9 ms in all; before the
  /// searches' reach, kSearchReach, which took the later rounds to 20.7 ms without lists). 0 also
  /// leaves the list search out of the CUDA build (its kernels for the three list lengths more
  /// than double the backend's compile time): set 4, 6 or 8 to build it in and measure it with
  /// EMST_NEIGHBOURS.
  static constexpr int kNeighbours = 0;
  /// Thrust's temporary storage comes from the same pool, on the same stream.
  struct ThrustAllocator
  {
    using value_type = char;
    CudaExec* exec;
    char* allocate(std::ptrdiff_t bytes)
    {
      return static_cast<char*>(exec->allocate(static_cast<std::size_t>(bytes)));
    }
    void deallocate(char* p, std::size_t bytes) { exec->deallocate(p, bytes); }
  };

  explicit CudaExec(cudaStream_t stream)
    : Stream(stream)
    , Sync(std::getenv("EMST_CUDA_SYNC") != nullptr)
  {
    // EMST_CUDA_MEMORY_LIMIT_MB caps what the engine may take, as if the GPU were that small:
    // how the out-of-memory paths (clean-up, Auto's CPU fall-back) are tested on a large GPU.
    if (const char* limit = std::getenv("EMST_CUDA_MEMORY_LIMIT_MB"))
    {
      this->Limit = static_cast<std::size_t>(std::strtoull(limit, nullptr, 10)) << 20;
    }
    int device = 0;
    int multiprocessors = 0;
    EMST_CUDA_CHECK(cudaGetDevice(&device));
    EMST_CUDA_CHECK(
      cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
    this->Multiprocessors = static_cast<std::size_t>(multiprocessors);
    this->Device = device;
    // Overlapped launches need a device of compute capability 9.0 or more running kernels built
    // for one (their followPreviousKernel waits; built for an older one, or compiled at run time
    // from an older one's PTX, it is empty). Knob EMST_CUDA_OVERLAP=0: plain stream order.
    int major = 0;
    EMST_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    cudaFuncAttributes kernel{};
    EMST_CUDA_CHECK(cudaFuncGetAttributes(&kernel, forEachKernel<FillValue<std::uint32_t>>));
    const char* overlap = std::getenv("EMST_CUDA_OVERLAP");
    this->Overlap = major >= 9 && kernel.binaryVersion >= 90 && kernel.ptxVersion >= 90 &&
      !(overlap && std::string(overlap) == "0");
    // Sorts of up to SmallSortTiles tiles in one launch (smallSortKernel), where the device
    // launches cooperative kernels. Knob EMST_CUDA_SMALL_SORT: that many tiles at most (0: the
    // library's sort always).
    int cooperative = 0;
    EMST_CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
    this->SmallSortTiles = cooperativeTiles(cooperative, "EMST_CUDA_SMALL_SORT", kSmallSortTiles);
    // Replayed work as graphs (replay), unless every launch is waited for (EMST_CUDA_SYNC).
    // Knob EMST_CUDA_GRAPHS=0: the replayed launches queued one by one.
    const char* graphs = std::getenv("EMST_CUDA_GRAPHS");
    this->Graphs = !this->Sync && !(graphs && std::string(graphs) == "0");
    // Knob EMST_CUDA_SMALL_MERGE: the most tiles of sortByLess's one launch (smallMergeKernel;
    // 0: the library's merge sort always).
    this->SmallMergeTiles =
      cooperativeTiles(cooperative, "EMST_CUDA_SMALL_MERGE", kSmallMergeTiles);
    // Small results (counts, the box, the rounds' counters) come back through mapped host
    // memory that the host polls. Knob EMST_CUDA_READBACK=copy: a copy and a stream
    // synchronisation each instead.
    const char* readBack = std::getenv("EMST_CUDA_READBACK");
    if (!(readBack && std::string(readBack) == "copy"))
    {
      this->Slot = ReadBackSlots::take();
      if (this->Slot &&
        cudaHostGetDevicePointer(reinterpret_cast<void**>(&this->DeviceSlot), this->Slot, 0) !=
          cudaSuccess)
      {
        (void)cudaGetLastError();
        ReadBackSlots::give(this->Slot);
        this->Slot = nullptr;
      }
      this->ReadBacks = this->Slot ? this->Slot->sequence : 0;
      this->Awaited = this->ReadBacks;
    }
  }
  ~CudaExec()
  {
    if (this->ReadBacks > this->Awaited)
    {
      cudaStreamSynchronize(this->Stream); // no kernel may write the slot once it is given back
    }
    this->deallocate(this->LaterScratch, this->LaterBytes);
    ReadBackSlots::give(this->Slot);
    this->deallocate(this->ListCounters, kListCounters * sizeof(unsigned long long));
    this->deallocate(this->TileStatus, this->TileCapacity * sizeof(unsigned long long));
    this->deallocate(this->Ticket, sizeof(unsigned long long));
    bool const idle = cudaStreamQuery(this->Stream) == cudaSuccess;
    (void)cudaGetLastError();
    for (ReplayGraph const& replayed : this->Replays)
    {
      if (replayed.graph && idle)
      {
        replayed.kept->give(this->Device, replayed.graph); // for the next run to update
      }
      else if (replayed.graph)
      {
        cudaGraphExecDestroy(replayed.graph); // still running: freed once it completes
      }
    }
    if (this->ArenaBlock)
    {
      cudaFreeAsync(this->ArenaBlock, this->Stream);
    }
    for (cudaEvent_t event : this->Events)
    {
      cudaEventDestroy(event);
    }
  }
  CudaExec(const CudaExec&) = delete;
  CudaExec& operator=(const CudaExec&) = delete;

  cudaStream_t stream() const { return this->Stream; }

  auto policy() { return thrust::cuda::par_nosync(ThrustAllocator{ this }).on(this->Stream); }

  template <class F>
  void forEach(std::size_t n, const F& f)
  {
    if (n == 0)
    {
      return;
    }
    unsigned const blocks = static_cast<unsigned>((n + kBlock - 1) / kBlock);
    this->launch("forEachKernel", forEachKernel<F>, blocks, kBlock, n, f);
  }

  template <class F>
  void forEachComponent(std::size_t maxCount, const std::uint32_t* components, const F& f)
  {
    if (maxCount == 0)
    {
      return;
    }
    std::size_t const wanted = (maxCount + kBlock - 1) / kBlock;
    unsigned const blocks = static_cast<unsigned>(
      std::min<std::size_t>(wanted, this->Multiprocessors * 8)); // a full resident wave
    this->launch("componentKernel", componentKernel<F>, blocks, kBlock, components, f);
  }

  template <class F>
  void forEachUnlessDone(std::size_t n, const std::uint32_t* components, const F& f)
  {
    this->launchUnlessDone<kBlock, 0>(n, components, f);
  }

  template <class F>
  void forEachSearch(std::size_t n, const std::uint32_t* components, const F& f)
  {
    this->launchUnlessDone<kSearchBlock, SearchBlocks<F>::value>(n, components, f);
  }

  /// f(i) for every i < *count (at most maxCount, written by an earlier launch), as the
  /// searches are run, unless the round is done: one resident wave of blocks whose warps take
  /// 32 entries at a time (listed). Against a launch of one thread an entry of maxCount, most of
  /// whose blocks only found their entries past the count (H100, same binary otherwise): uniform
  /// 3*10^7 3D 89.1 -> 87.7 ms, 10^7 26.0 -> 25.9, cosmo 10^7 even.
  template <class F>
  void forEachListed(
    std::size_t maxCount, const std::uint32_t* count, const std::uint32_t* components, const F& f)
  {
    if (maxCount == 0)
    {
      return;
    }
    constexpr int MinBlocks = SearchBlocks<F>::value;
    if constexpr (MinBlocks > 0)
    {
      this->launchListed("boundedListedKernel", boundedListedKernel<kSearchBlock, MinBlocks, F>,
        maxCount, count, components, f);
    }
    else
    {
      this->launchListed(
        "listedKernel", listedKernel<kSearchBlock, F>, maxCount, count, components, f);
    }
  }

  /// Work queued again and again alike (Boruvka's rounds of a small run: ReplayedRounds): the
  /// launches of `body`, the same kernels with the same arguments each time, captured into a
  /// graph on the first call with a body of its type and that graph launched then and on every
  /// later call: one host call instead of one a kernel (this host: about 4 us a launch, against
  /// 1.2-1.5 us a small kernel takes the GPU in a graph; RESULTS.md, 2026-12-02). `serial`
  /// ([1], on the device) differs from one call to the next (a round's number): what the
  /// captured kernels need to tell their calls apart (runningMaximum's epoch). `body` neither
  /// allocates (that throws), waits nor reads back. Without graphs (EMST_CUDA_GRAPHS=0,
  /// EMST_CUDA_SYNC's waits, or a device that cannot capture) the body is queued as it is,
  /// every time.
  template <class Body>
  void replay(const std::uint32_t* serial, Body&& body)
  {
    cudaGraphExec_t const graph = this->Graphs ? this->capture(serial, body) : nullptr;
    if (!graph)
    {
      body();
      return;
    }
    EMST_CUDA_CHECK(cudaGraphLaunch(graph, this->Stream));
    this->checkLaunch("cudaGraphLaunch");
  }

  /// op(init, f(0), ..., f(n-1)) on the host (op associative and commutative): one launch and
  /// one read back, where the library's reduction takes two launches, its scratch's size queries
  /// and a read through pageable memory (H200, the duplicates phase, which is one count on sets
  /// without copies: 32-42 -> 27-30 us from 36k to 519k points).
  template <class T, class F, class Op>
  T transformReduce(std::size_t n, const F& f, T init, const Op& op)
  {
    if (n == 0)
    {
      return init;
    }
    void* scratch = nullptr;
    std::size_t bytes = 0;
    ReadBackTarget<T> const target =
      this->queueReduce(n, f, init, op, false, static_cast<T*>(nullptr), scratch, bytes);
    T result = init;
    this->readBack(target, &result, 1);
    this->deallocate(scratch, bytes);
    return result;
  }

  template <class T>
  using Later = CudaLater<T>;

  /// transformReduce's value queued now and fetched later (fetch), without a wait of its own
  /// when a read waited for in between (a count) covers it: the GPU wrote it first (stream
  /// order). The kernels queued after it read it from `alsoOnDevice` (unless null). One at a
  /// time.
  template <class T, class F, class Op>
  Later<T> transformReduceLater(std::size_t n, const F& f, T init, const Op& op, T* alsoOnDevice)
  {
    if (this->LaterScratch)
    {
      throw Error(ErrorCode::Internal, "a later read-back was queued before the last was fetched");
    }
    return Later<T>{ this->queueReduce(
      n, f, init, op, true, alsoOnDevice, this->LaterScratch, this->LaterBytes) };
  }

  /// The value of a transformReduceLater.
  template <class T>
  T fetch(const Later<T>& later)
  {
    T value{};
    this->readBack(later.target, &value, 1);
    this->deallocate(this->LaterScratch, this->LaterBytes);
    this->LaterScratch = nullptr;
    this->LaterBytes = 0;
    return value;
  }

  /// How many i < n have pred(i), on the host (transformReduce's one launch and read back).
  template <class Pred>
  std::size_t count(std::size_t n, const Pred& pred)
  {
    return static_cast<std::size_t>(
      this->transformReduce(n, CountTerm<Pred>{ pred }, 0ull, thrust::plus<unsigned long long>{}));
  }

  /// count's value, queued now and fetched later (transformReduceLater: one at a time).
  template <class Pred>
  Later<unsigned long long> countLater(std::size_t n, const Pred& pred)
  {
    return this->transformReduceLater(n, CountTerm<Pred>{ pred }, 0ull,
      thrust::plus<unsigned long long>{}, static_cast<unsigned long long*>(nullptr));
  }

  /// The indices i < n with pred(i), in increasing order, into `out`, which the caller sized
  /// from its own count of them: unlike thrust::copy_if, whose returned end reads the count
  /// back, the select's count stays on the device, and the host queues on without waiting.
  template <class Pred>
  void selectIndices(std::size_t n, Index* out, const Pred& pred)
  {
    if (n == 0)
    {
      return;
    }
    thrust::counting_iterator<std::size_t> const first(0);
    auto const items = static_cast<std::int64_t>(n);
    std::size_t bytes = 0;
    EMST_CUDA_CHECK(cub::DeviceSelect::If(
      nullptr, bytes, first, out, static_cast<std::int64_t*>(nullptr), items, pred, this->Stream));
    std::size_t const countAt = (bytes + 15) / 16 * 16;
    std::size_t const scratchBytes = countAt + sizeof(std::int64_t);
    auto* const scratch = static_cast<unsigned char*>(this->allocate(scratchBytes));
    cudaError_t const status = cub::DeviceSelect::If(scratch, bytes, first, out,
      reinterpret_cast<std::int64_t*>(scratch + countAt), items, pred, this->Stream);
    this->deallocate(scratch, scratchBytes);
    EMST_CUDA_CHECK(status);
    this->checkLaunch("DeviceSelect::If");
  }

  /// Sorts the pairs (keys[i], values[i]) stably by the keys' bits [beginBit, endBit) (no key
  /// has a bit set at or above endBit), one pass a byte of that range (the library's
  /// stable_sort_by_key sorts every bit), between each array and a copy of it; the Buffers end
  /// up owning the sorted room. Up to SmallSortTiles tiles that the GPU holds at once, in one
  /// cooperative launch (smallSortKernel); beyond, CUB's radix sort. Returns the lowest bit
  /// sorted, beginBit.
  template <class K, class V>
  int sortPairsByBits(
    Buffer<K, CudaExec>& keys, Buffer<V, CudaExec>& values, int beginBit, int endBit)
  {
    std::size_t const n = keys.size();
    if (n < 2)
    {
      return beginBit;
    }
    Buffer<K, CudaExec> otherKeys(*this, n);
    Buffer<V, CudaExec> otherValues(*this, n);
    std::size_t const tiles = (n + kSmallSortItems - 1) / kSmallSortItems;
    if (tiles <= this->SmallSortTiles && endBit > beginBit &&
      tiles <= this->residentBlocks(smallSortKernel<K, V>, kSmallSortBlock))
    {
      Buffer<std::uint32_t, CudaExec> countOfDigit(*this, 2 * kSmallSortDigits * tiles);
      this->launchCooperative("smallSortKernel", smallSortKernel<K, V>,
        static_cast<unsigned>(tiles), kSmallSortBlock, keys.data(), otherKeys.data(), values.data(),
        otherValues.data(), static_cast<std::uint32_t>(n), beginBit, endBit, countOfDigit.data());
      if ((endBit - beginBit + 7) / 8 % 2 == 1)
      {
        std::swap(keys, otherKeys);
        std::swap(values, otherValues);
      }
      return beginBit;
    }
    cub::DoubleBuffer<K> k(keys.data(), otherKeys.data());
    cub::DoubleBuffer<V> v(values.data(), otherValues.data());
    auto const items = static_cast<std::int64_t>(n);
    std::size_t bytes = 0;
    EMST_CUDA_CHECK(
      cub::DeviceRadixSort::SortPairs(nullptr, bytes, k, v, items, beginBit, endBit, this->Stream));
    void* const scratch = this->allocate(bytes);
    cudaError_t const status =
      cub::DeviceRadixSort::SortPairs(scratch, bytes, k, v, items, beginBit, endBit, this->Stream);
    this->deallocate(scratch, bytes);
    EMST_CUDA_CHECK(status);
    this->checkLaunch("DeviceRadixSort::SortPairs");
    if (k.Current() != keys.data())
    {
      std::swap(keys, otherKeys);
    }
    if (v.Current() != values.data())
    {
      std::swap(values, otherValues);
    }
    return beginBit;
  }

  /// Whether sortByLess sorts n items of T by Less in one launch (smallMergeKernel): at most
  /// SmallMergeTiles tiles, all resident at once.
  template <class T, class Less>
  bool sortsByLessAtOnce(std::size_t n) const
  {
    std::size_t const tiles = (n + kSmallMergeItems - 1) / kSmallMergeItems;
    return tiles <= this->SmallMergeTiles &&
      tiles <= this->residentBlocks(smallMergeKernel<T, Less>, kSmallMergeBlock);
  }

  /// Sorts the items by `less` (a strict weak order; items it finds equal end in any order):
  /// up to SmallMergeTiles tiles that the GPU holds at once, in one cooperative launch
  /// (smallMergeKernel), between the items and a copy of them (the Buffer ends up owning the
  /// sorted room); beyond, the library's merge sort (thrust::sort with a comparison), whose
  /// block sort, then partition and merge launches a round, the host queues slower than the GPU
  /// runs them at these sizes.
  template <class T, class Less>
  void sortByLess(Buffer<T, CudaExec>& items, const Less& less)
  {
    std::size_t const n = items.size();
    if (n < 2)
    {
      return;
    }
    if (this->sortsByLessAtOnce<T, Less>(n))
    {
      std::size_t const tiles = (n + kSmallMergeItems - 1) / kSmallMergeItems;
      int const rounds = smallMergeRounds(n);
      Buffer<T, CudaExec> other(*this, rounds > 0 ? n : 0); // one tile sorts in place
      this->launchCooperative("smallMergeKernel", smallMergeKernel<T, Less>,
        static_cast<unsigned>(tiles), kSmallMergeBlock, items.data(), other.data(),
        static_cast<std::uint32_t>(n), less);
      if (rounds % 2 == 1)
      {
        std::swap(items, other);
      }
      return;
    }
    thrust::sort(this->policy(), items.data(), items.end(), less);
    this->checkLaunch("thrust::sort");
  }

  /// out[i] = max(f(0), ..., f(i)) for i < n (f: Index values), unless the round has nothing
  /// left to do (*components <= 1, as forEachUnlessDone; null: always). One launch of one tile a
  /// block up to kScanTilesReduced tiles (H200, against two launches: the rounds of the data sets
  /// from 36k to 519k points 20-35 us faster in all, 2-4 us a round), beyond two with a device scan
  /// of the tile maxima between, or without a count f written out and the library's scan over it,
  /// as the duplicates did before (H200, their phase on cosmo 1e7 3D: 204 us so, 215 with the
  /// library's scan reading f through an iterator, 230 with the two launches, which read f twice).
  template <class F>
  void runningMaximum(std::size_t n, const std::uint32_t* components, const F& f, Index* out)
  {
    if (n == 0)
    {
      return;
    }
    std::size_t const tiles = (n + kScanTile - 1) / kScanTile;
    unsigned const blocks = static_cast<unsigned>(tiles);
    if (!components && tiles > kScanTilesReduced)
    {
      this->forEach(n, StoreValue<F>{ f, out });
      thrust::inclusive_scan(this->policy(), out, out + n, out, IndexMaximum{});
      this->checkLaunch("thrust::inclusive_scan");
      return;
    }
    if (tiles <= kScanTilesReduced)
    {
      if (this->TileCapacity < tiles)
      {
        this->deallocate(this->TileStatus, this->TileCapacity * sizeof(unsigned long long));
        this->TileStatus =
          static_cast<unsigned long long*>(this->allocate(tiles * sizeof(unsigned long long)));
        this->TileCapacity = tiles;
        this->fill(this->TileStatus, tiles, 0ull); // epoch 0: never a call's
      }
      // Captured for replays: the epoch from the replays' serial.
      bool const replayed = this->Capturing;
      this->launch("onePassMaximumKernel", onePassMaximumKernel<F>, blocks, kScanBlock, n,
        components, f, this->ticket(), this->TileStatus, ++this->TileEpoch,
        replayed ? this->ReplaySerial : nullptr, out);
      return;
    }
    std::size_t const bytes = tiles * sizeof(Index);
    auto* const tileMaximum = static_cast<Index*>(this->allocate(bytes));
    this->launch(
      "tileMaximumKernel", tileMaximumKernel<F>, blocks, kScanBlock, n, components, f, tileMaximum);
    auto policy = this->policy();
    thrust::exclusive_scan(
      policy, tileMaximum, tileMaximum + tiles, tileMaximum, Index(0), IndexMaximum{});
    this->launch("runningMaximumKernel", runningMaximumKernel<F>, blocks, kScanBlock, n, components,
      f, static_cast<const Index*>(tileMaximum), out);
    this->deallocate(tileMaximum, bytes);
  }

  /// A run's device memory as one block of `bytes` (its plan's), carved into its buffers on the
  /// host (BlockArena) instead of a stream-ordered allocation and free each, where the block is
  /// small enough (kArenaMostBytes) and the device has it; what the block cannot hold comes from
  /// the pool as before. One stream orders every use of a piece before its next owner's, as it
  /// orders the pool's reuse. A small run is bound by the host's calls until its rounds start:
  /// H200, tsp_monalisa100k: 57 allocations and 41 frees took about 150 us of the host's 830
  /// (RESULTS.md, 2026-12-01). Knob EMST_CUDA_ARENA: 0, the pool's allocations always; N > 0,
  /// a block of N MiB whatever the plan (for tests: a block too small for the run, whose
  /// buffers then come from both).
  void reserveArena(std::size_t bytes)
  {
    if (const char* knob = std::getenv("EMST_CUDA_ARENA"))
    {
      bytes = static_cast<std::size_t>(std::strtoull(knob, nullptr, 10)) << 20;
    }
    else if (bytes > kArenaMostBytes)
    {
      return;
    }
    if (this->ArenaBlock || bytes == 0)
    {
      return;
    }
    if (cudaMallocAsync(&this->ArenaBlock, bytes, this->Stream) != cudaSuccess)
    {
      (void)cudaGetLastError(); // too little memory for one block: the pool's allocations
      this->ArenaBlock = nullptr;
      return;
    }
    this->Arena.reset(bytes);
  }

  void* allocate(std::size_t bytes)
  {
    if (this->Capturing)
    {
      // A replay would reuse what the capture allocated once (replay's contract).
      throw Error(ErrorCode::Internal, "an allocation inside a replayed body");
    }
    if (bytes == 0)
    {
      return nullptr;
    }
    void* p = nullptr;
    cudaError_t status = cudaErrorMemoryAllocation; // past the limit
    if (this->Current + bytes <= this->Limit)
    {
      std::size_t const offset = this->Arena.take(bytes); // kNone without a block
      if (offset != BlockArena::kNone)
      {
        p = static_cast<char*>(this->ArenaBlock) + offset;
        status = cudaSuccess;
      }
      else
      {
        status = cudaMallocAsync(&p, bytes, this->Stream);
      }
    }
    if (status != cudaSuccess)
    {
      (void)cudaGetLastError();
      if (status == cudaErrorMemoryAllocation)
      {
        throw Error(ErrorCode::OutOfMemory,
          "the GPU has too little free memory: " + std::to_string(bytes >> 20) +
            " MiB more were needed with " + std::to_string(this->Current >> 20) +
            " MiB already in use");
      }
      throwCudaError(status, "cudaMallocAsync", __FILE__, __LINE__);
    }
    this->Current += bytes;
    this->Peak = this->Current > this->Peak ? this->Current : this->Peak;
    return p;
  }
  void deallocate(void* p, std::size_t bytes) noexcept
  {
    if (!p)
    {
      return;
    }
    std::size_t const offset = this->arenaOffset(p);
    if (offset != BlockArena::kNone)
    {
      this->Arena.give(offset, bytes);
    }
    else
    {
      cudaFreeAsync(p, this->Stream); // in a destructor: an error here is reported elsewhere
    }
    this->Current -= bytes;
  }
  std::size_t peakBytes() const { return this->Peak; }

  template <class T>
  void fill(T* p, std::size_t n, T value)
  {
    this->forEach(n, FillValue<T>{ p, value });
  }
  /// n values to the host, waited for (the rounds' counters): up to a read-back slot's size
  /// through it, else a copy.
  template <class T>
  void copyToHostUntimed(T* dst, const T* src, std::size_t n)
  {
    this->copyToHostUntimed(dst, src, n, [] {});
  }
  /// The same, with `between` queued after the read and before the host waits for it: work the
  /// GPU runs while the host waits and decides (the rounds' next one). `between` queues no
  /// read-back of its own (it would take the slot's words before the host read them: checked).
  /// On the copy path the copy may come after `between`'s work.
  template <class T, class Between>
  void copyToHostUntimed(T* dst, const T* src, std::size_t n, Between&& between)
  {
    std::size_t const bytes = n * sizeof(T);
    if (this->Slot && sizeof(T) % 4 == 0 && bytes <= ReadBackSlot::kLaterWord * 4)
    {
      ReadBackTarget<std::uint32_t> const target = this->readBackTarget<std::uint32_t>(nullptr);
      this->launch("publishWordsKernel", publishWordsKernel<std::uint32_t>, 1, kBlock,
        reinterpret_cast<const std::uint32_t*>(src), bytes / 4, target);
      between();
      if (this->ReadBacks != target.number)
      {
        throw Error(ErrorCode::Internal, "a read-back was queued between another's and its wait");
      }
      this->readBack(target, dst, n);
      return;
    }
    EMST_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, this->Stream));
    between();
    EMST_CUDA_CHECK(cudaStreamSynchronize(this->Stream));
  }
  /// A device -> host copy queued on the stream, not waited for (phases() or a sync waits).
  template <class T>
  void copyToHostAsync(T* dst, const T* src, std::size_t n)
  {
    if (n)
    {
      EMST_CUDA_CHECK(
        cudaMemcpyAsync(dst, src, n * sizeof(T), cudaMemcpyDeviceToHost, this->Stream));
    }
  }
  /// The result's download, timed apart from the compute.
  template <class T>
  void copyToHost(T* dst, const T* src, std::size_t n)
  {
    cudaEvent_t const start = this->newEvent();
    if (n)
    {
      EMST_CUDA_CHECK(
        cudaMemcpyAsync(dst, src, n * sizeof(T), cudaMemcpyDeviceToHost, this->Stream));
    }
    cudaEvent_t const stop = this->newEvent();
    EMST_CUDA_CHECK(cudaStreamSynchronize(this->Stream));
    float ms = 0.0f;
    EMST_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    this->DownloadMs += ms;
  }
  double downloadMilliseconds() const { return this->DownloadMs; }

  /// Host -> device copy of `bytes`, waited for; returns its time in milliseconds.
  double copyToDevice(void* dst, const void* src, std::size_t bytes)
  {
    cudaEvent_t const start = this->newEvent();
    if (bytes)
    {
      EMST_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, this->Stream));
    }
    cudaEvent_t const stop = this->newEvent();
    EMST_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    EMST_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    return ms;
  }

  /// Phases are delimited by events on the stream: no synchronisation until they are read.
  /// Each is also an NVTX range of its name, so that profiles show the phases.
  void beginPhase(const std::string& name)
  {
    // A phase that follows another starts at its stop: one event recorded for both.
    bool const follows = this->Open;
    this->endCompute();
    this->PhaseNames.push_back(name);
    this->PhaseStart.push_back(follows ? this->PhaseStop.back() : this->newEvent());
    this->PhaseRange = nvtxRangeStartA(name.c_str());
    this->Open = true;
  }
  void endCompute()
  {
    if (this->Open)
    {
      this->PhaseStop.push_back(this->newEvent());
      nvtxRangeEnd(this->PhaseRange);
      this->Open = false;
    }
  }
  /// A named profiler range for a step of a phase (`auto const range = exec.range("FindMin1")`).
  NvtxRange range(const char* name) const { return NvtxRange(name); }
  std::vector<PhaseTime> phases()
  {
    this->endCompute();
    EMST_CUDA_CHECK(cudaStreamSynchronize(this->Stream));
    std::vector<PhaseTime> result;
    for (std::size_t k = 0; k < this->PhaseStop.size(); ++k)
    {
      float ms = 0.0f;
      EMST_CUDA_CHECK(cudaEventElapsedTime(&ms, this->PhaseStart[k], this->PhaseStop[k]));
      result.push_back(PhaseTime{ this->PhaseNames[k], ms });
    }
    return result;
  }

private:
  /// Where p lies in the arena's block, or BlockArena::kNone (no block: its capacity is 0).
  std::size_t arenaOffset(const void* p) const
  {
    auto const at = reinterpret_cast<std::uintptr_t>(p);
    auto const block = reinterpret_cast<std::uintptr_t>(this->ArenaBlock);
    return at >= block && this->Arena.holds(at - block) ? at - block : BlockArena::kNone;
  }

  template <int Block, int MinBlocks, class F>
  void launchUnlessDone(std::size_t n, const std::uint32_t* components, const F& f)
  {
    if (n == 0)
    {
      return;
    }
    unsigned const blocks = static_cast<unsigned>((n + Block - 1) / Block);
    if constexpr (MinBlocks > 0)
    {
      this->launch("boundedUnlessDoneKernel", boundedUnlessDoneKernel<Block, MinBlocks, F>, blocks,
        Block, n, components, f);
    }
    else
    {
      this->launch("unlessDoneKernel", unlessDoneKernel<Block, F>, blocks, Block, n, components, f);
    }
  }

  /// How many blocks of `threads` threads of `kernel` the GPU holds at once: one resident wave,
  /// the most a cooperative launch may have.
  template <class... Params>
  std::size_t residentBlocks(void (*kernel)(Params...), int threads) const
  {
    int perMultiprocessor = 0;
    EMST_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perMultiprocessor, kernel, threads, 0));
    return static_cast<std::size_t>(perMultiprocessor) * this->Multiprocessors;
  }

  /// One resident wave of `kernel` (at most the blocks maxCount entries need), with a zeroed
  /// counter of its own (ListCounters).
  template <class F>
  void launchListed(const char* what,
    void (*kernel)(const std::uint32_t*, unsigned long long*, const std::uint32_t*, F),
    std::size_t maxCount, const std::uint32_t* count, const std::uint32_t* components, const F& f)
  {
    std::size_t const wanted = (maxCount + kSearchBlock - 1) / kSearchBlock;
    std::size_t const wave =
      std::max(this->Multiprocessors, this->residentBlocks(kernel, kSearchBlock));
    unsigned const blocks = static_cast<unsigned>(std::min(wanted, wave));
    this->launch(what, kernel, blocks, kSearchBlock, count, this->listCounter(), components, f);
  }

  /// replay's graph for a body of `body`'s type, once an exec (Replays): `body`'s launches
  /// captured, then the graph that the last run with a body of this type left (KeptGraphs)
  /// updated to them, or a new one instantiated (a capture and an update cost the host about
  /// 1 us a kernel, an instantiation 2.5 us more). An error of the capture or of the
  /// instantiation turns graphs off for this exec: null, and replay then queues its bodies
  /// (slower, not wrong).
  template <class Body>
  cudaGraphExec_t capture(const std::uint32_t* serial, Body& body)
  {
    KeptGraphs& kept = keptGraphs<std::decay_t<Body>>();
    for (ReplayGraph const& replayed : this->Replays)
    {
      if (replayed.kept == &kept)
      {
        return replayed.graph;
      }
    }
    this->ticket(); // allocated before the capture
    if (cudaStreamBeginCapture(this->Stream, cudaStreamCaptureModeThreadLocal) != cudaSuccess)
    {
      (void)cudaGetLastError();
      this->Graphs = false;
      return nullptr;
    }
    this->Capturing = true;
    this->ReplaySerial = serial;
    cudaGraph_t graph = nullptr;
    try
    {
      body();
    }
    catch (...)
    {
      this->Capturing = false;
      if (cudaStreamEndCapture(this->Stream, &graph) == cudaSuccess && graph)
      {
        cudaGraphDestroy(graph);
      }
      (void)cudaGetLastError();
      throw;
    }
    this->Capturing = false;
    cudaGraphExec_t exec = nullptr;
    cudaError_t status = cudaStreamEndCapture(this->Stream, &graph);
    if (status == cudaSuccess)
    {
      exec = kept.take(this->Device);
      cudaGraphExecUpdateResultInfo info{};
      if (exec && cudaGraphExecUpdate(exec, graph, &info) != cudaSuccess)
      {
        (void)cudaGetLastError(); // another topology: a graph of its own
        cudaGraphExecDestroy(exec);
        exec = nullptr;
      }
      if (!exec)
      {
        status = cudaGraphInstantiate(&exec, graph, 0);
      }
    }
    if (graph)
    {
      cudaGraphDestroy(graph);
    }
    if (status != cudaSuccess)
    {
      (void)cudaGetLastError();
      this->Graphs = false;
      return nullptr;
    }
    this->Replays.push_back(ReplayGraph{ exec, &kept });
    return exec;
  }

  /// The exec's ticket word for kernels whose blocks take a ticket each (one-launch reductions
  /// and running maxima): zero at every such launch's start, as the block that takes the last
  /// ticket zeroes it again. One stream and followPreviousKernel keep two launches from taking
  /// tickets at once; a launch replayed from a graph takes them like any other.
  unsigned long long* ticket()
  {
    if (!this->Ticket)
    {
      this->Ticket = static_cast<unsigned long long*>(this->allocate(sizeof(unsigned long long)));
      this->fill(this->Ticket, 1, 0ull);
    }
    return this->Ticket;
  }

  /// A zeroed 64-bit counter for one listed launch: kListCounters of them are zeroed at a time
  /// (one fill), each handed out once; stream order puts the next fill after their launches.
  unsigned long long* listCounter()
  {
    if (!this->ListCounters)
    {
      this->ListCounters = static_cast<unsigned long long*>(
        this->allocate(kListCounters * sizeof(unsigned long long)));
      this->ListCountersUsed = kListCounters;
    }
    if (this->ListCountersUsed == kListCounters)
    {
      this->fill(this->ListCounters, kListCounters, 0ull);
      this->ListCountersUsed = 0;
    }
    return this->ListCounters + this->ListCountersUsed++;
  }

  /// kernel<<<blocks, threads, 0, stream>>>(args...), as a programmatic dependent launch where
  /// the device and the kernels' binary support it (Overlap; every kernel begins with
  /// followPreviousKernel).
  template <class... Params, class... Args>
  void launch(
    const char* what, void (*kernel)(Params...), unsigned blocks, unsigned threads, Args... args)
  {
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    this->launchWith(what, this->Overlap ? &attribute : nullptr, kernel, blocks, threads, args...);
  }

  /// A cooperative launch (its blocks all resident at once, for grid barriers), after the
  /// kernel before it in plain stream order.
  template <class... Params, class... Args>
  void launchCooperative(
    const char* what, void (*kernel)(Params...), unsigned blocks, unsigned threads, Args... args)
  {
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeCooperative;
    attribute.val.cooperative = 1;
    this->launchWith(what, &attribute, kernel, blocks, threads, args...);
  }

  /// The launch, with one attribute or none, checked.
  template <class... Params, class... Args>
  void launchWith(const char* what, cudaLaunchAttribute* attribute, void (*kernel)(Params...),
    unsigned blocks, unsigned threads, Args... args)
  {
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(blocks);
    config.blockDim = dim3(threads);
    config.dynamicSmemBytes = 0;
    config.stream = this->Stream;
    config.attrs = attribute;
    config.numAttrs = attribute ? 1 : 0;
    EMST_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, args...));
    this->checkLaunch(what);
  }

  /// transformReduceKernel queued (at least one block, also for n = 0) with its scratch
  /// ([partials..., result]: the caller frees it), its value for the read-back slot's first
  /// half, or for its later half.
  template <class T, class F, class Op>
  ReadBackTarget<T> queueReduce(std::size_t n, const F& f, T init, const Op& op, bool later,
    T* alsoOnDevice, void*& scratch, std::size_t& bytes)
  {
    std::size_t const wanted = (n + kBlock - 1) / kBlock;
    unsigned const blocks = static_cast<unsigned>(
      std::max<std::size_t>(1, std::min<std::size_t>(wanted, this->Multiprocessors * 8)));
    bytes = (blocks + 1) * sizeof(T);
    T* const partial = static_cast<T*>(this->allocate(bytes));
    scratch = partial;
    ReadBackTarget<T> const target = this->readBackTarget(partial + blocks, later);
    this->launch("transformReduceKernel", transformReduceKernel<T, F, Op>, blocks, kBlock, n, f,
      init, op, partial, this->ticket(), target, alsoOnDevice);
    return target;
  }

  /// Where the next read-back's kernel leaves its value: the slot (its later half for a value
  /// fetched later), under the next number; with no slot, `onDevice`.
  template <class T>
  ReadBackTarget<T> readBackTarget(T* onDevice, bool later = false)
  {
    static_assert(sizeof(T) <= ReadBackSlot::kLaterWord * 4 && alignof(T) <= 8,
      "a read-back holds 256 bytes, 8-byte aligned");
    if (!this->Slot)
    {
      return ReadBackTarget<T>{ onDevice, nullptr, 0 };
    }
    return ReadBackTarget<T>{ reinterpret_cast<T*>(
                                this->DeviceSlot->words + (later ? ReadBackSlot::kLaterWord : 0)),
      &this->DeviceSlot->sequence, ++this->ReadBacks };
  }

  /// The n values of `target` (queued) into dst: polls the slot for its number (a few
  /// microseconds less than a copy and a stream synchronisation), or copies.
  template <class T, class U>
  void readBack(const ReadBackTarget<T>& target, U* dst, std::size_t n)
  {
    if (!target.sequence)
    {
      EMST_CUDA_CHECK(
        cudaMemcpyAsync(dst, target.value, n * sizeof(U), cudaMemcpyDeviceToHost, this->Stream));
      EMST_CUDA_CHECK(cudaStreamSynchronize(this->Stream));
      return;
    }
    volatile unsigned long long const* const seen = &this->Slot->sequence;
    for (std::uint64_t spins = 1; *seen < target.number; ++spins)
    {
      if (spins % 256 != 0)
      {
        continue;
      }
      // Between polls, the stream's state: a fault ends the wait with its error; a stream run
      // dry without the number would be a bug, not a wait.
      cudaError_t const status = cudaStreamQuery(this->Stream);
      if (status == cudaSuccess && *seen < target.number)
      {
        throw Error(ErrorCode::DeviceError,
          "a result the GPU wrote to host memory did not arrive (read-back " +
            std::to_string(target.number) + ")");
      }
      if (status != cudaSuccess && status != cudaErrorNotReady)
      {
        throwCudaError(status, "a read-back's kernel", __FILE__, __LINE__);
      }
      if (spins >= (std::uint64_t(1) << 16))
      {
        std::this_thread::yield(); // a long wait (a large set's rounds): the core's share back
      }
    }
    std::atomic_thread_fence(std::memory_order_acquire); // the value after its number
    this->Awaited = std::max(this->Awaited, target.number);
    std::size_t const offset = static_cast<std::size_t>(
      reinterpret_cast<const std::uint32_t*>(target.value) - this->DeviceSlot->words);
    std::memcpy(dst, this->Slot->words + offset, n * sizeof(U));
  }

  void checkLaunch(const char* what)
  {
    EMST_CUDA_CHECK(cudaGetLastError());
    if (this->Sync) // EMST_CUDA_SYNC=1: find an asynchronous fault at the launch that caused it
    {
      cudaError_t const status = cudaStreamSynchronize(this->Stream);
      if (status != cudaSuccess)
      {
        throwCudaError(status, what, __FILE__, __LINE__);
      }
    }
  }
  cudaEvent_t newEvent()
  {
    cudaEvent_t event;
    EMST_CUDA_CHECK(cudaEventCreate(&event));
    this->Events.push_back(event);
    EMST_CUDA_CHECK(cudaEventRecord(event, this->Stream));
    return event;
  }

  cudaStream_t Stream;
  bool Sync;
  bool Overlap = false;
  bool Lean = false;
  static constexpr std::size_t kListCounters = 64;
  unsigned long long* ListCounters = nullptr; ///< [kListCounters], or null before the first list
  std::size_t ListCountersUsed = 0;
  /// [TileCapacity] the one-pass running maxima's tile words (onePassMaximumKernel), as many as
  /// the most tiles of a call so far (the engine's calls have one size: the leaves); TileEpoch,
  /// the last call's epoch
  unsigned long long* TileStatus = nullptr;
  std::size_t TileCapacity = 0;
  std::uint32_t TileEpoch = 0;
  bool Graphs = false;                         ///< replay captures graphs (else queues its body)
  bool Capturing = false;                      ///< within replay's capture
  const std::uint32_t* ReplaySerial = nullptr; ///< the capture's serial (replay)
  unsigned long long* Ticket = nullptr;        ///< [1] ticket's word
  struct ReplayGraph
  {
    cudaGraphExec_t graph = nullptr;
    KeptGraphs* kept = nullptr; ///< where it goes back once the exec is done
  };
  std::vector<ReplayGraph> Replays; ///< replay's graphs, one a type of body
  std::size_t SmallSortTiles = 0;   ///< sorts of at most that many tiles: smallSortKernel
  std::size_t SmallMergeTiles = 0;  ///< sorts by less of at most that many tiles: smallMergeKernel
  std::size_t Multiprocessors = 128;
  int Device = 0; ///< the exec's device (KeptGraphs)
  std::size_t Limit = ~std::size_t(0);
  void* ArenaBlock = nullptr; ///< reserveArena's block, or null
  BlockArena Arena;           ///< its free ranges
  std::size_t Current = 0;
  std::size_t Peak = 0;
  double DownloadMs = 0.0;
  std::vector<std::string> PhaseNames;
  std::vector<cudaEvent_t> PhaseStart;
  std::vector<cudaEvent_t> PhaseStop;
  std::vector<cudaEvent_t> Events;
  nvtxRangeId_t PhaseRange = 0;
  bool Open = false;
  ReadBackSlot* Slot = nullptr;       ///< this exec's read-back slot (host), or null: copies
  ReadBackSlot* DeviceSlot = nullptr; ///< the same slot as kernels address it
  unsigned long long ReadBacks = 0;   ///< the last read-back's number
  unsigned long long Awaited = 0;     ///< the largest number waited for (the later ones pending)
  void* LaterScratch = nullptr;       ///< transformReduceLater's room until its fetch
  std::size_t LaterBytes = 0;
};

} // namespace detail
} // namespace emst
