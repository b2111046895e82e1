// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// CPU backend of the engine: the per-index functors run in OpenMP loops, the library algorithms
// (sort, scan, copy_if, reduce) through Thrust's OpenMP system.
#pragma once

#include "backends/Layouts.h"
#include "base/Atomics.h"
#include "base/Buffer.h"
#include "base/Index.h"
#include "emst/Emst.h"

#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <thrust/system/omp/execution_policy.h>
#include <thrust/transform_reduce.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include <omp.h>

namespace emst
{
namespace detail
{

class CpuExec
{
public:
  /// The exact coordinates get a Morton-ordered copy (Cells::exactOfPoint, 12 bytes a point in
  /// 3D float): a CPU reads them 20-35% slower scattered over the input.
  static constexpr bool kCopiesExactCoordinates = true;
  /// Leaves of up to 32 points, cells split in two (buildCells). A core walks a large leaf's
  /// points cheaply and loses to the branches of each node it visits: on 2 cores, uniform 1e6 3D
  /// 1166 -> 924 ms and 97.6 -> 76.4 bytes a point against octree cells of up to 16 (the GPU's
  /// leaves then), cosmo 1e6 3D 1008 -> 867 ms, uniform 1e6 2D 612 -> 586.
  LeafLayout leafLayout(int /*dim*/) const { return LeafLayout{ 32, true }; }
  /// Speed first where memory and speed trade (the output's tie order).
  bool savesMemory() const { return false; }
  /// No list of the searchers (listsSearchers): a core has no idle lanes to fill.
  static constexpr bool kListsSearchers = false;
  /// No deferred climbs in round one (deferredClimbLevels): a core has no idle lanes to fill.
  static constexpr bool kDefersClimbs = false;
  /// No replayed rounds by default (ReplayedRounds): nothing to save on a CPU's loops; with
  /// EMST_REPLAY_ROUNDS=1 the rounds take the replays' slots all the same (replay runs the body).
  static constexpr bool kReplaysRounds = false;
  /// The output's edges are never sorted by comparison by default (mergedEdgesBelow): Thrust's
  /// sort by every key bit leaves no runs to order.
  static constexpr std::size_t kMergedEdgesBelow = 0;
  /// Round one lists each point's 6 nearest (answerFromList), and the later rounds search far
  /// less: 2 cores, uniform 1e6 3D, three alternating blocks, 975-989 ms without lists, 838-846
  /// with 4 entries, 796-803 with 6 (round one about 177, 330, 420 ms; the later rounds 590, 330,
  /// 250; measured before the searches' reach, kSearchReach, which spares a few percent more).
  static constexpr int kNeighbours = 6;
  /// Loops shorter than this run on the calling thread: waking a team costs more than they do
  /// (and much more on a loaded machine).
  static constexpr std::int64_t kSerialBelow = 4096;

  explicit CpuExec(int threads)
    : Threads(threads > 0 ? threads : omp_get_max_threads())
  {
  }

  int threads() const { return this->Threads; }

  auto policy() const { return thrust::omp::par; }

  template <class F>
  void forEach(std::size_t n, const F& f)
  {
    std::int64_t const count = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(static) num_threads(Threads) if (count > kSerialBelow)
    for (std::int64_t i = 0; i < count; ++i)
    {
      callAt(f, static_cast<std::size_t>(i));
    }
  }

  /// f(c) for every component c < *components of a round, unless one component is left
  /// (the count is computed by an earlier step; on other backends, on the device).
  template <class F>
  void forEachComponent(std::size_t, const std::uint32_t* components, const F& f)
  {
    if (*components > 1)
    {
      this->forEach(*components, f);
    }
  }

  /// f(i) for i < n, unless the round has nothing left to do (*components <= 1).
  template <class F>
  void forEachUnlessDone(std::size_t n, const std::uint32_t* components, const F& f)
  {
    if (*components > 1)
    {
      this->forEach(n, f);
    }
  }

  /// The searches vary in cost from point to point: balance them dynamically, in chunks that
  /// keep neighbouring (Morton-ordered) points on one thread.
  template <class F>
  void forEachSearch(std::size_t n, const std::uint32_t* components, const F& f)
  {
    if (*components <= 1)
    {
      return;
    }
    std::int64_t const count = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(dynamic, 512) num_threads(Threads) if (count > kSerialBelow)
    for (std::int64_t i = 0; i < count; ++i)
    {
      callAt(f, static_cast<std::size_t>(i));
    }
  }

  /// f(i) for every i < *count (at most maxCount), as the searches are run, unless the round
  /// is done.
  template <class F>
  void forEachListed(
    std::size_t, const std::uint32_t* count, const std::uint32_t* components, const F& f)
  {
    this->forEachSearch(*count, components, f);
  }

  /// op(init, f(0), ..., f(n-1)) (op associative and commutative).
  template <class T, class F, class Op>
  T transformReduce(std::size_t n, const F& f, T init, const Op& op)
  {
    return thrust::transform_reduce(this->policy(), thrust::counting_iterator<std::size_t>(0),
      thrust::counting_iterator<std::size_t>(n), f, init, op);
  }

  /// transformReduce's value, computed at once (a GPU queues it and fetches it later), also
  /// into `alsoOnDevice` (unless null), where the next steps read it.
  template <class T>
  struct Later
  {
    T value;
  };
  template <class T, class F, class Op>
  Later<T> transformReduceLater(std::size_t n, const F& f, T init, const Op& op, T* alsoOnDevice)
  {
    Later<T> later{ this->transformReduce(n, f, init, op) };
    if (alsoOnDevice)
    {
      *alsoOnDevice = later.value;
    }
    return later;
  }
  template <class T>
  T fetch(const Later<T>& later) const
  {
    return later.value;
  }

  /// How many i < n have pred(i).
  template <class Pred>
  std::size_t count(std::size_t n, const Pred& pred)
  {
    return static_cast<std::size_t>(thrust::count_if(this->policy(),
      thrust::counting_iterator<std::size_t>(0), thrust::counting_iterator<std::size_t>(n), pred));
  }

  /// count's value, queued now and fetched later (computed at once here).
  template <class Pred>
  Later<unsigned long long> countLater(std::size_t n, const Pred& pred)
  {
    return Later<unsigned long long>{ static_cast<unsigned long long>(this->count(n, pred)) };
  }

  /// The indices i < n with pred(i), in increasing order, into `out` (sized by the caller).
  template <class Pred>
  void selectIndices(std::size_t n, Index* out, const Pred& pred)
  {
    thrust::copy_if(this->policy(), thrust::counting_iterator<std::size_t>(0),
      thrust::counting_iterator<std::size_t>(n), out, pred);
  }

  /// Sorts the pairs (keys[i], values[i]) stably by key, in place, by every bit whatever the
  /// bits asked for: Thrust's sequential radix sort of each thread's share (a comparison sort by
  /// the top bits alone took twice as long: 2 threads, uniform 1e6 3D, the set-up's sort 27 ->
  /// 50 ms, the output's 56 -> 77). Returns the lowest bit sorted, 0 (base/PairSort.h).
  template <class K, class V>
  int sortPairsByBits(Buffer<K, CpuExec>& keys, Buffer<V, CpuExec>& values, int, int)
  {
    thrust::stable_sort_by_key(this->policy(), keys.data(), keys.end(), values.data());
    return 0;
  }

  /// Sorts the items by `less` (a strict weak order; items it finds equal end in any order).
  template <class Items, class Less>
  void sortByLess(Items& items, const Less& less) // a Buffer of this or a derived Exec
  {
    thrust::sort(this->policy(), items.data(), items.end(), less);
  }

  /// Whether sortByLess sorts n items in one call: always (Thrust's sort).
  template <class T, class Less>
  bool sortsByLessAtOnce(std::size_t) const
  {
    return true;
  }

  /// Work queued again and again alike (CudaExec::replay): here simply run.
  template <class Body>
  void replay(const std::uint32_t*, Body&& body)
  {
    body();
  }

  /// out[i] = max(f(0), ..., f(i)) for i < n (f: Index values), unless *components <= 1 (null:
  /// always).
  template <class F>
  void runningMaximum(std::size_t n, const std::uint32_t* components, const F& f, Index* out)
  {
    if (n == 0 || (components && *components <= 1))
    {
      return;
    }
    auto const values =
      thrust::make_transform_iterator(thrust::counting_iterator<std::size_t>(0), f);
    thrust::inclusive_scan(this->policy(), values, values + n, out, thrust::maximum<Index>());
  }

  void* allocate(std::size_t bytes)
  {
    if (bytes == 0)
    {
      return nullptr;
    }
    void* p = std::malloc(bytes);
    if (!p)
    {
      throw Error(ErrorCode::OutOfMemory,
        "could not allocate " + std::to_string(bytes >> 20) + " MiB of host memory");
    }
    this->Current += bytes;
    this->Peak = this->Current > this->Peak ? this->Current : this->Peak;
    return p;
  }
  void deallocate(void* p, std::size_t bytes) noexcept
  {
    if (p)
    {
      std::free(p);
      this->Current -= bytes;
    }
  }
  std::size_t peakBytes() const
  {
    return this->Peak;
  }

  template <class T>
  void fill(T* p, std::size_t n, T value)
  {
    this->forEach(n, [p, value](std::size_t i) { p[i] = value; });
  }
  template <class T>
  void copyToHostUntimed(T* dst, const T* src, std::size_t n)
  {
    this->copyToHost(dst, src, n);
  }
  /// The same, then `between` (which the GPU runs while the host waits for the copy).
  template <class T, class Between>
  void copyToHostUntimed(T* dst, const T* src, std::size_t n, Between&& between)
  {
    this->copyToHost(dst, src, n);
    between();
  }
  /// The same as copyToHost here; on the GPU, a copy queued without a wait.
  template <class T>
  void copyToHostAsync(T* dst, const T* src, std::size_t n)
  {
    this->copyToHost(dst, src, n);
  }
  template <class T>
  void copyToHost(T* dst, const T* src, std::size_t n)
  {
    if (n)
    {
      std::memcpy(dst, src, n * sizeof(T));
    }
  }

  void beginPhase(const std::string& name)
  {
    this->endCompute();
    this->Phases.push_back(PhaseTime{ name, 0.0 });
    this->Start = Clock::now();
    this->Open = true;
  }
  /// Closes the running phase (the compute ends before the result is handed over).
  void endCompute()
  {
    if (this->Open)
    {
      this->Phases.back().milliseconds =
        std::chrono::duration<double, std::milli>(Clock::now() - this->Start).count();
      this->Open = false;
    }
  }
  const std::vector<PhaseTime>& phases() const
  {
    return this->Phases;
  }

  /// A step's profiler range: none on the CPU (CudaExec's are NVTX ranges). Its destructor is
  /// user-provided so that the scope object is not reported as an unused variable.
  struct NoRange
  {
    ~NoRange() {}
  };
  NoRange range(const char*) const
  {
    return NoRange{};
  }

private:
  using Clock = std::chrono::steady_clock;

  int Threads;
  std::size_t Current = 0;
  std::size_t Peak = 0;
  std::vector<PhaseTime> Phases;
  Clock::time_point Start;
  bool Open = false;
};

} // namespace detail
} // namespace emst
